"""Tracked wheel-manipulator robot of Hu 2013: a triangular track body, an arm with a
passive steel guide wheel, one motor driving both through a planetary differential.

Frames (URDF): the base link is the body, origin at its centre (= its COM), x forward, y left, z up,
resting on its base face (pulley centres F = (l/2, −a), R = (−l/2, −a), T = (0, 2a) in x–z, a =
l/(2√3)). ``arm`` turns about −y at the centre (positive = tip down; 0 = pointing straight back);
the screw model's θ is ``arm − 30°`` (its θ = 0 is perpendicular to the front face). The arm turns
freely about the body (the planetary's output has no stop; over a flight of stairs it winds on by
120° a step): the climb controller limits its travel per climb. ``guide`` is the passive wheel at
the arm's tip. ``drive`` is the track's single drive joint (rate ψ̇, belt speed v = r·ψ̇).

The belt: three corner pulleys and three face "conveyor slabs". No stock PyBullet feature moves a
contact surface along a body (Bullet's conveyor callback is C++ only), so each straight run of the
belt is a box the length of its face (``belt_slab_i``, i = 0: F→T, 1: T→R, 2: R→F) on a prismatic
joint along the face, geared to the drive (q̇ = r·ψ̇), whose joint position is reset to 0 after
every engine step with its velocity kept (:meth:`TrackedSpec.after_step`, called by the World): the
slab never moves away from its face, yet Bullet's own implicit Coulomb contact sees its surface
moving at the belt speed. The corner pulleys (``belt_pulley_F/T/R``) are cylinders of the pulley
radius, geared 1:1 to the drive; their collision radius is r − Bullet's ~1 mm convex margin
(:data:`COLLISION_MARGIN`, measured: a cylinder of radius r rests 0.99 mm high and rolls as r + 1 mm),
so that they roll as r. Six gear constraints on heavy links converge where the 54 light rollers of
the old belt did not (it slid down 20° at μ = 0.8 with the belt locked). Positive ψ̇ moves the belt
surface along ŷ × n (n the outward normal): backwards on the ground run, so the robot drives
forward.

Belt force and power: the drive joint carries the belt; its torque over r is the belt force (less
the belt's own inertia), and its τ·ψ̇ is the power the lab's ledger books. The slabs' reset is a
teleport back along their face by q̇·dt: it keeps their velocity (kinetic energy), and since the three
faces are equal and close a triangle, the gravity work of the three slabs' belt motion sums to zero.

Masses and inertias come from trimesh meshes (body: a prism of the rounded-triangle section, width
``width``; arm: a box beam; guide wheel and pulleys: cylinders; slabs: boxes), never typed by hand.
``body_mass`` is the whole body: frame + pulleys + belt.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from lab.core.fields import info, num, vector
from lab.robots.base import Robot, register_robot
from lab.robots.urdf import MassProps, fmt, inertial_xml, material_xml, mesh_mass_props, vec

STEEL = 7850.0
COLLISION_MARGIN = 0.001  # m: Bullet's margin on convex hulls (URDF cylinders), measured: rest height r + 0.99 mm
FACES = ((0, 1), (1, 2), (2, 0))  # belt runs between pulley centres: F→T, T→R, R→F
PULLEYS = ("F", "T", "R")


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


class _SlabReset:
    """Per-world state of the conveyor slabs: joint ids, gear constraints and their position targets.

    After every engine step each slab goes back to q = 0 with its velocity kept, and its gear's
    position target moves by the same amount (the gear's error term ψ − q/r − target is unchanged),
    so the gear's position correction (erp) still holds the slab's mean speed at r ψ̇ exactly (without
    it, erp 0, the iteratively solved gear let the slab lag the drive by 1.5 %)."""

    def __init__(self, world, body: int, joints: list[int], constraints: list[int], radius: float):
        self.body, self.joints, self.constraints = body, joints, constraints
        self.inv_r = 1.0 / radius
        self.target = [0.0] * len(joints)
        self._states, self._reset, self._change = world.fast_calls()
        self._zeros = [[0.0]] * len(joints)
        # the per-step calls bound to these joints with every argument positional (World.joint_calls)
        self._states_now, self._reset_now = world.joint_calls(body, joints)

    def snapshot(self) -> tuple:
        """The gear targets (World.save_state: Bullet's saveState does not hold constraint settings)."""
        return tuple(self.target)

    def restore(self, target: tuple) -> None:
        """Back to a :meth:`snapshot`: the targets, and the gears set to them (else, after a rewind, each
        gear would pull its slab by the whole travel since the snapshot: a runaway)."""
        self.target = list(target)
        for cid, tg in zip(self.constraints, self.target):
            self._change(cid, relativePositionTarget=tg)

    def __call__(self) -> None:
        change, tg, inv_r = self._change, self.target, self.inv_r
        states = self._states_now()
        self._reset_now(self._zeros, [[s[1]] for s in states])
        k = 0
        for s, con in zip(states, self.constraints):
            tg[k] += s[0] * inv_r
            change(con, relativePositionTarget=tg[k])
            k += 1


@register_robot("tracked")
@dataclass(frozen=True)
class TrackedSpec(Robot):
    """Table 1 of Hu 2013 plus what the paper leaves open (marked).

    body_mass 5 kg is the whole body (frame, pulleys, belt); arm_mass 1.2 kg is beam + guide wheel.
    """

    track_side: float = num(0.22, ge=0.05, le=1, unit="m", doc="l, pulley-centre distance")
    pulley_radius: float = num(0.025, ge=0.005, lt=0.5, unit="m", doc="r, less than track_side/2")
    width: float = num(0.20, ge=0.02, le=1, unit="m", doc="track width (not in the paper)")
    body_mass: float = num(5.0, ge=0.1, le=200, unit="kg", doc="the whole body: frame, pulleys and belt")
    arm_length: float = num(0.30, ge=0.05, le=1, unit="m", doc="l_a, pivot to guide-wheel centre")
    arm_mass: float = num(1.2, ge=0.05, le=50, unit="kg", doc="beam and guide wheel")
    arm_section: tuple[float, float] = vector((0.012, 0.03), length=2, ge=0.002, le=0.2, unit="m", noun="sizes",
                                           doc="beam width (y) and height (not in the paper)")
    guide_radius: float = num(0.03, ge=0.005, le=0.2, unit="m", doc="r_d")
    guide_width: float = num(0.012, ge=0.002, le=0.1, unit="m",
                             doc="steel disc thickness (not in the paper): 0.27 kg of the arm")
    belt_mass: float = num(0.5, ge=0.01, le=50, unit="kg",
                           doc="rubber belt, 0.82 m × 0.2 m × 2.5 mm at 1200 kg/m³ (not in the paper)")
    pulley_mass: float = num(0.15, ge=0.005, le=50, unit="kg",
                             doc="each of the three: an aluminium rim and hub (not in the paper)")
    track_friction: float = num(0.8, ge=0, le=3, doc="engine Coulomb μ, rubber on concrete/wood (not in the paper)")
    guide_friction: float = num(0.5, ge=0, le=3, doc="steel wheel (lateral grip; it rolls freely along its plane)")
    drive_inertia: float = num(2e-5, ge=1e-7, le=10, unit="kg·m²",
                               doc="drive link about its axis (the belt's and pulleys' inertia are their links')")
    # cleats (grousers) on the belt, acting at the arena's convex edges (lab.forces.cleats)
    cleats: bool = info(True, doc="cleats on the belt (false: a smooth belt)")
    cleat_height: float = num(0.006, gt=0, le=0.05, unit="m", doc="h_c (see lab.forces.cleats for the source)")
    cleat_pitch: float = num(0.03, gt=0, le=0.5, unit="m", doc="p, cleat spacing along the belt")
    cleat_capacity: float = num(300.0, gt=0, le=1e5, unit="N", doc="shear load at which a cleat skips over a corner")
    # motor and gearing, Table 1
    motor_torque_max: float = num(18.8e-3, gt=0, unit="N·m", doc="motor torque limit (Table 1)")
    motor_speed_rpm: float = num(3600.0, gt=0, unit="rpm", doc="rated motor speed (Table 1)")
    i0: float = num(144.0, gt=0, doc="gear ratio (Table 1)")
    i1: float = num(5.0, gt=0, doc="gear ratio (Table 1)")
    i2: float = num(3.0 / 8.0, gt=0, doc="planetary ratio (Table 1)")
    motor_speed_line: bool = info(
        False, doc="enforce the motor's torque–speed line at the arm and drive outputs, with motor_speed_rpm as its "
                   "no-load speed (lab.core.actuators); false: the torque limit alone (the independent-servo climb at "
                   "θ̇ = 0.5 rad/s needs it: Table 1's line gives the arm 0.52 rad/s no-load speed)")

    def __post_init__(self):
        super().__post_init__()
        if self.pulley_radius >= self.track_side / 2:
            raise ValueError(f"pulley_radius: must be in [0.005 m, track_side/2), got {self.pulley_radius}")
        if self.guide_mass >= self.arm_mass:
            raise ValueError("guide_width: the steel guide wheel alone outweighs the arm")
        if self.belt_mass + 3 * self.pulley_mass >= 0.8 * self.body_mass:
            raise ValueError("belt_mass: belt and pulleys may carry at most 80 % of the body's mass")
        if self.cleat_pitch <= 2 * self.cleat_height * 0.2:
            raise ValueError("cleat_pitch: must exceed 0.4 cleat_height (a gap between cleats)")

    # ---- derived ------------------------------------------------------------------------
    @property
    def inradius(self) -> float:
        return self.track_side / (2 * math.sqrt(3))

    @property
    def belt_length(self) -> float:
        return 3 * self.track_side + 2 * math.pi * self.pulley_radius

    @property
    def slab_mass(self) -> float:
        """Each face's straight run of belt."""
        return self.belt_mass * self.track_side / self.belt_length

    @property
    def slab_thickness(self) -> float:
        return self.pulley_radius

    @property
    def pulley_link_mass(self) -> float:
        """A pulley with the belt wrapped round it (a third of the belt's arcs)."""
        return self.pulley_mass + self.belt_mass * (2 * math.pi * self.pulley_radius / 3) / self.belt_length

    @property
    def collision_radius(self) -> float:
        return self.pulley_radius - COLLISION_MARGIN

    @property
    def cleat_angle(self) -> float:
        """atan(2 h_c / p): the lean from both faces of a corner beyond which it sits between two cleats."""
        return math.atan(2 * self.cleat_height / self.cleat_pitch)

    @property
    def guide_mass(self) -> float:
        return STEEL * math.pi * self.guide_radius**2 * self.guide_width

    @property
    def n_links(self) -> int:
        return 1 + 1 + 1 + 1 + 6  # base, drive, arm, guide, 3 pulleys, 3 slabs

    @property
    def link_length(self) -> float:
        return self.track_side + 2 * self.pulley_radius

    def body_links(self, link_names: tuple[str, ...]) -> tuple[str, ...]:
        return ("body",)

    def actuated_joints(self, joint_names: tuple[str, ...]) -> tuple[str, ...]:
        """The track's drive and the arm (the guide wheel, pulleys and slabs follow them)."""
        return tuple(n for n in joint_names if n in ("drive_joint", "arm_joint"))

    def views(self) -> tuple:
        """Side view (x–z) of the body, the arm tip and the arena's profile; pitch and arm angle over time."""
        from lab.analysis.plots import PITCH_ARM_VIEW, SIDE_VIEW

        return (SIDE_VIEW, PITCH_ARM_VIEW)

    @property
    def head_link(self) -> None:
        """No head: a body with an arm, not a chain (so no ``head.*`` metrics)."""
        return None

    @property
    def effort(self) -> float:
        """The largest joint torque the drive can produce: the arm's share at the motor's maximum."""
        return self.motor_torque_max * self.i0 * self.i1

    def motors(self) -> dict[str, tuple[float, float]]:
        """The one motor seen at its two outputs (Hu 2013 §1.1, Table 1), (stall torque, no-load speed)
        each: the arm through i0 i1, the drive through i0 i1 i2 (the planetary's outputs, as the climb
        controller's DriveLimits). The no-load speed is Table 1's motor speed through the same ratio
        when ``motor_speed_line`` is set, else none (inf). Each output gets the motor's whole line, as
        if it alone turned; the differential's sharing of one motor between both is the climb
        controller's (its 'differential' mode). Wheels, pulleys and the belt are passive.

        The drive's third value is the belt's inertia reflected to it (drive link, three pulleys about
        their axes, three slabs' m r²), which the engine's mass matrix does not see (the gears are
        constraints): the motors' one-step cap divides by it (lab.core.actuators)."""
        w_m = self.motor_speed_rpm * 2.0 * math.pi / 60.0 if self.motor_speed_line else math.inf
        arm, drive = self.i0 * self.i1, self.i0 * self.i1 * self.i2
        belt = (self.drive_inertia + 3 * float(self.pulley_mass_props().inertia[1, 1])
                + 3 * self.slab_mass * self.pulley_radius**2)
        return {"arm_joint": (arm * self.motor_torque_max, w_m / arm),
                "drive_joint": (drive * self.motor_torque_max, w_m / drive, belt)}

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

    def faces(self):
        """Per face i (F→T, T→R, R→F): (midpoint (x, z), outward normal n, belt direction t = ŷ × n)."""
        P = self.pulley_centres()
        out = []
        for i0, i1 in FACES:
            mid = (P[i0] + P[i1]) / 2
            n = mid / np.linalg.norm(mid)
            out.append((mid, n, np.array([n[1], -n[0]])))
        return out

    def body_mesh(self):
        return _prism_mesh(self.track_side, self.pulley_radius, self.width)

    def frame_mass(self) -> float:
        return self.body_mass - self.belt_mass - 3 * self.pulley_mass

    def base_mass_props(self) -> MassProps:
        return mesh_mass_props(self.body_mesh(), self.frame_mass())

    def pulley_mass_props(self) -> MassProps:
        return _cylinder_y(self.pulley_link_mass, self.pulley_radius, self.width)

    def slab_mass_props(self) -> MassProps:
        return _box(self.slab_mass, (self.track_side, self.width, self.slab_thickness))

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

    def _belt_links(self):
        """(name, centre (x, z), mass props, face angle) of the pulleys then the slabs."""
        P = self.pulley_centres()
        out = [(f"belt_pulley_{PULLEYS[i]}", P[i], self.pulley_mass_props(), 0.0) for i in range(3)]
        s = self.slab_thickness
        for i, (mid, n, t) in enumerate(self.faces()):
            ang = math.atan2(-t[1], -t[0])  # the face direction P0 → P1 = −t
            out.append((f"belt_slab_{i}", mid + n * (self.pulley_radius - s / 2), self.slab_mass_props(), ang))
        return out

    def body_mass_props_total(self) -> tuple[float, np.ndarray]:
        """Mass and inertia about the centre (URDF axes) of frame + pulleys + belt: what the screw
        model's body is (the belt's motion round the body neglected)."""
        mb = self.base_mass_props()
        I = np.array(mb.inertia, float).copy()
        m = mb.mass
        for _, (x, z), mp, ang in self._belt_links():
            c, s_ = math.cos(ang), math.sin(ang)
            R = np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]])  # rotation about y by −ang … as the URDF's rpy
            d = np.array([x, 0.0, z])
            I += R @ np.asarray(mp.inertia) @ R.T + mp.mass * (d @ d * np.eye(3) - np.outer(d, d))
            m += mp.mass
        return m, I

    # ---- URDF ---------------------------------------------------------------------------
    def to_urdf(self) -> str:
        r, W = self.pulley_radius, self.width
        a = self.inradius
        out = ['<?xml version="1.0"?>\n<robot name="tracked">\n',
               material_xml("frame", (0.30, 0.33, 0.38, 1.0)), material_xml("belt", (0.08, 0.08, 0.08, 1.0)),
               material_xml("arm", (0.85, 0.55, 0.15, 1.0)), material_xml("steel", (0.7, 0.72, 0.75, 1.0)),
               material_xml("mark", (0.9, 0.9, 0.9, 1.0))]
        # base: visual = a central block of the frame; no collision (the belt's links are the track)
        vis = (f'    <visual><origin xyz="0 0 0"/><geometry><box size="{fmt(1.2 * a)} {fmt(W * 1.04)} '
               f'{fmt(1.2 * a)}"/></geometry><material name="frame"/></visual>\n')
        out.append('  <link name="body">\n' + inertial_xml(self.base_mass_props()) + vis + "  </link>\n")
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
        # the belt: pulleys (collision radius shrunk by the margin) and slabs (boxes are exact in Bullet)
        cyl_v = f'<geometry><cylinder radius="{fmt(r)}" length="{fmt(W)}"/></geometry>'
        cyl_c = f'<geometry><cylinder radius="{fmt(self.collision_radius)}" length="{fmt(W)}"/></geometry>'
        slab = f'<geometry><box size="{vec((self.track_side, W, self.slab_thickness))}"/></geometry>'
        for name, (x, z), mp, ang in self._belt_links():
            if name.startswith("belt_pulley"):
                out.append(f'  <link name="{name}">\n' + inertial_xml(mp)
                           + f'    <visual><origin rpy="1.5707963268 0 0"/>{cyl_v}<material name="belt"/></visual>\n'
                           + f'    <collision><origin rpy="1.5707963268 0 0"/>{cyl_c}</collision>\n  </link>\n')
                out.append(_joint(name.replace("belt_", "belt_joint_"), "continuous", "body", name, (x, 0, z),
                                  (0, 1, 0)))
            else:
                out.append(f'  <link name="{name}">\n' + inertial_xml(mp)
                           + f'    <visual>{slab}<material name="belt"/></visual>\n'
                           + f'    <collision>{slab}</collision>\n  </link>\n')
                # prismatic along the box's x, which is the face direction −t: axis −x moves along t
                out.append(_joint(name.replace("belt_", "belt_joint_"), "prismatic", "body", name, (x, 0, z),
                                  (-1, 0, 0), rpy=(0, -ang, 0), limit=(-1.0, 1.0, 1e4, 100.0)))
        out.append("</robot>\n")
        return "".join(out)

    # ---- engine-side extras -------------------------------------------------------------------
    def setup(self, world, body: int) -> None:
        """Gear the pulleys (1:1) and the slabs (q̇ = r ψ̇) to the drive joint, give the belt the
        track's friction and the guide wheel its own, and ask the World for the contact points."""
        names = world.urdf_joints(body)
        drive = names["drive"]
        slabs, gears = [], []
        for name, j in sorted(names.items(), key=lambda kv: kv[1]):
            if not name.startswith("belt_"):
                continue
            if name.startswith("belt_slab"):
                gears.append(world.add_gear(drive, j, ratio=-1.0 / self.pulley_radius, max_force=1e5, erp=0.2))
                slabs.append(j)
            else:
                world.add_gear(drive, j, ratio=-1.0, max_force=1e5, erp=0.2)
            world.set_dynamics(body, j, lateralFriction=self.track_friction, rollingFriction=0.0, spinningFriction=0.0)
        world.set_dynamics(body, names["guide"], lateralFriction=self.guide_friction, rollingFriction=0.0,
                           spinningFriction=0.0)
        world.set_dynamics(body, names["arm"], lateralFriction=0.3)
        world.belt_reset = _SlabReset(world, body, slabs, gears, self.pulley_radius)
        world.rewindables.append(world.belt_reset)
        world.record_contacts = True  # the climb's support triangle and edge forces come from the contacts

    @staticmethod
    def after_step(world) -> None:
        """Called by the World right after every stepSimulation: the conveyor slabs back to q = 0,
        their velocity (the belt speed) kept."""
        world.belt_reset()


def _joint(name, kind, parent, child, xyz, axis, limit=None, rpy=(0, 0, 0)) -> str:
    lim = ""
    if limit is not None:
        lim = (f'    <limit lower="{fmt(limit[0])}" upper="{fmt(limit[1])}" effort="{fmt(limit[2])}" '
               f'velocity="{fmt(limit[3])}"/>\n')
    return (f'  <joint name="{name}" type="{kind}">\n    <parent link="{parent}"/>\n    <child link="{child}"/>\n'
            f'    <origin xyz="{vec(xyz)}" rpy="{vec(rpy)}"/>\n    <axis xyz="{vec(axis)}"/>\n{lim}'
            '    <dynamics damping="0" friction="0"/>\n  </joint>\n')


__all__ = ["TrackedSpec", "COLLISION_MARGIN"]
