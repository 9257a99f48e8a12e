r"""``gdp plot``: trade-off curves or privacy profiles of mechanism specs, and ``gdp plot
compare MECH --k ...``, the figure of ε against the number of compositions.

Every file is drawn in a :func:`gdp.plot.style` (``--style``; by default matplotlib's look
at ``--size``) with TrueType (Type 42) fonts, so a PDF passes the IEEE/ACM font checks.

Imports: :mod:`gdp` (its public names), :mod:`gdp.plot` and the other modules of
:mod:`gdp.cli`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import gdp

from .._validation import check_int, check_real
from ..bounds.tables import METHODS
from .commands import _DPI_MAX, _PIXELS_MAX, _SIZE_MAX, _writable
from .output import _emit_json, _progress
from .specs import _count, _real, parse_curve

__all__ = ["add_plot", "add_plot_options"]

_STYLES = ("paper-1col", "paper-2col", "slides")


def add_plot(sub: Any, common: Callable[..., None]) -> None:
    """Register ``gdp plot``."""
    p = sub.add_parser("plot", help="draw trade-off curves to a file",
                       description="Draw trade-off curves (or privacy profiles) of mechanism "
                       "specs to an image file; '+' composes terms into one curve. "
                       "`gdp plot compare MECH --k ...` draws epsilon against the number "
                       "of compositions instead.")
    p.add_argument("curves", nargs="+", metavar="CURVE",
                   help="e.g. gauss:1 'rr:0.5x10+gauss:0.3'")
    p.add_argument("-o", "--out", required=True, help="output file (.png, .pdf, .svg)")
    p.add_argument("--profile", action="store_true", help="plot delta(eps) instead")
    p.add_argument("--eps-max", type=_real("eps_max", lo=0.0, hi=700.0, lo_open=True),
                   default=6.0, help="eps range for --profile (at most 700)")
    p.add_argument("--log-alpha", action="store_true", help="logarithmic alpha axis")
    p.add_argument("--shade", action="store_true", help="shade the guaranteed region")
    p.add_argument("--label", nargs="+", help="legend labels (one per curve)")
    p.add_argument("--title", help="axes title")
    p.add_argument("--csv", help="also write the plotted numbers to this CSV file")
    p.add_argument("--dpi", type=_count("dpi", lo=10, hi=_DPI_MAX), default=160,
                   help=f"resolution (default 160, at most {_DPI_MAX})")
    p.add_argument("--size", type=_real("size", lo=0.5, hi=_SIZE_MAX), default=4.8,
                   help=f"figure size in inches (0.5 to {_SIZE_MAX:g})")
    add_plot_options(p)
    common(p, progress=True)
    p.set_defaults(func=_cmd_plot)


def add_plot_options(p: argparse.ArgumentParser) -> None:
    """The options of ``gdp plot`` beyond the curves: ``--style`` and those of ``gdp plot
    compare MECH``."""
    p.add_argument("--style", choices=_STYLES,
                   help="size and fonts of a paper column, the text width or a slide "
                   "(default: --size square, matplotlib's fonts); fonts are TrueType always")
    g = p.add_argument_group("gdp plot compare MECH (epsilon against the number of "
                             "compositions k, one line per accounting method)")
    g.add_argument("--k", type=_count("k"), nargs="+", metavar="K",
                   help="numbers of compositions (default 1 3 10 30 100 300 1000)")
    g.add_argument("--delta", type=_real("delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                   default=1e-5, help="target delta in (0, 1) (default 1e-5)")
    g.add_argument("--methods", nargs="+", choices=list(METHODS), metavar="METHOD",
                   help=f"a subset of {', '.join(METHODS)} (default all)")


def _figure(args: argparse.Namespace) -> tuple[Any, Any]:
    """A new Figure in the requested style, and the rc context to draw and save it in."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    from .. import plot as gplot

    if args.style is not None:
        ctx = gplot.style(args.style)
        size = matplotlib.rcParams["figure.figsize"]
    else:
        ctx = matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42})
        size = (args.size, args.size)
    return Figure(figsize=size, layout="constrained"), ctx


