"""Tests for gdp.gaussian: G_mu, delta(eps; mu), eps(delta; mu), mu(eps, delta), sigma.

Reference values are computed here with mpmath (recipes below); cross-checks use
dp-accounting's exact Gaussian conversions. Grids are modest so the file stays fast.

mpmath recipes (``mp`` = mpmath)
--------------------------------
* δ(ε; μ) = mp.ncdf(-ε/μ + μ/2) - mp.exp(ε) mp.ncdf(-ε/μ - μ/2)   (DRS Cor. 2.13),
  evaluated with ``mp.workdps(40 + k)`` where k = log10(max(1, ε/μ + μ)/μ) + 1 digits
  cover the cancellation of the two terms, so ≥ 30 significant digits survive; log δ
  by ``mp.log``.
* G_μ(α) = mp.ncdf(z - μ) and 1 - G_μ(α) = mp.ncdf(μ - z) with
  z = Φ^{-1}(1-α) = √2 mp.erfinv(1 - 2α), at 60 digits (α is the float given).
* ε(δ; μ): the root of log δ(ε; μ) = log δ by Newton's method in mpmath from gdp's value,
  iterated until the step is below 1e-35 relative (log δ is concave in ε, so Newton
  converges to the unique root from any start).
* μ(ε, δ): the root of log δ(ε; μ) = log δ by Newton's method in mpmath
  (∂δ/∂μ = φ(ε/μ - μ/2)), same stopping rule.
"""

from __future__ import annotations

import math
import runpy
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import gdp
from gdp.core.tradeoff import Group
from gdp.families.gaussian import Gaussian

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "bench_gaussian_conversions.py"


# ---------------------------------------------------------------------------
# mpmath references
# ---------------------------------------------------------------------------
def _dps(mu: float, eps: float) -> int:
    with mp.workdps(30):
        y = abs(mp.mpf(eps) / mp.mpf(mu)) + mp.mpf(mu)
        return 40 + max(0, int(mp.log10(max(mp.mpf(1), y) / mp.mpf(mu))) + 1)


def _delta_mp(mu, eps):
    y1 = eps / mu - mu / 2
    return mp.ncdf(-y1) - mp.exp(eps) * mp.ncdf(-y1 - mu)


def log_delta_ref(mu: float, eps: float) -> mp.mpf:
    if mu == 0:
        return mp.mpf("-inf")
    with mp.workdps(_dps(mu, eps)):
        return +mp.log(_delta_mp(mp.mpf(mu), mp.mpf(eps)))


def g_ref(mu: float, alpha: float) -> tuple[mp.mpf, mp.mpf]:
    with mp.workdps(60):
        z = mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(alpha))
        return +mp.ncdf(z - mu), +mp.ncdf(mu - z)


def _log_newton(delta, slope, x: mp.mpf, t: mp.mpf) -> mp.mpf:
    """Newton's method on log delta(x) = t from x (``slope`` is d delta / dx), to 35 digits."""
    for _ in range(100):
        d = delta(x)
        step = (mp.log(d) - t) / (slope(x) / d)
        x -= step
        if abs(step) <= abs(x) * mp.mpf(10) ** -35:
            break
    return x


def eps_ref(mu: float, delta: float, start: float) -> tuple[mp.mpf, float]:
    """Root of log delta(eps; mu) = log delta, and its condition number
    kappa = delta / (eps |d delta / d eps|) (relative error of eps per relative error of
    delta)."""
    with mp.workdps(_dps(mu, start)):
        m = mp.mpf(mu)
        # d delta / d eps = -e^eps Phi(-eps/mu - mu/2)
        x = _log_newton(lambda x: _delta_mp(m, x), lambda x: -mp.exp(x) * mp.ncdf(-x / m - m / 2),
                        mp.mpf(start), mp.log(mp.mpf(delta)))
        d = _delta_mp(m, x)
        a = mp.exp(x) * mp.ncdf(-x / m - m / 2)
        return x, float(d / (a * x))


def mu_ref(eps: float, delta: float, start: float) -> tuple[mp.mpf, float]:
    with mp.workdps(_dps(start, eps)):
        e = mp.mpf(eps)
        # d delta / d mu = phi(eps/mu - mu/2)
        m = _log_newton(lambda m: _delta_mp(m, e), lambda m: mp.npdf(e / m - m / 2),
                        mp.mpf(start), mp.log(mp.mpf(delta)))
        d = _delta_mp(m, e)
        return m, float(d / (mp.npdf(e / m - m / 2) * m))


MU_GRID = [1e-8, 1e-5, 1e-3, 0.05, 0.3, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 50.0]
EPS_GRID = [0.0, 1e-10, 1e-4, 0.01, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 500.0]


