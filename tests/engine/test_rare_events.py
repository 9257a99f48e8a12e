"""Laws concentrated on a few lattice points (rarely sampled steps): the spectrum's error
bound holds, the other side keeps the bulk where it is, and brackets do not collapse."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import gdp
from gdp.core.tradeoff import Bracketed
from gdp.engine import numeric
from gdp.engine.fourier import _compose, _gamma, _spectrum, _Tilted
from gdp.engine.jumps import _OfLaw
from gdp.engine.lattice import _disc_opt
from gdp.engine.laws import law_of
from gdp.engine.planning import _offset


@pytest.mark.parametrize("spike", [True, False, "light", "pairs", "thirds"])
def test_spectrum_error_bound_holds(spike):
    """The bound holds; the four heaviest entries enter exactly where they hold half the
    mass, even when three of them are light ("light": 0.47 and three of 0.012, below 1/64
    of the mass each, and the rest spread thinly), and where they sit at offsets -1, 0, 1
    and 2 of index 0 ("pairs", the bulk of a rarely sampled step: k and N - k share one
    root, conjugated; "thirds": offsets -2 … 3, N = 241, the root of 3m read in three
    runs). The weights are left as given."""
    rng = np.random.default_rng(3)
    N = 241 if spike == "thirds" else 240
    x = rng.random(N) * (1e-5 if spike else 1.0)
    if spike == "pairs":
        x[[0, 1, N - 1, 2]] += [0.9, 0.05, 0.04, 0.006]
    elif spike == "thirds":
        x[[0, 3, N - 2, 1]] += [0.9, 0.05, 0.04, 0.006]
    elif spike == "light":
        x *= 0.5 / x.sum()
        x[17] += 0.47
        x[[40, 90, 200]] += 0.012
    elif spike:
        x[17] += 0.999
        x[18] += 0.01
    x /= x.sum()
    given = x.copy()
    Z, err = _spectrum(x, _gamma(N))
    assert np.array_equal(x, given)
    ref = [sum(np.longdouble(v) * np.exp(np.clongdouble(-2j * np.pi) * np.longdouble(m * k % N)
                                         / N) for k, v in enumerate(x))
           for m in range(N // 2 + 1)]
    dev = np.max(np.abs(np.array(ref, dtype=np.clongdouble) - Z.astype(np.clongdouble)))
    assert float(dev) <= err
    if spike == "light":  # half the mass enters exactly: about 0.65 gamma, not 1
        assert err < 0.8 * _gamma(N)
    elif spike:  # the heavy entries enter exactly: the bound is well below gamma
        assert err < 0.3 * _gamma(N)
    else:
        assert err >= 0.99 * _gamma(N)


def test_other_side_keeps_a_narrow_bulk_on_its_lattice_point():
    f = gdp.poisson_subsample(gdp.G_mu(1 / 0.63), 3.3e-6)
    law = law_of(f)
    h = 2.5e-3
    off = _offset(law, h)
    assert 0.0 <= off < h
    lat = _disc_opt(law, h, -1, 2048, off)
    t = (lat.k0 + np.arange(lat.q.size)) * h + lat.off
    heavy = int(np.argmax(lat.q))
    assert lat.q[heavy] > 0.999            # the bulk is balanced where it is, not rounded
    assert abs(t[heavy]) < 1e-4            # ... a step down (-2.5e-3)


@pytest.mark.parametrize("cfg", [
    (0.8679013812904268, 2.586708563435352e-05, 32, 2.434863161618144e-10, 0.0107121,
     0.0107301),
    (0.6284111881493792, 3.339622009127914e-06, 38, 4.0977652945249035e-10, 0.0095098,
     0.00963601),
])
def test_rare_event_brackets_hold_and_do_not_collapse(cfg):
    # ref_lower, ref_upper: dp-accounting's optimistic and pessimistic eps (stored data)
    s, p, t, delta, ref_lower, ref_upper = cfg
    lo, hi = gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta)
    assert lo <= hi
    assert lo <= ref_upper               # the other end is below an independent upper value
    assert hi >= ref_lower               # the sound end is above an independent lower bound
    assert lo >= 0.5 * ref_lower         # was below 0.06 of it before
    assert math.isfinite(hi)


def test_spike_power_error_bound_holds():
    from gdp.engine.fourier import _spike_power

    rng = np.random.default_rng(11)
    N, n = 128, 40
    x = rng.random(N) * 1e-4
    x[0] = 0.99
    x /= x.sum()
    given = x.copy()
    E, dE, log_a = _spike_power(x, n, _gamma(N))
    assert np.array_equal(x, given)  # (its rest is transformed in place, then restored)
    a = np.longdouble(x[0])
    ref = []
    for m in range(N // 2 + 1):
        z = sum(np.longdouble(v) * np.exp(np.clongdouble(-2j * np.pi) * np.longdouble(m * k % N)
                                          / N) for k, v in enumerate(x))
        ref.append((z / a) ** n)
    dev = np.abs(np.array(ref, dtype=np.clongdouble) - E.astype(np.clongdouble))
    assert np.all(dev.astype(float) <= dE)
    assert math.isclose(log_a, math.log(x[0]))
    # the bound is relative to the rest's mass: far below n * gamma at low frequencies
    assert float(dE[0]) < 0.05 * n * _gamma(N) * abs(E[0])


def test_window_from_a_pooled_law_does_not_let_the_bulk_wrap():
    # a window chosen from pooled atoms started above the bulk, which wrapped to the top of
    # the window: the sound answer sat at the window's end (0.388; 0.260 on the engine before)
    s, p, t, delta = 0.9322442530287103, 1.612540436316331e-05, 6494, 1.4141612952431238e-14
    lo, hi = gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta)
    assert 0.0 < lo <= hi < 0.2


def test_cells_charged_to_infinity_stay_below_the_delta_asked():
    # 3.3 million factors each charging up to 1e-19 of poorly bounded tail cells to +inf
    # put 3.3e-13 at +inf, above the delta asked: the answer was inf
    s, p, t, delta = 0.8842272169084081, 1.7296097321448433e-06, 3287458, 9.416632122824763e-14
    eps = gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta)
    assert math.isfinite(eps) and 0.0 < eps < 0.2


def test_bulk_offset_is_found_when_the_quartile_bounds_span_many_steps():
    # the quartiles of a subsampled law are outer bounds: here they span more than 8 steps,
    # and skipping the search collapsed the lower end of the bracket to 0
    s, p, t, delta = 0.48214108581447596, 2.2467858704709637e-05, 1129335, 0.005213988283648341
    lo, hi = gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta)
    assert 0.99 * hi <= lo <= hi


def test_spike_power_composition_keeps_its_units(monkeypatch):
    from gdp.engine import fourier
    from gdp.engine.fourier import _compose, _Tilted

    w = np.full(40, 1e-4)
    w[7] = 1.0
    w /= w.sum()
    it = _Tilted(-7, w, -0.3, 0.0, 0.0)
    a = _compose([(it, 25)], -200, 512)
    monkeypatch.setattr(fourier, "_spike_power", lambda *args: None)
    b = _compose([(it, 25)], -200, 512)
    assert a.log_scale == pytest.approx(25 * -0.3 - a.K, abs=1e-12)
    assert b.log_scale == 0.0
    # the same masses, to within the allowances (round-off entries near 1e-17)
    assert np.allclose(a.c * np.exp(a.K), b.c * np.exp(b.K), rtol=1e-9,
                       atol=(b.tau + a.tau * math.exp(a.K - b.K)) * math.exp(b.K))
    # tail masses given in the factors' units convert into the units of c
    assert math.exp(a.log_scale) == pytest.approx(math.exp(b.K - a.K))


def test_spike_powers_of_many_factors_stay_in_range(monkeypatch):
    """Eight laws on one point, each raised to a power whose a^-n is e^250 (inside the
    range alone, e^2,000 together: 100 phases of a run at delta = 1e-10 raised
    OverflowError): the spike powers stop where their product would leave the range, and the
    composed masses are those of the plain powers, within the allowances."""
    from gdp.engine import fourier
    from gdp.engine.fourier import _compose, _Tilted

    items = []
    for i in range(8):
        w = np.full(64, 2e-3 / 63)
        w[i] = 1.0 - 2e-3
        items.append((_Tilted(-i, w, 0.0, 0.0, 0.0), int(250 / -math.log1p(-2e-3))))
    a = _compose(items, -40, 256)
    assert 0.0 < a.log_scale <= fourier._SPIKE_ROOM
    assert np.isfinite(a.c).all() and math.isfinite(a.tau) and math.isfinite(a.K)
    monkeypatch.setattr(fourier, "_spike_power", lambda *args: None)
    b = _compose(items, -40, 256)
    assert np.allclose(a.c * np.exp(a.K), b.c * np.exp(b.K), rtol=1e-9,
                       atol=(b.tau + a.tau * math.exp(a.K - b.K)) * math.exp(b.K))


@pytest.mark.parametrize("sign", [-1, 1])
def test_factors_relative_errors_are_covered_by_the_relative_allowances(sign):
    """Factors whose true tilted masses are (1 ± r) times the computed ones (r = 1e-6, far
    above the round-off) raised to n = 300: the exact composed masses (binomial, 50 digits)
    stay within (1 + rel_up) c + tau e^K above and (1 - rel_lo) c - tau e^K below,
    with the l1 allowances left to the round-off (the relative errors are not charged there
    a second time)."""
    mp.mp.dps = 50
    n, r = 300, 1e-6
    a, b = 0.999, 0.001
    it = _Tilted(0, np.array([a, b]), 0.0, r, 0.0)
    N = 512
    comp = _compose([(it, n)], 0, N)
    assert comp.tau < 1e-12   # (n r = 3e-4: the relative errors are not in it)
    scale = mp.e ** mp.mpf(comp.K)
    f = (1 + sign * mp.mpf(r)) ** n
    over = under = mp.mpf(0)
    for k in range(n + 1):
        e = f * mp.binomial(n, k) * mp.mpf(a) ** (n - k) * mp.mpf(b) ** k
        c = mp.mpf(float(comp.c[k])) * scale
        over += max(mp.mpf(0), e - (1 + mp.mpf(comp.rel_up)) * c)
        under += max(mp.mpf(0), (1 - mp.mpf(comp.rel_lo)) * c - e)
    assert over <= comp.tau * scale
    assert under <= comp.tau * scale


def test_other_side_charges_the_factors_relative_errors_once():
    """sigma = 0.587, p = 6.4e-6, T = 27,125, delta = 5.1e-15 (a refusal-scan configuration):
    the lower end was 0.110 against a sound 2.112 while the factors' relative errors (7e-12
    each, 2 n r of the tilted mass in all, far above the delta asked) were charged in l1 on
    the other side besides its relative allowance."""
    h = gdp.dpsgd(sigma=0.5870955793664817, p=6.41088986491508e-06, steps=27125)
    lo, hi = (float(v) for v in h.epsilon_bounds(5.1066640356159435e-15))
    assert 0.9 * hi <= lo <= hi


def test_other_side_refines_as_far_as_the_sound_side():
    """sigma = 0.703, p = 1.8e-5, T = 9, delta = 5.8e-7 (reference grid, regime "small
    eps"): the other side's first answer was 0, so its answers gave no estimate of their
    error and it stopped at a step 7 times coarser than the sound side's: [0.0012422,
    0.0012791]. dp-accounting at discretisation 1e-6 puts the truth in [0.0012740,
    0.0012786] (optimistic, pessimistic)."""
    h = gdp.dpsgd(sigma=0.7032646891786893, p=1.7835262577176525e-05, steps=9)
    lo, hi = (float(v) for v in h.epsilon_bounds(5.83058609344645e-07))
    assert lo <= 0.0012786   # (the lower end below an independent upper value)
    assert lo >= 0.998 * hi


@pytest.mark.parametrize("cfg, bound", [
    ((0.6284216693201876, 4.003276315227892e-06, 1722462, 8.219252995884141e-10), 0.20946),
    ((0.6122986634306105, 3.63610946160052e-06, 1631699, 4.256519668505385e-09), 0.16944),
])
def test_extended_precision_waits_for_the_tilt_of_the_answer(monkeypatch, cfg, bound):
    """Two refusal-scan configurations (dp-accounting at 1e-5: 0.20966 and 0.16882): the
    frame at the Chernoff tilt answers about twice the truth, so the step's refinement moves
    to the tilt of the δ question at the answer found. That frame's extended-precision twin
    (two levels of 864,000 or 708,588 and some 10^5 points in long double, 0.9 and 0.65 s
    of the 1.4 and 1.0 s the questions took) was built first all the same, and in the second
    the refinement moved only after it (the double answer's tilt, quantised, was the
    Chernoff tilt). Now the refinement plans from the double frame's masses without their
    round-off allowance, and only the frames at the answer's tilt go to long double. The
    answers are as before (0.209452 and 0.169431)."""
    built = []
    frame = numeric._Engine.frame

    def spy(self, side, order, h, lam, *args, **kwargs):
        fr = frame(self, side, order, h, lam, *args, **kwargs)
        built.append((self.groups[0][0], order, lam,
                      bool(kwargs.get("extended", args[1] if len(args) > 1 else False))))
        return fr

    monkeypatch.setattr(numeric._Engine, "frame", spy)
    sigma, p, steps, delta = cfg
    eps = float(gdp.dpsgd(sigma=sigma, p=p, steps=steps).epsilon(delta))
    assert eps <= bound
    # (the engine's own frames and its twin's: not those of its split by the number of
    # jumps, whose parts are engines of their own, of the restricted laws)
    built = [b[1:] for b in built if not isinstance(b[0], Bracketed | _OfLaw)]
    tilts = [lam for order, lam, _ in built if order == 1]
    assert len(set(tilts)) == 2          # the Chernoff tilt, then the answer's
    first = tilts[0]
    assert not any(ext for order, lam, ext in built if order == 1 and lam == first)
    assert any(ext for order, lam, ext in built if order == 1 and lam != first)


def test_refinement_skips_the_narrow_window_once_the_wide_one_won(monkeypatch, forget_memo):
    # sigma = 0.838, p = 6.3e-6, T = 3: each refined step built the frame whose window holds
    # all but 1e-8 of the tilted mass, then the one at 1e-30, which answered better every
    # time (a third of the answer's time); past the first step at a tilt, only the wide one
    # (since the bulk's step is taken at once, _Engine._resolved, one step follows the
    # first at that tilt: one narrow frame fewer, where the ladder of steps saved four)
    from gdp.engine import numeric

    s, p, t, delta = 0.8375396222970168, 6.299267027038321e-06, 3, 1.0464081770762607e-06
    built = []
    compose = numeric._compose

    def spy(items, KA, N, *args):  # (frames composed, by their window's extent)
        built.append(N)
        return compose(items, KA, N, *args)

    monkeypatch.setattr(numeric, "_compose", spy)
    eps = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta))
    skipping = len(built)
    # the same question with the skip undone: every narrow frame built, the same answer
    built.clear()
    forget_memo("wide-won")
    assert float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta)) == eps
    assert len(built) >= skipping + 1
    assert 4.1e-5 < eps < 4.12e-5
