r"""Long powers in two levels: blocks of factors composed on a fine lattice, then coarsened.

Connect-the-dots adds at most :math:`h^2/4` to the variance of each factor's loss, so an
:math:`n`-fold power on one lattice needs :math:`h \propto 1/\sqrt n` for a given accuracy,
and its window (which grows like :math:`\sqrt n`) then holds :math:`O(n)` points. In two
levels, a block of :math:`m` factors is composed on the fine lattice :math:`h` (a window of
:math:`O(\sqrt m)` spreads), split by connect-the-dots once more onto the lattice :math:`H = r
h` (:math:`r` an integer), and :math:`n/m` blocks are composed on :math:`H`: the added variance
is :math:`n h^2/6 + (n/m) H^2/6` on average, so :math:`H = h\sqrt{m/2}` costs no more than
halving :math:`h^2`, and both windows hold :math:`O(n^{1/4})` times fewer points than one.

Soundness (the sound side only). The profile integrand :math:`g(L) = (1 - e^{\varepsilon -
L})_+` is convex in :math:`u = e^{-L}`; splitting an atom of Q-mass :math:`q` at :math:`t \in
[t_j, t_j + H]` between the two lattice points so that both the Q-mass and the P-mass
:math:`q e^{-t}` are kept keeps the Q-mean of :math:`u`, so by Jensen's inequality it can only
raise :math:`E_Q[g(L + s)]` for every loss :math:`s` of the other factors: the coarsened
block is as sound as the block (Doroshenko et al., PETS 2022, for atomic laws). The argument
uses only the Q-measure, so it holds for the block's computed masses raised by their
allowances: the entrywise relative allowance stays relative (the split is a positive linear
map; its weights err by a few ulps each), an :math:`\ell_1` allowance of the tilted masses
grows by at most :math:`\max_s(a_s + b_s)` (the tilted weights of the split, below
:math:`e^{\lambda H}`), the block's tilted mass below its window joins its lowest point, and
its Q-mass above the window (a Chernoff bound) goes to :math:`+\infty`. The split weights'
own rounding changes a P-mass at fixed Q-mass by a relative :math:`8u`: a loss shift.

A long power beside a few other factors (the jump term of a split by the number of jumps,
:mod:`gdp.engine.jumps`: one jump factor beside the bulk's power) is composed the same way,
the few factors discretised directly at the coarse step H: each is a sound lattice law, and
their own connect-the-dots error, about :math:`H^2` once per factor, is that of one block.

Everything is done in the tilted frame of the question (tilting commutes with convolution
and the split is linear), so the block's round-off is relative to its tilted mass, as in a
one-level frame. A block's round-off is charged in :math:`\ell_1` once per block, n/m times
in all; where that dominates an answer (long runs of rarely sampled steps, whose δ is a tiny
part of the tilted mass) the engine composes the blocks in extended precision, as it does a
one-level frame's transforms (:func:`gdp.engine.fourier._compose`).

Imports: the ground floor and :mod:`gdp.engine.fourier`, :mod:`gdp.engine.lattice`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numerics import EPS
from .fourier import (
    _DOUBLE,
    _KGF,
    _Bounds,
    _compose,
    _ends,
    _guided_window,
    _Precision,
    _span,
    _sum,
    _tails,
    _tilt,
    _Tilted,
    _window,
)
from .lattice import _Lat

__all__: list[str] = []


@dataclass(slots=True)
class _Block:
    """A composed and coarsened block as a tilted factor of the coarse lattice."""

    tilted: _Tilted    # normalised tilted weights at coarse indices k0 + i, with allowances
    log_q: np.ndarray  # log Q-masses of the weights (for the cumulant generating function)
    t: np.ndarray      # their losses
    q_inf: float       # Q-mass at +inf (the factors' and the mass above the block window)
    shift: float       # loss-shift allowance (the factors' and the split's)


def _split_weights(r: int, h: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Tilted weights of the connect-the-dots split of an atom at :math:`t_j + s h` onto
    :math:`t_j` and :math:`t_j + H` (:math:`H = r h`, :math:`0 \le s < r`): Q-shares
    :math:`(e^{-sh} - e^{-H})/(1 - e^{-H})` and :math:`(1 - e^{-sh})/(1 - e^{-H})` (which
    keep the P-mass), times :math:`e^{-\lambda s h}` and :math:`e^{\lambda(H - sh)}`."""
    s = np.arange(r, dtype=float) * h
    H = r * h
    den = -math.expm1(-H)
    lower = np.exp(-s) * -np.expm1(-(H - s)) / den
    upper = -np.expm1(-s) / den
    return lower * np.exp(-lam * s), upper * np.exp(lam * (H - s))


