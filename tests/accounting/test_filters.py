"""Tests of gdp.GaussianFilter and gdp.GaussianOdometer (fully adaptive GDP composition)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import gdp
from gdp import mechanisms


def state(flt):
    return (flt.entries, flt.spent, getattr(flt, "remaining", None), flt._sum)


def test_admits_while_the_sum_of_squares_fits():
    flt = gdp.GaussianFilter(mu=1.25)
    flt.admit(gdp.G_mu(0.75))
    assert flt.remaining == 1.0
    flt.admit(mu=1.0)
    assert flt.spent == 1.25 and flt.remaining == 0.0
    assert flt.tradeoff() == gdp.G_mu(1.25)
    assert [e.mu for e in flt.entries] == [0.75, 1.0]


def test_refusal_leaves_the_state_unchanged():
    flt = gdp.GaussianFilter(mu=1.0)
    flt.admit(mu=0.6, label="first")
    before = state(flt)
    with pytest.raises(gdp.BudgetExceeded, match=r"admitting mu=0\.9 would spend 1\.08167 > "
                                                 r"budget 1; refused, nothing recorded"):
        flt.admit(mu=0.9)
    assert state(flt) == before
    assert not flt.can_admit(mu=0.9) and state(flt) == before
    # a smaller one still fits (the refusal depends only on the analyst's own choices)
    flt.admit(mu=0.5)
    assert len(flt.entries) == 2 and flt.spent <= 1.0
    assert issubclass(gdp.BudgetExceeded, ValueError)


def test_the_budget_test_is_exact():
    flt = gdp.GaussianFilter(mu=1.0)
    flt.admit(mu=0.6)
    assert not flt.can_admit(mu=0.8)  # 0.6**2 + 0.8**2 = 1 + 4e-17 in these floats
    r = flt.remaining
    assert flt.can_admit(mu=r) and not flt.can_admit(mu=math.nextafter(r, 2.0))
    flt.admit(mu=r)
    assert flt.spent == 1.0


def test_order_of_admissions_does_not_matter():
    rng = np.random.default_rng(3)
    mus = rng.uniform(0.01, 0.2, 40)
    a, b = gdp.GaussianFilter(mu=np.inf), gdp.GaussianFilter(mu=np.inf)
    for m in mus:
        a.admit(mu=float(m))
    for m in mus[::-1]:
        b.admit(mu=float(m))
    assert a.spent == b.spent >= math.sqrt(float(np.sum(mus ** 2))) * (1 - 1e-16)


def test_what_may_enter():
    flt = gdp.GaussianFilter(mu=10.0)
    assert flt.admit(gdp.G_mu(1.0) @ gdp.G_mu(1.0)).mu == pytest.approx(math.sqrt(2))
    mech = mechanisms.Gaussian(sensitivity=2.0, sigma=4.0)
    assert flt.admit(mech).mu == mech.tradeoff.mu and flt.entries[-1].label == "Gaussian"
    rr = flt.admit(gdp.f_eps_delta(1.0))  # randomized response, certified at its vertex
    assert rr.mu == pytest.approx(-2 * special.ndtri(1 / (1 + math.e)), rel=1e-14)
    lap = flt.admit(gdp.laplace(1.0))
    assert np.all(gdp.G_mu(lap.mu)(np.linspace(0, 1, 2001)) <= gdp.laplace(1.0)(
        np.linspace(0, 1, 2001)))
    n = len(flt.entries)
    with pytest.raises(ValueError, match="not certified mu-GDP"):
        flt.admit(gdp.f_eps_delta(1.0, 1e-6))  # f(0) < 1: no mu
    with pytest.raises(ValueError, match="`mu` must dominate"):
        flt.admit(gdp.f_eps_delta(1.0), mu=1.0)
    with pytest.raises(TypeError, match="`mechanism` must be a TradeOff"):
        flt.admit("gaussian")
    with pytest.raises(TypeError, match="`mechanism` .* or its certified `mu` must be given"):
        flt.admit()
    with pytest.raises(ValueError, match="`mu` must be a non-negative"):
        flt.admit(mu=-1.0)
    assert len(flt.entries) == n
    # a larger mu than needed is accepted and charged
    assert flt.admit(gdp.f_eps_delta(1.0), mu=2.0).mu == 2.0
    with pytest.raises(ValueError, match="`mu` must be a positive"):
        gdp.GaussianFilter(mu=0.0)


def test_an_adaptive_interaction_within_the_budget_is_gdp():
    # step 1: Y1 ~ N(mu1 s, 1); step 2 with mu2 chosen from Y1 so that mu1^2 + mu2^2 <= B^2
    # (here mu2 is large after a small Y1 and small after a large one). The pair of laws of
    # (Y1, Y2) under s = 0, 1 must be B-GDP: hockey-stick <= that of G_B (exact quadrature).
    B, mu1 = 1.0, 0.6
    y = np.linspace(-9, 10, 1901)
    dy = y[1] - y[0]
    flt = gdp.GaussianFilter(mu=B)
    flt.admit(mu=mu1)
    mu2 = np.where(y < 0.3, flt.remaining, 0.2)
    assert all(flt.can_admit(mu=float(m)) for m in np.unique(mu2))
    p1 = np.exp(-y ** 2 / 2) / math.sqrt(2 * math.pi) * dy
    q1 = np.exp(-(y - mu1) ** 2 / 2) / math.sqrt(2 * math.pi) * dy
    p2 = np.exp(-y[None, :] ** 2 / 2) / math.sqrt(2 * math.pi) * dy
    q2 = np.exp(-(y[None, :] - mu2[:, None]) ** 2 / 2) / math.sqrt(2 * math.pi) * dy
    P, Q = p1[:, None] * p2, q1[:, None] * q2
    for eps in (0.0, 0.5, 1.0, 2.0):
        hs = max(np.sum(np.maximum(Q - math.exp(eps) * P, 0)),
                 np.sum(np.maximum(P - math.exp(eps) * Q, 0)))
        assert hs <= gdp.delta_from_mu(B, eps) + 2e-4  # the grid's own error is ~1e-5


def test_odometer_prefixes_at_levels_fixed_in_advance():
    odo = gdp.GaussianOdometer(levels=[0.5, 1.0, 2.0])
    for m in (0.3, 0.3, 0.5, 1.0, 0.1):
        odo.admit(mu=m)
    assert odo.spent == pytest.approx(math.sqrt(0.09 + 0.09 + 0.25 + 1.0 + 0.01))
    assert odo.level == 2.0 and odo.prefix(0.5) == 2 and odo.prefix(1.0) == 3
    assert odo.prefix(2.0) == 5
    with pytest.raises(ValueError, match="one of the levels fixed before"):
        odo.prefix(0.7)
    big = gdp.GaussianOdometer(levels=[0.1])
    big.admit(mu=1.0)
    assert big.level == math.inf and big.prefix(0.1) == 0
    default = gdp.GaussianOdometer()
    assert default.levels[0] == 0.01 and len(default.levels) == 60
    with pytest.raises(ValueError, match="increasing sequence"):
        gdp.GaussianOdometer(levels=[1.0, 0.5])
