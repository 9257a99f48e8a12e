"""CITATION.cff is valid against the Citation File Format schema and cites the paper."""

import sys
from pathlib import Path

import cffconvert  # noqa: E402  (a test dependency: a missing validator must fail, not skip)
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from the test extra
    import tomli as tomllib

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


def test_citation_prefers_the_paper_and_names_the_repository():
    obj = cffconvert.Citation(CFF.read_text(encoding="utf-8")).cffobj
    pref = obj["preferred-citation"]
    assert pref["title"] == "Gaussian Differential Privacy"
    assert [a["family-names"] for a in pref["authors"]] == ["Dong", "Roth", "Su"]
    assert (pref["year"], pref["volume"], pref["issue"]) == (2022, 84, 1)
    assert pref["doi"] == "10.1111/rssb.12454"
    project = tomllib.loads((CFF.parent / "pyproject.toml").read_text())["project"]
    assert obj["repository-code"] == project["urls"]["Repository"]  # one address
    assert obj["version"] == project["version"]
