"""ε = 0 wherever δ is at least a bound on the composition's total variation distance,
1 - prod (1 - TV_i)^n_i: never below the true distance (an ε of 0 there would be unsound),
and taken where it applies (no frame is built)."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import gdp
from gdp.engine import numeric


def _tv_gauss(mu: float) -> mp.mpf:
    return 2 * mp.ncdf(mp.mpf(mu) / 2) - 1


@pytest.mark.parametrize(("sigma", "p"), [(1.0, 0.01), (3.18, 1.4e-6), (0.5, 0.3)])
def test_one_dpsgd_step_answers_zero_exactly_above_its_total_variation(sigma, p):
    """One step of DP-SGD: the distance is p TV(G_{1/sigma}) exactly, so the bound is
    tight; just below it epsilon must stay positive (both orders have that distance)."""
    mp.mp.dps = 40
    tv = float(mp.mpf(p) * _tv_gauss(1.0 / sigma))
    h = gdp.dpsgd(sigma=sigma, p=p, steps=1)
    assert float(h.epsilon(tv * (1 - 1e-6))) > 0.0
    assert float(h.epsilon_bounds(tv * (1 - 1e-6))[1]) > 0.0
    assert tuple(map(float, h.epsilon_bounds(tv * (1 + 1e-6)))) == (0.0, 0.0)


def test_a_mixed_composition_is_zero_only_above_its_largest_factor_distance(monkeypatch):
    """A Laplace, a Gaussian and a subsampled Gaussian through the numeric engine: the
    composition's distance is at least each factor's (never 0 below the largest) and at
    most 1 - prod (1 - TV_i) (0 above it, without building a frame)."""
    mp.mp.dps = 40
    tvs = [1 - mp.e ** (-mp.mpf("0.02") / 2), _tv_gauss(0.01), mp.mpf("0.05") * _tv_gauss(1.0)]
    h = gdp.compose_two_orders(gdp.laplace(0.02), gdp.G_mu(0.01),
                               gdp.poisson_subsample(gdp.G_mu(1.0), 0.05))
    below = float(max(tvs)) * (1 - 1e-6)
    assert float(h.epsilon(below)) > 0.0
    above = float(1 - math.prod(1 - t for t in tvs)) * (1 + 1e-6)
    monkeypatch.setattr(numeric._Engine, "frame", None)   # (no frame may be asked for)
    assert float(h.epsilon(above)) == 0.0
    assert tuple(map(float, h.epsilon_bounds(above))) == (0.0, 0.0)
