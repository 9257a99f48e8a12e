r"""The exact privacy-loss law of one factor, in the form the lattice discretisation needs.

A :class:`Law` gives the P- and Q-masses of the continuous part on cells of losses (with
absolute error bounds), the finite atoms, the masses at :math:`\pm\infty`, the excess
:math:`Q_i - e^{r_i}P_i` of each cell over a reference loss, and rough quantiles for placing
windows. :func:`law_of` picks the closed form of a family (:class:`GaussianLaw`,
:class:`LaplaceLaw`), the exact atoms of a piecewise-linear curve (:class:`AtomicLaw`), the
mirror of a known law (:class:`InverseLaw`) or, failing all, the hooks of the curve
(:class:`GenericLaw`); a family may also provide its own through a ``_pld_law()`` method.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np
from scipy import special

from .._numerics import EPS, _two_sum
from .._validation import as_probability_array, as_real_array, check_instance, check_real
from ..core.piecewise import Identity
from ..core.tradeoff import Inverse, TradeOff
from ..families.gaussian import Gaussian
from ..families.laplace_tradeoff import Laplace

__all__ = [
    "Law", "norm_cells", "GaussianLaw", "LaplaceLaw", "AtomicLaw", "InverseLaw", "GenericLaw",
    "law_of",
]

# ---------------------------------------------------------------------------
# exact laws of the factors
# ---------------------------------------------------------------------------
class Law:
    r"""The exact privacy-loss law of one factor, as the discretisation needs it.

    ``cells(edges)`` returns the P- and Q-masses of the continuous part on the cells
    :math:`(e_i, e_{i+1}]` and absolute error bounds for each; ``atoms()`` the finite atoms
    ``(loss, p, q)``; ``q_inf`` / ``p_ninf`` the masses :math:`Q[L=+\infty]`,
    :math:`P[L=-\infty]`; ``quantiles(tol)`` approximate ends ``(q_lo, q_hi, p_lo, p_hi)``
    of the Q- and P-laws beyond which at most ``tol`` mass lies (used to place windows
    only: tails are charged soundly wherever the window ends). Families with a closed
    form provide a Law through a ``_pld_law()`` method.
    """

    q_inf: float = 0.0
    p_ninf: float = 0.0

    def cells(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray]:
        z = np.zeros(len(edges) - 1)
        return z, z, z, z

    def atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        e = np.zeros(0)
        return e, e, e

    def top_atom(self) -> tuple[float, float] | None:
        """``(loss, log Q-mass)`` of the atom at the top of the Q-law's support, for a law
        whose support ends at an atom with no Q-mass at +inf (purely atomic laws, the
        Laplace law, their inverses); None for any other."""
        return None

    def quantiles(self, tol: float) -> tuple[float, float, float, float]:
        raise NotImplementedError

    def _batch_key(self) -> tuple | None:
        """Structure key of laws that :meth:`_stack` can evaluate many at once (None: not
        batchable)."""
        return None

    def q_upper(self, tol: float) -> float:
        """A loss above which at most ``tol`` of the Q-mass lies (about), as low as the family
        can tell: the Q-upper end of :meth:`quantiles` unless a family knows better. For
        windows only, as :meth:`quantiles`."""
        return self.quantiles(tol)[1]

    def _cellwise(self) -> bool:
        """Whether :meth:`cells` and :meth:`excess` compute each cell from its own two edges
        (and reference) alone, with the same operations wherever the cell sits in the
        arrays: their values over a run of edges are then those over the whole, and the
        lattice may evaluate them in pieces (:func:`~gdp.engine.lattice._excess`)."""
        return False

    def _value_key(self) -> tuple | None:
        """A key equal for laws whose every method gives the same values (the same family
        and parameters); None where not known. The engine shares work between such laws,
        e.g. one order's planning atoms and the other's mirror of them."""
        return None

    @classmethod
    def _stack(cls, laws: list[Law], seg: np.ndarray) -> Law:
        """One law evaluating ``laws[seg[i]]`` at edge ``i`` (cells between consecutive
        edges of different laws are meaningless and ignored by the caller)."""
        raise NotImplementedError

    def plan_atoms(self, m: int = 2048) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A coarse garbling of the law for planning only (tilts, steps, windows): the
        cells of ``m`` cells between the quantiles at 1e-30 merged into atoms ``(loss, p,
        q)``, with the law's atoms. Never used for a bound. Where the P-law's and the
        Q-law's ranges lie apart by more than their widths together (a strong Gaussian:
        G_7906 put each bulk on six of 2,048 cells, and the tilt planned at δ = 1e-15 on
        the last atom), half the cells on each range, the gap one cell."""
        e = _plan_edges(*self.quantiles(1e-30), m)
        u, pp, qq = np.zeros(0), np.zeros(0), np.zeros(0)
        if e is not None:
            P, Q, _, _ = self.cells(e)
            u, pp, qq = _merged(e, P, Q)
        ua, pa, qa = self.atoms()
        return np.concatenate([u, ua]), np.concatenate([pp, pa]), np.concatenate([qq, qa])

    def excess(self, edges: np.ndarray, refs: np.ndarray) -> tuple[np.ndarray, ...]:
        r"""Cells with their excess :math:`X_i = Q_i - e^{r_i}P_i` over reference losses
        :math:`r_i`: returns ``(P, Q, EP, EQ, X, EX)`` (masses, their error bounds, the
        excess and its error bound). The default subtracts (cancellation); families that
        can do better override it."""
        P, Q, EP, EQ = self.cells(edges)
        return (P, Q, EP, EQ) + _excess_from(P, Q, EP, EQ, refs)


