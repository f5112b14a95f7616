"""Robots: frozen specs with validation and a pure ``to_urdf()``, by scenario type.

:data:`ROBOTS` is the registry (:mod:`lab.robots.base`); the built-ins — the procedural snake, eel,
tracked and wheeled-snake robots and ``urdf`` (any URDF file) — are listed in :mod:`lab.plugins`.
"""

from .base import ROBOTS, register_robot
from .eel import EelSpec
from .snake import SnakeSpec
from .tracked import TrackedSpec
from .wheeled_snake import WheeledSnakeSpec

__all__ = ["ROBOTS", "register_robot", "EelSpec", "SnakeSpec", "TrackedSpec", "WheeledSnakeSpec"]
