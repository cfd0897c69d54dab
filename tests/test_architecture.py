"""The shape of the package: imports point down the layers, nothing imports in a circle, and no
source file grows past what a person reads in one sitting (ARCHITECTURE.md draws the same)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "graphrepro"

# The allowed order, lowest first, written once: a module may import its own layer or any layer
# below it. Every top-level module or package of graphrepro must be in exactly one layer.
LAYERS = (
    ("base", {"errors", "atomic", "safepath", "snakemake_args", "_jit", "documents", "published",
              "credentials", "bounded"}),
    ("platform", {"gpu", "placement", "launch", "native"}),
    ("graph and terrain storage", {"graph", "terrain"}),
    ("solvers", {"solvers", "mst"}),
    ("verification and harness", {"verify", "harness"}),
    ("datasets", {"datasets"}),
    ("claims and verdicts", {"claims"}),
    ("experiments", {"experiments"}),
    ("config and report", {"configs", "configcheck", "plan", "budget", "wholerun", "report"}),
    ("command line", {"cli", "client", "__main__"}),
)
RANK = {part: rank for rank, (_, parts) in enumerate(LAYERS) for part in parts}
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every graphrepro module ``name`` imports, at the top or inside a function (a lazy import
    still ties the two modules together)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module
                       for alias in node.names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target.startswith("graphrepro") and target != name:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_part_of_the_package_has_a_layer():
    parts = {_part(m) for m in _modules()} - {None}
    assert sorted(parts - set(RANK)) == [], "place the new module in a layer of LAYERS"


def test_imports_point_down_the_layers():
    upward = [f"{module} -> {target} ({LAYERS[RANK[_part(module)]][0]} -> "
              f"{LAYERS[RANK[_part(target)]][0]})"
              for module, targets in sorted(_graph().items()) if _part(module)
              for target in sorted(targets) if _part(target)
              and RANK[_part(target)] > RANK[_part(module)]]
    assert upward == []


def test_no_import_cycles():
    graph = _graph()
    # Tarjan's strongly connected components: any component of two or more modules is a cycle
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_source_files_stay_readable(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{lines} lines: split it by responsibility"


def test_the_checker_sees_a_cycle_and_an_upward_import(tmp_path, monkeypatch):
    """The rules above must be able to fail: a planted pair of modules trips both."""
    pkg = tmp_path / "graphrepro"
    (pkg / "graph").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "graph" / "__init__.py").write_text("")
    (pkg / "graph" / "a.py").write_text("def f():\n    from ..cli import main\n")
    (pkg / "cli.py").write_text("from .graph import a\n")
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "SRC", tmp_path)
    monkeypatch.setattr(here, "PACKAGE", pkg)
    graph = _graph()
    assert graph["graphrepro.graph.a"] == {"graphrepro.cli"}
    assert graph["graphrepro.cli"] == {"graphrepro.graph.a"}
    with pytest.raises(AssertionError):
        test_imports_point_down_the_layers()
    with pytest.raises(AssertionError):
        test_no_import_cycles()
