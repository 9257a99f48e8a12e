r"""The mechanisms of the notes, with their exact f-DP guarantees and accuracy bounds.

Theory of operation
-------------------
A mechanism is a frozen value object built with keyword arguments (so ε and δ can never
be swapped silently). Calling it releases a noisy answer::

    mech = Laplace(sensitivity=1.0, eps=0.5)
    y = mech(true_answer, rng=np.random.default_rng(2024))

``rng`` must be a :class:`numpy.random.Generator` (reproducible: the same seed gives the
same release) or ``None``, which draws a fresh ``numpy.random.default_rng()`` seeded from
the operating system. Integer seeds are refused on purpose: passing ``rng=0`` to every
call would reuse the same noise, which destroys privacy.

Every mechanism has ``mech.tradeoff``, its f-DP guarantee as a :class:`~gdp.TradeOff`
(the curve below which :math:`T(M(D), M(D'))` never falls, for all neighbours):

* :class:`Gaussian`: :math:`G_{\Delta_2/\sigma}` (exact; DRS Thm 2.7);
* :class:`Laplace`: ``laplace(Δ₁/b)`` (exact; MATH.md §3);
* :class:`RandomizedResponse`: :math:`T(P, Q)` of the two output pmfs (exact);
* :class:`Exponential`, :class:`ReportNoisyMax`: :math:`f_{\varepsilon,0}` (sound; tighter
  analyses exist);
* :class:`DiscreteGaussian`: :math:`T(N_{\mathbb Z}(0,\sigma^2), N_{\mathbb Z}(\Delta,
  \sigma^2))` (exact to float rounding, truncated tails charged soundly);
* :class:`DiscreteLaplace`: :math:`T(\mathrm{Lap}_{\mathbb Z}(0,t),
  \mathrm{Lap}_{\mathbb Z}(\Delta,t))` (exact).

Noise scales are rounded *up* (``σ = Δ/μ`` is the smallest float not below the real
quotient), so the stated curve is never above the one the floats achieve.

.. warning::
   Floating-point noise leaks. :class:`Gaussian`, :class:`Laplace` and the noisy-max
   mechanisms draw IEEE doubles; the set of doubles reachable as ``x + noise`` depends on
   ``x``, and Mironov (2012) showed that the low-order bits of such releases can reveal
   the true answer exactly. Their ``tradeoff`` is a statement about the ideal real-valued
   mechanism. For integer-valued queries use :class:`DiscreteGaussian` or
   :class:`DiscreteLaplace`, which sample exactly with rational arithmetic
   (Canonne–Kamath–Steinke 2020, Algorithms 1–3) from random bits drawn from the
   Generator; the only remaining channel is timing.

References
----------
DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022, Thm 2.7.
Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014: Thm 3.6, 3.8,
Claim 3.9, Thm 3.10–3.11. Canonne, Kamath, Steinke, "The Discrete Gaussian for
Differential Privacy", NeurIPS 2020, Algorithms 1–3, Thm 7. Mironov, "On Significance of
the Least Significant Bits for Differential Privacy", CCS 2012. McSherry, Talwar,
"Mechanism Design via Differential Privacy", FOCS 2007. Durfee, Rogers, "Practical
Differentially Private Top-k Selection with Pay-what-you-get Composition", NeurIPS 2019.
Dong, Durfee, Rogers, "Optimal Differential Privacy Composition for Exponential
Mechanisms", ICML 2020.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import special

from ._numerics import log1mexp
from ._validation import as_real_array, check_int, check_real
from .epsdelta import f_eps_delta
from .gaussian import G_mu, mu_from_eps_delta
from .laplace import laplace
from .tradeoff import TradeOff, from_distributions

__all__ = [
    "Mechanism",
    "Gaussian",
    "Laplace",
    "RandomizedResponse",
    "Exponential",
    "ReportNoisyMax",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
]


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------
def _as_rng(rng: Any) -> np.random.Generator:
    """``None`` -> a fresh OS-seeded Generator; a Generator -> itself; anything else refused."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    raise TypeError("`rng` must be a numpy.random.Generator or None; got "
                    f"rng={rng!r} (use numpy.random.default_rng(seed) to make one)")


