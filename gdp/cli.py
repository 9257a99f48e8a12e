r"""The ``gdp`` command: conversions, DP-SGD accounting, composition, plots and figures.

Theory of operation
-------------------
Each subcommand parses its arguments with :mod:`argparse`, calls the library and prints
either a short human-readable report or, with ``--json``, one JSON object on stdout (for
scripts; ``inf`` is written as the string ``"inf"``). Bad input never shows a traceback: the
library's ``ValueError`` / ``TypeError`` (and argparse's own complaints) become one line
``gdp <command>: error: <message>`` on stderr with exit status 2; a computation that cannot
be done (a missing part of the toolkit, a file that cannot be written) exits with status 1.
Long computations report progress on stderr when stderr is a terminal or ``--progress`` is
given.

Mechanisms are written ``name:params`` with an optional repetition ``xN``, and ``+`` joins
the factors of one composed curve (``gdp plot``)::

    gauss:MU            G_mu(MU), mu-GDP (Gaussian mechanism with sensitivity/sigma = MU)
    lap:MU              T(Lap(0,1), Lap(MU,1)) (Laplace mechanism with sensitivity/scale MU)
    rr:EPS              f_{EPS,0} (randomized response, pure EPS-DP)
    eps-delta:EPS,DELTA f_{EPS,DELTA}
    id                  the identity 1 - alpha (perfect privacy)
    sgauss:SIGMA,P      one subsampled Gaussian step C_p(G_{1/SIGMA}) (DRS Thm 4.2)
    dpsgd:SIGMA,P,STEPS a whole DP-SGD run (gdp.dpsgd; Poisson sampling, tight)

e.g. ``gdp compose gauss:1 lap:0.5 rr:1 eps-delta:1,1e-6 gauss:0.5x100``.

Examples
--------
>>> from gdp.cli import main
>>> main(["convert", "--mu", "1", "--delta", "1e-5"])
mu = 1, delta = 1e-05  ->  eps = 4.37718  (exact mu-GDP conversion, DRS Cor. 2.13)
0
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

import gdp

from ._validation import check_int, check_real
from .tradeoff import TradeOff

__all__ = ["main", "parse_mechanism", "parse_curve", "load_mechanisms"]


# ------------------------------------------------------------------- parsing
class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``gdp <cmd>: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not v.is_integer():
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        return int(v)


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
        return _need("subsample", "subsampling")(gdp.G_mu(1.0 / sigma), params[1])
    if kind == "dpsgd":
        steps = check_int("steps", params[2], lo=1)
        return _need("dpsgd", "DP-SGD accounting")(sigma=params[0], p=params[1],
                                                    steps=steps)
    raise ValueError(f"unknown mechanism {kind!r}")  # pragma: no cover - guarded by caller


def _need(name: str, what: str) -> Any:
    if not hasattr(gdp, name):
        raise RuntimeError(f"gdp.{name} ({what}) is not available in this installation")
    return getattr(gdp, name)


def parse_mechanism(spec: str) -> tuple[TradeOff, int]:
    """Parse one ``name:params[xN]`` term into ``(trade-off function, repetitions)``.

    Examples
    --------
    >>> from gdp.cli import parse_mechanism
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
        if reps < 1:
            raise ValueError(f"repetition must be at least 1; got {spec!r}")
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
    return _build(kind, values), reps


def parse_curve(spec: str) -> TradeOff:
    """Parse ``term+term+...`` (each ``name:params[xN]``) into one composed TradeOff.

    Examples
    --------
    >>> from gdp.cli import parse_curve
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
        reps = check_int("repeat", entry.get("repeat", 1), lo=1)
        params = [check_real(f, entry[f], finite=True) for f in fields]
        out.append((_build(kind, params), reps))
    return out


# ------------------------------------------------------------------- output
def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def _emit_json(obj: dict[str, Any]) -> None:
    print(json.dumps(_jsonable(obj), indent=2, allow_nan=False))


def _g(x: float, digits: int = 6) -> str:
    return "inf" if math.isinf(x) else f"{x:.{digits}g}"


class _Progress:
    """Progress lines on stderr, only when enabled (a terminal, or ``--progress``)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, message: str) -> None:
        if self.enabled:
            sys.stdout.flush()  # keep the order of the two streams on a terminal
            print(f"gdp: {message}", file=sys.stderr, flush=True)


