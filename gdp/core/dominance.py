r"""Dominance certificates: a proof, in floating point, that ``other <= self`` on [0, 1].

:meth:`gdp.TradeOff.dominates` answers ``True`` only when one of the sufficient conditions
below holds with every rounding error charged *against* the claim; otherwise (no condition
applies, or one fails, if only by rounding) it answers ``False``. A ``False`` is therefore
"not proved", not "disproved": two curves that touch (equal curves computed by different
formulas, a curve against its own chords) cannot be certified unless a structural rule
proves it (identical objects or vertex data, :math:`f^S \ge f`, exact rules of a family).

The conditions, for trade-off functions (convex, non-increasing):

1. **self piecewise linear** with vertex data :math:`(\alpha_k, 1-\beta_k)` (the curve as
   stored): ``other <= self`` iff :math:`1 - \mathrm{other}(\alpha_k) \ge 1 - \beta_k` at
   every vertex (between two vertices other lies below its own chord, which lies below
   self's). Needs a lower bound on :math:`1 - \mathrm{other}` (hook ``_omf_lower``).
2. **other given by lines**, :math:`\mathrm{other} = \max(0, \max_j 1 - \delta_j -
   e^{t_j}\alpha)` (hook ``_lines``): ``other <= self`` iff :math:`\delta_{self}(t_j) \le
   \delta_j` for every line (each line lies below other, and other is their maximum). The
   lines of a piecewise-linear other are recovered from its vertices with the interval of
   each slope: the line with the smaller slope and the smaller intercept lies above the true
   one on [0, 1], so it is the one checked. For an exactly symmetric self against an exactly
   symmetric set of lines (:math:`f_{\varepsilon,\delta}`), the lines with
   :math:`t_j \ge 0` suffice. Needs an upper bound on :math:`\delta_{self}` (hook
   ``_hockey_upper``).
3. **both exactly symmetric**, other with a lower bound on its profile (hook
   ``_hockey_lower``): ``other <= self`` iff :math:`\delta_{self}(t) \le \delta_{other}(t)`
   for all :math:`t \ge 0` (negative t follow from
   :math:`\delta(t) = 1 - e^t + e^t\delta(-t)`). Profiles do not increase, so on a grid
   :math:`0 = t_0 < \dots < t_n` it suffices that :math:`\delta_{self}(t_i) \le
   \delta_{other}(t_{i+1})` on every cell, and beyond :math:`t_n` that
   :math:`\delta_{self}(t_n) \le \delta_{other}(\infty) = 1 - \mathrm{other}(0)`; cells
   that fail are subdivided twice before giving up.

``rtol`` and ``atol`` (default 0) are tolerances the caller may grant: the comparisons
become :math:`1-\beta_k \le (1+\mathrm{rtol})(1-\mathrm{other}) + \mathrm{atol}` and
:math:`\delta_{self} \le (1+\mathrm{rtol})\delta_{other} + \mathrm{atol}`, so a ``True``
then certifies dominance only up to them (e.g. curves that are equal up to rounding).

Imports: the ground floor only (curves are used through their hooks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._numerics import EPS

__all__ = []

#: grid of the profile proof (condition 3): points, subdivision factor, rounds
_GRID_N, _SPLIT, _ROUNDS = 257, 16, 2


def _scale(v: np.ndarray, tol: tuple[float, float]) -> np.ndarray:
    rtol, atol = tol
    return v * (1.0 + rtol) + atol if rtol > 0 or atol > 0 else v


def dominates(me: Any, other: Any, tol: tuple[float, float]) -> bool:
    """``other <= me`` proved (see the module docstring); both are plain curves (a
    :class:`~gdp.core.tradeoff.Bracketed` has already been replaced by the right side)."""
    if me is other or _same_vertices(me, other):
        return True
    rule = me._dominates_exact(other)
    if rule is not None:
        return bool(rule)
    pl = me._pl_data()
    if pl is not None:
        a, o = pl
        inner = a < 1.0  # at alpha = 1 every curve is 0
        lo = other._omf_lower(a[inner])
        if lo is not None:
            return bool(np.all(o[inner] <= _scale(np.asarray(lo, dtype=float), tol)))
    lines = other._lines()
    if lines is not None:
        t, d, mirrored = (np.asarray(v) if i < 2 else v for i, v in enumerate(lines))
        if mirrored and me._symmetric_exact():
            keep = t >= 0
            t, d = t[keep], d[keep]
        with np.errstate(all="ignore"):
            up = np.asarray(me._hockey_upper(np.asarray(t, dtype=float)), dtype=float)
        return bool(np.all(np.where(np.isnan(up), np.inf, up) <= _scale(d, tol)))
    if me._symmetric_exact() and other._symmetric_exact():
        return _profile_proof(me, other, tol)
    return False


def _same_vertices(me: Any, other: Any) -> bool:
    """Identical vertex data define the same curve (a proof of equality, hence of ≥)."""
    a, b = me._pl_data(), other._pl_data()
    if a is None or b is None:
        return False
    return all(x.shape == y.shape and bool(np.array_equal(x, y)) for x, y in zip(a, b,
                                                                                strict=True))


def _profile_proof(me: Any, other: Any, tol: tuple[float, float]) -> bool:
    """Condition 3: δ_me(t) <= δ_other(t) for all t >= 0 on a refined grid."""
    with np.errstate(all="ignore"):
        at_inf = other._hockey_lower(np.array([np.inf]))
        if at_inf is None:
            return False
        floor = float(_scale(np.asarray(at_inf, dtype=float), tol)[0])
        # the end of the grid: where me's profile has fallen to other's mass at infinity
        ends = np.concatenate([[0.0], np.geomspace(1e-3, 1e4, 71)])
        up = np.asarray(me._hockey_upper(ends), dtype=float)
        reach = np.flatnonzero(up <= floor)
        if reach.size == 0:
            return False
        T = float(ends[reach[0]])
        if T == 0.0:
            return True
        t = np.linspace(0.0, T, _GRID_N)
        for _ in range(_ROUNDS + 1):
            up = np.asarray(me._hockey_upper(t), dtype=float)
            lo = _scale(np.asarray(other._hockey_lower(t), dtype=float), tol)
            bad = ~(up[:-1] <= lo[1:])
            if not bad.any():
                return True
            i = np.flatnonzero(bad)
            if i.size > 256:
                return False
            new = (t[i, None] + (t[i + 1] - t[i])[:, None]
                   * np.linspace(0.0, 1.0, _SPLIT + 1)[None, 1:-1]).ravel()
            t = np.unique(np.concatenate([t, new]))
    return False


# ---------------------------------------------------------------------------
# rigorous helpers for the hooks of piecewise-linear curves
# ---------------------------------------------------------------------------
def interp_lower(x: np.ndarray, a: np.ndarray, o: np.ndarray) -> np.ndarray:
    r"""A lower bound on the piecewise-linear interpolant of the non-decreasing data
    ``(a, o)`` at ``x``: exact at a node (the largest value of a repeated node, i.e. the
    curve's infimum there), else the interpolation formula of non-negative terms, whose
    relative rounding error is at most 5 ulps, lowered by 8 ulps."""
    x = np.asarray(x, dtype=float)
    j = np.clip(np.searchsorted(a, x, side="right") - 1, 0, a.size - 1)
    node = a[j] == x
    k = np.minimum(j + 1, a.size - 1)
    with np.errstate(all="ignore"):
        da = a[k] - a[j]
        v = o[j] + (o[k] - o[j]) * ((x - a[j]) / np.where(da > 0, da, 1.0))
    v = np.nextafter(np.maximum(v, 0.0) * (1.0 - 8 * EPS), -np.inf)
    return np.where(node | (da <= 0), o[j], np.maximum(v, 0.0))


def lines_of_vertices(a: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    r"""Lines :math:`1 - \delta - e^t\alpha` lying above each segment of the piecewise-linear
    curve with vertices ``(a, 1 - o)`` on [0, 1] (condition 2 of the module docstring).

    For the segment from vertex j to j+1 the slope :math:`s = \Delta o/\Delta a` is known to
    4 ulps; the line through vertex j with the smaller slope :math:`s(1-4u)` (as
    :math:`t \le \log s`, rounded down) and the intercept :math:`\delta \le o_j - s a_j`
    (with the larger slope, rounded down) lies above the segment's line on [0, 1]. A jump
    at 0 gives the line of slope :math:`-\infty`, i.e. :math:`t = \infty` with
    :math:`\delta = 1 - \beta` at the bottom of the jump; flat segments (β = 0) add nothing.
    """
    da, do = np.diff(a), np.diff(o)
    seg = (da > 0) & (do > 0)
    with np.errstate(all="ignore"):
        s = do[seg] / da[seg]
        s_lo, s_hi = s * (1.0 - 4 * EPS), s * (1.0 + 4 * EPS)
        lt = np.log(s_lo)
        t = np.nextafter(lt - 2 * EPS * np.abs(lt), -np.inf)
        a0, o0 = a[:-1][seg], o[:-1][seg]
        prod = s_hi * a0
        d = np.nextafter(o0 - prod - 3 * EPS * (o0 + prod), -np.inf)
    d = np.where(a0 == 0.0, o0, d)  # through (0, 1 - o0): the intercept is exact
    jump = (da == 0) & (do > 0) & (a[:-1] == 0.0)
    if jump.any():
        t = np.concatenate([t, [np.inf]])
        d = np.concatenate([d, [float(o[1:][jump].max())]])
    return t, d, False
