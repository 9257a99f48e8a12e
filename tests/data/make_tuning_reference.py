"""Exact privacy profiles of tuned releases of binned Gaussian mechanisms (slow; run once).

Each base mechanism is the Gaussian mechanism with mu = 1 (outputs N(0, 1) or N(1, 1)),
binned into 200,000 cells of width 1.3e-4 on [-12, 14] (plus the two tails), with the
training score a function of the cell: +y, -y, |y - 1/2|, -|y - 1/2| or y^2 (cells with
equal scores are ordered by position). Binning is a post-processing, so every one of these
mechanisms is G_1-DP. The tuned release "best of K runs" puts mass phi(F + p) - phi(F) on a
cell whose own mass is p and below which (in score order) the mass is F (Papernot-Steinke
2022, Lemma 5, summed over a cell), and mass phi(0) on the empty release. The stored value
is, for each law of K and each eps, the largest hockey-stick divergence over the orderings
and both orders of the neighbours: a value every sound bound for G_1 must exceed.

    python tests/data/make_tuning_reference.py   # writes tuning_reference.json
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy import special

import gdp

HERE = Path(__file__).resolve().parent
MU = 1.0
EPS = [0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
LAWS = {
    "geometric(10)": gdp.geometric_runs(10.0),
    "poisson(10)": gdp.poisson_runs(10.0),
    "tnb(0.5, gamma=0.02)": gdp.truncated_negative_binomial(shape=0.5, gamma=0.02),
    "binomial(20, 0.5)": gdp.binomial_runs(20, 0.5),
    "fixed(5)": gdp.fixed_runs(5),
}


def cells():
    edges = np.concatenate([[-np.inf], np.linspace(-12.0, 14.0, 200001), [np.inf]])
    mid = np.concatenate([[-12.0], 0.5 * (edges[1:-2] + edges[2:-1]), [14.0]])
    p = np.diff(special.ndtr(edges))
    q = np.diff(special.ndtr(edges - MU))
    return mid, p, q


def release(runs, score, mass):
    order = np.argsort(score, kind="stable")
    m = mass[order]
    below = np.concatenate([[0.0], np.cumsum(m)[:-1]])
    out = np.empty_like(mass)
    out[order] = runs.increment(below, np.minimum(below + m, 1.0))
    return np.concatenate([out, [runs.p_zero]])


def main() -> None:
    y, p, q = cells()
    scores = {"+y": y, "-y": -y, "|y-1/2|": np.abs(y - 0.5), "-|y-1/2|": -np.abs(y - 0.5),
              "y^2": y * y}
    out = {"provenance": __doc__.strip().splitlines()[0], "mu": MU, "eps": EPS, "laws": {}}
    for name, runs in LAWS.items():
        worst = np.zeros(len(EPS))
        for s in scores.values():
            a, b = release(runs, s, p), release(runs, s, q)
            for k, e in enumerate(EPS):
                d = max(np.sum(np.maximum(a - np.exp(e) * b, 0.0)),
                        np.sum(np.maximum(b - np.exp(e) * a, 0.0)))
                worst[k] = max(worst[k], d)
        out["laws"][name] = {"runs": [runs.kind, list(runs.params)], "delta": worst.tolist()}
    (HERE / "tuning_reference.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
