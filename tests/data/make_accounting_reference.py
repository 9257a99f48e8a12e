"""Make ``accounting_reference.json``: reference ε of nested DpEvents from independent
accountants, for the accountant's cross-checks (tests/accounting/test_dp_event.py,
tests/accounting/test_conventions.py).

For every event and δ:

* ``pld_pessimistic``: dp-accounting's privacy-loss distributions with
  ``pessimistic_estimate=True`` at a fine ``value_discretization_interval`` — what
  ``dp_accounting.pld.PLDAccountant(value_discretization_interval=VDI)`` computes, an upper
  bound of the true ε and the "tight" reference;
* ``pld_optimistic``: the same with ``pessimistic_estimate=False``, a *lower* bound of the true
  ε: a sound accountant is never below it;
* ``prv_lower`` / ``prv_estimate`` / ``prv_upper``: prv-accountant's bounds (Gopi, Lee,
  Wutschitz 2021), for the events it models (Poisson-subsampled Gaussians).

The traversal below mirrors ``PLDAccountant._maybe_compose`` of dp-accounting 0.6 with one
difference: a ``RandomizedResponseDpEvent`` is composed ``count`` times (dp-accounting 0.6
composes it once whatever the count, so its ``SelfComposedDpEvent(rr, 30)`` reports the ε of
one use; ``pld_accountant_as_is`` records what it returns).

Run from the repository root (takes a few minutes):

    python tests/data/make_accounting_reference.py
"""

from __future__ import annotations

import json
import math
import platform
import sys
from datetime import date
from importlib.metadata import version
from pathlib import Path

import dp_accounting as dpa
import prv_accountant as prv
from dp_accounting.pld import privacy_loss_distribution as pld

VDI = 2e-5  # value_discretization_interval
DELTAS = [1e-5, 1e-7]
ADD, REPLACE = dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, dpa.NeighboringRelation.REPLACE_ONE


def G(s):
    return dpa.GaussianDpEvent(s)


def PS(p, e):
    return dpa.PoissonSampledDpEvent(p, e)


def SC(e, n):
    return dpa.SelfComposedDpEvent(e, n)


#: name -> (event, neighbour relation, prv model [(sigma, p, steps)] or None)
EVENTS = {
    "dpsgd_1000": (SC(PS(0.01, G(1.0)), 1000), ADD, [(1.0, 0.01, 1000)]),
    "opacus_mnist_3525": (SC(PS(1 / 235, G(1.1)), 3525), ADD, [(1.1, 1 / 235, 3525)]),
    "tf_mnist_3516": (SC(PS(256 / 60000, G(1.1)), 3516), ADD, [(1.1, 256 / 60000, 3516)]),
    "bu_mnist_sigma_1.3": (SC(PS(256 / 60000, G(1.3)), 3516), ADD,
                           [(1.3, 256 / 60000, 3516)]),
    "phases": (dpa.ComposedDpEvent([SC(PS(0.01, G(1.0)), 500), SC(PS(0.02, G(1.5)), 300)]),
               ADD, [(1.0, 0.01, 500), (1.5, 0.02, 300)]),
    "mixed": (dpa.ComposedDpEvent([SC(PS(0.004, G(1.1)), 2000), SC(G(5.0), 10),
                                   SC(dpa.LaplaceDpEvent(4.0), 3)]), ADD, None),
    "nested": (SC(dpa.ComposedDpEvent([PS(0.05, G(2.0)), G(10.0),
                                       PS(0.1, dpa.LaplaceDpEvent(5.0)), dpa.NoOpDpEvent()]),
                  200), ADD, None),
    "laplace_20": (SC(dpa.LaplaceDpEvent(2.0), 20), ADD, None),
    "replace_gaussian": (SC(G(3.0), 7), REPLACE, None),
    "replace_rr_30": (dpa.ComposedDpEvent([SC(dpa.RandomizedResponseDpEvent(0.5, 4), 30),
                                           G(4.0)]), REPLACE, None),
}


