r"""The Laplace trade-off function :math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`.

Theory of operation
-------------------
With :math:`P = \mathrm{Lap}(0,1)`, :math:`Q = \mathrm{Lap}(\mu,1)` the privacy loss is
:math:`L(x) = |x| - |x-\mu| \in [-\mu, \mu]`. Under :math:`P` it has an atom of mass 1/2 at
:math:`-\mu`, an atom :math:`e^{-\mu}/2` at :math:`\mu` and density on :math:`(-\mu,\mu)`:
:math:`P[L>t] = \tfrac12 e^{-(t+\mu)/2}` for :math:`t\in[-\mu,\mu)`. The curve (DRS
Sec. 2.5; MATH.md §3) is

.. math:: f(\alpha) = \begin{cases} 1-e^{\mu}\alpha, & \alpha < e^{-\mu}/2\\
          e^{-\mu}/(4\alpha), & e^{-\mu}/2 \le \alpha \le 1/2\\
          e^{-\mu}(1-\alpha), & \alpha > 1/2 \end{cases}

and its privacy profile is :math:`\delta(\varepsilon) = 1 - e^{(\varepsilon-\mu)/2}` for
:math:`0\le\varepsilon<\mu`, 0 beyond. The Laplace mechanism with scale :math:`b` and
sensitivity :math:`\Delta` is exactly :math:`T(\mathrm{Lap}(0,1),\mathrm{Lap}(\Delta/b,1))`-DP.

References
----------
DRS, Sec. 2.5 and Prop. 2.12; Dwork, Roth, "The Algorithmic Foundations of DP", Thm 3.6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import check_real
from .tradeoff import TradeOff

__all__ = ["Laplace", "laplace"]


@dataclass(frozen=True, slots=True)
class Laplace(TradeOff):
    r""":math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`; construct with :func:`laplace`."""

    mu: float

    is_symmetric = True

    def __post_init__(self):
        object.__setattr__(self, "mu", check_real("mu", self.mu, lo=0.0, finite=False))

    @property
    def label(self):
        return f"\\mathrm{{Lap}}_{{{self.mu:g}}}"

    def _f(self, alpha):
        a = np.asarray(alpha, float)
        mu = self.mu
        if math.isinf(mu):
            return np.zeros_like(a)
        em = math.exp(-mu)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            left = 1.0 - a / em
            mid = em / (4.0 * a)
        right = em * (1.0 - a)
        return np.where(a < em / 2, left, np.where(a <= 0.5, mid, right))

    def _one_minus_f(self, alpha):
        a = np.asarray(alpha, float)
        mu = self.mu
        if math.isinf(mu):
            return np.ones_like(a)
        em = math.exp(-mu)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            left = a / em
            mid = 1.0 - em / (4.0 * a)
        right = -math.expm1(-mu) + em * a
        return np.where(a < em / 2, left, np.where(a <= 0.5, mid, right))

    def _hockey(self, eps):
        t = np.asarray(eps, float)
        mu = self.mu
        with np.errstate(over="ignore", invalid="ignore"):
            inside = -np.expm1((t - mu) / 2.0)
            below = -np.expm1(t)
        out = np.where(t >= mu, 0.0, np.where(t >= -mu, inside, below))
        return np.clip(out, 0.0, 1.0)

    def _loss_sf(self, t):
        t = np.asarray(t, float)
        mu = self.mu
        with np.errstate(over="ignore"):
            v = 0.5 * np.exp(-(t + mu) / 2.0)
        return np.where(t < -mu, 1.0, np.where(t >= mu, 0.0, v))

    def _loss_sf_q(self, t):
        t = np.asarray(t, float)
        mu = self.mu
        with np.errstate(over="ignore"):
            v = 1.0 - 0.5 * np.exp((t - mu) / 2.0)
        return np.where(t < -mu, 1.0, np.where(t >= mu, 0.0, v))


def laplace(mu: float) -> Laplace:
    r"""The Laplace trade-off function :math:`T(\mathrm{Lap}(0,1),\mathrm{Lap}(\mu,1))`.

    A Laplace mechanism with sensitivity Δ and scale b is ``laplace(Δ / b)``-DP; this is
    tighter than the :math:`f_{\mu,0}` (pure ε = μ) guarantee.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.laplace(1.0)
    >>> round(f(0.25), 6)
    0.367879
    >>> round(f.delta(0.5), 6)
    0.221199
    """
    return Laplace(mu=mu)
