r"""``gdp.risk``: attack risk from trade-off curves, and noise calibrated to an attack-risk
target.

The measures (:func:`tpr_at_fpr`, :func:`advantage`, :func:`attack_success`,
:func:`reconstruction_success`, :func:`reidentification_success`,
:func:`attribute_inference_success`, :func:`certified_mu`, :func:`gaussian_fit`) live in
:mod:`gdp.accounting.attack_risk` and are re-exported here; this module adds the
calibration to a risk target.

Theory of operation
-------------------
Practitioners state requirements as attack risk: "no membership attack may reach a
true-positive rate above t at a false-positive rate of a" (or at any FPR ≤ a: the TPR
bound :math:`1 - f(\alpha)` increases with α, so the two are the same target), or "the
advantage :math:`\mathrm{TPR} - \mathrm{FPR}` of any attack stays below x". More noise (a
larger σ) or fewer steps give a higher curve and lower risks, so each target holds on an
interval of σ (of steps), and the boundary is found by bisection on the *sound* side:

* the Gaussian mechanism (k uses, sensitivity Δ) has the curve :math:`G_{\sqrt k\Delta/\sigma}`
  and closed forms: TPR :math:`\Phi(\Phi^{-1}(a) + \mu) \le t` iff
  :math:`\mu \le \Phi^{-1}(t) - \Phi^{-1}(a)`, advantage :math:`2\Phi(\mu/2) - 1 \le x` iff
  :math:`\mu \le 2\Phi^{-1}((1+x)/2)`; the σ is then moved up until the risk computed from
  the (rounded-to-the-safe-side) curve meets the target;
* DP-SGD and any σ ↦ curve: the risk is evaluated on the sound curve (an upper bound), and
  the σ returned is one at which the target was *checked*, within a factor ``1 + rtol``
  of the smallest such σ; :func:`max_steps` does the same for the number of steps at a
  fixed σ (the largest T at which the target was checked; T + 1 fails).

References
----------
B. Kulynych, J. F. Gomez, G. Kaissis, F. du Pin Calmon, C. Troncoso, "Attack-Aware Noise
Calibration for Differential Privacy", NeurIPS 2024 (calibrating to TPR/FPR and advantage
instead of ε). DRS: Dong, Roth, Su, JRSS-B 2022 (G_μ, the Gaussian mechanism).

Imports: every floor up to :mod:`gdp.bounds` and the other modules of
:mod:`gdp.accounting`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import step_until
from .._validation import (
    as_real_array,
    check_count,
    check_fields,
    check_real,
    choice,
    count,
    optional,
    real,
    shown,
    text,
)
from ..approx.limits import noisy_sgd_mu
from ..core.tradeoff import TradeOff
from ..families.gaussian import G_mu
from ..sampling.dp_sgd import dpsgd
from . import attack_risk
from .attack_risk import *  # noqa: F403 (gdp.risk is the public face of the measures)
from .calibrate import _check_rtol, _check_sigma_range, _sigma_from_clt_mu, _smallest_sigma

__all__ = [*attack_risk.__all__, "RiskCalibration", "calibrate_risk", "calibrate_gaussian_risk",
           "calibrate_dpsgd_risk", "max_steps"]


@dataclass(frozen=True, slots=True)
class RiskCalibration:
    r"""The result of a calibration to an attack-risk target.

    Attributes
    ----------
    sigma : float
        The noise scale (noise multiplier for DP-SGD) found, or the one given to
        :func:`max_steps`.
    steps : int or None
        The number of steps (DP-SGD), found by :func:`max_steps` or given.
    criterion : str
        ``"tpr"`` (TPR at ``fpr`` at most ``target``) or ``"advantage"``.
    target : float
        The largest risk allowed.
    fpr : float or None
        The false-positive rate of a TPR target.
    achieved : float
        The risk at the answer, computed on the sound curve (an upper bound on the truth).
    bounds : tuple of float or None
        The risk on both sides of a numeric curve's bracket ``(optimistic, sound)``.
    last_failing : float
        The σ (or number of steps) next to the answer that does *not* meet the target:
        the answer is exact up to the gap between the two.
    kind : str
        ``"bound"``: the target is guaranteed at the answer.
    notes : str
        How it was computed.
    """

    sigma: float
    steps: int | None
    criterion: str
    target: float
    fpr: float | None
    achieved: float
    bounds: tuple[float, float] | None
    last_failing: float
    kind: str = "bound"
    notes: str = ""

    def __post_init__(self):
        check_fields(self, sigma=real(lo=0.0, lo_open=True), steps=optional(count()),
                     criterion=choice(("tpr", "advantage")),
                     target=real(lo=0.0, hi=1.0), fpr=optional(real(lo=0.0, hi=1.0)),
                     achieved=real(lo=0.0, hi=1.0), last_failing=real(lo=0.0, finite=False),
                     kind=choice(("bound",)), notes=text())
        if self.bounds is not None:
            b = as_real_array("bounds", self.bounds, lo=0.0, hi=1.0).reshape(-1)
            if b.size != 2 or b[0] > b[1]:
                raise ValueError(f"`bounds` must be a pair (low, high) with low <= high; got "
                                 f"bounds={shown(self.bounds)}")
            object.__setattr__(self, "bounds", (float(b[0]), float(b[1])))


def _risk_target(tpr: Any, fpr: Any, adv: Any) -> tuple[str, float, float | None]:
    """Validate that one target is given: ``(criterion, target, fpr)``."""
    if adv is not None:
        if tpr is not None or fpr is not None:
            raise TypeError("give either `advantage` or `tpr` with `fpr`, not both")
        x = check_real("advantage", adv, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        return "advantage", x, None
    if tpr is None or fpr is None:
        raise TypeError("give a target: `advantage`, or `tpr` together with `fpr`")
    a = check_real("fpr", fpr, lo=0.0, hi=1.0, hi_open=True)
    t = check_real("tpr", tpr, lo=0.0, hi=1.0)
    if t <= a:
        raise ValueError(f"`tpr` must exceed `fpr`: a TPR of at most the FPR is reached only "
                         f"by perfect privacy (no finite noise); got tpr={t!r}, fpr={a!r}")
    return "tpr", t, a


def _risk(f: TradeOff, criterion: str, fpr: float | None) -> float:
    """The risk of the target's kind, on the sound side of the curve."""
    if criterion == "tpr":
        return float(attack_risk.tpr_at_fpr(f, fpr))
    return attack_risk.advantage(f)


