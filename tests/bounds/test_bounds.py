"""Tests of gdp.bounds: classical composition bounds, optimal KOV composition, RDP, compare."""

from __future__ import annotations

import itertools
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate

import gdp
from gdp.bounds.comparison import _grid_min

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc

ORDERS = gdp.DEFAULT_ORDERS


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------
def mp_kov_delta(eps0: float, delta0: float, k: int, eps: float, dps: int = 40) -> mp.mpf:
    """Hockey-stick divergence of the k-fold (eps0, delta0) worst case, by mpmath.

    The binomial law (KOV Thm 3.3, written with l = number of -eps0 coordinates under Q):
    delta_h(eps) = sum_l C(k,l) (e^{(k-l)eps0} - e^{eps + l eps0}) / (1+e^eps0)^k over the
    l with (k - 2l) eps0 > eps, and delta = 1 - (1-delta0)^k (1 - delta_h).
    """
    with mp.workdps(dps):
        e0 = mp.mpf(eps0)
        e = mp.mpf(eps)
        s = mp.mpf(0)
        binom = mp.mpf(1)  # C(k, l), updated incrementally
        for l in range(k + 1):
            if not (k - 2 * l) * e0 > e:
                break  # (k - 2l) eps0 decreases in l
            s += binom * (mp.e ** ((k - l) * e0) - mp.e ** (e + l * e0))
            binom = binom * (k - l) / (l + 1)
        dh = s / (1 + mp.e ** e0) ** k
        base = 1 - (1 - mp.mpf(delta0)) ** k  # written so that tiny dh is not lost
        return base + (1 - base) * dh


def kov_delta_i(eps0: float, delta0: float, k: int, i: int) -> mp.mpf:
    """KOV's delta at eps = (k - 2i) eps0, verbatim from the theorem (MATH.md §4)."""
    with mp.workdps(40):
        e0 = mp.mpf(eps0)
        di = mp.fsum(mp.binomial(k, l) * (mp.e ** ((k - l) * e0) - mp.e ** ((k - 2 * i + l) * e0))
                     for l in range(i))
        di /= (1 + mp.e ** e0) ** k
        base = 1 - (1 - mp.mpf(delta0)) ** k
        return base + (1 - base) * di


