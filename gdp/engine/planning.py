r"""Planning a composition: its factors (each ``(f, n)`` with the laws of both sides), the
lattice window of a factor, and the grids of steps and tilts on which frames are chosen
(so that nearby questions share one); used by :mod:`gdp.engine.numeric`.

Imports: the ground floor, :mod:`gdp.core` and the laws and lattices of
:mod:`gdp.engine`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import bisect_bracket
from ..core.tradeoff import Bracketed, TradeOff
from .lattice import _disc_opt, _sampled_laws, _tail_charge
from .laws import GenericLaw, Law, law_of

__all__: list[str] = []

_LOG_ETA = math.log(1e-8)    # tilted mass outside a frame's window (each end)
_LOG_ETA_WIDE = math.log(1e-30)  # ... for the second frame of rare-event questions
_STEPS_PER_OCTAVE = 4        # grid of lattice steps h0 * 2**(j/4)
_FACTOR_CAP = 1 << 21        # points of one factor's lattice at a step the engine chooses
_TILTS_PER_OCTAVE = 8        # grid of tilts 2**(j/8)


# ---------------------------------------------------------------------------
# factors
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Factor:
    pess: Law
    opt: Law
    n: int


def _side_law(f: TradeOff, side: int) -> Law:
    """The law of ``f``, or for a curve known only by its values the atomic law of its
    lower (``side=0``) or upper (1) piecewise-linear bound."""
    law = law_of(f)
    if isinstance(law, GenericLaw):
        return _sampled_laws(f)[side]
    return law


def _factors(groups: Sequence[tuple[TradeOff, int]]) -> list[_Factor]:
    out = []
    for f, n in groups:
        if isinstance(f, Bracketed):
            out.append(_Factor(_side_law(f.lower, 0), _side_law(f.upper, 1), n))
        else:
            law = law_of(f)
            if isinstance(law, GenericLaw):
                lo, up = _sampled_laws(f)
                out.append(_Factor(lo, up, n))
            else:
                out.append(_Factor(law, law, n))
    return out


def _plan_atoms(law: Law, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Planning atoms (losses, Q-masses) of a factor's law."""
    at = law.plan_atoms(m)
    return at[0], at[2]


def _offset(law: Law, h: float, bulk: bool = True) -> float:
    r"""A lattice offset in [0, h) putting the heaviest atom of the Q-law on the lattice; for
    a law without atoms a quarter of whose Q-mass lies within a step (the bulk of a rarely
    sampled step), the merged loss :math:`\log(Q/P)` of the half-cell holding the bulk
    (:func:`_bulk_centre`): the other side's merged atom there is then balanced as it
    stands, instead of being rounded a whole step down when no neighbour can lend to it
    (which, repeated over the factors, shifts the composed loss down by their number of
    steps); ``bulk=False`` skips that search."""
    u, _, q = law.atoms()
    if u.size and np.any(q > 0):
        us = float(u[int(np.argmax(q))])
        return us - math.floor(us / h) * h
    if u.size or not bulk:
        return 0.0
    c = _bulk_centre(law, h, 0.5)
    return 0.0 if c is None else c - math.floor(c / h) * h