def _progress(args: argparse.Namespace) -> _Progress:
    flag = getattr(args, "progress", None)
    if flag is None:
        enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
    else:
        enabled = bool(flag)
    return _Progress(enabled)


def _report(f: TradeOff, given: str, value: float, asked: str) -> dict[str, Any]:
    """``asked`` (``"eps"`` or ``"delta"``) at ``given = value`` on the sound side, with the
    bracket when ``f`` is a numeric result (every TradeOff with ``lower``/``upper`` also has
    ``epsilon_bounds``/``delta_bounds``)."""
    method = "epsilon" if asked == "eps" else "delta"
    sound = float(getattr(f, method)(value))
    rec: dict[str, Any] = {given: value, asked: sound}
    if hasattr(f, method + "_bounds"):
        lo, hi = getattr(f, method + "_bounds")(value)
        rec[asked + "_lower"], rec[asked + "_upper"] = float(lo), max(float(hi), sound)
    return rec


def _eps_report(f: TradeOff, delta: float) -> dict[str, Any]:
    """ε at δ on the sound side, with the bracket of a numeric result."""
    return _report(f, "delta", delta, "eps")


def _delta_report(f: TradeOff, eps: float) -> dict[str, Any]:
    """δ at ε on the sound side, with the bracket of a numeric result."""
    return _report(f, "eps", eps, "delta")


def _bracket_text(rec: dict[str, Any], key: str) -> str:
    lo, hi = rec.get(f"{key}_lower"), rec.get(f"{key}_upper")
    if lo is None:
        return "(exact)"
    return f"(sound upper bound; true value in [{_g(lo)}, {_g(hi)}])"


# ---------------------------------------------------------------- commands
def _cmd_convert(args: argparse.Namespace) -> int:
    mu = args.mu
    if args.sigma is not None:
        if mu is not None:
            raise ValueError("give either --mu or --sigma, not both")
        sigma = check_real("sigma", args.sigma, lo=0.0, lo_open=True)
        sens = check_real("sensitivity", args.sensitivity, lo=0.0, lo_open=True)
        mu = sens / sigma
    given = {k: v for k, v in (("mu", mu), ("eps", args.eps), ("delta", args.delta))
             if v is not None}
    if len(given) != 2:
        raise ValueError("give exactly two of --mu (or --sigma), --eps, --delta; got "
                         + (", ".join("--" + k for k in given) or "none"))
    if "eps" not in given:
        eps = float(gdp.eps_from_mu(mu, args.delta))
        res = {"mu": float(mu), "delta": float(args.delta), "eps": eps}
        text = f"mu = {_g(mu)}, delta = {_g(args.delta)}  ->  eps = {_g(eps)}"
    elif "delta" not in given:
        delta = float(gdp.delta_from_mu(mu, args.eps))
        res = {"mu": float(mu), "eps": float(args.eps), "delta": delta}
        text = f"mu = {_g(mu)}, eps = {_g(args.eps)}  ->  delta = {_g(delta)}"
    else:
        mu = float(gdp.mu_from_eps_delta(args.eps, args.delta))
        res = {"eps": float(args.eps), "delta": float(args.delta), "mu": mu}
        text = f"eps = {_g(args.eps)}, delta = {_g(args.delta)}  ->  mu = {_g(mu)}"
    if args.sigma is not None:
        res["sigma"] = float(args.sigma)
        res["sensitivity"] = float(args.sensitivity)
    if args.json:
        _emit_json(res)
    else:
        print(text + "  (exact mu-GDP conversion, DRS Cor. 2.13)")
    return 0