def product_pmfs(eps0: float, delta0: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k-fold product of the four-outcome pair of f_{eps0, delta0} (KOV's mechanism)."""
    s = 1.0 / (1.0 + math.exp(eps0))
    p1 = np.array([0.0, (1 - delta0) * s, (1 - delta0) * (1 - s), delta0])
    q1 = np.array([delta0, (1 - delta0) * (1 - s), (1 - delta0) * s, 0.0])
    p, q = p1, q1
    for _ in range(k - 1):
        p = np.outer(p, p1).ravel()
        q = np.outer(q, q1).ravel()
    return p, q


def hockey(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """sup_S Q(S) - e^eps P(S) for pmfs, directly."""
    return float(np.sum(np.maximum(q - math.exp(eps) * p, 0.0)))


# ---------------------------------------------------------------------------
# basic, advanced (DRV), Kairouz closed form
# ---------------------------------------------------------------------------
def test_basic_composition_sums_and_caps():
    assert gdp.basic_composition([0.5, 0.25], [1e-6, 0.0], k=[2, 4]) == (2.0, 2e-06)
    e, d = gdp.basic_composition(0.1, 0.3, k=5)
    assert_allclose(e, 0.5, rtol=1e-15)
    assert d == 1.0  # 1.5 capped


def test_basic_composition_errors():
    with pytest.raises(ValueError, match=r"`eps` must be a non-negative finite number \(every "
                                         r"entry\); got eps=-1.0"):
        gdp.basic_composition([0.1, -1.0], 0.0)
    with pytest.raises(ValueError, match=r"`eps`, `delta` and `k` must broadcast to one length; "
                                         r"got lengths 2, 3 and 1"):
        gdp.basic_composition([0.1, 0.2], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1; got k=0"):
        gdp.basic_composition(0.1, 0.0, k=0)


@pytest.mark.parametrize("eps0,k,slack", [(0.1, 100, 1e-5), (0.01, 10_000, 1e-8),
                                          (1.0, 3, 0.5)])
def test_advanced_composition_by_hand(eps0, k, slack):
    # Dwork-Roth Thm 3.20: eps' = eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1)
    want = eps0 * math.sqrt(2 * k * math.log(1 / slack)) + k * eps0 * (math.exp(eps0) - 1)
    e, d = gdp.advanced_composition(eps0, 1e-9, k, slack)
    assert_allclose(e, want, rtol=1e-13)
    assert_allclose(d, min(1.0, k * 1e-9 + slack), rtol=1e-14)
    # at the total delta the slack is recovered: same epsilon
    assert_allclose(gdp.advanced_epsilon(eps0, 1e-9, k, k * 1e-9 + slack), want, rtol=1e-9)


def test_advanced_heterogeneous_equals_homogeneous_when_equal():
    a = gdp.advanced_composition([0.2, 0.2, 0.2], [1e-7] * 3, [4, 3, 3], 1e-6)
    b = gdp.advanced_composition(0.2, 1e-7, 10, 1e-6)
    assert_allclose(a, b, rtol=1e-14)


def test_advanced_epsilon_delta_round_trip_and_edges():
    d = np.array([2e-4, 1e-3, 0.1])
    e = gdp.advanced_epsilon(0.1, 1e-6, 100, d)
    assert_allclose(gdp.advanced_delta(0.1, 1e-6, 100, e), d, rtol=1e-9)
    # no slack left: inf; all-zero eps: 0 once the delta_i are paid
    assert gdp.advanced_epsilon(0.1, 1e-6, 100, 1e-4) == math.inf
    assert gdp.advanced_epsilon(0.0, 1e-6, 100, 1e-4) == 0.0
    assert gdp.advanced_delta(0.1, 1e-6, 100, 0.5) == 1.0  # eps below the drift term


def test_advanced_errors():
    with pytest.raises(ValueError, match=r"`delta_slack` must be a number in \(0, 1\]; got "
                                         r"delta_slack=0.0"):
        gdp.advanced_composition(0.1, 0.0, 10, 0.0)


@pytest.mark.parametrize("eps0,k,slack", [(0.1, 100, 1e-5), (0.5, 20, 1e-6), (0.01, 5000, 1e-9)])
def test_kairouz_by_hand(eps0, k, slack):
    # KOV Thm 3.4: min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k log(e + sqrt(k eps^2)
    # / slack)), k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k log(1/slack))}
    drift = k * eps0 * (math.exp(eps0) - 1) / (math.exp(eps0) + 1)
    b2 = drift + eps0 * math.sqrt(2 * k * math.log(math.e + math.sqrt(k * eps0**2) / slack))
    b3 = drift + eps0 * math.sqrt(2 * k * math.log(1 / slack))
    want = min(k * eps0, b2, b3)
    e, d = gdp.kairouz_composition(eps0, 1e-7, k, slack)
    assert_allclose(e, want, rtol=1e-13)
    with mp.workdps(40):
        want_d = float(1 - (1 - mp.mpf(slack)) * (1 - mp.mpf(1e-7)) ** k)
    assert_allclose(d, want_d, rtol=1e-12)
    assert_allclose(gdp.kairouz_epsilon(eps0, 1e-7, k, d), want, rtol=1e-8)


def test_kairouz_delta_inverts_epsilon():
    d = np.array([1e-8, 1e-5, 1e-2])
    e = gdp.kairouz_epsilon([0.1, 0.3], [0.0, 1e-9], [50, 10], d)
    assert_allclose(gdp.kairouz_delta([0.1, 0.3], [0.0, 1e-9], [50, 10], e), d, rtol=1e-7)
    # beyond sum eps only the delta_i remain; below 1 - prod(1 - delta_i) it is impossible
    with mp.workdps(40):
        want = float(1 - (1 - mp.mpf(1e-6)) ** 10)
    assert_allclose(gdp.kairouz_delta(0.1, 1e-6, 10, 1.0), want, rtol=1e-12)
    assert gdp.kairouz_epsilon(0.1, 1e-6, 10, 5e-6) == math.inf


def test_kairouz_never_above_advanced_or_basic():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 5))
        eps = rng.uniform(0.01, 1.0, n)
        k = rng.integers(1, 200, n)
        total = float(10 ** rng.uniform(-9, -2))
        ka = gdp.kairouz_epsilon(eps, 0.0, k, total)
        assert ka <= gdp.advanced_epsilon(eps, 0.0, k, total) * (1 + 1e-12)
        assert ka <= gdp.basic_composition(eps, 0.0, k)[0] * (1 + 1e-12)


# ---------------------------------------------------------------------------
# optimal KOV composition
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("eps0,delta0,k", [(0.1, 0.0, 100), (0.5, 1e-6, 30), (1.0, 1e-3, 7),
                                           (0.02, 0.0, 2000)])
def test_kov_delta_against_mpmath_on_and_off_the_grid(eps0, delta0, k):
    # on KOV's grid eps = (k - 2i) eps0 (the theorem's delta_i) ...
    for i in [0, 1, k // 4, k // 2]:
        eps = (k - 2 * i) * eps0
        want = float(kov_delta_i(eps0, delta0, k, i))
        got = gdp.kov_delta(eps0, delta0, k, eps)
        assert want <= got <= want * (1 + 1e-8) + 1e-300  # sound and tight
    # ... and between the grid points (the binomial hockey-stick divergence)
    for eps in np.linspace(0.0, k * eps0 * 1.1, 9):
        want = float(mp_kov_delta(eps0, delta0, k, eps))
        got = gdp.kov_delta(eps0, delta0, k, eps)
        assert want <= got <= want * (1 + 1e-8) + 1e-300


def test_kov_delta_against_neyman_pearson_product():
    # exact composition of KOV's four-outcome mechanism by brute force (4^5 outcomes)
    for eps0, delta0 in [(0.3, 0.0), (0.7, 0.01)]:
        p, q = product_pmfs(eps0, delta0, 5)
        for eps in [0.0, 0.2, 0.6, 1.1, 2.0, 3.6]:
            want = hockey(p, q, eps)
            assert_allclose(gdp.kov_delta(eps0, delta0, 5, eps), want, rtol=1e-9, atol=1e-15)
            assert gdp.kov_delta(eps0, delta0, 5, eps) >= want * (1 - 1e-14)
    # and through the library's own Neyman-Pearson curve of two pmfs
    p, q = product_pmfs(0.4, 1e-3, 4)
    f = gdp.from_distributions(p, q)
    e = np.array([0.0, 0.5, 1.0, 1.5])
    assert_allclose(gdp.kov_delta(0.4, 1e-3, 4, e), f.delta(e), rtol=1e-9)


def test_kov_delta_large_k_log_space():
    # k = 10^4: direct evaluation would overflow (1 + e^eps0)^k; mpmath reference
    eps0, k = 0.01, 10_000
    for eps in [0.5, 2.0, 4.0]:
        want = float(mp_kov_delta(eps0, 0.0, k, eps, dps=30))
        got = gdp.kov_delta(eps0, 0.0, k, eps)
        assert want <= got <= want * (1 + 1e-8)
    assert gdp.kov_delta(eps0, 0.0, k, k * eps0) == 0.0
    # k = 10^6 stays finite and monotone
    e = np.array([1.0, 5.0, 10.0])
    d = gdp.kov_delta(0.001, 0.0, 10**6, e)
    assert np.all(np.isfinite(d)) and np.all(np.diff(d) < 0)


@pytest.mark.parametrize("eps0,delta0,k", [(0.1, 0.0, 100), (0.5, 1e-7, 40), (0.01, 0.0, 5000)])
def test_kov_epsilon_is_sound_and_minimal(eps0, delta0, k):
    targets = np.array([1e-10, 1e-6, 1e-3, 0.05])
    eps = gdp.kov_epsilon(eps0, delta0, k, targets)
    floor = 1 - (1 - delta0) ** k  # delta of the composition at eps = inf
    for e, t in zip(eps, targets, strict=True):
        if t < floor * (1 - 1e-12):
            assert e == math.inf
            continue
        assert float(mp_kov_delta(eps0, delta0, k, e, dps=30)) <= t  # sound
        assert gdp.kov_delta(eps0, delta0, k, e) <= t  # consistent with kov_delta
        if e > 0:
            assert float(mp_kov_delta(eps0, delta0, k, e * (1 - 1e-7), dps=30)) > t  # minimal


def test_kov_epsilon_edges():
    # pure DP, delta = 0: k eps0; below 1 - (1 - delta0)^k: impossible
    assert_allclose(gdp.kov_epsilon(0.1, 0.0, 10, 0.0), 1.0, rtol=1e-12)
    assert gdp.kov_epsilon(0.1, 1e-3, 10, 1e-3) == math.inf
    assert gdp.kov_epsilon(0.1, 0.0, 10, 1.0) == 0.0
    assert gdp.kov_epsilon(0.0, 0.0, 10, 1e-9) == 0.0
    with pytest.raises(ValueError, match=r"`eps0` must be a non-negative finite number; got "
                                         r"eps0=inf"):
        gdp.kov_epsilon(math.inf, 0.0, 10, 1e-5)
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1; got k=0"):
        gdp.kov_delta(0.1, 0.0, 0, 1.0)


@settings(max_examples=40, deadline=None)
@given(eps0=st.floats(0.001, 2.0), delta0=st.sampled_from([0.0, 1e-9, 1e-4]),
       k=st.integers(1, 400), eps=st.floats(0.0, 20.0))
def test_kov_laws(eps0, delta0, k, eps):
    d = gdp.kov_delta(eps0, delta0, k, eps)
    assert 0.0 <= d <= 1.0
    # more compositions never help; a larger eps never needs a larger delta
    assert gdp.kov_delta(eps0, delta0, k + 1, eps) >= d * (1 - 1e-12)
    assert gdp.kov_delta(eps0, delta0, k, eps + 0.1) <= d * (1 + 1e-12)
    # the smallest eps meeting delta(eps) is at most eps (given a hair more than the rounding
    # margin of kov_delta, which moves eps a lot where the profile is flat) ...
    if d < 1.0:
        assert gdp.kov_epsilon(eps0, delta0, k, min(1.0, d * (1 + 1e-9))) <= eps * (1 + 1e-12)
        # ... and what kov_epsilon returns meets the target by kov_delta's own account
        back = gdp.kov_epsilon(eps0, delta0, k, d)
        assert gdp.kov_delta(eps0, delta0, k, back) <= d


def test_ordering_exact_kov_below_every_bound():
    # homogeneous (eps0, delta0): optimal <= Kairouz <= DRV, optimal <= basic (when valid)
    for eps0, delta0, k, d in itertools.product([0.01, 0.1, 0.5], [0.0, 1e-8], [10, 100, 1000],
                                                [1e-7, 1e-5, 1e-3]):
        if k * delta0 >= d:
            continue
        kov = gdp.kov_epsilon(eps0, delta0, k, d)
        kai = gdp.kairouz_epsilon(eps0, delta0, k, d)
        drv = gdp.advanced_epsilon(eps0, delta0, k, d)
        assert kov <= kai * (1 + 1e-12)
        assert kai <= drv * (1 + 1e-12)
        assert kov <= k * eps0 * (1 + 1e-12)


def test_kov_against_numeric_engine():
    e = np.array([0.5, 1.0, 2.0, 4.0])
    got = np.asarray((gdp.f_eps_delta(0.2, 1e-6) ** 50).delta(e))
    want = gdp.kov_delta(0.2, 1e-6, 50, e)
    # the engine's sound answer may only be above the exact profile
    assert np.all(got >= want * (1 - 1e-9))
    assert_allclose(got, want, rtol=1e-3)


# ---------------------------------------------------------------------------
# Renyi DP
# ---------------------------------------------------------------------------
def test_rdp_gaussian_and_randomized_response_closed_forms():
    assert_allclose(gdp.rdp_gaussian(0.7, [2, 10]), [0.49, 2.45], rtol=1e-14)
    # RR: D_a(Q||P) over two outcomes, written out
    e = 0.8
    p = math.exp(e) / (1 + math.exp(e))
    for a in [2, 5, 40]:
        want = math.log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)
        assert_allclose(gdp.rdp_randomized_response(e, [a])[0], want, rtol=1e-13)
    # RDP of pure eps-DP never exceeds eps (Mironov Prop. 1)
    assert np.all(gdp.rdp_randomized_response(e) <= e * (1 + 1e-14))


def test_rdp_laplace_by_quadrature_and_dp_accounting():
    mu = 0.6
    for a in [2, 3, 7]:
        # D_a(Lap(mu,1) || Lap(0,1)) = log int q^a p^(1-a) / (a - 1), by scipy quad
        def integrand(x, a=a):
            return 0.5 * math.exp(-a * abs(x - mu) - (1 - a) * abs(x))

        val = sum(integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-13)[0]
                  for lo, hi in [(-np.inf, 0.0), (0.0, mu), (mu, np.inf)])
        assert_allclose(gdp.rdp_laplace(mu, [a])[0], math.log(val) / (a - 1), rtol=1e-10)
    acc = dp_accounting.rdp.RdpAccountant(orders=[2, 3, 7, 64])
    acc.compose(dp_accounting.LaplaceDpEvent(1.0 / mu))
    assert_allclose(gdp.rdp_laplace(mu, [2, 3, 7, 64]), acc.rdp, rtol=1e-12)


def test_rdp_sampled_gaussian_against_quadrature():
    # D_a(mix || N(0,1)) with mix = (1-p) N(0, s^2) + p N(1, s^2): mpmath quadrature
    sigma, p = 0.8, 0.05
    for a in [2, 5, 12]:
        with mp.workdps(30):
            s = mp.mpf(sigma)

            def ratio(x, s=s):
                return (1 - p) + p * mp.e ** ((2 * x - 1) / (2 * s**2))

            def integrand(x, a=a, s=s):
                return mp.npdf(x, 0, s) * ratio(x) ** a

            val = mp.quad(integrand, [-mp.inf, -5, 0, 5, 20, mp.inf])
            want = float(mp.log(val) / (a - 1))
        assert_allclose(gdp.rdp_sampled_gaussian(sigma, p, [a])[0], want, rtol=1e-10)
    # tiny values keep their relative accuracy (MTZ binomial sum at 40 digits)
    for a in [2, 8, 64]:
        with mp.workdps(40):
            q, s2 = mp.mpf(1e-4), 2 * mp.mpf(0.8) ** 2
            tot = mp.fsum(mp.binomial(a, j) * (1 - q) ** (a - j) * q**j
                          * mp.e ** ((j * j - j) / s2) for j in range(a + 1))
            want = float(mp.log(tot) / (a - 1))
        assert_allclose(gdp.rdp_sampled_gaussian(0.8, 1e-4, [a])[0], want, rtol=1e-13)
    # p = 1 is the Gaussian, p = 0 is nothing
    assert_allclose(gdp.rdp_sampled_gaussian(2.0, 1.0, [2, 9]), [0.25, 9 / 8], rtol=1e-13)
    assert np.all(gdp.rdp_sampled_gaussian(2.0, 0.0, [2, 9]) == 0.0)


@pytest.mark.parametrize("sigma,p", [(0.5, 0.5), (0.8, 1e-4), (1.0, 0.01), (2.0, 0.1),
                                     (5.0, 0.3)])
def test_rdp_sampled_gaussian_agrees_with_dp_accounting(sigma, p):
    orders = [2, 3, 4, 8, 16, 32, 64, 128, 256, 1024]
    acc = dp_accounting.rdp.RdpAccountant(orders=orders)
    acc.compose(dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma)))
    theirs = acc.rdp
    ours = gdp.rdp_sampled_gaussian(sigma, p, orders)
    assert_allclose(ours, theirs, rtol=1e-10)


