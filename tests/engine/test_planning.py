"""Planning: the estimate of the answer that chooses the first frame, and the frame it
chooses where the Chernoff bound is far above the answer."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

import gdp
from gdp.engine.frames import _c
from gdp.engine.lattice import _charged_beyond
from gdp.engine.laws import law_of
from gdp.engine.numeric import Accuracy, _Engine
from gdp.engine.planning import _charges_at_once, _gauss_eps, _offset, _offsets_at_once


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-12])
def test_gaussian_estimate_is_exact_for_a_gaussian_law(mu, delta):
    """For G_mu the loss is Gaussian, N(mu^2/2, mu^2), and so is every tilt of it: the
    estimate is then the exact epsilon (DRS Cor. 2.13), to its bisection's 1e-4, and far
    below the Chernoff bound it corrects."""
    ld = math.log(delta)

    def cgf(lam: float) -> float:
        return 0.5 * lam * mu * mu + 0.5 * lam * lam * mu * mu

    def chernoff(lam: float) -> float:
        return (cgf(lam) + _c(lam)[0] - ld) / lam

    lam = minimize_scalar(chernoff, bounds=(1e-6, 1e4), method="bounded",
                          options={"xatol": 1e-10}).x
    eps_c = chernoff(lam)
    est = _gauss_eps(cgf(lam), 0.5 * mu * mu + lam * mu * mu, mu * mu, lam, ld, eps_c)
    exact = gdp.G_mu(mu).epsilon(delta)
    assert est == pytest.approx(exact, rel=3e-4)
    assert est < eps_c * (1.0 - 1e-3)
    # (asked only below a value: the same estimate below it, the Chernoff bound above)
    args = (cgf(lam), 0.5 * mu * mu + lam * mu * mu, mu * mu, lam, ld, eps_c)
    assert _gauss_eps(*args, only_below=1.001 * est) == est
    assert _gauss_eps(*args, only_below=0.999 * est) == eps_c


def test_estimate_falls_back_to_chernoff_on_a_degenerate_law():
    assert _gauss_eps(0.0, 0.0, 0.0, 1.0, math.log(1e-6), 2.5) == 2.5


_REF = {(c["sigma"], c["p"], c["steps"], c["delta"]): c for c in json.loads(
    (Path(__file__).parent / "data" / "dpsgd_reference.json").read_text())["configurations"]}


def test_answer_far_below_chernoff_is_framed_at_the_delta_question():
    """Where the estimate is under half the Chernoff epsilon, the first frame is the one
    of the delta question at the estimate (its saddle-point tilt and step), which the step
    refinement used to add after a frame at the Chernoff tilt: one frame for the order
    instead of two, and the answer stays between dp-accounting's bounds (reference grid:
    optimistic and pessimistic PLD at a fine discretisation)."""
    key = (1.3254412315276827, 0.0025347860206405576, 537, 0.00012706448223642497)
    sigma, p, steps, delta = key
    f = gdp.poisson_subsample(gdp.G_mu(1.0 / sigma), p)
    e = _Engine([(f, steps)], Accuracy())
    eps = float(e.answer("pess", 1, "eps", np.array([delta]))[0])
    lams = {k[3] for k in e._frames if k[0] == "pess" and k[1] == 1}
    assert len(lams) == 1
    est_key = next(k for k in e._memo if k[:3] == ("plan-eps", 1, "delta"))
    assert lams == {e.plan(1, "delta", est_key[3])[1]}
    h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    ref = _REF[key]["dp_accounting"]
    lo, hi = (float(v) for v in h.epsilon_bounds(delta))
    assert ref["optimistic"] <= lo <= float(h.epsilon(delta)) == hi
    assert eps <= hi
    assert hi <= ref["pessimistic"] * 1.001


@pytest.mark.parametrize("h", [1e-4, 3.7e-4, 2e-3])
def test_stacked_bulk_search_gives_each_laws_own_offset(h):
    """The other side's offsets of many single factors found in one stacked search
    (``_offsets_at_once``) are each law's own ``_offset``, bit for bit: 40 subsampled
    Gaussians (p from 1e-4 to 0.3, some bulks found, some not) and their inverses (order
    -1's laws), at three steps."""
    rng = np.random.default_rng(43)
    fs = [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p)
          for s, p in zip(rng.uniform(0.5, 3.0, 40),
                          np.exp(rng.uniform(math.log(1e-4), math.log(0.3), 40)), strict=True)]
    eng = gdp.compose_two_orders(*fs).sound.engine
    for order in (1, -1):
        laws = [fa.opt for fa in eng.factors(order)]
        assert len({law._batch_key() for law in laws}) == 1
        own = [_offset(law, h, True) for law in laws]
        assert _offsets_at_once(laws, h) == own
        assert any(v != 0.0 for v in own) or h < 2e-3