def _dpsgd_params(args: argparse.Namespace) -> tuple[float, float, int]:
    sigma = check_real("sigma", args.sigma, lo=0.0, lo_open=True)
    if args.p is not None:
        if args.batch_size is not None or args.dataset_size is not None:
            raise ValueError("give either --p or --batch-size with --dataset-size, not both")
        p = check_real("p", args.p, lo=0.0, hi=1.0, lo_open=True)
    else:
        if args.batch_size is None or args.dataset_size is None:
            raise ValueError("give the sampling rate --p, or --batch-size and --dataset-size")
        b = check_int("batch_size", args.batch_size, lo=1)
        n = check_int("dataset_size", args.dataset_size, lo=1)
        if b > n:
            raise ValueError(f"`batch_size` must be at most `dataset_size`; got "
                             f"batch_size={b}, dataset_size={n}")
        p = b / n
    if args.steps is not None:
        if args.epochs is not None:
            raise ValueError("give either --steps or --epochs, not both")
        steps = check_int("steps", args.steps, lo=1)
    elif args.epochs is not None:
        epochs = check_real("epochs", args.epochs, lo=0.0, lo_open=True)
        steps = max(1, math.ceil(epochs / p - 1e-9))
    else:
        raise ValueError("give the number of steps --steps, or --epochs")
    return sigma, p, steps


def dpsgd_report(sigma: float, p: float, steps: int, delta: float,
                 progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """ε at δ of a DP-SGD run (sound, with bracket), the μ of a Gaussian with the same
    (ε, δ), and the CLT μ of Bu et al. with its ε (an approximation) for comparison."""
    dpsgd = _need("dpsgd", "DP-SGD accounting")
    if progress is not None:
        progress(f"composing {steps} steps of the subsampled Gaussian (sigma={_g(sigma)}, "
                 f"p={_g(p)}) ...")
    h = dpsgd(sigma=sigma, p=p, steps=steps)
    rec = _eps_report(h, delta)
    out: dict[str, Any] = {"sigma": sigma, "p": p, "steps": steps, "delta": delta,
                           "eps": rec["eps"], "eps_lower": rec.get("eps_lower", rec["eps"]),
                           "eps_upper": rec.get("eps_upper", rec["eps"])}
    out["mu_same_eps_delta"] = (float(gdp.mu_from_eps_delta(rec["eps"], delta))
                                if math.isfinite(rec["eps"]) else math.inf)
    if hasattr(gdp, "noisy_sgd_mu"):
        mu_clt = float(gdp.noisy_sgd_mu(sigma, p, steps))
        out["clt_mu"] = mu_clt
        out["clt_eps"] = float(gdp.eps_from_mu(mu_clt, delta))
    return out


def _cmd_dpsgd(args: argparse.Namespace) -> int:
    sigma, p, steps = _dpsgd_params(args)
    delta = check_real("delta", args.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    res = dpsgd_report(sigma, p, steps, delta, progress=_progress(args))
    if args.json:
        _emit_json(res)
        return 0
    print(f"DP-SGD: sigma = {_g(sigma)}, p = {_g(p)}, steps = {steps}")
    print(f"  eps at delta = {_g(delta)}: {_g(res['eps'])}  (sound upper bound; true value "
          f"in [{_g(res['eps_lower'])}, {_g(res['eps_upper'])}])")
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
    deltas = [check_real("delta", d, lo=0.0, hi=1.0, lo_open=True) for d in args.delta]
    epss = [check_real("eps", e, lo=0.0) for e in (args.eps or [])]
    total = sum(n for _, n in terms)
    prog = _progress(args)
    prog(f"composing {total} mechanisms ...")
    h = _compose_terms(terms)
    eps_recs = [_eps_report(h, d) for d in deltas]
    delta_recs = [_delta_report(h, e) for e in epss]
    res: dict[str, Any] = {
        "mechanisms": [{"tradeoff": repr(f), "repeat": n} for f, n in terms],
        "count": total, "result": repr(h), "epsilon": eps_recs, "delta": delta_recs}
    clt_note = None
    if hasattr(gdp, "clt") and total > 1:
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
    print(f"composition of {total} mechanism(s): {repr(h)}")
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
        return None, {"sigma": sigma, "p": p}
    return parse_curve(spec), None


def _cmd_compare(args: argparse.Namespace) -> int:
    f, sgd = _compare_target(args.mechanism)
    ks = [check_int("k", k, lo=1) for k in args.k]
    delta = check_real("delta", args.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    prog = _progress(args)
    if len(ks) == 1:
        compare = _need("compare", "the composition-bounds comparison")
        prog(f"comparing composition bounds for k = {ks[0]} ...")
        if sgd is not None:
            table = compare(dpsgd={**sgd, "steps": ks[0]}, delta=delta, eps=args.eps)
        else:
            table = compare(f, k=ks[0], delta=delta, eps=args.eps)
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
    epsilon_vs_k = _need("epsilon_vs_k", "the composition-bounds comparison")
    prog(f"comparing composition bounds for k = {', '.join(map(str, ks))} ...")
    curves = (epsilon_vs_k(dpsgd=sgd, ks=ks, delta=delta) if sgd is not None
              else epsilon_vs_k(f, ks, delta=delta))
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


def _format_records(records: list[dict[str, Any]]) -> str:
    if not records:
        return "(no records)"
    cols = list(records[0])
    cells = [[_cell(r.get(c)) for c in cols] for r in records]
    width = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, width, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, width, strict=True)) for row in cells]
    return "\n".join(lines)


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return _g(v)
    return "" if v is None else str(v)


