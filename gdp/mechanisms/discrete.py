r"""The discrete Gaussian and discrete Laplace mechanisms (Canonne, Kamath, Steinke 2020).

Exact samplers (:func:`sample_discrete_gaussian`, :func:`sample_discrete_laplace`) using only
integer arithmetic and Bernoulli trials, so no floating-point leakage; and the mechanisms'
exact trade-off curves, from the two discrete laws with their tails bounded soundly.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.mechanisms.base`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import special

from .._numerics import log1mexp
from .._validation import check_count, check_real
from ..core.distributions import from_distributions
from ..core.tradeoff import TradeOff
from .base import Mechanism, _as_rng, _beta, _div_up, _eps, _integer_values, _out

__all__ = [
    "sample_discrete_gaussian", "sample_discrete_laplace", "DiscreteGaussian", "DiscreteLaplace",
]

# ---------------------------------------------------------------------------
# exact discrete samplers (Canonne–Kamath–Steinke 2020, Algorithms 1-3)
# ---------------------------------------------------------------------------
_WORD = 1 << 62


def _uniform_below(n: int, rng: np.random.Generator) -> int:
    """Uniform on {0, ..., n-1}, exactly, from the Generator's random bits."""
    if n <= _WORD:
        return int(rng.integers(0, n))
    bits = n.bit_length()
    nbytes = (bits + 7) // 8
    extra = 8 * nbytes - bits
    while True:  # rejection: each round succeeds with probability > 1/2
        x = int.from_bytes(rng.bytes(nbytes), "little") >> extra
        if x < n:
            return x


def _bernoulli(num: int, den: int, rng: np.random.Generator) -> bool:
    """Bernoulli(num / den) for integers 0 <= num <= den, den >= 1."""
    return _uniform_below(den, rng) < num


def _bernoulli_exp_unit(num: int, den: int, rng: np.random.Generator) -> bool:
    """Bernoulli(exp(-gamma)) for rational gamma = num/den in [0, 1] (CKS Algorithm 1, after
    von Neumann): draw A_k ~ Bernoulli(gamma/k) for k = 1, 2, ... until one is 0; return 1
    when that happens at an odd k."""
    k = 1
    while _bernoulli(num, den * k, rng):
        k += 1
    return k % 2 == 1


def _bernoulli_exp(num: int, den: int, rng: np.random.Generator) -> bool:
    """Bernoulli(exp(-gamma)) for rational gamma = num/den >= 0: floor(gamma) draws of
    Bernoulli(exp(-1)) and one of Bernoulli(exp(-frac(gamma))) (CKS Sec. 5.1)."""
    whole, rest = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_unit(1, 1, rng):
            return False
    return _bernoulli_exp_unit(rest, den, rng)


def _discrete_laplace(s: int, t: int, rng: np.random.Generator) -> int:
    """One draw with P[Z = z] proportional to exp(-|z| s / t) (CKS Algorithm 2).

    U uniform on {0..t-1} kept with probability exp(-U/t) and V geometric
    (P[V = v] ~ exp(-v)) make X = U + tV geometric with P[X = x] ~ exp(-x/t); then
    Y = floor(X/s) has P[Y = y] ~ exp(-y s/t), and a fair sign with (-, 0) rejected
    gives the two-sided law."""
    while True:
        u = _uniform_below(t, rng)
        if not _bernoulli_exp(u, t, rng):
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, rng):
            v += 1
        y = (u + t * v) // s
        negative = _bernoulli(1, 2, rng)
        if negative and y == 0:
            continue
        return -y if negative else y


