r"""The figures of the notes, drawn with the toolkit's own code (``gdp figures``).

Theory of operation
-------------------
Each figure is a function ``draw_<name>(fig, *, quick=False)`` that fills a
:class:`matplotlib.figure.Figure` and checks the claim it illustrates with the toolkit
(e.g. that the curves drawn "above f" really dominate it, via
:meth:`gdp.TradeOff.dominates`), raising ``RuntimeError`` rather than drawing a wrong
picture. :func:`draw_all` saves every figure as PNG and PDF into a directory with a fixed
pixel size (``figsize × dpi``, no tight bounding box) so that regenerated files are
comparable; PDFs carry no creation date, so re-running gives identical files.

Every figure is drawn at the size it has in a two-column paper (one column, 3.4 in, or the
text width, 7.0 in) in :func:`gdp.plot.style`, so its text prints at 7–8 pt when the figure
is included at 100 %, its fonts are embedded as TrueType (Type 42, never Type 3: IEEE and
ACM checks reject Type 3), and its curves differ in dash pattern and marker as well as in
colour (grayscale print, colour-blind readers).

``quick=True`` uses cheaper settings (coarser grids, fewer compositions, a shorter DP-SGD
run) for tests; the pictures keep the same layout.

Figures that need the composition engine, the composition-bounds comparison or the central
limit theorem (7, 8, 9) raise ``RuntimeError`` naming the missing part when it is not
available.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022
(Fig. 1-3, 5-7); BDLS: Z. Bu, J. Dong, Q. Long, W. J. Su, "Deep Learning with Gaussian
Differential Privacy", HDSR 2020; P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem
for Differential Privacy", ICML 2015.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special

from .._progress import ProgressCallback, as_progress
from .._validation import check_int
from ..approx import ApproximationWarning, clt, noisy_sgd_mu
from ..bounds import epsilon_vs_k
from ..families.epsdelta import f_eps_delta
from ..families.gaussian import G_mu, eps_from_mu
from ..families.laplace_tradeoff import laplace
from ..sampling import dpsgd
from . import curves as plot_curves
from .base import mathtext
from .comparison import compare as plot_compare
from .styles import PALETTE, STYLES, style

__all__ = [
    "FigureSpec", "new_figure", "draw_hypothesis_test", "draw_f_dp", "draw_f_eps_delta",
    "draw_gaussian_family", "draw_group_privacy", "draw_privacy_profiles",
    "draw_clt_randomized_response", "draw_composition_bounds", "draw_dpsgd", "draw", "draw_all",
    "DPI", "FIGURES",
]

#: Default resolution of the PNG files (pixels per inch).
DPI = 300
_COL = STYLES["paper-1col"]["figure.figsize"][0]  # one column of a two-column paper
_TEXT = STYLES["paper-2col"]["figure.figsize"][0]  # the text width
_SQUARE = (_COL, _COL)
_WIDE = (_TEXT, 3.4)
_BLUE, _RED, _GREEN, _PURPLE, _ORANGE, _SKY, _BLACK = PALETTE


@dataclass(frozen=True, slots=True)
class FigureSpec:
    """One figure of the notes: file stem, size in inches, title, drawing function and the
    :func:`gdp.plot.style` it is drawn in (one column or the text width of a paper)."""

    name: str
    figsize: tuple[float, float]
    title: str
    draw: Callable[..., None]
    style: str = "paper-1col"


def new_figure(figsize: tuple[float, float] = _SQUARE, dpi: int = DPI) -> Any:
    """A pyplot-free :class:`~matplotlib.figure.Figure` with constrained layout."""
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=dpi, layout="constrained")


def _check(cond: bool, claim: str) -> None:
    if not cond:
        raise RuntimeError(f"figure claim does not hold: {claim}")


# ----------------------------------------------------------------- 1: the test
def draw_hypothesis_test(fig: Any, *, quick: bool = False) -> None:
    r"""N(0,1) against N(μ,1): rejection region, type I and type II errors, and the point
    (α, β) of that test on the trade-off curve :math:`G_\mu`."""
    mu, t = 2.0, 1.3
    x = np.linspace(-3.8, 5.8, 400 if quick else 1200)
    p0 = np.exp(-0.5 * x**2) / math.sqrt(2 * math.pi)
    p1 = np.exp(-0.5 * (x - mu) ** 2) / math.sqrt(2 * math.pi)
    alpha = float(special.ndtr(-t))  # P0[X > t]
    beta = float(special.ndtr(t - mu))  # P1[X <= t]
    g = G_mu(mu)
    _check(abs(g(alpha) - beta) < 1e-12, "a threshold test is optimal (Neyman-Pearson)")

    ax, ax2 = fig.subplots(1, 2, width_ratios=[1.35, 1])
    ax.axvspan(t, x[-1], color="0.92", zorder=0)
    ax.text((t + x[-1]) / 2, 0.5, "rejection region\n" r"reject $H_0$ when $x > t$",
            ha="center", va="top", fontsize="small")
    ax.plot(x, p0, color=_BLUE, ls="-", label=r"$H_0$: $P = N(0, 1)$")
    ax.plot(x, p1, color=_RED, ls="--", label=rf"$H_1$: $Q = N({mu:g}, 1)$")
    r = x > t
    ax.fill_between(x[r], 0, p0[r], color=_BLUE, alpha=0.45, lw=0,
                    label=rf"type I error $\alpha = P[X>t] = {alpha:.3f}$")
    ax.fill_between(x[~r], 0, p1[~r], color=_RED, alpha=0.30, lw=0, hatch="////",
                    label=rf"type II error $\beta = Q[X\leq t] = {beta:.3f}$")
    ax.axvline(t, color="black", lw=0.9, ls=":")
    ax.text(t + 0.08, 0.6, r"threshold $t$", ha="left", va="top", fontsize="small")
    ax.grid(False)
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(0, 0.62)
    ax.set_xlabel("$x$")
    ax.set_ylabel("density")
    ax.set_title("Testing $H_0$ against $H_1$ with a threshold")
    ax.legend(loc="upper left")

    plot_curves.tradeoff(g, ax=ax2, n=401 if quick else 1001, legend=False, marker="")
    ax2.plot([alpha], [beta], "o", color="black", zorder=5, ms=4)
    ax2.annotate(rf"threshold $t={t:g}$" "\n" rf"$(\alpha, \beta) = ({alpha:.3f}, "
                 rf"{beta:.3f})$", xy=(alpha, beta), xytext=(0.4, 0.78),
                 arrowprops=dict(arrowstyle="->", lw=0.6), fontsize="small")
    ax2.text(0.35, 0.1, rf"$G_{{{mu:g}}} = T(N(0,1), N({mu:g},1))$", color=_BLUE)
    ax2.set_title("All thresholds: the trade-off curve")


# ------------------------------------------------------------------ 2: f-DP
def draw_f_dp(fig: Any, *, quick: bool = False) -> None:
    r"""A trade-off function f (solid), curves that lie above it (their mechanisms are f-DP)
    and one that crosses it (not f-DP)."""
    f = G_mu(1.0)
    above = [G_mu(0.5), laplace(0.7), f_eps_delta(0.5)]
    crossing = f_eps_delta(1.0)
    for g in above:
        _check(g.dominates(f), f"{g.label} >= {f.label}")
    _check(not crossing.dominates(f), f"{crossing.label} crosses {f.label}")
    n = 401 if quick else 1001
    ax = fig.subplots()
    plot_curves.tradeoff(f, ax=ax, n=n, labels=[rf"$f = {f.label}$"], color="black",
                         ls="-", marker="", lw=2.0, legend=False)
    for g, c in zip(above, (_BLUE, _GREEN, _PURPLE), strict=True):  # red: the crossing one
        plot_curves.tradeoff(g, ax=ax, n=n, diagonal=False, legend=False, color=c,
                             labels=[rf"{mathtext(g.label)} (above $f$: f-DP)"])
    plot_curves.tradeoff(crossing, ax=ax, n=n, diagonal=False, legend=False, color=_RED,
                         labels=[rf"{mathtext(crossing.label)} (crosses $f$: not f-DP)"])
    a = np.linspace(0, 1, 2001)
    below = crossing(a) < f(a) - 1e-9
    ax.fill_between(a, crossing(a), f(a), where=below, color=_RED, alpha=0.3, lw=0)
    i = int(np.argmax(np.where(below, f(a) - crossing(a), 0)))
    ax.annotate("below $f$", xy=(a[i], crossing(a[i])), xytext=(0.05, 0.08),
                arrowprops=dict(arrowstyle="->", lw=0.6), color=_RED, fontsize="small")
    ax.set_title("f-DP: the curve must stay above $f$")
    ax.legend(loc="upper right")


# ------------------------------------------------------------- 3: f_{eps,delta}
def draw_f_eps_delta(fig: Any, *, quick: bool = False) -> None:
    r""":math:`f_{\varepsilon,\delta} = \max\{0, 1-\delta-e^\varepsilon\alpha,
    e^{-\varepsilon}(1-\delta-\alpha)\}` with its three pieces annotated."""
    eps, delta = 1.0, 0.1
    f = f_eps_delta(eps, delta)
    e = math.exp(eps)
    a_star = (1 - delta) / (1 + e)
    _check(abs(f(a_star) - a_star) < 1e-12, "the kink lies on the line beta = alpha")
    ax = fig.subplots()
    plot_curves.tradeoff(f, ax=ax, n=401 if quick else 1001, legend=False, color="0.2", lw=0.6,
                         ls="-", marker="")
    a1 = np.linspace(0, a_star, 50)
    a2 = np.linspace(a_star, 1 - delta, 50)
    a3 = np.linspace(1 - delta, 1, 10)
    ax.plot(a1, 1 - delta - e * a1, color=_BLUE, lw=2.2, solid_capstyle="butt",
            label=r"$1-\delta-e^{\varepsilon}\alpha$")
    ax.plot(a2, np.exp(-eps) * (1 - delta - a2), color=_ORANGE, lw=2.2, ls=(0, (4, 1.5)),
            label=r"$e^{-\varepsilon}(1-\delta-\alpha)$")
    ax.plot(a3, 0 * a3, color=_GREEN, lw=3.0, ls=(0, (1.2, 1.0)), label="$0$", clip_on=False)
    ext = np.linspace(0, 1, 2)
    ax.plot(ext, 1 - delta - e * ext, color=_BLUE, lw=0.6, ls=":")
    ax.plot(ext, np.exp(-eps) * (1 - delta - ext), color=_ORANGE, lw=0.6, ls=":")
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.5, ls=":")
    ax.plot([0, a_star, 1 - delta], [1 - delta, a_star, 0], "o", color="black", ms=3.5,
            zorder=5, clip_on=False)
    ax.annotate(r"$(0,\ 1-\delta)$", xy=(0, 1 - delta), xytext=(0.05, 0.92),
                fontsize="small")
    ax.annotate(r"$\alpha^* = \beta^* = \frac{1-\delta}{1+e^{\varepsilon}}$",
                xy=(a_star, a_star), xytext=(a_star + 0.08, a_star + 0.12),
                arrowprops=dict(arrowstyle="->", lw=0.6))
    ax.annotate(r"$(1-\delta,\ 0)$", xy=(1 - delta, 0), xytext=(0.66, 0.08),
                fontsize="small", arrowprops=dict(arrowstyle="->", lw=0.6))
    ax.text(0.14, 0.55, r"slope $-e^{\varepsilon}$", color=_BLUE)
    ax.text(0.47, 0.19, r"slope $-e^{-\varepsilon}$", color=_ORANGE,
            rotation=-20, rotation_mode="anchor")
    ax.set_title(rf"$f_{{\varepsilon,\delta}}$, $\varepsilon={eps:g}$, "
                 rf"$\delta={delta:g}$: the max of three pieces")
    ax.legend(loc="upper right")


# ------------------------------------------------------------- 4: G_mu family
def draw_gaussian_family(fig: Any, *, quick: bool = False) -> None:
    r"""The Gaussian trade-off functions :math:`G_\mu` for μ = 0.5, 1, 2, 3."""
    mus = [0.5, 1.0, 2.0, 3.0]
    fs = [G_mu(m) for m in mus]
    for g, h in zip(fs, fs[1:], strict=False):
        _check(g.dominates(h), "G_mu decreases in mu")
    ax = fig.subplots()
    plot_curves.tradeoff(*fs, ax=ax, n=401 if quick else 1001)
    ax.annotate("", xy=(0.12, 0.12), xytext=(0.42, 0.42),
                arrowprops=dict(arrowstyle="->", lw=0.8, color="0.3"))
    ax.text(0.3, 0.24, r"larger $\mu$: less private", rotation=45, ha="center",
            va="center", fontsize="small", color="0.3")
    ax.set_title(r"$G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)$")


# ----------------------------------------------------------- 5: group privacy
def draw_group_privacy(fig: Any, *, quick: bool = False) -> None:
    r"""Group privacy :math:`1-(1-f_{\mu/k,0})^{\circ k}` approaching
    :math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))` as k grows (DRS Sec. 2.5).

    The curves for k = 5 and 10 lie within 0.02 of the limit, so the limit is drawn as a
    thin line on top of them, the middle panel magnifies the corner where they differ
    most, and the right panel shows the distance itself."""
    mu = 2.0
    ks = [1, 2, 3, 5, 10]
    lap = laplace(mu)
    curves = [f_eps_delta(mu / k).group(k) for k in ks]
    ax, zoom, ax2 = fig.subplots(1, 3)
    labels = [rf"$k={k}$: $1-(1-f_{{{mu / k:.3g},0}})^{{\circ {k}}}$" for k in ks]
    n = 401 if quick else 2001
    lap_label = rf"limit $T(\mathrm{{Lap}}(0,1), \mathrm{{Lap}}({mu:g},1))$"
    for a_ in (ax, zoom):
        plot_curves.tradeoff(*curves, ax=a_, n=n, labels=labels, legend=False,
                             diagonal=a_ is ax)
        plot_curves.tradeoff(lap, ax=a_, n=n, diagonal=False, color="black", ls="-",
                             marker="", lw=0.7, zorder=8, labels=[lap_label], legend=False)
    box = (0.06, 0.13, 0.16, 0.22)  # x, y, width, height of the magnified corner
    zoom.set(xlim=(box[0], box[0] + box[2]), ylim=(box[1], box[1] + box[3]), ylabel="")
    ax.indicate_inset(box, inset_ax=zoom, edgecolor="0.35", lw=0.6)
    ax.set_title(rf"Group privacy, $\varepsilon = \mu/k$, $\mu = {mu:g}$")
    zoom.set_title("the corner, magnified")
    handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=4, frameon=False,
               handlelength=3.0)

    a = np.linspace(0, 1, 2001 if quick else 20001)
    kk = np.unique(np.geomspace(1, 50 if quick else 200, 12 if quick else 25).round()
                   ).astype(int)
    err = np.array([np.max(np.abs(f_eps_delta(mu / k).group(int(k))(a) - lap(a)))
                    for k in kk])
    _check(bool(np.all(np.diff(err) < 0)), "the distance to the Laplace curve decreases in k")
    ax2.loglog(kk, err, "o-", color=_BLUE, ms=3, mfc="white", label="computed")
    ax2.loglog(kk, err[-1] * (kk / kk[-1]) ** -2.0, ls=(0, (4, 2)), color="0.4",
               label=r"reference slope $k^{-2}$")
    ax2.set_box_aspect(1)
    ax2.yaxis.set_label_position("right")
    ax2.yaxis.tick_right()
    ax2.set_xlabel("group size $k$")
    ax2.set_ylabel(r"$\max_\alpha\,|\mathrm{group}_k(\alpha) - T_{\mathrm{Lap}}(\alpha)|$")
    ax2.grid(True, which="both", lw=0.3, alpha=0.4)
    ax2.legend(loc="upper right")
    ax2.set_title("Distance to the Laplace limit")


# -------------------------------------------------------- 6: privacy profiles
def draw_privacy_profiles(fig: Any, *, quick: bool = False) -> None:
    r"""μ-GDP privacy profiles :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu+\mu/2)
    - e^{\varepsilon}\Phi(-\varepsilon/\mu-\mu/2)` (DRS Cor. 2.13)."""
    mus = [0.5, 1.0, 2.0, 3.0]
    fs = [G_mu(m) for m in mus]
    eps = np.linspace(0, 18, 241 if quick else 721)
    ax = fig.subplots()
    plot_curves.privacy_profile(*fs, eps=eps, ax=ax, delta_min=1e-12)
    d0 = 1e-5
    ax.axhline(d0, color="0.5", lw=0.6, ls=":")
    ax.text(8.0, d0 / 1.6, r"$\delta = 10^{-5}$", ha="center", va="top", fontsize="small",
            color="0.35")
    for m, line in zip(mus, ax.get_lines(), strict=False):
        e0 = float(eps_from_mu(m, d0))
        _check(abs(float(G_mu(m).delta(e0)) / d0 - 1) < 1e-6, "eps_from_mu inverts delta")
        ax.plot([e0], [d0], "o", color=line.get_color(), ms=3.5, zorder=6)
        right = e0 > 0.75 * eps[-1]
        ax.annotate(rf"$\varepsilon = {e0:.2f}$", xy=(e0, d0),
                    xytext=(-5, -5) if right else (3, 5), textcoords="offset points",
                    fontsize="x-small", color=line.get_color(),
                    ha="right" if right else "left", va="top" if right else "baseline")
    ax.set_box_aspect(1)
    ax.set_title(r"$\mu$-GDP as $(\varepsilon, \delta(\varepsilon))$-DP")


# ------------------------------------------------- 7: CLT for randomized response
def draw_clt_randomized_response(fig: Any, *, quick: bool = False) -> None:
    r"""k-fold :math:`f_{\varepsilon,0}^{\otimes k}` (exact) against its CLT Gaussian
    :math:`G_\mu`, the Berry–Esseen band (DRS Thm 3.4) and the Edgeworth approximation,
    for k = 10 and k = 100."""
    settings = [(10, 0.3), (100, 0.1)]
    axes = fig.subplots(1, 2)
    for ax, (k, eps) in zip(axes, settings, strict=True):
        f = f_eps_delta(eps)
        exact = f**k
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            res = clt(f, k)
            _, data = plot_curves.clt([f] * k, ax=ax, exact=exact, edgeworth=True,
                                      n=401 if quick else 1001, return_data=True)
        a = data.x
        inner = (a >= res.gamma) & (a <= 1 - res.gamma)
        ex = data.columns["exact"][inner]
        _check(bool(np.all(data.columns["Berry-Esseen lower"][inner] <= ex + 1e-9)
                    and np.all(ex <= data.columns["Berry-Esseen upper"][inner] + 1e-9)),
               "the Berry-Esseen band contains the exact composition")
        # the title names the composition; gamma is in the legend (same digits as there)
        ax.set_title(rf"$f_{{{eps:g},0}}^{{\otimes {k}}}$: exact vs CLT")
        ax.legend(loc="upper right")


# --------------------------------------------------- 8: composition bounds
def draw_composition_bounds(fig: Any, *, quick: bool = False) -> None:
    r"""ε at δ = 1e-5 of the k-fold composition of :math:`f_{\varepsilon_0,0}` by the
    basic, advanced, KOV, RDP, CLT and exact accountants as k grows, and each method's ε
    relative to the exact one (log scale: nothing is cut off).

    Optimal KOV is exact for :math:`f_{\varepsilon_0,0}`, so its line lies on the exact
    one: the exact line is drawn wide and black underneath, KOV dashed inside it."""
    eps0, delta = 0.1, 1e-5
    ks = np.unique(np.geomspace(1, 1000 if quick else 10_000, 7 if quick else 17).round())
    curves = epsilon_vs_k(f_eps_delta(eps0), ks.astype(int), delta=delta)
    cols = dict(curves.columns)
    ref = np.asarray(cols.get("exact", np.full(ks.shape, np.nan)), dtype=float)
    if not np.all(np.isfinite(ref)):
        ref = np.asarray(cols["kov"], dtype=float)  # optimal KOV is exact for f_{eps,0}
    _check(curves.kinds.get("kov") == "exact", "optimal KOV is exact for f_{eps,0}")
    for m, v in cols.items():
        if curves.kinds.get(m) in ("bound", "exact"):
            _check(bool(np.all(np.asarray(v)[np.isfinite(v)] >= ref[np.isfinite(v)]
                               * (1 - 1e-6))), f"{m} is never below the exact epsilon")
    ax, ax2 = fig.subplots(1, 2)
    plot_compare(curves, ax=ax, legend=False)
    ax.set_title(rf"$k$-fold $f_{{{eps0:g},0}}$: $\varepsilon$ at $\delta = 10^{{-5}}$")
    ax.set_box_aspect(1)
    ratio = {"k": ks, **{m: np.asarray(v) / ref for m, v in cols.items()}}
    plot_compare(ratio, ax=ax2, legend=False, ylabel=r"$\varepsilon$ / exact $\varepsilon$")
    top = max(float(np.max(v[np.isfinite(v)])) for m, v in ratio.items() if m != "k")
    ax2.set_ylim(0.9, 1.2 * top)  # every method in full: nothing cut off
    from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullFormatter

    ax2.yaxis.set_major_locator(FixedLocator([t for t in (1, 1.5, 2, 3, 5, 10, 20, 50, 100)
                                              if t <= 1.2 * top]))
    ax2.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax2.yaxis.set_minor_formatter(NullFormatter())
    ax2.axhline(1.0, color="0.5", lw=0.5)
    ax2.set_title("relative to the exact value (lower is tighter)")
    ax2.set_box_aspect(1)
    handles, labels = ax.get_legend_handles_labels()
    labels = [lb + " (= exact here)" if lb.startswith("Optimal (KOV") else lb for lb in labels]
    fig.legend(handles, labels, loc="outside lower center", ncols=4, frameon=False,
               handlelength=3.0)


# ----------------------------------------------------------------- 9: DP-SGD
def draw_dpsgd(fig: Any, *, quick: bool = False) -> None:
    r"""A DP-SGD run (Poisson-subsampled Gaussian, composed over the steps): the exact
    trade-off curve against the CLT :math:`G_\mu` of BDLS where they differ (the best
    test's power relative to chance, :math:`(1 - f(\alpha))/\alpha`, at small α) and the
    privacy profiles.

    On a linear α axis the two curves coincide to the eye (within 2e-3); at α = 1e-10 the
    exact curve allows a test 20 % more powerful than the CLT says.

    The run is the MNIST setting of BDLS: 60,000 examples, batch 256, 15 epochs, noise
    multiplier 1.1 (``quick``: 2 epochs)."""
    n, batch, epochs, sigma, delta = 60_000, 256, 2 if quick else 15, 1.1, 1e-5
    p = batch / n
    steps = math.ceil(epochs / p)
    h = dpsgd(sigma=sigma, p=p, steps=steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        mu = float(noisy_sgd_mu(sigma, p, steps))
    g = G_mu(mu)
    eps_exact, eps_clt = float(h.epsilon(delta)), float(g.epsilon(delta))
    lo, hi = (float(v) for v in h.epsilon_bounds(delta))
    _check(lo <= eps_exact <= hi * (1 + 1e-12), "the sound epsilon lies in its bracket")
    labels = ["exact (sound)", rf"CLT $G_{{{mu:.3f}}}$ (approximation)"]
    looks = [dict(color="black", ls="-", marker=""),
             dict(color=_ORANGE, ls=(0, (5, 2)), marker="s")]
    ax, ax2 = fig.subplots(1, 2)
    a = np.geomspace(1e-10, 1.0, 201 if quick else 601)
    data = plot_curves.curve_data(h, g, alpha=a, labels=labels)
    for (name, beta), look in zip(
            ((k, v) for k, v in data.columns.items() if k in labels), looks, strict=True):
        power = np.asarray(1.0 - beta) / a
        _check(bool(np.all(np.isfinite(power))), "the power of a test is finite")
        ax.plot(a, power, label=name, markevery=(0.05, 0.12), mfc="white", ms=3.5, **look)
    tail = a <= 1e-2
    _check(bool(np.all(1.0 - h(a[tail]) >= (1.0 - g(a[tail])) * (1 - 1e-9))),
           "the CLT under-states the power of the best test at every alpha <= 0.01")
    ax.set_xscale("log")
    ax.set_xlim(a[0], 1.0)
    ax.set_ylim(1.0, None)
    ax.set_xlabel(r"Type I error $\alpha$ (false-positive rate)")
    ax.set_ylabel(r"$(1 - f(\alpha))/\alpha$ (true/false-positive rate)")
    ax.legend(loc="upper right")
    ax.set_box_aspect(1)
    ax.set_title(rf"DP-SGD: $\sigma = {sigma:g}$, $p = {batch}/{n}$, $T = {steps}$")
    eps = np.linspace(0.0, 2.0 * max(eps_exact, eps_clt), 161 if quick else 401)
    plot_curves.privacy_profile(h, ax=ax2, eps=eps, labels=labels[:1], delta_min=1e-10,
                                legend=False, **looks[0])
    plot_curves.privacy_profile(g, ax=ax2, eps=eps, labels=labels[1:], delta_min=1e-10,
                                legend=False, **looks[1])
    ax2.axhline(delta, color="0.5", lw=0.6, ls=":")
    for e0, c in ((eps_exact, "black"), (eps_clt, _ORANGE)):
        ax2.plot([e0], [delta], "o", color=c, ms=3.5, zorder=5)
    ax2.set_box_aspect(1)
    ax2.set_title(r"privacy profiles $\delta(\varepsilon)$")
    ax2.legend(loc="upper right")
    ax2.text(0.04, 0.04, rf"$\varepsilon$ at $\delta = 10^{{-5}}$:" "\n"
             rf"exact {eps_exact:.3f} (bracket [{lo:.4f}, {hi:.4f}])" "\n"
             rf"CLT {eps_clt:.3f} (approximation)", transform=ax2.transAxes,
             fontsize="small", va="bottom", bbox=dict(boxstyle="round", fc="white", ec="0.7"))


#: The figures of the notes, in order: what ``gdp figures`` draws.
FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("01_hypothesis_test", (_TEXT, 3.0), "Two-Gaussian hypothesis test",
               draw_hypothesis_test, "paper-2col"),
    FigureSpec("02_f_dp", _SQUARE, "f-DP: curves above and crossing f", draw_f_dp),
    FigureSpec("03_f_eps_delta", _SQUARE, "f_{eps,delta} and its three pieces",
               draw_f_eps_delta),
    FigureSpec("04_gaussian_family", _SQUARE, "The G_mu family", draw_gaussian_family),
    FigureSpec("05_group_privacy", (_TEXT, 3.3), "Group privacy approaching the Laplace curve",
               draw_group_privacy, "paper-2col"),
    FigureSpec("06_privacy_profiles", _SQUARE, "mu-GDP privacy profiles",
               draw_privacy_profiles),
    FigureSpec("07_clt_randomized_response", _WIDE, "Composition of f_{eps,0} vs the CLT",
               draw_clt_randomized_response, "paper-2col"),
    FigureSpec("08_composition_bounds", (_TEXT, 4.2), "Composition bounds compared",
               draw_composition_bounds, "paper-2col"),
    FigureSpec("09_dpsgd", _WIDE, "DP-SGD: exact curve vs CLT", draw_dpsgd, "paper-2col"),
)


def _spec(name: str) -> FigureSpec:
    for s in FIGURES:
        if name in (s.name, s.name.split("_", 1)[1]):
            return s
    raise ValueError(f"`name` must be one of {', '.join(s.name for s in FIGURES)}; "
                     f"got name={name!r}")


def draw(name: str, out: str | Path = "figures", *, quick: bool = False,
         formats: Sequence[str] = ("png", "pdf"), dpi: int = DPI) -> list[Path]:
    """Draw one figure (by file stem, e.g. ``"04_gaussian_family"`` or
    ``"gaussian_family"``) into ``out``; return the paths written."""
    spec = _spec(name)
    dpi = check_int("dpi", dpi, lo=20, hi=1200)
    formats = [str(f).lower() for f in formats]
    for fmt in formats:
        if fmt not in ("png", "pdf", "svg"):
            raise ValueError(f"`formats` entries must be png, pdf or svg; got {fmt!r}")
    out = Path(out)
    paths = []
    with style(spec.style):  # sizes, fonts, Type 42 (read again when saving)
        fig = new_figure(spec.figsize, dpi)
        spec.draw(fig, quick=quick)
        out.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            p = out / f"{spec.name}.{fmt}"
            meta = {"CreationDate": None} if fmt == "pdf" else {"Software": None}
            if fmt == "svg":
                meta = {"Date": None}
            fig.savefig(p, dpi=dpi, metadata=meta)
            paths.append(p)
    return paths


def draw_all(out: str | Path = "figures", *, quick: bool = False,
             formats: Sequence[str] = ("png", "pdf"), dpi: int = DPI,
             names: Sequence[str] | None = None,
             progress: ProgressCallback | None = None,
             keep_going: bool = True) -> tuple[list[Path], dict[str, str]]:
    """Draw every figure (or ``names``) into ``out``.

    Returns the paths written and a dict ``{figure: error message}`` of the figures that
    could not be drawn (e.g. a missing part of the toolkit). With ``keep_going=False`` the
    first error is raised instead. ``progress(fraction, message)`` is called before each
    figure and at the end (see :mod:`gdp._progress`).
    """
    specs = list(FIGURES) if names is None else [_spec(n) for n in names]
    prog = as_progress(progress)
    written: list[Path] = []
    failed: dict[str, str] = {}
    for i, spec in enumerate(specs, 1):
        prog((i - 1) / len(specs), f"[{i}/{len(specs)}] {spec.name}: {spec.title}")
        try:
            written += draw(spec.name, out, quick=quick, formats=formats, dpi=dpi)
        except RuntimeError as exc:
            if not keep_going:
                raise
            failed[spec.name] = str(exc)
    prog.done(f"{len(specs) - len(failed)} of {len(specs)} figure(s) drawn")
    return written, failed
