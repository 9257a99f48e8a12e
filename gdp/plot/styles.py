r"""Styles for papers and slides: sizes, fonts, a line cycle that survives grayscale, Type 42.

Theory of operation
-------------------
A figure for a paper has to pass three checks that matplotlib's defaults fail:

* **Fonts embedded as TrueType (Type 42)**, not Type 3: IEEE's PDF eXpress and ACM's
  submission checks reject Type 3 fonts. Every style here sets ``pdf.fonttype`` and
  ``ps.fonttype`` to 42 (matplotlib's default is 3).
* **Curves that stay apart in grayscale and for colour-blind readers**: colour alone does
  not separate curves, and coinciding curves hide each other. :data:`CYCLE` pairs the
  Okabe–Ito palette (distinguishable under the common colour-vision deficiencies) with a
  different dash pattern *and* a different hollow marker per curve; markers are spaced
  along the line at equal visual distances (``markevery`` as a fraction of the axes
  diagonal) and each curve's markers start at a different offset, so two curves that
  coincide still show both sets of markers. :func:`curve_style` gives the i-th entry; the
  plotting functions of :mod:`gdp.plot` use it for every curve they draw (numbering the
  curves already on the Axes), whatever style is active.
* **Sizes that match the page**: text in a figure should print at the size of the
  caption (8–9 pt), so a figure is drawn at the width it will have in the paper, never
  scaled down. ``"paper-1col"`` is one column of a two-column paper (3.4 in wide: IEEE
  3.5 in, ACM 3.33 in), ``"paper-2col"`` the full text width (7.0 in: IEEE 7.16 in, ACM
  7.0 in), both with a Times-like serif (STIX, shipped with matplotlib, matching the
  text fonts of these templates) at 8 pt; ``"slides"`` is a 16:9 slide with a sans-serif
  font at 16 pt.

:func:`style` applies a style at once and, used as a context manager, restores the
previous settings on exit (as :func:`matplotlib.pyplot.xkcd` does). :func:`rc_params`
returns the settings as a dict for :func:`matplotlib.rc_context` or
``matplotlib.style.use``.

Imports: the ground floor only (matplotlib on first use).

References
----------
M. Okabe, K. Ito, "Color Universal Design (CUD): how to make figures and presentations
that are friendly to colorblind people", J*FLY, 2008 (the palette).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validation import check_choice, check_int

__all__ = ["PALETTE", "CYCLE", "STYLES", "curve_style", "rc_params", "style"]

#: The Okabe–Ito palette without its yellow (too light on white): blue, vermillion,
#: bluish green, reddish purple, orange, sky blue, black.
PALETTE: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                            "#56B4E9", "#000000")

_DASHES: tuple[Any, ...] = ("-", (0, (5.0, 2.0)), (0, (6.0, 1.5, 1.5, 1.5)), (0, (1.2, 1.4)),
                            (0, (7.0, 1.5, 1.5, 1.5, 1.5, 1.5)), (0, (3.0, 1.5)),
                            (0, (9.0, 2.5)))
_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X")
_MARK_STEP = 0.12  # marker spacing, as a fraction of the axes diagonal

#: One entry per curve: colour, dash pattern, hollow marker and where its markers start.
#: Seven entries; the eighth curve starts over (with the markers shifted).
CYCLE: tuple[dict[str, Any], ...] = tuple(
    {"color": c, "linestyle": ls, "marker": m,
     "markevery": (round(0.02 + _MARK_STEP * i / len(PALETTE), 4), _MARK_STEP)}
    for i, (c, ls, m) in enumerate(zip(PALETTE, _DASHES, _MARKERS, strict=True)))

_COMMON: dict[str, Any] = {
    "pdf.fonttype": 42, "ps.fonttype": 42,  # TrueType, never Type 3
    "svg.fonttype": "none", "savefig.bbox": None,
    "axes.grid": True, "grid.linewidth": 0.4, "grid.alpha": 0.5,
    "legend.framealpha": 0.9, "legend.fancybox": False,
    "figure.constrained_layout.use": True,
}
_SERIF: dict[str, Any] = {"font.family": "serif", "font.serif": ["STIXGeneral", "DejaVu Serif"],
                          "mathtext.fontset": "stix"}
_SANS: dict[str, Any] = {"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"],
                         "mathtext.fontset": "dejavusans"}


def _sizes(base: float, lw: float, ms: float) -> dict[str, Any]:
    small = base - 1 if base < 12 else base - 2
    return {"font.size": base, "axes.titlesize": base, "axes.labelsize": base,
            "legend.fontsize": small, "xtick.labelsize": small, "ytick.labelsize": small,
            "figure.titlesize": base + 1, "lines.linewidth": lw, "lines.markersize": ms,
            "axes.linewidth": 0.6 * lw, "xtick.major.width": 0.5 * lw,
            "ytick.major.width": 0.5 * lw, "patch.linewidth": 0.5 * lw}


#: The named styles: figure size (inches), resolution and fonts.
STYLES: dict[str, dict[str, Any]] = {
    "paper-1col": {**_COMMON, **_SERIF, **_sizes(8.0, 1.2, 3.5),
                   "figure.figsize": (3.4, 3.0), "figure.dpi": 150, "savefig.dpi": 300},
    "paper-2col": {**_COMMON, **_SERIF, **_sizes(8.0, 1.2, 3.5),
                   "figure.figsize": (7.0, 3.0), "figure.dpi": 150, "savefig.dpi": 300},
    "slides": {**_COMMON, **_SANS, **_sizes(16.0, 2.4, 7.0),
               "figure.figsize": (10.0, 5.625), "figure.dpi": 100, "savefig.dpi": 200},
}


def curve_style(i: int) -> dict[str, Any]:
    """The line properties of the ``i``-th curve of an Axes (from :data:`CYCLE`).

    Examples
    --------
    >>> import gdp.plot
    >>> s = gdp.plot.curve_style(1)
    >>> s["color"], s["marker"], s["linestyle"]
    ('#D55E00', 's', (0, (5.0, 2.0)))
    """
    i = check_int("i", i, lo=0, hi=10**6)  # the index of a curve on one Axes
    st = dict(CYCLE[i % len(CYCLE)])
    if i >= len(CYCLE):  # second round: shift the markers so they do not coincide
        start, step = st["markevery"]
        st["markevery"] = (round(start + step / (2 * len(CYCLE)), 4), step)
    return st


def rc_params(name: str = "paper-1col", **overrides: Any) -> dict[str, Any]:
    r"""The matplotlib settings of a named style (see :data:`STYLES`), plus ``overrides``.

    The prop cycle (for the user's own ``ax.plot`` calls) takes the colours and dash
    patterns of :data:`CYCLE`, not its markers (a marker on every point of the user's own
    data would be wrong); the plotting functions of :mod:`gdp.plot` add the markers.
    ``overrides`` are further rcParams: ``rc_params("slides", **{"font.size": 18})``.

    Examples
    --------
    >>> import gdp.plot
    >>> rc = gdp.plot.rc_params("paper-2col")
    >>> rc["figure.figsize"], rc["pdf.fonttype"], rc["font.size"]
    ((7.0, 3.0), 42, 8.0)
    """
    check_choice("name", name, tuple(STYLES))
    from cycler import cycler

    rc = dict(STYLES[name])
    keys = ("color", "linestyle")
    rc["axes.prop_cycle"] = cycler(**{k: [c[k] for c in CYCLE] for k in keys})
    rc.update(overrides)
    return rc


class style:  # noqa: N801 - used like a function, as matplotlib.pyplot.xkcd
    r"""Apply a named style to matplotlib now; as a context manager, restore on exit.

    Parameters
    ----------
    name : {"paper-1col", "paper-2col", "slides"}
        ``"paper-1col"``: 3.4 × 3.0 in, serif 8 pt; ``"paper-2col"``: 7.0 × 3.0 in, serif
        8 pt; ``"slides"``: 10 × 5.625 in (16:9), sans-serif 16 pt. All embed fonts as
        TrueType (``pdf.fonttype = 42``) and use the curve cycle :data:`CYCLE`.
    rc : mapping, optional
        Further rcParams that override the style (e.g. ``{"figure.figsize": (3.4, 2.2)}``).

    Examples
    --------
    >>> import matplotlib, gdp, gdp.plot
    >>> with gdp.plot.style("paper-1col"):
    ...     ax = gdp.plot.tradeoff(gdp.G_mu(1.0), gdp.laplace(1.0))
    ...     print(ax.figure.get_size_inches().tolist(), matplotlib.rcParams["pdf.fonttype"])
    [3.4, 3.0] 42
    >>> matplotlib.rcParams["pdf.fonttype"]   # restored
    3
    """

    def __init__(self, name: str = "paper-1col", rc: Mapping[str, Any] | None = None):
        import matplotlib

        if rc is not None and not isinstance(rc, Mapping):
            raise TypeError(f"`rc` must be a mapping of rcParams; got rc={rc!r}")
        new = rc_params(name, **dict(rc or {}))
        self.name = name
        self._saved = {k: matplotlib.rcParams[k] for k in new}
        matplotlib.rcParams.update(new)

    def __enter__(self) -> style:
        return self

    def __exit__(self, *exc: object) -> None:
        import matplotlib

        matplotlib.rcParams.update(self._saved)

    def __repr__(self) -> str:
        return f"style({self.name!r})"
