"""Tests of gdp.plot: what is drawn is the right (sound) curve, labelled, and exportable."""

from __future__ import annotations

import csv
import math
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from scipy import stats  # noqa: E402

import gdp  # noqa: E402
import gdp.plot as gplot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures(monkeypatch):
    def no_show(*a, **k):  # a plotting function must never call plt.show()
        raise AssertionError("plt.show() called")

    monkeypatch.setattr(plt, "show", no_show)
    yield
    plt.close("all")


def gauss_curve(mu, a):
    # independent reference: G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (DRS eq. (2.3))
    return stats.norm.cdf(stats.norm.ppf(1 - a) - mu)


def gauss_delta(mu, eps):
    # DRS Cor. 2.13, evaluated directly (moderate eps only)
    return stats.norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def line_by_label(ax, label):
    hits = [ln for ln in ax.get_lines() if ln.get_label() == label]
    assert len(hits) == 1, [ln.get_label() for ln in ax.get_lines()]
    return hits[0]


# ------------------------------------------------------------------ tradeoff
def test_tradeoff_draws_the_curves_with_mathtext_labels_and_square_axes():
    ax = gplot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5))
    assert ax.get_xlabel() == r"Type I error $\alpha$"
    assert ax.get_ylabel() == r"Type II error $\beta$"
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
    assert ax.get_box_aspect() == 1
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == [r"$\mathrm{Id}: 1-\alpha$", "$G_{1}$", "$f_{1,10^{-5}}$"]
    g = line_by_label(ax, "$G_{1}$")
    a, b = g.get_data()
    inner = (a > 0) & (a < 1)
    assert_allclose(b[inner], gauss_curve(1.0, a[inner]), rtol=1e-10, atol=1e-15)
    assert b[0] == 1.0 and b[-1] == 0.0  # exact at the ends
    # f_{1,1e-5}(alpha) = max(0, 1 - d - e alpha, e^-1 (1 - d - alpha)) (DRS Prop. 2.5)
    a, b = line_by_label(ax, "$f_{1,10^{-5}}$").get_data()
    ref = np.maximum.reduce([0 * a, 1 - 1e-5 - math.e * a, (1 - 1e-5 - a) / math.e])
    assert_allclose(b, ref, rtol=1e-12, atol=1e-15)
    diag = line_by_label(ax, r"$\mathrm{Id}: 1-\alpha$")
    assert diag.get_linestyle() == "--"
    assert_allclose(diag.get_ydata(), 1 - np.asarray(diag.get_xdata()), rtol=0, atol=0)


def test_tradeoff_draws_into_a_given_axes_and_passes_style_keywords():
    fig, ax = plt.subplots()
    out = gplot.tradeoff(gdp.laplace(1.0), ax=ax, color="red", lw=3, labels=["my curve"])
    assert out is ax
    ln = line_by_label(ax, "my curve")
    assert ln.get_linewidth() == 3 and ln.get_color() == "red"


def test_a_bracketed_result_is_drawn_on_its_sound_lower_side_with_a_band():
    lower, upper = gdp.G_mu(1.2), gdp.G_mu(0.8)
    h = gdp.Bracketed(lower=lower, upper=upper, name="h")
    ax, data = gplot.tradeoff(h, return_data=True)
    a, b = line_by_label(ax, "$h$").get_data()
    inner = (a > 0) & (a < 1)
    # the line is the rigorous lower bound (never the optimistic upper curve)
    assert_allclose(b[inner], gauss_curve(1.2, a[inner]), rtol=1e-10, atol=1e-15)
    assert np.all(b <= gauss_curve(0.8, a) + 1e-15)
    assert len(ax.collections) == 1  # the band
    verts = ax.collections[0].get_paths()[0].vertices
    assert verts[:, 1].max() <= 1.0 + 1e-12
    assert_allclose(data.columns["h upper"][inner], gauss_curve(0.8, a[inner]), rtol=1e-10,
                    atol=1e-15)
    ax2 = gplot.tradeoff(h, band=False)
    assert len(ax2.collections) == 0


def test_shading_fills_between_the_curve_and_the_diagonal():
    ax = gplot.tradeoff(gdp.G_mu(1.0), shade=True)
    (coll,) = ax.collections
    v = coll.get_paths()[0].vertices
    # every shaded point lies between G_1 and 1 - alpha
    a = np.clip(v[:, 0], 0, 1)
    assert np.all(v[:, 1] >= gauss_curve(1.0, a) - 1e-9)
    assert np.all(v[:, 1] <= 1 - a + 1e-9)


