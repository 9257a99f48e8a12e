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

import numpy as np

from ._validation import check_probability, check_real
from .tradeoff import TradeOff

__all__ = ["EpsDelta", "f_eps_delta"]


@dataclass(frozen=True, slots=True)
class EpsDelta(TradeOff):
    r""":math:`f_{\varepsilon,\delta}`; construct with :func:`f_eps_delta`."""

    eps: float
    delta_: float = 0.0  # trailing underscore: ``delta`` is the privacy-profile method

    is_symmetric = True

    def __repr__(self):
        return f"f_eps_delta(eps={self.eps!r}, delta={self.delta_!r})"

    def __post_init__(self):
        object.__setattr__(self, "eps", check_real("eps", self.eps, lo=0.0, finite=False))
        object.__setattr__(self, "delta_", check_probability("delta", self.delta_))

    @property
    def label(self):
        return f"f_{{{self.eps:g},{self.delta_:g}}}"

    @property
    def _alpha_star(self) -> float:
        if math.isinf(self.eps):
            return 0.0
        return (1.0 - self.delta_) / (1.0 + math.exp(self.eps))

    def _f(self, alpha):
        if math.isinf(self.eps):
            return np.zeros_like(alpha)
        a = np.asarray(alpha, float)
        with np.errstate(over="ignore", invalid="ignore"):
            l1 = 1.0 - self.delta_ - math.exp(self.eps) * a
        l2 = math.exp(-self.eps) * (1.0 - self.delta_ - a)
        return np.maximum(0.0, np.maximum(l1, l2))

    def _one_minus_f(self, alpha):
        if math.isinf(self.eps):
            return np.ones_like(alpha)
        a = np.asarray(alpha, float)
        with np.errstate(over="ignore"):
            v1 = self.delta_ + math.exp(self.eps) * a
        v2 = -math.expm1(-self.eps) + math.exp(-self.eps) * (self.delta_ + a)
        return np.minimum(1.0, np.minimum(v1, v2))

    def _vertices(self):
        s = self._alpha_star
        return np.array([0.0, s, 1.0 - self.delta_, 1.0]), np.array([1.0 - self.delta_, s, 0.0, 0.0])

    def _hockey(self, eps):
        t = np.asarray(eps, float)
        va, vb = self._vertices()
        with np.errstate(over="ignore", invalid="ignore"):
            vals = (1.0 - vb)[None, :] - np.exp(t)[:, None] * va[None, :]
            vals = np.where(np.isnan(vals), -np.inf, vals)  # inf * 0 at the alpha=0 vertex
        out = vals.max(axis=1)
        # exact values at the kinks avoid rounding in 1 - (1-delta)
        out = np.where(t == self.eps, self.delta_, out)
        out = np.where(np.isposinf(t), self.delta_, out)
        return np.clip(out, 0.0, 1.0)

    def _atoms(self):
        if math.isinf(self.eps):
            return np.array([-np.inf, np.inf]), np.array([1.0, 0.0]), np.array([0.0, 1.0])
        s = self._alpha_star
        big = (1.0 - self.delta_) - s  # = e^eps * s
        loss = np.array([np.inf, self.eps, -self.eps, -np.inf])
        p = np.array([0.0, s, big, self.delta_])
        q = np.array([self.delta_, big, s, 0.0])
        keep = (p > 0) | (q > 0)
        return loss[keep], p[keep], q[keep]

    def _loss_sf(self, t):
        loss, p, _ = self._atoms()
        t = np.asarray(t, float)
        return (p[None, :] * (loss[None, :] > t[..., None])).sum(-1)

    def _loss_sf_q(self, t):
        loss, _, q = self._atoms()
        t = np.asarray(t, float)
        return (q[None, :] * (loss[None, :] > t[..., None])).sum(-1)

    def _segments(self):
        # lines 1 - delta - e^eps a  and  e^-eps (1 - delta - a) = 1 - d2 - e^-eps a
        d2 = -math.expm1(-self.eps) + math.exp(-self.eps) * self.delta_
        return np.array([self.eps, -self.eps]), np.array([self.delta_, min(d2, 1.0)])

    def _dominates_exact(self, other):
        if isinstance(other, EpsDelta):
            return self.eps <= other.eps and self.delta_ <= other.delta
        return None


def f_eps_delta(eps: float, delta: float = 0.0) -> EpsDelta:
    r"""The trade-off function of (ε, δ)-DP (DRS Prop. 2.5).

    .. math:: f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1-\delta-e^{\varepsilon}\alpha,\
              e^{-\varepsilon}(1-\delta-\alpha)\}

    Parameters
    ----------
    eps : float
        ε ≥ 0 (``inf`` allowed: no privacy).
    delta : float
        δ ∈ [0, 1].

    Examples
    --------
    >>> import gdp
    >>> f = gdp.f_eps_delta(1.0, 1e-5)
    >>> round(f(0.1), 6)
    0.728172
    >>> f.delta(1.0)
    1e-05
    """
    return EpsDelta(eps=eps, delta_=delta)