def _plan_edges(ql: float, qh: float, pl: float, ph: float, m: int) -> np.ndarray | None:
    """The ``m + 1`` edges of :meth:`Law.plan_atoms`'s cells from the Q- and P-quantiles:
    even over both ranges, or, where the two lie apart by more than their widths
    together, half the cells on each and the gap one cell; None without a finite range."""
    lo, hi = min(ql, pl), max(qh, ph)
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        return None
    if ql - ph > (qh - ql) + (ph - pl) and qh > ql and ph > pl and m >= 4:
        k = m // 2
        return np.concatenate([np.linspace(pl, ph, k + 1), np.linspace(ql, qh, m - k)])
    return np.linspace(lo, hi, m + 1)


def _merged(e: np.ndarray, P: np.ndarray, Q: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells (e_i, e_i+1] with masses P, Q merged into atoms (loss log Q/P, in the cell)."""
    with np.errstate(all="ignore"):
        u = np.where((P > 0) & (Q > 0), np.log(Q) - np.log(P), 0.5 * (e[:-1] + e[1:]))
    u = np.clip(u, e[:-1], e[1:])
    keep = (P > 0) | (Q > 0)
    return u[keep], P[keep], Q[keep]


def norm_cells(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Standard normal masses of the cells (z_i, z_{i+1}] and absolute error bounds.

    Differences are taken on the side of the shorter tail, so there is no cancellation
    against 1; each tail comes from :func:`_gauss_tail`, within :math:`12u` relative (u the
    unit roundoff), and the difference of two tails adds a few ulps of the mass.
    """
    return _norm_cells(as_real_array("z", z, finite=False, max_ndim=1, min_size=2))


_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327  # (the normal density's constant, GaussianLaw.cells)
_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitting constant


def _gauss_tail(a: np.ndarray, overwrite: bool = False, ratios: np.ndarray | None = None
                ) -> np.ndarray:
    r""":math:`\Phi(-a)` for ``a >= 0``, within :math:`12u` relative and 5e-324 absolute.

    ``scipy.special.ndtr`` loses up to :math:`u(a^2 + 5)` relative in the tails (measured:
    1,000 ulps at a = 37): it rounds :math:`a/\sqrt2` and its ``erfc`` rounds
    :math:`x^2` inside :math:`e^{-x^2}`. Here, for :math:`a \ge 1`,
    :math:`\Phi(-a) = \tfrac12 \operatorname{erfcx}(a/\sqrt2)\, e^{-a^2/2}` with
    :math:`a^2 = p + e` exact (Dekker's product) and :math:`e^{-e/2} = 1 - e/2` to
    :math:`u^2`: ``erfcx`` is insensitive to its argument's rounding (its logarithmic
    derivative times the argument is at most 1: u/2), ``exp`` is given the exact
    :math:`-p/2`. The sum of the parts: ``erfcx`` (at most 3.1u against 40-digit mpmath on
    16,000 points of [0.7, 28]), the argument (0.5u), ``exp`` (0.6u measured, 1u charged)
    and three products (1.5u): at most 6.1u, charged twice. Below 1, ``ndtr`` itself: its
    error, at most :math:`u(a\varphi(a)/\Phi(-a) + 4) \le 5.6u` there. Above 40 the
    tail is below the smallest subnormal: 0 (a mass beyond 40 standard deviations is taken
    as 0, as any double computation of it does). A subnormal tail (a > 37.5) is off by
    half the smallest subnormal at most besides. Measured in all: at most 3.4u relative on
    24,000 points of [0, 37.5].

    ``overwrite``: ``a`` may serve as scratch space. The work is done in place, in four
    arrays besides ``a``: a fresh array's pages can cost more than the arithmetic on them
    (a page fault each; about 3 µs per 4 KiB measured on a 2-core VM). ``ratios``: an array
    of ``a``'s size that receives :math:`\operatorname{erfcx}(\min(a, 40)/\sqrt2)` (the
    hazard function there is :math:`\sqrt{2/\pi}` over it: :func:`_narrow_cells`).
    """
    # (over every entry; below 1 the few entries are redone by ``ndtr``; at 40 and beyond,
    # and for NaN, b = 40, where exp(-800) underflows to 0)
    small = np.flatnonzero(a < 1.0)
    head = special.ndtr(-a[small])
    b = np.fmin(a, 40.0, out=a if overwrite else None)
    out = b * _SQRT1_2
    special.erfcx(out, out=out)
    if ratios is not None:
        ratios[...] = out
    p, e = _exact_square(b, overwrite=True)
    out *= 0.5
    p *= -0.5
    with np.errstate(under="ignore"):
        out *= np.exp(p, out=p)
    e *= -0.5
    e += 1.0
    out *= e
    out[small] = head
    return out


def _exact_square(b: np.ndarray, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with :math:`b^2 = p + e` exactly, ``p`` the rounded square (Dekker's
    product; no overflow for ``|b| < 1e150``); ``overwrite``: ``p`` is written into ``b``."""
    bh = b * _SPLIT
    bl = bh - b
    bh -= bl
    np.subtract(b, bh, out=bl)
    e = bh * bh
    p = np.multiply(b, b, out=b if overwrite else None)
    e -= p
    bh *= 2.0
    bh *= bl
    e += bh
    bl *= bl
    e += bl
    return p, e


def _log_gauss_tail(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r""":math:`\log\Phi(-a) = L - p/2 - e/2` for ``a >= 1`` as its parts ``(L, p, e)``:
    :math:`L = \log(\tfrac12\operatorname{erfcx}(a/\sqrt2))`, within :math:`8u + u|L|`
    (``erfcx`` within 6.2u as charged by :func:`_gauss_tail`, the halving exact, ``log``
    within u of its value), and :math:`a^2 = p + e` exactly (:func:`_exact_square`). The
    large part :math:`p/2` is exact and left to the caller, who subtracts it from a
    number of its size without rounding more than the difference (the excess of a
    Gaussian cell: :meth:`GaussianLaw.excess`). ``a = inf``: ``(-inf, inf, 0)``."""
    fin = np.isfinite(a)
    b = np.where(fin, a, 1.0)
    with np.errstate(divide="ignore"):
        L = np.where(fin, np.log(0.5 * special.erfcx(b * _SQRT1_2)), -np.inf)
    p, e = _exact_square(b)
    return L, np.where(fin, p, np.inf), np.where(fin, e, 0.0)


def _norm_cells(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`norm_cells` of ascending edges already checked: one pass of
    :func:`_gauss_tail` at :math:`|z|` gives the upper tail at every edge from 0 up and the
    lower tail below 0; only the edge above a cell that straddles 0 needs its lower tail
    besides (``ndtr`` at z >= 0: within 4.3u, the bound of :func:`_gauss_tail` holds)."""
    narrow = _NARROW.get()
    ex = np.empty(z.shape) if narrow else None
    t = _gauss_tail(np.abs(z), overwrite=True, ratios=ex)  # the shorter tail at each edge
    t0, t1 = t[:-1], t[1:]
    up = z[:-1] >= 0
    # a cell below 0 takes lower tails, t1 - t0, the exact negative of t0 - t1; a cell
    # that straddles 0 takes the lower tail at its upper edge, c1 - t0
    mass = t0 - t1
    np.negative(mass, out=mass, where=~up)
    tot = t0 + t1
    cross = np.flatnonzero(~up & (z[1:] >= 0))
    if cross.size:
        c1 = special.ndtr(z[1:][cross])
        mass[cross] = c1 - t0[cross]
        tot[cross] = c1 + t0[cross]
    tot *= 12.0 * EPS
    err = np.abs(mass)
    err *= 4.0 * EPS
    err += tot
    # (a subnormal tail is off by half the smallest subnormal besides; one that underflows
    # to 0, beyond 38.5 deviations, is below 1.3e-324 and charged nothing: a P-mass missed
    # there only raises the cell's excess Q - e^t P, which sends its split up, the safe
    # side, where an absolute charge, multiplied by e^t, would void the cell)
    tiny = (t > 0.0) & (t < 2.3e-308)
    if tiny.any():
        sub = np.where(tiny, 5e-324, 0.0)
        err += sub[:-1]
        err += sub[1:]
    if narrow:
        _narrow_cells(z, t, ex, mass, err)
    return np.maximum(mass, 0.0, out=mass), err


# (whether normal cells are computed by :func:`_narrow_cells` too: only for the other side's
# lattices of one law at a time, where their error bounds become a loss shift that a
# composition multiplies by its number of factors, at +2% to +7% of a DP-SGD bracket's time;
# on the sound side each cell keeps its own error and the answers did not move, at +15% to
# +45% of the time; the batched lattices of long mixed lists gained nothing, at +12%)
_NARROW: ContextVar[bool] = ContextVar("gdp_narrow_cells", default=False)


@contextlib.contextmanager
def narrow_cells() -> Iterator[None]:
    """Within the block, normal cell masses (:func:`norm_cells`) of cells whose two tails
    nearly cancel come from the hazard function where that bounds them better
    (:func:`_narrow_cells`): the other side's lattices of one law ask for it
    (:func:`~gdp.engine.lattice._disc_opt`)."""
    token = _NARROW.set(True)
    try:
        yield
    finally:
        _NARROW.reset(token)


_SQRT_2_OVER_PI = 0.7978845608028654
_NARROW_REL = 64.0 * EPS  # (the bound of a narrow cell's mass below, its rounding part)


def _narrow_cells(z: np.ndarray, t: np.ndarray, ex: np.ndarray, mass: np.ndarray,
                  err: np.ndarray) -> None:
    r"""Cells on one side of 0 whose two tails nearly cancel, in place: their masses from
    the hazard function where that bounds them better (``t``, ``ex``: the tails at the
    edges and :math:`\operatorname{erfcx}(|z|/\sqrt2)` there, :func:`_gauss_tail`).

    A cell :math:`(z_0, z_1]` on one side of 0 has, with :math:`\ell \le u` the absolute
    values of its edges (:math:`\ell = z_0` above 0, :math:`-z_1` below),
    :math:`M = \bar\Phi(\ell)(1 - e^{-I})`, :math:`I = \int_\ell^u h`, where
    :math:`h = \varphi/\bar\Phi = \sqrt{2/\pi}/\operatorname{erfcx}(z/\sqrt2)` is the
    hazard function. The difference of the two tails, each within 12u of itself, errs by
    :math:`24u\bar\Phi(\ell)`, about :math:`24u/I` of M: 1e-10 of the mass of a cell
    1e-6 wide in the tail of a fine lattice, which the other side charges to every factor
    of a composition of millions. Here :math:`I \approx \Delta(h(\ell) + h(u))/2`
    (trapezoid rule, :math:`\Delta = u - \ell`), whose error is at most
    :math:`\Delta^3 \sup|h''|/12`. With :math:`0 < h' < 1` (Sampford, Ann. Math. Statist.
    24, 1953) and the identity :math:`h' = h(h - z)`: :math:`h - z < 1/h \le 1/h(0) < 1.26`
    for z ≥ 0, and :math:`|h''| = |h'(h - z) + h(h' - 1)| \le (h - z) + h \le z + 2.51`,
    so the error is at most :math:`\Delta^3 (u + 2.51)/12`, relative to I
    (:math:`I \ge \Delta\max(\ell, h(0))`: h increases and :math:`h(z) > z`) at most
    :math:`q = \Delta^2(u + 2.51)/(12\max(\ell, 0.7978))`. Rounding: the tail at ℓ 12u;
    each h 16u (``erfcx`` 3.1u measured against mpmath, doubled, its argument's rounding
    u/2 at most, the constant and the quotient); the sum, Δ, the product and ``expm1`` u
    each; the last product u (:math:`Ie^{-I}/(1 - e^{-I}) \le 1` passes I's relative error
    to :math:`1 - e^{-I}` at most whole): 33u, charged as 64u, with the quadrature's q
    twice. Used cell by cell where that bound is below the difference's (edges finite and
    below 37, in ascending order, the tail at ℓ a normal number); the others keep theirs.
    Only within :func:`narrow_cells` (the other side's lattices of one law)."""
    z0, z1 = z[:-1], z[1:]
    with np.errstate(invalid="ignore"):
        one_side = ((z0 >= 0.0) | (z1 < 0.0)) & (np.abs(z0) < 37.0) & (np.abs(z1) < 37.0)
        cand = np.flatnonzero(one_side & (err > _NARROW_REL * mass))
    if not cand.size:
        return
    up = z0[cand] >= 0.0
    near = np.where(up, cand, cand + 1)   # the edge of the larger tail (|z| = lo)
    far = np.where(up, cand + 1, cand)
    lo, hi = np.abs(z[near]), np.abs(z[far])
    tn = t[near]
    d = hi - lo
    s = np.divide(_SQRT_2_OVER_PI, ex[near])
    s += _SQRT_2_OVER_PI / ex[far]
    s *= 0.5 * d                          # I by the trapezoid rule
    q = d * d * (hi + 2.51) / (12.0 * np.maximum(lo, 0.7978))
    with np.errstate(over="ignore", invalid="ignore"):
        new = tn * -np.expm1(-s)
        bound = new * (_NARROW_REL + 2.0 * q)
    better = (tn >= 2.3e-308) & (bound >= 0.0) & np.isfinite(bound) & (bound < err[cand])
    if better.any():
        k = cand[better]
        mass[k] = new[better]
        err[k] = bound[better]


def _excess_from(P: np.ndarray, Q: np.ndarray, EP: np.ndarray, EQ: np.ndarray,
                 refs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """X = Q - e^r P (by the log-ratio, exact sign) and its error bound."""
    refs = np.asarray(refs, dtype=float)
    pos = P > 0
    with np.errstate(all="ignore"):  # (in place, in four arrays: fresh pages cost)
        rp = np.log(P)
        rp += refs
        X = np.log(Q)
        np.subtract(rp, X, out=X)
        eR = np.exp(np.minimum(rp, 709.0, out=rp), out=rp)
        eR[~pos] = 0.0
        np.expm1(X, out=X)
        X *= Q
        np.negative(X, out=X)
        X[~pos] = Q[~pos]
        none = np.flatnonzero(~(Q > 0))
        X[none] = np.where(pos[none], -eR[none], 0.0)
        eP = np.log(EP)
        eP += refs
        np.exp(np.minimum(eP, 709.0, out=eP), out=eP)
        eP[~(EP > 0)] = 0.0
    eP += EQ
    eR += Q
    eR *= 4 * EPS
    eP += eR
    return X, eP


class _MuLaw(Law):
    """A law of one parameter ``mu > 0``; stacked, one ``mu`` per edge."""

    _KEY = ""

    def __init__(self, mu: float):
        self.mu = check_real("mu", mu, lo=0.0, lo_open=True)

    def _batch_key(self):
        return (self._KEY,)

    def _value_key(self):
        return (self._KEY, self.mu) if np.ndim(self.mu) == 0 else None

    @classmethod
    def _stack(cls, laws, seg):
        obj = cls.__new__(cls)
        obj.mu = np.array([law.mu for law in laws])[seg]  # one per edge
        return obj

    def _cellwise(self):
        return np.ndim(self.mu) == 0


class GaussianLaw(_MuLaw):
    r""":math:`G_\mu`: :math:`L \sim N(\mp\mu^2/2, \mu^2)` under P / Q."""

    _KEY = "G"

    def cells(self, edges):
        r"""Masses of the cells between ``edges`` (losses) under P and Q, with error
        bounds, both for one partition: the P-positions :math:`z = (t + \mu^2/2)/\mu`
        rounded once, the Q-positions their exact translates :math:`z - \mu` (the two
        computed apart rounded differently, which left the two masses of slightly
        different cells: up to 10 times a far-tail cell's error bound, and a relative
        :math:`\delta z/\Delta z` of a narrow one's, checked against 40-digit
        quadrature). :math:`z - \mu = s + e` exactly (TwoSum); the Q-tails are taken at s
        and moved to :math:`s + e` by :math:`\varphi(s)e`, whose remainder is at most
        :math:`e^2/2` times the largest :math:`|\varphi'(y)| = |y|\varphi(y)` within
        :math:`|e|` (< 1e-3) of s: below 0.25, and for :math:`|s| \ge 1.5`, where it
        falls, at most :math:`(|s| + 10^{-3})\varphi(|s| - 10^{-3}) \le (|s| + 10^{-3})
        \varphi(s)e^{10^{-3}|s|}`, below 1.05 times :math:`(|s| + 10^{-3})\varphi(s)` up to
        :math:`|s| = 48`, beyond which the density underflows (a far tail's bound falls with
        its mass; no double is charged beyond, as for the tails themselves); the
        correction's rounding (the density and the products, a few u: 4u) and the sum's
        (u of the mass) are charged besides."""
        m = self.mu
        with np.errstate(all="ignore"):
            zp = (edges + 0.5 * m * m) / m
        zq, e = _two_sum(zp, -m)
        P, ep = _norm_cells(zp)
        Q, eq = _norm_cells(zq)
        with np.errstate(all="ignore"):
            fin = np.isfinite(zq)
            g = np.where(fin, np.exp(-0.5 * zq * zq) * _INV_SQRT_2PI, 0.0)   # phi(s)
            d = g * e
            a = np.abs(zq)
            slope = np.where(a >= 1.5, (1.05 * (a + 1e-3)) * g, 0.25)
            rem = np.where(fin, 0.5 * e * e * slope, 0.0)
        Q += d[1:]
        Q -= d[:-1]
        eq += 4 * EPS * (np.abs(d[1:]) + np.abs(d[:-1])) + rem[1:] + rem[:-1]
        eq += 2 * EPS * np.abs(Q)
        return P, np.maximum(Q, 0.0, out=Q), ep, eq

    def excess(self, edges, refs):
        r""":meth:`Law.excess`, and where a cell's P-mass is below the normal range
        (beyond 37.5 deviations: subnormal, or 0) while its Q-mass is not, the excess from
        logarithms (:func:`_far_excess`): there :math:`e^{r}P` is of the order of Q for a
        reference r in the cell, which the subtraction of the rounded P cannot see (a
        loss of 5,000, :math:`G_{100}`, gave X = Q, and the other side's lattice dropped
        every cell)."""
        P, Q, EP, EQ = self.cells(edges)
        X, EX = _excess_from(P, Q, EP, EQ, refs)
        far = np.flatnonzero((P < _TINY) & (Q > 0.0))
        if far.size:
            m = self.mu
            with np.errstate(all="ignore"):
                zp = (edges + 0.5 * m * m) / m  # (the P-positions of :meth:`cells`)
            far = far[zp[far] >= 1.0]
        if far.size:
            r = np.broadcast_to(np.asarray(refs, dtype=float), Q.shape)[far]
            lo = np.broadcast_to(np.asarray(edges, dtype=float)[:-1], Q.shape)[far]
            X[far], EX[far] = _far_excess(zp[far], zp[far + 1], r, Q[far], EQ[far], lo)
        return P, Q, EP, EQ, X, EX

    def quantiles(self, tol):
        z = -float(special.ndtri(tol))
        m = self.mu
        return 0.5 * m * m - z * m, 0.5 * m * m + z * m, -0.5 * m * m - z * m, \
            -0.5 * m * m + z * m


_TINY = float(np.finfo(float).tiny)


def _far_excess(za: np.ndarray, zb: np.ndarray, r: np.ndarray, Q: np.ndarray,
                EQ: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The excess :math:`X = Q - e^{r}P` of Gaussian cells whose P-mass
    :math:`P = \Phi(-z_a) - \Phi(-z_b)` (P-positions :math:`1 \le z_a < z_b \le \infty`)
    is out of the doubles' normal range, and its error bound.

    :math:`\log(e^{r}P) = S + M` with :math:`S = r + \log\Phi(-z_a) = (r - p_a/2) - e_a/2
    + L_a` (:func:`_log_gauss_tail`; r and :math:`p_a/2` are of one size, their difference
    rounded once) and :math:`M = \log(1 - e^{D})`, :math:`D = (p_a - p_b)/2 + (e_a - e_b)/2
    + L_b - L_a`. Error bounds, u the unit roundoff (``EPS`` = 2u): S within
    :math:`2\,\mathrm{EPS}(|r - p_a/2| + |S| + |L_a| + 4)` (three roundings of at most
    u of their values, :math:`L_a` within 8u + u|L_a|, doubled); D within
    :math:`2\,\mathrm{EPS}(|p_a - p_b| + |L_a| + |L_b| + |D| + 8)`; M moves by at most
    :math:`\epsilon_D e^{D'}/(1 - e^{D'})`, :math:`D' = D + \epsilon_D` (the slope's
    largest value on the interval), plus the roundings of ``exp`` and ``log1p``. Then
    :math:`X = -Q\,\mathrm{expm1}(S + M - \log Q)`, whose error is Q's own
    (``EQ``), :math:`e^{S+M}(e^{\epsilon} - 1)` for the exponent's error ε (with the
    roundings of ``log Q`` and of the difference) and 4 EPS of X (``expm1`` and the
    product). A cell where :math:`D' \ge 0` (its two tails equal within the error) or an
    answer is not finite keeps what needs no P: :math:`0 \le e^{r}P \le e^{r - a}Q` (its
    losses are at least its lower edge ``a``), so X = Q with the error
    :math:`Q e^{(r - a)^+} + E_Q`."""
    La, pa, ea = _log_gauss_tail(za)
    Lb, pb, eb = _log_gauss_tail(zb)
    with np.errstate(all="ignore"):
        d0 = r - 0.5 * pa
        S = d0 - 0.5 * ea + La
        eS = 2 * EPS * (np.abs(d0) + np.abs(S) + np.abs(La) + 4.0)
        top = np.isinf(zb)
        dp = pa - pb
        D = np.where(top, -np.inf, 0.5 * dp + 0.5 * (ea - eb) + (Lb - La))
        eD = np.where(top, 0.0, 2 * EPS * (np.abs(dp) + np.abs(La) + np.abs(Lb) + np.abs(D)
                                           + 8.0))
        D1 = D + eD
        ok = D1 < 0.0
        M = np.log1p(-np.exp(D))
        eM = np.where(top, 0.0, (eD + EPS) * np.exp(D1) / -np.expm1(D1)) + EPS * np.abs(M)
        rp = S + M
        lq = np.log(Q)
        y = rp - lq
        err = eS + eM + EPS * (np.abs(rp) + np.abs(lq) + np.abs(y))
        X = -Q * np.expm1(y)
        EX = EQ + np.exp(rp) * np.expm1(err) * (1.0 + 4 * EPS) + 4 * EPS * np.abs(X)
    good = ok & np.isfinite(X) & np.isfinite(EX)
    with np.errstate(over="ignore"):
        whole = Q * np.exp(np.maximum(r - a, 0.0)) + EQ
    return np.where(good, X, Q), np.where(good, EX, whole)


class LaplaceLaw(_MuLaw):
    r""":math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`: atoms at :math:`\mp\mu` and a
    density on :math:`(-\mu, \mu)` with :math:`P[L>t] = \tfrac12 e^{-(t+\mu)/2}` there."""

    _KEY = "L"

    def cells(self, edges):
        m = self.mu[:-1] if np.ndim(self.mu) else self.mu  # per cell
        a = np.clip(edges[:-1], -m, m)
        b = np.clip(edges[1:], -m, m)
        with np.errstate(all="ignore"):
            w = -np.expm1(-(b - a) / 2.0)
            P = 0.5 * np.exp(-(a + m) / 2.0) * w
            Q = 0.5 * np.exp((b - m) / 2.0) * w
        P = np.where(b > a, P, 0.0)
        Q = np.where(b > a, Q, 0.0)
        return P, Q, 8 * EPS * P, 8 * EPS * Q

    def atoms(self):
        m = self.mu
        em = 0.5 * math.exp(-m)
        return np.array([-m, m]), np.array([0.5, em]), np.array([em, 0.5])

    def top_atom(self):
        # (the density lies within (-mu, mu): the Q-mass 1/2 at mu tops the support)
        return (float(self.mu), math.log(0.5)) if np.ndim(self.mu) == 0 else None

    def quantiles(self, tol):
        return -self.mu, self.mu, -self.mu, self.mu


def _atom_arrays(u: Any, p: Any, q: Any, names: tuple[str, str, str] = ("loss", "p", "q")
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Atoms ``(u, p, q)`` as 1-D float arrays of one length after checks: losses real or
    infinite, P- and Q-masses probabilities; ``names`` name the three in messages."""
    nu, n_p, nq = names
    u = as_real_array(nu, u, finite=False, max_ndim=1)
    p = as_probability_array(n_p, p, max_ndim=1)
    q = as_probability_array(nq, q, max_ndim=1)
    if not u.size == p.size == q.size:
        raise ValueError(f"`{nu}`, `{n_p}` and `{nq}` must have one length; got {u.size}, "
                         f"{p.size} and {q.size}")
    return u, p, q


def _top_of(u: np.ndarray, q: np.ndarray) -> tuple[float, float] | None:
    """The atom of largest loss ``u`` (ascending) with Q-mass, as ``(loss, log Q-mass)``;
    None where no atom has Q-mass."""
    k = np.flatnonzero(q > 0)
    return None if k.size == 0 else (float(u[k[-1]]), math.log(float(q[k[-1]])))


class AtomicLaw(Law):
    """A purely atomic law (randomized response, exact curves, lattice laws)."""

    def __init__(self, u: np.ndarray, p: np.ndarray, q: np.ndarray):
        u, p, q = _atom_arrays(u, p, q, names=("u", "p", "q"))
        self.q_inf = float(q[np.isposinf(u)].sum())
        self.p_ninf = float(p[np.isneginf(u)].sum())
        fin = np.isfinite(u) & ((p > 0) | (q > 0))
        order = np.argsort(u[fin])
        self.u, self.p, self.q = u[fin][order], p[fin][order], q[fin][order]

    def atoms(self):
        return self.u, self.p, self.q

    def top_atom(self):
        return _top_of(self.u, self.q) if self.q_inf == 0.0 else None

    def _batch_key(self):
        return ("A",)

    @classmethod
    def _stack(cls, laws, seg):
        return Law()  # no continuous part: every cell is empty

    def plan_atoms(self, m=2048):
        return self.u, self.p, self.q

    def quantiles(self, tol):
        if self.u.size == 0:
            return 0.0, 0.0, 0.0, 0.0

        def ends(m: np.ndarray) -> tuple[float, float]:
            lo = np.cumsum(m)
            hi = np.cumsum(m[::-1])[::-1]
            i = np.flatnonzero(lo > tol)
            k = np.flatnonzero(hi > tol)
            return (float(self.u[i[0]]) if i.size else float(self.u[0]),
                    float(self.u[k[-1]]) if k.size else float(self.u[-1]))

        ql, qh = ends(self.q)
        pl, ph = ends(self.p)
        return ql, qh, pl, ph


class _OfBaseLaw(Law):
    """A law computed from the law ``self.base``: batched when its bases are."""

    _TAG = ""

    def _batch_key(self):
        k = self.base._batch_key()
        return None if k is None else (self._TAG, k)

    def _cellwise(self):
        return self.base._cellwise()

    @classmethod
    def _stack_bases(cls, laws, seg):
        """An empty law of this class over the stacked bases (``seg`` as the bases see it)."""
        bases = [law.base for law in laws]
        obj = cls.__new__(cls)
        obj.base = type(bases[0])._stack(bases, seg)
        obj.q_inf = obj.p_ninf = 0.0
        return obj


class InverseLaw(_OfBaseLaw):
    r"""The law of :math:`f^{-1} = T(Q, P)`: :math:`L' = -L` with P and Q swapped."""

    def __init__(self, base: Law):
        self.base = check_instance("base", base, Law, "a Law")
        self.q_inf = base.p_ninf
        self.p_ninf = base.q_inf

    _TAG = "I"

    @classmethod
    def _stack(cls, laws, seg):
        # the base is evaluated on the mirrored edges: its laws in the mirrored order
        return cls._stack_bases(laws, seg[::-1])

    def cells(self, edges):
        P, Q, ep, eq = self.base.cells(-np.asarray(edges, dtype=float)[::-1])
        return Q[::-1], P[::-1], eq[::-1], ep[::-1]

    def atoms(self):
        u, p, q = self.base.atoms()
        return -u[::-1], q[::-1], p[::-1]

    def top_atom(self):
        # (a base whose atoms bound its support: the bottom one is the inverse's top)
        if not isinstance(self.base, (AtomicLaw, LaplaceLaw)) or self.q_inf != 0.0 or \
                self.base.top_atom() is None:
            return None
        u, _, q = self.atoms()
        return _top_of(u, q)

    def excess(self, edges, refs):
        # Q' - e^r P' = P - e^r Q = -e^r (Q - e^{-r} P) on the mirrored cells
        e = -np.asarray(edges, dtype=float)[::-1]
        r = np.asarray(refs, dtype=float)
        P, Q, EP, EQ, X, EX = self.base.excess(e, -r[::-1])
        with np.errstate(all="ignore"):
            f = np.exp(np.minimum(r, 709.0))
        return Q[::-1], P[::-1], EQ[::-1], EP[::-1], -f * X[::-1], f * EX[::-1]

    def _value_key(self):
        k = self.base._value_key()
        return None if k is None else ("I", k)

    def quantiles(self, tol):
        ql, qh, pl, ph = self.base.quantiles(tol)
        return -ph, -pl, -qh, -ql

    def plan_atoms(self, m=2048):
        b = self.base.plan_atoms(m)
        if b is None:
            return None
        u, p, q = b
        return -u, q, p


class GenericLaw(Law):
    """A factor known only through its hooks (``_hockey``, ``_f``, ``_loss_sf``)."""

    def plan_atoms(self, m=2048):
        return None  # planned from its lattice envelope (gdp.engine.numeric)

    def __init__(self, f: TradeOff):
        self.f = check_instance("f", f, TradeOff, "a TradeOff")
        with np.errstate(all="ignore"):
            self.q_inf = float(np.clip(np.asarray(f._one_minus_f(np.zeros(1)))[0], 0, 1))

    def quantiles(self, tol):
        f = self.f
        t = 1.0
        while t < 700.0:
            with np.errstate(all="ignore"):
                d = float(np.asarray(f._hockey(np.array([t])))[0])
            if not d > self.q_inf + tol / 2:
                break
            t *= 2.0
        hi = min(t + math.log(2.0), 700.0)
        s = -1.0
        floor = max(math.log(tol), -700.0)
        while s > floor:
            with np.errstate(all="ignore"):
                sq = float(np.asarray(f._loss_sf_q(np.array([s])))[0])
            if 1.0 - sq <= tol:
                break
            s *= 2.0
        lo = max(s, floor)
        return lo, hi, lo - 1.0, hi


def law_of(f: TradeOff) -> Law:
    """The :class:`Law` of a trade-off function (closed forms first, hooks otherwise)."""
    check_instance("f", f, TradeOff, "a TradeOff")
    hook = getattr(f, "_pld_law", None)
    if hook is not None:
        law = hook()
        if law is not None:
            return law
    if isinstance(f, Gaussian) and 0.0 < f.mu < math.inf:
        return GaussianLaw(f.mu)
    if isinstance(f, Laplace) and 0.0 < f.mu < math.inf:
        return LaplaceLaw(f.mu)
    if isinstance(f, Identity):
        return AtomicLaw(np.array([0.0]), np.array([1.0]), np.array([1.0]))
    if isinstance(f, Inverse):
        base = law_of(f.base)
        if not isinstance(base, GenericLaw):
            return InverseLaw(base)
    at = f._atoms()
    if at is not None:
        return AtomicLaw(*at)
    return GenericLaw(f)
