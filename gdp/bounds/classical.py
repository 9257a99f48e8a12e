r"""Classical composition bounds for (ε, δ)-DP mechanisms.

:func:`basic_composition` (:math:`(\sum\varepsilon_i, \sum\delta_i)`), the advanced
composition of Dwork–Rothblum–Vadhan (:func:`advanced_composition`, :func:`advanced_epsilon`,
:func:`advanced_delta`) and the closed-form refinement of Kairouz–Oh–Viswanath 2015
(:func:`kairouz_composition`, :func:`kairouz_epsilon`, :func:`kairouz_delta`), vectorised over
heterogeneous mechanisms and rounded up.

Imports: the ground floor only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._numerics import EPS, float_or_array
from .._validation import as_probability_array, as_real_array, check_int, check_real

__all__ = [
    "basic_composition", "advanced_composition", "advanced_epsilon", "advanced_delta",
    "kairouz_composition", "kairouz_epsilon", "kairouz_delta",
]



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
    slack = np.where(td - used > 8 * EPS * np.maximum(td, used), td - used, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.sqrt(2.0 * s2 * -np.log(np.where(slack > 0, slack, 1.0))) + drift
    out = np.where(slack > 0, val, np.inf)
    if s2 == 0.0:
        out = np.where(td >= used, drift, np.inf)
    return float_or_array(out)


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
    return float_or_array(np.minimum(1.0, float(np.sum(kk * d)) + slack))


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
    Tighter than the advanced composition at the same slack:

    >>> import gdp
    >>> [round(r(0.1, 1e-6, 100, 1e-5)[0], 5) for r in (gdp.kairouz_composition,
    ...                                                gdp.advanced_composition)]
    [5.29811, 5.85024]
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
    dt = np.where(np.abs(dt) <= 16 * EPS * np.maximum(td, 1e-300), -1.0, dt)
    flat = np.minimum(np.reshape(dt, -1), 1.0)
    res = _kairouz_eps(e, kk, np.maximum(flat, 0.0))
    res = np.where(flat < 0, np.inf, res)
    return float_or_array(res.reshape(np.shape(td)))


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
    return float_or_array(np.clip(np.where(slack >= 1, 1.0, res), 0.0, 1.0))
