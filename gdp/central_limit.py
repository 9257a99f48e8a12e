r"""The central limit theorem for composition, and its Edgeworth refinement.

Theory of operation
-------------------
A trade-off function :math:`f = T(P,Q)` is fixed by the law of the privacy loss
:math:`L = \log dQ/dP` under :math:`P`; equivalently :math:`L = \log|f'(U)|` with
:math:`U` uniform on [0, 1] (Neyman–Pearson: the slope of :math:`f` at type I error
:math:`x` is :math:`-e^{t}` where :math:`P[L>t] = x`). The four functionals of DRS Sec. 3
are moments of that law:

.. math::
    \mathrm{kl}(f) = -\int_0^1 \log|f'(x)|\,dx = -E_P[L],\qquad
    \kappa_2(f) = \int_0^1 \log^2|f'(x)|\,dx = E_P[L^2],

    \kappa_3(f) = \int_0^1 |\log|f'(x)||^3\,dx = E_P|L|^3,\qquad
    \bar\kappa_3(f) = \int_0^1 |\log|f'(x)| + \mathrm{kl}(f)|^3\,dx = E_P|L - E_P L|^3.

Composition adds independent privacy losses, so for symmetric :math:`f_1,\dots,f_n` the
standardised total loss is close to normal and (DRS Thm 3.4, Berry–Esseen)

.. math::
    G_\mu(\alpha+\gamma)-\gamma \le f_1\otimes\cdots\otimes f_n(\alpha)
    \le G_\mu(\alpha-\gamma)+\gamma,\quad
    \mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}},\quad
    \gamma = \frac{0.56\,\|\bar\kappa_3\|_1}{(\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2)^{3/2}}.

:func:`clt` returns :math:`G_\mu` (an **approximation**, not a bound: it can under-state
ε) together with the two Berry–Esseen curves made into valid trade-off functions on all
of [0, 1]. :func:`edgeworth` refines the normal approximation by the Edgeworth expansion
of the law of the total loss under :math:`P` and under :math:`Q` (ZDLS), again an
approximation.

Where the functionals come from ("formula first, numerics second"): a closed form for
:math:`G_\mu`, :math:`f_{\varepsilon,0}`, the Laplace curve and the identity, and for
the subsampled curve :math:`C_p(f)` of a symmetric f its exact decomposition into the laws
of :math:`f_p` and :math:`f_p^{-1}` (there is no closed form for the subsampled Gaussian;
its one-sided law is integrated by quadrature); this is a ``functools.singledispatch``
registry in this module. Otherwise the exact atoms of a
piecewise-linear curve (``_atoms``); otherwise the survival function ``_loss_sf`` of the
loss law, integrated by adaptive quadrature on its support; otherwise quadrature of
:math:`\log|f'(x)|` on the curve itself (a five-point derivative), which handles the
endpoint singularities and kinks but is only as accurate as the curve.

A functional is infinite when :math:`f' = 0` on a set of positive measure (the loss has
P-mass at :math:`-\infty`, e.g. :math:`f_{\varepsilon,\delta}` with δ > 0): then a
``ValueError`` says so rather than returning ``inf`` silently.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022,
Sec. 3.2–3.3 (Thm 3.4, Thm 3.5, Cor. 3.6).
BDLS: Z. Bu, J. Dong, Q. Long, W. J. Su, "Deep Learning with Gaussian Differential
Privacy", Harvard Data Science Review 2(3), 2020 (arXiv 1911.11607).
ZDLS: Q. Zheng, J. Dong, Q. Long, W. J. Su, "Sharp Composition Bounds for Gaussian
Differential Privacy via Edgeworth Expansion", ICML 2020 (arXiv 2003.04493).
I. Shevtsova, "An improvement of convergence rate estimates in the Lyapunov theorem",
Doklady Math. 82, 2010 (the Berry–Esseen constant 0.56 for non-identical summands).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import integrate, optimize, special

from ._validation import as_real_array, check_int, check_probability, check_real
from .epsdelta import EpsDelta
from .gaussian import Gaussian
from .laplace import Laplace
from .subsampling import PoissonSubsampled, Subsampled
from .tradeoff import Identity, PiecewiseLinear, TradeOff

__all__ = [
    "ApproximationWarning",
    "Functionals",
    "kl",
    "kappa2",
    "kappa3",
    "kappa3_bar",
    "functionals",
    "CLTResult",
    "BerryEsseenLower",
    "BerryEsseenUpper",
    "clt",
    "clt_limit",
    "GaussianDelta",
    "eps_delta_limit",
    "noisy_sgd_mu",
    "EdgeworthApprox",
    "edgeworth",
]

#: The Berry–Esseen constant for sums of independent, non-identical summands
#: (Shevtsova 2010), used by DRS Thm 3.4.
BERRY_ESSEEN_C = 0.56

_GL_X, _GL_W = np.polynomial.legendre.leggauss(40)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


class ApproximationWarning(UserWarning):
    """An approximation (CLT, Edgeworth) may be far from the exact composition.

    Raised when the exact answer was cheap to compute and differs by more than the
    requested tolerance, or when the conditions of the limit theorem are far from met
    (e.g. the Berry–Esseen :math:`\\gamma \\ge 1/2`, where the bounds say nothing).
    """


# ---------------------------------------------------------------------------
# the functionals
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Functionals:
    r"""The four CLT functionals of one trade-off function (DRS Sec. 3.2).

    ``kl`` :math:`= -E_P L`, ``kappa2`` :math:`= E_P L^2`, ``kappa3`` :math:`= E_P|L|^3`,
    ``kappa3_bar`` :math:`= E_P|L - E_P L|^3`, with :math:`L` the privacy loss under
    :math:`P`.
    """

    kl: float
    kappa2: float
    kappa3: float
    kappa3_bar: float


@dataclass(frozen=True, slots=True)
class _Cumulants:
    """Cumulants 1..4 of the privacy loss under P and under Q."""

    p: tuple[float, float, float, float]
    q: tuple[float, float, float, float]


def _check_tradeoff(f: Any, name: str = "f") -> TradeOff:
    if not isinstance(f, TradeOff):
        raise TypeError(f"`{name}` must be a TradeOff; got {name}={f!r}")
    return f


def _infinite(f: TradeOff, why: str) -> ValueError:
    return ValueError(
        f"the CLT functionals of {f!r} are infinite: {why}, so log|f'| = -inf on a set of "
        f"positive measure (the privacy loss has P-mass at -inf) and kl, kappa2, kappa3 "
        f"diverge; the CLT does not apply (for (eps, delta)-DP use eps_delta_limit)")


def _check_method(method: str) -> str:
    if method not in ("auto", "numeric", "curve"):
        raise ValueError(f"`method` must be one of 'auto', 'numeric', 'curve'; got "
                         f"method={method!r}")
    return method


def _from_moments(m1: float, c2: float, c3abs: float, abs3: float) -> Functionals:
    return Functionals(kl=float(-m1), kappa2=float(max(c2 + m1 * m1, 0.0)),
                       kappa3=float(abs3), kappa3_bar=float(c3abs))


# --- closed forms -----------------------------------------------------------
@functools.singledispatch
def _formula(f: TradeOff) -> Functionals | None:
    """Closed-form functionals of a family; ``None`` when there is none."""
    return None


@_formula.register
def _(f: Identity) -> Functionals:
    return Functionals(0.0, 0.0, 0.0, 0.0)


def _gauss_abs3(m: float, s: float) -> float:
    r""":math:`E|X|^3` for :math:`X\sim N(m, s^2)`:
    :math:`s^3[(a^3+3a)(2\Phi(a)-1) + 2(a^2+2)\varphi(a)]`, :math:`a = m/s`."""
    a = m / s
    phi = math.exp(-0.5 * a * a) / _SQRT_2PI
    return s**3 * ((a**3 + 3 * a) * math.erf(a / math.sqrt(2.0)) + 2 * (a * a + 2) * phi)


@_formula.register
def _(f: Gaussian) -> Functionals:
    mu = f.mu
    if math.isinf(mu):
        raise _infinite(f, "G_inf = 0 identically (f' = 0 on [0, 1])")
    if mu == 0:
        return Functionals(0.0, 0.0, 0.0, 0.0)
    # L ~ N(-mu^2/2, mu^2) under P (DRS Sec. 3.2)
    return Functionals(kl=0.5 * mu * mu, kappa2=mu * mu + 0.25 * mu**4,
                       kappa3=_gauss_abs3(-0.5 * mu * mu, mu),
                       kappa3_bar=mu**3 * 4.0 / _SQRT_2PI)


def _rr_weights(eps: float) -> tuple[float, float]:
    """P-masses of the losses +eps and -eps of randomized response f_{eps,0}."""
    return float(special.expit(-eps)), float(special.expit(eps))


@_formula.register
def _(f: EpsDelta) -> Functionals:
    eps = f.eps
    if f.delta_ > 0:
        raise _infinite(f, f"f' = 0 on [1 - delta, 1] = [{1 - f.delta_!r}, 1] (delta > 0)")
    if math.isinf(eps):
        raise _infinite(f, "f = 0 identically (eps = inf)")
    a, b = _rr_weights(eps)
    kl_ = eps * math.tanh(0.5 * eps)
    return Functionals(kl=kl_, kappa2=eps * eps, kappa3=eps**3,
                       kappa3_bar=8.0 * eps**3 * a * b * (a * a + b * b))


def _laplace_expect(mu: float, g: Callable[[np.ndarray], np.ndarray],
                    kinks: Iterable[float] = ()) -> float:
    r""":math:`E_P[g(L)]` for the Laplace loss law: atoms 1/2 at :math:`-\mu`,
    :math:`e^{-\mu}/2` at :math:`\mu`, density :math:`\tfrac14 e^{-(t+\mu)/2}` on
    :math:`(-\mu,\mu)`; the density part by 40-point Gauss–Legendre on pieces of length
    at most 1 (split at the kinks of ``g``), exact to rounding for smooth ``g``."""
    em = math.exp(-mu)
    out = 0.5 * float(g(np.array([-mu]))[0]) + 0.5 * em * float(g(np.array([mu]))[0])
    cuts = sorted({-mu, mu, *[c for c in kinks if -mu < c < mu]})
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        n = max(1, math.ceil(hi - lo))
        edges = np.linspace(lo, hi, n + 1)
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            x = 0.5 * (b - a) * _GL_X + 0.5 * (a + b)
            w = 0.5 * (b - a) * _GL_W
            out += float(np.sum(w * g(x) * 0.25 * np.exp(-(x + mu) / 2.0)))
    return out


def _laplace_kappa2(mu: float) -> float:
    r""":math:`\kappa_2 = \mu^2 - 2\mu + 4 - (4+2\mu)e^{-\mu}`, by its Taylor series
    :math:`\mu^2 + \sum_{k\ge3}(-1)^{k+1}(4-2k)\mu^k/k!` for small μ (no cancellation)."""
    if mu < 0.5:
        h = 0.0
        term = mu**3 / 6.0  # mu^k / k! for k = 3
        for k in range(3, 40):
            h += (-1) ** (k + 1) * (4 - 2 * k) * term
            term *= mu / (k + 1)
        return mu * mu + h
    return mu * mu - 2 * mu * (1 + math.exp(-mu)) - 4 * math.expm1(-mu)


@_formula.register
def _(f: Laplace) -> Functionals:
    mu = f.mu
    if math.isinf(mu):
        raise _infinite(f, "the Laplace curve with mu = inf is 0 identically")
    if mu == 0:
        return Functionals(0.0, 0.0, 0.0, 0.0)
    kl_ = mu + math.expm1(-mu)
    m = -kl_
    k3 = _laplace_expect(mu, lambda t: np.abs(t) ** 3, kinks=(0.0,))
    k3b = _laplace_expect(mu, lambda t: np.abs(t - m) ** 3, kinks=(m,))
    return Functionals(kl=kl_, kappa2=_laplace_kappa2(mu), kappa3=k3, kappa3_bar=k3b)


@functools.singledispatch
def _cumulant_formula(f: TradeOff) -> _Cumulants | None:
    return None


def _sym(p: tuple[float, float, float, float]) -> _Cumulants:
    # symmetric f: the loss under Q has the law of -L under P
    return _Cumulants(p=p, q=(-p[0], p[1], -p[2], p[3]))


@_cumulant_formula.register
def _(f: Identity) -> _Cumulants:
    return _sym((0.0, 0.0, 0.0, 0.0))


@_cumulant_formula.register
def _(f: Gaussian) -> _Cumulants:
    _formula(f)  # raises for mu = inf
    mu = f.mu
    return _sym((-0.5 * mu * mu, mu * mu, 0.0, 0.0))


@_cumulant_formula.register
def _(f: EpsDelta) -> _Cumulants:
    _formula(f)  # raises for delta > 0, eps = inf
    eps = f.eps
    a, b = _rr_weights(eps)
    d = 2.0 * eps
    c2 = d * d * a * b
    c3 = d**3 * a * b * (b - a)
    c4 = d**4 * a * b * (a**3 + b**3)
    return _sym((-eps * math.tanh(0.5 * eps), c2, c3, c4 - 3 * c2 * c2))


@_cumulant_formula.register
def _(f: Laplace) -> _Cumulants:
    fn = _formula(f)
    mu = f.mu
    if mu == 0:
        return _sym((0.0, 0.0, 0.0, 0.0))
    m = -fn.kl
    c2 = fn.kappa2 - m * m
    c3 = _laplace_expect(mu, lambda t: (t - m) ** 3)
    c4 = _laplace_expect(mu, lambda t: (t - m) ** 4)
    return _sym((m, c2, c3, c4 - 3 * c2 * c2))


# --- generic: expectations of g(L) from the hooks -------------------------
class _Law:
    """Expectations :math:`E[g(L)]` under P or Q, from the best hook available."""

    def __init__(self, f: TradeOff, side: str, method: str):
        self.f = f
        self.side = side
        at = f._atoms() if method != "curve" else None
        if at is not None:
            loss, p, q = (np.asarray(v, dtype=float) for v in at)
            w = p if side == "P" else q
            bad = -np.inf if side == "P" else np.inf
            mass = float(w[(loss == bad) & (w > 0)].sum())
            if mass > 0:
                if side == "P":
                    raise _infinite(f, f"f' = 0 on a set of measure {mass!r}")
                raise ValueError(
                    f"the privacy loss of {f!r} has Q-mass {mass!r} at +inf (f(0) < 1), so "
                    f"its cumulants under Q are infinite")
            keep = w > 0
            self.kind = "atoms"
            self.loss = loss[keep]
            self.w = w[keep] / w[keep].sum()
            return
        sf_hook = "_loss_sf" if side == "P" else "_loss_sf_q"
        own = getattr(type(f), sf_hook) is not getattr(TradeOff, sf_hook)
        if method != "curve" and own:
            self.kind = "sf"
            hook = getattr(f, sf_hook)
            self.sf = lambda t: float(np.clip(np.asarray(hook(np.array([t], float)))[0],
                                              0.0, 1.0))
            self._support()
            return
        self.kind = "curve"
        self._memo: dict[float, float] = {}
        self._check_curve()

    # ----- survival-function backend
    def _support(self) -> None:
        sf = self.sf
        hi = 1.0
        while sf(hi) > 0.0:
            hi *= 2.0
            if hi > 1e12:
                raise ValueError(f"the privacy loss law of {self.f!r} has mass beyond 1e12; "
                                 f"its moments are treated as infinite")
        lo = -1.0
        while sf(lo) < 1.0:
            lo *= 2.0
            if lo < -1e12:
                side = "P" if self.side == "P" else "Q"
                why = f"{side}[L <= -1e12] = {1 - sf(lo)!r} > 0"
                if self.side == "P":
                    raise _infinite(self.f, why)
                raise ValueError(f"the privacy loss of {self.f!r} is unbounded below under Q "
                                 f"({why}); its cumulants are infinite")
        # tighten the ends to the support (bisection on the exact 0/1 values)
        a, b = (0.0 if hi == 1.0 else hi / 2.0), hi
        for _ in range(200):
            mid = 0.5 * (a + b)
            if mid in (a, b):
                break
            if sf(mid) > 0.0:
                a = mid
            else:
                b = mid
        self.hi = b
        a, b = lo, (0.0 if lo == -1.0 else lo / 2.0)
        for _ in range(200):
            mid = 0.5 * (a + b)
            if mid in (a, b):
                break
            if sf(mid) < 1.0:
                b = mid
            else:
                a = mid
        self.lo = a

    def _quad(self, fn: Callable[[float], float], a: float, b: float) -> float:
        if b <= a:
            return 0.0
        # the curve backend is only as accurate as its finite differences (~1e-10)
        rel, lim = (1e-10, 100) if self.kind == "curve" else (1e-13, 400)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            val, _ = integrate.quad(fn, a, b, epsabs=1e-300, epsrel=rel, limit=lim)
        return float(val)

    # ----- curve backend
    def _check_curve(self) -> None:
        f = self.f
        f0 = float(f(0.0))
        if self.side == "Q" and f0 < 1.0:
            raise ValueError(f"the privacy loss of {f!r} has Q-mass {1 - f0!r} at +inf "
                             f"(f(0) < 1), so its cumulants under Q are infinite")
        # the first zero of f: f' = 0 beyond it
        if float(f(1.0 - 1e-12)) == 0.0:
            a, b = 0.0, 1.0 - 1e-12
            for _ in range(100):
                mid = 0.5 * (a + b)
                if float(f(mid)) > 0.0:
                    a = mid
                else:
                    b = mid
            raise _infinite(f, f"f = 0 (so f' = 0) on [{b:.6g}, 1]")

    def _slope_log(self, x: float) -> float:
        """log|f'(x)| by a five-point central difference inside (0, 1) (memoised: the
        quadratures of the different moments share most of their nodes)."""
        got = self._memo.get(x)
        if got is not None:
            return got
        h = 1e-5 * min(x, 1.0 - x)
        pts = np.array([x - 2 * h, x - h, x + h, x + 2 * h])
        y = np.asarray(self.f(pts), dtype=float)
        d = (y[0] - 8 * y[1] + 8 * y[2] - y[3]) / (12 * h)
        out = math.log(max(-d, 1e-300))
        self._memo[x] = out
        return out

    # ----- the one entry point
    def expect(self, g: Callable[[np.ndarray], np.ndarray],
               gprime: Callable[[float], float], kinks: Iterable[float] = ()) -> float:
        """E[g(L)]; ``gprime`` is g' (for the survival-function backend)."""
        if self.kind == "atoms":
            return float(np.sum(self.w * g(self.loss)))
        if self.kind == "curve":
            weight = (lambda s: 1.0) if self.side == "P" else math.exp

            def integrand(x: float) -> float:
                s = self._slope_log(x)
                return float(g(np.array([s]))[0]) * weight(s)

            return self._quad(integrand, 0.0, 0.5) + self._quad(integrand, 0.5, 1.0)
        # survival function: E g(L) = g(c) + int_c^hi g' S - int_lo^c g' (1 - S)
        lo, hi = self.lo, self.hi
        ks = [k for k in kinks if lo < k < hi]
        c = min(max(ks[0] if ks else 0.0, lo), hi)
        cuts = sorted({lo, hi, c, *ks, *([0.0] if lo < 0.0 < hi else [])})
        total = float(g(np.array([c]))[0])
        sf = self.sf
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            if a >= c:
                total += self._quad(lambda t: gprime(t) * sf(t), a, b)
            else:
                total -= self._quad(lambda t: gprime(t) * (1.0 - sf(t)), a, b)
        return total

    def mean(self) -> float:
        return self.expect(lambda t: t, lambda t: 1.0)

    def central(self, m: float, k: int) -> float:
        return self.expect(lambda t: (t - m) ** k, lambda t: k * (t - m) ** (k - 1), (m,))

    def abs3(self, c: float) -> float:
        return self.expect(lambda t: np.abs(t - c) ** 3,
                           lambda t: 3.0 * (t - c) * abs(t - c), (c,))


