"""δ(ε) near the far end of a bounded support (the add order of a subsampled mechanism:
each step's loss is at most -log(1 - p)). The tilt that frames such a question is huge,
and the frame's round-off allowance, relative to the tilted mass, once dominated the sound
answer (3.4e-4 where the truth is 9.8e-9). The whole law's Chernoff bound now caps it."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import gdp


@pytest.mark.parametrize(("sigma", "p", "steps", "eps"), [
    (0.8, 1e-3, 1000, 1.0),       # 1.0 is 0.05% below the add order's top, 1.0005
    (1.0, 0.01, 100, 1.0),        # top 1.005
])
def test_delta_near_the_top_of_a_bounded_order_is_bracketed_tightly(sigma, p, steps, eps):
    top = -steps * math.log1p(-p)
    assert eps < top
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    lo, hi = map(float, h.delta_bounds(eps))
    assert 0.0 < lo <= hi
    assert hi <= lo * 1.01
    assert float(h.delta(eps)) == hi


def test_with_the_chernoff_cap_answers_stay_above_the_truth():
    # G_2 computed numerically (16 factors of G_0.5 through a generic callable): the
    # sound side stays at or above the closed form across the range
    f = gdp.from_callable(lambda a: gdp.G_mu(0.5)(a))
    h = f ** 16
    for eps in (0.5, 2.0, 6.0, 9.0):
        assert float(h.delta(eps)) >= float(gdp.G_mu(2.0).delta(eps))


def test_best_tilt_chernoff_is_above_the_exact_profile_of_its_law():
    # the cap applies the moment bound to the whole sound lattice law, whose losses may lie
    # up to `shift` below the true ones; on a law whose profile is known exactly (a
    # binomial: n copies of two atoms) it must never be below that profile at eps - shift,
    # at any threshold up to the top of the support (a shift taken the wrong way, by 0.1
    # in all, moves the profile by more than the bound's slack, a factor 3 to 12 here)
    import mpmath
    import numpy as np

    from gdp.engine.fourier import _KGF
    from gdp.engine.numeric import _best_chernoff, _Level

    a, b, qa, qb, n = 0.02, 0.05, 0.7, 0.2, 200   # P-masses qa e^a + qb e^-b <= 1
    kgf = _KGF.of_atoms([(np.array([-a, b]), np.array([qa, qb]), n)])
    shift = 0.05
    lv = _Level(1e-3, 0.0, kgf, lambda: [], shift, 0.0, kgf)
    for eps in (0.0, 1.0, 3.0, 6.0, 9.0, 9.9):
        exact = mpmath.fsum(
            mpmath.binomial(n, k) * mpmath.mpf(qb) ** k * mpmath.mpf(qa) ** (n - k)
            * max(mpmath.mpf(0), 1 - mpmath.exp(eps - shift - (k * b - (n - k) * a)))
            for k in range(n + 1))
        bound = float(_best_chernoff(lv, np.array([eps]))[0])
        assert bound >= float(exact) * (1 - 1e-12)
        assert bound <= 1.0


def test_tail_sums_keep_the_top_beside_huge_weights_below():
    # (a frame of a large tilt, untilted: its transforms' round-off at the bottom becomes
    # weights of e^7000, the true masses at the top are e^-9; scaled by the largest weight,
    # the top's tail sums underflowed to 0)
    from gdp.engine.frames import _log_tail_sums, _tail_sums

    lw = np.full(600, -np.inf)
    lw[2], lw[520], lw[530] = 7000.0, 6990.0, 1500.0   # (520 on: the top's block of 256)
    lw[590], lw[597], lw[599] = -9.1, -38.0, -45.0
    for sums, rel in (_tail_sums(lw.copy()), _log_tail_sums(lw)):
        for j in (3, 521, 531, 590, 591, 598, 599):
            exact = float(mp.log(mp.fsum(mp.e ** mp.mpf(w) for w in lw[j:] if w > -np.inf)))
            assert abs(sums.at(j) - exact) <= rel + 1e-15 * abs(exact)
        assert sums.at(600) == -np.inf


def _rr_delta(eps: np.ndarray, x: float, flips: int = 3) -> mp.mpf:
    """The true δ at ε = x of the composition of randomized responses of the ``eps``, from
    its atoms within ``flips`` sign changes of the top (the others lie below x here), in
    40 digits of the very doubles."""
    mp.mp.dps = 40
    E = [mp.mpf(float(e)) for e in eps]
    top = mp.fsum(E)
    assert top - 2 * (flips + 1) * min(E) < x  # (the atoms left out lie below x)
    tot = mp.mpf(0)
    for r in range(flips + 1):
        for S in itertools.combinations(range(len(E)), r):
            L = top - 2 * mp.fsum(E[i] for i in S)
            if L > x:
                q = mp.fprod(1 / (1 + mp.e ** (E[i] if i in S else -E[i])) for i in range(len(E)))
                tot += q * (1 - mp.e ** (mp.mpf(x) - L))
    return tot


def _rr_list(seed: int = 1) -> np.ndarray:
    """The ε of 17 to 20 randomized responses, all within a factor 5 of a log-uniform
    a in [0.005, 1] (the seeded survey's lists)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(17, 21))
    a = float(np.exp(rng.uniform(np.log(0.005), np.log(1.0))))
    return rng.uniform(0.2 * a, a, k)


@pytest.mark.parametrize("delta", [1e-10, 1e-14])
def test_a_long_list_of_randomized_responses_near_the_top_is_sound(delta):
    # (eighteen randomized responses of ε in [0.15, 0.77]: tilts of 1e6 and more; the sound
    # ε read 7.5755275 at δ = 1e-10, where the true δ is 3.65e-9, before the tail sums kept
    # the top beside the round-off below, frames._log_tail_sums)
    eps = _rr_list()
    h = gdp.compose_two_orders(*[gdp.f_eps_delta(float(e)) for e in eps])
    e = float(h.epsilon(delta))
    assert _rr_delta(eps, e) <= delta
    assert e <= float(np.sum(eps)) * (1 + 1e-12)  # (and tight: at most the top of the support)
    # the lower end: the true δ there above the δ asked (the true ε above it), and tight
    # (at 1e-14 it was 0: the frames of a tilt of 5.6e7 certify nothing a step below the
    # top; the top atom alone bounds δ from below, _Engine._top_atom_eps)
    low = float(h.epsilon_bounds(delta)[0])
    assert _rr_delta(eps, low) > delta
    assert low >= e * (1 - 1e-6)


def test_a_long_list_of_laplace_mechanisms_near_the_top_keeps_its_lower_end():
    # (eighteen Laplace mechanisms of ε in [0.005, 0.027] at δ = 1e-14: the answer lies
    # 2.6e-9 below the top of the support, where the frames certify nothing and the lower
    # end was 0; the top atom, Q-mass 2^-18 at the sum of the ε, bounds δ from below)
    rng = np.random.default_rng(3)
    eps = rng.uniform(0.005, 0.027, 18)
    h = gdp.compose_two_orders(*[gdp.laplace(float(e)) for e in eps])
    low, up = (float(v) for v in h.epsilon_bounds(1e-14))
    mp.mp.dps = 40
    top = mp.fsum(mp.mpf(float(e)) for e in eps)
    assert mp.mpf(2) ** -18 * (1 - mp.e ** (mp.mpf(low) - top)) > mp.mpf(1e-14)  # certified
    assert up <= float(top) * (1 + 1e-12)
    assert low >= up * (1 - 1e-6)


def test_the_lower_delta_near_the_top_stays_below_the_truth():
    # (the top atom bounds δ from below on the other side too, _Engine._top_atom_delta:
    # Q(1 - e^(ε - L)), rounded down; it must never exceed the true δ)
    eps = _rr_list()
    h = gdp.compose_two_orders(*[gdp.f_eps_delta(float(e)) for e in eps])
    top = float(np.sum(eps))
    for gap in (1e-3, 1e-5, 1e-9, 1e-12):
        low, up = (float(v) for v in h.delta_bounds(top - gap))
        true = _rr_delta(eps, top - gap, flips=5)
        assert low <= true <= up
        if gap >= 1e-9:  # (and tight: the top atom's bound, its loss rounded down by
            #                  about 6e-14 here, which is 6% of the gap of 1e-12)
            assert low >= float(true) * (1 - 1e-2)
