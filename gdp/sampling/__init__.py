r"""How a training run touches the data: subsampling, DP-SGD, samplers and neighbours.

Modules
-------
``subsampling``
    :math:`C_p(f)` (DRS Thm 4.2, sampling without replacement) and Poisson subsampling
    with add/remove neighbours (the two one-sided curves :math:`f_p`, :math:`f_p^{-1}`),
    each with its exact privacy-loss law for the engine.
``dpsgd``
    :func:`dpsgd`: the composition of subsampled Gaussian steps, one or several phases,
    each order of the neighbours composed separately and symmetrised at the end.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`.
"""

from __future__ import annotations

from . import dp_sgd, subsampling
from .dp_sgd import *
from .subsampling import *

__all__ = [*dp_sgd.__all__, *subsampling.__all__]