def test_eps_from_rdp_never_below_dp_accounting_on_a_grid():
    worst = 0.0
    for sigma, p, steps, delta in itertools.product([0.5, 1.0, 2.0, 5.0], [1e-4, 0.01, 0.5],
                                                    [1, 100, 10_000], [1e-10, 1e-5, 1e-3]):
        rdp = steps * gdp.rdp_sampled_gaussian(sigma, p)
        ours = gdp.eps_from_rdp(rdp, delta)
        theirs, _ = rdp_acc.compute_epsilon(ORDERS, rdp, delta)
        assert ours >= theirs * (1 - 1e-12) - 1e-15
        worst = max(worst, abs(ours - theirs) / max(theirs, 1e-300))
        d_ours = gdp.delta_from_rdp(rdp, ours)
        d_theirs, _ = rdp_acc.compute_delta(ORDERS, rdp, ours)
        # their sqrt(1 - e^-r) term is computed as log1p(-exp(-r)), which loses ~1e-8
        # relative for r ~ 1e-10; ours uses expm1 (checked against mpmath below)
        assert d_ours >= d_theirs * (1 - 1e-7)
    assert worst < 1e-9
    r = np.full(ORDERS.size, 4.0810774182796494e-10)
    with mp.workdps(30):
        bh = float(mp.sqrt(1 - mp.e ** (-mp.mpf(4.0810774182796494e-10))))
    assert_allclose(gdp.delta_from_rdp(r, 0.0), bh, rtol=1e-14)
    # and the whole pipeline against the accountant with the same orders
    acc = dp_accounting.rdp.RdpAccountant(orders=list(ORDERS))
    event = dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0))
    acc.compose(event, 1000)
    ours = gdp.eps_from_rdp(1000 * gdp.rdp_sampled_gaussian(1.0, 0.01), 1e-5)
    assert_allclose(ours, acc.get_epsilon(1e-5), rtol=1e-9)
    assert ours >= acc.get_epsilon(1e-5) * (1 - 1e-12)


