r"""Plots of trade-off functions, privacy profiles and composition comparisons.

Theory of operation
-------------------
A trade-off function :math:`f = T(P, Q)` lives in the unit square: the type I error
:math:`\alpha` of a test on the horizontal axis, the smallest type II error
:math:`\beta = f(\alpha)` on the vertical one, below the diagonal :math:`\beta = 1 - \alpha`
of the useless test (perfect privacy, :math:`\mathrm{Id}`). Higher curves are more private
(DRS Sec. 2). Every function here

* takes ``ax=None`` (a new square figure is made when none is given), returns the
  :class:`~matplotlib.axes.Axes` and never calls ``plt.show()``;
* names the curves by the objects' own LaTeX-safe :attr:`~gdp.TradeOff.label`, rendered
  with mathtext (``$G_{1}$``; no ``usetex`` needed);
* draws the *sound* side of a numeric result (the rigorous lower bound on the curve, the
  upper bound on :math:`\delta(\varepsilon)`) as the line and, when the object has
  ``lower`` and ``upper`` brackets, the bracket as a band;
* can hand back the plotted numbers (``return_data=True``, or :func:`curve_data` /
  :func:`profile_data` directly) as a :class:`PlotData` with a :meth:`PlotData.to_csv`
  method, so the figure can be re-drawn with any other tool.

Matplotlib is imported by this module only; ``import gdp`` does not load it.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022
(Fig. 1-6 show the same kinds of picture).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ._validation import as_real_array, check_int, check_real
from .tradeoff import TradeOff

__all__ = [
    "PlotData",
    "tradeoff",
    "privacy_profile",
    "compare",
    "clt",
    "curve_data",
    "profile_data",
    "compare_data",
    "to_csv",
    "mathtext",
    "ALPHA_LABEL",
    "BETA_LABEL",
]

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
        x = np.array(self.x, dtype=float)
        x.setflags(write=False)
        cols = {}
        for name, col in self.columns.items():
            c = np.array(col, dtype=float)
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
        path = Path(path)
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
    if not isinstance(data, PlotData):
        raise TypeError(f"`data` must be a PlotData; got data={data!r}")
    return data.to_csv(path)


def mathtext(label: str) -> str:
    r"""Wrap a LaTeX-safe label in ``$...$`` for matplotlib's mathtext (idempotent).

    >>> import gdp.plot
    >>> gdp.plot.mathtext("G_{1}"), gdp.plot.mathtext("$x$")
    ('$G_{1}$', '$x$')
    """
    label = str(label)
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
        if isinstance(labels, str):
            raise TypeError(f"`labels` must be a sequence of strings; got labels={labels!r}")
        labels = [str(s) for s in labels]
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


def _new_axes(ax: Any) -> Any:
    if ax is not None:
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


# --------------------------------------------------------------- trade-off curves
def curve_data(*fs: TradeOff, n: int = 1001, log_alpha: bool = False,
               alpha_min: float = 1e-6, alpha: Any = None,
               labels: Sequence[str] | None = None) -> PlotData:
    r"""The numbers :func:`tradeoff` plots: :math:`\beta = f(\alpha)` on a grid of α.

    Parameters
    ----------
    *fs : TradeOff
        The curves. A numeric result with ``lower`` / ``upper`` brackets adds two columns.
    n : int
        Number of grid points (the linear grid is refined near both ends).
    log_alpha : bool
        Log-spaced α from ``alpha_min`` to 1 instead.
    alpha : array_like, optional
        Explicit α values in [0, 1] (overrides ``n`` / ``log_alpha``).
    labels : sequence of str, optional
        Column names; default the objects' ``label``.

    Returns
    -------
    PlotData
        x column ``"alpha"``, one column per curve.
    """
    fs = _check_curves(fs)
    names = _labels(fs, labels)
    if alpha is None:
        n = check_int("n", n, lo=2)
        alpha_min = check_real("alpha_min", alpha_min, lo=0.0, hi=1.0, lo_open=True,
                               hi_open=True)
        a = _alpha_grid(n, bool(log_alpha), alpha_min)
    else:
        a = as_real_array("alpha", alpha, lo=0.0, hi=1.0).reshape(-1)
    cols: dict[str, np.ndarray] = {}
    for f, name in zip(fs, names, strict=True):
        cols[name] = np.asarray(f(a), dtype=float)
        br = _bracket(f)
        if br is not None:
            cols[f"{name} lower"] = np.asarray(br[0](a), dtype=float)
            cols[f"{name} upper"] = np.asarray(br[1](a), dtype=float)
    return PlotData("alpha", a, cols)


def tradeoff(*fs: TradeOff, ax: Any = None, shade: bool = False, band: bool = True,
             log_alpha: bool = False, alpha_min: float = 1e-6, n: int = 1001,
             labels: Sequence[str] | None = None, diagonal: bool = True,
             legend: bool = True, return_data: bool = False, **kw: Any) -> Any:
    r"""Draw trade-off curves :math:`\beta = f(\alpha)` in the unit square.

    Parameters
    ----------
    *fs : TradeOff
        Curves to draw, in the colour cycle of ``ax``.
    ax : matplotlib Axes, optional
        Where to draw; a new square figure when ``None``.
    shade : bool
        Shade the region between each curve and the diagonal: where the trade-off curve
        :math:`T(M(S), M(S'))` of any f-DP mechanism must lie (:math:`f \le T \le 1-\alpha`).
    band : bool
        For numeric results with ``lower`` / ``upper`` brackets, fill the band between
        them (the line is the sound lower bound).
    log_alpha : bool
        Logarithmic α axis from ``alpha_min`` (for the tails, small α).
    n : int
        Number of α grid points.
    labels : sequence of str, optional
        Legend entries (mathtext allowed); default ``$<f.label>$``.
    diagonal : bool
        Draw :math:`\mathrm{Id}(\alpha) = 1 - \alpha` dashed.
    legend : bool
        Add a legend.
    return_data : bool
        Also return the plotted numbers as :class:`PlotData`.
    **kw
        Passed to every ``ax.plot`` call (e.g. ``lw``, ``ls``).

    Returns
    -------
    Axes, or ``(Axes, PlotData)`` when ``return_data``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import gdp, gdp.plot
    >>> ax = gdp.plot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('Type I error $\\alpha$', 'Type II error $\\beta$')
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['$\\mathrm{Id}: 1-\\alpha$', '$G_{1}$', '$f_{1,1e-05}$']
    """
    data = curve_data(*fs, n=n, log_alpha=log_alpha, alpha_min=alpha_min, labels=labels)
    ax = _new_axes(ax)
    _style_unit_square(ax, bool(log_alpha), alpha_min, diagonal)
    a = data.x
    names = [s for s in data.columns if not _is_bracket_col(s, data.columns)]
    for name in names:
        beta = data.columns[name]
        shown = name if labels is not None else mathtext(name)
        (line,) = ax.plot(a, beta, label=shown, zorder=3, **{"lw": 1.8, **kw})
        color = line.get_color()
        if band and f"{name} lower" in data.columns:
            ax.fill_between(a, data.columns[f"{name} lower"], data.columns[f"{name} upper"],
                            color=color, alpha=0.3, lw=0, zorder=2)
        if shade:
            ax.fill_between(a, beta, np.maximum(beta, 1.0 - a), color=color, alpha=0.12,
                            lw=0, zorder=0)
    if legend:
        ax.legend(loc="upper right", frameon=True, framealpha=0.9)
    return (ax, data) if return_data else ax


def _is_bracket_col(name: str, cols: Mapping[str, Any]) -> bool:
    for suffix in (" lower", " upper"):
        if name.endswith(suffix) and name[: -len(suffix)] in cols:
            return True
    return False


# --------------------------------------------------------------- privacy profiles
def profile_data(*fs: TradeOff, eps: Any = None,
                 labels: Sequence[str] | None = None) -> PlotData:
    r"""The numbers :func:`privacy_profile` plots: :math:`\delta(\varepsilon)` of each f.

    ``eps`` defaults to 301 points on [0, 6]. A bracketed numeric result adds
    ``"<label> lower"`` / ``"<label> upper"`` columns (its ``delta_bounds``); the main
    column is the sound (upper) δ.

    Examples
    --------
    >>> import gdp, gdp.plot
    >>> d = gdp.plot.profile_data(gdp.G_mu(1.0), eps=[0.0, 1.0])
    >>> d.columns["G_{1}"].round(6).tolist()
    [0.382925, 0.126937]
    """
    fs = _check_curves(fs)
    names = _labels(fs, labels)
    if eps is None:
        e = np.linspace(0.0, 6.0, 301)
    else:
        e = as_real_array("eps", eps, lo=0.0).reshape(-1)
    cols: dict[str, np.ndarray] = {}
    for f, name in zip(fs, names, strict=True):
        cols[name] = np.asarray(f.delta(e), dtype=float)
        if hasattr(f, "delta_bounds"):
            lo, hi = f.delta_bounds(e)
            cols[f"{name} lower"] = np.asarray(lo, dtype=float).reshape(e.shape)
            cols[f"{name} upper"] = np.maximum(np.asarray(hi, dtype=float).reshape(e.shape),
                                               cols[name])
        elif (br := _bracket(f)) is not None:
            # the upper curve is easier to satisfy: its profile is the lower delta
            cols[f"{name} lower"] = np.asarray(br[1].delta(e), dtype=float)
            cols[f"{name} upper"] = np.asarray(br[0].delta(e), dtype=float)
    return PlotData("eps", e, cols)


def privacy_profile(*fs: TradeOff, eps: Any = None, ax: Any = None, log_delta: bool = True,
                    delta_min: float = 1e-12, band: bool = True,
                    labels: Sequence[str] | None = None, legend: bool = True,
                    return_data: bool = False, **kw: Any) -> Any:
    r"""Draw privacy profiles :math:`\delta(\varepsilon)`: an f-DP mechanism is
    :math:`(\varepsilon, \delta(\varepsilon))`-DP for every :math:`\varepsilon \ge 0`.

    .. math:: \delta(\varepsilon) = 1 + (f^S)^*(-e^{\varepsilon})

    (DRS Prop. 2.12; :meth:`gdp.TradeOff.delta`). δ is drawn on a log axis by default,
    down to ``delta_min``; values that are exactly 0 are not drawn.

    Parameters
    ----------
    *fs : TradeOff
        The curves.
    eps : array_like, optional
        ε values (default 301 points on [0, 6]).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when ``None``.
    log_delta : bool
        Logarithmic δ axis.
    delta_min : float
        Lower limit of the δ axis when it is logarithmic.
    band, labels, legend, return_data, **kw
        As in :func:`tradeoff`.

    Returns
    -------
    Axes, or ``(Axes, PlotData)`` when ``return_data``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import gdp, gdp.plot
    >>> ax = gdp.plot.privacy_profile(gdp.G_mu(0.5), gdp.G_mu(1.0))
    >>> ax.get_yscale(), ax.get_xlabel()
    ('log', 'Privacy parameter $\\varepsilon$')
    """
    delta_min = check_real("delta_min", delta_min, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    data = profile_data(*fs, eps=eps, labels=labels)
    ax = _new_axes(ax)
    e = data.x
    names = [s for s in data.columns if not _is_bracket_col(s, data.columns)]

    def shown(d):
        return np.where(d > 0, d, np.nan) if log_delta else d

    for name in names:
        (line,) = ax.plot(e, shown(data.columns[name]),
                          label=name if labels is not None else mathtext(name),
                          **{"lw": 1.8, **kw})
        if band and f"{name} lower" in data.columns:
            ax.fill_between(e, shown(data.columns[f"{name} lower"]),
                            shown(data.columns[f"{name} upper"]), color=line.get_color(),
                            alpha=0.3, lw=0)
    if log_delta:
        ax.set_yscale("log")
        ax.set_ylim(delta_min, 1.5)
    else:
        ax.set_ylim(0.0, 1.0)
    ax.set_xlim(float(e.min()), float(e.max()))
    ax.set_xlabel(r"Privacy parameter $\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.grid(True, which="major", lw=0.4, alpha=0.5)
    if legend:
        ax.legend(loc="upper right", framealpha=0.9)
    return (ax, data) if return_data else ax


# ------------------------------------------------------- composition comparisons
_K_KEYS = ("k", "n", "steps", "compositions", "n_compositions")
_METHOD_KEYS = ("method", "name", "accountant", "bound")
_EPS_KEYS = ("eps", "epsilon")


def _first_key(rec: Mapping[str, Any], keys: Sequence[str], what: str) -> Any:
    for k in keys:
        if k in rec:
            return rec[k]
    raise ValueError(f"`records` entries must have a {what} field (one of "
                     f"{', '.join(keys)}); got keys {sorted(rec)}")


def compare_data(records_or_data: Any) -> PlotData:
    r"""Normalise a composition comparison into a table: k against ε per method.

    Accepts

    * an iterable of records (mappings) with a number of compositions (``k``, ``n``,
      ``steps``), a method name (``method``, ``name``) and an ε (``eps``, ``epsilon``),
      such as the records of :func:`gdp.compare`;
    * an object with ``records`` (attribute, or ``to_records()`` / ``records()``);
    * a mapping ``{"k": ks, method: eps_values, ...}``;
    * a :class:`PlotData` (returned unchanged).

    Methods that have no value at some k (or report ``inf``/``None``) get NaN there.

    Examples
    --------
    >>> import gdp.plot
    >>> recs = [{"k": 1, "method": "basic", "eps": 0.5}, {"k": 2, "method": "basic",
    ...         "eps": 1.0}, {"k": 2, "method": "exact", "eps": 0.9}]
    >>> d = gdp.plot.compare_data(recs)
    >>> d.x.tolist(), d.columns["basic"].tolist(), d.columns["exact"].tolist()
    ([1.0, 2.0], [0.5, 1.0], [nan, 0.9])
    """
    obj = records_or_data
    if isinstance(obj, PlotData):
        return obj
    if hasattr(obj, "k") and isinstance(getattr(obj, "columns", None), Mapping):
        ks = as_real_array("k", obj.k, lo=0.0).reshape(-1)  # e.g. gdp.epsilon_vs_k
        return PlotData("k", ks, {str(m): _eps_column(v, ks.shape)
                                  for m, v in obj.columns.items()})
    for attr in ("to_records", "records"):
        val = getattr(obj, attr, None)
        if val is not None and not isinstance(obj, Mapping):
            obj = val() if callable(val) else val
            break
    if isinstance(obj, Mapping):
        if not any(k in obj for k in _K_KEYS):
            raise ValueError("`records_or_data` as a mapping must have a 'k' entry; "
                             f"got keys {sorted(obj)}")
        kname = next(k for k in _K_KEYS if k in obj)
        ks = as_real_array(kname, obj[kname], lo=0.0).reshape(-1)
        cols = {str(m): _eps_column(v, ks.shape) for m, v in obj.items() if m != kname}
        return PlotData("k", ks, cols)
    if isinstance(obj, str | bytes) or not isinstance(obj, Iterable):
        raise TypeError("`records_or_data` must be a list of records, a mapping or the "
                        f"result of gdp.compare; got {type(records_or_data).__name__}")
    table: dict[str, dict[float, float]] = {}
    ks_seen: set[float] = set()
    for rec in obj:
        if not isinstance(rec, Mapping):
            rec = getattr(rec, "_asdict", lambda r=rec: getattr(r, "__dict__", r))()
            if not isinstance(rec, Mapping):
                raise TypeError("`records_or_data` entries must be mappings; "
                                f"got {type(rec).__name__}")
        k = float(_first_key(rec, _K_KEYS, "number of compositions"))
        m = str(_first_key(rec, _METHOD_KEYS, "method"))
        e = _first_key(rec, _EPS_KEYS, "epsilon")
        ks_seen.add(k)
        table.setdefault(m, {})[k] = math.nan if e is None else float(e)
    if not table:
        raise ValueError("`records_or_data` must contain at least one record; got none")
    ks = np.array(sorted(ks_seen))
    cols = {m: np.array([vals.get(k, math.nan) for k in ks]) for m, vals in table.items()}
    for c in cols.values():
        c[~np.isfinite(c)] = math.nan
    return PlotData("k", ks, cols)


def _eps_column(v: Any, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.array([math.nan if x is None else float(x) for x in np.ravel(v)], dtype=float)
    if arr.shape != shape:
        raise ValueError(f"every method must have one value per k ({shape[0]}); "
                         f"got {arr.shape[0]}")
    arr[~np.isfinite(arr)] = math.nan
    return arr


_COMPARE_STYLE = {
    "exact": dict(color="black", lw=2.4, ls="-", zorder=5),
    "clt": dict(color="tab:purple", ls=(0, (6, 2, 1, 2)), lw=1.6, zorder=6),
    "gdp": dict(color="tab:purple", ls=(0, (6, 2, 1, 2)), lw=1.6, zorder=6),
    "basic": dict(color="tab:red", ls=":", lw=1.8),
    "advanced": dict(color="tab:orange", ls="--", lw=1.6),
    "kairouz": dict(color="tab:brown", ls="-.", lw=1.6),
    "kov": dict(color="tab:green", ls=(0, (2.5, 2.5)), lw=1.8, zorder=7),
    "rdp": dict(color="tab:blue", ls="--", lw=1.6),
}


def _method_names(obj: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Readable names (``gdp.bounds.METHODS``) and kinds of the methods in a comparison."""
    from .bounds import METHODS

    kinds: dict[str, str] = {}
    raw = getattr(obj, "kinds", None)
    if isinstance(raw, Mapping):
        kinds = {str(k): str(v) for k, v in raw.items()}
    else:
        recs = getattr(obj, "records", obj)
        if isinstance(recs, Iterable) and not isinstance(recs, Mapping | str | bytes):
            for r in recs:
                d = r if isinstance(r, Mapping) else getattr(r, "as_dict", lambda: {})()
                if isinstance(d, Mapping) and "method" in d and d.get("kind") not in (
                        None, "skipped"):
                    kinds[str(d["method"])] = str(d["kind"])
    return dict(METHODS), kinds


