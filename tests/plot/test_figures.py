"""Every figure of the notes is drawn (quick settings) at the right pixel size, as PNG and PDF."""

from __future__ import annotations

import struct

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import gdp  # noqa: E402
from gdp.plot import figures  # noqa: E402


def png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.parametrize("spec", figures.FIGURES, ids=lambda s: s.name)
def test_each_figure_is_drawn_at_its_size(tmp_path, spec):
    paths = figures.draw(spec.name, tmp_path, quick=True, dpi=40)
    assert [p.name for p in paths] == [f"{spec.name}.png", f"{spec.name}.pdf"]
    w, h = spec.figsize
    assert png_size(paths[0]) == (round(w * 40), round(h * 40))
    pdf = paths[1].read_bytes()
    assert pdf[:5] == b"%PDF-" and len(pdf) > 5000
    assert b"CreationDate" not in pdf  # reproducible files for git


def test_draw_all_reports_progress_and_failures(tmp_path):
    seen = []
    written, failed = figures.draw_all(tmp_path, quick=True, dpi=30, formats=["png"],
                                       names=["04_gaussian_family", "privacy_profiles"],
                                       progress=seen.append)
    assert [p.name for p in written] == ["04_gaussian_family.png", "06_privacy_profiles.png"]
    assert failed == {}
    assert seen == ["[1/2] 04_gaussian_family: The G_mu family",
                    "[2/2] 06_privacy_profiles: mu-GDP privacy profiles"]


def test_a_figure_is_reproducible(tmp_path):
    a = figures.draw("03_f_eps_delta", tmp_path / "a", quick=True, dpi=40)
    b = figures.draw("03_f_eps_delta", tmp_path / "b", quick=True, dpi=40)
    for x, y in zip(a, b, strict=True):
        assert x.read_bytes() == y.read_bytes()


def test_figure_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="`name` must be one of 01_hypothesis_test"):
        figures.draw("nope", tmp_path)
    with pytest.raises(ValueError, match="`formats` entries must be png, pdf or svg; got 'gif'"):
        figures.draw("04_gaussian_family", tmp_path, formats=["gif"])
    with pytest.raises(ValueError, match=r"`dpi` must be an integer in \[20, 1200\]"):
        figures.draw("04_gaussian_family", tmp_path, dpi=5)


def test_a_false_claim_stops_the_figure():
    with pytest.raises(RuntimeError, match="figure claim does not hold: G_mu decreases"):
        figures._check(False, "G_mu decreases in mu")


def test_the_figures_check_what_they_show():
    # figure 2: the curves drawn above G_1 dominate it, the crossing one does not
    f = gdp.G_mu(1.0)
    for g in (gdp.G_mu(0.5), gdp.laplace(0.7), gdp.f_eps_delta(0.5)):
        assert g.dominates(f)
    assert not gdp.f_eps_delta(1.0).dominates(f)


def test_a_figure_whose_claim_fails_writes_nothing(tmp_path, monkeypatch):
    def refuse(cond, claim):
        raise RuntimeError(f"figure claim does not hold: {claim}")

    monkeypatch.setattr(figures, "_check", refuse)
    with pytest.raises(RuntimeError, match="figure claim does not hold"):
        figures.draw("09_dpsgd", tmp_path, quick=True, dpi=30)
    assert not list(tmp_path.iterdir())  # nothing half-drawn is left behind
