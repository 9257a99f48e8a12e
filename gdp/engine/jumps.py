r"""Rare jumps: a power of a rarely sampled step, split by its number of large losses.

A composition of T rarely sampled steps (DP-SGD at :math:`p \le 10^{-5}`) has a privacy
loss that is a narrow bulk near 0 plus, now and then, one step's large loss. At
:math:`\delta \le 10^{-12}` the answer comes from such a jump, and no single tilt of the
composed law reaches it: the tilt that weights the jumps is overrun by the far tail of
every step, and the one the bulk allows leaves the jump's mass at the round-off of the
transforms (22% to 88% wide brackets at :math:`\sigma = 1/1.2`, :math:`p = 3\cdot10^{-6}`,
:math:`10^5`–:math:`10^7` steps, :math:`\delta \le 10^{-14}`).

**The split.** Cut the loss of one step at :math:`a` into the bulk :math:`B = \{L \le a\}`
and the jumps :math:`J = \{L > a\}`, of Q-mass :math:`m`. The hockey-stick divergence
:math:`\delta(\varepsilon) = \int (dQ^{\otimes T} - e^\varepsilon dP^{\otimes T})_+` is
additive over the :math:`2^T` disjoint regions that say which steps jumped, and on the
region of k given steps both measures are products of the restricted measures. With
:math:`\tilde Q_B = Q|_B/(1-m)`, :math:`\tilde P_B = P|_B/(1-m)` (and alike for J, divided
by m), whose likelihood ratio is still :math:`e^L`:

.. math:: \delta(\varepsilon) = (1-m)^T \tilde\delta_{B^{\otimes T}}(\varepsilon)
          + T m (1-m)^{T-1} \tilde\delta_{J \otimes B^{\otimes(T-1)}}(\varepsilon) + R,
          \qquad 0 \le R \le \binom{T}{2} m^2,

where :math:`\tilde\delta` is the profile :math:`E_{\tilde Q}[(1 - e^{\varepsilon - L})_+]`
of the restricted pairs' composition (:math:`\tilde Q` a probability, :math:`\tilde P` of
total mass near 1: the engine works with Q-laws and :math:`p = q e^{-t}`, which needs no
more) and R, the regions of two jumps or more, is at most their Q-mass (a union bound over
pairs). Each composition is answered by the engine in its own frames: the bulk's law ends
at a (its tilted law has no far tail), the jump term carries its jump in one factor. The
cut is set by :math:`\binom{T}{2} m^2 = 10^{-3}\delta`, so R costs a thousandth of δ.

**Both sides.** The sound side adds the engine's sound answers and R with the
coefficients rounded up; the other side adds the lower ends with the coefficients rounded
down and R = 0. For the other side the bulk's law ends in a point mass (:class:`_TopPoint`,
a garbling): the other side's lattice law balances each half-cell with its neighbours, and a
law that stops dead at a leaves the top half-cell with no lender, which pushed the bulk a
whole step down in every factor (measured: 7.6e-6 of the Q-mass lost per factor).

δ at a given ε is the bound itself (:meth:`JumpSplit.bound`, the cut set for the ordinary
answer's δ and, where the split's is below half of that, once more for its own). ε at a
given δ comes from a bracketing search on :math:`\log\delta` downwards from the ordinary
answer (:func:`split_epsilon`: a dozen profile evaluations at most, each next point from a
model of the two terms, most of them in frames already built); only a value whose bound is
certified is returned. The caller keeps the better of it and the ordinary answer on each
side, so no answer gets worse.

Imports: the ground floor, :mod:`gdp.core` and :mod:`gdp.engine.laws`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import EPS, bisect_bracket
from ..core.tradeoff import Bracketed, TradeOff
from .laws import Law

__all__ = ["RestrictedLaw", "JumpSplit", "jump_split", "split_delta", "split_epsilon"]

# the share of δ the regions of two jumps or more may take (R above)
_TWO_JUMPS_SHARE = 1e-3
# the lowest cut tried, as a share of the ordinary answer (jump_split)
_LOWEST_CUT = 0.03
# the points of each of the two grids the cut is chosen on (_cut)
_CUT_POINTS = 49
# the top slice of the bulk merged into a point mass on the other side, as a share of a
_TOP_SLICE = 1.0 / 64.0
# at most this many profile evaluations per side and question (split_epsilon)
_SEARCH_STEPS = 12
# the second ε of an evaluation going down, as a share of the first (split_epsilon)
_NEAR = 0.99
# the factor by which the jump term's step is refined, at most _HALVINGS times
# (split_epsilon, split_delta)
_JUMP_FINER = 0.5
_HALVINGS = 3
# the most halvings the other side takes where its lower end is still over 2 rtol below the
# sound answer (split_epsilon)
_HALVINGS_OTHER = 5
# the share of ``rtol`` the error left after the jump term's last halving may take
# (split_epsilon, split_delta): composed in blocks (gdp.engine.coarsening) a halving costs
# about 10 ms at 10⁶ steps, against 0.2-1 s in one level, where the aim was all of rtol
_JUMP_AIM = 0.5
# the largest relative error of the jump term's sound δ at its planned step (_jump_move):
# from the planned step to an eighth of it, 0.5% to 204% at σ = 1/1.2, p = 3e-6, 10⁴ to
# 10⁷ steps, δ = 1e-15 to 1e-12 (measured: 204% at 10⁷ steps, δ = 1e-12, 63% at 1e-15)
_JUMP_ERROR = 2.0


class RestrictedLaw(Law):
    r"""A law restricted to the losses in ``(lo, hi]``, both measures divided by the
    Q-mass ``m`` there: :math:`\tilde Q = Q|_{(lo, hi]}/m` (a probability),
    :math:`\tilde P = P|_{(lo, hi]}/m` (likelihood ratio :math:`e^L` as before).

    ``m`` is known within ``em`` (absolute); the cells' masses and excesses carry its
    relative error :math:`\rho = e_m/(m - e_m) + 2u` on top of their own bounds, scaled
    by :math:`1/(m - e_m)`. Laws with atoms or mass at :math:`\pm\infty` are not
    restricted (:func:`jump_split` declines them).
    """

    def __init__(self, base: Law, lo: float, hi: float, m: float, em: float):
        self.base, self.lo, self.hi = base, lo, hi
        self.m, self.em = m, em
        self._ml = m - em
        self._rho = em / self._ml + 2.0 * EPS

    def _edges(self, edges: np.ndarray) -> np.ndarray:
        return np.clip(np.asarray(edges, dtype=float), self.lo, self.hi)

    def cells(self, edges):
        P, Q, EP, EQ = self.base.cells(self._edges(edges))
        P, Q = P / self.m, Q / self.m
        return P, Q, EP / self._ml + self._rho * P, EQ / self._ml + self._rho * Q

    def excess(self, edges, refs):
        P, Q, EP, EQ, X, EX = self.base.excess(self._edges(edges), refs)
        P, Q, X = P / self.m, Q / self.m, X / self.m
        return (P, Q, EP / self._ml + self._rho * P, EQ / self._ml + self._rho * Q,
                X, EX / self._ml + self._rho * np.abs(X))

    def _cellwise(self):
        return self.base._cellwise()

    def quantiles(self, tol):
        # (the Q-upper end as low as the base can tell, :meth:`~gdp.engine.laws.Law.q_upper`:
        # the jumps of a rarely sampled step at 10⁷ steps, δ = 1e-14, end at a loss of 1.45
        # instead of 2.83, and at 0.61 with the jump term's share of the tolerance, where
        # their frames hold a fifth of the points they held)
        ql, qh, pl, ph = self.base.quantiles(tol * self.m)
        qh = min(qh, self.base.q_upper(tol * self.m))
        return tuple(min(max(v, self.lo), self.hi)  # type: ignore[return-value]
                     for v in (ql, qh, pl, ph))

    def plan_atoms(self, m=2048):
        if math.isinf(self.hi):
            # (the jumps: the base's planning atoms end at its own quantiles at 1e-30,
            # 2e-16 of the jumps' mass at 10⁶ steps, δ = 1e-14, where the frames' windows
            # reach far lower; the tilt planned on them then sat where the frames' tilted
            # law has run to its window's end, e^K = 350 times the planned, and every frame
            # went to long double: the law's own cells, between its own quantiles)
            return Law.plan_atoms(self, m)
        u, p, q = self.base.plan_atoms(m)
        k = (u > self.lo) & (u <= self.hi)
        return u[k], p[k] / self.m, q[k] / self.m


class _TopPoint(RestrictedLaw):
    r"""The other side's law of a bulk restricted to :math:`(-\infty, a]`: the slice
    :math:`(a - w, a]` merged into one point mass, carried in the cells (a garbling: its
    profile is below the restriction's at every ε).

    The point has Q-mass :math:`q_w` at most the slice's (its lower error bound) and loss
    :math:`u_w` at most the slice's merged loss :math:`\log(Q_w/P_w)` (from the slice's
    upper P bound, rounded down), with :math:`p_w = q_w e^{-u_w}`; then
    :math:`q_w(1 - e^{\varepsilon - u_w})_+ \le Q_w(1 - e^{\varepsilon - \bar u})_+ \le
    \int_{\rm slice}(dQ - e^\varepsilon dP)_+` (Jensen). Not an atom of the law: the lattice
    offset of the other side is the bulk's (:func:`~gdp.engine.planning._other_offset`),
    not this point's.
    """

    def __init__(self, bulk: RestrictedLaw, w: float):
        super().__init__(bulk.base, bulk.lo, bulk.hi - w, bulk.m, bulk.em)
        P, Q, EP, EQ = bulk.base.cells(np.array([bulk.hi - w, bulk.hi]))
        qw = float(Q[0] - EQ[0]) * (1.0 - 4.0 * EPS) / (bulk.m + bulk.em)
        pw = float(P[0] + EP[0]) * (1.0 + 4.0 * EPS) / self._ml
        self.qw = max(qw, 0.0)
        u = min(math.log(qw) - math.log(pw), bulk.hi) if qw > 0.0 and pw > 0.0 else bulk.hi
        self.uw = u - 4.0 * EPS * (1.0 + abs(u))
        self.pw = self.qw * math.exp(-self.uw)

    def _cell(self, edges: np.ndarray) -> int | None:
        i = int(np.searchsorted(edges, self.uw, side="left")) - 1
        return i if 0 <= i < edges.size - 1 and self.qw > 0.0 else None

    def cells(self, edges):
        edges = np.asarray(edges, dtype=float)
        P, Q, EP, EQ = super().cells(edges)
        i = self._cell(edges)
        if i is not None:
            P[i] += self.pw
            Q[i] += self.qw
            EP[i] += 4.0 * EPS * P[i]
            EQ[i] += 4.0 * EPS * Q[i]
        return P, Q, EP, EQ

    def excess(self, edges, refs):
        edges = np.asarray(edges, dtype=float)
        P, Q, EP, EQ, X, EX = super().excess(edges, refs)
        i = self._cell(edges)
        if i is not None:
            xw = -self.qw * math.expm1(float(np.asarray(refs, dtype=float)[i]) - self.uw)
            P[i] += self.pw
            Q[i] += self.qw
            X[i] += xw
            EP[i] += 4.0 * EPS * P[i]
            EQ[i] += 4.0 * EPS * Q[i]
            EX[i] += 4.0 * EPS * (Q[i] + abs(X[i]) + abs(xw))
        return P, Q, EP, EQ, X, EX

    def _cellwise(self):
        return False  # (the point lands in one cell of the whole run of edges)

    def quantiles(self, tol):
        ql, qh, pl, ph = super().quantiles(tol)
        return (ql, max(qh, self.uw) if self.qw > tol else qh, pl,
                max(ph, self.uw) if self.pw > tol else ph)

    def plan_atoms(self, m=2048):
        u, p, q = super().plan_atoms(m)
        return (np.concatenate([u, [self.uw]]), np.concatenate([p, [self.pw]]),
                np.concatenate([q, [self.qw]]))


class _OfLaw(TradeOff):
    """A trade-off function known to the engine only by its law (a restricted part)."""

    __slots__ = ("law",)

    def __init__(self, law: Law):
        object.__setattr__(self, "law", law)

    def _pld_law(self) -> Law:
        return self.law

    @property
    def is_symmetric(self) -> bool:  # type: ignore[override]
        return False


def _power(m: float, n: int, up: bool) -> float:
    r""":math:`(1 - m)^n` rounded to the side: ``exp(n log1p(-m))`` errs by at most
    :math:`3u\,nm + 2u` relative (log1p, the product, exp's argument and result)."""
    v = math.exp(n * math.log1p(-m))
    r = 4.0 * EPS * (1.0 + n * m)
    return v * (1.0 + r) if up else v * (1.0 - r)


@dataclass(frozen=True, slots=True)
class JumpSplit:
    r"""The split of :math:`f^{\otimes n}` at the loss ``a`` (module docstring): the parts'
    trade-off functions, the cut's Q-mass ``m`` within ``em``, and the coefficients of the
    two terms and the bound on R, each rounded up (sound side) and down (other side)."""

    a: float
    m: float
    em: float
    n: int
    bulk: TradeOff
    jump: TradeOff

    def bound(self, side: str, bulk_delta: float, jump_delta: float) -> float:
        """The profile of the composition from the two parts' profiles at one ε: an upper
        bound from their sound answers (``side='pess'``), a lower one from their lower
        ends (``'opt'``)."""
        n, up = self.n, side == "pess"
        lo_m, hi_m = self.m - self.em, self.m + self.em
        mb = lo_m if up else hi_m          # (1 - m)^k is largest at the smallest m
        mj = hi_m if up else lo_m
        c_bulk = _power(mb, n, up)
        c_jump = n * mj * _power(mb, n - 1, up) * ((1.0 + 2.0 * EPS) if up else
                                                   (1.0 - 2.0 * EPS))
        total = c_bulk * bulk_delta + c_jump * jump_delta
        if up:
            total += 0.5 * n * (n - 1) * hi_m * hi_m * (1.0 + 8.0 * EPS)
            return total * (1.0 + 4.0 * EPS)
        return total * (1.0 - 4.0 * EPS)


def jump_split(law: Law, n: int, delta: float, below: float) -> JumpSplit | None:
    r"""The split of the n-th power of ``law`` for ε at ``delta``: the cut a where the
    jumps' Q-mass m meets :math:`\binom{n}{2}m^2 = 10^{-3}\delta`; None where it cannot
    help: a law with atoms or mass at :math:`\pm\infty`, fewer than two factors, a cut
    not below half of ``below`` (the ordinary answer: the jumps beyond a then matter only
    as their total mass), or below 3% of it (the steps beyond such a cut are many and the
    jump term is the ordinary problem again: on both seeded scans of the box the split
    gained nothing below 5% but cost up to 3 s, and gained 0.04% to 1.4% where the cut
    was at 0.15 of the answer or more; the ordinary answer can be several times the
    truth, 0.48 against 0.124 at σ = 1/1.2, p = 3e-6, 10^7 steps, δ = 1e-15, where the cut
    is at 0.055 of it)."""
    if n < 2 or law.q_inf > 0.0 or law.p_ninf > 0.0 or law.atoms()[0].size \
            or not (0.0 < below < math.inf):
        return None
    target = math.sqrt(2.0 * _TWO_JUMPS_SHARE * delta / (n * (n - 1.0)))
    a = _cut(law, _LOWEST_CUT * below, 0.5 * below, target)
    if a is None:
        return None
    _, Q, _, EQ = law.cells(np.array([a, np.inf]))
    m, em = float(Q[0]), float(EQ[0])
    if not (m > 0.0 and em < 0.5 * m):
        return None
    bulk = RestrictedLaw(law, -math.inf, a, 1.0 - m, em + EPS)
    jump = RestrictedLaw(law, a, math.inf, m, em)
    bulk_f = Bracketed(lower=_OfLaw(bulk), upper=_OfLaw(_TopPoint(bulk, _TOP_SLICE * a)))
    return JumpSplit(a=a, m=m, em=em, n=n, bulk=bulk_f, jump=_OfLaw(jump))


def _cut(law: Law, lo: float, hi: float, target: float) -> float | None:
    r"""The least point of a geometric grid on ``[lo, hi]`` where the Q-mass above it,
    rounded up by its error bound, is at most ``target``; None where that holds at ``lo``
    already or not even at ``hi``. A second grid inside the interval the first found puts
    the cut within 0.13% above the boundary (:data:`_CUT_POINTS` points each, over a ratio
    ``hi/lo = 1/(2 \cdot 0.03)``), for two evaluations of the law's cells where a
    bisection to that precision took a dozen. Only the cut's place depends on it: its
    masses are computed at it afterwards."""
    def below_target(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
        t = np.geomspace(lo, hi, _CUT_POINTS)
        _, Q, _, EQ = law.cells(np.append(t, np.inf))
        return t, np.flatnonzero(np.cumsum((Q + EQ)[::-1])[::-1] <= target)

    t, ok = below_target(lo, hi)
    if ok.size == 0 or ok[0] == 0:
        return None
    t, ok = below_target(float(t[ok[0] - 1]), float(t[ok[0]]))
    return float(t[ok[0]] if ok.size else t[-1])


def _model_root(split: JumpSplit, side: str, target: float,
                a: tuple[float, float, float], b: tuple[float, float, float],
                floor: float) -> float | None:
    r"""The ε in ``[floor, max(a[0], b[0])]`` where the bound reaches ``target`` if each
    part's profile falls log-linearly through its values at the two points ``a`` and ``b``
    (each ``(ε, bulk, jump)``): :math:`v(\varepsilon) = v_b e^{r(\varepsilon -
    \varepsilon_b)}`, :math:`r = \log(v_b/v_a)/(\varepsilon_b - \varepsilon_a)`, raised
    to 0 where it rises. ``floor`` where the model's bound is still at most ``target``
    there; None where a part is 0 or infinite at one point only. A model for the search's
    next point, nothing more: the bound is a sum of two terms falling at their own rates
    (the bulk's, steep, and the jump term's, flat), which a secant on its logarithm
    overshoots: from 0.148 and 0.143 it went to 0.072 for a root at 0.117 (σ = 1/1.2,
    p = 3e-6, 10⁷ steps, δ = 1e-14), a frame of half a million points for that value
    alone."""
    (ea, *va), (eb, *vb) = a, b
    if ea == eb:
        return None
    rates: list[float] = []
    for x, y in zip(va, vb, strict=True):
        if x == y == 0.0:
            rates.append(0.0)
        elif 0.0 < x < math.inf and 0.0 < y < math.inf:
            rates.append(min(math.log(y / x) / (eb - ea), 0.0))
        else:
            return None

    def low(e: Any) -> bool:  # (the model's bound at most target: decreasing in ε)
        e = float(e)
        return split.bound(side, *(v * math.exp(min(r * (e - eb), 700.0))
                                   for v, r in zip(vb, rates, strict=True))) <= target

    top = max(ea, eb)
    if low(floor):
        return floor
    if not low(top):
        return None
    return float(bisect_bracket(low, floor, top, rtol=1e-7)[1])


def split_epsilon(split: JumpSplit, delta: float, side: str, start: float,
                  profiles: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]],
                  rtol: float = 0.0, halvings: int | None = None,
                  report: dict[str, int] | None = None) -> float | None:
    r"""ε at ``delta`` from the split, on one side: the sound side returns an ε whose
    bound :meth:`JumpSplit.bound` is at most δ, the other side one whose lower bound is
    above δ (so the true ε lies above it); None where the search certifies none.

    ``profiles`` are the two parts' profiles, the bulk's and the jump term's: each
    ``(side, eps)`` gives δ at a list of ε, in the frames planned for the first; the jump
    term's takes a third argument, the frames' step as a multiple of the planned one. The
    search (:func:`_search`) runs in the planned frames, then again in the jump term's
    frames of a finer step.

    **The jump term's step.** A δ question's planned step does not refine, and the jump
    term's error in it is large: its step rule assumes each factor's law is resolved by the
    lattice, and each of T rarely sampled bulks is narrower than the step (10⁷ steps, δ =
    1e-14: the jump term's sound δ fell from 2.7e-7 at the planned step to 1.6e-7, 1.45e-7
    and 1.40e-7 at a half, a quarter and an eighth of it). Where a finer step could move
    the answer by over ``rtol`` of it (:func:`_jump_move`: the jump term's share of the
    bound times its largest error at the planned step, over the bound's log-slope), the
    sound side searches again from its answer (or from ``start`` where the planned step
    certified nothing below it, while the bound at ``start`` falls fast enough that the
    rest of its fall could take it to δ, by a move of ε over ``rtol`` of ``start`` at the
    bound's log-slope there; the rest is the last fall again, as for a first-order error,
    or less where two falls shrank faster, at their ratio: at σ = 0.547, p = 5.9e-6,
    98,632 steps, δ = 1.4e-11 three halvings certified nothing, for 0.7 s; at σ = 0.660,
    p = 2.0e-6, 4.25M steps, δ = 5.55e-9 the falls shrank 3.1 times and a third halving of
    0.45 s gained 0.0002%) at :math:`k = 1/2, 1/4, \dots` of the step, at
    most ``halvings`` times (default ``_HALVINGS``, 3), while the error left after a move
    m (:func:`_left_after`: of the first order, :math:`m k/(1-k)`, unless the last two
    moves shrank over 3 times) is over ``_JUMP_AIM`` ``rtol`` of the answer, stopping where a finer
    step's answer is no better; ``report``, where given, gets ``"halvings"``, the number of
    the last that bettered it (0 for none). The other side searches again where ``halvings``
    (the sound side's count, in the engine) is 1 or more, or by default where
    :func:`_jump_move` says so: at the sound side's count of halvings and at ``_HALVINGS``,
    then one halving finer at a time, up to ``_HALVINGS_OTHER`` (5): the first ones only
    while its answer is over ``rtol`` below ``start`` (the sound answer), the finer ones
    while it is over 2 ``rtol`` below (σ = 0.557, p = 8.4e-6, 2.3M steps, δ = 7.5e-13: the
    planned step's lower end lay 1.5e-4 below the sound answer, and searches at a quarter
    and an eighth of the step raised it by 4e-5 in 6 s). Its lower ends are not monotone in
    the step and are poor until the step resolves one factor's bulk (10⁶ steps, δ = 1e-15:
    the jump term's lower δ was 6.75e-7, 6.39e-7, 6.53e-7 and 7.02e-7 at 1 to 1/8 of the
    step, the sound one 7.05e-7 at 1/8; on ten runs of σ = 1/1.2, p = 3e-6 from 10⁴ to 10⁷
    steps the lower δ at 1/8 was within 3% of the sound one, at 1/4 up to 51% below; at σ =
    0.83, p = 1.2e-6, 441,888 steps, 10% below at 1/8 and 0.5% at 1/16). The best answer of
    each side is returned (each is a bound on its side).

    **Giving up.** The sound side first asks the bulk alone (its frames are small; the
    jump term's at 10⁷ steps take a second), at ``start`` and 0.99 of it, and gives up
    where the root of the model with the jump term taken as 0 (:func:`_model_root`), the
    lowest the split could reach, lies less than ``rtol``/2 of it below ``start``: there
    the bulk alone is already near δ (a cut at a few per cent of ε, where the jumps are
    many). The bulk's log-profile falls about as fast on the interval below as on the one
    measured (its curvature moves the root found by a factor 1 + g/120 or so at
    δ ≤ 1e-11, g the log of δ over the bulk's bound): rules for speed, not for
    soundness."""
    bulk, jump = profiles
    if side == "pess":
        pair = [start, _NEAR * start]
        ends = [(x, float(b), 0.0) for x, b in zip(pair, bulk(side, pair), strict=True)]
        floor = _model_root(split, side, delta, ends[1], ends[0], 0.5 * start)
        if floor is None or not floor < start - 0.5 * rtol * start:
            return None
    best = _search(split, delta, side, start, (bulk, jump))
    if report is not None:
        report["halvings"] = 0
    steps = _halvings(side, halvings)
    if not steps or side == "opt" and best is None:
        return best
    # (where the engine gives the other side the sound side's count, that side has judged;
    # else both judge by the sound side's profiles at its answer, in the frames planned
    # there, which its search built)
    at = start if side == "opt" or best is None else best
    if (side == "pess" or halvings is None) and \
            not _jump_move(split, at, profiles) > rtol * at:
        return best

    def search(n: int, at: float) -> float | None:
        return _search(split, delta, side, at,
                       (bulk, lambda sd, es, k=_JUMP_FINER ** n: jump(sd, es, k)))

    if side == "opt":
        # (the named steps while the bracket is over rtol wide, then finer ones while it
        # is over 2 rtol wide)
        for n in (*steps, *range(steps[-1] + 1, _HALVINGS_OTHER + 1)):
            if best >= (1.0 - (2.0 if n > steps[-1] else 1.0) * rtol) * start:
                break
            w = search(n, start)
            best = best if w is None else max(best, w)
        return best

    def at_start(n: int) -> float:  # (the bound at start, in frames the search built)
        return split.bound(side, float(bulk(side, [start])[0]),
                           float(jump(side, [start], _JUMP_FINER ** n)[0]))

    @functools.cache
    def slope() -> float:  # (the bound's log-slope at start, in the planned frames)
        _, _, _, rise = _near_pair(split, side, start, profiles)
        return rise / ((1.0 - _NEAR) * start) if rise > 0.0 else 0.0

    last = at_start(0) if best is None else math.nan
    fall = math.nan  # (the bound's last fall at start)
    moved = math.nan  # (the last halving's move of the answer)
    for n in steps:
        w = search(n, at)
        # (a finer step whose answer is no better ends it, as in the engine's own
        # refinement; where the planned step certified nothing below start, the next,
        # while the bound at start falls fast enough that falling as much again, as a
        # first-order error would, could take it to δ, and reaching that limit would
        # move ε by over rtol of start)
        if best is None and w is None:
            now = at_start(n)
            # (the falls shrink by a ratio r, 2 for a first-order error; where two falls
            # show a faster ratio, that one: the rest of the fall is fall / (r - 1))
            r = fall / (last - now) if last > now else math.nan
            lim = now - (last - now) / (max(r, 2.0) - 1.0 if r == r else 1.0)
            if not lim <= delta or 0.0 < lim and \
                    not math.log(delta / lim) > rtol * start * slope():
                break
            fall, last = last - now, now
            continue
        if w is None or best is not None and not w < best:
            break
        if report is not None:
            report["halvings"] = n
        move = best - w if best is not None else math.inf
        left = _left_after(move, moved)
        best = at = w
        moved = move
        if not left > _JUMP_AIM * rtol * at:
            break
    return best


