"""Numerical helpers: log-space arithmetic and root finding that cannot fail.

Nothing here knows about privacy. The functions are vectorised and never emit
floating-point warnings for the inputs the library feeds them (they run under
``np.errstate``), because the test-suite turns ``RuntimeWarning`` into an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import optimize

__all__ = ["log1mexp", "logdiffexp", "bisect_bracket", "brentq_grow"]

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


def bisect_bracket(
    is_high: Callable[[np.ndarray], np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    iters: int = 200,
    xtol: float = 0.0,
    rtol: float = 4e-16,
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised bisection on a monotone predicate.

    ``is_high(x)`` must be False at ``lo``, True at ``hi`` and monotone in between. It is
    always called with an array of the full (broadcast) shape of ``lo`` and ``hi``, entry
    ``i`` belonging to bracket ``i``, so a predicate may compare against per-entry targets;
    entries that have already converged are evaluated at their ``lo`` and ignored.
    Returns the final bracket ``(lo, hi)`` so the caller can take the side that is
    safe for its question. Bisects at the arithmetic midpoint, or the geometric one
    when both ends are positive and far apart (so brackets spanning many orders of
    magnitude converge in ~60 steps). Stops when every bracket is narrower than
    ``xtol + rtol * |hi|`` or cannot be split any further in floating point.
    """
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


def brentq_grow(
    fn: Callable[[float], float],
    lo: float,
    hi: float,
    *,
    grow: float = 2.0,
    max_grow: int = 200,
    xtol: float = 1e-300,
    rtol: float = 4 * np.finfo(float).eps,
) -> float:
    """Scalar root of a monotone ``fn`` by :func:`scipy.optimize.brentq`, growing ``hi``.

    ``fn(lo)`` and ``fn(hi)`` must have opposite signs; if they do not, ``hi`` is
    multiplied by ``grow`` until they do (at most ``max_grow`` times), and a
    ``ValueError`` says so if no sign change is found.
    """
    flo = fn(lo)
    if flo == 0:
        return lo
    fhi = fn(hi)
    n = 0
    while np.sign(fhi) == np.sign(flo):
        if n >= max_grow or not np.isfinite(hi):
            raise ValueError(f"no sign change of the function on [{lo!r}, {hi!r}]")
        hi = hi * grow if hi > 0 else hi + grow
        fhi = fn(hi)
        n += 1
    if fhi == 0:
        return hi
    return optimize.brentq(fn, lo, hi, xtol=xtol, rtol=rtol, maxiter=500)


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
