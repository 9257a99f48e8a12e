"""Property tests (hypothesis): the algebraic laws every TradeOff obeys."""

import math

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import gdp

GRID = np.concatenate([np.linspace(0, 1, 1001), np.geomspace(1e-12, 1e-3, 20),
                       1 - np.geomspace(1e-12, 1e-3, 20)])
EPS = np.array([0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 40.0])

mus = st.floats(min_value=0.0, max_value=10.0)
epsilons = st.floats(min_value=0.0, max_value=20.0)
deltas = st.one_of(st.just(0.0), st.floats(min_value=1e-300, max_value=1.0))
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _random_convex_curve(seed: int) -> gdp.TradeOff:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    dx = rng.dirichlet(np.ones(n))
    slopes = -np.sort(np.exp(rng.normal(0.0, 1.5, n)))[::-1]  # steepest first
    b0 = float(np.sum(-slopes * dx))
    scale = min(1.0, rng.uniform(0.2, 1.0) / b0)
    alpha = np.concatenate([[0.0], np.cumsum(dx)])
    beta = np.concatenate([[0.0], np.cumsum((-slopes * dx * scale)[::-1])])[::-1]
    alpha[-1] = 1.0
    return gdp.from_curve(alpha, np.clip(beta, 0.0, 1.0 - alpha))


def _random_pmfs(seed: int) -> gdp.TradeOff:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    p, q = rng.dirichlet(np.ones(n) * 0.6), rng.dirichlet(np.ones(n) * 0.6)
    if n > 1 and rng.random() < 0.3:
        p[0] = 0.0
        p /= p.sum()
    return gdp.from_distributions(p, q)


def _random_profile(seed: int) -> gdp.TradeOff:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    return gdp.from_privacy_profile(rng.exponential(2.0, n), rng.uniform(0, 0.5, n) ** 4)


curves = st.one_of(
    mus.map(gdp.G_mu),
    st.builds(gdp.f_eps_delta, epsilons, deltas),
    mus.map(gdp.laplace),
    seeds.map(_random_convex_curve),
    seeds.map(_random_pmfs),
    seeds.map(_random_profile),
)


def _assert_valid(f, tol=1e-12):
    v = f(GRID)
    order = np.argsort(GRID)
    a, v = GRID[order], v[order]
    assert np.all(np.isfinite(v))
    assert np.all((v >= 0) & (v <= 1 - a + 1e-15))
    assert np.all(np.diff(v) <= tol)  # non-increasing
    # convex: the curve lies below every chord between grid points three apart
    lin = np.linspace(0, 1, 1001)
    w = f(lin)
    assert np.all(np.diff(w, 2) >= -1e-9)
    assert f(0.0) <= 1.0 and f(1.0) == 0.0


@given(curves)
def test_every_constructed_curve_is_a_tradeoff_function(f):
    _assert_valid(f)


@given(curves)
def test_inverse_of_inverse_is_f(f):
    a = np.linspace(0, 1, 501)
    assert_allclose(f.inverse().inverse()(a), f(a), atol=1e-12)
    _assert_valid(f.inverse())


@given(curves)
def test_symmetrize_is_above_and_symmetric(f):
    s = f.symmetrize()
    a = np.linspace(0, 1, 501)
    assert np.all(s(a) >= f(a) - 1e-15)
    assert s.is_symmetric
    assert_allclose(s.inverse()(a), s(a), atol=1e-15)
    assert_allclose(gdp.core.Inverse(s)(a), s(a), atol=1e-10)


@given(curves)
def test_group_one_is_f(f):
    assert f.group(1) is f
    a = np.linspace(0, 1, 201)
    assert_allclose(gdp.core.Group(f, 1)(a), f(a), atol=1e-14)  # 1 - (1 - f) rounds


@given(curves)
def test_delta_is_a_non_increasing_probability(f):
    d = f.delta(EPS)
    assert np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-15)
    assert f.delta(np.inf) <= d[-1] + 1e-15


@given(curves, st.floats(min_value=0.0, max_value=8.0))
def test_epsilon_delta_round_trip(f, eps):
    d = float(f.delta(eps))
    e2 = float(f.epsilon(d))
    if math.isinf(e2):  # only when delta(eps) underflowed to 0 and no eps reaches 0
        assert d == 0.0 and float(f.delta(np.inf)) == 0.0 or float(f.delta(np.inf)) > d
        return
    # eps itself achieves d (slack: where delta is flat, the inversion is ill-conditioned)
    assert e2 <= eps * (1 + 1e-6) + 1e-9
    assert f.delta(e2) <= d  # the answer is sound
    # where the profile strictly decreases at eps, the round trip is exact
    below = eps * (1 - 1e-6) - 1e-9
    if below > 0 and float(f.delta(below)) > d * (1 + 1e-12) + 1e-300:
        assert e2 >= below


@given(st.floats(min_value=0.05, max_value=5.0), st.floats(min_value=0.0, max_value=10.0))
def test_gaussian_round_trip(mu, eps):
    f = gdp.G_mu(mu)
    d = float(f.delta(eps))
    assume(1e-300 < d < 0.99)  # well-conditioned: delta neither underflows nor near 1
    assert_allclose(f.epsilon(d), eps, rtol=1e-8, atol=1e-9)


@given(st.floats(min_value=0.01, max_value=20.0), st.floats(min_value=0.0, max_value=1.0))
def test_laplace_round_trip(mu, frac):
    f = gdp.laplace(mu)
    eps = frac * mu * 0.999
    assert_allclose(f.epsilon(f.delta(eps)), eps, rtol=1e-10, atol=1e-12)


@given(epsilons, deltas, epsilons, deltas)
def test_eps_delta_dominance_matches_profiles(e1, d1, e2, d2):
    f, g = gdp.f_eps_delta(e1, d1), gdp.f_eps_delta(e2, d2)
    # f >= g iff f lies above g's line 1 - d2 - e^{e2} a, i.e. delta_f(e2) <= d2 (the
    # exact rule compares the closed forms without slack)
    assert f.dominates(g) == bool(f.delta(e2) <= d2)
    if f.dominates(g):
        a = np.linspace(0, 1, 2001)
        assert np.all(g(a) <= f(a) + 1e-12)


@given(seeds)
def test_pmf_inverse_is_the_swapped_pair(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    p, q = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    a = np.linspace(0, 1, 301)
    assert_allclose(gdp.from_distributions(p, q).inverse()(a),
                    gdp.from_distributions(q, p)(a), atol=1e-13)


@given(seeds)
def test_pmf_delta_never_below_a_brute_force_sup(seed):
    f = _random_pmfs(seed)
    x = np.linspace(0, 1, 4001)
    fs = np.maximum(f(x), f.inverse()(x))
    e = EPS[:6]
    brute = np.max(1 - np.exp(e)[:, None] * x[None, :] - fs[None, :], axis=1)
    assert np.all(f.delta(e) >= brute - 1e-15)
    assert math.isfinite(float(f.epsilon(1e-3))) or float(f.delta(np.inf)) > 1e-3
