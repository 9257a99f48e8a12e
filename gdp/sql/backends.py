r"""Database back ends: run one generated ``SELECT`` and return its rows.

Theory of operation
-------------------
The private layer never sends user text to a database: it sends SQL it generated itself
(with sqlglot, in the back end's dialect) from a validated query. A back end only has to
run such a statement and return the (few) aggregate rows, and list a table's columns.

* :class:`DBAPI` wraps any PEP 249 connection: the standard library's ``sqlite3``
  (dialect ``"sqlite"``), DuckDB (``"duckdb"``), or any other driver when its sqlglot
  dialect is named (``"postgres"``, ``"mysql"``, ``"snowflake"``, ...).
* :class:`Spark` wraps a ``pyspark.sql.SparkSession`` (dialect ``"spark"``); Spark is
  not a DB-API driver, so it gets its own two methods.

:func:`connect` picks one from what it is given: a path (an SQLite file, opened
read-only; ``.duckdb``/``.ddb`` files with DuckDB), a connection, a session, or a back end.

Errors raised by a database are reported without their text: an error can depend on the
data (a failed cast on one row), and its message would leak it.

Imports: the standard library (DuckDB and pyspark only when given their objects).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

__all__ = ["Backend", "DBAPI", "Spark", "connect", "DatabaseError"]


class DatabaseError(RuntimeError):
    """The database failed to run a generated statement (details withheld)."""


class Backend:
    """A database the private layer can query: ``run(sql)`` and ``columns(table)``."""

    dialect: str = ""

    def run(self, sql: str) -> list[tuple]:  # pragma: no cover - abstract
        """Run one ``SELECT`` and return all its rows as tuples."""
        raise NotImplementedError

    def columns(self, table: str) -> list[str]:  # pragma: no cover - abstract
        """The column names of ``table`` (as the database spells them)."""
        raise NotImplementedError

    def _quote(self, table: str) -> str:
        from sqlglot import exp

        return exp.to_identifier(table, quoted=True).sql(dialect=self.dialect)


class DBAPI(Backend):
    """A PEP 249 connection and the sqlglot dialect of its database."""

    def __init__(self, connection: Any, dialect: str) -> None:
        if not callable(getattr(connection, "cursor", None)):
            raise TypeError("`connection` must be a DB-API connection (with a cursor() "
                            f"method); got {connection!r}")
        self.connection = connection
        self.dialect = dialect

    def run(self, sql: str) -> list[tuple]:
        try:
            cur = self.connection.cursor()
            try:
                cur.execute(sql)
                return [tuple(r) for r in cur.fetchall()]
            finally:
                close = getattr(cur, "close", None)
                if callable(close):
                    close()
        except Exception as exc:  # any driver's error class
            raise DatabaseError("the database failed to run the query (its message is "
                                "withheld: it may depend on the data)") from exc

    def columns(self, table: str) -> list[str]:
        cur = self.connection.cursor()
        try:
            cur.execute(f"SELECT * FROM {self._quote(table)} WHERE 1 = 0")
            return [d[0] for d in cur.description]
        except Exception as exc:
            raise ValueError(f"table `{table}` cannot be read from the database") from exc
        finally:
            close = getattr(cur, "close", None)
            if callable(close):
                close()


class Spark(Backend):
    """A ``pyspark.sql.SparkSession`` (local or on a cluster)."""

    dialect = "spark"

    def __init__(self, session: Any) -> None:
        self.session = session

    def run(self, sql: str) -> list[tuple]:
        try:
            return [tuple(r) for r in self.session.sql(sql).collect()]
        except Exception as exc:
            raise DatabaseError("the database failed to run the query (its message is "
                                "withheld: it may depend on the data)") from exc

    def columns(self, table: str) -> list[str]:
        try:
            return list(self.session.table(table).columns)
        except Exception as exc:
            raise ValueError(f"table `{table}` cannot be read from the database") from exc


_DIALECTS = {"sqlite3": "sqlite", "duckdb": "duckdb", "_duckdb": "duckdb"}


def connect(db: Any, *, dialect: str | None = None) -> Backend:
    """A :class:`Backend` for ``db``: a file path, a DB-API connection, a SparkSession or
    a back end. ``dialect`` (a sqlglot dialect name) is needed for DB-API drivers other
    than sqlite3 and DuckDB.

    Examples
    --------
    >>> import sqlite3
    >>> from gdp.sql.backends import connect
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE t (x INTEGER)")
    >>> b = connect(conn)
    >>> b.dialect, b.columns("t"), b.run("SELECT COUNT(*) FROM t")
    ('sqlite', ['x'], [(0,)])
    """
    if isinstance(db, Backend):
        return db
    if isinstance(db, str | Path):
        path = Path(db)
        if not path.is_file():
            raise ValueError(f"`db` must be an existing database file; got db={str(db)!r}")
        if path.suffix.lower() in (".duckdb", ".ddb"):
            import duckdb

            return DBAPI(duckdb.connect(str(path), read_only=True), "duckdb")
        return DBAPI(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True), "sqlite")
    module = type(db).__module__.split(".")[0]
    if callable(getattr(db, "sql", None)) and hasattr(db, "sparkContext"):
        return Spark(db)
    if dialect is None:
        dialect = _DIALECTS.get(module)
    if dialect is None:
        raise ValueError("`dialect` is needed for a connection of module "
                         f"{type(db).__module__!r} (a sqlglot dialect name such as "
                         "'postgres' or 'mysql')")
    return DBAPI(db, dialect)
