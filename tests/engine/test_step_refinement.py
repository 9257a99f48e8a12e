"""The lattice step refined from the answers found: after the refinement moves to the tilt of
the δ question at the answer (two answers at one tilt estimate the step's error), a probe
step where no such pair exists, and the other side where a DP-SGD bracket is still wide.
Reference values: dp-accounting's ε (pessimistic: connect-the-dots; optimistic: privacy
buckets) from ``data/make_step_refinement_reference.py``, stored with their provenance in
``data/step_refinement_reference.json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gdp
from gdp.engine import numeric

_DATA = json.loads((Path(__file__).parent / "data" / "step_refinement_reference.json")
                   .read_text())
_REF = {c["name"]: c for c in _DATA["configurations"]}


def _case(name: str) -> tuple[gdp.TradeOff, float, float, float]:
    """The curve, the δ and dp-accounting's finest pessimistic ε of a configuration, and
    its largest optimistic ε (0 where none was computed)."""
    c = _REF[name]
    finest = min(c["pessimistic"], key=float)
    return (gdp.dpsgd(sigma=c["sigma"], p=c["p"], steps=c["steps"]), c["delta"],
            c["pessimistic"][finest], max(c["optimistic"].values(), default=0.0))


def _check(name: str, bound: float | None = None, width: float | None = 5e-3) -> None:
    """The sound ε within 0.1% of dp-accounting's pessimistic value (or below ``bound``)
    and never below its optimistic one (a lower bound on the truth), the lower end below
    the pessimistic value, the bracket at most ``width`` wide (relative; None: unchecked)."""
    h, delta, ref, low = _case(name)
    eps = float(h.epsilon(delta))
    assert eps >= low
    assert eps <= (1.001 * ref if bound is None else bound)
    lo, hi = (float(v) for v in h.epsilon_bounds(delta))
    assert lo <= ref and hi == eps
    if width is not None:
        assert hi - lo <= width * hi


def test_refinement_goes_on_after_moving_to_the_answers_tilt():
    """sigma = 1.283, p = 3.8e-5, T = 3, delta = 9.1e-9 (refusal scan): the frames at the
    answer's tilt gave two answers at two steps, but the error estimate did not take them as
    a pair and the step stopped at 4.3e-5: 0.00066777, 0.65% above dp-accounting's
    pessimistic value; the bracket was 1.03% wide."""
    _check("few steps, T=3")


def test_few_steps_answer_is_within_a_tenth_of_a_percent():
    """sigma = 0.924, p = 3.1e-5, T = 10, delta = 3.3e-10: 0.0064248 before, 0.21% above
    dp-accounting's pessimistic value."""
    _check("few steps, T=10")


def test_other_side_narrows_a_wide_bracket():
    """sigma = 0.761, p = 1.8e-4, T = 14, delta = 1.5e-7: the sound answer was within 0.08%
    of dp-accounting's pessimistic value, but the lower end sat 0.88% below it; the other
    side's step is halved where the bracket is over 0.4% wide."""
    _check("few steps, T=14")


def test_a_probe_step_at_the_answers_tilt():
    """Where the refinement moved to the tilt of the δ question at the answer and the step
    rule is met there, one step finer by sqrt(2) gives the pair the error estimate needs
    (the rule's error model fails for rarely sampled steps and small ε). sigma = 1.110,
    p = 1.8e-5, T = 58, delta = 1e-11: 0.0030834 before, 0.28% above dp-accounting's
    pessimistic value; sigma = 0.768, p = 9.8e-4, T = 2, delta = 1.0e-5: 0.035714, 0.13%
    above."""
    _check("T=58")
    _check("two steps")


