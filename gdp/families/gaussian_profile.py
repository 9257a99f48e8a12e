r"""Gaussian differential privacy: :math:`G_\mu` and its closed forms.

Theory of operation
-------------------
:math:`G_\mu = T(N(0,1), N(\mu,1))`, :math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)`
(DRS Sec. 2.3). The privacy loss is :math:`L \sim N(-\mu^2/2, \mu^2)` under
:math:`P` and :math:`N(\mu^2/2, \mu^2)` under :math:`Q`. Its privacy profile is
(DRS Cor. 2.13)

.. math:: \delta(\varepsilon;\mu) = \Phi\Big(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\Big).

Both terms are nearly equal when :math:`\varepsilon \gg \mu^2`, so the subtraction is
never done directly there. With :math:`y_1 = \varepsilon/\mu-\mu/2`,
:math:`y_2 = y_1+\mu`, :math:`u_i = y_i/\sqrt2` and the scaled complementary error
function :math:`\mathrm{erfcx}(u)=e^{u^2}\mathrm{erfc}(u)`, the identity
:math:`e^{\varepsilon}e^{-y_2^2/2} = e^{-y_1^2/2}` gives

.. math:: \delta = \tfrac12 e^{-y_1^2/2}\,[\mathrm{erfcx}(u_1)-\mathrm{erfcx}(u_2)],

a difference of two well-scaled numbers. When :math:`u_2-u_1 = \mu/\sqrt2` is short
compared with :math:`\max(1, u_1)` the bracket is computed without cancellation as
:math:`\int_{u_1}^{u_2} g`, :math:`g = -\mathrm{erfcx}' = 2/\sqrt\pi - 2u\,\mathrm{erfcx}(u)`,
by 4-point Gauss–Legendre quadrature (with the asymptotic series of :math:`g` for
:math:`u \ge 10`, where its formula cancels). Far in the left tail
(:math:`y_1 < -\sqrt2`, δ > 0.7) both terms are taken in log space directly, and
δ(0; μ) = erf(μ/(2√2)) exactly. The library works with :math:`\log\delta`, finite far
below :math:`10^{-300}`. Its rounding error, measured against mpmath, is below
:math:`1.3\times10^{-14}\max(1,|\log\delta|)` for :math:`|\log\delta| < 10` and
:math:`6\times10^{-14} + 7\times10^{-16}|\log\delta|` beyond; every δ the module
returns is raised by a bound about three times these figures (:func:`_noise`), so it
is never below the exact value. Likewise :math:`G_\mu(\alpha)` is lowered (and
:math:`1-G_\mu(\alpha)` raised) by a bound on the rounding error of ``ndtr``.

Derivatives are cheap: with :math:`A = e^{\varepsilon}\Phi(-y_2)` and
:math:`e^{\varepsilon}\varphi(y_2)=\varphi(y_1)`,
:math:`\partial_\varepsilon\delta = -A`, :math:`\partial^2_\varepsilon\delta =
\varphi(y_1)/\mu - A` and :math:`\partial_\mu\delta = \varphi(y_1)`.

Inverse problems. :math:`\log\delta` is concave in ε, because
:math:`\delta(\varepsilon) = \int_\varepsilon^\infty e^t P[L>t]\,dt` is the tail
integral of a log-concave function; so a Newton step for
:math:`\log\delta(\varepsilon) = \log\delta_0` lands on the safe side (δ ≤ δ₀) from
any point. :func:`eps_from_mu` starts from the root of an elementary model of
:math:`\log\delta` (the Börjesson–Sundberg approximation of the Mills ratio), takes a
Halley step, and returns the next Newton point plus a margin covering the rounding error
once that point is accurate to 1e-13 (else more Halley steps inside a bracket that always
holds the root): two evaluations of δ per value, an ε that is never too small.
:func:`mu_from_eps_delta` takes Halley steps in :math:`\log\mu` from a lower bound
(:math:`\log\delta` is concave in :math:`\log\mu` too, checked numerically), returns
the Newton point less a margin, and checks the answer. Both are vectorised over blocks of
16384 values (numpy temporaries stay in cache); where μ or ε is below 1e-280 (subnormal
arithmetic) the answer is checked and moved to the safe side if needed.

References
----------
DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022, Sec. 2.3, Cor. 2.13,
Thm 2.14, Cor. 3.3. Balle, Wang, "Improving the Gaussian Mechanism for Differential
Privacy: Analytical Calibration and Optimal Denoising", ICML 2018 (the exact σ for (ε, δ)).
Börjesson, Sundberg, "Simple approximations of the error function Q(x) for communications
applications", IEEE Trans. Commun. 27, 1979 (the Mills-ratio model of the starting point).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .._numerics import step_until

__all__ = []

_SQRT2 = math.sqrt(2.0)
_TINY = 5e-324  # the smallest positive float
_LOG_NORMAL = -708.3964185322641  # log of the smallest positive normal float, 2.2e-308
_LOG_TINY_INV = 1074.0 * math.log(2.0)  # -log(5e-324)
_SQRT_PI = math.sqrt(math.pi)
_LOG2 = math.log(2.0)
_LOG_SQRT_PI = math.log(_SQRT_PI)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_2SQRT2 = 1.0 / (2.0 * _SQRT2)

#: values are processed in blocks of this size (keeps numpy temporaries in cache)
_CHUNK = 16384
#: quadrature instead of subtraction when (u2 - u1) < _QUAD_REL * max(1, u1)
_QUAD_REL = 0.02
_GL_X, _GL_W = np.polynomial.legendre.leggauss(4)
_GL_T = 0.5 * (_GL_X + 1.0)
#: g(v) = S(v) / (sqrt(pi) v^2) with S(v) = sum_m (-1)^m (2m+1)!! / (2 v^2)^m for v >= 10;
#: 15 terms leave a relative truncation error below 1e-17 there.
_ASYM_V = 10.0
_ASYM_C = np.array([(-1) ** m * math.prod(range(1, 2 * m + 2, 2)) / 2.0**m for m in range(15)])
#: bound on the rounding error of the computed log delta, eta(F) = min(_NOISE_SMALL *
#: max(1, |F|), _NOISE_ABS + _NOISE_REL * |F|); measured (2e4 random points against
#: mpmath) at most 1.3e-14 max(1, |F|) for |F| < 10 and 6e-14 + 7e-16 |F| beyond.
_NOISE_SMALL = 4e-14
_NOISE_ABS = 2e-13
_NOISE_REL = 2e-15
#: relative accuracy to which eps and mu are solved (before the rounding margin)
_RTOL = 1e-13
_MAXIT = 100
#: Börjesson–Sundberg Mills ratio model  m(y) ~ 1 / ((1 - a) y + a sqrt(y^2 + b)), y >= 0
_BS_A = 0.339
_BS_B = 5.510


# ---------------------------------------------------------------------------
# log delta(eps; mu) and its derivatives
# ---------------------------------------------------------------------------
def _g_scaled(v: np.ndarray, scale: np.ndarray) -> np.ndarray:
    r""":math:`\sqrt\pi\,\mathrm{scale}^2\,g(v)` with :math:`g(v) = -\mathrm{erfcx}'(v)`."""
    out = np.empty_like(v)
    big = v >= _ASYM_V
    sm = ~big
    if sm.any():
        vs = v[sm]
        out[sm] = (2.0 - 2.0 * _SQRT_PI * vs * special.erfcx(vs)) * scale[sm] ** 2
    if big.any():
        vb = v[big]
        w = 1.0 / (vb * vb)
        s = np.full_like(vb, _ASYM_C[-1])
        for c in _ASYM_C[-2::-1]:
            s = s * w + c
        out[big] = s * (scale[big] / vb) ** 2
    return out


def _log_erfcx_quad(u1: np.ndarray, h: np.ndarray) -> np.ndarray:
    r""":math:`\log(\mathrm{erfcx}(u_1)-\mathrm{erfcx}(u_1+h))` for short intervals
    (:math:`0 < h < 0.02\max(1,u_1)`, :math:`u_1 \ge -1`) as :math:`\log\int_{u_1}^{u_1+h} g`:
    4-point Gauss–Legendre, exact to rounding because the interval is short compared
    with the scale on which :math:`g` varies; no cancellation."""
    sc = np.maximum(u1, 1.0)
    nodes = u1[:, None] + h[:, None] * _GL_T[None, :]
    vals = _g_scaled(nodes, np.broadcast_to(sc[:, None], nodes.shape))
    return np.log(0.5 * h * (vals @ _GL_W)) - 2.0 * np.log(sc) - _LOG_SQRT_PI


def _ld_core(mu: np.ndarray, eps: np.ndarray, derivs: int = 0):
    r""":math:`\log\delta(\varepsilon;\mu)` for 1-d float arrays with :math:`0<\mu<\infty`,
    :math:`0\le\varepsilon<\infty` (call under ``np.errstate(all="ignore")``).

    ``derivs=1`` also returns :math:`\partial_\varepsilon\log\delta` and
    :math:`\partial^2_\varepsilon\log\delta`; ``derivs=2`` returns
    :math:`\partial_{\log\mu}\log\delta`.
    """
    y1 = eps / mu - 0.5 * mu
    u1 = y1 * (1.0 / _SQRT2)
    h = mu * (1.0 / _SQRT2)
    e2 = special.erfcx(u1 + h)
    D = special.erfcx(u1) - e2
    lD = np.log(D)
    short = h < _QUAD_REL * np.maximum(u1, 1.0)
    any_short = short.any()
    if any_short:
        lD[short] = _log_erfcx_quad(u1[short], h[short])
    F = (-0.5 * y1) * y1 + (lD - _LOG2)
    if derivs:
        iD = 1.0 / D
        if any_short:
            iD[short] = np.exp(-lD[short])
        if derivs == 1:
            F1 = -e2 * iD
            F2 = (_SQRT_2_OVER_PI / mu - e2) * iD - F1 * F1
        else:
            Fm = (_SQRT_2_OVER_PI * mu) * iD
    far = y1 < -_SQRT2
    if far.any():
        # delta > 0.7 here: both terms of the closed form in log space, no cancellation
        y1f = y1[far]
        a = special.log_ndtr(-y1f)
        b = eps[far] + special.log_ndtr(-y1f - mu[far])
        r = a + np.log1p(-np.exp(b - a))
        F[far] = r
        if derivs:
            A = np.exp(b - r)
            phi = np.exp(-0.5 * y1f * y1f - _LOG_SQRT_2PI - r)
            if derivs == 1:
                F1[far] = -A
                F2[far] = phi / mu[far] - A - A * A
            else:
                Fm[far] = mu[far] * phi
    if y1.max() == np.inf:
        F[np.isposinf(y1)] = -np.inf
    if derivs == 1:
        return F, F1, F2
    if derivs == 2:
        return F, Fm
    return F


def _noise(F: np.ndarray) -> np.ndarray:
    """Bound on the rounding error of the computed log delta near the value ``F``."""
    a = np.abs(F)
    return np.minimum(_NOISE_SMALL * np.maximum(1.0, a), _NOISE_ABS + _NOISE_REL * a)


def _upper(F: np.ndarray) -> np.ndarray:
    """The computed log delta raised by its rounding-error bound (never above 0)."""
    return np.where(np.isfinite(F), np.minimum(F + _noise(F), 0.0), F)


def _log_delta0(mu: np.ndarray) -> np.ndarray:
    r""":math:`\log\delta(0;\mu) = \log\mathrm{erf}(\mu/(2\sqrt2))` (exact closed form)."""
    with np.errstate(divide="ignore"):
        return np.log(special.erf(mu * _INV_2SQRT2))


def _ld_block(m: np.ndarray, e: np.ndarray) -> np.ndarray:
    """log delta for one block of flat arrays (any mu in [0, inf], eps in [-inf, inf])."""
    regular = (m > 0) & (m < np.inf) & (e > 0) & (e < np.inf)
    if regular.all():
        return _ld_core(m, e)
    out = np.full(m.size, -np.inf)
    neg = e < 0
    ea = np.abs(e)
    # mu = inf: P and Q are singular, Q[L = +inf] = 1, so delta = 1 for every eps
    out[np.isposinf(m)] = 0.0
    fin = (m > 0) & (m < np.inf)
    zero = fin & (ea == 0)
    if zero.any():
        out[zero] = _log_delta0(m[zero])
    j = np.flatnonzero(fin & (ea > 0) & (ea < np.inf))
    if j.size:
        out[j] = _ld_core(m[j], ea[j])
    if neg.any():
        en = e[neg]
        out[neg] = np.logaddexp(np.log(-np.expm1(en)), en + out[neg])
    return out


def _delta_upper(F: np.ndarray) -> np.ndarray:
    """δ = exp(log δ) from the raised log δ, never rounded down to 0: a δ below the
    smallest positive float (log δ < -744.4) is returned as that float, 5e-324, an upper
    bound (only δ = 0 exactly, log δ = -inf, gives 0). Below the smallest normal float
    (2.2e-308) floats are a grid of step 5e-324, which no relative margin on log δ covers
    (at δ = 8.5e-321 one step is 6e-4 relative): there δ is counted in steps,
    :math:`\\lceil e^{F + 1074\\log 2}(1 + 10^{-12})\rceil` times 5e-324 (exact), the
    factor covering the rounding of the shift (|F| < 745 times 2^-52, and exp's 1 ulp)."""
    with np.errstate(under="ignore", over="ignore"):
        steps = np.ceil(np.exp(F + _LOG_TINY_INV) * (1.0 + 1e-12))
        v = np.where(F < _LOG_NORMAL, steps * _TINY, np.exp(F))
        return np.where(np.isneginf(F), 0.0, np.maximum(v, _TINY))


def _log_delta(mu: Any, eps: Any) -> np.ndarray:
    r"""log δ(ε; μ) for broadcast-compatible float arrays, μ ∈ [0, ∞], ε ∈ [−∞, ∞].

    Returns an upper bound: the computed value plus the bound on its rounding error
    (:func:`_noise`), so that δ is never too low. Negative ε (the one-order profile used
    by generic code) uses the symmetry
    :math:`G_\mu = G_\mu^{-1}`: :math:`\delta(\varepsilon) = 1 - e^{\varepsilon}
    + e^{\varepsilon}\delta(-\varepsilon)` (a sum of non-negative terms).
    """
    mu, eps = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(eps, dtype=float))
    shape = mu.shape
    m = mu.ravel()
    e = eps.ravel()
    out = np.empty(m.size)
    with np.errstate(all="ignore"):
        for s in range(0, m.size, _CHUNK):
            out[s:s + _CHUNK] = _upper(_ld_block(m[s:s + _CHUNK], e[s:s + _CHUNK]))
    return out.reshape(shape)


