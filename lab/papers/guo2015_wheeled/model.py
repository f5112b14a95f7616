"""The passive-wheel snake of Guo et al. 2015: three formulations of its dynamics and the
head-tracking PFL law, all pybullet-free, in the paper's coordinates q = (x, y, θ, φ_1 … φ_{n−1}).

Conventions (established from the text; details in :mod:`lab.papers.guo2015_wheeled.params`): module 1 is the
head; (x, y) is the head point, the free front end of module 1; θ is the angle of module 1's axis
pointing from the head into the body (the snake's forward direction is −(cos θ, sin θ)); module
angles θ_i = θ + Σ_{k<i} φ_k, so φ_i = θ_{i+1} − θ_i (counter-clockwise, tailward module relative to
headward one); joint torque u_i does work u_i φ̇_i. Module i has centre
C_i = (x, y) + Σ_{k<i} 2l t_k + l t_i, t_k = (cos θ_k, sin θ_k), n_k = (−sin θ_k, cos θ_k), a passive
wheel there (no lateral slip, eq. 1: n_i · Ċ_i = 0), mass m and yaw inertia J about it.

The three formulations
----------------------
(a) **Constrained Euler–Lagrange** (ours; the reference form of eq. 18): M(q) q̈ + h(q, q̇) = B u + Aᵀλ,
    A(q) q̇ = 0 (eq. 1, n rows), with M = Σ m J_iᵀJ_i + J ΘᵀΘ (J_i = ∂C_i/∂q, Θ = ∂θ_i/∂q) and
    h = Σ m J_iᵀ (J̇_i q̇), J̇_i q̇ = −Σ_k c_ik θ̇_k² t_k (c_ik = 2l for k < i, l for k = i). Two ways to
    eliminate λ: the KKT system ``method="kkt"`` (multipliers), or eq. 18's null-space projection
    ``method="nullspace"`` with the head velocity w = (ẋ, ẏ) as independent velocities:
    q̇ = F̄ w, F̄ = [I₂; −A_r⁻¹A_xy], M̄ = F̄ᵀMF̄, M̄ ẇ = F̄ᵀ(Bu − h − M F̄̇w), F̄̇w = [0; −A_r⁻¹ Ȧq̇].
(b) **Unified model** (eq. 14): q̇ = v^α e_α, v̇^μ = −Γ̃^μ_αβ v^α v^β + Y^μ_b u_b on a basis {e_1, e_2}
    of the distribution orthonormal in the kinetic-energy metric (eq. 15), with
    * the paper's **closed form for any n** (eqs. 15–17, 20–22), corrected (see ``SLIPS``), O(n), and
    * a **numerical construction**: null space of A with (ẋ, ẏ) free, Gram–Schmidt in M, the
      connection by eq. 10 from Lie brackets [e_α, e_β] computed by complex-step differentiation of
      the frame field (exact to rounding), Y by eq. 13. It works for any J.
(c) **PFL head tracking** (eqs. 19, 23, 24): :func:`pfl_torque`, :func:`simulate_pfl`.

Why the closed form holds (our derivation; it is how the slips below were found)
-------------------------------------------------------------------------------
Let w_{i−1} be the velocity of module i's front joint point (w_0 = head velocity). The wheel makes
lθ̇_i = −n_i·w_{i−1}, and the rear joint moves with w_i = w_{i−1} + 2lθ̇_i n_i: the reflection of w_{i−1}
in the module's axis. So **every joint point moves at the head's speed** |w_0|, and with
γ_i = θ_i − angle(w_{i−1}): Ċ_i = |w_0| cos γ_i t_i, lθ̇_i = |w_0| sin γ_i. Module i's kinetic energy is
½|w_0|²(m cos²γ_i + (J/l²) sin²γ_i), which is ½ m |w_0|² for every γ_i **iff J = m l²** (the text's
choice); and the cross term of two head velocities w, w' is m w·w' (reflections keep inner products).
Hence, for J = m l² only: the head-velocity basis (∂x + …, ∂y + …) is M-orthogonal with M(e, e) = n m,
e_α = (∂x or ∂y + …)/√(n m) is orthonormal, v = √(n m) ṙ_head (§5.2), and T = ½|v|² = ½ n m |ṙ_head|².
Writing the reflections out, lθ̇_i = (−1)^{i−1} sin(S_{i−1} − α_0) |w_0| with α_0 the head velocity's
angle and the alternating sums S_j = θ + Σ_{k=1}^{j} (−1)^k φ_k (S_0 = θ), which gives eq. 15. D'Alembert
on the virtual motion that turns the head velocity by 90° gives, module by module, m|w_0|(−1)^i γ̇_i
(again only for J = m l²), hence
    α̇_0 = (|w_0| / (n l)) Σ_{i=0}^{n−1} (2n−1−2i) sin(S_i − α_0) + (torque term),
i.e. v̇ = (a v_1 − b v_2)(−v_2, v_1) + Y u with a, b of eq. 16: the (2n−1−2i) weights of the paper.

Slips in the printed closed forms
---------------------------------
``SLIPS`` lists them (equation, printed, corrected, evidence); each is also noted where the code uses
the corrected form. ``tests/papers/guo2015_wheeled/test_guo2015_models.py`` shows, for each slip that can be evaluated, that
the printed form disagrees with the numerical construction and the E–L model and the corrected one
agrees to rounding.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, NamedTuple

import numpy as np

from lab.papers.guo2015_wheeled.params import Guo2015Params


class Slip(NamedTuple):
    equation: str
    printed: str
    corrected: str
    evidence: str


SLIPS: tuple[Slip, ...] = (
    Slip("§4.6 (module angles, before eq. 15)",
         "θ_i = θ + Σ_{k=1}^{i−1} θ_k",
         "θ_i = θ + Σ_{k=1}^{i−1} φ_k",
         "θ_k on the right is undefined/circular; with φ_k the centres x_i, y_i of §4.6 and the constraint "
         "(1) give exactly the basis of eq. 15 (tests: A·e_α = 0 to rounding, e_α = the numerical frame)"),
    Slip("eqs. 15 and 20 (basis, ∂φ_i components)",
         "sin/cos(θ + (−1)^k Σ_{k=0}^{i−1} φ_k) — the sign (−1)^k outside the sum over k",
         "sin/cos(θ + Σ_{k=0}^{i−1} (−1)^k φ_k), the alternating sum S_{i−1} (as eqs. 16–17 print it)",
         "joint velocities are successive reflections of the head velocity, so the signs alternate inside the "
         "sum; this reading satisfies A·e = 0 and equals the numerical null-space basis, the plain sum "
         "Σ φ_k does not (tests)"),
    Slip("eqs. 16 and 21 (connection coefficient b = Γ̃²₂₁ = −Γ̃¹₂₂)",
         "cos(θ − Σ_{k=0}^{i} (−1)^k φ_k)",
         "cos(θ + Σ_{k=0}^{i} (−1)^k φ_k) = cos S_i, the same angle as in a (and in eqs. 15, 17)",
         "the numerical construction (eq. 10 from complex-step Lie brackets) gives cos S_i to 1e-13; the "
         "printed angle differs from it at any φ ≠ 0 (tests); d'Alembert derivation in the module docstring"),
    Slip("eq. 21 (prefactor of a, b for n = 9)",
         "1 / (9 √(9 m l))",
         "1 / (9 √(9 m) l), as eq. 16 prints for general n",
         "units: Γ̃ v v must be in √kg·m/s² with v in √kg·m/s, so Γ̃ is in 1/(√kg·m); √(ml) gives 1/√(kg·m). "
         "Numerically 5× too small for l = 0.04 m (√l = 0.2; may be a typesetting slip of the root's extent)"),
    Slip("eq. 17 (input map Y)",
         "Y_{1i} = (−1)^i (sin S_{i−1} + sin S_i),  Y_{2i} = (−1)^{i−1} (cos S_{i−1} + cos S_i)",
         "the same times 1/(√(n m) l): Y^μ_i = ⟨dφ_i, e_μ⟩ (eq. 13 with M(e_μ, e_μ) = 1) is the ∂φ_i "
         "component of e_μ in eq. 15, which carries 1/(√(nm) l)",
         "eq. 13 applied to eq. 15; dimensions (Y u must be in √kg·m/s² for u in N·m: Y in 1/(√kg·m)); "
         "numerical Y and the E–L accelerations agree only with the factor; power balance "
         "vᵀ Y u = u·φ̇ holds only with it (tests)"),
    Slip("eq. 22 (drift of the unified model for n = 9)",
         "v̇ = [a v₁v₂ − b v₂², −a v₁² + b v₁v₂] + Y u",
         "v̇ = [−a v₁v₂ + b v₂², a v₁² − b v₁v₂] + Y u = −Γ̃ v v with eq. 16's Γ̃",
         "eq. 14 (v̇ = −Γ̃vv) with eq. 16 (Γ̃¹₁₂ = −Γ̃²₁₁ = a, Γ̃²₂₁ = −Γ̃¹₂₂ = b) gives the corrected sign; "
         "the E–L model and the numerical construction agree with it, the printed sign fails (tests). "
         "For one module it is the Chaplygin sleigh: the head velocity turns with the module, α̇₀ = θ̇"),
    Slip("eqs. 19, 23 (PFL: what is linearised)",
         "u = g⁺(ũ − f) makes v̇ = ũ, with ũ = r̈_ref + k_d(ṙ_ref − ṙ) + k_p(r_ref − r) (eq. 24)",
         "u = g⁺(√(n m) ũ − f): v = √(n m) ṙ_head (§5.2), so v̇ = ũ would give √(nm) r̈ = ũ, not r̈ = ũ",
         "§5.2 states v = √(9m) V_head; with the printed law the closed loop is √(nm) ë + k_d ė + k_p e = "
         "(√(nm) − 1) r̈_ref, which on Table 1's reference leaves a persistent 24 s error of amplitude "
         "(√(nm) − 1) A ω² / |k_p − √(nm) ω² + i k_d ω| = 5.6 mm in y (A = 0.2 m, ω = π/12; simulated head "
         "RMS over t ≥ 20 s 4.3 mm) instead of one decaying as e^(−0.101 t) (0.54 mm) (tests)"),
)


def slip_rows() -> list[tuple[str, str, str, str]]:
    """``SLIPS`` as plain tuples, for a report table."""
    return [tuple(s) for s in SLIPS]


# ======================================================================== kinematics (shared geometry)


class _Chain(NamedTuple):
    Cw: np.ndarray  # (n, n): c_ik = 2l (k < i), l (k = i), 0 (k > i)
    T: np.ndarray  # (n, n): ∂θ_i/∂(θ, φ_1 … φ_{n−1}) = lower-triangular ones
    sgn: np.ndarray  # (n−1,): (−1)^k, k = 1 … n−1 (the alternation of S and of eq. 15's φ components)
    w: np.ndarray  # (n,): 2n − 1 − 2i, i = 0 … n−1 (eq. 16's weights)


@lru_cache(maxsize=64)
def _chain(n: int, l: float) -> _Chain:
    Cw = np.tril(np.full((n, n), 2.0 * l), -1) + l * np.eye(n)
    T = np.tril(np.ones((n, n)))
    sgn = np.where(np.arange(1, n) % 2 == 0, 1.0, -1.0)
    w = 2.0 * n - 1.0 - 2.0 * np.arange(n)
    for a in (Cw, T, sgn, w):
        a.setflags(write=False)
    return _Chain(Cw, T, sgn, w)


def module_angles(q: np.ndarray) -> np.ndarray:
    """θ_i = θ + Σ_{k<i} φ_k, i = 1 … n (world, axis pointing tailward). Complex-safe."""
    q = np.asarray(q)
    return q[2] + np.concatenate((np.zeros(1, dtype=q.dtype), np.cumsum(q[3:])))


def module_centres(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """C_i (n, 2), world frame: the module centres = wheel contact points = centres of mass (§4.6)."""
    th = module_angles(q)
    Cw = _chain(p.n, p.l).Cw
    return np.stack([q[0] + Cw @ np.cos(th), q[1] + Cw @ np.sin(th)], axis=1)


def joint_points(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """P_0 … P_n (n+1, 2), world frame: P_0 = head point (x, y), P_i = rear end of module i."""
    th = module_angles(q)
    steps = 2.0 * p.l * np.stack([np.cos(th), np.sin(th)], axis=1)
    return np.vstack([q[:2], q[:2] + np.cumsum(steps, axis=0)])


def q_from_modules(p: Guo2015Params, centres_W: np.ndarray, theta_W: np.ndarray) -> np.ndarray:
    """Paper coordinates from module poses (e.g. read from an engine): ``centres_W`` (n, 2) head module
    first, ``theta_W`` (n,) the module axes' world angles **pointing tailward** (add π to a yaw whose x
    axis points forward). (x, y) = C_1 − l t_1; φ_i = θ_{i+1} − θ_i wrapped to (−π, π]."""
    c = np.asarray(centres_W, dtype=float)
    th = np.asarray(theta_W, dtype=float)
    head = c[0] - p.l * np.array([math.cos(th[0]), math.sin(th[0])])
    phi = np.angle(np.exp(1j * np.diff(th)))
    return np.concatenate([head, [th[0]], phi])


def head_position(q: np.ndarray) -> np.ndarray:
    """r = (x, y): the head point, world frame (§5.2)."""
    return np.asarray(q[:2], dtype=float)


# ======================================================================== (a) constrained Euler–Lagrange


def _jacobians(p: Guo2015Params, q: np.ndarray):
    """(θ_i, Jx, Jy) with J_i = ∂C_i/∂q split into x and y rows, each (n, n+2). Complex-safe."""
    n = p.n
    ch = _chain(n, p.l)
    th = module_angles(q)
    s, c = np.sin(th), np.cos(th)
    Jx = np.zeros((n, n + 2), dtype=th.dtype)
    Jy = np.zeros((n, n + 2), dtype=th.dtype)
    Jx[:, 0] = 1.0
    Jy[:, 1] = 1.0
    Jx[:, 2:] = (ch.Cw * -s) @ ch.T  # ∂C_i/∂θ_k = c_ik n_k, chained through θ_k(θ, φ)
    Jy[:, 2:] = (ch.Cw * c) @ ch.T
    return th, Jx, Jy


def mass_matrix(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """M(q) (n+2, n+2): T = ½ q̇ᵀ M q̇ = Σ ½ m |Ċ_i|² + ½ J θ̇_i². Complex-safe (for complex steps)."""
    th, Jx, Jy = _jacobians(p, q)
    M = p.m * (Jx.T @ Jx + Jy.T @ Jy)
    T = _chain(p.n, p.l).T
    M[2:, 2:] += p.J * (T.T @ T)
    return M


def constraint_matrix(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """A(q) (n, n+2): row i is n_i · ∂C_i/∂q, so A q̇ = 0 is eq. 1 (ẋ_i sin θ_i − ẏ_i cos θ_i = 0, up to
    the sign of each row). Complex-safe."""
    th, Jx, Jy = _jacobians(p, q)
    return -np.sin(th)[:, None] * Jx + np.cos(th)[:, None] * Jy


def el_terms(p: Guo2015Params, q: np.ndarray, qd: np.ndarray):
    """(M, h, A, Ȧq̇): M q̈ + h = B u + Aᵀλ and A q̈ + Ȧq̇ = 0 (the constraint differentiated)."""
    ch = _chain(p.n, p.l)
    th, Jx, Jy = _jacobians(p, q)
    s, c = np.sin(th), np.cos(th)
    M = p.m * (Jx.T @ Jx + Jy.T @ Jy)
    M[2:, 2:] += p.J * (ch.T.T @ ch.T)
    thd = ch.T @ qd[2:]
    # velocity-product part of C̈_i: d/dt(c_ik t_k) = c_ik(θ̈_k n_k − θ̇_k² t_k)
    ax = -ch.Cw @ (thd * thd * c)
    ay = -ch.Cw @ (thd * thd * s)
    h = p.m * (Jx.T @ ax + Jy.T @ ay)
    A = -s[:, None] * Jx + c[:, None] * Jy
    Cxd, Cyd = Jx @ qd, Jy @ qd
    # d/dt (n_i·Ċ_i) = ṅ_i·Ċ_i + n_i·C̈_i, ṅ_i = −θ̇_i t_i; the q̈-free part of n_i·C̈_i is n_i·(ax, ay)
    Adot_qd = -thd * (c * Cxd + s * Cyd) + (-s * ax + c * ay)
    return M, h, A, Adot_qd


def el_accelerations(p: Guo2015Params, q: np.ndarray, qd: np.ndarray, u: np.ndarray,
                     method: str = "kkt") -> np.ndarray:
    """q̈ from the constrained Euler–Lagrange equations, for an admissible (q, q̇) (A q̇ = 0) and joint
    torques u (n−1,). ``method``: "kkt" (Lagrange multipliers) or "nullspace" (eq. 18's projection onto
    the head velocity)."""
    n = p.n
    M, h, A, Adq = el_terms(p, q, qd)
    Q = -h
    Q[3:] += u
    if method == "kkt":
        K = np.zeros((2 * n + 2, 2 * n + 2))
        K[: n + 2, : n + 2] = M
        K[: n + 2, n + 2 :] = A.T
        K[n + 2 :, : n + 2] = A
        return np.linalg.solve(K, np.concatenate((Q, -Adq)))[: n + 2]
    if method == "nullspace":
        # q̇ = F̄ w with w = (ẋ, ẏ); A_r F + A_xy = 0 and A_r F̄̇w = −Ȧq̇ (F̄̇ has zero x, y rows)
        sol = np.linalg.solve(A[:, 2:], np.column_stack((A[:, :2], Adq)))
        Fb = np.vstack((np.eye(2), -sol[:, :2]))
        d = np.concatenate((np.zeros(2), -sol[:, 2]))
        Mb = Fb.T @ M @ Fb
        wdd = np.linalg.solve(Mb, Fb.T @ (Q - M @ d))
        return Fb @ wdd + d
    raise ValueError(f"method: 'kkt' or 'nullspace', got {method!r}")


def el_head_affine(p: Guo2015Params, q: np.ndarray, r_dot_W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f_r, G_r) with r̈_head = f_r + G_r u, from eq. 18's null-space form, for any J: the constraints fix
    q̇ from the head velocity (q̇ = F̄ ṙ). The exact affine map a PFL needs when J ≠ m l²."""
    M, h, A, _ = el_terms(p, q, np.zeros(p.n + 2))
    F = -np.linalg.solve(A[:, 2:], A[:, :2])
    Fb = np.vstack((np.eye(2), F))
    qd = Fb @ np.asarray(r_dot_W, dtype=float)
    M, h, A, Adq = el_terms(p, q, qd)
    d = np.concatenate((np.zeros(2), -np.linalg.solve(A[:, 2:], Adq)))
    Mb = Fb.T @ M @ Fb
    f_r = -np.linalg.solve(Mb, Fb.T @ (h + M @ d))
    G_r = np.linalg.solve(Mb, Fb[3:].T)
    return f_r, G_r


