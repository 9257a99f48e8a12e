"""Long powers by tail sums (:func:`~gdp.engine.fourier._tail_sum_power`): the bound of
every coefficient holds against 40-digit arithmetic, it is far below the n·γ of the power of
the law's own transform, and a frame composed so agrees with one composed without."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import gdp
from gdp._numerics import EPS
from gdp.engine import fourier
from gdp.engine.fourier import (
    _EXTENDED,
    _compose,
    _gamma,
    _power_spectrum,
    _spectrum,
    _step_multiplier,
    _tail_sum_power,
    _Tilted,
    _wrapped,
)


def _law(kind: str) -> tuple[np.ndarray, int, int]:
    """Weights (mass about 1), N and n: a bulk a few points wide with a thin tail, as the
    tilted law of a rarely sampled step at a fine lattice step."""
    j = np.arange(120, dtype=float)
    sd, tail, n, N = {"bulk": (1.0, 1e-3, 2000, 512), "narrow": (0.7, 1e-4, 20000, 1024),
                      "wide": (3.0, 0.05, 64, 256)}.get(kind, (0, 0, 0, 0))
    if sd:  # (wide: |D| over 3/4 at some kept frequencies, bounded there)
        w = np.exp(-0.5 * ((j - 8.0) / sd) ** 2)
        w *= (1.0 - tail) / w.sum()
        t = np.where(j >= 12, np.exp(-j / 30.0), 0.0)
        w += tail * t / t.sum()
        return w, N, n
    if kind == "edge":        # the bulk at the window's first points (centre 1)
        w = np.exp(-j / 1.5) + 1e-4 * np.exp(-j / 30.0)
        return w / w.sum(), 1024, 2000
    if kind == "folded":      # more entries than the N points: folded onto them
        k = np.arange(400, dtype=float)
        w = np.exp(-0.5 * ((k - 30.0) / 1.5) ** 2) + 1e-6 * np.exp(-k / 100.0)
        return w / w.sum(), 256, 300
    raise ValueError(kind)


def _reference(w: np.ndarray, center: int, N: int, n: int) -> tuple[list, mp.mpf]:
    """(Z e^(i w c) / S)^n at the N/2 + 1 frequencies, in 40 digits, and S = sum of w."""
    mp.mp.dps = 40
    roots = [mp.expjpi(mp.mpf(-2 * k) / N) for k in range(N)]
    ws = [mp.mpf(float(v)) for v in w]
    S = mp.fsum(ws)
    out = []
    for m in range(N // 2 + 1):
        z = mp.fsum(v * roots[(m * (j - center)) % N] for j, v in enumerate(ws))
        out.append((z / S) ** n)
    return out, S


@pytest.mark.parametrize("kind", ["bulk", "narrow", "wide", "edge", "folded"])
def test_tail_sum_power_is_within_its_bound(kind):
    w, N, n = _law(kind)
    center = int(round(float(np.sum(w * np.arange(w.size)))))
    g = _gamma(N)
    r = _tail_sum_power(w, center, N, n, g)
    assert r is not None
    E, dE, log_a, rel_a, ratio = r
    ref, S = _reference(w, center, N, n)
    dev = np.array([float(abs(mp.mpc(complex(e)) - z)) for e, z in zip(E, ref, strict=True)])
    assert np.all(dev <= dE)
    assert np.count_nonzero(dE > 1.001e-40) >= 15  # (a band of coefficients, not one)
    # the mass factored out: a = S within rel_a / n, (S / a)^n within rel_a
    assert abs(float(n * (mp.log(S) - mp.mpf(log_a)))) <= rel_a
    # far below the bound of the power of the law's own transform
    Z, gz = _spectrum(_wrapped(w, center, N), g)
    _, dE_own = _power_spectrum(Z, n, gz)
    assert np.sqrt(np.sum(dE * dE)) < 0.1 * np.sqrt(np.sum(dE_own * dE_own))
    assert ratio > 0


def test_tail_sums_are_refused_where_the_transform_does_better():
    # two points far apart (a factor of 0.5 at 0 and at 100): |D| is 2 at a frequency
    # where |Z| is 1, so the tail sums' route bounds nothing there
    w = np.zeros(101)
    w[0] = w[100] = 0.5
    assert _tail_sum_power(w, 50, 256, 1000, _gamma(256)) is None


def test_composition_asked_in_long_double_goes_by_tail_sums_where_they_do_as_well(
        monkeypatch):
    # a bulk 5 points wide with a thin tail, 10^7 times: the tail sums' bound grows with
    # about sqrt(n), the transform's with n (in long double, by 1e-19 per factor)
    j = np.arange(400, dtype=float)
    w = np.exp(-0.5 * ((j - 100.0) / 5.0) ** 2) + 1e-3 * np.exp(-j / 50.0)
    w /= w.sum()
    it = _Tilted(-100, w, -0.2, 0.0, 0.0)
    n, N = 10_000_000, 1 << 17
    # (the window around the composed law: mean n (k0 + E j), spread about 16,000 points)
    KA = round(n * (-100 + float(np.sum(w * j)))) - N // 2
    a = _compose([(it, n)], KA, N, _EXTENDED)
    b = _compose([(it, n)], KA, N)
    monkeypatch.setattr(fourier, "_by_tail_sums", lambda *args: None)
    c = _compose([(it, n)], KA, N, _EXTENDED)
    assert a.roundoff < 1e-2 * b.roundoff
    assert a.roundoff <= c.roundoff            # (no worse than the long double transforms)
    for d in (b, c):
        ca, cd = a.c * np.exp(a.K), d.c * np.exp(d.K)
        tol = (a.tau * math.exp(a.K) + d.tau * math.exp(d.K)) + 1e-6 * np.maximum(ca, cd)
        assert np.all(np.abs(ca - cd) <= tol)


def test_long_double_stays_where_tail_sums_do_worse(monkeypatch):
    # a law on two points 40 apart: the tail sums' bound grows with the spread, the
    # transform's does not
    # (the size gate let through: the ratio alone decides)
    monkeypatch.setattr(fourier, "_TAIL_SUMS_FROM", 1)
    w = np.zeros(41)
    w[0], w[40] = 0.7, 0.3
    it = _Tilted(0, w, 0.0, 0.0, 0.0)
    r = _tail_sum_power(w, 12, 1 << 12, 100, _gamma(1 << 12))
    assert r is None or r[4] < fourier._TAIL_SUMS_RATIO
    a = _compose([(it, 100)], 0, 1 << 12, _EXTENDED)
    monkeypatch.setattr(fourier, "_by_tail_sums", lambda *args: None)
    b = _compose([(it, 100)], 0, 1 << 12, _EXTENDED)
    assert a.roundoff == b.roundoff and np.array_equal(a.c, b.c)
    assert a.roundoff < 1e-3 * _compose([(it, 100)], 0, 1 << 12).roundoff


def _powers_seen(monkeypatch) -> list[tuple[int, object]]:
    """The (size, precision) of every power of a transform taken from now on."""
    powers = []
    power_spectrum = fourier._power_spectrum

    def spy(Z, n, g, pr=fourier._DOUBLE):
        powers.append((Z.size, pr))
        return power_spectrum(Z, n, g, pr)

    monkeypatch.setattr(fourier, "_power_spectrum", spy)
    return powers


def test_rare_steps_go_by_tail_sums_in_double(monkeypatch):
    # sigma = 0.8333, p = 3e-6, 10^7 steps, delta = 1e-10: the refinement's frames went to
    # long double (1.1 s of 2.2 s), whose round-off, n gamma, was still most of their
    # allowance; by tail sums the double frames err less, and the large ones are composed
    # in double where long double is asked (0.95 s)
    powers = _powers_seen(monkeypatch)
    m = gdp.dpsgd(sigma=0.8333, p=3e-6, steps=10_000_000)
    eps = m.epsilon(1e-10)
    # (the frames of a million points and more by tail sums in double, not in long double)
    assert powers and not any(pr is _EXTENDED for size, pr in powers if size > 200_000)
    # 0.0923846 before (long double frames); dp-accounting-free check: the other side
    lo, hi = m.epsilon_bounds(1e-10)
    assert lo <= hi == eps
    assert hi < 0.0923846 and (hi - lo) / hi < 1e-3


def test_tail_sums_within_twice_long_double_are_taken(monkeypatch):
    # sigma = 0.6, p = 1e-6, 10^6 steps, delta = 1e-6: the two largest frames (0.8 and 1.2
    # million points) are asked in long double, and their powers by tail sums bound the
    # round-off within 0.54 and 0.75 of long double's; taken, the answer moves by 5e-8
    # of itself (1.46 -> 0.93 s)
    powers = _powers_seen(monkeypatch)
    eps = float(gdp.dpsgd(sigma=0.6, p=1e-6, steps=1_000_000).epsilon(1e-6))
    assert powers and not any(pr is _EXTENDED for size, pr in powers if size > 300_000)
    powers.clear()
    monkeypatch.setattr(fourier, "_TAIL_SUMS_RATIO", 1.0)
    ld = float(gdp.dpsgd(sigma=0.6, p=1e-6, steps=1_000_000).epsilon(1e-6))
    assert any(pr is _EXTENDED for size, pr in powers if size > 300_000)
    assert abs(eps - ld) <= 1e-6 * ld


@pytest.mark.parametrize("N", [64, 65, 66, 67, 1001, 4096])
def test_step_multiplier_is_within_five_units_of_its_modulus(N):
    mp.mp.dps = 30
    f, af = _step_multiplier(N)
    assert f.size == af.size == N // 2 + 1
    for m in range(N // 2 + 1):
        z = mp.expjpi(mp.mpf(-2 * m) / N) - 1
        bound = 5 * EPS * float(abs(z))
        assert abs(complex(f[m]) - complex(z)) <= bound + 1e-300
        assert abs(float(af[m]) - float(abs(z))) <= bound + 1e-300


def test_composition_by_tail_sums_holds_the_exact_law_within_its_allowances(monkeypatch):
    # 10^7 factors of Poisson(25) (truncated at 150: 1e-40 of mass dropped), asked in long
    # double and composed by tail sums: the exact composition is Poisson(2.5e8). Every
    # composed mass lies within (1 + rel) c + tau of it above and (1 - rel) c - tau below,
    # against scipy's pmf everywhere and 40-digit mpmath at seven points
    from scipy import stats

    n, lam, N = 10**7, 25.0, 1 << 18
    w = stats.poisson.pmf(np.arange(150), lam)
    w /= w.sum()
    L = n * lam
    KA = round(L) - N // 2
    items = [(_Tilted(0, w, 0.0, 0.0, 0.0), n)]
    c = _compose(items, KA, N, _EXTENDED)
    monkeypatch.setattr(fourier, "_by_tail_sums", lambda *args: None)
    assert c.roundoff < 0.5 * _compose(items, KA, N, _EXTENDED).roundoff  # (by tail sums)
    m = c.c * math.exp(c.K)
    allow = c.tau * math.exp(c.K)
    k = KA + np.arange(N)
    exact = stats.poisson.pmf(k, L)
    assert np.all(exact <= (1 + c.rel_up) * m + allow)
    assert np.all(exact >= (1 - c.rel_lo) * m - allow)
    mp.mp.dps = 40
    for z in (-7, -5, -3, 0, 3, 5, 7):
        j = round(L + z * math.sqrt(L))
        e = float(mp.exp(-mp.mpf(L) + j * mp.log(L) - mp.loggamma(j + 1)))
        assert (1 - c.rel_lo) * m[j - KA] - allow <= e <= (1 + c.rel_up) * m[j - KA] + allow

