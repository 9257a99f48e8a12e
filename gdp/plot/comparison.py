r"""The plot of a comparison: ε against the number of compositions, per method.

:func:`compare` draws the output of :func:`gdp.epsilon_vs_k` (or plain records or a mapping of
columns), one style per method, and :func:`compare_data` extracts its numbers.

Imports: :mod:`gdp.bounds` (the method names) and :mod:`gdp.plot.base`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import as_real_array, check_str
from .base import PlotData, _flags, _new_axes, _plot_curve, _rc
from .styles import _DASHES, PALETTE

__all__ = ["compare_data", "compare"]

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


def _method_style(color: int, dash: int, marker: str, start: float, **kw: Any
                  ) -> dict[str, Any]:
    return {"color": PALETTE[color], "linestyle": _DASHES[dash], "marker": marker,
            "markevery": (start, 0.12), **kw}


#: one look per method: the exact line is solid black underneath, drawn wide so that a
#: bound that equals it (optimal KOV for f_{eps,0}) shows as a dashed line inside it
_COMPARE_STYLE = {
    "exact": {"color": "black", "linestyle": "-", "marker": "", "zorder": 2,
              "linewidth_scale": 2.0},
    "clt": _method_style(5, 3, "X", 0.09, zorder=7),
    "gdp": _method_style(5, 3, "X", 0.09, zorder=7),
    "basic": _method_style(1, 1, "v", 0.02),
    "advanced": _method_style(4, 2, "^", 0.035),
    "kairouz": _method_style(3, 6, "D", 0.05),
    "kov": _method_style(2, 5, "s", 0.065, zorder=6),
    "rdp": _method_style(0, 4, "o", 0.08, zorder=5),
}


def _method_names(obj: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Readable names (``gdp.bounds.METHODS``) and kinds of the methods in a comparison."""
    from ..bounds.tables import METHODS

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
            st = dict(st)
            scale = st.pop("linewidth_scale", None)
            if scale is not None:
                st["linewidth"] = scale * _rc("lines.linewidth", 1.8)
            return st
    return {}


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
    As :func:`gdp.plot.tradeoff`.

    Examples
    --------
    >>> import gdp.plot
    >>> ax = gdp.plot.compare({"k": [1, 10, 100], "basic": [0.1, 1.0, 10.0],
    ...                        "exact": [0.1, 0.6, 2.5]})
    >>> ax.get_xscale(), [t.get_text() for t in ax.get_legend().get_texts()]
    ('log', ['Basic composition', 'Exact tensor product'])
    """
    _flags(log_k=log_k, log_eps=log_eps, legend=legend, return_data=return_data)
    if ylabel is not None:
        check_str("ylabel", ylabel)
    if labels is not None and (not isinstance(labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items())):
        raise TypeError(f"`labels` must map method names to strings; got "
                        f"labels={labels!r:.60}")
    data = compare_data(records_or_data)
    names, kinds = _method_names(records_or_data)
    if labels is not None:
        names.update(dict(labels))
    ax = _new_axes(ax)
    for method, eps in data.columns.items():
        ok = np.isfinite(eps)
        if not np.any(ok):
            continue
        label = names.get(method, method)
        if kinds.get(method) == "approximation":
            label += " (approximation)"
        _plot_curve(ax, data.x[ok], eps[ok], style=_style_for(method), label=label, **kw)
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
