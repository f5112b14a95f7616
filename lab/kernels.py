"""The hot loop's arithmetic: numpy references and their compiled (numba) twins.

Why this module exists: on a 10-link robot the lab's own per-step cost was the *count* of
small-array numpy calls (~0.5–1 µs each, ~80 of them a step), not arithmetic. Each function here
fuses one law's arithmetic into a single call. The numpy versions (``*_np``) are the reference:
written as vectorised formulas, they are what the tests compare the compiled loops against
(tests/test_kernels.py, to rounding), and they run when numba is missing or ``LAB_NUMBA=0``.

Compiled with ``cache=True`` and without ``fastmath`` (IEEE semantics, so results move only by the
rounding of a different evaluation order). First use compiles every kernel once (~3 s on this
machine, stated in the README's benchmark section); later processes load them from numba's cache.

Conventions as in :mod:`lab.state`: arrays per link (0 = tail), world frame W, R_WB body → world.
"""

from __future__ import annotations

import logging
import math
import os

import numpy as np

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------- references
def energies_np(v_W, w_W, R_WB, mass, I_diag):
    """(E_T, E_R): ½ Σ m|v|² and ½ Σ ω_Bᵀ I_B ω_B with ω_B = Rᵀ ω_W (Wang 2011, eqs. 8–10)."""
    E_T = 0.5 * float(np.dot(mass, np.einsum("ij,ij->i", v_W, v_W)))
    w_B = np.einsum("nji,nj->ni", R_WB, w_W)
    E_R = 0.5 * float(np.einsum("ni,ni->", w_B * I_diag, w_B))
    return E_T, E_R


def coulomb_np(R_WB, v_W, load, mu_fwd, mu_bwd, mu_n, slip_tol, head_exempt):
    """Anisotropic regularised Coulomb friction in the ground plane (lab.forces.friction)."""
    ax = R_WB[:, :2, 0]
    inv = 1.0 / np.maximum(np.hypot(ax[:, 0], ax[:, 1]), 1e-12)
    c, s = ax[:, 0] * inv, ax[:, 1] * inv
    vx, vy = v_W[:, 0], v_W[:, 1]
    v_t = vx * c + vy * s
    v_n = vy * c - vx * s
    mu_tan = mu_fwd if mu_fwd == mu_bwd else np.where(v_t >= 0.0, mu_fwd, mu_bwd)
    f_t = -mu_tan * load * np.tanh(v_t / slip_tol)
    f_n = -mu_n * load * np.tanh(v_n / slip_tol)
    F_W = np.zeros((len(c), 3))
    F_W[:, 0] = f_t * c - f_n * s
    F_W[:, 1] = f_t * s + f_n * c
    if head_exempt:
        F_W[-1] = 0.0
    return F_W


def power2_np(F, v_pre, v_post):
    """Σ F·(v + v₊): twice a force set's trapezoidal power over one step (lab.recorder)."""
    return float(np.einsum("ij,ij->", F, v_pre + v_post))


def joint_power2_np(tau, qd_pre, qd_post):
    """τ·(q̇ + q̇₊): twice the joints' trapezoidal power over one step."""
    return float(np.dot(qd_pre + qd_post, tau))


def coupling_torques_np(q, gain, tau_head, effort):
    """Passive-creeping body joints (Wang 2011, eq. 15): τ_j = gain·(q_{j+1} − q_j), the head
    joint's torque given; all clipped at ±effort."""
    tau = np.empty_like(q)
    tau[-1] = tau_head
    tau[:-1] = gain * (q[1:] - q[:-1])
    return np.clip(tau, -effort, effort)


def serpenoid_np(t, q, qd, alpha, omega, beta, gamma, kp, kd, effort):
    """τ_j = k_p(α sin(ωt + jβ) + γ − q_j) + k_d(αω cos(ωt + jβ) − q̇_j), clipped at ±effort."""
    ph = omega * t + np.arange(len(q)) * beta
    tau = kp * (alpha * np.sin(ph) + gamma - q) + kd * (alpha * omega * np.cos(ph) - qd)
    return np.clip(tau, -effort, effort)


