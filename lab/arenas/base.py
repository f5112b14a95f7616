"""The arena registry: ``[arena] type = name`` → the arena's parameter dataclass.

An arena is a frozen dataclass with ``build(world)``, which creates the arena's bodies in the world
and returns the id of the body the robot stands on (or None, e.g. in water). The built-ins are listed
in :mod:`lab.core.plugins`."""

from __future__ import annotations

from lab.core.registry import Registry, registry

ARENAS: Registry[type] = registry("arena")


def register_arena(name: str):
    """Register an arena dataclass as ``[arena] type = name``."""
    return ARENAS.register(name)


__all__ = ["ARENAS", "register_arena"]