def test_a_probe_in_double_where_the_frame_went_to_long_double():
    """sigma = 0.628, p = 4.0e-6, T = 1,722,462, delta = 8.2e-10 (refusal scan): the frame at
    the answer's tilt goes to long double, so the probe's pair is taken in double without
    the allowances (which the round-off dominates); one finer step follows. 0.209452 before
    with a bracket 61% wide (dp-accounting's pessimistic value at 1e-5: 0.20966, too coarse
    for a 0.1% check). The bracket is 0.53% wide: the other side's cells are charged the
    normal tails' true rounding error (12 ulps; ``ndtr``'s 4 assumed before left it
    0.49% wide)."""
    _check("rare, T=1.72M", bound=0.20900, width=6e-3)


def test_a_probe_where_the_answer_is_far_below_the_moment_bound():
    """Where the answer is under half the moment bound that planned the step, the probe runs
    at the Chernoff tilt too (the δ question's tilt at the answer, quantised, can be that
    tilt). sigma = 0.895, p = 4.3e-6, T = 111,506, delta = 4.0e-9: 0.011111 before (11.5%
    above dp-accounting's pessimistic value at 1e-6); sigma = 0.622, p = 2.3e-5, T = 54,621,
    delta = 9.9e-4: 0.0248998 before."""
    _check("rare, T=54621", width=None)


def test_a_window_of_twice_the_points_where_the_cap_stops_a_refinement_short():
    """sigma = 0.622, p = 2.3e-5, T = 54,621, delta = 9.9e-4 (refusal scan): the unsampled
    bulk is about 0.02 wide and the rare sampled steps' tail about 10, so the refined step
    reached the cap of 2**20 points per frame with its error still estimated at 0.115%:
    0.0247107 (its pairs' extrapolation, as dp-accounting's, puts the truth near 0.02468)
    with a bracket 1.19% wide. Past the cap, 2**21 points: 0.0246904, the bracket 0.22%
    wide."""
    _check("rare, T=54621")


@pytest.mark.parametrize(("s", "p", "t", "delta", "gains"), [
    # (the refined frames' lower tilt, _lower_tilt, narrows the window enough that the
    # refinement reaches its step within the cap: 0.0246831 either way, where the window of
    # twice the points gave 0.0246903 and the cap 0.0247107 before)
    (0.6215973229288252, 2.3068827733516803e-05, 54621, 0.000990832665147827, False),
    # (fresh scan, seed 20261127: the factors' windows at the finer step exceeded the factor
    # cap, where the refinement stopped before the usual step: 0.0038876 against 0.0038817;
    # they fit twice the cap, which the factors past the frame's cap may now hold: 0.0038792
    # against 0.0038809, where gdp's bracket at rtol = 1e-5 is [0.0038766, 0.0038774])
    (0.731142567068013, 1.0853071554951962e-06, 1459590, 0.00015388540579778837, True),
])
def test_a_window_past_the_cap_never_costs_the_usual_step(monkeypatch, quantile_windows, s, p,
                                                          t, delta, gains):
    """The window of more points is taken only where every factor's lattice fits twice the
    factor cap at that step; the answer is never above the one with it refused (the usual
    step), and below it where it was taken. (In the windows of the quantiles: a tight
    engine's shorter lattices reach neither cap here.)"""
    eps = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta))
    monkeypatch.setattr(numeric._Engine, "_factors_fit", lambda self, *args: False)
    usual = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta))
    assert (eps < usual) if gains else (eps == usual)


def test_a_second_long_double_step_where_the_steps_error_is_first_order():
    """sigma = 0.895, p = 4.3e-6, T = 111,506, delta = 4.0e-9: each of the 111,506 steps
    spreads its unsampled bulk, narrower than the lattice step, over two points, an error
    first order in the step; after the long-double probe's step the pair still put the
    error at 0.7%, and the answer stopped at 0.010043, 0.8% above dp-accounting's
    pessimistic value at 1e-6, with a bracket 7.9% wide. One more step where the error is
    over twice rtol: 0.0099504, the bracket 0.14% wide."""
    _check("rare, T=111506", width=2e-3)


