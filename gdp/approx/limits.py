r"""Limits of compositions: the CLT limit, the (ε, δ) limit and the noisy-SGD μ.

:func:`clt_limit` (DRS Thm 3.5, :math:`G_{2K/s}`), :func:`eps_delta_limit` (DRS Cor. 3.6:
:math:`\bigotimes_i f_{\varepsilon_i,\delta_i} \to G_\mu \otimes f_{0,1-e^{-\delta}}`, the curve
:class:`GaussianDelta` with its exact profile) and :func:`noisy_sgd_mu` (BDLS 2020:
:math:`\mu = p\sqrt{T(e^{1/\sigma^2}-1)}` for Poisson sampling, and the uniform variant).
Approximations, labelled as such.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import lower_by, raise_by
from .._validation import as_real_array, check_count, check_probability, check_real
from ..core.tradeoff import SidedProfile, TradeOff
from ..families.gaussian import Gaussian
from .central_limit import BERRY_ESSEEN_C, ApproximationWarning

__all__ = ["clt_limit", "GaussianDelta", "eps_delta_limit", "noisy_sgd_mu"]

def clt_limit(kl_sum: float, kappa2_sum: float) -> Gaussian:
    r"""The limit :math:`G_{2K/s}` of DRS Thm 3.5, from :math:`\sum\mathrm{kl}(f_{ni})\to K`
    and :math:`\sum\kappa_2(f_{ni})\to s^2`.

    Valid as :math:`n\to\infty` when also :math:`\max_i\mathrm{kl}(f_{ni})\to0` and
    :math:`\sum_i\kappa_3(f_{ni})\to0`; for finite n it is an approximation.

    Parameters
    ----------
    kl_sum : float
        K ≥ 0.
    kappa2_sum : float
        s² > 0 (0 allowed with K = 0, giving :math:`G_0`).

    Examples
    --------
    >>> import gdp
    >>> gdp.clt_limit(0.5, 1.0)
    Gaussian(mu=1.0)
    """
    K = check_real("kl_sum", kl_sum, lo=0.0)
    s2 = check_real("kappa2_sum", kappa2_sum, lo=0.0)
    if s2 == 0.0:
        if K == 0.0:
            return Gaussian(mu=0.0)
        raise ValueError(f"`kappa2_sum` must be positive when kl_sum > 0; got "
                         f"kappa2_sum={kappa2_sum!r}")
    return Gaussian(mu=2.0 * K / math.sqrt(s2))


# --- the (eps, delta) limit ----------------------------------------------------
@dataclass(frozen=True, slots=True)
class GaussianDelta(SidedProfile, TradeOff):
    r""":math:`G_\mu\otimes f_{0,\delta}`: :math:`(1-\delta)G_\mu(\alpha/(1-\delta))` for
    :math:`\alpha\le1-\delta`, 0 beyond (the loss law of :math:`G_\mu` scaled by
    :math:`1-\delta`, plus P-mass δ at :math:`-\infty` and Q-mass δ at :math:`+\infty`).

    Its privacy profile is :math:`\delta + (1-\delta)\,\delta_{G_\mu}(\varepsilon)`.
    """

    mu: float
    delta_: float = 0.0
    is_symmetric = True

    def __post_init__(self):
        object.__setattr__(self, "mu", check_real("mu", self.mu, lo=0.0, finite=False))
        object.__setattr__(self, "delta_", check_probability("delta_", self.delta_))

    def __repr__(self):
        return f"GaussianDelta(mu={self.mu!r}, delta={self.delta_!r})"

    label_format = "G_{{{self.mu:.4g}}}\\otimes f_{{0,{self.delta_:.3g}}}"

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        keep = 1.0 - self.delta_
        if keep <= 0.0:
            return np.zeros_like(a)
        with np.errstate(all="ignore"):
            inner = np.where(a < keep, Gaussian(mu=self.mu)._f(np.minimum(a / keep, 1.0)),
                             0.0)
        return keep * inner

    def _profile(self, eps: Any, side: float) -> np.ndarray:
        """δ + (1 - δ) δ_G(ε) from a bound on δ_G (upper for ``side=1``), the product and
        the sum moved by 2 ulps to that side."""
        G = Gaussian(mu=self.mu)
        e = np.asarray(eps, dtype=float)
        g = G._hockey_upper(e) if side > 0 else G._hockey_lower(e)
        v = self.delta_ + (1.0 - self.delta_) * np.asarray(g)
        v = raise_by(v, 2) if side > 0 else lower_by(v, 2)
        return np.clip(v, 0.0, 1.0)

    def _symmetric_exact(self):
        return True

    def _omf_lower(self, alpha):
        # 1 - f = delta + (1 - delta)(1 - G(a / (1 - delta))): the quotient rounded down (1 - G
        # increases), G's own lower bound, the product and sum lowered by 2 ulps
        a = np.asarray(alpha, dtype=float)
        keep = 1.0 - self.delta_
        if keep <= 0.0:
            return np.ones_like(a)
        x = np.minimum(lower_by(a / keep, 1), 1.0)
        g = np.asarray(Gaussian(mu=self.mu)._omf_lower(x), dtype=float)
        v = np.minimum(lower_by(self.delta_ + keep * g, 3), 1.0)
        # an ulp beyond the rounded 1 - delta, alpha is past the exact one: 1 - f = 1 there
        return np.where(a >= np.nextafter(keep, 2.0), 1.0, v)

    def _loss_sf(self, t):
        return (1.0 - self.delta_) * Gaussian(mu=self.mu)._loss_sf(t)

    def _loss_sf_q(self, t):
        return self.delta_ + (1.0 - self.delta_) * Gaussian(mu=self.mu)._loss_sf_q(t)


def eps_delta_limit(eps: Any, delta: Any = 0.0) -> GaussianDelta:
    r"""The (ε, δ) composition limit :math:`G_\mu\otimes f_{0,1-e^{-\delta}}` with
    :math:`\mu = \sqrt{\sum_i\varepsilon_i^2}` and :math:`\delta = \sum_i\delta_i`
    (DRS Cor. 3.6). An approximation of :math:`\bigotimes_i f_{\varepsilon_i,\delta_i}`.

    The theorem is a limit: :math:`\max_i\varepsilon_i\to0`, :math:`\max_i\delta_i\to0`.
    An :class:`ApproximationWarning` is issued when the Berry–Esseen γ of the pure-ε part
    is ≥ 1/2 (too few or too unequal terms for the normal limit to mean anything).

    Parameters
    ----------
    eps, delta : array_like
        The per-step :math:`\varepsilon_i \ge 0` and :math:`\delta_i\in[0,1]`, broadcast
        against each other.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.eps_delta_limit([0.01] * 10_000, [1e-7] * 10_000)
    >>> round(h.mu, 12), round(h.delta_, 12)
    (1.0, 0.0009995)
    """
    e = as_real_array("eps", eps, lo=0.0, max_ndim=1).reshape(-1)
    d = as_real_array("delta", delta, lo=0.0, hi=1.0, max_ndim=1).reshape(-1)
    try:
        e, d = np.broadcast_arrays(e, d)
    except ValueError as exc:
        raise ValueError(f"`eps` and `delta` must broadcast against each other; got lengths "
                         f"{e.size} and {d.size}") from exc
    if e.size == 0:
        raise ValueError("`eps` must hold at least one value; got an empty array")
    mu = float(math.sqrt(float(np.sum(e * e))))
    if mu > 0:
        a = special.expit(-e)
        b = special.expit(e)
        k3b = float(np.sum(8.0 * e**3 * a * b * (a * a + b * b)))
        var = float(np.sum(e * e - (e * np.tanh(0.5 * e)) ** 2))
        gamma = BERRY_ESSEEN_C * k3b / var**1.5 if var > 0 else math.inf
        if gamma >= 0.5:
            warnings.warn(f"(eps, delta) limit far from its conditions: the Berry-Esseen gamma "
                          f"of the eps part is {gamma:.3g} >= 1/2", ApproximationWarning,
                          stacklevel=2)
    return GaussianDelta(mu=mu, delta_=float(-math.expm1(-float(np.sum(d)))))


# --- noisy SGD ------------------------------------------------------------------
def noisy_sgd_mu(sigma: float, p: float, steps: int, sampling: str = "poisson") -> float:
    r"""CLT μ of noisy SGD / DP-SGD with noise multiplier σ, sampling rate p, T steps (BDLS).

    **An approximation** (a limit as :math:`T\to\infty`, :math:`p\sqrt T\to\nu`), known to
    under-state ε for some settings; compare with the exact composition
    (``gdp.dpsgd``) before relying on it.

    .. math::
        \mu_{\text{Poisson}} = p\sqrt{T(e^{1/\sigma^2}-1)},\qquad
        \mu_{\text{uniform}} = p\sqrt{2T\,\big(e^{1/\sigma^2}\Phi(1.5/\sigma)
        + 3\Phi(-0.5/\sigma) - 2\big)}.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ > 0 (``inf``: μ = 0).
    p : float
        Sampling rate in [0, 1] (batch size / dataset size).
    steps : int
        Number of iterations T ≥ 1.
    sampling : {'poisson', 'uniform'}
        ``'poisson'``: each example is included independently with probability p (the
        add/remove neighbourhood; the CLT applied to :math:`T` copies of the one-sided
        subsampled Gaussian, whose :math:`\chi^2` divergence is :math:`e^{1/\sigma^2}-1`,
        gives μ through DRS Thm 3.5). ``'uniform'``: a batch of fixed size drawn without
        replacement, analysed with :math:`C_p(G_{1/\sigma})` (DRS Thm 4.2).

    Notes
    -----
    An :class:`ApproximationWarning` when p > 0.1, far from the regime p → 0 of the
    theorem. The uniform formula is evaluated as :math:`\mathrm{expm1}(x^2)\Phi(1.5x) +
    \tfrac12\mathrm{erf}(1.5x/\sqrt2) - \tfrac32\mathrm{erf}(0.5x/\sqrt2)`, :math:`x=1/\sigma`,
    which avoids the cancellation of the textbook form for large σ.

    The Poisson form follows from DRS Thm 3.5: for the one-sided curve of
    :math:`P = N(0,1)` vs :math:`Q = (1-p)N(0,1)+pN(1/\sigma,1)`, as :math:`p\to0`,
    :math:`\mathrm{kl}\approx p^2\chi^2/2` and :math:`\kappa_2\approx p^2\chi^2` with
    :math:`\chi^2 = e^{1/\sigma^2}-1`, so :math:`2K/s = p\sqrt{T\chi^2}`.

    References
    ----------
    The uniform (without replacement) formula: DRS Sec. 5 (privacy of NoisySGD via
    :math:`C_p(G_{1/\sigma})` and Thm 3.5) and BDLS Sec. 3 (their :math:`\mu_{CLT}`).
    The Poisson formula is the one of BDLS's released accountant (``compute_mu_poisson``;
    it is not printed in the paper's main text, cf. opacus issue #715); the derivation
    above is ours. MATH.md §6.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.noisy_sgd_mu(1.1, 256 / 60_000, 3_000), 6)
    0.26493
    >>> round(gdp.noisy_sgd_mu(1.1, 256 / 60_000, 3_000, sampling="uniform"), 6)
    0.340591
    """
    s = check_real("sigma", sigma, lo=0.0, lo_open=True, finite=False)
    q = check_probability("p", p)
    T = check_count("steps", steps)
    if not isinstance(sampling, str) or sampling not in ("poisson", "uniform"):
        raise ValueError(f"`sampling` must be 'poisson' or 'uniform'; got "
                         f"sampling={sampling!r:.60}")
    if q > 0.1:
        warnings.warn(f"noisy-SGD CLT far from its regime (p -> 0): p = {q:g} > 0.1; compare "
                      f"with the exact composition", ApproximationWarning, stacklevel=2)
    if math.isinf(s) or q == 0.0:
        return 0.0
    x = 1.0 / s
    if sampling == "poisson" and x * x > 700.0:
        # in log space: log mu = log p + (log T + x^2 + log(1 - e^{-x^2})) / 2 (e^{x^2}
        # overflows, the product need not)
        with np.errstate(over="ignore"):
            return float(np.exp(math.log(q) + 0.5 * (math.log(T) + x * x)))
    if x * x > 700.0:
        return math.inf
    if sampling == "poisson":
        return q * math.sqrt(T * math.expm1(x * x))
    r2 = math.sqrt(2.0)
    inner = (math.expm1(x * x) * float(special.ndtr(1.5 * x))
             + 0.5 * math.erf(1.5 * x / r2) - 1.5 * math.erf(0.5 * x / r2))
    return q * math.sqrt(2.0 * T * max(inner, 0.0))
