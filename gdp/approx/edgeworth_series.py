r"""The Edgeworth expansion of a composition (ZDLS, ICML 2020).

:func:`edgeworth` refines the normal approximation of the total privacy loss by its
second-order Edgeworth series under P and under Q, from the cumulants of the factors, and
returns an :class:`EdgeworthApprox` curve (the lower convex hull of the two one-sided
approximations): closer than the CLT in most cases, but an approximation that may err on both
sides, and labelled as such.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.approx.loss_moments`,
:mod:`gdp.approx.central_limit`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .. import _validation as val
from .._numerics import lower_convex_hull
from ..core.piecewise import PiecewiseLinear
from ..core.tradeoff import Delegating, TradeOff
from .central_limit import ApproximationWarning, _as_sequence
from .loss_moments import _SQRT_2PI, _cumulants

__all__ = ["EdgeworthApprox", "edgeworth"]

# ---------------------------------------------------------------------------
# Edgeworth
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class EdgeworthApprox(Delegating):
    r"""The Edgeworth approximation of a composed trade-off function (ZDLS). An
    approximation, not a bound.

    ``curve`` is the piecewise-linear lower convex envelope of the parametric Edgeworth
    curve (see :func:`edgeworth`); every question (``f(alpha)``, ``delta``, ``epsilon``)
    is answered from it. ``cumulants_p`` / ``cumulants_q`` are the summed cumulants
    :math:`K_1..K_4` of the total privacy loss under P and Q.
    """

    curve: PiecewiseLinear
    cumulants_p: tuple[float, float, float, float]
    cumulants_q: tuple[float, float, float, float]
    order: int
    n: int
    symmetric: bool = False

    def __post_init__(self):
        val.check_fields(self, curve=val.instance(PiecewiseLinear, "a PiecewiseLinear"),
                         cumulants_p=_cumulants4, cumulants_q=_cumulants4,
                         order=val.integer(lo=1, hi=2), n=val.count(), symmetric=val.flag())

    def __repr__(self):
        return (f"EdgeworthApprox(order={self.order}, n={self.n}, "
                f"vertices={self.curve.alpha.size}; an approximation, not a bound)")

    label_format = "\\mathrm{{Edgeworth}}_{{{self.order}}}"

    def _target(self):
        return self.curve

    def _inverse(self):
        return self.curve.inverse()


def _cumulants4(name: str, value: Any) -> tuple[float, float, float, float]:
    """Four finite cumulants K1..K4 (K2 >= 0)."""
    arr = val.as_real_array(name, value, max_ndim=1)
    if arr.size != 4:
        raise ValueError(f"`{name}` must hold the four cumulants K1..K4; got {arr.size} values")
    val.check_real(name, arr[1], lo=0.0)
    return tuple(float(v) for v in arr)


def _edgeworth_corr(z: np.ndarray, l3: float, l4: float, order: int) -> np.ndarray:
    r"""The bracket of :math:`F(z) \approx \Phi(z) - \varphi(z)[\ldots]`:
    :math:`\tfrac{\lambda_3}{6}He_2 + \tfrac{\lambda_4}{24}He_3 + \tfrac{\lambda_3^2}{72}He_5`
    (Hermite polynomials :math:`He_2=z^2-1`, :math:`He_3=z^3-3z`,
    :math:`He_5=z^5-10z^3+15z`); order 1 keeps the first term only."""
    out = l3 / 6.0 * (z * z - 1.0)
    if order >= 2:
        out = out + l4 / 24.0 * (z**3 - 3.0 * z) + l3 * l3 / 72.0 * (z**5 - 10 * z**3 + 15 * z)
    return out


def edgeworth(fs: Any, k: int | None = None, *, order: int = 2,
              n_grid: int = 4001) -> TradeOff:
    r"""Edgeworth approximation of :math:`f_1\otimes\cdots\otimes f_n` (ZDLS). **An
    approximation**, typically much closer than the CLT when the privacy loss is skewed,
    but not a bound.

    With :math:`S = \sum_i L_i` the total privacy loss, :math:`K_j^P, K_j^Q` the sums of
    the per-step cumulants of :math:`L_i` under :math:`P_i` and :math:`Q_i`,
    :math:`\lambda_j = K_j/K_2^{j/2}` and :math:`z = (t-K_1)/\sqrt{K_2}` on each side,
    the CDF of the standardised sum is expanded to second order

    .. math::
        F(z) \approx \Phi(z) - \varphi(z)\Big[\frac{\lambda_3}{6}He_2(z)
        + \frac{\lambda_4}{24}He_3(z) + \frac{\lambda_3^2}{72}He_5(z)\Big],

    and the Neyman–Pearson test "reject when :math:`S>t`" gives the parametric curve
    :math:`\alpha(t) = 1-F_P(z_P(t))`, :math:`\beta(t) = F_Q(z_Q(t))`; inverting the P-side
    expansion, :math:`f(\alpha) = \beta(\alpha^{-1}(\alpha))`.

    Parameters
    ----------
    fs, k
        As for :func:`clt` (symmetry is not required: the Q-side cumulants are computed
        separately for non-symmetric :math:`f_i`).
    order : {1, 2}
        1 keeps the :math:`\lambda_3` term only (error :math:`O(n^{-1})`); 2 also the
        :math:`\lambda_4` and :math:`\lambda_3^2` terms (error :math:`O(n^{-3/2})`) for
        non-lattice losses.
    n_grid : int
        Points per side of the grid :math:`z\in[-12, 12]` on which the curve is sampled.

    Returns
    -------
    EdgeworthApprox
        A valid trade-off function: the expansion is evaluated on the grid, clipped to
        [0, 1], the end points (0, 1) and (1, 0) added, and the lower convex envelope of
        the points taken. This repair (monotone, convex, below :math:`1-\alpha`) changes
        the curve only where the truncated expansion is not itself a trade-off function
        (far tails, strongly skewed or lattice losses).

    Notes
    -----
    Type I errors below the float range (:math:`\alpha < 10^{-308}`, reached when μ ≳ 40)
    cannot be represented; the Q-mass there is put at :math:`+\infty` (so
    :math:`f(0) < 1` and ε(δ) is ``inf`` for δ below that mass, the conservative reading)
    and an :class:`ApproximationWarning` says so.

    For lattice losses (e.g. :math:`f_{\varepsilon,0}^{\otimes k}`) the expansion has no
    continuity correction; it beats the CLT when the skewness term dominates the lattice
    effect (ε0 ≳ 0.5 with moderate k; see docs/clt_accuracy.md), not for tiny ε0.

    References
    ----------
    ZDLS Sec. 3 (the Edgeworth approximation of the composed trade-off function);
    P. Hall, "The Bootstrap and Edgeworth Expansion", Springer 1992, Sec. 2.2.

    Examples
    --------
    >>> import gdp
    >>> e = gdp.edgeworth(gdp.laplace(0.3), 20)
    >>> round(e(0.1), 3), round(gdp.G_mu(gdp.clt(gdp.laplace(0.3), 20).mu)(0.1), 3)
    (0.499, 0.498)
    """
    items = _as_sequence(fs, k)
    order = val.check_int("order", order, lo=1, hi=2)
    n_grid = val.check_count("n_grid", n_grid, lo=101, hi=10**7,
                             why="the expansion is evaluated on that many points per side")
    Kp = np.zeros(4)
    Kq = np.zeros(4)
    n = 0
    for f, m in items:
        c = _cumulants(f)
        Kp += m * np.asarray(c.p)
        Kq += m * np.asarray(c.q)
        n += m
    symmetric = all(f.is_symmetric for f, _ in items)
    tp = tuple(float(v) for v in Kp)
    tq = tuple(float(v) for v in Kq)
    if Kp[1] <= 0.0 or Kq[1] <= 0.0:
        curve = PiecewiseLinear(alpha=np.array([0.0, 1.0]), beta=np.array([1.0, 0.0]),
                                name="Edgeworth", symmetric=True)
        return EdgeworthApprox(curve=curve, cumulants_p=tp, cumulants_q=tq, order=order, n=n,
                               symmetric=True)
    sp, sq = math.sqrt(Kp[1]), math.sqrt(Kq[1])
    l3p, l4p = Kp[2] / sp**3, Kp[3] / sp**4
    l3q, l4q = Kq[2] / sq**3, Kq[3] / sq**4
    z = np.linspace(-12.0, 12.0, n_grid)
    # both sides' +-12 sd windows, and the stretch between them (large mu) at <= 0.01 sd
    t_lo = min(Kp[0] - 12.0 * sp, Kq[0] - 12.0 * sq)
    t_hi = max(Kp[0] + 12.0 * sp, Kq[0] + 12.0 * sq)
    n_mid = int(min(200_000, max(n_grid, (t_hi - t_lo) / (0.01 * min(sp, sq)))))
    t = np.unique(np.concatenate([Kp[0] + sp * z, Kq[0] + sq * z,
                                  np.linspace(t_lo, t_hi, n_mid)]))
    zp = (t - Kp[0]) / sp
    zq = (t - Kq[0]) / sq
    with np.errstate(all="ignore"):
        phi_p = np.exp(-0.5 * zp * zp) / _SQRT_2PI
        phi_q = np.exp(-0.5 * zq * zq) / _SQRT_2PI
        alpha = special.ndtr(-zp) + phi_p * _edgeworth_corr(zp, l3p, l4p, order)
        beta = special.ndtr(zq) - phi_q * _edgeworth_corr(zq, l3q, l4q, order)
    alpha = np.clip(np.nan_to_num(alpha, nan=0.0), 0.0, 1.0)
    beta = np.clip(np.nan_to_num(beta, nan=1.0), 0.0, 1.0)
    beta = np.minimum(beta, 1.0 - alpha)
    a = np.concatenate([[0.0], alpha, [1.0]])
    b = np.concatenate([[1.0], beta, [0.0]])
    o = np.lexsort((b, a))
    on = lower_convex_hull(a[o], b[o])
    ha, hb = a[o][on], b[o][on]
    curve = PiecewiseLinear(alpha=ha, beta=hb, name="Edgeworth", symmetric=symmetric)
    if hb[0] < 1.0 - 1e-12:
        warnings.warn(f"the Edgeworth curve is truncated where alpha underflows (< 1e-308): the "
                      f"Q-mass {1.0 - hb[0]:.3g} beyond is put at +inf (f(0) < 1), so epsilon "
                      f"is inf for delta below it", ApproximationWarning, stacklevel=2)
    return EdgeworthApprox(curve=curve, cumulants_p=tp, cumulants_q=tq, order=order, n=n,
                           symmetric=symmetric)
