"""One snapshot of the robot per step, read once by the World and shared by everyone else.

Controllers and force laws read only this; they make no engine calls. Arrays are indexed by link
(0 = tail, N-1 = head) and by joint (0 = tail joint, J-1 = head joint); vectors are in the world
frame W unless the name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class ModelInfo:
    """Constant properties of the loaded robot, taken from the URDF the World loaded."""

    mass: np.ndarray  # (N,) kg
    I_B: np.ndarray  # (N, 3, 3) inertia about each COM in the link frame
    link_length: float
    gravity: float
    effort: float

    @property
    def n_links(self) -> int:
        return int(self.mass.shape[0])

    @property
    def n_joints(self) -> int:
        return self.n_links - 1


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
    fn: np.ndarray | None = None  # (N,) measured ground normal force (previous step's contact solve)
    extra: dict = field(default_factory=dict)  # other bodies (payload, …) by name

    @cached_property
    def R_WB(self) -> np.ndarray:
        """(N, 3, 3) rotation matrices, body to world."""
        x, y, z, w = self.quat_W.T
        R = np.empty((len(x), 3, 3))
        R[:, 0, 0] = 1 - 2 * (y * y + z * z)
        R[:, 0, 1] = 2 * (x * y - w * z)
        R[:, 0, 2] = 2 * (x * z + w * y)
        R[:, 1, 0] = 2 * (x * y + w * z)
        R[:, 1, 1] = 1 - 2 * (x * x + z * z)
        R[:, 1, 2] = 2 * (y * z - w * x)
        R[:, 2, 0] = 2 * (x * z - w * y)
        R[:, 2, 1] = 2 * (y * z + w * x)
        R[:, 2, 2] = 1 - 2 * (x * x + y * y)
        return R

    @cached_property
    def x_axis_W(self) -> np.ndarray:
        """(N, 3) each link's x axis (pointing towards the head) in the world frame."""
        x, y, z, w = self.quat_W.T
        return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], axis=1)

    @cached_property
    def yaw(self) -> np.ndarray:
        """(N,) heading of each link's x axis in the ground plane (rad)."""
        ax = self.x_axis_W
        return np.arctan2(ax[:, 1], ax[:, 0])

    @cached_property
    def energy_translational(self) -> float:
        """E_T = ½ Σ m_i |v_i|² (Wang 2011, eq. 10)."""
        return 0.5 * float(np.dot(self.model.mass, np.einsum("ij,ij->i", self.v_W, self.v_W)))

    @cached_property
    def energy_rotational(self) -> float:
        """E_R = ½ Σ ω_Bᵀ I_B ω_B with ω_B = Rᵀ ω_W (Wang 2011, eq. 9)."""
        w_B = np.einsum("nji,nj->ni", self.R_WB, self.w_W)
        return 0.5 * float(np.einsum("ni,nij,nj->", w_B, self.model.I_B, w_B))

    @cached_property
    def kinetic_energy(self) -> float:
        """E = E_T + E_R, summed over every link (Wang 2011, eq. 8)."""
        return self.energy_translational + self.energy_rotational

    @cached_property
    def com_W(self) -> np.ndarray:
        """(3,) centre of mass of the robot."""
        m = self.model.mass
        return (m @ self.p_W) / m.sum()

    def is_finite(self) -> bool:
        return bool(np.isfinite(self.p_W).all() and np.isfinite(self.v_W).all() and np.isfinite(self.w_W).all())
