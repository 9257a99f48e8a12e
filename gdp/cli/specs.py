r"""The mechanism and curve specifications of the command line.

``gauss:1``, ``lap:0.5``, ``rr:1``, ``eps-delta:1,1e-6``, ``dpsgd:1.1,0.01`` with an optional
repetition ``x100`` (:func:`parse_mechanism`, :func:`parse_curve`), and the same list read
from a JSON file (:func:`load_mechanisms`); every malformed spec is a one-line error naming it.

Imports: :mod:`gdp` (its public names).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gdp

from .._validation import MAX_COUNT, check_count, check_real
from ..core.tradeoff import TradeOff

__all__ = ["parse_mechanism", "parse_curve", "load_mechanisms"]

def _float(text: str) -> float:
    """A number on the command line (``inf`` and ``nan`` parse; the flag's own check, see
    :func:`_real`, refuses what its rule does not allow)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _int(text: str) -> int:
    """An integer on the command line (``1e3`` allowed when integral)."""
    try:
        return int(text)
    except ValueError:
        v = _float(text)
        if not (math.isfinite(v) and v.is_integer()):
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        return int(v)


def _real(name: str, *, least: float | None = None, **rule: Any) -> Callable[[str], float]:
    """An argparse type: a number checked by :func:`gdp._validation.check_real` with
    ``rule`` (and at least ``least``); argparse prefixes the message with the flag
    (``argument --delta: ...``)."""
    def parse(text: str) -> float:
        try:
            v = check_real(name, _float(text), **rule)
        except (ValueError, TypeError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if least is not None and v < least:
            raise argparse.ArgumentTypeError(f"`{name}` must be at least {least:g}; got "
                                             f"{name}={v!r}")
        return v
    parse.__name__ = name
    return parse


def _count(name: str, **rule: Any) -> Callable[[str], int]:
    """An argparse type: an integer checked by :func:`gdp._validation.check_count`."""
    def parse(text: str) -> int:
        try:
            return check_count(name, _int(text), **rule)
        except (ValueError, TypeError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = name
    return parse


_MECH_HELP = """mechanisms (name:params, optional repetition xN):
  gauss:MU             G_mu (Gaussian mechanism with sensitivity/sigma = MU)
  lap:MU               T(Lap(0,1), Lap(MU,1)) (Laplace mechanism, sensitivity/scale = MU)
  rr:EPS               f_{EPS,0} (randomized response, pure EPS-DP)
  eps-delta:EPS,DELTA  f_{EPS,DELTA}
  id                   identity 1 - alpha (perfect privacy)
  sgauss:SIGMA,P       one subsampled Gaussian step, C_p(G_{1/SIGMA}) (valid for both
                       neighbouring orders; composing it is loose: prefer dpsgd:...)
  dpsgd:SIGMA,P,STEPS  a whole DP-SGD run (Poisson sampling, composed the tight way)
example: gdp compose gauss:1 lap:0.5 rr:1 eps-delta:1,1e-6 gauss:0.5x100"""

_ALIASES = {
    "gauss": "gauss", "gaussian": "gauss", "g": "gauss", "gdp": "gauss",
    "lap": "lap", "laplace": "lap",
    "rr": "rr", "randomized-response": "rr", "pure": "rr",
    "eps-delta": "eps-delta", "epsdelta": "eps-delta", "ed": "eps-delta",
    "id": "id", "identity": "id",
    "sgauss": "sgauss", "subsampled-gauss": "sgauss",
    "dpsgd": "dpsgd",
}
_ARITY = {"gauss": ("mu",), "lap": ("mu",), "rr": ("eps",), "eps-delta": ("eps", "delta"),
          "id": (), "sgauss": ("sigma", "p"), "dpsgd": ("sigma", "p", "steps")}
_REPEAT = re.compile(r"^(?P<body>[^x]*?)x(?P<n>\d+)$")


def _build(kind: str, params: Sequence[float]) -> TradeOff:
    if kind == "gauss":
        return gdp.G_mu(params[0])
    if kind == "lap":
        return gdp.laplace(params[0])
    if kind == "rr":
        return gdp.f_eps_delta(params[0], 0.0)
    if kind == "eps-delta":
        return gdp.f_eps_delta(params[0], params[1])
    if kind == "id":
        return gdp.identity()
    if kind == "sgauss":
        sigma = check_real("sigma", params[0], lo=0.0, lo_open=True)
        return gdp.subsample(gdp.G_mu(1.0 / sigma), params[1])
    if kind == "dpsgd":
        steps = check_count("steps", params[2])
        return gdp.dpsgd(sigma=params[0], p=params[1], steps=steps)
    raise ValueError(f"unknown mechanism {kind!r}")  # pragma: no cover - guarded by caller


def parse_mechanism(spec: str) -> tuple[TradeOff, int]:
    """Parse one ``name:params[xN]`` term into ``(trade-off function, repetitions)``.

    Examples
    --------
    >>> from gdp.cli.specs import parse_mechanism
    >>> parse_mechanism("gauss:0.5x100")
    (Gaussian(mu=0.5), 100)
    >>> parse_mechanism("eps-delta:1,1e-6")
    (f_eps_delta(eps=1.0, delta=1e-06), 1)
    """
    if not isinstance(spec, str):
        raise TypeError(f"`spec` must be a string like 'gauss:1'; got spec={spec!r}")
    text = spec.strip().lower()
    reps = 1
    m = _REPEAT.match(text)
    if m:
        text, reps = m.group("body"), int(m.group("n"))
        if not 1 <= reps <= MAX_COUNT:
            raise ValueError(f"mechanism {spec!r}: repetition must be at least 1 and at most "
                             "10**15")
    name, _, args = text.partition(":")
    kind = _ALIASES.get(name.strip())
    if kind is None:
        raise ValueError(f"unknown mechanism {name.strip()!r} in {spec!r}; use one of "
                         "gauss:MU, lap:MU, rr:EPS, eps-delta:EPS,DELTA, id, "
                         "sgauss:SIGMA,P, dpsgd:SIGMA,P,STEPS")
    parts = [s for s in args.split(",")] if args.strip() else []
    want = _ARITY[kind]
    if len(parts) != len(want):
        form = kind + (":" + ",".join(w.upper() for w in want) if want else "")
        raise ValueError(f"mechanism {spec!r} must be written {form}")
    try:
        values = [float(s) for s in parts]
    except ValueError:
        raise ValueError(f"mechanism {spec!r}: parameters must be numbers") from None
    try:
        return _build(kind, values), reps
    except (ValueError, TypeError) as exc:  # name the spec the user typed
        raise type(exc)(f"mechanism {spec!r}: {exc}") from None


def parse_curve(spec: str) -> TradeOff:
    """Parse ``term+term+...`` (each ``name:params[xN]``) into one composed TradeOff.

    Examples
    --------
    >>> from gdp.cli.specs import parse_curve
    >>> parse_curve("gauss:3+gauss:4")
    Gaussian(mu=5.0)
    """
    terms = [parse_mechanism(t) for t in str(spec).split("+")]
    return _compose_terms(terms)


def _compose_terms(terms: Sequence[tuple[TradeOff, int]]) -> TradeOff:
    parts = [f if n == 1 else f**n for f, n in terms]
    return parts[0] if len(parts) == 1 else gdp.compose(*parts)


_JSON_FIELDS = {"gauss": ("mu",), "lap": ("mu",), "rr": ("eps",),
                "eps-delta": ("eps", "delta"), "id": (), "sgauss": ("sigma", "p"),
                "dpsgd": ("sigma", "p", "steps")}


def load_mechanisms(path: str | Path) -> list[tuple[TradeOff, int]]:
    """Read mechanisms from a JSON file.

    The file holds a list (or ``{"mechanisms": [...]}``) whose entries are spec strings
    (``"gauss:1x10"``) or objects ``{"type": "gauss", "mu": 1, "repeat": 10}``
    (``type`` as in the specs; parameters by name: ``mu``, ``eps``, ``delta``, ``sigma``,
    ``p``, ``steps``; ``repeat`` optional).
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(doc, dict):
        doc = doc.get("mechanisms")
    if not isinstance(doc, list) or not doc:
        raise ValueError(f"{path}: expected a non-empty list of mechanisms (or "
                         '{"mechanisms": [...]})')
    out = []
    for i, entry in enumerate(doc):
        if isinstance(entry, str):
            out.append(parse_mechanism(entry))
            continue
        if not isinstance(entry, dict) or "type" not in entry:
            raise ValueError(f"{path}: entry {i} must be a spec string or an object with "
                             f"a 'type'; got {entry!r}")
        kind = _ALIASES.get(str(entry["type"]).lower())
        if kind is None:
            raise ValueError(f"{path}: entry {i}: unknown mechanism type {entry['type']!r}")
        fields = _JSON_FIELDS[kind]
        extra = set(entry) - set(fields) - {"type", "repeat"}
        if extra:
            raise ValueError(f"{path}: entry {i} ({kind}): unexpected field(s) "
                             f"{', '.join(sorted(extra))}; expected {', '.join(fields)}")
        missing = [f for f in fields if f not in entry]
        if missing:
            raise ValueError(f"{path}: entry {i} ({kind}): missing field(s) "
                             f"{', '.join(missing)}")
        try:
            reps = check_count("repeat", entry.get("repeat", 1))
            params = [check_real(f, entry[f], finite=True) for f in fields]
            out.append((_build(kind, params), reps))
        except (ValueError, TypeError) as exc:  # name the file and the entry
            raise type(exc)(f"{path}: entry {i} ({kind}): {exc}") from None
    return out
