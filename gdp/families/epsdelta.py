r"""(ε, δ)-differential privacy as a trade-off function.

Theory of operation
-------------------
:math:`f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1-\delta-e^{\varepsilon}\alpha,\
e^{-\varepsilon}(1-\delta-\alpha)\}`, and a mechanism is (ε, δ)-DP iff it is
:math:`f_{\varepsilon,\delta}`-DP (DRS Prop. 2.5). The curve is piecewise linear with
vertices :math:`(0, 1-\delta)`, :math:`(\alpha^*, \alpha^*)` with
:math:`\alpha^* = (1-\delta)/(1+e^{\varepsilon})`, and :math:`(1-\delta, 0)`; as a pair of
distributions it has Q-mass δ at loss :math:`+\infty`, P-mass δ at :math:`-\infty`, and
two atoms at :math:`\pm\varepsilon` (randomized response, :math:`f_{\varepsilon,0}`).

References
----------
DRS Prop. 2.5; Kairouz, Oh, Viswanath, ICML 2015 (randomized response, optimal composition).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import special

from .._numerics import EPS, step_until
from .._validation import check_probability, check_real
from ..core.tradeoff import Group, SidedProfile, TradeOff

__all__ = ["EpsDelta", "f_eps_delta"]

@dataclass(frozen=True, slots=True)
class EpsDelta(SidedProfile, TradeOff):
    r""":math:`f_{\varepsilon,\delta}`; construct with :func:`f_eps_delta`.

    Notes
    -----
    Its one-order profile (equal to :meth:`delta`, the curve being symmetric) is, with
    :math:`h` the profile of randomized response :math:`f_{\varepsilon,0}`,

    .. math:: \delta(t) = \delta + (1-\delta)\,h(t),\qquad
              h(t) = \begin{cases} 0, & t \ge \varepsilon\\
              \dfrac{1-e^{t-\varepsilon}}{1+e^{-\varepsilon}}, & |t| < \varepsilon\\
              1-e^{t}, & t \le -\varepsilon \end{cases}

    (:math:`f_{\varepsilon,\delta} = f_{\varepsilon,0}\otimes f_{0,\delta}`), evaluated
    with ``expm1`` so that δ = 1e-300 survives; its inverse gives
    :math:`\varepsilon(\delta')` in closed form. ``eps = inf`` is the curve
    :math:`\equiv 0` (no privacy; the lower semicontinuous limit).
    """

    eps: float
    delta_: float = 0.0  # trailing underscore: ``delta`` is the privacy-profile method

    is_symmetric = True

    def __repr__(self):
        return f"f_eps_delta(eps={self.eps!r}, delta={self.delta_!r})"

    def __post_init__(self):
        object.__setattr__(self, "eps", check_real("eps", self.eps, lo=0.0, finite=False))
        object.__setattr__(self, "delta_", check_probability("delta_", self.delta_))

    label_format = "f_{{{self.eps:g},{self.delta_:g}}}"

    @property
    def _alpha_star(self) -> float:
        """The kink :math:`\\alpha^* = (1-\\delta)/(1+e^{\\varepsilon})` (on the diagonal)."""
        return (1.0 - self.delta_) * float(special.expit(-self.eps))

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if math.isinf(self.eps):
            return np.zeros_like(a)
        with np.errstate(over="ignore", invalid="ignore"):
            l1 = np.where(a > 0, (1.0 - self.delta_) - np.exp(self.eps) * a, 1.0 - self.delta_)
        l2 = math.exp(-self.eps) * ((1.0 - self.delta_) - a)
        return np.maximum(0.0, np.maximum(l1, l2))

    def _one_minus_f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if math.isinf(self.eps):
            return np.ones_like(a)
        with np.errstate(over="ignore", invalid="ignore"):
            v1 = np.where(a > 0, self.delta_ + np.exp(self.eps) * a, self.delta_)
        v2 = -math.expm1(-self.eps) + math.exp(-self.eps) * (self.delta_ + a)
        return np.minimum(1.0, np.minimum(v1, v2))

    def _rr_profile(self, t: np.ndarray) -> np.ndarray:
        """Profile h(t) of randomized response f_{eps,0} (finite eps), any real t or +inf."""
        e = self.eps
        with np.errstate(over="ignore", invalid="ignore"):
            inner = -np.expm1(t - e) / (1.0 + math.exp(-e))
            outer = -np.expm1(t)
        return np.where(t >= e, 0.0, np.where(t > -e, inner, outer))

    def _profile(self, t: np.ndarray, side: float) -> np.ndarray:
        """δ + (1 - δ) h(t) rounded up (``side=1``) or down (``side=-1``): h is at most 4
        ulps off (expm1 of an argument that is exact by Sterbenz's lemma or rounded once,
        an exp, a sum and a division), the product, the sum and 1 - δ add 1.5, so 8 ulps
        bound it; where h = 0 the answer δ is exact."""
        t = np.asarray(t, dtype=float)
        if math.isinf(self.eps):
            return np.ones_like(t)  # f = 0: sup_x 1 - e^t x = 1
        d = self.delta_
        h = self._rr_profile(t)
        v = d + (1.0 - d) * h * (1.0 + side * 8 * EPS)
        v = np.where(h > 0, np.nextafter(v, side * np.inf), d)
        return np.clip(v, 0.0, 1.0)

    def _symmetric_exact(self):
        return True

    def _omf_lower(self, alpha):
        # 1 - f = min(1, delta + e^eps a, 1 - e^-eps (1 - delta - a)): each line is a sum of
        # non-negative terms, 4 ulps from exact (exp, a product, sums); 1 is exact
        a = np.asarray(alpha, dtype=float)
        if math.isinf(self.eps):
            return np.ones_like(a)
        d, e = self.delta_, self.eps
        with np.errstate(over="ignore", invalid="ignore"):
            v1 = np.where(a > 0, d + np.exp(e) * a, d)
        v2 = -math.expm1(-e) + math.exp(-e) * (d + a)
        low = 1.0 - 8 * EPS
        return np.minimum(1.0, np.minimum(v1 * low, v2 * low))

    def _lines(self):
        # f = max(0, 1 - delta - e^eps a, 1 - d2 - e^-eps a): exact lines, a mirrored pair;
        # d2 = 1 - e^-eps (1 - delta) is rounded, so lowered by 4 ulps
        if math.isinf(self.eps):
            return np.array([0.0]), np.array([1.0]), True  # f = 0 = max(0, -alpha)
        d2 = -math.expm1(-self.eps) + math.exp(-self.eps) * self.delta_
        d2 = max(math.nextafter(d2 * (1.0 - 4 * EPS), -math.inf), 0.0)
        return np.array([self.eps, -self.eps]), np.array([self.delta_, min(d2, 1.0)]), True

    def _epsilon(self, delta):
        # smallest t >= 0 with delta_ + (1 - delta_) h(t) <= delta, h as in _rr_profile
        dl = np.asarray(delta, dtype=float)
        out = np.full(dl.shape, np.inf)
        if math.isinf(self.eps):
            return np.where(dl >= 1.0, 0.0, np.inf)
        d, e = self.delta_, self.eps
        d0 = float(self._hockey(np.zeros(1))[0])
        out[dl >= d0] = 0.0
        out[(dl == d) & (dl < d0)] = e
        mid = (dl > d) & (dl < d0)
        if mid.any():
            r = (dl[mid] - d) / (1.0 - d)
            t = e + np.log1p(-r * (1.0 + math.exp(-e)))
            t = np.clip(t, 0.0, e)
            # rounding must not leave us on the unsafe side: step up until delta(t) <= target
            t = step_until(lambda x: self._hockey(x) <= dl[mid], t, np.inf, tries=64)
            out[mid] = np.where(self._hockey(t) <= dl[mid], t, e)
        return out

    def _atoms(self):
        if math.isinf(self.eps):
            return np.array([-np.inf, np.inf]), np.array([1.0, 0.0]), np.array([0.0, 1.0])
        s = self._alpha_star
        big = (1.0 - self.delta_) * float(special.expit(self.eps))  # = e^eps * s
        loss = np.array([np.inf, self.eps, -self.eps, -np.inf])
        p = np.array([0.0, s, big, self.delta_])
        q = np.array([self.delta_, big, s, 0.0])
        keep = (p > 0) | (q > 0)
        return loss[keep], p[keep], q[keep]

    def _loss_sf(self, t):
        loss, p, _ = self._atoms()
        t = np.asarray(t, dtype=float)
        return (p * (loss > t[..., None])).sum(-1)

    def _loss_sf_q(self, t):
        loss, _, q = self._atoms()
        t = np.asarray(t, dtype=float)
        return (q * (loss > t[..., None])).sum(-1)

    def _group(self, k):
        return _EpsDeltaGroup(base=self, k=k)

    def _dominates_exact(self, other):
        if isinstance(other, EpsDelta):
            # f_{e,d} >= f_{e',d'} iff f_{e,d} lies above the line 1 - d' - e^{e'} a (the
            # mirrored line follows by symmetry), i.e. its profile at e' is <= d'
            if math.isinf(other.eps):
                return True
            return bool(self._hockey(np.array([other.eps]))[0] <= other.delta_)
        return None


@dataclass(frozen=True, slots=True, eq=False)
class _EpsDeltaGroup(Group):
    r"""Group privacy of :math:`f_{\varepsilon,0}`: the generic iteration
    :math:`1-(1-f)^{\circ k}` (DRS Thm 2.14), plus the exact rule that it dominates
    :math:`f_{k\varepsilon,0}`: with :math:`u = 1 - f_{\varepsilon,0} \le
    \min(e^\varepsilon x, 1 - e^{-\varepsilon}(1-x))` and :math:`u` non-decreasing,
    induction gives :math:`u^{\circ k} \le \min(e^{k\varepsilon}x, 1 -
    e^{-k\varepsilon}(1-x)) = 1 - f_{k\varepsilon,0}` (the group property of pure DP). So
    it dominates :math:`f_{\varepsilon',\delta'}` whenever :math:`\varepsilon' \ge
    k\varepsilon`, decided in exact rational arithmetic."""

    def _dominates_exact(self, other):
        if not isinstance(other, EpsDelta) or self.base.delta_ > 0.0:
            return None
        if math.isinf(other.eps) or (math.isfinite(self.base.eps) and Fraction(other.eps)
                                     >= self.k * Fraction(self.base.eps)):
            return True
        return None


def f_eps_delta(eps: float, delta: float = 0.0) -> EpsDelta:
    r"""The trade-off function of (ε, δ)-DP (DRS Prop. 2.5).

    .. math:: f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1-\delta-e^{\varepsilon}\alpha,\
              e^{-\varepsilon}(1-\delta-\alpha)\}

    Parameters
    ----------
    eps : float
        ε ≥ 0 (``inf`` allowed: no privacy, the curve 0).
    delta : float
        δ ∈ [0, 1].

    Notes
    -----
    Piecewise linear and symmetric; :meth:`~gdp.TradeOff.delta` and
    :meth:`~gdp.TradeOff.epsilon` are closed forms (see :class:`EpsDelta`), and so is
    dominance between two such curves.

    References
    ----------
    DRS Prop. 2.5 (the curve) and Prop. 2.12 (the profile).

    Examples
    --------
    >>> import gdp
    >>> f = gdp.f_eps_delta(1.0, 1e-5)
    >>> round(f(0.1), 6)
    0.728162
    >>> f.delta(1.0)
    1e-05
    >>> round(f.delta(0.5), 6)
    0.287656
    >>> f.epsilon(1e-5)
    1.0
    """
    return EpsDelta(eps=check_real("eps", eps, lo=0.0, finite=False),
                    delta_=check_probability("delta", delta))