def test_the_rule_at_the_frames_own_spread_where_the_plans_is_far_wider():
    """sigma = 0.741, p = 3.7e-5, T = 4,766,503, delta = 8.3e-7 (refusal scan): the planning
    law put the tilted spread at 2.43 where the frame's window is 6.5 wide, and the rule's
    step, capped by 16 such spreads, stayed at the first frame's (5.7 times the rule's) at
    any rtol: 0.77889 before, 1.0% above dp-accounting's pessimistic value at 1e-5, with a
    bracket 7.3% wide (the other side's halvings were capped the same way). Now 0.77020,
    the bracket 0.40% wide."""
    _check("long run, plan spread")


def test_a_bulk_the_first_step_does_not_resolve_is_resolved_at_once():
    """sigma = 0.838, p = 6.3e-6, T = 3, delta = 1.05e-6 (the engine sweep's slowest few-step
    row): each step's bulk is about 3e-5 wide and the true ε about 4.11e-5, far below the
    moment bound that planned the first step (2.3e-3). The answers at steps coarser than
    the bulk are about one step each (1.98e-3, 1.78e-4, 5.5e-5), and the δ questions
    planned at them, then the error estimates, went down a ladder of seven sound frames.
    The δ question at the first answer now takes a sixteenth of the bulk's quartile spread:
    three frames, the same answer. Its bracket (the lower end a bound of its own) is at
    most 0.1% wide: the answer within 0.1% of the truth."""
    h = gdp.dpsgd(sigma=0.8375396222970168, p=6.299267027038321e-06, steps=3)
    delta = 1.0464081770762607e-06
    eps = float(h.epsilon(delta))
    engine = h.sound.engine
    steps = {k[2:4] for k in engine._frames if k[:2] == ("pess", 1)}
    assert len(steps) <= 3
    lo, hi = (float(v) for v in h.epsilon_bounds(delta))
    assert hi == eps and 0.0 < lo <= hi <= 1.001 * lo


def test_no_bulk_step_where_its_frame_would_be_wide():
    """sigma = 0.4, p = 1e-6, T = 3, delta = 1e-6: the first answer is also within two
    steps, but the frame of the bulk's step would hold 311,040 points (a tilt of 4 only);
    taken, it sent the sound side's refinement past the cap of 2**20 points and the other
    side after it, whose answer there fell (a halved window): the bracket went from 0.43%
    to 4.7% wide. The bulk step is taken only within 2**14 points."""
    h = gdp.dpsgd(sigma=0.4, p=1e-6, steps=3)
    lo, hi = (float(v) for v in h.epsilon_bounds(1e-6))
    assert 0.0 < lo <= hi <= 1.005 * lo


def test_after_the_long_double_probe_the_refinement_goes_on_while_the_error_is_large():
    """sigma = 0.609, p = 1.4e-6, T = 3,020,935, delta = 2.6e-7 (a fresh accuracy survey,
    seed 20261202): after the probe's step and one more the refinement stopped with its
    error still estimated at 0.7%: 0.03555, its bracket 1.5% wide at every rtol (a finer
    grid puts the truth below 0.03512). Going on while the error is over twice rtol:
    0.035137, the bracket 0.18% wide. dp-accounting's pessimistic value at 3e-6 (0.03614)
    is far looser; at 1e-6 it needs 40 GiB."""
    _check("rare, T=3.0M", bound=0.0352)


def test_a_tighter_rtol_admits_longer_frames():
    """sigma = 0.509, p = 5.4e-6, T = 627,843, delta = 7.6e-5: the refinement of the
    rarely sampled bulk (an error first order in the step) stopped at the cap of 2**21
    points over 16 tilted spreads at every rtol, its bracket 0.39% wide at 1e-5 as at the
    default. The cap now grows as sqrt(1e-3 / rtol): at rtol = 1e-4 the bracket is nested
    in the default's and under a quarter of its width, and below dp-accounting's
    pessimistic value."""
    c = _REF["rare, T=627843"]
    finest = c["pessimistic"][min(c["pessimistic"], key=float)]
    lo, hi = (float(v) for v in gdp.dpsgd(sigma=c["sigma"], p=c["p"], steps=c["steps"])
              .epsilon_bounds(c["delta"]))
    lo4, hi4 = (float(v) for v in gdp.dpsgd(sigma=c["sigma"], p=c["p"], steps=c["steps"],
                                            rtol=1e-4).epsilon_bounds(c["delta"]))
    assert lo <= lo4 <= hi4 <= hi
    assert hi4 - lo4 <= 0.25 * (hi - lo)
    assert hi4 <= finest and hi <= 1.001 * finest


