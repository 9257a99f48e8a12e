r"""Discretisation of a privacy-loss law onto the lattice :math:`t_k = kh`, on both sides.

* :func:`_disc_pess`: connect-the-dots (Doroshenko et al., PETS 2022): the masses of each cell
  are split between its two end points preserving both P and Q, a pair of which the true pair
  is a garbling, hence a lower curve (the sound side); truncated tails are spread to
  :math:`\pm\infty` and nothing is dropped.
* :func:`_disc_opt`: a garbling of the true pair (losses of a half-cell merged, the imbalance
  removed by lending slivers between neighbouring atoms, :func:`_balance`), hence an upper
  curve (the optimistic side).
* :func:`_disc_envelope` / :func:`_chord_law`: the same two sides for a factor known only by
  its hooks, from supporting lines and from chords of the curve.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.engine.curves`, :mod:`gdp.engine.laws`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numerics import EPS, lower_convex_hull
from ..core.tradeoff import TradeOff
from .curves import LossCurve, curve_from_atoms
from .laws import AtomicLaw, GenericLaw, Law

__all__ = []

# ---------------------------------------------------------------------------
# discretisation onto the lattice t_k = k h
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Lat:
    """A discretised law: Q-masses at lattice indices k0 .. k0+len-1, the +inf mass, and
    error bounds (relative per entry, and absolute for the rest)."""

    k0: int
    q: np.ndarray
    q_inf: float
    rel: float = 0.0
    abs: float = 0.0
    off: float = 0.0    # lattice offset: entry i sits at loss (k0 + i) h + off
    shift: float = 0.0  # loss-shift allowance (relative P-mass error, see _disc_pess)


def _split_errors(q: np.ndarray, err: np.ndarray, budget: float = 1e-19) -> tuple[float, float]:
    """Split per-entry error bounds into a relative bound (for most entries) and an
    absolute one: the entries with the worst relative error go to the absolute part, as
    many as fit in ``budget`` (plus those with no mass)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(q > 0, err / q, np.inf)
    order = np.argsort(-r, kind="stable")
    cum = np.cumsum(err[order])
    m = int(np.searchsorted(cum, budget, side="right"))
    m = max(m, int(np.sum(~np.isfinite(r))))
    rest = order[m:]
    rel = float(np.max(r[rest])) if rest.size else 0.0
    return rel, float(cum[m - 1]) if m > 0 else 0.0


def _split_shift(mass: np.ndarray, rp: np.ndarray, budget: float = 1e-19
                 ) -> tuple[float, float]:
    """Loss-shift allowance: the largest relative P-error ``rp`` of the cells, except that
    the cells with the worst ones may instead be charged in full (their mass) as an
    absolute error, as many as fit in ``budget``. Returns (shift, absolute)."""
    rp = np.where(mass > 0, rp, 0.0)
    order = np.argsort(-rp, kind="stable")
    cum = np.cumsum(mass[order])
    m = int(np.searchsorted(cum, budget, side="right"))
    rest = order[m:]
    shift = float(np.max(rp[rest])) if rest.size else 0.0
    return math.log1p(min(shift, 1.0)), float(cum[m - 1]) if m > 0 else 0.0


