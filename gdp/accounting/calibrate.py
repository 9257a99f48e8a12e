r"""Noise calibration: the smallest σ that meets a privacy target, by safe root finding.

Theory of operation
-------------------
More noise means more privacy: for the Gaussian mechanism :math:`G_{\Delta/\sigma}` and for
DP-SGD (Poisson-subsampled Gaussian steps) the trade-off curve rises with σ, so every target
— ε at δ, μ-GDP (:math:`h \ge G_\mu`) or a whole trade-off curve :math:`h \ge f` — is met
exactly on an interval :math:`[\sigma^*, \infty)`. The calibration brackets
:math:`\sigma^*` (doubling or halving from a cheap first guess), then bisects in
:math:`\log\sigma` until the bracket is narrower than ``rtol``, and returns the upper end:
a σ at which the target was *checked* on the sound side (the numeric ε is an upper bound,
the numeric curve a lower bound), within a factor ``1 + rtol`` of the smallest such σ.

Nothing given is changed; the result is a frozen :class:`Calibration` with the σ, the value
achieved at it, and, for numeric curves, the two-sided bracket of that value.

First guesses come from cheap formulas: the RDP accountant (sound, a little loose, so the
exact σ is at most a little smaller) for ε targets and the noisy-SGD CLT for μ targets.

References
----------
Balle, Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018 (the
exact Gaussian σ); DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022;
BDLS: Bu, Dong, Long, Su, "Deep Learning with Gaussian Differential Privacy", HDSR 2020
(the CLT μ of noisy SGD, :math:`\mu = p\sqrt{T(e^{1/\sigma^2}-1)}`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import bisect_bracket, step_until
from .._progress import Progress, ProgressCallback, as_progress
from .._validation import check_int, check_real
from ..approx.limits import noisy_sgd_mu
from ..bounds.rdp import eps_from_rdp, rdp_sampled_gaussian
from ..core.piecewise import Identity
from ..core.tradeoff import TradeOff
from ..families.gaussian import G_mu, eps_from_mu, mu_from_eps_delta, sigma_from_eps_delta
from ..sampling.dp_sgd import dpsgd

__all__ = ["Calibration", "calibrate_sigma", "calibrate_dpsgd", "calibrate_gaussian"]

@dataclass(frozen=True, slots=True)
class Calibration:
    r"""The result of a calibration.

    Attributes
    ----------
    sigma : float
        The noise scale (noise multiplier for DP-SGD) found.
    criterion : str
        ``"epsilon"`` (ε at ``delta`` ≤ ``target``), ``"mu"`` (the curve dominates
        :math:`G_{\text{target}}`; for ``method="clt"`` the CLT μ is ≤ target) or
        ``"tradeoff"`` (the curve dominates the given trade-off function).
    target : float or None
        The target ε or μ (None for a trade-off target).
    achieved : float or None
        The value at ``sigma``: the sound ε (``"epsilon"``), the μ (``"mu"``: the target,
        now certified, or the CLT μ); None for a trade-off target (dominance holds).
    delta : float or None
        The δ of an ε target.
    bounds : tuple of float or None
        ``(lower, upper)`` bracket of ``achieved`` for numeric curves.
    method : str
        ``"exact"`` (tensor product / closed form), ``"rdp"`` or ``"clt"``.
    kind : str
        ``"bound"`` (the target is guaranteed at ``sigma``) or ``"approximation"`` (CLT:
        not a guarantee).
    sigma_lower : float
        Largest σ seen that does *not* meet the target (0 when the target is met for every
        σ tried); the smallest valid σ lies in ``(sigma_lower, sigma]``.
    notes : str
        How it was computed.
    """

    sigma: float
    criterion: str
    target: float | None
    achieved: float | None
    delta: float | None = None
    bounds: tuple[float, float] | None = None
    method: str = "exact"
    kind: str = "bound"
    sigma_lower: float = 0.0
    notes: str = ""


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------
def _smallest_sigma(test: Callable[[float], bool], start: float, *, rtol: float,
                    sigma_max: float, sigma_min: float, what: str,
                    progress: Progress | None = None) -> tuple[float, float]:
    """Smallest σ with ``test(σ)`` (assumed monotone) up to a factor 1 + rtol.

    Returns ``(lo, hi)`` with ``test(hi)`` True and ``test(lo)`` False (``lo = 0`` if it
    held down to ``sigma_min``). Raises ``ValueError`` when it fails up to ``sigma_max``.
    Each evaluation is a progress step: the bracketing ones fill the first 30 % (their
    number is not known in advance), the bisection ones, counted once the bracket is
    known, the rest.
    """
    prog = progress or Progress()
    state = {"n": 0, "of": 0}  # evaluations so far; bisection steps expected (0: bracketing)

    def ok(s: float) -> bool:
        met = test(s)
        state["n"] += 1
        n, of = state["n"], state["of"]
        frac = 0.3 * (1 - 0.7 ** n) if of == 0 else 0.3 + 0.7 * min(n / of, 1.0)
        prog(frac, f"sigma = {s:.6g} {'meets' if met else 'misses'} {what}")
        return met

    hi = start
    if ok(hi):
        lo = max(hi / 2.0, sigma_min)
        while ok(lo):
            hi = lo
            if lo <= sigma_min:
                return 0.0, hi
            lo = max(lo / 2.0, sigma_min)
    else:
        lo = hi
        hi = lo * 2.0
        while not ok(hi):
            lo = hi
            if hi >= sigma_max:
                raise ValueError(f"the target {what} is not met even at sigma={hi:g}; it "
                                 "cannot be reached by adding noise (or needs sigma > "
                                 f"sigma_max={sigma_max:g})")
            hi = min(hi * 2.0, sigma_max)
    if hi / lo > 1.0 + rtol:  # bisect in log sigma down to a factor 1 + rtol
        state["n"], state["of"] = 0, math.ceil(math.log2(math.log(hi / lo) / math.log1p(rtol)))
        llo, lhi = bisect_bracket(lambda z: np.array(ok(float(np.exp(z)))), math.log(lo),
                                  math.log(hi), xtol=math.log1p(rtol), rtol=0.0)
        lo, hi = float(np.exp(llo)), float(np.exp(lhi))
    prog.done(f"sigma = {hi:.6g} (smallest within a factor {1 + rtol:g})")
    return lo, hi


def _target(eps: Any, delta: Any, mu: Any, tradeoff: Any) -> tuple[str, Any, Any]:
    """Validate that exactly one target is given; returns (criterion, value, delta)."""
    given = [name for name, v in (("eps", eps), ("mu", mu), ("tradeoff", tradeoff))
             if v is not None]
    if len(given) != 1:
        raise TypeError("give exactly one target: `eps` (with `delta`), `mu` or `tradeoff`; "
                        f"got {given or 'none'}")
    if eps is not None:
        if delta is None:
            raise TypeError("`delta` is required with an `eps` target")
        e = check_real("eps", eps, lo=0.0)
        d = check_real("delta", delta, lo=0.0, hi=1.0)
        if d == 0.0:
            raise ValueError("`delta` must be positive for Gaussian noise: every finite sigma "
                             "has delta(eps) > 0 for all eps; got delta=0.0")
        return "epsilon", e, d
    if delta is not None:
        raise TypeError("`delta` goes with an `eps` target only")
    if mu is not None:
        m = check_real("mu", mu, lo=0.0, lo_open=True)
        return "mu", m, None
    if not isinstance(tradeoff, TradeOff):
        raise TypeError(f"`tradeoff` must be a TradeOff; got tradeoff={tradeoff!r}")
    if isinstance(tradeoff, Identity):
        raise ValueError("the target `tradeoff` is the identity (perfect privacy); no finite "
                         "noise reaches it")
    # a convex f <= 1 - alpha that reaches 1 - alpha inside (0, 1) is the identity
    a = np.linspace(0.0, 1.0, 2001)[1:-1]
    touch = np.asarray(tradeoff(a)) >= 1.0 - a
    if touch.any():
        raise ValueError("the target `tradeoff` reaches the identity 1 - alpha at alpha="
                         f"{float(a[np.argmax(touch)]):g} (so it is the identity); no finite "
                         "noise reaches it")
    return "tradeoff", tradeoff, None


def _check_rtol(rtol: Any) -> float:
    return check_real("rtol", rtol, lo=0.0, hi=1.0, lo_open=True)


def calibrate_sigma(make: Callable[[float], TradeOff], *, eps: float | None = None,
                    delta: float | None = None, mu: float | None = None,
                    tradeoff: TradeOff | None = None, sigma_start: float = 1.0,
                    rtol: float = 1e-3, sigma_min: float = 1e-6,
                    sigma_max: float = 1e6,
                    progress: ProgressCallback | None = None) -> Calibration:
    r"""Smallest σ (up to a factor ``1 + rtol``) for which ``make(σ)`` meets a target.

    Parameters
    ----------
    make : callable
        σ ↦ TradeOff, more private (higher curve) for larger σ.
    eps, delta : float
        Target: the sound :meth:`~gdp.TradeOff.epsilon` at ``delta`` is ≤ ``eps``.
    mu : float
        Target: ``make(σ).dominates(gdp.G_mu(mu))`` (μ-GDP, checked on the sound curve).
    tradeoff : TradeOff
        Target: ``make(σ).dominates(tradeoff)``.
    sigma_start : float
        First guess; the bracket grows or shrinks from here by factors of 2.
    rtol : float
        Relative width of the final bracket on σ.
    sigma_min, sigma_max : float
        Search limits. A target not met at ``sigma_max`` raises ``ValueError``; one met at
        ``sigma_min`` returns ``sigma_min`` (with ``sigma_lower = 0``).
    progress : callable, optional
        ``progress(fraction, message)`` after each σ tried (see :mod:`gdp._progress`).

    Returns
    -------
    Calibration

    Notes
    -----
    Bisection in :math:`\log\sigma`; the returned σ is one at which the target was verified,
    so the answer is sound even if the numeric ε is not exactly monotone in σ.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.calibrate_sigma(lambda s: gdp.G_mu(1.0 / s) ** 10, eps=1.0, delta=1e-5)
    >>> exact = 10 ** 0.5 * gdp.sigma_from_eps_delta(1.0, 1.0, 1e-5)  # G_mu^10 = G_{sqrt(10) mu}
    >>> c.sigma_lower < exact, round(c.sigma / exact, 2), c.achieved <= 1.0
    (True, 1.0, True)
    """
    if not callable(make):
        raise TypeError(f"`make` must be callable (sigma -> TradeOff); got make={make!r}")
    prog = as_progress(progress)
    criterion, value, d = _target(eps, delta, mu, tradeoff)
    r = _check_rtol(rtol)
    s0 = check_real("sigma_start", sigma_start, lo=0.0, lo_open=True)
    smin = check_real("sigma_min", sigma_min, lo=0.0, lo_open=True)
    smax = check_real("sigma_max", sigma_max, lo=smin)
    s0 = min(max(s0, smin), smax)
    cache: dict[float, tuple[bool, TradeOff | None]] = {}
    errors: list[str] = []
    ref = G_mu(value) if criterion == "mu" else value

    def ok(s: float) -> bool:
        if s not in cache:
            h = make(s)
            if not isinstance(h, TradeOff):
                raise TypeError(f"`make` must return a TradeOff; got {h!r} at sigma={s!r}")
            try:
                met = (float(h.epsilon(d)) <= value if criterion == "epsilon"
                       else bool(h.dominates(ref)))
            except ValueError as exc:  # e.g. the numeric engine's accuracy or memory cap:
                errors.append(f"sigma={s:g}: {exc}")  # not certified, so not met
                met = False
            cache[s] = (met, h)
        return cache[s][0]

    if criterion == "epsilon":
        what = f"eps={value:g} at delta={d:g}"
    else:
        what = f"mu={value:g}" if criterion == "mu" else "trade-off curve"
    try:
        lo, hi = _smallest_sigma(ok, s0, rtol=r, sigma_max=smax, sigma_min=smin, what=what,
                                 progress=prog)
    except ValueError as exc:
        if errors:
            raise ValueError(f"{exc}; the last evaluation error was at {errors[-1]}") from None
        raise
    h = cache[hi][1]
    return _result(h, hi, lo, criterion, value, d, method="exact", kind="bound",
                   notes="bisection in log sigma on the sound side")


def _result(h: TradeOff, sigma: float, lo: float, criterion: str, value: Any,
            d: float | None, *, method: str, kind: str, notes: str) -> Calibration:
    bounds = None
    achieved: float | None
    target = value if criterion != "tradeoff" else None
    if criterion == "epsilon":
        achieved = float(h.epsilon(d))
        eb = getattr(h, "epsilon_bounds", None)
        if eb is not None:
            lo_e, hi_e = eb(d)
            bounds = (float(lo_e), float(hi_e))
    elif criterion == "mu":
        achieved = float(value)
    else:
        achieved = None
    return Calibration(sigma=float(sigma), criterion=criterion, target=target,
                       achieved=achieved, delta=d, bounds=bounds, method=method, kind=kind,
                       sigma_lower=float(lo), notes=notes)


# ---------------------------------------------------------------------------
# DP-SGD
# ---------------------------------------------------------------------------
def _sgd_clt_mu(sigma: float, p: float, steps: int) -> float:
    return float(noisy_sgd_mu(sigma, p, steps))


def _sigma_from_clt_mu(mu: float, p: float, steps: int) -> float:
    r"""Invert :math:`\mu = p\sqrt{T(e^{1/\sigma^2}-1)}`: :math:`\sigma =
    1/\sqrt{\log(1 + \mu^2/(p^2T))}` (BDLS Cor. 4/5)."""
    return 1.0 / math.sqrt(math.log1p(mu * mu / (p * p * steps)))


def _rdp_sigma(p: float, steps: int, delta: float, eps: float, rtol: float) -> tuple[float,
                                                                                    float]:
    """Smallest σ whose RDP ε (sharp conversion, default orders) is ≤ eps."""
    def ok(s: float) -> bool:
        return float(eps_from_rdp(steps * rdp_sampled_gaussian(s, p), delta)) <= eps

    return _smallest_sigma(ok, 1.0, rtol=rtol, sigma_max=1e6, sigma_min=1e-3,
                           what=f"eps={eps:g} at delta={delta:g}")


def calibrate_dpsgd(*, p: float, steps: int, eps: float | None = None,
                    delta: float | None = None, mu: float | None = None,
                    tradeoff: TradeOff | None = None, method: str = "exact",
                    rtol: float = 1e-3, accuracy: Mapping[str, Any] | None = None,
                    progress: ProgressCallback | None = None) -> Calibration:
    r"""Noise multiplier σ of DP-SGD (Poisson sampling rate ``p``, ``steps`` steps) that meets
    a target: ε at δ, μ-GDP, or domination of a trade-off curve.

    Parameters
    ----------
    p : float
        Sampling rate in (0, 1].
    steps : int
        Number of steps T ≥ 1.
    eps, delta, mu, tradeoff
        The target, as in :func:`calibrate_sigma`.
    method : {"exact", "rdp", "clt"}
        ``"exact"``: the tensor product :func:`gdp.dpsgd` (sound ε; μ and trade-off targets
        by dominance of its sound curve). ``"rdp"``: the RDP accountant (sound, looser;
        ε targets only). ``"clt"``: the noisy-SGD CLT μ (an *approximation*: the CLT can
        under-state ε); ε targets go through :math:`\mu(\varepsilon,\delta)`.
    rtol : float
        Relative precision of σ (the bisection bracket).
    accuracy : dict, optional
        Accuracy keywords of the numeric engine for ``method="exact"`` (e.g.
        ``{"rtol": 1e-5}``), passed to :func:`gdp.dpsgd`.
    progress : callable, optional
        ``progress(fraction, message)`` after each σ tried by the exact search (each is
        one DP-SGD composition); see :mod:`gdp._progress`.

    Returns
    -------
    Calibration
        ``sigma``, the achieved value and, for ``"exact"``, the engine's bracket of ε.

    Notes
    -----
    The RDP σ (cheap) seeds the exact search for ε targets and the CLT σ for μ targets.
    Impossible targets (``delta = 0``, the identity curve) raise ``ValueError``.

    A μ target with ``method="exact"`` asks for *true* μ-GDP, :math:`h \ge G_\mu` at every
    α. For p < 1 that needs far more noise than the CLT suggests: with probability
    :math:`p^T` the example is sampled at every step and the privacy loss is then Gaussian
    with variance :math:`T/\sigma^2`, so the extreme tail (α of order :math:`p^T`) is
    dominated only when :math:`\sigma \gtrsim \sqrt T/\mu`. The check runs on the sound
    numeric curve, whose truncated tail and round-off allowance sit as a small mass at
    :math:`+\infty` (a jump at α = 0), which makes it more conservative still. Use
    ``method="clt"`` for the usual (approximate) GDP calibration, or an ε target.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.calibrate_dpsgd(p=0.01, steps=1000, eps=1.0, delta=1e-5, method="rdp")
    >>> round(c.sigma, 3), c.achieved <= 1.0, c.kind
    (1.513, True, 'bound')
    """
    q = check_real("p", p, lo=0.0, hi=1.0, lo_open=True)
    t = check_int("steps", steps, lo=1)
    r = _check_rtol(rtol)
    prog = as_progress(progress)
    if method not in ("exact", "rdp", "clt"):
        raise ValueError(f"`method` must be one of ('exact', 'rdp', 'clt'); got "
                         f"method={method!r}")
    criterion, value, d = _target(eps, delta, mu, tradeoff)
    if method == "rdp":
        if criterion != "epsilon":
            raise ValueError("method='rdp' calibrates an (eps, delta) target only; got a "
                             f"{criterion} target")
        lo, hi = _rdp_sigma(q, t, d, value, r)
        achieved = float(eps_from_rdp(t * rdp_sampled_gaussian(hi, q), d))
        return Calibration(sigma=hi, criterion=criterion, target=value, achieved=achieved,
                           delta=d, method="rdp", kind="bound", sigma_lower=lo,
                           notes="RDP of the sampled Gaussian (MTZ 2019), sharp conversion")
    if method == "clt":
        if criterion == "tradeoff":
            raise ValueError("method='clt' calibrates an eps or mu target only; got a "
                             "trade-off target")
        mu_t = value if criterion == "mu" else float(mu_from_eps_delta(value, d))
        if mu_t <= 0:
            raise ValueError(f"the target eps={value:g} at delta={d:g} needs mu = 0; no "
                             "finite noise reaches it")
        s = _sigma_from_clt_mu(mu_t, q, t)
        # the closed form is exact up to rounding; step up until the CLT mu meets the target
        s = float(step_until(lambda x: _sgd_clt_mu(float(x), q, t) <= mu_t, s, np.inf,
                             tries=64))
        mu_a = _sgd_clt_mu(s, q, t)
        achieved = mu_a if criterion == "mu" else float(eps_from_mu(mu_a, d))
        return Calibration(sigma=s, criterion=criterion, target=value, achieved=achieved,
                           delta=d, method="clt", kind="approximation", sigma_lower=s,
                           notes="noisy-SGD CLT mu = p sqrt(T (e^{1/sigma^2} - 1)) (BDLS); "
                                 "an approximation, not a guarantee")
    if criterion == "epsilon":
        start = _rdp_sigma(q, t, d, value, 1e-2)[1]
        note = "exact tensor product (gdp.dpsgd), sound epsilon; seeded by the RDP sigma"
    elif criterion == "mu":
        # the event "sampled at every step" (probability p^T) has a Gaussian privacy loss of
        # variance T/sigma^2, so G_mu can only be dominated from about sqrt(T)/mu on
        start = max(_sigma_from_clt_mu(value, q, t), math.sqrt(t) / value if q < 1 else 0.0)
        note = "exact tensor product (gdp.dpsgd) dominates G_mu on the sound curve"
    else:
        start = 1.0
        note = "exact tensor product (gdp.dpsgd) dominates the target curve"
    if accuracy is not None and not isinstance(accuracy, Mapping):
        raise TypeError(f"`accuracy` must be a dict of numeric-engine keywords; got "
                        f"accuracy={accuracy!r}")
    acc = dict(accuracy or {})
    res = calibrate_sigma(lambda s: dpsgd(sigma=s, p=q, steps=t, **acc), eps=eps, delta=delta,
                          mu=mu, tradeoff=tradeoff, sigma_start=start, rtol=r,
                          sigma_min=1e-3, sigma_max=1e4, progress=prog)
    return Calibration(sigma=res.sigma, criterion=res.criterion, target=res.target,
                       achieved=res.achieved, delta=res.delta, bounds=res.bounds,
                       method="exact", kind="bound", sigma_lower=res.sigma_lower, notes=note)


# ---------------------------------------------------------------------------
# the Gaussian mechanism
# ---------------------------------------------------------------------------
def calibrate_gaussian(*, eps: float | None = None, delta: float | None = None,
                       mu: float | None = None, tradeoff: TradeOff | None = None,
                       sensitivity: float = 1.0, k: int = 1,
                       rtol: float = 1e-6) -> Calibration:
    r"""σ of the Gaussian mechanism :math:`\theta(S) + N(0,\sigma^2)` (used ``k`` times) for
    a target (ε, δ), μ or trade-off curve.

    The k-fold composition is :math:`G_{\sqrt{k}\Delta/\sigma}` (DRS Cor. 3.3), so

    * (ε, δ): :math:`\sigma = \sqrt{k}\,\Delta/\mu(\varepsilon,\delta)` via
      :func:`gdp.sigma_from_eps_delta` (the exact, Balle–Wang calibration);
    * μ: :math:`\sigma = \sqrt{k}\,\Delta/\mu`;
    * a trade-off curve: the smallest σ with :math:`G_{\sqrt k\Delta/\sigma}` dominating it
      (bisection, relative precision ``rtol``).

    Examples
    --------
    >>> import gdp
    >>> c = gdp.calibrate_gaussian(eps=1.0, delta=1e-5)
    >>> round(c.sigma, 6), c.achieved <= 1.0
    (3.730632, True)
    >>> gdp.calibrate_gaussian(mu=0.5, sensitivity=2.0, k=4).sigma
    8.0
    """
    s = check_real("sensitivity", sensitivity, lo=0.0, lo_open=True)
    kk = check_int("k", k, lo=1)
    criterion, value, d = _target(eps, delta, mu, tradeoff)
    root_k = math.sqrt(kk)
    if criterion == "epsilon":
        if value == 0:
            raise ValueError("`eps` must be positive for the Gaussian mechanism calibration "
                             "(use a mu target for eps = 0); got eps=0.0")
        sigma = float(sigma_from_eps_delta(s, value, d)) * root_k
        # undo the rounding of sigma -> mu (a few ulps at most)
        sigma = float(step_until(lambda x: eps_from_mu(root_k * s / x, d) <= value, sigma,
                                 np.inf, tries=64))
        achieved = float(eps_from_mu(root_k * s / sigma, d))
        return Calibration(sigma=sigma, criterion=criterion, target=value, achieved=achieved,
                           delta=d, method="exact", kind="bound", sigma_lower=sigma,
                           notes="sigma = sqrt(k) sensitivity / mu(eps, delta) (Balle-Wang "
                                 "2018; DRS Cor. 2.13)")
    if criterion == "mu":
        sigma = root_k * s / value
        return Calibration(sigma=sigma, criterion=criterion, target=value, achieved=value,
                           method="exact", kind="bound", sigma_lower=sigma,
                           notes="sigma = sqrt(k) sensitivity / mu (DRS Thm 2.7, Cor. 3.3)")
    res = calibrate_sigma(lambda sg: G_mu(root_k * s / sg), tradeoff=value, rtol=rtol,
                          sigma_start=1.0)
    return Calibration(sigma=res.sigma, criterion=criterion, target=None, achieved=None,
                       method="exact", kind="bound", sigma_lower=res.sigma_lower,
                       notes="smallest sigma with G_{sqrt(k) sensitivity/sigma} dominating "
                             "the target (bisection)")
