r"""dp-accounting's ``PrivacyAccountant`` interface on gdp's ledger (``gdp.dpaccounting``).

Theory of operation
-------------------
Code written for ``dp_accounting.pld.PLDAccountant`` — ``compose(event, count)``,
``supports(event)``, ``get_epsilon(target_delta)``, ``get_delta(target_epsilon)``,
``ledger``, ``neighboring_relation`` — runs unchanged on :class:`Accountant`, a subclass of
dp-accounting's abstract ``PrivacyAccountant`` whose ``_maybe_compose`` reads the event with
:func:`gdp.from_dp_event`'s rules and records it in a :class:`gdp.Accountant`. The answers
are gdp's: the engine's sound side (never below the true ε or δ), the bracket one call away
(:meth:`Accountant.tradeoff`).

Neighbour relations: ``ADD_OR_REMOVE_ONE`` (default) and ``REPLACE_ONE``;
``REPLACE_SPECIAL`` is refused at construction.

One difference in dp-accounting's favour of being careful: dp-accounting 0.6's
``PLDAccountant`` composes a ``RandomizedResponseDpEvent`` once whatever its count
(``SelfComposedDpEvent(rr, 30)`` reports the ε of one use); gdp composes it ``count`` times.

This module imports dp-accounting (a test dependency of gdp, not a runtime one); it is loaded
only on use (``gdp.dpaccounting``), never by ``import gdp``.

Imports: :mod:`gdp.accounting.dp_event`, :mod:`gdp.accounting.ledger`.
"""

from __future__ import annotations

from typing import Any

from dp_accounting import privacy_accountant as _pa

from .._validation import check_choice, check_count, check_real
from ..core.tradeoff import TradeOff
from .dp_event import UnsupportedEvent, dp_event_factors
from .ledger import Accountant as _Ledger

__all__ = ["Accountant"]

_RELATIONS = {_pa.NeighboringRelation.ADD_OR_REMOVE_ONE: "add_remove",
              _pa.NeighboringRelation.REPLACE_ONE: "replace_one"}


class Accountant(_pa.PrivacyAccountant):
    """dp-accounting's ``PrivacyAccountant`` answered by gdp (module docstring).

    Parameters
    ----------
    neighboring_relation : dp_accounting.NeighboringRelation
        ``ADD_OR_REMOVE_ONE`` (default) or ``REPLACE_ONE``.
    **accuracy
        Accuracy keywords of gdp's numeric engine (``rtol``, ...).

    Examples
    --------
    >>> import dp_accounting as dpa, gdp
    >>> acc = gdp.dpaccounting.Accountant()
    >>> step = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0))
    >>> acc.supports(step), acc.supports(dpa.ZCDpEvent(1.0, 0.0))
    (True, False)
    >>> round(acc.compose(step, 1000).get_epsilon(1e-5), 4)
    1.8286
    """

    def __init__(self, neighboring_relation: Any = _pa.NeighboringRelation.ADD_OR_REMOVE_ONE,
                 **accuracy: Any):
        check_choice("neighboring_relation", neighboring_relation, _RELATIONS,
                     what="ADD_OR_REMOVE_ONE or REPLACE_ONE (a dp_accounting "
                     "NeighboringRelation)")
        super().__init__(neighboring_relation)
        self._gdp = _Ledger(neighbours=_RELATIONS[neighboring_relation], **accuracy)

    def _maybe_compose(self, event: Any, count: int, do_compose: bool) -> Any:
        count = check_count("count", count, lo=0)  # a bad count is not an unsupported event
        try:
            dp_event_factors(event, neighbours=self._gdp.neighbours, count=count)
        except (UnsupportedEvent, TypeError, ValueError) as exc:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(exc))
        if do_compose and count > 0:
            self._gdp.compose(event, count)
        return None

    def get_epsilon(self, target_delta: float) -> float:
        """ε at ``target_delta`` of everything composed (sound: never below the truth)."""
        return float(self._gdp.epsilon(check_real("target_delta", target_delta, lo=0.0,
                                                  hi=1.0)))

    def get_delta(self, target_epsilon: float) -> float:
        """δ at ``target_epsilon`` of everything composed (sound: never below the truth)."""
        return float(self._gdp.delta(check_real("target_epsilon", target_epsilon, lo=0.0,
                                                finite=False)))

    def tradeoff(self) -> TradeOff:
        """The composed trade-off curve (with the engine's bracket)."""
        return self._gdp.tradeoff()

    @property
    def gdp_accountant(self) -> _Ledger:
        """The :class:`gdp.Accountant` behind this one (state, history, GDP summary)."""
        return self._gdp
