"""Argument checks shared by every public function, with one message style.

Every message names the argument, states the rule and echoes the value, e.g.
``"`mu` must be a non-negative finite number; got mu=-1.0"``. Checks raise the
builtin :class:`TypeError` (wrong kind of object) or :class:`ValueError` (right kind,
wrong value); nothing here uses ``assert``.

Besides numbers and arrays (:func:`check_real`, :func:`check_int`, :func:`as_real_array`)
there are checks for counts with an explicit limit (:func:`check_count`: sizes that would
make a computation run for minutes or overflow are refused up front), choices, flags,
strings, callables and instances of a class, for unexpected keyword arguments
(:func:`check_keywords`), and :func:`check_fields`, which validates the fields of a frozen
dataclass in its ``__post_init__`` with rules built by :func:`real`, :func:`integer`,
:func:`count`, :func:`choice`, :func:`flag`, :func:`text`, :func:`instance` and :func:`optional`.

Imports: nothing of the package (the ground floor).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

__all__ = [
    "MAX_COUNT", "check_real", "check_int", "check_count", "check_probability", "check_choice",
    "check_bool", "check_str", "check_callable", "check_instance", "check_keywords",
    "as_real_array", "as_probability_array", "check_fields", "real", "integer", "count",
    "choice", "flag", "text", "instance", "optional", "shown",
]

#: The largest count (compositions, steps, repetitions, group sizes) accepted anywhere:
#: beyond it a count is no longer exact in floating point, and no accounting question needs
#: more. Constructions that do work proportional to a count have smaller, stated limits.
MAX_COUNT = 10**15

_SHOW_MAX = 60


def _show(value: Any) -> str:
    """Format a value for an error message without numpy's ``np.float64(...)`` noise;
    long values (a 400-digit integer, a big array) are shortened."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=6, edgeitems=2)
    else:
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
            digits = len(str(abs(value)))
            return f"{'-' if value < 0 else ''}{str(abs(value))[:4]}...({digits} digits)"
        text = repr(value)
    if len(text) > _SHOW_MAX:
        text = text[: _SHOW_MAX - 3] + "..."
    return text


def shown(value: Any) -> str:
    """A value as the messages echo it (for checks written outside this module)."""
    return _show(value)


def _num(v: float) -> str:
    """A bound for a rule: ``10**15`` rather than ``1e+15``, ``0.5`` rather than ``0.50``."""
    if isinstance(v, int) and abs(v) >= 10**6 and str(abs(v)).rstrip("0") == "1":
        return f"10**{len(str(abs(v))) - 1}"
    return f"{v:g}"


def _rule(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool, finite: bool) -> str:
    if lo == 0 and hi is None:
        words = "a positive" if lo_open else "a non-negative"
    elif lo is None and hi is None:
        words = "a real"
    else:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else _num(lo)
        hi_s = "inf" if hi is None else _num(hi)
        return f"a number in {left}{lo_s}, {hi_s}{right}"
    return words + (" finite number" if finite else " number (inf allowed)")


