"""Tests of gdp.tuning: the privacy of "train K times, K random, release the best run".

Soundness: the bound is never below the exact profile of tuned releases of concrete
G_1-DP mechanisms (tests/data/tuning_reference.json) nor below randomized response's in
closed form; never tighter than a single run; never looser than the RDP bound
(Papernot-Steinke, checked against dp-accounting's implementation) nor, for bounded K,
than the K_max-fold composition.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_repeat_and_select

import gdp

REF = json.loads((Path(__file__).resolve().parents[1] / "data" /
                  "tuning_reference.json").read_text())
LAWS = {"geometric(10)": gdp.geometric_runs(10.0), "poisson(10)": gdp.poisson_runs(10.0),
        "tnb(0.5, gamma=0.02)": gdp.truncated_negative_binomial(shape=0.5, gamma=0.02),
        "binomial(20, 0.5)": gdp.binomial_runs(20, 0.5), "fixed(5)": gdp.fixed_runs(5)}
ALPHA = np.unique(np.concatenate([np.geomspace(1e-12, 0.5, 200), np.linspace(0, 1, 401)]))


@functools.cache
def tuned(name):
    return gdp.tuning(gdp.G_mu(REF["mu"]), LAWS[name])


@pytest.mark.parametrize("name", sorted(LAWS))
def test_never_below_the_exact_profile_of_tuned_gaussian_mechanisms(name):
    h = tuned(name)
    assert [h.runs.kind, list(h.runs.params)] == REF["laws"][name]["runs"]
    exact = np.array(REF["laws"][name]["delta"])
    got = np.asarray(h.delta(REF["eps"]))
    assert np.all(got >= exact * (1 - 1e-9))
    assert np.all(np.asarray(h.profile.delta(REF["eps"])) >= exact * (1 - 1e-9))


@pytest.mark.parametrize("eps, runs", [(0.3, gdp.geometric_runs(5)), (1.0, gdp.poisson_runs(3.0)),
                                       (2.0, gdp.binomial_runs(8, 0.3)),
                                       (1.0, gdp.fixed_runs(3))])
def test_never_below_randomized_response_in_closed_form(eps, runs):
    # outputs {0, 1} with score = output: the best run is 1 iff some run gives 1
    p1, p0 = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    z = runs.p_zero

    def law(p):  # (empty, 0, 1)
        none = float(runs.pgf(np.array([1 - p]))[0])
        return np.array([z, none - z, 1 - none])

    a, b = law(p1), law(p0)
    h = gdp.tuning(gdp.f_eps_delta(eps), runs)
    for e in np.linspace(0, 3 * eps, 7):
        exact = max(np.sum(np.maximum(a - math.exp(e) * b, 0)),
                    np.sum(np.maximum(b - math.exp(e) * a, 0)))
        assert h.delta(e) >= exact * (1 - 1e-12) - 1e-15  # exact: rounding of 1e-16


@pytest.mark.parametrize("name", sorted(LAWS))
def test_never_tighter_than_one_run(name):
    h, g = tuned(name), gdp.G_mu(REF["mu"])
    assert np.all(h(ALPHA) <= g(ALPHA) + 1e-15)
    assert np.all(h.profile(ALPHA) <= g(ALPHA) + 1e-15)


@pytest.mark.parametrize("name", ["binomial(20, 0.5)", "fixed(5)"])
def test_never_looser_than_the_kmax_fold_composition(name):
    h = tuned(name)
    comp = gdp.G_mu(REF["mu"] * math.sqrt(h.runs.k_max))
    for d in (1e-3, 1e-6, 1e-9):
        assert h.epsilon(d) <= comp.epsilon(d) * (1 + 1e-3)
    assert h.epsilon(1e-6) > gdp.G_mu(REF["mu"]).epsilon(1e-6)


@pytest.mark.parametrize("name", ["geometric(10)", "poisson(10)", "tnb(0.5, gamma=0.02)"])
def test_never_looser_than_the_rdp_bound(name):
    h = tuned(name)
    for d in (1e-3, 1e-5, 1e-8):
        rdp_eps = gdp.eps_from_rdp(h.rdp, d, h.orders)
        assert h.epsilon(d) <= rdp_eps
        assert h.curve.epsilon(d) <= rdp_eps * (1 + 1e-4)  # the lines, up to their delta grid
        assert h.delta(rdp_eps) <= gdp.delta_from_rdp(h.rdp, rdp_eps, h.orders)
    # and the profile bound alone is tighter than the RDP bound for these laws at 1e-5
    if h.runs.kind == "tnb":
        assert h.profile.epsilon(1e-5) < gdp.eps_from_rdp(h.rdp, 1e-5, h.orders) - 0.5


@pytest.mark.parametrize("shape, mean", [(1.0, 10.0), (0.5, 20.0), (0.0, 5.0), (2.0, 7.0)])
def test_rdp_bound_matches_dp_accounting(shape, mean):
    o = np.array(gdp.DEFAULT_ORDERS)
    r = gdp.rdp_gaussian(0.7, o)
    runs = gdp.truncated_negative_binomial(shape=shape, mean=mean)
    theirs = np.asarray(_compute_rdp_repeat_and_select(list(o), list(r), mean, shape))
    ours = gdp.rdp_tuning(r, runs, o)
    # dp-accounting rounds gamma down to 1e-9 relative; ours is the gamma whose mean is <= m
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    theirs = np.asarray(_compute_rdp_repeat_and_select(list(o), list(r), 10.0, np.inf))
    np.testing.assert_allclose(gdp.rdp_tuning(r, gdp.poisson_runs(10.0), o), theirs,
                               rtol=1e-12)


def test_pure_dp_row_and_geometric_three_eps():
    h = gdp.tuning(gdp.f_eps_delta(0.4), gdp.geometric_runs(20))
    # (3 eps, 0)-DP (Liu-Talwar 2019), up to the rounding margin of the sound profiles
    assert 0.0 <= h.delta(1.2) <= 1e-14
    c = gdp.compare_tuning(gdp.f_eps_delta(0.4), gdp.geometric_runs(20), delta=1e-6)
    assert c["pure DP (LT19/PS22)"].epsilon == pytest.approx(1.2)
    assert c["tuning"].epsilon <= min(r.epsilon for r in c if r.kind == "bound")


def test_comparison_table_and_composition_with_other_curves():
    c = gdp.compare_tuning(gdp.G_mu(1.0), gdp.geometric_runs(10), delta=1e-5, eps=3.0)
    assert len(c) == 12 and c["single run"].epsilon < c["tuning"].epsilon \
        <= c["RDP (PS22)"].epsilon
    assert c["K_max-fold composition"].kind == "skipped"
    assert "K ~ tnb" in c.to_text() and "| tuning | bound |" in c.to_markdown()
    h = tuned("geometric(10)")
    both = gdp.compose(h, gdp.G_mu(0.5))  # a tuned run inside a larger analysis
    assert both.epsilon(1e-5) > h.epsilon(1e-5)
    assert h.is_symmetric and "tune" in h.label


def test_run_count_laws():
    g = gdp.geometric_runs(10.0)
    assert g.params == (1.0, 0.1) and g.mean == pytest.approx(10.0) and g.p_zero == 0.0
    t = gdp.truncated_negative_binomial(shape=0.5, mean=20.0)
    assert t.mean <= 20.0 and t.mean == pytest.approx(20.0, rel=1e-9)
    assert gdp.truncated_negative_binomial(shape=0.0, gamma=0.1).mean == \
        pytest.approx(0.9 / (0.1 * math.log(10)))
    p = gdp.poisson_runs(3.0)
    assert p.p_zero == pytest.approx(math.exp(-3.0)) and p.k_max is None
    b = gdp.binomial_runs(8, 0.25)
    assert b.k_max == 8 and b.mean == 2.0 and b.p_zero == pytest.approx(0.75 ** 8)
    z = np.linspace(0, 1, 11)
    for law in (g, t, p, b, gdp.fixed_runs(3)):
        phi = law.pgf(z)
        assert phi[-1] == pytest.approx(1.0) and np.all(np.diff(phi) >= 0)
        inc = law.increment(z[:-1], z[1:])
        np.testing.assert_allclose(inc, np.diff(phi), rtol=1e-12, atol=1e-300)
        d = np.exp(law.log_dpgf(z[1:]))
        assert np.all(np.diff(d) >= 0)


def test_rejects_bad_input():
    with pytest.raises(TypeError, match="exactly one of `mean` and `gamma`"):
        gdp.truncated_negative_binomial(shape=1.0)
    with pytest.raises(ValueError, match="`mean` must be a number in"):
        gdp.truncated_negative_binomial(shape=1.0, mean=0.5)
    with pytest.raises(TypeError, match="`runs` must be a RunCount"):
        gdp.tuning(gdp.G_mu(1.0), 10)
    with pytest.raises(TypeError, match="`base` must be a TradeOff"):
        gdp.tuning(1.0, gdp.geometric_runs(2))
    with pytest.raises(ValueError, match="one value per order"):
        gdp.rdp_tuning([1.0], gdp.geometric_runs(2), [2, 3])
    with pytest.raises(TypeError, match="`orders` goes with `rdp`"):
        gdp.tuning(gdp.G_mu(1.0), gdp.geometric_runs(2), orders=[2, 3])


def test_a_dpsgd_run_with_its_rdp_curve():
    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=300)
    o = np.arange(2, 65)
    r = 300 * gdp.rdp_sampled_gaussian(1.0, 0.01, o)
    tu = gdp.tuning(h, gdp.geometric_runs(10), rdp=r, orders=o)
    assert h.epsilon(1e-5) < tu.epsilon(1e-5) < gdp.eps_from_rdp(tu.rdp, 1e-5, o)
    # tuning only loses privacy: below the truth of h, hence below h's upper curve (its
    # sound lower curve and its profile come from different frames of the engine)
    assert np.all(tu(ALPHA) <= h.upper(ALPHA) + 1e-15)
    assert gdp.tuning(h, gdp.geometric_runs(10)).rdp is None  # no closed-form RDP: no row
