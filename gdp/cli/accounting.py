r"""The accounting subcommands of ``gdp``: ``calibrate`` and ``account``, and the run options
(rate, steps, epochs, convention) they share with ``dpsgd``.

``gdp calibrate`` answers "what noise multiplier do I need?" (:func:`gdp.calibrate_dpsgd`);
``gdp account`` reads a saved accountant (:meth:`gdp.Accountant.to_json`) or a DpEvent in its
JSON form and prints ε. Every answer says how epochs became steps (the convention,
:func:`gdp.epochs_to_steps`), or that the steps were given.

Imports: :mod:`gdp` and the other modules of :mod:`gdp.cli`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gdp

from .._validation import check_int, check_real
from .output import _bracket_text, _delta_report, _emit_json, _eps_report, _g, _progress
from .specs import _count, _real

__all__ = ["add_run_options", "add_report_options", "schedule_from_args", "add_calibrate",
           "add_account"]


# ------------------------------------------------------------------- the run
def add_report_options(p: argparse.ArgumentParser) -> None:
    """Add ``--delta`` (default 1e-5) and ``--eps``, the lists of values an answer is given at."""
    p.add_argument("--delta", type=_real("delta", lo=0.0, hi=1.0, lo_open=True), nargs="+",
                   default=[1e-5], help="delta values for eps(delta) (default 1e-5)")
    p.add_argument("--eps", type=_real("eps", lo=0.0), nargs="+",
                   help="eps values for delta(eps)")


def add_run_options(p: argparse.ArgumentParser) -> None:
    """``--p | --batch-size --dataset-size``, ``--steps | --epochs``, ``--convention``."""
    p.add_argument("--p", type=_real("p", lo=0.0, hi=1.0, lo_open=True),
                   help="sampling rate (or give --batch-size and --dataset-size)")
    p.add_argument("--batch-size", type=_count("batch_size"),
                   help="expected batch size (with --dataset-size)")
    p.add_argument("--dataset-size", type=_count("dataset_size"),
                   help="number of training examples")
    p.add_argument("--steps", type=_count("steps"), help="number of steps")
    p.add_argument("--epochs", type=_real("epochs", lo=0.0, lo_open=True),
                   help="number of epochs (steps and rate from the convention)")
    p.add_argument("--convention", choices=gdp.accounting.CONVENTIONS, default="tf",
                   help="epochs to steps: 'tf' (TF-privacy, BDLS: p = B/n, steps = "
                   "ceil(epochs n/B); the default) or 'opacus' (p = 1/ceil(n/B), steps = "
                   "epochs ceil(n/B))")


def schedule_from_args(args: argparse.Namespace) -> gdp.Schedule:
    """The rate and steps of a run from the options of :func:`add_run_options`."""
    if args.p is not None:
        if args.batch_size is not None or args.dataset_size is not None:
            raise ValueError("give either --p or --batch-size with --dataset-size, not both")
        size: dict[str, Any] = {"sample_rate": check_real("p", args.p, lo=0.0, hi=1.0,
                                                          lo_open=True)}
    else:
        if args.batch_size is None or args.dataset_size is None:
            raise ValueError("give the sampling rate --p, or --batch-size and --dataset-size")
        size = {"batch_size": args.batch_size, "dataset_size": args.dataset_size}
    if args.steps is not None:
        if args.epochs is not None:
            raise ValueError("give either --steps or --epochs, not both")
        steps = check_int("steps", args.steps, lo=1)
        if "sample_rate" in size:
            return gdp.Schedule(sample_rate=size["sample_rate"], steps=steps,
                                convention="steps")
        rate = gdp.epochs_to_steps(epochs=1.0, convention=args.convention, **size)
        return gdp.Schedule(sample_rate=rate.sample_rate, steps=steps,
                            convention=args.convention, **size)
    if args.epochs is None:
        raise ValueError("give the number of steps --steps, or --epochs")
    try:
        return gdp.epochs_to_steps(epochs=args.epochs, convention=args.convention, **size)
    except (ValueError, TypeError) as exc:  # name the flags the values came from
        raise type(exc)(f"--epochs/--batch-size/--dataset-size: {exc}") from None


# ------------------------------------------------------------------- calibrate
_CALIBRATE_TEXT = ("The smallest DP-SGD noise multiplier sigma (Poisson sampling, add/remove "
                   "neighbours) whose eps at delta is at most --eps (or whose curve dominates "
                   "G_mu): exact by default (the sound eps of gdp.dpsgd, checked at the sigma "
                   "returned), or the RDP accountant, or the CLT (an approximation).")


def add_calibrate(sub: Any, common: Callable[..., None]) -> None:
    """Register ``gdp calibrate``."""
    p = sub.add_parser("calibrate", help="noise multiplier for a target eps or mu",
                       description=_CALIBRATE_TEXT)
    p.add_argument("--eps", type=_real("eps", lo=0.0), help="target epsilon (with --delta)")
    p.add_argument("--delta", type=_real("delta", lo=0.0, hi=1.0, lo_open=True),
                   help="delta of the eps target (> 0: Gaussian noise has delta > 0 at "
                   "every eps)")
    p.add_argument("--mu", type=_real("mu", lo=0.0, lo_open=True),
                   help="target mu (mu-GDP) instead of eps")
    add_run_options(p)
    p.add_argument("--method", choices=["exact", "rdp", "clt"], default="exact",
                   help="exact (default; sound), rdp (sound, looser) or clt (approximation)")
    p.add_argument("--rtol", type=_real("rtol", lo=0.0, hi=1.0, lo_open=True, least=1e-12),
                   default=1e-3, help="relative precision of sigma (default 1e-3)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_calibrate)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    if (args.mu is None) == (args.eps is None):
        raise ValueError("give exactly one target: --eps (with --delta) or --mu")
    if (args.eps is None) != (args.delta is None):
        raise ValueError("`delta` is required with an `eps` target, and only with it: give "
                         "--delta with --eps")
    sched = schedule_from_args(args)
    prog = _progress(args)
    prog.note(f"calibrating sigma for {sched.steps} steps at p={_g(sched.sample_rate)} "
              f"({args.method}) ...")
    c = gdp.calibrate_dpsgd(p=sched.sample_rate, steps=sched.steps, eps=args.eps,
                            delta=args.delta, mu=args.mu, method=args.method, rtol=args.rtol,
                            progress=prog)
    res: dict[str, Any] = {
        "sigma": c.sigma, "sigma_lower": c.sigma_lower, "criterion": c.criterion,
        "target": c.target, "delta": c.delta, "achieved": c.achieved, "method": c.method,
        "kind": c.kind, "sample_rate": sched.sample_rate, "steps": sched.steps,
        "convention": sched.convention, "run": sched.describe(), "notes": c.notes}
    if c.bounds is not None:
        res["achieved_lower"], res["achieved_upper"] = c.bounds
    if args.json:
        _emit_json(res)
        return 0
    what = (f"eps <= {_g(c.target)} at delta = {_g(c.delta)}" if c.criterion == "epsilon"
            else f"mu = {_g(c.target)}")
    print(f"noise multiplier sigma = {_g(c.sigma)} for {what}  ({c.method}, {c.kind})")
    if c.criterion == "epsilon":
        br = (f"; true value in [{_g(c.bounds[0])}, {_g(c.bounds[1])}]" if c.bounds else "")
        print(f"  eps at this sigma: {_g(c.achieved)}  (sound upper bound{br})")
    elif c.method == "clt":
        print(f"  CLT mu at this sigma: {_g(c.achieved)}  (approximation, not a bound)")
    if c.kind == "bound" and c.sigma_lower > 0:
        print(f"  smallest such sigma in ({_g(c.sigma_lower)}, {_g(c.sigma)}]")
    print(f"  run: {sched.describe()}")
    return 0


# ------------------------------------------------------------------- account
def add_account(sub: Any, common: Callable[..., None]) -> None:
    """Register ``gdp account``."""
    p = sub.add_parser("account", help="eps of a saved ledger or a DpEvent (JSON)",
                       description="Read a saved accountant (gdp.Accountant.to_json()) or a "
                       "dp-accounting DpEvent in its JSON form (the dict of "
                       "to_named_tuple(): {\"class_name\": \"GaussianDpEvent\", "
                       "\"noise_multiplier\": 1.0}, nested events as dicts) and print eps at "
                       "delta (sound, with the bracket), delta at eps, the budget and what "
                       "is left of it, and how epochs became steps.")
    p.add_argument("file", help="JSON file")
    add_report_options(p)
    p.add_argument("--neighbours", choices=gdp.accounting.NEIGHBOURS,
                   help="neighbour relation of a DpEvent (default add_remove; a ledger "
                   "carries its own)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_account)


def _load_ledger(path: str, neighbours: str | None) -> tuple[gdp.Accountant, str]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    if isinstance(data, dict) and "format" in data:
        acc = gdp.Accountant.from_state_dict(data)
        if neighbours is not None and neighbours != acc.neighbours:
            raise ValueError(f"--neighbours {neighbours} differs from the ledger's own "
                             f"({acc.neighbours})")
        return acc, "ledger"
    if isinstance(data, dict) and "class_name" in data:
        return gdp.Accountant(neighbours=neighbours or "add_remove").compose(data), "DpEvent"
    raise ValueError(f"{path} is neither a gdp accountant state (a dict with 'format': "
                     "'gdp.Accountant') nor a DpEvent (a dict with 'class_name')")


def _runs(acc: gdp.Accountant) -> list[str]:
    """How the DP-SGD steps (and DpEvents) of a ledger were counted, one line per kind."""
    lines = []
    for rec in acc.history:
        if rec["kind"] == "event":
            lines.append(f"{rec['event']['class_name']}: rates and counts as the event gives "
                         "them (no epochs conversion)")
        if rec["kind"] != "dpsgd":
            continue
        sched = rec.get("schedule")
        if sched is not None:
            lines.append(gdp.Schedule(**sched).describe())
        else:
            lines.append(f"{rec['steps']} steps at p = {_g(rec['sample_rate'])}, "
                         f"sigma = {_g(rec['noise_multiplier'])} (recorded step by step or "
                         "given; no epochs conversion)")
    return list(dict.fromkeys(lines))


def _cmd_account(args: argparse.Namespace) -> int:
    acc, source = _load_ledger(args.file, args.neighbours)
    deltas = [check_real("delta", d, lo=0.0, hi=1.0, lo_open=True) for d in args.delta]
    epss = [check_real("eps", e, lo=0.0) for e in (args.eps or [])]
    _progress(args).note(f"composing {len(acc)} mechanisms ...")
    h = acc.tradeoff()
    res: dict[str, Any] = {
        "source": source, "mechanisms": len(acc), "steps": acc.steps,
        "neighbours": acc.neighbours, "result": repr(h),
        "epsilon": [_eps_report(h, d) for d in deltas],
        "delta": [_delta_report(h, e) for e in epss], "runs": _runs(acc)}
    if acc.budget is not None and acc.budget.criterion != "tradeoff":
        r = acc.remaining()
        res["budget"] = acc.budget.to_dict()
        res["spent"] = acc.spent()
        res["remaining"] = ({"eps": r.eps, "delta": r.delta} if r.mu is None
                            else {"mu": r.mu})
    if args.json:
        _emit_json(res)
        return 0
    print(f"{source}: {len(acc)} mechanism(s), {acc.steps} DP-SGD step(s), "
          f"{acc.neighbours} neighbours: {res['result']}")
    for r in res["epsilon"]:
        print(f"  eps at delta = {_g(r['delta'])}: {_g(r['eps'])}  {_bracket_text(r, 'eps')}")
    for r in res["delta"]:
        print(f"  delta at eps = {_g(r['eps'])}: {_g(r['delta'])}  "
              f"{_bracket_text(r, 'delta')}")
    if "budget" in res:
        r = res["remaining"]
        left = (f"a pure eps = {_g(r['eps'])} release still fits, delta left at eps: "
                f"{_g(r['delta'])}" if "eps" in r else f"a mu = {_g(r['mu'])} Gaussian still fits")
        print(f"  budget {acc.budget.describe()}: spent {_g(res['spent'])}; {left}")
    for line in res["runs"]:
        print(f"  run: {line}")
    return 0
