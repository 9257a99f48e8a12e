r"""A user's function as a trade-off function, after checking that it is one.

:func:`from_callable` evaluates the function on a grid with log-spaced tails and checks, in
this order, that it is finite, maps into [0, 1], has :math:`f(1) = 0`, lies below
:math:`1 - \alpha`, is non-increasing and convex (DRS Prop. 2.2), naming the first property
that fails and where. The wrapped :class:`Callable1D` answers every question through the
generic certified numerics of :mod:`gdp.core.generic`.

Imports: the ground floor and :mod:`gdp.core.tradeoff`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_bool, check_callable, check_count, check_real, check_str
from .generic import _numeric_hockey_lower
from .tradeoff import Inverse, TradeOff

__all__ = ["Callable1D", "from_callable"]

_N_CHECK_MAX = 10**7

# ---------------------------------------------------------------------------
# generic wrappers
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Callable1D(TradeOff):
    """A user's function wrapped as a trade-off function (see :func:`from_callable`)."""

    fn: Callable[[np.ndarray], Any]
    name: str = "f"
    symmetric: bool = False

    def __post_init__(self):
        check_callable("fn", self.fn)
        check_str("name", self.name)
        object.__setattr__(self, "symmetric", check_bool("symmetric", self.symmetric))

    def _f(self, alpha):
        alpha = np.asarray(alpha, dtype=float)
        out = np.asarray(self.fn(alpha), dtype=float)
        out = np.broadcast_to(out, alpha.shape)
        # the checked function may stray from [0, 1 - alpha] by float noise: lower is safe
        return np.clip(np.where(np.isnan(out), 0.0, out), 0.0, 1.0 - alpha)

    def _hockey_lower(self, eps):
        """A lower bound on the profile from the function's values
        (:func:`~gdp.core.generic._numeric_hockey_lower`)."""
        return _numeric_hockey_lower(self, np.asarray(eps, dtype=float))


def from_callable(fn: Callable[[Any], Any], *, name: str = "f", symmetric: bool = False,
                  n_check: int = 4001, tol: float = 1e-9) -> Callable1D:
    r"""Wrap a user's function as a :class:`TradeOff`, after checking it is one.

    The function must accept a numpy array of α and return an array of the same shape.
    It is evaluated on a grid of ``n_check`` points plus log-spaced tails and must be, in
    this order of checking: finite; within [0, 1]; :math:`f(1) = 0`; at most
    :math:`1-\alpha`; non-increasing; convex (slopes non-decreasing). ``tol`` is the
    absolute slack of the value checks and the relative slack of the slope check (on top
    of float rounding). The ``ValueError`` names the violated property and the first α
    where it fails. ``symmetric=True`` declares :math:`f = f^{-1}` (checked on a grid),
    which makes :meth:`TradeOff.delta` use the one-order profile.

    Notes
    -----
    A grid check cannot prove convexity or continuity at 0 (a jump :math:`f(0) >
    f(0^+)` is convex); the wrapped curve is clipped to :math:`[0, 1-\alpha]` (a lower,
    safe curve) and numeric answers (``delta``, ``epsilon``) come from the generic
    certified paths.

    Values are known only to rounding: the composition engine takes each within
    :math:`32u + 4uf(\alpha)` of the truth (u the unit roundoff), which leaves every such
    factor's δ uncertain by about 1e-14 at any ε. A composition of n of them therefore
    answers ``epsilon(delta) = inf`` for δ below about n·1e-14 (three factors at
    δ = 1e-15): no finite ε is certified from the values alone. A curve whose tail is
    known in closed form (:func:`gdp.G_mu`, a family's own class) has no such floor.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_callable(lambda a: (1 - a) ** 2)
    >>> f(0.5)
    0.25
    >>> gdp.from_callable(lambda a: np.minimum(0.5 - 0.25 * a, 1 - a))
    Traceback (most recent call last):
    ...
    ValueError: `fn` is not convex: its slope decreases at alpha=0.6665
    """
    check_callable("fn", fn)
    check_str("name", name)
    symmetric = check_bool("symmetric", symmetric)
    n_check = check_count("n_check", n_check, lo=11, hi=_N_CHECK_MAX,
                          why="the function is evaluated on that many points at once")
    tol = check_real("tol", tol, lo=0.0)
    tails = np.logspace(-12, -1, 100)
    x = np.unique(np.concatenate([np.linspace(0, 1, n_check), tails, 1 - tails]))
    try:
        with np.errstate(all="ignore"):
            y = np.asarray(fn(x), dtype=float)
        y = np.broadcast_to(y, x.shape)
    except Exception as exc:
        raise TypeError("`fn` must accept a numpy array of alphas and return numbers of the "
                        f"same shape; calling it failed: {exc}") from exc

    def where(mask: np.ndarray) -> str:
        return f"alpha={float(x[np.flatnonzero(mask)[0]])!r}"

    if not np.all(np.isfinite(y)):
        raise ValueError(f"`fn` must return finite values on [0, 1]; not finite at "
                         f"{where(~np.isfinite(y))}")
    if np.any((y < -tol) | (y > 1 + tol)):
        raise ValueError(f"`fn` must map into [0, 1]; got a value outside at "
                         f"{where((y < -tol) | (y > 1 + tol))}")
    if abs(y[-1]) > tol:
        raise ValueError(f"`fn` must satisfy f(1) = 0 (every trade-off function does); "
                         f"got f(1)={float(y[-1])!r}")
    if np.any(y > 1 - x + tol):
        raise ValueError(f"`fn` must satisfy f(alpha) <= 1 - alpha; violated at "
                         f"{where(y > 1 - x + tol)}")
    dy = np.diff(y)
    if np.any(dy > tol):
        raise ValueError(f"`fn` must be non-increasing; it increases after "
                         f"{where(np.concatenate([dy > tol, [False]]))}")
    h = np.diff(x)
    slopes = dy / h
    # rounding of y (a few ulps of the function's scale, <= 1: intermediate values of an
    # evaluation can be that large even where y is tiny) perturbs a slope by ~noise
    noise = 8.0 * np.finfo(float).eps * max(float(np.max(np.abs(y))), 1e-300) / h
    ds = np.diff(slopes)
    slack = noise[:-1] + noise[1:] + tol * np.maximum(1.0, np.maximum(np.abs(slopes[:-1]),
                                                                       np.abs(slopes[1:])))
    bad = ds < -slack
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0]) + 1
        raise ValueError(f"`fn` is not convex: its slope decreases at alpha={float(x[i])!r}")
    if symmetric:
        g = Callable1D(fn=fn, name=name, symmetric=False)
        xi = np.linspace(0, 1, 201)
        gap = np.abs(Inverse(g)._f(xi) - g._f(xi))
        if np.max(gap) > 1e-6:
            raise ValueError("`fn` was declared `symmetric` but f != f^{-1}: they differ by "
                             f"{float(np.max(gap)):.3g} at alpha={float(xi[np.argmax(gap)])!r}")
    return Callable1D(fn=fn, name=name, symmetric=symmetric)
