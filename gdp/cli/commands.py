r"""The subcommands of ``gdp``: convert, dpsgd, compose, compare, demo, figures (``plot`` is in
:mod:`gdp.cli.plotting`).

Each ``_cmd_*`` function takes the parsed arguments, calls the library, prints its answer (or
JSON with ``--json``) and returns the exit status.

Imports: :mod:`gdp` and the other modules of :mod:`gdp.cli`.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gdp

from .._validation import check_count, check_real
from ..core.tradeoff import TradeOff
from ..plot.base import label_text
from .accounting import schedule_from_args
from .output import (
    _bracket_text,
    _delta_report,
    _emit_json,
    _eps_report,
    _format_records,
    _g,
    _progress,
)
from .specs import _compose_terms, load_mechanisms, parse_curve, parse_mechanism

__all__ = ["dpsgd_report", "demo_report", "demo_text"]

# ---------------------------------------------------------------- commands
def _cmd_convert(args: argparse.Namespace) -> int:
    mu = args.mu
    sens = 1.0 if args.sensitivity is None else args.sensitivity
    if args.sigma is not None:
        if mu is not None:
            raise ValueError("give either --mu or --sigma, not both")
        mu = float(gdp.mu_from_sigma(sens, args.sigma))
    given = {k: v for k, v in (("mu", mu), ("eps", args.eps), ("delta", args.delta))
             if v is not None}
    if len(given) != 2:
        raise ValueError("give exactly two of --mu (or --sigma), --eps, --delta; got "
                         + (", ".join("--" + k for k in given) or "none"))
    rows = []
    for res, text in (_convert_one(mu, e, d) for e, d in _convert_pairs(args.eps, args.delta)):
        if args.sigma is not None:
            res["sigma"], res["sensitivity"] = float(args.sigma), float(sens)
        elif args.sensitivity is not None:
            # the noise of the Gaussian mechanism with this sensitivity: sigma =
            # sensitivity/mu (rounded up, never less noise than mu needs; mu = 0: infinite)
            sigma = float(gdp.sigma_from_mu(sens, res["mu"])) if res["mu"] > 0 else math.inf
            res["sensitivity"], res["sigma"] = float(sens), sigma
            text += f"; sigma = sensitivity/mu = {_g(sigma)} for sensitivity {_g(sens)}"
        rows.append((res, text))
    if args.json:
        _emit_json(rows[0][0] if len(rows) == 1 else {"results": [r for r, _ in rows]})
    else:
        for _, text in rows:
            print(text + "  (exact mu-GDP conversion, DRS Cor. 2.13)")
    return 0


def _convert_pairs(epss: list[float] | None, deltas: list[float] | None
                   ) -> list[tuple[float | None, float | None]]:
    """The (eps, delta) of each conversion: one list given, or both paired (one of length 1
    is repeated)."""
    e, d = list(epss or [None]), list(deltas or [None])
    if len(e) != len(d) and min(len(e), len(d)) != 1:
        raise ValueError(f"give as many --eps as --delta values, or one of either; got "
                         f"{len(e)} and {len(d)}")
    n = max(len(e), len(d))
    return list(zip(e * (n // len(e)), d * (n // len(d)), strict=True))


def _convert_one(mu: float | None, eps: float | None,
                 delta: float | None) -> tuple[dict[str, Any], str]:
    if eps is None:
        eps = float(gdp.eps_from_mu(mu, delta))
        return ({"mu": float(mu), "delta": float(delta), "eps": eps},
                f"mu = {_g(mu)}, delta = {_g(delta)}  ->  eps = {_g(eps)}")
    if delta is None:
        delta = float(gdp.delta_from_mu(mu, eps))
        return ({"mu": float(mu), "eps": float(eps), "delta": delta},
                f"mu = {_g(mu)}, eps = {_g(eps)}  ->  delta = {_g(delta)}")
    mu = float(gdp.mu_from_eps_delta(eps, delta))
    return ({"eps": float(eps), "delta": float(delta), "mu": mu},
            f"eps = {_g(eps)}, delta = {_g(delta)}  ->  mu = {_g(mu)}")


def _dpsgd_params(args: argparse.Namespace) -> tuple[float, float, int]:
    sigma = args.sigma  # checked by its type when parsed
    run = schedule_from_args(args)
    return sigma, run.sample_rate, run.steps


def dpsgd_report(sigma: float, p: float, steps: int, delta: float,
                 progress: Callable[[str], None] | None = None, *, sampler: str = "poisson",
                 neighbours: str = "add-remove", group_size: int = 1) -> dict[str, Any]:
    """ε at δ of a DP-SGD run (sound, with bracket), the μ of a Gaussian with the same
    (ε, δ), and the CLT μ of Bu et al. with its ε (an approximation) for comparison (Poisson
    add/remove only); with another sampler or relation, where each side comes from."""
    dpsgd = gdp.dpsgd
    if progress is not None:
        progress(f"composing {steps} steps of the subsampled Gaussian (sigma={_g(sigma)}, "
                 f"p={_g(p)}) ...")
    plain = (sampler, neighbours, group_size) == ("poisson", "add-remove", 1)
    extra: dict[str, Any] = {} if plain else {
        "sampler": sampler, "neighbours": neighbours, "group_size": group_size}
    h = dpsgd(sigma=sigma, p=p, steps=steps, **extra)
    rec = _eps_report(h, delta)
    out: dict[str, Any] = {"sigma": sigma, "p": p, "steps": steps, "delta": delta, **extra,
                           "eps": rec["eps"], "eps_lower": rec.get("eps_lower", rec["eps"]),
                           "eps_upper": rec.get("eps_upper", rec["eps"])}
    for side in ("sound_bound", "lower_bound"):
        if getattr(h, side, ""):
            out[side] = getattr(h, side)
    out["mu_same_eps_delta"] = (float(gdp.mu_from_eps_delta(rec["eps"], delta))
                                if math.isfinite(rec["eps"]) else math.inf)
    if not plain:
        return out
    mu_clt = float(gdp.noisy_sgd_mu(sigma, p, steps))
    out["clt_mu"] = mu_clt
    out["clt_eps"] = float(gdp.eps_from_mu(mu_clt, delta))
    return out


def _cmd_dpsgd(args: argparse.Namespace) -> int:
    sigma, p, steps = _dpsgd_params(args)
    delta = check_real("delta", args.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    k = check_count("group_size", args.group_size)
    if args.batch_size is not None and k > args.batch_size:
        raise ValueError(f"`group_size` must be at most `batch_size`; got group_size={k}, "
                         f"batch_size={args.batch_size}")
    res = dpsgd_report(sigma, p, steps, delta, progress=_progress(args).note,
                       sampler=args.sampler, neighbours=args.neighbours, group_size=k)
    run = schedule_from_args(args)
    res["convention"], res["run"] = run.convention, run.describe()
    if args.json:
        _emit_json(res)
        return 0
    print(f"DP-SGD: sigma = {_g(sigma)}, p = {_g(p)}, steps = {steps}, sampler = "
          f"{args.sampler}, neighbours = {args.neighbours}, group size = {k}")
    print(f"  run: {res['run']}")
    print(f"  eps at delta = {_g(delta)}: {_g(res['eps'])}  (sound upper bound; true value "
          f"in [{_g(res['eps_lower'])}, {_g(res['eps_upper'])}])")
    for side, what in (("sound_bound", "upper side"), ("lower_bound", "lower side")):
        if side in res:
            print(f"  {what}: {res[side]}")
    print(f"  mu of a Gaussian with the same (eps, delta): {_g(res['mu_same_eps_delta'])}")
    if "clt_mu" in res:
        print(f"  CLT (Bu et al. 2020): mu = {_g(res['clt_mu'])}, eps = {_g(res['clt_eps'])}  "
              "(approximation, not a bound)")
    return 0


def _cmd_compose(args: argparse.Namespace) -> int:
    terms: list[tuple[TradeOff, int]] = []
    if args.file is not None:
        terms += load_mechanisms(args.file)
    terms += [parse_mechanism(s) for s in args.mechanisms]
    if not terms:
        raise ValueError("give mechanisms (e.g. gauss:1 lap:0.5x10) or --file FILE.json")
    deltas, epss = list(args.delta), list(args.eps or [])
    total = sum(n for _, n in terms)
    prog = _progress(args)
    prog.note(f"composing {total} mechanisms ...")
    h = _compose_terms(terms)
    eps_recs = [_eps_report(h, d) for d in deltas]
    delta_recs = [_delta_report(h, e) for e in epss]
    res: dict[str, Any] = {
        "mechanisms": [{"tradeoff": repr(f), "repeat": n} for f, n in terms],
        "count": total, "result": repr(h), "label": label_text(h.label), "epsilon": eps_recs,
        "delta": delta_recs}
    clt_note = None
    if total > 1:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                c = gdp.clt([f for f, n in terms for _ in range(n)], check=False)
            res["clt_mu"] = float(c.mu)
            res["clt_gamma"] = float(c.gamma)
            res["clt_eps"] = [float(gdp.eps_from_mu(float(c.mu), d)) for d in deltas]
            if caught:
                res["clt_warning"] = " ".join(str(caught[0].message).split())
        except (ValueError, TypeError) as exc:
            clt_note = str(exc)
    if args.json:
        _emit_json(res)
        return 0
    print(f"composition of {total} mechanism(s): {_describe(h)}")
    for r in eps_recs:
        print(f"  eps at delta = {_g(r['delta'])}: {_g(r['eps'])}  {_bracket_text(r, 'eps')}")
    for r in delta_recs:
        print(f"  delta at eps = {_g(r['eps'])}: {_g(r['delta'])}  "
              f"{_bracket_text(r, 'delta')}")
    if "clt_mu" in res:
        eps_txt = ", ".join(_g(e) for e in res["clt_eps"])
        print(f"  CLT: mu = {_g(res['clt_mu'])}, eps = {eps_txt}  (approximation, not a bound)")
        if "clt_warning" in res:
            print(f"  CLT warning: {res['clt_warning']}")
    elif clt_note:
        print(f"  CLT: not applicable ({clt_note})")
    return 0


def _describe(h: TradeOff) -> str:
    """The curve for a terminal: its label as plain text, and its repr when that is a
    readable closed form (``G_5 = Gaussian(mu=5.0)``), not a numeric result's LaTeX name."""
    text, r = label_text(h.label), repr(h)
    return text if "name=" in r or "\\" in r or "{" in r else f"{text} = {r}"


