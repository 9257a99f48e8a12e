"""δ at ε, the other question. Its frame has its own tilt and step; the sound δ must be
about as tight as the sound ε: at the sound ε(δ) it is at most δ up to the discretisation
(here 1%), and where the engine's own ε(1e-15) is far below ε it is negligible.

Found by the δ mode of ``benchmarks/scan_engine_box.py``: the sound δ was 0.0017 for
σ = 9.89, p = 1.2e-5, T = 99,664 at ε = 0.1 (ε(1e-15) is 0.0025: the window of a two-level
frame lay above ε, all the mass below it was charged at the window's bottom, and no
Chernoff bound capped it), and 1 for σ = 0.482, p = 2.2e-5, T = 1,129,335 at ε = 25.2 (just
below the add order's top, where the frame's tilt, from the planning law, was useless for
the lattice law)."""

from __future__ import annotations

import pytest

import gdp


@pytest.mark.parametrize(("sigma", "p", "steps"), [
    (9.89, 1.2e-5, 99_664),         # two levels, small p
    (9.56, 4.5e-6, 1_444_548),      # two levels, long run
    (0.8, 1e-3, 1000),
    (1.0, 0.01, 10),
    (4.72, 1.2e-5, 690_794),
])
def test_delta_at_the_sound_epsilon_is_at_most_delta(sigma, p, steps):
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    for d in (1e-6, 1e-12):
        e = float(h.epsilon(d))
        assert e > 0
        assert float(h.delta(e)) <= 1.01 * d
    e15 = float(h.epsilon(1e-15))
    assert float(h.delta(10.0 * e15 + 0.1)) <= 1e-15


def test_delta_just_below_the_top_of_a_long_bounded_order():
    # the add order's loss is at most -T log(1 - p) = 25.37 here; the lattice's end lies
    # n steps beyond it, and the frame's tilt (from the planning law) was useless for the
    # lattice law: delta was 1. The whole law's Chernoff bound at its own best tilt caps it
    h = gdp.dpsgd(sigma=0.48214108581447596, p=2.2467858704709637e-05, steps=1_129_335)
    assert float(h.delta(25.204174825592062)) <= 1e-20


def test_other_side_keeps_its_narrow_frame_where_a_wider_one_would_be_too_large():
    # sigma = 1.13, p = 1.3e-6, 9.5M steps, delta at eps = 0.0404 (found by the
    # rare-jumps region of benchmarks/scan_engine_box.py): the other side's wider window
    # needed 8.7M points and the bracket raised "lattice too large" inside the box; the
    # narrow frame's lower end stands instead
    h = gdp.dpsgd(sigma=1.1335463163444508, p=1.274480334348527e-06, steps=9_536_189)
    eps = 0.04040550457043895
    lo, hi = map(float, h.delta_bounds(eps))
    assert 0.0 <= lo <= hi == float(h.delta(eps)) < 1e-20


def test_other_side_builds_no_second_frame_beyond_its_cap(monkeypatch):
    # sigma = 0.6, p = 1e-6, 10^7 steps, delta at eps = 30: the sound answer took 0.1 s;
    # the other side built 2.6 million points, then 4.1 million in double and again in long
    # double, 6 s, for a lower end of 1.6e-134. Where the δ asked about is below
    # _JUMPS_FLOOR (the sound 2e-23 here), it builds none over _EXTRA_POINTS beyond its
    # first frame at a step and tilt; the first frame's answer, a bound, stands
    from gdp.engine import numeric

    built: list[tuple[str, float, float, bool, int]] = []
    frame = numeric._Engine.frame

    def spy(self, side, order, h, lam, log_eta=numeric._LOG_ETA, extended=False,
            top=None):
        fr = frame(self, side, order, h, lam, log_eta, extended, top)
        built.append((side, h, lam, extended, fr.s.size))
        return fr

    monkeypatch.setattr(numeric._Engine, "frame", spy)
    h = gdp.dpsgd(sigma=0.6, p=1e-6, steps=10_000_000)
    lo, hi = _sound_bracket(h, 30.0)
    assert 0.0 <= lo <= hi < 1e-20
    big: dict[tuple[float, float], int] = {}
    for side, hh, lam, ext, n in built:
        if side == "opt" and n > numeric._EXTRA_POINTS:
            assert not ext
            big[(hh, lam)] = big.get((hh, lam), 0) + 1
    assert big and max(big.values()) == 1


