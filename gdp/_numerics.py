r"""The ground floor: numerical primitives shared by the whole package.

Nothing here knows about privacy. Each primitive exists once:

* log-space arithmetic: :func:`log1mexp`, :func:`logdiffexp`;
* geometry: :func:`lower_convex_hull` (vectorised) and :func:`upper_envelope` (the same
  hull in the dual plane);
* one-dimensional search: :func:`find_root_bracket` (scipy's vectorised Chandrupatla
  solver, returning the final bracket), :func:`bisect_bracket` (the boundary of a monotone
  predicate) and :func:`golden_section_max` (a unimodal maximiser on a closed interval);
* output shaping: :func:`float_or_array`, and :data:`EPS`;
* directed rounding: :func:`raise_by` / :func:`lower_by` (a value moved by its rounding
  bound, from an error analysis stated by the caller), :func:`sum_up` / :func:`sum_down`
  and :func:`div_up` (a sum or quotient never below, or above, the exact one),
  :func:`affine_exp_upper` (the sign of :math:`o - e^t a` near 0, in 40-digit decimal
  arithmetic, a decision that floats cannot make).

Each search returns a *bracket*, never a bare point, so that the caller can take the end
that is safe for its question (a curve never too high, an ε or δ never too low). The
functions are vectorised and raise no floating-point warnings for the inputs the package
feeds them (they run under ``np.errstate``), because the test-suite turns
``RuntimeWarning`` into an error. scipy's optimisation module is imported on first use,
so that ``import gdp`` stays light.

Imports: numpy and scipy only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "EPS", "float_or_array", "log1mexp", "logdiffexp", "lower_convex_hull", "upper_envelope",
    "find_root_bracket", "bisect_bracket", "golden_section_max", "step_until",
    "affine_exp_upper", "div_up", "raise_by", "lower_by", "sum_up", "sum_down",
]

_LOG_HALF = -np.log(2.0)

#: Machine epsilon of float64 (the unit of every rounding allowance in the package).
EPS = float(np.finfo(float).eps)


def float_or_array(x: Any, shape: tuple[int, ...] | None = None) -> Any:
    """A Python float for a 0-d result, else the float array (reshaped to ``shape``)."""
    x = np.asarray(x, dtype=float)
    if shape is not None:
        x = x.reshape(shape)
    return float(x) if x.ndim == 0 else x


def log1mexp(x: np.ndarray | float) -> np.ndarray:
    r"""Compute :math:`\log(1 - e^{x})` for :math:`x \le 0` without cancellation.

    Uses ``log(-expm1(x))`` for :math:`x > -\log 2` and ``log1p(-exp(x))`` otherwise
    (Mächler, "Accurately computing log(1 - exp(-|a|))", 2012). Returns ``-inf`` at 0.
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = x > _LOG_HALF
        out = np.where(near, np.log(-np.expm1(np.where(near, x, _LOG_HALF))),
                       np.log1p(-np.exp(np.where(near, _LOG_HALF, x))))
    return out


