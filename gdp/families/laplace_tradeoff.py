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

from .._numerics import EPS, step_until
from .location import LocationFamily

__all__ = ["Laplace", "laplace"]

@dataclass(frozen=True, slots=True)
class Laplace(LocationFamily):
    r""":math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`; construct with :func:`laplace`.

    Notes
    -----
    Everything is closed form: the curve (evaluated in log space, so μ up to 700 and
    beyond gives finite values, and ``mu = inf`` is the curve 0), the profile
    :math:`\delta(t) = 1 - e^{(t-\mu)/2}` on :math:`[-\mu, \mu)` (:math:`1 - e^t` below,
    0 above), its inverse :math:`\varepsilon(\delta) = \mu + 2\log(1-\delta)` (clipped at
    0), the privacy-loss law, dominance (decreasing in μ) and group privacy
    (:math:`1-(1-f_\mu)^{\circ k} = f_{k\mu}`, as for every location family with a
    monotone likelihood ratio: :math:`1 - f_\mu = S_\mu \circ S_0^{-1}` with :math:`S_m`
    the survival function of :math:`\mathrm{Lap}(m, 1)`, and
    :math:`S_0^{-1}\circ S_\mu` shifts by μ).
    """

    symbol = "\\mathrm{Lap}"

    def _f(self, alpha):
        return self._pieces(alpha, one_minus=False)

    def _one_minus_f(self, alpha):
        return self._pieces(alpha, one_minus=True)

    def _pieces(self, alpha, *, one_minus: bool) -> np.ndarray:
        """The three pieces of the curve (module docstring), or of 1 - f without
        cancellation, chosen by log α against log(e^{-μ}/2), so e^{-μ} never underflows."""
        a = np.asarray(alpha, dtype=float)
        mu = self.mu
        if math.isinf(mu):  # the curve 0 (no privacy)
            return np.full(a.shape, 1.0 if one_minus else 0.0)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            la = np.log(a)
            e_left = np.exp(la + mu)  # e^mu a
            log_mid = -mu - math.log(4.0) - la  # log(e^-mu / (4 a))
            if one_minus:
                pieces = (e_left, -np.expm1(log_mid), -math.expm1(-mu) + math.exp(-mu) * a)
            else:
                pieces = (1.0 - e_left, np.exp(log_mid), math.exp(-mu) * (1.0 - a))
        out = np.where(la < -mu - _LOG2, pieces[0], np.where(a <= 0.5, *pieces[1:]))
        return np.where(a == 0, 0.0 if one_minus else 1.0, out)

    def _hockey(self, eps):
        t = np.asarray(eps, dtype=float)
        mu = self.mu
        if math.isinf(mu):
            return np.ones_like(t)  # f = 0: sup_x 1 - e^t x = 1, also at t = inf
        with np.errstate(over="ignore", invalid="ignore"):
            inside = -np.expm1((t - mu) / 2.0)
            below = -np.expm1(t)
        out = np.where(t >= mu, 0.0, np.where(t >= -mu, inside, below))
        # expm1 (an ulp) of an argument that is exact or rounded once (half an ulp, which
        # moves -expm1(x), x < 0, by at most as much relatively): 1.5 ulps; raised by 4
        return np.clip(out * (1.0 + 4 * EPS), 0.0, 1.0)

    def _hockey_upper(self, eps):
        return self._hockey(eps)

    def _hockey_lower(self, eps):
        return np.asarray(self._hockey(eps)) * (1.0 - 8 * EPS)

    def _omf_lower(self, alpha):
        # exp/expm1 of arguments of size |log a| + mu rounded once: relative error at most
        # a few ulps of that size
        a = np.asarray(alpha, dtype=float)
        with np.errstate(divide="ignore"):
            size = 8.0 + np.abs(np.log(np.where(a > 0, a, 1.0))) + \
                (0.0 if math.isinf(self.mu) else self.mu)
        return np.maximum(np.asarray(self._one_minus_f(a)) * (1.0 - 4 * EPS * size), 0.0)

    def _epsilon(self, delta):
        d = np.asarray(delta, dtype=float)
        mu = self.mu
        if math.isinf(mu):
            return np.where(d >= 1.0, 0.0, np.inf)
        # invert the raised profile: delta(t) (1 + 4 eps) <= d on mu > t >= 0 is
        # t >= mu + 2 log(1 - d / (1 + 4 eps)); starting there, not at the unraised root,
        # keeps the correction a few ulps even where the answer is near 0 (a relative step
        # from 0 cannot reach it)
        with np.errstate(divide="ignore"):
            t = np.maximum(mu + 2.0 * np.log1p(-d / (1.0 + 4 * EPS)), 0.0)
        t = np.where(d <= 0.0, mu, t)
        # rounding must not leave us on the unsafe side: step up until delta(t) <= target
        t = step_until(lambda x: self._hockey(x) <= d, t, np.inf, tries=64)
        return np.where(self._hockey(t) <= d, t, mu)

    def _loss_sf(self, t):
        t = np.asarray(t, dtype=float)
        mu = self.mu
        with np.errstate(over="ignore", invalid="ignore"):
            v = 0.5 * np.exp(-(t + mu) / 2.0)
        out = np.where(t < -mu, 1.0, np.where(t >= mu, 0.0, v))
        return np.where(np.isnan(out), 0.0, out)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        mu = self.mu
        if math.isinf(mu):
            return np.where(np.isposinf(t), 0.0, 1.0)  # Q[L = +inf] = 1
        with np.errstate(over="ignore", invalid="ignore"):
            v = 1.0 - 0.5 * np.exp((t - mu) / 2.0)
        return np.where(t < -mu, 1.0, np.where(t >= mu, 0.0, v))



_LOG2 = math.log(2.0)


def laplace(mu: float) -> Laplace:
    r"""The Laplace trade-off function :math:`T(\mathrm{Lap}(0,1),\mathrm{Lap}(\mu,1))`.

    .. math:: f(\alpha) = \begin{cases} 1-e^{\mu}\alpha, & \alpha < e^{-\mu}/2\\
              e^{-\mu}/(4\alpha), & e^{-\mu}/2 \le \alpha \le 1/2\\
              e^{-\mu}(1-\alpha), & \alpha > 1/2 \end{cases}

    A Laplace mechanism with sensitivity Δ and scale b is ``laplace(Δ / b)``-DP; this is
    tighter than the :math:`f_{\mu,0}` (pure ε = μ) guarantee.

    Parameters
    ----------
    mu : float
        μ ≥ 0 (``inf`` allowed: no privacy, the curve 0).

    References
    ----------
    DRS Sec. 2.5 (the curve) and Prop. 2.12 (the profile); MATH.md §3.

    Examples
    --------
    >>> import gdp, math
    >>> f = gdp.laplace(1.0)
    >>> round(f(0.25), 12) == round(math.exp(-1) / (4 * 0.25), 12)     # the middle piece
    True
    >>> round(f.delta(0.5), 6)
    0.221199
    >>> round(f.epsilon(0.1), 6)
    0.789279
    """
    return Laplace(mu=mu)