def _subsampled_moments(c: Subsampled) -> tuple[float, float, float, float, float, float]:
    r"""Moments of the loss of :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}` for symmetric f.

    The hull is :math:`f_p` while its slope is below −1, a segment of slope −1, then
    :math:`f_p^{-1}` (DRS Thm 4.2), so with :math:`L_p` the loss of :math:`f_p` under
    :math:`(P, Q_p)`:

    .. math:: E[g(L)] = E_P[g(L_p); L_p>0] + g(0)\,(Q_p[L_p\le0]-P[L_p>0])
              + E_{Q_p}[g(-L_p); L_p>0],

    each part from the exact law of :math:`f_p` (its atoms or survival functions).
    Returns (mean, c2, c3, c4, E|L - mean|^3, E|L|^3).
    """
    fp = PoissonSubsampled(base=c.base, p=c.p)
    law_p = _Law(fp, "P", "numeric")
    law_q = _Law(fp, "Q", "numeric")

    def E(g: Callable[[np.ndarray], np.ndarray], gp: Callable[[float], float]) -> float:
        g0 = float(g(np.zeros(1))[0])
        a = law_p.expect(lambda t: np.where(t > 0, g(t) - g0, 0.0),
                         lambda t: gp(t) if t > 0 else 0.0, (0.0,))
        b = law_q.expect(lambda t: np.where(t > 0, g(-t) - g0, 0.0),
                         lambda t: -gp(-t) if t > 0 else 0.0, (0.0,))
        return a + b + g0  # the three parts carry total P-mass 1

    m = E(lambda t: t, lambda t: 1.0)
    cs = [E(lambda t, k=k: (t - m) ** k, lambda t, k=k: k * (t - m) ** (k - 1))
          for k in (2, 3, 4)]
    a3m = E(lambda t: np.abs(t - m) ** 3, lambda t: 3.0 * (t - m) * abs(t - m))
    a30 = E(lambda t: np.abs(t) ** 3, lambda t: 3.0 * t * abs(t))
    return m, cs[0], cs[1], cs[2], a3m, a30


