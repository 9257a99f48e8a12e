r"""Plots of curves: trade-off functions, privacy profiles and the CLT picture.

:func:`tradeoff` (curves, the band of a numeric bracket, shading, log α),
:func:`privacy_profile` (δ(ε), log δ) and :func:`clt` (exact composition against the CLT
Gaussian, its Berry–Esseen band and Edgeworth); :func:`curve_data` / :func:`profile_data`
return the numbers without drawing.

Imports: every floor below :mod:`gdp.plot` and :mod:`gdp.plot.base`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import as_real_array, check_real
from ..approx.central_limit import clt as central_limit
from ..approx.edgeworth_series import edgeworth as edgeworth_series
from ..core.tradeoff import SidedProfile, TradeOff
from ..engine.dispatch import compose
from .base import (
    PlotData,
    _alpha_grid,
    _bracket,
    _check_curves,
    _flags,
    _labels,
    _line_with_band,
    _n_points,
    _new_axes,
    _plot_curve,
    _rc,
    _strip,
    _style_unit_square,
    mathtext,
)
from .styles import PALETTE, curve_style

__all__ = ["curve_data", "tradeoff", "profile_data", "privacy_profile", "clt"]

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
    _flags(log_alpha=log_alpha)
    if alpha is None:
        n = _n_points(n)
        alpha_min = check_real("alpha_min", alpha_min, lo=0.0, hi=1.0, lo_open=True,
                               hi_open=True)
        a = _alpha_grid(n, bool(log_alpha), alpha_min)
    else:
        a = as_real_array("alpha", alpha, lo=0.0, hi=1.0, max_ndim=1, min_size=1).reshape(-1)
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
    >>> import gdp, gdp.plot
    >>> ax = gdp.plot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('Type I error $\\alpha$', 'Type II error $\\beta$')
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['$\\mathrm{Id}: 1-\\alpha$', '$G_{1}$', '$f_{1,10^{-5}}$']
    """
    _flags(shade=shade, band=band, log_alpha=log_alpha, diagonal=diagonal, legend=legend,
           return_data=return_data)
    data = curve_data(*fs, n=n, log_alpha=log_alpha, alpha_min=alpha_min, labels=labels)
    ax = _new_axes(ax)
    _style_unit_square(ax, bool(log_alpha), alpha_min, diagonal)
    a = data.x
    names = [s for s in data.columns if not _is_bracket_col(s, data.columns)]
    for name in names:
        beta = data.columns[name]
        shown = name if labels is not None else mathtext(name)
        color = _line_with_band(ax, a, data, name, shown, band, kw)
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
        e = as_real_array("eps", eps, lo=0.0, max_ndim=1, min_size=1).reshape(-1)
    cols: dict[str, np.ndarray] = {}
    for f, name in zip(fs, names, strict=True):
        cols[name] = np.asarray(f.delta(e), dtype=float)
        if hasattr(f, "delta_bounds") and not isinstance(f, SidedProfile):
            # (a numeric result's bracket; a closed form's, its rounding, is not drawn)
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
    As :func:`tradeoff`.

    Examples
    --------
    >>> import gdp, gdp.plot
    >>> ax = gdp.plot.privacy_profile(gdp.G_mu(0.5), gdp.G_mu(1.0))
    >>> ax.get_yscale(), ax.get_xlabel()
    ('log', 'Privacy parameter $\\varepsilon$')
    """
    delta_min = check_real("delta_min", delta_min, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    _flags(log_delta=log_delta, band=band, legend=legend, return_data=return_data)
    data = profile_data(*fs, eps=eps, labels=labels)
    ax = _new_axes(ax)
    e = data.x
    names = [s for s in data.columns if not _is_bracket_col(s, data.columns)]

    def shown(d):
        return np.where(d > 0, d, np.nan) if log_delta else d

    for name in names:
        line = _plot_curve(ax, e, shown(data.columns[name]),
                           label=name if labels is not None else mathtext(name), **kw)
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


# ------------------------------------------------------------------------- CLT
def clt(fs: Sequence[TradeOff], ax: Any = None, *, exact: Any = True,
        berry_esseen: bool = True, edgeworth: bool = True, log_alpha: bool = False,
        alpha_min: float = 1e-6, n: int = 1001, legend: bool = True,
        return_data: bool = False) -> Any:
    r"""Exact composition :math:`f_1\otimes\cdots\otimes f_n` against its central-limit
    approximations: the CLT Gaussian :math:`G_\mu`, the Berry–Esseen band
    :math:`[G_\mu(\alpha+\gamma)-\gamma,\ G_\mu(\alpha-\gamma)+\gamma]` and the Edgeworth
    expansion (DRS Thm 3.4; Zheng–Dong–Long–Su 2020).

    The CLT and Edgeworth curves are approximations, not bounds, and are drawn thin and
    dashed with markers on top of the exact composition (its sound lower bound, with its
    numeric bracket as a band), which is drawn wide and black: where they agree, the
    black shows on both sides of the dashes.

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
    As :func:`tradeoff`.
    """
    if isinstance(fs, TradeOff):
        raise TypeError("`fs` must be a sequence of TradeOffs (the factors); got a single "
                        "TradeOff")
    if isinstance(fs, str | bytes) or not isinstance(fs, Sequence | np.ndarray):
        raise TypeError(f"`fs` must be a sequence of TradeOffs (the factors); got fs={fs!r:.60}")
    fs = _check_curves(list(fs))
    _flags(berry_esseen=berry_esseen, edgeworth=edgeworth, log_alpha=log_alpha,
           legend=legend, return_data=return_data)
    if not (isinstance(exact, bool) or isinstance(exact, TradeOff)):
        raise TypeError(f"`exact` must be True, False or a TradeOff; got exact={exact!r:.60}")
    n = _n_points(n)
    res = central_limit(fs)
    curves: list[TradeOff] = []
    names: list[str] = []
    styles: list[dict[str, Any]] = []
    if exact is True:
        exact = compose(*fs)
    if isinstance(exact, TradeOff):
        curves.append(exact)
        names.append("exact")
        # wide and underneath: the approximations, thinner and dashed, show on top of it
        styles.append(dict(color="black", linestyle="-", marker="", zorder=2,
                           linewidth=2.0 * _rc("lines.linewidth", 1.8)))
    elif exact is not False and exact is not None:
        raise TypeError(f"`exact` must be True, False or a TradeOff; got exact={exact!r}")
    mu = float(res.mu)
    curves.append(res.approx)
    names.append(f"CLT $G_{{{mu:.3g}}}$")
    thin = 0.7 * _rc("lines.linewidth", 1.8)
    styles.append(dict(curve_style(1), color=PALETTE[0], zorder=3, linewidth=thin))
    if edgeworth:
        curves.append(edgeworth_series(fs))
        names.append("Edgeworth")
        styles.append(dict(curve_style(2), color=PALETTE[1], zorder=4, linewidth=thin))
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
                        color=PALETTE[0], alpha=0.15, lw=0,
                        label=rf"Berry–Esseen band ($\gamma={gamma:.3g}$)")
    for name, st in zip(names, styles, strict=True):
        key = _strip(name)
        _plot_curve(ax, a, cols[key], style=st, label=name)
        if f"{key} lower" in cols:
            ax.fill_between(a, cols[f"{key} lower"], cols[f"{key} upper"],
                            color=st["color"], alpha=0.3, lw=0)
    if legend:
        ax.legend(loc="upper right", framealpha=0.9)
    return (ax, data) if return_data else ax
