"""Rigid-body motion in screw coordinates: SE(3), twists, the product of exponentials (POE) and the
dynamics of an open chain built from it (Murray, Li & Sastry 1994, *A Mathematical Introduction to
Robotic Manipulation*, ch. 2–4). No pybullet, no paper: any analytic model that writes its kinematics
as a POE can use it (the tracked robot of Hu 2013 does, lab.papers.hu2013_tracked.model.chain).

Conventions
    A twist is ξ = (v; ω) ∈ R⁶, linear part first (Murray §2.3); ξ̂ its 4 × 4 matrix.
    g ∈ SE(3) is a 4 × 4 homogeneous matrix [[R, p], [0, 1]].
    A chain is fixed-base: link k moves with the first ``n_joints`` joints, and its pose is
    g_sl(q) = exp(ξ̂₁ q₁) ⋯ exp(ξ̂_j q_j) g_sl(0) (Murray §3.2); ``g0`` = g_sl(0) is the link's COM
    frame at q = 0, the frame its spatial inertia G = diag(m E, I) is written in.
    Jacobians are *body* Jacobians J^b (Murray §3.4), so M = Σ J^bᵀ G J^b (Murray §4.3).

A joint is anything with ``exp(q)`` (its 4 × 4 factor), ``twist(q)`` (the joint's twist in its
reference configuration, ξ) and ``dtwist(q)`` (dξ/dq: zero for a constant screw; non-zero for a
joint whose axis moves with q, such as a translation that follows a curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np


def hat3(w) -> np.ndarray:
    """ŵ: the skew matrix with ŵ x = w × x."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def twist_revolute(omega, point) -> np.ndarray:
    """ξ = (v; ω) of a revolute joint about unit ``omega`` through ``point`` q: v = −ω × q = q × ω."""
    w = np.asarray(omega, float)
    q = np.asarray(point, float)
    return np.concatenate([np.cross(q, w), w])


def twist_prismatic(direction) -> np.ndarray:
    """ξ = (v; 0) of a prismatic joint along unit ``direction``."""
    return np.concatenate([np.asarray(direction, float), np.zeros(3)])


def exp_twist(xi: np.ndarray, t: float) -> np.ndarray:
    """exp(ξ̂ t) ∈ SE(3) (Murray eq. 2.36): unit ω → Rodrigues; ω = 0 → pure translation."""
    v, w = xi[:3], xi[3:]
    g = np.eye(4)
    nw = np.linalg.norm(w)
    if nw < 1e-12:
        g[:3, 3] = v * t
        return g
    W = hat3(w)
    R = np.eye(3) + math.sin(t) * W + (1 - math.cos(t)) * W @ W
    g[:3, :3] = R
    g[:3, 3] = (np.eye(3) - R) @ np.cross(w, v) + np.outer(w, w) @ v * t
    return g


def adjoint(g: np.ndarray) -> np.ndarray:
    """Ad_g for twists ordered (v; ω): [[R, p̂R], [0, R]] (Murray §2.4)."""
    R, p = g[:3, :3], g[:3, 3]
    A = np.zeros((6, 6))
    A[:3, :3] = R
    A[:3, 3:] = hat3(p) @ R
    A[3:, 3:] = R
    return A


def inv_se3(g: np.ndarray) -> np.ndarray:
    """g⁻¹ = [[Rᵀ, −Rᵀp], [0, 1]]."""
    R, p = g[:3, :3], g[:3, 3]
    h = np.eye(4)
    h[:3, :3] = R.T
    h[:3, 3] = -R.T @ p
    return h


