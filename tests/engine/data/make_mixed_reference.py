"""Reference ε of a list of a hundred mixed mechanisms from dp-accounting's PLDs.

The list is the mixed-list benchmark's K = 100 (``benchmarks/bench_engine_sweep.py``, seed
20240611): a quarter each Gaussian (``G_mu``, μ in [0.01, 0.05]), Laplace (μ in [0.01,
0.05]), pure ε-DP (``f_eps_delta``, ε in [0.01, 0.05]) and Poisson-subsampled Gaussian
(σ in [0.8, 2], p in [0.001, 0.02]). dp-accounting composes the PLDs of both orders of
add/remove neighbours (the pure ε-DP factors as randomized response on two values, kept with
probability e^ε/(1 + e^ε)) at the value discretisation 1e-4:
``pessimistic_estimate=True`` (connect-the-dots) gives an upper bound of the true ε,
``False`` (without connect-the-dots) a lower bound. Used by
``tests/engine/test_composition.py``: gdp's sound ε is never below the lower bound, its
lower end never above the upper one. Run from the repository root (about 15 s):

    python tests/engine/data/make_mixed_reference.py
"""

from __future__ import annotations

import json
import platform
from datetime import date
from importlib.metadata import version
from pathlib import Path

import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pldm

SEED = 20240611
VDI = 1e-4
DELTAS = [1e-6]


def mixed_list(k: int = 100, seed: int = SEED) -> dict:
    """The parameters of the benchmark's mixed list of ``k`` mechanisms."""
    rng = np.random.default_rng(seed)
    q = max(1, k // 4)
    g, lap, pure = (rng.uniform(0.01, 0.05, q) for _ in range(3))
    sub = list(zip(rng.uniform(0.8, 2.0, k - 3 * q), rng.uniform(0.001, 0.02, k - 3 * q),
                   strict=True))
    return {"gaussian_mu": g.tolist(), "laplace_mu": lap.tolist(), "pure_eps": pure.tolist(),
            "subsampled_sigma_p": [list(x) for x in sub]}


def _epsilon(par: dict, delta: float, pessimistic: bool) -> float:
    kw = {"value_discretization_interval": VDI, "pessimistic_estimate": pessimistic}
    if not pessimistic:
        kw["use_connect_dots"] = False
    parts = [pldm.from_gaussian_mechanism(standard_deviation=1.0 / x, **kw)
             for x in par["gaussian_mu"]]
    parts += [pldm.from_laplace_mechanism(parameter=1.0 / x, **kw) for x in par["laplace_mu"]]
    parts += [pldm.from_randomized_response(
        noise_parameter=2.0 / (1.0 + np.exp(x)), num_buckets=2,
        value_discretization_interval=VDI, pessimistic_estimate=pessimistic)
        for x in par["pure_eps"]]
    parts += [pldm.from_gaussian_mechanism(standard_deviation=s, sampling_prob=p, **kw)
              for s, p in par["subsampled_sigma_p"]]
    out = parts[0]
    for pld in parts[1:]:
        out = out.compose(pld)
    return float(out.get_epsilon_for_delta(delta))


def provenance(script: str) -> dict:
    """The provenance of a reference of dp-accounting's PLD bounds made by ``script``."""
    return {
        "script": script,
        "made": date.today().isoformat(),
        "dp_accounting": version("dp-accounting"),
        "python": platform.python_version(),
        "value_discretization_interval": VDI,
        "note": "pld_pessimistic: upper bound of the true epsilon; pld_optimistic: "
                "lower bound",
    }


def main() -> None:
    par = mixed_list()
    rows = [{"delta": d, "pld_pessimistic": _epsilon(par, d, True),
             "pld_optimistic": _epsilon(par, d, False)} for d in DELTAS]
    out = {
        "provenance": provenance("tests/engine/data/make_mixed_reference.py"),
        "list": par,
        "rows": rows,
    }
    path = Path(__file__).with_name("mixed_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
