"""Shared test fixtures (headless matplotlib and hypothesis are set up by ../conftest.py)."""

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    """A freshly seeded generator: every test sees the same stream."""
    return np.random.default_rng(20240531)
