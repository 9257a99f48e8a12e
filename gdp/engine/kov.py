r"""The exact k-fold composition of :math:`f_{\varepsilon_0,\delta_0}` (KOV 2015, Thm 3.3).

:math:`f_{\varepsilon_0,\delta_0}^{\otimes k}` has a binomial privacy loss; its profile is
(:math:`i = 0, \dots, \lfloor k/2 \rfloor`) the KOV formula
:math:`((k-2i)\varepsilon_0,\ 1-(1-\delta_0)^k(1-\delta_i))` with

.. math:: \delta_i = \sum_{l<i}\binom kl \frac{e^{(k-l)\varepsilon_0}
          - e^{(k-2i+l)\varepsilon_0}}{(1+e^{\varepsilon_0})^k},

evaluated in log space (:func:`kov_delta`) and inverted exactly (:func:`kov_epsilon`), each
rounded to the safe side by its error margin. The comparison tables of :mod:`gdp.bounds`
report it as the optimal (ε, δ) composition; the engine uses it for k-fold randomized response.

Imports: the ground floor only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import EPS, float_or_array, log1mexp
from .._validation import as_probability_array, as_real_array, check_count, check_real

__all__ = ["kov_delta", "kov_epsilon"]

# ---------------------------------------------------------------------------
# optimal composition of homogeneous (eps0, delta0): the binomial privacy loss
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _KovTable:
    """Binomial privacy-loss law of k-fold randomized response f_{eps0,0}^{⊗k}.

    Under P the number j of coordinates with loss +eps0 is Bin(k, 1/(1+e^eps0)), the loss
    is L_j = (2j - k) eps0; ``log_a[j] = log Q[J >= j]``, ``log_b[j] = log P[J >= j]``.
    """

    eps0: float
    k: int
    loss: np.ndarray
    log_a: np.ndarray
    log_b: np.ndarray
    margin: float

    @classmethod
    def build(cls, eps0: float, k: int) -> _KovTable:
        j = np.arange(k + 1, dtype=float)
        logc = special.gammaln(k + 1.0) - special.gammaln(j + 1.0) - special.gammaln(k - j + 1.0)
        lnorm = k * np.logaddexp(0.0, eps0)
        log_p = logc + eps0 * (k - j) - lnorm
        log_q = logc + eps0 * j - lnorm
        loss = eps0 * (2.0 * j - k)
        tail = np.full(1, -np.inf)
        log_a = np.concatenate([np.logaddexp.accumulate(log_q[::-1])[::-1], tail])
        log_b = np.concatenate([np.logaddexp.accumulate(log_p[::-1])[::-1], tail])
        # the log-space terms carry absolute rounding errors of a few ulps of their size
        scale = float(special.gammaln(k + 1.0) + k * eps0 + lnorm + k + 1.0)
        margin = 1e-12 + 16.0 * EPS * scale
        return cls(eps0=eps0, k=k, loss=loss, log_a=log_a, log_b=log_b, margin=margin)

    def log_delta_rr(self, eps: np.ndarray) -> np.ndarray:
        r""":math:`\log\delta(\varepsilon)` of :math:`f_{\varepsilon_0,0}^{\otimes k}`:
        :math:`\sum_{j: L_j>\varepsilon} Q_j - e^\varepsilon P_j` (no margin)."""
        idx = np.searchsorted(self.loss, eps, side="right")
        la = self.log_a[idx]
        lb = self.log_b[idx]
        fin = np.isfinite(la)
        with np.errstate(invalid="ignore"):
            x = np.where(fin, eps + lb - la, -1.0)
        out = np.where(fin, la + log1mexp(np.minimum(x, 0.0)), -np.inf)
        return np.where(np.isposinf(eps), -np.inf, out)

    def log_delta_at_kinks(self) -> np.ndarray:
        """log δ at ε = L_i for i = 0..k (non-increasing; -inf at i = k)."""
        la = self.log_a[1:]
        lb = self.log_b[1:]
        fin = np.isfinite(la)
        with np.errstate(invalid="ignore"):
            x = np.where(fin, self.loss + lb - la, -1.0)
        return np.where(fin, la + log1mexp(np.minimum(x, 0.0)), -np.inf)


def _kov_base(d0: float, k: int) -> float:
    r""":math:`1-(1-\delta_0)^k` (the δ of :math:`f_{0,\delta_0}^{\otimes k}`), rounded up."""
    if d0 >= 1:
        return 1.0
    return min(1.0, -math.expm1(k * math.log1p(-d0)) * (1.0 + 8 * EPS))


#: beyond this the factor (e^eps0 overflows) is no privacy at all; KOV's sums are refused
_EPS0_MAX = 700.0


def _kov_args(eps0: Any, delta0: Any, k: Any) -> tuple[float, float, int]:
    e0 = check_real("eps0", eps0, lo=0.0)
    if e0 > _EPS0_MAX:
        raise ValueError(f"`eps0` must be a number in [0, {_EPS0_MAX:g}] (beyond, e^eps0 "
                         f"overflows and a factor is no privacy at all); got eps0={e0!r}")
    d0 = check_real("delta0", delta0, lo=0.0, hi=1.0)
    kk = check_count("k", k, hi=10**7, why="the binomial law of the composition has k + 1 "
                     "atoms")
    return e0, d0, kk


def kov_delta(eps0: float, delta0: float, k: int, eps: Any) -> Any:
    r"""Exact privacy profile of the k-fold composition of :math:`(\varepsilon_0,\delta_0)`-DP
    (optimal composition, KOV Thm 3.3), for any :math:`\varepsilon \ge 0` (vectorised).

    .. math:: \delta(\varepsilon) = 1 - (1-\delta_0)^k\Big(1 - \sum_{j:\,(2j-k)\varepsilon_0
              > \varepsilon}\binom{k}{j}\frac{e^{j\varepsilon_0} - e^{\varepsilon +
              (k-j)\varepsilon_0}}{(1+e^{\varepsilon_0})^k}\Big)

    At :math:`\varepsilon = (k-2i)\varepsilon_0` the sum is KOV's :math:`\delta_i`
    (substitute :math:`l = k-j`); in between it is the hockey-stick divergence of the
    binomial privacy-loss law, so this is the exact profile of
    :math:`f_{\varepsilon_0,\delta_0}^{\otimes k}` everywhere.

    Parameters
    ----------
    eps0, delta0 : float
        The per-step guarantee (ε0 finite).
    k : int
        Number of compositions (≥ 1; 10^6 takes a fraction of a second).
    eps : float or array_like
        ε ≥ 0 (``inf`` allowed).

    Notes
    -----
    Computed in log space (``gammaln`` binomials, cumulative ``logaddexp`` tails and
    ``log1mexp``), then rounded *up* by a relative margin of about
    :math:`10^{-12} + 16\,u\cdot(\ln k! + k(1+\varepsilon_0))` that bounds the floating-point
    error (u the unit roundoff), so the value is never below the true profile. Equals
    :math:`1-(1-\delta_0)^k` for :math:`\varepsilon \ge k\varepsilon_0`.

    References
    ----------
    KOV Thm 3.3; MATH.md §4.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.kov_delta(0.1, 0.0, 100, 2.0), 8)
    0.02014018
    """
    e0, d0, kk = _kov_args(eps0, delta0, k)
    e = as_real_array("eps", eps, lo=0.0, finite=False)
    out = _kov_profile(e0, kk, _kov_base(d0, kk), e.reshape(-1))
    return float_or_array(out.reshape(e.shape))


def _kov_profile(e0: float, kk: int, base: float, eps: np.ndarray) -> np.ndarray:
    r""":math:`b + (1-b)\,\delta_{rr}(\varepsilon)` for a split-off δ ``base`` = b (already
    rounded up), with δ_rr rounded up by the table's margin."""
    tab = _KovTable.build(e0, kk)
    ld = tab.log_delta_rr(np.asarray(eps, dtype=float))
    return np.minimum(1.0, base + (1.0 - base) * (np.exp(ld) * (1.0 + tab.margin)))


