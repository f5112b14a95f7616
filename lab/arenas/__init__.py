"""Arenas: what the robot moves on or in. A frozen dataclass per type with ``build(world)``, which
creates the arena's bodies through ``world.client`` and returns the id of the body the robot stands
on (or None, e.g. in water)."""

from __future__ import annotations

import importlib

from .ground import FlatGround, Water

ARENAS: dict[str, type] = {"ground": FlatGround, "water": Water}


def register_arena(name: str):
    def deco(cls):
        ARENAS[name] = cls
        return cls

    return deco


for _mod in ("step",):
    try:
        importlib.import_module(f"{__name__}.{_mod}")
    except ModuleNotFoundError as _exc:
        if _exc.name != f"{__name__}.{_mod}":
            raise

__all__ = ["ARENAS", "FlatGround", "Water", "register_arena"]
