"""Tests for gdp.audit: every mechanism is consistent with its claimed curve, the lower
bounds stay below the exact ε / μ, and broken mechanisms are caught.

Exact references: ε(δ) from each mechanism's exact ``tradeoff``; μ* (the smallest μ with
G_μ ≤ f) from the vertices of piecewise-linear curves or a dense grid (a grid can only
under-estimate μ*, which makes the "μ_lower ≤ μ*" check stricter); Clopper–Pearson bounds
against scipy.stats.binomtest(...).proportion_ci(method="exact").
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from scipy import special, stats  # noqa: E402

import gdp  # noqa: E402
from gdp import mechanisms as M  # noqa: E402
from gdp.mechanisms import auditing  # noqa: E402

GRID = np.concatenate([np.logspace(-12, -1, 400), np.linspace(0.0, 1.0, 4001)[1:-1]])


def mu_star(f):
    """Smallest mu with G_mu <= f (exact at the vertices of piecewise-linear curves)."""
    a = GRID
    if hasattr(f, "alpha"):
        a = np.concatenate([a, np.asarray(f.alpha)])
    a = a[(a > 0) & (a < 1)]
    b = f(a)
    ok = b > 0
    with np.errstate(all="ignore"):
        return float(np.max(-special.ndtri(a[ok]) - special.ndtri(b[ok])))


CASES = {
    # name: (mechanism, D, D', n_samples, exact claimed curve?)
    "gaussian": (M.Gaussian(sensitivity=1.0, mu=1.0), 0.0, 1.0, 20000, True),
    "laplace": (M.Laplace(sensitivity=1.0, eps=1.0), 0.0, 1.0, 20000, True),
    "rr2": (M.RandomizedResponse(k=2, eps=1.0), 0, 1, 20000, True),
    "rr5": (M.RandomizedResponse(k=5, eps=1.5), 0, 1, 20000, True),
    "exponential": (M.Exponential(utility=None, sensitivity=1.0, eps=1.0),
                    np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 1.0]), 20000, False),
    "rnm_laplace": (M.ReportNoisyMax(eps=1.0), np.array([1.0, 0.0, 0.0]),
                    np.array([0.0, 1.0, 1.0]), 20000, False),
    "rnm_gumbel": (M.ReportNoisyMax(eps=1.0, noise="gumbel", monotone=True),
                   np.array([1.0, 1.0]), np.array([0.0, 1.0]), 20000, False),
    "discrete_gaussian": (M.DiscreteGaussian(sensitivity=1, sigma=1.0), 0, 1, 6000, True),
    "discrete_laplace": (M.DiscreteLaplace(sensitivity=1, eps=1.0), 0, 1, 6000, True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_audit_is_consistent_with_each_mechanism(name):
    mech, d0, d1, n, exact = CASES[name]
    res = gdp.audit(mech, d0, d1, n_samples=n, rng=np.random.default_rng(100), delta=1e-3)
    assert not res.violation
    if exact:
        # the claimed curve is exact and the tests are Neyman-Pearson: it passes through
        # every simultaneous confidence box
        assert res.within_band
    f = mech.tradeoff
    assert res.eps_lower <= f.epsilon(1e-3)
    assert res.mu_lower <= mu_star(f)
    assert res.eps_lower > 0.1 and res.mu_lower > 0.1  # the audit does find something


def test_gaussian_bounds_against_closed_forms():
    mech = M.Gaussian(sensitivity=1.0, mu=1.5)
    res = gdp.audit(mech, 0.0, 1.0, n_samples=40000, rng=np.random.default_rng(1),
                    delta=1e-4)
    assert res.mu_lower <= 1.5
    assert res.eps_lower <= gdp.eps_from_mu(1.5, 1e-4)
    assert res.mu_lower > 1.2  # tight-ish with 20 000 evaluation samples per side


def test_vector_output_with_statistic():
    mech = M.Gaussian(sensitivity=1.0, mu=1.0)  # sigma = 1, l2 shift 1
    d0, d1 = np.zeros(2), np.array([0.6, 0.8])
    with pytest.raises(ValueError, match=r"a `statistic` is required when the mechanism's "
                                         r"outputs are not scalars; got outputs of shape \(2,\)"):
        gdp.audit(mech, d0, d1, n_samples=100, rng=np.random.default_rng(0))
    res = gdp.audit(mech, d0, d1, n_samples=20000, rng=np.random.default_rng(2),
                    statistic=lambda y: 0.6 * y[0] + 0.8 * y[1])
    assert not res.violation and res.within_band and res.mu_lower <= 1.0


class HalfNoiseLaplace:
    """Claims laplace(1) (scale 1) but adds Lap(0.5): really laplace(2)."""

    tradeoff = gdp.laplace(1.0)

    def __call__(self, value, rng=None):
        return value + rng.laplace(0.0, 0.5)


class HalfNoiseGaussian:
    """Claims G_1 (sigma 1) but adds N(0, 0.5^2): really G_2."""

    tradeoff = gdp.G_mu(1.0)

    def __call__(self, value, rng=None):
        return value + 0.5 * rng.standard_normal()


class LyingRR:
    """Claims 0.5-DP randomized response but runs it at eps = 1.5."""

    tradeoff = gdp.f_eps_delta(0.5)
    _rr = M.RandomizedResponse(k=2, eps=1.5)

    def __call__(self, value, rng=None):
        return self._rr(value, rng=rng)

    def sample(self, value, n, rng=None):  # the optional batch hook of gdp.audit
        return self._rr.sample(value, n, rng=rng)


@pytest.mark.parametrize("mech,d0,d1", [(HalfNoiseLaplace(), 0.0, 1.0),
                                        (HalfNoiseGaussian(), 0.0, 1.0), (LyingRR(), 0, 1)])
def test_broken_mechanism_is_detected(mech, d0, d1):
    res = gdp.audit(mech, d0, d1, n_samples=20000, rng=np.random.default_rng(3))
    assert res.violation
    assert not res.within_band


def test_broken_mechanism_bounds_exceed_the_claim():
    res = gdp.audit(HalfNoiseLaplace(), 0.0, 1.0, n_samples=20000,
                    rng=np.random.default_rng(4))
    assert 1.0 < res.eps_lower <= 2.0  # claimed 1, true 2
    res = gdp.audit(HalfNoiseGaussian(), 0.0, 1.0, n_samples=20000,
                    rng=np.random.default_rng(5))
    assert 1.0 < res.mu_lower <= 2.0


def test_false_alarms_are_rare():
    # 40 seeded audits of a correct mechanism at 95% confidence: the joint statement fails
    # with probability <= 5% each (Bonferroni makes it much rarer)
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    g = np.random.default_rng(6)
    bad = 0
    for _ in range(40):
        res = gdp.audit(mech, 0.0, 1.0, n_samples=2000, rng=g)
        bad += res.violation or res.eps_lower > 1.0 or not res.within_band
    assert bad <= 4


def test_clopper_pearson_matches_scipy():
    for k, n in [(0, 10), (3, 10), (10, 10), (57, 1000), (1, 5000)]:
        lo, hi = auditing._clopper_pearson(np.array([k]), n, 0.99)
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.99, method="exact")
        assert_allclose([lo[0], hi[0]], [ci.low, ci.high], rtol=1e-10, atol=1e-15)


def test_result_is_reproducible_and_frozen():
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    r1 = gdp.audit(mech, 0.0, 1.0, n_samples=4000, rng=np.random.default_rng(9))
    r2 = gdp.audit(mech, 0.0, 1.0, n_samples=4000, rng=np.random.default_rng(9))
    assert r1.eps_lower == r2.eps_lower and np.array_equal(r1.beta_upper, r2.beta_upper)
    assert np.all(r1.alpha_lower <= r1.alpha) and np.all(r1.alpha <= r1.alpha_upper)
    assert np.all(r1.beta_lower <= r1.beta) and np.all(r1.beta <= r1.beta_upper)
    assert np.all(np.diff(r1.alpha) >= 0)
    with pytest.raises(ValueError):
        r1.alpha[0] = 0.5
    with pytest.raises(AttributeError):
        r1.violation = True
    assert "violation=False" in repr(r1) and r1.method == "threshold"


def test_methods():
    mech = M.DiscreteLaplace(sensitivity=1, eps=1.0)
    r = gdp.audit(mech, 0, 1, n_samples=2000, rng=np.random.default_rng(10), method="threshold")
    assert r.method == "threshold" and not r.violation
    r = gdp.audit(M.RandomizedResponse(k=3, eps=1.0), 0, 1, n_samples=2000,
                  rng=np.random.default_rng(10))
    assert r.method == "likelihood_ratio"


def test_tiny_sample_gives_an_empty_audit():
    res = gdp.audit(M.Laplace(sensitivity=1.0, eps=1.0), 0.0, 1.0, n_samples=1,
                    rng=np.random.default_rng(0))
    assert res.alpha.size == 0 and not res.violation
    assert res.eps_lower == 0.0 and res.mu_lower == 0.0


def test_errors():
    mech = M.Laplace(sensitivity=1.0, eps=1.0)
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"`n_samples` must be an integer >= 1; got n_samples=0"):
        gdp.audit(mech, 0.0, 1.0, n_samples=0, rng=g)
    with pytest.raises(ValueError, match=r"`confidence` must be a number in \(0, 1\); "
                                         r"got confidence=1.0"):
        gdp.audit(mech, 0.0, 1.0, confidence=1.0, rng=g)
    with pytest.raises(ValueError, match=r"`delta` must be a number in \[0, 1\); got delta=1.0"):
        gdp.audit(mech, 0.0, 1.0, delta=1.0, rng=g)
    with pytest.raises(ValueError, match=r"`method` must be 'auto', 'threshold' or "
                                         r"'likelihood_ratio'; got method='best'"):
        gdp.audit(mech, 0.0, 1.0, method="best", rng=g)
    with pytest.raises(TypeError, match=r"`mechanism` must have a `tradeoff` attribute that "
                                        r"is a TradeOff; got tradeoff=None"):
        gdp.audit(lambda v, rng=None: v, 0.0, 1.0, rng=g)
    with pytest.raises(TypeError, match=r"`mechanism` must be callable"):
        gdp.audit(object(), 0.0, 1.0, rng=g)
    with pytest.raises(TypeError, match=r"`rng` must be a numpy.random.Generator or None; "
                                        r"got rng=3"):
        gdp.audit(mech, 0.0, 1.0, rng=3)
    with pytest.raises(ValueError, match=r"the test statistic must be finite"):
        gdp.audit(mech, 0.0, 1.0, n_samples=10, rng=g, statistic=lambda y: np.nan)
    with pytest.raises(ValueError, match=r"`value` must hold at least one entry"):
        gdp.audit(mech, [], [], n_samples=10, rng=g)


def test_plot_audit():
    import matplotlib.pyplot as plt

    res = gdp.audit(M.Laplace(sensitivity=1.0, eps=1.0), 0.0, 1.0, n_samples=4000,
                    rng=np.random.default_rng(11))
    ax = gdp.plot_audit(res)
    assert ax.get_xlabel() == r"type I error $\alpha$"
    assert len(ax.lines) >= 3 and len(ax.patches) == 1
    fig, ax2 = plt.subplots()
    assert gdp.plot_audit(res, ax=ax2) is ax2
    empty = gdp.audit(M.Laplace(sensitivity=1.0, eps=1.0), 0.0, 1.0, n_samples=1,
                      rng=np.random.default_rng(0))
    assert gdp.plot_audit(empty) is not None
    with pytest.raises(TypeError, match=r"`result` must be an AuditResult"):
        gdp.plot_audit(None)
    plt.close("all")
