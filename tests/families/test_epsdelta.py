"""Tests for gdp.epsdelta: f_{eps,delta} (DRS Prop. 2.5) and its closed forms."""

import math

import mpmath
import numpy as np
import pytest
from numpy.testing import assert_allclose

import gdp
from gdp.core.generic import _generic_epsilon, _numeric_loss_sf
from gdp.families.epsdelta import EpsDelta

EPS_GRID = [0.0, 1e-8, 0.1, 1.0, 3.0, 20.0, 300.0]
DELTA_GRID = [0.0, 1e-300, 1e-10, 1e-5, 0.1, 0.5, 1.0]


def _mp_curve(eps, delta, alpha):
    # reference: DRS Prop. 2.5 in mpmath, max{0, 1 - d - e^e a, e^-e (1 - d - a)}
    e, d, a = mpmath.mpf(eps), mpmath.mpf(delta), mpmath.mpf(alpha)
    return float(max(0, 1 - d - mpmath.exp(e) * a, mpmath.exp(-e) * (1 - d - a)))


def _mp_profile(eps, delta, t):
    # reference: sup over the vertices (0, 1-d), (s, s), (1-d, 0), (1, 0) of the concave
    # function 1 - e^t x - f(x), s = (1-d)/(1+e^eps), in mpmath at 700 digits (so that
    # 1 - (1 - 1e-300) keeps delta)
    with mpmath.workdps(700):
        e, d, t = mpmath.mpf(eps), mpmath.mpf(delta), mpmath.mpf(t)
        s = (1 - d) / (1 + mpmath.exp(e))
        verts = [(0, 1 - d), (s, s), (1 - d, 0), (1, 0)]
        return float(max(1 - mpmath.exp(t) * x - y for x, y in verts))


@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.3])
def test_curve_matches_formula(eps, delta):
    f = gdp.f_eps_delta(eps, delta)
    alphas = np.array([0.0, 1e-15, 1e-6, 0.01, 0.2, 0.5, 0.7, 1 - 1e-9, 1.0])
    ref = np.array([_mp_curve(eps, delta, a) for a in alphas])
    assert_allclose(f(alphas), ref, rtol=1e-13, atol=1e-16)
    assert_allclose(f.one_minus(alphas), 1.0 - ref, rtol=1e-13, atol=1e-16)


def test_curve_exact_ends_and_types():
    f = gdp.f_eps_delta(1.0, 1e-5)
    assert f(0.0) == 1.0 - 1e-5
    assert f(1.0) == 0.0
    assert isinstance(f(0.3), float)
    assert f(np.zeros((2, 3))).shape == (2, 3)
    assert f(1 - 1e-5) == 0.0


@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("delta", DELTA_GRID)
def test_profile_closed_form_matches_mpmath(eps, delta):
    f = gdp.f_eps_delta(eps, delta)
    t = np.array([-50.0, -eps - 0.5, -eps, -eps / 2, 0.0, eps / 3, eps * 0.999, eps, eps + 1,
                  600.0])
    ref = np.array([_mp_profile(eps, delta, ti) for ti in t])
    got = f.hockey_stick(t)
    assert_allclose(got, ref, rtol=1e-12, atol=1e-300)
    # never on the unsafe side by more than rounding
    assert np.all(got >= ref * (1 - 1e-13))


def test_tiny_delta_survives():
    # regression: 1 - (1 - delta) lost delta = 1e-300 entirely (delta(eps) came out 0)
    f = gdp.f_eps_delta(1.0, 1e-300)
    assert f.delta(2.0) == 1e-300
    assert f.delta(np.inf) == 1e-300
    assert f.epsilon(1e-300) == 1.0
    assert f.epsilon(5e-301) == math.inf