def _pld(event, count, rel, pess):
    """PLD of ``count`` runs of ``event`` (None: no privacy loss)."""
    kw = {"pessimistic_estimate": pess, "value_discretization_interval": VDI}
    if isinstance(event, dpa.NoOpDpEvent):
        return None
    if isinstance(event, dpa.SelfComposedDpEvent):
        return _pld(event.event, count * event.count, rel, pess)
    if isinstance(event, dpa.ComposedDpEvent):
        out = None
        for e in event.events:
            p = _pld(e, count, rel, pess)
            out = p if out is None else (out if p is None else out.compose(p))
        return out
    if isinstance(event, dpa.GaussianDpEvent):
        return pld.from_gaussian_mechanism(event.noise_multiplier / math.sqrt(count),
                                           neighboring_relation=rel, **kw)
    if isinstance(event, dpa.LaplaceDpEvent):
        return pld.from_laplace_mechanism(event.noise_multiplier, **kw).self_compose(count)
    if isinstance(event, dpa.RandomizedResponseDpEvent):
        return pld.from_randomized_response(event.noise_parameter, event.num_buckets,
                                            neighboring_relation=rel, **kw).self_compose(count)
    if isinstance(event, dpa.PoissonSampledDpEvent):
        inner, q = event.event, event.sampling_probability
        if isinstance(inner, dpa.GaussianDpEvent):
            one = pld.from_gaussian_mechanism(inner.noise_multiplier, sampling_prob=q,
                                              neighboring_relation=rel, **kw)
        else:
            one = pld.from_laplace_mechanism(inner.noise_multiplier, sampling_prob=q, **kw)
        return one.self_compose(count)
    raise TypeError(f"no reference for {event}")


def _prv(model, delta):
    mechs = [prv.PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=p)
             for s, p, _ in model]
    steps = [t for _, _, t in model]
    acc = prv.PRVAccountant(prvs=mechs, eps_error=0.002, delta_error=delta * 1e-4,
                            max_self_compositions=steps)
    lo, est, hi = acc.compute_epsilon(delta=delta, num_self_compositions=steps)
    return {"prv_lower": float(lo), "prv_estimate": float(est), "prv_upper": float(hi)}


def main() -> None:
    out = {
        "provenance": {
            "script": "tests/data/make_accounting_reference.py",
            "made": date.today().isoformat(),
            "dp_accounting": version("dp-accounting"), "prv_accountant": version("prv-accountant"),
            "python": platform.python_version(),
            "value_discretization_interval": VDI,
            "note": "pld_pessimistic: upper bound (tight reference); pld_optimistic: lower "
                    "bound; randomized response composed count times (dp-accounting 0.6's "
                    "PLDAccountant composes it once, see pld_accountant_as_is)",
        },
        "events": {},
    }
    for name, (event, rel, model) in EVENTS.items():
        print(name, file=sys.stderr)
        hi, lo = _pld(event, 1, rel, True), _pld(event, 1, rel, False)
        acc = dpa.pld.PLDAccountant(rel, value_discretization_interval=VDI)
        acc.compose(event)
        rows = []
        for d in DELTAS:
            row = {"delta": d, "pld_pessimistic": float(hi.get_epsilon_for_delta(d)),
                   "pld_optimistic": float(lo.get_epsilon_for_delta(d)),
                   "pld_accountant_as_is": float(acc.get_epsilon(d))}
            if model is not None:
                row.update(_prv(model, d))
            rows.append(row)
        out["events"][name] = {
            "event": _as_dict(event),
            "neighbours": "add_remove" if rel is ADD else "replace_one", "epsilon": rows}
    path = Path(__file__).with_name("accounting_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


def _as_dict(event):
    """The JSON form of an event (the dict of to_named_tuple(), without module_name)."""
    nt = event.to_named_tuple()

    def conv(v):
        if isinstance(v, dpa.DpEvent):
            return _as_dict(v)
        if hasattr(v, "_asdict"):
            return {k: conv(x) for k, x in v._asdict().items() if k != "module_name"}
        if isinstance(v, list | tuple):
            return [conv(x) for x in v]
        return v

    return conv(nt)


if __name__ == "__main__":
    main()
