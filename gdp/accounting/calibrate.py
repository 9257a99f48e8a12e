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
from fractions import Fraction
from typing import Any

import numpy as np

from .._numerics import EPS, bisect_bracket, div_up, lower_by, raise_by, step_until
from .._progress import Progress, ProgressCallback, as_progress
from .._validation import (
    check_callable,
    check_choice,
    check_count,
    check_fields,
    check_real,
    optional,
    real,
    text,
)
from ..approx.limits import noisy_sgd_mu
from ..bounds.rdp import eps_from_rdp, rdp_sampled_gaussian
from ..core.piecewise import Identity
from ..core.tradeoff import Bracketed, TradeOff
from ..engine.settings import accuracy as engine_accuracy
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
        The δ of an ε target; for a μ target certified on a numeric curve, the additive δ
        of the certificate (the Q-mass the engine's sound side puts at :math:`+\infty`, at
        most 1e-9; see ``notes`` and :func:`_mu_above_floor`).
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

    def __post_init__(self):
        check_choice("criterion", self.criterion, ("epsilon", "mu", "tradeoff"))
        check_choice("method", self.method, ("exact", "rdp", "clt"))
        check_choice("kind", self.kind, ("bound", "approximation"))
        nonneg = real(lo=0.0, finite=False)
        check_fields(self, sigma=real(lo=0.0, lo_open=True), target=optional(nonneg),
                     achieved=optional(nonneg), delta=optional(real(lo=0.0, hi=1.0)),
                     sigma_lower=real(lo=0.0), notes=text())
        numeric = self.criterion != "tradeoff"
        for name in ("target", "achieved"):
            if (getattr(self, name) is None) == numeric:
                raise ValueError(f"`{name}` must be {'a number' if numeric else 'None'} for a "
                                 f"{self.criterion} target; got {name}="
                                 f"{getattr(self, name)!r}")
        if self.bounds is not None:
            b = self.bounds
            if not (isinstance(b, tuple) and len(b) == 2):
                raise TypeError(f"`bounds` must be a pair (lower, upper); got bounds={b!r:.60}")
            object.__setattr__(self, "bounds", (check_real("bounds", b[0], lo=0.0, finite=False),
                                                check_real("bounds", b[1], lo=b[0],
                                                           finite=False)))


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


#: the finest relative tolerance of a calibration: the bisection runs in log sigma, where
#: a float resolves about 23 * 2^-52 = 5e-15 (|log sigma| <= 23 on [1e-10, 1e10])
RTOL_MIN = 1e-12


def _check_rtol(rtol: Any) -> float:
    return check_real("rtol", rtol, lo=RTOL_MIN, hi=1.0)


def _check_sigma_range(sigma_start: Any, sigma_min: Any,
                       sigma_max: Any) -> tuple[float, float, float]:
    """``(start, sigma_min, sigma_max)`` checked positive, the start clamped into the range."""
    s0 = check_real("sigma_start", sigma_start, lo=0.0, lo_open=True)
    smin = check_real("sigma_min", sigma_min, lo=0.0, lo_open=True)
    smax = check_real("sigma_max", sigma_max, lo=0.0, lo_open=True)
    if smax < smin:
        raise ValueError(f"`sigma_max` must be at least `sigma_min`; got sigma_max={smax!r}, "
                         f"sigma_min={smin!r}")
    return min(max(s0, smin), smax), smin, smax


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
        Relative width of the final bracket on σ, in [1e-12, 1] (finer is below what a
        float resolves in log σ).
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
    check_callable("make", make, "callable (sigma -> TradeOff)")
    prog = as_progress(progress)
    criterion, value, d = _target(eps, delta, mu, tradeoff)
    r = _check_rtol(rtol)
    s0, smin, smax = _check_sigma_range(sigma_start, sigma_min, sigma_max)
    cache: dict[float, tuple[bool, TradeOff | None, float | None]] = {}
    errors: list[str] = []
    ref = G_mu(value) if criterion == "mu" else value

    def ok(s: float) -> bool:
        if s not in cache:
            h = make(s)
            if not isinstance(h, TradeOff):
                raise TypeError(f"`make` must return a TradeOff; got {h!r} at sigma={s!r}")
            floor = None
            try:
                if criterion == "epsilon":
                    met = float(h.epsilon(d)) <= value
                else:
                    met = bool(h.dominates(ref))
                    if not met and criterion == "mu":
                        met, floor = _mu_above_floor(h, value)
            except ValueError as exc:  # e.g. the numeric engine's accuracy or memory cap:
                errors.append(f"sigma={s:g}: {exc}")  # not certified, so not met
                met = False
            cache[s] = (met, h, floor)
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
    _, h, floor = cache[hi]
    notes = "bisection in log sigma on the sound side"
    if floor is not None:
        d = floor
        notes += (f"; mu-GDP certified up to the numeric floor: Q-mass delta = {floor:.3g} "
                  "at +inf and P-mass <= 1e-9 at -inf of the sound curve (additive delta)")
    return _result(h, hi, lo, criterion, value, d, method="exact", kind="bound", notes=notes)


