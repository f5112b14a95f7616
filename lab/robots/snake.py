"""Wheeled snake robot of Wang 2011's passive creeping (Table 1)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lab.core.fields import count, num
from lab.robots.base import Robot, register_robot
from lab.robots.urdf import MassProps, cylinder_x, planar_chain_urdf


@register_robot("snake")
@dataclass(frozen=True)
class SnakeSpec(Robot):
    """A planar chain of ``n_modules`` cylinders with yaw joints (Wang 2011, Fig 2, Table 1).

    Defaults are Table 1: 10 modules of 0.08 m and 0.5 kg. The radius 7.5 mm is chosen so that the
    solid cylinder's yaw inertia m(3r² + l²)/12 = 2.74e-4 kg·m² matches Table 1's I = 2.7e-4 kg·m²;
    the inertia is computed from that geometry, never typed. Link 0 is the tail, the last link the head.
    """

    n_modules: int = count(10, 2, 100, doc="modules (links), tail first")
    module_length: float = num(0.08, ge=0.005, le=2, unit="m", doc="joint to joint")
    radius: float = num(0.0075, ge=0.001, le=2, unit="m", doc="cylinder radius, at most module_length")
    mass: float = num(0.5, ge=0.001, le=100, unit="kg", doc="per module")
    joint_limit: float = num(1.5708, gt=0, le=math.pi, unit="rad", doc="± yaw joint range")
    effort: float = num(1.5, gt=0, le=1000, unit="N·m", doc="joint torque limit")
    max_joint_speed: float = num(10.0, gt=0, le=1000, unit="rad/s", doc="joint speed limit")
    stall_torque: float = num(math.nan, gt=0, le=1000, unit="N·m",
                              doc="each joint motor's stall torque (lab.core.actuators; default: effort)")
    no_load_speed: float = num(math.nan, gt=0, le=1000, unit="rad/s",
                               doc="each joint motor's no-load speed: it cannot drive faster (default: max_joint_speed)")

    def __post_init__(self):
        super().__post_init__()
        if math.isnan(self.stall_torque):
            object.__setattr__(self, "stall_torque", float(self.effort))
        if math.isnan(self.no_load_speed):
            object.__setattr__(self, "no_load_speed", float(self.max_joint_speed))
        if self.radius > self.module_length:
            raise ValueError(f"radius: must be in [0.001 m, module_length], got {self.radius}")

    def motors(self) -> dict[str, tuple[float, float]]:
        """Each yaw joint's motor at the joint, (stall torque, no-load speed): the torque–speed line the
        World enforces on every torque it applies (lab.core.actuators)."""
        return {f"joint_{j}": (self.stall_torque, self.no_load_speed) for j in range(self.n_modules - 1)}

    @property
    def n_links(self) -> int:
        return self.n_modules

    @property
    def link_length(self) -> float:
        return self.module_length

    @property
    def head_link(self) -> str:
        """The head module, whose path the ``head.*`` metrics follow: the last link."""
        return f"link_{self.n_modules - 1}"

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
