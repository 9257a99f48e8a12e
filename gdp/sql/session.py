r"""A private database: budgeted SQL counts, sums and averages, joins included.

Theory of operation
-------------------
:class:`PrivateDatabase` wraps a connection and a :class:`~gdp.sql.Schema`. When it is
opened, the data owner's metrics are fixed once: the rows per individual (the
max-frequency of the protected key) and the max-frequency of each declared join key of
the protected table, measured, or declared and checked against the data. They are then
treated as public (see ``docs/sql.md`` for what that costs). A query goes through

1. :func:`gdp.sql.query.parse`: the supported subset, or :class:`UnsupportedQuery`;
2. the elastic bound of every aggregate (:mod:`gdp.sql.elastic`) from the metrics, and
   its mechanism (:mod:`gdp.sql.noise`): the query's ε and δ are split evenly over its
   releases (an ``AVG`` is a noisy sum and a noisy count);
3. the accountant: the composed curve of the query's releases is charged in one step,
   and a query that would exceed the budget raises :class:`BudgetExceeded` *before* the
   database is touched, leaving the budget as it was;
4. the rewritten statement runs on the database; only the aggregate rows come back;
5. noise; the :class:`Answer` carries every number with its noise scale, the
   sensitivity used and a confidence interval.

A statement that fails on the database stays charged (whether it fails can depend on the
data). ``spent()`` and ``remaining()`` report the budget in (ε, δ) and as curves.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.mechanisms`,
the modules of :mod:`gdp.sql`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import check_real
from ..accounting import Accountant, BudgetExceeded, Remaining
from ..core.piecewise import identity
from ..core.tradeoff import TradeOff
from ..engine import compose
from ..families.epsdelta import f_eps_delta
from ..families.gaussian import G_mu
from ..families.laplace_tradeoff import laplace
from ..mechanisms import DiscreteGaussian, DiscreteLaplace
from ..mechanisms.base import _as_rng
from .backends import connect
from .elastic import ElasticBound, Join, Select, Table, stability
from .noise import NOISES, SmoothLaplace, make_mechanism, smooth_beta
from .query import ParsedQuery, UnsupportedQuery, parse, rewrite
from .schema import Schema

__all__ = ["Release", "Answer", "Spent", "PrivateDatabase", "QueryMechanism"]

_MAX_GROUPS = 100_000


@dataclass(frozen=True, slots=True)
class Release:
    """One noisy number per group of one aggregate of the answer.

    ``elastic`` is :math:`\\hat S^{(0)}` (the elastic sensitivity at the true database),
    ``sensitivity`` the one the noise is calibrated to (equal to it when global; the
    smoothed :math:`S` for ``noise="smooth"``, with its ``beta``), ``scale`` the noise
    scale (Laplace b, Gaussian σ), ``eps``/``delta`` this release's share and
    ``tradeoff`` its curve. ``values`` and ``intervals`` have one entry per group.
    """

    name: str
    part: str
    noise: str
    elastic: float
    sensitivity: float
    beta: float | None
    scale: float
    eps: float
    delta: float
    tradeoff: TradeOff
    values: tuple[float, ...] = ()
    intervals: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """The private answer of a query.

    ``columns`` and ``rows`` form the result table (group columns, then one noisy number
    per aggregate; an ``AVG`` is the ratio of its two releases, clipped to the declared
    bounds); ``intervals`` has, per row, a confidence interval for each aggregate (joint
    over the groups, at level ``confidence``; for noise only, clamping bias aside);
    ``releases`` the details of every noisy number; ``tradeoff`` the curve charged for
    the query; ``sql`` the statement that ran.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    intervals: tuple[tuple[tuple[float, float], ...], ...]
    releases: tuple[Release, ...]
    eps: float
    delta: float
    confidence: float
    tradeoff: TradeOff
    sql: str

    @property
    def value(self) -> float:
        """The number, for an ungrouped query with one aggregate."""
        if len(self.rows) != 1 or len(self.rows[0]) != 1:
            raise ValueError("`value` is for one ungrouped aggregate; read `rows` instead")
        return self.rows[0][0]

    @property
    def interval(self) -> tuple[float, float]:
        """The confidence interval of :attr:`value`."""
        _ = self.value
        return self.intervals[0][0]