# ---------------------------------------------------------------------------
# delta(eps; mu): accuracy, soundness (never too low), special values
# ---------------------------------------------------------------------------
def test_delta_matches_mpmath_on_wide_grid():
    mu, eps = np.meshgrid(MU_GRID, EPS_GRID, indexing="ij")
    mu, eps = mu.ravel(), eps.ravel()
    ours_log = gdp.log_delta_from_mu(mu, eps)
    ours = gdp.delta_from_mu(mu, eps)
    ref_log = [log_delta_ref(m, e) for m, e in zip(mu, eps, strict=True)]
    ref_logf = np.array([float(r) for r in ref_log])
    assert np.all(np.isfinite(ours_log))  # finite far below 1e-300 (down to -1.25e21 here)
    representable = ref_logf > math.log(1e-300)
    assert representable.sum() > 40 and (~representable).sum() > 40
    # relative error of delta where it is a normal float, of log delta where it underflows
    ref = np.exp(ref_logf[representable])
    assert_allclose(ours[representable], ref, rtol=1e-10, atol=0)
    assert_allclose(ours_log[~representable], ref_logf[~representable], rtol=1e-10, atol=0)
    # sound side: the returned delta is never below the exact one (compare in mpmath)
    for o, r in zip(ours_log, ref_log, strict=True):
        assert mp.mpf(float(o)) >= r
    # and it is tight: within 1e-12 relative (in delta) of the exact value
    worst = max(float(abs(mp.mpf(float(o)) - r)) / max(1.0, abs(float(r)))
                for o, r in zip(ours_log, ref_log, strict=True))
    assert worst < 1e-12


def test_delta_tail_values_from_the_issue():
    # the naive closed form returns 0 or nan here (delta underflows: compare log delta)
    for mu, eps in [(1.0, 500.0), (1e-8, 500.0), (0.5, 40.0), (3.0, 500.0)]:
        assert_allclose(gdp.log_delta_from_mu(mu, eps), float(log_delta_ref(mu, eps)),
                        rtol=1e-12)
    # mu = 40, eps = 300: delta = 1 - 5.4e-36 (y1 = -12.5), and mu = 40, eps = 1000
    for mu, eps in [(40.0, 300.0), (40.0, 1000.0), (40.0, 2000.0)]:
        assert_allclose(gdp.delta_from_mu(mu, eps), float(mp.exp(log_delta_ref(mu, eps))),
                        rtol=1e-11)
    # delta(1; 1) = Phi(-1/2) - e Phi(-3/2): a closed form in terms of ndtr
    from scipy.special import ndtr
    assert_allclose(gdp.delta_from_mu(1.0, 1.0), ndtr(-0.5) - math.e * ndtr(-1.5),
                    rtol=1e-13)


def test_delta_at_eps_zero_is_erf():
    # delta(0; mu) = Phi(mu/2) - Phi(-mu/2) = erf(mu / (2 sqrt 2))
    mu = np.array([1e-300, 1e-8, 0.1, 1.0, 3.0, 10.0])
    ref = [float(mp.erf(mp.mpf(m) / (2 * mp.sqrt(2)))) for m in mu]
    assert_allclose(gdp.delta_from_mu(mu, 0.0), ref, rtol=1e-11)


def test_delta_special_values():
    inf = math.inf
    # mu = 0 is the identity (delta = 0); mu = inf has Q[L = +inf] = 1 (delta = 1, also
    # at eps = inf); eps = inf with finite mu gives 0
    assert gdp.delta_from_mu(0.0, 0.0) == 0.0
    assert gdp.delta_from_mu(0.0, 5.0) == 0.0
    assert gdp.delta_from_mu(inf, 0.0) == 1.0
    assert gdp.delta_from_mu(inf, 1e3) == 1.0
    assert gdp.delta_from_mu(inf, inf) == 1.0
    assert gdp.delta_from_mu(3.0, inf) == 0.0
    assert gdp.log_delta_from_mu(0.0, 1.0) == -inf
    assert gdp.log_delta_from_mu(inf, 1.0) == 0.0


def test_hockey_stick_at_negative_eps_uses_symmetry():
    # one-order profile for eps < 0: delta(eps) = 1 - e^eps + e^eps delta(-eps), and
    # directly from the closed form Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
    g = gdp.G_mu(1.3)
    eps = np.array([-30.0, -3.0, -0.5, -1e-6])
    with mp.workdps(40):
        ref = [float(_delta_mp(mp.mpf(1.3), mp.mpf(e))) for e in eps]
    assert_allclose(g.hockey_stick(eps), ref, rtol=1e-13)
    assert gdp.G_mu(0.0).hockey_stick(-1.0) == pytest.approx(-math.expm1(-1.0), rel=1e-15)
    assert gdp.G_mu(math.inf).hockey_stick(-2.0) == 1.0


def test_delta_method_uses_closed_form_and_agrees_with_generic_path():
    g = gdp.G_mu(1.0)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 3.0])
    closed = g.delta(eps)
    assert_allclose(closed, gdp.delta_from_mu(1.0, eps), rtol=0, atol=0)
    # the generic numeric path (conjugate by golden-section search) on the same curve
    generic = gdp.from_callable(g, symmetric=True).delta(eps)
    assert np.all(generic >= closed * (1 - 1e-13))  # the generic path is an upper bound
    assert_allclose(generic, closed, rtol=1e-9)


# ---------------------------------------------------------------------------
# G_mu(alpha) and 1 - G_mu(alpha)
# ---------------------------------------------------------------------------
ALPHA_GRID = [1e-15, 1e-10, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.8, 0.99,
              1 - 1e-6, 1 - 1e-10, 1 - 1e-15]


@pytest.mark.parametrize("mu", [1e-8, 1e-3, 0.1, 1.0, 3.0, 10.0, 40.0, 50.0])
def test_G_mu_and_complement_match_mpmath(mu):
    g = gdp.G_mu(mu)
    a = np.array(ALPHA_GRID)
    f = g(a)
    om = g.one_minus(a)
    for i, al in enumerate(ALPHA_GRID):
        ref, ref_c = g_ref(mu, al)
        if ref > 1e-300:
            assert f[i] == pytest.approx(float(ref), rel=1e-10, abs=0)
        assert om[i] == pytest.approx(float(ref_c), rel=1e-10, abs=0)
        # sound side: the curve is never above the exact one, 1 - G never below
        assert mp.mpf(float(f[i])) <= ref
        assert mp.mpf(float(om[i])) >= ref_c


