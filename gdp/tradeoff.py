r"""Trade-off functions: the one abstraction of the toolkit.

Theory of operation
-------------------
For distributions :math:`P, Q` the trade-off function is
:math:`T(P,Q)(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}` (DRS Def. 2.1); a
function :math:`f:[0,1]\to[0,1]` is one iff it is convex, continuous, non-increasing and
:math:`f(\alpha) \le 1-\alpha` (DRS Prop. 2.2).

Every :class:`TradeOff` answers the same questions through a few private hooks that a
family overrides when it has a formula ("formula first, numerics second"):

``_f(alpha)``
    The curve on an array :math:`\alpha \in [0,1]` (required).
``_one_minus_f(alpha)``
    :math:`1 - f(\alpha)` without cancellation (default ``1 - _f``).
``_hockey(eps)``
    The one-order privacy profile :math:`\delta_f(\varepsilon) = 1 + f^*(-e^\varepsilon)
    = \sup_x [1 - e^\varepsilon x - f(x)]` for every real :math:`\varepsilon` (negative
    too, and :math:`+\infty`). For :math:`f = T(P,Q)` this is the hockey-stick divergence
    :math:`\sup_S Q(S) - e^\varepsilon P(S)` (DRS Prop. 2.12). The generic default
    maximises the concave function by golden-section search and returns a certified
    *upper* bound (sound side).
``_loss_sf(t)`` / ``_loss_sf_q(t)``
    The law of the privacy loss :math:`L = \log dQ/dP`: :math:`P[L > t]` and
    :math:`Q[L > t]` (the latter includes the atom :math:`Q[L = +\infty] = 1 - f(0)`).
    Neyman–Pearson: :math:`P[L>t]` is the type I error of the test "reject when
    :math:`L > t`", i.e. the point where the slope of :math:`f` crosses :math:`-e^t`,
    and :math:`Q[L \le t] = f(P[L>t])`. The numeric composition engine discretises these.
``_atoms()``
    For purely atomic laws (piecewise-linear curves), the exact atoms
    ``(loss, p_mass, q_mass)`` including :math:`\pm\infty`; ``None`` otherwise.
``_segments()``
    For piecewise-linear curves, the lines :math:`1 - \delta_j - e^{t_j}\alpha` whose
    upper envelope (with 0) is :math:`f`, as ``(t_j, delta_j)``; ``None`` otherwise.
    Dominance against such a curve is exact: :math:`g \ge f` iff
    :math:`\delta_g(t_j) \le \delta_j` for all :math:`j`.

Conventions: ``delta(eps)`` answers for a *mechanism* that is f-DP, which by DRS
Prop. 2.4 is also :math:`f^S = \max\{f, f^{-1}\}`-DP, so it is the profile of
:math:`f^S` (equal to ``_hockey`` for symmetric :math:`f`). ``hockey_stick(eps)`` is the
one-order profile of :math:`f` itself.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ._numerics import bisect_bracket
from ._validation import (
    as_probability_array,
    as_real_array,
    check_int,
    check_real,
)

__all__ = [
    "TradeOff",
    "Identity",
    "PiecewiseLinear",
    "Callable1D",
    "Inverse",
    "Symmetrized",
    "Group",
    "Bracketed",
    "identity",
    "from_callable",
    "from_curve",
    "from_distributions",
    "from_privacy_profile",
]

_GOLD = (math.sqrt(5.0) - 1.0) / 2.0


def _scalar_or_array(out: np.ndarray, like: np.ndarray) -> Any:
    """Return a Python float for 0-d input, the array (same shape) otherwise."""
    out = np.asarray(out, dtype=float).reshape(like.shape)
    return float(out) if out.ndim == 0 else out


class TradeOff:
    r"""A trade-off function :math:`f:[0,1]\to[0,1]` (convex, continuous, non-increasing,
    :math:`f(\alpha)\le 1-\alpha`).

    Instances are immutable values. Call one on a float or an array of type I errors
    :math:`\alpha` to get the type II errors :math:`\beta = f(\alpha)` (same shape).

    Examples
    --------
    >>> import gdp
    >>> f = gdp.G_mu(1.0)
    >>> round(f(0.05), 6)
    0.739239
    >>> f(0.0), f(1.0)
    (1.0, 0.0)
    """

    __slots__ = ()
    __array_ufunc__ = None  # keep numpy from broadcasting its operators over us

    #: True when ``f == f.inverse()``; families override.
    is_symmetric: bool = False

    # ------------------------------------------------------------------ hooks
    def _f(self, alpha: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _one_minus_f(self, alpha: np.ndarray) -> np.ndarray:
        return 1.0 - self._f(alpha)

    def _inverse(self) -> TradeOff:
        return Inverse(self)

    def _hockey(self, eps: np.ndarray) -> np.ndarray:
        return _numeric_hockey(self, eps)

    def _loss_sf(self, t: np.ndarray) -> np.ndarray:
        return _numeric_loss_sf(self, t)

    def _loss_sf_q(self, t: np.ndarray) -> np.ndarray:
        a = self._loss_sf(t)
        return np.clip(self._one_minus_f(a), 0.0, 1.0)

    def _atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        return None

    def _segments(self) -> tuple[np.ndarray, np.ndarray] | None:
        return None

    def _dominates_exact(self, other: TradeOff) -> bool | None:
        """Family-specific exact dominance rule; ``None`` when there is none."""
        return None

    def _group(self, k: int) -> TradeOff:
        return Group(self, k)

    @property
    def label(self) -> str:
        """A short LaTeX-safe name for legends, e.g. ``G_{1}``."""
        return type(self).__name__

    # --------------------------------------------------------------- public API
    def __call__(self, alpha: Any) -> Any:
        """Type II error :math:`f(\\alpha)`; float for a scalar, array of the same shape
        for an array. ``ValueError`` for α outside [0, 1] or NaN."""
        a = as_probability_array("alpha", alpha)
        flat = a.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._f(flat), dtype=float)
        out = np.clip(out, 0.0, 1.0 - flat)
        out[flat == 1.0] = 0.0
        return _scalar_or_array(out, a)

    def one_minus(self, alpha: Any) -> Any:
        """:math:`1 - f(\\alpha)` computed without cancellation (power of the best test)."""
        a = as_probability_array("alpha", alpha)
        flat = a.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._one_minus_f(flat), dtype=float)
        out = np.clip(out, flat, 1.0)
        out[flat == 1.0] = 1.0
        return _scalar_or_array(out, a)

    def inverse(self) -> TradeOff:
        r""":math:`f^{-1}(\alpha) = \inf\{t\in[0,1] : f(t) \le \alpha\}`; for
        :math:`f = T(P,Q)` it is :math:`T(Q,P)` (DRS Sec. 2.3)."""
        if self.is_symmetric:
            return self
        return self._inverse()

    def symmetrize(self) -> TradeOff:
        r""":math:`f^S = \max\{f, f^{-1}\}`, also a trade-off function; an f-DP mechanism
        is :math:`f^S`-DP (DRS Prop. 2.4)."""
        if self.is_symmetric:
            return self
        return Symmetrized(self)

    def group(self, k: int) -> TradeOff:
        r"""Group privacy: an f-DP mechanism is :math:`1-(1-f)^{\circ k}`-DP for groups of
        size ``k`` (DRS Thm 2.14); :math:`G_\mu \mapsto G_{k\mu}` exactly."""
        k = check_int("k", k, lo=1)
        return self if k == 1 else self._group(k)

    def hockey_stick(self, eps: Any) -> Any:
        r"""One-order privacy profile :math:`\delta_f(\varepsilon) = 1 + f^*(-e^\varepsilon)`
        for any real :math:`\varepsilon` (``inf`` allowed), vectorised.

        For :math:`f = T(P,Q)` this is :math:`\sup_S Q(S) - e^{\varepsilon}P(S)`. Use
        :meth:`delta` for the (ε, δ) guarantee of an f-DP mechanism.
        """
        e = as_real_array("eps", eps, finite=False)
        if np.any(np.isneginf(e)):
            raise ValueError("`eps` must be a real number or +inf; got eps=-inf")
        flat = e.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._hockey(flat), dtype=float)
        out = np.clip(out, 0.0, 1.0)
        return _scalar_or_array(out, e)

    def delta(self, eps: Any) -> Any:
        r"""Privacy profile: the smallest :math:`\delta` such that an f-DP mechanism is
        :math:`(\varepsilon, \delta)`-DP, for :math:`\varepsilon \ge 0` (vectorised).

        .. math:: \delta(\varepsilon) = 1 + (f^S)^*(-e^{\varepsilon})

        (DRS Prop. 2.12 applied to :math:`f^S = \max\{f, f^{-1}\}`, MATH.md §2). For a
        symmetric :math:`f` this is :meth:`hockey_stick`. Numeric paths answer with an
        upper bound (the sound side).
        """
        e = as_real_array("eps", eps, lo=0.0, finite=False)
        flat = e.reshape(-1)
        with np.errstate(all="ignore"):
            if self.is_symmetric:
                out = np.asarray(self._hockey(flat), dtype=float)
            else:
                out = _symmetrized_profile(self, flat)
        out = np.clip(out, 0.0, 1.0)
        return _scalar_or_array(out, e)

    def epsilon(self, delta: Any) -> Any:
        r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le \delta`
        (vectorised); ``inf`` when no finite ε achieves ``delta``.

        Computed by bisection on :meth:`delta`, returning the upper end of the final
        bracket, so the answer never under-states ε.
        """
        d = as_probability_array("delta", delta)
        flat = d.reshape(-1)
        out = self._epsilon(flat)
        return _scalar_or_array(np.maximum(out, 0.0), d)

    def _epsilon(self, delta: np.ndarray) -> np.ndarray:
        return _generic_epsilon(self.delta, delta)

    def dominates(self, other: TradeOff, *, rtol: float = 1e-12) -> bool:
        r"""True when ``other`` :math:`\le` ``self`` pointwise on [0, 1] (``self`` is at
        least as private).

        Exact for closed-form pairs and whenever one side is piecewise linear
        (``f_eps_delta``, ``from_curve``, ``from_privacy_profile``): against the lines
        :math:`1-\delta_j-e^{t_j}\alpha` of a piecewise-linear ``other`` it checks
        :math:`\delta_{self}(t_j) \le \delta_j`; a piecewise-linear ``self`` is checked at
        its own vertices (a convex ``other`` lies below its chords). Otherwise numeric on
        a dense grid of α (tails included). ``rtol`` absorbs floating-point noise only.
        """
        if not isinstance(other, TradeOff):
            raise TypeError(f"`other` must be a TradeOff; got other={other!r}")
        rtol = check_real("rtol", rtol, lo=0.0)
        rule = self._dominates_exact(other)
        if rule is not None:
            return bool(rule)
        seg = other._segments()
        if seg is not None:
            t, dj = seg
            mine = np.clip(self._hockey(np.asarray(t, dtype=float)), 0.0, 1.0)
            return bool(np.all(mine <= dj * (1.0 + rtol) + 1e-300))
        own = self._segments()
        if isinstance(self, PiecewiseLinear) or own is not None:
            verts = _vertices_of(self)
            return bool(np.all(other(verts) <= self(verts) * (1 + rtol) + 4e-16))
        grid = _dense_alpha_grid()
        return bool(np.all(other(grid) <= self(grid) * (1 + rtol) + 1e-13))

    # ---------------------------------------------------------- composition ops
    def __matmul__(self, other: Any) -> TradeOff:
        if not isinstance(other, TradeOff):
            return NotImplemented
        from .composition import compose  # composition sits above us in the layering

        return compose(self, other)

    def __pow__(self, n: Any) -> TradeOff:
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            return NotImplemented
        return self.self_compose(int(n))

    def self_compose(self, n: int) -> TradeOff:
        """The n-fold tensor power :math:`f^{\\otimes n}` (``f ** n``)."""
        n = check_int("n", n, lo=1)
        from .composition import compose_power

        return compose_power(self, n)

    def __repr__(self) -> str:  # dataclasses override this
        return f"{type(self).__name__}()"