@_formula.register
def _(f: Subsampled) -> Functionals | None:
    if not f.base.is_symmetric:
        return None
    m, c2, _, _, a3m, a30 = _subsampled_moments(f)
    return _from_moments(m, c2, a3m, a30)


@_cumulant_formula.register
def _(f: Subsampled) -> _Cumulants | None:
    if not f.base.is_symmetric:
        return None
    m, c2, c3, c4, _, _ = _subsampled_moments(f)
    return _sym((m, c2, c3, c4 - 3.0 * c2 * c2))


def _generic_functionals(f: TradeOff, method: str) -> Functionals:
    law = _Law(f, "P", method)
    m = law.mean()
    c2 = law.central(m, 2)
    return _from_moments(m, c2, law.abs3(m), law.abs3(0.0))


def functionals(f: TradeOff, *, method: str = "auto") -> Functionals:
    r"""All four CLT functionals of ``f`` at once (see :func:`kl`).

    Parameters
    ----------
    f : TradeOff
    method : {'auto', 'numeric', 'curve'}
        ``'auto'``: the closed form when the family has one, else the privacy-loss law
        from the hooks. ``'numeric'``: skip closed forms (exact atoms, else the survival
        function ``_loss_sf`` by quadrature, else the curve). ``'curve'``: quadrature of
        :math:`\log|f'(x)|` on the curve only.

    Examples
    --------
    >>> import gdp
    >>> fn = gdp.functionals(gdp.G_mu(1.0))
    >>> fn.kl, fn.kappa2, round(fn.kappa3, 6), round(fn.kappa3_bar, 6)
    (0.5, 1.25, 2.206547, 1.595769)
    """
    _check_tradeoff(f)
    method = _check_method(method)
    if method == "auto":
        out = _formula(f)
        if out is not None:
            return out
    return _generic_functionals(f, method)


