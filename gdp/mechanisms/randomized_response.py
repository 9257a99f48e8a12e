r"""k-ary randomized response: report the true category with probability
:math:`e^\varepsilon/(e^\varepsilon+k-1)`, any other uniformly; exactly
:math:`f_{\varepsilon,0}`-DP.

Imports: the ground floor, :mod:`gdp.families`, :mod:`gdp.mechanisms.base`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_count, check_int
from ..core.distributions import from_distributions
from ..core.tradeoff import TradeOff
from .base import Mechanism, _eps, _out, _values

__all__ = ["RandomizedResponse"]

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
    >>> f = gdp.f_eps_delta(1.0)  # equal curves: certified only up to rounding
    >>> rr.tradeoff.dominates(f, atol=1e-12), f.dominates(rr.tradeoff, atol=1e-12)
    (True, True)
    """

    k: int
    eps: float
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_count("k", self.k, lo=2, hi=10**7,
                                                  why="the output law has k outcomes"))
        object.__setattr__(self, "eps", _eps(self.eps))

    def _validate(self) -> None:
        check_count("k", self.k, lo=2, hi=10**7)
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
