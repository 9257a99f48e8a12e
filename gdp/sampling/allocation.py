r"""Random allocation ("balls in bins"): each example used in exactly one of the :math:`T`
steps of an epoch, chosen uniformly and independently; the exact law, bracketed numerically.

Theory of operation
-------------------
**The pair.** Under add/remove (or zero-out) of an example with clipping norm :math:`C`
and noise :math:`\sigma C`, the other examples' allocations are independent of the
differing one, so their contribution is a common post-processing, and one epoch of
:math:`T` steps (in units of the noise, :math:`m = 1/\sigma` per unit of sensitivity) is
the pair

.. math:: P = N(0, I_T), \qquad Q = \frac1T \sum_{t=1}^T N(m e_t, I_T),

for "remove" and :math:`(Q, P)` for "add" (Feldman & Shenfeld 2025; Chua et al. 2024,
"balls and bins"). It is exact, not a bound. When only the first :math:`s \le T` steps of
an epoch are run, the released part is a post-processing of it.

**Its loss law from one dimension.** The likelihood ratio is a mean of independent
terms,

.. math:: \Lambda = \frac{dQ}{dP}(y) = \frac{T - s}{T} + \sum_{t=1}^{s} X_t, \qquad
          X_t = \frac1T e^{m y_t - m^2/2},

i.i.d. under :math:`P` (:math:`\log(T X_t) \sim N(-m^2/2, m^2)`). A pair is fixed by the
:math:`P`-law :math:`\nu` of its likelihood ratio (the privacy loss is :math:`\log\Lambda`,
its :math:`Q`-law is :math:`\lambda\,\nu(d\lambda)`), and by Blackwell's theorem a pair is
more informative than another iff its :math:`\nu` dominates in the convex order. Replacing
each :math:`X_t` by a mean-preserving *spread* therefore gives a pair that dominates the
true one (sums of independent spreads are spreads), and replacing it by a mean-preserving
*contraction* (a conditional expectation) one that is dominated by it. So:

* **sound side** — each :math:`X_t` is put on the grid :math:`k\Delta` by connect-the-dots
  (the mass of a cell split between its two ends, preserving mass and mean; the mean
  comes from :math:`E_P[X 1_A] = Q_\ell(A)/T`, the excess of the Gaussian law of
  :math:`\ell` over the cell's left end, computed without cancellation), and the tail
  :math:`X > X_{\max}` by the limit of spreads: its :math:`P`-mass at :math:`X_{\max}`,
  its excess first moment as :math:`Q`-mass at :math:`+\infty`;
* **other side** — each cell is merged into one atom at its conditional mean (kept as
  grid index plus first moment), the tail into one atom at its mean.

The :math:`s`-fold sum is taken by binary powering with linear convolutions (FFT) on
:math:`[0, S_{\max}]`; the part of a sum beyond :math:`S_{\max}` is treated like the tail
(sound: its :math:`P`-mass at :math:`S_{\max}`, its excess first moment to
:math:`+\infty`; other side: merged at its mean), and the other side keeps the first
moments through the convolutions (:math:`F = F_1 * M_2 + M_1 * F_2`), so its atoms sit at
:math:`k\Delta + F_k/M_k` exactly (merging atoms is a contraction). Both sides are then
laws of likelihood ratios of valid pairs, composed over the epochs by the engine (its
sound side composes the sound law, its optimistic side the contracted one).

**Error analysis.** The spread adds :math:`\Delta^2/4` to the variance of each
:math:`X_t` (second order; :math:`\Delta = 1/(gT)` with ``points_per_step`` :math:`g`).
The truncations are exact bookkeeping (charged on the sound side). FFT round-off on the
sound side: each convolution of non-negative arrays errs by at most
:math:`\gamma_N (\|a\|_1\|b\|_2 + \|a\|_2\|b\|_1 + \|c\|_2)` in :math:`\ell_2`,
:math:`\gamma_N = 8\epsilon_{\rm mach}(\log_2 N + 4)` (after Higham §24.1, a documented
allowance as in :mod:`gdp.engine`), which bounds the error of the :math:`Q`-masses
:math:`\lambda_k p_k` by :math:`\|\lambda\|_2 \|e\|_2`; errors are propagated through later
convolutions, added to the errors of the cell masses, and the total :math:`\tau` is
charged by scaling the finite :math:`Q`-masses by :math:`1 - 2\tau` and putting
:math:`2\tau` at :math:`+\infty` (which raises δ by at least :math:`\tau` wherever
:math:`\delta \le 1/2`). The other side is not corrected for round-off (it only shows the
gap; ~1e-13 in δ).

The grid must reach :math:`X_{\max} = e^{m^2/2 + z m}/T` (:math:`z` from ``tail_mass``), so
the number of points grows like :math:`g\,e^{m^2/2 + zm}`: noise multipliers below about
0.7 exceed ``max_points`` and are refused with a message.

References
----------
Feldman, Shenfeld, "Privacy amplification by random allocation", arXiv 2502.08202 (2025),
and "Efficient privacy loss accounting for subsampling and random allocation" (2026);
Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang, "Scalable DP-SGD: Shuffling vs.
Poisson Subsampling", NeurIPS 2024 (balls and bins). Blackwell, "Equivalent comparisons of
experiments", Ann. Math. Stat. 1953.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.engine`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numerics import EPS
from .._validation import check_count, check_int, check_real
from ..core.tradeoff import Bracketed
from ..engine.curves import LossCurve, curve_from_atoms
from ..engine.laws import GaussianLaw

__all__ = ["allocation_epoch"]


@dataclass(slots=True)
class _Sum:
    """A law on the grid k*Delta, k < N: masses M, first moments F (offsets from the grid,
    other side only), and the allowances of the sound side."""

    M: np.ndarray
    F: np.ndarray | None
    q_inf: float = 0.0
    err_q: float = 0.0  # bound on the error of the Q-masses (sum of lambda |e|)
    err_1: float = 0.0  # bound on the l1 error of the P-masses


def _gamma(n: int) -> float:
    return 8.0 * EPS * (math.log2(max(n, 2)) + 4.0)


def _summand(m: float, T: int, delta: float, n: int, sound: bool) -> _Sum:
    """The law of X = exp(l)/T, l ~ N(-m^2/2, m^2), on the grid k*delta (k < n): spread
    (sound) or contracted (other side)."""
    k = np.arange(n)
    with np.errstate(divide="ignore"):
        edges = np.log(T * delta * k)  # loss l at the grid points (-inf at 0)
    edges = np.concatenate([edges, [np.inf]])
    law = GaussianLaw(m)
    # P-law of l is N(-m^2/2, m^2): GaussianLaw's "P"; its "Q" is N(m^2/2, m^2)
    refs = np.where(np.isfinite(edges[:-1]), edges[:-1], 0.0)
    P, Q, EP, EQ, X, EX = law.excess(edges, refs)
    X = np.where(np.isneginf(edges[:-1]), Q, X)  # the first cell: excess over 0 is Q
    EX = np.where(np.isneginf(edges[:-1]), EQ, EX)
    x1 = np.maximum(X, 0.0) / (T * delta)  # mass moved to the upper end (first moment / delta)
    top = n - 1
    err_q = float(np.sum(EX) / T + np.sum(EP * k) * delta)
    if sound:
        M = P.copy()
        up = np.minimum(x1, P)
        M -= up
        M[1:] += up[:-1]
        # the last cell is the tail beyond X_max = top*delta: its P-mass stays there, its
        # excess first moment goes to +inf (the limit of spreads)
        M[top] = P[top] + up[top - 1]
        q_inf = float(max(X[top], 0.0) / T)
        return _Sum(M=M, F=None, q_inf=q_inf, err_q=err_q, err_1=float(np.sum(EP)))
    F = np.maximum(X, 0.0) / T  # first moment above the cell's left end
    return _Sum(M=P.copy(), F=F)


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    from scipy import fft as sfft

    n = a.size + b.size - 1
    nf = sfft.next_fast_len(n, real=True)
    return sfft.irfft(sfft.rfft(a, nf) * sfft.rfft(b, nf), nf)[:n]


def _add(A: _Sum, B: _Sum, delta: float, n: int) -> _Sum:
    """The law of the sum of independent A and B, truncated to the grid k < n."""
    M = _conv(A.M, B.M)
    lam = delta * np.arange(M.size)
    if A.F is None:  # sound side: round-off allowance, clip, charge the truncated tail
        g = _gamma(M.size)
        e2 = g * (np.sum(A.M) * np.linalg.norm(B.M) + np.linalg.norm(A.M) * np.sum(B.M)
                  + np.linalg.norm(M))
        mA, mB = float(np.dot(lam[:A.M.size], A.M)), float(np.dot(lam[:B.M.size], B.M))
        err_q = (A.err_q + B.err_q + A.err_1 * mB + B.err_1 * mA
                 + float(np.linalg.norm(lam)) * e2)
        err_1 = A.err_1 + B.err_1 + math.sqrt(M.size) * e2
        M = np.maximum(M, 0.0)
        tail = M[n:]
        q_inf = A.q_inf + B.q_inf + float(np.dot(lam[n:] - lam[n - 1], tail))
        M = M[:n].copy()
        M[n - 1] += float(np.sum(tail))
        return _Sum(M=M, F=None, q_inf=q_inf, err_q=err_q, err_1=err_1)
    F = _conv(A.F, B.M) + _conv(A.M, B.F)
    M = np.maximum(M, 0.0)
    F = np.maximum(F, 0.0)
    tail = slice(n, None)
    f_top = float(np.sum(F[tail]) + np.dot(lam[tail] - lam[n - 1], M[tail]))
    M2, F2 = M[:n].copy(), F[:n].copy()
    M2[n - 1] += float(np.sum(M[tail]))
    F2[n - 1] += f_top
    return _Sum(M=M2, F=F2)


def _power(base: _Sum, s: int, delta: float, n: int) -> _Sum:
    out: _Sum | None = None
    while True:
        if s & 1:
            out = base if out is None else _add(out, base, delta, n)
        s >>= 1
        if not s:
            break
        base = _add(base, base, delta, n)
    assert out is not None
    return out


def _epoch_curve(law: _Sum, delta: float, c0: float, *, sound: bool, name: str) -> LossCurve:
    lam = delta * np.arange(law.M.size) + c0
    p = law.M
    if law.F is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = lam + np.where(p > 0, law.F / p, 0.0)
    q = lam * p
    keep = p > 0
    u = np.full(p.shape, -np.inf)
    with np.errstate(divide="ignore"):
        u[lam > 0] = np.log(lam[lam > 0])
    u, p, q = u[keep], p[keep], q[keep]
    if sound:  # round-off allowance: scale the finite Q-masses, 2 tau to +inf
        tau = min(law.err_q, 0.25)
        p, q = p * (1.0 - 2.0 * tau), q * (1.0 - 2.0 * tau)
        u = np.concatenate([u, [np.inf]])
        p = np.concatenate([p, [0.0]])
        q = np.concatenate([q, [law.q_inf + 2.0 * tau]])
    return curve_from_atoms(u, p, q, name=name, optimistic=not sound)


def allocation_epoch(m: float, steps_per_epoch: int, released: int | None = None, *,
                     points_per_step: int = 32, tail_mass: float = 1e-13,
                     max_points: int | None = None) -> Bracketed:
    r"""One epoch of random allocation: the "remove" curve :math:`T(P, Q)` with
    :math:`P = N(0, I_T)`, :math:`Q = \frac1T\sum_t N(m e_t, I_T)` restricted to the first
    ``released`` steps, bracketed (module docstring).

    Parameters
    ----------
    m : float
        Sensitivity over noise standard deviation (``1/sigma`` for DP-SGD), > 0.
    steps_per_epoch : int
        :math:`T`, the number of steps (bins) of an epoch.
    released : int, optional
        How many of the :math:`T` steps are run (default all).
    points_per_step : int
        Grid points per :math:`1/T` of the likelihood ratio (accuracy; default 32).
    tail_mass : float
        The terms are cut at :math:`X_{\max} = e^{m^2/2 + zm}/T`, :math:`\bar\Phi(z) =`
        ``tail_mass``; the sound side charges at most that much Q-mass to :math:`+\infty`
        for it (default 1e-13). When the grid would exceed ``max_points``, :math:`z` is
        lowered until it fits (a larger charge, still sound); below :math:`z = 3` the call
        is refused.
    max_points : int, optional
        Largest grid allowed (default 2**21).

    Returns
    -------
    Bracketed
        ``lower``: the curve of the spread law (sound); ``upper``: that of the contracted
        law. Both are exact piecewise-linear curves
        (:class:`gdp.engine.LossCurve`); the "add" order is the inverse.

    Examples
    --------
    >>> import gdp
    >>> from gdp.sampling.allocation import allocation_epoch
    >>> e = allocation_epoch(1.0, 1)           # one step per epoch: G_1 itself
    >>> lo, hi = e.delta_bounds(1.0)
    >>> bool(lo <= gdp.G_mu(1.0).delta(1.0) <= hi), bool(hi - lo < 1e-4)
    (True, True)
    """
    m = check_real("m", m, lo=0.0, lo_open=True)
    T = check_count("steps_per_epoch", steps_per_epoch, hi=10**6,
                    why="the epoch law is computed on steps_per_epoch x points_per_step cells")
    s = T if released is None else check_int("released", released, lo=1, hi=T)
    g = check_count("points_per_step", points_per_step, lo=2, hi=10**4)
    tail = check_real("tail_mass", tail_mass, lo=1e-300, hi=1e-3)
    cap = (1 << 21) if max_points is None else check_count("max_points", max_points,
                                                                        lo=16, hi=1 << 28)
    z = -_ndtri(tail)
    delta = 1.0 / (g * T)
    sd = math.sqrt(s * math.expm1(min(m * m, 700.0))) / T
    rest = s / T + 12.0 * sd + 4.0 * delta  # room above X_max for the rest of the sum
    # fit the grid: a smaller X_max charges a larger tail (Phi(-z) of Q-mass) to +inf
    z_fit = (math.log(max(cap / 2.0 * delta - rest, 1e-300) * T) - m * m / 2.0) / m
    if z_fit < z:
        if z_fit < 3.0:
            raise ValueError(
                f"random allocation with m={m:g} (sigma={1 / m:g}) needs a grid of more than "
                f"max_points={cap} points even with a tail of 1e-3 charged: the likelihood "
                f"ratio has a heavy tail for small noise; pass a larger `max_points` or fewer "
                f"`points_per_step`")
        z = z_fit
    xmax = math.exp(m * m / 2.0 + z * m) / T
    n_x = int(math.ceil(xmax / delta)) + 2
    n = int(math.ceil((xmax + rest) / delta)) + 2
    name = f"A_{{{T}}}(G_{{{m:g}}})" if s == T else f"A_{{{s}/{T}}}(G_{{{m:g}}})"
    c0 = (T - s) / T
    sides = []
    for sound in (True, False):
        base = _summand(m, T, delta, n_x, sound)
        pad = np.zeros(n - n_x)
        base.M = np.concatenate([base.M, pad])
        if base.F is not None:
            base.F = np.concatenate([base.F, pad])
        law = _power(base, s, delta, n)
        sides.append(_epoch_curve(law, delta, c0, sound=sound, name=name))
    return Bracketed(lower=sides[0], upper=sides[1], name=name)


def _ndtri(x: float) -> float:
    from scipy import special

    return float(special.ndtri(x))