def _disc_pess(law: Law, h: float, ka: int, kb: int, off: float = 0.0) -> _Lat:
    """Connect-the-dots: each cell's masses split between its end points."""
    if isinstance(law, GenericLaw):
        return _disc_envelope(law.f, h, ka, kb)
    n = kb - ka + 1
    t = np.arange(ka, kb + 1, dtype=float) * h + off
    edges = np.concatenate([[-np.inf], t, [np.inf]])
    refs = np.concatenate([[0.0], t, [0.0]])[:-1]   # left end of each cell
    P, Q, EP, EQ, X, EX = law.excess(edges, refs)
    # Float errors of a cell's masses (dP, dQ) decompose into a proportional part
    # (relative dQ/Q on both end points of its split) and a P-only part; a P-only change
    # at fixed Q moves the implied loss, i.e. it is a shift of the loss by at most the
    # relative P-error (an error dX of the excess is a P-change dX e^{-t}: same kind).
    out = np.zeros(n)
    err = np.zeros(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        rq = np.where(Q > 0, EQ / Q, 0.0)
        ep_ = np.where(Q - X > 0, EX / (Q - X), 0.0)
        rp = np.where(P > 0, EP / P, 0.0) + rq + ep_
    c = math.exp(h) / math.expm1(h)
    if n > 1:
        Qi, Xi = Q[1:n], np.maximum(X[1:n], 0.0)
        bq = np.minimum(Xi * c, Qi)   # Q-mass at the upper end point
        aq = Qi - bq
        out[:-1] += aq
        out[1:] += bq
        err[:-1] += rq[1:n] * aq
        err[1:] += rq[1:n] * bq
    out[0] += Q[0]
    err[0] += EQ[0]
    q_inf = law.q_inf + Q[n] * (1 + 8 * EPS) + EQ[n]
    rp[0] = rp[n] = 0.0  # tails: Q to one point, P to -inf (no split)
    shift, ab_s = _split_shift(Q, rp)
    u, pa, qa = law.atoms()
    if u.size:
        below = u <= t[0]
        above = u > t[-1]
        mid = ~(below | above)
        out[0] += qa[below].sum()
        q_inf += qa[above].sum()
        if mid.any() and n > 1:
            um, qm = u[mid], qa[mid]
            k = np.clip(np.floor((um - t[0]) / h).astype(np.int64), 0, n - 2)
            d = np.clip(um - t[k], 0.0, h)
            bq = np.minimum(qm * -np.expm1(-d) * c, qm)
            np.add.at(out, k, qm - bq)
            np.add.at(out, k + 1, bq)
            np.add.at(err, k, 4 * EPS * (qm - bq))
            np.add.at(err, k + 1, 4 * EPS * bq)
            shift = max(shift, 8 * EPS)  # rounding of the split weights
        elif mid.any():
            out[0] += qa[mid].sum()
    shift += 4 * EPS * (1.0 + float(np.max(np.abs(t))))  # lattice points are floats k*h
    rel, ab = _split_errors(out, err)
    return _Lat(ka, out, min(q_inf, 1.0), rel, ab + ab_s, off, shift)


def _disc_opt(law: Law, h: float, ka: int, kb: int, off: float = 0.0) -> _Lat:
    """Optimistic: merge (t_k - h/2, t_k + h/2], then balance each atom to the exact
    lattice ratio by merging slivers of its neighbours (see :func:`_balance`)."""
    if isinstance(law, GenericLaw):
        law = _chord_law(law.f, h, ka, kb)
        off = 0.0
    n = kb - ka + 1
    t = np.arange(ka, kb + 1, dtype=float) * h + off
    edges = np.concatenate([[-np.inf], t - 0.5 * h, [np.inf]])
    refs = np.concatenate([[t[0]], t])
    P, Q, EP, EQ, X, EX = law.excess(edges, refs)
    p, q, ep, eq = P[1:].copy(), Q[1:].copy(), EP[1:].copy(), EQ[1:].copy()
    x, ex = X[1:].copy(), EX[1:].copy()
    u, pa, qa = law.atoms()
    pe = np.zeros(n)  # P-masses of atoms on lattice points: balanced already, can lend
    on_shift = 0.0
    if u.size:
        # an atom on a lattice point stays there; any other goes to the lattice point
        # above it (a deficit, balanced with content from above), the topmost atom to the
        # point below (an excess), so that a lender is always at hand
        kf = (u - t[0]) / h
        on_lat = np.abs(kf - np.round(kf)) * h <= 1e-12 * (1.0 + np.abs(u))
        k = np.where(on_lat, np.round(kf), np.ceil(kf)).astype(np.int64)
        top = (u == np.max(u)) & ~on_lat
        k = np.where(top, np.floor(kf).astype(np.int64), k)
        keep = k >= 0  # atoms below the window go to -inf (Q dropped: optimistic)
        k, ua, pk, qk, on = (np.minimum(k[keep], n - 1), u[keep], pa[keep], qa[keep],
                             on_lat[keep])
        np.add.at(pe, k[on], pk[on])
        # (an atom within 1e-12 of a lattice point is taken to be on it: a loss shift)
        on_shift = 4e-12 * (1.0 + float(np.max(np.abs(ua[on])))) if on.any() else 0.0
        k, ua, pk, qk = k[~on], ua[~on], pk[~on], qk[~on]
        np.add.at(p, k, pk)
        np.add.at(q, k, qk)
        with np.errstate(all="ignore"):
            xa = -qk * np.expm1(t[k] - ua)  # q - e^{t_k} p of each atom
        np.add.at(x, k, xa)
        np.add.at(ep, k, 4 * EPS * pk)
        np.add.at(eq, k, 4 * EPS * qk)
        np.add.at(ex, k, 4 * EPS * (qk + np.abs(xa)))
    pf = _balance(t, p, q, x, pe)
    with np.errstate(all="ignore"):
        qf = np.where(pf > 0, np.exp(np.minimum(t + np.log(pf), 709.0)), 0.0)
        ept = np.where(p > 0, np.exp(np.minimum(t + np.log(p), 709.0)), 0.0)  # e^t p
        rq = np.where(q > 0, eq / q, 0.0)
        exn = ex + np.concatenate([[0.0], ex[:-1]]) + np.concatenate([ex[1:], [0.0]])
        # a wrong imbalance leaves the balanced atom's ratio off e^{t_k}: a loss shift
        rp = np.where(ept > 0, exn / ept, 0.0) + np.where(p > 0, ep / p, 0.0) + rq
    rqn = rq + np.concatenate([[0.0], rq[:-1]]) + np.concatenate([rq[1:], [0.0]])
    err = (rqn + 8 * EPS) * qf
    qf = np.minimum(qf, 1.0)
    rel, ab = _split_errors(qf, err)
    shift, ab_s = _split_shift(q, rp + 16 * EPS)
    shift += 4 * EPS * (1.0 + float(np.max(np.abs(t)))) + on_shift  # lattice is floats
    return _Lat(ka, qf, law.q_inf, rel, ab + ab_s, off, shift)


def _heaviest(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the largest entry of ``w`` strictly above (n if none) and strictly below
    (-1 if none) each position."""
    n = w.size
    idx = np.arange(n)
    # suffix maximum from k+1 on, and where it is attained (first record at or after)
    rev = w[::-1]
    smax = np.maximum.accumulate(rev)[::-1]
    rec = np.where(w >= smax, idx, n)
    arg_s = np.minimum.accumulate(rec[::-1])[::-1]
    above = np.concatenate([arg_s[1:], [n]])
    above = np.where(np.concatenate([smax[1:], [0.0]]) > 0, above, n)
    pmax = np.maximum.accumulate(w)
    rec2 = np.where(w >= pmax, idx, -1)
    arg_p = np.maximum.accumulate(rec2)
    below = np.concatenate([[-1], arg_p[:-1]])
    below = np.where(np.concatenate([[0.0], pmax[:-1]]) > 0, below, -1)
    return above, below


def _neighbours(nonempty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest non-empty index strictly above (n if none) and below (-1 if none)."""
    n = nonempty.size
    idx = np.arange(n)
    a = np.where(nonempty, idx, n)
    above = np.concatenate([np.minimum.accumulate(a[::-1])[::-1][1:], [n]])
    b = np.where(nonempty, idx, -1)
    below = np.concatenate([[-1], np.maximum.accumulate(b)[:-1]])
    return above, below


def _balance(t: np.ndarray, p: np.ndarray, q: np.ndarray, x: np.ndarray,
             pe: np.ndarray | None = None) -> np.ndarray:
    """Best of the carry strategies of :func:`_balance_with` (each one a valid garbling):
    the one that keeps the most Q-mass."""
    et = np.exp(np.minimum(t, 709.0))
    best, clean = _balance_with(t, p, q, x, pe, "none")
    if clean:  # nothing needed carrying: every strategy gives this garbling
        return best
    best_q = float(np.dot(best, et))
    for mode in ("up-down", "towards"):
        pf, _ = _balance_with(t, p, q, x, pe, mode)
        kept = float(np.dot(pf, et))
        if kept > best_q:
            best, best_q = pf, kept
    return best


def _balance_with(t: np.ndarray, p: np.ndarray, q: np.ndarray, x: np.ndarray,
                  pe: np.ndarray | None, mode: str) -> tuple[np.ndarray, bool]:
    r"""Garble merged atoms :math:`(p_k, q_k)` into atoms of ratio exactly :math:`e^{t_k}`.

    Atom :math:`k` (the losses in :math:`(t_k - h/2, t_k + h/2]`) has a second-order
    imbalance :math:`X_k = q_k - e^{t_k}p_k`. An atom with excess (:math:`X_k > 0`)
    absorbs a fraction :math:`\theta_k` of its nearest non-empty lower neighbour (ratio
    below :math:`e^{t_k}`), an atom with a deficit a fraction of its nearest upper one,
    so that :math:`(1 - \ell_k)X_k + \theta_k Y_k = 0`, where :math:`\ell_k` is the
    fraction it lends itself and :math:`Y_k` the lender's imbalance with respect to
    :math:`e^{t_k}`. Lending keeps a lender's ratio, so the fractions solve a weakly
    coupled linear system (fractions of order :math:`h`), solved by fixed-point
    iteration. An atom that cannot be balanced that way (no lender, or a lender too
    light, e.g. where the density rises steeply) may first be merged whole into a
    neighbour, as reverse connect-the-dots would carry it: ``mode="up-down"`` carries an
    excess into the next atom up and a deficit into the next atom down, ``"towards"``
    carries it into its (too light) lender, or away from the missing one, ``"none"``
    does not carry. All of this is merging, a garbling: the result is less
    informative than the truth. What still cannot be balanced keeps its P-mass and moves
    to the largest lattice point below its ratio, dropping Q-mass (optimistic; rare).
    ``x`` holds the imbalances :math:`X_k` computed without cancellation (they are tiny
    differences of large masses); ``pe`` the P-masses of atoms already on the lattice
    points (they never move or borrow, but lend). Returns the P-masses at the lattice
    points (the Q-masses are :math:`e^{t_k}` times) and whether every atom could be
    balanced without carrying.
    """
    n = t.size
    p = p.copy()
    q = q.copy()
    x = x.copy()
    pe = np.zeros(n) if pe is None else np.asarray(pe, dtype=float)
    idx = np.arange(n)
    with np.errstate(all="ignore"):
        et = np.exp(np.minimum(t, 709.0))

    def state():
        own = (p > 0) & (q > 0)
        nonempty = own | (pe > 0)
        above, below = _neighbours(nonempty)
        pt = p + pe
        with np.errstate(all="ignore"):
            X = np.where(own, x, 0.0)
            ia, ib = np.minimum(above, n - 1), np.maximum(below, 0)
            # the lender's imbalance with respect to e^{t_k}: X_l + (e^{t_l} - e^{t_k}) p_l
            y_up = np.where(above < n, x[ia] + (et[ia] - et) * pt[ia], 0.0)
            y_dn = np.where(below >= 0, x[ib] + (et[ib] - et) * pt[ib], 0.0)
        need_up = X < 0
        need_dn = X > 0
        Y = np.where(need_up, y_up, np.where(need_dn, y_dn, 0.0))
        lender = np.where(need_up, above, np.where(need_dn, below, -1))
        with np.errstate(all="ignore"):
            th = np.where(X != 0, -X / np.where(Y != 0, Y, np.inf), 0.0)
        ok = np.where(need_up, Y > 0, np.where(need_dn, Y < 0, True)) & (th <= 1.0)
        if not ok.all():
            # second choice of lender: the heaviest atom on the needed side (for laws
            # dominated by a few atoms, e.g. Laplace, randomized response)
            hu, hd = _heaviest(pt)
            with np.errstate(all="ignore"):
                ju, jd = np.minimum(hu, n - 1), np.maximum(hd, 0)
                y2 = np.where(need_up, np.where(hu < n, x[ju] + (et[ju] - et) * pt[ju], 0.0),
                              np.where(hd >= 0, x[jd] + (et[jd] - et) * pt[jd], 0.0))
                th2 = np.where(X != 0, -X / np.where(y2 != 0, y2, np.inf), 0.0)
            ok2 = np.where(need_up, y2 > 0, y2 < 0) & (th2 <= 1.0) & ~ok
            Y = np.where(ok2, y2, Y)
            lender = np.where(ok2, np.where(need_up, hu, hd), lender)
            ok = ok | ok2
        return X, Y, lender, need_up, need_dn, ok, above, below

    tiny = 1e-25 * float(np.max(q)) if q.size else 0.0
    clean = True
    for _ in range(64):
        X, Y, lender, need_up, need_dn, ok, above, below = state()
        bad = ~ok & (q > tiny)  # negligible atoms fall back (lossy) without carrying
        if not bad.any():
            break
        clean = False
        # an excess is carried upwards, a deficit downwards (towards content that can
        # balance it); without such a neighbour the atom falls back (lossy, below)
        if mode == "none":
            break
        if mode == "up-down":
            dest = np.where(need_dn, above, below)
        else:
            dest = np.where(need_dn, np.where(below >= 0, below, above),
                            np.where(above < n, above, below))
        mv = bad & (dest >= 0) & (dest < n)
        if not mv.any():
            break
        d = dest[mv]
        pm, qm = p[mv], q[mv]
        xm = x[mv] + (et[mv] - et[d]) * pm
        p[mv] = 0.0
        q[mv] = 0.0
        x[mv] = 0.0
        np.add.at(p, d, pm)
        np.add.at(q, d, qm)
        np.add.at(x, d, xm)
    X, Y, lender, need_up, need_dn, ok, above, below = state()
    use = ok & (X != 0)
    src = np.where(use, lender, 0)
    theta = np.zeros(n)
    lend = np.zeros(n)
    for _ in range(60):
        with np.errstate(all="ignore"):
            th = np.where(use, -(1.0 - lend) * X / np.where(Y != 0, Y, 1.0), 0.0)
        th = np.clip(th, 0.0, None)
        new = np.bincount(src, weights=th, minlength=n)
        converged = bool(np.all(np.abs(new - lend) <= 1e-15 * np.maximum(new, 1e-300)))
        theta, lend = th, new
        if converged:
            break
    over = lend > 1.0
    if over.any():  # over-committed lenders: their borrowers fall back
        victims = use & over[src]
        use &= ~victims
        theta = np.where(use, theta, 0.0)
        lend = np.minimum(np.bincount(src, weights=theta, minlength=n), 1.0)
    pt = p + pe
    qt = q + pe * et
    pf = (1.0 - lend) * pt + np.bincount(idx, weights=theta * pt[src], minlength=n)
    # verification: the Q-mass each balanced atom really holds; an atom left with a
    # deficit (iteration not converged, rounding) may not claim Q = P e^{t_k}: it moves
    # to the largest lattice point below its actual ratio
    q_act = (1.0 - lend) * qt + np.bincount(idx, weights=theta * qt[src], minlength=n)
    with np.errstate(all="ignore"):
        short = use & (pf * et - q_act > 64 * EPS * pf * et)
    if short.any():
        step = t[1] - t[0] if n > 1 else 1.0
        with np.errstate(all="ignore"):
            r = np.log(q_act[short]) - np.log(pf[short])
        k = np.floor((r - t[0]) / step - 1e-9).astype(np.int64)
        k = np.minimum(k, idx[short] - 1)
        mv = pf[short].copy()
        pf[short] = 0.0
        keep = k >= 0
        np.add.at(pf, k[keep], mv[keep])
    fail = (X != 0) & ~use
    if fail.any():  # keep the P-mass at the largest lattice point below the ratio
        own = (1.0 - lend[fail]) * p[fail]
        pf[fail] -= own
        with np.errstate(all="ignore"):
            r = np.log(q[fail]) - np.log(p[fail])
        step = t[1] - t[0] if n > 1 else 1.0
        k = np.where(X[fail] > 0, idx[fail], np.floor((r - t[0]) / step).astype(np.int64))
        k = np.minimum(k, idx[fail])
        keep = k >= 0
        np.add.at(pf, k[keep], own[keep])
    return np.maximum(pf, 0.0), clean


def _disc_envelope(f: TradeOff, h: float, ka: int, kb: int) -> _Lat:
    r"""Sound lattice law of a factor known by a certified profile: the envelope of the
    lines :math:`1 - \hat\delta(t_k) - e^{t_k}\alpha` (each lies below ``f``)."""
    ka, kb = max(ka, int(-700 / h)), min(kb, int(700 / h))
    t = np.arange(ka, kb + 1, dtype=float) * h
    with np.errstate(all="ignore"):
        d = np.asarray(f._hockey(t), dtype=float)
    d = np.where(np.isnan(d), 1.0, d)
    d = np.minimum(np.clip(d, 0.0, 1.0) * (1.0 + 1e-9) + 1e-15, 1.0)  # float margin
    y = np.exp(t)
    hull = lower_convex_hull(y, d)
    dh, yh = d[hull], y[hull]
    # vertices between consecutive active lines (alpha increasing = slope decreasing)
    with np.errstate(all="ignore"):
        cross = (dh[:-1] - dh[1:]) / (yh[1:] - yh[:-1])  # alpha where line i meets line i+1
        zero = (1.0 - dh[0]) / yh[0]                      # where the flattest line hits 0
    right = np.concatenate([[max(zero, 0.0)], np.maximum(cross, 0.0)])
    left = np.concatenate([np.maximum(cross, 0.0), [0.0]])
    pm = np.maximum(right - left, 0.0)
    out = np.zeros(t.size)
    out[hull] = np.minimum(pm * yh, 1.0)
    return _Lat(ka, out, float(dh[-1]), 0.0, 0.0)


def _chord_law(f: TradeOff, h: float, ka: int, kb: int) -> AtomicLaw:
    """An upper curve of a hook-only factor: chords through points of ``f`` (convexity)."""
    # points where the slope crosses -e^{t_k -+ h/2}: each chord's loss is close to t_k
    t = (np.arange(ka, kb + 2, dtype=float) - 0.5) * h
    with np.errstate(all="ignore"):
        a = np.asarray(f._loss_sf(t), dtype=float)
    a = np.unique(np.clip(np.concatenate([[0.0, 1.0], a[np.isfinite(a)]]), 0.0, 1.0))
    with np.errstate(all="ignore"):
        b = np.asarray(f._f(a), dtype=float)
    b = np.minimum(np.where(np.isnan(b), 1.0 - a, b) + 1e-12, 1.0 - a)
    b[-1] = 0.0
    pl = _hull_points(a, b)
    return AtomicLaw(*pl._atoms())


def _hull_points(a: np.ndarray, b: np.ndarray) -> LossCurve:
    idx = lower_convex_hull(a, b)
    a, b = a[idx], b[idx]
    da, db = np.diff(a), -np.diff(b)
    with np.errstate(divide="ignore"):
        u = np.log(db) - np.log(da)
    return curve_from_atoms(np.concatenate([[np.inf], u]), np.concatenate([[0.0], da]),
                            np.concatenate([[1.0 - b[0]], db]))
