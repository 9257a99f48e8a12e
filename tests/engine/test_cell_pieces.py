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

