"""CITATION.cff is valid against the Citation File Format schema and cites the paper."""

from pathlib import Path

import cffconvert  # noqa: E402  (a test dependency: a missing validator must fail, not skip)
import pytest

CFF = Path(__file__).resolve().parents[1] / "CITATION.cff"


def test_citation_cff_is_valid():
    citation = cffconvert.Citation(CFF.read_text(encoding="utf-8"))
    citation.validate()  # raises on any schema violation
    obj = citation.cffobj
    assert obj["cff-version"] == "1.2.0"
    titles = [ref["title"] for ref in obj["references"]]
    assert "Gaussian Differential Privacy" in titles


def test_citation_cff_rejects_a_broken_file():
    # the validator is live: a file without authors must fail
    broken = "\n".join(line for line in CFF.read_text(encoding="utf-8").splitlines()
                       if not line.startswith("authors:") and not line.startswith("  - name"))
    with pytest.raises(Exception):  # noqa: B017 - the validator raises its own schema errors
        cffconvert.Citation(broken).validate()