def _bulk_start(law: Law, h: float, tight: bool = False) -> tuple[float, float] | None:
    """The centre of the heaviest step-wide cell of a grid over the (outer bounds of the)
    Q-law's quartiles, and their spread; None where the quartiles are not finite or span 64
    steps or more, or no such cell holds a quarter of the Q-mass (no bulk). ``tight``: the
    upper bound lowered to the first edge of a grid of steps from the lower one above which
    the Q-mass is a quarter or less (a rarely sampled step's upper quartile from
    :meth:`~gdp.engine.laws.Law.quantiles` bounds its sampled part's, 80 steps above its
    bulk at σ = 0.41, p = 3.2e-5, step 4e-5)."""
    ql, qh, _, _ = law.quantiles(0.25)
    if tight and math.isfinite(ql) and not qh - ql < 64.0 * h:
        e = ql + h * np.arange(65)
        _, Q, _, _ = law.cells(np.concatenate([[-np.inf], e, [np.inf]]))
        above = np.cumsum(Q[::-1])[::-1][1:]  # (the Q-mass above each edge)
        k = np.flatnonzero(above <= 0.25)
        if k.size:
            qh = float(e[k[0]])
    if not (math.isfinite(ql) and math.isfinite(qh) and 0.0 <= qh - ql < 64.0 * h):
        return None
    e = ql - 0.5 * h + h * np.arange(int(math.ceil((qh - ql) / h)) + 2)
    _, Q, _, _ = law.cells(np.concatenate([[-np.inf], e, [np.inf]]))
    if not float(np.max(Q[1:-1])) > 0.2499:
        return None  # (no bulk: the passes of _bulk_centre would stop at their first test)
    return float(e[int(np.argmax(Q[1:-1]))]) + 0.5 * h, qh - ql


def _bulk_centre(law: Law, h: float, width: float, start: float | None = None
                 ) -> float | None:
    """The loss c equal to the merged loss of the Q-law's losses within ``width`` steps of
    it (at most four fixed-point passes from ``start``, by default :func:`_bulk_start`'s
    cell); None where there is no bulk (a quarter of the Q-mass there)."""
    if start is None:
        found = _bulk_start(law, h)
        if found is None:
            return None
        start = found[0]
    c = start
    for _ in range(4):
        edges = np.array([-np.inf, c - width * h, c + width * h, np.inf])
        _, Q, _, _, X, _ = law.excess(edges, np.full(3, c))
        if not (Q[1] > 0.25 and X[1] < Q[1]):
            return None
        step = -math.log1p(-float(X[1]) / float(Q[1]))
        c += step
        if abs(step) <= 1e-12 * (h + abs(c)):  # converged (a residual imbalance must be
            break                               # tiny: the neighbours lending are light)
    return c


def _stacked_cells(laws: list[Law], edges: list[np.ndarray], refs: list[float] | None = None
                   ) -> list[tuple[np.ndarray, ...]]:
    """Each law's ``cells(edges[i])`` (``refs`` given: ``excess(edges[i], refs[i])``, the
    reference the same for all its cells) from one law stacked of them all
    (:meth:`~gdp.engine.laws.Law._stack`, laws of one :meth:`~gdp.engine.laws.Law._batch_key`):
    each cell is computed from its two edges (and reference) alone, so the values are those
    of the laws' own calls, bit for bit; the cell between two laws' edges is not read."""
    ne = np.array([e.size for e in edges], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(ne)[:-1]])
    E = np.concatenate(edges)
    law = type(laws[0])._stack(laws, np.repeat(np.arange(len(laws)), ne))
    with np.errstate(all="ignore"):  # (the cells between two laws' edges: -inf to +inf)
        if refs is None:
            vals = law.cells(E)
        else:
            vals = law.excess(E, np.repeat(np.asarray(refs, dtype=float), ne)[:-1])
    return [tuple(v[a:a + k - 1] for v in vals)
            for a, k in zip(starts.tolist(), ne.tolist(), strict=True)]


# the fewest laws of one batch key evaluated in one stacked call (_stacked_cells)
_STACK_LEAST = 4


def _batch_groups(laws: Sequence[Law]) -> list[list[int]]:
    """The indices of ``laws`` by :meth:`~gdp.engine.laws.Law._batch_key`, in order of first
    appearance, for the keys of at least ``_STACK_LEAST`` laws (fewer cost more stacked than
    one by one); laws without a key are in none."""
    groups: dict[Any, list[int]] = {}
    for i, law in enumerate(laws):
        bk = law._batch_key()
        if bk is not None:
            groups.setdefault(bk, []).append(i)
    return [idx for idx in groups.values() if len(idx) >= _STACK_LEAST]


