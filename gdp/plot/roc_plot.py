r"""The ROC view of a trade-off curve: the best membership attack's true-positive rate
against its false-positive rate.

:func:`roc` draws :math:`\mathrm{TPR} = 1 - f^S(\mathrm{FPR})` (the power of the best test,
DRS Def. 2.1; :func:`gdp.risk.tpr_at_fpr`), by default on log-log axes, which is how
membership-inference results are reported (the low-FPR regime, Carlini et al. 2022);
the chance line TPR = FPR is perfect privacy. The line is the sound side (an upper bound on
the attack's power); a numeric result with a bracket adds the band between the powers of
its two sides. :func:`roc_data` returns the numbers.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 2022. N. Carlini,
S. Chien, M. Nasr, S. Song, A. Terzis, F. Tramèr, "Membership Inference Attacks From First
Principles", IEEE S&P 2022 (TPR at low FPR on log axes).

Imports: every floor below :mod:`gdp.plot` and :mod:`gdp.plot.base`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import as_real_array, check_real
from ..accounting.attack_risk import tpr_at_fpr
from ..core.tradeoff import TradeOff
from . import base
from .curves import _is_bracket_col

__all__ = ["roc_data", "roc"]

FPR_LABEL = "False-positive rate (FPR)"
TPR_LABEL = "True-positive rate (TPR)"


def roc_data(*fs: TradeOff, n: int = 400, log: bool = True, fpr_min: float = 1e-6,
             fpr: Any = None, labels: Sequence[str] | None = None) -> base.PlotData:
    r"""The numbers :func:`roc` plots: the largest TPR of a membership attack at each FPR.

    Parameters
    ----------
    *fs : TradeOff
        The mechanisms' curves. A numeric result with ``lower`` / ``upper`` adds the columns
        ``"<label> lower"`` (the power its upper curve allows) and ``"<label> upper"``.
    n : int
        Number of FPR points (log-spaced from ``fpr_min`` to 1, or linear from 0).
    log : bool
        Log-spaced FPR (default) or linear.
    fpr : array_like, optional
        Explicit FPR values in [0, 1].
    labels : sequence of str, optional
        Column names; default the curves' labels.

    Examples
    --------
    >>> import gdp, gdp.plot
    >>> d = gdp.plot.roc_data(gdp.G_mu(1.0), fpr=[1e-3, 0.1])
    >>> d.x_name, d.columns["G_{1}"].round(4).tolist()
    ('fpr', [0.0183, 0.3891])
    """
    fs = base._check_curves(fs)
    names = base._labels(fs, labels)
    base._flags(log=log)
    if fpr is None:
        n = base._n_points(n)
        lo = check_real("fpr_min", fpr_min, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        x = np.geomspace(lo, 1.0, n) if log else np.linspace(0.0, 1.0, n)
    else:
        x = as_real_array("fpr", fpr, lo=0.0, hi=1.0).reshape(-1)
    cols: dict[str, np.ndarray] = {}
    for f, name in zip(fs, names, strict=True):
        cols[name] = np.asarray(tpr_at_fpr(f, x), dtype=float)
        br = base._bracket(f)
        if br is not None:
            cols[f"{name} lower"] = np.asarray(tpr_at_fpr(br[1], x), dtype=float)
            cols[f"{name} upper"] = np.asarray(tpr_at_fpr(br[0], x), dtype=float)
    return base.PlotData("fpr", x, cols)


def roc(*fs: TradeOff, ax: Any = None, log: bool = True, fpr_min: float = 1e-6, n: int = 400,
        band: bool = True, chance: bool = True, labels: Sequence[str] | None = None,
        legend: bool = True, return_data: bool = False, **kw: Any) -> Any:
    r"""Draw the ROC curves of the best membership attacks against mechanisms with the
    given trade-off curves: TPR :math:`= 1 - f^S(\mathrm{FPR})`.

    Parameters
    ----------
    *fs : TradeOff
        Curves to draw.
    ax : matplotlib Axes, optional
        Where to draw; a new square figure when ``None``.
    log : bool
        Log-log axes from ``fpr_min`` (default; the low-FPR regime) or linear ones.
    band : bool
        For numeric results, fill the band between the TPRs of the two sides.
    chance : bool
        Draw TPR = FPR (perfect privacy) dashed.
    labels, legend, return_data, **kw
        As in :func:`gdp.plot.tradeoff`.

    Returns
    -------
    The matplotlib Axes, with the :class:`PlotData` of :func:`roc_data` when
    ``return_data``.

    Examples
    --------
    >>> import gdp.plot
    >>> ax, data = gdp.plot.roc(gdp.G_mu(1.0), gdp.f_eps_delta(2.0, 1e-5), return_data=True)
    >>> ax.get_xscale(), ax.get_xlabel(), data.x_name
    ('log', 'False-positive rate (FPR)', 'fpr')
    """
    base._flags(log=log, band=band, chance=chance, legend=legend, return_data=return_data)
    data = roc_data(*fs, n=n, log=log, fpr_min=fpr_min, labels=labels)
    ax = base._new_axes(ax)
    x = data.x
    if chance:
        ax.plot(x, x, ls="--", lw=1.0, color="0.45", zorder=1, label="chance (TPR = FPR)")
    for name in [c for c in data.columns if not _is_bracket_col(c, data.columns)]:
        shown = name if labels is not None else base.mathtext(name)
        base._line_with_band(ax, x, data, name, shown, band, kw)
    scale, lim = ("log", (x[0], 1.0)) if log else ("linear", (0.0, 1.0))
    ax.set(xscale=scale, yscale=scale, xlim=lim, ylim=lim, xlabel=FPR_LABEL, ylabel=TPR_LABEL)
    ax.set_box_aspect(1)
    ax.grid(True, lw=0.4, alpha=0.5)
    if legend:
        ax.legend(loc="lower right", frameon=True, framealpha=0.9)
    return (ax, data) if return_data else ax
