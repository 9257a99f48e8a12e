"""gdp.Accountant: the ledger equals the one-shot composition bit for bit, incremental and
from-scratch answers agree, budgets refuse before recording (the ledger unchanged) and are
never exceeded, and the state survives a JSON round trip while corrupted or foreign states are
refused.
"""

import json
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import gdp
from gdp.accounting import ledger as ledger_module
from gdp.accounting.calibrate import _mu_above_floor
from gdp.accounting.factors import Step

DELTAS = [1e-3, 1e-5, 1e-7]


def answers(h):
    return [float(h.epsilon(d)) for d in DELTAS] + [float(h.delta(e)) for e in (0.5, 1.0, 2.0)]


@pytest.fixture
def engine_calls(monkeypatch):
    """Count the compositions the ledger asks of the engine."""
    calls = []
    real = ledger_module.compose_factors

    def counted(*a, **k):
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(ledger_module, "compose_factors", counted)
    return calls


# ------------------------------------------------------------------ the one-shot answer
def test_steps_one_at_a_time_equal_dpsgd_bit_for_bit():
    acc = gdp.Accountant()
    for _ in range(500):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    assert answers(acc.tradeoff()) == answers(gdp.dpsgd(sigma=1.1, p=0.01, steps=500))
    assert len(acc) == acc.steps == 500
    assert acc.history == [{"kind": "dpsgd", "noise_multiplier": 1.1, "sample_rate": 0.01,
                            "steps": 500}]


def test_interleaved_phases_equal_dpsgd_phases_bit_for_bit():
    acc = gdp.Accountant()
    for i in range(300):
        acc.step(noise_multiplier=1.0 if i % 3 else 1.5, sample_rate=0.02 if i % 3 else 0.05)
    one_shot = gdp.dpsgd(phases=[{"sigma": 1.5, "p": 0.05, "steps": 100},
                                 {"sigma": 1.0, "p": 0.02, "steps": 200}])
    assert answers(acc.tradeoff()) == answers(one_shot)
    assert len(acc.history) == 200  # consecutive equal steps merge, alternations do not


def test_curves_and_steps_equal_compose_two_orders_bit_for_bit():
    acc = gdp.Accountant(rtol=1e-4)
    acc.step(noise_multiplier=1.0, sample_rate=0.05, steps=40)
    acc.compose(gdp.G_mu(0.5), count=3)
    acc.compose(gdp.mechanisms.Laplace(sensitivity=1.0, eps=0.3))
    step = gdp.poisson_subsample(gdp.G_mu(1.0), 0.05)
    ref = gdp.compose_two_orders(*[step] * 40, *[gdp.G_mu(0.5)] * 3, gdp.laplace(0.3),
                                 rtol=1e-4)
    assert answers(acc.tradeoff()) == answers(ref)
    assert len(acc) == 44 and acc.steps == 40


def test_closed_forms_stay_closed():
    acc = gdp.Accountant()
    acc.compose(gdp.G_mu(0.6)).compose(gdp.G_mu(0.8))
    assert acc.tradeoff() == gdp.G_mu(1.0)
    assert acc.mu() == ledger_module.GdpSummary(mu=1.0, kind="exact",
                                                method="closed form (DRS Cor. 3.3)")
    assert gdp.Accountant().epsilon(1e-5) == 0.0  # nothing recorded: the identity


def test_a_single_step_is_exact_subsampling():
    acc = gdp.Accountant()
    acc.step(noise_multiplier=2.0, sample_rate=0.1)
    assert acc.tradeoff() == gdp.subsample(gdp.G_mu(0.5), 0.1)


def test_no_noise_means_no_privacy():
    acc = gdp.Accountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=10)
    acc.step(noise_multiplier=0.0, sample_rate=0.01)
    assert acc.epsilon(1e-5) == math.inf and acc.delta(10.0) == 1.0


# ------------------------------------------------------------------ incremental
def test_incremental_equals_from_scratch(engine_calls):
    inc = gdp.Accountant()
    for i in range(200):
        inc.step(noise_multiplier=1.2, sample_rate=0.03)
        if i in (0, 49, 199):
            inc.epsilon(1e-5)  # answers read along the way are cached, then recomputed
    assert len(engine_calls) == 3
    inc.epsilon(1e-6)
    inc.delta(1.0)
    assert len(engine_calls) == 3  # no change, no new composition
    scratch = gdp.Accountant()
    scratch.step(noise_multiplier=1.2, sample_rate=0.03, steps=200)
    assert answers(inc.tradeoff()) == answers(scratch.tradeoff())
    assert inc.state_dict() == scratch.state_dict()


