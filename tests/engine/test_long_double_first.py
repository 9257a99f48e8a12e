"""Frames built in long double at once, without the double frame first, where that one
would only be outdone: a δ question whose coarse frame (8 times the step) is already set
by its round-off, and a refined ε question at a step finer than one whose round-off
dominated. The answers are those of the double-then-long-double route, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import gdp
from gdp.engine import numeric
from gdp.engine.fourier import _EXTENDED_GAINS

pytestmark = pytest.mark.skipif(not _EXTENDED_GAINS,
                                reason="long double is the double on this platform")


def _spy_frames(monkeypatch) -> list[tuple]:
    """The keys of the frames built (side, order, h, lam, log_eta, extended)."""
    built: list[tuple] = []
    frame = numeric._Engine.frame

    def spy(self, side, order, h, lam, log_eta=numeric._LOG_ETA, extended=False, top=None):
        key = (side, order, h, lam, log_eta, extended) + (() if top is None else (top,))
        if key[:6] + (self._cls(side, order, lam),) + key[6:] not in self._frames:
            built.append(key)
        return frame(self, side, order, h, lam, log_eta, extended, top)

    monkeypatch.setattr(numeric._Engine, "frame", spy)
    return built


def _alone(built: list[tuple]) -> list[tuple]:
    """The long-double frames built without their double frame."""
    return [k for k in built if k[5] and k[:5] + (False,) not in built]


def test_delta_goes_to_long_double_at_once_where_the_coarse_frame_says_so(monkeypatch):
    # delta(0.593) at sigma = 0.612, p = 3.6e-6, 1.63M steps: the double frame (its blocks
    # 311,746 points a factor, 0.45 s) answered 9.6e-10, the long-double one 1.07e-11;
    # the frame of 8 times the step (0.05 s) already has its round-off dominate
    s, p, t, x = 0.6122986634306105, 3.63610946160052e-06, 1631699, 0.5930331693338893
    built = _spy_frames(monkeypatch)
    d = float(gdp.dpsgd(sigma=s, p=p, steps=t).delta(x))
    alone = _alone(built)
    assert len(alone) == 1 and alone[0][0] == "pess"
    coarse = [k for k in built if k[2] > 7.9 * alone[0][2] and k[3] == alone[0][3]]
    assert coarse and not any(k[5] for k in coarse)
    # the same question with the probe undone: both frames, the same answer
    built.clear()
    monkeypatch.setattr(numeric._Engine, "_extended_first",
                        lambda self, order, h, lam, x: np.zeros(x.shape, dtype=bool))
    assert float(gdp.dpsgd(sigma=s, p=p, steps=t).delta(x)) == d
    assert not _alone(built)
    assert 1.0e-11 < d < 1.1e-11


@pytest.mark.parametrize(("s", "p", "t", "delta"), [
    (0.5327298492864665, 1.3528255457652824e-06, 82, 3.796322092713733e-13),
    (1.2413868716195133, 6.1478304230438074e-06, 82, 5.0066086467748756e-14),
])
def test_a_finer_step_goes_to_long_double_where_a_coarser_one_did(monkeypatch, forget_memo,
                                                                    s, p, t, delta):
    built = _spy_frames(monkeypatch)
    eps = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta))
    alone = _alone(built)
    assert alone
    for k in alone:  # (a coarser step at the tilt went to long double first)
        assert any(c[5] and c[2] > k[2] and c[3] == k[3] and c[:2] == k[:2]
                   for c in built[:built.index(k)])
    # the same question with the rule undone: the double frames too, the same answer
    built.clear()
    forget_memo("ext-went")
    assert float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta)) == eps
    assert not _alone(built)


@pytest.mark.parametrize(("s", "p", "t", "eps"), [
    (0.9235521564416774, 3.103541714320955e-05, 10, 0.2990987165461052),
    (0.9154814739343143, 3.4589831413948304e-06, 1592, 0.04317040736071489),
])
def test_the_wide_frame_goes_to_long_double_where_the_narrow_ones_round_off_dominates(
        monkeypatch, s, p, t, eps):
    # the frame whose window holds all but 1e-30 of the tilted mass has more points than
    # the one at 1e-8: where the narrow frame's round-off dominates its answer, the wide
    # one's does too, and its double frame would only be outdone
    built = _spy_frames(monkeypatch)
    h = gdp.dpsgd(sigma=s, p=p, steps=t)
    d = float(h.delta(eps))
    wide = [k for k in _alone(built) if k[4] < numeric._LOG_ETA]
    assert wide
    engine, x = h.sound.engine, np.array([eps])
    for k in wide:
        assert k[:4] + (numeric._LOG_ETA, False) in built[:built.index(k)]
        # (the double frame skipped: its answer is not below the one given)
        assert float(engine.frame(*k[:5], False).delta(x)[0]) >= d


def test_the_other_side_starts_where_the_sound_side_left_the_plan(monkeypatch):
    # sigma = 1.373, p = 0.00255, T = 29, delta = 6e-15: the sound side's refinement left
    # the plan's frame for the delta question's; the other side starts there (from a lower
    # bound of 0), without the plan's frames, and its end lies within 0.5% of the sound one
    s, p, t, delta = 1.3729541831055685, 0.002552617728596157, 29, 5.975224517488632e-15
    built = _spy_frames(monkeypatch)
    h = gdp.dpsgd(sigma=s, p=p, steps=t)
    hi = float(h.epsilon(delta))
    engine = h.sound.engine
    plan = engine.plan(1, "eps", delta)
    assert engine._memo[("left-plan", 1, delta)] == plan
    lo, hi2 = (float(v) for v in h.epsilon_bounds(delta))
    assert hi2 == hi and (1.0 - numeric._BRACKET_WIDTH) * hi <= lo <= hi
    opt = [k for k in built if k[0] == "opt"]
    assert opt and not any(k[2:4] == plan for k in opt)
    # (value by value: the same asked twice in one array, on a fresh curve)
    pair = gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(np.array([delta, delta]))
    assert np.asarray(pair[0], dtype=float).tolist() == [lo, lo]
    # with the plan's frames as well (the route before): a bracket of the same kind
    monkeypatch.setattr(numeric._Engine, "_other_side_at_once", lambda self, *a: np.nan)
    built.clear()
    lo_plan = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta)[0])
    assert any(k[0] == "opt" and k[2:4] == plan for k in built)
    assert (1.0 - numeric._BRACKET_WIDTH) * hi <= lo_plan <= hi


def test_the_wider_window_is_as_wide_as_the_mass_outside_asks(monkeypatch):
    # sigma = 0.915, p = 3.5e-6, T = 1592, delta = 2.4e-13: the other side's allowance for the
    # tilted mass wrapped around from outside the window at 1e-8 dominates; the wider window
    # leaves out what makes that allowance a hundredth of its threshold, not 1e-30 (the
    # sound side likewise for its Q-mass above the window)
    s, p, t, delta = 0.9154814739343143, 3.4589831413948304e-06, 1592, 2.3702071104054875e-13
    built = _spy_frames(monkeypatch)
    h = gdp.dpsgd(sigma=s, p=p, steps=t)
    lo, hi = (float(v) for v in h.epsilon_bounds(delta))
    wide = [k for k in built if k[4] < numeric._LOG_ETA]
    assert any(k[0] == "opt" and numeric._LOG_ETA_WIDE < k[4] for k in wide)
    assert any(k[0] == "pess" and numeric._LOG_ETA_WIDE < k[4] for k in wide)
    engine, x = h.sound.engine, np.array([delta])
    for k in wide:
        fr = engine.frame(*k)
        v = fr.epsilon(x)
        if k[0] == "opt":
            assert not engine._dominates(fr, fr.wrap, "eps", x, v).any()
        else:
            assert fr.m_hi <= 1e-3 * delta
        if k[4] > numeric._LOG_ETA_WIDE:
            assert fr.s.size < engine.frame(*k[:4], numeric._LOG_ETA_WIDE, k[5]).s.size
    # with the windows at 1e-30: no narrower here (the allowances of more points)
    monkeypatch.setattr(numeric._Engine, "_wide_log_eta",
                        staticmethod(lambda fr, kind, x, v: np.full(np.shape(x),
                                                                    numeric._LOG_ETA_WIDE)))
    lo30, hi30 = (float(v) for v in gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta))
    assert lo30 <= lo <= hi <= hi30
