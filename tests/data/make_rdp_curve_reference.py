"""Reference values of the optimal RDP -> trade-off conversion, by mpmath (slow; run once).

For the Gaussian's RDP curve eps(lam) = lam mu^2 / 2 at gdp's default orders, the curve
f(alpha) = max over orders of the smallest beta with both binary Renyi divergences
d_lam(1-beta || alpha) and d_lam(alpha || 1-beta) at most eps(lam) (Balle et al., AISTATS
2020, Sec. 3). The maximum is taken over the default orders up to 64 and 128, 256 (at
these points the best order is far below 64, so this is the maximum over all of them).
Each order's root is found by bisection on beta at 50 digits (the divergence decreases in
beta on [0, 1 - alpha]); the value stored is the maximum over the orders, rounded to 17
significant digits.

    python tests/data/make_rdp_curve_reference.py   # writes rdp_curve_reference.json
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath as mp

import gdp

HERE = Path(__file__).resolve().parent
MUS = [0.5, 1.0, 2.0]
ALPHAS = [1e-8, 1e-4, 0.01, 0.1, 0.3, 0.45]


def divergence(lam, a, b, eps):
    """max of the two binary divergences minus eps at type I error a, type II error b."""
    one = (1 - b) ** lam * a ** (1 - lam) + b ** lam * (1 - a) ** (1 - lam)
    two = a ** lam * (1 - b) ** (1 - lam) + (1 - a) ** lam * b ** (1 - lam)
    return max(mp.log(one), mp.log(two)) / (lam - 1) - eps


def root(lam, a, eps):
    lo, hi = mp.mpf(0), 1 - a  # infeasible at 0 (the second divergence is infinite)
    for _ in range(200):
        mid = (lo + hi) / 2
        if divergence(lam, a, mid, eps) > 0:
            lo = mid
        else:
            hi = mid
    return hi


def main() -> None:
    out = {"provenance": __doc__.strip().splitlines()[0], "dps": 50, "points": []}
    orders = [float(o) for o in gdp.DEFAULT_ORDERS]
    with mp.workdps(50):
        for mu in MUS:
            for alpha in ALPHAS:
                a = mp.mpf(alpha)
                best = max(root(mp.mpf(o), a, mp.mpf(o) * mp.mpf(mu) ** 2 / 2)
                           for o in orders if o <= 64 or o in (128.0, 256.0))
                out["points"].append({"mu": mu, "alpha": alpha,
                                      "beta": float(mp.nstr(best, 17))})
    (HERE / "rdp_curve_reference.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
