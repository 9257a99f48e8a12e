r"""Exact piecewise-linear curves stored with their privacy-loss atoms.

:class:`LossCurve` is a :class:`~gdp.core.piecewise.PiecewiseLinear` whose vertices are
:math:`(P[L > t_j], Q[L \le t_j])` with the segment losses :math:`t_j`, :math:`1-\beta_j` kept
as tail sums and :math:`\log\alpha_j` kept where α underflows, so the profile is evaluated at
the active vertex in :math:`O(\log N)` and ε(δ) is solved exactly piece by piece, both rounded
to the safe side by the summation error of the cumulative masses. Built by
:func:`curve_from_atoms`; :func:`hull_min_curves` (:math:`\min\{c_1,c_2\}^{**}`, profile
:math:`\max(\delta_1,\delta_2)`) and :func:`max_curves` (:math:`\max\{c_1,c_2\}`, the
symmetrisation) combine two of them exactly.

Imports: the ground floor, :mod:`gdp.core` and :mod:`gdp.engine.laws`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import EPS
from .._validation import (
    as_probability_array,
    as_real_array,
    check_bool,
    check_instance,
    check_real,
    check_str,
)
from ..core.piecewise import PiecewiseLinear
from .laws import _atom_arrays

__all__ = ["LossCurve", "curve_from_atoms", "hull_min_curves", "max_curves"]

_LOG_TINY = -745.0


# ---------------------------------------------------------------------------
# LossCurve: a piecewise-linear curve stored with its privacy-loss atoms
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class LossCurve(PiecewiseLinear):
    r"""A convex piecewise-linear trade-off curve stored with its privacy-loss atoms.

    Vertex :math:`j` is :math:`(\alpha_j, \beta_j) = (P[L > t_j], Q[L \le t_j])`; segment
    :math:`j` joins vertices :math:`j, j+1` with slope :math:`-e^{t_j}` (``tseg``,
    non-increasing; ``-inf`` for a flat zero tail); ``omb`` holds :math:`1 - \beta_j`
    accurately (tail masses). A subclass of :class:`gdp.core.PiecewiseLinear`.

    The one-order profile is evaluated at the active vertex,
    :math:`\delta(\varepsilon) = (1-\beta_j) - e^{\varepsilon}\alpha_j` with
    :math:`t_j \le \varepsilon \le t_{j-1}`, in :math:`O(\log N)`, and
    :math:`\varepsilon(\delta)` is solved exactly on the active piece.

    Notes
    -----
    A curve built by the numeric engine is a bound: ``optimistic=False`` curves (lower
    bounds, and exact curves) round δ up by the summation error of their cumulative
    masses, ``optimistic=True`` curves round it down.

    Examples
    --------
    >>> import numpy as np, gdp
    >>> rr = gdp.engine.curve_from_atoms([1.0, -1.0], [1 / (1 + np.e), np.e / (1 + np.e)],
    ...                               [np.e / (1 + np.e), 1 / (1 + np.e)], symmetric=True)
    >>> round(rr(0.1), 6), round(rr.epsilon(0.0), 6)
    (0.728172, 1.0)
    """

    omb: Any = field(default=None, repr=False)
    tseg: Any = field(default=None, repr=False)
    optimistic: bool = field(default=False, repr=False)
    lalpha: Any = field(default=None, repr=False)
    atoms: Any = field(default=None, repr=False)
    rerr: float = field(default=0.0, repr=False)

    def __post_init__(self):
        PiecewiseLinear.__post_init__(self)
        object.__setattr__(self, "optimistic", check_bool("optimistic", self.optimistic))
        # entry defaults for a curve given by its vertices only: 1 - beta and the slopes
        if self.omb is None:
            object.__setattr__(self, "omb", self.one_minus_beta)
        omb = as_probability_array("omb", self.omb, max_ndim=1)
        if omb.size != self.alpha.size:
            raise ValueError(f"`omb` must have one value per vertex ({self.alpha.size}); got "
                             f"{omb.size}")
        if self.tseg is None:
            object.__setattr__(self, "tseg", np.array([_log_slope(omb[i], omb[i + 1],
                                                                  self.alpha[i],
                                                                  self.alpha[i + 1])
                                                       for i in range(omb.size - 1)]))
        if self.lalpha is None:
            with np.errstate(divide="ignore"):
                object.__setattr__(self, "lalpha", np.log(self.alpha))
        tseg = as_real_array("tseg", self.tseg, finite=False, max_ndim=1)
        lal = as_real_array("lalpha", self.lalpha, hi=0.0, finite=False, max_ndim=1)
        if tseg.size != omb.size - 1 or lal.size != omb.size:
            raise ValueError(f"`tseg` must have one loss per segment ({omb.size - 1}) and "
                             f"`lalpha` one log alpha per vertex ({omb.size}); got {tseg.size} "
                             f"and {lal.size}")
        for nm in ("omb", "tseg", "lalpha"):
            v = np.array(getattr(self, nm), dtype=float)
            v.setflags(write=False)
            object.__setattr__(self, nm, v)
        object.__setattr__(self, "rerr", check_real("rerr", self.rerr, lo=0.0, hi=1.0,
                                                    hi_open=True))
        if self.atoms is not None:
            object.__setattr__(self, "atoms", _check_atoms(self.atoms))

    # -- curve -------------------------------------------------------------
    def _one_minus_f(self, alpha):
        return np.interp(alpha, self.alpha, self.omb)

    def _node_omb(self):
        return self.omb

    def _active(self, eps: np.ndarray) -> np.ndarray:
        """Index of the vertex where the slope crosses :math:`-e^\\varepsilon`."""
        return np.searchsorted(-self.tseg, -np.asarray(eps, dtype=float), side="left")

    def _margins(self) -> tuple[np.ndarray, np.ndarray]:
        """(A_j, log B_j) = (1 - beta_j, log alpha_j) widened by the cumulative-sum error
        and the relative error ``rerr`` of the atoms (log alpha is kept separately: alpha
        underflows for losses beyond ~745)."""
        rho = (np.arange(self.alpha.size) + 8.0) * EPS + self.rerr
        if self.optimistic:
            return self.omb * (1.0 - rho), self.lalpha + np.log1p(rho)
        return self.omb * (1.0 + rho), self.lalpha + np.log1p(-rho)

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        j = self._active(eps)
        A, lB = self._margins()
        a, lb = A[j], lB[j]
        with np.errstate(all="ignore"):
            ya = np.where(np.isneginf(lb), 0.0, np.exp(np.minimum(eps + lb, 709.0)))
        return np.clip(a - ya, 0.0, 1.0)

    def _eps_direct(self, delta: np.ndarray) -> np.ndarray:
        """Smallest ε ≥ 0 with the one-order profile ≤ δ, exactly per piece."""
        delta = np.asarray(delta, dtype=float)
        A, lB = self._margins()
        m = self.tseg.size
        left = np.concatenate([self.tseg, [-np.inf]])     # lower end of piece j
        right = np.concatenate([[np.inf], self.tseg])     # upper end of piece j
        with np.errstate(all="ignore"):
            yb = np.where(np.isneginf(lB) | np.isneginf(left), 0.0,
                          np.exp(np.minimum(left + lB, 709.0)))
        v = A - yb                                        # value at the lower end
        vmax = np.maximum.accumulate(v)                   # max over pieces with larger eps
        J = np.minimum(np.searchsorted(vmax, delta, side="right"), m)
        aj, lbj = A[J], lB[J]
        with np.errstate(all="ignore"):
            x = np.log(aj - delta) - lbj
        x = np.where(aj <= delta, -np.inf, np.where(np.isfinite(lbj), x, np.inf))
        x = np.where(np.isnan(x), np.inf, x)
        # one rounding step towards the safe side, so that delta(eps) <= delta holds
        x = x - 8 * EPS * (1.0 + np.abs(x)) if self.optimistic else \
            x + 8 * EPS * (1.0 + np.abs(x))
        e = np.minimum(right[J], np.maximum(left[J], x))
        return np.maximum(e, 0.0)

    def _sym(self) -> LossCurve:
        return self if self.symmetric else max_curves(self, self.inverse(), symmetric=True)

    def _epsilon(self, delta):
        return self._sym()._eps_direct(delta)

    def delta(self, eps: Any) -> Any:
        if self.symmetric:
            return PiecewiseLinear.delta(self, eps)
        return self._sym().delta(eps)

    # -- privacy-loss law --------------------------------------------------
    def _loss_sf(self, t):
        return self.alpha[self._active(t)]

    def _loss_sf_q(self, t):
        return np.minimum(self.omb[self._active(t)], 1.0)

    def _atoms(self):
        if self.atoms is not None:
            return tuple(np.array(x) for x in self.atoms)
        p = np.diff(self.alpha)
        q = np.diff(self.omb)
        u = np.array(self.tseg, dtype=float)
        with np.errstate(all="ignore"):
            p = np.where((p == 0) & (q > 0) & np.isfinite(u), q * np.exp(-u), p)
        if self.optimistic:  # P-mass underflowed: the atom's Q-mass is dropped (safe side)
            q = np.where((p == 0) & np.isfinite(u), 0.0, q)
        u = np.where((p == 0) & (q > 0), np.inf, u)
        u = np.where((q <= 0) & (p > 0), -np.inf, u)
        q = np.maximum(q, 0.0)
        keep = (p > 0) | (q > 0)
        u, p, q = u[keep], p[keep], q[keep]
        if self.omb[0] > 0:
            u = np.concatenate([[np.inf], u])
            p = np.concatenate([[0.0], p])
            q = np.concatenate([[float(self.omb[0])], q])
        return u, p, q

    def _inverse(self):
        name = _inv_label(self.name)
        if self.atoms is not None:  # T(Q, P) from the atoms: no cancellation anywhere
            u, p, q = self.atoms
            return curve_from_atoms(-u, q, p, name=name, symmetric=self.symmetric,
                                    optimistic=self.optimistic, rerr=self.rerr)
        # reflect the graph in the diagonal: vertex (alpha, beta) -> (beta, alpha), segment
        # slope -e^t -> -e^{-t}; the jump at 0 and a flat zero tail trade places. Only
        # 1 - beta is stored: beta = 1 - (1 - beta) is rounded towards the safe side by the
        # error of 1 - beta (relative rho_j, as in _margins) plus one rounding of the
        # difference, and 1 - alpha likewise, so the reflected curve stays on its side
        rho = (np.arange(self.alpha.size) + 8.0) * EPS + self.rerr
        sgn = 1.0 if self.optimistic else -1.0
        omb = np.minimum(self.omb, 1.0)
        beta = np.clip((1.0 - omb * (1.0 - sgn * rho)) * (1.0 + sgn * EPS), 0.0, 1.0)
        opa = np.clip((1.0 - self.alpha * (1.0 + sgn * rho)) * (1.0 - sgn * EPS), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            lb = np.log(beta)
        a2, o2, l2 = beta[::-1], opa[::-1], lb[::-1]
        t2 = -self.tseg[::-1]
        at0 = np.flatnonzero(np.isneginf(l2) | (a2 <= 0.0))
        if at0.size:
            z = int(at0[-1])  # last vertex at 0
            a2, o2, l2, t2 = a2[z:], o2[z:], l2[z:], t2[z:]
        else:
            # beta rounded up at the last vertex (the optimistic side) leaves no vertex at
            # alpha' = 0: start there at 1 - f = 0 (f^{-1} <= 1, an upper bound); a lower
            # curve would start at its first value (f^{-1} is non-increasing)
            o0 = 0.0 if self.optimistic else float(o2[0])
            t0 = _log_slope(o0, float(o2[0]), 0.0, float(a2[0]))
            a2, o2 = np.concatenate([[0.0], a2]), np.concatenate([[o0], o2])
            l2, t2 = np.concatenate([[-np.inf], l2]), np.concatenate([[t0], t2])
        a2 = np.where(np.isneginf(l2), 0.0, a2)
        return _finish(a2, o2, t2, name=name, symmetric=self.symmetric,
                       optimistic=self.optimistic, lalpha=l2, rerr=self.rerr + 2 * EPS)


def _inv_label(name: str) -> str:
    if name.endswith("^{-1}"):
        return name[: -len("^{-1}")]
    return "{" + name + "}^{-1}"


def _finish(alpha: np.ndarray, omb: np.ndarray, tseg: np.ndarray, *, name: str,
            symmetric: bool = False, optimistic: bool = False,
            lalpha: np.ndarray | None = None, atoms: tuple | None = None,
            rerr: float = 0.0) -> LossCurve:
    """Normalise a convex vertex chain into a LossCurve on [0, 1] x [0, 1].

    Drops empty segments, cuts the chain where β reaches 0 (or α reaches 1) and closes it
    at (1, 0); a chain ending above β = 0 is closed by the tangent to (1, 0), which keeps
    it convex (largest convex minorant of the chain and that point). ``lalpha`` gives
    log α when α underflows; ``atoms`` (exact atoms of the curve, when known) and ``rerr``
    (their relative error) are stored.
    """
    alpha = np.asarray(alpha, dtype=float)
    omb = np.asarray(omb, dtype=float)
    tseg = np.asarray(tseg, dtype=float)
    with np.errstate(divide="ignore"):
        la = np.log(alpha) if lalpha is None else np.maximum(np.asarray(lalpha, float),
                                                             np.log(alpha))
    with np.errstate(invalid="ignore"):
        keep = (np.diff(la) > 0) | (np.diff(omb) > 0)
    idx = np.concatenate([[0], 1 + np.flatnonzero(keep)])
    alpha, omb, tseg, la = alpha[idx], omb[idx], tseg[keep], la[idx]
    if omb[0] >= 1.0:  # the zero curve
        return LossCurve(alpha=np.array([0.0, 1.0]), beta=np.array([0.0, 0.0]), name=name,
                         symmetric=symmetric, omb=np.array([1.0, 1.0]),
                         tseg=np.array([-np.inf]), optimistic=optimistic, atoms=atoms,
                         rerr=rerr)
    # first vertex beyond the box (beta < 0 or alpha > 1)
    out = np.flatnonzero((omb >= 1.0) | (alpha > 1.0))
    if out.size:
        j = int(out[0])
        o0 = float(omb[j - 1])
        if omb[j] == 1.0 and alpha[j] <= 1.0:  # the chain reaches beta = 0 at a vertex
            a_hit, l_end = float(alpha[j]), float(la[j])
        else:  # where beta reaches 0 on segment j-1, in log space (alpha may underflow)
            with np.errstate(divide="ignore"):
                l_end = float(np.logaddexp(la[j - 1], math.log(1.0 - o0) - tseg[j - 1])) \
                    if np.isfinite(tseg[j - 1]) else np.inf
            l_end = min(l_end, float(la[j]))
            a_hit = math.exp(l_end) if l_end < 709 else np.inf
        if a_hit <= 1.0:
            # (a log a hair above 0 whose exponential rounds to 1: the masses of three
            # randomized responses summed to 1 + 1.1e-16; β reaching 0 earlier only lowers
            # the curve)
            a_end, o_end, l_end = min(a_hit, float(alpha[j])), 1.0, min(l_end, 0.0)
        else:  # reaches alpha = 1 first (float noise): close the curve at (1, 0)
            a_end, o_end, l_end = 1.0, 1.0, 0.0
        alpha = np.concatenate([alpha[:j], [a_end]])
        omb = np.concatenate([omb[:j], [o_end]])
        la = np.concatenate([la[:j], [l_end]])
        tseg = tseg[: j]
        if o_end == 1.0 and a_end == 1.0 and a_hit > 1.0:
            tseg = tseg.copy()
            tseg[-1] = _log_slope(omb[-2], omb[-1], alpha[-2], alpha[-1])
    if omb[-1] < 1.0:
        # close with the tangent from (1, 0): keep the vertex maximising the slope to it
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(alpha < 1.0, (1.0 - omb) / (1.0 - alpha), np.inf)
        v = int(np.argmin(ratio))
        alpha = np.concatenate([alpha[: v + 1], [1.0]])
        omb = np.concatenate([omb[: v + 1], [1.0]])
        la = np.concatenate([la[: v + 1], [0.0]])
        tseg = np.concatenate([tseg[:v], [_log_slope(omb[v], 1.0, alpha[v], 1.0)]])
    elif alpha[-1] < 1.0:
        alpha = np.concatenate([alpha, [1.0]])
        omb = np.concatenate([omb, [1.0]])
        la = np.concatenate([la, [0.0]])
        tseg = np.concatenate([tseg, [-np.inf]])
    tseg = np.minimum.accumulate(tseg)  # convexity against rounding
    omb = np.clip(np.maximum.accumulate(omb), 0.0, 1.0)
    return LossCurve(alpha=alpha, beta=1.0 - omb, name=name, symmetric=symmetric, omb=omb,
                     tseg=tseg, optimistic=optimistic, lalpha=la, atoms=atoms, rerr=rerr)


def _log_slope(o0: float, o1: float, a0: float, a1: float) -> float:
    do, da = float(o1) - float(o0), float(a1) - float(a0)
    if da <= 0:
        return np.inf
    if do <= 0:
        return -np.inf
    return math.log(do) - math.log(da)


def _check_atoms(atoms: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``atoms`` of a :class:`LossCurve`: a triple (loss, p, q) of 1-D arrays of one
    length, loss real or infinite, p and q probabilities (read-only copies)."""
    if not (isinstance(atoms, tuple | list) and len(atoms) == 3):
        raise TypeError(f"`atoms` must be None or a triple (loss, p, q) of arrays; got "
                        f"atoms={atoms!r:.60}")
    u = np.array(as_real_array("atoms", atoms[0], finite=False, max_ndim=1))
    p = np.array(as_probability_array("atoms", atoms[1], max_ndim=1))
    q = np.array(as_probability_array("atoms", atoms[2], max_ndim=1))
    if not u.size == p.size == q.size:
        raise ValueError(f"`atoms` must be three arrays of one length; got {u.size}, {p.size} "
                         f"and {q.size}")
    for x in (u, p, q):
        x.setflags(write=False)
    return u, p, q


