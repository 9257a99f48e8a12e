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