def kl(f: TradeOff, *, method: str = "auto") -> float:
    r"""The Kullback–Leibler functional :math:`\mathrm{kl}(f) = -\int_0^1\log|f'(x)|\,dx`.

    For :math:`f = T(P,Q)` this is :math:`\mathrm{KL}(P\|Q) = -E_P[L]`.

    .. math:: \mathrm{kl}(G_\mu) = \mu^2/2,\quad
              \mathrm{kl}(f_{\varepsilon,0}) = \varepsilon\frac{e^\varepsilon-1}
              {e^\varepsilon+1},\quad \mathrm{kl}(\mathrm{Lap}_\mu) = \mu+e^{-\mu}-1.

    Parameters
    ----------
    f : TradeOff
    method : {'auto', 'numeric', 'curve'}
        See :func:`functionals`.

    Notes
    -----
    ``ValueError`` when the functional is infinite, i.e. :math:`f' = 0` on a set of
    positive measure (:math:`f_{\varepsilon,\delta}` with δ > 0, :math:`G_\infty`).

    References
    ----------
    DRS Sec. 3.2 (the functionals) and Sec. 3.3 (Laplace).

    Examples
    --------
    >>> import gdp
    >>> gdp.kl(gdp.G_mu(2.0))
    2.0
    >>> round(gdp.kl(gdp.laplace(1.0)), 10)
    0.3678794412
    """
    return functionals(f, method=method).kl


def kappa2(f: TradeOff, *, method: str = "auto") -> float:
    r""":math:`\kappa_2(f) = \int_0^1\log^2|f'(x)|\,dx = E_P[L^2]`.

    :math:`\kappa_2(G_\mu) = \mu^2+\mu^4/4`, :math:`\kappa_2(f_{\varepsilon,0}) =
    \varepsilon^2`, :math:`\kappa_2(\mathrm{Lap}_\mu) = \mu^2-2\mu+4-(4+2\mu)e^{-\mu}`.
    See :func:`kl` for ``method`` and the errors.

    Examples
    --------
    >>> import gdp
    >>> gdp.kappa2(gdp.G_mu(2.0))
    8.0
    """
    return functionals(f, method=method).kappa2


def kappa3(f: TradeOff, *, method: str = "auto") -> float:
    r""":math:`\kappa_3(f) = \int_0^1|\log|f'(x)||^3\,dx = E_P|L|^3`.

    For :math:`G_\mu`, :math:`L\sim N(m,\mu^2)` with :math:`m=-\mu^2/2`, :math:`a = m/\mu`:
    :math:`\mu^3[(a^3+3a)(2\Phi(a)-1)+2(a^2+2)\varphi(a)]`; :math:`\kappa_3(f_{\varepsilon,0})
    = \varepsilon^3`. See :func:`kl` for ``method`` and the errors.

    Examples
    --------
    >>> import gdp
    >>> gdp.kappa3(gdp.f_eps_delta(0.5))
    0.125
    """
    return functionals(f, method=method).kappa3


def kappa3_bar(f: TradeOff, *, method: str = "auto") -> float:
    r""":math:`\bar\kappa_3(f) = \int_0^1|\log|f'(x)|+\mathrm{kl}(f)|^3\,dx
    = E_P|L-E_PL|^3`, the third absolute central moment of the loss.

    :math:`\bar\kappa_3(G_\mu) = 2\sqrt{2/\pi}\,\mu^3`; for :math:`f_{\varepsilon,0}`, with
    :math:`a = 1/(1+e^\varepsilon)`, :math:`b = 1-a`: :math:`8\varepsilon^3ab(a^2+b^2)`.
    See :func:`kl` for ``method`` and the errors.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.kappa3_bar(gdp.G_mu(1.0)), 12)
    1.595769121605
    """
    return functionals(f, method=method).kappa3_bar


def _cumulants(f: TradeOff, method: str = "auto") -> _Cumulants:
    """Cumulants 1..4 of the privacy loss under P and Q (for the Edgeworth expansion)."""
    if method == "auto":
        out = _cumulant_formula(f)
        if out is not None:
            return out

    def side(s: str) -> tuple[float, float, float, float]:
        law = _Law(f, s, method)
        m = law.mean()
        c2 = law.central(m, 2)
        c3 = law.central(m, 3)
        c4 = law.central(m, 4)
        return (m, c2, c3, c4 - 3.0 * c2 * c2)

    p = side("P")
    if f.is_symmetric:
        return _sym(p)
    return _Cumulants(p=p, q=side("Q"))


# ---------------------------------------------------------------------------
# sequences of trade-off functions
# ---------------------------------------------------------------------------
def _as_sequence(fs: Any, k: Any) -> list[tuple[TradeOff, int]]:
    """Distinct trade-off functions with multiplicities (by identity, no copies)."""
    if isinstance(fs, TradeOff):
        kk = 1 if k is None else check_int("k", k, lo=1)
        return [(fs, kk)]
    if k is not None:
        raise TypeError(f"`k` is only allowed with a single TradeOff `fs`; got k={k!r} with "
                        f"fs of type {type(fs).__name__}")
    if isinstance(fs, str | bytes) or not isinstance(fs, Iterable):
        raise TypeError(f"`fs` must be a TradeOff or a sequence of TradeOffs; got fs={fs!r}")
    counts: dict[int, list[Any]] = {}
    for i, f in enumerate(fs):
        if not isinstance(f, TradeOff):
            raise TypeError(f"`fs[{i}]` must be a TradeOff; got {f!r}")
        slot = counts.setdefault(id(f), [f, 0])
        slot[1] += 1
    if not counts:
        raise ValueError("`fs` must hold at least one trade-off function; got an empty "
                         "sequence")
    return [(f, n) for f, n in counts.values()]


def _G(mu: float, x: np.ndarray) -> np.ndarray:
    """G_mu(x) on an array, exact at 0 and 1."""
    with np.errstate(all="ignore"):
        return special.ndtr(-special.ndtri(x) - mu)