@dataclass(frozen=True, slots=True)
class Spent:
    """The budget spent: ``eps`` at the budget's δ, ``delta`` at the budget's ε (``None``
    without a budget) and the composed curve."""

    eps: float | None
    delta: float | None
    tradeoff: TradeOff


@dataclass(frozen=True, slots=True)
class _Plan:
    query: ParsedQuery
    sql: str
    labels: tuple[str, ...]
    domains: dict
    releases: tuple[tuple[Release, Any, int], ...]  # (release, mechanism or None, aggregate)
    tradeoff: TradeOff
    eps: float
    delta: float


def _spec(mech: Any) -> list:
    if mech is None:
        return ["identity"]
    if isinstance(mech, SmoothLaplace):
        return ["eps_delta", mech.eps, mech.delta]
    if isinstance(mech, DiscreteLaplace):
        return ["discrete_laplace", mech.sensitivity, str(mech.scale)]
    if isinstance(mech, DiscreteGaussian):
        return ["discrete_gaussian", mech.sensitivity, str(Fraction(mech.sigma))]
    if hasattr(mech, "sigma"):
        return ["gaussian", mech.mu]
    return ["laplace", mech.eps]


def _curve(spec: Any) -> TradeOff:
    kind, *args = spec
    if kind == "identity":
        return identity()
    if kind == "eps_delta":
        return f_eps_delta(*args)
    if kind == "laplace":
        return laplace(*args)
    if kind == "gaussian":
        return G_mu(*args)
    if kind == "discrete_laplace":
        return DiscreteLaplace(sensitivity=args[0], scale=Fraction(args[1])).tradeoff
    if kind == "discrete_gaussian":
        return DiscreteGaussian(sensitivity=args[0], sigma=Fraction(args[1])).tradeoff
    raise ValueError(f"unknown curve {spec!r} in the saved state")


def _compose_all(curves: list[TradeOff]) -> TradeOff:
    curves = [c for c in curves if c != identity()]
    if not curves:
        return identity()
    return curves[0] if len(curves) == 1 else compose(*curves)