def kov_epsilon(eps0: float, delta0: float, k: int, delta: Any) -> Any:
    r"""Smallest ε ≥ 0 with :func:`kov_delta` :math:`(\varepsilon) \le \delta`: the optimal
    ε of the k-fold composition of :math:`(\varepsilon_0,\delta_0)`-DP (vectorised).

    Between consecutive loss values :math:`L_{i-1} \le \varepsilon < L_i` the profile is
    :math:`A_i - e^{\varepsilon}B_i` (tail sums of the binomial Q and P masses), so the root
    is :math:`\log((A_i - t)/B_i)` in the segment found by a search over the kinks; it is
    then pushed up until the (margin-inflated) :func:`kov_delta` at it is ≤ δ.

    Returns ``inf`` where :math:`\delta < 1-(1-\delta_0)^k` (unreachable), and
    :math:`k\varepsilon_0` at that value.

    References
    ----------
    KOV Thm 3.3.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.kov_epsilon(0.1, 0.0, 100, 1e-5), 6)
    4.306791
    >>> round(gdp.kov_epsilon(0.1, 0.0, 100, 1e-3), 6)
    3.115559
    """
    e0, d0, kk = _kov_args(eps0, delta0, k)
    d = as_probability_array("delta", delta)
    out = _kov_inverse(e0, kk, _kov_base(d0, kk), d.reshape(-1))
    return float_or_array(out.reshape(d.shape))


