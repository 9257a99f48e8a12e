r"""The accuracy settings of the numeric composition engine.

:class:`Accuracy` holds the target relative accuracy of ε (``rtol``), an optional lattice
step, the tail mass allowed outside the lattice window (charged to the sound side) and a
memory cap; :func:`accuracy` builds it from the keyword arguments that :func:`gdp.compose`,
:func:`gdp.dpsgd` and friends accept.

Imports: the ground floor only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._validation import check_count, check_real

__all__ = ["Accuracy", "accuracy"]

# ---------------------------------------------------------------------------
# accuracy settings
# ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Accuracy:
    r"""Accuracy settings of the numeric composition engine.

    Parameters
    ----------
    rtol : float
        Target relative accuracy of ε (default ``1e-3``). It sets the lattice step
        :math:`h = \sqrt{8\,\mathrm{rtol}\,V/K}` from the variance :math:`V` of the composed
        privacy loss and the number :math:`K` of factors (connect-the-dots adds at most
        :math:`h^2/4` variance per factor). A heuristic: the achieved bracket is reported
        by ``epsilon_bounds``. Below the default it is taken down to the grid
        :math:`10^{-3}\cdot 10^{-k/2}` (k = 1, 2, ...; at most :math:`\sqrt{10}` finer
        than asked), and the answers are nested in those of the default and of every grid
        value between: tightening ``rtol`` never loosens a sound answer nor widens a
        bracket (at about twice the cost of one computation at the finest).
    grid_step : float, optional
        Use this lattice step :math:`h` instead.
    tail_mass : float
        Probability mass allowed outside each end of the lattice window (default
        ``1e-20``); the Chernoff bound on it is charged to the sound side.
    max_points : int
        Memory cap on the lattice size (default :math:`2^{23}`). A request that needs more
        raises ``ValueError``.

    Notes
    -----
    Each factor's lattice window ends where the mass beyond it is about ``tail_mass`` (in
    the tilted law of the frame asked); that mass is charged to :math:`+\infty`, a part
    of δ. The frames are tilted towards the ε asked, so their round-off is relative to the
    mass there and δ far below the additive floor of an untilted transform (~1e-12) is
    answered as tightly as ordinary δ, down to about :math:`10^{-3}` ``tail_mass``; below,
    the mass charged starts to count: the answer is looser (with the default ``tail_mass``,
    within 1e-4 of the answer at ``tail_mass=1e-40`` down to δ = 1e-24 for σ = 1,
    p = 0.01, T = 100 and T = 10⁴, about 0.1% above it at 1e-25, 2% to 4% at 1e-26) and
    then ``inf`` (from 1e-27 there: a δ below the mass charged cannot be certified). Lower
    ``tail_mass`` for such δ.

    Examples
    --------
    >>> import gdp
    >>> gdp.engine.accuracy(rtol=1e-5).rtol
    1e-05
    """

    rtol: float = 1e-3
    grid_step: float | None = None
    tail_mass: float = 1e-20
    max_points: int = 1 << 23

    def __post_init__(self):
        object.__setattr__(self, "rtol", check_real("rtol", self.rtol, lo=1e-12, hi=0.5))
        if self.grid_step is not None:
            object.__setattr__(self, "grid_step", check_real("grid_step", self.grid_step,
                                                             lo=1e-9, hi=10.0))
        object.__setattr__(self, "tail_mass", check_real("tail_mass", self.tail_mass,
                                                         lo=1e-300, hi=1e-3))
        object.__setattr__(self, "max_points", check_count(
            "max_points", self.max_points, lo=1024, hi=1 << 28,
            why="a lattice of 2^28 points already needs gigabytes"))


_ACC_KEYS = ("rtol", "grid_step", "tail_mass", "max_points")


def accuracy(**kwargs: Any) -> Accuracy:
    """Build :class:`Accuracy` from keyword arguments (``rtol``, ``grid_step``,
    ``tail_mass``, ``max_points``); unknown names raise ``TypeError``.

    Examples
    --------
    >>> import gdp
    >>> gdp.engine.accuracy(grid_step=1e-3).grid_step
    0.001
    """
    unknown = sorted(set(kwargs) - set(_ACC_KEYS))
    if unknown:
        raise TypeError(f"unknown accuracy keyword(s) {unknown}; expected some of "
                        f"{list(_ACC_KEYS)}")
    return Accuracy(**kwargs)
