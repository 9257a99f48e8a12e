r"""What the command line prints: numbers, brackets, tables, JSON and progress.

Reports of ε at δ and δ at ε with the bracket of numeric answers, text tables, JSON
serialisation of numpy values, and the progress indicator on stderr.

Imports: :mod:`gdp` (its public names).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from typing import Any

import numpy as np

from ..core.tradeoff import SidedProfile, TradeOff

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
    """Progress on stderr: a bar redrawn in place on a terminal (``"bar"``), lines of text in
    a pipe or file (``"lines"``, only with ``--progress``), or nothing (``"off"``).

    It is the ``progress(fraction, message)`` callback of the library's long calls;
    :meth:`note` prints one line (a phase whose length is unknown, e.g. one numeric
    composition). stdout is flushed first, so the two streams stay in order on a terminal.
    """

    _BAR = 20  # characters of the bar
    _REDRAW = 0.1  # seconds between redraws of the bar

    def __init__(self, mode: str, stream: Any = None):
        self.mode = mode
        self.stream = sys.stderr if stream is None else stream
        self._start = time.monotonic()
        self._drawn = -math.inf  # when the bar was last drawn
        self._step = -1  # tenth of the work last reported as a line
        self._open = False  # the bar's line waits for its newline

    def __bool__(self) -> bool:
        return self.mode != "off"

    def __call__(self, fraction: float, message: str = "") -> None:
        if self.mode == "off":
            return
        now = time.monotonic()
        done = fraction >= 1.0
        if self.mode == "bar":
            if done or now - self._drawn >= self._REDRAW:
                self._draw(fraction, message, now)
            if done:
                self.close()
        elif int(fraction * 10) != self._step or done:
            self._step = int(fraction * 10)
            self._write(f"gdp: {fraction:4.0%}  {message}\n")

    def note(self, message: str) -> None:
        """One line of text (above the bar, which is redrawn by the next report)."""
        if self.mode != "off":
            self.close()
            self._write(f"gdp: {message}\n")

    def close(self) -> None:
        """End the bar's line (before anything else is printed)."""
        if self._open:
            self._open = False
            self._write("\n")

    def _draw(self, fraction: float, message: str, now: float) -> None:
        width = shutil.get_terminal_size((80, 24)).columns - 1
        fill = int(round(max(0.0, min(fraction, 1.0)) * self._BAR))
        line = (f"gdp: [{'#' * fill}{'.' * (self._BAR - fill)}] {fraction:4.0%} "
                f"{now - self._start:6.1f} s  {message}")
        self._write("\r" + line[:width].ljust(width))
        self._drawn = now
        self._open = True

    def _write(self, text: str) -> None:
        sys.stdout.flush()
        self.stream.write(text)
        self.stream.flush()


def _progress(args: argparse.Namespace) -> _Progress:
    """The progress display of a command: a bar on a terminal unless ``--json``; with
    ``--progress`` a bar on a terminal or lines in a pipe; nothing with ``--quiet``. The
    same object is returned for the same ``args`` (so ``main`` can close it)."""
    made = getattr(args, "_progress_display", None)
    if made is not None:
        return made
    flag = getattr(args, "progress", None)
    tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if flag is None:
        mode = "bar" if tty and not getattr(args, "json", False) else "off"
    else:
        mode = ("bar" if tty else "lines") if flag else "off"
    made = _Progress(mode)
    args._progress_display = made
    return made


def _report(f: TradeOff, given: str, value: float, asked: str) -> dict[str, Any]:
    """``asked`` (``"eps"`` or ``"delta"``) at ``given = value`` on the sound side, with the
    bracket when ``f`` is a numeric result (every TradeOff with ``lower``/``upper`` also has
    ``epsilon_bounds``/``delta_bounds``; a closed form's, its rounding, is not reported)."""
    method = "epsilon" if asked == "eps" else "delta"
    sound = float(getattr(f, method)(value))
    rec: dict[str, Any] = {given: value, asked: sound}
    if hasattr(f, method + "_bounds") and not isinstance(f, SidedProfile):
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