def test_log_alpha_uses_a_log_axis_down_to_alpha_min():
    ax, data = gplot.tradeoff(gdp.G_mu(2.0), log_alpha=True, alpha_min=1e-8, n=50,
                              return_data=True)
    assert ax.get_xscale() == "log"
    assert_allclose(ax.get_xlim(), (1e-8, 1.0), rtol=1e-12)
    assert_allclose(data.x, np.geomspace(1e-8, 1, 50), rtol=1e-12)
    assert_allclose(data.columns["G_{2}"][:-1], gauss_curve(2.0, data.x[:-1]), rtol=1e-9)


def test_labels_repeated_are_made_unique():
    d = gplot.curve_data(gdp.G_mu(1.0), gdp.G_mu(1.0), alpha=[0.5])
    assert list(d.columns) == ["G_{1}", "G_{1} (2)"]


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: gplot.tradeoff(), ValueError, "at least one trade-off function"),
        (lambda: gplot.tradeoff(0.5), TypeError, r"`fs\[0\]` must be a TradeOff"),
        (lambda: gplot.tradeoff(gdp.G_mu(1), labels=["a", "b"]), ValueError,
         r"one entry per curve \(1\); got 2"),
        (lambda: gplot.tradeoff(gdp.G_mu(1), labels="a"), TypeError,
         "`labels` must be a sequence of strings"),
        (lambda: gplot.tradeoff(gdp.G_mu(1), n=1), ValueError, "`n` must be an integer >= 2"),
        (lambda: gplot.tradeoff(gdp.G_mu(1), log_alpha=True, alpha_min=0.0), ValueError,
         r"`alpha_min` must be a number in \(0, 1\)"),
        (lambda: gplot.curve_data(gdp.G_mu(1), alpha=[0.5, 1.5]), ValueError,
         r"`alpha` must be a number in \[0, 1\]"),
        (lambda: gplot.privacy_profile(gdp.G_mu(1), eps=[-1.0]), ValueError,
         "`eps` must be a non-negative finite number"),
        (lambda: gplot.privacy_profile(gdp.G_mu(1), delta_min=0), ValueError,
         r"`delta_min` must be a number in \(0, 1\)"),
    ],
)
def test_errors_are_clear(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ------------------------------------------------------------- data export
def test_curve_data_round_trips_through_csv(tmp_path):
    f, g = gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5)
    ax, data = gplot.tradeoff(f, g, n=101, return_data=True)
    path = data.to_csv(tmp_path / "curves.csv")
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["alpha", "G_{1}", "f_{1,1e-05}"]  # the comma inside is quoted
    table = np.array(rows[1:], dtype=float)
    assert_allclose(table[:, 0], data.x, rtol=0, atol=0)  # repr() keeps every digit
    assert_allclose(table[:, 1], f(table[:, 0]), rtol=0, atol=0)
    assert_allclose(table[:, 2], g(table[:, 0]), rtol=0, atol=0)
    a, b = line_by_label(ax, "$G_{1}$").get_data()
    assert_allclose(b, data.columns["G_{1}"], rtol=0, atol=0)
    assert gplot.to_csv(data, tmp_path / "again.csv").read_text() == path.read_text()


def test_plot_data_is_read_only_and_checked():
    d = gplot.curve_data(gdp.G_mu(1.0), alpha=[0.1, 0.2])
    with pytest.raises(ValueError, match="read-only"):
        d.x[0] = 0.5
    with pytest.raises(ValueError, match=r"must have the shape of `x` \(2,\); got shape \(3,\)"):
        gplot.PlotData("x", [1, 2], {"y": [1, 2, 3]})
    with pytest.raises(TypeError, match="`data` must be a PlotData"):
        gplot.to_csv({"x": [1]}, "nowhere.csv")


# ---------------------------------------------------------- privacy profiles
def test_privacy_profile_draws_delta_of_eps_on_a_log_axis():
    eps = np.linspace(0, 5, 51)
    ax, data = gplot.privacy_profile(gdp.G_mu(0.5), gdp.G_mu(1.0), eps=eps, return_data=True)
    assert ax.get_yscale() == "log"
    for mu, label in [(0.5, "$G_{0.5}$"), (1.0, "$G_{1}$")]:
        x, y = line_by_label(ax, label).get_data()
        ok = np.isfinite(y)
        ref = gauss_delta(mu, x)
        assert_allclose(y[ok], ref[ok], rtol=1e-9)
        # zeros are masked, never drawn as 0 on a log axis; none are hidden otherwise
        assert np.all(~ok == (data.columns[label.strip("$")] == 0))


