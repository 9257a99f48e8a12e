"""Argument checks shared by every public function, with one message style.

Every message names the argument, states the rule and echoes the value, e.g.
``"`mu` must be a non-negative finite number; got mu=-1.0"``. Checks raise the
builtin :class:`TypeError` (wrong kind of object) or :class:`ValueError` (right kind,
wrong value); nothing here uses ``assert``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["check_real", "check_int", "check_probability", "as_real_array", "as_probability_array"]

def _show(value: Any) -> str:
    """Format a value for an error message without numpy's ``np.float64(...)`` noise."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=6, edgeitems=2)
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _rule(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool, finite: bool) -> str:
    if lo == 0 and hi is None:
        words = "a positive" if lo_open else "a non-negative"
    elif lo is None and hi is None:
        words = "a real"
    else:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else f"{lo:g}"
        hi_s = "inf" if hi is None else f"{hi:g}"
        return f"a number in {left}{lo_s}, {hi_s}{right}"
    return words + (" finite number" if finite else " number (inf allowed)")


def _is_real_scalar(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    return isinstance(value, numbers.Real)


def check_real(
    name: str,
    value: Any,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    finite: bool = True,
) -> float:
    """Return ``value`` as a float after checking it is a real number in the given range.

    Raises ``TypeError`` for non-numbers (including ``bool``) and ``ValueError`` for NaN,
    infinities when ``finite`` and values outside ``[lo, hi]`` (open ends as requested).
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_real_scalar(value):
        raise TypeError(f"`{name}` must be a real number; got {name}={_show(value)}")
    x = float(value)
    rule = _rule(lo, hi, lo_open, hi_open, finite)
    bad = (
        np.isnan(x)
        or (finite and np.isinf(x))
        or (lo is not None and (x < lo or (lo_open and x == lo)))
        or (hi is not None and (x > hi or (hi_open and x == hi)))
    )
    if bad:
        raise ValueError(f"`{name}` must be {rule}; got {name}={_show(value)}")
    return x


def check_int(name: str, value: Any, *, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer (not bool) in ``[lo, hi]``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
            fv = float(value)
            if np.isfinite(fv) and fv == int(fv):
                value = int(fv)
            else:
                raise ValueError(f"`{name}` must be an integer; got {name}={_show(value)}")
        else:
            raise TypeError(f"`{name}` must be an integer; got {name}={_show(value)}")
    k = int(value)
    if (lo is not None and k < lo) or (hi is not None and k > hi):
        if hi is None:
            rule = f"an integer >= {lo}"
        elif lo is None:
            rule = f"an integer <= {hi}"
        else:
            rule = f"an integer in [{lo}, {hi}]"
        raise ValueError(f"`{name}` must be {rule}; got {name}={_show(value)}")
    return k


def check_probability(name: str, value: Any, *, open_lo: bool = False,
                      open_hi: bool = False) -> float:
    """Return ``value`` as a float in [0, 1] (ends open on request)."""
    return check_real(name, value, lo=0.0, hi=1.0, lo_open=open_lo, hi_open=open_hi)


def as_real_array(
    name: str,
    value: Any,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """Return ``value`` as a float ndarray (any shape, 0-d for scalars) after range checks.

    The first offending entry is echoed in the message.
    """
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"`{name}` must be a real number or array of real numbers; "
                        f"got {name}={_show(value)}")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - exotic objects
        raise TypeError(f"`{name}` must be a real number or array of real numbers; "
                        f"got {name}={_show(value)}") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                   or arr.dtype == np.bool_):
        raise TypeError(f"`{name}` must be a real number or array of real numbers; "
                        f"got {name}={_show(value)}")
    if arr.dtype == np.bool_ or np.iscomplexobj(arr):
        raise TypeError(f"`{name}` must be a real number or array of real numbers; "
                        f"got {name}={_show(value)}")
    arr = arr.astype(float, copy=False)
    bad = np.isnan(arr)
    if finite:
        bad |= np.isinf(arr)
    if lo is not None:
        bad |= (arr < lo) | ((arr == lo) if lo_open else False)
    if hi is not None:
        bad |= (arr > hi) | ((arr == hi) if hi_open else False)
    if np.any(bad):
        first = arr[bad].flat[0] if arr.ndim else arr[()]
        rule = _rule(lo, hi, lo_open, hi_open, finite)
        where = "" if arr.ndim == 0 else " (every entry)"
        raise ValueError(f"`{name}` must be {rule}{where}; got {name}={_show(first)}")
    return arr


def as_probability_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a float ndarray with every entry in [0, 1]."""
    return as_real_array(name, value, lo=0.0, hi=1.0)