def _discrete_gaussian(sigma2: Fraction, rng: np.random.Generator) -> int:
    """One draw with P[Y = y] proportional to exp(-y^2 / (2 sigma2)) (CKS Algorithm 3):
    Y ~ Lap_Z(t), t = floor(sigma) + 1, accepted with probability
    exp(-(|Y| - sigma2/t)^2 / (2 sigma2))."""
    a, b = sigma2.numerator, sigma2.denominator  # sigma^2 = a / b
    t = math.isqrt(a // b) + 1
    while True:
        y = _discrete_laplace(1, t, rng)
        # (|y| - a/(b t))^2 / (2 a / b) = (|y| b t - a)^2 / (2 a b t^2)
        if _bernoulli_exp((abs(y) * b * t - a) ** 2, 2 * a * b * t * t, rng):
            return y


#: the range of the noise scales of the exact samplers: draws are 64-bit integers, and the
#: rational arithmetic of the samplers grows with the scale's denominator
_SCALE_MIN, _SCALE_MAX = 2.0**-30, 1e15


def _rational(name: str, value: Any) -> Fraction:
    """A positive finite rational from an int, float (exactly) or Fraction, in
    [2^-30, 1e15]."""
    if isinstance(value, Fraction):
        if not _SCALE_MIN <= value <= _SCALE_MAX:
            raise ValueError(f"`{name}` must be a number in [2^-30, 1e15]; got {name}={value!r}")
        return value
    return Fraction(check_real(name, value, lo=_SCALE_MIN, hi=_SCALE_MAX))


def _shape(size: Any) -> tuple[int, ...]:
    """The shape of a batch of draws: a count or a tuple of counts, at most 1e8 draws."""
    dims = [size] if not isinstance(size, tuple | list) else list(size)
    if not dims:
        raise ValueError("`size` must be a count or a non-empty tuple of counts; got size=()")
    shape = tuple(check_count("size", d, lo=0, hi=10**8) for d in dims)
    if math.prod(shape) > 10**8:
        raise ValueError(f"`size` must ask for at most 10**8 draws (each exact, in Python); "
                         f"got size={size!r}")
    return shape


def sample_discrete_gaussian(sigma: Any, *, size: Any = None,
                             rng: np.random.Generator | None = None) -> Any:
    r"""Exact samples of the discrete Gaussian :math:`N_{\mathbb Z}(0,\sigma^2)`,
    :math:`P[Y=y] \propto e^{-y^2/(2\sigma^2)}` for :math:`y \in \mathbb Z`.

    ``sigma`` may be an int, a float (used exactly as the binary rational it is) or a
    :class:`fractions.Fraction`. All arithmetic is rational and the only randomness is
    uniform integers drawn from ``rng`` (CKS Algorithms 1–3), so the output law is exact.

    Examples
    --------
    >>> import numpy as np
    >>> from gdp import mechanisms
    >>> y = mechanisms.sample_discrete_gaussian(3, size=5, rng=np.random.default_rng(1))
    >>> y.dtype, y.shape
    (dtype('int64'), (5,))
    """
    s = _rational("sigma", sigma)
    gen = _as_rng(rng)
    if size is None:
        return _discrete_gaussian(s * s, gen)
    shape = _shape(size)
    n = int(np.prod(shape))
    return np.array([_discrete_gaussian(s * s, gen) for _ in range(n)],
                    dtype=np.int64).reshape(shape)


def sample_discrete_laplace(scale: Any, *, size: Any = None,
                            rng: np.random.Generator | None = None) -> Any:
    r"""Exact samples of the discrete Laplace :math:`\mathrm{Lap}_{\mathbb Z}(t)`,
    :math:`P[Y=y] \propto e^{-|y|/t}` for :math:`y \in \mathbb Z` (CKS Algorithm 2 with
    :math:`t` written as a ratio of integers)."""
    t = _rational("scale", scale)
    gen = _as_rng(rng)
    if size is None:
        return _discrete_laplace(t.denominator, t.numerator, gen)
    shape = _shape(size)
    n = int(np.prod(shape))
    return np.array([_discrete_laplace(t.denominator, t.numerator, gen) for _ in range(n)],
                    dtype=np.int64).reshape(shape)


# ---------------------------------------------------------------------------
# exact trade-off curves of the discrete mechanisms
# ---------------------------------------------------------------------------
_TAIL_Z = math.sqrt(2.0 * math.log(1e22))  # Gaussian tail beyond _TAIL_Z sigma < 1e-22
_MAX_ATOMS = 20000


def _dg_window(sigma: float) -> int:
    return int(math.ceil(sigma * _TAIL_Z)) + 1


def _dg_log_norm(sigma: float, m: int) -> float:
    k = np.arange(-m, m + 1, dtype=float)
    return float(special.logsumexp(-(k * k) / (2.0 * sigma * sigma)))


def _dg_log_tail(sigma: float, m: int, log_z: float) -> float:
    r"""Upper bound on log P[Y > m] for Y ~ N_Z(0, sigma^2): the terms beyond m decay at
    least geometrically with ratio exp(-(2m+3)/(2 sigma^2))."""
    s2 = sigma * sigma
    return float(-((m + 1) ** 2) / (2.0 * s2) - log1mexp(-(2 * m + 3) / (2.0 * s2)) - log_z)


def _dg_tradeoff(delta: int, sigma: float) -> TradeOff:
    r"""Sound Neyman–Pearson curve of :math:`N_{\mathbb Z}(0,\sigma^2)` vs
    :math:`N_{\mathbb Z}(\Delta,\sigma^2)` (see :class:`DiscreteGaussian`)."""
    m = _dg_window(sigma)
    s2 = sigma * sigma
    log_z = _dg_log_norm(sigma, m + delta)
    xs = np.arange(-m, delta + m + 1, dtype=float)
    logp = -(xs * xs) / (2.0 * s2) - log_z
    logq = -((xs - delta) ** 2) / (2.0 * s2) - log_z
    p = np.exp(logp)
    q = np.exp(logq)
    width = max(1, math.ceil(xs.size / _MAX_ATOMS))
    if width > 1:
        # cells of `width` consecutive integers, each split into its two extreme
        # likelihood ratios (the loss (2 delta x - delta^2)/(2 sigma^2) increases in x):
        # the cell is a post-processing of the split pair, so the curve can only drop.
        starts = np.arange(0, xs.size, width)
        pc = np.add.reduceat(p, starts)
        qc = np.add.reduceat(q, starts)
        ends = np.minimum(starts + width - 1, xs.size - 1)
        r_lo = np.exp((2.0 * delta * xs[starts] - delta * delta) / (2.0 * s2))
        r_hi = np.exp((2.0 * delta * xs[ends] - delta * delta) / (2.0 * s2))
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(r_hi > r_lo, (qc - pc * r_lo) / (r_hi - r_lo), pc)
        a = np.clip(np.nan_to_num(a, nan=0.0), 0.0, pc)
        b = pc - a
        p = np.concatenate([a, b])
        q = np.concatenate([a * r_hi, b * r_lo])
    # mass outside the window: P-only and Q-only atoms (a more informative pair)
    tail = 2.0 * math.exp(_dg_log_tail(sigma, m, log_z))
    p = np.concatenate([p, [tail, 0.0]])
    q = np.concatenate([q, [0.0, tail]])
    return from_distributions(p / p.sum(), q / q.sum(), name=f"DG_{{{delta},{sigma:g}}}")


def _dl_tradeoff(delta: int, t: float) -> TradeOff:
    r"""Exact curve of :math:`\mathrm{Lap}_{\mathbb Z}(0,t)` vs
    :math:`\mathrm{Lap}_{\mathbb Z}(\Delta,t)`: outcomes :math:`\le 0` (loss
    :math:`-\Delta/t`) and :math:`\ge\Delta` (loss :math:`+\Delta/t`) merge without loss."""
    r = math.exp(-1.0 / t)
    c = math.tanh(0.5 / t)  # (1 - r) / (1 + r)
    mid = np.arange(1, delta, dtype=float)
    p = np.concatenate([[1.0 / (1.0 + r)], c * np.exp(-mid / t),
                        [math.exp(-delta / t) / (1.0 + r)]])
    q = p[::-1].copy()
    return from_distributions(p / p.sum(), q / q.sum(), name=f"DL_{{{delta},{t:g}}}")


def _integer_sensitivity(value: Any) -> int:
    return check_count("sensitivity", value, hi=2**53, why="an integer exact in floating point")


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscreteGaussian(Mechanism):
    r"""The discrete Gaussian mechanism :math:`M(D) = q(D) + N_{\mathbb Z}(0,\sigma^2)` for
    integer-valued queries, sampled exactly (CKS 2020, Algorithms 1–3).

    Parameters
    ----------
    sensitivity : int
        :math:`\Delta = \max_{D\sim D'}|q(D) - q(D')|`, a positive integer.
    sigma : int, float or Fraction, optional
        The scale parameter :math:`\sigma` (floats are used exactly as binary rationals).
    mu : float, optional
        Calibrate :math:`\sigma = \Delta/\mu` instead (rounded up). The guarantee is then
        close to, not equal to, :math:`G_\mu`.

    Notes
    -----
    ``tradeoff`` is the exact curve :math:`T(N_{\mathbb Z}(0,\sigma^2),
    N_{\mathbb Z}(\Delta,\sigma^2))`, computed from the two pmfs (normalised in log space)
    on the window :math:`[-M, \Delta+M]`, :math:`M = \lceil 10.06\sigma\rceil + 1`. The
    mass outside the window (:math:`< 10^{-22}`, bounded geometrically) is charged
    soundly as a P-only and a Q-only atom. Exact up to floating-point rounding while the
    window has at most 20 000 integers (:math:`\sigma \lesssim 1000`); beyond, runs of
    consecutive integers are split into their two extreme likelihood ratios, a rigorous
    lower bound. Its privacy profile is CKS Thm 7's
    :math:`\delta(\varepsilon) = P[Y > \varepsilon\sigma^2/\Delta - \Delta/2] -
    e^\varepsilon P[Y > \varepsilon\sigma^2/\Delta + \Delta/2]`. The curve is piecewise
    linear and *crosses* :math:`G_{\Delta/\sigma}` (neither dominates; the gap shrinks
    fast as σ grows), so it is not reported as a Gaussian curve. Like every
    piecewise-linear curve it is stored as type II errors in double precision, so δ
    below about :math:`10^{-16}` is not resolved (``tradeoff.epsilon(0)`` is finite
    although the mechanism is not pure DP). The difference
    :math:`\Delta` is attained by a scalar query. For vector queries noise is added to
    every coordinate and ``tradeoff`` holds when neighbours differ in one coordinate
    (histograms); otherwise compose over the coordinates that change.

    Variance :math:`\sum_y y^2 P[Y=y] < \sigma^2` (CKS Prop. 19). Accuracy: the
    smallest integer :math:`\alpha` with :math:`k\,P[|Y| > \alpha] \le \beta`.

    Examples
    --------
    >>> import gdp
    >>> from gdp import mechanisms
    >>> dg = mechanisms.DiscreteGaussian(sensitivity=1, sigma=2)
    >>> round(dg.tradeoff.delta(1.0), 6), round(gdp.G_mu(0.5).delta(1.0), 6)
    (0.007249, 0.00683)
    >>> dg.accuracy(0.05)
    4
    """

    sensitivity: int
    sigma: Any = None
    mu: float | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        sens = _integer_sensitivity(self.sensitivity)
        if self.sigma is not None and self.mu is None:
            sigma = self.sigma if isinstance(self.sigma, Fraction) else \
                check_real("sigma", self.sigma, lo=0.0, lo_open=True)
            _rational("sigma", sigma)
        elif self.mu is not None and self.sigma is None:
            mu = check_real("mu", self.mu, lo=0.0, lo_open=True)
            sigma = _div_up(float(sens), mu)
            if not math.isfinite(sigma):
                raise ValueError(f"the calibration gives an infinite noise scale; got mu={mu!r}")
        else:
            raise ValueError("`DiscreteGaussian` needs exactly one of `sigma` or `mu`; got "
                             f"sigma={self.sigma!r}, mu={self.mu!r}")
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "sigma", sigma)
        self._cache["sigma2"] = _rational("sigma", sigma) ** 2

    def _validate(self) -> None:
        _integer_sensitivity(self.sensitivity)
        if not self._cache["sigma2"] > 0:  # pragma: no cover - guarded at construction
            raise ValueError("`sigma` must be a positive finite number")

    @property
    def tradeoff(self) -> TradeOff:
        r""":math:`T(N_{\mathbb Z}(0,\sigma^2), N_{\mathbb Z}(\Delta,\sigma^2))` (sound,
        exact to float rounding for :math:`\sigma \lesssim 1000`)."""
        if "f" not in self._cache:
            self._cache["f"] = _dg_tradeoff(self.sensitivity, float(self.sigma))
        return self._cache["f"]

    def _pmf_window(self) -> tuple[np.ndarray, np.ndarray, float]:
        s = float(self.sigma)
        m = _dg_window(s)
        log_z = _dg_log_norm(s, m)
        ys = np.arange(0, m + 1, dtype=float)
        return ys, np.exp(-(ys * ys) / (2.0 * s * s) - log_z), math.exp(
            _dg_log_tail(s, m, log_z))

    @property
    def variance(self) -> float:
        """:math:`E[Y^2]` (computed from the pmf; below :math:`\\sigma^2`)."""
        ys, p, _ = self._pmf_window()
        return float(2.0 * np.sum(ys * ys * p))

    def accuracy(self, beta: float, *, k: int = 1) -> int:
        r"""Smallest integer :math:`\alpha \ge 0` with :math:`k\,P[|Y| > \alpha] \le \beta`
        (tails bounded from above, so α is never too small)."""
        b = _beta(beta)
        k = check_count("k", k)
        ys, p, tail = self._pmf_window()
        # P[|Y| > a] = 2 * (sum_{y > a} p(y)) with the window tail added
        upper_tail = 2.0 * (np.cumsum(p[::-1])[::-1] - p + tail)
        ok = np.flatnonzero(k * upper_tail <= b)
        return int(ys[ok[0]]) if ok.size else int(ys[-1]) + 1

    def _prepare(self, value):
        return _integer_values(value)

    def _release(self, v, rng):
        s2 = self._cache["sigma2"]
        noise = np.array([_discrete_gaussian(s2, rng) for _ in range(v.size)],
                         dtype=np.int64).reshape(v.shape)
        return _out(v + noise)

    def _release_many(self, v, n, rng):
        s2 = self._cache["sigma2"]
        noise = np.array([_discrete_gaussian(s2, rng) for _ in range(n * v.size)],
                         dtype=np.int64).reshape((n,) + v.shape)
        return v + noise


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscreteLaplace(Mechanism):
    r"""The discrete Laplace (two-sided geometric) mechanism
    :math:`M(D) = q(D) + \mathrm{Lap}_{\mathbb Z}(t)`,
    :math:`P[Y=y] = \tanh(\tfrac1{2t})\,e^{-|y|/t}`, sampled exactly (CKS Algorithm 2).

    Parameters
    ----------
    sensitivity : int
        :math:`\Delta_1`, a positive integer.
    eps : float, optional
        Calibrate :math:`t = \Delta_1/\varepsilon` (as an exact rational).
    scale : int, float or Fraction, optional
        Give :math:`t` directly.

    Notes
    -----
    ``tradeoff`` is the exact :math:`T(\mathrm{Lap}_{\mathbb Z}(0,t),
    \mathrm{Lap}_{\mathbb Z}(\Delta,t))`; it equals the group-privacy curve
    :math:`1-(1-f_{1/t,0})^{\circ\Delta}` and lies above :math:`f_{\Delta/t,0}`. Since a
    unit step in any coordinate is exactly :math:`f_{1/t,0}`, chaining unit steps (DRS
    Thm 2.14) shows it also holds for vector queries with :math:`\ell_1` sensitivity
    :math:`\Delta`. Variance :math:`2e^{-1/t}/(1-e^{-1/t})^2`; accuracy: the smallest
    integer α with :math:`k\cdot 2e^{-(\alpha+1)/t}/(1+e^{-1/t}) \le \beta`.

    Examples
    --------
    >>> import gdp
    >>> from gdp import mechanisms
    >>> dl = mechanisms.DiscreteLaplace(sensitivity=1, eps=1.0)
    >>> dl.scale
    Fraction(1, 1)
    >>> f = gdp.f_eps_delta(1.0)  # equal curves: certified only up to rounding
    >>> dl.tradeoff.dominates(f, atol=1e-12), f.dominates(dl.tradeoff, atol=1e-12)
    (True, True)
    """

    sensitivity: int
    eps: float | None = None
    scale: Any = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        sens = _integer_sensitivity(self.sensitivity)
        if self.eps is not None and self.scale is None:
            eps = _eps(self.eps)
            t = Fraction(sens) / Fraction(eps)
        elif self.scale is not None and self.eps is None:
            t = _rational("scale", self.scale)
            eps = _div_up(float(sens), float(t))
        else:
            raise ValueError("`DiscreteLaplace` needs exactly one of `eps` or `scale`; got "
                             f"eps={self.eps!r}, scale={self.scale!r}")
        self._settle(sensitivity=sens, eps=eps, scale=t)

    def _validate(self) -> None:
        _integer_sensitivity(self.sensitivity)
        if not (isinstance(self.scale, Fraction) and self.scale > 0):
            raise ValueError(f"`scale` must be a positive rational; got scale={self.scale!r}")

    @property
    def tradeoff(self) -> TradeOff:
        """Exact curve of the two shifted discrete Laplace pmfs."""
        if "f" not in self._cache:
            self._cache["f"] = _dl_tradeoff(self.sensitivity, float(self.scale))
        return self._cache["f"]

    @property
    def variance(self) -> float:
        """:math:`2e^{-1/t}/(1-e^{-1/t})^2`."""
        t = float(self.scale)
        return float(2.0 * math.exp(-1.0 / t) / math.expm1(-1.0 / t) ** 2)

    def accuracy(self, beta: float, *, k: int = 1) -> int:
        r"""Smallest integer :math:`\alpha\ge0` with :math:`k\,P[|Y|>\alpha] \le \beta`."""
        b = _beta(beta)
        k = check_count("k", k)
        t = float(self.scale)

        def log_tail(a: int) -> float:  # log(k * P[|Y| > a])
            return math.log(2.0 * k) - (a + 1) / t - math.log1p(math.exp(-1.0 / t))

        a = max(0, math.ceil(t * (math.log(2.0 * k) - math.log(b)
                                  - math.log1p(math.exp(-1.0 / t))) - 1.0))
        while a > 0 and log_tail(a - 1) <= math.log(b):
            a -= 1
        while log_tail(a) > math.log(b):
            a += 1
        return a

    def _prepare(self, value):
        return _integer_values(value)

    def _draws(self, count, rng):
        t = self.scale
        return np.array([_discrete_laplace(t.denominator, t.numerator, rng)
                         for _ in range(count)], dtype=np.int64)

    def _release(self, v, rng):
        return _out(v + self._draws(v.size, rng).reshape(v.shape))

    def _release_many(self, v, n, rng):
        return v + self._draws(n * v.size, rng).reshape((n,) + v.shape)
