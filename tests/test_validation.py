"""Tests for gdp._validation: one message style, builtin exception types."""

import numpy as np
import pytest

from gdp._validation import (
    as_probability_array,
    as_real_array,
    check_int,
    check_probability,
    check_real,
)


def test_check_real_accepts_and_coerces():
    assert check_real("mu", 1) == 1.0
    assert isinstance(check_real("mu", np.float32(0.5)), float)
    assert check_real("mu", np.array(2.0)) == 2.0
    assert check_real("mu", np.inf, lo=0.0, finite=False) == np.inf


@pytest.mark.parametrize(
    ("kw", "value", "exc", "msg"),
    [
        ({"lo": 0.0}, -1.0, ValueError,
         r"^`mu` must be a non-negative finite number; got mu=-1.0$"),
        ({"lo": 0.0}, float("nan"), ValueError,
         r"^`mu` must be a non-negative finite number; got mu=nan$"),
        ({"lo": 0.0}, np.inf, ValueError,
         r"^`mu` must be a non-negative finite number; got mu=inf$"),
        ({"lo": 0.0, "finite": False}, -np.inf, ValueError,
         r"^`mu` must be a non-negative number \(inf allowed\); got mu=-inf$"),
        ({"lo": 0.0, "lo_open": True}, 0.0, ValueError,
         r"^`mu` must be a positive finite number; got mu=0.0$"),
        ({}, np.nan, ValueError, r"^`mu` must be a real finite number; got mu=nan$"),
        ({"lo": 0.0, "hi": 1.0}, 1.5, ValueError,
         r"^`mu` must be a number in \[0, 1\]; got mu=1.5$"),
        ({"lo": 0.0, "hi": 1.0, "hi_open": True}, 1.0, ValueError,
         r"^`mu` must be a number in \[0, 1\); got mu=1.0$"),
        ({}, "1", TypeError, r"^`mu` must be a real number; got mu='1'$"),
        ({}, True, TypeError, r"^`mu` must be a real number; got mu=True$"),
        ({}, None, TypeError, r"^`mu` must be a real number; got mu=None$"),
        ({}, 1 + 2j, TypeError, r"^`mu` must be a real number; got mu=\(1\+2j\)$"),
    ],
)
def test_check_real_messages(kw, value, exc, msg):
    with pytest.raises(exc, match=msg):
        check_real("mu", value, **kw)


def test_check_real_numpy_scalar_is_shown_plainly():
    with pytest.raises(ValueError, match=r"got mu=-2.0$"):
        check_real("mu", np.float64(-2.0), lo=0.0)


def test_check_int():
    assert check_int("k", 3, lo=1) == 3
    assert check_int("k", np.int64(4), lo=1) == 4
    assert check_int("k", 5.0, lo=1) == 5  # an integral float is accepted
    with pytest.raises(ValueError, match=r"^`k` must be an integer >= 1; got k=0$"):
        check_int("k", 0, lo=1)
    with pytest.raises(ValueError, match=r"^`k` must be an integer <= 3; got k=4$"):
        check_int("k", 4, hi=3)
    with pytest.raises(ValueError, match=r"^`k` must be an integer in \[1, 3\]; got k=9$"):
        check_int("k", 9, lo=1, hi=3)
    with pytest.raises(ValueError, match=r"^`k` must be an integer; got k=2.5$"):
        check_int("k", 2.5)
    with pytest.raises(ValueError, match=r"^`k` must be an integer; got k=nan$"):
        check_int("k", float("nan"))
    with pytest.raises(TypeError, match=r"^`k` must be an integer; got k=True$"):
        check_int("k", True)
    with pytest.raises(TypeError, match=r"^`k` must be an integer; got k='2'$"):
        check_int("k", "2")


def test_check_probability():
    assert check_probability("delta", 0) == 0.0
    assert check_probability("delta", 1) == 1.0
    with pytest.raises(ValueError, match=r"^`delta` must be a number in \[0, 1\]; got "
                                         r"delta=1.5$"):
        check_probability("delta", 1.5)
    with pytest.raises(ValueError, match=r"^`delta` must be a number in \(0, 1\]; got "
                                         r"delta=0.0$"):
        check_probability("delta", 0.0, open_lo=True)


def test_as_real_array_shapes_and_messages():
    a = as_real_array("eps", [[1, 2], [3, 4]], lo=0.0)
    assert a.shape == (2, 2) and a.dtype == float
    assert as_real_array("eps", 3).shape == ()
    assert as_real_array("eps", []).shape == (0,)
    with pytest.raises(ValueError, match=r"^`eps` must be a non-negative finite number "
                                         r"\(every entry\); got eps=-1.0$"):
        as_real_array("eps", [0.5, -1.0, -2.0], lo=0.0)
    with pytest.raises(ValueError, match=r"^`eps` must be a non-negative finite number; "
                                         r"got eps=nan$"):
        as_real_array("eps", float("nan"), lo=0.0)
    with pytest.raises(TypeError, match=r"^`eps` must be a real number or array of real "
                                        r"numbers; got eps='a'$"):
        as_real_array("eps", "a")
    with pytest.raises(TypeError, match=r"^`eps` must be a real number or array of real "
                                        r"numbers; got eps=True$"):
        as_real_array("eps", True)
    with pytest.raises(TypeError, match=r"got eps=\[ True False\]$"):
        as_real_array("eps", np.array([True, False]))
    with pytest.raises(TypeError, match=r"got eps=\[1.\+1.j\]$"):
        as_real_array("eps", np.array([1 + 1j]))
    with pytest.raises(TypeError, match=r"got eps=None$"):
        as_real_array("eps", None)


def test_as_probability_array():
    assert as_probability_array("alpha", 0.5).shape == ()
    with pytest.raises(ValueError, match=r"^`alpha` must be a number in \[0, 1\] \(every "
                                         r"entry\); got alpha=1.5$"):
        as_probability_array("alpha", [0.2, 1.5])
    with pytest.raises(ValueError, match=r"^`alpha` must be a number in \[0, 1\]; got "
                                         r"alpha=-0.1$"):
        as_probability_array("alpha", -0.1)
