r"""Private SQL: budgeted counts, sums and averages, joins included, on a real database.

Theory of operation
-------------------
A :class:`PrivateDatabase` wraps a database (SQLite by default, DuckDB, any DB-API
driver through sqlglot's dialects, Spark SQL) and a :class:`Schema` that says which table
holds the protected individuals, which tables are public, the bounds of summed columns,
the public domains of grouped columns and the max-frequency metrics of join keys. It
answers ``COUNT``, ``SUM`` (clamped), ``AVG`` with ``WHERE``, inner equi-joins (self-joins
and public tables included) and ``GROUP BY`` over public domains, and refuses anything
else before it reaches the database (:class:`UnsupportedQuery`).

Sensitivities follow the elastic-stability rules of Johnson, Near and Song
(:mod:`gdp.sql.elastic`). When the bound does not depend on the data (no join on a key of
the protected table) it is a global sensitivity and the answer gets Laplace, Gaussian or
discrete noise from :mod:`gdp.mechanisms` with its exact curve; otherwise it is smoothed
and answered with Laplace noise of scale :math:`2S/\varepsilon` (:mod:`gdp.sql.noise`).
Each query's curve goes into the session's :class:`gdp.Accountant`, which refuses a query
that would exceed the budget before the database is touched.

``gdp.sql.example`` builds the small rides database of ``docs/sql.md``
(``python -m gdp.sql.example rides.sqlite rides.toml`` writes it). This subpackage needs
the optional dependency sqlglot (``pip install "gdp-toolkit[sql]"``); ``import gdp`` does
not load it (``gdp.sql`` is loaded on first use).

Examples
--------
>>> import numpy as np
>>> from gdp.sql import PrivateDatabase, example
>>> db = PrivateDatabase(example.rides(), example.SCHEMA, budget=(1.0, 1e-6),
...                      rng=np.random.default_rng(7))
>>> ans = db.query("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id "
...                "WHERE d.vehicle = 'van'", eps=0.5)
>>> ans.releases[0].noise, ans.releases[0].sensitivity
('laplace', 12.0)

Imports: the floors below :mod:`gdp.mechanisms` and :mod:`gdp.mechanisms` itself (this
is the mechanisms floor), sqlglot.
"""

from __future__ import annotations

try:
    import sqlglot as _sqlglot  # noqa: F401
except ModuleNotFoundError as exc:  # pragma: no cover - the extra is not installed
    raise ModuleNotFoundError('gdp.sql needs sqlglot: pip install "gdp-toolkit[sql]"') from exc

from ..accounting.budget import BudgetExceeded, Remaining
from . import backends, elastic, noise, query, schema, session
from .backends import *
from .elastic import *
from .noise import *
from .query import *
from .schema import *
from .session import *

__all__ = [
    *backends.__all__, *elastic.__all__, *noise.__all__, *query.__all__,
    *schema.__all__, *session.__all__, "BudgetExceeded", "Remaining",
]
