r"""Empirical auditing: estimate the trade-off curve a mechanism actually achieves.

Theory of operation
-------------------
Run the mechanism :math:`n` times on each of two neighbouring inputs :math:`D, D'`
(outputs :math:`P = M(D)`, :math:`Q = M(D')`) and reduce every output to a real
statistic (the output itself for scalars, a user function otherwise). Any fixed test
:math:`\phi` has type I error :math:`\alpha_\phi = E_P[\phi]` and type II error
:math:`\beta_\phi = 1 - E_Q[\phi]`, and by definition :math:`T(P,Q)(\alpha_\phi) \le
\beta_\phi`. If the mechanism is f-DP then :math:`f \le T(P,Q)` (and :math:`f \le
T(Q,P)`), so for upper confidence bounds :math:`\bar\alpha \ge \alpha_\phi`,
:math:`\bar\beta \ge \beta_\phi`, monotonicity gives

.. math:: f(\bar\alpha) \le T(P,Q)(\bar\alpha) \le T(P,Q)(\alpha_\phi) \le \beta_\phi
          \le \bar\beta,
          \qquad f(\bar\beta) \le \bar\alpha .

A claimed curve above a point :math:`(\bar\alpha, \bar\beta)` is refuted. Likewise
:math:`(\varepsilon,\delta)`-DP forces :math:`\varepsilon \ge \log\frac{1-\delta-\bar\beta}
{\bar\alpha}` and :math:`\varepsilon \ge \log\frac{1-\delta-\bar\alpha}{\bar\beta}`, and
:math:`\mu`-GDP forces :math:`\mu \ge \Phi^{-1}(1-\bar\alpha) - \Phi^{-1}(\bar\beta)` (the
Gaussian curve through the point); the maxima over the tests are the lower confidence
bounds ``eps_lower`` and ``mu_lower``.

Honesty about multiple testing:

* **Sample splitting.** The first half of each sample *chooses* the tests (thresholds
  at quantiles of the pooled statistic and the direction that separates best; for
  discrete outputs the order of outcomes by estimated likelihood ratio). The second half
  *evaluates* them, so the tests are fixed before the data that measure them are seen.
* **Bonferroni.** With :math:`m` tests, each of the :math:`2m` error rates gets a
  two-sided Clopper–Pearson interval at level :math:`1-\gamma/(2m)`,
  :math:`\gamma = 1 - \text{confidence}`, so all intervals hold simultaneously with
  probability at least ``confidence``; every statement of the result holds jointly.

Threshold tests are the Neyman–Pearson tests whenever the likelihood ratio is monotone in
the statistic (Laplace, Gaussian and other location families); then the empirical curve
estimates :math:`T(P,Q)` itself, and a mechanism whose ``tradeoff`` is exact should pass
through every confidence box (``within_band``). For selection mechanisms with a loose
``tradeoff`` only ``violation`` is meaningful. An audit can refute a claim, never prove
one: a small ``eps_lower`` says the tests found little, not that the mechanism is private.

This auditor runs the mechanism many times on one pair of inputs. To audit a training
algorithm from a *single* run with many canaries, use :func:`gdp.audit_one_run`
(:mod:`gdp.mechanisms.one_run_audit`: Steinke–Nasr–Jagielski 2023 with the f-DP analysis
of Mahloujifar et al. 2024).

References
----------
Clopper, Pearson, Biometrika 26(4), 1934. Ding, Wang, Wang, Zhang, Kifer, "Detecting
Violations of Differential Privacy", CCS 2018. Jagielski, Ullman, Oprea, "Auditing
Differentially Private Machine Learning", NeurIPS 2020. Nasr, Song, Thakurta, Papernot,
Carlini, "Adversary Instantiation: Lower Bounds for Differentially Private Machine
Learning", IEEE S&P 2021 (ε lower bounds from Clopper–Pearson intervals). DRS (Dong,
Roth, Su 2022) Def. 2.1–2.3 and Prop. 2.5 for the hypothesis-testing view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._validation import (
    as_probability_array,
    check_callable,
    check_choice,
    check_count,
    check_fields,
    check_real,
    count,
    flag,
    instance,
    real,
)
from ..core.tradeoff import TradeOff

__all__ = ["AuditResult", "audit"]

_METHODS = ("auto", "threshold", "likelihood_ratio")
_MAX_DISCRETE = 64  # auto mode: at most this many distinct statistic values -> discrete


@dataclass(frozen=True, slots=True, eq=False)
class AuditResult:
    r"""The outcome of :func:`audit`.

    Attributes
    ----------
    alpha, beta : ndarray
        Empirical type I / type II errors of the tests (sorted by ``alpha``), measured on
        the evaluation half.
    alpha_lower, alpha_upper, beta_lower, beta_upper : ndarray
        Simultaneous Clopper–Pearson bounds (Bonferroni over all tests).
    tradeoff : TradeOff
        The curve the mechanism claims (``mechanism.tradeoff``).
    violation : bool
        True when some confidence box lies entirely below the claimed curve
        (:math:`f(\bar\alpha) > \bar\beta`, or the same for the swapped pair): with the
        stated confidence the mechanism is *not* ``tradeoff``-DP.
    within_band : bool
        True when the claimed curve passes through every box
        (:math:`f(\bar\alpha)\le\bar\beta` and :math:`f(\underline\alpha)\ge
        \underline\beta`): the observations are consistent with ``tradeoff`` being the
        exact curve of these tests.
    eps_lower : float
        Lower confidence bound on any ε for which the mechanism is (ε, ``delta``)-DP.
    mu_lower : float
        Lower confidence bound on any μ for which the mechanism is μ-GDP.
    delta : float
        The δ used for ``eps_lower``.
    confidence : float
        Joint confidence level of every statement above.
    n_samples : int
        Outputs drawn per input (half choose the tests, half evaluate them).
    method : str
        ``"threshold"`` or ``"likelihood_ratio"``.
    """

    alpha: np.ndarray
    beta: np.ndarray
    alpha_lower: np.ndarray
    alpha_upper: np.ndarray
    beta_lower: np.ndarray
    beta_upper: np.ndarray
    tradeoff: TradeOff
    violation: bool
    within_band: bool
    eps_lower: float
    mu_lower: float
    delta: float
    confidence: float
    n_samples: int
    method: str

    def __post_init__(self) -> None:
        size = None
        for name in ("alpha", "beta", "alpha_lower", "alpha_upper", "beta_lower",
                     "beta_upper"):
            arr = np.array(as_probability_array(name, getattr(self, name), max_ndim=1))
            if size is not None and arr.size != size:
                raise ValueError(f"`{name}` must have one value per test, as `alpha` "
                                 f"({size}); got {arr.size}")
            size = arr.size
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        check_fields(self, tradeoff=instance(TradeOff, "a TradeOff"), violation=flag(),
                     within_band=flag(), eps_lower=real(lo=0.0, finite=False),
                     mu_lower=real(lo=0.0, finite=False),
                     delta=real(lo=0.0, hi=1.0, hi_open=True),
                     confidence=real(lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                     n_samples=count())
        check_choice("method", self.method, ("threshold", "likelihood_ratio"))

    def __repr__(self) -> str:
        return (f"AuditResult(violation={self.violation}, within_band={self.within_band}, "
                f"eps_lower={self.eps_lower:.4g}, mu_lower={self.mu_lower:.4g}, "
                f"tests={self.alpha.size}, n_samples={self.n_samples}, "
                f"confidence={self.confidence:g}, method={self.method!r})")


def _clopper_pearson(k: np.ndarray, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper–Pearson interval for k successes in n trials at ``level``."""
    k = np.asarray(k, dtype=float)
    tail = (1.0 - level) / 2.0
    with np.errstate(all="ignore"):
        lo = np.where(k > 0, special.betaincinv(k, n - k + 1, tail), 0.0)
        hi = np.where(k < n, special.betaincinv(k + 1, n - k, 1.0 - tail), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def _draw(mechanism: Any, value: Any, n: int, rng: np.random.Generator) -> list | np.ndarray:
    sample = getattr(mechanism, "sample", None)
    if callable(sample):
        return np.asarray(sample(value, n, rng=rng))
    return [mechanism(value, rng=rng) for _ in range(n)]


def _statistic(outputs: list | np.ndarray, statistic: Any) -> np.ndarray:
    if statistic is None:
        first = np.asarray(outputs[0])
        if first.ndim != 0:
            raise ValueError("a `statistic` is required when the mechanism's outputs are not "
                             f"scalars; got outputs of shape {first.shape}")
        vals = np.asarray(outputs, dtype=float).reshape(-1)
    else:
        vals = np.array([statistic(o) for o in outputs], dtype=float)
        if vals.ndim != 1:
            raise ValueError("`statistic` must map each output to one real number; got "
                             f"values of shape {vals.shape[1:]}")
    if not np.all(np.isfinite(vals)):
        raise ValueError("the test statistic must be finite; got a non-finite value")
    return vals


def _threshold_tests(s0: np.ndarray, s1: np.ndarray, n_thresholds: int):
    """Thresholds and direction chosen on the selection half. Returns a function mapping
    statistic values to the (n_values, n_tests) boolean rejection matrix."""
    if s0.size == 0:
        return None
    pooled = np.sort(np.concatenate([s0, s1]))
    half = max(1, n_thresholds // 2)
    lo_level = min(0.5, 2.0 / pooled.size)
    levels = np.geomspace(lo_level, 0.5, half)
    levels = np.unique(np.concatenate([levels, 1.0 - levels]))
    thresholds = np.unique(np.quantile(pooled, levels, method="lower"))
    # direction: reject for large values if Q tends to be larger (max of F_P - F_Q)
    f0 = np.searchsorted(np.sort(s0), thresholds, side="right") / s0.size
    f1 = np.searchsorted(np.sort(s1), thresholds, side="right") / s1.size
    upward = bool(np.max(f0 - f1) >= np.max(f1 - f0))

    def reject(x: np.ndarray) -> np.ndarray:
        if upward:
            return x[:, None] > thresholds[None, :]
        return x[:, None] < thresholds[None, :]

    return reject


def _ratio_tests(s0: np.ndarray, s1: np.ndarray):
    """Nested rejection sets: outcomes ordered by the likelihood ratio estimated on the
    selection half (add-one-half smoothing); unseen outcomes are never rejected."""
    if s0.size == 0:
        return None
    outcomes = np.unique(np.concatenate([s0, s1]))
    c0 = np.array([np.sum(s0 == o) for o in outcomes], dtype=float)
    c1 = np.array([np.sum(s1 == o) for o in outcomes], dtype=float)
    score = np.log(c1 + 0.5) - np.log(c0 + 0.5)
    order = outcomes[np.argsort(-score, kind="stable")]
    rank = {float(o): i for i, o in enumerate(order)}

    def reject(x: np.ndarray) -> np.ndarray:
        r = np.array([rank.get(float(v), len(order)) for v in x])
        return r[:, None] < np.arange(1, len(order) + 1)[None, :]

    return reject


def audit(mechanism: Any, D: Any, D_neighbour: Any, *, n_samples: int = 20000,
          rng: np.random.Generator | None = None, statistic: Any = None,
          confidence: float = 0.95, delta: float = 0.0, n_thresholds: int = 32,
          method: str = "auto") -> AuditResult:
    r"""Audit a mechanism's claimed trade-off curve on one pair of neighbouring inputs.

    Parameters
    ----------
    mechanism : object
        Anything with ``mechanism(value, rng=...)`` and a ``tradeoff`` attribute (a
        :class:`~gdp.TradeOff`). A ``sample(value, n, rng=...)`` method, if present, is
        used to draw ``n`` outputs at once.
    D, D_neighbour : object
        The two neighbouring inputs (passed to the mechanism as they are).
    n_samples : int
        Outputs per input, at least 1: the first ``n_samples // 2`` choose the tests, the
        rest evaluate them.
    rng : numpy.random.Generator, optional
        Source of randomness (a fresh ``default_rng()`` when ``None``); seed it for a
        reproducible audit.
    statistic : callable, optional
        Maps one output to a real number; required when outputs are not scalars.
    confidence : float
        Joint confidence level of every bound in the result, in (0, 1).
    delta : float
        The δ in [0, 1) for ``eps_lower``.
    n_thresholds : int
        Number of threshold tests for continuous statistics (tails included).
    method : {"auto", "threshold", "likelihood_ratio"}
        ``"auto"`` orders outcomes by estimated likelihood ratio when the selection half
        shows at most 64 distinct statistic values, and uses threshold tests otherwise.

    Returns
    -------
    AuditResult
        With ``violation``, ``within_band``, ``eps_lower``, ``mu_lower`` and the empirical
        curve with its band.

    Notes
    -----
    With ``n_samples < 2`` there is nothing to choose tests from: the result has no tests,
    no violation and zero lower bounds.

    Examples
    --------
    >>> import numpy as np
    >>> import gdp
    >>> from gdp import mechanisms
    >>> mech = mechanisms.Laplace(sensitivity=1.0, eps=1.0)
    >>> res = gdp.audit(mech, 0.0, 1.0, n_samples=20000, rng=np.random.default_rng(7))
    >>> res.violation, res.within_band, 0.0 < res.eps_lower <= 1.0
    (False, True, True)
    """
    check_callable("mechanism", mechanism, "callable as mechanism(value, rng=...)")
    claimed = getattr(mechanism, "tradeoff", None)
    if not isinstance(claimed, TradeOff):
        raise TypeError("`mechanism` must have a `tradeoff` attribute that is a TradeOff; "
                        f"got tradeoff={claimed!r}")
    n = check_count("n_samples", n_samples, hi=10**8,
                    why="the outputs drawn are held in memory")
    conf = check_real("confidence", confidence, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    dlt = check_real("delta", delta, lo=0.0, hi=1.0, hi_open=True)
    n_thr = check_count("n_thresholds", n_thresholds, hi=10**6,
                        why="every threshold is a test evaluated on every output")
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError("`method` must be 'auto', 'threshold' or 'likelihood_ratio'; got "
                         f"method={method!r:.60}")
    if statistic is not None:
        check_callable("statistic", statistic, "callable (outputs -> numbers) or None")
    if rng is None:
        rng = np.random.default_rng()
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"`rng` must be a numpy.random.Generator or None; got rng={rng!r}")

    draws = []
    for name, data in (("D", D), ("D_neighbour", D_neighbour)):
        try:  # the mechanism checks its input: say which of the two it refused
            draws.append(_statistic(_draw(mechanism, data, n, rng), statistic))
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"`{name}`: {exc}") from None
    x0, x1 = draws
    half = n // 2
    s0, s1, e0, e1 = x0[:half], x1[:half], x0[half:], x1[half:]

    chosen = method
    if method == "auto":
        distinct = np.unique(np.concatenate([s0, s1])).size
        chosen = "likelihood_ratio" if 0 < distinct <= _MAX_DISCRETE else "threshold"
    reject = (_ratio_tests(s0, s1) if chosen == "likelihood_ratio"
              else _threshold_tests(s0, s1, n_thr))

    empty = np.zeros(0)
    if reject is None:
        return AuditResult(alpha=empty, beta=empty, alpha_lower=empty, alpha_upper=empty,
                           beta_lower=empty, beta_upper=empty, tradeoff=claimed,
                           violation=False, within_band=True, eps_lower=0.0, mu_lower=0.0,
                           delta=dlt, confidence=conf, n_samples=n, method=chosen)

    r0 = reject(e0)
    r1 = reject(e1)
    k_alpha = r0.sum(axis=0)  # P-outputs rejected: type I errors
    k_beta = (~r1).sum(axis=0)  # Q-outputs accepted: type II errors
    m = k_alpha.size
    level = 1.0 - (1.0 - conf) / (2.0 * m)
    n_eval = e0.size
    a_lo, a_hi = _clopper_pearson(k_alpha, n_eval, level)
    b_lo, b_hi = _clopper_pearson(k_beta, n_eval, level)
    a_hat = k_alpha / n_eval
    b_hat = k_beta / n_eval
    order = np.lexsort((-b_hat, a_hat))
    a_hat, b_hat, a_lo, a_hi, b_lo, b_hi = (v[order] for v in
                                            (a_hat, b_hat, a_lo, a_hi, b_lo, b_hi))

    tol = 1e-12
    f_a_hi = np.asarray(claimed(a_hi))
    f_b_hi = np.asarray(claimed(b_hi))
    f_a_lo = np.asarray(claimed(a_lo))
    violation = bool(np.any(f_a_hi > b_hi + tol) or np.any(f_b_hi > a_hi + tol))
    within = bool(np.all(f_a_hi <= b_hi + tol) and np.all(f_a_lo >= b_lo - tol))

    with np.errstate(divide="ignore", invalid="ignore"):
        num1 = 1.0 - dlt - b_hi
        num2 = 1.0 - dlt - a_hi
        c1 = np.where(num1 > 0, np.log(num1) - np.log(a_hi), -np.inf)
        c2 = np.where(num2 > 0, np.log(num2) - np.log(b_hi), -np.inf)
        mus = -special.ndtri(a_hi) - special.ndtri(b_hi)
    eps_lower = float(max(0.0, np.max(np.concatenate([c1, c2]))))
    mus = mus[np.isfinite(mus)]
    mu_lower = float(max(0.0, np.max(mus))) if mus.size else 0.0
    if math.isinf(eps_lower):  # pragma: no cover - CP upper bounds are positive
        eps_lower = 0.0

    return AuditResult(alpha=a_hat, beta=b_hat, alpha_lower=a_lo, alpha_upper=a_hi,
                       beta_lower=b_lo, beta_upper=b_hi, tradeoff=claimed,
                       violation=violation, within_band=within, eps_lower=eps_lower,
                       mu_lower=mu_lower, delta=dlt, confidence=conf, n_samples=n,
                       method=chosen)
