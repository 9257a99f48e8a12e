"""Fixtures of the engine's tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gdp.engine import numeric


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
