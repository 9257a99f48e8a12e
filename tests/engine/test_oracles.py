"""Exact oracles through the numeric path, and determinism across BLAS threads.

* Gaussians known only by their values (``from_callable`` of G_mu(0.5), 16 factors) against
  the closed form G_2: the sound ε is never below the exact one and the bracket contains
  it, from δ = 1e-3 down to 1e-12. Below about 16 * 32u ≈ 1e-13 (u the unit roundoff) a
  curve known only by float values cannot certify anything: a value near 1 is known only
  to within some ulps of 1, which the sound side must count as mass at +inf (ε = inf there
  is the honest answer, not an error).
* A strong Gaussian (losses of thousands) beside a Laplace release against one-dimensional
  quadrature of the Gaussian's closed-form profile over the release's loss law, in 30 digits.
* One step of DP-SGD (a Poisson-subsampled Gaussian, both orders) against its closed-form
  profile in 30 digits, down to δ = 1e-15 (where dp-accounting's estimates at a 1e-4 grid
  are 1% above the truth).
* Two steps of DP-SGD against one step's closed form integrated over the other step's law
  in 40 digits (``data/make_two_step_reference.py``; two cross-check flags, at δ = 7.1e-15
  and 2.4e-14, where dp-accounting's optimistic and pessimistic ε both lie above the truth,
  by 0.6% and 0.07%).
* DP-SGD answers are bit-identical whatever the BLAS/OpenMP thread count and import order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest

import gdp


@pytest.fixture(scope="module")
def callable_16():
    return gdp.from_callable(lambda a: gdp.G_mu(0.5)(a)) ** 16


@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8, 1e-10, 1e-12])
def test_callable_gaussians_against_the_closed_form(callable_16, delta):
    exact = gdp.G_mu(2.0).epsilon(delta)
    e = callable_16.epsilon(delta)
    lo, hi = callable_16.epsilon_bounds(delta)
    assert lo <= exact <= hi == e
    # measured on this branch: +0.02% down to 1e-10, +0.27% at 1e-12
    assert e <= exact * (1.0 + (1e-3 if delta >= 1e-10 else 5e-3))


def test_callable_gaussians_curves_bracket_the_truth(callable_16):
    a = np.linspace(0.0, 1.0, 201)
    g = gdp.G_mu(2.0)(a)
    assert np.all(callable_16.lower(a) <= g + 1e-15)
    assert np.all(callable_16.upper(a) >= g - 1e-15)
    assert float(np.max(callable_16.upper(a) - callable_16.lower(a))) <= 2e-3


def test_callable_below_the_float_floor_is_inf_not_an_error(callable_16):
    assert callable_16.epsilon(1e-15) == np.inf


_SNIPPET = """
import {first}
import gdp
h = gdp.dpsgd(sigma=0.8, p=0.001, steps=1000)
g = gdp.compose_two_orders(gdp.laplace(0.3), gdp.poisson_subsample(gdp.G_mu(1.0), 0.02),
                           gdp.G_mu(0.2))