def _is_real_scalar(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    return isinstance(value, numbers.Real)


def _too_large(name: str, value: Any, rule: str) -> ValueError:
    return ValueError(f"`{name}` must be {rule}; got {name}={_show(value)} (too large for a "
                      "floating-point number)")


def check_real(name: str, value: Any, *, lo: float | None = None, hi: float | None = None,
               lo_open: bool = False, hi_open: bool = False, finite: bool = True,
               zero_ok: bool = False) -> float:
    """Return ``value`` as a float after checking it is a real number in the given range.

    Raises ``TypeError`` for non-numbers (including ``bool``) and ``ValueError`` for NaN,
    infinities when ``finite``, integers too large for a float, and values outside
    ``[lo, hi]`` (open ends as requested). ``zero_ok`` also admits an exact 0 below a
    positive ``lo`` (a noise scale that is 0 or at least 1e-300).
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_real_scalar(value):
        raise TypeError(f"`{name}` must be a real number; got {name}={_show(value)}")
    rule = ("0 or " if zero_ok else "") + _rule(lo, hi, lo_open, hi_open, finite)
    try:
        x = float(value)
    except OverflowError:
        raise _too_large(name, value, rule) from None
    if zero_ok and x == 0.0:
        return 0.0
    bad = (
        math.isnan(x)
        or (finite and math.isinf(x))
        or (lo is not None and (x < lo or (lo_open and x == lo)))
        or (hi is not None and (x > hi or (hi_open and x == hi)))
    )
    if bad:
        raise ValueError(f"`{name}` must be {rule}; got {name}={_show(value)}")
    return x


def _int_rule(lo: int | None, hi: int | None) -> str:
    if lo is None and hi is None:
        return "an integer"
    if hi is None:
        return f"an integer >= {_num(lo)}"
    if lo is None:
        return f"an integer <= {_num(hi)}"
    return f"an integer in [{_num(lo)}, {_num(hi)}]"


def check_int(name: str, value: Any, *, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer (not bool) in ``[lo, hi]``.

    An integral float (``5.0``) is accepted; ``2.5``, NaN and infinities are not.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
            fv = float(value)
            if math.isfinite(fv) and fv == int(fv):
                value = int(fv)
            else:
                raise ValueError(f"`{name}` must be an integer; got {name}={_show(value)}")
        else:
            raise TypeError(f"`{name}` must be an integer; got {name}={_show(value)}")
    k = int(value)
    if (lo is not None and k < lo) or (hi is not None and k > hi):
        raise ValueError(f"`{name}` must be {_int_rule(lo, hi)}; got {name}={_show(value)}")
    return k


def check_count(name: str, value: Any, *, lo: int = 1, hi: int = MAX_COUNT,
                why: str = "") -> int:
    """An integer count in ``[lo, hi]`` (default ``hi`` = :data:`MAX_COUNT`).

    ``why`` (e.g. ``"the exact binomial law has k + 1 atoms"``) is appended to the message
    when the count is above the limit, so the limit is explained where it is hit.
    """
    k = check_int(name, value, lo=lo)
    if k > hi:
        tail = f" ({why})" if why else ""
        raise ValueError(f"`{name}` must be {_int_rule(lo, hi)}{tail}; got "
                         f"{name}={_show(value)}")
    return k


def check_probability(name: str, value: Any, *, open_lo: bool = False,
                      open_hi: bool = False) -> float:
    """Return ``value`` as a float in [0, 1] (ends open on request)."""
    return check_real(name, value, lo=0.0, hi=1.0, lo_open=open_lo, hi_open=open_hi)


def check_choice(name: str, value: Any, choices: Iterable[Any], *, what: str = "") -> Any:
    """``value`` if it is one of ``choices`` (compared with ``==``: strings, numbers, enum
    members; containers are never a choice). ``what`` describes the choices in the message
    when their reprs would not (enum members)."""
    options = tuple(choices)
    if not isinstance(value, np.ndarray | list | tuple | dict | set):  # == is elementwise
        try:
            if value in options:
                return value
        except (TypeError, ValueError):  # an object whose == refuses the comparison
            pass
    rule = what or "one of " + ", ".join(repr(c) for c in options)
    if all(isinstance(c, str) for c in options) and not isinstance(value, str):
        raise TypeError(f"`{name}` must be {rule}; got {name}={_show(value)}")
    raise ValueError(f"`{name}` must be {rule}; got {name}={_show(value)}")


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool; only ``True``/``False`` (and numpy booleans) are accepted."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"`{name}` must be True or False; got {name}={_show(value)}")
    return bool(value)


def check_str(name: str, value: Any, *, nonempty: bool = False) -> str:
    """``value`` if it is a string (non-empty on request)."""
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a string; got {name}={_show(value)}")
    if nonempty and not value.strip():
        raise ValueError(f"`{name}` must be a non-empty string; got {name}={value!r}")
    return value


def check_callable(name: str, value: Any, what: str = "callable") -> Any:
    """``value`` if it is callable; ``what`` describes the expected signature."""
    if not callable(value) or isinstance(value, type):
        raise TypeError(f"`{name}` must be {what}; got {name}={_show(value)}")
    return value


def check_instance(name: str, value: Any, cls: type | tuple[type, ...], what: str) -> Any:
    """``value`` if it is an instance of ``cls``; ``what`` names the expected kind
    (``"a TradeOff"``)."""
    if not isinstance(value, cls):
        raise TypeError(f"`{name}` must be {what}; got {name}={_show(value)}")
    return value


def check_keywords(func: str, given: Mapping[str, Any], allowed: Iterable[str], *,
                   expects: str = "", kind: str = "") -> None:
    """Refuse keyword arguments of ``func`` that are not in ``allowed``, naming them and
    what ``func`` expects (``expects``, or the allowed names); ``kind`` qualifies them
    (``"accuracy "``: keywords collected by ``**kw``)."""
    allowed = tuple(allowed)
    unknown = [k for k in given if k not in allowed]
    if unknown:
        want = expects or ", ".join(f"`{k}`" for k in allowed)
        raise TypeError(f"{func}() got unknown {kind}keyword(s) {unknown!r}; it expects "
                        f"{want}")


def as_real_array(name: str, value: Any, *, lo: float | None = None, hi: float | None = None,
                  lo_open: bool = False, hi_open: bool = False, finite: bool = True,
                  min_size: int = 0, max_ndim: int | None = None) -> np.ndarray:
    """Return ``value`` as a float ndarray (any shape, 0-d for scalars) after range checks.

    The first offending entry is echoed in the message. ``min_size`` refuses arrays with
    fewer entries (``min_size=1``: no empty arrays), ``max_ndim`` arrays of more dimensions.
    """
    kind = "a real number or array of real numbers"
    if isinstance(value, bool | np.bool_ | str | bytes) or value is None:
        raise TypeError(f"`{name}` must be {kind}; got {name}={_show(value)}")
    rule = _rule(lo, hi, lo_open, hi_open, finite)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists and other odd objects
        raise TypeError(f"`{name}` must be {kind}; got {name}={_show(value)}") from exc
    if arr.dtype == object:
        try:
            arr = np.asarray(value, dtype=float)
        except OverflowError:
            raise _too_large(name, value, rule) from None
        except (ValueError, TypeError) as exc:
            raise TypeError(f"`{name}` must be {kind}; got {name}={_show(value)}") from exc
    if not np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_ \
            or np.iscomplexobj(arr):
        raise TypeError(f"`{name}` must be {kind}; got {name}={_show(value)}")
    if max_ndim is not None and arr.ndim > max_ndim:
        want = "a number" if max_ndim == 0 else f"at most {max_ndim}-dimensional"
        raise ValueError(f"`{name}` must be {want}; got a {arr.ndim}-dimensional array "
                         f"{name}={_show(arr)}")
    if arr.size < min_size:
        raise ValueError(f"`{name}` must hold at least {min_size} value"
                         f"{'s' if min_size > 1 else ''}; got {name}={_show(value)}")
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
        where = "" if arr.ndim == 0 else " (every entry)"
        raise ValueError(f"`{name}` must be {rule}{where}; got {name}={_show(first)}")
    return arr


def as_probability_array(name: str, value: Any, **kw: Any) -> np.ndarray:
    """Return ``value`` as a float ndarray with every entry in [0, 1]."""
    return as_real_array(name, value, lo=0.0, hi=1.0, **kw)


# ---------------------------------------------------------------------------
# fields of frozen dataclasses
# ---------------------------------------------------------------------------
Rule = Callable[[str, Any], Any]


def real(**kw: Any) -> Rule:
    """A field rule: :func:`check_real` with these keywords."""
    return lambda name, value: check_real(name, value, **kw)


def integer(**kw: Any) -> Rule:
    """A field rule: :func:`check_int` with these keywords."""
    return lambda name, value: check_int(name, value, **kw)


def count(**kw: Any) -> Rule:
    """A field rule: :func:`check_count` with these keywords."""
    return lambda name, value: check_count(name, value, **kw)


def choice(options: Iterable[Any]) -> Rule:
    """A field rule: :func:`check_choice` among ``options``."""
    options = tuple(options)
    return lambda name, value: check_choice(name, value, options)


def flag() -> Rule:
    """A field rule: :func:`check_bool`."""
    return check_bool


def text() -> Rule:
    """A field rule: :func:`check_str`."""
    return check_str


def instance(cls: type | tuple[type, ...], what: str) -> Rule:
    """A field rule: :func:`check_instance`."""
    return lambda name, value: check_instance(name, value, cls, what)


def optional(rule: Rule) -> Rule:
    """A field rule that lets ``None`` through and applies ``rule`` otherwise."""
    return lambda name, value: None if value is None else rule(name, value)


def check_fields(obj: Any, **rules: Rule) -> None:
    """Check (and normalise) fields of a frozen dataclass ``obj`` in its ``__post_init__``:
    ``check_fields(self, mu=real(lo=0.0), n=count())``."""
    for name, rule in rules.items():
        object.__setattr__(obj, name, rule(name, getattr(obj, name)))