def test_huge_eps_no_overflow():
    # regression: math.exp(800) raised OverflowError
    f = gdp.f_eps_delta(800.0, 1e-6)
    assert f(0.0) == 1.0 - 1e-6
    assert f(1e-300) == 0.0
    assert f.delta(700.0) > 0.5
    assert f.delta(800.0) == 1e-6
    assert f.epsilon(1e-6) == 800.0
    assert np.all(np.isfinite(f.hockey_stick([-1e3, 0.0, 1e3])))
    loss, p, q = f._atoms()
    assert_allclose([p.sum(), q.sum()], [1.0, 1.0], rtol=1e-15)


def test_infinite_eps_is_the_zero_curve():
    f = gdp.f_eps_delta(np.inf, 0.2)
    assert f(0.0) == 0.0 and f(0.5) == 0.0
    assert f.delta(5.0) == 1.0 and f.delta(np.inf) == 1.0
    assert f.epsilon(0.5) == math.inf
    assert f.epsilon(1.0) == 0.0
    assert gdp.G_mu(1.0).dominates(f)
    assert not f.dominates(gdp.G_mu(1.0))


@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0, 5.0, 300.0])
@pytest.mark.parametrize("delta", [0.0, 1e-12, 1e-3, 0.4])
def test_hockey_closed_form_vs_generic_numeric(eps, delta, closed_hockey_vs_numeric):
    t = np.concatenate([-np.geomspace(1e-3, 30, 15), [0.0], np.geomspace(1e-3, 40, 30)])
    closed_hockey_vs_numeric(gdp.f_eps_delta(eps, delta), t, below=2e-16, rtol=1e-12)


def test_hockey_vs_brute_force_maximisation():
    f = gdp.f_eps_delta(0.8, 0.01)
    x = np.concatenate([np.linspace(0, 1, 200001), [f._alpha_star, 0.99]])
    for t in [-2.0, -0.8, -0.1, 0.0, 0.4, 0.8, 2.0]:
        brute = np.max(1.0 - np.exp(t) * x - f(x))  # a lower bound on the sup
        assert f.hockey_stick(t) >= brute - 1e-15
        assert_allclose(f.hockey_stick(t), brute, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 40.0])
@pytest.mark.parametrize("delta", [0.0, 1e-9, 0.05])
def test_epsilon_closed_form(eps, delta):
    f = gdp.f_eps_delta(eps, delta)
    d0 = f.delta(0.0)
    targets = np.array([0.0, delta, delta * 1.5 + 1e-12, 0.5 * (delta + d0), d0, 1.0])
    got = f.epsilon(targets)
    ref = _generic_epsilon(lambda e: f._hockey(np.asarray(e, float)), targets)
    assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    fin = np.isfinite(got)
    # sound: delta(eps(d)) <= d, and a slightly smaller eps is not enough
    assert np.all(f.delta(got[fin]) <= targets[fin])
    smaller = got[fin & (got > 0)] * (1 - 1e-9)
    assert np.all(f.delta(smaller) > targets[fin & (got > 0)])
    if delta > 0:
        assert f.epsilon(delta * 0.5) == math.inf
    assert f.epsilon(delta) == (eps if delta < d0 else 0.0)


def test_round_trip_inside_the_kink():
    f = gdp.f_eps_delta(2.0, 1e-6)
    e = np.linspace(0.01, 1.99, 50)
    assert_allclose(f.epsilon(f.delta(e)), e, rtol=1e-10)


def test_atoms_and_loss_law():
    eps, delta = 1.2, 0.03
    f = gdp.f_eps_delta(eps, delta)
    loss, p, q = f._atoms()
    assert_allclose([p.sum(), q.sum()], [1.0, 1.0], rtol=1e-15)
    # Q-mass at +inf is delta, P-mass at -inf is delta, atoms at +-eps in ratio e^eps
    assert q[loss == np.inf][0] == delta and p[loss == -np.inf][0] == delta
    fin = np.isfinite(loss)
    assert_allclose(q[fin] / p[fin], np.exp(loss[fin]), rtol=1e-14)
    t = np.array([-5.0, -1.0, 0.0, 1.0, 5.0])  # away from the atoms
    assert_allclose(f._loss_sf(t), _numeric_loss_sf(f, t), atol=1e-9)
    # Neyman-Pearson: Q[L <= t] = f(P[L > t])
    assert_allclose(1.0 - f._loss_sf_q(t), f(f._loss_sf(t)), atol=1e-15)