# ---------------------------------------------------------------------------
# generic numerics behind the default hooks
# ---------------------------------------------------------------------------
def _dense_alpha_grid() -> np.ndarray:
    lin = np.linspace(0.0, 1.0, 4001)
    tail = np.logspace(-15, -1, 400)
    return np.unique(np.concatenate([lin, tail, 1.0 - tail]))


def _vertices_of(f: TradeOff) -> np.ndarray:
    if isinstance(f, PiecewiseLinear):
        return np.asarray(f.alpha)
    seg = f._segments()
    assert seg is not None  # noqa: S101 - internal invariant, not validation
    t, d = seg
    # vertices: pairwise intersections of the lines and with 0, plus 0 and 1
    slope = np.exp(np.asarray(t))
    icpt = 1.0 - np.asarray(d)
    pts = [0.0, 1.0]
    pts.extend(np.clip(icpt / slope, 0, 1))
    for i in range(len(slope)):
        for j in range(i + 1, len(slope)):
            if slope[i] != slope[j]:
                pts.append((icpt[i] - icpt[j]) / (slope[i] - slope[j]))
    v = np.asarray(pts)
    return np.unique(v[(v >= 0) & (v <= 1)])


def _golden_max(g: Callable[[np.ndarray], np.ndarray], n: int,
                iters: int = 90) -> tuple[np.ndarray, np.ndarray]:
    """Maximise ``n`` concave functions ``g`` (vectorised over rows) on [0, 1].

    Returns ``(x, upper)``: an approximate maximiser and a certified upper bound on the
    maximum, from the concavity lines through the last four golden-section points.
    """
    a = np.zeros(n)
    b = np.ones(n)
    c = b - _GOLD * (b - a)
    d = a + _GOLD * (b - a)
    gc = g(c, np.arange(n))
    gd = g(d, np.arange(n))
    ga = g(a, np.arange(n))
    gb = g(b, np.arange(n))
    idx = np.arange(n)
    for _ in range(iters):
        left = gc >= gd  # maximiser in [a, d]
        # shrink
        b = np.where(left, d, b)
        gb = np.where(left, gd, gb)
        a = np.where(left, a, c)
        ga = np.where(left, ga, gc)
        new_c = np.where(left, b - _GOLD * (b - a), d)
        new_d = np.where(left, c, a + _GOLD * (b - a))
        gnew_c = np.where(left, 0.0, gd)
        gnew_d = np.where(left, gc, 0.0)
        need = np.where(left, new_c, new_d)
        gneed = g(need, idx)
        gnew_c = np.where(left, gneed, gnew_c)
        gnew_d = np.where(left, gnew_d, gneed)
        c, d, gc, gd = new_c, new_d, gnew_c, gnew_d
    # certified bound: concave g lies below the secant lines extended
    best = np.maximum.reduce([ga, gb, gc, gd])

    def _line(x0, y0, x1, y1, x):
        with np.errstate(all="ignore"):
            s = (y1 - y0) / (x1 - x0)
            return np.where(x1 > x0, y0 + s * (x - x0), np.inf)

    bound_ends = np.maximum(_line(c, gc, d, gd, a), _line(c, gc, d, gd, b))
    with np.errstate(all="ignore"):
        s1 = np.where(c > a, (gc - ga) / (c - a), np.inf)
        s2 = np.where(b > d, (gb - gd) / (b - d), -np.inf)
        # intersection of line (a,c) extended right and line (d,b) extended left
        xi = np.where(s1 != s2, (gd - ga + s1 * a - s2 * d) / (s1 - s2), c)
        mid_bound = np.where(np.isfinite(s1) & np.isfinite(s2), ga + s1 * (xi - a), np.inf)
    upper = np.maximum(best, np.minimum(np.maximum(bound_ends, mid_bound),
                                        best + (b - a) * 1e3))
    upper = np.where(np.isfinite(upper), upper, best)
    return 0.5 * (c + d), upper