def test_ten_thousand_equal_steps_are_one_group():
    acc = gdp.Accountant()
    for _ in range(10_000):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert len(acc._groups) == 1 and len(acc.history) == 1
    assert acc.epsilon(1e-5) == gdp.dpsgd(sigma=1.0, p=0.01, steps=10_000).epsilon(1e-5)


# ------------------------------------------------------------------ budgets
def test_budget_refusal_leaves_the_ledger_unchanged():
    acc = gdp.Accountant(eps=2.0, delta=1e-5)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=1000)
    before, eps_before = acc.state_dict(), acc.epsilon(1e-5)
    with pytest.raises(gdp.BudgetExceeded, match=r"recording Gaussian\(mu=1.0\) would exceed "
                       r"the budget \(eps, delta\) = \(2, 1e-05\): eps at delta=1e-05 would "
                       r"be 4.8\d+ > 2; nothing was recorded \(1000 mechanisms so far\)") as e:
        acc.compose(gdp.G_mu(1.0))
    assert isinstance(e.value, ValueError) and e.value.would_be > 2.0
    with pytest.raises(gdp.BudgetExceeded, match="1000 DP-SGD step"):
        acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=1000)
    assert acc.state_dict() == before and acc.epsilon(1e-5) == eps_before and len(acc) == 1000


def test_filling_an_eps_budget_step_by_step_never_exceeds_it(engine_calls):
    budget = 4.0
    acc = gdp.Accountant(eps=budget, delta=1e-5)
    n = 0
    with pytest.raises(gdp.BudgetExceeded) as e:
        while True:
            acc.step(noise_multiplier=2.0, sample_rate=0.1)
            n += 1
            assert n < 1000
    # the refused step is over budget on the sound side, the ledger within it
    assert e.value.would_be > budget
    assert acc.epsilon(1e-5) <= budget
    assert gdp.dpsgd(sigma=2.0, p=0.1, steps=n + 1).epsilon(1e-5) > budget
    assert acc.steps == n and acc.spent() == acc.epsilon(1e-5)
    # most steps were admitted by certificates, not by the engine
    assert len(engine_calls) < n / 5


def test_a_far_budget_needs_no_engine_call(engine_calls):
    acc = gdp.Accountant(eps=50.0, delta=1e-5)
    for _ in range(100):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    acc.compose(gdp.G_mu(0.5), count=4)
    assert engine_calls == []


@pytest.mark.parametrize("rtol", [1e-3, 1e-2])
def test_the_reported_eps_stays_inside_the_budget_near_its_edge(rtol):
    """Look-ahead certificates are used only well inside the budget, so that the ledger's own
    answer at the admitted count never shows more than the budget."""
    budget = 4.0
    acc = gdp.Accountant(eps=budget, delta=1e-5, rtol=rtol)
    with pytest.raises(gdp.BudgetExceeded):
        for _ in range(1000):
            acc.step(noise_multiplier=2.0, sample_rate=0.1, steps=7)
            assert acc.epsilon(1e-5) <= budget


def test_eps_budget_remainder_is_a_release_that_still_fits():
    acc = gdp.Accountant((2.0, 1e-6))  # the budget in one argument: (eps, delta)
    acc.compose(gdp.laplace(0.8)).compose(gdp.G_mu(0.2))
    r = acc.remaining()
    assert r.tradeoff == gdp.f_eps_delta(r.eps) and r.mu is None
    assert r.delta == 1e-6 - acc.delta(2.0) >= 0
    before = acc.state_dict()
    with pytest.raises(gdp.BudgetExceeded):  # a little more does not fit ...
        acc.compose(gdp.f_eps_delta(r.eps * 1.001))
    assert acc.state_dict() == before
    acc.compose(r.tradeoff)  # ... the remainder does (never over-stated)
    # (within the engine's default accuracy, rtol = 1e-3 of the budget's eps)
    assert acc.remaining().eps < 1e-3 * 2.0


def test_mu_budget_and_its_remainder():
    acc = gdp.Accountant(mu=1.0)
    acc.compose(gdp.G_mu(0.6))
    assert_allclose(acc.remaining().mu, 0.8, rtol=1e-12)
    assert acc.remaining().tradeoff == gdp.G_mu(acc.remaining().mu)
    assert acc.spent() == 0.6 and gdp.Accountant(1.0).budget == acc.budget
    with pytest.raises(gdp.BudgetExceeded, match="budget mu = 1; nothing was recorded"):
        acc.compose(gdp.G_mu(0.81))
    acc.compose(gdp.G_mu(0.8))
    assert acc.remaining().mu == 0.0
    assert acc.tradeoff() == gdp.G_mu(1.0)


