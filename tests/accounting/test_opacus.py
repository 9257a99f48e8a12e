"""gdp.opacus: Opacus's IAccountant interface on gdp's ledger, and a tight noise calibration.

The first part needs no Opacus (the interface is duck-typed). The integration test at the end
trains a tiny model for a few steps with real Opacus when it is installed (the optional extra
``opacus``); it is the one test of the suite that may be skipped.
"""

import importlib.util
import math
from types import SimpleNamespace

import pytest

import gdp

HAVE_OPACUS = importlib.util.find_spec("opacus") is not None


def test_steps_merge_like_opacus_and_eps_is_dpsgd_bit_for_bit():
    acc = gdp.opacus.Accountant()
    for _ in range(200):
        acc.step(noise_multiplier=1.0, sample_rate=0.02)
    for _ in range(100):
        acc.step(noise_multiplier=1.5, sample_rate=0.02)
    acc.step(noise_multiplier=1.0, sample_rate=0.02)
    assert acc.history == [(1.0, 0.02, 200), (1.5, 0.02, 100), (1.0, 0.02, 1)]
    assert len(acc) == 3 and acc.mechanism() == "gdp-toolkit"  # Opacus: len(history)
    ref = gdp.dpsgd(phases=[dict(sigma=1.0, p=0.02, steps=201), dict(sigma=1.5, p=0.02,
                                                                      steps=100)])
    assert acc.get_epsilon(1e-5) == ref.epsilon(1e-5)
    assert acc.get_privacy_spent(delta=1e-5) == (ref.epsilon(1e-5), 1e-5)
    assert acc.ledger.steps == 301


def test_history_is_the_source_of_truth_as_in_opacus():
    acc = gdp.opacus.Accountant()
    acc.history = [(1.1, 0.01, 500)]  # what Opacus's get_noise_multiplier does
    assert acc.get_epsilon(1e-5) == gdp.dpsgd(sigma=1.1, p=0.01, steps=500).epsilon(1e-5)
    acc.history.append((2.0, 0.01, 100))  # mutated in place
    assert acc.ledger.steps == 600
    acc.history = [(1.0, 2.0, 3)]
    with pytest.raises(ValueError, match=r"`history` cannot be accounted: history\[0\]: "
                       r"`sample_rate` must be a number in \(0, 1\]"):
        acc.get_epsilon(1e-5)
    acc.history = [(1.0, 0.1)]
    with pytest.raises(ValueError, match=r"`history\[0\]` must be \(noise_multiplier"):
        acc.get_epsilon(1e-5)


def test_the_optimizer_hook_counts_accumulated_iterations():
    acc = gdp.opacus.Accountant()
    hook = acc.get_optimizer_hook_fn(sample_rate=0.01)
    optim = SimpleNamespace(noise_multiplier=1.2, accumulated_iterations=2)
    hook(optim)
    hook(optim)
    assert acc.history == [(1.2, 0.02, 2)]


def test_a_budget_refuses_the_step_in_the_hook_and_records_nothing():
    acc = gdp.opacus.Accountant(eps=2.0, delta=1e-5)
    hook = acc.get_optimizer_hook_fn(sample_rate=0.1)
    optim = SimpleNamespace(noise_multiplier=2.0, accumulated_iterations=1)
    n = 0
    with pytest.raises(gdp.BudgetExceeded):
        for _ in range(1000):
            hook(optim)
            n += 1
    assert n > 10 and acc.history == [(2.0, 0.1, n)]
    assert acc.get_epsilon(1e-5) <= 2.0 < gdp.dpsgd(sigma=2.0, p=0.1, steps=n + 1).epsilon(1e-5)


def test_state_dict_round_trip_and_refusals():
    acc = gdp.opacus.Accountant(eps=5.0, delta=1e-5)
    acc.history = [(1.0, 0.01, 300)]
    state = acc.state_dict()
    assert list(state) == ["history", "mechanism", "gdp"]
    back = gdp.opacus.Accountant(eps=5.0, delta=1e-5)
    back.load_state_dict(state)
    assert back.history == acc.history and back.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    other = gdp.opacus.Accountant()
    with pytest.raises(ValueError, match=r"settings differ from this accountant's in "
                       r"\['budget'\]"):
        other.load_state_dict(state)
    with pytest.raises(ValueError, match="mechanism 'rdp' cannot be loaded into gdp's "
                       r"accountant.*Accountant.from_history"):
        other.load_state_dict({"history": [(1.0, 0.01, 300)], "mechanism": "rdp"})
    bad = dict(state, history=[(1.0, 0.01, 30)])
    with pytest.raises(ValueError, match="'history' and its 'gdp' ledger disagree"):
        back.load_state_dict(bad)
    with pytest.raises(ValueError, match="empty"):
        back.load_state_dict({})
    assert back.history == [(1.0, 0.01, 300)] and other.history == []


