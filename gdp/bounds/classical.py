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
from fractions import Fraction
from typing import Any

import numpy as np

from .._numerics import EPS, float_or_array, lower_by, raise_by
from .._validation import as_probability_array, as_real_array, check_count, check_real

__all__ = [
    "basic_composition", "advanced_composition", "advanced_epsilon", "advanced_delta",
    "kairouz_composition", "kairouz_epsilon", "kairouz_delta",
]



# ---------------------------------------------------------------------------
# the mechanisms of a classical bound: per-mechanism (eps_i, delta_i) used k_i times
# ---------------------------------------------------------------------------
def _mechanisms(eps: Any, delta: Any, k: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate and broadcast per-mechanism ε_i ≥ 0, δ_i ∈ [0, 1] and counts k_i ≥ 0 (at
    least one mechanism: an empty list is refused, not composed to (0, 0))."""
    e = as_real_array("eps", eps, lo=0.0, max_ndim=1, min_size=1).reshape(-1)
    d = as_probability_array("delta", delta, max_ndim=1, min_size=1).reshape(-1)
    if isinstance(k, list | tuple | np.ndarray):
        ks = as_real_array("k", k, lo=0.0, max_ndim=1, min_size=1).reshape(-1)
        kk = np.array([check_count("k", v, lo=0) for v in ks.tolist()])
    else:
        kk = np.array([check_count("k", k)])
    try:
        e, d, kk = np.broadcast_arrays(e, d, kk)
    except ValueError:
        raise ValueError(f"`eps`, `delta` and `k` must broadcast to one length; got lengths "
                         f"{e.size}, {d.size} and {kk.size}") from None
    return e.astype(float), d.astype(float), kk.astype(float)


class _Sums:
    r"""The sums of a classical bound, each rounded to the side that makes the bound larger.

    Error analysis: each is a pairwise sum of :math:`n` terms of one sign, every term within
    3 ulps (``k_i`` times ε_i, ε_i², :math:`\varepsilon_i(e^{\varepsilon_i}-1)`,
    :math:`\varepsilon_i\tanh(\varepsilon_i/2)` or :math:`\log(1-\delta_i)`), so its
    relative error is below :math:`(\lceil\log_2 n\rceil + 4)` ulps (``ulps``); the
    functions below charge every further operation as they go.
    """

    def __init__(self, e: np.ndarray, d: np.ndarray, kk: np.ndarray):
        # (the sums run under errstate: huge eps_i overflow to inf)
        with np.errstate(over="ignore", invalid="ignore"):
            self._init(e, d, kk)

    def _init(self, e: np.ndarray, d: np.ndarray, kk: np.ndarray) -> None:
        self.ulps = math.ceil(math.log2(max(e.size, 1))) + 4
        up = lambda v: raise_by(float(np.sum(v)), self.ulps)  # noqa: E731
        # the reported sums exactly (rational arithmetic), rounded up; a margin beyond 10^4
        exact = e.size <= 10_000
        self.total = _dot_up(kk, e) if exact else up(kk * e)  # sum k_i eps_i
        self.total_low = _dot_up(kk, e, down=True) if exact else \
            lower_by(float(np.sum(kk * e)), self.ulps)
        self.used = min(1.0, _dot_up(kk, d) if exact else up(kk * d))  # sum k_i delta_i
        self.s2 = up(kk * e * e)
        self.drift_adv = up(kk * e * np.expm1(e))
        self.drift_kov = up(kk * e * np.tanh(e / 2.0))
        with np.errstate(divide="ignore"):
            # log prod (1 - delta_i)^k_i, lowered (more negative makes delta larger)
            self.keep = raise_by(float(np.sum(kk * np.log1p(-d))), self.ulps)


def _dot_up(k: np.ndarray, x: np.ndarray, *, down: bool = False) -> float:
    """sum k_i x_i in exact rational arithmetic, rounded up (or down) to a float."""
    exact = sum((Fraction(int(a)) * Fraction(float(b)) for a, b in zip(k, x, strict=True)),
                Fraction(0))
    try:
        v = float(exact)
    except OverflowError:  # beyond the largest float: inf rounded up, the largest one down
        return math.nextafter(math.inf, 0.0) if down else math.inf
    if not down and Fraction(v) < exact:
        v = math.nextafter(v, math.inf)
    if down and Fraction(v) > exact:
        v = math.nextafter(v, -math.inf)
    return v


def _sqrt_term(s2: float, logs: Any) -> Any:
    r""":math:`\sqrt{2 S L}` for the upper bound ``s2`` and ``L = logs`` (>= 0, rounded up by
    the caller), itself rounded up (a product and a root: 2 ulps)."""
    with np.errstate(invalid="ignore"):
        return raise_by(np.sqrt(2.0 * s2 * np.asarray(logs, dtype=float)), 2)


def _keep_delta(slack: Any, keep: float) -> Any:
    r""":math:`1 - (1 - \tilde\delta)\prod(1-\delta_i)^{k_i}` rounded up (log1p, a sum and
    expm1 of a sum of two logs: 4 ulps)."""
    slack = np.asarray(slack, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = raise_by(-np.expm1(np.log1p(-slack) + keep), 4)
    return np.clip(np.where(slack >= 1, 1.0, v), 0.0, 1.0)


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
    sums = _Sums(*_mechanisms(eps, delta, k))
    return sums.total, sums.used


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
    sums = _Sums(*_mechanisms(eps, delta, k))
    ds = check_real("delta_slack", delta_slack, lo=0.0, hi=1.0, lo_open=True)
    eps_t = raise_by(float(_sqrt_term(sums.s2, raise_by(-math.log(ds), 1))) + sums.drift_adv, 1)
    return eps_t, min(1.0, raise_by(sums.used + ds, 1))


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
    sums = _Sums(*_mechanisms(eps, delta, k))
    td = as_probability_array("total_delta", total_delta)
    # the slack td - used, rounded down (a smaller slack gives a larger eps); one at the
    # rounding level of the sum is no slack (eps would come from noise)
    raw = td - sums.used
    slack = np.where(raw > 8 * EPS * np.maximum(td, sums.used), lower_by(raw, 1), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = raise_by(-np.log(np.where(slack > 0, slack, 1.0)), 1)
        val = raise_by(_sqrt_term(sums.s2, logs) + sums.drift_adv, 1)
    out = np.where(slack > 0, val, np.inf)
    if sums.s2 == 0.0:
        out = np.where(td >= sums.used, sums.drift_adv, np.inf)
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
    sums = _Sums(*_mechanisms(eps, delta, k))
    te = as_real_array("total_eps", total_eps, lo=0.0, finite=False)
    slack = _gauss_slack(te, sums.drift_adv, sums.s2)
    return float_or_array(np.minimum(1.0, raise_by(sums.used + slack, 1)))


def _gauss_slack(te: np.ndarray, drift: float, s2: float) -> np.ndarray:
    r""":math:`e^{-(\varepsilon - A)^2/(2S)}` for :math:`\varepsilon > A` (else 1), rounded
    up: the gap :math:`\varepsilon - A` (A an upper bound) rounded down, the exponent
    (3 operations) down, the exponential up."""
    with np.errstate(over="ignore", invalid="ignore"):
        gap = np.maximum(lower_by(te - drift, 1), 0.0)
        if s2 == 0.0:
            return np.where(te >= drift, 0.0, 1.0)
        z = lower_by(np.square(gap) / (2 * s2), 3)
        slack = np.where(gap > 0, raise_by(np.exp(-z), 2), 1.0)
    return np.minimum(np.where(np.isposinf(te), 0.0, slack), 1.0)


def _kairouz_eps(sums: _Sums, dt: np.ndarray) -> np.ndarray:
    """KOV Thm 3.5 ε̃ at slack δ̃ (array, δ̃ in [0, 1]), every branch rounded up."""
    total, s2, drift = sums.total, sums.s2, sums.drift_kov
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = dt > 0
        safe = np.where(pos, dt, 1.0)
        b3 = raise_by(drift + _sqrt_term(s2, raise_by(-np.log(safe), 1)), 1)
        inner = raise_by(math.e + raise_by(math.sqrt(s2), 1) / safe, 2)
        b2 = raise_by(drift + _sqrt_term(s2, raise_by(np.log(inner), 1)), 1)
    return np.where(pos, np.minimum(total, np.minimum(b2, b3)), total)


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
    sums = _Sums(*_mechanisms(eps, delta, k))
    ds = check_real("delta_slack", delta_slack, lo=0.0, hi=1.0)
    eps_t = float(_kairouz_eps(sums, np.array([ds]))[0])
    return eps_t, float(_keep_delta(ds, sums.keep))


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
    sums = _Sums(*_mechanisms(eps, delta, k))
    td = as_probability_array("total_delta", total_delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the slack 1 - (1 - td) / prod(1 - delta_i), rounded down (log1p, a difference,
        # expm1: 3 ulps of the magnitudes involved)
        arg = np.log1p(-td) - sums.keep
        dt = -np.expm1(arg) if np.isfinite(sums.keep) else np.full(td.shape, -1.0)
        dt = dt - 3 * EPS * (np.abs(dt) + np.abs(arg) * np.exp(np.minimum(arg, 0.0)))
    dt = np.where(td >= 1.0, 1.0, dt)
    # a slack at the rounding level is no slack: then only an exact fit of the δ_i is allowed
    dt = np.where(np.abs(dt) <= 16 * EPS * np.maximum(td, 1e-300), -1.0, dt)
    flat = np.minimum(np.reshape(dt, -1), 1.0)
    res = _kairouz_eps(sums, np.maximum(flat, 0.0))
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
    sums = _Sums(*_mechanisms(eps, delta, k))
    te = as_real_array("total_eps", total_eps, lo=0.0, finite=False)
    d3 = _gauss_slack(te, sums.drift_kov, sums.s2)
    if sums.s2 > 0:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            gap = np.maximum(lower_by(te - sums.drift_kov, 1), 0.0)
            z = lower_by(np.square(gap) / (2.0 * sums.s2), 3)
            ez = np.expm1(z)
            den = ez - (math.e - 1.0) - 4 * EPS * (ez + math.e)  # e^z - e, rounded down
            d2 = np.where(den > 0, raise_by(raise_by(math.sqrt(sums.s2), 1)
                                            / np.where(den > 0, den, 1.0), 1), 1.0)
        slack = np.where(te > sums.drift_kov, np.minimum(d2, d3), 1.0)
    else:
        slack = d3
    # the first branch, eps >= sum eps_i, is exact: compared with the exact sum
    slack = np.where(te >= sums.total_low, 0.0, np.minimum(slack, 1.0))
    return float_or_array(_keep_delta(slack, sums.keep))
