"""Tightening ``rtol`` never loosens a sound answer nor widens a bracket, between any two
accuracies finer than the default (not only against the default).

Below the default an ``rtol`` is taken down to the grid 1e-3 * 10**(-k/2) and its answers
are nested in those of every coarser grid accuracy (``gdp.engine.numeric._Nested``). Each
answer is a bound on its side, so nesting loses nothing; the tests check the order of the
ends for pairs of accuracies on and off the grid, in DP-SGD (two orders) and in a one-order
composition, and that the brackets hold an independent value of the truth.
"""

from __future__ import annotations

import math

import pytest

import gdp
from gdp.engine.numeric import _rtol_ladder


def test_the_ladder_runs_from_the_default_down_to_the_first_grid_value_at_or_below_rtol():
    r = 10.0 ** -0.5 * 1e-3
    assert _rtol_ladder(1e-3) == [] and _rtol_ladder(5e-3) == []
    assert _rtol_ladder(5e-4) == pytest.approx([r])
    assert _rtol_ladder(2e-4) == pytest.approx([r, 1e-4])
    lad = _rtol_ladder(1e-4)
    assert lad[-1] == 1e-4            # (on the grid: rtol itself, bit for bit)
    assert lad[:-1] == pytest.approx([r])
    assert _rtol_ladder(3e-5)[-1] == pytest.approx(1e-5)
    assert all(a > b for a, b in zip(lad, lad[1:], strict=False))


def _nested(outer: tuple[float, float], inner: tuple[float, float]) -> bool:
    return outer[0] <= inner[0] <= inner[1] <= outer[1]


# (the first is the Laplace-inversion reference's configuration,
# tests/engine/data/laplace_reference.json, eps 6.187712389971614)
@pytest.mark.parametrize("sigma, p, steps, delta, truth", [
    (1.0, 0.01, 10000, 1e-05, 6.187712389971614),
    # (a refusal-scan configuration whose sound end was looser at rtol 1e-4 than at 3e-4,
    # 1.1793261 against 1.1793242, when both were bounded by the default's alone)
    (0.4610103228663611, 2.632609344880955e-05, 3, 4.244072481179193e-10, None),
])
def test_dpsgd_brackets_nest_as_rtol_tightens(sigma, p, steps, delta, truth):
    brackets = [tuple(float(v) for v in gdp.dpsgd(sigma=sigma, p=p, steps=steps, rtol=r)
                      .epsilon_bounds(delta)) for r in (1e-3, 6e-4, 3e-4, 1e-4)]
    for a, b in zip(brackets, brackets[1:], strict=False):
        assert _nested(a, b), (a, b)
    assert brackets[-1][0] > 0.0
    if truth is not None:
        assert all(lo <= truth * (1 + 1e-6) and hi >= truth * (1 - 1e-6)
                   for lo, hi in brackets)


def test_one_order_compositions_nest_as_rtol_tightens():
    prev = None
    for r in (1e-3, 5e-4, 1e-4):
        h = gdp.engine.compose_numeric([(gdp.laplace(0.4), 20)], gdp.engine.accuracy(rtol=r))
        b = tuple(float(v) for v in h.epsilon_bounds(1e-6))
        assert math.isfinite(b[1]) and 0.0 < b[0] <= b[1]
        if prev is not None:
            assert _nested(prev, b), (prev, b)
        prev = b