def _charges_at_once(laws: list[Law], ts: list[float]) -> list[float]:
    r"""``[_charged_beyond(law, t) for law, t in zip(laws, ts)]``, bit for bit, for laws of
    one batch key: each law's cell :math:`(t, \infty]` with the reference t, all in one
    stacked call (:func:`_stacked_cells`)."""
    cells = _stacked_cells(laws, [np.array([t, np.inf]) for t in ts], list(ts))
    return [float(_tail_charge(law, X[0], EX[0], EQ[0]))
            for law, (_, _, _, EQ, X, EX) in zip(laws, cells, strict=True)]


def _offsets_at_once(laws: list[Law], h: float) -> list[float]:
    """``[_offset(law, h) for law in laws]``, bit for bit, for laws of one batch key without
    atoms: :func:`_bulk_start`'s grid and each pass of :func:`_bulk_centre` evaluated for
    all the laws still searching in one stacked call (:func:`_stacked_cells`), not one call
    a law (the other side's bulks of 250 subsampled Gaussians in a list of 1,000
    mechanisms: a thousand calls on three cells each, 0.3 ms a call)."""
    centre: list[float | None] = [None] * len(laws)
    grids, live = [], []
    for i, law in enumerate(laws):  # (_bulk_start's quartiles and grid)
        ql, qh, _, _ = law.quantiles(0.25)
        if math.isfinite(ql) and math.isfinite(qh) and 0.0 <= qh - ql < 64.0 * h:
            e = ql - 0.5 * h + h * np.arange(int(math.ceil((qh - ql) / h)) + 2)
            grids.append(e)
            live.append(i)
    if live:
        cells = _stacked_cells([laws[i] for i in live],
                               [np.concatenate([[-np.inf], e, [np.inf]]) for e in grids])
        for i, e, (_, Q, _, _) in zip(live, grids, cells, strict=True):
            if float(np.max(Q[1:-1])) > 0.2499:
                centre[i] = float(e[int(np.argmax(Q[1:-1]))]) + 0.5 * h
    active = [i for i in range(len(laws)) if centre[i] is not None]
    for _ in range(4):  # (_bulk_centre's passes)
        if not active:
            break
        cs = [centre[i] for i in active]
        cells = _stacked_cells([laws[i] for i in active],
                               [np.array([-np.inf, c - 0.5 * h, c + 0.5 * h, np.inf])
                                for c in cs], cs)
        nxt = []
        for i, c, (_, Q, _, _, X, _) in zip(active, cs, cells, strict=True):
            if not (Q[1] > 0.25 and X[1] < Q[1]):
                centre[i] = None
                continue
            step = -math.log1p(-float(X[1]) / float(Q[1]))
            c += step
            centre[i] = c
            if not abs(step) <= 1e-12 * (h + abs(c)):
                nxt.append(i)
        active = nxt
    return [0.0 if c is None else c - math.floor(c / h) * h for c in centre]


def _other_offset(law: Law, h: float, bulk: bool = True, n: int = 1, tight: bool = False
                  ) -> float:
    r"""The lattice offset of the other side's lattice law of ``law`` (a factor raised to the
    power ``n``): :func:`_offset`'s, or, for a bulk whose neighbours the balancing merges
    into it, the centre of a wider window (1.5 or 2.5 steps each side) where that drops
    less than half the Q-mass, for a bulk whose middle half lies within two steps or where
    the n factors keep 1% more of it (σ = 0.631, p = 1.6e-5, 8.7 million steps: a bulk 12
    steps wide, 2.2e-9 of the mass dropped per factor, 0.157 of the log tilted mass in
    all).

    The bulk of a rarely sampled step, within a step or two, has light neighbours that
    cannot lend; they are merged into the bulk's atom, whose merged loss then lies a fraction of a
    step off its point, and the atom is rounded down: a first-order loss per factor that T
    factors repeat (σ = 0.587, p = 6.4e-6: 7.6e-6 of the tilted mass per factor, so that the
    other side's ε at 27,125 steps lay 3.7% below the sound one, and a finer step did not
    help). The Q-mass dropped is measured by balancing 97 points around the bulk. Any
    offset gives a lattice law below the true one: only tightness is at stake. ``tight``:
    :func:`_bulk_start`'s."""
    if not bulk or law.atoms()[0].size:
        return _offset(law, h, bulk)
    found = _bulk_start(law, h, tight)
    c0 = None if found is None else _bulk_centre(law, h, 0.5, found[0])
    if c0 is None:
        return 0.0
    base = c0 - math.floor(c0 / h) * h  # (_offset's, from the same centre)
    narrow = found[1] < 2.0 * h
    best, drop = base, _dropped_near(law, h, base, c0)
    if not drop > 1e-12:
        return base
    for width in (1.5, 2.5):
        c = _bulk_centre(law, h, width, found[0])
        if c is None:
            continue
        off = c - math.floor(c / h) * h
        d = _dropped_near(law, h, off, c)
        # (a wider bulk has neighbours that lend: only a gain of 1% of the n factors'
        # mass outweighs the wider merge's second-order loss there)
        if d < 0.5 * drop and (narrow or n * (drop - d) > 1e-2):
            best, drop = off, d
    return best


