"""Eel robot of Zhang 2018 (§4.2): a neutrally buoyant chain of circular cylinders."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.fields import count, num
from lab.robots.base import Robot, register_robot
from lab.robots.urdf import MassProps, cylinder_x, planar_chain_urdf


@register_robot("eel")
@dataclass(frozen=True)
class EelSpec(Robot):
    """``n_links`` cylinders of half-length ``half_length`` (l) and radius ``radius`` (R).

    Mass is neutral buoyancy, m = ρ π R² · 2l (Zhang 2018, §4.2): with the defaults 0.5531 kg,
    the density of the water displaced. Link 0 is the tail, the last link the head.

    ``added_mass`` (kg) and ``added_yaw_inertia`` (kg·m²) fold the water's added mass into the links
    (default 0: a dry robot). The mass is added isotropically, the inertia to the yaw and pitch axes
    (as a rod of the added mass along the link would; the triangle inequality stays satisfied). The
    hydrodynamics law with ``added_mass = "folded"`` then removes the tangential part with a
    correction force (lab/forces/hydrodynamics.py explains why: a lagged added-mass force of about
    the link's own mass is unstable). The scenario checks the two sides agree.
    """

    n_links: int = count(9, 2, 100, doc="links, tail first")
    half_length: float = num(0.0626, ge=0.005, le=1, unit="m", doc="l, half a link's length")
    radius: float = num(0.0375, ge=0.001, le=2, unit="m", doc="R, at most 2·half_length")
    density: float = num(1000.0, ge=100, le=20000, unit="kg/m³", doc="ρ: mass = ρπR²·2l")
    joint_limit: float = num(1.5708, gt=0, le=math.pi, unit="rad", doc="± yaw joint range")
    effort: float = num(20.0, gt=0, le=1000, unit="N·m", doc="joint torque limit")
    max_joint_speed: float = num(20.0, gt=0, le=1000, unit="rad/s", doc="joint speed limit")
    stall_torque: float = num(math.nan, gt=0, le=1000, unit="N·m",
                              doc="each joint motor's stall torque (lab.core.actuators; default: effort)")
    no_load_speed: float = num(math.nan, gt=0, le=1000, unit="rad/s",
                               doc="each joint motor's no-load speed: it cannot drive faster (default: max_joint_speed)")
    added_mass: float = num(0.0, ge=0, unit="kg", doc="water's added mass folded into each link, at most 10·mass")
    added_yaw_inertia: float = num(0.0, ge=0, le=1, unit="kg·m²", doc="added yaw inertia folded into each link")

    def __post_init__(self):
        super().__post_init__()
        if math.isnan(self.stall_torque):
            object.__setattr__(self, "stall_torque", float(self.effort))
        if math.isnan(self.no_load_speed):
            object.__setattr__(self, "no_load_speed", float(self.max_joint_speed))
        if self.radius > 2 * self.half_length:
            raise ValueError(f"radius: must be in [0.001 m, 2·half_length], got {self.radius}")
        if self.added_mass > 10.0 * self.mass:
            raise ValueError(f"added_mass: must be in [0, 10·mass = {10.0 * self.mass:.4g}] kg, got {self.added_mass}")

    def motors(self) -> dict[str, tuple[float, float]]:
        """Each yaw joint's motor at the joint, (stall torque, no-load speed): the torque–speed line the
        World enforces on every torque it applies (lab.core.actuators)."""
        return {f"joint_{j}": (self.stall_torque, self.no_load_speed) for j in range(self.n_links - 1)}

    @property
    def mass(self) -> float:
        return self.density * math.pi * self.radius**2 * 2.0 * self.half_length

    @property
    def link_length(self) -> float:
        return 2.0 * self.half_length

    def views(self) -> tuple:
        """The top view of every link's path, and the swimmer's heading and centre-of-mass path (the
        turns of Zhang 2018's eq. 39 schedule are read off these)."""
        from lab.analysis.plots import HEADING_VIEW, TOP_VIEW

        return (TOP_VIEW, HEADING_VIEW)

    def headline(self) -> tuple:
        from lab.core.views import Headline

        return (Headline("heading.change_deg", "body heading, end − start (positive = left)"),
                Headline("com.displacement_m"))

    @property
    def head_link(self) -> str:
        """The head link, whose path the ``head.*`` metrics follow: the last link."""
        return f"link_{self.n_links - 1}"

    @property
    def rest_height(self) -> float:
        return self.radius

    def dry_mass_props(self) -> MassProps:
        """The solid cylinder alone (what the analytic models call m and J)."""
        return cylinder_x(self.mass, self.radius, 2.0 * self.half_length)

    def mass_props(self) -> MassProps:
        """What the URDF states: the cylinder plus the folded added mass and yaw inertia."""
        dry = self.dry_mass_props()
        if not (self.added_mass or self.added_yaw_inertia):
            return dry
        I = dry.inertia + np.diag([0.0, self.added_yaw_inertia, self.added_yaw_inertia])
        return MassProps(dry.mass + self.added_mass, dry.com, I)

    def _urdf(self, name: str, n_links: int) -> str:
        return planar_chain_urdf(name, n_links, 2.0 * self.half_length, self.radius, self.mass_props(),
                                 "cylinder", self.joint_limit, self.effort, self.max_joint_speed,
                                 body_rgba=(0.25, 0.45, 0.80, 1.0), head_rgba=(0.10, 0.20, 0.55, 1.0))

    def to_urdf(self) -> str:
        return self._urdf("eel", self.n_links)

    def module_urdf(self) -> str:
        """One link alone (no joints): the body of the added-mass stability test."""
        return self._urdf("eel_module", 1)
