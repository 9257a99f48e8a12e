r"""The budget of a private SQL session: a stand-in for ``gdp.Accountant`` (issue 12).

Theory of operation
-------------------
The session talks to its accountant through the contract of the toolkit's accountant,
``Accountant(budget=(eps, delta) | mu | TradeOff)``, ``compose(f_or_mechanism, count=1)``
(raising :class:`BudgetExceeded`, a ``ValueError``, *before* recording anything when the
budget would be exceeded), ``tradeoff()``, ``epsilon(delta)``, ``delta(eps)``,
``remaining()`` and ``state_dict()``. Until ``gdp.Accountant`` lands, this module
implements that contract on :func:`gdp.compose` (the tensor product of the exact curves,
sound side of its bracket); switching is the one import in :mod:`gdp.sql.session`.

A composition stays within a budget when

* ``(eps, delta)``: its privacy profile (sound side) has :math:`\delta(\varepsilon_B)
  \le \delta_B`, i.e. it is :math:`(\varepsilon_B, \delta_B)`-DP;
* ``mu``: it dominates :math:`G_\mu`;
* a TradeOff ``B``: it dominates ``B``.

``remaining()`` answers for an ``(eps, delta)`` budget: the largest :math:`\varepsilon_r`
such that one more pure :math:`\varepsilon_r`-DP release still fits (bisection, rounded
down, so never over-stated), with its curve :math:`f_{\varepsilon_r,0}`, and the
:math:`\delta` left at :math:`\varepsilon_B`. (The f-DP budget left after a composition is
not one curve in general: any :math:`g` with :math:`f \otimes g \ge B` fits.)

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import bisect_bracket
from .._validation import check_int, check_real
from ..core.piecewise import identity
from ..core.tradeoff import TradeOff
from ..engine import compose
from ..families.epsdelta import f_eps_delta
from ..families.gaussian import G_mu

__all__ = ["BudgetExceeded", "Remaining", "Accountant"]


class BudgetExceeded(ValueError):
    """Composing the mechanism would exceed the budget (nothing was recorded)."""


@dataclass(frozen=True, slots=True)
class Remaining:
    """What an ``(eps, delta)`` budget still allows: a pure ``eps``-DP release
    (``tradeoff`` is its curve :math:`f_{\\varepsilon,0}`), and ``delta`` left at the
    budget's ε."""

    eps: float
    delta: float
    tradeoff: TradeOff


class Accountant:
    """An append-only ledger of trade-off curves with an optional budget.

    Examples
    --------
    >>> import gdp
    >>> from gdp.sql.ledger import Accountant, BudgetExceeded
    >>> acc = Accountant(budget=(1.0, 1e-6))
    >>> _ = acc.compose(gdp.laplace(0.5))
    >>> round(acc.epsilon(1e-6), 4)
    0.5
    >>> try:
    ...     acc.compose(gdp.laplace(0.8))
    ... except BudgetExceeded as exc:
    ...     print("refused")
    refused
    >>> len(acc.curves)
    1
    """

    def __init__(self, budget: Any = None) -> None:
        self.budget = self._check_budget(budget)
        self.curves: list[tuple[TradeOff, int]] = []

    @staticmethod
    def _check_budget(budget: Any) -> Any:
        if budget is None or isinstance(budget, TradeOff):
            return budget
        if isinstance(budget, tuple | list) and len(budget) == 2:
            return (check_real("budget eps", budget[0], lo=0.0),
                    check_real("budget delta", budget[1], lo=0.0, hi=1.0))
        try:
            return check_real("budget", budget, lo=0.0, lo_open=True)
        except TypeError:
            raise TypeError("`budget` must be (eps, delta), a mu > 0 or a TradeOff; got "
                            f"budget={budget!r}") from None

    def _compose(self, curves: list[tuple[TradeOff, int]]) -> TradeOff:
        fs = [f for f, n in curves for _ in range(n)]
        if not fs:
            return identity()
        return fs[0] if len(fs) == 1 else compose(*fs)

    def _fits(self, f: TradeOff) -> bool:
        b = self.budget
        if b is None:
            return True
        if isinstance(b, tuple):
            return bool(f.delta(b[0]) <= b[1])
        return bool(f.dominates(G_mu(b) if isinstance(b, float) else b))

    def compose(self, f: Any, count: int = 1) -> Accountant:
        """Record ``count`` uses of ``f`` (a TradeOff or a mechanism with ``tradeoff``);
        :class:`BudgetExceeded` leaves the ledger unchanged."""
        curve = getattr(f, "tradeoff", f)
        if not isinstance(curve, TradeOff):
            raise TypeError(f"`f` must be a TradeOff or a mechanism; got f={f!r}")
        count = check_int("count", count, lo=1)
        trial = [*self.curves, (curve, count)]
        if not self._fits(self._compose(trial)):
            raise BudgetExceeded(f"the budget {self._budget_text()} would be exceeded by "
                                 f"{count} x {curve!r}; nothing was recorded")
        self.curves = trial
        return self

    def _budget_text(self) -> str:
        b = self.budget
        return f"(eps={b[0]:g}, delta={b[1]:g})" if isinstance(b, tuple) else repr(b)

    def tradeoff(self) -> TradeOff:
        """The composed curve (``identity()`` when nothing was recorded)."""
        return self._compose(self.curves)

    def epsilon(self, delta: float) -> float:
        """ε of the composition at ``delta`` (sound side)."""
        return float(self.tradeoff().epsilon(delta))

    def delta(self, eps: float) -> float:
        """δ of the composition at ``eps`` (sound side)."""
        return float(self.tradeoff().delta(eps))

    def remaining(self) -> Remaining:
        """The pure ε still affordable and the δ left (an ``(eps, delta)`` budget only)."""
        if not isinstance(self.budget, tuple):
            raise ValueError("remaining() is defined for an (eps, delta) budget; got "
                             f"budget={self.budget!r}")
        eps_b, delta_b = self.budget
        spent = self.tradeoff()
        left = max(0.0, delta_b - float(spent.delta(eps_b)))
        if not self._fits(spent) or eps_b == 0.0:
            return Remaining(0.0, left, f_eps_delta(0.0))
        if self._fits(compose(spent, f_eps_delta(eps_b))):
            return Remaining(eps_b, left, f_eps_delta(eps_b))
        lo, _ = bisect_bracket(lambda e: np.vectorize(
            lambda x: not self._fits(compose(spent, f_eps_delta(float(x)))))(e), 0.0, eps_b,
            rtol=1e-4)
        eps_r = float(lo)
        return Remaining(eps_r, left, f_eps_delta(eps_r))

    def state_dict(self) -> dict[str, Any]:
        """The budget and the recorded curves (their reprs; for reports, not reloading)."""
        return {"version": 1, "budget": self._budget_text() if self.budget is not None
                else None, "curves": [[repr(f), n] for f, n in self.curves]}
