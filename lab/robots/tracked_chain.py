"""Several tracked modules (lab.robots.tracked) joined at the body's connection device: the
multi-module configurations of Hu 2013's future work (Figs 3–4).

The paper says the body carries a connection device (连接装置) and draws the modules side by side
(parallel, Fig 3a) or nose to tail (serial, Fig 3b); it does not show the device's joints. Our choice:

Connector (serial). A bar of length ``coupler_length`` between the centres of adjacent modules (the
    connection device on the body's centre axis, beside the belt), with a **pitch joint at each end,
    both actuated**: one joint is not enough, since a bar rigid to one module swings by that module's
    pitch, and a middle module that stands its face against a riser (−30°) would lift its neighbour
    off the ground (the limit analysis, lab.papers.hu2013_tracked.model.multi, says so in numbers).
    Each joint has a motor of the arm's class: Table 1's motor (``motor_torque_max``,
    ``motor_speed_rpm``) through ``connector_ratio`` (default i0 i1 = 720, the arm's own gearing:
    13.5 N·m stall, 0.52 rad/s no load). The bar is a light tube (``bar_mass``), visual only (no
    collision: it runs beside the belt; whether the centre line clears the step's edge is the
    analysis's business).
Parallel. The modules side by side along y, ``lateral_gap`` apart, rigidly fixed to the first one.
Triangle and ring (Fig 4c, b; the paper gives only the pictures and the names). Our reading: the
    modules at the corners of a closed loop of bars in the climbing plane, the serial chain closed on
    itself. Module 0 (front) and module 1 (rear) stand on the ground ``coupler_length`` apart as in the
    serial chain; the triangle's module 2 sits at the apex above them (an equilateral triangle of bars),
    the ring's modules 2 and 3 above modules 1 and 0 (a square of four bars: a four-bar linkage with one
    shape freedom). The last bar (module N−1 to module 0) hangs from module 0 on its joint ``c{N−1}_rear``
    (parent module 0, child the bar: the reverse of the other rear joints) and its far end is pinned on
    module N−1's centre by a point-to-point engine constraint (PyBullet JOINT_POINT2POINT) made once in
    :meth:`setup` (a URDF is a tree). So each bottom module has two motored joints to the truss, in
    parallel, and the passive closing pin sits at an upper corner. Triangle: all five joints motored, the
    three bars a rigid truss; at each bottom corner the controller splits the one torque between its two
    joints (the apex adds its moment to the joint that, in the serial chain, already carries the climbing
    module: measured ~13 N·m of its 13.5). Ring: all seven motored: the square is a four-bar whose shear
    the upper modules' weight drives, ~(2 m + 2 m_bar) g d_c sin β = 25–32 N·m at the climb's tilt β, more
    than one connector's 13.5 N·m — held by one corner it cannot climb (lab.papers.hu2013_tracked.model.loops,
    the LP), shared by three corners it can. :meth:`passive_joints` lists the unpowered pins (none).

Frames and names. Module k's links and joints are the single module's with the prefix ``m{k}_``
    (``m0_body``, ``m0_arm_joint``, ``m0_drive_joint``, …); module 0 is the front module and the URDF's
    base. Serial: ``bar_{k}`` hangs from ``m{k}_body`` on joint ``c{k}_front`` at module k's centre and
    carries ``m{k+1}_body`` on ``c{k}_rear`` at its far end, ``coupler_length`` behind; both joints turn
    about +y (positive: the far side goes up, nose down for the near module: ``c{k}_front`` > 0 raises
    the bar's rear end, ``c{k}_rear`` > 0 pitches module k+1 nose-down relative to the bar).
    Self-collision is off (PyBullet's default): the modules do not touch each other.

Every motor runs on its torque–speed line (lab.actuators) when ``motor_speed_line`` is set: each
module's drive and arm as the single robot's (:meth:`TrackedSpec.motors`), each connector joint its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.core.fields import choice, info, num
from lab.robots.base import Robot, register_robot
from lab.robots.tracked import TrackedSpec, _SlabReset
from lab.robots.urdf import MassProps, fmt, inertial_xml, material_xml, mesh_mass_props, vec

#: the loop-closing constraint's force limit (N): far above every load of the climb (~200 N of weight)
LOOP_MAX_FORCE = 1e5
_NAME = re.compile(r'(<(?:link|joint) name=|<parent link=|<child link=)"([^"]+)"')
_MATERIAL_DEF = re.compile(r'  <material name="[^"]+">.*?</material>\n', re.S)


@register_robot("tracked_chain")
@dataclass(frozen=True)
class TrackedChainSpec(Robot):
    """N tracked modules of Hu 2013 (Table 1 each) joined serial (bars with two actuated pitch joints)
    or parallel (rigid, side by side)."""

    n_modules: int = num(2, ge=2, le=4, unit="modules", doc="how many modules (front one first)")
    layout: Literal["serial", "parallel", "triangle", "ring"] = choice(
        "serial", doc="'serial': nose to tail on bars (Fig 3b); 'parallel': side by side, rigid (Fig 3a); 'triangle' "
                      "(3 modules) and 'ring' (4): the serial chain closed into a loop of bars (Fig 4c, b; our reading)")
    coupler_length: float = num(0.36, ge=0.28, le=1.0, unit="m",
                                doc="bar length, centre to centre (serial; ≥ l + 2r + 1 cm so flat modules keep clear)")
    connector_ratio: float = num(720.0, ge=1, le=1e5, doc="gearing of each connector motor (default i0 i1, the arm's)")
    bar_mass: float = num(0.3, ge=0.01, le=20, unit="kg", doc="each bar (an aluminium tube; not in the paper)")
    lateral_gap: float = num(0.02, ge=0.0, le=0.5, unit="m", doc="parallel: gap between the belts")
    # the module (lab.robots.tracked; Table 1)
    track_side: float = num(0.22, ge=0.05, le=1, unit="m", doc="l, pulley-centre distance")
    pulley_radius: float = num(0.025, ge=0.005, lt=0.5, unit="m", doc="r")
    width: float = num(0.20, ge=0.02, le=1, unit="m", doc="track width (not in the paper)")
    body_mass: float = num(5.0, ge=0.1, le=200, unit="kg", doc="each module's body: frame, pulleys and belt")
    arm_length: float = num(0.30, ge=0.05, le=1, unit="m", doc="l_a of every module's arm")
    arm_mass: float = num(1.2, ge=0.05, le=50, unit="kg", doc="each arm: beam and guide wheel")
    track_friction: float = num(0.8, ge=0, le=3, doc="engine Coulomb μ of the belts")
    guide_friction: float = num(0.5, ge=0, le=3, doc="steel guide wheels")
    motor_torque_max: float = num(18.8e-3, gt=0, unit="N·m", doc="every motor's torque limit (Table 1)")
    motor_speed_rpm: float = num(3600.0, gt=0, unit="rpm", doc="every motor's rated speed (Table 1)")
    i0: float = num(144.0, gt=0, doc="gear ratio (Table 1)")
    i1: float = num(5.0, gt=0, doc="gear ratio (Table 1)")
    i2: float = num(3.0 / 8.0, gt=0, doc="planetary ratio (Table 1)")
    motor_speed_line: bool = info(True, doc="every motor on its torque–speed line (lab.actuators); false: the torque "
                                            "limit alone")
    drive_inertia: float = num(2e-5, ge=1e-7, le=10, unit="kg·m²",
                               doc="each module's drive link about its axis (as the single robot's)")

    def __post_init__(self):
        super().__post_init__()
        m = self.module()  # the module's own validation
        need = {"triangle": 3, "ring": 4}.get(self.layout)
        if need is not None and self.n_modules != need:
            raise ValueError(f"n_modules: layout {self.layout!r} needs {need} modules, got {self.n_modules}")
        if self.layout != "parallel" and self.coupler_length < self.track_side + 2 * self.pulley_radius + 0.01:
            raise ValueError(f"coupler_length: must be ≥ l + 2r + 0.01 = "
                             f"{self.track_side + 2 * self.pulley_radius + 0.01:.3f} m, got {self.coupler_length}")
        del m

    def module(self) -> TrackedSpec:
        """One module as the single robot (no cleats: the cleat law acts on one robot's belt)."""
        return TrackedSpec(track_side=self.track_side, pulley_radius=self.pulley_radius, width=self.width,
                           body_mass=self.body_mass, arm_length=self.arm_length, arm_mass=self.arm_mass,
                           track_friction=self.track_friction, guide_friction=self.guide_friction,
                           motor_torque_max=self.motor_torque_max, motor_speed_rpm=self.motor_speed_rpm, i0=self.i0,
                           i1=self.i1, i2=self.i2, motor_speed_line=self.motor_speed_line, drive_inertia=self.drive_inertia,
                           cleats=False)

    # ---- hooks ----------------------------------------------------------------------------
    @property
    def n_links(self) -> int:
        return self.n_modules * self.module().n_links + self.n_bars

    @property
    def link_length(self) -> float:
        return self.module().link_length

    @property
    def head_link(self) -> None:
        return None

    @property
    def rest_height(self) -> float:
        return self.module().rest_height

    @property
    def engine_friction(self) -> float:
        return self.track_friction

    @property
    def effort(self) -> float:
        return max(self.module().effort, self.connector_torque_max)

    @property
    def cleats(self) -> bool:
        return False

    @property
    def connector_torque_max(self) -> float:
        return self.motor_torque_max * self.connector_ratio

    @property
    def connector_speed_max(self) -> float:
        return self.motor_speed_rpm * 2 * math.pi / 60 / self.connector_ratio if self.motor_speed_line else math.inf

    @property
    def is_loop(self) -> bool:
        return self.layout in ("triangle", "ring")

    @property
    def n_bars(self) -> int:
        """Serial: N − 1 bars; a loop: N (the last one closed on module 0 by the engine constraint)."""
        return {"serial": self.n_modules - 1, "parallel": 0}.get(self.layout, self.n_modules)

    def closing_bar(self, k: int) -> bool:
        return self.is_loop and k == self.n_bars - 1

    def bar_joints(self) -> tuple[str, ...]:
        """Every joint of the bars in the URDF: ``c{k}_front`` (bar k on module k) and ``c{k}_rear`` (module
        k+1 on bar k); a loop's last bar has only ``c{N−1}_rear``, the bar on module 0 (module doc), its
        front end the loop-closing constraint."""
        out = []
        for k in range(self.n_bars):
            if not self.closing_bar(k):
                out.append(f"c{k}_front")
            out.append(f"c{k}_rear")
        return tuple(out)

    def passive_joints(self) -> tuple[str, ...]:
        """The unpowered URDF joints (module doc): none (a loop's passive pin is its closing constraint)."""
        return ()

    def connector_joints(self) -> tuple[str, ...]:
        """The motored bar joints (each with a connector motor)."""
        passive = set(self.passive_joints())
        return tuple(n for n in self.bar_joints() if n not in passive)

    def body_links(self, link_names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(f"m{k}_body" for k in range(self.n_modules))

    def actuated_joints(self, joint_names: tuple[str, ...]) -> tuple[str, ...]:
        own = {f"m{k}_{j}" for k in range(self.n_modules) for j in ("drive_joint", "arm_joint")}
        own |= set(self.connector_joints())
        return tuple(n for n in joint_names if n in own)

    def views(self) -> tuple:
        """Side view (x–z) of every module's body COM on the arena's profile (the single robot's side view
        draws one body and its arm's tip)."""
        from lab.core.views import View

        return (View("chain_side_view", chain_side_view, "side view (x–z): every module's body COM and the arena's "
                                                          "profile"),)

    def motors(self) -> dict[str, tuple]:
        """Each module's drive and arm as the single robot's (Table 1 through i0 i1 i2 and i0 i1); each
        connector joint Table 1's motor through ``connector_ratio``."""
        out = {}
        for k in range(self.n_modules):
            for name, line in self.module().motors().items():
                out[f"m{k}_{name}"] = line
        for name in self.connector_joints():
            out[name] = (self.connector_torque_max, self.connector_speed_max)
        return out

    def mass_props(self) -> MassProps:
        return self.module().base_mass_props()

    def bar_mass_props(self) -> MassProps:
        import trimesh

        mp = mesh_mass_props(trimesh.creation.box(extents=(self.coupler_length, 0.02, 0.02)), self.bar_mass)
        return MassProps(mp.mass, (-self.coupler_length / 2, self._bar_y, 0.0), mp.inertia)

    @property
    def _bar_y(self) -> float:
        return -(self.width / 2 + 0.03)  # beside the belt, on the side away from the arm's sweep

    def module_offsets(self) -> np.ndarray:
        """(N, 3) module centres relative to module 0 at the straight, flat pose (a loop: its corners)."""
        k = np.arange(self.n_modules)
        d = self.coupler_length
        if self.layout == "serial":
            return np.c_[-k * d, 0 * k, 0 * k].astype(float)
        if self.layout == "triangle":
            return np.array([[0.0, 0, 0], [-d, 0, 0], [-d / 2, 0, d * math.sqrt(3) / 2]])
        if self.layout == "ring":
            return np.array([[0.0, 0, 0], [-d, 0, 0], [-d, 0, d], [0.0, 0, d]])
        return np.c_[0 * k, -k * (self.width + self.lateral_gap), 0 * k].astype(float)

    def bar_ends(self, k: int) -> tuple[int, int]:
        """(the module bar k hangs from, the module at its far end): (k, k+1); a loop's closing bar (0, N−1)."""
        return (0, self.n_modules - 1) if self.closing_bar(k) else (k, k + 1)

    def bar_pitch(self, k: int) -> float:
        """The URDF origin pitch of bar k (about +y) that points its −x axis from the module it hangs from to
        its far end's."""
        off = self.module_offsets()
        a, b = self.bar_ends(k)
        e = off[b] - off[a]
        return math.atan2(e[2], -e[0])

    # ---- URDF -----------------------------------------------------------------------------
    def to_urdf(self) -> str:
        single = self.module().to_urdf()
        body = single.split("\n", 2)[2]  # drop the XML header and <robot …>
        body = body.replace("</robot>\n", "")
        mats = "".join(_MATERIAL_DEF.findall(body))
        body = _MATERIAL_DEF.sub("", body)
        out = ['<?xml version="1.0"?>\n<robot name="tracked_chain">\n', mats,
               material_xml("bar", (0.55, 0.6, 0.7, 1.0))]
        for k in range(self.n_modules):
            out.append(_NAME.sub(lambda m, k=k: f'{m.group(1)}"m{k}_{m.group(2)}"', body))
        d = self.coupler_length
        if self.layout == "parallel":
            for k in range(self.n_modules - 1):
                off = self.module_offsets()[k + 1]
                out.append(_joint(f"fix_{k + 1}", "fixed", "m0_body", f"m{k + 1}_body", tuple(off), (1, 0, 0)))
        for k in range(self.n_bars):
            y = self._bar_y
            th = self.bar_pitch(k)
            out.append(f'  <link name="bar_{k}">\n' + inertial_xml(self.bar_mass_props())
                       + f'    <visual><origin xyz="{fmt(-d / 2)} {fmt(y)} 0"/><geometry><box size="{vec((d, 0.02, 0.02))}"/>'
                       '</geometry><material name="bar"/></visual>\n  </link>\n')
            if self.closing_bar(k):
                out.append(_joint(f"c{k}_rear", "continuous", "m0_body", f"bar_{k}", (0, 0, 0), (0, 1, 0), th))
                continue
            out.append(_joint(f"c{k}_front", "continuous", f"m{k}_body", f"bar_{k}", (0, 0, 0), (0, 1, 0), th))
            out.append(_joint(f"c{k}_rear", "continuous", f"bar_{k}", f"m{k + 1}_body", (-d, 0, 0), (0, 1, 0), -th))
        out.append("</robot>\n")
        return "".join(out)

    # ---- engine-side extras -------------------------------------------------------------------
    def setup(self, world, body: int) -> None:
        """Each module's belt geared to its drive (as :meth:`TrackedSpec.setup`), all the slabs reset by
        one hook, the belts' and wheels' friction, contacts recorded."""
        names = world.urdf_joints(body)  # by child link name
        slabs, gears = [], []
        r = self.pulley_radius
        for k in range(self.n_modules):
            pre = f"m{k}_"
            drive = names[pre + "drive"]
            for name, j in sorted(names.items(), key=lambda kv: kv[1]):
                if not name.startswith(pre + "belt_"):
                    continue
                if name.startswith(pre + "belt_slab"):
                    gears.append(world.add_gear(drive, j, ratio=-1.0 / r, max_force=1e5, erp=0.2))
                    slabs.append(j)
                else:
                    world.add_gear(drive, j, ratio=-1.0, max_force=1e5, erp=0.2)
                world.set_dynamics(body, j, lateralFriction=self.track_friction, rollingFriction=0.0,
                                   spinningFriction=0.0)
            world.set_dynamics(body, names[pre + "guide"], lateralFriction=self.guide_friction,
                               rollingFriction=0.0, spinningFriction=0.0)
            world.set_dynamics(body, names[pre + "arm"], lateralFriction=0.3)
        if self.is_loop:  # close the loop: the last bar's far end on module N−1's centre (a URDF is a tree)
            k = self.n_bars - 1
            world.loop_constraint = world.add_point_joint(names[f"bar_{k}"], (-self.coupler_length, 0.0, 0.0),
                                                          names[f"m{self.n_modules - 1}_body"], (0.0, 0.0, 0.0),
                                                          max_force=LOOP_MAX_FORCE)
        world.belt_reset = _SlabReset(world, body, slabs, gears, r)
        world.rewindables.append(world.belt_reset)
        world.record_contacts = True

    @staticmethod
    def after_step(world) -> None:
        world.belt_reset()

    def asset_notes(self) -> list[str]:
        return ["- frames: link 0 is module 0's body (the front module) and the URDF base; module k's links carry "
                "the prefix m{k}_; serial bars bar_{k} hang between the modules' centres on joints c{k}_front / "
                "c{k}_rear (lab/robots/tracked_chain.py).", ""]


def chain_side_view(run):
    """Every module's body COM path in x–z, start ○ and end □, over the arena's profile."""
    from lab.analysis.plots import arena_profile, new_figure

    s, sc = run.series, run.scenario
    names = list(run.link_names)
    mods = [names.index(n) for n in names if n.startswith("m") and n.endswith("_body")]
    X, Z = s["xy"][:, mods, 0], s["z"][:, mods]
    fig, ax = new_figure(figsize=(8, 4.5))
    prof = arena_profile(sc.arena, float(X.min()) - 0.3, float(X.max()) + 0.3)
    if prof is not None:
        ax.fill_between(prof[0], prof[1], -0.05, color="0.8", label="ground / step (x–z)")
        ax.plot(prof[0], prof[1], "k-", lw=1.2)
    for k, i in enumerate(mods):
        line, = ax.plot(X[:, k], Z[:, k], lw=1.2, label=f"module {k} body COM")
        ax.plot(X[0, k], Z[0, k], "o", color=line.get_color(), ms=4)
        ax.plot(X[-1, k], Z[-1, k], "s", color=line.get_color(), ms=4)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m] (climbing direction)")
    ax.set_ylabel("z [m]")
    ax.set_title(f"{sc.name}: side view (start ○, end □)")
    ax.legend(fontsize=8, loc="upper left")
    return fig


def _joint(name, kind, parent, child, xyz, axis, pitch: float = 0.0) -> str:
    return (f'  <joint name="{name}" type="{kind}">\n    <parent link="{parent}"/>\n    <child link="{child}"/>\n'
            f'    <origin xyz="{vec(xyz)}" rpy="0 {fmt(pitch + 0.0)} 0"/>\n    <axis xyz="{vec(axis)}"/>\n'
            '    <dynamics damping="0" friction="0"/>\n  </joint>\n')


__all__ = ["TrackedChainSpec"]
