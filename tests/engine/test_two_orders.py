"""Mechanisms with two neighbouring orders (DP-SGD, compose_two_orders): the sound answer is
the larger of the two orders', and the second order's frame is skipped only where its moment
bound, or the sound answer of its frame at a step four times coarser, itself a bound on the
truth, is already below the first order's answer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gdp
from gdp.engine import numeric
from gdp.engine.numeric import compose_numeric_two_orders

CONFIGS = [(1.0, 0.01, 10_000, 1e-5), (0.8, 0.001, 1000, 1e-5), (2.0, 0.05, 300, 1e-10),
           (6.18, 0.0355, 75, 0.0044), (0.6, 0.2, 30, 1e-12)]


def _engine(h) -> numeric._Engine:
    return h.sound.engine


@pytest.mark.parametrize("cfg", CONFIGS)
def test_moment_bounds_lie_above_the_other_sides_lower_ends(cfg):
    """The moment bounds that let an order go without its frame are upper bounds on its
    truth: never below that order's lower end (the other side's answer), for ε at δ and
    for δ at the ε found."""
    sigma, p, steps, delta = cfg
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    eng = _engine(h)
    eps = float(h.epsilon(delta))
    for order in (1, -1):
        m = eng.moment_eps(order, delta)
        lo = float(eng.answer("opt", order, "eps", np.array([delta]))[0])
        assert m >= lo
        md = eng.moment_delta(order, eps)
        dlo = float(eng.answer("opt", order, "delta", np.array([eps]))[0])
        assert md >= dlo


@pytest.mark.parametrize("cfg", CONFIGS)
def test_answer_is_the_larger_order_or_covers_the_other(cfg):
    """The sound ε (and δ) is order 1's; where order -1's frame was skipped, its moment
    bound is at most that answer, and where it was not, the answer is the larger of the
    two orders' answers."""
    sigma, p, steps, delta = cfg
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    eng = _engine(h)
    eps = float(h.epsilon(delta))
    a1 = float(eng.answer("pess", 1, "eps", np.array([delta]))[0])
    frames = {k[1] for k in eng._frames if k[0] == "pess"}
    if -1 in frames:
        a2 = float(eng.answer("pess", -1, "eps", np.array([delta]))[0])
        assert eps == max(a1, a2)
    else:
        assert eps == a1
        assert eng.moment_eps(-1, delta) <= eps
    d = float(h.delta(eps))
    d1 = float(eng.answer("pess", 1, "delta", np.array([eps]))[0])
    assert d >= d1
    assert d == d1 or d == float(eng.answer("pess", -1, "delta", np.array([eps]))[0])


def test_the_second_order_goes_without_its_frame_where_its_bound_allows(monkeypatch):
    """sigma = 1, p = 0.01, T = 10^4, delta = 1e-5: order -1's moment bound on a grid of
    2,048 cells, 6.0719, is below order 1's answer, 6.1886, so neither its frame nor its
    lattice law at the frame's step is built. Nor is its frame on the other side, where the
    bound is also below order 1's lower end."""
    frames = _frames_built(monkeypatch)

    def built() -> set:  # (side, order) of the frames asked for so far
        return {f[:2] for f in frames}

    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=10_000)
    eps = float(h.epsilon(1e-5))
    assert ("pess", 1) in built() and ("pess", -1) not in built()
    assert not any(key[2] == -1 for key in h.sound.engine._lats)
    assert 6.1 < eps < 6.2
    lo, hi = h.epsilon_bounds(1e-5)
    assert lo <= eps == hi
    # (the other side goes without order -1's frame too: its lower end lies below its true
    # value, below the same moment bound, below order 1's lower end; asked, it says so)
    assert ("opt", -1) not in built()
    eng = h.sound.engine
    a = float(eng.answer("opt", 1, "eps", np.array([1e-5]))[0])
    b = float(eng.answer("opt", -1, "eps", np.array([1e-5]))[0])
    assert ("opt", -1) in built()
    assert b <= eng.moment_eps(-1, 1e-5) <= a and lo == max(a, b)
    d_lo, _ = h.delta_bounds(eps)
    assert d_lo == float(eng.answer("opt", 1, "delta", np.array([eps]))[0]) >= float(
        eng.answer("opt", -1, "delta", np.array([eps]))[0])


@pytest.mark.parametrize("mu, n, delta", [(1.0, 1, 1e-5), (0.1, 100, 1e-5), (0.05, 10_000, 1e-10),
                                          (2.0, 3, 1e-3)])
