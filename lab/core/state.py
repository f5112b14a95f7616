"""One snapshot of the robot per step, read once by the World and shared by everyone else.

Controllers and force laws read only this; they make no engine calls. Arrays are indexed by link
(0 = tail, N-1 = head) and by joint (0 = tail joint, J-1 = head joint); vectors are in the world
frame W unless the name says otherwise.

Which instant each field describes (the World reads the snapshot right after ``stepSimulation``,
which ends at time ``t``; measured in tests/core/test_world.py):

* ``t, p_W, quat_W, v_W, w_W, q, qd`` and every ``extra`` body: the instant ``t``. Link frames come
  from the base state and the joint states through the compiled forward-kinematics pass
  (:func:`lab.core.kernels.forward_kinematics`, equal to ``getLinkStates(computeForwardKinematics=1)`` to
  1e-12; without forward kinematics Bullet returns the frames of ``t − dt``).
* ``fn`` and ``contacts``: the step that ended at ``t``. Bullet's collision pass runs at the start
  of the step, so the contact *points* sit on the poses of ``t − dt``; the *forces* are that step's
  solver impulses divided by dt, i.e. what acted over [t − dt, t].
* ``prev_v_W``, ``prev_w_W``: the previous snapshot (``t − dt``); ``a_W`` and ``dw_W`` are backward
  differences over [t − dt, t].
* A spec's per-step hook (``after_step``, World.step_engine) runs after ``stepSimulation`` and before
  the snapshot: the tracked robot's conveyor-slab joints are reset to q = 0 there (their ``qd`` kept).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lab.core import kernels


class lazy:
    """A cached attribute without functools.cached_property's per-access lock (Python 3.11 takes an
    RLock on every first access, which costs more than the numpy work it guards on a 10-link robot)."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = self.fn(obj)
        obj.__dict__[self.name] = value
        return value


@dataclass(frozen=True)
class ModelInfo:
    """Constant properties of the loaded robot, taken from the URDF the World loaded."""

    mass: np.ndarray  # (N,) kg
    I_B: np.ndarray  # (N, 3, 3) inertia about each COM in the link frame
    link_length: float
    gravity: float
    effort: float
    link_names: tuple[str, ...] = ()
    joint_names: tuple[str, ...] = ()  # the movable joints, in the order of RobotState.q
    dt: float = 0.0
    joint_effort: np.ndarray | None = None  # (J,) each movable joint's torque limit as the URDF states it
    # The engine's gravity vector (a sloped arena turns it); None: (0, 0, −gravity).
    gravity_W: np.ndarray | None = None
    # The URDF tree as lab.kernels.forward_kinematics reads it (tree (N, 3), frames (N, 18)): what the
    # velocity-level friction law builds the articulated mass matrix from (lab.forces.friction); None
    # where the World reads every link from the engine (a joint outside the compiled pass).
    tree: np.ndarray | None = None
    frames: np.ndarray | None = None
    # The engine's base is static (lab.trials.welded_tail: World.fix_base): the velocity-level friction
    # law then solves in the joint coordinates alone (a free base would give the welded chain a mobility
    # it does not have)
    fixed_base: bool = False

    @property
    def n_links(self) -> int:
        return int(self.mass.shape[0])

    @property
    def I_diag(self) -> np.ndarray:
        """(N, 3) principal moments: the link frames are the URDF's principal axes (diagonal I_B)."""
        d = self.__dict__.get("_I_diag")
        if d is None:
            d = self.__dict__["_I_diag"] = np.einsum("nii->ni", self.I_B).copy()
        return d

    @property
    def weight(self) -> np.ndarray:
        """(N,) m_i·g, each link's weight (the Coulomb laws' normal load), computed once."""
        w = self.__dict__.get("_weight")
        if w is None:
            w = self.__dict__["_weight"] = self.mass * self.gravity
        return w

    @property
    def total_mass(self) -> float:
        """Σ m_i (``mass.sum()``, computed once: the centre of mass divides by it every sample)."""
        m = self.__dict__.get("_total_mass")
        if m is None:
            m = self.__dict__["_total_mass"] = self.mass.sum()
        return m

    @property
    def n_joints(self) -> int:
        return len(self.joint_names) if self.joint_names else self.n_links - 1

    def joint_index(self, name: str) -> int:
        return self.joint_names.index(name)

    def link_index(self, name: str) -> int:
        return self.link_names.index(name)


@dataclass
class BodyState:
    """A passive body other than the robot (payload, obstacle), read with the robot's snapshot."""

    p_W: np.ndarray  # (3,) COM
    quat_W: np.ndarray  # (4,)
    v_W: np.ndarray  # (3,)
    w_W: np.ndarray  # (3,)
    mass: float


