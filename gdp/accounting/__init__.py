r"""Accounting for a whole run: calibration of the noise to a privacy target.

Modules
-------
``calibrate``
    The smallest σ meeting a target (ε, δ), μ or curve, by the exact engine (sound), RDP
    or the CLT (labelled approximation).

Imports: every layer below (core, families, engine, sampling, approx, bounds).
"""

from __future__ import annotations

from . import calibrate
from .calibrate import *

__all__ = [*calibrate.__all__]
