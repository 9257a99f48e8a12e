r"""The exact k-fold randomized response :math:`f_{\varepsilon,0}^{\otimes k}`.

:func:`randomized_response_power` builds the curve from the binomial law of the loss
:math:`(k-2j)\varepsilon` in log space; :class:`RandomizedResponsePower` answers its profile
and ε(δ) from :mod:`gdp.engine.kov`, so they stay exact where the type I errors of the curve's
vertices underflow.

Imports: the ground floor, :mod:`gdp.engine.curves`, :mod:`gdp.engine.kov`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from scipy import special

from .._numerics import EPS
from .._validation import check_count, check_fields, check_real, count, real
from .curves import LossCurve, curve_from_atoms

__all__ = ["randomized_response_power", "RandomizedResponsePower"]

# ---------------------------------------------------------------------------
# exact compositions of atomic laws
# ---------------------------------------------------------------------------
_K_MAX = 10**7


def randomized_response_power(eps: float, k: int) -> LossCurve:
    r"""The exact :math:`f_{\varepsilon,0}^{\otimes k}` (k-fold randomized response).

    .. math:: L = (k - 2j)\varepsilon,\quad P = \binom{k}{j}\frac{e^{j\varepsilon}}
              {(1+e^\varepsilon)^k},\quad Q = \binom{k}{j}\frac{e^{(k-j)\varepsilon}}
              {(1+e^\varepsilon)^k},\qquad j = 0, \dots, k,

    computed in log space (atoms below the smallest double are dropped).

    Examples
    --------
    >>> import gdp
    >>> h = gdp.engine.randomized_response_power(1.0, 2)
    >>> round(h.delta(0.0), 6)
    0.462117
    """
    eps = check_real("eps", eps, lo=0.0, hi=700.0)
    k = check_count("k", k, hi=_K_MAX, why="the exact law has k + 1 atoms")
    j = np.arange(k + 1, dtype=float)
    lc = special.gammaln(k + 1.0) - special.gammaln(j + 1.0) - special.gammaln(k - j + 1.0)
    lz = k * np.logaddexp(0.0, eps)
    lp = lc + j * eps - lz
    lq = lc + (k - j) * eps - lz
    u = (k - 2.0 * j) * eps
    # gammaln and exp of log-masses up to |lc| + k eps: relative errors of a few ulps of
    # that size (the table margin of gdp.engine.kov)
    rerr = 16.0 * EPS * float(special.gammaln(k + 1.0) + k * eps + lz + k + 1.0)
    curve = curve_from_atoms(u, np.exp(lp), np.exp(lq), symmetric=True,
                             name=f"f_{{{eps:g},0}}^{{\\otimes {k}}}", rerr=rerr)
    return _rr_power_from_curve(curve, float(eps), k, 0.0)


def _rr_power_from_curve(curve: LossCurve, eps0: float, k: int,
                        delta: float) -> RandomizedResponsePower:
    r"""The :class:`RandomizedResponsePower` with the vertices of ``curve`` (the exact curve of
    :math:`f_{\varepsilon_0,0}^{\otimes k} \otimes f_{0,\delta}`) and split-off δ
    ``delta`` (rounded up by the caller)."""
    return RandomizedResponsePower(**{f.name: getattr(curve, f.name) for f in fields(curve)},
                                   eps0=eps0, k=k, delta_=delta)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RandomizedResponsePower(LossCurve):
    r""":math:`f_{\varepsilon_0,0}^{\otimes k}` as an exact curve whose privacy profile and
    ε(δ) come from the binomial law in log space (:func:`gdp.engine.kov_delta`,
    :func:`gdp.engine.kov_epsilon`, rounded up by their error margin).

    The vertices of the curve live in double precision, so where the type I errors of the
    relevant tests underflow (e.g. :math:`f_{0.5,0}^{\otimes 10^4}` at ε ≈ 1430, α ≈ e^{-4000})
    the curve alone would only give the sound but useless ε = ∞; the log-space sums keep the
    exact answer.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.f_eps_delta(0.5) ** 10_000
    >>> h
    RandomizedResponsePower(eps0=0.5, k=10000)
    >>> round(h.epsilon(1e-5), 2)
    1429.69
    """

    eps0: float = 0.0
    k: int = 1
    delta_: float = 0.0

    def __post_init__(self):
        LossCurve.__post_init__(self)
        check_fields(self, eps0=real(lo=0.0, hi=700.0),
                     k=count(hi=_K_MAX, why="the exact law has k + 1 atoms"),
                     delta_=real(lo=0.0, hi=1.0))

    def __repr__(self):
        d = f", delta_={self.delta_!r}" if self.delta_ > 0 else ""
        return f"RandomizedResponsePower(eps0={self.eps0!r}, k={self.k!r}{d})"

    def _hockey(self, eps):
        from .kov import _kov_profile

        eps = np.asarray(eps, dtype=float)
        out = np.asarray(LossCurve._hockey(self, eps), dtype=float).copy()
        use = np.isfinite(eps) & (eps >= 0)
        if use.any():
            out[use] = _kov_profile(self.eps0, self.k, self.delta_, eps[use])
        return out

    def _epsilon(self, delta):
        from .kov import _kov_inverse

        return _kov_inverse(self.eps0, self.k, self.delta_, np.asarray(delta, dtype=float))
