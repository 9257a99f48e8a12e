"""Tests for gdp.laplace: T(Lap(0,1), Lap(mu,1)) in closed form, against quadrature."""

import math

import mpmath
import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import gdp
from gdp.core.generic import _generic_epsilon, _numeric_loss_sf
from gdp.core.tradeoff import Group

mpmath.mp.dps = 30


def _p(x):
    return mpmath.exp(-abs(x)) / 2  # Lap(0, 1) density


def _q(x, mu):
    return mpmath.exp(-abs(x - mu)) / 2  # Lap(mu, 1) density


def _mp_np_point(mu, t):
    # reference by quadrature: the Neyman-Pearson test "reject when L > t" with
    # L(x) = |x| - |x - mu| rejects x > (t + mu)/2 for t in (-mu, mu):
    # alpha = P[X > c], beta = Q[X <= c]
    c = (mpmath.mpf(t) + mu) / 2
    alpha = mpmath.quad(_p, [c, mu, mpmath.inf]) if c < mu else mpmath.quad(_p, [c, mpmath.inf])
    beta = mpmath.quad(lambda x: _q(x, mu), [-mpmath.inf, 0, c])
    return float(alpha), float(beta)


def _mp_profile(mu, eps):
    # reference by quadrature: hockey-stick divergence int (q - e^eps p)_+ dx; the
    # integrand is positive exactly where L(x) > eps, i.e. x > (eps + mu)/2 when |eps|<mu
    mu = mpmath.mpf(mu)
    e = mpmath.exp(eps)

    def h(x):
        return max(_q(x, mu) - e * _p(x), 0)

    pts = sorted({-mpmath.inf, 0, mu, (eps + mu) / 2, mpmath.inf})
    return float(mpmath.quad(h, pts))


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_curve_against_quadrature(mu):
    f = gdp.laplace(mu)
    for t in np.linspace(-mu * 0.95, mu * 0.95, 9):
        alpha, beta = _mp_np_point(mu, t)
        assert_allclose(f(alpha), beta, rtol=1e-12)
        assert_allclose(f.one_minus(alpha), 1 - beta, rtol=1e-12)
    # the linear ends come from randomising inside the atoms at L = +-mu
    a = np.array([0.0, 0.25 * math.exp(-mu), 0.6, 0.9])
    ref = [1.0, 1 - math.exp(mu) * a[1], math.exp(-mu) * 0.4, math.exp(-mu) * 0.1]
    assert_allclose(f(a), ref, rtol=1e-14)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_profile_against_quadrature(mu):
    f = gdp.laplace(mu)
    for eps in [-3.0, -mu, -0.2, 0.0, 0.1, mu / 2, mu * 0.99]:
        assert_allclose(f.hockey_stick(eps), _mp_profile(mu, eps), rtol=1e-10)
    # the closed form 1 - e^{(eps - mu)/2} on [0, mu), 0 beyond
    e = np.linspace(0, mu, 7)[:-1]
    assert_allclose(f.delta(e), 1 - np.exp((e - mu) / 2), rtol=1e-14)
    assert f.delta(mu) == 0.0 and f.delta(mu + 1) == 0.0 and f.delta(np.inf) == 0.0


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_loss_law_against_quadrature(mu):
    f = gdp.laplace(mu)
    for t in [-mu * 0.9, -0.1, 0.0, mu * 0.5]:
        c = (t + mu) / 2
        p_tail = float(mpmath.quad(_p, [c, max(c, mu), mpmath.inf]))
        q_tail = float(mpmath.quad(lambda x, m=mu: _q(x, m), [c, mu, mpmath.inf]))
        assert_allclose(f._loss_sf(np.array([t]))[0], p_tail, rtol=1e-12)
        assert_allclose(f._loss_sf_q(np.array([t]))[0], q_tail, rtol=1e-12)
    # atoms: P[L = -mu] = 1/2, P[L = mu] = e^-mu / 2
    assert f._loss_sf(np.array([-mu - 1e-9]))[0] == 1.0
    assert_allclose(f._loss_sf(np.array([-mu]))[0], 0.5, rtol=1e-15)
    assert_allclose(f._loss_sf(np.array([mu - 1e-12]))[0], math.exp(-mu) / 2, rtol=1e-10)
    assert f._loss_sf(np.array([mu]))[0] == 0.0
    t = np.linspace(-mu * 0.9, mu * 0.9, 7)
    assert_allclose(_numeric_loss_sf(f, t), f._loss_sf(t), rtol=1e-6)


