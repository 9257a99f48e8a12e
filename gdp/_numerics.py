"""Numerical helpers: log-space arithmetic and root finding that cannot fail.

Nothing here knows about privacy. The functions are vectorised and never emit
floating-point warnings for the inputs the library feeds them (they run under
``np.errstate``), because the test-suite turns ``RuntimeWarning`` into an error.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize

__all__ = ["log1mexp", "logdiffexp", "bisect_bracket", "brentq_grow"]

_LOG_HALF = -np.log(2.0)


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
