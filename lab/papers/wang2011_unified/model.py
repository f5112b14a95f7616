"""Unified locomotion/manipulation dynamics of a planar snake (Wang et al. 2011).

No pybullet here: this is the reference the engine is checked against. Parameters, the paper's
numbering and its mapping to the lab's snake are in :mod:`lab.papers.wang2011_unified.params`.

What the paper simulates (§3, §4.3, §5)
---------------------------------------
Both cases lie in the **horizontal plane**: §3 sets V(x) ≡ 0 ("把移动和操作都限制在同一水平面内"),
§5 assumption 1 repeats it for the simulations. The only forces are the joint torques and Coulomb
friction of a passive wheel at the middle of every module (§5 assumptions 2, 4: the same law for
locomotion and manipulation), normal load m g. The gravity terms of eqs. 31–33 are a remark "for
completeness" (§4.3): in the horizontal plane G_i ⟂ ∂b_i/∂x_k, so eq. 33 is identically zero
(:func:`gravity_forces` computes it); gravity only sets the wheels' normal load. No payload or
manipulation force is modelled (§4.3, §5 assumption 3).

The model, equation by equation
-------------------------------
* Eq. 1, POE: g_S,i = e^{ξ̂₁x¹} ⋯ e^{ξ̂ᵢxⁱ} g_S,i(0); twists ordered (ω; v) as the paper prints them
  (ξ₁ = [0,0,0,1,0,0]ᵀ is the X prismatic joint). :func:`kinematics`.
* Eqs. 2–3, body Jacobians: column j of module i is ξ_{i,j} = Ad⁻¹_{e^{ξ̂_{j+1}x^{j+1}}⋯e^{ξ̂ᵢxⁱ}g_S,i(0)} ξ_j
  = Ad_{g_S,i⁻¹} ξ_{S,j} (j ≤ i, zero beyond); eqs. 4–5, spatial: ξ_{S,j} = Ad_{e^{ξ̂₁x¹}⋯e^{ξ̂_{j−1}x^{j−1}}} ξ_j.
* Eq. 6 / 21, COM velocity: ∂b_S,i/∂x^j = ω_{S,j} × b_S,i + v_{S,j} for j ≤ i, 0 for j > i.
* Eqs. 10–11, metric M = Σᵢ J_iᵇᵀ M_iᵇ J_iᵇ, M_iᵇ = diag(I_iᵇ, m_i E), M₁ᵇ = M₂ᵇ = 0. Only the yaw
  entry of I_iᵇ matters in the plane (every body angular velocity is along z); the others are 0.
* Eq. 14, Christoffel symbols of the first kind Γ_ijk = ½(∂_i M_kj + ∂_j M_ki − ∂_k M_ij) (k the
  lowered index, eq. 13), with ∂M from the exact derivative of the body Jacobian columns,
  ∂ξ_{l,a}/∂x^c = ad_{ξ_{l,a}} ξ_{l,c} for a < c ≤ l, 0 otherwise. Eqs. 15–17 (Park's recursion)
  are the same sums regrouped by index order; :func:`christoffel_park` evaluates them term by term
  (Ad^i_l(ad_{ξ_{i−1,k}} ξ̂_i) = ad_{ξ_{l,k}} ξ_{l,i}: Ad is a Lie-algebra homomorphism) and the tests
  check the two against each other and against finite differences of M.
* Eqs. 18–21, friction: fY_j = Σᵢ fᵢ · ∂b_S,i/∂x^j, the cotangent pull-back of the forces at the
  COMs. fᵢ is the lab's law (:class:`lab.forces.friction.AnisotropicCoulomb`):
  fᵢ = −m g (μ_t tanh(v_t/v_s) t + μ_n tanh(v_n/v_s) n), t the module's x axis, n = Ẑ × t.
* Eq. 22: Σ_j M_kj ẍ^j + Σ_ij Γ_ijk ẋ^i ẋ^j − fY_k = τ_k, τ₁ = τ₂ = τ₃ = 0 (eq. 19).
* Locomotion: eq. 23/25 (rows 1–3, the external dynamics) integrated forward for (x¹, x², x³) with
  the joints prescribed (the serpenoid and its exact derivatives); eq. 24 (rows 4–n, the internal
  dynamics) gives the torques. :class:`Locomotion`.
* Manipulation: the same object with the tail welded, x¹ = x² = x³ = 0 (eq. 26): M_A = β*ᵀ M β*
  (eq. 30, the lower-right block), Γ_ijk for i, j, k ≥ 4, and fY′ = fY at x_b = 0 (eq. 27).
  :func:`manipulation_torques`, :func:`manipulation`. Not a second model: the tests check that it
  equals eq. 22's rows 4–n with the base at rest, for any weld pose.
* :func:`joint_torques_along` evaluates eq. 22 on a GIVEN trajectory (e.g. recorded from the engine);
  :func:`joint_torques_along_lab` takes the lab's link-0 COM pose and joint angles.

Slips in the printed equations (our derivation; the tests check it against independent formulations)
---------------------------------------------------------------------------------------------------
* Eq. 6 prints ḃ̃_S,i = Σ_{j=1}^{n} ξ̂_S,j g_S,i e₄ᵀ ẋ^j; the sum ends at j = i (a module does not
  move with the joints ahead of it; eq. 21 has it right: 0 for i < j).
* §4.3 writes fY′_k = fY_k(x¹ = 0, x² = 0, x³ = 0); the friction depends on velocities, so
  ẋ¹ = ẋ² = ẋ³ = 0 must be set too (with the base welded they are).
Appendix tables A1, B1, C1 were checked term by term against the POE model (tests): no slip found.
"""

