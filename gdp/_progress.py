r"""Progress of long calls: the callback protocol, and how nested work reports into it.

A long library call (:func:`gdp.compare`, :func:`gdp.epsilon_vs_k`, the ``gdp.calibrate_*``
functions, :func:`gdp.plot.figures.draw_all`) accepts ``progress=``: a callable

.. code-block:: python

    def progress(fraction: float, message: str) -> None: ...

called synchronously, from the thread of the call, with the fraction of the work done
(in [0, 1], never decreasing; the last call of a call that completes is 1.0) and a short
message saying what is being done (``"Optimal (KOV 2015, Thm 3.3): evaluation 12 of
75"``). Its return value is ignored; an exception it raises aborts the call and
propagates (a way to cancel). The fractions count steps of the work, not seconds: a
step whose length is unknown in advance (one numeric composition) is one step.

:class:`Progress` wraps such a callable (or ``None``: then reporting costs one attribute
test) and maps the fractions of a part of the work into its share of the whole:
``p.part(i, n)`` is the i-th of n equal parts, ``p.span(a, b)`` the interval [a, b], so a
function that reports from 0 to 1 can be called as a step of a larger one.

Imports: nothing from :mod:`gdp` (ground floor).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "ProgressCallback", "as_progress"]

#: The type of a progress callback: ``progress(fraction, message)``.
ProgressCallback = Callable[[float, str], Any]


class Progress:
    """A progress callback restricted to the share ``[lo, hi]`` of the whole work.

    Fractions reported through it are clipped to [0, 1], mapped into ``[lo, hi]`` and
    never go back (a share that reports less than the last value reported anywhere in the
    same tree keeps the last value).

    Examples
    --------
    >>> from gdp._progress import Progress
    >>> seen = []
    >>> p = Progress(lambda f, m: seen.append((round(f, 3), m)))
    >>> second = p.part(1, 4)          # the second quarter of the work
    >>> second(0.5, "half of part 2")
    >>> p.done()
    >>> seen
    [(0.375, 'half of part 2'), (1.0, 'done')]
    """

    __slots__ = ("_fn", "_lo", "_hi", "_last", "_prefix")

    def __init__(self, fn: ProgressCallback | None = None, lo: float = 0.0, hi: float = 1.0,
                 _last: list[float] | None = None, _prefix: str = ""):
        self._fn = fn
        self._lo = float(lo)
        self._hi = float(hi)
        self._last = [0.0] if _last is None else _last
        self._prefix = _prefix

    def __bool__(self) -> bool:
        return self._fn is not None

    def __call__(self, fraction: float, message: str = "") -> None:
        if self._fn is None:
            return
        f = float(fraction)
        f = 0.0 if math.isnan(f) else min(max(f, 0.0), 1.0)
        value = max(self._lo + (self._hi - self._lo) * f, self._last[0])
        self._last[0] = value
        self._fn(value, f"{self._prefix}{message}")

    def span(self, a: float, b: float) -> Progress:
        """The share ``[a, b]`` (fractions of this share) as a Progress of its own."""
        lo = self._lo + (self._hi - self._lo) * float(a)
        hi = self._lo + (self._hi - self._lo) * float(b)
        return Progress(self._fn, lo, hi, self._last, self._prefix)

    def with_prefix(self, prefix: str) -> Progress:
        """The same share, with ``"<prefix>: "`` before every message."""
        return Progress(self._fn, self._lo, self._hi, self._last,
                        f"{self._prefix}{prefix}: ")

    def part(self, i: int, n: int) -> Progress:
        """The ``i``-th (from 0) of ``n`` equal shares."""
        n = max(int(n), 1)
        return self.span(i / n, (i + 1) / n)

    def done(self, message: str = "done") -> None:
        """Report the whole share as done."""
        self(1.0, message)


def as_progress(progress: Any) -> Progress:
    """The ``progress`` argument of a long call as a :class:`Progress`.

    ``None`` (no reporting), a callable ``progress(fraction, message)`` or a
    :class:`Progress`; anything else is a ``TypeError`` naming the argument.

    >>> from gdp._progress import as_progress
    >>> as_progress(None)(0.5, "nothing happens")
    >>> as_progress(3)
    Traceback (most recent call last):
    ...
    TypeError: `progress` must be None or a callable progress(fraction, message); got progress=3
    """
    if progress is None:
        return Progress()
    if isinstance(progress, Progress):
        return progress
    if not callable(progress):
        raise TypeError("`progress` must be None or a callable progress(fraction, message); "
                        f"got progress={progress!r}")
    return Progress(progress)
