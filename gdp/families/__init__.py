r"""Families with closed forms: :math:`G_\mu`, :math:`f_{\varepsilon,\delta}` and Laplace.

Each family is a :class:`gdp.core.TradeOff` that fills in the core's hooks with its
formulas (curve, profile, loss law, ε(δ), group privacy, exact dominance), so the generic
numerics are never needed for it.

Modules
-------
``gaussian``
    :math:`G_\mu` (DRS Sec. 2.3) and the Gaussian-mechanism helpers (σ ↔ μ, analytic σ
    for (ε, δ), classical σ, μ composition and group privacy).
``gaussian_profile``
    The profile :math:`\delta(\varepsilon;\mu)` in log space and its two inverses
    :math:`\varepsilon(\delta;\mu)` and :math:`\mu(\varepsilon,\delta)`, each with a
    rounding margin on the safe side.
``epsdelta``
    :math:`f_{\varepsilon,\delta}` (DRS Prop. 2.5), randomized response for δ = 0.
``laplace_tradeoff``
    :math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`.
``location``
    What the two location families share (μ, symmetry, group privacy, dominance).

Imports: the ground floor and :mod:`gdp.core`.
"""

from __future__ import annotations

from . import epsdelta, gaussian, laplace_tradeoff, location
from .epsdelta import *
from .gaussian import *
from .laplace_tradeoff import *
from .location import *

__all__ = [*epsdelta.__all__, *gaussian.__all__, *laplace_tradeoff.__all__, *location.__all__]
