"""The Chernoff window's tilt search (``fourier._window``): any tilt gives a valid end, so
what is tested is that the search finds one whose end is within a thousandth of a step of
the best end over a dense scan of tilts (a search that stops early, or a limit that is
wrong, fails this), and that the limit of the rate function, which lets the search stop
or skip, is a limit from below."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gdp.engine.fourier import _KGF, _window
from gdp.engine.laws import GaussianLaw
from gdp.sampling.subsampling import SubsampledLaw

LOG_ETA = math.log(1e-30)


def _plan(sigma: float, p: float, steps: int) -> _KGF:
    law = SubsampledLaw(GaussianLaw(1.0 / sigma), p)
    u, _, q = law.plan_atoms(2048)
    return _KGF.of_atoms([(u, q, steps)])


def _mixed() -> _KGF:
    a = SubsampledLaw(GaussianLaw(1.0), 0.01).plan_atoms(2048)
    b = GaussianLaw(0.3).plan_atoms(2048)
    return _KGF.of_atoms([(a[0], a[2], 300), (b[0], b[2], 7)])


CASES = [  # (kgf, tilt, step): heavy upper tails, a lower side at the support's end, a mix
    (lambda: _plan(1.0, 1e-3, 10_000_000), 0.0, 1.7e-4),
    (lambda: _plan(1.0, 1e-3, 10_000_000), 1.46, 1.7e-4),
    (lambda: _plan(2.0, 1e-4, 100_000), 0.0, 1.5e-6),
    (lambda: _plan(1.0, 0.01, 10_000), 0.5, 2e-3),
    (lambda: _plan(0.6, 2e-5, 50_000), 3.0, 1e-5),
    (lambda: _mixed(), 0.8, 1e-3),
]


def _ends(kgf: _KGF, beta: float, sign: float, mus: np.ndarray) -> np.ndarray:
    """The window's end from each tilt ``beta + sign mu`` (as ``_window`` evaluates it)."""
    k0 = float(kgf(np.array([beta]))[0][0])
    ku = kgf.upper(beta + sign * mus)
    return sign * (ku - k0 - LOG_ETA) / mus


@pytest.mark.parametrize("case", range(len(CASES)))
def test_window_ends_are_within_a_thousandth_of_a_step_of_the_best(case):
    make, beta, h = CASES[case]
    kgf = make()
    bd = _window(kgf, beta, LOG_ETA, h)
    span = kgf.tmax - kgf.tmin
    mus = np.geomspace(1e-9 / span, 1e4 / h, 4000)
    for sign, found, clamp in ((1.0, bd.B, kgf.tmax), (-1.0, bd.A, kgf.tmin)):
        ends = _ends(kgf, beta, sign, mus)
        best = float(np.min(ends)) if sign > 0 else float(np.max(ends))
        # refine the scan's best tilt (the scan's spacing is 0.5%: the end is flat there)
        i = int(np.argmin(sign * ends))
        fine = np.geomspace(mus[max(i - 1, 0)], mus[min(i + 1, mus.size - 1)], 2001)
        fe = _ends(kgf, beta, sign, fine)
        best = min(best, float(np.min(fe))) if sign > 0 else max(best, float(np.max(fe)))
        best = min(best, clamp) if sign > 0 else max(best, clamp)
        gap = sign * (found - best)
        assert gap <= 1e-3 * h + 1e-12 * (1.0 + abs(best)), (sign, found, best, h)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_edge_rate_is_the_limit_from_below(case):
    make, beta, _ = CASES[case]
    kgf = make()
    k0 = float(kgf(np.array([beta]))[0][0])
    for sign in (1.0, -1.0):
        lim = kgf.edge_rate(beta, k0, sign)
        mus = np.geomspace(1e-3, 1e13, 400)
        K, K1, _ = kgf(beta + sign * mus)
        g = mus * sign * K1 - (K - k0)
        err = 64 * np.finfo(float).eps * (mus * np.abs(K1) + np.abs(K) + abs(k0))  # (rounding)
        assert np.all(g <= lim * (1 + 1e-12) + err)
        # the limit itself: the tilted log-mass of each factor's extreme atom
        ext = 0.0
        for i, n in enumerate(kgf.n):
            lo, hi = kgf.starts[i], (kgf.starts[i + 1] if i + 1 < kgf.starts.size
                                     else kgf.t.size)
            t, lq = kgf.t[lo:hi], kgf.lq[lo:hi]
            j = int(np.argmax(t)) if sign > 0 else int(np.argmin(t))
            ext += n * (lq[j] + beta * t[j])
        assert lim == pytest.approx(k0 - ext, rel=1e-12, abs=1e-9)


def _rare_lattice(steps: int) -> tuple[_KGF, float]:
    """The sound lattice law of a rarely sampled step (σ = 0.731, p = 1.1e-6) on a step of
    1.5e-6, its unsampled bulk on a few points, composed ``steps`` times."""
    from gdp.engine.lattice import _disc_pess

    law = SubsampledLaw(GaussianLaw(1.0 / 0.731), 1.1e-6)
    h = 1.5e-6
    lat = _disc_pess(law, h, -2, int(0.1 / h))
    return _KGF([(lat, steps)], h), h


def test_pooled_guide_keeps_the_bulk_and_its_window():
    kgf, h = _rare_lattice(1_460_000)
    guide = kgf.pooled(0.01 / 23.6)
    heavy = kgf.lq >= float(np.max(kgf.lq)) - math.log(1e3)
    assert heavy.sum() >= 2
    for t in kgf.t[heavy]:  # (each heavy atom kept, at its own loss)
        assert np.any(guide.t == t)
    assert guide.t.size < kgf.t.size / 20
    full = _window(kgf, 22.6, math.log(1e-8), h)
    approx = _window(guide, 22.6, math.log(1e-8), h)
    width = full.B - full.A
    # both ends within 2% of the window's width of the whole law's (a guide pooling the
    # bulk into one atom put the lower end at a hundredth of its distance from the mean)
    assert abs(approx.A - full.A) < 0.02 * width
    assert abs(approx.B - full.B) < 0.02 * width


def test_a_window_is_kept_only_where_the_law_itself_bounds_its_tails():
    from gdp.engine.fourier import _kept_window, _tails

    heavy = _plan(1.0, 1e-3, 10_000_000)   # its own window, and one of a lighter law
    light = _plan(1.3, 1e-3, 10_000_000)
    h, beta, log_eta = 1.7e-4, 1.46, math.log(1e-8)
    own = _window(heavy, beta, log_eta, h)
    assert _kept_window(heavy, own, beta, log_eta, h) is own
    narrow = _window(light, beta, log_eta, h)
    th, _, _, _ = _tails(heavy, beta, narrow, narrow.A, narrow.B)
    assert th > 1e3 * 1e-8                 # (the case tests something)
    got = _kept_window(heavy, narrow, beta, log_eta, h)
    assert got is not narrow
    th, tl, _, _ = _tails(heavy, beta, got, got.A, got.B)
    assert max(th, tl) <= 1.01e-8
