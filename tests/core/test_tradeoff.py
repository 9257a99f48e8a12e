"""Tests for gdp.core: the TradeOff contract, constructors, operations, generic numerics."""

import math
import time
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import gdp
from gdp.core.callable import Callable1D
from gdp.core.generic import (
    _generic_epsilon,
    _numeric_hockey,
    _numeric_hockey_inverse,
    _numeric_loss_sf,
    _symmetrized_profile,
)
from gdp.core.piecewise import Identity, PiecewiseLinear
from gdp.core.tradeoff import Bracketed, Group, Inverse, Symmetrized, TradeOff

ALPHAS = np.concatenate([[0.0, 1e-15, 1e-9], np.linspace(0, 1, 41)[1:-1], [1 - 1e-9, 1.0]])

# P = (0.5, 0.3, 0.2), Q = (0.1, 0.3, 0.6): by hand, Neyman-Pearson rejects outcome 3
# (ratio 3), then 2 (ratio 1), then 1 (ratio 0.2): vertices (0, 1), (0.2, 0.4), (0.5, 0.1),
# (1, 0); f(0.1) = 0.7, f(0.3) = 0.3, f(0.75) = 0.05.
P3 = np.array([0.5, 0.3, 0.2])
Q3 = np.array([0.1, 0.3, 0.6])


def _exact_pl_sym_profile(f: PiecewiseLinear, eps: np.ndarray) -> np.ndarray:
    """delta_{f^S}(eps) for a piecewise-linear f: the max of the concave piecewise-linear
    function 1 - e^eps x - max(f, f^-1)(x) over its vertices (those of f, of f^-1, and
    the crossings of the two)."""
    fi = f.inverse()
    xs = np.unique(np.concatenate([f.alpha, fi.alpha]))
    d = f(xs) - fi(xs)
    ch = np.flatnonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0)
    cross = xs[ch] + d[ch] * (xs[ch + 1] - xs[ch]) / (d[ch] - d[ch + 1])
    xs = np.unique(np.concatenate([xs, cross]))
    fs = np.maximum(f(xs), fi(xs))
    return np.max(1 - np.exp(eps)[:, None] * xs[None, :] - fs[None, :], axis=1)


def _hand_hockey(p, q, eps):
    """One-order hockey-stick divergence sum_i (q_i - e^eps p_i)_+ of two pmfs."""
    return np.array([np.sum(np.maximum(q - math.exp(e) * p, 0.0)) for e in eps])


def _families():
    rng = np.random.default_rng(7)
    p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    return [
        gdp.identity(),
        gdp.G_mu(1.0),
        gdp.f_eps_delta(1.0, 1e-3),
        gdp.laplace(0.7),
        gdp.from_curve([0, 0.2, 0.5, 1], [1, 0.5, 0.15, 0]),
        gdp.from_distributions(p, q),
        gdp.from_privacy_profile([0.1, 1.0, 2.0], [0.3, 0.05, 0.001]),
        gdp.from_callable(lambda a: (1 - a) ** 2),
        gdp.from_distributions(p, q).symmetrize(),
        Inverse(gdp.from_callable(lambda a: (1 - a) ** 3)),
        gdp.laplace(0.5).symmetrize(),
        Group(gdp.f_eps_delta(0.3), 3),
    ]


FAMILIES = _families()
IDS = [type(f).__name__ + str(i) for i, f in enumerate(FAMILIES)]


# ------------------------------------------------------------------ the call contract
@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_call_contract(f):
    assert isinstance(f(0.3), float)
    assert isinstance(f(np.float32(0.3)), float)
    assert f(np.array(0.3)).__class__ is float
    for shape in [(0,), (5,), (2, 3), (1, 2, 2)]:
        a = np.linspace(0, 1, int(np.prod(shape))).reshape(shape)
        assert f(a).shape == shape
    assert f(1.0) == 0.0
    assert f(0.0) == float(f(np.array([0.0]))[0])
    v = f(ALPHAS)
    assert np.all(np.isfinite(v))
    assert np.all((v >= 0) & (v <= 1 - ALPHAS))
    assert_allclose(f.one_minus(ALPHAS), 1 - v, atol=1e-12)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_validity_on_a_grid(f):
    a = np.linspace(0, 1, 2001)
    v = f(a)
    assert np.all(np.diff(v) <= 1e-12)  # non-increasing
    assert np.all(np.diff(v, 2) >= -1e-9)  # convex
    assert np.all(v <= 1 - a + 1e-15)


@pytest.mark.parametrize("bad", [-0.1, 1.0000001, np.nan, np.inf])
def test_alpha_outside_unit_interval(bad):
    f = gdp.G_mu(1.0)
    with pytest.raises(ValueError, match=r"^`alpha` must be a number in \[0, 1\]; got alpha="):
        f(bad)
    with pytest.raises(ValueError, match=r"^`alpha` must be a number in \[0, 1\] \(every "
                                         r"entry\); got alpha="):
        f(np.array([0.5, bad]))
    with pytest.raises(ValueError, match=r"`alpha` must be a number in \[0, 1\]"):
        f.one_minus(bad)


def test_alpha_wrong_type():
    with pytest.raises(TypeError, match=r"^`alpha` must be a real number or array of real "
                                        r"numbers; got alpha='x'$"):
        gdp.identity()("x")


class _NaNCurve(TradeOff):
    """A broken family whose hooks return NaN: the public API must fail safe."""

    __slots__ = ()
    is_symmetric = True

    def _f(self, alpha):
        return np.full(np.shape(alpha), np.nan)

    def _one_minus_f(self, alpha):
        return np.full(np.shape(alpha), np.nan)

    def _hockey(self, eps):
        return np.full(np.shape(eps), np.nan)

    def _epsilon(self, delta):
        return np.full(np.shape(delta), np.nan)