def _bounds(f: TradeOff, criterion: str, fpr: float | None) -> tuple[float, float] | None:
    upper = getattr(f, "upper", None)
    if not isinstance(upper, TradeOff):
        return None
    return _risk(upper, criterion, fpr), _risk(f, criterion, fpr)


def _gaussian_mu(criterion: str, target: float, fpr: float | None) -> float:
    """The μ at which G_μ has exactly the target risk (closed forms)."""
    if criterion == "tpr":
        return float(special.ndtri(target) - special.ndtri(fpr)) if fpr > 0 else math.inf
    return 2.0 * float(special.ndtri(0.5 * (1.0 + target)))


def _sgd_setup(p: Any, tpr: Any, fpr: Any, adv: Any, accuracy: Any
               ) -> tuple[float, str, float, float | None, dict[str, Any], float]:
    """Validated DP-SGD arguments: rate, target, engine keywords and the target's G_μ."""
    q = check_real("p", p, lo=0.0, hi=1.0, lo_open=True)
    criterion, target, a = _risk_target(tpr, fpr, adv)
    if accuracy is not None and not isinstance(accuracy, Mapping):
        raise TypeError(f"`accuracy` must be a dict of numeric-engine keywords; got "
                        f"accuracy={accuracy!r}")
    mu = _gaussian_mu(criterion, target, a if a is None or a > 0 else 5e-324)
    return q, criterion, target, a, dict(accuracy or {}), mu


