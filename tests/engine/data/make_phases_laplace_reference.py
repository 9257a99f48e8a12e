r"""Reference δ(ε) of the DP-SGD runs in phases by Laplace inversion, independent of gdp and
of FFT accountants.

The runs are those of ``make_phases_reference.py`` (dp-accounting's bounds): ``many`` (200
phases of 1 to 49 steps), ``rare`` and ``narrow`` (17 rarely sampled phases each) and
``short`` (the first ten of ``narrow``), and ``long`` (21 phases of the tenth random list of
the benchmark's part 4, ``benchmarks/bench_engine_sweep.py --phases``: its 20 longest, of
55,000 to 509,000 rarely sampled steps, and its phase 151, 47 steps at p = 3.8e-4; 4.7M
steps in all). dp-accounting's optimistic ε is 0 for all but the first, so it says nothing
there about whether an answer lies below the truth, and its pessimistic ε at 1e-4 for
``long`` is 4.87 against a truth near 4.182. Here the
composition's log moment generating function is the sum of its phases' (each by quadrature,
:func:`make_laplace_reference.delta_of_phases`), and δ(ε) comes from its Laplace inversion
at the saddle point, the range of integration doubled until the integrand has decayed (the
bulks of rarely sampled steps are narrow: it decays slowly).

For each run, two values of ε bracket the true ε at the run's δ: at ``below`` the larger
order's δ (order 1's) is above the run's δ, so the truth lies above ``below``; at ``above``
both orders' δ lie below it, so the truth lies below ``above``. The points were chosen
from gdp's brackets at ``rtol=1e-4`` and narrowed by these evaluations (each 1.5 minutes
for the narrow lists, up to 20 for ``rare``); the script refuses points that do not
bracket. Writes ``phases_laplace_reference.json`` next to this script (provenance in the
file). Used by ``tests/engine/test_composition.py``. Run ``python
tests/engine/data/make_phases_laplace_reference.py`` (about an hour on one core), or with
names of runs to recompute only those, the others' records kept.
"""

from __future__ import annotations

import datetime
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy

# (its sibling scripts, however this one is run)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_laplace_reference import delta_of_phases  # noqa: E402
from make_phases_reference import runs  # noqa: E402

OUT = Path(__file__).with_name("phases_laplace_reference.json")

# run: (ε below the truth, ε above it)
POINTS = {
    "many": (38.0290, 38.0302),
    "rare": (3.3293, 3.3296),
    "narrow": (5.1017, 5.1019),
    "short": (5.0688, 5.06904),
    "long": (4.1800, 4.1818),
}
# (sigma, p, steps): the 20 longest phases of part 4's tenth random list and its phase 151
# (seed 20261129; in a two-level composition that budgeted the rule's whole error, 0.28% too
# high; phase 151's block window, planned from its planning atoms, missed its tail)
LONG = [
    (2.5976617830417124, 0.0003824558814089877, 47),
    (0.7067464253692635, 1.688111764683413e-05, 508838),
    (0.5772577948145717, 3.483575491073616e-05, 388289),
    (1.4570003113890126, 4.5832453660459084e-05, 368517),
    (0.6275248922224843, 1.689575361037183e-05, 298663),
    (1.221688167760368, 1.54180073189206e-05, 298019),
    (0.5228640792568602, 2.3201071977619852e-05, 268783),
    (1.531553894436525, 1.33087865752784e-05, 236416),
    (3.731171029876976, 9.935479960485414e-05, 200091),
    (3.59646929451765, 8.6889092380419e-05, 193219),
    (2.1344230466440446, 4.394565166524892e-05, 184042),
    (1.740874967831893, 2.2868320659460788e-05, 152183),
    (3.273184925868883, 0.00010566975003971134, 134314),
    (3.885844463181704, 4.092856869956261e-05, 131481),
    (3.824328384126208, 1.972466860298709e-05, 129839),
    (0.9638846425957452, 1.2508839908097148e-05, 108736),
    (3.048647358667819, 2.4706422708242084e-05, 103909),
    (2.7089487453370933, 3.244717430670795e-05, 98949),
    (0.5252171108399093, 2.6549556635881085e-05, 82395),
    (1.151341188166031, 4.1585156697284254e-05, 68989),
    (3.501756600969229, 8.181415257984498e-05, 54955),
]
LONG_DELTA = 1.192958528872045e-11


def all_runs() -> dict:
    """The runs ``{name: {"phases": [[sigma, p, steps], ...], "delta": δ}}``."""
    out = runs()
    out["long"] = {"phases": [list(ph) for ph in LONG], "delta": LONG_DELTA}
    return out


def main(names: list[str]) -> None:
    # (the quadrature of M at large imaginary parts warns of round-off where the composed
    # integrand is far below the integral's tolerance)
    warnings.simplefilter("ignore", category=scipy.integrate.IntegrationWarning)
    everything = all_runs()
    unknown = sorted(set(names) - set(everything))
    if unknown:
        raise SystemExit(f"unknown runs {unknown}: the runs are {sorted(everything)}")
    kept = json.loads(OUT.read_text()) if names and OUT.exists() else {}
    out: dict = {"provenance": dict(
        script="tests/engine/data/make_phases_laplace_reference.py",
        date=datetime.date.today().isoformat(), python=platform.python_version(),
        numpy=np.__version__, scipy=scipy.__version__,
        method="Laplace inversion of the composed moment generating function (the sum of "
               "the phases' logs, each by adaptive quadrature) at the saddle point, the "
               "range doubled until the integrand has decayed (make_laplace_reference.py)")}
    bad = []
    for name, run in everything.items():
        if names and name not in names:
            if name in kept:
                out[name] = kept[name]
            continue
        lo, hi = POINTS[name]
        phases = [tuple(ph) for ph in run["phases"]]
        below = delta_of_phases(lo, phases, 1, wide=True)
        above = [delta_of_phases(hi, phases, order, wide=True) for order in (1, -1)]
        rec = dict(phases=run["phases"], delta=run["delta"],
                   below=dict(eps=lo, delta_order1=below),
                   above=dict(eps=hi, delta_order1=above[0], delta_order_minus1=above[1]))
        print(name, rec, flush=True)
        if not below > run["delta"] > max(above):
            bad.append(name)
        out[name] = rec
    if bad:
        raise ValueError(f"the points of {bad} do not bracket the true epsilon")
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
