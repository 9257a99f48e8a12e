r"""Accounting for a whole run: calibration of the noise to a privacy target.

Modules
-------
``calibrate``
    The smallest σ meeting a target (ε, δ), μ or curve, by the exact engine (sound), RDP
    or the CLT (labelled approximation).
``attack_risk``, ``risk``
    Attack risk from a curve (TPR at FPR, advantage, Bayes success, reconstruction,
    Gaussian fit) and calibration to a risk target; exposed as the module ``gdp.risk``.

Imports: every layer below (core, families, engine, sampling, approx, bounds).
"""

from __future__ import annotations

from . import calibrate, risk
from .calibrate import *

__all__ = [*calibrate.__all__, "risk"]
