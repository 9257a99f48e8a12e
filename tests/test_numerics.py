"""Tests for gdp._numerics: log-space helpers and root finding."""

import mpmath
import numpy as np
import pytest
from numpy.testing import assert_allclose

from gdp._numerics import bisect_bracket, brentq_grow, log1mexp, logdiffexp

mpmath.mp.dps = 40


def _mp_log1mexp(x: float) -> float:
    # reference: log(1 - exp(x)) in mpmath with 800 digits (enough for x = -1e-300 and
    # for exp(-745) next to 1)
    with mpmath.workdps(800):
        return float(mpmath.log(1 - mpmath.exp(mpmath.mpf(x))))


@pytest.mark.parametrize("x", [-1e-300, -1e-20, -1e-8, -0.1, -np.log(2.0), -0.7, -5.0, -40.0,
                               -700.0, -740.0])
def test_log1mexp_matches_mpmath(x):
    assert_allclose(log1mexp(x), _mp_log1mexp(x), rtol=1e-14)


def test_log1mexp_edges():
    assert log1mexp(0.0) == -np.inf
    assert log1mexp(-np.inf) == 0.0
    out = log1mexp(np.array([[-1e-10, -1.0], [-30.0, -1e-300]]))
    assert out.shape == (2, 2)
    assert np.all(np.isfinite(out))


def test_log1mexp_beats_naive_near_zero():
    # log(1 - exp(x)) computed naively loses everything for x = -1e-20
    x = -1e-20
    with np.errstate(divide="ignore"):
        naive = np.log(1.0 - np.exp(x))
    assert naive == -np.inf
    assert_allclose(log1mexp(x), _mp_log1mexp(x), rtol=1e-15)


@pytest.mark.parametrize(("a", "b"), [(0.0, -1.0), (-10.0, -10.5), (700.0, 699.999),
                                      (-800.0, -900.0), (5.0, -np.inf)])
def test_logdiffexp_matches_mpmath(a, b):
    # reference: log(e^a - e^b) with mpmath at 40 digits
    ref = float(mpmath.log(mpmath.exp(mpmath.mpf(a)) - mpmath.exp(mpmath.mpf(b))))
    if np.isneginf(b):
        ref = a
    assert_allclose(logdiffexp(a, b), ref, rtol=1e-13)


def test_logdiffexp_equal_and_neginf():
    assert logdiffexp(1.0, 1.0) == -np.inf
    assert logdiffexp(-np.inf, -np.inf) == -np.inf


def test_bisect_bracket_per_entry_targets():
    # regression: the predicate compares against per-entry targets, so it must always be
    # called with the full array even after some entries have converged
    targets = np.array([0.5, 1e-3, 0.999, 0.25, 1e-12])
    calls = []

    def is_high(x):
        calls.append(x.shape)
        return x**2 >= targets

    lo, hi = bisect_bracket(is_high, np.zeros(5), np.ones(5), rtol=0.0, xtol=1e-14)
    assert all(s == (5,) for s in calls)
    assert np.all(lo**2 < targets)
    assert np.all(hi**2 >= targets)
    assert_allclose(hi, np.sqrt(targets), rtol=0, atol=2e-14)


def test_bisect_bracket_geometric_for_wide_brackets():
    # a bracket spanning 300 decades converges to relative precision in ~100 steps
    target = 3e-250
    lo, hi = bisect_bracket(lambda x: x >= target, np.array([1e-300]), np.array([1.0]),
                            rtol=1e-12)
    assert lo[0] < target <= hi[0]
    assert_allclose(hi[0], target, rtol=1e-11)


def test_bisect_bracket_scalar_and_stuck():
    lo, hi = bisect_bracket(lambda x: x >= 0.3, 0.0, 1.0)
    assert lo.shape == () and lo < 0.3 <= hi
    assert hi - lo <= 4e-16
    # a bracket that cannot be split any further stops without looping forever
    a = np.nextafter(1.0, 0.0)
    lo, hi = bisect_bracket(lambda x: x >= 1.0, np.array([a]), np.array([1.0]), rtol=0.0)
    assert lo[0] == a and hi[0] == 1.0


def test_brentq_grow_grows_the_bracket():
    root = brentq_grow(lambda x: x - 1234.5, 0.0, 1.0)
    assert_allclose(root, 1234.5, rtol=1e-14)
    assert brentq_grow(lambda x: x, 0.0, 1.0) == 0.0


def test_brentq_grow_reports_no_sign_change():
    with pytest.raises(ValueError, match=r"no sign change of the function on \[0.0, "):
        brentq_grow(lambda x: 1.0 + x, 0.0, 1.0, max_grow=5)