def _div_up(a: float, b: float) -> float:
    """The smallest float not below the real quotient a / b (a, b > 0)."""
    q = a / b
    if math.isfinite(q) and Fraction(q) < Fraction(a) / Fraction(b):
        q = math.nextafter(q, math.inf)
    return q


def _sensitivity(value: Any) -> float:
    return check_real("sensitivity", value, lo=0.0, lo_open=True)


def _eps(value: Any) -> float:
    return check_real("eps", value, lo=0.0, lo_open=True)


def _beta(value: Any) -> float:
    return check_real("beta", value, lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _values(value: Any) -> np.ndarray:
    """A non-empty finite float array (0-d for scalars)."""
    arr = as_real_array("value", value)
    if arr.size == 0:
        raise ValueError("`value` must hold at least one entry; got an empty array")
    return arr


def _integer_values(value: Any) -> np.ndarray:
    arr = _values(value)
    bad = (arr != np.round(arr)) | (np.abs(arr) > 2.0**53)
    if bad.any():
        raise ValueError("`value` must be integer-valued (|value| <= 2**53) for a discrete "
                         f"mechanism; got value={float(arr[bad].flat[0])!r}")
    return arr.astype(np.int64)


def _out(arr: np.ndarray) -> Any:
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return arr.item()
    return arr


def _scores(scores: Any, n_outcomes: int | None) -> np.ndarray:
    arr = np.asarray(scores) if not isinstance(scores, np.ndarray) else scores
    if arr.ndim != 1:
        raise ValueError("`utility` must give a 1-D array with one score per outcome; got "
                         f"shape {arr.shape}")
    arr = as_real_array("utility", arr)
    if arr.size == 0:
        raise ValueError("`utility` must give at least one score; got an empty array")
    if n_outcomes is not None and arr.size != n_outcomes:
        raise ValueError(f"`utility` gave {arr.size} scores but the mechanism was built "
                         f"with n_outcomes={n_outcomes}")
    return arr


class Mechanism:
    """Base class: ``mech(value, rng=...)`` releases, ``mech.tradeoff`` is the guarantee.

    Subclasses are frozen dataclasses that validate their parameters at construction;
    :meth:`_validate` re-checks them before every release, so no code path releases an
    answer with less noise than stated.
    """

    __slots__ = ()

    @property
    def tradeoff(self) -> TradeOff:  # pragma: no cover - abstract
        """The f-DP guarantee (a :class:`~gdp.TradeOff`)."""
        raise NotImplementedError

    def _validate(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _prepare(self, value: Any) -> np.ndarray:
        return _values(value)

    def _release(self, v: np.ndarray, rng: np.random.Generator) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _release_many(self, v: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.stack([np.asarray(self._release(v, rng)) for _ in range(n)])

    def __call__(self, value: Any, *, rng: np.random.Generator | None = None) -> Any:
        """Release one noisy answer for ``value`` (a scalar gives a scalar, an array an
        array of the same shape; the selection mechanisms give an index)."""
        self._validate()
        gen = _as_rng(rng)
        return self._release(self._prepare(value), gen)

    def sample(self, value: Any, n: int, *,
               rng: np.random.Generator | None = None) -> np.ndarray:
        """``n`` independent releases for the same ``value``, stacked along a new first axis
        (same distribution as ``n`` calls; used by :func:`gdp.audit`)."""
        self._validate()
        n = check_int("n", n, lo=1)
        gen = _as_rng(rng)
        return self._release_many(self._prepare(value), n, gen)


# ---------------------------------------------------------------------------
# continuous additive noise
# ---------------------------------------------------------------------------
_CALIBRATION = "exactly one calibration: `mu`, `sigma`, or both `eps` and `delta`"


@dataclass(frozen=True, slots=True, kw_only=True)
class Gaussian(Mechanism):
    r"""The Gaussian mechanism :math:`M(D) = q(D) + N(0, \sigma^2 I)`.

    Parameters
    ----------
    sensitivity : float
        The :math:`\ell_2` sensitivity :math:`\Delta_2 > 0` of the query (see
        :mod:`gdp.sensitivity`).
    mu : float, optional
        Calibrate for :math:`\mu`-GDP: :math:`\sigma = \Delta_2/\mu`.
    eps, delta : float, optional
        Calibrate exactly for :math:`(\varepsilon,\delta)`-DP: :math:`\sigma =
        \Delta_2/\mu(\varepsilon,\delta)` (:func:`gdp.mu_from_eps_delta`; Balle–Wang
        2018), valid for every :math:`\varepsilon > 0`, unlike the classical
        :math:`\Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon`.
    sigma : float, optional
        Give the noise standard deviation directly.

    Notes
    -----
    ``tradeoff`` is :math:`G_\mu` with :math:`\mu = \Delta_2/\sigma`, exact for every
    query dimension (DRS Thm 2.7: the pair :math:`N(0,\sigma^2 I), N(v,\sigma^2 I)` with
    :math:`\|v\|_2 = \Delta_2` is :math:`G_{\Delta_2/\sigma}` by rotation invariance).

    Accuracy (seed 003): :math:`P[|Y| \ge \alpha] = \beta` for
    :math:`\alpha = \sigma\sqrt2\,\mathrm{erf}^{-1}(1-\beta) = -\sigma\,\Phi^{-1}(\beta/2)`
    (the second form is used: no cancellation for tiny β). Variance :math:`\sigma^2` per
    coordinate.

    Examples
    --------
    >>> from gdp import mechanisms
    >>> mech = mechanisms.Gaussian(sensitivity=1.0, mu=0.5)
    >>> mech.sigma, mech.tradeoff
    (2.0, Gaussian(mu=0.5))
    >>> round(mech.accuracy(0.05), 6)
    3.919928
    >>> round(mechanisms.Gaussian(sensitivity=1.0, eps=1.0, delta=1e-5).sigma, 6)
    3.730632
    """

    sensitivity: float
    mu: float | None = None
    eps: float | None = None
    delta: float | None = None
    sigma: float | None = None

    def __post_init__(self) -> None:
        sens = _sensitivity(self.sensitivity)
        given = [n for n in ("mu", "eps", "delta", "sigma") if getattr(self, n) is not None]
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in given) or "none"
        if given == ["mu"]:
            mu = check_real("mu", self.mu, lo=0.0, lo_open=True)
            sigma = _div_up(sens, mu)
        elif given == ["eps", "delta"]:
            eps = _eps(self.eps)
            delta = check_real("delta", self.delta, lo=0.0, hi=1.0, lo_open=True,
                               hi_open=True)
            mu = float(mu_from_eps_delta(eps, delta))
            if not mu > 0:
                raise ValueError(f"`delta`={delta!r} is too small to calibrate Gaussian noise "
                                 f"at eps={eps!r}")
            sigma = _div_up(sens, mu)
            object.__setattr__(self, "eps", eps)
            object.__setattr__(self, "delta", delta)
        elif given == ["sigma"]:
            sigma = check_real("sigma", self.sigma, lo=0.0, lo_open=True)
            mu = _div_up(sens, sigma)
        else:
            raise ValueError(f"`Gaussian` needs {_CALIBRATION}; got {shown}")
        if not (math.isfinite(sigma) and sigma > 0 and math.isfinite(mu) and mu > 0):
            raise ValueError("the calibration gives a noise scale outside (0, inf); got "
                             f"sensitivity={sens!r}, {shown}")
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma", sigma)

    def _validate(self) -> None:
        _sensitivity(self.sensitivity)
        check_real("sigma", self.sigma, lo=0.0, lo_open=True)

    @property
    def tradeoff(self) -> TradeOff:
        """:math:`G_\\mu`, :math:`\\mu = \\Delta_2/\\sigma` (exact)."""
        return G_mu(self.mu)

    @property
    def variance(self) -> float:
        """Noise variance per coordinate, :math:`\\sigma^2`."""
        return self.sigma**2

    def accuracy(self, beta: float, *, k: int = 1) -> float:
        r"""The :math:`\alpha` with :math:`P[\|Y\|_\infty \ge \alpha] \le \beta` for ``k``
        noisy coordinates: :math:`-\sigma\Phi^{-1}(\beta/(2k))` (exact for ``k = 1``,
        union bound otherwise)."""
        b = _beta(beta)
        k = check_int("k", k, lo=1)
        return float(-self.sigma * special.ndtri(b / (2.0 * k)))

    def _release(self, v: np.ndarray, rng: np.random.Generator) -> Any:
        return _out(v + self.sigma * rng.standard_normal(v.shape))

    def _release_many(self, v, n, rng):
        return v + self.sigma * rng.standard_normal((n,) + v.shape)


@dataclass(frozen=True, slots=True, kw_only=True)
class Laplace(Mechanism):
    r"""The Laplace mechanism :math:`M(D) = q(D) + \mathrm{Lap}(b)^{\otimes k}`,
    :math:`b = \Delta_1/\varepsilon` (Dwork–Roth Def. 3.3, Thm 3.6).

    Parameters
    ----------
    sensitivity : float
        The :math:`\ell_1` sensitivity :math:`\Delta_1 > 0`.
    eps : float, optional
        Privacy parameter; the scale is :math:`b = \Delta_1/\varepsilon`.
    scale : float, optional
        Give :math:`b` directly instead.

    Notes
    -----
    ``tradeoff`` is ``gdp.laplace(Δ₁/b)`` :math:`= T(\mathrm{Lap}(0,1),
    \mathrm{Lap}(\Delta_1/b,1))`, which is tighter than :math:`f_{\varepsilon,0}` and
    exact: a scalar query attains it. It also holds for vector queries: a shift
    :math:`v` with :math:`\|v\|_1 \le \Delta_1` is a path of :math:`n` steps of
    :math:`\ell_1` length :math:`\|v\|_1/n`, each :math:`(\|v\|_1/(nb))`-DP, so group
    privacy (DRS Thm 2.14) gives :math:`1 - (1-f_{\|v\|_1/(nb),0})^{\circ n}`, whose limit
    as :math:`n\to\infty` is the Laplace curve (MATH.md §3).

    Accuracy: :math:`P[|Y| \ge b\ln(1/\beta)] = \beta` (Dwork–Roth Fact 3.7) and, for
    :math:`k` outputs, :math:`P[\|q(D) - M(D)\|_\infty \ge b\ln(k/\beta)] \le \beta`
    (Thm 3.8). Variance :math:`2b^2` per coordinate.

    Examples
    --------
    >>> from gdp import mechanisms
    >>> mech = mechanisms.Laplace(sensitivity=2.0, eps=1.0)
    >>> mech.scale, mech.tradeoff
    (2.0, Laplace(mu=1.0))
    >>> round(mech.accuracy(0.05), 4), mech.variance
    (5.9915, 8.0)
    >>> round(mechanisms.Laplace(sensitivity=1.0, eps=1.0).accuracy(0.05, k=10000), 1)
    12.2
    """

    sensitivity: float
    eps: float | None = None
    scale: float | None = None

    def __post_init__(self) -> None:
        sens = _sensitivity(self.sensitivity)
        if self.eps is not None and self.scale is None:
            eps = _eps(self.eps)
            b = _div_up(sens, eps)
            mu = eps
        elif self.scale is not None and self.eps is None:
            b = check_real("scale", self.scale, lo=0.0, lo_open=True)
            mu = _div_up(sens, b)
        else:
            raise ValueError("`Laplace` needs exactly one of `eps` or `scale`; got "
                             f"eps={self.eps!r}, scale={self.scale!r}")
        if not (math.isfinite(b) and b > 0 and math.isfinite(mu) and mu > 0):
            raise ValueError("the calibration gives a noise scale outside (0, inf); got "
                             f"sensitivity={sens!r}, eps={self.eps!r}, scale={self.scale!r}")
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "eps", mu)
        object.__setattr__(self, "scale", b)

    def _validate(self) -> None:
        _sensitivity(self.sensitivity)
        check_real("scale", self.scale, lo=0.0, lo_open=True)

    @property
    def tradeoff(self) -> TradeOff:
        """``laplace(Δ₁/b)`` (exact)."""
        return laplace(self.eps)

    @property
    def variance(self) -> float:
        """Noise variance per coordinate, :math:`2b^2`."""
        return 2.0 * self.scale**2

    def accuracy(self, beta: float, *, k: int = 1) -> float:
        r""":math:`b\ln(k/\beta)`: with probability at least :math:`1-\beta` every one of
        the ``k`` coordinates is within it of the truth (Dwork–Roth Thm 3.8; exact for
        ``k = 1``)."""
        b = _beta(beta)
        k = check_int("k", k, lo=1)
        return float(self.scale * (math.log(k) - math.log(b)))

    def _release(self, v, rng):
        return _out(v + rng.laplace(0.0, self.scale, size=v.shape))

    def _release_many(self, v, n, rng):
        return v + rng.laplace(0.0, self.scale, size=(n,) + v.shape)


# ---------------------------------------------------------------------------
# randomized response
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class RandomizedResponse(Mechanism):
    r"""k-ary randomized response: report the true category with probability
    :math:`e^\varepsilon/(e^\varepsilon+k-1)`, each other one with probability
    :math:`1/(e^\varepsilon+k-1)`.

    Parameters
    ----------
    k : int
        Number of categories (:math:`\ge 2`); values are integers in ``0..k-1``.
    eps : float
        :math:`\varepsilon > 0`.

    Notes
    -----
    Any two inputs are neighbours (the local model: each entry is one person's answer).
    ``tradeoff`` is exact: the worst pair is :math:`P = (e^\varepsilon, 1, 1, \dots)/Z`,
    :math:`Q = (1, e^\varepsilon, 1, \dots)/Z`, whose Neyman–Pearson curve is computed by
    :func:`gdp.from_distributions`. It equals :math:`f_{\varepsilon,0}` for :math:`k=2`
    and lies above it for :math:`k>2` (the other categories carry no information).
    Arrays are randomised entry by entry, one person per entry.

    Examples
    --------
    >>> from gdp import mechanisms
    >>> import gdp
    >>> rr = mechanisms.RandomizedResponse(k=2, eps=1.0)
    >>> round(rr.p_truth, 6)
    0.731059
    >>> rr.tradeoff.dominates(gdp.f_eps_delta(1.0)), gdp.f_eps_delta(1.0).dominates(rr.tradeoff)
    (True, True)
    """

    k: int
    eps: float
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, lo=2))
        object.__setattr__(self, "eps", _eps(self.eps))

    def _validate(self) -> None:
        check_int("k", self.k, lo=2)
        _eps(self.eps)

    @property
    def p_truth(self) -> float:
        """Probability of reporting the true category, :math:`1/(1+(k-1)e^{-\\varepsilon})`."""
        return 1.0 / (1.0 + (self.k - 1) * math.exp(-self.eps))

    def pmf(self, category: int) -> np.ndarray:
        """The output distribution for input ``category``."""
        c = check_int("category", category, lo=0, hi=self.k - 1)
        p = np.full(self.k, (1.0 - self.p_truth) / (self.k - 1))
        p[c] = self.p_truth
        return p

    @property
    def tradeoff(self) -> TradeOff:
        """:math:`T(P, Q)` of the output pmfs for inputs 0 and 1 (exact)."""
        if "f" not in self._cache:
            self._cache["f"] = from_distributions(self.pmf(0), self.pmf(1),
                                                  name=f"RR_{{{self.k},{self.eps:g}}}")
        return self._cache["f"]

    def _prepare(self, value):
        arr = _values(value)
        bad = (arr != np.round(arr)) | (arr < 0) | (arr > self.k - 1)
        if bad.any():
            raise ValueError(f"`value` must hold integer categories in {{0, ..., {self.k - 1}}}; "
                             f"got value={float(arr[bad].flat[0])!r}")
        return arr.astype(np.int64)

    def _draw(self, v, shape, rng):
        keep = rng.random(shape) < self.p_truth
        other = rng.integers(0, self.k - 1, size=shape)
        other = other + (other >= v)
        return np.where(keep, v, other).astype(np.int64)

    def _release(self, v, rng):
        return _out(self._draw(v, v.shape, rng))

    def _release_many(self, v, n, rng):
        return self._draw(v, (n,) + v.shape, rng)