class PrivateDatabase:
    """A database answering counts, sums and averages with differential privacy.

    Parameters
    ----------
    db : str, Path, connection or SparkSession
        An SQLite file (opened read-only), a ``.duckdb`` file, a ``sqlite3`` or DuckDB
        connection, any DB-API connection (give ``dialect``), a ``SparkSession``.
    schema : Schema, mapping or TOML
        What is protected and public, bounds, join-key metrics, group domains.
    budget : (eps, delta), mu, TradeOff or None
        The session's total; ``None`` records without limit.
    dialect : str, optional
        The sqlglot dialect of a DB-API connection other than sqlite3 and DuckDB.
    rng : numpy.random.Generator, optional
        Source of noise (a fresh OS-seeded one per query when ``None``).
    confidence : float
        Level of the confidence intervals (default 0.95).

    Examples
    --------
    >>> from gdp.sql import PrivateDatabase, example
    >>> import numpy as np
    >>> db = PrivateDatabase(example.rides(), example.SCHEMA, budget=(2.0, 1e-6),
    ...                      rng=np.random.default_rng(1))
    >>> ans = db.query("SELECT COUNT(*) FROM trips", eps=0.5)
    >>> ans.releases[0].sensitivity, ans.releases[0].scale   # 1 rider owns <= 12 trips
    (12.0, 24.0)
    """

    def __init__(self, db: Any, schema: Any, *, budget: Any = None, dialect: str | None = None,
                 rng: np.random.Generator | None = None, confidence: float = 0.95) -> None:
        if isinstance(schema, Schema):
            self.schema = schema
        elif isinstance(schema, dict):
            self.schema = Schema.from_dict(schema)
        else:
            self.schema = Schema.from_toml(schema)
        self.backend = connect(db, dialect=dialect)
        self.accountant = Accountant(budget)
        self.rng = None if rng is None else _as_rng(rng)
        self.confidence = check_real("confidence", confidence, lo=0.0, hi=1.0, lo_open=True,
                                     hi_open=True)
        self._columns: dict[str, list[str]] = {}
        self._public_mf: dict[tuple[str, str], int] = {}
        self._public_domains: dict[tuple[str, str], tuple] = {}
        self.log: list[dict[str, Any]] = []
        self.metrics = self._owner_metrics()

    # ------------------------------------------------------------ data owner's metrics
    def columns(self, table: str) -> list[str]:
        """The columns of a schema table (lower case; read once from the database)."""
        name = self.schema.table(table).name.lower()
        if name not in self._columns:
            self._columns[name] = [c.lower() for c in self.backend.columns(
                self.schema.table(table).name)]
        return self._columns[name]

    def _measure(self, table: str, column: str) -> int:
        from sqlglot import exp

        col = exp.column(column, quoted=True)
        inner = exp.select(col.copy(), exp.alias_(exp.Count(this=exp.Star()), "n", quoted=True)) \
            .from_(exp.to_table(self.schema.table(table).name, quoted=True)) \
            .where(exp.Not(this=exp.Is(this=col.copy(), expression=exp.Null()))) \
            .group_by(col.copy())
        sql = exp.select(exp.Max(this=exp.column("n", quoted=True))) \
            .from_(inner.subquery("s", copy=False)).sql(dialect=self.backend.dialect)
        rows = self.backend.run(sql)
        return int(rows[0][0] or 0)

    def _owner_metrics(self) -> dict[str, int]:
        prot = self.schema.protected
        cols = self.columns(prot.name)
        wanted = {prot.key: prot.rows_per_key, **prot.max_frequency}
        metrics = {}
        for col, declared in wanted.items():
            if col not in cols:
                raise ValueError(f"the schema names column `{prot.name}.{col}`, which the "
                                 "database does not have")
            actual = self._measure(prot.name, col)
            if declared is not None and actual > declared:
                raise ValueError(f"the declared max-frequency of {prot.name}.{col} ({declared})"
                                 f" is below the data's ({actual}): the bounds would be unsound")
            metrics[col] = max(1, actual if declared is None else declared)
        return metrics

    @property
    def rows_per_individual(self) -> int:
        """:math:`c`, the most rows of the protected table one individual owns."""
        return self.metrics[self.schema.protected.key]

    def _public_metric(self, table: str, col: str) -> int:
        if (table, col) not in self._public_mf:
            self._public_mf[(table, col)] = self._measure(table, col)
        return self._public_mf[(table, col)]

    def _domain(self, table: str, col: str) -> tuple:
        spec = self.schema.table(table)
        if col in spec.domains:
            return spec.domains[col]
        if spec.protected:
            raise UnsupportedQuery(f"GROUP BY: {table}.{col} has no public domain (declare "
                                   f"[{table}] domains = {{ {col} = [...] }}): the set of groups"
                                   " of a protected column would reveal the data")
        if (table, col) not in self._public_domains:
            from sqlglot import exp

            sql = exp.select(exp.column(col, quoted=True)).distinct() \
                .from_(exp.to_table(spec.name, quoted=True)) \
                .where(exp.Not(this=exp.Is(this=exp.column(col, quoted=True),
                                           expression=exp.Null()))) \
                .sql(dialect=self.backend.dialect)
            self._public_domains[(table, col)] = tuple(sorted(r[0] for r in
                                                              self.backend.run(sql)))
        return self._public_domains[(table, col)]

    # ------------------------------------------------------------ planning
    def _relation(self, q: ParsedQuery) -> Any:
        keys: dict[str, set[str]] = {}
        for a, b in q.joins:
            for alias, col in (a, b):
                keys.setdefault(alias, set()).add(col)
        rels = []
        for table, alias in q.tables:
            spec = self.schema.table(table)
            if spec.protected:
                mf = {c: self.metrics[c] for c in spec.max_frequency}
            else:
                mf = {c: self._public_metric(table, c) for c in keys.get(alias, ())}
            rels.append(Table(table, alias, spec.protected, mf))
        rel = rels[0]
        for right, (a, b) in zip(rels[1:], q.joins, strict=True):
            rel = Join(rel, right, a, b)
        return Select(rel) if q.where is not None else rel

    def _plan(self, sql: str, eps: Any, delta: Any, noise: str) -> _Plan:
        eps = check_real("eps", eps, lo=0.0, lo_open=True)
        delta = check_real("delta", delta, lo=0.0, hi=1.0, hi_open=True)
        if noise not in NOISES:
            raise ValueError(f"`noise` must be one of {NOISES}; got noise={noise!r}")
        q = parse(sql, self.schema, self.columns)
        rel = self._relation(q)
        try:
            stab = stability(rel)
        except ValueError as exc:
            raise UnsupportedQuery(f"JOIN: {exc}") from None
        domains = {g: self._domain(dict((al, t) for t, al in q.tables)[g[0]], g[1])
                   for g in q.group_by}
        dim = math.prod(len(d) for d in domains.values()) if domains else 1
        if dim > _MAX_GROUPS:
            raise UnsupportedQuery(f"GROUP BY: {dim} groups is more than {_MAX_GROUPS}")
        parts = []
        for j, agg in enumerate(q.aggregates):
            if agg.kind in ("sum", "avg"):
                parts.append((j, agg, "sum", max(abs(agg.bounds[0]), abs(agg.bounds[1]))))
            if agg.kind in ("count", "avg"):
                parts.append((j, agg, "count", 1.0))
        eps_i, delta_i = eps / len(parts), delta / len(parts)
        releases = []
        for j, agg, part, weight in parts:
            bound = ElasticBound(stab, weight=weight, rows_per_individual=self.rows_per_individual)
            releases.append((*self._release(agg.name, part, bound, noise, eps_i, delta_i, dim),
                             j))
        text, labels = rewrite(q, domains, self.backend.dialect)
        return _Plan(q, text, tuple(labels), domains, tuple(releases),
                     _compose_all([r.tradeoff for r, _, _ in releases]), eps, delta)

    def _release(self, name: str, part: str, bound: ElasticBound, noise: str, eps: float,
                 delta: float, dim: int) -> tuple[Release, Any]:
        elastic = bound.at(0)
        if elastic == 0.0:  # reads public tables only: nothing private to protect
            return Release(name, part, "none", 0.0, 0.0, None, 0.0, 0.0, 0.0, identity()), None
        kind = noise if noise != "auto" else ("laplace" if bound.is_global else "smooth")
        if kind == "smooth":
            if not delta > 0:
                raise ValueError("noise='smooth' needs delta > 0 (the smoothed Laplace "
                                 f"release is (eps, delta)-DP); got delta={delta!r}")
            beta = smooth_beta(eps, delta, dim)
            s = bound.smooth(beta)
            mech = SmoothLaplace(sensitivity=s, eps=eps, delta=delta)
            return Release(name, part, kind, elastic, s, beta, mech.scale, eps, delta,
                           mech.tradeoff), mech
        if not bound.is_global:
            raise UnsupportedQuery(f"{name}: the sensitivity depends on the data (a join on a "
                                   f"key of the protected table), so noise={kind!r} has no "
                                   "guarantee; use noise='smooth' (or 'auto')")
        mech = make_mechanism(kind, elastic, eps, delta, integer=part == "count", dim=dim)
        scale = float(getattr(mech, "sigma", None) or mech.scale)
        return Release(name, part, kind, elastic, elastic, None, scale, eps, delta,
                       mech.tradeoff), mech

    def explain(self, sql: str, *, eps: float, delta: float = 0.0,
                noise: str = "auto") -> tuple[Release, ...]:
        """The releases a query would make (sensitivities, noise, curves), without
        running it and without spending budget (no value, no interval)."""
        return tuple(r for r, _, _ in self._plan(sql, eps, delta, noise).releases)

    # ------------------------------------------------------------ answering
    def _true_values(self, plan: _Plan) -> tuple[list[tuple], dict[str, np.ndarray]]:
        rows = self.backend.run(plan.sql)
        ng = len(plan.query.group_by)
        groups = list(itertools.product(*[plan.domains[g] for g in plan.query.group_by]))
        index = {g: i for i, g in enumerate(groups)}
        cols = {lab: np.zeros(len(groups)) for lab in plan.labels[ng:]}
        for row in rows:
            i = index.get(tuple(row[:ng]))
            if i is None:  # pragma: no cover - the IN filter keeps rows in the domain
                continue
            for lab, v in zip(plan.labels[ng:], row[ng:], strict=True):
                cols[lab][i] = float(v or 0)
        return groups, cols

    def _answer(self, plan: _Plan, rng: np.random.Generator | None) -> Answer:
        groups, truth = self._true_values(plan)
        gen = _as_rng(rng if rng is not None else self.rng)
        level = 1.0 - self.confidence
        noisy, done = {}, []
        for rel, mech, agg_index in plan.releases:
            true = truth[f"{rel.part}:{agg_index}"]
            # an AVG is two releases: each interval at half the miss probability
            share = level / 2 if plan.query.aggregates[agg_index].kind == "avg" else level
            if mech is None:
                vals, radius = true.copy(), 0.0
            else:
                vals = np.asarray(mech(true, rng=gen), dtype=float).reshape(true.shape)
                radius = float(mech.accuracy(share, k=len(groups)))
            noisy[(agg_index, rel.part)] = (vals, radius)
            done.append(replace(rel, values=tuple(vals.tolist()), intervals=tuple(
                (v - radius, v + radius) for v in vals.tolist())))
        columns, rows, intervals = [], [], []
        agg_at = {id(a): j for j, a in enumerate(plan.query.aggregates)}
        for _, key in plan.query.outputs:
            columns.append(f"{key[0]}.{key[1]}" if isinstance(key, tuple) else key.name)
        for gi, g in enumerate(groups):
            row, ivs = [], []
            gvals = dict(zip(plan.query.group_by, g, strict=True))
            for kind, key in plan.query.outputs:
                if kind == "group":
                    row.append(gvals[key])
                    continue
                value, iv = self._combine(key, agg_at[id(key)], gi, noisy)
                row.append(value)
                ivs.append(iv)
            rows.append(tuple(row))
            intervals.append(tuple(ivs))
        return Answer(tuple(columns), tuple(rows), tuple(intervals), tuple(done), plan.eps,
                      plan.delta, self.confidence, plan.tradeoff, plan.sql)

    @staticmethod
    def _combine(agg: Any, j: int, gi: int, noisy: dict) -> tuple[float, tuple[float, float]]:
        if agg.kind != "avg":
            vals, r = noisy[(j, agg.kind)]
            return float(vals[gi]), (float(vals[gi] - r), float(vals[gi] + r))
        (s, rs), (c, rc) = noisy[(j, "sum")], noisy[(j, "count")]
        lo_b, hi_b = agg.bounds
        s, c = float(s[gi]), float(c[gi])
        value = min(hi_b, max(lo_b, s / c)) if c > 0 else (lo_b + hi_b) / 2
        if c - rc <= 0:
            return value, (lo_b, hi_b)
        ends = [(s + a) / (c + b) for a in (-rs, rs) for b in (-rc, rc)]
        return value, (max(lo_b, min(ends)), min(hi_b, max(ends)))

    def query(self, sql: str, *, eps: float, delta: float = 0.0, noise: str = "auto",
              rng: np.random.Generator | None = None) -> Answer:
        """Answer ``sql`` privately, spending (``eps``, ``delta``) of the budget.

        ``noise``: ``"auto"`` (Laplace when the sensitivity is global, smoothed Laplace
        otherwise), ``"laplace"``, ``"gaussian"``, ``"discrete_laplace"``,
        ``"discrete_gaussian"`` (global sensitivity only) or ``"smooth"``. Raises
        :class:`UnsupportedQuery` for a query outside the supported subset and
        :class:`BudgetExceeded` when the budget would be exceeded, in both cases before
        the database is queried and with the budget unchanged.
        """
        plan = self._plan(sql, eps, delta, noise)
        try:
            self.accountant.compose(plan.tradeoff)
        except BudgetExceeded as exc:
            b = exc.budget
            left = (f", which allows at most a pure eps={self.remaining().eps:.4g} query now"
                    if b.criterion == "epsilon" else "")
            raise BudgetExceeded(
                f"query refused: spending (eps={plan.eps:g}, delta={plan.delta:g}) would exceed "
                f"the budget {b.describe()}{left} (nothing was run or recorded)", budget=b,
                attempted=exc.attempted, would_be=exc.would_be) from None
        self.log.append({"sql": sql, "eps": plan.eps, "delta": plan.delta,
                         "curves": [_spec(m) for _, m, _ in plan.releases]})
        return self._answer(plan, rng)

    def mechanism(self, sql: str, *, eps: float, delta: float = 0.0,
                  noise: str = "auto") -> QueryMechanism:
        """The query as a mechanism whose input is a database (for :func:`gdp.audit`)."""
        plan = self._plan(sql, eps, delta, noise)
        return QueryMechanism(self.schema, sql, eps, delta, noise, plan.tradeoff,
                              self.backend.dialect, self.confidence)

    # ------------------------------------------------------------ budget
    def spent(self) -> Spent:
        """The budget spent so far: ε at the budget's δ, δ at its ε, and the curve."""
        f = self.accountant.tradeoff()
        b = self.accountant.budget
        if b is not None and b.criterion == "epsilon":
            return Spent(float(f.epsilon(b.delta)), float(f.delta(b.eps)), f)
        return Spent(None, None, f)

    def remaining(self) -> Remaining:
        """What the budget still allows (:class:`gdp.accounting.budget.Remaining`)."""
        return self.accountant.remaining()

    def state_dict(self) -> dict[str, Any]:
        """The session's ledger (queries and their curves), JSON-ready, to resume it."""
        b = self.accountant.budget
        budget = None if b is None else b.to_dict()
        return {"version": 1, "budget": budget, "log": [dict(r) for r in self.log]}

    def load_state_dict(self, state: Any) -> None:
        """Charge a saved ledger (from :meth:`state_dict`) to this session's budget; the
        session is unchanged if the state is malformed or does not fit."""
        try:
            if state["version"] != 1:
                raise ValueError(f"unknown version {state['version']!r}")
            log = [dict(r) for r in state["log"]]
            curves = [_compose_all([_curve(s) for s in r["curves"]]) for r in log]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"`state` is not a saved gdp.sql session: {exc}") from None
        trial = Accountant.from_state_dict(self.accountant.state_dict())
        for f in curves:
            trial.compose(f)
        self.accountant = trial
        self.log.extend(log)