def test_nan_from_a_hook_fails_safe():
    f = _NaNCurve()
    assert f(0.5) == 0.0  # the lowest curve
    assert f.one_minus(0.5) == 1.0
    assert f.delta(1.0) == 1.0 and f.hockey_stick(1.0) == 1.0  # the largest delta
    assert f.epsilon(1e-5) == math.inf


# ---------------------------------------------------------------------------- identity
def test_identity():
    f = gdp.identity()
    assert isinstance(f, Identity) and f == Identity()
    assert_allclose(f(ALPHAS), 1 - ALPHAS, rtol=0, atol=0)
    assert f.delta(0.0) == 0.0 and f.epsilon(0.0) == 0.0
    assert_allclose(f.hockey_stick(-1.0), -math.expm1(-1.0), rtol=1e-15)
    assert f.group(5) is f and f.inverse() is f and f.symmetrize() is f
    for g in FAMILIES:
        assert f.dominates(g)
    assert not gdp.G_mu(1e-3).dominates(f)
    assert gdp.G_mu(0.0).dominates(f)
    assert f.label == r"\mathrm{Id}"


# ----------------------------------------------------------------------- from_callable
def test_from_callable_accepts_and_evaluates():
    f = gdp.from_callable(lambda a: (1 - a) ** 2, name="sq")
    assert isinstance(f, Callable1D) and f.label == "sq"
    assert_allclose(f(ALPHAS), (1 - ALPHAS) ** 2, rtol=1e-15)
    g = gdp.from_callable(lambda a: np.asarray(gdp.G_mu(1.5)(a)), symmetric=True)
    assert g.is_symmetric and g.inverse() is g
    # the generic certified profile of the wrapped curve agrees with the closed form
    e = np.array([0.0, 0.5, 2.0, 5.0])
    assert_allclose(g.delta(e), gdp.G_mu(1.5).delta(e), rtol=1e-9, atol=1e-15)
    assert np.all(g.delta(e) >= gdp.G_mu(1.5).delta(e) * (1 - 1e-12))
    assert_allclose(g.epsilon(1e-4), gdp.G_mu(1.5).epsilon(1e-4), rtol=1e-9)


@pytest.mark.parametrize(
    ("fn", "msg"),
    [
        (lambda a: np.minimum(0.5 - 0.25 * a, 1 - a),
         r"^`fn` is not convex: its slope decreases at alpha=0.6665$"),
        (lambda a: np.where(a < 0.8, 0.1 + 0.05 * a, 0.7 * (1 - a)),
         r"^`fn` must be non-increasing; it increases after alpha=7.742636826811262e-08$"),
        (lambda a: 1 - a**2, r"^`fn` must satisfy f\(alpha\) <= 1 - alpha; violated at "
                             r"alpha=1.2915496650148826e-09$"),
        (lambda a: 0.5 * (1 - a) + 0.01, r"^`fn` must satisfy f\(1\) = 0 \(every trade-off "
                                         r"function does\); got f\(1\)=0.01$"),
        (lambda a: (1 - a) / np.where(a > 0.3, 1.0, 0.0),
         r"^`fn` must return finite values on \[0, 1\]; not finite at alpha=0.0$"),
        (lambda a: 1.5 * (1 - a) - 0.5, r"^`fn` must map into \[0, 1\]; got a value "
                                        r"outside at alpha=0.6667500000000001$"),
    ],
)
def test_from_callable_names_the_violated_property(fn, msg):
    with np.errstate(divide="ignore", invalid="ignore"), pytest.raises(ValueError, match=msg):
        gdp.from_callable(fn)


def test_from_callable_type_errors():
    with pytest.raises(TypeError, match=r"^`fn` must be callable; got fn=0.5$"):
        gdp.from_callable(0.5)

    def scalar_only(a):
        if np.ndim(a):
            raise RuntimeError("scalars only")
        return 1 - a

    with pytest.raises(TypeError, match=r"^`fn` must accept a numpy array of alphas and "
                                        r"return numbers of the same shape; calling it "
                                        r"failed: scalars only$"):
        gdp.from_callable(scalar_only)


def test_from_callable_symmetric_declaration_checked():
    with pytest.raises(ValueError, match=r"^`fn` was declared `symmetric` but f != f\^\{-1\}: "
                                         r"they differ by 0.129 at alpha=0.075$"):
        gdp.from_callable(lambda a: (1 - a) ** 2, symmetric=True)
    gdp.from_callable(lambda a: 1 - a, symmetric=True)  # the identity is symmetric


def test_from_callable_float_noise_is_tolerated():
    # the curve of a piecewise-linear TradeOff, probed in the 1e-12 tails, is convex up
    # to rounding (regression: the slope check flagged it)
    f = gdp.from_distributions(P3, Q3)
    g = gdp.from_callable(lambda a: np.asarray(f(a)))
    assert_allclose(g(ALPHAS), f(ALPHAS), rtol=0, atol=0)


# --------------------------------------------------------------------------- from_curve
def test_from_curve_interpolates():
    f = gdp.from_curve([0, 0.5, 1], [1, 0.2, 0])
    assert isinstance(f, PiecewiseLinear)
    assert_allclose(f([0.0, 0.25, 0.5, 0.75, 1.0]), [1.0, 0.6, 0.2, 0.1, 0.0], rtol=1e-15)
    # unsorted input, (1, 0) appended, first segment extended to alpha = 0
    g = gdp.from_curve([0.5, 0.2], [0.1, 0.5])  # (0.2, 0.5) is then on a segment
    assert_allclose(g.alpha, [0.0, 0.5, 1.0], rtol=1e-15)
    assert_allclose(g.beta, [0.5 + 0.2 * 4 / 3, 0.1, 0.0], rtol=1e-14)
    # collinear points are merged
    h = gdp.from_curve([0, 0.25, 0.5, 1], [1, 0.75, 0.5, 0])
    assert h.alpha.size == 2
    # one point: the chord to (1, 0), extended to alpha = 0
    k = gdp.from_curve([0.5], [0.25])
    assert_allclose(k([0.0, 0.5, 0.75]), [0.5, 0.25, 0.125], rtol=1e-15)


