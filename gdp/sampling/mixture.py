r"""Pairs of shift mixtures: the exact one-step laws behind replace-one, user-level and
mixture-of-Gaussians accounting.

Theory of operation
-------------------
Let :math:`K` be the standard Gaussian or the standard Laplace density on the real line and

.. math:: P = \sum_j v_j K(x - r_j), \qquad Q = \sum_i w_i K(x - s_i)

with non-negative weights summing to one. When every Q-shift is at least every P-shift,
:math:`\min_i s_i \ge \max_j r_j`, the likelihood ratio :math:`Q/P` is non-decreasing in
:math:`x`: :math:`\tfrac{d}{dx}\log(Q/P) = E_{Q_x}[\partial\log K(x - s)] - E_{P_x}[\partial
\log K(x - r)]` (posterior means over the components) and :math:`\partial \log K(x - s)` is
non-decreasing in :math:`s` for both kernels. So the privacy loss :math:`L(x) = \log Q(x)/P(x)`
is a monotone function of one real variable and every question is one about intervals of
:math:`x`: with :math:`X(t) = \sup\{x : L(x) \le t\}`,

.. math:: P[L > t] = \sum_j v_j \bar K(X(t) - r_j), \qquad
          Q[L > t] = \sum_i w_i \bar K(X(t) - s_i),

the Neyman–Pearson tests are the half-lines :math:`\{x > c\}`, and the cells of losses
:math:`(t_a, t_b]` the numeric engine asks for are the intervals :math:`(X(t_a), X(t_b)]`
(:class:`ShiftMixtureLaw`). The Laplace kernel makes :math:`L` constant beyond the outermost
shifts: those two half-lines are atoms of the loss law, the interior is continuous.

:math:`X(t)` is found by Chandrupatla's method (:func:`gdp._numerics.find_root_bracket`)
started from a bracket read off a table of :math:`L`; the final bracket
:math:`[x_l, x_r]` is kept and the masses of the slivers :math:`(x_l, x_r]` at both ends of
a cell are added to its error bound, so the engine charges them to the safe side. The loss
itself is a difference of two log-sum-exps, accurate to :math:`\eta \approx 8\epsilon_{\rm
mach}(1 + x^2 + \max|{\rm shift}|^2)` absolute; mass whose loss lies within :math:`\eta` of a
cell edge may be put in the neighbouring cell, i.e. a loss error of at most :math:`\eta`
(~1e-13 at :math:`|x| = 40`), which is not charged. The curve :math:`f(\alpha)` takes the
test threshold at the lower end of its root bracket, so its type I error is at least
:math:`\alpha` and the value returned is never above the curve.

The pairs that this module serves (constructed in :mod:`gdp.sampling.neighbours`,
:mod:`gdp.sampling.group` and here):

* Poisson subsampling, add/remove: :math:`P = N(0,1)`, :math:`Q = (1-p)N(0,1) + pN(\mu,1)`;
* replace-one with Poisson rate :math:`p`: :math:`P = (1-p)K + pK(\cdot + \mu)`,
  :math:`Q = (1-p)K + pK(\cdot - \mu)` (symmetric);
* a group of :math:`k` examples, each sampled with probability :math:`p`:
  :math:`Q = \sum_j \binom kj p^j(1-p)^{k-j} N(j\mu, 1)`;
* the mixture-of-Gaussians mechanism of amplified banded matrix factorisation
  (:func:`mixture_gaussian`): :math:`Q = \sum_i p_i N(c_i/\sigma, 1)`.

The inverse :math:`T(Q, P)` is the reflected pair (:math:`x \mapsto -x` swaps the roles and
keeps the ordering of the shifts).

References
----------
Zhu, Dong, Wang, "Optimal Accounting of Differential Privacy via Characteristic Function",
AISTATS 2022 (dominating pairs). Choquette-Choo, Ganesh, Steinke, Thakurta, "Privacy
Amplification for Matrix Mechanisms", ICLR 2024 (the mixture-of-Gaussians mechanism).
Chandrupatla, Adv. Eng. Software 28 (1997).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.engine`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import special

from .._numerics import EPS, find_root_bracket
from .._validation import (
    as_real_array,
    check_choice,
    check_instance,
    check_real,
    check_str,
)
from ..core.tradeoff import TradeOff
from ..engine.laws import Law, norm_cells

__all__ = ["ShiftMixture", "ShiftMixtureLaw", "mixture_gaussian"]

_KERNELS = ("gauss", "laplace")
_R_GAUSS = 40.0  # |x - shift| beyond which Gaussian masses are below 1e-300


# ---------------------------------------------------------------------------
# kernels: log density, log survival, cell masses, quantiles
# ---------------------------------------------------------------------------
def _log_k(kernel: str, z: np.ndarray) -> np.ndarray:
    """log K(z) up to an additive constant (it cancels in the loss)."""
    return -0.5 * z * z if kernel == "gauss" else -np.abs(z)


def _log_sf(kernel: str, z: np.ndarray) -> np.ndarray:
    """log P[Z > z] for the standard kernel."""
    if kernel == "gauss":
        return special.log_ndtr(-z)
    with np.errstate(all="ignore"):
        return np.where(z >= 0, -z - math.log(2.0), np.log1p(-0.5 * np.exp(np.minimum(z, 0))))


def _laplace_cells(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standard Laplace masses of the cells (z_i, z_{i+1}], differences on the short side."""
    with np.errstate(all="ignore"):
        sf = np.where(z >= 0, 0.5 * np.exp(-np.abs(z)), 1.0 - 0.5 * np.exp(-np.abs(z)))
        cdf = np.where(z < 0, 0.5 * np.exp(-np.abs(z)), 1.0 - 0.5 * np.exp(-np.abs(z)))
    up = z[:-1] >= 0
    mass = np.where(up, sf[:-1] - sf[1:], cdf[1:] - cdf[:-1])
    err = 4.0 * EPS * (np.where(up, sf[:-1] + sf[1:], cdf[1:] + cdf[:-1]) + np.abs(mass))
    return np.maximum(mass, 0.0), err