def _G_slope(mu: float, x: np.ndarray) -> np.ndarray:
    r""":math:`G_\mu'(x) = -\exp(\mu w - \mu^2/2)`, :math:`w = \Phi^{-1}(1-x)`."""
    with np.errstate(all="ignore"):
        return -np.exp(mu * (-special.ndtri(x)) - 0.5 * mu * mu)


# --- the Berry-Esseen curves -------------------------------------------------
@dataclass(frozen=True, slots=True)
class BerryEsseenLower(TradeOff):
    r"""The Berry–Esseen lower curve :math:`\max\{0, G_\mu(\min(\alpha+\gamma,1))-\gamma\}`.

    A rigorous lower bound on the composed curve (DRS Thm 3.4; the proof's two
    Berry–Esseen inequalities give it for every α, not only on [γ, 1−γ]) and itself a
    trade-off function: convex (a convex function of α+γ, floored at 0), non-increasing,
    below :math:`1-\alpha`, zero from :math:`\alpha = 1-\gamma` on. Identically 0 when
    :math:`\gamma \ge 1/2` (no information).
    """

    mu: float
    gamma: float

    @property
    def label(self):
        return f"BE_{{lower}}(G_{{{self.mu:.4g}}}, \\gamma={self.gamma:.3g})"

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        return np.maximum(0.0, _G(self.mu, np.minimum(a + self.gamma, 1.0)) - self.gamma)


@dataclass(frozen=True, slots=True)
class BerryEsseenUpper(TradeOff):
    r"""The Berry–Esseen upper curve: the largest convex minorant of
    :math:`U(\alpha) = \min\{1-\alpha,\ G_\mu(\max(\alpha-\gamma,0))+\gamma\}`.

    :math:`U` is a valid upper bound (DRS Thm 3.4 for every α, clipped by the trivial
    :math:`f \le 1-\alpha`) but not convex. Because the true composed curve is convex
    and below :math:`U`, it is also below :math:`U`'s largest convex minorant, which is:
    the line from (0, 1) tangent to :math:`C(\alpha) = G_\mu(\alpha-\gamma)+\gamma` at
    :math:`x_1`, then :math:`C`, then the line tangent at :math:`x_2` down to (1, 0). The
    tangent points are computed so that the lines lie on or above the exact minorant
    (never below: the curve stays a valid upper bound) and the joins are convex. When
    :math:`C \ge 1-\alpha` everywhere (e.g. :math:`\gamma \ge 1/2`) the curve is
    :math:`1-\alpha` (no information).
    """

    mu: float
    gamma: float
    x1: float = field(init=False, default=math.nan)
    x2: float = field(init=False, default=math.nan)

    def __post_init__(self):
        x1, x2 = _upper_tangents(self.mu, self.gamma)
        object.__setattr__(self, "x1", x1)
        object.__setattr__(self, "x2", x2)

    @property
    def label(self):
        return f"BE_{{upper}}(G_{{{self.mu:.4g}}}, \\gamma={self.gamma:.3g})"

    @property
    def informative(self) -> bool:
        """False when the curve is the identity 1 − α."""
        return not math.isnan(self.x1)

    def _C(self, x):
        return _G(self.mu, np.maximum(np.asarray(x, dtype=float) - self.gamma, 0.0)) \
            + self.gamma

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if not self.informative:
            return 1.0 - a
        x1, x2 = self.x1, self.x2
        c1 = float(self._C(np.array([x1]))[0])
        c2 = float(self._C(np.array([x2]))[0])
        left = 1.0 + (c1 - 1.0) / x1 * a
        right = c2 / (x2 - 1.0) * (a - 1.0)
        mid = self._C(np.clip(a, x1, x2))
        out = np.where(a <= x1, left, np.where(a >= x2, right, mid))
        return np.clip(np.minimum(out, 1.0 - a), 0.0, 1.0)


def _upper_tangents(mu: float, gamma: float) -> tuple[float, float]:
    """Tangent points x1 < x2 of the convex minorant in BerryEsseenUpper (nan: trivial)."""
    if gamma >= 0.5:
        return math.nan, math.nan
    xs = np.linspace(gamma, 1.0, 4001)[1:-1]

    def C(x):
        return _G(mu, np.asarray(x, dtype=float) - gamma) + gamma

    def dC(x):
        return _G_slope(mu, np.asarray(x, dtype=float) - gamma)

    if not np.any(C(xs) < 1.0 - xs):
        # C >= 1 - alpha on the grid; check the best point exactly before giving up
        res = optimize.minimize_scalar(lambda x: float(C(x) - (1.0 - x)),
                                       bounds=(gamma, 1.0), method="bounded")
        if not (res.fun < 0.0):
            return math.nan, math.nan

    def h1(x):  # increasing; zero at the tangent point of the line through (0, 1)
        return float(dC(x) * x - (C(x) - 1.0))

    def h2(x):  # decreasing; zero at the tangent point of the line through (1, 0)
        return float(dC(x) * (x - 1.0) - C(x))

    lo = gamma + max(gamma, 1e-300) * 1e-12 if gamma > 0 else 1e-300
    hi = 1.0 - 1e-15
    x1 = _root_side(h1, lo, hi, want_nonneg=True)
    x2 = _root_side(h2, lo, hi, want_nonneg=True)
    if not (x1 < x2):
        return math.nan, math.nan
    return x1, x2


def _root_side(h: Callable[[float], float], lo: float, hi: float, *,
               want_nonneg: bool) -> float:
    """Root of a monotone ``h`` on [lo, hi]; returns a point of the final bracket where
    ``h >= 0`` (the side that keeps the tangent construction valid and convex)."""
    hl, hh = h(lo), h(hi)
    if hl >= 0 and hh >= 0:
        return lo if hl <= hh else hi
    if hl < 0 and hh < 0:  # pragma: no cover - excluded by the geometry
        return hi if hl <= hh else lo
    a, b = lo, hi
    for _ in range(200):
        mid = 0.5 * (a + b)
        if mid in (a, b):
            break
        hm = h(mid)
        if (hm >= 0) == (hl >= 0):
            a, hl = mid, hm
        else:
            b = mid
    return a if h(a) >= 0 else b


# --- the CLT result -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CLTResult:
    r"""The Gaussian CLT approximation of a composition (DRS Thm 3.4). An approximation.

    Attributes
    ----------
    mu : float
        :math:`\mu = 2\|\mathrm{kl}\|_1/\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}`.
    gamma : float
        Berry–Esseen :math:`\gamma = 0.56\|\bar\kappa_3\|_1/(\|\kappa_2\|_1-
        \|\mathrm{kl}\|_2^2)^{3/2}`.
    kl_sum, kappa2_sum, kl_sq_sum, kappa3_bar_sum : float
        :math:`\|\mathrm{kl}\|_1`, :math:`\|\kappa_2\|_1`, :math:`\|\mathrm{kl}\|_2^2`,
        :math:`\|\bar\kappa_3\|_1`.
    n : int
        Number of trade-off functions composed.

    Notes
    -----
    ``approx`` (:math:`G_\mu`) is **not** a bound: the composed curve may lie below it,
    so an ε read from it may be too small. ``lower`` and ``upper`` are rigorous
    (Berry–Esseen) bounds, valid trade-off functions on all of [0, 1]; they carry
    information only when :math:`\gamma < 1/2` (``informative``). They are exact given
    the functionals; where those come from quadrature (no closed form, no atoms) they
    inherit its error (about 1e-10 relative for the survival-function path, 1e-9 to 1e-6
    for the curve path). The lower curve starts at :math:`G_\mu(\gamma)-\gamma < 1`, so
    its δ(ε) is at least γ: it certifies no small δ.
    """

    mu: float
    gamma: float
    kl_sum: float
    kappa2_sum: float
    kl_sq_sum: float
    kappa3_bar_sum: float
    n: int

    def __repr__(self):
        return (f"CLTResult(mu={self.mu!r}, gamma={self.gamma!r}, n={self.n}; "
                f"an approximation, G_mu is not a bound)")

    @property
    def approx(self) -> Gaussian:
        r""":math:`G_\mu`, the CLT approximation (not a bound)."""
        return Gaussian(mu=self.mu)

    @property
    def informative(self) -> bool:
        """True when the Berry–Esseen bounds say something (:math:`\\gamma < 1/2`)."""
        return self.gamma < 0.5

    @property
    def lower(self) -> BerryEsseenLower:
        """Rigorous lower bound on the composed curve (zero when uninformative)."""
        return BerryEsseenLower(mu=self.mu, gamma=self.gamma)

    @property
    def upper(self) -> BerryEsseenUpper:
        """Rigorous upper bound on the composed curve (1 − α when uninformative)."""
        return BerryEsseenUpper(mu=self.mu, gamma=self.gamma)

    def epsilon(self, delta: Any) -> Any:
        """ε(δ) of the approximation :math:`G_\\mu` (not a bound; see Notes)."""
        return self.approx.epsilon(delta)