def test_from_curve_is_immutable():
    f = gdp.from_curve([0, 0.5, 1], [1, 0.2, 0])
    with pytest.raises(ValueError, match="read-only"):
        f.alpha[0] = 0.3
    with pytest.raises(AttributeError):
        f.name = "g"


@pytest.mark.parametrize(
    ("alpha", "beta", "msg"),
    [
        ([0, 0.3, 0.6, 1], [1, 0.6, 0.1, 0],
         r"^the curve must be convex; the slope decreases at the point \(alpha=0.3, "
         r"beta=0.6\) \(pass repair=True"),
        ([0, 0.3, 0.6, 1], [1, 0.2, 0.3, 0],
         r"^`beta` must be non-increasing in alpha; it rises from 0.2 to 0.3 between "
         r"alpha=0.3 and alpha=0.6 \(pass repair=True"),
        ([0, 0.5, 0.5, 1], [1, 0.2, 0.3, 0],
         r"^`alpha` has repeated value 0.5 with different beta values; a function takes "
         r"one value per alpha \(pass repair=True to keep the lower\)$"),
        ([0, 0.5, 1], [1, 0.6, 0],
         r"^`beta` must satisfy beta <= 1 - alpha \(a trade-off function lies below the "
         r"identity\); got beta=0.6 at alpha=0.5$"),
        ([0.3, 0.5], [0.6, 0.1],
         r"^`alpha` must start at 0, or the first segment extended to alpha=0 must stay "
         r"<= 1; it reaches 1.35"),
    ],
)
def test_from_curve_rejects_and_says_which(alpha, beta, msg):
    with pytest.raises(ValueError, match=msg):
        gdp.from_curve(alpha, beta)


def test_from_curve_repairs_and_says_so():
    with pytest.warns(UserWarning, match=r"^from_curve: the points are not a trade-off "
                                         r"function \(not convex at alpha=0.3\); replaced "
                                         r"by their largest convex non-increasing minorant"):
        f = gdp.from_curve([0, 0.3, 0.6, 1], [1, 0.6, 0.1, 0], repair=True)
    # the repair lies below the input points (safe) and is a valid curve
    assert np.all(f([0, 0.3, 0.6, 1]) <= np.array([1, 0.6, 0.1, 0]) + 1e-15)
    assert_allclose(f(0.3), 1 - 0.9 * 0.3 / 0.6, rtol=1e-14)  # on the chord (0,1)-(.6,.1)
    with pytest.warns(UserWarning, match=r"beta rises after alpha=0.3"):
        g = gdp.from_curve([0, 0.3, 0.6, 1], [1, 0.2, 0.3, 0], repair=True)
    assert g(0.6) <= 0.2
    with pytest.warns(UserWarning, match=r"repeated alpha=0.5"):
        h = gdp.from_curve([0, 0.5, 0.5, 1], [1, 0.2, 0.3, 0], repair=True)
    assert h(0.5) == 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gdp.from_curve([0, 0.5, 1], [1, 0.2, 0], repair=True)  # valid input: silent


def test_from_curve_argument_errors():
    with pytest.raises(ValueError, match=r"^`alpha` and `beta` must have the same length; "
                                         r"got 2 and 3$"):
        gdp.from_curve([0, 1], [1, 0.5, 0])
    with pytest.raises(ValueError, match=r"^`alpha` must hold at least one point; got an "
                                         r"empty array$"):
        gdp.from_curve([], [])
    with pytest.raises(ValueError, match=r"^`beta` must be a number in \[0, 1\] \(every "
                                         r"entry\); got beta=1.2$"):
        gdp.from_curve([0, 1], [1.2, 0])
    with pytest.raises(TypeError, match=r"^`repair` must be True or False; got repair='y'$"):
        gdp.from_curve([0, 1], [1, 0], repair="y")


# ------------------------------------------------------------------- from_distributions
def test_from_distributions_hand_computed():
    f = gdp.from_distributions(P3, Q3)
    assert_allclose(f.alpha, [0.0, 0.2, 0.5, 1.0], rtol=1e-15)
    assert_allclose(f.beta, [1.0, 0.4, 0.1, 0.0], rtol=1e-14)
    assert_allclose(f([0.1, 0.3, 0.75]), [0.7, 0.3, 0.05], rtol=1e-14)
    assert not f.is_symmetric
    e = np.array([-1.0, 0.0, 0.5, math.log(3.0), 2.0])
    # rounded up by the error bound of the evaluation (a few ulps), never down
    hand = _hand_hockey(P3, Q3, e)
    assert np.all(f.hockey_stick(e) >= hand)
    assert_allclose(f.hockey_stick(e), hand, rtol=1e-14, atol=2e-15)
    loss, p, q = f._atoms()
    assert_allclose(np.sort(loss), np.log([0.2, 1.0, 3.0]), rtol=1e-14, atol=1e-15)