def test_a_tighter_rtol_admits_longer_factor_lattices():
    """sigma = 0.573, p = 1.3e-6, T = 332,678, delta = 1.4e-6 (seed 20261202's rare-bulk
    corner): the refined frames grew with a tighter rtol but each factor's lattice stayed
    capped at 2**21 points, and the finer step's needed 2.2M: the bracket, 0.12% wide,
    was the default's at every rtol. The factor's cap grows as the frame's: at
    rtol = 10**-3.5 the bracket is nested in the default's and about half as wide, and
    holds the one at rtol = 1e-5, [0.01289734, 0.01289987] (27 s)."""
    s, p, t, delta = 0.5727, 1.33e-6, 332_678, 1.36e-6
    lo, hi = (float(v) for v in gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta))
    lo3, hi3 = (float(v) for v in gdp.dpsgd(sigma=s, p=p, steps=t, rtol=10 ** -3.5)
                .epsilon_bounds(delta))
    assert lo <= lo3 <= hi3 <= hi
    assert hi3 - lo3 <= 0.6 * (hi - lo)
    assert lo3 <= 0.01289734 and 0.01289987 <= hi3


def test_a_tighter_rtol_never_asks_for_a_lattice_over_max_points():
    """sigma = 0.480, p = 7.9e-6, T = 285,146, delta = 3.1e-10: with the planned step's cap
    grown as well, rtol = 1e-5 asked for a frame of 11,943,936 points and raised; the
    longer frames are for refined steps only, given up past max_points."""
    s, p, t, delta = 0.480274599897911, 7.902243942391425e-06, 285_146, 3.1075010890547674e-10
    lo, hi = (float(v) for v in gdp.dpsgd(sigma=s, p=p, steps=t).epsilon_bounds(delta))
    lo5, hi5 = (float(v) for v in gdp.dpsgd(sigma=s, p=p, steps=t, rtol=1e-5)
                .epsilon_bounds(delta))
    assert lo <= lo5 <= hi5 <= hi


def test_past_the_long_double_probe_the_error_is_taken_as_first_order():
    """sigma = 0.574, p = 2.9e-6, T = 416,230, delta = 3.5e-8 (seed 20261202's rare-bulk
    corner): after the probe's step the pair of answers put the error at 0.1% as of the
    second order, and the refinement stopped at 0.101525, 0.21% above the truth (gdp's
    bracket at rtol = 1e-5 is [0.1013077, 0.1013117]); the bulk narrower than the step makes
    the error first order, so estimated: 0.101405, within 0.1%."""
    h = gdp.dpsgd(sigma=0.5741238610143937, p=2.8724371942519176e-06, steps=416_230)
    lo, hi = (float(v) for v in h.epsilon_bounds(3.5441258679597485e-08))
    assert lo <= 0.1013117 and 0.1013077 <= hi <= 1.001 * 0.1013117


def test_the_long_double_probe_takes_the_error_as_first_order():
    """sigma = 0.568, p = 3.9e-6, T = 261,291, delta = 6.8e-8 (seed 20261202's rare-bulk
    corner): the probe's pair of steps (h and h / sqrt 2, in double without the allowances)
    put the error of the finer one at 0.05% as of the second order, and the refinement
    stopped with the answer at h, 0.118567, 0.116% above the truth (gdp's bracket at
    rtol = 1e-5 is [0.1184256, 0.1184293]). As past the probe, the error is first order
    in the step there (a bulk narrower than the step), and it is the answer at h whose
    error decides: 0.118442, within 0.1%."""
    h = gdp.dpsgd(sigma=0.5677668334901005, p=3.858679650813318e-06, steps=261_291)
    eps = float(h.epsilon(6.759514905391657e-08))
    assert 0.1184256 <= eps <= 1.001 * 0.1184256


