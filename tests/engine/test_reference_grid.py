"""DP-SGD over the practical box against independent accountants (stored reference values).

The references come from ``tests/engine/data/make_reference.py`` (provenance in the file):
dp-accounting's optimistic and pessimistic privacy-loss distributions and prv-accountant's
bounds. Checked here, in the direction that can see an unsound answer:

* gdp's sound ε is never below dp-accounting's optimistic ε (a lower bound of the truth) nor
  below prv-accountant's lower bound where prv agrees with dp-accounting's pessimistic ε to
  1% (at large ε, e.g. σ=3.56, p=0.085, T=218,085, prv's bounds [102.06, 102.28] exclude
  dp-accounting's pessimistic 107.05 and gdp's two-sided bracket [107.02, 107.04]; at
  σ=2.90, p=0.145, T=4,050, δ=9.1e-8 prv's lower bound 22.0488 lies above dp-accounting's
  pessimistic 22.0398 and gdp's bracket at rtol=2e-5, [22.03896, 22.03906]; such prv
  records are not used);
* gdp's sound ε is at most 0.2% above the tightest upper value (dp-accounting's pessimistic
  ε, or prv's upper bound when consistent), except the configurations listed in
  ``KNOWN_LOOSE`` (rare-event regime: p T small, δ tiny), which are expected to fail until
  the engine handles that regime (strict xfail: a fix makes them pass and the test says so).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import gdp
from gdp.engine.fourier import _EXTENDED_GAINS

DATA = json.loads((Path(__file__).parent / "data" / "dpsgd_reference.json").read_text())
CONFIGS = DATA["configurations"]

# (sigma, p, steps) of configurations measured too loose (more than 0.2% above the
# tightest independent upper value) by the engine of this branch
# ((0.6364386919172349, 2.0905211176733276e-06, 795) was 0.036387 against 0.035933 at
# delta 1e-11 until the frames whose round-off dominates worked in extended precision:
# 0.035913 now; (0.8820720461240077, 1.2292573995643878e-06, 241) was 0.00030578 against
# 0.00030148 at delta 5.9e-10 until the steps were refined where two answers at one tilt
# disagree: 0.00030134 now, and gdp's bracket at rtol 1e-4 is [0.00030112, 0.00030123];
# (0.679463190461612, 7.263336790796023e-06, 2) was 2.0294e-6 against 2.0176e-6 at delta
# 6e-6 until the refinement went on past five steps where its error estimate is over
# twice rtol: 2.0145e-6, with a bracket 0.49% wide; 2.0135e-6 in the windows of a tight
# engine)
KNOWN_LOOSE = set() if _EXTENDED_GAINS else {(0.6364386919172349, 2.0905211176733276e-06, 795)}


def _regime(c: dict) -> str:
    if c["regime"] != "random":
        return c["regime"]
    return "random, p <= 3e-3" if c["p"] <= 3e-3 else "random, p > 3e-3"


def _bounds(c: dict) -> tuple[list[float], list[float]]:
    """Independent lower and upper values of ε for one configuration."""
    lows, ups = [], []
    a, r = c.get("dp_accounting"), c.get("prv_accountant")
    if a is not None:
        lows.append(a["optimistic"])
        ups.append(a["pessimistic"])
    if r is not None:
        consistent = a is None or (r["lower"] <= a["pessimistic"] and abs(
            r["estimate"] - a["pessimistic"]) <= 0.01 * a["pessimistic"])
        if consistent:
            lows.append(r["lower"])
            ups.append(r["upper"])
    return lows, ups


USABLE = [c for c in CONFIGS if any(_bounds(c))]
REGIMES = sorted({_regime(c) for c in USABLE})


def test_grid_is_large_and_covers_small_p():
    assert len(USABLE) >= 180
    assert sum(c["p"] <= 3e-3 for c in USABLE) >= 80
    assert min(c["delta"] for c in USABLE) < 1e-11


def _eps(c: dict) -> float:
    return float(gdp.dpsgd(sigma=c["sigma"], p=c["p"], steps=c["steps"]).epsilon(c["delta"]))


@pytest.mark.parametrize("regime", REGIMES)
def test_sound_and_tight_per_regime(regime):
    loose, low = [], []
    for c in (c for c in USABLE if _regime(c) == regime):
        e = _eps(c)
        assert math.isfinite(e) and e >= 0
        lows, ups = _bounds(c)
        if lows and e < max(lows) * (1.0 - 1e-9):
            low.append((c["sigma"], c["p"], c["steps"], c["delta"], e, max(lows)))
        key = (c["sigma"], c["p"], c["steps"])
        if ups and e > min(ups) * 1.002 + 1e-12 and key not in KNOWN_LOOSE:
            loose.append((*key, c["delta"], e, min(ups)))
    assert not low, f"below an independent lower bound: {low}"
    assert not loose, f"more than 0.2% above the tightest upper value: {loose}"


@pytest.mark.parametrize("key", sorted(KNOWN_LOOSE))
@pytest.mark.xfail(strict=True, reason="rare-event regime (p T small, tiny delta): loose")
def test_known_loose(key):
    c = next(c for c in USABLE if (c["sigma"], c["p"], c["steps"]) == key)
    e = _eps(c)
    assert e >= max(_bounds(c)[0]) * (1.0 - 1e-9)
    assert e <= min(_bounds(c)[1]) * 1.002