def test_rdp_conversions_are_valid_bounds_for_the_gaussian():
    # the exact eps of G_mu is below every RDP conversion (both are sound, RDP is looser)
    for mu, delta in itertools.product([0.1, 0.5, 1.0, 3.0], [1e-12, 1e-6, 1e-2]):
        r = gdp.rdp_gaussian(mu)
        exact = gdp.eps_from_mu(mu, delta)
        sharp = gdp.eps_from_rdp(r, delta)
        classical = gdp.eps_from_rdp(r, delta, conversion="classical")
        assert exact <= sharp <= classical * (1 + 1e-14)
        assert gdp.delta_from_rdp(r, exact) >= delta * (1 - 1e-9)


def test_eps_delta_from_rdp_edges_and_errors():
    r = gdp.rdp_gaussian(1.0)
    assert gdp.eps_from_rdp(r, 0.0) == math.inf
    assert gdp.eps_from_rdp(np.zeros(ORDERS.size), 0.0) == 0.0
    assert gdp.eps_from_rdp(r, 1.0) == 0.0
    assert gdp.delta_from_rdp(r, math.inf) == 0.0
    assert gdp.delta_from_rdp(r, 0.0) <= 1.0
    # TV <= sqrt(1 - exp(-KL)): tiny RDP with a large delta gives eps = 0
    assert gdp.eps_from_rdp(gdp.rdp_gaussian(1e-3), 0.1) == 0.0
    with pytest.raises(ValueError, match=r"`rdp` must have one value per order; got 2 values "
                                         r"for 3 orders"):
        gdp.eps_from_rdp([0.1, 0.2], 1e-5, orders=[2, 3, 4])
    with pytest.raises(ValueError, match=r"`conversion` must be one of \('sharp', "
                                         r"'classical'\); got conversion='best'"):
        gdp.eps_from_rdp(r, 1e-5, conversion="best")
    with pytest.raises(ValueError, match=r"`orders` must be integers >= 2 for this formula; got "
                                         r"orders=2.5$"):
        gdp.rdp_sampled_gaussian(1.0, 0.1, [2.5])
    with pytest.raises(ValueError, match=r"`orders` must be a number in \(1, inf\] \(every "
                                         r"entry\); got orders=1.0"):
        gdp.rdp_gaussian(1.0, [1.0, 2.0])