def curve_from_atoms(loss: Any, p: Any, q: Any, *, name: str = "f", symmetric: bool = False,
                     optimistic: bool = False, rerr: float = 0.0) -> LossCurve:
    r"""The exact Neyman–Pearson curve of a discrete pair given by its privacy-loss atoms.

    Parameters
    ----------
    loss, p, q : array_like
        Atom losses :math:`\log(q_i/p_i)` (``±inf`` allowed) with their P- and Q-masses.
        Tests reject in decreasing order of the loss (DRS Sec. 2; MATH.md §1).
    rerr : float
        A bound on the relative error of the given masses (and, as its effect on the
        profile, of the losses), added to the summation margin of the profile.

    Notes
    -----
    The atoms are kept: the curve's law and its inverse :math:`T(Q, P)` (the same atoms with
    P and Q swapped and the losses negated) are exact, with no
    :math:`\beta = 1 - (1 - \beta)` cancellation.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.engine.curve_from_atoms([0.0], [1.0], [1.0])
    >>> f(0.3)
    0.7
    """
    u, p, q = _atom_arrays(loss, p, q)
    check_str("name", name)
    rerr = check_real("rerr", rerr, lo=0.0, hi=1.0, hi_open=True)
    symmetric, optimistic = check_bool("symmetric", symmetric), check_bool("optimistic",
                                                                            optimistic)
    keep = (p > 0) | (q > 0)
    u, p, q = u[keep], p[keep], q[keep]
    u = np.where(p == 0, np.inf, np.where(q == 0, -np.inf, u))
    atoms = (u, p, q)
    for x in atoms:
        x.setflags(write=False)
    inf_q = float(q[np.isposinf(u)].sum())
    fin = np.isfinite(u)
    u, p, q = u[fin], p[fin], q[fin]
    order = np.argsort(-u, kind="stable")
    u, p, q = u[order], p[order], q[order]
    alpha = np.concatenate([[0.0], np.cumsum(p)])
    omb = np.concatenate([[inf_q], inf_q + np.cumsum(q)])
    return _finish(alpha, omb, u, name=name, symmetric=symmetric, optimistic=optimistic,
                   atoms=atoms, rerr=float(rerr))


