r"""A small rides database (riders' trips, a public register of drivers, public cities),
generated deterministically, and its schema: the worked example of ``docs/sql.md``.

The tables, in the spirit of the ride-sharing data of Johnson, Near and Song:

* ``trips`` (protected; an individual is a *rider*, ``rider_id``, with all their trips):
  ``trip_id, rider_id, driver_id, city, hour, fare, distance``;
* ``drivers`` (public register): ``id, city, vehicle, since``;
* ``cities`` (public): ``name, region, population``.

Riders take 1 to 12 trips; a few drivers are much busier than the rest (so joins on
``driver_id`` have a large max-frequency). Run ``python -m gdp.sql.example rides.sqlite
rides.toml`` to write the database and its schema (the same rows on every machine: the
numbers come from ``numpy.random.default_rng(seed)``, whose streams are stable).

Imports: numpy and the standard library.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CITIES", "SCHEMA", "SCHEMA_TOML", "SESSION", "tables", "rides", "write"]

#: (name, region, population) of the public ``cities`` table
CITIES = (("Lille", "Nord", 236_000), ("Lyon", "Rhone", 522_000), ("Nice", "Sud", 342_000),
          ("Paris", "IDF", 2_103_000))

SCHEMA_TOML = """\
[trips]
protected = true
key = "rider_id"                 # an individual is a rider, with all their trips
bounds = { fare = [0, 50], distance = [0, 40] }
max_frequency = { driver_id = "measure", rider_id = "measure" }
domains.city = ["Lille", "Lyon", "Nice", "Paris"]
domains.hour = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                22, 23]

[drivers]
public = true

[cities]
public = true
"""

#: the schema of the example as a mapping (the same as :data:`SCHEMA_TOML`)
SCHEMA: dict[str, Any] = {
    "trips": {"protected": True, "key": "rider_id",
              "bounds": {"fare": [0, 50], "distance": [0, 40]},
              "max_frequency": {"driver_id": "measure", "rider_id": "measure"},
              "domains": {"city": [c[0] for c in CITIES], "hour": list(range(24))}},
    "drivers": {"public": True},
    "cities": {"public": True},
}

#: the ten queries of the session in docs/sql.md: (sql, keyword arguments of query())
SESSION = [
    ("SELECT COUNT(*) FROM trips", dict(eps=0.1)),
    ("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id "
     "WHERE d.vehicle = 'electric'", dict(eps=0.1)),
    ("SELECT d.vehicle, COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id "
     "GROUP BY d.vehicle", dict(eps=0.1)),
    ("SELECT city, COUNT(*) FROM trips GROUP BY city", dict(eps=0.1)),
    ("SELECT AVG(fare) FROM trips WHERE hour BETWEEN 7 AND 9", dict(eps=0.2)),
    ("SELECT SUM(distance) FROM trips t JOIN cities c ON t.city = c.name "
     "WHERE c.region = 'IDF'", dict(eps=0.1)),
    ("SELECT COUNT(*) FROM trips t1 JOIN trips t2 ON t1.driver_id = t2.driver_id",
     dict(eps=0.2, delta=1e-8)),
    ("SELECT COUNT(*) FROM trips t1 JOIN trips t2 ON t1.rider_id = t2.rider_id "
     "WHERE t1.trip_id < t2.trip_id", dict(eps=0.2, delta=1e-8)),
    ("SELECT c.region, COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id "
     "JOIN cities c ON d.city = c.name GROUP BY c.region", dict(eps=0.1)),
    ("SELECT COUNT(*) FROM trips WHERE fare > 30", dict(eps=0.1, noise="gaussian",
                                                        delta=1e-8)),
]

_COLUMNS = {
    "trips": (("trip_id", "INTEGER"), ("rider_id", "INTEGER"), ("driver_id", "INTEGER"),
              ("city", "VARCHAR"), ("hour", "INTEGER"), ("fare", "DOUBLE"),
              ("distance", "DOUBLE")),
    "drivers": (("id", "INTEGER"), ("city", "VARCHAR"), ("vehicle", "VARCHAR"),
                ("since", "INTEGER")),
    "cities": (("name", "VARCHAR"), ("region", "VARCHAR"), ("population", "INTEGER")),
}


def tables(*, seed: int = 2018, riders: int = 600, drivers: int = 40) -> dict[str, Any]:
    """The rows of the three tables: ``{name: (columns, rows)}``, ``columns`` being
    ``(name, SQL type)`` pairs and ``rows`` lists of tuples of Python values."""
    rng = np.random.default_rng(seed)
    city_of = rng.integers(0, len(CITIES), size=drivers)
    vehicles = ("electric", "standard", "van")
    driver_rows = [(i + 1, CITIES[int(city_of[i])][0], vehicles[int(rng.integers(0, 3))],
                    int(rng.integers(2012, 2024))) for i in range(drivers)]
    busy = rng.dirichlet(np.full(drivers, 4.0))  # some drivers busier than others
    trip_rows = []
    for rider in range(1, riders + 1):
        for _ in range(int(rng.integers(1, 13))):
            d = int(rng.choice(drivers, p=busy))
            hour = int(rng.choice(24, p=_HOURS))
            distance = round(float(rng.gamma(2.0, 3.0)), 2)
            fare = round(3.0 + 1.6 * distance + float(rng.exponential(2.0)), 2)
            trip_rows.append((len(trip_rows) + 1, rider, d + 1, driver_rows[d][1], hour, fare,
                              distance))
    return {"trips": (_COLUMNS["trips"], trip_rows),
            "drivers": (_COLUMNS["drivers"], driver_rows),
            "cities": (_COLUMNS["cities"], [tuple(c) for c in CITIES])}


_HOURS = np.array([1, 1, 1, 1, 1, 2, 4, 8, 9, 6, 4, 4, 5, 5, 4, 4, 5, 8, 9, 8, 6, 5, 3, 2],
                  dtype=float)
_HOURS /= _HOURS.sum()


def rides(connection: Any = None, **kw: Any) -> Any:
    """Load :func:`tables` into a DB-API ``connection`` (a new in-memory SQLite one by
    default) and return it. Works with sqlite3 and DuckDB (``?`` parameters)."""
    conn = sqlite3.connect(":memory:") if connection is None else connection
    for name, (cols, rows) in tables(**kw).items():
        conn.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in cols)})")
        conn.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in cols)})", rows)
    conn.commit()
    return conn


def write(path: str, schema_path: str | None = None, **kw: Any) -> None:
    """Write the example to a new SQLite file (and its schema to a TOML file)."""
    if Path(path).exists():
        raise ValueError(f"`path` must not exist (the example is written anew); got {path!r}")
    conn = sqlite3.connect(path)
    try:
        rides(conn, **kw)
    finally:
        conn.close()
    if schema_path is not None:
        with open(schema_path, "w", encoding="utf-8") as fh:
            fh.write(SCHEMA_TOML)


if __name__ == "__main__":  # pragma: no cover - a script
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python -m gdp.sql.example rides.sqlite [rides.toml]")
    write(*sys.argv[1:])
