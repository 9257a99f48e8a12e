"""Tests of gdp.accounting.calibrate: the smallest noise that meets a privacy target."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import gdp
from gdp.accounting.calibrate import _FlooredGaussian

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import dp_accounting


# ---------------------------------------------------------------------------
# the Gaussian mechanism (closed forms)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("eps,delta,k", [(1.0, 1e-5, 1), (0.1, 1e-10, 1), (3.0, 1e-6, 50)])
def test_gaussian_eps_delta_meets_target_and_is_tight(eps, delta, k):
    c = gdp.calibrate_gaussian(eps=eps, delta=delta, sensitivity=2.0, k=k)
    assert_allclose(c.sigma, math.sqrt(k) * gdp.sigma_from_eps_delta(2.0, eps, delta),
                    rtol=1e-14)
    # sound: the k-fold mechanism G_{sqrt(k) 2/sigma} really is (eps, delta)-DP
    mu = math.sqrt(k) * 2.0 / c.sigma
    assert gdp.delta_from_mu(mu, eps) <= delta * (1 + 1e-12)
    assert c.achieved <= eps
    # not much larger than needed: 1% less noise misses the target
    assert gdp.eps_from_mu(math.sqrt(k) * 2.0 / (0.99 * c.sigma), delta) > eps
    assert (c.criterion, c.kind, c.method) == ("epsilon", "bound", "exact")


def test_gaussian_mu_and_tradeoff_targets():
    c = gdp.calibrate_gaussian(mu=0.5, sensitivity=2.0, k=4)
    assert c.sigma == 8.0 and c.achieved == 0.5
    # dominating f_{1, 1e-5} with a symmetric G_mu is exactly (1, 1e-5)-DP
    t = gdp.calibrate_gaussian(tradeoff=gdp.f_eps_delta(1.0, 1e-5))
    ref = gdp.sigma_from_eps_delta(1.0, 1.0, 1e-5)
    assert gdp.G_mu(1.0 / t.sigma).dominates(gdp.f_eps_delta(1.0, 1e-5))
    assert not gdp.G_mu(1.0 / (0.99 * t.sigma)).dominates(gdp.f_eps_delta(1.0, 1e-5))
    assert_allclose(t.sigma, ref, rtol=1e-5)
    assert t.achieved is None and t.criterion == "tradeoff"


def test_gaussian_errors():
    with pytest.raises(TypeError, match=r"give exactly one target: `eps` \(with `delta`\), "
                                        r"`mu` or `tradeoff`; got none"):
        gdp.calibrate_gaussian()
    with pytest.raises(TypeError, match=r"give exactly one target: .*; got \['eps', 'mu'\]"):
        gdp.calibrate_gaussian(eps=1.0, delta=1e-5, mu=1.0)
    with pytest.raises(TypeError, match=r"`delta` is required with an `eps` target"):
        gdp.calibrate_gaussian(eps=1.0)
    with pytest.raises(ValueError, match=r"`delta` must be positive for Gaussian noise: every "
                                         r"finite sigma has delta\(eps\) > 0 for all eps; got "
                                         r"delta=0.0"):
        gdp.calibrate_gaussian(eps=1.0, delta=0.0)
    with pytest.raises(ValueError, match=r"`mu` must be a positive finite number; got mu=0.0"):
        gdp.calibrate_gaussian(mu=0.0)
    with pytest.raises(ValueError, match=r"the target `tradeoff` is the identity"):
        gdp.calibrate_gaussian(tradeoff=gdp.identity())
    ident = gdp.from_callable(lambda a: 1 - a)
    with pytest.raises(ValueError, match=r"the target `tradeoff` reaches the identity 1 - alpha "
                                         r"at alpha=0.0005 \(so it is the identity\)"):
        gdp.calibrate_gaussian(tradeoff=ident)
    with pytest.raises(ValueError, match=r"`eps` must be positive for the Gaussian mechanism"):
        gdp.calibrate_gaussian(eps=0.0, delta=1e-5)


# ---------------------------------------------------------------------------
# the generic search
# ---------------------------------------------------------------------------
def test_calibrate_sigma_generic_is_sound_tight_and_monotone():
    def make(s):
        return gdp.G_mu(1.0 / s) ** 10

    sigmas = []
    for target in [4.0, 2.0, 1.0, 0.5]:
        c = gdp.calibrate_sigma(make, eps=target, delta=1e-6, rtol=1e-4)
        exact = math.sqrt(10) * gdp.sigma_from_eps_delta(1.0, target, 1e-6)
        assert c.sigma_lower < exact * (1 + 1e-12)
        assert c.sigma <= exact * (1 + 1e-4) * (1 + 1e-12)
        assert make(c.sigma).epsilon(1e-6) <= target  # verified on the sound side
        assert make(0.99 * c.sigma).epsilon(1e-6) > target
        sigmas.append(c.sigma)
    assert np.all(np.diff(sigmas) > 0)  # stricter target, more noise


def test_calibrate_sigma_mu_by_dominance():
    c = gdp.calibrate_sigma(lambda s: gdp.G_mu(2.0 / s), mu=0.5, rtol=1e-6)
    assert_allclose(c.sigma, 4.0, rtol=1e-6)
    assert c.sigma >= 4.0 * (1 - 1e-12)  # G_{2/sigma} >= G_{0.5} needs sigma >= 4
    assert c.achieved == 0.5


def test_calibrate_sigma_errors_and_limits():
    with pytest.raises(TypeError, match=r"`make` must be callable \(sigma -> TradeOff\)"):
        gdp.calibrate_sigma(3.0, mu=1.0)
    with pytest.raises(TypeError, match=r"`make` must return a TradeOff; got 1.0 at sigma=1.0"):
        gdp.calibrate_sigma(lambda s: 1.0, mu=1.0)
    # a mechanism whose privacy does not improve with noise: a clear error, no hang
    with pytest.raises(ValueError, match=r"the target eps=0.5 at delta=0.1 is not met even at "
                                         r"sigma=16; it cannot be reached"):
        gdp.calibrate_sigma(lambda s: gdp.f_eps_delta(1.0, 0.5), eps=0.5, delta=0.1,
                            sigma_max=16.0)
    with pytest.raises(ValueError, match=r"`rtol` must be a number in \[1e-12, 1\]; got rtol=0.0"):
        gdp.calibrate_sigma(lambda s: gdp.G_mu(1 / s), mu=1.0, rtol=0.0)
    # met everywhere: the lower search limit is returned with sigma_lower = 0
    c = gdp.calibrate_sigma(lambda s: gdp.G_mu(1e-9 / s), mu=1.0, sigma_min=1e-3)
    assert c.sigma == 1e-3 and c.sigma_lower == 0.0


class _Uncertifiable(gdp.TradeOff):
    """A curve whose epsilon cannot be computed (as the engine's memory cap would say)."""

    def _f(self, alpha):
        return 1.0 - alpha

    def epsilon(self, delta):
        raise ValueError("the lattice would need 2^30 points")


def test_calibrate_sigma_evaluation_errors_count_as_not_met():
    with pytest.raises(ValueError, match=r"not met even at sigma=4; .*; the last evaluation "
                                         r"error was at sigma=4: the lattice would need"):
        gdp.calibrate_sigma(lambda s: _Uncertifiable(), eps=1.0, delta=1e-5, sigma_max=4.0)


def test_calibration_is_frozen():
    c = gdp.calibrate_gaussian(mu=1.0)
    with pytest.raises(AttributeError):
        c.sigma = 2.0


# ---------------------------------------------------------------------------
# DP-SGD
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("p,steps,eps,delta", [(0.01, 1000, 1.0, 1e-5), (0.1, 50, 3.0, 1e-6)])
def test_dpsgd_rdp_against_dp_accounting(p, steps, eps, delta):
    c = gdp.calibrate_dpsgd(p=p, steps=steps, eps=eps, delta=delta, method="rdp")

    def theirs(sigma):
        acc = dp_accounting.rdp.RdpAccountant(orders=list(gdp.DEFAULT_ORDERS))
        event = dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma))
        acc.compose(event, steps)
        return acc.get_epsilon(delta)

    assert theirs(c.sigma) <= eps * (1 + 1e-9)  # meets the target by the reference, too
    assert theirs(0.99 * c.sigma) > eps  # and not by much noise to spare
    assert c.achieved <= eps and c.kind == "bound" and c.method == "rdp"
    assert c.sigma_lower < c.sigma <= c.sigma_lower * (1 + 1e-3) * (1 + 1e-12)


