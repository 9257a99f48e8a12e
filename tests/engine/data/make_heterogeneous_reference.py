"""Reference ε of a list of 30 distinct subsampled Gaussians at tiny δ.

The list: Poisson-subsampled Gaussian mechanisms (add/remove neighbours), the i-th of noise
multiplier ``numpy.linspace(0.4, 10, 30)[i]`` and rate ``numpy.geomspace(1e-6, 1, 30)[i]``:
thirty groups of one factor each, from a rarely sampled step of heavy loss to an always
sampled one of little, at δ = 1e-12, 1e-13 and 1e-15.

Two references per δ:

* dp-accounting's PLDs of both orders at the value discretisation 1e-4, composed:
  ``pessimistic_estimate=True`` (connect-the-dots) gives an upper bound of the true ε
  (``null`` where it reports none), ``False`` (without connect-the-dots) a lower bound;
* gdp's own bracket at ``rtol=1e-5`` (``gdp_fine_lower``, ``gdp_fine_upper``): each end a
  bound on its side, 0.003% to 0.015% apart, the lower end the one the default accuracy is
  measured against.

Used by ``tests/engine/test_composition.py``: the sound ε at the default accuracy never
below either lower bound, and within 0.1% of gdp's fine lower end at δ = 1e-12, 1% below.
Run from the repository root (about a minute):

    python tests/engine/data/make_heterogeneous_reference.py
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pldm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_mixed_reference import VDI, provenance  # noqa: E402

DELTAS = [1e-12, 1e-13, 1e-15]
FINE_RTOL = 1e-5


def heterogeneous_list() -> list[list[float]]:
    """``[sigma, p]`` of the 30 factors."""
    return [[float(s), float(p)] for s, p in zip(np.linspace(0.4, 10, 30),
                                                 np.geomspace(1e-6, 1.0, 30), strict=True)]


def _dp_accounting(par: list[list[float]], pessimistic: bool) -> list[float | None]:
    kw = {"value_discretization_interval": VDI, "pessimistic_estimate": pessimistic,
          "use_connect_dots": pessimistic}
    out = None
    for s, p in par:
        pld = pldm.from_gaussian_mechanism(standard_deviation=s, sensitivity=1.0,
                                           sampling_prob=p, **kw)
        out = pld if out is None else out.compose(pld)
    eps = [float(out.get_epsilon_for_delta(d)) for d in DELTAS]
    return [e if math.isfinite(e) else None for e in eps]


def main() -> None:
    import gdp

    par = heterogeneous_list()
    pess = _dp_accounting(par, True)
    opt = _dp_accounting(par, False)
    h = gdp.compose_two_orders(*[gdp.poisson_subsample(gdp.G_mu(1.0 / s), p) for s, p in par],
                               rtol=FINE_RTOL)
    rows = []
    for d, up, lo in zip(DELTAS, pess, opt, strict=True):
        fl, fu = (float(x) for x in h.epsilon_bounds(d))
        rows.append({"delta": d, "pld_pessimistic": up, "pld_optimistic": lo,
                     "gdp_fine_lower": fl, "gdp_fine_upper": fu})
    prov = provenance("tests/engine/data/make_heterogeneous_reference.py")
    root = Path(__file__).resolve().parents[3]
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                            text=True).stdout.strip()
    prov["gdp_fine"] = f"gdp at rtol={FINE_RTOL} (commit {commit}): lower end a lower " \
                       "bound, upper end an upper bound of the true epsilon"
    out = {"provenance": prov, "list_sigma_p": par, "rows": rows}
    path = Path(__file__).with_name("heterogeneous_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
