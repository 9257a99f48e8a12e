"""Sphinx configuration of the gdp documentation (``python -m sphinx -W docs docs/_build``).

The API reference is written from the package faces' ``__all__`` by ``apigen.py`` and the
notebooks are copied from ``../notebooks`` (their one source) when the build starts; both
land in folders that git ignores. Notebooks and ``{code-cell}`` pages are executed by
myst-nb at every build, so the site shows what the code does today.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the gdp of this checkout, even without pip install -e
sys.path.insert(0, str(HERE))
os.environ.setdefault("MPLBACKEND", "Agg")

import apigen  # noqa: E402

import gdp  # noqa: E402

# -- generated sources ------------------------------------------------------------------
apigen.write(HERE / "api")
_NB = HERE / "notebooks"
_NB.mkdir(exist_ok=True)
for _src in sorted((ROOT / "notebooks").glob("*.ipynb")):
    _dst = _NB / _src.name
    if not _dst.exists() or _dst.read_bytes() != _src.read_bytes():
        shutil.copyfile(_src, _dst)
for _old in _NB.glob("*.ipynb"):  # a notebook removed from ../notebooks goes here too
    if not (ROOT / "notebooks" / _old.name).exists():
        _old.unlink()


def _gallery() -> str:
    """The figures of the notes (``gdp figures``), one section each, from their specs."""
    from gdp.plot import figures

    lines = ["# Gallery", "",
             "The figures of the notes, drawn by `python3 -m gdp figures` with "
             "`gdp.plot.style` at the size they have in a two-column paper (PNG at "
             f"{figures.DPI} dpi and PDF with TrueType fonts, in `figures/`). Each figure "
             "checks the claim it illustrates before it is drawn.", ""]
    for spec in figures.FIGURES:
        doc = " ".join((spec.draw.__doc__ or "").split("\n\n")[0].split())
        doc = re.sub(r":math:`([^`]*)`", r"$\1$", doc)  # reST math in MyST
        width = "50%" if spec.style == "paper-1col" else "100%"
        lines += [f"## {spec.title}", "", doc, "",
                  f"```{{image}} ../figures/{spec.name}.png", f":alt: {spec.title}",
                  f":width: {width}", "```", "",
                  f"{{download}}`PDF <../figures/{spec.name}.pdf>` · "
                  f"`gdp.plot.figures.{spec.draw.__name__}` ({spec.style})", ""]
    return "\n".join(lines)


_text = _gallery()
if not (HERE / "gallery.md").exists() or (HERE / "gallery.md").read_text() != _text:
    (HERE / "gallery.md").write_text(_text, encoding="utf-8")

# -- project --------------------------------------------------------------------------
project = "gdp"
author = "The gdp developers"
copyright = "The gdp developers"  # noqa: A001
release = gdp.__version__
version = gdp.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]
exclude_patterns = ["_build", "jupyter_execute", "README.md", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

# -- MyST and notebooks -----------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
nb_execution_mode = "force"  # execute every notebook and code-cell page at every build
nb_execution_timeout = 300
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_in_temp = True  # files a notebook writes do not land in the source tree
nb_merge_streams = True
nb_render_markdown_format = "myst"  # Markdown outputs (the comparison tables) with tables

# -- API reference ----------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False,
                           "show-inheritance": True}
autodoc_typehints = "none"  # the numpydoc Parameters sections say it, in words
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
napoleon_preprocess_types = False
# parameter types as text: words in them ("delta", "mu") are not cross-references that can
# be ambiguous between classes (-W would fail on them)
napoleon_use_param = False
napoleon_use_ivar = True

# -- HTML -------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"gdp {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
