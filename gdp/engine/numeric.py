r"""The numeric composition engine: plan the frames, discretise, compose, answer.

:class:`_Engine` holds the factors ``[(f, n), ...]`` of a composition and answers each
question in a frame chosen for it (:mod:`gdp.engine.fourier`, :mod:`gdp.engine.frames`):

1. *Tilt.* For ε at δ, the tilt :math:`\lambda^*` minimises the moment bound
   :math:`\varepsilon \le (K(\lambda) + c(\lambda) - \log(\delta - Q[S=\infty]))/\lambda`,
   :math:`c(\lambda) = \lambda\log\lambda - (1+\lambda)\log(1+\lambda)` (from :math:`(1 -
   e^{-u})_+ \le e^{\lambda u}\lambda^\lambda/(1+\lambda)^{1+\lambda}`); for δ at ε it
   minimises :math:`K(\lambda) - \lambda\varepsilon + c(\lambda)`. There the tilted law is
   centred at the answer and the answer's round-off is relative to it.
2. *Step.* Connect-the-dots spreads each factor's loss by a two-point variable of variance
   at most :math:`h^2/4` (about :math:`h^2/6` on average); in the tilted frame the composed
   spread :math:`W \approx N_f h^2/6` (:math:`N_f` factors) shifts ε by about
   :math:`\lambda^* W` (for a Gaussian loss :math:`\mu^2 \mapsto \mu^2 + W` moves ε by
   :math:`W(z + \mu)/2\mu \approx \lambda^* W`). The step solves :math:`\lambda^* W =
   \mathrm{rtol}\cdot\max(\varepsilon, 1/\lambda^*)/2`, on a grid :math:`h_0 2^{j/4}` (so
   that nearby questions share a frame), capped by the tilted spread. This is a heuristic
   for accuracy only: every answer is sound whatever the step, and the other side of the
   bracket reports how close it is.
3. *Frame.* The factors' lattice laws (each order's from its own laws, a symmetric factor's
   serving both; :mod:`gdp.engine.lattice`) are tilted and composed on the window where the
   tilted law lives (Chernoff, tilted mass :math:`10^{-8}` outside each end,
   :math:`10^{-30}` for the second frame of rare-event questions); the profile and its
   inversion follow with every allowance charged (:mod:`gdp.engine.frames`).

Each answer depends only on the question (no state carries from one question to the next),
so answers are reproducible bit for bit whatever was asked before; frames are cached.
The curves ``lower``/``upper`` come from the untilted frame (:math:`\lambda = 0`, window at
``tail_mass``).

Imports: the ground floor, :mod:`gdp.core` and the modules of :mod:`gdp.engine` below it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import EPS, bisect_bracket
from .._validation import check_bool, check_count, check_instance, check_str
from ..core.tradeoff import TradeOff
from .batch import _disc_opt_batch, _disc_pess_batch, _plan_batch
from .coarsening import _block, _block_kgf, _other_block, _other_list_block, _OtherBlock
from .curves import LossCurve, _inv_label, hull_min_curves
from .fourier import (
    _DOUBLE,
    _EXTENDED,
    _EXTENDED_GAINS,
    _KGF,
    _Bounds,
    _compose,
    _ends,
    _four_heaviest,
    _guided_window,
    _increasing_root,
    _kept_window,
    _lattice_atoms,
    _span,
    _tails,
    _tilt_many,
    _Tilted,
    _window,
)
from .frames import _c, _Frame, _frame_curve, _log_moment_bound
from .jumps import JumpSplit, jump_split, split_delta, split_epsilon
from .lattice import _charged_beyond, _disc_opt, _disc_pess, _Lat
from .laws import InverseLaw, Law
from .planning import (
    _FACTOR_CAP,
    _LOG_ETA,
    _LOG_ETA_WIDE,
    _STEPS_PER_OCTAVE,
    _TILTS_PER_OCTAVE,
    _batch_groups,
    _charges_at_once,
    _Factor,
    _factors,
    _gauss_eps,
    _offset,
    _offsets_at_once,
    _other_offset,
    _pile_top,
    _plan_atoms,
    _quantise,
    _window_of,
)
from .result import Composition, GridInfo, LazyCurve, _Combine, _LazyProfile
from .settings import Accuracy

__all__ = ["compose_numeric", "compose_numeric_two_orders"]

# cells of the grid on which order -1's moment bound is tried first (_Engine._grid_law)
_MOMENT_CELLS = 2048
# the largest frame the other side's narrowing builds (_Engine.narrow): a bracket 1.44% wide
# at sigma=0.679, p=7.3e-6, T=2 narrowed to 1.10% with a frame of 1.2 million points, in 4.4 s
_NARROW_POINTS = 1 << 19
# the width of a DP-SGD bracket the default accuracy aims at (relative to the sound end)
_BRACKET_WIDTH = 5e-3
# the width over which the other side's narrowing halves its step at the default accuracy
# (_Engine.narrow; in proportion to rtol below it)
_NARROW_GAP = 4e-3
# the most groups of factors whose other side's ε is narrowed (_Engine.narrow; once above
# _FEW_GROUPS): a list of 100 mixed mechanisms, its bracket 0.61% wide at the planned step,
# 0.32% at half of it, for 0.06 s against 0.07 s of the sound answer; at 1,000 (0.69% ->
# 0.31%) the halved frame of a thousand lattices took 1.0 s against 0.53 s
_NARROW_GROUPS = 256
# the doublings of the other side's step tried after its halvings in lists of two groups or
# more (_Engine._coarser)
_COARSER_STEPS = 3
# the most halvings of a δ question's planned step (_Engine._refine_delta), and the largest
# frame they build, past _NARROW_POINTS only while the error estimated is over ten times
# the tolerance: at 2**19 points σ = 0.608, p = 1.1e-6, 9.8M steps, ε = 0.0272 stopped at
# 1.22e-4, its error estimated at a third of that, where the engine's ε answers put δ in
# (6e-5, 8e-5] (8.7e-5 now); past it at any estimate (tried first), answers of the box and
# the rare-jump scans paid 0.15-0.2 s for under 0.05%, and one still does (σ = 0.92,
# p = 3.1e-6, 2M steps, ε = 0.074: 1.03 → 1.15 s for 0.04%)
_DELTA_HALVINGS = 4
_DELTA_POINTS = 1 << 20
# the δ from which a tight engine answers ε itself without asking what its windows truncate
# (_Engine._routed): at most 1e-12 in all, at most 1e-4 of such a δ
_TIGHT_FROM = 1e-8
# the δ below which ε of a power of one factor is also answered from its split by the number
# of jumps (gdp.engine.jumps), where that is tighter: with the jump term planned on its own
# cells the split gained up to 0.31% between 1e-11 and 1e-8 (σ = 0.68, p = 6e-6, 7.1M steps,
# δ = 2e-11: 0.37709 → 0.37590, the bracket 2.1% → 0.30% wide), 15 of 40 configurations of
# rare jumps at δ from 1e-11 to 1e-6 and 5 of 320 in the box tighter, none looser, for up to
# 1 s more (the box's slowest sound answer 0.67 → 1.38 s); only for a rarely sampled step
# (_Engine._rarely_sampled: where p > 1e-3 the split gained at most 3.9e-4 on the scans, for
# 5 to 30 ms a question: σ = 1.414, p = 0.0063, 150,704 steps, δ = 2.9e-11, 28 → 15 ms)
_JUMPS_BELOW = 1e-6
# for δ at a given ε, the sound δ below which the split is tried (on the scans 1.07e-11 came
# down 4%, its bracket from 6.2% to 0.6% wide; 2.79e-9 came down 42%, σ = 0.90, p = 4.4e-6,
# 1.2M steps, ε = 0.036, its bracket's ends from 8.6 times apart to 0.8%; no answer of the
# box's 200 moved, at no measurable cost)
_JUMPS_DELTA_BELOW = 1e-6
# both, for a power beside other factors (_Engine._split_group), whose split costs more (its
# parts compose the other factors too): a run of 10⁷ steps at σ = 0.6, p = 1e-6 with a
# Laplace release (μ = 0.3), ε at 1e-9 0.06% tighter for 5 s more, at 1e-12 1.1% (0.7093 →
# 0.7016) for 1.3 s, at 1e-15 0.8%; σ = 0.8, p = 3e-6, 10⁶ steps: 0, 0.28% and 17% (0.4843
# → 0.4008; the release alone adds at most 0.3 to the run's 0.111)
_JUMPS_BESIDE_BELOW = 1e-11
# the sound δ at an ε below which the split is not tried (100 times below the smallest δ of
# the box users ask about: on the seeded scans, most of the split's cost in δ questions went
# to answers of 1e-25 to 1e-31)
_JUMPS_FLOOR = 1e-17
# the largest frame the other side builds beyond its first at a step and tilt (a wider
# window, or the transforms in long double) where the δ asked about is below _JUMPS_FLOOR:
# δ(30) at σ = 0.6, p = 1e-6, 10⁷ steps built 2.6 million points in double, then 4.1
# million in double and in long double for a lower end of 1.6e-134 under a sound 2e-23, in
# 6 s (the sound answer 0.1 s). Inside the box such frames can pay: with the cap at any δ,
# two of the 80 rare-bulk brackets widened (ε at δ = 5.8e-9, σ = 0.608, p = 1.1e-6, 9.8M
# steps: 2.1% to 5.3%, for 1 s of 5.2 s)
_EXTRA_POINTS = 1 << 21
# the splits an engine keeps (each holds two engines of its own with their frames, about
# 110 MB at 10^7 steps, measured); one asked again after it went is built again (a
# bracket asks one split on both sides)
_SPLITS_KEPT = 2
# the most times a question's budget lowers a factor's truncation by 1e-4 below a tilted
# frame's own (:meth:`_Engine._depths`)
_DEEPER_MAX = 8
# a rarely sampled factor's sound lattice: cells this many steps wide where the kink of the
# profile cannot reach them (:meth:`_Engine._coarse_above`), their error at most this share
# of δ
_COARSE_STEPS = 64
_COARSE_SHARE = 1e-6
# a δ question's wide cells take δ this far (in log) below its moment bound (up to e^28
# above δ seen: rare jumps at small ε; where that fails, :meth:`_Engine._answer` asks again)
_COARSE_DELTA_BELOW = 30.0
# a level in blocks (_Engine._blocked): a long group's least power, the most factors of the
# other groups beside them, the most long groups
_BLOCK_MIN = 64
_SHORT_FACTORS = 4
_LONG_GROUPS = 8
# a list of powers in two levels (_Engine._in_phases): the least coarsening of the fine step,
# and the most share of one level's estimated work it may take
_PHASES_R_MIN = 8
_PHASES_PAY = 0.6
# the other side's plan in phases (:meth:`_Engine._other_in_phases`): its least coarsening,
# and no bound on its estimated work (its one level costs more than the sound side's and
# errs at first order: 38 phases of 2 to 2,308 steps at p from 1e-3, whose sound side's
# plan declines at r = 6, came out 0.455% wide in 1.50 s in one level, 0.018% in 0.40 s)
_OTHER_R_MIN = 2
# its fine steps' scale below the frame's step h, and its coarse step's below
# h sqrt(n / (2F)) (n factors in F groups)
_PHASES_FINER = 2.0 * math.sqrt(2.0)
_PHASES_COARSER = 4.0
# the least points per group of the factors' windows at the frame's step for which order
# -1's moment bound first tries a coarser step (_Engine._moment_step)
_MOMENT_POINTS = 1 << 14
# a refined frame's lower tilt (_Engine._lower_tilt): the tilted δ at the answer at least
# this share of the tilted mass, and the planning window at most this share of the tilt's
_TILT_ROOM = 1e-4
_TILT_NARROWER = 0.5
# the most groups of a short list: its twin, bulk searches and narrowed lower ends pay (in
# long mixed lists their per-factor work costs more than they gain); a long list's ε
# questions take a truncation budget only where its windows' truncation can set the answer
# (_Engine._budget_for)
_FEW_GROUPS = 16
# the most Q-mass a tilted frame's factors truncate above their windows in all, charged to
# +inf (_Engine._upper_tol)
_TRUNCATED_MOST = 1e-12
# the other side in phases (:meth:`_Engine._other_fine`): a factor's window at half or twice
# the plan's fine step is tried where it holds at most this many points
_OTHER_TRY_POINTS = 1 << 18
# the least power of a factor whose bulk is looked for in a long list (_Engine._looks_for_bulk)
_BULK_POWER = 2
# the other side of a long list's single factors with atoms (_Engine._other_in_atoms): at
# least this many, in blocks of this many, on a fine step at most this many times finer,
# in at most this many points in all
_ATOM_BLOCK_MIN = 8
_ATOM_BLOCK = 32
_ATOM_R_MAX = 32
_ATOM_POINTS = 1 << 22
# (and at most this many in one factor's fine lattice: 40 of them among 81 mechanisms, ten
# Laplace mechanisms of ε up to 3 among them, took 11.4 s for a bracket at rtol = 1e-5, in
# blocks whose windows held 2e5 fine points a factor; a wider factor stays at the step)
_ATOM_FACTOR_POINTS = 1 << 14


@dataclass(slots=True)
class _Level:
    """What a frame composes: lattice step and offset, the composed law's cumulant
    generating function, the tilted factors with their powers (built on demand), the
    loss-shift allowance and the Q-mass at +inf."""

    h: float
    off: float
    kgf: _KGF
    items: Callable[[], list[tuple[_Tilted, int]]]
    shift: float
    q_inf: float
    # the exact cumulant generating function of a sound lattice law whose loss shift and
    # mass at +inf are at most this level's (for the whole law's Chernoff bounds; the
    # sound side only)
    sound_kgf: _KGF | None = None



def _level_of_blocks(H: float, fine_off: float, blocks: list[tuple[Any, int]],
                     few: list[tuple[_Lat, int]], lam: float, sound: _KGF) -> _Level:
    """A level of composed and coarsened blocks (:mod:`gdp.engine.coarsening`) and lattice
    laws at its step ``H``, each to its count (:meth:`_Engine._blocked`,
    :meth:`_Engine._in_phases`): ``fine_off`` the offset of the fine laws the blocks compose,
    ``sound`` the exact cumulant generating function of those fine laws with the ones at H
    (the blocks' shift and mass at +inf, which the frame uses with it, are at least the
    fine laws')."""
    lq = math.fsum([c * math.log1p(-min(b.q_inf, 1.0)) if b.q_inf < 1 else -math.inf
                    for b, c in blocks] +
                   [c * math.log1p(-min(f.q_inf, 1.0)) if f.q_inf < 1 else -math.inf
                    for f, c in few])
    qi = -math.expm1(lq) if math.isfinite(lq) else 1.0
    kgf = _block_kgf(blocks) if not few else _KGF.of_log_atoms(
        [(b.t, b.log_q, c) for b, c in blocks] +
        [(t, np.log(qq), c) for t, qq, c in (_lattice_atoms(f, H, c) for f, c in few)])
    return _Level(H, fine_off + math.fsum(c * f.off for f, c in few), kgf,
                  lambda: [(b.tilted, c) for b, c in blocks] + (
                      list(zip(_tilt_many([f for f, _ in few], lam, H),
                               [c for _, c in few], strict=True)) if few else []),
                  math.fsum([c * b.shift for b, c in blocks] + [c * f.shift for f, c in few]),
                  min(1.0, qi * (1.0 + 8 * EPS * (len(blocks) + len(few) + 2))), sound)


def _check_cap(wins: Sequence[Any], cap: int) -> None:
    """Raise ``ValueError`` where a factor's window ``(ka, kb)`` holds over ``cap`` points,
    or with its message where a window is one (:meth:`_Engine._all_windows`)."""
    for w in wins:
        if isinstance(w, str):
            raise ValueError(w)
    widest = max((kb - ka + 1 for ka, kb in wins), default=0)
    if widest > cap:
        raise ValueError(
            f"the lattice for one factor needs {widest} points, more than "
            f"max_points={cap}; pass a larger `grid_step`, a larger `rtol` or a larger "
            f"`max_points`")


# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------
class _Engine:
    """The planner and frame cache of one composition: both orders (order 1 composes the
    factors, order -1 their inverses), both sides."""

    def __init__(self, groups: Sequence[tuple[TradeOff, int]], acc: Accuracy,
                 tight: bool = True):
        self.acc = acc
        self.tight = False  # (decided below, once the factors are known)
        self._twin: _Engine | None = None
        self.groups = list(groups)
        self._factors: dict[int, list[_Factor]] = {1: _factors(self.groups)}
        self.ntot = sum(n for _, n in self.groups)
        self._lats: dict[Any, list[tuple[_Lat, int]]] = {}
        self._kgfs: dict[Any, _KGF] = {}
        self._frames: dict[Any, _Frame] = {}
        self._curves: dict[Any, LossCurve] = {}
        self._sound: dict[Any, _Level] = {}  # sound frames' levels (Chernoff bounds)
        self._memo: dict[Any, Any] = {}
        # the loss above which the sound lattices of the question being answered take wide
        # cells (:meth:`_coarse_class`; None: none), part of every sound lattice's, level's
        # and frame's key
        self._top: float | None = None
        # the Q-mass the factors' truncation may charge to +inf for the question being
        # answered (:meth:`_budget_for`, :meth:`_delta_budget`), in an engine that is not
        # tight (:meth:`_depths`); +inf: none
        self._budget = math.inf
        # the splits by the number of jumps asked last, with their parts' engines
        # (_jump_parts)
        self._splits: OrderedDict[Any, Any] = OrderedDict()
        self._plans: dict[int, tuple[_KGF, list]] = {}
        self.tol = acc.tail_mass / max(self.ntot, 1) * 1e-3
        self.var = float(self.plan_kgf(1)(np.array([0.0]))[2][0])
        # one atomic factor (the usual f ** n): steps that make the spacing of its two
        # heaviest atoms a multiple of h (both then sit on the lattice, with its offset)
        self.gap = 0.0
        atomic = [fa for fa in self._factors[1] if fa.pess.atoms()[0].size >= 2]
        if len(atomic) == 1:
            u, p, q = atomic[0].pess.atoms()
            self.gap = abs(float(u[int(np.argmax(q))] - u[int(np.argmax(p))]))
        self.h0 = self._base_step()
        # (tight only where a factor's window can end lower, :meth:`_window_quantiles`: a
        # rarely sampled step among a few groups; elsewhere the twin would be this engine
        # again)
        self.tight = tight and len(self.groups) <= _FEW_GROUPS and any(
            self._rarely_sampled(fa.pess) for fa in self._factors[1])

    def _rarely_sampled(self, law: Law) -> bool:
        """Whether ``law``'s own upper end at ``tol`` (:meth:`~gdp.engine.laws.Law.q_upper`)
        lies below its upper quantile there: a step sampled so rarely that its jumps, not
        its bulk, make that tail (for a subsampled Gaussian, p below 1e-3). Remembered."""
        key = ("rare", id(law))
        if key not in self._memo:
            self._memo[key] = type(law).q_upper is not Law.q_upper \
                and law.q_upper(self.tol) < self._quantiles(law, self.tol)[1]
        return self._memo[key]

    def factors(self, order: int) -> list[_Factor]:
        """The factors of one order (a symmetric factor is the same in both)."""
        if order not in self._factors:
            base = self._factors[1]
            self._factors[order] = [fa if f.is_symmetric else _factors([(f.inverse(), n)])[0]
                                    for fa, (f, n) in zip(base, self.groups, strict=True)]
        return self._factors[order]

    def _quantiles(self, law: Law, tol: float | None = None
                   ) -> tuple[float, float, float, float]:
        tol = self.tol if tol is None else tol
        key = ("q", id(law), tol)
        if key not in self._memo:
            self._memo[key] = law.quantiles(tol)
        return self._memo[key]

    def _window_quantiles(self, law: Law, tol: float) -> tuple[float, float, float, float]:
        """The quantiles a factor's window spans (:func:`_window_of`): those of
        :meth:`_quantiles`, the Q-upper end lowered to the law's :meth:`~Law.q_upper` in a
        tight engine (:meth:`answer`)."""
        ql, qh, pl, ph = self._quantiles(law, tol)
        if self.tight:
            key = ("q-upper", id(law), tol)
            if key not in self._memo:
                self._memo[key] = law.q_upper(tol)
            qh = min(qh, self._memo[key])
        return ql, qh, pl, ph

    def _upper_tol(self, order: int, beta: float) -> float:
        """Tail mass truncated above each factor (charged to +inf): ``tol`` for the
        untilted frame (curves); in a frame of tilt ``beta`` at most 1e-4 of the δ the
        frame answers (about exp(K - beta K'), the moment bound at its centre) over the
        factors, so the charge stays a 1e-4 relative part of the answer (each factor's
        share of it, deeper where an ε question asks it: :meth:`_factor_tol`)."""
        if beta <= 0:
            return self.tol
        tol = 1e-4 * math.exp(self._centre_log_delta(order, beta)) / max(self.ntot, 1)
        return min(max(tol, self.tol), _TRUNCATED_MOST / max(self.ntot, 1))

    def _centre_log_delta(self, order: int, beta: float) -> float:
        r"""The log of the planning law's moment bound on δ at the centre of its tilt
        ``beta``, :math:`K - \beta K' + c(\beta)`, at most 0 (remembered)."""
        key = ("centre-ld", order, beta)
        if key not in self._memo:
            K, K1, _ = self.plan_kgf(order)(np.array([beta]))
            self._memo[key] = min(float(K[0]) - beta * float(K1[0]) + _c(beta)[0], 0.0)
        return self._memo[key]

    def _factor_tol(self, order: int, beta: float, i: int) -> float:
        """The tail mass truncated above factor ``i`` at tilt ``beta``: its share of
        :meth:`_upper_tol` (:meth:`_share`), times 1e-4 to the power of its
        :meth:`_depths`, not below its share of the engine's ``tol``."""
        tol = self._upper_tol(order, beta) * self._share(i)
        d = self._depths(order, beta)[i]
        return max(tol * 1e-4 ** d, self.tol * self._share(i)) if d else tol

    def _depths(self, order: int, beta: float) -> tuple[int, ...]:
        r"""For each factor, how many times (at most ``_DEEPER_MAX``) its truncation
        (:meth:`_factor_tol`) is lowered by 1e-4 for the question being answered: until
        the Q-mass its group's windows charge to +inf, taken at their upper quantiles (a
        window's last lattice point lies at or beyond its quantile, so it charges no
        more), is within the group's equal share of the question's :attr:`_budget`. All
        0 without a question's budget (:meth:`_budget_for`, :meth:`_delta_budget`; none in a
        tight engine, whose :meth:`_routed` checks its truncation against the δ asked).
        Remembered.

        The moment bound at a frame's centre, which sets :meth:`_upper_tol`, can lie far
        above the δ the frame is asked about: where the tilt is the saddle-point tilt at a
        Gaussian estimate of the answer (:meth:`plan`), and for rare events, whose moment
        bound exceeds δ by up to :math:`e^{28}`. The charge was then a floor of δ above
        the δ asked: a run of 10⁷ steps at σ = 0.6, p = 1e-6 beside G_0.5 charged
        3.2e-15, all of it from G's upper tail, so ε was infinite at δ = 3e-15 (3.849 with
        G's window deeper). Only the factors over their share go deeper: that run's
        windows all deeper widened its frame from a loss of 7.8 to 29 at its tilt of 9.5,
        and ε at δ = 1e-15 came out 0.12% above the lower end (a coarser step)."""
        n = len(self.groups)
        if not (beta > 0 and math.isfinite(self._budget)):
            return (0,) * n
        key = ("depths", order, beta, self._budget)
        if key not in self._memo:
            share = self._budget / n
            fas = self.factors(order)
            tols = [self._upper_tol(order, beta) * self._share(i) for i in range(n)]
            floors = [self.tol * self._share(i) for i in range(n)]
            look = [i for i in range(n) if tols[i] > floors[i]]
            first = dict(zip(look, self._charges(
                [fas[i].pess for i in look],
                [self._window_quantiles(fas[i].pess, tols[i])[1] for i in look]), strict=True))
            out = []
            for i, fa in enumerate(fas):
                tol, floor, d = tols[i], floors[i], 0
                while d < _DEEPER_MAX and tol > floor:
                    c = first[i] if d == 0 else \
                        _charged_beyond(fa.pess, self._window_quantiles(fa.pess, tol)[1])
                    if _composed_q_inf([(c - fa.pess.q_inf, fa.n)]) <= share:
                        break
                    tol, d = max(1e-4 * tol, floor), d + 1
                out.append(d)
            self._memo[key] = tuple(out)
        return self._memo[key]

    @staticmethod
    def _charges(laws: list[Law], ts: list[float]) -> list[float]:
        """``[_charged_beyond(law, t) for law, t in zip(laws, ts)]``: for the laws of each
        batch key of four or more in one stacked call
        (:func:`~gdp.engine.planning._charges_at_once`: the same values; 1,000 mechanisms
        at δ = 1e-12, 750 of them in three keys: 0.72 s one by one, 0.1 s so)."""
        out: list[float | None] = [None] * len(laws)
        for idx in _batch_groups(laws):
            for i, c in zip(idx, _charges_at_once([laws[i] for i in idx],
                                                  [ts[i] for i in idx]), strict=True):
                out[i] = c
        return [_charged_beyond(law, t) if c is None else c
                for law, t, c in zip(laws, ts, out, strict=True)]

    def _budget_for(self, order: int, kind: str, x: float) -> float:
        r""":attr:`_budget` for a question: for ε at δ = ``x`` in an engine that is not
        tight, :math:`0.1\,\mathrm{rtol}\,\delta\min(1, \lambda\varepsilon)` (λ the
        planned tilt, ε the planning law's estimate): a charge c moves the sound δ by at
        most c, so ε by about :math:`c / (\delta\lambda)` where δ falls as
        :math:`e^{-\lambda\varepsilon}`, a tenth of ``rtol`` of ε (the rule of
        :meth:`_small_truncation`, at ``rtol``); +inf for δ questions and elsewhere. In
        lists of over ``_FEW_GROUPS`` groups, only where it is below ``_TRUNCATED_MOST``
        (the most a tilted frame's windows truncate in all) and below what the windows of
        the plan made without it truncate (:meth:`_truncated`): there the truncation was a
        floor of δ (30 distinct subsampled Gaussians, σ from 0.4 to 10, p from 1e-6 to 1,
        charged 7.9e-16 to +inf at δ = 1e-15, whose ε came out 4.467 against a lower end of
        3.838 at every ``rtol``; now 3.847, the truth within 0.26%); elsewhere deeper
        windows, wider, only moved the refinement (18 rarely sampled phases at δ = 1e-15,
        their windows' charge 8.2e-20 against a budget of 1e-19: 0.12% looser).
        Remembered."""
        long = len(self.groups) > _FEW_GROUPS
        if self.tight or kind != "eps" or not 0.0 < x < 1.0:
            return math.inf
        key = ("budget", order, x)
        if key not in self._memo:
            t = self._question_tilt(order, "eps", x)
            out = math.inf
            if t is not None and math.isfinite(t[4]):
                out = 0.1 * self.acc.rtol * x * min(1.0, t[0] * max(t[4], 0.0))
            # (in a long list only where the windows of the plan made without it truncate
            # more)
            if long and not (out < _TRUNCATED_MOST and self._plain_truncation(order, x) > out):
                out = math.inf
            self._memo[key] = out
        return self._memo[key]

    def _plain_truncation(self, order: int, x: float) -> float:
        """What the windows of the plan of ε at δ = ``x`` made without a budget truncate
        (:meth:`_truncated`), 0 where that question needs no frame."""
        with self._at_budget(math.inf):
            p = self.plan(order, "eps", x)
        return 0.0 if p is None else self._truncated(order, *p)

    def _delta_budget(self, order: int, eps: float) -> float:
        r""":attr:`_budget` for the δ question at ``eps`` in an engine that is not tight,
        both sides: where the Q-mass c the factors' truncation charges to +inf in the
        planned frame is over a tenth of the rest of that frame's sound answer d,
        :math:`0.1\,\mathrm{rtol}\,(d - c)`; +inf elsewhere (:meth:`_answer` keeps the
        lower of d and the answer so found, both bounds). The run of :meth:`_depths`
        beside G_0.5 had δ at ε = 4.2 in [1.0e-17, 3.2e-15], all of the sound end the
        charge, and at ε = 3.769 a charge of 41% of the rest. Below a tenth the deeper
        windows, wider, rarely paid: on 40 seeded rare-jump δ questions a budget at a
        tenth of ``rtol`` of the rest went deeper for 13, bettered 2 (by 28% and from
        2.3e-19 to 3.0e-27, the charge most of δ) and cost 1.1 s more. Remembered (d
        too). In lists of over ``_FEW_GROUPS`` groups too: the planned frame is the one the
        answer builds first anyway, and their charges are looked at in stacked calls
        (:meth:`_charges`); 30 distinct subsampled Gaussians had δ at ε = 3.8475 in
        [9.6e-16, 1.8e-15], the sound end the charge."""
        if self.tight:
            return math.inf
        key = ("delta-budget", order, eps)
        if key not in self._memo:
            pk = self._plan_key(order, "delta", eps)
            out = math.inf
            if pk[0] != "trivial":
                # (the planned frame's, not refined: the truncation is that of every step;
                # with the question's wide cells, as the answer's own first frame)
                with self._at_top(self._coarse_class(order, "delta", eps)):
                    d = float(self._answer_group("pess", order, "delta", np.array([eps]),
                                                 pk, pk)[0])
                self._memo[("delta-first", order, eps)] = d
                c = self._truncated(order, *pk)
                if 0.0 < d < 1.0 and c > 0.1 * (d - c):
                    out = 0.1 * self.acc.rtol * max(d - c, 0.0)
            self._memo[key] = out
        return self._memo[key]

    def _coarse_class(self, order: int, kind: str, x: float) -> float | None:
        r"""The loss above which a rarely sampled factor's sound lattices take cells
        ``_COARSE_STEPS`` steps wide for the question δ at ε = x (:meth:`_coarse_above`,
        at the δ of :meth:`_delta_floor`). None for ε questions (their refinement sets it
        from the answer found, :meth:`_top_for`) and where there are none
        (:meth:`_coarse_above`). Remembered."""
        key = ("coarse-class", order, kind, x)
        if key in self._memo:
            return self._memo[key]
        out = None
        if kind == "delta" and self._coarse_kind(order):
            out = self._coarse_above(order, x, self._delta_floor(order, x))
        self._memo[key] = out
        return out

    def _delta_floor(self, order: int, eps: float) -> float:
        r"""The log of the δ at ε = ``eps`` that :meth:`_coarse_class` takes:
        ``_COARSE_DELTA_BELOW`` below the log of the moment bound at the question's tilt
        (-inf without one). The bound exceeds δ by a factor 2 to 100 in most rare corners,
        and by up to :math:`e^{28}` where rare jumps make a small ε's δ."""
        t = self._question_tilt(order, "delta", eps)
        if t is None:
            return -math.inf
        return t[1] + _c(t[0])[0] - t[0] * eps - _COARSE_DELTA_BELOW

    def _coarse_kind(self, order: int) -> bool:
        """Whether this composition's sound lattices may take wide cells: a power of one
        rarely sampled factor (:meth:`_rarely_sampled`) without atoms, its step not given
        by the caller."""
        law = self.factors(order)[0].pess
        return len(self.groups) == 1 and self.ntot >= 2 and \
            self.acc.grid_step is None and self._rarely_sampled(law) and \
            not law.atoms()[0].size

    def _top_for(self, order: int, eps: float, delta: float) -> float | None:
        r"""The wide cells' loss (:attr:`_top`) for a sound frame answering ε at δ =
        ``delta`` below the sound answer ``eps`` already found (:meth:`_refine_step`):
        :meth:`_coarse_above` at ``eps``. Every answer the frame gives that is kept lies
        below ``eps``, where the wide cells err by at most ``_COARSE_SHARE`` of δ."""
        if not self._coarse_kind(order):
            return None
        key = ("top-for", order, eps, delta)
        if key not in self._memo:
            self._memo[key] = self._coarse_above(order, eps, math.log(delta))
        return self._memo[key]

    def _coarse_above(self, order: int, eps: float, log_delta: float) -> float | None:
        r"""A loss T above which cells of any width leave the sound profile of a power of
        one factor at ``eps`` within ``_COARSE_SHARE`` of :math:`\delta \ge
        e^{\mathrm{log\_delta}}`, on the grid :math:`2^{j/8}` (rounded up); None where no
        such T can be told.

        The split of a cell (:func:`~gdp.engine.lattice._disc_pess`) keeps the profile at
        ε exact unless the cell holds the kink :math:`t = \varepsilon - S`, S the sum of the
        other n - 1 factors' losses, and errs by at most the cell's Q-mass there (the
        profile lies in [0, 1]): the cells above T by at most :math:`n\,Q_1[L \ge T]\,
        Q[S \le \varepsilon - T]`, with :math:`Q_1[L \ge T] \le Q_1[L \ge \varepsilon]`
        for T ≥ ε. T is ε - s, s at most 0 and below which S lies with Q-probability at
        most η, that error over δ divided, by the Chernoff bound :math:`\log Q[S \le s]
        \le K_S(-\varphi) + \varphi s` at its best φ > 0 (the planning law's cumulant
        generating function, :math:`K_S = (n - 1) K_1`, at 41 values of φ from 1e-2 to 1e8:
        for a Gaussian S the best of them puts s at most 4% further below the mean than the
        best φ would). None where η
        is below 1e-23 (the planning law's factors end at their quantiles at 1e-30: no
        Chernoff bound under their sum over 10⁷ factors means much) or ε is not positive.
        The planning law approximates the factor's: the rule decides accuracy only, every
        lattice being sound."""
        if not (eps > 0 and math.isfinite(eps) and math.isfinite(log_delta)):
            return None
        n = self.ntot
        kgf = self.plan_kgf(order)
        t, q, _ = self._plans[order][1][0]  # (the factor's planning atoms)
        above = n * float(np.sum(q[t >= eps]))
        log_eta = min(log_delta + math.log(_COARSE_SHARE) - math.log(max(above, 1e-300)),
                      0.0)
        if not log_eta >= math.log(1e-23):
            return None
        phi = np.geomspace(1e-2, 1e8, 41)
        ks = kgf(-phi, derivs=False)[0] * ((n - 1) / n)
        with np.errstate(invalid="ignore"):
            s = float(np.max(np.where(np.isfinite(ks), (log_eta - ks) / phi, -np.inf)))
        if not math.isfinite(s):
            return None
        top = eps - min(s, 0.0)
        return 2.0 ** (math.ceil(8.0 * math.log2(top) - 1e-9) / 8.0)

    def _coarse_cells(self, beta: float, law: Law, h: float, ka: int, kb: int, n: int
                      ) -> tuple[int, int] | None:
        """``coarse`` of :func:`~gdp.engine.lattice._disc_pess` for a factor's sound lattice
        of window ``(ka, kb)`` at step ``h`` and tilt ``beta``, for the question being
        answered (:attr:`_top`): cells ``_COARSE_STEPS`` steps wide above that loss, fewer
        where a cell would span over 1/16 of the tilt's scale 1/β (the lattice law's
        tilted masses, which the frame's tail allowances use, then move by under 7%);
        None for none there, an untilted frame or fewer than eight wide cells."""
        if self._top is None or not beta > 0 or not self._rarely_sampled(law):
            return None
        m = min(_COARSE_STEPS, int(1.0 / (16.0 * beta * h)))
        k = int(math.ceil((self._top - self._off(law, h, n)) / h)) - ka
        if m < 4 or k < 1 or (kb - ka) - k < 8 * m:
            return None
        return k, m

    def _share(self, i: int) -> float:
        """The truncation tolerance of group ``i``'s factor, per factor of the composition:
        each of the G groups gets an equal share of the composition's, over its n factors
        (``ntot / (G n)``; 1 for a single power)."""
        return self.ntot / (len(self.groups) * self.groups[i][1])

    def _off(self, law: Law, h: float, n: int, side: str = "pess") -> float:
        """The lattice offset of ``law``, a factor raised to the power ``n``, on one side
        (remembered): where a bulk is looked for (:meth:`_looks_for_bulk`),
        :func:`~gdp.engine.planning._offset`'s with its search on the sound side,
        :func:`~gdp.engine.planning._other_offset`'s on the other; elsewhere (the single
        factors of a long list) the sound side's without the search, the other side's with
        the plain one (the bulk's merged loss on a point: about 0.3 ms a factor, on the
        bracket's time; a hundred subsampled Gaussians at p from 1e-4 to 1e-2 lost a step of
        their bulks each without it, a bracket 3.66% wide at δ = 1e-8, 0.29% with it; the
        wider search of :func:`~gdp.engine.planning._other_offset` gave 0.14% in five times
        the bracket's time)."""
        key = ("o", side, id(law), h, n)
        if key not in self._memo:
            bulk = self._looks_for_bulk(n)
            self._memo[key] = _offset(law, h, bulk) if side == "pess" else \
                _other_offset(law, h, bulk, n) if bulk else _offset(law, h, True)
        return self._memo[key]

    def _looks_for_bulk(self, n: int) -> bool:
        """Whether the concentrated bulk of a factor raised to the power ``n`` is looked for
        (the offsets, the other side's pile): in short lists and, in long ones, for a factor
        raised to a power (a phase of a run), where a bulk rounded a step down on the other
        side repeats; not for the single factors of a long list, where the search costs
        more than it gains (about 0.5 ms a law: a list of 1,000 mixed mechanisms, 500 of
        them subsampled Gaussians' laws, took 0.59 s for its sound ε, not 0.34 s, for a
        bracket 0.61% wide, not 0.69%). In a run of 200 phases of 1 to 49 steps (σ in
        [0.5, 3], p in [1e-4, 0.1], δ = 1e-8) the bulks of the phases of p under 5e-3,
        narrower than the step, lost a third of the other side's composed Q-mass unsearched,
        and its bracket was 0.96% wide; 0.29% searched (``_BULK_POWER``)."""
        return len(self.groups) <= _FEW_GROUPS or n >= _BULK_POWER

    def _pile(self, law: Law, h: float, n: int) -> float | None:
        """The other side's pile region's top for ``law`` (a factor raised to the power
        ``n``) at step ``h`` (:func:`~gdp.engine.planning._pile_top`), where a bulk is
        looked for; remembered."""
        key = ("pile", id(law), h, n)
        if key not in self._memo:
            self._memo[key] = _pile_top(law, h) if self._looks_for_bulk(n) else None
        return self._memo[key]

    def plan_kgf(self, order: int) -> _KGF:
        """Cumulant generating function of a coarse garbling of the composed law, for
        planning only (tilts, steps, windows; never for a bound)."""
        if order not in self._plans:
            fs = self.factors(order)
            m = 2048 if len(fs) <= 16 else (256 if len(fs) <= 128 else 64)
            atoms: list[Any] = [None] * len(fs)
            groups: dict[Any, list[int]] = {}
            for i, fa in enumerate(fs):
                key = ("plan", id(fa.pess), m)
                if key in self._memo:
                    atoms[i] = self._memo[key]
                    continue
                bk = fa.pess._batch_key()
                if bk is not None:
                    groups.setdefault(bk, []).append(i)
            for idx in groups.values():
                if len(idx) < 4:
                    continue
                for i, at in zip(idx, _plan_batch([fs[i].pess for i in idx], m), strict=True):
                    atoms[i] = (at[0], at[2])
            for i, fa in enumerate(fs):
                if atoms[i] is None:
                    atoms[i] = self._plan_atoms(fa.pess, m)
                self._memo[("plan", id(fa.pess), m)] = atoms[i]
            parts = [(*atoms[i], fa.n) for i, fa in enumerate(fs)]
            self._plans[order] = (_KGF.of_atoms(parts), parts)
        return self._plans[order][0]

    def _plan_atoms(self, law: Law, m: int) -> tuple[np.ndarray, np.ndarray]:
        """A law's planning atoms (losses, Q-masses), remembered by the law's value: the
        mirror of a law (the other order's) takes the mirror of its atoms, the same values
        as its own computation."""
        vk = law._value_key()
        if vk is None:
            return _plan_atoms(law, m)
        key = ("plan-atoms", vk, m)
        if key not in self._memo:
            base = ("plan-atoms", law.base._value_key(), m) \
                if isinstance(law, InverseLaw) else None
            if base in self._memo:
                u, p, q = self._memo[base]
                self._memo[key] = (-u, q, p)  # (InverseLaw.plan_atoms)
            else:
                self._memo[key] = law.plan_atoms(m)
        at = self._memo[key]
        return at[0], at[2]

    def law_q_inf(self, order: int) -> float:
        """Q[S = +inf] of the composed true law (from the factors' masses at +inf)."""
        return _composed_q_inf((fa.pess.q_inf, fa.n) for fa in self.factors(order))

    # -- steps --------------------------------------------------------------
    def _base_step(self) -> float:
        acc = self.acc
        if acc.grid_step is not None:
            return acc.grid_step
        var, k = self.var, max(self.ntot, 1)
        wmax = 1.0
        for fa in self._factors[1]:
            ql, qh, pl, ph = fa.pess.quantiles(self.tol)
            for w in (qh - ql, ph - pl):
                wmax = max(wmax if wmax != 1.0 else 0.0, w if math.isfinite(w) else 100.0)
        if var <= 0.0:
            h = 1e-2
        else:
            h = min(math.sqrt(3.0 * acc.rtol * var / k), 0.05 * math.sqrt(var), 0.5)
        # the factor lattices stay below 2**18 points
        h = max(h, wmax / (1 << 18))
        return self._align(h)

    def _align(self, h: float) -> float:
        if self.gap > 0 and self.gap / h < 1e7:
            return self.gap / math.ceil(self.gap / h - 1e-9)
        return h

    def step_for(self, lam: float, eps: float, sd: float) -> float:
        """Lattice step for a question answered at tilt ``lam`` near ``eps``."""
        if self.acc.grid_step is not None:
            return self.acc.grid_step
        # the frame's window spans about 16 tilted spreads: at most about 2**20 points
        # (a question far in the bulk, e.g. δ at an ε far below the mean, needs no more)
        return self._clamped_step(self._rule_step(lam, eps, sd), sd)

    def _rule_step(self, lam: float, eps: float, sd: float) -> float:
        """The step of :meth:`step_for` before the cap of points."""
        # connect-the-dots moves each factor's tilted cumulant generating function by
        # about (c0 + c1 lam) h^2 (the mean shift, and the curvature at the tilt), which
        # moves the answer by about that times n / lam' with lam' ~ lam + 1 ... so eps
        # errs by O(n (1 + lam) h^2 / lam')/12: h^2 ~ 12 c rtol eps / (n (1 + lam))
        scale = max(eps, 1e-3 / (lam + 1.0))
        h = math.sqrt(2.0 * self.acc.rtol * scale / ((lam + 1.0) * max(self.ntot, 1)))
        return min(h, 0.25 * sd, 0.5)

    def _clamped_step(self, h: float, sd: float, grow: bool = False) -> float:
        r"""A step ``h`` for a frame of tilted spread ``sd``, kept to about 2**20 points over
        16 spreads and above ``h0 / 4096``, on the grid of :meth:`step_for` (a spread halved
        admits twice the points: :meth:`_refine_step`). ``grow``: for a refined step, whose
        frame is given up where it exceeds ``max_points``, the points times
        :math:`\sqrt{10^{-3}/\mathrm{rtol}}` (at most 8) below the default ``rtol``: a
        tighter ``rtol`` admits longer refined frames. The refinement of a rarely sampled
        bulk, whose error is first order in the step, otherwise stopped at the same cap at
        every ``rtol`` (σ = 0.509, p = 5.4e-6, 627,843 steps, δ = 7.6e-5: a bracket 0.39%
        wide at ``rtol=1e-5`` as at the default, 0.038% so, in 8 s)."""
        scale = self._growth() if grow else 1.0
        h = max(h, 16.0 * sd / (2.0 ** 20 * scale))
        if not h > 0 or not math.isfinite(h):
            h = self.h0
        h = max(h, self.h0 / 2.0 ** 12)
        return self._align(_quantise(h, self.h0, _STEPS_PER_OCTAVE))

    def _lower_tilt(self, order: int, h: float, lam: float, delta: float,
                    eps: float) -> float | None:
        r"""A tilt below ``lam`` for the refined frames of ε at ``delta`` (the sound answer
        ``eps``), where the window's cap of points stops the refinement at step ``h``, or
        set that step in place of the rule with no pair of answers yet to estimate its
        error (:meth:`_refine_step`, :meth:`_tilt_window`); None where no such tilt narrows
        the window enough.

        The tilt that minimises the moment bound weights the far tail of every factor: for
        T rarely sampled steps (σ near 0.5, p of 1e-6 to 1e-5) the tilted law of a step has
        a second mode of jumps, at a loss of about :math:`\lambda\mu^2 - \log p -
        \mu^2/2`, and the frame's window reaches it (13 wide at σ = 0.494, p = 2.65e-6,
        6.7M steps, δ = 1.7e-4, for a bulk of spread 0.05 about ε = 0.139), so the cap of
        points stops the refinement of a bulk narrower than the step, whose error falls
        slowly with it: 0.138741, 0.11% above the truth (0.1385947, Laplace inversion),
        now 0.138692; at σ = 0.4, p = 1e-6, 10⁷ steps, δ = 1e-2 the window was 41.8 wide
        and the answer 0.0536734, 2.5% above the truth (0.052368), now 0.052425 (0.11%).
        Where δ is large no such tilt is needed
        against round-off: among :math:`\lambda 2^{-k/2}` (k = 1 … 8, on the grid of
        tilts) the one whose planning window (:func:`~gdp.engine.fourier._window`) is
        narrowest, at most ``_TILT_NARROWER`` of ``lam``'s, of those whose moment bound
        at ε, :math:`e^{K(\lambda) + c(\lambda) - \lambda\varepsilon}`, is at most
        δ / ``_TILT_ROOM`` (the tilted δ at the answer at least ``_TILT_ROOM`` of the
        tilted mass: the transforms' round-off and the wrapped mass, about 1e-13 and 1e-8 of
        it, stay far below δ). The window there was 3.8 wide at λ = 1 against 12.9 at 4.76,
        the answers at one step within 4e-5 of each other. For accuracy and speed only:
        every frame's answer is a bound on its side. Remembered, so both sides refine at
        the same tilt."""
        key = ("lower-tilt", order, h, lam, delta)
        if key in self._memo:
            return self._memo[key]
        out = None
        pk = self.plan_kgf(order)
        if math.isfinite(eps) and eps > 0.0 and not pk.empty:
            room = math.log(delta) - math.log(_TILT_ROOM)
            bd = _window(pk, lam, _LOG_ETA, h)
            best = _TILT_NARROWER * (bd.B - bd.A)
            for k in range(1, 9):
                lt = _quantise(lam * 2.0 ** (-0.5 * k), 1.0, _TILTS_PER_OCTAVE, down=False)
                if not lt < lam:
                    continue
                (K,), _, _ = pk(np.array([lt]))
                if not float(K) + _c(lt)[0] - lt * eps <= room:
                    break  # (the bound rises as the tilt falls below the saddle point)
                bd = _window(pk, lt, _LOG_ETA, h)
                if bd.B - bd.A < best:
                    best, out = bd.B - bd.A, lt
        self._memo[key] = out
        return out

    def _tilt_window(self, order: int, h: float, lam: float, delta: float, eps: float,
                     spread_of: Callable[[float, float], float]
                     ) -> tuple[float, float] | None:
        """The lower tilt of :meth:`_lower_tilt` and the spread read off its frame's window
        at step ``h`` (``spread_of``); None where there is none or its factors' lattices
        exceed their cap there."""
        lt = self._lower_tilt(order, h, lam, delta, eps)
        if lt is None:
            return None
        try:
            self._windows(h, order, lt, cap=_FACTOR_CAP)
            return lt, spread_of(h, lt)
        except ValueError:
            return None

    def _bracket_width(self) -> float:
        """The relative width of a bracket the other side need not narrow further:
        ``_BRACKET_WIDTH`` at the default ``rtol`` and above, in proportion below it."""
        return self._at_rtol(_BRACKET_WIDTH)

    def _narrow_gap(self) -> float:
        """The relative width of a bracket above which :meth:`narrow` refines the other
        side: ``_NARROW_GAP`` at the default ``rtol`` and above, in proportion below it (so
        that the bracket narrows with ``rtol``)."""
        return self._at_rtol(_NARROW_GAP)

    def _at_rtol(self, width: float) -> float:
        """A relative ``width`` set at the default ``rtol``: itself there and above, in
        proportion to ``rtol`` below."""
        return min(width, width / Accuracy().rtol * self.acc.rtol)

    def _growth(self) -> float:
        r"""How many times the points of a planned step a refined step's frame and factor
        lattices may hold: :math:`\sqrt{10^{-3}/\mathrm{rtol}}`, at most 8 (1 from the
        default ``rtol`` up; :meth:`_clamped_step`, :meth:`_refine_step`)."""
        return min(8.0, math.sqrt(max(1e-3 / self.acc.rtol, 1.0)))

    # -- discretisation -----------------------------------------------------
    def _factors_fit(self, h: float, order: int, beta: float, cap: int = _FACTOR_CAP
                     ) -> bool:
        """Whether every factor's lattice window at step ``h`` and tilt ``beta`` holds at
        most ``cap`` points (:meth:`_windows`)."""
        try:
            self._windows(h, order, beta, cap=cap)
        except ValueError:
            return False
        return True

    def _windows(self, h: float, order: int, beta: float, cap: int | None = None
                 ) -> tuple[tuple[int, int], ...]:
        """Each factor's lattice window for one order: its Q-law between the quantiles at
        ``tol``, each group's factor at its share of the composition's (:meth:`_share`: the
        one jump factor of a split's jump term beside 10⁷ bulk factors, δ = 1e-14, ends at
        a loss of 0.61 instead of 1.74; above, the truncated mass is charged to +inf); in a
        tilted frame the lower end rises to :meth:`_tilted_lower`'s cut (below, the lower
        tail's Q-mass sits on the lowest point: sound, and negligible in the frame).
        Raises ``ValueError`` when a factor's window has more than ``cap`` points (default
        ``max_points``)."""
        wins = self._all_windows(h, order, beta)
        _check_cap(wins, self.acc.max_points if cap is None else min(cap, self.acc.max_points))
        return wins

    def _window_one(self, h: float, order: int, beta: float, i: int, cap: int
                    ) -> tuple[int, int]:
        """Factor ``i``'s window of :meth:`_windows`, its size alone checked against
        ``cap`` (at most ``max_points``): the long group's lattice of a level in blocks,
        whose other factors are discretised at the coarse step (:meth:`_blocked`)."""
        win = self._factor_window(h, order, beta, i)
        _check_cap((win,), min(cap, self.acc.max_points))
        return win

    def _windows_key(self, h: float, order: int, beta: float) -> tuple:
        """The memo key of :meth:`_all_windows` (the truncation is part of it)."""
        return ("w", h, order, beta, self._depths(order, beta))

    def _all_windows(self, h: float, order: int, beta: float) -> tuple[Any, ...]:
        """The windows of :meth:`_windows`, unchecked against a cap; a factor's is the
        message of the error where its window before the tilted cut holds over
        ``max_points`` (remembered)."""
        mkey = self._windows_key(h, order, beta)
        if mkey not in self._memo:
            self._stacked_offsets(h, self.factors(order), "pess")
            self._memo[mkey] = tuple(self._window_for(h, order, beta, i)
                                     for i in range(len(self.factors(order))))
        return self._memo[mkey]

    def _factor_window(self, h: float, order: int, beta: float, i: int) -> Any:
        """Factor ``i``'s window of :meth:`_all_windows` alone (remembered, where the
        windows of all are not): a list in phases discretises each group at its own step
        (:meth:`_in_phases`)."""
        wins = self._memo.get(self._windows_key(h, order, beta))
        if wins is not None:
            return wins[i]
        mkey = self._windows_key(h, order, beta) + (i,)
        if mkey not in self._memo:
            self._memo[mkey] = self._window_for(h, order, beta, i)
        return self._memo[mkey]

    def _window_for(self, h: float, order: int, beta: float, i: int) -> Any:
        """Factor ``i``'s window (:meth:`_all_windows`), computed."""
        fa = self.factors(order)[i]
        off = self._off(fa.pess, h, fa.n)
        # (the other side uses the same windows: what it drops outside only lowers it)
        try:
            ka, kb = _window_of(
                self._window_quantiles(fa.pess, self._factor_tol(order, beta, i)), h,
                self.acc.max_points, off)
        except ValueError as err:
            return str(err)
        if beta > 0:
            cut = self._tilted_lower(order, beta)[i]
            if math.isfinite(cut):
                ka = min(max(ka, int(math.floor((cut - off) / h)) - 1), kb)
        return ka, kb

    def _tilted_lower(self, order: int, beta: float) -> list[float]:
        """Per factor, a loss ``c`` whose Q-mass below, were it all at ``c``, would carry at
        most 1e-12 / (factors) of the factor's tilted mass (tilt ``beta``, from the planning
        atoms): the lattice's lowest point is at or below ``c`` and the mass below goes to
        it, so the whole composition's tilted mass moves by at most 1e-12 relative (no
        bound depends on it: the sound side only rises, the other only falls). All factors
        at once; remembered (the frames of one tilt at several steps ask it again)."""
        key = ("tilted-lower", order, beta)
        if key not in self._memo:
            self._memo[key] = self._tilted_cuts(order, beta)
        return self._memo[key]

    def _tilted_cuts(self, order: int, beta: float) -> list[float]:
        t, lq, starts, seg = self._sorted_plan(order)
        F = starts.size
        if t.size == 0:
            return [-math.inf] * F
        ends = np.concatenate([starts[1:] - 1, [t.size - 1]])
        w = lq + beta * t
        m = np.maximum.reduceat(w, starts)
        log_tot = m + np.log(np.add.reduceat(np.exp(w - m[seg]), starts))
        mq = np.maximum.reduceat(lq, starts)
        c = np.cumsum(np.exp(lq - mq[seg]))
        base = np.concatenate([[0.0], c[starts[1:] - 1]])
        with np.errstate(divide="ignore"):
            # log of (Q-mass up to atom j) e^(beta t_j) / (tilted mass): increasing in j
            v = np.log(c - base[seg]) + mq[seg] + beta * t - log_tot[seg]
        ok = v <= math.log(1e-12 / max(self.ntot, 1))
        # the last atom of each factor passing (atoms pass from the first on)
        cnt = np.add.reduceat(ok.astype(np.int64), starts)
        j = starts + cnt - 1
        return [float(t[jj]) if n > 0 and jj <= e else -math.inf
                for jj, n, e in zip(j.tolist(), cnt.tolist(), ends.tolist(), strict=True)]

    def _sorted_plan(self, order: int) -> tuple[np.ndarray, ...]:
        """The planning atoms of all factors sorted within each factor (losses, log
        Q-masses, segment starts, segment of each atom)."""
        key = ("sorted", order)
        if key not in self._memo:
            self.plan_kgf(order)
            ts, ls, lens = [], [], []
            for t, q, _ in self._plans[order][1]:
                keep = (q > 0) & np.isfinite(t)
                t, q = t[keep], q[keep]
                if t.size == 0:  # keep the segment: one atom of no weight
                    t, q = np.zeros(1), np.full(1, 1e-300)
                o = np.argsort(t, kind="stable")
                ts.append(t[o])
                ls.append(np.log(q[o]))
                lens.append(t.size)
            starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
            seg = np.repeat(np.arange(len(lens)), lens)
            self._memo[key] = (np.concatenate(ts), np.concatenate(ls), starts, seg)
        return self._memo[key]

    def lats(self, side: str, h: float, order: int, beta: float = 0.0
             ) -> list[tuple[_Lat, int]]:
        """The factors of one order discretised on one side (windows per
        :meth:`_windows`; the planning lattice ``h0`` is untilted)."""
        wins = self._windows(h, order, beta)
        fs = self.factors(order)
        coarse = tuple(self._coarse_cells(beta, fa.pess, h, ka, kb, fa.n)
                       for fa, (ka, kb) in zip(fs, wins, strict=True)) \
            if side == "pess" else ()
        # (the other side's lattice trades its loss shift against atoms moved down by the
        # frame's tilted weights: one per tilt)
        key = (side, h, order, wins, coarse) if side == "pess" else \
            (side, h, order, wins, beta)
        if key not in self._lats:
            if side == "opt":
                self._stacked_offsets(h, fs, "opt")
                wins = tuple(self._opt_window(h, order, fa, w) for fa, w in zip(fs, wins,
                                                                                strict=True))
            lats: list[_Lat | None] = [None] * len(fs)
            # factors of one structure are discretised together (long lists); not the other
            # side's with a pile region (a phase's rarely sampled bulk, :meth:`_pile`)
            groups: dict[Any, list[int]] = {}
            for i, fa in enumerate(fs):
                law = fa.pess if side == "pess" else fa.opt
                if side == "opt" and self._pile(law, h, fa.n) is not None:
                    continue
                bk = law._batch_key()
                if bk is not None:
                    groups.setdefault(bk, []).append(i)
            for idx in groups.values():
                if len(idx) < 4:
                    continue
                ls = [fs[i].pess if side == "pess" else fs[i].opt for i in idx]
                fn = _disc_pess_batch if side == "pess" else _disc_opt_batch
                res = fn(ls, h, [wins[i] for i in idx],
                         [self._off(law, h, fs[i].n, side) for law, i in zip(ls, idx,
                                                                             strict=True)])
                for i, lat in zip(idx, res, strict=True):
                    lats[i] = lat
            for i, (fa, (ka, kb)) in enumerate(zip(fs, wins, strict=True)):
                if lats[i] is not None:
                    continue
                if side == "pess":
                    lats[i] = _disc_pess(fa.pess, h, ka, kb, self._off(fa.pess, h, fa.n),
                                         coarse[i])
                else:
                    lats[i] = _disc_opt(fa.opt, h, ka, kb, self._off(fa.opt, h, fa.n, side),
                                        self._pile(fa.opt, h, fa.n), tilt=beta, factors=fa.n)
            self._lats[key] = [(lat, fa.n) for lat, fa in zip(lats, fs, strict=True)]
        return self._lats[key]

    def _stacked_offsets(self, h: float, fs: list[_Factor], side: str) -> None:
        """The offsets that :meth:`_off` finds by :func:`~gdp.engine.planning._offset`'s
        bulk search at step ``h``, for the factors without atoms of each batch key of four
        laws or more in one stacked search (:func:`~gdp.engine.planning._offsets_at_once`:
        the same values), remembered as :meth:`_off` remembers them: on the sound side the
        factors whose bulk is looked for (:meth:`_looks_for_bulk`: the phases of a run), on
        the other the single factors of a long list. 250 subsampled Gaussians among 1,000
        mechanisms: their searches took 0.08 to 0.64 s a step one by one, 0.014 to 0.056 s
        so."""
        items: list[tuple[Law, int]] = []
        for fa in fs:
            law, n = (fa.pess, fa.n) if side == "pess" else (fa.opt, 1)
            searched = self._looks_for_bulk(n) if side == "pess" else \
                fa.n == 1 and not self._looks_for_bulk(1)
            if searched and ("o", side, id(law), h, n) not in self._memo and \
                    not law.atoms()[0].size:
                items.append((law, n))
        for idx in _batch_groups([law for law, _ in items]):
            offs = _offsets_at_once([items[i][0] for i in idx], h)
            for i, off in zip(idx, offs, strict=True):
                law, n = items[i]
                self._memo[("o", side, id(law), h, n)] = off

    def _opt_window(self, h: float, order: int, fa: _Factor, win: tuple[int, int]
                    ) -> tuple[int, int]:
        """The other side's window of a single factor of a long list: one point lower where
        its offset (the bulk's merged loss on a point, :meth:`_off`) lies above the sound
        side's, whose window's lowest point can hold the bulk of a rarely sampled step (the
        lowest half-cell is dropped on this side); ``win`` elsewhere."""
        ka, kb = win
        if fa.n == 1 and not self._looks_for_bulk(1) and \
                self._off(fa.opt, h, 1, "opt") > self._off(fa.pess, h, 1):
            return ka - 1, kb
        return ka, kb

    def kgf(self, side: str, h: float, order: int, beta: float = 0.0) -> _KGF:
        lats = self.lats(side, h, order, beta)
        key = id(lats)
        if key not in self._kgfs:
            self._kgfs[key] = _KGF(lats, h)
        return self._kgfs[key]

    def q_infinity(self, side: str, h: float, order: int, beta: float = 0.0) -> float:
        """Q[S = +inf] of the composed lattice law, rounded to the side."""
        return self._rounded_q_inf(side, _composed_q_inf(
            (lat.q_inf, n) for lat, n in self.lats(side, h, order, beta)))

    def _rounded_q_inf(self, side: str, qi: float) -> float:
        """A composed mass at +inf, :func:`_composed_q_inf`, rounded to the side."""
        f = 1.0 + 8 * EPS * (self.ntot + 2) if side == "pess" else 1.0 - 8 * EPS * (
            self.ntot + 2)
        return min(qi * f, 1.0)

    # -- tilts --------------------------------------------------------------
    def _question_tilt(self, order: int, kind: str, x: float
                       ) -> tuple[float, float, float, float, float, float] | None:
        """``(λ, K, K', K'', ε, sd0)`` of the planning law for the question (:meth:`plan`):
        for ε at δ = x the tilt minimising its moment bound and the ε that bound gives,
        for δ at ε = x the saddle-point tilt and x; ``sd0`` its untilted spread (at least
        ``h0``). None where the answer needs no frame (no law, δ at most the mass at
        +inf, ε beyond the support). Remembered (the plan and order -1's moment bound ask
        it)."""
        key = ("tilt", order, kind, x)
        if key in self._memo:
            return self._memo[key]
        h = self.h0
        kgf = self.plan_kgf(order)
        out = None
        if kgf.empty:
            self._memo[key] = out
            return out

        def F(lam: float) -> tuple[float, float, float]:
            K, K1, K2 = kgf(np.array([lam]))
            return float(K[0]), float(K1[0]), float(K2[0])

        qi = self.law_q_inf(order)
        _, _, v0 = F(0.0)
        sd0 = math.sqrt(max(v0, h * h))
        lo, hi = 1e-8 / sd0, max(1e8 / sd0, 1e4)
        if kind == "eps":
            room = x - qi
            if room > 0:
                lr = math.log(room)

                def G(lam: float) -> tuple[float, float]:
                    K, K1, K2 = F(lam)
                    c, c1, c2 = _c(lam)
                    return lam * (K1 + c1) - (K + c - lr), lam * (K2 + c2)

                guess = math.sqrt(max(-2.0 * lr, 1.0)) / sd0
                lam = _increasing_root(G, lo, hi, guess, 1e-4)
                K, K1, K2 = F(lam)
                out = (lam, K, K1, K2, (K + _c(lam)[0] - lr) / lam, sd0)
        elif not x >= kgf.tmax + 4 * EPS * (1.0 + abs(kgf.tmax)) + 1e-9 * (1.0 + abs(x)):

            def G(lam: float) -> tuple[float, float]:
                K, K1, K2 = F(lam)
                c, c1, c2 = _c(lam)
                return K1 + c1 - x, K2 + c2

            lam = _increasing_root(G, lo, hi, 1.0 / sd0, 1e-4)
            K, K1, K2 = F(lam)
            out = (lam, K, K1, K2, x, sd0)
        self._memo[key] = out
        return out

    def plan(self, order: int, kind: str, x: float) -> tuple[float, float] | None:
        """(h, lam) of the frame answering ε at δ = x (``kind='eps'``) or δ at ε = x
        (``kind='delta'``) for one order; None when the answer needs no frame.

        ε at δ: the tilt minimising the moment (Chernoff) bound, with the step for the ε
        that bound gives; but where the Gaussian estimate of the answer
        (:func:`~gdp.engine.planning._gauss_eps`) is under half that ε, the frame of the δ
        question at the estimate. δ at ε: the saddle-point tilt of the moment bound at
        ε."""
        t = self._question_tilt(order, kind, x)
        if t is None:
            return None
        lam, K, K1, K2, eps, sd0 = t
        sd = math.sqrt(max(K2, 0.0))
        if kind == "eps":
            # (where the answer is estimated at under half the Chernoff ε, the frame of the
            # δ question at the estimate, which :meth:`_refine_step` would otherwise add
            # after a first frame at the Chernoff tilt: rare events, long runs at small p)
            lr = math.log(x - self.law_q_inf(order))
            est = _gauss_eps(K, K1, K2, lam, lr, eps, only_below=0.5 * eps)
            pd = self.plan(order, "delta", est) if 0.0 < est < 0.5 * eps else None
            if pd is not None:
                sd_d = self._memo[("plan-eps", order, "delta", est)][1]
                self._memo[("plan-eps", order, kind, x)] = (eps, sd_d)
                return pd
        hq = self.step_for(lam, max(eps, 0.0), sd if sd > 0 else sd0)
        self._memo[("plan-eps", order, kind, x)] = (eps, sd if sd > 0 else sd0)
        lam_q = _quantise(lam, 1.0, _TILTS_PER_OCTAVE, down=False)
        if self.acc.grid_step is None:
            # no factor's lattice over 2**21 points: coarser steps where the rule's step
            # would need more (far tails of a factor at a tiny tolerance)
            for _ in range(64):
                try:
                    wins = self._windows(hq, order, lam_q, cap=_FACTOR_CAP)
                    break
                except ValueError:
                    hq = self._align(_quantise(2.0 * hq, self.h0, _STEPS_PER_OCTAVE))
            else:
                wins = ()
            # (the most points a planned frame's windows held: what order -1's moment bound
            # would discretise in a long list, :meth:`_grid_pays`)
            key = ("planned-points", order)
            self._memo[key] = max(self._memo.get(key, 0),
                                  sum(kb - ka + 1 for ka, kb in wins))
        return hq, lam_q

    # -- levels -------------------------------------------------------------
    def _level(self, side: str, order: int, h: float, lam: float) -> _Level:
        """The factors' lattice laws of one side at step ``h``, to be composed in one
        level."""
        lats = self.lats(side, h, order, lam)
        kgf = self.kgf(side, h, order, lam)
        return _Level(h, math.fsum(n * lat.off for lat, n in lats), kgf,
                      lambda: list(zip(_tilt_many([lat for lat, _ in lats], lam, h),
                                       [n for _, n in lats], strict=True)),
                      math.fsum(n * lat.shift for lat, n in lats),
                      self.q_infinity(side, h, order, lam),
                      kgf if side == "pess" else None)

    def _long_groups(self) -> list[int] | None:
        """The groups a level in blocks serves (:meth:`_blocked`): those of ``_BLOCK_MIN``
        factors or more, at most ``_LONG_GROUPS`` of them, where the other groups hold at
        most ``_SHORT_FACTORS`` factors in all (a split's jump term: one jump factor beside
        the bulk's power, :meth:`_jump_parts`; a run in phases); None elsewhere."""
        ns = [n for _, n in self.groups]
        long = [i for i, n in enumerate(ns) if n >= _BLOCK_MIN]
        if not long or len(long) > _LONG_GROUPS or \
                self.ntot - sum(ns[i] for i in long) > _SHORT_FACTORS:
            return None
        return long

    def _one_lat(self, h: float, order: int, beta: float, i: int, cap: int) -> _Lat:
        """Group ``i``'s sound lattice law at step ``h`` and tilt ``beta`` (window per
        :meth:`_window_one`, at most ``cap`` points): for a power of one factor, that of
        :meth:`lats`; else discretised alone (remembered)."""
        if len(self.groups) == 1:
            self._windows(h, order, beta, cap=cap)
            return self.lats("pess", h, order, beta)[0][0]
        ka, kb = self._window_one(h, order, beta, i, cap)
        fa = self.factors(order)[i]
        coarse = self._coarse_cells(beta, fa.pess, h, ka, kb, fa.n)
        key = ("one-lat", h, order, i, ka, kb, coarse)
        if key not in self._memo:
            self._memo[key] = _disc_pess(fa.pess, h, ka, kb, self._off(fa.pess, h, fa.n),
                                         coarse)
        return self._memo[key]

    def _blocked(self, order: int, h: float, lam: float, log_eta: float, width: float,
                 extended: bool = False) -> _Level | None:
        """A long power on the sound side in two levels (:mod:`gdp.engine.coarsening`):
        blocks of ``m = r**2`` factors of each long group (:meth:`_long_groups`) on the
        step ``h / sqrt(2)`` (``h / 2`` beside other groups' few factors), coarsened to
        ``r`` times that, composed with those few factors discretised at that coarse step,
        in double or (``extended``) in the platform's long double; None where one level is
        about as fast (short powers, small windows, many groups, atomic factors or a
        lattice step given by the caller). Each part is a sound lattice law, so their
        composition is sound; the coarse step costs the few factors little accuracy:
        connect-the-dots errs by about its step squared once per factor, as it does once
        per block of a long group."""
        longs = self._long_groups()
        if longs is None or self.gap > 0 or self.acc.grid_step is not None:
            return None
        ns = [self.groups[i][1] for i in longs]
        if not width / h > 1 << 15:
            return None
        short = [j for j in range(len(self.groups)) if j not in longs]
        one = len(longs) == 1 and not short   # (a power of one factor)
        if len(longs) > 1 and any(self._rarely_sampled(self.factors(order)[i].pess)
                                  for i in longs):
            # (rarely sampled phases: their bulks, narrower than a step, came out looser
            # and slower in blocks, 0.1067 -> 0.1075 in 1.5 s instead of 0.5 s at sigma =
            # 0.7 and 0.9, p = 3e-6 and 5e-6, 3M steps each, delta = 1e-10)
            return None
        # (beside few other factors, h / 2: a split's jump term, whose bulk, narrower than
        # a step, one level's offset puts on lattice points (its error then under n h^2/6);
        # at h / sqrt(2) its sound δ came out about twice as far above the limit as one
        # level's at h, at h / 2 below it, measured at sigma = 0.58, p = 1.4e-6, 3.83M steps)
        hf = _quantise(h / (2.0 if short else math.sqrt(2.0)), self.h0, _STEPS_PER_OCTAVE)
        # the few factors' windows (one level discretises them at h, blocks at r hf)
        cap = self.acc.max_points
        try:
            ws = math.fsum(self.groups[j][1] * (kb - ka + 1) * h for j in short
                           for ka, kb in (self._window_one(h, order, lam, j, cap),))
        except ValueError:
            return None
        wins = self._memo.get(self._windows_key(h, order, lam))
        if wins and one and not isinstance(wins[0], str):
            # (the factor's window at step h, known, spans the same quantiles as at hf to
            # within a few steps; each cost of the plan less 0.6 of one level's is concave
            # in the window (n1 is a minimum of two linear functions), so where no plan
            # qualifies at either end of that range none does in it: the windows at hf,
            # an offset search among them, are not needed)
            w0 = (wins[0][1] - wins[0][0] + 1) * h
            if all(self._block_plan(ns, width, [w], h, hf) is None
                   for w in (max(w0 - 8.0 * h, 0.0), w0 + 8.0 * h)):
                return None
        try:  # (the finer step must keep each factor's lattice as small as one level's)
            wfs = [(kb - ka + 1) * hf for ka, kb in
                   (self._window_one(hf, order, lam, i, _FACTOR_CAP) for i in longs)]
        except ValueError:
            return None
        if self._block_plan(ns, width, wfs, h, hf, ws=ws) is None:
            return None
        # (the planning law's tilted spread can be far too large for heavy tails: the
        # lattice law's decides; for a costly fine lattice, first that of a lattice 4 times
        # coarser, a quarter of the cost, whose spread connect-the-dots widens by a cell
        # per factor: where no plan qualifies at the width from 1.25 times its variance,
        # none does at the fine one's, as none does at the least width, wf (the cost less
        # 0.6 of one level's is concave in the width). The fine lattice was discretised in
        # vain in 74 of the 290 plans of a scan of 400 configurations, 0.88 s of 13 s;
        # the coarse one told each)
        if not self._block_may_pay(order, ns, hf, lam, log_eta, width, wfs, h, longs, ws):
            return None
        lats = [self._one_lat(hf, order, lam, i, _FACTOR_CAP) for i in longs]
        fines = [_KGF([(lat, n)], hf) for lat, n in zip(lats, ns, strict=True)]
        # (each long group's own width: the other groups' spread is theirs, not its blocks')
        spreads = [3.0 * math.sqrt(-2.0 * log_eta * max(float(f(np.array([lam]))[2][0]),
                                                         0.0)) + wf
                   for f, wf in zip(fines, wfs, strict=True)]
        if one:
            width = min(width, spreads[0])
        plan_b = self._block_plan(ns, width, wfs, h, hf, ws=ws,
                                  long_widths=[min(width, w) for w in spreads])
        if plan_b is None:
            return None
        r, m, owns = plan_b
        H = r * hf
        try:
            few = [(self._one_lat(H, order, lam, j, cap), self.groups[j][1]) for j in short]
        except ValueError:
            return None
        qs = [divmod(n, m) for n in ns]
        log_eta_b = log_eta + math.log(1e-4) - math.log(math.fsum(q + 1.0 for q, _ in qs))
        self.plan_kgf(order)
        pr = _EXTENDED if extended else _DOUBLE
        blocks: list[tuple[Any, int]] = []
        for i, lat, n, (q, rem), own in zip(longs, lats, ns, qs, owns, strict=True):
            # the Q-mass above a block's window goes to +inf: the factors' share of it
            log_tol = math.log(self._factor_tol(order, lam, i) * n / (q + 1.0))
            key = ("block", order, hf, r, m, lam, log_eta_b, log_tol, extended, self._top, i)
            if key not in self._memo:
                t1, q1, _ = self._plans[order][1][i]
                plan = _KGF.of_atoms([(t1, q1, 1)])

                def block(k: int, lat: _Lat = lat, log_tol: float = log_tol,
                          plan: _KGF = plan) -> Any:
                    return _block(lat, k, hf, r, lam, log_eta_b, log_tol, cap, plan, pr)

                try:
                    bs = [(block(m), q)]
                    if rem and own:
                        bs.append((block(rem), 1))
                    elif rem:  # the rest as single coarsened factors (m * m <= n / 4)
                        bs.append((block(1), rem))
                except ValueError:
                    bs = None
                self._memo[key] = bs
            if self._memo[key] is None:
                return None
            blocks += self._memo[key]
        return _level_of_blocks(
            H, math.fsum([n * lat.off for lat, n in zip(lats, ns, strict=True)]), blocks,
            few, lam, fines[0] if one else _KGF.of_lattices(
                [(lat, hf, n) for lat, n in zip(lats, ns, strict=True)] +
                [(f, H, c) for f, c in few]))

    def _in_phases(self, order: int, h: float, lam: float, log_eta: float, width: float,
                   extended: bool = False) -> _Level | None:
        r"""A list of powers (a run in phases) on the sound side in two levels
        (:mod:`gdp.engine.coarsening`): each group of two factors or more composed alone as
        one block on its own fine step :math:`h_i = H/r_i` (:math:`r_i` a power of two)
        and coarsened to the common step H, a group whose fine step would be H (and each
        single factor) discretised at H, all composed on H; None where the estimated work
        is over ``_PHASES_PAY`` of one level's (:meth:`_phases_plan`), or with a lattice
        step given by the caller, or for lists that a level in blocks serves
        (:meth:`_long_groups`).

        Connect-the-dots adds about :math:`h^2/6` to the variance of each factor's loss.
        One level adds :math:`n h^2/6` in all (n factors), the rule's error. Here the
        factors add :math:`\sum_i n_i h_i^2/6`, planned as :math:`n h^2/48`
        (``_PHASES_FINER``), and the F coarsenings (one per group) :math:`F H^2/6` with
        :math:`H^2 = n h^2/(32 F)` (``_PHASES_COARSER``), :math:`n h^2/192`: a third of the
        rule's. In one level the rarely sampled steps err far less than the rule's
        :math:`h^2/6` each (their narrow bulks sit on lattice points, :meth:`_off`); a
        block's coarsened bulk does not, and at a budget equal to the rule's (:math:`H^2 =
        n h^2/(2F)`, :math:`h_f = h/\sqrt2`) the 21 longest of 166 rarely sampled phases
        came out 0.28% above gdp's sound end at ``rtol=1e-4`` in one level, 0.04% at this
        one. Measured at this one: within 0.016% of that sound end (from 0.010% below it,
        never below its lower end) on the 14 phase lists of the benchmark and 24 random
        lists of 5 to 40 phases. Where the groups are many and short, H is hardly coarser
        than h and one level is kept. Each block is a sound lattice law (its coarsening by
        connect-the-dots keeps it so), so the composition is sound, as for
        :meth:`_blocked`; :math:`r_i h_i = H` exactly (a power of two)."""
        plan = self._phases_plan(order, h, lam, log_eta, width)
        if plan is None:
            return None
        H, rs = plan
        parts = self._phase_lats(order, H, rs, lam)
        if parts is None:
            return None
        fine, few = parts
        cap = self.acc.max_points
        log_eta_b = log_eta + math.log(1e-4) - math.log(len(fine))
        pr = _EXTENDED if extended else _DOUBLE
        blocks: list[tuple[Any, int]] = []
        for i, lat in fine:
            n, r = self.groups[i][1], rs[i]
            # (the Q-mass above a block's window goes to +inf: one factor's share of it, not
            # the group's (n times that, as _blocked charges its blocks): the budget is
            # 1e-4 of the planning law's moment bound, which can lie far above δ, and 21
            # rarely sampled phases of 5.5e4 to 5.1e5 steps charged 2.6e-13 at δ = 1.2e-11,
            # their ε 0.37% too high)
            log_tol = math.log(self._factor_tol(order, lam, i))
            key = ("phase-block", order, H, r, lam, log_eta_b, log_tol, extended, self._top,
                   i)
            if key not in self._memo:
                t1, q1, _ = self._plans[order][1][i]
                b = None
                # (the block's window from its planning atoms, else from its own lattice
                # law: a short power of a law whose upper tail the planning atoms thin out
                # got a window that missed most of its own tail, its Q-mass above the
                # window bounded by 1 (sigma = 2.6, p = 3.8e-4, 47 steps, among 166
                # phases: the answer was inf))
                for guide in (_KGF.of_atoms([(t1, q1, 1)]), _KGF([(lat, 1)], H / r)):
                    try:
                        b = _block(lat, n, H / r, r, lam, log_eta_b, log_tol, cap, guide, pr)
                    except ValueError:
                        b = None
                        break
                    if b.q_inf <= n * lat.q_inf * (1.0 + 1e-6) + 16.0 * math.exp(log_tol):
                        break
                    b = None
                self._memo[key] = b
            if self._memo[key] is None:
                return None
            blocks.append((self._memo[key], 1))
        return _level_of_blocks(
            H, math.fsum([self.groups[i][1] * lat.off for i, lat in fine]), blocks, few, lam,
            self._phase_kgf(H, rs, fine, few))

    def _other_in_phases(self, order: int, h: float, lam: float, log_eta: float,
                         width: float, extended: bool = False) -> _Level | None:
        r"""A list of powers on the other side in two levels, at the coarse step H of its
        plan in phases (:meth:`_phases_plan`, the sound side's but for its bounds on r and
        on the work): each group of two factors or more composed alone on its fine step
        :math:`H/r_i` (:meth:`_other_fine`: the plan's :math:`r_i`, half or twice it) and
        garbled onto H (:func:`~gdp.engine.coarsening._other_block`), the rest discretised
        at H, all composed on H; None where there is no such plan (one level), or a window
        or block exceeds its cap of points.

        One level garbles each factor at the common step, set by the list's heaviest
        phases. A rarely sampled phase of small loss then has its bulk and the slope above
        it within a step or two, and its balancing drops a first-order part of its Q-mass
        per factor, which its count multiplies: 30 phases of 12,000 to 8 million steps at
        p from 1e-6 to 1e-4 lost e^-267 of their composed tilted mass, and the other side's
        ε at δ = 1e-2 was 0 (the sound one 3.19). A block composed on its own fine step is
        smooth on the coarse one, and its garbling costs about H² once.

        The frame subtracts the blocks' composed errors (:func:`_other_block`): each
        block's :math:`\ell_1` bound :math:`e^{E_i}` goes to its tilted factor's l1 part,
        relative to its garbled tilted mass :math:`e^{K_i}`, times :math:`e^{\sum_{j \ne i}
        (A_j - K_j)}`, the other blocks' bounds on their masses over their garbled ones."""
        plan = self._phases_plan(order, h, lam, log_eta, width, other=True)
        if plan is None:
            return None
        H, rs = plan
        cap = self.acc.max_points
        try:
            steps = [self._other_fine(order, H, r, lam, i) if self.groups[i][1] > 1
                     else (1, self._other_lat(H, order, lam, i, cap))
                     for i, r in enumerate(rs)]
        except ValueError:
            return None
        rs = tuple(r for r, _ in steps)
        fine = [(i, lat) for i, (r, lat) in enumerate(steps) if r > 1]
        if not fine:  # (every group at H: one level, at the finer step h)
            return None
        few = [(lat, self.groups[i][1]) for i, (r, lat) in enumerate(steps) if r == 1]
        log_eta_b = log_eta + math.log(1e-4) - math.log(len(fine))
        pr = _EXTENDED if extended else _DOUBLE
        self.plan_kgf(order)
        blocks = []
        for i, lat in fine:
            n, r = self.groups[i][1], rs[i]
            key = ("other-phase-block", order, H, r, lam, log_eta_b, extended, i,
                   self._depths(order, lam))
            if key not in self._memo:
                t1, q1, _ = self._plans[order][1][i]
                try:
                    self._memo[key] = _other_block(lat, n, H / r, r, lam, log_eta_b, cap,
                                                   _KGF.of_atoms([(t1, q1, 1)]), pr)
                except ValueError:
                    self._memo[key] = None
            if self._memo[key] is None:
                return None
            blocks.append(self._memo[key])
        return self._other_level(H, blocks, few, lam)

    def _other_level(self, H: float, blocks: list[_OtherBlock], few: list[tuple[_Lat, int]],
                     lam: float) -> _Level:
        """The other side's level of garbled ``blocks`` (:meth:`_other_in_phases`,
        :meth:`_other_in_atoms`) and lattice laws ``few`` at the step ``H``, each block's
        composed error added to its tilted factor's l1 part (relative to its garbled tilted
        mass) times the other blocks' bounds on their masses over their garbled ones."""
        parts = [(b.lat, 1) for b in blocks] + few
        qi = self._rounded_q_inf("opt", _composed_q_inf(
            [(lat.q_inf, n) for lat, n in parts]))

        def items() -> list[tuple[_Tilted, int]]:
            tl = _tilt_many([lat for lat, _ in parts], lam, H)
            tb = tl[:len(blocks)]
            over = [b.log_mass - it.K for b, it in zip(blocks, tb, strict=True)]
            total = math.fsum(over)
            for b, it, o in zip(blocks, tb, over, strict=True):
                with np.errstate(over="ignore"):
                    it.rho += math.exp(b.log_l1 - it.K + total - o) * (1.0 + 1e-9) \
                        if math.isfinite(it.K) else math.inf
            return list(zip(tl, [n for _, n in parts], strict=True))

        return _Level(H, math.fsum(n * lat.off for lat, n in parts),
                      _KGF(parts, H), items,
                      math.fsum(n * lat.shift for lat, n in parts), qi, None)

    def _may_block_atoms(self) -> bool:
        """Whether :meth:`_other_in_atoms` may serve this engine's other side: a long list
        (a short one's other side takes a lattice four times finer where a factor has atoms
        off it, :meth:`_frame_span`), no lattice step given by the caller or aligned to
        atoms, not served by a level in blocks."""
        return len(self.groups) > _FEW_GROUPS and self.gap == 0 and \
            self.acc.grid_step is None and self._long_groups() is None

    def _other_in_atoms(self, order: int, h: float, lam: float, log_eta: float,
                        extended: bool = False) -> _Level | None:
        r"""The other side of a long list whose single factors have atoms, in two levels:
        those factors in blocks of ``_ATOM_BLOCK``, each composed on the fine step
        :math:`h/r` and garbled onto h (:func:`~gdp.engine.coarsening._other_list_block`),
        the other factors discretised at h, all composed on h (:meth:`_other_level`); None
        where fewer than ``_ATOM_BLOCK_MIN`` such factors lose more than their share at h
        (:meth:`_atoms_fine`), or a block exceeds ``max_points``.

        An atom off the lattice costs the other side a first-order part of its tilted mass
        (a garbling merges, it cannot split the atom between two points as the sound side
        does), and a list repeats that per factor: 1,000 randomized responses of ε in
        [0.01, 0.05] lost e^-0.245 of their composed tilted mass at δ = 1e-6, a bracket
        0.97% wide; a list of 1,000 mixed mechanisms (a quarter each Gaussian, Laplace,
        randomized response, subsampled Gaussian) was 0.69% wide."""
        fine = self._atoms_fine(order, h, lam)
        if fine is None:
            return None
        r, idx, lats = fine
        nb = -(-len(idx) // _ATOM_BLOCK)
        log_eta_b = log_eta + math.log(1e-4) - math.log(nb)
        pr = _EXTENDED if extended else _DOUBLE
        blocks = []
        for b in range(nb):
            key = ("other-atom-block", order, h, r, lam, log_eta_b, extended, b,
                   self._depths(order, lam))
            if key not in self._memo:
                try:
                    self._memo[key] = _other_list_block(
                        lats[b * _ATOM_BLOCK:(b + 1) * _ATOM_BLOCK], h / r, r, lam, log_eta_b,
                        self.acc.max_points, pr)
                except ValueError:
                    self._memo[key] = None
            if self._memo[key] is None:
                return None
            blocks.append(self._memo[key])
        sel = set(idx)
        few = [p for i, p in enumerate(self.lats("opt", h, order, lam)) if i not in sel]
        return self._other_level(h, blocks, few, lam)

    def _atoms_fine(self, order: int, h: float, lam: float
                    ) -> tuple[int, list[int], list[_Lat]] | None:
        r"""``(r, factors, lattices)`` of :meth:`_other_in_atoms`: the single factors whose
        other side's law has atoms, and their lattice laws on the step ``h / r``. At h
        they lose :math:`D` of their summed log tilted mass at ``lam`` below their planning
        atoms' (a fine garbling, a little below the true laws); r is the power of two
        (4 to ``_ATOM_R_MAX``) that brings :math:`D/r`, this side's loss being first order in
        the step, within their share of :math:`\mathrm{rtol}\,\lambda\,\bar s/2` (their
        part of the groups; :math:`\bar s` the planning law's tilted mean, which lies above
        the ε the frame answers, up to twice it: 2.61 for ε = 1.39 in a list of 100 mixed
        mechanisms, whose bracket was 0.24% wide at the whole share, 0.17% at half), at
        most ``_ATOM_POINTS`` points in all. None where there are fewer than
        ``_ATOM_BLOCK_MIN`` such factors, or they lose no more than their share at h."""
        key = ("atoms-fine", order, h, lam, self._depths(order, lam))
        if key in self._memo:
            return self._memo[key]
        fs = self.factors(order)
        idx = [i for i, fa in enumerate(fs) if fa.n == 1 and fa.opt.atoms()[0].size]
        out = None
        if len(idx) >= _ATOM_BLOCK_MIN:
            coarse = self.lats("opt", h, order, lam)
            # (a factor too wide for the least coarsening stays at h)
            idx = [i for i in idx if 4 * coarse[i][0].q.size <= _ATOM_FACTOR_POINTS]
        if len(idx) >= _ATOM_BLOCK_MIN:
            widest = max(coarse[i][0].q.size for i in idx)
            lam_a = np.array([lam])
            _, (mean,), _ = self.plan_kgf(order)(lam_a)  # (which sets self._plans)
            plans = self._plans[order][1]
            (k_plan,), _, _ = _KGF.of_atoms([(plans[i][0], plans[i][1], 1) for i in idx])(
                lam_a, derivs=False)
            (k_h,), _, _ = _KGF([coarse[i] for i in idx], h)(lam_a, derivs=False)
            share = 0.5 * self.acc.rtol * lam * max(float(mean), 0.0) * len(idx) / len(fs)
            loss = float(k_plan) - float(k_h)
            points = sum(coarse[i][0].q.size for i in idx)
            if math.isfinite(loss) and share > 0 and loss > share:
                r = 4
                while r < _ATOM_R_MAX and loss > r * share and 2 * r * points <= _ATOM_POINTS \
                        and 2 * r * widest <= _ATOM_FACTOR_POINTS:
                    r *= 2
                if r * points <= _ATOM_POINTS:
                    out = (r, idx, self._atom_lats(order, h / r, lam, idx))
        self._memo[key] = out
        return out

    def _atom_lats(self, order: int, h: float, lam: float, idx: list[int]) -> list[_Lat]:
        """The other side's lattice laws of the factors ``idx`` at the step ``h`` (windows
        per :meth:`_factor_window`; those of one structure discretised together)."""
        fs = self.factors(order)
        wins = [self._factor_window(h, order, lam, i) for i in idx]
        _check_cap(wins, _FACTOR_CAP)
        offs = [self._off(fs[i].opt, h, 1, "opt") for i in idx]
        out: dict[int, _Lat] = {}
        by_key: dict[Any, list[int]] = {}
        for j, i in enumerate(idx):
            bk = fs[i].opt._batch_key()
            if bk is None:
                ka, kb = wins[j]
                out[j] = _disc_opt(fs[i].opt, h, ka, kb, offs[j], None, tilt=lam, factors=1)
            else:
                by_key.setdefault(bk, []).append(j)
        for js in by_key.values():
            res = _disc_opt_batch([fs[idx[j]].opt for j in js], h, [wins[j] for j in js],
                                  [offs[j] for j in js])
            out.update(zip(js, res, strict=True))
        return [out[j] for j in range(len(idx))]

    def _other_fine(self, order: int, H: float, r: int, lam: float, i: int
                    ) -> tuple[int, _Lat]:
        r"""Group ``i``'s coarsening on the other side and its lattice law at ``H / r``: the
        plan's ``r`` (:meth:`_in_phases`) where its n factors' log tilted mass at ``lam``
        lies within its equal share of :math:`\mathrm{rtol}\,\lambda\,\bar s` below its
        planning atoms' (:math:`\bar s` the planning law's tilted mean, about the ε the
        frame answers; the planning atoms, a fine garbling of the factor, lie a little
        below the true law); else, of r, half and twice it, the one with the largest (each
        lies below the true law's: the largest is the tightest), the other two tried where
        their windows hold at most ``_OTHER_TRY_POINTS`` points. (Halving first, and
        doubling only where that did not gain, left a list of 35 rarely sampled phases
        0.26% wide, not 0.003%: the gain is not monotone. Trying all three for every group
        took 5.1 s for the other side of 162 rarely sampled phases, 2.2 s so.)

        This side's error is not monotone in the step. A factor much narrower than the step
        sits on one point, its bulk's merged loss (:func:`~gdp.engine.planning._other_offset`),
        and loses only its own small spread; one much wider errs by the step squared; but
        where a rarely sampled step's bulk and the slope above it lie within a step or two,
        the balancing drops a first-order part of the Q-mass, which n repeats (σ = 1.85,
        p = 2e-6, 6.3 million steps: e^-2.84 at the step 4.5e-6, e^-4.7e-5 at twice it, and
        e^4e-5 the truth). A much wider factor, in the plan's lattice, is not helped by a
        finer one (a rarely sampled phase at σ = 0.41: 2.3072 at the plan's step, 2.3055
        at a quarter of it, 2.3075 at an eighth, for a true 2.3079 or below)."""
        n = self.groups[i][1]
        t1, q1, _ = self._plans[order][1][i]
        _, (mean,), _ = self.plan_kgf(order)(np.array([lam]))
        (k_plan,), _, _ = _KGF.of_atoms([(t1, q1, 1)])(np.array([lam]), derivs=False)
        share = self.acc.rtol * lam * max(float(mean), 0.0) / \
            max(sum(1 for _, m in self.groups if m > 1), 1)
        best: tuple[float, int, _Lat] | None = None
        for rc in (r, max(r // 2, 1), 2 * r):
            if best is not None and (rc == r or n * (float(k_plan) - best[0]) <= share):
                continue
            hf = H / rc
            if rc != r:
                try:
                    self._window_one(hf, order, lam, i, _OTHER_TRY_POINTS)
                except ValueError:
                    continue
            lat = self._other_lat(hf, order, lam, i, _FACTOR_CAP if rc > 1 else
                                  self.acc.max_points)
            k = float(_KGF([(lat, 1)], hf)(np.array([lam]), derivs=False)[0][0])
            if best is None or k > best[0]:
                best = (k, rc, lat)
        assert best is not None
        return best[1], best[2]

    def _other_lat(self, h: float, order: int, beta: float, i: int, cap: int) -> _Lat:
        """Group ``i``'s factor on the other side at step ``h`` and tilt ``beta``, alone
        (window per :meth:`_window_one`, at most ``cap`` points; remembered)."""
        ka, kb = self._window_one(h, order, beta, i, cap)
        fa = self.factors(order)[i]
        key = ("other-lat", h, order, i, ka, kb, beta)
        if key not in self._memo:
            # (the bulk looked for with the tight upper quartile: a rarely sampled phase of
            # 2.7 million steps at σ = 0.41, p = 3.2e-5 dropped 8e-6 of its Q-mass per step
            # unlooked for, e^-22 in all. One level keeps its offsets and pile regions,
            # which on its single runs did as well)
            self._memo[key] = _disc_opt(
                fa.opt, h, ka, kb, _other_offset(fa.opt, h, True, fa.n, tight=True),
                _pile_top(fa.opt, h, tight=True), tilt=beta, factors=fa.n)
        return self._memo[key]

    def _may_phase(self) -> bool:
        """Whether :meth:`_in_phases` may serve this engine (before its plan): two groups or
        more, one of them a power, not served by a level in blocks, and no lattice step
        given by the caller or aligned to atoms."""
        return len(self.groups) >= 2 and any(n >= 2 for _, n in self.groups) and \
            self.gap == 0 and self.acc.grid_step is None and self._long_groups() is None

    def _phase_lats(self, order: int, H: float, rs: tuple[int, ...], lam: float
                    ) -> tuple[list[tuple[int, _Lat]], list[tuple[_Lat, int]]] | None:
        """The sound lattice laws of :meth:`_in_phases` at tilt ``lam``: ``(i, lattice)``
        for each group ``i`` composed as a block, at its fine step ``H / rs[i]``, and
        ``(lattice, count)`` for each group at ``H`` (``rs[i] == 1``: single factors, and
        powers whose fine step would be H); None where a window is over its cap of
        points."""
        try:
            fine = [(i, self._one_lat(H / r, order, lam, i, _FACTOR_CAP))
                    for i, r in enumerate(rs) if r > 1]
            few = [(self._one_lat(H, order, lam, j, self.acc.max_points), self.groups[j][1])
                   for j, r in enumerate(rs) if r == 1]
        except ValueError:
            return None
        return fine, few

    def _phase_kgf(self, H: float, rs: tuple[int, ...], fine: list[tuple[int, _Lat]],
                   few: list[tuple[_Lat, int]]) -> _KGF:
        """The exact cumulant generating function of the lattice laws of
        :meth:`_phase_lats` (each to its group's power)."""
        return _KGF.of_lattices([(lat, H / rs[i], self.groups[i][1]) for i, lat in fine] +
                                [(f, H, c) for f, c in few])

    def _sound_law(self, order: int, h: float, lam: float) -> tuple[_KGF | None, float,
                                                                      float]:
        """A sound lattice law of the frame of step ``h`` and tilt ``lam`` without
        composing it, for the moment bounds (:meth:`moment_eps`, :meth:`moment_delta`):
        its exact cumulant generating function (None where there is none), loss shift and
        mass at +inf. The factors' laws that frame composes: in one level, or for a list
        in phases (:meth:`_in_phases`) its fine lattices and those at the coarse step
        (whose one-level lattices, which the frame does not use, cost 1.2 s of 3 for 162
        rarely sampled phases)."""
        plan = None
        if self._may_phase():
            _, width = self._blocks_width(order, h, lam, _LOG_ETA)
            plan = self._phases_plan(order, h, lam, _LOG_ETA, width)
        parts = None if plan is None else self._phase_lats(order, *plan, lam)
        if plan is None or parts is None:
            lv = self._level("pess", order, h, lam)
            return lv.sound_kgf, lv.q_inf, lv.shift
        H, rs = plan
        fine, few = parts
        allp = [(lat, self.groups[i][1]) for i, lat in fine] + few
        qi = _composed_q_inf([(lat.q_inf, n) for lat, n in allp])
        return (self._phase_kgf(H, rs, fine, few), self._rounded_q_inf("pess", qi),
                math.fsum(n * lat.shift for lat, n in allp))

    def _blocks_width(self, order: int, h: float, lam: float, log_eta: float
                      ) -> tuple[_Bounds, float]:
        """The planning window of a frame of step ``h`` and tilt ``lam`` and the width of
        a level in blocks or phases (:meth:`_blocked`, :meth:`_in_phases`): that window's,
        at most that expected from the planning law's tilted spread (the planning window
        can be far too wide for tilted heavy tails)."""
        pk = self.plan_kgf(order)
        (_,), (_,), (vp,) = pk(np.array([lam]))
        bd = _window(pk, lam, log_eta, h)
        return bd, min(bd.B - bd.A, 4.0 * math.sqrt(-2.0 * log_eta * max(vp, 0.0)))

    def _phases_plan(self, order: int, h: float, lam: float, log_eta: float, width: float,
                     other: bool = False) -> tuple[float, tuple[int, ...]] | None:
        r"""The coarse step H and each group's coarsening :math:`r_i` of :meth:`_in_phases`
        (1: the group at H), or None where the work, estimated in points as
        :meth:`_block_plan` does, is over ``_PHASES_PAY`` of one level's; ``other``: the
        other side's plan (:meth:`_other_in_phases`), r at least ``_OTHER_R_MIN`` and no
        bound on the work.

        :math:`H = r h_f` with :math:`h_f = h/(2\sqrt2)` (quantised) and r the integer part
        of :math:`\sqrt{n/(2F)}\,h/(4 h_f)` (n factors in F groups), at least
        ``_PHASES_R_MIN``.
        Each power's work per unit of :math:`1/h_i` is its block's window (its factor's
        window plus :math:`3\sqrt{-2\log\eta\,v}`, v its tilted variance from the
        planning law, as :meth:`_blocked` estimates it; two transforms, 8 per point) and
        its factor's window (discretised, 8 per point), the windows from those at h; the
        steps :math:`h_i \propto (c_i/n_i)^{1/3}` minimise :math:`\sum_i c_i/h_i` at the
        fine error :math:`\sum_i n_i h_i^2 = \sum_i n_i h_f^2`, each at least
        :math:`h_f/4`, rounded to :math:`H/r_i` with :math:`r_i` the nearest power of two
        (1 where that is H or coarser). The work of one level: each factor's window at h
        (8 per point) and a transform per power and one for the single factors (4 per
        point of the window ``width``); in two levels the blocks', the lattices' at H and
        a transform per block or power at H on ``width``. On the benchmark's phase lists
        the blocks' windows came within 30% of the estimate. Equal Gaussian powers would
        pay from about a hundred groups on (the blocks' windows add up to about √F times
        the composed one's); rarely sampled phases, whose tilted spreads and counts differ
        by orders of magnitude, from a few."""
        if not self._may_phase():
            return None
        ns = [n for _, n in self.groups]
        hf = _quantise(h / _PHASES_FINER, self.h0, _STEPS_PER_OCTAVE)
        r = int(h * math.sqrt(self.ntot / (2.0 * len(ns))) / (_PHASES_COARSER * hf))
        if r < (_OTHER_R_MIN if other else _PHASES_R_MIN):
            return None
        H = r * hf
        try:
            one_w = [(kb - ka + 1) * h for ka, kb in self._windows(h, order, lam)]
        except ValueError:
            return None
        self.plan_kgf(order)
        longs = [i for i, n in enumerate(ns) if n >= 2]
        spread, unit = {}, {}
        for i in longs:
            t1, q1, _ = self._plans[order][1][i]
            (_,), (_,), (v,) = _KGF.of_atoms([(t1, q1, ns[i])])(np.array([lam]))
            spread[i] = min(3.0 * math.sqrt(-2.0 * log_eta * max(v, 0.0)), width)
            unit[i] = (spread[i] + 2.0 * one_w[i]) / ns[i]
        k = math.sqrt(math.fsum(ns[i] for i in longs) * hf * hf /
                      math.fsum(ns[i] * unit[i] ** (2.0 / 3.0) for i in longs))
        rs = [1] * len(ns)
        for i in longs:
            step = max(k * unit[i] ** (1.0 / 3.0), hf / 4.0)
            rs[i] = 1 << max(0, round(math.log2(H / step)))
        if max(rs) == 1:  # (no block: one level at H, coarser than h)
            return None
        one = 8.0 * math.fsum(one_w) / h + 4.0 * (len(longs) + 1) * width / h
        two = 4.0 * (len(longs) + 1) * width / H
        for i in range(len(ns)):
            if rs[i] > 1:
                two += 8.0 * (2.0 * one_w[i] + spread[i]) * rs[i] / H
            else:
                two += 8.0 * one_w[i] / H
        if not (other or two <= _PHASES_PAY * one):
            return None
        return H, tuple(rs)

    def _block_may_pay(self, order: int, ns: list[int], hf: float, lam: float,
                       log_eta: float, width: float, wfs: list[float], h: float,
                       longs: list[int], ws: float = 0.0) -> bool:
        """For planning only: False where no block plan qualifies (:meth:`_block_plan`) at
        the window widths of 1.25 times the tilted variance of each long group's lattice
        law 4 times coarser than ``hf`` (an upper estimate of the fine law's: see
        :meth:`_blocked`), asked only where a fine lattice's window (``wfs``) holds 2**16
        points or more (its discretisation then costs ten milliseconds or more); ``ws``
        the other groups' windows (:meth:`_block_plan`).

        The coarse variance exceeds the fine one's by the wider cells' connect-the-dots
        spread, a small part of it (0.6% at σ = 0.786, p = 1.6e-4, 2.2M steps); twice it,
        as taken before, let a plan pass that the fine law then turned down (a width of
        14.9 where the plans qualify from 13.5 up and the fine law's is 11.2), and the
        tight engine's fine lattice there, 127,287 points, lay under the 2**17 where the
        estimate started: 17 ms of the answer's 83 discretised in vain."""
        if all((wf / hf) < 1 << 16 for wf in wfs):  # (fine lattices that cost little)
            return True
        hc = _quantise(4.0 * hf, self.h0, _STEPS_PER_OCTAVE)
        try:
            lats = [self._one_lat(hc, order, lam, i, _FACTOR_CAP) for i in longs]
        except ValueError:
            return True
        ws_ = []
        for lat, n, wf in zip(lats, ns, wfs, strict=True):
            (_,), (_,), (v,) = _KGF([(lat, n)], hc)(np.array([lam]))
            ws_.append(3.0 * math.sqrt(-2.0 * log_eta * 1.25 * max(v, 0.0)) + wf)
        if len(longs) > 1 or ws > 0.0:
            return self._block_plan(ns, width, wfs, h, hf, ws=ws,
                                    long_widths=[min(width, w) for w in ws_]) is not None
        return self._block_plan(ns, min(width, ws_[0]), wfs, h, hf) is not None

    @staticmethod
    def _block_plan(ns: list[int], width: float, wfs: list[float], h: float, hf: float,
                    long_widths: list[float] | None = None, ws: float = 0.0
                    ) -> tuple[int, int, tuple[bool, ...]] | None:
        """Coarsening ``r`` and block size ``m = r**2`` minimising the estimated work, and
        per long group (``ns`` factors each) whether the rest of its count by ``m`` needs a
        block of its own (else single coarsened factors, whose added spread is at most
        ``m**2 <= n / 4`` fine steps); None unless at most 0.6 of the work of one level.
        Work, in points: discretising each long group's factor window (``wfs``; 8 per
        point, special functions) and the other groups' windows ``ws`` (their sum, at the
        composition's step), and composing (4 per point, the transforms and the profile's
        sums); a block's window is its tilted spread plus its factor's window, the spread
        from its group's composed window (``long_widths``, default ``width``), the composed
        window is ``width``."""
        lws = [width] * len(ns) if long_widths is None else long_widths
        wsum = math.fsum(wfs)
        one = 8.0 * (wsum + ws) / h + 4.0 * width / h
        least = min(n // 4 for n in ns)
        best = None
        for k in range(1, 16):
            r = 1 << k
            m = r * r
            if m > least:
                break
            owns = tuple(n % m > 0 and m * m > n // 4 for n in ns)
            blocks = math.fsum(
                4.0 * (min(m * wf, 1.6 * lw * math.sqrt(m / n) + wf) / hf) *
                (2 if own else 1) for n, wf, lw, own in zip(ns, wfs, lws, owns, strict=True))
            c = 8.0 * (wsum + ws / r) / hf + blocks + 4.0 * width / (r * hf)
            if best is None or c < best[0]:
                best = (c, r, m, owns)
        if best is None or best[0] > 0.6 * one:
            return None
        return best[1], best[2], best[3]

    # -- frames -------------------------------------------------------------
    @contextlib.contextmanager
    def _at_top(self, top: float | None) -> Iterator[None]:
        """:attr:`_top` set to ``top`` for a while."""
        was, self._top = self._top, top
        try:
            yield
        finally:
            self._top = was

    @contextlib.contextmanager
    def _at_budget(self, budget: float) -> Iterator[None]:
        """:attr:`_budget` set to ``budget`` for a while."""
        was, self._budget = self._budget, budget
        try:
            yield
        finally:
            self._budget = was

    def _cls(self, side: str, order: int, lam: float
             ) -> tuple[float | None, tuple[int, ...]]:
        """The part of a frame's key that the question sets: its wide cells (:attr:`_top`,
        on the sound side only) and how much deeper than the tilt ``lam``'s own the
        factors' truncation goes (:meth:`_depths`)."""
        return (self._top if side == "pess" else None, self._depths(order, lam))

    def _frame_span(self, side: str, order: int, h: float, lam: float, log_eta: float,
                    extended: bool, top: float | None = None) -> tuple:
        r"""What :meth:`frame` composes on: ``(level, window, KA, KB, N, reach_hi,
        reach_lo)`` (remembered: a frame's extent is read without composing it). ``top``: a
        log tilted mass the window's top leaves above it, below :math:`\log\eta` (the
        window raised at the top only, where the mass above it, wrapped around into the
        body, can set a sound answer: :func:`_aliased`); not for a power in blocks."""
        key = ("span", side, order, h, lam, log_eta, extended, self._cls(side, order, lam)) + \
            (() if top is None else (top,))
        if key in self._memo:
            return self._memo[key]
        hs = h
        if side == "opt" and len(self.groups) <= _FEW_GROUPS and \
                any(lat.atomic for lat, _ in self.lats("opt", h, order, lam)):
            # atoms off the lattice make the bound first order there: a finer lattice
            hs = _quantise(h / 4.0, self.h0, _STEPS_PER_OCTAVE) if self.gap == 0 else \
                self._align(h / 4.0)
        pk = self.plan_kgf(order)
        tiny = 1e-9 * (1.0 + abs(pk.tmax) + abs(pk.tmin))
        (kp,), (mp,), (vp,) = pk(np.array([lam]))
        # (the planning law's window, computed where it is read: a guided window below
        # replaces it, and only a power in blocks reads its width first)
        bd = None
        lv = None
        longs = self._long_groups() if side == "pess" else None
        if side == "pess" and (longs is not None or self._may_phase()):
            bd, width = self._blocks_width(order, h, lam, log_eta)
            lv = self._blocked(order, hs, lam, log_eta, width, extended) if longs is not None \
                else self._in_phases(order, hs, lam, log_eta, width, extended)
        elif side == "opt" and hs == h:
            if self._may_phase():
                bd, width = self._blocks_width(order, h, lam, log_eta)
                lv = self._other_in_phases(order, h, lam, log_eta, width, extended)
            if lv is None and self._may_block_atoms():
                lv = self._other_in_atoms(order, h, lam, log_eta, extended)
        blocked = lv is not None
        if blocked and side == "pess":
            # (_in_blocks)
            self._memo[("in-blocks", order, h, lam, self._depths(order, lam))] = True
        if lv is None:
            lv = self._level(side, order, hs, lam)
        hs, off, kl = lv.h, lv.off, lv.kgf
        # the planning law is a coarse garbling: its tilted mean and spread err by a small
        # relative amount per factor, which long compositions multiply (as do the two
        # sides' discretisation errors); where they are off by a quarter of the spread the
        # window comes from this side's lattice law itself (whose tails are bounded); so it
        # does where the planning window is over 64 tilted spreads wide (a coarse planning
        # law's tail cells can mislead the Chernoff bound: 0.76 instead of 0.0024 below the
        # mean for sigma=0.489, p=2.5e-6, T=219, at a tilt of 5793)
        (kq,), (ml,), (vl,) = kl(np.array([lam]))
        moments = all(math.isfinite(v) for v in (kp, mp, vp, kq, ml, vl)) and vp > 0 and vl > 0
        guided = moments and (abs(ml - mp) > 0.25 * math.sqrt(vl) or
                              not 0.64 < vl / vp < 1.5625)
        if not guided:
            if bd is None:
                bd = _window(pk, lam, log_eta, h)
            guided = moments and bd.B - bd.A > 64.0 * math.sqrt(vl)
            reach_hi, reach_lo = bd.B >= pk.tmax - tiny, bd.A <= pk.tmin + tiny
        if guided:
            bd = _guided_window(kl, kl.pooled(0.01 / (1.0 + lam)), lam, log_eta, hs)
            reach_hi = bd.B >= kl.tmax - tiny
            reach_lo = bd.A <= kl.tmin + tiny
        elif blocked:
            # (a composition of blocks can have heavier tilted tails than the planning law
            # at the same tilted spread: its own Chernoff bounds at the planning window's
            # ends decide, as for a guide; sigma = 1.07, p = 3.7e-4, T = 549,026 with the
            # factors' windows ending at a lower quantile: a bound of 1 above the window,
            # the answer 0.719 against 0.586)
            kept = _kept_window(kl, bd, lam, log_eta, hs)
            if kept is not bd:
                bd = kept
                reach_hi = bd.B >= kl.tmax - tiny
                reach_lo = bd.A <= kl.tmin + tiny
        if top is not None:
            if blocked:
                raise ValueError("a window raised at the top is not for a power in blocks")
            raised = _window(kl, lam, top, hs)
            if raised.B > bd.B:
                bd = _Bounds(bd.A, raised.B, raised.b_hi, bd.b_lo)
                reach_hi = bd.B >= kl.tmax - tiny
        # where the planning window reached an end of the support, the lattice's end
        KA, KB, reach_hi, reach_lo = _span(kl, bd, off, hs, reach_hi, reach_lo)
        from scipy import fft as sfft  # loaded on first use (import time)

        N = sfft.next_fast_len(max(KB - KA + 1, 16), real=True)
        if N > self.acc.max_points:
            raise ValueError(
                f"the composition needs a lattice of {N} points (step {hs:.3g}, window "
                f"[{KA * hs + off:.4g}, {KB * hs + off:.4g}]), more than "
                f"max_points={self.acc.max_points}; pass a larger `rtol` or `grid_step`, "
                "or raise `max_points`")
        out = (lv, bd, KA, KB, N, reach_hi, reach_lo)
        self._memo[key] = out
        return out

    def frame(self, side: str, order: int, h: float, lam: float, log_eta: float = _LOG_ETA,
              extended: bool = False, top: float | None = None) -> _Frame:
        r"""The frame of step ``h`` and tilt ``lam`` on one side, its window holding all but
        :math:`e^{\log\eta}` of the tilted mass at each end (``top``: at most
        :math:`e^{top}` above it, :meth:`_frame_span`), its transforms in double or
        (``extended``) in the platform's long double."""
        key = (side, order, h, lam, log_eta, extended, self._cls(side, order, lam)) + \
            (() if top is None else (top,))
        if key in self._frames:
            return self._frames[key]
        lv, bd, KA, KB, N, reach_hi, reach_lo = self._frame_span(*key[:6], top=top)
        hs, off, kl = lv.h, lv.off, lv.kgf
        comp = _compose(lv.items(), KA, N, _EXTENDED if extended else _DOUBLE)
        t = (KA + np.arange(N)).astype(float) * hs + off
        tA, tB = _ends(kl, t, off, hs, KA, KB, reach_hi, reach_lo)
        til_hi, til_lo, q_hi, q_lo = _tails(kl, lam, bd, tA, tB)
        shift, qi = lv.shift, lv.q_inf
        with np.errstate(divide="ignore"):
            lc = np.log(comp.c, out=comp.c)  # (comp's masses are not read again)
        if side == "pess":
            # (the whole lattice law's Chernoff bound, from its exact cumulant generating
            # function rounded up, as a second bound: it decides where the frame's
            # round-off allowance dominates, e.g. at the far end of the support)
            k_up = math.inf
            if lv.sound_kgf is not None:
                k_up = float(lv.sound_kgf.upper(np.array([lam]))[0])
                self._sound[key] = lv
            fr = _Frame(t, lc, lam, comp.K, comp.rel_up, comp.tau, shift, qi, q_hi, q_lo,
                        True, k_up=k_up if math.isfinite(k_up) else math.inf,
                        roundoff=comp.roundoff,
                        alias_hi=til_hi * math.exp(comp.log_scale) * (1.0 + comp.rel_up),
                        alias_rate=bd.b_hi - lam)
        else:
            # (the tilted mass outside the window wraps around into it: an l1 allowance)
            wrap = (til_hi + til_lo) * math.exp(comp.log_scale) * (1.0 + comp.rel_up)
            fr = _Frame(t, lc, lam, comp.K, comp.rel_lo, comp.tau + wrap, shift, qi,
                        sound=False, wrap=wrap, roundoff=comp.roundoff)
        self._frames[key] = fr
        return fr

    @staticmethod
    def _dominates(fr: _Frame, amount: float, kind: str, x: np.ndarray, v: np.ndarray,
                   rel: float | np.ndarray = 1e-3) -> np.ndarray:
        r"""Where an l1 allowance of ``amount`` (tilted, normalised units) of the frame, at
        the answer's threshold (:math:`\tau e^{K + c(\lambda) - \lambda x}`), exceeds
        ``rel`` (1e-3) of the answer's δ, or is all there is (an answer of 0): value by
        value.

        Used for the allowance for the tilted mass wrapped around from outside the window
        (other side: a window holding all but 1e-30 of it may certify more; rare events,
        where the frame's tilt is set by a bulk far below the answer) and for the
        transforms' round-off (a frame whose transforms work in extended precision:
        rare events again, where δ is a tiny part of the tilted mass)."""
        if not (amount > 0 and fr.lam > 0):
            return np.zeros(x.shape, dtype=bool)
        lam = fr.lam
        # (an ε the frame cannot certify, inf, is taken at the window's last loss: the
        # allowance there is what kept it from certifying)
        eps, dlt = (np.clip(v, 0.0, float(fr.s[-1] + fr.shift)), x) if kind == "eps" \
            else (x, v)
        with np.errstate(over="ignore", invalid="ignore"):
            allow = amount * np.exp(fr.K + _c(lam)[0] - lam * (eps + fr.shift))
        return ~(allow <= rel * dlt)

    # -- answers ------------------------------------------------------------
    @property
    def twin(self) -> _Engine:
        """The engine of the same composition whose factors' windows end at the quantiles
        of :meth:`_quantiles` (made on first use): it answers ε at small δ and δ questions
        for a tight engine (:meth:`_routed`)."""
        if self._twin is None:
            self._twin = _Engine(self.groups, self.acc, tight=False)
        return self._twin

    def _routed(self, kind: str, x: np.ndarray, order: int = 1) -> np.ndarray:
        r"""Where :meth:`answer` sends each question of ``x`` (flat), on both sides: True for
        the :attr:`twin`.

        A tight engine's factor windows end lower (:meth:`_window_quantiles`): they
        truncate up to ``tol`` of a rarely sampled factor's Q-mass, where its twin's
        truncate about :math:`2p` times that, and its lattices are then several times
        shorter (σ = 0.731, p = 1.1e-6, T = 1.46M: a loss of 0.069 against 0.38 at the
        top, the answer about 3 times faster and 0.04% tighter). The mass truncated is
        charged to :math:`+\infty`, at most 1e-12 in all in a tilted frame
        (:meth:`_upper_tol`), which moves a δ of at least ``_TIGHT_FROM`` by at most 1e-4
        of itself. So a tight engine answers ε at such δ, and at smaller δ where its
        windows truncate little enough (:meth:`_small_truncation`, checked again at the
        tilts its refinement moves to, :class:`_TwinAsked`, and at the step it ends at,
        :meth:`_late_twin`); its twin, whose answers are those of an engine without the
        lower ends, answers the other ε questions (σ = 0.932, p = 1.6e-5, T = 6,494,
        δ = 1.4e-14: the lower ends made ε infinite), and the δ questions of ``order``
        whose answer here the truncation could move (:meth:`_tight_delta`). An ε question
        is routed by the truncation of ``order``'s windows alone (order 1's for a symmetric
        mechanism): :func:`_both_orders` routes by order 1's, and order -1's is checked
        only where its own answer is asked (its moment bound spares it in about half of
        DP-SGD's questions; checked up front, its frame was planned all the same)."""
        if not self.tight:
            return np.zeros(x.shape, dtype=bool)
        if kind != "eps":
            return np.array([self._tight_delta(order, v) is None for v in x.tolist()],
                            dtype=bool)
        o = 1 if all(f.is_symmetric for f, _ in self.groups) else order
        out = np.zeros(x.shape, dtype=bool)
        for i, v in enumerate(x.tolist()):
            if not v >= _TIGHT_FROM:
                key = ("tight-small", o, v)
                if key not in self._memo:
                    self._memo[key] = self._small_truncation(o, v)
                out[i] = not self._memo[key]
        return out

    def _tight_delta(self, order: int, eps: float) -> float | None:
        r"""This tight engine's sound δ at ``eps``, where the Q-mass its factor windows
        truncate at the step its refinement ended at (charged to :math:`+\infty`, so
        counted in δ) is at most 1e-4 of it: the truncation moves it by at most that
        part, and the windows, several times shorter than the twin's for rarely sampled
        steps, let the step go several times finer (σ = 0.6, p = 1e-6, 10⁷ steps,
        ε = 0.05: 1.4e-7 against the twin's 2.2e-6, where the engine's ε answers put the
        truth below 2e-7). None elsewhere (δ below about 1e-8): the twin answers, as
        every δ question did before (decided once per order, from the sound side, whichever
        side is asked first); at once, without a frame, where the truncation is over 1e-4
        of the planning law's moment bound on δ, about the answer's ceiling."""
        key = ("tight-delta", order, eps)
        if key not in self._memo:
            pk = self._plan_key(order, "delta", eps)
            t = self._question_tilt(order, "delta", eps) if pk[0] != "trivial" else None
            if t is not None and not self._truncated(order, *pk) <= 1e-4 * math.exp(
                    min(_log_moment_bound(t[1], t[0], eps, self.law_q_inf(order)), 0.0)):
                # (for speed: the planning law's moment bound, about the answer's ceiling,
                # already fails the test; δ this small is the twin's at once)
                self._memo[key] = None
                return None
            d = float(self._answer("pess", order, "delta", np.array([eps]))[0])
            ok = math.isfinite(d) and d > 0.0
            if ok and pk[0] != "trivial":
                h, lam = pk
                hs = self._memo.get(("delta-step", order, h, lam, eps), h)
                ok = self._truncated(order, hs, lam) <= 1e-4 * d
            self._memo[key] = d if ok else None
        return self._memo[key]

    def _small_truncation(self, order: int, delta: float) -> bool:
        r"""Whether this tight engine's factor windows truncate, at the frame planned for ε
        at ``delta`` (below ``_TIGHT_FROM``), at most :math:`10^{-5}\delta\min(1,
        \lambda\varepsilon)` (λ the planned tilt, ε the planning law's estimate: about
        1e-5 of the change of δ that moves ε by its own size, where δ falls as
        :math:`e^{-\lambda\varepsilon}`): σ = 0.651, p = 7.6e-6, 433,193 steps,
        δ = 3.2e-12 truncates 6.5e-25 and is answered here, 4 times faster; σ = 0.932,
        p = 1.6e-5, 6,494 steps, δ = 1.4e-14 truncates 4.6e-15 and goes to the twin. The
        step the sound answer's refinement ends at is checked as well, after
        (:meth:`answer`)."""
        pk = self._plan_key(order, "eps", delta)
        if pk[0] == "trivial":
            return True
        t = self._question_tilt(order, "eps", delta)
        lam, est = pk[1], (t[4] if t is not None else math.inf)
        allowed = 1e-5 * delta * min(1.0, lam * est) if math.isfinite(est) else 0.0
        self._memo[("tight-allowed", order, delta)] = allowed
        return self._truncated(order, pk[0], lam) <= allowed

    def _truncated(self, order: int, h: float, beta: float) -> float:
        r"""The Q-mass the factor windows of step ``h`` and tilt ``beta`` truncate (charged to
        :math:`+\infty` beyond the law's own), composed, rounded up: each factor's tail
        cell beyond its window's last point, as :func:`~gdp.engine.lattice._disc_pess`
        charges it, without discretising the window (inf where the windows fail)."""
        key = ("truncated", order, h, beta, self._depths(order, beta))
        if key not in self._memo:
            try:
                wins = self._windows(h, order, beta, cap=_FACTOR_CAP)
            except ValueError:
                self._memo[key] = math.inf
                return math.inf
            fas = self.factors(order)
            cs = self._charges([fa.pess for fa in fas],
                               [kb * h + self._off(fa.pess, h, fa.n)
                                for fa, (_, kb) in zip(fas, wins, strict=True)])
            parts = [(c, fa.n) for c, fa in zip(cs, fas, strict=True)]
            qi = self._rounded_q_inf("pess", _composed_q_inf(parts))
            # (raised by a part in a million: it decides a route, it bounds nothing)
            self._memo[key] = max(qi - self.law_q_inf(order), 0.0) * (1.0 + 1e-6)
        return self._memo[key]

    def answer(self, side: str, order: int, kind: str, x: np.ndarray) -> np.ndarray:
        """This side's ε(δ) (``kind='eps'``) or δ(ε) (``kind='delta'``), vectorised; in a
        tight engine, the questions :meth:`_routed` names go to its :attr:`twin`."""
        x = np.asarray(x, dtype=float)
        flat = x.reshape(-1)
        away = self._routed(kind, flat, order)
        out = np.empty(flat.shape)
        here = np.flatnonzero(~away)
        if here.size and kind == "eps" and self.tight:
            if side == "opt":
                self._sound_eps(order, flat[here])  # (the sound side decides first)
            else:
                for i in here[~(flat[here] >= _TIGHT_FROM)].tolist():
                    v = float(flat[i])
                    if ("late-twin", order, v) in self._memo:
                        continue
                    try:
                        self._memo[("tight-eps", order, v)] = float(
                            self._answer(side, order, kind, np.array([v]))[0])
                    except _TwinAsked as asked:
                        self._memo[("late-twin", order, v)] = True
                        self._memo[("tight-start", order, v)] = asked.start
            late = self._late_twin(order, kind, flat[here])
            if late.any():
                for v in flat[here[late]].tolist():
                    # (this engine's answer, a bound as every frame's, is where the twin's
                    # sound side starts: :meth:`_start`)
                    s = self._memo.get(("tight-start", order, v),
                                       self._memo.get(("tight-eps", order, v)))
                    if s is not None:
                        self.twin._memo.setdefault(("start-eps", order, v), s)
                out[here[late]] = self.twin.answer(side, order, kind, flat[here[late]])
            here = here[~late]
            if side == "pess":
                kept = [i for i in here.tolist()
                        if ("tight-eps", order, float(flat[i])) in self._memo]
                for i in kept:
                    out[i] = self._memo[("tight-eps", order, float(flat[i]))]
                here = np.setdiff1d(here, np.array(kept, dtype=np.int64))
        if here.size and kind == "delta" and self.tight and side == "pess":
            # (the sound answers :meth:`_routed` found here, :meth:`_tight_delta`'s)
            out[here] = [self._memo[("tight-delta", order, v)] for v in flat[here].tolist()]
            here = here[:0]
        if here.size:
            out[here] = self._answer(side, order, kind, flat[here])
        if away.any():
            out[away] = self.twin.answer(side, order, kind, flat[away])
        if side == "opt" and self.top_atom(order) is not None:
            floor = self._top_atom_eps if kind == "eps" else self._top_atom_delta
            for i, v in enumerate(flat.tolist()):
                out[i] = max(out[i], floor(order, v))
        return out.reshape(x.shape)

    def top_atom(self, order: int) -> tuple[float, float] | None:
        r"""``(L, log Q)``: bounds from below on the loss and the log Q-mass of the top atom
        of the other side's composed law of one order, where every factor's law ends at an
        atom (:meth:`~gdp.engine.laws.Law.top_atom`: randomized responses, exact discrete
        curves, Laplace mechanisms, their inverses); None elsewhere. The composed law's
        largest loss is the sum of the factors' largest, its Q-mass the product of theirs;
        each product and logarithm is rounded down by a few ulps (remembered)."""
        key = ("top-atom", order)
        if key not in self._memo:
            parts = [(fa.opt.top_atom(), fa.n) for fa in self.factors(order)]
            out = None
            if parts and all(t is not None for t, _ in parts):
                us = [n * t[0] for t, n in parts]
                lqs = [n * t[1] for t, n in parts]
                # (each factor's loss and log-mass within a few u of their magnitudes and
                # of 1, the masses as rounded, the products by n and the sums by u each)
                slack = 8 * EPS * (sum(n for _, n in parts) + math.fsum(abs(u) for u in us)
                                   + math.fsum(abs(v) for v in lqs))
                out = (math.fsum(us) - slack, math.fsum(lqs) - slack)
            self._memo[key] = out
        return self._memo[key]

    def _top_atom_eps(self, order: int, delta: float) -> float:
        r"""A lower bound on one order's ε at ``delta`` from its top atom alone
        (:meth:`top_atom`): :math:`\delta(x) \ge Q(1 - e^{x - L})` for x < L, so the true ε
        is at least :math:`L + \log(1 - \delta/Q)` where δ < Q; 0 elsewhere. Near the top
        of a bounded support the frames of the other side can certify nothing: at δ = 1e-14
        eighteen randomized responses (ε up to 0.77, the answer 9e-11 below the top) framed
        at a tilt of 5.6e7, where one step down carries e^1551 times the frame's l1
        allowance, and the lower end was 0."""
        top = self.top_atom(order)
        if top is None or not delta > 0.0:
            return 0.0
        L, lq = top
        ld = math.log(delta)
        a = ld - lq
        if a >= 0.0:
            return 0.0
        r = math.exp(a) * (1.0 + 8 * EPS * (4.0 + abs(ld) + abs(lq) + abs(a)))  # (δ/Q, up)
        if r >= 1.0:
            return 0.0
        g = math.log1p(-r)
        x = L + g
        return max(x - 4 * EPS * (1.0 + abs(L) + abs(g)), 0.0)

    def _top_atom_delta(self, order: int, eps: float) -> float:
        r""":math:`Q(1 - e^{\varepsilon - L})` from :meth:`top_atom`, rounded down: a lower
        bound on one order's δ at ``eps`` (0 at and above L)."""
        top = self.top_atom(order)
        if top is None or not eps < top[0]:
            return 0.0
        L, lq = top
        d = eps - L
        v = math.exp(lq) * -math.expm1(d)
        return max(v * (1.0 - 8 * EPS * (4.0 + abs(lq) + abs(d) + abs(eps) + abs(L))), 0.0)

    def _late_twin(self, order: int, kind: str, x: np.ndarray) -> np.ndarray:
        """For ε questions below ``_TIGHT_FROM`` that this tight engine answered: True
        where the step the sound answer's refinement ended at truncates more than
        :meth:`_small_truncation` allowed (another tilt, another ``tol``); those go to the
        twin after all (decided once, from the sound side)."""
        out = np.zeros(x.shape, dtype=bool)
        if not self.tight or kind != "eps":
            return out
        for i, v in enumerate(x.tolist()):
            key = ("late-twin", order, v)
            if key not in self._memo:
                late = False
                allowed = self._memo.get(("tight-allowed", order, v))
                last = self._memo.get(("last-step", order, v))
                if allowed is not None and last is not None:
                    late = not self._truncated(order, *last) <= allowed
                self._memo[key] = late
            out[i] = self._memo[key]
        return out

    def deltas_in_plan(self, side: str, order: int, at: float, x: np.ndarray,
                       scale: float = 1.0) -> np.ndarray:
        """This side's δ at each ε of ``x``, all in the frames planned for δ at ε = ``at``
        (each answer a bound on its side, as in any frame): for a search's nearby values,
        whose own plans would each build a frame of their own (a step quantised a notch
        finer or coarser). With ``scale``, the frames of that many times the planned step
        (quantised), where the factors' windows allow it."""
        if self.tight:  # (a tight engine's δ questions are its twin's: _routed)
            return self.twin.deltas_in_plan(side, order, at, x, scale)
        plan = self._plan_key(order, "delta", at)
        if scale != 1.0 and plan[0] != "trivial":
            h = self._align(_quantise(scale * plan[0], self.h0, _STEPS_PER_OCTAVE))
            try:
                self._windows(h, order, plan[1], cap=_FACTOR_CAP)
                plan = (h, plan[1])
            except ValueError:
                pass
        return self._answer(side, order, "delta", x, plan=plan)

    def _answer(self, side: str, order: int, kind: str, x: np.ndarray,
                plan: Any = None) -> np.ndarray:
        """:meth:`answer` in this engine's own frames; with ``plan`` (a step and tilt),
        every question in the frames of that plan (:meth:`deltas_in_plan`)."""
        x = np.asarray(x, dtype=float)
        flat = x.reshape(-1)
        out = np.empty(flat.shape)
        groups: dict[Any, list[int]] = {}
        for i, v in enumerate(flat.tolist()):
            budget = self._delta_budget(order, v) if kind == "delta" and plan is None \
                else self._budget_for(order, kind, v)
            if plan is None:
                pk = self._plan_key(order, kind, v)
                groups.setdefault((pk, None if pk[0] == "trivial" else
                                   self._coarse_class(order, kind, v), budget), []).append(i)
            else:
                groups.setdefault((plan, None, budget), []).append(i)
        for (key, top, budget), idx in groups.items():
            ii = np.array(idx)
            if key[0] == "trivial":
                out[ii] = self._trivial(side, order, kind, flat[ii])
                continue
            with self._at_top(top), self._at_budget(budget):
                v = self._answer_group(side, order, kind, flat[ii], key, plan)
                if top is not None and kind == "delta" and side == "pess":
                    # (where the wide cells' error bound, _COARSE_SHARE of the δ they took,
                    # is over a tenth of rtol of half the sound δ found, the moment bound
                    # being that far above δ (rare jumps: σ = 1.12, p = 4.8e-6, 30,959
                    # steps, ε = 0.0117, δ = 1e-17 at e^-28 of its moment bound): the
                    # question again, wide cells from half that δ)
                    for j, (xj, vj) in enumerate(zip(flat[ii].tolist(), v.tolist(),
                                                     strict=True)):
                        bound = _COARSE_SHARE * math.exp(self._delta_floor(order, xj))
                        if not bound > 0.05 * self.acc.rtol * vj:
                            continue
                        self._top = self._coarse_above(order, xj, math.log(0.5 * vj)) \
                            if vj > 0 else None
                        v[j] = _best(side, v[j], float(self._answer_group(
                            side, order, kind, np.array([xj]), key, plan)[0]))
                if math.isfinite(budget) and kind == "delta" and side == "pess":
                    # (the answer with the truncation its budget asked for, and the planned
                    # frame's first, both bounds; where the first is no worse, the deeper
                    # windows cost more than the charge they saved (a rarely sampled
                    # power's twin, σ = 0.923, p = 3.1e-6, 1.98M steps, ε = 0.0741:
                    # 4.6e-16 against 6.9e-17, the charge 3.3e-19), and the answer refined
                    # without them too)
                    for j, xj in enumerate(flat[ii].tolist()):
                        first = self._memo[("delta-first", order, xj)]
                        if v[j] >= first:
                            with self._at_budget(math.inf):
                                v[j] = min(first, float(self._answer_group(
                                    side, order, kind, np.array([xj]), key, plan)[0]))
                out[ii] = v
        return out.reshape(x.shape)

    def _answer_group(self, side: str, order: int, kind: str, xs: np.ndarray, key: Any,
                      plan: Any) -> np.ndarray:
        """:meth:`_answer` for the questions ``xs`` of one plan ``key`` (a step and tilt)."""
        h, lam = key
        if kind != "eps":
            # (δ questions whose double frame would only be outdone: long double at once)
            at_once = self._extended_first(order, h, lam, xs) if side == "pess" \
                else np.zeros(xs.size, dtype=bool)
            v = np.empty(xs.size)
            for e in (False, True):
                if np.any(at_once == e):
                    v[at_once == e] = self._in_frames(side, order, h, lam, kind,
                                                      xs[at_once == e], first_ext=e)
            if plan is None:
                v = self._refine_delta(side, order, h, lam, xs, v)
            return v
        v = np.empty(xs.size)
        # (the other side, value by value: from where the sound side left the plan)
        v0 = np.full(xs.size, np.nan)
        if side == "opt":
            for j, xj in enumerate(xs.tolist()):
                v0[j] = self._other_side_at_once(order, h, lam, xj)
        rest = np.ones(xs.size, dtype=bool)
        if not np.all(np.isnan(v0)):
            rest = ~(v0 >= (1.0 - self._bracket_width()) * self._sound_eps(order, xs))
        v[~rest] = v0[~rest]
        if np.any(rest):
            # (extended precision, where it helps, only once the step's refinement has not
            # moved to another tilt: it is the costliest part of a frame)
            xr = xs[rest]
            vr = np.array([self._start(order, lam, xj) if side == "pess" else math.nan
                           for xj in xr.tolist()])
            started = ~np.isnan(vr)
            if not started.all():
                vr[~started] = self._in_frames(side, order, h, lam, kind, xr[~started],
                                               extended=False)
            vr = self._refine_step(side, order, h, lam, xr, vr, started)
            had = ~np.isnan(v0[rest])
            vr[had] = np.maximum(vr[had], v0[rest][had])
            v[rest] = vr
        return v

    def _jump_parts(self, target: float, below: float
                    ) -> tuple[JumpSplit, tuple[Callable[..., np.ndarray], ...]] | None:
        """The split of this power of one factor by its number of jumps
        (:mod:`gdp.engine.jumps`) for answers near δ = ``target`` and ε below ``below``,
        with its two parts' profiles ``(bulk, jump term)``, each a function giving δ on a
        side at a list of ε, all in the frames planned for the first, optionally at a
        multiple of their step (each part an engine of its own, :meth:`deltas_in_plan`);
        None where the split does not apply (:meth:`_split_group`). The other factors
        beside the power join both parts: the composition's law is the mixture over the
        number of jumps k of the k-jump laws each composed with them, and its profile,
        linear in the law, the same mixture of theirs (the terms of two jumps or more
        bounded by their mass alone, as for the power alone)."""
        i = self._split_group()
        if i is None:
            return None
        key = (target, below)
        if key in self._splits:
            self._splits.move_to_end(key)
            return self._splits[key]
        if ("no-split",) + key in self._memo:
            return None
        fa = self._factors[1][i]
        sp = jump_split(fa.pess, fa.n, target, below)
        if sp is None:
            self._memo[("no-split",) + key] = True
            return None
        others = [g for j, g in enumerate(self.groups) if j != i]
        bulk = _Engine([(sp.bulk, sp.n), *others], self.acc)
        jump = _Engine([(sp.jump, 1), (sp.bulk, sp.n - 1), *others], self.acc)

        def profile(engine: _Engine) -> Callable[..., np.ndarray]:
            def at(side: str, eps: Sequence[float], scale: float = 1.0) -> np.ndarray:
                x = np.asarray(eps, dtype=float)
                return engine.deltas_in_plan(side, 1, float(x[0]), x, scale)
            return at

        out = (sp, (profile(bulk), profile(jump)))
        self._splits[key] = out
        if len(self._splits) > _SPLITS_KEPT:  # (the least recently asked goes)
            self._splits.popitem(last=False)
        return out

    def _split_group(self) -> int | None:
        """The group the split by the number of jumps serves (:meth:`_jump_parts`): a
        power of one rarely sampled factor (:meth:`_rarely_sampled`), alone or beside at
        most ``_SHORT_FACTORS - 1`` other factors (its jump term, with the jump factor,
        then composes in blocks, :meth:`_blocked`); None elsewhere. Remembered."""
        key = ("split-group",)
        if key not in self._memo:
            out = None
            alone = len(self.groups) == 1  # (jump_split refuses a power of one)
            # (over _SHORT_FACTORS groups no power has so few factors beside it; asked of a
            # long mixed list, each factor's _rarely_sampled costs its quantiles: 0.13 s at
            # 1,000 factors)
            if len(self.groups) <= _SHORT_FACTORS:
                for i, (fa, (_, n)) in enumerate(zip(self._factors[1], self.groups,
                                                      strict=True)):
                    if (alone or n >= 2 and self.ntot - n <= _SHORT_FACTORS - 1) and \
                            fa.pess is fa.opt and self._rarely_sampled(fa.pess):
                        out = i
                        break
            self._memo[key] = out
        return self._memo[key]

    def _jumps_below(self, kind: str) -> float:
        """The δ below which the split is tried for ε (``kind='eps'``, the δ asked) or δ
        (the sound δ found): ``_JUMPS_BELOW``, ``_JUMPS_DELTA_BELOW`` for a power alone,
        ``_JUMPS_BESIDE_BELOW`` beside other factors."""
        if len(self.groups) > 1:
            return _JUMPS_BESIDE_BELOW
        return _JUMPS_BELOW if kind == "eps" else _JUMPS_DELTA_BELOW

    def _split_follows(self, order: int, delta: float, below: float) -> bool:
        """Whether order ``order``'s ε at ``delta`` goes on to the split by the number of
        jumps after an ordinary answer ``below`` (:meth:`jump_eps`, as
        :func:`_both_orders` asks it; the split applies, :func:`jump_split`)."""
        i = self._split_group() if order == 1 and delta < self._jumps_below("eps") else None
        if i is None:
            return False
        key = ("split-follows", delta, below)  # (the refinement asks it twice a step)
        if key not in self._memo:
            fa = self._factors[1][i]
            self._memo[key] = jump_split(fa.pess, fa.n, delta, below) is not None
        return self._memo[key]

    def _split_takes_over(self, order: int, lam: float, delta: float, last: float) -> bool:
        """Whether the sound side's refinement of ε at ``delta`` (tilt ``lam``, its last
        answer ``last``) stops, for the split by the number of jumps to answer from there:
        from the default ``rtol`` up, where the split follows (:meth:`_split_follows`) and
        this tilt's frames went to long double. The split answers in double frames of its
        own, the ordinary answer only placing its cut: σ = 0.550, p = 7.4e-6, 9.12M steps,
        δ = 3.6e-10 built two more long-double frames, 0.94 of 1.3 s, for an ordinary
        answer the split bettered anyway (now 0.29 s, the answer 4.4e-7 lower). Below the
        default the finer ordinary answer can be the tighter (σ = 0.684, p = 2.67e-6,
        539,384 steps, δ = 2.87e-8: by 6e-5 of it at ``rtol=1e-5``). For speed only: every
        answer is a bound."""
        return self._growth() == 1.0 and \
            ("ext-went", "pess", order, lam, "eps", delta) in self._memo and \
            self._split_follows(order, delta, last)

    def jump_eps(self, side: str, delta: float, ordinary: float) -> float:
        """Order 1's ε at ``delta`` on one side: the better of ``ordinary`` (this engine's
        own answer there) and the split of a power of one factor by its number of jumps
        (:meth:`_jump_parts`), for δ below ``_JUMPS_BELOW``; ``ordinary`` where the split
        does not apply or certifies nothing better. The other side's search starts from
        the sound side's answer, and runs only where the sound side gained (elsewhere the
        split's lower end was no better than the ordinary one, measured, and cost as much
        again)."""
        key = ("jumps", side, delta)
        if key in self._memo:  # (with the ordinary answer given now: each is a bound)
            return _best(side, ordinary, self._memo[key])
        out = ordinary
        if side == "opt" and ("jumps", "pess", delta) not in self._memo:
            self.jump_eps("pess", delta, float(self._sound_eps(1, np.array([delta]))[0]))
        sound = ordinary if side == "pess" else \
            float(self._sound_eps(1, np.array([delta]))[0])
        parts = self._jump_parts(delta, sound) if delta < self._jumps_below("eps") and (
            side == "pess" or self._memo.get(("jumps-gained", delta), False)) else None
        if parts is not None:
            sp, profiles = parts
            start = ordinary if side == "pess" else self._memo[("jumps", "pess", delta)]
            report: dict[str, int] = {}
            v = split_epsilon(sp, delta, side, start, profiles, rtol=self.acc.rtol,
                              halvings=None if side == "pess" else
                              self._memo.get(("jumps-halvings", delta), 0),
                              report=report)
            if side == "pess":
                self._memo[("jumps-halvings", delta)] = report.get("halvings", 0)
            if v is not None:
                out = min(out, v) if side == "pess" else max(out, v)
        if side == "pess":
            self._memo[("jumps-gained", delta)] = out < ordinary
        self._memo[key] = out
        return out

    def split_lower_end(self, delta: float) -> float | None:
        """Order 1's lower end of ε at ``delta`` from the split alone, where the sound side's split
        gained and this lies within ``_BRACKET_WIDTH`` of its answer (the width the default
        accuracy aims at; in proportion for a smaller ``rtol``): the ordinary lower end, at
        most the true ε, could then raise it by less than that, and is not asked (at σ =
        1/1.2, p = 3e-6, 10⁷ steps, δ = 1e-15 it took 4.9 s of the bracket's 5.5 s, and lay
        far below the split's; with the split's bracket 0.103% wide, over ``rtol``, it was
        asked again, 5.8 s); None elsewhere (the caller takes the better of the ordinary
        lower end and :meth:`jump_eps`'s)."""
        if not delta < self._jumps_below("eps"):
            return None
        if ("jumps", "pess", delta) not in self._memo:
            self.jump_eps("pess", delta, float(self._sound_eps(1, np.array([delta]))[0]))
        if not self._memo.get(("jumps-gained", delta), False):
            return None
        v = self.jump_eps("opt", delta, 0.0)
        return v if v >= (1.0 - self._bracket_width()) * \
            self._memo[("jumps", "pess", delta)] else None

    def jump_delta(self, side: str, eps: float, ordinary: float) -> float:
        """Order 1's δ at ``eps`` on one side: the better of ``ordinary`` and the bound of
        the split by the number of jumps (:meth:`_jump_parts`, its cut set for δ at the
        sound side's answer, then once more for the split's own where that is below half
        of it: the two-jump bound R is 1e-3 of the δ the cut was set for; the jump term's
        step refined where it matters, :func:`~gdp.engine.jumps.split_delta`), where the
        sound answer is in ``[_JUMPS_FLOOR, _JUMPS_DELTA_BELOW)``; the other side only where
        the sound side gained."""
        key = ("jumps-d", side, eps)
        if key in self._memo:
            return self._memo[key]
        # (the sound answer is at least the lower end)
        if not ordinary < self._jumps_below("delta"):
            return ordinary
        if side == "opt" and ("jumps-d", "pess", eps) not in self._memo:
            self.jump_delta("pess", eps, float(self.answer("pess", 1, "delta",
                                                           np.array([eps]))[0]))
        out = ordinary
        targets = [ordinary] if side == "pess" else \
            list(self._memo.get(("jumps-d-targets", eps), []))
        used: list[float] = []
        # (the split that answered best, refined once the cut is settled, even where its
        # planned step did not better the ordinary answer: 2e5 steps, ε = 0.0198, 1.049e-12
        # there against 1.037e-12, and 9.91e-13 refined)
        best, best_v = None, math.nan
        while targets and _JUMPS_FLOOR <= targets[0] < self._jumps_below("delta"):
            target = targets.pop(0)
            parts = self._jump_parts(target, eps)
            if parts is None:
                break
            used.append(target)
            sp, profiles = parts
            v = split_delta(sp, side, eps, profiles, math.inf, halvings=0)
            if best is None or _best(side, best_v, v) == v != best_v:
                best, best_v = parts, v
            out = min(out, v) if side == "pess" else max(out, v)
            if side == "pess" and len(used) == 1 and v < 0.5 * target:
                targets.append(v)
        if best is not None:
            report: dict[str, int] = {}
            v = split_delta(best[0], side, eps, best[1], self.acc.rtol,
                            halvings=None if side == "pess" else
                            self._memo.get(("jumps-d-halvings", eps), 0),
                            report=report, sound=self._memo.get(("jumps-d", "pess", eps),
                                                                0.0))
            if side == "pess":
                self._memo[("jumps-d-halvings", eps)] = report.get("halvings", 0)
            out = min(out, v) if side == "pess" else max(out, v)
        if side == "pess":
            self._memo[("jumps-d-targets", eps)] = used if out < ordinary else []
        self._memo[key] = out
        return out

    def _sound_eps(self, order: int, x: np.ndarray) -> np.ndarray:
        """The sound side's ε at each δ in ``x`` (remembered: the other side asks it for
        every value it refines)."""
        out = np.empty(x.size)
        for j, xj in enumerate(x.tolist()):
            key = ("sound-eps", order, xj)
            if key not in self._memo:
                self._memo[key] = float(self.answer("pess", order, "eps", np.array([xj]))[0])
            out[j] = self._memo[key]
        return out

    def _other_side_at_once(self, order: int, h: float, lam: float, x: float) -> float:
        """The other side's ε at one δ = ``x`` refined from nothing (a lower bound of 0),
        where the sound side's refinement left the plan's frame (step ``h``, tilt ``lam``)
        for the frame of the δ question at its answer: the other side's frames of the plan
        are then mostly outdone (rare events, where the plan's tilt is far from the
        answer's: σ = 0.612, p = 3.6e-6, 1.63M steps, two frames of 1.4 and 3.5 million
        points, 1.7 s of a 4 s bracket, answered 0.141 against 0.168). NaN elsewhere, or
        where that certifies nothing. The caller takes the plan's frames as well where the
        bracket is still over :meth:`_bracket_width` (the refinement from them takes
        other steps, and this side's answers do not always improve as the step falls:
        σ = 0.628, p = 4e-6, 1.72M steps, 0.2079 from them against 0.2077)."""
        self._sound_eps(order, np.array([x]))  # (which the other side's refinement asks:
        #                                        first, so that the answer is the same
        #                                        whatever was asked before)
        if self._memo.get(("left-plan", order, x)) != (h, lam):
            return math.nan
        v = float(self._refine_step("opt", order, h, lam, np.array([x]), np.zeros(1))[0])
        return v if v > 0 else math.nan

    def _in_frames(self, side: str, order: int, h: float, lam: float, kind: str,
                   x: np.ndarray, extended: bool = True, first_ext: bool = False
                   ) -> np.ndarray:
        """This side's answers to ``x`` in the frame of step ``h`` and tilt ``lam``. The
        window holds all but 1e-8 of the tilted mass; where the moment bound is far above
        the truth (rare events: small p T, tiny δ) the untilted mass above it can exceed
        the δ asked; then a frame with a window at 1e-30 as well, and the better of the
        two (both bounds on this side). The other side does the same where its allowance
        for the tilted mass wrapped around from outside the window dominates the answer
        (:meth:`_dominates`); the sound side's δ at an ε outside the window is capped
        by the whole lattice law's Chernoff bound at its best tilt. Where the transforms'
        round-off dominates the answer and is most of the frame's l1 allowance, the same
        frame with its transforms in extended precision (where the platform has it) as
        well, the wider frame in the precision so chosen (``extended=False``: not). The
        other side builds those beyond its first frame within ``_EXTRA_POINTS`` only where
        the δ asked about is tiny (:meth:`_extra_fits`)."""
        def ask(f: _Frame, xs: np.ndarray) -> np.ndarray:  # (a new array: updated in place)
            return f.epsilon(xs) if kind == "eps" else f.delta(xs)

        # (one question refined at one tilt, where the wide frame answered better at the
        # last step: the frame with the narrow window would only be outdone again)
        won = ("wide-won", side, order, lam, float(x[0])) if x.size == 1 and kind == "eps" \
            else None
        # (one question refined at one tilt, where a coarser step's round-off dominated: a
        # finer one's, over more points, does too, and its double frame would only be
        # outdone by the long-double one)
        went = ("ext-went", side, order, lam, kind, float(x[0])) if x.size == 1 else None
        if x.size == 1 and side == "pess":
            # (the step where one question is first asked at this tilt, its coarsest: where
            # the mass wrapped around into a frame's body is measured, :meth:`_aliasing`)
            self._memo.setdefault(("first-step", order, lam, kind, float(x[0])), h)
        first_ext = first_ext or extended and went is not None and \
            h < self._memo.get(went, 0.0)
        if first_ext and not self._extra_fits(side, order, h, lam, _LOG_ETA, True, kind, x):
            first_ext = False
        # (the frames built: frame, the indices it answers, in long double, its window)
        # (and the log tilted mass its raised top leaves above it, or None)
        built: list[tuple[_Frame, np.ndarray, bool, float, float | None]] = []
        if won is not None and won in self._memo:
            lw = self._memo[won]
            fr = self.frame(side, order, h, lam, lw, first_ext)
            v = ask(fr, x)
            built.append((fr, np.arange(x.size), first_ext, lw, None))
        else:
            fr = self.frame(side, order, h, lam, extended=first_ext)
            v = ask(fr, x)
            if side == "pess" and kind == "delta":
                # a threshold outside the window: the frame's allowances for the mass beyond
                # it can dominate (e.g. near the far end of a bounded support, where the
                # lattice's end lies beyond the true one); the whole law's best Chernoff
                # bound caps them
                xs = x - fr.shift
                out = (xs < fr.s[0]) | (xs > fr.s[-1])
                lv = self._sound.get((side, order, h, lam, _LOG_ETA, first_ext,
                                      self._cls(side, order, lam)))
                if lv is not None and np.any(out):
                    v[out] = np.minimum(v[out], _best_chernoff(lv, x[out]))
            # (value by value, so that an answer does not depend on the others asked with it)
            if side == "pess":
                # (for ε in a tight engine, 1e-3 of δ or of ε times the slope of δ there,
                # the lower: where ε is tiny the profile is nearly flat, and a mass of
                # 3.4e-9 above the window, 6e-4 of δ = 6e-6, moved ε = 2e-6 by 0.7% at
                # sigma = 0.679, p = 7.3e-6, T = 2, whose tight windows are the narrower)
                scale = x if kind == "eps" else v
                if kind == "eps" and self.tight:
                    scale = np.minimum(scale, _flat_scale(fr, v))
                wide = fr.m_hi > 1e-3 * scale
            else:
                wide = self._dominates(fr, fr.wrap, kind, x, v)
            built.append((fr, np.flatnonzero(~wide), first_ext, _LOG_ETA, None))
            iw = np.flatnonzero(wide)
            if iw.size:
                # (the wider window holds more points: where this frame's round-off
                # dominates an answer, the wider one's does too)
                in_ext = np.full(iw.size, first_ext) if first_ext or not extended else \
                    self._extended_helps(fr, kind, x[iw], v[iw])
                lws = self._wide_log_eta(fr, kind, x[iw], v[iw])
                for lw, e in sorted(set(zip(lws.tolist(), in_ext.tolist(), strict=True))):
                    sel = iw[(lws == lw) & (in_ext == e)]
                    try:
                        if not self._extra_fits(side, order, h, lam, lw, e, kind, x[sel]):
                            continue
                        fw = self.frame(side, order, h, lam, lw, e)
                    except ValueError:
                        # (a wider window than max_points allows: the narrow frame's
                        # answers stand, each a bound on its side; the other side of δ
                        # at ε = 0.0404, σ = 1.13, p = 1.3e-6, 9.5M steps, needed 8.7M
                        # points and raised)
                        continue
                    vw = ask(fw, x[sel])
                    if won is not None and _best(side, v, vw)[0] == vw[0] != v[0]:
                        self._memo[won] = lw
                    v[sel] = _best(side, v[sel], vw)
                    built.append((fw, sel, e, lw, None))
            if side == "pess":
                # (the tilted mass above the window, wrapped around into its body, can set
                # a small δ: the window raised at the top, where it may and did, and the
                # better)
                ia, tops = self._aliasing(fr, order, h, lam, kind, x, v, scale, ~wide,
                                           first_ext)
                for te in sorted(set(tops.tolist())):
                    sel = ia[tops == te]
                    try:
                        fa = self.frame(side, order, h, lam, _LOG_ETA, first_ext, top=te)
                    except ValueError:
                        continue
                    v[sel] = _best(side, v[sel], ask(fa, x[sel]))
                    built.append((fa, sel, first_ext, _LOG_ETA, te))
        for f, sel, e, le, te in built:
            ext = sel if e else sel[self._extended_helps(f, kind, x[sel], v[sel])]
            if went is not None and ext.size:
                self._memo[went] = max(h, self._memo.get(went, 0.0))
            if e:
                continue
            if not extended:  # (what was left out: see _refine_step)
                for xj in x[ext].tolist():
                    self._memo[("ext-left", side, order, h, lam, kind, xj)] = True
            elif ext.size and self._extra_fits(side, order, h, lam, le, True, kind, x[ext]):
                fx = self.frame(side, order, h, lam, le, extended=True, top=te)
                v[ext] = _best(side, v[ext], ask(fx, x[ext]))
        return v

    def _aliasing(self, fr: _Frame, order: int, h: float, lam: float, kind: str,
                  x: np.ndarray, v: np.ndarray, scale: np.ndarray, ok: np.ndarray,
                  extended: bool) -> tuple[np.ndarray, np.ndarray]:
        """The questions (indices into ``x``, among ``ok``) whose answers ``v`` in a sound
        frame get a window raised at the top, and the log tilted mass each raised top
        leaves above it (:func:`_raised_top`): those where the tilted mass above the
        window, wrapped around into the body, makes up over 1e-3 of ``scale`` (the scale
        of :meth:`_in_frames`'s test of the mass above the window).

        First the bound :func:`_aliased` must allow that much, and the transforms'
        round-off must not already make it up (a longer transform would only add to it:
        δ at ε = 0.593, σ = 0.612, p = 3.6e-6, 1.63M steps, its round-off 1.6e-3 of δ,
        took twice the time for the same answer). The bound is far above the wrapped
        mass where the composed law's tail is lumpy (a few sampled steps: 0.067 of δ
        against 5.8e-7 at σ = 0.654, p = 3.3e-6, 1.16M steps, δ = 2.9e-10), and a
        Bahadur–Rao estimate from the generating function is no better there (9e-4; and
        4.5 times too low at σ = 0.644 below); so the wrapped mass is then measured, once
        per question, tilt and precision (``extended``, the frame's: in double, where
        the round-off dominates, the difference of two transforms' round-off would be
        measured instead), in the frame of the step where the question was first asked
        at that tilt (:meth:`_measured_aliasing`), and the window raised where it is
        over 1e-3 of the scale (σ = 0.644, p = 2.5e-6, T = 107,538, δ = 6.2e-10: 7.8e-3
        of δ at the steps 1.2e-5 and 3.1e-6; the wrapped mass moves little with the
        step)."""
        bound = _aliased(fr, kind, x, v)
        flag = ok & (bound > 1e-3 * scale)
        if flag.any():
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = 1e-3 * scale / (x if kind == "eps" else v)
            flag &= ~self._dominates(fr, fr.roundoff, kind, x, v, rel)
        ia = np.flatnonzero(flag)
        tops = _raised_top(bound[ia], scale[ia])
        keep = np.zeros(ia.size, dtype=bool)
        for k, (i, te) in enumerate(zip(ia.tolist(), tops.tolist(), strict=True)):
            delta = float(x[i] if kind == "eps" else v[i])
            eps = float(v[i] if kind == "eps" else x[i])
            part = self._measured_aliasing(order, h, lam, kind, float(x[i]), eps, te,
                                           extended)
            keep[k] = part * delta > 1e-3 * float(scale[i])
        return ia[keep], tops[keep]

    def _measured_aliasing(self, order: int, h: float, lam: float, kind: str, x: float,
                           eps: float, top: float, extended: bool) -> float:
        """The part of δ at ``eps`` that the tilted mass above the window of a sound frame
        of step ``h`` and tilt ``lam`` makes up, wrapped around into its body, for the
        question ``x`` (remembered per question, tilt and precision): the fall of the
        window's sum at the threshold (:func:`_window_sum`; the allowances, which a longer
        transform raises, left out) from a frame to the same frame with its window raised
        at the top (``top``, :meth:`_frame_span`), both in double or (``extended``) long
        double, at the step where the question was first asked at this tilt (its
        coarsest, set by the question alone: an answer does not depend on what was asked
        before it), if that frame's window reaches the support's ends where the frame
        of ``h`` does (:func:`_span`: at a coarse step the 64 steps of that rule can take
        the top to the support's end, where nothing wraps; the lower end, reached,
        lengthens the period), else at ``h``; 0 where the raised window cannot be built
        (over ``max_points``, or a power in blocks). For routing only."""
        key = ("aliased", order, lam, kind, x, extended)
        if key in self._memo:
            return self._memo[key]
        hc = self._memo.get(("first-step", order, lam, kind, x), h)
        try:
            if hc != h and self._frame_span("pess", order, hc, lam, _LOG_ETA,
                                            extended)[5:] != \
                    self._frame_span("pess", order, h, lam, _LOG_ETA, extended)[5:]:
                hc = h
            fc = self.frame("pess", order, hc, lam, _LOG_ETA, extended)
            fa = self.frame("pess", order, hc, lam, _LOG_ETA, extended, top=top)
            drop = _window_sum(fc, eps) - _window_sum(fa, eps)
            dlt = x if kind == "eps" else float(fc.delta(np.array([eps]))[0])
            part = drop / dlt if dlt > 0 else math.inf
        except ValueError:  # (no raised window at a coarser step: none at a finer one)
            part = 0.0
        self._memo[key] = part
        return part

    def _extra_fits(self, side: str, order: int, h: float, lam: float, log_eta: float,
                    extended: bool, kind: str, x: np.ndarray) -> bool:
        r"""Whether a frame beyond the first at step ``h`` and tilt ``lam`` (window at
        :math:`e^{\log\eta}`, in long double or not) is built for the questions ``x``: on the
        sound side always; on the other side where it holds at most ``_EXTRA_POINTS``, or
        where a δ asked about (given, or at an ε given, the sound frame's bound at this
        step) is at least ``_JUMPS_FLOOR``, a hundred times below the smallest δ of the box.
        The other side composes no blocks (:meth:`_blocked`), so its frames can hold tens
        of times the sound side's points, and beyond the cap they cost seconds in long
        double; the first frame's answer, a bound, stands. For speed only."""
        if side == "pess" or \
                self._frame_span(side, order, h, lam, log_eta, extended)[4] <= _EXTRA_POINTS:
            return True
        d = x if kind == "eps" else self.frame("pess", order, h, lam).delta(x)
        return bool(np.max(d, initial=0.0) >= _JUMPS_FLOOR)

    @staticmethod
    def _wide_log_eta(fr: _Frame, kind: str, x: np.ndarray, v: np.ndarray) -> np.ndarray:
        r"""The log tilted mass the wider window leaves out at each end, for each of the
        answers ``v`` to ``x`` of the frame ``fr`` (window at :math:`\eta`, ``_LOG_ETA``) where the
        mass outside it dominates: on the sound side its Q-mass above the window, over
        1e-3 of δ; on the other side its allowance for the tilted mass wrapped around from
        outside the window (:meth:`_dominates`). Both fall at least as fast as the η of
        the window (its ends come from a Chernoff bound on the tilted mass, and the
        untilted mass above the upper end B is at most :math:`e^{K - \lambda B}` times
        the tilted), so the window at :math:`\eta\,r\delta/A`, r = 1e-5 (A the amount
        now), puts it at about a hundredth of its threshold; on a grid of factors of 100
        below η (frames reused), at least ``_LOG_ETA_WIDE`` (1e-30), which is also taken
        where an answer is 0. The other side's window at 1e-30 held four times the points
        of the narrow one where one at 1e-12 sufficed (σ = 0.612, p = 3.6e-6, 1.63M steps,
        2 million points against 486,000)."""
        eps, dlt = (v, x) if kind == "eps" else (x, v)
        out = np.full(np.shape(x), _LOG_ETA_WIDE)
        if not (fr.sound or fr.lam > 0 and fr.wrap > 0):
            return out
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            if fr.sound:
                log_a = np.log(np.full(out.shape, fr.m_hi))
            else:
                log_a = math.log(fr.wrap) + fr.K + _c(fr.lam)[0] - fr.lam * (eps + fr.shift)
            lw = _on_eta_grid(_LOG_ETA + np.log(1e-5 * dlt) - log_a)
        ok = (v > 0) & (dlt > 0) & np.isfinite(lw)
        out[ok] = np.maximum(lw[ok], _LOG_ETA_WIDE)
        return out

    def _extended_first(self, order: int, h: float, lam: float, x: np.ndarray
                        ) -> np.ndarray:
        """Where the sound side's δ at ε = ``x`` (step ``h``, tilt ``lam``) is taken at
        once from the frame in long double, without the double one first, value by value:
        where the frame is costly and in the frame of 8 times the step
        (:meth:`_coarse_frame`) the round-off dominates the answer
        (:meth:`_extended_helps`). A frame's round-off allowance grows with its number of
        points and its answer falls as the step is refined, so the frame of step ``h``
        would go to long double too (δ(0.593) at σ = 0.612, p = 3.6e-6, 1.63M steps: the
        double frame, 0.45 s, answered 9.6e-10 against 1.1e-11 in long double). For speed
        only: every frame's answer is a bound."""
        fp = self._coarse_frame(order, h, lam) if _EXTENDED_GAINS else None
        if fp is None:
            return np.zeros(x.shape, dtype=bool)
        return self._extended_helps(fp, "delta", x, fp.delta(x))

    def _coarse_frame(self, order: int, h: float, lam: float) -> _Frame | None:
        """For planning only: where a factor's lattice window at step ``h`` and tilt
        ``lam`` holds 2**17 points or more (the frame then costs a tenth of a second or
        more, most of it in its blocks), the sound frame of 8 times the step, about an
        eighth of the points and of the cost; else None."""
        wins = self._memo.get(self._windows_key(h, order, lam))
        if not wins or max(kb - ka + 1 for ka, kb in wins) < 1 << 17:
            return None
        hp = self._align(_quantise(8.0 * h, self.h0, _STEPS_PER_OCTAVE))
        try:
            self._windows(hp, order, lam, cap=_FACTOR_CAP)
            return self.frame("pess", order, hp, lam)
        except ValueError:
            return None

    def _extended_helps(self, fr: _Frame, kind: str, x: np.ndarray, v: np.ndarray
                        ) -> np.ndarray:
        r"""Where the frame ``fr`` in extended precision would better the answers ``v`` to
        ``x``, value by value: the platform has it, the transforms' round-off is most of
        the frame's l1 allowance (elsewhere, e.g. the other side's allowance for the
        factors' relative errors, it cannot help) and it dominates the answer
        (:meth:`_dominates`). For δ at ε, a relative allowance r on δ moves the ε at which
        that δ is reached by about :math:`r/\lambda` (about the frame's tilt the profile
        falls like :math:`e^{-\lambda\varepsilon}`), :math:`r/(\lambda\varepsilon)` of ε:
        it is taken to dominate where that is over 1e-3 of ε, with r at most 1% (ε at δ
        keeps its rule, r over 1e-3, a move of at most 1e-3 of ε where λε ≥ 1). Without
        it the double frame's δ stays within 1% of the better one, and within 0.1% of ε;
        the long-double frame cost twice the double one for 0.15% of δ (δ(1) at σ = 0.4,
        p = 1e-6, 10⁷ steps: 0.77 s)."""
        if not (_EXTENDED_GAINS and fr.roundoff >= 0.5 * fr.tau):
            return np.zeros(np.shape(x), dtype=bool)
        rel = 1e-3 if kind == "eps" else \
            1e-3 * np.clip(fr.lam * np.maximum(x, 0.0), 1.0, 10.0)
        return self._dominates(fr, fr.roundoff, kind, x, v, rel)

    def _start(self, order: int, lam: float, delta: float) -> float:
        r"""Where the sound side's ε at ``delta`` starts without the planned frame (tilt
        ``lam``): the tight engine's answer (:meth:`answer`; every frame's answer is a
        bound), where this engine is its twin and asked after it, and the refinement of
        :meth:`_refine_step` would leave the plan's tilt at once from it (the δ question
        at that answer is planned at another tilt, whose factor windows fit): the planned
        frame's answer would only be outdone (σ = 0.612, p = 3.6e-6, 1.63M steps,
        δ = 4.3e-9: 0.362 against the tight engine's 0.185, and 0.169 in the end; 0.16 s
        of 1.0 s). NaN elsewhere."""
        s = self._memo.get(("start-eps", order, delta))
        info = self._memo.get(("plan-eps", order, "eps", delta))
        if s is None or info is None or not (math.isfinite(s) and 0.0 < s < 0.5 * info[0]):
            return math.nan
        pd = self.plan(order, "delta", s)
        if pd is None or pd[1] == lam:
            return math.nan
        try:
            self._windows(pd[0], order, pd[1], cap=_FACTOR_CAP)
        except ValueError:
            return math.nan
        return s

    def _refine_step(self, side: str, order: int, h: float, lam: float, x: np.ndarray,
                     v: np.ndarray, started: np.ndarray | None = None) -> np.ndarray:
        """Where the moment bound that chose the step was above the answer (2 to 8 times
        for small sampling rates, 100 times for rare events: skewed or bimodal tilted laws)
        and the step the rule gives at the answer found is below 0.7 of the one used, that
        step (each from the answer of the last), and the best of the answers (each is a
        bound on its side; the question alone decides, value by value).
        On the other side an answer below half the sound side's (0 where nothing is
        certified at that step) takes the step from the sound side's answer. Where the
        moment bound was more than twice the answer, the frame of the δ question at the
        answer found (its saddle-point tilt and step) comes first, and the steps are
        refined at its tilt; the first frame's answer is then taken in double precision,
        where its round-off allowance dominates as :meth:`_bare_estimate` (the frame in
        extended precision, the costliest of all, is built only where the refinement stays
        at the first tilt), and where the frame at the new tilt answers lower, the δ
        question is planned once more at that answer. Where the rule is met but the last
        two answers at one tilt (steps :math:`h_1 > h_2`, answers :math:`a_1, a_2`) put
        the error of the last, taken as :math:`O(h^k)`, at :math:`|a_1 - a_2|/((h_1/h_2)^k
        - 1)` above half of ``rtol`` (k the order that the last three answers at that tilt
        show, within [1, 2], :func:`_observed_order`; 2 where there are two; the rule's
        error model fails for rarely sampled steps and tiny ε), a step finer by the square
        root of the ratio (1.4 to 4 times), up to five refinements in all (seven on the
        sound side while the error is still estimated over twice ``rtol``). At the δ
        question's tilt, or wherever the answer is under half the moment bound that planned
        the step, with no such pair yet, one step finer
        by √2 makes one; where the frame there went to long double, the pair is taken
        in double without the allowances (:meth:`_bare_eps`: the round-off dominates them)
        and, where the error of the answer at the coarser step that pair estimates is over
        half of ``rtol``, one finer step follows, and one more only where the error its pair
        estimates is still over twice ``rtol`` (the step's error is then first order, and
        so estimated: each of T rarely sampled steps spreads a bulk narrower than the
        step). A refined step keeps the frame's window to about 2**20 points
        (:meth:`_clamped_step`; more below the default ``rtol``), 2**21 where that cap
        stops a refinement whose estimated error is still over ``rtol`` (sound side) or
        whose bracket is still over :meth:`_bracket_width` (other side), each factor's
        lattice then up to twice its cap (2**22 points at the default ``rtol``, the factor
        cap growing as the frame's below it), and on the sound side 2**22, each factor's
        lattice up to four times its cap, where the error is still estimated over twice
        ``rtol`` at 2**21. The other side then goes
        at least as far as the sound side went at the same tilt (past 2**20 points only
        where its bracket is still that wide). Where the window's cap stops a step, the
        refinement goes on at a lower tilt whose window is narrower, where δ is large
        enough to allow one (:meth:`_lower_tilt`); the other side then follows at its own
        tilt, to the finest step its window's cap allows there. ``started``: where ``v`` is
        :meth:`_start`'s answer, not the planned frame's (no estimate in that frame then).
        A heuristic for accuracy only: every answer is a bound on its side.

        The sound side's refined frames take wide cells where no answer below the one
        found can reach them (:meth:`_top_for`; the planned frame, in either precision,
        and what is read off it keep the question's, :attr:`_top`)."""
        base = self._top

        def planned(hj: float, lj: float) -> Any:  # (the planned frame's wide cells)
            return self._at_top(base if (hj, lj) == (h, lam) else self._top)

        def spread_of(hj: float, lj: float) -> float:
            with planned(hj, lj):
                return self._window_spread(side, order, hj, lj)

        v = v.copy()
        for j, xj in enumerate(x.tolist()):
            self._top = base
            info = self._memo.get(("plan-eps", order, "eps", xj))
            if info is None:
                v[j] = self._with_extended(side, order, h, lam, xj, float(v[j]))
                continue
            if side == "pess":
                self._top = self._top_for(order, float(v[j]), xj)
            hj, lj, sd, vj = h, lam, info[1], float(v[j])
            prev = None  # (step, answer) before the last, at the tilt lj
            older = None  # (and the one before it)
            for first in (True, False):
                if not first:  # (the refinement stays at the first frame's tilt)
                    with self._at_top(base):
                        v[j] = self._with_extended(side, order, h, lam, xj, float(v[j]))
                est = last = float(v[j])
                if first and side == "pess" and not (started is not None and started[j]):
                    with self._at_top(base):
                        est = min(est, self._bare_estimate(order, h, lam, xj, est))
                if side == "opt":
                    # (an answer far below the sound one says little about the true ε: a
                    # step from it would be needlessly fine; the sound answer sets the scale)
                    sound = float(self._sound_eps(order, np.array([xj]))[0])
                    if est < 0.5 * sound:
                        est = sound
                if not (math.isfinite(est) and 0.0 < est < 0.5 * info[0]):
                    continue
                # (the tilt that minimises the moment bound can put the tilted law on a far
                # tail, cut where the factors' windows end, when the bound is far above the
                # answer (rare events); the saddle-point tilt of the answer found, with its
                # step, frames the answer itself)
                px = est
                pd = self._resolved(side, order, self.plan(order, "delta", px), px, h, lam)
                if pd is None or pd[1] == lam:
                    continue
                allowed = self._memo.get(("tight-allowed", order, xj)) \
                    if self.tight and side == "pess" else None
                if allowed is not None and not self._truncated(order, *pd) <= allowed:
                    # (the δ question's tilt truncates too much here)
                    raise _TwinAsked(float(v[j]))
                for _ in range(2):
                    # (a first estimate without extended precision can be far above the
                    # answer: then once more, the frame of the δ question at the answer)
                    try:
                        self._windows(pd[0], order, pd[1], cap=_FACTOR_CAP)
                        w = float(self._in_frames(side, order, pd[0], pd[1], "eps",
                                                  np.array([xj]))[0])
                    except ValueError:
                        break
                    v[j] = _best(side, v[j], w)
                    # (two answers at one tilt: the refinement below estimates its error)
                    prev = (hj, last) if lj == pd[1] and (hj, lj) != (h, lam) else None
                    older = None
                    hj, lj = pd
                    sd = self._memo[("plan-eps", order, "delta", px)][1]
                    last = w
                    if side == "pess" and 0.0 < w < est:  # (the other side keeps the
                        est = w                            # sound answer's scale)
                    if not (first and side == "pess" and 0.0 < w < vj):
                        break
                    px = w
                    pd = self._resolved(side, order, self.plan(order, "delta", px), px, hj, lj)
                    if pd is None or pd == (hj, lj):
                        break
                if hj != h or lj != lam:
                    if side == "pess":
                        self._memo[("left-plan", order, xj)] = (h, lam)
                    break
            probed = False  # (whether the long-double probe asked for a step)
            # (the other side stops where it lies within rtol of the sound answer: the
            # bracket is then as narrow as the accuracy asked, and a finer step, the
            # costliest frame of the bracket, could only narrow it further)
            close = (1.0 - self.acc.rtol) * sound if side == "opt" else math.inf
            for it in range(7):
                # (no factor lattice over 2**21 points, as in :meth:`plan`, times the
                # frame's growth below the default rtol, twice that past the frame's cap:
                # at rtol=1e-5 σ = 0.573, p = 1.3e-6, 332,678 steps, δ = 1.4e-6 stopped at
                # the default's step, its factor needing 5.2M points, and the bracket,
                # 0.12% wide, did not narrow; at the default σ = 0.579, p = 1e-6, 8.2M
                # steps, δ = 4.6e-5 stopped past the frame's cap at 0.028941, 0.15% above
                # the truth, its factor needing 2.16M points)
                fcap = int(_FACTOR_CAP * self._growth())
                if not (math.isfinite(est) and 0.0 < est < info[0]) or v[j] >= close:
                    break
                if side == "pess" and self._split_takes_over(order, lj, xj, last):
                    break
                order_h = _observed_order(older, prev, (hj, last))
                past_probe = probed and older is None and \
                    not self._split_follows(order, xj, last)
                if past_probe:
                    # (the first pair past the probe: between the first order the probe
                    # found and the rule's second, until a third answer shows its order:
                    # σ = 0.605, p = 8.1e-6, 2.97M steps, δ = 3.5e-8 stopped at 0.348671,
                    # 0.16% above the truth (order about 1.6 between its two answers), its
                    # error put at 0.095% as of the second order; σ = 0.595, p = 3.2e-6,
                    # 469,834 steps, δ = 2.3e-8 at 0.078% above the lower end of its bracket
                    # at rtol=1e-5, 0.045% so. As of the first order, σ = 0.491, p = 5.8e-6,
                    # 6.5M steps, δ = 3.6e-7, within 0.07%, took one more frame in long
                    # double, 0.88 → 1.9 s. Not where the split by the number of jumps
                    # refines the answer after: σ = 0.516, p = 1.2e-6, 5.55M steps,
                    # δ = 3.1e-9 took one more such frame, 1.06 → 2.4 s, for the same answer)
                    order_h = 1.5
                if it >= 5 and not (side == "pess" and
                                    _step_error(prev, (hj, last), order_h) >
                                    2.0 * self.acc.rtol * last):
                    # (a sixth and seventh only where the sound answer's error is still
                    # estimated over twice rtol: σ = 0.679, p = 7.3e-6, T = 2, δ = 6e-6,
                    # whose bulk is 1e-5 wide in a window of 0.35, 0.7% tighter for one
                    # more; a seventh at 1e-3 of the answer gained 0.02% for 1.3 s)
                    break
                if probed and not _step_error(prev, (hj, last), order=1) > \
                        2.0 * self.acc.rtol * last:
                    # (past the step the long-double probe asked, more only while the error
                    # is still over twice rtol, estimated as of the first order: the rarely
                    # sampled bulk that sends a frame to long double is narrower than the
                    # step, and its error is first order in it. σ = 0.609, p = 1.4e-6, 3.0M
                    # steps, δ = 2.6e-7 stopped after one more step at 0.03555, 1.2% above
                    # the truth, its bracket 1.5% wide at any rtol; one more gave 0.035137
                    # and 0.18%. σ = 0.574, p = 2.9e-6, 416,230 steps, δ = 3.5e-8: 0.101525,
                    # 0.21% above the truth, whose error the second-order estimate put at
                    # 0.1%; 0.101405 so)
                    break
                h2 = self.step_for(lj, est, sd)
                if not h2 < 0.7 * hj and prev is None and lj == lam and last >= 0.5 * info[0]:
                    # (the plan's coarse law can put the tilted spread far wider than the
                    # frame's window, and the rule's step, capped by 16 of its spreads, then
                    # stays at the first frame's at any rtol: sigma=0.741, p=3.7e-5,
                    # T=4.8M, a spread of 2.43 against a window of 6.5, the step 5.7 times
                    # the rule's and the answer 1.1% loose; where the refinement is not
                    # otherwise under way, the rule's step capped by the window instead, where
                    # it is at least twice finer: sigma=0.786, p=1.6e-4, T=2.2M asked 0.59
                    # of the step for 0.03%, at three times the cost)
                    hw = self.step_for(lj, est, spread_of(hj, lj))
                    if hw < 0.5 * hj:
                        h2 = hw
                if not h2 < 0.7 * hj and prev is None and lj == lam and \
                        not last < 0.5 * info[0] and \
                        self._rule_step(lj, est, sd) < 0.5 * hj:
                    # (the cap of points, not the rule, set the planned step, and no pair
                    # of answers estimates its error: the rule's step at a lower tilt whose
                    # window is narrower, where δ allows one, _lower_tilt; σ = 0.448,
                    # p = 9.3e-6, 3.28M steps, δ = 2.2e-5 answered 1.501000 at every rtol,
                    # its tilted spread 4.7 at the planned tilt)
                    tw = self._tilt_window(order, hj, lj, xj,
                                           sound if side == "opt" else last, spread_of)
                    if tw is not None:
                        ht = self._clamped_step(self._rule_step(tw[0], est, sd), tw[1])
                        if ht < 0.7 * hj:
                            lj, h2 = tw[0], ht
                            self._memo[("tilt-lowered", side, order, xj)] = lj
                if not h2 < 0.7 * hj:
                    err = _step_error(prev, (hj, last), order_h)
                    # (where the answer is under half the moment bound that planned the
                    # step, as where the refinement moved to the δ question's tilt)
                    suspect = lj != lam or last < 0.5 * info[0]
                    probe = prev is None and suspect and side == "pess"
                    if probe and not any(k[:4] == (side, order, hj, lj) and k[5]
                                         for k in self._frames):
                        # (at the δ question's tilt the rule's error model has failed by
                        # 2% (sigma=0.792, p=4.4e-6, T=3857): one step finer by sqrt(2)
                        # gives the pair its error estimate needs)
                        f = math.sqrt(0.5)
                    elif probe:
                        # (where the frame went to long double, whose cost a probe would
                        # double, the pair is taken in double without the allowances, which
                        # the round-off dominates there; then the step that estimate asks)
                        hp = self._clamped_step(math.sqrt(0.5) * hj,
                                                spread_of(hj, lj))
                        if not hp < 0.95 * hj:
                            break
                        try:
                            self._windows(hp, order, lj, cap=_FACTOR_CAP)
                            with planned(hj, lj):
                                b1 = self._bare_eps(order, hj, lj, xj)
                            b2 = self._bare_eps(order, hp, lj, xj)
                        except ValueError:
                            break
                        # (the error of the answer at hj, first order in the step as past
                        # the probe, see below: the second-order error of the pair's finer
                        # answer stopped σ = 0.568, p = 3.9e-6, 261,291 steps, δ = 6.8e-8
                        # at 0.118567, 0.116% above the truth; 0.118442 so)
                        err = _step_error((hj, b1), (hp, b2), order=1) * hj / hp \
                            if b1 > 0 and b2 > 0 else 0.0
                        if not err > 0.5 * self.acc.rtol * last:
                            break
                        f = min(max(0.5 * self.acc.rtol * last / err, 0.25), 0.7)
                        probed = True  # (each such step costs a frame in long double)
                    elif not err > 0.5 * self.acc.rtol * last:
                        break
                    else:
                        r = 0.5 * self.acc.rtol * last / err
                        f = min(max(r ** (1.0 / 1.5) if past_probe else math.sqrt(r), 0.25),
                                0.7)
                    # (the spread that caps the step's refinement: the last frame's window,
                    # often far narrower than 16 spreads of the plan for rare events)
                    spread = spread_of(hj, lj)
                    h2 = self._clamped_step(f * hj, spread, grow=True)
                    if h2 > 1.01 * f * hj:
                        # (the window's cap stops the step: a lower tilt, whose window is
                        # narrower, where δ allows it, _lower_tilt)
                        tw = self._tilt_window(order, hj, lj, xj,
                                               sound if side == "opt" else last, spread_of)
                        if tw is not None and tw[1] < spread:
                            lj, spread = tw
                            h2 = self._clamped_step(f * hj, spread, grow=True)
                            self._memo[("tilt-lowered", side, order, xj)] = lj
                    # (where that cap stops a refinement whose error estimate is still over
                    # rtol, on the sound side, or whose bracket is still over
                    # _bracket_width(), on the other, a window of twice the points:
                    # σ = 0.622, p = 2.3e-5, 54,621 steps, δ = 9.9e-4, an answer 0.12%
                    # above the truth and a bracket 1.2% wide; 0.04% and 0.22% so. Four
                    # times the points took σ = 0.516, p = 1.6e-6, 2.2M steps, δ = 1.0e-5
                    # from 0.054633, 0.13% above the truth, to 0.054602, but σ = 0.465,
                    # p = 1.3e-6, 1.93M steps, δ = 2.0e-8 from 0.86 s to 1.5 s for 3e-5 of
                    # its answer)
                    wide = err > self.acc.rtol * last if side == "pess" else \
                        last < (1.0 - self._bracket_width()) * sound
                    hr = self._clamped_step(f * hj, 0.5 * spread, grow=True)
                    if wide and h2 > hr and self._factors_fit(hr, order, lj, 2 * fcap):
                        h2 = hr
                        fcap *= 2
                        if side == "pess":
                            self._memo[("past-cap", order, xj)] = h2
                    # (where the sound answer's error is still estimated over twice rtol
                    # at that cap, a window of four times the points: σ = 0.512,
                    # p = 1.4e-6, 6.2M steps, δ = 9.7e-6, its error at 0.35% as of the
                    # order 1.4 that its answers showed, stopped 0.22% above the truth;
                    # 0.044% so, 0.30 → 0.71 s. One of the 720 questions of the seeded
                    # scans takes it)
                    if side == "pess" and err > 2.0 * self.acc.rtol * last and \
                            not h2 < 0.95 * hj:
                        hq = self._clamped_step(f * hj, 0.25 * spread, grow=True)
                        if hq < 0.95 * hj and self._factors_fit(hq, order, lj, 4 * fcap):
                            h2 = hq
                            fcap *= 4
                            self._memo[("past-cap", order, xj)] = h2
                    if not h2 < 0.95 * hj:
                        break
                try:
                    self._windows(h2, order, lj, cap=fcap)
                    w = float(self._in_frames(side, order, h2, lj, "eps", np.array([xj]))[0])
                except ValueError:
                    break
                v[j] = _best(side, v[j], w)
                # (a finer step whose sound answer rose by over half of rtol ends the
                # refinement: the step's own error falls with the step, so another
                # allowance that grows with the points, e.g. the window's or the
                # transforms', now dominates, and a finer step would only add to it;
                # σ = 0.833, p = 3e-6, 10⁷ steps, δ = 1e-14 went on from 0.1478 to
                # 0.1659, 0.1901 and 0.2115 in 2.8 s)
                rose = side == "pess" and 0.0 < last < math.inf and \
                    w > (1.0 + 0.5 * self.acc.rtol) * last
                older, prev = prev, (hj, last)
                last = w
                est, hj = (w if w > 0 else est), h2
                if rose:
                    break
            if side == "pess":
                self._memo[("last-step", order, xj)] = (hj, lj)
            else:
                # (the other side refines at least as far as the sound side did at the same
                # tilt, where its own answers gave no estimate of their error, e.g. a first
                # answer of 0)
                hs, ls = self._memo.get(("last-step", order, xj), (hj, None))
                # (a step the sound side took past the cap of 2**20 points, only where the
                # bracket is still over _bracket_width(): σ = 0.641, p = 2.3e-5, 507
                # steps, two frames of a million points, 1 s, for nothing at 0.24%)
                past = hs <= self._memo.get(("past-cap", order, xj), 0.0)
                # (where the sound side went to a lower tilt, _lower_tilt, this side stays
                # at its own, whose lattices cost it less, at the finest step its window's
                # cap allows there, or the sound side's if coarser)
                lowered = ls is not None and ls < lj and \
                    self._memo.get(("tilt-lowered", "pess", order, xj)) == ls
                if lowered:
                    spread = spread_of(hj, lj)
                    hs = max(hs, self._clamped_step(hs, 0.25 * spread if past else spread,
                                                    grow=True))
                    ls = lj
                if ls == lj and hs < 0.95 * hj and not v[j] >= close and \
                        not (past and v[j] >= (1.0 - self._bracket_width()) * sound):
                    try:
                        if lowered:  # (the sound side's windows elsewhere)
                            self._windows(hs, order, lj, cap=4 * _FACTOR_CAP)
                        w = float(self._in_frames(side, order, hs, lj, "eps",
                                                  np.array([xj]))[0])
                        v[j] = _best(side, v[j], w)
                        hj = hs
                    except ValueError:
                        pass
                self._memo[("opt-step", order, xj)] = (hj, lj, sd)
        self._top = base
        return v

    def _refine_delta(self, side: str, order: int, h: float, lam: float, x: np.ndarray,
                      v: np.ndarray) -> np.ndarray:
        r"""δ at each ε of ``x`` (``v``, this side's answers in the planned frame of step
        ``h`` and tilt ``lam``) bettered at finer steps, value by value, where that step
        does not resolve one factor's bulk (:meth:`_bulk_unresolved`: rarely sampled steps,
        whose step rule's error model fails, as for ε, :meth:`_refine_step`). The sound side
        halves the step, at the same tilt, up to ``_DELTA_HALVINGS`` times, while the error
        of its last answer, estimated from the last two as of the second order
        (:math:`(a_1 - a_2)/((h_1/h_2)^2 - 1)`; measured: 1.655e-4, 1.586e-4, 1.568e-4,
        1.563e-4, 1.562e-4 at 1 to 1/16 of the step, σ = 0.90, p = 4.4e-6, 1.2M steps, ε =
        0.01245), is over half of ``rtol`` times :math:`\varepsilon\,|d\log\delta/d
        \varepsilon|` (at least 1, at most 10) of it, the δ an error of half of ``rtol`` in
        ε would move, the slope read off the planned frame; it stops where a finer step's
        answer is no better, or its frame would exceed ``_NARROW_POINTS`` (``_DELTA_POINTS``
        while the error estimated is over ten times that tolerance); not where the
        planned frame of a power of one factor was composed in two levels
        (:meth:`_blocked`), whose finer frames cost far more per point (σ = 0.4, p = 1e-6,
        10⁷ steps, ε = 1: 1.2 s for 1.3% of δ; its split by the number of jumps refines
        it), but for a long power beside a few other factors, which has nothing else
        (σ = 0.6, p = 1e-6, 10⁷ steps beside G_0.5, ε = 3.769: 1.13e-14 at the planned step,
        1.003e-14 after three halvings, 1.5 s). The finer frames stay in double (where
        their round-off dominates, a finer step gains nothing and the refinement stops: at
        σ = 0.612, p = 3.6e-6, 1.63M steps, ε = 0.593 the frames in long double took 1.4 s
        for no gain). The other side answers at the step the sound side ended at (beside
        other factors, where its one-level frame holds at most ``_NARROW_POINTS``). Each
        answer is a bound on its side; a heuristic for accuracy only."""
        if not self._bulk_unresolved(order, h, lam) or \
                len(self.groups) == 1 and self._in_blocks(order, h, lam):
            return v
        v = v.copy()
        for j, xj in enumerate(x.tolist()):
            key = ("delta-step", order, h, lam, xj)
            if side == "opt":
                if key not in self._memo:
                    self._answer("pess", order, "delta", np.array([xj]))
                hs = self._memo.get(key, h)
                if hs < h:
                    try:
                        size = max((f.s.size for f in self._frames_at(side, order, h, lam)),
                                   default=0)
                        if len(self.groups) > 1 and size * h / hs > _NARROW_POINTS:
                            # (beside other factors the sound frames were in blocks, this
                            # side's are in one level, its lattices balanced: 4.2M points,
                            # 6 s, for a bracket of δ 0.39% wide instead of 0.69%,
                            # σ = 0.6, p = 1e-6, 10⁷ steps with G_0.5, ε = 2)
                            continue
                        w = float(self._in_frames(side, order, hs, lam, "delta",
                                                  np.array([xj]), extended=False)[0])
                        v[j] = max(v[j], w)
                    except ValueError:
                        pass
                continue
            hs, last = h, float(v[j])
            if 0.0 < last < 1.0:
                # (the slope from a frame the answer built: a new one, e.g. the double twin
                # of a wide frame built in long double at once, would cost as much again)
                dx = 1e-3 * max(abs(xj), 1e-3)
                fr = next(iter(self._frames_at("pess", order, h, lam)), None)
                hi_, lo_ = fr.delta(np.array([xj, xj - dx])) if fr is not None else (0, 0)
                slope = math.log(lo_ / hi_) / dx if 0.0 < hi_ < lo_ else 0.0
                tol = 0.5 * self.acc.rtol * min(max(abs(xj) * slope, 1.0), 10.0)
                err = 0.0  # (no estimate before the first halving)
                for _ in range(_DELTA_HALVINGS):
                    h2 = self._align(_quantise(0.5 * hs, self.h0, _STEPS_PER_OCTAVE))
                    size = max((f.s.size for f in self._frames_at(side, order, hs, lam)),
                               default=0)
                    cap = _DELTA_POINTS if err > 10.0 * tol * last else _NARROW_POINTS
                    if not (h2 < 0.95 * hs and 0 < size * hs / h2 <= cap):
                        break
                    try:
                        self._windows(h2, order, lam, cap=_FACTOR_CAP)
                        w = float(self._in_frames(side, order, h2, lam, "delta",
                                                  np.array([xj]), extended=False)[0])
                    except ValueError:
                        break
                    if not 0.0 < w < last:
                        break
                    v[j] = min(v[j], w)
                    err = (last - w) / ((hs / h2) ** 2 - 1.0)
                    hs, last = h2, w
                    if not err > tol * w:
                        break
            self._memo[key] = hs
        return v

    def _frames_at(self, side: str, order: int, h: float, lam: float) -> list[_Frame]:
        """The frames built of step ``h`` and tilt ``lam`` on one side (any window, either
        precision), in the order they were built."""
        return [f for k, f in self._frames.items() if k[:4] == (side, order, h, lam)]

    def _in_blocks(self, order: int, h: float, lam: float) -> bool:
        """Whether a sound frame of step ``h`` and tilt ``lam`` was composed in two levels
        (:meth:`_blocked`; any window, precision or wide cells, as :meth:`_frame_span`
        records)."""
        return ("in-blocks", order, h, lam, self._depths(order, lam)) in self._memo

    def _bulk_unresolved(self, order: int, h: float, lam: float) -> bool:
        """Whether a power of one factor, or the long group of a level in blocks beside a
        few other factors (:meth:`_long_groups`), is discretised at step ``h`` (tilt
        ``lam``) with half its Q-mass or more on four lattice points: a rarely sampled
        step, whose bulk the step does not resolve."""
        if len(self.groups) == 1:
            if self.groups[0][1] < 2:
                return False
        else:
            longs = self._long_groups()
            if not longs or len(longs) != 1:
                return False
        key = ("unresolved", order, h, lam, self._depths(order, lam))
        if key not in self._memo:
            if len(self.groups) == 1:
                q = self.lats("pess", h, order, lam)[0][0].q
            else:
                try:
                    q = self._one_lat(h, order, lam, longs[0], _FACTOR_CAP).q
                except ValueError:
                    q = np.zeros(1)
            tot = float(np.add.reduce(q))
            top = float(np.add.reduce(q[_four_heaviest(q)])) if q.size > 4 else tot
            self._memo[key] = tot > 0.0 and top >= 0.5 * tot
        return self._memo[key]

    def _resolved(self, side: str, order: int, pd: tuple[float, float] | None, px: float,
                  hx: float, lx: float) -> tuple[float, float] | None:
        """The frame ``pd`` (step, tilt) of the δ question :meth:`_refine_step` plans at
        ``px``, the answer of the frame of step ``hx`` and tilt ``lx``. On the sound side,
        where that answer is at most two of its steps (the answer of a step that does not
        resolve it) and the planned step leaves a factor's bulk unresolved
        (:meth:`_bulk_unresolved`): a sixteenth of the factor's Q-quartile spread if finer,
        where the planned frame's window holds at most 2**14 points at that step. At ``lx``
        itself, at most ``hx`` (a step finer than the plan's, taken so, is kept).

        A rarely sampled step's answer at a step coarser than its bulk is about one step,
        whatever the truth below it, and the δ question planned at that answer refines the
        step only by three or ten times at each round (σ = 0.838, p = 6.3e-6, 3 steps,
        δ = 1.05e-6: answers of 1.98e-3, 1.78e-4, 5.5e-5, then refinements at steps of
        3e-5, 7.4e-6 and 1.9e-6, to 4.11e-5 at 1.1e-6; at a sixteenth of the spread,
        1.56e-6, the first answer is within 0.07% and one step finer ends it: three sound
        frames instead of seven, 20 instead of 27 ms). The other side follows the sound
        side's steps as before. A heuristic for speed only: every frame's answer is a
        bound."""
        if pd is None:
            return pd
        if pd[1] == lx and pd[0] > hx:
            return hx, lx
        if side != "pess" or not px <= 2.0 * hx or not self._bulk_unresolved(order, *pd):
            return pd
        i = 0 if len(self.groups) == 1 else self._long_groups()[0]
        ql, qh, _, _ = self._quantiles(self.factors(order)[i].pess, 0.25)
        if not 0.0 < qh - ql < 16.0 * pd[0]:
            return pd
        # (only where the planned frame's window holds at most 2**14 points at that step:
        # wider windows at a bulk step (σ = 0.4, p = 1e-6, 3 steps, δ = 1e-6: 311,040
        # points) sent the refinement past the cap of 2**20, the other side after it, and
        # the bracket went from 0.43% to 4.7% wide)
        hb, spread = (qh - ql) / 16.0, self._window_spread(side, order, *pd)
        if not 16.0 * spread <= 2.0 ** 14 * hb:
            return pd
        hb = self._clamped_step(hb, spread)
        return (hb, pd[1]) if hb < pd[0] else pd

    def _with_extended(self, side: str, order: int, h: float, lam: float, delta: float,
                       v: float) -> float:
        """``v``, the answer of the frame of step ``h`` and tilt ``lam`` at ``delta`` asked
        without extended precision, bettered by that frame in extended precision where
        :meth:`_in_frames` left it out."""
        if ("ext-left", side, order, h, lam, "eps", delta) not in self._memo:
            return v
        return float(_best(side, v, self._in_frames(side, order, h, lam, "eps",
                                                    np.array([delta]))[0]))

    def _window_spread(self, side: str, order: int, h: float, lam: float) -> float:
        """A tilted spread read off the frame of step ``h`` and tilt ``lam``: its window over
        16, the cap of a refined step where the plan's coarse law puts the spread far wider
        than the frame's window (rare events)."""
        lv, _, KA, _, N, _, _ = self._frame_span(side, order, h, lam, _LOG_ETA, False)
        # (the frame's first and last loss, as it computes them, without composing it)
        return ((float(KA + N - 1) * lv.h + lv.off) - (float(KA) * lv.h + lv.off)) / 16.0

    def narrow(self, order: int, delta: float, v: float, target: float) -> float:
        """The other side's ε at ``delta`` for one order, ``v`` (its answer), bettered with
        the step halved (up to three times and once more per halving of ``rtol`` below the
        default, once in lists of over ``_FEW_GROUPS`` groups, while that raises it or
        nothing is certified yet) until it is within :meth:`_narrow_gap` of ``target`` (the
        sound answer of the whole
        mechanism): for brackets still wide after :meth:`_refine_step`, where the other
        side's error, not the sound side's, sets the width (few steps, small ε; a run in
        phases, whose other side merges away up to 8.5e-5 of a factor's Q-mass at the
        planned step, first order in it: two phases of 10⁶ steps at σ = 0.4, p = 3e-3 and
        σ = 0.5, p = 0.01, δ = 1e-10, certified nothing, now 2449.4 against 2450.0). Each
        answer is a bound on its side. In the :attr:`twin` where :meth:`answer` asked
        it.

        Below the default ``rtol`` its frames may grow as the sound side's refined ones
        (:meth:`_growth`): in a rarely sampled bulk the other side's error is first order in
        the step, and a bracket stopped at 0.4% and three halvings stayed 0.36% wide at
        every ``rtol`` (σ = 0.684, p = 2.67e-6, T = 539,384, δ = 2.87e-8; now 0.037% at
        ``rtol=1e-4``, 0.015% at 1e-5).

        Then, in lists of two groups or more still short of the gap, coarser steps
        (:meth:`_coarser`: bulks about a step wide, which a finer step does not help)."""
        if self._routed("eps", np.array([delta]), order)[0]:
            return self.twin.narrow(order, delta, v, target)
        st = self._memo.get(("opt-step", order, delta))
        if st is None:
            return v
        hj, lj, sd = st
        first = self._plan_key(order, "eps", delta)
        planned = hj
        halvings = 1 if len(self.groups) > _FEW_GROUPS else \
            3 + max(0, math.ceil(math.log2(Accuracy().rtol / self.acc.rtol) - 1e-9))
        for _ in range(halvings):
            if not self._short_of_gap(v, target):
                break
            # (the spread that caps the step is the frame's window where narrower than 16
            # spreads of the plan, as in _refine_step: the plan's kept sigma=0.741,
            # p=3.7e-5, T=4.8M from halving at all, 7.3% wide; where a refinement moved the
            # step, only while the frame stays within _NARROW_POINTS: sigma=0.932,
            # p=1.6e-5, T=6,494, 0.70% wide, 0.54% so)
            cap = min(sd, self._window_spread("opt", order, hj, lj))
            h2 = self._clamped_step(0.5 * hj, cap, grow=True)
            if (hj, lj) != first and self.frame("opt", order, hj, lj).s.size * hj / h2 > \
                    _NARROW_POINTS * self._growth():
                h2 = self._clamped_step(0.5 * hj, sd, grow=True)
            if not h2 < 0.95 * hj:
                break
            try:
                self._windows(h2, order, lj, cap=_FACTOR_CAP)
                w = float(self._in_frames("opt", order, h2, lj, "eps", np.array([delta]))[0])
            except ValueError:
                break
            if not (w > v or w == v == 0.0):  # (nothing certified yet: one step finer)
                break
            v, hj = w, h2
        if len(self.groups) > 1:
            v = self._coarser(order, delta, v, target, planned, lj)
        return v

    def _short_of_gap(self, v: float, target: float) -> bool:
        """Whether the other side's ``v`` is still more than :meth:`_narrow_gap` below a
        finite positive ``target`` (the sound answer), the condition of :meth:`narrow`'s
        finer and :meth:`_coarser`'s coarser steps."""
        return 0.0 < target < math.inf and v < (1.0 - self._narrow_gap()) * target

    def _coarser(self, order: int, delta: float, v: float, target: float, h: float,
                 lam: float) -> float:
        """:meth:`narrow`'s last tries in lists of two groups or more, where the finer
        steps left the answer short of :meth:`_narrow_gap` below ``target``: the other
        side's ε at ``delta`` at 2, 4 and 8 times its planned step ``h`` (tilt ``lam``),
        the largest of them and ``v`` (each a bound on its side), while still short. A
        rarely sampled phase whose bulk is about a step wide loses a first-order share of
        its Q-mass to the balancing; a finer step helps little or not at all (the bulk then
        spans more steps, with light neighbours), a coarser one puts it within a half-cell.
        166 phases, 117 of them at p under 1e-3 (4.7M steps, δ = 1.2e-11): the lower end
        43.22 against 51.05 at the planned step and a finer one, 42.10 at twice it, 50.26
        at four times; 40 phases (δ = 1.2e-7): 10.976 at the planned step, 6.420 at a finer
        one, 11.426 at twice it; 10 phases (δ = 1e-8): 1.0785, 1.4704 at half the step,
        1.6111 at twice it (the sound answer 1.6233). The coarser frames are the smaller
        ones; a lower answer at one step does not stop the next (43.2, 42.1, 50.3). A
        single power is left to its own refinements (its bulk's offset and pile)."""
        for _ in range(_COARSER_STEPS):
            if not self._short_of_gap(v, target):
                break
            h = self._align(_quantise(2.0 * h, self.h0, _STEPS_PER_OCTAVE))
            try:
                self._windows(h, order, lam, cap=_FACTOR_CAP)
                w = float(self._in_frames("opt", order, h, lam, "eps", np.array([delta]))[0])
            except ValueError:
                break
            v = float(_best("opt", v, w))
        return v

    def _bare_estimate(self, order: int, h: float, lam: float, delta: float, eps: float
                       ) -> float:
        """For planning only, never a bound: where the transforms' round-off allowance
        dominates the sound answer ``eps`` at δ = ``delta`` in the frame of step ``h`` and
        tilt ``lam`` (as where :meth:`_in_frames` adds an extended-precision frame), the ε
        of that frame's masses without their allowances (the round-off itself is far below
        its worst-case bound); else ``eps``."""
        fr = self.frame("pess", order, h, lam)
        if not bool(self._extended_helps(fr, "eps", np.array([delta]), np.array([eps]))[0]):
            return eps
        e = self._bare_eps(order, h, lam, delta)
        return e if 0.0 < e < eps else eps

    def _bare_eps(self, order: int, h: float, lam: float, delta: float) -> float:
        """For planning only, never a bound: the ε at ``delta`` of the sound frame's masses
        (step ``h``, tilt ``lam``, in double) without their allowances."""
        fr = self.frame("pess", order, h, lam)
        bare = dataclasses.replace(fr, rel=0.0, tau=0.0, shift=0.0, m_hi=0.0, m_lo=0.0,
                                   k_up=math.inf, roundoff=0.0, _consts=None)
        return float(bare.epsilon(np.array([delta]))[0])

    def _tv_at_most(self, order: int, delta: float) -> bool:
        r"""Whether the composition's total variation distance, its δ at ε = 0 (the same
        for both orders), is provably at most ``delta``: then ε = 0 on both sides.

        A coupling of the products bounds it by :math:`1 - \prod_i (1 - \mathrm{TV}_i)^{n_i}`,
        with :math:`\mathrm{TV}_i = Q_i[L > 0] - P_i[L > 0] + Q_i[L = +\infty]` of each
        factor's sound law in order 1 (a pair and its other order are at the same
        distance; the excess of its cell :math:`(0, \infty]` with its error bound, its atoms
        above 0 and its mass at :math:`+\infty`), each rounded up. The factors are
        summed in order only until the bound exceeds ``delta`` (long mixed lists at small δ
        stop at the first); the partial sum is kept, so that the answer depends on
        ``delta`` alone."""
        if not 0.0 < delta < 1.0:
            return delta >= 1.0
        st = self._memo.setdefault(("tv",), [0.0, 0])
        fs = self.factors(1)
        target = -math.log1p(-delta) * (1.0 - 8 * EPS)
        while st[1] < len(fs) and st[0] <= target:
            fa = fs[st[1]]
            law = fa.pess
            with np.errstate(all="ignore"):
                _, _, _, _, X, EX = law.excess(np.array([0.0, np.inf]), np.zeros(1))
            tv = float(X[0]) + float(EX[0])
            u, pa, qa = law.atoms()
            up = u > 0.0
            if up.any():
                tv += math.fsum(np.maximum(qa[up] - pa[up], 0.0).tolist()) * (
                    1.0 + 4 * EPS * (int(up.sum()) + 2))
            tv = (max(tv, 0.0) + law.q_inf) * (1.0 + 8 * EPS)
            st[0] += (fa.n * -math.log1p(-tv) * (1.0 + 8 * EPS) if tv < 1.0 else math.inf)
            st[1] += 1
        return st[1] == len(fs) and st[0] <= target

    def _plan_key(self, order: int, kind: str, v: float) -> Any:
        """``("trivial",)`` or the (step, tilt) of the frame answering this question,
        remembered (the sound side, order -1's moment bound, the other side and its
        narrowing all ask it)."""
        key = ("plan-key", order, kind, v)
        if key not in self._memo:
            if kind == "eps" and (v >= 1.0 or self._tv_at_most(order, v)):
                p = None
            elif kind == "delta" and math.isinf(v):
                p = None
            else:
                with self._at_budget(self._budget_for(order, kind, v)):  # (its windows)
                    p = self.plan(order, kind, v)
            self._memo[key] = ("trivial",) if p is None else p
        return self._memo[key]

    def moment_eps(self, order: int, delta: float, below: float = math.inf) -> float:
        r"""A sound upper bound on this order's ε at ``delta`` without a frame: the moment
        bound :math:`\varepsilon \le \mathrm{shift} + (\bar K(\lambda) + c(\lambda) -
        \log(\delta - q_\infty))/\lambda` (:func:`_log_moment_bound`, checked at the point
        returned) of a sound lattice law at the tilt λ of the planning law's moment bound:
        first the factors' laws on a coarse grid (:meth:`_grid_moment_eps`, a fraction of
        the cost), and where that is above ``below``, the law the frame of the question
        would compose (the same discretisation: a frame built later reuses it) at the
        frame's tilt. inf where the question needs no frame or the bound does not apply,
        and at once where the planning law's moment bound is above ``below`` (the caller
        needs a bound below it; the lattice laws' are about the same or above)."""
        if delta >= 1.0 or self._tv_at_most(order, delta):
            return math.inf  # (a trivial question: _plan_key's)
        t = self._question_tilt(order, "eps", delta)
        if t is None or not t[4] <= below:
            return math.inf
        # (first from the factors' lattice laws on a grid of 2,048 cells, where they are
        # few or cost less than the frame's lattice, _grid_pays: about half the cost of
        # the frame's plan and lattice at σ = 1, p = 0.01,
        # T = 10^4, and below ``below`` in most configurations where that one is: 14 of
        # the refusal scan's 168 ε questions that pass need the frame's)
        e = self._grid_moment_eps(order, delta, t[0])
        if e <= below:
            return e
        key = self._plan_key(order, "eps", delta)
        if key[0] == "trivial":
            return math.inf
        h, lam = key
        hm = self._moment_step(order, h, lam, below - t[4])
        if hm is not None:
            try:
                lv = self._level("pess", order, hm, lam)
            except ValueError:
                lv = None
            if lv is not None and lv.sound_kgf is not None:
                e = _moment_eps(lv.sound_kgf, lam, lv.q_inf, lv.shift, delta)
                if e <= below:
                    return e
        kgf, qi, shift = self._sound_law(order, h, lam)
        if kgf is None:
            return math.inf
        return _moment_eps(kgf, lam, qi, shift, delta)

    def _moment_step(self, order: int, h: float, lam: float, margin: float
                     ) -> float | None:
        r"""A step coarser than the frame's ``h`` for :meth:`moment_eps` in a list of over
        ``_FEW_GROUPS`` groups (the grid law's bound, where :meth:`_grid_law` gives one,
        was tried before and is looser), tried first: that bound
        needs only to lie below the caller's ``below``, ``margin`` above the planning law's.
        Connect-the-dots raises each factor's :math:`K(\lambda) = \log E_Q[u^{-\lambda}]`,
        :math:`u = e^{-L}`, by about :math:`\lambda(\lambda + 1) w^2/8` at the step w (the
        split keeps the Q-mean of u, whose spread it raises by at most :math:`u^2 w^2/4`),
        so n factors raise the bound on ε by about :math:`n (\lambda + 1) w^2/8`: the step
        at which that is half the margin, at most 64 h; None where it is not twice h or
        more, where the factors' windows at h (known from the plan) hold fewer than
        ``_MOMENT_POINTS`` points per group (their lattices cost less than the coarse ones'
        windows, a root search per factor: 200 phases of 1 to 49 steps, 251,777 points at
        h, took 0.03 s there and 0.22 s at 32 h; 17 rarely sampled phases, 305,896 points,
        0.12 s there and 0.03 s at 64 h), or where the step
        is given by the caller or aligned to atoms. A heuristic for speed only: the bound
        is checked, and where it is above ``below`` the frame's own lattice is asked (162
        rarely sampled phases, 10M points at h: order -1's moment bound took 1.2 s at the
        frame's step, 0.2 s at 38 times it, 17.32 against 17.05 and ``below`` 29.45)."""
        if not margin > 0 or not math.isfinite(margin) or self.gap > 0 or \
                self.acc.grid_step is not None or \
                len(self.groups) <= _FEW_GROUPS and self._grid_law(order) is not None:
            return None
        wins = self._memo.get(self._windows_key(h, order, lam))
        if not wins or any(isinstance(w, str) for w in wins) or \
                sum(kb - ka + 1 for ka, kb in wins) < _MOMENT_POINTS * len(self.groups):
            return None
        w = min(math.sqrt(4.0 * margin / (max(self.ntot, 1) * (lam + 1.0))), 64.0 * h)
        hm = _quantise(w, self.h0, _STEPS_PER_OCTAVE)
        return hm if hm >= 2.0 * h else None

    def _grid_law(self, order: int) -> tuple[_KGF, float, float] | None:
        r"""The factors' sound lattice laws (:func:`~gdp.engine.lattice._disc_pess`) on grids
        of ``_MOMENT_CELLS`` cells spanning each factor's quantiles at 1e-30 (Q and P; beyond
        them the tails go to the grid's end points and to :math:`+\infty`), composed: the
        cumulant generating function of their atoms, the loss shift and the mass at
        :math:`+\infty` (rounded up). For the moment bounds of :meth:`moment_eps` and
        :meth:`moment_delta`: connect-the-dots raises each factor's cumulant generating
        function by about :math:`\lambda^2 w^2/8` (w the cell's width), so these bounds
        are looser than those of the frame's lattice, which the callers ask where these do
        not suffice. None for more than ``_FEW_GROUPS`` groups of factors unless the grids
        cost less than that lattice (:meth:`_grid_pays`; not remembered then), a factor
        without finite quantiles there or with cells under 1e-12 of its losses, or a
        lattice step given by the caller.
        Remembered per order."""
        key = ("grid-law", order)
        if key in self._memo:
            return self._memo[key]
        if len(self.groups) > _FEW_GROUPS and not self._grid_pays(order):
            return None
        out = None
        if self.acc.grid_step is None:
            lats, shift, q_infs = [], 0.0, []
            for fa in self.factors(order):
                ql, qh, pl, ph = self._quantiles(fa.pess, 1e-30)
                lo, hi = min(ql, pl), max(qh, ph)
                w = (hi - lo) / _MOMENT_CELLS
                # (a support too narrow for distinct grid points, e.g. p = 5e-324: none)
                if not (math.isfinite(lo) and math.isfinite(hi) and
                        w >= 1e-12 * max(1.0, abs(lo), abs(hi))):
                    lats = []
                    break
                lat = _disc_pess(fa.pess, w, 0, _MOMENT_CELLS, lo)
                lats.append((lat, w, fa.n))
                shift += fa.n * lat.shift
                q_infs.append((lat.q_inf, fa.n))
            if lats:
                out = (_KGF.of_lattices(lats), shift,
                       self._rounded_q_inf("pess", _composed_q_inf(q_infs)))
        self._memo[key] = out
        return out

    def _grid_pays(self, order: int) -> bool:
        r"""Whether :meth:`_grid_law` serves a list of over ``_FEW_GROUPS`` groups: where the
        other order's planned frame held at least as many points in its windows as the
        grids hold cells (``_MOMENT_CELLS`` a group), the lattice of this order's frame, which
        :meth:`moment_eps` would discretise otherwise (after this order's plan), is about as
        large and costs more. Runs in phases, whose order -1 lies far below order 1, are
        served: 17 rarely sampled phases spent 58 ms on order -1's bound and 18 ms on the
        grids (the bounds 0.30 and 0.82 against an ε of 3.33), 162 such phases 463 and
        285 ms (17.3 and 17.7 against 29.4); long mixed lists, whose windows are short, are
        not (76 groups: 29 ms, the grids 50 ms). A heuristic for speed only: every bound
        is checked."""
        return self._memo.get(("planned-points", -order), 0) >= \
            len(self.groups) * _MOMENT_CELLS

    def _grid_moment_eps(self, order: int, delta: float, lam: float) -> float:
        """:meth:`moment_eps`'s bound at tilt ``lam`` from :meth:`_grid_law` (inf where
        that is None or the bound does not apply)."""
        g = self._grid_law(order)
        return math.inf if g is None else _moment_eps(g[0], lam, g[2], g[1], delta)

    def moment_delta(self, order: int, eps: float, below: float = 1.0) -> float:
        r"""A sound upper bound on this order's δ at ``eps`` without a frame, as
        :meth:`moment_eps`: :math:`\delta \le q_\infty + e^{\bar K(\lambda) + c(\lambda) -
        \lambda(\varepsilon - \mathrm{shift})}` at the question's tilt; 1 where the question
        needs no frame, and at once where the planning law's bound is above ``below``; as
        there, first from :meth:`_grid_law` at the planning law's tilt."""
        if math.isinf(eps) or not below > 0:
            return 1.0
        t = self._question_tilt(order, "delta", eps)
        if t is None:
            return 1.0
        g = self._grid_law(order)
        lam = t[0]
        if g is not None and lam > 0 and t[1] + _c(lam)[0] - lam * eps <= math.log(below):
            ld = _log_moment_bound(float(g[0].upper(np.array([lam]))[0]), lam, eps - g[1],
                                   g[2])
            if ld < 0 and math.exp(ld) <= below:
                return math.exp(ld)
        key = self._plan_key(order, "delta", eps)
        if key[0] == "trivial":
            return 1.0
        h, lam = key
        K, _, _ = self.plan_kgf(order)(np.array([lam]))
        if not float(K[0]) + _c(lam)[0] - lam * eps <= math.log(below):
            return 1.0
        kgf, qi, shift = self._sound_law(order, h, lam)
        if kgf is None:
            return 1.0
        ld = _log_moment_bound(float(kgf.upper(np.array([lam]))[0]), lam, eps - shift, qi)
        return math.exp(ld) if ld < 0 else 1.0

    def coarse_bound(self, order: int, kind: str, x: float, below: float) -> float:
        """A sound upper bound on this order's answer at ``x`` (ε at δ or δ at ε) from the
        sound frame of the question's tilt at a step four times coarser (about a quarter
        of its discretisation and transforms; its error about sixteen times the step
        rule's), tried where it may be at most ``below`` (the other order's answer): then
        the frame at the question's own step is not needed (:func:`_both_orders`). For ε,
        only where the Gaussian estimate of this order's answer
        (:func:`~gdp.engine.planning._gauss_eps`) is at least 2.5 ``rtol`` below ``below``:
        on the refusal scan the coarse frame failed below a gap of 0.23% and succeeded
        above 0.21% (at ``rtol`` = 1e-3). inf where not tried: a lattice step given by the
        caller or one aligned to atoms, a trivial question, a window beyond the factors'
        cap. (Small frames cost about as much at either step: 10 mixed mechanisms take
        5 ms more for the sound answer, and the bracket, which skips order -1's other
        side by the same bound, 0.1 s less.)"""
        key = self._plan_key(order, kind, x)
        if key[0] == "trivial" or self.gap > 0 or \
                self.acc.grid_step is not None or not below > 0:
            return math.inf
        h, lam = key
        if kind == "eps":
            info = self._memo[("plan-eps", order, "eps", x)]
            K, K1, K2 = (float(v[0]) for v in self.plan_kgf(order)(np.array([lam])))
            est = _gauss_eps(K, K1, K2, lam, math.log(x - self.law_q_inf(order)), info[0])
            if not est <= below * (1.0 - 2.5 * self.acc.rtol):
                return math.inf
        hc = _quantise(4.0 * h, self.h0, _STEPS_PER_OCTAVE)
        try:
            self._windows(hc, order, lam, cap=_FACTOR_CAP)
            fr = self.frame("pess", order, hc, lam)
        except ValueError:
            return math.inf
        xs = np.array([x])
        return float((fr.epsilon(xs) if kind == "eps" else fr.delta(xs))[0])

    def _trivial(self, side: str, order: int, kind: str, x: np.ndarray) -> np.ndarray:
        """Answers without a frame: ε = 0 at δ ≥ 1 or at least the total variation bound
        (:meth:`_tv_at_most`); ε = inf below the mass at +inf (or when only that mass
        exists); δ at ε = inf or beyond the support: the mass at +inf (on the sound side
        with the at most 1e-30 per factor beyond the planning support)."""
        qi = self.law_q_inf(order)
        if side == "pess":
            qi = min(1.0, qi * (1.0 + 8 * EPS * (self.ntot + 2)) + 2e-30 * self.ntot)
        if kind == "eps":
            empty = self.plan_kgf(order).empty
            zero = np.array([self._tv_at_most(order, v) for v in x.tolist()], dtype=bool)
            return np.where(zero, 0.0, np.where(empty & (x >= qi), 0.0, np.inf))
        return np.full(x.shape, qi)

    def _frame0(self, side: str, order: int) -> _Frame:
        return self.frame(side, order, self.h0, 0.0, math.log(self.acc.tail_mass))

    # -- curves -------------------------------------------------------------
    def curve(self, side: str, order: int, name: str) -> LossCurve:
        key = (side, order)
        if key not in self._curves:
            fr = self._frame0(side, order)
            self._curves[key] = _frame_curve(fr, name=name)
        return self._curves[key]

    def info(self) -> GridInfo:
        fr = self._frame0("pess", 1)
        return GridInfo(grid_step=self.h0, window=(float(fr.s[0]), float(fr.s[-1])),
                        n_points=int(fr.s.size), tail_bound=fr.m_hi + fr.m_lo,
                        roundoff=fr.tau * math.exp(fr.K), rel_roundoff=fr.rel,
                        loss_shift=fr.shift)


def _composed_q_inf(parts: Any) -> float:
    r"""Q[S = +inf] of a composition from its factors' masses at +inf, ``(q_inf, n)`` pairs:
    :math:`1 - \prod_i (1 - q_i)^{n_i}` (not rounded)."""
    lq = 0.0
    for qi, n in parts:
        lq += n * math.log1p(-min(qi, 1.0)) if qi < 1 else -math.inf
    return -math.expm1(lq) if math.isfinite(lq) else 1.0


def _moment_eps(kgf: _KGF, lam: float, qi: float, shift: float, delta: float) -> float:
    r"""The moment bound on ε at ``delta`` of a sound lattice law (``kgf`` its cumulant
    generating function, ``qi`` its mass at +inf rounded up, ``shift`` its loss-shift
    allowance) at the tilt ``lam``: :math:`\varepsilon \le \mathrm{shift} + (\bar
    K(\lambda) + c(\lambda) - \log(\delta - q_\infty))/\lambda`, checked at the point
    returned (:func:`_log_moment_bound`); inf where it does not apply."""
    if not (lam > 0 and delta > qi):
        return math.inf
    k_up = float(kgf.upper(np.array([lam]))[0])
    x = (k_up + _c(lam)[0] - math.log(delta - qi)) / lam
    if not math.isfinite(x):
        return math.inf
    x += 1e-9 * (1.0 + abs(x))  # (the bound's own rounding allowance, then checked)
    if not _log_moment_bound(k_up, lam, x, qi) <= math.log(delta):
        return math.inf
    e = x + shift
    return max(e + 4 * EPS * (1.0 + abs(e)), 0.0)


class _TwinAsked(Exception):
    """A tight engine's refinement found that the frame it would build next truncates more
    than its question allows: the twin answers it (:meth:`_Engine.answer`), starting from
    ``start``, the answer found so far (a bound)."""

    def __init__(self, start: float):
        super().__init__(start)
        self.start = start


def _flat_scale(fr: _Frame, v: np.ndarray) -> np.ndarray:
    r""":math:`\varepsilon|\delta'(\varepsilon)|` of a frame's δ profile at each ε of ``v``
    (a difference over 0.1% of ε): the change of δ that moves ε by its own size, to first
    order; inf where ε is not finite and positive."""
    out = np.full(v.shape, np.inf)
    ok = (v > 0.0) & np.isfinite(v)
    if ok.any():
        a = v[ok]
        out[ok] = np.maximum(fr.delta(a) - fr.delta(a * (1.0 + 1e-3)), 0.0) / 1e-3
    return out


def _step_error(prev: tuple[float, float] | None, cur: tuple[float, float],
                order: float = 2.0) -> float:
    """The error of the answer ``cur = (h2, a2)`` estimated from the one before it at the
    same tilt, ``prev = (h1, a1)``, taken as :math:`O(h^k)` (``order`` k, by default 2):
    :math:`|a_1 - a_2| / ((h_1 / h_2)^k - 1)`; 0 where there is no such pair of finite
    positive answers."""
    if prev is None:
        return 0.0
    (h1, a1), (h2, a2) = prev, cur
    if not (0.0 < a1 < math.inf and 0.0 < a2 < math.inf and h1 > 1.01 * h2 > 0.0):
        return 0.0
    return abs(a1 - a2) / ((h1 / h2) ** order - 1.0)


def _observed_order(older: tuple[float, float] | None, prev: tuple[float, float] | None,
                    cur: tuple[float, float]) -> float:
    r"""The order k of the step's error, :math:`a(h) = a_0 + c h^k`, that three answers at
    one tilt (steps :math:`h_0 > h_1 > h_2`) show, within [1, 2]: the root of
    :math:`(h_0^k - h_1^k)/(h_1^k - h_2^k) = (a_0 - a_1)/(a_1 - a_2)` (bisection; the
    left side rises with k for steps finer by the ratios the refinement takes), 1 or 2
    where the ratio lies beyond; 2 (the rule's model) where there are fewer than three
    finite positive answers or they do not move one way. The rarely sampled bulk makes
    the error first order (a bulk narrower than the step) on the way to second (σ = 0.455,
    p = 1.1e-6, 1.89M steps, δ = 1.3e-5: 0.108620, 0.107934, 0.106928 at 6.2e-5, 4.4e-5,
    1.1e-5, k about 1.3, the last answer's error 2.0e-4 where the second order put it at
    6.7e-5, under half of ``rtol``, and the answer 0.13% above the truth). For accuracy
    only: every answer is a bound on its side."""
    if older is None or prev is None:
        return 2.0
    (h0, a0), (h1, a1), (h2, a2) = older, prev, cur
    if not (all(0.0 < a < math.inf for a in (a0, a1, a2)) and h0 > 1.01 * h1 > 1.0201 * h2 > 0):
        return 2.0
    d1, d2 = a0 - a1, a1 - a2
    if not d1 * d2 > 0.0:
        return 2.0
    r = d1 / d2

    def g(k: float) -> float:
        return (h0 ** k - h1 ** k) / (h1 ** k - h2 ** k)

    if not g(1.0) < g(2.0):
        return 2.0
    if r <= g(1.0):
        return 1.0
    if r >= g(2.0):
        return 2.0
    lo, hi = bisect_bracket(lambda k: g(float(k)) >= r, 1.0, 2.0, iters=40)
    return 0.5 * (float(lo) + float(hi))


def _aliased(fr: _Frame, kind: str, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    r"""A bound on the part of a sound frame's δ at each question of ``x`` (answers ``v``)
    that the tilted mass above its window makes up, wrapped around into its body by the
    transforms (counted in the frame's masses it only adds, but where δ is a tiny part of
    the tilted mass it can set the answer). That mass, at most :math:`a` (``alias_hi``)
    and falling as :math:`e^{-\mu(t - B)}` above the window's top B (its Chernoff tilt
    :math:`\lambda + \mu`, ``alias_rate``), lands from the window's first loss A up;
    integrated by parts against :math:`f(s) = e^{K - \lambda s}(1 - e^{\varepsilon' -
    s})_+`, which rises to its maximum :math:`e^{K} M_\lambda(\varepsilon')` (as in
    :mod:`~gdp.engine.frames`) and falls after, it adds at most :math:`a(f(A) +
    e^{-\mu(\varepsilon' - A)^+} e^{K} M_\lambda(\varepsilon'))`. For routing only
    (:meth:`_Engine._in_frames`)."""
    out = np.zeros(np.shape(x))
    if not (fr.alias_hi > 0 and fr.lam > 0):
        return out
    lam = fr.lam
    x1 = (v if kind == "eps" else x) - fr.shift  # (ε')
    a = float(fr.s[0])
    with np.errstate(over="ignore", invalid="ignore"):
        m = np.exp(fr.K + _c(lam)[0] - lam * x1)
        f_a = np.where(a > x1, np.exp(fr.K - lam * a) * -np.expm1(x1 - a), 0.0)
        out = fr.alias_hi * (f_a + np.exp(-fr.alias_rate * np.maximum(x1 - a, 0.0)) * m)
    return np.where(np.isnan(out), np.inf, out)


def _window_sum(fr: _Frame, eps: float) -> float:
    """The window's own sum in a frame's δ at ``eps`` (:meth:`_Frame._log_sum`: its masses
    above the threshold, no allowances)."""
    xs = fr._x_of(np.array([eps]))
    j = np.searchsorted(fr.s, xs, side="left")
    return float(np.exp(fr._log_sum(j, xs))[0])


def _raised_top(bound: np.ndarray, scale: np.ndarray) -> np.ndarray:
    r"""The log tilted mass a raised top leaves above a sound frame's window, for each
    question where the bound :func:`_aliased` on the wrapped mass, ``bound``, is over
    1e-3 of ``scale``: the wrapped mass falls with the mass above the window, so the top
    at :math:`\eta\,r s/A` (r = 1e-4, s the scale, A the bound) puts the bound at a
    tenth of the test's threshold; on a grid of factors of 100 below η, at least
    ``_LOG_ETA_WIDE``, as :meth:`_Engine._wide_log_eta`."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lt = _on_eta_grid(_LOG_ETA + np.log(1e-4 * scale) - np.log(bound))
    lt = np.where(np.isfinite(lt), lt, _LOG_ETA_WIDE)
    return np.clip(lt, _LOG_ETA_WIDE, _LOG_ETA - math.log(100.0))


def _on_eta_grid(need: np.ndarray) -> np.ndarray:
    """The log tilted mass ``need`` rounded down to the grid of factors of 100 below
    η (``_LOG_ETA``), where wider windows are taken (frames reused across questions)."""
    grid = math.log(100.0)
    return _LOG_ETA - grid * np.ceil((_LOG_ETA - need) / grid)


def _best(side: str, a: Any, b: Any) -> Any:
    """The better of two bounds on one side: the lower on the sound side (upper bounds),
    the higher on the other."""
    return np.minimum(a, b) if side == "pess" else np.maximum(a, b)


def _best_chernoff(lv: _Level, eps: np.ndarray) -> np.ndarray:
    r"""The whole sound lattice law's moment bound on δ(ε) (:func:`_log_moment_bound`) at
    its best tilt, which solves :math:`K'(\lambda) + c'(\lambda) = \varepsilon -
    \mathrm{shift}` (increasing in λ; any λ gives a bound); ``q_inf`` at or above the
    law's support. 1 where the level carries no exact function."""
    kgf = lv.sound_kgf
    out = np.ones(eps.shape)
    if kgf is None:
        return out
    (_,), (_,), (v0,) = kgf(np.array([0.0]))
    sd = math.sqrt(max(v0, lv.h * lv.h))
    for i, e in enumerate(eps.tolist()):
        x = e - lv.shift
        if x >= kgf.tmax:
            out[i] = min(lv.q_inf, 1.0)
            continue
        if not math.isfinite(x):
            continue

        def G(lam: float, x: float = x) -> tuple[float, float]:
            _, K1, K2 = kgf(np.array([lam]))
            _, c1, c2 = _c(lam)
            return float(K1[0]) + c1 - x, float(K2[0]) + c2

        lam = _increasing_root(G, 1e-8 / sd, 1e15 / sd, 1.0 / sd, 1e-3)
        ld = _log_moment_bound(float(kgf.upper(np.array([lam]))[0]), lam, x, lv.q_inf)
        out[i] = math.exp(ld) if ld < 0 else 1.0
    return out


# ---------------------------------------------------------------------------
# profiles and the public builders
# ---------------------------------------------------------------------------
class _SoundOfTwoOrders:
    r"""The sound side of a mechanism with two neighbouring orders: the larger of the two
    orders' sound answers. Order 1 is answered first; where order -1's moment bound
    (:meth:`_Engine.moment_eps`, :meth:`_Engine.moment_delta`: from the lattice law its
    frame would compose) is already at most that answer, the answer stands without order
    -1's frame (both orders' true values lie below it; in DP-SGD the removal order is the
    larger, and its other order's moment bound on ε is below the answer in about half the
    configurations)."""

    def __init__(self, engine: _Engine):
        self.engine = engine

    def _larger(self, kind: str, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        a, b = _both_orders(self.engine, "pess", kind, x)
        return np.maximum(a, b).reshape(x.shape)

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return self._larger("delta", eps)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        return self._larger("eps", delta)


def _both_orders(e: _Engine, side: str, kind: str, x: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """One side's answers of both orders at ``x`` (flat): order -1's is ``-inf`` where its
    moment bound (:meth:`_Engine.moment_eps`, :meth:`_Engine.moment_delta`) at a value, or
    else its sound answer at a step four times coarser (:meth:`_Engine.coarse_bound`), is
    at most order 1's answer there, its frame not built (its true value, and so either
    side's answer for it, lies below that bound: the larger of the two is order 1's). On
    the other side, so where order -1's sound answer, asked before, is at most order 1's
    lower end."""
    flat = np.asarray(x, dtype=float).reshape(-1)
    away = e._routed(kind, flat)
    if away.any():  # (questions a tight engine's twin answers: both orders there)
        a, b = np.empty(flat.shape), np.empty(flat.shape)
        for sel, eng in ((~away, e), (away, e.twin)):
            if sel.any():
                a[sel], b[sel] = _both_orders(eng, side, kind, flat[sel])
        return a, b
    a = np.empty(flat.shape)
    splits = e._split_group() is not None
    split = (flat < e._jumps_below("eps")) if kind == "eps" and splits else \
        np.zeros(flat.shape, dtype=bool)
    done = np.zeros(flat.shape, dtype=bool)
    if side == "opt":
        for i in np.flatnonzero(split).tolist():
            v = e.split_lower_end(float(flat[i]))
            if v is not None:
                a[i], done[i] = v, True
    if not done.all():
        a[~done] = e.answer(side, 1, kind, flat[~done])
    if kind == "eps" and splits:
        for i in np.flatnonzero(split & ~done).tolist():
            a[i] = e.jump_eps(side, float(flat[i]), float(a[i]))
    elif splits:
        for i in range(flat.size):
            a[i] = e.jump_delta(side, float(flat[i]), float(a[i]))
    moment = e.moment_eps if kind == "eps" else e.moment_delta
    b = np.full(flat.shape, -np.inf)
    rest = [i for i, (xi, ai) in enumerate(zip(flat.tolist(), a.tolist(), strict=True))
            if not moment(-1, xi, below=ai) <= ai]
    if side == "opt":
        rest = [i for i in rest if not e._memo.get(("sound-answer", -1, kind, float(flat[i])),
                                                      math.inf) <= a[i]]
    # (then a frame four times coarser, a quarter of the cost: order -1's truth is often a
    # few per cent below order 1's, and the moment bound above it)
    rest = [i for i in rest
            if not e.coarse_bound(-1, kind, float(flat[i]), float(a[i])) <= a[i]]
    if rest:
        idx = np.array(rest)
        b[idx] = e.answer(side, -1, kind, flat[idx])
        if side == "pess":
            for i, v in zip(rest, b[idx].tolist(), strict=True):
                e._memo[("sound-answer", -1, kind, float(flat[i]))] = v
    return a, b


class _OtherOfTwoOrders:
    """The other side of a mechanism with two neighbouring orders: the larger of the two
    orders' lower ends; for ε of a composition of at most ``_NARROW_GROUPS`` groups (DP-SGD,
    a run in phases, a run with a few releases, a list of a hundred mechanisms), where the
    bracket with the sound answer is over 0.4% wide or its lower end is 0, the order that
    sets the lower end is refined (:meth:`_Engine.narrow`; in longer mixed lists the frames
    cost too much for that).
    Order -1's frame is skipped where its moment bound is at most order 1's lower end, as
    on the sound side (:func:`_both_orders`)."""

    def __init__(self, engine: _Engine, sound: _SoundOfTwoOrders):
        self.engine = engine
        self.sound = sound

    def delta(self, eps: np.ndarray) -> np.ndarray:
        a, b = _both_orders(self.engine, "opt", "delta", eps)
        return np.maximum(a, b).reshape(np.shape(eps))

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        e = self.engine
        delta = np.asarray(delta, dtype=float)
        a, b = _both_orders(e, "opt", "eps", delta)
        out = np.maximum(a, b)
        flat = delta.reshape(-1)
        if len(e.groups) <= _NARROW_GROUPS:
            hi = self.sound.epsilon(flat)
            for i, top in enumerate(hi.tolist()):
                if out[i] < (1.0 - e._narrow_gap()) * top:
                    order = 1 if a[i] >= b[i] else -1
                    out[i] = max(out[i], e.narrow(order, float(flat[i]), float(out[i]), top))
        return out.reshape(delta.shape)


class _EngineProfile:
    """One side of one order of an engine, as a profile (``delta``/``epsilon``)."""

    def __init__(self, engine: _Engine, side: str, order: int):
        self.engine = engine
        self.side = side
        self.order = order

    def delta(self, eps: np.ndarray) -> np.ndarray:
        return self.engine.answer(self.side, self.order, "delta", eps)

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        return self.engine.answer(self.side, self.order, "eps", delta)


def _rtol_ladder(rtol: float) -> list[float]:
    r"""The accuracies finer than the default on the grid :math:`r_k = r_0 10^{-k/2}`
    (:math:`r_0` the default ``rtol``, k = 1, 2, ...) down to the first at or below
    ``rtol``, which the answers are computed at (``rtol`` itself where it lies on the grid,
    to 1e-9); empty where ``rtol`` is not below the default."""
    default = Accuracy().rtol
    out: list[float] = []
    if not rtol < default * (1.0 - 1e-9):
        return out
    for k in range(1, 64):
        r = default * 10.0 ** (-0.5 * k)
        if r <= rtol * (1.0 + 1e-9):
            out.append(rtol if r >= rtol * (1.0 - 1e-9) else r)
            break
        out.append(r)
    return out


class _Nested:
    r"""Answers at an ``rtol`` finer than the default nested in those of every coarser
    accuracy of a grid, so that tightening ``rtol`` never loosens a sound answer nor widens
    a bracket.

    The requested ``rtol`` is taken down to the grid :func:`_rtol_ladder` (at most
    :math:`\sqrt{10}` finer than asked); each answer is then also bounded by the answers of
    the default and of every grid accuracy between (each a bound on its side: the sound
    side takes the least, the other the greatest). For :math:`r_1 > r_2` the accuracies
    bounding the answers at :math:`r_2` include all those at :math:`r_1`, so its bracket
    lies inside. The engines of the coarser accuracies are built on first use; their cost
    is about that of the finest again (the points of a frame grow as
    :math:`\mathrm{rtol}^{-1/2}`). Not for a lattice step given by the caller, nor for
    ``rtol`` at or above the default (no guarantee there)."""

    def __init__(self, groups: list[tuple[TradeOff, int]], acc: Accuracy):
        ladder = _rtol_ladder(acc.rtol) if acc.grid_step is None else []
        self.groups = groups
        self.acc = dataclasses.replace(acc, rtol=ladder[-1]) if ladder else acc
        self.coarser = [Accuracy().rtol, *ladder[:-1]] if ladder else []
        self._engines: dict[float, _Engine] = {}
        self._made: dict[Any, Any] = {}

    def _engine(self, rtol: float) -> _Engine:
        """The engine at ``rtol``. Below some accuracy the base step stops shrinking (its
        factor lattices at their cap); engines of one base step share their frames and
        lattice laws, which depend on the step, the tilt and the factors, not on ``rtol``
        (their answers are those each would compute alone): the grid down to rtol = 1e-12
        then costs about one engine there, not a dozen."""
        if rtol not in self._engines:
            e = _Engine(self.groups, dataclasses.replace(self.acc, rtol=rtol))
            twin = next((o for o in self._engines.values() if o.h0 == e.h0), None)
            if twin is not None:
                e._frames, e._lats, e._kgfs, e._sound = (twin._frames, twin._lats,
                                                         twin._kgfs, twin._sound)
            self._engines[rtol] = e
        return self._engines[rtol]

    @property
    def engine(self) -> _Engine:
        """The engine at this accuracy (the answers' own)."""
        return self._engine(self.acc.rtol)

    def nest(self, key: Any, sound: Any, other: Any,
             make: Callable[[_Engine], tuple[Any, Any]]) -> tuple[Any, Any]:
        """The profiles ``sound`` and ``other`` (of the engine at this accuracy) bounded by
        ``make(engine)`` of each coarser accuracy's engine (one pair per ``key`` and
        accuracy, made on first use)."""
        if not self.coarser:
            return sound, other

        def part(r: float, i: int) -> _LazyProfile:
            def get() -> Any:
                if (key, r) not in self._made:
                    self._made[(key, r)] = make(self._engine(r))
                return self._made[(key, r)][i]
            return _LazyProfile(get)

        return (_Combine("min", sound, *(part(r, 0) for r in self.coarser)),
                _Combine("max", other, *(part(r, 1) for r in self.coarser)))


def _one_order(engine: _Engine, order: int, name: str, symmetric: bool,
               inverse_fn: Any, nested: _Nested, parts: tuple = ()) -> Composition:
    lower = LazyCurve(thunk=lambda: engine.curve("pess", order, name), name=name,
                      symmetric=symmetric)
    upper = LazyCurve(thunk=lambda: engine.curve("opt", order, name), name=name,
                      symmetric=symmetric)
    sound, other = nested.nest(order, _EngineProfile(engine, "pess", order),
                               _EngineProfile(engine, "opt", order),
                               lambda e: (_EngineProfile(e, "pess", order),
                                          _EngineProfile(e, "opt", order)))
    return Composition(lower=lower, upper=upper, name=name, symmetric=symmetric,
                       sound=sound, other=other, grid=engine.info, inverse_fn=inverse_fn,
                       parts=parts)


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
    ``symmetric`` declares the result symmetric (default: all factors are). With an
    ``rtol`` finer than the default, the answers are nested in those of every coarser
    accuracy of a grid (:class:`_Nested`): tightening ``rtol`` never widens the bracket.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.engine.compose_numeric([(gdp.G_mu(1.0), 4)])   # G_2, computed numerically
    >>> lo, hi = h.epsilon_bounds(1e-5)
    >>> bool(lo <= gdp.G_mu(2.0).epsilon(1e-5) <= hi)
    True
    """
    acc, groups = _checked(groups, acc, name)
    # (the groups, for a composition that meets other factors: gdp.compose flattens it,
    # where the result is their tensor product as it stands, not declared symmetric)
    parts = tuple(groups) if symmetric is None else ()
    if symmetric is not None:
        symmetric = check_bool("symmetric", symmetric)
    if symmetric is None:
        symmetric = all(f.is_symmetric for f, _ in groups)
    nested = _Nested(groups, acc)
    engine = nested.engine
    if symmetric:
        return _one_order(engine, 1, name, True, None, nested, parts)
    inv_name = _inv_label(name)
    holder: dict[str, Composition] = {}

    def inverse_fn() -> Composition:
        return _one_order(engine, -1, inv_name, False, lambda: holder["self"], nested)

    comp = _one_order(engine, 1, name, False, inverse_fn, nested, parts)
    holder["self"] = comp
    return comp


def compose_numeric_two_orders(groups: Sequence[tuple[TradeOff, int]],
                               acc: Accuracy | None = None, *, name: str = "f") -> Composition:
    r"""The curve :math:`\min\{h, h^{-1}\}^{**}` of a mechanism whose two neighbouring
    orders compose to :math:`h = \bigotimes_i f_i^{\otimes n_i}` and to
    :math:`h^{-1} = \bigotimes_i (f_i^{-1})^{\otimes n_i}` (e.g. Poisson subsampling with
    add/remove neighbours, MATH.md §6): each order is answered separately (from its own
    factors' discretisations) and the two are symmetrised only at the end. Its profile
    is :math:`\max(\delta_h, \delta_{h^{-1}})`; the sound side skips the frame of
    :math:`h^{-1}` where its moment bound is below the answer of :math:`h`
    (:class:`_SoundOfTwoOrders`). With an ``rtol`` finer than the default, the answers are
    nested in those of every coarser accuracy of a grid (:class:`_Nested`): tightening
    ``rtol`` never loosens the sound answer nor widens the bracket.

    Examples
    --------
    >>> import gdp
    >>> from gdp.engine.numeric import compose_numeric_two_orders
    >>> h = compose_numeric_two_orders([(gdp.G_mu(1.0), 4)])
    >>> round(h.epsilon(1e-5), 2) == round(gdp.G_mu(2.0).epsilon(1e-5), 2)
    True
    """
    acc, groups = _checked(groups, acc, name)
    nested = _Nested(groups, acc)
    engine = nested.engine
    inv_name = _inv_label(name)

    def make(e: _Engine) -> tuple[Any, Any]:
        s = _SoundOfTwoOrders(e)
        return s, _OtherOfTwoOrders(e, s)

    # (finer than the default: nested in every coarser accuracy of the grid, _Nested)
    sound, other = nested.nest("two", *make(engine), make)
    lower = LazyCurve(thunk=lambda: hull_min_curves(engine.curve("pess", 1, name),
                                                    engine.curve("pess", -1, inv_name),
                                                    name=name, symmetric=True),
                      name=name, symmetric=True)
    upper = LazyCurve(thunk=lambda: hull_min_curves(engine.curve("opt", 1, name),
                                                    engine.curve("opt", -1, inv_name),
                                                    name=name, symmetric=True),
                      name=name, symmetric=True)
    return Composition(lower=lower, upper=upper, name=name, symmetric=True, sound=sound,
                       other=other, grid=engine.info, parts=tuple(groups), per_order=True)

