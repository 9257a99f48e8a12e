"""Tests of gdp.plot.roc: the ROC view of trade-off curves (the best attack's TPR at FPR)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import gdp  # noqa: E402
import gdp.plot  # noqa: E402


def test_roc_draws_the_attack_power_on_log_axes():
    h = gdp.dpsgd(sigma=1.0, p=0.01, steps=300)
    ax, data = gdp.plot.roc(gdp.G_mu(1.0), h, return_data=True)
    x = data.x
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    np.testing.assert_allclose(data.columns["G_{1}"], gdp.risk.tpr_at_fpr(gdp.G_mu(1.0), x))
    cols = [c for c in data.columns if c.startswith(h.label)]
    assert len(cols) == 3  # the sound line and the two sides of the bracket
    assert np.all(data.columns[f"{h.label} lower"] <= data.columns[h.label])
    assert np.all(data.columns[h.label] >= x - 1e-15)  # never below chance
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == "chance (TPR = FPR)" and "$G_{1}$" in labels
    plt.close("all")
    ax = gdp.plot.roc(gdp.f_eps_delta(1.0), log=False, chance=False, legend=False)
    assert ax.get_xscale() == "linear" and ax.get_legend() is None
    plt.close("all")


def test_roc_data_and_errors():
    d = gdp.plot.roc_data(gdp.G_mu(2.0), fpr=[0.0, 1e-3, 1.0], labels=["g"])
    assert d.columns["g"][0] == 0.0 and d.columns["g"][-1] == 1.0
    with pytest.raises(TypeError, match="must be a TradeOff"):
        gdp.plot.roc_data(1.0)
    with pytest.raises(ValueError, match="`fpr_min` must be a number in"):
        gdp.plot.roc_data(gdp.G_mu(1.0), fpr_min=0.0)