# ---------------------------------------------------------------------------
# eps(delta; mu)
# ---------------------------------------------------------------------------
def _model_root(mu: np.ndarray, logd: np.ndarray) -> np.ndarray:
    r"""Root :math:`y \ge 0` of an elementary model of :math:`\log\delta` in
    :math:`y = \varepsilon/\mu - \mu/2` (a starting point only).

    :math:`\delta = \varphi(y)[m(y) - m(y+\mu)]` with the Mills ratio
    :math:`m = \Phi(-\cdot)/\varphi`, modelled by :math:`1/((1-a)y + a\sqrt{y^2+b})`
    (Börjesson–Sundberg, relative error < 0.3 %), the difference of the two model values
    written without cancellation. Start from the large-y form
    :math:`\delta \approx \varphi(y)\mu/(y(y+\mu))` (one fixed-point step), then one
    Newton step on the model (its derivative without the slowly varying
    :math:`\log c` term). Median relative error of the resulting ε about 1e-4.
    """
    a = _BS_A
    ca = 1.0 - a
    L = np.log(mu) - logd - _LOG_SQRT_2PI
    y = np.sqrt(np.maximum(2.0 * L, 1.0))
    y = np.sqrt(np.maximum(2.0 * (L - np.log(y * (y + mu))), 1.0))
    y2 = y + mu
    s1 = np.sqrt(y * y + _BS_B)
    s2 = np.sqrt(y2 * y2 + _BS_B)
    d1 = ca * y + a * s1
    d2 = ca * y2 + a * s2
    c = ca + a * (y + y2) / (s1 + s2)
    G = L - 0.5 * y * y + np.log(c / (d1 * d2))
    dG = -y - (ca + a * y / s1) / d1 - (ca + a * y2 / s2) / d2
    return np.maximum(y - G / dG, 0.0)


