"""Wheeled snake robot of Wang 2011 (seed 001, Table 1)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .urdf import MassProps, cylinder_x, planar_chain_urdf


def _check(cond: bool, field: str, what: str) -> None:
    if not cond:
        raise ValueError(f"{field}: {what}")


@dataclass(frozen=True)
class SnakeSpec:
    """A planar chain of ``n_modules`` cylinders with yaw joints (Wang 2011, Fig 2, Table 1).

    Defaults are Table 1: 10 modules of 0.08 m and 0.5 kg. The radius 7.5 mm is chosen so that the
    solid cylinder's yaw inertia m(3r² + l²)/12 = 2.74e-4 kg·m² matches Table 1's I = 2.7e-4 kg·m²;
    the inertia is computed from that geometry, never typed. Link 0 is the tail, the last link the head.
    """

    n_modules: int = 10
    module_length: float = 0.08
    radius: float = 0.0075
    mass: float = 0.5
    joint_limit: float = 1.5708
    effort: float = 1.5
    max_joint_speed: float = 10.0

    def __post_init__(self):
        _check(isinstance(self.n_modules, int) and 2 <= self.n_modules <= 100, "n_modules",
               f"must be an integer from 2 to 100, got {self.n_modules!r}")
        _check(0.005 <= self.module_length <= 2.0, "module_length", f"must be in [0.005, 2] m, got {self.module_length}")
        _check(0.001 <= self.radius <= self.module_length, "radius",
               f"must be in [0.001 m, module_length], got {self.radius}")
        _check(0.001 <= self.mass <= 100.0, "mass", f"must be in [0.001, 100] kg, got {self.mass}")
        _check(0.0 < self.joint_limit <= math.pi, "joint_limit", f"must be in (0, pi] rad, got {self.joint_limit}")
        _check(0.0 < self.effort <= 1000.0, "effort", f"must be in (0, 1000] N·m, got {self.effort}")
        _check(0.0 < self.max_joint_speed <= 1000.0, "max_joint_speed", f"must be in (0, 1000] rad/s, got {self.max_joint_speed}")

    @property
    def n_links(self) -> int:
        return self.n_modules

    @property
    def link_length(self) -> float:
        return self.module_length

    def mass_props(self) -> MassProps:
        return cylinder_x(self.mass, self.radius, self.module_length)

    @property
    def rest_height(self) -> float:
        """Height of the link frames when the robot lies on flat ground."""
        return self.radius

    def to_urdf(self) -> str:
        return planar_chain_urdf("snake", self.n_modules, self.module_length, self.radius, self.mass_props(),
                                 "skid", self.joint_limit, self.effort, self.max_joint_speed)

    def module_urdf(self) -> str:
        """One module alone (no joints): the body of the friction_block check."""
        return planar_chain_urdf("snake_module", 1, self.module_length, self.radius, self.mass_props(),
                                 "skid", self.joint_limit, self.effort, self.max_joint_speed)
