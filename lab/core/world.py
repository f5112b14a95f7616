"""The World: one PyBullet client, one robot, one step loop.

Per step: read one batched :class:`RobotState` → ``controller.act`` → force laws → apply torques
and wrenches in one place → ``stepSimulation`` → read the next state → recorders. Controllers and
force laws never call the engine; the World is the only module that does (with :mod:`lab.gui`).
"""

from __future__ import annotations

import functools
import logging
import math
import operator
import os
import tempfile
import time
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

import numpy as np
from lab.core.engine import connect, pb, quiet_stdout

from lab.core.actuators import Motors
from lab.core.errors import Diverged, LabError
from lab.core.kernels import articulated_mass, contact_rows, forward_kinematics, snapshot
from lab.core.wrench import Wrench
from lab.core.state import BodyState, ModelInfo, RobotState

log = logging.getLogger(__name__)

WORLD_FRAME, TORQUE_CONTROL = pb.WORLD_FRAME, pb.TORQUE_CONTROL  # module constants: no attribute lookups per step
FLOOR_LIMIT_M = -0.05  # a link COM this far below the floor has gone through it
_ANGLE_RATE = operator.itemgetter(0, 1)  # (angle, rate) of a getJointStates entry
_APPLY_FORCE = pb.applyExternalForce  # (body, link, force, position, flags, client): World.apply
_PAD = (0.0,)  # pads the base row's 13 values to 7 pairs (World._read_compiled)


def plane_space_dot(n, d) -> float:
    """d · btPlaneSpace1(n): Bullet's first tangent of a contact normal n (LinearMath/btVector3.h). The
    scalar rule: lab.core.kernels.contact_rows applies it to the whole snapshot (tests compare the two)."""
    nx, ny, nz = n
    if abs(nz) > 0.7071067811865476:
        k = 1.0 / math.sqrt(ny * ny + nz * nz)
        return (-nz * d[1] + ny * d[2]) * k
    k = 1.0 / math.sqrt(nx * nx + ny * ny)
    return (-ny * d[0] + nx * d[1]) * k


@dataclass(frozen=True)
class EngineOptions:
    """How the World sets the engine up. The defaults are the correct settings (the engine pitfalls of
    docs/physics.md); each field names the pitfall it avoids. The fault matrix (:mod:`lab.checks.faults`) sets
    :attr:`World.options` to a degraded copy to show that the checks catch each pitfall."""

    forward_kinematics: bool = True  # getLinkStates(computeForwardKinematics=1): current link frames
    link_damping: float = 0.0  # linear and angular damping of every robot link (Bullet's default: 0.04)
    inertia_from_file: bool = True  # URDF_USE_INERTIA_FROM_FILE (else Bullet derives it from collision shapes)
    # the motors' torque–speed lines taken at the end of the step with the mass matrix (stable at any step, a
    # lone joint on its exact exponential: lab.core.actuators, "The line taken implicitly"); off: the explicit
    # clip with the one-step cap. Off by default (the scenarios' published results); on per World for the v2
    # environments (lab.envs) and for a scenario with sim.motor_lines = "implicit" (lab.core.runner)
    implicit_motor_lines: bool = False


@functools.lru_cache(maxsize=32)
def reflected_inertia(urdf_text: str | None, urdf_path: str | None = None) -> tuple[float, ...]:
    """Each movable joint's inertia with every other joint and the base free: 1/(M⁻¹)_jj of the mass
    matrix at the URDF's zero pose [kg·m², kg for a prismatic joint], in joint order; what the motors'
    one-step cap divides by (lab.core.actuators). Gear constraints and contacts are not in M (they only add
    inertia). Computed in a throwaway DIRECT client, once per URDF (text, or file loaded in place):
    Bullet caches the inverse-dynamics tree of the first query per body, which would then disagree
    with a later welded base."""
    c = connect(False)
    path = urdf_path
    if path is None:
        fd, path = tempfile.mkstemp(suffix=".urdf", prefix="lab_")
        with os.fdopen(fd, "w") as fh:
            fh.write(urdf_text)
    try:
        body = c.loadURDF(path, flags=pb.URDF_USE_INERTIA_FROM_FILE)
        ids = [j for j in range(c.getNumJoints(body)) if c.getJointInfo(body, j)[2] != pb.JOINT_FIXED]
        if not ids:
            return ()
        M = np.array(c.calculateMassMatrix(body, [0.0] * len(ids)))
        return tuple(float(x) for x in 1.0 / np.linalg.inv(M).diagonal()[M.shape[0] - len(ids):])  # base DOFs first
    finally:
        if urdf_path is None:
            os.unlink(path)
        c.disconnect()


