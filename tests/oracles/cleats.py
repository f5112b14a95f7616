"""Numpy oracle of lab/forces/cleats.py's compiled law: the engaged cleats one by one, then summed."""

import math

import numpy as np

from lab.core.contacts import N_W, P_W, Col
from lab.forces.base import Wrench
from lab.forces.cleats import BoundCleats, belt_coordinate


def _cross(a, b) -> np.ndarray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def forces(law: BoundCleats, state) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """[(link, force (3,), point (3,))] of the engaged cleats (steps 1–4 of lab.forces.cleats)."""
    g, prm = law.geom, law.params
    cs = state.contacts
    if not g.enabled or cs is None or not len(cs) or not g.edges:
        return []
    mask = np.array([n.startswith("belt_") for n in state.model.link_names])
    j_drive = state.model.joint_index("drive_joint")
    link = cs[:, Col.LINK].astype(int)
    rows = cs[mask[np.clip(link, 0, len(mask) - 1)]]
    if not len(rows):
        return []
    R0, p0 = state.R_WB[0], state.p_W[0]
    psi = float(state.q[j_drive])
    k, c, half = law.stiffness, law.damping, prm.thickness / 2
    hits = []
    for (xe, ze), n1, n2 in g.edges:
        near = np.hypot(rows[:, Col.PX] - xe, rows[:, Col.PZ] - ze) < prm.edge_tolerance
        if not near.any():
            continue
        E = rows[near]
        links = E[:, Col.LINK].astype(int)
        best = max(sorted(set(links.tolist())), key=lambda L: E[links == L, Col.FN].sum())  # ties: the lowest link
        E = E[links == best]
        n = E[:, N_W].mean(axis=0)
        nxz = np.array([n[0], n[2]])
        nn = float(np.linalg.norm(nxz))
        if nn < 1e-9:
            continue
        nxz /= nn
        lean1 = math.acos(min(1.0, max(-1.0, float(nxz @ n1))))
        lean2 = math.acos(min(1.0, max(-1.0, float(nxz @ n2))))
        if min(lean1, lean2) <= law.engage_angle:
            continue  # the belt lies on a face: the cleats' tips rest on it (friction only)
        pc = E[:, P_W].mean(axis=0)
        pB = R0.T @ (pc - p0)
        s, t_B = belt_coordinate((pB[0], pB[2]), g.track_side, g.pulley_radius)
        s -= g.pulley_radius * psi
        phi = (s + g.pitch / 2) % g.pitch - g.pitch / 2
        e = half - abs(phi)
        if e <= 0.0:
            continue  # in the gap between two cleats: Coulomb friction only
        u = R0 @ np.array([t_B[0], 0.0, t_B[1]])
        v = state.v_W[best] + _cross(state.w_W[best], pc - state.p_W[best])
        hits.append((best, e, phi, u, float(v @ u), pc))
    if not hits:
        return []
    dt = state.model.dt or 1e-3
    n = len(hits)
    scale = min(1.0, g.belt_mass_eff / (dt * dt * n * k), g.belt_mass_eff / (dt * n * c) if c > 0 else 1.0)
    k_s, c_s = k * scale, c * scale
    out = []
    for link, e, phi, u, vu, pc in hits:
        f = -math.copysign(min(k_s * e, g.capacity), phi) - c_s * vu
        f = max(-g.capacity, min(g.capacity, f))
        out.append((link, f * u, pc))
    return out


def wrench(law: BoundCleats, state) -> Wrench:
    """:func:`forces` summed per link, each force's moment about its link's COM."""
    n = state.model.n_links
    F = np.zeros((n, 3))
    T = np.zeros((n, 3))
    for link, f, pc in forces(law, state):
        F[link] += f
        T[link] += _cross(pc - state.p_W[link], f)
    return Wrench(F, T)
