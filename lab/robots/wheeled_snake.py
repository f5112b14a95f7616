"""Passive-wheel snake of Guo et al. 2015: a planar chain of modules, each on a real axle
with two free wheels at its centre, the engine's Coulomb friction on the wheels giving the no-slip.

The paper's model (lab.papers.guo2015_wheeled.model) has, per module, mass m, yaw inertia J about the
centre and an ideal knife-edge wheel there (no lateral slip, eq. 1). This robot has the same m and J
(totals over the module's body and its two wheels, derived from the geometry below, never typed) and
gets its no-slip from contact friction instead of a constraint: what the two can differ in is the
wheels' spin inertia (rolling), their slip, and the wheels' own dynamics — what the seed-000 checks
measure.

Geometry of one module (frame at its centre, x towards the head, z up; the axle at wheel height):

* **body** (one link): a thin tube along x (radius ``body_radius``, length 2l, ``tube_mass``) and two
  joint housings — solid vertical cylinders of radius and half-height ``body_radius`` — carrying the
  rest of the body's mass, centred on the module's axis at ±d. §4.6 puts the motors at the joints
  ("考虑到电机安装在关节处, 所以假设每个模块的转动惯量为 J = ml²"); d is solved from J: the module's total
  yaw inertia (tube + housings + wheels, parallel axes included) equals ``yaw_inertia`` exactly. With
  the defaults d = 40.6 mm ≈ l: the housings sit on the joint axes, and neighbouring modules' housings
  overlap there (self-collision is off; the mass of one motor is shared by the two modules it joins).
* **wheels**: two discs (``wheel_radius``, ``wheel_width``, ``wheel_mass`` each) on continuous joints
  about the module's y axis, ``wheel_track`` apart. Their collision shape is a sphere of the wheel's
  radius: on flat ground it touches at one point straight below the centre (an exact rolling radius,
  no collision margin, no scrub torque from a contact line across the tread), i.e. the paper's
  knife-edge wheel. The pair keeps the module from rolling over.
* The body has no collision shape (it clears the ground by wheel_radius − body_radius).

Order (URDF and engine). Link 0 is the tail module and the URDF base; the modules are ``link_0`` (tail)
… ``link_{n−1}`` (head), yaw joint ``joint_j`` joins ``link_j`` to ``link_{j+1}`` at their shared end and
its angle is the child's yaw relative to the parent, as in every planar chain of the lab. Each module's
wheels (``wheel_i_left`` on +y, ``wheel_i_right``) are listed before the next module, and a massless
``head_tip`` link is fixed at the head module's free front end, listed last: PyBullet numbers links
depth-first, so the engine's links run link_0, its wheels, link_1, …, link_{n−1}, its wheels, head_tip
— the last link is the head point (the paper's (x, y)), which the GUI's head trail and the run metrics
take as the head. The movable joints, in engine order: wheel, wheel, yaw, wheel, wheel, yaw, …

``zero_shape`` (rad, the yaw joints' angles in the lab's order, tail first) is the shape the URDF is
built in: every run starts with its joints at 0 (the runner resets them), so this is the start shape,
and a yaw joint then reads its angle *beyond* zero_shape. Default: straight. The seed-000 scenario
puts Table 1's near-straight start here (the head-tracking PFL is singular at the straight shape:
both rows of its input map are parallel there). Controllers that need the true relative angles take
them from the link yaws (lab.papers.guo2015_wheeled.controllers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.core.fields import choice, count, num, vector
from lab.robots.base import Robot, register_robot
from lab.robots.urdf import MassProps, fmt, inertial_xml, material_xml, vec

_R90 = "1.5707963268"


def _disc_y(mass: float, radius: float, width: float) -> MassProps:
    """Solid disc (cylinder) whose axis is y."""
    i_axis = 0.5 * mass * radius**2
    i_diam = mass * (3.0 * radius**2 + width**2) / 12.0
    return MassProps(float(mass), (0.0, 0.0, 0.0), np.diag([i_diam, i_axis, i_diam]))


def _tube_x(mass: float, radius: float, length: float) -> np.ndarray:
    """Thin-walled tube along x about its centre: m r² about the axis, m(r²/2 + L²/12) across."""
    i_perp = mass * (radius**2 / 2.0 + length**2 / 12.0)
    return np.diag([mass * radius**2, i_perp, i_perp])


def _cylinder_z(mass: float, radius: float, height: float) -> np.ndarray:
    """Solid cylinder whose axis is z, about its centre."""
    i_perp = mass * (3.0 * radius**2 + height**2) / 12.0
    return np.diag([i_perp, i_perp, 0.5 * mass * radius**2])


@register_robot("wheeled_snake")
@dataclass(frozen=True)
class WheeledSnakeSpec(Robot):
    """Guo 2015 Table 1 (n = 9, m = 0.5 kg, l = 0.04 m) and J = m l² from the text (§§4.6, 5.2); the
    wheels, tube and housings are ours (the paper gives no hardware): small rubber wheels of 10 g.

    ``mass`` and ``yaw_inertia`` are per module, **wheels included**: the engine module has exactly the
    model's m and J. The wheels' spin inertia is the one mass property the model has no place for: a
    module rolling at speed v stores ½(2·½m_w r²)(v/r)² = ½ m_w v² more than the model's ½ m v², i.e.
    the engine is m_w / m = 2 % heavier along its axis (and no heavier across it).

    ``contact_solver`` and ``contact_residual`` are world settings this robot needs, applied by ``setup``.
    The wheels' lateral forces that hold a near-straight chain form an ill-conditioned problem, and
    Bullet's default solver (sequential impulses) stops once no impulse changes by more than
    √1e-7 ≈ 3e-4 N·s in an iteration — about this robot's whole wheel impulse per step. Measured on
    the seed-000 run (per-joint torque RMS over 36–60 s against the model, worst joint): default
    solver 28 % (1 ms step); sequential impulses with residual 1e-14 and 1000 iterations 8 % (2 ms step); MLCP
    projected Gauss–Seidel 300 / 1000 iterations 17 % / 2.8 % (2 ms), 1000 iterations 3.9 % (5 ms).
    The scenario sets 1000 iterations ([sim] solver_iterations)."""

    n_modules: int = count(9, 2, 100, doc="modules; the URDF lists them from the tail, the paper from the head")
    half_length: float = num(0.04, ge=0.01, le=1, unit="m", doc="l: a module is 2l from joint to joint")
    mass: float = num(0.5, ge=0.01, le=100, unit="kg", doc="m: one module with its two wheels")
    yaw_inertia: float = num(float("nan"), gt=0, le=10, unit="kg·m²",
                             doc="J about the module centre, wheels included (default m l², the paper's text)")
    wheel_radius: float = num(0.02, ge=0.002, le=0.5, unit="m", doc="the axle's height")
    wheel_width: float = num(0.008, ge=0.001, le=0.2, unit="m", doc="disc thickness (inertia and look)")
    wheel_mass: float = num(0.01, ge=1e-4, le=10, unit="kg", doc="each of the two wheels")
    wheel_track: float = num(0.06, ge=0.005, le=1, unit="m", doc="distance between the two wheels' mid-planes")
    body_radius: float = num(0.012, ge=0.001, le=0.5, unit="m",
                             doc="tube and joint housings; less than wheel_radius (the body clears the ground)")
    tube_mass: float = num(0.04, ge=0, le=100, unit="kg",
                           doc="the tube; the rest of the body is in the two joint housings")
    wheel_friction: float = num(0.8, ge=0, le=100, doc="engine Coulomb μ of the wheels (default: rubber on a hard floor)")
    joint_limit: float = num(1.5708, gt=0, le=math.pi, unit="rad", doc="± yaw joint range about zero_shape")
    effort: float = num(1.5, gt=0, le=1000, unit="N·m", doc="joint torque limit")
    max_joint_speed: float = num(10.0, gt=0, le=1000, unit="rad/s", doc="joint speed limit")
    stall_torque: float = num(math.nan, gt=0, le=1000, unit="N·m",
                              doc="each joint motor's stall torque (lab.core.actuators; default: effort)")
    no_load_speed: float = num(math.nan, gt=0, le=1000, unit="rad/s",
                               doc="each joint motor's no-load speed: it cannot drive faster (default: max_joint_speed)")
    contact_solver: Literal["mlcp_pgs", "sequential_impulse"] = choice(
        "mlcp_pgs", doc="the world's contact solver (setup sets it): Bullet's MLCP with projected Gauss–Seidel, "
                        "or its default sequential impulses")
    contact_residual: float = num(1e-14, ge=0, le=1, unit="N²·s²",
                                  doc="the solver stops once no impulse changes by more than √this in an iteration")
    zero_shape: tuple[float, ...] = vector((), length=None, ge=-1.5, le=1.5, unit="rad",
                                           doc="yaw joints' angles (tail first) the URDF is built in: the start "
                                               "shape; padded with zeros")

    def __post_init__(self):
        super().__post_init__()
        if math.isnan(self.stall_torque):
            object.__setattr__(self, "stall_torque", float(self.effort))
        if math.isnan(self.no_load_speed):
            object.__setattr__(self, "no_load_speed", float(self.max_joint_speed))
        if math.isnan(self.yaw_inertia):
            object.__setattr__(self, "yaw_inertia", self.mass * self.half_length**2)
        shape = tuple(float(a) for a in self.zero_shape)
        if len(shape) > self.n_modules - 1:
            raise ValueError(f"zero_shape: at most n_modules − 1 = {self.n_modules - 1} angles, got {len(shape)}")
        object.__setattr__(self, "zero_shape", shape + (0.0,) * (self.n_modules - 1 - len(shape)))
        if self.body_radius >= self.wheel_radius:
            raise ValueError(f"body_radius: must be less than wheel_radius = {self.wheel_radius} m (ground "
                             f"clearance), got {self.body_radius}")
        if self.wheel_track <= self.wheel_width:
            raise ValueError(f"wheel_track: must exceed wheel_width = {self.wheel_width} m, got {self.wheel_track}")
        if self.housing_mass <= 0:
            raise ValueError(f"tube_mass: the two wheels and the tube must leave the housings some of mass = "
                             f"{self.mass} kg, got tube_mass = {self.tube_mass}")
        d2 = self._housing_offset_sq()
        if not 0.0 <= d2 <= (1.5 * self.half_length) ** 2:
            lo, hi = self._yaw_inertia_range()
            raise ValueError(f"yaw_inertia: with these parts it must be in [{lo:.4g}, {hi:.4g}] kg·m² (joint "
                             f"housings between the centre and 1.5 l), got {self.yaw_inertia:.4g}")

    # ---- parts and their mass properties (closed forms) --------------------------------------------
    @property
    def housing_mass(self) -> float:
        """Each of the two joint housings (kg)."""
        return 0.5 * (self.mass - 2.0 * self.wheel_mass - self.tube_mass)

    @property
    def body_mass(self) -> float:
        return self.mass - 2.0 * self.wheel_mass

    def wheel_mass_props(self) -> MassProps:
        return _disc_y(self.wheel_mass, self.wheel_radius, self.wheel_width)

    def _fixed_yaw_parts(self) -> float:
        """Yaw inertia about the module centre of everything but the housings' offset term m_h d²."""
        w = self.wheel_mass_props()
        half_track = 0.5 * self.wheel_track
        wheels = 2.0 * (w.inertia[2, 2] + self.wheel_mass * half_track**2)
        tube = _tube_x(self.tube_mass, self.body_radius, 2.0 * self.half_length)[2, 2]
        housings = 2.0 * _cylinder_z(self.housing_mass, self.body_radius, 2.0 * self.body_radius)[2, 2]
        return wheels + tube + housings

    def _housing_offset_sq(self) -> float:
        return (self.yaw_inertia - self._fixed_yaw_parts()) / (2.0 * self.housing_mass)

    def _yaw_inertia_range(self) -> tuple[float, float]:
        base = self._fixed_yaw_parts()
        return base, base + 2.0 * self.housing_mass * (1.5 * self.half_length) ** 2

    @property
    def housing_offset(self) -> float:
        """d: distance of each housing's centre from the module centre, solved from J (m)."""
        return math.sqrt(self._housing_offset_sq())

    def body_mass_props(self) -> MassProps:
        """The module's body link (tube + housings) about the module centre."""
        d = self.housing_offset
        h = _cylinder_z(self.housing_mass, self.body_radius, 2.0 * self.body_radius)
        I = _tube_x(self.tube_mass, self.body_radius, 2.0 * self.half_length) + 2.0 * h
        I = I + 2.0 * self.housing_mass * d * d * np.diag([0.0, 1.0, 1.0])
        return MassProps(self.body_mass, (0.0, 0.0, 0.0), I)

    def mass_props(self) -> MassProps:
        """The module body link (for the asset README; the wheels are links of their own)."""
        return self.body_mass_props()

    def module_totals(self) -> tuple[float, float]:
        """(m, J): one module's mass and yaw inertia about its centre, body and wheels together, from
        the parts — equal to ``mass`` and ``yaw_inertia`` by construction (tested)."""
        b, w = self.body_mass_props(), self.wheel_mass_props()
        m = b.mass + 2.0 * w.mass
        J = b.inertia[2, 2] + 2.0 * (w.inertia[2, 2] + w.mass * (0.5 * self.wheel_track) ** 2)
        return m, J

    @property
    def rolling_mass_excess(self) -> float:
        """Extra mass a module shows along its axis from its wheels' spin: 2 I_axle / r² (kg)."""
        return 2.0 * self.wheel_mass_props().inertia[1, 1] / self.wheel_radius**2

    # ---- what the World and the lab read -----------------------------------------------------------
    def motors(self) -> dict[str, tuple[float, float]]:
        """Each yaw joint's motor at the joint, (stall torque, no-load speed): the torque–speed line the
        World enforces on every torque it applies (lab.core.actuators). The wheels are passive: no motor."""
        return {f"joint_{j}": (self.stall_torque, self.no_load_speed) for j in range(self.n_modules - 1)}

    @property
    def n_links(self) -> int:
        return 3 * self.n_modules + 1

    @property
    def link_length(self) -> float:
        return 2.0 * self.half_length

    def body_links(self, link_names: tuple[str, ...]) -> tuple[str, ...]:
        """The modules and the head point, tail first (the wheels are not the body's shape)."""
        return tuple(n for n in link_names if not n.startswith("wheel"))

    def actuated_joints(self, joint_names: tuple[str, ...]) -> tuple[str, ...]:
        """The yaw joints (``joint_i``); the wheels spin freely (Guo 2015's passive wheels)."""
        return tuple(n for n in joint_names if n.startswith("joint_"))

    @property
    def head_link(self) -> str:
        """The head point (the paper's (x, y)), whose path the ``head.*`` metrics follow."""
        return "head_tip"

    @property
    def rest_height(self) -> float:
        """Height of the link frames (the axles) on flat ground."""
        return self.wheel_radius

    @property
    def engine_friction(self) -> float:
        """Every link's engine friction: only the wheels have collision shapes."""
        return self.wheel_friction

    def setup(self, world, body: int) -> None:
        """Set the world's contact solver (see the class docstring) and ask the World for the contact
        snapshot: the energy ledger then counts gravity and the wheels' contact forces (the paper's
        ideal wheel does no work; the engine's does a little, through its slip), and it closes."""
        world.set_contact_solver(self.contact_solver, self.contact_residual)
        world.record_contacts = True

    def asset_notes(self) -> list[str]:
        m, J = self.module_totals()
        return [f"- per module, body and wheels: m = {m:.6g} kg, J = {J:.6g} kg·m² about the centre "
                f"(m l² = {self.mass * self.half_length**2:.6g})",
                f"- joint housings {self.housing_mass:.6g} kg each at d = {self.housing_offset * 1e3:.4g} mm from the "
                f"centre (l = {self.half_length * 1e3:.4g} mm), solved from J",
                f"- wheel: {self.wheel_mass:.6g} kg, spin inertia {self.wheel_mass_props().inertia[1, 1]:.6g} kg·m²; "
                f"rolling adds {self.rolling_mass_excess:.6g} kg along the module's axis",
                "- links (engine order): link_0 (tail, base), its two wheels, link_1, …, link_{n−1} (head), its "
                "wheels, head_tip (massless, the head point)", ""]

    # ---- URDF ---------------------------------------------------------------------------------------
    def to_urdf(self) -> str:
        n, l = self.n_modules, self.half_length
        rb, rw, bw = self.body_radius, self.wheel_radius, self.wheel_width
        d = self.housing_offset
        half_track = 0.5 * self.wheel_track
        body, wheel = self.body_mass_props(), self.wheel_mass_props()
        out = ['<?xml version="1.0"?>\n<robot name="wheeled_snake">\n',
               material_xml("body", (0.85, 0.55, 0.15, 1.0)), material_xml("head", (0.75, 0.15, 0.10, 1.0)),
               material_xml("housing", (0.30, 0.32, 0.36, 1.0)), material_xml("tyre", (0.08, 0.08, 0.08, 1.0)),
               material_xml("axle", (0.7, 0.72, 0.75, 1.0))]
        links, joints = [], []
        for i in range(n):
            x0 = 0.0 if i == 0 else l  # the module centre in its link frame (children: frame at the rear joint)
            mat = "head" if i == n - 1 else "body"
            vis = (f'    <visual><origin xyz="{fmt(x0)} 0 0" rpy="0 {_R90} 0"/><geometry><cylinder radius="{fmt(rb)}" '
                   f'length="{fmt(2 * l - 2 * rb)}"/></geometry><material name="{mat}"/></visual>\n')
            for s in (-1.0, 1.0):
                vis += (f'    <visual><origin xyz="{fmt(x0 + s * d)} 0 0"/><geometry><cylinder radius="{fmt(rb)}" '
                        f'length="{fmt(2 * rb)}"/></geometry><material name="housing"/></visual>\n')
            vis += (f'    <visual><origin xyz="{fmt(x0)} 0 0" rpy="{_R90} 0 0"/><geometry><cylinder '
                    f'radius="{fmt(0.15 * rb)}" length="{fmt(self.wheel_track)}"/></geometry>'
                    '<material name="axle"/></visual>\n')
            links.append(f'  <link name="link_{i}">\n'
                         + inertial_xml(MassProps(body.mass, (x0, 0.0, 0.0), body.inertia)) + vis + "  </link>\n")
            for side, y in (("left", half_track), ("right", -half_track)):
                name = f"wheel_{i}_{side}"
                links.append(f'  <link name="{name}">\n' + inertial_xml(wheel)
                             + f'    <visual><origin rpy="{_R90} 0 0"/><geometry><cylinder radius="{fmt(rw)}" '
                             f'length="{fmt(bw)}"/></geometry><material name="tyre"/></visual>\n'
                             + f'    <collision><geometry><sphere radius="{fmt(rw)}"/></geometry></collision>\n'
                             + "  </link>\n")
                joints.append(f'  <joint name="wheel_joint_{i}_{side}" type="continuous">\n'
                              f'    <parent link="link_{i}"/>\n    <child link="{name}"/>\n'
                              f'    <origin xyz="{fmt(x0)} {fmt(y)} 0" rpy="0 0 0"/>\n    <axis xyz="0 1 0"/>\n'
                              '    <dynamics damping="0" friction="0"/>\n  </joint>\n')
            if i < n - 1:  # after this module's wheels: PyBullet numbers links depth-first in joint order
                joints.append(f'  <joint name="joint_{i}" type="revolute">\n'
                              f'    <parent link="link_{i}"/>\n    <child link="link_{i + 1}"/>\n'
                              f'    <origin xyz="{fmt(x0 + l)} 0 0" rpy="0 0 {fmt(self.zero_shape[i])}"/>\n'
                              '    <axis xyz="0 0 1"/>\n'
                              f'    <limit lower="{fmt(-self.joint_limit)}" upper="{fmt(self.joint_limit)}" '
                              f'effort="{fmt(self.effort)}" velocity="{fmt(self.max_joint_speed)}"/>\n'
                              '    <dynamics damping="0" friction="0"/>\n  </joint>\n')
        links.append('  <link name="head_tip">\n' + inertial_xml(MassProps(0.0, (0.0, 0.0, 0.0), np.zeros((3, 3))))
                     + "  </link>\n")
        joints.append('  <joint name="head_tip_joint" type="fixed">\n'
                      f'    <parent link="link_{n - 1}"/>\n    <child link="head_tip"/>\n'
                      f'    <origin xyz="{fmt(2 * l)} 0 0" rpy="0 0 0"/>\n  </joint>\n')
        return "".join(out + links + joints) + "</robot>\n"


