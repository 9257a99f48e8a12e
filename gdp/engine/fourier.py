r"""Composition of lattice laws in an exponentially tilted frame, with sound error bounds.

A *frame* of tilt :math:`\beta` composes the factors' lattice laws multiplied by
:math:`e^{\beta t}` and normalised: factor :math:`i` becomes :math:`\tilde q_{ik} = q_{ik}
e^{\beta t_{ik} - K_i(\beta)}` with :math:`K_i(\beta) = \log\sum_k q_{ik}e^{\beta t_{ik}}` its
cumulant generating function. Tilting commutes with convolution, so the composed Q-masses
are :math:`c_k = \tilde c_k\,e^{K(\beta) - \beta t_k}` with :math:`K = \sum_i n_i K_i`, and
the composed tilted law :math:`\tilde c` has mean :math:`K'(\beta)` and variance
:math:`K''(\beta)`. Every round-off error is relative to the tilted mass, which is of order
one around :math:`K'(\beta)`: choosing :math:`\beta` for the ε of interest turns the
additive floor of the FFT into a relative error there (:mod:`gdp.engine.frames`).

* :class:`_KGF`: :math:`K, K', K''` of the composed lattice law at any tilts (exact for the
  lattice law; log space; all factors at once).
* :func:`_window`, :func:`_tails`: the lattice window of a frame from Chernoff bounds of
  the tilted law, :math:`\tilde Q[S > B] \le e^{K(\beta+\mu) - K(\beta) - \mu B}` (any
  :math:`\mu > 0`, optimised), and the masses outside it.
* :func:`_compose`: the composed tilted law on a circular window of :math:`N` points:
  distinct factors by linear convolutions (smallest first), the rest in the Fourier domain
  (``rfft`` per item, :math:`Z^n` for an :math:`n`-fold power as :math:`e^{n \log Z}` on the
  band where it is not negligible, one ``irfft``). Wrapped (aliased) mass is non-negative,
  so on the window the circular result is at least the true one.

Error bounds (tilted, normalised units; after Higham, *Accuracy and Stability of Numerical
Algorithms*, §24.1, a documented allowance): a forward transform errs by at most
:math:`\gamma = 8 u(\log_2 N + 4)` per coefficient (mass 1) or :math:`\gamma\sqrt N\|x\|_2`
in norm; :math:`Z^n` turns an error :math:`\gamma` into at most :math:`n(|Z|+\gamma)^{n-1}
\gamma` plus the rounding of :math:`e^{n\log Z}` (:math:`|Z|^n u (n(|\log|Z|| + |\arg Z|) +
8)`); a product of items adds the errors times the other items' magnitudes; the inverse
transform turns a spectrum error into at most :math:`\|\Delta Y\|_2` in :math:`\ell_1`
(Parseval, :math:`\|\Delta c\|_1 \le \sqrt N\|\Delta c\|_2`; over the whole Hermitian
spectrum, :math:`\sqrt 2` times the norm over the half kept) and adds at most
:math:`\min(\gamma\sum|Y|, \gamma\sqrt N\|c\|_2)`. A direct convolution of non-negative
vectors errs by a relative :math:`(\min(\ell_a,\ell_b)+2)u` entrywise. Tilting itself
errs by a relative :math:`u(3|\beta t| + 4|m| + 3\log n + 300)` per entry (the rounding of the
exponent and of the normalisation's logarithm, :func:`_tilt_units`);
entries tilted below :math:`10^{-30}` of the factor's mass are charged in
:math:`\ell_1` instead. Each factor is re-centred on its tilted mean before the power, so
that :math:`\arg Z` stays small where :math:`|Z|` is near 1. The sums avoid BLAS (which
may split a dot product across threads): the answers do not depend on the thread count.

The transforms of a composition work in double, or in the platform's long double
(:data:`_EXTENDED`; a 64-bit significand on x86-64 Linux, u about 1.1e-19) where the
engine finds their round-off dominating an answer: a power :math:`Z^n` errs by about
:math:`n\gamma` of the tilted mass, which for rarely sampled steps (a δ that is a tiny part
of the tilted mass, the bulk of never-sampled steps holding the rest) can exceed the δ
asked. Every allowance above then takes the extended unit; the composed masses are
rounded to double at the end (a relative u/2 each). There the power of a law sitting on one
point is formed by products (:func:`_spike_power_by_products`) rather than through its
logarithm (long-double transcendental functions cost 3–4 times the double ones), and the
moduli the allowances need are taken in double (:func:`_modulus`).

A power can also be formed from the law's tail sums (summation by parts,
:func:`_tail_sum_power`): :math:`Z e^{i\omega c} = S + (e^{-i\omega} - 1)\hat U`, U the
signed tail sums about the law's centre c, whose transform's round-off is relative to the
law's mean absolute deviation and multiplied by :math:`|e^{-i\omega} - 1|`, small on the
low frequencies where a long power lives: in double, it errs by about the square root of
n where the power of the law's own transform errs by n. A composition asked in long double
is done so, in double, where each power's bound is at most what long double would give
(:func:`_by_tail_sums`; from about a million factors on): at 10⁷ rarely sampled steps a
frame of 1.6 million points took 0.34 s against 0.63 s in long double, and erred less.

Imports: the ground floor and :mod:`gdp.engine.lattice`.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import EPS
from .lattice import _Lat, _parts

__all__ = []

_NEG = -1e300  # stands for log 0 in max computations
_EVAL_PART = 1 << 16  # atoms per part of a cumulant generating function's evaluation
_BUILD_AT_ONCE = 16   # factors from which a cumulant generating function is built at once


@dataclass(frozen=True, slots=True)
class _Precision:
    r"""The floating-point format the transforms of :func:`_compose` work in: its type,
    its unit (the spacing of the numbers at 1, which every round-off allowance of the
    transforms multiplies) and :math:`2\pi` in it."""

    real: type
    cplx: type
    u: float
    two_pi: Any


_DOUBLE = _Precision(np.float64, np.complex128, EPS, 2.0 * math.pi)
# the platform's long double (x87 extended on x86-64 Linux: a 64-bit significand, u about
# 1.1e-19; elsewhere it may be the double itself, and then nothing is gained)
_EXTENDED = _Precision(np.longdouble, np.clongdouble, float(np.finfo(np.longdouble).eps),
                       2 * np.longdouble("3.14159265358979323846264338327950288419716939"))
_EXTENDED_GAINS = _EXTENDED.u < 1e-3 * EPS


def _gamma(n: int, u: float = EPS) -> float:
    """Per-coefficient round-off of an FFT of length n, relative to the l1 mass (unit u)."""
    return 8.0 * u * (math.log2(max(n, 2)) + 4.0)


def _sum(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Deterministic pairwise sum (no BLAS)."""
    return np.add.reduce(x, axis=axis)


