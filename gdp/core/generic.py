r"""The generic numerics behind the default hooks of :class:`~gdp.core.tradeoff.TradeOff`.

A curve known only by its values (a user's function, an inverse computed by search) still
answers every question through these functions, each on the safe side:

* :func:`_numeric_hockey` / :func:`_numeric_hockey_inverse`: the one-order profile
  :math:`\sup_x [1 - e^{\varepsilon}x - f(x)]` of :math:`f` and of :math:`f^{-1}`, maximised
  by golden section and bounded from above by secants of the concave objective
  (:func:`_concave_upper`): a certified upper bound on δ;
* :func:`_numeric_hockey_lower` / :func:`_numeric_hockey_inverse_lower`: lower bounds on
  them, the objective's value at the maximiser found less its rounding;
* :func:`_numeric_loss_sf`: the law of the privacy loss, :math:`P[L > t]`, as the point where
  the slope of :math:`f` crosses :math:`-e^t`;
* :func:`_sym_profile_fn`: the profile of :math:`f^S = \max\{f, f^{-1}\}` as the lower
  convex envelope of :math:`\min\{\delta_f, \delta_{f^{-1}}\}` in :math:`y = -e^{\varepsilon}`
  (the conjugate of a maximum), an upper bound;
* :func:`_generic_epsilon`: the smallest ε whose (upper-bound) profile is at most δ, the upper
  end of a verified bracket.

Imports: the ground floor only. The curves are typed by the :class:`Hooks` protocol, so
this module needs nothing of :mod:`gdp.core.tradeoff`, which sits on top of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from .._numerics import EPS, bisect_bracket, golden_section_max, lower_convex_hull

__all__ = []


class Hooks(Protocol):
    """What the generic numerics need of a curve: the private hooks of
    :class:`gdp.core.tradeoff.TradeOff` (this module sits below it and imports nothing of it)."""

    def _f(self, alpha: np.ndarray) -> np.ndarray: ...

    def _one_minus_f(self, alpha: np.ndarray) -> np.ndarray: ...

    def _hockey(self, eps: np.ndarray) -> np.ndarray: ...

    def _atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None: ...

    def inverse(self) -> Hooks: ...


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
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Maximise ``n`` concave functions ``g(x, rows)`` (vectorised over rows) on [0, 1].

    Golden-section search in ``x``; rows whose bracket collapses onto 0 (a maximiser below
    ~1e-15) are searched again in ``log x`` down to 1e-300, so tiny maximisers are found
    to relative precision. Returns ``(x, upper, best, at)``: the maximiser found, a
    certified upper bound on the maximum (up to float rounding of ``g``): ``g`` is
    evaluated at points at geometrically growing distances (1e-8 x, 1e-7 x, ...) on both
    sides of ``x`` and at 0 and 1, and :func:`_concave_upper` bounds it from its secants
    (``slope`` as there); and the largest of those values with its point, which the
    maximum is at least (up to the rounding of ``g`` there).
    """
    rows = np.arange(n)
    g0 = np.asarray(g(np.zeros(n), rows), dtype=float)
    g1 = np.asarray(g(np.ones(n), rows), dtype=float)
    a, c, d, b, ga, gc, gd, gb = golden_section_max(lambda x: g(x, rows), np.zeros(n), np.ones(n),
                                              iters)
    # brackets that are wide relative to their position (a maximiser below ~1e-10):
    # search again in log x, where golden section keeps relative precision
    tiny = (b < 1e-6) & (b - a > 1e-9 * b)
    if tiny.any():
        sub = rows[tiny]

        def h(z):
            return g(np.exp(z), sub)

        za, zc, zd, zb, ha, hc, hd, hb = golden_section_max(
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
    seen = np.where(np.isnan(vs), -np.inf, vs)
    k = np.argmax(seen, axis=0)
    return x, upper, seen[k, rows], xs[k, rows]


def _numeric_hockey(f: Hooks, eps: np.ndarray) -> np.ndarray:
    r"""Certified upper bound on :math:`\sup_x [1 - e^{\varepsilon} x - f(x)]`.

    Golden-section search on the concave function, bounded by :func:`_concave_upper`.
    For :math:`\varepsilon > 700` the slope :math:`e^{700}` is used (a larger value,
    hence still an upper bound).
    """
    return _profile_bound(f, eps, inverse=False, lower=False)


def _numeric_hockey_inverse(f: Hooks, eps: np.ndarray) -> np.ndarray:
    r"""Certified upper bound on the profile of :math:`f^{-1}`, from ``f`` alone.

    The graph of :math:`f^{-1}` is the mirror image of the graph of :math:`f`, so
    :math:`\delta_{f^{-1}}(\varepsilon) = \sup_t [1 - t - e^{\varepsilon} f(t)]`, again a
    concave maximisation (no inversion, no cancellation for large ε).
    """
    return _profile_bound(f, eps, inverse=True, lower=False)


# the rounding allowed a value of a curve known by its values, in units of EPS (as the
# composition engine takes it: 32 EPS + 4 EPS f, gdp.engine.lattice._sampled_laws)
_VALUE_ULPS = 36.0


def _numeric_hockey_lower(f: Hooks, eps: np.ndarray) -> np.ndarray:
    r"""A lower bound on :math:`\sup_x [1 - e^{\varepsilon} x - f(x)]`: its value at the
    maximiser :func:`_numeric_hockey` finds (or a probe beside it), less its rounding, in
    units of the machine epsilon ϵ: the curve's value within :math:`32ϵ + 4ϵf` (taken as
    36ϵ), :math:`e^\varepsilon x` within 2ϵ of itself, the difference ϵ of itself. For
    ε = inf, :math:`1 - f(0)` less 36ϵ."""
    return _profile_bound(f, eps, inverse=False, lower=True)


def _numeric_hockey_inverse_lower(f: Hooks, eps: np.ndarray) -> np.ndarray:
    r"""A lower bound on the profile of :math:`f^{-1}`, :math:`\sup_t [1 - t -
    e^{\varepsilon} f(t)]`, as :func:`_numeric_hockey_lower` (the value of f times
    :math:`e^\varepsilon` within :math:`36ϵe^\varepsilon` and 2ϵ of the product, 1 - t
    within 4ϵ); for ε = inf, 1 less the upper end of the bracket of f's zero."""
    return _profile_bound(f, eps, inverse=True, lower=True)


def _profile_bound(f: Hooks, eps: np.ndarray, inverse: bool, lower: bool) -> np.ndarray:
    """The profile of ``f`` (or of its inverse) bounded from above or below: the four
    functions above. At ε = inf the mass at infinity: :math:`1 - f(0)`, or for the
    inverse 1 less the zero of f (the lower or upper end of its bracket)."""
    eps = np.asarray(eps, dtype=float).reshape(-1)
    out = np.empty_like(eps)
    inf = np.isposinf(eps)
    if inf.any():
        if inverse:
            # P[L = -inf] = 1 - inf{t : f(t) = 0}
            out[inf] = 1.0 - _zero_of(f)[1 if lower else 0]
        else:
            out[inf] = float(np.asarray(f._one_minus_f(np.zeros(1)), dtype=float)[0]) - \
                (_VALUE_ULPS * EPS if lower else 0.0)
    fin = ~inf
    if fin.any():
        n = int(fin.sum())
        s = np.exp(np.minimum(eps[fin], 700.0))
        if inverse:
            def g(t, rows):
                return (1.0 - t) - s[rows] * np.asarray(f._f(t), dtype=float)
            slope = np.ones(n)
        else:
            def g(x, rows):
                return np.asarray(f._one_minus_f(x), dtype=float) - s[rows] * x
            slope = s
        if lower:
            _, _, best, x = _golden_max(g, n, slope=slope)
            err = 4.0 + (_VALUE_ULPS + 2.0) * s if inverse else _VALUE_ULPS + 2.0 * s * x
            out[fin] = best - EPS * (err + np.abs(best))
        else:
            out[fin] = _golden_max(g, n, slope=slope)[1]
    return np.clip(np.where(np.isnan(out), 0.0 if lower else 1.0, out), 0.0, 1.0)


def _zero_of(f: Hooks) -> tuple[float, float]:
    """Bracket ``(lo, hi)`` of :math:`\\inf\\{t : f(t) \\le 0\\}`."""
    if float(np.asarray(f._f(np.zeros(1)), dtype=float)[0]) <= 0.0:
        return 0.0, 0.0
    lo, hi = bisect_bracket(lambda t: np.asarray(f._f(t), dtype=float) <= 0.0,
                            np.zeros(1), np.ones(1), rtol=0.0, xtol=1e-17)
    return float(lo[0]), float(hi[0])


def _numeric_loss_sf(f: Hooks, t: np.ndarray) -> np.ndarray:
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

        x = _golden_max(g, int(mid.sum()))[0]
        out[mid] = a0 * x
    return np.clip(out, 0.0, 1.0)


# eps grid on which the symmetrised profile's convex hull is sampled: dense near 0 (in
# y = -e^eps the interesting part), out to eps = 700 (e^eps still finite) and down to -60.
_SYM_POS = np.geomspace(1e-7, 700.0, 1600)
_SYM_GRID = np.unique(np.concatenate([-_SYM_POS[_SYM_POS <= 60.0], [0.0], _SYM_POS]))


def _order_profiles(f: Hooks, eps: Any, inv: Hooks | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`\delta_f` and :math:`\delta_{f^{-1}}` at ``eps`` (each an upper bound, NaN
    read as 1, clipped to [0, 1]); ``inv`` is ``f.inverse()`` when the caller has it."""
    eps = np.asarray(eps, dtype=float)
    inv = f.inverse() if inv is None else inv
    with np.errstate(all="ignore"):
        d_f = np.asarray(f._hockey(eps), dtype=float)
        d_i = np.asarray(inv._hockey(eps), dtype=float)
    d_f = np.clip(np.where(np.isnan(d_f), 1.0, d_f), 0.0, 1.0)
    d_i = np.clip(np.where(np.isnan(d_i), 1.0, d_i), 0.0, 1.0)
    return d_f, d_i


def _min_profiles(f: Hooks, eps: np.ndarray, inv: Hooks | None = None) -> np.ndarray:
    r""":math:`\min\{\delta_f, \delta_{f^{-1}}\}` at ``eps`` (each an upper bound);
    ``inv`` is ``f.inverse()`` when the caller has it already."""
    return np.minimum(*_order_profiles(f, eps, inv))


def _both_orders_profile(f: Hooks) -> Callable[[Any], np.ndarray]:
    r""":math:`\max(\delta_f, \delta_{f^{-1}})` as a function of ε: the privacy profile of
    a mechanism whose two orders of the neighbouring pair have the curves :math:`f` and
    :math:`f^{-1}` (an upper bound wherever the two hooks are)."""
    inv = f.inverse()
    return lambda e: np.maximum(*_order_profiles(f, e, inv))


def _sym_profile_fn(f: Hooks) -> Callable[[np.ndarray], np.ndarray]:
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
        on = lower_convex_hull(ys, ms)
        return ys[on], ms[on]

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


def _symmetrized_profile(f: Hooks, eps: np.ndarray) -> np.ndarray:
    r"""Profile of :math:`f^S=\max\{f,f^{-1}\}` at ``eps`` (any real, or ``inf``): an upper
    bound, see :func:`_sym_profile_fn`. :math:`\delta_{f^{-1}}` comes from
    ``f.inverse()._hockey`` (exact for piecewise-linear curves; for a generic
    :class:`Inverse` a certified bound, see :func:`_numeric_hockey_inverse`).
    """
    return _sym_profile_fn(f)(np.asarray(eps, dtype=float))


_EPS_GRID = np.concatenate([[0.0], np.geomspace(1e-7, 700.0, 1200)])


def _generic_epsilon(delta_fn: Callable[[Any], Any], delta: np.ndarray,
                     lower: bool = False) -> np.ndarray:
    """Smallest eps >= 0 with delta_fn(eps) <= delta, vectorised.

    ``delta_fn`` is an upper bound on a non-increasing profile. It is sampled once on a
    fixed grid of ε (0 and 1e-7 ... 700, 1.4 % apart; beyond, doubling up to about
    1.5e15), then each bracket ``(last grid point above, first grid point at or below the
    target)`` is refined in rounds of 16 equally spaced candidates (one batched call of
    ``delta_fn`` per round) until it is narrower than 1e-13 relative. The answer is the
    upper end, where ``delta_fn(eps) <= delta`` was verified, so it never under-states ε;
    ``inf`` when no finite ε achieves ``delta``.

    ``lower=True``, for ``delta_fn`` a *lower* bound on the profile: the lower end instead,
    where ``delta_fn(eps) > delta`` was verified (0 where that holds nowhere), so that the
    true profile exceeds ``delta`` there too and the answer never over-states ε.
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
    # beyond the grid (eps > 700, losses of noise multipliers below about 0.03): double up
    # to eps = 1400 * 2^40 (about 1.5e15), then give up (inf, safe); it stopped at 11,200,
    # and G_mu(200) subsampled, whose eps(1e-5) is 20,860, answered inf
    far = ~found
    if far.any():
        h = np.full(int(far.sum()), 1400.0)
        for _ in range(40):
            bad = call(h) > target[far]
            if not bad.any():
                break
            h = np.where(bad, 2.0 * h, h)
        good = call(h) <= target[far]
        hi[far] = np.where(good, h, np.inf)
        # (the last ε verified above the target: h where the doubling gave up)
        lo[far] = np.where(good, h / 2.0, np.inf if not lower else h)
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
    out[todo] = lo if lower else hi
    return out