def calibrate_gaussian_risk(*, tpr: float | None = None, fpr: float | None = None,
                            advantage: float | None = None, sensitivity: float = 1.0,
                            k: int = 1) -> RiskCalibration:
    r"""The smallest σ of the Gaussian mechanism (used ``k`` times, sensitivity Δ) whose
    curve :math:`G_{\sqrt k\Delta/\sigma}` meets an attack-risk target.

    Parameters
    ----------
    tpr, fpr : float
        Target: every membership attack with false-positive rate at most ``fpr`` has
        true-positive rate at most ``tpr`` (``tpr > fpr``).
    advantage : float
        Target: :math:`\sup(\mathrm{TPR} - \mathrm{FPR}) \le` ``advantage``, in (0, 1).
    sensitivity : float
        The ℓ2 sensitivity Δ > 0.
    k : int
        Number of uses (the composition is :math:`G_{\sqrt k\mu}`).

    Notes
    -----
    :math:`\mu^* = \Phi^{-1}(t) - \Phi^{-1}(a)` (TPR target; ``fpr = 0`` allows any μ,
    since :math:`G_\mu(0) = 1`, and the smallest positive float is used) or
    :math:`2\Phi^{-1}((1+x)/2)` (advantage), and :math:`\sigma = \sqrt k\Delta/\mu^*`,
    moved up by ulps until the risk of the curve (rounded to the safe side) meets the
    target.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.risk.calibrate_gaussian_risk(tpr=0.05, fpr=0.01)
    >>> round(c.sigma, 4), c.achieved <= 0.05
    (1.4674, True)
    >>> round(gdp.risk.calibrate_gaussian_risk(advantage=0.1).sigma, 4)
    3.9789
    """
    criterion, target, a = _risk_target(tpr, fpr, advantage)
    s = check_real("sensitivity", sensitivity, lo=0.0, lo_open=True)
    kk = check_count("k", k)
    scale = math.sqrt(kk) * s
    mu = _gaussian_mu(criterion, target, a if a is None or a > 0 else 5e-324)
    sigma = scale / mu

    def meets(x: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", divide="ignore"):
            mus = scale / np.atleast_1d(np.asarray(x, dtype=float))  # sigma 0: mu = inf
        return np.array([math.isfinite(m) and _risk(G_mu(float(m)), criterion, a) <= target
                         for m in mus])

    sigma = float(step_until(meets, np.array([sigma]), np.inf, tries=64)[0])
    achieved = _risk(G_mu(scale / sigma), criterion, a)
    below = float(step_until(lambda x: ~meets(x), np.array([np.nextafter(sigma, 0.0)]), 0.0,
                             tries=64)[0])
    return RiskCalibration(sigma=sigma, steps=None, criterion=criterion, target=target, fpr=a,
                           achieved=achieved, bounds=None, last_failing=below,
                           notes="closed form for G_mu (DRS Thm 2.7, Cor. 3.3), sigma rounded "
                                 "up until the risk is verified")


def calibrate_risk(make: Callable[[float], TradeOff], *, tpr: float | None = None,
                   fpr: float | None = None, advantage: float | None = None,
                   sigma_start: float = 1.0, rtol: float = 1e-3, sigma_min: float = 1e-3,
                   sigma_max: float = 1e4) -> RiskCalibration:
    r"""The smallest σ (up to a factor ``1 + rtol``) for which the curve ``make(σ)`` meets an
    attack-risk target, checked on its sound side.

    Parameters
    ----------
    make : callable
        σ ↦ TradeOff, more private (higher curve) for larger σ.
    tpr, fpr, advantage : float
        The target, as in :func:`calibrate_gaussian_risk`.
    sigma_start, rtol, sigma_min, sigma_max
        As in :func:`gdp.calibrate_sigma`.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.risk.calibrate_risk(lambda s: gdp.G_mu(1.0 / s) ** 4, advantage=0.2)
    >>> exact = 2 * gdp.risk.calibrate_gaussian_risk(advantage=0.2).sigma  # G_{2/sigma}
    >>> c.last_failing < exact <= c.sigma <= exact * 1.001
    True
    """
    if not callable(make):
        raise TypeError(f"`make` must be callable (sigma -> TradeOff); got make={make!r}")
    criterion, target, a = _risk_target(tpr, fpr, advantage)
    r = _check_rtol(rtol)
    s0, smin, smax = _check_sigma_range(sigma_start, sigma_min, sigma_max)
    cache: dict[float, tuple[bool, TradeOff]] = {}

    def ok(s: float) -> bool:
        if s not in cache:
            h = make(s)
            if not isinstance(h, TradeOff):
                raise TypeError(f"`make` must return a TradeOff; got {h!r} at sigma={s!r}")
            cache[s] = (_risk(h, criterion, a) <= target, h)
        return cache[s][0]

    what = (f"tpr={target:g} at fpr={a:g}" if criterion == "tpr" else f"advantage={target:g}")
    lo, hi = _smallest_sigma(ok, s0, rtol=r, sigma_max=smax,
                             sigma_min=smin, what=what)
    h = cache[hi][1]
    return RiskCalibration(sigma=hi, steps=None, criterion=criterion, target=target, fpr=a,
                           achieved=_risk(h, criterion, a), bounds=_bounds(h, criterion, a),
                           last_failing=lo, notes="bisection in log sigma on the sound curve")


def calibrate_dpsgd_risk(*, p: float, steps: int, tpr: float | None = None,
                         fpr: float | None = None, advantage: float | None = None,
                         rtol: float = 1e-3, accuracy: Mapping[str, Any] | None = None
                         ) -> RiskCalibration:
    r"""The smallest noise multiplier σ of DP-SGD (Poisson rate ``p``, ``steps`` steps) whose
    exact curve (:func:`gdp.dpsgd`, sound side) meets an attack-risk target.

    Seeded by the noisy-SGD CLT (the σ whose CLT μ has the target risk); the answer is
    checked on the engine's sound curve, never on the CLT.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.risk.calibrate_dpsgd_risk(p=0.01, steps=1000, tpr=0.01, fpr=1e-3)
    >>> round(c.sigma, 3), c.achieved <= 0.01, c.steps
    (0.754, True, 1000)
    """
    t = check_count("steps", steps)
    q, criterion, target, a, acc, mu = _sgd_setup(p, tpr, fpr, advantage, accuracy)
    # the CLT seed; a target met only by (near) perfect privacy (mu = 0) starts high
    start = (_sigma_from_clt_mu(mu, q, t) if 0.0 < mu < math.inf
             else 1e-3 if mu > 0.0 else 1e4)
    res = calibrate_risk(lambda s: dpsgd(sigma=s, p=q, steps=t, **acc), tpr=tpr, fpr=fpr,
                         advantage=advantage, sigma_start=start, rtol=rtol)
    return RiskCalibration(sigma=res.sigma, steps=t, criterion=criterion, target=target, fpr=a,
                           achieved=res.achieved, bounds=res.bounds,
                           last_failing=res.last_failing,
                           notes="exact DP-SGD curve (gdp.dpsgd), sound side; seeded by the "
                                 "noisy-SGD CLT")


def max_steps(*, sigma: float, p: float, tpr: float | None = None, fpr: float | None = None,
              advantage: float | None = None, steps_max: int = 10**6,
              accuracy: Mapping[str, Any] | None = None) -> RiskCalibration:
    r"""The largest number of DP-SGD steps at noise multiplier σ and rate ``p`` whose exact
    curve (sound side) meets an attack-risk target.

    More steps compose more losses, so the risk grows with the number of steps; the search
    doubles from the CLT's estimate, then bisects on integers. ``last_failing`` is the
    smallest number of steps seen that fails (``steps + 1`` at the end of the search).
    Raises ``ValueError`` when one step already fails; returns ``steps_max`` if that still
    meets the target.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.risk.max_steps(sigma=1.0, p=0.01, advantage=0.1)
    >>> c.steps, c.last_failing, c.achieved <= 0.1
    (384, 385.0, True)
    """
    s = check_real("sigma", sigma, lo=0.0, lo_open=True)
    tmax = check_count("steps_max", steps_max)
    q, criterion, target, a, acc, mu = _sgd_setup(p, tpr, fpr, advantage, accuracy)
    seen: dict[int, tuple[bool, TradeOff]] = {}

    def ok(n: int) -> bool:
        if n not in seen:
            h = dpsgd(sigma=s, p=q, steps=n, **acc)
            seen[n] = (_risk(h, criterion, a) <= target, h)
        return seen[n][0]

    if not ok(1):
        what = (f"tpr={target!r} at fpr={a!r}" if criterion == "tpr"
                else f"advantage={target!r}")
        raise ValueError(f"one step at sigma={s:g}, p={q:g} already exceeds the target "
                         f"{what}; use more noise or a smaller sampling rate")
    # first guess: the CLT's mu = p sqrt(T (e^{1/sigma^2} - 1)) at the target's mu
    per_step = float(noisy_sgd_mu(s, q, 1)) ** 2
    guess = int(min(tmax, max(1, (mu * mu / per_step)
                              if math.isfinite(mu) and per_step > 0.0 else tmax)))
    lo, hi = 1, math.inf  # ok(lo) holds; ok(hi) fails
    if ok(guess):
        lo = guess
        while lo < tmax and hi == math.inf:
            n = min(tmax, 2 * lo)
            lo, hi = (n, hi) if ok(n) else (lo, n)
    else:
        hi = guess
        while hi - lo > 1 and not ok(max(lo, hi // 2)):
            hi = max(lo, hi // 2)
        lo = max(lo, hi // 2)
    while hi - lo > 1 and hi != math.inf:
        mid = (lo + int(hi)) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    h = seen[lo][1]
    return RiskCalibration(sigma=s, steps=lo, criterion=criterion, target=target, fpr=a,
                           achieved=_risk(h, criterion, a), bounds=_bounds(h, criterion, a),
                           last_failing=float(hi),
                           notes="largest T with the target met on the sound DP-SGD curve "
                                 "(doubling from the CLT estimate, then bisection)")