def test_rdp_of_dispatch():
    o = np.array([2.0, 5.0, 30.0])
    assert_allclose(gdp.rdp_of(gdp.G_mu(0.5), o), gdp.rdp_gaussian(0.5, o), rtol=0)
    assert_allclose(gdp.rdp_of(gdp.laplace(0.5), o), gdp.rdp_laplace(0.5, o), rtol=0)
    assert_allclose(gdp.rdp_of(gdp.f_eps_delta(0.5), o), gdp.rdp_randomized_response(0.5, o),
                    rtol=0)
    assert np.all(gdp.rdp_of(gdp.f_eps_delta(0.5, 1e-9), o) == np.inf)
    assert np.all(gdp.rdp_of(gdp.identity(), o) == 0)
    # atomic pair: both orders of the divergence, the smaller one (f-DP implies f^{-1}-DP)
    P = np.array([0.5, 0.3, 0.2])
    Q = np.array([0.2, 0.3, 0.5])
    Q2 = np.array([0.1, 0.2, 0.7])
    f = gdp.from_distributions(P, Q)
    want = np.log(np.sum(Q[None] ** o[:, None] * P[None] ** (1 - o[:, None]), 1)) / (o - 1)
    assert_allclose(gdp.rdp_of(f, o), want, rtol=1e-12)
    g = gdp.from_distributions(P, Q2)
    fwd = np.log(np.sum(Q2[None] ** o[:, None] * P[None] ** (1 - o[:, None]), 1)) / (o - 1)
    bwd = np.log(np.sum(P[None] ** o[:, None] * Q2[None] ** (1 - o[:, None]), 1)) / (o - 1)
    assert_allclose(gdp.rdp_of(g, o), np.minimum(fwd, bwd), rtol=1e-12)
    with pytest.raises(TypeError, match=r"`f` has no closed-form Rényi DP curve; got a "
                                        r"Callable1D"):
        gdp.rdp_of(gdp.from_callable(lambda a: (1 - a) ** 2), o)


