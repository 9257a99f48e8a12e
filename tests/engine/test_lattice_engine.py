"""The privacy-loss lattice engine (gdp.engine): exact curves, sound discretisation, bounds.

Reference values: closed forms (G_mu composes to G_sqrt(sum mu^2), DRS Cor. 3.3; the
hockey-stick profile of G_mu, DRS Cor. 2.13; randomized response, DRS Prop. 2.5) and
brute-force Neyman-Pearson curves computed in the tests.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import gdp
from gdp import engine
from gdp.engine import curves, lattice, laws, planning

ALPHAS = np.concatenate([np.linspace(0.0, 1.0, 401), np.logspace(-12, -1, 40)])


def _rr_atoms(eps: float):
    s = 1.0 / (1.0 + math.exp(eps))
    return np.array([eps, -eps]), np.array([s, 1.0 - s]), np.array([1.0 - s, s])


# ---------------------------------------------------------------------------
# LossCurve
# ---------------------------------------------------------------------------
def test_curve_from_atoms_is_randomized_response():
    # f_{1,0}(alpha) = max(0, 1 - e alpha, e^-1 (1 - alpha)) (DRS Prop. 2.5)
    c = engine.curve_from_atoms(*_rr_atoms(1.0), symmetric=True)
    ref = np.maximum(0.0, np.maximum(1 - math.e * ALPHAS, (1 - ALPHAS) / math.e))
    assert_allclose(c(ALPHAS), ref, rtol=1e-13, atol=1e-15)
    assert isinstance(c, gdp.core.PiecewiseLinear)


def test_losscurve_profile_and_inversion_are_exact():
    c = engine.curve_from_atoms(*_rr_atoms(0.7), symmetric=True)
    eps = np.array([-2.0, -0.3, 0.0, 0.2, 0.69, 0.7, 3.0, np.inf])
    # RR profile: (1+e^eps) ... : delta(e) = (e^0.7 - e^e)/(1 + e^0.7) for 0 <= e <= 0.7
    e7 = math.exp(0.7)
    ref = np.where(eps >= 0.7, 0.0, np.where(
        eps >= -0.7, (e7 - np.exp(np.minimum(eps, 1))) / (1 + e7), 1 - np.exp(np.minimum(eps, 0))))
    assert_allclose(c.hockey_stick(eps), ref, rtol=1e-12, atol=1e-15)
    d = np.array([0.3, 0.1, 0.01, 0.0])
    eps_d = np.log(e7 - d * (1 + e7))  # solves the formula above
    got = c.epsilon(d)
    assert_allclose(got, np.minimum(eps_d, 0.7), rtol=1e-12)
    # the sound side: the answer's profile never exceeds the requested delta
    assert np.all(c.delta(got) <= d * (1 + 1e-12) + 1e-16)


def test_losscurve_inverse_reflects_graph():
    u = np.array([2.0, 0.5, -1.0])
    p = np.array([0.1, 0.3, 0.6])
    q = p * np.exp(u)
    q = q / q.sum()  # any atoms: the inverse curve is the reflection in the diagonal
    c = engine.curve_from_atoms(u, p, q)
    inv = c.inverse()
    # reflection: inv(c(a)) = a at the vertices of c
    assert_allclose(inv(c(c.alpha[1:-1])), c.alpha[1:-1], rtol=1e-12)
    assert inv.inverse()(ALPHAS) == pytest.approx(c(ALPHAS), rel=1e-12, abs=1e-15)


def test_losscurve_large_losses_keep_log_alpha():
    # P-masses e^{-t} underflow for t ~ 1000; the profile still resolves them
    t = np.array([1000.0, 990.0])
    lq = np.array([math.log(0.5), math.log(0.5)])
    la = np.logaddexp.accumulate(lq - t)
    c = curves._finish(np.concatenate([[0.0], np.exp(la)]), np.array([0.0, 0.5, 1.0]), t,
                    name="big", lalpha=np.concatenate([[-np.inf], la]))
    # delta(eps) at eps = 995: only the atom at 1000 exceeds e^eps: 0.5 (1 - e^-5)
    assert_allclose(c.hockey_stick(995.0), 0.5 * -math.expm1(-5.0), rtol=1e-12)
    assert_allclose(c.epsilon(0.5 * -math.expm1(-5.0)), 995.0, rtol=1e-12)


def test_hull_min_and_max_curves():
    pa = np.array([0.3, 0.7])
    qa = np.array([0.3 * math.e, 1 - 0.3 * math.e])
    a = engine.curve_from_atoms(np.log(qa / pa), pa, qa)
    b = a.inverse()
    hull = engine.hull_min_curves(a, b, symmetric=True)
    mx = engine.max_curves(a, b, symmetric=True)
    x = np.linspace(0, 1, 2001)
    lo = np.minimum(a(x), b(x))
    assert np.all(hull(x) <= lo + 1e-12)          # a minorant
    assert np.all(np.diff(hull(x), 2) >= -1e-9)   # convex
    assert_allclose(mx(x), np.maximum(a(x), b(x)), atol=1e-12)
    # conjugacy: hull profile = max of profiles; max-curve profile <= min of profiles
    eps = np.linspace(-1.5, 1.5, 31)
    assert_allclose(hull.hockey_stick(eps),
                    np.maximum(a.hockey_stick(eps), b.hockey_stick(eps)), atol=1e-12)
    assert np.all(mx.hockey_stick(eps) <= np.minimum(a.hockey_stick(eps),
                                                     b.hockey_stick(eps)) + 1e-12)


# ---------------------------------------------------------------------------
# discretisation of one factor
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("f", [gdp.G_mu(1.0), gdp.laplace(0.8),
                               gdp.poisson_subsample(gdp.G_mu(1.0), 0.05)])
def test_factor_discretisation_brackets_the_profile(f):
    law = engine.law_of(f)
    h = 0.02
    ka, kb = planning._factor_window(law, h, 1e-25, 1 << 20)
    lp = lattice._disc_pess(law, h, ka, kb)
    lo = lattice._disc_opt(law, h, ka, kb)
    t = (ka + np.arange(kb - ka + 1)) * h
    # no mass dropped; each lattice mass is an upper bound (the cells' error bounds stay
    # with them), a few ulps per cell above the exact split in all
    assert 1.0 - 1e-14 <= lp.q.sum() + lp.q_inf <= 1.0 + 1e-12
    # the optimistic side may drop Q-mass it cannot balance (at the support floor on a
    # coarse lattice): never more than there is
    assert 0.999 <= lo.q.sum() + lo.q_inf <= 1.0 + 1e-12
    eps = np.linspace(-1.0, 1.5, 51)
    g = np.clip(1 - np.exp(eps[:, None] - t[None, :]), 0, None)
    d_pess = g @ lp.q + lp.q_inf
    d_opt = g @ lo.q + lo.q_inf
    true = np.asarray(f.hockey_stick(eps))
    assert np.all(d_pess >= true * (1 - 1e-12) - 1e-16)   # sound (would fail if rounded down)
    assert np.all(d_opt <= true * (1 + 1e-12) + 1e-16)
    # connect-the-dots is exact at the lattice points
    on = np.isin(np.round(eps / h), np.arange(ka, kb + 1)) & (np.abs(eps / h - np.round(eps / h))
                                                              < 1e-9)
    assert_allclose(d_pess[on], true[on], rtol=1e-9, atol=1e-15)


def test_generic_factor_is_discretised_soundly():
    # a curve known only by its values: atomic laws of a lower and an upper piecewise-linear
    # bound from one evaluation, then connect-the-dots / the garbling as for any law
    g = gdp.from_callable(lambda a: np.maximum(0.0, 1.0 - a) ** 2)
    assert isinstance(engine.law_of(g), laws.GenericLaw)
    lo_law, up_law = lattice._sampled_laws(g)
    lat = lattice._disc_pess(lo_law, 0.05, -60, 14)
    opt = lattice._disc_opt(up_law, 0.05, -60, 14)
    t = (lat.k0 + np.arange(lat.q.size)) * 0.05
    eps = np.linspace(-2.0, 0.69, 40)
    g_ = np.clip(1 - np.exp(eps[:, None] - t[None, :]), 0, None)
    d = g_ @ lat.q + lat.q_inf
    d_opt = g_ @ opt.q + opt.q_inf
    # exact profile of (1-a)^2: sup_a 1 - e^eps a - (1-a)^2 = (1 - e^eps/2)^2 for e^eps < 2
    true = (1 - np.exp(eps) / 2) ** 2
    assert np.all(d >= true)               # sound: would fail if the bound slipped below
    assert np.all(d_opt <= true)           # the other side
    assert np.max(d - d_opt) < 0.01


# ---------------------------------------------------------------------------
# numeric composition
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("mu", "n"), [(1.0, 4), (0.3, 100), (0.05, 3000)])
def test_numeric_gaussian_power_matches_closed_form(mu, n):
    h = engine.compose_numeric([(gdp.G_mu(mu), n)])
    exact = gdp.G_mu(mu * math.sqrt(n))
    d = np.array([1e-3, 1e-6, 1e-10])
    e_sound = np.asarray(h.epsilon(d))
    lo, hi = h.epsilon_bounds(d)
    e_exact = np.asarray(exact.epsilon(d))
    assert np.all(e_sound >= e_exact)                      # never too low
    assert np.all(np.asarray(lo) <= e_exact)
    assert_allclose(e_sound, e_exact, rtol=2e-3)           # default rtol=1e-3 accuracy
    # the curves bracket the closed form, and the default curve is the lower one
    assert np.all(h(ALPHAS) <= exact(ALPHAS) + 1e-13)
    assert np.all(h.upper(ALPHAS) >= exact(ALPHAS) - 1e-13)
    assert np.max(h.upper(ALPHAS) - h(ALPHAS)) < 5e-3
    eps = np.array([0.0, 0.5, 2.0, 5.0])
    dl, du = h.delta_bounds(eps)
    de = np.asarray(exact.delta(eps))
    assert np.all(np.asarray(du) >= de) and np.all(np.asarray(dl) <= de)


def test_tighter_rtol_tightens_the_bracket():
    f = gdp.laplace(0.4)
    coarse = engine.compose_numeric([(f, 20)], engine.accuracy(rtol=1e-3))
    fine = engine.compose_numeric([(f, 20)], engine.accuracy(rtol=1e-5))
    w = lambda h: np.subtract(*h.epsilon_bounds(1e-6)[::-1])  # noqa: E731
    assert w(fine) < w(coarse) / 3
    lo_c, hi_c = coarse.epsilon_bounds(1e-6)
    lo_f, hi_f = fine.epsilon_bounds(1e-6)
    assert lo_c <= hi_f and lo_f <= hi_c  # both contain the truth


def test_tiny_delta_uses_the_mgf_bound_soundly():
    h = engine.compose_numeric([(gdp.G_mu(0.2), 25)])  # = G_1
    e = h.epsilon(1e-15)  # below the floating-point floor of the lattice (~1e-12)
    assert math.isfinite(e)
    assert gdp.G_mu(1.0).epsilon(1e-15) <= e <= 1.3 * gdp.G_mu(1.0).epsilon(1e-15)
    # below the mass charged to +inf by truncation (tail_mass) no finite eps is certified
    assert h.epsilon(1e-30) == math.inf
    deep = engine.compose_numeric([(gdp.G_mu(0.2), 25)], engine.accuracy(tail_mass=1e-45))
    e30 = deep.epsilon(1e-30)
    assert gdp.G_mu(1.0).epsilon(1e-30) <= e30 <= 1.3 * gdp.G_mu(1.0).epsilon(1e-30)


def test_tilted_frames_answer_below_tail_mass_as_the_accuracy_notes_say():
    # (Accuracy's notes: with the default tail_mass=1e-20, within 1e-4 of the answer at
    # tail_mass=1e-40 down to delta=1e-24, and inf from 1e-27, for sigma=1, p=0.01, T=100)
    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=100)
    deep = gdp.dpsgd(sigma=1.0, p=0.01, steps=100, tail_mass=1e-40)
    for d in (1e-12, 1e-18, 1e-24):
        assert abs(h.epsilon(d) / deep.epsilon(d) - 1.0) <= 1e-4
    assert h.epsilon(1e-26) > deep.epsilon(1e-26)  # (the mass charged counts there)
    assert h.epsilon(1e-27) == math.inf
    assert math.isfinite(deep.epsilon(1e-27))


def test_huge_losses_stay_finite_and_bracketed():
    h = engine.compose_numeric([(gdp.G_mu(40.0), 2)])  # = G_{40 sqrt 2}, losses ~ 1600
    exact = gdp.G_mu(40.0 * math.sqrt(2.0))
    lo, hi = h.epsilon_bounds(1e-6)
    assert lo <= exact.epsilon(1e-6) <= hi
    assert hi < 1.01 * exact.epsilon(1e-6)


def test_asymmetric_composition_symmetrizes_soundly():
    fp = gdp.poisson_subsample(gdp.G_mu(2.0), 0.3)
    h = engine.compose_numeric([(fp, 3)])
    assert not h.is_symmetric
    # delta() of an f-DP mechanism is the profile of max(h, h^-1) (tradeoff.py convention)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    sym = h.symmetrize()
    assert sym.is_symmetric
    d = np.asarray(h.delta(eps))
    assert_allclose(d, np.asarray(sym.delta(eps)), rtol=1e-12)
    one = np.asarray(h.hockey_stick(eps))
    inv = np.asarray(h.inverse().hockey_stick(eps))
    assert np.all(d <= np.minimum(one, inv) + 1e-12)
    lo, hi = sym.delta_bounds(eps)
    assert np.all(np.asarray(lo) <= d + 1e-15)


def test_accuracy_validation_messages():
    with pytest.raises(TypeError, match=r"unknown accuracy keyword\(s\) \['step'\]"):
        engine.accuracy(step=0.1)
    with pytest.raises(ValueError, match=r"`rtol` must be a number in \[1e-12, 0.5\]"):
        engine.accuracy(rtol=0.0)
    with pytest.raises(ValueError, match=r"`max_points` must be an integer >= 1024"):
        engine.accuracy(max_points=10)


def test_memory_cap_gives_a_clear_error():
    # the engine is lazy: the lattice is planned for each question, so the error comes with
    # the first question that needs a lattice beyond the cap
    h = engine.compose_numeric([(gdp.G_mu(0.01), 1000)], engine.accuracy(max_points=2048,
                                                                      rtol=1e-6))
    with pytest.raises(ValueError, match=r"needs (a lattice of )?\d+ points.* more than "
                                         r"max_points=2048; pass a larger"):
        h.epsilon(1e-5)
    h = engine.compose_numeric([(gdp.G_mu(0.5), 100000)], engine.accuracy(max_points=4096))
    with pytest.raises(ValueError, match=r"the composition needs a lattice of \d+ points"):
        h.epsilon(1e-5)


def test_info_reports_the_allowances():
    h = engine.compose_numeric([(gdp.laplace(0.3), 50)])
    i = h.info
    assert i.grid_step > 0 and i.n_points >= 16
    assert 0 <= i.tail_bound <= 1e-18 and 0 <= i.roundoff < 1e-9
    assert 0 <= i.rel_roundoff < 1e-9 and 0 <= i.loss_shift < 1e-9
    assert "Composition(" in repr(h)


def test_normal_cells_one_tail_pass_matches_both_tails():
    """The cells' normal masses from one pass of the tail at |z| are the differences of the
    shorter tail taken with both tails, bit for bit: cells wholly above or below 0, the
    cell straddling 0, signed zeros and infinite edges (a wrong tail at the straddling
    cell is off by about 1)."""
    from scipy import special

    eps = np.finfo(float).eps
    rng = np.random.default_rng(11)
    for k in range(60):
        z = np.sort(rng.normal(0.0, rng.uniform(0.05, 40.0), rng.integers(2, 300)))
        if k % 3 == 0:
            z = np.concatenate([[-np.inf], z, [np.inf]])
        if k % 4 == 0:
            z = np.sort(np.concatenate([z, [-0.0, 0.0]]))
        s = laws._gauss_tail(np.abs(z))                          # upper tails (z >= 0)
        c = np.where(z < 0, s, special.ndtr(np.abs(z)))          # lower tails
        up = z[:-1] >= 0
        mass = np.where(up, s[:-1] - s[1:], c[1:] - c[:-1])
        sub = np.where((s > 0) & (s < 2.3e-308), 5e-324, 0.0)
        err = 12.0 * eps * np.where(up, s[:-1] + s[1:], c[1:] + c[:-1]) \
            + 4.0 * eps * np.abs(mass) + sub[:-1] + sub[1:]
        got, got_err = laws.norm_cells(z)
        assert np.array_equal(got, np.maximum(mass, 0.0))
        assert np.array_equal(got_err, err)


def test_scratch_space_leaves_the_values_bit_for_bit():
    """The tail written over its input, and the frame's tail sums written into scratch
    space, give the same values as with fresh arrays (signs of zeros, NaN, infinities,
    entries below 1 and beyond 40 included)."""
    from gdp.engine.frames import _tail_sums

    rng = np.random.default_rng(3)
    a = np.concatenate([np.abs(rng.normal(0.0, 15.0, 5000)), rng.uniform(0.0, 1.0, 50),
                        [0.0, -0.0, 1.0, 37.6, 38.6, 40.0, 41.0, np.inf, np.nan]])
    want = laws._gauss_tail(a)
    got = laws._gauss_tail(a.copy(), overwrite=True)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    for lw in (rng.normal(-50.0, 30.0, 4000), np.concatenate([[-np.inf], rng.normal(0, 1, 99)]),
               np.linspace(-900.0, 0.0, 1000)):  # (the last: the blocked log-space route)
        (a1, r1), (a2, r2) = _tail_sums(lw), _tail_sums(lw, np.empty_like(lw))
        assert r1 == r2
        assert np.array_equal(a1[np.arange(lw.size + 1)], a2[np.arange(lw.size + 1)])


def test_gauss_tail_is_within_its_bound_where_ndtr_is_not():
    """The normal tail within 12 ulps relative (and the smallest subnormal) of 40-digit
    mpmath on [0, 39], in both directions; ``scipy.special.ndtr`` itself is hundreds of ulps
    off in the far tail (the argument's scaling by 1/sqrt 2 and erfc's e^{-x^2}), which the
    old bound of 4 ulps did not cover."""
    import mpmath as mp
    from scipy import special

    u = np.finfo(float).eps
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.uniform(0.0, 1.0, 150), rng.uniform(1.0, 12.0, 300),
                        rng.uniform(12.0, 39.0, 150), [0.0, 1.0, 37.6, 38.5, 40.0, np.inf]])
    got = laws._gauss_tail(a)
    ndtr = special.ndtr(-a)
    worst_ndtr = 0.0
    with mp.workdps(40):
        for x, g, n in zip(a.tolist(), got.tolist(), ndtr.tolist(), strict=True):
            exact = mp.ncdf(-mp.mpf(x)) if math.isfinite(x) else mp.mpf(0)
            assert abs(mp.mpf(g) - exact) <= 12 * u * exact + 5e-324
            if 0 < exact and x < 37:
                worst_ndtr = max(worst_ndtr, float(abs(mp.mpf(n) - exact) / exact))
    assert worst_ndtr > 100 * u


def test_narrow_normal_cells_are_within_their_bounds_and_far_tighter():
    """Within ``narrow_cells``, a cell on one side of 0 whose tails nearly cancel takes its
    mass from the hazard function (trapezoid rule): against 40-digit mpmath, every cell of
    widths 1e-12 to 10 over [-38, 38] lies within its bound (masses below the smallest
    subnormal aside, taken as 0 as before), and the narrow ones' bounds are
    about a thousand times below the difference's (a cell 1e-7 wide at z = 8: 3e-14 of its
    mass against 6.6e-9). Outside the block the cells are as before, bit for bit."""
    import mpmath as mp

    rng = np.random.default_rng(2)
    gains = []
    with mp.workdps(40):
        for _ in range(200):
            z = np.sort(float(rng.uniform(-38.0, 38.0)) + float(10 ** rng.uniform(-12, 1))
                        * np.arange(int(rng.integers(2, 20))))
            plain, plain_err = laws.norm_cells(z)
            with laws.narrow_cells():
                got, err = laws.norm_cells(z)
            assert np.array_equal(laws.norm_cells(z)[0], plain)
            for i in range(z.size - 1):
                a, b = mp.mpf(z[i]), mp.mpf(z[i + 1])
                exact = mp.ncdf(b) - mp.ncdf(a) if b <= 0 else mp.ncdf(-a) - mp.ncdf(-b)
                # (a mass below the smallest subnormal may be 0, charged nothing, as
                # outside the block: norm_cells' docstring)
                assert abs(mp.mpf(got[i]) - exact) <= err[i] or exact < 2.5e-324
                if exact > 1e-300 and err[i] < plain_err[i]:
                    gains.append(plain_err[i] / err[i])
    assert gains and max(gains) > 1e4


def test_the_other_side_of_long_rare_runs_is_not_widened_by_cell_rounding():
    """sigma = 0.731, p = 1.1e-6, T = 1.46M, delta = 1.5e-4 (fresh scan): the other side
    charged each lattice atom's ratio error (about 1e-10 from the rounding of its normal
    cells) as a loss shift common to the lattice, 1.75e-4 over 1.46 million factors, and
    the bracket was 4.9% wide; with the narrow cells' masses it is under 0.5%, and the
    sound answer is unchanged."""
    h = gdp.dpsgd(sigma=0.731142567068013, p=1.0853071554951962e-06, steps=1459590)
    delta = 0.00015388540579778837
    lo, hi = (float(v) for v in h.epsilon_bounds(delta))
    assert hi == float(h.epsilon(delta))
    assert hi - lo <= 5e-3 * hi


def _random_items(k: int, size: int, seed: int, grow: int = 0) -> tuple[list, np.ndarray]:
    """``k`` tilted factors of random weights (mass 1), the i-th of ``size + grow i``
    points, and their convolution computed directly in long double."""
    from gdp.engine.fourier import _Tilted

    rng = np.random.default_rng(seed)
    items = []
    for i in range(k):
        w = rng.random(size + grow * i) ** 8
        items.append(_Tilted(i, w / w.sum(), 0.0, 0.0, 0.0))
    exact = np.ones(1, dtype=np.longdouble)
    for t in items:
        exact = np.convolve(exact, t.w.astype(np.longdouble))
    return items, exact


def _precision(extended: bool):
    from gdp.engine.fourier import _DOUBLE, _EXTENDED, _EXTENDED_GAINS

    if extended and not _EXTENDED_GAINS:
        pytest.skip("the platform's long double is the double")
    return _EXTENDED if extended else _DOUBLE


@pytest.mark.parametrize("extended", [False, True])
@pytest.mark.parametrize(("k", "size"), [(2, 300), (8, 500), (64, 40)])
def test_batched_convolution_error_is_within_its_bound(k, size, extended):
    """The error of a batched transform's linear convolution (the products of the spectra's
    magnitudes, their rounding charged), its transforms in double or in long double (the
    result then rounded to double: a relative part), against the direct convolution in
    long double is at most the bound it reports: l1 plus the relative part of the mass. In
    long double that bound is over a thousand times below the double one's: a list of
    distinct single factors, merged so, no longer keeps an l1 floor there that a frame in
    extended precision cannot lower."""
    from gdp.engine.fourier import _conv_chunk

    items, exact = _random_items(k, size, 7)
    it, conv, err = _conv_chunk(items, _precision(extended))
    assert it.k0 == sum(range(k)) and it.w.size == exact.size
    bound = err + math.expm1(conv) * float(np.sum(exact))
    assert float(np.sum(np.abs(it.w.astype(np.longdouble) - exact))) <= bound
    if extended:
        _, conv_d, err_d = _conv_chunk(items)
        assert conv_d == 0.0 and bound < 1e-3 * err_d


@pytest.mark.parametrize("extended", [False, True])
@pytest.mark.parametrize(("k", "size"), [(16, 1200), (23, 700), (40, 30)])
def test_tree_of_pairs_error_is_within_its_bound(k, size, extended):
    """A chunk convolved by pairs (direct products for small pairs, transforms for large
    ones, in double or long double): its l1 error against the direct convolution in long
    double is at most its l1 round-off plus its relative round-off times the mass, the
    bounds the composition charges; the result is that of one batched transform within
    both bounds."""
    from gdp.engine.fourier import _conv_chunk, _tree_conv

    pr = _precision(extended)
    items, exact = _random_items(k, size, 11, grow=37)
    it, conv, l1 = _tree_conv(items, pr)
    assert it.k0 == sum(range(k)) and it.w.size == exact.size
    err = float(np.sum(np.abs(it.w.astype(np.longdouble) - exact)))
    bound = l1 + math.expm1(conv) * float(np.sum(exact))
    assert 0.0 < err <= bound
    batched, conv_b, e_b = _conv_chunk(items, pr)
    assert float(np.sum(np.abs(batched.w - it.w))) <= \
        bound + e_b + math.expm1(conv_b) * float(np.sum(exact))
