r"""Composition bounds side by side: :func:`compare` and :func:`epsilon_vs_k`.

For a list of mechanisms (or a DP-SGD run) and a δ (or an ε), every method answers the same
question: basic, advanced (DRV), Kairouz et al., optimal KOV, RDP, the GDP CLT (labelled an
approximation) and the exact tensor product of the engine (the sound side of its bracket).
:func:`epsilon_vs_k` repeats that for a range of numbers of compositions.

Imports: every floor up to :mod:`gdp.approx`, and the other modules of :mod:`gdp.bounds`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._progress import Progress, ProgressCallback, as_progress
from .._validation import as_real_array, check_count, check_real
from ..approx.central_limit import clt
from ..approx.limits import noisy_sgd_mu
from ..core.piecewise import Identity
from ..core.tradeoff import TradeOff
from ..engine.dispatch import compose
from ..engine.kov import kov_delta, kov_epsilon
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian, eps_from_mu
from ..families.laplace_tradeoff import Laplace
from ..sampling.dp_sgd import dpsgd
from .classical import advanced_delta, advanced_epsilon, kairouz_delta, kairouz_epsilon
from .rdp import _orders, delta_from_rdp, eps_from_rdp, rdp_of, rdp_sampled_gaussian
from .tables import METHODS, BoundRecord, Comparison, EpsilonCurves

__all__ = ["compare", "epsilon_vs_k"]

# ---------------------------------------------------------------------------
# what is being composed
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Group:
    """``count`` uses of one mechanism."""

    f: TradeOff | None  # the per-use curve (None: DP-SGD step without the numeric engine)
    count: int
    label: str
    sgd: tuple[float, float] | None = None  # (sigma, p) for a DP-SGD step

    @property
    def fixed(self) -> tuple[float, float] | None:
        """(ε, δ) when the mechanism is described by one pair (f_eps_delta, identity)."""
        if isinstance(self.f, EpsDelta):
            return self.f.eps, self.f.delta_
        if isinstance(self.f, Identity):
            return 0.0, 0.0
        return None


def _dpsgd_args(spec: Any) -> tuple[float, float, int]:
    if not isinstance(spec, Mapping):
        raise TypeError(f"`dpsgd` must be a mapping with keys sigma, p, steps; got "
                        f"dpsgd={spec!r}")
    extra = set(spec) - {"sigma", "p", "steps"}
    missing = {"sigma", "p", "steps"} - set(spec)
    if extra or missing:
        raise ValueError(f"`dpsgd` must have exactly the keys sigma, p and steps; got keys "
                         f"{sorted(spec)}")
    sigma = check_real("sigma", spec["sigma"], lo=0.0, lo_open=True)
    p = check_real("p", spec["p"], lo=0.0, hi=1.0, lo_open=True)
    steps = check_count("steps", spec["steps"])
    return sigma, p, steps


def _dpsgd_step(sigma: float, p: float) -> TradeOff:
    return dpsgd(sigma=sigma, p=p, steps=1)


def _phases(dpsgd: Any) -> list[tuple[float, float, int]]:
    """``dpsgd=`` as a list of validated phases (sigma, p, steps)."""
    if isinstance(dpsgd, Mapping):
        return [_dpsgd_args(dpsgd)]
    if isinstance(dpsgd, str | bytes) or not isinstance(dpsgd, Iterable):
        raise TypeError(f"`dpsgd` must be a mapping with keys sigma, p, steps (or a list of "
                        f"them, one per phase); got dpsgd={dpsgd!r}")
    phases = [_dpsgd_args(ph) for ph in dpsgd]
    if not phases:
        raise ValueError("`dpsgd` must hold at least one phase; got an empty list")
    return phases


def _groups(mechanisms: Any, k: Any, dpsgd: Any, need_step: bool) -> list[_Group]:
    if dpsgd is not None:
        if mechanisms is not None:
            raise TypeError("pass either `mechanisms` or `dpsgd`, not both")
        mult = 1 if k is None else check_count("k", k)
        groups = []
        for sigma, p, steps in _phases(dpsgd):
            for n, g in enumerate(groups):  # phases with equal (sigma, p) merge
                if g.sgd == (sigma, p):
                    groups[n] = _Group(f=g.f, count=g.count + steps * mult, label=g.label,
                                       sgd=g.sgd)
                    break
            else:
                step = _dpsgd_step(sigma, p) if need_step else None
                groups.append(_Group(f=step, count=steps * mult, sgd=(sigma, p),
                                     label=f"DP-SGD step (sigma={sigma:g}, p={p:g})"))
        return groups
    if mechanisms is None:
        raise TypeError("`mechanisms` (a TradeOff, or a list of TradeOffs or (TradeOff, "
                        "count) pairs) or `dpsgd` (a dict with sigma, p, steps) is required")
    mult = 1 if k is None else check_count("k", k)
    items = [mechanisms] if isinstance(mechanisms, TradeOff) else mechanisms
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise TypeError(f"`mechanisms` must be a TradeOff or a list of TradeOffs / (TradeOff, "
                        f"count) pairs; got {type(mechanisms).__name__}")
    groups: list[_Group] = []
    for n, item in enumerate(items):
        if isinstance(item, TradeOff):
            f, c = item, 1
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], TradeOff):
            f, c = item[0], check_count(f"mechanisms[{n}] count", item[1])
        else:
            raise TypeError(f"`mechanisms[{n}]` must be a TradeOff or a (TradeOff, count) pair; "
                            f"got {item!r}")
        for g_i, g in enumerate(groups):
            if type(g.f) is type(f) and _same(g.f, f):
                groups[g_i] = _Group(f=g.f, count=g.count + c * mult, label=g.label)
                break
        else:
            groups.append(_Group(f=f, count=c * mult, label=_describe(f)))
    if not groups:
        raise ValueError("`mechanisms` must hold at least one mechanism; got an empty list")
    return groups


def _same(a: TradeOff, b: TradeOff) -> bool:
    """Equal closed-form families (dataclass equality); identity for everything else."""
    if isinstance(a, Gaussian | Laplace | EpsDelta | Identity):
        return a == b
    return a is b


def _describe(f: TradeOff) -> str:
    r = repr(f)
    return r if len(r) <= 60 else type(f).__name__


# ---------------------------------------------------------------------------
# per-method computations
# ---------------------------------------------------------------------------
def _grid_min(fun: Callable[[np.ndarray], np.ndarray], lo: float, hi: float, *,
              n: int = 41, rounds: int = 2) -> float:
    """Minimum of ``fun`` over a geometric grid on [lo, hi], refined around the best point.

    Every evaluated point is a valid bound, so the minimum is one too (grid search only
    affects tightness, never soundness)."""
    best = math.inf
    a, b = lo, hi
    for _ in range(rounds + 1):
        x = np.geomspace(a, b, n)
        v = np.asarray(fun(x), dtype=float)
        v = np.where(np.isnan(v), np.inf, v)
        i = int(np.argmin(v))
        best = min(best, float(v[i]))
        a = x[max(i - 1, 0)]
        b = x[min(i + 1, n - 1)]
        if not math.isfinite(best) or a >= b:
            break
    return best


class _Skip(Exception):
    """A method does not apply; the message is the note."""


def _split(groups: list[_Group]) -> tuple[list[_Group], list[_Group]]:
    fixed = [g for g in groups if g.fixed is not None]
    free = [g for g in groups if g.fixed is None]
    for g in free:
        if g.f is None:
            raise _Skip("needs the per-step DP-SGD curve (gdp.dpsgd), not available")
    return fixed, free


#: the (ε at δ, δ at ε) functions of the non-basic classical rules
_RULES = {"advanced": (advanced_epsilon, advanced_delta),
          "kairouz": (kairouz_epsilon, kairouz_delta)}


def _fixed_arrays(fixed: list[_Group]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ε_i, δ_i, count_i) of the mechanisms given as (ε, δ) pairs."""
    return (np.array([g.fixed[0] for g in fixed]), np.array([g.fixed[1] for g in fixed]),
            np.array([g.count for g in fixed], dtype=float))