def _compare_target(spec: str) -> tuple[Any, dict[str, float] | None]:
    """``dpsgd:SIGMA,P`` (steps = k) or any curve spec."""
    text = spec.strip().lower()
    if text.startswith("dpsgd:"):
        parts = text[6:].split(",")
        if len(parts) != 2:
            raise ValueError(f"for gdp compare write DP-SGD as dpsgd:SIGMA,P (steps = k); "
                             f"got {spec!r}")
        try:
            sigma, p = (float(v) for v in parts)
        except ValueError:
            raise ValueError(f"mechanism {spec!r}: parameters must be numbers") from None
        try:
            sigma = check_real("sigma", sigma, lo=0.0, lo_open=True)
            p = check_real("p", p, lo=0.0, hi=1.0, lo_open=True)
        except ValueError as exc:
            raise ValueError(f"mechanism {spec!r}: {exc}") from None
        return None, {"sigma": sigma, "p": p}
    return parse_curve(spec), None


def _cmd_compare(args: argparse.Namespace) -> int:
    f, sgd = _compare_target(args.mechanism)
    ks, delta = list(args.k), args.delta
    prog = _progress(args)
    if len(ks) == 1:
        compare = gdp.compare
        prog.note(f"comparing composition bounds for k = {ks[0]} ...")
        if sgd is not None:
            table = compare(dpsgd={**sgd, "steps": ks[0]}, delta=delta, eps=args.eps,
                            progress=prog)
        else:
            table = compare(f, k=ks[0], delta=delta, eps=args.eps, progress=prog)
        if args.json:
            _emit_json({"mechanism": args.mechanism, "description": table.description,
                        "records": table.to_records()})
        elif args.format == "markdown":
            print(table.to_markdown())
        elif args.format == "latex":
            print(table.to_latex())
        else:
            print(table.to_text())
        return 0
    if args.eps is not None:
        raise ValueError("--eps needs a single --k (delta at eps is reported per k)")
    epsilon_vs_k = gdp.epsilon_vs_k
    prog.note(f"comparing composition bounds for k = {', '.join(map(str, ks))} ...")
    curves = (epsilon_vs_k(dpsgd=sgd, ks=ks, delta=delta, progress=prog) if sgd is not None
              else epsilon_vs_k(f, ks, delta=delta, progress=prog))
    cols = {m: [float(x) for x in v] for m, v in curves.columns.items()}
    if args.json:
        _emit_json({"mechanism": args.mechanism, "delta": delta, "k": ks, "epsilon": cols,
                    "kinds": dict(curves.kinds)})
        return 0
    records = [{"k": k, **{m: cols[m][i] for m in cols}} for i, k in enumerate(ks)]
    print(f"eps at delta = {_g(delta)} of the k-fold composition of {args.mechanism} "
          f"(kinds: {', '.join(f'{m}={kd}' for m, kd in curves.kinds.items())})")
    print(_format_records(records))
    return 0


