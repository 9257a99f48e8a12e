r"""Privacy budgets: a target (ε, δ), μ or trade-off curve, and what is spent and left of it.

Theory of operation
-------------------
A budget is met by a composed curve :math:`h` when

* (ε, δ): the sound :math:`\varepsilon_h(\delta) \le \varepsilon` (DRS Prop. 2.12; the
  engine's upper bound, so the true ε is below it too);
* μ: :math:`h \ge G_\mu` everywhere (μ-GDP, checked on the sound curve). The sound curve
  of a numeric composition puts its truncated tails and round-off allowances at
  :math:`\pm\infty` (a jump at α = 0 and a flat zero tail before α = 1, each at most 1e-9
  of mass), where no :math:`G_\mu` lies below it; for such a curve the check is dominance
  of :math:`G_\mu` with those masses moved, μ-GDP up to the engine's floor (an additive δ
  of at most the mass at :math:`+\infty`; see
  :func:`gdp.accounting.calibrate._mu_above_floor`, which calibration uses too);
* a curve :math:`f`: :math:`h \ge f` (:meth:`gdp.TradeOff.dominates` on the sound curve).

What is *spent* is said in the budget's own unit: :math:`\varepsilon_h(\delta)` for (ε, δ),
the smallest :math:`\mu_h` with :math:`h \ge G_{\mu_h}` for μ (bisection on the sound
curve, upper end). What is *left* (:class:`Remaining`) is what one more mechanism may still
cost, so that it composes:

* (ε, δ): the largest :math:`\varepsilon_r` such that one more pure
  :math:`\varepsilon_r`-DP release (:math:`f_{\varepsilon_r,0}`) still fits,
  :math:`h \otimes f_{\varepsilon_r,0}` meeting the budget (bisection on the sound check,
  lower end: never over-stated), and the δ left at the budget's ε, :math:`\delta -
  \delta_h(\varepsilon)`. (ε itself does not add up: the gap :math:`\varepsilon -
  \varepsilon_h(\delta)` is not an ε one can spend.)
* μ: :math:`\mu_r = \sqrt{\mu^2 - \mu_h^2}`, the μ of a Gaussian mechanism that still
  fits, since :math:`h \otimes G_{\mu_r} \ge G_{\mu_h} \otimes G_{\mu_r} = G_\mu`
  (DRS Cor. 3.3).
* A curve budget has no single remainder (any :math:`g` with :math:`h \otimes g \ge f`
  fits); ``remaining()`` refuses it.

:class:`BudgetExceeded` (a ``ValueError``) is what an accountant raises, before recording,
for a mechanism that would leave its budget unmet.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.accounting.state`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import bisect_bracket
from .._validation import check_fields, check_real, choice, instance, optional, real
from ..core.tradeoff import TradeOff
from ..families.epsdelta import f_eps_delta
from ..families.gaussian import G_mu, Gaussian
from .calibrate import _mu_above_floor
from .state import curve_from_spec, curve_to_spec

__all__ = ["Budget", "BudgetExceeded", "Remaining", "make_budget"]


@dataclass(frozen=True, slots=True)
class Remaining:
    r"""What a budget still allows (module docstring).

    Attributes
    ----------
    eps : float or None
        (ε, δ) budget: the largest :math:`\varepsilon_r` of one more pure DP release that
        fits (never over-stated).
    delta : float or None
        (ε, δ) budget: the δ left at the budget's ε.
    mu : float or None
        μ budget: the μ of one more Gaussian mechanism that fits.
    tradeoff : TradeOff
        The curve of that release: :math:`f_{\varepsilon_r,0}` or :math:`G_{\mu_r}`.
    """

    eps: float | None
    delta: float | None
    mu: float | None
    tradeoff: TradeOff

    def __post_init__(self):
        check_fields(self, eps=optional(real(lo=0.0)), delta=optional(real(lo=0.0, hi=1.0)),
                     mu=optional(real(lo=0.0)), tradeoff=instance(TradeOff, "a TradeOff"))
        if (self.eps is None) != (self.delta is None) or (self.mu is None) == (self.eps is None):
            raise TypeError(f"a Remaining has `eps` with `delta` (an (eps, delta) budget) or "
                            f"`mu` (a mu budget); got eps={self.eps!r}, delta={self.delta!r}, "
                            f"mu={self.mu!r}")


@dataclass(frozen=True, slots=True)
class Budget:
    r"""A privacy budget; build it with :func:`make_budget` (or the accountant's keywords).

    Attributes
    ----------
    criterion : str
        ``"epsilon"``, ``"mu"`` or ``"tradeoff"``.
    eps, delta : float or None
        The (ε, δ) target.
    mu : float or None
        The μ-GDP target.
    tradeoff : TradeOff or None
        The curve target.
    """

    criterion: str
    eps: float | None = None
    delta: float | None = None
    mu: float | None = None
    tradeoff: TradeOff | None = None

    def __post_init__(self):
        check_fields(self, criterion=choice(("epsilon", "mu", "tradeoff")),
                     eps=optional(real(lo=0.0)),
                     delta=optional(real(lo=0.0, hi=1.0, hi_open=True)),
                     mu=optional(real(lo=0.0)),
                     tradeoff=optional(instance(TradeOff, "a TradeOff")))
        need = {"epsilon": ("eps", "delta"), "mu": ("mu",), "tradeoff": ("tradeoff",)}
        for name in ("eps", "delta", "mu", "tradeoff"):
            given = getattr(self, name) is not None
            if given != (name in need[self.criterion]):
                rule = "given" if name in need[self.criterion] else "None"
                raise TypeError(f"`{name}` must be {rule} for a criterion={self.criterion!r} "
                                f"budget; got {name}={getattr(self, name)!r}")

    def describe(self) -> str:
        """``"(eps, delta) = (3, 1e-05)"``, ``"mu = 1"`` or ``"the curve ..."``."""
        if self.criterion == "epsilon":
            return f"(eps, delta) = ({self.eps:g}, {self.delta:g})"
        if self.criterion == "mu":
            return f"mu = {self.mu:g}"
        return f"the trade-off curve {self.tradeoff!r}"

    def met_by(self, h: TradeOff) -> bool:
        """Whether the composed curve ``h`` meets the budget (module docstring)."""
        if self.criterion == "epsilon":
            return float(h.epsilon(self.delta)) <= self.eps
        if self.criterion == "mu":
            return _certifies_mu(h, self.mu)
        return bool(h.dominates(self.tradeoff))

    def spent(self, h: TradeOff) -> float:
        """The budget's quantity spent by ``h``: ε at δ, or the smallest μ with
        :math:`h \\ge G_\\mu` (upper end of a bisection, so never too small)."""
        if self.criterion == "epsilon":
            return float(h.epsilon(self.delta))
        if self.criterion == "tradeoff":
            raise ValueError("a trade-off curve budget has no scalar spent or remaining "
                             "amount; compare acc.tradeoff() with acc.budget.tradeoff")
        if isinstance(h, Gaussian):
            return h.mu
        top = self.mu if _certifies_mu(h, self.mu) else math.inf
        if not math.isfinite(top):
            return top
        if h.dominates(G_mu(0.0)):
            return 0.0
        _, hi = bisect_bracket(lambda m: np.array([_certifies_mu(h, float(x)) for x in
                                                   np.atleast_1d(m)]).reshape(np.shape(m)),
                               0.0, top, rtol=1e-7)
        return float(hi)

    def remaining(self, h: TradeOff, extend: Callable[[TradeOff], TradeOff]) -> Remaining:
        """What is left (module docstring); ``extend(g)`` composes the ledger with one more
        mechanism ``g``."""
        if self.criterion == "mu":
            s = self.spent(h)
            mu_r = math.sqrt(max(0.0, self.mu * self.mu - s * s))
            return Remaining(eps=None, delta=None, mu=mu_r, tradeoff=G_mu(mu_r))
        if self.criterion == "tradeoff":
            self.spent(h)  # refuses
        left = max(0.0, self.delta - float(h.delta(self.eps)))

        def fits(e: float) -> bool:
            return self.met_by(extend(f_eps_delta(e)))

        if self.eps == 0.0 or not self.met_by(h) or not fits(0.0):
            eps_r = 0.0
        elif fits(self.eps):
            eps_r = self.eps
        else:
            lo, _ = bisect_bracket(lambda e: np.array([not fits(float(x)) for x in
                                                       np.atleast_1d(e)]).reshape(np.shape(e)),
                                   0.0, self.eps, rtol=1e-4)
            eps_r = float(lo)
        return Remaining(eps=eps_r, delta=left, mu=None, tradeoff=f_eps_delta(eps_r))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"eps": .., "delta": ..}``, ``{"mu": ..}`` or
        ``{"tradeoff": spec}`` (the curve itself when it has no JSON form)."""
        if self.criterion == "epsilon":
            return {"eps": self.eps, "delta": self.delta}
        if self.criterion == "mu":
            return {"mu": self.mu}
        spec = curve_to_spec(self.tradeoff)
        return {"tradeoff": self.tradeoff if spec is None else spec}

    @classmethod
    def from_dict(cls, d: Any) -> Budget:
        """Inverse of :meth:`to_dict` (validated)."""
        if not isinstance(d, dict) or set(d) not in ({"eps", "delta"}, {"mu"}, {"tradeoff"}):
            raise ValueError(f"a budget must be {{'eps', 'delta'}}, {{'mu'}} or "
                             f"{{'tradeoff'}}; got {d!r}")
        if "tradeoff" in d:
            d = {"tradeoff": curve_from_spec(d["tradeoff"], "budget.tradeoff")}
        return make_budget(**d)


class BudgetExceeded(ValueError):
    """Raised by an accountant, before recording anything, for a mechanism that would leave
    its budget unmet. ``budget`` is the :class:`Budget`, ``attempted`` says what was refused,
    ``would_be`` the ε at the budget's δ it would have reached (None for μ/curve budgets)."""

    def __init__(self, message: str, *, budget: Budget, attempted: str,
                 would_be: float | None = None):
        super().__init__(message)
        self.budget = budget
        self.attempted = attempted
        self.would_be = would_be


def make_budget(budget: Any = None, *, eps: Any = None, delta: Any = None, mu: Any = None,
                tradeoff: Any = None) -> Budget | None:
    """A :class:`Budget` from one target — ``budget`` as ``(eps, delta)``, a μ > 0, a
    :class:`~gdp.TradeOff` or a :class:`Budget`, or the keywords ``eps`` with ``delta``,
    ``mu`` or ``tradeoff`` — or None when none is given.

    Examples
    --------
    >>> from gdp.accounting.budget import make_budget
    >>> make_budget(eps=3, delta=1e-5).describe()
    '(eps, delta) = (3, 1e-05)'
    >>> make_budget((3, 1e-5)) == make_budget(eps=3, delta=1e-5)
    True
    """
    if budget is not None:
        if any(v is not None for v in (eps, delta, mu, tradeoff)):
            raise TypeError("give the budget either as `budget` or as the keywords `eps`/"
                            "`delta`, `mu` or `tradeoff`, not both")
        if isinstance(budget, Budget):
            return budget
        if isinstance(budget, tuple | list):
            if len(budget) != 2:
                raise ValueError(f"a `budget` sequence must be (eps, delta); got "
                                 f"budget={budget!r}")
            return make_budget(eps=budget[0], delta=budget[1])
        if isinstance(budget, TradeOff):
            return make_budget(tradeoff=budget)
        try:
            return Budget("mu", mu=check_real("budget", budget, lo=0.0, lo_open=True))
        except TypeError:
            raise TypeError("`budget` must be (eps, delta), a mu > 0, a TradeOff or a Budget; "
                            f"got budget={budget!r}") from None
    given = [n for n, v in (("eps", eps), ("mu", mu), ("tradeoff", tradeoff)) if v is not None]
    if not given:
        if delta is not None:
            raise TypeError("`delta` goes with an `eps` budget; give `eps` too (the delta at "
                            "which to report is an argument of epsilon())")
        return None
    if len(given) > 1:
        raise TypeError(f"give one budget: `eps` (with `delta`), `mu` or `tradeoff`; got "
                        f"{given}")
    if eps is not None:
        if delta is None:
            raise TypeError("an `eps` budget needs its `delta`")
        return Budget("epsilon", eps=check_real("eps", eps, lo=0.0),
                      delta=check_real("delta", delta, lo=0.0, hi=1.0, hi_open=True))
    if delta is not None:
        raise TypeError("`delta` goes with an `eps` budget only")
    if mu is not None:
        return Budget("mu", mu=check_real("mu", mu, lo=0.0))
    if not isinstance(tradeoff, TradeOff):
        raise TypeError(f"`tradeoff` must be a TradeOff; got tradeoff={tradeoff!r}")
    return Budget("tradeoff", tradeoff=tradeoff)


def _certifies_mu(h: TradeOff, mu: float) -> bool:
    r"""μ-GDP of ``h`` proved: plain dominance of :math:`G_\mu`, or for a numeric curve
    dominance up to the floor of its sound side (module docstring)."""
    return bool(h.dominates(G_mu(mu))) or _mu_above_floor(h, mu)[0]
