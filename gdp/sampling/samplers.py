r"""Batch samplers of real training runs: Poisson, fixed-size, shuffling, random allocation,
under add/remove, replace-one and zero-out neighbours, with user-level groups; each answer
sound, with a bracket where no tight analysis is known.

Theory of operation
-------------------
:func:`sampled_dpsgd` is what :func:`gdp.dpsgd` calls for ``sampler=``, ``neighbours=`` and
``group_size=`` other than Poisson, add/remove, 1. In units of the noise (noise
multiplier :math:`\sigma`, clipping norm :math:`C`, :math:`q = p` the sampling rate, i.e.
batch size over dataset size, :math:`T` steps):

``"poisson"``
    add/remove and zero-out: today's exact two-order composition
    (:mod:`gdp.sampling.dp_sgd`); with ``group_size`` :math:`k > 1` the exact user-level pair
    of :mod:`gdp.sampling.group`. Replace-one: the exact symmetric pair of
    :mod:`gdp.sampling.neighbours`, composed. Exact up to the engine's bracket.
``"fixed"`` (:math:`b` of :math:`n` without replacement each step; replace-one or zero-out)
    *Sound side*: a step is :math:`C_q(G_{2/\sigma})`-DP (DRS Thm 4.2: sampling without
    replacement of a mechanism that is :math:`G_{2/\sigma}`-DP for the substitution of one
    batch element — when the differing example enters the batch it displaces another,
    whose gradient may be the opposite one, so the batch sum moves by up to :math:`2C`, even
    under zero-out); :math:`C_q(f)` is the tightest curve that holds for both orders of a
    substitution pair, and the steps compose by the adaptive composition theorem (DRS
    Thm 3.2; Zhu, Dong & Wang: a dominating pair of every step composes). *Lower side*:
    explicit datasets. Replace-one: all other gradients :math:`-Ce`, the differing example
    :math:`+Ce` against :math:`-Ce`: one dataset always gives :math:`N(-bC)`, the other
    :math:`(1-q)N(-bC) + qN(-bC + 2C)`, for all :math:`T` steps, in either order — exactly
    Poisson add/remove DP-SGD with noise multiplier :math:`\sigma/2`. Zero-out: other
    gradients 0, which is Poisson add/remove with :math:`\sigma`. The gap between the sides
    is that between composing the symmetrised step and composing each order (Lebeda,
    Regehr, Kamath & Steinke 2024 show the fixed-size number can be far above Poisson's).
``"shuffle"`` (a random permutation per epoch cut into :math:`T = 1/p` batches; zero-out or
    replace-one)
    *Sound side*: no amplification — an example is in at most :math:`\lceil T_{\rm steps}/T
    \rceil` batches, each a Gaussian step of sensitivity :math:`c = 1` (zero-out) or
    :math:`2` (replace-one), so the run is :math:`G_{c\sqrt{E}/\sigma}`-DP with :math:`E` that
    number of epochs (exact for the deterministic order, the worst case over orders; no
    better bound valid for all parameters is known: tensorflow/privacy#483). *Lower side*:
    the datasets with all other gradients 0 (zero-out) or :math:`-Ce` (replace-one): each
    epoch is then exactly one epoch of random allocation with :math:`m = c/\sigma`, so the
    composed allocation pair over the full epochs (the optimistic side of its bracket) is a
    valid lower bound (Chua et al., "How Private are DP-SGD Implementations?", ICML 2024).
    Add/remove is refused: an added record moves the boundaries of every later batch.
``"allocation"`` (each example in exactly one of :math:`T = 1/p` steps per epoch; add/remove
    or zero-out)
    The exact pair of :mod:`gdp.sampling.allocation`, composed over the epochs (the last,
    partial one a post-processing of a full one); both sides of the bracket are bounds on
    the exact answer.

The answer of a bracketed sampler is a :class:`SamplerBracket`: ``delta``/``epsilon`` are the
sound side, ``delta_bounds``/``epsilon_bounds`` give (valid lower bound, sound upper bound),
and ``sound_bound`` / ``lower_bound`` say where each side comes from.

References
----------
DRS: Dong, Roth, Su, JRSS-B 2022, Thm 3.2, Thm 4.2. Zhu, Dong, Wang, AISTATS 2022. Lebeda,
Regehr, Kamath, Steinke, "Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms
under Composition", arXiv 2405.20769. Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang,
"How Private are DP-SGD Implementations?", ICML 2024 (arXiv 2403.17673), and "Scalable
DP-SGD: Shuffling vs. Poisson Subsampling", NeurIPS 2024 (arXiv 2411.04205). Feldman,
Shenfeld, arXiv 2502.08202.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine` and the
modules of :mod:`gdp.sampling` below :mod:`gdp.sampling.dp_sgd`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import float_or_array
from .._validation import check_count, check_instance, check_str
from ..core.piecewise import Identity
from ..core.tradeoff import Bracketed, TradeOff
from ..engine.numeric import compose_numeric, compose_numeric_two_orders
from ..engine.settings import Accuracy
from ..families.gaussian import G_mu, Gaussian
from .allocation import allocation_epoch
from .group import group_gaussian_step
from .neighbours import check_neighbours, replace_one_gaussian
from .subsampling import PoissonSubsampled, Subsampled, _SymHullLaw, subsample

__all__ = ["SAMPLERS", "check_sampler", "SamplerBracket"]

#: the largest user-level group size (the exact law is a mixture of group_size + 1 terms)
_GROUP_MAX = 10**6

#: The batch samplers understood by :func:`gdp.dpsgd` and the CLI.
SAMPLERS = ("poisson", "fixed", "shuffle", "allocation")

# which relations each sampler has an analysis for
_RELATIONS = {
    "poisson": ("add-remove", "replace-one", "zero-out"),
    "fixed": ("replace-one", "zero-out"),
    "shuffle": ("replace-one", "zero-out"),
    "allocation": ("add-remove", "zero-out"),
}
_WHY = {
    ("fixed", "add-remove"): "a fixed batch size is defined for datasets of one size; use "
    "neighbours='replace-one' or 'zero-out'",
    ("shuffle", "add-remove"): "an added record moves the boundaries of every later batch; "
    "use neighbours='zero-out' (a record replaced by a zero-gradient one, what Chua et al. "
    "analyse) or 'replace-one'",
    ("allocation", "replace-one"): "no analysis of random allocation under replace-one is "
    "implemented; use neighbours='add-remove'",
}


def check_sampler(sampler: Any) -> str:
    """The sampler name, checked: one of :data:`SAMPLERS`."""
    if not isinstance(sampler, str) or sampler not in SAMPLERS:
        raise ValueError(f"`sampler` must be one of {', '.join(SAMPLERS)}; got "
                         f"sampler={sampler!r}")
    return sampler


def check_combination(sampler: Any, neighbours: Any, group_size: Any) -> tuple[str, str, int]:
    """Check the sampler, the relation, the group size and that they go together."""
    sampler = check_sampler(sampler)
    neighbours = check_neighbours(neighbours)
    k = check_count("group_size", group_size, hi=_GROUP_MAX,
                    why="the user-level law mixes group_size + 1 Gaussians")
    if neighbours not in _RELATIONS[sampler]:
        raise ValueError(f"sampler={sampler!r} has no known analysis for "
                         f"neighbours={neighbours!r}: {_WHY[(sampler, neighbours)]}")
    if k > 1 and (sampler != "poisson" or neighbours == "replace-one"):
        raise ValueError(f"group_size={k} is analysed for sampler='poisson' with "
                         f"neighbours='add-remove' or 'zero-out' only; got sampler={sampler!r},"
                         f" neighbours={neighbours!r}")
    return sampler, neighbours, k


@dataclass(frozen=True, slots=True, eq=False)
class SamplerBracket(Bracketed):
    r"""A run known between a sound curve (``lower``) and the curve of a valid lower bound on
    its privacy loss (``upper``): ``delta``/``epsilon`` answer on the sound side,
    ``delta_bounds``/``epsilon_bounds`` give both; ``sound_bound`` and ``lower_bound`` name
    the source of each side."""

    sound_bound: str = ""
    lower_bound: str = ""
    explicit: Any = field(default=None, repr=False)

    def __post_init__(self):
        Bracketed.__post_init__(self)
        check_str("sound_bound", self.sound_bound)
        check_str("lower_bound", self.lower_bound)
        if self.explicit is not None:
            check_instance("explicit", self.explicit, TradeOff, "a TradeOff or None")

    def _epsilon(self, delta):
        return np.asarray(self.lower.epsilon(np.asarray(delta, dtype=float)), dtype=float)

    def _other(self, what: str, x: Any) -> np.ndarray:
        """The lower side of ``delta``/``epsilon``: the optimistic answer of the explicit
        datasets' run (``explicit``, when it is a numeric result with its own bracket: its
        engine's direct answer, tighter than the profile of its upper curve), else the
        profile of ``upper``."""
        src = self.explicit
        if isinstance(src, Bracketed) and hasattr(src, f"{what}_bounds"):
            return np.asarray(getattr(src, f"{what}_bounds")(x)[0], dtype=float)
        return np.asarray(getattr(self.upper, what)(x), dtype=float)

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        hi = np.asarray(self.lower.delta(eps), dtype=float)
        lo = np.minimum(self._other("delta", eps), hi)
        return float_or_array(lo), float_or_array(hi)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        hi = np.asarray(self.lower.epsilon(delta), dtype=float)
        lo = np.minimum(self._other("epsilon", delta), hi)
        return float_or_array(lo), float_or_array(hi)


class _SplitHullLaw(_SymHullLaw):
    """The law of :math:`C_q(f)` with each half asked only for its own cells.

    ``_SymHullLaw.cells`` adds both halves over all edges, clipped at 0; the clipped half
    contributes zero-width cells whose *absolute* error bounds (a few ulps of a tail) are
    enormous relative to the tiny masses of far cells, and the engine's relative
    allowance explodes (ε = inf). Until the engine fixes it (reported), the cells below
    and above 0 are taken from one half each.
    """

    def cells(self, edges):
        e = np.asarray(edges, dtype=float)
        n = e.size - 1
        P, Q, EP, EQ = (np.zeros(n) for _ in range(4))
        k = int(np.searchsorted(e, 0.0))  # e[:k] < 0 <= e[k:]
        parts = ((self.inv, np.minimum(e[: k + 1], 0.0), slice(0, min(k, n))),
                 (self.lp, np.maximum(e[max(k - 1, 0):], 0.0), slice(max(k - 1, 0), n)))
        for law, sub, where in parts:
            if sub.size >= 2 and where.stop > where.start:
                for out, v in zip((P, Q, EP, EQ), law.cells(sub), strict=True):
                    out[where] += v
        return P, Q, EP, EQ


@dataclass(frozen=True, slots=True)
class _FixedStep(Subsampled):
    r""":math:`C_q(G_{2/\sigma})` with the law of :class:`_SplitHullLaw`."""

    def _pld_law(self):
        law = Subsampled._pld_law(self)
        split = _SplitHullLaw.__new__(_SplitHullLaw)
        split.__dict__.update(law.__dict__)
        return split


def _optimistic(h: TradeOff) -> TradeOff:
    """The upper curve of a numeric result (its optimistic side), or the curve itself."""
    return h.upper if isinstance(h, Bracketed) else h


def _poisson_two_orders(step: TradeOff, steps: int, acc: Accuracy) -> TradeOff:
    if isinstance(step, Gaussian):
        return G_mu(step.mu * math.sqrt(steps))
    if steps == 1:
        return subsample(step.base, step.p) if isinstance(step, PoissonSubsampled) else step
    return compose_numeric_two_orders([(step, steps)], acc, name="DP-SGD")


def _epochs(p: float, steps: int, sampler: str) -> tuple[int, int, int]:
    """(T steps per epoch, full epochs, steps of the last partial epoch)."""
    T = round(1.0 / p)
    if T < 1 or abs(T * p - 1.0) > 1e-9:
        raise ValueError(f"sampler={sampler!r} needs whole batches per epoch: 1/p (dataset "
                         f"size over batch size) must be an integer; got p={p!r}")
    return T, steps // T, steps % T


def _allocation_run(m: float, T: int, full: int, part: int, acc: Accuracy,
                    **grid: Any) -> TradeOff:
    groups: list[tuple[TradeOff, int]] = []
    if full:
        groups.append((allocation_epoch(m, T, **grid), full))
    if part:
        groups.append((allocation_epoch(m, T, part, **grid), 1))
    return compose_numeric_two_orders(groups, acc, name=f"A_{{{T}}}")


def sampled_dpsgd(*, sigma: float, p: float, steps: int, sampler: str, neighbours: str,
                  group_size: int, acc: Accuracy) -> TradeOff:
    r"""DP-SGD under a given batch sampler, neighbour relation and group size (arguments
    already checked by :func:`check_combination`); see the module docstring. Called by
    :func:`gdp.dpsgd`, which handles Poisson add/remove with ``group_size=1`` itself."""
    m = 1.0 / sigma
    c = 2.0 if neighbours == "replace-one" else 1.0
    if sampler == "poisson":
        if neighbours == "replace-one":
            step = replace_one_gaussian(sigma, p)
            if isinstance(step, Gaussian):
                return G_mu(step.mu * math.sqrt(steps))
            return step if steps == 1 else compose_numeric([(step, steps)], acc,
                                                           name="DP-SGD (replace-one)")
        return _poisson_two_orders(group_gaussian_step(sigma, p, group_size), steps, acc)
    if sampler == "fixed":
        if p == 1.0:
            return G_mu(2.0 * m * math.sqrt(steps))
        one = _FixedStep(base=G_mu(2.0 * m), p=p)
        sound = one if steps == 1 else compose_numeric([(one, steps)], acc,
                                                       name="DP-SGD (fixed-size)")
        lower = _poisson_two_orders(PoissonSubsampled(base=G_mu(c * m), p=p), steps, acc)
        return SamplerBracket(
            lower=sound, upper=_optimistic(lower), explicit=lower, name="DP-SGD (fixed-size)",
            sound_bound="C_q(G_{2/sigma}) per step (DRS Thm 4.2), composed",
            lower_bound=f"explicit datasets: Poisson add/remove DP-SGD at sigma/{c:g}")
    T, full, part = _epochs(p, steps, sampler)
    if sampler == "shuffle":
        sound = G_mu(c * m * math.sqrt(full + (part > 0)))
        if T == 1:
            return sound
        # only its optimistic side is used, and a contraction is valid on any grid: coarse
        lower = _allocation_run(c * m, T, full, 0, acc, points_per_step=8,
                                max_points=1 << 19) if full else None
        return SamplerBracket(
            lower=sound, upper=_optimistic(lower) if lower is not None else Identity(),
            explicit=lower, name="DP-SGD (shuffle)",
            sound_bound="no amplification: one Gaussian step per epoch",
            lower_bound=f"explicit datasets: random allocation with m = {c:g}/sigma per "
                        "full epoch (Chua et al. 2024)")
    if T == 1:
        return G_mu(m * math.sqrt(steps))
    return _allocation_run(m, T, full, part, acc)