def _truth_between(h, e: float, below: float, above: float) -> None:
    """The engine's ε answers, another route than its δ answers, put δ(e) in
    (``below``, ``above``]: the sound ε at ``above`` is at most e, and the lower ε at
    ``below`` exceeds it (δ is non-increasing in ε)."""
    assert float(h.epsilon(above)) <= e < float(h.epsilon_bounds(below)[0])


def _sound_bracket(h, e: float) -> tuple[float, float]:
    """The bracket of δ(e), checked ordered, its upper end the sound answer."""
    lo, hi = (float(v) for v in h.delta_bounds(e))
    assert lo <= hi == float(h.delta(e))
    return lo, hi


def test_delta_of_rarely_sampled_steps_refines_its_step():
    # sigma = 0.90, p = 4.4e-6, 1.2M steps, eps = 0.01245: the planned step does not
    # resolve a step's bulk, and the sound delta was 1.655e-4 (6% above the truth), the
    # lower end 3.0e-5. The engine's own eps answers bracket the truth another way:
    # eps(1.57e-4) = 0.012436 <= eps, so delta <= 1.57e-4; the lower eps at 1.55e-4 is
    # 0.012466 > eps, so delta > 1.55e-4
    h = gdp.dpsgd(sigma=0.90, p=4.4e-6, steps=1_200_000)
    e = 0.01245
    _truth_between(h, e, 1.55e-4, 1.57e-4)
    lo, hi = _sound_bracket(h, e)
    assert 1.55e-4 < hi <= 1.005 * 1.57e-4
    assert lo <= 1.57e-4 and hi <= 1.01 * lo


def test_delta_refinement_goes_past_half_a_million_points_where_it_must():
    # sigma = 0.608, p = 1.1e-6, 9.8M steps, eps = 0.0272 (rare-bulk scan): the refinement
    # stopped at 1.22e-4, its frame at 480,000 points, the next over 2**19, its error
    # estimated at a third of it. The engine's own eps answers bracket the truth: eps(8e-5)
    # = 0.02676 <= eps, so delta <= 8e-5; the lower eps at 6e-5 is 0.02764 > eps, so
    # delta > 6e-5. The sound delta stays above the one and comes down toward the other
    h = gdp.dpsgd(sigma=0.6082833992129703, p=1.0757357844908684e-06, steps=9_790_681)
    e = 0.0272
    _truth_between(h, e, 6e-5, 8e-5)
    assert 6e-5 < float(h.delta(e)) < 9e-5


def test_delta_goes_to_the_tight_engine_where_its_truncation_cannot_move_it():
    # sigma = 0.6, p = 1e-6, 10^7 steps, eps = 0.05: every delta question went to the twin,
    # whose factor windows are several times longer, so its frames could not refine the
    # step: 2.24e-6 there. The engine's own eps answers bracket the truth: eps(2e-7) =
    # 0.0494 <= eps, so delta <= 2e-7; the lower eps at 5e-8 is 0.0524 > eps, so
    # delta > 5e-8. The tight engine's windows truncate at most 1e-4 of its answer
    h = gdp.dpsgd(sigma=0.6, p=1e-6, steps=10_000_000)
    e = 0.05
    _truth_between(h, e, 5e-8, 2e-7)
    lo, hi = _sound_bracket(h, e)
    assert 5e-8 < hi <= 2e-7
    engine = h.sound.engine
    assert engine.tight and engine._tight_delta(1, e) == hi
