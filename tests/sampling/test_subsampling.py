"""Subsampling (f_p, C_p) and DP-SGD accounting.

Reference values: the definitions f_p = p f + (1-p) Id and f_p = T(P, (1-p)P + pQ)
(DRS Sec. 4; Zhu, Dong, Wang 2022), the generic numeric profile of a curve
(golden-section, tradeoff.py) as an independent check of the closed-form profiles, and
dp-accounting (PLD, connect-the-dots) / prv-accountant as independent accountants.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import gdp
from gdp.core.generic import _numeric_hockey
from gdp.engine.result import Composition

ALPHAS = np.concatenate([np.linspace(0.0, 1.0, 201), np.logspace(-10, -1, 19)])


# ---------------------------------------------------------------------------
# one-sided Poisson curve f_p
# ---------------------------------------------------------------------------
def test_poisson_subsample_is_the_mixture_curve():
    f = gdp.G_mu(1.5)
    fp = gdp.poisson_subsample(f, 0.3)
    assert_allclose(fp(ALPHAS), 0.3 * f(ALPHAS) + 0.7 * (1 - ALPHAS), rtol=1e-14, atol=1e-16)
    # as a pair: T(N(0,1), 0.7 N(0,1) + 0.3 N(1.5,1)) -- brute-force Neyman-Pearson on a
    # fine discretisation of the real line (the likelihood ratio is monotone in x)
    x = np.linspace(-12, 14, 200001)
    P = np.diff(stats.norm.cdf(x))
    Q = 0.7 * P + 0.3 * np.diff(stats.norm.cdf(x - 1.5))
    ref = gdp.from_distributions(P / P.sum(), Q / Q.sum())
    assert_allclose(fp(ALPHAS), ref(ALPHAS), atol=2e-5)


@pytest.mark.parametrize("p", [0.01, 0.3, 0.9])
def test_poisson_subsample_profiles_match_numeric_ones(p):
    fp = gdp.poisson_subsample(gdp.G_mu(1.0), p)
    eps = np.array([-1.0, -0.05, 0.0, 0.01, 0.5, 2.0])
    gen = gdp.from_callable(fp)  # hides the closed forms: golden-section profile
    assert_allclose(fp.hockey_stick(eps), gen.hockey_stick(eps), rtol=1e-7, atol=1e-12)
    inv = fp.inverse()
    ginv = gdp.from_callable(lambda a: np.asarray(inv(a)))
    assert_allclose(inv.hockey_stick(eps), _numeric_hockey(ginv, eps), rtol=1e-6, atol=1e-9)


def test_poisson_subsample_edge_cases_and_errors():
    f = gdp.laplace(1.0)
    assert gdp.poisson_subsample(f, 1.0) is f
    assert gdp.subsample(f, 1.0) is f
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\]; got p=0.0"):
        gdp.poisson_subsample(f, 0.0)
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\]; got p=1.5"):
        gdp.subsample(f, 1.5)
    with pytest.raises(TypeError, match=r"`f` must be a TradeOff; got f='x'"):
        gdp.subsample("x", 0.5)


# ---------------------------------------------------------------------------
# C_p(f) = min{f_p, f_p^-1}**
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("f", [gdp.G_mu(1.0), gdp.laplace(2.0), gdp.f_eps_delta(1.0, 0.01)])
def test_subsample_is_the_convex_hull_of_the_minimum(f):
    p = 0.2
    c = gdp.subsample(f, p)
    fp = gdp.poisson_subsample(f, p)
    x = np.linspace(0.0, 1.0, 2001)
    lo = np.minimum(fp(x), fp.inverse()(x))
    cx = c(x)
    assert np.all(cx <= lo + 1e-9)                       # a minorant of the minimum
    assert np.all(np.diff(cx, 2) >= -1e-9)               # convex
    assert_allclose(c.inverse()(x), cx, atol=1e-7)       # symmetric
    # it is the largest one: it touches the minimum away from the bridge
    assert np.min(lo - cx) < 1e-12
    # conjugate of a hull of a minimum = max of the conjugates
    eps = np.array([0.0, 0.1, 0.5, 1.0, 3.0])
    assert_allclose(c.delta(eps), np.maximum(fp.hockey_stick(eps),
                                             fp.inverse().hockey_stick(eps)),
                    rtol=1e-12, atol=1e-15)


def test_subsample_of_asymmetric_base_is_a_lower_curve():
    base = gdp.poisson_subsample(gdp.G_mu(2.0), 0.5)  # asymmetric
    c = gdp.subsample(base, 0.3)
    fp = gdp.poisson_subsample(base, 0.3)
    x = np.linspace(0.0, 1.0, 501)
    assert np.all(c(x) <= np.minimum(fp(x), fp.inverse()(x)) + 1e-12)


# ---------------------------------------------------------------------------
# DP-SGD
# ---------------------------------------------------------------------------
def test_dpsgd_special_cases():
    one = gdp.dpsgd(sigma=1.0, p=0.1, steps=1)
    assert isinstance(one, gdp.Subsampled)
    assert_allclose(one.delta(0.5), gdp.subsample(gdp.G_mu(1.0), 0.1).delta(0.5), rtol=1e-14)
    g = gdp.dpsgd(sigma=2.0, p=1.0, steps=16)
    assert isinstance(g, gdp.Gaussian) and g.mu == pytest.approx(2.0, rel=1e-14)
    h = gdp.dpsgd(phases=[dict(sigma=1.0, p=0.05, steps=30), dict(sigma=1.0, p=0.05, steps=70)])
    h100 = gdp.dpsgd(sigma=1.0, p=0.05, steps=100)
    assert h.epsilon(1e-5) == pytest.approx(h100.epsilon(1e-5), rel=1e-12)


def test_dpsgd_heterogeneous_phases_are_between_their_parts():
    a = dict(sigma=1.0, p=0.02, steps=200)
    b = dict(sigma=2.0, p=0.05, steps=300)
    h = gdp.dpsgd(phases=[a, b])
    ea, eb = gdp.dpsgd(**a).epsilon(1e-5), gdp.dpsgd(**b).epsilon(1e-5)
    e = h.epsilon(1e-5)
    assert max(ea, eb) < e < ea + eb  # composition costs more than each part, less than both


def test_dpsgd_argument_errors():
    with pytest.raises(TypeError, match=r"dpsgd needs `sigma`, `p` and `steps`"):
        gdp.dpsgd(sigma=1.0, p=0.1)
    with pytest.raises(TypeError, match=r"pass either `phases` or `sigma`, `p` and `steps`"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=1, phases=[])
    with pytest.raises(ValueError, match=r"a phase must have exactly the keys sigma, p and "
                                         r"steps; got keys \['p', 'sigma'\] \(phase 0\)"):
        gdp.dpsgd(phases=[dict(sigma=1.0, p=0.1)])
    with pytest.raises(ValueError, match=r"`sigma` must be a number in \[1e-300, inf\]; "
                                         r"got sigma=0.0"):
        gdp.dpsgd(sigma=0.0, p=0.1, steps=10)
    with pytest.raises(ValueError, match=r"`steps` must be an integer >= 1; got steps=0"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=0)
    with pytest.raises(TypeError, match=r"unknown keyword\(s\) \['eps_error'\]; it expects "
                                        r"`sigma`, `p` and `steps`"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=10, eps_error=0.1)
    with pytest.raises(TypeError, match=r"^dpsgd\(\) got unknown keyword\(s\) "
                                        r"\['noise_multiplier', 'sample_rate'\]; it expects "
                                        r"`sigma`, `p` and `steps` \(or `phases`\), and the "
                                        r"accuracy keywords `rtol`"):
        gdp.dpsgd(noise_multiplier=1.1, sample_rate=0.01, steps=100)


def test_dpsgd_is_the_two_order_hull():
    h = gdp.dpsgd(sigma=0.8, p=0.1, steps=50)
    assert isinstance(h, Composition) and h.is_symmetric
    step = gdp.poisson_subsample(gdp.G_mu(1.25), 0.1)
    one = gdp.compose_power(step, 50)             # the "remove" order alone
    other = gdp.compose_power(step.inverse(), 50)  # the "add" order
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    d = np.asarray(h.delta(eps))
    # profile of min{h, h^-1}** = max of the two one-order profiles; all are numeric
    # (different lattices): d lies above the optimistic sides and near the sound ones
    ref = np.maximum(one.hockey_stick(eps), other.hockey_stick(eps))
    floor = np.maximum(one.upper.hockey_stick(eps), other.upper.hockey_stick(eps))
    assert np.all(d >= floor)
    assert_allclose(d, ref, rtol=3e-3)
    # and the tight hull is never looser than composing the symmetrised step
    loose = gdp.compose_power(gdp.subsample(gdp.G_mu(1.25), 0.1), 50)
    assert np.all(d <= np.asarray(loose.delta(eps)) + 1e-12)
    # the curve is the hull of the minimum: below both orders' (upper) curves
    assert np.all(h(ALPHAS) <= np.minimum(one.upper(ALPHAS), other.upper(ALPHAS)) + 1e-12)
    assert_allclose(h(ALPHAS), np.minimum(one(ALPHAS), other(ALPHAS)), atol=2e-3)
    assert np.all(h.upper(ALPHAS) >= h(ALPHAS) - 1e-15)


# cross-checks against dp-accounting and prv-accountant ----------------------------------
GRID = [  # sigma, p, steps, delta
    (1.0, 0.01, 1000, 1e-5),
    (0.5, 0.5, 10, 1e-3),
    (5.0, 1e-4, 100_000, 1e-5),
    (2.0, 0.05, 3000, 1e-10),
    (0.7, 0.2, 1, 1e-6),
]
# dp-accounting is tight here at affordable discretisations (not for sigma=5, p=1e-4,
# where eps ~ 0.017 needs a step below 1e-6; prv-accountant covers that point)
DPA_TIGHT = [g for g in GRID if g[1] != 1e-4]


@pytest.mark.parametrize(("sigma", "p", "steps", "delta"), GRID)
def test_dpsgd_against_dp_accounting(sigma, p, steps, delta):
    from dp_accounting.pld import privacy_loss_distribution as pldm
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    e = h.epsilon(delta)
    lo, hi = h.epsilon_bounds(delta)
    assert e == hi and lo <= hi

    def dpa(pessimistic: bool, disc: float) -> float:
        pl = pldm.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=p,
                                          value_discretization_interval=disc,
                                          pessimistic_estimate=pessimistic)
        return pl.self_compose(steps).get_epsilon_for_delta(delta)

    disc = min(1e-3, 0.2 * e) if steps > 1 else 1e-4
    assert e >= dpa(False, disc)                   # never below their optimistic estimate
    assert lo <= dpa(True, disc) * (1 + 1e-9)      # our lower bound is below their upper
    if (sigma, p, steps, delta) in DPA_TIGHT:
        tight = dpa(True, disc / 10 if steps > 1 else disc)
        assert abs(e / tight - 1) < 2e-3           # within 0.2% of their tight estimate


def test_dpsgd_against_recorded_prv_accountant_value():
    # prv-accountant 0.2.0: PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(
    #     noise_multiplier=5.0, sampling_probability=1e-4)], max_self_compositions=[100000],
    #     eps_error=1e-4, delta_error=1e-8).compute_epsilon(delta=1e-5,
    #     num_self_compositions=[100000])  (several GB of memory: recorded, not rerun)
    e_lo, e_est, e_up = 0.016404866290979415, 0.016506887213394796, 0.01660890998422383
    h = gdp.dpsgd(sigma=5.0, p=1e-4, steps=100_000)
    e = h.epsilon(1e-5)
    assert e >= e_lo
    assert abs(e / e_est - 1) < 2e-3
    assert h.epsilon_bounds(1e-5)[0] <= e_up


@pytest.mark.parametrize(("sigma", "p", "steps", "delta"), GRID[:2] + GRID[3:4])
def test_dpsgd_against_prv_accountant(sigma, p, steps, delta):
    import prv_accountant as prv
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    e = h.epsilon(delta)
    m = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=p)
    # eps_error below ~1e-4 makes prv-accountant's grid (and memory) explode
    acc = prv.PRVAccountant(prvs=[m], max_self_compositions=[steps],
                            eps_error=max(1e-3 * e, 1e-4), delta_error=delta / 1000)
    e_lo, e_est, e_up = acc.compute_epsilon(delta=delta, num_self_compositions=[steps])
    assert e >= e_lo                               # never below their lower bound
    assert abs(e / e_est - 1) < 2e-3 + 1e-4 / e    # within 0.2% of their estimate (or of
    #                                                their accuracy, for tiny eps)
    lo, _ = h.epsilon_bounds(delta)
    assert lo <= e_up


def test_extreme_settings_are_finite_and_sound():
    t0 = time.perf_counter()
    h = gdp.dpsgd(sigma=0.3, p=0.9, steps=100_000)
    for d in (1e-15, 1e-5):
        e = h.epsilon(d)
        assert math.isfinite(e) and e > 0
        lo, hi = h.epsilon_bounds(d)
        assert 0 <= lo <= hi == e
    assert h.delta(0.01) == 1.0 or 0.99 < h.delta(0.01) <= 1.0
    assert not np.isnan(h(ALPHAS)).any()
    small = gdp.dpsgd(sigma=1.0, p=0.01, steps=1000)
    d = small.delta(0.01)
    assert 0.0 < d <= 1.0
    e15 = small.epsilon(1e-15)
    assert math.isfinite(e15) and e15 > small.epsilon(1e-10) > 0
    assert time.perf_counter() - t0 < 30.0


def test_dpsgd_dominance_certificates():
    # CLT (BDLS): mu ~ p sqrt(T (e^{1/sigma^2} - 1)) = 0.93 here; dominance must be certified
    # in the clear cases, both ways, up to the float allowances of the numeric curve: its
    # sound side carries the truncated tail as Q-mass ~5e-25 at +inf (invisible in d(0)),
    # where it lies below G_3, and its optimistic side leaves (0, 1) on a straight line,
    # above G_0.5 at tiny alpha: each certificate needs that much absolute tolerance
    d = gdp.dpsgd(sigma=1.0, p=0.05, steps=200)
    assert d(0.0) == 1.0
    assert not d.dominates(gdp.G_mu(3.0))
    assert d.dominates(gdp.G_mu(3.0), atol=1e-20)
    assert not d.dominates(gdp.G_mu(0.5))
    assert not gdp.G_mu(0.5).dominates(d)
    assert gdp.G_mu(0.5).dominates(d, atol=1e-12)
    assert not gdp.G_mu(3.0).dominates(d)


def test_one_order_curves_answer_for_both_orders():
    """A Poisson-subsampled step and a mixture are the curve of one order of a neighbouring
    pair: their delta/epsilon are the mechanism's (both orders), never the smaller profile
    of max(f, f^-1). delta(1) of the subsampled G_1 at p = 0.1 is H_e(Q || P) = 2.0712e-4
    (scipy quad of (q - e p)_+); the other order's divergence is 0 there."""
    g = gdp.poisson_subsample(gdp.G_mu(1.0), 0.1)
    c = gdp.subsample(gdp.G_mu(1.0), 0.1)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    assert np.all(g.delta(eps) >= c.delta(eps) * (1 - 1e-12))
    assert g.delta(1.0) == pytest.approx(2.0712e-4, rel=1e-4)
    assert g.delta(0.0) >= 0.1 * (2 * stats.norm.cdf(0.5) - 1) * (1 - 1e-12)  # p * TV
    assert g.epsilon(1e-5) >= c.epsilon(1e-5) * (1 - 1e-12)
    f = gdp.mixture_gaussian(1.0, [0.0, 1.0, 2.0], [0.81, 0.18, 0.01])
    lo, _ = gdp.compose_two_orders(f).epsilon_bounds(1e-5)
    assert f.epsilon(1e-5) >= lo