def _kov_inverse(e0: float, kk: int, base: float, flat: np.ndarray) -> np.ndarray:
    """Smallest ε ≥ 0 with :func:`_kov_profile` ≤ δ (see :func:`kov_epsilon`)."""
    tab = _KovTable.build(e0, kk)
    # need base + (1 - base) dh (1 + margin) <= delta; (1 - 4u) absorbs the rounding of
    # that expression in kov_delta
    with np.errstate(divide="ignore", invalid="ignore"):
        if base < 1:
            t = (flat - base) / ((1.0 - base) * (1.0 + tab.margin)) * (1.0 - 4 * EPS)
        else:
            t = np.where(flat >= 1, 1.0, -1.0)
    out = np.full(flat.shape, np.inf)
    ok = t >= 0
    out[flat >= 1.0] = 0.0
    todo = ok & (flat < 1.0)
    if todo.any():
        with np.errstate(divide="ignore"):
            lt = np.log(t[todo])
        kinks = tab.log_delta_at_kinks()  # non-increasing in i
        # first i with log delta(L_i) <= lt
        i = np.searchsorted(-kinks, -lt, side="left")
        i = np.minimum(i, kk)
        la = tab.log_a[i]
        lb = tab.log_b[i]
        with np.errstate(invalid="ignore", divide="ignore"):
            root = la + log1mexp(np.minimum(lt - la, 0.0)) - lb
        lo_end = np.where(i > 0, tab.loss[np.maximum(i - 1, 0)], -np.inf)
        root = np.where(np.isfinite(root), root, tab.loss[i])
        root = np.clip(root, lo_end, tab.loss[i])
        root = np.maximum(root, 0.0)
        # push up until the evaluated profile meets the target (float-level safety)
        step = np.maximum(np.abs(root), 1.0) * 4 * EPS
        for _ in range(200):
            bad = tab.log_delta_rr(root) > lt
            if not bad.any():
                break
            root = np.where(bad, root + step, root)
            step = np.where(bad, step * 2.0, step)
        out[todo] = root
    return np.maximum(out, 0.0)
