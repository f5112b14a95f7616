"""Table 1 of Hu 2013 — the tracked wheel-manipulator robot's parameters — and what follows from them.

Robot (Table 1)
    A triangular track body (pulley centres on an equilateral triangle of side ``l`` = 220 mm, pulley
    radius ``r`` = 25 mm, so the straight belt run of each face is ``l`` and the belt length 3l + 2πr),
    mass m_w = 5 kg with its COM at the geometric centre (the paper's assumption); an arm of mass
    m_a = 1.2 kg pivoting at that centre, length ``l_a`` from pivot to guide-wheel centre, tipped with a
    passive steel guide wheel of radius r_d = 30 mm. One motor (18.8 mN·m max, 3600 rpm) with a 144:1
    gearhead (i0), motor wheel → input wheel 5:1 (i1), sun → pulley 3:8 (i2).

Derived, where the paper is implicit (frames and joints: :mod:`.chain`)
    * l_z (Table 2): the pivot–front-face distance. With the arm pivot at the body centre (the sun
      wheel's axis; Table 2's z = l/2 is mid-face) l_z = l/(2√3) + r = 88.5 mm (the inradius of the
      pulley-centre triangle plus the belt's offset r).
    * z_p (Table 2 has l/2): at the start of the climb the front face is vertical against the riser
      and the bottom pulley touches the ground, so the pivot is at r + l/2 = 135 mm. The paper's l/2
      is a sharp-cornered triangle standing on its vertex; :attr:`ClimbParams.pivot_height` may be set
      to l/2 to reproduce it.
    * Mass properties in closed form (the robot's URDF derives the same from trimesh meshes): the body
      a uniform prism of the belt envelope's section, the arm a slender beam plus the steel guide wheel.

The single motor's outputs (:class:`DriveLimits`, :meth:`ClimbParams.split`) are explained in
:mod:`.drive`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.papers.hu2013_tracked.model.geometry import TWO_PI, rounded_triangle_moments

STEEL_DENSITY = 7850.0


def _check(cond: bool, name: str, what: str) -> None:
    if not cond:
        raise ValueError(f"{name}: {what}")


class DriveLimits:
    """The single motor's limits seen at its outputs (Hu 2013, Table 1; the planetary stage of §1.1,
    see :mod:`.drive`).
    Shared by the screw model's ClimbParams and the climb controller's parameters, which both carry
    the fields motor_speed_rpm, motor_torque_max, i0, i1, i2 and pulley_radius."""

    @property
    def motor_speed_max(self) -> float:
        """rad/s at the motor shaft."""
        return self.motor_speed_rpm * TWO_PI / 60.0

    @property
    def arm_torque_max(self) -> float:
        """i0 i1 τ_max on the arm."""
        return self.i0 * self.i1 * self.motor_torque_max

    @property
    def pulley_torque_max(self) -> float:
        """i0 i1 i2 τ_max on the pulley."""
        return self.i0 * self.i1 * self.i2 * self.motor_torque_max

    @property
    def arm_speed_max(self) -> float:
        """θ̇ at the rated motor speed with the track stalled: ω_m / (i0 i1)."""
        return self.motor_speed_max / (self.i0 * self.i1)

    @property
    def track_speed_max(self) -> float:
        """v_d at the rated motor speed with the arm still: ω_m r / (i0 i1 i2)."""
        return self.motor_speed_max * self.pulley_radius / (self.i0 * self.i1 * self.i2)


@dataclass(frozen=True)
class ClimbParams(DriveLimits):
    """Table 1 (and what the paper leaves open, marked). Lengths in m, masses in kg, torques in N·m."""

    m_body: float = 5.0  # m_w
    m_arm: float = 1.2  # m_a (arm beam + guide wheel)
    track_side: float = 0.22  # l: pulley-centre distance = straight belt run of a face
    pulley_radius: float = 0.025  # r
    guide_radius: float = 0.030  # r_d
    arm_length: float = 0.30  # l_a, pivot to guide-wheel centre
    motor_torque_max: float = 18.8e-3  # τ_max at the motor shaft
    motor_speed_rpm: float = 3600.0  # n
    i0: float = 144.0  # gearhead
    i1: float = 5.0  # motor wheel → input wheel
    i2: float = 3.0 / 8.0  # sun → pulley, ω_sun/ω_pulley
    gravity: float = 9.81
    # not in the paper:
    body_width: float = 0.20  # overall track width (x): the ends A, B of the edge contact line
    guide_width: float = 0.012  # steel guide wheel thickness → its mass ρπr_d²w (0.27 kg of m_a)
    pivot_height: float | None = None  # z_p at the climb start; None → r + l/2 (see module doc)

    @classmethod
    def from_spec(cls, spec) -> "ClimbParams":
        """The screw model's parameters for a :class:`lab.robots.tracked.TrackedSpec` (the robot the
        engine runs): what the model is checked against."""
        return cls(m_body=spec.body_mass, m_arm=spec.arm_mass, track_side=spec.track_side,
                   pulley_radius=spec.pulley_radius, guide_radius=spec.guide_radius, arm_length=spec.arm_length,
                   motor_torque_max=spec.motor_torque_max, motor_speed_rpm=spec.motor_speed_rpm, i0=spec.i0,
                   i1=spec.i1, i2=spec.i2, body_width=spec.width, guide_width=spec.guide_width)

    def __post_init__(self):
        for name in ("m_body", "m_arm", "gravity", "i0", "i1", "i2", "motor_torque_max", "motor_speed_rpm"):
            _check(getattr(self, name) > 0, name, f"must be > 0, got {getattr(self, name)}")
        _check(0.05 <= self.track_side <= 1.0, "track_side", f"must be in [0.05, 1] m, got {self.track_side}")
        _check(0.0 < self.pulley_radius < self.track_side / 2, "pulley_radius",
               f"must be in (0, track_side/2), got {self.pulley_radius}")
        _check(0.0 < self.guide_radius <= 0.2, "guide_radius", f"must be in (0, 0.2] m, got {self.guide_radius}")
        _check(0.05 <= self.arm_length <= 1.0, "arm_length", f"must be in [0.05, 1] m, got {self.arm_length}")
        _check(0.02 <= self.body_width <= 1.0, "body_width", f"must be in [0.02, 1] m, got {self.body_width}")
        _check(0.0 < self.guide_width <= 0.1, "guide_width", f"must be in (0, 0.1] m, got {self.guide_width}")
        _check(self.m_guide < self.m_arm, "guide_width", "the guide wheel alone would outweigh the arm")

    # --- geometry -------------------------------------------------------------------------
    @property
    def inradius(self) -> float:
        """a = l/(2√3): centre of the pulley triangle to each face's pulley-centre line."""
        return self.track_side / (2.0 * math.sqrt(3.0))

    @property
    def l_z(self) -> float:
        """Table 2's l_z: pivot (body centre) to the front belt face, l/(2√3) + r."""
        return self.inradius + self.pulley_radius

    @property
    def z_pivot0(self) -> float:
        """Pivot height above the slope at the start of the climb (Table 2's z of ξ5)."""
        return self.pulley_radius + self.track_side / 2.0 if self.pivot_height is None else self.pivot_height

    @property
    def pulley_centres_B(self) -> np.ndarray:
        """(3, 2) pulley centres (y, z) in the body frame: front-top T, front-bottom F, rear R."""
        a, l = self.inradius, self.track_side
        return np.array([[a, l / 2], [a, -l / 2], [-2 * a, 0.0]])

    @property
    def perimeter(self) -> float:
        return 3.0 * self.track_side + TWO_PI * self.pulley_radius

    # --- mass properties (closed forms; the URDF derives the same from trimesh meshes) ------------
    @property
    def m_guide(self) -> float:
        return STEEL_DENSITY * math.pi * self.guide_radius**2 * self.guide_width

    @property
    def m_beam(self) -> float:
        return self.m_arm - self.m_guide

    @property
    def arm_com(self) -> float:
        """d_a: pivot → arm COM along the arm (uniform beam pivot→wheel centre + wheel at the tip)."""
        return (self.m_beam * self.arm_length / 2 + self.m_guide * self.arm_length) / self.m_arm

    @property
    def I_arm(self) -> np.ndarray:
        """Arm inertia about its COM in the arm frame (x lateral, y along the arm): slender beam plus
        the guide wheel as a point mass (its spin is free on its bearing; ½·m r_d²·ω² is < 0.1 % of
        the arm's kinetic energy and is left out, as in the paper)."""
        la, d = self.arm_length, self.arm_com
        i_perp = self.m_beam * (la**2 / 12 + (la / 2 - d) ** 2) + self.m_guide * (la - d) ** 2
        w = self.guide_width
        i_long = self.m_beam * w**2 / 6  # a thin square-section beam's axial moment, negligible
        return np.diag([i_perp, i_long, i_perp])

    @property
    def I_body(self) -> np.ndarray:
        """Body inertia about its COM in B: a uniform prism of the rounded-triangle section (the belt
        envelope), width ``body_width``. 120° symmetry makes the section's second moments equal."""
        A, Jyy, Jzz = rounded_triangle_moments(self.track_side, self.pulley_radius)
        m, w = self.m_body, self.body_width
        return np.diag([m * (Jyy + Jzz) / A, m * Jzz / A + m * w**2 / 12, m * Jyy / A + m * w**2 / 12])

    # --- drive: DriveLimits (motor speed, arm and track speed limits) ------------------------
    @property
    def sigma_per_theta(self) -> float:
        """Eq. (12): ds/dθ = v_d/θ̇ = r / i2."""
        return self.pulley_radius / self.i2

    def split(self, tau_motor: float) -> dict[str, float]:
        """The planetary split of a motor-shaft torque (:mod:`.drive`)."""
        T = self.i0 * self.i1 * tau_motor
        return {"arm_torque_Nm": T, "pulley_torque_Nm": self.i2 * T,
                "belt_force_N": self.i2 * T / self.pulley_radius}


def height_limit(p: ClimbParams = ClimbParams()) -> float:
    """The paper's theoretical height limit (§4.3): h_max1 = l from the simulations (the triangle's
    side), h_max2 = l − r from the geometric requirement that the flip pivot on the step's corner
    (citing its ref. 9); h_max = min(h_max1, h_max2) = 0.195 m with Table 1. Reproduced as stated —
    the lab's own geometric and torque limits come out of :func:`.dynamics.max_height`."""
    l, r = p.track_side, p.pulley_radius
    return min(l, l - r)


__all__ = ["STEEL_DENSITY", "DriveLimits", "ClimbParams", "height_limit"]