def _cmd_plot(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    from . import plot as gplot

    curves = [parse_curve(s) for s in args.curves]
    labels = args.label
    if labels is not None and len(labels) != len(curves):
        raise ValueError(f"give one --label per curve ({len(curves)}); got {len(labels)}")
    out = Path(args.out)
    fig = Figure(figsize=(args.size, args.size), layout="constrained")
    ax = fig.subplots()
    _progress(args)(f"drawing {len(curves)} curve(s) ...")
    if args.profile:
        eps = np.linspace(0.0, args.eps_max, 301)
        ax, data = gplot.privacy_profile(*curves, eps=eps, ax=ax, labels=labels,
                                         return_data=True)
    else:
        ax, data = gplot.tradeoff(*curves, ax=ax, shade=args.shade, log_alpha=args.log_alpha,
                                  labels=labels, return_data=True)
    if args.title:
        ax.set_title(args.title)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=args.dpi)
    written = [str(out)]
    if args.csv:
        written.append(str(data.to_csv(args.csv)))
    if args.json:
        _emit_json({"files": written, "curves": [repr(c) for c in curves]})
    else:
        for w in written:
            print(f"wrote {w}")
    return 0


def demo_text(progress: Callable[[str], None] | None = None) -> str:
    """The worked example printed by ``gdp demo`` and after ``gdp figures``."""
    lines = ["Worked example", ""]
    mu, delta = 1.0, 1e-5
    lines.append(f"Gaussian DP: a mu = {_g(mu)} mechanism (e.g. Gaussian noise sigma = "
                 f"sensitivity / mu)")
    lines.append(f"  is (eps, delta)-DP with eps = {_g(float(gdp.eps_from_mu(mu, delta)))} "
                 f"at delta = {_g(delta)}  [gdp.eps_from_mu({mu:g}, {delta:g})]")
    lines.append(f"  (eps, delta) = (1, 1e-5) needs mu <= "
                 f"{_g(float(gdp.mu_from_eps_delta(1.0, 1e-5)))}  "
                 "[gdp.mu_from_eps_delta(1, 1e-5)]")
    lines.append(f"  100 such mechanisms compose to mu = {_g(gdp.compose_mu(*[mu] * 100))} "
                 "(exactly: G_a (x) G_b = G_sqrt(a^2+b^2))")
    lines.append("")
    sigma, p, steps = 1.1, 0.01, 10_000
    try:
        r = dpsgd_report(sigma, p, steps, delta, progress=progress)
    except RuntimeError as exc:
        lines.append(f"DP-SGD example unavailable: {exc}")
        return "\n".join(lines)
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
    print(demo_text(progress=_progress(args)))
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from . import figures

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
            print(demo_text(progress=prog))
    return 1 if failed else 0