def test_G_mu_example_values_and_ends():
    from scipy.special import ndtr
    g = gdp.G_mu(1.0)
    # G_1(0.05) = Phi(Phi^{-1}(0.95) - 1) = Phi(0.6448536...)
    assert g(0.05) == pytest.approx(float(ndtr(1.6448536269514722 - 1.0)), rel=1e-12)
    assert g(0.0) == 1.0 and g(1.0) == 0.0
    assert gdp.G_mu(0.0)(0.3) == 0.7  # G_0 = Id exactly
    assert gdp.G_mu(math.inf)(0.3) == 0.0
    out = g(np.full((2, 3), 0.25))
    assert out.shape == (2, 3)
    assert isinstance(g(0.25), float)


def test_loss_law_is_neyman_pearson_consistent():
    # Q[L <= t] = f(P[L > t]) for the Neyman-Pearson tests "reject when L > t"
    g = gdp.G_mu(1.7)
    t = np.linspace(-6.0, 6.0, 25)
    a = g._loss_sf(t)
    assert_allclose(1.0 - g._loss_sf_q(t), g(a), rtol=1e-10, atol=1e-15)


# ---------------------------------------------------------------------------
# eps(delta; mu)
# ---------------------------------------------------------------------------
EPS_MU = [1e-8, 1e-5, 1e-3, 0.03, 0.3, 1.0, 3.0, 10.0, 30.0, 50.0]
EPS_DELTA = [1e-300, 1e-100, 1e-30, 1e-12, 1e-6, 1e-3, 0.1, 0.5, 0.9]


def test_eps_from_mu_matches_mpmath_and_is_sound():
    mu, d = np.meshgrid(EPS_MU, EPS_DELTA, indexing="ij")
    mu, d = mu.ravel(), d.ravel()
    eps = gdp.eps_from_mu(mu, d)
    n_pos = 0
    worst = 0.0
    for m, dd, e in zip(mu, d, eps, strict=True):
        if e == 0:
            # no eps needed: delta(0; mu) <= delta exactly
            assert log_delta_ref(m, 0.0) <= mp.log(mp.mpf(dd))
            continue
        n_pos += 1
        root, kappa = eps_ref(m, dd, e)
        # sound: the exact delta at the returned eps is <= delta
        assert log_delta_ref(m, e) <= mp.log(mp.mpf(dd))
        rel = float(abs(mp.mpf(float(e)) - root) / root)
        # 1e-10, widened only where eps is ill-conditioned (delta close to delta(0))
        assert rel <= 1e-10 + 1e-12 * kappa, (m, dd, e, float(root), kappa)
        worst = max(worst, rel / max(1.0, kappa))
    assert n_pos >= 60
    assert worst < 1e-11


def test_eps_from_mu_reaches_eps_500_and_delta_1e300():
    # mu = 10, delta = 1e-300: eps ~ 420; mu = 30: eps ~ 1560
    for mu, d in [(10.0, 1e-300), (13.0, 1e-300), (30.0, 1e-300), (1e-8, 1e-300)]:
        e = gdp.eps_from_mu(mu, d)
        root, kappa = eps_ref(mu, d, e)
        assert e == pytest.approx(float(root), rel=1e-12)
        assert gdp.delta_from_mu(mu, e) <= d
    assert 400 < gdp.eps_from_mu(10.0, 1e-300) < 500


def test_eps_from_mu_never_too_small_on_random_grid():
    # soundness checked with gdp's own (upper-bound) delta on 2e5 seeded pairs, tails
    # included; tightness: 1e-9 less eps is no longer enough where eps is well conditioned
    rng = np.random.default_rng(20240601)
    n = 200_000
    mu = 10.0 ** rng.uniform(-8, math.log10(50), n)
    logd = -(10.0 ** rng.uniform(-4, math.log10(690), n))
    d = np.where(rng.random(n) < 0.1, rng.random(n), np.exp(logd))
    eps = gdp.eps_from_mu(mu, d)
    assert np.all(np.isfinite(eps)) and np.all(eps >= 0)
    assert np.all(gdp.delta_from_mu(mu, eps) <= d)
    # condition number kappa = d log eps / d log delta, by a finite difference
    with np.errstate(divide="ignore", invalid="ignore"):
        dl = (gdp.log_delta_from_mu(mu, eps * (1 - 1e-6))
              - gdp.log_delta_from_mu(mu, eps))
        kappa = 1e-6 / dl
    pos = (eps > 1e-3) & (kappa < 1e3)
    assert pos.sum() > 40_000
    assert np.all(gdp.delta_from_mu(mu[pos], eps[pos] * (1 - 1e-9)) > d[pos])