def test_from_history_re_accounts_an_opacus_run():
    acc = gdp.opacus.Accountant.from_history([(1.1, 1 / 235, 3525)])
    assert acc.get_epsilon(1e-5) == gdp.dpsgd(sigma=1.1, p=1 / 235, steps=3525).epsilon(1e-5)


def test_get_noise_multiplier_is_verified_and_tight():
    target, delta, p, steps = 1.5, 1e-5, 0.02, 400
    s = gdp.opacus.get_noise_multiplier(target_epsilon=target, target_delta=delta,
                                        sample_rate=p, steps=steps)
    acc = gdp.opacus.Accountant()
    acc.history = [(s, p, steps)]
    assert acc.get_epsilon(delta) <= target  # the very number the accountant reports
    assert gdp.dpsgd(sigma=s / (1 + 1e-3), p=p, steps=steps).epsilon(delta) > target
    assert gdp.opacus.get_noise_multiplier(target_epsilon=target, target_delta=delta,
                                           sample_rate=p, epochs=8) == s  # 8 / 0.02 = 400
    with pytest.raises(TypeError, match="either `epochs` or `steps`"):
        gdp.opacus.get_noise_multiplier(target_epsilon=1, target_delta=1e-5, sample_rate=p)


# ------------------------------------------------------------------ real Opacus
@pytest.mark.skipif(not HAVE_OPACUS, reason="Opacus is not installed (pip install "
                    "'gdp-toolkit[opacus]'); the one optional integration test")
def test_training_with_opacus_uses_gdps_accountant():
    import opacus
    import torch
    from opacus.accountants import IAccountant, PRVAccountant, RDPAccountant

    torch.manual_seed(0)
    x, y = torch.randn(64, 4), torch.randint(0, 2, (64,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = opacus.PrivacyEngine()
    engine.accountant = gdp.opacus.Accountant()
    assert isinstance(engine.accountant, IAccountant)
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0,
        max_grad_norm=1.0)
    steps = 0
    for _ in range(3):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
            steps += 1
    assert engine.accountant.history == [(1.0, 1 / 4, steps)]
    eps = engine.get_epsilon(1e-5)
    assert eps == gdp.dpsgd(sigma=1.0, p=0.25, steps=steps).epsilon(1e-5)
    rdp, prv = RDPAccountant(), PRVAccountant()
    rdp.history = prv.history = list(engine.accountant.history)
    assert eps <= rdp.get_epsilon(1e-5)  # RDP is a looser upper bound
    assert abs(eps / prv.get_epsilon(1e-5) - 1) < 0.02

    # a budget stops training before the update of the step that would exceed it
    engine.accountant = gdp.opacus.Accountant(eps=eps + 0.05, delta=1e-5)
    engine.accountant.history = [(1.0, 0.25, steps)]
    optimizer.attach_step_hook(engine.accountant.get_optimizer_hook_fn(sample_rate=0.25))
    with pytest.raises(gdp.BudgetExceeded):
        for _ in range(10):
            xb, yb = next(iter(loader))
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            before = [p.detach().clone() for p in model.parameters()]
            optimizer.step()
    after = list(model.parameters())
    assert all(torch.equal(a, b) for a, b in zip(after, before, strict=True))
    assert engine.accountant.get_epsilon(1e-5) <= eps + 0.05


@pytest.mark.skipif(not HAVE_OPACUS, reason="Opacus is not installed")
def test_opacus_finds_the_accountant_by_its_mechanism_name(tmp_path):
    import opacus
    from opacus.accountants import create_accountant
    from opacus.accountants.utils import get_noise_multiplier as opacus_sigma

    assert isinstance(create_accountant("gdp-toolkit"), gdp.opacus.Accountant)
    ours = gdp.opacus.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5,
                                           sample_rate=0.02, steps=300)
    theirs = opacus_sigma(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.02, steps=300,
                          accountant="gdp-toolkit")
    assert ours <= theirs  # Opacus's bisection stops within 0.01 of the target eps
    assert gdp.dpsgd(sigma=theirs, p=0.02, steps=300).epsilon(1e-5) <= 2.0
    # checkpoints carry the ledger
    engine = opacus.PrivacyEngine()
    engine.accountant = gdp.opacus.Accountant()
    engine.accountant.history = [(1.0, 0.02, 300)]
    state = engine.accountant.state_dict()
    fresh = gdp.opacus.Accountant()
    fresh.load_state_dict(state)
    assert math.isclose(fresh.get_epsilon(1e-5), engine.get_epsilon(1e-5), rel_tol=0)
