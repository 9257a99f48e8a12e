"""DpEvents read as trade-off curves, and the dp-accounting PrivacyAccountant face, checked
against dp-accounting's own PLD accountant and prv-accountant on nested events.

The reference numbers are slow to make; they come from tests/data/make_accounting_reference.py
(dp-accounting's privacy-loss distributions at a fine discretisation, both sides, and
prv-accountant's bounds) and are stored with their provenance in accounting_reference.json.
The direction of every check is the safe one: gdp's ε is never below a lower bound (the
optimistic PLD, prv's lower bound), and within 0.2% of the tight (pessimistic) value.
"""

import json
import math
from pathlib import Path

import dp_accounting as dpa
import pytest
from numpy.testing import assert_allclose

import gdp

REF = json.loads((Path(__file__).parents[1] / "data" / "accounting_reference.json").read_text())
EVENTS = REF["events"]


@pytest.fixture(scope="module")
def curves():
    return {name: gdp.from_dp_event(e["event"], neighbours=e["neighbours"])
            for name, e in EVENTS.items()}


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_eps_is_sound_and_tight_against_dp_accounting_and_prv(curves, name):
    h = curves[name]
    for row in EVENTS[name]["epsilon"]:
        eps = float(h.epsilon(row["delta"]))
        assert eps >= row["pld_optimistic"], "below dp-accounting's optimistic (lower) bound"
        if "prv_lower" in row:
            assert eps >= row["prv_lower"], "below prv-accountant's lower bound"
        assert abs(eps / row["pld_pessimistic"] - 1.0) <= 2e-3


def test_the_bracket_holds_the_references(curves):
    h = curves["dpsgd_1000"]
    for row in EVENTS["dpsgd_1000"]["epsilon"]:
        lo, hi = h.epsilon_bounds(row["delta"])
        assert lo <= row["pld_pessimistic"] and row["pld_optimistic"] <= hi
        assert lo <= row["prv_upper"] and row["prv_lower"] <= hi


def test_dp_accounting_counts_randomized_response_once_gdp_counts_it_all():
    """dp-accounting 0.6's PLDAccountant composes a RandomizedResponseDpEvent once whatever its
    count (an ε 28 times too small here); gdp's SelfComposed equals the explicit list."""
    row = EVENTS["replace_rr_30"]["epsilon"][0]
    assert row["pld_accountant_as_is"] < row["pld_optimistic"] / 10
    rr = dpa.RandomizedResponseDpEvent(0.5, 4)
    self_composed = gdp.from_dp_event(dpa.SelfComposedDpEvent(rr, 30), neighbours="replace_one")
    listed = gdp.from_dp_event(dpa.ComposedDpEvent([rr] * 30), neighbours="replace_one")
    assert self_composed.epsilon(1e-5) == listed.epsilon(1e-5) > 40


def test_a_run_of_sampled_gaussians_is_dpsgd_bit_for_bit():
    ev = dpa.ComposedDpEvent([
        dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.02, dpa.GaussianDpEvent(1.1)), 300),
        dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.05, dpa.GaussianDpEvent(2.0)), 50)])
    h = gdp.from_dp_event(ev)
    ref = gdp.dpsgd(phases=[dict(sigma=1.1, p=0.02, steps=300), dict(sigma=2.0, p=0.05, steps=50)])
    assert [h.epsilon(d) for d in (1e-4, 1e-6)] == [ref.epsilon(d) for d in (1e-4, 1e-6)]


def test_object_and_dict_forms_agree():
    ev = dpa.SelfComposedDpEvent(dpa.ComposedDpEvent(
        [dpa.GaussianDpEvent(3.0), dpa.LaplaceDpEvent(2.0), dpa.NoOpDpEvent()]), 4)
    d = gdp.dp_event_to_dict(ev)
    assert json.loads(json.dumps(d)) == d
    assert gdp.from_dp_event(d).epsilon(1e-6) == gdp.from_dp_event(ev).epsilon(1e-6)
    assert gdp.dp_event_to_dict(d) == d