def _check_outputs(args: argparse.Namespace) -> None:
    """Before any work: --out (and --csv) in existing directories (none is created
    silently), and an image of at most _PIXELS_MAX pixels a side."""
    _writable("--out", args.out)
    if args.csv:
        _writable("--csv", args.csv)
    if args.style is None and args.size * args.dpi > _PIXELS_MAX:
        raise ValueError(f"--size times --dpi must be at most {_PIXELS_MAX} pixels; got "
                         f"size={args.size:g}, dpi={args.dpi}")


def _save(args: argparse.Namespace, fig: Any, data: Any, what: dict[str, Any]) -> int:
    out = Path(args.out)
    meta = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(
        out.suffix.lower().lstrip("."), {"Software": None})
    fig.savefig(out, dpi=args.dpi, metadata=meta)
    written = [str(out)]
    if args.csv:
        written.append(str(data.to_csv(args.csv)))
    if args.json:
        _emit_json({"files": written, **what})
    else:
        for w in written:
            print(f"wrote {w}")
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from .. import plot as gplot

    _check_outputs(args)
    if args.curves[0] == "compare":
        return _plot_compare(args)
    curves = [parse_curve(s) for s in args.curves]
    labels = args.label
    if labels is not None and len(labels) != len(curves):
        raise ValueError(f"give one --label per curve ({len(curves)}); got {len(labels)}")
    _progress(args).note(f"drawing {len(curves)} curve(s) ...")
    fig, ctx = _figure(args)
    with ctx:
        ax = fig.subplots()
        if args.profile:
            eps = np.linspace(0.0, args.eps_max, 301)
            ax, data = gplot.privacy_profile(*curves, eps=eps, ax=ax, labels=labels,
                                             return_data=True)
        else:
            ax, data = gplot.tradeoff(*curves, ax=ax, shade=args.shade,
                                      log_alpha=args.log_alpha, labels=labels,
                                      return_data=True)
        if args.title:
            ax.set_title(args.title)
        return _save(args, fig, data, {"curves": [repr(c) for c in curves],
                                       "labels": [gplot.label_text(c.label) for c in curves]})


def _plot_compare(args: argparse.Namespace) -> int:
    """``gdp plot compare MECH --k K... --delta D -o FILE``."""
    from .. import plot as gplot
    from .commands import _compare_target

    if len(args.curves) != 2:
        raise ValueError("write gdp plot compare MECH --k K ... -o FILE with one mechanism "
                         f"(e.g. rr:0.1 or dpsgd:SIGMA,P); got {len(args.curves) - 1}")
    f, sgd = _compare_target(args.curves[1])
    ks = [check_int("k", k, lo=1) for k in (args.k or [1, 3, 10, 30, 100, 300, 1000])]
    delta = check_real("delta", args.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    prog = _progress(args)
    prog.note(f"comparing composition bounds for k = {', '.join(map(str, ks))} ...")
    curves = (gdp.epsilon_vs_k(dpsgd=sgd, ks=ks, delta=delta, methods=args.methods,
                               progress=prog) if sgd is not None
              else gdp.epsilon_vs_k(f, ks, delta=delta, methods=args.methods, progress=prog))
    fig, ctx = _figure(args)
    with ctx:
        w, _ = fig.get_size_inches()
        fig.set_size_inches(w, 1.3 * w)  # room for the legend under the axes
        ax, data = gplot.compare(curves, ax=fig.subplots(), legend=False, return_data=True)
        name = (rf"DP-SGD ($\sigma = {sgd['sigma']:g}$, $p = {sgd['p']:g}$), $k$ steps"
                if sgd is not None else rf"$k$-fold {gplot.mathtext(f.label)}")
        ax.set_title(args.title if args.title else name)
        handles, names = ax.get_legend_handles_labels()
        fig.legend(handles, names, loc="outside lower center", ncols=2, frameon=False,
                   fontsize="small", handlelength=2.6)
        return _save(args, fig, data, {"mechanism": args.curves[1], "delta": delta,
                                       "k": ks, "kinds": dict(curves.kinds)})