@pytest.mark.parametrize("mu", [1e-8, 0.2, 1.0, 5.0, 50.0])
def test_hockey_closed_form_vs_generic_numeric(mu, closed_hockey_vs_numeric):
    t = np.concatenate([-np.geomspace(1e-3, 60, 15), [0.0], np.geomspace(1e-3, 60, 30)])
    closed_hockey_vs_numeric(gdp.laplace(mu), t, below=4e-16, rtol=1e-10)


def test_hockey_vs_brute_force_maximisation():
    mu = 1.3
    f = gdp.laplace(mu)
    x = np.concatenate([np.linspace(0, 1, 400001), np.geomspace(1e-9, 0.5, 20000)])
    fx = f(x)
    for t in [-2.0, -1.3, -0.5, 0.0, 0.5, 1.2, 1.3, 2.0]:
        brute = np.max(1.0 - np.exp(t) * x - fx)  # a lower bound on the sup
        assert f.hockey_stick(t) >= brute - 1e-15
        assert_allclose(f.hockey_stick(t), brute, rtol=1e-8, atol=1e-15)


@pytest.mark.parametrize("mu", [0.0, 1e-8, 0.5, 3.0, 60.0])
def test_epsilon_closed_form(mu):
    f = gdp.laplace(mu)
    d = np.array([0.0, 1e-12, 1e-5, 0.01, 0.2, 0.9, 1.0])
    got = f.epsilon(d)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf, clipped at 0
        closed = np.maximum(mu + 2 * np.log1p(-d), 0.0)
    assert_allclose(got, closed, rtol=1e-13, atol=1e-15)
    ref = _generic_epsilon(lambda e: f._hockey(np.asarray(e, float)), d)
    assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    assert np.all(f.delta(got) <= d)  # the sound side
    pos = got > 0
    assert np.all(f.delta(got[pos] * (1 - 1e-9)) > d[pos])


def test_round_trip():
    f = gdp.laplace(2.0)
    e = np.linspace(0.0, 1.99, 40)
    assert_allclose(f.epsilon(f.delta(e)), e, rtol=1e-10, atol=1e-14)


def test_extreme_parameters_are_finite_and_correct():
    # mu = 1e-8: nearly the identity; the profile (mu - eps)/2 survives via expm1
    f = gdp.laplace(1e-8)
    assert_allclose(f.delta(0.0), -math.expm1(-0.5e-8), rtol=1e-14)
    assert_allclose(f(0.3), 1 - 0.3 * math.exp(1e-8), rtol=1e-15)
    # mu = 50 at alpha = 1e-15 (middle branch), reference e^-50 / (4 alpha)
    g = gdp.laplace(50.0)
    assert_allclose(g(1e-15), math.exp(-50) / 4e-15, rtol=1e-14)
    assert_allclose(g(1e-25), 1 - math.exp(50) * 1e-25, rtol=1e-15)
    assert_allclose(g.one_minus(1e-25), math.exp(50) * 1e-25, rtol=1e-14)
    assert_allclose(g.delta(10.0), -math.expm1(-20.0), rtol=1e-15)
    assert g.epsilon(1e-300) == 50.0  # mu + 2 log1p(-1e-300) rounds to mu
    # mu = 800: e^-mu underflows, the answers stay finite (regression: f(0) was NaN)
    h = gdp.laplace(800.0)
    a = np.array([0.0, 1e-320, 1e-300, 1e-15, 0.5, 1.0])
    v = h(a)
    assert np.all(np.isfinite(v)) and v[0] == 1.0 and v[-1] == 0.0
    assert np.all(np.isfinite(h.one_minus(a)))
    assert h.delta(500.0) == -math.expm1(-150.0)
    e = h.epsilon(0.5)  # mu + 2 log(1 - delta), nudged up by rounding if need be
    assert e >= 800.0 + 2 * math.log(0.5)
    assert_allclose(e, 800.0 + 2 * math.log(0.5), rtol=1e-15)
    assert h.delta(e) <= 0.5


