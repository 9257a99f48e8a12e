r"""Neighbour relations and the one-step curves of the Gaussian and Laplace mechanisms under
each, plain and Poisson-subsampled.

Theory of operation
-------------------
Three relations between datasets are named here (the keyword ``neighbours=`` of
:func:`gdp.dpsgd`, ``--neighbours`` of ``gdp dpsgd``):

``"add-remove"``
    One dataset has one more record. Poisson subsampling with rate :math:`p` of a mechanism
    with curve :math:`f = T(P, Q)` gives :math:`f_p = T(P, (1-p)P + pQ)` for "remove" and
    :math:`f_p^{-1}` for "add" (ZDW; :mod:`gdp.sampling.subsampling`).
``"replace-one"``
    Both datasets have the same size and differ in one record, which may be replaced by
    *any* other record (dp-accounting's ``REPLACE_ONE``).
``"zero-out"``
    One record is replaced by a special record whose contribution is zero (a zero
    gradient): dp-accounting's ``REPLACE_SPECIAL`` (Kairouz et al. 2021). For Poisson
    subsampling and random allocation its dominating pairs are those of add/remove (the
    special record contributes nothing, exactly as an absent one); for shuffling it is the
    relation under which the analysis holds (an added record would move the batch
    boundaries of every later batch).

**Which replace-one for DP-SGD.** With clipping norm :math:`C`, every example's clipped
gradient is some vector of norm at most :math:`C`, so replacing one example changes the
batch sum by :math:`g - g'` with :math:`\|g - g'\| \le 2C`, attained at :math:`g' = -g`.
This module implements that relation (``REPLACE_ONE``), not ``REPLACE_SPECIAL``: a real
replacement is by an arbitrary record, and the zero record is only the special case
``"zero-out"``. In units of the noise :math:`\sigma C` (noise multiplier :math:`\sigma`,
:math:`m = 1/\sigma`):

* plain Gaussian: :math:`G_{2m}` (sensitivity :math:`2C`), four times the add/remove
  :math:`\mu^2`, the "factor of four" of RDP accountants that use add/remove;
* Poisson rate :math:`p`: the other examples enter through an independent sum, a common
  post-processing, and the differing slot is sampled with the same probability in both
  datasets, so the pair is :math:`P = (1-p)N(0,1) + pN(-m,1)`,
  :math:`Q = (1-p)N(0,1) + pN(m,1)` (dp-accounting's ``REPLACE_ONE`` pair; symmetric, so
  one curve serves both orders). That the antipodal gradients are the worst case among all
  :math:`g, g'` in the ball is the mechanism-specific result of Schuchardt et al. (2024) for
  Gaussian mechanisms under substitution; ``tests/sampling`` checks it numerically in two
  dimensions.

The Laplace mechanism is a scalar query with add/remove sensitivity :math:`\Delta` and noise
scale :math:`b` (``mu`` :math:`= \Delta/b`); replace-one doubles the sensitivity when the
values range over :math:`[-\Delta, \Delta]`: plain :math:`T(\mathrm{Lap}(0,1),
\mathrm{Lap}(2\mu,1))`, and with Poisson rate :math:`p` the pair of Laplace mixtures with
shifts :math:`\pm\mu` (:class:`gdp.sampling.mixture.ShiftMixture`, exact, with atoms at the
ends of the loss law).

References
----------
dp-accounting (Google), ``NeighboringRelation`` and ``privacy_loss_mechanism`` (the
``REPLACE`` adjacency). Kairouz, McMahan, Song, Thakkar, Thakurta, Xu, "Practical and
Private (Deep) Learning without Sampling or Shuffling", ICML 2021 (zero-out). Zhu, Dong,
Wang, AISTATS 2022. Schuchardt, Stoian, Kosmala, Günnemann, "Unified Mechanism-Specific
Amplification by Subsampling and Group Privacy Amplification", NeurIPS 2024.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`,
:mod:`gdp.sampling.mixture`, :mod:`gdp.sampling.subsampling`.
"""

from __future__ import annotations

from typing import Any

from .._validation import check_real
from ..core.tradeoff import TradeOff
from ..families.gaussian import G_mu
from ..families.laplace_tradeoff import laplace
from .mixture import ShiftMixture
from .subsampling import _check_p

__all__ = ["NEIGHBOURS", "check_neighbours", "replace_one_gaussian", "replace_one_laplace"]

#: The neighbour relations understood by :func:`gdp.dpsgd` and the CLI.
NEIGHBOURS = ("add-remove", "replace-one", "zero-out")


def check_neighbours(neighbours: Any) -> str:
    """The relation name, checked: one of :data:`NEIGHBOURS`."""
    if not isinstance(neighbours, str) or neighbours not in NEIGHBOURS:
        raise ValueError(f"`neighbours` must be one of {', '.join(NEIGHBOURS)}; got "
                         f"neighbours={neighbours!r}")
    return neighbours


def replace_one_gaussian(sigma: float, p: float = 1.0) -> TradeOff:
    r"""One Gaussian step with noise multiplier σ under replace-one neighbours, Poisson
    sampling rate ``p``.

    Parameters
    ----------
    sigma : float
        Noise multiplier (noise standard deviation over the clipping norm), > 0.
    p : float
        Poisson sampling rate in (0, 1]; 1 is the plain Gaussian mechanism.

    Returns
    -------
    TradeOff
        :math:`G_{2/\sigma}` for ``p = 1``; otherwise the exact symmetric curve
        :math:`T((1-p)N(0,1) + pN(-1/\sigma,1),\ (1-p)N(0,1) + pN(1/\sigma,1))` (module
        docstring: why this pair, and why ``REPLACE_ONE``).

    Examples
    --------
    >>> import gdp
    >>> from gdp.sampling.neighbours import replace_one_gaussian
    >>> replace_one_gaussian(2.0)
    Gaussian(mu=1.0)
    >>> f = replace_one_gaussian(1.0, 0.01)
    >>> f.is_symmetric, round(float(f.hockey_stick(0.01)), 6)
    (True, 0.003328)
    """
    sigma = check_real("sigma", sigma, lo=1e-300)
    p = _check_p(p)
    m = 1.0 / sigma
    if p == 1.0:
        return G_mu(2.0 * m)
    return ShiftMixture((1.0 - p, p), (0.0, -m), (1.0 - p, p), (0.0, m),
                        name=f"R_{{{p:g}}}(G_{{{m:g}}})")


def replace_one_laplace(mu: float, p: float = 1.0) -> TradeOff:
    r"""One Laplace step (add/remove sensitivity over scale ``mu``) under replace-one
    neighbours, Poisson sampling rate ``p``: :math:`T(\mathrm{Lap}(0,1),
    \mathrm{Lap}(2\mu,1))` for ``p = 1``, else the exact pair of Laplace mixtures with shifts
    :math:`\pm\mu` (module docstring).

    Examples
    --------
    >>> from gdp.sampling.neighbours import replace_one_laplace
    >>> replace_one_laplace(0.5)
    Laplace(mu=1.0)
    """
    mu = check_real("mu", mu, lo=0.0, hi=1e300, lo_open=True)
    p = _check_p(p)
    if p == 1.0:
        return laplace(2.0 * mu)
    return ShiftMixture((1.0 - p, p), (0.0, -mu), (1.0 - p, p), (0.0, mu), kernel="laplace",
                        name=f"R_{{{p:g}}}(Lap_{{{mu:g}}})")