@pytest.mark.parametrize(
    ("event", "neighbours", "expected"),
    [
        (dpa.GaussianDpEvent(2.0), "add_remove", gdp.G_mu(0.5)),
        (dpa.GaussianDpEvent(2.0), "replace_one", gdp.G_mu(1.0)),  # twice the shift
        (dpa.LaplaceDpEvent(4.0), "add_remove", gdp.laplace(0.25)),
        (dpa.NoOpDpEvent(), "add_remove", gdp.identity()),
        (dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(1.0), 0), "add_remove", gdp.identity()),
        (dpa.PoissonSampledDpEvent(0.0, dpa.GaussianDpEvent(1.0)), "add_remove",
         gdp.identity()),
        (dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(2.0)), "add_remove",
         gdp.subsample(gdp.G_mu(0.5), 0.1)),
        (dpa.SampledWithoutReplacementDpEvent(1000, 10, dpa.GaussianDpEvent(2.0)),
         "replace_one", gdp.subsample(gdp.G_mu(1.0), 0.01)),
        (dpa.RandomizedResponseDpEvent(0.7, 1), "replace_one", gdp.identity()),
    ],
)
def test_leaves_and_their_closed_forms(event, neighbours, expected):
    assert gdp.from_dp_event(event, neighbours=neighbours) == expected


def test_randomized_response_curve_is_exact():
    q, k = 0.5, 4  # eps = log(1 + k (1 - q)/q) = log 5 at delta = 0
    h = gdp.from_dp_event(dpa.RandomizedResponseDpEvent(q, k), neighbours="replace_one")
    assert_allclose(h.epsilon(0.0), math.log(5.0), rtol=1e-14)
    # delta(eps) = P-mass... Q(out = x') - e^eps P(out = x') = a - e^eps b below log 5
    assert_allclose(h.delta(1.0), 0.625 - math.e * 0.125, rtol=1e-13)


@pytest.mark.parametrize("event", [dpa.NonPrivateDpEvent(), dpa.GaussianDpEvent(0.0),
                                   dpa.RandomizedResponseDpEvent(0.0, 3),
                                   dpa.PoissonSampledDpEvent(0.1, dpa.LaplaceDpEvent(0.0))])
def test_non_private_events_have_infinite_eps(event):
    nb = "replace_one" if isinstance(event, dpa.RandomizedResponseDpEvent) else "add_remove"
    h = gdp.from_dp_event(dpa.ComposedDpEvent([event, dpa.GaussianDpEvent(1.0)]), neighbours=nb)
    assert h.epsilon(1e-5) == math.inf


