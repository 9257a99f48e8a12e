"""Tests for gdp.clt: CLT functionals, Berry–Esseen bounds, limits, noisy-SGD μ, Edgeworth.

Reference values come from closed forms, independent quadrature (scipy / mpmath recipes
in the comments), the exact binomial law of randomized response checked against Kairouz–
Oh–Viswanath's optimal-composition formula, and, when it is present, the numeric
composition engine (gdp.compose).
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, special

import gdp
from gdp.approx.central_limit import (
    _G,
    ApproximationWarning,
    BerryEsseenLower,
    BerryEsseenUpper,
    _dense_grid,
    _rr_power,
)
from gdp.approx.limits import GaussianDelta
from gdp.approx.loss_moments import _cumulants
from gdp.sampling.subsampling import subsample

GRID = _dense_grid()
# for convexity checks: spacing >= 1e-7, so float rounding of f does not swamp the slopes
CONVEX_GRID = np.unique(np.concatenate([np.linspace(0, 1, 4001), np.geomspace(1e-6, 1e-2, 200),
                                        1 - np.geomspace(1e-6, 1e-2, 200)]))


def _is_tradeoff(f, tol=1e-12):
    """Convex, non-increasing, 0 <= f <= 1 - alpha, f(1) = 0 (checked on grids)."""
    y = np.asarray(f(GRID))
    assert np.all(y >= 0) and np.all(y <= 1 - GRID + tol)
    assert np.all(np.diff(y) <= tol)
    x = CONVEX_GRID
    y = np.asarray(f(x))
    s = np.diff(y) / np.diff(x)
    noise = 4e-16 / np.diff(x)[:-1]
    assert np.all(np.diff(s) >= -1e-9 * np.abs(s[:-1]) - noise), "not convex"
    assert f(1.0) == 0.0


def _quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return fn(*a, **kw)


# ---------------------------------------------------------------------------
# functionals: closed forms, generic path, independent quadrature
# ---------------------------------------------------------------------------
FAMILIES = [gdp.G_mu(m) for m in (0.1, 0.5, 1.0, 2.0, 3.0)] + \
    [gdp.laplace(m) for m in (0.05, 0.3, 1.0, 3.0)] + \
    [gdp.f_eps_delta(e) for e in (0.01, 0.5, 1.0, 2.0)]


@pytest.mark.parametrize("f", FAMILIES, ids=repr)
def test_closed_form_matches_generic_path(f):
    a = gdp.functionals(f)
    b = gdp.functionals(f, method="numeric")  # atoms or survival-function quadrature
    for name in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert_allclose(getattr(b, name), getattr(a, name), rtol=1e-8, err_msg=name)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gaussian_identities_by_independent_quadrature(mu):
    # log|G_mu'(x)| = mu * z - mu^2/2 with z = Phi^{-1}(1 - x); integrate it on (0, 1) with
    # scipy.quad, independently of gdp's code paths
    def logslope(x):
        return mu * -special.ndtri(x) - mu * mu / 2

    kl_q = -integrate.quad(logslope, 0, 1, limit=200, epsabs=1e-13)[0]
    k2_q = integrate.quad(lambda x: logslope(x) ** 2, 0, 1, limit=200, epsabs=1e-13)[0]
    assert_allclose(kl_q, mu**2 / 2, rtol=1e-9)
    assert_allclose(k2_q, mu**2 + mu**4 / 4, rtol=1e-9)
    assert gdp.kl(gdp.G_mu(mu)) == mu**2 / 2
    assert_allclose(gdp.kappa2(gdp.G_mu(mu)), mu**2 + mu**4 / 4, rtol=1e-15)
    # gdp's own quadrature of log|f'| on the curve
    assert_allclose(gdp.kl(gdp.G_mu(mu), method="curve"), mu**2 / 2, rtol=1e-8)
    assert_allclose(gdp.kappa2(gdp.G_mu(mu), method="curve"), mu**2 + mu**4 / 4, rtol=1e-8)


@pytest.mark.parametrize("mu", [0.5, 2.0])
def test_gaussian_kappa3_against_mpmath(mu):
    # mpmath recipe: E|X|^3 and E|X - EX|^3 for X ~ N(-mu^2/2, mu^2), 30 digits
    mp.mp.dps = 30
    m, s = -mp.mpf(mu) ** 2 / 2, mp.mpf(mu)

    def pdf(x):
        return mp.npdf(x, m, s)

    k3 = mp.quad(lambda x: abs(x) ** 3 * pdf(x), [-mp.inf, 0, mp.inf])
    k3b = mp.quad(lambda x: abs(x - m) ** 3 * pdf(x), [-mp.inf, m, mp.inf])
    assert_allclose(gdp.kappa3(gdp.G_mu(mu)), float(k3), rtol=1e-13)
    assert_allclose(gdp.kappa3_bar(gdp.G_mu(mu)), float(k3b), rtol=1e-13)


@pytest.mark.parametrize("mu", [0.01, 0.2, 1.0, 4.0])
def test_laplace_against_mpmath(mu):
    # mpmath recipe for the Laplace loss law under P (gdp/laplace.py docstring): atoms 1/2 at
    # -mu and e^-mu/2 at mu, density e^{-(t+mu)/2}/4 on (-mu, mu)
    mp.mp.dps = 40
    M = mp.mpf(mu)

    def E(g, cut):
        dens = mp.quad(lambda t: g(t) * mp.exp(-(t + M) / 2) / 4, [-M, cut, M])
        return g(-M) / 2 + mp.exp(-M) * g(M) / 2 + dens

    m = E(lambda t: t, 0)
    fn = gdp.functionals(gdp.laplace(mu))
    assert_allclose(fn.kl, float(-m), rtol=1e-13)
    assert_allclose(fn.kl, mu + math.expm1(-mu), rtol=1e-15)  # DRS Sec. 3.3 closed form
    assert_allclose(fn.kappa2, float(E(lambda t: t * t, 0)), rtol=1e-12)
    assert_allclose(fn.kappa3, float(E(lambda t: abs(t) ** 3, 0)), rtol=1e-12)
    assert_allclose(fn.kappa3_bar, float(E(lambda t: abs(t - m) ** 3, m)), rtol=1e-12)


def test_randomized_response_closed_forms():
    for eps in (0.1, 1.0, 3.0):
        fn = gdp.functionals(gdp.f_eps_delta(eps))
        assert_allclose(fn.kl, eps * math.expm1(eps) / (math.exp(eps) + 1), rtol=1e-14)
        assert fn.kappa2 == pytest.approx(eps**2, rel=1e-15)
        assert fn.kappa3 == pytest.approx(eps**3, rel=1e-15)
        # two atoms: +eps with P-mass 1/(1+e^eps), -eps with e^eps/(1+e^eps)
        pa, pb = 1 / (1 + math.exp(eps)), math.exp(eps) / (1 + math.exp(eps))
        m = eps * pa - eps * pb
        assert_allclose(fn.kappa3_bar, pa * abs(eps - m) ** 3 + pb * abs(-eps - m) ** 3,
                        rtol=1e-13)


def test_identity_is_zero():
    assert gdp.functionals(gdp.identity()) == gdp.Functionals(0.0, 0.0, 0.0, 0.0)
    assert gdp.functionals(gdp.G_mu(0.0)).kappa2 == 0.0
    assert gdp.functionals(gdp.laplace(0.0)).kl == 0.0


def test_curve_path_on_a_user_function():
    g = gdp.G_mu(1.2)
    f = gdp.from_callable(lambda a: g(a), symmetric=True)
    ref = gdp.functionals(g)
    got = gdp.functionals(f)  # quadrature of log|f'| (no law hooks on a user function)
    for name in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert_allclose(getattr(got, name), getattr(ref, name), rtol=1e-7, err_msg=name)
    # a piecewise-linear user curve (kink at alpha*): still close
    rr = gdp.f_eps_delta(0.7)
    h = gdp.from_callable(lambda a: rr(a), symmetric=True)
    assert_allclose(gdp.kl(h), gdp.kl(rr), rtol=1e-4)


def test_piecewise_linear_atoms_are_exact():
    # from_distributions of a discrete pair: kl = KL(P || Q) exactly
    P = np.array([0.5, 0.3, 0.2])
    Q = np.array([0.2, 0.3, 0.5])
    f = gdp.from_distributions(P, Q)
    assert_allclose(gdp.kl(f), float(np.sum(P * np.log(P / Q))), rtol=1e-13)
    assert_allclose(gdp.kappa2(f), float(np.sum(P * np.log(Q / P) ** 2)), rtol=1e-13)


@settings(max_examples=25, deadline=None)
@given(mu=st.floats(0.01, 5.0), kind=st.sampled_from(["G", "L", "E"]))
def test_moment_inequalities(mu, kind):
    f = {"G": gdp.G_mu, "L": gdp.laplace, "E": gdp.f_eps_delta}[kind](mu)
    fn = gdp.functionals(f)
    var = fn.kappa2 - fn.kl**2
    assert fn.kl > 0 and var > 0
    assert fn.kappa3 >= fn.kappa2**1.5 * (1 - 1e-12)          # Lyapunov
    assert fn.kappa3_bar >= var**1.5 * (1 - 1e-12)            # Lyapunov, centred
    c = _cumulants(f)
    assert_allclose(c.p[0], -fn.kl, rtol=1e-12)
    assert_allclose(c.p[1], var, rtol=1e-9)
    # symmetric f: the loss under Q is -L under P
    assert c.q == (-c.p[0], c.p[1], -c.p[2], c.p[3])


# ---------------------------------------------------------------------------
# error messages
# ---------------------------------------------------------------------------
def test_infinite_functionals_raise():
    with pytest.raises(ValueError, match=r"infinite: f' = 0 on \[1 - delta, 1\]"):
        gdp.kl(gdp.f_eps_delta(1.0, 1e-5))
    with pytest.raises(ValueError, match=r"P-mass at -inf"):
        gdp.kl(gdp.f_eps_delta(1.0, 1e-5), method="numeric")
    with pytest.raises(ValueError, match=r"G_inf = 0 identically"):
        gdp.kappa2(gdp.G_mu(math.inf))
    with pytest.raises(ValueError, match=r"eps = inf"):
        gdp.kappa3(gdp.f_eps_delta(math.inf))
    flat = gdp.from_callable(lambda a: np.maximum(0.0, 0.9 - a), symmetric=False)
    with pytest.raises(ValueError, match=r"f = 0 \(so f' = 0\) on \[0\.9"):
        gdp.kappa3_bar(flat)
    with pytest.raises(ValueError, match=r"use eps_delta_limit"):
        gdp.clt(gdp.f_eps_delta(0.1, 1e-6), 100)


def test_argument_errors():
    with pytest.raises(TypeError, match=r"`f` must be a TradeOff; got f=1\.0"):
        gdp.kl(1.0)
    with pytest.raises(ValueError, match=r"`method` must be one of"):
        gdp.kl(gdp.G_mu(1.0), method="exact")
    with pytest.raises(ValueError, match=r"is not symmetric: the CLT \(DRS Thm 3\.4\) needs"):
        gdp.clt([gdp.G_mu(1.0), gdp.from_distributions([0.5, 0.5], [0.2, 0.8])])
    with pytest.raises(ValueError, match=r"`fs` must hold at least one"):
        gdp.clt([])
    with pytest.raises(TypeError, match=r"`k` is only allowed with a single TradeOff"):
        gdp.clt([gdp.G_mu(1.0)], 3)
    with pytest.raises(TypeError, match=r"`fs\[1\]` must be a TradeOff"):
        gdp.clt([gdp.G_mu(1.0), 2.0])
    with pytest.raises(TypeError, match=r"`fs` must be a TradeOff or a sequence"):
        gdp.clt(3.0)
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1; got k=0"):
        gdp.clt(gdp.G_mu(1.0), 0)
    with pytest.raises(ValueError, match=r"`order` must be an integer in \[1, 2\]"):
        gdp.edgeworth(gdp.G_mu(1.0), 3, order=3)
    with pytest.raises(TypeError, match=r"`check` must be None, True or False"):
        gdp.clt(gdp.G_mu(1.0), check="yes")


# ---------------------------------------------------------------------------
# the exact binomial reference (independent of the CLT code and of the engine)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("eps,k", [(0.5, 10), (1.0, 7), (0.2, 30)])
def test_binomial_reference_matches_kov(eps, k):
    # Kairouz-Oh-Viswanath (ICML 2015) Thm 3.3: k-fold f_{eps,0} is ((k-2i)eps, delta_i)-DP,
    # delta_i = sum_{l<i} C(k,l)(e^{(k-l)eps} - e^{(k-2i+l)eps}) / (1+e^eps)^k, and tight
    f = _rr_power(eps, k)
    for i in range(k // 2 + 1):
        d = sum(math.comb(k, l) * (math.exp((k - l) * eps) - math.exp((k - 2 * i + l) * eps))
                for l in range(i)) / (1 + math.exp(eps)) ** k
        got = f.delta((k - 2 * i) * eps)
        assert_allclose(got, d, rtol=1e-10, atol=1e-15)
        assert got >= d * (1 - 1e-12)  # never below the exact delta


# ---------------------------------------------------------------------------
# CLT
# ---------------------------------------------------------------------------
def test_clt_is_exact_for_gaussians():
    mus = [0.3, 1.0, 0.7, 2.0]
    r = _quiet(gdp.clt, [gdp.G_mu(m) for m in mus])  # gamma = 0.53: uninformative bounds
    assert_allclose(r.mu, math.sqrt(sum(m * m for m in mus)), rtol=1e-13)
    # gamma = 0.56 * sum 2 sqrt(2/pi) mu_i^3 / (sum mu_i^2)^{3/2}
    g = 0.56 * sum(2 * math.sqrt(2 / math.pi) * m**3 for m in mus) / sum(m * m for m in mus) ** 1.5
    assert_allclose(r.gamma, g, rtol=1e-13)
    assert r.n == 4 and "approximation" in repr(r)
    assert r.approx == gdp.G_mu(r.mu)


def test_homogeneous_forms_agree_and_are_cheap():
    f = gdp.laplace(0.05)
    a = gdp.clt(f, 1000)
    b = gdp.clt([f] * 1000)
    assert (a.mu, a.gamma, a.n) == (b.mu, b.gamma, b.n)
    big = gdp.clt(gdp.f_eps_delta(1e-3), 10**12, check=False)  # no list is built
    # mu -> sqrt(k) eps0 as eps0 -> 0 (kl ~ eps^2/2, kappa2 = eps^2)
    assert_allclose(big.mu, 1e-3 * 1e6, rtol=1e-6)
    assert big.gamma < 1e-5


def test_identity_composition():
    r = gdp.clt(gdp.identity(), 5)
    assert (r.mu, r.gamma) == (0.0, 0.0)
    assert r.lower(0.3) == 0.7 and r.upper(0.3) == 0.7


@pytest.mark.parametrize("eps,k", [(0.01, 100), (0.1, 10), (0.1, 100), (0.5, 10), (0.5, 100),
                                   (1.0, 10), (1.0, 100), (0.2, 1000)])
def test_berry_esseen_bounds_contain_exact(eps, k):
    r = _quiet(gdp.clt, gdp.f_eps_delta(eps), k)
    exact = _rr_power(eps, k)
    ex = exact(GRID)
    lo, up = r.lower(GRID), r.upper(GRID)
    assert np.all(lo <= ex + 1e-15), f"lower bound above the exact curve by {np.max(lo - ex)}"
    assert np.all(up >= ex - 1e-15), f"upper bound below the exact curve by {np.max(ex - up)}"
    # the theorem's own statement on [gamma, 1 - gamma], unclipped
    inner = GRID[(GRID >= r.gamma) & (GRID <= 1 - r.gamma)]
    assert np.all(_G(r.mu, inner + r.gamma) - r.gamma <= exact(inner) + 1e-15)
    assert np.all(_G(r.mu, inner - r.gamma) + r.gamma >= exact(inner) - 1e-15)


@pytest.mark.parametrize("mu,gamma", [(1.0, 0.05), (3.3, 0.24), (10.4, 0.077), (0.5, 0.01),
                                      (0.3, 0.18), (2.0, 0.49), (1.0, 0.7)])
def test_berry_esseen_curves_are_tradeoff_functions(mu, gamma):
    lo = BerryEsseenLower(mu=mu, gamma=gamma)
    up = BerryEsseenUpper(mu=mu, gamma=gamma)
    _is_tradeoff(lo)
    _is_tradeoff(up)
    assert np.all(lo(GRID) <= up(GRID))
    # the upper curve is the convex minorant of min(1 - a, G(a - gamma) + gamma): below it,
    # and touching it between the tangent points
    raw = np.minimum(1 - GRID, _G(mu, np.maximum(GRID - gamma, 0)) + gamma)
    assert np.all(up(GRID) <= raw + 1e-12)
    if up.informative:
        mid = GRID[(GRID > up.x1) & (GRID < up.x2)]
        assert_allclose(up(mid), raw[(GRID > up.x1) & (GRID < up.x2)], rtol=1e-12)
    if gamma >= 0.5:
        assert not up.informative and np.all(lo(GRID) == 0) and up(0.3) == 0.7


def test_uninformative_gamma_warns():
    with pytest.warns(ApproximationWarning, match=r"gamma = .* >= 1/2"):
        r = gdp.clt(gdp.f_eps_delta(3.0), 2, check=False)
    assert not r.informative
    assert r.lower(0.1) == 0.0 and r.upper(0.1) == pytest.approx(0.9, abs=1e-15)


def test_exact_check_warns_above_tolerance():
    # f_{1,0}^{(x)10}: the CLT is 0.144 away from the exact binomial curve
    with pytest.warns(ApproximationWarning, match=r"away from the exact composition"):
        gdp.clt(gdp.f_eps_delta(1.0), 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        gdp.clt(gdp.f_eps_delta(1.0), 10, tol=0.2)
        gdp.clt(gdp.f_eps_delta(1.0), 10, check=False)


@settings(max_examples=20, deadline=None)
@given(mus=st.lists(st.floats(0.05, 2.0), min_size=1, max_size=4),
       eps=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=3))
def test_clt_sums_are_additive(mus, eps):
    fs = [gdp.laplace(m) for m in mus] + [gdp.f_eps_delta(e) for e in eps]
    r = _quiet(gdp.clt, fs, check=False)  # gamma may exceed 1/2 for few large terms
    fns = [gdp.functionals(f) for f in fs]
    assert_allclose(r.kl_sum, sum(f.kl for f in fns), rtol=1e-12)
    assert_allclose(r.kappa2_sum, sum(f.kappa2 for f in fns), rtol=1e-12)
    var = r.kappa2_sum - r.kl_sq_sum
    assert_allclose(r.mu, 2 * r.kl_sum / math.sqrt(var), rtol=1e-12)
    assert_allclose(r.gamma, 0.56 * sum(f.kappa3_bar for f in fns) / var**1.5, rtol=1e-12)
    assert_allclose(_quiet(gdp.clt, fs[::-1], check=False).mu, r.mu, rtol=1e-12)


# ---------------------------------------------------------------------------
# limits
# ---------------------------------------------------------------------------
def test_clt_limit():
    assert gdp.clt_limit(0.5, 1.0) == gdp.G_mu(1.0)
    assert gdp.clt_limit(0.0, 0.0) == gdp.G_mu(0.0)
    # Laplace(mu/sqrt(n))^{(x)n}: sum kl -> mu^2/2, sum kappa2 -> mu^2, so G_mu (DRS Thm 3.5)
    n, mu = 10**6, 1.5
    fn = gdp.functionals(gdp.laplace(mu / math.sqrt(n)))
    assert_allclose(gdp.clt_limit(n * fn.kl, n * fn.kappa2).mu, mu, rtol=1e-3)
    with pytest.raises(ValueError, match=r"`kappa2_sum` must be positive when kl_sum > 0"):
        gdp.clt_limit(1.0, 0.0)
    with pytest.raises(ValueError, match=r"`kl_sum` must be a non-negative finite number"):
        gdp.clt_limit(-1.0, 1.0)


def test_eps_delta_limit_against_exact_composition():
    eps, delta, k = 0.01, 1e-7, 10_000
    h = gdp.eps_delta_limit([eps] * k, [delta] * k)
    assert_allclose(h.mu, eps * math.sqrt(k), rtol=1e-12)
    assert_allclose(h.delta_, -math.expm1(-k * delta), rtol=1e-12)
    # exact: f_{eps,delta}^{(x)k} = f_{eps,0}^{(x)k} (x) f_{0, 1-(1-delta)^k}, i.e.
    # (1 - d) R(alpha / (1 - d)) with R the binomial curve (MATH.md §4)
    d = -math.expm1(k * math.log1p(-delta))
    R = _rr_power(eps, k)
    x = GRID[GRID < 1 - d]
    exact = (1 - d) * R(x / (1 - d))
    assert np.max(np.abs(h(x) - exact)) < 2e-3
    _is_tradeoff(h)


def test_gaussian_delta_hooks():
    h = GaussianDelta(mu=1.3, delta_=0.02)
    g = gdp.G_mu(1.3)
    x = np.linspace(0, 0.97, 50)
    assert_allclose(h(x), 0.98 * g(x / 0.98), rtol=1e-14)
    assert np.all(h(np.linspace(0.98, 1, 5)) == 0)
    e = np.array([0.0, 0.5, 2.0])
    assert_allclose(h.delta(e), 0.02 + 0.98 * g.delta(e), rtol=1e-13)
    # the profile from the golden-section path on the curve agrees (an upper bound)
    num = gdp.from_callable(lambda a: h(a), symmetric=True).delta(e)
    assert np.all(num >= h.delta(e) - 1e-12) and np.all(num <= h.delta(e) + 1e-6)


def test_eps_delta_limit_warns_and_validates():
    with pytest.warns(ApproximationWarning, match=r"far from its conditions"):
        gdp.eps_delta_limit([2.0], [0.0])
    with pytest.raises(ValueError, match=r"`eps` and `delta` must broadcast"):
        gdp.eps_delta_limit([0.1, 0.2], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"`delta` must be a number in \[0, 1\]"):
        gdp.eps_delta_limit([0.1], [1.5])


# ---------------------------------------------------------------------------
# noisy SGD
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("sigma,p,T", [(1.1, 256 / 60000, 3000), (0.7, 0.01, 10_000),
                                        (5.0, 0.001, 10**6), (2.0, 0.05, 100)])
def test_noisy_sgd_mu_formulas(sigma, p, T):
    # the textbook forms (BDLS; as in tensorflow_privacy's gdp_accountant)
    pois = p * math.sqrt(T * (math.exp(sigma**-2) - 1))
    unif = p * math.sqrt(T) * math.sqrt(2) * math.sqrt(
        math.exp(sigma**-2) * special.ndtr(1.5 / sigma) + 3 * special.ndtr(-0.5 / sigma) - 2)
    assert_allclose(gdp.noisy_sgd_mu(sigma, p, T), pois, rtol=1e-12)
    assert_allclose(gdp.noisy_sgd_mu(sigma, p, T, sampling="uniform"), unif, rtol=1e-10)


def test_noisy_sgd_mu_edges():
    # large sigma, where the textbook forms cancel: mpmath recipe at 50 digits
    mp.mp.dps = 50
    for s in (1e3, 1e5, 1e7):
        x = 1 / mp.mpf(s)
        pois = 0.01 * mp.sqrt(10**4 * mp.expm1(x * x))
        unif = 0.01 * mp.sqrt(2 * 10**4 * (mp.exp(x * x) * mp.ncdf(1.5 * x)
                                          + 3 * mp.ncdf(-0.5 * x) - 2))
        assert_allclose(gdp.noisy_sgd_mu(s, 0.01, 10**4), float(pois), rtol=1e-13)
        assert_allclose(gdp.noisy_sgd_mu(s, 0.01, 10**4, "uniform"), float(unif), rtol=1e-8)
    assert gdp.noisy_sgd_mu(math.inf, 0.01, 10) == 0.0
    assert gdp.noisy_sgd_mu(1.0, 0.0, 10) == 0.0
    assert gdp.noisy_sgd_mu(0.01, 0.01, 10) == math.inf
    with pytest.warns(ApproximationWarning, match=r"p = 0\.5 > 0\.1"):
        gdp.noisy_sgd_mu(1.0, 0.5, 100)
    with pytest.raises(ValueError, match=r"`sampling` must be 'poisson' or 'uniform'"):
        gdp.noisy_sgd_mu(1.0, 0.01, 10, sampling="shuffle")
    with pytest.raises(ValueError, match=r"`sigma` must be a positive number"):
        gdp.noisy_sgd_mu(0.0, 0.01, 10)
    with pytest.raises(ValueError, match=r"`steps` must be an integer >= 1"):
        gdp.noisy_sgd_mu(1.0, 0.01, 0)


# ---------------------------------------------------------------------------
# Edgeworth
# ---------------------------------------------------------------------------
def test_edgeworth_is_exact_for_gaussians():
    e = gdp.edgeworth([gdp.G_mu(0.6), gdp.G_mu(0.8)])
    g = gdp.G_mu(1.0)
    assert np.max(np.abs(e(GRID) - g(GRID))) < 1e-4
    assert "approximation" in repr(e)
    _is_tradeoff(e)


@pytest.mark.parametrize("eps,k", [(0.5, 100), (1.0, 100), (1.0, 30), (0.1, 1000)])
def test_edgeworth_beats_clt_on_skewed_lattice(eps, k):
    # where the skewness term dominates the lattice effect (docs/clt_accuracy.md)
    exact = _rr_power(eps, k)(GRID)
    clt_err = np.max(np.abs(gdp.G_mu(_quiet(gdp.clt, gdp.f_eps_delta(eps), k).mu)(GRID) - exact))
    e = gdp.edgeworth(gdp.f_eps_delta(eps), k)
    ew_err = np.max(np.abs(e(GRID) - exact))
    assert ew_err < 0.7 * clt_err, (ew_err, clt_err)
    _is_tradeoff(e)


@pytest.mark.parametrize("eps,k", [(1.0, 10), (0.5, 10), (0.1, 100), (0.01, 100)])
def test_edgeworth_eps_closer_than_clt(eps, k):
    # eps at delta = 1e-5 (docs/clt_accuracy.md): Edgeworth is closer to the exact value
    exact = _rr_power(eps, k).epsilon(1e-5)
    clt_eps = _quiet(gdp.clt, gdp.f_eps_delta(eps), k).epsilon(1e-5)
    ew_eps = gdp.edgeworth(gdp.f_eps_delta(eps), k).epsilon(1e-5)
    assert abs(ew_eps - exact) < 0.5 * abs(clt_eps - exact)


def test_edgeworth_order_and_cumulants():
    f = gdp.laplace(0.4)
    e1 = gdp.edgeworth(f, 50, order=1)
    e2 = gdp.edgeworth(f, 50)
    c = _cumulants(f)
    assert_allclose(e2.cumulants_p, 50 * np.asarray(c.p), rtol=1e-12)
    assert e1.order == 1 and e2.order == 2
    assert np.max(np.abs(e1(GRID) - e2(GRID))) < 0.03
    _is_tradeoff(e1)


def test_edgeworth_non_symmetric_uses_both_sides():
    f = gdp.from_distributions([0.6, 0.3, 0.1], [0.2, 0.3, 0.5])
    c = _cumulants(f)
    # Q-side mean is KL(Q || P), not -(P-side mean)
    P, Q = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])
    assert_allclose(c.q[0], float(np.sum(Q * np.log(Q / P))), rtol=1e-12)
    assert_allclose(c.p[0], float(np.sum(P * np.log(Q / P))), rtol=1e-12)
    e = gdp.edgeworth(f, 40)
    assert not e.is_symmetric
    _is_tradeoff(e)


# ---------------------------------------------------------------------------
# against the numeric composition engine
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("mu,k", [(0.5, 10), (0.2, 50), (1.0, 30)])
def test_laplace_composition_against_engine(mu, k):
    h = gdp.laplace(mu) ** k
    lo = np.asarray(h.lower(GRID))
    hi = np.asarray(h.upper(GRID))
    r = gdp.clt(gdp.laplace(mu), k)
    assert np.all(r.lower(GRID) <= hi + 1e-12)  # BE lower never above the truth
    assert np.all(r.upper(GRID) >= lo - 1e-12)  # BE upper never below it
    # the sound side of the engine is within its accuracy of the truth; use the bracket's
    # midpoint only when it is tight
    ref = 0.5 * (lo + hi) if np.max(hi - lo) < 1e-3 else lo
    clt_err = np.max(np.abs(r.approx(GRID) - ref))
    ew_err = np.max(np.abs(gdp.edgeworth(gdp.laplace(mu), k)(GRID) - ref))
    assert ew_err < 0.7 * clt_err, (ew_err, clt_err)


def test_edgeworth_truncation_is_conservative():
    # mu ~ 50: the relevant type I errors underflow; the mass beyond goes to +inf, so the
    # approximation answers eps = inf rather than an eps below the exact 1429.7
    with pytest.warns(ApproximationWarning, match=r"truncated where alpha underflows"):
        e = gdp.edgeworth(gdp.f_eps_delta(0.5), 10_000)
    assert e.epsilon(1e-5) == math.inf
    assert _rr_power(0.5, 10_000).epsilon(1e-5) < math.inf


class _PoissonSubsampledGaussian(gdp.TradeOff):
    """Test-only: T(N(0,1), (1-p)N(0,1) + pN(1/sigma,1)) through its exact loss law.

    L(x) = log(1 - p + p exp(x/sigma - 1/(2 sigma^2))) is increasing in x, so
    P[L > t] = Phi(-x(t)) with x(t) = sigma log((e^t - 1 + p)/p) + 1/(2 sigma).
    """

    __slots__ = ("sigma", "p")

    def __init__(self, sigma, p):
        self.sigma, self.p = sigma, p

    def _x(self, t):
        with np.errstate(all="ignore"):
            arg = np.expm1(t) + self.p
            return np.where(arg > 0, self.sigma * np.log(arg / self.p) + 0.5 / self.sigma,
                            -np.inf)

    def _loss_sf(self, t):
        return special.ndtr(-self._x(np.asarray(t, dtype=float)))

    def _f(self, alpha):  # not used by the functionals
        raise NotImplementedError


@pytest.mark.parametrize("sigma,p", [(1.0, 1e-3), (2.0, 1e-3), (0.8, 5e-4)])
def test_noisy_sgd_poisson_formula_from_the_clt(sigma, p):
    # DRS Thm 3.5 on T copies of the one-sided subsampled Gaussian: mu = 2 T kl / sqrt(T var)
    # must approach p sqrt(T (e^{1/sigma^2} - 1)) as p -> 0 (relative error O(p))
    fn = gdp.functionals(_PoissonSubsampledGaussian(sigma, p))
    T = 10_000
    mu = 2 * T * fn.kl / math.sqrt(T * (fn.kappa2 - fn.kl**2))
    assert_allclose(mu, gdp.noisy_sgd_mu(sigma, p, T), rtol=2 * p * math.expm1(sigma**-2))


@pytest.mark.parametrize("eps,p", [(1.0, 0.2), (0.5, 0.05), (2.0, 0.5)])
def test_subsampled_law_against_exact_piecewise_curve(eps, p):
    # C_p(f_{eps,0}) by hand: f_p = p f + (1-p) Id has vertices (0,1), (a, y), (1,0) with
    # a = 1/(1+e^eps), y = f_p(a); its slopes straddle -1 at a, so the hull of
    # min{f_p, f_p^{-1}} has vertices (0,1), (a, y), (y, a), (1, 0) (DRS Thm 4.2)
    a = 1 / (1 + math.exp(eps))
    y = p * a + (1 - p) * (1 - a)
    exact = gdp.from_curve([0, a, y, 1], [1, y, a, 0])
    got = gdp.functionals(subsample(gdp.f_eps_delta(eps), p))
    ref = gdp.functionals(exact)
    for name in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert_allclose(getattr(got, name), getattr(ref, name), rtol=1e-10, err_msg=name)
    assert_allclose(_cumulants(subsample(gdp.f_eps_delta(eps), p)).p,
                    _cumulants(exact).p, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("sigma", [1.0, 2.0])
def test_noisy_sgd_uniform_formula_from_the_clt(sigma):
    # DRS Thm 3.4's mu for T copies of C_p(G_{1/sigma}) (sampling without replacement) tends
    # to the BDLS formula as p -> 0 with p sqrt(T) fixed-ish; the gap is O(p)
    errs = []
    for p in (0.01, 0.003):
        r = gdp.clt(subsample(gdp.G_mu(1 / sigma), p), 10_000)
        ref = gdp.noisy_sgd_mu(sigma, p, 10_000, sampling="uniform")
        errs.append(abs(r.mu / ref - 1))
        assert errs[-1] < 2.5 * p * math.expm1(sigma**-2)
    assert errs[1] < errs[0] / 2


def test_check_against_the_engine_warns():
    # Lap(1)^{(x)10}: G_mu is ~0.4 away from the exact curve near alpha = 0 (docs table)
    with pytest.warns(ApproximationWarning, match=r"away from the exact composition"):
        gdp.clt(gdp.laplace(1.0), 10, check=True)
