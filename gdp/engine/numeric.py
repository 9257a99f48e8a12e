r"""The numeric composition engine: plan the lattice, discretise, compose, wrap the result.

:func:`compose_numeric` composes groups ``[(f, n), ...]`` of factors: it chooses the lattice
step from the requested accuracy and the variance of the composed loss, the window from
Chernoff bounds at the requested tail mass, discretises every factor on both sides
(:mod:`gdp.engine.lattice`), composes them (:mod:`gdp.engine.fourier`) and returns a
:class:`~gdp.engine.result.Composition`. :func:`compose_numeric_two_orders` does the same for
mechanisms known by one curve per order of the neighbours (composed separately, symmetrised at
the end).

Imports: the ground floor, :mod:`gdp.core` and the modules of :mod:`gdp.engine` below it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_bool, check_count, check_instance, check_str
from ..core.tradeoff import Bracketed, TradeOff
from .curves import LossCurve, _finish, _inv_label, hull_min_curves
from .fourier import _LAM_MULT, _chernoff, _compose_lats, _log_mgf, _moments, _Result
from .lattice import _disc_opt, _disc_pess, _Lat
from .laws import GenericLaw, Law, law_of
from .result import (
    Composition,
    GridInfo,
    LazyCurve,
    _Combine,
    _CurveProfile,
    _LazyProfile,
    _MGFProfile,
)
from .settings import Accuracy

__all__ = ["compose_numeric", "compose_numeric_two_orders"]

# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Factor:
    pess: Law
    opt: Law
    n: int


def _factors(groups: Sequence[tuple[TradeOff, int]]) -> list[_Factor]:
    out = []
    for f, n in groups:
        if isinstance(f, Bracketed):
            out.append(_Factor(law_of(f.lower), law_of(f.upper), n))
        else:
            law = law_of(f)
            out.append(_Factor(law, law, n))
    return out


def _plan_h(factors: list[_Factor], acc: Accuracy) -> tuple[float, float, float]:
    """Lattice step from the requested accuracy; also the composed Q-mean and variance."""
    mean = var = 0.0
    k = 0
    for fa in factors:
        m, v = _moments(fa.pess)
        mean += fa.n * m
        var += fa.n * v
        k += fa.n
    if acc.grid_step is not None:
        return acc.grid_step, mean, var
    if var <= 0.0 or k == 0:
        return 1e-2, mean, var
    h = float(min(math.sqrt(8.0 * acc.rtol * var / k), 0.05 * math.sqrt(var), 0.5))
    # one atomic factor (the usual f ** n): make the spacing of its two heaviest atoms a
    # multiple of h, so that with the lattice offset both sit on lattice points
    atomic = [fa for fa in factors if fa.pess.atoms()[0].size >= 2]
    if len(atomic) == 1:
        u, p, q = atomic[0].pess.atoms()
        i, j = int(np.argmax(q)), int(np.argmax(p))
        gap = abs(float(u[i] - u[j]))
        if gap > 0 and gap / h < 1e7:
            h = gap / math.ceil(gap / h - 1e-9)
    return h, mean, var


def _offset(law: Law, h: float) -> float:
    """A lattice offset in [0, h) putting the heaviest atom of the Q-law on the lattice."""
    if isinstance(law, GenericLaw):
        return 0.0
    u, _, q = law.atoms()
    if u.size == 0 or not np.any(q > 0):
        return 0.0
    us = float(u[int(np.argmax(q))])
    return us - math.floor(us / h) * h


def _factor_window(law: Law, h: float, tol: float, cap: int,
                   off: float = 0.0) -> tuple[int, int]:
    ql, qh, _, _ = law.quantiles(tol)
    ql, qh = ql - off, qh - off
    if not np.isfinite(ql):
        ql = qh - 50.0 if np.isfinite(qh) else -50.0
    if not np.isfinite(qh):
        qh = ql + 50.0
    ka, kb = int(math.floor(ql / h)), int(math.ceil(qh / h))
    if kb - ka + 1 > cap:
        raise ValueError(
            f"the lattice for one factor needs {kb - ka + 1} points, more than "
            f"max_points={cap}; pass a larger `grid_step`, a larger `rtol` or a larger "
            f"`max_points`")
    return ka, max(kb, ka)


def _discretise(factors: list[_Factor], h: float, acc: Accuracy, side: str
                ) -> list[tuple[_Lat, int]]:
    k = sum(fa.n for fa in factors)
    tol = acc.tail_mass / max(k, 1) * 1e-3
    out = []
    for fa in factors:
        law = fa.pess if side == "pess" else fa.opt
        off = _offset(law, h)
        ka, kb = _factor_window(fa.pess, h, tol, acc.max_points, off)
        if side == "opt" and fa.opt is not fa.pess:
            ka2, kb2 = _factor_window(fa.opt, h, tol, acc.max_points, off)
            ka, kb = min(ka, ka2), max(kb, kb2)
        lat = _disc_pess(law, h, ka, kb, off) if side == "pess" else \
            _disc_opt(law, h, ka, kb, off)
        out.append((lat, fa.n))
    return out


def _K_of(lats: list[tuple[_Lat, int]], h: float) -> Callable[[np.ndarray], np.ndarray]:
    def K(lams: np.ndarray) -> np.ndarray:
        lams = np.asarray(lams, dtype=float)
        tot = np.zeros(lams.shape)
        for lat, n in lats:
            tot = tot + n * _log_mgf(lat, h, lams)
        return tot
    return K


def _lam_table(K: Callable[[np.ndarray], np.ndarray], var: float, h: float,
               acc: Accuracy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """λ grid around the Gaussian Chernoff optimum z/sd and K(±λ) on it."""
    sd = math.sqrt(max(var, h * h))
    z = math.sqrt(-2.0 * math.log(acc.tail_mass))
    lams = _LAM_MULT * z / sd
    kk = K(np.concatenate([lams, -lams]))
    return lams, kk[: lams.size], kk[lams.size:]


def _window(lams: np.ndarray, Kp: np.ndarray, Km: np.ndarray, h: float,
            acc: Accuracy, off: float) -> tuple[int, int]:
    """Lattice window [KA, KB] (losses k h + off) whose Chernoff tail bounds are at most
    ``tail_mass``."""
    logtol = math.log(acc.tail_mass)
    with np.errstate(all="ignore"):
        B = float(np.min((Kp - logtol) / lams))
        A = float(np.max((logtol - Km) / lams))
    if not (np.isfinite(A) and np.isfinite(B)):
        raise ValueError("could not bound the tails of the composed privacy loss "
                         "(non-finite moment generating function)")
    return int(math.floor((A - off) / h)), int(math.ceil((B - off) / h))


def _run(factors: list[_Factor], h: float, mean: float, var: float, acc: Accuracy,
         side: str, window: tuple[float, int] | None = None
         ) -> tuple[_Result, Callable[[np.ndarray], np.ndarray]]:
    """One side of one order: discretise, compose on the window (``(A, N)``: losses from
    about A, N points; chosen from Chernoff bounds when not given)."""
    from scipy import fft as sfft  # loaded on first use (import time)

    lats = _discretise(factors, h, acc, side)
    K = _K_of(lats, h)
    off = math.fsum(n * lat.off for lat, n in lats)
    lams, Kp, Km = _lam_table(K, var, h, acc)
    if window is None:
        KA, KB = _window(lams, Kp, Km, h, acc, off)
        n = KB - KA + 1
        N = sfft.next_fast_len(max(n, 16), real=True)
        if N > acc.max_points:
            raise ValueError(
                f"the composition needs a lattice of {N} points (step {h:.3g}, window "
                f"[{KA * h + off:.4g}, {KB * h + off:.4g}]), more than "
                f"max_points={acc.max_points}; pass a larger `rtol` or `grid_step`, or "
                "raise `max_points`")
    else:
        A, N = window
        KA = int(math.floor((A - off) / h))
    c, q_inf, rel, tau, shift = _compose_lats(lats, KA, N)
    lhi, llo = _chernoff(Kp, Km, lams, KA * h + off, (KA + N - 1) * h + off)
    res = _Result(h, KA, c, q_inf, rel, tau, math.exp(min(lhi, 0.0)), math.exp(min(llo, 0.0)),
                  off, shift)
    return res, K


def _lattice_curve(res: _Result, *, optimistic: bool, name: str) -> LossCurve:
    """The LossCurve of a composed lattice law with its allowances charged (sound side) or
    subtracted (optimistic side)."""
    t = (res.KA + np.arange(res.c.size)) * res.h + res.off
    t = t - res.shift if optimistic else t + res.shift
    if not optimistic:
        # the round-off allowance bounds errors of the window masses only: it is charged
        # to the top of the window (the profile integrand increases with the loss), the
        # Chernoff bound on the mass above the window to +inf, the one below to the bottom
        q = res.c * (1.0 + res.rel)
        q[0] += res.m_lo * (1.0 + res.rel)
        q[-1] += res.tau * (1.0 + res.rel)
        q_inf = min(1.0, (res.q_inf + res.m_hi) * (1.0 + res.rel))
        sc = 1.0
        shift = 0.0
    else:  # delta >= (1 - rel) (delta_c - sigma), clamped by max(0, 1 - e^eps)
        q = res.c
        q_inf = res.q_inf
        sc = 1.0 - min(res.rel, 1.0)
        shift = res.tau + res.m_hi + res.m_lo
    if sc <= 0.0:  # no information left: the identity is a valid upper curve
        return _finish(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0]),
                       name=name, optimistic=True)
    keep = q > 0
    u, qk = t[keep][::-1], q[keep][::-1]
    with np.errstate(divide="ignore"):
        lp = np.log(qk) - u + math.log(sc)  # log P-masses: no underflow for large losses
    la = np.concatenate([[-np.inf], np.logaddexp.accumulate(lp)]) if lp.size else \
        np.array([-np.inf])
    alpha = np.exp(la)
    omb = sc * (np.concatenate([[q_inf], q_inf + np.cumsum(qk)]) - shift)
    if optimistic and omb[0] < 0.0:  # tangent from (0, beta=1): the line max(0, .)
        with np.errstate(divide="ignore", invalid="ignore"):
            ls = np.where(omb > 0, np.log(omb) - la, -np.inf)
        v = int(np.argmax(ls))
        if not np.isfinite(ls[v]) or ls[v] <= 0:
            return _finish(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0]),
                           name=name, optimistic=True)
        alpha = np.concatenate([[0.0], alpha[v:]])
        la = np.concatenate([[-np.inf], la[v:]])
        omb = np.concatenate([[0.0], omb[v:]])
        u = np.concatenate([[float(ls[v])], u[v:]])
    return _finish(alpha, omb, u, name=name, optimistic=optimistic, lalpha=la)


class _SoundProfile:
    """The lattice profile of the pessimistic curve, improved by the MGF bound where the
    lattice answer is near its floating-point floor or beyond the window."""

    def __init__(self, curve: LossCurve, mgf: _MGFProfile, top: float):
        self.curve = curve
        self.mgf = mgf
        self.top = top
        self.floor = float(curve.omb[0])

    def delta(self, eps: np.ndarray) -> np.ndarray:
        eps = np.asarray(eps, dtype=float)
        d = np.asarray(self.curve._hockey(eps), dtype=float)
        need = (d < 1e4 * self.floor) | (eps > self.top)
        if need.any():
            d = d.copy()
            d[need] = np.minimum(d[need], self.mgf.delta(eps[need]))
        return d

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        delta = np.asarray(delta, dtype=float)
        e = self.curve._eps_direct(delta)
        need = (delta < 1e4 * self.floor) | (e > self.top)
        if need.any():
            e = e.copy()
            e[need] = np.minimum(e[need], self.mgf.epsilon(delta[need]))
        return e


def _side_profiles(res: _Result, K: Callable, curve: LossCurve, var: float) -> Any:
    mgf = _MGFProfile(K, res.q_inf, res.rel, math.sqrt(max(var, res.h * res.h)), res.shift)
    return _SoundProfile(curve, mgf, (res.KA + res.c.size - 1) * res.h + res.off)


def _one_order(factors: list[_Factor], h: float, mean: float, var: float, acc: Accuracy,
               name: str) -> tuple[LossCurve, Any, Callable[[], LossCurve], GridInfo]:
    res, K = _run(factors, h, mean, var, acc, "pess")
    lower = _lattice_curve(res, optimistic=False, name=name)
    sound = _side_profiles(res, K, lower, var)
    window = (res.KA * h + res.off, res.c.size)

    def upper_thunk() -> LossCurve:
        # atoms off the lattice cost the optimistic garbling a first-order loss (h over
        # the atom spacing): a finer lattice there, the window is unchanged
        fine = 4 if any(fa.opt.atoms()[0].size for fa in factors) else 1
        fine = max(1, min(fine, acc.max_points // max(window[1], 1)))
        r2, _ = _run(factors, h / fine, mean, var, acc, "opt",
                     window=(window[0], window[1] * fine))
        return _lattice_curve(r2, optimistic=True, name=name)

    info = GridInfo(grid_step=h, window=(res.KA * h + res.off,
                                         (res.KA + res.c.size - 1) * h + res.off),
                    n_points=int(res.c.size), tail_bound=res.m_hi + res.m_lo,
                    roundoff=res.tau, rel_roundoff=res.rel, loss_shift=res.shift)
    return lower, sound, upper_thunk, info


def _checked(groups: Any, acc: Any, name: Any) -> tuple[Accuracy, list[tuple[TradeOff, int]]]:
    """Entry checks of the numeric compositions: ``(TradeOff, count)`` pairs, an
    :class:`Accuracy` (or None) and a name."""
    check_str("name", name)
    acc = Accuracy() if acc is None else check_instance("acc", acc, Accuracy, "an Accuracy")
    if isinstance(groups, str | bytes | Mapping) or not isinstance(groups, Sequence) \
            or not groups:
        raise TypeError(f"`groups` must be a non-empty list of (TradeOff, count) pairs; got "
                        f"groups={groups!r:.60}")
    out = []
    for i, g in enumerate(groups):
        if not (isinstance(g, tuple | list) and len(g) == 2):
            raise TypeError(f"`groups[{i}]` must be a (TradeOff, count) pair; got {g!r:.60}")
        out.append((check_instance(f"groups[{i}]", g[0], TradeOff, "a TradeOff"),
                    check_count(f"groups[{i}] count", g[1])))
    return acc, out


def compose_numeric(groups: Sequence[tuple[TradeOff, int]], acc: Accuracy | None = None, *,
                    name: str = "f", symmetric: bool | None = None) -> Composition:
    r"""Numeric tensor product :math:`\bigotimes_i f_i^{\otimes n_i}` of ``(f_i, n_i)``.

    Used by :func:`gdp.compose` for everything without a closed form; call that instead.
    ``symmetric`` declares the result symmetric (default: all factors are).

    Examples
    --------
    >>> import gdp
    >>> h = gdp.engine.compose_numeric([(gdp.G_mu(1.0), 4)])   # G_2, computed numerically
    >>> lo, hi = h.epsilon_bounds(1e-5)
    >>> bool(lo <= gdp.G_mu(2.0).epsilon(1e-5) <= hi)
    True
    """
    acc, groups = _checked(groups, acc, name)
    if symmetric is not None:
        symmetric = check_bool("symmetric", symmetric)
    if symmetric is None:
        symmetric = all(f.is_symmetric for f, _ in groups)
    factors = _factors(groups)
    h, mean, var = _plan_h(factors, acc)
    lower, sound, upper_thunk, info = _one_order(factors, h, mean, var, acc, name)
    upper = LazyCurve(thunk=upper_thunk, name=name)
    other = _LazyProfile(lambda: _CurveProfile(upper.get()))

    def inverse_fn() -> Composition:
        inv_groups = [(f.inverse(), n) for f, n in groups]
        return compose_numeric(inv_groups, Accuracy(rtol=acc.rtol, grid_step=h,
                                                    tail_mass=acc.tail_mass,
                                                    max_points=acc.max_points),
                               name=_inv_label(name), symmetric=False)

    return Composition(lower=lower, upper=upper, name=name, symmetric=bool(symmetric),
                       sound=sound, other=other, info=info,
                       inverse_fn=None if symmetric else inverse_fn)


def compose_numeric_two_orders(groups: Sequence[tuple[TradeOff, int]],
                               acc: Accuracy | None = None, *, name: str = "f") -> Composition:
    r"""The curve :math:`\min\{h, h^{-1}\}^{**}` of a mechanism whose two neighbouring
    orders compose to :math:`h = \bigotimes_i f_i^{\otimes n_i}` and to
    :math:`h^{-1} = \bigotimes_i (f_i^{-1})^{\otimes n_i}` (e.g. Poisson subsampling with
    add/remove neighbours, MATH.md §6): each order is composed separately and the two are
    symmetrised only at the end. Its profile is :math:`\max(\delta_h, \delta_{h^{-1}})`.

    Examples
    --------
    >>> import gdp
    >>> from gdp.engine.numeric import compose_numeric_two_orders
    >>> h = compose_numeric_two_orders([(gdp.G_mu(1.0), 4)])
    >>> round(h.epsilon(1e-5), 2) == round(gdp.G_mu(2.0).epsilon(1e-5), 2)
    True
    """
    acc, groups = _checked(groups, acc, name)
    f1 = _factors(groups)
    f2 = _factors([(f.inverse(), n) for f, n in groups])
    h1, m1, v1 = _plan_h(f1, acc)
    h2, m2, v2 = _plan_h(f2, acc)
    h = min(h1, h2)
    lo1, s1, up1, info = _one_order(f1, h, m1, v1, acc, name)
    lo2, s2, up2, _ = _one_order(f2, h, m2, v2, acc, _inv_label(name))
    lower = LazyCurve(thunk=lambda: hull_min_curves(lo1, lo2, name=name, symmetric=True),
                      name=name, symmetric=True)

    def upper_thunk() -> LossCurve:
        return hull_min_curves(up1(), up2(), name=name, symmetric=True)

    upper = LazyCurve(thunk=upper_thunk, name=name, symmetric=True)
    other = _LazyProfile(lambda: _CurveProfile(upper.get()))
    return Composition(lower=lower, upper=upper, name=name, symmetric=True,
                       sound=_Combine("max", s1, s2), other=other, info=info)