@pytest.mark.parametrize(
    ("event", "neighbours", "match"),
    [
        (dpa.ZCDpEvent(1.0, 0.0), "add_remove", "unsupported event ZCDpEvent"),
        (dpa.dp_event.MixtureOfGaussiansDpEvent(1.0, [1.0], [1.0]), "add_remove",
         "unsupported event MixtureOfGaussiansDpEvent"),
        (dpa.SampledWithReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0)), "replace_one",
         "SampledWithReplacementDpEvent: gdp has no tight curve for sampling with replacement"),
        (dpa.UnsupportedDpEvent(), "add_remove", "unsupported event UnsupportedDpEvent"),
        (dpa.RandomizedResponseDpEvent(0.5, 3), "add_remove", "pass neighbours='replace_one'"),
        (dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(1.0)), "replace_one",
         "Poisson sampling is accounted for add/remove neighbours only"),
        (dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0)), "add_remove",
         "sampling without replacement is accounted for replace-one neighbours only"),
        (dpa.PoissonSampledDpEvent(0.1, dpa.ComposedDpEvent([])), "add_remove",
         "gdp samples single Gaussian or Laplace events"),
        (dpa.SelfComposedDpEvent(dpa.ComposedDpEvent([dpa.dp_event.TruncatedSubsampledGaussianDpEvent(
            100, 0.1, 10, 1.0)]), 3), "add_remove",
         "unsupported event TruncatedSubsampledGaussianDpEvent"),
    ],
)
def test_unsupported_events_are_named(event, neighbours, match):
    with pytest.raises(gdp.UnsupportedEvent, match=match) as e:
        gdp.from_dp_event(event, neighbours=neighbours)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize(
    ("event", "exc", "match"),
    [
        ({"class_name": "GaussianDpEvent"}, ValueError,
         r"GaussianDpEvent at event must have the fields \['noise_multiplier'\]"),
        ({"class_name": "GaussianDpEvent", "noise_multiplier": -1}, ValueError,
         "`noise_multiplier` must be a non-negative"),
        ({"class_name": "SelfComposedDpEvent", "count": 2.5,
          "event": {"class_name": "NoOpDpEvent"}}, ValueError, "`count` must be an integer"),
        ({"class_name": "ComposedDpEvent", "events": "abc"}, TypeError,
         "must be a list of events"),
        ({"class_name": "SampledWithoutReplacementDpEvent", "source_dataset_size": 5,
          "sample_size": 6, "event": {"class_name": "NoOpDpEvent"}}, ValueError,
         "`sample_size` must be at most `source_dataset_size`"),
        ({"noise_multiplier": 1.0}, TypeError, "needs a string 'class_name'"),
        (3.0, TypeError, "must be a dp_accounting DpEvent or its dict form"),
    ],
)
def test_malformed_events_are_refused(event, exc, match):
    with pytest.raises(exc, match=match):
        gdp.from_dp_event(event)
    with pytest.raises(ValueError, match="`neighbours` must be one of"):
        gdp.from_dp_event(dpa.NoOpDpEvent(), neighbours="swap")


# ------------------------------------------------------------- the PrivacyAccountant face
def eps_of_a_run(make_accountant, delta=1e-5):
    """Code written for dp-accounting's PLDAccountant."""
    acc = make_accountant()
    assert acc.supports(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)))
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 500)
    acc.compose(dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(8.0), 4))
    return acc.get_epsilon(delta), acc.get_delta(1.0), acc.ledger


def test_pld_accountant_code_runs_on_gdp_unchanged():
    ours = eps_of_a_run(gdp.dpaccounting.Accountant)
    theirs = eps_of_a_run(dpa.pld.PLDAccountant)
    assert ours[2] == theirs[2]  # the same DpEvent ledger
    assert_allclose(ours[0], theirs[0], rtol=3e-3)
    assert_allclose(ours[1], theirs[1], rtol=2e-2)
    acc = gdp.dpaccounting.Accountant()
    assert isinstance(acc, dpa.PrivacyAccountant)
    assert acc.neighboring_relation is dpa.NeighboringRelation.ADD_OR_REMOVE_ONE


def test_the_face_refuses_what_gdp_cannot_account():
    acc = gdp.dpaccounting.Accountant()
    assert not acc.supports(dpa.ZCDpEvent(1.0, 0.0))
    assert not acc.supports(dpa.RandomizedResponseDpEvent(0.5, 2))  # add/remove
    with pytest.raises(dpa.UnsupportedEventError, match="unsupported event ZCDpEvent"):
        acc.compose(dpa.ComposedDpEvent([dpa.GaussianDpEvent(1.0), dpa.ZCDpEvent(1.0, 0.0)]))
    assert acc.get_epsilon(1e-5) == 0.0 and len(acc.gdp_accountant) == 0
    rr = gdp.dpaccounting.Accountant(dpa.NeighboringRelation.REPLACE_ONE)
    assert rr.supports(dpa.RandomizedResponseDpEvent(0.5, 2))
    with pytest.raises(ValueError, match="`neighboring_relation` must be ADD_OR_REMOVE_ONE"):
        gdp.dpaccounting.Accountant(dpa.NeighboringRelation.REPLACE_SPECIAL)


def test_reference_data_has_its_provenance():
    p = REF["provenance"]
    assert p["script"] == "tests/data/make_accounting_reference.py"
    assert p["dp_accounting"] and p["value_discretization_interval"] <= 1e-4
