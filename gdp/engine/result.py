r"""The result of a numeric composition: a bracket with a sound default.

:class:`Composition` is a :class:`~gdp.core.tradeoff.Bracketed` curve between two
:class:`~gdp.engine.curves.LossCurve` (built lazily, :class:`LazyCurve`) whose ``delta`` and
``epsilon`` are the sound side (profiles answered by the engine in a frame chosen for each
question, :mod:`gdp.engine.numeric`); ``*_bounds`` show both sides and :class:`GridInfo`
records the untilted lattice.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.engine.curves`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import float_or_array
from .._validation import (
    check_bool,
    check_callable,
    check_fields,
    check_instance,
    check_real,
    check_str,
    count,
    flag,
    optional,
    real,
)
from ..core.tradeoff import Bracketed, Delegating, TradeOff
from .curves import LossCurve, _inv_label, curve_from_atoms, max_curves

__all__ = ["LazyCurve", "GridInfo", "Composition"]

# ---------------------------------------------------------------------------
# profiles: the sound and the optimistic answers of a composition
# ---------------------------------------------------------------------------
class _CurveProfile:
    def __init__(self, curve: TradeOff):
        self.curve = curve

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return np.asarray(self.curve._hockey(eps), dtype=float)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        c = self.curve
        if isinstance(c, LossCurve):
            return c._eps_direct(delta)
        return np.asarray(c._epsilon(delta), dtype=float)


class _Combine:
    """min (``how='min'``) or max of several sound profiles."""

    def __init__(self, how: str, *parts: Any):
        self.how = how
        self.parts = parts

    def _red(self, vals: list[np.ndarray]) -> np.ndarray:
        return np.minimum.reduce(vals) if self.how == "min" else np.maximum.reduce(vals)

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return self._red([p.delta(eps) for p in self.parts])

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        return self._red([p.epsilon(delta) for p in self.parts])


class _LazyProfile:
    def __init__(self, thunk: Callable[[], Any]):
        self._thunk = thunk
        self._value: Any = None

    def get(self) -> Any:
        if self._value is None:
            self._value = self._thunk()
        return self._value

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return self.get().delta(eps)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        return self.get().epsilon(delta)


@dataclass(frozen=True, slots=True, eq=False)
class LazyCurve(Delegating):
    """A trade-off curve computed on first use (the optimistic side of a composition)."""

    thunk: Callable[[], TradeOff] = field(repr=False)
    name: str = "f"
    symmetric: bool = False
    _box: list = field(default_factory=list, repr=False)

    def __post_init__(self):
        check_callable("thunk", self.thunk, "a callable returning a TradeOff")
        check_str("name", self.name)
        object.__setattr__(self, "symmetric", check_bool("symmetric", self.symmetric))

    def get(self) -> TradeOff:
        """The curve itself (computed once)."""
        if not self._box:
            self._box.append(check_instance("thunk", self.thunk(), TradeOff,
                                            "a callable returning a TradeOff"))
        return self._box[0]

    def __repr__(self):
        state = "computed" if self._box else "not computed yet"
        return f"LazyCurve(name={self.name!r}, {state})"

    def _target(self) -> TradeOff:
        return self.get()

    # Delegating leaves these to TradeOff; a lazy curve forwards them too
    def _epsilon(self, delta):
        return self.get()._epsilon(delta)

    def delta(self, eps: Any) -> Any:
        return self.get().delta(eps)

    def _inverse(self):
        return self.get().inverse()

    # ... but keeps TradeOff's generic certificate hooks (built from the forwarded profile
    # and vertex data), not the ones Delegating takes from the curve
    _omf_lower = TradeOff._omf_lower
    _lines = TradeOff._lines
    _hockey_upper = TradeOff._hockey_upper
    _hockey_lower = TradeOff._hockey_lower


@dataclass(frozen=True, slots=True)
class GridInfo:
    """How a numeric composition was computed (for reports and tests)."""

    grid_step: float
    window: tuple[float, float]
    n_points: int
    tail_bound: float
    roundoff: float
    rel_roundoff: float
    loss_shift: float = 0.0

    def __post_init__(self):
        nonneg = real(lo=0.0)
        check_fields(self, grid_step=real(lo=0.0, lo_open=True), n_points=count(),
                     tail_bound=nonneg, roundoff=nonneg, rel_roundoff=nonneg,
                     loss_shift=real())
        w = self.window
        if not (isinstance(w, tuple) and len(w) == 2):
            raise TypeError(f"`window` must be a pair (lo, hi) of numbers; got window={w!r:.60}")
        object.__setattr__(self, "window", (check_real("window", w[0]),
                                            check_real("window", w[1], lo=w[0])))


def _eps_arg(delta: Any) -> np.ndarray:
    from .._validation import as_probability_array

    return as_probability_array("delta", delta)


def _delta_arg(eps: Any) -> np.ndarray:
    from .._validation import as_real_array

    return as_real_array("eps", eps, lo=0.0, finite=False)


@dataclass(frozen=True, slots=True, eq=False)
class Composition(Bracketed):
    r"""The numeric tensor product of trade-off functions, bracketed on both sides.

    ``lower`` and ``upper`` are trade-off curves with ``lower <= f1 ⊗ ... ⊗ fn <= upper``
    (see the module docstring for the construction). Every question is answered on the
    sound side: ``h(alpha)`` by ``lower``; ``delta``/``epsilon`` by the smaller of the
    lattice profile of ``lower`` and a Chernoff bound from moment generating functions
    (both upper bounds). ``delta_bounds`` and ``epsilon_bounds`` give both sides.

    Attributes
    ----------
    info : GridInfo
        Lattice step, window, size and the floating-point allowances charged.
    parts : tuple of (TradeOff, int)
        Where this curve is exactly the tensor product of ``(f, n)`` groups (its order 1
        with ``per_order``), those groups; :func:`gdp.compose` composes them instead of
        this curve when it meets other factors (``()``: none known).
    per_order : bool
        Whether ``parts`` are composed per order of the neighbouring pair and symmetrised
        at the end (:func:`gdp.compose_two_orders`, which alone flattens such a curve).

    Examples
    --------
    >>> import gdp
    >>> h = gdp.compose(gdp.laplace(1.0), gdp.G_mu(0.5))
    >>> lo, hi = h.epsilon_bounds(1e-5)
    >>> bool(lo <= h.epsilon(1e-5) <= hi), bool(hi - lo < 5e-3)
    (True, True)
    """

    symmetric: bool = False
    sound: Any = field(default=None, repr=False)
    other: Any = field(default=None, repr=False)
    grid: Any = field(default=None, repr=False)
    inverse_fn: Any = field(default=None, repr=False)
    parts: tuple = field(default=(), repr=False)
    per_order: bool = field(default=False, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        Bracketed.__post_init__(self)
        if not (self.grid is None or isinstance(self.grid, GridInfo) or callable(self.grid)):
            raise TypeError(f"`grid` must be a GridInfo, a callable returning one, or None; "
                            f"got grid={self.grid!r:.60}")
        check_fields(self, symmetric=flag(), per_order=flag(),
                     inverse_fn=optional(lambda n, v: check_callable(n, v)))
        if not isinstance(self.parts, tuple) or not all(
                isinstance(g, tuple) and len(g) == 2 and isinstance(g[0], TradeOff) and
                isinstance(g[1], int) and not isinstance(g[1], bool) and g[1] >= 1
                for g in self.parts):
            raise TypeError(f"`parts` must be a tuple of (TradeOff, count) pairs; got "
                            f"parts={self.parts!r:.60}")
        # the profiles default to those of the two curves
        for side, curve in (("sound", self.lower), ("other", self.upper)):
            prof = getattr(self, side)
            if prof is None:
                object.__setattr__(self, side, _CurveProfile(curve))
            elif not all(callable(getattr(prof, m, None)) for m in ("delta", "epsilon")):
                raise TypeError(f"`{side}` must have delta(eps) and epsilon(delta) methods (a "
                                f"profile); got {side}={prof!r:.60}")

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.symmetric

    def _symmetric_exact(self):
        return self.symmetric  # the composed curve is symmetric by construction

    @property
    def info(self) -> GridInfo | None:
        """The untilted lattice (:class:`GridInfo`; computed on first use)."""
        if self.grid is None or isinstance(self.grid, GridInfo):
            return self.grid
        if "info" not in self._cache:
            self._cache["info"] = self.grid()
        return self._cache["info"]

    def __repr__(self):
        return f"Composition(name={self.name!r})"

    def _hockey(self, eps):
        return np.clip(self.sound.delta(np.asarray(eps, dtype=float)), 0.0, 1.0)

    def _hockey_lower(self, eps):
        """A lower bound on this order's profile: the other side's δ (each answer a bound on
        its side, rounding included; :meth:`delta_bounds`' lower end, before the
        symmetrisation), 0 where it gives none. What subsampling this curve takes for its
        own lower end (:meth:`~gdp.sampling.subsampling.Subsampled.delta_bounds`), which was
        0 before: the upper curve has no lower profile of its own."""
        with np.errstate(all="ignore"):
            lo = np.asarray(self.other.delta(np.asarray(eps, dtype=float)), dtype=float)
        return np.clip(np.nan_to_num(lo, nan=0.0, posinf=1.0), 0.0, 1.0) + 0.0  # (no -0.0)

    def _epsilon(self, delta):
        if self.symmetric:
            return self.sound.epsilon(np.asarray(delta, dtype=float))
        return self.symmetrize()._epsilon(delta)

    def delta(self, eps: Any) -> Any:
        if self.symmetric:
            return TradeOff.delta(self, eps)
        return self.symmetrize().delta(eps)

    def _inverse(self):
        if "inv" not in self._cache:
            if self.inverse_fn is not None:
                self._cache["inv"] = self.inverse_fn()
            else:
                lo = self.lower.inverse()
                up = self.upper.inverse()
                self._cache["inv"] = Composition(
                    lower=lo, upper=up, name=_inv_label(self.name), symmetric=False,
                    sound=_CurveProfile(lo), other=_CurveProfile(up), grid=self.grid)
        return self._cache["inv"]

    def symmetrize(self) -> TradeOff:
        r""":math:`h^S = \max\{h, h^{-1}\}` with both sides (DRS Prop. 2.4)."""
        if self.symmetric:
            return self
        if "sym" not in self._cache:
            inv = self.inverse()
            lo = _materialise(self.lower)
            lo_i = _materialise(inv.lower)
            lower = max_curves(lo, lo_i, symmetric=True, name="{" + self.name + "}^{S}")

            def upper_thunk() -> TradeOff:
                return max_curves(_materialise(self.upper), _materialise(inv.upper),
                                  symmetric=True, name="{" + self.name + "}^{S}")

            up = LazyCurve(thunk=upper_thunk, name="{" + self.name + "}^{S}", symmetric=True)
            sound = _Combine("min", _CurveProfile(lower), self.sound, inv.sound)
            self._cache["sym"] = Composition(
                lower=lower, upper=up, name="{" + self.name + "}^{S}", symmetric=True,
                sound=sound, other=_CurveProfile(up), grid=self.grid)
        return self._cache["sym"]

    def _sides(self, question: str, x: np.ndarray, lo_nan: float, hi_nan: float,
               hi_cap: float) -> tuple[np.ndarray, np.ndarray]:
        """The optimistic and the sound answers to ``question`` (``"delta"`` or
        ``"epsilon"``) at the flat ``x``, a NaN turned into the side's safe value, in
        ``[0, hi_cap]`` and ordered."""
        with np.errstate(all="ignore"):
            lo = np.nan_to_num(getattr(self.other, question)(x), nan=lo_nan, posinf=np.inf)
            hi = np.nan_to_num(getattr(self.sound, question)(x), nan=hi_nan, posinf=np.inf)
        hi = np.clip(hi, 0.0, hi_cap) + 0.0   # (+ 0.0: no negative zeros)
        return np.minimum(np.clip(lo, 0.0, hi_cap), hi) + 0.0, hi

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on δ(ε) (ε ≥ 0); :meth:`delta` is the upper one."""
        if not self.symmetric:
            return self.symmetrize().delta_bounds(eps)
        e = _delta_arg(eps)
        lo, hi = self._sides("delta", e.reshape(-1), 0.0, 1.0, 1.0)
        return float_or_array(lo, e.shape), float_or_array(hi, e.shape)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on ε(δ); :meth:`epsilon` is the upper one."""
        if not self.symmetric:
            return self.symmetrize().epsilon_bounds(delta)
        d = _eps_arg(delta)
        lo, hi = self._sides("epsilon", d.reshape(-1), 0.0, np.inf, np.inf)
        return float_or_array(lo, d.shape), float_or_array(hi, d.shape)


def _materialise(c: TradeOff) -> LossCurve:
    if isinstance(c, LazyCurve):
        c = c.get()
    if isinstance(c, LossCurve):
        return c
    at = c._atoms()
    if at is None:
        raise TypeError(f"expected a piecewise-linear curve; got {c!r}")
    return curve_from_atoms(*at, name=c.label, symmetric=c.is_symmetric)
