r"""The common ground of the plots: labels, the unit square, exported data.

:class:`PlotData` (one x column and named y columns, :func:`to_csv`) is what every plotting
function can return besides its Axes; :func:`mathtext` turns a curve's label into matplotlib
math text; the helpers here make the axes (``ax=None`` → a new figure) and style the unit
square of a trade-off plot. matplotlib is imported on first use.

Imports: the ground floor and :mod:`gdp.core`.
"""

from __future__ import annotations

import csv
import math
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

__all__ = ["PlotData", "to_csv", "mathtext", "ALPHA_LABEL", "BETA_LABEL"]

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


def mathtext(label: str) -> str:
    r"""Wrap a LaTeX-safe label in ``$...$`` for matplotlib's mathtext (idempotent).

    >>> import gdp.plot
    >>> gdp.plot.mathtext("G_{1}"), gdp.plot.mathtext("$x$")
    ('$G_{1}$', '$x$')
    """
    label = check_str("label", label)
    if label.startswith("$") and label.endswith("$") and len(label) > 1:
        return label
    return f"${label}$"


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
    if ax is not None:
        if not callable(getattr(ax, "plot", None)):
            raise TypeError(f"`ax` must be a matplotlib Axes or None; got ax={shown(ax)}")
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=_FIGSIZE, layout="constrained")
    return ax


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
    """Draw column ``name`` of ``data`` and, with ``band``, the band between its ``lower``
    and ``upper`` columns when it has them; returns the line's colour."""
    (line,) = ax.plot(x, data.columns[name], label=shown, zorder=3, **{"lw": 1.8, **kw})
    color = line.get_color()
    if band and f"{name} lower" in data.columns:
        ax.fill_between(x, data.columns[f"{name} lower"], data.columns[f"{name} upper"],
                        color=color, alpha=0.3, lw=0, zorder=2)
    return color
