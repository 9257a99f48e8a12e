r"""The core: trade-off functions as objects (DRS Sec. 2).

A newcomer reads this package first; every other package is a function of a
:class:`TradeOff`.

Modules
-------
``tradeoff``
    The :class:`TradeOff` base class, its private hooks and public API, and the wrappers
    its methods return (:class:`Inverse`, :class:`Symmetrized`, :class:`Group`,
    :class:`Bracketed`).
``generic``
    The numeric answers behind the default hooks, for a curve known only by its values:
    certified profile, loss law, ε(δ), the symmetrised profile.
``piecewise``
    :class:`PiecewiseLinear` (exactly :math:`T(P,Q)` of two discrete laws),
    :class:`Identity`, :func:`from_curve`, :func:`from_privacy_profile`.
``distributions``
    :func:`from_distributions` (two pmfs exactly, two continuous laws as a bracket).
``callable``
    :func:`from_callable`, a user's function checked to be a trade-off function.

Imports: only the ground floor (``gdp._numerics``, ``gdp._validation``). The operators
``@`` and ``**`` reach the composition engine through :func:`register_engine`, which the
engine calls when it is imported.
"""

from __future__ import annotations

from . import callable, distributions, piecewise, tradeoff
from .callable import *
from .distributions import *
from .piecewise import *
from .tradeoff import *

__all__ = [*callable.__all__, *distributions.__all__, *piecewise.__all__, *tradeoff.__all__]