def test_from_distributions_with_disjoint_mass():
    # P = (0, .5, .5), Q = (.2, .8, 0): f(0) = 1 - Q[p = 0] = 0.8, slope -1.6, zero at 0.5
    f = gdp.from_distributions([0, 0.5, 0.5], [0.2, 0.8, 0])
    assert_allclose(f([0.0, 0.25, 0.5, 0.9]), [0.8, 0.4, 0.0, 0.0], rtol=1e-14, atol=1e-16)
    assert_allclose(f.hockey_stick(np.inf), 0.2, rtol=1e-15)
    # T(Q, P): by hand 0.5 - 0.625 alpha on [0, 0.8]
    g = f.inverse()
    assert_allclose(g([0.0, 0.4, 0.8, 1.0]), [0.5, 0.25, 0.0, 0.0], rtol=1e-14, atol=1e-16)
    assert_allclose(g.hockey_stick(np.inf), 0.5, rtol=1e-15)


def test_inverse_is_the_swapped_pair(rng):
    a = np.linspace(0, 1, 1001)
    for _ in range(30):
        n = int(rng.integers(2, 8))
        p, q = rng.dirichlet(np.ones(n) * 0.6), rng.dirichlet(np.ones(n) * 0.6)
        f = gdp.from_distributions(p, q)
        g = gdp.from_distributions(q, p)
        assert_allclose(f.inverse()(a), g(a), atol=1e-14)
        # the generic bisection inverse agrees with the exact reflection, from below
        inv = Inverse(f)(a)
        assert np.all(inv <= g(a) + 1e-12)  # from below, up to rounding of f
        assert_allclose(inv, g(a), atol=1e-13)
        assert_allclose(f.inverse().inverse()(a), f(a), atol=1e-14)
        e = np.linspace(-3, 3, 13)
        assert_allclose(f.inverse().hockey_stick(e), _hand_hockey(q, p, e), atol=1e-14)


def test_from_distributions_symmetric_pair():
    f = gdp.from_distributions([0.7, 0.3], [0.3, 0.7])
    assert f.is_symmetric
    assert f.inverse() is f
    assert f.delta(0.0) == f.hockey_stick(0.0)


@pytest.mark.parametrize(
    ("P", "Q", "exc", "msg"),
    [
        ([0.5, 0.5], [1.0], ValueError, r"^`P` and `Q` must be non-empty pmfs of the same "
                                        r"length; got lengths 2 and 1$"),
        ([0.5, 0.6], [0.5, 0.5], ValueError, r"^`P` must sum to 1 \(a probability mass "
                                             r"function\); got sum 1.1$"),
        ([0.5, 0.5], [1.5, -0.5], ValueError, r"^`Q` must be a non-negative finite number "
                                              r"\(every entry\); got Q=-0.5$"),
        ([], [], ValueError, r"^`P` and `Q` must be non-empty pmfs"),
        ([0.5, 0.5], stats.norm(), TypeError, r"^`P` and `Q` must be of the same kind"),
        (stats.binom(3, 0.5), stats.binom(3, 0.6), TypeError,
         r"for a scipy discrete distribution pass its pmf"),
        (["a"], ["b"], TypeError, r"^`P` must be a real number or array of real numbers"),
    ],
)
def test_from_distributions_errors(P, Q, exc, msg):
    with pytest.raises(exc, match=msg):
        gdp.from_distributions(P, Q)


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0, -1.0])
def test_from_distributions_normal_brackets_g_mu(mu):
    # T(N(0,1), N(mu,1)) = G_|mu| (mu < 0: a decreasing likelihood ratio)
    h = gdp.from_distributions(stats.norm(0, 1), stats.norm(mu, 1))
    assert isinstance(h, Bracketed)
    G = gdp.G_mu(abs(mu))
    a = np.concatenate([np.geomspace(1e-15, 0.1, 80), np.linspace(0, 1, 1001)])
    exact = G(a)
    assert np.all(h.lower(a) <= exact + 1e-12)  # lower: never above the truth
    assert np.all(h.upper(a) >= exact - 1e-12)
    assert np.all(h(a) == h.lower(a))
    assert np.max(h.gap(a)) < 1e-6
    # (eps, delta): the default answer is the sound side and brackets the closed form
    lo, hi = h.epsilon_bounds(1e-5)
    assert lo <= G.epsilon(1e-5) * (1 + 1e-9) and G.epsilon(1e-5) <= hi * (1 + 1e-12)
    assert h.epsilon(1e-5) == hi
    assert hi - lo < 1e-3 * hi
    d_lo, d_hi = h.delta_bounds(1.0)
    assert d_lo <= G.delta(1.0) * (1 + 1e-9) and G.delta(1.0) <= d_hi * (1 + 1e-12)


def test_from_distributions_continuous_arguments():
    with pytest.raises(ValueError, match=r"^`n_grid` must be an integer >= 10; got n_grid=5$"):
        gdp.from_distributions(stats.norm(), stats.norm(1), n_grid=5)
    h = gdp.from_distributions(stats.norm(), stats.norm(1), n_grid=500)
    G = gdp.G_mu(1.0)
    a = np.linspace(0, 1, 201)
    assert np.all(h.lower(a) <= G(a) + 1e-12) and np.all(h.upper(a) >= G(a) - 1e-12)
    assert "Bracketed(name='T(P,Q)'" in repr(h)


# ----------------------------------------------------------------- from_privacy_profile
def test_from_privacy_profile_is_the_envelope(rng):
    a = np.concatenate([np.linspace(0, 1, 4001), np.geomspace(1e-12, 0.1, 50)])
    for n in [1, 3, 50, 600]:
        eps = rng.exponential(1.0, n)
        delta = rng.uniform(0, 0.2, n) ** 3
        f = gdp.from_privacy_profile(eps, delta)
        ref = np.max([gdp.f_eps_delta(e, d)(a) for e, d in zip(eps, delta, strict=True)],
                     axis=0)
        assert_allclose(f(a), ref, rtol=1e-12, atol=1e-15)
        assert f.is_symmetric
        # it is exactly (eps_i, delta_i)-DP for every i (the boundary)
        assert np.all(f.delta(eps) <= delta * (1 + 1e-12) + 1e-15)


