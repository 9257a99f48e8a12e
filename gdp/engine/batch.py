r"""Connect-the-dots for many factors at once.

A composition of many different mechanisms (a list of Gaussians, Laplace mechanisms,
randomized responses and subsampled Gaussians of different parameters) spends its time on
per-factor numpy work on small arrays. :func:`_disc_pess_batch` discretises every factor of
one structure (same nesting of law classes, see :meth:`gdp.engine.laws.Law._stack`) in one
pass: the lattice edges of all factors are laid end to end, one stacked law evaluates every
cell, and the connect-the-dots split, the tails, the atoms and the allowances are computed
on the concatenated arrays and cut back into one :class:`~gdp.engine.lattice._Lat` per
factor. The construction and its error analysis are those of
:func:`~gdp.engine.lattice._disc_pess` (each mass an upper bound of its own; cells with no
finite error bound charged in full).

Imports: the ground floor, :mod:`gdp.engine.laws`, :mod:`gdp.engine.lattice`.
"""

from __future__ import annotations

import math

import numpy as np

from .._numerics import EPS
from .lattice import (
    _atom_split,
    _end_points,
    _Lat,
    _lower_rest,
    _moved_down,
    _parts,
    _proportional_part,
    _shift_of,
    _snap_atoms,
    _split_bounds,
    _sweep,
)
from .laws import Law, _plan_edges

__all__ = []


def _layout(ns: np.ndarray, kas: np.ndarray, offv: np.ndarray, h: float, shift: float
            ) -> tuple:
    """Stacked lattices of several factors: each factor's first point, the number of
    points, the factor and local index of each point, the points ``t``, and the edges per
    factor (-inf, its points + ``shift``, +inf; cells: n + 1 per factor, plus one
    meaningless cell between consecutive factors) with their sizes, starts, factor of
    each edge and the mask of the inner edges."""
    F = ns.size
    start = np.concatenate([[0], np.cumsum(ns)[:-1]]).astype(np.int64)
    tot = int(ns.sum())
    fid = np.repeat(np.arange(F), ns)                           # factor of each point
    loc = np.arange(tot) - start[fid]                           # local index of each point
    t = (kas[fid] + loc).astype(float) * h + offv[fid]
    ne = ns + 2
    estart = np.concatenate([[0], np.cumsum(ne)[:-1]])
    E = np.empty(int(ne.sum()))
    eseg = np.repeat(np.arange(F), ne)
    E[estart] = -np.inf
    E[estart + ne - 1] = np.inf
    inner = np.ones(E.size, dtype=bool)
    inner[estart] = False
    inner[estart + ne - 1] = False
    E[inner] = t + shift
    return start, tot, fid, loc, t, ne, estart, E, eseg, inner


def _factor_atoms(laws: list[Law], t: np.ndarray, ns: np.ndarray, start: np.ndarray):
    """``(i, u, p, q, n, s0, t_i)`` for each factor ``i`` with atoms: its atoms and its
    ``n`` lattice points ``t_i = t[s0:s0 + n]`` in the stacked layout."""
    for i, law in enumerate(laws):
        u, pa, qa = law.atoms()
        if u.size:
            n, s0 = int(ns[i]), int(start[i])
            yield i, u, pa, qa, n, s0, t[s0:s0 + n]


def _stacked_excess(laws: list[Law], E: np.ndarray, R: np.ndarray, eseg: np.ndarray,
                    estart: np.ndarray, ne: np.ndarray) -> tuple[np.ndarray, ...]:
    """``excess(E, R)`` of ``laws`` stacked (:func:`_layout`'s edges ``E``, references
    ``R``), computed over consecutive parts of the factors (:func:`~gdp.engine.lattice._parts`
    of their cells), each part from a law stacked of its own factors: the stackable laws
    compute each cell from its two edges and reference alone, so the values are those of
    one pass over all, bit for bit, in arrays that stay in the cache. The cell between two
    parts (between two factors: no caller reads it) is 0. The other side's, whose parts
    (:data:`_OPT_PART_POINTS`) are larger than the cache holds."""
    out = tuple(np.zeros(E.size - 1) for _ in range(6))
    cls = type(laws[0])
    for i, j in _parts((ne - 1).tolist()):
        a, b = int(estart[i]), int(estart[j - 1] + ne[j - 1])
        stacked = cls._stack(laws[i:j], eseg[a:b] - i)
        with np.errstate(all="ignore"):
            vals = stacked.excess(E[a:b], R[a:b - 1])
        for o, v in zip(out, vals, strict=True):
            o[a:b - 1] = v
    return out


