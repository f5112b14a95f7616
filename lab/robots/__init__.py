"""Procedural robots: frozen specs with validation and a pure ``to_urdf()``."""

from .eel import EelSpec
from .snake import SnakeSpec
from .tracked import TrackedSpec
from .wheeled_snake import WheeledSnakeSpec

ROBOTS = {"snake": SnakeSpec, "eel": EelSpec, "tracked": TrackedSpec, "wheeled_snake": WheeledSnakeSpec}

__all__ = ["ROBOTS", "EelSpec", "SnakeSpec", "TrackedSpec", "WheeledSnakeSpec"]
