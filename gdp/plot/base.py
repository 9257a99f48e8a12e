r"""The common ground of the plots: labels, the unit square, exported data.

:class:`PlotData` (one x column and named y columns, :func:`to_csv`) is what every plotting
function can return besides its Axes; :func:`mathtext` turns a curve's label into matplotlib
math text (numbers like ``1e-05`` as :math:`10^{-5}`, words upright) and :func:`label_text`
into plain Unicode text for terminals (``f_(0.5,0)^⊗10``); the helpers here make the axes
(``ax=None`` → a new figure), give each curve its entry of :data:`gdp.plot.CYCLE` and style
the unit square of a trade-off plot. matplotlib is imported on first use.

Imports: the ground floor, :mod:`gdp.core` and :mod:`gdp.plot.style`.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import (
    as_real_array,
    check_bool,
    check_count,
    check_instance,
    check_str,
    shown,
)
from ..core.tradeoff import TradeOff
from .styles import curve_style

__all__ = ["PlotData", "to_csv", "mathtext", "label_text", "ALPHA_LABEL", "BETA_LABEL"]

#: Axis label of the type I error.
ALPHA_LABEL = r"Type I error $\alpha$"
#: Axis label of the type II error.
BETA_LABEL = r"Type II error $\beta$"

_FIGSIZE = (4.8, 4.8)


# --------------------------------------------------------------------------- data
@dataclass(frozen=True, slots=True)
class PlotData:
    r"""The numbers behind a plot: one x column and named y columns of the same length.

    The arrays are read-only copies. Column names are the legend labels (LaTeX-safe
    strings such as ``G_{1}``); a bracketed curve contributes ``"<label> lower"`` and
    ``"<label> upper"`` columns next to its sound line ``"<label>"``.

    Examples
    --------
    >>> import gdp, gdp.plot
    >>> d = gdp.plot.curve_data(gdp.G_mu(1.0), alpha=[0.0, 0.05, 1.0])
    >>> d.x_name, list(d.columns)
    ('alpha', ['G_{1}'])
    >>> d.columns["G_{1}"].round(6).tolist()
    [1.0, 0.740489, 0.0]
    """

    x_name: str
    x: np.ndarray
    columns: Mapping[str, np.ndarray]

    def __post_init__(self):
        check_str("x_name", self.x_name)
        x = np.array(as_real_array("x", self.x, max_ndim=1))
        x.setflags(write=False)
        cols = {}
        if not isinstance(self.columns, Mapping):
            raise TypeError(f"`columns` must be a mapping from names to arrays; got "
                            f"columns={shown(self.columns)}")
        for name, col in self.columns.items():
            try:  # NaN allowed: a value missing at that x (written as an empty CSV field)
                c = np.array(col, dtype=float)
            except (TypeError, ValueError, OverflowError):
                raise TypeError(f"`columns[{name!r}]` must be an array of numbers; got "
                                f"{shown(col)}") from None
            if c.shape != x.shape:
                raise ValueError(f"`columns[{name!r}]` must have the shape of `x` {x.shape}; "
                                 f"got shape {c.shape}")
            c.setflags(write=False)
            cols[str(name)] = c
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "columns", cols)

    def as_dict(self) -> dict[str, np.ndarray]:
        """All columns, the x column first, as a plain dict of arrays."""
        return {self.x_name: self.x, **self.columns}

    def to_csv(self, path: str | Path) -> Path:
        """Write the columns to ``path`` as CSV (header row, full float precision).

        Labels may contain commas (``f_{1,1e-05}``); they are quoted as CSV requires.
        Missing values (e.g. a curve only defined for some k) are written as empty
        fields. Returns the path written.
        """
        path = _output_path("path", path)
        names = [self.x_name, *self.columns]
        rows = np.column_stack([self.x, *self.columns.values()])
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(names)
            for row in rows:
                w.writerow(["" if math.isnan(v) else repr(float(v)) for v in row])
        return path


def to_csv(data: PlotData, path: str | Path) -> Path:
    """Write a :class:`PlotData` (from ``return_data=True`` or ``*_data``) to a CSV file.

    Examples
    --------
    >>> import tempfile, pathlib, gdp, gdp.plot
    >>> d = gdp.plot.curve_data(gdp.f_eps_delta(1.0, 1e-5), alpha=[0.0, 1.0])
    >>> p = gdp.plot.to_csv(d, pathlib.Path(tempfile.mkdtemp()) / "f.csv")
    >>> p.read_text().splitlines()
    ['alpha,"f_{1,1e-05}"', '0.0,0.99999', '1.0,0.0']
    """
    check_instance("data", data, PlotData, "a PlotData")
    return data.to_csv(path)


_SCI = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e([+-]?)0*(\d+)(?![\w.])")
_WORDS = re.compile(r"^[A-Za-z][A-Za-z0-9 .,:()+-]*[A-Za-z]{2}[A-Za-z0-9 .,:()+-]*$")


def _sci_math(m: re.Match[str]) -> str:
    mant, sign, exp = m.group(1), "-" if m.group(2) == "-" else "", m.group(3)
    power = f"10^{{{sign}{exp}}}"
    return power if mant == "1" else rf"{mant}\times {power}"


def mathtext(label: str) -> str:
    r"""A curve's LaTeX-safe label as matplotlib math text (idempotent).

    Numbers in scientific notation become powers of ten (``1e-05`` → :math:`10^{-5}`);
    a label that is plain words (``DP-SGD``, ``exact``) stays text, upright; a label that
    already holds ``$`` is returned as it is.

    >>> import gdp.plot
    >>> gdp.plot.mathtext("G_{1}"), gdp.plot.mathtext("$x$")
    ('$G_{1}$', '$x$')
    >>> gdp.plot.mathtext("f_{1,1e-05}"), gdp.plot.mathtext("f_{1,2.5e-07}")
    ('$f_{1,10^{-5}}$', '$f_{1,2.5\\times 10^{-7}}$')
    >>> gdp.plot.mathtext("DP-SGD")
    'DP-SGD'
    """
    label = check_str("label", label)
    if "$" in label:
        return label
    if _WORDS.match(label) and not re.search(r"[\\_^{}]", label):
        return label
    return f"${_SCI.sub(_sci_math, label)}$"


_SYMBOLS = {"otimes": "⊗", "circ": "∘", "mu": "μ", "varepsilon": "ε", "epsilon": "ε",
            "delta": "δ", "sigma": "σ", "alpha": "α", "beta": "β", "gamma": "γ",
            "cdot": "·", "times": "×", "infty": "∞", ",": " ", " ": " "}
_SUPER = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def _tokens(s: str) -> list[str]:
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", s[i:])
            out.append(m.group(0))
            i += len(m.group(0))
        elif c == "{":
            depth, j = 1, i + 1
            while j < len(s) and depth:
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
            out.append(s[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return out


def _text(s: str) -> str:
    toks, out, i = _tokens(s), [], 0
    while i < len(toks):
        t = toks[i]
        if t in ("_", "^") and i + 1 < len(toks):
            arg = _text(toks[i + 1][1:-1] if toks[i + 1].startswith("{") else toks[i + 1])
            arg = arg.strip()
            if t == "^" and re.fullmatch(r"-?\d+", arg):
                out.append(arg.translate(_SUPER))
            elif t == "^" and arg.startswith("⊗"):
                out.append("^⊗" + arg[1:].strip())
            else:
                simple = re.fullmatch(r"[\w.+-]+|\[[^\]]*\]", arg) is not None
                out.append(t + (arg if simple else f"({arg})"))
            i += 2
            continue
        if t.startswith("\\mathrm") and i + 1 < len(toks):
            out.append(_text(toks[i + 1].strip("{}")))
            i += 2
            continue
        if t.startswith("{"):
            inner = _text(t[1:-1])
            nxt = toks[i + 1] if i + 1 < len(toks) else ""
            compound = nxt in ("_", "^") and not re.fullmatch(r"[A-Za-z0-9.]+", inner)
            out.append(f"({inner})" if compound else inner)
        elif t.startswith("\\"):
            sym = _SYMBOLS.get(t[1:], t[1:])
            out.append(f" {sym} " if sym in ("⊗", "∘", "×") else sym)
        else:
            out.append(t)
        i += 1
    return re.sub(r" {2,}", " ", "".join(out))


def label_text(label: str) -> str:
    r"""A curve's LaTeX-safe label as plain Unicode text (for terminals and logs).

    Examples
    --------
    >>> import gdp.plot
    >>> gdp.plot.label_text(r"f_{0.5,0}^{\otimes 10}")
    'f_(0.5,0)^⊗10'
    >>> gdp.plot.label_text(r"\mathrm{Lap}_{1}\otimes G_{0.5}")
    'Lap_1 ⊗ G_0.5'
    >>> gdp.plot.label_text(r"{\mathrm{Lap}_{0.5}}^{\otimes 3}"), gdp.plot.label_text("{f}^{-1}")
    ('(Lap_0.5)^⊗3', 'f⁻¹')
    """
    return _text(check_str("label", label).replace("$", "")).strip()


# ------------------------------------------------------------------- helpers
def _check_curves(fs: Sequence[Any], name: str = "fs") -> list[Any]:
    if len(fs) == 0:
        raise ValueError(f"`{name}` must contain at least one trade-off function; got none")
    for i, f in enumerate(fs):
        if not isinstance(f, TradeOff):
            raise TypeError(f"`{name}[{i}]` must be a TradeOff; got {f!r}")
    return list(fs)


def _bracket(f: Any) -> tuple[TradeOff, TradeOff] | None:
    """The ``(lower, upper)`` TradeOffs of a numeric result, or ``None``."""
    lo = getattr(f, "lower", None)
    hi = getattr(f, "upper", None)
    if isinstance(lo, TradeOff) and isinstance(hi, TradeOff):
        return lo, hi
    return None


def _labels(fs: Sequence[Any], labels: Sequence[str] | None) -> list[str]:
    if labels is None:
        labels = [str(f.label) for f in fs]
    else:
        if isinstance(labels, str) or not isinstance(labels, Sequence | np.ndarray) or \
                not all(isinstance(s, str) for s in labels):
            raise TypeError(f"`labels` must be a sequence of strings; got "
                            f"labels={shown(labels)}")
        labels = list(labels)
        if len(labels) != len(fs):
            raise ValueError(f"`labels` must have one entry per curve ({len(fs)}); "
                             f"got {len(labels)}")
    out: list[str] = []
    for s in labels:  # repeated names would collide as data columns
        name, i = s, 2
        while name in out:
            name, i = f"{s} ({i})", i + 1
        out.append(name)
    return out


def _alpha_grid(n: int, log_alpha: bool, alpha_min: float) -> np.ndarray:
    if log_alpha:
        return np.geomspace(alpha_min, 1.0, n)
    # uniform, refined near the ends where G_mu-like curves are steep
    ends = np.geomspace(1e-6, 0.02, max(n // 8, 8))
    return np.unique(np.concatenate([np.linspace(0.0, 1.0, n), ends, 1.0 - ends]))


def _output_path(name: str, path: Any) -> Path:
    """A file to write: a str or path whose directory exists (none is created)."""
    if not isinstance(path, str | PathLike) or not str(path).strip():
        raise TypeError(f"`{name}` must be a file path (a str or os.PathLike); got "
                        f"{name}={shown(path)}")
    out = Path(path)
    if not (out.parent if str(out.parent) else Path(".")).is_dir():
        raise ValueError(f"`{name}` must be in an existing directory; got {name}={str(path)!r}")
    return out


def _flags(**flags: Any) -> None:
    """Check the True/False keywords of a plotting function."""
    for name, value in flags.items():
        check_bool(name, value)


def _n_points(n: Any) -> int:
    return check_count("n", n, lo=2, hi=10**6, why="each point is evaluated and drawn")


def _new_axes(ax: Any) -> Any:
    """``ax``, or a new figure: the size of the active style (:func:`gdp.plot.style`), or
    a 4.8 in square when matplotlib's default size is in force."""
    if ax is not None:
        if not callable(getattr(ax, "plot", None)):
            raise TypeError(f"`ax` must be a matplotlib Axes or None; got ax={shown(ax)}")
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=tuple(_rc("figure.figsize", _FIGSIZE)), layout="constrained")
    return ax