def _dropped_near(law: Law, h: float, off: float, c: float, half: int = 48) -> float:
    """The Q-mass the other side's lattice law drops on the ``2 half + 1`` points of offset
    ``off`` around the loss ``c`` (all of the law outside them merged into the end points)."""
    k = int(round((c - off) / h))
    lat = _disc_opt(law, h, k - half, k + half, off)
    return 1.0 - float(np.sum(lat.q)) - lat.q_inf


def _pile_top(law: Law, h: float, tight: bool = False) -> float | None:
    """The top of the region the other side garbles by runs of fine cells
    (:func:`~gdp.engine.lattice._pile_runs`): 256 quartile spreads above the Q-law's bulk
    (:func:`_bulk_start`; the spread of the outer bounds of its quartiles), at most 1,024
    steps; None for a law with atoms, without such a bulk, or where that spread is under
    four steps: the bulk and its slope then lie within a few steps, where the runs merge
    about what the balancing merges (σ = 0.488, p = 2.7e-6, 2.5M steps, step 6.7e-5, a
    spread of 1.3 steps: the bracket 0.330% wide, 0.336% with the runs; at σ = 0.58,
    p = 1.4e-6, step 6.4e-7, whose bracket the runs narrow tenfold, it is 30 steps).
    ``tight``: :func:`_bulk_start`'s."""
    if law.atoms()[0].size:
        return None
    found = _bulk_start(law, h, tight)
    if found is None or not found[1] >= 4.0 * h:
        return None
    return found[0] + min(256.0 * found[1], 1024.0 * h)


def _factor_window(law: Law, h: float, tol: float, cap: int, off: float = 0.0,
                   order: int = 0) -> tuple[int, int]:
    """Lattice indices covering the factor's Q-law (``order=1``: the mass truncated above
    is charged to the forward order's +inf), its P-law (``order=-1``: the inverse order's
    Q-law) or both (0), up to ``tol`` at each end."""
    ql, qh, pl, ph = law.quantiles(tol)
    lo, hi = {1: (ql, qh), -1: (pl, ph)}.get(order, (min(ql, pl), max(qh, ph)))
    if hi < lo:
        lo, hi = min(ql, pl), max(qh, ph)
    return _window_of((lo, hi, lo, hi), h, cap, off)


