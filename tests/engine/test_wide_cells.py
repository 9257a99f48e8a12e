"""Wide cells in a rarely sampled factor's sound lattice (gdp.engine.lattice._disc_pess with
``coarse``, chosen by gdp.engine.numeric._Engine._coarse_above): the split of a cell is
exact for the profile at ε unless the cell holds the kink, so the wide cells raise the
profile only where ε reaches them, and the engine's answers move by at most the share of δ
the rule allows."""

from __future__ import annotations

import numpy as np
import pytest

import gdp
from gdp.engine import lattice, laws, numeric
from gdp.sampling import subsampling

LAW = subsampling.SubsampledLaw(laws.GaussianLaw(1.0 / 0.7), 2e-5)
H, KA, KB = 2e-4, -2, 6000          # (losses up to 1.2)
K, M = 1500, 64                     # (wide cells above the loss 0.3)


def _profile(lat: lattice._Lat, eps: np.ndarray) -> np.ndarray:
    """One factor's profile E_Q[(1 - e^{eps - L})_+] of a lattice law (its mass at +inf
    counted in full)."""
    t = (lat.k0 + np.arange(lat.q.size)) * H + lat.off
    return lat.q_inf + np.sum(lat.q[None, :] * np.maximum(
        -np.expm1(eps[:, None] - t[None, :]), 0.0), axis=1)


def test_points_below_the_wide_cells_are_the_fine_lattices_bit_for_bit():
    off = 0.3 * H
    fine = lattice._disc_pess(LAW, H, KA, KB, off)
    wide = lattice._disc_pess(LAW, H, KA, KB, off, coarse=(K, M))
    assert np.array_equal(wide.q[:K], fine.q[:K])
    pts = lattice._coarse_points(KB - KA + 1, K, M)
    between = np.setdiff1d(np.arange(K, KB - KA + 1), pts)
    assert between.size > 0 and np.all(wide.q[between] == 0.0)
    assert (wide.q_inf, wide.p_ninf, wide.shift) == (fine.q_inf, fine.p_ninf, fine.shift)


def test_wide_cells_keep_both_masses_of_the_cells():
    fine = lattice._disc_pess(LAW, H, KA, KB)
    wide = lattice._disc_pess(LAW, H, KA, KB, coarse=(K, M))
    t = (KA + np.arange(fine.q.size)) * H
    # (Q-mass and E_Q[e^{-L}] from the wide cells' first point up, the masses of their
    # cells: each split keeps both, up to its cell's error bounds, about 1e-12 of its mass)
    qw, qf = wide.q[K:].sum(), fine.q[K:].sum()
    pw, pf = (wide.q[K:] * np.exp(-t[K:])).sum(), (fine.q[K:] * np.exp(-t[K:])).sum()
    assert qf > 0 and pf > 0
    assert abs(qw - qf) <= 1e-10 * qf
    assert abs(pw - pf) <= 1e-10 * pf


def test_wide_cells_raise_the_profile_only_where_its_kink_reaches_them():
    fine = lattice._disc_pess(LAW, H, KA, KB)
    wide = lattice._disc_pess(LAW, H, KA, KB, coarse=(K, M))
    top = (KA + K) * H                                  # (the wide cells' lowest loss)
    below = np.linspace(-1e-3, top, 41)
    inside = np.linspace(top + 0.3 * H, 1.15, 97)
    fb, wb = _profile(fine, below), _profile(wide, below)
    fi, wi = _profile(fine, inside), _profile(wide, inside)
    mass = fine.q[K:].sum()
    # (exact below them, up to the cells' error bounds: about 1e-12 of their mass)
    assert np.all(np.abs(wb - fb) <= 1e-12 * fb + 1e-10 * mass)
    assert np.all(wi >= fi * (1.0 - 1e-12))             # never lower above (convexity)
    assert np.any(wi > fi * (1.0 + 1e-6))               # and raised somewhere there