def test_dpsgd_errors():
    with pytest.raises(ValueError, match=r"`method` must be one of \('exact', 'rdp', 'clt'\); "
                                         r"got method='moments'"):
        gdp.calibrate_dpsgd(p=0.1, steps=10, eps=1.0, delta=1e-5, method="moments")
    with pytest.raises(ValueError, match=r"method='rdp' calibrates an \(eps, delta\) target "
                                         r"only; got a mu target"):
        gdp.calibrate_dpsgd(p=0.1, steps=10, mu=1.0, method="rdp")
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\]; got p=0.0"):
        gdp.calibrate_dpsgd(p=0.0, steps=10, eps=1.0, delta=1e-5, method="rdp")
    with pytest.raises(ValueError, match=r"`steps` must be an integer >= 1; got steps=0"):
        gdp.calibrate_dpsgd(p=0.1, steps=0, eps=1.0, delta=1e-5, method="rdp")
    with pytest.raises(ValueError, match=r"`delta` must be positive for Gaussian noise"):
        gdp.calibrate_dpsgd(p=0.1, steps=10, eps=1.0, delta=0.0, method="rdp")
    with pytest.raises(ValueError, match=r"method='clt' calibrates an eps or mu target only"):
        gdp.calibrate_dpsgd(p=0.1, steps=10, tradeoff=gdp.G_mu(1.0), method="clt")