def clt(fs: Any, k: int | None = None, *, tol: float = 0.05,
        check: bool | None = None) -> CLTResult:
    r"""Central limit theorem for the composition :math:`f_1\otimes\cdots\otimes f_n`.

    **An approximation.** Returns :math:`\mu`, the Berry–Esseen :math:`\gamma`, the
    approximation :math:`G_\mu` and rigorous lower/upper curves (DRS Thm 3.4):

    .. math::
        \mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}},\qquad
        \gamma = \frac{0.56\,\|\bar\kappa_3\|_1}{(\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2)^{3/2}}.

    Parameters
    ----------
    fs : TradeOff or iterable of TradeOff
        Symmetric trade-off functions. A single ``fs`` with ``k`` means the ``k``-fold
        composition (no list is built; ``clt([f] * k)`` also computes ``f``'s functionals
        only once).
    k : int, optional
        Multiplicity of a single ``fs``.
    tol : float
        Tolerance (max vertical distance) for the comparison with the exact
        composition; an :class:`ApproximationWarning` is issued above it.
    check : bool, optional
        ``None`` (default): compare with the exact composition when it is cheap
        (a homogeneous :math:`f_{\varepsilon,0}^{\otimes k}`, exact binomial law, k ≤
        10^5). ``True``: also compare through :func:`gdp.compose` for other inputs
        (may be slow). ``False``: never.

    Returns
    -------
    CLTResult

    Notes
    -----
    ``ValueError`` for a non-symmetric :math:`f_i` (the theorem needs :math:`f = f^{-1}`;
    use ``f.symmetrize()``) and for infinite functionals (:math:`f_{\varepsilon,\delta}`
    with δ > 0: use :func:`eps_delta_limit`). An :class:`ApproximationWarning` when
    :math:`\gamma \ge 1/2` (the theorem's bounds are void) or when the cheap exact check
    disagrees by more than ``tol``. A composition of identities gives μ = γ = 0.

    References
    ----------
    DRS Thm 3.4 (Berry–Esseen CLT), MATH.md §5.

    Examples
    --------
    >>> import gdp
    >>> r = gdp.clt(gdp.laplace(0.1), 500)
    >>> round(r.mu, 4), round(r.gamma, 4)
    (2.2012, 0.0254)
    >>> r.lower(0.2) <= r.approx(0.2) <= r.upper(0.2)
    True
    """
    items = _as_sequence(fs, k)
    tol = check_real("tol", tol, lo=0.0)
    if check not in (None, True, False):
        raise TypeError(f"`check` must be None, True or False; got check={check!r}")
    s_kl = s_k2 = s_kl2 = s_k3b = 0.0
    n = 0
    for i, (f, m) in enumerate(items):
        if not f.is_symmetric:
            raise ValueError(
                f"`fs[{i}]` = {f!r} is not symmetric: the CLT (DRS Thm 3.4) needs "
                f"f = f^{{-1}}; use f.symmetrize() (an f-DP mechanism is also f^S-DP)")
        fn = functionals(f)
        s_kl += m * fn.kl
        s_k2 += m * fn.kappa2
        s_kl2 += m * fn.kl**2
        s_k3b += m * fn.kappa3_bar
        n += m
    var = max(s_k2 - s_kl2, 0.0)
    if var <= 0.0 or s_kl <= 0.0:
        mu, gamma = 0.0, 0.0
    else:
        mu = 2.0 * s_kl / math.sqrt(var)
        gamma = BERRY_ESSEEN_C * s_k3b / var**1.5
    res = CLTResult(mu=float(mu), gamma=float(gamma), kl_sum=s_kl, kappa2_sum=s_k2,
                    kl_sq_sum=s_kl2, kappa3_bar_sum=s_k3b, n=n)
    if gamma >= 0.5:
        warnings.warn(f"CLT conditions far from met: Berry-Esseen gamma = {gamma:.3g} >= 1/2, "
                      f"so the bounds say nothing and G_mu (mu = {mu:.4g}) is unchecked",
                      ApproximationWarning, stacklevel=2)
    if check is not False:
        exact = _cheap_exact(items, allow_engine=bool(check))
        if exact is not None:
            err = _max_vertical(res.approx, exact)
            if err > tol:
                warnings.warn(f"the CLT approximation G_{mu:.4g} is {err:.3g} (> tol = "
                              f"{tol:g}) away from the exact composition", ApproximationWarning,
                              stacklevel=2)
    return res


def _dense_grid() -> np.ndarray:
    return np.unique(np.concatenate([np.linspace(0.0, 1.0, 4001), np.logspace(-12, -1, 300),
                                     1.0 - np.logspace(-12, -1, 300)]))


def _max_vertical(f: TradeOff, g: TradeOff) -> float:
    x = _dense_grid()
    return float(np.max(np.abs(np.asarray(f(x)) - np.asarray(g(x)))))


