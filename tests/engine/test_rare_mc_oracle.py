"""DP-SGD against importance-sampled Monte Carlo (independent of gdp and of any
discretisation; ``tests/engine/data/make_rare_mc_reference.py``, provenance in the data
file): rarely sampled steps, the corner where Laplace inversion refuses and dp-accounting's
two sides disagree: at σ = 1.346, p = 1.2e-4, T = 4 its optimistic ε at discretisation 1e-6
(0.014527) lies above the truth (about 0.01447), and at σ = 0.739, p = 8.16e-6, T = 2022,
δ = 1.1e-13 its pessimistic ε at 3e-5 (0.1217) lies below the truth (about 0.126), and at
σ = 0.547, p = 5.9e-6, T = 98,632, δ = 1.45e-11 (a row of the engine sweep) its pessimistic
ε at 1e-3 (1.4199) lies below the truth (about 1.468); and heavily sampled steps at large ε
(an exponentially tilted proposal): at σ = 0.465, p = 0.625, T = 1,273, δ = 1.03e-5 both of
dp-accounting's values at 1e-4 (1694.163 and 1694.226) lie above the truth (about 1693.25),
and at σ = 0.661, p = 0.25, T = 51, δ = 6.37e-15 its optimistic ε (51.421) lies 0.2% above
the truth (about 51.314, inside gdp's bracket [51.309, 51.325]); and the rare-jump family
(σ = 1/1.2, p = 3e-6, T = 10,000, δ about 1e-15), answered from the split by the number of
jumps (:mod:`gdp.engine.jumps`), where the ordinary sound δ at ε = 0.0355 was 1.7e-15
against the estimate's 1.006e-15. Flags of two fresh cross-checks (seeds 20261130 and
20261201, δ from 1.2e-15 to 2.0e-13) where Laplace inversion refuses are decided here too:
at σ = 1.143, p = 1.07e-3, T = 7,598, δ = 1.16e-15 dp-accounting's ε at 1e-4 (3.500 and
2.941) lie far above the truth (about 1.03), at σ = 0.494, p = 0.0040, T = 859, δ = 2.4e-15
likewise (29.12 and 28.97 against about 19.775), and at σ = 0.834, p = 4.6e-6, T = 6,514,
δ = 2.0e-13 its pessimistic ε (0.0188) lies 17% below the truth (about 0.0226). Seed
20261202 adds seven: its optimistic ε above the truth in six (at σ = 0.610, p = 2.3e-4,
T = 2,202, δ = 3.0e-15, 12.48 against about 5.234; at σ = 2.182, p = 0.127, T = 5,
δ = 8.9e-14, 1.790828, 4.6e-5 above gdp's sound 1.790745, where 20 million samples put δ
7.8 standard errors below the δ asked), its pessimistic ε below it in two. Seed 20261203
adds seven (δ from 1.1e-15 to 1.3e-13), its optimistic ε above the truth in each: at
σ = 0.713, p = 3.0e-5, T = 10,883, δ = 1.8e-14, 6.346 against about 1.063; at σ = 0.693,
p = 0.547, T = 10, δ = 7.2e-14, 34.29985, 2.8e-3 above gdp's sound 34.29702, where 10
million samples put δ 17 standard errors below the δ asked. Seed 20261204 adds four
(δ from 3.8e-15 to 1.1e-12): its optimistic ε above the truth in three (at σ = 0.927,
p = 2.2e-4, T = 1,079, δ = 4.9e-15, 4.058 against about 0.6985), its pessimistic ε below
it in one (σ = 0.472, p = 7.8e-5, T = 18,363, δ = 1.1e-12, 7.2988 against about 7.3723).
Seed 20261205 adds six (δ from 2.9e-15 to 3.3e-12): its optimistic ε above the truth in
four (at σ = 0.579, p = 6.6e-5, T = 2,593, δ = 2.9e-15, 14.658 against about 4.573; at
σ = 0.463, p = 2.4e-3, T = 8, δ = 3.6e-14, 11.299906, 0.1% above gdp's sound 11.288910,
where 10 million samples put δ 20 standard errors below the δ asked), its pessimistic ε
below it in three (at σ = 0.746, p = 2.1e-3, T = 4,704, δ = 2.2e-13, 4.785915 against
about 4.9146, 73 standard errors). Seeds 20261206 to 20261208 add twenty configurations
(37 estimates, δ from 1.2e-15 to 1.5e-11), at each of which gdp's bracket centre at
``rtol=1e-5`` gives the δ asked within 1.8 standard errors: dp-accounting's optimistic ε
above the truth in fifteen (at σ = 0.834, p = 0.122, T = 4, δ = 5.5e-15, 10.5935 against
about 10.5255, 307 standard errors), its pessimistic ε below it in six (at σ = 0.482,
p = 1.1e-5, T = 1,739, δ = 1.5e-11, 2.894169 against about 2.89691, 10.7 standard errors
with ten million samples). The second order's δ, where ε lies below its support end and
Laplace inversion refuses it or answers at its round-off, is bounded by a Chernoff bound
in the script (stored as ``other_order_delta_bound``), far below each estimate.

Soundness, for every reference, in the direction an unsound answer fails (five standard
errors of slack for the estimate's noise): the sound δ is not below the estimate; the
lower end of the δ bracket is not above it; ε at a δ below the estimate is at least the
reference ε, and the lower end of the ε bracket at a δ above it at most the reference ε.

Tightness, except where listed as known loose (strict xfail: a fix makes them pass and
the test says so): the sound δ within 6% above the estimate, ε within 1.5%, and for T ≤ 10
the lower end of the ε bracket within 1% (it was 40% wide at T = 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gdp
from gdp.engine.fourier import _EXTENDED_GAINS

DATA = json.loads((Path(__file__).parent / "data" / "rare_mc_reference.json").read_text())

# (sigma, p, steps) measured loose: none since the transforms of frames whose round-off
# dominates work in extended precision (at sigma = 0.739, p = 8.16e-6, T = 2022 the sound
# delta was about 5x the estimate and eps 20% high: the double transforms' round-off, n
# gamma of the tilted mass, was a thousand times the delta asked)
KNOWN_LOOSE: set[tuple[float, float, int]] = set() if _EXTENDED_GAINS else {
    (0.739, 8.16e-06, 2022)}  # (where the long double is the double itself)


def _id(c: dict) -> str:
    return f"s{c['sigma']:.3g}-p{c['p']:.3g}-T{c['steps']}-e{c['eps']}"


def _curve(c: dict) -> gdp.TradeOff:
    return gdp.dpsgd(sigma=c["sigma"], p=c["p"], steps=c["steps"])


@pytest.mark.parametrize("c", DATA["configurations"], ids=_id)
def test_both_ends_are_on_their_side_of_the_monte_carlo_reference(c):
    h = _curve(c)
    ref, se = c["delta"], c["se"]
    lo, hi = map(float, h.delta_bounds(c["eps"]))
    assert hi >= ref - 5 * se
    assert lo <= ref + 5 * se
    assert float(h.epsilon(ref - 5 * se)) >= c["eps"]
    assert float(h.epsilon_bounds(ref + 5 * se)[0]) <= c["eps"]


def _tight_params() -> list:
    out = []
    for c in DATA["configurations"]:
        loose = (c["sigma"], c["p"], c["steps"]) in KNOWN_LOOSE
        marks = [pytest.mark.xfail(strict=True, reason="rare-event corner")] if loose else []
        out.append(pytest.param(c, marks=marks, id=_id(c)))
    return out


@pytest.mark.parametrize("c", _tight_params())
def test_sound_ends_are_close_to_the_monte_carlo_reference(c):
    h = _curve(c)
    ref, se = c["delta"], c["se"]
    assert float(h.delta(c["eps"])) <= ref * 1.06
    # (0.2% in most; 1% at sigma = 0.533, T = 82, where it was 63% before the
    # saddle-point frame)
    assert float(h.epsilon(ref + 5 * se)) <= c["eps"] * 1.015
    if c["steps"] <= 10:
        assert float(h.epsilon_bounds(ref + 5 * se)[0]) >= 0.99 * c["eps"]