def _solve_eps(m: np.ndarray, logd: np.ndarray) -> np.ndarray:
    """The sound eps for one block with 0 < m < inf, 0 < exp(logd) < delta(0; m)."""
    y = _model_root(m, logd)
    x = m * (y + 0.5 * m)
    near = y < 0.25
    if near.any():
        # near eps = 0 the convex delta(eps) lies above its tangent at 0, whose root is a
        # lower bound on eps; use it when it is the smaller start
        mn = m[near]
        tangent = (special.erf(mn * _INV_2SQRT2) - np.exp(logd[near])) / special.ndtr(-0.5 * mn)
        x[near] = np.minimum(tangent, x[near])
    x = np.maximum(x, 1e-300)
    # first step: Halley from the model root
    F, F1, F2 = _ld_core(m, x, 1)
    g = F - logd
    xH = x - 2.0 * g * F1 / (2.0 * F1 * F1 - g * F2)
    x = np.where(xH > 0, xH, 0.5 * x)
    # then: stop at the Newton point (+ rounding margin) once it is accurate, else a
    # Halley step inside a bracket [lo, hi] that always holds the root
    n = m.size
    res = np.empty(n)
    idx = None
    lo = hi = None
    tau = 3.0 * _noise(logd)  # rounding at xN and at the answer, and the raise of _upper
    for _ in range(_MAXIT):
        F, F1, F2 = _ld_core(m, x, 1)
        g = F - logd
        s = g / F1
        xN = x - s  # Newton point: delta(xN) <= target by concavity of log delta
        safe = xN + (tau / np.abs(F1) + 4.5e-16 * xN)
        # lhs: about twice the error of xN; near eps = 0 the rounding margin tau/|F1| is the
        # floor of what is attainable, so it serves as the absolute scale
        done = np.abs(F2 * s * s / F1) <= _RTOL * np.maximum(xN, tau / np.abs(F1))
        if idx is None:
            if done.all():
                return safe
            idx = np.arange(n)
            lo = np.zeros(n)
            hi = np.full(n, np.inf)
        if done.any():
            res[idx[done]] = safe[done]
            k = ~done
            if not k.any():
                return res
            idx, m, x, lo, hi, logd, tau = idx[k], m[k], x[k], lo[k], hi[k], logd[k], tau[k]
            g, F1, F2, xN, safe = g[k], F1[k], F2[k], xN[k], safe[k]
        hi = np.where((xN > 0) & (safe < hi), safe, hi)
        lo = np.where(g > 0, np.maximum(lo, x), lo)
        xH = x - 2.0 * g * F1 / (2.0 * F1 * F1 - g * F2)
        inside = (xH > lo) & (xH < hi)
        fallback = np.where(hi < np.inf, 0.5 * (lo + hi), 2.0 * x + 1.0)
        x = np.where(inside, xH, fallback)
    res[idx] = hi  # pragma: no cover - never reached; hi is a sound upper bound
    return res