def test_infinite_mu():
    f = gdp.laplace(np.inf)
    assert f(0.0) == 0.0 and f(0.3) == 0.0
    assert f.delta(3.0) == 1.0
    assert f.delta(np.inf) == 1.0  # regression: was 0 (Q[L = +inf] = 1 here)
    assert f.epsilon(0.5) == math.inf and f.epsilon(1.0) == 0.0
    assert f._loss_sf_q(np.array([0.0]))[0] == 1.0


def test_mu_zero_is_identity():
    f = gdp.laplace(0.0)
    a = np.linspace(0, 1, 101)
    assert_allclose(f(a), 1 - a, rtol=1e-15, atol=1e-16)
    assert f.delta(0.0) == 0.0 and f.epsilon(0.0) == 0.0


def test_against_from_distributions():
    # numeric T(P, Q) of two scipy Laplace laws brackets the closed form
    for mu in [0.5, 2.0]:
        h = gdp.from_distributions(stats.laplace(0, 1), stats.laplace(mu, 1))
        a = np.concatenate([np.geomspace(1e-12, 0.1, 60), np.linspace(0, 1, 501)])
        exact = gdp.laplace(mu)(a)
        assert np.all(h.lower(a) <= exact + 1e-12)
        assert np.all(h.upper(a) >= exact - 1e-12)
        assert np.max(h.gap(a)) < 1e-6


@pytest.mark.parametrize("mu", [0.4, 1.5])
@pytest.mark.parametrize("k", [2, 3, 7])
def test_group_is_laplace_k_mu(mu, k):
    # closed form: 1 - (1 - f_mu)^{o k} = f_{k mu} (location family with monotone LR);
    # checked against the generic k-fold functional composition
    f = gdp.laplace(mu)
    assert f.group(k) == gdp.laplace(k * mu)
    a = np.concatenate([np.geomspace(1e-12, 0.1, 40), np.linspace(0, 1, 301)])
    assert_allclose(Group(f, k)(a), gdp.laplace(k * mu)(a), rtol=1e-12, atol=1e-15)


def test_group_limit_of_randomized_response():
    # MATH.md §3: 1 - (1 - f_{mu/k,0})^{o k} -> laplace(mu) as k grows
    mu = 1.0
    a = np.linspace(0, 1, 2001)
    target = gdp.laplace(mu)(a)
    gaps = []
    for k in [1, 4, 16, 64, 256]:
        g = gdp.f_eps_delta(mu / k).group(k)
        gaps.append(np.max(np.abs(g(a) - target)))
    assert all(x > y for x, y in zip(gaps, gaps[1:], strict=False))
    assert gaps[-1] < 2e-3


def test_dominance():
    assert gdp.laplace(0.5).dominates(gdp.laplace(0.7))
    assert gdp.laplace(0.5).dominates(gdp.laplace(0.5))
    assert not gdp.laplace(0.7).dominates(gdp.laplace(0.5))
    # the Laplace mechanism is eps-DP (boundary) but not (eps - 0.01)-DP
    assert gdp.laplace(1.0).dominates(gdp.f_eps_delta(1.0))
    assert not gdp.laplace(1.0).dominates(gdp.f_eps_delta(0.99))
    # and exactly (eps', 1 - e^{(eps' - mu)/2})-DP
    d = float(gdp.laplace(1.0).delta(0.4))
    assert gdp.laplace(1.0).dominates(gdp.f_eps_delta(0.4, d))
    assert not gdp.laplace(1.0).dominates(gdp.f_eps_delta(0.4, d * (1 - 1e-9)))


def test_repr_label_validation():
    f = gdp.laplace(1.0)
    assert repr(f) == "Laplace(mu=1.0)"
    assert f.label == r"\mathrm{Lap}_{1}"
    assert f == gdp.laplace(1)
    with pytest.raises(ValueError, match=r"^`mu` must be a non-negative number \(inf "
                                         r"allowed\); got mu=-1.0$"):
        gdp.laplace(-1.0)
    with pytest.raises(ValueError, match=r"got mu=nan$"):
        gdp.laplace(float("nan"))
    with pytest.raises(TypeError, match=r"^`mu` must be a real number; got mu='a'$"):
        gdp.laplace("a")
