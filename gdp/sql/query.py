r"""Parse, check and rewrite the SQL a private database accepts (with sqlglot).

Theory of operation
-------------------
A query is accepted only if every part of it has a sensitivity rule; everything else is
refused with :class:`UnsupportedQuery` (a ``ValueError``) naming the clause and the reason,
before anything reaches the database. Accepted::

    SELECT [g1, g2, ...,] agg [AS name], ...
    FROM t [AS a] [[INNER] JOIN u [AS b] ON a.x = b.y] ...
    [WHERE <row filter>]
    [GROUP BY g1, g2, ...]

with ``agg`` one of ``COUNT(*)``, ``COUNT(col)``, ``SUM(col)``, ``AVG(col)``; joins are
inner equi-joins on one pair of plain columns; the filter uses columns, literals,
comparisons, ``AND``/``OR``/``NOT``, ``IN`` over literals, ``BETWEEN``, ``LIKE``,
``IS [NOT] NULL`` and ``+ - *``; grouped columns need a public domain. Refused, among
others: several statements, comments, subqueries, ``DISTINCT``, ``HAVING``, ``ORDER BY``,
``LIMIT``, ``WITH``, outer and cross joins, ``USING``, functions (they may fail or vary
with the data), division (it fails on zero in some databases), window functions.

The text the user wrote never reaches the database. :func:`rewrite` builds a new
statement from the checked parts, with quoted identifiers, sums clamped to the declared
bounds (``CASE WHEN x < L THEN L WHEN x > U THEN U ELSE x END``) and grouped queries
restricted to their public domain (``g IN (...)``), in the back end's dialect.

Imports: sqlglot, the ground floor, :mod:`gdp.sql.schema`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from .schema import Schema

__all__ = ["UnsupportedQuery", "Aggregate", "ParsedQuery", "parse", "rewrite"]


class UnsupportedQuery(ValueError):
    """The query uses a construct that has no sensitivity rule (the message says which)."""


def _refuse(clause: str, why: str) -> UnsupportedQuery:
    return UnsupportedQuery(f"{clause}: {why}")


@dataclass(frozen=True, slots=True)
class Aggregate:
    """One aggregate of the ``SELECT`` list: ``kind`` is ``"count"``, ``"sum"`` or
    ``"avg"``; ``column`` is ``(alias, column)`` or ``None`` for ``COUNT(*)``."""

    kind: str
    column: tuple[str, str] | None
    name: str
    bounds: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """A checked query: the tables read (``(table, alias)``, in ``FROM``/``JOIN`` order),
    the join keys (``(key in the joined-so-far relation, key in the new table)``), the
    filter (a sqlglot expression with qualified columns), the grouped columns and the
    output columns (``("group", (alias, col))`` or ``("agg", Aggregate)``)."""

    tables: tuple[tuple[str, str], ...]
    joins: tuple[tuple[tuple[str, str], tuple[str, str]], ...]
    where: Any
    group_by: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, Any], ...]

    @property
    def aggregates(self) -> tuple[Aggregate, ...]:
        """The aggregates, in ``SELECT`` order."""
        return tuple(v for k, v in self.outputs if k == "agg")


_SELECT_ARGS = {"expressions", "from_", "from", "joins", "where", "group"}
_JOIN_ARGS = {"this", "on", "kind"}
_TABLE_ARGS = {"this", "alias"}
_ALLOWED_WHERE = (exp.And, exp.Or, exp.Not, exp.Paren, exp.EQ, exp.NEQ, exp.GT, exp.GTE,
                  exp.LT, exp.LTE, exp.In, exp.Between, exp.Is, exp.Like, exp.ILike,
                  exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.Neg,
                  exp.Add, exp.Sub, exp.Mul)


def _set_args(node: exp.Expression) -> set[str]:
    return {k for k, v in node.args.items() if v not in (None, False, [], "")}


def _describe(node: exp.Expression) -> str:
    if isinstance(node, exp.Func):
        name = node.sql_name() if not isinstance(node, exp.Anonymous) else node.name
        return f"function {name.upper()}"
    return type(node).__name__.upper()


class _Resolver:
    """Maps (possibly unqualified) column references to ``(alias, column)``."""

    def __init__(self, schema: Schema, columns: Any) -> None:
        self.schema = schema
        self.columns_of = columns  # table name -> list of column names (lower case)
        self.aliases: dict[str, str] = {}  # alias -> table name

    def add_table(self, node: Any, clause: str) -> tuple[str, str]:
        if not isinstance(node, exp.Table):
            what = "a subquery" if isinstance(node, exp.Subquery | exp.Select) else _describe(node)
            raise _refuse(clause, f"{what} is not supported (nested subqueries are refused; "
                          "name a table of the schema)")
        extra = _set_args(node) - _TABLE_ARGS
        if extra:
            raise _refuse(clause, f"table modifiers {sorted(extra)} are not supported "
                          "(schema-qualified names, samples, hints)")
        name = node.name.lower()
        try:
            self.schema.table(name)
        except ValueError as exc:
            raise _refuse(clause, str(exc)) from None
        alias_node = node.args.get("alias")
        if alias_node is not None and _set_args(alias_node) - {"this"}:
            raise _refuse(clause, "column aliases on a table are not supported")
        alias = (alias_node.name if alias_node is not None else node.name).lower()
        if alias in self.aliases:
            raise _refuse(clause, f"the name `{alias}` is used twice (give each table a "
                          "distinct alias)")
        self.aliases[alias] = name
        return name, alias

    def column(self, node: exp.Column, clause: str) -> tuple[str, str]:
        if _set_args(node) - {"this", "table"}:
            raise _refuse(clause, f"column {node.sql()} names a schema or catalog")
        if isinstance(node.this, exp.Star):
            raise _refuse(clause, "`*` is only allowed in COUNT(*)")
        col = node.name.lower()
        if node.table:
            alias = node.table.lower()
            if alias not in self.aliases:
                raise _refuse(clause, f"`{node.table}` is not a table of the FROM clause")
            if col not in self.columns_of(self.aliases[alias]):
                raise _refuse(clause, f"table `{self.aliases[alias]}` has no column `{col}`")
            return alias, col
        owners = [a for a, t in self.aliases.items() if col in self.columns_of(t)]
        if len(owners) != 1:
            why = "no table of the FROM clause has it" if not owners else \
                f"it is ambiguous (in {sorted(owners)}; qualify it)"
            raise _refuse(clause, f"column `{col}`: {why}")
        return owners[0], col


def _single_statement(sql: str) -> exp.Select:
    if not isinstance(sql, str):
        raise TypeError(f"`sql` must be a string; got sql={sql!r}")
    try:
        tokens = sqlglot.tokenize(sql)
        statements = [s for s in sqlglot.parse(sql) if s is not None]
    except (ParseError, TokenError) as exc:
        raise UnsupportedQuery(f"the query is not valid SQL: {str(exc).splitlines()[0]}") from None
    if any(t.comments for t in tokens):
        raise _refuse("query", "comments are not allowed (they can hide text from a reader)")
    if sum(t.token_type == sqlglot.TokenType.SEMICOLON for t in tokens) > 1 or \
            len(statements) != 1:
        raise _refuse("query", f"exactly one statement is allowed; got {len(statements)}")
    stmt = statements[0]
    if not isinstance(stmt, exp.Select):
        raise _refuse("query", f"only SELECT is supported; got {type(stmt).__name__.upper()}")
    extra = _set_args(stmt) - _SELECT_ARGS
    if extra:
        raise _refuse(", ".join(sorted(a.upper() for a in extra)),
                      "not supported (only SELECT aggregates FROM/JOIN/WHERE/GROUP BY)")
    return stmt


def _check_where(node: exp.Expression, res: _Resolver) -> exp.Expression:
    for sub in node.walk():
        if isinstance(sub, exp.Select | exp.Subquery | exp.Exists):
            raise _refuse("WHERE", "nested subqueries are not supported")
        if isinstance(sub, exp.Div | exp.IntDiv | exp.Mod):
            raise _refuse("WHERE", "division is not supported (it fails on zero in some "
                          "databases, and the failure would depend on the data)")
        if not isinstance(sub, _ALLOWED_WHERE):
            raise _refuse("WHERE", f"{_describe(sub)} is not supported (allowed: columns, "
                          "literals, comparisons, AND/OR/NOT, IN lists, BETWEEN, LIKE, IS NULL,"
                          " + - *)")
        if isinstance(sub, exp.In) and (sub.args.get("query") or sub.args.get("unnest")):
            raise _refuse("WHERE", "IN (subquery) is not supported: IN takes a list of literals")

    def qualify(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column):
            alias, col = res.column(n, "WHERE")
            return exp.column(col, table=alias, quoted=True)
        return n

    return node.copy().transform(qualify)


def _check_join(join: exp.Join, res: _Resolver) -> tuple[tuple[str, str], tuple[str, str], str]:
    if join.args.get("side") or join.args.get("method") or join.args.get("using") or \
            (join.args.get("kind") or "INNER").upper() != "INNER":
        kind = " ".join(str(join.args.get(k)) for k in ("method", "side", "kind")
                        if join.args.get(k)) or "USING"
        raise _refuse("JOIN", f"{kind} JOIN is not supported (inner equi-joins only: the "
                      "elastic rules cover those)")
    extra = _set_args(join) - _JOIN_ARGS
    if extra:
        raise _refuse("JOIN", f"join modifiers {sorted(extra)} are not supported")
    on = join.args.get("on")
    if on is None:
        raise _refuse("JOIN", "a join needs ON a.x = b.y (a cross join multiplies every row)")
    known = set(res.aliases)
    _, alias = res.add_table(join.this, "JOIN")
    if isinstance(on, exp.Paren):
        on = on.this
    if not (isinstance(on, exp.EQ) and isinstance(on.this, exp.Column)
            and isinstance(on.expression, exp.Column)):
        raise _refuse("JOIN", f"ON {on.sql()} is not an equality of two columns (non-equi "
                      "joins have no elastic-stability rule)")
    a = res.column(on.this, "JOIN")
    b = res.column(on.expression, "JOIN")
    if a[0] == alias and b[0] in known:
        a, b = b, a
    if not (b[0] == alias and a[0] in known):
        raise _refuse("JOIN", f"ON {on.sql()} must compare a column of `{alias}` with a "
                      "column of the tables joined before it")
    return a, b, alias


def _aggregate(node: exp.Expression, res: _Resolver, schema: Schema,
               name: str) -> Aggregate:
    inner = node.this
    kind = type(node).__name__.lower()
    if isinstance(inner, exp.Distinct):
        raise _refuse("SELECT", f"{kind.upper()}(DISTINCT ...) is not supported (its "
                      "sensitivity has no elastic rule)")
    if kind == "count" and isinstance(inner, exp.Star):
        return Aggregate("count", None, name)
    if not isinstance(inner, exp.Column):
        raise _refuse("SELECT", f"{kind.upper()} takes a plain column (or * for COUNT); got "
                      f"{inner.sql() if inner is not None else 'nothing'}")
    col = res.column(inner, "SELECT")
    if kind == "count":
        return Aggregate("count", col, name)
    table = schema.table(res.aliases[col[0]])
    if col[1] not in table.bounds:
        raise _refuse("SELECT", f"{kind.upper()}({table.name}.{col[1]}) needs declared bounds "
                      f"(schema: [{table.name}] bounds = {{ {col[1]} = [lower, upper] }}); "
                      "an unbounded sum has unbounded sensitivity")
    return Aggregate(kind, col, name, table.bounds[col[1]])


def parse(sql: str, schema: Schema, columns: Any) -> ParsedQuery:
    """Check ``sql`` against the supported subset and the schema.

    ``columns(table)`` returns the (lower-case) column names of a table. Raises
    :class:`UnsupportedQuery` naming the clause that cannot be answered privately.

    Examples
    --------
    >>> from gdp.sql import Schema
    >>> from gdp.sql.query import parse
    >>> schema = Schema.from_dict({"trips": {"protected": True, "key": "rider_id"}})
    >>> cols = {"trips": ["rider_id", "fare", "city"]}.__getitem__
    >>> parse("SELECT COUNT(*) FROM trips WHERE fare > 10", schema, cols).aggregates
    (Aggregate(kind='count', column=None, name='COUNT(*)', bounds=None),)
    >>> parse("SELECT MAX(fare) FROM trips", schema, cols)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gdp.sql.query.UnsupportedQuery: SELECT: function MAX is not supported (only COUNT, ...
    """
    stmt = _single_statement(sql)
    res = _Resolver(schema, columns)
    from_ = stmt.args.get("from_") or stmt.args.get("from")
    if from_ is None:
        raise _refuse("FROM", "a query must read a table of the schema")
    first = res.add_table(from_.this, "FROM")
    tables = [first]
    joins = []
    for join in stmt.args.get("joins") or []:
        a, b, alias = _check_join(join, res)
        tables.append((res.aliases[alias], alias))
        joins.append((a, b))
    where = stmt.args.get("where")
    where = _check_where(where.this, res) if where is not None else None
    group_by = []
    group = stmt.args.get("group")
    if group is not None:
        if _set_args(group) - {"expressions"}:
            raise _refuse("GROUP BY", "ROLLUP, CUBE and GROUPING SETS are not supported")
        for g in group.expressions:
            if not isinstance(g, exp.Column):
                raise _refuse("GROUP BY", f"{g.sql()} is not a plain column (group by columns "
                              "with a public domain)")
            group_by.append(res.column(g, "GROUP BY"))
    outputs: list[tuple[str, Any]] = []
    for item in stmt.expressions:
        node, name = (item.this, item.alias) if isinstance(item, exp.Alias) else (item, None)
        if isinstance(node, exp.Count | exp.Sum | exp.Avg):
            outputs.append(("agg", _aggregate(node, res, schema, name or node.sql())))
        elif isinstance(node, exp.Star):
            raise _refuse("SELECT", "* is not supported: rows are never released (aggregate "
                          "them with COUNT, SUM or AVG)")
        elif isinstance(node, exp.Column):
            col = res.column(node, "SELECT")
            if col not in group_by:
                raise _refuse("SELECT", f"column {node.sql()} is neither aggregated nor in "
                              "GROUP BY")
            outputs.append(("group", col))
        else:
            raise _refuse("SELECT", f"{_describe(node)} is not supported (only COUNT, SUM, AVG"
                          " and the GROUP BY columns)")
    if not any(k == "agg" for k, _ in outputs):
        raise _refuse("SELECT", "a query must compute at least one aggregate (COUNT, SUM, "
                      "AVG); rows are never released")
    return ParsedQuery(tuple(tables), tuple(joins), where, tuple(group_by), tuple(outputs))


def _col(key: tuple[str, str]) -> exp.Column:
    return exp.column(key[1], table=key[0], quoted=True)


def _clamped(key: tuple[str, str], bounds: tuple[float, float]) -> exp.Expression:
    lo, hi = (exp.Literal.number(repr(float(b))) for b in bounds)
    c = _col(key)
    return exp.Case(ifs=[exp.If(this=exp.LT(this=c.copy(), expression=lo), true=lo.copy()),
                         exp.If(this=exp.GT(this=c.copy(), expression=hi), true=hi.copy())],
                    default=c)


def rewrite(query: ParsedQuery, domains: Any, dialect: str) -> tuple[str, list[str]]:
    """The statement actually run: ``(sql, labels)``, where ``labels`` names its result
    columns (the group columns, then ``sum:i``/``count:i`` for aggregate ``i``).

    ``domains`` maps each grouped ``(alias, column)`` to its public domain; rows outside
    it are filtered out in the database.
    """
    select: list[exp.Expression] = [_col(g) for g in query.group_by]
    labels = [f"group:{a}.{c}" for a, c in query.group_by]
    for i, agg in enumerate(query.aggregates):
        if agg.kind in ("sum", "avg"):
            select.append(exp.Sum(this=_clamped(agg.column, agg.bounds)))
            labels.append(f"sum:{i}")
        if agg.kind in ("count", "avg"):
            select.append(exp.Count(this=exp.Star() if agg.column is None else _col(agg.column)))
            labels.append(f"count:{i}")
    (t0, a0), *rest = query.tables
    stmt = exp.select(*select).from_(exp.Table(
        this=exp.to_identifier(t0, quoted=True), alias=exp.TableAlias(
            this=exp.to_identifier(a0, quoted=True))))
    for (table, alias), (left, right) in zip(rest, query.joins, strict=True):
        stmt = stmt.join(exp.Table(this=exp.to_identifier(table, quoted=True),
                                   alias=exp.TableAlias(this=exp.to_identifier(alias,
                                                                               quoted=True))),
                         on=exp.EQ(this=_col(left), expression=_col(right)), join_type="inner")
    conds = [query.where.copy()] if query.where is not None else []
    for g in query.group_by:
        conds.append(exp.In(this=_col(g), expressions=[
            exp.Literal.string(v) if isinstance(v, str) else exp.Literal.number(repr(v))
            for v in domains[g]]))
    if conds:
        stmt = stmt.where(exp.and_(*[exp.Paren(this=c) for c in conds]))
    if query.group_by:
        stmt = stmt.group_by(*[_col(g) for g in query.group_by])
    return stmt.sql(dialect=dialect), labels