def _cells(kernel: str, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return norm_cells(z) if kernel == "gauss" else _laplace_cells(z)


def _isf(kernel: str, tol: float) -> float:
    """z with P[Z > z] = tol (tol < 1/2)."""
    return -float(special.ndtri(tol)) if kernel == "gauss" else -math.log(2.0 * tol)


def _root_bracket(fn, lo, hi, target):
    """The final root bracket of ``fn(x, target)`` on ``[lo, hi]``; the search stops at an
    exact zero, and then that end is the root (the bracket collapses onto it)."""
    xl, xr, fl, fr = find_root_bracket(fn, lo, hi, args=(target,))
    xl, xr = np.where(fr == 0, xr, xl), np.where(fl == 0, xl, xr)
    fl, fr = np.where(fr == 0, fr, fl), np.where(fl == 0, fl, fr)
    return xl, xr, fl, fr


# ---------------------------------------------------------------------------
# the pair
# ---------------------------------------------------------------------------
def _components(wname: str, sname: str, weights: Any, shifts: Any, *,
                shift_lo: float | None = None, max_ndim: int | None = None
                ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Weights (a pmf) and shifts of one mixture, checked under the caller's argument names,
    zero weights dropped, sorted by shift."""
    w = as_real_array(wname, weights, lo=0.0, max_ndim=max_ndim).reshape(-1)
    s = as_real_array(sname, shifts, lo=shift_lo, max_ndim=max_ndim).reshape(-1)
    if w.size == 0 or w.size != s.size:
        raise ValueError(f"`{wname}` and `{sname}` must be non-empty and of the same length; "
                         f"got {w.size} and {s.size}")
    tot = math.fsum(w)
    if not abs(tot - 1.0) <= 1e-12:
        raise ValueError(f"`{wname}` must sum to 1; got sum={tot!r}")
    keep = w > 0
    order = np.argsort(s[keep], kind="stable")
    return tuple(float(x) for x in w[keep][order]), tuple(float(x) for x in s[keep][order])


@dataclass(frozen=True, slots=True)
class ShiftMixture(TradeOff):
    r""":math:`T(P, Q)` for :math:`P = \sum_j v_j K(x - r_j)`, :math:`Q = \sum_i w_i
    K(x - s_i)` with :math:`\min_i s_i \ge \max_j r_j` (module docstring); ``kernel`` is
    ``"gauss"`` (standard normal) or ``"laplace"`` (standard Laplace).

    Exact hooks (profile, loss law, curve, inverse) and an exact :class:`ShiftMixtureLaw`
    for the numeric engine. Construct through :func:`mixture_gaussian`,
    :func:`gdp.sampling.neighbours.replace_one_gaussian`, ... or directly.

    Examples
    --------
    >>> from gdp.sampling.mixture import ShiftMixture
    >>> f = ShiftMixture((1.0,), (0.0,), (0.9, 0.1), (0.0, 1.0))   # Poisson p=0.1, sigma=1
    >>> import gdp
    >>> abs(f(0.2) - gdp.poisson_subsample(gdp.G_mu(1.0), 0.1)(0.2)) < 1e-12
    True
    """

    p_weights: tuple[float, ...]
    p_shifts: tuple[float, ...]
    q_weights: tuple[float, ...]
    q_shifts: tuple[float, ...]
    kernel: str = "gauss"
    name: str = "mixture"
    #: the pair is one order of a neighbouring relation whose other order is the swapped
    #: pair: delta/epsilon answer with the larger of the two profiles
    one_order: ClassVar[bool] = True

    def __post_init__(self):
        check_choice("kernel", self.kernel, _KERNELS)
        check_str("name", self.name)
        v, r = _components("p_weights", "p_shifts", self.p_weights, self.p_shifts)
        w, s = _components("q_weights", "q_shifts", self.q_weights, self.q_shifts)
        if s[0] < r[-1]:
            raise ValueError(f"`p_shifts` and `q_shifts` must be ordered, min(q_shifts) >= "
                             f"max(p_shifts) "
                             f"(monotone likelihood ratio); got min(q_shifts)={s[0]!r}, "
                             f"max(p_shifts)={r[-1]!r}")
        for k, val in (("p_weights", v), ("p_shifts", r), ("q_weights", w), ("q_shifts", s)):
            object.__setattr__(self, k, val)

    # ------------------------------------------------------------ structure
    @property
    def is_symmetric(self) -> bool:  # type: ignore[override]
        mirror = sorted(zip((-x for x in self.p_shifts), self.p_weights, strict=True))
        return mirror == sorted(zip(self.q_shifts, self.q_weights, strict=True))

    @property
    def label(self) -> str:
        return self.name

    def _arrays(self):
        return (np.array(self.p_weights), np.array(self.p_shifts), np.array(self.q_weights),
                np.array(self.q_shifts))

    @property
    def _span(self) -> tuple[float, float]:
        """The x-range on which the loss is computed: beyond it the Gaussian masses are
        below 1e-300, and the Laplace loss is constant (atoms)."""
        lo = min(self.p_shifts[0], self.q_shifts[0])
        hi = max(self.p_shifts[-1], self.q_shifts[-1])
        if self.kernel == "gauss":
            return lo - _R_GAUSS, hi + _R_GAUSS
        return lo, hi

    def _loss(self, x: np.ndarray) -> np.ndarray:
        v, r, w, s = self._arrays()
        x = np.asarray(x, dtype=float)[..., None]
        with np.errstate(divide="ignore"):
            lq = special.logsumexp(np.log(w) + _log_k(self.kernel, x - s), axis=-1)
            lp = special.logsumexp(np.log(v) + _log_k(self.kernel, x - r), axis=-1)
        return lq - lp

    def _x_bracket(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""A bracket :math:`[x_l, x_r]` of :math:`X(t) = \sup\{x: L(x) \le t\}` per entry
        (``±inf`` when ``t`` is beyond the range of the loss on the span)."""
        t = np.asarray(t, dtype=float).reshape(-1)
        a, b = self._span
        grid = np.linspace(a, b, 2049)
        lg = self._loss(grid)
        lg = np.maximum.accumulate(lg)  # monotone up to rounding
        xl = np.full(t.shape, -np.inf)
        xr = np.full(t.shape, np.inf)
        below = t < lg[0]
        above = t >= lg[-1]
        xr[below] = -np.inf
        xl[above] = np.inf
        mid = ~(below | above) & np.isfinite(t)
        if mid.any():
            tm = t[mid]
            k = np.clip(np.searchsorted(lg, tm, side="right"), 1, grid.size - 1)
            lo, hi = grid[k - 1], grid[k]
            flat = lg[k] <= tm  # numerically flat top piece: the right end is the answer
            xl_, xr_, _, _ = _root_bracket(lambda x, tt: self._loss(x) - tt, lo, hi, tm)
            xl[mid] = np.where(flat, hi, np.minimum(xl_, xr_))
            xr[mid] = np.where(flat, hi, np.maximum(xl_, xr_))
        return xl, xr

    def _sf(self, x: np.ndarray, which: str) -> np.ndarray:
        v, r, w, s = self._arrays()
        wt, sh = (v, r) if which == "p" else (w, s)
        x = np.asarray(x, dtype=float)[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.exp(special.logsumexp(np.log(wt) + _log_sf(self.kernel, x - sh), axis=-1))
        return np.where(np.isposinf(x[..., 0]), 0.0, np.where(np.isneginf(x[..., 0]), 1.0, out))

    # ---------------------------------------------------------------- hooks
    def _loss_sf(self, t):
        t = np.asarray(t, dtype=float)
        _, xr = self._x_bracket(t)
        return self._sf(xr, "p").reshape(t.shape)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        _, xr = self._x_bracket(t)
        return self._sf(xr, "q").reshape(t.shape)

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        xl, xr = self._x_bracket(eps)
        # the supremum is attained at {x > X(eps)}; any threshold gives a lower value, so
        # take the larger of the two ends of the bracket (they differ by ~1 ulp)
        e = eps.reshape(-1)
        with np.errstate(all="ignore"):
            vals = [self._sf(x, "q") - np.exp(e) * self._sf(x, "p") for x in (xl, xr)]
        out = np.where(np.isposinf(e), 0.0, np.maximum(vals[0], vals[1]))
        return np.clip(out, 0.0, 1.0).reshape(eps.shape)

    def _threshold(self, alpha: np.ndarray) -> np.ndarray:
        """A threshold c with P[X > c] >= alpha (the lower end of the root bracket)."""
        v, r, _, _ = self._arrays()
        a = np.asarray(alpha, dtype=float).reshape(-1)
        out = np.full(a.shape, np.inf)
        out[a >= 1.0] = -np.inf
        need = (a > 0) & (a < 1)
        if need.any():
            an = a[need]
            if self.kernel == "gauss":
                z = -special.ndtri(an)
            else:
                z = np.where(an < 0.5, -np.log(2.0 * an), np.log(2.0 * (1.0 - an)))
            lo, hi = r[0] + z, r[-1] + z
            if r[0] == r[-1]:  # one kernel: the closed form, a few ulps to the safe side
                out[need] = lo - 4 * EPS * (1 + np.abs(lo))
            else:
                la = np.log(an)

                def fn(x, tgt):
                    lsf = special.logsumexp(np.log(v) + _log_sf(self.kernel, x[..., None] - r),
                                            axis=-1)
                    return lsf - tgt

                xl, xr, fl, fr = _root_bracket(fn, lo - 1e-9, hi + 1e-9, la)
                out[need] = np.where(fl >= 0, xl, np.where(fr >= 0, xr, np.minimum(xl, xr)))
        return out.reshape(np.shape(alpha))

    def _f(self, alpha):
        c = self._threshold(alpha)
        return 1.0 - self._sf(c, "q")

    def _one_minus_f(self, alpha):
        return self._sf(self._threshold(alpha), "q")

    def _inverse(self) -> TradeOff:
        return ShiftMixture(self.q_weights, tuple(-x for x in self.q_shifts), self.p_weights,
                            tuple(-x for x in self.p_shifts), kernel=self.kernel,
                            name=_inv_name(self.name))

    def _pld_law(self) -> Law:
        return ShiftMixtureLaw(self)


def _inv_name(name: str) -> str:
    return name[1:-len("}^{-1}")] if name.startswith("{") and name.endswith("}^{-1}") \
        else "{" + name + "}^{-1}"


class ShiftMixtureLaw(Law):
    r"""The exact privacy-loss law of a :class:`ShiftMixture` (module docstring): cells of
    losses are intervals of :math:`x`, with the slivers of the root brackets charged to the
    error bounds; the Laplace kernel adds the two atoms beyond the outermost shifts."""

    def __init__(self, f: ShiftMixture):
        self.f = check_instance("f", f, ShiftMixture, "a ShiftMixture")
        self.q_inf = 0.0
        self.p_ninf = 0.0

    def _masses(self, x: np.ndarray, which: str) -> tuple[np.ndarray, np.ndarray]:
        v, r, w, s = self.f._arrays()
        wt, sh = (v, r) if which == "p" else (w, s)
        m = np.zeros(x.size - 1)
        e = np.zeros(x.size - 1)
        for wi, si in zip(wt, sh, strict=True):
            mi, ei = _cells(self.f.kernel, x - si)
            m += wi * mi
            e += wi * ei
        return m, e + 4 * EPS * m

    def cells(self, edges):
        e = np.asarray(edges, dtype=float)
        xl, xr = self.f._x_bracket(e)
        a, b = self.f._span
        if self.f.kernel == "laplace":  # the outer half-lines are atoms, not cells
            xl, xr = np.clip(xl, a, b), np.clip(xr, a, b)
        x = 0.5 * (xl + xr)
        x = np.where(xl == xr, xl, x)
        P, ep = self._masses(x, "p")
        Q, eq = self._masses(x, "q")
        # slivers (x_l, x_r] of every edge may belong to either neighbouring cell
        sp = np.zeros(e.size)
        sq = np.zeros(e.size)
        wide = (xr > xl) & np.isfinite(xl) & np.isfinite(xr)
        if wide.any():
            i = np.flatnonzero(wide)
            for out, which in ((sp, "p"), (sq, "q")):
                pts = np.empty(2 * i.size)
                pts[0::2], pts[1::2] = xl[i], xr[i]
                m, err = self._masses(pts, which)
                out[i] = m[0::2] + err[0::2]
        return P, Q, ep + sp[:-1] + sp[1:], eq + sq[:-1] + sq[1:]

    def atoms(self):
        if self.f.kernel != "laplace":
            return super().atoms()
        a, b = self.f._span
        lo_loss, hi_loss = (float(v) for v in self.f._loss(np.array([a, b])))
        pa = 1.0 - self.f._sf(np.array([a]), "p")
        qa = 1.0 - self.f._sf(np.array([a]), "q")
        pb, qb = self.f._sf(np.array([b]), "p"), self.f._sf(np.array([b]), "q")
        return (np.array([lo_loss, hi_loss]), np.array([pa[0], pb[0]]),
                np.array([qa[0], qb[0]]))

    def quantiles(self, tol):
        f = self.f
        z = _isf(f.kernel, min(tol, 0.25))
        xs = np.array([f.q_shifts[0] - z, f.q_shifts[-1] + z, f.p_shifts[0] - z,
                       f.p_shifts[-1] + z])
        a, b = f._span
        ls = f._loss(np.clip(xs, a, b))
        return float(ls[0]), float(ls[1]), float(ls[2]), float(ls[3])


# ---------------------------------------------------------------------------
# the mixture-of-Gaussians mechanism
# ---------------------------------------------------------------------------
def mixture_gaussian(sigma: float, sensitivities: Sequence[float],
                     probs: Sequence[float]) -> ShiftMixture:
    r"""The mixture-of-Gaussians mechanism: Gaussian noise of standard deviation σ added to
    a query whose sensitivity is :math:`c_i` with probability :math:`p_i`.

    Returns the "remove" curve :math:`T(N(0,\sigma^2), \sum_i p_i N(c_i, \sigma^2))`; the
    "add" order is its :meth:`~gdp.TradeOff.inverse`. Under add/remove neighbours compose
    steps with :func:`gdp.compose_two_orders` (each order separately, symmetrised at the
    end); one step alone is :math:`\min\{f, f^{-1}\}^{**}`-DP.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    sensitivities : sequence of float
        The support :math:`c_i \ge 0` of the sensitivity.
    probs : sequence of float
        Its probabilities :math:`p_i` (non-negative, summing to 1).

    Notes
    -----
    This is the building block of amplified banded matrix factorisation (DP-FTRL with
    cyclic Poisson sampling): Choquette-Choo, Ganesh, Steinke, Thakurta (ICLR 2024,
    Cor. 4.7) reduce the vector-valued mechanism to it; dp-accounting's
    ``MixtureOfGaussiansDpEvent`` is the same pair. ``sensitivities=[0, 1]``,
    ``probs=[1-p, p]`` is one DP-SGD step (:func:`gdp.poisson_subsample` of
    :math:`G_{1/\sigma}`).

    Examples
    --------
    >>> import gdp
    >>> f = gdp.mixture_gaussian(1.0, [0.0, 1.0, 2.0], [0.81, 0.18, 0.01])
    >>> round(float(f.hockey_stick(1.0)), 6)
    0.003826
    """
    sigma = check_real("sigma", sigma, lo=1e-300)
    w, c = (np.array(x) for x in _components("probs", "sensitivities", probs, sensitivities,
                                              shift_lo=0.0, max_ndim=1))
    with np.errstate(over="ignore"):
        shifts = c / sigma
    if not np.all(np.isfinite(shifts)):
        raise ValueError(f"`sensitivities` / `sigma` must be finite floats (the shifts of the "
                         f"mixture); got sigma={sigma!r}, max sensitivity {float(c.max())!r}")
    return ShiftMixture((1.0,), (0.0,), tuple(w), tuple(shifts), name="MoG")