def test_the_grid_moment_bound_lies_above_the_exact_epsilon(mu, n, delta):
    """The moment bound on the coarse grid is an upper bound on the truth, and on the true
    law's own moment bound at the same tilt, which it exceeds by little: Gaussian factors,
    whose composition is G_(mu sqrt n) in closed form (both orders the same), with the
    cumulant generating function n lam (lam + 1) mu^2 / 2 (the loss is N(mu^2/2, mu^2))."""
    h = compose_numeric_two_orders([(gdp.Gaussian(mu=mu), n)])
    eng = h.sound.engine
    exact = float(gdp.G_mu(mu * np.sqrt(n)).epsilon(delta))
    for order in (1, -1):
        lam = eng._question_tilt(order, "eps", delta)[0]
        g = eng._grid_moment_eps(order, delta, lam)
        c = lam * np.log(lam) - (1.0 + lam) * np.log1p(lam)
        chernoff = (n * lam * (lam + 1.0) * mu * mu / 2.0 + c - np.log(delta)) / lam
        assert exact <= chernoff <= g <= chernoff * (1.0 + 1e-4)


def test_an_order_below_the_other_is_still_answered():
    """With the orders swapped (order 1 the smaller), the second order's bound is above the
    first order's answer, so its frame is built and the answer is the larger."""
    f = gdp.poisson_subsample(gdp.G_mu(1.0), 0.01)
    h = compose_numeric_two_orders([(f.inverse(), 1000)])
    g = compose_numeric_two_orders([(f, 1000)])
    eng = h.sound.engine
    a1 = float(eng.answer("pess", 1, "eps", np.array([1e-6]))[0])
    eps = float(h.epsilon(1e-6))
    assert eps > a1
    assert eps == pytest.approx(float(g.epsilon(1e-6)), rel=1e-3)


def _frames_built(monkeypatch) -> list:
    """(side, order, step) of every frame the engine is asked for from now on."""
    built = []
    frame = numeric._Engine.frame

    def spy(self, side, order, h, *args, **kwargs):
        built.append((side, order, h))
        return frame(self, side, order, h, *args, **kwargs)

    monkeypatch.setattr(numeric._Engine, "frame", spy)
    return built


def test_a_coarse_frame_lets_the_second_order_go_where_its_moment_bound_does_not(monkeypatch):
    """sigma = 1.414, p = 6.3e-3, T = 150,704, delta = 2.9e-11 (the benchmark sweep): order
    -1's moment bound is above order 1's answer (14.4335) but its frame at four times the
    step answers 14.17, so the frame at its own step (17.5 of the question's 45 ms) is not
    built. The answer is the one the full frame gives (order 1's), and the coarse bound lies
    above order -1's lower end (it bounds the truth) and above its answer at its own step."""
    cfg = (1.4144093103132185, 0.006278353476162151, 150704, 2.8903955150141615e-11)
    built = _frames_built(monkeypatch)
    h = gdp.dpsgd(sigma=cfg[0], p=cfg[1], steps=cfg[2])
    eng = _engine(h)
    eps = float(h.epsilon(cfg[3]))
    step = eng._plan_key(-1, "eps", cfg[3])[0]
    assert eng.moment_eps(-1, cfg[3]) > eps
    assert sorted({b[2] for b in built if b[:2] == ("pess", -1)}) == [
        pytest.approx(4 * step, rel=1e-12)]
    coarse = eng.coarse_bound(-1, "eps", cfg[3], eps)
    full = float(eng.answer("pess", -1, "eps", np.array([cfg[3]]))[0])
    low = float(eng.answer("opt", -1, "eps", np.array([cfg[3]]))[0])
    assert low <= full <= coarse <= eps
    monkeypatch.setattr(numeric._Engine, "coarse_bound", lambda *args: float("inf"))
    assert float(gdp.dpsgd(sigma=cfg[0], p=cfg[1], steps=cfg[2]).epsilon(cfg[3])) == eps


def test_the_coarse_frame_is_not_tried_where_the_orders_are_close(monkeypatch):
    """sigma = 3.86, p = 2.4e-3, T = 786,939, delta = 2.7e-6: the two orders' answers lie
    0.14% apart, closer than the coarse frame's error (0.22% there): the Gaussian estimate
    says so, and no coarse frame is built."""
    built = _frames_built(monkeypatch)
    cfg = (3.8634972141176576, 0.002379167970213211, 786939, 2.7446641664489397e-06)
    h = gdp.dpsgd(sigma=cfg[0], p=cfg[1], steps=cfg[2])
    eps = float(h.epsilon(cfg[3]))
    step = _engine(h)._plan_key(-1, "eps", cfg[3])[0]
    assert {b[2] for b in built if b[:2] == ("pess", -1)} == {step}
    assert _engine(h).coarse_bound(-1, "eps", cfg[3], eps) == float("inf")


