"""Numpy oracles of lab/forces/hydrodynamics.py's compiled loop: the law summed, and term by term."""

import numpy as np

from lab.forces.base import Wrench


def terms(law, state) -> dict:
    """Each term's wrench separately, written term by term from Zhang 2018 (eqs. 22, 24, 27, buoyancy):
    the law is their sum."""
    R = state.R_WB
    t_W, n_W, b_W = R[:, :, 0], R[:, :, 1], R[:, :, 2]
    N = t_W.shape[0]
    vr = state.v_W.copy()
    vr[:, 0] -= law.current[0]
    vr[:, 1] -= law.current[1]
    vt = np.einsum("ij,ij->i", vr, t_W)
    vn = np.einsum("ij,ij->i", vr, n_W)
    vb = np.einsum("ij,ij->i", vr, b_W)
    out: dict[str, Wrench] = {}
    out["linear"] = Wrench((-law.c_t * vt)[:, None] * t_W + (-law.c_n * vn)[:, None] * n_W
                           + (-law.c_n * vb)[:, None] * b_W)
    out["quadratic"] = Wrench((-law.ct2 * np.abs(vt) * vt)[:, None] * t_W
                              + (-law.cn2 * np.abs(vn) * vn)[:, None] * n_W
                              + (-law.cn2 * np.abs(vb) * vb)[:, None] * b_W)
    wz = state.w_W[:, 2]
    T = np.zeros((N, 3))
    T[:, 2] = -law.lambda2 * wz - law.lambda3 * wz * np.abs(wz)
    out["torque"] = Wrench(np.zeros((N, 3)), T)
    if law.added_mass != "none" and law.u_n:
        a = state.a_W
        F = np.zeros((N, 3))
        if law.current[0] or law.current[1]:
            tV = t_W[:, 0] * law.current[0] + t_W[:, 1] * law.current[1]
            F += (-law.u_n * wz * tV)[:, None] * n_W
        if law.added_mass == "folded":
            F += (law.u_n * np.einsum("ij,ij->i", a, t_W))[:, None] * t_W
        else:
            F += (-law.u_n * np.einsum("ij,ij->i", a, n_W))[:, None] * n_W
        out["added_mass"] = Wrench(F)
    if law.added_mass == "lagged" and law.lambda1:
        T1 = np.zeros((N, 3))
        T1[:, 2] = -law.lambda1 * state.dw_W[:, 2]
        out["added_inertia"] = Wrench(np.zeros((N, 3)), T1)
    if law.buoyancy:
        F = np.zeros((N, 3))
        F[:, 2] = state.model.mass * state.model.gravity
        out["buoyancy"] = Wrench(F)
    return out


def reference(law, state) -> Wrench:
    """The law as vectorised numpy, all terms summed: the oracle of :func:`hydro_loops`."""
    R = state.R_WB
    t_W, n_W, b_W = R[:, :, 0], R[:, :, 1], R[:, :, 2]
    v = state.v_W
    cx, cy = law.current
    if cx or cy:
        v = v.copy()
        v[:, 0] -= cx
        v[:, 1] -= cy
    vt = np.einsum("ij,ij->i", v, t_W)
    vn = np.einsum("ij,ij->i", v, n_W)
    vb = np.einsum("ij,ij->i", v, b_W)
    ft = -(law.c_t + law.ct2 * np.abs(vt)) * vt
    fn = -(law.c_n + law.cn2 * np.abs(vn)) * vn
    fb = -(law.c_n + law.cn2 * np.abs(vb)) * vb
    wz = state.w_W[:, 2]
    if law.added_mass != "none" and law.u_n:
        if law.added_mass == "folded":
            ft = ft + law.u_n * np.einsum("ij,ij->i", state.a_W, t_W)
        else:
            fn = fn - law.u_n * np.einsum("ij,ij->i", state.a_W, n_W)
        if cx or cy:
            fn = fn - law.u_n * wz * (t_W[:, 0] * cx + t_W[:, 1] * cy)
    F = ft[:, None] * t_W + fn[:, None] * n_W + fb[:, None] * b_W
    if law.buoyancy:
        F[:, 2] += state.model.mass * state.model.gravity
    T = np.zeros_like(F)
    T[:, 2] = -(law.lambda2 + law.lambda3 * np.abs(wz)) * wz
    if law.added_mass == "lagged":
        T[:, 2] -= law.lambda1 * state.dw_W[:, 2]
    return Wrench(F, T)