def _window_of(qs: tuple[float, float, float, float], h: float, cap: int,
               off: float) -> tuple[int, int]:
    """Lattice indices covering a factor's Q-law between its quantiles ``qs``."""
    ql, qh, pl, ph = qs
    lo0, hi0 = (ql, qh) if qh >= ql else (min(ql, pl), max(qh, ph))
    lo, hi = lo0 - off, hi0 - off
    if not np.isfinite(lo):
        lo = hi - 50.0 if np.isfinite(hi) else -50.0
    if not np.isfinite(hi):
        hi = lo + 50.0
    ka, kb = int(math.floor(lo / h)), int(math.ceil(hi / h))
    # the points k h + off must reach the quantiles themselves (an atom at the upper one,
    # e.g. the top atom of an exact composition, one ulp beyond the last point would be
    # charged to +inf whole)
    for _ in range(4):  # (a few steps: beyond 2**53 steps kb + 1 may round to kb)
        if math.isfinite(hi0) and kb * h + off < hi0:
            kb += 1
        if math.isfinite(lo0) and ka * h + off > lo0:
            ka -= 1
    if kb - ka + 1 > cap:
        raise ValueError(
            f"the lattice for one factor needs {kb - ka + 1} points, more than "
            f"max_points={cap}; pass a larger `grid_step`, a larger `rtol` or a larger "
            f"`max_points`")
    return ka, max(kb, ka)


def _gauss_eps(k: float, k1: float, k2: float, lam: float, log_delta: float,
               eps_c: float, only_below: float = math.inf) -> float:
    r"""An estimate of ε(δ) for planning only (never for a bound), from the cumulant
    generating function at the Chernoff tilt λ (``k, k1, k2``: K, K', K'' there) with
    the tilted law taken as Gaussian:

    .. math:: \delta(x) = e^{K - \lambda x}\, E_\lambda\big[e^{-\lambda Y}
              (1 - e^{-Y})_+\big] \approx e^{K - \lambda x - \mu^2/2v}\,
              \tfrac12\Big(\mathrm{erfcx}\,\tfrac{\lambda s - \mu/s}{\sqrt2}
              - \mathrm{erfcx}\,\tfrac{(\lambda+1) s - \mu/s}{\sqrt2}\Big)

    with :math:`Y = S - x \sim N(\mu, v)` under the tilt, :math:`\mu = K' - x`,
    :math:`s = \sqrt v = \sqrt{K''}`: the hockey-stick kernel integrated against the
    Gaussian exactly (Bahadur and Rao's correction to the Chernoff bound ``eps_c``, which
    the estimate never exceeds), solved for x by bisection to 1e-4 relative. ``eps_c``
    where the law is degenerate, and at once where the estimate is above ``only_below``
    (a caller that uses it only below some value)."""
    from scipy import special  # loaded on first use (import time)

    if not (lam > 0 and k2 > 0 and math.isfinite(eps_c) and math.isfinite(k1)):
        return eps_c
    sd = math.sqrt(k2)

    def lerfcx(a: np.ndarray) -> np.ndarray:   # log erfcx, its asymptote far on the left
        return np.where(a < -25.0, math.log(2.0) + a * a,
                        np.log(special.erfcx(np.maximum(a, -25.0))))

    def at_most(x: np.ndarray) -> np.ndarray:  # the estimate of δ(x) is at most δ
        with np.errstate(all="ignore"):  # (a degenerate spread: infinities, decided below)
            r = (k1 - x) / sd
            la1 = lerfcx((lam * sd - r) / math.sqrt(2.0))
            la2 = lerfcx(((lam + 1.0) * sd - r) / math.sqrt(2.0))
            log_est = (k - lam * x - 0.5 * r * r + math.log(0.5) + la1
                       + np.log1p(-np.exp(la2 - la1)))
        return ~((la2 < la1) & (log_est > log_delta))

    if only_below < eps_c and not at_most(np.array(only_below)):
        return eps_c
    hi, step = eps_c, sd
    lo = hi - step
    for _ in range(60):  # a point below the answer (the estimate tends to 1 as x falls)
        if not at_most(np.array(lo)):
            break
        step *= 2.0
        hi, lo = lo, lo - step
    else:
        return eps_c
    _, hi = bisect_bracket(at_most, np.array(lo), np.array(hi), xtol=1e-4 * sd, rtol=1e-4)
    return min(float(hi), eps_c)


def _quantise(x: float, unit: float, per_octave: int, down: bool = True) -> float:
    j = math.log2(x / unit) * per_octave
    j = math.floor(j + 1e-9) if down else round(j)
    return unit * 2.0 ** (j / per_octave)