# ---------------------------------------------------------------------------
# cumulant generating functions of the composed lattice law
# ---------------------------------------------------------------------------
class _KGF:
    r""":math:`K(\beta) = \sum_i n_i \log\sum_k q_{ik} e^{\beta t_{ik}}` of composed lattice
    laws and its first two derivatives (tilted mean and variance), at many tilts at once.

    The non-zero entries of all factors sit in one array; per-factor sums use
    ``np.add.reduceat`` (deterministic). Exact for the lattice laws up to rounding (it is
    only used to choose frames and windows, and in Chernoff bounds rounded up).
    """

    def __init__(self, lats: list[tuple[_Lat, int]], h: float):
        self._build([_lattice_atoms(lat, h, n) for lat, n in lats])

    @classmethod
    def of_lattices(cls, parts: list[tuple[_Lat, float, int]]) -> _KGF:
        """From lattice laws each on its own step, ``(lattice, step, multiplicity)``."""
        obj = cls.__new__(cls)
        obj._build([_lattice_atoms(lat, h, n) for lat, h, n in parts])
        return obj

    @classmethod
    def of_atoms(cls, parts: list[tuple[np.ndarray, np.ndarray, int]]) -> _KGF:
        """From atoms ``(losses, Q-masses, multiplicity)`` per factor (planning)."""
        obj = cls.__new__(cls)
        obj._build([(np.asarray(t, float), np.asarray(q, float), n) for t, q, n in parts])
        return obj

    @classmethod
    def of_log_atoms(cls, parts: list[tuple[np.ndarray, np.ndarray, int]]) -> _KGF:
        """From atoms ``(losses, log Q-masses, multiplicity)`` per factor (masses that may
        lie below the floating-point range)."""
        obj = cls.__new__(cls)
        obj._build([(np.asarray(t, float), np.asarray(lq, float), n) for t, lq, n in parts],
                   logs=True)
        return obj

    def _build(self, parts: list[tuple[np.ndarray, np.ndarray, int]], logs: bool = False
               ) -> None:
        """The atoms of ``parts`` kept (positive mass, finite loss), each factor's sorted
        by loss (a stable sort; none where they ascend already, as on a lattice). Each
        factor's arrays are copied once (no array is shared with the caller's). Many factors
        (``_BUILD_AT_ONCE`` or more) are filtered and their logarithms taken at once, the
        same values (a test)."""
        if len(parts) >= _BUILD_AT_ONCE:
            self._build_at_once(parts, logs)
            return
        ts, lqs, starts, ns = [], [], [], []
        pos = 0
        lo = hi = 0.0
        for t, q, n in parts:
            keep = (q > -np.inf if logs else q > 0) & np.isfinite(t)
            if not keep.any():
                continue
            t, q = t[keep], q[keep]  # (copies)
            if t.size > 1 and not bool(np.all(t[1:] >= t[:-1])):
                order = np.argsort(t, kind="stable")
                t, q = t[order], q[order]
            ts.append(t)
            lqs.append(q if logs else np.log(q))
            starts.append(pos)
            ns.append(n)
            pos += t.size
            lo += n * float(t[0])
            hi += n * float(t[-1])
        one = len(ts) == 1  # (the copies above are this object's own)
        self._set(ts[0] if one else np.concatenate(ts) if ts else np.zeros(0),
                  lqs[0] if one else np.concatenate(lqs) if lqs else np.zeros(0),
                  np.array(starts, dtype=np.int64), ns, lo, hi)

    def _build_at_once(self, parts: list[tuple[np.ndarray, np.ndarray, int]], logs: bool
                       ) -> None:
        """:meth:`_build` of many factors: one concatenation, one filter (none where every
        atom is kept, as on lattices), one logarithm, the factors that do not ascend sorted
        alone; the support's ends summed factor by factor, in order (1,000 distinct
        subsampled Gaussians, 2.9 million atoms: 0.12 → 0.065 s for their four builds)."""
        sizes = np.array([np.size(t) for t, _, _ in parts], dtype=np.int64)
        T = np.concatenate([np.asarray(t, dtype=float) for t, _, _ in parts])
        Q = np.concatenate([np.asarray(q, dtype=float) for _, q, _ in parts])
        keep = (Q > -np.inf if logs else Q > 0) & np.isfinite(T)
        if keep.all():  # (lattice atoms: kept already)
            cnt = sizes
        else:
            fid = np.repeat(np.arange(len(parts)), sizes)[keep]
            T, Q = T[keep], Q[keep]
            cnt = np.bincount(fid, minlength=len(parts))
        present = np.flatnonzero(cnt)
        last = np.cumsum(cnt[present]) - 1
        first = last - cnt[present] + 1
        down = np.flatnonzero(T[1:] < T[:-1])
        if down.size:  # (factors that do not ascend, sorted alone; not their boundaries)
            boundary = np.zeros(T.size + 1, dtype=bool)
            boundary[first] = True
            down = down[~boundary[down + 1]]
            for j in np.unique(np.searchsorted(first, down, side="right") - 1).tolist():
                sl = slice(int(first[j]), int(last[j]) + 1)
                order = np.argsort(T[sl], kind="stable")
                T[sl], Q[sl] = T[sl][order], Q[sl][order]
        ns = [parts[f][2] for f in present.tolist()]
        lo = hi = 0.0
        for n, a, b in zip(ns, T[first].tolist(), T[last].tolist(), strict=True):
            lo += n * a
            hi += n * b
        self._set(T, Q if logs else np.log(Q), first, ns, lo, hi)

    def _set(self, t: np.ndarray, lq: np.ndarray, starts: np.ndarray, ns: list,
             lo: float, hi: float) -> None:
        """The atoms of the factors kept (losses ``t``, log masses ``lq``, factor i from
        ``starts[i]`` on, ``ns[i]`` times) and the composed support ``[lo, hi]``; with no
        factor kept, one atom at 0 of no factor (:attr:`empty`)."""
        self.empty = len(ns) == 0
        self.t = t if ns else np.zeros(1)
        self.lq = lq if ns else np.zeros(1)
        self.starts = starts if ns else np.zeros(1, dtype=np.int64)
        self.n = np.array(ns if ns else [0], dtype=float)
        self._seg = None
        self.tmin, self.tmax = lo, hi  # support of the composed law
        self.scale = max(abs(float(np.max(self.t))), abs(float(np.min(self.t))))
        self._memo: dict = {}

    @property
    def seg(self) -> np.ndarray:
        """The factor of each atom (made on first use: one factor's sums need none)."""
        if self._seg is None:
            self._seg = np.repeat(np.arange(self.starts.size),
                                  np.diff(np.concatenate([self.starts, [self.t.size]])))
        return self._seg

    @seg.setter
    def seg(self, value: np.ndarray) -> None:
        self._seg = value

    def pooled(self, width: float) -> _KGF:
        r"""An approximation for choosing windows: each factor's atoms pooled into cells of
        ``width`` (one atom per cell, at the cell's mean loss, with its total mass); at a
        tilt β each cell's term errs by a relative :math:`e^{|\beta| \mathrm{width}} - 1`
        at most. An atom of at least 1e-3 of its factor's heaviest stays alone: the
        unsampled bulk of a rarely sampled step lies on a few lattice points, and one
        atom at its mean lost its spread, which sets the window's lower end (a hundred
        times too narrow at σ = 0.731, p = 1.1e-6, T = 1.46M; the frame then searched the
        window on the whole lattice law, 0.25 s of its 1.3 s). Not for bounds."""
        if self.empty:
            return self
        seg = self.seg
        first = self.t[self.starts][seg]
        key = seg * (1 << 40) + np.floor((self.t - first) / width).astype(np.int64)
        heavy = self.lq >= (np.maximum.reduceat(self.lq, self.starts) - math.log(1e3))[seg]
        brk = np.concatenate([[True], (key[1:] != key[:-1]) | heavy[1:] | heavy[:-1]])
        cut = np.flatnonzero(brk)
        m = np.maximum.reduceat(self.lq, cut)
        rep = np.repeat(np.arange(cut.size), np.diff(np.concatenate([cut, [key.size]])))
        e = np.exp(self.lq - m[rep])
        s = np.add.reduceat(e, cut)
        obj = _KGF.__new__(_KGF)
        obj.__dict__.update(self.__dict__)
        obj.t = np.add.reduceat(e * self.t, cut) / s
        obj.lq = m + np.log(s)
        obj.seg = seg[cut]
        obj.starts = np.searchsorted(cut, self.starts).astype(np.int64)
        obj._memo = {}
        return obj

    def power(self, m: int) -> _KGF:
        """The same factors, each ``m`` times as often."""
        obj = _KGF.__new__(_KGF)
        obj.__dict__.update(self.__dict__)
        obj.n = self.n * m
        obj.tmin, obj.tmax = self.tmin * m, self.tmax * m
        obj._memo = {}
        return obj

    def __call__(self, betas: np.ndarray, derivs: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(K, K', K'') at each tilt (vector ``betas``; read-only arrays, remembered: the
        planner, the windows and the frames ask the same tilts again)."""
        b = np.atleast_1d(np.asarray(betas, dtype=float))
        kb = b.tobytes()
        for key in ((kb, True), (kb, derivs)):  # (K alone: from either entry)
            if key in self._memo:
                return self._memo[key]
        out = self._eval(b, derivs)
        for a in out:
            a.setflags(write=False)
        self._memo[(kb, derivs)] = out
        return out

    def _eval(self, b: np.ndarray, derivs: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(K, K', K'') at the tilts ``b``: each factor's log-sum-exp, tilted mean and
        variance, weighted by its multiplicity and summed. Over ``_EVAL_PART`` atoms, by
        parts of whole factors (each factor's values are those of one pass, bit for bit:
        its reductions see its own atoms only): the temporaries of one pass were fresh
        arrays of tens of MB whose pages the system maps anew on every evaluation (1,000
        distinct subsampled Gaussians, 2.9 million atoms: 0.28 s for one tilt, 0.04 s in
        memory already mapped)."""
        if self.empty:
            z = np.zeros(b.shape)
            return np.full(b.shape, -np.inf), z, z.copy()
        if self.starts.size == 1:
            return self._eval_one(b, derivs)
        if self.t.size <= _EVAL_PART:
            Ki, mean_i, var_i = _factor_moments(self.t, self.lq, self.starts, self.seg, b,
                                                derivs)
        else:
            F = self.starts.size
            Ki = np.empty((b.size, F))
            mean_i, var_i = (np.empty((b.size, F)), np.empty((b.size, F))) if derivs else \
                (None, None)
            ends = np.append(self.starts[1:], self.t.size)
            f0 = 0
            while f0 < F:
                # (whole factors, as many as fit in a part; one at least)
                f1 = max(int(np.searchsorted(ends, self.starts[f0] + _EVAL_PART, "right")),
                         f0 + 1)
                a0, a1 = int(self.starts[f0]), int(ends[f1 - 1])
                k, mn, vr = _factor_moments(self.t[a0:a1], self.lq[a0:a1],
                                            self.starts[f0:f1] - a0, self.seg[a0:a1] - f0,
                                            b, derivs)
                Ki[:, f0:f1] = k
                if derivs:
                    mean_i[:, f0:f1] = mn
                    var_i[:, f0:f1] = vr
                f0 = f1
        K = _sum(Ki * self.n[None, :])
        if not derivs:
            return K, np.zeros(b.shape), np.zeros(b.shape)
        return K, _sum(mean_i * self.n[None, :]), _sum(var_i * self.n[None, :])

    def _eval_one(self, b: np.ndarray, derivs: bool
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_eval` of one factor, tilt by tilt: the same formulas (the sums pairwise,
        by ``np.add.reduce``) without the per-atom gathers of the segment maxima and
        means; the values agree to a few ulps."""
        t, lq, n = self.t, self.lq, float(self.n[0])
        out = np.zeros((3, b.size))
        for j, bj in enumerate(b.tolist()):
            w = lq + bj * t
            m = np.max(w)
            w -= m
            e = np.exp(w, out=w)
            s0 = np.add.reduce(e)
            out[0, j] = (m + np.log(s0)) * n
            if derivs:
                mean = np.add.reduce(e * t) / s0
                d = t - mean
                d *= e
                d *= t - mean
                out[1, j] = mean * n
                out[2, j] = np.add.reduce(d) / s0 * n
        return out[0], out[1], out[2]

    def edge_rate(self, beta: float, k0: float, sign: float) -> float:
        r"""The limit as :math:`\mu \to \infty` of :math:`g(\mu) = \mu\, s K'(\beta + s\mu)
        - (K(\beta + s\mu) - K(\beta))` (``sign`` s = ±1, ``k0`` = K(β)): the tilted
        mass of the composed law's top (s = 1) or bottom atom is :math:`e^{-g(\infty)}`,
        :math:`g(\infty) = K(\beta) - \sum_i n_i (\log q_i + \beta t_i)` at each
        factor's extreme atom. g increases (:math:`g' = \mu K'' \ge 0`), so it stays
        below this limit."""
        idx = self.starts if sign < 0 else np.append(self.starts[1:], self.t.size) - 1
        return k0 - float(np.sum(self.n * (self.lq[idx] + beta * self.t[idx])))

    def upper(self, betas: np.ndarray) -> np.ndarray:
        """K rounded up (for Chernoff bounds): relative rounding of the sums and the
        exponents."""
        K, _, _ = self(betas, derivs=False)
        b = np.atleast_1d(np.asarray(betas, dtype=float))
        tot = float(np.sum(self.n))
        slack = EPS * tot * (4.0 * (np.abs(b) * self.scale + 750.0) + self.t.size + 8.0)
        return K + slack + 1e-12 * np.abs(K)


def _factor_moments(t: np.ndarray, lq: np.ndarray, starts: np.ndarray, seg: np.ndarray,
                    b: np.ndarray, derivs: bool) -> tuple[np.ndarray, Any, Any]:
    """Per factor (atoms ``t``, log masses ``lq``, factor ``f`` from ``starts[f]`` on,
    ``seg`` the factor of each atom) and tilt of ``b``: the log of its tilted mass, and
    (``derivs``) its tilted mean and variance (None else)."""
    w = lq[None, :] + b[:, None] * t[None, :]
    m = np.maximum.reduceat(w, starts, axis=1)
    e = np.exp(w - m[:, seg])
    s0 = np.add.reduceat(e, starts, axis=1)
    Ki = m + np.log(s0)
    if not derivs:
        return Ki, None, None
    mean_i = np.add.reduceat(e * t[None, :], starts, axis=1) / s0
    d = t[None, :] - mean_i[:, seg]
    var_i = np.add.reduceat(e * d * d, starts, axis=1) / s0
    return Ki, mean_i, var_i


def _lattice_atoms(lat: _Lat, h: float, n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The atoms ``(losses, Q-masses, multiplicity)`` of a lattice law of step ``h``: its
    points of positive mass."""
    nz = np.flatnonzero(lat.q > 0)
    return (lat.k0 + nz).astype(float) * h + lat.off, lat.q[nz], n


def _increasing_root(F, lo: float, hi: float, guess: float, rtol: float,
                     enough: Callable[[float, float], bool] | None = None) -> float:
    """Root in (lo, hi) of an increasing function of x > 0 (safeguarded Newton; ``F``
    returns the value and the derivative) to a relative ``rtol``: the bracket's upper end
    once it is that narrow (or once ``enough(lo, hi)`` says it will do), or Newton's next
    iterate once its step is a quarter of that (Newton converging from one side brackets
    the root only by rounding); ``hi`` if F stays negative. A step from the right that
    would fall below an eighth of x goes to an eighth (far beyond the root, F can be
    nearly flat)."""
    x = min(max(guess, lo), hi)
    for _ in range(80):
        v, d = F(x)
        if v > 0:
            hi = x
        else:
            lo = x
        if hi <= lo * (1.0 + rtol) or (enough is not None and enough(lo, hi)):
            break
        step = x - v / d if d > 0 and math.isfinite(d) and math.isfinite(v) else -1.0
        if lo < step < hi and abs(step - x) <= 0.25 * rtol * x:
            return step
        if v > 0 and step < 0.125 * x and lo < 0.125 * x:
            step = 0.125 * x
        x = step if lo < step < hi else (math.sqrt(lo * hi) if lo > 0 else 0.5 * hi)
    return hi


@dataclass(slots=True)
class _Bounds:
    """The window of a frame and the Chernoff tilts that bound what lies outside it."""

    A: float
    B: float
    b_hi: float  # a tilt above beta (upper tail)
    b_lo: float  # a tilt below beta (lower tail)


def _window(kgf: _KGF, beta: float, log_eta: float, h: float,
            start: _Bounds | None = None, rtol: float = 1e-3) -> _Bounds:
    r"""Window :math:`[A, B]` of a frame of tilt ``beta`` whose tilted mass outside each end
    is at most :math:`e^{\log\eta}` by Chernoff: :math:`B = \min_\mu (K(\beta+\mu) -
    K(\beta) - \log\eta)/\mu` (the optimum solves :math:`\mu K'(\beta+\mu) = K(\beta+\mu)
    - K(\beta) - \log\eta`, an increasing function of :math:`\mu`), and the mirror
    image for :math:`A`. ``start``: the window of an approximation of ``kgf``, whose tilts
    start the root searches; ``rtol``: their relative tolerance on :math:`\mu`. Any
    :math:`\mu > 0` gives a bound (evaluated with ``kgf`` rounded up): the search only
    narrows the window, and :math:`B(\mu)` is flat at its minimum (a :math:`\mu` within
    2% of the optimum widens the window by about a part in 1e4 of the tilted spread)."""
    K, K1, K2 = kgf(np.array([beta]))
    k0, mean = float(K[0]), float(K1[0])
    sd = math.sqrt(max(float(K2[0]), h * h))
    z = math.sqrt(-2.0 * log_eta)
    span = max(kgf.tmax - kgf.tmin, h)
    L = -log_eta

    def side(sign: float) -> tuple[float, float]:
        def H(mu: float) -> tuple[float, float]:
            Kb, K1b, K2b = kgf(np.array([beta + sign * mu]))
            g = mu * sign * float(K1b[0]) - (float(Kb[0]) - k0)
            dg = mu * float(K2b[0])
            if g <= L:
                return g - L, dg
            return L * math.log(g / L), L * dg / g

        guess = z / sd
        if start is not None:
            g = sign * ((start.b_hi if sign > 0 else start.b_lo) - beta)
            if 0.0 < g < 0.5e4 / h:  # (not where the approximation found no root)
                guess = g
        room = kgf.edge_rate(beta, k0, sign) - L  # (g - L < room for every mu)
        if room <= 0.0:  # (H < 0 for every mu: the search would climb to its upper end)
            mu = 1e4 / h
        else:
            # B'(mu) = (g - L) / mu^2, so B(hi) exceeds the least B over the bracket by at
            # most room (1/lo - 1/hi): a thousandth of a step will do
            mu = _increasing_root(H, 1e-9 / span, 1e4 / h, guess, rtol,
                                  lambda a, b: room * (1.0 / a - 1.0 / b) <= 1e-3 * h)
        ku = float(kgf.upper(np.array([beta + sign * mu]))[0])
        return (ku - k0 - log_eta) / mu, mu

    B, mu = side(1.0)
    A, nu = side(-1.0)
    A = -A
    if not (math.isfinite(A) and math.isfinite(B)):
        A, B = kgf.tmin, kgf.tmax
    A, B = max(min(A, mean), kgf.tmin), min(max(B, mean), kgf.tmax)
    return _Bounds(A, B, beta + mu, beta - nu)


def _reaches(kgf: _KGF, bd: _Bounds, h: float) -> tuple[bool, bool]:
    """Whether each end of a window comes within a quarter of its width (or 64 steps) of
    the support's end (the window is then taken to it)."""
    near = max(0.25 * (bd.B - bd.A), 64.0 * h)
    return kgf.tmax - bd.B <= near, bd.A - kgf.tmin <= near


def _guided_window(kgf: _KGF, guide: _KGF, beta: float, log_eta: float, h: float
                   ) -> _Bounds:
    """:func:`_window` from an approximate generating function ``guide`` (cheap: pooled
    atoms, or a planning law), kept where ``kgf``'s own Chernoff bounds at its ends are
    within a factor 1e3 of the target, else from ``kgf`` itself (a window too narrow at
    the bottom lets the bulk wrap around to the top): :func:`_kept_window`."""
    return _kept_window(kgf, _window(guide, beta, log_eta, h), beta, log_eta, h)


def _kept_window(kgf: _KGF, bd: _Bounds, beta: float, log_eta: float, h: float) -> _Bounds:
    """The window ``bd`` (of an approximation of ``kgf``) where ``kgf``'s own Chernoff
    bounds at its ends are within a factor 1e3 of the target, else :func:`_window` of
    ``kgf`` itself, its search started from ``bd``'s tilts."""
    reach_hi, reach_lo = _reaches(kgf, bd, h)  # ends :func:`_span` takes to the support's
    til_hi, til_lo, _, _ = _tails(kgf, beta, bd, kgf.tmin if reach_lo else bd.A,
                                  kgf.tmax if reach_hi else bd.B)
    if max(til_hi, til_lo) > 1e3 * math.exp(log_eta):
        # (a large kgf: a few evaluations from the approximation's tilts, to 2%)
        bd = _window(kgf, beta, log_eta, h, start=bd, rtol=2e-2)
    return bd


def _span(kgf: _KGF, bd: _Bounds, off: float, h: float, reach_hi: bool = False,
          reach_lo: bool = False) -> tuple[int, int, bool, bool]:
    """Lattice indices ``[KA, KB]`` (points ``k h + off``) of a window; an end that comes
    within a quarter of the window's width (or 64 steps) of the support's end is taken to
    it (no tail bound is needed there). Returns the indices and whether each end reached
    the support's end (``bd`` is updated)."""
    hi, lo = _reaches(kgf, bd, h)
    reach_hi, reach_lo = reach_hi or hi, reach_lo or lo
    if reach_hi:
        bd.B = max(bd.B, kgf.tmax)
    if reach_lo:
        bd.A = min(bd.A, kgf.tmin)
    bd.A, bd.B = max(bd.A, kgf.tmin), min(bd.B, kgf.tmax)
    KA = int(math.floor((bd.A - off) / h + 1e-9))
    KB = int(math.ceil((bd.B - off) / h - 1e-9))
    return KA, KB, reach_hi, reach_lo


def _ends(kgf: _KGF, t: np.ndarray, off: float, h: float, KA: int, KB: int, reach_hi: bool,
          reach_lo: bool) -> tuple[float, float]:
    """The first and last loss of a window ``t``; where the window was taken to an end of
    the support, that end (its lattice index rounded: ``k h + off`` may miss it by an ulp,
    which would charge the whole top atom again as a tail)."""
    tA, tB = float(t[0]), float(t[-1])
    if reach_hi and KB >= round((kgf.tmax - off) / h):
        tB = max(tB, kgf.tmax)
    if reach_lo and KA <= round((kgf.tmin - off) / h):
        tA = min(tA, kgf.tmin)
    return tA, tB


def _tails(kgf: _KGF, beta: float, bd: _Bounds, tA: float, tB: float
           ) -> tuple[float, float, float, float]:
    r"""Chernoff bounds on the masses outside the window :math:`[t_A, t_B]`, at the tilts
    of :func:`_window`: the tilted masses above and below, and the Q-masses above and
    below, :math:`Q[S>t] \le e^{K(b) - bt}` (:math:`b > 0`), :math:`Q[S<t] \le
    e^{K(b) - bt}` (:math:`b < 0`); 1 when the tilt does not apply."""
    bh, bl = bd.b_hi, bd.b_lo
    Kh, Kl = (float(v) for v in kgf.upper(np.array([bh, bl])))
    Kb, _, _ = kgf(np.array([beta]), derivs=False)
    Kb = float(Kb[0]) - 1e-12 * abs(float(Kb[0])) - 1e-9
    none_hi = tB >= kgf.tmax  # the composed support ends inside the window
    none_lo = tA <= kgf.tmin

    def e(v: float, ok: bool = True) -> float:
        return math.exp(min(v, 0.0)) if ok and v == v else 1.0

    return (0.0 if none_hi else e(Kh - Kb - (bh - beta) * tB),
            0.0 if none_lo else e(Kl - Kb + (beta - bl) * tA),
            0.0 if none_hi else e(Kh - bh * tB, bh > 0),
            0.0 if none_lo else e(Kl - bl * tA, bl < 0))


# ---------------------------------------------------------------------------
# tilted factors and their composition
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Tilted:
    """One tilted, normalised factor: weights ``w`` at lattice indices ``k0 + i``."""

    k0: int
    w: np.ndarray
    K: float        # log of the tilted mass (cumulant generating function)
    rel: float      # entrywise relative error of w * e^K as the tilted true masses
    rho: float      # l1 (tilted, normalised) bound of the absolute errors
    rho_fft: float = 0.0  # the part of rho due to transforms' round-off (a composed block)


def _tilt_units(bt: float, m: float, n: int) -> float:
    r"""The entrywise relative error, in units of u, of a tilted factor's weights times
    :math:`e^K` (:func:`_tilt`) as its tilted masses :math:`q_k e^{\beta t_k}`, over the
    entries at or above :math:`10^{-30}` of the tilted mass (the others are charged in
    :math:`\ell_1`): ``bt`` the largest :math:`|\beta t|` there, ``m`` the largest
    exponent, ``n`` the number of entries.

    The exponent :math:`\ell = \log q + \beta t` errs by at most
    :math:`u(2|\log q| + |\beta t| + |\ell|) \le u(3|\ell| + 3|\beta t|)` (``log`` within
    2u, the product and the sum u each), with :math:`|\ell| \le |m| + 70` on those entries
    (:math:`\ell - m \ge \log 10^{-30} > -70`, as the largest weight is 1 before the
    division); :math:`\ell - m` adds :math:`70u`, ``exp`` 2u, the division by the sum
    :math:`\hat s` u. The sum's own error cancels: the weights are
    :math:`x/\hat s` and :math:`K = m + \log\hat s`, so their product holds
    :math:`\hat s` only through the rounding of :math:`\log\hat s` (2u of it, at most
    :math:`2u\log n`: :math:`1 \le \hat s \le n`) and of the sum :math:`m + \log\hat s`
    (:math:`u(|m| + \log n)`). In all :math:`u(3|\beta t| + 4|m| + 3\log n + 283)` to
    first order, charged with 300."""
    return 3.0 * bt + 4.0 * abs(m) + 3.0 * math.log(max(n, 1)) + 300.0


def _tilt(lat: _Lat, beta: float, h: float) -> _Tilted:
    """Tilt a lattice law by :math:`e^{\\beta t}` and normalise it (log space)."""
    q = lat.q
    t = (lat.k0 + np.arange(q.size)).astype(float) * h + lat.off
    with np.errstate(divide="ignore"):
        lw = np.log(q) + beta * t
    m = float(np.max(lw)) if q.size else 0.0
    if not math.isfinite(m):
        return _Tilted(lat.k0, np.zeros(q.size), -math.inf, 0.0, 0.0)
    x = np.exp(lw - m)
    s = float(_sum(x))
    w = x / s
    K = m + math.log(s)
    small = w < 1e-30
    big = ~small
    bt = float(np.max(np.abs(beta * t[big]))) if big.any() else 0.0
    rel = EPS * _tilt_units(bt, m, q.size) + lat.rel
    rho = float(_sum(w[small])) * (1.0 + rel) if small.any() else 0.0
    if lat.eidx.size:
        with np.errstate(over="ignore", invalid="ignore"):
            ew = np.exp(np.log(lat.eabs) + beta * t[lat.eidx] - K)
        rho += float(_sum(np.where(np.isfinite(ew), ew, 1e300)))
    return _Tilted(lat.k0, w, K, rel, rho)


def _tilt_many(lats: list[_Lat], beta: float, h: float) -> list[_Tilted]:
    """:func:`_tilt` of many lattice laws, in vectorised passes (segment maxima and sums)
    over consecutive parts of them (:func:`~gdp.engine.lattice._parts`); the same values
    and error bounds."""
    sizes = [lat.q.size for lat in lats]
    if min(sizes, default=0) == 0 or len(lats) < 8:
        return [_tilt(lat, beta, h) for lat in lats]
    out: list[_Tilted] = []
    for i, j in _parts(sizes):
        out += _tilt_part(lats[i:j], beta, h)
    return out


def _tilt_part(lats: list[_Lat], beta: float, h: float) -> list[_Tilted]:
    """:func:`_tilt` of lattice laws (none empty) in one vectorised pass."""
    sizes = np.array([lat.q.size for lat in lats], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    seg = np.repeat(np.arange(len(lats)), sizes)
    loc = np.arange(int(sizes.sum())) - starts[seg]
    q = np.concatenate([lat.q for lat in lats])
    k0 = np.array([lat.k0 for lat in lats], dtype=float)
    off = np.array([lat.off for lat in lats])
    t = (k0[seg] + loc) * h + off[seg]
    with np.errstate(divide="ignore"):
        lw = np.log(q) + beta * t
    m = np.maximum.reduceat(lw, starts)
    if not np.all(np.isfinite(m)):
        return [_tilt(lat, beta, h) for lat in lats]
    x = np.exp(lw - m[seg])
    s = np.add.reduceat(x, starts)
    w = x / s[seg]
    K = m + np.log(s)
    small = w < 1e-30
    bt = np.maximum.reduceat(np.where(small, 0.0, np.abs(beta * t)), starts)
    rho = np.add.reduceat(np.where(small, w, 0.0), starts)
    out = []
    for i, lat in enumerate(lats):
        rel = EPS * _tilt_units(float(bt[i]), float(m[i]), lat.q.size) + lat.rel
        r = float(rho[i]) * (1.0 + rel)
        if lat.eidx.size:
            with np.errstate(over="ignore", invalid="ignore"):
                ew = np.exp(np.log(lat.eabs) + beta * t[starts[i] + lat.eidx] - K[i])
            r += float(_sum(np.where(np.isfinite(ew), ew, 1e300)))
        out.append(_Tilted(lat.k0, w[starts[i]:starts[i] + lat.q.size], float(K[i]), rel, r))
    return out


def _conv_chunk(items: list[_Tilted], pr: _Precision = _DOUBLE
                ) -> tuple[_Tilted, float, float]:
    r"""Linear convolution of several tilted factors in one batched transform (length at
    least the combined support, so nothing wraps), the transforms in the precision ``pr``;
    returns it, the log of one plus its entrywise relative round-off and the :math:`\ell_1`
    bound of its error: with each transform off by at most :math:`\gamma` per coefficient
    (mass 1, γ in the unit of ``pr``), the product is off by at most
    :math:`\prod_j(|Z_j| + \gamma) - \prod_j |Z_j|` (both products formed by
    multiplication, their rounding charged); the inverse transform adds at most
    :math:`\min(\gamma\sum|Y|, \gamma\sqrt L\|c\|_2)`. In extended precision the result
    is rounded to double entry by entry (a relative u/2, charged as u; an underflow below
    the smallest normal double charged in l1)."""
    from scipy import fft as sfft  # loaded on first use (import time)

    tot = sum(it.w.size for it in items) - len(items) + 1
    L = sfft.next_fast_len(tot, real=True)
    X = np.zeros((len(items), L), dtype=pr.real)
    for r, it in enumerate(items):
        X[r, :it.w.size] = it.w
    Z = sfft.rfft(X, axis=1)
    Y = np.multiply.reduce(Z, axis=0)
    g = _gamma(L, pr.u)
    a = np.sqrt(Z.real * Z.real + Z.imag * Z.imag)
    k = len(items)
    with np.errstate(under="ignore"):
        up = np.multiply.reduce(a + g, axis=0)
        mag = np.multiply.reduce(a, axis=0)
    aY = np.abs(Y)
    # (the two products, by multiplication: each off by at most 2k half-ulps relative,
    # charged on the larger, and by an underflow below 1e-300)
    err = 2.0 * float(_sum(up - mag + up * (2 * k + 2) * pr.u + aY * (k + 4) * pr.u + 1e-300))
    c = sfft.irfft(Y, L)[:tot]
    err += min(2.0 * g * float(_sum(aY)), math.sqrt(L) * g * float(np.sqrt(_sum(c * c))))
    conv = 0.0
    if pr is not _DOUBLE:
        c = c.astype(np.float64)
        conv = math.log1p(EPS)
        err += tot * 2.3e-308
    return _Tilted(sum(it.k0 for it in items), np.maximum(c, 0.0),
                   math.fsum(it.K for it in items), 0.0, 0.0), conv, err


# a chunk of at least this many factors and points is convolved in a tree of pairs
# (_tree_conv), not in one batched transform, which pads every factor to the chunk's whole
# support: 1,000 distinct subsampled Gaussians (chunks of 8 to 64 factors, 37k to 73k
# points) merged in 0.64-0.82 s batched, 0.42-0.45 s in trees; chunks of 8 factors (4 ms)
# or of small support (tiny factors: a call per pair costs more) stay batched
_TREE_ROWS = 16
_TREE_POINTS = 1 << 14


def _tree_conv(items: list[_Tilted], pr: _Precision = _DOUBLE
               ) -> tuple[_Tilted, float, float]:
    """Linear convolution of several tilted factors by pairs (:func:`_lin_conv`, its
    transforms in the precision ``pr``), the two smallest first (ties by their order:
    deterministic); returns it, the log of one plus its entrywise relative round-off and
    its l1 round-off, accumulated as :func:`_merge_singles` does for its pairs."""
    heap = [(it.w.size, i, it) for i, it in enumerate(items)]
    heapq.heapify(heap)
    conv, l1, count = 0.0, 0.0, len(items)
    while len(heap) > 1:
        a = heapq.heappop(heap)[2]
        b = heapq.heappop(heap)[2]
        ab, r, e = _lin_conv(a, b, pr)
        conv += math.log1p(r)
        l1 += e
        heapq.heappush(heap, (ab.w.size, count, ab))
        count += 1
    return heap[0][2], conv, l1


def _merge_singles(items: list[_Tilted], N: int, pr: _Precision = _DOUBLE
                   ) -> tuple[list[_Tilted], float, float]:
    """Convolve many single factors into few: small ones directly in pairs (entrywise
    relative round-off), otherwise in chunks whose combined support stays within N, each
    in one batched transform (l1 round-off) or, where it holds many factors of a large
    support, in a tree of pairs (:func:`_tree_conv`), the transforms in the precision
    ``pr``. Returns the items left for the Fourier domain, log(1 + relative) and l1
    round-off (all of it the transforms')."""
    conv = 0.0
    l1 = 0.0
    while len(items) > 1:
        items = sorted(items, key=lambda it: it.w.size)
        if items[0].w.size * items[1].w.size <= 4096 and len(items) <= 64:
            ab, r, e = _lin_conv(items[0], items[1], pr)
            conv += math.log1p(r)
            l1 += e
            items = [ab] + items[2:]
            continue
        chunks: list[list[_Tilted]] = [[]]
        size = 0
        for it in items:
            if chunks[-1] and (size + it.w.size > N or len(chunks[-1]) >= 64):
                chunks.append([])
                size = 0
            chunks[-1].append(it)
            size += it.w.size
        if all(len(ch) == 1 for ch in chunks):
            break
        out = []
        for ch in chunks:
            if len(ch) == 1:
                out.append(ch[0])
            elif len(ch) >= _TREE_ROWS and sum(it.w.size for it in ch) >= _TREE_POINTS:
                it, c, e = _tree_conv(ch, pr)
                conv += c
                l1 += e
                out.append(it)
            else:
                it, c, e = _conv_chunk(ch, pr)
                conv += c
                l1 += e
                out.append(it)
        items = out
    return items, conv, l1


def _lin_conv(a: _Tilted, b: _Tilted, pr: _Precision = _DOUBLE
              ) -> tuple[_Tilted, float, float]:
    """Linear convolution of two tilted factors, directly (in double) or by transforms in
    the precision ``pr`` (in extended precision the result rounded to double entry by
    entry, a relative u/2 charged as u, an underflow in l1); returns it, its entrywise
    relative round-off and its l1 round-off."""
    from scipy import fft as sfft  # loaded on first use (import time)

    la, lb = a.w.size, b.w.size
    if la * lb <= 250_000 or min(la, lb) <= 24:
        w = np.convolve(a.w, b.w)
        return _Tilted(a.k0 + b.k0, w, a.K + b.K, 0.0, 0.0), (min(la, lb) + 2) * EPS, 0.0
    L = sfft.next_fast_len(la + lb - 1, real=True)
    A = sfft.rfft(a.w.astype(pr.real, copy=False), L)
    B = sfft.rfft(b.w.astype(pr.real, copy=False), L)
    Y = A * B
    w = sfft.irfft(Y, L)[: la + lb - 1]
    g = _gamma(L, pr.u)
    err = 2.0 * (g * float(_sum(np.abs(A))) + g * float(_sum(np.abs(B))) +
                 2.0 * g * float(_sum(np.abs(Y))))
    err = min(err, 2.0 * g * math.sqrt(L) * (float(np.sqrt(_sum(a.w * a.w)))
                                             + float(np.sqrt(_sum(b.w * b.w))))
              + math.sqrt(L) * g * float(np.sqrt(_sum(w * w))))
    rel = 0.0
    if pr is not _DOUBLE:
        w = w.astype(np.float64)
        rel = EPS
        err += w.size * 2.3e-308
    return _Tilted(a.k0 + b.k0, np.maximum(w, 0.0), a.K + b.K, 0.0, 0.0), rel, float(err)


def _spectrum(x: np.ndarray, g: float, pr: _Precision = _DOUBLE,
              roots: dict[int, np.ndarray] | None = None) -> tuple[np.ndarray, float]:
    r"""The ``rfft`` of non-negative weights ``x`` (mass about 1) and a bound on the error of
    each coefficient. Where at most four entries hold half the mass or more (a law
    concentrated on a few lattice points: the bulk of a rarely sampled step), those enter
    exactly, as :math:`x_k e^{-2\pi i (mk \bmod N)/N}` (the phase reduced in integers, the
    root a product of two from tables of :math:`\sqrt N` entries, :func:`_root_tables`: an
    error of at most :math:`16u\,x_k`), and the transform carries the rest only, whose
    round-off :math:`\gamma\sum_{\rm rest} x` is then much smaller than :math:`\gamma` (which
    a power :math:`Z^n` multiplies by about :math:`n`). ``x`` serves as scratch space and is
    left as given. ``roots``: a dict in which the table of the N roots is kept for the next
    call of one composition (17 rarely sampled phases, N = 576,000: a table per factor took
    4% of the composition)."""
    from scipy import fft as sfft  # loaded on first use (import time)

    N = x.size
    tot = float(_sum(x))
    if N < 64 or not float(np.max(x)) >= 0.125 * tot:
        # (four entries below an eighth each hold less than half: the selection below
        # cannot succeed)
        return sfft.rfft(x), g * tot
    top = _four_heaviest(x)
    mt = float(_sum(x[top]))
    if not mt >= 0.5 * tot:
        return sfft.rfft(x), g * tot
    # (the rest: x with the four at 0 for the transform, then x as it was)
    held = x[top]
    x[top] = 0.0
    Z = sfft.rfft(x)
    x[top] = held
    half = N // 2 + 1
    # (the roots of k and N - k are conjugate and k = 0's is 1, exactly: the four sit at
    # offsets -3 ... 3 of the law's point, index 0, so one root serves each pair, the
    # products taken on the real and imaginary parts; the same bound)
    pairs: dict[int, list[Any]] = {}
    for k, v in zip(top.tolist(), held, strict=True):  # (v in x's precision)
        j = k if 2 * k <= N else k - N
        pairs.setdefault(abs(j), [0.0, 0.0])[0 if j >= 0 else 1] += v
    table = None
    for j, (xp, xm) in sorted(pairs.items()):
        if j == 0:
            Z.real += xp
            continue
        if table is None:
            table = None if roots is None else roots.get(N)
        if table is None:
            # (the root of every k < N, hi[k // B] lo[k % B], in one outer product)
            B, hi, lo = _root_tables(N, pr)
            table = (hi[:, None] * lo[None, :]).reshape(-1)[:N]
            if roots is not None:
                roots[N] = table
        # the root of m j mod N for m < N/2 + 1, in j strided runs: run i holds the m with
        # i N <= m j < (i + 1) N, read in place and added run by run
        m0 = 0
        for i in range(j):
            if m0 >= half:
                break
            r = table[(-(-i * N // j)) * j - i * N::j][:half - m0]
            Z.real[m0:m0 + r.size] += (xp + xm) * r.real
            Z.imag[m0:m0 + r.size] += (xp - xm) * r.imag
            m0 += r.size
    return Z, g * (tot - mt) + 16 * pr.u * mt + 8 * pr.u * tot


def _four_heaviest(x: np.ndarray) -> np.ndarray:
    """The indices of the four heaviest entries of ``x`` (at least 4 entries), ascending:
    four passes of argmax, each found entry set aside in place and restored after (numpy's
    partition of a lattice law, mostly zeros, took 4 ms for 32,400 entries, ten times the
    transform, and a copy of x costs a pass)."""
    pick, held = [], []
    for _ in range(4):
        k = int(np.argmax(x))
        pick.append(k)
        held.append(x[k])
        x[k] = -1.0
    x[pick] = held
    return np.sort(np.array(pick))


def _own_share(w: np.ndarray, g: float, spike: bool) -> float:
    """The part of the mass of weights ``w`` that the round-off of the power of their own
    transform is relative to, about: the rest's, for a law on one point
    (:func:`_spike_power`); where the four heaviest entries hold half the mass or more,
    theirs enter exactly (:func:`_spectrum`), and the rest's share with their allowance;
    else 1."""
    tot = float(_sum(w))
    if not tot > 0:
        return 1.0
    if spike:
        return 1.0 - float(np.max(w)) / tot
    if w.size < 64 or not float(np.max(w)) >= 0.125 * tot:
        return 1.0
    mt = float(_sum(w[_four_heaviest(w)]))
    return 1.0 if not mt >= 0.5 * tot else (tot - mt) / tot + 24.0 * EPS / g


@functools.lru_cache(maxsize=16)
def _root_tables(N: int, pr: _Precision = _DOUBLE) -> tuple[int, np.ndarray, np.ndarray]:
    r"""``(B, hi, lo)`` with :math:`e^{-2\pi i j/N} = \mathrm{hi}[j \div B]\,
    \mathrm{lo}[j \bmod B]` for j = 0 … N-1, in the precision ``pr`` (B = ⌈√N⌉; read-only).

    A table of all N roots cost 50 ms for N = 480,000 in long double. Each entry is
    computed from its phase :math:`-2\pi j/N` with j reduced to (-N/2, N/2] (exact, in
    integers), whose three roundings (2π, the division, the product) put it within
    :math:`1.5u \cdot \pi` of the true angle (``hi``; ``lo``'s angles are below
    :math:`2\pi/B`, within :math:`3\pi u/B`), its cosine and sine (or the complex
    exponential) within u each, :math:`\sqrt2 u` in all; the product adds
    :math:`\sqrt5\,u`: in all :math:`(1.5\pi + 3\pi/B + 2\sqrt2 + \sqrt5)u < 10u`,
    charged 16u by :func:`_spectrum` (measured against mpmath: 2.9u in double and in long
    double)."""
    B = math.isqrt(N - 1) + 1
    out = []
    top = np.arange(B, dtype=np.int64) * B
    for j in (np.where(top > N // 2, top - N, top), np.arange(B, dtype=np.int64)):
        if pr is _DOUBLE:
            r = np.exp((-2j * math.pi / N) * j)
        else:
            ph = (-pr.two_pi / pr.real(N)) * j.astype(pr.real)
            r = np.cos(ph) + 1j * np.sin(ph)
        r.setflags(write=False)
        out.append(r)
    return B, out[0], out[1]


def _kept(lb: np.ndarray, n: int) -> np.ndarray:
    r"""The coefficients a power :math:`Z^n` keeps: :math:`n\,\mathrm{lb} > \log 10^{-40}`,
    with ``lb`` a bound on :math:`\log|Z|` (the rest are dropped, :func:`_power_from_log`)."""
    with np.errstate(invalid="ignore"):
        return n * lb > math.log(1e-40)


def _phases_kept(im: np.ndarray, re: np.ndarray, band: np.ndarray, one: float = 0.0
                 ) -> np.ndarray:
    """The phases of ``one + re + i im`` where the power keeps its coefficient (``band``,
    :func:`_kept`), 0 elsewhere (not read there): ``arctan2`` only where needed."""
    ang = np.zeros(im.shape, dtype=im.dtype)
    ang[band] = np.arctan2(im[band], one + re[band])
    return ang


def _power_from_log(la: np.ndarray, ang: np.ndarray, lb: np.ndarray, n: int,
                    pr: _Precision = _DOUBLE, band: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`e^{n(\ell + i\phi)}` for :math:`\log Z = \ell + i\phi` (``la``, ``ang``) where it
    is not negligible, and an error bound per coefficient, given ``lb`` with
    :math:`|\log(Z + \Delta Z)|`'s real part at most ``lb`` and :math:`|\Delta \log Z| \le
    \mathrm{lb} - \ell`: :math:`|e^{n\log(Z+\Delta Z)} - e^{n\log Z}| \le e^{n\ell}
    (e^{n(\mathrm{lb} - \ell)} - 1)`, plus the rounding of the exponent
    (:math:`e^{n\ell} u (n(|\ell| + |\phi|) + 8)`); where :math:`n\,\mathrm{lb} <
    \log 10^{-40}` the coefficient is dropped (error at most :math:`10^{-40}`; the phase
    ``ang`` is not read there; ``band``: :func:`_kept`'s, where the caller has it)."""
    E = np.zeros(la.size, dtype=pr.cplx)
    if band is None:
        band = _kept(lb, n)
    every = bool(band.all())
    # (a coefficient dropped is below 1e-40: that is its bound, NaN where lb is)
    dE = None if every else np.where(band, 0.0, 1e-40)
    if dE is not None:
        nan = np.isnan(lb)
        if nan.any():
            dE[nan] = np.nan
    if every or band.any():
        # (in place and part by part: in long double each pass over the spectrum counts,
        # and in double a fresh array's pages cost more than the arithmetic on them)
        lz, an, lbb = (la, ang, lb) if every else (la[band], ang[band], lb[band])
        mag = np.multiply(lz, n)
        np.exp(mag, out=mag)
        ph = np.multiply(an, n)
        np.fmod(ph, pr.two_pi, out=ph)
        cos, sin, slack = _cos_sin(ph, pr, overwrite=True)
        if every:
            np.multiply(mag, cos, out=E.real)
            np.multiply(mag, sin, out=E.imag)
        else:
            E.real[band], E.imag[band] = mag * cos, mag * sin
        # (the bounds in double: a relative error of theirs of a few u is immaterial)
        magd, lzd, and_ = (np.asarray(v, dtype=float) for v in (mag, lz, an))
        fin = np.isfinite(lzd)
        with np.errstate(over="ignore", invalid="ignore"):
            grow = np.asarray(lbb - lz, dtype=float)
            grow *= n
            np.expm1(grow, out=grow)
            grow *= magd
            rnd = np.abs(lzd)
            rnd += np.abs(and_, out=sin if pr is _DOUBLE else None)
            rnd *= n
            rnd += slack
            rnd *= np.multiply(magd, pr.u, out=cos if pr is _DOUBLE else None)
            if not fin.all():
                grow = np.where(fin, grow, np.exp(n * np.asarray(lbb, dtype=float)))
                rnd = np.where(fin, rnd, 0.0)
        grow[~np.isfinite(grow)] = 1e300
        grow += rnd
        if every:
            dE = grow
        else:
            dE[band] = grow
    return E, dE


_HALF_PI = np.longdouble("1.57079632679489661923132169163975144")


def _cos_sin(ph: np.ndarray, pr: _Precision, overwrite: bool = False
             ) -> tuple[np.ndarray, np.ndarray, float]:
    r"""cos and sin of phases ``ph`` in [0, 2π) in the precision ``pr``, and the rounding
    allowance (in units of ``pr.u``) of :math:`e^{n\log Z}` formed with them: 8 in double;
    in long double, where the platform's cos and sin cost 2–3 times more outside
    :math:`[-\pi/4, \pi/4]`, the phase is reduced by the nearest multiple k ≤ 4 of π/2 and
    the quadrant chosen by k, which moves it by at most :math:`k|\hat\pi/2 - \pi/2| +
    u\,2\pi/2 + u\,(\pi/4)/2 \le 6.7u` (π/2 rounded, the product k π/2 and the
    difference rounded): 8 + 8 = 16. ``overwrite``: in double, the sine is written over
    ``ph``."""
    if pr is _DOUBLE:
        return np.cos(ph), np.sin(ph, out=ph if overwrite else None), 8.0
    k = np.rint(ph / _HALF_PI)
    r = ph - k * _HALF_PI
    c, s = np.cos(r), np.sin(r)
    q = k.astype(np.int64) & 3
    # (quadrant q: cos = c, -s, -c, s and sin = s, c, -s, -c; a swap and exact sign flips)
    odd = (q & 1).astype(bool)
    one = np.ones(1, dtype=r.dtype)
    cos = np.where(odd, s, c) * np.where((q == 1) | (q == 2), -one, one)
    sin = np.where(odd, c, s) * np.where(q >= 2, -one, one)
    return cos, sin, 16.0


def _power_spectrum(Z: np.ndarray, n: int, g: float, pr: _Precision = _DOUBLE
                    ) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`Z^n` where it is not negligible and an error bound per coefficient, for a
    spectrum ``Z`` with per-coefficient error ``g`` (:math:`|Z + \Delta Z| \le |Z| + g`)."""
    re, im = Z.real, Z.imag
    a2 = re * re + im * im
    with np.errstate(divide="ignore"):
        la = 0.5 * np.log(a2)                                   # log|Z|
        lb = np.log1p(np.minimum(np.sqrt(a2) + g, 2.0) - 1.0)    # log(|Z| + g)
    band = _kept(lb, n)
    return _power_from_log(la, _phases_kept(im, re, band), lb, n, pr, band)


# the most the spike powers of one composition may factor out, sum of n log(S/a) over them
# (:func:`_spike_power`): the composed spectrum is their product over a^n, whose modulus at
# frequency 0 is e to that sum, and the allowances computed for mass 1 scale by it; each
# power stayed within 300 alone, but 100 phases of a run, each a law on one point raised to
# its hundreds of steps, summed to 1,324 (sigma 0.5-3, p 1e-4-0.1, up to 500 steps each,
# delta = 1e-10): the spectrum overflowed, its bound was NaN and e^1,324 raised
# OverflowError
_SPIKE_ROOM = 300.0


def _spike_power(x: np.ndarray, n: int, g: float, pr: _Precision = _DOUBLE,
                 room: float = _SPIKE_ROOM) -> tuple[np.ndarray, np.ndarray, float] | None:
    r"""The spectrum of :math:`x^{*n}/a^n` for weights ``x`` (mass about 1) holding mass
    :math:`a \ge 3/4` at index 0 (a law sitting on one lattice point, re-centred there),
    and an error bound per coefficient; None otherwise.

    With :math:`W = \hat R/a` (:math:`R` the rest, its transform off by at most
    :math:`\gamma\sum R` per coefficient, :math:`|W| \le 1/3`), :math:`\log(Z/a) =
    \operatorname{log1p}(W)` is formed without ever rounding :math:`Z = a + \hat R`
    itself: its error is at most :math:`|\Delta W|/(1 - |W| - |\Delta W|) + 4u|W|`, so the
    power's round-off is relative to the rest's mass rather than to 1 (which a power
    multiplies by :math:`n`); in extended precision, by products of :math:`(1 + W)^k - 1`
    (:func:`_spike_power_by_products`), which keeps that property. Returns the spectrum,
    the bound and :math:`\log a` (the composed masses are :math:`a^n` times the inverse
    transform). ``x`` serves as scratch space and is left as given. ``room``: the most
    :math:`n \log(S/a)` may be (S the mass of ``x``), what the composition's other spike
    powers have left of ``_SPIKE_ROOM`` (:func:`_compose`)."""
    from scipy import fft as sfft  # loaded on first use (import time)

    tot = float(_sum(x))
    a = float(x[0])
    if not (tot > 0 and a >= 0.75 * tot and n * -math.log(a / tot) <= room) or x.size < 64:
        return None  # (a^-n must stay far inside the floating-point range)
    x[0] = 0.0  # (the rest, in x itself: restored at once)
    W = sfft.rfft(x)
    x[0] = a
    W /= a
    re, im = W.real, W.imag
    if pr is _DOUBLE:
        aw = np.sqrt(re * re + im * im)
    else:  # (the bounds in double)
        aw = _modulus(W)
    dW = (g * (tot - a) + 4 * pr.u * (tot - a)) / a + 2 * pr.u * aw
    den = 1.0 - aw - dW
    if not float(np.min(den)) > 0.25:
        return None
    if pr is not _DOUBLE:
        E, dE = _spike_power_by_products(W, aw, n, dW, pr)
        return E, dE, math.log(a)
    la = 0.5 * np.log1p(2.0 * re + re * re + im * im)   # log|1 + W|
    lb = la + (dW / den + 4 * pr.u * aw)
    band = _kept(lb, n)
    E, dE = _power_from_log(la, _phases_kept(im, re, band, 1.0), lb, n, pr, band)
    return E, dE, math.log(a)


@functools.lru_cache(maxsize=2)
def _step_multiplier(N: int) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`F_m = e^{-2\pi i m/N} - 1` for m = 0 … N/2 and :math:`|F_m| = 2\sin(\pi m/N)`
    (read-only), each within :math:`5u` of :math:`|F_m|` (u = ``EPS``), from one table of
    :math:`s_k = \sin(\pi k/N)`, k = 0 … N/2: :math:`\operatorname{Re} F_m = -2s_m^2`,
    :math:`\operatorname{Im} F_m = -s_{m'}` with :math:`m' = \min(2m, N - 2m)` (the
    sine's argument in :math:`[0, \pi/2]`, where its condition number is at most 1: each
    phase is off by at most 1.5u relative, π/N rounded and the product, each sine by 2.5u,
    the square and its double by 5u)."""
    half = N // 2 + 1
    s = np.sin((math.pi / N) * np.arange(half))
    f = np.empty(half, dtype=np.complex128)
    np.multiply(s, s, out=f.real)
    f.real *= -2.0
    c1 = N // 4 + 1  # (m <= N/4: m' = 2m; above, m' = N - 2m, falling by 2 to N mod 2)
    np.negative(s[0:2 * c1:2], out=f.imag[:c1])
    np.negative(s[N - 2 * c1::-2][:half - c1], out=f.imag[c1:])
    s *= 2.0
    f.setflags(write=False)
    s.setflags(write=False)
    return f, s


def _running_sums(x: np.ndarray) -> tuple[np.ndarray, int]:
    r"""The running sums :math:`s_k = x_0 + \dots + x_k` of non-negative long-double ``x``,
    rounded to double, and m with each within :math:`m u_L s_k` before that rounding
    (:math:`u_L` the long double's unit): by blocks of B, about the square root of the
    size, each summed from its start, plus the blocks' totals before it (a running sum
    over nb blocks). A running sum of j non-negative terms errs by at most :math:`(j -
    1)u_L` of itself (to first order), so m = 2B + nb + 1, against the size itself for one
    running sum (at 950,000 entries, 1,950 against 950,000)."""
    L = x.size
    if L == 0:
        return np.zeros(0), 0
    B = math.isqrt(L - 1) + 1
    nb = -(-L // B)
    blocks = np.zeros(nb * B, dtype=x.dtype)
    blocks[:L] = x
    c = np.cumsum(blocks.reshape(nb, B), axis=1)
    c[1:] += np.cumsum(c[:-1, -1])[:, None]
    return c.reshape(-1)[:L].astype(float), 2 * B + nb + 1


def _tail_sum_power(w: np.ndarray, center: int, N: int, n: int, g: float,
                    share: float = 1.0
                    ) -> tuple[np.ndarray, np.ndarray, float, float, float] | None:
    r"""The spectrum of :math:`x^{*n}/a^n` on N points (transforms in double) for weights
    ``w`` re-centred at index ``center`` (their mean, rounded), formed from the law's tail
    sums, so that its round-off is relative to the law's spread rather than to its mass,
    and a bound per coefficient; None where the power's own transform would do better.

    Summation by parts: with :math:`d = j - c` the offsets from the centre, :math:`S =
    \sum w_j` and :math:`U_k = \sum_{d > k} w` for :math:`k \ge 0`, :math:`U_k = -\sum_{d
    \le k} w` for :math:`k < 0` (so that :math:`\sum_k |U_k| = \sum |d|\,w`, the law's
    mean absolute deviation in lattice steps),

    .. math:: Z(\omega)e^{i\omega c} = S + (e^{-i\omega} - 1)\,\hat U(\omega),

    :math:`\hat U` the transform of U on N points (folded onto them: exact at the
    frequencies :math:`2\pi m/N`). Then :math:`Z^n e^{i\omega cn} = a^n(1 + D)^n` with
    :math:`D = F\hat U/a`, :math:`F = e^{-i\omega} - 1`, and a the mass S rounded. A power
    of the transform of the law itself errs by about :math:`n\gamma` (γ = ``g``, the
    transform's round-off per coefficient, mass 1); here the transform of U errs by
    :math:`\gamma\sum|U|` and is multiplied by :math:`|F| = 2\sin(\omega/2)`, small on the
    band of low frequencies where :math:`|Z|^n` is not negligible: for the rarely sampled
    steps of a long run (σ = 0.83, p = 3e-6, 10⁷ steps, 1.6 million points) the bound of the
    whole power fell from 1.3e-6 to 3e-10 of the tilted mass, below the long double
    transform's 6e-10.

    Errors (u = ``EPS``): the tail sums are running sums in long double from the far ends
    inwards, each within :math:`m u_L` of itself (:func:`_running_sums`; :math:`u_L` the
    long double's unit), then rounded to double (u/2 each): in l1, :math:`\|\Delta U\|_1
    \le u\sum|U| + 1.01\,m\,u_L \sum|U|`; the transform adds :math:`\gamma\sum|U|` per
    coefficient; F errs by 5u of itself (:func:`_step_multiplier`), the product and the
    division by a by 2.25u of D. With :math:`|a - S| \le \theta a` (a pairwise sum in long
    double of the ``w.size`` weights, within :math:`u_L(\log_2 w.size + 16)`, rounded,
    u/2), :math:`D` is
    :math:`(S/a)` times the exact :math:`D_S = F\hat U/S`, so it is off by θ of itself, and
    :math:`S^n = a^n (S/a)^n` is a relative error of at most nθ of the whole composed law,
    returned for the caller's relative allowances. In all :math:`|\Delta D| \le
    |F|(1 + 16u)(\gamma\|U\|_1 + \|\Delta U\|_1)/a + (16u + \theta)|D|`; the power follows
    as in :func:`_spike_power` (its logarithm's route). Where :math:`|D| + |\Delta D| >
    3/4` (high frequencies, or a law far from one bulk), the coefficient is bounded by
    :math:`(|1 + D| + |\Delta D|)^n` and set to 0.

    Only the coefficients where :math:`(|1 + D| + |\Delta D|)^n` exceeds 1e-40 are worked
    on (a narrow band for long powers); the others are dropped, as
    :func:`_power_from_log` drops them.

    Returns the spectrum, the bound, :math:`\log a`, nθ, and the ratio to this bound's l2
    norm of the one the power of the law's own transform would have in long double (at
    least ``_TAIL_SUMS_RATIO`` where this route is taken: :func:`_by_tail_sums`); None
    where this bound's l2 norm is not below that of :math:`n\gamma\,|1 + D|^{n - 1}`,
    about the bound of the power of the law's own transform in double, times ``share``
    (the part of the mass its round-off is relative to: the rest's for a law on one point,
    :func:`_spike_power`)."""
    from scipy import fft as sfft  # loaded on first use (import time)

    if w.size < 64 or not 0 <= center < w.size:
        return None
    uL = _EXTENDED.u
    wl = w.astype(np.longdouble)  # (exact)
    a = float(_sum(wl))
    if not a > 0:
        return None
    theta = 0.5 * EPS + uL * (math.log2(w.size) + 16.0)
    up, m_up = _running_sums(wl[:center:-1])  # U_0, U_1, ... reversed
    up = up[::-1]
    lo, m_lo = _running_sums(wl[:center])     # -U_(-center), ..., -U_(-1)
    s_up, s_lo = float(_sum(up)), float(_sum(lo))
    l1 = s_up + s_lo
    dU = EPS * l1 + 1.01 * uL * (m_up * s_up + m_lo * s_lo)
    if up.size + lo.size <= N:
        U = np.zeros(N)
        U[:up.size] = up
        U[N - lo.size:] -= lo
    else:  # (folded onto N points)
        k = np.concatenate([np.arange(up.size), np.arange(-lo.size, 0)]) % N
        U = np.bincount(k, weights=np.concatenate([up, -lo]), minlength=N)
        dU += 2.0 * EPS * l1  # (the folding's sums)
    f, af = _step_multiplier(N)
    D = sfft.rfft(U)
    D *= f
    D /= a
    aD = np.abs(D)
    dD = af * ((g * l1 + dU) / a * (1.0 + 16 * EPS))
    dD += (16 * EPS + theta) * aD
    # (|1 + D*| <= |1 + D| + dD, rounded up, and <= S/a <= 1 + theta: where its n-th
    # power is below 1e-40 the coefficient is dropped, as _power_from_log drops one; the
    # rest, a narrow band for long powers, is all that is worked on)
    az = np.abs(D + 1.0)
    m1 = np.minimum((az + dD) * (1.0 + 4 * EPS), 1.0 + theta)
    keep = np.flatnonzero(m1 > math.exp(math.log(1e-40) / n))
    E = np.zeros(D.size, dtype=np.complex128)
    dE = np.full(D.size, 1e-40 * math.exp(4.0 * n * EPS))  # (the threshold's rounding)
    Dk, aDk, dDk = D[keep], aD[keep], dD[keep]
    den = 1.0 - aDk - dDk
    ok = den > 0.25
    re, im = Dk.real[ok], Dk.imag[ok]
    la = 0.5 * np.log1p(2.0 * re + re * re + im * im)   # log|1 + D|
    lb = la + (dDk[ok] / den[ok] + 4 * EPS * aDk[ok])
    band = _kept(lb, n)
    Ek, dEk = _power_from_log(la, _phases_kept(im, re, band, 1.0), lb, n, band=band)
    E[keep[ok]] = Ek
    dE[keep[ok]] = dEk
    bad = keep[~ok]
    with np.errstate(divide="ignore", under="ignore"):
        dE[bad] = np.exp(n * np.log(m1[bad]) * (1.0 - 1e-12)) * (1.0 + 4 * EPS)
        # (the power of the law's own transform errs by about n gamma |Z|^(n-1) per
        # coefficient; below 1e-40 it too is dropped)
        old = n * g * share * np.exp((n - 1) * np.log(np.minimum(az[keep], 1.0)))
    mine = float(_sum(dE * dE))
    theirs = float(_sum(old * old)) + (D.size - keep.size) * 1e-80
    if not mine < theirs:
        return None
    return E, dE, math.log(a), n * theta, math.sqrt(theirs / mine) * (uL / EPS)


# a complex product's normwise relative error in units of u (the spacing at 1): at most
# sqrt(5)/2 without a fused multiply-add (Brent, Percival & Zimmermann, Math. Comp. 2007),
# 1 with one (Jeannerod, Kornerup, Louvet & Muller, Math. Comp. 2017); charged 1.25
_PRODUCT_ERR = 1.25


def _spike_power_by_products(W: np.ndarray, aw: np.ndarray, n: int, dW: np.ndarray,
                             pr: _Precision) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`(1 + W)^n` and an error bound per coefficient, for ``W`` (its moduli ``aw``,
    :func:`_modulus`) within ``dW`` of the exact :math:`W_\star` (:func:`_spike_power`), by
    products of :math:`F_k = (1 +
    W)^k - 1` in the precision ``pr``, without its transcendental functions (in long
    double they cost 3–4 times the double ones, and the power was most of a block's time).

    Left-to-right binary powering: :math:`F_{2k} = F_k(F_k + 2)` and :math:`F_{k+1} = F_k
    + W(1 + F_k)`, each rounding relative to the :math:`F` it forms (the rest's share, not
    1, as in the logarithm's route). With :math:`\epsilon_k` a bound on
    :math:`|\tilde F_k - F_k^\star|`, :math:`c = (1 + u)(1 + \mu) - 1` (one sum and one
    product, :math:`\mu` = ``_PRODUCT_ERR`` u):

    * square: :math:`\epsilon_{2k} = \epsilon_k(2|1 + \tilde F_k| + \epsilon_k) + c\,|\tilde
      F_k|(|1 + \tilde F_k| + 1)` (from :math:`F^2 + 2F - G^2 - 2G = (F - G)(F + G + 2)`);
    * step: :math:`\epsilon_{k+1} = \epsilon_k(1 + |W| + \delta W) + \delta W\,|1 + \tilde
      F_k| + c(1 + u)|W||1 + \tilde F_k| + u|\tilde F_{k+1}|`;

    and :math:`E = 1 + \tilde F_n` adds :math:`u|E|`. The moduli are taken from the parts
    rounded to double (within :math:`3\,\mathrm{EPS}` relative and :math:`2\,\mathrm{EPS}
    (1 + |\tilde F|)` absolute) and the bounds carried in double."""
    u = pr.u
    c = u + _PRODUCT_ERR * u * (1.0 + u)   # ((1 + u)(1 + mu) - 1, not rounded away)
    m = W.size
    # (every pass writes into arrays made once: a fresh array of a million long-double
    # coefficients costs its pages, about 3 us per 4 KiB here, more than its arithmetic)
    t = np.empty(m, dtype=W.dtype)
    Fd = np.empty(m, dtype=np.complex128)
    a, b1, tmp = np.empty(m), np.empty(m), np.empty(m)

    def moduli(F: np.ndarray) -> None:  # (|F| into a, |1 + F| into b1, bounds raised)
        np.copyto(Fd, F, casting="same_kind")
        np.multiply(np.abs(Fd, out=a), 1.0 + 3 * EPS, out=a)
        np.add(Fd, 1.0, out=Fd)
        np.multiply(np.abs(Fd, out=b1), 1.0 + 3 * EPS, out=b1)
        np.multiply(np.add(a, 1.0, out=tmp), 2 * EPS, out=tmp)
        np.add(b1, tmp, out=b1)

    dW = np.asarray(dW, dtype=float)
    k1 = 1.0 + aw + dW
    k2 = c * (1.0 + u) * aw
    F = W.copy()
    eps = dW.copy()
    fresh = False  # (whether a and b1 hold the moduli of F as it stands)
    for bit in bin(n)[3:]:
        if not fresh:
            moduli(F)
        np.copyto(t, F)
        t.real += 2.0
        np.multiply(F, t, out=F)
        np.multiply(b1, 2.0, out=tmp)   # eps (2 b1 + eps) + c a (b1 + 1)
        tmp += eps
        eps *= tmp
        a *= c
        b1 += 1.0
        a *= b1
        eps += a
        if bit == "1":
            moduli(F)
            np.copyto(t, F)
            t.real += 1.0
            np.multiply(t, W, out=t)
            F += t
            eps *= k1                   # eps (1 + |W| + dW) + dW b1 + c (1 + u) |W| b1
            np.multiply(dW, b1, out=tmp)  # + u |F|
            eps += tmp
            np.multiply(k2, b1, out=tmp)
            eps += tmp
            moduli(F)                   # (|F| as _modulus takes it, and the next squaring's)
            eps += np.multiply(a, u, out=tmp)
        fresh = bit == "1"
    F.real += 1.0
    return F, eps + u * _modulus(F)


def _modulus(Z: np.ndarray) -> np.ndarray:
    """:math:`|Z|` in double: of a long-double array from its parts rounded to double,
    raised by 3 EPS (those two roundings and the modulus'), 20 times faster than the
    long-double modulus (a modulus below the double range is lost: at most 2.3e-308 per
    entry, as where the composed masses are rounded to double, :func:`_compose`)."""
    if Z.dtype == np.complex128:
        return np.abs(Z)
    return np.abs(Z.astype(np.complex128)) * (1.0 + 3 * EPS)


@dataclass(slots=True)
class _Composed:
    """A composed tilted law on a window, with its allowances (module docstring)."""

    c: np.ndarray   # tilted, normalised masses on the window
    K: float        # log of the tilted mass
    rel_up: float   # exact <= (1 + rel_up) c + (l1 part)
    rel_lo: float   # exact >= (1 - rel_lo) c - (l1 part)
    tau: float      # the l1 part (tilted, normalised), on either side
    log_scale: float = 0.0  # log of (the tilted mass the factors bring) / e^K: a tilted
    #                         mass m of them is m e^log_scale in units of c (a^-n factored)
    roundoff: float = 0.0   # the part of both l1 allowances due to the transforms


def _wrapped(w: np.ndarray, center: int, N: int) -> np.ndarray:
    """Weights ``w`` placed at indices ``(i - center) mod N`` of a zero array of length
    ``N`` (entries that land on one index are summed)."""
    if w.size > N:
        return np.bincount((np.arange(w.size) - center) % N, weights=w, minlength=N)
    x = np.zeros(N)
    k = (-center) % N          # where w[0] lands; w[N - k] lands at 0
    head = min(w.size, N - k)
    x[k:k + head] = w[:head]
    x[:w.size - head] = w[head:]
    return x


# the fewest factors of a power tried by tail sums (_by_tail_sums): below, the ratio found
# to long double's bound was a third at most (a block of 256 factors passed the estimate of
# _tail_sums_may_do, and its attempt took 0.14 s in vain)
_TAIL_SUMS_FROM = 1 << 17
# the least ratio of long double's bound to that of a power by tail sums for which the tail
# sums are taken (_by_tail_sums): a frame asked in long double is asked so where the double
# frame's round-off dominated its answer, and long double cuts that allowance 2**11-fold
# (u over u_L); tail sums within twice long double's bound cut it at least 2**10-fold
# (σ = 0.6, p = 1e-6, 10⁶ steps, δ = 1e-6: ratios 0.54 and 0.75 on two frames of 0.8 and
# 1.2 million points, 1.46 → 0.93 s, ε 5e-8 looser)
_TAIL_SUMS_RATIO = 0.5


def _by_tail_sums(fitems: list[tuple[_Tilted, int]], spikes: list[bool], centers: list[int],
                  N: int) -> list[tuple[np.ndarray, np.ndarray, float, float, float]] | None:
    """For a composition asked in extended precision: each factor's power by tail sums in
    double (:func:`_tail_sum_power`), where every factor is a power and each of those
    bounds is at most ``1/_TAIL_SUMS_RATIO`` times the one its own transform's power would
    have in long double (then the composition is done in double, at about half the cost);
    else None, at once where a factor's power is below ``_TAIL_SUMS_FROM``.
    ``spikes`` and ``centers``: the factors' laws on one point and their centres, as
    :func:`_compose` takes them."""
    if not _EXTENDED_GAINS or any(n < _TAIL_SUMS_FROM for _, n in fitems):
        return None
    g = _gamma(N)
    shares = [_own_share(it.w, g, spike) for (it, _), spike in zip(fitems, spikes, strict=True)]
    if not all(_tail_sums_may_do(it.w, c, n, g, sh)
               for (it, n), c, sh in zip(fitems, centers, shares, strict=True)):
        return None
    out = []
    for (it, n), center, share in zip(fitems, centers, shares, strict=True):
        ts = _tail_sum_power(it.w, center, N, n, g, share)
        if ts is None or not ts[4] >= _TAIL_SUMS_RATIO:
            return None
        out.append(ts)
    return out


def _tail_sums_may_do(w: np.ndarray, center: int, n: int, g: float, share: float) -> bool:
    r"""For speed only: whether the power by tail sums of weights ``w`` (centre ``center``)
    may do about as well as long double would (:func:`_by_tail_sums`), from a first estimate of
    the ratio of their bounds, :math:`\gamma_L\,\mathrm{share} / (\omega(\gamma\,\ell_1 +
    \Delta U))` at :math:`\omega = 1/(s\sqrt n)`, the power's spread of frequencies (s the
    law's standard deviation in lattice steps, at most 4 :math:`\ell_1`, its mean absolute
    deviation: a far thin tail widens the one, not the band; :math:`\Delta U` the running
    sums' round-off, :func:`_running_sums`): on twelve frames of rarely sampled runs it was
    0.65 to 0.85 of the ratio found (with the standard deviation alone, 5 and 70 times the
    ratio for two laws with far tails), and where it is under 0.6 of the ratio asked
    (``_TAIL_SUMS_RATIO``) the attempt, about a tenth of the long double frame's cost, is
    not made."""
    j = np.arange(w.size, dtype=float)
    tot = float(_sum(w))
    if not tot > 0:
        return False
    mean = float(_sum(w * j)) / tot
    var = float(_sum(w * (j - mean) ** 2)) / tot
    l1 = float(_sum(w * np.abs(j - center))) / tot
    if not (var > 0 and l1 > 0):
        return True
    L = max(w.size - center, center + 1)
    err = g * l1 + EPS * l1 + 3.03 * _EXTENDED.u * math.sqrt(L) * l1
    spread = min(math.sqrt(var), 4.0 * l1)
    return g * (_EXTENDED.u / EPS) * share * math.sqrt(n) * spread >= \
        0.6 * _TAIL_SUMS_RATIO * err


def _compose(items: list[tuple[_Tilted, int]], KA: int, N: int,
             pr: _Precision = _DOUBLE) -> _Composed:
    """Compose tilted factors (each raised to its power) on the window [KA, KA + N), the
    transforms in the precision ``pr``, those that merge single factors too
    (:func:`_merge_singles`; the direct convolutions stay in double; an extended result is
    rounded to double entry by entry, a relative u/2, with an underflow below the smallest
    normal double charged in l1); where ``pr`` is the extended one and the powers by tail
    sums do about as well (:func:`_by_tail_sums`), in double by tail sums. The l1 round-off
    of all the transforms is reported apart (:attr:`_Composed.roundoff`): where it sets
    an answer, a frame in extended precision can lower it."""
    from scipy import fft as sfft  # loaded on first use (import time)

    K = math.fsum(n * it.K for it, n in items)
    log_a = 0.0  # the masses factored out of powers of laws sitting on one point

    def pw(f) -> float:
        return math.fsum(n * math.log1p(min(f(it), 0.5)) for it, n in items)

    up = pw(lambda it: it.rel)
    lo = math.fsum(n * math.log1p(-min(it.rel, 0.5)) for it, n in items)
    # (the factors' l1 parts, on either side: with v_i >= b_i - d_i, b_i = (1 - r_i) w_i,
    # d_i >= 0 of l1 norm rho_i, telescoping gives ||*b - *min(v, b)||_1 <= sum_i n_i rho_i
    # prod_(j != i) ||b_j||_1; above, (1 + r + rho)^n - (1 + r)^n likewise, which bounds
    # both; the relative parts are rel_up / rel_lo)
    def l1_part(g) -> float:
        return math.expm1(pw(lambda it: it.rel + g(it))) - math.expm1(up)

    tau = l1_part(lambda it: it.rho)
    ro_items = l1_part(lambda it: it.rho_fft)  # (the part due to round-off: composed blocks)
    conv = 0.0  # log(1 + relative round-off) of the direct convolutions
    l1 = 0.0    # l1 round-off of the transforms
    l1_fft = 0.0  # ... of those of the composition (the merged singles' apart)
    singles = [it for it, n in items if n == 1]
    powers = [(it, n) for it, n in items if n > 1]
    done, c_, e_ = _merge_singles(singles, N, pr)
    conv += c_
    l1_pre = e_  # l1 round-off of the merged singles (mass 1)
    fitems = [(it, 1) for it in done] + powers
    if len(fitems) == 1 and fitems[0][1] == 1 and fitems[0][0].w.size <= N:
        it = fitems[0][0]
        c = np.zeros(N)
        idx = it.k0 - KA + np.arange(it.w.size)
        np.add.at(c, idx % N, it.w)
        l1 += l1_pre
    else:
        half = N // 2 + 1
        spikes, centers = [], []
        for it, n in fitems:
            w = it.w
            spike = bool(n > 1 and w.size and float(np.max(w)) >= 0.75 * float(_sum(w)))
            if spike:
                center = int(np.argmax(w))
            else:
                center = int(round(float(_sum(w * np.arange(w.size))))) if n > 1 else 0
            spikes.append(spike)
            centers.append(center)
        tails = _by_tail_sums(fitems, spikes, centers, N) if pr is not _DOUBLE else None
        if tails is not None:
            pr = _DOUBLE
        g = _gamma(N, pr.u)
        Y = np.ones(half, dtype=pr.cplx)
        mags, errs, norms = [], [], []
        shift = 0
        room = _SPIKE_ROOM  # (what the spike powers may still factor out)
        roots: dict[int, np.ndarray] = {}  # (the roots' table, _spectrum: one per frame)
        for i, (it, n) in enumerate(fitems):
            w, spike, center = it.w, spikes[i], centers[i]
            shift += n * (it.k0 + center)
            if tails is not None:
                E, dE, la0, rel_a, _ = tails[i]
                log_a += n * la0
                up += rel_a
                lo -= rel_a
                norms.append(-1.0)
                Y *= E
                mags.append(_modulus(E))
                errs.append(dE)
                continue
            x = _wrapped(w, center, N)
            if pr is not _DOUBLE:
                x = x.astype(pr.real)  # (exact: the weights are doubles)
            sp = _spike_power(x, n, g, pr, room) if spike else None
            if sp is not None:
                E, dE, la0 = sp
                log_a += n * la0
                room -= n * (math.log(float(_sum(x))) - la0)
                norms.append(-1.0)
            elif n == 1:
                Z, gz = _spectrum(x, g, pr, roots)
                E, dE = Z, np.full(half, gz)
                norms.append(float(np.sqrt(_sum(x * x))))
            else:
                Z, gz = _spectrum(x, g, pr, roots)
                E, dE = _power_spectrum(Z, n, gz, pr)
                norms.append(-1.0)
            if E.dtype == Y.dtype:
                Y *= E
            else:
                Y = Y * E
            mags.append(_modulus(E))
            errs.append(dE)
        # the inverse transform of a spectrum error dY has l1 norm at most
        # sqrt(N) ||.||_2 = ||dY||_2 over the whole (Hermitian) spectrum (Parseval), at
        # most sqrt(2 sum |dY_m|^2) over the half kept
        # (the errors and moduli are not read again: squared in place). Factor i's error
        # is scaled by the product over the others of (|E_j| + dE_j): their suffix products
        # first, then their prefix products (about 4F products of arrays, not F(F - 1): a
        # run in 40 rarely sampled phases spent 0.4 of its 1.5 s on them)
        F = len(mags)
        if F == 1:  # (the product over no other factor: 1)
            scaled, kept = [np.asarray(errs[0], dtype=float)], [np.ones(1)]
        else:
            scaled, kept = [None] * F, [None] * F
            suf = np.ones(half)
            for i in range(F - 1, -1, -1):
                scaled[i] = errs[i] * suf
                if norms[i] >= 0:
                    kept[i] = suf
                np.add(mags[i], errs[i], out=mags[i])  # (|E_i| + dE_i, in place)
                suf = mags[i] * suf
        pre = None
        for i in range(F):
            e = scaled[i] if pre is None else np.multiply(scaled[i], pre, out=scaled[i])
            comp = math.sqrt(2.0 * float(_sum(np.multiply(e, e, out=e))))
            if norms[i] >= 0:  # normwise (Higham 24.1): ||dZ||_2 <= g sqrt(N) ||x||_2
                prod = kept[i] if pre is None else kept[i] * pre
                comp = min(comp, g * math.sqrt(N) * norms[i] * float(np.max(prod)))
            l1 += comp
            if F > 1 and i < F - 1:
                pre = mags[i] if pre is None else pre * mags[i]
        aY = _modulus(Y)
        sY = float(_sum(aY))
        l1 += math.sqrt(2.0 * float(_sum(np.multiply(aY, aY, out=aY)))) * (len(mags) + 2) \
            * pr.u
        c0 = sfft.irfft(Y, N)
        c = np.multiply(c0, c0)
        l1 += min(2.0 * g * sY, math.sqrt(N) * g * float(np.sqrt(_sum(c))))
        np.maximum(c0, 0.0, out=c0)
        k = (KA - shift) % N  # (np.roll by -k, into c's pages)
        c[:N - k] = c0[k:]
        c[N - k:] = c0[:k]
        if pr is not _DOUBLE:
            c = c.astype(np.float64)
            up += EPS
            lo -= EPS
            l1 += N * 2.3e-308
        l1_fft = l1
        if log_a:
            # c holds the masses over a^n: the allowances computed for mass 1 scale by
            # a^-n, K by a^n (its rounding, u n |log a| at most, is a relative error)
            f = math.exp(-log_a)
            l1_pre *= f
            tau *= f
            ro_items *= f
            K += log_a
            up += EPS * (abs(log_a) + len(fitems))
            lo -= EPS * (abs(log_a) + len(fitems))
        l1 += l1_pre
    rel_up = math.expm1(up + conv)
    rel_lo = -math.expm1(lo - conv)
    return _Composed(c, K, rel_up, rel_lo, tau + l1 * (1.0 + rel_up), -log_a,
                     ro_items + (l1_fft + l1_pre) * (1.0 + rel_up))