def _disc_pess_batch(laws: list[Law], h: float, wins: list[tuple[int, int]],
                     offs: list[float]) -> list[_Lat]:
    """Connect-the-dots of ``laws`` (one structure) on their windows, over consecutive
    parts of the factors (:func:`~gdp.engine.lattice._parts` of their points): each
    factor's lattice is made of its own cells alone, so the parts decide only the arrays'
    sizes (the same lattices, bit for bit)."""
    return _in_parts(_disc_pess_part, laws, h, wins, offs)


def _in_parts(fn, laws: list[Law], h: float, wins: list[tuple[int, int]], offs: list[float],
              cap: int | None = None) -> list[_Lat]:
    """``fn(laws, h, wins, offs)`` on consecutive parts of the factors
    (:func:`~gdp.engine.lattice._parts` of their windows' sizes, at most ``cap`` points),
    the lattices concatenated."""
    out: list[_Lat] = []
    for i, j in _parts([kb - ka + 1 for ka, kb in wins], cap):
        out += fn(laws[i:j], h, wins[i:j], offs[i:j])
    return out


def _disc_pess_part(laws: list[Law], h: float, wins: list[tuple[int, int]],
                    offs: list[float]) -> list[_Lat]:
    """Connect-the-dots of ``laws`` (one structure) on their windows, in one pass."""
    F = len(laws)
    ns = np.array([kb - ka + 1 for ka, kb in wins], dtype=np.int64)
    kas = np.array([ka for ka, _ in wins], dtype=np.int64)
    offv = np.array(offs, dtype=float)
    start, tot, fid, loc, t, ne, estart, E, eseg, inner = _layout(ns, kas, offv, h, 0.0)
    # refs per cell (E.size - 1 cells): cell 0 of a factor its upper end, the others their
    # lower end; the cell after a factor's +inf is meaningless
    R = np.zeros(E.size - 1)
    R[inner[:-1]] = t                                           # cell starting at a point
    R[estart] = t[start]                                        # cell 0: upper end t_0
    stacked = type(laws[0])._stack(laws, eseg)
    with np.errstate(all="ignore"):
        P, Q, EP, EQ, X, EX = stacked.excess(E, R)
    valid = np.ones(E.size - 1, dtype=bool)
    valid[(estart + ne - 1)[:-1]] = False                       # between factors
    bad = ~(np.isfinite(EQ) & np.isfinite(EX) & np.isfinite(X))[valid]
    P, Q, EP, EQ, X, EX = (np.nan_to_num(v[valid]) for v in (P, Q, EP, EQ, X, EX))
    cstart = np.concatenate([[0], np.cumsum(ns + 1)[:-1]])      # first cell of each factor
    cfid = np.repeat(np.arange(F), ns + 1)
    cloc = np.arange(P.size) - cstart[cfid]
    first = cloc == 0
    last = cloc == ns[cfid]
    mid = ~(first | last)
    out = np.zeros(tot)
    # interior cells: cell j (1..n-1) of factor i splits between points j-1 and j, each
    # part its upper bound (as in _disc_pess)
    a_hi, b_hi = _split_bounds(Q[mid], EQ[mid], X[mid], EX[mid], h)
    lo_pt = start[cfid[mid]] + cloc[mid] - 1
    # tails
    low, high = _end_points(Q[first], EQ[first], Q[last], EQ[last], X[last], EX[last])
    out[start] += low
    out[start + ns - 1] += high
    xn = np.maximum(X[last], 0.0)
    q_inf = np.array([law.q_inf for law in laws]) + xn + EX[last] + EQ[last]
    e0 = np.exp(np.minimum(-t[start], 700.0))
    p_ninf = np.array([law.p_ninf for law in laws]) + _lower_rest(
        t[start], P[first], EP[first], X[first], EX[first])
    # cells with no finite error bound charged in full on the points they feed
    charged = mid & bad
    eabs = np.zeros(tot)
    if charged.any():
        j = start[cfid[charged]] + cloc[charged] - 1
        with np.errstate(invalid="ignore"):
            m = Q[charged] + EQ[charged]
        # cells of positive losses go whole to the extremes (as in _disc_pess)
        up = t[j] >= 0.0
        cm = charged[mid]
        a_hi = np.where(cm, 0.0, a_hi)
        b_hi = np.where(cm, 0.0, b_hi)
        fj = cfid[charged][up]
        np.add.at(q_inf, fj, m[up])
        np.add.at(p_ninf, fj, m[up] * np.exp(-t[j[up]]))
        j, m = j[~up], m[~up]
        np.add.at(eabs, j, m)
        np.add.at(eabs, j + 1, m)
    split_a = np.zeros(tot)
    split_b = np.zeros(tot)
    np.add.at(split_a, lo_pt, a_hi)
    np.add.at(split_b, lo_pt, b_hi)
    # atoms, factor by factor (few)
    atomic = np.zeros(F, dtype=bool)
    tmax = np.maximum.reduceat(np.abs(t), start)
    for i, u, pa, qa, n, s0, ti in _factor_atoms(laws, t, ns, start):
        below = u <= ti[0]
        above = u > ti[-1]
        inside = ~(below | above)
        out[s0] += qa[below].sum()
        p_ninf[i] += float(np.sum(np.maximum(pa[below] - qa[below] * e0[i], 0.0))) * (
            1 + 4 * EPS)
        q_inf[i] += qa[above].sum()
        p_ninf[i] += pa[above].sum()
        if inside.any() and n > 1:
            um, qm = u[inside], qa[inside]
            k = np.clip(np.floor((um - ti[0]) / h).astype(np.int64), 0, n - 2)
            d = np.clip(um - ti[k], 0.0, h)
            atomic[i] = bool(np.any((d > 1e-12 * (1.0 + np.abs(um))) &
                                    (h - d > 1e-12 * (1.0 + np.abs(um)))))
            a_, b_ = _atom_split(qm, d, h)
            np.add.at(split_a, s0 + k, a_)
            np.add.at(split_b, s0 + k, b_)
        elif inside.any():
            out[s0] += qa[inside].sum()
    out += split_a
    out[1:] += split_b[:-1]
    res = []
    for i in range(F):
        s0, n = int(start[i]), int(ns[i])
        e = eabs[s0:s0 + n]
        nz = np.flatnonzero(e)
        res.append(_Lat(int(kas[i]), out[s0:s0 + n].copy(),
                        min(float(q_inf[i]) * (1 + 4 * EPS), 1.0),
                        min(float(p_ninf[i]) * (1 + 4 * EPS), 1.0), 8 * EPS, nz, e[nz],
                        float(offv[i]), 4 * EPS * (1.0 + float(tmax[i])), bool(atomic[i])))
    return res


