"""Tests of gdp.risk: attack-risk measures of a curve and calibration to a risk target.

Risks are upper bounds: every test of a value checks its direction against an independent
exact value (mpmath closed forms, brute-force minimisation, the one-step subsampled
Gaussian in closed form) as well as its closeness.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import gdp
from gdp import risk

ALPHA = np.unique(np.concatenate([np.geomspace(1e-12, 0.5, 200), np.linspace(0, 1, 501)]))


def mp_tpr_gaussian(mu: float, a: float) -> float:
    with mp.workdps(40):
        return float(mp.ncdf(-mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a)) + mu))


def mp_adv_gaussian(mu: float) -> float:
    with mp.workdps(40):
        return float(mp.erf(mp.mpf(mu) / (2 * mp.sqrt(2))))


# ------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("a", [1e-10, 1e-6, 1e-3, 0.05, 0.5])
def test_tpr_at_fpr_gaussian_is_the_closed_form_never_below(mu, a):
    exact = mp_tpr_gaussian(mu, a)
    got = risk.tpr_at_fpr(gdp.G_mu(mu), a)
    assert got >= exact
    assert got <= exact * (1 + 1e-11)


@pytest.mark.parametrize("mu", [0.01, 0.5, 1.0, 3.0, 10.0])
def test_advantage_gaussian_is_two_phi_half_mu_minus_one(mu):
    exact = mp_adv_gaussian(mu)
    got = risk.advantage(gdp.G_mu(mu))
    assert got >= exact * (1 - 1e-15)  # the profile is an upper bound up to its rounding
    assert got == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("eps, delta", [(0.1, 0.0), (1.0, 1e-5), (3.0, 0.01)])
def test_closed_forms_of_f_eps_delta(eps, delta):
    f = gdp.f_eps_delta(eps, delta)
    exact = np.minimum(1.0, np.minimum(delta + math.exp(eps) * ALPHA,
                                       1 - math.exp(-eps) * (1 - delta - ALPHA)))
    np.testing.assert_allclose(risk.tpr_at_fpr(f, ALPHA), exact, rtol=1e-14, atol=1e-16)
    assert risk.advantage(f) == pytest.approx(delta + (1 - delta) * math.tanh(eps / 2),
                                              rel=1e-13)


def test_advantage_of_laplace():
    for mu in (0.2, 1.0, 4.0):
        assert risk.advantage(gdp.laplace(mu)) == pytest.approx(-math.expm1(-mu / 2), rel=1e-12)


def test_attack_success_is_the_bayes_risk_of_the_curve():
    f = gdp.G_mu(1.2)
    assert risk.attack_success(f) == pytest.approx(0.5 + risk.advantage(f) / 2, rel=1e-14)
    a = np.unique(np.concatenate([np.linspace(0, 1, 200001), np.geomspace(1e-14, 0.1, 200001)]))
    for pi in (0.01, 0.2, 0.5, 0.9):
        brute = 1 - np.min((1 - pi) * a + pi * f(a))  # a grid: a lower bound on the truth
        got = risk.attack_success(f, pi)
        assert got >= brute - 1e-15
        assert got == pytest.approx(brute, abs=1e-9)
    assert risk.attack_success(f, 0.0) == 1.0 and risk.attack_success(f, 1.0) == 1.0
    # the identity's profile is rounded up (issue 11): the truth or a few ulps above it
    got = risk.attack_success(gdp.identity(), [0.1, 0.5, 0.7])
    assert np.all(got >= [0.9, 0.5, 0.7]) and np.all(got <= np.array([0.9, 0.5, 0.7]) + 4e-16)


def test_reconstruction_reidentification_attribute_inference():
    f = gdp.G_mu(2.0)
    assert risk.reidentification_success(f, 1000) == risk.reconstruction_success(f, 1e-3)
    assert risk.attribute_inference_success(f, [0.5, 0.3, 0.2]) == \
        risk.reconstruction_success(f, 0.5)
    assert risk.reconstruction_success(f, 1e-3) >= mp_tpr_gaussian(2.0, 1e-3)
    assert risk.reconstruction_success(gdp.identity(), 0.25) == 0.25  # the baseline
    with pytest.raises(ValueError, match="probability vector"):
        risk.attribute_inference_success(f, [0.5, 0.6])
    with pytest.raises(ValueError, match="`candidates` must be an integer >= 1"):
        risk.reidentification_success(f, 0)


def test_an_asymmetric_curve_is_symmetrised():
    f = gdp.from_curve([0, 0.1, 1], [0.5, 0.2, 0])  # not symmetric
    fs = f.symmetrize()
    np.testing.assert_allclose(risk.tpr_at_fpr(f, ALPHA), 1 - fs(ALPHA), atol=1e-15)
    assert np.all(risk.tpr_at_fpr(f, ALPHA) <= 1 - f(ALPHA) + 1e-15)


# ------------------------------------------------------- numeric curves: the direction
def test_one_dpsgd_step_against_the_subsampled_gaussian_in_closed_form():
    sigma, p = 0.8, 0.05
    h = gdp.dpsgd(sigma=sigma, p=p, steps=1)
    mu = 1 / sigma
    exact_adv = p * mp_adv_gaussian(mu)  # TV((1-p)N0 + pN_mu, N0) = p TV(N_mu, N0)
    assert risk.advantage(h) >= exact_adv
    assert risk.advantage(h) == pytest.approx(exact_adv, rel=1e-4)
    a = np.array([1e-6, 1e-4, 1e-2, 0.2])
    one_order = (1 - p) * a + p * np.array([mp_tpr_gaussian(mu, x) for x in a])
    got = risk.tpr_at_fpr(h, a)
    assert np.all(got >= one_order)  # the remove order alone achieves it
    assert np.all(got <= one_order * 1.05 + 1e-6)


def test_the_sound_side_is_above_the_optimistic_side():
    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=500)
    assert risk.advantage(h) >= risk.advantage(h.upper)
    assert np.all(risk.tpr_at_fpr(h, ALPHA) >= risk.tpr_at_fpr(h.upper, ALPHA))
    assert risk.attack_success(h, 0.3) >= risk.attack_success(h.upper, 0.3)


# ---------------------------------------------------------------- Gaussian fits
def test_certified_mu():
    assert risk.certified_mu(gdp.G_mu(0.7)) == 0.7
    assert risk.certified_mu(gdp.identity()) == 0.0
    assert risk.certified_mu(gdp.f_eps_delta(1.0, 1e-9)) == math.inf
    eps = 1.0
    mu_rr = -2 * float(gdp.families.gaussian.special.ndtri(1 / (1 + math.e)))
    got = risk.certified_mu(gdp.f_eps_delta(eps))
    assert got >= mu_rr and got == pytest.approx(mu_rr, rel=1e-13)
    for f in (gdp.f_eps_delta(eps), gdp.laplace(1.0), gdp.from_curve([0, 0.2, 1], [1, 0.3, 0])):
        m = risk.certified_mu(f)
        assert np.all(gdp.G_mu(m)(ALPHA) <= f(ALPHA))  # the certificate holds
        assert np.any(gdp.G_mu(m * 0.99)(ALPHA) > f(ALPHA))  # and is nearly the best
    assert risk.certified_mu(gdp.from_curve([0, 0.5, 1], [1, 0.0, 0])) == math.inf


def test_gaussian_fit():
    fit = risk.gaussian_fit(gdp.G_mu(1.3))
    assert fit.mu == pytest.approx(1.3, rel=1e-7) and fit.distance < 1e-8
    assert fit.mu_certified == 1.3
    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=1000)
    fit = risk.gaussian_fit(h)
    clt = float(gdp.noisy_sgd_mu(1.0, 0.01, 1000))
    assert fit.mu == pytest.approx(clt, rel=0.02) and fit.distance < 0.01
    g = gdp.G_mu(fit.mu)
    assert np.max(np.abs(h(ALPHA) - g(ALPHA))) <= fit.distance + 1e-9
    # nothing closer at the neighbours
    for m in (fit.mu * 0.98, fit.mu * 1.02):
        assert np.max(np.abs(h(ALPHA) - gdp.G_mu(m)(ALPHA))) >= fit.distance - 1e-9


# -------------------------------------------------------------------- calibration
def test_gaussian_calibration_closed_form_and_its_direction():
    c = risk.calibrate_gaussian_risk(tpr=0.05, fpr=0.01, sensitivity=2.0, k=4)
    mu = 4.0 / c.sigma
    assert risk.tpr_at_fpr(gdp.G_mu(mu), 0.01) <= 0.05 == c.target
    assert risk.tpr_at_fpr(gdp.G_mu(4.0 / c.last_failing), 0.01) > 0.05
    assert c.sigma == pytest.approx(4.0 / (float(gdp.families.gaussian.special.ndtri(0.05))
                                           - float(gdp.families.gaussian.special.ndtri(0.01))),
                                    rel=1e-13)
    c = risk.calibrate_gaussian_risk(advantage=0.3)
    assert risk.advantage(gdp.G_mu(1 / c.sigma)) <= 0.3 < risk.advantage(
        gdp.G_mu(1 / c.last_failing))


def test_generic_calibration_agrees_with_the_closed_form():
    exact = risk.calibrate_gaussian_risk(tpr=0.2, fpr=0.05, k=9).sigma
    c = risk.calibrate_risk(lambda s: gdp.G_mu(1 / s) ** 9, tpr=0.2, fpr=0.05, rtol=1e-6)
    assert c.last_failing < exact <= c.sigma <= exact * (1 + 1e-6)


def test_dpsgd_calibration_is_checked_on_the_sound_side():
    c = risk.calibrate_dpsgd_risk(p=0.02, steps=200, advantage=0.15)
    assert c.achieved <= 0.15 and c.bounds[0] <= c.bounds[1] == c.achieved
    assert risk.advantage(gdp.dpsgd(sigma=c.sigma, p=0.02, steps=200)) <= 0.15
    assert risk.advantage(gdp.dpsgd(sigma=c.last_failing, p=0.02, steps=200)) > 0.15
    assert c.sigma / c.last_failing <= 1.001


def test_max_steps_is_the_last_step_that_meets_the_target():
    c = risk.max_steps(sigma=1.5, p=0.02, tpr=0.01, fpr=1e-3)
    assert risk.tpr_at_fpr(gdp.dpsgd(sigma=1.5, p=0.02, steps=c.steps), 1e-3) <= 0.01
    assert risk.tpr_at_fpr(gdp.dpsgd(sigma=1.5, p=0.02, steps=c.steps + 1), 1e-3) > 0.01
    assert c.last_failing == c.steps + 1
    assert risk.max_steps(sigma=50.0, p=0.01, advantage=0.5, steps_max=64).steps == 64
    with pytest.raises(ValueError, match="one step"):
        risk.max_steps(sigma=0.1, p=1.0, advantage=0.01)


def test_calibration_rejects_bad_targets():
    with pytest.raises(ValueError, match="`tpr` must exceed `fpr`"):
        risk.calibrate_gaussian_risk(tpr=0.01, fpr=0.01)
    with pytest.raises(TypeError, match="not both"):
        risk.calibrate_gaussian_risk(tpr=0.1, fpr=0.01, advantage=0.1)
    with pytest.raises(TypeError, match="give a target"):
        risk.calibrate_gaussian_risk(tpr=0.1)
    with pytest.raises(ValueError, match="`advantage` must be a number in"):
        risk.calibrate_gaussian_risk(advantage=1.0)
    with pytest.raises(TypeError, match="`make` must be callable"):
        risk.calibrate_risk(3.0, advantage=0.1)
    with pytest.raises(TypeError, match="`f` must be a TradeOff"):
        risk.advantage(0.5)
