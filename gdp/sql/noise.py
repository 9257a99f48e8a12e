r"""The noise of a private SQL answer: smoothed-sensitivity Laplace, or a mechanism of
:mod:`gdp.mechanisms` when the sensitivity is global.

Theory of operation
-------------------
*Global sensitivity* :math:`\Delta` (the elastic bound does not depend on the data): the
answer is released by :class:`gdp.mechanisms.Laplace` (scale :math:`\Delta/\varepsilon`,
exact curve ``laplace(ε)``), :class:`~gdp.mechanisms.Gaussian` (exact
:math:`(\varepsilon, \delta)` calibration, curve :math:`G_\mu`),
:class:`~gdp.mechanisms.DiscreteLaplace` or :class:`~gdp.mechanisms.DiscreteGaussian`
(integer counts; their exact curves). A ``GROUP BY`` answer is a vector whose
:math:`\ell_1` (hence :math:`\ell_2`) change is at most :math:`\Delta`.

*Data-dependent sensitivity* (joins on a protected key): :class:`SmoothLaplace`, the
scheme of Johnson, Near and Song (after Nissim, Raskhodnikova, Smith): with
:math:`\beta = \varepsilon / (2\ln(2/\delta))` and :math:`S = \max_k e^{-\beta k}\hat
S^{(k)}` (:func:`gdp.sql.elastic.smooth`), release :math:`q(x) + (2S/\varepsilon)Z`,
:math:`Z \sim \mathrm{Lap}(1)`; this is :math:`(\varepsilon,\delta)`-DP (NRS Lemma 2.6 with
the Laplace distribution, which is :math:`(\varepsilon/2, \beta)`-admissible), and its
curve is charged as :math:`f_{\varepsilon,\delta}`.

For a vector of :math:`d > 1` groups the one-dimensional lemma does not apply as it is,
and :func:`smooth_beta` uses this bound instead. Let :math:`s_x = 2S(x)/\varepsilon`,
:math:`a = \varepsilon/2`, :math:`\lambda = \ln(S(y)/S(x))\in[-\beta,\beta]`, and
:math:`\|q(x) - q(y)\|_1 \le S(x)`. For an output :math:`w = q(x) + s_x z` the privacy
loss is

.. math:: L = d\lambda - \|z\|_1 + \|q(x) - q(y) + s_x z\|_1 / s_y
          \le d\lambda + e^{-\lambda}(a + \|z\|_1) - \|z\|_1
          \le \max\big(d\beta + a,\ e^{\beta}a + (e^{\beta}-1)\|z\|_1\big),

with :math:`\|z\|_1 \sim \Gamma(d, 1)`. So the release is :math:`(\varepsilon,\delta)`-DP
when :math:`d\beta \le \varepsilon/2` and :math:`P[\Gamma(d,1) > (\varepsilon -
e^{\beta}\varepsilon/2)/(e^{\beta}-1)] \le \delta` (for every pair, in both orders); the
largest such β is found by bisection and rounded down (a smaller β only makes
:math:`S` larger). At :math:`d = 1` this bound is slightly more conservative than the
lemma (the tests compare them).

The ``delta`` of a smoothed release is spent on the (tiny) chance that the noise is too
small for the sensitivity of a database near the true one; :math:`\delta` should be well
below :math:`1/n`.

Imports: the ground floor, :mod:`gdp.families`, :mod:`gdp.mechanisms`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import bisect_bracket
from .._validation import check_int, check_real
from ..core.tradeoff import TradeOff
from ..families.epsdelta import f_eps_delta
from ..families.gaussian import mu_from_eps_delta
from ..mechanisms import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace
from ..mechanisms.base import _div_up

__all__ = ["NOISES", "SmoothLaplace", "smooth_beta", "make_mechanism"]

#: the noise kinds a query may ask for ("auto": Laplace when the sensitivity is global,
#: smoothed Laplace otherwise)
NOISES = ("auto", "laplace", "gaussian", "discrete_laplace", "discrete_gaussian", "smooth")


def _gamma_tail_ok(beta: float, eps: float, delta: float, dim: int) -> bool:
    growth = math.expm1(beta)
    if dim * beta > eps / 2 or growth >= 1.0:
        return False
    threshold = (eps - (1.0 + growth) * eps / 2) / growth
    return bool(special.gammaincc(dim, threshold) <= delta)


def smooth_beta(eps: float, delta: float, dim: int = 1) -> float:
    r"""The smoothing parameter β of a smoothed-sensitivity Laplace release of ``dim``
    numbers at :math:`(\varepsilon,\delta)`.

    ``dim = 1``: :math:`\beta = \varepsilon / (2\ln(2/\delta))` (NRS Lemma 2.6, the rule of
    Johnson–Near–Song). ``dim > 1``: the largest β of the bound in the module docstring.

    Examples
    --------
    >>> from gdp.sql.noise import smooth_beta
    >>> round(smooth_beta(1.0, 1e-8), 6)
    0.026159
    >>> round(smooth_beta(1.0, 1e-8, dim=10), 6)     # ten groups: smoother, more noise
    0.012643
    """
    eps = check_real("eps", eps, lo=0.0, lo_open=True)
    delta = check_real("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    dim = check_int("dim", dim, lo=1)
    if dim == 1:
        return eps / (2.0 * math.log(2.0 / delta))
    hi = eps / (2.0 * dim)
    if _gamma_tail_ok(hi, eps, delta, dim):
        return hi
    lo, _ = bisect_bracket(np.vectorize(lambda b: not _gamma_tail_ok(float(b), eps, delta, dim)),
                           0.0, hi, rtol=1e-12)
    beta = float(lo)
    if not beta > 0:  # pragma: no cover - the tail bound holds for small enough beta
        raise ValueError(f"no smoothing parameter reaches delta={delta!r} at eps={eps!r}")
    return beta


@dataclass(frozen=True, slots=True, kw_only=True)
class SmoothLaplace(Laplace):
    r"""Laplace noise of scale :math:`2S/\varepsilon` for a smoothed sensitivity
    :math:`S`: :math:`(\varepsilon, \delta)`-DP, charged as :math:`f_{\varepsilon,\delta}`.

    ``sensitivity`` is the smoothed sensitivity :math:`S` (computed with
    :func:`smooth_beta` of the same ``eps``, ``delta`` and number of released numbers);
    ``scale`` is set to :math:`2S/\varepsilon`, rounded up. Accuracy and variance are
    those of the Laplace noise.

    Examples
    --------
    >>> from gdp.sql.noise import SmoothLaplace
    >>> m = SmoothLaplace(sensitivity=11.5, eps=1.0, delta=1e-8)
    >>> m.scale, m.tradeoff
    (23.0, f_eps_delta(eps=1.0, delta=1e-08))
    """

    delta: float = 0.0

    def __post_init__(self) -> None:
        sens = check_real("sensitivity", self.sensitivity, lo=0.0, lo_open=True)
        eps = check_real("eps", self.eps, lo=0.0, lo_open=True)
        delta = check_real("delta", self.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.scale is not None:
            raise ValueError("`SmoothLaplace` sets its scale to 2 S / eps; got "
                             f"scale={self.scale!r}")
        self._settle_noise(f"sensitivity={sens!r}, eps={eps!r}", sensitivity=sens, eps=eps,
                           scale=_div_up(2.0 * sens, eps))
        self._settle(delta=delta)

    @property
    def tradeoff(self) -> TradeOff:
        """:math:`f_{\\varepsilon,\\delta}` (NRS Lemma 2.6; the module docstring for vectors)."""
        return f_eps_delta(self.eps, self.delta)


def make_mechanism(noise: str, sensitivity: float, eps: float, delta: float, *,
                   integer: bool, dim: int) -> Any:
    """The mechanism of one release with a *global* sensitivity (any kind but
    ``"smooth"``); refuses the combinations without a proof (messages say why)."""
    if noise == "laplace":
        return Laplace(sensitivity=sensitivity, eps=eps)
    if noise == "gaussian":
        if not delta > 0:
            raise ValueError("noise='gaussian' needs delta > 0; got delta=0")
        return Gaussian(sensitivity=sensitivity, eps=eps, delta=delta)
    if noise in ("discrete_laplace", "discrete_gaussian"):
        if not integer or sensitivity != round(sensitivity):
            raise ValueError(f"noise={noise!r} releases integers: it needs a COUNT with an "
                             f"integer sensitivity; got sensitivity={sensitivity!r}")
        if noise == "discrete_laplace":
            return DiscreteLaplace(sensitivity=int(sensitivity), eps=eps)
        if dim > 1:
            raise ValueError("noise='discrete_gaussian' is proven for a change in one "
                             "coordinate; a GROUP BY answer can change in several (use "
                             "'gaussian' or 'discrete_laplace')")
        if not delta > 0:
            raise ValueError("noise='discrete_gaussian' needs delta > 0; got delta=0")
        return DiscreteGaussian(sensitivity=int(sensitivity),
                                mu=float(mu_from_eps_delta(eps, delta)))
    raise ValueError(f"`noise` must be one of {NOISES}; got noise={noise!r}")
