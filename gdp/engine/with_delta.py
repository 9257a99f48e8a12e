r"""A curve with an extra failure probability: :math:`h \otimes f_{0,\delta}`.

:math:`h \otimes f_{0,\delta}(\alpha) = (1-\delta)\,h(\alpha/(1-\delta))`, with profile
:math:`\delta + (1-\delta)\delta_h` exactly (DRS Prop. 2.5): :class:`WithDelta` keeps it in
closed form for closed-form :math:`h`, and :func:`_with_delta` applies it to exact curves and
numeric compositions without recomputing them.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, and
:mod:`gdp.engine.curves`, :mod:`gdp.engine.laws`, :mod:`gdp.engine.randomized_response`,
:mod:`gdp.engine.result`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import EPS
from .._validation import check_instance, check_probability
from ..core.piecewise import Identity
from ..core.tradeoff import Derived, TradeOff
from ..families.epsdelta import EpsDelta
from .curves import LossCurve, curve_from_atoms
from .laws import Law, law_of
from .randomized_response import RandomizedResponsePower, _rr_power_from_curve
from .result import Composition, LazyCurve

__all__ = ["WithDelta"]

# ---------------------------------------------------------------------------
# h ⊗ f_{0,δ}
# ---------------------------------------------------------------------------
class _WithDeltaLaw(Law):
    def __init__(self, base: Law, delta: float):
        self.base = base
        self.d = delta
        self.q_inf = delta + (1.0 - delta) * base.q_inf
        self.p_ninf = delta + (1.0 - delta) * base.p_ninf

    def cells(self, edges):
        s = 1.0 - self.d
        return tuple(s * v for v in self.base.cells(edges))

    def excess(self, edges, refs):
        s = 1.0 - self.d
        return tuple(s * v for v in self.base.excess(edges, refs))

    def atoms(self):
        u, p, q = self.base.atoms()
        return u, (1.0 - self.d) * p, (1.0 - self.d) * q

    def quantiles(self, tol):
        return self.base.quantiles(tol / max(1.0 - self.d, 1e-300))

    def plan_atoms(self, m=2048):
        b = self.base.plan_atoms(m)
        if b is None:
            return None
        u, p, q = b
        return u, (1.0 - self.d) * p, (1.0 - self.d) * q


@dataclass(frozen=True, slots=True)
class WithDelta(Derived):
    r""":math:`h \otimes f_{0,\delta}`: the curve :math:`h` with an extra failure
    probability δ, :math:`(1-\delta)\,h(\alpha/(1-\delta))` (0 for :math:`\alpha > 1-\delta`).

    Its profile is :math:`\delta + (1-\delta)\,\delta_h(\varepsilon)` exactly (the
    product with :math:`f_{0,\delta}`'s atoms at :math:`\pm\infty`). Built by
    :func:`compose` when a closed-form curve meets an (ε, δ) factor, e.g.
    :math:`G_\mu \otimes f_{0,\delta}` (the limit of DRS Cor. 3.6).

    Examples
    --------
    >>> import gdp
    >>> h = gdp.G_mu(1.0) @ gdp.f_eps_delta(0.0, 0.01)
    >>> round(h.delta(1.0), 6) == round(0.01 + 0.99 * gdp.G_mu(1.0).delta(1.0), 6)
    True
    """

    base: TradeOff
    delta_: float

    def __post_init__(self):
        check_instance("base", self.base, TradeOff, "a TradeOff")
        object.__setattr__(self, "delta_", check_probability("delta_", self.delta_))

    @property
    def label(self):
        return f"{self.base.label}\\otimes f_{{0,{self.delta_:g}}}"

    def __repr__(self):
        return f"WithDelta(base={self.base!r}, delta={self.delta_!r})"

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        s = 1.0 - self.delta_
        x = np.minimum(a / s, 1.0) if s > 0 else np.ones_like(a)
        return np.where(a < s, s * np.asarray(self.base._f(x)), 0.0)

    def _one_minus_f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        s = 1.0 - self.delta_
        x = np.minimum(a / s, 1.0) if s > 0 else np.ones_like(a)
        return np.where(a < s, self.delta_ + s * np.asarray(self.base._one_minus_f(x)), 1.0)

    def _hockey(self, eps):
        return self.delta_ + (1.0 - self.delta_) * np.asarray(self.base._hockey(eps))

    def _epsilon(self, delta):
        delta = np.asarray(delta, dtype=float)
        if not self.is_symmetric:
            return TradeOff._epsilon(self, delta)
        s = 1.0 - self.delta_
        room = np.where(delta >= self.delta_, (delta - self.delta_) / s, -1.0)
        out = np.full(delta.shape, np.inf)
        ok = room >= 0
        if ok.any():
            out[ok] = np.asarray(self.base._epsilon(np.minimum(room[ok], 1.0)), dtype=float)
        return out

    def _loss_sf(self, t):
        return (1.0 - self.delta_) * np.asarray(self.base._loss_sf(t))

    def _loss_sf_q(self, t):
        return self.delta_ + (1.0 - self.delta_) * np.asarray(self.base._loss_sf_q(t))

    def _atoms(self):
        at = self.base._atoms()
        if at is None:
            return None
        u, p, q = at
        s = 1.0 - self.delta_
        return (np.concatenate([u, [np.inf, -np.inf]]),
                np.concatenate([s * p, [0.0, self.delta_]]),
                np.concatenate([s * q, [self.delta_, 0.0]]))

    def _inverse(self):
        return WithDelta(base=self.base.inverse(), delta_=self.delta_)

    def _pld_law(self) -> Law:
        return _WithDeltaLaw(law_of(self.base), self.delta_)


class _DeltaProfile:
    """Profile of h ⊗ f_{0,δ} from the profile of h."""

    def __init__(self, prof: Any, delta: float):
        self.prof = prof
        self.d = delta

    def delta(self, eps):
        return self.d + (1.0 - self.d) * np.asarray(self.prof.delta(eps))

    def epsilon(self, delta):
        delta = np.asarray(delta, dtype=float)
        room = (delta - self.d) / (1.0 - self.d)
        out = np.full(delta.shape, np.inf)
        ok = room >= 0
        if ok.any():
            out[ok] = self.prof.epsilon(np.minimum(room[ok], 1.0))
        return out


def _curve_with_delta(c: LossCurve, delta: float) -> LossCurve:
    u, p, q = c._atoms()
    s = 1.0 - delta
    return curve_from_atoms(np.concatenate([u, [np.inf]]), np.concatenate([s * p, [0.0]]),
                            np.concatenate([s * q, [delta]]), name=c.name,
                            symmetric=c.symmetric, optimistic=c.optimistic,
                            rerr=c.rerr + 2 * EPS)


def _both(a: float, b: float) -> float:
    """:math:`1-(1-a)(1-b) = a + b(1-a)` without cancellation, rounded up (3 roundings)."""
    return min(1.0, (a + b * (1.0 - a)) * (1.0 + 2 * EPS))


def _with_delta(h: TradeOff, delta: float) -> TradeOff:
    """h ⊗ f_{0,δ}, keeping the closed form where there is one."""
    if delta <= 0.0:
        return h
    if delta >= 1.0:
        return EpsDelta(eps=0.0, delta_=1.0)
    if isinstance(h, Identity):
        return EpsDelta(eps=0.0, delta_=delta)
    if isinstance(h, EpsDelta):
        return EpsDelta(eps=h.eps, delta_=_both(h.delta_, delta))
    if isinstance(h, WithDelta):
        return WithDelta(base=h.base, delta_=_both(h.delta_, delta))
    if isinstance(h, RandomizedResponsePower):  # profile and eps(delta) stay in log space
        return _rr_power_from_curve(_curve_with_delta(h, delta), h.eps0, h.k,
                                    _both(h.delta_, delta))
    if isinstance(h, LossCurve):
        return _curve_with_delta(h, delta)
    if isinstance(h, Composition):
        def lazy(c: TradeOff) -> TradeOff:
            if isinstance(c, LossCurve):
                return _curve_with_delta(c, delta)
            return LazyCurve(thunk=lambda: _curve_with_delta(_as_curve(c), delta),
                             name=h.name, symmetric=c.is_symmetric)
        return Composition(lower=lazy(h.lower), upper=lazy(h.upper), name=h.name,
                           symmetric=h.symmetric, sound=_DeltaProfile(h.sound, delta),
                           other=_DeltaProfile(h.other, delta), grid=h.grid,
                           inverse_fn=None if h.symmetric else
                           (lambda: _with_delta(h.inverse(), delta)))
    return WithDelta(base=h, delta_=delta)


def _as_curve(c: TradeOff) -> LossCurve:
    if isinstance(c, LazyCurve):
        c = c.get()
    if isinstance(c, LossCurve):
        return c
    return curve_from_atoms(*c._atoms(), name=c.label, symmetric=c.is_symmetric)