def test_past_the_frame_cap_each_factor_may_hold_twice_the_planned_cap():
    """sigma = 0.579, p = 1e-6, T = 8,155,723, delta = 4.6e-5 (seed 20261202's rare-bulk
    corner): the sound side's refinement, its error still estimated over rtol, went past the
    frame's cap of 2**20 points, but the factor's lattice at that step needed 2,161,084
    points, over the planned cap of 2**21, and the refinement stopped at 0.028941, 0.15%
    above gdp's bracket at rtol = 1e-5, [0.02888721, 0.02889911]. Past the frame's cap each
    factor's lattice may hold twice the planned cap: within 0.1%."""
    eps = float(gdp.dpsgd(sigma=0.5792628585233746, p=1.0001490868996713e-06, steps=8_155_723)
                .epsilon(4.569683683342333e-05))
    assert 0.02888720745 <= eps <= 1.001 * 0.02889910540


def test_three_steps_at_one_tilt_show_the_order_of_the_error():
    """sigma = 0.455, p = 1.1e-6, T = 1,887,566, delta = 1.3e-5 (seed 20261204's rare-bulk
    corner): the answers 0.108620, 0.107934 and 0.106928 at the steps 6.2e-5, 4.4e-5 and
    1.1e-5 put the last one's error at 6.7e-5 as of the second order (under half of rtol),
    and the refinement stopped 0.13% above the truth (gdp's bracket at rtol = 1e-5 is
    [0.1066981, 0.1067864]). The three show an order of about 1.3, whose estimate, 2.0e-4,
    asks for a finer step: 0.106822, within 0.1%."""
    h = gdp.dpsgd(sigma=0.45460769088241654, p=1.1093595234311884e-06, steps=1_887_566)
    eps = float(h.epsilon(1.3136765346688742e-05))
    assert 0.1066981 <= eps <= 1.001 * 0.1067864


def test_the_order_of_the_steps_error_from_three_answers():
    steps = (6e-5, 4.2e-5, 1.1e-5)

    def answers(k: float, c: float = 3.0) -> list[tuple[float, float]]:
        return [(h, 0.1 + c * h ** k) for h in steps]

    assert numeric._observed_order(*answers(1.3)) == pytest.approx(1.3, abs=1e-9)
    assert numeric._observed_order(*answers(1.0)) == pytest.approx(1.0, abs=1e-9)
    assert numeric._observed_order(*answers(0.5)) == 1.0  # (at most first order)
    assert numeric._observed_order(*answers(3.0, 1e6)) == 2.0  # (at least the rule's)
    (a, b, c) = answers(1.3)
    assert numeric._observed_order(a, (b[0], c[1]), (c[0], b[1])) == 2.0  # (not one way)
    assert numeric._observed_order(None, b, c) == 2.0


def test_four_times_the_points_where_the_error_stays_over_twice_rtol():
    """sigma = 0.512, p = 1.4e-6, T = 6,211,520, delta = 9.7e-6 (seed 20261205's rare-bulk
    corner): at twice the frame's cap the error of the answer, estimated at the order 1.4
    that its last three answers show, was still 0.35%, and the refinement stopped at
    0.083460, 0.22% above the truth (gdp's bracket at rtol = 1e-5 is [0.0832332,
    0.0832779]); a window of four times the points: 0.083315, within 0.1%."""
    h = gdp.dpsgd(sigma=0.5123549424948463, p=1.4405714580863737e-06, steps=6_211_520)
    eps = float(h.epsilon(9.743099905570671e-06))
    assert 0.0832332 <= eps <= 1.001 * 0.0832779