def _left_after(move: float, before: float) -> float:
    r"""The error left after a refinement of the jump term's step moved an answer by
    ``move``, the one before having moved it by ``before`` (NaN or inf for none): of the
    first order, the rest of the moves :math:`m k/(1-k)` (``k = _JUMP_FINER``, m where
    k = 1/2); where the two moves shrank by a ratio r over 3, twice :math:`m/(r - 1)`,
    the rest of moves shrinking by r taken with a margin of 2 (a ratio read off two
    moves). σ = 1/1.2, p = 3e-6, 10⁷ steps, δ = 1e-15: moves of 6.9e-4 and 1.4e-4, a
    ratio of 4.9, put at 7.2e-5 against 1.4e-4, under ``rtol`` of the answer (1.24e-4):
    the next halving, 0.35 s in long double, moved it 3.6e-5. A rule for speed: every
    answer is a bound."""
    if not 0.0 < move < math.inf:
        return move if move == math.inf else 0.0
    left = move * _JUMP_FINER / (1.0 - _JUMP_FINER)
    if 0.0 < before < math.inf and before > 3.0 * move:
        left = min(left, 2.0 * move / (before / move - 1.0))
    return left


def split_delta(split: JumpSplit, side: str, eps: float,
                profiles: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]],
                rtol: float, halvings: int | None = None,
                report: dict[str, int] | None = None, sound: float = 0.0) -> float:
    r"""δ at ``eps`` from the split on one side (:meth:`JumpSplit.bound` of the parts'
    profiles), with the jump term's step refined as for ε (:func:`split_epsilon`): the
    sound side at half, a quarter, … of the planned step, at most ``halvings`` times
    (default ``_HALVINGS``), while the jump term's share of δ, times ``_JUMP_ERROR``, could
    exceed ``rtol`` of ε in δ, i.e. ``rtol`` ε times the log-slope of the bound (from
    ``eps`` and 0.99 of it; ``rtol`` of δ where ε is 0 or the slope is not negative), and
    then while the error left after the last move could exceed ``_JUMP_AIM`` of that,
    stopping where a finer step's bound is no better; the
    other side at the steps :func:`_halvings` names, then one halving finer at a time, up
    to ``_HALVINGS_OTHER``, each only while its bound is below ``sound`` (the sound side's
    answer; 0, the default, asks for the named steps alone) by a factor over
    :math:`e^{\mathrm{tol}}` (the named steps) or :math:`e^{2\,\mathrm{tol}}` (the finer
    ones), tol the move of log δ that ``rtol`` of ε makes. The best bound of each side is
    returned. ``halvings`` and ``report`` as in :func:`split_epsilon` (the other side's
    bound at 10⁶ steps, ε = 0.0529, was lower at half the step and 11% higher at a
    quarter; at σ = 0.714, p = 1.3e-6, 1.46M steps, ε = 0.0563, the jump term's was 4.1%
    below the sound one at an eighth of the step, 1.0% at a sixteenth)."""
    jump = profiles[1]
    bulk, v, share, rise = _near_pair(split, side, eps, profiles)
    if report is not None:
        report["halvings"] = 0
    steps = _halvings(side, halvings)
    tol = rtol * rise / (1.0 - _NEAR) if rise > 0.0 else rtol
    if not steps or (side == "pess" or halvings is None) and not share * _JUMP_ERROR > tol:
        return v

    def halved(n: int) -> float:  # (the bound with the jump term at n halvings of the step)
        return split.bound(side, bulk, float(jump(side, [eps], _JUMP_FINER ** n)[0]))

    if side == "opt":
        # (the named steps while the bound is over e^tol below the sound one, then finer
        # ones while it is over e^(2 tol) below)
        for n in (*steps, *range(steps[-1] + 1, _HALVINGS_OTHER + 1)):
            finer = n > steps[-1]
            if v * math.exp((2.0 if finer else 1.0) * tol) >= sound and (sound > 0.0 or finer):
                break
            v = max(v, halved(n))
        return v
    for n in steps:
        w = halved(n)
        if not w < v:  # (no better: as in split_epsilon)
            break
        if report is not None:
            report["halvings"] = n
        left = math.log(v / w) * _JUMP_FINER / (1.0 - _JUMP_FINER) if w > 0.0 else 0.0
        v = w
        if not left > _JUMP_AIM * tol:
            break
    return v


