"""The World is the only door to the engine: no module outside the allowed ones touches PyBullet.

Read from the source with ``ast``: importing ``pybullet`` / ``pybullet_utils`` or :mod:`lab.core.engine`, or
reaching for a client — ``something.client`` (other than a class's own ``self.client``) or
``._client`` anywhere — counts. Allowed: :mod:`lab.core.world` (the door), :mod:`lab.core.engine` (the import and
the client wrapper), and the GUI/video modules' window, camera and debug-drawing calls
(:mod:`lab.gui`, :mod:`lab.video`, :mod:`lab.visual`). A module that needs something of the engine asks
the World for it (reset_state, inverse_dynamics, link_jacobian, camera_image, add_* bodies, fast_calls …).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"lab/core/world.py", "lab/core/engine.py", "lab/gui.py", "lab/video.py", "lab/visual.py"}
ENGINE_MODULES = ("pybullet", "pybullet_utils", "lab.core.engine")


def engine_uses(source: str, module: str) -> list[tuple[int, str]]:
    """(line, what) for every engine access in ``source`` of module ``module`` (dotted)."""
    out = []
    pkg = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, f"import {a.name}") for a in node.names if a.name.startswith(ENGINE_MODULES)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [f"{target}.{a.name}" for a in node.names]
            if target.startswith(ENGINE_MODULES) or any(n.startswith(ENGINE_MODULES) for n in names):
                out.append((node.lineno, f"from {'.' * node.level}{node.module or ''} import "
                                         f"{', '.join(a.name for a in node.names)}"))
        elif isinstance(node, ast.Attribute):
            if node.attr == "_client":
                out.append((node.lineno, ast.unparse(node)))
            elif node.attr == "client" and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                out.append((node.lineno, ast.unparse(node)))
    return out


def test_the_scanner_finds_each_way_in():
    src = ("from ..core.engine import pb\nimport pybullet\n"
           "def f(world):\n    c = world.client\n    return c._client\n"
           "class A:\n    def g(self):\n        return self.client\n")
    found = [what for _, what in engine_uses(src, "lab.trials.x")]
    assert found == ["from ..core.engine import pb", "import pybullet", "world.client", "c._client"]


@pytest.mark.slow
def test_nothing_outside_the_world_touches_the_engine():
    bad = []
    for path in sorted((ROOT / "lab").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ALLOWED:
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        bad += [f"{rel}:{line}: {what}" for line, what in engine_uses(path.read_text(encoding="utf-8"), module)]
    assert not bad, "engine access outside lab/core/world.py (ask the World instead):\n" + "\n".join(bad)
