"""Epochs to steps: the Opacus and TF-privacy conventions, and the published runs they give.

Published values: Bu, Dong, Long, Su (HDSR 2020), MNIST, TF-privacy convention, σ = 1.3,
B = 256, n = 60,000, 15 epochs, δ = 1e-5: tight ε ≈ 0.8645. The Opacus run of the same data
(σ = 1.1, 15 epochs) takes len(loader) · epochs = 235 · 15 = 3,525 steps at p = 1/235; TF-privacy
counts ceil(15 · 60,000 / 256) = 3,516 at p = 256/60,000. Independent references for both come
from tests/data/make_accounting_reference.py (dp-accounting PLD, prv-accountant).
"""

import json
from pathlib import Path

import pytest

import gdp

REF = json.loads((Path(__file__).parents[1] / "data" /
                  "accounting_reference.json").read_text())["events"]

MNIST = {"batch_size": 256, "dataset_size": 60_000, "epochs": 15}


def test_the_two_conventions_of_the_mnist_run():
    op = gdp.epochs_to_steps(convention="opacus", **MNIST)
    tf = gdp.epochs_to_steps(convention="tf", **MNIST)
    assert (op.sample_rate, op.steps) == (1 / 235, 3525)
    assert (tf.sample_rate, tf.steps) == (256 / 60_000, 3516)
    assert "Opacus convention" in op.describe() and "15 * 235 = 3525" in op.describe()
    assert tf.describe() == ("TF-privacy convention: p = B/n = 256/60000 = 0.00426667, "
                             "steps = ceil(epochs * n / B) = 3516")


@pytest.mark.parametrize(
    ("kw", "steps"),
    [
        ({"sample_rate": 1 / 235, "epochs": 15, "convention": "opacus"}, 3525),  # 3525.0000x
        ({"sample_rate": 0.01, "epochs": 3, "convention": "tf"}, 300),
        ({"sample_rate": 0.003, "epochs": 1, "convention": "tf"}, 334),
        ({"batch_size": 256, "dataset_size": 60_000, "epochs": 0.5, "convention": "opacus"},
         118),
        ({"batch_size": 100, "dataset_size": 100, "epochs": 2, "convention": "tf"}, 2),
    ],
)
def test_steps_are_never_under_counted(kw, steps):
    assert gdp.epochs_to_steps(**kw).steps == steps


@pytest.mark.parametrize(
    ("kw", "exc", "match"),
    [
        ({"epochs": 1, "batch_size": 1, "dataset_size": 2, "convention": "jax"}, ValueError,
         r"`convention` must be one of 'opacus', 'tf'"),
        ({"epochs": 1, "batch_size": 3, "dataset_size": 2, "convention": "tf"}, ValueError,
         "`batch_size` must be at most `dataset_size`"),
        ({"epochs": 0, "sample_rate": 0.1, "convention": "tf"}, ValueError,
         "`epochs` must be a positive"),
        ({"epochs": 1, "convention": "tf"}, TypeError, "give `batch_size` and `dataset_size`"),
        ({"epochs": 1, "sample_rate": 0.1, "batch_size": 3, "convention": "tf"}, TypeError,
         "either `sample_rate` or"),
    ],
)
def test_bad_schedules_are_refused(kw, exc, match):
    with pytest.raises(exc, match=match):
        gdp.epochs_to_steps(**kw)


@pytest.fixture(scope="module")
def bu():
    run = gdp.epochs_to_steps(convention="tf", **MNIST)
    acc = gdp.Accountant()
    acc.step(noise_multiplier=1.3, schedule=run)
    return acc


def test_bu_et_al_mnist_reproduced_on_the_safe_side(bu):
    eps = bu.epsilon(1e-5)
    lo, hi = bu.epsilon_bounds(1e-5)
    assert lo <= 0.8645 <= hi  # the published tight value is inside the bracket
    assert eps >= 0.8645 * (1 - 5e-5)  # the published value is rounded to 4 digits
    assert eps <= 0.8645 * 1.002
    ref = REF["bu_mnist_sigma_1.3"]["epsilon"][0]
    assert eps >= ref["pld_optimistic"] and eps >= ref["prv_lower"]
    assert bu.history[0]["schedule"]["convention"] == "tf"


@pytest.mark.parametrize(("convention", "name"), [("opacus", "opacus_mnist_3525"),
                                                   ("tf", "tf_mnist_3516")])
def test_the_opacus_and_tf_counts_of_the_same_run(convention, name):
    run = gdp.epochs_to_steps(convention=convention, **MNIST)
    acc = gdp.Accountant()
    acc.step(noise_multiplier=1.1, schedule=run)
    ref = REF[name]["epsilon"][0]
    eps = acc.epsilon(ref["delta"])
    assert eps >= ref["pld_optimistic"] and eps >= ref["prv_lower"]
    assert abs(eps / ref["pld_pessimistic"] - 1) <= 2e-3