def kinetic_energy(p: Guo2015Params, q: np.ndarray, qd: np.ndarray) -> float:
    """T = ½ q̇ᵀ M(q) q̇ (J)."""
    return float(0.5 * qd @ mass_matrix(p, q) @ qd)


# ======================================================================== (b) unified model, closed form


def _require_closed_form(p: Guo2015Params) -> None:
    if not p.closed_form_valid:
        raise ValueError(f"J: the closed forms of eqs. 15–17 need J = m l² = {p.m * p.l**2:.6g}, got {p.J:.6g}; "
                         "use the numerical construction or the E–L model for other J")


def alternating_sums(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """S_i = θ + Σ_{k=1}^{i} (−1)^k φ_k, i = 0 … n−1 (S_0 = θ): the angles of eqs. 15–17 (with the
    (−1)^k inside the sum, slip 2). S_i − α_0 = (−1)^i γ_{i+1}, the angle between module i+1 and the
    velocity of its front joint when the head moves along α_0."""
    sgn = _chain(p.n, p.l).sgn
    return q[2] + np.concatenate(([0.0], np.cumsum(sgn * q[3:])))


def basis_closed(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """E = [e_1 e_2] (n+2, 2), eq. 15 (eq. 20 for n = 9), with the alternating sums inside (slips 1, 2):
    e_1 = (∂x + (sin θ/l) ∂θ + (1/l) Σ_i (−1)^i (sin S_{i−1} + sin S_i) ∂φ_i) / √(n m),
    e_2 = (∂y − (cos θ/l) ∂θ + (1/l) Σ_i (−1)^{i−1} (cos S_{i−1} + cos S_i) ∂φ_i) / √(n m)."""
    _require_closed_form(p)
    S = alternating_sums(p, q)
    sgn = _chain(p.n, p.l).sgn  # (−1)^i, i = 1 … n−1
    sS, cS = np.sin(S), np.cos(S)
    k = 1.0 / (p.sqrt_nm * p.l)
    E = np.zeros((p.n + 2, 2))
    E[0, 0] = E[1, 1] = 1.0 / p.sqrt_nm
    E[2, 0] = k * sS[0]
    E[2, 1] = -k * cS[0]
    E[3:, 0] = k * sgn * (sS[:-1] + sS[1:])
    E[3:, 1] = -k * sgn * (cS[:-1] + cS[1:])
    return E


def connection_ab(p: Guo2015Params, q: np.ndarray) -> tuple[float, float]:
    """(a, b) of eq. 16 (eq. 21 for n = 9), corrected (slips 3, 4):
    a = Γ̃¹₁₂ = −Γ̃²₁₁ = Σ_{i=0}^{n−1} (2n−1−2i) sin S_i / (n √(n m) l),
    b = Γ̃²₂₁ = −Γ̃¹₂₂ = Σ_{i=0}^{n−1} (2n−1−2i) cos S_i / (n √(n m) l)."""
    _require_closed_form(p)
    S = alternating_sums(p, q)
    w = _chain(p.n, p.l).w
    k = 1.0 / (p.n * p.sqrt_nm * p.l)
    return float(k * (w @ np.sin(S))), float(k * (w @ np.cos(S)))


def connection_closed(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """Γ̃[μ, α, β] (2, 2, 2) (0-based: Γ̃[0, 0, 1] = Γ̃¹₁₂), eq. 16; the other four are zero."""
    a, b = connection_ab(p, q)
    G = np.zeros((2, 2, 2))
    G[0, 0, 1], G[1, 0, 0] = a, -a
    G[1, 1, 0], G[0, 1, 1] = b, -b
    return G


def input_map_closed(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """Y (2, n−1), eq. 17 with the factor 1/(√(n m) l) it misses (slip 5): Y^μ_i = ∂φ_i-component of e_μ."""
    return basis_closed(p, q)[3:].T.copy()


def drift_closed(p: Guo2015Params, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """f = −Γ̃ v v = [−a v₁v₂ + b v₂², a v₁² − b v₁v₂] (eq. 22 with its sign corrected, slip 6)."""
    a, b = connection_ab(p, q)
    turn = a * v[0] - b * v[1]  # = α̇_0 of the head velocity when u = 0
    return np.array([-turn * v[1], turn * v[0]])


def unified_vdot(p: Guo2015Params, q: np.ndarray, v: np.ndarray, u: np.ndarray) -> np.ndarray:
    """v̇ = f + Y u (eq. 14, closed form)."""
    return drift_closed(p, q, v) + input_map_closed(p, q) @ u


def unified_accelerations(p: Guo2015Params, q: np.ndarray, v: np.ndarray, u: np.ndarray) -> np.ndarray:
    """q̈ = E v̇ + Ė v (closed form; Ė v by differentiating eq. 15 along q̇ = E v analytically)."""
    E = basis_closed(p, q)
    qd = E @ v
    S = alternating_sums(p, q)
    sgn = _chain(p.n, p.l).sgn
    Sd = qd[2] + np.concatenate(([0.0], np.cumsum(sgn * qd[3:])))
    sS, cS = np.sin(S), np.cos(S)
    k = 1.0 / (p.sqrt_nm * p.l)
    g = (cS * v[0] + sS * v[1]) * Sd  # d/dt of (v₁ sin S_j − v₂ cos S_j) at fixed v
    Edot_v = np.zeros(p.n + 2)
    Edot_v[2] = k * g[0]
    Edot_v[3:] = k * sgn * (g[:-1] + g[1:])
    return E @ unified_vdot(p, q, v, u) + Edot_v


class UnifiedRHS:
    """The closed-form unified model as a fast ``rhs(t, y)``, y = (q, v), n + 4 states; O(n) numpy work.

    ``torque(t, q, r_dot_W) -> u`` gives the joint torques (None: u = 0); r_dot_W = v / √(n m).
    Same formulas as :func:`basis_closed`, :func:`connection_ab`, :func:`input_map_closed` and
    :func:`drift_closed`, fused: with g_j = v₁ sin S_j − v₂ cos S_j,
    θ̇ = g_0/(√(nm) l), φ̇_i = (−1)^i (g_{i−1} + g_i)/(√(nm) l) (eq. 15), a v₁ − b v₂ = Σ w_j g_j/(n√(nm) l)
    (eq. 16), and Y u = (Σ c_j sin S_j, −Σ c_j cos S_j) with c_j = s_j + s_{j+1}, s_i = (−1)^i u_i/(√(nm) l)
    (eq. 17). One cumulative sum, one sin and one cos, and a handful of vector operations per call:
    below n ≈ 100 numpy's per-call overhead, not arithmetic, is the cost (benchmarks/guo2015_rhs.py)."""

    def __init__(self, p: Guo2015Params, torque: Callable | None = None):
        _require_closed_form(p)
        self.p = p
        self.n = p.n
        self.torque = torque
        ch = _chain(p.n, p.l)
        self._sgn = ch.sgn
        self._k = 1.0 / (p.sqrt_nm * p.l)
        self._sgn_k = ch.sgn * self._k
        self._w_ab = ch.w / (p.n * p.sqrt_nm * p.l)
        self._inv = 1.0 / p.sqrt_nm
        self._x = np.empty(p.n)
        self._c = np.zeros(p.n)

    def __call__(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.n
        x = self._x
        x[0] = y[2]
        np.multiply(self._sgn, y[3 : n + 2], out=x[1:])
        S = np.add.accumulate(x)  # the alternating sums S_0 … S_{n−1}
        sS, cS = np.sin(S), np.cos(S)
        v1, v2 = float(y[n + 2]), float(y[n + 3])
        g = sS * v1
        g -= cS * v2
        out = np.empty(n + 4)
        out[0] = v1 * self._inv
        out[1] = v2 * self._inv
        out[2] = self._k * float(g[0])
        np.multiply(g[:-1] + g[1:], self._sgn_k, out=out[3 : n + 2])
        turn = float(self._w_ab @ g)  # a v₁ − b v₂
        ax, ay = -turn * v2, turn * v1  # −Γ̃vv (eq. 22, sign corrected)
        if self.torque is not None:
            s = self._sgn_k * self.torque(t, y[: n + 2], out[0:2].copy())
            c = self._c
            c[:-1] = s
            c[-1] = 0.0
            c[1:] += s
            ax += float(sS @ c)
            ay -= float(cS @ c)
        out[n + 2] = ax
        out[n + 3] = ay
        return out


class ELRHS:
    """The constrained E–L model as ``rhs(t, y)``, y = (q, q̇), 2n + 4 states (``method`` as
    :func:`el_accelerations`). ``torque(t, q, r_dot_W) -> u``, r_dot_W = (ẋ, ẏ)."""

    def __init__(self, p: Guo2015Params, torque: Callable | None = None, method: str = "kkt"):
        self.p, self.n, self.torque, self.method = p, p.n, torque, method
        self._zero_u = np.zeros(p.n - 1)

    def __call__(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.n
        q, qd = y[: n + 2], y[n + 2 :]
        u = self._zero_u if self.torque is None else self.torque(t, q, qd[:2])
        return np.concatenate((qd, el_accelerations(self.p, q, qd, u, self.method)))


# ======================================================================== (b) unified model, numerical


def basis_numeric(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """E (n+2, 2) built numerically: null space of A(q) with (ẋ, ẏ) free, d_α = [ê_α; −A_r⁻¹A_xy ê_α],
    then Gram–Schmidt in M(q) (§4.6: "利用 Gram-Schmidt 关于度量正交归一化"). Any J. Complex-safe (no
    conjugates, principal square roots), so complex steps differentiate it."""
    A = constraint_matrix(p, q)
    M = mass_matrix(p, q)
    D = np.zeros((p.n + 2, 2), dtype=A.dtype)
    D[0, 0] = D[1, 1] = 1.0
    D[2:] = -np.linalg.solve(A[:, 2:], A[:, :2])
    e1 = D[:, 0] / np.sqrt(D[:, 0] @ M @ D[:, 0])
    d2 = D[:, 1] - (e1 @ M @ D[:, 1]) * e1
    e2 = d2 / np.sqrt(d2 @ M @ d2)
    return np.column_stack((e1, e2))


_H_CS = 1e-30  # complex step: no subtraction, so any tiny step gives the derivative to rounding


def _dbasis(p: Guo2015Params, q: np.ndarray, X: np.ndarray) -> np.ndarray:
    """D_X E (n+2, 2): derivative of the numerical frame along the real direction X (complex step)."""
    return basis_numeric(p, np.asarray(q, dtype=float) + 1j * _H_CS * np.asarray(X, dtype=float)).imag / _H_CS


def _dframe_metric(p: Guo2015Params, q: np.ndarray, X: np.ndarray) -> np.ndarray:
    """X(M_αβ), M_αβ = e_αᵀ M e_β (the first bracket of eq. 10; zero for an orthonormal frame)."""
    qc = np.asarray(q, dtype=float) + 1j * _H_CS * np.asarray(X, dtype=float)
    E = basis_numeric(p, qc)
    return (E.T @ mass_matrix(p, qc) @ E).imag / _H_CS


def connection_numeric(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """Γ̃[μ, α, β] by eq. 10 on the numerical frame: Lie bracket [e_α, e_β] = D_{e_α}e_β − D_{e_β}e_α (complex
    steps), −2Ω^μ_αβ = P^μ_i [e_α, e_β]^i with P^μ_i = M(∂_i, e_μ)/M(e_μ, e_μ), and

    Γ̃^μ_αβ = ½ M^μσ (e_α(M_βσ) + e_β(M_ασ) − e_σ(M_αβ)) + M_αν M^μσ Ω^ν_βσ + M_βν M^μσ Ω^ν_ασ − Ω^μ_αβ.

    (Eq. 10 as printed is right; for an orthonormal frame it is the Koszul formula.)"""
    q = np.asarray(q, dtype=float)
    E = basis_numeric(p, q)
    M = mass_matrix(p, q)
    Mab = E.T @ M @ E
    Minv = np.linalg.inv(Mab)
    dE = [_dbasis(p, q, E[:, a]) for a in range(2)]  # dE[a] = D_{e_a} E
    br = dE[0][:, 1] - dE[1][:, 0]  # [e_1, e_2]
    P = (M @ E) / np.diag(Mab)  # P[i, μ] = M(∂_i, e_μ)/M(e_μ, e_μ)
    Om = np.zeros((2, 2, 2))  # Ω[μ, α, β]
    Om[:, 0, 1] = -0.5 * (P.T @ br)
    Om[:, 1, 0] = -Om[:, 0, 1]
    dM = np.array([_dframe_metric(p, q, E[:, a]) for a in range(2)])  # dM[γ, α, β] = e_γ(M_αβ)
    # [a, b, s]-indexed: e_α(M_βσ) = dM[α, β, σ], e_β(M_ασ) = dM[β, α, σ], e_σ(M_αβ) = dM[σ, α, β]
    G = 0.5 * np.einsum("ms,abs->mab", Minv,
                        dM + dM.transpose(1, 0, 2) - np.transpose(dM, (1, 2, 0)))
    G += np.einsum("an,ms,nbs->mab", Mab, Minv, Om)
    G += np.einsum("bn,ms,nas->mab", Mab, Minv, Om)
    G -= Om
    return G


def input_map_numeric(p: Guo2015Params, q: np.ndarray) -> np.ndarray:
    """Y (2, n−1) by eq. 13: Y^μ_b = ⟨dφ_b, e_μ⟩ / M(e_μ, e_μ) on the numerical frame."""
    E = basis_numeric(p, q)
    return (E[3:] / np.diag(E.T @ mass_matrix(p, q) @ E)).T


def numeric_accelerations(p: Guo2015Params, q: np.ndarray, v: np.ndarray, u: np.ndarray) -> np.ndarray:
    """q̈ from the numerically constructed unified model: v̇ = −Γ̃vv + Yu, q̈ = E v̇ + (D_{q̇}E) v."""
    E = basis_numeric(p, q)
    G = connection_numeric(p, q)
    vd = -np.einsum("mab,a,b->m", G, v, v) + input_map_numeric(p, q) @ u
    return E @ vd + _dbasis(p, q, E @ v) @ v


# ======================================================================== (d) state conversions


def qdot_from_pseudo(p: Guo2015Params, q: np.ndarray, v: np.ndarray, frame: str = "closed") -> np.ndarray:
    """q̇ = v^α e_α (eq. 2). ``frame``: "closed" (eq. 15) or "numeric" (any J)."""
    E = basis_closed(p, q) if frame == "closed" else basis_numeric(p, q)
    return E @ np.asarray(v, dtype=float)


def pseudo_from_qdot(p: Guo2015Params, q: np.ndarray, qd: np.ndarray, frame: str = "closed") -> np.ndarray:
    """v = Eᵀ M q̇ (orthonormal frame); for the closed frame this is √(n m) (ẋ, ẏ)."""
    E = basis_closed(p, q) if frame == "closed" else basis_numeric(p, q)
    return E.T @ mass_matrix(p, q) @ np.asarray(qd, dtype=float)


def pseudo_from_head_velocity(p: Guo2015Params, r_dot_W: np.ndarray) -> np.ndarray:
    """v = √(n m) ṙ_head (§5.2; closed frame, J = m l²)."""
    return p.sqrt_nm * np.asarray(r_dot_W, dtype=float)


def head_velocity(p: Guo2015Params, v: np.ndarray) -> np.ndarray:
    """ṙ_head = v / √(n m), world frame (closed frame)."""
    return np.asarray(v, dtype=float) / p.sqrt_nm


def qdot_from_head_velocity(p: Guo2015Params, q: np.ndarray, r_dot_W: np.ndarray) -> np.ndarray:
    """The admissible q̇ with head velocity ṙ (any J): q̇ = F̄ ṙ, F̄ = [I₂; −A_r⁻¹A_xy]."""
    A = constraint_matrix(p, q)
    return np.concatenate((r_dot_W, -np.linalg.solve(A[:, 2:], A[:, :2] @ np.asarray(r_dot_W, dtype=float))))


def head_accelerations(p: Guo2015Params, q: np.ndarray, r_dot_W: np.ndarray, u: np.ndarray) -> dict[str, np.ndarray]:
    """(ẍ, ÿ) of the head from every formulation at (q, ṙ_head, u): a cross-check's spot values."""
    qd = qdot_from_head_velocity(p, q, r_dot_W)
    out = {"el_kkt": el_accelerations(p, q, qd, u, "kkt")[:2],
           "el_nullspace": el_accelerations(p, q, qd, u, "nullspace")[:2]}
    v_num = pseudo_from_qdot(p, q, qd, "numeric")
    out["unified_numeric"] = numeric_accelerations(p, q, v_num, u)[:2]
    if p.closed_form_valid:
        v = pseudo_from_head_velocity(p, r_dot_W)
        out["unified_closed"] = unified_vdot(p, q, v, u) / p.sqrt_nm
        out["unified_closed_qdd"] = unified_accelerations(p, q, v, u)[:2]
    return out


def spot_values(p: Guo2015Params | None = None) -> dict[str, np.ndarray]:
    """The report's spot check: Table 1's q0, head velocity (−0.1, 0.05) m/s, u_j = 0.01 j N·m."""
    p = Guo2015Params() if p is None else p
    return head_accelerations(p, p.q0(), np.array([-0.1, 0.05]), 0.01 * np.arange(1, p.n))


# ======================================================================== printed forms (slip evidence)


def printed_forms(p: Guo2015Params, q: np.ndarray, v: np.ndarray) -> dict[str, np.ndarray | float]:
    """The closed forms **as printed**, evaluated, for the slip table and its tests:
    ``E_plain_sum`` (eq. 15 read with Σ φ_k, no alternation), ``b_eq16`` (cos(θ − Σ…)),
    ``prefactor_eq21`` (1/(9√(9ml)) for n = 9, vs 1/(n√(nm) l)), ``Y_eq17`` (no 1/(√(nm) l)),
    ``f_eq22`` (the printed sign), and the corrected counterparts with the suffix ``_corrected``."""
    S = alternating_sums(p, q)
    w = _chain(p.n, p.l).w
    sgn = _chain(p.n, p.l).sgn
    k = 1.0 / (p.n * p.sqrt_nm * p.l)
    a, b = connection_ab(p, q)
    b_printed = float(k * (w @ np.cos(2 * q[2] - S)))  # θ − Σ(−1)^kφ_k = 2θ − S_i
    plain = q[2] + np.concatenate(([0.0], np.cumsum(q[3:])))
    E_plain = np.zeros((p.n + 2, 2))
    kk = 1.0 / (p.sqrt_nm * p.l)
    E_plain[0, 0] = E_plain[1, 1] = 1.0 / p.sqrt_nm
    E_plain[2, 0], E_plain[2, 1] = kk * math.sin(q[2]), -kk * math.cos(q[2])
    E_plain[3:, 0] = kk * sgn * (np.sin(plain[:-1]) + np.sin(plain[1:]))
    E_plain[3:, 1] = -kk * sgn * (np.cos(plain[:-1]) + np.cos(plain[1:]))
    Y = input_map_closed(p, q)
    v = np.asarray(v, dtype=float)
    return {
        "E_plain_sum": E_plain, "E_corrected": basis_closed(p, q),
        "b_eq16": b_printed, "b_corrected": b,
        "prefactor_eq21": 1.0 / (p.n * math.sqrt(p.n * p.m * p.l)), "prefactor_corrected": k,
        "Y_eq17": Y * (p.sqrt_nm * p.l), "Y_corrected": Y,
        "f_eq22": np.array([a * v[0] * v[1] - b * v[1] ** 2, -a * v[0] ** 2 + b * v[0] * v[1]]),
        "f_corrected": drift_closed(p, q, v),
    }


# ======================================================================== (c) PFL head tracking


def pfl_torque(p: Guo2015Params, q: np.ndarray, r_dot_W: np.ndarray, t: float, *, paper_scaling: bool = False,
               model: str = "unified", u_max: float | None = None) -> np.ndarray:
    """Joint torques u (n−1,) of the head-tracking PFL, eqs. 23–24, from the configuration q (paper
    coordinates) and the head velocity ṙ (world frame, m/s) — the state an engine controller reads.

    ũ = r̈_ref + k_d (ṙ_ref − ṙ) + k_p (r_ref − r) (eq. 24) and u = g⁺(√(n m) ũ − f) with f = −Γ̃vv,
    g = Y, v = √(n m) ṙ: then v̇ = √(n m) ũ, i.e. **r̈_head = ũ** (slip 7: the printed u = g⁺(ũ − f) sets
    v̇ = ũ; ``paper_scaling=True`` reproduces it). g⁺ = gᵀ(ggᵀ)⁻¹, the Moore–Penrose pseudo-inverse of
    the full-row-rank 2×(n−1) map: the least-norm torques that give the head acceleration.

    ``model="unified"``: f, g from the closed form (J = m l²; O(n)). ``model="el"``: the exact affine
    map r̈ = f_r + G_r u from eq. 18's null-space form (any J, e.g. an engine's module inertia), with
    u = G_r⁺(ũ − f_r) — the same torques when J = m l². ``u_max`` (default ``p.u_max``) clips each
    torque (this breaks the linearisation while it is active)."""
    q = np.asarray(q, dtype=float)
    r_dot_W = np.asarray(r_dot_W, dtype=float)
    r_ref, rd_ref, rdd_ref = p.reference(t)
    ut = rdd_ref + p.k_d * (rd_ref - r_dot_W) + p.k_p * (r_ref - q[:2])
    if model == "unified":
        v = p.sqrt_nm * r_dot_W
        g = input_map_closed(p, q)
        target = (ut if paper_scaling else p.sqrt_nm * ut) - drift_closed(p, q, v)
    elif model == "el":
        if paper_scaling:
            raise ValueError("paper_scaling: only with model='unified' (the printed law is in pseudo-velocities)")
        f_r, g = el_head_affine(p, q, r_dot_W)
        target = ut - f_r
    else:
        raise ValueError(f"model: 'unified' or 'el', got {model!r}")
    u = g.T @ np.linalg.solve(g @ g.T, target)
    lim = p.u_max if u_max is None else u_max
    return u if lim is None else np.clip(u, -lim, lim)


def pfl_error_expected(p: Guo2015Params, t: np.ndarray) -> np.ndarray:
    """e(t) = r_ref − r (len(t), 2) that an exact PFL must produce: under r̈ = ũ (eq. 24) the error obeys
    ë + k_d ė + k_p e = 0 exactly, from e(0) = r_ref(0) − (x0, y0), ė(0) = ṙ_ref(0) − v0/√(n m). With
    Table 1 (k_p = 1, k_d = 10) the roots are −0.101 and −9.899 s⁻¹: the slow one sets the RMS."""
    t = np.asarray(t, dtype=float)
    r0, rd0, _ = p.reference(0.0)
    e0, ed0 = r0 - np.asarray(p.xy0), rd0 - np.asarray(p.v0) / p.sqrt_nm
    disc = complex(p.k_d * p.k_d - 4.0 * p.k_p)
    l1, l2 = (-p.k_d + disc**0.5) / 2.0, (-p.k_d - disc**0.5) / 2.0
    if abs(l1 - l2) > 1e-6 * max(1.0, abs(l1)):
        A = (ed0 - l2 * e0) / (l1 - l2)  # e = A e^{λ1 t} + (e0 − A) e^{λ2 t}
        return (np.exp(l1 * t)[:, None] * A + np.exp(l2 * t)[:, None] * (e0 - A)).real
    lam = -p.k_d / 2.0  # critically damped: e = (e0 + (ė0 − λ e0) t) e^{λ t}
    return np.exp(lam * t)[:, None] * (e0 + np.outer(t, ed0 - lam * e0))


@dataclass
class PFLRun:
    """A closed-loop run sampled at ``t``: configuration, head, reference, torques."""

    t: np.ndarray
    q: np.ndarray  # (len(t), n+2)
    r: np.ndarray  # (len(t), 2) head point
    r_dot: np.ndarray  # (len(t), 2) head velocity
    r_ref: np.ndarray  # (len(t), 2)
    u: np.ndarray  # (len(t), n−1) joint torques
    plant: str
    nfev: int = 0
    wall_s: float = 0.0

    @property
    def phi(self) -> np.ndarray:
        return self.q[:, 3:]

    @property
    def head_error(self) -> np.ndarray:
        """|r_ref − r| (m)."""
        return np.linalg.norm(self.r_ref - self.r, axis=1)

    def head_rms(self, t_from: float = 20.0) -> float:
        """RMS of |r_ref − r| over t ≥ t_from (samples are uniform in t)."""
        k = self.t >= t_from
        return float(np.sqrt(np.mean(self.head_error[k] ** 2)))

    def torque_rms(self, t0: float = 36.0, t1: float = 60.0) -> np.ndarray:
        """Per-joint RMS torque over [t0, t1] (N·m)."""
        k = (self.t >= t0) & (self.t <= t1)
        return np.sqrt(np.mean(self.u[k] ** 2, axis=0))


def simulate_pfl(p: Guo2015Params, t_end: float = 60.0, *, plant: str = "unified", dt_out: float = 0.05,
                 paper_scaling: bool = False, controller_model: str = "unified", rtol: float = 1e-10,
                 atol: float = 1e-12, method: str = "DOP853") -> PFLRun:
    """The PFL closed loop on a model plant, from ``p.y0()`` (Table 1's q0, at rest by default), with
    solve_ivp. ``plant``: "unified" (closed form, y = (q, v)) or "el" (constrained E–L KKT, y = (q, q̇)).
    The controller always reads only (q, ṙ_head, t), as an engine controller would."""

    def torque(t, q, r_dot):
        return pfl_torque(p, q, r_dot, t, paper_scaling=paper_scaling, model=controller_model)

    n = p.n
    if plant == "unified":
        rhs = UnifiedRHS(p, torque)
        y0 = p.y0()
    elif plant in ("el", "el_nullspace"):
        rhs = ELRHS(p, torque, "kkt" if plant == "el" else "nullspace")
        q0 = p.q0()
        y0 = np.concatenate((q0, qdot_from_head_velocity(p, q0, np.asarray(p.v0) / p.sqrt_nm)))
    else:
        raise ValueError(f"plant: 'unified', 'el' or 'el_nullspace', got {plant!r}")
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    t0 = time.perf_counter()
    from scipy.integrate import solve_ivp  # deferred: importing scipy.integrate costs ~0.3 s
    sol = solve_ivp(rhs, (0.0, t_end), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol)
    wall = time.perf_counter() - t0
    if not sol.success:
        raise RuntimeError(f"simulate_pfl ({plant}): solve_ivp failed: {sol.message}")
    Yt = sol.y.T
    q = Yt[:, : n + 2]
    r_dot = Yt[:, n + 2 :] / p.sqrt_nm if plant == "unified" else Yt[:, n + 2 : n + 4]
    u = np.array([torque(t, qq, rd) for t, qq, rd in zip(sol.t, q, r_dot)])
    r_ref = np.array([p.reference(t)[0] for t in sol.t])
    return PFLRun(t=sol.t, q=q, r=q[:, :2].copy(), r_dot=r_dot, r_ref=r_ref, u=u, plant=plant,
                  nfev=int(sol.nfev), wall_s=wall)


def simulate(p: Guo2015Params, t_end: float, *, formulation: str = "unified", y0: np.ndarray | None = None,
             torque: Callable | None = None, t_eval=None, rtol: float = 1e-10, atol: float = 1e-12,
             method: str = "DOP853"):
    """Open-loop (or any ``torque(t, q, r_dot_W)``) run of one formulation with solve_ivp: "unified"
    (y = (q, v), default ``p.y0()``), "el_kkt" or "el_nullspace" (y = (q, q̇), default from ``p.y0()``).
    Returns the solve_ivp solution."""
    if formulation == "unified":
        rhs = UnifiedRHS(p, torque)
        y = p.y0() if y0 is None else np.asarray(y0, dtype=float)
    elif formulation in ("el_kkt", "el_nullspace"):
        rhs = ELRHS(p, torque, formulation[3:])
        if y0 is None:
            q0 = p.q0()
            y = np.concatenate((q0, qdot_from_head_velocity(p, q0, np.asarray(p.v0) / p.sqrt_nm)))
        else:
            y = np.asarray(y0, dtype=float)
    else:
        raise ValueError(f"formulation: 'unified', 'el_kkt' or 'el_nullspace', got {formulation!r}")
    from scipy.integrate import solve_ivp  # deferred: importing scipy.integrate costs ~0.3 s
    sol = solve_ivp(rhs, (0.0, t_end), y, method=method, t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"simulate ({formulation}): solve_ivp failed: {sol.message}")
    return sol


__all__ = [
    "SLIPS", "Slip", "slip_rows", "module_angles", "module_centres", "joint_points", "q_from_modules",
    "head_position", "mass_matrix", "constraint_matrix", "el_terms", "el_accelerations", "el_head_affine",
    "kinetic_energy", "alternating_sums", "basis_closed", "connection_ab", "connection_closed",
    "input_map_closed", "drift_closed", "unified_vdot", "unified_accelerations", "UnifiedRHS", "ELRHS",
    "basis_numeric", "connection_numeric", "input_map_numeric", "numeric_accelerations", "qdot_from_pseudo",
    "pseudo_from_qdot", "pseudo_from_head_velocity", "head_velocity", "qdot_from_head_velocity",
    "head_accelerations", "spot_values", "printed_forms", "pfl_torque", "pfl_error_expected", "PFLRun", "simulate_pfl", "simulate",
]
