"""Every figure of the notes is drawn (quick settings) at the right pixel size, as PNG and PDF,
with TrueType fonts only (the committed PDFs too: Type 3 fonts fail IEEE/ACM checks)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import gdp  # noqa: E402
from gdp.plot import figures  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FONT_SUBTYPE = re.compile(rb"/Subtype\s*/(Type3|Type1C?|TrueType|Type0|CIDFontType[02])\b")


def font_subtypes(pdf: bytes) -> set[str]:
    """The font types a PDF declares (matplotlib writes font dictionaries uncompressed)."""
    return {m.decode() for m in FONT_SUBTYPE.findall(pdf)}


def test_the_type3_detector_is_live(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure()
    fig.text(0.5, 0.5, r"Type 3 by default: $\alpha$")
    fig.savefig(tmp_path / "t3.pdf")  # matplotlib's default pdf.fonttype is 3
    assert "Type3" in font_subtypes((tmp_path / "t3.pdf").read_bytes())


@pytest.mark.parametrize("path", sorted((ROOT / "figures").glob("*.pdf")), ids=lambda p: p.name)
def test_committed_pdfs_embed_no_type3_font(path):
    types = font_subtypes(path.read_bytes())
    assert types, f"{path.name}: no fonts found"
    assert "Type3" not in types, f"{path.name} embeds Type 3 fonts: regenerate the figures"


def test_every_figure_is_committed_as_png_and_pdf():
    stems = {s.name for s in figures.FIGURES}
    for ext in ("png", "pdf"):
        assert {p.stem for p in (ROOT / "figures").glob(f"*.{ext}")} == stems


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
    assert "Type3" not in font_subtypes(pdf) and font_subtypes(pdf)


def test_draw_all_reports_progress_and_failures(tmp_path):
    seen = []
    written, failed = figures.draw_all(tmp_path, quick=True, dpi=30, formats=["png"],
                                       names=["04_gaussian_family", "privacy_profiles"],
                                       progress=lambda f, m: seen.append((f, m)))
    assert [p.name for p in written] == ["04_gaussian_family.png", "06_privacy_profiles.png"]
    assert failed == {}
    assert seen == [(0.0, "[1/2] 04_gaussian_family: The G_mu family"),
                    (0.5, "[2/2] 06_privacy_profiles: mu-GDP privacy profiles"),
                    (1.0, "2 of 2 figure(s) drawn")]


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