def _halvings(side: str, halvings: int | None) -> tuple[int, ...]:
    """The numbers of halvings of the jump term's step a side tries, in order: the sound
    side 1, 2, … up to ``halvings`` (default ``_HALVINGS``); the other side, given the
    sound side's count, that count and ``_HALVINGS`` where it is 1 or more, else none
    (by default ``_HALVINGS``): its lower ends are not monotone in the step
    (:func:`split_epsilon`)."""
    if side == "pess":
        return tuple(range(1, (_HALVINGS if halvings is None else halvings) + 1))
    if halvings is None:
        return (_HALVINGS,)
    return tuple(sorted({halvings, _HALVINGS})) if halvings >= 1 else ()


def _jump_move(split: JumpSplit, at: float,
               profiles: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]
               ) -> float:
    r"""The most a finer step could move the sound answer ``at`` through the jump term: its
    share s of the sound bound there times ``_JUMP_ERROR``, over the bound's log-slope
    :math:`|d\log\mathrm{bound}/d\varepsilon|` (from ``at`` and 0.99 of it, in the frames
    planned for ``at``); inf where the slope is not negative."""
    _, _, share, rise = _near_pair(split, "pess", at, profiles)
    if not rise > 0.0:
        return math.inf
    return share * _JUMP_ERROR / (rise / ((1.0 - _NEAR) * at))