def _numeric_hockey(f: TradeOff, eps: np.ndarray) -> np.ndarray:
    """Certified upper bound on sup_x [1 - e^eps x - f(x)] by golden-section search."""
    eps = np.asarray(eps, dtype=float)
    out = np.empty_like(eps)
    inf = np.isposinf(eps)
    out[inf] = f._one_minus_f(np.zeros(1))[0] if inf.any() else 0.0
    fin = ~inf
    if fin.any():
        s = np.exp(np.minimum(eps[fin], 700.0))

        def g(x, rows):
            return f._one_minus_f(x) - s[rows] * x

        _, upper = _golden_max(g, int(fin.sum()))
        # the boundary values are exact candidates too (alpha = 0 gives 1 - f(0))
        out[fin] = np.maximum(upper, f._one_minus_f(np.zeros(1))[0])
    return np.clip(out, 0.0, 1.0)


def _numeric_loss_sf(f: TradeOff, t: np.ndarray) -> np.ndarray:
    """P[L > t]: the point where the slope of f crosses -e^t, by golden section."""
    t = np.asarray(t, dtype=float)
    out = np.empty_like(t)
    big = t >= 700
    out[big] = 0.0
    small = t <= -700
    out[small] = 1.0
    mid = ~(big | small)
    if mid.any():
        s = np.exp(t[mid])

        def g(x, rows):
            return f._one_minus_f(x) - s[rows] * x

        x, _ = _golden_max(g, int(mid.sum()))
        out[mid] = x
    return np.clip(out, 0.0, 1.0)