def _style_for(method: str) -> dict[str, Any]:
    key = method.lower()
    for name, st in _COMPARE_STYLE.items():
        if key.startswith(name):
            return dict(st)
    return {"lw": 1.6}


def compare(records_or_data: Any, ax: Any = None, *, log_k: bool = True,
            log_eps: bool = True, ylabel: str | None = None,
            labels: Mapping[str, str] | None = None, legend: bool = True,
            return_data: bool = False, **kw: Any) -> Any:
    r"""Draw ε against the number of compositions k for several accounting methods.

    Parameters
    ----------
    records_or_data
        The output of the composition comparison (:func:`gdp.compare`) or anything
        :func:`compare_data` accepts.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when ``None``.
    log_k, log_eps : bool
        Logarithmic axes.
    ylabel : str, optional
        Default ``"ε"``, or ``"ε at δ = ..."`` when the data says which δ.
    labels : mapping, optional
        Legend names by method key; default the readable names of
        :data:`gdp.bounds.METHODS` (approximations are marked as such).
    legend, return_data, **kw
        As in :func:`tradeoff`.

    Returns
    -------
    Axes, or ``(Axes, PlotData)`` when ``return_data``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import gdp.plot
    >>> ax = gdp.plot.compare({"k": [1, 10, 100], "basic": [0.1, 1.0, 10.0],
    ...                        "exact": [0.1, 0.6, 2.5]})
    >>> ax.get_xscale(), [t.get_text() for t in ax.get_legend().get_texts()]
    ('log', ['Basic composition', 'Exact tensor product'])
    """
    data = compare_data(records_or_data)
    names, kinds = _method_names(records_or_data)
    if labels is not None:
        names.update({str(k): str(v) for k, v in labels.items()})
    ax = _new_axes(ax)
    for method, eps in data.columns.items():
        ok = np.isfinite(eps)
        if not np.any(ok):
            continue
        st = {**_style_for(method), **kw}
        label = names.get(method, method)
        if kinds.get(method) == "approximation":
            label += " (approximation)"
        ax.plot(data.x[ok], eps[ok], label=label, marker="o" if ok.sum() < 12 else None,
                ms=3.5, **st)
    if log_k:
        ax.set_xscale("log")
    if log_eps:
        ax.set_yscale("log")
    ax.set_xlabel("Number of compositions $k$")
    if ylabel is None:
        d = getattr(records_or_data, "delta", None)
        ylabel = (r"$\varepsilon$" if not isinstance(d, float) else
                  rf"$\varepsilon$ at $\delta = {_sci(d)}$")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", lw=0.4, alpha=0.4)
    if legend:
        ax.legend(loc="upper left", framealpha=0.9)
    return (ax, data) if return_data else ax