def _subsampled_gaussian_delta(mu: float, p: float, eps: float) -> float:
    """δ(ε) of the remove order f_p of the Poisson-subsampled G_mu in 60-digit mpmath:
    p δ_G(u), u = log(1 + (e^ε - 1)/p) (ZDW), δ_G(u) = Φ(-u/μ + μ/2) - e^u Φ(-u/μ - μ/2)."""
    import mpmath as mp

    with mp.workdps(60):
        e, P, m = mp.mpf(eps), mp.mpf(p), mp.mpf(mu)
        u = mp.log(1 + mp.expm1(e) / P)
        return float(P * (mp.ncdf(-u / m + m / 2) - mp.exp(u) * mp.ncdf(-u / m - m / 2)))


@pytest.mark.parametrize("mu", [35.0, 50.0, 200.0])
def test_large_losses_keep_their_profile(mu):
    """Losses beyond 700 (noise multiplier below about 0.03): the map u = log(1 + (e^ε -
    1)/p) overflowed in e^ε, every ε above 709 had δ = 0, and the sound ε stopped at 709.09
    (μ = 50, p = 0.5: 709.09 where the truth is 1453.72, a bound on the unsafe side); the
    numeric engine saw the upper atoms at +inf and answered inf. Against 60-digit mpmath,
    and never below it."""
    p, delta = 0.5, 1e-5
    f = gdp.poisson_subsample(gdp.G_mu(mu), p)
    g = gdp.G_mu(mu)
    for eps in (0.5 * mu * mu, 0.5 * mu * mu + 2.0 * mu):
        ref = _subsampled_gaussian_delta(mu, p, eps)
        d = float(f.delta(eps))
        assert ref <= d <= ref * (1 + 1e-9) + 1e-300
    e = float(f.epsilon(delta))
    assert _subsampled_gaussian_delta(mu, p, e) <= delta * (1 + 1e-9)
    assert _subsampled_gaussian_delta(mu, p, e * (1 - 1e-6)) > delta  # (tight)
    # (the engine: two steps, finite, above one step and below the unsubsampled run)
    h = gdp.dpsgd(sigma=1.0 / mu, p=p, steps=2)
    e2 = float(h.epsilon(delta))
    assert e < e2 <= float((g ** 2).epsilon(delta)) * (1 + 1e-9)
    assert math.isfinite(e2) and float(f.epsilon(delta)) <= float(gdp.subsample(g, p)
                                                                    .epsilon(delta))


