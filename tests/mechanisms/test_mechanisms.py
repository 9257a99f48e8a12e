"""Tests for gdp.mechanisms: guarantees, accuracy bounds, exact samplers and validation.

Provenance of reference values: closed forms (stated per test), mpmath sums for the
discrete Gaussian (CKS 2020 Thm 7 for its privacy profile), the Balle–Wang formula for the
Gaussian δ evaluated in mpmath, Dwork–Roth Example 3.3 (ln(10000/0.05) ≈ 12.2), and
chi-square / binomial goodness-of-fit tests (seeded) for the samplers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, special, stats

import gdp
from gdp import mechanisms as M
from gdp.mechanisms import discrete

ALPHAS = np.concatenate([np.logspace(-10, -1, 60), np.linspace(0.0, 1.0, 401)])


def rng(seed=0):
    return np.random.default_rng(seed)


def _gof(observed_values, support, pmf, min_expected=5.0):
    """Chi-square goodness of fit; cells with small expectation are pooled."""
    n = len(observed_values)
    counts = np.array([np.sum(np.asarray(observed_values) == s) for s in support], float)
    exp = n * np.asarray(pmf, float)
    other_obs = n - counts.sum()
    other_exp = n - exp.sum()
    keep = exp >= min_expected
    obs = np.concatenate([counts[keep], [counts[~keep].sum() + other_obs]])
    ex = np.concatenate([exp[keep], [exp[~keep].sum() + other_exp]])
    if ex[-1] < 1e-9:
        obs, ex = obs[:-1], ex[:-1]
    return stats.chisquare(obs, ex * obs.sum() / ex.sum()).pvalue


# =========================================================================== Gaussian
def test_gaussian_mu_calibration():
    mech = M.Gaussian(sensitivity=2.0, mu=0.5)
    assert mech.sigma == 4.0
    assert mech.tradeoff == gdp.G_mu(0.5)
    assert mech.variance == 16.0


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-5), (0.3, 1e-6), (4.0, 1e-3), (20.0, 1e-10)])
def test_gaussian_eps_delta_calibration_is_exact_and_sound(eps, delta):
    mech = M.Gaussian(sensitivity=1.5, eps=eps, delta=delta)
    # Balle-Wang / DRS Cor 2.13 delta of N(0, s^2) vs N(1.5, s^2) at eps, in mpmath
    mpmath.mp.dps = 50
    s = mpmath.mpf(mech.sigma)
    d = mpmath.mpf(1.5)
    ref = (mpmath.ncdf(d / (2 * s) - eps * s / d)
           - mpmath.exp(eps) * mpmath.ncdf(-d / (2 * s) - eps * s / d))
    assert float(ref) <= delta  # the noise is enough (sound side)
    assert_allclose(float(ref), delta, rtol=1e-6)  # and not more than needed
    assert mech.tradeoff.delta(eps) <= delta * (1 + 1e-12)
    # exact calibration is never worse than the classical one where that one applies
    if eps < 1:
        assert mech.sigma < gdp.sigma_classical(1.5, eps, delta)


def test_gaussian_sigma_rounded_up():
    # sigma = Delta / mu rounded up: the float noise is never smaller than the real quotient
    for sens, mu in [(1.0, 3.0), (0.1, 0.7), (7.0, 0.3)]:
        mech = M.Gaussian(sensitivity=sens, mu=mu)
        assert Fraction(mech.sigma) * Fraction(mu) >= Fraction(sens)
        assert_allclose(mech.sigma, sens / mu, rtol=4e-16)
    mech = M.Gaussian(sensitivity=1.0, sigma=3.0)
    assert Fraction(mech.mu) * Fraction(3.0) >= 1  # claimed mu never below Delta / sigma


@pytest.mark.parametrize("beta", [0.5, 0.05, 1e-3, 1e-12])
def test_gaussian_accuracy(beta):
    mech = M.Gaussian(sensitivity=1.0, sigma=2.5)
    a = mech.accuracy(beta)
    # P[|N(0, s^2)| >= a] = 2 Phi(-a/s) = beta exactly (a too small would make it > beta)
    assert_allclose(2 * special.ndtr(-a / 2.5), beta, rtol=1e-10)
    if beta >= 1e-3:  # seed 003's form sigma sqrt(2) erfinv(1 - beta)
        assert_allclose(a, 2.5 * math.sqrt(2) * special.erfinv(1 - beta), rtol=1e-10)
    # seed 003's upper bound erfinv(1 - beta) <= sqrt(ln(1/beta))
    assert a <= 2.5 * math.sqrt(2) * math.sqrt(math.log(1 / beta))
    # k coordinates, union bound: P[max |N_i| >= a_k] <= beta
    a_k = mech.accuracy(beta, k=50)
    assert 1 - (1 - 2 * special.ndtr(-a_k / 2.5)) ** 50 <= beta * (1 + 1e-12)


def test_gaussian_release_shape_and_reproducibility():
    mech = M.Gaussian(sensitivity=1.0, mu=1.0)
    y1 = mech(3.0, rng=rng(5))
    y2 = mech(3.0, rng=rng(5))
    assert isinstance(y1, float) and y1 == y2 and y1 != 3.0
    v = mech(np.zeros((2, 3)), rng=rng(1))
    assert v.shape == (2, 3) and np.all(v != 0)
    s = mech.sample(np.zeros(2), 4000, rng=rng(2))
    assert s.shape == (4000, 2)
    assert_allclose(s.var(axis=0), 1.0, rtol=0.1)  # sigma = 1; 10% is > 4 standard errors


# ============================================================================ Laplace
def test_laplace_calibration_and_tradeoff():
    mech = M.Laplace(sensitivity=2.0, eps=1.0)
    assert mech.scale == 2.0
    assert mech.tradeoff == gdp.laplace(1.0)
    assert mech.variance == 8.0
    m2 = M.Laplace(sensitivity=1.0, scale=3.0)
    assert Fraction(m2.eps) * 3 >= 1 and m2.tradeoff.mu == m2.eps


def test_laplace_tradeoff_is_tighter_than_pure_dp():
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    assert mech.tradeoff.dominates(gdp.f_eps_delta(1.0))
    assert_allclose(mech.tradeoff.epsilon(0.0), 1.0, rtol=1e-9)


def test_laplace_vector_tradeoff_holds_for_spread_shifts():
    # a shift split over two coordinates, (a, 1 - a), must be at least as private as the
    # one-coordinate shift 1 (group-privacy argument of the class docstring). Hockey-stick
    # divergence of the product pair, conditioning on the second coordinate y ~ Lap(1-a):
    # delta(eps) = E_y[ delta_{Lap(a)}(eps - L2(y)) ],  L2(y) = |y| - |y - (1 - a)|
    one = gdp.laplace(1.0)
    for a in (0.5, 0.2):
        f1 = gdp.laplace(a)
        b = 1.0 - a
        for eps in (0.0, 0.3, 0.7):
            def integrand(y, f1=f1, b=b, eps=eps):
                q2 = 0.5 * math.exp(-abs(y - b))
                return q2 * f1.hockey_stick(eps - (abs(y) - abs(y - b)))

            val = sum(integrate.quad(integrand, lo, hi, epsabs=1e-12)[0]
                      for lo, hi in ((-40.0, 0.0), (0.0, b), (b, 40.0)))
            assert val <= one.delta(eps) + 1e-9
            assert val < one.delta(eps) - 1e-3  # strictly: spreading the shift helps


@pytest.mark.parametrize("beta", [0.5, 0.05, 1e-6])
def test_laplace_accuracy(beta):
    mech = M.Laplace(sensitivity=1.0, scale=1.7)
    a = mech.accuracy(beta)
    # Dwork-Roth Fact 3.7: P[|Y| >= t b] = e^-t, exactly beta here
    assert_allclose(2 * stats.laplace.sf(a, scale=1.7), beta, rtol=1e-12)
    a_k = mech.accuracy(beta, k=100)  # Thm 3.8: union bound over 100 coordinates
    assert 1 - (1 - math.exp(-a_k / 1.7)) ** 100 <= beta


def test_laplace_accuracy_example_3_3():
    # Dwork-Roth Example 3.3: 10 000 name counts, eps = 1, 95%: error at most ~12.2
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    assert_allclose(mech.accuracy(0.05, k=10000), math.log(10000 / 0.05), rtol=1e-15)
    assert round(mech.accuracy(0.05, k=10000), 1) == 12.2


def test_laplace_samples():
    mech = M.Laplace(sensitivity=1.0, eps=2.0)
    s = mech.sample(1.0, 20000, rng=rng(3))
    assert stats.kstest(s - 1.0, stats.laplace(scale=0.5).cdf).pvalue > 1e-3


# ================================================================ randomized response
def test_rr_binary_is_randomized_response_curve():
    rr = M.RandomizedResponse(k=2, eps=1.0)
    assert_allclose(rr.tradeoff(ALPHAS), gdp.f_eps_delta(1.0)(ALPHAS), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k,eps", [(3, 1.0), (5, 0.5), (10, 2.0)])
def test_rr_kary_exact_curve(k, eps):
    rr = M.RandomizedResponse(k=k, eps=eps)
    e = math.exp(eps)
    z = e + k - 1
    # Neyman-Pearson by hand: reject output 1 (ratio e^eps), then the k-2 ratio-1 outputs
    a1, b1 = 1 / z, 1 - e / z
    a2, b2 = (k - 1) / z, 1 - (e + k - 2) / z
    assert_allclose(rr.tradeoff(np.array([a1, a2])), [b1, b2], rtol=1e-12)
    f = rr.tradeoff
    # eps-DP: the curves touch along the first segment, so equal up to rounding only
    assert f.dominates(gdp.f_eps_delta(eps), atol=1e-12)
    assert_allclose(f.epsilon(0.0), eps, rtol=1e-9)  # and not better
    assert f.epsilon(0.0) >= eps * (1 - 1e-12)
    assert_allclose(rr.p_truth, e / z, rtol=1e-15)


def test_rr_release_distribution():
    rr = M.RandomizedResponse(k=4, eps=1.2)
    out = rr.sample(2, 20000, rng=rng(4))
    assert _gof(out, range(4), rr.pmf(2)) > 1e-3
    v = rr(np.array([0, 3, 1]), rng=rng(1))
    assert v.shape == (3,) and v.dtype == np.int64
    assert isinstance(rr(1, rng=rng(1)), int)


# ======================================================================== exponential
def test_exponential_probabilities_and_sampling():
    em = M.Exponential(utility=lambda d: np.array([d, 2 * d, 0.0]), sensitivity=1.0, eps=2.0)
    p = em.probabilities(1.0)
    w = np.exp(np.array([1.0, 2.0, 0.0]) * 2.0 / 2.0)
    assert_allclose(p, w / w.sum(), rtol=1e-14)
    out = em.sample(1.0, 20000, rng=rng(6))
    assert _gof(out, range(3), p) > 1e-3
    assert isinstance(em(1.0, rng=rng(0)), int)


def test_exponential_no_overflow_in_log_space():
    em = M.Exponential(utility=None, sensitivity=1.0, eps=1.0)
    scores = np.array([1e6, 1e6 - 50.0, 0.0])  # exp(5e5) overflows; Gumbel-max does not
    assert em(scores, rng=rng(0)) == 0
    e25 = math.exp(-25.0)  # eps / (2 Delta) * 50 = 25
    assert_allclose(em.probabilities(scores), [1 / (1 + e25), e25 / (1 + e25), 0.0],
                    rtol=1e-12, atol=1e-300)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=2, max_size=6), st.data(),
       st.floats(0.1, 3.0), st.booleans())
def test_exponential_is_eps_dp(u, data, eps, monotone):
    # neighbours: every score moves by at most Delta = 1 (all in one direction if monotone)
    u = np.asarray(u)
    if monotone:
        shift = data.draw(st.floats(0.0, 1.0)) * np.asarray(
            data.draw(st.lists(st.floats(0, 1), min_size=u.size, max_size=u.size)))
    else:
        shift = np.asarray(data.draw(st.lists(st.floats(-1, 1), min_size=u.size,
                                              max_size=u.size)))
    em = M.Exponential(utility=None, sensitivity=1.0, eps=eps, monotone=monotone)
    p, q = em.probabilities(u), em.probabilities(u + shift)
    assert np.max(np.abs(np.log(p) - np.log(q))) <= eps * (1 + 1e-9)
    # the claimed curve: T(p, q) >= f_{eps,0}
    assert gdp.from_distributions(p, q).dominates(em.tradeoff, rtol=1e-9)


def test_exponential_factor_two_is_needed_without_monotonicity():
    # u = (1, 0, ..., 0) vs (0, 1, ..., 1): the numerator moves one way and the normaliser
    # the other; with m = 2000 outcomes the log-ratio of P[output 0] approaches eps (with
    # the factor 2) -- without it, it would approach 2 eps
    m = 2000
    u, up = np.zeros(m), np.ones(m)
    u[0], up[0] = 1.0, 0.0
    em = M.Exponential(utility=None, sensitivity=1.0, eps=1.0)
    r = math.log(em.probabilities(u)[0] / em.probabilities(up)[0])
    assert 0.99 < r <= 1.0
    em_bad = M.Exponential(utility=None, sensitivity=1.0, eps=1.0, monotone=True)
    r_bad = math.log(em_bad.probabilities(u)[0] / em_bad.probabilities(up)[0])
    assert r_bad > 1.9


def test_exponential_accuracy():
    # Dwork-Roth Thm 3.11 with the exact pmf: P[u(out) <= OPT - alpha] <= beta
    u = np.linspace(0.0, 10.0, 25)
    em = M.Exponential(utility=None, sensitivity=1.0, eps=1.0)
    for beta in (0.3, 0.05, 1e-3):
        a = em.accuracy(beta, n_outcomes=u.size)
        p = em.probabilities(u)
        assert p[u <= u.max() - a].sum() <= beta
    assert_allclose(em.accuracy(0.05, n_outcomes=10), 2 * math.log(200), rtol=1e-15)


# ==================================================================== report noisy max
def _rnm_laplace_p0(c, b):
    """P[argmax(c + Lap(b)) = 0] by quadrature (independent of the sampler)."""
    c = np.asarray(c, float)

    def f(y):
        return stats.laplace.pdf(y, scale=b) * np.prod(stats.laplace.cdf(c[0] + y - c[1:],
                                                                          scale=b))

    pts = sorted(set((c[1:] - c[0]).tolist() + [0.0]))
    return integrate.quad(f, -60 * b - 2, 60 * b + 2, points=pts, limit=400,
                          epsabs=1e-14, epsrel=1e-12)[0]


def test_rnm_laplace_scale_is_private_for_non_monotone_scores():
    # c = (1, 0, ..., 0) vs (0, 1, ..., 1): each score moves by 1 in opposite directions.
    # With scale 1/eps the log ratio is 1.94 > eps (m = 10); the default 2/eps is safe.
    eps = 1.0
    rnm = M.ReportNoisyMax(eps=eps)
    c, cp = [1.0] + [0.0] * 9, [0.0] + [1.0] * 9
    r = math.log(_rnm_laplace_p0(c, rnm.scale) / _rnm_laplace_p0(cp, rnm.scale))
    assert abs(r) <= eps
    r_bad = math.log(_rnm_laplace_p0(c, 1.0 / eps) / _rnm_laplace_p0(cp, 1.0 / eps))
    assert r_bad > 1.9  # what the monotone scale would do here


def test_rnm_monotone_claim_3_9():
    # counts under add/remove: (1, 1, ..., 1) vs (0, 1, ..., 1), Lap(1/eps) (Claim 3.9)
    eps = 0.8
    rnm = M.ReportNoisyMax(eps=eps, monotone=True)
    assert rnm.scale == 1.25
    c, cp = [1.0] * 6, [0.0] + [1.0] * 5
    r = math.log(_rnm_laplace_p0(c, rnm.scale) / _rnm_laplace_p0(cp, rnm.scale))
    assert abs(r) <= eps


def test_rnm_sampler_matches_quadrature():
    rnm = M.ReportNoisyMax(eps=1.0)
    c = np.array([1.0, 0.0, 0.5])
    out = rnm.sample(c, 20000, rng=rng(8))
    p0 = _rnm_laplace_p0(c, rnm.scale)
    assert stats.binomtest(int(np.sum(out == 0)), out.size, p0).pvalue > 1e-3


def test_rnm_gumbel_equals_exponential_mechanism():
    c = np.array([3.0, 1.0, 2.5, 0.0])
    rnm = M.ReportNoisyMax(eps=1.5, noise="gumbel")
    em = M.Exponential(utility=None, sensitivity=1.0, eps=1.5)
    out = rnm.sample(c, 20000, rng=rng(9))
    assert _gof(out, range(4), em.probabilities(c)) > 1e-3


def test_rnm_accuracy():
    c = np.arange(20, dtype=float)
    for noise in ("laplace", "gumbel"):
        rnm = M.ReportNoisyMax(eps=1.0, noise=noise, monotone=True)
        a = rnm.accuracy(0.1, n_outcomes=c.size)
        out = rnm.sample(c, 20000, rng=rng(10))
        gap = c.max() - c[out]
        assert np.mean(gap > a) <= 0.1
    assert_allclose(M.ReportNoisyMax(eps=1.0).accuracy(0.05, n_outcomes=10),
                    2 * 2 * math.log(200), rtol=1e-15)


# ================================================================ exact discrete samplers
@pytest.mark.parametrize("num,den", [(0, 1), (1, 3), (1, 1), (5, 2), (7, 1)])
def test_bernoulli_exp(num, den):
    g = rng(11)
    n = 20000
    hits = sum(discrete._bernoulli_exp(num, den, g) for _ in range(n))
    p = math.exp(-num / den)
    if num == 0:
        assert hits == n
    else:
        assert stats.binomtest(hits, n, p).pvalue > 1e-3


def test_uniform_below_big_integers():
    g = rng(12)
    n = 3 * 2**70 + 12345
    xs = [discrete._uniform_below(n, g) for _ in range(6000)]
    assert all(0 <= x < n for x in xs)
    buckets = [x * 6 // n for x in xs]
    assert stats.chisquare(np.bincount(buckets, minlength=6)).pvalue > 1e-3


def _dg_pmf_mp(sigma, ys, span=80):
    mpmath.mp.dps = 40
    s2 = mpmath.mpf(sigma) ** 2
    z = mpmath.fsum(mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s2))
                    for k in range(-int(span * sigma) - 5, int(span * sigma) + 6))
    return [mpmath.exp(-mpmath.mpf(y) ** 2 / (2 * s2)) / z for y in ys]


@pytest.mark.parametrize("sigma", [1, 2.5, Fraction(7, 3)])
def test_discrete_gaussian_sampler_is_exact(sigma):
    out = M.sample_discrete_gaussian(sigma, size=4000, rng=rng(13))
    support = np.arange(-12, 13)
    pmf = [float(v) for v in _dg_pmf_mp(float(sigma), support)]
    assert _gof(out, support, pmf) > 1e-3


@pytest.mark.parametrize("scale", [1, 0.6, Fraction(5, 2)])
def test_discrete_laplace_sampler_is_exact(scale):
    out = M.sample_discrete_laplace(scale, size=5000, rng=rng(14))
    t = float(scale)
    support = np.arange(-15, 16)
    pmf = math.tanh(0.5 / t) * np.exp(-np.abs(support) / t)
    assert _gof(out, support, pmf) > 1e-3


# ================================================================== discrete Gaussian
def _cks_delta(sigma, delta_int, eps):
    """CKS 2020 Thm 7: P[Y > eps s^2/D - D/2] - e^eps P[Y > eps s^2/D + D/2], in mpmath."""
    mpmath.mp.dps = 40
    s2 = mpmath.mpf(sigma) ** 2
    lim = int(40 * sigma) + 5
    ks = list(range(-lim, lim + 1))
    w = [mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s2)) for k in ks]
    z = mpmath.fsum(w)
    c1 = eps * s2 / delta_int - mpmath.mpf(delta_int) / 2
    c2 = eps * s2 / delta_int + mpmath.mpf(delta_int) / 2
    t1 = mpmath.fsum(wk for k, wk in zip(ks, w, strict=True) if k > c1) / z
    t2 = mpmath.fsum(wk for k, wk in zip(ks, w, strict=True) if k > c2) / z
    return float(t1 - mpmath.exp(eps) * t2)


@pytest.mark.parametrize("delta_int,sigma", [(1, 0.8), (1, 2.0), (2, 3.0), (3, 10.0)])
def test_discrete_gaussian_profile_matches_cks_theorem_7(delta_int, sigma):
    dg = M.DiscreteGaussian(sensitivity=delta_int, sigma=sigma)
    for eps in (0.0, 0.25, 1.0, 2.0):
        ref = _cks_delta(sigma, delta_int, eps)
        if ref < 1e-9:
            continue
        got = dg.tradeoff.delta(eps)
        assert got >= ref * (1 - 1e-9) - 1e-15  # sound side (up to float rounding)
        assert_allclose(got, ref, rtol=1e-8)


def test_discrete_gaussian_is_not_g_mu():
    # the curve crosses G_{Delta/sigma}: neither dominates (so it is not reported as G_mu)
    dg = M.DiscreteGaussian(sensitivity=1, sigma=1.0)
    diff = dg.tradeoff(ALPHAS) - gdp.G_mu(1.0)(ALPHAS)
    assert diff.min() < -1e-3 and diff.max() > 1e-3
    # but for large sigma the two agree closely (CKS: "essentially the same privacy")
    big = M.DiscreteGaussian(sensitivity=1, mu=0.02)
    assert_allclose(big.tradeoff.delta(0.01), gdp.G_mu(0.02).delta(0.01), rtol=1e-3)


def test_discrete_gaussian_cell_split_is_a_lower_bound(monkeypatch):
    # force coarse cells (runs of 4 integers split into their extreme likelihood ratios):
    # the curve must stay below the exact one, visibly so, and its profile above
    exact = discrete._dg_tradeoff(1, 3.0)
    monkeypatch.setattr(discrete, "_MAX_ATOMS", 20)
    split = discrete._dg_tradeoff(1, 3.0)
    a = np.linspace(0.0, 1.0, 20001)
    gap = exact(a) - split(a)
    assert gap.min() >= -1e-15 and gap.max() > 1e-4
    for eps in (0.0, 0.2, 0.5, 1.0):
        assert split.delta(eps) >= exact.delta(eps) - 1e-15


def test_discrete_gaussian_large_sigma_uses_the_split_path():
    # sigma = 3000: ~60 000 integers in the window, runs of 4 are split
    assert 2 * discrete._dg_window(3000.0) + 2 > 2 * discrete._MAX_ATOMS
    dg = M.DiscreteGaussian(sensitivity=1, sigma=3000.0)
    for eps in (1e-4, 3e-4):
        assert_allclose(dg.tradeoff.delta(eps), gdp.G_mu(1 / 3000).delta(eps), rtol=1e-3)


@pytest.mark.parametrize("sigma,beta", [(1.0, 0.05), (2.0, 0.05), (3.5, 1e-4)])
def test_discrete_gaussian_accuracy(sigma, beta):
    dg = M.DiscreteGaussian(sensitivity=1, sigma=sigma)
    a = dg.accuracy(beta)
    ys = range(0, int(40 * sigma))
    pmf = _dg_pmf_mp(sigma, ys)

    def tail(t):  # P[|Y| > t]
        return 2 * float(mpmath.fsum(p for y, p in zip(ys, pmf, strict=True) if y > t))

    assert tail(a) <= beta  # safe
    assert a == 0 or tail(a - 1) > beta  # and the smallest such integer
    assert dg.accuracy(beta, k=10) >= a


def test_discrete_gaussian_variance():
    for sigma in (0.5, 1.0, 3.0):
        dg = M.DiscreteGaussian(sensitivity=1, sigma=sigma)
        ys = range(-int(40 * sigma) - 2, int(40 * sigma) + 3)
        pmf = _dg_pmf_mp(sigma, ys)
        ref = float(mpmath.fsum(mpmath.mpf(y) ** 2 * p for y, p in zip(ys, pmf, strict=True)))
        assert_allclose(dg.variance, ref, rtol=1e-10)
        assert dg.variance <= sigma**2 * (1 + 1e-12)  # CKS Prop. 19 (up to rounding)


def test_discrete_gaussian_release():
    dg = M.DiscreteGaussian(sensitivity=2, sigma=Fraction(3, 2))
    y = dg(10, rng=rng(0))
    assert isinstance(y, int)
    assert dg(10, rng=rng(0)) == y
    v = dg(np.array([1, 2, 3]), rng=rng(1))
    assert v.dtype == np.int64 and v.shape == (3,)
    s = dg.sample(5, 3000, rng=rng(2))
    support = np.arange(-10, 11)
    pmf = [float(p) for p in _dg_pmf_mp(1.5, support)]
    assert _gof(s - 5, support, pmf) > 1e-3


# =================================================================== discrete Laplace
@pytest.mark.parametrize("delta_int,eps", [(1, 1.0), (2, 0.5), (4, 2.0)])
def test_discrete_laplace_tradeoff(delta_int, eps):
    dl = M.DiscreteLaplace(sensitivity=delta_int, eps=eps)
    assert dl.scale == Fraction(delta_int) / Fraction(eps)
    t = delta_int / eps
    # equals the group-privacy curve of f_{1/t,0} (so it holds for l1-bounded vectors)
    group = gdp.f_eps_delta(1.0 / t).group(delta_int)
    assert_allclose(dl.tradeoff(ALPHAS), group(ALPHAS), rtol=1e-12, atol=1e-15)
    assert dl.tradeoff.dominates(gdp.f_eps_delta(eps), atol=1e-12)  # touching: up to rounding
    assert_allclose(dl.tradeoff.epsilon(0.0), eps, rtol=1e-9)


def test_discrete_laplace_accuracy_and_variance():
    dl = M.DiscreteLaplace(sensitivity=1, scale=2.5)
    r = math.exp(-1 / 2.5)
    for beta in (0.3, 0.05, 1e-6):
        a = dl.accuracy(beta)
        tail = lambda t: 2 * r ** (t + 1) / (1 + r)  # noqa: E731 - P[|Y| > t], closed form
        assert tail(a) <= beta
        assert a == 0 or tail(a - 1) > beta
    ys = np.arange(-400, 401)
    pmf = math.tanh(0.2) * r ** np.abs(ys)
    assert_allclose(dl.variance, np.sum(ys**2 * pmf), rtol=1e-12)


def test_discrete_laplace_release():
    dl = M.DiscreteLaplace(sensitivity=1, eps=0.7)
    s = dl.sample(np.array([0, 100]), 2000, rng=rng(3))
    assert s.shape == (2000, 2) and s.dtype == np.int64
    assert isinstance(dl(3, rng=rng(0)), int)


# ========================================================================== validation
@pytest.mark.parametrize("make,msg", [
    (lambda: M.Laplace(sensitivity=-1.0, eps=1.0),
     r"`sensitivity` must be a positive finite number; got sensitivity=-1.0"),
    (lambda: M.Laplace(sensitivity=1.0, eps=-0.5),
     r"`eps` must be a positive finite number; got eps=-0.5"),
    (lambda: M.Laplace(sensitivity=1.0),
     r"`Laplace` needs exactly one of `eps` or `scale`; got eps=None, scale=None"),
    (lambda: M.Laplace(sensitivity=1.0, eps=1.0, scale=1.0),
     r"`Laplace` needs exactly one of `eps` or `scale`"),
    (lambda: M.Gaussian(sensitivity=1.0),
     r"`Gaussian` needs exactly one calibration: `mu`, `sigma`, or both `eps` and `delta`; "
     r"got none"),
    (lambda: M.Gaussian(sensitivity=1.0, eps=1.0),
     r"`Gaussian` needs exactly one calibration.*; got eps=1.0"),
    (lambda: M.Gaussian(sensitivity=1.0, mu=1.0, sigma=2.0),
     r"got mu=1.0, sigma=2.0"),
    (lambda: M.Gaussian(sensitivity=1.0, mu=0.0),
     r"`mu` must be a positive finite number; got mu=0.0"),
    (lambda: M.Gaussian(sensitivity=1.0, eps=1.0, delta=0.0),
     r"`delta` must be a number in \(0, 1\); got delta=0.0"),
    (lambda: M.Gaussian(sensitivity=float("nan"), mu=1.0),
     r"`sensitivity` must be a positive finite number; got sensitivity=nan"),
    (lambda: M.Gaussian(sensitivity=1.0, mu=1e-320),
     r"the calibration gives a noise scale outside \(0, inf\)"),
    (lambda: M.RandomizedResponse(k=1, eps=1.0), r"`k` must be an integer >= 2; got k=1"),
    (lambda: M.ReportNoisyMax(eps=1.0, noise="cauchy"),
     r"`noise` must be 'laplace' or 'gumbel'; got noise='cauchy'"),
    (lambda: M.DiscreteGaussian(sensitivity=0, sigma=1.0),
     r"`sensitivity` must be an integer >= 1; got sensitivity=0"),
    (lambda: M.DiscreteGaussian(sensitivity=1.5, sigma=1.0),
     r"`sensitivity` must be an integer; got sensitivity=1.5"),
    (lambda: M.DiscreteGaussian(sensitivity=1, sigma=Fraction(-1, 2)),
     r"`sigma` must be a number in \[2\^-30, 1e15\]; got sigma=Fraction\(-1, 2\)"),
    (lambda: M.DiscreteGaussian(sensitivity=1),
     r"`DiscreteGaussian` needs exactly one of `sigma` or `mu`"),
    (lambda: M.DiscreteLaplace(sensitivity=1, eps=0.0),
     r"`eps` must be a positive finite number; got eps=0.0"),
])
def test_construction_errors(make, msg):
    with pytest.raises(ValueError, match=msg):
        make()


def test_construction_type_errors():
    with pytest.raises(TypeError, match=r"`utility` must be callable or None; got utility=3"):
        M.Exponential(utility=3, sensitivity=1.0, eps=1.0)
    with pytest.raises(TypeError, match=r"`monotone` must be True or False; got monotone=1"):
        M.ReportNoisyMax(eps=1.0, monotone=1)
    with pytest.raises(TypeError, match=r"`sensitivity` must be a real number"):
        M.Laplace(sensitivity="1", eps=1.0)
    with pytest.raises(TypeError):
        M.Laplace(1.0, 1.0)  # keyword-only: eps and delta can never be swapped


@pytest.mark.parametrize("mech,value,msg", [
    (M.Laplace(sensitivity=1.0, eps=1.0), [],
     r"`value` must hold at least one entry; got an empty array"),
    (M.Gaussian(sensitivity=1.0, mu=1.0), [1.0, float("nan")],
     r"`value` must be a real finite number \(every entry\); got value=nan"),
    (M.RandomizedResponse(k=3, eps=1.0), 3,
     r"`value` must hold integer categories in \{0, ..., 2\}; got value=3.0"),
    (M.DiscreteGaussian(sensitivity=1, sigma=1.0), 0.5,
     r"`value` must be integer-valued \(\|value\| <= 2\*\*53\) for a discrete mechanism; "
     r"got value=0.5"),
    (M.Exponential(utility=lambda d: np.ones((2, 2)), sensitivity=1.0, eps=1.0), 0,
     r"`utility` must give a 1-D array with one score per outcome; got shape \(2, 2\)"),
    (M.Exponential(utility=None, sensitivity=1.0, eps=1.0, n_outcomes=3), [1.0, 2.0],
     r"`value` gave 2 scores but the mechanism was built with n_outcomes=3"),
    (M.ReportNoisyMax(eps=1.0), np.zeros(0),
     r"`value` must be at least one score; got an empty array"),
    (M.ReportNoisyMax(eps=1.0), [1.0, float("inf")],
     r"`value` must be a real finite number \(every entry\); got value=inf"),
])
def test_release_errors(mech, value, msg):
    with pytest.raises(ValueError, match=msg):
        mech(value, rng=rng())


def test_rng_must_be_a_generator():
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    with pytest.raises(TypeError, match=r"`rng` must be a numpy.random.Generator or None; "
                                        r"got rng=0 \(use numpy.random.default_rng"):
        mech(1.0, rng=0)
    y = mech(1.0)  # None: a fresh OS-seeded generator
    assert isinstance(y, float) and y != 1.0


@pytest.mark.parametrize("mech,attr,bad,msg", [
    (M.Gaussian(sensitivity=1.0, mu=1.0), "sigma", 0.0,
     r"`sigma` must be a positive finite number; got sigma=0.0"),
    (M.Gaussian(sensitivity=1.0, mu=1.0), "sensitivity", -1.0,
     r"`sensitivity` must be a positive finite number"),
    (M.Laplace(sensitivity=1.0, eps=1.0), "scale", float("nan"),
     r"`scale` must be a positive finite number; got scale=nan"),
    (M.RandomizedResponse(k=3, eps=1.0), "eps", -1.0, r"`eps` must be a positive"),
    (M.Exponential(utility=None, sensitivity=1.0, eps=1.0), "eps", float("inf"),
     r"`eps` must be a positive finite number; got eps=inf"),
    (M.ReportNoisyMax(eps=1.0), "sensitivity", 0.0, r"`sensitivity` must be a positive"),
    (M.DiscreteGaussian(sensitivity=1, sigma=1.0), "sensitivity", 0,
     r"`sensitivity` must be an integer >= 1"),
    (M.DiscreteLaplace(sensitivity=1, eps=1.0), "scale", Fraction(0),
     r"`scale` must be a positive rational; got scale=Fraction\(0, 1\)"),
])
def test_release_revalidates_parameters(mech, attr, bad, msg):
    # a tampered frozen object never releases with less noise than stated
    object.__setattr__(mech, attr, bad)
    value = [1.0, 0.0] if isinstance(mech, M.Exponential | M.ReportNoisyMax) else 1
    with pytest.raises(ValueError, match=msg):
        mech(value, rng=rng())
    with pytest.raises(ValueError, match=msg):
        mech.sample(value, 5, rng=rng())


def test_frozen_and_keyword_only():
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    with pytest.raises(AttributeError):
        mech.scale = 0.0
    with pytest.raises(ValueError, match=r"`n` must be an integer >= 1; got n=0"):
        mech.sample(1.0, 0, rng=rng())
