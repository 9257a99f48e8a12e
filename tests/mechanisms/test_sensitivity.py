"""Tests for gdp.sensitivity: closed forms checked against brute force over small universes.

Every sensitivity is compared with the maximum change found by enumerating all datasets
(and all their neighbours) over a small universe: the helper must never be below it
(the unsafe side) and, for these queries, equals it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from gdp import sensitivity

UNIVERSE = (-1.0, 0.0, 2.0, 3.0)  # record values for the brute-force searches


def _neighbours(data: tuple, relation: str, universe=UNIVERSE):
    """All datasets neighbouring ``data`` under ``relation``."""
    if relation in ("add_remove",):
        for v in universe:
            yield data + (v,)
        for i in range(len(data)):
            yield data[:i] + data[i + 1:]
    if relation == "replace":
        for i in range(len(data)):
            for v in universe:
                yield data[:i] + (v,) + data[i + 1:]


def _brute(query, relation: str, sizes=(1, 2, 3), universe=UNIVERSE, norm=1):
    worst = 0.0
    for n in sizes:
        for data in itertools.product(universe, repeat=n):
            q = np.atleast_1d(query(data))
            for other in _neighbours(data, relation, universe):
                if len(other) == 0:
                    continue
                diff = q - np.atleast_1d(query(other))
                worst = max(worst, float(np.linalg.norm(diff, ord=norm)))
    return worst


# --------------------------------------------------------------------------- counts
@pytest.mark.parametrize("relation", ["add_remove", "replace"])
def test_count_matches_brute_force(relation):
    brute = _brute(lambda d: sum(1 for v in d if v > 0), relation)
    assert sensitivity.count(neighbouring=relation) == brute == 1.0


def _hist(d):
    cells = [(-np.inf, 0.5), (0.5, 2.5), (2.5, np.inf)]
    return np.array([sum(1 for v in d if lo <= v < hi) for lo, hi in cells], dtype=float)


@pytest.mark.parametrize("relation", ["add_remove", "replace"])
@pytest.mark.parametrize("norm", [1, 2, np.inf])
def test_histogram_matches_brute_force(relation, norm):
    # Dwork-Roth Example 3.2: l1 sensitivity 1 under add/remove; 2 under replace
    brute = _brute(_hist, relation, norm=norm)
    assert_allclose(sensitivity.histogram(neighbouring=relation, norm=norm), brute, rtol=1e-15)


def test_histogram_values():
    assert sensitivity.histogram() == 1.0
    assert sensitivity.histogram(neighbouring="replace") == 2.0
    assert_allclose(sensitivity.histogram(neighbouring="replace", norm=2), math.sqrt(2),
                    rtol=1e-15)


@pytest.mark.parametrize("norm", [1, 2, np.inf])
def test_overlapping_counts_match_brute_force(norm):
    # three predicates a record can satisfy simultaneously
    def q(d):
        return np.array([sum(v > -2 for v in d), sum(v >= 0 for v in d),
                         sum(v > 1 for v in d)], dtype=float)

    assert_allclose(sensitivity.counts(3, norm=norm), _brute(q, "add_remove", norm=norm),
                    rtol=1e-15)


# --------------------------------------------------------------------- sums, means
@pytest.mark.parametrize("relation", ["add_remove", "replace"])
def test_clipped_sum_matches_brute_force(relation):
    lo, hi = -1.0, 3.0
    brute = _brute(lambda d: sum(min(max(v, lo), hi) for v in d), relation)
    assert sensitivity.clipped_sum(lower=lo, upper=hi, neighbouring=relation) == brute


def test_clipped_sum_values():
    assert sensitivity.clipped_sum(lower=0.0, upper=5.0) == 5.0
    assert sensitivity.clipped_sum(lower=-7.0, upper=5.0) == 7.0
    assert sensitivity.clipped_sum(lower=-7.0, upper=5.0, neighbouring="replace") == 12.0


def test_clipped_mean_replace_matches_brute_force():
    lo, hi, n = -1.0, 3.0, 3
    brute = _brute(lambda d: np.mean(d), "replace", sizes=(n,))
    assert_allclose(sensitivity.clipped_mean(lower=lo, upper=hi, n=n), brute, rtol=1e-15)


def test_clipped_mean_add_remove_is_an_upper_bound():
    # datasets of size >= 2 and their add/remove neighbours of size >= 2
    lo, hi = -1.0, 3.0
    worst = 0.0
    for n in (2, 3):
        for data in itertools.product(UNIVERSE, repeat=n):
            for other in _neighbours(data, "add_remove"):
                if len(other) >= 2:
                    worst = max(worst, abs(np.mean(data) - np.mean(other)))
    s = sensitivity.clipped_mean(lower=lo, upper=hi, n=2, neighbouring="add_remove")
    assert s >= worst
    assert_allclose(s, (hi - lo) / 3, rtol=1e-15)
    assert_allclose(worst, s, rtol=1e-12)  # attained: (2 records at -1) + a record at 3


@pytest.mark.parametrize("relation,expected", [("add_remove", 1.5), ("replace", 3.0)])
def test_clipped_vector_sum(relation, expected):
    assert sensitivity.clipped_vector_sum(clip_norm=1.5, neighbouring=relation) == expected
    # the extreme pair: +C e1 and -C e1
    rng = np.random.default_rng(0)
    v = rng.normal(size=(200, 3))
    v = v / np.maximum(1.0, np.linalg.norm(v, axis=1) / 1.5)[:, None]
    if relation == "replace":
        worst = np.max(np.linalg.norm(v[:, None, :] - v[None, :, :], axis=-1))
    else:
        worst = np.max(np.linalg.norm(v, axis=1))
    assert worst <= expected * (1 + 1e-12)  # float rounding of the clipping


# ------------------------------------------------------------- vector / norm bound
def test_vector_sensitivity():
    assert sensitivity.vector([3.0, 4.0]) == 7.0
    assert sensitivity.vector([3.0, 4.0], norm=2) == 5.0
    assert sensitivity.vector([3.0, 4.0], norm=np.inf) == 4.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=8),
       st.sampled_from([1, 2, 3, np.inf]), st.sampled_from([1, 2, 3, np.inf]))
def test_norm_bound_holds(v, p, q):
    v = np.asarray(v)
    bound = sensitivity.norm_bound(1.0, from_norm=p, to_norm=q, dim=v.size)
    assert np.linalg.norm(v, ord=q) <= bound * np.linalg.norm(v, ord=p) * (1 + 1e-12) + 1e-300


@pytest.mark.parametrize("p,q,d", [(2, 1, 16), (np.inf, 2, 9), (1, 2, 5), (2, np.inf, 7)])
def test_norm_bound_is_tight(p, q, d):
    # attained by the all-ones vector (q < p) or a basis vector (q >= p)
    v = np.ones(d) if q < p else np.eye(d)[0]
    ratio = np.linalg.norm(v, ord=q) / np.linalg.norm(v, ord=p)
    assert_allclose(sensitivity.norm_bound(1.0, from_norm=p, to_norm=q, dim=d), ratio,
                    rtol=1e-14)


# -------------------------------------------------------------------------- median
def _median(y):
    ys = sorted(y)
    return ys[(len(ys) + 1) // 2 - 1]


def _local_brute(y, grid):
    best = 0.0
    for i in range(len(y)):
        for v in grid:
            z = y[:i] + (v,) + y[i + 1:]
            best = max(best, abs(_median(z) - _median(y)))
    return best


def _a_k_brute(x, k, grid):
    best = 0.0
    n = len(x)
    for pos in itertools.combinations(range(n), k):
        for vals in itertools.product(grid, repeat=k):
            y = list(x)
            for i, v in zip(pos, vals, strict=True):
                y[i] = v
            best = max(best, _local_brute(tuple(y), grid))
    return best


@pytest.mark.parametrize("x", [(1.0, 2.0, 2.0, 4.0, 5.0), (0.0, 1.0, 3.0, 5.0),
                               (2.0, 2.0, 2.0)])
def test_median_at_distance_matches_brute_force(x):
    # universe {0, ..., 5}: the extreme replacements (0 and 5) are in it
    grid = tuple(float(v) for v in range(6))
    for k in range(0, 4):
        if k > len(x):
            break
        brute = _a_k_brute(x, k, grid)
        assert sensitivity.median_at_distance(x, k, lower=0.0, upper=5.0) == brute, k


def test_median_smooth_matches_definition():
    x = (1.0, 2.0, 2.0, 4.0, 5.0)
    grid = tuple(float(v) for v in range(6))
    for beta in (0.1, 0.5, 2.0):
        ref = max(math.exp(-k * beta) * _a_k_brute(x, k, grid) for k in range(len(x) + 1))
        assert_allclose(sensitivity.median_smooth(x, beta=beta, lower=0.0, upper=5.0), ref,
                        rtol=1e-15)


def test_median_worked_example():
    # the worked example of docs/mechanisms.md: A^(k) = 3, 5, 6, 8 (by hand) and
    # S*_{0.5} = max(3, 5 e^-0.5, 6 e^-1, 8 e^-1.5, 9 e^-2, 10 e^-2.5) = 5 e^-0.5
    x = [1.0, 2.0, 4.0, 7.0, 8.0]
    got = [sensitivity.median_at_distance(x, k, lower=0.0, upper=10.0) for k in range(6)]
    assert got == [3.0, 5.0, 6.0, 8.0, 9.0, 10.0]
    assert_allclose(sensitivity.median_smooth(x, beta=0.5, lower=0.0, upper=10.0),
                    5.0 * math.exp(-0.5), rtol=1e-15)
    assert sensitivity.median_local(x, lower=0.0, upper=10.0) == 3.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=15), st.integers(0, 14),
       st.integers(0, 20), st.floats(0.05, 3.0))
def test_median_smooth_is_a_smooth_upper_bound(data, i, v, beta):
    # NRS Def. 2.1: S(x) >= LS(x) and S(x) <= e^beta S(y) for Hamming neighbours
    x = [float(d) for d in data]
    y = list(x)
    y[i % len(x)] = float(v)
    sx = sensitivity.median_smooth(x, beta=beta, lower=0.0, upper=20.0)
    sy = sensitivity.median_smooth(y, beta=beta, lower=0.0, upper=20.0)
    assert sx >= sensitivity.median_local(x, lower=0.0, upper=20.0)
    assert abs(_median(x) - _median(y)) <= sensitivity.median_local(x, lower=0.0, upper=20.0)
    assert sx <= math.exp(beta) * sy * (1 + 1e-12)


# -------------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match=r"`neighbouring` must be 'add_remove' or 'replace'; "
                                         r"got neighbouring='swap'"):
        sensitivity.count(neighbouring="swap")
    with pytest.raises(ValueError, match=r"`norm` must be a number p >= 1 \(or inf\); "
                                         r"got norm=0.5"):
        sensitivity.histogram(norm=0.5)
    with pytest.raises(TypeError, match=r"`norm` must be 1, 2 or inf"):
        sensitivity.histogram(norm="l2")
    with pytest.raises(ValueError, match=r"`upper` must be greater than `lower`; "
                                         r"got lower=1.0, upper=1.0"):
        sensitivity.clipped_sum(lower=1.0, upper=1.0)
    with pytest.raises(ValueError, match=r"`n` must be an integer >= 1; got n=0"):
        sensitivity.clipped_mean(lower=0.0, upper=1.0, n=0)
    with pytest.raises(ValueError, match=r"`clip_norm` must be a positive finite number; "
                                         r"got clip_norm=-1.0"):
        sensitivity.clipped_vector_sum(clip_norm=-1.0)
    with pytest.raises(ValueError, match=r"`bounds` must hold at least one entry"):
        sensitivity.vector([])
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1; got k=0"):
        sensitivity.counts(0)
    with pytest.raises(ValueError, match=r"`x` must hold at least one value; "
                                         r"got an empty array"):
        sensitivity.median_smooth([], beta=0.1, lower=0.0, upper=1.0)
    with pytest.raises(ValueError, match=r"`x` must lie in \[lower, upper\] = \[0.0, 1.0\] "
                                         r"\(clip it first\); got x=2.0"):
        sensitivity.median_local([0.5, 2.0], lower=0.0, upper=1.0)
    with pytest.raises(ValueError, match=r"`beta` must be a positive finite number; "
                                         r"got beta=0.0"):
        sensitivity.median_smooth([0.5], beta=0.0, lower=0.0, upper=1.0)
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 0; got k=-1"):
        sensitivity.median_at_distance([0.5], -1, lower=0.0, upper=1.0)
    with pytest.raises(ValueError, match=r"`x` must be a real finite number \(every entry\); "
                                         r"got x=nan"):
        sensitivity.median_local([0.5, float("nan")], lower=0.0, upper=1.0)