@dataclass(frozen=True, slots=True)
class QueryMechanism:
    """A query as a mechanism of the database: ``mech(db, rng=...)`` answers it on ``db``
    (with that database's own metrics) and ``mech.tradeoff`` is the curve it is charged.

    For audits (:func:`gdp.audit` on two neighbouring databases); it spends no budget.
    :meth:`true_value` gives the *exact* answer, which is not private.
    """

    schema: Schema
    sql: str
    eps: float
    delta: float
    noise: str
    tradeoff: TradeOff
    dialect: str | None = None
    confidence: float = 0.95

    def _session(self, db: Any) -> tuple[PrivateDatabase, _Plan]:
        session = PrivateDatabase(db, self.schema, dialect=self.dialect,
                                  confidence=self.confidence)
        return session, session._plan(self.sql, self.eps, self.delta, self.noise)

    def true_value(self, db: Any) -> float:
        """The exact answer of an ungrouped single-aggregate count or sum (not private)."""
        session, plan = self._session(db)
        _, truth = session._true_values(plan)
        return float(next(iter(truth.values()))[0])

    def __call__(self, db: Any, *, rng: np.random.Generator | None = None) -> float:
        session, plan = self._session(db)
        return session._answer(plan, _as_rng(rng)).value

    def sample(self, db: Any, n: int, *, rng: np.random.Generator | None = None) -> np.ndarray:
        """``n`` answers on ``db`` (the query runs once; ``n`` independent noises)."""
        session, plan = self._session(db)
        (_, mech, _), = plan.releases
        return np.asarray(mech.sample(self.true_value(db), n, rng=_as_rng(rng)), dtype=float)