def _sci(x: float) -> str:
    """``1e-05`` -> ``10^{-5}`` for mathtext; other numbers as ``%g``."""
    m, _, e = f"{x:.3g}".partition("e")
    if not e:
        return m
    return (f"{m} \\times " if m != "1" else "") + f"10^{{{int(e)}}}"


# ------------------------------------------------------------------------- CLT
def clt(fs: Sequence[TradeOff], ax: Any = None, *, exact: Any = True,
        berry_esseen: bool = True, edgeworth: bool = True, log_alpha: bool = False,
        alpha_min: float = 1e-6, n: int = 1001, legend: bool = True,
        return_data: bool = False) -> Any:
    r"""Exact composition :math:`f_1\otimes\cdots\otimes f_n` against its central-limit
    approximations: the CLT Gaussian :math:`G_\mu`, the Berry–Esseen band
    :math:`[G_\mu(\alpha+\gamma)-\gamma,\ G_\mu(\alpha-\gamma)+\gamma]` and the Edgeworth
    expansion (DRS Thm 3.4; Zheng–Dong–Long–Su 2020).

    The CLT and Edgeworth curves are approximations, not bounds, and are drawn dashed;
    the exact composition (its sound lower bound, with its numeric bracket as a band) is
    the reference.

    Parameters
    ----------
    fs : sequence of TradeOff
        The factors (symmetric trade-off functions, as the CLT requires).
    ax : matplotlib Axes, optional
        Where to draw; a new square figure when ``None``.
    exact : bool or TradeOff
        ``True`` computes ``gdp.compose(*fs)``; a TradeOff is used as given (e.g. when it
        was already computed); ``False`` leaves it out.
    berry_esseen, edgeworth : bool
        Draw the Berry–Esseen band / the Edgeworth curve.
    log_alpha, alpha_min, n, legend, return_data
        As in :func:`tradeoff`.

    Returns
    -------
    Axes, or ``(Axes, PlotData)`` when ``return_data``.
    """
    import gdp

    if isinstance(fs, TradeOff):
        raise TypeError("`fs` must be a sequence of TradeOffs (the factors); got a single "
                        "TradeOff")
    fs = _check_curves(list(fs))
    if not hasattr(gdp, "clt"):
        raise RuntimeError("gdp.plot.clt needs gdp.clt (the central limit theorem module), "
                           "which is not available in this installation")
    res = gdp.clt(fs)
    curves: list[TradeOff] = []
    names: list[str] = []
    styles: list[dict[str, Any]] = []
    if exact is True:
        exact = gdp.compose(*fs)
    if isinstance(exact, TradeOff):
        curves.append(exact)
        names.append("exact")
        styles.append(dict(color="black", lw=2.0))
    elif exact is not False and exact is not None:
        raise TypeError(f"`exact` must be True, False or a TradeOff; got exact={exact!r}")
    mu = float(res.mu)
    curves.append(res.approx)
    names.append(f"CLT $G_{{{mu:.3g}}}$")
    styles.append(dict(color="tab:blue", ls="--", lw=1.6))
    if edgeworth:
        if not hasattr(gdp, "edgeworth"):
            raise RuntimeError("gdp.plot.clt(edgeworth=True) needs gdp.edgeworth, which is "
                               "not available in this installation; pass edgeworth=False")
        curves.append(gdp.edgeworth(fs))
        names.append("Edgeworth")
        styles.append(dict(color="tab:red", ls="-.", lw=1.6))
    a_data = curve_data(*curves, n=n, log_alpha=log_alpha, alpha_min=alpha_min,
                        labels=[_strip(s) for s in names])
    a = a_data.x
    cols = dict(a_data.columns)
    gamma = float(res.gamma)
    if berry_esseen and gamma < 0.5:
        cols["Berry-Esseen lower"] = np.asarray(res.lower(a), dtype=float)
        cols["Berry-Esseen upper"] = np.asarray(res.upper(a), dtype=float)
    data = PlotData("alpha", a, cols)
    ax = _new_axes(ax)
    _style_unit_square(ax, bool(log_alpha), alpha_min, True)
    if "Berry-Esseen lower" in cols:
        ax.fill_between(a, cols["Berry-Esseen lower"], cols["Berry-Esseen upper"],
                        color="tab:blue", alpha=0.15, lw=0,
                        label=rf"Berry–Esseen band ($\gamma={gamma:.3g}$)")
    for name, st in zip(names, styles, strict=True):
        key = _strip(name)
        ax.plot(a, cols[key], label=name, zorder=3, **st)
        if f"{key} lower" in cols:
            ax.fill_between(a, cols[f"{key} lower"], cols[f"{key} upper"],
                            color=st["color"], alpha=0.3, lw=0)
    if legend:
        ax.legend(loc="upper right", framealpha=0.9)
    return (ax, data) if return_data else ax


def _strip(name: str) -> str:
    """A plain column name for a legend entry (drop mathtext dollars)."""
    return name.replace("$", "")
