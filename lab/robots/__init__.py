"""Robots: frozen specs with validation and a pure ``to_urdf()``, by scenario type.

:data:`ROBOTS` is the registry (:mod:`lab.robots.base`); the built-ins — the procedural snake, eel,
tracked and wheeled-snake robots and ``urdf`` (any URDF file) — are listed in :mod:`lab.core.plugins`.
"""

from lab.robots.base import ROBOTS, register_robot
from lab.robots.eel import EelSpec
from lab.robots.snake import SnakeSpec
from lab.robots.tracked import TrackedSpec
from lab.robots.wheeled_snake import WheeledSnakeSpec

__all__ = ["ROBOTS", "register_robot", "EelSpec", "SnakeSpec", "TrackedSpec", "WheeledSnakeSpec"]
