r"""Accounting for a whole run: calibration of the noise to a privacy target.

Modules
-------
``calibrate``
    The smallest σ meeting a target (ε, δ), μ or curve, by the exact engine (sound), RDP
    or the CLT (labelled approximation).
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

from . import calibrate, filters, risk, tuning_privacy
from .calibrate import *
from .filters import *
from .tuning_privacy import *

__all__ = [*calibrate.__all__, *filters.__all__, *tuning_privacy.__all__, "risk"]
