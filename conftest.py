"""Configuration for every test and doctest: headless matplotlib, hypothesis settings."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")  # before anything imports matplotlib

import matplotlib  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

matplotlib.use("Agg", force=True)

settings.register_profile(
    "gdp",
    deadline=None,
    max_examples=40,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("gdp-ci", parent=settings.get_profile("gdp"), max_examples=25)
settings.load_profile(os.environ.get("GDP_HYPOTHESIS_PROFILE", "gdp"))