def _lower_hull_eval(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Evaluate the lower convex envelope of points (x, y) (x sorted ascending) at ``at``."""
    hull_x: list[float] = []
    hull_y: list[float] = []
    for xi, yi in zip(x.tolist(), y.tolist()):
        while len(hull_x) >= 2:
            x1, y1 = hull_x[-2], hull_y[-2]
            x2, y2 = hull_x[-1], hull_y[-1]
            # drop (x2, y2) if it lies on or above the segment (x1,y1)-(xi,yi)
            if (y2 - y1) * (xi - x1) >= (yi - y1) * (x2 - x1):
                hull_x.pop()
                hull_y.pop()
            else:
                break
        hull_x.append(xi)
        hull_y.append(yi)
    return np.interp(at, np.asarray(hull_x), np.asarray(hull_y))


def _symmetrized_profile(f: TradeOff, eps: np.ndarray) -> np.ndarray:
    r"""Profile of :math:`f^S=\max\{f,f^{-1}\}` as the lower convex envelope, in
    :math:`y=-e^{\varepsilon}`, of :math:`\min\{\delta_f, \delta_{f^{-1}}\}` (the
    conjugate of a max is the convex hull of the min of the conjugates). Sampling the
    envelope on a grid can only raise it, so the answer is an upper bound (sound).
    :math:`\delta_{f^{-1}}(\varepsilon) = e^{\varepsilon}\delta_f(-\varepsilon) + 1 -
    e^{\varepsilon}` (hockey-stick divergence with the roles of P and Q swapped).
    """
    eps = np.asarray(eps, dtype=float)
    fin = np.isfinite(eps)
    top = float(np.max(eps[fin])) if fin.any() else 0.0
    grid = np.concatenate([
        -np.geomspace(1e-6, 60.0, 400)[::-1], [0.0], np.geomspace(1e-6, max(60.0, top + 5), 600),
        eps[fin],
    ])
    grid = np.unique(grid)
    both = np.concatenate([grid, -grid])
    h = np.clip(f._hockey(both), 0.0, 1.0)
    d_f = h[: grid.size]
    d_minus = h[grid.size:]
    with np.errstate(over="ignore", invalid="ignore"):
        d_inv = np.exp(grid) * d_minus - np.expm1(grid)
    d_inv = np.clip(np.where(np.isfinite(d_inv), d_inv, 1.0), 0.0, 1.0)
    m = np.minimum(d_f, d_inv)
    y = -np.exp(grid)
    order = np.argsort(y)
    # append the exact endpoint y = 0 (eps = -inf), where both profiles equal 1
    ys = np.concatenate([y[order], [0.0]])
    ms = np.concatenate([m[order], [1.0]])
    out = np.empty_like(eps)
    out[fin] = _lower_hull_eval(ys, ms, -np.exp(eps[fin]))
    if (~fin).any():
        # eps = +inf: delta = Q[L = inf] of f^S = min of the two jumps
        jump_f = float(f._one_minus_f(np.zeros(1))[0])
        jump_i = float(f.inverse()._one_minus_f(np.zeros(1))[0])
        out[~fin] = min(jump_f, jump_i)
    return out


def _generic_epsilon(delta_fn: Callable[[Any], Any], delta: np.ndarray) -> np.ndarray:
    """Smallest eps >= 0 with delta_fn(eps) <= delta, by vectorised bisection (upper end)."""
    delta = np.asarray(delta, dtype=float)
    out = np.zeros_like(delta)
    d0 = np.asarray(delta_fn(np.zeros(1)))[0]
    need = delta < d0
    if not need.any():
        return out
    d_inf = float(np.asarray(delta_fn(np.array([np.inf])))[0])
    impossible = need & (delta < d_inf)
    out[impossible] = np.inf
    todo = need & ~impossible
    if not todo.any():
        return out
    target = delta[todo]
    hi = np.full(target.shape, 1.0)
    for _ in range(64):
        bad = np.asarray(delta_fn(hi)) > target
        if not bad.any():
            break
        hi = np.where(bad, hi * 2.0, hi)
    still = np.asarray(delta_fn(hi)) > target
    hi = np.where(still, np.inf, hi)
    lo = np.zeros_like(hi)
    finite = np.isfinite(hi)
    res = hi.copy()
    if finite.any():
        tgt = target[finite]
        _, h = bisect_bracket(lambda e: np.asarray(delta_fn(e)) <= tgt,
                              lo[finite], hi[finite], rtol=1e-14, xtol=1e-15)
        res[finite] = h
    out[todo] = res
    return out


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
        # sup_x (x - e^eps x) = max(0, 1 - e^eps)
        with np.errstate(over="ignore"):
            return np.maximum(0.0, -np.expm1(eps))

    def _loss_sf(self, t):
        return np.where(np.asarray(t) < 0, 1.0, 0.0)

    def _loss_sf_q(self, t):
        return np.where(np.asarray(t) < 0, 1.0, 0.0)

    def _atoms(self):
        return np.array([0.0]), np.array([1.0]), np.array([1.0])

    def _segments(self):
        return np.array([0.0]), np.array([0.0])

    def _group(self, k):
        return self

    def _dominates_exact(self, other):
        return True  # nothing lies above 1 - alpha

    @property
    def label(self):
        return r"\mathrm{Id}"


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
    """

    alpha: np.ndarray
    beta: np.ndarray
    name: str = "f"
    symmetric: bool = field(default=False, repr=False)

    def __post_init__(self):
        a = np.array(self.alpha, dtype=float)
        b = np.array(self.beta, dtype=float)
        a.setflags(write=False)
        b.setflags(write=False)
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "beta", b)

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.symmetric

    @property
    def label(self):
        return self.name

    def __repr__(self):
        return f"PiecewiseLinear(name={self.name!r}, vertices={self.alpha.size})"

    def _f(self, alpha):
        return np.interp(alpha, self.alpha, self.beta)

    def _one_minus_f(self, alpha):
        return np.interp(alpha, self.alpha, 1.0 - self.beta)

    def _atoms(self):
        da = np.diff(self.alpha)
        db = -np.diff(self.beta)
        keep = (da > 0) | (db > 0)
        da, db = da[keep], db[keep]
        with np.errstate(divide="ignore"):
            loss = np.log(db) - np.log(da)
        loss = np.where(da == 0, np.inf, np.where(db == 0, -np.inf, loss))
        p = da.copy()
        q = db.copy()
        jump = 1.0 - self.beta[0]
        if jump > 0:
            loss = np.concatenate([[np.inf], loss])
            p = np.concatenate([[0.0], p])
            q = np.concatenate([[jump], q])
        return loss, p, q

    def _segments(self):
        da = np.diff(self.alpha)
        db = -np.diff(self.beta)
        ok = (da > 0) & (db > 0)
        t = np.log(db[ok]) - np.log(da[ok])
        # line through (alpha_j, beta_j) with slope -e^t: 1 - delta - e^t alpha
        d = 1.0 - self.beta[:-1][ok] - np.exp(t) * self.alpha[:-1][ok]
        return t, np.clip(d, 0.0, 1.0)

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        # max over the vertices of the concave function 1 - e^eps x - f(x)
        with np.errstate(over="ignore", invalid="ignore"):
            s = np.exp(eps)[:, None]
            vals = (1.0 - self.beta)[None, :] - s * self.alpha[None, :]
            vals = np.where(np.isnan(vals), -np.inf, vals)
        out = vals.max(axis=1)
        return np.where(np.isposinf(eps), 1.0 - self.beta[0], out)

    def _loss_sf(self, t):
        loss, p, _ = self._atoms()
        t = np.asarray(t, dtype=float)
        order = np.argsort(loss)
        ls, ps = loss[order], p[order]
        tail = np.concatenate([np.cumsum(ps[::-1])[::-1], [0.0]])
        return tail[np.searchsorted(ls, t, side="right")]

    def _loss_sf_q(self, t):
        loss, _, q = self._atoms()
        t = np.asarray(t, dtype=float)
        order = np.argsort(loss)
        ls, qs = loss[order], q[order]
        tail = np.concatenate([np.cumsum(qs[::-1])[::-1], [0.0]])
        return tail[np.searchsorted(ls, t, side="right")]

    def _inverse(self):
        # f^{-1}: reflect the graph in the diagonal (swap the roles of P and Q)
        a = np.concatenate([[0.0], self.beta[::-1]])
        b = np.concatenate([[1.0], self.alpha[::-1]])
        return _make_piecewise(a, b, name=_inv_label(self.name))