def test_from_privacy_profile_of_g_mu_is_below_it():
    G = gdp.G_mu(1.0)
    eps = np.linspace(0, 6, 61)
    f = gdp.from_privacy_profile(eps, G.delta(eps))
    a = np.linspace(0, 1, 2001)
    assert np.all(f(a) <= G(a) + 1e-14)
    assert np.max(G(a) - f(a)) < 0.02
    # f touches G at the tangent points (its lines are G's own profile): that cannot be
    # certified through the rounded vertices of f; 1e-10 above G's profile it can (the
    # mirrored lines of f carry that gap times e^-eps, against G's rounding near delta ~ 1)
    assert not G.dominates(f)
    assert G.dominates(gdp.from_privacy_profile(eps, G.delta(eps) + 1e-10))
    assert_allclose(f.delta(eps), G.delta(eps), rtol=1e-10, atol=1e-16)


def test_from_privacy_profile_errors():
    with pytest.raises(ValueError, match=r"^`eps` must hold at least one value; got an empty "
                                         r"array$"):
        gdp.from_privacy_profile([], [])
    with pytest.raises(ValueError, match=r"^`eps` and `delta` must have the same length "
                                         r"\(or one of them length 1\); got 2 and 3$"):
        gdp.from_privacy_profile([1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"^`eps` must be a non-negative finite number "
                                         r"\(every entry\); got eps=-1.0$"):
        gdp.from_privacy_profile([-1.0], [0.1])
    with pytest.raises(ValueError, match=r"^`delta` must be a number in \[0, 1\]"):
        gdp.from_privacy_profile([1.0], [1.1])
    f = gdp.from_privacy_profile([1.0, 800.0], 0.1)  # e^800 overflows: the line is dropped
    assert_allclose(f(0.5), gdp.f_eps_delta(1.0, 0.1)(0.5), rtol=1e-15)


# -------------------------------------------------------------- inverse and symmetrize
@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_inverse_of_inverse(f):
    a = np.linspace(0, 1, 501)
    assert_allclose(f.inverse().inverse()(a), f(a), atol=1e-12)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_symmetrize_is_above_and_symmetric(f):
    s = f.symmetrize()
    a = np.linspace(0, 1, 501)
    assert np.all(s(a) >= f(a) - 1e-15)
    assert np.all(s(a) >= f.inverse()(a) - 1e-15)
    assert s.is_symmetric
    assert_allclose(Inverse(s)(a), s(a), atol=1e-12)
    assert s.symmetrize() is s


def test_inverse_hooks_of_a_generic_curve():
    base = gdp.from_distributions(P3, Q3)
    exact = base.inverse()  # reflection of a piecewise-linear curve
    generic = Inverse(Callable1D(fn=lambda a: np.asarray(base(a))))
    e = np.concatenate([-np.geomspace(1e-2, 20, 10), [0.0], np.geomspace(1e-2, 20, 10),
                        [np.inf]])
    got = generic.hockey_stick(e)
    ref = exact.hockey_stick(e)
    assert np.all(got >= ref - 1e-15)  # certified upper bound
    assert_allclose(got, ref, rtol=1e-9, atol=1e-14)
    assert_allclose(_numeric_hockey_inverse(base, e), ref, rtol=1e-9, atol=1e-14)
    # loss law of the swapped pair through the nextafter identity, atoms included
    # (the atoms' locations are logs of mass differences, equal only up to an ulp between the
    # two representations, so the law is compared just off each atom, on both sides)
    atoms = np.array([-2.0, -math.log(3.0), -0.5, 0.0, 0.5, -math.log(0.2), 3.0])
    t = np.concatenate([atoms - 1e-9, atoms + 1e-9])
    inv_pl = Inverse(base)  # uses base._loss_sf_q at the float just below -t
    assert_allclose(inv_pl._loss_sf(t), exact._loss_sf(t), atol=1e-15)
    assert_allclose(inv_pl._loss_sf_q(t), exact._loss_sf_q(t), atol=1e-15)


def test_symmetrized_label_and_cache():
    f = gdp.from_distributions(P3, Q3, name="h")
    s = f.symmetrize()
    assert isinstance(s, Symmetrized) and s.label == "{h}^{S}"
    assert f.inverse().label == "{h}^{-1}" and f.inverse().inverse().label == "h"


# --------------------------------------------------------------------------- dominates
def test_dominates_closed_forms_and_boundaries():
    G = gdp.G_mu
    assert G(1.0).dominates(G(2.0)) and not G(2.0).dominates(G(1.0))
    assert G(1.0).dominates(G(1.0))
    # G_mu is (eps, delta(eps))-DP exactly: the boundary holds, a smaller delta fails
    d = float(G(1.0).delta(1.0))
    assert G(1.0).dominates(gdp.f_eps_delta(1.0, d))
    assert not G(1.0).dominates(gdp.f_eps_delta(1.0, d * (1 - 1e-9)))
    # a piecewise-linear self against a smooth other: checked at the vertices; the chord
    # interpolant of points just above G_1 lies above G_1 but not above G_0.9 (chords
    # through G_1's own values touch it at the vertices, where G_1(x), computed and
    # rounded down, lies below the exact curve: no certificate, and rightly so)
    x = np.linspace(0, 1, 51)
    chords = gdp.from_curve(x, np.minimum(G(1.0)(x) + 1e-12, 1 - x))
    assert chords.dominates(G(1.0)) and not chords.dominates(G(0.9))
    assert not gdp.from_curve(x, G(1.0)(x)).dominates(G(1.0))
    assert not gdp.f_eps_delta(1.0, d).dominates(G(1.0))
    # anything vs a piecewise-linear curve, via profiles
    f = gdp.from_distributions(P3, Q3)
    assert f.dominates(f) and f.inverse().dominates(f.inverse())
    assert not f.dominates(f.inverse()) and not f.inverse().dominates(f)
    assert f.symmetrize().dominates(f)
    # numeric grid fallback: G_mu decays faster than linearly at alpha = 1, so it never
    # lies above a Laplace curve (e^-mu (1 - alpha) there), while laplace(1) >= G_1.5
    assert not gdp.G_mu(0.5).dominates(gdp.laplace(2.0))
    assert gdp.laplace(1.0).dominates(gdp.G_mu(1.5))
    assert not gdp.laplace(2.0).dominates(gdp.G_mu(1.0))


def test_dominates_bracketed_is_a_certificate():
    # a True answer must hold for every curve in the bracket: self by its lower curve,
    # other by its upper curve
    b = Bracketed(lower=gdp.G_mu(1.1), upper=gdp.G_mu(1.0))
    assert gdp.G_mu(0.9).dominates(b) and gdp.G_mu(1.0).dominates(b)
    assert not gdp.G_mu(1.05).dominates(b)  # upper = G_1 lies above G_1.05
    assert b.dominates(gdp.G_mu(1.1)) and not b.dominates(gdp.G_mu(1.05))
    h = gdp.from_distributions(stats.norm(0, 1), stats.norm(1, 1), n_grid=2000)
    # the true curve is G_1: h.lower <= G_1 <= h.upper
    assert not h.dominates(gdp.G_mu(1.0))  # lower < G_1 somewhere
    assert not gdp.G_mu(1.0).dominates(h)  # upper > G_1 somewhere
    # in the far tails the bracket is loose: h.lower jumps at alpha = 0 (the unbounded end
    # cells carry ~1e-300 of Q-mass to +inf) and h.upper leaves (0, 1) on a straight line,
    # above G_0.9 (whose slope is infinite at 0) near alpha ~ 1e-200; neither certificate
    # holds there, so neither is given, however wide the gap in the bulk
    assert not h.dominates(gdp.G_mu(1.05)) and not gdp.G_mu(0.9).dominates(h)
    d = float(gdp.G_mu(1.0).delta(1.0))
    assert h.dominates(gdp.f_eps_delta(1.0, d + 1e-4))  # where the gap is real


def test_dominates_argument_errors():
    with pytest.raises(TypeError, match=r"^`other` must be a TradeOff; got other=0.5$"):
        gdp.G_mu(1.0).dominates(0.5)
    with pytest.raises(ValueError, match=r"^`rtol` must be a non-negative finite number; "
                                         r"got rtol=-1.0$"):
        gdp.G_mu(1.0).dominates(gdp.G_mu(2.0), rtol=-1.0)


# ------------------------------------------------------------------------------- group
@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_group_one_is_f(f):
    assert f.group(1) is f


def test_group_closed_forms():
    assert gdp.G_mu(0.5).group(3) == gdp.G_mu(1.5)
    assert gdp.laplace(0.5).group(3) == gdp.laplace(1.5)
    g = gdp.from_distributions(P3, Q3).group(2)
    assert isinstance(g, Group) and g.label == "T(P,Q)^{[2]}"


def _rr_group_exact(eps: float, k: int, a: np.ndarray) -> np.ndarray:
    """1 - (1 - f_{eps,0})^{o k}: compose the concave piecewise-linear map
    u(x) = min(e^eps x, 1 - e^-eps (1 - x)) with itself, independently of gdp."""
    x = a.copy()
    for _ in range(k):
        x = np.minimum(np.minimum(math.exp(eps) * x, 1 - math.exp(-eps) * (1 - x)), 1.0)
    return 1 - x


@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
@pytest.mark.parametrize("k", [2, 3, 10])
def test_group_of_randomized_response(eps, k):
    f = gdp.f_eps_delta(eps)
    g = f.group(k)
    a = np.concatenate([np.geomspace(1e-12, 0.1, 30), np.linspace(0, 1, 1001)])
    assert_allclose(g(a), _rr_group_exact(eps, k, a), rtol=1e-12, atol=1e-15)
    # k = 2 by hand: max(0, 1 - e^{2e} a, e^-e - a, e^{-2e}(1 - a))
    if k == 2:
        hand = np.maximum.reduce([np.zeros_like(a), 1 - math.exp(2 * eps) * a,
                                  math.exp(-eps) - a, math.exp(-2 * eps) * (1 - a)])
        assert_allclose(g(a), hand, rtol=1e-12, atol=1e-15)
    # eps-DP gives (k eps)-DP for groups, and the group curve is tighter (k eps rounded
    # up: 10 * 0.1 rounds down to 1.0, below the exact product, and f_{1.0,0} lies above
    # the group curve near alpha = 0 by that rounding)
    assert g.dominates(gdp.f_eps_delta(math.nextafter(k * eps, math.inf)))
    assert not gdp.f_eps_delta(k * eps).dominates(g)
    # symmetric (as its base), and its profile is the generic certified one: the exact
    # value is the max over the kinks, v^{oj}(x*) with x* = 1/(1+e^eps) the kink of
    # u = 1 - f and v = u^{-1}
    assert g.is_symmetric
    kinks = [1 / (1 + math.exp(eps))]
    for _ in range(k - 1):
        y = kinks[-1]
        kinks.append(max(math.exp(-eps) * y, 1 - math.exp(eps) * (1 - y)))
    xs = np.unique(np.concatenate([[0.0, 1.0], np.clip(kinks, 0, 1)]))
    e = np.linspace(0, k * eps, 7)
    exact = np.max(1 - np.exp(e)[:, None] * xs - _rr_group_exact(eps, k, xs)[None, :], axis=1)
    assert np.all(g.delta(e) >= exact - 1e-15)
    assert_allclose(g.delta(e), exact, rtol=1e-10, atol=1e-14)


def test_group_argument_errors():
    with pytest.raises(ValueError, match=r"^`k` must be an integer >= 1; got k=0$"):
        gdp.G_mu(1.0).group(0)
    with pytest.raises(ValueError, match=r"^`k` must be an integer; got k=2.5$"):
        gdp.G_mu(1.0).group(2.5)


# --------------------------------------------------------------- delta, epsilon, hockey
@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_delta_contract(f):
    e = np.array([0.0, 1e-12, 0.1, 1.0, 5.0, 50.0, 500.0, 800.0, np.inf])
    d = f.delta(e)
    assert d.shape == e.shape and np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-15)
    assert isinstance(f.delta(1.0), float)
    assert f.delta(np.ones((2, 2))).shape == (2, 2)
    # never above the one-order profiles of f and f^-1 (f^S dominates both)
    assert np.all(d <= np.minimum(f.hockey_stick(e), f.inverse().hockey_stick(e)) + 1e-12)


