"""The documentation's API reference covers every public name, the guide lists its pages, and
the docs build is wired into CI (the build itself runs in .ci/run with warnings as errors)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))
import apigen  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from the test extra
    import tomli as tomllib

PAGES = apigen.plan()


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    out = tmp_path_factory.mktemp("api")
    apigen.write(out)
    return out


def documented(api_dir: Path) -> set[str]:
    """Every object a page documents (a stub of an autosummary with a toctree) or links to,
    as full dotted names."""
    names = set()
    for page in api_dir.glob("*.rst"):
        face = page.stem
        for line in page.read_text().splitlines():
            m = re.fullmatch(r"   ([\w.]+)", line)
            if m:
                item = m.group(1)
                names.add(item if item.startswith("gdp.") or item == "gdp" else
                          f"{face}.{item}")
    return names


def test_every_package_is_a_page(api):
    import gdp

    packages = {p.parent.relative_to(ROOT).as_posix().replace("/", ".")
                for p in Path(gdp.__file__).parent.rglob("__init__.py")}
    pages = {p.stem for p in api.glob("*.rst")} - {"index"}
    assert packages <= pages, f"packages without an API page: {sorted(packages - pages)}"
    index = (api / "index.rst").read_text()
    assert all(f"   {face}\n" in index for face in pages)


def test_every_public_name_appears_in_the_api_reference(api):
    names = documented(api)
    missing = []
    for face, rows in PAGES.items():
        mod = importlib.import_module(face)
        assert [r[0] for r in rows] == list(getattr(mod, "__all__", []))
        for name, _, full in rows:
            # listed on the face's page, as its own entry or as a link to where it lives
            if full not in names:
                missing.append(f"{face}.{name}")
            obj = getattr(mod, name)
            target = importlib.import_module(full.rpartition(".")[0]) if "." in full else None
            if target is not None and not isinstance(obj, type(sys)):
                assert getattr(target, full.rpartition(".")[2]) is obj, full
    assert missing == []


def test_each_object_has_one_page(api):
    stubs = []
    for page in api.glob("*.rst"):
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            if line == "   :toctree: generated":
                j = i + 3
                while j < len(lines) and lines[j].startswith("   "):
                    stubs.append(f"{page.stem}.{lines[j].strip()}")
                    j += 1
    assert len(stubs) == len(set(stubs))
    assert "gdp.G_mu" in stubs and "gdp.families.G_mu" not in stubs


def test_a_new_public_name_appears_by_itself(api, monkeypatch, tmp_path):
    import gdp.plot

    monkeypatch.setattr(gdp.plot, "__all__", [*gdp.plot.__all__, "brand_new"], raising=True)
    monkeypatch.setattr(gdp.plot, "brand_new", lambda: None, raising=False)
    apigen.write(tmp_path)
    assert "   brand_new" in (tmp_path / "gdp.plot.rst").read_text().splitlines()


def test_the_guide_and_the_notebooks_are_in_the_toctrees():
    guide = (DOCS / "guide" / "index.md").read_text()
    for page in (DOCS / "guide").glob("*.md"):
        if page.stem != "index":
            assert f"\n{page.stem}\n" in guide, f"add `{page.stem}` to docs/guide/index.md"
    assert ":glob:" in (DOCS / "notebooks.md").read_text()


def test_ci_builds_the_docs_with_warnings_as_errors():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python3 -m pip install ".[test]" && python3 -m pytest\n' in ci  # verbatim
    assert "-m sphinx -W" in ci and ci.index("-m sphinx") > ci.index("python3 -m pytest\n")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(d.startswith("sphinx") for d in extras["docs"])