def _inv_label(name: str) -> str:
    if name.endswith("^{-1}"):
        return name[: -len("^{-1}")]
    return "{" + name + "}^{-1}"


def _make_piecewise(alpha, beta, *, name: str, symmetric: bool = False) -> PiecewiseLinear:
    """Normalise vertex lists: sorted, one (lowest) beta per alpha, endpoints present,
    replaced by the largest convex minorant (a no-op on convex input)."""
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(beta, dtype=float)
    order = np.lexsort((-b, a))
    a, b = a[order], b[order]
    # keep, for each alpha, the smallest beta (the infimum is what the test achieves)
    uniq, first = np.unique(a, return_index=True)
    mins = np.minimum.reduceat(b, first)
    a, b = uniq, mins
    if a[0] > 0:
        a = np.concatenate([[0.0], a])
        b = np.concatenate([[b[0]], b])
    if a[-1] < 1:
        a = np.concatenate([a, [1.0]])
        b = np.concatenate([b, [0.0]])
    b = np.minimum(b, 1.0 - a)
    b[-1] = 0.0
    a, b = _lower_convex_hull(a, b)
    return PiecewiseLinear(alpha=a, beta=b, name=name, symmetric=symmetric)


def _lower_convex_hull(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the largest convex minorant of the points (a, b), a sorted."""
    ha: list[float] = []
    hb: list[float] = []
    for x, y in zip(a.tolist(), b.tolist()):
        while len(ha) >= 2 and (hb[-1] - hb[-2]) * (x - ha[-2]) >= (y - hb[-2]) * (ha[-1] - ha[-2]):
            ha.pop()
            hb.pop()
        ha.append(x)
        hb.append(y)
    return np.asarray(ha), np.asarray(hb)


def from_curve(alpha: Any, beta: Any, *, repair: bool = False,
               name: str = "f") -> PiecewiseLinear:
    r"""The piecewise-linear trade-off function through sampled points.

    Parameters
    ----------
    alpha, beta : array_like
        Points :math:`(\alpha_i, \beta_i)` in :math:`[0,1]^2`. Missing ends are filled
        soundly: :math:`(1, 0)` is appended; if :math:`\alpha = 0` is absent the first
        segment is extended to it (lower, hence safe).
    repair : bool
        Non-convex input raises ``ValueError`` naming the first offending point unless
        ``repair=True``, which replaces the points by their largest convex minorant
        (a lower curve, so the guarantee only weakens) and says so with a warning.
    name : str
        Label for plots.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_curve([0, 0.5, 1], [1, 0.2, 0])
    >>> f(0.25)
    0.6
    """
    a = as_probability_array("alpha", alpha).reshape(-1)
    b = as_probability_array("beta", beta).reshape(-1)
    if a.size != b.size:
        raise ValueError(f"`alpha` and `beta` must have the same length; got {a.size} and {b.size}")
    if a.size < 1:
        raise ValueError("`alpha` must hold at least one point; got an empty array")
    order = np.argsort(a, kind="stable")
    a, b = a[order], b[order]
    if np.any(np.diff(a) == 0):
        i = int(np.flatnonzero(np.diff(a) == 0)[0])
        if b[i] != b[i + 1] and not repair:
            raise ValueError(
                f"`alpha` has repeated value {a[i]!r} with different beta values; a "
                "function takes one value per alpha (pass repair=True to keep the lower)")
    above = b > 1.0 - a + 1e-12
    if above.any():
        i = int(np.flatnonzero(above)[0])
        raise ValueError(
            "`beta` must satisfy beta <= 1 - alpha (a trade-off function lies below the "
            f"identity); got beta={b[i]!r} at alpha={a[i]!r}")
    if np.any(np.diff(b) > 0):
        i = int(np.flatnonzero(np.diff(b) > 0)[0])
        if not repair:
            raise ValueError(
                "`beta` must be non-increasing in alpha; it rises from "
                f"{b[i]!r} to {b[i + 1]!r} between alpha={a[i]!r} and alpha={a[i + 1]!r} "
                "(pass repair=True to take the largest convex minorant)")
    if a[0] > 0 and a.size >= 2 and a[1] > a[0]:
        slope = (b[1] - b[0]) / (a[1] - a[0])
        b0 = b[0] - slope * a[0]
        if b0 > 1.0 + 1e-12:
            raise ValueError(
                "`alpha` must start at 0, or the first segment extended to alpha=0 must stay "
                f"<= 1; it reaches {b0!r}")
        a = np.concatenate([[0.0], a])
        b = np.concatenate([[min(b0, 1.0)], b])
    if a[-1] < 1.0:
        a = np.concatenate([a, [1.0]])
        b = np.concatenate([b, [0.0]])
    # convexity: slopes must be non-decreasing
    uniq, first = np.unique(a, return_index=True)
    bb = np.minimum.reduceat(b, first)
    slopes = np.diff(bb) / np.diff(uniq)
    viol = np.flatnonzero(np.diff(slopes) < -1e-9 * (1 + np.abs(slopes[:-1])))
    if viol.size and not repair:
        i = int(viol[0]) + 1
        raise ValueError(
            "the curve must be convex; the slope decreases at the point "
            f"(alpha={uniq[i]!r}, beta={bb[i]!r}) (pass repair=True to take the largest "
            "convex minorant, a lower and hence safe curve)")
    if repair and (viol.size or np.any(np.diff(b) > 0)):
        import warnings

        warnings.warn("from_curve: input was not a trade-off function; replaced by its largest "
                      "convex non-increasing minorant (a lower, safe curve)", stacklevel=2)
        # non-increasing: running minimum from the left is below the input
        bb = np.minimum.accumulate(bb)
    return _make_piecewise(uniq, bb, name=name)


def from_distributions(P: Any, Q: Any, *, n_grid: int = 20001,
                       name: str = "T(P,Q)") -> TradeOff:
    r"""The trade-off function :math:`T(P, Q)` of two distributions.

    * Two discrete pmfs (array_like of equal length, non-negative, each summing to 1):
      exact, by Neyman–Pearson (sort outcomes by likelihood ratio :math:`q_i/p_i`).
    * Two frozen 1-D ``scipy.stats`` continuous distributions: numeric. The line is cut
      into ``n_grid`` cells of equal P-and-Q mixture probability; the cell masses are
      exact (CDF differences). Returns a :class:`Bracketed` curve whose ``lower`` splits
      each cell into two atoms at the extreme likelihood ratios seen at the cell's ends
      and midpoint (a more informative pair, hence a lower curve; rigorous when the
      log-likelihood ratio is monotone on each cell) and whose ``upper`` is the coarsened
      pair (a post-processing, hence an upper curve). Calling it gives the lower curve.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_distributions([0.5, 0.5], [0.25, 0.75])
    >>> f(0.5)
    0.25
    """
    if hasattr(P, "cdf") and hasattr(Q, "cdf") and hasattr(P, "ppf"):
        return _from_continuous(P, Q, n_grid=check_int("n_grid", n_grid, lo=10), name=name)
    p = as_real_array("P", P, lo=0.0).reshape(-1)
    q = as_real_array("Q", Q, lo=0.0).reshape(-1)
    if p.size != q.size or p.size == 0:
        raise ValueError(f"`P` and `Q` must be non-empty pmfs of the same length; got lengths "
                         f"{p.size} and {q.size}")
    for nm, v in (("P", p), ("Q", q)):
        if abs(v.sum() - 1.0) > 1e-9:
            raise ValueError(f"`{nm}` must sum to 1 (a probability mass function); got sum "
                             f"{v.sum()!r}")
    p = p / p.sum()
    q = q / q.sum()
    return _piecewise_from_atoms(p, q, name=name)


def _piecewise_from_atoms(p: np.ndarray, q: np.ndarray, *, name: str) -> PiecewiseLinear:
    """Neyman–Pearson curve of two pmfs: reject outcomes in decreasing order of q/p."""
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(p > 0, np.log(q) - np.log(p), np.inf)
    loss = np.where((p == 0) & (q == 0), -np.inf, loss)
    order = np.argsort(-loss, kind="stable")
    pa = np.concatenate([[0.0], np.cumsum(p[order])])
    qb = np.concatenate([[0.0], np.cumsum(q[order])])
    # merge equal losses (ties give one segment); np.unique on the cumulative points
    alpha = np.minimum(pa, 1.0)
    beta = np.maximum(1.0 - qb, 0.0)
    symmetric = bool(np.allclose(np.sort(p), np.sort(q)) and _is_sym_pairs(p, q))
    return _make_piecewise(alpha, beta, name=name, symmetric=symmetric)


def _is_sym_pairs(p: np.ndarray, q: np.ndarray) -> bool:
    """True when (q, p) is a relabelling of (p, q), i.e. T(P,Q) = T(Q,P)."""
    a = sorted(zip(p.tolist(), q.tolist()))
    b = sorted(zip(q.tolist(), p.tolist()))
    return all(abs(x[0] - y[0]) <= 1e-15 and abs(x[1] - y[1]) <= 1e-15 for x, y in zip(a, b))


def _from_continuous(P: Any, Q: Any, *, n_grid: int, name: str) -> Bracketed:
    u = np.linspace(0.0, 1.0, n_grid + 1)[1:-1]
    xs = np.unique(np.concatenate([P.ppf(u), Q.ppf(u)]))
    xs = xs[np.isfinite(xs)]
    edges = np.concatenate([[-np.inf], xs, [np.inf]])
    pc = np.diff(P.cdf(edges))
    qc = np.diff(Q.cdf(edges))
    pc = np.clip(pc, 0.0, None)
    qc = np.clip(qc, 0.0, None)
    upper = _piecewise_from_atoms(pc / pc.sum(), qc / qc.sum(), name=name)
    # likelihood ratio at cell ends and midpoints
    lo_e = edges[:-1]
    hi_e = edges[1:]
    mid = np.where(np.isfinite(lo_e) & np.isfinite(hi_e), 0.5 * (lo_e + hi_e),
                   np.where(np.isfinite(lo_e), lo_e + 1.0, hi_e - 1.0))
    with np.errstate(all="ignore"):
        def llr(x):
            return Q.logpdf(x) - P.logpdf(x)

        cand = np.stack([llr(np.where(np.isfinite(lo_e), lo_e, mid)), llr(mid),
                         llr(np.where(np.isfinite(hi_e), hi_e, mid))])
    cand = np.where(np.isnan(cand), 0.0, cand)
    r_lo = np.exp(np.min(cand, axis=0))
    r_hi = np.exp(np.max(cand, axis=0))
    ratio = np.divide(qc, pc, out=np.full_like(qc, np.inf), where=pc > 0)
    r_lo = np.minimum(r_lo, ratio)
    r_hi = np.maximum(r_hi, ratio)
    # split p = a + b, q = a r_hi + b r_lo
    with np.errstate(all="ignore"):
        a_hi = np.where(r_hi > r_lo, (qc - pc * r_lo) / (r_hi - r_lo), pc)
    a_hi = np.clip(np.nan_to_num(a_hi, nan=0.0), 0.0, pc)
    b_lo = pc - a_hi
    q_hi = np.where(np.isfinite(r_hi), a_hi * r_hi, 0.0)
    q_lo = qc - q_hi
    q_lo = np.clip(q_lo, 0.0, None)
    p2 = np.concatenate([a_hi, b_lo])
    q2 = np.concatenate([q_hi, q_lo])
    lower = _piecewise_from_atoms(p2 / p2.sum(), q2 / q2.sum(), name=name)
    return Bracketed(lower=lower, upper=upper, name=name)


def from_privacy_profile(eps: Any, delta: Any, *, name: str = "f") -> PiecewiseLinear:
    r"""The trade-off function of a mechanism known to be :math:`(\varepsilon_i,
    \delta_i)`-DP for every ``i``: :math:`\sup_i f_{\varepsilon_i,\delta_i}` (DRS Prop. 2.12).

    A piecewise-linear convex function: the upper envelope of the lines
    :math:`1-\delta_i-e^{\varepsilon_i}\alpha` and
    :math:`e^{-\varepsilon_i}(1-\delta_i-\alpha)` and 0.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_privacy_profile([0.0, 1.0], [0.5, 0.1])
    >>> round(f(0.05), 6)
    0.764086
    """
    e = as_real_array("eps", eps, lo=0.0).reshape(-1)
    d = as_probability_array("delta", delta).reshape(-1)
    e, d = np.broadcast_arrays(e, d)
    if e.size == 0:
        raise ValueError("`eps` must hold at least one value; got an empty array")
    slopes = np.concatenate([np.exp(e), np.exp(-e)])
    icpt = np.concatenate([1.0 - d, np.exp(-e) * (1.0 - d)])
    a, b = _upper_envelope(slopes, icpt)
    return PiecewiseLinear(alpha=a, beta=b, name=name, symmetric=True)


def _upper_envelope(slopes: np.ndarray, icpt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Vertices on [0, 1] of :math:`\max(0, \max_j c_j - s_j\alpha)` (lines with
    :math:`s_j>0`)."""
    cand = [0.0, 1.0]
    cand.extend((icpt / slopes).tolist())
    # breakpoints: intersections of lines adjacent in the envelope; O(n^2) is fine for
    # the few hundred lines a privacy profile holds, and exact.
    n = slopes.size
    if n <= 400:
        si = slopes[:, None] - slopes[None, :]
        ci = icpt[:, None] - icpt[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            x = ci / si
        cand.extend(x[np.isfinite(x)].ravel().tolist())
    else:
        cand.extend(np.linspace(0, 1, 20001).tolist())
    xs = np.unique(np.clip(np.asarray(cand), 0.0, 1.0))
    ys = np.maximum(0.0, np.max(icpt[None, :] - slopes[None, :] * xs[:, None], axis=1))
    ys = np.minimum(ys, 1.0 - xs)
    return _lower_convex_hull(xs, ys)


# ---------------------------------------------------------------------------
# generic wrappers
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Callable1D(TradeOff):
    """A user's function wrapped as a trade-off function (see :func:`from_callable`)."""

    fn: Callable[[np.ndarray], Any]
    name: str = "f"
    symmetric: bool = False

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.symmetric

    @property
    def label(self):
        return self.name

    def _f(self, alpha):
        out = np.asarray(self.fn(alpha), dtype=float)
        return np.broadcast_to(out, np.shape(alpha)).copy()


def from_callable(fn: Callable[[Any], Any], *, name: str = "f", symmetric: bool = False,
                  n_check: int = 4001, tol: float = 1e-9) -> Callable1D:
    r"""Wrap a user's function as a :class:`TradeOff`, after checking it is one.

    The function is evaluated on a grid of ``n_check`` points plus log-spaced tails and
    must be: finite in [0, 1]; non-increasing; at most :math:`1-\alpha`; convex (second
    differences :math:`\ge -\text{tol}`); continuous on (0, 1] with :math:`f(1)=0`. The
    ``ValueError`` names the violated property and where. It must accept numpy arrays.
    ``symmetric=True`` declares :math:`f = f^{-1}` (checked on the grid).

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_callable(lambda a: (1 - a) ** 2)
    >>> f(0.5)
    0.25
    >>> gdp.from_callable(lambda a: 1 - a ** 2)
    Traceback (most recent call last):
    ...
    ValueError: `fn` is not convex: ...
    """
    if not callable(fn):
        raise TypeError(f"`fn` must be callable; got fn={fn!r}")
    n_check = check_int("n_check", n_check, lo=11)
    x = np.unique(np.concatenate([np.linspace(0, 1, n_check), np.logspace(-12, -1, 100),
                                  1 - np.logspace(-12, -1, 100)]))
    try:
        y = np.asarray(fn(x), dtype=float)
    except Exception as exc:
        raise TypeError(f"`fn` must accept a numpy array of alphas; calling it failed: {exc}") \
            from exc
    if y.shape != x.shape:
        y = np.broadcast_to(y, x.shape)
    where = lambda m: f"alpha={float(x[np.flatnonzero(m)[0]])!r}"  # noqa: E731
    if not np.all(np.isfinite(y)):
        raise ValueError(f"`fn` must return finite values on [0, 1]; not finite at "
                         f"{where(~np.isfinite(y))}")
    if np.any((y < -tol) | (y > 1 + tol)):
        raise ValueError(f"`fn` must map into [0, 1]; got a value outside at "
                         f"{where((y < -tol) | (y > 1 + tol))}")
    if np.any(y > 1 - x + tol):
        raise ValueError(f"`fn` must satisfy f(alpha) <= 1 - alpha; violated at "
                         f"{where(y > 1 - x + tol)}")
    dy = np.diff(y)
    if np.any(dy > tol):
        raise ValueError(f"`fn` must be non-increasing; it increases after "
                         f"{where(np.concatenate([dy > tol, [False]]))}")
    slopes = dy / np.diff(x)
    ds = np.diff(slopes)
    bad = ds < -tol * np.maximum(1.0, np.abs(slopes[:-1])) * 1e3
    # relative slack for float noise in tiny tail cells
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0]) + 1
        raise ValueError(f"`fn` is not convex: its slope decreases at alpha={float(x[i])!r}")
    if abs(y[-1]) > tol:
        raise ValueError(f"`fn` must satisfy f(1) = 0 (continuity of a trade-off function); "
                         f"got f(1)={float(y[-1])!r}")
    if symmetric:
        g = Callable1D(fn=fn, name=name, symmetric=False)
        inv = Inverse(g)
        xi = np.linspace(0, 1, 201)
        if np.max(np.abs(inv._f(xi) - g._f(xi))) > 1e-6:
            raise ValueError("`fn` was declared symmetric but f != f^{-1} on a grid")
    return Callable1D(fn=fn, name=name, symmetric=symmetric)


