r"""Classical composition bounds, the optimal KOV composition and Rényi DP, side by side.

Theory of operation
-------------------
A k-fold composition of (ε, δ)-DP mechanisms has, in f-DP terms, the exact answer
:math:`f_{\varepsilon_1,\delta_1}\otimes\cdots\otimes f_{\varepsilon_k,\delta_k}` (DRS
Thm 3.2); the closed-form theorems below are the bounds a paper usually quotes instead, and
this module computes them so they can be put next to the exact tensor product:

* **basic**: :math:`(\sum\varepsilon_i, \sum\delta_i)`;
* **advanced** (Dwork–Rothblum–Vadhan 2010): :math:`\varepsilon' =
  \sqrt{2\ln(1/\delta')\sum\varepsilon_i^2} + \sum\varepsilon_i(e^{\varepsilon_i}-1)`,
  :math:`\delta = \sum\delta_i + \delta'` (the k-fold homogeneous form is
  :math:`\varepsilon\sqrt{2k\ln(1/\delta')} + k\varepsilon(e^\varepsilon-1)`);
* **Kairouz–Oh–Viswanath closed form** (KOV Thm 3.4/3.5): the minimum of
  :math:`\sum\varepsilon_i` and of :math:`\sum\varepsilon_i\tanh(\varepsilon_i/2) +
  \sqrt{2\sum\varepsilon_i^2\,\ln(\cdot)}` with :math:`\ln(1/\tilde\delta)` or
  :math:`\ln(e+\sqrt{\sum\varepsilon_i^2}/\tilde\delta)`, at
  :math:`\delta = 1-(1-\tilde\delta)\prod(1-\delta_i)`;
* **optimal KOV** (KOV Thm 3.3): for homogeneous :math:`(\varepsilon_0,\delta_0)` the exact
  privacy profile of :math:`f_{\varepsilon_0,\delta_0}^{\otimes k} =
  f_{\varepsilon_0,0}^{\otimes k} \otimes f_{0,1-(1-\delta_0)^k}`, from the binomial law of
  the privacy loss of randomized response (:func:`kov_delta`, :func:`kov_epsilon`);
* **Rényi DP** (Mironov 2017; Mironov–Talwar–Zhang 2019): closed forms per mechanism,
  addition under composition, conversion to (ε, δ) minimised over a set of orders.

:func:`compare` puts all of them, the GDP central limit theorem (an approximation) and the
exact tensor product (:func:`gdp.compose`, :func:`gdp.dpsgd`; sound, with its numeric bracket)
in one table; :func:`epsilon_vs_k` gives the same numbers along a list of k for plots.

Every function returns a sound value (an ε or δ never below what its theorem states); the
optimal KOV profile, computed in floating point, is rounded up by a relative margin that
covers its rounding error.

References
----------
DRV: C. Dwork, G. N. Rothblum, S. Vadhan, "Boosting and Differential Privacy", FOCS 2010,
Thm III.3 (Dwork–Roth, "The Algorithmic Foundations of DP", Thm 3.20).
KOV: P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy",
ICML 2015, Thm 3.3 (optimal), Thm 3.4 (homogeneous closed form), Thm 3.5 (heterogeneous).
I. Mironov, "Rényi Differential Privacy", CSF 2017, Prop. 1, 3, 5, 6 and Table II.
I. Mironov, K. Talwar, L. Zhang, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism", arXiv:1908.10530, 2019, Sec. 3.3.
C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential Privacy",
NeurIPS 2020, Prop. 12; B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato, "Hypothesis
Testing Interpretations and Rényi DP", AISTATS 2020, Thm 21 (the sharper conversion).
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 2022, Thm 3.4.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from ._numerics import log1mexp
from ._validation import as_probability_array, as_real_array, check_int, check_real
from .epsdelta import EpsDelta
from .gaussian import Gaussian, eps_from_mu
from .laplace import Laplace
from .tradeoff import Identity, TradeOff

__all__ = [
    "basic_composition",
    "advanced_composition",
    "advanced_epsilon",
    "advanced_delta",
    "kairouz_composition",
    "kairouz_epsilon",
    "kairouz_delta",
    "kov_delta",
    "kov_epsilon",
    "DEFAULT_ORDERS",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_sampled_gaussian",
    "rdp_of",
    "eps_from_rdp",
    "delta_from_rdp",
    "BoundRecord",
    "Comparison",
    "EpsilonCurves",
    "METHODS",
    "compare",
    "epsilon_vs_k",
]

_EPS = float(np.finfo(float).eps)


def _out(x: np.ndarray) -> Any:
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


# ---------------------------------------------------------------------------
# the mechanisms of a classical bound: per-mechanism (eps_i, delta_i) used k_i times
# ---------------------------------------------------------------------------
def _mechanisms(eps: Any, delta: Any, k: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate and broadcast per-mechanism ε_i ≥ 0, δ_i ∈ [0, 1] and counts k_i ≥ 0."""
    e = as_real_array("eps", eps, lo=0.0).reshape(-1)
    d = as_probability_array("delta", delta).reshape(-1)
    kk = np.asarray(k)
    if kk.ndim == 0:
        kk = np.array([check_int("k", k, lo=1)])
    else:
        kk = np.array([check_int("k", int(v) if float(v).is_integer() else v, lo=0)
                       for v in kk.reshape(-1)])
    try:
        e, d, kk = np.broadcast_arrays(e, d, kk)
    except ValueError:
        raise ValueError(f"`eps`, `delta` and `k` must broadcast to one length; got lengths "
                         f"{e.size}, {d.size} and {kk.size}") from None
    return e.astype(float), d.astype(float), kk.astype(float)


def _log_keep(d: np.ndarray, kk: np.ndarray) -> float:
    r""":math:`\log\prod_i(1-\delta_i)^{k_i}` (``-inf`` when some δ_i = 1)."""
    with np.errstate(divide="ignore"):
        return float(np.sum(kk * np.log1p(-d)))


def basic_composition(eps: Any, delta: Any = 0.0, k: Any = 1) -> tuple[float, float]:
    r"""Basic composition: :math:`k` uses of each :math:`(\varepsilon_i,\delta_i)`-DP mechanism
    give :math:`(\sum_i k_i\varepsilon_i,\ \sum_i k_i\delta_i)`-DP.

    Parameters
    ----------
    eps, delta : float or array_like
        The per-mechanism guarantees (broadcast against each other and ``k``).
    k : int or array_like of int
        How many times each mechanism is used.

    Returns
    -------
    (eps, delta) : tuple of float
        The total; δ is capped at 1.

    Notes
    -----
    Valid under adaptive composition. Its δ is slightly above the exact
    :math:`1-\prod(1-\delta_i)^{k_i}` of :math:`\bigotimes f_{\varepsilon_i,\delta_i}` at
    :math:`\varepsilon = \sum\varepsilon_i`.

    References
    ----------
    Dwork, Roth, "The Algorithmic Foundations of DP", Thm 3.16.

    Examples
    --------
    >>> import gdp
    >>> gdp.basic_composition([0.5, 0.25], [1e-6, 0.0], k=[2, 4])
    (2.0, 2e-06)
    """
    e, d, kk = _mechanisms(eps, delta, k)
    return float(np.sum(kk * e)), float(min(1.0, np.sum(kk * d)))


def advanced_composition(eps: Any, delta: Any, k: Any, delta_slack: float
                         ) -> tuple[float, float]:
    r"""Advanced composition (Dwork–Rothblum–Vadhan 2010) with slack :math:`\delta'`.

    .. math:: \varepsilon' = \sqrt{2\ln(1/\delta')\textstyle\sum_i k_i\varepsilon_i^2}
              + \textstyle\sum_i k_i\varepsilon_i(e^{\varepsilon_i}-1),\qquad
              \delta = \textstyle\sum_i k_i\delta_i + \delta'.

    For one mechanism used k times this is the textbook
    :math:`\varepsilon\sqrt{2k\ln(1/\delta')} + k\varepsilon(e^\varepsilon-1)`.

    Parameters
    ----------
    eps, delta, k
        As in :func:`basic_composition`.
    delta_slack : float
        :math:`\delta' \in (0, 1]`.

    Notes
    -----
    The heterogeneous form is implied by KOV Thm 3.5 (see :func:`kairouz_composition`),
    since :math:`\tanh(\varepsilon/2) \le e^\varepsilon - 1` and
    :math:`1-(1-\delta')\prod(1-\delta_i) \le \delta' + \sum\delta_i`. δ is capped at 1.

    References
    ----------
    DRV Thm III.3; Dwork, Roth, Thm 3.20.

    Examples
    --------
    >>> import gdp
    >>> e, d = gdp.advanced_composition(0.1, 1e-6, 100, 1e-5)
    >>> round(e, 6), round(d, 12)
    (5.850235, 0.00011)
    """
    e, d, kk = _mechanisms(eps, delta, k)
    ds = check_real("delta_slack", delta_slack, lo=0.0, hi=1.0, lo_open=True)
    s2 = float(np.sum(kk * e * e))
    drift = float(np.sum(kk * e * np.expm1(e)))
    return math.sqrt(2.0 * s2 * -math.log(ds)) + drift, min(1.0, float(np.sum(kk * d)) + ds)


