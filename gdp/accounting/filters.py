r"""Privacy filters and odometers for fully adaptive composition of Gaussian-DP mechanisms.

Theory of operation
-------------------
In *fully adaptive* composition the analyst chooses each mechanism **and its privacy
parameter** after seeing the previous outputs. A *filter* with budget μ accepts the next
mechanism only while the spent budget stays within μ; a *privacy odometer* reports what has
been spent so far (Rogers, Roth, Ullman, Vadhan 2016).

For Gaussian DP the filter is as good as non-adaptive composition: if every accepted
mechanism is :math:`\mu_i`-GDP (with :math:`\mu_i` chosen adaptively) and
:math:`\sum_i \mu_i^2 \le \mu^2` on every run of the interaction, the whole interaction is
μ-GDP (Smith, Thakurta 2022, arXiv 2210.17520). :class:`GaussianFilter` enforces exactly
that: a mechanism whose :math:`\mu_i` would make :math:`\sum\mu_i^2` exceed :math:`\mu^2`
is refused with :class:`BudgetExceeded`, and nothing is recorded. A refusal depends only
on the μ's the analyst has chosen (functions of outputs already released), so the analyst
may continue with a smaller one.

**What may enter.** Only mechanisms with a *certified* :math:`\mu_i`: a Gaussian mechanism
(:math:`G_{\Delta/\sigma}`, exact), a composition of them, or any mechanism through a μ
that provably dominates its curve (:math:`f \ge G_{\mu_i}`), which :func:`gdp.risk.
certified_mu` checks soundly (closed form for :math:`G_\mu`; exactly at the vertices of
piecewise-linear curves such as :math:`f_{\varepsilon,0}` or an exact atomic composition;
through a piecewise-linear lower bound for curves whose profile reaches 0, e.g. Laplace).
Mechanisms with :math:`f(0) < 1` (any :math:`\delta > 0` at :math:`\varepsilon = \infty`,
such as :math:`f_{\varepsilon,\delta}`) are not μ-GDP for any μ and are refused. The
natural filter for general f-DP — compose the curves of the mechanisms accepted so far and
stop when a target curve would be crossed — is **invalid** under full adaptivity (Honkela,
Koskela, Tran, Räisä 2026, arXiv 2602.06756): only the GDP parameter may be spent
adaptively here, never a raw curve.

**Odometer.** :class:`GaussianOdometer` never refuses; it records :math:`\sum\mu_i^2`. An
odometer's running value is not by itself a privacy guarantee at a data-dependent stopping
time (Rogers et al. 2016 show odometers must pay more than filters). What is certified:
for each level :math:`B` of a grid fixed *before* the interaction, the prefix of the
interaction up to the first mechanism that would take the spend above :math:`B` is the
interaction of a filter with budget B, hence B-GDP (:meth:`GaussianOdometer.prefix`).

Arithmetic: :math:`\sum\mu_i^2` is kept exactly (rational sums of the floats' squares), so
the budget test is exact and the order of admissions cannot change a decision; the μ
spent is reported rounded up.

References
----------
A. Smith, A. Thakurta, "Fully Adaptive Composition for Gaussian Differential Privacy",
arXiv 2210.17520, 2022. R. Rogers, A. Roth, J. Ullman, S. Vadhan, "Privacy Odometers and
Filters: Pay-as-you-Go Composition", NeurIPS 2016. J. Whitehouse, A. Ramdas, R. Rogers,
Z. S. Wu, "Fully-Adaptive Composition in Differential Privacy", ICML 2023.
A. Honkela, A. Koskela, L. Tran, O. Räisä, "f-Differential Privacy Filters: Validity and
Approximate Solutions", arXiv 2602.06756, 2026.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, and
:mod:`gdp.accounting.attack_risk`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import as_real_array, check_fields, check_real, check_str, real, text
from ..core.tradeoff import TradeOff
from ..families.gaussian import G_mu, Gaussian
from .attack_risk import certified_mu
from .budget import BudgetExceeded, make_budget

__all__ = ["Admission", "GaussianFilter", "GaussianOdometer"]

#: below it a Fraction converts to a float without overflow
_FLOAT_SAFE = Fraction(2) ** 1000


@dataclass(frozen=True, slots=True)
class Admission:
    """One accepted mechanism: its certified μ, the total spent after it, and a label."""

    mu: float
    spent: float
    label: str

    def __post_init__(self):
        check_fields(self, mu=real(lo=0.0), spent=real(lo=0.0, finite=False), label=text())


def _sqrt_near(x: Fraction) -> float:
    r""":math:`\sqrt x` within a few ulps for any ``x >= 0`` (``x`` itself may exceed the
    largest float: sums of squares of large μ); ``inf`` beyond the largest float."""
    if x < _FLOAT_SAFE:
        return math.sqrt(float(x))
    try:
        return float(math.isqrt(x.numerator // x.denominator))
    except OverflowError:
        return math.inf


def _sqrt_up(x: Fraction) -> float:
    """The smallest float whose square is at least ``x`` (to an ulp)."""
    r = _sqrt_near(x)
    while math.isfinite(r) and Fraction(r) ** 2 < x:
        r = math.nextafter(r, math.inf)
    return r


def _certify(mechanism: Any, mu: Any) -> tuple[float, str]:
    """The μ a mechanism enters with (see the module notes) and a label for the ledger."""
    if mechanism is None:
        if mu is None:
            raise TypeError("`mechanism` (a TradeOff, or an object with a `tradeoff`) or its "
                            "certified `mu` must be given; got mechanism=None, mu=None")
        return check_real("mu", mu, lo=0.0), "mu"
    curve = mechanism if isinstance(mechanism, TradeOff) else getattr(mechanism, "tradeoff",
                                                                      None)
    if not isinstance(curve, TradeOff):
        raise TypeError("`mechanism` must be a TradeOff or have a `tradeoff` attribute that is "
                        f"one; got mechanism={mechanism!r}")
    label = curve.label if curve is mechanism else type(mechanism).__name__
    if isinstance(curve, Gaussian):
        need = float(curve.mu)
    else:
        need = certified_mu(curve)
    if mu is None:
        if not math.isfinite(need):
            raise ValueError(f"the mechanism {label} is not certified mu-GDP for any finite mu "
                             "(f(0) < 1, or a curve gdp cannot bound by a Gaussian); only "
                             "certified mu-GDP mechanisms may enter a GDP filter")
        return need, label
    m = check_real("mu", mu, lo=0.0)
    if need > m:
        raise ValueError(f"`mu` must dominate the mechanism's curve: the smallest certified mu "
                         f"for {label} is {need!r}; got mu={m!r}")
    return m, label


class _Ledger:
    """The exact running sum of μ_i² and the list of admissions."""

    def __init__(self) -> None:
        self._sum = Fraction(0)
        self._entries: list[Admission] = []

    @property
    def spent(self) -> float:
        r"""μ spent so far, :math:`\sqrt{\sum\mu_i^2}`, rounded up."""
        return _sqrt_up(self._sum)

    @property
    def entries(self) -> tuple[Admission, ...]:
        """The accepted mechanisms, in order."""
        return tuple(self._entries)

    def tradeoff(self) -> TradeOff:
        r""":math:`G_{\mathrm{spent}}`: the curve of the mechanisms accepted so far."""
        return G_mu(self.spent)

    def _record(self, mu: float, label: str, new_sum: Fraction) -> Admission:
        self._sum = new_sum
        entry = Admission(mu=mu, spent=_sqrt_up(new_sum), label=label)
        self._entries.append(entry)
        return entry


class GaussianFilter(_Ledger):
    r"""A privacy filter for Gaussian DP: accepts adaptively chosen certified
    :math:`\mu_i`-GDP mechanisms while :math:`\sum_i\mu_i^2 \le \mu^2` (module notes).

    Parameters
    ----------
    mu : float
        The budget μ > 0 (``inf`` allowed: no limit, an odometer without levels).

    Examples
    --------
    >>> import gdp
    >>> flt = gdp.GaussianFilter(mu=1.25)
    >>> flt.admit(gdp.G_mu(0.75)).spent
    0.75
    >>> flt.admit(mu=1.0).spent  # sqrt(0.75^2 + 1^2): exactly the budget
    1.25
    >>> try:
    ...     flt.admit(mu=0.01)
    ... except gdp.BudgetExceeded as e:
    ...     print(str(e)[:51])
    admitting mu=0.01 would spend 1.25004 > budget 1.25
    >>> len(flt.entries), flt.remaining
    (2, 0.0)

    The test is exact in the floats given: 0.6 and 0.8 are not exactly 3/5 and 4/5, and
    :math:`0.6^2 + 0.8^2` exceeds 1 by 4e-17, so a filter with budget 1 refuses the second
    (never fooled by rounding in the other direction either).
    """

    def __init__(self, mu: float) -> None:
        super().__init__()
        self.budget = check_real("mu", mu, lo=0.0, lo_open=True, finite=False)
        self._budget_sq = None if math.isinf(self.budget) else Fraction(self.budget) ** 2

    def __repr__(self) -> str:
        return (f"GaussianFilter(budget={self.budget!r}, spent={self.spent!r}, "
                f"mechanisms={len(self._entries)})")

    @property
    def remaining(self) -> float:
        r"""The largest μ the next mechanism may have, :math:`\sqrt{\mu^2 - \sum\mu_i^2}`
        rounded down (``inf`` for an infinite budget)."""
        if self._budget_sq is None:
            return math.inf
        left = self._budget_sq - self._sum
        r = _sqrt_near(left)
        while r > 0 and Fraction(r) ** 2 > left:
            r = math.nextafter(r, 0.0)
        return r

    def can_admit(self, mechanism: Any = None, *, mu: float | None = None) -> bool:
        """Whether :meth:`admit` would accept (nothing is recorded)."""
        m, _ = _certify(mechanism, mu)
        return self._budget_sq is None or self._sum + Fraction(m) ** 2 <= self._budget_sq

    def admit(self, mechanism: Any = None, *, mu: float | None = None,
              label: str | None = None) -> Admission:
        """Accept a mechanism (or refuse it with :class:`BudgetExceeded`, recording nothing).

        Parameters
        ----------
        mechanism : TradeOff or mechanism, optional
            Its curve (or an object with ``tradeoff``, e.g. :class:`gdp.mechanisms.Gaussian`);
            it enters with its certified μ (:func:`gdp.risk.certified_mu`).
        mu : float, optional
            The μ to charge: alone, for a mechanism the caller knows to be μ-GDP (Gaussian
            noise of scale Δ/μ); with ``mechanism``, a μ at least its certified one.
        label : str, optional
            A name for the ledger.
        """
        m, name = _certify(mechanism, mu)
        name = name if label is None else check_str("label", label)
        new = self._sum + Fraction(m) ** 2
        if self._budget_sq is not None and new > self._budget_sq:
            raise BudgetExceeded(
                f"admitting mu={m:g} would spend {_sqrt_up(new):g} > budget {self.budget:g}; "
                f"refused, nothing recorded (spent {self.spent:g}, remaining "
                f"{self.remaining:g})", budget=make_budget(mu=self.budget),
                attempted=f"mu={m:g}")
        return self._record(m, name, new)


class GaussianOdometer(_Ledger):
    r"""A privacy odometer for Gaussian DP: records every certified :math:`\mu_i`-GDP
    mechanism and certifies, for each level of a grid fixed in advance, the prefix of the
    interaction within that level (module notes).

    Parameters
    ----------
    levels : array_like, optional
        Increasing positive budgets, fixed before the interaction (default
        :math:`0.01 \cdot 2^{k/4}`, k = 0..59, i.e. from 0.01 to about 270).

    Examples
    --------
    >>> import gdp
    >>> odo = gdp.GaussianOdometer(levels=[0.5, 1.0, 2.0])
    >>> for m in (0.3, 0.3, 0.5, 1.0):
    ...     _ = odo.admit(mu=m)
    >>> round(odo.spent, 4), odo.level
    (1.1958, 2.0)
    >>> odo.prefix(1.0)  # the first 3 mechanisms are 1.0-GDP
    3
    """

    def __init__(self, levels: Any = None) -> None:
        super().__init__()
        lv = (0.01 * 2.0 ** (np.arange(60) / 4.0) if levels is None
              else as_real_array("levels", levels, lo=0.0, lo_open=True).reshape(-1))
        if lv.size == 0 or np.any(np.diff(lv) <= 0):
            raise ValueError("`levels` must be a non-empty increasing sequence of positive "
                             f"budgets; got levels={lv.tolist()!r}")
        self.levels = tuple(float(x) for x in lv)

    def __repr__(self) -> str:
        return f"GaussianOdometer(spent={self.spent!r}, mechanisms={len(self._entries)})"

    def admit(self, mechanism: Any = None, *, mu: float | None = None,
              label: str | None = None) -> Admission:
        """Record a certified mechanism (as :meth:`GaussianFilter.admit`; never refuses)."""
        m, name = _certify(mechanism, mu)
        name = name if label is None else check_str("label", label)
        return self._record(m, name, self._sum + Fraction(m) ** 2)

    @property
    def level(self) -> float:
        """The smallest level at least the μ spent (``inf`` above the last level)."""
        for b in self.levels:
            if Fraction(b) ** 2 >= self._sum:
                return b
        return math.inf

    def prefix(self, level: float) -> int:
        r"""The number of leading mechanisms whose spend stays within ``level`` (one of the
        :attr:`levels`): that prefix of the interaction is ``level``-GDP (a filter with
        that budget would have accepted exactly these)."""
        b = check_real("level", level, lo=0.0, lo_open=True)
        if b not in self.levels:
            raise ValueError("`level` must be one of the levels fixed before the interaction "
                             f"(a level chosen after seeing the data is not certified); "
                             f"got level={b!r}")
        cap, total = Fraction(b) ** 2, Fraction(0)
        for n, e in enumerate(self._entries):
            total += Fraction(e.mu) ** 2
            if total > cap:
                return n
        return len(self._entries)