def _eps_block(m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """eps_from_mu for one block of flat arrays (validated values)."""
    # eps > 0 is needed iff d < delta(0; m) = erf(m / (2 sqrt 2)); a cheap sufficient test
    # first: erf is concave on [0, inf), so erf(x) >= erf(1) min(x, 1) > 0.84 min(x, 1)
    need = d < 0.84 * np.minimum(m * _INV_2SQRT2, 1.0)
    if need.all():
        return _solve_eps(m, np.log(d))
    out = np.zeros(m.size)
    unclear = ~need
    need[unclear] = d[unclear] < np.exp(_upper(_log_delta0(m[unclear])))
    infinite = need & ((d == 0) | np.isposinf(m))
    if infinite.any():
        out[infinite] = np.inf
        need &= ~infinite
    j = np.flatnonzero(need)
    if j.size:
        out[j] = _solve_eps(m[j], np.log(d[j]))
    return out


def _nudge(x: np.ndarray, to: float) -> np.ndarray:
    """Move values below 1e-300 by 0.1 % and 4 ulps towards ``to`` (their own precision,
    and that of delta computed from them, is that coarse in subnormal arithmetic)."""
    small = x < 1e-300
    y = np.where(small, x * (1.001 if to > 0 else 0.999), x)
    for _ in range(4):
        y = np.where(small, np.nextafter(y, to), y)
    return y


def _flat_pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """The two arguments broadcast against each other and flattened, and the shape."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    return a.ravel(), b.ravel(), a.shape


def _check_eps(m: np.ndarray, d: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Raise eps (by growing steps) until the computed delta(e; m) <= d. Only used where
    eps or mu is below 1e-280: subnormal arithmetic voids the rounding analysis there."""
    return step_until(lambda x: _delta_upper(_log_delta(m, x)) <= d, e, np.inf, rel=1e-15)


def _eps_from_mu(mu: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Vectorised core of eps_from_mu (validated, broadcast-compatible inputs)."""
    m, d, shape = _flat_pair(mu, delta)
    out = np.empty(m.size)
    with np.errstate(all="ignore"):
        for s in range(0, m.size, _CHUNK):
            out[s:s + _CHUNK] = _eps_block(m[s:s + _CHUNK], d[s:s + _CHUNK])
        tiny = np.flatnonzero(((out > 0) & (out < 1e-280)) | ((m > 0) & (m < 1e-280))
                              | ((out > 0) & (out < np.inf) & (d < 1e-300)))
        if tiny.size:
            out[tiny] = _check_eps(m[tiny], d[tiny], _nudge(out[tiny], np.inf))
    return out.reshape(shape)


# ---------------------------------------------------------------------------
# mu(eps, delta)
# ---------------------------------------------------------------------------
def _solve_mu(e: np.ndarray, logd: np.ndarray) -> np.ndarray:
    """Largest mu with delta(e; mu) <= exp(logd), for one block with 0 <= e < inf and
    -inf < logd < 0 (before the final check)."""
    z = -special.ndtri_exp(logd)  # Phi^{-1}(1 - delta)
    r = np.sqrt(z * z + 2.0 * e)
    # two lower bounds on the root: delta <= Phi(-y1) gives y1(mu) <= z, and
    # delta(e; mu) <= delta(0; mu) = erf(mu / (2 sqrt 2))
    mu_a = np.where(z > 0, 2.0 * e / np.where(z > 0, z + r, 1.0), r - z)
    mu_b = (2.0 * _SQRT2) * special.erfinv(np.exp(logd))
    t = np.log(np.fmax(np.fmax(mu_a, mu_b), 5e-324))  # Newton/Halley in t = log mu
    n = e.size
    res = np.empty(n)
    idx = np.arange(n)
    lo = t.copy()
    hi = np.full(n, np.inf)
    tau = 3.0 * _noise(logd)
    for _ in range(_MAXIT):
        mu = np.exp(t)
        F, Ft = _ld_core(mu, e, 2)
        g = F - logd
        s = g / Ft  # Newton point t - s lies below the root (log delta concave in log mu)
        y1 = e / mu - 0.5 * mu
        Ftt = Ft * (1.0 + y1 * (y1 + mu) - Ft)
        done = np.abs(Ftt / Ft) * (s * s) <= _RTOL
        if done.any():
            res[idx[done]] = np.exp(t[done] - s[done] - tau[done] / Ft[done] - 4.5e-16)
            k = ~done
            if not k.any():
                return res
            idx, t, lo, hi, e, logd, tau = idx[k], t[k], lo[k], hi[k], e[k], logd[k], tau[k]
            g, Ft, Ftt = g[k], Ft[k], Ftt[k]
        lo = np.where(g <= 0, np.maximum(lo, t), lo)
        hi = np.where(g > 0, np.minimum(hi, t), hi)
        tH = t - 2.0 * g * Ft / (2.0 * Ft * Ft - g * Ftt)
        inside = (tH > lo) & (tH < hi)
        t = np.where(inside, tH, np.where(hi < np.inf, 0.5 * (lo + hi), t + 1.0))
    res[idx] = np.exp(lo)  # pragma: no cover - never reached; lo is a checked safe point
    return res


def _check_mu(e: np.ndarray, d: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Step a computed mu down (by ulps, then growing steps) until the computed
    delta(e; mu) <= d; mu = 0 always qualifies."""
    return step_until(lambda x: _delta_upper(_log_delta(x, e)) <= d, mu, 0.0, rel=2e-15,
                      max_rel=0.5)


def _mu_from_eps_delta(eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    e, d, shape = _flat_pair(eps, delta)
    out = np.zeros(e.size)
    with np.errstate(all="ignore"):
        out[d >= 1] = np.inf
        out[np.isposinf(e) & (d > 0)] = np.inf
        idx = np.flatnonzero((d > 0) & (d < 1) & np.isfinite(e))
        logd = np.log(d)
        for s in range(0, idx.size, _CHUNK):
            j = idx[s:s + _CHUNK]
            out[j] = _check_mu(e[j], d[j], _nudge(_solve_mu(e[j], logd[j]), 0.0))
    return out.reshape(shape)


# ---------------------------------------------------------------------------
# the trade-off function
# ---------------------------------------------------------------------------
def _ndtr_error(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    r"""Bound on the relative rounding error of ``ndtr(x)``, ``x = ±ndtri(alpha) - mu``.

    The absolute error of ``x`` is a few ulps of :math:`|x| + |z|`; ``ndtr`` amplifies it
    by the inverse Mills ratio :math:`\varphi(x)/\Phi(x) \le \max(-x, 0) + e^{-x_+^2/2}`.
    Measured errors (against mpmath) stay below a fifth of this bound.
    """
    with np.errstate(all="ignore"):
        xp = np.maximum(x, 0.0)
        lam = np.maximum(-x, 0.0) + np.exp(-0.5 * xp * xp)
        b = 2e-15 + 1e-15 * lam * (np.abs(x) + np.abs(z))
    return np.where(np.isfinite(b), b, 0.0)
