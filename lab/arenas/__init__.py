"""Arenas: what the robot moves on or in. A frozen dataclass per type with ``build(world)``, which
creates the arena's bodies in the world and returns the id of the body the robot stands on (or None,
e.g. in water). :data:`ARENAS` is the registry (:mod:`lab.arenas.base`); the built-ins are listed in
:mod:`lab.core.plugins`."""

from __future__ import annotations

from lab.arenas.base import ARENAS, register_arena
from lab.arenas.ground import FlatGround, Water

__all__ = ["ARENAS", "FlatGround", "Water", "register_arena"]