def test_delta_errors():
    f = gdp.G_mu(1.0)
    with pytest.raises(ValueError, match=r"^`eps` must be a non-negative number \(inf "
                                         r"allowed\); got eps=-1.0$"):
        f.delta(-1.0)
    with pytest.raises(ValueError, match=r"got eps=nan$"):
        f.delta(np.nan)
    with pytest.raises(ValueError, match=r"^`eps` must be a real number or \+inf; got "
                                         r"eps=-inf$"):
        f.hockey_stick(-np.inf)
    with pytest.raises(ValueError, match=r"^`delta` must be a number in \[0, 1\]; got "
                                         r"delta=1.5$"):
        f.epsilon(1.5)


def test_symmetrized_profile_against_exact_and_brute_force(rng):
    eps = np.concatenate([[0.0], np.geomspace(1e-3, 20, 60), [np.inf]])
    for _ in range(25):
        n = int(rng.integers(2, 9))
        p, q = rng.dirichlet(np.ones(n) * 0.7), rng.dirichlet(np.ones(n) * 0.7)
        if rng.random() < 0.3:
            p[0] = 0.0
            p /= p.sum()
        f = gdp.from_distributions(p, q)
        d = f.delta(eps)
        fin = np.isfinite(eps)
        exact = _exact_pl_sym_profile(f, eps[fin])
        assert np.all(d[fin] >= exact - 1e-15)  # never below the truth
        assert_allclose(d[fin], exact, rtol=1e-12, atol=1e-15)
        x = np.linspace(0, 1, 20001)
        fs = np.maximum(f(x), f.inverse()(x))
        brute = np.max(1 - np.exp(eps[fin])[:, None] * x[None, :] - fs[None, :], axis=1)
        assert np.all(d[fin] >= brute - 1e-15)
        # eps = inf: the smaller of the two jumps at 0
        assert_allclose(d[-1], min(1 - f(0.0), 1 - f.inverse()(0.0)), atol=1e-15)