def lie_bracket(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[a, b] = ad_a b for twists (v; ω): (ω_a × v_b − ω_b × v_a ; ω_a × ω_b)."""
    va, wa, vb, wb = a[:3], a[3:], b[:3], b[3:]
    return np.concatenate([np.cross(wa, vb) - np.cross(wb, va), np.cross(wa, wb)])


def rot_x(angle: float) -> np.ndarray:
    """R_x(angle)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def rot_z(angle: float) -> np.ndarray:
    """R_z(angle)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0], [0, 0, 1.0]])


# ---------------------------------------------------------------------------------------------
# joints, links and open chains


class PoeJoint(Protocol):
    """What a chain needs of a joint (see the module doc)."""

    def exp(self, q: float) -> np.ndarray: ...

    def twist(self, q: float) -> np.ndarray: ...

    def dtwist(self, q: float) -> np.ndarray: ...


@dataclass(frozen=True)
class ScrewJoint:
    """A joint with a constant twist ξ: revolute (:func:`twist_revolute`) or prismatic
    (:func:`twist_prismatic`); its factor is exp(ξ̂ q)."""

    xi: np.ndarray

    def exp(self, q: float) -> np.ndarray:
        return exp_twist(self.xi, q)

    def twist(self, q: float) -> np.ndarray:
        return self.xi

    def dtwist(self, q: float) -> np.ndarray:
        return np.zeros(6)


@dataclass(frozen=True)
class Link:
    """A rigid body moved by the first ``n_joints`` joints of the chain, with reference pose ``g0``
    (its COM frame at q = 0) and spatial inertia G = diag(m E, I) (Murray §4.3)."""

    name: str
    n_joints: int
    g0: np.ndarray
    mass: float
    inertia: np.ndarray

    @property
    def G(self) -> np.ndarray:
        G = np.zeros((6, 6))
        G[:3, :3] = self.mass * np.eye(3)
        G[3:, 3:] = self.inertia
        return G


@dataclass(frozen=True)
class PoeChain:
    """A fixed-base open chain: joints in order and the links they move. Positions are in the base
    frame S (the frame of the twists); ``g_S`` below is gravity in S."""

    joints: Sequence[PoeJoint]
    links: Sequence[Link]

    @property
    def n(self) -> int:
        return len(self.joints)

    def poses(self, q) -> list[np.ndarray]:
        """g_sl(q) for every link: products of exponentials times g0 (Murray §3.2)."""
        out = []
        for link in self.links:
            g = np.eye(4)
            for j in range(link.n_joints):
                g = g @ self.joints[j].exp(q[j])
            out.append(g @ link.g0)
        return out

    def body_jacobian(self, q, link: Link) -> np.ndarray:
        """J^b (6 × n) (Murray §3.4): column i = Ad⁻¹_{X_{i+1}…X_k g0} ξ_i, zero for joints past
        the link."""
        J = np.zeros((6, self.n))
        tail = link.g0.copy()
        for i in range(link.n_joints - 1, -1, -1):
            J[:, i] = adjoint(inv_se3(tail)) @ self.joints[i].twist(q[i])
            tail = self.joints[i].exp(q[i]) @ tail
        return J

    def body_jacobian_derivatives(self, q, link: Link, J: np.ndarray) -> np.ndarray:
        """dJ[k] = ∂J^b/∂q_k (n × 6 × n): ∂col_i/∂q_k = [col_i, col_k] for k > i (exact, Lie bracket),
        plus a joint's own term ∂col_i/∂q_i = Ad⁻¹(dξ_i/dq_i) when its twist moves with q_i."""
        n = self.n
        dJ = np.zeros((n, 6, n))
        tail = link.g0.copy()
        for i in range(link.n_joints - 1, -1, -1):
            dxi = self.joints[i].dtwist(q[i])
            if np.any(dxi):
                dJ[i][:, i] = adjoint(inv_se3(tail)) @ dxi
            tail = self.joints[i].exp(q[i]) @ tail
            for k in range(i + 1, link.n_joints):
                dJ[k][:, i] = lie_bracket(J[:, i], J[:, k])
        return dJ

    def point_jacobian(self, g: np.ndarray, J: np.ndarray, p_local: np.ndarray) -> np.ndarray:
        """∂p_S/∂q (3 × n) of a point fixed in a link: R (v^b + ω^b × p_local)."""
        v, w = J[:3], J[3:]
        return g[:3, :3] @ (v + np.cross(w.T, p_local).T)

    def point_derivatives(self, q, link_index: int, p_local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(∂p/∂q (3 × n), ∂²p/∂q∂q (3 × n × n)) of a point fixed in a link, exact: with R' = R ω̂_k,
        ∂(R(v_i + ω_i × p))/∂q_k = R ω̂_k (v_i + ω_i × p) + R(∂v_i + ∂ω_i × p)."""
        link = self.links[link_index]
        g = self.poses(q)[link_index]
        R = g[:3, :3]
        J = self.body_jacobian(q, link)
        dJ = self.body_jacobian_derivatives(q, link, J)
        base = J[:3] + np.cross(J[3:].T, p_local).T
        H = np.zeros((3, self.n, self.n))
        for k in range(self.n):
            dbase = dJ[k][:3] + np.cross(dJ[k][3:].T, p_local).T
            H[:, :, k] = R @ (hat3(J[3:, k]) @ base + dbase)
        return R @ base, H

    def mass_matrix(self, q) -> np.ndarray:
        """M = Σ J^bᵀ G J^b (Murray §4.3)."""
        M = np.zeros((self.n, self.n))
        for link in self.links:
            J = self.body_jacobian(q, link)
            M += J.T @ link.G @ J
        return M

    def dynamics(self, q, qd, g_S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(M, C q̇, N) of M q̈ + C q̇ + N = τ (Murray §4.3): M as :meth:`mass_matrix`, C from the
        Christoffel symbols of M with ∂M/∂q from the Lie-bracket derivatives of the Jacobians,
        N = ∂E_p/∂q with E_p = −Σ m g_S·p."""
        n = self.n
        M = np.zeros((n, n))
        dM = np.zeros((n, n, n))
        N = np.zeros(n)
        for link, g in zip(self.links, self.poses(q)):
            J = self.body_jacobian(q, link)
            GJ = link.G @ J
            M += J.T @ GJ
            dJ = self.body_jacobian_derivatives(q, link, J)
            for k in range(n):
                A = dJ[k].T @ GJ
                dM[k] += A + A.T
            Jp = self.point_jacobian(g, J, np.zeros(3))
            N -= link.mass * Jp.T @ g_S
        # Christoffel: (C q̇)_i = Σ_jk (∂_k M_ij − ½ ∂_i M_jk) q̇_j q̇_k
        Cqd = np.einsum("kij,j,k->i", dM, qd, qd) - 0.5 * np.einsum("ijk,j,k->i", dM, qd, qd)
        return M, Cqd, N

    def com(self, q) -> np.ndarray:
        """The chain's mass-weighted centre of mass in S."""
        m = np.array([lk.mass for lk in self.links])
        P = np.array([g[:3, 3] for g in self.poses(q)])
        return m @ P / m.sum()


__all__ = ["hat3", "twist_revolute", "twist_prismatic", "exp_twist", "adjoint", "inv_se3", "lie_bracket", "rot_x",
           "rot_z", "PoeJoint", "ScrewJoint", "Link", "PoeChain"]