def test_mu_budget_with_a_numeric_curve_is_certified_from_above():
    acc = gdp.Accountant(mu=2.0)
    acc.compose(gdp.laplace(0.5), count=4)
    spent = acc.spent()
    h = acc.tradeoff()
    # spent is a mu the sound curve is proved to dominate (up to the engine's floor: the
    # masses its sound side puts at +-inf, at most 1e-9), and a smaller one is not
    assert _mu_above_floor(h, spent)[0] and _mu_above_floor(h, spent)[1] <= 1e-9
    assert not _mu_above_floor(h, spent * (1 - 1e-3))[0]
    assert not h.dominates(gdp.G_mu(spent * (1 - 1e-3)))
    assert_allclose(acc.remaining().mu, math.sqrt(4.0 - spent**2), rtol=1e-12)


def test_curve_budget():
    acc = gdp.Accountant(tradeoff=gdp.G_mu(1.0))
    acc.compose(gdp.G_mu(0.9))
    with pytest.raises(gdp.BudgetExceeded):
        acc.compose(gdp.G_mu(0.5))
    with pytest.raises(ValueError, match="no scalar spent or remaining"):
        acc.remaining()


def test_without_a_budget_remaining_is_refused():
    with pytest.raises(ValueError, match="this accountant has no budget"):
        gdp.Accountant().remaining()


# ------------------------------------------------------------------ GDP summary
def test_mu_summary_is_labelled():
    acc = gdp.Accountant()
    acc.step(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=3000)
    acc.step(noise_multiplier=1.5, sample_rate=0.01, steps=100)
    s = acc.mu()
    ref = math.hypot(gdp.noisy_sgd_mu(1.1, 256 / 60_000, 3000), gdp.noisy_sgd_mu(1.5, 0.01, 100))
    assert s.kind == "approximation" and "CLT" in s.method
    assert_allclose(s.mu, ref, rtol=1e-14)
    acc = gdp.Accountant().compose(gdp.f_eps_delta(0.1), count=50)
    assert acc.mu().kind == "approximation" and acc.mu().gamma is not None
    acc = gdp.Accountant().compose(gdp.poisson_subsample(gdp.laplace(1.0), 0.1), count=5)
    with pytest.raises(ValueError, match="no GDP summary"):
        acc.mu()


# ------------------------------------------------------------------ inputs
def test_schedule_and_sampling_keywords():
    acc = gdp.Accountant()
    run = gdp.epochs_to_steps(epochs=2, batch_size=256, dataset_size=60_000,
                              convention="opacus")
    acc.step(noise_multiplier=1.1, schedule=run)
    assert acc.history[0]["schedule"]["convention"] == "opacus" and acc.steps == 470
    with pytest.raises(TypeError, match="either `schedule` or `sample_rate`"):
        acc.step(noise_multiplier=1.1, schedule=run, sample_rate=0.1)
    with pytest.raises(TypeError, match=r"unknown keyword\(s\) \['sampling'\]; gdp.dpsgd"):
        acc.step(noise_multiplier=1.1, sample_rate=0.1, sampling="shuffle")
    with pytest.raises(ValueError, match="sampler='shuffle' has no known analysis"):
        acc.step(noise_multiplier=1.1, sample_rate=0.1, sampler="shuffle")
    with pytest.raises(TypeError, match="needs `sample_rate`"):
        acc.step(noise_multiplier=1.1)
    assert acc.steps == 470


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda a: a.step(noise_multiplier=-1.0, sample_rate=0.1), ValueError,
         "`noise_multiplier` must be a non-negative"),
        (lambda a: a.step(noise_multiplier=1.0, sample_rate=0.0), ValueError,
         r"`sample_rate` must be a number in \(0, 1\]"),
        (lambda a: a.step(noise_multiplier=1.0, sample_rate=0.1, steps=0), ValueError,
         "`steps` must be an integer >= 1"),
        (lambda a: a.compose(gdp.G_mu(1.0), count=0), ValueError,
         "`count` must be an integer >= 1"),
        (lambda a: a.compose("gauss"), TypeError, "must be a TradeOff, a mechanism"),
        (lambda a: a.compose({"class_name": "ZCDpEvent", "rho": 1, "xi": 0}),
         gdp.UnsupportedEvent, "unsupported event ZCDpEvent"),
    ],
)
def test_bad_input_is_refused_and_records_nothing(call, exc, match):
    acc = gdp.Accountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.1)
    before = acc.state_dict()
    with pytest.raises(exc, match=match):
        call(acc)
    assert acc.state_dict() == before


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"eps": 1.0}, "an `eps` budget needs its `delta`"),
        ({"delta": 1e-5}, "`delta` goes with an `eps` budget"),
        ({"eps": 1.0, "delta": 1e-5, "mu": 1.0}, "give one budget"),
        ({"tradeoff": 0.5}, "`tradeoff` must be a TradeOff"),
        ({"budget": (1.0, 1e-5), "mu": 1.0}, "either as `budget` or as the keywords"),
        ({"budget": (1.0, 1e-5, 0.0)}, r"a `budget` sequence must be \(eps, delta\)"),
        ({"budget": "big"}, "`budget` must be \\(eps, delta\\), a mu > 0"),
        ({"budget": 0.0}, "`budget` must be a positive"),
        ({"neighbours": "swap"}, "`neighbours` must be one of"),
        ({"precision": 3}, r"unknown accuracy keyword\(s\) \['precision'\]"),
    ],
)
def test_bad_settings_are_refused(kw, match):
    with pytest.raises((TypeError, ValueError), match=match):
        gdp.Accountant(**kw)