@dataclass(frozen=True, slots=True, eq=False)
class Inverse(TradeOff):
    r""":math:`f^{-1}(\alpha)=\inf\{t\in[0,1]: f(t)\le\alpha\}`, i.e. :math:`T(Q,P)`.

    Computed by bisection on :math:`f`, returning the lower end of the final bracket (a
    lower curve, hence safe). Its profile uses the exact identity
    :math:`\delta_{f^{-1}}(\varepsilon) = e^{\varepsilon}\delta_f(-\varepsilon)+1-e^{\varepsilon}`.
    """

    base: TradeOff

    @property
    def label(self):
        return _inv_label(self.base.label)

    def _f(self, alpha):
        alpha = np.asarray(alpha, dtype=float)
        f0 = float(np.asarray(self.base._f(np.zeros(1)))[0])
        out = np.zeros_like(alpha)
        need = alpha < f0
        if need.any():
            target = alpha[need]
            lo, _ = bisect_bracket(lambda t: self.base._f(t) <= target,
                                   np.zeros(target.shape), np.ones(target.shape),
                                   rtol=0.0, xtol=1e-16)
            out[need] = lo
        return out

    def _inverse(self):
        return self.base

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        out = np.empty_like(eps)
        inf = np.isposinf(eps)
        fin = ~inf
        with np.errstate(over="ignore", invalid="ignore"):
            d = np.exp(eps[fin]) * self.base._hockey(-eps[fin]) - np.expm1(eps[fin])
        out[fin] = np.where(np.isfinite(d), d, 0.0)
        if inf.any():
            out[inf] = 1.0 - float(np.asarray(self._f(np.zeros(1)))[0])
        return np.clip(out, 0.0, 1.0)

    def _loss_sf(self, t):
        # P' = Q, L' = -L:  P'[L' > t] = Q[L < -t]
        t = np.asarray(t, dtype=float)
        return np.clip(1.0 - self.base._loss_sf_q(-t) - _q_atom(self.base, -t), 0.0, 1.0)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        return np.clip(1.0 - self.base._loss_sf(-t) - _p_atom(self.base, -t), 0.0, 1.0)

    def _atoms(self):
        at = self.base._atoms()
        if at is None:
            return None
        loss, p, q = at
        return -loss, q, p


