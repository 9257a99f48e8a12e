r"""The trade-off function :math:`T(P, Q)` of two given distributions.

:func:`from_distributions` takes two pmfs (exact, by Neyman–Pearson: outcomes rejected in
decreasing order of the likelihood ratio) or two frozen 1-D ``scipy.stats`` continuous
distributions (numeric: cells cut at quantiles of both laws, a coarsened pair above the truth
and a pair split at the extreme likelihood ratios of each cell below it, returned as a
:class:`~gdp.core.tradeoff.Bracketed` curve).

Imports: the ground floor, :mod:`gdp.core.tradeoff` and :mod:`gdp.core.piecewise`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_real_array, check_count, check_str
from .piecewise import _piecewise_from_pmfs
from .tradeoff import Bracketed, TradeOff

__all__ = ["from_distributions"]

_N_GRID_MAX = 10**7

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
    check_str("name", name)
    n_grid = check_count("n_grid", n_grid, lo=10, hi=_N_GRID_MAX,
                         why="the line is cut into that many cells per distribution")
    cont = [all(hasattr(D, m) for m in ("cdf", "sf", "ppf", "isf", "logpdf")) for D in (P, Q)]
    if any(hasattr(D, "pmf") for D in (P, Q)):
        raise TypeError("`P` and `Q` must be two arrays of probabilities (pmfs) or two frozen "
                        "scipy.stats continuous distributions; for a scipy discrete "
                        "distribution pass its pmf on the common support as an array")
    if all(cont):
        return _from_continuous(P, Q, n_grid=n_grid, name=name)
    if any(cont):
        raise TypeError("`P` and `Q` must be of the same kind: two pmfs (arrays) or two "
                        "frozen scipy.stats continuous distributions")
    p = as_real_array("P", P, lo=0.0, max_ndim=1).reshape(-1)
    q = as_real_array("Q", Q, lo=0.0, max_ndim=1).reshape(-1)
    if p.size != q.size or p.size == 0:
        raise ValueError(f"`P` and `Q` must be non-empty pmfs of the same length; got lengths "
                         f"{p.size} and {q.size}")
    for nm, v in (("P", p), ("Q", q)):
        if abs(v.sum() - 1.0) > 1e-9:
            raise ValueError(f"`{nm}` must sum to 1 (a probability mass function); got sum "
                             f"{float(v.sum())!r}")
    p = p / p.sum()
    q = q / q.sum()
    return _piecewise_from_pmfs(p, q, name=name)


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
    upper = _piecewise_from_pmfs(pc / pc.sum(), qc / qc.sum(), name=name)
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
    lower = _piecewise_from_pmfs(p2 / p2.sum(), q2 / q2.sum(), name=name)
    return Bracketed(lower=lower, upper=upper, name=name)
