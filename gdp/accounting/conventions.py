r"""Epochs to steps: the two conventions of the training libraries, made explicit.

Theory of operation
-------------------
A DP-SGD run is described to an accountant by its sampling rate :math:`p` and its number of
steps :math:`T`; users think in batch size :math:`B`, dataset size :math:`n` and epochs
:math:`E`. The libraries turn one into the other differently, so the same run gets two
different ε unless the convention is said:

``"opacus"``
    Opacus's ``DPDataLoader`` draws :math:`L = \lceil n/B\rceil` Poisson batches per epoch
    (``len(data_loader)``) with rate :math:`p = 1/L`: :math:`T = E\cdot L` (rounded up for a
    fractional :math:`E`). MNIST, :math:`B = 256`, :math:`n = 60{,}000`, 15 epochs:
    :math:`p = 1/235`, :math:`T = 3{,}525`.
``"tf"``
    TF-privacy's ``compute_dp_sgd_privacy`` (and BDLS): :math:`p = B/n`,
    :math:`T = \lceil E\,n/B\rceil`. The same run: :math:`p = 256/60{,}000`, :math:`T = 3{,}516`.

Given the rate :math:`p` directly (no :math:`B`, :math:`n`), both read :math:`T = \lceil
E/p\rceil`, where a quotient within a few ulps of an integer counts as that integer (so
:math:`p = 1/235`, :math:`E = 15` is 3,525 steps, not 3,526). Opacus's own
``get_noise_multiplier`` truncates :math:`E/p` instead, which can under-count a step.

:func:`epochs_to_steps` returns a frozen :class:`Schedule` that says which convention made
it (:meth:`Schedule.describe`); the accountant stores it with the steps it records, and the
command line prints it with every answer.

Imports: the ground floor only.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from .. import _validation as val

__all__ = ["CONVENTIONS", "Schedule", "epochs_to_steps"]

#: the conventions :func:`epochs_to_steps` knows
CONVENTIONS: tuple[str, ...] = ("opacus", "tf")


@dataclass(frozen=True, slots=True)
class Schedule:
    r"""A DP-SGD schedule: sampling rate and number of steps, with how they were obtained.

    Attributes
    ----------
    sample_rate : float
        Poisson sampling rate :math:`p`.
    steps : int
        Number of steps :math:`T`.
    convention : str
        ``"opacus"`` or ``"tf"`` (the rate from :math:`B, n`, the steps from the epochs, as
        the convention says), or ``"steps"`` (rate and steps given directly).
    epochs : float or None
        The epochs converted (None when the steps were given).
    batch_size, dataset_size : int or None
        :math:`B` and :math:`n` when given.
    """

    sample_rate: float
    steps: int
    convention: str
    epochs: float | None = None
    batch_size: int | None = None
    dataset_size: int | None = None

    def __post_init__(self):
        val.check_fields(self, sample_rate=val.real(lo=0.0, hi=1.0, lo_open=True),
                         steps=val.count(), convention=val.choice((*CONVENTIONS, "steps")),
                         epochs=val.optional(val.real(lo=0.0, lo_open=True)),
                         batch_size=val.optional(val.count()),
                         dataset_size=val.optional(val.count()))

    def describe(self) -> str:
        """One line saying how ``sample_rate`` and ``steps`` were obtained.

        Examples
        --------
        >>> import gdp
        >>> print(gdp.epochs_to_steps(epochs=15, batch_size=256, dataset_size=60_000,
        ...                           convention="opacus").describe())
        Opacus convention: p = 1/ceil(n/B) = 1/235, steps = epochs * ceil(n/B) = 15 * 235 = 3525
        """
        p, t, e = self.sample_rate, self.steps, self.epochs
        if self.convention == "steps":
            return f"p = {p:.6g} and steps = {t} as given (no epochs conversion)"
        per = round(1.0 / p)
        how = "p" if self.batch_size is None else self.convention
        rate = {"p": f"p = {p:.6g} given", "opacus": f"p = 1/ceil(n/B) = 1/{per}",
                "tf": f"p = B/n = {self.batch_size}/{self.dataset_size} = {p:.6g}"}[how]
        count = f"steps = {t} given" if e is None else {
            "p": f"steps = ceil(epochs / p) = {t}",
            "opacus": f"steps = epochs * ceil(n/B) = {e:g} * {per} = {t}",
            "tf": f"steps = ceil(epochs * n / B) = {t}"}[how]
        name = "Opacus" if self.convention == "opacus" else "TF-privacy"
        return f"{name} convention: {rate}, {count}"

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for JSON); None fields are left out."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def _steps_from_ratio(x: float) -> int:
    """``ceil(x)``, with a quotient within a few ulps of an integer taken as that integer."""
    r = round(x)
    if r >= 1 and abs(x - r) <= 8 * math.ulp(max(x, 1.0)):
        return int(r)
    return max(1, math.ceil(x))


def _epochs(e: float, per_epoch: float) -> float:
    """``e``, refused where ``e * per_epoch`` steps would exceed
    :data:`~gdp._validation.MAX_COUNT` (the message states the limit on the epochs)."""
    return val.check_real("epochs", e, lo=0.0, lo_open=True, hi=val.MAX_COUNT / per_epoch)


def epochs_to_steps(*, epochs: float, convention: str, batch_size: int | None = None,
                    dataset_size: int | None = None,
                    sample_rate: float | None = None) -> Schedule:
    r"""The sampling rate and number of steps of ``epochs`` epochs under a named convention.

    Parameters
    ----------
    epochs : float
        Number of epochs :math:`E > 0`.
    convention : {"opacus", "tf"}
        ``"opacus"``: :math:`p = 1/\lceil n/B\rceil`, :math:`T = \lceil E\lceil n/B\rceil
        \rceil`; ``"tf"``: :math:`p = B/n`, :math:`T = \lceil E\,n/B\rceil` (module
        docstring).
    batch_size, dataset_size : int
        Expected batch size :math:`B` and dataset size :math:`n` (:math:`1 \le B \le n`).
    sample_rate : float
        Instead of :math:`B` and :math:`n`: the rate :math:`p`, with :math:`T = \lceil E/p
        \rceil` under either convention.

    Returns
    -------
    Schedule

    Examples
    --------
    >>> import gdp
    >>> s = gdp.epochs_to_steps(epochs=15, batch_size=256, dataset_size=60_000, convention="tf")
    >>> s.steps, round(s.sample_rate, 8)
    (3516, 0.00426667)
    >>> gdp.epochs_to_steps(epochs=15, sample_rate=1 / 235, convention="opacus").steps
    3525
    """
    val.check_choice("convention", convention, CONVENTIONS)
    e = val.check_real("epochs", epochs, lo=0.0, lo_open=True)
    if sample_rate is not None:
        if batch_size is not None or dataset_size is not None:
            raise TypeError("give either `sample_rate` or `batch_size` with `dataset_size`, "
                            "not both")
        p = val.check_real("sample_rate", sample_rate, lo=0.0, hi=1.0, lo_open=True)
        return Schedule(sample_rate=p, steps=_steps_from_ratio(_epochs(e, 1.0 / p) / p),
                        convention=convention, epochs=e)
    if batch_size is None or dataset_size is None:
        raise TypeError("give `batch_size` and `dataset_size` (or `sample_rate`)")
    b = val.check_count("batch_size", batch_size)
    n = val.check_count("dataset_size", dataset_size)
    if b > n:
        raise ValueError(f"`batch_size` must be at most `dataset_size`; got batch_size={b}, "
                         f"dataset_size={n}")
    if convention == "opacus":
        per_epoch = -(-n // b)
        p, steps = 1.0 / per_epoch, _steps_from_ratio(_epochs(e, per_epoch) * per_epoch)
    else:
        p, steps = b / n, _steps_from_ratio(_epochs(e, n / b) * n / b)
    return Schedule(sample_rate=p, steps=steps, convention=convention, epochs=e,
                    batch_size=b, dataset_size=n)
