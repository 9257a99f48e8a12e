r"""Location families: :math:`T(F, F(\cdot - \mu))` for a symmetric noise law :math:`F`.

The Gaussian (:math:`G_\mu`) and the Laplace curve are both the trade-off function of a noise
law against the same law shifted by :math:`\mu \ge 0`. What they share lives here: the one
parameter :math:`\mu` (``inf`` allowed, the curve 0), symmetry (:math:`T(F, F_\mu)^{-1} =
T(F_\mu, F) = T(F, F_\mu)` by the reflection :math:`x \mapsto \mu - x` of a symmetric
:math:`F`), exact dominance within the family (both curves decrease in :math:`\mu`) and group
privacy :math:`1 - (1 - T(F, F_\mu))^{\circ k} = T(F, F_{k\mu})` (DRS Thm 2.14 for the
Gaussian; for the Laplace curve the composition of the shifts, DRS Sec. 2.5).

Imports: the ground floor and :mod:`gdp.core.tradeoff`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validation import check_real
from ..core.tradeoff import TradeOff

__all__ = ["LocationFamily"]


@dataclass(frozen=True, slots=True)
class LocationFamily(TradeOff):
    """Base of :class:`~gdp.families.gaussian.Gaussian` and
    :class:`~gdp.families.laplace_tradeoff.Laplace`: the field ``mu`` and what follows from
    the shift (see the module docstring)."""

    mu: float

    #: the legend symbol of the family (``G``, ``\mathrm{Lap}``)
    symbol: ClassVar[str] = "F"
    is_symmetric = True

    def __post_init__(self):
        object.__setattr__(self, "mu", check_real("mu", self.mu, lo=0.0, finite=False))

    label_format = "{self.symbol}_{{{self.mu:g}}}"

    def _group(self, k):
        return type(self)(mu=k * self.mu)

    def _symmetric_exact(self):
        return True

    def _dominates_exact(self, other):
        return self.mu <= other.mu if type(other) is type(self) else None
