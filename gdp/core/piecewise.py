r"""Piecewise-linear trade-off functions: exactly :math:`T(P, Q)` of two discrete laws.

A convex piecewise-linear curve with vertices :math:`(\alpha_j, \beta_j)` is the
Neyman–Pearson curve of a discrete pair: each segment of run :math:`\Delta\alpha` and drop
:math:`\Delta\beta` is one atom with P-mass :math:`\Delta\alpha`, Q-mass :math:`\Delta\beta`
and privacy loss :math:`\log(\Delta\beta/\Delta\alpha)` (MATH.md §1). Everything such a curve
is asked is therefore exact: its profile (the supporting line at the active vertex), its
loss law (its atoms), its inverse (the reflected graph) and dominance against it.

Defined here: :class:`PiecewiseLinear`, :class:`Identity` (:math:`1 - \alpha`, the curve of
perfect privacy), :func:`from_curve` (sampled points, rejected or repaired to their largest
convex minorant) and :func:`from_privacy_profile` (:math:`\sup_i f_{\varepsilon_i,\delta_i}`).

Imports: the ground floor and :mod:`gdp.core.tradeoff`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import EPS, affine_exp_upper, lower_convex_hull, upper_envelope
from .._validation import as_probability_array, as_real_array, check_bool, check_str
from .dominance import interp_lower
from .tradeoff import TradeOff, _inv_label

__all__ = ["Identity", "identity", "PiecewiseLinear", "from_curve", "from_privacy_profile"]

# ---------------------------------------------------------------------------
# families and wrappers defined here
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Identity(TradeOff):
    r"""Perfect privacy: :math:`\mathrm{Id}(\alpha) = 1 - \alpha = T(P, P)`."""

    is_symmetric = True

    def _f(self, alpha):
        return 1.0 - alpha

    def _one_minus_f(self, alpha):
        return np.asarray(alpha, dtype=float)

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        # sup_x (x - e^eps x) = max(0, 1 - e^eps); expm1 errs by at most an ulp: raised
        with np.errstate(over="ignore"):
            return np.minimum(np.maximum(0.0, -np.expm1(eps)) * (1.0 + 2 * EPS), 1.0)

    def _hockey_upper(self, eps):
        return self._hockey(eps)

    def _hockey_lower(self, eps):
        with np.errstate(over="ignore"):
            return np.maximum(0.0, -np.expm1(np.asarray(eps, dtype=float))) * (1.0 - 2 * EPS)

    def _omf_lower(self, alpha):
        return np.asarray(alpha, dtype=float)

    def _lines(self):
        return np.array([0.0]), np.array([0.0]), True

    def _symmetric_exact(self):
        return True

    def _loss_sf(self, t):
        return np.where(np.asarray(t) < 0, 1.0, 0.0)

    def _loss_sf_q(self, t):
        return np.where(np.asarray(t) < 0, 1.0, 0.0)

    def _atoms(self):
        return np.array([0.0]), np.array([1.0]), np.array([1.0])

    def _group(self, k):
        return self

    def _dominates_exact(self, other):
        return True  # nothing lies above 1 - alpha

    label_format = r"\mathrm{{Id}}"


def identity() -> Identity:
    """The identity trade-off function :math:`1 - \\alpha` (perfect privacy)."""
    return Identity()


@dataclass(frozen=True, slots=True, eq=False)
class PiecewiseLinear(TradeOff):
    r"""A convex piecewise-linear trade-off function given by its vertices.

    ``alpha`` runs from 0 to 1 (strictly increasing), ``beta`` is non-increasing and
    convex with ``beta[-1] == 0``. Exactly :math:`T(P,Q)` for discrete :math:`P, Q`: each
    segment with run :math:`\Delta\alpha` and drop :math:`\Delta\beta` is one atom of
    P-mass :math:`\Delta\alpha`, Q-mass :math:`\Delta\beta` and privacy loss
    :math:`\log(\Delta\beta/\Delta\alpha)`; a jump at 0 is Q-mass at :math:`+\infty`, a
    flat zero tail is P-mass at :math:`-\infty` (MATH.md §1).

    ``one_minus_beta`` optionally carries :math:`1-\beta_j` computed without cancellation
    (e.g. as Q-tail sums of atoms), so that tiny privacy-profile values :math:`\delta(\varepsilon)`
    (far below ``1e-16``) survive; by default it is ``1 - beta``. ``pmfs`` optionally keeps
    the two pmfs the curve was built from (:func:`gdp.from_distributions`): its atoms and its
    inverse :math:`T(Q, P)` then come from them exactly (a reflected vertex
    :math:`\alpha' = \beta = 1 - (1-\beta)` would lose tiny masses to cancellation, an
    error the profile of the inverse multiplies by :math:`e^{\varepsilon}`).
    """

    alpha: np.ndarray
    beta: np.ndarray
    name: str = "f"
    symmetric: bool = field(default=False, repr=False)
    one_minus_beta: np.ndarray | None = field(default=None, repr=False)
    pmfs: Any = field(default=None, repr=False)

    def __post_init__(self):
        a, b, omb = _check_vertices(self.alpha, self.beta, self.one_minus_beta)
        check_str("name", self.name)
        object.__setattr__(self, "symmetric", check_bool("symmetric", self.symmetric))
        for arr in (a, b, omb):
            arr.setflags(write=False)
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "beta", b)
        object.__setattr__(self, "one_minus_beta", omb)
        if self.pmfs is not None:
            object.__setattr__(self, "pmfs", _check_pmfs(self.pmfs))

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, vertices={self.alpha.size})"

    def _f(self, alpha):
        return np.interp(alpha, self.alpha, self.beta)

    def _one_minus_f(self, alpha):
        return np.interp(alpha, self.alpha, self.one_minus_beta)

    def _atoms(self):
        if self.pmfs is not None:
            return _pmf_atoms(*self.pmfs)
        da = np.diff(self.alpha)
        db = np.diff(self.one_minus_beta)
        keep = (da > 0) | (db > 0)
        da, db = da[keep], db[keep]
        with np.errstate(divide="ignore"):
            loss = np.log(db) - np.log(da)
        loss = np.where(da == 0, np.inf, np.where(db == 0, -np.inf, loss))
        p = da.copy()
        q = db.copy()
        jump = self.one_minus_beta[0]
        if jump > 0:
            loss = np.concatenate([[np.inf], loss])
            p = np.concatenate([[0.0], p])
            q = np.concatenate([[jump], q])
        return loss, p, q

    def _node_omb(self) -> np.ndarray:
        """:math:`1 - \beta` at the vertices, as precisely as the curve stores it."""
        return self.one_minus_beta

    def _pl_data(self):
        return self.alpha, self._node_omb()

    def _hockey_upper(self, eps):
        return self._hockey(eps)  # rounded up by its own error bound (below)

    def _omf_lower(self, alpha):
        if not np.all(np.diff(self.alpha) > 0):
            return None  # repeated vertices (underflowed alpha): the data are not exact
        return interp_lower(alpha, self.alpha, self._node_omb())

    def _hockey(self, eps):
        # the concave function 1 - e^eps x - f(x) peaks at the vertex where the slope of f
        # crosses -e^eps: after the segments whose loss log(dbeta/dalpha) exceeds eps.
        # With u the unit roundoff, fl(omb_j - fl(e^eps) a_j) errs by at most 4 ulps of
        # s a_j (exp to 3 ulps, a product) and 2u omb_j (the difference); vertices summed
        # from n pmf masses add _pmf_sum_err(n) of each term. The bound is added, so the
        # value is never below the exact profile where the terms cancel near a tiny delta
        eps = np.asarray(eps, dtype=float).reshape(-1)
        a, omb = self.alpha, self._node_omb()
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.log(np.diff(omb)) - np.log(np.diff(a))
        loss = np.where(np.isnan(loss), -np.inf, loss)
        # convexity makes `loss` non-increasing; enforce it against rounding
        loss = np.minimum.accumulate(loss)
        k = np.searchsorted(-loss, -eps, side="left")  # number of segments with loss > eps
        best = np.full(eps.shape, -np.inf)
        rho = _pmf_sum_err(self.pmfs[0].size) if self.pmfs is not None else 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            s = np.exp(eps)
            for off in (-2, -1, 0, 1, 2):
                j = np.clip(k + off, 0, a.size - 1)
                sa = np.where(a[j] > 0, s * a[j], 0.0)
                v = omb[j] - sa
                marg = EPS * (4.0 * sa + omb[j])
                # where floats cannot tell the sign (an atom's own loss), decimals can
                unsure = np.flatnonzero((sa > 0) & np.isfinite(sa) & (v <= 0) & (v + marg > 0))
                v = np.where(sa > 0, v + marg, v) + rho * (sa + omb[j])
                if 0 < unsure.size <= 1000:
                    v[unsure] = (affine_exp_upper(omb[j][unsure], eps[unsure], a[j][unsure])
                                 + rho * (sa[unsure] + omb[j][unsure]))
                best = np.maximum(best, np.where(np.isnan(v), -np.inf, v))
        return np.minimum(np.where(np.isposinf(eps), omb[0], best), 1.0)

    def _vertices(self):
        return np.asarray(self.alpha)

    def _loss_sf(self, t):
        return self._tail(t, 1)

    def _loss_sf_q(self, t):
        return self._tail(t, 2)

    def _tail(self, t, side: int) -> np.ndarray:
        """P[L > t] (``side=1``) or Q[L > t] (``side=2``) from the atoms."""
        atoms = self._atoms()
        order = np.argsort(atoms[0])
        loss, mass = atoms[0][order], atoms[side][order]
        tail = np.concatenate([np.cumsum(mass[::-1])[::-1], [0.0]])
        return tail[np.searchsorted(loss, np.asarray(t, dtype=float), side="right")]

    def _inverse(self):
        # f^{-1}: T(Q, P) exactly from the pmfs, else reflect the graph in the diagonal
        if self.pmfs is not None:
            return _piecewise_from_pmfs(self.pmfs[1], self.pmfs[0], name=_inv_label(self.name))
        a = np.concatenate([[0.0], self.beta[::-1]])
        b = np.concatenate([[1.0], self.alpha[::-1]])
        return _make_piecewise(a, b, name=_inv_label(self.name))


def _check_pmfs(pmfs: Any) -> tuple[np.ndarray, np.ndarray]:
    """The ``pmfs`` of a :class:`PiecewiseLinear`: a pair of 1-D probability arrays of one
    length (read-only copies)."""
    if not (isinstance(pmfs, tuple | list) and len(pmfs) == 2):
        raise TypeError(f"`pmfs` must be None or a pair (P, Q) of probability arrays; got "
                        f"pmfs={pmfs!r:.60}")
    p = np.array(as_probability_array("pmfs", pmfs[0], max_ndim=1))
    q = np.array(as_probability_array("pmfs", pmfs[1], max_ndim=1))
    if p.size != q.size or p.size == 0:
        raise ValueError(f"`pmfs` must be two non-empty pmfs of one length; got {p.size} and "
                         f"{q.size} masses")
    for x in (p, q):
        x.setflags(write=False)
    return p, q


def _check_vertices(alpha: Any, beta: Any, omb: Any) -> tuple[np.ndarray, ...]:
    """Vertex arrays of a :class:`PiecewiseLinear`: 1-D, in [0, 1], of one length (>= 2),
    alpha non-decreasing from 0 to 1, beta non-increasing to 0. (``beta <= 1 - alpha`` is not
    required here: the optimistic side of a numeric composition is an upper bound and may
    lie above the identity; :func:`from_curve` checks a user's points.)"""
    a = as_probability_array("alpha", alpha, min_size=2, max_ndim=1)
    b = as_probability_array("beta", beta, min_size=2, max_ndim=1)
    o = 1.0 - b if omb is None else as_probability_array("one_minus_beta", omb, max_ndim=1)
    if not a.size == b.size == o.size:
        raise ValueError(f"`alpha`, `beta` and `one_minus_beta` must have one length; got "
                         f"{a.size}, {b.size} and {o.size}")
    if a[0] != 0.0 or a[-1] != 1.0 or np.any(np.diff(a) < 0):
        raise ValueError("`alpha` must be non-decreasing from 0 to 1 (the vertices of a curve "
                         f"on [0, 1]); got alpha={a[0]!r}...{a[-1]!r}")
    if b[-1] != 0.0 or np.any(np.diff(b) > 0):
        raise ValueError("`beta` must be non-increasing down to beta[-1] = 0 (a trade-off "
                         f"function); got beta[-1]={b[-1]!r}")
    return np.array(a), np.array(b), np.array(o)


def _make_piecewise(alpha, beta, *, name: str, symmetric: bool = False,
                    one_minus_beta: Any = None, pmfs: Any = None) -> PiecewiseLinear:
    """Normalise vertex lists: sorted, one (lowest) beta per alpha, endpoints present,
    replaced by the largest convex minorant (a no-op on convex input). ``one_minus_beta``
    (optional, same length) is carried along with ``beta``."""
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(beta, dtype=float)
    omb = 1.0 - b if one_minus_beta is None else np.asarray(one_minus_beta, dtype=float)
    order = np.lexsort((-b, a))
    a, b, omb = a[order], b[order], omb[order]
    # keep, for each alpha, the smallest beta (the infimum is what the test achieves)
    uniq, first = np.unique(a, return_index=True)
    b = np.minimum.reduceat(b, first)
    omb = np.maximum.reduceat(omb, first)
    a = uniq
    if a[0] > 0:
        a = np.concatenate([[0.0], a])
        b = np.concatenate([[b[0]], b])
        omb = np.concatenate([[omb[0]], omb])
    if a[-1] < 1:
        a = np.concatenate([a, [1.0]])
        b = np.concatenate([b, [0.0]])
        omb = np.concatenate([omb, [1.0]])
    b = np.minimum(b, 1.0 - a)
    omb = np.maximum(omb, a)
    b[-1] = 0.0
    omb[-1] = 1.0
    # convex minorant of beta = 1 - concave majorant of 1 - beta; the hull is taken on the
    # more precise of the two (1 - beta keeps tiny Q tails that beta rounds away)
    keep = lower_convex_hull(a, b if one_minus_beta is None else -omb)
    return PiecewiseLinear(alpha=a[keep], beta=b[keep], name=name, symmetric=symmetric,
                           one_minus_beta=omb[keep], pmfs=pmfs)


def _pmf_sum_err(n: int) -> float:
    """Relative error bound of a vertex of :func:`_piecewise_from_pmfs` (n masses)."""
    return 0.5 * EPS + n * float(np.finfo(np.longdouble).eps)


def _pmf_atoms(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Privacy-loss atoms ``(log(q/p), p, q)`` of two pmfs (``+inf`` where p = 0)."""
    keep = (p > 0) | (q > 0)
    p, q = p[keep], q[keep]
    with np.errstate(divide="ignore"):
        loss = np.where(p > 0, np.log(q) - np.log(p), np.inf)
    return loss, p.copy(), q.copy()


def _piecewise_from_pmfs(p: np.ndarray, q: np.ndarray, *, name: str) -> PiecewiseLinear:
    r"""Neyman–Pearson curve :math:`T(P, Q)` of two pmfs: outcomes rejected in decreasing
    order of q/p.

    :math:`\alpha_j` and :math:`1-\beta_j` are cumulative sums from the top and
    :math:`\beta_j` cumulative sums of the remaining Q-masses from the bottom, so no vertex
    value suffers cancellation. The sums run in ``numpy.longdouble`` (unit roundoff
    :math:`u_\ell`; 80-bit on x86, else double) and are rounded once to double, so each is
    within :math:`u/2 + (n-1)u_\ell` relative of the exact sum of the n masses
    (:func:`_pmf_sum_err`). The pmfs are kept, so the atoms and the inverse
    :math:`T(Q, P)` are exact.
    """
    p = np.array(p, dtype=float)
    q = np.array(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(p > 0, np.log(q) - np.log(p), np.inf)
    loss = np.where((p == 0) & (q == 0), -np.inf, loss)
    order = np.argsort(-loss, kind="stable")
    ld = np.longdouble  # sums in extended precision where the platform has it

    def csum(x: np.ndarray) -> np.ndarray:
        return np.cumsum(x.astype(ld)).astype(float)

    pa = np.concatenate([[0.0], csum(p[order])])
    qb = np.concatenate([[0.0], csum(q[order])])
    qlow = np.concatenate([csum(q[order][::-1])[::-1], [0.0]])
    p.setflags(write=False)
    q.setflags(write=False)
    return _make_piecewise(np.minimum(pa, 1.0), np.minimum(qlow, 1.0), name=name,
                           symmetric=_is_sym_pairs(p, q), one_minus_beta=np.minimum(qb, 1.0),
                           pmfs=(p, q))


def _is_sym_pairs(p: np.ndarray, q: np.ndarray) -> bool:
    """True when (q, p) is a relabelling of (p, q), i.e. T(P,Q) = T(Q,P)."""
    keep = (p > 0) | (q > 0)
    a = sorted(zip(p[keep].tolist(), q[keep].tolist(), strict=True))
    b = sorted(zip(q[keep].tolist(), p[keep].tolist(), strict=True))
    return all(abs(x[0] - y[0]) <= 1e-15 and abs(x[1] - y[1]) <= 1e-15
               for x, y in zip(a, b, strict=True))


def from_curve(alpha: Any, beta: Any, *, repair: bool = False,
               name: str = "f") -> PiecewiseLinear:
    r"""The piecewise-linear trade-off function through sampled points.

    Parameters
    ----------
    alpha, beta : array_like
        Points :math:`(\alpha_i, \beta_i)` in :math:`[0,1]^2`, in any order. The curve is
        the linear interpolation of the points: exactly :math:`T(P, Q)` of a pair of
        discrete distributions (MATH.md §1). Missing ends are filled: :math:`(1, 0)` is
        appended (every trade-off function has :math:`f(1) = 0`); if :math:`\alpha = 0`
        is absent the first segment is extended to it (the lowest convex continuation,
        hence safe).
    repair : bool
        Input that is not a trade-off function (a repeated α with different β, β rising,
        or a slope that decreases) raises ``ValueError`` naming the first offending point
        unless ``repair=True``, which replaces the points by their largest convex
        non-increasing minorant (a lower curve, so the guarantee only weakens) and says so
        with a ``UserWarning``. Points above the identity (:math:`\beta > 1-\alpha`)
        always raise.
    name : str
        Label for plots.

    Notes
    -----
    If the points are samples of a smooth convex curve, the interpolant lies *above* that
    curve between the samples (chords of a convex function lie above it); sample densely,
    or pass points of a lower bound.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_curve([0, 0.5, 1], [1, 0.2, 0])
    >>> f(0.25)
    0.6
    """
    a = as_probability_array("alpha", alpha, max_ndim=1).reshape(-1)
    b = as_probability_array("beta", beta, max_ndim=1).reshape(-1)
    check_str("name", name)
    if a.size != b.size:
        raise ValueError(f"`alpha` and `beta` must have the same length; got {a.size} and "
                         f"{b.size}")
    if a.size < 1:
        raise ValueError("`alpha` must hold at least one point; got an empty array")
    if not isinstance(repair, bool | np.bool_):
        raise TypeError(f"`repair` must be True or False; got repair={repair!r}")
    order = np.lexsort((-b, a))  # by alpha, the larger beta first
    a, b = a[order], b[order]
    above = b > 1.0 - a + 1e-12
    if above.any():
        i = int(np.flatnonzero(above)[0])
        raise ValueError(
            "`beta` must satisfy beta <= 1 - alpha (a trade-off function lies below the "
            f"identity); got beta={float(b[i])!r} at alpha={float(a[i])!r}")
    problems = []
    dup = np.flatnonzero((np.diff(a) == 0) & (np.diff(b) != 0))
    if dup.size:
        i = int(dup[0])
        if not repair:
            raise ValueError(
                f"`alpha` has repeated value {float(a[i])!r} with different beta values; a "
                "function takes one value per alpha (pass repair=True to keep the lower)")
        problems.append(f"repeated alpha={float(a[i])!r}")
    # one (the smallest) beta per alpha
    uniq, first = np.unique(a, return_index=True)
    bb = np.minimum.reduceat(b, first)
    rise = np.flatnonzero(np.diff(bb) > 0)
    if rise.size:
        i = int(rise[0])
        if not repair:
            raise ValueError(
                "`beta` must be non-increasing in alpha; it rises from "
                f"{float(bb[i])!r} to {float(bb[i + 1])!r} between alpha={float(uniq[i])!r} "
                f"and alpha={float(uniq[i + 1])!r} (pass repair=True to take the largest "
                "convex minorant)")
        problems.append(f"beta rises after alpha={float(uniq[i])!r}")
        bb = np.minimum.accumulate(bb)  # the running minimum lies below the input
    if uniq[-1] < 1.0:
        uniq = np.concatenate([uniq, [1.0]])
        bb = np.concatenate([bb, [0.0]])
    if uniq[0] > 0 and uniq.size >= 2:
        slope = (bb[1] - bb[0]) / (uniq[1] - uniq[0])
        b0 = bb[0] - slope * uniq[0]
        if b0 > 1.0 + 1e-12:
            raise ValueError(
                "`alpha` must start at 0, or the first segment extended to alpha=0 must stay "
                f"<= 1; it reaches {float(b0)!r}")
        uniq = np.concatenate([[0.0], uniq])
        bb = np.concatenate([[min(float(b0), 1.0)], bb])
    # convexity: slopes must be non-decreasing (relative slack for float noise only)
    if uniq.size >= 3:
        slopes = np.diff(bb) / np.diff(uniq)
        viol = np.flatnonzero(
            np.diff(slopes) < -1e-9 * (1.0 + np.abs(slopes[:-1]) + np.abs(slopes[1:])))
        if viol.size:
            i = int(viol[0]) + 1
            if not repair:
                raise ValueError(
                    "the curve must be convex; the slope decreases at the point "
                    f"(alpha={float(uniq[i])!r}, beta={float(bb[i])!r}) (pass repair=True to "
                    "take the largest convex minorant, a lower and hence safe curve)")
            problems.append(f"not convex at alpha={float(uniq[i])!r}")
    if problems:
        warnings.warn("from_curve: the points are not a trade-off function ("
                      + "; ".join(problems) + "); replaced by their largest convex "
                      "non-increasing minorant (a lower, safe curve)", UserWarning, stacklevel=2)
    return _make_piecewise(uniq, bb, name=name)


def from_privacy_profile(eps: Any, delta: Any, *, name: str = "f") -> PiecewiseLinear:
    r"""The trade-off function of a mechanism known to be :math:`(\varepsilon_i,
    \delta_i)`-DP for every ``i``: :math:`\sup_i f_{\varepsilon_i,\delta_i}` (DRS Prop. 2.12).

    A symmetric piecewise-linear convex function: the upper envelope of the lines
    :math:`1-\delta_i-e^{\varepsilon_i}\alpha` and
    :math:`e^{-\varepsilon_i}(1-\delta_i-\alpha)` and 0, computed exactly (convex-hull
    trick on the lines). ``eps`` and ``delta`` broadcast against each other.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_privacy_profile([0.0, 1.0], [0.5, 0.1])
    >>> round(f(0.05), 6)
    0.764086
    """
    e = as_real_array("eps", eps, lo=0.0, max_ndim=1).reshape(-1)
    d = as_probability_array("delta", delta, max_ndim=1).reshape(-1)
    check_str("name", name)
    for nm, v in (("eps", e), ("delta", d)):
        if v.size == 0:
            raise ValueError(f"`{nm}` must hold at least one value; got an empty array")
    try:
        e, d = np.broadcast_arrays(e, d)
    except ValueError:
        raise ValueError(f"`eps` and `delta` must have the same length (or one of them "
                         f"length 1); got {e.size} and {d.size}") from None
    with np.errstate(over="ignore"):
        slopes = np.concatenate([np.exp(e), np.exp(-e)])
    icpt = np.concatenate([1.0 - d, np.exp(-e) * (1.0 - d)])
    a, b = upper_envelope(slopes, icpt)
    return PiecewiseLinear(alpha=a, beta=b, name=name, symmetric=True)