def test_conversions_stay_sound_for_extreme_and_subnormal_inputs():
    # no nan, no negative answer, and the safe side, down to subnormal mu, eps and delta
    mus = np.array([5e-324, 1e-310, 1e-300, 1e-100, 1e-20, 1e20, 1e100, 1e300])
    ds = np.array([5e-324, 1e-320, 1e-300, 1e-100, 0.5, 1 - 2**-52])
    m, d = np.meshgrid(mus, ds)
    eps = gdp.eps_from_mu(m, d)
    assert np.all(eps >= 0) and not np.any(np.isnan(eps))
    assert np.all(gdp.delta_from_mu(m, eps) <= d)
    es = np.array([0.0, 5e-324, 1e-320, 1e-300, 1e-20, 1e20, 1e300])
    e, d = np.meshgrid(es, ds)
    mu = gdp.mu_from_eps_delta(e, d)
    assert np.all(mu >= 0) and not np.any(np.isnan(mu))
    assert np.all(gdp.delta_from_mu(mu, e) <= d)
    # mu(0, d) = 2 sqrt 2 erfinv(d) = sqrt(2 pi) d (1 + O(d^2)) for the subnormal d = 1e-320
    m0 = gdp.mu_from_eps_delta(0.0, 1e-320)
    assert 0 < mp.mpf(m0) <= mp.sqrt(2 * mp.pi) * mp.mpf(1e-320)
    assert m0 > 0.99 * math.sqrt(2 * math.pi) * 1e-320
    e0 = gdp.eps_from_mu(1e-310, 1e-320)  # exact delta is below 1e-320 there (mpmath)
    assert log_delta_ref(1e-310, e0) <= mp.log(mp.mpf(1e-320))


def test_eps_from_mu_special_values():
    inf = math.inf
    assert gdp.eps_from_mu(0.0, 0.0) == 0.0  # identity: delta(eps) = 0 for all eps
    assert gdp.eps_from_mu(0.0, 1e-5) == 0.0
    assert gdp.eps_from_mu(1.0, 0.0) == inf  # no finite eps has delta = 0
    assert gdp.eps_from_mu(1.0, 1.0) == 0.0
    assert gdp.eps_from_mu(inf, 0.5) == inf  # G_inf: delta = 1 for every eps
    assert gdp.eps_from_mu(inf, 1.0) == 0.0
    # delta >= delta(0; mu) = erf(mu / (2 sqrt 2)) needs no eps; just below needs a little
    d0 = gdp.delta_from_mu(1.0, 0.0)
    assert gdp.eps_from_mu(1.0, d0) == 0.0
    small = gdp.eps_from_mu(1.0, d0 * (1 - 1e-9))
    assert 0 < small < 1e-8
    assert gdp.delta_from_mu(1.0, small) <= d0 * (1 - 1e-9)
    assert gdp.eps_from_mu(1e300, 0.5) == inf  # eps ~ mu^2/2 overflows: inf, not nan


def test_eps_from_mu_examples_match_dp_accounting():
    # the doctest numbers, independently: dp_accounting's brentq with sigma = 1/mu
    from dp_accounting import get_epsilon_gaussian
    assert gdp.eps_from_mu(1.0, 1e-5) == pytest.approx(get_epsilon_gaussian(1.0, 1e-5),
                                                       rel=1e-10)
    assert gdp.G_mu(1.0).epsilon(1e-5) == gdp.eps_from_mu(1.0, 1e-5)


# ---------------------------------------------------------------------------
# mu(eps, delta) and sigma
# ---------------------------------------------------------------------------
MU_EPS = [0.0, 1e-8, 1e-3, 0.1, 1.0, 5.0, 20.0, 100.0, 500.0]
MU_DELTA = [1e-300, 1e-50, 1e-12, 1e-5, 0.01, 0.5, 0.99]


def test_mu_from_eps_delta_matches_mpmath_and_is_sound():
    e, d = np.meshgrid(MU_EPS, MU_DELTA, indexing="ij")
    e, d = e.ravel(), d.ravel()
    mus = gdp.mu_from_eps_delta(e, d)
    worst = 0.0
    for ee, dd, m in zip(e, d, mus, strict=True):
        assert 0 < m < math.inf
        root, kappa = mu_ref(ee, dd, m)
        assert log_delta_ref(m, ee) <= mp.log(mp.mpf(dd))  # sound: mu never too large
        rel = float(abs(mp.mpf(float(m)) - root) / root)
        assert rel <= 1e-10 + 1e-12 * kappa, (ee, dd, m, float(root), kappa)
        worst = max(worst, rel / max(1.0, kappa))
    assert worst < 1e-11


def test_mu_from_eps_delta_at_eps_zero_is_erfinv():
    # delta(0; mu) = erf(mu / (2 sqrt 2)), so mu = 2 sqrt 2 erfinv(delta)
    d = np.array([1e-300, 1e-20, 1e-3, 0.3, 0.9])
    ref = [float(2 * mp.sqrt(2) * mp.erfinv(mp.mpf(x))) for x in d]
    assert_allclose(gdp.mu_from_eps_delta(0.0, d), ref, rtol=1e-11)


def test_mu_from_eps_delta_never_too_large_on_random_grid():
    rng = np.random.default_rng(7)
    n = 50_000
    e = np.where(rng.random(n) < 0.05, 0.0, 10.0 ** rng.uniform(-8, math.log10(500), n))
    d = np.exp(-(10.0 ** rng.uniform(-4, math.log10(690), n)))
    mu = gdp.mu_from_eps_delta(e, d)
    assert np.all(np.isfinite(mu)) and np.all(mu > 0)
    assert np.all(gdp.delta_from_mu(mu, e) <= d)
    # tight: 1e-9 more mu is too much where mu is well conditioned
    ok = (d < 0.5) & (e < 100)
    assert np.all(gdp.delta_from_mu(mu[ok] * (1 + 1e-9), e[ok]) > d[ok])


