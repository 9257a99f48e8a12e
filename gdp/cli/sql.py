r"""``gdp sql``: answer one SQL query privately, with a budget that can span several calls.

::

    gdp sql --db rides.sqlite --schema rides.toml --eps 0.5 --delta 1e-8 \
        "SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id"

prints the noisy answer with its confidence interval, the noise, its scale and the
sensitivity used, and the budget spent. ``--budget EPS DELTA`` caps the session and
``--state FILE`` keeps its ledger between calls (a query that would exceed the budget is
refused before the database is read, and the file is left as it was). ``--explain`` shows
the sensitivities and noise without running the query or spending anything. ``--json``
prints one JSON object. Errors are one line (``gdp sql: error: ...``), never a traceback.

Imports: :mod:`gdp.cli.output`; :mod:`gdp.sql` when the command runs (optional extra).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .output import _emit_json, _g
from .specs import _float

__all__ = ["add_sql"]


def add_sql(sub: Any, common: Any) -> None:
    """Add the ``sql`` subcommand to the subparsers ``sub``."""
    p = sub.add_parser("sql", help="answer a SQL query with differential privacy",
                       description="Answer COUNT/SUM/AVG queries (WHERE, equi-joins, GROUP BY "
                       "over public domains) with elastic sensitivity and a budgeted f-DP "
                       "accountant. Needs the [sql] extra (sqlglot).")
    p.add_argument("query", metavar="SQL", help="one SELECT statement")
    p.add_argument("--db", required=True, help="SQLite file (or .duckdb file)")
    p.add_argument("--schema", required=True, help="schema TOML file (see docs/sql.md)")
    p.add_argument("--eps", type=_float, required=True, help="epsilon spent by this query")
    p.add_argument("--delta", type=_float, default=0.0,
                   help="delta spent by this query (needed by joins on protected keys)")
    p.add_argument("--noise", default="auto",
                   choices=["auto", "laplace", "gaussian", "discrete_laplace",
                            "discrete_gaussian", "smooth"],
                   help="noise (default auto: Laplace for a global sensitivity, smoothed "
                   "Laplace otherwise)")
    p.add_argument("--budget", type=_float, nargs=2, metavar=("EPS", "DELTA"),
                   help="total budget of the session (with --state: across calls)")
    p.add_argument("--state", help="JSON file keeping the session's ledger between calls")
    p.add_argument("--confidence", type=_float, default=0.95,
                   help="level of the confidence intervals (default 0.95)")
    p.add_argument("--explain", action="store_true",
                   help="show sensitivities and noise; do not run the query")
    common(p)
    p.set_defaults(func=_cmd_sql)


def _load_state(path: str | None) -> dict[str, Any] | None:
    if path is None or not Path(path).exists():
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"--state {path} is not a saved session (invalid JSON: {exc.msg})") \
            from None


def _release_dict(r: Any) -> dict[str, Any]:
    return {"name": r.name, "part": r.part, "noise": r.noise, "elastic_sensitivity": r.elastic,
            "sensitivity": r.sensitivity, "beta": r.beta, "scale": r.scale, "eps": r.eps,
            "delta": r.delta}


def _release_text(r: Any) -> str:
    smooth = f" (smoothed, beta {_g(r.beta, 4)}; elastic at k=0: {_g(r.elastic)})" \
        if r.beta is not None else " (global)"
    return (f"  {r.name} [{r.part}]: noise {r.noise}, scale {_g(r.scale)}, sensitivity "
            f"{_g(r.sensitivity)}{smooth}, eps {_g(r.eps)}, delta {_g(r.delta)}")


def _cmd_sql(args: argparse.Namespace) -> int:
    try:
        from ..sql import PrivateDatabase
    except ModuleNotFoundError as exc:
        raise RuntimeError(str(exc)) from None
    state = _load_state(args.state)
    budget = tuple(args.budget) if args.budget else (
        tuple(state["budget"]) if state and isinstance(state.get("budget"), list) else None)
    db = PrivateDatabase(args.db, args.schema, budget=budget, confidence=args.confidence)
    if state is not None:
        db.load_state_dict(state)
    if args.explain:
        releases = db.explain(args.query, eps=args.eps, delta=args.delta, noise=args.noise)
        if args.json:
            _emit_json({"query": args.query, "releases": [_release_dict(r) for r in releases]})
        else:
            print("\n".join(["explain (nothing run, nothing spent):",
                             *[_release_text(r) for r in releases]]))
        return 0
    ans = db.query(args.query, eps=args.eps, delta=args.delta, noise=args.noise)
    if args.state is not None:
        Path(args.state).write_text(json.dumps(db.state_dict(), indent=1), encoding="utf-8")
    spent = db.spent()
    if args.json:
        _emit_json({"query": args.query, "columns": list(ans.columns),
                    "rows": [list(r) for r in ans.rows],
                    "intervals": [[list(iv) for iv in row] for row in ans.intervals],
                    "confidence": ans.confidence,
                    "releases": [_release_dict(r) for r in ans.releases],
                    "spent": {"eps": spent.eps, "delta": spent.delta},
                    "budget": list(budget) if budget else None, "sql_run": ans.sql})
        return 0
    width = max(len(c) for c in ans.columns)
    lines = []
    for row, ivs in zip(ans.rows, ans.intervals, strict=True):
        ivs = list(ivs)
        cells = []
        for name, v in zip(ans.columns, row, strict=True):
            if isinstance(v, float):
                lo, hi = ivs.pop(0)
                cells.append(f"{name:>{width}} = {_g(v)}  [{_g(lo)}, {_g(hi)}]")
            else:
                cells.append(f"{name:>{width}} = {v}")
        lines.append("   ".join(cells))
    lines.append(f"({_g(100 * ans.confidence, 3)}% confidence intervals, noise only; "
                 f"query eps {_g(ans.eps)}, delta {_g(ans.delta)})")
    lines.extend(_release_text(r) for r in ans.releases)
    if spent.eps is not None:
        lines.append(f"budget ({_g(budget[0])}, {_g(budget[1])}): spent eps {_g(spent.eps)} "
                     f"at delta {_g(budget[1])}")
    print("\n".join(lines))
    return 0