def test_stacked_tail_charges_are_each_laws_own():
    """The Q-mass charged to +inf beyond a last lattice point t (``_charged_beyond``: the
    cell (t, inf] with its excess over t and their error bounds) found for many laws of one
    batch key at once (``_charges_at_once``) is each law's own, bit for bit: Gaussians,
    Laplace laws and randomized responses (atoms at their supports' ends) and subsampled
    Gaussians (p from 1e-6 to 1), at points below, at and beyond their upper quantiles at
    1e-12."""
    rng = np.random.default_rng(45)
    xs = rng.uniform(0.01, 0.05, 12)
    sub = zip(rng.uniform(0.6, 3.0, 12), np.exp(rng.uniform(math.log(1e-6), 0.0, 12)),
              strict=True)
    lists = [[gdp.G_mu(x) for x in xs], [gdp.laplace(x) for x in xs],
             [gdp.f_eps_delta(x) for x in xs],
             [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p) for s, p in sub]]
    for fs in lists:
        laws = [law_of(f) for f in fs]
        assert len({law._batch_key() for law in laws}) == 1
        for scale in (0.0, 0.5, 1.0, 1.3):
            ts = [scale * float(law.quantiles(1e-12)[1]) for law in laws]
            own = [_charged_beyond(law, t) for law, t in zip(laws, ts, strict=True)]
            assert _charges_at_once(laws, ts) == own
            assert all(c >= 0.0 for c in own)


def test_long_list_budget_looks_at_the_charges_at_once(monkeypatch):
    """30 distinct subsampled Gaussians (a list of over 16 groups) at δ = 1e-15: the ε
    question's truncation budget, below the 1e-12 a tilted frame truncates in all, looks at
    the charges of the 29 subsampled ones (at p = 1 the factor is the Gaussian itself) in
    one stacked call and sends some factors deeper; at δ = 1e-6 the question takes no
    budget and no look."""
    calls = _spy_stacked(monkeypatch, "_charges_at_once")
    fs = [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p)
          for s, p in zip(np.linspace(0.4, 10, 30), np.geomspace(1e-6, 1.0, 30), strict=True)]
    h = gdp.compose_two_orders(*fs)
    assert float(h.epsilon(1e-6)) > 0.0 and not calls
    assert float(h.epsilon(1e-15)) > 0.0
    assert calls and all(n == 29 for n in calls)
    engines = [e for e in (h.sound.engine, h.sound.engine._twin) if e is not None]
    assert any(k[0] == "depths" and any(k_ for k_ in v) for e in engines
               for k, v in e._memo.items() if isinstance(k, tuple) and k)


def _spy_stacked(monkeypatch, name: str) -> list[int]:
    """The number of laws of each stacked call the engine makes to ``name``
    (``_offsets_at_once``, ``_charges_at_once``: called through ``gdp.engine.numeric``)."""
    from gdp.engine import numeric

    calls: list[int] = []
    stacked = getattr(numeric, name)

    def spy(laws, *args):
        calls.append(len(laws))
        return stacked(laws, *args)

    monkeypatch.setattr(numeric, name, spy)
    return calls


def _assert_remembered_offsets_are_own(eng, side: str, least: int) -> None:
    """At least ``least`` offsets of ``side`` remembered by the engine, each the one the
    law's own search gives (``_offset``), bit for bit."""
    found = [k for k in eng._memo if k[0] == "o" and k[1] == side]
    assert len(found) >= least
    for k in found:
        law = next(getattr(fa, side) for o in (1, -1) for fa in eng.factors(o)
                   if id(getattr(fa, side)) == k[2])
        assert eng._memo[k] == _offset(law, k[3], True)


def test_long_list_takes_the_stacked_offsets(monkeypatch):
    """A list of 40 subsampled Gaussians (over 16 groups): the other side's lattices take
    their single factors' offsets from the stacked search (all 40 of an order at once),
    remembered where each factor's own search would have put them."""
    calls = _spy_stacked(monkeypatch, "_offsets_at_once")
    rng = np.random.default_rng(44)
    fs = [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p)
          for s, p in zip(rng.uniform(0.6, 2.0, 40),
                          np.exp(rng.uniform(math.log(1e-4), math.log(1e-2), 40)), strict=True)]
    h = gdp.compose_two_orders(*fs)
    lo, hi = (float(v) for v in h.epsilon_bounds(1e-8))
    eng = h.sound.engine
    _assert_remembered_offsets_are_own(eng, "opt", 40)
    assert 0.0 < lo <= hi
    assert calls and all(n == 40 for n in calls)


def test_run_in_phases_takes_the_stacked_offsets_on_the_sound_side(monkeypatch):
    """The phases reference's "rare" run (17 rarely sampled phases, each a power whose bulk
    is looked for): the sound side's windows at a common step take the phases' offsets from
    one stacked search, remembered where each phase's own search would have put them."""
    calls = _spy_stacked(monkeypatch, "_offsets_at_once")
    ref = json.loads((Path(__file__).parent / "data" / "phases_reference.json").read_text())
    run = ref["rare"]
    h = gdp.dpsgd(phases=[dict(sigma=s, p=p, steps=t) for s, p, t in run["phases"]])
    assert float(h.epsilon(run["delta"])) > 0.0
    eng = h.sound.engine
    assert calls and all(n == 17 for n in calls)
    _assert_remembered_offsets_are_own(eng, "pess", 17)
