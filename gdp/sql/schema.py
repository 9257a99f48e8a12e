r"""The schema of a private database: what is protected, what is public, what is declared.

Theory of operation
-------------------
A schema names every table a query may read and says, for each one:

``protected = true`` (exactly one table)
    The table of the individuals. ``key`` is the column that identifies an individual:
    neighbouring databases differ by all the rows sharing one value of ``key``, added or
    removed. ``rows_per_key`` bounds how many rows one individual owns (declared, or
    measured once when the database is opened). Rows of other tables never change.
``public = true``
    A table every neighbour shares (a lookup table, a published register). Its
    max-frequencies and the values of its columns are read from the table itself.
``bounds = {column = [L, U]}``
    The range a summed column is clamped to (``SUM``/``AVG`` refuse columns without
    one).
``max_frequency = {column = n | "measure"}``
    The join keys of the protected table and their max-frequency metric (the largest
    number of rows sharing one value): an upper bound declared by the data owner, or
    ``"measure"`` to measure it once when the database is opened. A join on a protected
    column that is not listed is refused.
``domains = {column = [v1, v2, ...]}``
    The public domain of a ``GROUP BY`` column: a grouped answer has exactly one row per
    value, whatever the data hold. Needed for every protected column used in
    ``GROUP BY``; optional for public tables (their distinct values are public).

The same structure is accepted as a Python mapping or as TOML text/file
(:meth:`Schema.from_toml`)::

    [trips]
    protected = true
    key = "rider_id"
    bounds = { fare = [0, 80] }
    max_frequency = { driver_id = "measure" }
    domains = { city = ["Lyon", "Nice", "Paris"] }

    [drivers]
    public = true

Imports: the ground floor only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validation import check_int, check_real

__all__ = ["TableSchema", "Schema", "MEASURE"]

#: the value of a ``max_frequency`` or ``rows_per_key`` entry that asks for a measurement
MEASURE = "measure"

_TABLE_KEYS = {"protected", "public", "key", "rows_per_key", "bounds", "max_frequency",
               "domains", "columns"}


def _metric(where: str, value: Any) -> int | None:
    if value == MEASURE:
        return None
    return check_int(where, value, lo=1)


def _domain(where: str, value: Any) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(f"`{where}` must be a non-empty list of values; got {where}={value!r}")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, str | int | float):
            raise TypeError(f"`{where}` must hold strings or numbers; got {v!r}")
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"`{where}` must hold finite values; got {v!r}")
    if len(set(value)) != len(value):
        raise ValueError(f"`{where}` must not repeat a value; got {where}={value!r}")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class TableSchema:
    """The declarations of one table (see the module docstring)."""

    name: str
    protected: bool = False
    key: str | None = None
    rows_per_key: int | None = None
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    max_frequency: Mapping[str, int | None] = field(default_factory=dict)
    domains: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, name: str, spec: Mapping[str, Any]) -> TableSchema:
        """Check and build the declarations of table ``name`` from a TOML-like mapping."""
        if not isinstance(spec, Mapping):
            raise TypeError(f"schema entry `{name}` must be a table of settings; got {spec!r}")
        unknown = sorted(set(spec) - _TABLE_KEYS)
        if unknown:
            raise ValueError(f"schema entry `{name}` has unknown settings {unknown}; allowed: "
                             f"{sorted(_TABLE_KEYS)}")
        protected = spec.get("protected", False) is True
        public = spec.get("public", False) is True
        if protected == public:
            raise ValueError(f"schema entry `{name}` must say exactly one of `protected = true`"
                             " or `public = true`")
        key = spec.get("key")
        if protected and not isinstance(key, str):
            raise ValueError(f"the protected table `{name}` needs `key`, the column that "
                             f"identifies an individual; got key={key!r}")
        if public and (key is not None or "rows_per_key" in spec):
            raise ValueError(f"the public table `{name}` takes no `key` or `rows_per_key`")
        rows = spec.get("rows_per_key", MEASURE)
        bounds = {}
        for col, pair in dict(spec.get("bounds", {})).items():
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise ValueError(f"`{name}.bounds.{col}` must be [lower, upper]; got {pair!r}")
            lo = check_real(f"{name}.bounds.{col} lower", pair[0])
            hi = check_real(f"{name}.bounds.{col} upper", pair[1])
            if not hi > lo:
                raise ValueError(f"`{name}.bounds.{col}` must have lower < upper; got {pair!r}")
            bounds[col.lower()] = (lo, hi)
        mfs = {col.lower(): _metric(f"{name}.max_frequency.{col}", v)
               for col, v in dict(spec.get("max_frequency", {})).items()}
        if public and any(v is not None for v in mfs.values()):
            raise ValueError(f"the public table `{name}` takes no declared max_frequency "
                             "(it is read from the table)")
        domains = {col.lower(): _domain(f"{name}.domains.{col}", v)
                   for col, v in dict(spec.get("domains", {})).items()}
        return cls(name=name, protected=protected, key=key.lower() if key else None,
                   rows_per_key=_metric(f"{name}.rows_per_key", rows) if protected else None,
                   bounds=bounds, max_frequency=mfs, domains=domains)


@dataclass(frozen=True, slots=True)
class Schema:
    """The tables a query may read, keyed by lower-case name, with one protected table.

    Examples
    --------
    >>> from gdp.sql import Schema
    >>> s = Schema.from_toml('''
    ... [trips]
    ... protected = true
    ... key = "rider_id"
    ... bounds = { fare = [0, 80] }
    ... [drivers]
    ... public = true
    ... ''')
    >>> s.protected.name, s.protected.key, sorted(s.tables)
    ('trips', 'rider_id', ['drivers', 'trips'])
    """

    tables: Mapping[str, TableSchema]

    def __post_init__(self) -> None:
        prot = [t for t in self.tables.values() if t.protected]
        if len(prot) != 1:
            raise ValueError("a schema needs exactly one protected table (the individuals); got "
                             f"{[t.name for t in prot] or 'none'}")

    @property
    def protected(self) -> TableSchema:
        """The table of the individuals."""
        return next(t for t in self.tables.values() if t.protected)

    def table(self, name: str) -> TableSchema:
        """The declarations of table ``name`` (case-insensitive); ``ValueError`` if the
        schema does not list it."""
        try:
            return self.tables[name.lower()]
        except KeyError:
            raise ValueError(f"table `{name}` is not in the schema (only {sorted(self.tables)}"
                             " can be queried)") from None

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Schema:
        """Build a schema from ``{table_name: {setting: value}}``."""
        if not isinstance(spec, Mapping) or not spec:
            raise ValueError(f"a schema must map table names to their settings; got {spec!r}")
        return cls({str(n).lower(): TableSchema.from_mapping(str(n), s) for n, s in spec.items()})

    @classmethod
    def from_toml(cls, source: str | Path) -> Schema:
        """Read a schema from TOML text, or from a file when ``source`` is a path."""
        try:
            import tomllib
        except ModuleNotFoundError:  # pragma: no cover - Python 3.10
            import tomli as tomllib
        text = source
        if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                        and "=" not in source):
            text = Path(source).read_text(encoding="utf-8")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"the schema is not valid TOML: {exc}") from None
        return cls.from_dict(data)
