"""Procedural robots: frozen specs with validation and a pure ``to_urdf()``."""

from .eel import EelSpec
from .snake import SnakeSpec

ROBOTS = {"snake": SnakeSpec, "eel": EelSpec}

__all__ = ["ROBOTS", "EelSpec", "SnakeSpec"]
