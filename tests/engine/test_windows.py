"""A factor's lattice window reaches its quantiles exactly (an atom at the upper quantile,
one ulp beyond the last lattice point, was charged to +inf whole)."""

from __future__ import annotations

import math

import gdp
from gdp.engine.planning import _window_of


def test_window_points_reach_the_quantiles():
    h, off = 0.02264150943396226, 0.011320754717117909
    lo, hi = -2.999999999999863, 3.0000000000001363
    ka, kb = _window_of((lo, hi, lo, hi), h, 1 << 20, off)
    assert kb * h + off >= hi
    assert ka * h + off <= lo


def test_exact_atomic_power_composed_with_a_gaussian_is_finite():
    # the top atom of laplace(0.3) ** 10 (loss 3, Q-mass 1e-3) fell one ulp outside its
    # window at one step: epsilon(1e-5) was inf
    h = gdp.laplace(0.3) ** 10 @ gdp.G_mu(0.5)
    lo, hi = h.epsilon_bounds(1e-5)
    assert math.isfinite(hi) and lo <= h.epsilon(1e-5) == hi
    assert hi <= lo * 1.002
