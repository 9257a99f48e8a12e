r"""One-run auditing: lower bounds on ε and μ from a single training run with canaries.

Theory of operation
-------------------
Steinke, Nasr and Jagielski (2023): put m canaries in the training set, each included
independently with probability 1/2 (:math:`S_i = \pm 1`), train **once**, and let an
auditor guess membership for k of them (e.g. "in" for the k₊ highest scores, "out" for the
k₋ lowest, abstaining on the rest; k fixed in advance). With v correct guesses out of k,
a privacy claim is refuted at confidence :math:`1-\tau` if every mechanism satisfying it
makes :math:`P[C \ge v] < \tau`. For pure ε-DP, C is dominated by
:math:`\mathrm{Binomial}(k, e^\varepsilon/(1+e^\varepsilon))` (SNJ Thm 3.1).

**The f-DP analysis** (Mahloujifar, Melis, Chaudhuri 2024) uses the whole curve. Let
:math:`F = 1 - f` and, for a level j, :math:`r_j = E[C\,1\{C \ge j\}]/m`,
:math:`h_j = E[W\,1\{C \ge j\}]/m` (W = k − C wrong guesses). For each canary i and each
value of the others, "guess i is +1 and at least j of the *other* guesses are right" is a
test between :math:`S_i = \pm1` (the others' correctness depends on the output and the
other canaries only), so its power is at most F of its size, in both directions; averaging
(F is concave) over the two values of :math:`S_i`, the other canaries and the m canaries
gives, for every j ≥ 0,

.. math:: r_{j+1} \le F(h_j).

If :math:`P[C \ge v] \ge \tau` then, after moving all mass above v down to v and scaling
(both keep the constraints, F being concave with F(0) ≥ 0), there is a law of C with mass
τ at v, for which :math:`r_v = \tau v/m`, :math:`h_v = \tau(k-v)/m`. Going down the levels
:math:`i = v-1, \dots, 0`, the constraint at level i forces
:math:`h_i \ge F^{-1}(r_{i+1})`; the cheapest way to meet it puts the missing mass at
level i exactly (mass at lower levels adds more wrong and less right mass to every later
constraint), which adds :math:`\frac{i}{k-i}(h_i - h_{i+1})` to r. Since
:math:`r_0 + h_0 = k P[C \ge 0]/m = k/m`, the claim is refuted when the forced
:math:`r_0 + h_0` exceeds :math:`k/m`. The false-alarm probability is then below τ for
every mechanism satisfying the claim (the rejected counts form a set all of whose
members are at least its smallest one, of probability < τ).

From the test: the largest μ (ε at a given δ) whose :math:`G_\mu`
(:math:`f_{\varepsilon,\delta}`) claim is refuted is a lower confidence bound on the
mechanism's μ (ε): the families are ordered, so the refuted claims form an interval.
``eps_lower_gaussian`` is the ε(δ) of the refuted Gaussian curve: a lower bound on ε only
if the mechanism's curve is a Gaussian one (the usual reading of Mahloujifar et al.),
labelled as such.

Soundness of the numerics: :math:`F^{-1}` is evaluated on its low side (closed forms
lowered by a bound on their rounding; a bisection on the sound curve otherwise), which can
only make a refutation harder; the final comparison allows 1e-12 relative.

References
----------
T. Steinke, M. Nasr, M. Jagielski, "Privacy Auditing with One (1) Training Run",
NeurIPS 2023. S. Mahloujifar, L. Melis, K. Chaudhuri, "Auditing f-Differential Privacy in
One Run", arXiv 2410.22235, 2024 (ICML 2025).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import EPS, bisect_bracket
from .._validation import (
    as_real_array,
    check_count,
    check_fields,
    check_int,
    check_real,
    count,
    flag,
    integer,
    optional,
    real,
    shown,
)
from ..core.tradeoff import TradeOff
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian, eps_from_mu
from ..families.gaussian_profile import _ndtr_error

__all__ = ["OneRunAudit", "audit_one_run", "one_run_guesses", "one_run_rejects"]


def _rejects(inverse: Callable[[float], float], canaries: int, guesses: int, correct: int,
             tau: float) -> bool:
    """The f-DP one-run test (module notes): True when P[C >= correct] < tau for every
    mechanism whose curve has the blow-up inverse ``inverse`` (a low-side F^{-1})."""
    m, k, v = canaries, guesses, correct
    if v == 0:
        return False
    r, h = tau * v / m, tau * (k - v) / m
    for i in range(v - 1, -1, -1):
        need = inverse(r)
        if not need > h:  # nothing missing at this level: nothing changes below either
            break
        r, h = r + i / (k - i) * (need - h), need
        if r + h > k / m:
            break
    return r + h > (k / m) * (1.0 + 1e-12)


def _gaussian_inverse(mu: float) -> Callable[[float], float]:
    r""":math:`F^{-1}(r) = \Phi(\Phi^{-1}(r) - \mu)` for :math:`G_\mu`, lowered by a bound on
    its rounding (``inf`` for r > 1)."""
    def inv(r: float) -> float:
        if r > 1.0:
            return math.inf
        z = float(special.ndtri(r))
        x = z - mu
        return float(special.ndtr(x)) * (1.0 - float(_ndtr_error(np.array(x), np.array(z))))
    return inv


def _eps_delta_inverse(eps: float, delta: float) -> Callable[[float], float]:
    r""":math:`F^{-1}` of :math:`f_{\varepsilon,\delta}`: :math:`\max\{0, (r-\delta)
    e^{-\varepsilon}, 1 - \delta - e^{\varepsilon}(1 - r)\}`, lowered by 4 ulps."""
    def inv(r: float) -> float:
        if r > 1.0:
            return math.inf
        x = max(0.0, (r - delta) * math.exp(-eps), 1.0 - delta - math.exp(eps) * (1.0 - r))
        return x * (1.0 - 4.0 * EPS)
    return inv


def _curve_inverse(f: TradeOff) -> Callable[[float], float]:
    r""":math:`F^{-1}(r) = \inf\{x : 1 - f^S(x) \ge r\}`: the closed forms for
    :math:`G_\mu` and :math:`f_{\varepsilon,\delta}`, else a bisection on the sound curve
    (the lower end of the final bracket)."""
    if isinstance(f, Gaussian):
        return _gaussian_inverse(float(f.mu))
    if isinstance(f, EpsDelta):
        return _eps_delta_inverse(float(f.eps), float(f.delta_))
    g = f if f.is_symmetric else f.symmetrize()

    def inv(r: float) -> float:
        if r > 1.0:
            return math.inf
        if float(g.one_minus(0.0)) >= r:
            return 0.0
        lo, _ = bisect_bracket(lambda x: np.asarray(g.one_minus(x)) >= r, np.zeros(1),
                               np.ones(1), xtol=0.0, rtol=1e-15)
        return float(lo[0])
    return inv


def _largest_refuted(make: Callable[[float], Callable[[float], float]], args: tuple,
                     hi: float) -> float:
    """The largest parameter (μ or ε) whose claim is refuted; 0 when none is."""
    if not _rejects(make(0.0), *args):
        return 0.0
    top = hi
    while _rejects(make(top), *args):
        top *= 2.0
        if top > 1e4:
            return math.inf
    lo, _ = bisect_bracket(lambda x: np.array([not _rejects(make(float(x[0])), *args)]),
                           np.zeros(1), np.array([top]), rtol=1e-6)
    return float(lo[0])


@dataclass(frozen=True, slots=True)
class OneRunAudit:
    r"""The outcome of :func:`audit_one_run`.

    Attributes
    ----------
    canaries, guesses, correct : int
        m, k and v.
    confidence : float
        :math:`1 - \tau`: every statement holds with at least this probability.
    violation : bool or None
        True when the claimed curve is refuted (None without a claim).
    mu_lower : float
        Lower confidence bound on μ: the mechanism is not :math:`G_{\mu'}`-DP for any
        :math:`\mu' < ` ``mu_lower``.
    eps_lower : float
        Lower confidence bound on ε at ``delta``: not :math:`(\varepsilon', \delta)`-DP for
        any :math:`\varepsilon' <` ``eps_lower`` (the :math:`f_{\varepsilon,\delta}` curves).
    eps_lower_gaussian : float
        :math:`\varepsilon(\delta)` of :math:`G_{\mu_{\rm lower}}`: a lower bound on ε *if*
        the mechanism's curve is Gaussian (an assumption; labelled so).
    eps_lower_pure : float
        The ε of Steinke–Nasr–Jagielski's binomial test for pure ε-DP (a comparison).
    delta : float
        The δ of ``eps_lower`` and ``eps_lower_gaussian``.
    """

    canaries: int
    guesses: int
    correct: int
    confidence: float
    violation: bool | None
    mu_lower: float
    eps_lower: float
    eps_lower_gaussian: float
    eps_lower_pure: float
    delta: float

    def __post_init__(self):
        bound = real(lo=0.0, finite=False)
        check_fields(self, canaries=count(), guesses=integer(lo=0), correct=integer(lo=0),
                     confidence=real(lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                     violation=optional(flag()), mu_lower=bound, eps_lower=bound,
                     eps_lower_gaussian=bound, eps_lower_pure=bound,
                     delta=real(lo=0.0, hi=1.0, hi_open=True))
        _counts(self.correct, self.guesses, self.canaries, self.confidence)


def one_run_rejects(f: TradeOff, *, correct: int, guesses: int, canaries: int,
                    confidence: float = 0.95) -> bool:
    r"""True when ``correct`` right guesses out of ``guesses`` refute the claim that the
    mechanism is f-DP, at the given confidence (the f-DP one-run test of the module notes).

    Examples
    --------
    >>> import gdp
    >>> gdp.one_run_rejects(gdp.G_mu(1.0), correct=100, guesses=100, canaries=1000)
    True
    >>> gdp.one_run_rejects(gdp.G_mu(2.0), correct=100, guesses=100, canaries=1000)
    False
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"`f` must be a TradeOff; got f={f!r}")
    m, k, v, tau = _counts(correct, guesses, canaries, confidence)
    return _rejects(_curve_inverse(f), m, k, v, tau)