def _q_atom(f: TradeOff, t: np.ndarray) -> np.ndarray:
    """Q[L = t] (non-zero only for atomic laws)."""
    at = f._atoms()
    if at is None:
        return np.zeros_like(t)
    loss, _, q = at
    return np.array([q[loss == x].sum() for x in np.ravel(t)]).reshape(np.shape(t))


def _p_atom(f: TradeOff, t: np.ndarray) -> np.ndarray:
    at = f._atoms()
    if at is None:
        return np.zeros_like(t)
    loss, p, _ = at
    return np.array([p[loss == x].sum() for x in np.ravel(t)]).reshape(np.shape(t))


@dataclass(frozen=True, slots=True, eq=False)
class Symmetrized(TradeOff):
    r""":math:`f^S = \max\{f, f^{-1}\}` (DRS Prop. 2.4)."""

    base: TradeOff
    is_symmetric = True

    @property
    def label(self):
        return "{" + self.base.label + "}^{S}"

    def _f(self, alpha):
        return np.maximum(self.base._f(alpha), self.base.inverse()._f(alpha))

    def _hockey(self, eps):
        return _symmetrized_profile(self.base, np.asarray(eps, dtype=float))


@dataclass(frozen=True, slots=True, eq=False)
class Group(TradeOff):
    r"""Group privacy curve :math:`1-(1-f)^{\circ k}` (DRS Thm 2.14)."""

    base: TradeOff
    k: int

    @property
    def label(self):
        return f"{self.base.label}^{{[{self.k}]}}"

    def _one_minus_f(self, alpha):
        x = np.asarray(alpha, dtype=float)
        for _ in range(self.k):
            x = np.minimum(1.0, self.base._one_minus_f(x))
        return x

    def _f(self, alpha):
        return 1.0 - self._one_minus_f(alpha)