@dataclass(frozen=True, slots=True, eq=False)
class _RRPower(TradeOff):
    r"""The exact :math:`f_{\varepsilon,0}^{\otimes k}` (KOV): atoms at
    :math:`(k-2j)\varepsilon`, :math:`j = 0..k`, with P-mass
    :math:`\binom kj e^{j\varepsilon}/(1+e^\varepsilon)^k` and Q-mass
    :math:`\binom kj e^{(k-j)\varepsilon}/(1+e^\varepsilon)^k`.

    The vertices are binomial cdf values (``alpha`` :math:`= P[J\le j]`, ``one_minus_beta``
    :math:`= Q[J\le j]`, no subtraction) and the profile is the exact sum
    :math:`\sum_{L_j>\varepsilon} Q_j(1-e^{\varepsilon-L_j})` of non-negative terms: an
    independent reference for the CLT, Edgeworth and the numeric engine.
    """

    eps: float
    k: int
    alpha: np.ndarray = field(init=False, repr=False)
    beta: np.ndarray = field(init=False, repr=False)
    one_minus_beta: np.ndarray = field(init=False, repr=False)
    loss: np.ndarray = field(init=False, repr=False)
    p: np.ndarray = field(init=False, repr=False)
    q: np.ndarray = field(init=False, repr=False)
    is_symmetric = True

    def __post_init__(self):
        from scipy import stats

        a, b = _rr_weights(self.eps)
        k = self.k
        j = np.arange(k + 1)  # number of -eps outcomes; loss (k - 2j) eps, decreasing in j
        alpha = np.concatenate([[0.0], stats.binom.cdf(j, k, b)])
        omb = np.concatenate([[0.0], stats.binom.cdf(j, k, a)])
        alpha[-1] = omb[-1] = 1.0
        keep = np.concatenate([alpha[1:] > alpha[:-1], [True]])  # drop underflowed repeats
        vals = {"alpha": alpha[keep], "one_minus_beta": omb[keep], "beta": 1.0 - omb[keep],
                "loss": (k - 2.0 * j) * self.eps, "p": stats.binom.pmf(j, k, b),
                "q": stats.binom.pmf(j, k, a)}
        for name, v in vals.items():
            v = np.asarray(v, dtype=float)
            v.setflags(write=False)
            object.__setattr__(self, name, v)

    def __repr__(self):
        return f"f_eps_delta(eps={self.eps!r}) ** {self.k} (exact, binomial)"

    @property
    def label(self):
        return f"f_{{{self.eps:g},0}}^{{\\otimes {self.k}}}"

    def _f(self, alpha):
        # f(0) = 1 (no Q-mass at +inf) even when the first vertices underflowed onto alpha = 0
        a = np.asarray(alpha, dtype=float)
        return np.where(a == 0.0, 1.0, np.interp(a, self.alpha, self.beta))

    def _one_minus_f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        return np.where(a == 0.0, 0.0, np.interp(a, self.alpha, self.one_minus_beta))

    def _hockey(self, eps):
        e = np.asarray(eps, dtype=float).reshape(-1)
        out = np.zeros(e.shape)
        fin = np.isfinite(e)
        with np.errstate(over="ignore", under="ignore"):
            gap = e[fin][:, None] - self.loss[None, :]
            terms = np.where(gap < 0, self.q[None, :] * -np.expm1(np.minimum(gap, 0.0)), 0.0)
        out[fin] = terms.sum(axis=1)
        return np.clip(out, 0.0, 1.0)

    def _atoms(self):
        return self.loss, self.p, self.q

    def _loss_sf(self, t):
        t = np.asarray(t, dtype=float)
        return (self.p[None, :] * (self.loss[None, :] > t.reshape(-1)[:, None])).sum(-1) \
            .reshape(t.shape)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        return (self.q[None, :] * (self.loss[None, :] > t.reshape(-1)[:, None])).sum(-1) \
            .reshape(t.shape)


def _rr_power(eps: float, k: int) -> _RRPower:
    """The exact k-fold randomized response (see :class:`_RRPower`)."""
    return _RRPower(eps=float(eps), k=int(k))


def _cheap_exact(items: list[tuple[TradeOff, int]], *, allow_engine: bool) -> TradeOff | None:
    if len(items) == 1:
        f, m = items[0]
        if isinstance(f, EpsDelta) and f.delta_ == 0 and m <= 100_000:
            return _rr_power(f.eps, m)
        if isinstance(f, Gaussian | Identity):
            return None  # the CLT is exact here
    if not allow_engine:
        return None
    from .composition import compose

    try:
        return compose(*[f if m == 1 else f**m for f, m in items])
    except NotImplementedError:  # pragma: no cover - engine not available
        return None


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
class GaussianDelta(TradeOff):
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
        object.__setattr__(self, "delta_", check_probability("delta", self.delta_))

    def __repr__(self):
        return f"GaussianDelta(mu={self.mu!r}, delta={self.delta_!r})"

    @property
    def label(self):
        return f"G_{{{self.mu:.4g}}}\\otimes f_{{0,{self.delta_:.3g}}}"

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        keep = 1.0 - self.delta_
        if keep <= 0.0:
            return np.zeros_like(a)
        with np.errstate(all="ignore"):
            inner = np.where(a < keep, Gaussian(mu=self.mu)._f(np.minimum(a / keep, 1.0)),
                             0.0)
        return keep * inner

    def _hockey(self, eps):
        g = Gaussian(mu=self.mu)._hockey(np.asarray(eps, dtype=float))
        return np.clip(self.delta_ + (1.0 - self.delta_) * g, 0.0, 1.0)

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
    e = as_real_array("eps", eps, lo=0.0).reshape(-1)
    d = as_real_array("delta", delta, lo=0.0, hi=1.0).reshape(-1)
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
    T = check_int("steps", steps, lo=1)
    if sampling not in ("poisson", "uniform"):
        raise ValueError(f"`sampling` must be 'poisson' or 'uniform'; got sampling={sampling!r}")
    if q > 0.1:
        warnings.warn(f"noisy-SGD CLT far from its regime (p -> 0): p = {q:g} > 0.1; compare "
                      f"with the exact composition", ApproximationWarning, stacklevel=2)
    if math.isinf(s) or q == 0.0:
        return 0.0
    x = 1.0 / s
    if x * x > 700.0:
        return math.inf
    if sampling == "poisson":
        return q * math.sqrt(T * math.expm1(x * x))
    r2 = math.sqrt(2.0)
    inner = (math.expm1(x * x) * float(special.ndtr(1.5 * x))
             + 0.5 * math.erf(1.5 * x / r2) - 1.5 * math.erf(0.5 * x / r2))
    return q * math.sqrt(2.0 * T * max(inner, 0.0))


# ---------------------------------------------------------------------------
# Edgeworth
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class EdgeworthApprox(TradeOff):
    r"""The Edgeworth approximation of a composed trade-off function (ZDLS). An
    approximation, not a bound.

    ``curve`` is the piecewise-linear lower convex envelope of the parametric Edgeworth
    curve (see :func:`edgeworth`); every question (``f(alpha)``, ``delta``, ``epsilon``)
    is answered from it. ``cumulants_p`` / ``cumulants_q`` are the summed cumulants
    :math:`K_1..K_4` of the total privacy loss under P and Q.
    """

    curve: PiecewiseLinear
    cumulants_p: tuple[float, float, float, float]
    cumulants_q: tuple[float, float, float, float]
    order: int
    n: int
    symmetric: bool = False

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.symmetric

    def __repr__(self):
        return (f"EdgeworthApprox(order={self.order}, n={self.n}, "
                f"vertices={self.curve.alpha.size}; an approximation, not a bound)")

    @property
    def label(self):
        return f"\\mathrm{{Edgeworth}}_{{{self.order}}}"

    def _f(self, alpha):
        return self.curve._f(alpha)

    def _one_minus_f(self, alpha):
        return self.curve._one_minus_f(alpha)

    def _hockey(self, eps):
        return self.curve._hockey(eps)

    def _atoms(self):
        return self.curve._atoms()

    def _segments(self):
        return self.curve._segments()

    def _loss_sf(self, t):
        return self.curve._loss_sf(t)

    def _loss_sf_q(self, t):
        return self.curve._loss_sf_q(t)

    def _inverse(self):
        return self.curve.inverse()


def _edgeworth_corr(z: np.ndarray, l3: float, l4: float, order: int) -> np.ndarray:
    r"""The bracket of :math:`F(z) \approx \Phi(z) - \varphi(z)[\ldots]`:
    :math:`\tfrac{\lambda_3}{6}He_2 + \tfrac{\lambda_4}{24}He_3 + \tfrac{\lambda_3^2}{72}He_5`
    (Hermite polynomials :math:`He_2=z^2-1`, :math:`He_3=z^3-3z`,
    :math:`He_5=z^5-10z^3+15z`); order 1 keeps the first term only."""
    out = l3 / 6.0 * (z * z - 1.0)
    if order >= 2:
        out = out + l4 / 24.0 * (z**3 - 3.0 * z) + l3 * l3 / 72.0 * (z**5 - 10 * z**3 + 15 * z)
    return out


