"""Cleats (grousers) of the tracked robot's belt at the arena's convex edges: ``type = "cleats"``.

Why a law. The engine's belt is smooth: at a step's edge it can only push (normal force) and rub
(Coulomb, μN). A real track's cleats interlock with a convex corner: once the belt leans on the corner
by more than φ_c = atan(2 h_c / p) from both of its faces (cleat height h_c, pitch p), the corner's tip
reaches down between two cleats (a belt lying flat on one face rests on the cleats' tips instead), and
the cleat face that comes up against it carries the tangential load — not μN, but up to the cleat's
shear capacity, past which the cleat folds and the corner skips to the next gap.

The law (pure, on the snapshot; Coulomb friction still acts in the engine):
    for each convex edge of the arena (``arena.convex_edges()``: a line parallel to y, (x, z) and the
    outward normals of its two faces) and the belt link pressing on it (contact rows of the snapshot
    within ``edge_tolerance`` of the line; the one with the largest normal force), with n the contact
    normal (from the edge into the belt):
    1. engaged iff angle(n, n_face1) > φ_c and angle(n, n_face2) > φ_c;
    2. the corner's belt coordinate s = u(p_B) − r ψ (u: arc length along the belt's rounded-triangle
       centre path offset by r, in the direction the belt moves for ψ̇ > 0; ψ the drive angle, so s is a
       material coordinate of the belt), and its offset from the nearest cleat φ = s mod p ∈ [−p/2, p/2);
    3. inside a cleat (|φ| < t_c/2) the cleat pushes: penetration e = t_c/2 − |φ|, force on the belt
       F = −sign(φ) k e û − c (v·û) û at the contact point (û: the belt's direction of motion there, v
       the belt surface's velocity at the contact), k = G t_c W / h_c (a rubber block of shear modulus G
       sheared over its height), c = 2 ζ √(k m_belt);
    4. |F| ≤ ``capacity``: loaded beyond it the cleat folds, the corner pushes through it at the
       capacity, and once past the cleat's middle (φ changes sign) the cleat pushes it on out of the
       far side: it has skipped to the next gap.
In the gap between two cleats the corner meets only Coulomb friction: a stalled belt slides by at most
one pitch before a cleat face arrives.

Cleat dimensions (the robot's ``cleat_height``, ``cleat_pitch``, ``cleat_capacity``, defaults 6 mm,
30 mm, 300 N): a small-robot rubber track of the paper's size (0.2 m wide) — e.g. polyurethane T10
timing belts with welded cleats every third tooth (30 mm), cleat profiles 5–10 mm high; square profile
t_c = h_c = 6 mm. G = 1 MPa (soft track rubber, Shore ≈ 55A). Capacity: the cleat folds over a corner
at a mean root shear stress of about G/4 (a shear strain of 0.25 at its root), 1 MPa/4 × 6 mm × 0.2 m
= 300 N. These are estimates of a generic track, not the paper's (which gives no track data).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from lab.core.contacts import Col
from lab.core.fields import Validated, num
from lab.core.kernels import compiled
from lab.core.state import RobotState
from lab.forces.base import Wrench, register_force


@functools.lru_cache(maxsize=16)
def belt_path(l: float, r: float):
    """The belt's path in the body's x–z plane, in its direction of motion for ψ̇ > 0 (clockwise):
    the bottom face F→R, the arc round R, the rear face R→T, round T, the front face T→F, round F.
    Returns [(kind, data, start coordinate, length)] with kind "face" (start point, direction t,
    outward normal n) or "arc" (centre, start normal)."""
    a = l / (2 * math.sqrt(3))
    P = {"F": np.array([l / 2, -a]), "T": np.array([0.0, 2 * a]), "R": np.array([-l / 2, -a])}
    order = (("F", "R"), ("R", "T"), ("T", "F"))
    out, s = [], 0.0
    for k, (p0, p1) in enumerate(order):
        t = (P[p1] - P[p0]) / l
        n = np.array([-t[1], t[0]])  # t = ŷ × n in (x, z): n = t turned +90°
        out.append(("face", (P[p0] + r * n, t, n), s, l))
        s += l
        out.append(("arc", (P[p1], n), s, 2 * math.pi * r / 3))
        s += 2 * math.pi * r / 3
    return tuple(out)


def belt_coordinate(p_xz, l: float, r: float) -> tuple[float, np.ndarray]:
    """(arc length along the belt from the start of the bottom face, the belt's direction of motion
    (x, z) there) of the envelope point nearest the body-frame point ``p_xz``."""
    p = np.asarray(p_xz, float)
    best = (math.inf, 0.0, np.array([1.0, 0.0]))
    for kind, data, s0, length in belt_path(l, r):
        if kind == "face":
            q0, t, n = data
            lam = float((p - q0) @ t)
            if -1e-9 <= lam <= length + 1e-9:
                d = abs(float((p - q0) @ n))
                if d < best[0]:
                    best = (d, s0 + lam, t)
        else:
            c, n0 = data
            d_vec = p - c
            rho = float(np.linalg.norm(d_vec))
            if rho < 1e-12:
                continue
            th = math.atan2(n0[1] * d_vec[0] - n0[0] * d_vec[1], float(n0 @ d_vec))  # clockwise from n0
            if -1e-9 <= th <= 2 * math.pi / 3 + 1e-9:
                d = abs(rho - r)
                if d < best[0]:
                    u = d_vec / rho
                    best = (d, s0 + r * th, np.array([u[1], -u[0]]))
    return best[1], best[2]


@functools.lru_cache(maxsize=16)
def belt_path_array(l: float, r: float) -> np.ndarray:
    """:func:`belt_path` packed for the compiled law: (6, 8) rows [kind (0 face, 1 arc), start
    coordinate, length, 0, a (2), b (2)]: a face's start point and direction t, an arc's centre and start
    normal (a face's outward normal n is t turned +90°)."""
    out = np.zeros((6, 8))
    for i, (kind, data, s0, length) in enumerate(belt_path(l, r)):
        if kind == "face":
            q0, t, _ = data
            out[i] = (0.0, s0, length, 0.0, q0[0], q0[1], t[0], t[1])
        else:
            c, n0 = data
            out[i] = (1.0, s0, length, 0.0, c[0], c[1], n0[0], n0[1])
    return out


def cleat_wrench(cs, belt_mask, edges, seg, R0, p0, psi, p_W, v_W, w_W, tol, phi_c, pitch, r, half, k, c,
                 capacity, m_eff, dt):
    """The law above (steps 1–4) summed per link into (F_W (N, 3), T_W (N, 3)), in one compiled pass over
    the contact rows ``cs`` (:class:`lab.core.contacts.Col`) and the edges (its numpy oracle, cleat by cleat:
    tests/oracles/cleats.py). ``edges`` (E, 6): x, z, n1 (x, z), n2 (x, z); ``seg``: :func:`belt_path_array`;
    R0, p0, psi: the body's rotation and position and the drive angle. The two arrays are made here and
    filled by :func:`_cleat_wrench_into` (arrays handed back from compiled code cost more to box)."""
    n_links = p_W.shape[0]
    F = np.zeros((n_links, 3))
    T = np.zeros((n_links, 3))
    _cleat_wrench_into(cs, belt_mask, edges, seg, R0, p0, psi, p_W, v_W, w_W, tol, phi_c, pitch, r, half, k, c,
                       capacity, m_eff, dt, F, T)
    return F, T


@compiled
def _cleat_wrench_into(cs, belt_mask, edges, seg, R0, p0, psi, p_W, v_W, w_W, tol, phi_c, pitch, r, half, k, c,
                       capacity, m_eff, dt, F, T):
    """:func:`cleat_wrench` into ``F`` and ``T`` (N, 3), zero on entry."""
    n_rows = cs.shape[0]
    n_edges = edges.shape[0]
    h_link = np.zeros(n_edges, np.int64)
    h_e = np.zeros(n_edges)
    h_phi = np.zeros(n_edges)
    h_u = np.zeros((n_edges, 3))
    h_vu = np.zeros(n_edges)
    h_pc = np.zeros((n_edges, 3))
    n_hits = 0
    for ke in range(n_edges):
        xe, ze = edges[ke, 0], edges[ke, 1]
        # the belt link pressing hardest on the edge (summed normal force of its rows near the line)
        best, best_f = -1, -1.0
        for i in range(n_rows):
            L = int(cs[i, Col.LINK])
            if L < 0 or L >= belt_mask.shape[0] or not belt_mask[L]:
                continue
            if math.hypot(cs[i, Col.PX] - xe, cs[i, Col.PZ] - ze) >= tol:
                continue
            if L == best:
                continue
            f = 0.0
            for j in range(n_rows):
                if int(cs[j, Col.LINK]) == L and math.hypot(cs[j, Col.PX] - xe, cs[j, Col.PZ] - ze) < tol:
                    f += cs[j, Col.FN]
            if f > best_f or (f == best_f and L < best):
                best, best_f = L, f
        if best < 0:
            continue
        nx = nz = px = py = pz = 0.0
        m = 0
        for i in range(n_rows):
            if int(cs[i, Col.LINK]) == best and math.hypot(cs[i, Col.PX] - xe, cs[i, Col.PZ] - ze) < tol:
                nx += cs[i, Col.NX]
                nz += cs[i, Col.NZ]
                px += cs[i, Col.PX]
                py += cs[i, Col.PY]
                pz += cs[i, Col.PZ]
                m += 1
        nn = math.hypot(nx / m, nz / m)
        if nn < 1e-9:
            continue
        ux, uz = nx / m / nn, nz / m / nn
        lean1 = math.acos(min(1.0, max(-1.0, ux * edges[ke, 2] + uz * edges[ke, 3])))
        lean2 = math.acos(min(1.0, max(-1.0, ux * edges[ke, 4] + uz * edges[ke, 5])))
        if min(lean1, lean2) <= phi_c:
            continue  # the belt lies on a face: the cleats' tips rest on it (friction only)
        pcx, pcy, pcz = px / m, py / m, pz / m
        dx, dy, dz = pcx - p0[0], pcy - p0[1], pcz - p0[2]
        bx = R0[0, 0] * dx + R0[1, 0] * dy + R0[2, 0] * dz  # R0ᵀ (pc − p0), x and z
        bz = R0[0, 2] * dx + R0[1, 2] * dy + R0[2, 2] * dz
        # belt_coordinate: the nearest envelope point's arc length and the belt's direction there
        bd, s_b, tx, tz = math.inf, 0.0, 1.0, 0.0
        for q in range(seg.shape[0]):
            if seg[q, 0] == 0.0:
                qx, qz, sx, sz = seg[q, 4], seg[q, 5], seg[q, 6], seg[q, 7]
                lam = (bx - qx) * sx + (bz - qz) * sz
                if -1e-9 <= lam <= seg[q, 2] + 1e-9:
                    d = abs((bx - qx) * (-sz) + (bz - qz) * sx)
                    if d < bd:
                        bd, s_b, tx, tz = d, seg[q, 1] + lam, sx, sz
            else:
                cx, cz, n0x, n0z = seg[q, 4], seg[q, 5], seg[q, 6], seg[q, 7]
                ex, ez = bx - cx, bz - cz
                rho = math.hypot(ex, ez)
                if rho < 1e-12:
                    continue
                th = math.atan2(n0z * ex - n0x * ez, n0x * ex + n0z * ez)
                if -1e-9 <= th <= 2 * math.pi / 3 + 1e-9:
                    d = abs(rho - r)
                    if d < bd:
                        bd, s_b, tx, tz = d, seg[q, 1] + r * th, ez / rho, -ex / rho
        s_b -= r * psi
        a = s_b + pitch / 2
        phi = a - pitch * math.floor(a / pitch) - pitch / 2
        e = half - abs(phi)
        if e <= 0.0:
            continue  # in the gap between two cleats: Coulomb friction only
        u0 = R0[0, 0] * tx + R0[0, 2] * tz
        u1 = R0[1, 0] * tx + R0[1, 2] * tz
        u2 = R0[2, 0] * tx + R0[2, 2] * tz
        rx, ry, rz = pcx - p_W[best, 0], pcy - p_W[best, 1], pcz - p_W[best, 2]
        wx, wy, wz = w_W[best, 0], w_W[best, 1], w_W[best, 2]
        vx = v_W[best, 0] + wy * rz - wz * ry
        vy = v_W[best, 1] + wz * rx - wx * rz
        vz = v_W[best, 2] + wx * ry - wy * rx
        h_link[n_hits] = best
        h_e[n_hits] = e
        h_phi[n_hits] = phi
        h_u[n_hits, 0], h_u[n_hits, 1], h_u[n_hits, 2] = u0, u1, u2
        h_vu[n_hits] = vx * u0 + vy * u1 + vz * u2
        h_pc[n_hits, 0], h_pc[n_hits, 1], h_pc[n_hits, 2] = pcx, pcy, pcz
        n_hits += 1
    if n_hits == 0:
        return
    scale = min(1.0, m_eff / (dt * dt * n_hits * k))
    if c > 0:
        scale = min(scale, m_eff / (dt * n_hits * c))
    k_s, c_s = k * scale, c * scale
    for i in range(n_hits):
        f = -math.copysign(min(k_s * h_e[i], capacity), h_phi[i]) - c_s * h_vu[i]
        f = max(-capacity, min(capacity, f))
        L = h_link[i]
        fx, fy, fz = f * h_u[i, 0], f * h_u[i, 1], f * h_u[i, 2]
        rx, ry, rz = h_pc[i, 0] - p_W[L, 0], h_pc[i, 1] - p_W[L, 1], h_pc[i, 2] - p_W[L, 2]
        F[L, 0] += fx
        F[L, 1] += fy
        F[L, 2] += fz
        T[L, 0] += ry * fz - rz * fy
        T[L, 1] += rz * fx - rx * fz
        T[L, 2] += rx * fy - ry * fx


@dataclass(frozen=True)
class CleatGeometry:
    """What the law needs from the robot and the arena (:meth:`Cleats.bind`)."""

    enabled: bool
    height: float
    pitch: float
    capacity: float
    width: float
    belt_mass: float
    track_side: float
    pulley_radius: float
    edges: tuple
    belt_mass_eff: float = 1.0  # the belt's mass along its run, pulleys' inertia included (kg)

    @staticmethod
    def of(robot, edges) -> "CleatGeometry":
        """The tracked robot's cleats and belt (``robot.cleat_*``, ``robot.cleats`` switches the law off)
        with the arena's convex ``edges``."""
        return CleatGeometry(bool(robot.cleats), robot.cleat_height, robot.cleat_pitch, robot.cleat_capacity,
                             robot.width, robot.belt_mass, robot.track_side, robot.pulley_radius, tuple(edges),
                             robot.belt_mass + 1.5 * robot.pulley_mass)


@register_force("cleats")
@dataclass(frozen=True)
class Cleats(Validated):
    """The cleat law above: its parameters. The cleats' height, pitch and capacity are the robot's
    (``robot.cleats``, ``robot.cleat_*``; ``cleats = false`` switches the law off); the edges are the
    arena's convex edges. The law acts once bound to both when the run is built (:meth:`bind` →
    :class:`BoundCleats`, lab.forces.base.bind)."""

    thickness: float = num(0.006, gt=0, le=0.05, unit="m", doc="t_c, cleat thickness along the belt (square profile)")
    shear_modulus: float = num(1e6, gt=0, le=1e9, unit="Pa", doc="G of the cleat rubber (Shore ≈ 55A)")
    damping_ratio: float = num(0.5, ge=0, le=2, doc="ζ of the cleat spring on the belt's mass")
    edge_tolerance: float = num(0.003, gt=0, le=0.05, unit="m", doc="a contact this close to an edge line is on it")

    def validate_scenario(self, robot=None, controller=None, arena=None, sim=None) -> None:
        if robot is None or not hasattr(robot, "cleat_pitch"):
            raise ValueError('type: "cleats" needs the tracked robot (its belt carries the cleats)')

    def bind(self, robot, arena) -> "BoundCleats":
        """The law on ``robot``'s belt (a :class:`~lab.robots.tracked.TrackedSpec`) at ``arena``'s convex
        edges (``arena.convex_edges()``; none if the arena has no such method)."""
        self.validate_scenario(robot=robot, arena=arena)
        edges = getattr(arena, "convex_edges", None)
        return BoundCleats.of(self, CleatGeometry.of(robot, edges() if callable(edges) else ()))


@functools.lru_cache(maxsize=16)
@functools.lru_cache(maxsize=64)  # per robot, not per step (the mask is read-only)
def _belt_links(link_names: tuple, joint_names: tuple) -> tuple[np.ndarray, int]:
    """(which links are the belt's, the drive joint's index) of a loaded tracked robot."""
    mask = np.array([n.startswith("belt_") for n in link_names])
    mask.flags.writeable = False
    return mask, joint_names.index("drive_joint")


@dataclass(frozen=True, eq=False)
class BoundCleats:
    """The cleat law bound to a robot and an arena (:meth:`Cleats.bind`): immutable, pure on the snapshot.
    ``stiffness`` k = G t_c W / h_c (N/m), ``damping`` c = 2 ζ √(k m_belt) (N·s/m), ``engage_angle``
    φ_c = atan(2 h_c / p) (rad); ``edges`` and ``path`` are the geometry packed for :func:`cleat_wrench`."""

    params: Cleats
    geom: CleatGeometry
    stiffness: float
    damping: float
    engage_angle: float
    edges: np.ndarray
    path: np.ndarray

    @staticmethod
    def of(params: Cleats, geom: CleatGeometry) -> "BoundCleats":
        k = params.shear_modulus * params.thickness * geom.width / geom.height
        edges = np.array([(*e[0], *e[1], *e[2]) for e in geom.edges], float).reshape(-1, 6)
        edges.flags.writeable = False
        return BoundCleats(params, geom, k, 2 * params.damping_ratio * math.sqrt(k * geom.belt_mass),
                           math.atan(2 * geom.height / geom.pitch), edges,
                           belt_path_array(geom.track_side, geom.pulley_radius))

    def __call__(self, state: RobotState, t: float) -> Wrench:
        """The cleats' forces and moments on the belt links (:func:`cleat_wrench`), world frame."""
        g, p = self.geom, self.params
        cs = state.contacts
        if not g.enabled or cs is None or not len(cs) or not g.edges:
            n = state.model.n_links
            return Wrench(np.zeros((n, 3)), np.zeros((n, 3)))
        mask, j_drive = _belt_links(state.model.link_names, state.model.joint_names)
        F, T = cleat_wrench(cs, mask, self.edges, self.path, state.R_WB[0], state.p_W[0], float(state.q[j_drive]),
                            state.p_W, state.v_W, state.w_W, p.edge_tolerance, self.engage_angle, g.pitch,
                            g.pulley_radius, p.thickness / 2, self.stiffness, self.damping, g.capacity,
                            g.belt_mass_eff, state.model.dt or 1e-3)
        return Wrench(F, T)


__all__ = ["BoundCleats", "Cleats", "CleatGeometry", "belt_coordinate", "belt_path", "belt_path_array", "cleat_wrench"]