def test_the_other_side_goes_without_order_minus_one_below_its_sound_answer(monkeypatch):
    """sigma = 3.86, p = 2.4e-3, T = 786,939, delta = 2.7e-6: order -1's sound answer
    (2.40675, asked for the sound ε) lies below order 1's lower end (2.40974), so order -1's
    lower end does too and its frame on the other side (70 of the bracket's 120 ms, and a
    lower end of 0) is not built; the bracket is the one built with it."""
    built = _frames_built(monkeypatch)
    cfg = (3.8634972141176576, 0.002379167970213211, 786939, 2.7446641664489397e-06)
    h = gdp.dpsgd(sigma=cfg[0], p=cfg[1], steps=cfg[2])
    eps = float(h.epsilon(cfg[3]))
    lo, hi = map(float, h.epsilon_bounds(cfg[3]))
    sides = {b[:2] for b in built}
    assert ("pess", -1) in sides and ("opt", -1) not in sides
    assert lo <= hi == eps
    eng = _engine(h)
    b = float(eng.answer("opt", -1, "eps", np.array([cfg[3]]))[0])
    assert b <= float(eng.answer("pess", -1, "eps", np.array([cfg[3]]))[0]) <= lo
    assert lo == max(float(eng.answer("opt", 1, "eps", np.array([cfg[3]]))[0]), b)


def _phases_reference(name: str) -> dict:
    ref = json.loads((Path(__file__).parent / "data" / "phases_reference.json").read_text())
    return ref[name]


def test_order_minus_one_moment_bound_of_a_long_list_first_at_a_coarser_step(monkeypatch):
    """The phases reference's "rare" list (17 rarely sampled phases, 305,896 points in the
    factors' windows at the frame's step; ``data/make_phases_reference.py``) without the
    grid law (``_Engine._grid_pays`` switched off): order -1's moment bound is first asked
    of lattices at a step 64 times the frame's (``_Engine._moment_step``), and that bound is
    still an upper bound on order -1's truth (never below its lower end) and below order
    1's answer, so order -1 goes without its frame."""
    run = _phases_reference("rare")
    steps = []
    moment_step = numeric._Engine._moment_step

    def spy(self, order, h, lam, margin):
        out = moment_step(self, order, h, lam, margin)
        steps.append((h, out))
        return out

    monkeypatch.setattr(numeric._Engine, "_moment_step", spy)
    monkeypatch.setattr(numeric._Engine, "_grid_pays", lambda self, order: False)
    h = gdp.dpsgd(phases=[dict(sigma=s, p=p, steps=t) for s, p, t in run["phases"]])
    delta = run["delta"]
    eps = float(h.epsilon(delta))
    assert steps and steps[0][1] is not None and steps[0][1] >= 32 * steps[0][0]
    eng = _engine(h)
    assert not any(k[0] == "pess" and k[1] == -1 for k in eng._frames)
    m = eng.moment_eps(-1, delta, below=eps)
    assert m <= eps
    assert m >= float(eng.answer("opt", -1, "eps", np.array([delta]))[0])


@pytest.mark.parametrize("name", ["rare", "narrow"])
def test_order_minus_one_of_a_long_run_in_phases_from_the_grid_law(name):
    """Runs of 17 rarely sampled phases (over 16 groups; the phases reference): the grids
    of order -1's factors hold fewer cells than order 1's planned windows held points, so
    order -1's moment bound comes from the grid law (``_Engine._grid_pays``), with no plan
    of order -1 and no frame of it; the bound is an upper bound on order -1's truth (never
    below its lower end) and below order 1's answer."""
    run = _phases_reference(name)
    h = gdp.dpsgd(phases=[dict(sigma=s, p=p, steps=t) for s, p, t in run["phases"]])
    delta = run["delta"]
    eps = float(h.epsilon(delta))
    eng = _engine(h)
    assert len(eng.groups) > numeric._FEW_GROUPS
    assert eng._grid_law(-1) is not None
    assert not any(k[0] == "pess" and k[1] == -1 for k in eng._frames)
    assert not any(k[0] == "plan-key" and k[1] == -1 for k in eng._memo)
    lam = eng._question_tilt(-1, "eps", delta)[0]
    m = eng._grid_moment_eps(-1, delta, lam)
    assert m <= eps
    assert m >= float(eng.answer("opt", -1, "eps", np.array([delta]))[0])


def test_long_mixed_list_has_no_grid_law():
    """A list of 40 mechanisms with short windows (Gaussian, Laplace, randomized response,
    subsampled Gaussian, ten each): order 1's planned windows hold fewer points than the
    grids would hold cells, so order -1 goes without the grid law (it would cost more than
    its own lattice)."""
    rng = np.random.default_rng(20240611)
    fs = [gdp.G_mu(x) for x in rng.uniform(0.01, 0.05, 10)]
    fs += [gdp.laplace(x) for x in rng.uniform(0.01, 0.05, 10)]
    fs += [gdp.f_eps_delta(x) for x in rng.uniform(0.01, 0.05, 10)]
    fs += [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p)
           for s, p in zip(rng.uniform(0.8, 2.0, 10), rng.uniform(0.001, 0.02, 10), strict=True)]
    h = gdp.compose_two_orders(*fs)
    h.epsilon(1e-6)
    eng = _engine(h)
    assert len(eng.groups) > numeric._FEW_GROUPS
    assert eng._memo[("planned-points", 1)] < len(eng.groups) * numeric._MOMENT_CELLS
    assert eng._grid_law(-1) is None
