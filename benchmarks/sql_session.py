"""The ten-query session of docs/sql.md on SQLite, DuckDB and (if pyspark is installed)
Spark in local mode: sensitivities, noise and budget, compared with basic and KOV
composition of the same session, and the time each engine takes.

Run: ``python benchmarks/sql_session.py [--markdown] [--no-spark]``. The sensitivities
and the budget must be identical on every engine (they depend only on the query and the
metrics); the true answers agree up to the engines' float summation order.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import gdp
from gdp.sql import PrivateDatabase, Spark, example
from gdp.sql.example import SESSION

BUDGET = (3.0, 1e-6)


def sqlite_db():
    return example.rides()


def duckdb_db():
    import duckdb

    con = duckdb.connect()
    return example.rides(con)


def spark_db():
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("gdp-sql")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    types = {"INTEGER": "int", "VARCHAR": "string", "DOUBLE": "double"}
    for name, (cols, rows) in example.tables().items():
        schema = ", ".join(f"{c} {types[t]}" for c, t in cols)
        spark.createDataFrame(rows, schema=schema).createOrReplaceTempView(name)
    return Spark(spark)


def run(conn, seed=2018):
    t0 = time.perf_counter()
    db = PrivateDatabase(conn, example.SCHEMA, budget=BUDGET, rng=np.random.default_rng(seed))
    answers = [db.query(sql, **kw) for sql, kw in SESSION]
    elapsed = time.perf_counter() - t0
    return db, answers, elapsed


def summary(db, answers):
    return ([[(r.noise, r.elastic, r.sensitivity, r.scale, r.eps, r.delta)
              for r in a.releases] for a in answers], db.spent().eps)


def comparison(answers):
    rel = [r for a in answers for r in a.releases]
    eps = [r.eps for r in rel]
    delta = [r.delta for r in rel]
    basic = gdp.basic_composition(eps, delta)
    table = gdp.compare([gdp.f_eps_delta(e, d) for e, d in zip(eps, delta, strict=True)],
                        delta=BUDGET[1], methods=["basic", "kairouz", "exact"])
    return basic, table


def markdown(answers, db):
    lines = ["| # | query | noise | Ŝ⁽⁰⁾ | sensitivity used | scale | ε, δ | answer (95% CI) |",
             "|---|---|---|---|---|---|---|---|"]
    for i, ((sql, _), a) in enumerate(zip(SESSION, answers, strict=True), 1):
        first = True
        for r in a.releases:
            if len(a.rows) == 1:
                lo, hi = a.intervals[0][0]
                ans = f"{a.rows[0][-1]:.1f} [{lo:.1f}, {hi:.1f}]"
            else:
                ans = "; ".join(f"{row[0]}: {row[-1]:.0f}" for row in a.rows)
            lines.append(f"| {i if first else ''} | {('`' + sql + '`') if first else ''} | "
                         f"{r.noise} ({r.part}) | {r.elastic:g} | {r.sensitivity:.6g} | "
                         f"{r.scale:.4g} | {r.eps:g}, {r.delta:g} | "
                         f"{ans if first else ''} |")
            first = False
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--markdown", action="store_true", help="print the docs table")
    p.add_argument("--no-spark", action="store_true", help="skip Spark")
    args = p.parse_args(argv)
    engines = [("sqlite", sqlite_db), ("duckdb", duckdb_db)]
    if not args.no_spark:
        engines.append(("spark", spark_db))
    results = {}
    for name, make in engines:
        try:
            conn = make()
        except ImportError as exc:
            print(f"{name}: skipped ({exc})")
            continue
        db, answers, elapsed = run(conn)
        results[name] = (db, answers, elapsed)
        print(f"{name:7s} ten queries in {elapsed:.2f} s (metrics included); "
              f"spent eps = {db.spent().eps:.6f} at delta = {BUDGET[1]:g}")
    ref = summary(*results["sqlite"][:2])
    for name, (db, answers, _) in results.items():
        same = summary(db, answers) == ref
        print(f"{name:7s} identical sensitivities, scales and budget to sqlite: {same}")
        if not same:
            sys.exit(1)
    db, answers, _ = results["sqlite"]
    basic, table = comparison(answers)
    print(f"\nbasic composition of the releases' (eps_i, delta_i): eps = {basic[0]:.4f}, "
          f"delta = {basic[1]:.3g}")
    print(table)
    print(f"accountant (exact curves, f-DP): eps = {db.spent().eps:.4f} at delta = "
          f"{BUDGET[1]:g}; remaining pure eps = {db.remaining().eps:.4f}")
    if args.markdown:
        print()
        print(markdown(answers, db))


if __name__ == "__main__":
    main()
