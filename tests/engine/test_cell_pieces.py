"""Cells evaluated in pieces (gdp.engine.lattice._excess): the same values, bit for bit, as
over the whole lattice, for every law that says it is computed cell by cell; the others
are evaluated whole."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import gdp
from gdp.engine import lattice, laws
from gdp.sampling import subsampling


def _lattice_edges(n: int, h: float, off: float) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(-n // 7, n - n // 7, dtype=float) * h + off
    return np.concatenate([[-np.inf], t, [np.inf]]), np.concatenate([[t[0]], t])


LAWS = {
    "gaussian": laws.GaussianLaw(1.3),
    "laplace": laws.LaplaceLaw(0.8),
    "subsampled": subsampling.SubsampledLaw(laws.GaussianLaw(1.0 / 0.73), 1.1e-6),
    "inverse of subsampled": laws.InverseLaw(
        subsampling.SubsampledLaw(laws.GaussianLaw(2.0), 0.01)),
}


@pytest.mark.parametrize("name", sorted(LAWS))
@pytest.mark.parametrize("narrow", [False, True])
def test_pieces_are_the_whole_bit_for_bit(name, narrow):
    law = LAWS[name]
    assert law._cellwise()
    n = 3 * lattice._PIECE + 1234          # (pieces of unequal length)
    h = 3e-5 if name != "subsampled" else 2.3e-7
    edges, refs = _lattice_edges(n, h, 0.37 * h)
    with laws.narrow_cells() if narrow else contextlib.nullcontext():
        whole = law.excess(edges, refs)
        pieces = lattice._excess(law, edges, refs)
    assert len(pieces) == len(whole) == 6
    for a, b in zip(whole, pieces, strict=True):
        assert a.shape == b.shape == (n + 1,)
        np.testing.assert_array_equal(a, b)


def test_laws_not_known_cell_by_cell_are_evaluated_whole():
    stacked = laws.GaussianLaw._stack([laws.GaussianLaw(1.0), laws.GaussianLaw(2.0)],
                                      np.zeros(8, dtype=np.int64))
    generic = laws.law_of(gdp.from_callable(lambda a: gdp.G_mu(0.5)(a)))
    assert not stacked._cellwise()
    assert not generic._cellwise()
    assert not subsampling.SubsampledLaw(generic, 0.1)._cellwise()



class _WithUnboundedCells(laws.Law):
    """A law whose cells at a few losses (both signs) have no finite error bound: the
    sound lattice charges them in full (to the extremes above a loss of 0, at their end
    points below)."""

    def __init__(self, base: laws.Law, bad: tuple[float, ...]):
        self.base, self.bad = base, bad
        self.q_inf, self.p_ninf = base.q_inf, base.p_ninf

    def _cellwise(self):
        return True

    def atoms(self):
        return self.base.atoms()

    def cells(self, edges):
        return self.base.cells(edges)

    def excess(self, edges, refs):
        P, Q, EP, EQ, X, EX = self.base.excess(edges, refs)
        EX = EX.copy()
        for b in self.bad:
            EX[(edges[:-1] < b) & (b <= edges[1:])] = np.inf
        return P, Q, EP, EQ, X, EX


@pytest.mark.parametrize("name,h,ka,bad,below", [
    # cells without a finite bound below 0 in two pieces and above 0 in two others
    ("gaussian", 3e-5, -(lattice._PIECE + 2000), (100, lattice._PIECE + 500,
                                                   lattice._PIECE + 3000, 3 * lattice._PIECE), 2),
    # the subsampled law's support starts at log(1 - p), five steps below 0
    ("subsampled", 2.3e-7, -6, (3, lattice._PIECE + 5, 2 * lattice._PIECE + 9), 1)])
def test_sound_lattice_in_pieces_is_the_whole_bit_for_bit(name, h, ka, bad, below,
                                                          monkeypatch):
    # the sound lattice takes its cells piece by piece (no array of all the cells' masses):
    # the same masses and charges as from one piece, with cells without a finite bound in
    # several pieces, on both sides of a loss of 0
    n = 3 * lattice._PIECE + 1234
    t = (ka + np.array(bad)) * h
    law = _WithUnboundedCells(LAWS[name], tuple(float(x) + 0.5 * h for x in t))
    pieces = lattice._disc_pess(law, h, ka, ka + n - 1, 0.0)
    monkeypatch.setattr(lattice, "_PIECE", 10 * n)
    whole = lattice._disc_pess(law, h, ka, ka + n - 1, 0.0)
    np.testing.assert_array_equal(pieces.q, whole.q)
    np.testing.assert_array_equal(pieces.eidx, whole.eidx)
    np.testing.assert_array_equal(pieces.eabs, whole.eabs)
    assert (pieces.q_inf, pieces.p_ninf) == (whole.q_inf, whole.p_ninf)
    # ... and as from the whole lattice's cells at once, split and charged directly
    tt = np.arange(ka, ka + n, dtype=float) * h
    P, Q, EP, EQ, X, EX = law.excess(np.concatenate([[-np.inf], tt, [np.inf]]),
                                     np.concatenate([[tt[0]], tt]))
    a, b = lattice._split_bounds(Q[1:n], EQ[1:n], X[1:n], EX[1:n], h)
    k = np.flatnonzero(~np.isfinite(EX[1:n]))
    a[k], b[k] = 0.0, 0.0
    low, high = lattice._end_points(Q[0], EQ[0], Q[n], EQ[n], X[n], EX[n])
    ref = np.zeros(n)
    ref[0] += low
    ref[-1] += high
    ref[:-1] += a
    ref[1:] += b
    np.testing.assert_array_equal(pieces.q, ref)
    neg = k[tt[k] < 0.0]
    np.testing.assert_array_equal(pieces.eidx, np.sort(np.concatenate([neg, neg + 1])))
    # (each cell below 0 charged at its two end points, those above sent to +inf)
    assert pieces.eidx.size == 2 * below
    assert np.all(pieces.eabs > 0)
    plain = lattice._disc_pess(LAWS[name], h, ka, ka + n - 1, 0.0)
    assert pieces.q_inf > plain.q_inf


@pytest.mark.parametrize("name", ["gaussian", "subsampled"])
def test_other_sides_lattice_in_pieces_is_the_whole_bit_for_bit(name, monkeypatch):
    # the other side's lattice copies each piece's cells into its arrays at once
    h = 3e-5 if name == "gaussian" else 2.3e-7
    n = 3 * lattice._PIECE + 1234
    ka = -n // 7 if name == "gaussian" else -6
    pieces = lattice._disc_opt(LAWS[name], h, ka, ka + n - 1, 0.37 * h)
    monkeypatch.setattr(lattice, "_PIECE", 10 * n)
    whole = lattice._disc_opt(LAWS[name], h, ka, ka + n - 1, 0.37 * h)
    np.testing.assert_array_equal(pieces.q, whole.q)
    assert (pieces.q_inf, pieces.p_ninf, pieces.rel, pieces.shift) == \
        (whole.q_inf, whole.p_ninf, whole.rel, whole.shift)