def _coarsen(w: np.ndarray, k0: int, r: int, h: float, lam: float
             ) -> tuple[np.ndarray, int, float]:
    """Split tilted weights ``w`` at fine indices ``k0 + i`` onto the coarse lattice of
    every ``r``-th fine point. Returns the coarse weights, the coarse index of the first and
    the factor by which an l1 error of ``w`` can grow."""
    j0 = k0 // r
    lead = k0 - j0 * r
    J = -(-(lead + w.size) // r)
    pad = np.zeros(J * r)
    pad[lead:lead + w.size] = w
    W = pad.reshape(J, r)
    a, b = _split_weights(r, h, lam)
    out = np.zeros(J + 1)
    out[:J] += _sum(W * a[None, :], axis=1)
    out[1:] += _sum(W * b[None, :], axis=1)
    return out, j0, float(np.max(a + b))


def _block(lat: _Lat, m: int, h: float, r: int, lam: float, log_eta: float,
           log_tol: float, max_points: int, plan: _KGF, pr: _Precision = _DOUBLE) -> _Block:
    r"""The ``m``-fold power of a sound lattice law ``lat`` (step ``h``) composed in the
    frame of tilt ``lam`` on a window holding all but about :math:`e^{\log\eta}` of its
    tilted mass at each end, and coarsened to the step ``r h`` (module docstring). The
    window comes from ``plan``, the cumulant generating function of a coarse law close to
    ``lat``'s (taken ``m`` times; where its tilted mean or spread is off by a quarter of
    the spread, from ``lat`` itself), and reaches at least as far up as the Q-mass above
    it is :math:`e^{\log\mathrm{tol}}` (that mass goes to :math:`+\infty`); the masses
    outside it are bounded from ``lat``."""
    from scipy import fft as sfft  # loaded on first use (import time)

    kgf = _KGF([(lat, m)], h)
    off = m * lat.off
    if m == 1:
        # (one factor: its whole lattice, no tail to bound; its window is the factor's own,
        # and the windows' root searches cost more than the coarsening itself)
        bd = _Bounds(kgf.tmin, kgf.tmax, lam, lam)
        KA, KB, reach_hi, reach_lo = _span(kgf, bd, off, h, True, True)
    else:
        (_,), (mp,), (vp,) = plan(np.array([lam]))
        (_,), (ml,), (vl,) = kgf(np.array([lam]))
        close = vp > 0 and vl > 0 and abs(m * mp - ml) <= 0.25 * math.sqrt(vl) and \
            0.64 < m * vp / vl < 1.5625
        guide = plan.power(m) if close else kgf.pooled(0.01 / (1.0 + lam))
        bd = _guided_window(kgf, guide, lam, log_eta, h)
        if lam > 0:
            up = _window(guide, 0.0, log_tol, h)
            bd.B, bd.b_hi = max(bd.B, up.B), (bd.b_hi if bd.B >= up.B else up.b_hi)
        KA, KB, reach_hi, reach_lo = _span(kgf, bd, off, h)
    N = sfft.next_fast_len(max(KB - KA + 1, 16), real=True)
    if N > max_points:
        raise ValueError(f"a block of {m} factors needs {N} points, more than "
                         f"max_points={max_points}")
    comp = _compose([(_tilt(lat, lam, h), m)], KA, N, pr)
    t = (KA + np.arange(N)).astype(float) * h + off
    tA, tB = _ends(kgf, t, off, h, KA, KB, reach_hi, reach_lo)
    _, til_lo, q_hi, _ = _tails(kgf, lam, bd, tA, tB)
    c = comp.c  # (comp is not read again)
    c[0] += til_lo * math.exp(comp.log_scale)  # the tilted mass below the window, at its
    #                                            bottom (in the units of c)
    w, j0, grow = _coarsen(c, KA, r, h, lam)
    S = float(_sum(w))
    w = w / S
    K = comp.K + math.log(S)
    rel = (1.0 + comp.rel_up) * (1.0 + (r + 12) * EPS) - 1.0
    tau = comp.tau * grow / S
    H = r * h
    tc = (j0 + np.arange(w.size)).astype(float) * H + off
    with np.errstate(divide="ignore"):
        log_q = np.log(w) + K - lam * tc
    lq = m * math.log1p(-min(lat.q_inf, 1.0)) if lat.q_inf < 1 else -math.inf
    q_inf = min(1.0, (-math.expm1(lq) if math.isfinite(lq) else 1.0) * (1 + 8 * EPS * (m + 2))
                + q_hi)
    shift = m * lat.shift + 16 * EPS * (1.0 + float(np.max(np.abs(tc))))
    return _Block(_Tilted(j0, w, K, rel, tau, comp.roundoff * grow / S), log_q, tc, q_inf,
                  shift)


def _block_kgf(blocks: list[tuple[_Block, int]]) -> _KGF:
    """Cumulant generating function of the composition of blocks (each to its power)."""
    return _KGF.of_log_atoms([(b.t, b.log_q, n) for b, n in blocks])