@dataclass(frozen=True, slots=True, eq=False)
class Bracketed(TradeOff):
    r"""A numeric trade-off function known up to a two-sided bracket.

    ``lower`` is a rigorous lower bound on the true curve (the sound side, used by
    every question: ``f(alpha)``, ``delta``, ``epsilon``), ``upper`` an upper bound;
    :meth:`gap` measures their distance.
    """

    lower: TradeOff
    upper: TradeOff
    name: str = "f"

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.lower.is_symmetric and self.upper.is_symmetric

    @property
    def label(self):
        return self.name

    def __repr__(self):
        return f"Bracketed(name={self.name!r}, lower={self.lower!r}, upper={self.upper!r})"

    def _f(self, alpha):
        return self.lower._f(alpha)

    def _one_minus_f(self, alpha):
        return self.lower._one_minus_f(alpha)

    def _hockey(self, eps):
        return self.lower._hockey(eps)

    def _loss_sf(self, t):
        return self.lower._loss_sf(t)

    def _loss_sf_q(self, t):
        return self.lower._loss_sf_q(t)

    def _atoms(self):
        return self.lower._atoms()

    def _segments(self):
        return self.lower._segments()

    def _inverse(self):
        return Bracketed(lower=self.lower.inverse(), upper=self.upper.inverse(),
                         name=_inv_label(self.name))

    def gap(self, alpha: Any) -> Any:
        """``upper(alpha) - lower(alpha)``: how far the sound answer may be from the truth."""
        return np.asarray(self.upper(alpha)) - np.asarray(self.lower(alpha))

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on δ(ε); the default :meth:`delta` is the upper one."""
        return self.upper.delta(eps), self.lower.delta(eps)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on ε(δ); the default :meth:`epsilon` is the upper one."""
        return self.upper.epsilon(delta), self.lower.epsilon(delta)
