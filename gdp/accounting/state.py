r"""The saved form of an accountant: curves as JSON, the envelope, version and checksum.

Theory of operation
-------------------
An accountant's state is plain data: its settings and its append-only history of records
(DP-SGD steps, DpEvents in their dict form, trade-off curves). Curves of the closed-form
families have a JSON form (:func:`curve_to_spec`): ``{"type": "gaussian", "mu": 0.5}``,
``laplace``, ``eps_delta``, ``identity``, ``poisson_subsample`` / ``subsample`` /
``with_delta`` of such a curve, and exact piecewise-linear curves by their vertices (floats
are written with ``repr``, so they come back bit for bit; ``inf`` as the string ``"inf"``).
Any other curve stays in the state as the object itself (a training checkpoint pickles it);
only :func:`dumps` refuses it.

:func:`seal` wraps a payload in the envelope ``{"format": "gdp.Accountant", "version": 1,
..., "checksum": "sha256:..."}``; :func:`unseal` refuses a state of another format or a newer
version, and one whose checksum does not match its contents (a state written by hand may leave
the checksum out). Every field is then validated by the reader, so a corrupted state is
refused with a message that says what is wrong, never half-loaded.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine`,
:mod:`gdp.sampling`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import check_instance, check_real
from ..core.piecewise import Identity, PiecewiseLinear
from ..core.tradeoff import TradeOff
from ..engine.with_delta import WithDelta
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.laplace_tradeoff import Laplace
from ..sampling.subsampling import PoissonSubsampled, Subsampled

__all__ = ["FORMAT", "VERSION", "curve_to_spec", "curve_from_spec", "seal", "unseal",
           "dumps"]

FORMAT = "gdp.Accountant"
VERSION = 1


def _num(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _real(name: str, v: Any, **kw: Any) -> float:
    if v in ("inf", "-inf"):
        v = float(v)
    return check_real(name, v, **kw)


_SCALAR = {Gaussian: ("gaussian", "mu"), Laplace: ("laplace", "mu")}
_WRAPPED = {PoissonSubsampled: ("poisson_subsample", "p"), Subsampled: ("subsample", "p"),
            WithDelta: ("with_delta", "delta_")}


def curve_to_spec(f: TradeOff) -> dict[str, Any] | None:
    """The JSON form of a closed-form curve (module docstring), or None when it has none.

    Examples
    --------
    >>> import gdp
    >>> from gdp.accounting.state import curve_to_spec, curve_from_spec
    >>> s = curve_to_spec(gdp.poisson_subsample(gdp.G_mu(1.0), 0.1))
    >>> s
    {'type': 'poisson_subsample', 'p': 0.1, 'base': {'type': 'gaussian', 'mu': 1.0}}
    >>> curve_from_spec(s) == gdp.poisson_subsample(gdp.G_mu(1.0), 0.1)
    True
    """
    t = type(f)
    if t in _SCALAR:
        name, field = _SCALAR[t]
        return {"type": name, field: _num(f.mu)}
    if t is EpsDelta:
        return {"type": "eps_delta", "eps": _num(f.eps), "delta": f.delta_}
    if t is Identity:
        return {"type": "identity"}
    if t in _WRAPPED:
        base = curve_to_spec(f.base)
        if base is None:
            return None
        name, field = _WRAPPED[t]
        return {"type": name, field.rstrip("_"): getattr(f, field), "base": base}
    if t is PiecewiseLinear:
        out = {"type": "piecewise", "name": f.name, "symmetric": bool(f.symmetric),
               "alpha": f.alpha.tolist(), "beta": f.beta.tolist(),
               "one_minus_beta": f.one_minus_beta.tolist()}
        if f.pmfs is not None:  # (its atoms come from them, exactly: a curve rebuilt from the
            # vertices alone had atoms a few ulps off, and its compositions' last digits)
            out["pmfs"] = [f.pmfs[0].tolist(), f.pmfs[1].tolist()]
        return out
    return None


def curve_from_spec(spec: Any, where: str = "tradeoff") -> TradeOff:
    """The curve of a JSON form written by :func:`curve_to_spec` (validated)."""
    if isinstance(spec, TradeOff):
        return spec
    if not isinstance(spec, Mapping) or not isinstance(spec.get("type"), str):
        raise ValueError(f"{where} must be a curve spec (a dict with a 'type'); got {spec!r}")
    kind = spec["type"]
    keys = {"gaussian": {"mu"}, "laplace": {"mu"}, "eps_delta": {"eps", "delta"},
            "identity": set(), "poisson_subsample": {"p", "base"}, "subsample": {"p", "base"},
            "with_delta": {"delta", "base"},
            "piecewise": {"name", "symmetric", "alpha", "beta", "one_minus_beta"}}
    if kind not in keys:
        raise ValueError(f"{where} has an unknown curve type {kind!r}; expected one of "
                         f"{sorted(keys)}")
    optional = {"pmfs"} if kind == "piecewise" else set()
    if not keys[kind] <= set(spec) - {"type"} <= keys[kind] | optional:
        extra = f" (and optionally {sorted(optional)})" if optional else ""
        raise ValueError(f"{where} of type {kind!r} must have the keys {sorted(keys[kind])}"
                         f"{extra}; got {sorted(set(spec) - {'type'})}")
    if kind in ("gaussian", "laplace"):
        cls = Gaussian if kind == "gaussian" else Laplace
        return cls(mu=_real(f"{where}.mu", spec["mu"], lo=0.0, finite=False))
    if kind == "eps_delta":
        return EpsDelta(eps=_real(f"{where}.eps", spec["eps"], lo=0.0, finite=False),
                        delta_=_real(f"{where}.delta", spec["delta"], lo=0.0, hi=1.0))
    if kind == "identity":
        return Identity()
    if kind == "piecewise":
        if not isinstance(spec["name"], str) or not isinstance(spec["symmetric"], bool):
            raise ValueError(f"{where}: 'name' must be a string and 'symmetric' a boolean")
        arrs = [np.asarray(spec[k], dtype=float) for k in ("alpha", "beta", "one_minus_beta")]
        if any(a.ndim != 1 or a.size != arrs[0].size or not np.isfinite(a).all()
               for a in arrs) or arrs[0].size < 2:
            raise ValueError(f"{where}: 'alpha', 'beta', 'one_minus_beta' must be finite "
                             "lists of one length >= 2")
        pmfs = spec.get("pmfs")
        if pmfs is not None and not (isinstance(pmfs, list | tuple) and len(pmfs) == 2):
            raise ValueError(f"{where}: 'pmfs' must be a pair of lists (P, Q); got "
                             f"{pmfs!r:.60}")
        return PiecewiseLinear(alpha=arrs[0], beta=arrs[1], name=spec["name"],
                               symmetric=spec["symmetric"], one_minus_beta=arrs[2],
                               pmfs=None if pmfs is None else (pmfs[0], pmfs[1]))
    base = curve_from_spec(spec["base"], f"{where}.base")
    if kind == "with_delta":
        return WithDelta(base=base, delta_=_real(f"{where}.delta", spec["delta"], lo=0.0,
                                                 hi=1.0))
    cls = PoissonSubsampled if kind == "poisson_subsample" else Subsampled
    return cls(base=base, p=_real(f"{where}.p", spec["p"], lo=0.0, hi=1.0, lo_open=True))


def _canonical(obj: Any) -> str:
    """Canonical JSON text of a payload (sorted keys; objects without a JSON form by type
    name, for the checksum only)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False,
                      default=lambda o: f"<{type(o).__module__}.{type(o).__qualname__}>")