def test_dominance_exact_rule():
    # regression: the rule compared delta with the bound method `delta` (TypeError) and
    # claimed f_{e,d} >= f_{e',d'} only when e <= e' and d <= d'
    assert gdp.f_eps_delta(1.0, 0.0).dominates(gdp.f_eps_delta(0.5, 0.5))
    assert not gdp.f_eps_delta(1.0, 0.0).dominates(gdp.f_eps_delta(0.5, 0.2))
    a, b = gdp.f_eps_delta(0.5, 1e-6), gdp.f_eps_delta(0.7, 1e-6)
    assert a.dominates(b) and not b.dominates(a)
    assert a.dominates(a)  # the boundary
    assert not gdp.f_eps_delta(0.5, 2e-6).dominates(a)
    # the boundary in the other direction: f_{1,0} >= f_{e', h(e')} exactly
    e2 = 0.3
    d2 = float(gdp.f_eps_delta(1.0, 0.0).delta(e2))
    assert gdp.f_eps_delta(1.0, 0.0).dominates(gdp.f_eps_delta(e2, d2))
    assert not gdp.f_eps_delta(1.0, 0.0).dominates(gdp.f_eps_delta(e2, d2 * (1 - 1e-9)))


def test_dominance_rule_agrees_with_a_grid(rng):
    x = np.linspace(0, 1, 20001)
    for _ in range(200):
        e1, e2 = rng.exponential(1.0, 2)
        d1, d2 = rng.uniform(0, 0.3, 2)
        f, g = gdp.f_eps_delta(e1, d1), gdp.f_eps_delta(e2, d2)
        on_grid = bool(np.all(g(x) <= f(x) + 1e-12))
        if f.dominates(g):
            assert on_grid
        elif on_grid:  # grid misses only near-boundary cases
            assert float(f.delta(e2)) - d2 < 1e-4


def test_repr_label_equality():
    f = gdp.f_eps_delta(1.0, 1e-5)
    assert repr(f) == "f_eps_delta(eps=1.0, delta=1e-05)"
    assert f.label == "f_{1,1e-05}"
    assert f == gdp.f_eps_delta(eps=1, delta=1e-5)
    assert hash(f) == hash(gdp.f_eps_delta(1.0, 1e-5))
    assert f.is_symmetric and f.inverse() is f and f.symmetrize() is f
    with pytest.raises(AttributeError):
        f.eps = 2.0


@pytest.mark.parametrize(
    ("args", "exc", "msg"),
    [
        ((-1.0,), ValueError, r"^`eps` must be a non-negative number \(inf allowed\); got "
                              r"eps=-1.0$"),
        ((float("nan"),), ValueError, r"^`eps` must be a non-negative number \(inf "
                                      r"allowed\); got eps=nan$"),
        ((1.0, 1.5), ValueError, r"^`delta` must be a number in \[0, 1\]; got delta=1.5$"),
        ((1.0, -1e-9), ValueError, r"^`delta` must be a number in \[0, 1\]; got "
                                   r"delta=-1e-09$"),
        (("1",), TypeError, r"^`eps` must be a real number; got eps='1'$"),
        ((1.0, None), TypeError, r"^`delta` must be a real number; got delta=None$"),
    ],
)
def test_validation_messages(args, exc, msg):
    with pytest.raises(exc, match=msg):
        gdp.f_eps_delta(*args)


def test_direct_class_validates_too():
    # the message names the argument the caller typed (issue 11): delta_ for the class,
    # delta for f_eps_delta
    with pytest.raises(ValueError, match=r"^`delta_` must be a number in \[0, 1\]"):
        EpsDelta(eps=1.0, delta_=2.0)
    with pytest.raises(ValueError, match=r"^`delta` must be a number in \[0, 1\]"):
        gdp.f_eps_delta(1.0, 2.0)