# ---------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------
def test_compare_homogeneous_eps_delta_records():
    c = gdp.compare(gdp.f_eps_delta(0.1, 1e-7), k=100, delta=1e-4)
    assert [r.method for r in c] == list(gdp.METHODS)
    assert c["basic"].epsilon == pytest.approx(10.0, rel=1e-14)
    assert c["kov"].kind == "exact"
    assert_allclose(c["kov"].epsilon, gdp.kov_epsilon(0.1, 1e-7, 100, 1e-4), rtol=0)
    assert_allclose(c["advanced"].epsilon, gdp.advanced_epsilon(0.1, 1e-7, 100, 1e-4), rtol=0)
    assert_allclose(c["kairouz"].epsilon, gdp.kairouz_epsilon(0.1, 1e-7, 100, 1e-4), rtol=0)
    assert c["rdp"].kind == "skipped" and "RDP is infinite" in c["rdp"].notes
    assert all(r.delta == 1e-4 and r.solved == "epsilon" and r.k == 100 for r in c)
    for r in c:
        if r.kind in ("bound", "exact") and r.method != "kov":
            assert r.epsilon >= c["kov"].epsilon * (1 - 1e-12)


def test_compare_pure_dp_uses_rdp_of_randomized_response():
    c = gdp.compare(gdp.f_eps_delta(0.1), k=100, delta=1e-5, methods=["rdp", "kov"])
    want = gdp.eps_from_rdp(100 * gdp.rdp_randomized_response(0.1), 1e-5)
    assert_allclose(c["rdp"].epsilon, want, rtol=0)
    assert c["kov"].epsilon <= c["rdp"].epsilon


def test_compare_gaussian_every_bound_above_exact():
    mu, k, delta = 0.1, 100, 1e-5
    exact = gdp.eps_from_mu(mu * math.sqrt(k), delta)  # G_mu^k = G_{sqrt(k) mu}
    c = gdp.compare(gdp.G_mu(mu), k=k, delta=delta, eps=1.0)
    eps_rows = [r for r in c if r.solved == "epsilon"]
    del_rows = [r for r in c if r.solved == "delta"]
    assert_allclose(c["exact"].epsilon, exact, rtol=1e-12)
    for r in eps_rows:
        if r.kind == "bound":
            assert r.epsilon >= exact * (1 - 1e-12), r.method
    d_exact = gdp.delta_from_mu(mu * math.sqrt(k), 1.0)
    for r in del_rows:
        if r.kind == "bound":
            assert r.delta >= d_exact * (1 - 1e-12), r.method
    # the RDP row is exactly the Gaussian RDP of mu_total
    assert_allclose(c["rdp"].epsilon, gdp.eps_from_rdp(gdp.rdp_gaussian(1.0), delta), rtol=1e-12)


