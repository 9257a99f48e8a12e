"""Reference values for tests/sampling (samplers, neighbour relations, groups, allocation).

Run from the repository root: ``python tests/data/make_sampler_references.py`` (a few
minutes); it writes ``tests/data/sampler_references.json`` with the versions of the
libraries used. Sources:

* dp-accounting's PLD (connect-the-dots) with the same neighbouring relation, on a fine
  grid (value discretisation 1e-4), pessimistic (the tight side) and optimistic:
  - ``REPLACE_ONE`` Poisson-subsampled Gaussian (``from_gaussian_mechanism`` with the
    ``REPLACE`` adjacency);
  - the mixture-of-Gaussians mechanism (``from_mixture_gaussian_mechanism``, on a grid of
    1e-3: its construction costs ~1 min per pair at 1e-4), whose binomial weights are also
    the user-level (group) pair;
* RDP bounds for sampling without replacement under replace-one: dp-accounting's
  ``SampledWithoutReplacementDpEvent`` (Wang, Balle, Kasiviswanathan 2019) and autodp's
  ``compose_subsampled_mechanism``; both take the noise multiplier relative to the
  replace-one sensitivity, which for clipped gradients is 2C, so they get sigma/2;
* Monte Carlo estimates of the random-allocation epoch profile (seeded, 4e6 samples, with
  standard errors).
"""

from __future__ import annotations

import json
import logging
import math
from importlib.metadata import version
from pathlib import Path

import numpy as np

DELTA = 1e-5
OUT = Path(__file__).with_name("sampler_references.json")


def pld_eps(pld, delta=DELTA):
    return float(pld.get_epsilon_for_delta(delta))


def replace_one_cases():
    from dp_accounting.pld import privacy_loss_distribution as pld_mod
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    out = []
    for sigma, p, steps in [(1.0, 0.01, 1000), (2.0, 0.05, 200), (0.8, 0.1, 50)]:
        rec = {"sigma": sigma, "p": p, "steps": steps, "delta": DELTA}
        for side, pess in (("pessimistic", True), ("optimistic", False)):
            one = pld_mod.from_gaussian_mechanism(
                standard_deviation=sigma, sampling_prob=p, pessimistic_estimate=pess,
                value_discretization_interval=1e-4, neighboring_relation=NR.REPLACE_ONE)
            rec[f"eps_{side}"] = pld_eps(one.self_compose(steps))
        out.append(rec)
    return out


def mixture_cases():
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    out = []
    for sigma, sens, probs, steps in [
        (1.0, [0.0, 1.0, 2.0], [0.81, 0.18, 0.01], 100),
        (1.5, [0.0, 0.5, 1.0, 3.0], [0.7, 0.2, 0.05, 0.05], 30),
        # user-level: k = 3 examples, p = 0.01 each, sigma = 1 (binomial weights)
        (1.0, [0.0, 1.0, 2.0, 3.0],
         [math.comb(3, j) * 0.01 ** j * 0.99 ** (3 - j) for j in range(4)], 1000),
    ]:
        rec = {"sigma": sigma, "sensitivities": sens, "probs": probs, "steps": steps,
               "delta": DELTA}
        for side, pess in (("pessimistic", True), ("optimistic", False)):
            one = pld_mod.from_mixture_gaussian_mechanism(
                standard_deviation=sigma, sensitivities=sens, sampling_probs=probs,
                pessimistic_estimate=pess, value_discretization_interval=1e-3)
            rec[f"eps_{side}"] = pld_eps(one.self_compose(steps))
        out.append(rec)
    return out


def wor_rdp_cases():
    import dp_accounting
    from autodp import rdp_acct, rdp_bank
    from dp_accounting.privacy_accountant import NeighboringRelation as NR
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    out = []
    for sigma, n, b, steps in [(1.0, 10_000, 100, 1000), (2.0, 1000, 50, 200)]:
        eff = sigma / 2.0  # replace-one sensitivity of a clipped sum is 2C
        acc = rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE)
        ev = dp_accounting.SampledWithoutReplacementDpEvent(
            n, b, dp_accounting.GaussianDpEvent(eff))
        acc.compose(ev, steps)
        a = rdp_acct.anaRDPacct()
        a.compose_subsampled_mechanism(lambda x, s=eff: rdp_bank.RDP_gaussian({"sigma": s}, x),
                                       b / n, coeff=steps)
        out.append({"sigma": sigma, "n": n, "b": b, "steps": steps, "delta": DELTA,
                    "eps_dp_accounting_rdp": float(acc.get_epsilon(DELTA)),
                    "eps_autodp_rdp": float(a.get_eps(DELTA))})
    return out


def allocation_mc():
    out = []
    rng = np.random.default_rng(20240613)
    for m, T in [(1.0, 4), (0.7, 8)]:
        n, chunk = 4_000_000, 500_000
        eps = [0.0, 0.5, 1.0, 2.0]
        acc = {"remove": np.zeros((len(eps), 2)), "add": np.zeros((len(eps), 2))}
        for _ in range(n // chunk):
            y = rng.standard_normal((chunk, T))
            lam = np.mean(np.exp(m * y - m * m / 2), axis=1)  # Lambda = dQ/dP at y ~ P
            yq = rng.standard_normal((chunk, T))
            yq[np.arange(chunk), rng.integers(0, T, chunk)] += m  # y ~ Q
            lq = np.mean(np.exp(m * yq - m * m / 2), axis=1)
            for i, e in enumerate(eps):
                # remove: delta = E_P[(Lambda - e^eps)_+]; add: E_Q[(1/Lambda - e^eps)_+]
                for key, v in (("remove", np.maximum(lam - math.exp(e), 0.0)),
                               ("add", np.maximum(1.0 / lq - math.exp(e), 0.0))):
                    acc[key][i] += (v.sum(), (v * v).sum())
        rec = {"m": m, "T": T, "samples": n, "eps": eps}
        for key, s in acc.items():
            mean = s[:, 0] / n
            se = np.sqrt(np.maximum(s[:, 1] / n - mean ** 2, 0.0) / n)
            rec[f"delta_{key}"], rec[f"se_{key}"] = mean.tolist(), se.tolist()
        out.append(rec)
    return out


def main() -> None:
    logging.disable(logging.WARNING)  # dp-accounting's notes on privacy buckets
    data = {
        "provenance": {
            "script": "tests/data/make_sampler_references.py",
            "dp-accounting": version("dp-accounting"), "autodp": version("autodp"),
            "numpy": np.__version__,
        },
        "replace_one_poisson_gaussian": replace_one_cases(),
        "mixture_gaussian": mixture_cases(),
        "wor_rdp": wor_rdp_cases(),
        "allocation_monte_carlo": allocation_mc(),
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
