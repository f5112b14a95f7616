"""The lab's built-in plugins, listed once: kind → the modules that register them.

A :class:`lab.core.registry.Registry` imports its kind's modules here on its first lookup; the order of
the modules is the order ``lab list``, the JSON Schema, ``lab check`` and ``lab report`` show. To add
a built-in, write the module with its ``@…register(name)`` decorator and list it here; user code
registers through ``lab.register_force`` / ``register_controller`` / ``register_robot`` instead.
"""

from __future__ import annotations

_PAPERS = ("wang2011_creeping", "wang2011_unified", "hu2013_tracked", "guo2015_wheeled", "zhang2018_eel")  # by year: the report's order

BUILTINS: dict[str, tuple[str, ...]] = {
    "robot": ("lab.robots.snake", "lab.robots.eel", "lab.robots.tracked", "lab.robots.wheeled_snake",
              "lab.robots.urdf_file"),
    "controller": ("lab.controllers.passive_creeping", "lab.controllers.serpenoid", "lab.papers.zhang2018_eel.controllers",
                   "lab.papers.hu2013_tracked.controllers", "lab.controllers.belt_drive", "lab.papers.guo2015_wheeled.controllers"),
    "friction law": ("lab.forces.friction",),
    "force law": ("lab.forces.tether", "lab.forces.hydrodynamics", "lab.forces.cleats"),
    "arena": ("lab.arenas.ground", "lab.arenas.step"),
    "trial": ("lab.trials.drag_course", "lab.papers.hu2013_tracked.trials", "lab.trials.welded_tail",
              "lab.papers.guo2015_wheeled.trials"),
    "check": ("lab.checks.friction_block", "lab.checks.belt_speed", "lab.papers.wang2011_creeping.checks",
              "lab.papers.wang2011_creeping.turning", *(f"lab.papers.{p}.checks" for p in _PAPERS[1:])),
    "analysis": ("lab.papers.wang2011_creeping.gait",),
    "fault": ("lab.checks.faults",),
    "report section": tuple(f"lab.papers.{p}.report" for p in _PAPERS),
}

__all__ = ["BUILTINS"]
