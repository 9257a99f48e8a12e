r"""Privacy amplification by subsampling, and DP-SGD accounting.

Theory of operation
-------------------
For :math:`f = T(P, Q)` and a sampling rate :math:`p`, the one-sided Poisson curve is

.. math:: f_p = p f + (1-p)\,\mathrm{Id} = T\big(P,\ (1-p)P + pQ\big)

(DRS Sec. 4; Zhu, Dong, Wang 2022): a record that is left out (probability
:math:`1-p`) leaves the output law unchanged. Its privacy loss is a pushforward of the
base loss, :math:`L_p = \log(1 - p + p e^{L}) \ge \log(1-p)`, so every cell
:math:`(t_i, t_{i+1}]` of :math:`L_p` is the cell :math:`(u_i, u_{i+1}]` of :math:`L` with
:math:`u = \log(1 + (e^t - 1)/p)`, with P-mass :math:`P(\cdot)` and Q-mass
:math:`(1-p)P(\cdot) + pQ(\cdot)`. The profiles follow exactly from the base ones:

.. math::
    \delta_{f_p}(\varepsilon) = p\,\delta_f\big(\log(1 + (e^\varepsilon - 1)/p)\big),
    \qquad
    \delta_{f_p^{-1}}(\varepsilon) = (1 - (1-p)e^\varepsilon)\,
    \delta_{f^{-1}}\Big(\log\frac{p e^\varepsilon}{1 - (1-p)e^\varepsilon}\Big),

(the first for :math:`e^\varepsilon > 1-p`, else :math:`1 - e^\varepsilon`; the second
for :math:`(1-p)e^\varepsilon < 1`, else 0).

With add/remove neighbours the two orders of a neighbouring pair give :math:`f_p` and
:math:`f_p^{-1}`, so one step is :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}`-DP (largest
convex minorant; DRS Thm 4.2) and its profile is :math:`\max(\delta_{f_p},
\delta_{f_p^{-1}})`. For symmetric :math:`f` the minorant is :math:`f_p` up to the point
:math:`x^*` where its slope is :math:`-1`, then the line of slope :math:`-1` to
:math:`(f_p(x^*), x^*)`, then :math:`f_p^{-1}` (DRS Sec. 4; it follows from the
symmetry of the hull, whose slope is :math:`-1` where it crosses the diagonal).

DP-SGD with noise multiplier :math:`\sigma` is the Poisson-subsampled Gaussian,
:math:`P = N(0,1)`, :math:`Q_p = (1-p)N(0,1) + pN(1/\sigma, 1)`. Over :math:`T` steps the
tight guarantee composes each order separately and symmetrises only at the end,
:math:`\min\{f_p^{\otimes T}, (f_p^{-1})^{\otimes T}\}^{**}` (MATH.md §6); composing
:math:`C_p(f)` instead is valid but loose. :func:`dpsgd` does the tight thing with the
numeric engine of :mod:`gdp.engine` (both sides of the bracket available).

References
----------
DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022, Sec. 4, Thm 4.2.
ZDW: Zhu, Dong, Wang, "Optimal Accounting of Differential Privacy via Characteristic
Function", AISTATS 2022. BDLS: Bu, Dong, Long, Su, "Deep Learning with Gaussian
Differential Privacy", HDSR 2020.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._numerics import EPS, find_root_bracket, float_or_array, lower_by, raise_by
from .._validation import as_real_array, check_instance, check_real
from ..core.tradeoff import Inverse, TradeOff
from ..engine.laws import InverseLaw, Law, _OfBaseLaw, law_of

__all__ = ["SubsampledLaw", "PoissonSubsampled", "poisson_subsample", "Subsampled", "subsample"]



def _check_p(p: Any) -> float:
    return check_real("p", p, lo=0.0, hi=1.0, lo_open=True)


def _base_eps(eps: np.ndarray, p: float) -> np.ndarray:
    """u = log(1 + (e^eps - 1)/p), -inf where e^eps <= 1 - p; above 700, where e^eps
    overflows, as eps - log p + log1p(-(1 - p) e^-eps) (the same value, without the
    overflow that sent every cell beyond to the base law's +inf)."""
    eps = np.asarray(eps, dtype=float)
    with np.errstate(all="ignore"):
        u = np.expm1(eps, out=np.empty(eps.shape))  # (in place from here: fresh pages cost)
        u /= p
        none = ~(u > -1.0)
        np.log1p(np.maximum(u, -1.0, out=u), out=u)
        u[none] = -np.inf
        big = (eps > 700.0) & np.isfinite(eps)
        if np.any(big):  # (a few entries: the formula on those alone)
            e, pb = eps[big], (p[big] if np.ndim(p) else p)
            u[big] = e - np.log(pb) + np.log1p(-(1.0 - pb) * np.exp(-e))
    u[np.isposinf(eps)] = np.inf
    return u


def _u_error(u: np.ndarray) -> np.ndarray:
    r"""A bound on the error of a finite u of :func:`_base_eps` (ϵ the machine epsilon):
    the argument :math:`y = (e^\varepsilon - 1)/p` of ``log1p`` carries a relative error
    of 1.5ϵ (``expm1`` and the quotient), an absolute error of at most
    :math:`1.5ϵ|y|/(1 + y) = 1.5ϵ|1 - e^{-u}|` in its logarithm (at most 1.5ϵ for u ≥ 0;
    below 0, where 1 + y cancels near the bottom of the support, :math:`1.5ϵ(e^{-u} - 1)`),
    and ``log1p`` rounds by :math:`ϵ|u|` (as do the three operations of the branch above
    ε = 700): charged as :math:`4ϵ(1 + |u| + e^{\max(-u, 0)} - 1)`."""
    with np.errstate(over="ignore"):
        return 4 * EPS * (1.0 + np.abs(u) + np.expm1(np.maximum(-u, 0.0)))


class SubsampledLaw(_OfBaseLaw):
    r"""Law of :math:`L_p = \log(1-p+pe^{L})` under :math:`(P, (1-p)P + pQ)`."""

    _TAG = "S"

    def __init__(self, base: Law, p: float):
        self.base = check_instance("base", base, Law, "a Law")
        self.p = _check_p(p)
        self.q_inf = p * base.q_inf
        self.p_ninf = 0.0

    def _map(self, u: np.ndarray) -> np.ndarray:
        """The loss L_p = log(1 - p + p e^u) of a base loss u (above 700, where e^u
        overflows, u + log p + log1p((1 - p) e^-u / p))."""
        p = self.p
        with np.errstate(all="ignore"):
            v = np.log1p(p * np.expm1(u))
            big = np.asarray(u) > 700.0
            if np.any(big):
                v = np.where(big, u + np.log(p) + np.log1p((1.0 - p) / p * np.exp(-u)), v)
            return np.where(np.isposinf(u), np.inf, v)

    @classmethod
    def _stack(cls, laws, seg):
        obj = cls._stack_bases(laws, seg)
        obj.p = np.array([law.p for law in laws])[seg]  # one per edge
        return obj

    def _value_key(self):
        k = self.base._value_key()
        return None if k is None or np.ndim(self.p) else ("S", self.p, k)

    def _cellwise(self):
        return np.ndim(self.p) == 0 and self.base._cellwise()

    def _pc(self) -> Any:
        """The sampling rate per cell (one per edge when stacked)."""
        return self.p[:-1] if np.ndim(self.p) else self.p

    def cells(self, edges):
        u = _base_eps(np.asarray(edges, dtype=float), self.p)
        P, Q, ep, eq = self.base.cells(u)
        p = self._pc()
        # edge positions are rounded (relative eps): charge a sliver of each cell
        qp = (1.0 - p) * P + p * Q
        e_q = (1.0 - p) * ep + p * eq + 4e-16 * qp
        return P, qp, ep + 4e-16 * P, e_q

    def excess(self, edges, refs):
        # Q_p - e^r P = p Q - (e^r - 1 + p) P = p (Q - e^{u(r)} P): the base's excess, scaled
        u = _base_eps(np.asarray(edges, dtype=float), self.p)
        p = self._pc()
        r = np.asarray(refs, dtype=float)
        ur = _base_eps(r, p)
        ok = np.isfinite(ur)
        ur[~ok] = 0.0
        P, Q, EP, EQ, Xb, EXb = self.base.excess(u, ur)
        # (in place where the arrays are this method's own: a fresh array's pages cost)
        pQ = np.multiply(Q, p)
        qp = np.multiply(P, 1.0 - p)
        qp += pQ
        e_q = np.multiply(EP, 1.0 - p)
        t = np.multiply(EQ, p)
        e_q += t
        e_q += np.multiply(qp, 4e-16, out=t)
        with np.errstate(all="ignore"):
            # e^r <= 1 - p: X = p Q + (1 - p - e^r) P, a sum of non-negative terms
            if np.ndim(p):
                low = np.where(p < 1, -np.expm1(r - np.log1p(-np.where(p < 1, p, 0.0))), 0.0)
            else:
                low = np.subtract(r, np.log1p(-(p if p < 1 else 0.0)), out=t)
                np.negative(np.expm1(low, out=low), out=low)
                if not p < 1:
                    low[...] = 0.0
            np.maximum(low, 0.0, out=low)
            low *= 1.0 - p
            low *= P
            low += pQ      # (x_low)
        X = np.multiply(Xb, p)
        X[~ok] = low[~ok]
        EX = np.multiply(EXb, p)
        EX[~ok] = e_q[~ok]
        np.abs(X, out=low)
        low *= 4 * EPS
        EX += low
        # the base excess is against u(r) rounded, within d (_u_error): p P (e^u(r) - e^u')
        # is within P (e^r - 1 + p) d (1 + 4d), taken as P e^r (1 + 1e-9) d (1 + 4d) above
        # r = 700 (where e^r overflows alone)
        d = _u_error(ur)
        with np.errstate(all="ignore"):
            sl = np.where(r > 700.0, np.exp(np.log(P) + r) * (1.0 + 1e-9),
                          P * (np.expm1(np.minimum(r, 700.0)) + p))
        sl *= d * (1.0 + 4.0 * d)
        EX += np.where(ok & np.isfinite(sl), np.abs(sl), np.where(ok, np.inf, 0.0))
        np.multiply(P, 4e-16, out=pQ)
        pQ += EP
        return P, qp, pQ, e_q, X, EX

    def atoms(self):
        u, pa, qa = self.base.atoms()
        p = self.p
        t = self._map(u)
        ua, pa2, qa2 = t, pa, (1.0 - p) * pa + p * qa
        if self.base.p_ninf > 0:
            ua = np.concatenate([ua, [math.log1p(-p)]])
            pa2 = np.concatenate([pa2, [self.base.p_ninf]])
            qa2 = np.concatenate([qa2, [(1.0 - p) * self.base.p_ninf]])
        return ua, pa2, qa2

    def plan_atoms(self, m=2048):
        # the base law's planning atoms pushed forward (fine where the loss is near its
        # floor, which a uniform grid of L_p would not resolve)
        b = self.base.plan_atoms(m)
        if b is None:
            return None
        u, pb, qb = b
        p = self.p
        ua, pa = self._map(u), pb
        qa = (1.0 - p) * pb + p * qb
        if self.base.p_ninf > 0:
            ua = np.concatenate([ua, [math.log1p(-p)]])
            pa = np.concatenate([pa, [self.base.p_ninf]])
            qa = np.concatenate([qa, [(1.0 - p) * self.base.p_ninf]])
        return ua, pa, qa

    def q_upper(self, tol):
        # Q_p[L_p > L_p(c)] = (1 - p) P[L > c] + p Q[L > c]: the base's Q-quantile at tol
        # (the end :meth:`quantiles` gives) bounds it by (p + e^-c) tol (P[L > c] <= e^-c
        # Q[L > c]), about 2 p tol where e^-c <= p; the larger of the base's Q-quantile at
        # tol / (2p) and its P-quantile at tol / 2 bounds it by tol itself, and for a
        # rarely sampled step is far lower (sigma = 0.73, p = 1.1e-6, tol = 7e-19: a loss of
        # 0.069 instead of 0.38); the lower of the two, below p = 1e-3 (above, the ends
        # differ little)
        qh = self.base.quantiles(tol)[1]
        if self.p < 1e-3:
            qh = min(qh, max(self.base.quantiles(min(0.5 * tol / self.p, 0.25))[1],
                             self.base.quantiles(0.5 * tol)[3]))
        return float(self._map(np.array([qh], dtype=float))[0])

    def quantiles(self, tol):
        ql, qh, pl, ph = self.base.quantiles(tol)
        m = self._map(np.array([min(ql, pl), qh, pl, ph], dtype=float))
        floor = math.log1p(-self.p) if self.p < 1 else -np.inf
        lo = max(float(m[0]), floor)
        return lo, float(m[1]), max(float(m[2]), floor), float(m[3])


@dataclass(frozen=True, slots=True)
class PoissonSubsampled(TradeOff):
    r"""The one-sided Poisson-subsampled curve :math:`f_p = pf + (1-p)\mathrm{Id}
    = T(P, (1-p)P + pQ)`; construct with :func:`poisson_subsample`.

    Its inverse :math:`f_p^{-1} = T((1-p)P + pQ, P)` is the other order of a neighbouring
    pair under add/remove neighbours, so the mechanism is :math:`\min\{f_p, f_p^{-1}\}`-DP:
    ``delta``/``epsilon`` answer with :math:`\max(\delta_{f_p}, \delta_{f_p^{-1}})`, the
    profile of :func:`subsample` (:attr:`~gdp.TradeOff.one_order`).
    """

    base: TradeOff
    p: float
    one_order: ClassVar[bool] = True  # delta/epsilon: max over both orders
    label_format: ClassVar[str] = "{{{self.base.label}}}_{{{self.p:g}}}"

    def __post_init__(self):
        check_instance("base", self.base, TradeOff, "a TradeOff")
        object.__setattr__(self, "p", _check_p(self.p))

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        return self.p * np.asarray(self.base._f(a)) + (1.0 - self.p) * (1.0 - a)

    def _one_minus_f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        return self.p * np.asarray(self.base._one_minus_f(a)) + (1.0 - self.p) * a

    def _hockey(self, eps):
        return self._sided(eps, 1.0)

    def _hockey_lower(self, eps):
        return self._sided(eps, -1.0)

    def _sided(self, eps: Any, side: float) -> np.ndarray | None:
        r""":math:`p\,\delta_f(u)` raised (``side = 1``) or lowered (-1) by its rounding
        bounds: u moved down (up) by :func:`_u_error` (the base's profile decreases in u),
        the base's upper profile (its ``_hockey``, an upper bound by contract) or lower one
        (``_hockey_lower``; None where the base has none), the product by :math:`p` moved
        by an ulp; below the support (:math:`e^\varepsilon \le 1 - p`)
        :math:`1 - e^\varepsilon` moved by an ulp."""
        eps = np.asarray(eps, dtype=float)
        u = _base_eps(eps, self.p)
        fin = np.isfinite(u)
        base = self.base._hockey if side > 0 else self.base._hockey_lower
        move = raise_by if side > 0 else lower_by
        out = np.empty(eps.shape)
        with np.errstate(all="ignore"):
            below = ~fin & np.isneginf(u)
            out[below] = move(-np.expm1(eps[below]), 1)
            rest = ~below
            if rest.any():
                ur = u[rest]
                ur = np.where(np.isfinite(ur), ur - side * _u_error(ur), ur)
                v = base(ur)
                if v is None:
                    return None
                out[rest] = move(self.p * np.asarray(v, dtype=float), 1)
        return np.clip(np.where(np.isnan(out), 1.0 if side > 0 else 0.0, out), 0.0, 1.0)

    def _loss_sf(self, t):
        u = _base_eps(np.asarray(t, dtype=float), self.p)
        with np.errstate(all="ignore"):
            v = np.asarray(self.base._loss_sf(np.where(np.isneginf(u), -1e300, u)))
        return np.where(np.isneginf(u), 1.0, v)

    def _loss_sf_q(self, t):
        u = _base_eps(np.asarray(t, dtype=float), self.p)
        uu = np.where(np.isneginf(u), -1e300, u)
        with np.errstate(all="ignore"):
            v = (1.0 - self.p) * np.asarray(self.base._loss_sf(uu)) + \
                self.p * np.asarray(self.base._loss_sf_q(uu))
        return np.where(np.isneginf(u), 1.0, v)

    def _atoms(self):
        at = self.base._atoms()
        if at is None:
            return None
        u, pa, qa = at
        law = SubsampledLaw(_AtomsOnly(u, pa, qa), self.p)
        ua, pp, qq = law.atoms()
        if law.q_inf > 0:
            ua = np.concatenate([ua, [np.inf]])
            pp = np.concatenate([pp, [0.0]])
            qq = np.concatenate([qq, [law.q_inf]])
        return ua, pp, qq

    def _pld_law(self) -> Law:
        return SubsampledLaw(law_of(self.base), self.p)

    def _inverse(self):
        return _InversePoissonSubsampled(self)


class _AtomsOnly(Law):
    def __init__(self, u, p, q):
        u = np.asarray(u, dtype=float)
        self.q_inf = float(np.asarray(q)[np.isposinf(u)].sum())
        self.p_ninf = float(np.asarray(p)[np.isneginf(u)].sum())
        fin = np.isfinite(u)
        self.u, self.p, self.q = u[fin], np.asarray(p)[fin], np.asarray(q)[fin]

    def atoms(self):
        return self.u, self.p, self.q


@dataclass(frozen=True, slots=True, eq=False)
class _InversePoissonSubsampled(Inverse):
    r""":math:`f_p^{-1} = T((1-p)P + pQ, P)` with its exact profile."""

    one_order: ClassVar[bool] = True

    def _hockey(self, eps):
        return self._sided(eps, 1.0)

    def _hockey_lower(self, eps):
        return self._sided(eps, -1.0)

    def _sided(self, eps: Any, side: float) -> np.ndarray | None:
        r""":math:`c\,\delta_{f^{-1}}(x)`, :math:`c = 1 - (1-p)e^\varepsilon`,
        :math:`x = \log p + \varepsilon - \log c`, raised (``side = 1``) or lowered (-1) by
        its rounding bounds (ϵ the machine epsilon): :math:`s = \varepsilon + \log(1-p)`
        within :math:`ϵ(|\log(1-p)| + |s|)`, which ``expm1`` passes to c relatively times
        :math:`e^s/c = (1 - c)/c` (plus 2ϵ of its own): c's relative error r; x within
        :math:`r + 2ϵ(|\log c| + |\log p| + |\varepsilon| + |x|)` (three roundings and the
        logarithms'); the base inverse's profile (decreasing in x) at x moved down (up) by
        that, upper (``_hockey``) or lower (``_hockey_lower``; None where the base has
        none), times :math:`c(1 \pm r)`, moved by two ulps."""
        fp: PoissonSubsampled = self.base  # type: ignore[assignment]
        p = fp.p
        eps = np.asarray(eps, dtype=float)
        with np.errstate(all="ignore"):
            if p < 1:
                lq = math.log1p(-p)
                s_ = eps + lq
                c = -np.expm1(s_)
                r = 2 * EPS + EPS * (abs(lq) + np.abs(s_)) * (1.0 - c) / c
            else:
                c, r = np.ones(eps.shape), np.zeros(eps.shape)
            x = np.log(p) + eps - np.log(c)
            dx = r + 2 * EPS * (np.abs(np.log(c)) + abs(math.log(p)) + np.abs(eps) +
                                np.abs(x))
        inv = fp.base.inverse()
        base = inv._hockey if side > 0 else inv._hockey_lower
        move = raise_by if side > 0 else lower_by
        pos = (c > 0) & np.isfinite(x) & np.isfinite(dx)
        out = np.zeros(eps.shape)
        if pos.any():
            v = base(x[pos] - side * dx[pos])
            if v is None:
                return None
            scale = c[pos] * np.maximum(1.0 + side * r[pos], 0.0)
            out[pos] = move(scale * np.asarray(v, dtype=float), 2)
        out = np.where(np.isposinf(eps), 0.0, out)
        return np.clip(np.where(np.isnan(out), 1.0 if side > 0 else 0.0, out), 0.0, 1.0)

    def _pld_law(self) -> Law:
        return InverseLaw(self.base._pld_law())  # type: ignore[attr-defined]


def poisson_subsample(f: TradeOff, p: float) -> TradeOff:
    r"""The one-sided Poisson-subsampled curve :math:`f_p = pf + (1-p)\,\mathrm{Id}` of the
    curve ``f`` of the mechanism run on the sample, at sampling rate ``p`` in (0, 1]
    (``p = 1`` returns ``f``): the arguments of :func:`subsample`.

    Notes
    -----
    :math:`f_p = T(P, (1-p)P + pQ)` for :math:`f = T(P,Q)` (ZDW); it is the curve of the
    "remove" order of add/remove neighbours, :math:`f_p^{-1}` that of the "add" order.
    A mechanism known to be :math:`f_p`-DP in both orders is :func:`subsample`-DP. Its
    ``delta`` and ``epsilon`` answer for the mechanism, both orders
    (:attr:`~gdp.TradeOff.one_order`): they equal those of :func:`subsample`.

    Examples
    --------
    >>> import gdp
    >>> fp = gdp.poisson_subsample(gdp.G_mu(1.0), 0.5)
    >>> round(fp(0.1), 6)
    0.755428
    """
    check_instance("f", f, TradeOff, "a TradeOff")
    p = _check_p(p)
    return f if p == 1.0 else PoissonSubsampled(base=f, p=p)


@dataclass(frozen=True, slots=True)
class Subsampled(TradeOff):
    r""":math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}` (DRS Thm 4.2); construct with
    :func:`subsample`. Symmetric; its profile is :math:`\max(\delta_{f_p},
    \delta_{f_p^{-1}})` exactly."""

    base: TradeOff
    p: float

    is_symmetric = True
    label_format: ClassVar[str] = "C_{{{self.p:g}}}({self.base.label})"

    def __post_init__(self):
        check_instance("base", self.base, TradeOff, "a TradeOff")
        object.__setattr__(self, "p", _check_p(self.p))

    @property
    def _fp(self) -> PoissonSubsampled:
        return PoissonSubsampled(base=self.base, p=self.p)

    def _hockey(self, eps):
        fp = self._fp
        return np.maximum(fp._hockey(eps), fp.inverse()._hockey(eps))

    def _hockey_lower(self, eps):
        fp = self._fp
        a, b = fp._hockey_lower(eps), fp.inverse()._hockey_lower(eps)
        return None if a is None or b is None else np.maximum(a, b)

    def _x_star(self) -> tuple[float, float]:
        """(x*, f_p(x*)): where the slope of f_p is -1 (P[L > 0] of the base)."""
        fp = self._fp
        x = float(np.asarray(fp._loss_sf(np.zeros(1)))[0])
        return x, float(np.asarray(fp._f(np.array([x])))[0])

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        fp = self._fp
        if self.base.is_symmetric:
            x, y = self._x_star()
            out = np.empty(a.shape)
            left = a <= x
            mid = (a > x) & (a <= y)
            right = a > y
            out[left] = fp._f(a[left])
            out[mid] = x + y - a[mid]
            if right.any():
                out[right] = fp.inverse()._f(a[right])
            return out
        # asymmetric base: sup over sampled slopes of the supporting lines (a lower value)
        e = np.concatenate([-np.geomspace(1e-6, 50, 300)[::-1], [0.0],
                            np.geomspace(1e-6, 50, 300)])
        d = self._hockey(e)
        return np.maximum(0.0, np.max(1.0 - d[None, :] - np.exp(e)[None, :] * a[:, None],
                                      axis=1))

    # the curve is exact: its bracket is the curve itself (same API as numeric results)
    @property
    def lower(self) -> TradeOff:
        """The curve itself (exact; see :class:`gdp.engine.Composition` for numeric ones)."""
        return self

    @property
    def upper(self) -> TradeOff:
        """The curve itself (exact)."""
        return self

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on δ(ε) (ε ≥ 0): the closed form's profile lowered and
        raised by its rounding bounds (the lower one 0 where the base curve has no lower
        profile, e.g. a curve known by its values); :meth:`delta` is the upper one."""
        e = as_real_array("eps", eps, lo=0.0, finite=False)
        hi = np.asarray(self.delta(e), dtype=float).reshape(-1)
        lo = self._lowered(e.reshape(-1))
        return float_or_array(np.minimum(lo, hi), e.shape), float_or_array(hi, e.shape)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on ε(δ): :meth:`epsilon`, and the lower end of the
        final root bracket of a bisection on the lowered profile (:meth:`delta_bounds`)."""
        hi = self.epsilon(delta)
        return _eps_lower(self._lowered, delta, hi), hi

    def _lowered(self, eps: np.ndarray) -> np.ndarray:
        """The profile's lower bound (0 where the base has none; NaN to 0)."""
        with np.errstate(all="ignore"):
            lo = self._hockey_lower(np.asarray(eps, dtype=float))
        if lo is None:
            return np.zeros(np.shape(eps))
        return np.clip(np.where(np.isnan(lo), 0.0, lo), 0.0, 1.0)

    def _pld_law(self) -> Law | None:
        if not self.base.is_symmetric:
            return None
        return _SymHullLaw(SubsampledLaw(law_of(self.base), self.p), self._x_star())


def _eps_lower(profile: Callable[[np.ndarray], np.ndarray], delta: Any, hi: Any) -> Any:
    """A lower bound on ε(δ) from a lower bound ``profile`` of the profile: the end of the
    final root bracket of ``profile(ε) = δ`` below ``hi`` (the sound ε) where it is still
    at least δ."""
    d, h = np.broadcast_arrays(np.asarray(delta, dtype=float), np.asarray(hi, dtype=float))
    out = np.where(np.isfinite(h), 0.0, np.inf)
    need = np.isfinite(h) & (h > 0)
    if need.any():
        dn, hn = d[need], h[need]

        def excess(e, target):
            return np.asarray(profile(np.asarray(e, dtype=float)), dtype=float) - target

        f0 = excess(np.zeros(dn.shape), dn)
        fh = excess(hn, dn)
        ok = (f0 > 0) & (fh <= 0)
        lo = np.where(fh > 0, hn, 0.0)  # no sign change: nothing below hi is certain
        if ok.any():
            xl, xr, fl, _ = find_root_bracket(excess, 0.0, hn[ok], args=(dn[ok],))
            lo[ok] = np.where(fl >= 0, xl, 0.0)
        out[need] = lo
    return float_or_array(out)


class _SymHullLaw(Law):
    """Law of C_p(f) for symmetric f: L_p on (0, inf), an atom at 0, -L_p (swapped) below."""

    def __init__(self, lp: Law, xy: tuple[float, float]):
        self.lp = lp
        self.inv = InverseLaw(lp)
        x, y = xy
        self.m0 = max(y - x, 0.0)
        self.q_inf = lp.q_inf
        self.p_ninf = lp.q_inf

    def cells(self, edges):
        # each half's cells clipped at 0: a cell on the other side of 0 is empty in it, its
        # masses exactly 0, and so are their errors (the half's own bounds for such a cell,
        # e.g. the inverse law's 5.6e-16 for [0, 0], became an error of e^t 5.6e-16 in the
        # excess above t: 1e-9 at t = 14.4, charged to +inf, a floor on δ for one step at
        # p = 1e-6 beside G_0.5)
        e = np.asarray(edges, dtype=float)
        P1, Q1, ep1, eq1 = self.lp.cells(np.maximum(e, 0.0))
        P2, Q2, ep2, eq2 = self.inv.cells(np.minimum(e, 0.0))
        upper, lower = e[:-1] >= 0.0, e[1:] <= 0.0  # (cells wholly above / below 0)
        P1, Q1, ep1, eq1 = (np.where(lower, 0.0, v) for v in (P1, Q1, ep1, eq1))
        P2, Q2, ep2, eq2 = (np.where(upper, 0.0, v) for v in (P2, Q2, ep2, eq2))
        return P1 + P2, Q1 + Q2, ep1 + ep2, eq1 + eq2

    def atoms(self):
        u1, p1, q1 = self.lp.atoms()
        u2, p2, q2 = self.inv.atoms()
        a, b = u1 > 0, u2 < 0
        return (np.concatenate([u1[a], [0.0], u2[b]]),
                np.concatenate([p1[a], [self.m0], p2[b]]),
                np.concatenate([q1[a], [self.m0], q2[b]]))

    def quantiles(self, tol):
        _, qh, _, ph = self.lp.quantiles(tol)
        return -ph, qh, -qh, ph

    def q_upper(self, tol):
        return self.lp.q_upper(tol)


def subsample(f: TradeOff, p: float) -> TradeOff:
    r"""Privacy amplification by subsampling: :math:`C_p(f) = \min\{f_p,
    f_p^{-1}\}^{**}` with :math:`f_p = pf + (1-p)\mathrm{Id}` (DRS Thm 4.2).

    Parameters
    ----------
    f : TradeOff
        The curve of the mechanism run on the subsample.
    p : float
        Sampling rate in (0, 1]; ``p = 1`` returns ``f``.

    Notes
    -----
    The profile is exact: :math:`\max(\delta_{f_p}, \delta_{f_p^{-1}})` from the base
    profile (module docstring). For symmetric ``f`` the curve is exact too (the hull is
    :math:`f_p`, a segment of slope :math:`-1`, then :math:`f_p^{-1}`); otherwise it is the
    supremum of supporting lines at 601 slopes (a lower, hence safe, value).

    Examples
    --------
    >>> import gdp
    >>> c = gdp.subsample(gdp.G_mu(1.0), 0.1)
    >>> round(c.epsilon(1e-5), 4)
    1.6845
    """
    check_instance("f", f, TradeOff, "a TradeOff")
    p = _check_p(p)
    return f if p == 1.0 else Subsampled(base=f, p=p)