from __future__ import annotations

import functools

import math
import time
from dataclasses import dataclass

import numpy as np

from lab.papers.wang2011_unified.params import Wang2011Params, lab_base_from_paper, paper_base_from_lab

# ------------------------------------------------------------------------------------------------
# screw algebra, twists ordered (ω; v) as in the paper (ξ₃ = [0, 0, 1, 0, 0, 0]ᵀ is a revolute joint)


def hat3(w) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def exp_twist(xi: np.ndarray, theta: float) -> np.ndarray:
    """e^{ξ̂θ} ∈ SE(3) (Murray, Li & Sastry eq. 2.36) for a unit twist ξ = (ω; v)."""
    w, v = xi[:3], xi[3:]
    g = np.eye(4)
    if not np.any(w):
        g[:3, 3] = v * theta
        return g
    W = hat3(w)
    R = np.eye(3) + math.sin(theta) * W + (1.0 - math.cos(theta)) * (W @ W)
    g[:3, :3] = R
    g[:3, 3] = (np.eye(3) - R) @ np.cross(w, v) + w * (w @ v) * theta
    return g


def adjoint(g: np.ndarray) -> np.ndarray:
    """Ad_g for twists (ω; v): [[R, 0], [p̂R, R]]."""
    R, p = g[:3, :3], g[:3, 3]
    A = np.zeros((6, 6))
    A[:3, :3] = R
    A[3:, 3:] = R
    A[3:, :3] = hat3(p) @ R
    return A