# ------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gdp`` command (exposed for documentation tools)."""
    parser = _Parser(prog="gdp", allow_abbrev=False, description=(
        "f-differential privacy and Gaussian differential privacy: conversions, DP-SGD "
        "accounting, composition, plots and the figures of the notes."),
        epilog="Run `gdp <command> --help` for the options of each command.")
    parser.add_argument("--version", action="version", version=f"gdp {gdp.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=_Parser)
    add = sub.add_parser

    subparsers: dict[str, argparse.ArgumentParser] = {}

    def add_parser(name: str, **kw: Any) -> argparse.ArgumentParser:
        subparsers[name] = add(name, allow_abbrev=False, **kw)
        return subparsers[name]

    sub.add_parser = add_parser  # type: ignore[method-assign]

    def common(p: argparse.ArgumentParser, progress: bool = False) -> None:
        p.add_argument("--json", action="store_true", help="print one JSON object (scripts)")
        if progress:
            g = p.add_mutually_exclusive_group()
            g.add_argument("--progress", dest="progress", action="store_true", default=None,
                           help="report progress on stderr (default: only on a terminal)")
            g.add_argument("--quiet", dest="progress", action="store_false",
                           help="no progress messages")

    p = sub.add_parser("convert", help="convert between mu, (eps, delta)",
                       description="Exact mu-GDP conversions: give two of mu, eps, delta "
                       "(DRS Cor. 2.13). --sigma S [--sensitivity D] stands for mu = D/S.")
    p.add_argument("--mu", type=_float, help="Gaussian DP parameter mu >= 0")
    p.add_argument("--sigma", type=_float, help="Gaussian noise std (mu = sensitivity/sigma)")
    p.add_argument("--sensitivity", type=_float, default=1.0,
                   help="l2 sensitivity for --sigma (default 1)")
    p.add_argument("--eps", type=_float, help="epsilon >= 0")
    p.add_argument("--delta", type=_float, help="delta in [0, 1]")
    common(p)
    p.set_defaults(func=_cmd_convert)

    p = sub.add_parser("dpsgd", help="privacy of a DP-SGD run",
                       description="Epsilon of DP-SGD (Poisson-subsampled Gaussian, composed "
                       "exactly over the steps) with its numeric bracket, the mu of a "
                       "Gaussian with the same (eps, delta), and the CLT mu of Bu et al. for "
                       "comparison.")
    p.add_argument("--sigma", type=_float, required=True, help="noise multiplier")
    p.add_argument("--p", type=_float, help="sampling rate (batch size / dataset size)")
    p.add_argument("--batch-size", type=_int, help="expected batch size (with --dataset-size)")
    p.add_argument("--dataset-size", type=_int, help="number of training examples")
    p.add_argument("--steps", type=_int, help="number of steps")
    p.add_argument("--epochs", type=_float, help="epochs (steps = ceil(epochs / p))")
    p.add_argument("--delta", type=_float, default=1e-5, help="target delta (default 1e-5)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_dpsgd)

    p = sub.add_parser("compose", help="compose mechanisms, report eps / delta",
                       description="Compose mechanisms (tensor product; exact where a closed "
                       "form exists, sound numeric bounds otherwise) and report eps at delta "
                       "and delta at eps.", epilog=_MECH_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mechanisms", nargs="*", metavar="MECH",
                   help="mechanism spec, e.g. gauss:1 lap:0.5 rr:1 eps-delta:1,1e-6 "
                   "gauss:0.5x100")
    p.add_argument("--file", help="JSON file with a list of mechanisms")
    p.add_argument("--delta", type=_float, nargs="+", default=[1e-5],
                   help="delta values for eps(delta) (default 1e-5)")
    p.add_argument("--eps", type=_float, nargs="+", help="eps values for delta(eps)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_compose)

    p = sub.add_parser("compare", help="table of composition bounds",
                       description="Epsilon of the k-fold composition of one mechanism by "
                       "several accountants (basic, advanced, KOV, RDP, CLT, exact).")
    p.add_argument("mechanism", metavar="MECH",
                   help="mechanism spec, e.g. rr:0.1, gauss:0.1, or dpsgd:SIGMA,P (steps = k)")
    p.add_argument("--k", type=_int, nargs="+", default=[1, 10, 100, 1000],
                   help="numbers of compositions (default 1 10 100 1000); one k prints "
                   "the full table with notes")
    p.add_argument("--delta", type=_float, default=1e-5, help="target delta (default 1e-5)")
    p.add_argument("--eps", type=_float, help="also compute delta at this eps (single --k)")
    p.add_argument("--format", choices=["text", "markdown", "latex"], default="text",
                   help="table format for a single --k (default text)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("plot", help="draw trade-off curves to a file",
                       description="Draw trade-off curves (or privacy profiles) of mechanism "
                       "specs to an image file; '+' composes terms into one curve.")
    p.add_argument("curves", nargs="+", metavar="CURVE",
                   help="e.g. gauss:1 'rr:0.5x10+gauss:0.3'")
    p.add_argument("-o", "--out", required=True, help="output file (.png, .pdf, .svg)")
    p.add_argument("--profile", action="store_true", help="plot delta(eps) instead")
    p.add_argument("--eps-max", type=_float, default=6.0, help="eps range for --profile")
    p.add_argument("--log-alpha", action="store_true", help="logarithmic alpha axis")
    p.add_argument("--shade", action="store_true", help="shade the guaranteed region")
    p.add_argument("--label", nargs="+", help="legend labels (one per curve)")
    p.add_argument("--title", help="axes title")
    p.add_argument("--csv", help="also write the plotted numbers to this CSV file")
    p.add_argument("--dpi", type=_int, default=160, help="resolution (default 160)")
    p.add_argument("--size", type=_float, default=4.8, help="figure size in inches")
    common(p, progress=True)
    p.set_defaults(func=_cmd_plot)

    p = sub.add_parser("figures", help="draw the figures of the notes, then a worked example",
                       description="Draw the figures of the notes (PNG and PDF) into a "
                       "directory, then print a worked example (DP-SGD accounting and a "
                       "Gaussian DP conversion).")
    p.add_argument("--out", default="figures", help="output directory (default: figures)")
    p.add_argument("--quick", action="store_true", help="cheaper settings (for tests)")
    p.add_argument("--format", nargs="+", default=["png", "pdf"], choices=["png", "pdf", "svg"],
                   help="file formats (default: png pdf)")
    p.add_argument("--dpi", type=_int, default=160, help="PNG resolution (default 160)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="draw only these figures")
    p.add_argument("--no-demo", action="store_true", help="skip the worked example")
    common(p, progress=True)
    p.set_defaults(func=_cmd_figures)

    p = sub.add_parser("demo", help="print the worked example",
                       description="Print the worked example (a Gaussian DP conversion and "
                       "DP-SGD accounting).")
    common(p, progress=True)
    p.set_defaults(func=_cmd_demo)
    parser.set_defaults(_subparsers=subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gdp`` command; return the exit status (0 ok, 1 failed, 2 bad input)."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(None if argv is None else list(argv))
        if extra:  # blame the subcommand, whose options the user was typing
            sub = args._subparsers.get(args.command, parser)
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return 0
    prog = f"gdp {args.command}"
    try:
        return int(args.func(args))
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (RuntimeError, NotImplementedError, OSError) as exc:
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    msg = " ".join(str(exc).split()) or type(exc).__name__
    return msg


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
