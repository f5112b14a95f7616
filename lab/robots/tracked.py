"""Tracked wheel-manipulator robot of Hu 2013 (seed 004): a triangular track body, an arm with a
passive steel guide wheel, one motor driving both through a planetary differential.

Frames (URDF): the base link is the body, origin at its centre (= its COM), x forward, y left, z up,
resting on its base face (pulley centres F = (l/2, −a), R = (−l/2, −a), T = (0, 2a) in x–z, a =
l/(2√3)). ``arm`` turns about −y at the centre (positive = tip down; 0 = pointing straight back);
the screw model's θ is ``arm − 30°`` (its θ = 0 is perpendicular to the front face). The arm turns
freely about the body (the planetary's output has no stop; over a flight of stairs it winds on by
120° a step): the climb controller limits its travel per climb. ``guide`` is the passive wheel at
the arm's tip. ``drive`` is the track's single drive joint; the ``roller_i`` are
geared to it.

The track. No stock PyBullet feature moves a contact surface along a body, so the belt is a dense
row of driven rollers: cylinders of the pulley radius r, centred on the pulley-centre triangle
(corners included), so their union is exactly the belt's rounded-triangle envelope up to a ripple
of ρ − √(ρ² − s²/4) ≈ s²/(8r) between two rollers s apart (0.78 mm at s = r/2, 0.5 mm at s = 10 mm).
Every roller turns at the drive's rate (JOINT_GEAR constraints to the drive link, made in
``setup``), so a roller's surface moves like the belt at v = r·ψ̇; the belt force is Σ τ_i / r_i = the
drive torque / r when the rollers' own inertia is negligible. A roller in contact grips the ground
or the step edge with the engine's Coulomb friction (``track_friction``). Rollers are light
(``roller_mass`` each): they stand for the belt's surface, not for the pulleys' mass, which is in the
base. Self-collision is off (PyBullet's default), so the arm may swing through the body's plane.

Masses and inertias come from trimesh meshes (body: a prism of the rounded-triangle section, width
``width``; arm: a box beam; guide wheel and rollers: cylinders), never typed by hand.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..fields import Validated, count, num, vector
from .urdf import MassProps, fmt, inertial_xml, material_xml, mesh_mass_props, vec

STEEL = 7850.0


@functools.lru_cache(maxsize=64)
def _prism_mesh(l: float, r: float, width: float, n_arc: int = 24):
    """Closed trimesh of the rounded-triangle prism in URDF axes (section in x–z, extruded along y)."""
    import trimesh

    a = l / (2 * math.sqrt(3))
    C = [(0.0, 2 * a), (-l / 2, -a), (l / 2, -a)]  # T, R, F counter-clockwise in (x, z)
    pts = []
    for k, (cx, cz) in enumerate(C):
        # outward normals: T's arc from 30° to 150°, R's from 150° to 270°, F's from 270° to 390°
        a0 = math.radians(30 + 120 * k)
        for u in np.linspace(a0, a0 + math.radians(120), n_arc):
            pts.append((cx + r * math.cos(u), cz + r * math.sin(u)))
    P = np.array(pts)
    n = len(P)
    h = width / 2
    V = np.vstack([np.c_[P[:, 0], np.full(n, -h), P[:, 1]], np.c_[P[:, 0], np.full(n, h), P[:, 1]],
                   [[0.0, -h, 0.0], [0.0, h, 0.0]]])
    F = []
    c0, c1 = 2 * n, 2 * n + 1
    for i in range(n):
        j = (i + 1) % n
        F += [[i, j, n + j], [i, n + j, n + i], [c0, j, i], [c1, n + i, n + j]]
    m = trimesh.Trimesh(V, np.array(F), process=True)
    trimesh.repair.fix_normals(m)
    return m


def _cylinder_y(mass: float, radius: float, length: float) -> MassProps:
    import trimesh

    m = trimesh.creation.cylinder(radius=radius, height=length, sections=64)
    m.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [1, 0, 0]))  # axis z → y
    return mesh_mass_props(m, mass)


def _box(mass: float, size) -> MassProps:
    import trimesh

    return mesh_mass_props(trimesh.creation.box(extents=size), mass)


@dataclass(frozen=True)
class TrackedSpec(Validated):
    """Table 1 of Hu 2013 plus what the paper leaves open (marked).

    body_mass 5 kg is the whole body (frame + rollers); arm_mass 1.2 kg is beam + guide wheel.
    """

    track_side: float = num(0.22, ge=0.05, le=1, unit="m", doc="l, pulley-centre distance")
    pulley_radius: float = num(0.025, ge=0.005, lt=0.5, unit="m", doc="r, less than track_side/2")
    width: float = num(0.20, ge=0.02, le=1, unit="m", doc="track width (not in the paper)")
    body_mass: float = num(5.0, ge=0.1, le=200, unit="kg", doc="the whole body, frame and rollers")
    arm_length: float = num(0.30, ge=0.05, le=1, unit="m", doc="l_a, pivot to guide-wheel centre")
    arm_mass: float = num(1.2, ge=0.05, le=50, unit="kg", doc="beam and guide wheel")
    arm_section: tuple[float, float] = vector((0.012, 0.03), length=2, ge=0.002, le=0.2, unit="m", noun="sizes",
                                           doc="beam width (y) and height (not in the paper)")
    guide_radius: float = num(0.03, ge=0.005, le=0.2, unit="m", doc="r_d")
    guide_width: float = num(0.012, ge=0.002, le=0.1, unit="m",
                             doc="steel disc thickness (not in the paper): 0.27 kg of the arm")
    rollers_per_side: int = count(18, 2, 200, doc="spacing l/18 = 12.2 mm ≤ r/2 (ripple 0.75 mm)")
    roller_mass: float = num(0.003, ge=1e-4, le=1, unit="kg", doc="each; all together at most half the body")
    track_friction: float = num(0.8, ge=0, le=3, doc="engine Coulomb μ, rubber on concrete/wood (not in the paper)")
    guide_friction: float = num(0.5, ge=0, le=3, doc="steel wheel (lateral grip; it rolls freely along its plane)")
    drive_inertia: float = num(2e-4, ge=1e-7, le=10, unit="kg·m²", doc="drive link about its axis: the belt's inertia")
    # motor and gearing, Table 1
    motor_torque_max: float = num(18.8e-3, gt=0, unit="N·m", doc="motor torque limit (Table 1)")
    motor_speed_rpm: float = num(3600.0, gt=0, unit="rpm", doc="rated motor speed (Table 1)")
    i0: float = num(144.0, gt=0, doc="gear ratio (Table 1)")
    i1: float = num(5.0, gt=0, doc="gear ratio (Table 1)")
    i2: float = num(3.0 / 8.0, gt=0, doc="planetary ratio (Table 1)")

    def __post_init__(self):
        super().__post_init__()
        if self.pulley_radius >= self.track_side / 2:
            raise ValueError(f"pulley_radius: must be in [0.005 m, track_side/2), got {self.pulley_radius}")
        if self.guide_mass >= self.arm_mass:
            raise ValueError("guide_width: the steel guide wheel alone outweighs the arm")
        if self.n_rollers * self.roller_mass >= 0.5 * self.body_mass:
            raise ValueError("roller_mass: the rollers may carry at most half the body's mass")

    # ---- derived ------------------------------------------------------------------------
    @property
    def inradius(self) -> float:
        return self.track_side / (2 * math.sqrt(3))

    @property
    def n_rollers(self) -> int:
        return 3 * self.rollers_per_side

    @property
    def roller_spacing(self) -> float:
        return self.track_side / self.rollers_per_side

    @property
    def ripple(self) -> float:
        """Depth of the envelope's dip between two rollers (m)."""
        r, s = self.pulley_radius, self.roller_spacing
        return r - math.sqrt(r * r - s * s / 4)

    @property
    def guide_mass(self) -> float:
        return STEEL * math.pi * self.guide_radius**2 * self.guide_width

    @property
    def n_links(self) -> int:
        return 1 + 1 + 1 + 1 + self.n_rollers  # base, drive, arm, guide, rollers

    @property
    def link_length(self) -> float:
        return self.track_side + 2 * self.pulley_radius

    @property
    def effort(self) -> float:
        """The largest joint torque the drive can produce: the arm's share at the motor's maximum."""
        return self.motor_torque_max * self.i0 * self.i1

    @property
    def rest_height(self) -> float:
        """Height of the body centre when it rests on its base face: a + r (= the model's l_z)."""
        return self.inradius + self.pulley_radius

    @property
    def engine_friction(self) -> float:
        return self.track_friction

    def pulley_centres(self) -> np.ndarray:
        """(3, 2) pulley centres (x, z): front-bottom F, top T, rear-bottom R."""
        a, l = self.inradius, self.track_side
        return np.array([[l / 2, -a], [0.0, 2 * a], [-l / 2, -a]])

    def roller_positions(self) -> np.ndarray:
        """(n, 2) roller centres (x, z) along the pulley-centre triangle, corners included once, run
        F → T → R → F (the belt's forward run on the ground is R → F)."""
        F, T, R = self.pulley_centres()
        n = self.rollers_per_side
        out = []
        for P0, P1 in ((F, T), (T, R), (R, F)):
            for k in range(n):
                out.append(P0 + (P1 - P0) * k / n)
        return np.array(out)

    def body_mesh(self):
        return _prism_mesh(self.track_side, self.pulley_radius, self.width)

    def base_mass_props(self) -> MassProps:
        return mesh_mass_props(self.body_mesh(), self.body_mass - self.n_rollers * self.roller_mass)

    def roller_mass_props(self) -> MassProps:
        return _cylinder_y(self.roller_mass, self.pulley_radius, self.width)

    def beam_mass(self) -> float:
        return self.arm_mass - self.guide_mass

    def arm_mass_props(self) -> MassProps:
        """The beam from the pivot to the wheel centre, along −x (frame at the pivot)."""
        w, hgt = self.arm_section
        mp = _box(self.beam_mass(), (self.arm_length, w, hgt))
        return MassProps(mp.mass, (-self.arm_length / 2, 0.0, 0.0), mp.inertia)

    def guide_mass_props(self) -> MassProps:
        return _cylinder_y(self.guide_mass, self.guide_radius, self.guide_width)

    def mass_props(self) -> MassProps:
        """The body (base link), for the asset README."""
        return self.base_mass_props()

    def body_mass_props_total(self) -> tuple[float, np.ndarray]:
        """Mass and inertia about the centre (URDF axes) of base + rollers: what the screw model's
        body is. Roller spin inertia counted as if fixed (it is geared to the drive)."""
        mb = self.base_mass_props()
        I = np.array(mb.inertia, float).copy()
        mr = self.roller_mass_props()
        for x, z in self.roller_positions():
            d = np.array([x, 0.0, z])
            I += np.asarray(mr.inertia) + mr.mass * (d @ d * np.eye(3) - np.outer(d, d))
        return mb.mass + self.n_rollers * mr.mass, I

    def climb_params(self):
        """The screw model's parameters for this robot (lab.models.tracked_climb.ClimbParams)."""
        from ..models.tracked_climb import ClimbParams

        return ClimbParams(m_body=self.body_mass, m_arm=self.arm_mass, track_side=self.track_side,
                           pulley_radius=self.pulley_radius, guide_radius=self.guide_radius,
                           arm_length=self.arm_length, motor_torque_max=self.motor_torque_max,
                           motor_speed_rpm=self.motor_speed_rpm, i0=self.i0, i1=self.i1, i2=self.i2,
                           body_width=self.width, guide_width=self.guide_width)

    # ---- URDF ---------------------------------------------------------------------------
    def to_urdf(self) -> str:
        r, W = self.pulley_radius, self.width
        a = self.inradius
        out = ['<?xml version="1.0"?>\n<robot name="tracked">\n',
               material_xml("frame", (0.30, 0.33, 0.38, 1.0)), material_xml("belt", (0.08, 0.08, 0.08, 1.0)),
               material_xml("arm", (0.85, 0.55, 0.15, 1.0)), material_xml("steel", (0.7, 0.72, 0.75, 1.0)),
               material_xml("mark", (0.9, 0.9, 0.9, 1.0))]
        # base: visual = three side bars of the frame + a central block; no collision (the rollers are the belt)
        vis = []
        P = self.pulley_centres()
        for P0, P1 in ((P[0], P[1]), (P[1], P[2]), (P[2], P[0])):
            mid = (P0 + P1) / 2
            d = P1 - P0
            ang = math.atan2(d[1], d[0])
            vis.append(f'    <visual><origin xyz="{fmt(mid[0])} 0 {fmt(mid[1])}" rpy="0 {fmt(-ang)} 0"/>'
                       f'<geometry><box size="{fmt(np.hypot(*d))} {fmt(W * 1.02)} {fmt(0.5 * r)}"/></geometry>'
                       '<material name="frame"/></visual>\n')
        vis.append(f'    <visual><origin xyz="0 0 0"/><geometry><box size="{fmt(1.2 * a)} {fmt(W * 1.04)} '
                   f'{fmt(1.2 * a)}"/></geometry><material name="frame"/></visual>\n')
        out.append('  <link name="body">\n' + inertial_xml(self.base_mass_props()) + "".join(vis) + "  </link>\n")
        # drive link (the belt's single DOF): a small marker disc, no collision
        J = self.drive_inertia
        out.append('  <link name="drive">\n'
                   + inertial_xml(MassProps(0.01, (0.0, 0.0, 0.0), np.diag([J, J, J])))
                   + f'    <visual><origin rpy="1.5707963268 0 0"/><geometry><cylinder radius="{fmt(0.4 * a)}" '
                   f'length="{fmt(W * 1.06)}"/></geometry><material name="mark"/></visual>\n  </link>\n')
        out.append(_joint("drive_joint", "continuous", "body", "drive", (0, 0, 0), (0, 1, 0)))
        # arm and guide wheel
        la = self.arm_length
        w, hgt = self.arm_section
        out.append('  <link name="arm">\n' + inertial_xml(self.arm_mass_props())
                   + f'    <visual><origin xyz="{fmt(-la / 2)} 0 0"/><geometry><box size="{vec((la, w, hgt))}"/>'
                   '</geometry><material name="arm"/></visual>\n'
                   + f'    <collision><origin xyz="{fmt(-la / 2 + self.guide_radius / 2)} 0 0"/><geometry>'
                   f'<box size="{vec((la - self.guide_radius, w, hgt))}"/></geometry></collision>\n  </link>\n')
        out.append(_joint("arm_joint", "continuous", "body", "arm", (0, 0, 0), (0, -1, 0)))
        cyl = (f'<geometry><cylinder radius="{fmt(self.guide_radius)}" length="{fmt(self.guide_width)}"/>'
               '</geometry>')
        out.append('  <link name="guide">\n' + inertial_xml(self.guide_mass_props())
                   + f'    <visual><origin rpy="1.5707963268 0 0"/>{cyl}<material name="steel"/></visual>\n'
                   + f'    <collision><origin rpy="1.5707963268 0 0"/>{cyl}</collision>\n  </link>\n')
        out.append(_joint("guide_joint", "continuous", "arm", "guide", (-la, 0, 0), (0, 1, 0)))
        # rollers
        rm = self.roller_mass_props()
        cylr = f'<geometry><cylinder radius="{fmt(r)}" length="{fmt(W)}"/></geometry>'
        for i, (x, z) in enumerate(self.roller_positions()):
            out.append(f'  <link name="roller_{i}">\n' + inertial_xml(rm)
                       + f'    <visual><origin rpy="1.5707963268 0 0"/>{cylr}<material name="belt"/></visual>\n'
                       + f'    <collision><origin rpy="1.5707963268 0 0"/>{cylr}</collision>\n  </link>\n')
            out.append(_joint(f"roller_joint_{i}", "continuous", "body", f"roller_{i}", (x, 0, z), (0, 1, 0)))
        out.append("</robot>\n")
        return "".join(out)

    # ---- engine-side extras -------------------------------------------------------------------
    def setup(self, world, body: int) -> None:
        """Gear every roller to the drive joint (1:1, same sense), give the rollers the track's
        friction and the guide wheel its own, and ask the World for the contact points."""
        from ..engine import pb

        c = world.client
        names = {c.getJointInfo(body, j)[12].decode(): j for j in range(c.getNumJoints(body))}
        drive = names["drive"]
        for i in range(self.n_rollers):
            link = names[f"roller_{i}"]
            cid = c.createConstraint(body, drive, body, link, jointType=pb.JOINT_GEAR, jointAxis=[0, 1, 0],
                                     parentFramePosition=[0, 0, 0], childFramePosition=[0, 0, 0])
            c.changeConstraint(cid, gearRatio=-1.0, maxForce=1e4, erp=0.2)
            c.changeDynamics(body, link, lateralFriction=self.track_friction, rollingFriction=0.0,
                             spinningFriction=0.0)
        c.changeDynamics(body, names["guide"], lateralFriction=self.guide_friction, rollingFriction=0.0,
                         spinningFriction=0.0)
        c.changeDynamics(body, names["arm"], lateralFriction=0.3)
        world.record_contacts = True  # the climb's support triangle and edge forces come from the contacts


def _joint(name, kind, parent, child, xyz, axis, limit=None) -> str:
    lim = ""
    if limit is not None:
        lim = (f'    <limit lower="{fmt(limit[0])}" upper="{fmt(limit[1])}" effort="{fmt(limit[2])}" '
               f'velocity="{fmt(limit[3])}"/>\n')
    return (f'  <joint name="{name}" type="{kind}">\n    <parent link="{parent}"/>\n    <child link="{child}"/>\n'
            f'    <origin xyz="{vec(xyz)}" rpy="0 0 0"/>\n    <axis xyz="{vec(axis)}"/>\n{lim}'
            '    <dynamics damping="0" friction="0"/>\n  </joint>\n')


__all__ = ["TrackedSpec"]