def test_compare_heterogeneous_skips_kov_and_notes_why():
    c = gdp.compare([gdp.G_mu(0.2), (gdp.laplace(0.1), 3)], k=10, delta=1e-6)
    assert c["kov"].kind == "skipped"
    assert c["kov"].notes.startswith("needs one mechanism used k times")
    assert c["kov"].epsilon is None
    assert c["basic"].k == 40
    # the RDP row adds the two closed forms
    r = 10 * gdp.rdp_gaussian(0.2) + 30 * gdp.rdp_laplace(0.1)
    assert_allclose(c["rdp"].epsilon, gdp.eps_from_rdp(r, 1e-6), rtol=1e-12)
    # every classical bound is above the RDP-free exact value only through validity: check it
    # against the exact Gaussian part alone (a sub-composition is more private)
    lower = gdp.eps_from_mu(0.2 * math.sqrt(10), 1e-6)
    for m in ("basic", "advanced", "kairouz", "rdp"):
        assert c[m].epsilon >= lower


def test_compare_dpsgd_rdp_row_and_input_unchanged():
    spec = {"sigma": 1.0, "p": 0.01, "steps": 1000}
    before = dict(spec)
    c = gdp.compare(dpsgd=spec, delta=1e-5, methods=["rdp"])
    assert spec == before
    want = gdp.eps_from_rdp(1000 * gdp.rdp_sampled_gaussian(1.0, 0.01), 1e-5)
    assert_allclose(c["rdp"].epsilon, want, rtol=0)
    assert c.description == "DP-SGD: sigma=1, p=0.01, steps=1000; ε at δ=1e-05"


def test_compare_dpsgd_phases_add_up():
    phases = [dict(sigma=1.0, p=0.01, steps=500), dict(sigma=2.0, p=0.02, steps=300),
              dict(sigma=1.0, p=0.01, steps=500)]
    c = gdp.compare(dpsgd=phases, delta=1e-5, methods=["rdp"])
    r = 1000 * gdp.rdp_sampled_gaussian(1.0, 0.01) + 300 * gdp.rdp_sampled_gaussian(2.0, 0.02)
    assert_allclose(c["rdp"].epsilon, gdp.eps_from_rdp(r, 1e-5), rtol=1e-12)
    assert c["rdp"].k == 1300
    assert c.description.startswith("DP-SGD: sigma=1, p=0.01, steps=1000; sigma=2, p=0.02, "
                                    "steps=300")
    with pytest.raises(ValueError, match=r"`dpsgd` must hold at least one phase; got an empty "
                                         r"list"):
        gdp.compare(dpsgd=[], delta=1e-5)
    with pytest.raises(TypeError, match=r"`dpsgd` must be a mapping with keys sigma, p, steps "
                                        r"\(or a list of them, one per phase\); got dpsgd=3"):
        gdp.compare(dpsgd=3, delta=1e-5)


def test_compare_dpsgd_exact_row_and_bounds_above_it():
    c = gdp.compare(dpsgd=dict(sigma=1.0, p=0.01, steps=1000), delta=1e-5)
    ex = c["exact"]
    lo, hi = ex.interval
    assert ex.kind == "exact" and lo <= ex.epsilon == hi
    # every valid bound is above the truth, hence above the exact lower bound
    for m in ("basic", "advanced", "kairouz", "kov", "rdp"):
        assert c[m].kind == "bound" and c[m].epsilon >= lo, m
    assert ex.epsilon <= c["rdp"].epsilon


def test_compare_exact_row_uses_the_requested_accuracy():
    mech = [gdp.G_mu(0.2), (gdp.laplace(0.1), 3)]
    coarse = gdp.compare(mech, k=5, delta=1e-6, methods=["exact"])["exact"]
    assert coarse.kind == "exact", coarse.notes
    fine = gdp.compare(mech, k=5, delta=1e-6, methods=["exact"],
                       accuracy={"rtol": 1e-5})["exact"]
    assert fine.interval[1] - fine.interval[0] <= coarse.interval[1] - coarse.interval[0]
    # both brackets hold the truth, so they overlap
    assert fine.interval[0] <= coarse.interval[1] and coarse.interval[0] <= fine.interval[1]
    with pytest.raises(TypeError, match=r"`accuracy` must be a dict of numeric-engine keywords"):
        gdp.compare(mech, delta=1e-6, accuracy=1e-5)


def test_compare_clt_row_is_an_approximation():
    c = gdp.compare(gdp.laplace(0.3), k=50, delta=1e-6, methods=["clt", "rdp"])
    assert c["clt"].kind in ("approximation", "skipped")
    if c["clt"].kind == "approximation":
        assert "may under-state" in c["clt"].notes


def test_compare_formats():
    c = gdp.compare(gdp.f_eps_delta(0.1), k=100, delta=1e-5, methods=["basic", "kov"])
    text = c.to_text()
    lines = text.splitlines()
    assert lines[0] == "Composition of f_eps_delta(eps=0.1, delta=0.0)^100; ε at δ=1e-05"
    assert lines[1].split() == ["method", "kind", "epsilon", "delta", "bracket", "notes"]
    assert lines[3].split()[:5] == ["Basic", "composition", "bound", "10", "1e-05"]
    assert str(c) == text
    md = c.to_markdown(digits=4).splitlines()
    assert md[0] == "| Method | Kind | ε | δ | Bracket | Notes |"
    assert md[3] == ("| Optimal (KOV 2015, Thm 3.3) | exact | 4.307 | 1e-05 |  | exact "
                     "profile of f_{ε0,δ0}^{⊗k} |")
    tex = c.to_latex(notes=False).splitlines()
    assert tex[0] == r"\begin{tabular}{llrrl}"
    assert tex[4] == r"Basic composition & bound & 10 & $10^{-5}$ &  \\"
    assert tex[-1] == r"\end{tabular}"
    assert c._repr_markdown_().startswith("*Composition of")
    rec = c.to_records()[0]
    assert set(rec) == {"method", "label", "kind", "epsilon", "delta", "solved", "k",
                        "interval", "notes"}
    with pytest.raises(KeyError, match="no record for method 'rdp'"):
        c["rdp"]