def inv_se3(g: np.ndarray) -> np.ndarray:
    h = np.eye(4)
    h[:3, :3] = g[:3, :3].T
    h[:3, 3] = -g[:3, :3].T @ g[:3, 3]
    return h


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis, broadcast (np.cross costs more than the rest of a model step)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def bracket(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ad_a b = [a, b] for twists (ω; v), broadcast over leading axes: (ω_a × ω_b; ω_a × v_b − ω_b × v_a)."""
    wa, va, wb, vb = a[..., :3], a[..., 3:], b[..., :3], b[..., 3:]
    return np.concatenate([_cross(wa, wb), _cross(wa, vb) - _cross(wb, va)], axis=-1)


# ------------------------------------------------------------------------------------------------
# the virtual structure (§2.2, Fig 1)


def joint_positions0(p: Wang2011Params) -> np.ndarray:
    """X coordinate of J3 … Jn and of the head's front end at x = 0 (the tail end J3 at the origin)."""
    return p.L * np.arange(p.n_modules + 1)


def twists(p: Wang2011Params) -> np.ndarray:
    """(n, 6) joint twists of §2.2: ξ₁, ξ₂ prismatic along X, Y; ξ₃ revolute about Z through the
    origin; ξ_i = [0, 0, 1, 0, −Σ_{k=3}^{i−1} L_k, 0]ᵀ (i ≥ 4), revolute about Z through J_i."""
    xi = np.zeros((p.n, 6))
    xi[0, 3] = 1.0
    xi[1, 4] = 1.0
    xi[2:, 2] = 1.0
    xi[2:, 4] = -joint_positions0(p)[: p.n_modules]  # v = −ω × (a, 0, 0) = (0, −a, 0)
    return xi


def home_frames(p: Wang2011Params) -> np.ndarray:
    """(n, 4, 4) g_S,i(0): U1, U2 (zero length) at the origin, U_i (i ≥ 3) at its centre L(i − 3 + ½)."""
    g = np.tile(np.eye(4), (p.n, 1, 1))
    g[2:, 0, 3] = p.L * (np.arange(p.n_modules) + 0.5)
    return g


def body_inertias(p: Wang2011Params) -> np.ndarray:
    """(n, 6, 6) M_iᵇ = diag(I_iᵇ, m E); zero for the virtual units (§3.1)."""
    Mb = np.zeros((p.n, 6, 6))
    Mb[2:, 2, 2] = p.I
    Mb[2:, 3, 3] = Mb[2:, 4, 4] = Mb[2:, 5, 5] = p.m
    return Mb


@dataclass(frozen=True)
class Kinematics:
    """Kinematic quantities at one configuration x (paper numbering, 0-based arrays: index i ↔ U_{i+1}).

    g_S (n, 4, 4) module frames (eq. 1); xi_S (n, 6) spatial Jacobian columns ξ_{S,j} (eq. 5);
    J_b (n, 6, n) body Jacobians J_iᵇ (eqs. 2–3); dbdx (n, 3, n) ∂b_S,i/∂x^j (eq. 21)."""

    g_S: np.ndarray
    xi_S: np.ndarray
    J_b: np.ndarray
    dbdx: np.ndarray

    @property
    def b_S(self) -> np.ndarray:
        """(n, 3) module centres (COMs) in the world."""
        return self.g_S[:, :3, 3]

    @property
    def yaw(self) -> np.ndarray:
        return np.arctan2(self.g_S[:, 1, 0], self.g_S[:, 0, 0])


class _Model:
    """Constant arrays of one parameter set, cached (twists, home frames, inertias, masks)."""

    def __init__(self, p: Wang2011Params):
        self.p = p
        self.n = p.n
        self.xi = twists(p)
        self.g0 = home_frames(p)
        self.Mb = body_inertias(p)
        n = p.n
        idx = np.arange(n)
        self.lower = (idx[None, :] <= idx[:, None]).astype(float)  # [i, j]: j ≤ i
        self.a_lt_c = (idx[:, None] < idx[None, :]).astype(float)  # [a, c]: a < c
        self.wheel = np.zeros(n)  # which units carry a wheel: the real modules (f₁ = f₂ = 0, eq. 20)
        self.wheel[2:] = 1.0
        if p.head_exempt:
            self.wheel[-1] = 0.0


@functools.lru_cache(maxsize=64)  # a sweep over parameters would otherwise keep every model it built
def _model(p: Wang2011Params) -> _Model:
    return _Model(p)


def _exp_all(xi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(n, 4, 4) e^{ξ̂_j x^j} for all joints at once: :func:`exp_twist`, vectorised (ω = 0 or unit)."""
    w, v = xi[:, :3], xi[:, 3:]
    s, c = np.sin(x), np.cos(x)
    W = np.zeros((len(x), 3, 3))
    W[:, 0, 1], W[:, 0, 2], W[:, 1, 2] = -w[:, 2], w[:, 1], -w[:, 0]
    W[:, 1, 0], W[:, 2, 0], W[:, 2, 1] = w[:, 2], -w[:, 1], w[:, 0]
    R = np.eye(3) + s[:, None, None] * W + (1.0 - c)[:, None, None] * (W @ W)
    rot = np.any(w != 0.0, axis=1)
    wxv = _cross(w, v)
    pos = np.einsum("jab,jb->ja", np.eye(3) - R, wxv) + w * np.sum(w * v, 1)[:, None] * x[:, None]
    pos[~rot] = v[~rot] * x[~rot, None]  # prismatic: a pure translation
    g = np.zeros((len(x), 4, 4))
    g[:, :3, :3] = R
    g[:, :3, 3] = pos
    g[:, 3, 3] = 1.0
    return g


def _adjoints(g: np.ndarray) -> np.ndarray:
    """(N, 6, 6) Ad_g for a stack of frames (:func:`adjoint`, vectorised)."""
    R, p = g[:, :3, :3], g[:, :3, 3]
    P = np.zeros_like(R)
    P[:, 0, 1], P[:, 0, 2], P[:, 1, 2] = -p[:, 2], p[:, 1], -p[:, 0]
    P[:, 1, 0], P[:, 2, 0], P[:, 2, 1] = p[:, 2], -p[:, 1], p[:, 0]
    A = np.zeros((len(g), 6, 6))
    A[:, :3, :3] = R
    A[:, 3:, 3:] = R
    A[:, 3:, :3] = P @ R
    return A


def _inv_all(g: np.ndarray) -> np.ndarray:
    h = np.zeros_like(g)
    Rt = g[:, :3, :3].transpose(0, 2, 1)
    h[:, :3, :3] = Rt
    h[:, :3, 3] = -np.einsum("iab,ib->ia", Rt, g[:, :3, 3])
    h[:, 3, 3] = 1.0
    return h


def kinematics(p: Wang2011Params, x: np.ndarray) -> Kinematics:
    """POE forward kinematics (eq. 1), spatial (eq. 5) and body (eq. 3) Jacobians, ∂b/∂x (eq. 21)."""
    mdl = _model(p)
    n = mdl.n
    x = np.asarray(x, dtype=float)
    E = _exp_all(mdl.xi, x)
    P = np.empty((n + 1, 4, 4))  # P[j] = e^{ξ̂₁x¹} ⋯ e^{ξ̂_j x^j} (P[0] = identity)
    P[0] = np.eye(4)
    for j in range(n):
        P[j + 1] = P[j] @ E[j]
    xi_S = np.einsum("jab,jb->ja", _adjoints(P[:n]), mdl.xi)  # eq. 5: Ad of the product up to j − 1
    g = P[1:] @ mdl.g0  # eq. 1
    Ad_inv = _adjoints(_inv_all(g))
    J_b = (Ad_inv @ xi_S.T) * mdl.lower[:, None, :]  # ξ_{i,j} = Ad_{g_i⁻¹} ξ_{S,j}, j ≤ i (eq. 3)
    b = g[:, :3, 3]
    # eq. 21: ∂b̃_i/∂x^j = ξ̂_{S,j} b̃_i = ω_{S,j} × b_i + v_{S,j} (j ≤ i)
    dbdx = (_cross(xi_S[None, :, :3], b[:, None, :]) + xi_S[None, :, 3:]) * mdl.lower[:, :, None]
    return Kinematics(g_S=g, xi_S=xi_S, J_b=J_b, dbdx=np.ascontiguousarray(dbdx.transpose(0, 2, 1)))


# ------------------------------------------------------------------------------------------------
# metric and connection (§3.1, §3.2)


def metric(p: Wang2011Params, x: np.ndarray, kin: Kinematics | None = None) -> np.ndarray:
    """M (eq. 10) = Σ_i J_iᵇᵀ M_iᵇ J_iᵇ, (n, n)."""
    kin = kinematics(p, x) if kin is None else kin
    n = p.n
    MJ = _model(p).Mb @ kin.J_b  # (l, 6, n)
    return kin.J_b.reshape(6 * n, n).T @ MJ.reshape(6 * n, n)


def metric_derivative(p: Wang2011Params, x: np.ndarray, kin: Kinematics | None = None) -> np.ndarray:
    """dM[c] = ∂M/∂x^c, (n, n, n), from ∂ξ_{l,a}/∂x^c = ad_{ξ_{l,a}} ξ_{l,c} (a < c ≤ l)."""
    mdl = _model(p)
    kin = kinematics(p, x) if kin is None else kin
    n = mdl.n
    Jc = kin.J_b.transpose(0, 2, 1)  # (l, a, 6): column a of module l
    dJ = bracket(Jc[:, :, None, :], Jc[:, None, :, :]) * mdl.a_lt_c[None, :, :, None]  # (l, a, c, 6)
    MJ = mdl.Mb @ kin.J_b  # (l, 6, b)
    # dM[c, a, b] = Σ_l (∂ξ_{l,a}/∂x^c)ᵀ M_lᵇ ξ_{l,b} + (a ↔ b), as one matrix product over (l, 6)
    dM = (dJ.transpose(2, 1, 0, 3).reshape(n * n, 6 * n) @ MJ.reshape(6 * n, n)).reshape(n, n, n)
    return dM + dM.transpose(0, 2, 1)


def christoffel(p: Wang2011Params, x: np.ndarray, kin: Kinematics | None = None,
                dM: np.ndarray | None = None) -> np.ndarray:
    """Γ[i, j, k] = Γ_ijk, first kind (eq. 14): ½(∂_i M_kj + ∂_j M_ki − ∂_k M_ij)."""
    dM = metric_derivative(p, x, kin) if dM is None else dM
    return 0.5 * (np.einsum("ikj->ijk", dM) + np.einsum("jki->ijk", dM) - np.einsum("kij->ijk", dM))


def christoffel_park(p: Wang2011Params, x: np.ndarray, kin: Kinematics | None = None) -> np.ndarray:
    """Γ_ijk by eqs. 15–17 (Park et al.'s recursion as the paper prints it), term by term, with every
    twist in module l's body frame: Ad^i_l(ad_{ξ_{i−1,k}} ξ̂_i) = [ξ_{l,k}, ξ_{l,i}] (zero unless k < i).
    Slow (loops); for checking :func:`christoffel`."""
    mdl = _model(p)
    kin = kinematics(p, x) if kin is None else kin
    n = mdl.n
    J = kin.J_b.transpose(0, 2, 1)  # (l, a, 6)
    Mb = mdl.Mb

    def br(l, a, c):  # Ad^c_l(ad_{ξ_{c−1,a}} ξ̂_c)∨ = ∂ξ_{l,a}/∂x^c
        return bracket(J[l, a], J[l, c]) if a < c else np.zeros(6)

    G = np.zeros((n, n, n))
    for i in range(n):
        for j in range(i, n):
            for k in range(n):
                s = 0.0
                if k <= i:  # eq. 15, k ≤ i ≤ j
                    for l in range(j, n):
                        s += (br(l, k, i) @ Mb[l] @ J[l, j] + br(l, k, j) @ Mb[l] @ J[l, i]
                              + br(l, i, j) @ Mb[l] @ J[l, k])
                elif k <= j:  # eq. 16, i < k ≤ j
                    for l in range(j, n):
                        s += (br(l, k, j) @ Mb[l] @ J[l, i] + br(l, i, j) @ Mb[l] @ J[l, k]
                              - br(l, i, k) @ Mb[l] @ J[l, j])
                else:  # eq. 17, i ≤ j < k
                    for l in range(k, n):
                        s += (br(l, i, j) @ Mb[l] @ J[l, k] - br(l, i, k) @ Mb[l] @ J[l, j]
                              - br(l, j, k) @ Mb[l] @ J[l, i])
                G[i, j, k] = G[j, i, k] = 0.5 * s  # Γ_ijk = Γ_jik
    return G


def coriolis_matrix(p: Wang2011Params, x: np.ndarray, xd: np.ndarray, Gamma: np.ndarray | None = None) -> np.ndarray:
    """C[k, j] = Σ_i Γ_ijk ẋ^i, so that Σ_ij Γ_ijk ẋ^i ẋ^j = (C ẋ)_k and Ṁ − 2C is skew."""
    Gamma = christoffel(p, x) if Gamma is None else Gamma
    return np.einsum("ijk,i->kj", Gamma, np.asarray(xd, dtype=float))


def bias(p: Wang2011Params, x: np.ndarray, xd: np.ndarray, Gamma: np.ndarray | None = None) -> np.ndarray:
    """Σ_ij Γ_ijk ẋ^i ẋ^j (eq. 22's second term), (n,)."""
    Gamma = christoffel(p, x) if Gamma is None else Gamma
    xd = np.asarray(xd, dtype=float)
    return np.einsum("ijk,i,j->k", Gamma, xd, xd)


# ------------------------------------------------------------------------------------------------
# forces (§3.3)


def friction_forces_W(p: Wang2011Params, kin: Kinematics, xd: np.ndarray) -> np.ndarray:
    """(n, 3) friction force on every unit at its centre, world frame (zero on U1, U2): the lab's
    anisotropic Coulomb law, sign regularised as tanh(v/v_s) (lab.forces.friction.AnisotropicCoulomb
    with mu_forward = mu_backward = μ_t; the tests compare the two)."""
    mdl = _model(p)
    v = kin.dbdx @ np.asarray(xd, dtype=float)  # (n, 3) COM velocities (eq. 6, summed to j = i)
    c, s = kin.g_S[:, 0, 0], kin.g_S[:, 1, 0]  # t = module x axis (in the plane), n = Ẑ × t = (−s, c)
    v_t = v[:, 0] * c + v[:, 1] * s
    v_n = v[:, 1] * c - v[:, 0] * s
    load = p.weight * mdl.wheel
    f_t = -p.mu_t * load * np.tanh(v_t / p.v_s)
    f_n = -p.mu_n * load * np.tanh(v_n / p.v_s)
    F = np.zeros((mdl.n, 3))
    F[:, 0] = f_t * c - f_n * s
    F[:, 1] = f_t * s + f_n * c
    return F


def generalized_friction(p: Wang2011Params, x: np.ndarray, xd: np.ndarray, kin: Kinematics | None = None) -> np.ndarray:
    """fY (eq. 20): fY_j = Σ_i f_i · ∂b_S,i/∂x^j, the pull-back of the COM forces (eq. 18)."""
    kin = kinematics(p, x) if kin is None else kin
    F = friction_forces_W(p, kin, xd)
    return np.einsum("iaj,ia->j", kin.dbdx, F)


def gravity_forces(p: Wang2011Params, x: np.ndarray, g_W=None, kin: Kinematics | None = None) -> np.ndarray:
    """GY (eq. 33): GY_k = Σ_i G_i · ∂b_S,i/∂x^k with G_i = m g_W on every real module. The paper's
    plane is horizontal (g_W = (0, 0, −g), the default), where every ∂b/∂x lies in the plane and GY ≡ 0:
    eqs. 31–33 are §4.3's remark, not part of the simulated case."""
    kin = kinematics(p, x) if kin is None else kin
    gW = np.array([0.0, 0.0, -p.g]) if g_W is None else np.asarray(g_W, dtype=float)
    G = p.m * (np.arange(p.n) >= 2)[:, None] * gW[None, :]  # U1, U2 are massless
    return np.einsum("iaj,ia->j", kin.dbdx, G)


def generalized_forces(p: Wang2011Params, x: np.ndarray, xd: np.ndarray, xdd: np.ndarray,
                       F_xy: np.ndarray | None = None) -> np.ndarray:
    """Left side of eq. 22: M ẍ + Σ Γ ẋ ẋ − fY, (n,). Rows 4–n are the joint torques (eq. 24);
    rows 1–3 are the force/torque the virtual joints would have to supply — zero on a trajectory
    of the free snake (eq. 23), the weld's reaction with the tail fixed. ``F_xy`` (n − 2, 2): given
    ground forces at the real modules' COMs (tail first), pulled back by eq. 20 in place of the law's."""
    kin = kinematics(p, x)
    M = metric(p, x, kin)
    Gam = christoffel(p, x, kin)
    if F_xy is None:
        fY = generalized_friction(p, x, xd, kin)
    else:
        F = np.zeros((p.n, 3))
        F[2:, :2] = F_xy
        fY = np.einsum("iaj,ia->j", kin.dbdx, F)
    return M @ xdd + bias(p, x, xd, Gam) - fY


def kinetic_energy(p: Wang2011Params, x: np.ndarray, xd: np.ndarray) -> float:
    """T = ½ ẋᵀ M ẋ (eq. 9)."""
    xd = np.asarray(xd, dtype=float)
    return float(0.5 * xd @ metric(p, x) @ xd)


def momentum_W(p: Wang2011Params, x: np.ndarray, xd: np.ndarray) -> tuple[np.ndarray, float]:
    """(linear momentum (2,), angular momentum about the world origin) from the COM velocities."""
    kin = kinematics(p, x)
    v = kin.dbdx @ np.asarray(xd, dtype=float)
    b = kin.b_S
    w = kin.J_b[:, 2, :] @ np.asarray(xd, dtype=float)  # body yaw rate = world yaw rate (planar)
    real = slice(2, None)
    lin = p.m * v[real, :2].sum(0)
    ang = float(np.sum(p.m * (b[real, 0] * v[real, 1] - b[real, 1] * v[real, 0]) + p.I * w[real]))
    return lin, ang


# ------------------------------------------------------------------------------------------------
# locomotion (§4.1): external dynamics forward, internal dynamics inverse


@dataclass
class LocomotionRun:
    """A locomotion trajectory sampled at ``t`` (paper coordinates): x, ẋ, ẍ (len(t), n) with the
    joints on the gait, joint torques tau (len(t), n − 3) (eq. 24), and the friction's generalised
    force fY (len(t), n)."""

    t: np.ndarray
    x: np.ndarray
    xd: np.ndarray
    xdd: np.ndarray
    tau: np.ndarray
    fY: np.ndarray
    params: Wang2011Params
    nfev: int = 0
    wall_s: float = 0.0

    @property
    def tail_W(self) -> np.ndarray:
        """(len(t), 2): the tail end point J3 = (x¹, x²) — the paper's "tail track" (Fig 5a)."""
        return self.x[:, :2]

    def tail_distance(self) -> tuple[float, float]:
        """(straight-line displacement, path length) of the tail end point over the run (m)."""
        d = np.diff(self.tail_W, axis=0)
        return float(np.linalg.norm(self.tail_W[-1] - self.tail_W[0])), float(np.linalg.norm(d, axis=1).sum())

    def lab_base(self):
        """Link-0 COM (p_W, yaw, v_W, yaw rate, a_W, yaw acceleration) in the lab's convention
        (:func:`~lab.papers.wang2011_unified.params.lab_base_from_paper`)."""
        return lab_base_from_paper(self.params.L, self.x[:, :3], self.xd[:, :3], self.xdd[:, :3])


class Locomotion:
    """The free snake: eq. 23/25 integrated for the base (x¹, x², x³) with the joints prescribed by
    ``gait(t) -> (x, ẋ, ẍ)`` of the real joints (default: the paper's serpenoid), eq. 24 for the
    torques. State y = [x¹, x², x³, ẋ¹, ẋ², ẋ³]."""

    name = "wang2011_locomotion"

    def __init__(self, params: Wang2011Params, gait=None):
        self.p = params
        self.gait = params.gait if gait is None else gait
        self.nfev = 0

    def full_state(self, t: float, y: np.ndarray):
        q, qd, qdd = self.gait(t)
        return np.concatenate([y[:3], q]), np.concatenate([y[3:6], qd]), qdd

    def terms(self, x: np.ndarray, xd: np.ndarray):
        """(M, Σ Γ ẋ ẋ, fY) at (x, ẋ)."""
        p = self.p
        kin = kinematics(p, x)
        M = metric(p, x, kin)
        h = bias(p, x, xd, christoffel(p, x, kin))
        return M, h, generalized_friction(p, x, xd, kin)

    def base_acceleration(self, x, xd, qdd, M=None, h=None, fY=None) -> np.ndarray:
        """ẍ¹, ẍ², ẍ³ from eq. 25: M_bb ẍ_b = fY_b − M_bq ẍ_q − (Σ Γ ẋ ẋ)_b."""
        if M is None:
            M, h, fY = self.terms(x, xd)
        return np.linalg.solve(M[:3, :3], fY[:3] - M[:3, 3:] @ qdd - h[:3])

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        self.nfev += 1
        x, xd, qdd = self.full_state(t, y)
        return np.concatenate([y[3:6], self.base_acceleration(x, xd, qdd)])

    def torques(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(τ⁴ … τⁿ (eq. 24), ẍ (n,), fY (n,)) at time t and base state y."""
        x, xd, qdd = self.full_state(t, y)
        M, h, fY = self.terms(x, xd)
        xdd = np.concatenate([self.base_acceleration(x, xd, qdd, M, h, fY), qdd])
        return (M @ xdd + h - fY)[3:], xdd, fY

    def initial_state(self, y0=None) -> np.ndarray:
        """Default: tail end at the origin, x³ = 0, base at rest (the paper states no initial state)."""
        return np.zeros(6) if y0 is None else np.asarray(y0, dtype=float)

    def simulate(self, t_end: float, t_eval=None, y0=None, rtol: float = 1e-8, atol: float = 1e-10,
                 method: str = "LSODA", max_step: float = np.inf) -> LocomotionRun:
        """Integrate from t = 0. Coulomb friction with a small v_s is stiff, so the method is implicit
        (DESIGN.md). LSODA is the default: over two periods at v_s = 1e-7 m/s it needed 20 k
        evaluations against Radau's 85 k and BDF's 27 k, with mean torques equal to 1e-5.
        ``atol`` applies to positions (m, rad) and velocities alike."""
        y0 = self.initial_state(y0)
        self.nfev = 0
        t0 = time.perf_counter()
        from scipy.integrate import solve_ivp  # deferred: importing scipy.integrate costs ~0.3 s
        sol = solve_ivp(self.rhs, (0.0, float(t_end)), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                        max_step=max_step)
        if not sol.success:
            raise RuntimeError(f"{self.name}: solve_ivp failed: {sol.message}")
        wall = time.perf_counter() - t0
        T, Y = sol.t, sol.y.T
        out = [self.torques(t, y) for t, y in zip(T, Y)]
        tau = np.array([o[0] for o in out])
        xdd = np.array([o[1] for o in out])
        fY = np.array([o[2] for o in out])
        q, qd, _ = self.gait(T)
        x = np.concatenate([Y[:, :3], q], 1)
        xd = np.concatenate([Y[:, 3:], qd], 1)
        return LocomotionRun(t=T, x=x, xd=xd, xdd=xdd, tau=tau, fY=fY, params=self.p, nfev=int(sol.nfev), wall_s=wall)


# ------------------------------------------------------------------------------------------------
# torques along a given trajectory, and manipulation (§4.2)


def joint_torques_along(p: Wang2011Params, x, xd, xdd, F_xy=None) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 22 on a given trajectory (paper coordinates, arrays (T, n) or (n,)): returns
    (τ⁴ … τⁿ (T, n − 3), residual of rows 1–3 (T, 3)). For a free snake the residual is what the
    external dynamics (eq. 23) leaves unbalanced: zero if the trajectory obeys the model.
    ``F_xy`` (T, n − 2, 2): given ground forces in place of the friction law (:func:`generalized_forces`)."""
    x, xd, xdd = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (x, xd, xdd))
    Fs = [None] * len(x) if F_xy is None else np.asarray(F_xy, dtype=float).reshape(len(x), -1, 2)
    Q = np.array([generalized_forces(p, a, b, c, f) for a, b, c, f in zip(x, xd, xdd, Fs)])
    return Q[:, 3:], Q[:, :3]


def joint_torques_along_lab(p: Wang2011Params, p0_W, yaw0, v0_W, yawd0, a0_W, yawdd0, q, qd, qdd, F_xy=None):
    """:func:`joint_torques_along` from the lab's snapshot quantities: link 0's COM position, velocity,
    acceleration (T, ≥2) and yaw, yaw rate, yaw acceleration (T,), the joint angles, rates,
    accelerations (T, n − 3), lab order and sign (= the paper's x⁴ … xⁿ). Returns lab joint torques
    (T, n − 3) and the residual (T, 3) of eq. 23 (N, N, N·m about the tail end point). ``F_xy`` (T, n − 2, 2):
    the ground forces the engine applied at the links' COMs, in place of the model's law (for a law that is
    not a function of the state, e.g. taken implicitly at the step's end slip)."""
    xb, xdb, xddb = paper_base_from_lab(p.L, p0_W, yaw0, v0_W, yawd0, a0_W, yawdd0)
    x = np.concatenate([np.atleast_2d(xb), np.atleast_2d(q)], 1)
    xd = np.concatenate([np.atleast_2d(xdb), np.atleast_2d(qd)], 1)
    xdd = np.concatenate([np.atleast_2d(xddb), np.atleast_2d(qdd)], 1)
    return joint_torques_along(p, x, xd, xdd, F_xy)


def manipulation_torques(p: Wang2011Params, q, qd, qdd, weld=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Eq. 27 with the tail welded at ``weld`` = (x¹, x², x³) (eq. 26; the paper's is the origin):
    τ = M_A q̈ + Σ_{i,j≥4} Γ_ijk q̇^i q̇^j − fY′_k, M_A = β*ᵀ M β* (eq. 30), fY′ = fY(x_b, ẋ_b = 0).
    Arrays (T, n − 3) or (n − 3,) in, joint torques of the same shape out."""
    q, qd, qdd = (np.asarray(a, dtype=float) for a in (q, qd, qdd))
    single = q.ndim == 1
    q, qd, qdd = (np.atleast_2d(a) for a in (q, qd, qdd))
    n = p.n
    beta_star = np.vstack([np.zeros((3, n - 3)), np.eye(n - 3)])  # the embedding's tangent map (eq. 30)
    out = np.empty_like(q)
    for r in range(len(q)):
        x = np.concatenate([weld, q[r]])
        xd = np.concatenate([np.zeros(3), qd[r]])
        kin = kinematics(p, x)
        M_A = beta_star.T @ metric(p, x, kin) @ beta_star
        Gam = christoffel(p, x, kin)[3:, 3:, 3:]
        fY = generalized_friction(p, x, xd, kin)[3:]
        out[r] = M_A @ qdd[r] + np.einsum("ijk,i,j->k", Gam, qd[r], qd[r]) - fY
    return out[0] if single else out


@dataclass
class ManipulationRun:
    """The welded snake on the gait: t, joint x, ẋ, ẍ (len(t), n − 3), torques tau, and the track of
    the head's front end (len(t), 2) — the paper's Fig 5b."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    head_tip_W: np.ndarray


def manipulation(p: Wang2011Params, t, weld=(0.0, 0.0, 0.0), gait=None) -> ManipulationRun:
    """Torques for the prescribed gait with the tail welded (no integration: the base does not move)."""
    t = np.asarray(t, dtype=float)
    q, qd, qdd = (p.gait if gait is None else gait)(t)
    tau = manipulation_torques(p, q, qd, qdd, weld)
    tip = np.empty((len(t), 2))
    for r in range(len(t)):
        g = kinematics(p, np.concatenate([weld, q[r]])).g_S[-1]
        tip[r] = (g[:3, 3] + 0.5 * p.L * g[:3, 0])[:2]
    return ManipulationRun(t=t, q=q, qd=qd, qdd=qdd, tau=tau, head_tip_W=tip)


def mean_abs_torque(t: np.ndarray, tau: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """Time average of |τ| per joint over [t0, t1] (trapezoidal on the samples inside)."""
    k = (t >= t0 - 1e-12) & (t <= t1 + 1e-12)
    return np.trapezoid(np.abs(tau[k]), t[k], axis=0) / (t[k][-1] - t[k][0])


# ------------------------------------------------------------------------------------------------
# the appendices' closed forms, as printed (checked against the POE model in the tests)


def appendix_closed_forms(p: Wang2011Params, x: np.ndarray) -> dict[str, np.ndarray | float]:
    """Tables A1, B1, C1 as printed: M11, M13, M23, M33, M1j, M2j (j = 3 … n), ∂M_k1/∂x^j, ∂M_k2/∂x^j
    (j, k = 3 … n), Γ331, Γ332, and ∂b_S,i/∂x^j (3 ≤ j ≤ i). 1-based paper indices are mapped to
    0-based arrays (entry [j − 1])."""
    n, m, L, I = p.n, p.m, p.L, p.I
    x = np.asarray(x, dtype=float)
    th = np.zeros(n + 1)  # th[k] = Σ_{l=3}^k x^l (1-based k), the yaw of U_k
    for k in range(3, n + 1):
        th[k] = th[k - 1] + x[k - 1]
    S, C = np.sin(th), np.cos(th)
    r = range(3, n + 1)
    out: dict[str, np.ndarray | float] = {"M11": (n - 2) * m, "M12": 0.0}
    out["M13"] = -sum(0.5 * m * L * S[k] + m * sum(L * S[q] for q in range(3, k)) for k in r)
    out["M23"] = sum(0.5 * m * L * C[k] + m * sum(L * C[q] for q in range(3, k)) for k in r)
    out["M33"] = sum(I + 0.25 * m * L * L + m * sum(L * L for _ in range(3, k))
                     + m * L * sum(L * math.cos(th[k] - th[pp]) for pp in range(3, k))
                     + 2 * m * sum(L * L * math.cos(th[qq] - th[pp]) for pp in range(3, k - 1) for qq in range(pp + 1, k))
                     for k in r)
    M1j, M2j = np.zeros(n), np.zeros(n)
    for j in r:
        M1j[j - 1] = -sum(0.5 * m * L * S[k] + m * sum(L * S[pp] for pp in range(j, k)) for k in range(j, n + 1))
        M2j[j - 1] = sum(0.5 * m * L * C[k] + m * sum(L * C[pp] for pp in range(j, k)) for k in range(j, n + 1))
    out["M1j"], out["M2j"] = M1j, M2j
    dM1, dM2 = np.zeros((n, n)), np.zeros((n, n))  # [k − 1, j − 1] = ∂M_k1/∂x^j = ∂M_1j/∂x^k
    for j in r:
        for k in r:
            a = max(j, k)
            dM1[k - 1, j - 1] = -sum(0.5 * m * L * C[pp] + m * sum(L * C[qq] for qq in range(a, pp))
                                     for pp in range(a, n + 1))
            dM2[k - 1, j - 1] = -sum(0.5 * m * L * S[pp] + m * sum(L * S[qq] for qq in range(a, pp))
                                     for pp in range(a, n + 1))
    out["dMk1_dxj"], out["dMk2_dxj"] = dM1, dM2
    out["G331"] = -sum(0.5 * m * L * C[pp] + m * sum(L * C[qq] for qq in range(3, pp)) for pp in r)
    out["G332"] = -sum(0.5 * m * L * S[pp] + m * sum(L * S[qq] for qq in range(3, pp)) for pp in r)
    db = np.zeros((n, 3, n))  # [i − 1, :, j − 1]
    for i in range(1, n + 1):
        for j in range(1, i + 1):
            if j == 1:
                db[i - 1, 0, 0] = 1.0
            elif j == 2:
                db[i - 1, 1, 1] = 1.0
            elif i >= 3:
                db[i - 1, 0, j - 1] = -0.5 * L * S[i] - sum(L * S[k] for k in range(j, i))
                db[i - 1, 1, j - 1] = 0.5 * L * C[i] + sum(L * C[k] for k in range(j, i))
    out["dbdx"] = db
    return out


__all__ = ["Kinematics", "Locomotion", "LocomotionRun", "ManipulationRun", "adjoint", "appendix_closed_forms",
           "bias", "body_inertias", "bracket", "christoffel", "christoffel_park", "coriolis_matrix", "exp_twist",
           "friction_forces_W", "generalized_forces", "generalized_friction", "gravity_forces", "home_frames",
           "joint_torques_along", "joint_torques_along_lab", "kinematics", "kinetic_energy", "manipulation",
           "manipulation_torques", "mean_abs_torque", "metric", "metric_derivative", "momentum_W", "twists"]