def _counts(correct: Any, guesses: Any, canaries: Any, confidence: Any
            ) -> tuple[int, int, int, float]:
    m = check_count("canaries", canaries)
    k = check_int("guesses", guesses, lo=0)
    if k > m:
        raise ValueError(f"`guesses` must be at most `canaries`; got guesses={k}, canaries={m}")
    v = check_int("correct", correct, lo=0)
    if v > k:
        raise ValueError(f"`correct` must be at most `guesses`; got correct={v}, guesses={k}")
    c = check_real("confidence", confidence, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return m, k, v, 1.0 - c


def audit_one_run(*, correct: int, guesses: int, canaries: int,
                  tradeoff: TradeOff | None = None, confidence: float = 0.95,
                  delta: float = 1e-5) -> OneRunAudit:
    r"""Lower confidence bounds on μ and ε (and a verdict on a claimed curve) from one
    training run with ``canaries`` canaries, of which ``guesses`` were guessed and
    ``correct`` right.

    Parameters
    ----------
    correct, guesses, canaries : int
        v ≤ k ≤ m. The number of guesses must be fixed before the run (e.g. the k₊ highest
        and k₋ lowest scores, :func:`one_run_guesses`); each canary is included
        independently with probability 1/2.
    tradeoff : TradeOff, optional
        The curve the mechanism claims; ``violation`` says whether it is refuted.
    confidence : float
        In (0, 1): the probability that each statement holds.
    delta : float
        The δ of the ε bounds.

    Examples
    --------
    >>> import gdp
    >>> res = gdp.audit_one_run(correct=196, guesses=200, canaries=1000,
    ...                         tradeoff=gdp.G_mu(1.0))
    >>> res.violation, round(res.mu_lower, 3), round(res.eps_lower, 3)
    (True, 1.134, 3.035)
    """
    m, k, v, tau = _counts(correct, guesses, canaries, confidence)
    d = check_real("delta", delta, lo=0.0, hi=1.0, hi_open=True)
    violation = None
    if tradeoff is not None:
        if not isinstance(tradeoff, TradeOff):
            raise TypeError(f"`tradeoff` must be a TradeOff; got tradeoff={tradeoff!r}")
        violation = _rejects(_curve_inverse(tradeoff), m, k, v, tau)
    args = (m, k, v, tau)
    mu_lo = _largest_refuted(_gaussian_inverse, args, 1.0)
    eps_lo = _largest_refuted(lambda e: _eps_delta_inverse(e, d), args, 1.0)
    eps_g = float(eps_from_mu(mu_lo, d)) if 0 < mu_lo < math.inf else mu_lo
    return OneRunAudit(canaries=m, guesses=k, correct=v, confidence=1.0 - tau,
                       violation=violation, mu_lower=mu_lo, eps_lower=eps_lo,
                       eps_lower_gaussian=eps_g, eps_lower_pure=_snj_pure(k, v, tau), delta=d)


def _snj_pure(k: int, v: int, tau: float) -> float:
    r"""Largest ε with :math:`P[\mathrm{Bin}(k, e^\varepsilon/(1+e^\varepsilon)) \ge v] <
    \tau` (SNJ Thm 3.1), or 0."""
    if v == 0 or special.bdtrc(v - 1, k, 0.5) >= tau:
        return 0.0

    def pval(e: np.ndarray) -> np.ndarray:
        return special.bdtrc(v - 1, k, special.expit(e))

    if pval(np.array([700.0]))[0] < tau:
        return math.inf
    lo, _ = bisect_bracket(lambda e: pval(e) >= tau, np.zeros(1), np.array([700.0]),
                           rtol=1e-9)
    return float(lo[0])


def one_run_guesses(scores: Any, included: Any, *, k_plus: int, k_minus: int = 0
                    ) -> tuple[int, int]:
    r"""The auditor's guesses from canary scores: "in" for the ``k_plus`` highest scores,
    "out" for the ``k_minus`` lowest, abstain on the rest. Returns ``(correct, guesses)``.

    Examples
    --------
    >>> import gdp
    >>> gdp.one_run_guesses([3.0, 0.1, 2.0, -1.0], [True, False, True, True],
    ...                     k_plus=1, k_minus=1)
    (1, 2)
    """
    s = as_real_array("scores", scores).reshape(-1)
    inc = np.asarray(included, dtype=bool).reshape(-1)
    if inc.shape != s.shape:
        raise ValueError(f"`included` must have one entry per entry of `scores`; got "
                         f"{inc.size} for {s.size} scores (scores={shown(scores)})")
    kp = check_int("k_plus", k_plus, lo=0, hi=s.size)
    km = check_int("k_minus", k_minus, lo=0, hi=s.size - kp)
    order = np.argsort(s, kind="stable")
    top, bottom = order[s.size - kp:], order[:km]
    return int(inc[top].sum() + (~inc[bottom]).sum()), kp + km
