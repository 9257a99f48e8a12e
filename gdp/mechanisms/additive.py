r"""Additive noise: the Gaussian and Laplace mechanisms.

:class:`Gaussian` (calibrated by μ, σ or exactly by (ε, δ); its curve is :math:`G_{\Delta/\sigma}`)
and :class:`Laplace` (scale :math:`\Delta/\varepsilon`; its curve is exactly
:math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\varepsilon,1))`, which is more than ε-DP), with their
(α, β)-accuracy (Dwork–Roth Thm 3.8; MATH.md §7) and variances.

Imports: the ground floor, :mod:`gdp.families`, :mod:`gdp.mechanisms.base`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import special

from .._validation import check_count, check_real
from ..core.tradeoff import TradeOff
from ..families.gaussian import G_mu, mu_from_eps_delta
from ..families.laplace_tradeoff import laplace
from .base import _CALIBRATION, Mechanism, _beta, _div_up, _eps, _out, _sensitivity

__all__ = ["Gaussian", "Laplace"]

class AdditiveNoise(Mechanism):
    """Base of the additive-noise mechanisms: a sensitivity and a noise scale (the field
    named by :attr:`noise_field`), both re-checked before every release."""

    __slots__ = ()

    #: the name of the noise-scale field (``"sigma"``, ``"scale"``)
    noise_field: ClassVar[str] = "scale"
    #: variance of the noise per squared unit of scale (1 for N(0, 1), 2 for Lap(1))
    variance_per_scale2: ClassVar[float] = 1.0

    @property
    def variance(self) -> float:
        r"""Noise variance per coordinate: :math:`\sigma^2` for Gaussian noise,
        :math:`2b^2` for Laplace noise."""
        return self.variance_per_scale2 * getattr(self, self.noise_field) ** 2

    def _validate(self) -> None:
        _sensitivity(self.sensitivity)
        check_real(self.noise_field, getattr(self, self.noise_field), lo=0.0, lo_open=True)

    def _settle_noise(self, given: str, **values: float) -> None:
        """Store the calibrated parameters after checking that the noise scale and the
        curve's parameter are positive and finite (``given`` echoes the arguments)."""
        if not all(math.isfinite(v) and v > 0 for k, v in values.items() if k != "sensitivity"):
            raise ValueError("the calibration gives a noise scale outside (0, inf); got "
                             f"{given}")
        self._settle(**values)

    def accuracy(self, beta: float, *, k: int = 1) -> float:
        r"""The :math:`\alpha` with :math:`P[\|Y\|_\infty \ge \alpha] \le \beta` for ``k``
        noisy coordinates: :math:`-\sigma\Phi^{-1}(\beta/(2k))` for Gaussian noise (exact for
        ``k = 1``, a union bound otherwise), :math:`b\ln(k/\beta)` for Laplace noise
        (Dwork–Roth Thm 3.8)."""
        return self._radius(_beta(beta), check_count("k", k))

    def _radius(self, beta: float, k: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract

    def _release(self, v: np.ndarray, rng: np.random.Generator) -> Any:
        return _out(v + self._noise(v.shape, rng))

    def _release_many(self, v: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        return v + self._noise((n,) + v.shape, rng)


@dataclass(frozen=True, slots=True, kw_only=True)
class Gaussian(AdditiveNoise):
    r"""The Gaussian mechanism :math:`M(D) = q(D) + N(0, \sigma^2 I)`.

    Parameters
    ----------
    sensitivity : float
        The :math:`\ell_2` sensitivity :math:`\Delta_2 > 0` of the query (see
        :mod:`gdp.sensitivity`).
    mu : float, optional
        Calibrate for :math:`\mu`-GDP: :math:`\sigma = \Delta_2/\mu`.
    eps, delta : float, optional
        Calibrate exactly for :math:`(\varepsilon,\delta)`-DP: :math:`\sigma =
        \Delta_2/\mu(\varepsilon,\delta)` (:func:`gdp.mu_from_eps_delta`; Balle–Wang
        2018), valid for every :math:`\varepsilon > 0`, unlike the classical
        :math:`\Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon`.
    sigma : float, optional
        Give the noise standard deviation directly.

    Notes
    -----
    ``tradeoff`` is :math:`G_\mu` with :math:`\mu = \Delta_2/\sigma`, exact for every
    query dimension (DRS Thm 2.7: the pair :math:`N(0,\sigma^2 I), N(v,\sigma^2 I)` with
    :math:`\|v\|_2 = \Delta_2` is :math:`G_{\Delta_2/\sigma}` by rotation invariance).

    Accuracy (seed 003): :math:`P[|Y| \ge \alpha] = \beta` for
    :math:`\alpha = \sigma\sqrt2\,\mathrm{erf}^{-1}(1-\beta) = -\sigma\,\Phi^{-1}(\beta/2)`
    (the second form is used: no cancellation for tiny β). Variance :math:`\sigma^2` per
    coordinate.

    Examples
    --------
    >>> from gdp import mechanisms
    >>> mech = mechanisms.Gaussian(sensitivity=1.0, mu=0.5)
    >>> mech.sigma, mech.tradeoff
    (2.0, Gaussian(mu=0.5))
    >>> round(mech.accuracy(0.05), 6)
    3.919928
    >>> round(mechanisms.Gaussian(sensitivity=1.0, eps=1.0, delta=1e-5).sigma, 6)
    3.730632
    """

    sensitivity: float
    mu: float | None = None
    eps: float | None = None
    delta: float | None = None
    sigma: float | None = None

    noise_field = "sigma"

    def __post_init__(self) -> None:
        sens = _sensitivity(self.sensitivity)
        given = [n for n in ("mu", "eps", "delta", "sigma") if getattr(self, n) is not None]
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in given) or "none"
        if given == ["mu"]:
            mu = check_real("mu", self.mu, lo=0.0, lo_open=True)
            sigma = _div_up(sens, mu)
        elif given == ["eps", "delta"]:
            eps = _eps(self.eps)
            delta = check_real("delta", self.delta, lo=0.0, hi=1.0, lo_open=True,
                               hi_open=True)
            mu = float(mu_from_eps_delta(eps, delta))
            if not mu > 0:
                raise ValueError(f"`delta`={delta!r} is too small to calibrate Gaussian noise "
                                 f"at eps={eps!r}")
            sigma = _div_up(sens, mu)
            object.__setattr__(self, "eps", eps)
            object.__setattr__(self, "delta", delta)
        elif given == ["sigma"]:
            sigma = check_real("sigma", self.sigma, lo=0.0, lo_open=True)
            mu = _div_up(sens, sigma)
        else:
            raise ValueError(f"`Gaussian` needs {_CALIBRATION}; got {shown}")
        self._settle_noise(f"sensitivity={sens!r}, {shown}", sensitivity=sens, mu=mu,
                           sigma=sigma)

    @property
    def tradeoff(self) -> TradeOff:
        """:math:`G_\\mu`, :math:`\\mu = \\Delta_2/\\sigma` (exact)."""
        return G_mu(self.mu)

    def _radius(self, beta: float, k: int) -> float:
        # -sigma Phi^{-1}(beta / (2k)): exact for k = 1, a union bound otherwise
        return float(-self.sigma * special.ndtri(beta / (2.0 * k)))

    def _noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        return self.sigma * rng.standard_normal(shape)


@dataclass(frozen=True, slots=True, kw_only=True)
class Laplace(AdditiveNoise):
    r"""The Laplace mechanism :math:`M(D) = q(D) + \mathrm{Lap}(b)^{\otimes k}`,
    :math:`b = \Delta_1/\varepsilon` (Dwork–Roth Def. 3.3, Thm 3.6).

    Parameters
    ----------
    sensitivity : float
        The :math:`\ell_1` sensitivity :math:`\Delta_1 > 0`.
    eps : float, optional
        Privacy parameter; the scale is :math:`b = \Delta_1/\varepsilon`.
    scale : float, optional
        Give :math:`b` directly instead.

    Notes
    -----
    ``tradeoff`` is ``gdp.laplace(Δ₁/b)`` :math:`= T(\mathrm{Lap}(0,1),
    \mathrm{Lap}(\Delta_1/b,1))`, which is tighter than :math:`f_{\varepsilon,0}` and
    exact: a scalar query attains it. It also holds for vector queries: a shift
    :math:`v` with :math:`\|v\|_1 \le \Delta_1` is a path of :math:`n` steps of
    :math:`\ell_1` length :math:`\|v\|_1/n`, each :math:`(\|v\|_1/(nb))`-DP, so group
    privacy (DRS Thm 2.14) gives :math:`1 - (1-f_{\|v\|_1/(nb),0})^{\circ n}`, whose limit
    as :math:`n\to\infty` is the Laplace curve (MATH.md §3).

    Accuracy: :math:`P[|Y| \ge b\ln(1/\beta)] = \beta` (Dwork–Roth Fact 3.7) and, for
    :math:`k` outputs, :math:`P[\|q(D) - M(D)\|_\infty \ge b\ln(k/\beta)] \le \beta`
    (Thm 3.8). Variance :math:`2b^2` per coordinate.

    Examples
    --------
    >>> import gdp
    >>> mech = gdp.mechanisms.Laplace(sensitivity=2.0, eps=1.0)   # b = sensitivity / eps
    >>> (mech.scale, mech.tradeoff) == (2.0, gdp.laplace(1.0))
    True
    >>> round(mech.accuracy(0.05), 4), mech.variance
    (5.9915, 8.0)
    >>> round(gdp.mechanisms.Laplace(sensitivity=1.0, eps=1.0).accuracy(0.05, k=10000), 1)
    12.2
    """

    sensitivity: float
    eps: float | None = None
    scale: float | None = None

    variance_per_scale2 = 2.0

    def __post_init__(self) -> None:
        sens = _sensitivity(self.sensitivity)
        if self.eps is not None and self.scale is None:
            eps = _eps(self.eps)
            b = _div_up(sens, eps)
            mu = eps
        elif self.scale is not None and self.eps is None:
            b = check_real("scale", self.scale, lo=0.0, lo_open=True)
            mu = _div_up(sens, b)
        else:
            raise ValueError("`Laplace` needs exactly one of `eps` or `scale`; got "
                             f"eps={self.eps!r}, scale={self.scale!r}")
        self._settle_noise(f"sensitivity={sens!r}, eps={self.eps!r}, scale={self.scale!r}",
                           sensitivity=sens, eps=mu, scale=b)

    @property
    def tradeoff(self) -> TradeOff:
        """``laplace(Δ₁/b)`` (exact)."""
        return laplace(self.eps)

    def _radius(self, beta: float, k: int) -> float:
        # b ln(k / beta) (Dwork-Roth Thm 3.8; exact for k = 1)
        return float(self.scale * (math.log(k) - math.log(beta)))

    def _noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(0.0, self.scale, size=shape)
