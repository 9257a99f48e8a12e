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
``mixture``
    Exact pairs of shift mixtures (Gaussian or Laplace kernel) and the
    mixture-of-Gaussians mechanism.
``neighbours``
    The neighbour relations (add/remove, replace-one, zero-out) and the replace-one curves
    of the Gaussian and Laplace mechanisms, plain and Poisson-subsampled.
``group``
    User-level DP-SGD: the exact pair of a user with k Poisson-sampled examples.
``allocation``
    Random allocation (balls in bins): the exact epoch law, bracketed numerically.
``samplers``
    Fixed-size, shuffling and random-allocation runs (sound, with brackets), dispatched by
    ``dpsgd(sampler=, neighbours=, group_size=)``.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`.
"""

from __future__ import annotations

from . import allocation, dp_sgd, group, mixture, neighbours, samplers, subsampling
from .allocation import *
from .dp_sgd import *
from .group import *
from .mixture import *
from .neighbours import *
from .samplers import *
from .subsampling import *

__all__ = [*dp_sgd.__all__, *subsampling.__all__, *mixture.__all__, *neighbours.__all__,
           *group.__all__, *allocation.__all__, *samplers.__all__]