def test_the_first_pair_past_the_probe_is_not_taken_as_second_order():
    """sigma = 0.595, p = 3.2e-6, T = 469,834, delta = 2.3e-8 (a seeded scan's rare bulk):
    after the long-double probe the pair of answers at the plan's step and the probe's put
    the error as of the second order, and the refinement stopped at 0.0898492, 0.078% above
    the lower end of gdp's bracket at rtol = 1e-5, [0.0897791766, 0.0897828665]. Taken
    between the first order the probe found and the second (1.5, until a third answer shows
    its order): 0.0898201, 0.045%. (A fresh survey's sigma = 0.605, p = 8.1e-6,
    T = 2,966,141, delta = 3.5e-8 went so from 0.157% to 0.078% above the truth; the split
    by the number of jumps now answers it: below.)"""
    eps = float(gdp.dpsgd(sigma=0.5945825849719116, p=3.1576485963410567e-06,
                          steps=469_834).epsilon(2.343154208816869e-08))
    assert 0.0897791766 <= eps <= 1.0005 * 0.0897791766


def test_no_finer_long_double_frame_where_the_split_by_jumps_follows(monkeypatch):
    """sigma = 0.550, p = 7.4e-6, T = 9,120,039, delta = 3.6e-10 (a fresh rare-bulk survey,
    seed 20261206): the refinement built two more frames in long double (0.94 of 1.3 s),
    at 3.4e-5 and 1.7e-5, for an ordinary answer (1.98529) that the split by the number of
    jumps, answering in double frames of its own, then bettered anyway (1.98471). It stops
    at the first such frame now; the split's answer is within 0.1% of the lower end of
    gdp's bracket at rtol = 1e-5, [1.98401863, 1.98441723]."""
    in_long_double = []
    frame = numeric._Engine.frame

    def spy(self, side, order, h, lam, log_eta=numeric._LOG_ETA, extended=False, top=None):
        if extended and side == "pess":
            in_long_double.append(h)
        return frame(self, side, order, h, lam, log_eta, extended, top)

    monkeypatch.setattr(numeric._Engine, "frame", spy)
    eps = float(gdp.dpsgd(sigma=0.5496789717925497, p=7.40836303388344e-06,
                          steps=9_120_039).epsilon(3.5791417032808865e-10))
    assert 1.98401863 <= eps <= 1.001 * 1.98401863
    assert len(set(in_long_double)) <= 1
    # (the same survey's sigma = 0.605, p = 8.1e-6, T = 2,966,141, delta = 3.5e-8 stopped
    # at 0.348671, at least 0.157% above the truth (gdp's bracket at rtol = 1e-5 and 1e-6,
    # [0.348059313, 0.348126096]), the split then certifying nothing better from there;
    # stopped at its first long-double frame, the split from it answers 0.348196)
    eps = float(gdp.dpsgd(sigma=0.6048145118476835, p=8.131119604594348e-06,
                          steps=2_966_141).epsilon(3.522555147573259e-08))
    assert 0.348059313 <= eps <= 1.001 * 0.348059313


def test_a_lower_tilt_where_the_cap_set_the_planned_step():
    """sigma = 0.448, p = 9.3e-6, 3.28M steps, delta = 2.2e-5 (a survey of rarely sampled
    steps at large delta): the cap of points, not the step rule, set the planned step (the
    tilted spread 4.7 at the planned tilt, from the sampled steps' far tail), and with no
    pair of answers to estimate its error the refinement never started: 1.501000 at every
    rtol, 0.22% above the lower end of the bracket at rtol=1e-4. At a lower tilt
    (``_Engine._lower_tilt``) the rule's step fits: the default sound answer lies within
    0.1% of that lower end, so within 0.1% of the truth."""
    s, p, t, delta = 0.44819560263253805, 9.330940352105997e-06, 3_281_471, \
        2.2263674168030036e-05
    sound = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(delta))
    lower, upper = map(float, gdp.dpsgd(sigma=s, p=p, steps=t, rtol=1e-4).epsilon_bounds(delta))
    assert lower <= upper <= sound
    assert sound <= lower * 1.001
