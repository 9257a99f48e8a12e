"""The error bounds of the Gaussian and subsampled Gaussian laws' cells
(:meth:`gdp.engine.laws.GaussianLaw.cells`, :meth:`gdp.sampling.subsampling.SubsampledLaw.excess`)
against 40-digit quadrature, in the direction that matters: the computed masses and
excesses lie within their bounds of the exact values for the cells the law's floating
point makes (the P-positions as rounded, the Q-positions their exact translates).

Before, the Q-positions were rounded on their own: P and Q were masses of slightly
different cells, up to ten times a lattice cell's bound off in a far tail (σ = 1,
p = 0.01, step 5e-4) and a hundred times a fine cell's (sixteen to a step of 6.4e-7 at
σ = 0.58, p = 1.4e-6), the excess two thousand times."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import gdp
from gdp.engine import law_of
from gdp.engine.laws import narrow_cells


@pytest.mark.parametrize(("s", "p", "h", "fine"), [
    (1.0, 0.01, 5.07e-4, 1),                     # the floor configuration's lattice
    (0.8, 0.001, 1e-4, 1),
    (0.5801, 1.401e-6, 6.43e-7, 1),              # a rarely sampled step's
    (0.5801, 1.401e-6, 6.43e-7, 16),             # ... and its runs' fine cells
    (0.6216, 2.3e-5, 5.61e-6, 256),
    # heavily sampled: near the bottom of the support log(1 - p) the base loss
    # u = log(1 + (e^t - 1)/p) is a logarithm of a cancellation (1 + y, y's rounding
    # passed on times |y|/(1 + y) = e^-u - 1), which the reference's bound missed
    (1.0, 0.5, 1e-4, 1),
    (0.7, 0.9, 1e-5, 1),
])
def test_subsampled_gaussian_cells_lie_within_their_bounds(exact_subsampled_cells, s, p, h,
                                                          fine):
    law = law_of(gdp.poisson_subsample(gdp.G_mu(1.0 / s), p))
    floor = np.log1p(-p)
    rng = np.random.default_rng(20261128)
    for trial in range(120):
        # cells of the bulk and of the far tail (to a loss of about 40000 steps)
        k = int(rng.integers(0, 40000)) if trial % 2 else int(rng.integers(0, 400))
        t0 = floor + k * h
        edges = np.array([t0 - 0.5 * h, t0 - 0.5 * h + h / fine])
        (P,), (Q,), (X,) = exact_subsampled_cells(s, p, edges, t0)
        for narrow in (False, True):
            with narrow_cells() if narrow else np.errstate():
                P_, Q_, EP, EQ, X_, EX = law.excess(edges, np.array([t0]))
            assert abs(P - P_[0]) <= EP[0]
            assert abs(Q - Q_[0]) <= EQ[0]
            assert abs(X - X_[0]) <= EX[0]


def test_gaussian_cells_lie_within_their_bounds(exact_normal_cell):
    law = law_of(gdp.G_mu(1.7))
    m = mpmath.mpf(1.7)
    rng = np.random.default_rng(20261128)
    for _ in range(200):
        a = float(rng.uniform(-30.0, 30.0))
        edges = np.array([a, a + 10.0 ** float(rng.uniform(-9, -1))])
        P_, Q_, EP, EQ = law.cells(edges)
        zp = (edges + 0.5 * 1.7 * 1.7) / 1.7
        z0, z1 = mpmath.mpf(float(zp[0])), mpmath.mpf(float(zp[1]))
        assert abs(exact_normal_cell(z0, z1) - P_[0]) <= EP[0]
        assert abs(exact_normal_cell(z0 - m, z1 - m) - Q_[0]) <= EQ[0]


@pytest.mark.parametrize("mu", [1.7, 40.0, 100.0, 316.2])
def test_gaussian_excess_where_the_p_mass_underflows(exact_normal_cell, mu):
    # losses of μ²/2 ± 20μ: beyond 37.5 deviations of P its cells' masses are subnormal or
    # 0, while e^t P is of the order of Q; the excess comes from logarithms there
    # (_far_excess). Before, X = Q with a bound of Q's error: the other side's lattice of
    # G_100 dropped every cell (a composition's lower end at 0). (μ = 1.7: the far P-tail
    # where Q is still a double)
    law = law_of(gdp.G_mu(mu))
    m = mpmath.mpf(mu)
    rng = np.random.default_rng(20261129)
    far = 0
    for trial in range(120):
        zq = float(rng.uniform(-20.0, 20.0)) if mu > 2 else float(rng.uniform(35.9, 38.3))
        a = mu * zq + 0.5 * mu * mu
        w = mu * 10.0 ** float(rng.uniform(-7, -1))
        edges = np.array([a, a + w] if trial % 5 else [a, np.inf])
        ref = np.array([a + float(rng.uniform(0.0, 1.0)) * min(w, 1.0)])
        zp = (edges + 0.5 * mu * mu) / mu
        z0 = mpmath.mpf(float(zp[0]))
        z1 = mpmath.inf if np.isinf(zp[1]) else mpmath.mpf(float(zp[1]))
        P = exact_normal_cell(z0, z1)
        Q = exact_normal_cell(z0 - m, z1 - m)
        X = Q - mpmath.exp(mpmath.mpf(float(ref[0]))) * P
        for narrow in (False, True):
            with narrow_cells() if narrow else np.errstate():
                P_, Q_, EP, EQ, X_, EX = law.excess(edges, ref)
            assert abs(X - X_[0]) <= EX[0]
            if P_[0] < 2.3e-308 and Q_[0] > 1e-300:
                far += 1
                # the bound is of the order of the roundings (u over the cell's width in
                # deviations, as a difference of two tails), not of Q
                assert EX[0] <= 1e-6 * Q_[0]
    assert far > (100 if mu > 2 else 20)
