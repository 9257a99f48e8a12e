"""Tight factor windows (gdp.engine.numeric._Engine, ``tight``): a rarely sampled factor's
window ends at a Q-quantile of the subsampled law itself (SubsampledLaw.q_upper), where
its twin's ends at the base law's, about 2p times further out in mass; questions whose δ
the lower end could move go to the twin, whose answers are those of the engine without it."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import gdp
from gdp.engine import numeric
from gdp.engine.laws import GaussianLaw
from gdp.sampling.subsampling import SubsampledLaw


def _q_tail(mu: float, p: float, x: float) -> mp.mpf:
    """Q_p[L_p > x] for the subsampled G_mu, in 40-digit arithmetic."""
    mp.mp.dps = 40
    u = mp.log(1 + (mp.exp(mp.mpf(x)) - 1) / p)       # the base loss at x
    m = mp.mpf(mu)
    P = mp.ncdf(-(u + m * m / 2) / m)
    Q = mp.ncdf(-(u - m * m / 2) / m)
    return (1 - p) * P + p * Q


@pytest.mark.parametrize("sigma,p,tol", [
    (0.731, 1.1e-6, 6.85e-19), (0.5, 2e-5, 1e-16), (2.0, 3e-4, 1e-20), (1.0, 9e-4, 1e-13),
])
def test_upper_end_holds_at_most_tol_and_is_lower(sigma, p, tol):
    law = SubsampledLaw(GaussianLaw(1.0 / sigma), p)
    top, old = law.q_upper(tol), law.quantiles(tol)[1]
    assert top < old
    assert _q_tail(1.0 / sigma, p, top) <= tol * (1 + 1e-9)
    # (and not far out: the mass beyond is within a few orders of tol, where the base's
    # end leaves about 2p of it)
    assert _q_tail(1.0 / sigma, p, top) >= 1e-3 * tol
    assert _q_tail(1.0 / sigma, p, old) <= _q_tail(1.0 / sigma, p, top)


def test_upper_end_is_the_quantiles_from_p_1e_3():
    law = SubsampledLaw(GaussianLaw(1.0), 1e-3)
    assert law.q_upper(1e-15) == law.quantiles(1e-15)[1]


def _answers(monkeypatch, tight: bool, sigma, p, steps, qs):
    if not tight:
        init = numeric._Engine.__init__
        monkeypatch.setattr(numeric._Engine, "__init__",
                            lambda self, g, a, tight=True: init(self, g, a, tight=False))
    m = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    out = [float(m.epsilon(d)) if k == "eps" else float(m.delta(e)) for k, d, e in qs]
    lo = [float(m.epsilon_bounds(d)[0]) for k, d, _ in qs if k == "eps"]
    return out, lo


def test_the_twin_answers_small_delta_and_delta_questions_unchanged(monkeypatch):
    args = (0.9322442530287103, 1.612540436316331e-05, 6494)
    qs = [("eps", 1.4141612952431238e-14, None), ("delta", None, 0.05),
          ("delta", None, 0.2)]
    tight, tight_lo = _answers(monkeypatch, True, *args, qs)
    with monkeypatch.context() as mc:
        plain, plain_lo = _answers(mc, False, *args, qs)
    assert tight == plain and tight_lo == plain_lo
    assert math.isfinite(tight[0])   # (the lower ends made this one infinite)


def test_a_rare_answer_is_faster_and_no_looser(monkeypatch, discretised_points):
    # sigma = 0.731, p = 1.1e-6, T = 1.46M, delta = 1.5e-4 (fresh scan): 0.38 of loss at the
    # top of the factor's window against 0.069, 1.3 s against 0.4 s
    args = (0.731142567068013, 1.0853071554951962e-06, 1459590)
    d = 0.00015388540579778837
    built = discretised_points
    tight = float(gdp.dpsgd(sigma=args[0], p=args[1], steps=args[2]).epsilon(d))
    points = sum(built)
    built.clear()
    with monkeypatch.context() as mc:
        plain, plain_lo = _answers(mc, False, *args, [("eps", d, None)])
    # (within 1e-5: the plain engine's longer lattices fit twice the factor cap, which
    # lattices past the frame's cap may hold, and reach a finer step: 0.00387918 against
    # 0.00387920)
    assert tight <= plain[0] * (1.0 + 1e-5)
    assert points < 0.5 * sum(built)
    # (not below the lower end the engine without the lower window ends certifies)
    assert tight >= plain_lo[0]


def test_a_small_delta_goes_to_the_twin_only_where_the_truncation_could_move_it(monkeypatch):
    # sigma = 0.651, p = 7.6e-6, 433,193 steps, delta = 3.2e-12 (fresh scan): the windows
    # truncate 6.5e-25, far inside 1e-5 of delta; answered tight, 0.2% below the twin's
    # answer and not below its lower end. sigma = 0.932, delta = 1.4e-14 (above): 4.6e-15,
    # a third of delta; the twin's. (The split by the number of jumps, which answers both
    # engines about alike here, 3e-8 apart, is switched off: the windows are under test.)
    monkeypatch.setattr(numeric, "_JUMPS_BELOW", 0.0)
    args = (0.6505349991740775, 7.557435399121218e-06, 433193)
    d = 3.230472438291723e-12
    m = gdp.dpsgd(sigma=args[0], p=args[1], steps=args[2])
    tight = float(m.epsilon(d))
    engine = m.sound.engine
    assert engine.tight and not engine._routed("eps", np.array([d]))[0]
    with monkeypatch.context() as mc:
        plain, plain_lo = _answers(mc, False, *args, [("eps", d, None)])
    assert plain_lo[0] <= tight < plain[0]
    m = gdp.dpsgd(sigma=0.9322442530287103, p=1.612540436316331e-05, steps=6494)
    m.epsilon(1.4141612952431238e-14)
    assert m.sound.engine._routed("eps", np.array([1.4141612952431238e-14]))[0]


def test_the_twin_starts_from_the_tight_answer_without_the_planned_frame(monkeypatch):
    # sigma = 0.628, p = 4.0e-6, 1.72M steps, delta = 8.2e-10 (box scan): the tight engine's
    # refinement hands the question to its twin (its next frame truncates too much), whose
    # planned frame answered 0.36 against the tight frame's 0.18 and was then outdone; the
    # twin now starts from the tight answer, without that frame, and answers the same (up to
    # the wide cells)
    args = (0.6284216693201876, 4.003276315227892e-06, 1722462)
    d = 8.219252995884141e-10
    m = gdp.dpsgd(sigma=args[0], p=args[1], steps=args[2])
    eps = float(m.epsilon(d))
    engine = m.sound.engine
    start = engine._memo[("tight-start", 1, d)]
    twin = engine.twin
    h, lam = twin._plan_key(1, "eps", d)
    assert ("start-eps", 1, d) in twin._memo and eps <= start
    assert not any(k[:4] == ("pess", 1, h, lam) for k in twin._frames)
    with monkeypatch.context() as mc:
        mc.setattr(numeric._Engine, "_start", lambda self, order, lam, delta: math.nan)
        m2 = gdp.dpsgd(sigma=args[0], p=args[1], steps=args[2])
        # (the same up to the refinement's wide cells, set from the answer it starts from
        # (0.36 or 0.18 here), each within 1e-6 of δ: 4e-9 of ε apart)
        assert float(m2.epsilon(d)) == pytest.approx(eps, rel=1e-8)
        t2 = m2.sound.engine.twin
        assert any(k[:4] == ("pess", 1, h, lam) for k in t2._frames)


def test_order_minus_one_is_routed_only_where_its_own_answer_is_asked():
    # sigma = 3.18, p = 1.4e-6, 5 steps, delta = 6.8e-10 (the sweep): order -1's moment bound
    # lies below order 1's answer, so its frame is never planned; routing the question
    # planned it all the same (a tenth of the answer's time). Asked for order -1 itself, the
    # route checks that order's own truncation.
    d = 6.8e-10
    m = gdp.dpsgd(sigma=3.184, p=1.38e-06, steps=5)
    eps = float(m.epsilon(d))
    engine = m.sound.engine
    assert engine.tight and eps > 0
    assert ("plan-key", 1, "eps", d) in engine._memo
    assert ("plan-key", -1, "eps", d) not in engine._memo
    assert engine.moment_eps(-1, d) <= eps
    assert not engine._routed("eps", np.array([d]), -1)[0]
    assert ("tight-small", -1, d) in engine._memo