def test_mu_from_eps_delta_special_values():
    inf = math.inf
    assert gdp.mu_from_eps_delta(1.0, 1.0) == inf
    assert gdp.mu_from_eps_delta(inf, 1e-5) == inf  # delta(inf; mu) = 0 for finite mu
    assert gdp.mu_from_eps_delta(inf, 0.0) == 0.0
    assert gdp.mu_from_eps_delta(1.0, 0.0) == 0.0
    assert gdp.mu_from_eps_delta(0.0, 0.0) == 0.0


def test_round_trips_between_the_three_conversions():
    mu = np.array([0.05, 0.5, 1.0, 2.0, 8.0])
    d = np.array([1e-10, 1e-6, 1e-3])[:, None]
    eps = gdp.eps_from_mu(mu, d)
    assert_allclose(gdp.mu_from_eps_delta(eps, d), np.broadcast_to(mu, eps.shape),
                    rtol=1e-10)
    assert_allclose(gdp.delta_from_mu(mu, eps), np.broadcast_to(d, eps.shape), rtol=1e-10)


def test_sigma_from_eps_delta_matches_dp_accounting_and_is_never_too_small():
    from dp_accounting import get_sigma_gaussian
    eps = np.array([0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0])
    for dd in [1e-15, 1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.5]:
        ours = gdp.sigma_from_eps_delta(1.0, eps, dd)
        theirs = np.array([get_sigma_gaussian(float(e), dd) for e in eps])
        # their brentq stops at xtol = 1e-12 on sigma
        assert_allclose(ours, theirs, rtol=1e-10, atol=2e-12)
        # sound: the mechanism with this sigma (mu = 1/sigma) is (eps, delta)-DP
        assert np.all(gdp.delta_from_mu(gdp.mu_from_sigma(1.0, ours), eps) <= dd)
    # sensitivity scales sigma; doctest value; eps = 0 is allowed (exact calibration)
    assert gdp.sigma_from_eps_delta(3.0, 1.0, 1e-5) == pytest.approx(
        3.0 * gdp.sigma_from_eps_delta(1.0, 1.0, 1e-5), rel=1e-15)
    assert gdp.sigma_from_eps_delta(1.0, 0.0, 0.5) == pytest.approx(
        1.0 / float(2 * mp.sqrt(2) * mp.erfinv(0.5)), rel=1e-11)
    assert gdp.sigma_from_eps_delta(1.0, math.inf, 1e-5) == 0.0
    assert gdp.sigma_from_eps_delta(1.0, 1.0, 1.0) == 0.0


def test_sigma_classical_is_looser_than_exact_and_refuses_eps_ge_1():
    eps = [0.01, 0.1, 0.5, 0.9]
    for e in eps:
        for d in [1e-10, 1e-5, 1e-2]:
            c = gdp.sigma_classical(1.0, e, d)
            assert c == pytest.approx(math.sqrt(2 * math.log(1.25 / d)) / e, rel=1e-15)
            # Balle-Wang 2018: the classical sigma is valid (so never below the exact one)
            assert c >= gdp.sigma_from_eps_delta(1.0, e, d)
    msg = (r"`eps` must be < 1 for the classical Gaussian calibration \(Dwork-Roth Thm "
           r"A\.1 is invalid for eps >= 1\); got eps=1\.0\. Use sigma_from_eps_delta")
    with pytest.raises(ValueError, match=msg):
        gdp.sigma_classical(1.0, 1.0, 1e-5)
    with pytest.raises(ValueError, match=r"got eps=3\.5"):
        gdp.sigma_classical(1.0, 3.5, 1e-5)


def test_sigma_and_mu_of_the_mechanism():
    assert gdp.mu_from_sigma(2.0, 4.0) == 0.5
    assert gdp.sigma_from_mu(2.0, 0.5) == 4.0
    assert gdp.mu_from_sigma(1.0, math.inf) == 0.0
    assert gdp.sigma_from_mu(1.0, math.inf) == 0.0
    assert_allclose(gdp.mu_from_sigma(1.0, [0.5, 2.0]), [2.0, 0.5], rtol=0)


# ---------------------------------------------------------------------------
# cross-check against dp-accounting
# ---------------------------------------------------------------------------
SIGMAS = [0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0]


def test_eps_matches_dp_accounting_get_epsilon_gaussian():
    from dp_accounting import get_epsilon_gaussian
    for s in SIGMAS:
        for d in [1e-15, 1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.5]:
            ours = gdp.eps_from_mu(1.0 / s, d)
            theirs = get_epsilon_gaussian(s, d)
            # their brentq stops at xtol = 1e-12 (absolute) on eps
            assert ours == pytest.approx(theirs, rel=1e-10, abs=2e-12)


