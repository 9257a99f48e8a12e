r"""dp-accounting's ``DpEvent`` language, read as trade-off curves.

Theory of operation
-------------------
A ``DpEvent`` (dp-accounting) describes a mechanism as a tree: leaves are mechanisms
(Gaussian, Laplace, randomized response, no-op, non-private), inner nodes are composition
(``ComposedDpEvent``, ``SelfComposedDpEvent``) and sampling (``PoissonSampledDpEvent``,
``SampledWithoutReplacementDpEvent``). :func:`from_dp_event` walks the tree into *factors*
(:mod:`gdp.accounting.factors`) and composes them with the engine, so a nested event gets the
tight curve: Poisson-sampled steps are composed in each order of the add/remove neighbours
separately and symmetrised at the end, as dp-accounting's ``PLDAccountant`` does.

The leaves, with dp-accounting's meaning of the noise parameters (noise over the
sensitivity of add/remove; replacing a record moves a sum by twice that, so under
``neighbours="replace_one"`` the shift doubles, as in dp-accounting's PLD):

=============================================  ==========================================
``GaussianDpEvent(σ)``                         :math:`G_{1/\sigma}` (replace-one
                                               :math:`G_{2/\sigma}`)
``LaplaceDpEvent(b)``                          ``laplace(1/b)`` (replace-one ``2/b``)
``RandomizedResponseDpEvent(q, k)``            :math:`T(P, Q)`, :math:`P = (1-q+q/k,\ q/k,
                                               (k-2)q/k)`, :math:`Q` with the first two
                                               swapped (replace-one only)
``PoissonSampledDpEvent(p, ·)``                a DP-SGD step :math:`(G_{1/\sigma})_p` or
                                               :math:`(\mathrm{Lap})_p`, add/remove only
``SampledWithoutReplacementDpEvent(n, m, ·)``  :math:`C_{m/n}(f)` (DRS Thm 4.2),
                                               replace-one only
``NoOpDpEvent`` / ``NonPrivateDpEvent``        nothing / the zero curve (ε = ∞)
=============================================  ==========================================

A zero noise parameter is non-private, as in dp-accounting. Every other event
(sampling with replacement, mixtures of Gaussians, zCDP, tree aggregation, ...) raises
:class:`UnsupportedEvent` naming it.

Events are read from dp-accounting objects (dp-accounting is not imported: it is a test
dependency only) or from their JSON form, the dict of ``DpEvent.to_named_tuple()``:
``{"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}`` with nested events as dicts
(``module_name`` may be present). :func:`dp_event_to_dict` writes that form.

References
----------
dp-accounting (Google), ``dp_event.py`` and ``pld/pld_privacy_accountant.py`` (the event
semantics); DRS Thm 4.2 (subsampling without replacement); Zhu, Dong, Wang, AISTATS 2022
(Poisson subsampling, both orders).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.sampling`,
:mod:`gdp.accounting.factors`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._validation import check_choice, check_count, check_real
from ..core.distributions import from_distributions
from ..core.tradeoff import TradeOff
from ..families.gaussian import Gaussian
from ..families.laplace_tradeoff import Laplace
from ..sampling.subsampling import PoissonSubsampled, subsample
from .factors import NON_PRIVATE, Step, compose_factors, merge_factors

__all__ = ["UnsupportedEvent", "NEIGHBOURS", "from_dp_event", "dp_event_to_dict",
           "dp_event_factors"]

#: the neighbour relations DpEvents are read under
NEIGHBOURS: tuple[str, ...] = ("add_remove", "replace_one")

#: the fields of the events gdp reads (dp-accounting 0.4 - 0.6)
_FIELDS: dict[str, tuple[str, ...]] = {
    "NoOpDpEvent": (), "NonPrivateDpEvent": (),
    "GaussianDpEvent": ("noise_multiplier",), "LaplaceDpEvent": ("noise_multiplier",),
    "RandomizedResponseDpEvent": ("noise_parameter", "num_buckets"),
    "SelfComposedDpEvent": ("event", "count"), "ComposedDpEvent": ("events",),
    "PoissonSampledDpEvent": ("sampling_probability", "event"),
    "SampledWithoutReplacementDpEvent": ("source_dataset_size", "sample_size", "event"),
}

_WHY_NOT = {
    "SampledWithReplacementDpEvent": "gdp has no tight curve for sampling with replacement",
    "UnsupportedDpEvent": "the event says it cannot be accounted",
}


class UnsupportedEvent(ValueError):
    """A ``DpEvent`` (or a part of one) that gdp cannot turn into a trade-off curve; the
    message names the event and says why. ``event_name`` is its class name."""

    def __init__(self, event_name: str, why: str):
        self.event_name = event_name
        super().__init__(f"unsupported event {event_name}: {why}")


def _name_and_fields(event: Any, where: str) -> tuple[str, dict[str, Any]]:
    """Class name and raw fields of an event object or of its dict form."""
    if isinstance(event, Mapping):
        name = event.get("class_name")
        if not isinstance(name, str):
            raise TypeError(f"a DpEvent dict needs a string 'class_name'; got keys "
                            f"{sorted(map(str, event))} at {where}")
        fields = {k: v for k, v in event.items() if k not in ("class_name", "module_name")}
        return name, fields
    cls = type(event)
    if not cls.__module__.startswith("dp_accounting"):
        raise TypeError(f"`event` must be a dp_accounting DpEvent or its dict form; got "
                        f"{event!r} at {where}")
    name = cls.__name__
    return name, {f: getattr(event, f) for f in _FIELDS.get(name, ())}


def _canon(event: Any, where: str = "event") -> dict[str, Any]:
    """The validated dict form of an event (nested events as dicts)."""
    name, raw = _name_and_fields(event, where)
    if name not in _FIELDS:
        raise UnsupportedEvent(name, _WHY_NOT.get(
            name, "gdp reads NoOp, NonPrivate, Gaussian, Laplace, RandomizedResponse, "
            "PoissonSampled, SampledWithoutReplacement, SelfComposed and Composed events"))
    want = _FIELDS[name]
    if set(raw) != set(want):
        raise ValueError(f"{name} at {where} must have the fields {list(want)}; got "
                         f"{sorted(raw)}")
    out: dict[str, Any] = {"class_name": name}
    for f in want:
        v, here = raw[f], f"{where}.{f}"
        if f == "event":
            out[f] = _canon(v, here)
        elif f == "events":
            if isinstance(v, str | bytes | Mapping) or not isinstance(v, Sequence):
                raise TypeError(f"`events` of {name} at {where} must be a list of events; "
                                f"got {v!r}")
            out[f] = [_canon(e, f"{here}[{i}]") for i, e in enumerate(v)]
        elif f in ("count", "num_buckets", "source_dataset_size", "sample_size"):
            out[f] = check_count(f, v, lo=0 if f in ("count", "sample_size") else 1)
        elif f in ("noise_parameter", "sampling_probability"):
            out[f] = check_real(f, v, lo=0.0, hi=1.0)
        else:
            out[f] = check_real(f, v, lo=0.0)
    if name == "SampledWithoutReplacementDpEvent" and \
            out["sample_size"] > out["source_dataset_size"]:
        raise ValueError(f"`sample_size` must be at most `source_dataset_size` in {name} at "
                         f"{where}; got sample_size={out['sample_size']}, "
                         f"source_dataset_size={out['source_dataset_size']}")
    return out


def dp_event_to_dict(event: Any) -> dict[str, Any]:
    """The JSON form of a ``DpEvent`` that gdp reads (the dict of ``to_named_tuple()``,
    without ``module_name``), validated.

    Examples
    --------
    >>> import dp_accounting, gdp
    >>> ev = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(2.0), 10)
    >>> gdp.dp_event_to_dict(ev)
    {'class_name': 'SelfComposedDpEvent', 'event': {'class_name': 'GaussianDpEvent', \
'noise_multiplier': 2.0}, 'count': 10}
    """
    return _canon(event)


def _check_neighbours(neighbours: Any) -> str:
    return check_choice("neighbours", neighbours, NEIGHBOURS)


def _leaf(ev: dict[str, Any], neighbours: str) -> TradeOff | Step | None:
    """The curve of a Gaussian, Laplace or randomized-response event (None: no-op)."""
    name = ev["class_name"]
    shift = 2.0 if neighbours == "replace_one" else 1.0
    if name in ("GaussianDpEvent", "LaplaceDpEvent"):
        b = ev["noise_multiplier"]
        if b == 0.0:
            return NON_PRIVATE
        return (Gaussian if name == "GaussianDpEvent" else Laplace)(mu=shift / b)
    if neighbours != "replace_one":
        raise UnsupportedEvent(name, "randomized response is defined for changing one "
                               "record's value: pass neighbours='replace_one' (as "
                               "dp-accounting requires)")
    q, k = ev["noise_parameter"], ev["num_buckets"]
    if k == 1:
        return None
    if q == 0.0:
        return NON_PRIVATE
    a, b = 1.0 - q + q / k, q / k
    rest = [(k - 2) * b] if k > 2 else []
    return from_distributions([a, b, *rest], [b, a, *rest],
                              name=f"RR_{{{q:g},{k}}}")


def _sampled(ev: dict[str, Any], neighbours: str) -> TradeOff | Step | None:
    name, inner = ev["class_name"], ev["event"]
    iname = inner["class_name"]
    if name == "PoissonSampledDpEvent":
        if neighbours != "add_remove":
            raise UnsupportedEvent(name, "Poisson sampling is accounted for add/remove "
                                   "neighbours only (pass neighbours='add_remove')")
        p = ev["sampling_probability"]
    else:
        if neighbours != "replace_one":
            raise UnsupportedEvent(name, "sampling without replacement is accounted for "
                                   "replace-one neighbours only (DRS Thm 4.2; pass "
                                   "neighbours='replace_one')")
        p = ev["sample_size"] / ev["source_dataset_size"]
    if iname == "NoOpDpEvent" or p == 0.0:
        return None
    if iname not in ("GaussianDpEvent", "LaplaceDpEvent", "RandomizedResponseDpEvent") or (
            name == "PoissonSampledDpEvent" and iname == "RandomizedResponseDpEvent"):
        raise UnsupportedEvent(name, f"gdp samples single Gaussian or Laplace events (and "
                               f"randomized response without replacement); got a {iname}")
    f = _leaf(inner, neighbours)
    if f is NON_PRIVATE or f is None:
        return f
    if name == "SampledWithoutReplacementDpEvent":
        return subsample(f, p)
    if iname == "GaussianDpEvent":  # a DP-SGD step, the very factor gdp.dpsgd composes
        return Step(sigma=inner["noise_multiplier"], p=p)
    return f if p == 1.0 else PoissonSubsampled(base=f, p=p)


def _walk(ev: dict[str, Any], n: int, neighbours: str,
          out: list[tuple[TradeOff | Step, int]]) -> None:
    name = ev["class_name"]
    if name == "NoOpDpEvent":
        return
    if name == "NonPrivateDpEvent":
        if n > 0:
            out.append((NON_PRIVATE, n))
    elif name == "SelfComposedDpEvent":
        _walk(ev["event"], n * ev["count"], neighbours, out)
    elif name == "ComposedDpEvent":
        for e in ev["events"]:
            _walk(e, n, neighbours, out)
    else:
        f = _sampled(ev, neighbours) if "event" in ev else _leaf(ev, neighbours)
        if f is not None and n > 0:  # a zero count is still read, so still checked
            out.append((f, n))


def dp_event_factors(event: Any, *, neighbours: str = "add_remove",
                     count: int = 1) -> list[tuple[TradeOff | Step, int]]:
    """The factors ``[(curve or Step, multiplicity), ...]`` of ``count`` runs of an event
    (equal factors merged, first-seen order); raises :class:`UnsupportedEvent`."""
    nb = _check_neighbours(neighbours)
    c = check_count("count", count, lo=0)
    flat: list[tuple[TradeOff | Step, int]] = []
    _walk(_canon(event), c, nb, flat)
    merged: dict[Any, list] = {}
    merge_factors(merged, flat)
    return [(f, n) for f, n in merged.values()]


def from_dp_event(event: Any, *, neighbours: str = "add_remove", **accuracy: Any) -> TradeOff:
    r"""The trade-off curve of a dp-accounting ``DpEvent`` (or its dict form).

    Parameters
    ----------
    event : DpEvent or dict
        The event tree (module docstring for what is read and how).
    neighbours : {"add_remove", "replace_one"}
        The neighbour relation (dp-accounting's ``ADD_OR_REMOVE_ONE`` / ``REPLACE_ONE``).
    **accuracy
        Accuracy keywords of the numeric engine (``rtol``, ...).

    Returns
    -------
    TradeOff
        The composed curve; sound on its default side, with the engine's bracket for numeric
        results. A run of Poisson-sampled Gaussians alone is :func:`gdp.dpsgd` of its
        phases, bit for bit.

    Raises
    ------
    UnsupportedEvent
        For an event (or a sub-event) gdp cannot account, named in the message.

    Examples
    --------
    >>> import dp_accounting as dpa, gdp
    >>> ev = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)),
    ...                              1000)
    >>> h = gdp.from_dp_event(ev)
    >>> h.epsilon(1e-5) == gdp.dpsgd(sigma=1.0, p=0.01, steps=1000).epsilon(1e-5)
    True
    >>> gdp.from_dp_event(dpa.GaussianDpEvent(2.0))
    Gaussian(mu=0.5)
    """
    return compose_factors(dp_event_factors(event, neighbours=neighbours), **accuracy)