def _rc(key: str, fallback: Any) -> Any:
    """The rcParam ``key`` when a style (or the user) set it, else gdp's ``fallback``."""
    import matplotlib

    value = matplotlib.rcParams[key]
    return fallback if value == matplotlib.rcParamsDefault[key] else value


_GID = "gdp-curve"


def _plot_curve(ax: Any, x: Any, y: Any, style: dict[str, Any] | None = None,
                **kw: Any) -> Any:
    """Draw one curve with the next entry of :data:`gdp.plot.CYCLE` on ``ax`` (counting
    the curves this module drew there before); ``style`` (a plot's own look for the curve)
    and then ``kw`` (the caller's) override it; returns the line."""
    from matplotlib.cbook import normalize_kwargs
    from matplotlib.lines import Line2D

    i = sum(1 for line in ax.get_lines() if line.get_gid() == _GID)
    lw = _rc("lines.linewidth", 1.8)
    st = {**curve_style(i), "linewidth": lw, "markersize": _rc("lines.markersize", 3.5),
          "markeredgewidth": 0.6 * lw, "markerfacecolor": "white",
          **normalize_kwargs(style or {}, Line2D), **normalize_kwargs(kw, Line2D)}
    (line,) = ax.plot(x, y, **st)
    line.set_gid(_GID)
    return line