def test_delta_matches_dp_accounting_gaussian_privacy_loss():
    from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss
    eps = np.array([0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
    for s in SIGMAS:
        theirs = np.asarray(GaussianPrivacyLoss(standard_deviation=s, sensitivity=1.0)
                            .get_delta_for_epsilon(eps))
        ours = gdp.delta_from_mu(1.0 / s, eps)
        big = theirs > 1e-10  # their CDF differences lose relative accuracy below
        assert_allclose(ours[big], theirs[big], rtol=1e-10)
        assert np.all(ours[~big] < 2e-10)


# ---------------------------------------------------------------------------
# broadcasting, types, errors
# ---------------------------------------------------------------------------
def test_broadcasting_and_scalar_types():
    mu = np.array([0.5, 1.0, 2.0]).reshape(1, 3, 1)
    d = np.array([1e-8, 1e-5, 1e-3, 0.1]).reshape(4, 1, 1, 1)
    e = gdp.eps_from_mu(mu, d)
    assert e.shape == (4, 1, 3, 1)
    for i in range(4):
        for j in range(3):
            assert e[i, 0, j, 0] == gdp.eps_from_mu(float(mu[0, j, 0]), float(d[i, 0, 0, 0]))
    assert gdp.delta_from_mu(mu, np.ones((2, 1, 1))).shape == (2, 3, 1)
    assert gdp.mu_from_eps_delta(np.ones((2, 1)), [1e-5, 1e-6, 1e-7]).shape == (2, 3)
    for fn, args in [(gdp.eps_from_mu, (1.0, 1e-5)), (gdp.delta_from_mu, (1.0, 1.0)),
                     (gdp.log_delta_from_mu, (1.0, 1.0)), (gdp.mu_from_eps_delta, (1.0, 1e-5)),
                     (gdp.sigma_from_eps_delta, (1.0, 1.0, 1e-5)),
                     (gdp.eps_from_mu, (np.float32(1.0), np.array(1e-5))),
                     (gdp.delta_from_mu, (1, 2))]:
        assert type(fn(*args)) is float
    assert gdp.eps_from_mu(np.empty((0, 2)), 0.1).shape == (0, 2)
    # lists are accepted; ints are fine
    assert_allclose(gdp.delta_from_mu([1, 2], 1), [gdp.delta_from_mu(1.0, 1.0),
                                                  gdp.delta_from_mu(2.0, 1.0)], rtol=0)


def test_large_arrays_are_processed_in_blocks_consistently():
    rng = np.random.default_rng(3)
    mu = 10.0 ** rng.uniform(-2, 1, 40_000)
    d = 10.0 ** rng.uniform(-12, -1, 40_000)
    whole = gdp.eps_from_mu(mu, d)
    parts = np.concatenate([gdp.eps_from_mu(mu[i:i + 777], d[i:i + 777])
                            for i in range(0, mu.size, 777)])
    assert_allclose(whole, parts, rtol=1e-13)


@pytest.mark.parametrize(
    ("call", "exc", "msg"),
    [
        (lambda: gdp.delta_from_mu(-1.0, 1.0), ValueError,
         r"^`mu` must be a non-negative number \(inf allowed\); got mu=-1\.0$"),
        (lambda: gdp.delta_from_mu(1.0, float("nan")), ValueError,
         r"^`eps` must be a non-negative number \(inf allowed\); got eps=nan$"),
        (lambda: gdp.delta_from_mu([1.0, -2.0], 1.0), ValueError,
         r"^`mu` must be a non-negative number \(inf allowed\) \(every entry\); got mu=-2\.0$"),
        (lambda: gdp.log_delta_from_mu(1.0, -0.5), ValueError,
         r"^`eps` must be a non-negative number \(inf allowed\); got eps=-0\.5$"),
        (lambda: gdp.eps_from_mu(1.0, 1.5), ValueError,
         r"^`delta` must be a number in \[0, 1\]; got delta=1\.5$"),
        (lambda: gdp.eps_from_mu(1.0, -1e-9), ValueError,
         r"^`delta` must be a number in \[0, 1\]; got delta=-1e-09$"),
        (lambda: gdp.eps_from_mu(float("nan"), 0.1), ValueError,
         r"^`mu` must be a non-negative number \(inf allowed\); got mu=nan$"),
        (lambda: gdp.eps_from_mu("1", 0.1), TypeError,
         r"^`mu` must be a real number or array of real numbers; got mu='1'$"),
        (lambda: gdp.eps_from_mu(1.0, None), TypeError,
         r"^`delta` must be a real number or array of real numbers; got delta=None$"),
        (lambda: gdp.eps_from_mu(True, 0.1), TypeError,
         r"^`mu` must be a real number or array of real numbers; got mu=True$"),
        (lambda: gdp.eps_from_mu(1 + 1j, 0.1), TypeError,
         r"^`mu` must be a real number or array of real numbers; got mu=\(1\+1j\)$"),
        (lambda: gdp.mu_from_eps_delta(-1.0, 0.1), ValueError,
         r"^`eps` must be a non-negative number \(inf allowed\); got eps=-1\.0$"),
        (lambda: gdp.mu_from_eps_delta(1.0, 2.0), ValueError,
         r"^`delta` must be a number in \[0, 1\]; got delta=2\.0$"),
        (lambda: gdp.mu_from_eps_delta(1.0, float("inf")), ValueError,
         r"^`delta` must be a number in \[0, 1\]; got delta=inf$"),
        (lambda: gdp.sigma_from_eps_delta(1.0, 1.0, 0.0), ValueError,
         r"^`delta` must be a number in \(0, 1\]; got delta=0\.0$"),
        (lambda: gdp.sigma_from_eps_delta(-1.0, 1.0, 0.1), ValueError,
         r"^`sensitivity` must be a non-negative finite number; got sensitivity=-1\.0$"),
        (lambda: gdp.sigma_from_eps_delta(1.0, -1.0, 0.1), ValueError,
         r"^`eps` must be a non-negative number \(inf allowed\); got eps=-1\.0$"),
        (lambda: gdp.sigma_classical(1.0, 0.0, 1e-5), ValueError,
         r"^`eps` must be a positive finite number; got eps=0\.0$"),
        (lambda: gdp.sigma_classical(1.0, 0.5, 1.0), ValueError,
         r"^`delta` must be a number in \(0, 1\); got delta=1\.0$"),
        (lambda: gdp.sigma_classical(1.0, "0.5", 0.1), TypeError,
         r"^`eps` must be a real number; got eps='0\.5'$"),
        (lambda: gdp.mu_from_sigma(1.0, 0.0), ValueError,
         r"^`sigma` must be a positive number \(inf allowed\); got sigma=0\.0$"),
        (lambda: gdp.sigma_from_mu(1.0, -2.0), ValueError,
         r"^`mu` must be a positive number \(inf allowed\); got mu=-2\.0$"),
        (lambda: gdp.compose_mu(1.0, -1.0), ValueError,
         r"^`mus` must be a non-negative number \(inf allowed\); got mus=-1\.0$"),
        (lambda: gdp.group_mu(1.0, 0), ValueError, r"^`k` must be an integer >= 1; got k=0$"),
        (lambda: gdp.group_mu(1.0, 1.5), ValueError, r"^`k` must be an integer; got k=1\.5$"),
        (lambda: gdp.G_mu(-1.0), ValueError,
         r"^`mu` must be a non-negative number \(inf allowed\); got mu=-1\.0$"),
        (lambda: gdp.G_mu(float("nan")), ValueError,
         r"^`mu` must be a non-negative number \(inf allowed\); got mu=nan$"),
        (lambda: gdp.G_mu("a"), TypeError, r"^`mu` must be a real number; got mu='a'$"),
        (lambda: gdp.G_mu(1.0)(1.5), ValueError,
         r"^`alpha` must be a number in \[0, 1\]; got alpha=1\.5$"),
    ],
)
def test_errors_name_argument_rule_and_value(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# ---------------------------------------------------------------------------
# composition and group privacy
# ---------------------------------------------------------------------------
def test_compose_and_group_closed_forms():
    assert (gdp.G_mu(1) @ gdp.G_mu(2)).mu == math.sqrt(5)
    assert gdp.compose_mu(3.0, 4.0) == 5.0
    assert gdp.compose_mu(np.array([3.0, 4.0]), 12.0) == 13.0
    assert gdp.compose_mu() == 0.0
    assert gdp.compose_mu(1.0, math.inf) == math.inf
    assert gdp.compose_mu(1e200, 1e200) == pytest.approx(math.sqrt(2) * 1e200, rel=1e-15)
    assert gdp.group_mu(0.5, 3) == 1.5
    assert gdp.G_mu(0.5).group(3) == gdp.G_mu(1.5)


# ---------------------------------------------------------------------------
# properties (hypothesis)
# ---------------------------------------------------------------------------
mus = st.floats(min_value=1e-6, max_value=50.0)
epss = st.floats(min_value=0.0, max_value=500.0)


@settings(max_examples=60, deadline=None)
@given(mu=mus, e1=epss, e2=epss)
def test_delta_in_unit_interval_and_non_increasing_in_eps(mu, e1, e2):
    lo, hi = min(e1, e2), max(e1, e2)
    d_lo, d_hi = gdp.delta_from_mu(mu, [lo, hi])
    assert 0.0 <= d_hi <= 1.0 and 0.0 <= d_lo <= 1.0
    # non-increasing up to the rounding bound of the upper-bounded log delta (1e-13)
    assert d_hi <= d_lo * (1 + 1e-12)
    l_lo, l_hi = gdp.log_delta_from_mu(mu, [lo, hi])
    assert l_hi <= l_lo + 1e-12 * max(1.0, abs(l_lo))


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(min_value=1e-3, max_value=30.0), eps=st.floats(min_value=1e-3,
                                                                     max_value=300.0))
def test_eps_of_delta_of_eps_round_trip(mu, eps):
    d = gdp.delta_from_mu(mu, eps)
    assume(1e-300 < d < 0.5)
    back = gdp.eps_from_mu(mu, d)
    assert back >= eps * (1 - 1e-13)  # sound (d is an upper bound on the exact delta)
    assert back == pytest.approx(eps, rel=1e-9)
    assert gdp.mu_from_eps_delta(eps, d) == pytest.approx(mu, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(mu=st.floats(min_value=0.0, max_value=20.0))
def test_G_mu_is_a_trade_off_function(mu):
    g = gdp.G_mu(mu)
    a = np.concatenate([[0.0], np.logspace(-15, -1, 30), np.linspace(0.11, 1.0, 90)])
    f = g(a)
    assert np.all(np.diff(f) <= 0)  # non-increasing
    assert np.all(f <= 1 - a)  # below the identity
    # convex: every point lies below the chord of its neighbours two steps away (the
    # slack is rounding of f, about 1e-16)
    chord = f[:-2] + (f[2:] - f[:-2]) * (a[1:-1] - a[:-2]) / (a[2:] - a[:-2])
    assert np.all(f[1:-1] <= chord + 4e-16)
    assert np.all(g.one_minus(a) >= a)


@settings(max_examples=40, deadline=None)
@given(mu=st.floats(min_value=0.0, max_value=5.0), k=st.integers(min_value=1, max_value=6))
def test_group_k_is_G_k_mu(mu, k):
    assert gdp.G_mu(mu).group(k) == gdp.G_mu(k * mu)
    # the generic group curve 1 - (1 - f)^{o k} gives the same function
    a = np.array([1e-12, 1e-6, 0.01, 0.2, 0.5, 0.9])
    # (the generic path computes 1 - (1 - f)^{o k} by subtraction: absolute accuracy)
    assert_allclose(Group(Gaussian(mu=mu), k)(a), gdp.G_mu(k * mu)(a), rtol=1e-9, atol=1e-13)


@settings(max_examples=40, deadline=None)
@given(a=st.floats(min_value=0.0, max_value=20.0), b=st.floats(min_value=0.0, max_value=20.0))
def test_composition_is_G_of_hypot(a, b):
    h = gdp.G_mu(a) @ gdp.G_mu(b)
    assert isinstance(h, Gaussian)
    assert h.mu == pytest.approx(math.hypot(a, b), rel=1e-15)


# ---------------------------------------------------------------------------
# doctest numbers, independently
# ---------------------------------------------------------------------------
def test_docstring_numbers():
    assert round(gdp.G_mu(1.0)(0.05), 6) == 0.740489
    assert round(gdp.log_delta_from_mu(1.0, 500.0), 4) == round(
        float(log_delta_ref(1.0, 500.0)), 4)
    assert round(gdp.delta_from_mu(1.0, 1.0), 10) == round(
        float(mp.exp(log_delta_ref(1.0, 1.0))), 10)
    assert round(gdp.sigma_classical(1.0, 0.5, 1e-5), 6) == round(
        math.sqrt(2 * math.log(1.25e5)) / 0.5, 6)


# ---------------------------------------------------------------------------
# benchmark script (smoke test)
# ---------------------------------------------------------------------------
def test_benchmark_script_runs_and_agrees(capsys):
    mod = runpy.run_path(str(BENCH))
    res = mod["main"](["--n", "400", "--dpa-n", "10", "--seed", "1"])
    out = capsys.readouterr().out
    assert "brentq per value" in out and "dp_accounting" in out
    assert res["unsafe"] == 0
    assert res["maxrel_brentq"] <= 1e-9
    assert res["maxrel_dpa"] <= 1e-9


def test_benchmark_script_quick_command_line():
    proc = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "time ratio brentq / gdp" in proc.stdout


def test_subnormal_delta_is_never_below_the_truth():
    # issue 11, path 4: exp rounds a subnormal delta on a grid of 5e-324, which a relative
    # margin on log delta does not cover; mpmath at 50 digits gives 8.459107762474e-321
    import mpmath as mp

    mu, eps = 0.2717806183444822, 10.403722476439949
    with mp.workdps(50):
        m, e = mp.mpf(mu), mp.mpf(eps)
        truth = mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)
    assert gdp.G_mu(mu).delta(eps) >= truth
    assert not gdp.G_mu(mu).dominates(gdp.f_eps_delta(eps, 8.46e-321))  # 8.4584e-321 < truth


# ---------------------------------------------------------------------------
# two-sided bounds: the same methods as a numeric composition's
# ---------------------------------------------------------------------------
def test_bounds_bracket_the_exact_delta_and_epsilon():
    # each end on its side of the 40-digit truth (log δ compared, as above), the upper ends
    # the sound answers themselves
    for mu in (0.3, 1.0, 5.0, 10.0):
        eps = np.array([0.0, 0.1, 1.0, 3.0, 10.0, 40.0])
        lo, hi = Gaussian(mu=mu).delta_bounds(eps)
        assert np.array_equal(hi, Gaussian(mu=mu).delta(eps))
        for e, a, b in zip(eps, lo, hi, strict=True):
            ref = log_delta_ref(mu, float(e))
            assert b == 0.0 or mp.log(mp.mpf(float(b))) >= ref
            assert a == 0.0 or mp.log(mp.mpf(float(a))) <= ref
            assert 0.0 <= a <= b
    n = 0
    for mu in (0.3, 1.0, 5.0, 10.0):
        d = np.array([1e-2, 1e-5, 1e-10, 1e-15])
        lo, hi = Gaussian(mu=mu).epsilon_bounds(d)
        assert np.array_equal(hi, Gaussian(mu=mu).epsilon(d))
        for dd, a, b in zip(d, lo, hi, strict=True):
            if b == 0.0:
                assert a == 0.0
                continue
            n += 1
            root, _ = eps_ref(mu, float(dd), float(b))
            assert a < root <= b, (mu, dd, a, float(root), b)
            assert (b - a) <= 1e-11 * b  # a bracket of a closed form: rounding-wide
    assert n >= 12


def test_exact_gaussian_dpsgd_answers_bounds_like_the_engine():
    # p = 1 is G_{sqrt(T)/sigma} in closed form: the same two methods as for p < 1
    g = gdp.dpsgd(sigma=1.0, p=1.0, steps=100)
    assert isinstance(g, Gaussian)
    lo, hi = g.epsilon_bounds(1e-5)
    assert isinstance(lo, float) and lo <= hi == g.epsilon(1e-5)
    root, _ = eps_ref(10.0, 1e-5, hi)
    assert lo < root <= hi
    lo, hi = g.delta_bounds([0.5, 90.0])
    assert lo.shape == (2,) and np.all(lo <= hi)
    with pytest.raises(ValueError, match="eps"):
        g.delta_bounds(-1.0)
    with pytest.raises(ValueError, match="delta"):
        g.epsilon_bounds(1.5)
    # δ = 0: no finite ε; the lower end is a finite ε the profile still exceeds 0 at
    lo, hi = g.epsilon_bounds(0.0)
    assert hi == math.inf and 0.0 < lo < math.inf