def test_compare_errors():
    f = gdp.G_mu(1.0)
    with pytest.raises(TypeError, match=r"give `delta` \(to compute ε\) and/or `eps`"):
        gdp.compare(f, k=3)
    with pytest.raises(TypeError, match=r"pass either `mechanisms` or `dpsgd`, not both"):
        gdp.compare(f, dpsgd={"sigma": 1.0, "p": 0.1, "steps": 3}, delta=1e-5)
    with pytest.raises(ValueError, match=r"`methods` entries must be among \['basic', "):
        gdp.compare(f, delta=1e-5, methods=["moments"])
    with pytest.raises(ValueError, match=r"`dpsgd` must have exactly the keys sigma, p and "
                                         r"steps; got keys \['p', 'sigma'\]"):
        gdp.compare(dpsgd={"sigma": 1.0, "p": 0.1}, delta=1e-5)
    with pytest.raises(TypeError, match=r"`mechanisms\[1\]` must be a TradeOff or a "
                                        r"\(TradeOff, count\) pair; got 3"):
        gdp.compare([f, 3], delta=1e-5)
    with pytest.raises(ValueError, match=r"`delta` must be a number in \[0, 1\]; got delta=2.0"):
        gdp.compare(f, delta=2.0)


def test_grid_min_finds_the_minimum_of_a_valid_family():
    # every grid value is a valid bound; the search should get close to the true minimum
    val = _grid_min(lambda x: (np.log(x) - 1.0) ** 2 + 3.0, 1e-3, 1e3)
    assert 3.0 <= val <= 3.0 + 1e-4


# ---------------------------------------------------------------------------
# epsilon versus k
# ---------------------------------------------------------------------------
def test_epsilon_vs_k_matches_compare_and_plots():
    ks = [1, 10, 100, 1000]
    cur = gdp.epsilon_vs_k(gdp.f_eps_delta(0.05), ks, delta=1e-6,
                           methods=["basic", "advanced", "kov", "rdp"])
    assert cur.k.tolist() == ks
    assert_allclose(cur.columns["basic"], 0.05 * np.array(ks), rtol=1e-14)
    for i, kv in enumerate(ks):
        assert_allclose(cur.columns["kov"][i], gdp.kov_epsilon(0.05, 0.0, kv, 1e-6), rtol=0)
    assert np.all(np.diff(cur.columns["kov"]) > 0)
    assert np.all(cur.columns["kov"] <= cur.columns["rdp"] * (1 + 1e-12))
    assert cur.kinds["kov"] == "exact"
    with pytest.raises(ValueError, match="read-only"):
        cur.columns["kov"][0] = 0.0
    d = cur.to_dict()
    assert list(d) == ["k", "basic", "advanced", "kov", "rdp"]
    recs = cur.to_records()
    assert len(recs) == 16 and recs[0] == {"k": 1, "method": "basic", "epsilon": 0.05,
                                           "kind": "bound"}
    from gdp.plot.comparison import compare_data

    data = compare_data(cur)
    assert_allclose(data.columns["kov"], cur.columns["kov"], rtol=0)


def test_epsilon_vs_k_dpsgd_and_errors():
    cur = gdp.epsilon_vs_k(ks=[10, 100], delta=1e-5, dpsgd={"sigma": 1.0, "p": 0.05},
                           methods=["rdp"])
    want = [gdp.eps_from_rdp(k * gdp.rdp_sampled_gaussian(1.0, 0.05), 1e-5) for k in (10, 100)]
    assert_allclose(cur.columns["rdp"], want, rtol=0)
    with pytest.raises(ValueError, match=r"`dpsgd` for epsilon_vs_k must have exactly the keys "
                                         r"sigma and p"):
        gdp.epsilon_vs_k(ks=[1], delta=1e-5, dpsgd={"sigma": 1.0, "p": 0.1, "steps": 3})
    with pytest.raises(TypeError, match=r"`ks` \(the numbers of compositions\) is required"):
        gdp.epsilon_vs_k(gdp.G_mu(1.0), delta=1e-5)
    with pytest.raises(ValueError, match=r"`ks` must be an integer; got ks=1.5"):
        gdp.epsilon_vs_k(gdp.G_mu(1.0), [1.5], delta=1e-5)
