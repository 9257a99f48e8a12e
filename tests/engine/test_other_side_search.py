"""The other side's inversion finds its crossing wherever it lies below the frame's centre.

Its search starts at the tilted law's mode and steps down in doubling steps; where the last
step went past the lowest lattice point it may certify (ε = 0's), the stretch above that
point was not searched, and the lower end of the bracket fell to one lattice step: 1.99e-7
against a sound answer of 1.2956e-5 (σ = 2.72, p = 9.9e-5, T = 31, δ = 7.7e-5, rtol = 3e-4),
4.4e-3 → 8.2e-8 at σ = 9.98, p = 7.3e-5, T = 880,904, rtol = 1e-4. Tightening ``rtol``
widened those brackets to 99% of their upper ends.
"""

from __future__ import annotations

import pytest

import gdp

_CASES = [
    (2.719975029995935, 9.866341753841766e-05, 31, 7.710435287872423e-05),
    (9.977498182961758, 7.284996317210785e-05, 880904, 0.001074924594058257),
]


@pytest.mark.parametrize("sigma, p, steps, delta", _CASES)
def test_bracket_narrows_as_rtol_tightens(sigma, p, steps, delta):
    widths = []
    for rtol in (1e-3, 3e-4, 1e-4):
        lo, hi = (float(v) for v in gdp.dpsgd(sigma=sigma, p=p, steps=steps, rtol=rtol)
                  .epsilon_bounds(delta))
        assert 0.0 < lo <= hi
        assert hi - lo <= 3e-4 * hi        # (before: up to 99.998% of hi at 1e-4)
        widths.append(hi - lo)
    assert widths[2] <= widths[0]
