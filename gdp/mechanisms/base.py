r"""The common ground of the mechanisms: the :class:`Mechanism` base and argument helpers.

A mechanism is a frozen value object built with keyword arguments; it releases
``mech(value, rng=...)`` and knows its exact trade-off function (``.tradeoff``), its
accuracy and its variance. This module holds the base class and the shared checks of
sensitivities, privacy parameters, values and random generators.

Imports: the ground floor and :mod:`gdp.core`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._numerics import div_up
from .._validation import as_real_array, check_count, check_real
from ..core.tradeoff import TradeOff

__all__ = ["Mechanism"]

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
    return float(div_up(a, b))


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


def _scores(scores: Any, n_outcomes: int | None, name: str = "utility") -> np.ndarray:
    """One score per outcome, from the utility (``name="utility"``) or given directly as
    the released value (``name="value"``, when there is no utility)."""
    gives = "must give" if name == "utility" else "must be"
    try:
        arr = np.asarray(scores) if not isinstance(scores, np.ndarray) else scores
    except (ValueError, TypeError):
        arr = np.asarray(None)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` {gives} a 1-D array with one score per outcome; got "
                         f"shape {arr.shape}")
    arr = as_real_array(name, arr)
    if arr.size == 0:
        raise ValueError(f"`{name}` {gives} at least one score; got an empty array")
    if n_outcomes is not None and arr.size != n_outcomes:
        raise ValueError(f"`{name}` gave {arr.size} scores but the mechanism was built "
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

    def _settle(self, **values: Any) -> None:
        """Store the checked and calibrated parameters (the instances are frozen)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

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
        n = check_count("n", n, hi=10**8, why="the releases are held in memory")
        gen = _as_rng(rng)
        return self._release_many(self._prepare(value), n, gen)


# ---------------------------------------------------------------------------
# continuous additive noise
# ---------------------------------------------------------------------------
_CALIBRATION = "exactly one calibration: `mu`, `sigma`, or both `eps` and `delta`"