#: the largest mass at +-inf accepted as the floor of a numeric mu-GDP certificate
_FLOOR_MAX = 1e-9


@dataclass(frozen=True, slots=True, eq=False)
class _FlooredGaussian(TradeOff):
    r""":math:`G_\mu` with Q-mass :math:`\tau_Q` moved to :math:`+\infty` and P-mass
    :math:`\tau_P` to :math:`-\infty`: :math:`(1-\tau_Q)\,G_\mu(\alpha/(1-\tau_P))`
    for :math:`\alpha < 1-\tau_P`, 0 beyond; the target a numeric μ-GDP certificate can
    prove (see :func:`_mu_above_floor`). Only what dominance needs is implemented."""

    mu: float
    tau_q: float
    tau_p: float

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        keep = 1.0 - self.tau_p
        g = G_mu(self.mu)._f(np.minimum(a / keep, 1.0))
        return np.where(a < keep, (1.0 - self.tau_q) * g, 0.0)

    def _omf_lower(self, alpha):
        # tau_Q + (1 - tau_Q)(1 - G(a / (1 - tau_P))): the quotient rounded down (1 - G
        # increases), G's lower bound, the product and the sum lowered by 3 ulps; an ulp
        # past the rounded 1 - tau_P, alpha is past the exact one and 1 - f = 1
        a = np.asarray(alpha, dtype=float)
        keep = 1.0 - self.tau_p
        x = np.minimum(lower_by(a / keep, 1), 1.0)
        g = np.asarray(G_mu(self.mu)._omf_lower(x), dtype=float)
        v = np.minimum(lower_by(self.tau_q + (1.0 - self.tau_q) * g, 3), 1.0)
        return np.where(a >= np.nextafter(keep, 2.0), 1.0, v)


