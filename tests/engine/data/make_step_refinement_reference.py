r"""Reference ε for the step-refinement tests (``tests/engine/test_step_refinement.py``).

dp-accounting's privacy-loss distribution of the Poisson-subsampled Gaussian (add/remove
neighbours), composed ``steps`` times, its ε at δ: pessimistic (connect-the-dots) and, where
affordable, optimistic (privacy buckets), at the value discretisations listed per
configuration. Each is a bound of dp-accounting's own (an upper one for the pessimistic
estimate, a lower one for the optimistic), independent of gdp; the tests check gdp's sound
answer against the finest pessimistic value (within 0.1% where the issue asks for it, below a
stated bound otherwise) and its bracket's lower end below it. The configurations are those
of the refusal scan (``benchmarks/scan_engine_box.py``) where gdp's step refinement had
stopped too early.

Writes ``step_refinement_reference.json`` next to this script (provenance in the file). Run
``python tests/engine/data/make_step_refinement_reference.py`` (about eight minutes; the
optimistic estimates at 1e-6 take up to 100 s each).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import platform
import time
from pathlib import Path

OUT = Path(__file__).with_name("step_refinement_reference.json")

CONFIGS = [  # name, sigma, p, steps, delta, discretisations, optimistic too
    ("few steps, T=3", 1.2828762738618134, 3.8329819373457076e-05, 3, 9.096137358734734e-09,
     [1e-6], True),
    ("few steps, T=10", 0.9235521564416774, 3.103541714320955e-05, 10,
     3.293553194564395e-10, [1e-6], False),
    ("few steps, T=14", 0.7605068018925065, 0.00018496173172027178, 14,
     1.5489648281977084e-07, [1e-6], True),
    ("T=58", 1.1103721352995686, 1.7824362695882036e-05, 58, 9.9809460901954e-12, [1e-6],
     True),
    ("two steps", 0.7682660343252984, 0.0009806570163030468, 2, 1.026114017740465e-05,
     [1e-6], True),
    ("rare, T=1.72M", 0.6284216693201876, 4.003276315227892e-06, 1722462,
     8.219252995884141e-10, [1e-5], False),
    ("rare, T=111506", 0.8953729036861554, 4.300651474999279e-06, 111506,
     4.03899683608414e-09, [1e-5, 1e-6], False),
    ("rare, T=54621", 0.6215973229288252, 2.3068827733516803e-05, 54621,
     0.000990832665147827, [1e-5, 5e-6], False),
    ("long run, plan spread", 0.7411298317859254, 3.680504425473848e-05, 4766503,
     8.254010334112108e-07, [1e-5], False),
    # (a fresh accuracy survey, seed 20261202's rare-bulk corner; 1e-6 needs 40 GiB)
    ("rare, T=3.0M", 0.6087122821325074, 1.39683476276913e-06, 3020935,
     2.569559741185393e-07, [1e-5, 3e-6], False),
    ("rare, T=627843", 0.5086707501713947, 5.439770127037768e-06, 627843,
     7.57825887709014e-05, [1e-5, 3e-6], False),
]


def eps_of(sigma: float, p: float, steps: int, delta: float, disc: float,
           pessimistic: bool) -> float:
    """dp-accounting's ε at ``delta`` (pessimistic: connect-the-dots; else privacy
    buckets, its optimistic estimate)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    dist = pld.from_gaussian_mechanism(sigma, sampling_prob=p,
                                       value_discretization_interval=disc,
                                       pessimistic_estimate=pessimistic,
                                       use_connect_dots=pessimistic)
    return float(dist.self_compose(steps).get_epsilon_for_delta(delta))


def main() -> None:
    out = []
    for name, sigma, p, steps, delta, discs, optimistic in CONFIGS:
        rec = dict(name=name, sigma=sigma, p=p, steps=steps, delta=delta, pessimistic={},
                   optimistic={})
        for disc in discs:
            t0 = time.perf_counter()
            rec["pessimistic"][repr(disc)] = eps_of(sigma, p, steps, delta, disc, True)
            if optimistic:
                rec["optimistic"][repr(disc)] = eps_of(sigma, p, steps, delta, disc, False)
            print(f"{name}: {disc:g} {rec['pessimistic'][repr(disc)]:.8g} "
                  f"({time.perf_counter() - t0:.1f} s)", flush=True)
        out.append(rec)
    provenance = dict(
        script="tests/engine/data/make_step_refinement_reference.py",
        date=datetime.date.today().isoformat(), python=platform.python_version(),
        dp_accounting=importlib.metadata.version("dp-accounting"),
        method="dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism, "
               "self_compose, get_epsilon_for_delta; pessimistic: connect-the-dots, "
               "optimistic: privacy buckets")
    OUT.write_text(json.dumps(dict(provenance=provenance, configurations=out), indent=1)
                   + "\n")


if __name__ == "__main__":
    main()
