r"""Privacy-loss distributions on a lattice: the sound numeric engine behind ``f @ g``.

Theory of operation
-------------------
**Laws.** A trade-off function :math:`f = T(P, Q)` is fixed by the law of the privacy loss
:math:`L = \log dQ/dP` (MATH.md §1). This module works with the *Q-law* of :math:`L`:
for every real :math:`\varepsilon` (the one-order hockey-stick profile)

.. math:: \delta_f(\varepsilon) = E_Q\big[(1 - e^{\varepsilon - L})_+\big]
          = \sum_k q_k\,(1 - e^{\varepsilon - t_k})_+ + Q[L = +\infty],

and the P-masses of finite atoms follow from :math:`p_k = q_k e^{-t_k}`. The integrand is
in :math:`[0, 1]` and increasing in :math:`L`, so moving Q-mass to larger losses (or to
:math:`+\infty`) can only increase :math:`\delta`. Composition adds independent losses:
the Q-law of :math:`f \otimes g` is the convolution of the two Q-laws (Q is a product
measure), with :math:`Q[L=\infty]` combining as :math:`1-(1-a)(1-b)`.

**Pessimistic discretisation (the sound side).** Each factor is put on the lattice
:math:`t_k = k h` by *connect-the-dots* (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi,
PETS 2022): the exact P- and Q-masses of every cell :math:`(t_i, t_{i+1}]` (whose
likelihood ratio lies in :math:`[e^{t_i}, e^{t_{i+1}}]`) are split between the two end
points, preserving both masses. Every outcome of the cell is a mixture of the two end
atoms, so the true pair is a garbling of the split pair: the lattice pair is *more*
informative (Blackwell), its curve is a rigorous lower bound, and the split has no
first-order bias (plain rounding up shifts each loss by about :math:`h/2`, and
:math:`10^4` compositions multiply that). The profile of the split law equals the true
profile at lattice points and interpolates linearly in :math:`e^\varepsilon` between
them. Truncated tails are spreads too: the upper tail :math:`(p, q)` becomes
:math:`(0, q)` at :math:`+\infty` and :math:`(p, 0)` at :math:`-\infty`; the lower tail
puts its Q-mass on the lowest lattice point and the rest of its P-mass at
:math:`-\infty`. No mass is dropped. Atoms (randomized response, Laplace, exact curves)
are split individually with ``expm1`` weights. A factor known only through its
``_hockey`` hook (a certified upper bound on the profile) is discretised by the envelope
of its supporting lines :math:`1 - \hat\delta(t_k) - e^{t_k}\alpha`, each of which lies
below the curve.

**Optimistic discretisation (the other side).** A garbling (post-processing) can only
raise a curve. The losses in :math:`(t_k - h/2, t_k + h/2]` are merged into one atom,
whose ratio misses :math:`e^{t_k}` only at second order. The imbalance is then removed
by merging a sliver of a neighbouring atom (one with a larger ratio for a deficit, a
smaller one for an excess; lending leaves the lender's ratio unchanged): the slivers
solve a weakly coupled linear system, solved by fixed-point iteration and verified
afterwards. Where no suitable neighbour exists (ends of the support, steep rises such
as the floor :math:`\log(1-p)` of a subsampled loss) an atom is carried whole into a
neighbour, as reverse connect-the-dots would do, or its excess Q-mass is dropped; of
these strategies the one keeping the most Q-mass is used. Atoms sitting on lattice
points stay exact and serve as lenders. The lower tail goes to :math:`-\infty` (its
Q-mass dropped), the upper tail joins the top atom. Every step is a garbling or a
removal of Q-mass, so :math:`\delta` can only decrease. Atoms off the lattice make the
garbling first order in :math:`h`, so the optimistic side uses a 4 times finer lattice
when a factor has atoms; a factor's lattice is shifted so that its heaviest atom sits on
a lattice point (compositions of shifted lattices are shifted lattices), and for a
single atomic factor the step makes the spacing of its two heaviest atoms a multiple of
:math:`h`.

**Composition.** Equal factors are grouped into powers. Distinct single factors are
first combined by linear convolutions; the rest is multiplied in the Fourier domain
(one ``rfft`` per group, :math:`Z^n` for an :math:`n`-fold power, one ``irfft``) on a
circular lattice window :math:`[A, B]` of :math:`N` points. Aliased (wrapped) mass is
non-negative, so on the window the circular result is at least the true pmf; the mass
outside the window is bounded with Chernoff, :math:`Q[S > B] \le \inf_\lambda
\prod_i M_i(\lambda)^{n_i} e^{-\lambda B}`, from the exact moment generating functions of
the discretised factors, and charged: the upper tail to :math:`+\infty`, the lower tail
to the lowest window point (the profile integrand is increasing). The window comes from
the same bounds at the requested tail mass, the step :math:`h` from the requested
relative accuracy: connect-the-dots adds at most :math:`h^2/4` to the variance of each
factor's loss, so :math:`h = \sqrt{8\,\mathrm{rtol}\,V/K}` keeps the relative
variance error of the composed loss (variance :math:`V`, :math:`K` factors) near
:math:`2\,\mathrm{rtol}`. The same moment generating functions give a second sound
profile, :math:`\delta(\varepsilon) \le Q[S=\infty] + \inf_\lambda
M(\lambda)e^{-\lambda\varepsilon}\lambda^\lambda/(1+\lambda)^{1+\lambda}` (from
:math:`(1-e^{-u})_+ \le e^{\lambda u}\lambda^\lambda/(1+\lambda)^{1+\lambda}`), which
takes over for tiny :math:`\delta` below the floating-point floor of the lattice.

**Floating point.** Three kinds of allowance are tracked and charged to the sound side
(subtracted on the other). (i) Relative Q-mass errors of the factors (cell masses are
differences of tail probabilities taken on the short side): masses are non-negative,
so relative errors stay relative through convolution, at most :math:`(1+\eta)^n - 1`
after :math:`n` factors; they multiply δ. (ii) Errors that change a cell's P-mass at
fixed Q-mass (the excess :math:`Q - e^{t}P` that positions a split, the rounding of the
lattice points :math:`kh`) move its implied loss: they are charged as a shift of all
losses by their sum. (iii) Fourier round-off is additive: the forward transform errs by
at most :math:`\gamma = 8\epsilon_{\rm mach}(\log_2 N + 4)` per coefficient
(relative to the mass) or :math:`\gamma\|Z\|_2` in norm, :math:`Z^n` amplifies that
by :math:`n|Z|^{n-1}`, and the inverse transform adds at most :math:`\gamma\sum_m|Y_m|`
in :math:`\ell_1` (after Higham, *Accuracy and Stability of Numerical Algorithms*,
§24.1; a documented allowance, not a machine-checked proof). Where :math:`|Z|^n` is not
negligible the spectrum is recomputed directly as :math:`\exp(n\log W)` with
:math:`W - \sum q = \sum_j q_j(e^{-i\theta_j} - 1)` summed without cancellation (real
parts all of one sign), which removes the :math:`n`-fold amplification; the additive
allowance goes to the top of the window. Negative round-off entries are clipped (clipping
never moves a value away from the truth). Losses beyond ~745, where P-masses underflow,
are handled through :math:`\log\alpha` at the vertices.

**Results.** :class:`LossCurve` is an exact piecewise-linear curve stored with its
privacy-loss atoms (vertex :math:`\alpha_j = P[L > t_j]`, :math:`1-\beta_j =
Q[L > t_j]`), with :math:`O(\log N)` profile evaluation and exact inversion
:math:`\varepsilon(\delta)` piece by piece. :class:`Composition` brackets a numeric
composition between two LossCurves; its ``delta``/``epsilon`` are the sound side
(upper bounds) and ``delta_bounds``/``epsilon_bounds`` show both sides.

References
----------
Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, "Connect the Dots: Tighter Discrete
Approximations of Privacy Loss Distributions", PETS 2022. Koskela, Jälkö, Honkela,
"Computing Tight Differential Privacy Guarantees Using FFT", AISTATS 2020. Gopi, Lee,
Wutschitz, "Numerical Composition of Differential Privacy", NeurIPS 2021. Dong, Roth, Su,
"Gaussian Differential Privacy", JRSS-B 2022 (Prop. 2.12, Thm 3.2). Higham, "Accuracy and
Stability of Numerical Algorithms", 2nd ed., SIAM 2002, §24.1.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import fft as sfft
from scipy import special

from ._validation import check_int, check_real
from .gaussian import Gaussian
from .laplace import Laplace
from .tradeoff import Bracketed, Identity, Inverse, PiecewiseLinear, TradeOff

__all__ = [
    "Accuracy",
    "accuracy",
    "LossCurve",
    "LazyCurve",
    "Composition",
    "GridInfo",
    "curve_from_atoms",
    "hull_min_curves",
    "max_curves",
    "compose_numeric",
    "compose_two_orders",
    "Law",
    "GaussianLaw",
    "LaplaceLaw",
    "AtomicLaw",
    "InverseLaw",
    "GenericLaw",
    "law_of",
    "norm_cells",
]

_EPS = float(np.finfo(float).eps)
_LOG_TINY = -745.0


# ---------------------------------------------------------------------------
# accuracy settings
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Accuracy:
    r"""Accuracy settings of the numeric composition engine.

    Parameters
    ----------
    rtol : float
        Target relative accuracy of ε (default ``1e-3``). It sets the lattice step
        :math:`h = \sqrt{8\,\mathrm{rtol}\,V/K}` from the variance :math:`V` of the composed
        privacy loss and the number :math:`K` of factors (connect-the-dots adds at most
        :math:`h^2/4` variance per factor). A heuristic: the achieved bracket is reported
        by ``epsilon_bounds``.
    grid_step : float, optional
        Use this lattice step :math:`h` instead.
    tail_mass : float
        Probability mass allowed outside each end of the lattice window (default
        ``1e-20``); the Chernoff bound on it is charged to the sound side.
    max_points : int
        Memory cap on the lattice size (default :math:`2^{23}`). A request that needs more
        raises ``ValueError``.

    Notes
    -----
    Truncated factor tails are charged to :math:`+\infty` at about ``tail_mass``, so a
    δ below that cannot be certified (``epsilon`` returns ``inf``); lower ``tail_mass``
    for such δ. Between ``tail_mass`` and the floating-point floor of the lattice
    (~1e-12) the moment-generating-function bound answers (sound, less tight).

    Examples
    --------
    >>> import gdp
    >>> gdp.pld.accuracy(rtol=1e-5).rtol
    1e-05
    """

    rtol: float = 1e-3
    grid_step: float | None = None
    tail_mass: float = 1e-20
    max_points: int = 1 << 23

    def __post_init__(self):
        object.__setattr__(self, "rtol", check_real("rtol", self.rtol, lo=1e-12, hi=0.5))
        if self.grid_step is not None:
            object.__setattr__(self, "grid_step", check_real("grid_step", self.grid_step,
                                                             lo=1e-9, hi=10.0))
        object.__setattr__(self, "tail_mass", check_real("tail_mass", self.tail_mass,
                                                         lo=1e-300, hi=1e-3))
        object.__setattr__(self, "max_points", check_int("max_points", self.max_points,
                                                         lo=1024))


_ACC_KEYS = ("rtol", "grid_step", "tail_mass", "max_points")


def accuracy(**kwargs: Any) -> Accuracy:
    """Build :class:`Accuracy` from keyword arguments (``rtol``, ``grid_step``,
    ``tail_mass``, ``max_points``); unknown names raise ``TypeError``.

    Examples
    --------
    >>> import gdp
    >>> gdp.pld.accuracy(grid_step=1e-3).grid_step
    0.001
    """
    unknown = sorted(set(kwargs) - set(_ACC_KEYS))
    if unknown:
        raise TypeError(f"unknown accuracy keyword(s) {unknown}; expected some of "
                        f"{list(_ACC_KEYS)}")
    return Accuracy(**kwargs)


# ---------------------------------------------------------------------------
# LossCurve: a piecewise-linear curve stored with its privacy-loss atoms
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class LossCurve(PiecewiseLinear):
    r"""A convex piecewise-linear trade-off curve stored with its privacy-loss atoms.

    Vertex :math:`j` is :math:`(\alpha_j, \beta_j) = (P[L > t_j], Q[L \le t_j])`; segment
    :math:`j` joins vertices :math:`j, j+1` with slope :math:`-e^{t_j}` (``tseg``,
    non-increasing; ``-inf`` for a flat zero tail); ``omb`` holds :math:`1 - \beta_j`
    accurately (tail masses). A subclass of :class:`gdp.tradeoff.PiecewiseLinear`.

    The one-order profile is evaluated at the active vertex,
    :math:`\delta(\varepsilon) = (1-\beta_j) - e^{\varepsilon}\alpha_j` with
    :math:`t_j \le \varepsilon \le t_{j-1}`, in :math:`O(\log N)`, and
    :math:`\varepsilon(\delta)` is solved exactly on the active piece.

    Notes
    -----
    A curve built by the numeric engine is a bound: ``optimistic=False`` curves (lower
    bounds, and exact curves) round δ up by the summation error of their cumulative
    masses, ``optimistic=True`` curves round it down.

    Examples
    --------
    >>> import numpy as np, gdp
    >>> rr = gdp.pld.curve_from_atoms([1.0, -1.0], [1 / (1 + np.e), np.e / (1 + np.e)],
    ...                               [np.e / (1 + np.e), 1 / (1 + np.e)], symmetric=True)
    >>> round(rr(0.1), 6), round(rr.epsilon(0.0), 6)
    (0.728172, 1.0)
    """

    omb: Any = field(default=None, repr=False)
    tseg: Any = field(default=None, repr=False)
    optimistic: bool = field(default=False, repr=False)
    lalpha: Any = field(default=None, repr=False)

    def __post_init__(self):
        PiecewiseLinear.__post_init__(self)
        if self.lalpha is None:
            with np.errstate(divide="ignore"):
                object.__setattr__(self, "lalpha", np.log(self.alpha))
        for nm in ("omb", "tseg", "lalpha"):
            v = np.array(getattr(self, nm), dtype=float)
            v.setflags(write=False)
            object.__setattr__(self, nm, v)

    def __repr__(self):
        return f"LossCurve(name={self.name!r}, vertices={self.alpha.size})"

    # -- curve -------------------------------------------------------------
    def _one_minus_f(self, alpha):
        return np.interp(alpha, self.alpha, self.omb)

    def _active(self, eps: np.ndarray) -> np.ndarray:
        """Index of the vertex where the slope crosses :math:`-e^\\varepsilon`."""
        return np.searchsorted(-self.tseg, -np.asarray(eps, dtype=float), side="left")

    def _margins(self) -> tuple[np.ndarray, np.ndarray]:
        """(A_j, log B_j) = (1 - beta_j, log alpha_j) widened by the cumulative-sum error
        (log alpha is kept separately: alpha underflows for losses beyond ~745)."""
        rho = (np.arange(self.alpha.size) + 8.0) * _EPS
        if self.optimistic:
            return self.omb * (1.0 - rho), self.lalpha + np.log1p(rho)
        return self.omb * (1.0 + rho), self.lalpha + np.log1p(-rho)

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        j = self._active(eps)
        A, lB = self._margins()
        a, lb = A[j], lB[j]
        with np.errstate(all="ignore"):
            ya = np.where(np.isneginf(lb), 0.0, np.exp(np.minimum(eps + lb, 709.0)))
        return np.clip(a - ya, 0.0, 1.0)

    def _eps_direct(self, delta: np.ndarray) -> np.ndarray:
        """Smallest ε ≥ 0 with the one-order profile ≤ δ, exactly per piece."""
        delta = np.asarray(delta, dtype=float)
        A, lB = self._margins()
        m = self.tseg.size
        left = np.concatenate([self.tseg, [-np.inf]])     # lower end of piece j
        right = np.concatenate([[np.inf], self.tseg])     # upper end of piece j
        with np.errstate(all="ignore"):
            yb = np.where(np.isneginf(lB) | np.isneginf(left), 0.0,
                          np.exp(np.minimum(left + lB, 709.0)))
        v = A - yb                                        # value at the lower end
        vmax = np.maximum.accumulate(v)                   # max over pieces with larger eps
        J = np.minimum(np.searchsorted(vmax, delta, side="right"), m)
        aj, lbj = A[J], lB[J]
        with np.errstate(all="ignore"):
            x = np.log(aj - delta) - lbj
        x = np.where(aj <= delta, -np.inf, np.where(np.isfinite(lbj), x, np.inf))
        x = np.where(np.isnan(x), np.inf, x)
        # one rounding step towards the safe side, so that delta(eps) <= delta holds
        x = x - 8 * _EPS * (1.0 + np.abs(x)) if self.optimistic else \
            x + 8 * _EPS * (1.0 + np.abs(x))
        e = np.minimum(right[J], np.maximum(left[J], x))
        return np.maximum(e, 0.0)

    def _sym(self) -> LossCurve:
        return self if self.symmetric else max_curves(self, self.inverse(), symmetric=True)

    def _epsilon(self, delta):
        return self._sym()._eps_direct(delta)

    def delta(self, eps: Any) -> Any:
        if self.symmetric:
            return PiecewiseLinear.delta(self, eps)
        return self._sym().delta(eps)

    # -- privacy-loss law --------------------------------------------------
    def _loss_sf(self, t):
        return self.alpha[self._active(t)]

    def _loss_sf_q(self, t):
        return np.minimum(self.omb[self._active(t)], 1.0)

    def _atoms(self):
        p = np.diff(self.alpha)
        q = np.diff(self.omb)
        u = np.array(self.tseg, dtype=float)
        with np.errstate(all="ignore"):
            p = np.where((p == 0) & (q > 0) & np.isfinite(u), q * np.exp(-u), p)
        if self.optimistic:  # P-mass underflowed: the atom's Q-mass is dropped (safe side)
            q = np.where((p == 0) & np.isfinite(u), 0.0, q)
        u = np.where((p == 0) & (q > 0), np.inf, u)
        u = np.where((q <= 0) & (p > 0), -np.inf, u)
        q = np.maximum(q, 0.0)
        keep = (p > 0) | (q > 0)
        u, p, q = u[keep], p[keep], q[keep]
        if self.omb[0] > 0:
            u = np.concatenate([[np.inf], u])
            p = np.concatenate([[0.0], p])
            q = np.concatenate([[float(self.omb[0])], q])
        return u, p, q

    def _inverse(self):
        # reflect the graph in the diagonal: vertex (alpha, beta) -> (beta, alpha), segment
        # slope -e^t -> -e^{-t}; the jump at 0 and a flat zero tail trade places
        beta = 1.0 - self.omb
        with np.errstate(divide="ignore"):
            lb = np.log1p(-np.minimum(self.omb, 1.0))
        a2, o2, l2 = beta[::-1], 1.0 - self.alpha[::-1], lb[::-1]
        t2 = -self.tseg[::-1]
        z = int(np.flatnonzero(np.isneginf(l2) | (a2 <= 0.0))[-1])  # last vertex at 0
        a2, o2, l2, t2 = a2[z:], o2[z:], l2[z:], t2[z:]
        a2 = np.where(np.isneginf(l2), 0.0, a2)
        return _finish(a2, o2, t2, name=_inv_label(self.name), symmetric=self.symmetric,
                       optimistic=self.optimistic, lalpha=l2)


def _inv_label(name: str) -> str:
    if name.endswith("^{-1}"):
        return name[: -len("^{-1}")]
    return "{" + name + "}^{-1}"


def _finish(alpha: np.ndarray, omb: np.ndarray, tseg: np.ndarray, *, name: str,
            symmetric: bool = False, optimistic: bool = False,
            lalpha: np.ndarray | None = None) -> LossCurve:
    """Normalise a convex vertex chain into a LossCurve on [0, 1] x [0, 1].

    Drops empty segments, cuts the chain where β reaches 0 (or α reaches 1) and closes it
    at (1, 0); a chain ending above β = 0 is closed by the tangent to (1, 0), which keeps
    it convex (largest convex minorant of the chain and that point). ``lalpha`` gives
    log α when α underflows.
    """
    alpha = np.asarray(alpha, dtype=float)
    omb = np.asarray(omb, dtype=float)
    tseg = np.asarray(tseg, dtype=float)
    with np.errstate(divide="ignore"):
        la = np.log(alpha) if lalpha is None else np.maximum(np.asarray(lalpha, float),
                                                             np.log(alpha))
    with np.errstate(invalid="ignore"):
        keep = (np.diff(la) > 0) | (np.diff(omb) > 0)
    idx = np.concatenate([[0], 1 + np.flatnonzero(keep)])
    alpha, omb, tseg, la = alpha[idx], omb[idx], tseg[keep], la[idx]
    if omb[0] >= 1.0:  # the zero curve
        return LossCurve(alpha=np.array([0.0, 1.0]), beta=np.array([0.0, 0.0]), name=name,
                         symmetric=symmetric, omb=np.array([1.0, 1.0]),
                         tseg=np.array([-np.inf]), optimistic=optimistic)
    # first vertex beyond the box (beta < 0 or alpha > 1)
    out = np.flatnonzero((omb >= 1.0) | (alpha > 1.0))
    if out.size:
        j = int(out[0])
        o0 = float(omb[j - 1])
        if omb[j] == 1.0 and alpha[j] <= 1.0:  # the chain reaches beta = 0 at a vertex
            a_hit, l_end = float(alpha[j]), float(la[j])
        else:  # where beta reaches 0 on segment j-1, in log space (alpha may underflow)
            with np.errstate(divide="ignore"):
                l_end = float(np.logaddexp(la[j - 1], math.log(1.0 - o0) - tseg[j - 1])) \
                    if np.isfinite(tseg[j - 1]) else np.inf
            l_end = min(l_end, float(la[j]))
            a_hit = math.exp(l_end) if l_end < 709 else np.inf
        if a_hit <= 1.0:
            a_end, o_end = min(a_hit, float(alpha[j])), 1.0
        else:  # reaches alpha = 1 first (float noise): close the curve at (1, 0)
            a_end, o_end, l_end = 1.0, 1.0, 0.0
        alpha = np.concatenate([alpha[:j], [a_end]])
        omb = np.concatenate([omb[:j], [o_end]])
        la = np.concatenate([la[:j], [l_end]])
        tseg = tseg[: j]
        if o_end == 1.0 and a_end == 1.0 and a_hit > 1.0:
            tseg = tseg.copy()
            tseg[-1] = _log_slope(omb[-2], omb[-1], alpha[-2], alpha[-1])
    if omb[-1] < 1.0:
        # close with the tangent from (1, 0): keep the vertex maximising the slope to it
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(alpha < 1.0, (1.0 - omb) / (1.0 - alpha), np.inf)
        v = int(np.argmin(ratio))
        alpha = np.concatenate([alpha[: v + 1], [1.0]])
        omb = np.concatenate([omb[: v + 1], [1.0]])
        la = np.concatenate([la[: v + 1], [0.0]])
        tseg = np.concatenate([tseg[:v], [_log_slope(omb[v], 1.0, alpha[v], 1.0)]])
    elif alpha[-1] < 1.0:
        alpha = np.concatenate([alpha, [1.0]])
        omb = np.concatenate([omb, [1.0]])
        la = np.concatenate([la, [0.0]])
        tseg = np.concatenate([tseg, [-np.inf]])
    tseg = np.minimum.accumulate(tseg)  # convexity against rounding
    omb = np.clip(np.maximum.accumulate(omb), 0.0, 1.0)
    return LossCurve(alpha=alpha, beta=1.0 - omb, name=name, symmetric=symmetric, omb=omb,
                     tseg=tseg, optimistic=optimistic, lalpha=la)


def _log_slope(o0: float, o1: float, a0: float, a1: float) -> float:
    do, da = float(o1) - float(o0), float(a1) - float(a0)
    if da <= 0:
        return np.inf
    if do <= 0:
        return -np.inf
    return math.log(do) - math.log(da)


def curve_from_atoms(loss: Any, p: Any, q: Any, *, name: str = "f", symmetric: bool = False,
                     optimistic: bool = False) -> LossCurve:
    r"""The exact Neyman–Pearson curve of a discrete pair given by its privacy-loss atoms.

    Parameters
    ----------
    loss, p, q : array_like
        Atom losses :math:`\log(q_i/p_i)` (``±inf`` allowed) with their P- and Q-masses.
        Tests reject in decreasing order of the loss (DRS Sec. 2; MATH.md §1).

    Examples
    --------
    >>> import gdp
    >>> f = gdp.pld.curve_from_atoms([0.0], [1.0], [1.0])
    >>> f(0.3)
    0.7
    """
    u = np.asarray(loss, dtype=float).reshape(-1)
    p = np.asarray(p, dtype=float).reshape(-1)
    q = np.asarray(q, dtype=float).reshape(-1)
    inf_q = float(q[np.isposinf(u) | ((p == 0) & (q > 0))].sum())
    fin = np.isfinite(u) & (p > 0) & (q > 0)
    u, p, q = u[fin], p[fin], q[fin]
    order = np.argsort(-u, kind="stable")
    u, p, q = u[order], p[order], q[order]
    alpha = np.concatenate([[0.0], np.cumsum(p)])
    omb = np.concatenate([[inf_q], inf_q + np.cumsum(q)])
    return _finish(alpha, omb, u, name=name, symmetric=symmetric, optimistic=optimistic)


def _log_diff(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """log(e^lb - e^la) for lb >= la (-inf where equal)."""
    with np.errstate(all="ignore"):
        d = np.where(np.isneginf(la), lb, lb + np.log(-np.expm1(np.minimum(la - lb, 0.0))))
    return np.where(lb > la, d, -np.inf)


def _omb_at(c: LossCurve, la: np.ndarray) -> np.ndarray:
    """1 - c(alpha) at log alpha = ``la`` (accurate where alpha underflows)."""
    j = np.clip(np.searchsorted(c.lalpha, la, side="right") - 1, 0, c.tseg.size - 1)
    with np.errstate(all="ignore"):
        step = np.exp(np.minimum(c.tseg[j] + _log_diff(c.lalpha[j], la), 709.0))
    step = np.where(np.isneginf(c.tseg[j]), 0.0, np.nan_to_num(step, nan=0.0))
    return np.minimum(c.omb[j] + step, 1.0)


def hull_min_curves(c1: LossCurve, c2: LossCurve, *, name: str = "f",
                    symmetric: bool = False) -> LossCurve:
    r""":math:`\min\{c_1, c_2\}^{**}` (largest convex minorant), whose profile is
    :math:`\max(\delta_{c_1}, \delta_{c_2})` (conjugate of a hull of a minimum).

    Vertex :math:`j` of :math:`c_i` belongs to the hull iff its supporting line
    :math:`(1-\beta_j) - e^{\varepsilon}\alpha_j` is the largest of all for some ε; that
    is tested on every interval between consecutive breakpoints of either curve.
    """
    e = np.unique(np.concatenate([c1.tseg, c2.tseg]))
    e = e[np.isfinite(e)]
    if e.size:
        lo = np.concatenate([[-np.inf], e])
        hi = np.concatenate([e, [np.inf]])
        rep = np.concatenate([[e[0] - 1.0], 0.5 * (e[:-1] + e[1:]), [e[-1] + 1.0]])
    else:
        lo, hi, rep = np.array([-np.inf]), np.array([np.inf]), np.array([0.0])
    j1, j2 = c1._active(rep), c2._active(rep)

    def line(c: LossCurve, j: np.ndarray, at: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            ya = np.where(np.isneginf(c.lalpha[j]), 0.0,
                          np.exp(np.minimum(at + c.lalpha[j], 709.0)))
        return c.omb[j] - ya

    # compare the two lines at both ends of each interval (limits at +-inf)
    d_lo = np.where(np.isneginf(lo), c1.omb[j1] - c2.omb[j2],
                    line(c1, j1, lo) - line(c2, j2, lo))
    with np.errstate(invalid="ignore"):
        a_diff = c2.lalpha[j2] - c1.lalpha[j1]
    a_diff = np.where(np.isnan(a_diff), 0.0, a_diff)
    d_hi = np.where(np.isposinf(hi), np.where(a_diff != 0, a_diff, c1.omb[j1] - c2.omb[j2]),
                    line(c1, j1, hi) - line(c2, j2, hi))
    act1 = np.zeros(c1.alpha.size, dtype=bool)
    act2 = np.zeros(c2.alpha.size, dtype=bool)
    act1[j1[(d_lo >= 0) | (d_hi >= 0)]] = True
    act2[j2[(d_lo <= 0) | (d_hi <= 0)]] = True
    la = np.concatenate([c1.lalpha[act1], c2.lalpha[act2]])
    o = np.concatenate([c1.omb[act1], c2.omb[act2]])
    src = np.concatenate([np.zeros(act1.sum(), int), np.ones(act2.sum(), int)])
    ix = np.concatenate([np.flatnonzero(act1), np.flatnonzero(act2)])
    order = np.lexsort((-o, la))
    la, o, src, ix = la[order], o[order], src[order], ix[order]
    with np.errstate(invalid="ignore"):
        first = np.concatenate([[True], np.diff(la) > 0])  # one vertex per alpha
    la, o, src, ix = la[first], o[first], src[first], ix[first]
    same = (src[:-1] == src[1:]) & (ix[1:] == ix[:-1] + 1)
    t_own = np.where(src[:-1] == 0, c1.tseg[np.minimum(ix[:-1], c1.tseg.size - 1)],
                     c2.tseg[np.minimum(ix[:-1], c2.tseg.size - 1)])
    with np.errstate(divide="ignore", invalid="ignore"):
        bridge = np.log(np.diff(o)) - _log_diff(la[:-1], la[1:])
    ts = np.where(same, t_own, np.where(np.isnan(bridge), -np.inf, bridge))
    return _finish(np.exp(la), o, ts, name=name, symmetric=symmetric,
                   optimistic=c1.optimistic and c2.optimistic, lalpha=la)


def max_curves(c1: LossCurve, c2: LossCurve, *, name: str | None = None,
               symmetric: bool = False) -> LossCurve:
    r"""The pointwise maximum :math:`\max\{c_1, c_2\}` (a convex piecewise-linear curve;
    for :math:`c_2 = c_1^{-1}` it is :math:`c_1^S`, DRS Prop. 2.4)."""
    g = np.unique(np.concatenate([c1.lalpha, c2.lalpha]))
    o1, o2 = _omb_at(c1, g), _omb_at(c2, g)
    d = o1 - o2
    cross = np.flatnonzero(d[:-1] * d[1:] < 0)
    if cross.size:
        w = d[cross] / (d[cross] - d[cross + 1])
        with np.errstate(divide="ignore"):
            gx = np.logaddexp(g[cross], np.log(w) + _log_diff(g[cross], g[cross + 1]))
        g = np.unique(np.concatenate([g, gx]))
        o1, o2 = _omb_at(c1, g), _omb_at(c2, g)
    o = np.minimum(o1, o2)
    with np.errstate(divide="ignore"):
        mid = np.logaddexp(g[:-1], g[1:]) - math.log(2.0)
    m1, m2 = _omb_at(c1, mid), _omb_at(c2, mid)
    s1 = c1.tseg[np.clip(np.searchsorted(c1.lalpha, mid, side="right") - 1, 0,
                         c1.tseg.size - 1)]
    s2 = c2.tseg[np.clip(np.searchsorted(c2.lalpha, mid, side="right") - 1, 0,
                         c2.tseg.size - 1)]
    ts = np.where(m1 <= m2, s1, s2)
    nm = name if name is not None else "{" + c1.name + "}^{S}"
    return _finish(np.exp(g), o, ts, name=nm, symmetric=symmetric,
                   optimistic=c1.optimistic and c2.optimistic, lalpha=g)


# ---------------------------------------------------------------------------
# exact laws of the factors
# ---------------------------------------------------------------------------
class Law:
    r"""The exact privacy-loss law of one factor, as the discretisation needs it.

    ``cells(edges)`` returns the P- and Q-masses of the continuous part on the cells
    :math:`(e_i, e_{i+1}]` and absolute error bounds for each; ``atoms()`` the finite atoms
    ``(loss, p, q)``; ``q_inf`` / ``p_ninf`` the masses :math:`Q[L=+\infty]`,
    :math:`P[L=-\infty]`; ``quantiles(tol)`` approximate ends ``(q_lo, q_hi, p_lo, p_hi)``
    of the Q- and P-laws beyond which at most ``tol`` mass lies (used to place windows
    only: tails are charged soundly wherever the window ends). Families with a closed
    form provide a Law through a ``_pld_law()`` method.
    """

    q_inf: float = 0.0
    p_ninf: float = 0.0

    def cells(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray]:
        z = np.zeros(len(edges) - 1)
        return z, z, z, z

    def atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        e = np.zeros(0)
        return e, e, e

    def quantiles(self, tol: float) -> tuple[float, float, float, float]:
        raise NotImplementedError

    def excess(self, edges: np.ndarray, refs: np.ndarray) -> tuple[np.ndarray, ...]:
        r"""Cells with their excess :math:`X_i = Q_i - e^{r_i}P_i` over reference losses
        :math:`r_i`: returns ``(P, Q, EP, EQ, X, EX)`` (masses, their error bounds, the
        excess and its error bound). The default subtracts (cancellation); families that
        can do better override it."""
        P, Q, EP, EQ = self.cells(edges)
        return (P, Q, EP, EQ) + _excess_from(P, Q, EP, EQ, refs)


def norm_cells(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standard normal masses of the cells (z_i, z_{i+1}] and absolute error bounds.

    Differences are taken on the side of the shorter tail, so each mass is accurate to a
    few ulps of the tail probabilities involved (no cancellation against 1).
    """
    z = np.asarray(z, dtype=float)
    s = special.ndtr(-z)
    c = special.ndtr(z)
    up = z[:-1] >= 0
    mass = np.where(up, s[:-1] - s[1:], c[1:] - c[:-1])
    err = 4.0 * _EPS * (np.where(up, s[:-1] + s[1:], c[1:] + c[:-1]) + np.abs(mass))
    return np.maximum(mass, 0.0), err


