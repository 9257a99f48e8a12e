"""Paper styles: sizes and TrueType fonts, restored on exit; every curve its own look; labels
as math text and as plain text."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402

import gdp  # noqa: E402
from gdp import plot as gplot  # noqa: E402


@pytest.mark.parametrize("name", sorted(gplot.STYLES))
def test_a_style_sets_sizes_and_truetype_fonts_and_restores_them(name, tmp_path):
    before = dict(matplotlib.rcParams)
    with gplot.style(name) as st:
        assert matplotlib.rcParams["pdf.fonttype"] == 42
        assert matplotlib.rcParams["ps.fonttype"] == 42
        ax = gplot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5))
        assert tuple(ax.figure.get_size_inches()) == gplot.STYLES[name]["figure.figsize"]
        ax.figure.savefig(tmp_path / "f.pdf")
    assert repr(st) == f"style({name!r})"
    assert b"/Type3" not in (tmp_path / "f.pdf").read_bytes()
    assert dict(matplotlib.rcParams) == before


def test_a_style_applies_at_once_like_xkcd():
    st = gplot.style("slides")
    try:
        assert matplotlib.rcParams["font.size"] == 16.0
    finally:
        st.__exit__(None, None, None)
    assert matplotlib.rcParams["font.size"] == matplotlib.rcParamsDefault["font.size"]


def test_style_arguments_are_checked():
    with pytest.raises(ValueError, match="`name` must be one of 'paper-1col', 'paper-2col', "
                                         "'slides'; got name='poster'"):
        gplot.style("poster")
    with pytest.raises(TypeError, match="`rc` must be a mapping"):
        gplot.style("slides", rc=[("font.size", 3)])
    with gplot.style("paper-1col", rc={"figure.figsize": (3.4, 2.0)}):
        assert tuple(matplotlib.rcParams["figure.figsize"]) == (3.4, 2.0)


def test_the_cycle_differs_in_colour_dashes_and_markers():
    cyc = [gplot.curve_style(i) for i in range(len(gplot.CYCLE))]
    for key in ("color", "linestyle", "marker"):
        values = [repr(c[key]) for c in cyc]
        assert len(set(values)) == len(values), key
    # grayscale: the luminances are not all alike, and dashes/markers carry the rest anyway
    lum = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in (to_rgb(c["color"]) for c in cyc)]
    assert max(lum) - min(lum) > 0.4
    # the second round shifts the markers so that curves 0 and 7 do not share positions
    assert gplot.curve_style(7)["markevery"] != gplot.curve_style(0)["markevery"]


def test_coinciding_curves_stay_distinguishable():
    # G_1 and 100-fold randomized response with eps = 0.1 are almost the same curve
    ax = gplot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5), gdp.f_eps_delta(0.1) ** 100)
    lines = [ln for ln in ax.get_lines() if ln.get_gid() == "gdp-curve"]
    assert len(lines) == 3
    looks = {(ln.get_color(), repr(ln.get_linestyle()), repr(ln.get_dashes() if hasattr(
        ln, "get_dashes") else None), ln.get_marker(), repr(ln.get_markevery())) for ln in lines}
    assert len(looks) == 3
    assert len({ln.get_marker() for ln in lines}) == 3
    assert len({repr(ln.get_markevery()) for ln in lines}) == 3


def test_later_calls_on_one_axes_continue_the_cycle():
    ax = gplot.tradeoff(gdp.G_mu(1.0))
    gplot.tradeoff(gdp.G_mu(2.0), ax=ax, diagonal=False)
    markers = [ln.get_marker() for ln in ax.get_lines() if ln.get_gid() == "gdp-curve"]
    assert markers == ["o", "s"]


def test_the_callers_keywords_win_and_aliases_are_accepted():
    ax = gplot.tradeoff(gdp.G_mu(1.0), color="black", ls=":", lw=3, marker="")
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "gdp-curve"]
    assert line.get_color() == "black" and line.get_linestyle() == ":"
    assert line.get_linewidth() == 3 and line.get_marker() == ""


@pytest.mark.parametrize("label, math", [
    ("G_{1}", "$G_{1}$"),
    ("f_{1,1e-05}", "$f_{1,10^{-5}}$"),
    ("f_{0.5,1e-10}", "$f_{0.5,10^{-10}}$"),
    ("f_{1,2.5e-07}", r"$f_{1,2.5\times 10^{-7}}$"),
    ("f_{1e+03,0}", "$f_{10^{3},0}$"),
    ("G_{0.1}", "$G_{0.1}$"),
    ("DP-SGD", "DP-SGD"),
    ("exact (sound)", "exact (sound)"),
    ("T(P,Q)", "$T(P,Q)$"),
    (r"\mathrm{Lap}_{1}", r"$\mathrm{Lap}_{1}$"),
    ("CLT $G_{1}$", "CLT $G_{1}$"),
])
def test_mathtext_of_labels(label, math):
    assert gplot.mathtext(label) == math
    assert gplot.mathtext(gplot.mathtext(label)) == math


@pytest.mark.parametrize("f, text", [
    (gdp.f_eps_delta(0.5) ** 10, "f_(0.5,0)^⊗10"),
    (gdp.G_mu(1.0), "G_1"),
    (gdp.f_eps_delta(1.0, 1e-5), "f_(1,1e-05)"),
    (gdp.laplace(1.0) @ gdp.G_mu(0.5), "Lap_1 ⊗ G_0.5"),
    (gdp.laplace(0.5) ** 3, "(Lap_0.5)^⊗3"),
    (gdp.subsample(gdp.G_mu(1.0), 0.1), "C_0.1(G_1)"),
    (gdp.f_eps_delta(0.1).group(3), "f_(0.1,0)^[3]"),
    (gdp.identity(), "Id"),
    (gdp.dpsgd(sigma=1.0, p=0.01, steps=10), "DP-SGD"),
])
def test_label_text_is_plain_unicode(f, text):
    out = gplot.label_text(f.label)
    assert out == text
    assert "\\" not in out and "{" not in out