print(repr(h.epsilon(1e-5)), repr(h.epsilon_bounds(1e-9)), repr(g.epsilon(1e-6)))
"""


def _run(threads: str, first: str) -> str:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
               MKL_NUM_THREADS=threads)
    out = subprocess.run([sys.executable, "-c", _SNIPPET.format(first=first)], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    return out.stdout


def _gaussian_beside_laplace(eps: float, mu: float, b: float) -> mpmath.mpf:
    """δ(ε) of G_mu ⊗ Laplace(b) in 30 digits: the mean over the release's Q-law of losses
    (atoms e^-b/2 at -b and 1/2 at b, density e^((l-b)/2)/4 between) of the Gaussian's
    profile Φ(-x/μ + μ/2) - e^x Φ(-x/μ - μ/2) at ε - l (DRS Cor. 2.13; any real x)."""
    with mpmath.workdps(30):
        m, b_, e = mpmath.mpf(mu), mpmath.mpf(b), mpmath.mpf(eps)

        def dg(x):
            return mpmath.ncdf(-x / m + m / 2) - mpmath.exp(x) * mpmath.ncdf(-x / m - m / 2)

        atoms = mpmath.exp(-b_) / 2 * dg(e + b_) + dg(e - b_) / 2
        return atoms + mpmath.quad(lambda u: mpmath.exp((u - b_) / 2) / 4 * dg(e - u),
                                   [-b_, 0, b_])


@pytest.mark.parametrize(("mu", "b"), [(30.0, 3.0), (100.0, 0.3), (316.2, 1.0),
                                      (7905.694150420947, 0.3)])
@pytest.mark.parametrize("delta", [1e-6, 1e-15])
def test_strong_gaussian_beside_laplace_against_quadrature(mu, b, delta):
    # losses of μ²/2 = 450 to 50,000: the P-masses of the Gaussian's cells underflow where
    # e^t P is of the order of Q; before, the other side's lattice lost every cell and the
    # lower end was 0 (μ ≥ 100), the sound end up to 0.2 above the truth. μ = 7906 (σ = 0.4,
    # p = 1, 10⁷ steps): the planning law put each bulk on six cells, the tilt at 1e-15 on
    # its last atom (8 against a saddle point of 0.001): lower end 0, sound end 9,876 high
    h = gdp.compose(gdp.G_mu(mu), gdp.laplace(b))
    lo, hi = h.epsilon_bounds(delta)
    assert _gaussian_beside_laplace(hi, mu, b) <= delta <= _gaussian_beside_laplace(lo, mu, b)
    assert hi - lo <= 1e-3 * hi
    d_lo, d_hi = h.delta_bounds(hi)
    assert d_lo <= _gaussian_beside_laplace(hi, mu, b) <= d_hi


def _one_step(eps: float, sigma: float, p: float) -> mpmath.mpf:
    r"""δ(ε) of one Poisson-subsampled Gaussian step in 30 digits, the larger of its two
    orders. With :math:`\mu = 1/\sigma`, P = N(0, 1) and Q = (1 - p) N(0, 1) + p N(μ, 1),
    the loss :math:`L(x) = \log(1 - p + p e^{\mu x - \mu^2/2})` increases in x: the first
    order's δ is :math:`Q[x > x_1] - e^\varepsilon P[x > x_1]` with :math:`L(x_1) = ε`, the
    second's :math:`P[x < x_2] - e^\varepsilon Q[x < x_2]` with :math:`L(x_2) = -ε` (0 where
    -ε is at most log(1 - p), the bottom of L)."""
    with mpmath.workdps(30):
        m, q, e = 1 / mpmath.mpf(sigma), mpmath.mpf(p), mpmath.mpf(eps)

        def root(v):  # L(x) = v
            return (mpmath.log((mpmath.exp(v) - 1 + q) / q) + m * m / 2) / m

        x1 = root(e)
        d1 = (1 - q) * mpmath.ncdf(-x1) + q * mpmath.ncdf(m - x1) - mpmath.exp(e) * \
            mpmath.ncdf(-x1)
        d2 = mpmath.mpf(0)
        if mpmath.exp(-e) > 1 - q:
            x2 = root(-e)
            d2 = mpmath.ncdf(x2) - mpmath.exp(e) * ((1 - q) * mpmath.ncdf(x2) +
                                                    q * mpmath.ncdf(x2 - m))
        return max(d1, d2)


@pytest.mark.parametrize(("sigma", "p", "delta"), [
    (2.2538987177827043, 0.17940284958173572, 3.395845759829023e-15),
    (2.2538987177827043, 0.17940284958173572, 1e-6),
    (0.5, 0.01, 1e-10), (0.5, 0.01, 1e-15), (1.0, 1e-5, 1e-8), (0.7, 0.9, 1e-12),
    (5.0, 0.5, 1e-3)])
def test_one_step_against_its_closed_form(sigma, p, delta):
    h = gdp.dpsgd(sigma=sigma, p=p, steps=1)
    lo, hi = h.epsilon_bounds(delta)
    assert h.epsilon(delta) == hi
    assert _one_step(hi, sigma, p) <= delta <= _one_step(lo, sigma, p)
    assert hi - lo <= 1e-3 * hi
    d_lo, d_hi = h.delta_bounds(hi)
    assert d_lo <= _one_step(hi, sigma, p) <= d_hi


_TWO_STEPS = json.loads((Path(__file__).parent / "data" / "two_step_reference.json")
                        .read_text())["configurations"]


@pytest.mark.parametrize("ref", _TWO_STEPS, ids=lambda r: f"sigma={r['sigma']:.4g},"
                         f"p={r['p']:.3g},delta={r['delta']:.2g}")
def test_two_steps_against_forty_digit_quadrature(ref):
    h = gdp.dpsgd(sigma=ref["sigma"], p=ref["p"], steps=2)
    lo, hi = (float(v) for v in h.epsilon_bounds(ref["delta"]))
    assert h.epsilon(ref["delta"]) == hi
    assert lo <= ref["eps"] <= hi          # the truth inside, from both sides
    assert hi <= 1.001 * ref["eps"]        # within 0.1%
    d_lo, d_hi = (float(v) for v in h.delta_bounds(ref["eps"]))
    assert d_lo <= ref["delta_at_eps"] <= d_hi


def test_answers_are_bit_identical_across_threads_and_import_orders():
    ref = _run("1", "numpy")
    assert _run("2", "scipy.fft") == ref
    assert _run("4", "gdp") == ref
