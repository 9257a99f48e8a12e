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

from .callable import Callable1D, from_callable
from .distributions import from_distributions
from .piecewise import Identity, PiecewiseLinear, from_curve, from_privacy_profile, identity
from .tradeoff import Bracketed, Group, Inverse, Symmetrized, TradeOff, register_engine

__all__ = [
    "TradeOff",
    "Inverse",
    "Symmetrized",
    "Group",
    "Bracketed",
    "Identity",
    "identity",
    "PiecewiseLinear",
    "Callable1D",
    "from_callable",
    "from_curve",
    "from_distributions",
    "from_privacy_profile",
    "register_engine",
]
