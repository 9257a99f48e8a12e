r"""Long powers in two levels: blocks of factors composed on a fine lattice, then coarsened.

Connect-the-dots adds at most :math:`h^2/4` to the variance of each factor's loss, so an
:math:`n`-fold power on one lattice needs :math:`h \propto 1/\sqrt n` for a given accuracy,
and its window (which grows like :math:`\sqrt n`) then holds :math:`O(n)` points. In two
levels, a block of :math:`m` factors is composed on the fine lattice :math:`h` (a window of
:math:`O(\sqrt m)` spreads), split by connect-the-dots once more onto the lattice :math:`H = r
h` (:math:`r` an integer), and :math:`n/m` blocks are composed on :math:`H`: the added variance
is :math:`n h^2/6 + (n/m) H^2/6` on average, so :math:`H = h\sqrt{m/2}` costs no more than
halving :math:`h^2`, and both windows hold :math:`O(n^{1/4})` times fewer points than one.

Soundness, the sound side. The profile integrand :math:`g(L) = (1 - e^{\varepsilon -
L})_+` is convex in :math:`u = e^{-L}`; splitting an atom of Q-mass :math:`q` at :math:`t \in
[t_j, t_j + H]` between the two lattice points so that both the Q-mass and the P-mass
:math:`q e^{-t}` are kept keeps the Q-mean of :math:`u`, so by Jensen's inequality it can only
raise :math:`E_Q[g(L + s)]` for every loss :math:`s` of the other factors: the coarsened
block is as sound as the block (Doroshenko et al., PETS 2022, for atomic laws). The argument
uses only the Q-measure, so it holds for the block's computed masses raised by their
allowances: the entrywise relative allowance stays relative (the split is a positive linear
map; its weights err by a few ulps each), an :math:`\ell_1` allowance of the tilted masses
grows by at most :math:`\max_s(a_s + b_s)` (the tilted weights of the split, below
:math:`e^{\lambda H}`), the block's tilted mass below its window joins its lowest point, and
its Q-mass above the window (a Chernoff bound) goes to :math:`+\infty`. The split weights'
own rounding changes a P-mass at fixed Q-mass by a relative :math:`8u`: a loss shift.

A long power beside a few other factors (the jump term of a split by the number of jumps,
:mod:`gdp.engine.jumps`: one jump factor beside the bulk's power) is composed the same way,
the few factors discretised directly at the coarse step H: each is a sound lattice law, and
their own connect-the-dots error, about :math:`H^2` once per factor, is that of one block.

Everything is done in the tilted frame of the question (tilting commutes with convolution
and the split is linear), so the block's round-off is relative to its tilted mass, as in a
one-level frame. A block's round-off is charged in :math:`\ell_1` once per block, n/m times
in all; where that dominates an answer (long runs of rarely sampled steps, whose δ is a tiny
part of the tilted mass) the engine composes the blocks in extended precision, as it does a
one-level frame's transforms (:func:`gdp.engine.fourier._compose`).

The other side (:func:`_other_block`, a run in phases; :func:`_other_list_block`, the single
factors with atoms of a long list, each of which a garbling at the coarse step would cost a
first-order part of its tilted mass). A lattice law is garbled onto the coarse lattice
instead of split: the atoms of each half-cell merged and the merged atoms balanced to the
lattice ratios by :func:`~gdp.engine.lattice._disc_opt`, which merges
proportional parts and drops Q-mass, so the profile of any composition with the block can
only fall. The block's computed masses are first lowered by their relative allowance; their
:math:`\ell_1` allowance, which a garbling cannot take, is subtracted by the frame.

Imports: the ground floor and :mod:`gdp.engine.fourier`, :mod:`gdp.engine.lattice`,
:mod:`gdp.engine.laws`, :mod:`gdp.engine.planning`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numerics import EPS
from .fourier import (
    _DOUBLE,
    _KGF,
    _Bounds,
    _compose,
    _Composed,
    _ends,
    _guided_window,
    _Precision,
    _span,
    _sum,
    _tails,
    _tilt,
    _tilt_many,
    _Tilted,
    _window,
)
from .lattice import _disc_opt, _Lat
from .laws import AtomicLaw
from .planning import _other_offset

__all__: list[str] = []


@dataclass(slots=True)
class _Block:
    """A composed and coarsened block as a tilted factor of the coarse lattice."""

    tilted: _Tilted    # normalised tilted weights at coarse indices k0 + i, with allowances
    log_q: np.ndarray  # log Q-masses of the weights (for the cumulant generating function)
    t: np.ndarray      # their losses
    q_inf: float       # Q-mass at +inf (the factors' and the mass above the block window)
    shift: float       # loss-shift allowance (the factors' and the split's)


def _split_weights(r: int, h: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Tilted weights of the connect-the-dots split of an atom at :math:`t_j + s h` onto
    :math:`t_j` and :math:`t_j + H` (:math:`H = r h`, :math:`0 \le s < r`): Q-shares
    :math:`(e^{-sh} - e^{-H})/(1 - e^{-H})` and :math:`(1 - e^{-sh})/(1 - e^{-H})` (which
    keep the P-mass), times :math:`e^{-\lambda s h}` and :math:`e^{\lambda(H - sh)}`."""
    s = np.arange(r, dtype=float) * h
    H = r * h
    den = -math.expm1(-H)
    lower = np.exp(-s) * -np.expm1(-(H - s)) / den
    upper = -np.expm1(-s) / den
    return lower * np.exp(-lam * s), upper * np.exp(lam * (H - s))