def test_profile_of_a_bracketed_result_is_the_upper_sound_delta():
    h = gdp.Bracketed(lower=gdp.G_mu(1.2), upper=gdp.G_mu(0.8), name="h")
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    data = gplot.profile_data(h, eps=eps)
    # the lower curve is harder to satisfy: its delta is the larger, sound one
    assert_allclose(data.columns["h"], gauss_delta(1.2, eps), rtol=1e-9)
    assert_allclose(data.columns["h lower"], gauss_delta(0.8, eps), rtol=1e-9)
    assert np.all(data.columns["h"] >= data.columns["h lower"])
    ax = gplot.privacy_profile(h, eps=eps, log_delta=False)
    assert ax.get_yscale() == "linear" and len(ax.collections) == 1


# ---------------------------------------------------------------- compare
def test_compare_accepts_records_and_mappings():
    recs = [{"k": 10, "method": "basic", "eps": 1.0}, {"k": 1, "method": "basic", "eps": 0.1},
            {"k": 10, "method": "exact", "eps": 0.6}, {"k": 1, "method": "exact", "eps": None},
            {"k": 100, "method": "exact", "eps": math.inf}]
    ax, data = gplot.compare(recs, return_data=True)
    assert data.x.tolist() == [1.0, 10.0, 100.0]
    assert_allclose(data.columns["basic"], [0.1, 1.0, np.nan], rtol=0)
    assert_allclose(data.columns["exact"], [np.nan, 0.6, np.nan], rtol=0)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    x, y = line_by_label(ax, "Exact tensor product").get_data()  # gdp.bounds.METHODS names
    assert x.tolist() == [10.0] and y.tolist() == [0.6]
    d2 = gplot.compare_data({"k": [1, 10], "basic": [0.1, 1.0]})
    assert d2.columns["basic"].tolist() == [0.1, 1.0]

    class Table:
        records = recs

    assert gplot.compare_data(Table()).x.tolist() == [1.0, 10.0, 100.0]
    ax = gplot.compare({"k": [1, 2], "mine": [1.0, 2.0]}, labels={"mine": "my method"})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["my method"]


def test_compare_errors():
    with pytest.raises(ValueError, match="must have a number of compositions field"):
        gplot.compare_data([{"method": "basic", "eps": 1.0}])
    with pytest.raises(ValueError, match="must have a 'k' entry"):
        gplot.compare_data({"basic": [1.0]})
    with pytest.raises(ValueError, match=r"one value per k \(2\); got 1"):
        gplot.compare_data({"k": [1, 2], "basic": [1.0]})
    with pytest.raises(TypeError, match="must be a list of records"):
        gplot.compare_data(3.0)
    with pytest.raises(ValueError, match="at least one record"):
        gplot.compare_data([])


# --------------------------------------------------------------------- CLT
def test_clt_plot_shows_exact_clt_and_berry_esseen_band():
    fs = [gdp.f_eps_delta(0.1)] * 100
    ax, data = gplot.clt(fs, edgeworth=hasattr(gdp, "edgeworth"), n=201, return_data=True)
    c = gdp.clt(fs)
    a = data.x
    assert_allclose(data.columns[f"CLT G_{{{c.mu:.3g}}}"], gdp.G_mu(c.mu)(a), rtol=1e-12)
    assert np.all(data.columns["Berry-Esseen lower"] <= data.columns["Berry-Esseen upper"])
    # the exact composition lies inside the Berry-Esseen band (DRS Thm 3.4)
    ex = data.columns["exact"]
    assert np.all(ex >= data.columns["Berry-Esseen lower"] - 1e-9)
    assert np.all(ex <= data.columns["Berry-Esseen upper"] + 1e-9)


def test_clt_rejects_a_single_tradeoff():
    with pytest.raises(TypeError, match="`fs` must be a sequence of TradeOffs"):
        gplot.clt(gdp.G_mu(1.0))


# ------------------------------------------------------------- lazy import
def test_import_gdp_does_not_import_matplotlib_but_gdp_plot_is_there():
    code = ("import sys, gdp; a = 'matplotlib' in sys.modules; p = gdp.plot; "
            "print(a, 'matplotlib' in sys.modules or True, p.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True", "gdp.plot"]
    with pytest.raises(AttributeError, match="has no attribute 'nonexistent'"):
        gdp.nonexistent  # noqa: B018
