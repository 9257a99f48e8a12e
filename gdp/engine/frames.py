r"""The privacy profile of a composed frame, and its inversion, on either side.

A frame (:mod:`gdp.engine.fourier`) holds the composed lattice law of one order of the
neighbouring pair as tilted masses: the Q-mass at loss :math:`s_j` is :math:`c_j =
\tilde c_j e^{K - \lambda s_j}` with :math:`\tilde c` normalised and :math:`\lambda \ge 0`
the order's tilt. With :math:`g(x) = (1 - e^{-x})_+`, :math:`\varepsilon' = \varepsilon -
\sigma` (:math:`\sigma` the loss-shift allowance) and :math:`r` the relative allowance, the
sound profile is

.. math::
    \hat\delta(\varepsilon) = (1+r)\Big[\sum_j c_j\,g(s_j - \varepsilon') + q_\infty +
    m_{hi} + m_{lo}\,g(s_0 - \varepsilon')\Big] + (1+r)\,\tau e^{K} M_\lambda(\varepsilon'),
    \qquad M_\lambda(x) = \sup_s e^{-\lambda s} g(s - x) =
    e^{-\lambda x}\frac{\lambda^\lambda}{(1+\lambda)^{1+\lambda}}

(:math:`M_0 = 1`): :math:`m_{hi}, m_{lo}` bound the composed mass above and below the window
(Chernoff), and an :math:`\ell_1` error :math:`\tau` of the tilted masses changes the sum by at
most :math:`\tau e^K \max_s e^{-\lambda s} g(s - \varepsilon')`. Aliased mass only adds. On
the other side

.. math:: \check\delta(\varepsilon) = \Big((1-r)\Big[\sum_j c_j g(s_j - \varepsilon'') +
    q_\infty\Big] - \tau' e^K M_\lambda(\varepsilon'')\Big)_+,\qquad
    \varepsilon'' = \varepsilon + \sigma,

where :math:`\tau'` also holds the tilted mass outside the window (it may have wrapped into
it). Between consecutive :math:`s_j` the sum is :math:`A_j - e^{\varepsilon}B_j` with tail
sums :math:`A_j = \sum_{k\ge j} c_k`, :math:`B_j = \sum_{k \ge j} c_k e^{-s_k}` (kept in log
space, relative error at most :math:`\rho`, charged to the safe side). :math:`\hat\delta` is
non-increasing; :math:`\check\delta` is concave on each piece (a concave sum minus a convex
:math:`M_\lambda`), so the first lattice point where it is at most δ brackets the smallest
such ε. Each inversion bisects on that piece and keeps the end of the final bracket on its
side (the upper end for the sound ε, the lower end for the other).

Imports: the ground floor and :mod:`gdp.engine.curves` (the curve of an untilted frame).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._numerics import EPS, log1mexp
from .curves import LossCurve, _finish

__all__ = []

_BLOCK = 256


class _TailLogs:
    r""":math:`L_j = \log\sum_{k\ge j} e^{w_k}` for ``j = 0 … n`` (``L_n = -\infty``),
    indexed like an array (an index or an array of them). Kept either as the logs
    themselves or as scaled sums :math:`c_j = \sum_{k \ge j} e^{w_k - m}`, whose logs are
    taken only where asked (a frame's answers visit a few dozen of its points)."""

    __slots__ = ("_c", "_m", "_L")

    def __init__(self, c: np.ndarray | None, m: float, L: np.ndarray | None = None):
        self._c, self._m, self._L = c, m, L

    def __getitem__(self, j):
        if self._L is not None:
            return self._L[j]
        with np.errstate(divide="ignore"):
            return np.log(self._c[j]) + self._m

    def at(self, j: int) -> float:
        """``self[j]`` for one index, as a float (the same value: a scalar's log is the C
        library's in both)."""
        if self._L is not None:
            return float(self._L[j])
        c = float(self._c[j])
        return math.log(c) + self._m if c > 0.0 else -math.inf


def _log_tail_sums(lw: np.ndarray) -> tuple[_TailLogs, float]:
    r""":math:`L_j = \log\sum_{k \ge j} e^{w_k}` for log weights ``lw`` (``-inf`` allowed),
    in blocks (scaled sums, then the blocks combined in log space). Returns the sums and a
    bound on their relative error.

    A block whose finite weights span more than :math:`e^{600}` is summed in log space
    (``logaddexp`` from its end): scaled by its largest weight, the tail sums above that
    weight's place could underflow to 0 whole. A frame of a large tilt holds such blocks:
    its transforms' round-off, of the order of u of the tilted mass at every point, is
    :math:`e^{\lambda(t_{top} - t)}` times the true masses far below the top once untilted
    (allowed for by the frame's :math:`\ell_1` term), and the top's true masses vanished
    beside it (λ = 1.05e6 for 18 randomized responses at δ = 1e-10, a step 2.7e-5: the
    sound ε read 3.4e-5 below the truth). Each ``logaddexp`` errs by at most
    :math:`u(2|w| + 2)` in the logarithm, at most :math:`\mathrm{B}u(2w^* + 2)` relative
    over a block of B weights (:math:`w^*` the largest magnitude)."""
    n = lw.size
    rows = -(-n // _BLOCK)
    pad = np.full(rows * _BLOCK, -np.inf)
    pad[:n] = lw
    W = pad.reshape(rows, _BLOCK)
    m = np.max(W, axis=1)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(under="ignore"):
        e = np.exp(W - m[:, None])
    cs = np.cumsum(e[:, ::-1], axis=1)[:, ::-1]
    with np.errstate(divide="ignore"):
        lcs = np.log(cs) + m[:, None]
    fw = np.isfinite(W)
    lo = np.min(W, axis=1, where=fw, initial=np.inf)
    wide = np.flatnonzero(m - lo > 600.0)
    extra = 0.0
    if wide.size:
        lcs[wide] = np.logaddexp.accumulate(W[wide, ::-1], axis=1)[:, ::-1]
        wmax = float(np.max(np.abs(W[wide]), where=fw[wide], initial=0.0))
        extra = _BLOCK * (2.0 * wmax + 2.0)
    tot = lcs[:, 0]
    later = np.logaddexp.accumulate(tot[::-1])[::-1]
    carry = np.concatenate([later[1:], [-np.inf]])
    L = np.logaddexp(lcs, carry[:, None]).reshape(-1)[:n]
    fin = L[np.isfinite(L)]
    big = float(np.max(np.abs(fin))) if fin.size else 0.0
    return (_TailLogs(None, 0.0, np.concatenate([L, [-np.inf]])),
            EPS * (2.0 * _BLOCK + 2.0 * rows + 16.0 + 2.0 * big + extra))


def _tail_sums(lw: np.ndarray, scratch: np.ndarray | None = None
               ) -> tuple[_TailLogs, float]:
    r""":math:`\log\sum_{k\ge j} e^{w_k}` (``j = 0 … n``, the last ``-inf``) and a relative
    error bound: a scaled reverse cumulative sum when the weights span less than
    :math:`e^{600}` (terms below :math:`10^{-300}` of the largest may underflow: the bound
    includes them), else :func:`_log_tail_sums`. The sums do not increase with j, so the
    largest log in magnitude is the first or the last finite one. ``scratch``: an array of
    ``lw``'s size the scaled weights may be written to (a fresh one costs its pages)."""
    n = lw.size
    m = float(np.max(lw)) if n else -math.inf
    if not m < math.inf:  # (NaN or +inf: an invariant; no bound can be read off them)
        raise FloatingPointError("a composed frame holds NaN or infinite masses")
    if m == -math.inf:
        return _TailLogs(None, 0.0, np.full(n + 1, -np.inf)), 0.0
    lo = float(np.min(lw, where=np.isfinite(lw), initial=math.inf))
    if m - lo > 600.0:
        return _log_tail_sums(lw)
    c = np.zeros(n + 1)
    e = np.subtract(lw, m, out=scratch)
    with np.errstate(under="ignore"):
        np.cumsum(np.exp(e, out=e)[::-1], out=c[n - 1::-1])
    # (the positive sums come first: a sum of non-negative terms is positive where one is)
    last = n - 1 if c[n - 1] > 0.0 else int(np.count_nonzero(c)) - 1
    big = max(abs(math.log(float(c[0])) + m), abs(math.log(float(c[last])) + m))
    return _TailLogs(c, m), EPS * (n + 8.0 + 2.0 * max(abs(m), abs(lo)) + 2.0 * big)


def _lse(*terms: np.ndarray) -> np.ndarray:
    """Elementwise log-sum-exp of broadcastable arrays (``-inf`` allowed)."""
    arr = [np.asarray(t, dtype=float) for t in terms]
    m = arr[0]
    for a in arr[1:]:
        m = np.maximum(m, a)
    mm = np.where(np.isfinite(m), m, 0.0)
    tot = 0.0
    with np.errstate(under="ignore", invalid="ignore"):
        for a in arr:
            tot = tot + np.exp(a - mm)
    with np.errstate(divide="ignore"):
        return np.log(tot) + mm


def _l1mexp(x: float) -> float:
    """log(1 - e^x) for x <= 0 (scalar)."""
    if x >= 0.0:
        return -math.inf
    return math.log(-math.expm1(x)) if x > -0.6931471805599453 else math.log1p(-math.exp(x))


def _lse_s(*v: float) -> float:
    m = max(v)
    if m == -math.inf:
        return -math.inf
    return m + math.log(math.fsum(math.exp(a - m) for a in v))


def _c(lam: float) -> tuple[float, float, float]:
    r""":math:`c(\lambda) = \lambda\log\lambda - (1+\lambda)\log(1+\lambda)` (λ > 0),
    the log of :math:`\max_u (1 - e^{-u})_+ e^{-\lambda u}`, and its first two
    derivatives."""
    return (lam * math.log(lam) - (1.0 + lam) * math.log1p(lam),
            math.log(lam) - math.log1p(lam), 1.0 / (lam * (1.0 + lam)))


def _log_moment_bound(k_up: float, lam: float, x: np.ndarray | float, q_inf: float
                      ) -> np.ndarray | float:
    r"""log of the moment bound :math:`Q[S=\infty] + e^{\bar K(\lambda) + c(\lambda) -
    \lambda x}` on δ at the (shifted) threshold ``x``, from :math:`(1 - e^{x - s})_+ \le
    e^{\lambda(s - x) + c(\lambda)}` summed over the law (``k_up`` = :math:`\bar K(\lambda)`,
    its cumulant generating function rounded up; :func:`_c`, λ > 0). The exponent's own
    rounding, a few ulps of its terms, is added."""
    c = _c(lam)[0]
    xa = x if isinstance(x, float) else np.asarray(x, dtype=float)
    e = k_up + c - lam * xa + 8 * EPS * (abs(k_up) + abs(c) + lam * abs(xa) + 1.0)
    lq = math.log(q_inf) if q_inf > 0 else -math.inf
    if isinstance(e, float):  # (a scalar: the root searches ask one point at a time)
        return _lse_s(e, lq)
    out = np.logaddexp(e, lq)
    return out if np.ndim(x) else float(out)


@dataclass(slots=True)
class _Frame:
    """A composed frame seen from one order (losses ascending) on one side."""

    s: np.ndarray        # losses of the window, ascending
    lc: np.ndarray       # log of the normalised tilted masses (-inf for none)
    lam: float           # the order's tilt (>= 0)
    K: float             # log of the tilted mass
    rel: float           # relative allowance (r)
    tau: float           # l1 allowance of the tilted masses
    shift: float         # loss-shift allowance
    q_inf: float         # Q-mass at +inf
    m_hi: float = 0.0    # Q-mass above the window (sound side)
    m_lo: float = 0.0    # Q-mass below the window (sound side)
    sound: bool = True
    k_up: float = math.inf  # sound side: log E[e^(lam S)] of the whole law, rounded up
    wrap: float = 0.0       # other side: the part of tau for the tilted mass wrapped
    #                         around from outside the window
    alias_hi: float = 0.0   # sound side: a bound on the tilted mass above the window (as
    #                         tau), which the transforms wrap around into its body
    alias_rate: float = 0.0  # the rate at which it falls (its Chernoff tilt over lam)
    roundoff: float = 0.0   # the part of tau due to the transforms' round-off
    _sums: tuple | None = field(default=None, repr=False)
    _consts: tuple | None = field(default=None, repr=False)  # (of :meth:`_ld`; a copy with
    #                                                           other allowances resets it)

    # -- tail sums ----------------------------------------------------------
    def sums(self) -> tuple[_TailLogs, _TailLogs, float]:
        """log A_j, log B_j (tail sums of the untilted Q- and P-masses) and their relative
        error bound."""
        if self._sums is None:
            lm = self.lc + self.K
            work = np.multiply(self.s, self.lam)  # (then the scaled weights' scratch)
            lm -= work
            la, ra = _tail_sums(lm, work)
            lb, rb = _tail_sums(np.subtract(lm, self.s, out=lm), work)
            fin = np.isfinite(self.lc)  # (the largest finite |lc|, from its two extremes)
            big = max(0.0, float(np.max(self.lc, where=fin, initial=0.0)),
                      -float(np.min(self.lc, where=fin, initial=0.0)))
            smax = max(abs(float(self.s[0])), abs(float(self.s[-1])))  # (s ascends)
            rho = ra + rb + 3.0 * EPS * (abs(self.K) + (self.lam + 1.0) * smax + big + 8.0)
            self._sums = (la, lb, rho)
        return self._sums

    def _log_m(self, x: np.ndarray) -> np.ndarray:
        """log(tau e^K M_lambda(x))."""
        if self.tau <= 0.0:
            return np.full(np.shape(x), -np.inf)
        lam = self.lam
        base = math.log(self.tau) + self.K
        if lam <= 0.0:
            return np.full(np.shape(x), base)
        return base + _c(lam)[0] - lam * np.asarray(x, dtype=float)

    def _log_chernoff(self, x: np.ndarray | float) -> np.ndarray | float:
        """Sound side: :func:`_log_moment_bound` of the whole composed law at this frame's
        tilt (``k_up``): summed exactly over every atom, in the window or not, with no
        round-off allowance (nothing is transformed)."""
        if not (self.sound and math.isfinite(self.k_up) and self.lam > 0.0):
            return np.full(np.shape(x), np.inf) if np.ndim(x) else math.inf
        return _log_moment_bound(self.k_up, self.lam, x, self.q_inf)

    def _log_sum(self, j: np.ndarray, x: np.ndarray) -> np.ndarray:
        """log of the window sum at loss threshold x on piece j (entries k >= j), rounded
        to this side."""
        la, lb, rho = self.sums()
        a, b = la[j], lb[j]
        if self.sound:
            fa, fb = math.log1p(rho), math.log1p(-min(rho, 0.5))
        else:
            fa, fb = math.log1p(-min(rho, 0.5)), math.log1p(rho)
        with np.errstate(invalid="ignore"):
            d = x + b + fb - a - fa
        out = np.where(np.isneginf(a), -np.inf,
                       a + fa + log1mexp(np.minimum(np.where(np.isnan(d), 0.0, d), 0.0)))
        return np.where(d >= 0, -np.inf, out)

    def _log_delta_piece(self, j: np.ndarray, x: np.ndarray) -> np.ndarray:
        """log of this side's profile at shifted threshold x on piece j."""
        ls = self._log_sum(j, x)
        if self.sound:
            terms = [ls]
            rest = self.q_inf + self.m_hi
            if rest > 0:
                terms.append(np.full(np.shape(x), math.log(rest)))
            if self.m_lo > 0:
                with np.errstate(divide="ignore", invalid="ignore"):
                    g = np.where(x < self.s[0], log1mexp(np.minimum(x - self.s[0], 0.0)),
                                 -np.inf)
                terms.append(math.log(self.m_lo) + g)
            terms.append(self._log_m(x))
            return np.minimum(_lse(*terms) + math.log1p(self.rel) + 8 * EPS,
                              self._log_chernoff(x))
        lx = _lse(ls, np.full(np.shape(x), math.log(self.q_inf) if self.q_inf > 0
                                else -np.inf)) + math.log1p(-min(self.rel, 0.5))
        ly = self._log_m(x)
        with np.errstate(invalid="ignore"):
            d = ly - lx
        out = lx + log1mexp(np.minimum(np.where(np.isnan(d), 0.0, d), 0.0)) - 8 * EPS
        return np.where((d >= 0) | np.isneginf(lx), -np.inf, out)

    def _x_of(self, eps: np.ndarray) -> np.ndarray:
        return eps - self.shift if self.sound else eps + self.shift

    # -- the profile --------------------------------------------------------
    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log of this side's δ(ε) (vectorised)."""
        x = self._x_of(np.asarray(eps, dtype=float))
        j = np.searchsorted(self.s, x, side="left")
        out = self._log_delta_piece(j, x)
        return np.where(np.isposinf(x), math.log(self.q_inf) if self.q_inf > 0 else -np.inf,
                        out)

    def delta(self, eps: np.ndarray) -> np.ndarray:
        ld = self.log_delta(eps)
        with np.errstate(under="ignore"):
            d = np.exp(np.minimum(ld, 0.0))
        if self.sound:  # an underflow must not report 0 for a positive bound
            d = np.where(np.isfinite(ld) & (d == 0.0), 5e-324, d)
        return np.minimum(d, 1.0)

    def _ld_consts(self) -> tuple:
        """What :meth:`_ld` uses that does not depend on its arguments."""
        if self._consts is None:
            la, lb, rho = self.sums()
            if self.sound:
                fa, fb = math.log1p(rho), math.log1p(-min(rho, 0.5))
            else:
                fa, fb = math.log1p(-min(rho, 0.5)), math.log1p(rho)
            lm0 = math.log(self.tau) + self.K if self.tau > 0 else -math.inf
            cl = _c(self.lam)[0] if self.tau > 0 and self.lam > 0 else None
            rest = self.q_inf + self.m_hi
            chern = self.sound and math.isfinite(self.k_up) and self.lam > 0
            self._consts = (
                la, lb, fa, fb, lm0, cl,
                math.log(rest) if rest > 0 else None,
                math.log(self.m_lo) if self.m_lo > 0 else None, float(self.s[0]),
                math.log(self.q_inf) if self.q_inf > 0 else -math.inf,
                math.log1p(self.rel) if self.sound else math.log1p(-min(self.rel, 0.5)),
                chern)
        return self._consts

    def _ld(self, j: int, x: float) -> float:
        """Scalar log of this side's profile at shifted threshold x on piece j."""
        la, lb, fa, fb, lm, cl, lrest, lmlo, s0, lq, lrel, chern = self._ld_consts()
        a = la.at(j)
        if a == -math.inf:
            ls = -math.inf
        else:
            ls = a + fa + _l1mexp(x + lb.at(j) + fb - a - fa)
        if cl is not None:
            lm += cl - self.lam * x
        if self.sound:
            terms = [ls, lm]
            if lrest is not None:
                terms.append(lrest)
            if lmlo is not None and x < s0:
                terms.append(lmlo + _l1mexp(x - s0))
            v = _lse_s(*terms) + lrel + 8 * EPS
            return min(v, _log_moment_bound(self.k_up, self.lam, x, self.q_inf)) \
                if chern else v
        lx = _lse_s(ls, lq)
        if lx == -math.inf:
            return -math.inf
        lx += lrel
        if lm >= lx:
            return -math.inf
        return lx + _l1mexp(lm - lx) - 8 * EPS

    def _piece(self, x: float) -> int:
        return int(np.searchsorted(self.s, x, side="left"))

    def epsilon(self, delta: np.ndarray) -> np.ndarray:
        """This side's ε(δ) (vectorised; ``inf`` where this frame cannot certify).

        Sound side: the smallest ε with :math:`\\hat\\delta(\\varepsilon) \\le \\delta`
        (upper end of the final bracket; the profile is non-increasing). Other side: an ε
        with :math:`\\check\\delta(\\varepsilon) > \\delta` verified (the true δ exceeds δ
        there, so the true ε is larger), as large as the search finds (the lower end of the
        final bracket), 0 if none."""
        delta = np.asarray(delta, dtype=float)
        out = np.empty(delta.shape)
        flat = out.reshape(-1)
        for i, d in enumerate(delta.reshape(-1).tolist()):
            flat[i] = self._eps1(d)
        return out

    def _eps1(self, d: float) -> float:
        if d >= 1.0:
            return 0.0
        if not d > 0.0:
            return math.inf
        t = math.log(d)
        n = self.s.size
        x0 = float(self._x_of(np.zeros(1))[0])
        f0 = self._ld(self._piece(x0), x0)
        top = float(self.s[-1])
        if self.sound:
            if f0 <= t:
                return 0.0
            vals = {n - 1: self._ld(n - 1, top) - t}  # (profile - t at lattice points)
            if vals[n - 1] > 0:
                return math.inf
            # first lattice point at or above x0 where the profile is <= t (monotone)
            lo_j, hi_j = self._piece(x0), n - 1
            while lo_j < hi_j:
                mid = (lo_j + hi_j) // 2
                vals[mid] = self._ld(mid, float(self.s[mid])) - t
                if vals[mid] <= 0:
                    hi_j = mid
                else:
                    lo_j = mid + 1
            j = lo_j
            lo = max(float(self.s[j - 1]) if j > 0 else x0, x0)
            hi = max(float(self.s[j]), lo)
            # (the values at the ends, where known, start false position at once: the
            # piece j - 1 at its own point is the piece j there, up to rounding)
            flo = vals.get(j - 1, math.nan) if lo > x0 else f0 - t
            lo, hi = self._cross(j, lo, hi, t, flo, vals.get(j, math.nan), keep="hi")
            e = hi + self.shift
            return max(e + 4 * EPS * (1.0 + abs(e)), 0.0)
        # other side: a verified point above the threshold, as far up as found. The bound
        # is accurate around the frame's centre and weak far below it (the l1 term), so
        # the search starts at the centre: upwards for the last lattice point above the
        # threshold, or, if the centre is below it, downwards in doubling steps first
        if self._ld(n - 1, top) > t:
            return math.inf
        j0 = min(self._piece(x0), n - 1)
        jc = max(int(np.argmax(self.lc)), j0)

        def above(j: int) -> bool:
            return self._ld(j, float(self.s[j])) > t

        lo = None
        if above(jc):
            lo_j, hi_j = jc, n - 1
        else:
            hi_j, step, lo_j = jc, 1, -1
            while hi_j - step >= j0:
                if above(hi_j - step):
                    lo_j = hi_j - step
                    break
                hi_j -= step
                step *= 2
            if lo_j < 0 and hi_j > j0 and above(j0):
                # (the doubling stepped past the stretch above j0, which the bisection
                # below searches: the answer was one step, 1.99e-7 for 1.2955e-5, where
                # sigma = 2.72, p = 9.9e-5, T = 31, rtol = 3e-4)
                lo_j = j0
            if lo_j < 0:
                if f0 > t:
                    lo, _ = self._cross(j0, x0, float(self.s[j0]), t, f0 - t, keep="lo")
                else:
                    return 0.0
        if lo is None:
            while hi_j - lo_j > 1:  # above at lo_j, not at hi_j
                mid = (lo_j + hi_j) // 2
                if above(mid):
                    lo_j = mid
                else:
                    hi_j = mid
            lo, _ = self._cross(hi_j, float(self.s[lo_j]), float(self.s[hi_j]), t,
                                keep="lo")
        if not self._ld(self._piece(lo), lo) > t:   # the certificate, verified
            if not f0 > t:
                return 0.0
            lo = x0
        e = lo - self.shift
        return max(e - 4 * EPS * (1.0 + abs(e)), 0.0)

    def _cross(self, j: int, lo: float, hi: float, t: float, flo: float = math.nan,
               fhi: float = math.nan, keep: str = "hi") -> tuple[float, float]:
        """The crossing of log δ = t on piece j (above at lo, not at hi), bracketed to
        1e-12 of the piece or a few ulps: false position with the Illinois modification
        (the profile is smooth and monotone on a piece), halving the bracket where a
        value is not finite or the step leaves it, from the values minus t at the ends
        where known (``flo``, ``fhi``: NaN where not). Each end keeps its side of t, so
        either is as valid as bisection's; the search also stops once the end ``keep``
        (the one the caller uses) has a value within 1e-12 of t (relative in δ: a
        change of the answer no larger than a change of the δ asked by 1e-12 would make,
        far below the allowances)."""
        tol = max(1e-12 * (hi - lo), 4 * EPS * max(abs(lo), abs(hi)))
        last = 0
        for _ in range(200):
            if not hi - lo > tol:
                break
            x = 0.5 * (lo + hi)
            if math.isfinite(flo) and math.isfinite(fhi) and flo > fhi:
                y = lo + (hi - lo) * flo / (flo - fhi)
                if lo < y < hi:
                    x = y
            if not lo < x < hi:
                break
            f = self._ld(j, x) - t
            if f <= 0:
                hi, fhi = x, f
                if keep == "hi" and f >= -1e-12:
                    break
                if last < 0:
                    flo *= 0.5
                last = -1
            else:
                lo, flo = x, f
                if keep == "lo" and f <= 1e-12:
                    break
                if last > 0:
                    fhi *= 0.5
                last = 1
        return lo, hi


def _frame_curve(fr: _Frame, *, name: str) -> LossCurve:
    """The LossCurve of an untilted frame with its allowances charged (sound side) or
    subtracted (the other side)."""
    t = fr.s + fr.shift if fr.sound else fr.s - fr.shift
    with np.errstate(under="ignore"):
        c = np.exp(fr.lc + fr.K)
    if fr.sound:
        # the l1 allowance bounds errors of the window masses only: it is charged to the
        # top of the window (the profile integrand increases with the loss), the mass
        # above the window to +inf, the one below to the bottom
        q = c * (1.0 + fr.rel)
        q[0] += fr.m_lo * (1.0 + fr.rel)
        q[-1] += fr.tau * math.exp(fr.K) * (1.0 + fr.rel)
        q_inf = min(1.0, (fr.q_inf + fr.m_hi) * (1.0 + fr.rel))
        sc = 1.0
        sub = 0.0
    else:  # delta >= (1 - rel) delta_c - tau e^K, clamped by max(0, 1 - e^eps)
        q = c
        q_inf = fr.q_inf
        sc = 1.0 - min(fr.rel, 1.0)
        sub = fr.tau * math.exp(fr.K)
    if sc <= 0.0:  # no information left: the identity is a valid upper curve
        return _finish(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0]),
                       name=name, optimistic=True)
    keep = q > 0
    u, qk = t[keep][::-1], q[keep][::-1]
    with np.errstate(divide="ignore"):
        lp = np.log(qk) - u + math.log(sc)  # log P-masses: no underflow for large losses
    la = np.concatenate([[-np.inf], np.logaddexp.accumulate(lp)]) if lp.size else \
        np.array([-np.inf])
    # (the sound side's masses are upper bounds, whose P-masses may sum to a little over 1:
    # a vertex moved left to alpha = 1 claims a stronger test, a lower curve)
    la = np.minimum(la, 0.0)
    alpha = np.exp(la)
    omb = sc * (np.concatenate([[q_inf], q_inf + np.cumsum(qk)])) - sub
    if not fr.sound and omb[0] < 0.0:  # tangent from (0, beta=1): the line max(0, .)
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
    return _finish(alpha, omb, u, name=name, optimistic=not fr.sound, lalpha=la)
