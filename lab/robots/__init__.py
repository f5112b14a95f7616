"""Procedural robots: frozen specs with validation and a pure ``to_urdf()``."""

from .eel import EelSpec
from .snake import SnakeSpec
from .tracked import TrackedSpec

ROBOTS = {"snake": SnakeSpec, "eel": EelSpec, "tracked": TrackedSpec}

__all__ = ["ROBOTS", "EelSpec", "SnakeSpec", "TrackedSpec"]