def demo_report(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The numbers of the worked example (``gdp demo --json``)."""
    mu, delta = 1.0, 1e-5
    return {"gaussian": {"mu": mu, "delta": delta, "eps": float(gdp.eps_from_mu(mu, delta)),
                         "mu_for_eps_1": float(gdp.mu_from_eps_delta(1.0, 1e-5)),
                         "mu_of_100": gdp.compose_mu(*[mu] * 100)},
            "dpsgd": dpsgd_report(1.1, 0.01, 10_000, delta, progress=progress)}


#: the largest image side of ``gdp plot`` in pixels (--size times --dpi)
_PIXELS_MAX = 8000
#: limits of the image flags: a figure of at most _SIZE_MAX inches at _DPI_MAX dots per inch
#: (and at most _PIXELS_MAX pixels a side, checked by ``gdp plot``)
_SIZE_MAX, _DPI_MAX = 40.0, 1200


def _writable(flag: str, path: str) -> Path:
    """An output path whose directory exists (no directories are created silently)."""
    out = Path(path)
    if not str(path).strip() or out.name in ("", ".", ".."):
        raise ValueError(f"{flag} must name a file; got {path!r}")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{flag}: the directory {str(parent)!r} does not exist (create it "
                         "first)")
    return out


def demo_text(progress: Callable[[str], None] | None = None) -> str:
    """The worked example printed by ``gdp demo`` and after ``gdp figures``."""
    d = demo_report(progress)
    g, r = d["gaussian"], d["dpsgd"]
    mu, delta = g["mu"], g["delta"]
    lines = ["Worked example", ""]
    lines.append(f"Gaussian DP: a mu = {_g(mu)} mechanism (e.g. Gaussian noise sigma = "
                 f"sensitivity / mu)")
    lines.append(f"  is (eps, delta)-DP with eps = {_g(g['eps'])} "
                 f"at delta = {_g(delta)}  [gdp.eps_from_mu({mu:g}, {delta:g})]")
    lines.append(f"  (eps, delta) = (1, 1e-5) needs mu <= {_g(g['mu_for_eps_1'])}  "
                 "[gdp.mu_from_eps_delta(1, 1e-5)]")
    lines.append(f"  100 such mechanisms compose to mu = {_g(g['mu_of_100'])} "
                 "(exactly: G_a (x) G_b = G_sqrt(a^2+b^2))")
    lines.append("")
    sigma, p, steps = r["sigma"], r["p"], r["steps"]
    lines.append(f"DP-SGD: sigma = {sigma:g}, sampling rate p = {p:g}, {steps} steps "
                 f"[gdp dpsgd --sigma {sigma:g} --p {p:g} --steps {steps} --delta {delta:g}]")
    lines.append(f"  eps at delta = {_g(delta)}: {_g(r['eps'])}  (sound upper bound; "
                 f"true value in [{_g(r['eps_lower'])}, {_g(r['eps_upper'])}])")
    lines.append(f"  mu of a Gaussian with the same (eps, delta): "
                 f"{_g(r['mu_same_eps_delta'])}")
    if "clt_mu" in r:
        lines.append(f"  CLT approximation (Bu et al. 2020): mu = {_g(r['clt_mu'])}, "
                     f"eps = {_g(r['clt_eps'])}  (not a bound)")
    return "\n".join(lines)


def _cmd_demo(args: argparse.Namespace) -> int:
    if args.json:
        _emit_json(demo_report(progress=_progress(args).note))
    else:
        print(demo_text(progress=_progress(args).note))
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from ..plot import figures

    _writable("--out", args.out)  # the directory is created, its parent must exist
    prog = _progress(args)
    written, failed = figures.draw_all(args.out, quick=args.quick, formats=args.format,
                                       dpi=args.dpi, names=args.only or None, progress=prog)
    if args.json:
        _emit_json({"files": [str(p) for p in written], "failed": failed})
    else:
        print(f"wrote {len(written)} file(s) to {args.out}/: "
              + ", ".join(sorted({p.stem for p in written})))
        for name, msg in failed.items():
            print(f"gdp figures: error: {name}: {msg}", file=sys.stderr)
        if not args.no_demo:
            print()
            print(demo_text(progress=prog.note))
    return 1 if failed else 0
