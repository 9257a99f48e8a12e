r"""The accountant: an append-only ledger of a training run or a query session.

Theory of operation
-------------------
:class:`Accountant` records mechanisms as they run — DP-SGD steps (:meth:`~Accountant.step`),
trade-off curves, mechanisms of :mod:`gdp.mechanisms` and dp-accounting ``DpEvent``\ s
(:meth:`~Accountant.compose`) — and answers for everything recorded so far: ε at δ, δ at ε,
the composed curve with its bracket, a GDP summary where one makes sense, and what is left of
a budget.

*Composition.* Equal factors are grouped into powers (:mod:`gdp.accounting.factors`): the
ledger keeps ``{factor: multiplicity}``, so 10⁴ equal steps are one group and the answer is
one call of the engine (:func:`gdp.dpsgd` for a run of steps — bit for bit the one-shot call
—, :func:`gdp.compose_two_orders` otherwise: each order of the add/remove neighbours composed
separately, symmetrised at the end). Its cost does not grow with the number of steps. The
composed curve is cached until the ledger changes, so reading ε after every step costs one
engine call per step, and none while nothing changed.

*Budgets.* With a budget (:mod:`gdp.accounting.budget`) every new record is admitted only
when the ledger *with* it still meets the budget; otherwise :class:`BudgetExceeded` is raised
and nothing is recorded. For an (ε, δ) budget two sound certificates spare most engine calls:

1. Rényi DP (:func:`gdp.accounting.factors.factor_rdp`): the RDP ε of the candidate ledger
   (MTZ 2019, sharp conversion) is an upper bound of the true ε; below the budget, the
   record is admitted at once (microseconds).
2. Look-ahead: a run of equal steps is monotone (one more mechanism never helps privacy),
   so when the engine's sound ε of the ledger with ``n + L`` such steps is within the budget,
   every count up to ``n + L`` is; ``L`` doubles after a success and shrinks after a miss.

A certificate is used only when it is ``10 * rtol`` (relative) inside the budget, so that the
ε the ledger later reports (the engine's own sound answer at the actual count, which may sit
a numeric slack of order ``rtol`` above a neighbouring count's) stays within the budget too.
Near the limit each record is checked by the engine directly. The soundness of admission
never rests on this margin: every certificate is an upper bound of the true ε.

*State.* :meth:`~Accountant.state_dict` is plain data (:mod:`gdp.accounting.state`):
versioned, checksummed, its history replayed by :meth:`~Accountant.load_state_dict`, which
refuses foreign, newer or corrupted states (and a history that exceeds its own budget), and
never half-loads.

References
----------
DRS Thm 3.2 (composition); Zhu, Dong, Wang, AISTATS 2022 (both orders of Poisson
subsampling); Mironov, Talwar, Zhang 2019 (RDP of the sampled Gaussian); Opacus's
``IAccountant`` and dp-accounting's ``PrivacyAccountant`` for the shape of the interface.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`,
:mod:`gdp.sampling`, :mod:`gdp.approx`, :mod:`gdp.bounds` and the modules of
:mod:`gdp.accounting` below it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import (
    check_count,
    check_fields,
    check_instance,
    check_str,
    choice,
    optional,
    real,
    text,
)
from ..approx.central_limit import clt
from ..approx.limits import noisy_sgd_mu
from ..bounds.rdp import eps_from_rdp
from ..core.tradeoff import TradeOff
from ..engine.settings import Accuracy, accuracy
from ..families.gaussian import Gaussian
from ..sampling.dp_sgd import dpsgd
from .budget import Budget, BudgetExceeded, Remaining, make_budget
from .conventions import Schedule
from .dp_event import _check_neighbours, dp_event_factors, dp_event_to_dict
from .factors import (
    Step,
    check_epoch_sampler,
    compose_factors,
    factor_rdp,
    merge_factors,
    sampling_keywords,
)
from .state import curve_from_spec, curve_to_spec, dumps, seal, unseal

__all__ = ["Accountant", "GdpSummary"]

_STATE_KEYS = ("neighbours", "accuracy", "budget", "history")


@dataclass(frozen=True, slots=True)
class GdpSummary:
    r"""A μ-GDP summary of a ledger.

    Attributes
    ----------
    mu : float
        The μ.
    kind : str
        ``"exact"`` (the composed curve *is* :math:`G_\mu`) or ``"approximation"`` (a
        central limit theorem: not a bound, it can under-state ε).
    method : str
        Where it comes from.
    gamma : float or None
        The Berry–Esseen γ of DRS Thm 3.4 when that theorem was used.
    """

    mu: float
    kind: str
    method: str
    gamma: float | None = None

    def __post_init__(self):
        check_fields(self, mu=real(lo=0.0, finite=False),
                     kind=choice(("exact", "approximation")), method=text(),
                     gamma=optional(real(lo=0.0)))


def _copy(x: Any) -> Any:
    """A copy of nested dicts and lists; other leaves (numbers, curves) are immutable."""
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_copy(v) for v in x]
    return x


def _is_dp_event(x: Any) -> bool:
    return type(x).__module__.startswith("dp_accounting") or (
        isinstance(x, Mapping) and "class_name" in x)


class Accountant:
    r"""An append-only privacy ledger with an optional budget.

    Parameters
    ----------
    budget : tuple, float, TradeOff or Budget, optional
        The budget in one argument: ``(eps, delta)``, a μ > 0, or a curve (the same as the
        keywords below, of which it excludes the use).
    eps, delta : float, optional
        An (ε, δ) budget: every record must keep the sound ε at ``delta`` at most ``eps``.
    mu : float, optional
        A μ-GDP budget: the composed curve must dominate :math:`G_\mu`.
    tradeoff : TradeOff, optional
        A curve budget: the composed curve must dominate it.
    neighbours : {"add_remove", "replace_one"}
        The neighbour relation DpEvents are read under (:func:`gdp.from_dp_event`); DP-SGD
        steps are Poisson add/remove unless their sampler keywords say otherwise.
    **accuracy
        Accuracy keywords of the numeric engine (``rtol``, ``grid_step``, ``tail_mass``,
        ``max_points``), used for every answer.

    Notes
    -----
    The names and meanings below are stable (other parts of gdp build on them): ``step``,
    ``compose(x, count=1)`` (raises :class:`BudgetExceeded` *before* recording when the budget
    would be exceeded), ``epsilon(delta)``, ``delta(eps)``, ``tradeoff()``, ``spent()``,
    ``remaining()`` (a :class:`~gdp.accounting.budget.Remaining`), ``budget`` (a
    :class:`~gdp.accounting.budget.Budget`), ``history``,
    ``state_dict()``/``load_state_dict()``.
    Every answer is the engine's sound side: ε and δ never too small, the curve never too
    high (see the module docstring).

    Examples
    --------
    >>> import gdp
    >>> acc = gdp.Accountant(eps=2.0, delta=1e-5)
    >>> for _ in range(1000):
    ...     acc.step(noise_multiplier=1.0, sample_rate=0.01)
    >>> acc.epsilon(1e-5) == gdp.dpsgd(sigma=1.0, p=0.01, steps=1000).epsilon(1e-5)
    True
    >>> round(acc.remaining().eps, 3)   # one more pure eps-DP release that still fits
    0.246
    >>> acc.compose(gdp.G_mu(1.0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gdp.accounting.budget.BudgetExceeded: recording Gaussian(mu=1.0) would exceed the budget ...
    >>> len(acc)
    1000
    """

    def __init__(self, budget: Any = None, *, eps: float | None = None,
                 delta: float | None = None, mu: float | None = None,
                 tradeoff: TradeOff | None = None, neighbours: str = "add_remove",
                 **accuracy_kw: Any):
        self._budget = make_budget(budget, eps=eps, delta=delta, mu=mu, tradeoff=tradeoff)
        self._neighbours = _check_neighbours(neighbours)
        acc, default = accuracy(**accuracy_kw), Accuracy()  # validates the keywords
        self._rtol = acc.rtol
        # the settings that differ from the engine's defaults (rtol=1e-3 given or not is one
        # and the same accountant)
        self._accuracy = {k: getattr(acc, k) for k in accuracy_kw
                          if getattr(acc, k) != getattr(default, k)}
        self._clear()

    def _clear(self) -> None:
        self._records: list[dict[str, Any]] = []
        self._groups: dict[Any, list] = {}
        self._count = 0
        self._steps = 0
        self._h: TradeOff | None = None
        self._rdp: dict[Any, np.ndarray | None] = {}
        self._cert: tuple[Any, int] | None = None
        self._look: dict[Any, int] = {}

    # ------------------------------------------------------------------ recording
    def step(self, *, noise_multiplier: float, sample_rate: float | None = None,
             steps: int | None = None, schedule: Schedule | None = None,
             **sampling: Any) -> None:
        r"""Record ``steps`` DP-SGD steps (Opacus's names): noise multiplier σ (0: no noise,
        ε = ∞), Poisson rate ``sample_rate``; or a :class:`~gdp.Schedule` from
        :func:`gdp.epochs_to_steps` instead of ``sample_rate`` and ``steps`` (its convention
        is stored in the history).

        ``**sampling`` are the sampler / neighbour keywords of :func:`gdp.dpsgd`
        (``sampler``, ``neighbours``, ``group_size``), passed through to it; an accountant
        made with ``neighbours="replace_one"`` records its steps with
        ``neighbours="replace-one"`` unless told otherwise (a step's ``neighbours`` that
        contradicts the accountant's is refused). Returns None, as Opacus's ``step`` does;
        raises :class:`BudgetExceeded` (nothing recorded) when over budget.
        """
        if schedule is not None:
            if not isinstance(schedule, Schedule):
                raise TypeError(f"`schedule` must be a gdp.Schedule (from gdp.epochs_to_steps)"
                                f"; got schedule={schedule!r}")
            if sample_rate is not None or steps is not None:
                raise TypeError("give either `schedule` or `sample_rate` and `steps`, not both")
            sample_rate, steps = schedule.sample_rate, schedule.steps
        if sample_rate is None:
            raise TypeError("step() needs `sample_rate` (or a `schedule`)")
        n = 1 if steps is None else check_count("steps", steps)
        known = sampling_keywords()
        unknown = sorted(set(sampling) - set(known))
        if unknown:
            raise TypeError(f"step() got unknown keyword(s) {unknown}; gdp.dpsgd takes the "
                            f"sampler/neighbour keywords {list(known)}")
        if self._neighbours == "replace_one":
            if sampling.get("neighbours", "replace-one") != "replace-one":
                raise ValueError(f"`neighbours` contradicts the accountant's "
                                 f"neighbours='replace_one'; got neighbours="
                                 f"{sampling['neighbours']!r}")
            sampling = {**sampling, "neighbours": "replace-one"}
        opts = tuple(sorted(sampling.items()))
        s = Step(sigma=noise_multiplier, p=sample_rate, options=opts)
        check_epoch_sampler(opts, {(s.sigma, s.p)} | {
            (f.sigma, f.p) for f, _ in self._groups.values()
            if isinstance(f, Step) and f.options == opts})
        if opts:  # let gdp.dpsgd judge its own keywords now, not at the next answer
            dpsgd(sigma=s.sigma or 1.0, p=s.p, steps=1, **dict(opts))
        rec: dict[str, Any] = {"kind": "dpsgd", "noise_multiplier": s.sigma,
                               "sample_rate": s.p, "steps": n}
        if opts:
            rec["options"] = dict(opts)
        if schedule is not None:
            rec["schedule"] = schedule.to_dict()
        self._add(rec, [(s, n)], what=lambda: f"{n} {s.label}" if n > 1 else s.label)

    def compose(self, mechanism: Any, count: int = 1) -> Accountant:
        r"""Record ``count`` runs of a mechanism: a :class:`~gdp.TradeOff` (read as the curve
        of one order of the neighbours, its inverse for the other; a symmetric curve holds
        in both), anything with a ``.tradeoff`` (a :mod:`gdp.mechanisms` mechanism), or a
        dp-accounting ``DpEvent`` (or its dict form; :func:`gdp.from_dp_event`).

        Returns the accountant (so calls chain, as dp-accounting's do). Raises
        :class:`BudgetExceeded` *before* recording when the ledger with these runs would
        exceed the budget (the ledger is then unchanged), and :class:`~gdp.UnsupportedEvent`
        for an event gdp cannot account.
        """
        n = check_count("count", count)
        if _is_dp_event(mechanism):
            ev = dp_event_to_dict(mechanism)
            factors = dp_event_factors(ev, neighbours=self._neighbours, count=n)
            rec = {"kind": "event", "event": ev, "count": n}
            self._add(rec, factors, what=lambda: ev["class_name"] + (f" x {n}" if n > 1 else ""))
            return self
        label = None
        f = mechanism
        if not isinstance(f, TradeOff):
            f = getattr(mechanism, "tradeoff", None)
            if not isinstance(f, TradeOff):
                raise TypeError("`mechanism` must be a TradeOff, a mechanism with a "
                                "`.tradeoff`, or a dp-accounting DpEvent; got "
                                f"{mechanism!r}")
            label = repr(mechanism)
        spec = curve_to_spec(f)
        rec = {"kind": "tradeoff", "tradeoff": f if spec is None else spec, "count": n,
               "label": label or repr(f)}
        self._add(rec, [(f, n)], what=lambda: rec["label"] + (f" x {n}" if n > 1 else ""))
        return self

    def _add(self, rec: dict[str, Any], factors: list[tuple[Step | TradeOff, int]], *,
             what: Callable[[], str], check: bool = True) -> None:
        """Admit (budget) and record; nothing changes when admission fails (``what`` names
        the record in the refusal)."""
        groups = {k: [f, n] for k, (f, n) in self._groups.items()}
        added = merge_factors(groups, factors)
        h = self._admit(groups, added, what) if check and self._budget else None
        # commit: nothing below can fail
        self._groups = groups
        for k in added:
            if k not in self._rdp:
                self._rdp[k] = factor_rdp(groups[k][0])
        if self._cert is not None and any(k != self._cert[0] for k in added):
            self._cert = None
        self._h = h
        self._count += rec.get("steps", 0) + rec.get("count", 0)
        self._steps += rec.get("steps", 0)
        last = self._records[-1] if self._records else None
        size = "steps" if rec["kind"] == "dpsgd" else "count"
        if last is not None and "schedule" not in rec and "schedule" not in last and \
                {k: v for k, v in last.items() if k != size} == \
                {k: v for k, v in rec.items() if k != size}:
            last[size] += rec[size]
        else:
            self._records.append(rec)

    # ------------------------------------------------------------------ budget
    def _compose(self, groups: dict[Any, list]) -> TradeOff:
        return compose_factors([(f, n) for f, n in groups.values()], **self._accuracy)

    def _rdp_total(self, groups: dict[Any, list], exclude: Any = None) -> np.ndarray | None:
        """Rényi DP of a ledger, valid for both orders (None when a factor has none),
        without the factor ``exclude`` when given."""
        total = 0.0
        for k, (f, n) in groups.items():
            if k == exclude:
                continue
            r = self._rdp[k] if k in self._rdp else factor_rdp(f)
            if r is None:
                return None
            total = total + n * r
        return total

    def _rdp_eps(self, groups: dict[Any, list]) -> float:
        """Sound RDP ε at the budget's δ of a ledger (inf when a factor has no RDP)."""
        total = self._rdp_total(groups)
        return math.inf if total is None else float(eps_from_rdp(total, self._budget.delta))

    def _rdp_reach(self, groups: dict[Any, list], k: Any, inside: float) -> int:
        """The largest multiplicity of factor ``k`` (the others as in ``groups``) whose RDP
        ε is at most ``inside`` (RDP is linear in the multiplicity, the conversion monotone),
        or 0 when there is no RDP or even the current one is over."""
        # the others summed afresh (subtracting n r from the total is NaN where r is inf)
        base, r = self._rdp_total(groups, exclude=k), self._rdp.get(k)
        if base is None or r is None:
            return 0
        n = groups[k][1]

        def ok(m: int) -> bool:
            return float(eps_from_rdp(base + m * r, self._budget.delta)) <= inside

        if not ok(n):
            return 0
        hi = 2 * n
        while ok(hi):
            n, hi = hi, 2 * hi
            if hi > 1 << 62:
                return n
        while hi - n > 1:
            mid = (n + hi) // 2
            n, hi = (mid, hi) if ok(mid) else (n, mid)
        return n

    def _admit(self, groups: dict[Any, list], added: list[Any],
               what: Callable[[], str]) -> TradeOff | None:
        """Check the candidate ledger ``groups`` against the budget; returns its composed
        curve when it had to be computed (None when a certificate sufficed)."""
        b = self._budget
        if b.criterion == "epsilon":
            inside = b.eps * (1.0 - 10.0 * self._rtol)
            single = added[0] if len(set(added)) == 1 else None
            if single is not None:
                k, n = single, groups[single][1]
                if self._cert is not None and self._cert[0] == k and n <= self._cert[1]:
                    return None
                if k not in self._rdp:
                    self._rdp[k] = factor_rdp(groups[k][0])
                reach = self._rdp_reach(groups, k, inside)
                if reach >= n:
                    self._cert = (k, reach)
                    return None
            elif self._rdp_eps(groups) <= inside:
                return None
            if single is not None:
                look = self._look.get(k, max(1, n // 32))
                if look > 0:
                    ahead = {**groups, k: [groups[k][0], n + look]}
                    if float(self._compose(ahead).epsilon(b.delta)) <= inside:
                        self._cert = (k, n + look)
                        self._look[k] = 2 * look
                        return None
                    self._look[k] = look // 4
        h = self._compose(groups)
        if b.met_by(h):
            return h
        would = float(h.epsilon(b.delta)) if b.criterion == "epsilon" else None
        why = (f": eps at delta={b.delta:g} would be {would:.6g} > {b.eps:g}"
               if would is not None else "")
        raise BudgetExceeded(f"recording {what()} would exceed the budget {b.describe()}{why};"
                             f" nothing was recorded ({self._count} mechanisms so far)",
                             budget=b, attempted=what(), would_be=would)

    # ------------------------------------------------------------------ answers
    def tradeoff(self) -> TradeOff:
        r"""The composed trade-off curve of everything recorded (the identity when nothing
        is): a closed form, or the engine's :class:`gdp.engine.Composition` whose default
        side is sound and whose ``lower``/``upper``/``*_bounds`` give the bracket."""
        if self._h is None:
            self._h = self._compose(self._groups)
        return self._h

    def epsilon(self, delta: Any) -> Any:
        """ε at δ of the ledger (sound: never below the true value); vectorised."""
        return self.tradeoff().epsilon(delta)

    def delta(self, eps: Any) -> Any:
        """δ at ε of the ledger (sound: never below the true value); vectorised."""
        return self.tradeoff().delta(eps)

    def _bounds(self, what: str, x: Any) -> tuple[Any, Any]:
        h = self.tradeoff()
        if hasattr(h, what + "_bounds"):
            return getattr(h, what + "_bounds")(x)
        v = getattr(h, what)(x)  # a closed form: exact
        return v, v

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bracket of the exact ε at δ (equal for closed forms)."""
        return self._bounds("epsilon", delta)

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bracket of the exact δ at ε (equal for closed forms)."""
        return self._bounds("delta", eps)

    def mu(self) -> GdpSummary:
        r"""A μ-GDP summary, labelled: ``"exact"`` when the composed curve is
        :math:`G_\mu`; otherwise the CLT (``"approximation"``, not a bound): for DP-SGD
        steps and Gaussians :math:`\mu^2 = \sum_i p_i^2T_i(e^{1/\sigma_i^2}-1) +
        \sum_j\mu_j^2` (BDLS), for symmetric curves :func:`gdp.clt` (DRS Thm 3.4).
        ``ValueError`` when neither applies (e.g. asymmetric curves, non-private steps)."""
        h = self.tradeoff()
        if isinstance(h, Gaussian):
            return GdpSummary(mu=h.mu, kind="exact", method="closed form (DRS Cor. 3.3)")
        fs = [(f, n) for f, n in self._groups.values()]
        sgd = all((isinstance(f, Step) and not f.options and f.sigma > 0)
                  or isinstance(f, Gaussian) for f, _ in fs)
        if fs and sgd:
            sq = sum(noisy_sgd_mu(f.sigma, f.p, n) ** 2 if isinstance(f, Step)
                     else n * f.mu * f.mu for f, n in fs)
            return GdpSummary(mu=math.sqrt(sq), kind="approximation",
                              method="noisy-SGD CLT, mu = p sqrt(T (e^{1/sigma^2} - 1)) per "
                                     "phase, root-sum-square (BDLS 2020)")
        if fs and all(isinstance(f, TradeOff) and f.is_symmetric for f, _ in fs):
            c = clt([f for f, n in fs for _ in range(n)], check=False)
            return GdpSummary(mu=float(c.mu), kind="approximation", gamma=float(c.gamma),
                              method="Berry-Esseen CLT (DRS Thm 3.4)")
        raise ValueError("no GDP summary for this ledger: it is not Gaussian, and the CLT "
                         "needs DP-SGD steps and Gaussians, or symmetric curves")

    @property
    def budget(self) -> Budget | None:
        """The :class:`~gdp.accounting.budget.Budget` (None without one)."""
        return self._budget

    def _need_budget(self) -> Budget:
        if self._budget is None:
            raise ValueError("this accountant has no budget (construct it with eps and "
                             "delta, mu, or tradeoff)")
        return self._budget

    def spent(self) -> float:
        """What the ledger spent of its budget, in the budget's unit: the sound ε at the
        budget's δ, or the smallest μ with ``tradeoff() >= G_mu`` (never too small)."""
        return self._need_budget().spent(self.tradeoff())

    def remaining(self) -> Remaining:
        r"""What is left of the budget, as one more mechanism that still fits
        (:class:`~gdp.accounting.budget.Remaining`): for (ε, δ) the largest pure
        :math:`\varepsilon_r` (``.eps``, never over-stated) and the δ left at the budget's
        ε (``.delta``); for μ the :math:`\mu_r = \sqrt{\mu^2-\mu_{\text{spent}}^2}` of a
        Gaussian mechanism (``.mu``); ``.tradeoff`` is that mechanism's curve. Refused for a
        curve budget (no single remainder)."""
        b = self._need_budget()
        groups = list(self._groups.values())
        return b.remaining(self.tradeoff(), lambda g: compose_factors(
            [*groups, (g, 1)], **self._accuracy))

    # ------------------------------------------------------------------ bookkeeping
    @property
    def history(self) -> list[dict[str, Any]]:
        """The records, oldest first (copies): ``{"kind": "dpsgd", "noise_multiplier",
        "sample_rate", "steps"[, "options"][, "schedule"]}``, ``{"kind": "event", "event",
        "count"}`` or ``{"kind": "tradeoff", "tradeoff", "count", "label"}``; consecutive
        equal records are merged."""
        return _copy(self._records)

    @property
    def steps(self) -> int:
        """Number of DP-SGD steps recorded."""
        return self._steps

    @property
    def neighbours(self) -> str:
        return self._neighbours

    def __len__(self) -> int:
        """Number of mechanisms recorded (each DP-SGD step, each run of a mechanism or of
        an event counts one)."""
        return self._count

    def __repr__(self) -> str:
        b = f", budget {self._budget.describe()}" if self._budget else ""
        return (f"Accountant({self._count} mechanisms, {self._steps} DP-SGD steps, "
                f"{len(self._groups)} distinct{b})")

    # ------------------------------------------------------------------ state
    def _settings(self) -> dict[str, Any]:
        return {"neighbours": self._neighbours, "accuracy": dict(self._accuracy),
                "budget": None if self._budget is None else self._budget.to_dict()}

    def state_dict(self) -> dict[str, Any]:
        """The state as plain data (versioned, checksummed; :mod:`gdp.accounting.state`)."""
        return seal({**self._settings(), "history": self.history})

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Replace the ledger by a saved one. The state's settings (budget, neighbours,
        accuracy) must equal this accountant's (use :meth:`from_state_dict` to take them
        from the state); a foreign, newer or corrupted state, or a history that exceeds its
        budget, raises ``ValueError`` and leaves this accountant unchanged."""
        new = type(self).from_state_dict(state)
        if new._settings() != self._settings():
            mine, theirs = self._settings(), new._settings()
            diff = [k for k in mine if mine[k] != theirs[k]]
            raise ValueError(f"the state's settings differ from this accountant's in {diff}:"
                             f" {[theirs[k] for k in diff]} vs {[mine[k] for k in diff]}; "
                             "use Accountant.from_state_dict(state) to take the state's")
        for name in self.__slots_state__:
            setattr(self, name, getattr(new, name))

    __slots_state__ = ("_records", "_groups", "_count", "_steps", "_h", "_rdp", "_cert",
                       "_look")

    @classmethod
    def from_state_dict(cls, state: Mapping[str, Any]) -> Accountant:
        """A new accountant with the settings and history of a saved state."""
        body = unseal(state, _STATE_KEYS)
        acc_kw = body["accuracy"]
        if not isinstance(acc_kw, dict):
            raise ValueError(f"corrupted accountant state: accuracy={acc_kw!r}")
        b = None if body["budget"] is None else Budget.from_dict(body["budget"])
        kw = {} if b is None else {k: getattr(b, k) for k in ("eps", "delta", "mu", "tradeoff")
                                   if getattr(b, k) is not None}
        acc = cls(neighbours=body["neighbours"], **kw, **acc_kw)
        hist = body["history"]
        if not isinstance(hist, list):
            raise ValueError("corrupted accountant state: history must be a list")
        for i, rec in enumerate(hist):
            try:
                acc._replay(rec)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"corrupted accountant state: history[{i}]: {exc}") from None
        if b is not None and acc._records and not acc._certified():
            raise ValueError(f"corrupted accountant state: its history exceeds its own budget "
                             f"{b.describe()}")
        return acc

    def _replay(self, rec: Any) -> None:
        """Record a saved history entry (validated) without the budget check."""
        if not isinstance(rec, Mapping) or rec.get("kind") not in ("dpsgd", "event",
                                                                    "tradeoff"):
            raise ValueError(f"a record must be a dict with kind dpsgd, event or tradeoff; "
                             f"got {rec!r}")
        kind = rec["kind"]
        keys = {"dpsgd": ({"kind", "noise_multiplier", "sample_rate", "steps"},
                          {"options", "schedule"}),
                "event": ({"kind", "event", "count"}, set()),
                "tradeoff": ({"kind", "tradeoff", "count", "label"}, set())}[kind]
        if not keys[0] <= set(rec) <= keys[0] | keys[1]:
            raise ValueError(f"a {kind} record has the keys {sorted(keys[0])} (optional "
                             f"{sorted(keys[1])}); got {sorted(rec)}")
        if kind == "dpsgd":
            opts = rec.get("options", {})
            if not isinstance(opts, Mapping):
                raise ValueError(f"options must be a dict; got {opts!r}")
            sch = rec.get("schedule")
            if sch is not None and not isinstance(sch, Mapping):
                raise ValueError(f"schedule must be a dict; got {sch!r}")
            s = Step(sigma=rec["noise_multiplier"], p=rec["sample_rate"],
                     options=tuple(sorted(opts.items())))
            n = check_count("steps", rec["steps"])
            out = {"kind": "dpsgd", "noise_multiplier": s.sigma, "sample_rate": s.p,
                   "steps": n, **({"options": dict(opts)} if opts else {}),
                   **({"schedule": dict(sch)} if sch is not None else {})}
            self._add(out, [(s, n)], what=lambda: s.label, check=False)
        elif kind == "event":
            n = check_count("count", rec["count"])
            ev = dp_event_to_dict(rec["event"])
            self._add({"kind": "event", "event": ev, "count": n},
                      dp_event_factors(ev, neighbours=self._neighbours, count=n),
                      what=lambda: ev["class_name"], check=False)
        else:
            n = check_count("count", rec["count"])
            f = curve_from_spec(rec["tradeoff"])
            if not isinstance(rec["label"], str):
                raise ValueError(f"label must be a string; got {rec['label']!r}")
            self._add({**rec, "count": n}, [(f, n)], what=lambda: rec["label"], check=False)

    def _certified(self) -> bool:
        """Whether the whole ledger meets its budget (RDP certificate or the engine)."""
        b = self._budget
        if b.criterion == "epsilon" and self._rdp_eps(self._groups) <= b.eps:
            return True
        return b.met_by(self.tradeoff())

    def to_json(self) -> str:
        """The state as JSON text (``TypeError`` for a curve without a JSON form)."""
        return dumps(self.state_dict())

    @classmethod
    def from_json(cls, text: str) -> Accountant:
        """An accountant from :meth:`to_json` text (``ValueError`` for bad JSON)."""
        check_str("text", text)
        try:
            state = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        if not isinstance(state, dict):  # JSON, but not an object: name the argument
            check_instance("text", text, dict, "the JSON text of an accountant state (an "
                           "object)")
        return cls.from_state_dict(state)