def _coarsen(w: np.ndarray, k0: int, r: int, h: float, lam: float
             ) -> tuple[np.ndarray, int, float]:
    """Split tilted weights ``w`` at fine indices ``k0 + i`` onto the coarse lattice of
    every ``r``-th fine point. Returns the coarse weights, the coarse index of the first and
    the factor by which an l1 error of ``w`` can grow."""
    j0 = k0 // r
    lead = k0 - j0 * r
    J = -(-(lead + w.size) // r)
    pad = np.zeros(J * r)
    pad[lead:lead + w.size] = w
    W = pad.reshape(J, r)
    a, b = _split_weights(r, h, lam)
    out = np.zeros(J + 1)
    out[:J] += _sum(W * a[None, :], axis=1)
    out[1:] += _sum(W * b[None, :], axis=1)
    return out, j0, float(np.max(a + b))


def _power(lat: _Lat, m: int, h: float, lam: float, log_eta: float, max_points: int,
           plan: _KGF, pr: _Precision = _DOUBLE, log_tol: float | None = None
           ) -> tuple[_Composed, int, np.ndarray, tuple[float, float, float, float]]:
    r"""The ``m``-fold power of a lattice law ``lat`` (step ``h``) composed in the frame of
    tilt ``lam`` on a window holding all but about :math:`e^{\log\eta}` of its tilted mass
    at each end, for a block of either side (:func:`_block`, :func:`_other_block`): the
    composition, the window's first index, its losses and :func:`~gdp.engine.fourier._tails`'
    bounds on the masses outside it. The window comes from ``plan``, the cumulant
    generating function of a coarse law close to ``lat``'s (taken ``m`` times; where its
    tilted mean or spread is off by a quarter of the spread, from ``lat`` itself); with
    ``log_tol`` (a tilted frame), it reaches at least as far up as the Q-mass above it is
    :math:`e^{\log\mathrm{tol}}`. Raises ``ValueError`` over ``max_points`` points."""
    kgf = _KGF([(lat, m)], h)
    off = m * lat.off
    if m == 1:
        # (one factor: its whole lattice, no tail to bound; its window is the factor's own,
        # and the windows' root searches cost more than the coarsening itself)
        bd = _Bounds(kgf.tmin, kgf.tmax, lam, lam)
        span = _span(kgf, bd, off, h, True, True)
    else:
        (_,), (mp,), (vp,) = plan(np.array([lam]))
        (_,), (ml,), (vl,) = kgf(np.array([lam]))
        close = vp > 0 and vl > 0 and abs(m * mp - ml) <= 0.25 * math.sqrt(vl) and \
            0.64 < m * vp / vl < 1.5625
        guide = plan.power(m) if close else kgf.pooled(0.01 / (1.0 + lam))
        bd = _guided_window(kgf, guide, lam, log_eta, h)
        if log_tol is not None and lam > 0:
            up = _window(guide, 0.0, log_tol, h)
            bd.B, bd.b_hi = max(bd.B, up.B), (bd.b_hi if bd.B >= up.B else up.b_hi)
        span = _span(kgf, bd, off, h)
    return _on_window(kgf, [(_tilt(lat, lam, h), m)], off, h, lam, bd, span, max_points,
                      pr, f"a block of {m} factors")


def _listed(lats: list[_Lat], h: float, lam: float, log_eta: float, max_points: int,
            pr: _Precision = _DOUBLE
            ) -> tuple[_Composed, int, np.ndarray, tuple[float, float, float, float]]:
    r"""As :func:`_power`, for the composition of distinct lattice laws ``lats`` (step
    ``h``, each once): the window from their own cumulant generating function, its searches
    on their atoms pooled (:meth:`~gdp.engine.fourier._KGF.pooled`) and kept where their
    own Chernoff bounds hold at its ends (:func:`~gdp.engine.fourier._guided_window`)."""
    kgf = _KGF([(lat, 1) for lat in lats], h)
    off = math.fsum(lat.off for lat in lats)
    bd = _guided_window(kgf, kgf.pooled(0.01 / (1.0 + lam)), lam, log_eta, h)
    return _on_window(kgf, [(it, 1) for it in _tilt_many(lats, lam, h)], off, h, lam, bd,
                      _span(kgf, bd, off, h), max_points, pr,
                      f"a block of {len(lats)} factors")


def _on_window(kgf: _KGF, items: list[tuple[_Tilted, int]], off: float, h: float,
               lam: float, bd: _Bounds, span: tuple[int, int, bool, bool], max_points: int,
               pr: _Precision, what: str
               ) -> tuple[_Composed, int, np.ndarray, tuple[float, float, float, float]]:
    """The tilted ``items`` composed on the window ``span`` of :func:`_span` (bounds
    ``bd``; ``kgf`` their cumulant generating function, ``off`` their offset): what
    :func:`_power` returns. Raises ``ValueError`` (naming ``what``) over ``max_points``
    points."""
    from scipy import fft as sfft  # loaded on first use (import time)

    KA, KB, reach_hi, reach_lo = span
    N = sfft.next_fast_len(max(KB - KA + 1, 16), real=True)
    if N > max_points:
        raise ValueError(f"{what} needs {N} points, more than max_points={max_points}")
    comp = _compose(items, KA, N, pr)
    t = (KA + np.arange(N)).astype(float) * h + off
    tA, tB = _ends(kgf, t, off, h, KA, KB, reach_hi, reach_lo)
    return comp, KA, t, _tails(kgf, lam, bd, tA, tB)


def _block(lat: _Lat, m: int, h: float, r: int, lam: float, log_eta: float,
           log_tol: float, max_points: int, plan: _KGF, pr: _Precision = _DOUBLE) -> _Block:
    r"""The ``m``-fold power of a sound lattice law ``lat`` (step ``h``) composed in the
    frame of tilt ``lam`` (:func:`_power`; its window reaches at least as far up as the
    Q-mass above it is :math:`e^{\log\mathrm{tol}}`, which goes to :math:`+\infty`) and
    coarsened to the step ``r h`` (module docstring); the masses outside the window are
    bounded from ``lat``."""
    comp, KA, _, (_, til_lo, q_hi, _) = _power(lat, m, h, lam, log_eta, max_points, plan,
                                                 pr, log_tol)
    off = m * lat.off
    c = comp.c  # (comp is not read again)
    c[0] += til_lo * math.exp(comp.log_scale)  # the tilted mass below the window, at its
    #                                            bottom (in the units of c)
    w, j0, grow = _coarsen(c, KA, r, h, lam)
    S = float(_sum(w))
    w = w / S
    K = comp.K + math.log(S)
    rel = (1.0 + comp.rel_up) * (1.0 + (r + 12) * EPS) - 1.0
    tau = comp.tau * grow / S
    H = r * h
    tc = (j0 + np.arange(w.size)).astype(float) * H + off
    with np.errstate(divide="ignore"):
        log_q = np.log(w) + K - lam * tc
    lq = m * math.log1p(-min(lat.q_inf, 1.0)) if lat.q_inf < 1 else -math.inf
    q_inf = min(1.0, (-math.expm1(lq) if math.isfinite(lq) else 1.0) * (1 + 8 * EPS * (m + 2))
                + q_hi)
    shift = m * lat.shift + 16 * EPS * (1.0 + float(np.max(np.abs(tc))))
    return _Block(_Tilted(j0, w, K, rel, tau, comp.roundoff * grow / S), log_q, tc, q_inf,
                  shift)


def _block_kgf(blocks: list[tuple[_Block, int]]) -> _KGF:
    """Cumulant generating function of the composition of blocks (each to its power)."""
    return _KGF.of_log_atoms([(b.t, b.log_q, n) for b, n in blocks])


# ---------------------------------------------------------------------------
# the other side: a block garbled onto the coarse lattice
# ---------------------------------------------------------------------------
class _LatticeCells(AtomicLaw):
    r"""A lattice law read by cells: Q-masses :math:`q_i = e^{\ell_i}` at the ascending
    losses :math:`t_i` and P-masses :math:`q_i e^{-t_i}` (each atom's ratio exactly
    :math:`e^{t_i}`; the masses are those of the rounded exponentials), none at the
    infinities. A cell :math:`(a, b]` holds the atoms in it, and :meth:`excess` sums them
    with error bounds, so that :func:`~gdp.engine.lattice._disc_opt` merges the atoms of
    each half-cell of a coarser lattice into one and balances those, as it does for a law
    with a density (:meth:`atoms` is empty; the quantiles are the atomic law's). Atoms
    whose masses lie below :math:`e^{-700}` are left out (dropping whole atoms lowers the
    profile)."""

    def __init__(self, t: np.ndarray, log_q: np.ndarray):  # (no checks: the engine's own)
        keep = (log_q > -700.0) & (np.abs(log_q - t) < 700.0)
        self.u = t[keep]
        self.q = np.exp(log_q[keep])
        lq = np.log(self.q)
        self.p = np.exp(lq - self.u)
        self.q_inf = 0.0
        self.p_ninf = 0.0
        # (a P-mass errs by the logarithm's and exponential's 2u each and the rounding of
        # the difference, u times its magnitude)
        self._p_units = 5.0 + float(np.max(np.abs(lq - self.u), initial=0.0))

    def atoms(self):
        e = np.zeros(0)
        return e, e, e

    def _batch_key(self):
        return None

    def _ranges(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
        """Each cell's count of atoms, the start of each non-empty one's among the atoms
        of all cells, and the first and last + 1 of those atoms."""
        i = np.searchsorted(self.u, np.asarray(edges, dtype=float), side="right")
        cnt = np.diff(i)
        return cnt, i[:-1][cnt > 0] - i[0], int(i[0]), int(i[-1])

    @staticmethod
    def _per_cell(v: np.ndarray, cnt: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Sums of ``v`` (the atoms of all cells) per cell; 0 for an empty cell."""
        out = np.zeros(cnt.size)
        if starts.size:
            out[cnt > 0] = np.add.reduceat(v, starts)
        return out

    def cells(self, edges):
        cnt, starts, i0, i1 = self._ranges(edges)
        P = self._per_cell(self.p[i0:i1], cnt, starts)
        Q = self._per_cell(self.q[i0:i1], cnt, starts)
        # (a sequential sum of m terms errs by (m - 1) u of the sum of their magnitudes)
        return P, Q, P * (EPS * (cnt + self._p_units)), Q * (EPS * cnt)

    def excess(self, edges, refs):
        cnt, starts, i0, i1 = self._ranges(edges)
        P = self._per_cell(self.p[i0:i1], cnt, starts)
        Q = self._per_cell(self.q[i0:i1], cnt, starts)
        d = np.repeat(np.asarray(refs, dtype=float), cnt) - self.u[i0:i1]
        # X = Q - e^r P = sum of q (1 - e^(r - t)); each term within (4 + |r - t|) u (the
        # difference's rounding, expm1 and the product), the sum within (m - 1) u
        with np.errstate(over="ignore", invalid="ignore"):
            x = np.expm1(d)
            x *= -self.q[i0:i1]
        ax = np.abs(x)
        X = self._per_cell(x, cnt, starts)
        EX = EPS * (self._per_cell(ax * (4.0 + np.abs(d)), cnt, starts) +
                    cnt * self._per_cell(ax, cnt, starts))
        EX[~np.isfinite(X)] = np.inf
        return P, Q, P * (EPS * (cnt + self._p_units)), Q * (EPS * cnt), X, EX


@dataclass(slots=True)
class _OtherBlock:
    r"""A block on the other side (:func:`_other_block`): its garbled lattice law on the
    coarse step, a bound :math:`e^{A}` on the tilted masses of the block's exact law and of
    the measure its computed masses stand below, and the :math:`\ell_1` bound
    :math:`e^{E}` of their difference (both tilted, absolute)."""

    lat: _Lat
    log_mass: float   # A
    log_l1: float     # E


def _other_block(lat: _Lat, m: int, h: float, r: int, lam: float, log_eta: float,
                 max_points: int, plan: _KGF, pr: _Precision = _DOUBLE) -> _OtherBlock:
    r"""The ``m``-fold power of the other side's lattice law ``lat`` (step ``h``) composed
    in the frame of tilt ``lam`` on a window holding all but about :math:`e^{\log\eta}` of
    its tilted mass at each end (:func:`_power`, as for :func:`_block`), garbled onto the
    lattice of step ``r h`` by :func:`~gdp.engine.lattice._disc_opt`.

    Soundness. The composed masses c satisfy :math:`c^* \ge (1 - r_{lo})c - e` entrywise
    on the window, :math:`\|e\|_1 \le \tau + w` (the transforms' allowance and the tilted
    mass wrapped in from outside the window), :math:`c^*` the exact power. The measure
    :math:`c' = (1 - r_{lo} - s)\,c^+` (s the rounding of the masses' exponentials) lies
    below :math:`\mu = c^* + e^-`, and :math:`\|\mu - c^*\|_1 \le \|e\|_1`; its garbling
    (half-cells merged and balanced: proportional parts merged, Q-mass dropped) lowers the
    profile of any composition with it. So the composition of such blocks' garblings lies
    below the composition of the μ, which differs from that of the exact powers by at most
    :math:`\sum_i \|e_i\| \prod_{j \ne i} e^{A_j}` in tilted :math:`\ell_1`: the frame
    subtracts that (:meth:`~gdp.engine.numeric._Engine._other_in_phases`). Garbling a block
    composed of many factors, smooth on the scale of the coarse step, costs about its step
    squared, once; one level garbles each factor at the coarse step, where a rarely
    sampled step's bulk and its slope above lie within a step or two and lose a first-order
    part of their Q-mass each time (a phase of 511,779 steps at σ = 1.81, p = 1.9e-5 lost
    2.1e-6 per step at the step 4e-5, a factor e^-1.09 on the composed δ)."""
    comp, _, t, tails = _power(lat, m, h, lam, log_eta, max_points, plan, pr)
    lq = m * math.log1p(-min(lat.q_inf, 1.0)) if lat.q_inf < 1 else -math.inf
    return _other_garbled(comp, t, tails, m * lat.off, r * h, lam, lq, m, m * lat.shift)


def _other_list_block(lats: list[_Lat], h: float, r: int, lam: float, log_eta: float,
                      max_points: int, pr: _Precision = _DOUBLE) -> _OtherBlock:
    r"""The composition of the other side's distinct lattice laws ``lats`` (step ``h``,
    each once) in the frame of tilt ``lam`` (:func:`_listed`), garbled onto the lattice of
    step ``r h`` as :func:`_other_block` garbles a power, with the same soundness argument
    (the composed masses' bounds are those of :func:`~gdp.engine.fourier._compose`, whose
    direct convolutions of small factors carry their own relative and :math:`\ell_1`
    round-off). A law with atoms off the lattice loses a first-order part of its tilted mass
    on the other side, the atom's Q-mass beyond its lattice point (a garbling cannot split
    it, as the sound side does); on the fine step that part is r times smaller, and the
    block, smooth on the coarse step, loses about its step squared once (1,000 randomized
    responses of ε in [0.01, 0.05] at δ = 1e-6: e^-0.245 of the composed tilted mass on the
    step 1.25e-3, e^-0.017 in blocks of 32 on a sixteenth of it)."""
    comp, _, t, tails = _listed(lats, h, lam, log_eta, max_points, pr)
    lq = math.fsum(math.log1p(-min(lat.q_inf, 1.0)) if lat.q_inf < 1 else -math.inf
                   for lat in lats)
    return _other_garbled(comp, t, tails, math.fsum(lat.off for lat in lats), r * h, lam, lq,
                          len(lats), math.fsum(lat.shift for lat in lats))


def _other_garbled(comp: _Composed, t: np.ndarray, tails: tuple[float, float, float, float],
                   off: float, H: float, lam: float, lq: float, count: int, shift: float
                   ) -> _OtherBlock:
    """A composed block (:func:`_on_window`'s ``comp``, losses ``t``, ``tails``; ``off``
    the offset of its lattice) garbled onto the step ``H`` (:func:`_other_block`): ``lq``
    the log of the probability that none of its ``count`` factors is at +inf, ``shift``
    their loss-shift allowances."""
    til_hi, til_lo, _, _ = tails
    c = comp.c
    l1 = comp.tau + (til_hi + til_lo) * math.exp(comp.log_scale) * (1.0 + comp.rel_up)
    total = float(_sum(np.maximum(c, 0.0)))
    pos = c > 0.0
    tk = t[pos]
    lt = comp.K - lam * tk
    # (the Q-masses' logarithms err by u (|K - lam t| + |log c| + 4): taken off as a
    # relative part, with the lower relative allowance)
    with np.errstate(divide="ignore"):
        lc = np.log(c[pos])
    slack = comp.rel_lo + EPS * (8.0 + float(np.max(np.abs(lt) + np.abs(lc), initial=0.0)))
    cells = _LatticeCells(tk, lc + lt + math.log1p(-min(slack, 0.5)))
    coarse = _garbled(cells, H, lam, off)
    coarse.q_inf = max(0.0, -math.expm1(lq) * (1.0 - 8 * EPS * (count + 2))) \
        if math.isfinite(lq) else 1.0
    coarse.shift += shift
    with np.errstate(divide="ignore"):
        return _OtherBlock(coarse, comp.K + math.log((1.0 + comp.rel_up) * total + 2.0 * l1),
                           comp.K + math.log(l1))


def _garbled(cells: _LatticeCells, H: float, lam: float, off: float) -> _Lat:
    r"""A garbling of a lattice law onto the step ``H`` keeping the most tilted mass at
    ``lam`` (the frame's tilt) of up to three: the balanced half-cells
    (:func:`~gdp.engine.lattice._disc_opt`) on the lattice of offset ``off`` (the fine
    one's), the same on that of :func:`~gdp.engine.planning._other_offset` (the bulk's
    merged loss on a point), and all atoms merged into one. Each lies below the law (a
    garbling with Q-mass dropped). The second is tried only where the first loses more
    than :math:`\lambda(\lambda + 1)H^2/2` of the log tilted mass, four times the second
    order loss of a smooth law (its search costs more than the balancing). A block
    narrower than the step has no neighbours to balance with; merged whole at its own
    merged loss it keeps all its Q-mass and loses only its spread, whose tilted mass is
    second order in it."""
    def tilted_mass(t: np.ndarray, q: np.ndarray) -> float:
        with np.errstate(divide="ignore"):
            lw = np.log(q) + lam * t
        m = float(np.max(lw, initial=-np.inf))
        return m + math.log(float(_sum(np.exp(lw - m)))) if math.isfinite(m) else -math.inf

    def of_lat(lat: _Lat) -> float:
        return tilted_mass((lat.k0 + np.arange(lat.q.size)) * H + lat.off, lat.q)

    best, best_k = None, -math.inf
    one = _merged_whole(cells)
    if one is not None:
        best, best_k = one, of_lat(one)
    if cells.u.size:
        whole = tilted_mass(cells.u, cells.q)
        for k, o in enumerate((off, None)):
            if k and best_k >= whole - (0.5 * lam * (lam + 1.0) * H * H + 1e-9):
                break
            o = _other_offset(cells, H, True, 1) if o is None else o
            ka = int(math.floor((float(cells.u[0]) - o) / H)) - 1
            # (the top cell, which takes the rest of the upper tail, at least a step and a
            # half of it: its merged loss then lies above its point, and the balancing
            # rounds it in place. Cut at the last atom, it lay below, was rounded a point
            # down, and each deficit below it, the whole decaying Q-density, lost its
            # lender in turn: the rounding of every atom (σ = 0.41, p = 3.2e-5, 2.7
            # million steps: 0.022 of the block's log tilted mass))
            kb = max(int(math.floor((float(cells.u[-1]) - o) / H)) - 1, ka + 1)
            lat = _disc_opt(cells, H, ka, kb, o, tilt=lam, factors=1)
            kl = of_lat(lat)
            if kl > best_k:
                best, best_k = lat, kl
    return best if best is not None else _Lat(0, np.zeros(1), 0.0, off=off)


def _merged_whole(cells: _LatticeCells) -> _Lat | None:
    r"""All atoms of ``cells`` merged into one, on a lattice of that one point: with
    :math:`Q \ge Q_-`, :math:`P_- \le P \le P_+` (the sums' error bounds), the atom at
    :math:`u \le \log(Q_-/P_+)` (rounded down by 4 ulps of its magnitude) with P-mass
    :math:`P_-` and Q-mass :math:`e^{u}P_-`: a part of the merged atom, Q-mass dropped.
    None where there is no mass."""
    e = np.array([-np.inf, np.inf])
    P, Q, EP, EQ = cells.cells(e)
    q_lo, p_lo, p_hi = float(Q[0] - EQ[0]), float(P[0] - EP[0]), float(P[0] + EP[0])
    if not (q_lo > 0.0 and p_lo > 0.0):
        return None
    u = math.log(q_lo) - math.log(p_hi)
    u -= 4 * EPS * (2.0 + abs(math.log(q_lo)) + abs(math.log(p_hi)) + abs(u))
    x = u + math.log(p_lo)
    q = math.exp(x) * (1.0 - EPS * (8.0 + 2.0 * (abs(x) + abs(u))))
    return _Lat(0, np.array([q]), 0.0, off=u)
