r"""What the command line prints: numbers, brackets, tables, JSON and progress.

Reports of ε at δ and δ at ε with the bracket of numeric answers, text tables, JSON
serialisation of numpy values, and the progress indicator on stderr.

Imports: :mod:`gdp` (its public names).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import numpy as np

from ..core.tradeoff import TradeOff

__all__ = []

# ------------------------------------------------------------------- output
def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def _emit_json(obj: dict[str, Any]) -> None:
    print(json.dumps(_jsonable(obj), indent=2, allow_nan=False))


def _g(x: float, digits: int = 6) -> str:
    return "inf" if math.isinf(x) else f"{x:.{digits}g}"


class _Progress:
    """Progress lines on stderr, only when enabled (a terminal, or ``--progress``)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, message: str) -> None:
        if self.enabled:
            sys.stdout.flush()  # keep the order of the two streams on a terminal
            print(f"gdp: {message}", file=sys.stderr, flush=True)


def _progress(args: argparse.Namespace) -> _Progress:
    flag = getattr(args, "progress", None)
    if flag is None:
        enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
    else:
        enabled = bool(flag)
    return _Progress(enabled)


def _report(f: TradeOff, given: str, value: float, asked: str) -> dict[str, Any]:
    """``asked`` (``"eps"`` or ``"delta"``) at ``given = value`` on the sound side, with the
    bracket when ``f`` is a numeric result (every TradeOff with ``lower``/``upper`` also has
    ``epsilon_bounds``/``delta_bounds``)."""
    method = "epsilon" if asked == "eps" else "delta"
    sound = float(getattr(f, method)(value))
    rec: dict[str, Any] = {given: value, asked: sound}
    if hasattr(f, method + "_bounds"):
        lo, hi = getattr(f, method + "_bounds")(value)
        rec[asked + "_lower"], rec[asked + "_upper"] = float(lo), max(float(hi), sound)
    return rec


def _eps_report(f: TradeOff, delta: float) -> dict[str, Any]:
    """ε at δ on the sound side, with the bracket of a numeric result."""
    return _report(f, "delta", delta, "eps")


def _delta_report(f: TradeOff, eps: float) -> dict[str, Any]:
    """δ at ε on the sound side, with the bracket of a numeric result."""
    return _report(f, "eps", eps, "delta")


def _bracket_text(rec: dict[str, Any], key: str) -> str:
    lo, hi = rec.get(f"{key}_lower"), rec.get(f"{key}_upper")
    if lo is None:
        return "(exact)"
    return f"(sound upper bound; true value in [{_g(lo)}, {_g(hi)}])"


def _format_records(records: list[dict[str, Any]]) -> str:
    if not records:
        return "(no records)"
    cols = list(records[0])
    cells = [[_cell(r.get(c)) for c in cols] for r in records]
    width = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, width, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, width, strict=True)) for row in cells]
    return "\n".join(lines)


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return _g(v)
    return "" if v is None else str(v)
