"""Tests of the one-run audit (Steinke-Nasr-Jagielski; the f-DP analysis of Mahloujifar et al.).

Validity is tested exactly where the law of the number of correct guesses is known: for
per-canary randomized response, and for per-canary Gaussian outputs guessed by a threshold,
the correct guesses are Binomial(k, q), so a claim that holds must never be refuted at a
count v with P[Bin(k, q) >= v] >= tau. Seeded simulations of the top/bottom-k auditor then
check the stated false-alarm rate, and that a mechanism with half the claimed noise is
caught.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import gdp


def smallest_refuted(f, k, m, conf=0.95):
    """The smallest refuted count (the rejections are monotone in the count)."""
    if not gdp.one_run_rejects(f, correct=k, guesses=k, canaries=m, confidence=conf):
        return None
    lo, hi = -1, k
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if gdp.one_run_rejects(f, correct=mid, guesses=k, canaries=m, confidence=conf):
            hi = mid
        else:
            lo = mid
    return hi


def smallest_binomial(k, q, tau=0.05):
    return next(v for v in range(k + 2) if special.bdtrc(v - 1, k, q) < tau)


@pytest.mark.parametrize("k, m", [(50, 50), (200, 1000), (1000, 1000)])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
def test_never_refutes_randomized_response_that_holds(k, m, eps):
    # each guess right independently with probability e^eps / (1 + e^eps): exactly eps-DP
    q = special.expit(eps)
    v = smallest_refuted(gdp.f_eps_delta(eps), k, m)
    exact = smallest_binomial(k, q)  # the smallest count refutable with false alarm < 5%
    if v is None:
        assert exact > k or special.bdtrc(k - 1, k, q) >= 0.02
        return
    assert v >= exact  # refuting below it would be a false alarm above 5% for this mechanism
    assert v <= exact + 0.03 * k + 2  # and the f-DP test loses little against the exact one


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_never_refutes_a_gaussian_claim_that_holds(mu):
    k = m = 500
    q = special.ndtr(mu / 2)  # guess by the threshold mu/2 on a N(0,1) vs N(mu,1) output
    v = smallest_refuted(gdp.G_mu(mu), k, m)
    assert v >= smallest_binomial(k, q)


def test_pure_dp_bound_below_the_binomial_one():
    # the binomial test is exact for randomized response: the f-DP one can only be weaker
    for v in (60, 70, 90, 100):
        r = gdp.audit_one_run(correct=v, guesses=100, canaries=100, delta=0.0)
        assert r.eps_lower <= r.eps_lower_pure * (1 + 1e-6)
        assert r.eps_lower >= r.eps_lower_pure - 0.05  # and nearly as strong


def simulate(mu, m, kp, km, rng):
    inc = rng.random(m) < 0.5
    scores = rng.normal(size=m) + mu * inc
    return gdp.one_run_guesses(scores, inc, k_plus=kp, k_minus=km)


def test_false_alarm_rate_and_lower_bounds_below_the_truth():
    rng = np.random.default_rng(20240)
    m, kp, km, reps, mu = 400, 40, 40, 300, 2.0
    alarms = 0
    for _ in range(reps):
        c, g = simulate(mu, m, kp, km, rng)
        alarms += gdp.one_run_rejects(gdp.G_mu(mu), correct=c, guesses=g, canaries=m)
    # at most 5% in expectation; 3 standard deviations of slack over 300 repetitions
    assert alarms / reps <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    audits = [gdp.audit_one_run(correct=c, guesses=g, canaries=m)
              for c, g in (simulate(mu, m, kp, km, rng) for _ in range(40))]
    assert np.mean([a.mu_lower > mu for a in audits]) <= 0.05
    assert np.mean([a.eps_lower > gdp.eps_from_mu(mu, 1e-5) for a in audits]) <= 0.05


def test_half_the_claimed_noise_is_caught():
    rng = np.random.default_rng(7)
    claimed = gdp.mechanisms.Gaussian(sensitivity=1.0, sigma=1.0).tradeoff  # G_1
    m, kp, km = 1000, 100, 100
    caught = [gdp.audit_one_run(correct=c, guesses=g, canaries=m, tradeoff=claimed).violation
              for c, g in (simulate(2.0, m, kp, km, rng) for _ in range(20))]
    assert np.mean(caught) >= 0.9
    honest = [gdp.audit_one_run(correct=c, guesses=g, canaries=m, tradeoff=claimed).violation
              for c, g in (simulate(1.0, m, kp, km, rng) for _ in range(20))]
    assert not any(honest)


def test_monotone_in_the_claim_and_in_the_count():
    args = dict(guesses=100, canaries=1000)
    assert gdp.one_run_rejects(gdp.G_mu(0.5), correct=90, **args)
    assert not gdp.one_run_rejects(gdp.G_mu(3.0), correct=100, **args)
    r1 = gdp.audit_one_run(correct=80, **args)
    r2 = gdp.audit_one_run(correct=95, **args)
    assert r1.mu_lower <= r2.mu_lower and r1.eps_lower <= r2.eps_lower
    assert gdp.audit_one_run(correct=50, **args).mu_lower == 0.0
    r = gdp.audit_one_run(correct=95, tradeoff=gdp.G_mu(r2.mu_lower * 0.999), **args)
    assert r.violation
    assert r2.eps_lower_gaussian == pytest.approx(gdp.eps_from_mu(r2.mu_lower, 1e-5))


def test_asymmetric_claim_is_symmetrised_and_bad_input_refused():
    f = gdp.from_curve([0, 0.1, 1], [0.5, 0.2, 0])
    assert gdp.one_run_rejects(f, correct=100, guesses=100, canaries=100) == \
        gdp.one_run_rejects(f.symmetrize(), correct=100, guesses=100, canaries=100)
    with pytest.raises(ValueError, match="`correct` must be at most `guesses`"):
        gdp.audit_one_run(correct=11, guesses=10, canaries=100)
    with pytest.raises(ValueError, match="`guesses` must be at most `canaries`"):
        gdp.audit_one_run(correct=1, guesses=200, canaries=100)
    with pytest.raises(TypeError, match="`tradeoff` must be a TradeOff"):
        gdp.audit_one_run(correct=1, guesses=2, canaries=10, tradeoff=1.0)
    with pytest.raises(ValueError, match="one entry per entry of `scores`"):
        gdp.one_run_guesses([1.0, 2.0], [True], k_plus=1)
    assert gdp.one_run_guesses([3.0, 0.1, 2.0, -1.0], [True, False, True, True],
                               k_plus=2, k_minus=1) == (2, 3)
