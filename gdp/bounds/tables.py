r"""The records and tables of a comparison of accounting methods.

:class:`BoundRecord` is one method's answer (a bound, an exact value with its bracket, an
approximation or a skip, with a note); :class:`Comparison` holds the records of one question
and renders them as text, Markdown or LaTeX; :class:`EpsilonCurves` holds ε against the
number of compositions for several methods (what :func:`gdp.plot.compare` draws).
:data:`METHODS` names the methods in order.

Imports: the ground floor only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import (
    as_real_array,
    check_bool,
    check_choice,
    check_fields,
    check_instance,
    check_int,
    check_real,
    check_str,
    count,
    optional,
    real,
    text,
)

__all__ = ["BoundRecord", "Comparison", "EpsilonCurves", "METHODS"]

# ---------------------------------------------------------------------------
# comparison table
# ---------------------------------------------------------------------------
#: The methods of :func:`compare`, in table order, with their labels.
METHODS: dict[str, str] = {
    "basic": "Basic composition",
    "advanced": "Advanced (DRV 2010)",
    "kairouz": "Advanced (KOV 2015, closed form)",
    "kov": "Optimal (KOV 2015, Thm 3.3)",
    "rdp": "RDP (integer orders)",
    "clt": "GDP CLT",
    "exact": "Exact tensor product",
}

_KINDS = ("bound", "exact", "approximation", "skipped")


@dataclass(frozen=True, slots=True)
class BoundRecord:
    r"""One row of a composition comparison.

    Attributes
    ----------
    method : str
        Key of :data:`METHODS` (``"basic"``, ``"advanced"``, ``"kairouz"``, ``"kov"``,
        ``"rdp"``, ``"clt"``, ``"exact"``) in :func:`gdp.compare`, or the row's own name in
        other tables (e.g. :func:`gdp.compare_tuning`); a non-empty string.
    kind : str
        ``"bound"`` (a valid guarantee), ``"exact"`` (the true value, or a sound numeric
        bracket of it), ``"approximation"`` (not a guarantee: may under-state ε) or
        ``"skipped"`` (the method does not apply; see ``notes``).
    epsilon, delta : float or None
        The (ε, δ) pair; the one named by ``solved`` was computed, the other was given.
        ``None`` for the computed one when skipped.
    solved : str
        ``"epsilon"`` (ε at the given δ) or ``"delta"`` (δ at the given ε).
    k : int
        Total number of mechanisms composed.
    interval : tuple of float or None
        ``(lower, upper)`` bracket of the computed value when known (numeric tensor product).
    notes : str
        How the row was computed, or why it was skipped.
    """

    method: str
    kind: str
    epsilon: float | None
    delta: float | None
    solved: str
    k: int
    interval: tuple[float, float] | None = None
    notes: str = ""

    def __post_init__(self):
        check_str("method", self.method, nonempty=True)  # compare's METHODS or a table's own
        check_choice("kind", self.kind, _KINDS)
        check_choice("solved", self.solved, ("epsilon", "delta"))
        check_fields(self, epsilon=optional(real(lo=0.0, finite=False)),
                     delta=optional(real(lo=0.0, hi=1.0)), k=count(), notes=text())
        given = "delta" if self.solved == "epsilon" else "epsilon"
        if getattr(self, given) is None:
            raise TypeError(f"`{given}` must be the given number of a record solved for "
                            f"{self.solved}; got {given}=None")
        if (getattr(self, self.solved) is None) != (self.kind == "skipped"):
            raise ValueError(f"`{self.solved}` must be None exactly when the record is "
                             f"skipped; got {self.solved}={getattr(self, self.solved)!r} with "
                             f"kind={self.kind!r}")
        if self.interval is not None:
            iv = as_real_array("interval", self.interval, lo=0.0, finite=False, max_ndim=1)
            if iv.size != 2 or not iv[0] <= iv[1]:
                raise ValueError("`interval` must be a pair (lower, upper) with lower <= upper; "
                                 f"got interval={self.interval!r:.60}")
            object.__setattr__(self, "interval", (float(iv[0]), float(iv[1])))

    @property
    def label(self) -> str:
        """Human-readable method name."""
        return METHODS.get(self.method, self.method)

    @property
    def value(self) -> float | None:
        """The computed number (ε or δ, per ``solved``)."""
        return self.epsilon if self.solved == "epsilon" else self.delta

    def as_dict(self) -> dict[str, Any]:
        """The record as a plain dict (also has ``"label"``)."""
        return {"method": self.method, "label": self.label, "kind": self.kind,
                "epsilon": self.epsilon, "delta": self.delta, "solved": self.solved,
                "k": self.k, "interval": self.interval, "notes": self.notes}


def _digits(digits: Any) -> int:
    return check_int("digits", digits, lo=1, hi=17)


def _fmt(x: float | None, digits: int) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{digits}g}"


def _latex_num(x: float | None, digits: int) -> str:
    if x is None:
        return "--"
    if math.isinf(x):
        return r"$\infty$"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}g}"
    m, ex = f"{x:.{digits - 1}e}".split("e")
    m = m.rstrip("0").rstrip(".")
    ex_i = int(ex)
    return f"${m} \\times 10^{{{ex_i}}}$" if m != "1" else f"$10^{{{ex_i}}}$"


def _latex_escape(s: str) -> str:
    rep = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
           "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
           "^": r"\textasciicircum{}"}
    return "".join(rep.get(c, c) for c in s)


@dataclass(frozen=True, slots=True)
class Comparison:
    r"""The result of :func:`compare`: a tuple of :class:`BoundRecord` plus a description.

    Iterate over it, index it by position or method key (``c["rdp"]``, the first row of
    that method), or format it: :meth:`to_text` (aligned columns, also ``str(c)``),
    :meth:`to_markdown`, :meth:`to_latex` (a ``booktabs`` tabular), :meth:`to_records`
    (plain dicts, what :func:`gdp.plot.compare` reads).
    """

    records: tuple[BoundRecord, ...]
    description: str = ""

    def __post_init__(self):
        if isinstance(self.records, str | bytes) or not isinstance(self.records, tuple | list):
            raise TypeError(f"`records` must be a tuple of BoundRecord; got "
                            f"records={self.records!r:.60}")
        for i, r in enumerate(self.records):
            check_instance(f"records[{i}]", r, BoundRecord, "a BoundRecord")
        object.__setattr__(self, "records", tuple(self.records))
        check_str("description", self.description)

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, key: int | str) -> BoundRecord:
        if isinstance(key, str):
            for r in self.records:
                if r.method == key:
                    return r
            raise KeyError(f"no record for method {key!r}; methods: "
                           f"{[r.method for r in self.records]}")
        return self.records[key]

    def to_records(self) -> list[dict[str, Any]]:
        """The rows as plain dicts (keys as :meth:`BoundRecord.as_dict`)."""
        return [r.as_dict() for r in self.records]

    def _rows(self, digits: int, num: Callable[[float | None, int], str]) -> list[list[str]]:
        rows = []
        for r in self.records:
            iv = "" if r.interval is None else \
                f"[{num(r.interval[0], digits)}, {num(r.interval[1], digits)}]"
            rows.append([r.label, r.kind, num(r.epsilon, digits), num(r.delta, digits), iv,
                         r.notes])
        return rows

    def to_text(self, digits: int = 5) -> str:
        """An aligned plain-text table (``digits`` significant digits)."""
        digits = _digits(digits)
        head = ["method", "kind", "epsilon", "delta", "bracket", "notes"]
        rows = self._rows(digits, _fmt)
        widths = [max(len(head[c]), *(len(r[c]) for r in rows)) if rows else len(head[c])
                  for c in range(len(head))]
        lines = []
        if self.description:
            lines.append(self.description)
        fmt_row = lambda row: "  ".join(  # noqa: E731
            (v.rjust(w) if c in (2, 3) else v.ljust(w)) for c, (v, w) in
            enumerate(zip(row, widths, strict=True))).rstrip()
        lines.append(fmt_row(head))
        lines.append("  ".join("-" * w for w in widths))
        lines.extend(fmt_row(r) for r in rows)
        return "\n".join(lines)

    def to_markdown(self, digits: int = 5) -> str:
        """A GitHub-flavoured Markdown table."""
        digits = _digits(digits)
        head = ["Method", "Kind", "ε", "δ", "Bracket", "Notes"]
        out = ["| " + " | ".join(head) + " |", "|" + "|".join(
            ["---", "---", "---:", "---:", "---", "---"]) + "|"]
        for row in self._rows(digits, _fmt):
            out.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
        return "\n".join(out)

    def to_latex(self, digits: int = 4, *, notes: bool = True) -> str:
        r"""A LaTeX ``tabular`` (needs ``\usepackage{booktabs}``); numbers in math mode."""
        digits, notes = _digits(digits), check_bool("notes", notes)
        cols = "llrrl" + ("l" if notes else "")
        head = [r"Method", r"Kind", r"$\varepsilon$", r"$\delta$", r"Bracket"]
        if notes:
            head.append("Notes")
        lines = [rf"\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(head) + r" \\",
                 r"\midrule"]
        for r in self.records:
            iv = "" if r.interval is None else \
                f"[{_latex_num(r.interval[0], digits)}, {_latex_num(r.interval[1], digits)}]"
            cells = [_latex_escape(r.label), r.kind, _latex_num(r.epsilon, digits),
                     _latex_num(r.delta, digits), iv]
            if notes:
                cells.append(_latex_escape(r.notes))
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_markdown_(self) -> str:  # Jupyter
        return (f"*{self.description}*\n\n" if self.description else "") + self.to_markdown()


# ---------------------------------------------------------------------------
# epsilon versus the number of compositions
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class EpsilonCurves:
    r"""ε at a fixed δ against the number of compositions k, one column per method.

    ``k`` and each column are read-only arrays of the same length (``inf`` where a bound is
    vacuous, NaN where the method was skipped). ``kinds`` maps each method to its kind.
    Feed it to :func:`gdp.plot.compare`, or read :meth:`to_dict` / :meth:`to_records`.
    """

    k: np.ndarray
    delta: float
    columns: Mapping[str, np.ndarray]
    kinds: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        k = as_real_array("k", self.k, lo=1.0, max_ndim=1, min_size=1)
        k.setflags(write=False)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "delta", check_real("delta", self.delta, lo=0.0, hi=1.0))
        for name, table in (("columns", self.columns), ("kinds", self.kinds)):
            if not isinstance(table, Mapping):
                raise TypeError(f"`{name}` must be a mapping from method to values; got "
                                f"{name}={table!r:.60}")
        for m, v in self.columns.items():
            check_choice("columns", m, tuple(METHODS))
            arr = np.asarray(v)
            if arr.dtype.kind not in "fiu" or arr.shape != k.shape:
                raise ValueError(f"`columns` must hold one number per `k` ({k.size}) for "
                                 f"each method; got {m!r}: {v!r:.60}")
        for m, kd in self.kinds.items():
            check_choice("kinds", m, tuple(METHODS))
            check_choice("kinds", kd, _KINDS)

    def to_dict(self) -> dict[str, np.ndarray]:
        """``{"k": ks, method: epsilons, ...}``."""
        return {"k": np.array(self.k), **{m: np.array(v) for m, v in self.columns.items()}}

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (k, method): ``{"k", "method", "epsilon", "kind"}``."""
        return [{"k": int(kv), "method": m, "epsilon": float(v[i]), "kind": self.kinds.get(m)}
                for m, v in self.columns.items() for i, kv in enumerate(self.k)]