def test_symmetrized_profile_of_a_smooth_asymmetric_curve():
    # f = (1 - a)^2 (asymmetric), f^-1 = 1 - sqrt(a). By hand: the two cross at
    # x* = ((3 - sqrt 5)/2), f^S has a corner there, and delta(0) = x*(1 - x*); for
    # other eps, a brute-force sup on a fine grid (a lower bound)
    xs = (3 - math.sqrt(5)) / 2
    f0 = gdp.from_callable(lambda a: (1 - a) ** 2)
    assert f0.delta(0.0) >= xs * (1 - xs) - 1e-15
    assert_allclose(f0.delta(0.0), xs * (1 - xs), rtol=1e-10)
    f = gdp.from_callable(lambda a: (1 - a) ** 2)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0])
    d = f.delta(eps)
    x = np.unique(np.concatenate([np.linspace(0, 1, 400001), np.geomspace(1e-16, 1, 400001)]))
    fs = np.maximum((1 - x) ** 2, 1 - np.sqrt(x))  # f^-1 = 1 - sqrt(alpha)
    brute = np.max(1 - np.exp(eps)[:, None] * x[None, :] - fs[None, :], axis=1)
    assert np.all(d >= brute - 1e-15)
    assert_allclose(d, brute, rtol=2e-6, atol=1e-12)  # the grid misses the corner a bit
    assert_allclose(_symmetrized_profile(f, eps), d, rtol=1e-15)
    assert_allclose(f.symmetrize().delta(eps), d, rtol=1e-15)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_epsilon_is_the_smallest_sound_eps(f):
    deltas = np.array([1e-8, 1e-4, 1e-2, 0.1, 0.3, 1.0])
    e = f.epsilon(deltas)
    assert e.shape == deltas.shape and np.all(e >= 0)
    assert isinstance(f.epsilon(0.1), float)
    fin = np.isfinite(e)
    assert np.all(f.delta(e[fin]) <= deltas[fin])  # sound
    pos = fin & (e > 0)
    assert np.all(f.delta(e[pos] * (1 - 1e-7) - 1e-12) > deltas[pos])  # smallest
    inf = ~fin
    assert np.all(f.delta(np.inf) > deltas[inf])  # inf only when unreachable


def test_generic_epsilon_agrees_with_closed_forms():
    G = gdp.G_mu(1.3)
    d = np.array([1e-12, 1e-6, 1e-3, 0.1, 0.5])
    ref = G.epsilon(d)
    got = _generic_epsilon(lambda e: G._hockey(np.asarray(e, float)), d)
    assert np.all(got >= ref * (1 - 1e-12))
    assert_allclose(got, ref, rtol=1e-11)
    assert _generic_epsilon(lambda e: np.zeros(np.shape(e)), np.array([0.0]))[0] == 0.0


