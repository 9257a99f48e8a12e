"""User-level DP-SGD (groups) and random allocation.

Reference values: dp-accounting's mixture-of-Gaussians PLD with binomial weights (the
user-level pair) and seeded Monte Carlo estimates of the allocation epoch profile with
standard errors, both from tests/data/sampler_references.json
(tests/data/make_sampler_references.py); a two-dimensional quadrature of the T = 2 epoch;
closed forms for the reductions (k = 1, p = 1, one step per epoch); the generic group bound
1 - (1 - f)^{o k} (DRS Thm 2.14) as the curve ours must dominate.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import gdp
from gdp.sampling.allocation import allocation_epoch
from gdp.sampling.group import group_gaussian_step

REF = json.loads((Path(__file__).parents[1] / "data" / "sampler_references.json").read_text())


# ---------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------
def test_group_size_one_is_todays_result():
    a = gdp.dpsgd(sigma=1.0, p=0.02, steps=300)
    b = gdp.dpsgd(sigma=1.0, p=0.02, steps=300, group_size=1)
    assert a.epsilon_bounds(1e-5) == b.epsilon_bounds(1e-5)
    assert group_gaussian_step(1.0, 0.02, 1) == gdp.poisson_subsample(gdp.G_mu(1.0), 0.02)


def test_group_with_full_batches_is_group_privacy_of_the_gaussian():
    assert gdp.dpsgd(sigma=2.0, p=1.0, steps=4, group_size=3) == gdp.G_mu(3.0)


def test_group_against_dp_accounting_mixture():
    case = REF["mixture_gaussian"][2]  # k = 3, p = 0.01, sigma = 1, 1000 steps
    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=case["steps"], group_size=3)
    lo, hi = h.epsilon_bounds(1e-5)
    assert hi >= case["eps_optimistic"]
    assert abs(hi - case["eps_pessimistic"]) <= 2e-3 * case["eps_pessimistic"]


def test_group_dominates_the_generic_group_bound():
    sigma, p, steps, k = 1.0, 0.02, 200, 3
    ours = gdp.dpsgd(sigma=sigma, p=p, steps=steps, group_size=k)
    generic = gdp.dpsgd(sigma=sigma, p=p, steps=steps).group(k)
    a = np.concatenate([np.logspace(-8, -1, 15), np.linspace(0.1, 0.9, 17)])
    assert np.all(ours(a) >= generic(a) - 1e-12)        # a higher curve: tighter, never looser
    assert np.any(ours(a) > generic(a) + 1e-3)          # and strictly tighter somewhere
    # one step: the exact pair is at least the group curve of the exact step
    one = group_gaussian_step(sigma, p, k)
    gen1 = gdp.subsample(gdp.G_mu(1 / sigma), p).group(k)
    sym = gdp.compose_two_orders(one)
    assert np.all(sym(a) >= gen1(a) - 1e-9)


def test_group_errors_name_the_arguments():
    with pytest.raises(ValueError, match="`group_size` must be an integer"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=3, group_size=0)
    with pytest.raises(ValueError, match="group_size=2 is analysed for sampler='poisson'"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=3, group_size=2, neighbours="replace-one")
    with pytest.raises(ValueError, match="group_size=2 is analysed for sampler='poisson'"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=3, group_size=2, sampler="fixed",
                  neighbours="replace-one")


# ---------------------------------------------------------------------------
# random allocation
# ---------------------------------------------------------------------------
def test_one_step_per_epoch_is_the_gaussian():
    e = allocation_epoch(1.0, 1)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    lo, hi = e.upper.hockey_stick(eps), e.lower.hockey_stick(eps)
    ref = gdp.G_mu(1.0).hockey_stick(eps)
    assert np.all(lo <= ref + 1e-15) and np.all(ref <= hi)
    assert np.all(hi - lo <= 2e-4 * np.maximum(ref, 1e-3))
    assert gdp.dpsgd(sigma=2.0, p=1.0, steps=9, sampler="allocation") == gdp.G_mu(1.5)


@pytest.mark.parametrize("case", REF["allocation_monte_carlo"], ids=lambda c: f"T{c['T']}")
def test_allocation_epoch_against_monte_carlo(case):
    e = allocation_epoch(case["m"], case["T"])
    eps = np.array(case["eps"])
    z = 4.0  # a 4-sigma band: the Monte Carlo estimate is a random variable
    for key, sound, other in (("remove", e.lower, e.upper),
                              ("add", e.lower.inverse(), e.upper.inverse())):
        mc, se = np.array(case[f"delta_{key}"]), np.array(case[f"se_{key}"])
        hi, lo = sound.hockey_stick(eps), other.hockey_stick(eps)
        assert np.all(hi >= mc - z * se), (key, hi, mc, se)   # above the lower confidence limit
        # below the upper one, where the sample saw the event at all (se = 0: no hits, no band)
        seen = se > 0
        assert np.all(lo[seen] <= mc[seen] + z * se[seen]), (key, lo, mc, se)
        assert np.all(lo <= hi + 1e-15)


def test_allocation_epoch_against_quadrature():
    m = 1.0
    t = np.linspace(-9, 11, 2001)
    w = (t[1] - t[0]) ** 2
    Y1, Y2 = np.meshgrid(t, t, indexing="ij")
    phi = np.exp(-(Y1 ** 2 + Y2 ** 2) / 2) / (2 * np.pi)
    lam = 0.5 * (np.exp(m * Y1 - m * m / 2) + np.exp(m * Y2 - m * m / 2))
    e = allocation_epoch(m, 2)
    for eps in (0.0, 0.5, 1.0, 2.0):
        ref = float(np.sum(phi * np.maximum(lam - math.exp(eps), 0.0)) * w)
        lo, hi = float(e.upper.hockey_stick(eps)), float(e.lower.hockey_stick(eps))
        assert lo - 1e-7 <= ref <= hi + 1e-7, (eps, lo, ref, hi)
        assert hi - lo <= 2e-3 * ref + 1e-9


def test_allocation_run_brackets_and_is_below_poisson():
    kw = dict(sigma=1.0, p=1 / 20, steps=100)
    a = gdp.dpsgd(**kw, sampler="allocation")
    lo, hi = a.epsilon_bounds(1e-5)
    assert 0 < lo <= hi == a.epsilon(1e-5)
    assert hi - lo <= 0.01 * hi
    # random allocation is at least as private as Poisson sampling at the same rate
    # (Feldman & Shenfeld 2026): its lower bound cannot exceed the Poisson number
    assert lo <= gdp.dpsgd(**kw).epsilon(1e-5)
    # a partial last epoch: between the full epochs before and after it
    part = gdp.dpsgd(sigma=1.0, p=1 / 20, steps=110, sampler="allocation").epsilon(1e-5)
    more = gdp.dpsgd(sigma=1.0, p=1 / 20, steps=120, sampler="allocation").epsilon(1e-5)
    assert hi <= part <= more


def test_allocation_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="needs whole batches per epoch"):
        gdp.dpsgd(sigma=1.0, p=0.3, steps=10, sampler="allocation")
    with pytest.raises(ValueError, match="sampler='allocation' has no known analysis for "
                                         "neighbours='replace-one'"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=10, sampler="allocation", neighbours="replace-one")
    with pytest.raises(ValueError, match="heavy tail for small noise"):
        allocation_epoch(8.0, 10)


def test_deterministic():
    a = allocation_epoch(1.0, 7)
    b = allocation_epoch(1.0, 7)
    assert np.array_equal(a.lower.alpha, b.lower.alpha)
    assert np.array_equal(a.upper.beta, b.upper.beta)