def _log_diff(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """log(e^lb - e^la) for lb >= la (-inf where equal)."""
    with np.errstate(all="ignore"):
        d = np.where(np.isneginf(la), lb, lb + np.log(-np.expm1(np.minimum(la - lb, 0.0))))
    return np.where(lb > la, d, -np.inf)


def _omb_at(c: LossCurve, la: np.ndarray) -> np.ndarray:
    """1 - c(alpha) at log alpha = ``la`` (accurate where alpha underflows)."""
    j = np.clip(np.searchsorted(c.lalpha, la, side="right") - 1, 0, c.tseg.size - 1)
    with np.errstate(all="ignore"):
        step = np.exp(np.minimum(c.tseg[j] + _log_diff(c.lalpha[j], la), 709.0))
    step = np.where(np.isneginf(c.tseg[j]), 0.0, np.nan_to_num(step, nan=0.0))
    return np.minimum(c.omb[j] + step, 1.0)


def _check_pair(c1: Any, c2: Any, name: Any, symmetric: Any) -> None:
    for nm, c in (("c1", c1), ("c2", c2)):
        check_instance(nm, c, LossCurve, "a LossCurve")
    check_str("name", name)
    check_bool("symmetric", symmetric)


def hull_min_curves(c1: LossCurve, c2: LossCurve, *, name: str = "f",
                    symmetric: bool = False) -> LossCurve:
    r""":math:`\min\{c_1, c_2\}^{**}` (largest convex minorant), whose profile is
    :math:`\max(\delta_{c_1}, \delta_{c_2})` (conjugate of a hull of a minimum).

    Vertex :math:`j` of :math:`c_i` belongs to the hull iff its supporting line
    :math:`(1-\beta_j) - e^{\varepsilon}\alpha_j` is the largest of all for some ε; that
    is tested on every interval between consecutive breakpoints of either curve.
    """
    _check_pair(c1, c2, name, symmetric)
    e = np.unique(np.concatenate([c1.tseg, c2.tseg]))
    e = e[np.isfinite(e)]
    if e.size:
        lo = np.concatenate([[-np.inf], e])
        hi = np.concatenate([e, [np.inf]])
        rep = np.concatenate([[e[0] - 1.0], 0.5 * (e[:-1] + e[1:]), [e[-1] + 1.0]])
    else:
        lo, hi, rep = np.array([-np.inf]), np.array([np.inf]), np.array([0.0])
    j1, j2 = c1._active(rep), c2._active(rep)

    def line(c: LossCurve, j: np.ndarray, at: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            ya = np.where(np.isneginf(c.lalpha[j]), 0.0,
                          np.exp(np.minimum(at + c.lalpha[j], 709.0)))
        return c.omb[j] - ya

    # compare the two lines at both ends of each interval (limits at +-inf)
    d_lo = np.where(np.isneginf(lo), c1.omb[j1] - c2.omb[j2],
                    line(c1, j1, lo) - line(c2, j2, lo))
    with np.errstate(invalid="ignore"):
        a_diff = c2.lalpha[j2] - c1.lalpha[j1]
    a_diff = np.where(np.isnan(a_diff), 0.0, a_diff)
    d_hi = np.where(np.isposinf(hi), np.where(a_diff != 0, a_diff, c1.omb[j1] - c2.omb[j2]),
                    line(c1, j1, hi) - line(c2, j2, hi))
    act1 = np.zeros(c1.alpha.size, dtype=bool)
    act2 = np.zeros(c2.alpha.size, dtype=bool)
    act1[j1[(d_lo >= 0) | (d_hi >= 0)]] = True
    act2[j2[(d_lo <= 0) | (d_hi <= 0)]] = True
    la = np.concatenate([c1.lalpha[act1], c2.lalpha[act2]])
    o = np.concatenate([c1.omb[act1], c2.omb[act2]])
    src = np.concatenate([np.zeros(act1.sum(), int), np.ones(act2.sum(), int)])
    ix = np.concatenate([np.flatnonzero(act1), np.flatnonzero(act2)])
    order = np.lexsort((-o, la))
    la, o, src, ix = la[order], o[order], src[order], ix[order]
    with np.errstate(invalid="ignore"):
        first = np.concatenate([[True], np.diff(la) > 0])  # one vertex per alpha
    la, o, src, ix = la[first], o[first], src[first], ix[first]
    same = (src[:-1] == src[1:]) & (ix[1:] == ix[:-1] + 1)
    t_own = np.where(src[:-1] == 0, c1.tseg[np.minimum(ix[:-1], c1.tseg.size - 1)],
                     c2.tseg[np.minimum(ix[:-1], c2.tseg.size - 1)])
    with np.errstate(divide="ignore", invalid="ignore"):
        bridge = np.log(np.diff(o)) - _log_diff(la[:-1], la[1:])
    ts = np.where(same, t_own, np.where(np.isnan(bridge), -np.inf, bridge))
    return _finish(np.exp(la), o, ts, name=name, symmetric=symmetric,
                   optimistic=c1.optimistic and c2.optimistic, lalpha=la,
                   rerr=_combined_rerr(c1, c2))


def max_curves(c1: LossCurve, c2: LossCurve, *, name: str | None = None,
               symmetric: bool = False) -> LossCurve:
    r"""The pointwise maximum :math:`\max\{c_1, c_2\}` (a convex piecewise-linear curve;
    for :math:`c_2 = c_1^{-1}` it is :math:`c_1^S`, DRS Prop. 2.4)."""
    _check_pair(c1, c2, "f" if name is None else name, symmetric)
    g = np.unique(np.concatenate([c1.lalpha, c2.lalpha]))
    o1, o2 = _omb_at(c1, g), _omb_at(c2, g)
    d = o1 - o2
    cross = np.flatnonzero(d[:-1] * d[1:] < 0)
    if cross.size:
        w = d[cross] / (d[cross] - d[cross + 1])
        with np.errstate(divide="ignore"):
            gx = np.logaddexp(g[cross], np.log(w) + _log_diff(g[cross], g[cross + 1]))
        g = np.unique(np.concatenate([g, gx]))
        o1, o2 = _omb_at(c1, g), _omb_at(c2, g)
    o = np.minimum(o1, o2)
    with np.errstate(divide="ignore"):
        mid = np.logaddexp(g[:-1], g[1:]) - math.log(2.0)
    m1, m2 = _omb_at(c1, mid), _omb_at(c2, mid)
    s1 = c1.tseg[np.clip(np.searchsorted(c1.lalpha, mid, side="right") - 1, 0,
                         c1.tseg.size - 1)]
    s2 = c2.tseg[np.clip(np.searchsorted(c2.lalpha, mid, side="right") - 1, 0,
                         c2.tseg.size - 1)]
    ts = np.where(m1 <= m2, s1, s2)
    nm = name if name is not None else "{" + c1.name + "}^{S}"
    return _finish(np.exp(g), o, ts, name=nm, symmetric=symmetric,
                   optimistic=c1.optimistic and c2.optimistic, lalpha=g,
                   rerr=_combined_rerr(c1, c2))


def _combined_rerr(c1: LossCurve, c2: LossCurve) -> float:
    """Relative error of vertices taken from ``c1`` and ``c2`` (their summation margins at
    any index, their atoms' errors, and one interpolation), as ``rerr`` of the result."""
    n = max(c1.alpha.size, c2.alpha.size) + 8
    return max(c1.rerr, c2.rerr) + (n + 4) * EPS