@dataclass
class RobotState:
    """Engine state at time ``t`` (treat as read-only)."""

    t: float
    p_W: np.ndarray  # (N, 3) COM positions
    quat_W: np.ndarray  # (N, 4) orientations, x y z w (PyBullet order)
    v_W: np.ndarray  # (N, 3) COM linear velocities
    w_W: np.ndarray  # (N, 3) angular velocities
    q: np.ndarray  # (J,) joint angles
    qd: np.ndarray  # (J,) joint rates
    model: ModelInfo
    fn: np.ndarray | None = None  # (N,) ground normal force of the step that ended at t
    extra: dict = field(default_factory=dict)  # other bodies (payload, …) by name → BodyState
    prev_v_W: np.ndarray | None = None  # the previous snapshot's velocities (for accelerations)
    prev_w_W: np.ndarray | None = None
    # Optional, filled only when World.record_contacts is on (see World._read_contacts): (k, 12) rows
    # [link, other body, p_W(3), n_W(3), normal force, friction force(3)]; points at t − dt, forces
    # over [t − dt, t] (see the module docstring).
    contacts: np.ndarray | None = None
    # (N, 13) the engine's answer that p_W, quat_W, v_W and w_W are views of (World.read_state), so
    # that a NaN check is one reduction; None for hand-made states.
    flat: np.ndarray | None = None
    # (J,) the joint torques the controller commands for the step that starts at t, set by the runner
    # before the force laws run (the velocity-level friction law predicts the slip with them); None
    # for hand-made states and before the controller has acted.
    tau: np.ndarray | None = None
    # (6 + J or J)² the engine's mass matrix at q (World.mass_matrix) plus the inertia a spec's gears add
    # on their joints' diagonal (constraints, not in the engine's M: World.load_spec); filled only when the World's
    # want_mass_matrix is on (a Stable PD servo asks for it: Controller.needs_mass_matrix); else None
    M: np.ndarray | None = None
    # (6 + J)² the floating-base mass matrix in the compiled coordinates u = [v_base_W, ω_base_W, q̇]
    # (lab.core.kernels.articulated_mass; without the gears' inertia), where a force law has built it from
    # this snapshot already (the velocity-level friction law does, every step): the World's implicit
    # motor lines then predict with it instead of building it again; None otherwise
    M_u: np.ndarray | None = None

    @lazy
    def a_W(self) -> np.ndarray:
        """(N, 3) COM accelerations, backward difference over the last step (zeros at the start)."""
        if self.prev_v_W is None or self.model.dt <= 0:
            return np.zeros_like(self.v_W)
        return (self.v_W - self.prev_v_W) / self.model.dt

    @lazy
    def dw_W(self) -> np.ndarray:
        """(N, 3) angular accelerations, backward difference over the last step."""
        if self.prev_w_W is None or self.model.dt <= 0:
            return np.zeros_like(self.w_W)
        return (self.w_W - self.prev_w_W) / self.model.dt

    @lazy
    def R_WB(self) -> np.ndarray:
        """(N, 3, 3) rotation matrices, body to world: R = (w² − |v|²) 1 + 2 v vᵀ + 2 w [v]×."""
        v = self.quat_W[:, :3]
        w = self.quat_W[:, 3]
        R = 2.0 * v[:, :, None] * v[:, None, :]
        wv = 2.0 * w[:, None] * v
        d = w * w - np.einsum("ij,ij->i", v, v)
        R[:, 0, 0] += d
        R[:, 1, 1] += d
        R[:, 2, 2] += d
        R[:, 0, 1] -= wv[:, 2]
        R[:, 1, 0] += wv[:, 2]
        R[:, 0, 2] += wv[:, 1]
        R[:, 2, 0] -= wv[:, 1]
        R[:, 1, 2] -= wv[:, 0]
        R[:, 2, 1] += wv[:, 0]
        return R

    @lazy
    def x_axis_W(self) -> np.ndarray:
        """(N, 3) each link's x axis (pointing towards the head) in the world frame."""
        return self.R_WB[:, :, 0]

    @lazy
    def yaw(self) -> np.ndarray:
        """(N,) heading of each link's x axis in the ground plane (rad)."""
        ax = self.x_axis_W
        return np.arctan2(ax[:, 1], ax[:, 0])

    @lazy
    def _energies(self) -> tuple[float, float]:
        """(E_T, E_R) in one fused pass (lab.core.kernels.energies; Wang 2011, eqs. 8–10)."""
        return kernels.energies(self.v_W, self.w_W, self.R_WB, self.model.mass, self.model.I_diag)

    @property
    def energy_translational(self) -> float:
        """E_T = ½ Σ m_i |v_i|² (Wang 2011, eq. 10)."""
        return self._energies[0]

    @property
    def energy_rotational(self) -> float:
        """E_R = ½ Σ ω_Bᵀ I_B ω_B with ω_B = Rᵀ ω_W (Wang 2011, eq. 9)."""
        return self._energies[1]

    @lazy
    def kinetic_energy(self) -> float:
        """E = E_T + E_R, summed over every link (Wang 2011, eq. 8)."""
        e_t, e_r = self._energies
        return e_t + e_r

    @lazy
    def com_W(self) -> np.ndarray:
        """(3,) centre of mass of the robot."""
        m = self.model
        return (m.mass @ self.p_W) / m.total_mass

    @lazy
    def com_v_W(self) -> np.ndarray:
        """(3,) velocity of the centre of mass."""
        m = self.model
        return (m.mass @ self.v_W) / m.total_mass

    def is_finite(self) -> bool:
        # one reduction: NaN or inf anywhere makes the sum non-finite (World.read_state's kernel sums as
        # it fills the snapshot and leaves the answer in _finite)
        f = self.__dict__.get("_finite")
        if f is not None:
            return f
        if self.flat is not None:
            return math.isfinite(self.flat.sum())
        return math.isfinite(self.p_W.sum() + self.v_W.sum() + self.w_W.sum())