# ------------------------------------------------------------------ state
def make_full_ledger():
    acc = gdp.Accountant(eps=8.0, delta=1e-5, rtol=1e-3)
    acc.step(noise_multiplier=1.1, sample_rate=0.01, steps=300)
    acc.compose(gdp.G_mu(0.3), count=2)
    acc.compose(gdp.poisson_subsample(gdp.laplace(1.0), 0.2))
    acc.compose({"class_name": "SelfComposedDpEvent", "count": 3,
                 "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 5.0}})
    acc.compose(gdp.from_distributions([0.5, 0.5], [0.3, 0.7]))
    acc.step(noise_multiplier=1.1, schedule=gdp.epochs_to_steps(
        epochs=0.5, batch_size=100, dataset_size=10_000, convention="tf"))
    return acc


@pytest.fixture(scope="module")
def full_state():
    return make_full_ledger().state_dict()


def test_a_curve_from_pmfs_round_trips_with_its_pmfs():
    # its atoms come from the pmfs: rebuilt from the vertices alone they were a few ulps
    # off, and so were the last digits of a ledger's answers after a JSON round trip
    from gdp.accounting.state import curve_from_spec, curve_to_spec
    from gdp.engine import law_of

    f = gdp.from_distributions([0.5, 0.2, 0.3], [0.3, 0.6, 0.1])
    g = curve_from_spec(json.loads(json.dumps(curve_to_spec(f))))
    assert g.pmfs is not None
    for a, b in zip(law_of(f).atoms(), law_of(g).atoms(), strict=True):
        assert np.array_equal(a, b)
    spec = curve_to_spec(f)
    spec["pmfs"] = [[0.5, 0.5]]
    with pytest.raises(ValueError, match="pmfs"):
        curve_from_spec(spec)


def test_state_round_trips_through_json():
    acc = make_full_ledger()
    text = acc.to_json()
    back = gdp.Accountant.from_json(text)
    assert back.state_dict() == acc.state_dict() == json.loads(text)
    assert answers(back.tradeoff()) == answers(acc.tradeoff())
    assert back.spent() == acc.spent() and len(back) == len(acc)
    same = gdp.Accountant(eps=8.0, delta=1e-5, rtol=1e-3)
    same.load_state_dict(json.loads(text))
    assert same.state_dict() == acc.state_dict()


def test_a_curve_without_json_form_stays_in_the_dict_state():
    f = gdp.G_mu(1.0) @ gdp.laplace(0.5)  # a numeric composition
    acc = gdp.Accountant().compose(f, count=2)
    state = acc.state_dict()
    assert state["history"][0]["tradeoff"] is f
    assert gdp.Accountant.from_state_dict(state).epsilon(1e-5) == acc.epsilon(1e-5)
    with pytest.raises(TypeError, match="curve has no JSON form"):
        acc.to_json()


def corrupt(state, path, value):
    s = json.loads(json.dumps(state))
    target = s
    for k in path[:-1]:
        target = target[k]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return s


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        (("history", 0, "steps"), 30, "checksum does not match"),
        (("format",), "opacus", "not a gdp accountant state: format='opacus'"),
        (("version",), 2, "version 2, written by a newer gdp"),
        (("version",), "1", "corrupted accountant state: version='1'"),
    ],
)
def test_corrupted_or_foreign_states_are_refused(full_state, path, value, match):
    with pytest.raises(ValueError, match=match):
        gdp.Accountant.from_state_dict(corrupt(full_state, path, value))


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        (("history", 0, "steps"), -3, r"history\[0\]: `steps` must be an integer >= 1"),
        (("history", 1, "tradeoff", "type"), "cauchy", "unknown curve type 'cauchy'"),
        (("history", 1, "kind"), "gift", "kind dpsgd, event or tradeoff"),
        (("history", 3, "event", "event", "noise_multiplier"), -5.0,
         "`noise_multiplier` must be a non-negative"),
        (("history", 0, "sample_rate"), KeyError, "a dpsgd record has the keys"),
        (("budget",), {"eps": 8.0}, "a budget must be"),
        (("history",), {}, "history must be a list"),
        (("extra",), 1, r"unknown keys \['extra'\]"),
    ],
)
def test_hand_edited_states_are_validated(full_state, path, value, match):
    state = corrupt(full_state, ("checksum",), KeyError)
    with pytest.raises(ValueError, match=match):
        gdp.Accountant.from_state_dict(corrupt(state, path, value))


