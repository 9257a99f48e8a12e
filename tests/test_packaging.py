"""The package is typed (PEP 561: py.typed shipped as package data), names its addresses, and
has a changelog whose newest entry is not older than the version."""

from __future__ import annotations

import sys
from pathlib import Path

import gdp

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from the test extra
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_package_is_typed():
    assert (ROOT / "gdp" / "py.typed").is_file()
    assert "py.typed" in PROJECT["tool"]["setuptools"]["package-data"]["gdp"]
    assert "Typing :: Typed" in PROJECT["project"]["classifiers"]


def test_project_urls():
    urls = PROJECT["project"]["urls"]
    assert {"Homepage", "Documentation", "Repository", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())


def test_changelog_names_the_release():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text and f"## [{gdp.__version__}]" in text
    assert "gdp.pld" in text and "gdp.engine" in text  # the layout change is explained