def logdiffexp(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    r"""Compute :math:`\log(e^{a} - e^{b})` for :math:`a \ge b` (``-inf`` when equal)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        d = np.where(np.isneginf(b), -np.inf, b - a)
    return np.where(np.isneginf(a), -np.inf, a + log1mexp(np.minimum(d, 0.0)))


def lower_convex_hull(x: Any, y: Any) -> np.ndarray:
    r"""Indices of the vertices of the lower convex hull of points sorted by ``x``.

    The vertices of the largest convex minorant of the points :math:`(x_i, y_i)`; the
    first and last points are always kept, points on a chord are dropped. Vectorised: a
    point lying on or above the chord of its current neighbours,

    .. math:: (y_k - y_{k-1})(x_{k+1} - x_{k-1}) \ge (y_{k+1} - y_{k-1})(x_k - x_{k-1}),

    is not a vertex of the hull of the whole set (the hull lies below that chord), so every
    such point can be removed at once; passes repeat until none is left (the monotone-chain
    test of Andrew's algorithm, applied to all points of a pass simultaneously). After 64
    passes the rest is finished by the monotone chain itself.
    """
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    idx = np.arange(x.size)
    for _ in range(64):
        if idx.size < 3:
            return idx
        xs, ys = x[idx], y[idx]
        with np.errstate(invalid="ignore", over="ignore"):
            drop = ((ys[1:-1] - ys[:-2]) * (xs[2:] - xs[:-2])
                    >= (ys[2:] - ys[:-2]) * (xs[1:-1] - xs[:-2]))
        if not drop.any():
            return idx
        keep = np.ones(idx.size, dtype=bool)
        keep[1:-1] = ~drop
        idx = idx[keep]
    return idx[_monotone_chain(x[idx].tolist(), y[idx].tolist())]


def _monotone_chain(xs: list[float], ys: list[float]) -> np.ndarray:
    out: list[int] = []
    for i, (xi, yi) in enumerate(zip(xs, ys, strict=True)):
        while len(out) >= 2:
            i1, i2 = out[-2], out[-1]
            if (ys[i2] - ys[i1]) * (xi - xs[i1]) >= (yi - ys[i1]) * (xs[i2] - xs[i1]):
                out.pop()
            else:
                break
        out.append(i)
    return np.asarray(out, dtype=np.intp)


def upper_envelope(slopes: Any, icpt: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Vertices on [0, 1] of :math:`\max(0, \max_j c_j - s_j\alpha)` (lines with
    :math:`s_j > 0`). The lines :math:`y = m_j x + c_j` on the upper envelope are, in the
    dual plane, the vertices of the lower convex hull of the points :math:`(m_j, -c_j)`
    (:func:`lower_convex_hull`), in increasing order of slope; neighbours are intersected.
    Lines with an infinite slope only touch α = 0 and are dropped (a lower, hence safe,
    curve).
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
    on = lower_convex_hull(m, -c)
    hm_a, hc_a = m[on], c[on]
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
    on = lower_convex_hull(xs, ys)
    return xs[on], ys[on]


def bisect_bracket(
    is_high: Callable[[np.ndarray], np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    iters: int = 200,
    xtol: float = 0.0,
    rtol: float = 4e-16,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Vectorised bisection for the boundary of a monotone predicate.

    Kept by hand because the question is not a sign change of a continuous function:
    e.g. :math:`\inf\{t : f(t) \le 0\}` for a curve that is 0 on a whole interval, where
    a root finder may stop anywhere in the interval (scipy's :func:`find_root` stops at
    the first exact zero). Use :func:`find_root_bracket` for continuous functions.

    ``is_high(x)`` must be False at ``lo``, True at ``hi`` and monotone in between. It is
    always called with an array of the full (broadcast) shape of ``lo`` and ``hi``, entry
    ``i`` belonging to bracket ``i``, so a predicate may compare against per-entry targets;
    entries that have already converged are evaluated at their ``lo`` and ignored.
    Returns the final bracket ``(lo, hi)`` so the caller can take the side that is
    safe for its question. Bisects at the arithmetic midpoint, or the geometric one
    when both ends are positive and far apart (so brackets spanning many orders of
    magnitude converge in ~60 steps). Stops when every bracket is narrower than
    ``xtol + rtol * |hi|`` or cannot be split any further in floating point. One bracket
    given as scalars is bisected in Python floats (the same midpoints, a fraction of the
    array overhead), and returned as 0-d arrays.
    """
    if all(np.ndim(v) == 0 for v in (lo, hi, xtol, rtol)):
        a, b = float(lo), float(hi)
        for _ in range(iters):
            if not (b - a) > xtol + rtol * abs(b):
                break
            mid = math.sqrt(a) * math.sqrt(b) if a > 0 and b > 4 * a else a + 0.5 * (b - a)
            if mid <= a or mid >= b:
                break
            if bool(np.asarray(is_high(np.array(mid)))):
                b = mid
            else:
                a = mid
        return np.array(a), np.array(b)
    lo, hi = np.broadcast_arrays(np.array(lo, dtype=float), np.array(hi, dtype=float))
    lo = lo.copy()
    hi = hi.copy()
    active = np.ones(lo.shape, dtype=bool)
    for _ in range(iters):
        active &= (hi - lo) > xtol + rtol * np.abs(hi)
        if not active.any():
            break
        geometric = (lo > 0) & (hi > 4 * lo)
        with np.errstate(invalid="ignore", over="ignore"):
            # sqrt(lo) * sqrt(hi): the product lo * hi may underflow (1e-300 * 1e-150)
            mid = np.where(geometric, np.sqrt(lo) * np.sqrt(np.where(geometric, hi, 1.0)),
                           lo + 0.5 * (hi - lo))
        stuck = (mid <= lo) | (mid >= hi)
        active &= ~stuck
        if not active.any():
            break
        x = np.where(active, mid, lo)
        high = np.asarray(is_high(x), dtype=bool)
        high = np.broadcast_to(high, lo.shape)
        hi = np.where(active & high, mid, hi)
        lo = np.where(active & ~high, mid, lo)
    return lo, hi


def find_root_bracket(
    fn: Callable[..., np.ndarray],
    lo: Any,
    hi: Any,
    *,
    args: tuple[Any, ...] = (),
    xrtol: float = 4 * EPS,
    xatol: float = 0.0,
    maxiter: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Roots of continuous functions, one per entry (scipy's vectorised ``find_root``).

    ``fn(x, *args)`` is elementwise and changes sign on each bracket ``[lo, hi]``.
    Returns the final bracket and the values there, ``(xl, xr, f(xl), f(xr))``: the signs
    of ``f(xl)`` and ``f(xr)`` differ (or one is 0), which is what a caller needs to take the
    safe end. Chandrupatla's method converges superlinearly for smooth functions and never
    leaves the bracket; the bracket is refined until it is narrower than
    ``xatol + xrtol |x|`` (scipy stops earlier only at an exact zero).
    """
    from scipy.optimize import elementwise

    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
    with np.errstate(all="ignore"):
        res = elementwise.find_root(fn, (lo, hi), args=args, maxiter=maxiter,
                                    tolerances={"xrtol": xrtol, "xatol": xatol, "fatol": 0.0,
                                                "frtol": 0.0})
    xl, xr = (np.asarray(v, dtype=float) for v in res.bracket)
    fl, fr = (np.asarray(v, dtype=float) for v in res.f_bracket)
    return xl, xr, fl, fr


_GOLD = (math.sqrt(5.0) - 1.0) / 2.0


def golden_section_max(h: Callable[[np.ndarray], np.ndarray], a: Any, b: Any,
                       iters: int) -> tuple[np.ndarray, ...]:
    """Golden-section search for the maxima of unimodal functions on ``[a, b]``, one per entry.

    Returns the final points ``a <= c <= d <= b`` and the values ``h`` takes there, so the
    caller can bound the maximum from them. Kept by hand: the maximiser may sit at an end of
    the interval (a concave function that is monotone on it), where scipy's
    :func:`~scipy.optimize.elementwise.find_minimum` has no valid three-point bracket.
    """
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


def step_until(ok: Callable[[np.ndarray], np.ndarray], x: Any, toward: float, *,
               rel: float = EPS, max_rel: float = 1.0, tries: int = 2200) -> np.ndarray:
    r"""Move computed values towards their safe side until a check verifies them.

    A closed form or a solver returns :math:`x` up to rounding; the caller knows which
    direction is safe (``toward = inf``: larger is safe, e.g. an ε; ``toward = 0``: smaller
    is safe, e.g. a μ) and how to check a value (``ok(x)``, elementwise, e.g. "the computed
    δ at this ε is at most the target"). Each entry that fails is moved one ulp and a
    relative step :math:`\min(\mathrm{max\_rel}, \mathrm{rel}\cdot 4^k)` at try :math:`k`
    towards ``toward``, so a rounding error is undone in a few tries and a gross one in
    logarithmically many. Returns the moved values; an entry still failing after ``tries``
    is returned as it is (the caller falls back to a safe value it knows).
    """
    x = np.array(x, dtype=float)
    sign = 1.0 if toward > 0 else -1.0
    for k in range(tries):
        bad = ~np.asarray(ok(x), dtype=bool)
        if not bad.any():
            break
        x[bad] = np.nextafter(x[bad] * (1.0 + sign * min(max_rel, rel * 4.0**k)), toward)
    return x


def affine_exp_upper(o: Any, t: Any, a: Any) -> np.ndarray:
    r"""Upper bounds on :math:`o - e^{t} a` (floats ``o, a >= 0``, ``t`` finite), from 40-digit
    decimal arithmetic.

    In floating point this difference errs by a few ulps of :math:`o + e^t a`, far more
    than the difference itself when the two nearly cancel (a profile at the loss of an
    atom, where the exact answer is often 0). ``decimal`` computes :math:`e^t` correctly
    rounded to 40 digits, so the error of the difference is below :math:`10^{-38}(o +
    e^t a)`; that is added and the result rounded up to a float. Meant for the few values
    whose sign floats cannot decide (a Python loop).
    """
    import decimal

    o, t, a = (np.asarray(v, dtype=float).reshape(-1) for v in (o, t, a))
    out = np.empty(o.shape)
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        for i, (oi, ti, ai) in enumerate(zip(o.tolist(), t.tolist(), a.tolist(), strict=True)):
            prod = decimal.Decimal(ti).exp() * decimal.Decimal(ai)
            d = decimal.Decimal(oi) - prod
            bound = d + (decimal.Decimal(oi) + prod) * decimal.Decimal("1e-38")
            out[i] = math.nextafter(float(bound), math.inf) if bound != 0 else 0.0
    return out


def _two_prod_error(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The rounding error of ``x * y``: ``x * y = fl(x * y) + e`` exactly (Dekker's product
    with Veltkamp's split; valid while neither the split nor the product over- or
    underflows)."""
    def split(v):
        c = 134217729.0 * v  # 2^27 + 1
        hi = c - (c - v)
        return hi, v - hi

    p = x * y
    xh, xl = split(x)
    yh, yl = split(y)
    return ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def div_up(a: Any, b: Any) -> Any:
    r"""The smallest float not below the exact quotient :math:`a/b` (``a >= 0``, ``b > 0``,
    ``inf`` allowed; vectorised, a float for scalars).

    The rounded quotient :math:`q` is exact or off by half an ulp; whether it lies below
    the exact value is decided exactly from the error-free product :math:`qb = p + e`
    (:math:`q < a/b` iff :math:`p < a`, or :math:`p = a` and :math:`e < 0`), and then
    :math:`q` moves up one ulp. Where the error-free product could over- or underflow
    (extreme exponents) :math:`q` moves up unconditionally.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    with np.errstate(all="ignore"):
        q = a / b
        fin = np.isfinite(q) & (q > 0) & np.isfinite(b)
        tame = fin & (np.abs(q) < 1e280) & (np.abs(q) > 1e-280) & (np.abs(b) < 1e280) & \
            (np.abs(b) > 1e-280)
        p = q * b
        e = _two_prod_error(q, b)
        low = (p < a) | ((p == a) & (e < 0))
        q = np.where(fin & (low | ~tame), np.nextafter(q, np.inf), q)
    return q[()] if q.ndim == 0 else q


def raise_by(x: Any, ulps: Any) -> Any:
    """``x`` moved up by ``ulps`` units of its own rounding (relative ``ulps * EPS``) and one
    more ulp: an upper bound on the exact value when the caller's error analysis bounds the
    relative rounding error of ``x`` by ``ulps`` ulps. Zeros (exact) and infinities stay."""
    return _move(x, ulps, np.inf)


def lower_by(x: Any, ulps: Any) -> Any:
    """The mirror of :func:`raise_by`: a lower bound."""
    return _move(x, ulps, -np.inf)


def _move(x: Any, ulps: Any, to: float) -> Any:
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.nextafter(x + np.sign(to) * np.abs(x) * (np.asarray(ulps) * EPS), to)
    y = np.where(np.isfinite(x) & (x != 0), y, x)
    return float(y) if y.ndim == 0 else y


def _two_sum(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """``a + b = s + e`` exactly (Knuth's TwoSum; no overflow assumed)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), e, 0.0)


def sum_up(a: Any, b: Any) -> Any:
    """The smallest float not below the exact sum ``a + b`` (exact sums stay)."""
    s, e = _two_sum(a, b)
    out = np.where(e > 0, np.nextafter(s, np.inf), s)
    return float(out) if out.ndim == 0 else out


def sum_down(a: Any, b: Any) -> Any:
    """The largest float not above the exact sum ``a + b`` (exact sums stay)."""
    s, e = _two_sum(a, b)
    out = np.where(e < 0, np.nextafter(s, -np.inf), s)
    return float(out) if out.ndim == 0 else out
