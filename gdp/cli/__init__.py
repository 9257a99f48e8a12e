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
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

import gdp

from .accounting import add_account, add_calibrate, add_report_options, add_run_options
from .commands import (
    _DPI_MAX,
    _cmd_compare,
    _cmd_compose,
    _cmd_convert,
    _cmd_demo,
    _cmd_dpsgd,
    _cmd_figures,
)
from .output import _progress
from .plotting import add_plot
from .specs import _MECH_HELP, _count, _real
from .sql import add_sql

__all__ = ["build_parser", "main"]

# ------------------------------------------------------------------- parsing
class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``gdp <cmd>: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


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
    p.add_argument("--mu", type=_real("mu", lo=0.0, finite=False),
                   help="Gaussian DP parameter mu >= 0")
    p.add_argument("--sigma", type=_real("sigma", lo=0.0, lo_open=True),
                   help="Gaussian noise std (mu = sensitivity/sigma)")
    p.add_argument("--sensitivity", type=_real("sensitivity", lo=0.0, lo_open=True),
                   help="l2 sensitivity: of --sigma (default 1), or, with a mu, prints the "
                   "sigma of the Gaussian mechanism (sigma = sensitivity/mu)")
    p.add_argument("--eps", type=_real("eps", lo=0.0, finite=False), nargs="+",
                   help="epsilon >= 0 (one or several)")
    p.add_argument("--delta", type=_real("delta", lo=0.0, hi=1.0), nargs="+",
                   help="delta in [0, 1] (one or several)")
    common(p)
    p.set_defaults(func=_cmd_convert)

    p = sub.add_parser("dpsgd", help="privacy of a DP-SGD run",
                       description="Epsilon of DP-SGD (Poisson-subsampled Gaussian, composed "
                       "exactly over the steps) with its numeric bracket, the mu of a "
                       "Gaussian with the same (eps, delta), and the CLT mu of Bu et al. for "
                       "comparison.")
    p.add_argument("--sigma", type=_real("sigma", lo=0.0, lo_open=True, least=1e-300),
                   required=True, help="noise multiplier")
    add_run_options(p)
    p.add_argument("--delta", type=_real("delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                   default=1e-5, help="target delta (default 1e-5)")
    p.add_argument("--sampler", choices=gdp.sampling.SAMPLERS, default="poisson",
                   help="how batches are drawn (default poisson; see docs/samplers.md)")
    p.add_argument("--neighbours", choices=gdp.sampling.NEIGHBOURS, default="add-remove",
                   help="neighbour relation (default add-remove)")
    p.add_argument("--group-size", type=_count("group-size"), default=1,
                   help="examples per user, for user-level privacy (default 1)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_dpsgd)

    add_calibrate(sub, common)
    add_account(sub, common)

    p = sub.add_parser("compose", help="compose mechanisms, report eps / delta",
                       description="Compose mechanisms (tensor product; exact where a closed "
                       "form exists, sound numeric bounds otherwise) and report eps at delta "
                       "and delta at eps.", epilog=_MECH_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mechanisms", nargs="*", metavar="MECH",
                   help="mechanism spec, e.g. gauss:1 lap:0.5 rr:1 eps-delta:1,1e-6 "
                   "gauss:0.5x100")
    p.add_argument("--file", help="JSON file with a list of mechanisms")
    add_report_options(p)
    common(p, progress=True)
    p.set_defaults(func=_cmd_compose)

    p = sub.add_parser("compare", help="table of composition bounds",
                       description="Epsilon of the k-fold composition of one mechanism by "
                       "several accountants (basic, advanced, KOV, RDP, CLT, exact).")
    p.add_argument("mechanism", metavar="MECH",
                   help="mechanism spec, e.g. rr:0.1, gauss:0.1, or dpsgd:SIGMA,P (steps = k)")
    p.add_argument("--k", type=_count("k"), nargs="+", default=[1, 10, 100, 1000],
                   help="numbers of compositions (default 1 10 100 1000); one k prints "
                   "the full table with notes")
    p.add_argument("--delta", type=_real("delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                   default=1e-5, help="target delta (default 1e-5)")
    p.add_argument("--eps", type=_real("eps", lo=0.0),
                   help="also compute delta at this eps (single --k)")
    p.add_argument("--format", choices=["text", "markdown", "latex"], default="text",
                   help="table format for a single --k (default text)")
    common(p, progress=True)
    p.set_defaults(func=_cmd_compare)

    add_plot(sub, common)

    p = sub.add_parser("figures", help="draw the figures of the notes, then a worked example",
                       description="Draw the figures of the notes (PNG and PDF) into a "
                       "directory, then print a worked example (DP-SGD accounting and a "
                       "Gaussian DP conversion).")
    p.add_argument("--out", default="figures", help="output directory (default: figures)")
    p.add_argument("--quick", action="store_true", help="cheaper settings (for tests)")
    p.add_argument("--format", nargs="+", default=["png", "pdf"], choices=["png", "pdf", "svg"],
                   help="file formats (default: png pdf)")
    p.add_argument("--dpi", type=_count("dpi", lo=10, hi=_DPI_MAX), default=300,
                   help=f"PNG resolution (default 300, at most {_DPI_MAX})")
    p.add_argument("--only", nargs="+", metavar="NAME", help="draw only these figures")
    p.add_argument("--no-demo", action="store_true", help="skip the worked example")
    common(p, progress=True)
    p.set_defaults(func=_cmd_figures)

    p = sub.add_parser("demo", help="print the worked example",
                       description="Print the worked example (a Gaussian DP conversion and "
                       "DP-SGD accounting).")
    common(p, progress=True)
    p.set_defaults(func=_cmd_demo)
    add_sql(sub, common)
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
    # warnings of the library are collected: one line each after a success, none after an
    # error (whose one line says it all)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = int(args.func(args))
        except (ValueError, TypeError) as exc:
            _progress(args).close()
            print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except (RuntimeError, NotImplementedError, OSError) as exc:
            _progress(args).close()
            print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            _progress(args).close()
            print(f"{prog}: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # noqa: BLE001 - never a traceback: a bug, said in one line
            _progress(args).close()
            print(f"{prog}: error: internal error ({type(exc).__name__}): {_one_line(exc)}",
                  file=sys.stderr)
            return 1
        finally:
            _progress(args).close()
    shown = set()
    for w in caught:  # numpy's floating-point RuntimeWarnings are internals, not news
        msg = _one_line(w.message)
        if issubclass(w.category, DeprecationWarning | RuntimeWarning) or msg in shown:
            continue
        shown.add(msg)
        print(f"{prog}: warning: {msg}", file=sys.stderr)
    return status


def _one_line(exc: BaseException) -> str:
    msg = " ".join(str(exc).split()) or type(exc).__name__
    return msg


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