@functools.lru_cache(maxsize=32)
def joint_space_inertia(urdf_text: str | None, urdf_path: str | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    """(M_eff (J, J), the movable joints' names in its order): the movable joints' inertia with the base free, at the URDF's zero pose: the Schur complement
    M_qq − M_qb M_bb⁻¹ M_bq of the engine's mass matrix (the base block empty for a fixed base); what the
    explicit PD servo's stability bound reads (lab.core.instability.explicit_step_bound). Its inverse is
    the joint block of M⁻¹, so 1/diag(M_eff⁻¹) is :func:`reflected_inertia`. Computed in a throwaway
    DIRECT client, once per URDF, as reflected_inertia is (and for the same reason). Gear constraints and
    contacts are not in M: a geared joint's inertia is underestimated, which makes the bound stricter."""
    c = connect(False)
    path = urdf_path
    if path is None:
        fd, path = tempfile.mkstemp(suffix=".urdf", prefix="lab_")
        with os.fdopen(fd, "w") as fh:
            fh.write(urdf_text)
    try:
        body = c.loadURDF(path, flags=pb.URDF_USE_INERTIA_FROM_FILE)
        ids = [j for j in range(c.getNumJoints(body)) if c.getJointInfo(body, j)[2] != pb.JOINT_FIXED]
        if not ids:
            return np.zeros((0, 0)), ()
        names = tuple(c.getJointInfo(body, j)[1].decode() for j in ids)
        return schur_joint_block(np.array(c.calculateMassMatrix(body, [0.0] * len(ids))), len(ids)), names
    finally:
        if urdf_path is None:
            os.unlink(path)
        c.disconnect()


def schur_joint_block(M: np.ndarray, n_joints: int) -> np.ndarray:
    """The joint block of a mass matrix with its base DOFs (the first ``len(M) − n_joints`` rows, PyBullet's
    ordering) eliminated: M_qq − M_qb M_bb⁻¹ M_bq, the inertia the joints feel with the base free."""
    nb = M.shape[0] - n_joints
    if nb == 0:
        return M.copy()
    Mbb, Mbq, Mqq = M[:nb, :nb], M[:nb, nb:], M[nb:, nb:]
    return Mqq - Mbq.T @ np.linalg.solve(Mbb, Mbq)


def with_reflected_inertia(M_eff: np.ndarray, inertia) -> np.ndarray:
    """M_eff (J, J) with each joint's own inertia 1/(M_eff⁻¹)_jj raised to ``inertia[j]`` where that is
    larger: what a spec knows its gear constraints add to a joint (the tracked belt's pulleys and slabs on
    the drive joint, :meth:`lab.robots.tracked.TrackedRobot.motors`), which the engine's M does not see.
    ``inertia``: (J,), NaN or 0 where nothing is known."""
    if inertia is None or not len(M_eff):
        return M_eff
    own = 1.0 / np.linalg.inv(M_eff).diagonal()
    add = np.nan_to_num(np.asarray(inertia, float) - own, nan=0.0)
    return M_eff + np.diag(np.maximum(add, 0.0))


class World:
    """Owns a BulletClient (DIRECT or GUI), the ground, and one robot loaded from URDF text."""

    options = EngineOptions()  # class-wide: every World of the process is set up the same way

    def __init__(self, dt: float = 0.001, gravity: float = 9.81, solver_iterations: int = 50, gui: bool = False,
                 arena=None):
        self.gui = gui
        self.options = type(self).options  # the options in force when this world was made
        self._fk = int(self.options.forward_kinematics)
        # the motors' lines at the end of the step (lab.core.actuators): EngineOptions', set per World by the
        # environments (on for the v2 ids, off for v1, as published)
        self.implicit_motor_lines = bool(self.options.implicit_motor_lines)
        self._lines_state: RobotState | None = None  # the snapshot World.apply's motor lines predict from
        self._lines_compiled: bool | None = None  # their mass matrix from the compiled pass (decided at first use)
        self._lines_last: tuple | None = None  # (v_W, q̇, τ applied, step) of the last apply: the lines' load
        self.client = connect(gui)
        self.dt = float(dt)
        self.gravity = float(gravity)
        c = self.client
        if gui:
            c.configureDebugVisualizer(pb.COV_ENABLE_GUI, 1)
            c.configureDebugVisualizer(pb.COV_ENABLE_SHADOWS, 1)
        c.setTimeStep(self.dt)
        c.setGravity(0.0, 0.0, -self.gravity)
        c.setPhysicsEngineParameter(numSolverIterations=int(solver_iterations), deterministicOverlappingPairs=1)
        if arena is None:  # flat ground, by its registered name (the core names no library module)
            from lab.core.registry import registry

            arena = registry("arena")["ground"]()
        self.arena = arena
        self.ground: int | None = arena.build(self)  # the body the robot stands on, None in water
        g_fn = getattr(arena, "gravity", None)  # a sloped arena turns gravity instead of the ground
        self.gravity_W = (np.asarray(g_fn(self.gravity), float) if callable(g_fn)
                          else np.array([0.0, 0.0, -self.gravity]))
        self.robot: int | None = None
        self.bodies: dict[str, tuple[int, float]] = {}  # extra bodies: name → (id, mass)
        self.model: ModelInfo | None = None
        self.motors: Motors | None = None  # every joint's torque–speed line, enforced in apply (lab.core.actuators)
        self.n_links = 0
        self.n_joints = 0
        self._joint_ids: list[int] = []
        self._link_ids: list[int] = []
        self._fk_tree: tuple | None = None  # the URDF tree's arrays for the compiled forward kinematics (load_robot)
        self.measure_contacts = False
        # Optional (tracked robot): every robot contact point in RobotState.contacts; the arena may
        # name its bodies in arena_bodies ("ground", "step", …) so readers can tell them apart.
        self.record_contacts = False
        self.arena_bodies: dict[str, int] = getattr(self, "arena_bodies", {})
        self.t = 0.0
        self.steps = 0
        self._after_step = None  # the loaded spec's per-step hook (load_spec)
        # Put the engine's mass matrix in every snapshot (RobotState.M): set from the controller's
        # needs_mass_matrix by whoever installs it (the runner, the env); Stable PD servos read it.
        self.want_mass_matrix = False
        self._gear_inertia: np.ndarray | None = None  # (J,) what a spec's gears add to each joint (load_spec)
        self._gear_diag: tuple | None = None  # ((row of M, inertia), …) of the joints with gear inertia (_fill_mass_matrix)
        self.rewindables: list = []  # objects with snapshot() / restore(s): lab state rewound with the engine
        # The hot loop calls pybullet's functions with this client's id bound directly: the
        # BulletClient wrapper resolves every call through __getattr__ + inspect (~2 µs each).
        cid = self.client._client
        bind = functools.partial
        self._pb_step = bind(pb.stepSimulation, physicsClientId=cid)
        self._pb_base_pose = bind(pb.getBasePositionAndOrientation, physicsClientId=cid)
        self._pb_base_vel = bind(pb.getBaseVelocity, physicsClientId=cid)
        self._pb_link_states = bind(pb.getLinkStates, physicsClientId=cid)
        self._pb_link_state = bind(pb.getLinkState, physicsClientId=cid)
        self._pb_joint_states = bind(pb.getJointStates, physicsClientId=cid)
        self._pb_motor_array = bind(pb.setJointMotorControlArray, physicsClientId=cid)
        self._pb_force = bind(pb.applyExternalForce, physicsClientId=cid)
        self._pb_torque = bind(pb.applyExternalTorque, physicsClientId=cid)
        self._pb_matrix = pb.getMatrixFromQuaternion
        self._pb_contacts = bind(pb.getContactPoints, physicsClientId=cid)
        self._pb_mass_matrix = bind(pb.calculateMassMatrix, physicsClientId=cid)

    # ------------------------------------------------------------------ set-up
    def _load_urdf_file(self, path, base_pos, base_yaw: float) -> int:
        """URDF_USE_INERTIA_FROM_FILE, otherwise Bullet recomputes inertia from the collision shapes."""
        c = self.client
        try:
            return c.loadURDF(str(path), basePosition=list(base_pos),
                              baseOrientation=c.getQuaternionFromEuler([0, 0, base_yaw]),
                              flags=pb.URDF_USE_INERTIA_FROM_FILE if self.options.inertia_from_file else 0)
        except pb.error as exc:  # a file lab.robots.urdf_validate passed but the engine's parser did not
            raise LabError("robot.path", f"{path}: the engine refused the file ({exc}); check it with "
                                         "check_urdf") from None

    def _load_urdf_text(self, urdf_text: str, base_pos, base_yaw: float) -> int:
        """loadURDF wants a file: write the text to a temporary one."""
        fd, path = tempfile.mkstemp(suffix=".urdf", prefix="lab_")
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(urdf_text)
            return self._load_urdf_file(path, base_pos, base_yaw)
        finally:
            os.unlink(path)

    def load_robot(self, urdf_text: str | None, base_pos, base_yaw: float, link_length: float, effort: float,
                   engine_friction: float = 0.0, urdf_path=None) -> int:
        """Load URDF text (or the file ``urdf_path`` in place, so its relative mesh paths resolve) with
        the inertia it states, zero damping, and the velocity motors off."""
        c = self.client
        body = (self._load_urdf_file(urdf_path, base_pos, base_yaw) if urdf_path is not None
                else self._load_urdf_text(urdf_text, base_pos, base_yaw))
        self.robot = body
        n_urdf_joints = c.getNumJoints(body)
        infos = [c.getJointInfo(body, j) for j in range(n_urdf_joints)]
        self._joint_ids = [j for j, info in enumerate(infos) if info[2] != pb.JOINT_FIXED]
        self._link_ids = list(range(n_urdf_joints))
        self.n_joints = len(self._joint_ids)
        self.n_links = n_urdf_joints + 1
        link_names = (c.getBodyInfo(body)[0].decode(), *[info[12].decode() for info in infos])
        joint_names = tuple(infos[j][1].decode() for j in self._joint_ids)
        mass = np.empty(self.n_links)
        I_B = np.zeros((self.n_links, 3, 3))
        damping = float(self.options.link_damping)
        for i, link in enumerate([-1] + self._link_ids):
            # Bullet's default linear/angular damping is 0.04: it would leak energy from every balance.
            c.changeDynamics(body, link, linearDamping=damping, angularDamping=damping, jointDamping=0.0,
                             lateralFriction=engine_friction, spinningFriction=0.0, rollingFriction=0.0,
                             restitution=0.0)
            info = c.getDynamicsInfo(body, link)
            mass[i] = info[0]
            I_B[i] = np.diag(info[2])
        # each joint's motor from its URDF limit (effort: stall torque, velocity: no-load speed; absent or
        # 0: none); load_spec replaces them with the spec's own motors() where it has them
        # a file's text is part of the cache key: a file edited between two runs of one process (a
        # notebook) must not get the inertia of its previous version
        key_text = urdf_text if urdf_path is None else Path(urdf_path).read_text(encoding="utf-8")
        self._joint_inertia = (np.array(reflected_inertia(key_text, None if urdf_path is None else str(urdf_path)))
                               if self.n_joints else None)
        self.motors = Motors([infos[j][10] if infos[j][10] > 0 else math.inf for j in self._joint_ids],
                             [infos[j][11] if infos[j][11] > 0 else math.inf for j in self._joint_ids],
                             self._joint_inertia, self.dt)
        if self.n_joints:
            # Torque control needs the default velocity motors (which hold the joints) disabled.
            c.setJointMotorControlArray(body, self._joint_ids, pb.VELOCITY_CONTROL, forces=[0.0] * self.n_joints)
        self.model = ModelInfo(mass=mass, I_B=I_B, link_length=float(link_length), gravity=self.gravity,
                               effort=float(effort), link_names=link_names, joint_names=joint_names, dt=self.dt,
                               joint_effort=np.array([float(infos[j][10]) for j in self._joint_ids]))
        self._prev = None
        self._gear_diag = None  # a new robot: its M's gear rows are decided again at the first snapshot
        self._fk_tree = self._fk_tables(infos)
        # the tree for the laws that need the articulated mass matrix (lab.forces.friction.VelocityCoulomb);
        # a lone body is the trivial tree
        tables = self._fk_tree if self._fk_tree is not None or infos else (np.zeros((1, 3), np.int64), np.zeros((1, 18)))
        self.model = replace(self.model, gravity_W=np.array(self.gravity_W, float),
                             tree=None if tables is None else tables[0], frames=None if tables is None else tables[1])
        # lab.kernels.snapshot's tree and body arrays: the frames, each link's mass and principal moments
        # (ModelInfo.I_diag's values, taken from I_B here so that the model's own lazy cache stays untouched)
        self._snap_tables = None if self._fk_tree is None else (
            self._fk_tree[0], np.ascontiguousarray(np.hstack([self._fk_tree[1], mass[:, None],
                                                              np.einsum("nii->ni", self.model.I_B)])))
        # read_state's engine calls, bound to this body and client with every argument positional
        cid, bind = self.client._client, functools.partial
        self._rd_base_pose = bind(pb.getBasePositionAndOrientation, body, cid)
        self._rd_base_vel = bind(pb.getBaseVelocity, body, cid)
        self._rd_joint_states = bind(pb.getJointStates, body, self._joint_ids, cid)
        # getLinkState(body, link 0, computeLinkVelocity=0, computeForwardKinematics=1)
        self._rd_fk_refresh = bind(pb.getLinkState, body, 0, 0, 1, cid)
        # getContactPoints(bodyA=body) positionally: bodyB −1 and both links −2 are its "any"
        self._rd_contacts = bind(pb.getContactPoints, body, -1, -2, -2, cid)
        self._cid = cid
        self._engine_links = list(range(-1, self.n_links - 1))  # the snapshot's rows as engine link indices
        return body

    FK_CHECK_TOL = 1e-9  # the load-time check of the compiled pass (tests compare it to 1e-12)

    def _fk_tables(self, infos) -> tuple | None:
        """The URDF tree as arrays for :func:`lab.core.kernels.forward_kinematics`, or None where the pass does
        not apply (a joint other than revolute, prismatic or fixed; a rotated inertial frame) or does not
        reproduce the engine's link states at load (then read_state asks the engine for every link)."""
        if not infos:
            return None
        c, b = self.client, self.robot
        n = self.n_links
        tree = np.zeros((n, 3), np.int64)  # [parent row, joint type, row in the joint states (−1: fixed)]
        frames = np.zeros((n, 18))  # [axis_L, e_P, d_L, R_PJ row-major] (lab.core.kernels.forward_kinematics)
        row_of_joint = {j: r for r, j in enumerate(self._joint_ids)}
        for j, info in enumerate(infos):
            dyn = c.getDynamicsInfo(b, j)
            if info[2] not in (pb.JOINT_REVOLUTE, pb.JOINT_PRISMATIC, pb.JOINT_FIXED) or \
                    max(abs(v - r) for v, r in zip(dyn[4], (0.0, 0.0, 0.0, 1.0))) > 1e-12:
                log.info("read_state: link %d (joint type %d) outside the compiled pass; reading every link "
                         "from the engine", j, info[2])
                return None
            # getJointInfo's parentFrameOrn is the inverse of the joint frame's rotation in the parent's
            # COM frame (measured on the tracked robot's tilted slabs; identity on every other joint)
            R_PJ = np.array(pb.getMatrixFromQuaternion(info[15])).reshape(3, 3).T
            tree[j + 1] = (info[16] + 1, info[2], row_of_joint.get(j, -1))
            frames[j + 1] = (*info[13], *info[14], *dyn[3], *R_PJ.ravel())
        tables = (tree, frames)
        flat_fk, R_fk, _, _ = self._fk_pass(tables)
        flat_e, R_e = self._read_links_engine()
        err = max(np.abs(flat_fk[:, :3] - flat_e[:, :3]).max(), np.abs(flat_fk[:, 7:] - flat_e[:, 7:]).max(),
                  np.abs(R_fk - R_e).max())
        if not err <= self.FK_CHECK_TOL:
            log.warning("read_state: the compiled forward kinematics differs from the engine's by %.3g at load; "
                        "reading every link from the engine", err)
            return None
        return tables

    def _fk_pass(self, tables):
        """(flat (N, 13), R_WB (N, 3, 3), q (J,), q̇ (J,)) from the base state, one getJointStates and the
        compiled pass: the link frames of this instant, as getLinkStates(computeForwardKinematics=1) gives
        them (without forward kinematics Bullet returns the frames of the previous step's collision pass)."""
        tree, frames = tables
        b = self.robot
        pos, orn = self._pb_base_pose(b)
        lin, ang = self._pb_base_vel(b)
        js = self._pb_joint_states(b, self._joint_ids) if self._joint_ids else ()
        # The engine's own forward kinematics, for its side effect: applyExternalForce takes a link force's
        # lever arm from the link's cached world frame, which stepSimulation leaves one step stale (its
        # collision pass runs first). One link's query runs the pass for the whole body (measured: the
        # trajectories are those of the full getLinkStates read); its answer is not used.
        self._pb_link_state(b, 0, computeForwardKinematics=1)
        n = self.n_links
        flat = np.empty((n, 13))
        flat[0] = pos + orn + lin + ang
        j = np.array([s[:2] for s in js]).reshape(-1, 2)
        R = np.empty((n, 3, 3))
        forward_kinematics(flat, R, tree, frames, j)
        qj, qdj = j[:, 0], j[:, 1]
        return flat, R, qj, qdj

    def _read_links_engine(self, fk: int = 1):
        """(flat (N, 13), R_WB (N, 3, 3)) with every link read from the engine (getLinkStates with forward
        kinematics and velocities, Bullet's quaternion → matrix per link): the reference of the pass."""
        b = self.robot
        pos, orn = self._pb_base_pose(b)
        lin, ang = self._pb_base_vel(b)
        ls = self._pb_link_states(b, self._link_ids, computeLinkVelocity=1, computeForwardKinematics=fk)
        a = np.array([pos + orn + lin + ang, *[s[0] + s[1] + s[6] + s[7] for s in ls]])
        R = np.array([self._pb_matrix(orn), *[self._pb_matrix(s[1]) for s in ls]]).reshape(-1, 3, 3)
        return a, R

    def load_spec(self, spec, base_pos, base_yaw: float) -> int:
        """Load a robot spec: its URDF, its engine friction (default 0: friction comes from the force
        laws), then its optional ``setup(world, body)`` hook for engine-side extras (gear couplings)."""
        path = getattr(spec, "file", None)  # a robot read from a file is loaded in place
        body = self.load_robot(None if path is not None else spec.to_urdf(), base_pos, base_yaw, spec.link_length,
                               spec.effort, engine_friction=getattr(spec, "engine_friction", 0.0), urdf_path=path)
        own = getattr(spec, "motors", None)
        if own is not None:  # {joint name: (stall torque N·m, no-load speed rad/s[, reflected inertia])}
            lines = own()
            names = self.model.joint_names
            unknown = set(lines) - set(names)
            if unknown:
                raise ValueError(f"motors: no joint named {sorted(unknown)} in {names}")
            none = (math.inf, math.inf)
            stall, no_load = zip(*[tuple(lines.get(name, none))[:2] for name in names])
            J = self._joint_inertia.copy()
            for name, line in lines.items():  # a spec knows the inertia its gears couple to a joint
                if len(line) > 2:
                    J[names.index(name)] = float(line[2])
            self.motors = Motors(stall, no_load, J, self.dt)
            # the inertia the spec's gears add to a joint, which the engine's M does not see (constraints):
            # added to the diagonal of the M the snapshot carries, so a Stable PD servo predicts with it
            extra = np.maximum(J - self._joint_inertia, 0.0)
            self._gear_inertia = extra if extra.any() else None
            self._gear_diag = None
        setup = getattr(spec, "setup", None)
        if setup is not None:
            setup(self, body)
        # optional per-step hook ``spec.after_step(world)``, run right after every stepSimulation and
        # before the next read_state (the tracked robot resets its conveyor slabs there)
        self._after_step = getattr(spec, "after_step", None)
        return body

    def add_body(self, name: str, urdf_text: str, base_pos, base_yaw: float = 0.0) -> int:
        """Load a passive body (payload, obstacle) that force laws may push by name."""
        c = self.client
        body = self._load_urdf_text(urdf_text, base_pos, base_yaw)
        c.changeDynamics(body, -1, linearDamping=0.0, angularDamping=0.0)
        self.bodies[name] = (body, float(c.getDynamicsInfo(body, -1)[0]))
        return body

    def set_joint_angles(self, q) -> None:
        """Put the movable joints at angles ``q`` (J,), at rest."""
        self.reset_state(q=q, qd=np.zeros(len(q)))

    def settle(self, seconds: float, dt: float) -> None:
        """Let the robot (and every extra body) come to rest on the ground before t = 0: ``seconds`` of
        engine-only steps of ``dt`` (no commands, no force laws), then the joints back at the angles they
        started at, every velocity zero and the engine's step back to the World's.

        Why: a robot placed exactly touching the ground is not in contact equilibrium. On its first step
        it falls g·h² into the plane while Bullet's contact manifold holds one point per link, which
        tips each link; the contacts and gravity then do work back and forth for ~0.2 s that a plain
        ledger (no contact metering) does not book. On the flagship over 0.3 s from rest at 5 ms that
        was −9.5 % of the input work (0.04 % at 1 ms) and the start-up's input work −10 %. Settled at a
        fixed fine step, the start is the same at every run step (docs/benchmarks.md, issue 34)."""
        c, b = self.client, self.robot
        q = np.array([s[0] for s in c.getJointStates(b, self._joint_ids)]) if self.n_joints else None
        pos0, orn0 = c.getBasePositionAndOrientation(b)
        c.setTimeStep(float(dt))
        for _ in range(int(round(seconds / dt))):
            self._pb_step()
        c.setTimeStep(self.dt)
        # the settled height and tilt kept; where it was placed in the plane and its heading restored (the free
        # joints drift while settling, which turns the base by ~0.08° in 0.2 s)
        pos, orn = c.getBasePositionAndOrientation(b)
        roll, pitch, _ = c.getEulerFromQuaternion(orn)
        c.resetBasePositionAndOrientation(b, [pos0[0], pos0[1], pos[2]],
                                          c.getQuaternionFromEuler([roll, pitch, c.getEulerFromQuaternion(orn0)[2]]))
        if q is not None:
            self.reset_state(q=q, qd=np.zeros(self.n_joints))
        self.set_base_velocity((0.0, 0.0, 0.0))
        for bid, _ in self.bodies.values():
            c.resetBaseVelocity(bid, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
        self._prev = None

    def set_base_velocity(self, v_W, w_W=(0.0, 0.0, 0.0)) -> None:
        self.client.resetBaseVelocity(self.robot, list(map(float, v_W)), list(map(float, w_W)))

    def reset_state(self, q=None, qd=None, p_W=None, quat_W=None, v_W=None, w_W=None) -> None:
        """Reset the robot's state: movable joint angles ``q`` and rates ``qd`` (J,) (``qd`` default 0),
        the base's pose (COM position ``p_W``, orientation ``quat_W`` xyzw; each kept if None) and twist
        (``v_W``, ``w_W``; kept if both None, a missing one 0). Only the engine is reset: a controller's
        integrators and a robot's per-step hook keep their state (the caller resets them)."""
        c, b = self.client, self.robot
        if q is not None:
            qd = np.zeros(len(q)) if qd is None else qd
            if len(q) != self.n_joints or len(qd) != self.n_joints:
                raise ValueError(f"q, qd: expected {self.n_joints} values each, got {len(q)} and {len(qd)}")
            for j, a, r in zip(self._joint_ids, np.asarray(q, float).tolist(), np.asarray(qd, float).tolist()):
                c.resetJointState(b, j, a, r)
        if p_W is not None or quat_W is not None:
            pos, orn = c.getBasePositionAndOrientation(b)
            c.resetBasePositionAndOrientation(b, list(map(float, pos if p_W is None else p_W)),
                                              list(map(float, orn if quat_W is None else quat_W)))
        if v_W is not None or w_W is not None:
            self.set_base_velocity((0.0, 0.0, 0.0) if v_W is None else v_W, (0.0, 0.0, 0.0) if w_W is None else w_W)

    # ------------------------------------------------------------------ building the scene (arenas, trials, robots' extras)
    GROUND_RGBA = (0.82, 0.82, 0.78, 1.0)
    STONE_RGBA = (0.62, 0.60, 0.56, 1.0)

    def add_ground_plane(self, friction: float, z: float = 0.0) -> int:
        """A static collision plane at height ``z`` with engine friction ``friction`` and no restitution."""
        c = self.client
        shape = c.createCollisionShape(pb.GEOM_PLANE)
        vis = c.createVisualShape(pb.GEOM_BOX, halfExtents=[50, 50, 0.001], rgbaColor=list(self.GROUND_RGBA),
                                  visualFramePosition=[0, 0, -0.001])
        body = c.createMultiBody(0, shape, vis, basePosition=[0.0, 0.0, z]) if z else c.createMultiBody(0, shape, vis)
        c.changeDynamics(body, -1, restitution=0.0, lateralFriction=friction)
        return body

    def add_static_box(self, half_extents, position, friction: float, rpy=None, rgba=STONE_RGBA) -> int:
        """A static box (collision and visual) centred at ``position``, turned by ``rpy`` (rad)."""
        c = self.client
        half = [float(h) for h in half_extents]
        shape = c.createCollisionShape(pb.GEOM_BOX, halfExtents=half)
        vis = c.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=list(rgba))
        kw = {} if rpy is None else {"baseOrientation": c.getQuaternionFromEuler(list(rpy))}
        body = c.createMultiBody(0, shape, vis, basePosition=list(position), **kw)
        c.changeDynamics(body, -1, restitution=0.0, lateralFriction=friction)
        return body

    def add_visual_box(self, half_extents, position, rgba) -> int:
        """A visual-only static box (no collision, no mass): shown by the GUI mirror and the camera."""
        c = self.client
        vis = c.createVisualShape(pb.GEOM_BOX, halfExtents=[float(h) for h in half_extents], rgbaColor=list(rgba))
        return c.createMultiBody(0, -1, vis, basePosition=list(position))

    MAX_SHAPES = 16  # PyBullet's createVisualShapeArray holds at most 16 shapes (17 segfaults, measured)

    def add_visual_boxes(self, half_extents, positions, yaws, rgba) -> list[int]:
        """Visual-only static boxes (each turned by its yaw about z), up to 16 to a body; the body ids."""
        c = self.client
        bodies = []
        n = len(positions)
        for k0 in range(0, n, self.MAX_SHAPES):
            k = range(k0, min(n, k0 + self.MAX_SHAPES))
            vis = c.createVisualShapeArray(
                shapeTypes=[pb.GEOM_BOX] * len(k), halfExtents=[list(map(float, half_extents[i])) for i in k],
                visualFramePositions=[list(map(float, positions[i])) for i in k],
                visualFrameOrientations=[c.getQuaternionFromEuler([0.0, 0.0, float(yaws[i])]) for i in k],
                rgbaColors=[list(rgba)] * len(k))
            bodies.append(c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=-1, baseVisualShapeIndex=vis))
        return bodies

    def set_gravity(self, g_W) -> None:
        """The engine's gravity vector (a sloped arena turns it instead of the ground)."""
        self.client.setGravity(*[float(g) for g in g_W])
        self.gravity_W = np.array([float(g) for g in g_W])
        if getattr(self, "model", None) is not None:  # the laws read it from the model (VelocityCoulomb); none yet while the arena builds
            self.model = replace(self.model, gravity_W=self.gravity_W.copy())

    def set_dynamics(self, body: int, link: int = -1, **kw) -> None:
        """Engine dynamics of one body's link (-1: the base): ``lateralFriction``, ``restitution``,
        ``rollingFriction``, ``spinningFriction``, ``mass`` … as PyBullet's changeDynamics names them."""
        self.client.changeDynamics(body, link, **kw)

    def fix_base(self) -> None:
        """Make the robot's base static (mass 0 in the engine): an exact weld of the base link."""
        self.client.changeDynamics(self.robot, -1, mass=0.0)
        self._lines_compiled = None  # the motors' lines: the engine's M has no base rows now
        self._gear_diag = None  # the snapshot's M too: its joint rows move up by 6

    def weld_base_constraint(self) -> int:
        """Weld the robot's base to the world where it is with a JOINT_FIXED constraint (soft: the
        solver holds it iteratively); returns the constraint id."""
        c = self.client
        pos, orn = c.getBasePositionAndOrientation(self.robot)
        return c.createConstraint(self.robot, -1, -1, -1, pb.JOINT_FIXED, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], pos,
                                  childFrameOrientation=orn)

    def set_contact_solver(self, kind: str, residual_threshold: float) -> None:
        """The constraint solver: ``"mlcp_pgs"`` or ``"sequential_impulse"``, with its residual threshold."""
        solvers = {"mlcp_pgs": pb.CONSTRAINT_SOLVER_LCP_PGS, "sequential_impulse": pb.CONSTRAINT_SOLVER_LCP_SI}
        with quiet_stdout():  # the solver switch prints to C stdout
            self.client.setPhysicsEngineParameter(constraintSolverType=solvers[kind],
                                                  solverResidualThreshold=residual_threshold)

    def urdf_joints(self, body: int | None = None) -> dict[str, int]:
        """Every URDF joint of a body (default: the robot) by name → engine joint index (fixed ones too)."""
        b = self.robot if body is None else body
        c = self.client
        return {c.getJointInfo(b, j)[12].decode(): j for j in range(c.getNumJoints(b))}

    def add_gear(self, parent_joint: int, child_joint: int, ratio: float, max_force: float, erp: float) -> int:
        """A JOINT_GEAR constraint between two joints of the robot (child = ratio · parent, solved
        iteratively: soft when many light links hang on it, see docs/physics.md); returns its id."""
        c = self.client
        cid = c.createConstraint(self.robot, parent_joint, self.robot, child_joint, jointType=pb.JOINT_GEAR,
                                 jointAxis=[0, 1, 0], parentFramePosition=[0, 0, 0], childFramePosition=[0, 0, 0])
        c.changeConstraint(cid, gearRatio=ratio, maxForce=max_force, erp=erp)
        return cid

    def add_point_joint(self, parent_link: int, parent_xyz, child_link: int, child_xyz, max_force: float) -> int:
        """A JOINT_POINT2POINT constraint between two links of the robot (-1: the base): the point
        ``parent_xyz`` of the parent's URDF link frame held on ``child_xyz`` of the child's — a pin that
        closes a kinematic loop a URDF tree cannot hold (PyBullet's pivots are in the links' centre-of-mass
        frames: converted here). Made once at set-up; returns its id."""
        c = self.client

        def in_com_frame(link, xyz):
            info = c.getDynamicsInfo(self.robot, link)
            R = np.array(c.getMatrixFromQuaternion(info[4]), float).reshape(3, 3)
            return [float(v) for v in R.T @ (np.asarray(xyz, float) - np.asarray(info[3], float))]

        cid = c.createConstraint(self.robot, parent_link, self.robot, child_link, jointType=pb.JOINT_POINT2POINT,
                                 jointAxis=[0, 0, 0], parentFramePosition=in_com_frame(parent_link, parent_xyz),
                                 childFramePosition=in_com_frame(child_link, child_xyz))
        c.changeConstraint(cid, maxForce=max_force)
        return cid

    def fast_calls(self):
        """The per-step engine calls a robot's ``after_step`` hook may make, bound to this world's client
        (the BulletClient wrapper costs ~2 µs a call): ``(joint_states(body, joints),
        reset_joint_states_multidof(body, joints, q, qd), change_constraint(cid, **kw))``."""
        cid = self.client._client
        bind = functools.partial
        return (bind(pb.getJointStates, physicsClientId=cid), bind(pb.resetJointStatesMultiDof, physicsClientId=cid),
                bind(pb.changeConstraint, physicsClientId=cid))

    def joint_calls(self, body: int, joints: list[int]):
        """``(states(), reset(q, qd))``: getJointStates and resetJointStatesMultiDof of these joints of a body,
        bound to this world's client with every argument positional (a keyword merged into a partial's costs
        a dict a call); ``q``, ``qd``: one list per joint, as resetJointStatesMultiDof takes them. A robot's
        per-step hook calls them (the tracked belt's slab reset)."""
        cid = self.client._client
        states = functools.partial(pb.getJointStates, body, joints, cid)

        def reset(q, qd, _reset=pb.resetJointStatesMultiDof, _b=body, _j=joints, _c=cid):
            _reset(_b, _j, q, qd, _c)
        return states, reset

    # ------------------------------------------------------------------ dynamics queries (no stepping)
    def link_com_offsets(self) -> np.ndarray:
        """(N − 1, 3): each non-base link's COM in its URDF link (joint) frame, the inertial origin."""
        c = self.client
        return np.array([c.getDynamicsInfo(self.robot, k)[3] for k in range(self.n_links - 1)], float)

    def inverse_dynamics(self, q, qd, qdd) -> np.ndarray:
        """Bullet's inverse dynamics (recursive Newton–Euler on the multibody tree) at (q, q̇, q̈) of the
        movable joints: the joint torques (J,), for a fixed-base robot (:meth:`fix_base`)."""
        tau = self.client.calculateInverseDynamics(self.robot, [float(x) for x in q], [float(x) for x in qd],
                                                   [float(x) for x in qdd])
        return np.array(tau, float)

    def mass_matrix(self, q_full=None) -> np.ndarray:
        """The engine's joint-space mass matrix M(q) (composite rigid bodies, calculateMassMatrix) at the
        movable joints' angles ``q_full`` (J,) (default: the current ones), in PyBullet's ordering: for a
        floating base 6 + J rows, the base's angular then linear velocity in the base's own frame first
        (so M does not depend on the base's pose), then the joints in the order of RobotState.q; J rows
        for a fixed base. Gear constraints and contacts are not in M. Stable PD servos read it from the
        snapshot (:attr:`want_mass_matrix`); the per-step cost is measured in benchmarks/."""
        if q_full is None:
            js = self._pb_joint_states(self.robot, self._joint_ids) if self._joint_ids else ()
            q_full = [s[0] for s in js]
        q = q_full.tolist() if isinstance(q_full, np.ndarray) else [float(x) for x in q_full]
        rows = self._pb_mass_matrix(self.robot, q)
        n = len(rows)  # the engine's rows (tuples of floats) into one array without np.array's shape discovery
        return np.fromiter(chain.from_iterable(rows), float, n * n).reshape(n, n)

    def link_jacobian(self, link: int, point_L, q) -> tuple[np.ndarray, np.ndarray]:
        """(J_v (3, J), J_ω (3, J)) of engine link ``link`` (0-based, the base excluded) at the point
        ``point_L`` given in the URDF link (joint) frame — not the COM frame — at configuration q."""
        zero = [0.0] * len(q)
        lin, ang = self.client.calculateJacobian(self.robot, int(link), [float(x) for x in point_L],
                                                 [float(x) for x in q], zero, zero)
        return np.asarray(lin, float), np.asarray(ang, float)

    def debug_line(self, a_W, b_W, rgb, width: float = 1.0) -> int:
        """A debug line in this world's window (a GUI world); returns its id."""
        return self.client.addUserDebugLine(list(a_W), list(b_W), list(rgb), float(width), 0)

    # ------------------------------------------------------------------ camera
    def camera_image(self, width: int, height: int, eye_W, target_W, up_W=(0.0, 0.0, 1.0), fov_deg: float = 50.0,
                     near: float = 0.01, far: float = 100.0, view=None, proj=None) -> np.ndarray:
        """An (height, width, 3) uint8 RGB image from the CPU renderer (no window needed), looking from
        ``eye_W`` at ``target_W``; ``view``/``proj`` (PyBullet's 16-float matrices) override them."""
        c = self.client
        view = view if view is not None else c.computeViewMatrix(list(map(float, eye_W)), list(map(float, target_W)),
                                                                 list(map(float, up_W)))
        proj = proj if proj is not None else c.computeProjectionMatrixFOV(fov_deg, width / height, near, far)
        img = c.getCameraImage(width, height, view, proj, renderer=pb.ER_TINY_RENDERER, flags=pb.ER_NO_SEGMENTATION_MASK)
        return np.asarray(img[2], dtype=np.uint8).reshape(img[1], img[0], 4)[:, :, :3].copy()

    # ------------------------------------------------------------------ state
    def read_state(self) -> RobotState:
        """One batched read of every link and joint: the base state and one getJointStates, the links from
        the compiled forward-kinematics pass (:meth:`_fk_pass`); robots outside that pass read every link
        from the engine (:meth:`_read_links_engine`)."""
        b = self.robot
        if self._fk_tree is not None and self._fk:
            return self._read_compiled(self._snap_tables)
        elif self.n_links > 1:
            # the engine's own link states; with EngineOptions.forward_kinematics off (a fault of the
            # fault matrix) Bullet's frames of the previous step's collision pass, one step stale
            a, R = self._read_links_engine(fk=self._fk)
            j = np.array([s[:2] for s in self._pb_joint_states(b, self._joint_ids)]).reshape(-1, 2)
            qj, qdj = j[:, 0], j[:, 1]
        else:
            pos, orn = self._pb_base_pose(b)
            lin, ang = self._pb_base_vel(b)
            a = np.array([pos + orn + lin + ang])
            R = np.array(self._pb_matrix(orn)).reshape(1, 3, 3)
            qj = qdj = np.zeros(0)
        p, quat, v, w = a[:, 0:3], a[:, 3:7], a[:, 7:10], a[:, 10:13]
        fn = None
        if self.measure_contacts:
            fn = np.zeros(self.n_links)
            for cp in self._pb_contacts(bodyA=b, bodyB=self.ground):
                fn[cp[3] + 1] += cp[9]
        contacts = self._read_contacts() if self.record_contacts else None
        extra = self._read_bodies()
        prev = self._prev
        state = RobotState(t=self.t, p_W=p, quat_W=quat, v_W=v, w_W=w, q=qj, qd=qdj, model=self.model, fn=fn,
                           extra=extra, contacts=contacts, prev_v_W=None if prev is None else prev.v_W,
                           prev_w_W=None if prev is None else prev.w_W, flat=a)
        state.__dict__["R_WB"] = R  # pre-fills the lazy attribute
        if self.want_mass_matrix:
            self._fill_mass_matrix(state)
        self._prev = state
        return state

    def _lines_mass(self) -> np.ndarray:
        """The mass matrix the motors' implicit lines predict with (World.apply, only on a step that puts a
        joint on its line): the snapshot's own M where it carries one; else, for a floating base in the
        compiled pass, the compiled one from the snapshot's poses (:func:`lab.core.kernels.articulated_mass`:
        the base's coordinates differ from the engine's, which leaves the joint block of M⁻¹, all the lines
        read, unchanged; ~3 µs against calculateMassMatrix's ~10); else the engine's at its q. The gears'
        inertia on their joints, as the snapshot's."""
        state = self._lines_state
        M = state.M
        if M is not None:
            return M
        J = self.n_joints
        if self._lines_compiled is None:  # decided once: the engine's M has the free base's 6 rows
            self._lines_compiled = (self._snap_tables is not None and state.flat is not None
                                    and self.mass_matrix(state.q).shape[0] == 6 + J)
        if self._lines_compiled:
            M = state.M_u  # built from this snapshot by a force law already (the velocity-level friction)
            if M is None:
                M = articulated_mass(state.p_W, state.R_WB, self._snap_tables[0], self._snap_tables[1])
            elif self._gear_inertia is not None:
                M = M.copy()  # the law's, left as it built it
        else:
            M = self.mass_matrix(state.q)
        if self._gear_inertia is not None:
            k = np.arange(M.shape[0] - J, M.shape[0])
            M[k, k] += self._gear_inertia
        return M

    def _fill_mass_matrix(self, state: RobotState) -> None:
        """``state.M``: the engine's mass matrix at the snapshot's q plus the gears' inertia on their joints."""
        M = state.M = self.mass_matrix(state.q)
        gears = self._gear_diag
        if gears is None:  # (row of M, inertia) of every joint a gear adds to, decided at the first snapshot
            gears = self._gear_diag = () if self._gear_inertia is None else tuple(
                (M.shape[0] - self.n_joints + j, float(g)) for j, g in enumerate(self._gear_inertia) if g != 0.0)
        for i, g in gears:  # M[k, k] += gear inertia on its joints' diagonal; a joint without one adds 0 exactly
            M[i, i] += g

    def _read_compiled(self, tables) -> RobotState:
        """:meth:`read_state` through the compiled pass, the per-step path: the engine's answers go into
        one array (one ``fromiter``: the base row, then each joint's angle and rate), and one kernel call
        (:func:`lab.kernels.snapshot`) fills every link's row and frame, the kinetic energies and the
        finite flag, which the snapshot then carries (its lazy attributes filled, so the controller, the
        ledger and the divergence check compute nothing again). The engine calls are bound to this body
        and client positionally (keyword arguments cost a dict per call). The same values, to the bit, as
        :meth:`_fk_pass` with the lazy attributes (tests/test_world.py)."""
        pos, orn = self._rd_base_pose()
        lin, ang = self._rd_base_vel()
        js = self._rd_joint_states() if self.n_joints else ()
        self._rd_fk_refresh()  # applyExternalForce's lever arms: see _fk_pass
        J = self.n_joints
        raw = np.fromiter(chain(pos, orn, lin, ang, _PAD, chain.from_iterable(map(_ANGLE_RATE, js))), float,
                          14 + 2 * J).reshape(7 + J, 2)
        n = self.n_links
        a = np.empty((n, 13))
        R = np.empty((n, 3, 3))
        e_t, e_r, finite = snapshot(raw, a, R, tables[0], tables[1])
        fn = None
        if self.measure_contacts:
            fn = np.zeros(n)
            for cp in self._pb_contacts(bodyA=self.robot, bodyB=self.ground):
                fn[cp[3] + 1] += cp[9]
        contacts = self._read_contacts() if self.record_contacts else None
        extra = self._read_bodies() if self.bodies else {}
        prev = self._prev
        state = RobotState(self.t, a[:, 0:3], a[:, 3:7], a[:, 7:10], a[:, 10:13], raw[7:, 0], raw[7:, 1], self.model,
                           fn, extra,
                           None if prev is None else prev.v_W, None if prev is None else prev.w_W, contacts, a)
        d = state.__dict__  # what the lazy attributes would compute, computed by the kernel
        d["R_WB"] = R
        d["_energies"] = (e_t, e_r)
        d["kinetic_energy"] = e_t + e_r
        d["_finite"] = finite
        if self.want_mass_matrix:
            self._fill_mass_matrix(state)
        self._prev = state
        return state

    def _read_bodies(self) -> dict:
        """The extra bodies' states (payload, obstacle) by name."""
        extra = {}
        for name, (bid, m) in self.bodies.items():
            bp, bq = self._pb_base_pose(bid)
            bv, bw = self._pb_base_vel(bid)
            extra[name] = BodyState(np.array(bp), np.array(bq), np.array(bv), np.array(bw), m)
        return extra

    def _read_contacts(self) -> np.ndarray:
        """(k, 12) rows [link (0 = base), other body, p_W (3, on the other body), n_W (3, from the other
        body towards the robot), normal force, friction force on the robot (3)] for every contact point
        of the robot after the last step.

        PyBullet flips the reported normal when the queried body is the contact manifold's second body,
        but not the friction directions: f1·dir1 + f2·dir2 is the force on the robot or on the other
        body depending on the order the manifold happened to be made in. Bullet's multibody solver takes
        dir1 = btPlaneSpace1(manifold normal), so dir1 against plane_space(reported normal) tells which
        (checked for both creation orders in tests/core/test_world.py)."""
        cps = self._rd_contacts()
        if not cps:
            return np.empty((0, 12))
        # one flat tuple per point, one array (fromiter with its length known: no shape discovery), one fused
        # kernel (the sign and sum as plane_space_dot)
        k = len(cps)
        raw = np.fromiter(chain.from_iterable([(cp[3], cp[2], *cp[6], *cp[7], cp[9], cp[10], *cp[11], cp[12], *cp[13])
                                               for cp in cps]), float, 17 * k).reshape(k, 17)
        return contact_rows(raw)

    # ------------------------------------------------------------------ acting
    def apply(self, tau: np.ndarray | None, wrench: Wrench | np.ndarray | None, state: RobotState) -> np.ndarray | None:
        """Apply joint torques and per-link forces (at the COMs: ``state.p_W``, the instant the laws
        saw) and torques, world frame; ``wrench`` is a Wrench or an (N, 3) force array. Bullet
        clears external forces after every stepSimulation, so this runs every step, and it is the only
        place that applies them.

        The joint torques first go through the joints' motors (:attr:`motors`, lab.core.actuators): each is
        clipped to its torque–speed line at the snapshot's joint speed ``state.qd``. Returns the joint
        torques applied (what the energy ledger books), or None when ``tau`` was None."""
        b = self.robot
        if tau is not None and self.n_joints:
            if self.implicit_motor_lines:
                self._lines_state = state
                # the load from the last step (lab.core.actuators): its observed joint acceleration and applied
                # torques, when this snapshot is the one right after it (not after a rewind or a skipped apply)
                last = self._lines_last
                if last is not None and state.prev_v_W is last[0] and self.steps == last[3] + 1:
                    tau = self.motors.limit_implicit(np.asarray(tau, dtype=float), state.qd, self.dt, self._lines_mass,
                                                     (state.qd - last[1]) / self.dt, last[2])
                else:
                    tau = self.motors.limit_implicit(np.asarray(tau, dtype=float), state.qd, self.dt, self._lines_mass)
                self._lines_last = (state.v_W, state.qd, tau, self.steps)
            else:
                tau = self.motors.limit(np.asarray(tau, dtype=float), state.qd)
            self._pb_motor_array(b, self._joint_ids, TORQUE_CONTROL, forces=tau.tolist())
        if wrench is None:
            return tau
        F_W = wrench.F_W if isinstance(wrench, Wrench) else wrench
        # one applyExternalForce per pushed link (PyBullet has no batched call), every argument positional
        force, cid = _APPLY_FORCE, self._cid
        for i, f, p in zip(self._engine_links, F_W.tolist(), state.p_W.tolist()):
            if f[0] or f[1] or f[2]:
                force(b, i, f, p, WORLD_FRAME, cid)
        if not isinstance(wrench, Wrench):
            return tau
        force = self._pb_force
        if wrench.T_W is not None:
            torque = self._pb_torque
            for i, tq in enumerate(wrench.T_W.tolist()):
                if tq[0] or tq[1] or tq[2]:
                    torque(b, i - 1, tq, WORLD_FRAME)
        for name, f in wrench.extra.items():
            bid = self.bodies[name][0]
            force(bid, -1, list(map(float, f)), state.extra[name].p_W.tolist(), WORLD_FRAME)
        return tau

    # ------------------------------------------------------------------ rewind
    def save_state(self) -> "WorldSnapshot":
        """Everything a rewind needs: the engine's state (``saveState``), the clock, the last snapshot
        (accelerations difference against it) and the state of every object in ``rewindables`` — the
        lab's own per-step state that Bullet does not hold (the tracked belt's gear targets)."""
        return WorldSnapshot(self.client.saveState(), self.t, self.steps, self._prev,
                             tuple((obj, obj.snapshot()) for obj in self.rewindables))

    def restore_state(self, snap: "WorldSnapshot") -> None:
        """Back to ``snap`` (:meth:`save_state` of this World): engine, clock and per-step hooks."""
        self.client.restoreState(snap.engine_id)
        self.t, self.steps, self._prev = snap.t, snap.steps, snap.prev
        for obj, s in snap.hooks:
            obj.restore(s)

    def engine_counts(self) -> tuple[int, int]:
        """How many bodies and user constraints the engine holds now: a rewind is only sound onto the same
        bodies (``restoreState`` refuses otherwise) and without constraints, whose solver state it does not
        keep (lab.envs)."""
        return self.client.getNumBodies(), self.client.getNumConstraints()

    def step_engine(self) -> None:
        self._pb_step()
        if self._after_step is not None:
            self._after_step(self)
        self.steps += 1
        self.t = self.steps * self.dt

    DIVERGENCE_CHECK_EVERY = 10  # steps between the energy and floor checks (10 ms at 1 ms: a blow-up is not missed)

    def check(self, state: RobotState, max_kinetic_energy: float) -> None:
        """Divergence: NaN every step (one reduction); runaway energy and the floor every DIVERGENCE_CHECK_EVERY."""
        if not state.is_finite():
            raise Diverged(state.t, "non-finite link state (NaN or inf)")
        if self.steps % self.DIVERGENCE_CHECK_EVERY:
            return
        if self.ground is not None and float(state.p_W[:, 2].min()) < FLOOR_LIMIT_M:
            raise Diverged(state.t, f"a link fell through the floor (z = {state.p_W[:, 2].min():.3f} m)")
        if state.kinetic_energy > max_kinetic_energy:
            raise Diverged(state.t, f"runaway kinetic energy {state.kinetic_energy:.3g} J > {max_kinetic_energy} J")

    GEOM_NAMES = {pb.GEOM_SPHERE: "sphere", pb.GEOM_BOX: "box", pb.GEOM_CYLINDER: "cylinder", pb.GEOM_MESH: "mesh",
                  pb.GEOM_PLANE: "plane", pb.GEOM_CAPSULE: "capsule"}

    def visual_scene(self) -> list[dict]:
        """Every body's visual shapes as the engine holds them (for :mod:`lab.replay`): one dict per
        body, ``kind`` "robot" (its shapes follow RobotState.p_W/quat_W by ``link``, 0 = the base),
        "extra" (a body of :attr:`bodies`, following RobotState.extra[name]) or "static" (placed once at
        ``pose``). Each shape's ``pos``/``quat`` is its visual frame in the **COM frame** of its link
        (getVisualShapeData gives it in the URDF link frame; the inverse of the link's inertial frame
        composes it onto the COM pose the snapshot reads). The video's ground grid (:func:`lab.visual.add_ground_grid`,
        a visual-only body from a temporary mesh) is left out. ``dims``: PyBullet's (box: full extents;
        cylinder/capsule: length, radius; sphere: radius; mesh: scale, with ``file``)."""
        c = self.client
        owner = {self.robot: ("robot", "robot")} if self.robot is not None else {}
        owner.update({bid: ("extra", name) for name, (bid, _) in self.bodies.items()})
        # presentation-only bodies (the video's ground grid, lab.visual) are each viewer's own business
        skip = {getattr(c, "_lab_ground_grid", None)}
        out = []
        for i in range(c.getNumBodies()):
            b = c.getBodyUniqueId(i)
            if b in skip:
                continue
            kind, name = owner.get(b, ("static", f"body{b}"))
            shapes = []
            for v in c.getVisualShapeData(b):
                link = int(v[1])
                ipos, iorn = c.getDynamicsInfo(b, link)[3:5]
                pos, orn = c.multiplyTransforms(*c.invertTransform(ipos, iorn), v[5], v[6])
                fname = v[4].decode(errors="replace") if isinstance(v[4], bytes) else str(v[4])
                shapes.append({"link": link + 1, "geom": self.GEOM_NAMES.get(int(v[2]), str(v[2])),
                               "dims": [float(d) for d in v[3]], "file": fname, "pos": [float(x) for x in pos],
                               "quat": [float(x) for x in orn], "rgba": [float(x) for x in v[7]]})
            pos, orn = c.getBasePositionAndOrientation(b)
            out.append({"kind": kind, "name": name, "shapes": shapes,
                        "pose": [[float(x) for x in pos], [float(x) for x in orn]]})
        return out

    EngineError = pb.error  # what an engine call raises once the client is gone (a closed GUI window)

    def close(self) -> None:
        try:
            if self.client._client >= 0 and pb.isConnected(self.client._client):
                self.client.disconnect()
        except pb.error:  # window already closed
            pass

    def is_connected(self) -> bool:
        try:
            return bool(pb.isConnected(self.client._client))
        except pb.error:
            return False


@dataclass(frozen=True)
class WorldSnapshot:
    """What :meth:`World.save_state` keeps (engine state id, clock, last snapshot, hook states)."""

    engine_id: int
    t: float
    steps: int
    prev: object
    hooks: tuple


def pace(t_sim: float, t0_wall: float) -> None:
    """Sleep so that simulated time does not run ahead of wall time (GUI real-time pacing)."""
    ahead = t_sim - (time.perf_counter() - t0_wall)
    if ahead > 0.002:
        time.sleep(ahead)


__all__ = ["EngineOptions", "World", "WorldSnapshot", "pace"]