def _lower_hull(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex hull of points sorted by ``a`` (monotone chain)."""
    ha: list[float] = []
    hb: list[float] = []
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        while len(ha) >= 2 and ((hb[-1] - hb[-2]) * (x - ha[-2])
                                >= (y - hb[-2]) * (ha[-1] - ha[-2])):
            ha.pop()
            hb.pop()
        ha.append(x)
        hb.append(y)
    return np.asarray(ha), np.asarray(hb)


def edgeworth(fs: Any, k: int | None = None, *, order: int = 2,
              n_grid: int = 4001) -> TradeOff:
    r"""Edgeworth approximation of :math:`f_1\otimes\cdots\otimes f_n` (ZDLS). **An
    approximation**, typically much closer than the CLT when the privacy loss is skewed,
    but not a bound.

    With :math:`S = \sum_i L_i` the total privacy loss, :math:`K_j^P, K_j^Q` the sums of
    the per-step cumulants of :math:`L_i` under :math:`P_i` and :math:`Q_i`,
    :math:`\lambda_j = K_j/K_2^{j/2}` and :math:`z = (t-K_1)/\sqrt{K_2}` on each side,
    the CDF of the standardised sum is expanded to second order

    .. math::
        F(z) \approx \Phi(z) - \varphi(z)\Big[\frac{\lambda_3}{6}He_2(z)
        + \frac{\lambda_4}{24}He_3(z) + \frac{\lambda_3^2}{72}He_5(z)\Big],

    and the Neyman–Pearson test "reject when :math:`S>t`" gives the parametric curve
    :math:`\alpha(t) = 1-F_P(z_P(t))`, :math:`\beta(t) = F_Q(z_Q(t))`; inverting the P-side
    expansion, :math:`f(\alpha) = \beta(\alpha^{-1}(\alpha))`.

    Parameters
    ----------
    fs, k
        As for :func:`clt` (symmetry is not required: the Q-side cumulants are computed
        separately for non-symmetric :math:`f_i`).
    order : {1, 2}
        1 keeps the :math:`\lambda_3` term only (error :math:`O(n^{-1})`); 2 also the
        :math:`\lambda_4` and :math:`\lambda_3^2` terms (error :math:`O(n^{-3/2})`) for
        non-lattice losses.
    n_grid : int
        Points per side of the grid :math:`z\in[-12, 12]` on which the curve is sampled.

    Returns
    -------
    EdgeworthApprox
        A valid trade-off function: the expansion is evaluated on the grid, clipped to
        [0, 1], the end points (0, 1) and (1, 0) added, and the lower convex envelope of
        the points taken. This repair (monotone, convex, below :math:`1-\alpha`) changes
        the curve only where the truncated expansion is not itself a trade-off function
        (far tails, strongly skewed or lattice losses).

    Notes
    -----
    Type I errors below the float range (:math:`\alpha < 10^{-308}`, reached when μ ≳ 40)
    cannot be represented; the Q-mass there is put at :math:`+\infty` (so
    :math:`f(0) < 1` and ε(δ) is ``inf`` for δ below that mass, the conservative reading)
    and an :class:`ApproximationWarning` says so.

    For lattice losses (e.g. :math:`f_{\varepsilon,0}^{\otimes k}`) the expansion has no
    continuity correction; it beats the CLT when the skewness term dominates the lattice
    effect (ε0 ≳ 0.5 with moderate k; see docs/clt_accuracy.md), not for tiny ε0.

    References
    ----------
    ZDLS Sec. 3 (the Edgeworth approximation of the composed trade-off function);
    P. Hall, "The Bootstrap and Edgeworth Expansion", Springer 1992, Sec. 2.2.

    Examples
    --------
    >>> import gdp
    >>> e = gdp.edgeworth(gdp.laplace(0.3), 20)
    >>> round(e(0.1), 3), round(gdp.G_mu(gdp.clt(gdp.laplace(0.3), 20).mu)(0.1), 3)
    (0.499, 0.498)
    """
    items = _as_sequence(fs, k)
    order = check_int("order", order, lo=1, hi=2)
    n_grid = check_int("n_grid", n_grid, lo=101)
    Kp = np.zeros(4)
    Kq = np.zeros(4)
    n = 0
    for f, m in items:
        c = _cumulants(f)
        Kp += m * np.asarray(c.p)
        Kq += m * np.asarray(c.q)
        n += m
    symmetric = all(f.is_symmetric for f, _ in items)
    tp = tuple(float(v) for v in Kp)
    tq = tuple(float(v) for v in Kq)
    if Kp[1] <= 0.0 or Kq[1] <= 0.0:
        curve = PiecewiseLinear(alpha=np.array([0.0, 1.0]), beta=np.array([1.0, 0.0]),
                                name="Edgeworth", symmetric=True)
        return EdgeworthApprox(curve=curve, cumulants_p=tp, cumulants_q=tq, order=order, n=n,
                               symmetric=True)
    sp, sq = math.sqrt(Kp[1]), math.sqrt(Kq[1])
    l3p, l4p = Kp[2] / sp**3, Kp[3] / sp**4
    l3q, l4q = Kq[2] / sq**3, Kq[3] / sq**4
    z = np.linspace(-12.0, 12.0, n_grid)
    # both sides' +-12 sd windows, and the stretch between them (large mu) at <= 0.01 sd
    t_lo = min(Kp[0] - 12.0 * sp, Kq[0] - 12.0 * sq)
    t_hi = max(Kp[0] + 12.0 * sp, Kq[0] + 12.0 * sq)
    n_mid = int(min(200_000, max(n_grid, (t_hi - t_lo) / (0.01 * min(sp, sq)))))
    t = np.unique(np.concatenate([Kp[0] + sp * z, Kq[0] + sq * z,
                                  np.linspace(t_lo, t_hi, n_mid)]))
    zp = (t - Kp[0]) / sp
    zq = (t - Kq[0]) / sq
    with np.errstate(all="ignore"):
        phi_p = np.exp(-0.5 * zp * zp) / _SQRT_2PI
        phi_q = np.exp(-0.5 * zq * zq) / _SQRT_2PI
        alpha = special.ndtr(-zp) + phi_p * _edgeworth_corr(zp, l3p, l4p, order)
        beta = special.ndtr(zq) - phi_q * _edgeworth_corr(zq, l3q, l4q, order)
    alpha = np.clip(np.nan_to_num(alpha, nan=0.0), 0.0, 1.0)
    beta = np.clip(np.nan_to_num(beta, nan=1.0), 0.0, 1.0)
    beta = np.minimum(beta, 1.0 - alpha)
    a = np.concatenate([[0.0], alpha, [1.0]])
    b = np.concatenate([[1.0], beta, [0.0]])
    o = np.lexsort((b, a))
    ha, hb = _lower_hull(a[o], b[o])
    curve = PiecewiseLinear(alpha=ha, beta=hb, name="Edgeworth", symmetric=symmetric)
    if hb[0] < 1.0 - 1e-12:
        warnings.warn(f"the Edgeworth curve is truncated where alpha underflows (< 1e-308): the "
                      f"Q-mass {1.0 - hb[0]:.3g} beyond is put at +inf (f(0) < 1), so epsilon "
                      f"is inf for delta below it", ApproximationWarning, stacklevel=2)
    return EdgeworthApprox(curve=curve, cumulants_p=tp, cumulants_q=tq, order=order, n=n,
                           symmetric=symmetric)