# ---------------------------------------------------------------------------
# selection: exponential mechanism and report noisy max
# ---------------------------------------------------------------------------
def _monotone(value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"`monotone` must be True or False; got monotone={value!r}")
    return bool(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Exponential(Mechanism):
    r"""The exponential mechanism: output :math:`r` with probability
    :math:`\propto \exp(\varepsilon\,u(D,r)/(2\Delta u))` (McSherry–Talwar 2007;
    Dwork–Roth Def. 3.4).

    Parameters
    ----------
    utility : callable or None
        ``utility(value)`` returns a 1-D array with one finite score per outcome. With
        ``None`` the released-on ``value`` *is* the score vector.
    sensitivity : float
        :math:`\Delta u = \max_r \max_{D\sim D'} |u(D,r) - u(D',r)| > 0`.
    eps : float
        :math:`\varepsilon > 0`.
    monotone : bool
        Declare that, between neighbours, all scores move in the same direction (e.g.
        counts under add/remove); the factor 2 is then dropped (Dwork–Roth, remark after
        Thm 3.10). Default ``False``.
    n_outcomes : int, optional
        If given, the number of scores ``utility`` must return.

    Notes
    -----
    Sampling is exact for the float weights and never exponentiates: the output is
    :math:`\arg\max_r\,(\varepsilon u_r/(2\Delta u) + G_r)` with i.i.d. standard Gumbel
    :math:`G_r` (the Gumbel-max trick), so huge scores cannot overflow.

    ``tradeoff`` is :math:`f_{\varepsilon,0}` (Dwork–Roth Thm 3.10): sound, not tight.
    With the :math:`2\Delta u` normaliser the mechanism is in fact
    :math:`\varepsilon`-*bounded range* (Durfee–Rogers 2019): for every neighbouring pair
    the privacy loss lies in an interval :math:`[t-\varepsilon, t]`, a strictly
    stronger property whose exact composition is in Dong–Durfee–Rogers (ICML 2020); a
    single run is at most :math:`\varepsilon/2`-distinguishable on any pair where only
    one outcome's score moves.

    Accuracy (Dwork–Roth Thm 3.11): with probability at least :math:`1-\beta` the chosen
    outcome has utility at least :math:`\mathrm{OPT} - \frac{2\Delta u}{\varepsilon}
    \ln(m/\beta)` for :math:`m` outcomes (:math:`\Delta u/\varepsilon` when monotone).

    Examples
    --------
    >>> import numpy as np
    >>> from gdp import mechanisms
    >>> em = mechanisms.Exponential(utility=None, sensitivity=1.0, eps=1.0)
    >>> np.round(em.probabilities([0.0, 2.0]), 6)
    array([0.268941, 0.731059])
    >>> em.tradeoff
    f_eps_delta(eps=1.0, delta=0.0)
    >>> round(em.accuracy(0.05, n_outcomes=10), 4)
    10.5966
    """

    utility: Callable[[Any], Any] | None
    sensitivity: float
    eps: float
    monotone: bool = False
    n_outcomes: int | None = None

    def __post_init__(self) -> None:
        if self.utility is not None and not callable(self.utility):
            raise TypeError(f"`utility` must be callable or None; got utility={self.utility!r}")
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))
        object.__setattr__(self, "eps", _eps(self.eps))
        object.__setattr__(self, "monotone", _monotone(self.monotone))
        if self.n_outcomes is not None:
            object.__setattr__(self, "n_outcomes", check_int("n_outcomes", self.n_outcomes,
                                                              lo=1))

    def _validate(self) -> None:
        _sensitivity(self.sensitivity)
        _eps(self.eps)

    @property
    def _factor(self) -> float:
        return self.eps / ((1.0 if self.monotone else 2.0) * self.sensitivity)

    def _prepare(self, value):
        scores = self.utility(value) if self.utility is not None else value
        return _scores(scores, self.n_outcomes)

    def log_weights(self, value: Any) -> np.ndarray:
        """:math:`\\varepsilon u(D,r)/(2\\Delta u)` for every outcome (unnormalised log
        probabilities)."""
        self._validate()
        return self._factor * self._prepare(value)

    def probabilities(self, value: Any) -> np.ndarray:
        """The exact output distribution for ``value`` (softmax of :meth:`log_weights`)."""
        return special.softmax(self.log_weights(value))

    @property
    def tradeoff(self) -> TradeOff:
        """:math:`f_{\\varepsilon,0}` (sound; see the class Notes for tighter analyses)."""
        return f_eps_delta(self.eps)

    def accuracy(self, beta: float, *, n_outcomes: int) -> float:
        r"""Utility loss :math:`\frac{c\Delta u}{\varepsilon}\ln(m/\beta)` (:math:`c = 2`,
        or 1 when monotone) exceeded with probability at most β (Dwork–Roth Thm 3.11)."""
        b = _beta(beta)
        m = check_int("n_outcomes", n_outcomes, lo=1)
        return float((math.log(m) - math.log(b)) / self._factor)

    def _release(self, v, rng):
        return int(np.argmax(self._factor * v + rng.gumbel(size=v.shape)))

    def _release_many(self, v, n, rng):
        return np.argmax(self._factor * v + rng.gumbel(size=(n, v.size)), axis=1)


