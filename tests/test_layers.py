"""The package is built in floors: no module imports from a floor above its own, and no
modules import each other in a circle (function-level imports included).

The floors are the ones the package docstring of ``gdp`` lists; this test reads every
import statement of every module (with ``ast``, so imports inside functions count too).
"""

import ast
from pathlib import Path

import pytest

import gdp

ROOT = Path(gdp.__file__).resolve().parent

#: floor of each top-level part of the package, from the ground up (the package docstring)
FLOORS = {
    "_numerics": 1,
    "_validation": 1,
    "_progress": 1,
    "core": 2,
    "families": 3,
    "engine": 4,
    "sampling": 5,
    "approx": 6,
    "bounds": 7,
    "accounting": 8,
    "mechanisms": 9,
    "sql": 9,
    "plot": 10,
    "cli": 11,
    "__main__": 11,
}
FACE = 10  # ``gdp/__init__.py``: re-exports floors 1-9, loads ``plot`` lazily; cli may use it


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every gdp module ``path`` imports, at module level or inside functions."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # from . import x, y: modules of that package
                    found.update(f"{target}.{a.name}" for a in node.names)
                else:
                    found.add(target)
            elif node.module and (node.module == "gdp" or node.module.startswith("gdp.")):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "gdp")
    return found


def _floor(module: str) -> int:
    parts = module.split(".")
    if parts == ["gdp"]:
        return FACE
    return FLOORS[parts[1]]


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def test_every_part_of_the_package_has_a_floor():
    parts = {m.split(".")[1] for m in MODULES if m != "gdp"}
    assert parts <= set(FLOORS), f"give these a floor: {sorted(parts - set(FLOORS))}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_from_a_floor_above(module):
    mine = _floor(module)
    upward = []
    for target in sorted(_imports(MODULES[module])):
        if target in MODULES or target.rpartition(".")[0] in MODULES:
            if _floor(target) > mine:
                upward.append(f"{target} (floor {_floor(target)})")
    assert not upward, f"{module} (floor {mine}) imports from above: {upward}"


def test_no_modules_import_each_other_in_a_circle():
    graph = {}
    for module, path in MODULES.items():
        targets = set()
        for t in _imports(path):
            while t and t not in MODULES:  # "from .x import name" names the module x
                t = t.rpartition(".")[0]
            if t and t != module:
                targets.add(t)
        graph[module] = targets
    # the package face (gdp/__init__) is imported by every ``import gdp.x``; it is not a
    # dependency of its modules, so leave out the edges *into* a package's own __init__ from
    # its submodules (Python runs the __init__ first, whatever the submodule imports)
    for module, targets in graph.items():
        graph[module] = {t for t in targets
                         if not (module.startswith(t + ".") and MODULES[t].name == "__init__.py")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycle = stack[stack.index(t):] + [t]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_floors_are_the_ones_the_package_docstring_lists():
    doc = gdp.__doc__
    order = [p for p in ("_numerics", "core", "families", "engine", "sampling", "approx",
                         "bounds", "accounting", "mechanisms", "plot", "cli")]
    positions = [doc.index(f"``{p}``") for p in order]
    assert positions == sorted(positions)
    assert [FLOORS[p] for p in order] == sorted(FLOORS[p] for p in order)


def test_import_gdp_loads_neither_matplotlib_nor_scipy_stats():
    # a fresh interpreter: what `import gdp` pulls in (plots, scipy.stats, scipy.optimize and
    # scipy.integrate are loaded on first use only, so that the import stays light)
    import subprocess
    import sys

    code = ("import sys, gdp; print(sorted({m.split('.')[0] if m.startswith('matplotlib') "
            "else '.'.join(m.split('.')[:2]) for m in sys.modules if m.startswith(("
            "'matplotlib', 'scipy.stats', 'scipy.optimize', 'scipy.integrate'))}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PATH": "", "PYTHONPATH": str(ROOT.parent)})
    assert out.stdout.strip() == "[]", out.stdout
