r"""Composition of lattice laws: linear and Fourier convolution with sound tail bounds.

Distinct factors are combined by linear convolutions (:func:`_lin_conv`); powers and the rest
are multiplied in the Fourier domain on a circular window (:func:`_fourier`), with the
spectrum of an :math:`n`-fold power recomputed as :math:`\exp(n\log W)` where the FFT's
round-off would be amplified (:func:`_refine`). The mass outside the window is bounded by
Chernoff from the exact moment generating functions of the discretised factors
(:func:`_log_mgf`, :func:`_chernoff`) and charged to the pessimistic side; the FFT round-off
has an explicit allowance (Higham, *Accuracy and Stability of Numerical Algorithms*, §24.1).

Imports: the ground floor and :mod:`gdp.engine.lattice`.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._numerics import EPS
from .lattice import _disc_envelope, _Lat
from .laws import AtomicLaw, GenericLaw, InverseLaw, Law

__all__ = []

def _moments(law: Law, tol: float = 1e-12) -> tuple[float, float]:
    """Q-mean and Q-variance of the finite loss (coarse: only used to pick the grid)."""
    if isinstance(law, AtomicLaw) or (isinstance(law, InverseLaw)
                                      and isinstance(law.base, AtomicLaw)):
        u, _, q = law.atoms()
        s = q.sum()
        if s <= 0:
            return 0.0, 0.0
        m = float(np.dot(u, q) / s)
        return m, float(np.dot((u - m) ** 2, q) / s)
    ql, qh, _, _ = law.quantiles(tol)
    if not (np.isfinite(ql) and np.isfinite(qh)) or qh <= ql:
        return 0.5 * (ql + qh) if np.isfinite(ql + qh) else 0.0, 0.0
    hc = (qh - ql) / 4000.0
    if isinstance(law, GenericLaw):
        lat = _disc_envelope(law.f, hc, int(math.floor(ql / hc)), int(math.ceil(qh / hc)))
        u = (lat.k0 + np.arange(lat.q.size)) * hc
        q = lat.q
    else:
        e = np.linspace(ql, qh, 4001)
        P, Q, _, _ = law.cells(e)
        with np.errstate(all="ignore"):
            u = np.where((P > 0) & (Q > 0), np.log(Q) - np.log(P), 0.5 * (e[:-1] + e[1:]))
        u = np.clip(u, e[:-1], e[1:])
        q = Q
        ua, _, qa = law.atoms()
        u = np.concatenate([u, ua])
        q = np.concatenate([q, qa])
    s = q.sum()
    if s <= 0:
        return 0.0, 0.0
    m = float(np.dot(u, q) / s)
    return m, float(np.dot((u - m) ** 2, q) / s)


# ---------------------------------------------------------------------------
# moment generating functions and Chernoff bounds
# ---------------------------------------------------------------------------
def _log_mgf(lat: _Lat, h: float, lams: np.ndarray) -> np.ndarray:
    r""":math:`K(\lambda) = \log\sum_k q_k e^{\lambda t_k}` of the finite part, rounded up.

    On the lattice :math:`e^{\lambda t_k}` is a power of :math:`e^{\lambda h}`: the terms
    are built by a cumulative product from the end where they are largest (so they lie in
    :math:`(0, 1]`), with relative error at most :math:`(k+2)\epsilon`; a result that could
    have underflowed is recomputed with ``logsumexp``.
    """
    lams = np.atleast_1d(np.asarray(lams, dtype=float))
    nz = np.flatnonzero(lat.q > 0)
    if nz.size == 0:
        return np.full(lams.shape, -np.inf)
    q = lat.q[nz[0]: nz[-1] + 1]
    S = q.size
    t_lo, t_hi = (lat.k0 + nz[0]) * h + lat.off, (lat.k0 + nz[-1]) * h + lat.off
    out = np.empty(lams.size)
    for sign in (1.0, -1.0):
        sel = np.flatnonzero(np.sign(lams) == sign) if sign > 0 else \
            np.flatnonzero(lams <= 0)
        if sel.size == 0:
            continue
        lam = lams[sel]
        with np.errstate(under="ignore"):
            r = np.exp(-np.abs(lam) * h)            # step towards the small terms
            w = np.cumprod(np.broadcast_to(r[:, None], (lam.size, S)), axis=1)
            w = np.concatenate([np.ones((lam.size, 1)), w[:, :-1]], axis=1)
            qq = q[::-1] if sign > 0 else q         # start from the largest terms
            tot = w @ qq
        ref = t_hi if sign > 0 else t_lo
        with np.errstate(divide="ignore"):
            val = lam * ref + np.log(tot)
        bad = ~(tot > 1e-250)
        if bad.any():
            t = (lat.k0 + nz[0] + np.arange(S)) * h + lat.off
            with np.errstate(divide="ignore"):
                lq = np.log(q)
            val[bad] = special.logsumexp(lam[bad, None] * t[None, :] + lq[None, :], axis=1)
        out[sel] = val
    return out + (S + 8.0) * 2.0 * EPS + 1e-13 * np.abs(out)


_LAM_MULT = np.array([0.25, 0.4, 0.55, 0.7, 0.85, 1.0, 1.2, 1.45, 1.75, 2.1, 2.6, 3.3])


def _chernoff(Kp: np.ndarray, Km: np.ndarray, lams: np.ndarray, A: float, B: float
              ) -> tuple[float, float]:
    """Chernoff bounds (log) on Q[S > B] and Q[S < A] from a table of K(±λ)."""
    with np.errstate(all="ignore"):
        hi = float(np.min(Kp - lams * B))
        lo = float(np.min(Km + lams * A))
    return hi, lo


# ---------------------------------------------------------------------------
# convolution of lattice laws
# ---------------------------------------------------------------------------
def _gamma(n: int) -> float:
    """Per-coefficient round-off of an FFT of length n, relative to the l1 mass."""
    return 8.0 * EPS * (math.log2(max(n, 2)) + 4.0)


def _lin_conv(a: _Lat, b: _Lat) -> tuple[_Lat, float, float]:
    """Linear convolution; returns the result and its (relative, absolute) round-off."""
    from scipy import fft as sfft  # loaded on first use (import time)

    la, lb = a.q.size, b.q.size
    if la * lb <= 4_000_000 or min(la, lb) <= 16:
        q = np.convolve(a.q, b.q)
        return _Lat(a.k0 + b.k0, q, 0.0, off=a.off + b.off), 2.0 * min(la, lb) * EPS, 0.0
    L = sfft.next_fast_len(la + lb - 1, real=True)
    A = sfft.rfft(a.q, L)
    B = sfft.rfft(b.q, L)
    Y = A * B
    q = sfft.irfft(Y, L)[: la + lb - 1]
    g = _gamma(L)
    sa, sb = float(a.q.sum()), float(b.q.sum())
    # l1 error of the result: componentwise (|dA_m| <= g sum a) or normwise
    # (||dA||_2 <= g ||A||_2, Cauchy-Schwarz against |B|), whichever is smaller
    comp = 2.0 * (g * sb * np.abs(A).sum() + g * sa * np.abs(B).sum() + g * np.abs(Y).sum())
    n2 = lambda z: math.sqrt(2.0 * float(np.dot(np.abs(z), np.abs(z))))  # noqa: E731
    norm = 2.0 * g * n2(A) * n2(B) + math.sqrt(L) * g * float(np.linalg.norm(q))
    err = min(comp, norm)
    return _Lat(a.k0 + b.k0, np.maximum(q, 0.0), 0.0, off=a.off + b.off), 0.0, float(err)


def _refine(lat: _Lat, n: int, N: int, ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Accurate :math:`(W_m/s)^n` at frequencies ``ms`` and error bounds, with
    :math:`W_m - s = \sum_j q_j(e^{-i\theta_{jm}} - 1)` summed without cancellation."""
    q = lat.q
    s = math.fsum(q.tolist())
    keep = q > 1e-30 * s
    dropped = float(q[~keep].sum())
    j = lat.k0 + np.flatnonzero(keep)
    qq = q[keep] / s
    jc = int(round(float(np.dot(j - j[0], qq)))) + int(j[0])
    d = (j - jc) % N
    d = np.where(d > N // 2, d - N, d).astype(np.int64)
    out = np.empty(ms.size, dtype=complex)
    err = np.empty(ms.size)
    ls = math.log2(max(qq.size, 2))
    contiguous = ms.size > 1 and ms[0] == 0 and np.all(np.diff(ms) == 1)
    if contiguous:
        th = 2.0 * math.pi * d / N
        u = np.cos(th) - 1j * np.sin(th)
        v = -2.0 * np.sin(0.5 * th) ** 2 - 1j * np.sin(th)
        w = v.copy()
        re = np.zeros(ms.size)
        im = np.zeros(ms.size)
        mag = np.zeros(ms.size)
        for m in range(1, ms.size):
            if m % 8 == 0:  # re-anchor the recurrence: w = e^{-i m theta} - 1 directly
                ang = 2.0 * math.pi * ((m * d) % N) / N
                ang = np.where(ang > math.pi, ang - 2.0 * math.pi, ang)
                w = -2.0 * np.sin(0.5 * ang) ** 2 - 1j * np.sin(ang)
            re[m] = np.dot(qq, w.real)
            im[m] = np.dot(qq, w.imag)
            mag[m] = np.dot(qq, np.abs(w.real) + np.abs(w.imag))
            w = u * w + v
        steps = (np.arange(ms.size) % 8).astype(float) + 1.0
    else:
        re = np.zeros(ms.size)
        im = np.zeros(ms.size)
        mag = np.zeros(ms.size)
        for i, m in enumerate(ms.tolist()):
            ang = 2.0 * math.pi * ((int(m) * d) % N) / N
            ang = np.where(ang > math.pi, ang - 2.0 * math.pi, ang)
            wr = -2.0 * np.sin(0.5 * ang) ** 2
            wi = -np.sin(ang)
            re[i] = np.dot(qq, wr)
            im[i] = np.dot(qq, wi)
            mag[i] = np.dot(qq, np.abs(wr) + np.abs(wi))
        steps = np.zeros(ms.size)
    dz = (4.0 * steps + ls + 8.0) * EPS * mag + 2.0 * dropped / s  # |error of z|
    zr, zi = re, im
    with np.errstate(all="ignore"):
        one = 1.0 + zr
        logmod = 0.5 * np.log1p(2.0 * zr + zr * zr + zi * zi)
        arg = np.arctan2(zi, one)
        absw = np.sqrt(one * one + zi * zi)
        lw = n * logmod
        phase_int = ((ms.astype(np.int64) * (jc % N)) % N * (n % N)) % N
        phase = n * arg - 2.0 * math.pi * phase_int / N
        val = np.exp(lw) * (np.cos(phase) + 1j * np.sin(phase))
        rel = n * 2.0 * dz / np.maximum(absw - dz, 1e-300) + EPS * (
            8.0 + np.abs(lw) + np.abs(n * arg) + 2.0 * math.pi)
        e = np.abs(val) * np.expm1(np.minimum(rel, 700.0))
    out[:] = np.where(np.isfinite(val), val, 0.0)
    err[:] = np.where(np.isfinite(e), e, 2.0)
    return out, err


def _fourier(items: list[tuple[_Lat, int]], N: int) -> tuple[np.ndarray, float, float]:
    """Circular convolution of the items (each raised to its power) on N points.

    Returns (c, scale, tau): the normalised result, the total-mass scale by which to
    multiply it, and the l1 round-off allowance of the normalised result."""
    from scipy import fft as sfft  # loaded on first use (import time)

    half = N // 2 + 1
    g = _gamma(N)
    Y = np.ones(half, dtype=complex)
    mags: list[np.ndarray] = []
    errs: list[np.ndarray] = []
    x2: list[float] = []
    scale = 1.0
    for lat, n in items:
        s = math.fsum(lat.q.tolist())
        if s <= 0:
            return np.zeros(N), 0.0, 0.0
        scale *= s ** n if n * math.log(s) > -700 else 0.0
        x = np.bincount((lat.k0 + np.arange(lat.q.size)) % N, weights=lat.q / s, minlength=N)
        Z = sfft.rfft(x)
        if n == 1:
            E, dE = Z, np.full(half, g)
        else:
            aZ = np.abs(Z)
            with np.errstate(all="ignore"):
                E = Z ** n
                dE = n * np.exp((n - 1) * np.log1p(np.minimum(aZ + g, 2.0) - 1.0)) * g
                dE = dE + np.abs(E) * EPS * (n * (np.abs(np.log(aZ)) + 4.0) + 4.0)
            dE = np.where(np.isfinite(dE), dE, 2.0)
            band = np.flatnonzero(dE > 1e-24)
            if band.size:
                if band[0] != 0:
                    band = np.concatenate([[0], band])
                gap = np.flatnonzero(band != np.arange(band.size))
                low = band[: gap[0]] if gap.size else band  # contiguous run from 0
                rest = band[low.size:]
                for ms in (low, rest):
                    if ms.size:
                        v, e = _refine(lat, n, N, ms)
                        E[ms], dE[ms] = v, e
        Y = Y * E
        mags.append(np.abs(E))
        errs.append(dE)
        x2.append(float(np.linalg.norm(x)) if n == 1 else -1.0)
    # l1 error: sum over the spectrum of |dY|; for a single (unpowered) item the
    # transform error may instead be bounded normwise, ||dZ||_2 <= g sqrt(N) ||x||_2
    # (Higham 24.1), against the 2-norm of the rest (Cauchy-Schwarz)
    tau = 0.0
    for i in range(len(items)):
        prod = np.ones(half)
        for j in range(len(items)):
            if j != i:
                prod = prod * (mags[j] + errs[j])
        comp = 2.0 * float(np.dot(errs[i], prod))
        if x2[i] >= 0:
            comp = min(comp, 2.0 * g * math.sqrt(N) * x2[i] * float(np.linalg.norm(prod)))
        tau += comp
    tau += 2.0 * float(np.sum(np.abs(Y))) * (len(items) + 2) * EPS
    c = sfft.irfft(Y, N)
    tau += min(2.0 * g * float(np.sum(np.abs(Y))), math.sqrt(N) * g * float(np.linalg.norm(c)))
    return np.maximum(c, 0.0), scale, tau


@dataclass(slots=True)
class _Result:
    """One discretised composition (one side of one order) on the window [KA, KA+N)."""

    h: float
    KA: int
    c: np.ndarray       # Q-masses on the window (aliased)
    q_inf: float        # exact composed mass at +inf
    rel: float          # multiplicative allowance (relative errors of the masses)
    tau: float          # additive l1 allowance (round-off, absolute error parts)
    m_hi: float         # Chernoff bound on the mass above the window
    m_lo: float         # Chernoff bound on the mass below the window
    off: float = 0.0    # lattice offset: entry i sits at loss (KA + i) h + off
    shift: float = 0.0  # loss-shift allowance (charged upwards / downwards)


def _compose_lats(items: list[tuple[_Lat, int]], KA: int, N: int
                  ) -> tuple[np.ndarray, float, float, float, float]:
    """Compose lattice laws on the circular window; returns (c, q_inf, rel, tau, shift)."""
    rel = sum(n * lat.rel for lat, n in items)
    tau = sum(n * lat.abs for lat, n in items)
    shift = sum(n * lat.shift for lat, n in items)
    with np.errstate(divide="ignore"):
        lq = sum(n * math.log1p(-min(lat.q_inf, 1.0)) if lat.q_inf < 1 else -np.inf
                 for lat, n in items)
    q_inf = -math.expm1(lq) if np.isfinite(lq) else 1.0
    singles = [lat for lat, n in items if n == 1]
    powers = [(lat, n) for lat, n in items if n > 1]
    heap = [(lat.q.size, i, lat) for i, lat in enumerate(singles)]
    heapq.heapify(heap)
    done: list[_Lat] = []
    counter = len(heap)
    while len(heap) >= 2:
        la, _, a = heapq.heappop(heap)
        lb, _, b = heapq.heappop(heap)
        if la + lb - 1 > N:
            done.extend([a, b])
            done.extend(x[2] for x in heap)
            heap = []
            break
        ab, r, e = _lin_conv(a, b)
        rel += r
        tau += e
        heapq.heappush(heap, (ab.q.size, counter, ab))
        counter += 1
    done.extend(x[2] for x in heap)
    fitems = [(lat, 1) for lat in done] + powers
    if len(fitems) == 1 and fitems[0][1] == 1 and fitems[0][0].q.size <= N:
        lat = fitems[0][0]
        c = np.bincount((lat.k0 + np.arange(lat.q.size)) % N, weights=lat.q, minlength=N)
    else:
        c, scale, t = _fourier(fitems, N)
        c = c * scale
        tau += t * scale
    c = np.roll(c, -(KA % N))
    return c, q_inf, rel, tau, shift
