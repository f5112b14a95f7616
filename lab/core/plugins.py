"""The library's built-in plugins, listed once: kind → the modules that register them; and the hooks
through which other layers add theirs.

A :class:`lab.core.registry.Registry` imports its kind's modules here on its first lookup, then asks
each hook in :data:`EXTENSIONS` for more (the papers' manifests: :func:`lab.papers.plugin_modules`).
The core names no paper and imports no library module: these are module names, imported by the
registry when a lookup needs them. The order is the order ``lab list``, the JSON Schema, ``lab check``
and ``lab report`` show: the library's built-ins, then the papers by (year, key). To add a library
built-in, write the module with its ``@…register(name)`` decorator and list it here; a paper declares
its own in its manifest; user code registers through ``lab.register_force`` / ``register_controller`` /
``register_robot`` or a plugin package.
"""

from __future__ import annotations

BUILTINS: dict[str, tuple[str, ...]] = {
    "robot": ("lab.robots.snake", "lab.robots.eel", "lab.robots.tracked", "lab.robots.tracked_chain", "lab.robots.wheeled_snake",
              "lab.robots.urdf_file"),
    "controller": ("lab.controllers.passive_creeping", "lab.controllers.serpenoid", "lab.controllers.belt_drive"),
    "friction law": ("lab.forces.friction",),
    "force law": ("lab.forces.tether", "lab.forces.hydrodynamics", "lab.forces.cleats"),
    "arena": ("lab.arenas.ground", "lab.arenas.step"),
    "trial": ("lab.trials.drag_course", "lab.trials.welded_tail"),
    "check": ("lab.checks.friction_block", "lab.checks.step_convergence", "lab.checks.belt_speed"),
    "analysis": (),
    "fault": ("lab.checks.faults",),
    "report section": (),
}

#: ``module:function`` hooks returning more modules for a kind (called with the kind), in order
EXTENSIONS: tuple[str, ...] = ("lab.papers:plugin_modules",)

#: ``module:function`` hooks returning more folders of scenarios found by name
SCENARIO_EXTENSIONS: tuple[str, ...] = ("lab.papers:scenario_dirs",)

#: ``module:function`` hooks returning more tolerances (name -> lab.core.tolerances.Tol)
TOLERANCE_EXTENSIONS: tuple[str, ...] = ("lab.papers:tolerances",)


def modules(kind: str) -> tuple[str, ...]:
    """Every module that registers built-in entries of ``kind``: the library's, then each hook's."""
    import importlib

    out = list(BUILTINS.get(kind, ()))
    for hook in EXTENSIONS:
        mod, fn = hook.split(":")
        out += [m for m in getattr(importlib.import_module(mod), fn)(kind) if m not in out]
    return tuple(out)


def scenario_dirs() -> list:
    """The scenario folders every hook in :data:`SCENARIO_EXTENSIONS` adds, in order."""
    import importlib

    out = []
    for hook in SCENARIO_EXTENSIONS:
        mod, fn = hook.split(":")
        out += [d for d in getattr(importlib.import_module(mod), fn)() if d not in out]
    return out


def tolerances() -> dict:
    """The tolerances every hook in :data:`TOLERANCE_EXTENSIONS` adds."""
    import importlib

    out: dict = {}
    for hook in TOLERANCE_EXTENSIONS:
        mod, fn = hook.split(":")
        out.update(getattr(importlib.import_module(mod), fn)())
    return out


__all__ = ["BUILTINS", "EXTENSIONS", "SCENARIO_EXTENSIONS", "TOLERANCE_EXTENSIONS", "modules", "scenario_dirs",
           "tolerances"]
