"""Reference ε of DP-SGD runs in many phases from dp-accounting's PLDs.

Runs of Poisson-subsampled Gaussian steps with add/remove neighbours, each phase its own
noise multiplier σ, rate p and number of steps (``gdp.dpsgd(phases=...)``):

* ``many``: 200 phases, σ uniform in [0.5, 3], p uniform in [1e-4, 0.1], 1 to 49 steps each
  (numpy seed 1), δ = 1e-8;
* ``rare``: 17 rarely sampled phases, σ uniform in [0.5, 0.8], p log-uniform in
  [1e-5, 1e-4], 1,000 to 10,000 steps each (log-uniform, seed 6), δ = 1e-8;
* ``narrow``: 17 rarely sampled phases, σ log-uniform in [0.5, 4], p log-uniform in
  [1e-5, 1e-3], a number of epochs p T log-uniform in [0.05, 5] (T at most 10⁵; seed 0),
  δ = 1e-8: bulks about a lattice step wide;
* ``short``: the first ten phases of the same generator (a list of at most 16 groups).

dp-accounting composes the PLDs of both orders of every phase (``self_compose`` by its
steps, then ``compose``) at the value discretisation 1e-4: ``pessimistic_estimate=True``
(connect-the-dots) gives an upper bound of the true ε, ``False`` (without connect-the-dots)
a lower bound. Used by ``tests/engine/test_composition.py``: gdp's sound ε is never below
the lower bound, its lower end never above the upper one. Run from the repository root
(about four minutes):

    python tests/engine/data/make_phases_reference.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pldm

# (its sibling script, whether run from the repository root, imported by the benchmark or
# collected by pytest)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_mixed_reference import VDI, provenance  # noqa: E402


def runs() -> dict:
    """The phases ``[sigma, p, steps]`` and the δ of each run."""
    rng = np.random.default_rng(1)
    many = [[float(rng.uniform(0.5, 3)), float(rng.uniform(1e-4, 0.1)),
             int(rng.integers(1, 50))] for _ in range(200)]
    rng = np.random.default_rng(6)
    rare = [[float(rng.uniform(0.5, 0.8)),
             float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-4)))),
             int(np.exp(rng.uniform(np.log(1e3), np.log(1e4))))] for _ in range(17)]
    return {"many": {"phases": many, "delta": 1e-8}, "rare": {"phases": rare, "delta": 1e-8},
            "narrow": {"phases": _narrow(17), "delta": 1e-8},
            "short": {"phases": _narrow(10), "delta": 1e-8}}


def _narrow(k: int) -> list:
    """``k`` rarely sampled phases whose bulks are about a lattice step wide (seed 0)."""
    rng = np.random.default_rng(0)

    def lu(a: float, b: float) -> float:
        return float(np.exp(rng.uniform(np.log(a), np.log(b))))

    out = []
    for _ in range(k):
        s, p = lu(0.5, 4.0), lu(1e-5, 1e-3)
        out.append([s, p, int(min(1e5, max(1, round(lu(0.05, 5.0) / p))))])
    return out


def _epsilon(phases: list, delta: float, pessimistic: bool) -> float:
    kw = {"value_discretization_interval": VDI, "pessimistic_estimate": pessimistic}
    if not pessimistic:
        kw["use_connect_dots"] = False
    out = None
    for s, p, t in phases:
        pld = pldm.from_gaussian_mechanism(standard_deviation=s, sampling_prob=p,
                                           **kw).self_compose(t)
        out = pld if out is None else out.compose(pld)
    return float(out.get_epsilon_for_delta(delta))


def main() -> None:
    out = {"provenance": provenance("tests/engine/data/make_phases_reference.py")}
    for name, run in runs().items():
        run["pld_pessimistic"] = _epsilon(run["phases"], run["delta"], True)
        run["pld_optimistic"] = _epsilon(run["phases"], run["delta"], False)
        print(name, run["pld_pessimistic"], run["pld_optimistic"], flush=True)
        out[name] = run
    path = Path(__file__).with_name("phases_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
