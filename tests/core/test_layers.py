"""The layers' import rules: tools → papers → library → core, never back.

Read from the source with ``ast``: every ``import`` and ``from … import`` of a ``lab`` module counts,
at module level or inside a function (a deferred import is still a dependency). The layers are
folders (docs/architecture.md):

* core — ``lab/core/``: imports only the core;
* library — ``lab/{robots,arenas,forces,controllers,trials,analysis,checks}/`` and ``lab/core/actuators.py``:
  the core and the library, never a paper or a tool;
* papers — ``lab/papers/``: the core, the library and its own paper (one paper never imports another);
  of the tools, only the two whose interfaces a paper plugs into: its report section (``lab.report``)
  and the sweeps its studies run (``lab.sweep``);
* tools — everything else under ``lab/`` (cli, api, present, gui, overlay, video, visual, results,
  report, sweep, regress, envs, replay, optimize, ...): anything.

``lab`` itself (the package: ``__version__`` and the lazy public names) and ``lab._compat`` (the old
paths' aliases) import nothing of the lab at module level and count as the core.

No module of the lab imports an old, deprecated path (``lab._compat.MOVED``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ("robots", "arenas", "forces", "controllers", "trials", "analysis", "checks", "actuators")
RANK = {"core": 0, "library": 1, "papers": 2, "tools": 3}
PAPER_TOOLS = ("lab.report", "lab.sweep")  # the tools' interfaces a paper plugs into


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer(module: str) -> tuple[str, str | None]:
    """(layer, paper key or None) of a dotted lab module name."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] in ("core", "_compat"):
        return "core", None
    if parts[1] in LIBRARY:
        return "library", None
    if parts[1] == "papers":
        return "papers", parts[2] if len(parts) > 2 and parts[2] != "manifest" else None
    return "tools", None


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) of every lab import in a file, relative ones resolved; ``from a import b``
    counts as ``a.b`` when ``a.b`` is a module of the lab, else as ``a``."""
    mod = module_name(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name == "lab" or a.name.startswith("lab.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not (target == "lab" or target.startswith("lab.")):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                is_mod = (ROOT / Path(*sub.split(".")).with_suffix(".py")).is_file() or \
                    (ROOT / Path(*sub.split(".")) / "__init__.py").is_file()
                out.append((node.lineno, sub if is_mod else target))
    return out


def violations(path: Path) -> list[str]:
    src_layer, src_paper = layer(module_name(path))
    bad = []
    for line, target in imports(path):
        dst_layer, dst_paper = layer(target)
        where = f"{path.relative_to(ROOT)}:{line} imports {target}"
        if src_layer == "papers" and dst_layer == "tools" and target.startswith(PAPER_TOOLS):
            continue
        if RANK[dst_layer] > RANK[src_layer]:
            bad.append(f"{where} ({src_layer} → {dst_layer})")
        elif src_layer == dst_layer == "papers" and dst_paper and src_paper and dst_paper != src_paper:
            bad.append(f"{where} (paper {src_paper} → paper {dst_paper})")
    return bad


def lab_files() -> list[Path]:
    return sorted(p for p in (ROOT / "lab").rglob("*.py") if "_data" not in p.parts)


def test_the_rules_hold():
    bad = [v for p in lab_files() for v in violations(p)]
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_old_import_paths_inside_the_lab():
    from lab._compat import MOVED

    bad = [f"{p.relative_to(ROOT)}:{line} imports {t}" for p in lab_files() if p.name != "_compat.py"
           for line, t in imports(p) if t in MOVED or any(t.startswith(old + ".") for old in MOVED)]
    assert not bad, bad


@pytest.mark.parametrize("src, module, expected", [
    ("from lab.papers.hu2013_tracked.model import ClimbParams\n", "lab.robots.x", "library → papers"),
    ("from lab.gui import Window\n", "lab.core.x", "core → tools"),
    ("from ..controllers import make_controller\n", "lab.core.x", "core → library"),
    ("def f():\n    import lab.envs.env\n", "lab.papers.guo2015_wheeled.x", "papers → tools"),
    ("from lab.papers.wang2011_unified import params\n", "lab.papers.guo2015_wheeled.x",
     "paper guo2015_wheeled → paper wang2011_unified"),
])
def test_the_checker_finds_each_kind_of_violation(tmp_path, src, module, expected):
    """Shown to fail: each forbidden direction, written as a module of that layer, is reported."""
    global ROOT
    old = ROOT
    ROOT = tmp_path
    try:
        path = tmp_path / Path(*module.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True)
        path.write_text(src)
        for mod in ("lab/gui.py", "lab/controllers/__init__.py", "lab/envs/env.py",
                    "lab/papers/wang2011_unified/params.py", "lab/papers/hu2013_tracked/model/__init__.py"):
            (tmp_path / mod).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / mod).touch()
        found = violations(path)
    finally:
        ROOT = old
    assert len(found) == 1 and expected in found[0], found


def test_allowed_directions_pass(tmp_path):
    global ROOT
    old = ROOT
    ROOT = tmp_path
    try:
        path = tmp_path / "lab" / "papers" / "guo2015_wheeled" / "x.py"
        path.parent.mkdir(parents=True)
        path.write_text("from lab.core.world import World\nfrom lab.controllers.base import Controller\n"
                        "from lab.papers.guo2015_wheeled import model\nfrom lab.papers.manifest import Paper\n")
        assert violations(path) == []
    finally:
        ROOT = old
