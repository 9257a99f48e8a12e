r"""Gaussian differential privacy: :math:`G_\mu` and its closed forms.

Theory of operation
-------------------
:math:`G_\mu = T(N(0,1), N(\mu,1))`, :math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)`
(DRS Def. 2.7). The privacy loss is :math:`L \sim N(-\mu^2/2, \mu^2)` under
:math:`P` and :math:`N(\mu^2/2, \mu^2)` under :math:`Q`. Its privacy profile is
(DRS Cor. 2.13)

.. math:: \delta(\varepsilon;\mu) = \Phi\Big(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\Big).

Both terms are nearly equal when :math:`\varepsilon \gg \mu^2`, so the subtraction is
never done directly there. With :math:`y_1 = \varepsilon/\mu-\mu/2`,
:math:`y_2 = y_1+\mu`, :math:`u_i = y_i/\sqrt2` and the scaled complementary error
function :math:`\mathrm{erfcx}(u)=e^{u^2}\mathrm{erfc}(u)`, the exponents of the two terms
coincide and

.. math:: \delta = \tfrac12 e^{-y_1^2/2}\,[\mathrm{erfcx}(u_1)-\mathrm{erfcx}(u_2)],

where the bracket is a difference of two well-scaled numbers (computed by 16-point
Gauss–Legendre quadrature of :math:`-\mathrm{erfcx}'` when the interval is short, so
there is no cancellation for tiny :math:`\mu` either). The library works with
:math:`\log\delta`, finite down to :math:`10^{-300}` and beyond.

The inverse problems :math:`\varepsilon(\delta;\mu)` and :math:`\mu(\varepsilon,\delta)` are
solved by vectorised safeguarded Newton iterations on :math:`\log\delta` inside a bracket
that always contains the root, and the end of the final bracket on the safe side is
returned (ε never too small, μ never too large).

References
----------
DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022, Def. 2.7, Cor. 2.13,
Thm 2.14, Cor. 3.3. Balle, Wang, "Improving the Gaussian Mechanism for Differential
Privacy: Analytical Calibration and Optimal Denoising", ICML 2018 (the exact σ for (ε, δ)).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from ._numerics import log1mexp
from ._validation import as_probability_array, as_real_array, check_int, check_real
from .tradeoff import TradeOff

__all__ = [
    "Gaussian",
    "G_mu",
    "delta_from_mu",
    "log_delta_from_mu",
    "eps_from_mu",
    "mu_from_eps_delta",
    "sigma_from_mu",
    "mu_from_sigma",
    "sigma_from_eps_delta",
    "sigma_classical",
    "compose_mu",
    "group_mu",
]

_SQRT2 = math.sqrt(2.0)
_SQRT_PI = math.sqrt(math.pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)


def _erfcx_diff(u1: np.ndarray, u2: np.ndarray) -> np.ndarray:
    r""":math:`\mathrm{erfcx}(u_1)-\mathrm{erfcx}(u_2)` for :math:`u_1<u_2`, no cancellation.

    Short intervals use Gauss–Legendre on :math:`-\mathrm{erfcx}'(u) = 2/\sqrt\pi -
    2u\,\mathrm{erfcx}(u)`; long ones subtract directly (the relative error is then about
    :math:`\max(1,u_2)/(u_2-u_1)` ulps).
    """
    h = u2 - u1
    au = np.maximum(np.abs(u1), 1.0)
    short = h < np.minimum(1.0, 0.5 / au)
    out = special.erfcx(u1) - special.erfcx(u2)
    if np.any(short):
        a = u1[short][:, None]
        w = h[short][:, None]
        nodes = a + 0.5 * w * (_GL_X[None, :] + 1.0)
        integrand = 2.0 / _SQRT_PI - 2.0 * nodes * special.erfcx(nodes)
        out[short] = 0.5 * h[short] * (integrand @ _GL_W)
    return out


def _log_delta(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """log δ(ε; μ) for broadcast-compatible float arrays, μ >= 0, ε real or +inf."""
    mu, eps = np.broadcast_arrays(np.asarray(mu, float), np.asarray(eps, float))
    out = np.full(mu.shape, -np.inf)
    with np.errstate(all="ignore"):
        pos = (mu > 0) & np.isfinite(mu) & np.isfinite(eps)
        # mu = inf: delta = 1 for finite eps; eps = inf: delta = 0 (Q has no atom at +inf)
        out[np.isposinf(mu) & np.isfinite(eps)] = 0.0
        # mu = 0 (identity): delta = max(0, 1 - e^eps), for negative eps
        zero = (mu == 0) & (eps < 0)
        out[zero] = log1mexp(eps[zero])
        if not pos.any():
            return out
        m = mu[pos]
        e = eps[pos]
        y1 = e / m - 0.5 * m
        y2 = y1 + m
        res = np.empty_like(m)
        far_left = y1 < -_SQRT2
        if far_left.any():
            # delta is not small here (>= ~0.84): direct, both terms in log space
            a = special.log_ndtr(-y1[far_left])
            b = e[far_left] + special.log_ndtr(-y2[far_left])
            res[far_left] = a + log1mexp(np.minimum(b - a, 0.0))
        rest = ~far_left
        if rest.any():
            u1 = y1[rest] / _SQRT2
            u2 = y2[rest] / _SQRT2
            diff = _erfcx_diff(u1, u2)
            res[rest] = -0.5 * y1[rest] ** 2 + np.log(0.5 * np.maximum(diff, 0.0))
        out[pos] = res
    return out


@dataclass(frozen=True, slots=True)
class Gaussian(TradeOff):
    r"""Gaussian differential privacy :math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)`.

    Use :func:`G_mu` to construct. Symmetric; :math:`G_0 = \mathrm{Id}`,
    :math:`G_\infty = 0`.
    """

    mu: float

    is_symmetric = True

    def __post_init__(self):
        object.__setattr__(self, "mu", check_real("mu", self.mu, lo=0.0, finite=False))

    @property
    def label(self):
        return f"G_{{{self.mu:g}}}"

    def _f(self, alpha):
        if math.isinf(self.mu):
            return np.zeros_like(alpha)
        return special.ndtr(-special.ndtri(alpha) - self.mu)

    def _one_minus_f(self, alpha):
        if math.isinf(self.mu):
            return np.ones_like(alpha)
        return special.ndtr(special.ndtri(alpha) + self.mu)

    def _hockey(self, eps):
        return np.exp(_log_delta(self.mu, eps))

    def _epsilon(self, delta):
        return _eps_from_mu(np.full(delta.shape, self.mu), delta)

    def _loss_sf(self, t):
        t = np.asarray(t, float)
        if self.mu == 0:
            return np.where(t < 0, 1.0, 0.0)
        if math.isinf(self.mu):
            return np.zeros_like(t)
        return special.ndtr(-(t + 0.5 * self.mu**2) / self.mu)

    def _loss_sf_q(self, t):
        t = np.asarray(t, float)
        if self.mu == 0:
            return np.where(t < 0, 1.0, 0.0)
        if math.isinf(self.mu):
            return np.ones_like(t)
        return special.ndtr(-(t - 0.5 * self.mu**2) / self.mu)

    def _group(self, k):
        return Gaussian(mu=k * self.mu)

    def _dominates_exact(self, other):
        if isinstance(other, Gaussian):
            return self.mu <= other.mu
        return None


def G_mu(mu: float) -> Gaussian:
    r"""The Gaussian trade-off function :math:`G_\mu = T(N(0,1), N(\mu,1))`.

    Parameters
    ----------
    mu : float
        Non-negative; ``inf`` allowed (:math:`G_\infty \equiv 0`, no privacy).

    Examples
    --------
    >>> import gdp
    >>> g = gdp.G_mu(1.0)
    >>> round(g(0.05), 6), round(g.epsilon(1e-5), 6)
    (0.739239, 4.4086)
    """
    return Gaussian(mu=mu)


def _arr(name: str, value: Any, **kw) -> np.ndarray:
    return as_real_array(name, value, **kw)


def _out(x: np.ndarray) -> Any:
    return float(x) if np.ndim(x) == 0 else x


def log_delta_from_mu(mu: Any, eps: Any) -> Any:
    r""":math:`\log\delta(\varepsilon;\mu)` (natural log), vectorised with broadcasting.

    Finite far beyond the float range of δ itself (e.g. μ = 1, ε = 500).
    """
    m = _arr("mu", mu, lo=0.0, finite=False)
    e = _arr("eps", eps, lo=0.0, finite=False)
    return _out(_log_delta(m, e))


def delta_from_mu(mu: Any, eps: Any) -> Any:
    r"""The δ for which a μ-GDP mechanism is (ε, δ)-DP (DRS Cor. 2.13).

    .. math:: \delta(\varepsilon;\mu) = \Phi(-\varepsilon/\mu+\mu/2)
              - e^{\varepsilon}\Phi(-\varepsilon/\mu-\mu/2)

    Parameters
    ----------
    mu, eps : float or array_like
        μ ≥ 0 and ε ≥ 0 (``inf`` allowed for both); broadcast against each other.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.delta_from_mu(1.0, 1.0), 10)
    0.1269148361
    """
    m = _arr("mu", mu, lo=0.0, finite=False)
    e = _arr("eps", eps, lo=0.0, finite=False)
    return _out(np.exp(_log_delta(m, e)))


def _eps_from_mu(mu: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Vectorised core of eps_from_mu (validated, broadcast inputs)."""
    mu, delta = np.broadcast_arrays(np.asarray(mu, float), np.asarray(delta, float))
    out = np.zeros(mu.shape)
    with np.errstate(all="ignore"):
        logd = np.log(delta)
        d0 = _log_delta(mu, np.zeros(mu.shape))
        need = (logd < d0) & (mu > 0)
        out[need & (delta == 0)] = np.inf
        out[need & np.isposinf(mu) & (delta < 1)] = np.inf
        todo = need & (delta > 0) & np.isfinite(mu)
        if not todo.any():
            return out
        m = mu[todo]
        target = logd[todo]
        # bracket: delta(lo) > target >= delta(hi); tail bound delta <= Phi(-(eps/mu - mu/2))
        lo = np.zeros_like(m)
        z = np.sqrt(np.maximum(-2.0 * target, 0.0)) + 1.0
        hi = m * (0.5 * m + z)
        # initial point from the dominant term, then safeguarded Newton in eps
        x = np.clip(m * (0.5 * m + np.sqrt(np.maximum(-2.0 * target - 2 * np.log(z), 0.0))),
                    lo, hi)
        x = np.where((x <= lo) | (x >= hi), 0.5 * (lo + hi), x)
        for _ in range(100):
            g = _log_delta(m, x) - target
            # d log delta / d eps = -e^eps Phi(-y2) / delta
            y2 = x / m + 0.5 * m
            dg = -np.exp(x + special.log_ndtr(-y2) - (g + target))
            above = g > 0
            lo = np.where(above, x, lo)
            hi = np.where(above, hi, x)
            step = np.where(dg < 0, x - g / dg, 0.5 * (lo + hi))
            bad = ~np.isfinite(step) | (step <= lo) | (step >= hi)
            x_new = np.where(bad, 0.5 * (lo + hi), step)
            done = (hi - lo) <= 1e-15 * np.maximum(hi, 1e-300) + 1e-300
            if np.all(done | (np.abs(x_new - x) <= 4e-16 * np.abs(x))):
                break
            x = x_new
        # the sound answer: an eps whose delta is <= target (upper side of the bracket)
        ok = _log_delta(m, x) <= target
        res = np.where(ok, np.minimum(x, hi), hi)
        out[todo] = res
    return out


def eps_from_mu(mu: Any, delta: Any) -> Any:
    r"""Smallest ε ≥ 0 with δ(ε; μ) ≤ δ: the (ε, δ)-DP guarantee of a μ-GDP mechanism.

    Vectorised with broadcasting; safeguarded Newton on :math:`\log\delta` inside a
    bracket that always holds the root, returning the side where δ(ε) ≤ δ holds (never
    an ε that is too small). ``delta = 0`` gives ``inf`` for μ > 0.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.eps_from_mu(1.0, 1e-5), 6)
    4.4086
    """
    m = _arr("mu", mu, lo=0.0, finite=False)
    d = as_probability_array("delta", delta)
    return _out(_eps_from_mu(m, d))


def mu_from_eps_delta(eps: Any, delta: Any) -> Any:
    r"""Largest μ such that μ-GDP implies (ε, δ)-DP, i.e. the root of δ(ε; μ) = δ.

    δ(ε; μ) is increasing in μ with :math:`\partial\delta/\partial\mu =
    \varphi(\varepsilon/\mu-\mu/2)`. Returns the lower end of the final bracket (never a
    μ that is too large). ``delta = 1`` gives ``inf``; ``delta = 0`` gives 0.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.mu_from_eps_delta(1.0, 1e-5), 6)
    0.254255
    """
    e = _arr("eps", eps, lo=0.0, finite=False)
    d = as_probability_array("delta", delta)
    e, d = np.broadcast_arrays(e, d)
    out = np.zeros(e.shape)
    with np.errstate(all="ignore"):
        out[(d >= 1)] = np.inf
        out[np.isposinf(e) & (d > 0)] = np.inf
        todo = (d > 0) & (d < 1) & np.isfinite(e)
        if todo.any():
            ee = e[todo]
            target = np.log(d[todo])
            lo = np.zeros_like(ee)
            hi = np.ones_like(ee)
            for _ in range(1100):
                small = _log_delta(hi, ee) < target
                if not small.any():
                    break
                lo = np.where(small, hi, lo)
                hi = np.where(small, hi * 2.0, hi)
            x = 0.5 * (lo + hi)
            for _ in range(200):
                g = _log_delta(x, ee) - target
                y1 = ee / x - 0.5 * x
                # d log delta / d mu = phi(y1) / delta
                dg = np.exp(-0.5 * y1**2 - 0.5 * math.log(2 * math.pi) - (g + target))
                below = g < 0
                lo = np.where(below, x, lo)
                hi = np.where(below, hi, x)
                step = x - g / dg
                bad = ~np.isfinite(step) | (step <= lo) | (step >= hi)
                x_new = np.where(bad, 0.5 * (lo + hi), step)
                if np.all((hi - lo) <= 1e-15 * hi) or np.all(np.abs(x_new - x) <= 4e-16 * x):
                    break
                x = x_new
            ok = _log_delta(x, ee) <= target
            out[todo] = np.where(ok, np.maximum(x, lo), lo)
    return _out(out)


def mu_from_sigma(sensitivity: float, sigma: Any) -> Any:
    r"""μ of the Gaussian mechanism :math:`\theta(S)+N(0,\sigma^2)`: :math:`\mu=\Delta/\sigma`
    (DRS Thm 2.7)."""
    s = check_real("sensitivity", sensitivity, lo=0.0)
    sg = _arr("sigma", sigma, lo=0.0, lo_open=True, finite=False)
    return _out(s / sg)


def sigma_from_mu(sensitivity: float, mu: Any) -> Any:
    r"""Noise scale for μ-GDP: :math:`\sigma = \Delta/\mu` (DRS Thm 2.7)."""
    s = check_real("sensitivity", sensitivity, lo=0.0)
    m = _arr("mu", mu, lo=0.0, lo_open=True, finite=False)
    return _out(s / m)


def sigma_from_eps_delta(sensitivity: float, eps: Any, delta: Any) -> Any:
    r"""The exact (analytic) Gaussian noise scale for (ε, δ)-DP:
    :math:`\sigma = \Delta/\mu(\varepsilon,\delta)` (Balle–Wang 2018; DRS Cor. 2.13).

    Valid for every ε ≥ 0 (unlike :func:`sigma_classical`) and never smaller than needed.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.sigma_from_eps_delta(1.0, 1.0, 1e-5), 6)
    3.933048
    """
    s = check_real("sensitivity", sensitivity, lo=0.0)
    e = _arr("eps", eps, lo=0.0, lo_open=True, finite=False)
    d = _arr("delta", delta, lo=0.0, hi=1.0, lo_open=True)
    mu = np.asarray(mu_from_eps_delta(e, d))
    with np.errstate(divide="ignore"):
        return _out(np.where(mu > 0, s / mu, np.inf))


def sigma_classical(sensitivity: float, eps: float, delta: float) -> float:
    r"""The classical calibration :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon`
    (Dwork–Roth Thm A.1).

    Raises ``ValueError`` for ε ≥ 1, where the theorem does not apply; use
    :func:`sigma_from_eps_delta` (exact, and smaller) instead.
    """
    s = check_real("sensitivity", sensitivity, lo=0.0)
    e = check_real("eps", eps, lo=0.0, lo_open=True)
    d = check_real("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if e >= 1.0:
        raise ValueError(
            f"`eps` must be < 1 for the classical Gaussian calibration (Dwork-Roth Thm A.1 "
            f"is invalid for eps >= 1); got eps={e!r}. Use sigma_from_eps_delta instead.")
    if d >= 1.25:  # pragma: no cover - excluded by the check above
        warnings.warn("delta >= 1.25 makes the classical formula meaningless", stacklevel=2)
    return s * math.sqrt(2.0 * math.log(1.25 / d)) / e


def compose_mu(*mus: Any) -> float:
    r"""μ of the composition :math:`G_{\mu_1}\otimes\cdots\otimes G_{\mu_n} =
    G_{\sqrt{\sum\mu_i^2}}` (DRS Cor. 3.3). Accepts numbers or one array."""
    vals = np.concatenate([np.ravel(_arr("mus", m, lo=0.0, finite=False)) for m in mus]) \
        if mus else np.zeros(0)
    if np.any(np.isinf(vals)):
        return math.inf
    return float(np.sqrt(np.sum(vals**2)))


def group_mu(mu: float, k: int) -> float:
    """μ-GDP gives kμ-GDP for groups of size k (DRS Thm 2.14)."""
    m = check_real("mu", mu, lo=0.0, finite=False)
    return check_int("k", k, lo=1) * m
