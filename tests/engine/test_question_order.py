"""An answer depends on the question alone: not on what the same curve was asked before,
nor on the other values asked with it in one array (the engine caches frames, windows and
steps; each cache key must hold everything its value depends on)."""

from __future__ import annotations

import numpy as np
import pytest

import gdp
from gdp.engine.numeric import Accuracy, _Engine
from gdp.engine.planning import _FACTOR_CAP

EPSILONS = [0.05, 1.0, 3.0]
CONFIGS = [  # sigma, p, steps, deltas
    (0.8, 1e-3, 1000, [1e-2, 1e-6, 1e-12, 1e-3]),   # small p
    (0.636, 2.09e-6, 795, [1e-12, 1e-3]),           # rare events (the wide second frame)
    (1.0, 0.01, 10, [1e-2, 1e-6, 1e-12, 1e-3]),     # few steps
    # (rare events: wider windows and long-double frames chosen value by value)
    (0.9154814739343143, 3.4589831413948304e-06, 1592, [2.3702071104054875e-13, 1e-9]),
]


def _fresh(sigma: float, p: float, steps: int) -> gdp.TradeOff:
    return gdp.dpsgd(sigma=sigma, p=p, steps=steps)


@pytest.mark.parametrize(("sigma", "p", "steps", "deltas"), CONFIGS)
def test_answers_do_not_depend_on_earlier_or_companion_questions(sigma, p, steps, deltas):
    fresh_eps = {d: tuple(map(float, _fresh(sigma, p, steps).epsilon_bounds(d)))
                 for d in deltas}
    fresh_delta = {e: tuple(map(float, _fresh(sigma, p, steps).delta_bounds(e)))
                   for e in EPSILONS}
    # one curve, asked in the reverse order, sound side first, then the bracket
    h = _fresh(sigma, p, steps)
    for e in reversed(EPSILONS):
        h.delta(e)
    for d in reversed(deltas):
        assert float(h.epsilon(d)) == fresh_eps[d][1]
    for d in reversed(deltas):
        assert tuple(map(float, h.epsilon_bounds(d))) == fresh_eps[d]
    for e in EPSILONS:
        assert tuple(map(float, h.delta_bounds(e))) == fresh_delta[e]
    # all values at once, in one array
    g = _fresh(sigma, p, steps)
    got = np.asarray(g.epsilon(np.array(deltas)), dtype=float)
    assert got.tolist() == [fresh_eps[d][1] for d in deltas]
    got = np.asarray(g.delta(np.array(EPSILONS)), dtype=float)
    assert got.tolist() == [fresh_delta[e][1] for e in EPSILONS]
    # and the brackets, all at once on a fresh curve
    lo, hi = _fresh(sigma, p, steps).epsilon_bounds(np.array(deltas))
    assert list(zip(np.asarray(lo, dtype=float).tolist(), np.asarray(hi, dtype=float).tolist(),
                    strict=True)) == [fresh_eps[d] for d in deltas]
    lo, hi = _fresh(sigma, p, steps).delta_bounds(np.array(EPSILONS))
    assert list(zip(np.asarray(lo, dtype=float).tolist(), np.asarray(hi, dtype=float).tolist(),
                    strict=True)) == [fresh_delta[e] for e in EPSILONS]


def test_a_window_cached_under_a_larger_cap_still_fails_a_smaller_one():
    # the window memo ignored the cap: a window computed under max_points (2**23), e.g. by
    # a step refinement, later passed the 2**21 check a plan makes, so the step (and the
    # answer) depended on what had been asked before
    e = _Engine([(gdp.laplace(1.0), 3)], Accuracy())
    h = 2.0 / (3 << 20)          # the factor's support [-1, 1]: about 3.1M points
    wins = e._windows(h, 1, 0.0)
    assert max(kb - ka + 1 for ka, kb in wins) > _FACTOR_CAP
    with pytest.raises(ValueError, match="max_points"):
        e._windows(h, 1, 0.0, cap=_FACTOR_CAP)