def _near_pair(split: JumpSplit, side: str, at: float,
               profiles: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]
               ) -> tuple[float, float, float, float]:
    """The parts asked at ``at`` and 0.99 of it, in the frames planned for ``at``: the
    bulk's profile at ``at``, the bound there, the jump term's share of it (0 where the
    bound is 0) and the log of the bound's rise to 0.99 of ``at`` (NaN where it does not
    rise from a positive bound)."""
    es = [at, _NEAR * at]
    b, j = (f(side, es) for f in profiles)
    top, low = (split.bound(side, float(b[i]), float(j[i])) for i in (0, 1))
    share = 1.0 - split.bound(side, float(b[0]), 0.0) / top if top > 0.0 else 0.0
    rise = math.log(low / top) if top > 0.0 and low > top else math.nan
    return float(b[0]), top, share, rise


def _search(split: JumpSplit, delta: float, side: str, start: float,
            profiles: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]
            ) -> float | None:
    r"""The search of :func:`split_epsilon` with the two parts' ``profiles``. With
    :math:`g(\varepsilon) = \log \mathrm{bound} - \log\delta`, which decreases in ε: from
    ``start`` (where :math:`g \le 0` on the sound side) a search downwards for a point with
    :math:`g > 0`, then inside the bracket; at most twelve profile evaluations.

    Each next point is the root of a model in which each part falls log-linearly through
    two points (:func:`_model_root`; the bound is a sum of two terms falling at their own
    rates, which a secant on its logarithm overshoots). Going down, the two are an ε and
    0.99 of it asked together, in one frame: that gives the local rates without a frame
    planned for a value of its own (at 10⁷ steps each of the jump term's costs half a
    second); the next point lies past the model's root by 5% of the step, at most
    halving ε. Inside the bracket the model runs through its ends and the next point lies
    1e-5 of ε past its root towards the end returned (the upper on the sound side, the
    lower on the other); where the model fails, or an end has been kept twice, the
    bracket's midpoint. The search ends where the bracket is 2e-5 of ε wide (a fiftieth
    of the default ``rtol``), or 5% wide with the model's root within 2e-5 of ε of the
    end returned (the model is exact at the ends, so its root is near one only where g
    is near 0 there). The sound side gives up where :math:`g > 0` at ``start``, and
    returns None where it found nothing below ``start``."""
    log_delta = math.log(delta)
    n_eval = 0
    seen: dict[float, tuple[float, float, float]] = {}
    # (the bracket: the highest ε with g > 0 and the lowest with g <= 0 seen so far)
    lo: float | None = None
    hi: float | None = None

    def ask(es: list[float]) -> bool:
        """The profiles at ``es`` (one frame); True where g > 0 at the first."""
        nonlocal n_eval, lo, hi
        n_eval += 1
        parts = [at(side, es) for at in profiles]
        above = []
        for i, x in enumerate(es):
            b, j = (float(v[i]) for v in parts)
            seen[x] = (x, b, j)
            v = split.bound(side, b, j)
            gx = math.log(v) - log_delta if v > 0.0 else -math.inf
            above.append(gx > 0.0)
            if gx > 0.0 and (lo is None or x > lo):
                lo = x
            elif not gx > 0.0 and (hi is None or x < hi):
                hi = x
        return above[0]

    pair = [start, _NEAR * start]
    if ask(pair):
        return None
    while lo is None and hi is not None and n_eval < _SEARCH_STEPS:  # downwards
        root = _model_root(split, side, delta, seen[pair[0]], seen[pair[1]], 0.5 * hi)
        e = max(hi - 1.05 * (hi - root), 0.5 * hi) if root is not None and root < hi \
            else 0.7 * hi
        if not e > 0.0:
            break
        pair = [e, _NEAR * e]
        ask(pair)
    if lo is None or hi is None:
        return hi if side == "pess" and hi is not None and hi < start else None
    kept_lo, kept_hi = 0, 0   # (how many times running each end was kept)
    while n_eval < _SEARCH_STEPS and hi - lo > 2e-5 * hi:
        c = None
        if max(kept_lo, kept_hi) < 2:
            c = _model_root(split, side, delta, seen[lo], seen[hi], lo)
            if c is not None:
                # (the end this side returns, and the model's root within 2e-5 of it)
                if (hi - c if side == "pess" else c - lo) <= 2e-5 * hi \
                        and hi - lo <= 0.05 * hi:
                    break
                c += 1e-5 * hi if side == "pess" else -1e-5 * hi
        if c is None:
            c = 0.5 * (lo + hi)
        c = min(max(c, lo + 0.01 * (hi - lo)), hi - 0.01 * (hi - lo))
        if ask([c]):
            kept_lo, kept_hi = 0, kept_hi + 1
        else:
            kept_hi, kept_lo = 0, kept_lo + 1
    return hi if side == "pess" else lo