def _style_unit_square(ax: Any, log_alpha: bool, alpha_min: float, diagonal: bool) -> None:
    if diagonal:
        a = np.geomspace(alpha_min, 1.0, 400) if log_alpha else np.array([0.0, 1.0])
        ax.plot(a, 1.0 - a, ls="--", lw=1.0, color="0.45", zorder=1,
                label=r"$\mathrm{Id}: 1-\alpha$")
    if log_alpha:
        ax.set_xscale("log")
        ax.set_xlim(alpha_min, 1.0)
    else:
        ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_box_aspect(1)
    ax.set_xlabel(ALPHA_LABEL)
    ax.set_ylabel(BETA_LABEL)
    ax.grid(True, lw=0.4, alpha=0.5)


def _strip(name: str) -> str:
    """A plain column name for a legend entry (drop mathtext dollars)."""
    return name.replace("$", "")


def _line_with_band(ax: Any, x: np.ndarray, data: PlotData, name: str, shown: str,
                    band: bool, kw: Mapping[str, Any]) -> str:
    """Draw column ``name`` of ``data`` (the next curve style, :func:`_plot_curve`) and,
    with ``band``, the band between its ``lower`` and ``upper`` columns when it has them;
    returns the line's colour."""
    line = _plot_curve(ax, x, data.columns[name], style={"zorder": 3}, label=shown, **kw)
    color = line.get_color()
    if band and f"{name} lower" in data.columns:
        ax.fill_between(x, data.columns[f"{name} lower"], data.columns[f"{name} upper"],
                        color=color, alpha=0.3, lw=0, zorder=2)
    return color