def _gauss_delta_mp(mu: float, eps: float) -> float:
    import mpmath

    with mpmath.workdps(40):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def test_a_curve_known_by_its_values_has_a_lower_profile():
    # the lower bound of a user's function's profile (the objective at the maximiser found,
    # less its rounding) and its inverse's, around a 40-digit closed form
    c = gdp.from_callable(lambda a: gdp.G_mu(0.7)(a))
    e = np.array([0.0, 0.3, 1.0, 2.0, 4.0, 5.0])
    lo, hi, inv_lo = c._hockey_lower(e), c._hockey(e), c.inverse()._hockey_lower(e)
    for i, ei in enumerate(e.tolist()):
        truth = _gauss_delta_mp(0.7, ei)
        assert lo[i] <= truth <= hi[i]
        assert inv_lo[i] <= truth
    assert np.all(lo[:5] >= 0.999 * hi[:5])  # (not 0: a bound, not a collapse)


@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9, 1e-12])
def test_subsampled_curve_known_by_its_values_keeps_its_bracket(delta):
    # subsample() of a user's function: the lower ends come from the function's values
    # (before: the upper profile's on both sides; with no lower profile they would be 0),
    # around the closed form's bracket (itself around the truth: test_oracles)
    f = gdp.subsample(gdp.from_callable(lambda a: gdp.G_mu(0.7)(a)), 0.2)
    g = gdp.subsample(gdp.G_mu(0.7), 0.2)
    lo, hi = f.epsilon_bounds(delta)
    glo, ghi = g.epsilon_bounds(delta)
    assert lo <= glo <= ghi <= hi
    assert hi - lo <= 1e-4 * hi
    d_lo, d_hi = f.delta_bounds(hi)
    assert 0.0 < d_lo <= float(g.delta_bounds(hi)[0]) and d_hi >= float(g.delta(hi))


def test_subsampled_numeric_composition_keeps_its_bracket():
    # subsample() of a numeric composition: its lower ends come from the composition's other
    # side (they were 0: the upper curve has no lower profile of its own); G_0.5 composed 4
    # times through the numeric path is G_1, whose subsampled curve is a closed form
    c = gdp.from_callable(lambda a: gdp.G_mu(0.5)(a)) ** 4
    assert isinstance(c, Composition)
    f, g = gdp.subsample(c, 0.3), gdp.subsample(gdp.G_mu(1.0), 0.3)
    for delta in (1e-3, 1e-10):
        lo, hi = f.epsilon_bounds(delta)
        glo, ghi = g.epsilon_bounds(delta)
        assert 0.0 < lo <= glo <= ghi <= hi
        assert hi - lo <= 1e-2 * hi
    for eps in (0.5, 2.0):
        lo, hi = f.delta_bounds(eps)
        glo, ghi = g.delta_bounds(eps)
        assert 0.0 < lo <= glo <= ghi <= hi
        assert lo >= 0.95 * hi
