"""One home per paper: how each paper is reproduced, declared by its manifest.

Each package ``lab/papers/<authorYYYY_topic>/`` holds that paper's study — its model, the controllers,
trials, analyses, checks and faults only it uses, its report section, scenarios and README — and
declares them in its ``__init__.py`` as ``PAPER = Paper(...)`` (:class:`lab.papers.manifest.Paper`).
Nothing else lists the papers: :func:`papers` finds every package here that has a manifest, and the
registries (``lab list``, the schema, ``lab check``, ``lab report``), the docs' paper pages and the
scenario search path are derived from what it finds. Reusable parts live in the library (robots,
arenas, forces, controllers, trials, analysis).

To change how paper X is reproduced, open its package here; to add a paper, add a package with a
manifest — nothing outside its folder changes.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import threading

from lab.papers.manifest import Paper

log = logging.getLogger(__name__)

_lock = threading.RLock()
_found: dict[str, Paper] | None = None


def papers() -> dict[str, Paper]:
    """Every paper with a manifest under this package's path, by (year, key): the report's order."""
    global _found
    with _lock:
        if _found is None:
            found = []
            for info in pkgutil.iter_modules(__path__):
                if not info.ispkg:
                    continue
                mod = importlib.import_module(f"{__name__}.{info.name}")
                paper = getattr(mod, "PAPER", None)
                if not isinstance(paper, Paper):
                    continue
                if paper.key != info.name:
                    raise ValueError(f"lab/papers/{info.name}: its manifest's key is {paper.key!r}; it must be the "
                                     f"folder's name")
                found.append(paper)
            _found = {p.key: p for p in sorted(found, key=lambda p: (p.year, p.key))}
        return dict(_found)


def plugin_modules(kind: str) -> tuple[str, ...]:
    """The papers' modules that register entries of ``kind``, in the papers' order (the registries'
    hook, named in :data:`lab.core.plugins.EXTENSIONS`)."""
    return tuple(m for p in papers().values() for m in p.modules(kind))


def scenario_dirs() -> list:
    """The papers' scenario folders that exist, in the papers' order."""
    from importlib import resources
    from pathlib import Path

    out = []
    for p in papers().values():
        node = resources.files(p.package).joinpath(p.scenarios)
        if isinstance(node, Path) and node.is_dir():
            out.append(node)
    return out


def tolerances() -> dict:
    """The papers' tolerance tables merged (a key defined twice is an error)."""
    out: dict = {}
    for p in papers().values():
        if not p.tolerances:
            continue
        table = importlib.import_module(p.package + p.tolerances).TOL
        clash = set(table) & set(out)
        if clash:
            raise ValueError(f"paper {p.key}: tolerance keys defined twice: {sorted(clash)}")
        out.update(table)
    return out


def _reset() -> None:
    """Forget what was found (tests that add a paper folder to ``__path__``)."""
    global _found
    with _lock:
        _found = None


def __getattr__(name: str):
    if name == "PAPERS":  # the keys, in order (the old constant)
        return tuple(papers())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Paper", "papers", "plugin_modules", "scenario_dirs", "tolerances"]
