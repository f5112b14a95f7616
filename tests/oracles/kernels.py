"""Numpy oracles of lab/core/kernels.py: the snapshot's energies, the ledger's powers, the contact rows."""

import numpy as np

from lab.core.contacts import F_T, N_COLS, N_W, P_W, Col, Raw


def energies(v_W, w_W, R_WB, mass, I_diag):
    """(E_T, E_R): ½ Σ m|v|² and ½ Σ ω_Bᵀ I_B ω_B with ω_B = Rᵀ ω_W (Wang 2011, eqs. 8–10)."""
    E_T = 0.5 * float(np.dot(mass, np.einsum("ij,ij->i", v_W, v_W)))
    w_B = np.einsum("nji,nj->ni", R_WB, w_W)
    E_R = 0.5 * float(np.einsum("ni,ni->", w_B * I_diag, w_B))
    return E_T, E_R


def power2(F, v_pre, v_post):
    """Σ F·(v + v₊): twice a force set's trapezoidal power over one step."""
    return float(np.einsum("ij,ij->", F, v_pre + v_post))


def joint_power2(tau, qd_pre, qd_post):
    """τ·(q̇ + q̇₊): twice the joints' trapezoidal power over one step."""
    return float(np.dot(qd_pre + qd_post, tau))


def ledger_powers(tau, qd_pre, qd_post, F, v_pre, v_post):
    """(½ τ·(q̇ + q̇₊), ½ F·(v + v₊)): the two powers above in one call."""
    return (0.5 * joint_power2(tau, qd_pre, qd_post) if tau.shape[0] else 0.0), 0.5 * power2(F, v_pre, v_post)


def snapshot(raw, flat, R, tree, body):
    """The World's snapshot: the base row and the joint pairs from ``raw``, the link rows from the
    forward-kinematics pass (checked against the engine itself in tests/core/test_world.py), the energies
    above and the finite test as one numpy reduction."""
    from lab.core.kernels import forward_kinematics

    flat[0] = raw.ravel()[:13]
    forward_kinematics(flat, R, tree, body, raw[7:])
    e_t, e_r = energies(flat[:, 7:10], flat[:, 10:13], R, body[:, 18], body[:, 19:22])
    return e_t, e_r, bool(np.isfinite(flat.sum()))


def contact_rows(raw):
    """Contact rows (lab.core.contacts.Col) from PyBullet's points packed as lab.core.contacts.Raw."""
    n = raw[:, Raw.NX:Raw.NZ + 1]
    d1, d2 = raw[:, Raw.D1X:Raw.D1Z + 1], raw[:, Raw.D2X:Raw.D2Z + 1]
    big = np.abs(n[:, 2]) > 0.7071067811865476
    nx, ny, nz = n[:, 0], n[:, 1], n[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        k_a = 1.0 / np.sqrt(ny * ny + nz * nz)
        k_b = 1.0 / np.sqrt(nx * nx + ny * ny)
    dot = np.where(big, (-nz * d1[:, 1] + ny * d1[:, 2]) * k_a, (-ny * d1[:, 0] + nx * d1[:, 1]) * k_b)
    sgn = np.where(dot >= 0.0, 1.0, -1.0)
    out = np.empty((raw.shape[0], N_COLS))
    out[:, Col.LINK] = raw[:, Raw.LINK] + 1.0
    out[:, Col.BODY] = raw[:, Raw.BODY]
    out[:, P_W] = raw[:, Raw.PX:Raw.PZ + 1]
    out[:, N_W] = n
    out[:, Col.FN] = raw[:, Raw.FN]
    out[:, F_T] = sgn[:, None] * (raw[:, Raw.F1, None] * d1 + raw[:, Raw.F2, None] * d2)
    return out


def contact_power2(contacts, p_pre, v_pre, w_pre, v_post, w_post):
    """Σ F·(v + v₊) over contact rows, v at each contact point from its link's COM velocity and spin."""
    link = contacts[:, Col.LINK].astype(np.int64)
    F = contacts[:, N_W] * contacts[:, Col.FN, None] + contacts[:, F_T]
    r = contacts[:, P_W] - p_pre[link]
    v = v_pre[link] + v_post[link] + np.cross(w_pre[link] + w_post[link], r)
    return float(np.sum(F * v))