@dataclass(frozen=True)
class Layout:
    """Where the modules, wheels and joints of a loaded wheeled snake sit in the engine's arrays
    (found by name in a :class:`~lab.core.state.ModelInfo`): ``modules`` (n,) link indices tail → head,
    ``wheels`` (n, 2) left/right link indices, ``yaw_joints`` (n−1,) indices into q, tail first,
    ``tip`` the head_tip link."""

    modules: np.ndarray
    wheels: np.ndarray
    yaw_joints: np.ndarray
    tip: int

    @classmethod
    def default(cls, n: int) -> "Layout":
        """The engine's order for n modules (the module docstring): link 3i is module i, 3i+1 and 3i+2 its
        left and right wheels, 3n the head tip; movable joint 3j+2 is yaw joint j (tested against the
        engine)."""
        i = np.arange(n)
        return cls(3 * i, np.stack([3 * i + 1, 3 * i + 2], axis=1), 3 * np.arange(n - 1) + 2, 3 * n)

    @classmethod
    def of(cls, model) -> "Layout":
        names = model.link_names
        n = sum(1 for s in names if s.startswith("link_"))
        modules = np.array([names.index(f"link_{i}") for i in range(n)])
        wheels = np.array([[names.index(f"wheel_{i}_{s}") for s in ("left", "right")] for i in range(n)])
        yaw = np.array([model.joint_names.index(f"joint_{j}") for j in range(n - 1)])
        return cls(modules, wheels, yaw, names.index("head_tip"))


def lateral_slip(state, layout: Layout) -> np.ndarray:
    """(n,) lateral velocity (m/s) of each module's centre — the axle's midpoint, where the paper's wheel
    is — along the module's y axis: eq. 1's n_i · Ċ_i, zero for the paper's ideal wheel. The wheels' own
    contact points add only r × the module's roll rate (measured: the same RMS to four digits)."""
    m = layout.modules
    return np.einsum("nk,nk->n", state.v_W[m], state.R_WB[m][:, :, 1])


__all__ = ["Layout", "WheeledSnakeSpec", "lateral_slip"]