def test_dpsgd_clt_mu_is_labelled_and_inverts_the_formula():
    c = gdp.calibrate_dpsgd(p=0.01, steps=10_000, mu=1.0, method="clt")
    assert c.kind == "approximation" and c.method == "clt"
    # BDLS: mu = p sqrt(T (e^{1/sigma^2} - 1))
    mu = 0.01 * math.sqrt(10_000 * math.expm1(1 / c.sigma**2))
    assert mu <= 1.0
    assert_allclose(mu, 1.0, rtol=1e-12)
    e = gdp.calibrate_dpsgd(p=0.01, steps=10_000, eps=2.0, delta=1e-5, method="clt")
    assert e.achieved <= 2.0 and e.kind == "approximation"


def test_dpsgd_exact_eps_target_sound_and_tight():
    p, steps, delta, target = 0.1, 20, 1e-5, 2.0
    c = gdp.calibrate_dpsgd(p=p, steps=steps, eps=target, delta=delta, rtol=2e-3)
    h = gdp.dpsgd(sigma=c.sigma, p=p, steps=steps)
    assert h.epsilon(delta) <= target
    assert gdp.dpsgd(sigma=0.99 * c.sigma, p=p, steps=steps).epsilon(delta) > target
    assert c.bounds is not None and c.bounds[0] <= c.achieved <= c.bounds[1] + 1e-12
    # the exact accountant needs no more noise than RDP
    r = gdp.calibrate_dpsgd(p=p, steps=steps, eps=target, delta=delta, method="rdp")
    assert c.sigma <= r.sigma * (1 + 2e-3)


def test_dpsgd_exact_mu_target_dominates():
    c = gdp.calibrate_dpsgd(p=0.1, steps=20, mu=0.5, rtol=5e-3)
    h = gdp.dpsgd(sigma=c.sigma, p=0.1, steps=20)
    # the sound numeric curve puts its truncated tails and round-off at +-inf (a jump at 0,
    # a flat zero tail): it never lies above G_mu there, so plain dominance is not proved
    # (the old absolute slack of 1e-15 hid that); what is proved is G_mu (x) f_{0, delta},
    # G_mu with just those masses moved to +-inf (mu-GDP up to the engine's floor), which
    # the calibration reports
    assert not h.dominates(gdp.G_mu(0.5))
    assert 0 < c.delta <= 1e-9 and "numeric floor" in c.notes
    assert h.dominates(_FlooredGaussian(mu=0.5, tau_q=c.delta, tau_p=1e-9))
    assert not h.dominates(_FlooredGaussian(mu=0.45, tau_q=c.delta, tau_p=1e-9))
    assert c.kind == "bound"


def test_dpsgd_rare_sampling_meets_any_eps_target_at_once():
    """Below delta = 1 - (1-p)^T the record is never seen with probability >= 1 - delta:
    eps = 0 for every sigma (coupling), answered without a search, and the engine agrees."""
    c = gdp.calibrate_dpsgd(p=1e-9, steps=100, eps=0.5, delta=1e-5)
    assert c.achieved == 0.0 and c.kind == "bound" and "1 - (1-p)^T" in c.notes
    assert gdp.dpsgd(sigma=c.sigma, p=1e-9, steps=100).epsilon(1e-5) == 0.0
    # just above the coupling bound the search runs and finds a real sigma
    c2 = gdp.calibrate_dpsgd(p=1e-4, steps=100, eps=0.5, delta=1e-5)
    assert c2.achieved > 0.0 and c2.sigma > 1e-3
