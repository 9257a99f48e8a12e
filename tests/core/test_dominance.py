"""A ``True`` from ``dominates`` is a proof: checked against exact values (mpmath, fractions).

Each test draws pairs near the boundary (a δ at the exact profile value times 1 ± tiny, δ
far below the old absolute slack of 1e-15, δ = 0) and demands that every certificate holds
for the exact curves; the checks are necessary conditions of ``other <= self`` evaluated in
50-digit arithmetic, so a false certificate fails them.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdp

mp.mp.dps = 50


def _delta_gauss(mu, eps):
    """Exact δ(ε; μ) of G_μ (DRS Cor. 2.13) in 50 digits."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    if mu == 0:
        return mp.mpf(0)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def _delta_rr(eps, delta, t):
    """Exact one-order profile of f_{ε,δ} at t ≥ 0 (for t ≥ ε it is δ)."""
    eps, delta, t = mp.mpf(eps), mp.mpf(delta), mp.mpf(t)
    if t >= eps:
        return delta
    return delta + (1 - delta) * (1 - mp.exp(t - eps)) / (1 + mp.exp(-eps))


def _omf_exact_eps_delta(eps, delta, a):
    """Exact 1 - f_{ε,δ}(a)."""
    eps, delta, a = mp.mpf(eps), mp.mpf(delta), mp.mpf(a)
    return min(mp.mpf(1), delta + mp.exp(eps) * a, 1 - mp.exp(-eps) * (1 - delta - a))


def test_the_reproducer_of_the_issue():
    # G_1 is (9, 9.8e-19)-DP, not (9, 0)-DP: the old absolute slack of 1e-15 certified it
    assert not gdp.G_mu(1.0).dominates(gdp.f_eps_delta(9.0))
    d = float(_delta_gauss(1.0, 9.0))
    assert not gdp.G_mu(1.0).dominates(gdp.f_eps_delta(9.0, d * (1 - 1e-9)))
    assert gdp.G_mu(1.0).dominates(gdp.f_eps_delta(9.0, d * (1 + 1e-9)))


@settings(max_examples=300, deadline=None)
@given(st.floats(0.05, 6.0), st.floats(0.0, 40.0), st.sampled_from([-1e-6, -1e-12, 0.0,
                                                                       1e-12, 1e-6, -1.0]))
def test_gaussian_against_eps_delta_is_never_a_false_certificate(mu, eps, rel):
    exact = _delta_gauss(mu, eps)
    d = float(exact * (1 + rel))  # around the boundary; rel = -1 is delta = 0
    if gdp.G_mu(mu).dominates(gdp.f_eps_delta(eps, d)):
        assert exact <= mp.mpf(d)  # the certificate holds for the exact curves


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 5.0), st.floats(0.0, 0.2), st.floats(0.0, 5.0),
       st.sampled_from([-1e-9, -1e-15, 0.0, 1e-15, 1e-9]))
def test_eps_delta_pairs_are_never_a_false_certificate(e1, d1, e2, rel):
    exact = _delta_rr(e1, d1, e2)
    d2 = min(1.0, float(exact * (1 + rel)))
    if gdp.f_eps_delta(e1, d1).dominates(gdp.f_eps_delta(e2, d2)):
        assert exact <= mp.mpf(d2)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 3.0), st.sampled_from([-1e-9, 0.0, 1e-9]))
def test_piecewise_against_eps_delta_is_never_a_false_certificate(seed, eps, rel):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    f = gdp.from_distributions(rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n)))
    a, o = f._pl_data()
    # the delta at which f_{eps,delta} touches f: the largest o - e^eps a over the vertices
    need = max(mp.mpf(oi) - mp.exp(eps) * mp.mpf(ai) for ai, oi in zip(a, o, strict=True))
    d = float(min(max(need * (1 + rel), 0), 1))
    g = gdp.f_eps_delta(eps, d)
    if f.dominates(g):
        for ai, oi in zip(a, o, strict=True):
            assert mp.mpf(oi) <= _omf_exact_eps_delta(eps, d, ai)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 3.0), st.floats(0.05, 3.0))
def test_laplace_against_gaussian_is_never_a_false_certificate(m_lap, m_gauss):
    if gdp.laplace(m_lap).dominates(gdp.G_mu(m_gauss)):
        # necessary: delta_Lap(t) <= delta_G(t) for t >= 0 (both symmetric)
        for t in np.linspace(0.0, m_lap, 41):
            lap = -mp.expm1((mp.mpf(t) - mp.mpf(m_lap)) / 2)
            assert lap <= _delta_gauss(m_gauss, t)


def test_random_checks_against_eps_delta_give_no_false_certificates():
    # the red-team check of the issue: random G_mu against f_eps_delta near the boundary,
    # tiny deltas included
    rng = np.random.default_rng(11)
    false = 0
    for _ in range(50):
        mu, eps = rng.uniform(0.1, 3.0), rng.uniform(0.0, 30.0)
        exact = _delta_gauss(mu, eps)
        d = float(exact * (1 - 10.0 ** rng.uniform(-15, -3)))
        false += bool(gdp.G_mu(mu).dominates(gdp.f_eps_delta(eps, d)))
    assert false == 0


def test_structural_certificates():
    f = gdp.from_distributions([0.2, 0.5, 0.3], [0.5, 0.1, 0.4])
    assert f.dominates(f) and f.inverse().dominates(f.inverse())  # identical vertex data
    assert f.symmetrize().dominates(f) and f.symmetrize().dominates(f.inverse())
    assert gdp.identity().dominates(f) and not f.dominates(gdp.identity())
    assert gdp.f_eps_delta(0.5).group(3).dominates(gdp.f_eps_delta(1.5))
    assert not gdp.f_eps_delta(0.5).group(3).dominates(gdp.f_eps_delta(1.4))


def test_a_granted_tolerance_is_explicit():
    G = gdp.G_mu(1.0)
    x = np.linspace(0, 1, 51)
    chords = gdp.from_curve(x, G(x))  # touches G_1 at the vertices (from below, rounded)
    assert not chords.dominates(G)
    assert chords.dominates(G, rtol=1e-12)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_laplace_dominates_gaussians_it_should(mu):
    # laplace(mu) >= G_m iff delta_Lap <= delta_G; for m a bit above the smallest such m
    m = {0.5: 0.6, 1.0: 1.2, 2.0: 2.3}[mu]
    assert gdp.laplace(mu).dominates(gdp.G_mu(m))
    assert not gdp.G_mu(m).dominates(gdp.laplace(mu))  # G never dominates a bounded loss
    assert math.isfinite(m)
