r"""User-level (group) DP-SGD: a user contributes :math:`k` examples, each Poisson-sampled.

Theory of operation
-------------------
Under add/remove of a whole user, the :math:`k` examples of the user are each in the batch
with probability :math:`p`, independently, so :math:`J \sim \mathrm{Bin}(k, p)` of them are;
with clipping norm :math:`C` their clipped gradients add up to a vector of norm at most
:math:`JC`, largest when all point the same way. The rest of the batch is an independent
sum (a common post-processing), so in units of the noise :math:`\sigma C` one step is the
pair

.. math:: P = N(0, 1), \qquad Q = \sum_{j=0}^{k} \binom kj p^j (1-p)^{k-j}\, N(j/\sigma, 1)

for "remove" and :math:`(Q, P)` for "add" (Schuchardt et al. 2024, group privacy
amplification: tight for the Gaussian mechanism; the same pair is dp-accounting's
mixture-of-Gaussians event with binomial weights). It is exact
(:class:`gdp.sampling.mixture.ShiftMixture`, monotone likelihood ratio since all shifts are
non-negative), and :func:`gdp.dpsgd` composes each order over the steps and symmetrises at
the end, as for :math:`k = 1`, where it is today's Poisson curve.

The generic route — group privacy of the whole run, :math:`1 - (1 - f)^{\circ k}` (DRS
Thm 2.14) — is valid for every mechanism and therefore never tighter: the pair above is the
exact worst case of the group, while the generic bound chains :math:`k` worst cases of
single examples. ``tests/sampling`` checks the direction.

References
----------
Schuchardt, Stoian, Kosmala, Günnemann, "Unified Mechanism-Specific Amplification by
Subsampling and Group Privacy Amplification", NeurIPS 2024 (arXiv 2403.04867). DRS Thm 2.14.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`,
:mod:`gdp.sampling.mixture`, :mod:`gdp.sampling.subsampling`.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_count, check_real
from ..core.tradeoff import TradeOff
from ..families.gaussian import G_mu
from .mixture import ShiftMixture
from .subsampling import _check_p, poisson_subsample

__all__ = ["group_gaussian_step"]


def _binomial_pmf(k: int, p: float) -> np.ndarray:
    """Bin(j; k, p) for j = 0..k, from logs (no overflow of the binomial coefficients)."""
    j = np.arange(k + 1)
    lc = np.array([math.lgamma(k + 1) - math.lgamma(i + 1) - math.lgamma(k - i + 1) for i in j])
    with np.errstate(divide="ignore"):
        lw = lc + j * math.log(p) + (k - j) * (math.log1p(-p) if p < 1 else -np.inf)
    lw = np.where((j == k) & (p == 1.0), 0.0, lw)
    w = np.exp(lw)
    return w / math.fsum(w)


def group_gaussian_step(sigma: float, p: float, k: int) -> TradeOff:
    r"""One DP-SGD step for a user with ``k`` examples (add/remove of the user), Poisson
    sampling rate ``p`` per example, noise multiplier ``sigma``: the "remove" curve
    :math:`T(N(0,1), \sum_j \mathrm{Bin}(j;k,p) N(j/\sigma,1))` (module docstring); the "add"
    curve is its inverse.

    ``k = 1`` returns :func:`gdp.poisson_subsample` of :math:`G_{1/\sigma}` (today's step)
    and ``p = 1`` the closed form :math:`G_{k/\sigma}`.

    Examples
    --------
    >>> from gdp.sampling.group import group_gaussian_step
    >>> group_gaussian_step(2.0, 1.0, 3)
    Gaussian(mu=1.5)
    >>> f = group_gaussian_step(1.0, 0.01, 4)
    >>> f"{float(f.hockey_stick(1.0)):.4g}"
    '1.232e-05'
    """
    sigma = check_real("sigma", sigma, lo=1e-300)
    p = _check_p(p)
    k = check_count("k", k, hi=10**6, why="the law mixes k + 1 Gaussians")
    if p == 1.0:
        return G_mu(k / sigma)
    if k == 1:
        return poisson_subsample(G_mu(1.0 / sigma), p)
    w = _binomial_pmf(k, p)
    keep = w > 0
    shifts = np.arange(k + 1)[keep] / sigma
    return ShiftMixture((1.0,), (0.0,), tuple(w[keep]), tuple(shifts),
                        name=f"U_{{{k}, {p:g}}}(G_{{{1.0 / sigma:g}}})")
