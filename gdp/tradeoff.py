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
    maximises the concave function by golden-section search (in :math:`\alpha`, then in
    :math:`\log\alpha` for tiny maximisers) and returns an *upper* bound certified by
    secants of the concave function (sound side; absolute accuracy ~1e-15). An override
    must never return less than the truth by more than rounding.
``_loss_sf(t)`` / ``_loss_sf_q(t)``
    The law of the privacy loss :math:`L = \log dQ/dP`: :math:`P[L > t]` and
    :math:`Q[L > t]` (the latter includes the atom :math:`Q[L = +\infty] = 1 - f(0)`).
    Neyman–Pearson: :math:`P[L>t]` is the type I error of the test "reject when
    :math:`L > t`", i.e. the point where the slope of :math:`f` crosses :math:`-e^t`,
    and :math:`Q[L \le t] = f(P[L>t])`. The numeric composition engine discretises these.
    Both are right-continuous in ``t`` with strict ">" at atoms (:class:`Inverse` relies
    on this: :math:`Q[L \ge s]` is ``_loss_sf_q`` at the float just below ``s``). The
    generic default is an approximation (golden section), exact only up to the search
    tolerance and not at atoms.
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
:math:`f^S` (equal to ``_hockey`` for symmetric :math:`f`; for asymmetric :math:`f` the
convex-hull construction of :func:`_sym_profile_fn`, an upper bound). ``hockey_stick(eps)``
is the one-order profile of :math:`f` itself. ``is_symmetric`` must only be True when
:math:`f = f^{-1}` (it makes ``delta`` use ``_hockey`` and ``inverse()`` return ``self``).
``_epsilon(delta)`` may be overridden by a closed form; the default inverts the profile
(:func:`_generic_epsilon`) and returns the upper end of the final bracket. The public
methods turn a NaN from any hook into the safe side (curve 0, δ = 1, ε = ∞).

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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
_DOM_ATOL = 1e-15  # absolute float-noise slack of `dominates`


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
    0.740489
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
            out = np.asarray(self._f(flat), dtype=float).reshape(-1)
        # fail safe: a NaN from a hook becomes the lowest possible curve value
        out = np.clip(np.where(np.isnan(out), 0.0, out), 0.0, 1.0 - flat)
        out[flat == 1.0] = 0.0
        return _scalar_or_array(out, a)

    def one_minus(self, alpha: Any) -> Any:
        """:math:`1 - f(\\alpha)` computed without cancellation (power of the best test)."""
        a = as_probability_array("alpha", alpha)
        flat = a.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._one_minus_f(flat), dtype=float).reshape(-1)
        out = np.clip(np.where(np.isnan(out), 1.0, out), flat, 1.0)
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
            out = np.asarray(self._hockey(flat), dtype=float).reshape(-1)
        out = np.clip(np.where(np.isnan(out), 1.0, out), 0.0, 1.0)  # NaN -> the safe side
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
                out = np.asarray(self._hockey(flat), dtype=float).reshape(-1)
            else:
                out = _symmetrized_profile(self, flat)
        out = np.clip(np.where(np.isnan(out), 1.0, out), 0.0, 1.0)  # NaN -> the safe side
        return _scalar_or_array(out, e)

    def epsilon(self, delta: Any) -> Any:
        r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le \delta`
        (vectorised); ``inf`` when no finite ε achieves ``delta``.

        Computed by bisection on :meth:`delta`, returning the upper end of the final
        bracket, so the answer never under-states ε.
        """
        d = as_probability_array("delta", delta)
        flat = d.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._epsilon(flat), dtype=float).reshape(-1)
        out = np.where(np.isnan(out), np.inf, np.maximum(out, 0.0))  # NaN -> the safe side
        return _scalar_or_array(out, d)

    def _epsilon(self, delta: np.ndarray) -> np.ndarray:
        if self.is_symmetric:
            def profile(e):
                with np.errstate(all="ignore"):
                    return np.clip(np.asarray(self._hockey(np.asarray(e, dtype=float)),
                                              dtype=float), 0.0, 1.0)

            return _generic_epsilon(profile, delta)
        # asymmetric: build the symmetrised profile's hull once, then bisect on it
        return _generic_epsilon(_sym_profile_fn(self), delta)

    def dominates(self, other: TradeOff, *, rtol: float = 1e-12) -> bool:
        r"""True when ``other`` :math:`\le` ``self`` pointwise on [0, 1] (``self`` is at
        least as private).

        Exact for closed-form pairs with a rule (``G_mu`` vs ``G_mu``, ``laplace`` vs
        ``laplace``, anything vs ``identity()``) and whenever one side is piecewise linear
        (``f_eps_delta``, ``from_curve``, ``from_privacy_profile``, discrete
        ``from_distributions``): against the lines :math:`1-\delta_j-e^{t_j}\alpha` of a
        piecewise-linear ``other`` it checks :math:`\delta_{self}(t_j) \le \delta_j`
        (one-order profiles); a piecewise-linear ``self`` is checked at its own vertices
        (a convex ``other`` lies below its chords). Otherwise it compares the curves on a
        dense grid of α (tails included), which is numeric, not a proof.

        A ``True`` answer is meant as a certificate: a :class:`Bracketed` ``self`` is
        represented by its lower curve and a :class:`Bracketed` ``other`` by its upper
        curve. ``rtol`` (plus an absolute 1e-15) absorbs floating-point noise only.
        """
        if not isinstance(other, TradeOff):
            raise TypeError(f"`other` must be a TradeOff; got other={other!r}")
        rtol = check_real("rtol", rtol, lo=0.0)
        if isinstance(other, Bracketed):
            other = other.upper
        me: TradeOff = self.lower if isinstance(self, Bracketed) else self
        rule = me._dominates_exact(other)
        if rule is not None:
            return bool(rule)
        seg = other._segments()
        if seg is not None:
            t, dj = seg
            t = np.asarray(t, dtype=float)
            with np.errstate(all="ignore"):
                mine = np.asarray(me._hockey(t), dtype=float)
            mine = np.clip(np.where(np.isnan(mine), 1.0, mine), 0.0, 1.0)
            return bool(np.all(mine <= np.asarray(dj) * (1.0 + rtol) + _DOM_ATOL))
        verts = _vertices_of(me)
        if verts is not None:
            return bool(np.all(other(verts) <= me(verts) * (1.0 + rtol) + _DOM_ATOL))
        grid = _dense_alpha_grid()
        return bool(np.all(other(grid) <= me(grid) * (1.0 + rtol) + _DOM_ATOL))

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


def _vertices_of(f: TradeOff) -> np.ndarray | None:
    """The α-coordinates of the vertices of a piecewise-linear ``f`` (``None`` otherwise)."""
    if isinstance(f, Bracketed):
        return _vertices_of(f.lower)
    if isinstance(f, PiecewiseLinear):
        return np.asarray(f.alpha)
    seg = f._segments()
    if seg is None:
        return None
    t, d = (np.asarray(v, dtype=float).reshape(-1) for v in seg)
    with np.errstate(over="ignore"):
        slope = np.exp(t)
    a, _ = _upper_envelope(slope, 1.0 - d)
    return a


def _golden_loop(h: Callable[[np.ndarray], np.ndarray], a: np.ndarray, b: np.ndarray,
                 iters: int) -> tuple[np.ndarray, ...]:
    """Golden-section search for the maxima of unimodal functions ``h`` (one per row) on
    ``[a, b]``. Returns the final points ``a <= c <= d <= b`` and the values there."""
    a = np.array(a, dtype=float)
    b = np.array(b, dtype=float)
    c = b - _GOLD * (b - a)
    d = a + _GOLD * (b - a)
    ha, hb, hc, hd = h(a), h(b), h(c), h(d)
    for _ in range(iters):
        left = hc >= hd  # a maximiser lies in [a, d]
        b, hb = np.where(left, d, b), np.where(left, hd, hb)
        a, ha = np.where(left, a, c), np.where(left, ha, hc)
        new_c = np.where(left, b - _GOLD * (b - a), d)
        new_d = np.where(left, c, a + _GOLD * (b - a))
        h_new = h(np.where(left, new_c, new_d))
        hc, hd = np.where(left, h_new, hd), np.where(left, hc, h_new)
        c, d = new_c, new_d
    return a, c, d, b, ha, hc, hd, hb


def _concave_upper(x: np.ndarray, v: np.ndarray, slope: np.ndarray | None) -> np.ndarray:
    r"""Upper bound on :math:`\max_{[0,1]} g` for concave functions ``g`` (one per column)
    known at points ``x[0] = 0 <= x[1] <= ... <= x[-1] = 1`` (values ``v``, same shape).

    On :math:`[x_i, x_{i+1}]` a concave ``g`` lies below the secant through
    :math:`x_{i-1}, x_i` extended to the right and below the secant through
    :math:`x_{i+1}, x_{i+2}` extended to the left; the maximum of the smaller of the two
    is at an end of the interval or where they cross. When ``g(x) = u(x) - s x`` with
    ``u`` non-decreasing (``slope=s``), also :math:`g \le g(x_{i+1}) + s (x_{i+1} - x_i)`
    there. The bound is certified up to the rounding of the values ``v`` (amplified by at
    most the ratio of neighbouring spacings).
    """
    x = np.asarray(x, dtype=float)
    v = np.where(np.isnan(v), np.inf, np.asarray(v, dtype=float))
    # drop repeated points (clipping piles probes up at 0 and 1): move them to the end
    # as x = inf, v = nan, so that every secant uses distinct neighbours
    dup = np.zeros(x.shape, dtype=bool)
    dup[1:] = x[1:] == x[:-1]
    key = np.where(dup, np.inf, x)
    order = np.argsort(key, axis=0, kind="stable")
    x = np.take_along_axis(key, order, axis=0)
    v = np.where(np.isinf(x), np.nan, np.take_along_axis(v, order, axis=0))
    k = int(np.max(np.sum(np.isfinite(x), axis=0)))
    nan = np.full(x.shape[1:], np.nan)

    def secant(i0: int, i1: int) -> tuple[np.ndarray, np.ndarray]:
        """Slope and value-at-x[i1] of the secant through points i0 < i1 (inf if undefined)."""
        if i0 < 0 or i1 >= k:
            return nan, nan
        with np.errstate(all="ignore"):
            dx = x[i1] - x[i0]
            m = (v[i1] - v[i0]) / dx
        ok = (dx > 0) & np.isfinite(m)
        return np.where(ok, m, np.nan), np.where(ok, v[i1], np.nan)

    bound = np.nanmax(v, axis=0)
    for i in range(k - 1):
        x0, x1, v0, v1 = x[i], x[i + 1], v[i], v[i + 1]
        ml, _ = secant(i - 1, i)  # left secant, through (x_i, v_i)
        mr, _ = secant(i + 1, i + 2)  # right secant, through (x_{i+1}, v_{i+1})
        with np.errstate(all="ignore"):
            l_at1 = v0 + ml * (x1 - x0)  # left secant at x_{i+1}
            r_at0 = v1 - mr * (x1 - x0)  # right secant at x_i
            xi = (v1 - v0 - mr * x1 + ml * x0) / (ml - mr)
            at_x = v0 + ml * (xi - x0)
        has_l = ~np.isnan(ml)
        has_r = ~np.isnan(mr)
        inside = has_l & has_r & (xi > x0) & (xi < x1) & np.isfinite(at_x)
        # the bounding function min(L, R) at both ends (L passes through (x_i, v_i), R
        # through (x_{i+1}, v_{i+1})); with one secant only, that secant's end values
        cand0 = np.where(has_l & has_r, np.minimum(v0, r_at0), np.where(has_r, r_at0, v0))
        cand1 = np.where(has_l & has_r, np.minimum(v1, l_at1), np.where(has_l, l_at1, v1))
        conc = np.maximum(cand0, cand1)
        conc = np.where(inside, np.maximum(conc, at_x), conc)
        conc = np.where(has_l | has_r, conc, np.inf)
        conc = np.where(x1 > x0, conc, np.maximum(v0, v1))
        if slope is not None:
            with np.errstate(invalid="ignore"):
                conc = np.minimum(conc, v1 + slope * (x1 - x0))
        conc = np.where(np.isnan(conc), np.inf, conc)
        bound = np.maximum(bound, np.where(np.isfinite(x1), conc, -np.inf))
    return bound


_PROBE_RATIOS = np.concatenate([np.outer(10.0 ** np.arange(10), [1.0, 2.0, 5.0]).ravel(),
                                10.0 ** np.arange(10, 41)])


def _golden_max(g: Callable[[np.ndarray, np.ndarray], np.ndarray], n: int,
                iters: int = 90, *, slope: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Maximise ``n`` concave functions ``g(x, rows)`` (vectorised over rows) on [0, 1].

    Golden-section search in ``x``; rows whose bracket collapses onto 0 (a maximiser below
    ~1e-15) are searched again in ``log x`` down to 1e-300, so tiny maximisers are found
    to relative precision. Returns ``(x, upper)``: the maximiser found and a certified
    upper bound on the maximum (up to float rounding of ``g``): ``g`` is evaluated at
    points at geometrically growing distances (1e-8 x, 1e-7 x, ...) on both sides of
    ``x`` and at 0 and 1, and :func:`_concave_upper` bounds it from its secants (``slope``
    as there).
    """
    rows = np.arange(n)
    g0 = np.asarray(g(np.zeros(n), rows), dtype=float)
    g1 = np.asarray(g(np.ones(n), rows), dtype=float)
    a, c, d, b, ga, gc, gd, gb = _golden_loop(lambda x: g(x, rows), np.zeros(n), np.ones(n),
                                              iters)
    # brackets that are wide relative to their position (a maximiser below ~1e-10):
    # search again in log x, where golden section keeps relative precision
    tiny = (b < 1e-6) & (b - a > 1e-9 * b)
    if tiny.any():
        sub = rows[tiny]

        def h(z):
            return g(np.exp(z), sub)

        za, zc, zd, zb, ha, hc, hd, hb = _golden_loop(
            h, np.log(np.maximum(a[tiny], 1e-300)), np.log(b[tiny]), 64)
        a, c, d, b = (v.copy() for v in (a, c, d, b))
        ga, gc, gd, gb = (v.copy() for v in (ga, gc, gd, gb))
        a[tiny], c[tiny], d[tiny], b[tiny] = np.exp(za), np.exp(zc), np.exp(zd), np.exp(zb)
        ga[tiny], gc[tiny], gd[tiny], gb[tiny] = ha, hc, hd, hb
    pts = np.stack([np.zeros(n), a, c, d, b, np.ones(n)])
    vals = np.stack([g0, ga, gc, gd, gb, g1])
    vals = np.where(np.isnan(vals), -np.inf, vals)
    x = pts[np.argmax(vals, axis=0), rows]
    # probe points: x -+ h r_j, clipped to [0, 1]; h ~ 1e-8 of the room, r_j = 1, 2, 5,
    # 10, ... (three per decade for ten decades, then one per decade)
    room = np.minimum(x, 1.0 - x)
    h = np.where(room > 0, 1e-8 * room, np.where(x >= 1.0, 1e-15, 1e-30))
    h = np.maximum(h, 4.0 * np.spacing(x) + 1e-300)  # probes must differ from x
    ratios = _PROBE_RATIOS[_PROBE_RATIOS <= 10.0 / float(np.min(h))]
    dist = h[None, :] * ratios[:, None]
    xs = np.concatenate([[np.zeros(n)], np.clip(x - dist[::-1], 0.0, 1.0), [x],
                         np.clip(x + dist, 0.0, 1.0), [np.ones(n)]])
    vs = np.stack([np.asarray(g(xi, rows), dtype=float) for xi in xs])
    upper = _concave_upper(xs, vs, slope)
    return x, upper


def _numeric_hockey(f: TradeOff, eps: np.ndarray) -> np.ndarray:
    r"""Certified upper bound on :math:`\sup_x [1 - e^{\varepsilon} x - f(x)]`.

    Golden-section search on the concave function, bounded by :func:`_concave_upper`.
    For :math:`\varepsilon > 700` the slope :math:`e^{700}` is used (a larger value,
    hence still an upper bound).
    """
    eps = np.asarray(eps, dtype=float).reshape(-1)
    out = np.empty_like(eps)
    inf = np.isposinf(eps)
    if inf.any():
        out[inf] = float(np.asarray(f._one_minus_f(np.zeros(1)), dtype=float)[0])
    fin = ~inf
    if fin.any():
        s = np.exp(np.minimum(eps[fin], 700.0))

        def g(x, rows):
            return np.asarray(f._one_minus_f(x), dtype=float) - s[rows] * x

        _, upper = _golden_max(g, int(fin.sum()), slope=s)
        out[fin] = upper
    return np.clip(np.where(np.isnan(out), 1.0, out), 0.0, 1.0)


def _numeric_hockey_inverse(f: TradeOff, eps: np.ndarray) -> np.ndarray:
    r"""Certified upper bound on the profile of :math:`f^{-1}`, from ``f`` alone.

    The graph of :math:`f^{-1}` is the mirror image of the graph of :math:`f`, so
    :math:`\delta_{f^{-1}}(\varepsilon) = \sup_t [1 - t - e^{\varepsilon} f(t)]`, again a
    concave maximisation (no inversion, no cancellation for large ε).
    """
    eps = np.asarray(eps, dtype=float).reshape(-1)
    out = np.empty_like(eps)
    inf = np.isposinf(eps)
    if inf.any():
        # P[L = -inf] = 1 - inf{t : f(t) = 0}; the lower end of the bracket is safe
        out[inf] = 1.0 - _zero_of(f)[0]
    fin = ~inf
    if fin.any():
        s = np.exp(np.minimum(eps[fin], 700.0))

        def g(t, rows):
            return (1.0 - t) - s[rows] * np.asarray(f._f(t), dtype=float)

        _, upper = _golden_max(g, int(fin.sum()), slope=np.ones(int(fin.sum())))
        out[fin] = upper
    return np.clip(np.where(np.isnan(out), 1.0, out), 0.0, 1.0)


def _zero_of(f: TradeOff) -> tuple[float, float]:
    """Bracket ``(lo, hi)`` of :math:`\\inf\\{t : f(t) \\le 0\\}`."""
    if float(np.asarray(f._f(np.zeros(1)), dtype=float)[0]) <= 0.0:
        return 0.0, 0.0
    lo, hi = bisect_bracket(lambda t: np.asarray(f._f(t), dtype=float) <= 0.0,
                            np.zeros(1), np.ones(1), rtol=0.0, xtol=1e-17)
    return float(lo[0]), float(hi[0])


def _numeric_loss_sf(f: TradeOff, t: np.ndarray) -> np.ndarray:
    r""":math:`P[L > t]`: the α where the slope of ``f`` crosses :math:`-e^t` (the maximiser
    of :math:`1 - f(\alpha) - e^t\alpha`), by golden section on :math:`[0, a_0]`, where
    :math:`a_0` is the zero of ``f`` (so a flat zero tail cannot mislead the search).
    An approximation (exact up to the search tolerance at continuity points of the law).
    """
    t = np.asarray(t, dtype=float).reshape(-1)
    out = np.empty_like(t)
    big = t >= 700.0  # P[L > t] <= e^{-t} Q[L > t]
    out[big] = 0.0
    a0 = _zero_of(f)[1]
    small = t <= -740.0  # e^t underflows: every finite loss is above t
    out[small] = a0
    mid = ~(big | small)
    if mid.any():
        s = np.exp(t[mid])

        def g(x, rows):
            return np.asarray(f._one_minus_f(a0 * x), dtype=float) - s[rows] * (a0 * x)

        x, _ = _golden_max(g, int(mid.sum()))
        out[mid] = a0 * x
    return np.clip(out, 0.0, 1.0)


def _lower_hull_eval(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Evaluate the lower convex envelope of points (x, y) (x sorted ascending) at ``at``."""
    hx, hy = _lower_convex_hull(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    return np.interp(at, hx, hy)


# eps grid on which the symmetrised profile's convex hull is sampled: dense near 0 (in
# y = -e^eps the interesting part), out to eps = 700 (e^eps still finite) and down to -60.
_SYM_POS = np.geomspace(1e-7, 700.0, 1600)
_SYM_GRID = np.unique(np.concatenate([-_SYM_POS[_SYM_POS <= 60.0], [0.0], _SYM_POS]))


def _min_profiles(f: TradeOff, eps: np.ndarray, inv: TradeOff | None = None) -> np.ndarray:
    r""":math:`\min\{\delta_f, \delta_{f^{-1}}\}` at ``eps`` (each an upper bound);
    ``inv`` is ``f.inverse()`` when the caller has it already."""
    inv = f.inverse() if inv is None else inv
    with np.errstate(all="ignore"):
        d_f = np.asarray(f._hockey(eps), dtype=float)
        d_i = np.asarray(inv._hockey(eps), dtype=float)
    d_f = np.clip(np.where(np.isnan(d_f), 1.0, d_f), 0.0, 1.0)
    d_i = np.clip(np.where(np.isnan(d_i), 1.0, d_i), 0.0, 1.0)
    return np.minimum(d_f, d_i)


def _sym_profile_fn(f: TradeOff) -> Callable[[np.ndarray], np.ndarray]:
    r"""The profile :math:`\delta_{f^S}` of :math:`f^S = \max\{f, f^{-1}\}` as a function.

    :math:`(f^S)^* = \overline{\mathrm{co}}\,\min\{f^*, (f^{-1})^*\}` (the conjugate of a
    max is the closed convex hull of the min of the conjugates), so in
    :math:`y = -e^{\varepsilon}` the profile is the lower convex envelope of
    :math:`m = \min\{\delta_f, \delta_{f^{-1}}\}` on :math:`y \le 0` (at :math:`y = 0`,
    i.e. :math:`\varepsilon = -\infty`, both equal 1; for :math:`y > 0` both conjugates are
    :math:`y`, which adds nothing). The hull is built once from samples of ``m`` on a fixed
    grid (plus the losses of the atoms, where the profiles of an atomic law have their
    kinks); the hull of upper samples lies above the true envelope, and so does
    :math:`m(\varepsilon)` itself at a query point, so the smaller of the two is returned:
    an upper bound (sound), exact wherever the envelope touches ``m``. Beyond the grid
    (ε > 700) the value at ε = 700 is used (δ is non-increasing).
    """
    inv = f.inverse()
    grid = _SYM_GRID
    atoms = f._atoms()
    if atoms is not None:
        # the kinks of both profiles sit at the atoms' losses (+-): sampling them makes
        # the hull exact for atomic laws
        t = np.asarray(atoms[0], dtype=float)
        t = t[np.isfinite(t) & (np.abs(t) <= 700.0)]
        grid = np.unique(np.concatenate([grid, t, -t]))
    m = _min_profiles(f, grid, inv)

    def hull(grid, m):
        ys = np.concatenate([-np.exp(grid[::-1]), [0.0]])
        ms = np.concatenate([m[::-1], [1.0]])
        return _lower_convex_hull(ys, ms)

    hx, hy = hull(grid, m)
    # refine twice around hull vertices that start or end a segment skipping samples
    # (a bitangent: a corner of f^S), where the sampled hull errs by O(spacing^2)
    for _ in range(2):
        j = grid.size - 1 - np.searchsorted(-np.exp(grid[::-1]), hx[:-1])  # grid index
        gapped = np.abs(np.diff(j)) > 1
        ends = np.unique(np.concatenate([j[:-1][gapped], j[1:][gapped]]))
        ends = ends[(ends > 0) & (ends < grid.size - 1)][:200]
        if ends.size == 0:
            break
        new = np.concatenate([np.linspace(grid[k - 1], grid[k + 1], 34)[1:-1] for k in ends])
        grid, order = np.unique(np.concatenate([grid, new]), return_index=True)
        m = np.concatenate([m, _min_profiles(f, new, inv)])[order]
        hx, hy = hull(grid, m)
    jump_f = float(np.asarray(f._one_minus_f(np.zeros(1)), dtype=float)[0])
    jump_i = float(np.asarray(inv._one_minus_f(np.zeros(1)), dtype=float)[0])
    at_inf = min(max(jump_f, 0.0), max(jump_i, 0.0))

    def profile(eps: np.ndarray) -> np.ndarray:
        eps = np.asarray(eps, dtype=float).reshape(-1)
        out = np.empty_like(eps)
        fin = np.isfinite(eps)
        if fin.any():
            e = eps[fin]
            hull = np.interp(-np.exp(np.minimum(e, 700.0)), hx, hy)
            out[fin] = np.minimum(hull, _min_profiles(f, e, inv))
        out[~fin] = at_inf  # eps = +inf: Q[L = inf] of f^S, the smaller jump at 0
        return np.clip(out, 0.0, 1.0)

    return profile


def _symmetrized_profile(f: TradeOff, eps: np.ndarray) -> np.ndarray:
    r"""Profile of :math:`f^S=\max\{f,f^{-1}\}` at ``eps`` (any real, or ``inf``): an upper
    bound, see :func:`_sym_profile_fn`. :math:`\delta_{f^{-1}}` comes from
    ``f.inverse()._hockey`` (exact for piecewise-linear curves; for a generic
    :class:`Inverse` a certified bound, see :func:`_numeric_hockey_inverse`).
    """
    return _sym_profile_fn(f)(np.asarray(eps, dtype=float))


_EPS_GRID = np.concatenate([[0.0], np.geomspace(1e-7, 700.0, 1200)])


def _generic_epsilon(delta_fn: Callable[[Any], Any], delta: np.ndarray) -> np.ndarray:
    """Smallest eps >= 0 with delta_fn(eps) <= delta, vectorised.

    ``delta_fn`` is an upper bound on a non-increasing profile. It is sampled once on a
    fixed grid of ε (0 and 1e-7 ... 700, 1.4 % apart), then each bracket
    ``(last grid point above, first grid point at or below the target)`` is refined in
    rounds of 16 equally spaced candidates (one batched call of ``delta_fn`` per round)
    until it is narrower than 1e-13 relative. The answer is the upper end, where
    ``delta_fn(eps) <= delta`` was verified, so it never under-states ε; ``inf`` when no
    finite ε achieves ``delta``.
    """
    delta = np.asarray(delta, dtype=float).reshape(-1)
    out = np.zeros_like(delta)
    if delta.size == 0:
        return out

    def call(e):
        v = np.asarray(delta_fn(np.asarray(e, dtype=float)), dtype=float).reshape(-1)
        return np.where(np.isnan(v), np.inf, v)

    grid_d = call(_EPS_GRID)
    need = delta < grid_d[0]
    if not need.any():
        return out
    d_inf = float(call(np.array([np.inf]))[0])
    impossible = need & (delta < d_inf)
    out[impossible] = np.inf
    todo = np.flatnonzero(need & ~impossible)
    if todo.size == 0:
        return out
    target = delta[todo]
    ok = grid_d[None, :] <= target[:, None]
    found = ok.any(axis=1)
    first = np.argmax(ok, axis=1)
    hi = np.where(found, _EPS_GRID[first], np.inf)
    lo = np.where(found, _EPS_GRID[np.maximum(first - 1, 0)], _EPS_GRID[-1])
    # beyond the grid (eps > 700): double up to eps = 2^12, then give up (inf, safe)
    far = ~found
    if far.any():
        h = np.full(int(far.sum()), 1400.0)
        for _ in range(3):
            bad = call(h) > target[far]
            h = np.where(bad, 2.0 * h, h)
        good = call(h) <= target[far]
        hi[far] = np.where(good, h, np.inf)
        lo[far] = np.where(good, h / 2.0, np.inf)
    steps = np.linspace(0.0, 1.0, 17)[1:]
    for _ in range(12):
        act = np.isfinite(hi) & (hi - lo > 1e-13 * hi + 1e-300)
        if not act.any():
            break
        cand = lo[act, None] + (hi[act] - lo[act])[:, None] * steps[None, :]
        cand[:, -1] = hi[act]
        good = call(cand.ravel()).reshape(cand.shape) <= target[act, None]
        any_good = good.any(axis=1)  # the last candidate is hi, verified before
        k = np.argmax(good, axis=1)
        rows = np.arange(cand.shape[0])
        new_hi = np.where(any_good, cand[rows, k], hi[act])
        new_lo = np.where(any_good & (k > 0), cand[rows, np.maximum(k - 1, 0)], lo[act])
        new_lo = np.where(any_good, new_lo, hi[act])  # no progress possible: stop
        hi[act], lo[act] = new_hi, new_lo
    out[todo] = hi
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

    ``one_minus_beta`` optionally carries :math:`1-\beta_j` computed without cancellation
    (e.g. as Q-tail sums of atoms), so that tiny privacy-profile values :math:`\delta(\varepsilon)`
    (far below ``1e-16``) survive; by default it is ``1 - beta``.
    """

    alpha: np.ndarray
    beta: np.ndarray
    name: str = "f"
    symmetric: bool = field(default=False, repr=False)
    one_minus_beta: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        a = np.array(self.alpha, dtype=float)
        b = np.array(self.beta, dtype=float)
        omb = 1.0 - b if self.one_minus_beta is None else np.array(self.one_minus_beta,
                                                                    dtype=float)
        for arr in (a, b, omb):
            arr.setflags(write=False)
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "beta", b)
        object.__setattr__(self, "one_minus_beta", omb)

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
        return np.interp(alpha, self.alpha, self.one_minus_beta)

    def _atoms(self):
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

    def _segments(self):
        da = np.diff(self.alpha)
        db = np.diff(self.one_minus_beta)
        ok = (da > 0) & (db > 0)
        t = np.log(db[ok]) - np.log(da[ok])
        # line through (alpha_j, beta_j) with slope -e^t: 1 - delta - e^t alpha
        d = self.one_minus_beta[:-1][ok] - np.exp(t) * self.alpha[:-1][ok]
        return t, np.clip(d, 0.0, 1.0)

    def _hockey(self, eps):
        # the concave function 1 - e^eps x - f(x) peaks at the vertex where the slope of f
        # crosses -e^eps: after the segments whose loss log(dbeta/dalpha) exceeds eps
        eps = np.asarray(eps, dtype=float).reshape(-1)
        a, omb = self.alpha, self.one_minus_beta
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.log(np.diff(omb)) - np.log(np.diff(a))
        loss = np.where(np.isnan(loss), -np.inf, loss)
        # convexity makes `loss` non-increasing; enforce it against rounding
        loss = np.minimum.accumulate(loss)
        k = np.searchsorted(-loss, -eps, side="left")  # number of segments with loss > eps
        best = np.full(eps.shape, -np.inf)
        with np.errstate(over="ignore", invalid="ignore"):
            s = np.exp(eps)
            for off in (-1, 0, 1):
                j = np.clip(k + off, 0, a.size - 1)
                v = omb[j] - np.where(a[j] > 0, s * a[j], 0.0)
                best = np.maximum(best, np.where(np.isnan(v), -np.inf, v))
        return np.where(np.isposinf(eps), omb[0], best)

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
    """Label of the inverse: ``h`` -> ``{h}^{-1}`` -> ``h``."""
    if name.startswith("{") and name.endswith("}^{-1}"):
        return name[1: -len("}^{-1}")]
    if name.endswith("^{-1}"):
        return name[: -len("^{-1}")]
    return "{" + name + "}^{-1}"


def _make_piecewise(alpha, beta, *, name: str, symmetric: bool = False,
                    one_minus_beta: Any = None) -> PiecewiseLinear:
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
    keep = _lower_convex_hull_index(a, b if one_minus_beta is None else -omb)
    return PiecewiseLinear(alpha=a[keep], beta=b[keep], name=name, symmetric=symmetric,
                           one_minus_beta=omb[keep])


def _lower_convex_hull_index(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Indices of the vertices of the largest convex minorant of the points (a, b), a sorted."""
    idx: list[int] = []
    xs = a.tolist()
    ys = b.tolist()
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        # drop the last vertex while it lies on or above the chord to the new point
        while len(idx) >= 2:
            i1, i2 = idx[-2], idx[-1]
            if (ys[i2] - ys[i1]) * (x - xs[i1]) >= (y - ys[i1]) * (xs[i2] - xs[i1]):
                idx.pop()
            else:
                break
        idx.append(i)
    return np.asarray(idx, dtype=int)


def _lower_convex_hull(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the largest convex minorant of the points (a, b), a sorted."""
    keep = _lower_convex_hull_index(a, b)
    return a[keep], b[keep]


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
    a = as_probability_array("alpha", alpha).reshape(-1)
    b = as_probability_array("beta", beta).reshape(-1)
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


def from_distributions(P: Any, Q: Any, *, n_grid: int = 20001,
                       name: str = "T(P,Q)") -> TradeOff:
    r"""The trade-off function :math:`T(P, Q)` of two distributions.

    * Two discrete pmfs (array_like of equal length, non-negative, each summing to 1):
      exact, by Neyman–Pearson (reject outcomes in decreasing order of the likelihood
      ratio :math:`q_i/p_i`; outcomes with :math:`p_i = 0 < q_i` first, giving
      :math:`f(0) = 1 - Q[p = 0]`).
    * Two frozen 1-D ``scipy.stats`` continuous distributions: numeric. The line is cut
      at ``n_grid`` quantiles of each distribution plus log-spaced tail quantiles down to
      probability 1e-300; the cell masses are exact CDF (or survival-function)
      differences. Returns a :class:`Bracketed` curve whose ``upper`` is the coarsened
      pair (a post-processing of (P, Q), hence above the truth) and whose ``lower`` splits
      each cell into two atoms at the extreme likelihood ratios of the cell (a pair of
      which (P, Q) is a post-processing, hence below the truth). The extreme ratios are
      taken at the cell's ends and midpoint, which is rigorous when the log-likelihood
      ratio is monotone on each cell (location families with monotone likelihood ratio:
      normal, Laplace, logistic, ...); the two unbounded end cells are split at ratio 0
      and :math:`\infty`. Calling it gives the lower curve.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_distributions([0.5, 0.5], [0.25, 0.75])
    >>> f(0.5)
    0.25
    >>> from scipy import stats
    >>> h = gdp.from_distributions(stats.norm(0, 1), stats.norm(1, 1))
    >>> float(h.gap(0.05)) < 1e-6
    True
    """
    cont = [all(hasattr(D, m) for m in ("cdf", "sf", "ppf", "isf", "logpdf")) for D in (P, Q)]
    if any(hasattr(D, "pmf") for D in (P, Q)):
        raise TypeError("`P` and `Q` must be two arrays of probabilities (pmfs) or two frozen "
                        "scipy.stats continuous distributions; for a scipy discrete "
                        "distribution pass its pmf on the common support as an array")
    if all(cont):
        return _from_continuous(P, Q, n_grid=check_int("n_grid", n_grid, lo=10), name=name)
    if any(cont):
        raise TypeError("`P` and `Q` must be of the same kind: two pmfs (arrays) or two "
                        "frozen scipy.stats continuous distributions")
    p = as_real_array("P", P, lo=0.0).reshape(-1)
    q = as_real_array("Q", Q, lo=0.0).reshape(-1)
    if p.size != q.size or p.size == 0:
        raise ValueError(f"`P` and `Q` must be non-empty pmfs of the same length; got lengths "
                         f"{p.size} and {q.size}")
    for nm, v in (("P", p), ("Q", q)):
        if abs(v.sum() - 1.0) > 1e-9:
            raise ValueError(f"`{nm}` must sum to 1 (a probability mass function); got sum "
                             f"{float(v.sum())!r}")
    p = p / p.sum()
    q = q / q.sum()
    return _piecewise_from_atoms(p, q, name=name)


def _piecewise_from_atoms(p: np.ndarray, q: np.ndarray, *, name: str) -> PiecewiseLinear:
    """Neyman–Pearson curve of two pmfs: reject outcomes in decreasing order of q/p."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(p > 0, np.log(q) - np.log(p), np.inf)
    loss = np.where((p == 0) & (q == 0), -np.inf, loss)
    order = np.argsort(-loss, kind="stable")
    pa = np.concatenate([[0.0], np.cumsum(p[order])])
    qb = np.concatenate([[0.0], np.cumsum(q[order])])
    alpha = np.minimum(pa, 1.0)
    beta = np.maximum(1.0 - qb, 0.0)
    # the Q-tail sums qb are 1 - beta without cancellation (tiny deltas survive)
    return _make_piecewise(alpha, beta, name=name, symmetric=_is_sym_pairs(p, q),
                           one_minus_beta=np.minimum(qb, 1.0))


def _is_sym_pairs(p: np.ndarray, q: np.ndarray) -> bool:
    """True when (q, p) is a relabelling of (p, q), i.e. T(P,Q) = T(Q,P)."""
    keep = (p > 0) | (q > 0)
    a = sorted(zip(p[keep].tolist(), q[keep].tolist(), strict=True))
    b = sorted(zip(q[keep].tolist(), p[keep].tolist(), strict=True))
    return all(abs(x[0] - y[0]) <= 1e-15 and abs(x[1] - y[1]) <= 1e-15
               for x, y in zip(a, b, strict=True))


def _cell_masses(D: Any, edges: np.ndarray) -> np.ndarray:
    """Probabilities of the cells between ``edges``: CDF differences in the lower half, survival
    function differences in the upper half (no cancellation in either tail)."""
    with np.errstate(all="ignore"):
        c = np.asarray(D.cdf(edges), dtype=float)
        s = np.asarray(D.sf(edges), dtype=float)
    low = c[1:] - c[:-1]
    high = s[:-1] - s[1:]
    return np.clip(np.where(c[1:] > 0.5, high, low), 0.0, None)


def _from_continuous(P: Any, Q: Any, *, n_grid: int, name: str) -> Bracketed:
    u = np.linspace(0.0, 1.0, n_grid + 1)[1:-1]
    # tails: 30 cuts per decade down to probability 1e-20 (where small deltas live),
    # 2 per decade below
    tail = np.concatenate([np.geomspace(1e-300, 1e-20, 561),
                           np.geomspace(1e-20, 0.5 / n_grid, 30 * 16)])
    with np.errstate(all="ignore"):
        cuts = [D.ppf(u) for D in (P, Q)] + [D.ppf(tail) for D in (P, Q)] \
            + [D.isf(tail) for D in (P, Q)]
    xs = np.unique(np.concatenate([np.asarray(c, dtype=float) for c in cuts]))
    xs = xs[np.isfinite(xs)]
    edges = np.concatenate([[-np.inf], xs, [np.inf]])
    pc = _cell_masses(P, edges)
    qc = _cell_masses(Q, edges)
    upper = _piecewise_from_atoms(pc / pc.sum(), qc / qc.sum(), name=name)
    # extreme likelihood ratios of each cell, from its finite ends and midpoint
    lo_e, hi_e = edges[:-1], edges[1:]
    both = np.isfinite(lo_e) & np.isfinite(hi_e)
    mid = np.where(both, 0.5 * (np.where(both, lo_e, 0) + np.where(both, hi_e, 0)),
                   np.where(np.isfinite(lo_e), lo_e, hi_e))
    with np.errstate(all="ignore"):
        pts = np.stack([np.where(np.isfinite(lo_e), lo_e, mid), mid,
                        np.where(np.isfinite(hi_e), hi_e, mid)])
        llr = np.asarray(Q.logpdf(pts), dtype=float) - np.asarray(P.logpdf(pts), dtype=float)
        ratio = np.where(pc > 0, qc / np.where(pc > 0, pc, 1.0), np.inf)
    with np.errstate(divide="ignore"):
        llr = np.where(np.isnan(llr), np.log(np.where(np.isfinite(ratio), ratio, 1.0)), llr)
    with np.errstate(over="ignore"):
        r_lo = np.minimum(np.exp(llr.min(axis=0)), ratio)
        r_hi = np.maximum(np.exp(llr.max(axis=0)), ratio)
    # the two unbounded cells (mass <= 1e-300): the ratio's limits are unknown, so take
    # the extremes (all their P-mass at loss -inf, all their Q-mass at +inf)
    r_lo[[0, -1]] = 0.0
    r_hi[[0, -1]] = np.inf
    # split the cell: P-mass p_hi at ratio r_hi and pc - p_hi at r_lo, with the Q-masses
    # adding up to qc; (P, Q) on the cell is a post-processing of this two-atom pair
    inf_hi = np.isinf(r_hi)
    with np.errstate(all="ignore"):
        p_hi = np.where(r_hi > r_lo, (qc - pc * r_lo) / (r_hi - r_lo), pc)
    p_hi = np.clip(np.where(inf_hi | np.isnan(p_hi), 0.0, p_hi), 0.0, pc)
    with np.errstate(invalid="ignore"):
        q_hi = np.where(inf_hi, qc - pc * np.where(inf_hi, r_lo, 0.0), p_hi * r_hi)
    q_hi = np.clip(np.where(np.isnan(q_hi), qc, q_hi), 0.0, qc)
    p2 = np.concatenate([p_hi, pc - p_hi])
    q2 = np.concatenate([q_hi, qc - q_hi])
    lower = _piecewise_from_atoms(p2 / p2.sum(), q2 / q2.sum(), name=name)
    return Bracketed(lower=lower, upper=upper, name=name)


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
    e = as_real_array("eps", eps, lo=0.0).reshape(-1)
    d = as_probability_array("delta", delta).reshape(-1)
    if e.size == 0 or d.size == 0:
        raise ValueError("`eps` must hold at least one value; got an empty array")
    try:
        e, d = np.broadcast_arrays(e, d)
    except ValueError:
        raise ValueError(f"`eps` and `delta` must have the same length (or one of them "
                         f"length 1); got {e.size} and {d.size}") from None
    with np.errstate(over="ignore"):
        slopes = np.concatenate([np.exp(e), np.exp(-e)])
    icpt = np.concatenate([1.0 - d, np.exp(-e) * (1.0 - d)])
    a, b = _upper_envelope(slopes, icpt)
    return PiecewiseLinear(alpha=a, beta=b, name=name, symmetric=True)


def _upper_envelope(slopes: np.ndarray, icpt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Vertices on [0, 1] of :math:`\max(0, \max_j c_j - s_j\alpha)` (lines with
    :math:`s_j > 0`), exactly, by the convex-hull trick: sort the lines by slope, keep
    those on the upper envelope, and intersect neighbours. Lines with an infinite slope
    only touch α = 0 and are dropped (a lower, hence safe, curve).
    """
    s = np.asarray(slopes, dtype=float).reshape(-1)
    c = np.asarray(icpt, dtype=float).reshape(-1)
    keep = np.isfinite(s) & np.isfinite(c)
    m, c = -s[keep], c[keep]  # lines y = m x + c
    if m.size == 0:
        return np.array([0.0, 1.0]), np.array([0.0, 0.0])
    order = np.lexsort((c, m))  # by slope, then intercept
    m, c = m[order], c[order]
    last = np.concatenate([m[1:] != m[:-1], [True]])  # largest intercept per slope
    m, c = m[last], c[last]
    hm: list[float] = []
    hc: list[float] = []
    for mi, ci in zip(m.tolist(), c.tolist(), strict=True):
        while len(hm) >= 2:
            # drop the middle line when the new one overtakes the first before it does
            x12 = (hc[-2] - hc[-1]) / (hm[-1] - hm[-2])
            x13 = (hc[-2] - ci) / (mi - hm[-2])
            if x13 <= x12:
                hm.pop()
                hc.pop()
            else:
                break
        hm.append(mi)
        hc.append(ci)
    hm_a, hc_a = np.asarray(hm), np.asarray(hc)
    # breakpoints (increasing in x); line k is active on [x_{k-1}, x_k]
    bx = (hc_a[:-1] - hc_a[1:]) / (hm_a[1:] - hm_a[:-1])
    xs = np.unique(np.concatenate([[0.0, 1.0], bx[(bx > 0) & (bx < 1)]]))
    k = np.searchsorted(bx, xs, side="left")
    ys = hm_a[k] * xs + hc_a[k]
    # max with 0: insert the zero crossing of the (convex, non-increasing) envelope
    neg = np.flatnonzero(ys <= 0)
    if neg.size and neg[0] > 0 and ys[neg[0]] < 0:
        i = int(neg[0])
        x0 = xs[i - 1] + ys[i - 1] * (xs[i] - xs[i - 1]) / (ys[i - 1] - ys[i])
        xs = np.insert(xs, i, x0)
        ys = np.insert(ys, i, 0.0)
    ys = np.minimum(np.maximum(ys, 0.0), 1.0 - xs)
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
        alpha = np.asarray(alpha, dtype=float)
        out = np.asarray(self.fn(alpha), dtype=float)
        out = np.broadcast_to(out, alpha.shape)
        # the checked function may stray from [0, 1 - alpha] by float noise: lower is safe
        return np.clip(np.where(np.isnan(out), 0.0, out), 0.0, 1.0 - alpha)


def from_callable(fn: Callable[[Any], Any], *, name: str = "f", symmetric: bool = False,
                  n_check: int = 4001, tol: float = 1e-9) -> Callable1D:
    r"""Wrap a user's function as a :class:`TradeOff`, after checking it is one.

    The function must accept a numpy array of α and return an array of the same shape.
    It is evaluated on a grid of ``n_check`` points plus log-spaced tails and must be, in
    this order of checking: finite; within [0, 1]; :math:`f(1) = 0`; at most
    :math:`1-\alpha`; non-increasing; convex (slopes non-decreasing). ``tol`` is the
    absolute slack of the value checks and the relative slack of the slope check (on top
    of float rounding). The ``ValueError`` names the violated property and the first α
    where it fails. ``symmetric=True`` declares :math:`f = f^{-1}` (checked on a grid),
    which makes :meth:`TradeOff.delta` use the one-order profile.

    Notes
    -----
    A grid check cannot prove convexity or continuity at 0 (a jump :math:`f(0) >
    f(0^+)` is convex); the wrapped curve is clipped to :math:`[0, 1-\alpha]` (a lower,
    safe curve) and numeric answers (``delta``, ``epsilon``) come from the generic
    certified paths.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_callable(lambda a: (1 - a) ** 2)
    >>> f(0.5)
    0.25
    >>> gdp.from_callable(lambda a: np.minimum(0.5 - 0.25 * a, 1 - a))
    Traceback (most recent call last):
    ...
    ValueError: `fn` is not convex: its slope decreases at alpha=0.6665
    """
    if not callable(fn):
        raise TypeError(f"`fn` must be callable; got fn={fn!r}")
    n_check = check_int("n_check", n_check, lo=11)
    tol = check_real("tol", tol, lo=0.0)
    tails = np.logspace(-12, -1, 100)
    x = np.unique(np.concatenate([np.linspace(0, 1, n_check), tails, 1 - tails]))
    try:
        with np.errstate(all="ignore"):
            y = np.asarray(fn(x), dtype=float)
        y = np.broadcast_to(y, x.shape)
    except Exception as exc:
        raise TypeError("`fn` must accept a numpy array of alphas and return numbers of the "
                        f"same shape; calling it failed: {exc}") from exc

    def where(mask: np.ndarray) -> str:
        return f"alpha={float(x[np.flatnonzero(mask)[0]])!r}"

    if not np.all(np.isfinite(y)):
        raise ValueError(f"`fn` must return finite values on [0, 1]; not finite at "
                         f"{where(~np.isfinite(y))}")
    if np.any((y < -tol) | (y > 1 + tol)):
        raise ValueError(f"`fn` must map into [0, 1]; got a value outside at "
                         f"{where((y < -tol) | (y > 1 + tol))}")
    if abs(y[-1]) > tol:
        raise ValueError(f"`fn` must satisfy f(1) = 0 (every trade-off function does); "
                         f"got f(1)={float(y[-1])!r}")
    if np.any(y > 1 - x + tol):
        raise ValueError(f"`fn` must satisfy f(alpha) <= 1 - alpha; violated at "
                         f"{where(y > 1 - x + tol)}")
    dy = np.diff(y)
    if np.any(dy > tol):
        raise ValueError(f"`fn` must be non-increasing; it increases after "
                         f"{where(np.concatenate([dy > tol, [False]]))}")
    h = np.diff(x)
    slopes = dy / h
    # rounding of y (a few ulps of the function's scale, <= 1: intermediate values of an
    # evaluation can be that large even where y is tiny) perturbs a slope by ~noise
    noise = 8.0 * np.finfo(float).eps * max(float(np.max(np.abs(y))), 1e-300) / h
    ds = np.diff(slopes)
    slack = noise[:-1] + noise[1:] + tol * np.maximum(1.0, np.maximum(np.abs(slopes[:-1]),
                                                                       np.abs(slopes[1:])))
    bad = ds < -slack
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0]) + 1
        raise ValueError(f"`fn` is not convex: its slope decreases at alpha={float(x[i])!r}")
    if symmetric:
        g = Callable1D(fn=fn, name=name, symmetric=False)
        xi = np.linspace(0, 1, 201)
        gap = np.abs(Inverse(g)._f(xi) - g._f(xi))
        if np.max(gap) > 1e-6:
            raise ValueError("`fn` was declared symmetric but f != f^{-1}: they differ by "
                             f"{float(np.max(gap)):.3g} at alpha={float(xi[np.argmax(gap)])!r}")
    return Callable1D(fn=fn, name=name, symmetric=bool(symmetric))


@dataclass(frozen=True, slots=True, eq=False)
class Inverse(TradeOff):
    r""":math:`f^{-1}(\alpha)=\inf\{t\in[0,1]: f(t)\le\alpha\}`, i.e. :math:`T(Q,P)`.

    Computed by bisection on :math:`f`, returning the lower end of the final bracket (a
    lower curve, hence safe). Its profile is a certified upper bound from the mirrored
    graph, :math:`\delta_{f^{-1}}(\varepsilon) = \sup_t[1 - t - e^{\varepsilon}f(t)]`,
    combined for :math:`\varepsilon \le 0` with the exact identity
    :math:`\delta_{f^{-1}}(\varepsilon) = e^{\varepsilon}\delta_f(-\varepsilon)+1-e^{\varepsilon}`
    (which amplifies errors by :math:`e^{\varepsilon}` and is not used for ε > 0).
    """

    base: TradeOff

    @property
    def label(self):
        return _inv_label(self.base.label)

    def _f(self, alpha):
        alpha = np.asarray(alpha, dtype=float)
        shape = alpha.shape
        alpha = alpha.reshape(-1)
        f0 = float(np.asarray(self.base._f(np.zeros(1)), dtype=float)[0])
        out = np.zeros_like(alpha)
        need = alpha < f0
        if need.any():
            target = alpha[need]
            lo, _ = bisect_bracket(
                lambda t: np.asarray(self.base._f(t), dtype=float) <= target,
                np.zeros(target.shape), np.ones(target.shape), rtol=0.0, xtol=1e-16)
            out[need] = lo
        return out.reshape(shape)

    def _inverse(self):
        return self.base

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float).reshape(-1)
        out = _numeric_hockey_inverse(self.base, eps)
        neg = eps <= 0
        if neg.any():
            e = eps[neg]
            with np.errstate(all="ignore"):
                d = np.exp(e) * np.asarray(self.base._hockey(-e), dtype=float) - np.expm1(e)
            d = np.where(np.isfinite(d), d, 1.0)
            out[neg] = np.minimum(out[neg], d)
        return np.clip(out, 0.0, 1.0)

    def _loss_sf(self, t):
        # P' = Q, L' = -L:  P'[L' > t] = Q[L < -t] = 1 - Q[L >= -t]; Q[L >= s] is
        # Q[L > s'] at the float s' just below s (no atom can sit strictly between)
        t = np.asarray(t, dtype=float)
        below = np.nextafter(-t, -np.inf)
        return np.clip(1.0 - np.asarray(self.base._loss_sf_q(below), dtype=float), 0.0, 1.0)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        below = np.nextafter(-t, -np.inf)
        return np.clip(1.0 - np.asarray(self.base._loss_sf(below), dtype=float), 0.0, 1.0)

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
    """P[L = t] (non-zero only for atomic laws)."""
    at = f._atoms()
    if at is None:
        return np.zeros_like(t)
    loss, p, _ = at
    return np.array([p[loss == x].sum() for x in np.ravel(t)]).reshape(np.shape(t))


@dataclass(frozen=True, slots=True, eq=False)
class Symmetrized(TradeOff):
    r""":math:`f^S = \max\{f, f^{-1}\}` (DRS Prop. 2.4); its profile is the convex-hull
    construction of :func:`_sym_profile_fn` (an upper bound)."""

    base: TradeOff
    _inv: TradeOff = field(init=False, repr=False, compare=False)
    is_symmetric = True

    def __post_init__(self):
        object.__setattr__(self, "_inv", self.base.inverse())

    @property
    def label(self):
        return "{" + self.base.label + "}^{S}"

    def _f(self, alpha):
        return np.maximum(self.base._f(alpha), self._inv._f(alpha))

    def _one_minus_f(self, alpha):
        return np.minimum(self.base._one_minus_f(alpha), self._inv._one_minus_f(alpha))

    def _hockey(self, eps):
        return _symmetrized_profile(self.base, np.asarray(eps, dtype=float))


@dataclass(frozen=True, slots=True, eq=False)
class Group(TradeOff):
    r"""Group privacy curve :math:`1-(1-f)^{\circ k}` (DRS Thm 2.14).

    Symmetric when ``base`` is: with :math:`u = 1-f` and :math:`R(x) = 1-x`, a symmetric
    :math:`f` has :math:`u^{-1} = R\circ u\circ R`, hence so does :math:`u^{\circ k}`.
    """

    base: TradeOff
    k: int

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.base.is_symmetric

    @property
    def label(self):
        return f"{self.base.label}^{{[{self.k}]}}"

    def _one_minus_f(self, alpha):
        x = np.asarray(alpha, dtype=float)
        for _ in range(self.k):
            x = np.clip(np.asarray(self.base._one_minus_f(x), dtype=float), 0.0, 1.0)
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
