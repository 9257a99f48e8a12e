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


def test_parts_cover_the_sizes_in_order_within_the_cap():
    sizes = [5, 3, 9, 1, 1, 12, 2, 7]
    parts = lattice._parts(sizes, cap=10)
    assert parts == [(0, 2), (2, 4), (4, 5), (5, 6), (6, 8)]  # (12 alone: over the cap)
    assert [i for p in parts for i in range(*p)] == list(range(len(sizes)))
    assert lattice._parts([], cap=10) == []


def _many_subsampled(k: int, seed: int = 5) -> tuple[list, float, list, list]:
    rng = np.random.default_rng(seed)
    lws = [subsampling.SubsampledLaw(laws.GaussianLaw(1.0 / s), p)
           for s, p in zip(rng.uniform(0.8, 2.5, k), rng.uniform(0.002, 0.05, k),
                           strict=True)]
    h = 2e-3
    wins = [(-int(rng.integers(3, 9)), int(rng.integers(200, 1500))) for _ in range(k)]
    offs = [float(x) * h for x in rng.uniform(0.0, 1.0, k)]
    return lws, h, wins, offs


def test_batched_sound_lattices_by_parts_are_one_pass_bit_for_bit(monkeypatch):
    # the batched connect-the-dots of many factors, part by part: each factor's lattice is
    # that of one pass over all of them, which is that of the factor alone
    from gdp.engine import batch

    lws, h, wins, offs = _many_subsampled(40)
    monkeypatch.setattr(lattice, "_PART_POINTS", 2_000)
    assert len(lattice._parts([kb - ka + 1 for ka, kb in wins], 2_000)) > 10
    parts = batch._disc_pess_batch(lws, h, wins, offs)
    monkeypatch.setattr(batch, "_parts", lambda sizes, cap=None: [(0, len(sizes))])
    whole = batch._disc_pess_batch(lws, h, wins, offs)
    for a, b, law, (ka, kb), off in zip(parts, whole, lws, wins, offs, strict=True):
        np.testing.assert_array_equal(a.q, b.q)
        assert (a.k0, a.q_inf, a.p_ninf, a.rel, a.shift, a.off) == \
            (b.k0, b.q_inf, b.p_ninf, b.rel, b.shift, b.off)
        alone = batch._disc_pess_batch([law], h, [(ka, kb)], [off])[0]
        np.testing.assert_array_equal(a.q, alone.q)


def test_stacked_cells_by_parts_are_one_pass_bit_for_bit(monkeypatch):
    # the other side's cells of many factors, part by part, are those of one stacked law
    from gdp.engine import batch

    lws, h, wins, offs = _many_subsampled(30, seed=9)
    ns = np.array([kb - ka + 1 for ka, kb in wins], dtype=np.int64)
    kas = np.array([ka for ka, _ in wins], dtype=np.int64)
    start, tot, fid, loc, t, ne, estart, E, eseg, inner = batch._layout(
        ns, kas, np.array(offs), h, -0.5 * h)
    R = np.zeros(E.size - 1)
    R[inner[:-1]] = t
    R[estart] = t[start]
    monkeypatch.setattr(lattice, "_PART_POINTS", 3_000)
    parts = batch._stacked_excess(lws, E, R, eseg, estart, ne)
    with np.errstate(all="ignore"):
        whole = subsampling.SubsampledLaw._stack(lws, eseg).excess(E, R)
    between = (estart + ne - 1)[:-1]   # (the cells between two factors: meaningless)
    keep = np.ones(E.size - 1, dtype=bool)
    keep[between] = False
    for a, b in zip(parts, whole, strict=True):
        np.testing.assert_array_equal(a[keep], b[keep])


def test_cumulant_generating_function_by_parts_is_one_pass_bit_for_bit(monkeypatch):
    # a long list's cumulant generating function evaluated over parts of whole factors
    # (one factor longer than a part among them): K, K' and K'' at several tilts at once,
    # those of one pass, bit for bit
    from gdp.engine import fourier

    rng = np.random.default_rng(5)
    parts = []
    for i, size in enumerate([40, 700, 3, 1500, 90, 260, 11, 900]):
        t = np.sort(rng.normal(0.0, 0.5, size))
        parts.append((t, rng.random(size) * np.exp(-t * t), 1 + i % 3))
    kgf = fourier._KGF.of_atoms(parts)
    b = np.array([0.0, 0.4, 3.0, 11.0])
    monkeypatch.setattr(fourier, "_EVAL_PART", 1000)
    by_parts = kgf._eval(b, True)
    monkeypatch.setattr(fourier, "_EVAL_PART", 1 << 30)
    whole = kgf._eval(b, True)
    for a, w in zip(by_parts, whole, strict=True):
        np.testing.assert_array_equal(a, w)
    np.testing.assert_array_equal(kgf._eval(b, False)[0], whole[0])


@pytest.mark.parametrize("logs", [False, True])
def test_cumulant_generating_function_built_at_once_is_built_factor_by_factor(
        monkeypatch, logs):
    # many factors' atoms filtered and logged at once: the same arrays and support as one
    # factor at a time (factors out of order, atoms of no mass or infinite loss, a factor
    # left empty)
    from gdp.engine import fourier

    rng = np.random.default_rng(3)
    parts = []
    for i in range(60):
        k = int(rng.integers(0, 50))
        t = np.sort(rng.normal(0.0, 1.0, k)) if i % 5 else rng.normal(0.0, 1.0, k)
        q = rng.random(k)
        q[rng.random(k) < 0.2] = 0.0
        if k and i % 7 == 0:
            t[0] = np.inf
        with np.errstate(divide="ignore"):
            parts.append((t, np.log(q) if logs else q, int(rng.integers(1, 5))))
    parts.append((np.ones(3), np.full(3, -np.inf) if logs else np.zeros(3), 2))
    at_once = fourier._KGF.__new__(fourier._KGF)
    at_once._build(parts, logs)
    monkeypatch.setattr(fourier, "_BUILD_AT_ONCE", 10**9)
    one_by_one = fourier._KGF.__new__(fourier._KGF)
    one_by_one._build(parts, logs)
    for name in ("t", "lq", "starts", "n"):
        np.testing.assert_array_equal(getattr(at_once, name), getattr(one_by_one, name))
    assert (at_once.tmin, at_once.tmax, at_once.scale, at_once.empty) == \
        (one_by_one.tmin, one_by_one.tmax, one_by_one.scale, one_by_one.empty)
