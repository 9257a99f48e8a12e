"""Shared test configuration: headless matplotlib, a seeded RNG, hypothesis settings."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")  # before anything imports matplotlib

import matplotlib  # noqa: E402

matplotlib.use("Agg", force=True)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "gdp",
    deadline=None,
    max_examples=40,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("gdp-ci", parent=settings.get_profile("gdp"), max_examples=25)
settings.load_profile(os.environ.get("GDP_HYPOTHESIS_PROFILE", "gdp"))


@pytest.fixture
def rng() -> np.random.Generator:
    """A freshly seeded generator: every test sees the same stream."""
    return np.random.default_rng(20240531)
