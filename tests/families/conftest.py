"""Shared checks of the families' tests."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from gdp.core.generic import _numeric_hockey


def _closed_hockey_vs_numeric(f, t: np.ndarray, below: float, rtol: float) -> None:
    """The closed-form profile ``f._hockey`` (raised by its rounding bound) against the
    certified upper bound computed from the curve alone: that bound is never below the exact
    value ``f._hockey_lower`` (less ``below``) and close to the closed form."""
    exact = f._hockey(t)
    numeric = _numeric_hockey(f, t)
    assert np.all(numeric >= f._hockey_lower(t) - below)
    assert_allclose(numeric, exact, rtol=rtol, atol=2e-15)


@pytest.fixture
def closed_hockey_vs_numeric():
    """:func:`_closed_hockey_vs_numeric` (the epsilon-delta and Laplace closed forms)."""
    return _closed_hockey_vs_numeric