def test_a_history_over_its_own_budget_is_refused():
    state = gdp.Accountant(eps=1.0, delta=1e-5).state_dict()
    del state["checksum"]
    state["history"] = [{"kind": "dpsgd", "noise_multiplier": 1.0, "sample_rate": 0.01,
                         "steps": 10_000}]
    with pytest.raises(ValueError, match="exceeds its own budget"):
        gdp.Accountant.from_state_dict(state)


def test_load_state_dict_refuses_other_settings_and_changes_nothing(full_state):
    acc = gdp.Accountant(eps=3.0, delta=1e-5)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=10)
    before = acc.state_dict()
    with pytest.raises(ValueError, match=r"differ from this accountant's in \['budget'\]"):
        acc.load_state_dict(full_state)
    with pytest.raises(ValueError, match="looks like an Opacus accountant's state"):
        acc.load_state_dict({"history": [(1.0, 0.01, 10)], "mechanism": "rdp"})
    with pytest.raises(ValueError, match="not JSON"):
        gdp.Accountant.from_json("{")
    assert acc.state_dict() == before


def test_steps_recorded_as_a_step_object_compare_by_value():
    assert Step(sigma=1.0, p=0.5) == Step(sigma=1, p=0.5)


def test_sampler_keywords_reach_dpsgd():
    """Steps with another sampler or relation are the dpsgd curve of that sampler, a ledger
    of several (sigma, p) composes them, and an accountant with replace-one neighbours
    charges its steps as replace-one (never the smaller add/remove number)."""
    kw = {"sampler": "shuffle", "neighbours": "zero-out"}
    acc = gdp.Accountant()
    for _ in range(3):
        acc.step(noise_multiplier=1.0, sample_rate=0.1, steps=10, **kw)
    assert acc.history[0]["options"] == kw and acc.steps == 30
    one_shot = gdp.dpsgd(sigma=1.0, p=0.1, steps=30, **kw)
    assert acc.epsilon(1e-5) == one_shot.epsilon(1e-5)
    # a shuffled run is analysed per epoch for one (sigma, p): a second one is refused
    with pytest.raises(ValueError, match="one noise multiplier and sampling rate per run"):
        acc.step(noise_multiplier=2.0, sample_rate=0.1, steps=10, **kw)
    assert acc.steps == 30 and acc.epsilon(1e-5) == one_shot.epsilon(1e-5)
    # fixed-size batches are analysed per step: phases compose
    fixed = {"sampler": "fixed", "neighbours": "replace-one"}
    acc2 = gdp.Accountant()
    acc2.step(noise_multiplier=1.0, sample_rate=0.1, steps=10, **fixed)
    acc2.step(noise_multiplier=2.0, sample_rate=0.1, steps=10, **fixed)
    both = acc2.epsilon(1e-5)
    assert both >= gdp.dpsgd(sigma=1.0, p=0.1, steps=10, **fixed).epsilon(1e-5)
    assert both >= gdp.dpsgd(sigma=2.0, p=0.1, steps=10, **fixed).epsilon(1e-5)

    rep = gdp.Accountant(neighbours="replace_one")
    rep.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    assert rep.history[0]["options"] == {"neighbours": "replace-one"}
    add_remove = gdp.dpsgd(sigma=1.0, p=0.01, steps=100).epsilon(1e-5)
    assert rep.epsilon(1e-5) == gdp.dpsgd(sigma=1.0, p=0.01, steps=100,
                                          neighbours="replace-one").epsilon(1e-5)
    assert rep.epsilon(1e-5) > add_remove
    with pytest.raises(ValueError, match="contradicts the accountant's"):
        rep.step(noise_multiplier=1.0, sample_rate=0.01, neighbours="add-remove")
    assert rep.steps == 100
