r"""The factors of a ledger and how a list of them is composed by the engine's entry points.

Theory of operation
-------------------
Everything an accountant records is a *factor* with a multiplicity:

* a DP-SGD step, :class:`Step` (noise multiplier σ, Poisson rate p and the sampler /
  neighbour keywords of :func:`gdp.dpsgd`), or
* a trade-off curve :math:`f`, read as the curve of one order :math:`(S, S')` of the
  neighbouring pair, with :math:`f^{-1}` for the other order (a Poisson-subsampled
  mechanism under add/remove neighbours is the "remove" curve :math:`f_p`; a symmetric curve
  is the same in both orders).

:func:`compose_factors` composes ``[(factor, n), ...]`` with no composition of its own: a
ledger of default DP-SGD steps only is :func:`gdp.dpsgd` of its phases (bit for bit the
one-shot call); anything else goes to :func:`gdp.compose_two_orders`, which composes each
order separately and symmetrises at the end, :math:`\min\{h, h^{-1}\}^{**}` with
:math:`h = \bigotimes_i f_i^{\otimes n_i}` (MATH.md §2, §6), the tight curve under either
reading of an asymmetric :math:`f` (a curve for one order, or for both). Steps with
non-default sampler keywords are composed by :func:`gdp.dpsgd` as one symmetric block (valid;
tight when they are the whole ledger). A non-private factor (σ = 0, ``NonPrivateDpEvent``)
makes the answer the zero curve :math:`f_{0,1}` (ε = ∞).

:func:`factor_rdp` gives the Rényi curve of a factor valid for *both* orders (MTZ 2019 for
the subsampled Gaussian, closed forms for symmetric curves), the cheap certificate the
accountant's budget uses before it asks the engine.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`,
:mod:`gdp.sampling`, :mod:`gdp.bounds`.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .._validation import check_real
from ..bounds.rdp import DEFAULT_ORDERS, rdp_of, rdp_sampled_gaussian
from ..core.piecewise import Identity
from ..core.tradeoff import TradeOff
from ..engine.dispatch import _key as factor_key
from ..engine.dispatch import compose_two_orders
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..sampling.dp_sgd import dpsgd
from ..sampling.subsampling import PoissonSubsampled, subsample

__all__ = ["Step", "NON_PRIVATE", "compose_factors", "factor_key", "merge_factors",
           "factor_rdp", "sampling_keywords"]

#: the zero curve :math:`f_{0,1}`: a mechanism with no privacy (ε = ∞)
NON_PRIVATE: TradeOff = EpsDelta(eps=0.0, delta_=1.0)


@cache
def sampling_keywords() -> tuple[str, ...]:
    """The keywords of :func:`gdp.dpsgd` that describe a step's sampler or neighbours (all
    of its named keywords but ``sigma``, ``p``, ``steps``, ``phases``: ``sampler``,
    ``neighbours``, ``group_size``); the accountant's ``step()`` passes exactly these
    through."""
    params = inspect.signature(dpsgd).parameters
    return tuple(n for n, v in params.items() if n not in ("sigma", "p", "steps", "phases")
                 and v.kind is inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True, slots=True)
class Step:
    r"""One DP-SGD step: noise multiplier ``sigma`` (0: no noise, no privacy), Poisson rate
    ``p`` and the sampler/neighbour keywords ``options`` of :func:`gdp.dpsgd` (a sorted
    tuple of ``(name, value)`` pairs; empty: Poisson sampling, add/remove neighbours)."""

    sigma: float
    p: float
    options: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        check_real("noise_multiplier", self.sigma, lo=0.0)
        object.__setattr__(self, "sigma", check_real("noise_multiplier", self.sigma,
                                                     lo=1e-300, zero_ok=True))
        object.__setattr__(self, "p", check_real("sample_rate", self.p, lo=0.0, hi=1.0,
                                                 lo_open=True))

    def curve(self) -> TradeOff:
        """The curve of one step in the "remove" order, :math:`f_p` with :math:`f =
        G_{1/\\sigma}` (the zero curve for σ = 0), as :func:`gdp.dpsgd` builds it."""
        if self.sigma == 0.0:
            return NON_PRIVATE
        g = Gaussian(mu=1.0 / self.sigma)
        return g if self.p == 1.0 else PoissonSubsampled(base=g, p=self.p)

    @property
    def label(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options)
        return f"DP-SGD step (noise_multiplier={self.sigma:g}, sample_rate={self.p:g}{opts})"


def merge_factors(groups: dict[Any, list], factors: list[tuple[Step | TradeOff, int]]
                  ) -> list[Any]:
    """Add ``[(factor, n), ...]`` to ``groups`` (``{key: [factor, multiplicity]}``, equal
    factors merged, first-seen order); returns the keys added to."""
    keys = []
    for f, n in factors:
        k = factor_key(f)
        if k in groups:
            groups[k][1] += n
        else:
            groups[k] = [f, n]
        keys.append(k)
    return keys


def _is_non_private(f: Any) -> bool:
    if isinstance(f, Step):
        return f.sigma == 0.0
    return float(f(0.0)) <= 0.0  # a trade-off function with f(0) = 0 is 0 everywhere


#: samplers whose analysis is per epoch: a ledger may hold one (sigma, p) of each
EPOCH_SAMPLERS = ("shuffle", "allocation")


def check_epoch_sampler(opts: tuple, sigmas_ps: set[tuple[float, float]]) -> None:
    """Refuse several (sigma, p) under a sampler analysed per epoch (module docstring of
    :mod:`gdp.sampling.samplers`): their epochs share one permutation or allocation, which
    the per-phase analyses (each starting a fresh epoch) do not cover."""
    sampler = dict(opts).get("sampler")
    if sampler in EPOCH_SAMPLERS and len(sigmas_ps) > 1:
        raise ValueError(f"sampler={sampler!r} is analysed for one noise multiplier and "
                         f"sampling rate per run; got (sigma, p) = {sorted(sigmas_ps)}")


def compose_factors(groups: list[tuple[Step | TradeOff, int]], **accuracy: Any) -> TradeOff:
    r"""The composition of ``[(factor, n), ...]`` (module docstring), through the engine's
    entry points; ``accuracy`` goes to them (``rtol``, ``grid_step``, ...).

    Examples
    --------
    >>> import gdp
    >>> from gdp.accounting.factors import Step, compose_factors
    >>> h = compose_factors([(Step(sigma=1.0, p=0.01), 1000)])
    >>> h.epsilon(1e-5) == gdp.dpsgd(sigma=1.0, p=0.01, steps=1000).epsilon(1e-5)
    True
    """
    groups = [(f, n) for f, n in groups if n > 0]
    if any(_is_non_private(f) for f, _ in groups):
        return NON_PRIVATE
    blocks: dict[tuple, list[tuple[Step, int]]] = {}
    curves: list[tuple[TradeOff, int]] = []
    for f, n in groups:
        if isinstance(f, Step):
            blocks.setdefault(f.options, []).append((f, n))
        else:
            curves.append((f, n))

    def run(opts: tuple, steps: list[tuple[Step, int]]) -> TradeOff:
        if not opts:
            phases = [{"sigma": s.sigma, "p": s.p, "steps": n} for s, n in steps]
            return dpsgd(phases=phases, **accuracy)
        # another sampler or relation: one curve per (sigma, p), composed (dpsgd takes
        # phases for Poisson add/remove only); per-step analyses compose, per-epoch ones
        # hold for a single (sigma, p) only
        check_epoch_sampler(opts, {(s.sigma, s.p) for s, _ in steps})
        parts = [dpsgd(sigma=s.sigma, p=s.p, steps=n, **dict(opts), **accuracy)
                 for s, n in steps]
        return parts[0] if len(parts) == 1 else compose_two_orders(*parts, **accuracy)

    if not curves and len(blocks) == 1:  # the one-shot call, bit for bit
        return run(*next(iter(blocks.items())))
    fs: list[TradeOff] = []
    for opts, steps in blocks.items():
        if opts:
            fs.append(run(opts, steps))
        else:
            for s, n in steps:
                fs += [s.curve()] * n
    for f, n in curves:
        fs += [f] * n
    if not fs:
        return Identity()
    if len(fs) == 1 and isinstance(fs[0], PoissonSubsampled):  # one step: exact
        return subsample(fs[0].base, fs[0].p)
    return compose_two_orders(*fs, **accuracy)


def factor_rdp(f: Step | TradeOff) -> np.ndarray | None:
    r"""Rényi DP of a factor at :data:`gdp.bounds.rdp.DEFAULT_ORDERS`, valid for both orders
    of the neighbours, or None when there is no closed form (or the step has non-default
    sampler keywords).

    Subsampled Gaussians (steps and :math:`(G_\mu)_p`): Mironov–Talwar–Zhang 2019 at integer
    orders (their Theorem 5 covers both orders); symmetric curves: :func:`gdp.rdp_of`.
    """
    if isinstance(f, Step):
        if f.options:
            return None
        if f.sigma == 0.0:
            return np.full(DEFAULT_ORDERS.shape, np.inf)
        return rdp_sampled_gaussian(f.sigma, f.p)
    if isinstance(f, PoissonSubsampled) and isinstance(f.base, Gaussian):
        if f.base.mu == 0.0:
            return np.zeros(DEFAULT_ORDERS.shape)
        if math.isinf(f.base.mu):
            return np.full(DEFAULT_ORDERS.shape, np.inf)
        return rdp_sampled_gaussian(1.0 / f.base.mu, f.p)
    if not f.is_symmetric:
        return None
    try:
        return rdp_of(f)
    except TypeError:
        return None
