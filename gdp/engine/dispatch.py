r"""Tensor-product composition :math:`f_1 \otimes \cdots \otimes f_n` (DRS Thm 3.2).

Theory of operation
-------------------
For :math:`f = T(P,Q)`, :math:`g = T(P',Q')`: :math:`f \otimes g = T(P\times P',
Q\times Q')`, commutative, associative, with identity :math:`\mathrm{Id}`; privacy losses
add (MATH.md §4). :func:`compose` applies the closed-form rules first and keeps closed
forms where they exist; everything else goes to the numeric engine :mod:`gdp.engine`.

1. Identities are dropped; any factor with :math:`f(0) = 0` makes the result the zero
   curve :math:`f_{0,1}`.
2. The δ parts are split off: :math:`f_{\varepsilon,\delta} = f_{\varepsilon,0} \otimes
   f_{0,\delta}` and :math:`f_{0,\delta} \otimes f_{0,\delta'} = f_{0, 1-(1-\delta)
   (1-\delta')}`, so :math:`\bigotimes_i f_{\varepsilon_i,\delta_i} =
   (\bigotimes_i f_{\varepsilon_i,0}) \otimes f_{0,1-\prod_i(1-\delta_i)}`; the δ part is
   applied at the end, exactly: :math:`h \otimes f_{0,\delta}(\alpha) = (1-\delta)\,
   h(\alpha/(1-\delta))` with profile :math:`\delta + (1-\delta)\delta_h`.
3. Gaussians merge: :math:`G_a \otimes G_b = G_{\sqrt{a^2+b^2}}` (DRS Cor. 3.3).
4. :math:`k`-fold randomized response :math:`f_{\varepsilon,0}^{\otimes k}` is exact: the
   privacy loss is :math:`(k - 2j)\varepsilon` with binomial masses (KOV 2015).
5. A numeric composition among other factors joins as its factors (associativity;
   :attr:`gdp.engine.Composition.parts`); one composed per order of the neighbouring pair
   (a DP-SGD run) only in :func:`compose_two_orders`.
6. Compositions of purely atomic laws (every factor has exact atoms: ``f_eps_delta``,
   ``from_curve``, discrete ``from_distributions``, exact results) are convolved
   exactly as sparse atom lists (equal losses merged), while the support stays below
   ``200_000`` atoms.

Exact results are :class:`gdp.engine.LossCurve` curves (subclasses of
:class:`gdp.core.PiecewiseLinear`); numeric ones are :class:`gdp.engine.Composition`
(a :class:`gdp.core.Bracketed` whose every answer is on the sound side).

References
----------
DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022, Thm 3.2, Cor. 3.3,
Prop. 2.5. KOV: Kairouz, Oh, Viswanath, "The Composition Theorem for Differential
Privacy", ICML 2015 (randomized response is the worst case; binomial loss).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._numerics import EPS
from .._validation import check_count, check_instance
from ..core.piecewise import Identity
from ..core.tradeoff import Bracketed, TradeOff, register_engine
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.laplace_tradeoff import Laplace
from .curves import LossCurve, curve_from_atoms
from .numeric import compose_numeric
from .numeric import compose_numeric_two_orders as _two_orders
from .randomized_response import randomized_response_power
from .result import Composition
from .settings import accuracy
from .with_delta import WithDelta, _with_delta

__all__ = ["compose", "compose_power", "compose_two_orders"]

_ATOM_CAP = 200_000


def _sparse_conv(a: tuple, b: tuple) -> tuple | None:
    """Atoms of the product law and a bound on their relative error: the factors' errors,
    one product, the sums of at most min(#a, #b) products per atom, and the rounding of the
    summed losses (an error Δ in a loss changes the profile by at most 2Δ relative, so
    2 u |loss| is charged as mass error)."""
    ua, pa, qa, ra = a
    ub, pb, qb, rb = b
    if ua.size * ub.size > 4_000_000:
        return None
    u = (ua[:, None] + ub[None, :]).ravel()
    p = (pa[:, None] * pb[None, :]).ravel()
    q = (qa[:, None] * qb[None, :]).ravel()
    uu, inv = np.unique(u, return_inverse=True)
    if uu.size > _ATOM_CAP:
        return None
    big = float(np.max(np.abs(uu), initial=0.0))
    r = ra + rb + (min(ua.size, ub.size) + 2) * EPS + 2 * EPS * big
    return uu, np.bincount(inv, weights=p), np.bincount(inv, weights=q), r


def _atomic_compose(groups: list[tuple[TradeOff, int]]) -> LossCurve | None:
    """Exact composition of atomic laws, or None when the support grows too large."""
    acc = (np.zeros(1), np.ones(1), np.ones(1), 0.0)
    q_inf_log = 0.0  # log of the surviving (finite) Q-mass factor
    p_ninf_log = 0.0
    # factors with the same atoms are one power (the same computation, hence the same
    # answer and error bound, however the list was written)
    same: dict[tuple, list] = {}
    for f, n in groups:
        at = f._atoms()
        if at is None:
            return None
        arrs = tuple(np.asarray(x, dtype=float) for x in at)
        k = tuple(a.tobytes() for a in arrs)
        if k in same:
            same[k][1] += n
        else:
            same[k] = [arrs, n]
    for (u, p, q), n in same.values():
        qi = float(q[np.isposinf(u)].sum())
        pn = float(p[np.isneginf(u)].sum())
        fin = np.isfinite(u) & ((p > 0) | (q > 0))
        # given atoms are exact; log(q/p) of a pmf pair errs by a few u |loss|
        base = (u[fin], p[fin], q[fin], 4 * EPS * (1.0 + float(np.max(np.abs(u[fin]),
                                                                   initial=0.0))))
        with np.errstate(divide="ignore"):
            q_inf_log += n * math.log1p(-qi) if qi < 1 else -np.inf
            p_ninf_log += n * math.log1p(-pn) if pn < 1 else -np.inf
        m = n
        while m:  # binary powering
            if m & 1:
                acc = _sparse_conv(acc, base)
                if acc is None:
                    return None
            m >>= 1
            if m:
                base = _sparse_conv(base, base)
                if base is None:
                    return None
    u, p, q, r = acc
    q_inf = -math.expm1(q_inf_log) if np.isfinite(q_inf_log) else 1.0
    p_ninf = -math.expm1(p_ninf_log) if np.isfinite(p_ninf_log) else 1.0
    sym = all(f.is_symmetric for f, _ in groups)
    # the infinite atoms (1 - prod (1 - m_i)^n, by log1p/expm1) err by (G + 4) u relative
    r = max(r, (len(same) + 4) * EPS)
    return curve_from_atoms(np.concatenate([u, [np.inf, -np.inf]]),
                            np.concatenate([p, [0.0, p_ninf]]),
                            np.concatenate([q, [q_inf, 0.0]]), symmetric=sym,
                            name=_name(groups), rerr=r)


# ---------------------------------------------------------------------------
# the dispatcher
# ---------------------------------------------------------------------------
def _name(groups: list[tuple[TradeOff, int]]) -> str:
    parts = [g.label if n == 1 else f"{{{g.label}}}^{{\\otimes {n}}}" for g, n in groups]
    if len(parts) > 4:
        return f"\\bigotimes_{{{sum(n for _, n in groups)}}}"
    return "\\otimes ".join(parts) if parts else "f"


def _key(f: TradeOff) -> Any:
    try:
        hash(f)
        return ("h", f)
    except TypeError:
        return ("id", id(f))


def _is_zero(f: TradeOff) -> bool:
    with np.errstate(all="ignore"):
        v = float(np.asarray(f._f(np.zeros(1)))[0])
    return v <= 0.0


def _normalised(groups: list[tuple[TradeOff, int]], per_order: bool = False
                ) -> TradeOff | tuple[list[tuple[TradeOff, int]], float, bool]:
    """Split off the δ parts, drop perfect-privacy factors, flatten numeric compositions
    into their parts (:attr:`Composition.parts`; with ``per_order`` also those composed
    per order, :func:`compose_two_orders`) where there are other factors, merge equal
    factors and all Gaussians (into one): ``(rest, delta, all_gauss)``, or the answer when
    it is trivial (a zero factor)."""
    log_keep = 0.0  # log(1 - delta) of the split-off delta part
    merged: dict[Any, list] = {}
    gauss = 0.0
    # G_0 (x) G_0 stays a Gaussian (G_0); with an Identity among the factors it is Identity
    all_gauss = bool(groups) and all(isinstance(f, Gaussian) for f, _ in groups)
    flatten = not (len(groups) == 1 and groups[0][1] == 1)
    todo = list(reversed(groups))
    while todo:
        f, n = todo.pop()
        while isinstance(f, WithDelta):
            log_keep += n * math.log1p(-f.delta_) if f.delta_ < 1 else -math.inf
            f = f.base
        if flatten and isinstance(f, Composition) and f.parts and \
                (per_order or not f.per_order):
            # (the tensor product is associative: its factors join these)
            todo.extend((g, m * n) for g, m in reversed(f.parts))
            continue
        if isinstance(f, EpsDelta) and f.delta_ > 0:
            log_keep += n * math.log1p(-f.delta_) if f.delta_ < 1 else -math.inf
            f = EpsDelta(eps=f.eps, delta_=0.0)
        if isinstance(f, Identity) or (isinstance(f, EpsDelta) and f.eps == 0.0) or \
                (isinstance(f, Gaussian | Laplace) and f.mu == 0.0):
            continue
        if _is_zero(f):
            return EpsDelta(eps=0.0, delta_=1.0)
        if isinstance(f, Gaussian):
            gauss += n * f.mu * f.mu
            continue
        k = _key(f)
        if k in merged:
            merged[k][1] += n
        else:
            merged[k] = [f, n]
    # 1 - prod (1 - delta_i)^n_i by log1p/expm1 (a few u per factor), rounded up
    delta = min(1.0, -math.expm1(log_keep) * (1.0 + (len(groups) + 4) * EPS)) \
        if math.isfinite(log_keep) else 1.0
    if delta >= 1.0:
        return EpsDelta(eps=0.0, delta_=1.0)
    rest = [(f, n) for f, n in merged.values()]
    if gauss > 0:
        rest.append((Gaussian(mu=math.sqrt(gauss)), 1))
    return rest, delta, all_gauss


def _compose_groups(groups: list[tuple[TradeOff, int]], acc_kw: dict[str, Any]) -> TradeOff:
    acc = accuracy(**acc_kw)
    norm = _normalised(groups)
    if isinstance(norm, TradeOff):
        return norm
    rest, delta, all_gauss = norm
    if not rest:
        return _with_delta(Gaussian(mu=0.0) if all_gauss else Identity(), delta)
    if len(rest) == 1 and rest[0][1] == 1:
        return _with_delta(rest[0][0], delta)
    # randomized response powers: binomial, exact
    if all(isinstance(f, EpsDelta) for f, _ in rest) and len({f.eps for f, _ in rest}) == 1:
        k = sum(n for _, n in rest)
        return _with_delta(randomized_response_power(rest[0][0].eps, k), delta)
    # purely atomic laws: exact sparse convolution while the support stays small
    if all(not isinstance(f, Bracketed) and _has_atoms(f) for f, _ in rest):
        exact = _atomic_compose(rest)
        if exact is not None:
            return _with_delta(exact, delta)
    h = compose_numeric(rest, acc, name=_name(rest))
    return _with_delta(h, delta)


def _has_atoms(f: TradeOff) -> bool:
    try:
        return f._atoms() is not None
    except Exception:  # noqa: BLE001 - a hook that fails means "no exact atoms"
        return False


def compose(*fs: TradeOff, **accuracy_kw: Any) -> TradeOff:
    r"""The tensor product :math:`f_1 \otimes \cdots \otimes f_n` (composition of
    mechanisms; DRS Thm 3.2). ``f @ g`` is ``compose(f, g)``.

    Parameters
    ----------
    *fs : TradeOff
        Any number of trade-off functions, of any families.
    **accuracy_kw
        ``rtol``, ``grid_step``, ``tail_mass``, ``max_points`` for the numeric engine
        (:class:`gdp.engine.Accuracy`); ignored when a closed form applies.

    Returns
    -------
    TradeOff
        A closed form where one exists (:math:`G_\mu`, :math:`f_{\varepsilon,\delta}`,
        exact :class:`gdp.engine.LossCurve` for atomic laws, :class:`WithDelta`), else a
        :class:`gdp.engine.Composition` whose answers are on the sound side (curve never
        too high, δ and ε never too low) with both bounds available.

    Notes
    -----
    See the module docstring for the rules. An empty call returns the identity. A numeric
    composition among other factors joins as its own factors (by associativity:
    ``a @ b @ c`` is ``compose(a, b, c)``; :attr:`gdp.engine.Composition.parts`), except
    one composed per order of the neighbouring pair (a DP-SGD run), whose symmetrised
    curve is not a tensor product: :func:`compose_two_orders` composes such a run as a
    mechanism.

    Examples
    --------
    >>> import gdp
    >>> gdp.compose(gdp.G_mu(1.0), gdp.G_mu(2.0))
    Gaussian(mu=2.23606797749979)
    >>> round(gdp.compose(gdp.f_eps_delta(1.0, 0.01), gdp.f_eps_delta(0.0, 0.02)).delta_, 15)
    0.0298
    >>> h = gdp.compose(gdp.G_mu(1.0), gdp.laplace(1.0))
    >>> lo, hi = h.epsilon_bounds(1e-6)
    >>> bool(0 < hi - lo < 0.01)
    True
    """
    groups = _grouped(fs)
    accuracy(**accuracy_kw)  # refuse bad keywords even where a closed form ignores them
    return _compose_groups(groups, accuracy_kw)


def _grouped(fs: tuple[TradeOff, ...]) -> list[tuple[TradeOff, int]]:
    """Check the factors and count equal ones: ``[(f, multiplicity), ...]`` in first-seen
    order (equal factors become one tensor power)."""
    for i, f in enumerate(fs):
        if not isinstance(f, TradeOff):
            raise TypeError(f"`fs[{i}]` must be a TradeOff; got {f!r}")
    groups: dict[Any, list] = {}
    for f in fs:
        k = _key(f)
        if k in groups:
            groups[k][1] += 1
        else:
            groups[k] = [f, 1]
    return [(f, n) for f, n in groups.values()]


def compose_power(f: TradeOff, n: int, **accuracy_kw: Any) -> TradeOff:
    r"""The n-fold tensor power :math:`f^{\otimes n}` (``f ** n``), in the Fourier domain
    for numeric laws (one transform, not n convolutions).

    Examples
    --------
    >>> import gdp
    >>> gdp.compose_power(gdp.G_mu(0.5), 4)
    Gaussian(mu=1.0)
    >>> h = gdp.compose_power(gdp.f_eps_delta(0.1), 1000)   # exact binomial
    >>> round(h.epsilon(1e-6), 4)
    19.3447
    """
    check_instance("f", f, TradeOff, "a TradeOff")
    n = check_count("n", n)
    accuracy(**accuracy_kw)  # refuse bad keywords even where a closed form ignores them
    return _compose_groups([(f, n)], accuracy_kw)


def compose_two_orders(*fs: TradeOff, **accuracy_kw: Any) -> TradeOff:
    r"""Composition when each mechanism is known by one curve per order of the
    neighbouring pair: :math:`f_i` for :math:`(S, S')` and :math:`f_i^{-1}` for
    :math:`(S', S)` (e.g. add/remove neighbours with Poisson subsampling, where
    :math:`f_i` is the "remove" curve :math:`f_p`).

    The tight curve composes each order separately and symmetrises at the end,
    :math:`\min\{h, h^{-1}\}^{**}` with :math:`h = f_1 \otimes \cdots \otimes f_n`
    (MATH.md §2, §6); its profile is :math:`\max(\delta_h, \delta_{h^{-1}})`, what
    dp-accounting reports. When every :math:`f_i` is symmetric this is :func:`compose`.
    A numeric composition among the factors joins as its own factors, also one composed
    per order (a DP-SGD run: its steps join the others, each order on its own; two runs
    of T steps make the run of 2T).

    Examples
    --------
    >>> import gdp
    >>> step = gdp.poisson_subsample(gdp.G_mu(1.0), 0.01)
    >>> h = gdp.compose_two_orders(*[step] * 1000)
    >>> abs(h.epsilon(1e-5) - gdp.dpsgd(sigma=1.0, p=0.01, steps=1000).epsilon(1e-5)) < 1e-9
    True
    """
    for i, f in enumerate(fs):
        if not isinstance(f, TradeOff):
            raise TypeError(f"`fs[{i}]` must be a TradeOff; got {f!r}")
    # (a curve composed per order among other factors joins as its parts, which are not
    # symmetric: not compose's tensor product of its symmetrised curve)
    if all(f.is_symmetric and not (len(fs) > 1 and isinstance(f, Composition) and
                                   f.per_order and f.parts) for f in fs):
        return compose(*fs, **accuracy_kw)
    acc = accuracy(**accuracy_kw)
    pairs = _grouped(fs)
    # (the same exact reductions as compose; a curve composed per order joins as its parts)
    norm = _normalised(pairs, per_order=True)
    if isinstance(norm, TradeOff):
        return norm
    rest, delta, _ = norm
    if all(f.is_symmetric for f, _ in rest):
        extra = [(EpsDelta(eps=0.0, delta_=delta), 1)] if delta > 0 else []
        return _compose_groups(rest + extra, accuracy_kw)
    return _with_delta(_two_orders(rest, acc, name=_name(pairs)), delta)


register_engine(compose=compose, compose_power=compose_power)