def _checksum(payload: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(_canonical(payload).encode()).hexdigest()


def seal(payload: dict[str, Any]) -> dict[str, Any]:
    """The envelope around ``payload``: format, version, the payload's keys, checksum."""
    body = {"format": FORMAT, "version": VERSION, **payload}
    return {**body, "checksum": _checksum(body)}


def unseal(state: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """The payload of a state written by :func:`seal` (refusing foreign, newer, corrupted or
    incomplete states with a clear ``ValueError``/``TypeError``)."""
    check_instance("state", state, Mapping, "a dict (an accountant state)")
    fmt = state.get("format")
    if fmt != FORMAT:
        hint = ""
        if "history" in state and "mechanism" in state:
            hint = (f" (it looks like an Opacus accountant's state, mechanism "
                    f"{state.get('mechanism')!r}: load it with "
                    "gdp.opacus.Accountant.from_history(state['history']))")
        raise ValueError(f"not a gdp accountant state: format={fmt!r}, expected "
                         f"{FORMAT!r}{hint}")
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"corrupted accountant state: version={version!r}")
    if version > VERSION:
        raise ValueError(f"this accountant state has version {version}, written by a newer "
                         f"gdp; this gdp reads version {VERSION}")
    body = {k: v for k, v in state.items() if k != "checksum"}
    if "checksum" in state and state["checksum"] != _checksum(body):
        raise ValueError("corrupted accountant state: the checksum does not match the "
                         "contents (edited or damaged; remove the 'checksum' key to load a "
                         "hand-edited state)")
    missing = [k for k in keys if k not in body]
    extra = sorted(set(body) - set(keys) - {"format", "version"})
    if missing or extra:
        raise ValueError(f"corrupted accountant state: missing keys {missing}, unknown keys "
                         f"{extra}")
    return {k: body[k] for k in keys}


def dumps(state: Mapping[str, Any]) -> str:
    """JSON text of a state; ``TypeError`` naming the curve that has no JSON form."""
    def refuse(o: Any) -> Any:
        raise TypeError(f"a {type(o).__name__} curve has no JSON form (closed-form families "
                        "and piecewise-linear curves do); keep the state as a dict (e.g. in "
                        "a pickled checkpoint) instead")

    return json.dumps(state, indent=1, allow_nan=False, default=refuse)
