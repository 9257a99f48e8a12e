"""Fixtures of the engine's tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import mpmath
import numpy as np
import pytest

from gdp.engine import numeric
from gdp.sampling import subsampling


@pytest.fixture
def forget_memo(monkeypatch) -> Callable[[str], None]:
    """``forget_memo(tag)`` undoes one of the engine's remembered rules: before every
    frame question (:meth:`~gdp.engine.numeric._Engine._in_frames`) the memo entries whose
    key starts with ``tag`` are forgotten (e.g. ``"wide-won"``, ``"ext-went"``)."""
    def undo(tag: str) -> None:
        in_frames = numeric._Engine._in_frames

        def forgetting(self, *args, **kwargs):
            for k in [k for k in self._memo if k[0] == tag]:
                del self._memo[k]
            return in_frames(self, *args, **kwargs)

        monkeypatch.setattr(numeric._Engine, "_in_frames", forgetting)

    return undo


@pytest.fixture
def quantile_windows(monkeypatch) -> None:
    """Every engine's factor windows end at the quantiles of ``Law.quantiles``, as a tight
    engine's twin's do (:meth:`~gdp.engine.numeric._Engine._window_quantiles`): for tests
    of rules that the shorter lattices of the tight windows no longer reach."""
    monkeypatch.setattr(numeric._Engine, "_window_quantiles",
                        lambda self, law, tol: self._quantiles(law, tol))


@pytest.fixture
def discretised_points(monkeypatch) -> list[int]:
    """A list that receives, for every factor lattice an engine discretises anew
    (:meth:`~gdp.engine.numeric._Engine.lats`), its number of points (all factors)."""
    built: list[int] = []
    lats = numeric._Engine.lats

    def spy(self, side, h, order, beta=0.0):
        key = (side, h, order, self._windows(h, order, beta))
        if key not in self._lats:
            built.append(sum(kb - ka + 1 for ka, kb in key[3]))
        return lats(self, side, h, order, beta)

    monkeypatch.setattr(numeric._Engine, "lats", spy)
    return built


def _normal_cell(z0, z1):
    """Standard normal mass of (z0, z1] in the current mpmath precision, on the side of the
    shorter tail."""
    if z0 == -mpmath.inf:
        return mpmath.ncdf(z1)
    if z0 >= 0:
        return mpmath.ncdf(-z0) - mpmath.ncdf(-z1)
    return mpmath.ncdf(z1) - mpmath.ncdf(z0)


@pytest.fixture
def exact_normal_cell() -> Iterator[Callable]:
    """``cell(z0, z1)``: the standard normal mass of (z0, z1]; the test runs in 40 digits
    (mpmath's precision restored after it)."""
    old = mpmath.mp.dps
    mpmath.mp.dps = 40
    yield _normal_cell
    mpmath.mp.dps = old


@pytest.fixture
def exact_subsampled_cells() -> Iterator[Callable]:
    """``cells(s, p, edges, target)``: the P-masses, Q-masses and excesses against the loss
    ``target`` of the cells between ``edges`` (losses of the subsampled Gaussian of noise
    ``s`` and rate ``p``) in 40 digits, for the cells the law's floating point makes of
    them: the base losses u = log(1 + (e^t - 1)/p) and the P-positions (u + mu^2/2)/mu as
    rounded, the Q-positions their exact translates by -mu (the law's error bounds are for
    these cells; how far they lie from the nominal ones is a loss shift of a few ulps). The
    test runs in 40 digits (mpmath's precision restored after it)."""
    def cells(s, p, edges, target):
        mu = 1.0 / s
        m, pp = mpmath.mpf(mu), mpmath.mpf(p)
        u = subsampling._base_eps(np.asarray(edges, dtype=float), p)
        with np.errstate(all="ignore"):
            zp = (u + 0.5 * mu * mu) / mu
        z = [mpmath.mpf(float(v)) if np.isfinite(v) else -mpmath.inf for v in zp]
        ur = mpmath.log1p(mpmath.expm1(mpmath.mpf(float(target))) / pp)
        P, Q, X = [], [], []
        for a, b in zip(z[:-1], z[1:], strict=True):
            pb, qb = _normal_cell(a, b), _normal_cell(a - m, b - m)
            P.append(pb)
            Q.append((1 - pp) * pb + pp * qb)
            X.append(pp * (qb - mpmath.exp(ur) * pb))
        return P, Q, X

    old = mpmath.mp.dps
    mpmath.mp.dps = 40
    yield cells
    mpmath.mp.dps = old
