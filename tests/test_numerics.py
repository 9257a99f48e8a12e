"""Tests for gdp._numerics: log-space helpers, the hull, the envelope and the searches."""

import mpmath
import numpy as np
import pytest
from numpy.testing import assert_allclose

from gdp._numerics import (
    bisect_bracket,
    find_root_bracket,
    golden_section_max,
    log1mexp,
    logdiffexp,
    lower_convex_hull,
    upper_envelope,
)

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


def test_bisect_bracket_scalar_path_takes_the_array_path_midpoints():
    # one bracket given as scalars is bisected in floats: the same points visited and the
    # same final bracket as the same bracket given as a one-entry array
    rng = np.random.default_rng(7)
    for _ in range(200):
        t = float(rng.uniform(-50.0, 50.0))
        lo = t - float(abs(rng.normal())) * 10 ** rng.uniform(-3, 3)
        hi = t + float(abs(rng.normal())) * 10 ** rng.uniform(-3, 3)
        if rng.random() < 0.3:  # (positive and wide: geometric midpoints)
            t = abs(t)
            lo, hi = t * 1e-9, t * 1e6
        xtol, rtol = float(rng.choice([0.0, 1e-6])), float(rng.choice([4e-16, 1e-4]))
        seen: dict[str, list[float]] = {"s": [], "a": []}

        def rec(name, t=t, seen=seen):
            def is_high(x):
                seen[name].append(float(np.asarray(x).reshape(-1)[0]))
                return x > t
            return is_high

        s = bisect_bracket(rec("s"), lo, hi, xtol=xtol, rtol=rtol)
        a = bisect_bracket(rec("a"), np.array([lo]), np.array([hi]), xtol=xtol, rtol=rtol)
        assert seen["s"] == seen["a"] and seen["s"]
        assert s[0].shape == () and (float(s[0]), float(s[1])) == (a[0][0], a[1][0])


def _chain(x, y):
    """The textbook monotone chain (Andrew), one point at a time: the reference."""
    out = []
    for i in range(len(x)):
        while len(out) >= 2 and ((y[out[-1]] - y[out[-2]]) * (x[i] - x[out[-2]])
                                 >= (y[i] - y[out[-2]]) * (x[out[-1]] - x[out[-2]])):
            out.pop()
        out.append(i)
    return np.array(out)


@pytest.mark.parametrize("seed", range(20))
def test_lower_convex_hull_equals_the_monotone_chain(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    x = np.sort(rng.uniform(0, 1, n))
    kind = seed % 4
    if kind == 0:
        y = rng.uniform(0, 1, n)  # noise: most points go
    elif kind == 1:
        y = (x - 0.5) ** 2 + 1e-3 * rng.uniform(0, 1, n)  # nearly convex
    elif kind == 2:
        y = np.sin(20 * x)  # many local hulls
    else:
        y = -np.sqrt(x)  # concave: only the ends stay
    assert np.array_equal(lower_convex_hull(x, y), _chain(x, y))


def test_lower_convex_hull_keeps_ends_and_drops_collinear_points():
    x = np.linspace(0, 1, 11)
    assert lower_convex_hull(x, 2 * x).tolist() == [0, 10]
    assert lower_convex_hull([0.0], [1.0]).tolist() == [0]
    assert lower_convex_hull([0.0, 1.0], [1.0, 0.0]).tolist() == [0, 1]
    # the result lies below every input point (a minorant) and is convex
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(0, 1, 500))
    y = rng.uniform(0, 1, 500)
    h = lower_convex_hull(x, y)
    assert np.all(np.interp(x, x[h], y[h]) <= y + 1e-15)
    slopes = np.diff(y[h]) / np.diff(x[h])
    assert np.all(np.diff(slopes) > 0)


def test_upper_envelope_matches_the_pointwise_maximum():
    # the lines 1 - d - e^t alpha and e^-t (1 - d - alpha) of a privacy profile, t >= 0
    rng = np.random.default_rng(3)
    t = rng.uniform(0, 3, 100)
    d = rng.uniform(0, 0.3, 100)
    s = np.concatenate([np.exp(t), np.exp(-t)])
    c = np.concatenate([1 - d, np.exp(-t) * (1 - d)])
    a, b = upper_envelope(s, c)
    grid = np.linspace(0, 1, 2001)
    brute = np.clip(np.max(c[None, :] - s[None, :] * grid[:, None], axis=1), 0.0, None)
    brute = np.minimum(brute, 1.0 - grid)
    assert_allclose(np.interp(grid, a, b), brute, atol=1e-12)
    assert a[0] == 0.0 and a[-1] == 1.0


def test_find_root_bracket_brackets_the_roots_of_every_entry():
    targets = np.array([1e-300, 1e-8, 0.3, 2.0, 1e6])
    xl, xr, fl, fr = find_root_bracket(lambda x, t: x - t, 0.0, 1e7, args=(targets,))
    assert np.all(fl <= 0) and np.all(fr >= 0)  # the root lies in every final bracket
    assert np.all(xl <= targets) and np.all(targets <= xr)
    # scipy stops at an exact zero (then that end is the root) or at a 4-ulp bracket
    root = np.where(fl == 0, xl, xr)
    assert_allclose(root, targets, rtol=1e-15)


def test_golden_section_max_finds_interior_and_end_maxima():
    a, c, d, b, *_ = golden_section_max(lambda x: -(x - np.array([0.3, 0.0, 1.0])) ** 2,
                                        np.zeros(3), np.ones(3), 90)
    mid = 0.5 * (a + b)
    assert_allclose(mid, [0.3, 0.0, 1.0], atol=1e-12)
