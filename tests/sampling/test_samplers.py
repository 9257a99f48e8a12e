"""Fixed-size batches and shuffling: sound answers with valid lower bounds.

Reference values: closed forms (no amplification G_{c sqrt(E)/sigma}; p = 1); the lower
bounds are explicit neighbouring datasets, themselves exact computations (Poisson DP-SGD at
sigma/2, random allocation); RDP accountants for sampling without replacement under
replace-one (dp-accounting and autodp, tests/data/sampler_references.json), which ours must
not exceed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gdp
from gdp.sampling.samplers import SamplerBracket

REF = json.loads((Path(__file__).parents[1] / "data" / "sampler_references.json").read_text())


def test_fixed_full_batch_and_one_step_reduce_to_known_cases():
    assert gdp.dpsgd(sigma=2.0, p=1.0, steps=4, sampler="fixed",
                     neighbours="replace-one") == gdp.G_mu(2.0)
    one = gdp.dpsgd(sigma=1.0, p=0.1, steps=1, sampler="fixed", neighbours="replace-one")
    ref = gdp.subsample(gdp.G_mu(2.0), 0.1)            # DRS Thm 4.2, exact
    assert one.epsilon(1e-5) == ref.epsilon(1e-5)
    lo, hi = one.epsilon_bounds(1e-5)
    assert lo == pytest.approx(hi, rel=1e-9)           # one step: the bracket closes


@pytest.mark.parametrize("neighbours,c", [("replace-one", 2.0), ("zero-out", 1.0)])
def test_fixed_bracket_sides(neighbours, c):
    h = gdp.dpsgd(sigma=1.0, p=0.05, steps=200, sampler="fixed", neighbours=neighbours)
    assert isinstance(h, SamplerBracket) and h.sound_bound and h.lower_bound
    deltas = np.array([1e-3, 1e-5, 1e-7])
    lo, hi = h.epsilon_bounds(deltas)
    assert np.all(lo <= hi) and np.all(hi == h.epsilon(deltas))
    lower_run = gdp.dpsgd(sigma=1.0 / c, p=0.05, steps=200)
    assert np.allclose(lo, lower_run.epsilon_bounds(deltas)[0])
    # the sound side is at least the exact answer of the explicit datasets
    assert np.all(hi >= lower_run.epsilon(deltas) - 1e-9)


@pytest.mark.parametrize("case", REF["wor_rdp"], ids=lambda c: f"s{c['sigma']}")
def test_fixed_is_no_looser_than_rdp(case):
    h = gdp.dpsgd(sigma=case["sigma"], p=case["b"] / case["n"], steps=case["steps"],
                  sampler="fixed", neighbours="replace-one")
    eps = h.epsilon(case["delta"])
    assert eps <= case["eps_dp_accounting_rdp"]
    assert eps <= case["eps_autodp_rdp"]


@pytest.mark.parametrize("neighbours,c", [("zero-out", 1.0), ("replace-one", 2.0)])
def test_shuffle_bracket(neighbours, c):
    sigma, T = 2.0, 10
    h = gdp.dpsgd(sigma=sigma, p=1 / T, steps=3 * T, sampler="shuffle", neighbours=neighbours)
    assert h.lower == gdp.G_mu(c * np.sqrt(3) / sigma)      # no amplification, exact
    lo, hi = h.epsilon_bounds(1e-5)
    assert 0 < lo < hi == gdp.G_mu(c * np.sqrt(3) / sigma).epsilon(1e-5)
    # the lower side is random allocation over the 3 epochs with m = c / sigma
    alloc = gdp.dpsgd(sigma=sigma / c, p=1 / T, steps=3 * T, sampler="allocation")
    assert lo <= alloc.epsilon(1e-5)
    assert lo >= 0.98 * alloc.epsilon_bounds(1e-5)[0]
    # a partial last epoch counts as a whole one on the sound side
    part = gdp.dpsgd(sigma=sigma, p=1 / T, steps=3 * T + 1, sampler="shuffle",
                     neighbours=neighbours)
    assert part.lower == gdp.G_mu(c * 2.0 / sigma)


def test_shuffle_one_batch_per_epoch_is_exact():
    assert gdp.dpsgd(sigma=2.0, p=1.0, steps=4, sampler="shuffle",
                     neighbours="zero-out") == gdp.G_mu(1.0)


@pytest.mark.parametrize("kw,match", [
    (dict(sampler="fixed"), "sampler='fixed' has no known analysis for neighbours='add-remove'"),
    (dict(sampler="shuffle"), "an added record moves the boundaries"),
    (dict(sampler="bins"), "`sampler` must be one of poisson, fixed, shuffle, allocation"),
    (dict(sampler="shuffle", neighbours="zero-out", p=0.3), "1/p .* must be an integer"),
    (dict(p=1.5), r"`p` must be a number in \(0, 1\]"),
])
def test_bad_combinations_name_the_arguments(kw, match):
    args = dict(sigma=1.0, p=0.1, steps=10) | kw
    with pytest.raises(ValueError, match=match):
        gdp.dpsgd(**args)


def test_phases_with_another_sampler_are_refused():
    with pytest.raises(TypeError, match="`phases` is for sampler='poisson'"):
        gdp.dpsgd(phases=[dict(sigma=1.0, p=0.1, steps=3)], sampler="fixed",
                  neighbours="replace-one")


def test_same_call_same_answer():
    kw = dict(sigma=1.0, p=0.1, steps=30, sampler="shuffle", neighbours="zero-out")
    assert gdp.dpsgd(**kw).epsilon_bounds(1e-5) == gdp.dpsgd(**kw).epsilon_bounds(1e-5)
