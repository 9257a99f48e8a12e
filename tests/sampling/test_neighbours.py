"""Neighbour relations: replace-one and zero-out, plain and Poisson-subsampled, Gaussian and
Laplace; the exact shift-mixture pairs behind them and the mixture-of-Gaussians mechanism.

Reference values: closed forms (G_{2/sigma}, Laplace(2 mu)); brute-force Neyman-Pearson on a
fine discretisation of the real line (``from_distributions``); a two-dimensional quadrature
of the hockey-stick divergence for non-antipodal gradients (soundness of the antipodal
pair); dp-accounting's PLD with the same relation, from tests/data/sampler_references.json
(made by tests/data/make_sampler_references.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import gdp
from gdp.sampling.mixture import ShiftMixture
from gdp.sampling.neighbours import replace_one_gaussian, replace_one_laplace

REF = json.loads((Path(__file__).parents[1] / "data" / "sampler_references.json").read_text())
ALPHAS = np.concatenate([np.linspace(0.0, 1.0, 201), np.logspace(-10, -1, 19)])


def test_plain_mechanisms_double_the_sensitivity():
    assert replace_one_gaussian(2.0) == gdp.G_mu(1.0)
    assert replace_one_laplace(0.5) == gdp.laplace(1.0)
    # p = 1 through dpsgd: exactly G_{2 sqrt(T) / sigma}
    h = gdp.dpsgd(sigma=2.0, p=1.0, steps=9, neighbours="replace-one")
    assert h == gdp.G_mu(3.0)


@pytest.mark.parametrize("kernel", ["gauss", "laplace"])
def test_replace_one_pair_is_the_mixture_curve(kernel):
    p, m = 0.3, 1.2
    f = replace_one_gaussian(1 / m, p) if kernel == "gauss" else replace_one_laplace(m, p)
    assert f.is_symmetric
    assert_allclose(f.inverse()(ALPHAS), f(ALPHAS), atol=1e-12)
    x = np.linspace(-25, 25, 400001)
    cdf = stats.norm.cdf if kernel == "gauss" else stats.laplace.cdf
    base = np.diff(cdf(x))
    P = (1 - p) * base + p * np.diff(cdf(x + m))
    Q = (1 - p) * base + p * np.diff(cdf(x - m))
    ref = gdp.from_distributions(P / P.sum(), Q / Q.sum())
    assert_allclose(f(ALPHAS), ref(ALPHAS), atol=3e-5)
    eps = np.array([0.0, 0.3, 1.0])
    assert_allclose(f.hockey_stick(eps), ref.hockey_stick(eps), atol=3e-5)


def test_shift_mixture_reduces_to_poisson_subsampling():
    for kernel, base in (("gauss", gdp.G_mu(1.0)), ("laplace", gdp.laplace(1.0))):
        f = ShiftMixture((1.0,), (0.0,), (0.9, 0.1), (0.0, 1.0), kernel=kernel)
        g = gdp.poisson_subsample(base, 0.1)
        assert_allclose(f(ALPHAS), g(ALPHAS), atol=1e-13)
        eps = np.array([-1.0, 0.0, 0.5, 2.0])
        assert_allclose(f.hockey_stick(eps), g.hockey_stick(eps), rtol=1e-12, atol=1e-15)
        assert_allclose(f.inverse().hockey_stick(eps), g.inverse().hockey_stick(eps),
                        rtol=1e-12, atol=1e-14)
        # composed by the engine through the exact law of the mixture
        a = gdp.compose_two_orders(*[f] * 40).epsilon_bounds(1e-5)
        b = gdp.compose_two_orders(*[g] * 40).epsilon_bounds(1e-5)
        # two exact descriptions of one pair, through different laws: each sound side is
        # above the other's valid lower side, and they agree to far within the engine's rtol
        assert a[1] >= b[0] and b[1] >= a[0]
        assert_allclose(a[1], b[1], rtol=1e-5)
        assert_allclose(a[0], b[0], rtol=1e-4)   # the optimistic ones up to the lattice


def test_antipodal_gradients_are_the_worst_case_in_two_dimensions():
    """Soundness of the replace-one pair: for gradients g, g' anywhere in the unit ball the
    pair ((1-p)N(0) + pN(g), (1-p)N(0) + pN(g')) has a smaller hockey-stick divergence."""
    p, eps = 0.2, np.array([0.0, 0.5, 1.0, 2.0])
    ours = replace_one_gaussian(1.0, p).hockey_stick(eps)
    t = np.linspace(-9, 9, 1201)
    X, Y = np.meshgrid(t, t, indexing="ij")
    w = (t[1] - t[0]) ** 2
    phi = np.exp(-(X ** 2 + Y ** 2) / 2) / (2 * np.pi)
    rng = np.random.default_rng(7)
    configs = [((1.0, 0.0), (-1.0, 0.0)), ((1.0, 0.0), (0.0, 0.0)), ((1.0, 0.0), (0.0, 1.0)),
               ((0.6, 0.8), (-0.6, 0.8))]
    for _ in range(4):
        a, b = rng.uniform(0, 2 * np.pi, 2)
        r1, r2 = rng.uniform(0.3, 1.0, 2)
        configs.append(((r1 * np.cos(a), r1 * np.sin(a)), (r2 * np.cos(b), r2 * np.sin(b))))
    for g, h in configs:
        pg = phi * np.exp(X * g[0] + Y * g[1] - (g[0] ** 2 + g[1] ** 2) / 2)
        ph = phi * np.exp(X * h[0] + Y * h[1] - (h[0] ** 2 + h[1] ** 2) / 2)
        A = (1 - p) * phi + p * pg
        B = (1 - p) * phi + p * ph
        num = np.array([np.sum(np.maximum(A - np.exp(e) * B, 0.0)) * w for e in eps])
        assert np.all(num <= ours + 1e-6), (g, h, num, ours)


@pytest.mark.parametrize("case", REF["replace_one_poisson_gaussian"],
                         ids=lambda c: f"s{c['sigma']}-p{c['p']}-T{c['steps']}")
def test_replace_one_against_dp_accounting(case):
    h = gdp.dpsgd(sigma=case["sigma"], p=case["p"], steps=case["steps"],
                  neighbours="replace-one")
    lo, hi = h.epsilon_bounds(case["delta"])
    assert hi == h.epsilon(case["delta"])
    assert hi >= case["eps_optimistic"]                   # never below its optimistic value
    assert abs(hi - case["eps_pessimistic"]) <= 2e-3 * case["eps_pessimistic"]  # within 0.2%
    assert lo <= case["eps_pessimistic"] + 1e-9


def test_zero_out_is_add_remove_under_poisson():
    a = gdp.dpsgd(sigma=1.0, p=0.02, steps=300)
    b = gdp.dpsgd(sigma=1.0, p=0.02, steps=300, neighbours="zero-out")
    assert a.epsilon_bounds(1e-5) == b.epsilon_bounds(1e-5)


def test_replace_one_is_never_below_add_remove():
    a = gdp.dpsgd(sigma=1.0, p=0.02, steps=300)
    b = gdp.dpsgd(sigma=1.0, p=0.02, steps=300, neighbours="replace-one")
    assert b.epsilon_bounds(1e-5)[0] > a.epsilon(1e-5)


@pytest.mark.parametrize("case", REF["mixture_gaussian"], ids=lambda c: str(c["probs"][:2]))
def test_mixture_gaussian_against_dp_accounting(case):
    f = gdp.mixture_gaussian(case["sigma"], case["sensitivities"], case["probs"])
    h = gdp.compose_two_orders(*[f] * case["steps"])
    lo, hi = h.epsilon_bounds(case["delta"])
    assert hi >= case["eps_optimistic"]
    assert abs(hi - case["eps_pessimistic"]) <= 2e-3 * case["eps_pessimistic"]


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="`neighbours` must be one of add-remove, replace-one"):
        gdp.dpsgd(sigma=1.0, p=0.1, steps=3, neighbours="replace")
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\]; got p=1.5"):
        replace_one_gaussian(1.0, 1.5)
    with pytest.raises(ValueError, match="min\\(q_shifts\\) >= max\\(p_shifts\\)"):
        ShiftMixture((1.0,), (1.0,), (1.0,), (0.0,))
    with pytest.raises(ValueError, match="`q_weights` must sum to 1"):
        ShiftMixture((1.0,), (0.0,), (0.5, 0.4), (0.0, 1.0))
    with pytest.raises(ValueError, match="`sensitivities` must be"):
        gdp.mixture_gaussian(1.0, [-1.0, 1.0], [0.5, 0.5])