def _excess_from(P: np.ndarray, Q: np.ndarray, EP: np.ndarray, EQ: np.ndarray,
                 refs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """X = Q - e^r P (by the log-ratio, exact sign) and its error bound."""
    refs = np.asarray(refs, dtype=float)
    with np.errstate(all="ignore"):
        lr = refs + np.log(P) - np.log(Q)
        X = np.where(P > 0, -Q * np.expm1(lr), Q)
        X = np.where(Q > 0, X, np.where(P > 0, -np.exp(np.minimum(refs + np.log(P), 709.0)),
                                        0.0))
        eP = np.where(EP > 0, np.exp(np.minimum(refs + np.log(EP), 709.0)), 0.0)
        eR = np.where(P > 0, np.exp(np.minimum(refs + np.log(P), 709.0)), 0.0)
    return X, EQ + eP + 4 * _EPS * (Q + eR)


class GaussianLaw(Law):
    r""":math:`G_\mu`: :math:`L \sim N(\mp\mu^2/2, \mu^2)` under P / Q."""

    def __init__(self, mu: float):
        self.mu = float(mu)

    def cells(self, edges):
        m = self.mu
        with np.errstate(all="ignore"):
            zp = (edges + 0.5 * m * m) / m
            zq = (edges - 0.5 * m * m) / m
        P, ep = norm_cells(zp)
        Q, eq = norm_cells(zq)
        return P, Q, ep, eq

    def quantiles(self, tol):
        z = -float(special.ndtri(tol))
        m = self.mu
        return 0.5 * m * m - z * m, 0.5 * m * m + z * m, -0.5 * m * m - z * m, \
            -0.5 * m * m + z * m


class LaplaceLaw(Law):
    r""":math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`: atoms at :math:`\mp\mu` and a
    density on :math:`(-\mu, \mu)` with :math:`P[L>t] = \tfrac12 e^{-(t+\mu)/2}` there."""

    def __init__(self, mu: float):
        self.mu = float(mu)

    def cells(self, edges):
        m = self.mu
        a = np.clip(edges[:-1], -m, m)
        b = np.clip(edges[1:], -m, m)
        with np.errstate(all="ignore"):
            w = -np.expm1(-(b - a) / 2.0)
            P = 0.5 * np.exp(-(a + m) / 2.0) * w
            Q = 0.5 * np.exp((b - m) / 2.0) * w
        P = np.where(b > a, P, 0.0)
        Q = np.where(b > a, Q, 0.0)
        return P, Q, 8 * _EPS * P, 8 * _EPS * Q

    def atoms(self):
        m = self.mu
        em = 0.5 * math.exp(-m)
        return np.array([-m, m]), np.array([0.5, em]), np.array([em, 0.5])

    def quantiles(self, tol):
        return -self.mu, self.mu, -self.mu, self.mu


class AtomicLaw(Law):
    """A purely atomic law (randomized response, exact curves, lattice laws)."""

    def __init__(self, u: np.ndarray, p: np.ndarray, q: np.ndarray):
        u = np.asarray(u, dtype=float)
        p = np.asarray(p, dtype=float)
        q = np.asarray(q, dtype=float)
        self.q_inf = float(q[np.isposinf(u)].sum())
        self.p_ninf = float(p[np.isneginf(u)].sum())
        fin = np.isfinite(u) & ((p > 0) | (q > 0))
        order = np.argsort(u[fin])
        self.u, self.p, self.q = u[fin][order], p[fin][order], q[fin][order]

    def atoms(self):
        return self.u, self.p, self.q

    def quantiles(self, tol):
        if self.u.size == 0:
            return 0.0, 0.0, 0.0, 0.0

        def ends(m: np.ndarray) -> tuple[float, float]:
            lo = np.cumsum(m)
            hi = np.cumsum(m[::-1])[::-1]
            i = np.flatnonzero(lo > tol)
            k = np.flatnonzero(hi > tol)
            return (float(self.u[i[0]]) if i.size else float(self.u[0]),
                    float(self.u[k[-1]]) if k.size else float(self.u[-1]))

        ql, qh = ends(self.q)
        pl, ph = ends(self.p)
        return ql, qh, pl, ph


class InverseLaw(Law):
    r"""The law of :math:`f^{-1} = T(Q, P)`: :math:`L' = -L` with P and Q swapped."""

    def __init__(self, base: Law):
        self.base = base
        self.q_inf = base.p_ninf
        self.p_ninf = base.q_inf

    def cells(self, edges):
        P, Q, ep, eq = self.base.cells(-np.asarray(edges, dtype=float)[::-1])
        return Q[::-1], P[::-1], eq[::-1], ep[::-1]

    def atoms(self):
        u, p, q = self.base.atoms()
        return -u[::-1], q[::-1], p[::-1]

    def excess(self, edges, refs):
        # Q' - e^r P' = P - e^r Q = -e^r (Q - e^{-r} P) on the mirrored cells
        e = -np.asarray(edges, dtype=float)[::-1]
        r = np.asarray(refs, dtype=float)
        P, Q, EP, EQ, X, EX = self.base.excess(e, -r[::-1])
        with np.errstate(all="ignore"):
            f = np.exp(np.minimum(r, 709.0))
        return Q[::-1], P[::-1], EQ[::-1], EP[::-1], -f * X[::-1], f * EX[::-1]

    def quantiles(self, tol):
        ql, qh, pl, ph = self.base.quantiles(tol)
        return -ph, -pl, -qh, -ql


class GenericLaw(Law):
    """A factor known only through its hooks (``_hockey``, ``_f``, ``_loss_sf``)."""

    def __init__(self, f: TradeOff):
        self.f = f
        with np.errstate(all="ignore"):
            self.q_inf = float(np.clip(np.asarray(f._one_minus_f(np.zeros(1)))[0], 0, 1))

    def quantiles(self, tol):
        f = self.f
        t = 1.0
        while t < 700.0:
            with np.errstate(all="ignore"):
                d = float(np.asarray(f._hockey(np.array([t])))[0])
            if not d > self.q_inf + tol / 2:
                break
            t *= 2.0
        hi = min(t + math.log(2.0), 700.0)
        s = -1.0
        floor = max(math.log(tol), -700.0)
        while s > floor:
            with np.errstate(all="ignore"):
                sq = float(np.asarray(f._loss_sf_q(np.array([s])))[0])
            if 1.0 - sq <= tol:
                break
            s *= 2.0
        lo = max(s, floor)
        return lo, hi, lo - 1.0, hi


def law_of(f: TradeOff) -> Law:
    """The :class:`Law` of a trade-off function (closed forms first, hooks otherwise)."""
    hook = getattr(f, "_pld_law", None)
    if hook is not None:
        law = hook()
        if law is not None:
            return law
    if isinstance(f, Gaussian) and 0.0 < f.mu < math.inf:
        return GaussianLaw(f.mu)
    if isinstance(f, Laplace) and 0.0 < f.mu < math.inf:
        return LaplaceLaw(f.mu)
    if isinstance(f, Identity):
        return AtomicLaw(np.array([0.0]), np.array([1.0]), np.array([1.0]))
    if isinstance(f, Inverse):
        base = law_of(f.base)
        if not isinstance(base, GenericLaw):
            return InverseLaw(base)
    at = f._atoms()
    if at is not None:
        return AtomicLaw(*at)
    return GenericLaw(f)


# ---------------------------------------------------------------------------
# discretisation onto the lattice t_k = k h
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Lat:
    """A discretised law: Q-masses at lattice indices k0 .. k0+len-1, the +inf mass, and
    error bounds (relative per entry, and absolute for the rest)."""

    k0: int
    q: np.ndarray
    q_inf: float
    rel: float = 0.0
    abs: float = 0.0
    off: float = 0.0    # lattice offset: entry i sits at loss (k0 + i) h + off
    shift: float = 0.0  # loss-shift allowance (relative P-mass error, see _disc_pess)


def _split_errors(q: np.ndarray, err: np.ndarray, budget: float = 1e-19) -> tuple[float, float]:
    """Split per-entry error bounds into a relative bound (for most entries) and an
    absolute one: the entries with the worst relative error go to the absolute part, as
    many as fit in ``budget`` (plus those with no mass)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(q > 0, err / q, np.inf)
    order = np.argsort(-r, kind="stable")
    cum = np.cumsum(err[order])
    m = int(np.searchsorted(cum, budget, side="right"))
    m = max(m, int(np.sum(~np.isfinite(r))))
    rest = order[m:]
    rel = float(np.max(r[rest])) if rest.size else 0.0
    return rel, float(cum[m - 1]) if m > 0 else 0.0


def _split_shift(mass: np.ndarray, rp: np.ndarray, budget: float = 1e-19
                 ) -> tuple[float, float]:
    """Loss-shift allowance: the largest relative P-error ``rp`` of the cells, except that
    the cells with the worst ones may instead be charged in full (their mass) as an
    absolute error, as many as fit in ``budget``. Returns (shift, absolute)."""
    rp = np.where(mass > 0, rp, 0.0)
    order = np.argsort(-rp, kind="stable")
    cum = np.cumsum(mass[order])
    m = int(np.searchsorted(cum, budget, side="right"))
    rest = order[m:]
    shift = float(np.max(rp[rest])) if rest.size else 0.0
    return math.log1p(min(shift, 1.0)), float(cum[m - 1]) if m > 0 else 0.0


def _disc_pess(law: Law, h: float, ka: int, kb: int, off: float = 0.0) -> _Lat:
    """Connect-the-dots: each cell's masses split between its end points."""
    if isinstance(law, GenericLaw):
        return _disc_envelope(law.f, h, ka, kb)
    n = kb - ka + 1
    t = np.arange(ka, kb + 1, dtype=float) * h + off
    edges = np.concatenate([[-np.inf], t, [np.inf]])
    refs = np.concatenate([[0.0], t, [0.0]])[:-1]   # left end of each cell
    P, Q, EP, EQ, X, EX = law.excess(edges, refs)
    # Float errors of a cell's masses (dP, dQ) decompose into a proportional part
    # (relative dQ/Q on both end points of its split) and a P-only part; a P-only change
    # at fixed Q moves the implied loss, i.e. it is a shift of the loss by at most the
    # relative P-error (an error dX of the excess is a P-change dX e^{-t}: same kind).
    out = np.zeros(n)
    err = np.zeros(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        rq = np.where(Q > 0, EQ / Q, 0.0)
        ep_ = np.where(Q - X > 0, EX / (Q - X), 0.0)
        rp = np.where(P > 0, EP / P, 0.0) + rq + ep_
    c = math.exp(h) / math.expm1(h)
    if n > 1:
        Qi, Xi = Q[1:n], np.maximum(X[1:n], 0.0)
        bq = np.minimum(Xi * c, Qi)   # Q-mass at the upper end point
        aq = Qi - bq
        out[:-1] += aq
        out[1:] += bq
        err[:-1] += rq[1:n] * aq
        err[1:] += rq[1:n] * bq
    out[0] += Q[0]
    err[0] += EQ[0]
    q_inf = law.q_inf + Q[n] * (1 + 8 * _EPS) + EQ[n]
    rp[0] = rp[n] = 0.0  # tails: Q to one point, P to -inf (no split)
    shift, ab_s = _split_shift(Q, rp)
    u, pa, qa = law.atoms()
    if u.size:
        below = u <= t[0]
        above = u > t[-1]
        mid = ~(below | above)
        out[0] += qa[below].sum()
        q_inf += qa[above].sum()
        if mid.any() and n > 1:
            um, qm = u[mid], qa[mid]
            k = np.clip(np.floor((um - t[0]) / h).astype(np.int64), 0, n - 2)
            d = np.clip(um - t[k], 0.0, h)
            bq = np.minimum(qm * -np.expm1(-d) * c, qm)
            np.add.at(out, k, qm - bq)
            np.add.at(out, k + 1, bq)
            np.add.at(err, k, 4 * _EPS * (qm - bq))
            np.add.at(err, k + 1, 4 * _EPS * bq)
            shift = max(shift, 8 * _EPS)  # rounding of the split weights
        elif mid.any():
            out[0] += qa[mid].sum()
    shift += 4 * _EPS * (1.0 + float(np.max(np.abs(t))))  # lattice points are floats k*h
    rel, ab = _split_errors(out, err)
    return _Lat(ka, out, min(q_inf, 1.0), rel, ab + ab_s, off, shift)


def _disc_opt(law: Law, h: float, ka: int, kb: int, off: float = 0.0) -> _Lat:
    """Optimistic: merge (t_k - h/2, t_k + h/2], then balance each atom to the exact
    lattice ratio by merging slivers of its neighbours (see :func:`_balance`)."""
    if isinstance(law, GenericLaw):
        law = _chord_law(law.f, h, ka, kb)
        off = 0.0
    n = kb - ka + 1
    t = np.arange(ka, kb + 1, dtype=float) * h + off
    edges = np.concatenate([[-np.inf], t - 0.5 * h, [np.inf]])
    refs = np.concatenate([[t[0]], t])
    P, Q, EP, EQ, X, EX = law.excess(edges, refs)
    p, q, ep, eq = P[1:].copy(), Q[1:].copy(), EP[1:].copy(), EQ[1:].copy()
    x, ex = X[1:].copy(), EX[1:].copy()
    u, pa, qa = law.atoms()
    pe = np.zeros(n)  # P-masses of atoms on lattice points: balanced already, can lend
    on_shift = 0.0
    if u.size:
        # an atom on a lattice point stays there; any other goes to the lattice point
        # above it (a deficit, balanced with content from above), the topmost atom to the
        # point below (an excess), so that a lender is always at hand
        kf = (u - t[0]) / h
        on_lat = np.abs(kf - np.round(kf)) * h <= 1e-12 * (1.0 + np.abs(u))
        k = np.where(on_lat, np.round(kf), np.ceil(kf)).astype(np.int64)
        top = (u == np.max(u)) & ~on_lat
        k = np.where(top, np.floor(kf).astype(np.int64), k)
        keep = k >= 0  # atoms below the window go to -inf (Q dropped: optimistic)
        k, ua, pk, qk, on = (np.minimum(k[keep], n - 1), u[keep], pa[keep], qa[keep],
                             on_lat[keep])
        np.add.at(pe, k[on], pk[on])
        # (an atom within 1e-12 of a lattice point is taken to be on it: a loss shift)
        on_shift = 4e-12 * (1.0 + float(np.max(np.abs(ua[on])))) if on.any() else 0.0
        k, ua, pk, qk = k[~on], ua[~on], pk[~on], qk[~on]
        np.add.at(p, k, pk)
        np.add.at(q, k, qk)
        with np.errstate(all="ignore"):
            xa = -qk * np.expm1(t[k] - ua)  # q - e^{t_k} p of each atom
        np.add.at(x, k, xa)
        np.add.at(ep, k, 4 * _EPS * pk)
        np.add.at(eq, k, 4 * _EPS * qk)
        np.add.at(ex, k, 4 * _EPS * (qk + np.abs(xa)))
    pf = _balance(t, p, q, x, pe)
    with np.errstate(all="ignore"):
        qf = np.where(pf > 0, np.exp(np.minimum(t + np.log(pf), 709.0)), 0.0)
        ept = np.where(p > 0, np.exp(np.minimum(t + np.log(p), 709.0)), 0.0)  # e^t p
        rq = np.where(q > 0, eq / q, 0.0)
        exn = ex + np.concatenate([[0.0], ex[:-1]]) + np.concatenate([ex[1:], [0.0]])
        # a wrong imbalance leaves the balanced atom's ratio off e^{t_k}: a loss shift
        rp = np.where(ept > 0, exn / ept, 0.0) + np.where(p > 0, ep / p, 0.0) + rq
    rqn = rq + np.concatenate([[0.0], rq[:-1]]) + np.concatenate([rq[1:], [0.0]])
    err = (rqn + 8 * _EPS) * qf
    qf = np.minimum(qf, 1.0)
    rel, ab = _split_errors(qf, err)
    shift, ab_s = _split_shift(q, rp + 16 * _EPS)
    shift += 4 * _EPS * (1.0 + float(np.max(np.abs(t)))) + on_shift  # lattice is floats
    return _Lat(ka, qf, law.q_inf, rel, ab + ab_s, off, shift)


def _heaviest(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the largest entry of ``w`` strictly above (n if none) and strictly below
    (-1 if none) each position."""
    n = w.size
    idx = np.arange(n)
    # suffix maximum from k+1 on, and where it is attained (first record at or after)
    rev = w[::-1]
    smax = np.maximum.accumulate(rev)[::-1]
    rec = np.where(w >= smax, idx, n)
    arg_s = np.minimum.accumulate(rec[::-1])[::-1]
    above = np.concatenate([arg_s[1:], [n]])
    above = np.where(np.concatenate([smax[1:], [0.0]]) > 0, above, n)
    pmax = np.maximum.accumulate(w)
    rec2 = np.where(w >= pmax, idx, -1)
    arg_p = np.maximum.accumulate(rec2)
    below = np.concatenate([[-1], arg_p[:-1]])
    below = np.where(np.concatenate([[0.0], pmax[:-1]]) > 0, below, -1)
    return above, below


def _neighbours(nonempty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest non-empty index strictly above (n if none) and below (-1 if none)."""
    n = nonempty.size
    idx = np.arange(n)
    a = np.where(nonempty, idx, n)
    above = np.concatenate([np.minimum.accumulate(a[::-1])[::-1][1:], [n]])
    b = np.where(nonempty, idx, -1)
    below = np.concatenate([[-1], np.maximum.accumulate(b)[:-1]])
    return above, below


def _balance(t: np.ndarray, p: np.ndarray, q: np.ndarray, x: np.ndarray,
             pe: np.ndarray | None = None) -> np.ndarray:
    """Best of the carry strategies of :func:`_balance_with` (each one a valid garbling):
    the one that keeps the most Q-mass."""
    et = np.exp(np.minimum(t, 709.0))
    best, clean = _balance_with(t, p, q, x, pe, "none")
    if clean:  # nothing needed carrying: every strategy gives this garbling
        return best
    best_q = float(np.dot(best, et))
    for mode in ("up-down", "towards"):
        pf, _ = _balance_with(t, p, q, x, pe, mode)
        kept = float(np.dot(pf, et))
        if kept > best_q:
            best, best_q = pf, kept
    return best


def _balance_with(t: np.ndarray, p: np.ndarray, q: np.ndarray, x: np.ndarray,
                  pe: np.ndarray | None, mode: str) -> tuple[np.ndarray, bool]:
    r"""Garble merged atoms :math:`(p_k, q_k)` into atoms of ratio exactly :math:`e^{t_k}`.

    Atom :math:`k` (the losses in :math:`(t_k - h/2, t_k + h/2]`) has a second-order
    imbalance :math:`X_k = q_k - e^{t_k}p_k`. An atom with excess (:math:`X_k > 0`)
    absorbs a fraction :math:`\theta_k` of its nearest non-empty lower neighbour (ratio
    below :math:`e^{t_k}`), an atom with a deficit a fraction of its nearest upper one,
    so that :math:`(1 - \ell_k)X_k + \theta_k Y_k = 0`, where :math:`\ell_k` is the
    fraction it lends itself and :math:`Y_k` the lender's imbalance with respect to
    :math:`e^{t_k}`. Lending keeps a lender's ratio, so the fractions solve a weakly
    coupled linear system (fractions of order :math:`h`), solved by fixed-point
    iteration. An atom that cannot be balanced that way (no lender, or a lender too
    light, e.g. where the density rises steeply) may first be merged whole into a
    neighbour, as reverse connect-the-dots would carry it: ``mode="up-down"`` carries an
    excess into the next atom up and a deficit into the next atom down, ``"towards"``
    carries it into its (too light) lender, or away from the missing one, ``"none"``
    does not carry. All of this is merging, a garbling: the result is less
    informative than the truth. What still cannot be balanced keeps its P-mass and moves
    to the largest lattice point below its ratio, dropping Q-mass (optimistic; rare).
    ``x`` holds the imbalances :math:`X_k` computed without cancellation (they are tiny
    differences of large masses); ``pe`` the P-masses of atoms already on the lattice
    points (they never move or borrow, but lend). Returns the P-masses at the lattice
    points (the Q-masses are :math:`e^{t_k}` times) and whether every atom could be
    balanced without carrying.
    """
    n = t.size
    p = p.copy()
    q = q.copy()
    x = x.copy()
    pe = np.zeros(n) if pe is None else np.asarray(pe, dtype=float)
    idx = np.arange(n)
    with np.errstate(all="ignore"):
        et = np.exp(np.minimum(t, 709.0))

    def state():
        own = (p > 0) & (q > 0)
        nonempty = own | (pe > 0)
        above, below = _neighbours(nonempty)
        pt = p + pe
        with np.errstate(all="ignore"):
            X = np.where(own, x, 0.0)
            ia, ib = np.minimum(above, n - 1), np.maximum(below, 0)
            # the lender's imbalance with respect to e^{t_k}: X_l + (e^{t_l} - e^{t_k}) p_l
            y_up = np.where(above < n, x[ia] + (et[ia] - et) * pt[ia], 0.0)
            y_dn = np.where(below >= 0, x[ib] + (et[ib] - et) * pt[ib], 0.0)
        need_up = X < 0
        need_dn = X > 0
        Y = np.where(need_up, y_up, np.where(need_dn, y_dn, 0.0))
        lender = np.where(need_up, above, np.where(need_dn, below, -1))
        with np.errstate(all="ignore"):
            th = np.where(X != 0, -X / np.where(Y != 0, Y, np.inf), 0.0)
        ok = np.where(need_up, Y > 0, np.where(need_dn, Y < 0, True)) & (th <= 1.0)
        if not ok.all():
            # second choice of lender: the heaviest atom on the needed side (for laws
            # dominated by a few atoms, e.g. Laplace, randomized response)
            hu, hd = _heaviest(pt)
            with np.errstate(all="ignore"):
                ju, jd = np.minimum(hu, n - 1), np.maximum(hd, 0)
                y2 = np.where(need_up, np.where(hu < n, x[ju] + (et[ju] - et) * pt[ju], 0.0),
                              np.where(hd >= 0, x[jd] + (et[jd] - et) * pt[jd], 0.0))
                th2 = np.where(X != 0, -X / np.where(y2 != 0, y2, np.inf), 0.0)
            ok2 = np.where(need_up, y2 > 0, y2 < 0) & (th2 <= 1.0) & ~ok
            Y = np.where(ok2, y2, Y)
            lender = np.where(ok2, np.where(need_up, hu, hd), lender)
            ok = ok | ok2
        return X, Y, lender, need_up, need_dn, ok, above, below

    tiny = 1e-25 * float(np.max(q)) if q.size else 0.0
    clean = True
    for _ in range(64):
        X, Y, lender, need_up, need_dn, ok, above, below = state()
        bad = ~ok & (q > tiny)  # negligible atoms fall back (lossy) without carrying
        if not bad.any():
            break
        clean = False
        # an excess is carried upwards, a deficit downwards (towards content that can
        # balance it); without such a neighbour the atom falls back (lossy, below)
        if mode == "none":
            break
        if mode == "up-down":
            dest = np.where(need_dn, above, below)
        else:
            dest = np.where(need_dn, np.where(below >= 0, below, above),
                            np.where(above < n, above, below))
        mv = bad & (dest >= 0) & (dest < n)
        if not mv.any():
            break
        d = dest[mv]
        pm, qm = p[mv], q[mv]
        xm = x[mv] + (et[mv] - et[d]) * pm
        p[mv] = 0.0
        q[mv] = 0.0
        x[mv] = 0.0
        np.add.at(p, d, pm)
        np.add.at(q, d, qm)
        np.add.at(x, d, xm)
    X, Y, lender, need_up, need_dn, ok, above, below = state()
    use = ok & (X != 0)
    src = np.where(use, lender, 0)
    theta = np.zeros(n)
    lend = np.zeros(n)
    for _ in range(60):
        with np.errstate(all="ignore"):
            th = np.where(use, -(1.0 - lend) * X / np.where(Y != 0, Y, 1.0), 0.0)
        th = np.clip(th, 0.0, None)
        new = np.bincount(src, weights=th, minlength=n)
        converged = bool(np.all(np.abs(new - lend) <= 1e-15 * np.maximum(new, 1e-300)))
        theta, lend = th, new
        if converged:
            break
    over = lend > 1.0
    if over.any():  # over-committed lenders: their borrowers fall back
        victims = use & over[src]
        use &= ~victims
        theta = np.where(use, theta, 0.0)
        lend = np.minimum(np.bincount(src, weights=theta, minlength=n), 1.0)
    pt = p + pe
    qt = q + pe * et
    pf = (1.0 - lend) * pt + np.bincount(idx, weights=theta * pt[src], minlength=n)
    # verification: the Q-mass each balanced atom really holds; an atom left with a
    # deficit (iteration not converged, rounding) may not claim Q = P e^{t_k}: it moves
    # to the largest lattice point below its actual ratio
    q_act = (1.0 - lend) * qt + np.bincount(idx, weights=theta * qt[src], minlength=n)
    with np.errstate(all="ignore"):
        short = use & (pf * et - q_act > 64 * _EPS * pf * et)
    if short.any():
        step = t[1] - t[0] if n > 1 else 1.0
        with np.errstate(all="ignore"):
            r = np.log(q_act[short]) - np.log(pf[short])
        k = np.floor((r - t[0]) / step - 1e-9).astype(np.int64)
        k = np.minimum(k, idx[short] - 1)
        mv = pf[short].copy()
        pf[short] = 0.0
        keep = k >= 0
        np.add.at(pf, k[keep], mv[keep])
    fail = (X != 0) & ~use
    if fail.any():  # keep the P-mass at the largest lattice point below the ratio
        own = (1.0 - lend[fail]) * p[fail]
        pf[fail] -= own
        with np.errstate(all="ignore"):
            r = np.log(q[fail]) - np.log(p[fail])
        step = t[1] - t[0] if n > 1 else 1.0
        k = np.where(X[fail] > 0, idx[fail], np.floor((r - t[0]) / step).astype(np.int64))
        k = np.minimum(k, idx[fail])
        keep = k >= 0
        np.add.at(pf, k[keep], own[keep])
    return np.maximum(pf, 0.0), clean


def _lower_hull_idx(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the lower convex hull of points sorted by x (monotone chain)."""
    out: list[int] = []
    xs, ys = x.tolist(), y.tolist()
    for i in range(len(xs)):
        while len(out) >= 2:
            i1, i2 = out[-2], out[-1]
            if (ys[i2] - ys[i1]) * (xs[i] - xs[i1]) >= (ys[i] - ys[i1]) * (xs[i2] - xs[i1]):
                out.pop()
            else:
                break
        out.append(i)
    return np.asarray(out, dtype=np.int64)


def _disc_envelope(f: TradeOff, h: float, ka: int, kb: int) -> _Lat:
    r"""Sound lattice law of a factor known by a certified profile: the envelope of the
    lines :math:`1 - \hat\delta(t_k) - e^{t_k}\alpha` (each lies below ``f``)."""
    ka, kb = max(ka, int(-700 / h)), min(kb, int(700 / h))
    t = np.arange(ka, kb + 1, dtype=float) * h
    with np.errstate(all="ignore"):
        d = np.asarray(f._hockey(t), dtype=float)
    d = np.where(np.isnan(d), 1.0, d)
    d = np.minimum(np.clip(d, 0.0, 1.0) * (1.0 + 1e-9) + 1e-15, 1.0)  # float margin
    y = np.exp(t)
    hull = _lower_hull_idx(y, d)
    dh, yh = d[hull], y[hull]
    # vertices between consecutive active lines (alpha increasing = slope decreasing)
    with np.errstate(all="ignore"):
        cross = (dh[:-1] - dh[1:]) / (yh[1:] - yh[:-1])  # alpha where line i meets line i+1
        zero = (1.0 - dh[0]) / yh[0]                      # where the flattest line hits 0
    right = np.concatenate([[max(zero, 0.0)], np.maximum(cross, 0.0)])
    left = np.concatenate([np.maximum(cross, 0.0), [0.0]])
    pm = np.maximum(right - left, 0.0)
    out = np.zeros(t.size)
    out[hull] = np.minimum(pm * yh, 1.0)
    return _Lat(ka, out, float(dh[-1]), 0.0, 0.0)


def _chord_law(f: TradeOff, h: float, ka: int, kb: int) -> AtomicLaw:
    """An upper curve of a hook-only factor: chords through points of ``f`` (convexity)."""
    # points where the slope crosses -e^{t_k -+ h/2}: each chord's loss is close to t_k
    t = (np.arange(ka, kb + 2, dtype=float) - 0.5) * h
    with np.errstate(all="ignore"):
        a = np.asarray(f._loss_sf(t), dtype=float)
    a = np.unique(np.clip(np.concatenate([[0.0, 1.0], a[np.isfinite(a)]]), 0.0, 1.0))
    with np.errstate(all="ignore"):
        b = np.asarray(f._f(a), dtype=float)
    b = np.minimum(np.where(np.isnan(b), 1.0 - a, b) + 1e-12, 1.0 - a)
    b[-1] = 0.0
    pl = _hull_points(a, b)
    return AtomicLaw(*pl._atoms())


def _hull_points(a: np.ndarray, b: np.ndarray) -> LossCurve:
    idx = _lower_hull_idx(a, b)
    a, b = a[idx], b[idx]
    da, db = np.diff(a), -np.diff(b)
    with np.errstate(divide="ignore"):
        u = np.log(db) - np.log(da)
    return curve_from_atoms(np.concatenate([[np.inf], u]), np.concatenate([[0.0], da]),
                            np.concatenate([[1.0 - b[0]], db]))


def _moments(law: Law, tol: float = 1e-12) -> tuple[float, float]:
    """Q-mean and Q-variance of the finite loss (coarse: only used to pick the grid)."""
    if isinstance(law, AtomicLaw) or (isinstance(law, InverseLaw)
                                      and isinstance(law.base, AtomicLaw)):
        u, _, q = law.atoms()
        s = q.sum()
        if s <= 0:
            return 0.0, 0.0
        m = float(np.dot(u, q) / s)
        return m, float(np.dot((u - m) ** 2, q) / s)
    ql, qh, _, _ = law.quantiles(tol)
    if not (np.isfinite(ql) and np.isfinite(qh)) or qh <= ql:
        return 0.5 * (ql + qh) if np.isfinite(ql + qh) else 0.0, 0.0
    hc = (qh - ql) / 4000.0
    if isinstance(law, GenericLaw):
        lat = _disc_envelope(law.f, hc, int(math.floor(ql / hc)), int(math.ceil(qh / hc)))
        u = (lat.k0 + np.arange(lat.q.size)) * hc
        q = lat.q
    else:
        e = np.linspace(ql, qh, 4001)
        P, Q, _, _ = law.cells(e)
        with np.errstate(all="ignore"):
            u = np.where((P > 0) & (Q > 0), np.log(Q) - np.log(P), 0.5 * (e[:-1] + e[1:]))
        u = np.clip(u, e[:-1], e[1:])
        q = Q
        ua, _, qa = law.atoms()
        u = np.concatenate([u, ua])
        q = np.concatenate([q, qa])
    s = q.sum()
    if s <= 0:
        return 0.0, 0.0
    m = float(np.dot(u, q) / s)
    return m, float(np.dot((u - m) ** 2, q) / s)


# ---------------------------------------------------------------------------
# moment generating functions and Chernoff bounds
# ---------------------------------------------------------------------------
def _log_mgf(lat: _Lat, h: float, lams: np.ndarray) -> np.ndarray:
    r""":math:`K(\lambda) = \log\sum_k q_k e^{\lambda t_k}` of the finite part, rounded up.

    On the lattice :math:`e^{\lambda t_k}` is a power of :math:`e^{\lambda h}`: the terms
    are built by a cumulative product from the end where they are largest (so they lie in
    :math:`(0, 1]`), with relative error at most :math:`(k+2)\epsilon`; a result that could
    have underflowed is recomputed with ``logsumexp``.
    """
    lams = np.atleast_1d(np.asarray(lams, dtype=float))
    nz = np.flatnonzero(lat.q > 0)
    if nz.size == 0:
        return np.full(lams.shape, -np.inf)
    q = lat.q[nz[0]: nz[-1] + 1]
    S = q.size
    t_lo, t_hi = (lat.k0 + nz[0]) * h + lat.off, (lat.k0 + nz[-1]) * h + lat.off
    out = np.empty(lams.size)
    for sign in (1.0, -1.0):
        sel = np.flatnonzero(np.sign(lams) == sign) if sign > 0 else \
            np.flatnonzero(lams <= 0)
        if sel.size == 0:
            continue
        lam = lams[sel]
        with np.errstate(under="ignore"):
            r = np.exp(-np.abs(lam) * h)            # step towards the small terms
            w = np.cumprod(np.broadcast_to(r[:, None], (lam.size, S)), axis=1)
            w = np.concatenate([np.ones((lam.size, 1)), w[:, :-1]], axis=1)
            qq = q[::-1] if sign > 0 else q         # start from the largest terms
            tot = w @ qq
        ref = t_hi if sign > 0 else t_lo
        with np.errstate(divide="ignore"):
            val = lam * ref + np.log(tot)
        bad = ~(tot > 1e-250)
        if bad.any():
            t = (lat.k0 + nz[0] + np.arange(S)) * h + lat.off
            with np.errstate(divide="ignore"):
                lq = np.log(q)
            val[bad] = special.logsumexp(lam[bad, None] * t[None, :] + lq[None, :], axis=1)
        out[sel] = val
    return out + (S + 8.0) * 2.0 * _EPS + 1e-13 * np.abs(out)


_LAM_MULT = np.array([0.25, 0.4, 0.55, 0.7, 0.85, 1.0, 1.2, 1.45, 1.75, 2.1, 2.6, 3.3])


def _chernoff(Kp: np.ndarray, Km: np.ndarray, lams: np.ndarray, A: float, B: float
              ) -> tuple[float, float]:
    """Chernoff bounds (log) on Q[S > B] and Q[S < A] from a table of K(±λ)."""
    with np.errstate(all="ignore"):
        hi = float(np.min(Kp - lams * B))
        lo = float(np.min(Km + lams * A))
    return hi, lo


# ---------------------------------------------------------------------------
# convolution of lattice laws
# ---------------------------------------------------------------------------
def _gamma(n: int) -> float:
    """Per-coefficient round-off of an FFT of length n, relative to the l1 mass."""
    return 8.0 * _EPS * (math.log2(max(n, 2)) + 4.0)


def _lin_conv(a: _Lat, b: _Lat) -> tuple[_Lat, float, float]:
    """Linear convolution; returns the result and its (relative, absolute) round-off."""
    la, lb = a.q.size, b.q.size
    if la * lb <= 4_000_000 or min(la, lb) <= 16:
        q = np.convolve(a.q, b.q)
        return _Lat(a.k0 + b.k0, q, 0.0, off=a.off + b.off), 2.0 * min(la, lb) * _EPS, 0.0
    L = sfft.next_fast_len(la + lb - 1, real=True)
    A = sfft.rfft(a.q, L)
    B = sfft.rfft(b.q, L)
    Y = A * B
    q = sfft.irfft(Y, L)[: la + lb - 1]
    g = _gamma(L)
    sa, sb = float(a.q.sum()), float(b.q.sum())
    # l1 error of the result: componentwise (|dA_m| <= g sum a) or normwise
    # (||dA||_2 <= g ||A||_2, Cauchy-Schwarz against |B|), whichever is smaller
    comp = 2.0 * (g * sb * np.abs(A).sum() + g * sa * np.abs(B).sum() + g * np.abs(Y).sum())
    n2 = lambda z: math.sqrt(2.0 * float(np.dot(np.abs(z), np.abs(z))))  # noqa: E731
    norm = 2.0 * g * n2(A) * n2(B) + math.sqrt(L) * g * float(np.linalg.norm(q))
    err = min(comp, norm)
    return _Lat(a.k0 + b.k0, np.maximum(q, 0.0), 0.0, off=a.off + b.off), 0.0, float(err)


def _refine(lat: _Lat, n: int, N: int, ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Accurate :math:`(W_m/s)^n` at frequencies ``ms`` and error bounds, with
    :math:`W_m - s = \sum_j q_j(e^{-i\theta_{jm}} - 1)` summed without cancellation."""
    q = lat.q
    s = math.fsum(q.tolist())
    keep = q > 1e-30 * s
    dropped = float(q[~keep].sum())
    j = lat.k0 + np.flatnonzero(keep)
    qq = q[keep] / s
    jc = int(round(float(np.dot(j - j[0], qq)))) + int(j[0])
    d = (j - jc) % N
    d = np.where(d > N // 2, d - N, d).astype(np.int64)
    out = np.empty(ms.size, dtype=complex)
    err = np.empty(ms.size)
    ls = math.log2(max(qq.size, 2))
    contiguous = ms.size > 1 and ms[0] == 0 and np.all(np.diff(ms) == 1)
    if contiguous:
        th = 2.0 * math.pi * d / N
        u = np.cos(th) - 1j * np.sin(th)
        v = -2.0 * np.sin(0.5 * th) ** 2 - 1j * np.sin(th)
        w = v.copy()
        re = np.zeros(ms.size)
        im = np.zeros(ms.size)
        mag = np.zeros(ms.size)
        for m in range(1, ms.size):
            if m % 8 == 0:  # re-anchor the recurrence: w = e^{-i m theta} - 1 directly
                ang = 2.0 * math.pi * ((m * d) % N) / N
                ang = np.where(ang > math.pi, ang - 2.0 * math.pi, ang)
                w = -2.0 * np.sin(0.5 * ang) ** 2 - 1j * np.sin(ang)
            re[m] = np.dot(qq, w.real)
            im[m] = np.dot(qq, w.imag)
            mag[m] = np.dot(qq, np.abs(w.real) + np.abs(w.imag))
            w = u * w + v
        steps = (np.arange(ms.size) % 8).astype(float) + 1.0
    else:
        re = np.zeros(ms.size)
        im = np.zeros(ms.size)
        mag = np.zeros(ms.size)
        for i, m in enumerate(ms.tolist()):
            ang = 2.0 * math.pi * ((int(m) * d) % N) / N
            ang = np.where(ang > math.pi, ang - 2.0 * math.pi, ang)
            wr = -2.0 * np.sin(0.5 * ang) ** 2
            wi = -np.sin(ang)
            re[i] = np.dot(qq, wr)
            im[i] = np.dot(qq, wi)
            mag[i] = np.dot(qq, np.abs(wr) + np.abs(wi))
        steps = np.zeros(ms.size)
    dz = (4.0 * steps + ls + 8.0) * _EPS * mag + 2.0 * dropped / s  # |error of z|
    zr, zi = re, im
    with np.errstate(all="ignore"):
        one = 1.0 + zr
        logmod = 0.5 * np.log1p(2.0 * zr + zr * zr + zi * zi)
        arg = np.arctan2(zi, one)
        absw = np.sqrt(one * one + zi * zi)
        lw = n * logmod
        phase_int = ((ms.astype(np.int64) * (jc % N)) % N * (n % N)) % N
        phase = n * arg - 2.0 * math.pi * phase_int / N
        val = np.exp(lw) * (np.cos(phase) + 1j * np.sin(phase))
        rel = n * 2.0 * dz / np.maximum(absw - dz, 1e-300) + _EPS * (
            8.0 + np.abs(lw) + np.abs(n * arg) + 2.0 * math.pi)
        e = np.abs(val) * np.expm1(np.minimum(rel, 700.0))
    out[:] = np.where(np.isfinite(val), val, 0.0)
    err[:] = np.where(np.isfinite(e), e, 2.0)
    return out, err


def _fourier(items: list[tuple[_Lat, int]], N: int) -> tuple[np.ndarray, float, float]:
    """Circular convolution of the items (each raised to its power) on N points.

    Returns (c, scale, tau): the normalised result, the total-mass scale by which to
    multiply it, and the l1 round-off allowance of the normalised result."""
    half = N // 2 + 1
    g = _gamma(N)
    Y = np.ones(half, dtype=complex)
    mags: list[np.ndarray] = []
    errs: list[np.ndarray] = []
    x2: list[float] = []
    scale = 1.0
    for lat, n in items:
        s = math.fsum(lat.q.tolist())
        if s <= 0:
            return np.zeros(N), 0.0, 0.0
        scale *= s ** n if n * math.log(s) > -700 else 0.0
        x = np.bincount((lat.k0 + np.arange(lat.q.size)) % N, weights=lat.q / s, minlength=N)
        Z = sfft.rfft(x)
        if n == 1:
            E, dE = Z, np.full(half, g)
        else:
            aZ = np.abs(Z)
            with np.errstate(all="ignore"):
                E = Z ** n
                dE = n * np.exp((n - 1) * np.log1p(np.minimum(aZ + g, 2.0) - 1.0)) * g
                dE = dE + np.abs(E) * _EPS * (n * (np.abs(np.log(aZ)) + 4.0) + 4.0)
            dE = np.where(np.isfinite(dE), dE, 2.0)
            band = np.flatnonzero(dE > 1e-24)
            if band.size:
                if band[0] != 0:
                    band = np.concatenate([[0], band])
                gap = np.flatnonzero(band != np.arange(band.size))
                low = band[: gap[0]] if gap.size else band  # contiguous run from 0
                rest = band[low.size:]
                for ms in (low, rest):
                    if ms.size:
                        v, e = _refine(lat, n, N, ms)
                        E[ms], dE[ms] = v, e
        Y = Y * E
        mags.append(np.abs(E))
        errs.append(dE)
        x2.append(float(np.linalg.norm(x)) if n == 1 else -1.0)
    # l1 error: sum over the spectrum of |dY|; for a single (unpowered) item the
    # transform error may instead be bounded normwise, ||dZ||_2 <= g sqrt(N) ||x||_2
    # (Higham 24.1), against the 2-norm of the rest (Cauchy-Schwarz)
    tau = 0.0
    for i in range(len(items)):
        prod = np.ones(half)
        for j in range(len(items)):
            if j != i:
                prod = prod * (mags[j] + errs[j])
        comp = 2.0 * float(np.dot(errs[i], prod))
        if x2[i] >= 0:
            comp = min(comp, 2.0 * g * math.sqrt(N) * x2[i] * float(np.linalg.norm(prod)))
        tau += comp
    tau += 2.0 * float(np.sum(np.abs(Y))) * (len(items) + 2) * _EPS
    c = sfft.irfft(Y, N)
    tau += min(2.0 * g * float(np.sum(np.abs(Y))), math.sqrt(N) * g * float(np.linalg.norm(c)))
    return np.maximum(c, 0.0), scale, tau


@dataclass(slots=True)
class _Result:
    """One discretised composition (one side of one order) on the window [KA, KA+N)."""

    h: float
    KA: int
    c: np.ndarray       # Q-masses on the window (aliased)
    q_inf: float        # exact composed mass at +inf
    rel: float          # multiplicative allowance (relative errors of the masses)
    tau: float          # additive l1 allowance (round-off, absolute error parts)
    m_hi: float         # Chernoff bound on the mass above the window
    m_lo: float         # Chernoff bound on the mass below the window
    off: float = 0.0    # lattice offset: entry i sits at loss (KA + i) h + off
    shift: float = 0.0  # loss-shift allowance (charged upwards / downwards)


def _compose_lats(items: list[tuple[_Lat, int]], KA: int, N: int
                  ) -> tuple[np.ndarray, float, float, float, float]:
    """Compose lattice laws on the circular window; returns (c, q_inf, rel, tau, shift)."""
    rel = sum(n * lat.rel for lat, n in items)
    tau = sum(n * lat.abs for lat, n in items)
    shift = sum(n * lat.shift for lat, n in items)
    with np.errstate(divide="ignore"):
        lq = sum(n * math.log1p(-min(lat.q_inf, 1.0)) if lat.q_inf < 1 else -np.inf
                 for lat, n in items)
    q_inf = -math.expm1(lq) if np.isfinite(lq) else 1.0
    singles = [lat for lat, n in items if n == 1]
    powers = [(lat, n) for lat, n in items if n > 1]
    heap = [(lat.q.size, i, lat) for i, lat in enumerate(singles)]
    heapq.heapify(heap)
    done: list[_Lat] = []
    counter = len(heap)
    while len(heap) >= 2:
        la, _, a = heapq.heappop(heap)
        lb, _, b = heapq.heappop(heap)
        if la + lb - 1 > N:
            done.extend([a, b])
            done.extend(x[2] for x in heap)
            heap = []
            break
        ab, r, e = _lin_conv(a, b)
        rel += r
        tau += e
        heapq.heappush(heap, (ab.q.size, counter, ab))
        counter += 1
    done.extend(x[2] for x in heap)
    fitems = [(lat, 1) for lat in done] + powers
    if len(fitems) == 1 and fitems[0][1] == 1 and fitems[0][0].q.size <= N:
        lat = fitems[0][0]
        c = np.bincount((lat.k0 + np.arange(lat.q.size)) % N, weights=lat.q, minlength=N)
    else:
        c, scale, t = _fourier(fitems, N)
        c = c * scale
        tau += t * scale
    c = np.roll(c, -(KA % N))
    return c, q_inf, rel, tau, shift


# ---------------------------------------------------------------------------
# profiles: the sound and the optimistic answers of a composition
# ---------------------------------------------------------------------------
class _CurveProfile:
    def __init__(self, curve: TradeOff):
        self.curve = curve

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return np.asarray(self.curve._hockey(eps), dtype=float)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        c = self.curve
        if isinstance(c, LossCurve):
            return c._eps_direct(delta)
        return np.asarray(c._epsilon(delta), dtype=float)


class _MGFProfile:
    r"""Sound profile from moment generating functions: :math:`\delta(\varepsilon) \le
    (1+r)\,(Q[S=\infty] + \min_\lambda e^{K(\lambda) - \lambda\varepsilon}
    \lambda^\lambda/(1+\lambda)^{1+\lambda})`."""

    def __init__(self, K: Callable[[np.ndarray], np.ndarray], q_inf: float, rel: float,
                 scale: float, shift: float = 0.0):
        self._K = K
        self.q_inf = q_inf
        self.rel = rel
        self.shift = shift
        self.lams = np.geomspace(1e-2, 1e3, 48) / max(scale, 1e-6)
        self._table: np.ndarray | None = None

    def table(self) -> np.ndarray:
        if self._table is None:
            lam = self.lams
            c = special.xlogy(lam, lam) - special.xlogy(1.0 + lam, 1.0 + lam)
            self._table = self._K(lam) + c + lam * self.shift
        return self._table

    def delta(self, eps: np.ndarray) -> np.ndarray:
        eps = np.asarray(eps, dtype=float)
        kc = self.table()
        with np.errstate(all="ignore"):
            v = np.min(kc[None, :] - self.lams[None, :] * eps.reshape(-1, 1), axis=1)
            d = (1.0 + self.rel) * (self.q_inf + np.exp(np.minimum(v, 0.0)))
        return np.minimum(d.reshape(eps.shape), 1.0)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        delta = np.asarray(delta, dtype=float)
        kc = self.table()
        with np.errstate(all="ignore"):
            room = np.log(delta / (1.0 + self.rel) - self.q_inf)
            e = np.min((kc[None, :] - room.reshape(-1, 1)) / self.lams[None, :], axis=1)
        e = np.where(np.isnan(e), np.inf, e)
        return np.maximum(e.reshape(delta.shape), 0.0)


class _Combine:
    """min (``how='min'``) or max of several sound profiles."""

    def __init__(self, how: str, *parts: Any):
        self.how = how
        self.parts = parts

    def _red(self, vals: list[np.ndarray]) -> np.ndarray:
        return np.minimum.reduce(vals) if self.how == "min" else np.maximum.reduce(vals)

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return self._red([p.delta(eps) for p in self.parts])

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        return self._red([p.epsilon(delta) for p in self.parts])


class _LazyProfile:
    def __init__(self, thunk: Callable[[], Any]):
        self._thunk = thunk
        self._value: Any = None

    def get(self) -> Any:
        if self._value is None:
            self._value = self._thunk()
        return self._value

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return self.get().delta(eps)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        return self.get().epsilon(delta)


@dataclass(frozen=True, slots=True, eq=False)
class LazyCurve(TradeOff):
    """A trade-off curve computed on first use (the optimistic side of a composition)."""

    thunk: Callable[[], TradeOff] = field(repr=False)
    name: str = "f"
    symmetric: bool = False
    _box: list = field(default_factory=list, repr=False)

    def get(self) -> TradeOff:
        """The curve itself (computed once)."""
        if not self._box:
            self._box.append(self.thunk())
        return self._box[0]

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.symmetric

    @property
    def label(self):
        return self.name

    def __repr__(self):
        state = "computed" if self._box else "not computed yet"
        return f"LazyCurve(name={self.name!r}, {state})"

    def _f(self, alpha):
        return self.get()._f(alpha)

    def _one_minus_f(self, alpha):
        return self.get()._one_minus_f(alpha)

    def _hockey(self, eps):
        return self.get()._hockey(eps)

    def _epsilon(self, delta):
        return self.get()._epsilon(delta)

    def delta(self, eps: Any) -> Any:
        return self.get().delta(eps)

    def _loss_sf(self, t):
        return self.get()._loss_sf(t)

    def _loss_sf_q(self, t):
        return self.get()._loss_sf_q(t)

    def _atoms(self):
        return self.get()._atoms()

    def _segments(self):
        return self.get()._segments()

    def _inverse(self):
        return self.get().inverse()


@dataclass(frozen=True, slots=True)
class GridInfo:
    """How a numeric composition was computed (for reports and tests)."""

    grid_step: float
    window: tuple[float, float]
    n_points: int
    tail_bound: float
    roundoff: float
    rel_roundoff: float
    loss_shift: float = 0.0


def _eps_arg(delta: Any) -> np.ndarray:
    from ._validation import as_probability_array

    return as_probability_array("delta", delta)


def _delta_arg(eps: Any) -> np.ndarray:
    from ._validation import as_real_array

    return as_real_array("eps", eps, lo=0.0, finite=False)


def _out(x: np.ndarray, like: np.ndarray) -> Any:
    x = np.asarray(x, dtype=float).reshape(like.shape)
    return float(x) if x.ndim == 0 else x


@dataclass(frozen=True, slots=True, eq=False)
class Composition(Bracketed):
    r"""The numeric tensor product of trade-off functions, bracketed on both sides.

    ``lower`` and ``upper`` are trade-off curves with ``lower <= f1 ⊗ ... ⊗ fn <= upper``
    (see the module docstring for the construction). Every question is answered on the
    sound side: ``h(alpha)`` by ``lower``; ``delta``/``epsilon`` by the smaller of the
    lattice profile of ``lower`` and a Chernoff bound from moment generating functions
    (both upper bounds). ``delta_bounds`` and ``epsilon_bounds`` give both sides.

    Attributes
    ----------
    info : GridInfo
        Lattice step, window, size and the floating-point allowances charged.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.compose(gdp.laplace(1.0), gdp.G_mu(0.5))
    >>> lo, hi = h.epsilon_bounds(1e-5)
    >>> bool(lo <= h.epsilon(1e-5) <= hi), bool(hi - lo < 5e-3)
    (True, True)
    """

    symmetric: bool = False
    sound: Any = field(default=None, repr=False)
    other: Any = field(default=None, repr=False)
    info: GridInfo | None = field(default=None, repr=False)
    inverse_fn: Any = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.symmetric

    def __repr__(self):
        i = self.info
        extra = "" if i is None else f", grid_step={i.grid_step:.3g}, n_points={i.n_points}"
        return f"Composition(name={self.name!r}{extra})"

    def _hockey(self, eps):
        return np.clip(self.sound.delta(np.asarray(eps, dtype=float)), 0.0, 1.0)

    def _epsilon(self, delta):
        if self.symmetric:
            return self.sound.epsilon(np.asarray(delta, dtype=float))
        return self.symmetrize()._epsilon(delta)

    def delta(self, eps: Any) -> Any:
        if self.symmetric:
            return TradeOff.delta(self, eps)
        return self.symmetrize().delta(eps)

    def _inverse(self):
        if "inv" not in self._cache:
            if self.inverse_fn is not None:
                self._cache["inv"] = self.inverse_fn()
            else:
                lo = self.lower.inverse()
                up = self.upper.inverse()
                self._cache["inv"] = Composition(
                    lower=lo, upper=up, name=_inv_label(self.name), symmetric=False,
                    sound=_CurveProfile(lo), other=_CurveProfile(up), info=self.info)
        return self._cache["inv"]

    def symmetrize(self) -> TradeOff:
        r""":math:`h^S = \max\{h, h^{-1}\}` with both sides (DRS Prop. 2.4)."""
        if self.symmetric:
            return self
        if "sym" not in self._cache:
            inv = self.inverse()
            lo = _materialise(self.lower)
            lo_i = _materialise(inv.lower)
            lower = max_curves(lo, lo_i, symmetric=True, name="{" + self.name + "}^{S}")

            def upper_thunk() -> TradeOff:
                return max_curves(_materialise(self.upper), _materialise(inv.upper),
                                  symmetric=True, name="{" + self.name + "}^{S}")

            up = LazyCurve(thunk=upper_thunk, name="{" + self.name + "}^{S}", symmetric=True)
            sound = _Combine("min", _CurveProfile(lower), self.sound, inv.sound)
            self._cache["sym"] = Composition(
                lower=lower, upper=up, name="{" + self.name + "}^{S}", symmetric=True,
                sound=sound, other=_CurveProfile(up), info=self.info)
        return self._cache["sym"]

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on δ(ε) (ε ≥ 0); :meth:`delta` is the upper one."""
        if not self.symmetric:
            return self.symmetrize().delta_bounds(eps)
        e = _delta_arg(eps)
        flat = e.reshape(-1)
        with np.errstate(all="ignore"):
            lo = np.clip(np.nan_to_num(self.other.delta(flat), nan=0.0), 0.0, 1.0)
            hi = np.clip(np.nan_to_num(self.sound.delta(flat), nan=1.0), 0.0, 1.0)
        return _out(np.minimum(lo, hi), e), _out(hi, e)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on ε(δ); :meth:`epsilon` is the upper one."""
        if not self.symmetric:
            return self.symmetrize().epsilon_bounds(delta)
        d = _eps_arg(delta)
        flat = d.reshape(-1)
        with np.errstate(all="ignore"):
            lo = np.nan_to_num(self.other.epsilon(flat), nan=0.0)
            hi = np.nan_to_num(self.sound.epsilon(flat), nan=np.inf)
        lo = np.maximum(lo, 0.0)
        return _out(np.minimum(lo, hi), d), _out(np.maximum(hi, 0.0), d)


def _materialise(c: TradeOff) -> LossCurve:
    if isinstance(c, LazyCurve):
        c = c.get()
    if isinstance(c, LossCurve):
        return c
    at = c._atoms()
    if at is None:
        raise TypeError(f"expected a piecewise-linear curve; got {c!r}")
    return curve_from_atoms(*at, name=c.label, symmetric=c.is_symmetric)


# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Factor:
    pess: Law
    opt: Law
    n: int


def _factors(groups: Sequence[tuple[TradeOff, int]]) -> list[_Factor]:
    out = []
    for f, n in groups:
        if isinstance(f, Bracketed):
            out.append(_Factor(law_of(f.lower), law_of(f.upper), n))
        else:
            law = law_of(f)
            out.append(_Factor(law, law, n))
    return out


def _plan_h(factors: list[_Factor], acc: Accuracy) -> tuple[float, float, float]:
    """Lattice step from the requested accuracy; also the composed Q-mean and variance."""
    mean = var = 0.0
    k = 0
    for fa in factors:
        m, v = _moments(fa.pess)
        mean += fa.n * m
        var += fa.n * v
        k += fa.n
    if acc.grid_step is not None:
        return acc.grid_step, mean, var
    if var <= 0.0 or k == 0:
        return 1e-2, mean, var
    h = float(min(math.sqrt(8.0 * acc.rtol * var / k), 0.05 * math.sqrt(var), 0.5))
    # one atomic factor (the usual f ** n): make the spacing of its two heaviest atoms a
    # multiple of h, so that with the lattice offset both sit on lattice points
    atomic = [fa for fa in factors if fa.pess.atoms()[0].size >= 2]
    if len(atomic) == 1:
        u, p, q = atomic[0].pess.atoms()
        i, j = int(np.argmax(q)), int(np.argmax(p))
        gap = abs(float(u[i] - u[j]))
        if gap > 0 and gap / h < 1e7:
            h = gap / math.ceil(gap / h - 1e-9)
    return h, mean, var


def _offset(law: Law, h: float) -> float:
    """A lattice offset in [0, h) putting the heaviest atom of the Q-law on the lattice."""
    if isinstance(law, GenericLaw):
        return 0.0
    u, _, q = law.atoms()
    if u.size == 0 or not np.any(q > 0):
        return 0.0
    us = float(u[int(np.argmax(q))])
    return us - math.floor(us / h) * h


def _factor_window(law: Law, h: float, tol: float, cap: int,
                   off: float = 0.0) -> tuple[int, int]:
    ql, qh, _, _ = law.quantiles(tol)
    ql, qh = ql - off, qh - off
    if not np.isfinite(ql):
        ql = qh - 50.0 if np.isfinite(qh) else -50.0
    if not np.isfinite(qh):
        qh = ql + 50.0
    ka, kb = int(math.floor(ql / h)), int(math.ceil(qh / h))
    if kb - ka + 1 > cap:
        raise ValueError(
            f"the lattice for one factor needs {kb - ka + 1} points, more than "
            f"max_points={cap}; pass a larger `grid_step`, a larger `rtol` or a larger "
            f"`max_points`")
    return ka, max(kb, ka)


def _discretise(factors: list[_Factor], h: float, acc: Accuracy, side: str
                ) -> list[tuple[_Lat, int]]:
    k = sum(fa.n for fa in factors)
    tol = acc.tail_mass / max(k, 1) * 1e-3
    out = []
    for fa in factors:
        law = fa.pess if side == "pess" else fa.opt
        off = _offset(law, h)
        ka, kb = _factor_window(fa.pess, h, tol, acc.max_points, off)
        if side == "opt" and fa.opt is not fa.pess:
            ka2, kb2 = _factor_window(fa.opt, h, tol, acc.max_points, off)
            ka, kb = min(ka, ka2), max(kb, kb2)
        lat = _disc_pess(law, h, ka, kb, off) if side == "pess" else \
            _disc_opt(law, h, ka, kb, off)
        out.append((lat, fa.n))
    return out


def _K_of(lats: list[tuple[_Lat, int]], h: float) -> Callable[[np.ndarray], np.ndarray]:
    def K(lams: np.ndarray) -> np.ndarray:
        lams = np.asarray(lams, dtype=float)
        tot = np.zeros(lams.shape)
        for lat, n in lats:
            tot = tot + n * _log_mgf(lat, h, lams)
        return tot
    return K


def _lam_table(K: Callable[[np.ndarray], np.ndarray], var: float, h: float,
               acc: Accuracy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """λ grid around the Gaussian Chernoff optimum z/sd and K(±λ) on it."""
    sd = math.sqrt(max(var, h * h))
    z = math.sqrt(-2.0 * math.log(acc.tail_mass))
    lams = _LAM_MULT * z / sd
    kk = K(np.concatenate([lams, -lams]))
    return lams, kk[: lams.size], kk[lams.size:]


def _window(lams: np.ndarray, Kp: np.ndarray, Km: np.ndarray, h: float,
            acc: Accuracy, off: float) -> tuple[int, int]:
    """Lattice window [KA, KB] (losses k h + off) whose Chernoff tail bounds are at most
    ``tail_mass``."""
    logtol = math.log(acc.tail_mass)
    with np.errstate(all="ignore"):
        B = float(np.min((Kp - logtol) / lams))
        A = float(np.max((logtol - Km) / lams))
    if not (np.isfinite(A) and np.isfinite(B)):
        raise ValueError("could not bound the tails of the composed privacy loss "
                         "(non-finite moment generating function)")
    return int(math.floor((A - off) / h)), int(math.ceil((B - off) / h))


def _run(factors: list[_Factor], h: float, mean: float, var: float, acc: Accuracy,
         side: str, window: tuple[float, int] | None = None
         ) -> tuple[_Result, Callable[[np.ndarray], np.ndarray]]:
    """One side of one order: discretise, compose on the window (``(A, N)``: losses from
    about A, N points; chosen from Chernoff bounds when not given)."""
    lats = _discretise(factors, h, acc, side)
    K = _K_of(lats, h)
    off = math.fsum(n * lat.off for lat, n in lats)
    lams, Kp, Km = _lam_table(K, var, h, acc)
    if window is None:
        KA, KB = _window(lams, Kp, Km, h, acc, off)
        n = KB - KA + 1
        N = sfft.next_fast_len(max(n, 16), real=True)
        if N > acc.max_points:
            raise ValueError(
                f"the composition needs a lattice of {N} points (step {h:.3g}, window "
                f"[{KA * h + off:.4g}, {KB * h + off:.4g}]), more than "
                f"max_points={acc.max_points}; pass a larger `rtol` or `grid_step`, or "
                "raise `max_points`")
    else:
        A, N = window
        KA = int(math.floor((A - off) / h))
    c, q_inf, rel, tau, shift = _compose_lats(lats, KA, N)
    lhi, llo = _chernoff(Kp, Km, lams, KA * h + off, (KA + N - 1) * h + off)
    res = _Result(h, KA, c, q_inf, rel, tau, math.exp(min(lhi, 0.0)), math.exp(min(llo, 0.0)),
                  off, shift)
    return res, K


def _lattice_curve(res: _Result, *, optimistic: bool, name: str) -> LossCurve:
    """The LossCurve of a composed lattice law with its allowances charged (sound side) or
    subtracted (optimistic side)."""
    t = (res.KA + np.arange(res.c.size)) * res.h + res.off
    t = t - res.shift if optimistic else t + res.shift
    if not optimistic:
        # the round-off allowance bounds errors of the window masses only: it is charged
        # to the top of the window (the profile integrand increases with the loss), the
        # Chernoff bound on the mass above the window to +inf, the one below to the bottom
        q = res.c * (1.0 + res.rel)
        q[0] += res.m_lo * (1.0 + res.rel)
        q[-1] += res.tau * (1.0 + res.rel)
        q_inf = min(1.0, (res.q_inf + res.m_hi) * (1.0 + res.rel))
        sc = 1.0
        shift = 0.0
    else:  # delta >= (1 - rel) (delta_c - sigma), clamped by max(0, 1 - e^eps)
        q = res.c
        q_inf = res.q_inf
        sc = 1.0 - min(res.rel, 1.0)
        shift = res.tau + res.m_hi + res.m_lo
    if sc <= 0.0:  # no information left: the identity is a valid upper curve
        return _finish(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0]),
                       name=name, optimistic=True)
    keep = q > 0
    u, qk = t[keep][::-1], q[keep][::-1]
    with np.errstate(divide="ignore"):
        lp = np.log(qk) - u + math.log(sc)  # log P-masses: no underflow for large losses
    la = np.concatenate([[-np.inf], np.logaddexp.accumulate(lp)]) if lp.size else \
        np.array([-np.inf])
    alpha = np.exp(la)
    omb = sc * (np.concatenate([[q_inf], q_inf + np.cumsum(qk)]) - shift)
    if optimistic and omb[0] < 0.0:  # tangent from (0, beta=1): the line max(0, .)
        with np.errstate(divide="ignore", invalid="ignore"):
            ls = np.where(omb > 0, np.log(omb) - la, -np.inf)
        v = int(np.argmax(ls))
        if not np.isfinite(ls[v]) or ls[v] <= 0:
            return _finish(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0]),
                           name=name, optimistic=True)
        alpha = np.concatenate([[0.0], alpha[v:]])
        la = np.concatenate([[-np.inf], la[v:]])
        omb = np.concatenate([[0.0], omb[v:]])
        u = np.concatenate([[float(ls[v])], u[v:]])
    return _finish(alpha, omb, u, name=name, optimistic=optimistic, lalpha=la)


class _SoundProfile:
    """The lattice profile of the pessimistic curve, improved by the MGF bound where the
    lattice answer is near its floating-point floor or beyond the window."""

    def __init__(self, curve: LossCurve, mgf: _MGFProfile, top: float):
        self.curve = curve
        self.mgf = mgf
        self.top = top
        self.floor = float(curve.omb[0])

    def delta(self, eps: np.ndarray) -> np.ndarray:
        eps = np.asarray(eps, dtype=float)
        d = np.asarray(self.curve._hockey(eps), dtype=float)
        need = (d < 1e4 * self.floor) | (eps > self.top)
        if need.any():
            d = d.copy()
            d[need] = np.minimum(d[need], self.mgf.delta(eps[need]))
        return d

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        delta = np.asarray(delta, dtype=float)
        e = self.curve._eps_direct(delta)
        need = (delta < 1e4 * self.floor) | (e > self.top)
        if need.any():
            e = e.copy()
            e[need] = np.minimum(e[need], self.mgf.epsilon(delta[need]))
        return e


def _side_profiles(res: _Result, K: Callable, curve: LossCurve, var: float) -> Any:
    mgf = _MGFProfile(K, res.q_inf, res.rel, math.sqrt(max(var, res.h * res.h)), res.shift)
    return _SoundProfile(curve, mgf, (res.KA + res.c.size - 1) * res.h + res.off)


def _one_order(factors: list[_Factor], h: float, mean: float, var: float, acc: Accuracy,
               name: str) -> tuple[LossCurve, Any, Callable[[], LossCurve], GridInfo]:
    res, K = _run(factors, h, mean, var, acc, "pess")
    lower = _lattice_curve(res, optimistic=False, name=name)
    sound = _side_profiles(res, K, lower, var)
    window = (res.KA * h + res.off, res.c.size)

    def upper_thunk() -> LossCurve:
        # atoms off the lattice cost the optimistic garbling a first-order loss (h over
        # the atom spacing): a finer lattice there, the window is unchanged
        fine = 4 if any(fa.opt.atoms()[0].size for fa in factors) else 1
        fine = max(1, min(fine, acc.max_points // max(window[1], 1)))
        r2, _ = _run(factors, h / fine, mean, var, acc, "opt",
                     window=(window[0], window[1] * fine))
        return _lattice_curve(r2, optimistic=True, name=name)

    info = GridInfo(grid_step=h, window=(res.KA * h + res.off,
                                         (res.KA + res.c.size - 1) * h + res.off),
                    n_points=int(res.c.size), tail_bound=res.m_hi + res.m_lo,
                    roundoff=res.tau, rel_roundoff=res.rel, loss_shift=res.shift)
    return lower, sound, upper_thunk, info


def compose_numeric(groups: Sequence[tuple[TradeOff, int]], acc: Accuracy | None = None, *,
                    name: str = "f", symmetric: bool | None = None) -> Composition:
    r"""Numeric tensor product :math:`\bigotimes_i f_i^{\otimes n_i}` of ``(f_i, n_i)``.

    Used by :func:`gdp.compose` for everything without a closed form; call that instead.
    ``symmetric`` declares the result symmetric (default: all factors are).

    Examples
    --------
    >>> import gdp
    >>> h = gdp.pld.compose_numeric([(gdp.G_mu(1.0), 4)])   # G_2, computed numerically
    >>> lo, hi = h.epsilon_bounds(1e-5)
    >>> bool(lo <= gdp.G_mu(2.0).epsilon(1e-5) <= hi)
    True
    """
    acc = acc or Accuracy()
    groups = [(f, check_int("n", n, lo=1)) for f, n in groups]
    if symmetric is None:
        symmetric = all(f.is_symmetric for f, _ in groups)
    factors = _factors(groups)
    h, mean, var = _plan_h(factors, acc)
    lower, sound, upper_thunk, info = _one_order(factors, h, mean, var, acc, name)
    upper = LazyCurve(thunk=upper_thunk, name=name)
    other = _LazyProfile(lambda: _CurveProfile(upper.get()))

    def inverse_fn() -> Composition:
        inv_groups = [(f.inverse(), n) for f, n in groups]
        return compose_numeric(inv_groups, Accuracy(rtol=acc.rtol, grid_step=h,
                                                    tail_mass=acc.tail_mass,
                                                    max_points=acc.max_points),
                               name=_inv_label(name), symmetric=False)

    return Composition(lower=lower, upper=upper, name=name, symmetric=bool(symmetric),
                       sound=sound, other=other, info=info,
                       inverse_fn=None if symmetric else inverse_fn)


def compose_two_orders(groups: Sequence[tuple[TradeOff, int]], acc: Accuracy | None = None,
                       *, name: str = "f") -> Composition:
    r"""The curve :math:`\min\{h, h^{-1}\}^{**}` of a mechanism whose two neighbouring
    orders compose to :math:`h = \bigotimes_i f_i^{\otimes n_i}` and to
    :math:`h^{-1} = \bigotimes_i (f_i^{-1})^{\otimes n_i}` (e.g. Poisson subsampling with
    add/remove neighbours, MATH.md §6): each order is composed separately and the two are
    symmetrised only at the end. Its profile is :math:`\max(\delta_h, \delta_{h^{-1}})`.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.pld.compose_two_orders([(gdp.G_mu(1.0), 4)])
    >>> round(h.epsilon(1e-5), 2) == round(gdp.G_mu(2.0).epsilon(1e-5), 2)
    True
    """
    acc = acc or Accuracy()
    groups = [(f, check_int("n", n, lo=1)) for f, n in groups]
    f1 = _factors(groups)
    f2 = _factors([(f.inverse(), n) for f, n in groups])
    h1, m1, v1 = _plan_h(f1, acc)
    h2, m2, v2 = _plan_h(f2, acc)
    h = min(h1, h2)
    lo1, s1, up1, info = _one_order(f1, h, m1, v1, acc, name)
    lo2, s2, up2, _ = _one_order(f2, h, m2, v2, acc, _inv_label(name))
    lower = LazyCurve(thunk=lambda: hull_min_curves(lo1, lo2, name=name, symmetric=True),
                      name=name, symmetric=True)

    def upper_thunk() -> LossCurve:
        return hull_min_curves(up1(), up2(), name=name, symmetric=True)

    upper = LazyCurve(thunk=upper_thunk, name=name, symmetric=True)
    other = _LazyProfile(lambda: _CurveProfile(upper.get()))
    return Composition(lower=lower, upper=upper, name=name, symmetric=True,
                       sound=_Combine("max", s1, s2), other=other, info=info)