def test_cells_of_a_wrong_width_break_the_split(monkeypatch):
    # (the split's factor e^w/(e^w - 1) of each cell's own width w; the one-step factor
    # for every cell sends too much Q-mass up, and E_Q[e^{-L}] of the wide cells is off)
    pts = lattice._coarse_points(KB - KA + 1, K, M)
    c = lattice._widths_c(np.diff(pts), H)
    assert c[0] == np.exp(H) / np.expm1(H)
    assert c[K] == pytest.approx(np.exp(M * H) / np.expm1(M * H), rel=1e-15)
    t = (KA + np.arange(KB - KA + 1)) * H
    fine = lattice._disc_pess(LAW, H, KA, KB)
    pf = (fine.q[K:] * np.exp(-t[K:])).sum()
    monkeypatch.setattr(lattice, "_widths_c",
                        lambda steps, h: np.full(steps.size, np.exp(h) / np.expm1(h)))
    bad = lattice._disc_pess(LAW, H, KA, KB, coarse=(K, M))
    assert abs((bad.q[K:] * np.exp(-t[K:])).sum() - pf) > 1e-3 * pf


def test_coarse_points_refuse_a_bad_layout():
    with pytest.raises(ValueError, match="0 < k < n - 1"):
        lattice._coarse_points(100, 0, 8)
    with pytest.raises(ValueError, match="m >= 2"):
        lattice._coarse_points(100, 10, 1)


CFG = dict(sigma=0.7, p=2e-5, steps=20_000)


def _spy(monkeypatch) -> list[bool]:
    used: list[bool] = []
    disc = numeric._disc_pess

    def spy(law, h, ka, kb, off=0.0, coarse=None):
        used.append(coarse is not None)
        return disc(law, h, ka, kb, off, coarse)

    monkeypatch.setattr(numeric, "_disc_pess", spy)
    return used


@pytest.mark.parametrize("kind, x", [("eps", 1e-6), ("delta", 0.033)])
def test_wide_cells_move_answers_by_at_most_the_share_the_rule_allows(monkeypatch, kind, x):
    used = _spy(monkeypatch)
    c = gdp.dpsgd(**CFG)
    wide = c.epsilon(x) if kind == "eps" else c.delta(x)
    assert any(used)                              # (wide cells were taken)
    monkeypatch.setattr(numeric, "_COARSE_STEPS", 1)
    used.clear()
    f = gdp.dpsgd(**CFG)
    fine = f.epsilon(x) if kind == "eps" else f.delta(x)
    assert not any(used)
    # (the same frames up to the wide cells: δ within 1e-6 of itself, ε within less)
    assert wide == pytest.approx(fine, rel=2e-6)


def test_an_answer_does_not_depend_on_the_questions_asked_before():
    alone = gdp.dpsgd(**CFG).delta(0.033)
    c = gdp.dpsgd(**CFG)
    c.epsilon(1e-6)
    c.delta(0.05)
    assert c.delta(0.033) == alone
    eps_alone = gdp.dpsgd(**CFG).epsilon(3e-7)
    c.delta(0.02)
    assert c.epsilon(3e-7) == eps_alone


def test_wide_cells_refuse_a_law_with_atoms():
    e = np.e
    law = laws.AtomicLaw(np.array([-1.0, 1.0]), np.array([1 / (1 + e), e / (1 + e)]),
                         np.array([e / (1 + e), 1 / (1 + e)]))   # (randomized response)
    with pytest.raises(ValueError, match="without atoms"):
        lattice._disc_pess(law, 0.01, -5, 500, coarse=(100, 8))


@pytest.mark.parametrize("kind, x", [("eps", 1e-6), ("eps", 1e-12), ("delta", 0.033)])
def test_answers_with_wide_cells_stay_above_the_certified_lower_end(monkeypatch, kind, x):
    # (the other side takes no wide cells: its lower end is below the truth, and a sound
    # answer slipped under the truth by more than the bracket's width would fall below it;
    # the refinement is kept from stopping for the split by jumps, which at 1e-12 now
    # answers from the first long-double frame, before any refined frame with wide cells)
    monkeypatch.setattr(numeric._Engine, "_split_takes_over", lambda self, *a: False)
    used = _spy(monkeypatch)
    c = gdp.dpsgd(**CFG)
    lo, hi = c.epsilon_bounds(x) if kind == "eps" else c.delta_bounds(x)
    assert any(used)
    assert 0.0 < lo <= hi
    assert hi == (c.epsilon(x) if kind == "eps" else c.delta(x))
