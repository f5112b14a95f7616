"""Eel robot of Zhang 2018 (seed 003, §4.2): a neutrally buoyant chain of circular cylinders."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .snake import _check
from .urdf import MassProps, cylinder_x, planar_chain_urdf


@dataclass(frozen=True)
class EelSpec:
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

    n_links: int = 9
    half_length: float = 0.0626
    radius: float = 0.0375
    density: float = 1000.0
    joint_limit: float = 1.5708
    effort: float = 20.0
    max_joint_speed: float = 20.0
    added_mass: float = 0.0
    added_yaw_inertia: float = 0.0

    def __post_init__(self):
        _check(isinstance(self.n_links, int) and 2 <= self.n_links <= 100, "n_links",
               f"must be an integer from 2 to 100, got {self.n_links!r}")
        _check(0.005 <= self.half_length <= 1.0, "half_length", f"must be in [0.005, 1] m, got {self.half_length}")
        _check(0.001 <= self.radius <= 2 * self.half_length, "radius",
               f"must be in [0.001 m, 2·half_length], got {self.radius}")
        _check(100.0 <= self.density <= 20000.0, "density", f"must be in [100, 20000] kg/m³, got {self.density}")
        _check(0.0 < self.joint_limit <= math.pi, "joint_limit", f"must be in (0, pi] rad, got {self.joint_limit}")
        _check(0.0 < self.effort <= 1000.0, "effort", f"must be in (0, 1000] N·m, got {self.effort}")
        _check(0.0 < self.max_joint_speed <= 1000.0, "max_joint_speed", f"must be in (0, 1000] rad/s, got {self.max_joint_speed}")
        _check(0.0 <= self.added_mass <= 10.0 * self.mass, "added_mass",
               f"must be in [0, 10·mass = {10.0 * self.mass:.4g}] kg, got {self.added_mass}")
        _check(0.0 <= self.added_yaw_inertia <= 1.0, "added_yaw_inertia",
               f"must be in [0, 1] kg·m², got {self.added_yaw_inertia}")

    @property
    def mass(self) -> float:
        return self.density * math.pi * self.radius**2 * 2.0 * self.half_length

    @property
    def link_length(self) -> float:
        return 2.0 * self.half_length

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
