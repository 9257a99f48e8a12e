"""Write the API reference pages from the package faces' ``__all__`` (run by ``conf.py``).

Every package of :mod:`gdp` is a face: its ``__init__`` re-exports its modules' public
names and lists them in ``__all__``. This script writes one page per face (and per module a
face lists, e.g. ``gdp.mechanisms.sensitivity``), with an ``autosummary`` table of every
name in its ``__all__``. Each object gets one page, under the first face that lists it, in
the order of the floors (``gdp`` itself first, then ``gdp.core``, ``gdp.families``, ...):
``gdp.G_mu`` is documented once, and the table of ``gdp.families`` links to it. A new public
name, or a new package, appears in the reference without editing anything here.

``tests/test_docs.py`` checks that every name of every face's ``__all__`` is on a page.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from types import ModuleType

#: the floors of the package (gdp/__init__.py); packages not listed come after, by name
FLOORS = ["gdp", "gdp.core", "gdp.families", "gdp.engine", "gdp.sampling", "gdp.approx",
          "gdp.bounds", "gdp.accounting", "gdp.mechanisms", "gdp.sql", "gdp.plot", "gdp.cli"]
#: public modules that no face lists but users import by name
EXTRA = ["gdp.plot.figures"]


def faces() -> list[str]:
    """Every package of gdp, in floor order, then the modules their ``__all__`` name."""
    import gdp

    found = ["gdp"] + sorted(m.name for m in pkgutil.walk_packages(gdp.__path__, "gdp.")
                             if m.ispkg and not m.name.split(".")[-1].startswith("_"))
    order = [f for f in FLOORS if f in found] + [f for f in found if f not in FLOORS]
    for face in list(order):
        mod = importlib.import_module(face)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if isinstance(obj, ModuleType) and obj.__name__ not in order:
                order.append(obj.__name__)
    return order + [e for e in EXTRA if e not in order]


def _kind(obj: object) -> str:
    if isinstance(obj, ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


def _defining_module(face: ModuleType, name: str, obj: object) -> str:
    """The module of the face's package whose ``__all__`` lists ``name`` for ``obj`` (data
    has no ``__module__``; its ``#:`` comment is in the module that defines it)."""
    for info in pkgutil.iter_modules(getattr(face, "__path__", [])):
        sub = importlib.import_module(f"{face.__name__}.{info.name}")
        if name in getattr(sub, "__all__", ()) and getattr(sub, name, None) is obj:
            return sub.__name__
    return face.__name__


def plan() -> dict[str, list[tuple[str, str, str]]]:
    """``{face: [(name, kind, canonical full name), ...]}`` for every face."""
    canon: dict[int, str] = {}
    out: dict[str, list[tuple[str, str, str]]] = {}
    for face in faces():
        mod = importlib.import_module(face)
        rows = []
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            kind = _kind(obj)
            full = f"{face}.{name}"
            if kind == "module":
                full = obj.__name__
            elif kind == "data":  # documented in the module that defines it (its #: comment)
                full = _defining_module(mod, name, obj) + "." + name
            else:
                full = canon.setdefault(id(obj), full)
            rows.append((name, kind, full))
        out[face] = rows
    return out


_TITLES = {"function": "Functions", "class": "Classes", "exception": "Exceptions",
           "data": "Data", "module": "Modules"}


def _relative(full: str, face: str) -> str:
    """``full`` as autosummary wants it under ``face`` (no repeated current module)."""
    return full[len(face) + 1:] if full.startswith(face + ".") else full


def render(face: str, rows: list[tuple[str, str, str]]) -> str:
    """The reST page of one face."""
    title = f"``{face}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {face}", "   :no-members:", ""]
    for kind in ("function", "class", "exception", "data", "module"):
        # modules have pages of their own (as faces): always a link; data is the face's own
        here = [(full, kind == "data" or (kind != "module" and full == f"{face}.{name}"))
                for name, k, full in rows if k == kind]
        own = [full for full, is_own in here if is_own]
        seen = [full for full, is_own in here if not is_own]
        if not own and not seen:
            continue
        lines += [f".. rubric:: {_TITLES[kind]}", ""]
        if own:
            lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
            lines += [f"   {_relative(full, face)}" for full in own] + [""]
        if seen:
            where = "" if kind == "module" else " (documented where they are first listed)"
            lines += [f"Also here{where}:", "", ".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   {_relative(full, face)}" for full in seen] + [""]
    return "\n".join(lines)


def write(outdir: str | Path) -> dict[str, list[tuple[str, str, str]]]:
    """Write ``<face>.rst`` for every face and ``index.rst`` (their toctree) into
    ``outdir``; files whose text is unchanged are left alone (Sphinx rebuilds less).
    Returns the plan."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    pages = plan()
    texts = {f"{face}.rst": render(face, rows) for face, rows in pages.items()}
    head = ["API reference", "=============", "",
            "Generated from the docstrings: one page per package face (what ``from gdp.<part> "
            "import *`` gives), listing its ``__all__``. The names a user types are those of "
            "``gdp``; the subpackages hold the classes behind them and the tools of each "
            "floor.", "", ".. toctree::", "   :maxdepth: 1", ""]
    texts["index.rst"] = "\n".join(head + [f"   {face}" for face in pages] + [""])
    for name, text in texts.items():
        path = outdir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return pages
