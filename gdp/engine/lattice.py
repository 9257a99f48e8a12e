r"""Discretisation of a privacy-loss law onto the lattice :math:`t_k = kh + o`, on both sides.

* :func:`_disc_pess`: connect-the-dots (Doroshenko et al., PETS 2022): the masses of each cell
  are split between its two end points preserving both P and Q, a pair of which the true pair
  is a garbling (the sound side); truncated tails are spread to :math:`\pm\infty`, nothing is
  dropped.
* :func:`_disc_opt`: a lattice law whose one-order profile lies below the true one at every
  ε (a garbling of the true pair from which Q-mass may be dropped; the other side).
* :func:`_sampled_laws`: atomic laws of a lower and an upper piecewise-linear bound of a
  curve known only by its values (a user's callable).

One order per discretisation
----------------------------
A lattice law is stored by its Q-masses :math:`q_k` at the losses :math:`t_k` (the P-masses
are :math:`q_k e^{-t_k}`), the Q-mass at :math:`+\infty` and the P-mass at :math:`-\infty`.
Its one-order profile is :math:`\delta(\varepsilon) = Q[+\infty] + \sum_k q_k (1 -
e^{\varepsilon - t_k})_+` at every real ε, which determines its trade-off curve. The
engine discretises each order's own law (the law of :math:`f^{-1}` for the other order;
a symmetric law is its own). On the sound side each part of a lattice law dominates the
part of the true law it stands for, in one of two ways: the true part is a garbling of it
(the tails spread to their end points and :math:`\pm\infty`), or it has at least as much
Q-mass at or above every threshold (a cell split from error bounds). Either way it raises
:math:`E_Q[\varphi(L)]` for every non-negative combination φ of the functions :math:`(1 -
e^{\varepsilon - l})_+` (the data-processing inequality of the hockey-stick divergence;
φ non-decreasing), and the profile of a composition is such an integral in each factor
with the others fixed. On the other side, garbling and the removal of whole atoms or of
Q-mass lower the profile.

Floating point
--------------
Every cell's masses carry error bounds :math:`(E_P, E_Q)` and the excess :math:`X = Q -
e^{r}P` that positions a split its bound :math:`E_X`. On the sound side each lattice mass is
an upper bound of its own (:func:`_split_bounds`): the cell's Q-mass raised by :math:`E_Q`,
the part sent up by :math:`E_X e^h/(e^h - 1)`. A cell's error so stays with the cell; a
relative allowance and a loss shift common to the lattice (``rel`` and ``shift`` of
:class:`_Lat`) would charge every cell of every factor the worst cell's error, which over
millions of rarely sampled steps came to 0.1% of ε. Cells with no finite error bound are
charged instead by absolute bounds on the entries they feed (``eidx``/``eabs``), or sent to
the extremes. On the other side, writing the computed cell as the exact one with P scaled by
:math:`1+a` and Q by :math:`1+b` (:math:`|a| \le r_P = E_P/P + E_X/(e^{r}P)`, :math:`|b| \le
r_Q = E_Q/Q`), the cell scaled by :math:`1 - r_Q` is a proportional part of the exact one
(:func:`_proportional_part`) and the rest changes one mass at fixed other, i.e. moves the
implied loss by at most :math:`-\log(1 - r_P - r_Q)` in either direction: a loss shift
common to the lattice, its largest value over the atoms but for those moved a point down
instead (tiny masses in the far tails, and atoms the frame's tilted law weighs less than
the shift they would cost, :func:`_charge`).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.engine.curves`, :mod:`gdp.engine.laws`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import EPS, lower_convex_hull
from ..core.tradeoff import TradeOff
from .laws import AtomicLaw, Law, narrow_cells

__all__ = []

_BUDGET = 1e-19  # mass whose cells may be charged by absolute rather than relative bounds
# the composed loss shift of the other side above which its atoms with the poorest ratio
# bounds may move down instead (:func:`_charge`)
_SHIFT_TRADED = 1e-6


# ---------------------------------------------------------------------------
# a discretised law
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Lat:
    """A lattice law: Q-masses ``q`` at losses ``(k0 + i) h + off``, the Q-mass at
    :math:`+\\infty` and the P-mass at :math:`-\\infty`, with its allowances (module
    docstring): entrywise relative error ``rel``, absolute bounds ``eabs`` on the entries
    ``eidx``, a two-sided loss shift ``shift``."""

    k0: int
    q: np.ndarray
    q_inf: float
    p_ninf: float = 0.0
    rel: float = 0.0
    eidx: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    eabs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    off: float = 0.0
    shift: float = 0.0
    atomic: bool = False  # had atoms off the lattice (the other side is first order there)


def _charge(mass: np.ndarray, r: np.ndarray, budget: float = _BUDGET,
            h: float | None = None, tilt: float | None = None, t: np.ndarray | None = None,
            n: int = 1) -> tuple[float, np.ndarray]:
    r"""Split per-cell relative error bounds ``r`` (of cells of mass ``mass``) into a bound
    for most cells and a set of cells charged in full instead: the cells with the worst
    relative error, as many as fit in ``budget`` (plus those with no finite bound), and,
    given the lattice step ``h``, the frame's ``tilt`` and the cells' losses ``t``, where
    the rest's bound taken ``n`` times (the factors of this law) is over
    ``_SHIFT_TRADED``, all cells above the threshold :math:`r^*` that minimises
    :math:`r^* + 2hW(r^*)`, W the tilted weight (:math:`\propto` mass :math:`e^{\mathrm{tilt}\,
    t}`, summing to 1) of the cells above it (quarter octaves of r as candidates). Returns
    (the largest relative error of the rest, a boolean mask of the charged cells).

    The rest's bound becomes the other side's loss shift, which a composition of n
    factors multiplies by n: a shift of :math:`n r^*` of the composed loss. A charged cell
    moves a step down (:func:`_moved_down`), its loss lowered by about h; in the frame
    tilted by the composition's tilt (the product of its factors' tilted laws) a factor
    stands on such a cell with probability W, so the composed loss falls by
    :math:`n h W` on average. The factor 2 is a margin. σ = 0.608, p = 1.1e-6, 9.8M steps,
    step 1.3e-6, tilt 9.5: the ratio bounds of the cells above the loss 0.05 reach 1.1e-11
    (a shift of 1.05e-4, 0.16% of ε = 0.067); above 1e-13 they weigh 2.6e-9. Where the
    composed shift is small the trade is not made: a few factors' answer at tiny δ lies
    where one factor stands on its far tail, which the frame's tilted law weighs little
    (σ = 0.533, p = 1.35e-6, 82 steps, δ = 3.8e-13: the lower end of ε fell by 0.36% for
    a shift of 4e-10 saved)."""
    r = np.where(mass > 0, r, 0.0)
    bad = ~np.isfinite(r)
    r = np.where(bad, 0.0, r)
    charged = bad.copy()
    cand = np.flatnonzero(r > 1e-12)  # only poor bounds are worth charging in full
    if cand.size:
        order = cand[np.argsort(-r[cand], kind="stable")]
        cum = np.cumsum(mass[order])
        m = int(np.searchsorted(cum, budget, side="right"))
        charged[order[:m]] = True
    pos = np.flatnonzero((r > 0.0) & ~charged) if h is not None and tilt is not None \
        and t is not None else np.zeros(0, dtype=np.int64)
    weight = None
    if pos.size and n * float(np.max(r[pos])) > _SHIFT_TRADED:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            lw = np.log(mass) + tilt * t
        top = float(np.max(lw))
        if math.isfinite(top):
            weight = np.exp(lw - top)
            weight /= float(np.sum(weight))
    if weight is not None:
        b = np.floor(4.0 * np.log2(r[pos])).astype(np.int64)
        lo = int(b.min())
        w = np.bincount(b - lo, weights=weight[pos])
        above = np.cumsum(w[::-1])[::-1] - w   # the weight of the bins above each
        tops = np.exp2((np.arange(w.size) + lo + 1) / 4.0)
        cost = np.minimum(tops, float(np.max(r[pos]))) + 2.0 * h * above
        k = int(np.argmin(cost))
        if k < w.size - 1:
            charged[pos[b - lo > k]] = True
    rest = np.where(charged, 0.0, r)
    return (float(np.max(rest)) if rest.size else 0.0), charged


def _moved_down(q: np.ndarray, r: np.ndarray, charged: np.ndarray, h: float,
                first: np.ndarray) -> np.ndarray:
    r"""The other side's Q-masses ``q`` with the ``charged`` atoms (whose ratio's relative
    error bound ``r`` is too poor for the lattice's common shift) each moved down
    :math:`m = \lceil s/h \rceil` points, :math:`s = -\log(1 - r)` the loss shift it allows,
    with Q-mass :math:`q e^{-mh - s}`; dropped where r is 1/2 or more, or the point would
    lie below its lattice's ``first`` one.

    The true atom's loss u is at least :math:`t_k - s` and its P-mass at least :math:`q
    e^{-t_k - s}` (its Q-mass's own relative error is the lattice's ``rel``): so the moved
    atom, ratio :math:`e^{t_{k-m}} \le e^{u}` and that P-mass, is a part of the true one
    with Q-mass dropped, and lowers the profile like dropping the atom, by far less (the
    far tail of a rarely sampled step, where the answers at tiny δ are: σ = 0.587,
    p = 6.4e-6, thirteen thousand atoms above the loss 2.5 with r = 2e-11, dropped whole,
    took 22% of one factor's δ at ε = 2 for a common shift no smaller than 2e-11)."""
    out = np.where(charged, 0.0, q)
    k = np.flatnonzero(charged & (r < 0.5) & (q > 0))
    if k.size:
        s = -np.log1p(-r[k])
        m = np.maximum(np.ceil(s * (1.0 + 1e-9) / h), 1.0)
        dst = k - m.astype(np.int64)
        ok = dst >= first[k]
        out += np.bincount(dst[ok], weights=q[k[ok]] * np.exp(-m[ok] * h - s[ok]) * (
            1.0 - 4 * EPS), minlength=out.size)
    return out


def _shift_of(r: float) -> float:
    """Two-sided loss shift covering relative errors up to ``r`` of one mass."""
    return -math.log1p(-min(r, 0.5))


# ---------------------------------------------------------------------------
# pessimistic: connect-the-dots
# ---------------------------------------------------------------------------
def _snap_atoms(u: np.ndarray, qa: np.ndarray, t0: float, h: float,
                n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lattice points ``t0 + k h`` (``0 <= k < n``) that the atoms ``u`` (Q-masses ``qa``)
    join: ``(k, u, q, on)`` of the atoms kept, ``on`` for those within 1e-12 of their point.

    An atom on a lattice point stays there; any other joins the lattice point above it, the
    topmost atom the point below it; atoms outside the window are dropped whole.
    """
    kf = (u - t0) / h
    kr = np.round(kf).astype(np.int64)
    on = np.abs(kf - kr) * h <= 1e-12 * (1.0 + np.abs(u))
    k = np.where(on, kr, np.ceil(kf)).astype(np.int64)
    top = (u == np.max(u)) & ~on
    k = np.where(top, np.floor(kf).astype(np.int64), k)
    keep = (k >= 0) & (k < n)
    return k[keep], u[keep], qa[keep], on[keep]


def _split_bounds(Q: np.ndarray, EQ: np.ndarray, X: np.ndarray, EX: np.ndarray, h: float,
                  c: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""The Q-masses a cell of width ``h`` sends to its lower and upper end points
    (connect-the-dots), from its computed Q-mass and excess over the lower end,
    :math:`X = Q - e^{t}P`, with their error bounds: at least the exact split's mass above
    every threshold.

    The exact split sends :math:`b = X e^{h}/(e^{h} - 1)` to the upper point and :math:`a = Q -
    b` to the lower one (:math:`0 \le b \le Q` for a cell whose losses lie in it). With
    :math:`Q \le Q + E_Q` and :math:`|X_{\mathrm{true}} - X| \le E_X`, the upper point gets
    :math:`\min((X + E_X)^+ c\,(1 + 16u), Q + E_Q) \ge b` and the lower one the rest of
    :math:`Q + E_Q`: the Q-mass at or above any threshold is at least the exact split's (the
    profile :math:`E_Q[(1 - e^{\varepsilon - L})_+]` of one order, and of compositions, is
    an integral of a non-decreasing function of the losses). The error of X moves
    :math:`E_X c` of the cell's mass up by one step, a loss shift of about :math:`E_X/Q` of
    this cell alone, where a shift common to the lattice would move every cell by the worst
    cell's error (16 ulps: the rounding of ``c`` and the product; the rounding of the sums,
    a few ulps of each mass, is the lattice's relative allowance). ``c``: each cell's own
    :math:`e^{w}/(e^{w} - 1)`, for cells of several widths w (:func:`_disc_pess`)."""
    if c is None:
        c = math.exp(h) / math.expm1(h)
    q_hi = Q + EQ  # (then in place: a fresh array's pages cost more than its arithmetic)
    b = X + EX
    np.maximum(b, 0.0, out=b)
    b *= c * (1.0 + 16 * EPS)
    np.minimum(b, q_hi, out=b)
    a = np.subtract(q_hi, b, out=q_hi)
    return np.maximum(a, 0.0, out=a), b


def _end_points(Q0: Any, EQ0: Any, Qn: Any, EQn: Any, Xn: Any, EXn: Any) -> tuple[Any, Any]:
    r"""Upper bounds on the Q-masses the tails send to the lattice's end points (scalars, or
    arrays of several factors): the lower tail's whole Q-mass :math:`Q_0 + E_{Q_0}` to the
    lowest point, and to the highest point the upper tail's :math:`e^{t}P = Q_n - X_n \le
    Q_n + E_{Q_n} - (X_n - E_{X_n})^+` (:math:`X_n \ge 0` exactly), each raised by 4 ulps
    (the rounding of the sums)."""
    low = (Q0 + EQ0) * (1.0 + 4 * EPS)
    high = (np.maximum(Qn - np.maximum(Xn - EXn, 0.0), 0.0) + EQn) * (1.0 + 4 * EPS)
    return low, high


def _lower_rest(t0: Any, P0: Any, EP0: Any, X0: Any, EX0: Any) -> Any:
    r"""An upper bound on the P-mass the lower tail sends to :math:`-\infty` once its Q-mass
    went to the lowest point :math:`t_0` (with P-mass :math:`e^{-t_0}Q_0` there): the rest
    :math:`P_0 - e^{-t_0}Q_0 = e^{-t_0}(-X_0) \le e^{-t_0}((-X_0)^+ + E_{X_0})`, or the whole
    :math:`P_0 + E_{P_0}` where :math:`e^{-t_0}` is out of range (:math:`|t_0| > 700`: its
    product overflows, or underflows against an infinite excess) or the product is not
    finite (scalars, or arrays of several factors)."""
    with np.errstate(all="ignore"):
        e0 = np.exp(np.clip(-t0, -700.0, 700.0))
        rest = (np.maximum(-X0, 0.0) + EX0) * e0
    whole = P0 + EP0
    ok = (np.abs(t0) <= 700.0) & np.isfinite(rest)
    return np.where(ok, np.minimum(rest, whole), whole)


# cells per piece of :func:`_excess` (its two dozen temporaries of this many doubles stay in
# the processor's cache)
_PIECE = 16_384


def _excess_pieces(law: Law, edges: np.ndarray, refs: np.ndarray
                   ) -> Iterator[tuple[int, tuple[np.ndarray, ...]]]:
    """``law.excess(edges, refs)`` as ``(first cell, its values)`` for consecutive pieces of
    ``_PIECE`` cells, for a law computed cell by cell (:meth:`Law._cellwise`) of over
    ``2 _PIECE`` cells; else one piece. The same values, bit for bit."""
    n = refs.size
    if n <= 2 * _PIECE or not law._cellwise():
        yield 0, law.excess(edges, refs)
        return
    for i in range(0, n, _PIECE):
        yield i, law.excess(edges[i:i + _PIECE + 1], refs[i:i + _PIECE])


def _excess(law: Law, edges: np.ndarray, refs: np.ndarray) -> tuple[np.ndarray, ...]:
    """``law.excess(edges, refs)``, for a law computed cell by cell (:meth:`Law._cellwise`)
    in pieces of ``_PIECE`` cells (:func:`_excess_pieces`): the same values, bit for bit.
    Over a whole lattice of a million points its temporaries, each a fresh array of a few
    megabytes, cost more than their arithmetic (a page fault per 4 KiB, memory traffic for
    each of some eighty passes): 0.24 s against 0.17 s in pieces for 1.67 million cells of
    a subsampled Gaussian."""
    parts = [vals for _, vals in _excess_pieces(law, edges, refs)]
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate(col) for col in zip(*parts, strict=True))


# points per part of a batch of lattices (:func:`_parts`)
_PART_POINTS = 2 * _PIECE


def _parts(sizes: Sequence[int], cap: int | None = None) -> list[tuple[int, int]]:
    """Consecutive index ranges ``[i, j)`` covering ``sizes`` whose sums are at most ``cap``
    (default ``_PART_POINTS``; a larger entry alone): many lattices are discretised or
    tilted part by part, each part's concatenated arrays staying in the processor's cache
    and their pages reused (1,000 subsampled Gaussians, 2.9 million points, discretised at
    once: 2.2 s; in parts of 2^15 points: 0.65 s, of 2^12 or 2^16: 0.9 s)."""
    cap = _PART_POINTS if cap is None else cap
    out, i, n = [], 0, len(sizes)
    while i < n:
        j, size = i + 1, int(sizes[i])
        while j < n and size + int(sizes[j]) <= cap:
            size += int(sizes[j])
            j += 1
        out.append((i, j))
        i = j
    return out


def _tail_charge(law: Law, X: Any, EX: Any, EQ: Any) -> Any:
    r"""The Q-mass at :math:`+\infty` of a lattice law beyond its last point t, before its
    atoms above t (:func:`_disc_pess`): the law's own, and the upper tail cell's beyond
    the mass e^t P it sends to t, its excess :math:`X = Q - e^{t}P \ge 0` (exactly) over
    t with that excess's and the cell's Q-mass error bounds ``EX``, ``EQ``."""
    return law.q_inf + max(X, 0.0) + EX + EQ


def _charged_beyond(law: Law, t: float) -> float:
    r""":func:`_tail_charge` of ``law`` beyond a last lattice point ``t``, from the one cell
    :math:`(t, \infty]` (without discretising a window)."""
    with np.errstate(all="ignore"):
        _, _, _, EQ, X, EX = law.excess(np.array([t, np.inf]), np.array([t]))
    return float(_tail_charge(law, X[0], EX[0], EQ[0]))


def _disc_pess(law: Law, h: float, ka: int, kb: int, off: float = 0.0,
               coarse: tuple[int, int] | None = None) -> _Lat:
    r"""Connect-the-dots, each lattice mass an upper bound on the exact split's
    (:func:`_split_bounds`; cells with no finite error bound charged in full instead). The
    cells are taken piece by piece (:func:`_excess_pieces`), each piece's splits added to
    the lattice at once: no array of all the cells' masses is made (six of 14 MB each for
    a lattice of 1.7 million points, and their concatenation: 230 → 180 ms measured). The
    same masses, bit for bit (each point gets at most one split from each side, and the
    end points' tails first).

    ``coarse = (k, m)``: the cells above the ``k``-th point are ``m`` steps wide (the last
    one up to the window's end), their masses split between their own end points, which
    lie on the lattice; the points between get nothing (:func:`_coarse_points`). Sound at
    any widths, as the split of every cell is: it keeps the cell's Q-mass and its
    :math:`E_Q[e^{-L}]`, and the profile of a composition, :math:`E_Q[(1 - e^{\varepsilon -
    t - S})_+]` as a function of one factor's loss t (S the rest), is convex in
    :math:`e^{-t}`, so the split raises it, and leaves it exact on every cell that does not
    hold the kink :math:`t = \varepsilon - S` (it is linear in :math:`e^{-t}` there). The
    widths only matter where the rest S falls so low that the kink lands in a wide cell
    (:meth:`~gdp.engine.numeric._Engine._coarse_above` chooses ``k``). The lattice's other
    points are those of the fine grid, bit for bit. Not for laws with atoms."""
    n = kb - ka + 1
    if coarse is not None and law.atoms()[0].size:
        raise ValueError("coarse cells are for laws without atoms")
    pts = None if coarse is None else _coarse_points(n, *coarse)
    # (the points cells end at: all, or the same values at the coarse grid's points)
    t = np.arange(ka, kb + 1, dtype=float) * h + off if pts is None else \
        (ka + pts).astype(float) * h + off
    g = t.size
    cw = None if pts is None else _widths_c(np.diff(pts), h)
    edges = np.concatenate([[-np.inf], t, [np.inf]])
    refs = np.concatenate([[t[0]], t])     # cell 0: its upper end; cell i: its lower end
    out = np.zeros(n)
    # cell i of 1..g-1 sends Q-mass to its lower end (point i - 1 of t) and its upper end
    # (i) (:func:`_split_bounds`); cell 0, the lower tail, and cell g, the upper one: below
    split_a, split_b = np.zeros(max(g - 1, 0)), np.zeros(max(g - 1, 0))
    charged_i: list[np.ndarray] = []
    charged_m: list[np.ndarray] = []
    first = last = None
    for i0, (P, Q, EP, EQ, X, EX) in _excess_pieces(law, edges, refs):
        if i0 == 0:
            first = (Q[0], EQ[0], X[0], EX[0], P[0], EP[0])
        if i0 + Q.size == g + 1:
            last = (Q[-1], EQ[-1], X[-1], EX[-1])
        c0, c1 = max(i0, 1), min(i0 + Q.size, g)  # (the piece's interior cells)
        if c1 <= c0:
            continue
        sl = slice(c0 - i0, c1 - i0)
        q, eq, x, ex = Q[sl], EQ[sl], X[sl], EX[sl]
        a, b = _split_bounds(q, eq, x, ex, h, None if cw is None else cw[c0 - 1:c1 - 1])
        bad = ~(np.isfinite(eq) & np.isfinite(ex) & np.isfinite(x))
        if bad.any():
            k = np.flatnonzero(bad)
            with np.errstate(invalid="ignore"):
                charged_m.append(q[k] + eq[k])
            charged_i.append(k + (c0 - 1))
        split_a[c0 - 1:c1 - 1] = a
        split_b[c0 - 1:c1 - 1] = b
    assert first is not None and last is not None
    # tails: the lower tail's Q-mass to the lowest point, the rest of its P-mass to -inf;
    # the upper tail's P-mass to the highest point (with Q-mass e^{t} P = Q - X there), the
    # rest of its Q-mass to +inf (both exact at the end points, both spreads of the tail;
    # each mass its upper bound)
    low, high = _end_points(first[0], first[1], *last)
    out[0] += low
    out[-1] += high
    q_inf = _tail_charge(law, last[2], last[3], last[1])
    with np.errstate(over="ignore"):
        e0 = math.exp(min(-t[0], 700.0))
    p_ninf = law.p_ninf + float(_lower_rest(t[0], first[4], first[5], first[2], first[3]))
    eabs = np.zeros(n)
    if charged_i:
        i = np.concatenate(charged_i)  # (cells i + 1, between points i and i + 1 of t)
        m = np.concatenate(charged_m)
        up = t[i] >= 0.0
        # a charged cell of positive losses goes whole to the extremes (its Q-mass bound to
        # +inf, its P-mass bound e^{-t} Q to -inf: the true cell is a garbling of that pair),
        # an absolute charge no tilted frame magnifies; the others feed their end points
        # and are charged in full there
        split_a[i] = 0.0
        split_b[i] = 0.0
        q_inf += float(np.sum(m[up]))
        p_ninf += float(np.sum(m[up] * np.exp(-t[i[up]])))
        i, m = i[~up], m[~up]
        np.add.at(eabs, i if pts is None else pts[i], m)
        np.add.at(eabs, i + 1 if pts is None else pts[i + 1], m)
    u, pa, qa = law.atoms()
    atomic = False
    if u.size:
        below = u <= t[0]
        above = u > t[-1]
        mid = ~(below | above)
        out[0] += qa[below].sum()
        with np.errstate(over="ignore"):
            p_ninf += float(np.sum(np.maximum(pa[below] - qa[below] * e0, 0.0))) * (1 + 4 * EPS)
        q_inf += qa[above].sum()
        p_ninf += pa[above].sum()
        if mid.any() and n > 1:
            um, qm = u[mid], qa[mid]
            k = np.clip(np.floor((um - t[0]) / h).astype(np.int64), 0, n - 2)
            d = np.clip(um - t[k], 0.0, h)
            atomic = bool(np.any((d > 1e-12 * (1.0 + np.abs(um))) &
                                 (h - d > 1e-12 * (1.0 + np.abs(um)))))
            a_, b_ = _atom_split(qm, d, h)
            np.add.at(split_a, k, a_)
            np.add.at(split_b, k, b_)
        elif mid.any():
            out[0] += qa[mid].sum()
    if g > 1 and pts is None:
        out[:-1] += split_a
        out[1:] += split_b
    elif g > 1:
        out[pts[:-1]] += split_a
        out[pts[1:]] += split_b
    nz = np.flatnonzero(eabs)
    # (rel: the rounding of the sums of upper bounds each entry is; shift: the lattice
    # points' own rounding)
    return _Lat(ka, out, min(q_inf * (1 + 4 * EPS), 1.0), min(p_ninf * (1 + 4 * EPS), 1.0),
                8 * EPS, nz, eabs[nz], off, 4 * EPS * (1.0 + max(abs(t[0]), abs(t[-1]))),
                atomic)


def _coarse_points(n: int, k: int, m: int) -> np.ndarray:
    """The points of a lattice of ``n`` points whose cells are one step wide up to point
    ``k`` and ``m`` steps wide above it, the last one ending at point ``n - 1``
    (``0 < k < n - 1``, ``m >= 2``)."""
    if not (0 < k < n - 1 and m >= 2):
        raise ValueError(f"coarse cells need 0 < k < n - 1 and m >= 2, got k={k}, n={n}, "
                         f"m={m}")
    return np.concatenate([np.arange(k + 1, dtype=np.int64),
                           np.arange(k + m, n - 1, m, dtype=np.int64),
                           np.array([n - 1], dtype=np.int64)])


def _widths_c(steps: np.ndarray, h: float) -> np.ndarray:
    r""":math:`e^{w}/(e^{w} - 1)` of each cell of ``steps`` lattice steps (``w = steps h``), as
    :func:`_split_bounds` computes it for one width (the same value, bit for bit, for
    cells one step wide)."""
    out = np.empty(steps.size)
    for s in np.unique(steps).tolist():
        w = s * h  # (h itself for one step)
        out[steps == s] = math.exp(w) / math.expm1(w)
    return out


def _atom_split(qm: np.ndarray, d: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The Q-masses an atom of Q-mass ``qm`` at ``d`` above a lattice point sends to that
    point and to the next (``0 <= d <= h``; the upper part raised by 16 ulps, the rounding
    of the split, as in :func:`_split_bounds`)."""
    b = np.minimum(qm * -np.expm1(-d) * (math.exp(h) / math.expm1(h) * (1.0 + 16 * EPS)), qm)
    return np.maximum(qm - b, 0.0), b


# ---------------------------------------------------------------------------
# optimistic: a garbling by balanced blocks
# ---------------------------------------------------------------------------
def _disc_opt(law: Law, h: float, ka: int, kb: int, off: float = 0.0,
              pile_top: float | None = None, tilt: float | None = None,
              factors: int = 1) -> _Lat:
    r"""Optimistic lattice law: a garbling of the true pair whose atoms sit exactly on the
    lattice, from which Q-mass may be dropped (:func:`_sweep`).

    The losses of each half-cell :math:`(t_j - h/2, t_j + h/2]` are merged into one atom
    (the upper tail into the top one, the lower tail dropped); an off-lattice atom of the
    law joins the half-cell it lies in, one on a lattice point stays there exactly (it
    lends, never borrows). The merged atoms are balanced to the lattice ratios by merging
    proportional slivers of neighbours (:func:`_sweep`). Every step merges proportional
    parts, or drops whole parts or Q-mass alone, so the lattice law's one-order profile lies
    below the true one at every ε. The imbalance left by rounding and the error bounds of
    the merged masses are charged as a loss shift, the relative errors of the masses as a
    relative allowance.

    ``pile_top``: the half-cells of the points up to this loss are garbled by runs of fine
    cells instead (:func:`_pile_runs`: the bulk of a rarely sampled step piled against
    its floor, which the balancing would merge whole). ``tilt``: the tilt of the frame the
    lattice serves, whose weights decide which atoms with poor ratio bounds move down
    rather than widen the loss shift (:func:`_charge`), for a law composed ``factors``
    times; None: only those of the budget.
    """
    n = kb - ka + 1
    t = np.arange(ka, kb + 1, dtype=float) * h + off
    edges = np.concatenate([[-np.inf], t - 0.5 * h, [np.inf]])
    refs = np.concatenate([[t[0]], t])
    # (cells 1..n, each piece written at once: no arrays of all the cells' masses)
    q, x, eq, ex = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    with narrow_cells():
        for i0, (_, Q, _, EQ, X, EX) in _excess_pieces(law, edges, refs):
            c0 = 1 if i0 == 0 else 0  # (cell 0, the lower tail, is dropped)
            sl = slice(i0 + c0 - 1, i0 + Q.size - 1)
            q[sl], x[sl], eq[sl], ex[sl] = Q[c0:], X[c0:], EQ[c0:], EX[c0:]
    u, pa, qa = law.atoms()
    a = -1 if pile_top is None or u.size else \
        min(int(math.floor((pile_top - off) / h)) - ka, n - 2)
    if 1 <= a <= _PILE_POINTS:  # (a bulk piled against the window's lower end)
        _pile_runs(law, edges[1:a + 3], t[:a + 2], q, x, eq, ex)
    _proportional_part(q, x, eq, ex)
    qe = np.zeros(n)  # Q-masses of the law's atoms that sit on lattice points
    atomic = False
    if u.size:
        # an atom on a lattice point stays there; any other joins the lattice point above
        # it (a deficit there, balanced with content from above), the topmost atom the point
        # below it (an excess), so that a lender is at hand (for randomized response, each
        # of its two atoms lends to the other); each Q-mass lowered by its error (4 EPS)
        k, ua, qk, on = _snap_atoms(u, qa, float(t[0]), h, n)
        atomic = bool((~on).any())
        qk = qk * (1.0 - 8 * EPS)
        np.add.at(qe, k[on], qk[on])
        k, ua, qk = k[~on], ua[~on], qk[~on]
        with np.errstate(all="ignore"):
            xa = -qk * np.expm1(t[k] - ua)  # q - e^{t_k} p
        np.add.at(q, k, qk)
        np.add.at(x, k, xa)
        np.add.at(ex, k, 4 * EPS * (qk + np.abs(xa)))
    # (an atom within 1e-12 of a lattice point is taken to be on it: a loss shift)
    on_shift = 4e-12 * (1.0 + float(np.max(np.abs(u)))) if u.size else 0.0
    qf, r_atom = _sweep(t, q, x, ex, qe)
    # atoms whose ratio bound is poor are moved down instead of widening the shift
    rmax, charged = _charge(qf, r_atom + 16 * EPS, h=h, tilt=tilt, t=t, n=factors)
    qf = _moved_down(qf, r_atom + 16 * EPS, charged, h, np.zeros(n, dtype=np.int64))
    shift = _shift_of(rmax) + 4 * EPS * (1.0 + float(np.max(np.abs(t)))) + on_shift
    return _Lat(ka, np.minimum(qf, 1.0), law.q_inf, 0.0, 16 * EPS, off=off, shift=shift,
                atomic=atomic)


def _proportional_part(q: np.ndarray, x: np.ndarray, eq: np.ndarray, ex: np.ndarray) -> None:
    r"""The other side's cells scaled, in place, by :math:`f = 1 - r - 2\,\mathrm{EPS}`,
    :math:`r = \min(E_Q/q, 1)` their Q-mass's relative error bound: the Q-mass ``q`` and
    the excess ``x`` (so P too: the cell's ratio is kept), ``eq`` set to 0.

    Writing the computed cell as the true one with Q scaled by :math:`1 + b`,
    :math:`|b| \le r`, and P by :math:`1 + a` (the ratio's error, which ``ex`` bounds and
    the lattice's loss shift covers), the scaled cell is the true one's proportional part
    :math:`(1 + b) f \le 1` (with the product's rounding), with that ratio error: the
    balancing (:func:`_sweep`) then merges proportional parts of such cells, which lowers
    the profile, and the lattice carries no relative allowance of its own. Before, it
    carried the largest relative error of any cell and its neighbours, which a
    composition multiplies by its number of factors: a far-tail cell's 1.4e-10 over 9.8
    million rarely sampled steps lowered the other side's δ by 0.14%, where the Q-weighted
    mean of those errors, what the cells now lose, is 1.9e-14. (Q alone lowered by its
    error would leave a balanced bulk with a deficit, which its light neighbours cannot
    lend to: rounded a whole step down, 144 of 320 lower ends of the box scan fell, by up
    to 0.08%.)"""
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(q > 0.0, eq / q, 0.0)
    np.minimum(f, 1.0, out=f)
    np.subtract(1.0 - 2 * EPS, f, out=f)
    np.maximum(f, 0.0, out=f)
    q *= f
    x *= f
    eq[...] = 0.0


# fine cells of a pile at most (16 per step at the most steps :func:`_pile_top` allows):
# more did not help (σ = 0.58, p = 1.4e-6, 3.8M steps: the bracket 0.229% wide at 2**14
# cells, 0.233% at 2**18, for 0.3-0.6 s more)
_PILE_CELLS = 1 << 14
# points of a pile region at most: a bulk far above the window's lower end (the other
# order's law, whose bulk lies against its ceiling, above a long lower tail) is left to the
# balancing (there the region reached 851,000 points and took 20 s)
_PILE_POINTS = 2048


def _pile_runs(law: Law, e: np.ndarray, t: np.ndarray, q: np.ndarray, x: np.ndarray,
               eq: np.ndarray, ex: np.ndarray) -> tuple[np.ndarray, ...] | None:
    r"""The content of the half-cells ``(e_0, e_{a+1}]`` of the points ``t_0 .. t_a``
    garbled by runs of fine cells, each merged onto a lattice point, in place of their
    half-cell atoms (``q``, ``x``, ``eq``, ``ex`` of :func:`_disc_opt`, updated in place;
    ``t`` holds one point more, ``t_{a+1}``). Returns the runs (for checking): the fine
    edges, each run's first and last cell, the weights of those two, its target's index
    and whether it was closed; None where there was no content.

    The fine cells (16 to 256 per step, ``_PILE_CELLS`` at most) are walked upwards. A run
    starts at the first content left and targets the lowest lattice point at or above its
    merged loss (above the previous run's); it takes cells until its merged loss reaches
    the target, the last one by the proportional sliver that makes it exact, whose rest
    starts the next run. The run left open at the top joins its target as a deficit,
    which :func:`_sweep` balances with content from above (as an off-lattice atom of a law
    does); cells in no run are dropped.

    Soundness. Each run merges whole cells and proportional parts of cells, and a cell's
    parts (the sliver's fraction f and the rest rounded down, ``nextafter(1 - f, 0)``) sum
    to at most 1: the runs' atoms are a garbling of a part of the content, which lowers
    the profile. Only the choice of the slivers uses the first pass's floating-point
    masses; a run's sums are taken again from :meth:`~gdp.engine.laws.Law.excess`, in at
    most three parts against the run's target t: its first cell where the run before has
    the rest of it (from a second call, against this run's target), the whole cells after
    it as one cell (the rounding of inner edges only moves mass within the run), its last
    cell. With the parts' masses :math:`Q_i`, excesses :math:`X_i = Q_i - e^{t}P_i` and
    error bounds, and weights :math:`w_i`: the run's Q-mass :math:`\sum_i w_i Q_i` errs by
    at most :math:`\sum_i w_i E_{Q,i}` and the products' and the sum's rounding (a
    relative u each and 2u of the sum of three, charged as 16u), which goes to ``eq``
    (the relative allowance); its imbalance :math:`\sum_i w_i X_i` lies within
    :math:`\sum_i w_i E_{X,i}` and the same rounding of what was computed, and the whole
    of it (computed value and bound) goes to ``ex`` with ``x = 0``, so the sweep's ratio
    bounds (the loss shift, or the atom moved down) cover a run not exactly balanced.

    Why: a rarely sampled step's bulk piles up against its floor :math:`\log(1-p)`, half
    its Q-mass within a step, with a long thin slope above; the half-cell atoms there fall
    short of their points, no neighbour can lend, and the balancing merged the slope into
    one atom (σ = 0.58, p = 1.4e-6, step 6.43e-7: 0.969 of the Q-mass on one point, the
    one-order profile up to 40% and on average 4.8% below the true one for losses below
    2e-5, the ε of 3.8 million steps 2.4% low). With the runs: at most 2.6%, on average
    0.17%, and that ε's bracket 0.23% wide.
    """
    a = e.size - 2
    fine = int(min(256, max(16, _PILE_CELLS // (a + 1))))
    fe = np.linspace(0.0, 1.0, fine + 1)[:-1]
    # fine edges: each half-cell cut in ``fine`` parts, its ends exactly those of the
    # half-cells (any partition of the content will do: the cells need only be disjoint)
    fe = (e[:-1, None] + (e[1:] - e[:-1])[:, None] * fe[None, :]).reshape(-1)
    fe = np.maximum.accumulate(np.append(fe, e[-1]))
    m = fe.size - 1
    with narrow_cells():
        P, Q, _, _ = law.cells(fe)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip(np.log(Q) - np.log(P), fe[:-1], fe[1:])  # (a cell's merged loss)
    h = float(t[1] - t[0])
    # pass 1 (floating point, only the runs' choice rests on it): cells, fractions, targets
    starts, firsts, ends, lasts, targets = [], [], [], [], []
    s, avail, k_prev = 0, 1.0, -1
    while s < m:
        if not (P[s] > 0.0 or Q[s] > 0.0) or avail <= 0.0:
            s, avail = s + 1, 1.0
            continue
        k = max(int(math.ceil((u[s] - t[0]) / h - 1e-9)), k_prev + 1)
        if k > a + 1:
            break
        et = math.exp(t[k])
        c = avail * (Q[s] - et * P[s])
        j, f, span = s + 1, None, 64
        if c >= 0.0:
            j, f = s, avail
        while f is None and j < m:
            xs = Q[j:j + span] - et * P[j:j + span]
            cs = c + np.cumsum(xs)
            hit = np.flatnonzero(cs >= 0.0)
            if hit.size:
                i = int(hit[0])
                before = c if i == 0 else float(cs[i - 1])
                j += i
                f = min(max(-before / float(xs[i]), 0.0), 1.0)
                break
            c = float(cs[-1])
            j += xs.size
            span *= 4
        starts.append(s)
        firsts.append(avail)
        targets.append(k)
        k_prev = k
        if f is None:  # (the run left open: to the end of the region)
            ends.append(m - 1)
            lasts.append(1.0 if m - 1 > s else avail)
            break
        ends.append(j)
        lasts.append(f)
        if j == s:
            s, avail = s + 1, 1.0
        else:
            s, avail = j, math.nextafter(1.0 - f, 0.0)
    if not starts:
        return None
    closed = len(ends) - (0 if f is not None else 1)
    # pass 2: each run's parts against its target: its first cell where another run has
    # the rest of it (from a second call), the whole cells after it as one cell (their
    # inner edges' rounding moves mass within the run only), its last cell
    r = len(starts)
    st, en = np.array(starts), np.array(ends)
    fa, la_ = np.array(firsts), np.array(lasts)
    tk = t[np.array(targets)]
    shared = np.concatenate([[False], st[1:] == en[:-1]])
    one = st == en
    lo = np.where(shared, st + 1, st)             # the first cell of the whole block
    hi = np.where(one, lo - 1, en - 1)            # its last (none where lo > hi)
    # call 1, one ascending partition: per run its block (lo, hi) and its last cell
    # (a one-cell run not shared: that cell alone, at its weight)
    e1: list[float] = []
    ref1: list[float] = []
    seg_run: list[int] = []
    seg_w: list[float] = []
    pos = -1  # (the fine edge index the partition has reached)
    for i in range(r):
        parts = []
        if lo[i] <= hi[i]:
            parts.append((int(lo[i]), int(hi[i]) + 1, 1.0))
        if not (one[i] and shared[i]):
            parts.append((int(en[i]), int(en[i]) + 1, min(fa[i], la_[i]) if one[i] else la_[i]))
        for a0, a1, wgt in parts:
            if a0 != pos:   # (a gap of cells in no run, or the start: a cell read by none)
                if pos >= 0:
                    ref1.append(float(tk[i]))
                    seg_run.append(-1)
                    seg_w.append(0.0)
                e1.append(float(fe[a0]))
            e1.append(float(fe[a1]))
            ref1.append(float(tk[i]))
            seg_run.append(i)
            seg_w.append(wgt)
            pos = a1
    sr, sw = np.array(seg_run), np.array(seg_w)
    with narrow_cells():
        _, Q1, _, EQ1, X1, EX1 = _excess(law, np.array(e1), np.array(ref1))
        use = sr >= 0
        parts_run = [sr[use]]
        parts = [(sw[use], Q1[use], EQ1[use], X1[use], EX1[use])]
        sh = np.flatnonzero(shared)
        if sh.size:  # call 2: the shared first cells, against their own runs' targets
            sc = st[sh]
            e2 = np.stack([fe[sc], fe[sc + 1]], axis=1).reshape(-1)
            r2 = np.repeat(tk[sh], 2)[:-1]
            _, Q2, _, EQ2, X2, EX2 = _excess(law, e2, r2)
            w2 = np.where(one[sh], np.minimum(fa[sh], la_[sh]), fa[sh])
            parts_run.append(sh)
            parts.append((w2, Q2[::2], EQ2[::2], X2[::2], EX2[::2]))
    run = np.concatenate(parts_run)
    w, Qc, EQc, Xc, EXc = (np.concatenate([pt[j] for pt in parts]) for j in range(5))
    wq, wx = w * Qc, w * Xc

    def by_run(v: np.ndarray) -> np.ndarray:
        return np.bincount(run, weights=v, minlength=r)

    sq, sx = by_run(wq), by_run(wx)
    # (at most three parts a run: the products err by a relative u each, the sums by
    # 2u of the absolute terms' sum; charged as 16u, on the bounds' own sums too)
    slack = 16.0 * EPS
    seq = (1.0 + slack) * by_run(w * EQc) + slack * sq
    sex = (1.0 + slack) * by_run(w * EXc) + slack * by_run(np.abs(wx))
    kk = np.array(targets)
    q[:a + 1] = 0.0
    x[:a + 1] = 0.0
    eq[:a + 1] = 0.0
    ex[:a + 1] = 0.0
    c_ = slice(0, closed)
    q[kk[c_]] += sq[c_]
    eq[kk[c_]] += seq[c_]
    ex[kk[c_]] += np.abs(sx[c_]) + sex[c_]
    if closed < r:  # the open run: a deficit at its target
        k = kk[-1]
        q[k] += sq[-1]
        x[k] += sx[-1]
        eq[k] += seq[-1]
        ex[k] += sex[-1]
    return fe, st, en, fa, la_, kk, np.arange(r) < closed


def _neighbours(nonempty: np.ndarray, seg: tuple | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest non-empty index strictly above (n if none) and below (-1 if none), within
    the segment of each index (``seg``: arrays of the first and last index of it)."""
    n = nonempty.size
    idx = np.arange(n)
    a = np.where(nonempty, idx, n)
    above = np.concatenate([np.minimum.accumulate(a[::-1])[::-1][1:], [n]])
    b = np.where(nonempty, idx, -1)
    below = np.concatenate([[-1], np.maximum.accumulate(b)[:-1]])
    if seg is not None:
        above = np.where(above > seg[1], n, above)
        below = np.where(below < seg[0], -1, below)
    return above, below


def _segment_maxima(w: np.ndarray, seg: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment of ``seg`` (see :func:`_neighbours`): its largest positive entry of ``w``
    (-inf if none) and the first and last index holding it (n and -1 if none)."""
    n = w.size
    sid, sstart = seg[2], seg[3]
    v = np.where(w > 0, w, -np.inf)
    vmax = np.maximum.reduceat(v, sstart) if n else np.full(sstart.size, -np.inf)
    at = np.flatnonzero((v == vmax[sid]) & (v > 0))   # each segment's maxima, in order
    first = np.full(sstart.size, n)
    last = np.full(sstart.size, -1)
    if at.size:
        g = sid[at]
        change = g[1:] != g[:-1]
        head, tail = np.concatenate([[True], change]), np.concatenate([change, [True]])
        first[g[head]] = at[head]
        last[g[tail]] = at[tail]
    return vmax, first, last


def _heaviest(w: np.ndarray, seg: tuple, qi: np.ndarray, up: np.ndarray,
              maxima: tuple | None = None) -> np.ndarray:
    """For each query index ``qi`` (``up`` or not): the index of the largest positive entry of
    ``w`` strictly above it (its first occurrence; n if none) or strictly below it (its
    last; -1 if none), within its segment (``seg``, see :func:`_neighbours`).

    The queries are the few atoms whose neighbour cannot lend. A query below its
    segment's first maximum (above its last) is answered by it (``maxima``:
    :func:`_segment_maxima`, computed here if not given); a segment holding other queries
    is scanned once per direction, from its lowest such upward query to its end (from its
    start to its highest downward one)."""
    n = w.size
    lo, hi, sid = seg[0], seg[1], seg[2]
    out = np.where(up, n, -1)
    _, first, last = _segment_maxima(w, seg) if maxima is None else maxima
    s = sid[qi]
    f, l_ = first[s], last[s]
    known = np.where(up, (f > qi) | (f == n), l_ < qi)
    out = np.where(known, np.where(up, f, l_), out)
    rest = ~known & np.where(up, qi < hi[qi], qi > lo[qi])  # (empty ranges: none)
    for g in np.unique(s[rest]):
        mine = rest & (s == g)
        a, b = int(lo[qi[mine][0]]), int(hi[qi[mine][0]])
        u = np.flatnonzero(mine & up)
        if u.size:
            c = int(qi[u].min()) + 1                  # first entry any query looks at
            v = np.where(w[c:b + 1] > 0, w[c:b + 1], -np.inf)
            m = np.maximum.accumulate(v[::-1])[::-1]                  # suffix maxima
            j = np.arange(m.size)
            arg = np.minimum.accumulate(np.where(v >= m, j, m.size)[::-1])[::-1]
            k = qi[u] + 1 - c
            out[u] = np.where(m[k] > 0, c + arg[k], n)
        d = np.flatnonzero(mine & ~up)
        if d.size:
            e = int(qi[d].max())                      # entries below it are looked at
            v = np.where(w[a:e] > 0, w[a:e], -np.inf)
            m = np.maximum.accumulate(v)                              # prefix maxima
            j = np.arange(m.size)
            arg = np.maximum.accumulate(np.where(v >= m, j, -1))
            k = qi[d] - 1 - a
            out[d] = np.where(m[k] > 0, a + arg[k], -1)
    return out


def _imbalance_at(t: np.ndarray, q: np.ndarray, x: np.ndarray, src: np.ndarray,
                  dst: np.ndarray) -> np.ndarray:
    r""":math:`x_s^{(d)} = q_s - e^{t_d}p_s = q_s - e^{t_d - t_s}(q_s - x_s)`: the imbalance of
    atom ``src`` with respect to the ratio of lattice point ``dst`` (scale-free)."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.exp(np.minimum(t[dst] - t[src], 700.0))
        return q[src] - s * (q[src] - x[src])


def _sweep(t: np.ndarray, q: np.ndarray, x: np.ndarray, ex: np.ndarray, qe: np.ndarray,
           seg: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Garble merged atoms (Q-masses ``q``, imbalances :math:`x_k = q_k - e^{t_k}p_k`) into
    atoms of ratio exactly :math:`e^{t_k}` (see :func:`_disc_opt`).

    An atom with a deficit takes a fraction :math:`\theta_k` of its nearest non-empty
    neighbour above, one with an excess of its neighbour below, so that :math:`(1 -
    \ell_k)x_k + \theta_k Y_k = 0` (:math:`Y_k` the lender's imbalance with respect to
    :math:`e^{t_k}`, :math:`\ell_k` the fraction the atom lends itself). Each fraction is
    taken from the lender's original content, which keeps the lender's ratio, so the
    fractions solve a weakly coupled linear system (fractions of order h where the law is
    smooth), solved by fixed-point iteration. An atom that cannot be balanced so (its lender
    too light or over-committed, or none: ends of the support, steep edges, a law
    concentrated in one cell) is either merged whole into a neighbour (into its lender, or
    an excess with nothing below into the atom above, where it is a deficit), repeatedly,
    or *rounded*: its P-mass moves to the largest lattice point below its ratio with
    Q-mass :math:`e^{t}` times that, the rest of its Q-mass dropped (the top atom, which
    holds the truncated upper tail, is always rounded). Both strategies (merging first,
    rounding at once) are tried when needed and the one keeping more Q-mass is used.
    Every step merges proportional parts, drops Q-mass or drops whole parts: the result's
    profile lies below the true one. Returns the Q-masses of the balanced atoms and, per
    atom, a bound on the relative error of its ratio (the residual imbalance after
    rounding and the error bounds ``ex`` of the merged imbalances)."""
    qa, ra, rounded = _balance_pass(t, q, x, ex, qe, 12, seg)
    if seg is None:
        kept, total = float(np.sum(qa)), float(np.sum(q + qe))
        if not rounded.any() and kept >= total * (1.0 - 1e-12):
            return qa, ra
        qb, rb, _ = _balance_pass(t, q, x, ex, qe, 0, seg)
        return (qa, ra) if float(np.sum(qa)) >= float(np.sum(qb)) else (qb, rb)
    # per segment: rounding at once is tried only where merging first had to round an
    # atom other than the top one (elsewhere it would round at least as much), and the
    # strategy keeping more Q-mass is used
    sa = np.add.reduceat(qa, seg[3])
    lost = rounded
    if not lost.any():
        return qa, ra
    sub = np.flatnonzero(lost[seg[2]])
    ends = np.concatenate([seg[3], [t.size]])
    lens = (ends[1:] - ends[:-1])[lost]
    st = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    sid = np.repeat(np.arange(lens.size), lens)
    sseg = (st[sid], (st + lens - 1)[sid], sid, st)
    qb, rb, _ = _balance_pass(t[sub], q[sub], x[sub], ex[sub], qe[sub], 0, sseg)
    sb = np.add.reduceat(qb, st)
    pick = np.zeros(t.size, dtype=bool)
    pick[sub] = (sb > sa[lost])[sid]
    qo, ro = qa.copy(), ra.copy()
    qo[sub] = np.where(pick[sub], qb, qa[sub])
    ro[sub] = np.where(pick[sub], rb, ra[sub])
    return qo, ro


def _balance_pass(t: np.ndarray, q: np.ndarray, x: np.ndarray, ex: np.ndarray,
                  qe: np.ndarray, merge_rounds: int, seg: tuple | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One strategy of :func:`_sweep`: merge bad atoms for ``merge_rounds`` rounds, then
    round what is left (each round the atoms found bad; after ``_ROUNDING_ROUNDS`` such
    rounds every unbalanced atom left at once, :meth:`_Balancing.round_rest`). ``qe`` are
    exact atoms on the lattice points (they lend, never borrow; an absorbed lender brings
    them along). ``seg`` (first index, last index, segment id per index, segment starts)
    keeps several laws laid end to end apart; each round works on the segments not settled
    yet only. Returns (Q-masses, relative ratio errors, whether any atom other than a top
    one was rounded, per segment)."""
    b = _Balancing(t, q, x, ex, qe, seg)
    for rnd in range(4 * t.size + 16):  # ends: every round settles a segment or moves an atom
        if not b.active.any():
            break
        if rnd >= merge_rounds + _ROUNDING_ROUNDS:
            b.round_rest(rnd)
            continue
        b.round(rnd, merge_rounds)
    return b.result()


# rounding rounds before every unbalanced atom left is rounded at once: a rounded atom's
# mass can leave its neighbour with no lender, which is rounded the next round, and so on
# down the lattice (the top of a law, 1,460 rounds of one atom each, 1.5 s)
_ROUNDING_ROUNDS = 48


class _Balancing:
    """The state of one :func:`_balance_pass`: the masses (``q``, ``x``, ``ex`` change where
    atoms move), each atom's lender and imbalance with respect to it, and the fractions of
    the segments settled.

    A round needs every atom's status (its lender, its fraction's first guess, whether it
    is bad) in the segments not settled yet. Atoms move in few places a round (the ends of
    the support, a steep edge), so the status is kept and recomputed only where its inputs
    changed: at the atoms moved, at those whose nearest non-empty neighbour or lender is one
    of them (between the moved atom's neighbours), and at the atoms whose nearest neighbour
    cannot lend (their second choice, the heaviest on the needed side, depends on the whole
    segment). The rounds' decisions are those of recomputing everything each round."""

    def __init__(self, t: np.ndarray, q: np.ndarray, x: np.ndarray, ex: np.ndarray,
                 qe: np.ndarray, seg: tuple | None) -> None:
        n = t.size
        self.t, self.n = t, n
        self.q, self.x, self.ex, self.qe = q.copy(), x.copy(), ex.copy(), qe.copy()
        if seg is None:
            seg = (np.zeros(n, dtype=np.int64), np.full(n, n - 1, dtype=np.int64),
                   np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64))
        self.seg = seg
        self.lo, self.hi, self.sid, self.sstart = seg
        S = self.sstart.size
        self.send = np.concatenate([self.sstart[1:], [n]])
        self.h = float(t[1] - t[0]) if n > 1 else 1.0
        # settled segments' fractions
        self.theta, self.lend, self.Yf = np.zeros(n), np.zeros(n), np.zeros(n)
        self.src = np.arange(n)
        self.rounded_any = np.zeros(S, dtype=bool)
        self.active = np.ones(S, dtype=bool)
        # the status, kept between rounds
        self.w = self.q + self.qe
        self.nonempty = (self.q > 0) | (self.qe > 0)
        self.above, self.below = _neighbours(self.nonempty, seg)
        self.smax, self.sfirst, self.slast = _segment_maxima(self.w, seg)
        self.need_up = np.zeros(n, dtype=bool)
        self.need_dn = np.zeros(n, dtype=bool)
        self.li1 = np.zeros(n, dtype=np.int64)   # first choice: the nearest neighbour
        self.Y1 = np.zeros(n)
        self.has1 = np.zeros(n, dtype=bool)
        self.fail1 = np.zeros(n, dtype=bool)     # ... that cannot lend
        self.li = np.zeros(n, dtype=np.int64)    # the lender used (second choice too)
        self.Y = np.zeros(n)
        self.has = np.zeros(n, dtype=bool)
        self.use = np.zeros(n, dtype=bool)
        self.dirty = np.arange(n)   # (all of it, the first round)

    # -- status ---------------------------------------------------------------
    def _first_choice(self, D: np.ndarray) -> None:
        """The atoms ``D``'s first choice of lender, the nearest non-empty neighbour on the
        side each needs, and whether it balances them (a fraction in (0, 1])."""
        n, x = self.n, self.x
        own = self.q[D] > 0
        xd = x[D]
        nu, nd = own & (xd < 0), own & (xd > 0)
        lender = np.where(nu, self.above[D], np.where(nd, self.below[D], -1))
        h1 = (lender >= 0) & (lender < n)
        l1 = np.clip(lender, 0, n - 1)
        Yv = np.where(h1, _imbalance_at(self.t, self.w, x, l1, D), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            th0 = np.where(Yv != 0, -xd / Yv, np.inf)
        u1 = (nu | nd) & h1 & (th0 > 0) & (th0 <= 1.0)
        self.need_up[D], self.need_dn[D] = nu, nd
        self.li1[D], self.Y1[D], self.has1[D] = l1, Yv, h1
        self.fail1[D] = (nu | nd) & ~u1
        self.li[D], self.Y[D], self.has[D], self.use[D] = l1, Yv, h1, u1

    def _second_choice(self, F: np.ndarray) -> None:
        """The heaviest atom on the needed side, for the atoms whose nearest neighbour
        cannot lend (laws dominated by a few atoms: Laplace, randomized response)."""
        n = self.n
        self.li[F], self.Y[F], self.has[F] = self.li1[F], self.Y1[F], self.has1[F]
        self.use[F] = False
        l2 = _heaviest(self.w, self.seg, F, self.need_up[F],
                       (self.smax, self.sfirst, self.slast))
        ok2 = (l2 >= 0) & (l2 < n)
        fq, l2 = F[ok2], l2[ok2]
        Y2 = _imbalance_at(self.t, self.w, self.x, l2, fq)
        with np.errstate(divide="ignore", invalid="ignore"):
            th2 = np.where(Y2 != 0, -self.x[fq] / Y2, np.inf)
        ok = (th2 > 0) & (th2 <= 1.0)
        fq = fq[ok]
        self.li[fq], self.Y[fq] = l2[ok], Y2[ok]
        self.has[fq] = True
        self.use[fq] = True

    # -- a round ----------------------------------------------------------------
    def round(self, rnd: int, merge_rounds: int) -> None:
        """One round: the status, then :meth:`settle`."""
        self.settle(rnd, merge_rounds, *self.status())

    def round_rest(self, rnd: int) -> None:
        """Round every atom of the segments not settled whose ratio is not its lattice
        point's (each then holds its P-mass at a lattice point with Q-mass :math:`e^{t}`
        times it, balanced without a lender), then settle them."""
        B = np.flatnonzero(self.active[self.sid] & (self.q > 0) & (self.x != 0))
        self._update(self._merge_or_round(B, rnd, 0))
        self.round(rnd, 0)

    def status(self) -> tuple[np.ndarray, np.ndarray]:
        """Every atom's lender in the segments not settled (recomputed where it may have
        changed); the bad atoms (no lender can balance them) and the segments holding
        one."""
        sid = self.sid
        act = self.active[sid]
        D = self.dirty[act[self.dirty]]
        self._first_choice(D)
        F = np.flatnonzero(self.fail1 & act)
        if F.size:
            self._second_choice(F)
        bad = np.zeros(self.n, dtype=bool)
        bad[F] = ~self.use[F]
        seg_bad = np.zeros(self.active.size, dtype=bool)
        seg_bad[sid[F[bad[F]]]] = True
        return bad, seg_bad

    def settle(self, rnd: int, merge_rounds: int, bad: np.ndarray, seg_bad: np.ndarray
               ) -> None:
        """Segments with every atom balanced keep their fractions and settle; in the
        others the bad atoms are merged or rounded (``bad``, ``seg_bad``: :meth:`status`,
        extended here by the borrowers of over-committed lenders)."""
        sid = self.sid
        clean = self.active & ~seg_bad
        if clean.any():
            segs = np.flatnonzero(clean)
            I = _ranges(self.sstart[segs], self.send[segs] - 1)   # (their indices)
            u2 = self.use[I]
            # (lenders lie in their borrower's segment: local index by the same offset)
            s2 = np.where(u2, self.li[I] - I + np.arange(I.size), np.arange(I.size))
            theta, lend = _lend_fixed_point(self.x[I], self.Y[I], u2, s2)
            overb = u2 & (lend > 1.0)[s2]  # borrowers of an over-committed lender
            if overb.any():
                seg_bad[sid[I[overb]]] = True
                bad[I[overb]] = True
            ok = ~seg_bad[sid[I]]
            g = I[ok]
            self.theta[g], self.lend[g], self.Yf[g] = theta[ok], lend[ok], self.Y[g]
            self.src[g] = np.where(self.use[g], self.li[g], g)
            self.active[clean & ~seg_bad] = False
        moved = np.zeros(0, dtype=np.int64)
        if seg_bad.any():
            moved = self._merge_or_round(np.flatnonzero(bad & seg_bad[sid]), rnd,
                                         merge_rounds)
        self._update(moved)

    def _merge_or_round(self, B: np.ndarray, rnd: int, merge_rounds: int) -> np.ndarray:
        """Merge the bad atoms ``B`` into a neighbour or round them; the indices moved."""
        n, q, x, ex, t, h = self.n, self.q, self.x, self.ex, self.t, self.h
        ne = np.concatenate([[-1], np.flatnonzero(self.nonempty)])
        segs = np.unique(self.sid[B])
        tops = ne[np.searchsorted(ne, self.hi[self.sstart[segs]], side="right") - 1]
        tops = np.where(tops >= self.sstart[segs], tops, -1)
        top_of = np.full(self.active.size, -1, dtype=np.int64)
        top_of[segs] = tops
        topB = top_of[self.sid[B]]
        to_round = B == topB
        if rnd >= merge_rounds + 8:
            to_round = np.ones(B.size, dtype=bool)
        moved = [np.zeros(0, dtype=np.int64)]
        if rnd < merge_rounds:
            # a bad atom with a lender too light (or over-committed) absorbs it whole and
            # keeps its place; one with no lender on the needed side is merged into the
            # neighbour on the other side (an excess with nothing below goes up, where it
            # is a deficit). Each atom moves at most once a round and not into a mover.
            other = np.where(self.need_dn[B], self.above[B], self.below[B])
            hasB, liB = self.has[B], self.li[B]
            valid = (other >= 0) & (other < n)
            absorb = hasB & ~to_round & (q[liB] > 0)
            carry = ~hasB & valid & ~to_round
            s_all = np.concatenate([liB[absorb], B[carry]])
            d_all = np.concatenate([B[absorb], other[carry]])
            if s_all.size:
                _, first = np.unique(s_all, return_index=True)
                first = np.sort(first)
                s_all, d_all = s_all[first], d_all[first]
                ok = ~np.isin(d_all, s_all) & (s_all != top_of[self.sid[s_all]])
                s_, d_ = s_all[ok], d_all[ok]
                if s_.size:
                    # only the merged (continuous) part moves; exact atoms stay on their
                    # lattice points, where they are balanced
                    xs = _imbalance_at(t, q, x, s_, d_)
                    with np.errstate(over="ignore"):
                        sc = np.exp(np.minimum(t[d_] - t[s_], 700.0))
                    np.add.at(ex, d_, ex[s_] * sc + 4 * EPS * (q[s_] + np.abs(xs)))
                    np.add.at(x, d_, xs)
                    np.add.at(q, d_, q[s_])
                    q[s_] = x[s_] = ex[s_] = 0.0
                    moved += [s_, d_]
            to_round |= ~hasB & ~valid
        else:
            to_round = np.ones(B.size, dtype=bool)
        if to_round.any():
            self.rounded_any[self.sid[B[to_round & (B != topB)]]] = True
            # round: the atom's P-mass to the largest lattice point below its ratio, with
            # Q-mass e^{t} P there (its excess Q-mass dropped: it only lowers the profile)
            b_ = B[to_round]
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = -np.log1p(-np.minimum(x[b_] / q[b_], 1.0))  # log(ratio) - t_k
            fin = np.isfinite(lr)
            j = np.clip(b_ + np.floor(np.where(fin, lr, 0.0) / h + 1e-12).astype(np.int64),
                        self.lo[b_], self.hi[b_])
            j = np.where(fin, j, self.hi[b_])
            with np.errstate(over="ignore", invalid="ignore"):
                qn = np.where(fin, np.exp(np.minimum(t[j] - t[b_], 700.0)) * (q[b_] - x[b_]),
                              0.0)
            qn = np.clip(np.nan_to_num(qn), 0.0, q[b_])
            ex_b = ex[b_].copy()
            q[b_] = x[b_] = ex[b_] = 0.0
            np.add.at(q, j, qn)
            np.add.at(ex, j, ex_b + 4 * EPS * qn)
            moved += [b_, j]
        return np.unique(np.concatenate(moved))

    def _maxima(self, M: np.ndarray, w_old: np.ndarray, w_new: np.ndarray) -> None:
        """Each segment's heaviest atoms after the atoms ``M`` changed weight: found again
        where one of them lost weight, else raised by the new weights."""
        g = self.sid[M]
        lost = (w_old > 0) & (w_old == self.smax[g]) & (w_new < w_old)
        redo = np.unique(g[lost])
        for sg in redo.tolist():
            a, b = int(self.sstart[sg]), int(self.send[sg])
            one = (np.zeros(b - a, dtype=np.int64), np.full(b - a, b - a - 1),
                   np.zeros(b - a, dtype=np.int64), np.zeros(1, dtype=np.int64))
            m, f, l_ = _segment_maxima(self.w[a:b], one)
            self.smax[sg] = m[0]
            self.sfirst[sg] = a + f[0] if f[0] < b - a else self.n
            self.slast[sg] = a + l_[0] if l_[0] >= 0 else -1
        keep = (w_new > 0) & ~np.isin(g, redo)
        if not keep.any():
            return
        Mk, gk, wk = M[keep], g[keep], w_new[keep]
        top = np.full(self.smax.size, -np.inf)
        np.maximum.at(top, gk, wk)
        rise = top > self.smax
        self.sfirst[rise], self.slast[rise] = self.n, -1
        self.smax = np.maximum(self.smax, top)
        at = wk == self.smax[gk]
        np.minimum.at(self.sfirst, gk[at], Mk[at])
        np.maximum.at(self.slast, gk[at], Mk[at])

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(Q-masses of the balanced atoms, their relative ratio errors, per segment
        whether an atom other than its top one was rounded)."""
        t, src, theta = self.t, self.src, self.theta
        keep = 1.0 - np.minimum(self.lend, 1.0)
        q = self.q + self.qe
        qf = keep * q + theta * q[src]
        res = keep * self.x + theta * self.Yf
        err = keep * self.ex + theta * self.ex[src] * np.exp(np.minimum(t - t[src], 700.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(qf > 0, (np.abs(res) + err + 8 * EPS * qf) / qf, 0.0) * 2.0
        return np.maximum(qf, 0.0), np.where(np.isfinite(r), r, np.inf), self.rounded_any

    def _update(self, M: np.ndarray) -> None:
        """After atoms ``M`` moved: their weights and non-emptiness, the nearest non-empty
        neighbours between the neighbours of those that emptied or filled, and the atoms
        whose status may change (``dirty``: the moved atoms and those between their
        neighbours, whose nearest neighbour or lender is one of them)."""
        if not M.size:
            self.dirty = M
            return
        n = self.n
        w_old = self.w[M]
        w_new = self.q[M] + self.qe[M]
        self.w[M] = w_new
        self._maxima(M, w_old, w_new)
        # (the spans between each moved atom's neighbours, before and after)
        lo_ = np.where(self.below[M] >= 0, self.below[M], self.lo[M])
        hi_ = np.where(self.above[M] < n, self.above[M], self.hi[M])
        ne_new = (self.q[M] > 0) | (self.qe[M] > 0)
        flip = ne_new != self.nonempty[M]
        self.nonempty[M] = ne_new
        span = _ranges(lo_, hi_)
        if flip.any():
            # (-1 and n bracket the non-empty indices: none above, none below)
            ne = np.concatenate([[-1], np.flatnonzero(self.nonempty), [n]])
            P = span
            up = ne[np.searchsorted(ne, P, side="right")]
            self.above[P] = np.where(up <= self.hi[P], up, n)
            dn = ne[np.searchsorted(ne, P, side="left") - 1]
            self.below[P] = np.where(dn >= self.lo[P], dn, -1)
            lo2 = np.where(self.below[M] >= 0, self.below[M], self.lo[M])
            hi2 = np.where(self.above[M] < n, self.above[M], self.hi[M])
            span = _ranges(np.concatenate([lo_, lo2]), np.concatenate([hi_, hi2]))
        self.dirty = span


def _lend_fixed_point(x: np.ndarray, Y: np.ndarray, u2: np.ndarray, s2: np.ndarray,
                      iters: int = 200) -> tuple[np.ndarray, np.ndarray]:
    r"""The fractions of :func:`_sweep`: :math:`\theta_i = -(1 - \ell_i)x_i/Y_i` for the
    borrowers ``u2`` (lender ``s2[i]``) and :math:`\ell_j = \sum_{s_i = j}\theta_i`, by
    Jacobi iteration until no :math:`\ell` moves by more than 2u of itself (at most
    ``iters`` sweeps). After the first sweep only the borrowers whose own lending moved are
    recomputed, and only their lenders' sums (each over all its borrowers, in index order,
    as ``bincount`` adds them): the iterates are those of the full iteration, bit for bit,
    at the cost of the entries still moving (chains along a smooth law settle within a
    few sweeps, the tails' within a dozen)."""
    n = x.size
    Yb = np.where(u2, Y, 1.0)
    lend = np.zeros(n)
    while True:   # full sweeps while much of the law moves
        theta = np.where(u2, -(1.0 - lend) * x / Yb, 0.0)
        new = np.bincount(s2, weights=theta, minlength=n)
        iters -= 1
        fin = bool(np.all(np.abs(new - lend) <= 2 * EPS * new))
        moved = np.flatnonzero(new != lend)
        lend = new
        if fin or iters <= 0:
            return theta, lend
        if 8 * moved.size < n:
            break
    # borrowers grouped by lender, in index order within a group
    b = np.flatnonzero(u2)
    order = np.argsort(s2[b], kind="stable")
    bo = b[order]
    lo = s2[bo]
    first = np.full(n, -1, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    if bo.size:
        gs = np.flatnonzero(np.concatenate([[True], lo[1:] != lo[:-1]]))
        first[lo[gs]] = gs
        cnt[lo[gs]] = np.diff(np.concatenate([gs, [bo.size]]))
    mark = np.zeros(n, dtype=bool)
    for _ in range(iters):
        r = moved[u2[moved]]                      # borrowers whose own lending moved
        th_r = -(1.0 - lend[r]) * x[r] / Y[r]
        ch = th_r != theta[r]
        r, th_r = r[ch], th_r[ch]
        theta[r] = th_r
        mark[s2[r]] = True                        # lenders whose sums change
        a = np.flatnonzero(mark)
        mark[a] = False
        if a.size:
            k = cnt[a]
            pos = np.repeat(first[a] - np.concatenate([[0], np.cumsum(k)[:-1]]), k) + \
                np.arange(int(k.sum()))
            new = np.bincount(np.repeat(np.arange(a.size), k), weights=theta[bo[pos]],
                              minlength=a.size)
        else:
            new = np.zeros(0)
        old = lend[a]
        ok = bool(np.all(np.abs(new - old) <= 2 * EPS * new))
        mv = new != old
        moved = a[mv]
        lend[moved] = new[mv]
        if ok:
            rest = np.ones(n, dtype=bool)
            rest[a] = False
            if bool(np.all(lend[rest] >= 0.0)):
                break
    return theta, lend


def _ranges(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sorted union of the integer ranges [a_i, b_i] (overlapping ranges merged before
    they are listed: at most one entry per integer)."""
    keep = b >= a
    a, b = a[keep], b[keep]
    if not a.size:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(a, kind="stable")
    a, b = a[order], b[order]
    reach = np.maximum.accumulate(b)
    new = np.concatenate([[True], a[1:] > reach[:-1] + 1])   # starts a disjoint run
    starts = np.flatnonzero(new)
    A, B = a[starts], np.maximum.reduceat(b, starts)
    lens = B - A + 1
    st = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    return np.repeat(A - st, lens) + np.arange(int(lens.sum()))


# ---------------------------------------------------------------------------
# factors known by their curve only
# ---------------------------------------------------------------------------
_SAMPLE_ALPHA = np.unique(np.concatenate([
    [0.0], np.logspace(-300, -2, 24000), np.linspace(0.01, 0.99, 4001),
    1.0 - np.logspace(-2, -15, 2000), [1.0]]))


def _sampled_laws(f: TradeOff) -> tuple[AtomicLaw, AtomicLaw]:
    r"""Atomic laws of a lower and an upper piecewise-linear bound of a curve known only by
    its values, from one vectorised evaluation on 11,500 type I errors (log-spaced down to
    :math:`10^{-300}` and up to :math:`1 - 10^{-15}`).

    The computed values are taken to be within :math:`m = 32u + 4uf` of the true ones (u
    the unit roundoff; a callable built from ``ndtr``/``ndtri`` errs by a few ulps of 1
    where its value is near 1). Upper curve: the largest convex minorant of the points raised by
    :math:`m`; a convex :math:`f` lies below every chord between points on or above it.
    Lower curve: on :math:`[a_i, a_{i+1}]` a convex :math:`f` lies above the extensions of
    its neighbouring chords (secant slopes increase), so the larger of the two extended
    chords, lowered by :math:`m(1 + 2\rho)` (ρ the ratio of neighbouring spacings: how far
    the error of the end values is extrapolated), is below :math:`f`, and so is the value
    at :math:`a_{i+1}` lowered by m (f does not increase); the largest convex minorant of
    that bound is a curve below :math:`f`. Both are exact curves of discrete
    pairs (their atoms), the lower one more informative than the truth, the upper one
    less. The bounds rely on the callable returning a convex trade-off function to within
    the stated rounding, as :func:`gdp.from_callable` checks on a grid.
    """
    a = _SAMPLE_ALPHA
    with np.errstate(all="ignore"):
        v = np.asarray(f._f(a), dtype=float)
    v = np.clip(np.where(np.isnan(v), 1.0 - a, v), 0.0, 1.0 - a)
    v[-1] = 0.0
    m = 32 * EPS + 4 * EPS * np.maximum(v, 0.0)
    up = np.minimum(v + m, 1.0 - a)
    up[-1] = 0.0
    hu = lower_convex_hull(a, up)
    upper = _curve_atoms(a[hu], up[hu])
    # lower: extensions of the chords (i-1, i) and (i+1, i+2) over [a_i, a_i+1]
    da = np.diff(a)
    s = np.diff(v) / da                                   # chord slopes
    n = a.size
    i = np.arange(n - 1)
    left_ok = i >= 1
    right_ok = i + 2 <= n - 1
    sl = np.where(left_ok, s[np.maximum(i - 1, 0)], 0.0)
    sr = np.where(right_ok, s[np.minimum(i + 1, n - 2)], 0.0)
    # lines: left chord through (a_i, v_i) with slope sl; right chord through (a_i+1, v_i+1)
    # with slope sr
    with np.errstate(all="ignore"):
        rho = np.where(left_ok, da / np.concatenate([[1.0], da[:-1]]), 1.0)
        rho = np.maximum(rho, np.where(right_ok, da / np.concatenate([da[1:], [1.0]]), 1.0))
    mp = np.concatenate([[m[0]], m, [m[-1], m[-1]]])      # m[i-1 .. i+2] per interval
    mm = np.maximum(np.maximum(mp[: n - 1], mp[1:n]), np.maximum(mp[2:n + 1], mp[3:n + 2]))
    shift = mm * (1.0 + 2.0 * np.minimum(rho, 1e6)) + 1e-300

    def line_l(x, k):
        return v[k] + sl[k] * (x - a[k])

    def line_r(x, k):
        return v[k + 1] + sr[k] * (x - a[k + 1])

    lo_l = np.where(left_ok, line_l(a[:-1], i), -np.inf)
    hi_l = np.where(left_ok, line_l(a[1:], i), -np.inf)
    lo_r = np.where(right_ok, line_r(a[:-1], i), -np.inf)
    hi_r = np.where(right_ok, line_r(a[1:], i), -np.inf)
    # (and above the value at the right end: f does not increase)
    flat = v[1:] - m[1:] - 1e-300
    y0 = np.maximum(np.maximum(lo_l, lo_r) - shift, flat)
    y1 = np.maximum(np.maximum(hi_l, hi_r) - shift, flat)
    with np.errstate(all="ignore"):
        xc = (v[i + 1] - sr * a[i + 1] - v[i] + sl * a[i]) / (sl - sr)
    cross = left_ok & right_ok & (xc > a[:-1]) & (xc < a[1:])
    yc = np.where(cross, np.maximum(line_l(np.where(cross, xc, a[:-1]), i) - shift, flat),
                  np.nan)
    px = np.concatenate([a[:-1], a[1:], xc[cross]])
    py = np.concatenate([y0, y1, yc[cross]])
    ok = np.isfinite(py)
    px, py = px[ok], py[ok]
    o = np.lexsort((py, px))
    px, py = px[o], py[o]
    first = np.concatenate([[True], np.diff(px) > 0])     # the lowest value per abscissa
    px, py = px[first], np.clip(py[first], 0.0, None)
    py = np.minimum(py, 1.0 - px)
    hl = lower_convex_hull(px, py)
    lower = _curve_atoms(px[hl], py[hl])
    return lower, upper


def _curve_atoms(a: np.ndarray, b: np.ndarray) -> AtomicLaw:
    """The atoms of the convex piecewise-linear curve through (a_j, b_j) (from a = 0)."""
    da, db = np.diff(a), -np.diff(b)
    keep = (da > 0) | (db > 0)
    da, db = da[keep], db[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where((da > 0) & (db > 0), np.log(db) - np.log(da),
                     np.where(da > 0, -np.inf, np.inf))
    u = np.concatenate([[np.inf], u, [-np.inf]])
    p = np.concatenate([[0.0], da, [max(1.0 - float(a[-1]), 0.0)]])
    q = np.concatenate([[max(1.0 - float(b[0]), 0.0)], db, [0.0]])
    return AtomicLaw(u, p, q)
