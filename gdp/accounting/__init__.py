r"""Accounting for a whole run: calibration, the accountant, conventions, DpEvents.

Modules
-------
``calibrate``
    The smallest σ meeting a target (ε, δ), μ or curve, by the exact engine (sound), RDP
    or the CLT (labelled approximation).
``conventions``
    Epochs to steps and sampling rate, the Opacus and the TF-privacy way (:class:`Schedule`).
``factors``
    The factors of a ledger (DP-SGD steps, curves) and their composition by the engine.
``dp_event``
    dp-accounting's ``DpEvent`` trees read as trade-off curves (:func:`from_dp_event`).
``state``
    The saved form of an accountant: curve specs, versioned and checksummed envelope.
``budget``
    Privacy budgets, what is spent and left, :class:`BudgetExceeded`.
``ledger``
    :class:`Accountant`, the append-only ledger with an optional budget.
``opacus``, ``dpaccounting`` (loaded on use, not by this package)
    The Opacus ``IAccountant`` and the dp-accounting ``PrivacyAccountant`` faces of the
    ledger; reach them as ``gdp.opacus`` and ``gdp.dpaccounting``.
``tuning_privacy``
    Hyperparameter tuning: the curve of "train K times (K random), release the best run"
    (:func:`tuning`), the RDP bounds it is compared with, and :func:`compare_tuning`.
``filters``
    Privacy filters and odometers for fully adaptive composition of certified μ-GDP
    mechanisms (Smith–Thakurta).
``attack_risk``, ``risk``
    Attack risk from a curve (TPR at FPR, advantage, Bayes success, reconstruction,
    Gaussian fit) and calibration to a risk target; exposed as the module ``gdp.risk``.

Imports: every layer below (core, families, engine, sampling, approx, bounds).
"""

from __future__ import annotations

from . import budget, calibrate, conventions, dp_event, filters, ledger, risk, tuning_privacy
from .budget import *
from .calibrate import *
from .conventions import *
from .dp_event import *
from .filters import *
from .ledger import *
from .tuning_privacy import *

__all__ = [*calibrate.__all__, *conventions.__all__, *dp_event.__all__, *budget.__all__,
           *ledger.__all__, *filters.__all__, *tuning_privacy.__all__, "risk"]
