"""The force laws' registries. What a law is and returns, how it is bound and how the World sums several
laws live in the core (:mod:`lab.core.wrench`) and are re-exported here.

A force law is a pure callable ``law(state, t)`` (:class:`ForceLaw`) returning either an ``(N, 3)``
array of forces at the link COMs in the world frame, or a :class:`Wrench` when it also applies torques
or pushes other bodies (a payload at the end of a tether).

A law that needs the robot's or the arena's geometry (the cleats: the belt's dimensions and the
arena's convex edges) is a :class:`NeedsBinding`: its ``bind(robot, arena)`` returns a new, immutable
:class:`ForceLaw` holding that geometry. :func:`bind` is called in one place, where the runner builds
the laws (lab.core.runner.Simulation); every other law binds to itself. A law is never mutated after its
scenario is loaded.
"""

from __future__ import annotations

from lab.core.registry import Registry, registry
from lab.core.wrench import ForceLaw, NeedsBinding, Wrench, as_wrench, bind, power, total  # noqa: F401 - re-exported

# Laws by scenario type: FRICTION for the ``[friction]`` table, FORCES for ``[forces.<name>]`` tables.
# The built-ins are listed in lab.core.plugins; user code adds laws with ``@lab.register_force(name)``.
FRICTION: Registry[type] = registry("friction law")
FORCES: Registry[type] = registry("force law")


def register_force(name: str):
    """Register a force-law dataclass as ``[forces.<any>] type = name``: its fields are the table's keys,
    ``law(state, t)`` returns an (N, 3) array of forces at the link COMs (world frame) or a :class:`Wrench`."""
    return FORCES.register(name)


__all__ = ["FORCES", "FRICTION", "ForceLaw", "NeedsBinding", "Wrench", "as_wrench", "bind", "power", "register_force",
           "total"]