def _plan_batch(laws: list[Law], m: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Planning atoms ``(loss, p, q)`` of laws of one structure at once (the same
    coarse garblings as :meth:`~gdp.engine.laws.Law.plan_atoms`)."""
    key = laws[0]._batch_key()
    if key[0] == "A":
        return [law.plan_atoms(m) for law in laws]
    if key[0] in ("S", "I"):
        inner = _plan_batch([law.base for law in laws], m)
        if key[0] == "I":
            return [(-u, q, p) for u, p, q in inner]
        out = []
        for law, (u, pb, qb) in zip(laws, inner, strict=True):
            p = law.p
            ua, pa, qa = law._map(u), pb, (1.0 - p) * pb + p * qb
            if law.base.p_ninf > 0:
                ua = np.concatenate([ua, [math.log1p(-p)]])
                pa = np.concatenate([pa, [law.base.p_ninf]])
                qa = np.concatenate([qa, [(1.0 - p) * law.base.p_ninf]])
            out.append((ua, pa, qa))
        return out
    # a law with cells: m cells between its quantiles at 1e-30, all laws in one call
    F = len(laws)
    E = np.empty(F * (m + 1))
    for i, law in enumerate(laws):
        ql, qh, pl, ph = law.quantiles(1e-30)
        e = _plan_edges(ql, qh, pl, ph, m)
        E[i * (m + 1):(i + 1) * (m + 1)] = np.linspace(min(ql, pl), max(qh, ph), m + 1) \
            if e is None else e
    seg = np.repeat(np.arange(F), m + 1)
    with np.errstate(all="ignore"):
        P, Q, _, _ = type(laws[0])._stack(laws, seg).cells(E)
    out = []
    for i, law in enumerate(laws):
        s0 = i * (m + 1)
        e = E[s0:s0 + m + 1]
        Pi, Qi = np.nan_to_num(P[s0:s0 + m]), np.nan_to_num(Q[s0:s0 + m])
        with np.errstate(all="ignore"):
            u = np.where((Pi > 0) & (Qi > 0), np.log(Qi) - np.log(Pi), 0.5 * (e[:-1] + e[1:]))
        u = np.clip(u, e[:-1], e[1:])
        keep = (Pi > 0) | (Qi > 0)
        ua, pa, qa = law.atoms()
        out.append((np.concatenate([u[keep], ua]), np.concatenate([Pi[keep], pa]),
                    np.concatenate([Qi[keep], qa])))
    return out


# points per part of the other side's batched lattices (:func:`_disc_opt_batch`): its
# balancing runs fixed-point rounds until every factor of a part has converged, whose
# numpy overhead parts of 2^15 points repeat too often (mixed lists of 5,000: 1,250 inverse
# subsampled Gaussians, 1.3 million points, 1.00 s at once, 1.46 s in parts of 2^15, 1.04 s
# of 2^17; their 1,250 subsampled Gaussians, 2.1 million points: 1.78, 1.18 and 1.02 s)
_OPT_PART_POINTS = 1 << 17


def _disc_opt_batch(laws: list[Law], h: float, wins: list[tuple[int, int]],
                    offs: list[float]) -> list[_Lat]:
    """:func:`~gdp.engine.lattice._disc_opt` of ``laws`` (one structure), over consecutive
    parts of the factors of at most ``_OPT_PART_POINTS`` points
    (:func:`~gdp.engine.lattice._parts`), each part's factors balanced together: a
    garbling of each factor's law whatever the parts, the parts moving the balanced masses
    in their last bits only (the fixed-point rounds stop when the part's factors have
    converged)."""
    return _in_parts(_disc_opt_part, laws, h, wins, offs, _OPT_PART_POINTS)


def _disc_opt_part(laws: list[Law], h: float, wins: list[tuple[int, int]],
                   offs: list[float]) -> list[_Lat]:
    """:func:`~gdp.engine.lattice._disc_opt` of ``laws`` (one structure) in one pass: the
    merged half-cells of all factors from their stacked laws (:func:`_stacked_excess`),
    balanced together with the factors kept apart (segments)."""
    F = len(laws)
    ns = np.array([kb - ka + 1 for ka, kb in wins], dtype=np.int64)
    kas = np.array([ka for ka, _ in wins], dtype=np.int64)
    offv = np.array(offs, dtype=float)
    start, tot, fid, loc, t, ne, estart, E, eseg, inner = _layout(ns, kas, offv, h, -0.5 * h)
    R = np.zeros(E.size - 1)
    R[inner[:-1]] = t                                   # the cell above t_j - h/2: ref t_j
    R[estart] = t[start]
    P, Q, EP, EQ, X, EX = _stacked_excess(laws, E, R, eseg, estart, ne)
    valid = np.zeros(E.size - 1, dtype=bool)
    valid[inner[:-1]] = True                            # the merged atoms (cell 0 dropped)
    q, x = np.nan_to_num(Q[valid]), np.nan_to_num(X[valid])
    eq, ex = np.nan_to_num(EQ[valid]), np.nan_to_num(EX[valid])
    _proportional_part(q, x, eq, ex)
    qe = np.zeros(tot)
    on_shift = np.zeros(F)
    atomic = np.zeros(F, dtype=bool)
    for i, u, _pa, qa, n, s0, ti in _factor_atoms(laws, t, ns, start):
        k, ua, qk, on = _snap_atoms(u, qa, float(ti[0]), h, n)
        atomic[i] = bool((~on).any())
        qk = qk * (1.0 - 8 * EPS)
        np.add.at(qe, s0 + k[on], qk[on])
        on_shift[i] = 4e-12 * (1.0 + float(np.max(np.abs(u))))
        k, ua, qk = k[~on], ua[~on], qk[~on]
        with np.errstate(all="ignore"):
            xa = -qk * np.expm1(ti[k] - ua)
        np.add.at(q, s0 + k, qk)
        np.add.at(x, s0 + k, xa)
        np.add.at(ex, s0 + k, 4 * EPS * (qk + np.abs(xa)))
    seg = (start[fid], (start + ns - 1)[fid], fid, start)
    qf, r_atom = _sweep(t, q, x, ex, qe, seg)
    r = r_atom + 16 * EPS
    charged = (r > 1e-12) & (qf < 1e-25) | ~np.isfinite(r)
    qf = _moved_down(qf, r, charged, h, start[fid])
    rmax = np.maximum.reduceat(np.where(charged, 0.0, r), start)
    tmax = np.maximum.reduceat(np.abs(t), start)
    res = []
    for i, law in enumerate(laws):
        s0, n = int(start[i]), int(ns[i])
        shift = _shift_of(float(rmax[i])) + 4 * EPS * (1.0 + float(tmax[i])) + float(
            on_shift[i])
        res.append(_Lat(int(kas[i]), np.minimum(qf[s0:s0 + n], 1.0), law.q_inf, 0.0,
                        16 * EPS, off=float(offv[i]), shift=shift,
                        atomic=bool(atomic[i])))
    return res