def contact_rows_np(raw):
    """The World's contact snapshot rows (lab.world.World._read_contacts) from pybullet's contact
    points packed as (k, 17) [linkA, bodyB, p_B (3), n_B (3), f_n, f1, dir1 (3), f2, dir2 (3)]: (k, 12)
    [link (0 = base), other body, p_W, n_W, normal force, friction force on the robot (3)]. The
    friction's sign: dir1 against btPlaneSpace1 of the reported normal (see World._read_contacts)."""
    n = raw[:, 5:8]
    d1, d2 = raw[:, 10:13], raw[:, 14:17]
    big = np.abs(n[:, 2]) > 0.7071067811865476
    nx, ny, nz = n[:, 0], n[:, 1], n[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        k_a = 1.0 / np.sqrt(ny * ny + nz * nz)
        k_b = 1.0 / np.sqrt(nx * nx + ny * ny)
    dot = np.where(big, (-nz * d1[:, 1] + ny * d1[:, 2]) * k_a, (-ny * d1[:, 0] + nx * d1[:, 1]) * k_b)
    sgn = np.where(dot >= 0.0, 1.0, -1.0)
    out = np.empty((raw.shape[0], 12))
    out[:, 0] = raw[:, 0] + 1.0
    out[:, 1:9] = raw[:, 1:9]
    out[:, 9:12] = sgn[:, None] * (raw[:, 9:10] * d1 + raw[:, 13:14] * d2)
    return out


def contact_power2_np(contacts, p_pre, v_pre, w_pre, v_post, w_post):
    """Σ F·(v + v₊) over contact rows: twice the trapezoidal power of the contact forces on the robot,
    v at each contact point from its link's COM velocity and spin, the lever arm from the pre-step COM
    (lab.recorder.contact_power)."""
    link = contacts[:, 0].astype(np.int64)
    F = contacts[:, 5:8] * contacts[:, 8:9] + contacts[:, 9:12]
    r = contacts[:, 2:5] - p_pre[link]
    v = v_pre[link] + v_post[link] + np.cross(w_pre[link] + w_post[link], r)
    return float(np.sum(F * v))


# ----------------------------------------------------------------------------------------- compiled
def _compile():
    import numba

    jit = numba.njit(cache=True, fastmath=False, nogil=True)

    @jit
    def energies(v_W, w_W, R_WB, mass, I_diag):
        e_t = 0.0
        e_r = 0.0
        for i in range(v_W.shape[0]):
            e_t += mass[i] * (v_W[i, 0] * v_W[i, 0] + v_W[i, 1] * v_W[i, 1] + v_W[i, 2] * v_W[i, 2])
            for a in range(3):
                wb = R_WB[i, 0, a] * w_W[i, 0] + R_WB[i, 1, a] * w_W[i, 1] + R_WB[i, 2, a] * w_W[i, 2]
                e_r += I_diag[i, a] * wb * wb
        return 0.5 * e_t, 0.5 * e_r

    @jit
    def coulomb(R_WB, v_W, load, mu_fwd, mu_bwd, mu_n, slip_tol, head_exempt):
        n = v_W.shape[0]
        F_W = np.zeros((n, 3))
        last = n - 1 if head_exempt else n
        for i in range(last):
            cx, sx = R_WB[i, 0, 0], R_WB[i, 1, 0]
            inv = 1.0 / max(math.hypot(cx, sx), 1e-12)
            c, s = cx * inv, sx * inv
            v_t = v_W[i, 0] * c + v_W[i, 1] * s
            v_n = v_W[i, 1] * c - v_W[i, 0] * s
            mu_t = mu_fwd if v_t >= 0.0 else mu_bwd
            f_t = -mu_t * load[i] * math.tanh(v_t / slip_tol)
            f_n = -mu_n * load[i] * math.tanh(v_n / slip_tol)
            F_W[i, 0] = f_t * c - f_n * s
            F_W[i, 1] = f_t * s + f_n * c
        return F_W

    @jit
    def power2(F, v_pre, v_post):
        p = 0.0
        for i in range(F.shape[0]):
            for a in range(3):
                p += F[i, a] * (v_pre[i, a] + v_post[i, a])
        return p

    @jit
    def joint_power2(tau, qd_pre, qd_post):
        p = 0.0
        for j in range(tau.shape[0]):
            p += tau[j] * (qd_pre[j] + qd_post[j])
        return p

    @jit
    def coupling_torques(q, gain, tau_head, effort):
        n = q.shape[0]
        tau = np.empty(n)
        for j in range(n - 1):
            tau[j] = min(max(gain * (q[j + 1] - q[j]), -effort), effort)
        tau[n - 1] = min(max(tau_head, -effort), effort)
        return tau

    @jit
    def serpenoid(t, q, qd, alpha, omega, beta, gamma, kp, kd, effort):
        n = q.shape[0]
        tau = np.empty(n)
        for j in range(n):
            ph = omega * t + j * beta
            x = kp * (alpha * math.sin(ph) + gamma - q[j]) + kd * (alpha * omega * math.cos(ph) - qd[j])
            tau[j] = min(max(x, -effort), effort)
        return tau

    @jit
    def contact_rows(raw):
        k = raw.shape[0]
        out = np.empty((k, 12))
        for i in range(k):
            nx, ny, nz = raw[i, 5], raw[i, 6], raw[i, 7]
            if abs(nz) > 0.7071067811865476:
                dot = (-nz * raw[i, 11] + ny * raw[i, 12]) / math.sqrt(ny * ny + nz * nz)
            else:
                dot = (-ny * raw[i, 10] + nx * raw[i, 11]) / math.sqrt(nx * nx + ny * ny)
            sgn = 1.0 if dot >= 0.0 else -1.0
            out[i, 0] = raw[i, 0] + 1.0
            for a in range(1, 9):
                out[i, a] = raw[i, a]
            for a in range(3):
                out[i, 9 + a] = sgn * (raw[i, 9] * raw[i, 10 + a] + raw[i, 13] * raw[i, 14 + a])
        return out

    @jit
    def contact_power2(contacts, p_pre, v_pre, w_pre, v_post, w_post):
        p = 0.0
        for i in range(contacts.shape[0]):
            L = int(contacts[i, 0])
            rx = contacts[i, 2] - p_pre[L, 0]
            ry = contacts[i, 3] - p_pre[L, 1]
            rz = contacts[i, 4] - p_pre[L, 2]
            wx = w_pre[L, 0] + w_post[L, 0]
            wy = w_pre[L, 1] + w_post[L, 1]
            wz = w_pre[L, 2] + w_post[L, 2]
            vx = v_pre[L, 0] + v_post[L, 0] + wy * rz - wz * ry
            vy = v_pre[L, 1] + v_post[L, 1] + wz * rx - wx * rz
            vz = v_pre[L, 2] + v_post[L, 2] + wx * ry - wy * rx
            fn = contacts[i, 8]
            p += ((contacts[i, 5] * fn + contacts[i, 9]) * vx + (contacts[i, 6] * fn + contacts[i, 10]) * vy
                  + (contacts[i, 7] * fn + contacts[i, 11]) * vz)
        return p

    return {"energies": energies, "coulomb": coulomb, "power2": power2, "joint_power2": joint_power2,
            "coupling_torques": coupling_torques, "serpenoid": serpenoid, "contact_rows": contact_rows,
            "contact_power2": contact_power2}


REFERENCE = {"energies": energies_np, "coulomb": coulomb_np, "power2": power2_np, "joint_power2": joint_power2_np,
             "coupling_torques": coupling_torques_np, "serpenoid": serpenoid_np, "contact_rows": contact_rows_np,
             "contact_power2": contact_power2_np}


def _select() -> tuple[dict, str]:
    if os.environ.get("LAB_NUMBA", "1").strip().lower() in ("0", "false", "no", "off"):
        return REFERENCE, "numpy (LAB_NUMBA=0)"
    try:
        return _compile(), "numba"
    except ImportError:
        log.info("numba not installed: the hot loop runs the numpy reference kernels")
        return REFERENCE, "numpy (numba missing)"


_IMPL, BACKEND = _select()
energies = _IMPL["energies"]
coulomb = _IMPL["coulomb"]
power2 = _IMPL["power2"]
joint_power2 = _IMPL["joint_power2"]
coupling_torques = _IMPL["coupling_torques"]
serpenoid = _IMPL["serpenoid"]
contact_rows = _IMPL["contact_rows"]
contact_power2 = _IMPL["contact_power2"]
COMPILED = _IMPL is not REFERENCE

_LOOPS: dict = {}


def compiled(loops):
    """``loops`` (a force law's or controller's plain-loop kernel, kept beside its numpy reference in
    its own module) compiled like the kernels here — numba, ``cache=True``, no fastmath — or None when
    this backend runs the references (``LAB_NUMBA=0``, numba missing). Compiled once per process."""
    if not COMPILED:
        return None
    if loops not in _LOOPS:
        import numba

        _LOOPS[loops] = numba.njit(cache=True, fastmath=False, nogil=True)(loops)
    return _LOOPS[loops]

__all__ = ["BACKEND", "COMPILED", "REFERENCE", "compiled", "energies", "coulomb", "power2", "joint_power2", "coupling_torques",
           "serpenoid", "contact_rows", "contact_power2"]
