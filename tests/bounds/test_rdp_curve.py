"""Tests of gdp.bounds.rdp_curve: the trade-off curve implied by RDP / zCDP.

The direction of every error is tested: the sound curve lies below the exact optimal
conversion (mpmath reference), below G_mu (the Gaussian has the divergences it is built
from) and above the curve of the classical RDP -> (eps, delta) conversion.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

import gdp
from gdp.bounds.rdp_curve import from_rdp, from_zcdp

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" /
                   "rdp_curve_reference.json").read_text())
ALPHA = np.unique(np.concatenate([np.geomspace(1e-12, 0.5, 300), np.linspace(0, 1, 401)]))
G_ROUNDING = 1e-14  # G_mu is evaluated lowered by its rounding bound (< 2e-12 relative)


@functools.cache
def curve(mu):
    return from_rdp(gdp.rdp_gaussian(mu))


@pytest.fixture(params=[0.5, 1.0, 2.0])
def gaussian_case(request):
    return request.param, curve(request.param)


def classical_curve(rdp, orders=None):
    deltas = np.geomspace(1e-300, 0.5, 200)
    eps = np.array([gdp.eps_from_rdp(rdp, d, orders, conversion="classical") for d in deltas])
    return gdp.from_privacy_profile(eps, deltas)


def test_the_sandwich_classical_below_rdp_curve_below_gaussian(gaussian_case):
    mu, f = gaussian_case
    g = gdp.G_mu(mu)
    lower, upper = f.lower(ALPHA), f.upper(ALPHA)
    assert np.all(lower <= upper)
    assert np.all(lower <= g(ALPHA) * (1 + G_ROUNDING) + 1e-300)
    assert np.all(upper <= g(ALPHA) * (1 + G_ROUNDING) + 1e-15)
    classical = classical_curve(gdp.rdp_gaussian(mu))
    assert np.all(classical(ALPHA) <= lower + 1e-15)
    # and strictly between somewhere: the conversion is neither trivial nor G_mu
    assert np.max(lower - classical(ALPHA)) > 1e-3
    assert np.max(g(ALPHA) - upper) > 1e-3


def test_the_bracket_contains_the_exact_optimal_conversion():
    for pt in DATA["points"]:
        f, a, ref = curve(pt["mu"]), pt["alpha"], pt["beta"]
        assert f(a) <= ref * (1 + 1e-13), pt  # the sound side never above the truth
        assert f.upper(a) >= ref * (1 - 1e-13), pt
        assert f(a) >= ref - 2e-3, pt  # and close to it


def test_epsilon_between_gaussian_and_the_conversions(gaussian_case):
    mu, f = gaussian_case
    r = gdp.rdp_gaussian(mu)
    for d in (1e-3, 1e-6, 1e-10):
        e = f.epsilon(d)
        assert gdp.eps_from_mu(mu, d) <= e <= gdp.eps_from_rdp(r, d, conversion="classical")
        assert e <= gdp.eps_from_rdp(r, d) * (1 + 1e-3)  # the sharp one, up to the grid
        assert f.upper.epsilon(d) <= gdp.eps_from_rdp(r, d)


def test_is_a_symmetric_trade_off_function(gaussian_case):
    _, f = gaussian_case
    assert f.is_symmetric and f.lower.is_symmetric and f.upper.is_symmetric
    b = f(ALPHA)
    assert f(0.0) == 1.0 and f(1.0) == 0.0
    assert np.all(np.diff(b) <= 0) and np.all(b <= 1 - ALPHA + 1e-15)
    inv = f.lower.inverse()
    assert np.max(np.abs(inv(ALPHA) - b)) < 1e-9


def test_dpsgd_rdp_curve_is_below_the_exact_curve():
    sigma, p, steps = 1.0, 0.01, 300
    orders = np.arange(2, 65)
    f = from_rdp(steps * gdp.rdp_sampled_gaussian(sigma, p, orders), orders)
    exact = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
    a = np.geomspace(1e-9, 0.5, 200)
    assert np.all(f(a) <= exact.upper(a) + 1e-12)
    assert f.epsilon(1e-5) >= exact.lower.epsilon(1e-5)


def test_zcdp_between_classical_and_gaussian():
    mu = 1.0
    orders = gdp.bounds.ZCDP_ORDERS[::4]
    f = from_zcdp(mu * mu / 2, orders=orders)
    g = gdp.G_mu(mu)
    assert np.all(f(ALPHA) <= g(ALPHA) * (1 + G_ROUNDING) + 1e-300)
    classical = classical_curve(orders * mu * mu / 2, orders)
    assert np.all(classical(ALPHA) <= f(ALPHA) + 1e-15)
    # real orders near the best one: at least as tight as the integer ones (up to the grids)
    assert f.epsilon(1e-5) <= curve(mu).epsilon(1e-5) * (1 + 1e-4)


def test_zero_divergence_is_the_identity_and_infinite_orders_are_skipped():
    assert isinstance(from_rdp(np.zeros(3), [2, 3, 4]), gdp.core.Identity)
    assert isinstance(from_zcdp(0.0), gdp.core.Identity)
    r = gdp.rdp_gaussian(1.0, [2, 3, 4]).copy()
    r[0] = np.inf
    f = from_rdp(r, [2, 3, 4])
    g = from_rdp(r[1:], [3, 4])
    assert np.max(np.abs(f(ALPHA) - g(ALPHA))) < 1e-12


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="one value per order"):
        from_rdp([1.0, 2.0], [2, 3, 4])
    with pytest.raises(ValueError, match="`rdp` must be a non-negative"):
        from_rdp([-1.0], [2])
    with pytest.raises(ValueError, match="finite at one order"):
        from_rdp([np.inf, np.inf], [2, 3])
    with pytest.raises(ValueError, match="`orders` must be"):
        from_rdp([1.0], [1.0])
    with pytest.raises(ValueError, match="`rho` must be"):
        from_zcdp(-0.1)
    with pytest.raises(TypeError, match="`rho` must be a real number"):
        from_zcdp("1")
