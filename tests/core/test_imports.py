"""The import graph of ``lab/`` has no cycles.

The graph is built from the source with ``ast``: every ``import`` and ``from … import`` counts, at module
level or inside a function (a function-level import only hides a cycle until the function runs), relative
imports resolved against the importing module. ``from pkg import name`` is an edge to ``pkg.name`` when that
is a module, else to ``pkg``. Importing ``a.b.c`` is an edge to ``a.b.c`` only (Python also runs the
parents' ``__init__``, but a parent importing its own children is not a cycle a reader has to untangle).
Plugins named as strings in :mod:`lab.core.plugins` are not edges: they are imported by the registry on its first
lookup, which is the point of the plugin list.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "lab"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def lab_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The lab modules ``name`` imports anywhere in its source."""
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in modules else prefix for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in modules:  # `import lab.x.y as z` of a name inside a module: its module
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = lab_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one cycle through
    it (a shortest path back to its first module), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[set[str]] = []
    counter = [0]

    def strong(v: str) -> None:  # recursion depth ≤ the number of modules (~200)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            strong(v)
    out = []
    for comp in comps:
        start = min(comp)
        # breadth-first from start back to start inside the component
        prev: dict[str, str] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & comp):
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        out.append([*reversed(path), start])
    return sorted(out)


def test_the_graph_builder_sees_function_level_and_relative_imports():
    """The test can fail: a two-module cycle written the ways the lab's cycles were written is found."""
    graph = {"lab.a": {"lab.b"}, "lab.b": {"lab.a"}, "lab.c": {"lab.a"}}
    assert cycles(graph) == [["lab.a", "lab.b", "lab.a"]]
    g = import_graph()
    # a function-level import (lab.present imports lab.gui inside Window.__init__)
    assert "lab.gui" in g["lab.present"]
    # `from . import x` in a package resolves to the submodule x
    assert "lab.sweep.table" in g["lab.sweep.execute"]


def test_no_import_cycles_in_lab():
    found = cycles(import_graph())
    assert not found, "import cycles in lab/:\n" + "\n".join(" → ".join(c) for c in found)