def _all_uses(fixed: tuple[np.ndarray, ...], free: list[_Group], eps_free: Any,
              delta_free: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ε_i, δ_i, count_i) of every mechanism: the fixed ones, then the free ones at the
    per-use (ε, δ) being tried."""
    fe, fd, fk = fixed
    return (np.concatenate([fe, eps_free]), np.concatenate([fd, delta_free]),
            np.concatenate([fk, [g.count for g in free]]))


def _classical_eps(groups: list[_Group], delta: float, rule: str) -> tuple[float, str]:
    """ε at total δ by a classical rule; free mechanisms get equal per-use δ_i."""
    fixed, free = _split(groups)
    fe, fd, fk = _fixed_arrays(fixed)
    used = float(np.sum(fk * fd))
    m = sum(g.count for g in free)
    budget = delta - used
    if free and budget <= 0:
        return math.inf, "target δ is below the sum of the fixed δ_i"

    def total(theta: np.ndarray) -> np.ndarray:
        di = theta * budget / m if free else np.zeros_like(theta)
        eps_free = [np.asarray(g.f.epsilon(di), dtype=float) for g in free]
        out = np.empty(theta.shape)
        for t in range(theta.size):
            e, d, kk = _all_uses((fe, fd, fk), free, [ef[t] for ef in eps_free],
                                 np.full(len(free), di[t]))
            if not np.all(np.isfinite(e)):
                out[t] = np.inf
            elif rule == "basic":
                out[t] = np.inf if np.sum(kk * d) > delta * (1 + 1e-12) else np.sum(kk * e)
            else:
                out[t] = _RULES[rule][0](e, d, kk, delta)
        return out

    if not free:
        val = float(total(np.array([1.0]))[0])
        return val, ("the given (ε_i, δ_i)" if math.isfinite(val) else
                     "vacuous: the target δ leaves no room after the given δ_i")
    if rule == "basic":
        return float(total(np.array([1.0]))[0]), \
            "the δ left after any (ε,δ) inputs, split evenly over the other uses"
    val = _grid_min(total, 1e-4, 1.0 - 1e-4)
    return val, "best split of δ between per-use δ_i and the slack (grid search)"


def _classical_delta(groups: list[_Group], eps: float, rule: str) -> tuple[float, str]:
    """δ at total ε by a classical rule; free mechanisms get equal per-use ε_i."""
    fixed, free = _split(groups)
    fe, fd, fk = _fixed_arrays(fixed)
    m = sum(g.count for g in free)
    budget = eps - float(np.sum(fk * fe)) if rule == "basic" else eps

    def total(ei: np.ndarray) -> np.ndarray:
        d_free = [np.asarray(g.f.delta(ei), dtype=float) for g in free]
        out = np.empty(ei.shape)
        for t in range(ei.size):
            e, d, kk = _all_uses((fe, fd, fk), free, np.full(len(free), ei[t]),
                                 [df[t] for df in d_free])
            if rule == "basic":
                out[t] = min(1.0, np.sum(kk * d)) if np.sum(kk * e) <= eps * (1 + 1e-12) \
                    else 1.0
            else:
                out[t] = _RULES[rule][1](e, d, kk, eps)
        return out

    if not free:
        return float(total(np.array([0.0]))[0]), "the given (ε_i, δ_i)"
    if budget < 0:
        return 1.0, "the fixed ε_i already exceed ε"
    if budget == 0:
        return float(total(np.array([0.0]))[0]), "per-use ε_i = 0"
    if rule == "basic":
        return float(total(np.array([budget / m]))[0]), \
            "the ε left after any (ε,δ) inputs, split evenly over the other uses"
    val = _grid_min(total, budget * 1e-4 / m, budget)
    return val, "best per-use ε_i (grid search)"


def _kov_homogeneous(groups: list[_Group]) -> _Group:
    if len(groups) != 1:
        raise _Skip("needs one mechanism used k times (heterogeneous optimal composition is "
                    "#P-hard; see the exact tensor product)")
    g = groups[0]
    if g.fixed is None and g.f is None:
        raise _Skip("needs the per-step DP-SGD curve (gdp.dpsgd), not available")
    return g


def _kov_fixed(g: _Group, kov: Callable[[float, float, int, float], float], at: float,
               if_inf: float) -> tuple[float, str, str]:
    """The exact answer ``kov(ε0, δ0, k, at)`` for k uses of one :math:`f_{ε0,δ0}`
    (``if_inf`` when ε0 = inf)."""
    e0, d0 = g.fixed
    if math.isinf(e0):
        return if_inf, "exact", "ε0 = inf"
    return float(kov(e0, d0, g.count, at)), "exact", "exact profile of f_{ε0,δ0}^{⊗k}"


_KOV_GRID = 25  # grid points per round of the KOV grid search (3 rounds)
#: share of the progress bar per method, relative to 1: the KOV grid search (75 exact
#: compositions of (ε0, δ0)) and the numeric tensor product take the time at large k
_WEIGHT = {"kov": 6.0, "exact": 2.0}


def _each_pair(fn: Callable[[float, float], float], progress: Progress,
               ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``fn`` over pairs of arrays, one progress step per pair (a KOV evaluation at large k
    takes seconds: the grid search reports each)."""
    total = 3 * _KOV_GRID
    done = [0]

    def each(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        out = []
        for x, y in zip(xs, ys, strict=True):
            out.append(fn(float(x), float(y)))
            done[0] += 1
            progress(done[0] / total, f"optimal KOV, grid search: {done[0]}/{total}")
        return np.array(out, dtype=float)

    return each


def _kov_eps(groups: list[_Group], delta: float,
             progress: Progress) -> tuple[float, str, str]:
    g = _kov_homogeneous(groups)
    if g.fixed is not None:
        return _kov_fixed(g, kov_epsilon, delta, 0.0 if delta >= 1 else math.inf)

    each = _each_pair(lambda a, b: kov_epsilon(a, b, g.count, delta) if math.isfinite(a)
                      else math.inf, progress)

    def fun(d0: np.ndarray) -> np.ndarray:
        return each(np.asarray(g.f.epsilon(d0), dtype=float), d0)

    val = _grid_min(fun, delta * 1e-4 / g.count, delta * (1 - 1e-4) / g.count, n=_KOV_GRID)
    return val, "bound", "optimal composition of the per-use (ε0, δ0), best δ0 (grid search)"


def _kov_delta_at(groups: list[_Group], eps: float,
                  progress: Progress) -> tuple[float, str, str]:
    g = _kov_homogeneous(groups)
    if g.fixed is not None:
        return _kov_fixed(g, kov_delta, eps, 1.0)

    each = _each_pair(lambda a, b: kov_delta(a, b, g.count, eps), progress)

    def fun(e0: np.ndarray) -> np.ndarray:
        return each(e0, np.asarray(g.f.delta(e0), dtype=float))

    scale = max(eps, 1e-3)
    val = _grid_min(fun, scale * 1e-4 / g.count, max(eps, 1.0), n=_KOV_GRID)
    return val, "bound", "optimal composition of the per-use (ε0, δ0), best ε0 (grid search)"


def _rdp_total(groups: list[_Group], orders: np.ndarray) -> np.ndarray:
    total = np.zeros(orders.shape)
    for g in groups:
        if g.sgd is not None:
            r = rdp_sampled_gaussian(g.sgd[0], g.sgd[1], orders)
        else:
            try:
                r = rdp_of(g.f, orders)
            except TypeError:
                raise _Skip(f"no closed-form RDP for {g.label}") from None
        if not np.any(np.isfinite(r)):
            raise _Skip(f"RDP is infinite for {g.label} (δ > 0 or ε = inf)")
        total = total + g.count * r
    return total


def _clt_mu(groups: list[_Group]) -> tuple[float, str]:
    """CLT μ of the composition and a note (warnings of the CLT module go into the note)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if groups[0].sgd is not None:
            mu = math.sqrt(sum(float(noisy_sgd_mu(g.sgd[0], g.sgd[1], g.count)) ** 2
                               for g in groups))
            note = "μ² = Σ p²T(e^{1/σ²} − 1) (BDLS 2020)"
        else:
            fs: list[TradeOff] = []
            for g in groups:
                fs.extend([g.f] * g.count)  # one object per group: functionals computed once
            try:
                mu = float(clt(fs, check=False).mu)
            except ValueError as exc:  # e.g. infinite functionals of (ε, δ) with δ > 0
                msg = str(exc).split(";")[0]
                msg = msg if len(msg) <= 100 else msg[:99] + "…"
                raise _Skip(f"the CLT does not apply: {msg}") from None
            note = "CLT μ = 2‖kl‖₁/√(‖κ2‖₁ − ‖kl‖₂²) (DRS Thm 3.4)"
    for w in caught:
        if not issubclass(w.category, RuntimeWarning):
            note += f"; warning: {str(w.message).split(';')[0]}"
    return mu, note + "; may under-state ε"


def _exact_curve(groups: list[_Group], accuracy: Mapping[str, Any]) -> TradeOff:
    if groups[0].sgd is not None:
        if len(groups) == 1:
            sigma, p = groups[0].sgd
            return dpsgd(sigma=sigma, p=p, steps=groups[0].count, **accuracy)
        return dpsgd(phases=[dict(sigma=g.sgd[0], p=g.sgd[1], steps=g.count) for g in groups],
                     **accuracy)
    # equal factors are grouped into powers by compose itself
    return compose(*[g.f for g in groups for _ in range(g.count)], **accuracy)


def _interval(h: TradeOff, name: str, x: float) -> tuple[float, float] | None:
    fn = getattr(h, name, None)
    if fn is None:
        return None
    lo, hi = fn(x)
    return float(lo), float(hi)


def compare(mechanisms: Any = None, *, k: int | None = None, delta: float | None = None,
            eps: float | None = None, dpsgd: Any = None,
            methods: Sequence[str] | None = None, orders: Any = None,
            accuracy: Mapping[str, Any] | None = None,
            progress: ProgressCallback | None = None) -> Comparison:
    r"""ε at δ (and/or δ at ε) of one composition by every applicable method, as a table.

    Parameters
    ----------
    mechanisms : TradeOff or list
        One mechanism (used ``k`` times), or a list of TradeOffs and ``(TradeOff, count)``
        pairs. Equal mechanisms are merged; one distinct mechanism is *homogeneous*.
    k : int, optional
        Multiplies every count (default 1).
    delta, eps : float, optional
        At least one: ε is computed at ``delta`` and/or δ at ``eps``.
    dpsgd : dict or list of dict, optional
        ``dict(sigma=..., p=..., steps=...)`` instead of ``mechanisms``: Poisson-subsampled
        Gaussian steps with add/remove neighbours; a list of such dicts is a run in phases.
    methods : sequence of str, optional
        A subset of :data:`METHODS` keys, in any order (default: all).
    orders : array_like, optional
        RDP orders (default :data:`DEFAULT_ORDERS`; integer orders for DP-SGD).
    accuracy : dict, optional
        Accuracy keywords of the numeric engine for the exact row (e.g. ``{"rtol": 1e-5}``;
        see :class:`gdp.engine.Accuracy`), passed to :func:`gdp.compose` / :func:`gdp.dpsgd`.
    progress : callable, optional
        ``progress(fraction, message)``, called as each method starts and finishes and at
        each evaluation of the KOV grid search (seconds each for millions of
        compositions); see :mod:`gdp._progress`.

    Returns
    -------
    Comparison
        One :class:`BoundRecord` per method (per question). Methods that do not apply are
        kept with ``kind="skipped"`` and a note (e.g. optimal KOV for a heterogeneous
        composition, RDP for (ε, δ) with δ > 0, the numeric engine when absent).

    Notes
    -----
    * Classical theorems (basic, advanced, KOV) take one (ε_i, δ_i) per use. For
      ``f_eps_delta`` mechanisms that pair is used as given. Other mechanisms enter through
      their privacy profile: each of their uses gets the same δ_i (ε_i = ε(δ_i), sound),
      and the split of the target δ between the δ_i and the theorem's slack is chosen by a
      grid search (δ at ε: the per-use ε_i). Any split gives a valid bound; the search only
      tightens it.
    * Optimal KOV is exact for homogeneous ``f_eps_delta``; for any other homogeneous
      mechanism it is the optimal composition of its best (ε0, δ0) description (a bound).
    * RDP: closed forms (:func:`rdp_of`, :func:`rdp_sampled_gaussian`), summed, converted
      with the sharp conversion (:func:`eps_from_rdp`).
    * The CLT row (``gdp.clt``, or ``gdp.noisy_sgd_mu`` for DP-SGD) is an approximation,
      not a bound.
    * The exact row is :func:`gdp.compose` / :func:`gdp.dpsgd`; its ε/δ is the sound side,
      ``interval`` the engine's two-sided bracket.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.compare(gdp.f_eps_delta(0.1), k=100, delta=1e-5,
    ...                 methods=["basic", "advanced", "kairouz", "kov", "rdp"])
    >>> [(r.method, round(r.epsilon, 4)) for r in c]
    [('basic', 10.0), ('advanced', 5.8502), ('kairouz', 5.2981), ('kov', 4.3068), ('rdp', 4.6207)]
    >>> print(c.to_markdown(digits=4).splitlines()[5])
    | Optimal (KOV 2015, Thm 3.3) | exact | 4.307 | 1e-05 |  | exact profile of f_{ε0,δ0}^{⊗k} |
    >>> s = gdp.compare(dpsgd=dict(sigma=1.0, p=0.01, steps=1000), delta=1e-5, methods=["rdp"])
    >>> round(s["rdp"].epsilon, 4)
    2.1078
    """
    if delta is None and eps is None:
        raise TypeError("give `delta` (to compute ε) and/or `eps` (to compute δ)")
    prog = as_progress(progress)
    d_t = None if delta is None else check_real("delta", delta, lo=0.0, hi=1.0)
    e_t = None if eps is None else check_real("eps", eps, lo=0.0)
    chosen = _methods(methods)
    o = _orders(orders)
    if accuracy is not None and not isinstance(accuracy, Mapping):
        raise TypeError(f"`accuracy` must be a dict of numeric-engine keywords (rtol, "
                        f"grid_step, tail_mass, max_points); got accuracy={accuracy!r}")
    acc = dict(accuracy or {})
    need_step = any(m in chosen for m in ("basic", "advanced", "kairouz", "kov"))
    groups = _groups(mechanisms, k, dpsgd, need_step)
    ktot = sum(g.count for g in groups)
    if dpsgd is not None:
        desc = "DP-SGD: " + "; ".join(f"sigma={g.sgd[0]:g}, p={g.sgd[1]:g}, steps={g.count}"
                                      for g in groups)
    else:
        desc = "Composition of " + " ⊗ ".join(
            (f"{g.label}^{g.count}" if g.count > 1 else g.label) for g in groups)
    questions = []
    if d_t is not None:
        questions.append(("epsilon", d_t))
        desc += f"; ε at δ={d_t:g}"
    if e_t is not None:
        questions.append(("delta", e_t))
        desc += f"; δ at ε={e_t:g}"

    exact_curve: list[TradeOff] = []  # computed once, shared by both questions
    records: list[BoundRecord] = []
    steps = [(solved, target, m) for solved, target in questions for m in chosen]
    weights = np.cumsum([0.0] + [_WEIGHT.get(m, 1.0) for _, _, m in steps])
    for i, (solved, target, m) in enumerate(steps):
        part = prog.span(weights[i] / weights[-1], weights[i + 1] / weights[-1])
        part(0.0, f"{METHODS[m]} ...")
        records.append(_one(m, solved, target, groups, ktot, o, exact_curve, acc, part))
    prog.done(f"compared {len(chosen)} method(s)")
    return Comparison(records=tuple(records), description=desc)


def _methods(methods: Any) -> list[str]:
    """The chosen methods, in table order (all by default; at least one)."""
    if methods is None:
        return list(METHODS)
    if isinstance(methods, str):
        methods = [methods]
    if not isinstance(methods, Sequence | set | frozenset) or isinstance(methods, bytes):
        raise TypeError(f"`methods` must be a list of method names among {list(METHODS)}; "
                        f"got methods={methods!r:.60}")
    if len(methods) == 0:
        raise ValueError(f"`methods` must name at least one method among {list(METHODS)}; "
                         "got an empty list")
    for m in methods:
        if not isinstance(m, str) or m not in METHODS:
            raise ValueError(f"`methods` entries must be among {list(METHODS)}; got {m!r:.60}")
    return [m for m in METHODS if m in methods]


def _one(method: str, solved: str, target: float, groups: list[_Group], ktot: int,
         orders: np.ndarray, cache: list[TradeOff], accuracy: Mapping[str, Any],
         progress: Progress) -> BoundRecord:
    at_delta = solved == "epsilon"

    def rec(value: float | None, kind: str, notes: str,
            interval: tuple[float, float] | None = None) -> BoundRecord:
        if value is not None:
            value = max(0.0, float(value))
            if not at_delta:
                value = min(1.0, value)
        e, d = (value, target) if at_delta else (target, value)
        return BoundRecord(method=method, kind=kind, epsilon=e, delta=d, solved=solved,
                           k=ktot, interval=interval, notes=notes)

    try:
        if method in ("basic", "advanced", "kairouz"):
            val, note = (_classical_eps(groups, target, method) if at_delta
                         else _classical_delta(groups, target, method))
            return rec(val, "bound", note)
        if method == "kov":
            val, kind, note = (_kov_eps(groups, target, progress) if at_delta
                               else _kov_delta_at(groups, target, progress))
            return rec(val, kind, note)
        if method == "rdp":
            r = _rdp_total(groups, orders)
            lam = f"orders {int(orders.min())}..{int(orders.max())}"
            if at_delta:
                return rec(float(eps_from_rdp(r, target, orders)), "bound",
                           f"sharp conversion (CKS 2020), {lam}")
            return rec(float(delta_from_rdp(r, target, orders)), "bound",
                       f"sharp conversion (CKS 2020), {lam}")
        if method == "clt":
            mu, note = _clt_mu(groups)
            from ..families.gaussian import delta_from_mu

            val = eps_from_mu(mu, target) if at_delta else delta_from_mu(mu, target)
            return rec(float(val), "approximation", f"μ = {mu:.5g}; {note}")
        if method == "exact":
            if not cache:
                if any(g.f is None and g.sgd is None for g in groups):
                    raise _Skip("needs the numeric engine")
                cache.append(_exact_curve(groups, accuracy))
            h = cache[0]
            if at_delta:
                val = float(h.epsilon(target))
                iv = _interval(h, "epsilon_bounds", target)
            else:
                val = float(h.delta(target))
                iv = _interval(h, "delta_bounds", target)
            note = "closed form" if iv is None else "sound side of the numeric bracket"
            return rec(val, "exact", note, iv)
    except _Skip as s:
        return rec(None, "skipped", str(s))
    except ValueError as exc:  # beyond a method's range (KOV's eps0 <= 700, exact k <= 1e7)
        msg = " ".join(str(exc).split())
        msg = msg if len(msg) <= 120 else msg[:119] + "…"
        return rec(None, "skipped", f"not computed: {msg}")
    raise AssertionError(method)  # pragma: no cover - METHODS is closed


def epsilon_vs_k(mechanism: TradeOff | None = None, ks: Any = None, *, delta: float,
                 dpsgd: Mapping[str, Any] | None = None,
                 methods: Sequence[str] | None = None, orders: Any = None,
                 accuracy: Mapping[str, Any] | None = None,
                 progress: ProgressCallback | None = None) -> EpsilonCurves:
    r"""ε at ``delta`` of the k-fold composition for each k in ``ks``, by every method of
    :func:`compare` (the data of an "ε versus k" plot).

    Parameters
    ----------
    mechanism : TradeOff
        The mechanism composed with itself k times (or use ``dpsgd``).
    ks : array_like of int
        The numbers of compositions (steps for DP-SGD).
    delta : float
        The target δ.
    dpsgd : dict, optional
        ``dict(sigma=..., p=...)``: DP-SGD with ``steps = k``.
    methods, orders, accuracy
        As in :func:`compare`.
    progress : callable, optional
        ``progress(fraction, message)``: each k is an equal share of the work, reported
        into by :func:`compare`; see :mod:`gdp._progress`.

    Examples
    --------
    >>> import gdp
    >>> c = gdp.epsilon_vs_k(gdp.f_eps_delta(0.1), [1, 10, 100], delta=1e-5,
    ...                      methods=["basic", "kov"])
    >>> c.columns["basic"].tolist(), [round(x, 4) for x in c.columns["kov"].tolist()]
    ([0.1, 1.0, 10.0], [0.1, 0.9937, 4.3068])
    """
    if ks is None:
        raise TypeError("`ks` (the numbers of compositions) is required")
    karr = as_real_array("ks", ks, lo=1.0).reshape(-1)
    kint = [check_count("ks", v) for v in karr.tolist()]
    if not kint:
        raise ValueError("`ks` must hold at least one number of compositions; got none")
    d = check_real("delta", delta, lo=0.0, hi=1.0)
    _methods(methods)  # checked before any work
    prog = as_progress(progress)
    cols: dict[str, list[float]] = {}
    kinds: dict[str, str] = {}
    for i, kv in enumerate(kint):
        part = prog.part(i, len(kint))
        part(0.0, f"k = {kv} ({i + 1} of {len(kint)})")
        if dpsgd is not None:
            if not isinstance(dpsgd, Mapping) or set(dpsgd) != {"sigma", "p"}:
                raise ValueError("`dpsgd` for epsilon_vs_k must have exactly the keys sigma "
                                 f"and p (steps = k); got {dpsgd!r}")
            c = compare(dpsgd={**dpsgd, "steps": kv}, delta=d, methods=methods, orders=orders,
                        accuracy=accuracy, progress=part.with_prefix(f"k = {kv}"))
        else:
            if not isinstance(mechanism, TradeOff):
                raise TypeError(f"`mechanism` must be a TradeOff; got {mechanism!r}")
            c = compare(mechanism, k=kv, delta=d, methods=methods, orders=orders,
                        accuracy=accuracy, progress=part.with_prefix(f"k = {kv}"))
        for r in c:
            cols.setdefault(r.method, []).append(math.nan if r.epsilon is None else r.epsilon)
            if r.kind != "skipped":
                kinds[r.method] = r.kind
            else:
                kinds.setdefault(r.method, "skipped")
    frozen = {}
    for m, v in cols.items():
        a = np.array(v, dtype=float)
        a.setflags(write=False)
        frozen[m] = a
    k_arr = np.array(kint, dtype=float)
    k_arr.setflags(write=False)
    prog.done(f"epsilon for {len(kint)} value(s) of k")
    return EpsilonCurves(k=k_arr, delta=d, columns=frozen, kinds=kinds)