def _mu_above_floor(h: TradeOff, mu: float) -> tuple[bool, float | None]:
    r"""μ-GDP of a numeric curve up to the floor of its sound side.

    The sound curve of a numeric composition puts its truncated tails and round-off
    allowances at :math:`\pm\infty`: a jump at α = 0 (Q-mass :math:`\tau_Q` at
    :math:`+\infty`) and a flat zero tail before α = 1 (P-mass :math:`\tau_P` at
    :math:`-\infty`), where it lies below :math:`G_\mu` however much noise is added, so
    plain dominance is never proved. What is proved is dominance of :math:`G_\mu` with
    just those masses moved (:class:`_FlooredGaussian`, both at most :data:`_FLOOR_MAX`):
    for ε ≥ 0 that is (ε, δ)-DP with :math:`\delta \le \tau_Q + \delta_{G_\mu}(\varepsilon
    - \log((1-\tau_Q)/(1-\tau_P)))`, μ-GDP up to the engine's floor. Returns (certified,
    :math:`\tau_Q`), the additive δ of the certificate."""
    pl = (h.lower if isinstance(h, Bracketed) else h)._pl_data()
    if pl is None:
        return False, None
    a, o = pl
    tau_q = raise_by(float(o[0]), 4)
    # P-mass at -inf: where beta reaches 0 (8 ulps more, so 1 - tau_P lies below that alpha)
    tau_p = raise_by(1.0 - float(a[np.argmax(o >= 1.0)]), 4) + 8 * EPS
    if not (tau_q <= _FLOOR_MAX and tau_p <= _FLOOR_MAX):
        return False, None
    return bool(h.dominates(_FlooredGaussian(mu=mu, tau_q=tau_q, tau_p=tau_p))), tau_q


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
    # in logs: mu / (p sqrt T) may overflow (tiny p), its log does not
    lx = math.log(mu) - math.log(p) - 0.5 * math.log(steps)
    big = 2.0 * lx > 700.0
    return 1.0 / math.sqrt(2.0 * lx if big else math.log1p(math.exp(2.0 * lx)))


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

    A μ target with ``method="exact"`` is checked by dominance of the sound numeric curve,
    which carries the engine's truncated tails and round-off as masses at :math:`\pm\infty`
    (a jump at α = 0 of about the accuracy's ``tail_mass``, a flat zero tail before α = 1).
    Exact μ-GDP, :math:`h \ge G_\mu` at every α, is therefore out of the numerics' reach:
    what is certified is :math:`G_\mu` with those masses moved (μ-GDP up to an additive δ,
    reported as ``delta``, about 1e-20 by default; lower ``tail_mass`` to lower it). Below
    that floor lies the extreme tail that decides exact μ-GDP for p < 1: with probability
    :math:`p^T` the example is sampled at every step and the privacy loss is then Gaussian
    with variance :math:`T/\sigma^2`, dominated only when :math:`\sigma \gtrsim \sqrt T/\mu`.
    Use ``method="clt"`` for the usual (approximate) GDP calibration, or an ε target.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.calibrate_dpsgd(p=0.01, steps=1000, eps=1.0, delta=1e-5, method="rdp")
    >>> round(c.sigma, 3), c.achieved <= 1.0, c.kind
    (1.513, True, 'bound')
    """
    q = check_real("p", p, lo=0.0, hi=1.0, lo_open=True)
    t = check_count("steps", steps)
    r = _check_rtol(rtol)
    prog = as_progress(progress)
    if not isinstance(method, str) or method not in ("exact", "rdp", "clt"):
        raise ValueError(f"`method` must be one of ('exact', 'rdp', 'clt'); got "
                         f"method={method!r}")
    if accuracy is not None:  # checked even where the method does not use it
        if not isinstance(accuracy, Mapping):
            raise TypeError(f"`accuracy` must be a dict of numeric-engine keywords; got "
                            f"accuracy={accuracy!r:.60}")
        try:
            engine_accuracy(**accuracy)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"`accuracy`: {exc}") from None
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
        if not mu_a <= mu_t:
            raise ValueError(f"the CLT calibration did not reach mu={mu_t:g} (p={q:g}, "
                             f"steps={t}): no sigma found")
        achieved = mu_a if criterion == "mu" else float(eps_from_mu(mu_a, d))
        return Calibration(sigma=s, criterion=criterion, target=value, achieved=achieved,
                           delta=d, method="clt", kind="approximation", sigma_lower=s,
                           notes="noisy-SGD CLT mu = p sqrt(T (e^{1/sigma^2} - 1)) (BDLS); "
                                 "an approximation, not a guarantee")
    if criterion == "epsilon" and q < 1.0:
        # the two runs differ only when the record is sampled, which happens with probability
        # 1 - (1-p)^T: a coupling gives delta(0) <= that for every sigma. expm1, log1p and
        # the product err by a few ulps each, relatively in the exponent x = T log1p(-p)
        x = t * math.log1p(-q)
        tv = float(raise_by(-math.expm1(x), 16.0 * (1.0 + abs(x))))
        if tv <= d:
            return Calibration(
                sigma=1e-3, criterion=criterion, target=value, achieved=0.0, delta=d,
                bounds=(0.0, 0.0), method="exact", kind="bound", sigma_lower=0.0,
                notes=f"every sigma meets the target (the smallest searched is returned): the "
                      f"record is sampled with probability 1 - (1-p)^T <= {tv:.3g} <= delta, "
                      f"so eps = 0 at delta")
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
                       method="exact", kind="bound", sigma_lower=res.sigma_lower,
                       notes=note + res.notes.partition("sound side")[2])


# ---------------------------------------------------------------------------
# the Gaussian mechanism
# ---------------------------------------------------------------------------
def _finite_sigma(sigma: float, sensitivity: float) -> float:
    if not math.isfinite(sigma):
        raise ValueError(f"`sensitivity`={sensitivity!r} needs a noise scale beyond the float "
                         "range for this target")
    return sigma


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
    kk = check_count("k", k)
    r = _check_rtol(rtol)
    criterion, value, d = _target(eps, delta, mu, tradeoff)
    root_k = math.sqrt(kk)
    # sqrt(k) s, rounded up (a root and a product: 1.5 ulps; exact when k is a square and
    # the product exact): the mechanism's mu at a noise sigma is never above div_up(num, sigma)
    num = root_k * s
    exact = math.isqrt(kk) ** 2 == kk and Fraction(num) == Fraction(root_k) * Fraction(s)
    num = num if exact else raise_by(num, 2)
    if criterion == "epsilon":
        if value == 0:
            raise ValueError("`eps` must be positive for the Gaussian mechanism calibration "
                             "(use a mu target for eps = 0); got eps=0.0")
        sigma = _finite_sigma(raise_by(float(sigma_from_eps_delta(s, value, d)) * root_k, 2),
                              s)
        # undo the rounding of sigma -> mu (a few ulps at most), against an upper bound on mu
        sigma = float(step_until(lambda x: eps_from_mu(div_up(num, x), d) <= value, sigma,
                                 np.inf, tries=64))
        achieved = float(eps_from_mu(div_up(num, sigma), d))
        return Calibration(sigma=sigma, criterion=criterion, target=value, achieved=achieved,
                           delta=d, method="exact", kind="bound", sigma_lower=sigma,
                           notes="sigma = sqrt(k) sensitivity / mu(eps, delta) (Balle-Wang "
                                 "2018; DRS Cor. 2.13)")
    if criterion == "mu":
        sigma = _finite_sigma(float(div_up(num, value)), s)  # sqrt(k) s / sigma <= mu
        return Calibration(sigma=sigma, criterion=criterion, target=value, achieved=value,
                           method="exact", kind="bound", sigma_lower=sigma,
                           notes="sigma = sqrt(k) sensitivity / mu (DRS Thm 2.7, Cor. 3.3)")
    res = calibrate_sigma(lambda sg: G_mu(float(div_up(num, sg))), tradeoff=value, rtol=r,
                          sigma_start=1.0)
    return Calibration(sigma=res.sigma, criterion=criterion, target=None, achieved=None,
                       method="exact", kind="bound", sigma_lower=res.sigma_lower,
                       notes="smallest sigma with G_{sqrt(k) sensitivity/sigma} dominating "
                             "the target (bisection)")