def advanced_epsilon(eps: Any, delta: Any, k: Any, total_delta: Any) -> Any:
    r"""ε of advanced composition (DRV) at a target total δ (vectorised over ``total_delta``):
    the slack is :math:`\delta' = \delta_{\mathrm{total}} - \sum k_i\delta_i`.

    Returns ``inf`` where :math:`\delta_{\mathrm{total}} \le \sum k_i\delta_i` (no slack is
    left; unless every :math:`\varepsilon_i = 0`, when the answer is 0 at equality).

    Examples
    --------
    >>> import gdp
    >>> round(gdp.advanced_epsilon(0.1, 1e-6, 100, 1.1e-4), 6)
    5.850235
    """
    e, d, kk = _mechanisms(eps, delta, k)
    td = as_probability_array("total_delta", total_delta)
    s2 = float(np.sum(kk * e * e))
    drift = float(np.sum(kk * e * np.expm1(e)))
    used = float(np.sum(kk * d))
    # a slack at the rounding level of the sum is no slack (ε would come from noise)
    slack = np.where(td - used > 8 * _EPS * np.maximum(td, used), td - used, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.sqrt(2.0 * s2 * -np.log(np.where(slack > 0, slack, 1.0))) + drift
    out = np.where(slack > 0, val, np.inf)
    if s2 == 0.0:
        out = np.where(td >= used, drift, np.inf)
    return _out(out)


def advanced_delta(eps: Any, delta: Any, k: Any, total_eps: Any) -> Any:
    r"""δ of advanced composition (DRV) at a target total ε (vectorised over ``total_eps``).

    Solving :math:`\varepsilon = \sqrt{2\ln(1/\delta')S} + A` for the slack gives
    :math:`\delta' = \exp(-(\varepsilon - A)^2/(2S))` when :math:`\varepsilon > A`
    (:math:`S=\sum k_i\varepsilon_i^2`, :math:`A=\sum k_i\varepsilon_i(e^{\varepsilon_i}-1)`),
    and 1 otherwise; the answer is :math:`\min(1, \sum k_i\delta_i + \delta')`.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.advanced_delta(0.1, 1e-6, 100, 5.850235), 8)
    0.00011
    """
    e, d, kk = _mechanisms(eps, delta, k)
    te = as_real_array("total_eps", total_eps, lo=0.0, finite=False)
    s2 = float(np.sum(kk * e * e))
    drift = float(np.sum(kk * e * np.expm1(e)))
    gap = te - drift
    if s2 == 0.0:
        slack = np.where(gap >= 0, 0.0, 1.0)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            slack = np.where(gap > 0, np.exp(-np.square(np.maximum(gap, 0.0)) / (2 * s2)), 1.0)
        slack = np.where(np.isposinf(te), 0.0, slack)
    return _out(np.minimum(1.0, float(np.sum(kk * d)) + slack))


def _kairouz_eps(e: np.ndarray, kk: np.ndarray, dt: np.ndarray) -> np.ndarray:
    """KOV Thm 3.5 ε̃ at slack δ̃ (array, δ̃ in [0, 1])."""
    total = float(np.sum(kk * e))
    s2 = float(np.sum(kk * e * e))
    drift = float(np.sum(kk * e * np.tanh(e / 2.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        pos = dt > 0
        safe = np.where(pos, dt, 1.0)
        b3 = drift + np.sqrt(2.0 * s2 * -np.log(safe))
        b2 = drift + np.sqrt(2.0 * s2 * np.log(math.e + math.sqrt(s2) / safe))
    out = np.where(pos, np.minimum(total, np.minimum(b2, b3)), total)
    return out


def kairouz_composition(eps: Any, delta: Any, k: Any, delta_slack: float
                        ) -> tuple[float, float]:
    r"""The Kairouz–Oh–Viswanath closed-form composition bound with slack :math:`\tilde\delta`.

    .. math:: \tilde\varepsilon = \min\Big\{\textstyle\sum_i \varepsilon_i,\
              A + \sqrt{2S\ln\big(e + \sqrt{S}/\tilde\delta\big)},\
              A + \sqrt{2S\ln(1/\tilde\delta)}\Big\},\qquad
              \delta = 1 - (1-\tilde\delta)\textstyle\prod_i(1-\delta_i)

    with :math:`A = \sum_i \varepsilon_i\frac{e^{\varepsilon_i}-1}{e^{\varepsilon_i}+1}` and
    :math:`S = \sum_i\varepsilon_i^2` (sums and products over all :math:`\sum k_i` uses).

    Parameters
    ----------
    eps, delta, k
        As in :func:`basic_composition`.
    delta_slack : float
        :math:`\tilde\delta \in [0, 1]` (at 0 only the first term applies).

    References
    ----------
    KOV Thm 3.4 (homogeneous) and Thm 3.5 (heterogeneous).

    Examples
    --------
    >>> import gdp
    >>> e, d = gdp.kairouz_composition(0.1, 1e-6, 100, 1e-5)
    >>> round(e, 6), round(d, 12)
    (5.29811, 0.00010999405)
    """
    e, d, kk = _mechanisms(eps, delta, k)
    ds = check_real("delta_slack", delta_slack, lo=0.0, hi=1.0)
    eps_t = float(_kairouz_eps(e, kk, np.array([ds]))[0])
    keep = _log_keep(d, kk)
    return eps_t, float(min(1.0, -math.expm1(math.log1p(-ds) + keep) if ds < 1 else 1.0))


def kairouz_epsilon(eps: Any, delta: Any, k: Any, total_delta: Any) -> Any:
    r"""ε of the KOV closed form (:func:`kairouz_composition`) at a target total δ
    (vectorised): :math:`\tilde\delta = 1 - (1-\delta_{\mathrm{total}})/\prod(1-\delta_i)`.

    ``inf`` where :math:`\delta_{\mathrm{total}} < 1 - \prod(1-\delta_i)^{k_i}`.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.kairouz_epsilon(0.1, 0.0, 100, 1e-5), 6)
    5.29811
    """
    e, d, kk = _mechanisms(eps, delta, k)
    td = as_probability_array("total_delta", total_delta)
    keep = _log_keep(d, kk)
    with np.errstate(divide="ignore", invalid="ignore"):
        dt = -np.expm1(np.log1p(-td) - keep) if np.isfinite(keep) else np.full(td.shape, -1.0)
    dt = np.where(td >= 1.0, 1.0, dt)
    # a slack at the rounding level is no slack: then only an exact fit of the δ_i is allowed
    dt = np.where(np.abs(dt) <= 16 * _EPS * np.maximum(td, 1e-300), -1.0, dt)
    flat = np.minimum(np.reshape(dt, -1), 1.0)
    res = _kairouz_eps(e, kk, np.maximum(flat, 0.0))
    res = np.where(flat < 0, np.inf, res)
    return _out(res.reshape(np.shape(td)))


def kairouz_delta(eps: Any, delta: Any, k: Any, total_eps: Any) -> Any:
    r"""δ of the KOV closed form at a target total ε (vectorised over ``total_eps``).

    The smallest slack :math:`\tilde\delta` for which one of the three expressions is
    :math:`\le \varepsilon`: 0 if :math:`\varepsilon \ge \sum\varepsilon_i`; else
    :math:`e^{-(\varepsilon-A)^2/(2S)}` and :math:`\sqrt S/(e^{(\varepsilon-A)^2/(2S)} - e)`
    (when positive); the total is :math:`1-(1-\tilde\delta)\prod(1-\delta_i)`.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.kairouz_delta(0.1, 0.0, 100, 5.29811), 9)
    1e-05
    """
    e, d, kk = _mechanisms(eps, delta, k)
    te = as_real_array("total_eps", total_eps, lo=0.0, finite=False)
    total = float(np.sum(kk * e))
    s2 = float(np.sum(kk * e * e))
    drift = float(np.sum(kk * e * np.tanh(e / 2.0)))
    gap = np.maximum(te - drift, 0.0)
    if s2 > 0:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            z = np.square(gap) / (2.0 * s2)
            d3 = np.exp(-z)
            den = np.expm1(z) - (math.e - 1.0)  # e^z - e
            d2 = np.where(den > 0, math.sqrt(s2) / np.where(den > 0, den, 1.0), 1.0)
        slack = np.where(te > drift, np.minimum(d2, d3), 1.0)
    else:
        slack = np.where(te >= drift, 0.0, 1.0)
    slack = np.where(te >= total, 0.0, np.minimum(slack, 1.0))
    keep = _log_keep(d, kk)
    with np.errstate(divide="ignore"):
        res = -np.expm1(np.log1p(-slack) + keep)
    return _out(np.clip(np.where(slack >= 1, 1.0, res), 0.0, 1.0))


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
        margin = 1e-12 + 16.0 * _EPS * scale
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
    return min(1.0, -math.expm1(k * math.log1p(-d0)) * (1.0 + 8 * _EPS))


def _kov_args(eps0: Any, delta0: Any, k: Any) -> tuple[float, float, int]:
    e0 = check_real("eps0", eps0, lo=0.0)
    d0 = check_real("delta0", delta0, lo=0.0, hi=1.0)
    kk = check_int("k", k, lo=1)
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
    tab = _KovTable.build(e0, kk)
    flat = e.reshape(-1)
    ld = tab.log_delta_rr(flat)
    base = _kov_base(d0, kk)
    out = np.minimum(1.0, base + (1.0 - base) * (np.exp(ld) * (1.0 + tab.margin)))
    return _out(out.reshape(e.shape))


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
    flat = d.reshape(-1)
    tab = _KovTable.build(e0, kk)
    base = _kov_base(d0, kk)
    # need base + (1 - base) dh (1 + margin) <= delta; (1 - 4u) absorbs the rounding of
    # that expression in kov_delta
    with np.errstate(divide="ignore", invalid="ignore"):
        if base < 1:
            t = (flat - base) / ((1.0 - base) * (1.0 + tab.margin)) * (1.0 - 4 * _EPS)
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
        step = np.maximum(np.abs(root), 1.0) * 4 * _EPS
        for _ in range(200):
            bad = tab.log_delta_rr(root) > lt
            if not bad.any():
                break
            root = np.where(bad, root + step, root)
            step = np.where(bad, step * 2.0, step)
        out[todo] = root
    return _out(np.maximum(out, 0.0).reshape(d.shape))


# ---------------------------------------------------------------------------
# Rényi differential privacy
# ---------------------------------------------------------------------------
DEFAULT_ORDERS: np.ndarray = np.concatenate(
    [np.arange(2, 257), [320, 384, 448, 512, 640, 768, 1024, 1536, 2048, 4096]]
).astype(float)
DEFAULT_ORDERS.setflags(write=False)


def _orders(orders: Any, *, integer: bool = False) -> np.ndarray:
    if orders is None:
        return np.array(DEFAULT_ORDERS)
    o = as_real_array("orders", orders, lo=1.0, lo_open=True).reshape(-1)
    if o.size == 0:
        raise ValueError("`orders` must hold at least one order; got an empty array")
    if integer and np.any(o != np.round(o)):
        bad = o[o != np.round(o)][0]
        raise ValueError("`orders` must be integers >= 2 for this formula; got "
                         f"orders={float(bad)!r}")
    return o


def rdp_gaussian(mu: float, orders: Any = None) -> np.ndarray:
    r"""RDP of :math:`G_\mu` (the Gaussian mechanism with sensitivity/σ = μ):
    :math:`\varepsilon(\lambda) = \lambda\mu^2/2`.

    References
    ----------
    Mironov 2017, Prop. 7 / Table II.

    Examples
    --------
    >>> import gdp
    >>> gdp.rdp_gaussian(1.0, [2, 3]).tolist()
    [1.0, 1.5]
    """
    m = check_real("mu", mu, lo=0.0, finite=False)
    o = _orders(orders)
    with np.errstate(invalid="ignore"):
        return np.where(m == 0, 0.0, o * m * m / 2.0)


def rdp_laplace(mu: float, orders: Any = None) -> np.ndarray:
    r"""RDP of the Laplace trade-off :math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`.

    .. math:: \varepsilon(\lambda) = \frac{1}{\lambda-1}\log\Big(\frac{\lambda}{2\lambda-1}
              e^{(\lambda-1)\mu} + \frac{\lambda-1}{2\lambda-1}e^{-\lambda\mu}\Big)

    References
    ----------
    Mironov 2017, Prop. 6 / Table II (scale 1/μ).

    Examples
    --------
    >>> import gdp
    >>> round(float(gdp.rdp_laplace(1.0, [2])[0]), 6)
    0.619124
    """
    m = check_real("mu", mu, lo=0.0)
    o = _orders(orders)
    a = np.log(o / (2 * o - 1)) + (o - 1) * m
    b = np.log((o - 1) / (2 * o - 1)) - o * m
    return np.maximum(np.logaddexp(a, b) / (o - 1), 0.0)


def rdp_randomized_response(eps: float, orders: Any = None) -> np.ndarray:
    r"""RDP of :math:`f_{\varepsilon,0}` (randomized response with
    :math:`p = e^\varepsilon/(1+e^\varepsilon)`).

    .. math:: \varepsilon(\lambda) = \frac{1}{\lambda-1}\log\big(p^\lambda(1-p)^{1-\lambda}
              + (1-p)^\lambda p^{1-\lambda}\big)

    References
    ----------
    Mironov 2017, Table II.

    Examples
    --------
    >>> import gdp
    >>> round(float(gdp.rdp_randomized_response(1.0, [2])[0]), 6)
    0.735326
    """
    e = check_real("eps", eps, lo=0.0)
    o = _orders(orders)
    lp = -np.logaddexp(0.0, -e)  # log p
    lq = -np.logaddexp(0.0, e)  # log(1 - p)
    a = o * lp + (1 - o) * lq
    b = o * lq + (1 - o) * lp
    return np.maximum(np.logaddexp(a, b) / (o - 1), 0.0)


def rdp_sampled_gaussian(sigma: float, p: float, orders: Any = None) -> np.ndarray:
    r"""RDP of one step of the Poisson-subsampled Gaussian mechanism (DP-SGD; noise
    multiplier σ, sampling rate p, add/remove neighbours) at integer orders λ ≥ 2.

    .. math:: \varepsilon(\lambda) = \frac{1}{\lambda-1}\log\sum_{j=0}^{\lambda}
              \binom{\lambda}{j}(1-p)^{\lambda-j}p^{j}\,e^{(j^2-j)/(2\sigma^2)}

    Notes
    -----
    Evaluated in log space as :math:`\log(1 + \sum_{j\ge2}\binom{\lambda}{j}(1-p)^{\lambda-j}
    p^j(e^{(j^2-j)/(2\sigma^2)}-1))` (the binomial weights sum to one, so only positive
    terms remain and tiny values keep their relative accuracy). This is
    :math:`D_\lambda((1-p)N(0,\sigma^2)+pN(1,\sigma^2)\,\|\,N(0,\sigma^2))`, which MTZ show
    dominates the other order of the neighbours. ``p = 1`` gives the Gaussian
    :math:`\lambda/(2\sigma^2)`, ``p = 0`` gives 0. Non-integer orders raise ``ValueError``.

    References
    ----------
    Mironov, Talwar, Zhang 2019, Sec. 3.3 (Theorem 5 for the order of neighbours).

    Examples
    --------
    >>> import gdp
    >>> round(float(gdp.rdp_sampled_gaussian(1.0, 0.01, [2])[0]), 10)
    0.0001718134
    """
    s = check_real("sigma", sigma, lo=0.0, lo_open=True)
    q = check_real("p", p, lo=0.0, hi=1.0)
    o = _orders(orders, integer=True)
    lam = o.astype(np.int64)
    log_fact = special.gammaln(np.arange(1.0, lam.max() + 2.0))  # log n!
    out = np.empty(o.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for n, m in enumerate(lam):
            # A - 1 = sum_{j>=2} Bin(m, p)(j) (e^{c_j} - 1), c_j = (j^2 - j)/(2 sigma^2):
            # positive terms only, so log A = log1p(A - 1) keeps tiny RDP values accurate
            j = np.arange(2, m + 1, dtype=float)
            c = (j * j - j) / (2.0 * s * s)
            terms = (log_fact[m] - log_fact[2: m + 1] - log_fact[m - 2::-1]
                     + special.xlog1py(m - j, -q) + special.xlogy(j, q)
                     + c + log1mexp(-c))
            top = terms.max()
            if np.isneginf(top):
                out[n] = 0.0
                continue
            log_a_minus_1 = top + math.log(np.sum(np.exp(terms - top)))
            out[n] = np.logaddexp(0.0, log_a_minus_1) / (m - 1.0)
    return np.maximum(out, 0.0)


def _rdp_atoms(loss: np.ndarray, p: np.ndarray, q: np.ndarray, o: np.ndarray) -> np.ndarray:
    r""":math:`D_\lambda(Q\|P) = \frac{1}{\lambda-1}\log\sum q^\lambda p^{1-\lambda}` of an
    atomic pair (``inf`` when Q has mass where P has none)."""
    keep = q > 0
    if np.any(keep & (p <= 0)):
        return np.full(o.shape, np.inf)
    lq = np.log(q[keep])
    lp = np.log(p[keep])
    terms = o[:, None] * lq[None, :] + (1.0 - o[:, None]) * lp[None, :]
    return np.maximum(special.logsumexp(terms, axis=1) / (o - 1.0), 0.0)


def rdp_of(f: TradeOff, orders: Any = None) -> np.ndarray:
    r"""RDP curve :math:`\lambda \mapsto \varepsilon(\lambda)` of an f-DP mechanism, when it
    has a closed form.

    Gaussian (:func:`rdp_gaussian`), Laplace (:func:`rdp_laplace`), :math:`f_{\varepsilon,0}`
    (:func:`rdp_randomized_response`), the identity (0), :math:`f_{\varepsilon,\delta}` with
    δ > 0 (``inf``: Q has an atom where P has none) and any atomic curve (e.g.
    :func:`gdp.from_distributions` of two pmfs, :func:`gdp.from_curve`), for which it is
    :math:`\min\{D_\lambda(Q\|P), D_\lambda(P\|Q)\}` (an f-DP mechanism is also
    :math:`f^{-1}`-DP, and Rényi divergences only shrink under post-processing).

    Raises ``TypeError`` for other curves (e.g. numeric compositions), which have no
    closed-form RDP.

    Examples
    --------
    >>> import gdp
    >>> gdp.rdp_of(gdp.G_mu(2.0), [2, 4]).tolist()
    [4.0, 8.0]
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"`f` must be a TradeOff; got f={f!r}")
    o = _orders(orders)
    if isinstance(f, Identity):
        return np.zeros(o.shape)
    if isinstance(f, Gaussian):
        return rdp_gaussian(f.mu, o)
    if isinstance(f, Laplace):
        if math.isinf(f.mu):
            return np.full(o.shape, np.inf)
        return rdp_laplace(f.mu, o)
    if isinstance(f, EpsDelta):
        if f.delta_ > 0 or math.isinf(f.eps):
            return np.full(o.shape, np.inf)
        return rdp_randomized_response(f.eps, o)
    atoms = f._atoms()
    if atoms is not None:
        loss, p, q = (np.asarray(a, dtype=float) for a in atoms)
        fwd = _rdp_atoms(loss, p, q, o)
        if f.is_symmetric:
            return fwd
        return np.minimum(fwd, _rdp_atoms(-loss, q, p, o))
    raise TypeError(f"`f` has no closed-form Rényi DP curve; got a {type(f).__name__} "
                    f"(supported: Gaussian, Laplace, f_eps_delta, identity, atomic curves)")


def _rdp_args(rdp: Any, orders: Any) -> tuple[np.ndarray, np.ndarray]:
    o = _orders(orders)
    r = as_real_array("rdp", rdp, lo=0.0, finite=False).reshape(-1)
    if r.size != o.size:
        raise ValueError(f"`rdp` must have one value per order; got {r.size} values for "
                         f"{o.size} orders")
    return r, o


_CONVERSIONS = ("sharp", "classical")


def _check_conversion(conversion: str) -> str:
    if conversion not in _CONVERSIONS:
        raise ValueError(f"`conversion` must be one of {_CONVERSIONS}; got "
                         f"conversion={conversion!r}")
    return conversion


def eps_from_rdp(rdp: Any, delta: Any, orders: Any = None, *,
                 conversion: str = "sharp") -> Any:
    r"""(ε, δ) from an RDP curve: the smallest ε over the orders (vectorised over δ).

    .. math:: \varepsilon = \min_\lambda\Big[\varepsilon(\lambda) + \log\frac{\lambda-1}{\lambda}
              - \frac{\log\delta + \log\lambda}{\lambda-1}\Big]
              \quad(\text{"sharp"}),\qquad
              \varepsilon = \min_\lambda\Big[\varepsilon(\lambda) + \frac{\log(1/\delta)}
              {\lambda-1}\Big]\quad(\text{"classical"}).

    Parameters
    ----------
    rdp : array_like
        ε(λ) at each order (≥ 0, ``inf`` allowed), e.g. a sum of per-mechanism curves.
    delta : float or array_like
        Target δ ∈ [0, 1].
    orders : array_like, optional
        The orders λ > 1 (default :data:`DEFAULT_ORDERS`).
    conversion : {"sharp", "classical"}
        The sharp one also returns 0 when :math:`\delta \ge \sqrt{1-e^{-\varepsilon(\lambda)}}`
        for some order (Bretagnolle–Huber: TV ≤ :math:`\sqrt{1-e^{-\mathrm{KL}}}`, and
        KL ≤ :math:`D_\lambda`).

    Notes
    -----
    ``delta = 0`` gives ``inf`` (0 if the curve is 0). Never negative.

    References
    ----------
    Mironov 2017, Prop. 3 (classical); Canonne, Kamath, Steinke 2020, Prop. 12, and
    Balle et al. 2020, Thm 21 (sharp).

    Examples
    --------
    >>> import gdp
    >>> r = gdp.rdp_gaussian(1.0)
    >>> round(gdp.eps_from_rdp(r, 1e-5), 6), round(gdp.eps_from_rdp(r, 1e-5,
    ...     conversion="classical"), 6)
    (4.752728, 5.302585)
    """
    r, o = _rdp_args(rdp, orders)
    _check_conversion(conversion)
    d = as_probability_array("delta", delta)
    flat = d.reshape(-1)
    out = np.full(flat.shape, np.inf)
    all_zero = bool(np.all(r == 0))
    for n, dl in enumerate(flat):
        if dl >= 1 or all_zero:
            out[n] = 0.0
            continue
        if dl == 0:
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            if conversion == "sharp":
                cand = r + np.log1p(-1.0 / o) - (math.log(dl) + np.log(o)) / (o - 1.0)
                bh = dl * dl + np.expm1(-r) >= 0  # TV <= sqrt(1 - exp(-KL)) <= delta
                if np.any(bh):
                    out[n] = 0.0
                    continue
            else:
                cand = r - math.log(dl) / (o - 1.0)
        cand = np.where(np.isnan(cand), np.inf, cand)
        out[n] = max(0.0, float(np.min(cand)))
    return _out(out.reshape(d.shape))


def delta_from_rdp(rdp: Any, eps: Any, orders: Any = None, *,
                   conversion: str = "sharp") -> Any:
    r"""δ at a given ε from an RDP curve: the smallest bound over the orders (vectorised).

    .. math:: \log\delta = \min_\lambda\Big[(\lambda-1)\big(\varepsilon(\lambda)-\varepsilon
              + \log(1-1/\lambda)\big) - \log\lambda\Big]\quad(\text{"sharp"}),\qquad
              \log\delta = \min_\lambda(\lambda-1)(\varepsilon(\lambda)-\varepsilon)
              \quad(\text{"classical"}),

    the sharp one also bounded by :math:`\sqrt{1-e^{-\varepsilon(\lambda)}}`; capped at 1.

    Examples
    --------
    >>> import gdp
    >>> r = gdp.rdp_gaussian(1.0)
    >>> round(gdp.delta_from_rdp(r, 4.752728) * 1e5, 4)
    1.0
    """
    r, o = _rdp_args(rdp, orders)
    _check_conversion(conversion)
    e = as_real_array("eps", eps, lo=0.0, finite=False)
    flat = e.reshape(-1)
    out = np.ones(flat.shape)
    for n, ev in enumerate(flat):
        if np.isposinf(ev):
            out[n] = 0.0 if np.all(np.isfinite(r)) else 1.0
            continue
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if conversion == "sharp":
                cand = (o - 1.0) * (r - ev + np.log1p(-1.0 / o)) - np.log(o)
                bh = 0.5 * np.log(-np.expm1(-r))
                cand = np.minimum(cand, bh)
            else:
                cand = (o - 1.0) * (r - ev)
        cand = np.where(np.isnan(cand), np.inf, cand)
        out[n] = min(1.0, math.exp(min(0.0, float(np.min(cand)))))
    return _out(out.reshape(e.shape))


# ---------------------------------------------------------------------------
# comparison table
# ---------------------------------------------------------------------------
#: The methods of :func:`compare`, in table order, with their labels.
METHODS: dict[str, str] = {
    "basic": "Basic composition",
    "advanced": "Advanced (DRV 2010)",
    "kairouz": "Advanced (KOV 2015, closed form)",
    "kov": "Optimal (KOV 2015, Thm 3.3)",
    "rdp": "RDP (integer orders)",
    "clt": "GDP CLT",
    "exact": "Exact tensor product",
}

_KINDS = ("bound", "exact", "approximation", "skipped")


@dataclass(frozen=True, slots=True)
class BoundRecord:
    r"""One row of a composition comparison.

    Attributes
    ----------
    method : str
        Key of :data:`METHODS` (``"basic"``, ``"advanced"``, ``"kairouz"``, ``"kov"``,
        ``"rdp"``, ``"clt"``, ``"exact"``).
    kind : str
        ``"bound"`` (a valid guarantee), ``"exact"`` (the true value, or a sound numeric
        bracket of it), ``"approximation"`` (not a guarantee: may under-state ε) or
        ``"skipped"`` (the method does not apply; see ``notes``).
    epsilon, delta : float or None
        The (ε, δ) pair; the one named by ``solved`` was computed, the other was given.
        ``None`` for the computed one when skipped.
    solved : str
        ``"epsilon"`` (ε at the given δ) or ``"delta"`` (δ at the given ε).
    k : int
        Total number of mechanisms composed.
    interval : tuple of float or None
        ``(lower, upper)`` bracket of the computed value when known (numeric tensor product).
    notes : str
        How the row was computed, or why it was skipped.
    """

    method: str
    kind: str
    epsilon: float | None
    delta: float | None
    solved: str
    k: int
    interval: tuple[float, float] | None = None
    notes: str = ""

    @property
    def label(self) -> str:
        """Human-readable method name."""
        return METHODS.get(self.method, self.method)

    @property
    def value(self) -> float | None:
        """The computed number (ε or δ, per ``solved``)."""
        return self.epsilon if self.solved == "epsilon" else self.delta

    def as_dict(self) -> dict[str, Any]:
        """The record as a plain dict (also has ``"label"``)."""
        return {"method": self.method, "label": self.label, "kind": self.kind,
                "epsilon": self.epsilon, "delta": self.delta, "solved": self.solved,
                "k": self.k, "interval": self.interval, "notes": self.notes}


def _fmt(x: float | None, digits: int) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{digits}g}"


def _latex_num(x: float | None, digits: int) -> str:
    if x is None:
        return "--"
    if math.isinf(x):
        return r"$\infty$"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}g}"
    m, ex = f"{x:.{digits - 1}e}".split("e")
    m = m.rstrip("0").rstrip(".")
    ex_i = int(ex)
    return f"${m} \\times 10^{{{ex_i}}}$" if m != "1" else f"$10^{{{ex_i}}}$"


def _latex_escape(s: str) -> str:
    rep = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
           "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
           "^": r"\textasciicircum{}"}
    return "".join(rep.get(c, c) for c in s)


@dataclass(frozen=True, slots=True)
class Comparison:
    r"""The result of :func:`compare`: a tuple of :class:`BoundRecord` plus a description.

    Iterate over it, index it by position or method key (``c["rdp"]``, the first row of
    that method), or format it: :meth:`to_text` (aligned columns, also ``str(c)``),
    :meth:`to_markdown`, :meth:`to_latex` (a ``booktabs`` tabular), :meth:`to_records`
    (plain dicts, what :func:`gdp.plot.compare` reads).
    """

    records: tuple[BoundRecord, ...]
    description: str = ""

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, key: int | str) -> BoundRecord:
        if isinstance(key, str):
            for r in self.records:
                if r.method == key:
                    return r
            raise KeyError(f"no record for method {key!r}; methods: "
                           f"{[r.method for r in self.records]}")
        return self.records[key]

    def to_records(self) -> list[dict[str, Any]]:
        """The rows as plain dicts (keys as :meth:`BoundRecord.as_dict`)."""
        return [r.as_dict() for r in self.records]

    def _rows(self, digits: int, num: Callable[[float | None, int], str]) -> list[list[str]]:
        rows = []
        for r in self.records:
            iv = "" if r.interval is None else \
                f"[{num(r.interval[0], digits)}, {num(r.interval[1], digits)}]"
            rows.append([r.label, r.kind, num(r.epsilon, digits), num(r.delta, digits), iv,
                         r.notes])
        return rows

    def to_text(self, digits: int = 5) -> str:
        """An aligned plain-text table (``digits`` significant digits)."""
        head = ["method", "kind", "epsilon", "delta", "bracket", "notes"]
        rows = self._rows(digits, _fmt)
        widths = [max(len(head[c]), *(len(r[c]) for r in rows)) if rows else len(head[c])
                  for c in range(len(head))]
        lines = []
        if self.description:
            lines.append(self.description)
        fmt_row = lambda row: "  ".join(  # noqa: E731
            (v.rjust(w) if c in (2, 3) else v.ljust(w)) for c, (v, w) in
            enumerate(zip(row, widths, strict=True))).rstrip()
        lines.append(fmt_row(head))
        lines.append("  ".join("-" * w for w in widths))
        lines.extend(fmt_row(r) for r in rows)
        return "\n".join(lines)

    def to_markdown(self, digits: int = 5) -> str:
        """A GitHub-flavoured Markdown table."""
        head = ["Method", "Kind", "ε", "δ", "Bracket", "Notes"]
        out = ["| " + " | ".join(head) + " |", "|" + "|".join(
            ["---", "---", "---:", "---:", "---", "---"]) + "|"]
        for row in self._rows(digits, _fmt):
            out.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
        return "\n".join(out)

    def to_latex(self, digits: int = 4, *, notes: bool = True) -> str:
        r"""A LaTeX ``tabular`` (needs ``\usepackage{booktabs}``); numbers in math mode."""
        cols = "llrrl" + ("l" if notes else "")
        head = [r"Method", r"Kind", r"$\varepsilon$", r"$\delta$", r"Bracket"]
        if notes:
            head.append("Notes")
        lines = [rf"\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(head) + r" \\",
                 r"\midrule"]
        for r in self.records:
            iv = "" if r.interval is None else \
                f"[{_latex_num(r.interval[0], digits)}, {_latex_num(r.interval[1], digits)}]"
            cells = [_latex_escape(r.label), r.kind, _latex_num(r.epsilon, digits),
                     _latex_num(r.delta, digits), iv]
            if notes:
                cells.append(_latex_escape(r.notes))
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_markdown_(self) -> str:  # Jupyter
        return (f"*{self.description}*\n\n" if self.description else "") + self.to_markdown()


# ---------------------------------------------------------------------------
# what is being composed
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Group:
    """``count`` uses of one mechanism."""

    f: TradeOff | None  # the per-use curve (None: DP-SGD step without the numeric engine)
    count: int
    label: str
    sgd: tuple[float, float] | None = None  # (sigma, p) for a DP-SGD step

    @property
    def fixed(self) -> tuple[float, float] | None:
        """(ε, δ) when the mechanism is described by one pair (f_eps_delta, identity)."""
        if isinstance(self.f, EpsDelta):
            return self.f.eps, self.f.delta_
        if isinstance(self.f, Identity):
            return 0.0, 0.0
        return None


def _engine(name: str, purpose: str) -> Any:
    """A public function of the numeric engine (``gdp.compose``, ``gdp.dpsgd``, ``gdp.clt``,
    ``gdp.noisy_sgd_mu``), imported lazily: those modules sit beside this one."""
    pkg = importlib.import_module(__package__ or "gdp")
    fn = getattr(pkg, name, None)
    if fn is None:
        raise NotImplementedError(f"gdp.{name} is not available in this installation; it is "
                                  f"needed for {purpose}")
    return fn


def _dpsgd_args(spec: Any) -> tuple[float, float, int]:
    if not isinstance(spec, Mapping):
        raise TypeError(f"`dpsgd` must be a mapping with keys sigma, p, steps; got "
                        f"dpsgd={spec!r}")
    extra = set(spec) - {"sigma", "p", "steps"}
    missing = {"sigma", "p", "steps"} - set(spec)
    if extra or missing:
        raise ValueError(f"`dpsgd` must have exactly the keys sigma, p and steps; got keys "
                         f"{sorted(spec)}")
    sigma = check_real("sigma", spec["sigma"], lo=0.0, lo_open=True)
    p = check_real("p", spec["p"], lo=0.0, hi=1.0, lo_open=True)
    steps = check_int("steps", spec["steps"], lo=1)
    return sigma, p, steps


def _dpsgd_step(sigma: float, p: float) -> TradeOff | None:
    try:
        dpsgd = _engine("dpsgd", "DP-SGD curves")
    except NotImplementedError:
        return None
    return dpsgd(sigma=sigma, p=p, steps=1)


def _phases(dpsgd: Any) -> list[tuple[float, float, int]]:
    """``dpsgd=`` as a list of validated phases (sigma, p, steps)."""
    if isinstance(dpsgd, Mapping):
        return [_dpsgd_args(dpsgd)]
    if isinstance(dpsgd, str | bytes) or not isinstance(dpsgd, Iterable):
        raise TypeError(f"`dpsgd` must be a mapping with keys sigma, p, steps (or a list of "
                        f"them, one per phase); got dpsgd={dpsgd!r}")
    phases = [_dpsgd_args(ph) for ph in dpsgd]
    if not phases:
        raise ValueError("`dpsgd` must hold at least one phase; got an empty list")
    return phases


def _groups(mechanisms: Any, k: Any, dpsgd: Any, need_step: bool) -> list[_Group]:
    if dpsgd is not None:
        if mechanisms is not None:
            raise TypeError("pass either `mechanisms` or `dpsgd`, not both")
        mult = 1 if k is None else check_int("k", k, lo=1)
        groups = []
        for sigma, p, steps in _phases(dpsgd):
            for n, g in enumerate(groups):  # phases with equal (sigma, p) merge
                if g.sgd == (sigma, p):
                    groups[n] = _Group(f=g.f, count=g.count + steps * mult, label=g.label,
                                       sgd=g.sgd)
                    break
            else:
                step = _dpsgd_step(sigma, p) if need_step else None
                groups.append(_Group(f=step, count=steps * mult, sgd=(sigma, p),
                                     label=f"DP-SGD step (sigma={sigma:g}, p={p:g})"))
        return groups
    if mechanisms is None:
        raise TypeError("`mechanisms` (a TradeOff, or a list of TradeOffs or (TradeOff, "
                        "count) pairs) or `dpsgd` (a dict with sigma, p, steps) is required")
    mult = 1 if k is None else check_int("k", k, lo=1)
    items = [mechanisms] if isinstance(mechanisms, TradeOff) else mechanisms
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise TypeError(f"`mechanisms` must be a TradeOff or a list of TradeOffs / (TradeOff, "
                        f"count) pairs; got {type(mechanisms).__name__}")
    groups: list[_Group] = []
    for n, item in enumerate(items):
        if isinstance(item, TradeOff):
            f, c = item, 1
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], TradeOff):
            f, c = item[0], check_int(f"mechanisms[{n}] count", item[1], lo=1)
        else:
            raise TypeError(f"`mechanisms[{n}]` must be a TradeOff or a (TradeOff, count) pair; "
                            f"got {item!r}")
        for g_i, g in enumerate(groups):
            if type(g.f) is type(f) and _same(g.f, f):
                groups[g_i] = _Group(f=g.f, count=g.count + c * mult, label=g.label)
                break
        else:
            groups.append(_Group(f=f, count=c * mult, label=_describe(f)))
    if not groups:
        raise ValueError("`mechanisms` must hold at least one mechanism; got an empty list")
    return groups


def _same(a: TradeOff, b: TradeOff) -> bool:
    """Equal closed-form families (dataclass equality); identity for everything else."""
    if isinstance(a, Gaussian | Laplace | EpsDelta | Identity):
        return a == b
    return a is b


def _describe(f: TradeOff) -> str:
    r = repr(f)
    return r if len(r) <= 60 else type(f).__name__


# ---------------------------------------------------------------------------
# per-method computations
# ---------------------------------------------------------------------------
def _grid_min(fun: Callable[[np.ndarray], np.ndarray], lo: float, hi: float, *,
              n: int = 41, rounds: int = 2) -> float:
    """Minimum of ``fun`` over a geometric grid on [lo, hi], refined around the best point.

    Every evaluated point is a valid bound, so the minimum is one too (grid search only
    affects tightness, never soundness)."""
    best = math.inf
    a, b = lo, hi
    for _ in range(rounds + 1):
        x = np.geomspace(a, b, n)
        v = np.asarray(fun(x), dtype=float)
        v = np.where(np.isnan(v), np.inf, v)
        i = int(np.argmin(v))
        best = min(best, float(v[i]))
        a = x[max(i - 1, 0)]
        b = x[min(i + 1, n - 1)]
        if not math.isfinite(best) or a >= b:
            break
    return best


class _Skip(Exception):
    """A method does not apply; the message is the note."""


def _split(groups: list[_Group]) -> tuple[list[_Group], list[_Group]]:
    fixed = [g for g in groups if g.fixed is not None]
    free = [g for g in groups if g.fixed is None]
    for g in free:
        if g.f is None:
            raise _Skip("needs the per-step DP-SGD curve (gdp.dpsgd), not available")
    return fixed, free


def _classical_eps(groups: list[_Group], delta: float, rule: str) -> tuple[float, str]:
    """ε at total δ by a classical rule; free mechanisms get equal per-use δ_i."""
    fixed, free = _split(groups)
    fe = np.array([g.fixed[0] for g in fixed])
    fd = np.array([g.fixed[1] for g in fixed])
    fk = np.array([g.count for g in fixed], dtype=float)
    used = float(np.sum(fk * fd))
    m = sum(g.count for g in free)
    budget = delta - used
    if free and budget <= 0:
        return math.inf, "target δ is below the sum of the fixed δ_i"

    def total(theta: np.ndarray) -> np.ndarray:
        di = theta * budget / m if free else np.zeros_like(theta)
        eps_free = [np.asarray(g.f.epsilon(di), dtype=float) for g in free]
        out = np.empty(theta.shape)
        for t in range(theta.size):
            e = np.concatenate([fe, [ef[t] for ef in eps_free]])
            d = np.concatenate([fd, np.full(len(free), di[t])])
            kk = np.concatenate([fk, [g.count for g in free]])
            if not np.all(np.isfinite(e)):
                out[t] = np.inf
            elif rule == "basic":
                out[t] = np.inf if np.sum(kk * d) > delta * (1 + 1e-12) else np.sum(kk * e)
            elif rule == "advanced":
                out[t] = advanced_epsilon(e, d, kk, delta)
            else:
                out[t] = kairouz_epsilon(e, d, kk, delta)
        return out

    if not free:
        val = float(total(np.array([1.0]))[0])
        return val, ("the given (ε_i, δ_i)" if math.isfinite(val) else
                     "vacuous: the target δ leaves no room after the given δ_i")
    if rule == "basic":
        return float(total(np.array([1.0]))[0]), \
            "the δ left after any (ε,δ) inputs, split evenly over the other uses"
    val = _grid_min(total, 1e-4, 1.0 - 1e-4)
    return val, "best split of δ between per-use δ_i and the slack (grid search)"


def _classical_delta(groups: list[_Group], eps: float, rule: str) -> tuple[float, str]:
    """δ at total ε by a classical rule; free mechanisms get equal per-use ε_i."""
    fixed, free = _split(groups)
    fe = np.array([g.fixed[0] for g in fixed])
    fd = np.array([g.fixed[1] for g in fixed])
    fk = np.array([g.count for g in fixed], dtype=float)
    m = sum(g.count for g in free)
    budget = eps - float(np.sum(fk * fe)) if rule == "basic" else eps

    def total(ei: np.ndarray) -> np.ndarray:
        d_free = [np.asarray(g.f.delta(ei), dtype=float) for g in free]
        out = np.empty(ei.shape)
        for t in range(ei.size):
            e = np.concatenate([fe, np.full(len(free), ei[t])])
            d = np.concatenate([fd, [df[t] for df in d_free]])
            kk = np.concatenate([fk, [g.count for g in free]])
            if rule == "basic":
                out[t] = min(1.0, np.sum(kk * d)) if np.sum(kk * e) <= eps * (1 + 1e-12) \
                    else 1.0
            elif rule == "advanced":
                out[t] = advanced_delta(e, d, kk, eps)
            else:
                out[t] = kairouz_delta(e, d, kk, eps)
        return out

    if not free:
        return float(total(np.array([0.0]))[0]), "the given (ε_i, δ_i)"
    if budget < 0:
        return 1.0, "the fixed ε_i already exceed ε"
    if budget == 0:
        return float(total(np.array([0.0]))[0]), "per-use ε_i = 0"
    if rule == "basic":
        return float(total(np.array([budget / m]))[0]), \
            "the ε left after any (ε,δ) inputs, split evenly over the other uses"
    val = _grid_min(total, budget * 1e-4 / m, budget)
    return val, "best per-use ε_i (grid search)"


def _kov_homogeneous(groups: list[_Group]) -> _Group:
    if len(groups) != 1:
        raise _Skip("needs one mechanism used k times (heterogeneous optimal composition is "
                    "#P-hard; see the exact tensor product)")
    g = groups[0]
    if g.fixed is None and g.f is None:
        raise _Skip("needs the per-step DP-SGD curve (gdp.dpsgd), not available")
    return g


def _kov_eps(groups: list[_Group], delta: float) -> tuple[float, str, str]:
    g = _kov_homogeneous(groups)
    if g.fixed is not None:
        e0, d0 = g.fixed
        if math.isinf(e0):
            return (0.0 if delta >= 1 else math.inf), "exact", "ε0 = inf"
        return float(kov_epsilon(e0, d0, g.count, delta)), "exact", \
            "exact profile of f_{ε0,δ0}^{⊗k}"

    def fun(d0: np.ndarray) -> np.ndarray:
        e0 = np.asarray(g.f.epsilon(d0), dtype=float)
        return np.array([kov_epsilon(float(a), float(b), g.count, delta)
                         if math.isfinite(a) else math.inf for a, b in zip(e0, d0, strict=True)])

    val = _grid_min(fun, delta * 1e-4 / g.count, delta * (1 - 1e-4) / g.count, n=25)
    return val, "bound", "optimal composition of the per-use (ε0, δ0), best δ0 (grid search)"


def _kov_delta_at(groups: list[_Group], eps: float) -> tuple[float, str, str]:
    g = _kov_homogeneous(groups)
    if g.fixed is not None:
        e0, d0 = g.fixed
        if math.isinf(e0):
            return 1.0, "exact", "ε0 = inf"
        return float(kov_delta(e0, d0, g.count, eps)), "exact", \
            "exact profile of f_{ε0,δ0}^{⊗k}"

    def fun(e0: np.ndarray) -> np.ndarray:
        d0 = np.asarray(g.f.delta(e0), dtype=float)
        return np.array([kov_delta(float(a), float(b), g.count, eps)
                         for a, b in zip(e0, d0, strict=True)])

    scale = max(eps, 1e-3)
    val = _grid_min(fun, scale * 1e-4 / g.count, max(eps, 1.0), n=25)
    return val, "bound", "optimal composition of the per-use (ε0, δ0), best ε0 (grid search)"


def _rdp_total(groups: list[_Group], orders: np.ndarray) -> np.ndarray:
    total = np.zeros(orders.shape)
    for g in groups:
        if g.sgd is not None:
            r = rdp_sampled_gaussian(g.sgd[0], g.sgd[1], orders)
        else:
            try:
                r = rdp_of(g.f, orders)
            except TypeError:
                raise _Skip(f"no closed-form RDP for {g.label}") from None
        if not np.any(np.isfinite(r)):
            raise _Skip(f"RDP is infinite for {g.label} (δ > 0 or ε = inf)")
        total = total + g.count * r
    return total


def _clt_mu(groups: list[_Group]) -> tuple[float, str]:
    """CLT μ of the composition and a note (warnings of the CLT module go into the note)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if groups[0].sgd is not None:
            fn = _engine("noisy_sgd_mu", "the noisy-SGD CLT")
            mu = math.sqrt(sum(float(fn(g.sgd[0], g.sgd[1], g.count)) ** 2 for g in groups))
            note = "μ² = Σ p²T(e^{1/σ²} − 1) (BDLS 2020)"
        else:
            fs: list[TradeOff] = []
            for g in groups:
                fs.extend([g.f] * g.count)  # one object per group: functionals computed once
            clt = _engine("clt", "the GDP central limit theorem")
            try:
                mu = float(clt(fs, check=False).mu)
            except ValueError as exc:  # e.g. infinite functionals of (ε, δ) with δ > 0
                msg = str(exc).split(";")[0]
                msg = msg if len(msg) <= 100 else msg[:99] + "…"
                raise _Skip(f"the CLT does not apply: {msg}") from None
            note = "CLT μ = 2‖kl‖₁/√(‖κ2‖₁ − ‖kl‖₂²) (DRS Thm 3.4)"
    for w in caught:
        if not issubclass(w.category, RuntimeWarning):
            note += f"; warning: {str(w.message).split(';')[0]}"
    return mu, note + "; may under-state ε"


def _exact_curve(groups: list[_Group], accuracy: Mapping[str, Any]) -> TradeOff:
    if groups[0].sgd is not None:
        dpsgd = _engine("dpsgd", "the exact DP-SGD composition")
        if len(groups) == 1:
            sigma, p = groups[0].sgd
            return dpsgd(sigma=sigma, p=p, steps=groups[0].count, **accuracy)
        return dpsgd(phases=[dict(sigma=g.sgd[0], p=g.sgd[1], steps=g.count) for g in groups],
                     **accuracy)
    compose = _engine("compose", "the exact tensor product")
    # equal factors are grouped into powers by compose itself
    return compose(*[g.f for g in groups for _ in range(g.count)], **accuracy)


def _interval(h: TradeOff, name: str, x: float) -> tuple[float, float] | None:
    fn = getattr(h, name, None)
    if fn is None:
        return None
    lo, hi = fn(x)
    return float(lo), float(hi)


def compare(mechanisms: Any = None, *, k: int | None = None, delta: float | None = None,
            eps: float | None = None, dpsgd: Any = None,
            methods: Sequence[str] | None = None, orders: Any = None,
            accuracy: Mapping[str, Any] | None = None) -> Comparison:
    r"""ε at δ (and/or δ at ε) of one composition by every applicable method, as a table.

    Parameters
    ----------
    mechanisms : TradeOff or list
        One mechanism (used ``k`` times), or a list of TradeOffs and ``(TradeOff, count)``
        pairs. Equal mechanisms are merged; one distinct mechanism is *homogeneous*.
    k : int, optional
        Multiplies every count (default 1).
    delta, eps : float, optional
        At least one: ε is computed at ``delta`` and/or δ at ``eps``.
    dpsgd : dict or list of dict, optional
        ``dict(sigma=..., p=..., steps=...)`` instead of ``mechanisms``: Poisson-subsampled
        Gaussian steps with add/remove neighbours; a list of such dicts is a run in phases.
    methods : sequence of str, optional
        A subset of :data:`METHODS` keys, in any order (default: all).
    orders : array_like, optional
        RDP orders (default :data:`DEFAULT_ORDERS`; integer orders for DP-SGD).
    accuracy : dict, optional
        Accuracy keywords of the numeric engine for the exact row (e.g. ``{"rtol": 1e-5}``;
        see :class:`gdp.pld.Accuracy`), passed to :func:`gdp.compose` / :func:`gdp.dpsgd`.

    Returns
    -------
    Comparison
        One :class:`BoundRecord` per method (per question). Methods that do not apply are
        kept with ``kind="skipped"`` and a note (e.g. optimal KOV for a heterogeneous
        composition, RDP for (ε, δ) with δ > 0, the numeric engine when absent).

    Notes
    -----
    * Classical theorems (basic, advanced, KOV) take one (ε_i, δ_i) per use. For
      ``f_eps_delta`` mechanisms that pair is used as given. Other mechanisms enter through
      their privacy profile: each of their uses gets the same δ_i (ε_i = ε(δ_i), sound),
      and the split of the target δ between the δ_i and the theorem's slack is chosen by a
      grid search (δ at ε: the per-use ε_i). Any split gives a valid bound; the search only
      tightens it.
    * Optimal KOV is exact for homogeneous ``f_eps_delta``; for any other homogeneous
      mechanism it is the optimal composition of its best (ε0, δ0) description (a bound).
    * RDP: closed forms (:func:`rdp_of`, :func:`rdp_sampled_gaussian`), summed, converted
      with the sharp conversion (:func:`eps_from_rdp`).
    * The CLT row (``gdp.clt``, or ``gdp.noisy_sgd_mu`` for DP-SGD) is an approximation,
      not a bound.
    * The exact row is :func:`gdp.compose` / :func:`gdp.dpsgd`; its ε/δ is the sound side,
      ``interval`` the engine's two-sided bracket.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.compare(gdp.f_eps_delta(0.1), k=100, delta=1e-5,
    ...                 methods=["basic", "advanced", "kairouz", "kov", "rdp"])
    >>> [(r.method, round(r.epsilon, 4)) for r in c]
    [('basic', 10.0), ('advanced', 5.8502), ('kairouz', 5.2981), ('kov', 4.3068), ('rdp', 4.6207)]
    >>> print(c.to_markdown(digits=4).splitlines()[5])
    | Optimal (KOV 2015, Thm 3.3) | exact | 4.307 | 1e-05 |  | exact profile of f_{ε0,δ0}^{⊗k} |
    >>> s = gdp.compare(dpsgd=dict(sigma=1.0, p=0.01, steps=1000), delta=1e-5, methods=["rdp"])
    >>> round(s["rdp"].epsilon, 4)
    2.1078
    """
    if delta is None and eps is None:
        raise TypeError("give `delta` (to compute ε) and/or `eps` (to compute δ)")
    d_t = None if delta is None else check_real("delta", delta, lo=0.0, hi=1.0)
    e_t = None if eps is None else check_real("eps", eps, lo=0.0)
    if methods is None:
        chosen = list(METHODS)
    else:
        if isinstance(methods, str):
            methods = [methods]
        chosen = []
        for m in methods:
            if m not in METHODS:
                raise ValueError(f"`methods` entries must be among {list(METHODS)}; got {m!r}")
            chosen.append(m)
        chosen = [m for m in METHODS if m in chosen]
    o = _orders(orders)
    if accuracy is not None and not isinstance(accuracy, Mapping):
        raise TypeError(f"`accuracy` must be a dict of numeric-engine keywords (rtol, "
                        f"grid_step, tail_mass, max_points); got accuracy={accuracy!r}")
    acc = dict(accuracy or {})
    need_step = any(m in chosen for m in ("basic", "advanced", "kairouz", "kov"))
    groups = _groups(mechanisms, k, dpsgd, need_step)
    ktot = sum(g.count for g in groups)
    if dpsgd is not None:
        desc = "DP-SGD: " + "; ".join(f"sigma={g.sgd[0]:g}, p={g.sgd[1]:g}, steps={g.count}"
                                      for g in groups)
    else:
        desc = "Composition of " + " ⊗ ".join(
            (f"{g.label}^{g.count}" if g.count > 1 else g.label) for g in groups)
    questions = []
    if d_t is not None:
        questions.append(("epsilon", d_t))
        desc += f"; ε at δ={d_t:g}"
    if e_t is not None:
        questions.append(("delta", e_t))
        desc += f"; δ at ε={e_t:g}"

    exact_curve: list[TradeOff] = []  # computed once, shared by both questions
    records: list[BoundRecord] = []
    for solved, target in questions:
        for m in chosen:
            records.append(_one(m, solved, target, groups, ktot, o, exact_curve, acc))
    return Comparison(records=tuple(records), description=desc)


def _one(method: str, solved: str, target: float, groups: list[_Group], ktot: int,
         orders: np.ndarray, cache: list[TradeOff], accuracy: Mapping[str, Any]
         ) -> BoundRecord:
    at_delta = solved == "epsilon"

    def rec(value: float | None, kind: str, notes: str,
            interval: tuple[float, float] | None = None) -> BoundRecord:
        if value is not None:
            value = max(0.0, float(value))
            if not at_delta:
                value = min(1.0, value)
        e, d = (value, target) if at_delta else (target, value)
        return BoundRecord(method=method, kind=kind, epsilon=e, delta=d, solved=solved,
                           k=ktot, interval=interval, notes=notes)

    try:
        if method in ("basic", "advanced", "kairouz"):
            val, note = (_classical_eps(groups, target, method) if at_delta
                         else _classical_delta(groups, target, method))
            return rec(val, "bound", note)
        if method == "kov":
            val, kind, note = (_kov_eps(groups, target) if at_delta
                               else _kov_delta_at(groups, target))
            return rec(val, kind, note)
        if method == "rdp":
            r = _rdp_total(groups, orders)
            lam = f"orders {int(orders.min())}..{int(orders.max())}"
            if at_delta:
                return rec(float(eps_from_rdp(r, target, orders)), "bound",
                           f"sharp conversion (CKS 2020), {lam}")
            return rec(float(delta_from_rdp(r, target, orders)), "bound",
                       f"sharp conversion (CKS 2020), {lam}")
        if method == "clt":
            mu, note = _clt_mu(groups)
            from .gaussian import delta_from_mu

            val = eps_from_mu(mu, target) if at_delta else delta_from_mu(mu, target)
            return rec(float(val), "approximation", f"μ = {mu:.5g}; {note}")
        if method == "exact":
            if not cache:
                if any(g.f is None and g.sgd is None for g in groups):
                    raise _Skip("needs the numeric engine")
                cache.append(_exact_curve(groups, accuracy))
            h = cache[0]
            if at_delta:
                val = float(h.epsilon(target))
                iv = _interval(h, "epsilon_bounds", target)
            else:
                val = float(h.delta(target))
                iv = _interval(h, "delta_bounds", target)
            note = "closed form" if iv is None else "sound side of the numeric bracket"
            return rec(val, "exact", note, iv)
    except _Skip as s:
        return rec(None, "skipped", str(s))
    except NotImplementedError as exc:
        return rec(None, "skipped", str(exc) or "not implemented")
    raise AssertionError(method)  # pragma: no cover - METHODS is closed


# ---------------------------------------------------------------------------
# epsilon versus the number of compositions
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class EpsilonCurves:
    r"""ε at a fixed δ against the number of compositions k, one column per method.

    ``k`` and each column are read-only arrays of the same length (``inf`` where a bound is
    vacuous, NaN where the method was skipped). ``kinds`` maps each method to its kind.
    Feed it to :func:`gdp.plot.compare`, or read :meth:`to_dict` / :meth:`to_records`.
    """

    k: np.ndarray
    delta: float
    columns: Mapping[str, np.ndarray]
    kinds: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, np.ndarray]:
        """``{"k": ks, method: epsilons, ...}``."""
        return {"k": np.array(self.k), **{m: np.array(v) for m, v in self.columns.items()}}

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (k, method): ``{"k", "method", "epsilon", "kind"}``."""
        return [{"k": int(kv), "method": m, "epsilon": float(v[i]), "kind": self.kinds.get(m)}
                for m, v in self.columns.items() for i, kv in enumerate(self.k)]


def epsilon_vs_k(mechanism: TradeOff | None = None, ks: Any = None, *, delta: float,
                 dpsgd: Mapping[str, Any] | None = None,
                 methods: Sequence[str] | None = None, orders: Any = None,
                 accuracy: Mapping[str, Any] | None = None) -> EpsilonCurves:
    r"""ε at ``delta`` of the k-fold composition for each k in ``ks``, by every method of
    :func:`compare` (the data of an "ε versus k" plot).

    Parameters
    ----------
    mechanism : TradeOff
        The mechanism composed with itself k times (or use ``dpsgd``).
    ks : array_like of int
        The numbers of compositions (steps for DP-SGD).
    delta : float
        The target δ.
    dpsgd : dict, optional
        ``dict(sigma=..., p=...)``: DP-SGD with ``steps = k``.
    methods, orders, accuracy
        As in :func:`compare`.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.epsilon_vs_k(gdp.f_eps_delta(0.1), [1, 10, 100], delta=1e-5,
    ...                      methods=["basic", "kov"])
    >>> c.columns["basic"].tolist(), [round(x, 4) for x in c.columns["kov"].tolist()]
    ([0.1, 1.0, 10.0], [0.1, 0.9937, 4.3068])
    """
    if ks is None:
        raise TypeError("`ks` (the numbers of compositions) is required")
    karr = as_real_array("ks", ks, lo=1.0).reshape(-1)
    kint = [check_int("ks", v, lo=1) for v in karr.tolist()]
    if not kint:
        raise ValueError("`ks` must hold at least one number of compositions; got none")
    d = check_real("delta", delta, lo=0.0, hi=1.0)
    cols: dict[str, list[float]] = {}
    kinds: dict[str, str] = {}
    for kv in kint:
        if dpsgd is not None:
            if not isinstance(dpsgd, Mapping) or set(dpsgd) != {"sigma", "p"}:
                raise ValueError("`dpsgd` for epsilon_vs_k must have exactly the keys sigma "
                                 f"and p (steps = k); got {dpsgd!r}")
            c = compare(dpsgd={**dpsgd, "steps": kv}, delta=d, methods=methods, orders=orders,
                        accuracy=accuracy)
        else:
            if not isinstance(mechanism, TradeOff):
                raise TypeError(f"`mechanism` must be a TradeOff; got {mechanism!r}")
            c = compare(mechanism, k=kv, delta=d, methods=methods, orders=orders,
                        accuracy=accuracy)
        for r in c:
            cols.setdefault(r.method, []).append(math.nan if r.epsilon is None else r.epsilon)
            if r.kind != "skipped":
                kinds[r.method] = r.kind
            else:
                kinds.setdefault(r.method, "skipped")
    frozen = {}
    for m, v in cols.items():
        a = np.array(v, dtype=float)
        a.setflags(write=False)
        frozen[m] = a
    k_arr = np.array(kint, dtype=float)
    k_arr.setflags(write=False)
    return EpsilonCurves(k=k_arr, delta=d, columns=frozen, kinds=kinds)
