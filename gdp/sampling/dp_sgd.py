r"""DP-SGD accounting: the composition of Poisson-subsampled Gaussian steps.

:func:`dpsgd` composes ``steps`` steps with noise multiplier σ and sampling rate p (or several
phases of different σ, p, steps), each order of the add/remove neighbours separately, and
symmetrises at the end (MATH.md §6; what dp-accounting reports). The answer is a numeric
:class:`~gdp.engine.result.Composition`: sound by default, with both sides of the bracket.

Imports: the ground floor, :mod:`gdp.families`, :mod:`gdp.engine`,
:mod:`gdp.sampling.subsampling`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .._validation import check_count, check_keywords, check_real
from ..core.tradeoff import TradeOff
from ..engine.numeric import compose_numeric_two_orders
from ..engine.settings import _ACC_KEYS, accuracy
from ..families.gaussian import G_mu, Gaussian
from .samplers import check_combination, sampled_dpsgd
from .subsampling import PoissonSubsampled, subsample

__all__ = ["dpsgd"]

_PHASE_KEYS = {"sigma", "p", "steps"}


def _phase(spec: Mapping[str, Any], i: int | None = None) -> tuple[float, float, int]:
    where = "" if i is None else f" (phase {i}) in `phases`"
    if not isinstance(spec, Mapping):
        raise TypeError(f"each phase must be a mapping with keys sigma, p, steps; got "
                        f"{spec!r:.60}{where}")
    if set(spec) != _PHASE_KEYS:
        raise ValueError(f"a phase must have exactly the keys sigma, p and steps; got keys "
                         f"{sorted(map(str, spec))}{where}")
    pre = "" if i is None else f"phases[{i}]."
    # (1/sigma, the mu of one step, must be finite)
    sigma = check_real(pre + "sigma", spec["sigma"], lo=1e-300)
    p = check_real(pre + "p", spec["p"], lo=0.0, hi=1.0, lo_open=True)
    steps = check_count(pre + "steps", spec["steps"])
    return sigma, p, steps


def dpsgd(*, sigma: float | None = None, p: float | None = None, steps: int | None = None,
          phases: Sequence[Mapping[str, Any]] | None = None, sampler: str = "poisson",
          neighbours: str = "add-remove", group_size: int = 1,
          **accuracy_kw: Any) -> TradeOff:
    r"""The trade-off curve of DP-SGD: Poisson-subsampled Gaussian steps with add/remove
    neighbours, composed the tight way.

    Parameters
    ----------
    sigma : float
        Noise multiplier (noise standard deviation over the clipping norm), > 0.
    p : float
        Poisson sampling rate in (0, 1].
    steps : int
        Number of steps, ≥ 1.
    phases : sequence of dict, optional
        Instead of ``sigma, p, steps``: a heterogeneous run, e.g.
        ``[dict(sigma=1.0, p=0.01, steps=1000), dict(sigma=2.0, p=0.02, steps=500)]``.
    sampler : {"poisson", "fixed", "shuffle", "allocation"}
        How batches are drawn; ``p`` is batch size over dataset size for all of them (see
        :mod:`gdp.sampling.samplers` and ``docs/samplers.md``). Default Poisson.
    neighbours : {"add-remove", "replace-one", "zero-out"}
        The neighbour relation (:mod:`gdp.sampling.neighbours`). Default add/remove.
    group_size : int
        Examples per user for user-level privacy (Poisson, add/remove; default 1).
    **accuracy_kw
        ``rtol``, ``grid_step``, ``tail_mass``, ``max_points`` of the numeric engine
        (:class:`gdp.engine.Accuracy`).

    Returns
    -------
    TradeOff
        :math:`\min\{h, h^{-1}\}^{**}` with :math:`h = \bigotimes_i f_{p_i}^{\otimes T_i}`,
        :math:`f_{p} = T(N(0,1), (1-p)N(0,1) + pN(1/\sigma,1))`: a
        :class:`gdp.engine.Composition` whose ``epsilon``/``delta`` are sound upper bounds
        and whose ``epsilon_bounds``/``delta_bounds`` bracket the exact value. One step is
        :func:`subsample` of :math:`G_{1/\sigma}` (exact); ``p = 1`` everywhere gives the
        closed form :math:`G_\mu` with :math:`\mu = \sqrt{\sum_i T_i/\sigma_i^2}`.

    Notes
    -----
    Each order of the neighbouring pair is composed separately (remove: :math:`f_p`,
    add: :math:`f_p^{-1}`) and the two are symmetrised at the end, so the profile is
    :math:`\max(\delta_h, \delta_{h^{-1}})` (what dp-accounting reports); composing the
    symmetrised one-step curve instead would be valid but loose (MATH.md §6).

    References
    ----------
    ZDW (AISTATS 2022); BDLS (HDSR 2020); DRS Thm 4.2; Abadi et al., "Deep Learning with
    Differential Privacy", CCS 2016.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.dpsgd(sigma=1.0, p=0.01, steps=1000)
    >>> lo, hi = h.epsilon_bounds(1e-5)
    >>> round(hi, 2), bool(hi - lo < 2e-3 * hi)
    (1.83, True)
    """
    check_keywords("dpsgd", accuracy_kw, _ACC_KEYS,
                   expects="`sigma`, `p` and `steps` (or `phases`), and the accuracy keywords "
                           + ", ".join(f"`{k}`" for k in _ACC_KEYS))
    if phases is not None:
        if sigma is not None or p is not None or steps is not None:
            raise TypeError("pass either `phases` or `sigma`, `p` and `steps`, not both")
        if isinstance(phases, Mapping) or not isinstance(phases, Sequence) or not phases:
            raise TypeError(f"`phases` must be a non-empty sequence of dicts with keys sigma, "
                            f"p, steps; got phases={phases!r}")
        specs = [_phase(ph, i) for i, ph in enumerate(phases)]
    else:
        missing = [f"`{k}`" for k, v in (("sigma", sigma), ("p", p), ("steps", steps))
                   if v is None]
        if missing:
            raise TypeError(f"dpsgd needs `sigma`, `p` and `steps` (or `phases`); missing "
                            f"{', '.join(missing)}")
        specs = [_phase({"sigma": sigma, "p": p, "steps": steps})]
    acc = accuracy(**accuracy_kw)
    sampler, neighbours, group_size = check_combination(sampler, neighbours, group_size)
    if sampler != "poisson" or neighbours == "replace-one" or group_size > 1:
        if len(specs) > 1 or phases is not None:
            raise TypeError(f"`phases` is for sampler='poisson' with add/remove neighbours and "
                            f"group_size=1; got sampler={sampler!r}, neighbours="
                            f"{neighbours!r}, group_size={group_size}")
        s, q, t = specs[0]
        return sampled_dpsgd(sigma=s, p=q, steps=t, sampler=sampler, neighbours=neighbours,
                             group_size=group_size, acc=acc)
    # merge phases with equal (sigma, p)
    merged: dict[tuple[float, float], int] = {}
    for s, q, t in specs:
        merged[(s, q)] = merged.get((s, q), 0) + t
    if all(q == 1.0 for (_, q) in merged):
        return G_mu(math.sqrt(sum(t / (s * s) for (s, _), t in merged.items())))
    if len(merged) == 1:
        (s, q), t = next(iter(merged.items()))
        if t == 1:
            return subsample(G_mu(1.0 / s), q)
    groups: list[tuple[TradeOff, int]] = []
    for (s, q), t in merged.items():
        g = Gaussian(mu=1.0 / s)
        groups.append((g if q == 1.0 else PoissonSubsampled(base=g, p=q), t))
    return compose_numeric_two_orders(groups, acc, name="DP-SGD")
