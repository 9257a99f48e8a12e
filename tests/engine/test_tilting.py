"""Tilting a lattice law (gdp.engine.fourier._tilt, _tilt_many): the weights times
:math:`e^K` against the tilted masses :math:`q_k e^{\\beta t_k}` in 40-digit mpmath, entry by
entry, within the relative error the tilt reports (in the direction an unsound bound would
fail: a claimed error smaller than the true one)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from gdp._numerics import EPS
from gdp.engine import fourier, lattice


def _lattice(n: int, seed: int, lo: float) -> lattice._Lat:
    rng = np.random.default_rng(seed)
    # masses over many orders of magnitude, a few zeros, a bulk near the middle
    q = np.exp(rng.uniform(lo, 0.0, n)) * (rng.random(n) > 0.01)
    q[n // 2] = 1.0
    return lattice._Lat(-(n // 3), q, 0.0, off=0.37)


def _worst(lat: lattice._Lat, it: fourier._Tilted, beta: float, h: float,
           idx: np.ndarray) -> float:
    """The largest relative error of the weights times e^K, over the entries ``idx``."""
    mp.mp.dps = 40
    worst = 0.0
    for i in idx.tolist():
        t = mp.mpf(float(lat.k0 + i) * h + lat.off)  # (the lattice point as the engine has it)
        exact = mp.mpf(float(lat.q[i])) * mp.exp(mp.mpf(beta) * t)
        got = mp.mpf(float(it.w[i])) * mp.exp(mp.mpf(it.K))
        worst = max(worst, float(abs(got / exact - 1)))
    return worst


@pytest.mark.parametrize("n,beta,h,lo", [
    (7, 3.0, 0.5, -30.0),
    (2_049, -40.0, 1e-3, -200.0),
    (300_000, 22.6, 2.3e-7, -60.0),
    (300_000, 700.0, 1e-6, -650.0),
])
def test_tilted_weights_within_the_reported_error(n, beta, h, lo):
    lat = _lattice(n, n, lo)
    it = fourier._tilt(lat, beta, h)
    big = np.flatnonzero(it.w >= 1e-30)
    rng = np.random.default_rng(1)
    # the heaviest entries, the lightest kept ones and a random sample
    order = big[np.argsort(it.w[big])]
    idx = np.unique(np.concatenate([order[:40], order[-40:],
                                    rng.choice(big, min(big.size, 120), replace=False)]))
    worst = _worst(lat, it, beta, h, idx)
    assert worst <= it.rel - lat.rel
    # the normalisation's sum does not enter the bound: a million-entry factor of a
    # composition of millions no longer carries n u of relative error per factor
    assert it.rel <= EPS * (3.0 * abs(beta) * (abs(lat.k0) + n) * h + 4 * 700 + 400)


def test_the_reported_error_does_not_grow_with_the_number_of_entries():
    small, large = _lattice(1_000, 3, -40.0), _lattice(1_000_000, 3, -40.0)
    r_small = fourier._tilt(small, 1.0, 1e-7).rel
    r_large = fourier._tilt(large, 1.0, 1e-7).rel
    assert r_large < 1.5 * r_small
    assert r_large < 1e-3 * large.q.size * EPS


def test_batched_tilts_within_the_reported_error():
    lats = [_lattice(n, n, -50.0) for n in (64, 100, 2_049, 5_000, 77, 300, 1_000, 12)]
    many = fourier._tilt_many(lats, 4.5, 1e-3)
    assert len(many) == len(lats)
    for lat, it in zip(lats, many, strict=True):
        one = fourier._tilt(lat, 4.5, 1e-3)
        assert it.rel <= 1.01 * one.rel and it.K == pytest.approx(one.K, abs=1e-12)
        big = np.flatnonzero(it.w >= 1e-30)
        assert _worst(lat, it, 4.5, 1e-3, big[:: max(1, big.size // 150)]) <= it.rel - lat.rel
