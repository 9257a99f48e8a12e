r"""Elastic sensitivity of counting and summing queries with joins (Johnson, Near, Song 2018).

Theory of operation
-------------------
A query is a relational plan over base tables: :class:`Table` (one *protected* table whose
rows belong to individuals, or a *public* table that every neighbour shares),
:class:`Join` (an equi-join ``left.a = right.b``), :class:`Select` (a ``WHERE`` filter) and
:class:`Project` (a choice of columns). Neighbouring databases differ by the rows of one
protected individual, added or removed. The elastic-stability rules of the paper bound
how many rows of a relation change when one *row* of a protected table changes, at
distance :math:`k` (in rows) from the true database :math:`x`:

* max-frequency of a column :math:`a` (the largest number of rows sharing one value):
  :math:`mf_k(a, t, x) = mf(a, t, x) + k` for the protected table, :math:`mf(a, t)` for a
  public one (it never changes); :math:`mf_k(a_1, r_1 \bowtie_{a_2=a_3} r_2) =
  mf_k(a_1, r_1)\, mf_k(a_3, r_2)` for :math:`a_1` in :math:`r_1` (and symmetrically);
  selections and projections keep it;
* stability: :math:`\hat S_R^{(k)}(t) = 1` for the protected table, :math:`0` for a public
  one; for a join of relations with no protected table in common,
  :math:`\max(mf_k(a, r_1)\hat S_R^{(k)}(r_2),\ mf_k(b, r_2)\hat S_R^{(k)}(r_1))`; when both
  sides read the same protected table (a self-join) the bound is
  :math:`mf_k(a, r_1)\hat S_R^{(k)}(r_2) + mf_k(b, r_2)\hat S_R^{(k)}(r_1) +
  \hat S_R^{(k)}(r_1)\hat S_R^{(k)}(r_2)`; selections and projections keep it;
* elastic sensitivity of ``COUNT`` over :math:`r`: :math:`\hat S^{(k)} = \hat S_R^{(k)}(r)`;
  of a ``SUM`` of values clamped to :math:`[L, U]`: :math:`\max(|L|, |U|)\,\hat S_R^{(k)}(r)`.
  Joins, selections and projections are monotone, so adding rows only adds output rows:
  under add/remove neighbours a ``GROUP BY`` histogram changes by at most the same amount
  in :math:`\ell_1` (FLEX's factor 2 is for neighbours that *replace* a row).

Every quantity is a polynomial in :math:`k` with non-negative integer coefficients, or a
maximum of such polynomials (the join rule); :class:`MaxPoly` keeps them exactly.

*Individuals with several rows.* If an individual owns up to :math:`c` rows of the
protected table (the max-frequency of its key), a change of one individual is a path of
:math:`c` row changes, and the rows at individual-distance :math:`k` are at row-distance
at most :math:`ck`; since the bounds grow with :math:`k`,

.. math:: \hat S^{(k)}_{\mathrm{ind}}(x) = c\,\hat S^{(ck + c - 1)}(x)

bounds the local sensitivity at individual-distance :math:`k` and satisfies
:math:`\hat S^{(k)}_{\mathrm{ind}}(x) \le \hat S^{(k+1)}_{\mathrm{ind}}(y)` for
neighbours, so its smoothing is :math:`\beta`-smooth (for :math:`c = 1` it is the paper's
bound).

*Smoothing.* :math:`S = \max_{k\ge0} e^{-\beta k}\hat S^{(k)}_{\mathrm{ind}}` (the paper
stops at :math:`k = n`; taking every :math:`k` gives a larger, still smooth bound and
needs no :math:`n`). For a polynomial :math:`p` of degree :math:`d` with non-negative
coefficients, :math:`k p'(k) \le d\,p(k)`, so :math:`e^{-\beta k}p(k)` does not increase
for :math:`k \ge d/\beta` and the maximum over integers is attained at
:math:`k \le \lceil d/\beta\rceil` (the maximum of several polynomials is the maximum of
their maxima). :func:`smooth` scans those integers exactly up to :math:`10^6` and bounds
any farther stretch from above (:math:`e^{-\beta a}p(b)` on :math:`[a, b]`).

*Global sensitivity.* When every polynomial is constant the bound does not depend on the
data: it is a global sensitivity (e.g. a join of the protected table with a public one),
and any additive mechanism calibrated to it is private without smoothing.

References
----------
Johnson, Near, Song, "Towards Practical Differential Privacy for SQL Queries", PVLDB
11(5), 2018, Def. 5-7 and Sec. 3.4 (elastic stability, smoothing). Nissim, Raskhodnikova,
Smith, "Smooth Sensitivity and Sampling in Private Data Analysis", STOC 2007, Def. 2.1-2.2.

Imports: the ground floor only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import EPS
from .._validation import check_int, check_real

__all__ = ["MaxPoly", "Table", "Join", "Select", "Project", "ElasticBound", "max_frequency",
           "stability", "elastic_bound", "smooth"]

#: integers scanned exactly by :func:`smooth` before the tail is bounded interval-wise
_EXACT_SCAN = 1_000_000
#: ratio of consecutive interval ends beyond the exact scan
_TAIL_RATIO = 1e-4


# ---------------------------------------------------------------------------
# polynomials in k with non-negative integer coefficients, and their maxima
# ---------------------------------------------------------------------------
def _trim(p: tuple[int, ...]) -> tuple[int, ...]:
    p = tuple(p)
    while len(p) > 1 and p[-1] == 0:
        p = p[:-1]
    return p or (0,)


def _padd(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    n = max(len(p), len(q))
    return _trim(tuple((p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0)
                       for i in range(n)))


def _pmul(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return _trim(tuple(out))


def _pshift(p: tuple[int, ...], c: int, j: int) -> tuple[int, ...]:
    """The coefficients of :math:`k \\mapsto p(ck + j)` (Horner in polynomial arithmetic)."""
    out: tuple[int, ...] = (0,)
    for a in reversed(p):
        out = _padd(_pmul(out, (j, c)), (a,))
    return out


@dataclass(frozen=True, slots=True)
class MaxPoly:
    r"""The maximum of polynomials in :math:`k` with non-negative integer coefficients.

    ``polys`` holds coefficient tuples :math:`(a_0, a_1, \dots)`. Sums and products
    distribute over the maximum (every value is non-negative), so the class is closed
    under ``+``, ``*`` and :meth:`maximum`; :meth:`__call__` evaluates exactly in integers.

    Examples
    --------
    >>> from gdp.sql.elastic import MaxPoly
    >>> mf = MaxPoly.linear(3)               # mf + k with mf = 3
    >>> s = mf * MaxPoly.const(1) + mf * MaxPoly.const(1) + MaxPoly.const(1)
    >>> s, s(0), s(2)
    (MaxPoly(polys=((7, 2),)), 7, 11)
    """

    polys: tuple[tuple[int, ...], ...]

    @classmethod
    def const(cls, n: int) -> MaxPoly:
        """The constant :math:`n \\ge 0`."""
        return cls(((int(n),),))

    @classmethod
    def linear(cls, n: int) -> MaxPoly:
        """:math:`n + k` (a max-frequency at distance :math:`k`)."""
        return cls((_trim((int(n), 1)),))

    def __post_init__(self) -> None:
        polys = tuple(sorted(set(_trim(p) for p in self.polys)))
        if not polys or any(a < 0 for p in polys for a in p):
            raise ValueError(f"`polys` must be polynomials with non-negative coefficients; "
                             f"got polys={self.polys!r}")
        # drop polynomials dominated coefficient-wise by another one (exactness kept)
        keep = tuple(p for p in polys if not any(
            q != p and len(q) >= len(p) and all(q[i] >= p[i] for i in range(len(p)))
            for q in polys))
        object.__setattr__(self, "polys", keep)

    def __add__(self, other: MaxPoly) -> MaxPoly:
        return MaxPoly(tuple(_padd(p, q) for p in self.polys for q in other.polys))

    def __mul__(self, other: MaxPoly) -> MaxPoly:
        return MaxPoly(tuple(_pmul(p, q) for p in self.polys for q in other.polys))

    def maximum(self, other: MaxPoly) -> MaxPoly:
        """The pointwise maximum."""
        return MaxPoly(self.polys + other.polys)

    def shift(self, c: int, j: int) -> MaxPoly:
        """:math:`k \\mapsto` this at :math:`ck + j`."""
        return MaxPoly(tuple(_pshift(p, c, j) for p in self.polys))

    @property
    def degree(self) -> int:
        """The largest degree of the polynomials."""
        return max(len(p) - 1 for p in self.polys)

    @property
    def is_constant(self) -> bool:
        """True when no polynomial depends on :math:`k`."""
        return self.degree == 0

    def __call__(self, k: int) -> int:
        k = check_int("k", k, lo=0)
        best = 0
        for p in self.polys:
            v = 0
            for a in reversed(p):
                v = v * k + a
            best = max(best, v)
        return best


# ---------------------------------------------------------------------------
# relational plans
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Table:
    """A base table read under ``alias``.

    ``protected`` marks the table of the individuals; ``max_frequency`` maps the column
    names whose max-frequency the rules may need to their metric (declared or measured
    on the true database; for a public table, on the table itself).
    """

    name: str
    alias: str
    protected: bool
    max_frequency: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Join:
    """The equi-join ``left.left_key = right.right_key``; keys are ``(alias, column)``."""

    left: Any
    right: Any
    left_key: tuple[str, str]
    right_key: tuple[str, str]


@dataclass(frozen=True, slots=True)
class Select:
    """A selection (``WHERE``): stability and max-frequencies are unchanged."""

    relation: Any
    condition: str = ""


@dataclass(frozen=True, slots=True)
class Project:
    """A projection on some columns: stability and max-frequencies are unchanged."""

    relation: Any
    columns: tuple[tuple[str, str], ...] = ()


def _aliases(rel: Any) -> set[str]:
    if isinstance(rel, Table):
        return {rel.alias}
    if isinstance(rel, Join):
        return _aliases(rel.left) | _aliases(rel.right)
    return _aliases(rel.relation)


def _protected_tables(rel: Any) -> set[str]:
    if isinstance(rel, Table):
        return {rel.name} if rel.protected else set()
    if isinstance(rel, Join):
        return _protected_tables(rel.left) | _protected_tables(rel.right)
    return _protected_tables(rel.relation)


def max_frequency(column: tuple[str, str], rel: Any) -> MaxPoly:
    r""":math:`mf_k` of ``column = (alias, name)`` in the relation, as a polynomial in
    :math:`k` (row distance).

    Raises ``ValueError`` when the rules need a metric the table does not have.

    Examples
    --------
    >>> from gdp.sql.elastic import Table, Join, max_frequency
    >>> trips = Table("trips", "t", True, {"driver_id": 4})
    >>> drivers = Table("drivers", "d", False, {"id": 1, "city": 30})
    >>> max_frequency(("d", "city"), Join(trips, drivers, ("t", "driver_id"), ("d", "id")))
    MaxPoly(polys=((120, 30),))
    """
    alias, name = column
    if isinstance(rel, Table):
        if alias != rel.alias:
            raise ValueError(f"column {alias}.{name} is not in table {rel.name} AS {rel.alias}")
        if name not in rel.max_frequency:
            raise ValueError(f"no max-frequency metric for {rel.name}.{name}: declare it in "
                             "the schema (max_frequency) to use the column as a join key")
        mf = check_int(f"max_frequency of {rel.name}.{name}", rel.max_frequency[name], lo=0)
        return MaxPoly.linear(mf) if rel.protected else MaxPoly.const(mf)
    if isinstance(rel, Join):
        if alias in _aliases(rel.left):
            return max_frequency(column, rel.left) * max_frequency(rel.right_key, rel.right)
        return max_frequency(column, rel.right) * max_frequency(rel.left_key, rel.left)
    return max_frequency(column, rel.relation)


def stability(rel: Any) -> MaxPoly:
    r""":math:`\hat S_R^{(k)}` of the relation, as a polynomial in :math:`k` (row distance).

    Examples
    --------
    >>> from gdp.sql.elastic import Table, Join, stability
    >>> t1 = Table("trips", "t1", True, {"driver_id": 4})
    >>> t2 = Table("trips", "t2", True, {"driver_id": 4})
    >>> stability(Join(t1, t2, ("t1", "driver_id"), ("t2", "driver_id")))  # 2(4 + k) + 1
    MaxPoly(polys=((9, 2),))
    """
    if isinstance(rel, Table):
        return MaxPoly.const(1 if rel.protected else 0)
    if isinstance(rel, Join):
        s_left, s_right = stability(rel.left), stability(rel.right)
        zero = MaxPoly.const(0)
        # a key's max-frequency only matters against a side that can change (so a join
        # with a public table needs no metric for the protected side's key)
        mf_a_s = max_frequency(rel.left_key, rel.left) * s_right if s_right != zero else zero
        mf_b_s = max_frequency(rel.right_key, rel.right) * s_left if s_left != zero else zero
        if _protected_tables(rel.left) & _protected_tables(rel.right):  # self-join
            return mf_a_s + mf_b_s + s_left * s_right
        return mf_a_s.maximum(mf_b_s)
    if isinstance(rel, Select | Project):
        return stability(rel.relation)
    raise TypeError(f"`rel` must be a Table, Join, Select or Project; got {rel!r}")


# ---------------------------------------------------------------------------
# elastic sensitivity of an aggregate and its smoothing
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ElasticBound:
    r"""The elastic sensitivity :math:`\hat S^{(k)}_{\mathrm{ind}} = w\,c\,
    \hat S_R^{(ck+c-1)}` of one aggregate, as a function of the individual-distance
    :math:`k`.

    ``stability`` is :math:`\hat S_R` of the aggregated relation, ``weight`` :math:`w` the
    most one row can move the aggregate (1 for ``COUNT``, :math:`\max(|L|,|U|)` for a
    clamped ``SUM``) and ``rows_per_individual`` :math:`c`.
    """

    stability: MaxPoly
    weight: float = 1.0
    rows_per_individual: int = 1
    #: :math:`k \mapsto c\,\hat S_R^{(ck + c - 1)}` (before the weight)
    polynomial: MaxPoly = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "weight", check_real("weight", self.weight, lo=0.0))
        c = check_int("rows_per_individual", self.rows_per_individual, lo=1)
        object.__setattr__(self, "polynomial",
                           self.stability.shift(c, c - 1) * MaxPoly.const(c))

    def at(self, k: int) -> float:
        """:math:`\\hat S^{(k)}_{\\mathrm{ind}}` at individual-distance ``k`` (exact up to
        the final multiplication by the weight)."""
        return float(self.weight * self.polynomial(k))

    @property
    def is_global(self) -> bool:
        """True when the bound does not depend on :math:`k` (a global sensitivity)."""
        return self.polynomial.is_constant

    def smooth(self, beta: float) -> float:
        """:func:`smooth` of this bound."""
        return smooth(self, beta)


def elastic_bound(rel: Any, *, weight: float = 1.0, rows_per_individual: int = 1) -> ElasticBound:
    """The :class:`ElasticBound` of an aggregate over ``rel`` (see the module docstring).

    Examples
    --------
    >>> from gdp.sql.elastic import Table, Join, elastic_bound
    >>> t1 = Table("trips", "t1", True, {"driver_id": 4})
    >>> t2 = Table("trips", "t2", True, {"driver_id": 4})
    >>> b = elastic_bound(Join(t1, t2, ("t1", "driver_id"), ("t2", "driver_id")))
    >>> [b.at(k) for k in range(3)], b.is_global
    ([9.0, 11.0, 13.0], False)
    """
    return ElasticBound(stability(rel), weight=weight, rows_per_individual=rows_per_individual)


def _poly_values(p: tuple[int, ...], k: np.ndarray) -> np.ndarray:
    v = np.zeros_like(k, dtype=float)
    for a in reversed(p):
        v = v * k + float(a)
    return v


def smooth(bound: ElasticBound, beta: float) -> float:
    r"""The smoothed elastic sensitivity :math:`S = \max_{k\ge0} e^{-\beta k}\hat
    S^{(k)}_{\mathrm{ind}}`, rounded up.

    Notes
    -----
    Each polynomial of degree :math:`d` is scanned at the integers
    :math:`0..\min(\lceil d/\beta\rceil, 10^6)` (see the module docstring for why no
    larger :math:`k` can matter); a longer range is covered by intervals
    :math:`[a, b]` with ratio :math:`b/a = 1 + 10^{-4}`, each bounded above by
    :math:`e^{-\beta a}p(b)`. Error analysis: Horner's rule on non-negative terms has
    relative error at most :math:`2d u`, the exponential at most a few ulp and the two
    products one ulp each (:math:`u = 2^{-53}`); the result is multiplied by
    :math:`1 + (2d + 16)\,\epsilon_{\mathrm{mach}}`, more than their sum, so it is never
    below the exact maximum.

    Examples
    --------
    >>> from gdp.sql.elastic import Table, Join, elastic_bound, smooth
    >>> t1 = Table("trips", "t1", True, {"driver_id": 4})
    >>> t2 = Table("trips", "t2", True, {"driver_id": 4})
    >>> b = elastic_bound(Join(t1, t2, ("t1", "driver_id"), ("t2", "driver_id")))
    >>> round(smooth(b, 0.1), 4)     # max_k e^{-k/10} (9 + 2k), attained at k = 5
    11.525
    """
    beta = check_real("beta", beta, lo=0.0, lo_open=True)
    best = 0.0
    degree = 0
    for p in bound.polynomial.polys:
        d = len(p) - 1
        degree = max(degree, d)
        last = math.ceil(d / beta) if d else 0
        ks = np.arange(min(last, _EXACT_SCAN) + 1, dtype=float)
        with np.errstate(over="ignore"):
            best = max(best, float(np.max(np.exp(-beta * ks) * _poly_values(p, ks))))
        if last > _EXACT_SCAN:  # [a_i, a_{i+1}] with a_{i+1} = a_i (1 + 1e-4)
            n = math.ceil(math.log(last / _EXACT_SCAN) / math.log1p(_TAIL_RATIO)) + 1
            grid = _EXACT_SCAN * (1.0 + _TAIL_RATIO) ** np.arange(n + 1, dtype=float)
            with np.errstate(over="ignore", under="ignore"):
                tail = np.exp(-beta * grid[:-1]) * _poly_values(p, grid[1:])
            best = max(best, float(np.max(tail)))
    return bound.weight * best * (1.0 + (2 * degree + 16) * EPS)
