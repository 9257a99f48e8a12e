r"""The functionals kl, κ2, κ3 and κ̄3 of a trade-off function (DRS Sec. 3).

Moments of the privacy loss :math:`L = \log|f'(U)|`: closed forms for :math:`G_\mu`,
:math:`f_{\varepsilon,0}`, Laplace, the identity and subsampled curves (a
``functools.singledispatch`` registry); otherwise the exact atoms of a piecewise-linear curve,
the survival function of the loss law integrated by adaptive quadrature, or quadrature of
:math:`\log|f'|` on the curve itself. An infinite functional (P-mass at :math:`-\infty`, e.g.
δ > 0) raises ``ValueError`` rather than returning ``inf``.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.sampling`.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import bisect_bracket
from .._validation import check_choice, check_fields, check_instance, real
from ..core.piecewise import Identity
from ..core.tradeoff import TradeOff
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.laplace_tradeoff import Laplace
from ..sampling.subsampling import PoissonSubsampled, Subsampled

__all__ = ["Functionals", "functionals", "kl", "kappa2", "kappa3", "kappa3_bar"]

_GL_X, _GL_W = np.polynomial.legendre.leggauss(40)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


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

    def __post_init__(self):
        nonneg = real(lo=0.0)
        check_fields(self, kl=nonneg, kappa2=nonneg, kappa3=nonneg, kappa3_bar=nonneg)


@dataclass(frozen=True, slots=True)
class _Cumulants:
    """Cumulants 1..4 of the privacy loss under P and under Q."""

    p: tuple[float, float, float, float]
    q: tuple[float, float, float, float]


def _check_tradeoff(f: Any, name: str = "f") -> TradeOff:
    return check_instance(name, f, TradeOff, "a TradeOff")


def _infinite(f: TradeOff, why: str) -> ValueError:
    return ValueError(
        f"the CLT functionals of {f!r} are infinite: {why}, so log|f'| = -inf on a set of "
        f"positive measure (the privacy loss has P-mass at -inf) and kl, kappa2, kappa3 "
        f"diverge; the CLT does not apply (for (eps, delta)-DP use eps_delta_limit)")


def _check_method(method: str) -> str:
    return check_choice("method", method, ("auto", "numeric", "curve"))


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


def _shift_edge(f: Gaussian | Laplace) -> Functionals:
    """The ends of a location family: μ = 0 is the identity (all functionals 0), μ = ∞ the
    curve 0 (f' = 0 on [0, 1]: infinite, refused)."""
    if math.isinf(f.mu):
        name = "G" if isinstance(f, Gaussian) else "Lap"
        raise _infinite(f, f"{name}_inf = 0 identically (f' = 0 on [0, 1])")
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
    if mu == 0 or math.isinf(mu):
        return _shift_edge(f)
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
    if mu == 0 or math.isinf(mu):
        return _shift_edge(f)
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
        _, b = bisect_bracket(lambda x: np.array(sf(float(x)) <= 0.0),
                              0.0 if hi == 1.0 else hi / 2.0, hi, rtol=0.0)
        self.hi = float(b)
        a, _ = bisect_bracket(lambda x: np.array(sf(float(x)) < 1.0),
                              lo, 0.0 if lo == -1.0 else lo / 2.0, rtol=0.0)
        self.lo = float(a)

    def _quad(self, fn: Callable[[float], float], a: float, b: float) -> float:
        if b <= a:
            return 0.0
        # the curve backend is only as accurate as its finite differences (~1e-10)
        rel, lim = (1e-10, 100) if self.kind == "curve" else (1e-13, 400)
        from scipy import integrate

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
            _, b = bisect_bracket(lambda x: np.array(float(f(float(x))) <= 0.0), 0.0,
                                  1.0 - 1e-12, rtol=1e-12)
            raise _infinite(f, f"f = 0 (so f' = 0) on [{float(b):.6g}, 1]")

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
    try:
        if method == "auto":
            out = _formula(f)
            if out is not None:
                return out
        return _generic_functionals(f, method)
    except OverflowError:
        raise ValueError(f"the CLT functionals of {f!r:.80} overflow the float range (a "
                         "parameter too large for the CLT)") from None


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
    >>> gdp.kappa3(gdp.f_eps_delta(0.5)) == 0.5 ** 3
    True
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