def test_hockey_stick_is_one_order():
    f = gdp.from_distributions(P3, Q3)
    e = np.array([-2.0, -0.5, 0.0, 0.7, 5.0, np.inf])
    assert_allclose(f.hockey_stick(e), _hand_hockey(P3, Q3, e[:-1]).tolist() + [0.0],
                    atol=1e-15)
    assert f.hockey_stick(np.zeros((3, 1))).shape == (3, 1)
    assert isinstance(f.hockey_stick(0.0), float)


# --------------------------------------------------- generic numerics vs closed forms
CLOSED = [gdp.G_mu(0.3), gdp.G_mu(2.0), gdp.laplace(1.0), gdp.f_eps_delta(0.5, 1e-4),
          gdp.identity()]


@pytest.mark.parametrize("f", CLOSED, ids=[repr(f) for f in CLOSED])
def test_numeric_hockey_certifies_the_closed_form(f):
    t = np.concatenate([-np.geomspace(1e-3, 40, 15), [0.0], np.geomspace(1e-3, 40, 30),
                        [np.inf]])
    exact = f._hockey(t)
    numeric = _numeric_hockey(f, t)
    # an upper bound, up to rounding (and G_mu's closed form errs by ~1e-14 relative)
    assert np.all(numeric >= exact * (1 - 1e-12) - 4e-16)
    assert_allclose(numeric, exact, rtol=1e-10, atol=2e-15)


@pytest.mark.parametrize("f", CLOSED[:3], ids=[repr(f) for f in CLOSED[:3]])
def test_numeric_loss_sf_matches_the_families(f):
    t = np.array([-0.9, -0.3, 0.05, 0.2, 0.7])  # away from atoms
    assert_allclose(_numeric_loss_sf(f, t), f._loss_sf(t), rtol=1e-6, atol=1e-12)
    # Neyman-Pearson: Q[L <= t] = f(P[L > t])
    assert_allclose(1 - f._loss_sf_q(t), f(f._loss_sf(t)), rtol=1e-10, atol=1e-15)


def test_numeric_loss_sf_respects_a_zero_tail():
    # f_{0.5, 0.2} is 0 beyond 1 - 0.2: P[L > t] never exceeds 0.8
    f = gdp.f_eps_delta(0.5, 0.2)
    got = _numeric_loss_sf(f, np.array([-800.0, -50.0, -2.0]))
    assert_allclose(got, 0.8, rtol=1e-12)


def test_generic_paths_are_fast():
    f = gdp.from_distributions(P3, Q3)
    curve = Callable1D(fn=lambda a: np.asarray(f(a)))
    e = np.linspace(-5, 5, 10_000)
    a = np.linspace(0, 1, 10_000)
    best_h = best_i = math.inf
    for _ in range(2):
        t0 = time.perf_counter()
        _numeric_hockey(gdp.G_mu(1.0), e)
        best_h = min(best_h, time.perf_counter() - t0)
        t0 = time.perf_counter()
        Inverse(curve)(a)
        best_i = min(best_i, time.perf_counter() - t0)
    assert best_h < 1.0, best_h
    assert best_i < 0.5, best_i


# ------------------------------------------------------------------------ Bracketed
def test_bracketed_semantics():
    lo = gdp.from_curve([0, 0.5, 1], [1, 0.1, 0])
    hi = gdp.from_curve([0, 0.5, 1], [1, 0.2, 0])
    b = Bracketed(lower=lo, upper=hi, name="b")
    assert b(0.5) == 0.1 and b.gap(0.5) == pytest.approx(0.1, rel=1e-14)
    d_lo, d_hi = b.delta_bounds(0.0)
    assert d_lo <= d_hi and b.delta(0.0) == d_hi
    e_lo, e_hi = b.epsilon_bounds(0.3)
    assert e_lo <= e_hi and b.epsilon(0.3) == e_hi
    inv = b.inverse()
    assert isinstance(inv, Bracketed) and inv.label == "{b}^{-1}"
    a = np.linspace(0, 1, 101)
    assert np.all(inv(a) <= inv.upper(a) + 1e-15)


def test_piecewise_keeps_tiny_q_tails():
    # An atom with Q-mass 1e-30 and P-mass 1e-40 (loss log(1e10)) next to two atoms with loss
    # ~0: beta = 1 - 1e-30 rounds to 1, yet delta(eps) = 1e-30 - e^eps 1e-40 for
    # 0 < eps < log(1e10) exactly (closed form). Rounding it away would report delta = 0, the
    # unsafe side.
    f = gdp.from_distributions([0.5, 0.5 - 1e-40, 1e-40], [0.5 - 1e-30, 0.5, 1e-30])
    eps = np.array([1.0, 10.0, 20.0])
    assert_allclose(f.hockey_stick(eps), 1e-30 - np.exp(eps) * 1e-40, rtol=1e-12)
    assert_allclose(f.delta(eps), 1e-30 - np.exp(eps) * 1e-40, rtol=1e-9)
    assert f.epsilon(1e-31) > 22.9  # delta(eps) = 1e-31 at eps = log(9e9) = 22.92


def test_bracket_lower_profile_bounds_the_truth_from_below():
    # a bracket's lower profile is its upper curve's: the truth lies between the curves,
    # so its profile is at least the upper curve's (the lower curve's lies above it)
    b = Bracketed(lower=gdp.G_mu(1.1), upper=gdp.G_mu(0.9))
    e = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    truth = gdp.G_mu(1.0).hockey_stick(e)
    assert np.all(b._hockey_lower(e) <= truth)
    assert np.all(b._hockey(e) >= truth)