_NOISES = ("laplace", "gumbel")


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportNoisyMax(Mechanism):
    r"""Report Noisy Max: add i.i.d. noise of scale :math:`b` to each score and release only
    the index of the largest (Dwork–Roth Claim 3.9).

    Parameters
    ----------
    eps : float
        :math:`\varepsilon > 0`.
    sensitivity : float
        Per-score sensitivity :math:`\Delta` (1 for counts).
    noise : {"laplace", "gumbel"}
        Laplace noise (the notes' algorithm) or Gumbel noise, which makes the mechanism
        *identical* in distribution to :class:`Exponential` with the same parameters.
    monotone : bool
        Declare that all scores move in the same direction between neighbours (counts
        under add/remove: Claim 3.9's setting). Scale :math:`b = \Delta/\varepsilon` if
        monotone, :math:`2\Delta/\varepsilon` otherwise (default ``False``, valid for
        arbitrary scores).

    Notes
    -----
    ``tradeoff`` is :math:`f_{\varepsilon,0}`: the proof of Claim 3.9 bounds the ratio of
    output probabilities by :math:`e^\varepsilon`, i.e. :math:`\varepsilon`-DP, sound but
    not tight (with Gumbel noise the mechanism is :math:`\varepsilon`-bounded range, see
    :class:`Exponential`). Only the index is released; releasing the noisy maximum too
    costs more.

    Accuracy: with probability at least :math:`1-\beta` the chosen score is within
    :math:`2b\ln(m/\beta)` of the maximum for Laplace noise (Dwork–Roth Thm 3.8 applied
    twice) and :math:`b\ln(m/\beta)` for Gumbel noise (Thm 3.11).

    Examples
    --------
    >>> from gdp import mechanisms
    >>> rnm = mechanisms.ReportNoisyMax(eps=0.5, monotone=True)
    >>> rnm.scale, rnm.tradeoff
    (2.0, f_eps_delta(eps=0.5, delta=0.0))
    >>> mechanisms.ReportNoisyMax(eps=0.5).scale
    4.0
    """

    eps: float
    sensitivity: float = 1.0
    noise: str = "laplace"
    monotone: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _eps(self.eps))
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))
        if self.noise not in _NOISES:
            raise ValueError(f"`noise` must be 'laplace' or 'gumbel'; got noise={self.noise!r}")
        object.__setattr__(self, "monotone", _monotone(self.monotone))

    def _validate(self) -> None:
        _eps(self.eps)
        _sensitivity(self.sensitivity)
        check_real("scale", self.scale, lo=0.0, lo_open=True)

    @property
    def scale(self) -> float:
        """Noise scale :math:`b`."""
        return _div_up((1.0 if self.monotone else 2.0) * self.sensitivity, self.eps)

    @property
    def tradeoff(self) -> TradeOff:
        """:math:`f_{\\varepsilon,0}` (sound)."""
        return f_eps_delta(self.eps)

    def accuracy(self, beta: float, *, n_outcomes: int) -> float:
        """Gap to the true maximum exceeded with probability at most ``beta``."""
        b = _beta(beta)
        m = check_int("n_outcomes", n_outcomes, lo=1)
        c = 2.0 if self.noise == "laplace" else 1.0
        return float(c * self.scale * (math.log(m) - math.log(b)))

    def _prepare(self, value):
        return _scores(value, None)

    def _noise(self, shape, rng):
        if self.noise == "laplace":
            return rng.laplace(0.0, self.scale, size=shape)
        return self.scale * rng.gumbel(size=shape)

    def _release(self, v, rng):
        return int(np.argmax(v + self._noise(v.shape, rng)))

    def _release_many(self, v, n, rng):
        return np.argmax(v + self._noise((n, v.size), rng), axis=1)


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


def _rational(name: str, value: Any) -> Fraction:
    """A positive finite rational from an int, float (exactly) or Fraction."""
    if isinstance(value, Fraction):
        if value <= 0:
            raise ValueError(f"`{name}` must be a positive finite number; got {name}={value!r}")
        return value
    return Fraction(check_real(name, value, lo=0.0, lo_open=True))


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
    shape = tuple(np.atleast_1d(np.asarray(size, dtype=np.int64)).tolist())
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
    shape = tuple(np.atleast_1d(np.asarray(size, dtype=np.int64)).tolist())
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
    return check_int("sensitivity", value, lo=1)


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
        k = check_int("k", k, lo=1)
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
    >>> dl.tradeoff.dominates(gdp.f_eps_delta(1.0)), gdp.f_eps_delta(1.0).dominates(dl.tradeoff)
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
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "scale", t)

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
        k = check_int("k", k, lo=1)
        t = float(self.scale)

        def log_tail(a: int) -> float:  # log(k * P[|Y| > a])
            return math.log(2.0 * k) - (a + 1) / t - math.log1p(math.exp(-1.0 / t))

        a = max(0, math.ceil(t * (math.log(2.0 * k / b) - math.log1p(math.exp(-1.0 / t)))
                             - 1.0))
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
