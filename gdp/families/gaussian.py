r"""Gaussian differential privacy: the family :math:`G_\mu` and the Gaussian mechanism.

:class:`Gaussian` is :math:`G_\mu = T(N(0,1), N(\mu,1))`, :math:`G_\mu(\alpha) =
\Phi(\Phi^{-1}(1-\alpha)-\mu)` (DRS Sec. 2.3), with every hook in closed form: the curve and
:math:`1 - G_\mu` (lowered, respectively raised, by a bound on the rounding of ``ndtr``), the
profile and ε(δ) from :mod:`gdp.families.gaussian_profile`, group privacy
:math:`G_{k\mu}` (DRS Thm 2.14) and exact dominance (:math:`G_a \ge G_b` iff :math:`a \le b`).

The public conversions are vectorised with broadcasting: :func:`delta_from_mu`,
:func:`log_delta_from_mu`, :func:`eps_from_mu`, :func:`mu_from_eps_delta`, and the mechanism's
calibration :func:`sigma_from_mu`, :func:`mu_from_sigma`, :func:`sigma_from_eps_delta` (exact,
Balle–Wang 2018) and :func:`sigma_classical` (Dwork–Roth Thm A.1, ε < 1 only);
:func:`compose_mu` (:math:`\sqrt{\sum\mu_i^2}`, DRS Cor. 3.3) and :func:`group_mu`.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families.gaussian_profile`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import special

from .._numerics import div_up, float_or_array, lower_by, raise_by, step_until
from .._validation import as_probability_array, as_real_array, check_count, check_real
from ..core.tradeoff import SidedProfile
from .gaussian_profile import (
    _delta_upper,
    _eps_from_mu,
    _log_delta,
    _mu_from_eps_delta,
    _ndtr_error,
    _noise,
)
from .location import LocationFamily

__all__ = [
    "Gaussian", "G_mu", "log_delta_from_mu", "delta_from_mu", "eps_from_mu", "mu_from_eps_delta",
    "mu_from_sigma", "sigma_from_mu", "sigma_from_eps_delta", "sigma_classical", "compose_mu",
    "group_mu",
]

@dataclass(frozen=True, slots=True)
class Gaussian(SidedProfile, LocationFamily):
    r"""Gaussian differential privacy :math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)`.

    Use :func:`G_mu` to construct. Symmetric; :math:`G_0 = \mathrm{Id}`,
    :math:`G_\infty = 0`.
    """

    symbol = "G"

    def _f(self, alpha):
        alpha = np.asarray(alpha, dtype=float)
        if self.mu == 0:
            return 1.0 - alpha
        if math.isinf(self.mu):
            return np.zeros_like(alpha)
        z = special.ndtri(alpha)
        x = -z - self.mu
        return special.ndtr(x) * (1.0 - _ndtr_error(x, z))  # lowered: never too high

    def _one_minus_f(self, alpha):
        return self._omf(alpha, 1.0)  # raised: 1 - f never too low

    def _profile(self, eps: Any, side: float) -> np.ndarray:
        r"""δ(ε) raised (``side=1``) or lowered (``side=-1``) by its rounding bound.

        For ε ≥ 0 from log δ, which :func:`_log_delta` raises by its bound ``_noise``; the
        exact value is at least the raised one less twice that (taken 3 times). For ε < 0
        by the symmetry :math:`\delta(\varepsilon) = 1 - e^\varepsilon +
        e^\varepsilon\delta(-\varepsilon)`, a sum of non-negative terms (4 ulps), tighter
        near δ ≈ 1 than the log-space bound.
        """
        e = np.asarray(eps, dtype=float)
        neg = e < 0
        pos = np.where(neg, -e, e)
        F = _log_delta(self.mu, pos)
        with np.errstate(invalid="ignore", under="ignore"):
            d = _delta_upper(F) if side > 0 else \
                np.exp(np.where(np.isfinite(F), F - 3.0 * _noise(F), F))
            if neg.any():
                v = -np.expm1(e) + np.exp(e) * d
                d = np.where(neg, raise_by(v, 4) if side > 0 else lower_by(v, 4), d)
        return np.clip(d, 0.0, 1.0)

    def _omf_lower(self, alpha):
        return self._omf(alpha, -1.0)

    def _omf(self, alpha: Any, side: float) -> np.ndarray:
        """:math:`1 - G_\\mu(\alpha) = \\Phi(\\Phi^{-1}(\alpha) + \\mu)` raised (``side = 1``) or
        lowered (``side = -1``) by its rounding bound."""
        alpha = np.asarray(alpha, dtype=float)
        if self.mu == 0:
            return alpha.copy()
        if math.isinf(self.mu):
            return np.ones_like(alpha)
        z = special.ndtri(alpha)
        x = z + self.mu
        return special.ndtr(x) * (1.0 + side * _ndtr_error(x, z))

    def _epsilon(self, delta):
        return _eps_from_mu(np.full(np.shape(delta), self.mu), delta)

    def _loss_sf(self, t):
        return self._loss_tail(t, -1.0)

    def _loss_sf_q(self, t):
        return self._loss_tail(t, 1.0)

    def _loss_tail(self, t, sign: float) -> np.ndarray:
        r""":math:`P[L > t]` (``sign=-1``) or :math:`Q[L > t]` (``sign=+1``), with
        :math:`L \sim N(\pm\mu^2/2, \mu^2)`; μ = 0 is an atom at 0, μ = ∞ puts P's loss at
        :math:`-\infty` and Q's at :math:`+\infty`."""
        t = np.asarray(t, dtype=float)
        if self.mu == 0:
            return np.where(t < 0, 1.0, 0.0)
        if math.isinf(self.mu):
            return np.full(t.shape, 1.0 if sign > 0 else 0.0)
        return special.ndtr(-(t - sign * 0.5 * self.mu**2) / self.mu)



def G_mu(mu: float) -> Gaussian:
    r"""The Gaussian trade-off function :math:`G_\mu = T(N(0,1), N(\mu,1))`.

    .. math:: G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)

    Parameters
    ----------
    mu : float
        Non-negative; ``inf`` allowed (:math:`G_\infty \equiv 0`, no privacy).

    Notes
    -----
    Computed as ``ndtr(-ndtri(alpha) - mu)``, and ``1 - G_mu(alpha)`` (``one_minus``) as
    ``ndtr(ndtri(alpha) + mu)``: both keep their relative accuracy in the tails
    (α = 1e-15; error < 2e-12 against mpmath for μ ≤ 50). Each is moved to the safe side
    by a bound on its rounding error (the curve never above the exact one, 1 − G never
    below). :math:`G_0(\alpha) = 1-\alpha` exactly. ``delta`` and ``epsilon`` use the
    closed form of :func:`delta_from_mu` and the solver of :func:`eps_from_mu`.

    References
    ----------
    DRS Sec. 2.3 (definition of :math:`G_\mu` and μ-GDP) and Cor. 2.13.

    Examples
    --------
    >>> import gdp
    >>> g = gdp.G_mu(1.0)
    >>> round(g(0.05), 6), round(g.epsilon(1e-5), 6)
    (0.740489, 4.377178)
    """
    return Gaussian(mu=mu)


def _arr(name: str, value: Any, **kw) -> np.ndarray:
    return as_real_array(name, value, **kw)


def log_delta_from_mu(mu: Any, eps: Any) -> Any:
    r""":math:`\log\delta(\varepsilon;\mu)` (natural log), vectorised with broadcasting.

    Parameters
    ----------
    mu, eps : float or array_like
        μ ≥ 0 and ε ≥ 0 (``inf`` allowed for both); broadcast against each other.

    Notes
    -----
    Finite far beyond the float range of δ itself (μ = 1, ε = 500 gives about
    :math:`-1.25\times10^5`). ``-inf`` when δ = 0 (μ = 0, or ε = ∞ with μ < ∞).

    Examples
    --------
    >>> import gdp
    >>> round(gdp.log_delta_from_mu(1.0, 500.0), 4)
    -124763.4732
    """
    m = _arr("mu", mu, lo=0.0, finite=False)
    e = _arr("eps", eps, lo=0.0, finite=False)
    return float_or_array(_log_delta(m, e))


def delta_from_mu(mu: Any, eps: Any) -> Any:
    r"""The δ for which a μ-GDP mechanism is (ε, δ)-DP (DRS Cor. 2.13).

    .. math:: \delta(\varepsilon;\mu) = \Phi(-\varepsilon/\mu+\mu/2)
              - e^{\varepsilon}\Phi(-\varepsilon/\mu-\mu/2)

    Parameters
    ----------
    mu, eps : float or array_like
        μ ≥ 0 and ε ≥ 0 (``inf`` allowed for both); broadcast against each other.

    Returns
    -------
    float or ndarray
        In [0, 1]; a float for scalar input.

    Notes
    -----
    Evaluated in log space (see the module notes) and returned as an upper bound: never
    below the exact δ, above it by at most about :math:`4\times10^{-14}\max(1,
    |\log\delta|)` relative (2e-13 + 2e-15 :math:`|\log\delta|` for small δ; < 2e-12
    against mpmath on μ ∈ [1e-8, 50], ε ∈ [0, 500]). Never 0 for finite ε and μ > 0: a δ below the
    smallest float (5e-324) is returned as 5e-324, an upper bound (use
    :func:`log_delta_from_mu` for its value). δ(0; μ) = erf(μ/(2√2)); μ = 0 gives 0; μ = ∞
    gives 1 (also at ε = ∞); ε = ∞ gives 0 for finite μ.

    References
    ----------
    DRS Cor. 2.13; Balle and Wang (2018), Thm 8.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.delta_from_mu(1.0, 1.0), 10)
    0.1269367375
    """
    m = _arr("mu", mu, lo=0.0, finite=False)
    e = _arr("eps", eps, lo=0.0, finite=False)
    return float_or_array(_delta_upper(_log_delta(m, e)))


def eps_from_mu(mu: Any, delta: Any) -> Any:
    r"""Smallest ε ≥ 0 with δ(ε; μ) ≤ δ: the (ε, δ)-DP guarantee of a μ-GDP mechanism.

    Parameters
    ----------
    mu, delta : float or array_like
        μ ≥ 0 (``inf`` allowed) and δ in [0, 1], broadcast against each other.

    Returns
    -------
    float or ndarray
        ε ≥ 0 (``inf`` possible); a float for scalar input.

    Notes
    -----
    Sound: the returned ε satisfies δ(ε; μ) ≤ δ for the exact δ and for the (upper
    bound) :func:`delta_from_mu`. It exceeds the exact root by about 1e-13 relative
    plus a rounding margin of :math:`3\eta\kappa` relative, where η ≤ 2e-13 (for
    δ ≥ 1e-80) bounds the rounding error of log δ and
    :math:`\kappa = \delta/(\varepsilon|\partial_\varepsilon\delta|)` is the condition
    number (large only where δ(ε) is flat, δ just below δ(0; μ)); measured against
    mpmath: < 2e-12 for κ ≤ 10, < 7e-13 κ overall. Vectorised safeguarded Halley/Newton
    iterations (module notes), two evaluations of δ per value.
    ``delta >= delta_from_mu(mu, 0)`` gives 0 (as does μ = 0 or δ = 1); ``delta = 0`` or
    μ = ∞ (with δ < 1) gives ``inf``.

    References
    ----------
    DRS Cor. 2.13.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.eps_from_mu(1.0, 1e-5), 6)
    4.377178
    >>> gdp.eps_from_mu([0.5, 1.0, 2.0], 1e-5).round(4)
    array([1.9931, 4.3772, 9.9973])
    """
    m = _arr("mu", mu, lo=0.0, finite=False)
    d = as_probability_array("delta", delta)
    return float_or_array(_eps_from_mu(m, d))


def mu_from_eps_delta(eps: Any, delta: Any) -> Any:
    r"""Largest μ such that μ-GDP implies (ε, δ)-DP, i.e. the root of δ(ε; μ) = δ.

    Parameters
    ----------
    eps, delta : float or array_like
        ε ≥ 0 (``inf`` allowed) and δ in [0, 1], broadcast against each other.

    Notes
    -----
    δ(ε; μ) increases with μ, :math:`\partial\delta/\partial\mu = \varphi(\varepsilon/\mu
    - \mu/2)`, and :math:`\log\delta` is concave in :math:`\log\mu`: Newton steps in
    :math:`\log\mu` from a lower bound stay below the root. The answer, less a margin
    for rounding, is checked (δ(ε; μ) ≤ δ for :func:`delta_from_mu`) and is never too
    large; relative error measured < 5e-12 against mpmath. ``delta = 1`` or
    ``eps = inf`` (δ > 0) gives ``inf``; ``delta = 0`` gives 0; ε = 0 gives
    :math:`2\sqrt2\,\mathrm{erf}^{-1}(\delta)`.

    References
    ----------
    Balle and Wang (2018), Thm 8 (the analytic Gaussian mechanism); DRS Cor. 2.13.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.mu_from_eps_delta(1.0, 1e-5), 6)
    0.268051
    """
    e = _arr("eps", eps, lo=0.0, finite=False)
    d = as_probability_array("delta", delta)
    return float_or_array(_mu_from_eps_delta(e, d))


def mu_from_sigma(sensitivity: float, sigma: Any) -> Any:
    r"""μ of the Gaussian mechanism :math:`\theta(S)+N(0,\sigma^2)`: :math:`\mu=\Delta/\sigma`
    (DRS Thm 2.7), the inverse of :func:`sigma_from_mu`; σ > 0 (``inf`` allowed: μ = 0).

    >>> import gdp
    >>> gdp.mu_from_sigma(2.0, 4.0)
    0.5
    """
    return _sensitivity_over("sigma", sensitivity, sigma)


def sigma_from_mu(sensitivity: float, mu: Any) -> Any:
    r"""Noise scale for μ-GDP: :math:`\sigma = \Delta/\mu` (DRS Thm 2.7).

    Parameters
    ----------
    sensitivity : float
        Δ ≥ 0 (finite).
    mu : float or array_like
        μ > 0 (``inf`` allowed: σ = 0).

    Examples
    --------
    >>> import gdp
    >>> gdp.sigma_from_mu(1.0, 0.5)
    2.0
    """
    return _sensitivity_over("mu", sensitivity, mu)


def _sensitivity_over(name: str, sensitivity: float, value: Any) -> Any:
    """Δ / value, the map between σ and μ of the Gaussian mechanism (both directions),
    rounded up: a μ never below the mechanism's, a σ never below the one needed."""
    s = check_real("sensitivity", sensitivity, lo=0.0)
    v = _arr(name, value, lo=0.0, lo_open=True, finite=False)
    return float_or_array(div_up(s, v))


def sigma_from_eps_delta(sensitivity: float, eps: Any, delta: Any) -> Any:
    r"""The exact (analytic) Gaussian noise scale for (ε, δ)-DP.

    .. math:: \sigma = \Delta/\mu(\varepsilon,\delta)

    Parameters
    ----------
    sensitivity : float
        Δ ≥ 0 (finite).
    eps : float or array_like
        ε ≥ 0 (``inf`` allowed: σ = 0).
    delta : float or array_like
        In (0, 1]; broadcast against ``eps``.

    Notes
    -----
    Valid for every ε ≥ 0 (unlike :func:`sigma_classical`) and never smaller than
    needed: μ comes from :func:`mu_from_eps_delta` (never too large) and σ is rounded up
    so that Δ/σ ≤ μ.

    References
    ----------
    Balle and Wang (2018), Thm 8 and Alg. 1; DRS Cor. 2.13.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.sigma_from_eps_delta(1.0, 1.0, 1e-5), 6)
    3.730632
    """
    s = check_real("sensitivity", sensitivity, lo=0.0)
    e = _arr("eps", eps, lo=0.0, finite=False)
    d = _arr("delta", delta, lo=0.0, hi=1.0, lo_open=True)
    mu = np.asarray(_mu_from_eps_delta(e, d), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        sig = np.where(mu > 0, s / mu, np.inf)
        # round up: the mechanism's mu = s / sigma must not exceed the solved mu
        sig = np.where((mu > 0) & (s / sig > mu), np.nextafter(sig, np.inf), sig)
    return float_or_array(sig)


def sigma_classical(sensitivity: float, eps: float, delta: float) -> float:
    r"""The classical calibration :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon`
    (Dwork–Roth Thm A.1).

    Parameters
    ----------
    sensitivity : float
        Δ ≥ 0 (finite).
    eps : float
        In (0, 1): the theorem does not hold for ε ≥ 1.
    delta : float
        In (0, 1).

    Raises
    ------
    ValueError
        For ε ≥ 1; use :func:`sigma_from_eps_delta` (exact, and smaller) instead.

    Examples
    --------
    The classical σ is valid for ε < 1 only, and looser than the exact one:

    >>> import gdp
    >>> c, exact = gdp.sigma_classical(1.0, 0.5, 1e-5), gdp.sigma_from_eps_delta(1.0, 0.5, 1e-5)
    >>> round(c, 6), round(exact, 6)
    (9.689611, 7.031827)
    """
    s = check_real("sensitivity", sensitivity, lo=0.0)
    e = check_real("eps", eps, lo=0.0, lo_open=True)
    d = check_real("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if e >= 1.0:
        raise ValueError(
            f"`eps` must be < 1 for the classical Gaussian calibration (Dwork-Roth Thm A.1 "
            f"is invalid for eps >= 1); got eps={e!r}. Use sigma_from_eps_delta instead.")
    return s * math.sqrt(2.0 * math.log(1.25 / d)) / e


def compose_mu(*mus: Any) -> float:
    r"""μ of the composition :math:`G_{\mu_1}\otimes\cdots\otimes G_{\mu_n} =
    G_{\sqrt{\sum\mu_i^2}}` (DRS Cor. 3.3). Accepts numbers or arrays (all entries count).

    Examples
    --------
    >>> import gdp
    >>> gdp.compose_mu(3.0, 4.0)
    5.0
    """
    # the composition of nothing is the identity, G_0 (an empty array adds no factor)
    vals = np.concatenate([np.ravel(_arr("mus", m, lo=0.0, finite=False)) for m in mus]) \
        if mus else np.zeros(0)
    if vals.size == 0:
        return 0.0
    if np.any(np.isinf(vals)):
        return math.inf
    top = float(np.max(vals))
    if top == 0.0:
        return 0.0
    # scaled to avoid overflow of mu**2 (mu up to 1e308 is valid input)
    root = top * float(np.sqrt(np.sum((vals / top) ** 2)))
    if vals.size > 10_000:
        # the sum of n non-negative squares errs by at most (log2 n + 1) ulps relative
        # (pairwise summation), the scaling, squares, root and product by 3 more: raised
        return float(raise_by(root, math.log2(vals.size) + 5.0))
    # exactly: the smallest float whose square is not below the exact sum of squares
    total = sum((Fraction(float(v)) ** 2 for v in vals), Fraction(0))
    root = float(step_until(lambda r: Fraction(float(r)) ** 2 >= total, root, math.inf,
                            tries=64))
    return root


def group_mu(mu: float, k: int) -> float:
    """μ-GDP gives kμ-GDP for groups of size k (DRS Thm 2.14).

    Examples
    --------
    >>> import gdp
    >>> gdp.group_mu(0.5, 3)
    1.5
    """
    m = check_real("mu", mu, lo=0.0, finite=False)
    k = check_count("k", k)
    g = k * m  # rounded up when inexact: a group's mu is never under-stated
    return g if math.isinf(g) or Fraction(g) == k * Fraction(m) else math.nextafter(g, math.inf)
