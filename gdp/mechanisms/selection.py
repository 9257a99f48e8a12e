r"""Private selection: the exponential mechanism and report noisy max.

:class:`Exponential` samples by the Gumbel-max trick in log space, with probability
:math:`\propto\exp(\varepsilon u/(2\Delta u))` (ε-DP; the factor 2 drops for monotone
utilities); :class:`ReportNoisyMax` adds Laplace or Gumbel noise to m counts and reports the
argmax (Dwork–Roth Claim 3.9). Both claim :math:`f_{\varepsilon,0}`.

Imports: the ground floor, :mod:`gdp.families`, :mod:`gdp.mechanisms.base`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._validation import check_count, check_real
from ..core.tradeoff import TradeOff
from ..families.epsdelta import f_eps_delta
from .base import Mechanism, _beta, _div_up, _eps, _scores, _sensitivity

__all__ = ["Exponential", "ReportNoisyMax"]

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
        self._settle(sensitivity=_sensitivity(self.sensitivity),
                     eps=_eps(self.eps),
                     monotone=_monotone(self.monotone))
        if self.n_outcomes is not None:
            object.__setattr__(self, "n_outcomes", check_count(
                "n_outcomes", self.n_outcomes, hi=10**7, why="one score per outcome"))

    def _validate(self) -> None:
        _sensitivity(self.sensitivity)
        _eps(self.eps)

    @property
    def _factor(self) -> float:
        return self.eps / ((1.0 if self.monotone else 2.0) * self.sensitivity)

    def _prepare(self, value):
        if self.utility is None:
            return _scores(value, self.n_outcomes, name="value")
        return _scores(self.utility(value), self.n_outcomes)

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
        m = check_count("n_outcomes", n_outcomes)
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
        if not isinstance(self.noise, str) or self.noise not in _NOISES:
            raise ValueError(f"`noise` must be 'laplace' or 'gumbel'; got "
                             f"noise={self.noise!r:.60}")
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
        m = check_count("n_outcomes", n_outcomes)
        c = 2.0 if self.noise == "laplace" else 1.0
        return float(c * self.scale * (math.log(m) - math.log(b)))

    def _prepare(self, value):
        return _scores(value, None, name="value")

    def _noise(self, shape, rng):
        if self.noise == "laplace":
            return rng.laplace(0.0, self.scale, size=shape)
        return self.scale * rng.gumbel(size=shape)

    def _release(self, v, rng):
        return int(np.argmax(v + self._noise(v.shape, rng)))

    def _release_many(self, v, n, rng):
        return np.argmax(v + self._noise((n, v.size), rng), axis=1)
