"""The robot as screw chains (Hu 2013 §2, eqs. 1–9, Table 2, Figs 6–7): the frames, the joints'
twists, and the equivalent fixed-base manipulators of the flip, the climb and the on-top phase.

The SE(3)/POE algebra and the chain dynamics are generic (:mod:`lab.analysis.se3`); what is this
paper's is here: the joints' twists, the curved prismatic joint along the belt, the guide wheel's
closure, and plain trigonometry of the closed chain (the second formulation the tests compare with).

Frames (Figs 6–7, Table 2)
    S, the step frame: origin at the foot of the riser on the slope surface; x along the step edge,
    y the climbing direction (into the step), z normal to the slope. The edge is the line y = 0, z = h.
    The world frame is W = R_x(α) R_z(β) S: eqs. (1–2)'s two virtual joints (α the slope, β the yaw
    of the climbing direction in the slope plane; α > 0, β = 0 climbs straight uphill).
    The body frame B (origin at the body COM) has x lateral, y along the outward normal of the
    *front face* (the face that lies against the riser during the climb) and z along that face.
    All rotations are about ±x: the chain is planar in the y–z plane of S ("the symmetric section",
    Fig 7), gravity need not be.

Joints (Table 2, q = [α, β, φ, s, θ])
    ξ1: ω = (1,0,0) through 0 (slope α)      ξ2: ω = (0,0,1) through 0 (yaw β)
    ξ3: ω = (−1,0,0) through (0,0,h): the body's rotation φ about the step edge (φ > 0 tips the top
        of the body forward over the step)
    ξ4: prismatic along (0,0,1): the body's travel s along its front face, driven by the track.
        Table 2 lists this direction in the r column — for a prismatic joint the twist is (v; 0).
        Here the travel follows the belt's whole perimeter, so after the contact passes the bottom
        pulley it becomes a "curved prismatic" joint (twist (d'(s); 0), d the perimeter offset); on the
        straight face, which is all the paper models, it is exactly ξ4.
    ξ5: ω = (1,0,0) through the pivot (0, −l_z, z_p): the arm angle θ relative to the body; θ = 0 is
        the arm perpendicular to the front face pointing backwards, θ > 0 swings its tip down.

Eq. (12)'s s
    Eq. (12)'s s is the *edge's* coordinate along the face relative to the pivot,
    s₁₂ = h − l/2 − ∫v_d dt, while the POE's s (ξ4 along +z from the reference pose) is the
    travel ∫v_d dt: s_POE = h − z_p − s₁₂. With that substitution eq. (12)'s closure,
    l_a sin(θ − φ) + r_d − h = l_z sin φ − s₁₂ cos φ, is exactly the POE's "guide-wheel centre at
    height r_d"; we use s_POE throughout (s = 0 at the start of the climb).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.analysis.se3 import Link, PoeChain, ScrewJoint, rot_x, rot_z, twist_prismatic, twist_revolute
from lab.papers.hu2013_tracked.model.geometry import Perimeter
from lab.papers.hu2013_tracked.model.params import ClimbParams


def R_world_step(alpha: float, beta: float) -> np.ndarray:
    """Rotation step frame → world: exp(ξ̂1 α) exp(ξ̂2 β) of eqs. (1–2) (both through the origin)."""
    return rot_x(alpha) @ rot_z(beta)


def gravity_S(alpha: float, beta: float, g: float = 9.81) -> np.ndarray:
    return R_world_step(alpha, beta).T @ np.array([0.0, 0.0, -g])


@dataclass(frozen=True)
class PerimeterJoint:
    """The curved prismatic joint: a translation d(s) that follows the belt envelope from the start
    contact λ0, d(s) = b(λ0) − b(λ0 + s), twist (d'(s); 0) (see the module doc, ξ4)."""

    perim: Perimeter
    lam0: float = 0.0

    def exp(self, q: float) -> np.ndarray:
        b0, *_ = self.perim.eval(self.lam0)
        b1, *_ = self.perim.eval(self.lam0 + q)
        g = np.eye(4)
        g[1:3, 3] = b0 - b1
        return g

    def twist(self, q: float) -> np.ndarray:
        _, t, _, _ = self.perim.eval(self.lam0 + q)
        return np.array([0.0, -t[0], -t[1], 0, 0, 0])

    def dtwist(self, q: float) -> np.ndarray:
        _, _, k, _ = self.perim.eval(self.lam0 + q)
        return np.array([0.0, -k[0], -k[1], 0, 0, 0])


@dataclass(frozen=True)
class Chain(PoeChain):
    """The equivalent fixed-base manipulator of Fig 7(b) (after α, β): joints in order, and the links
    (body, arm). The last link carries the guide wheel at ``wheel_B`` (its COM frame).

    The generic :class:`~lab.analysis.se3.PoeChain` gives this paper's equations: ``poses`` eqs. (1–2)
    without α, β; ``body_jacobian`` eqs. (4–5); the spatial inertia eq. (6); ``mass_matrix`` eq. (7);
    the potential eq. (8) and ``dynamics`` (M, C q̇, N) of eq. (9)."""

    wheel_B: np.ndarray  # guide-wheel centre in the arm's COM frame
    arm_joint: int  # index of θ in q

    def wheel_centre(self, q) -> np.ndarray:
        g = self.poses(q)[-1]
        return g[:3, :3] @ self.wheel_B + g[:3, 3]

    def closure(self, q, r_d: float) -> float:
        """f(q) = guide-wheel centre height − r_d (= 0: the wheel on the slope)."""
        return float(self.wheel_centre(q)[2] - r_d)

    def closure_gradient(self, q) -> np.ndarray:
        link = self.links[-1]
        g = self.poses(q)[-1]
        J = self.body_jacobian(q, link)
        return self.point_jacobian(g, J, self.wheel_B)[2]


def climb_chain(p: ClimbParams, h: float) -> Chain:
    """The climb's chain q = (φ, s, θ): ξ3 about the edge, the perimeter joint, ξ5 at the pivot."""
    lz, zp = p.l_z, p.z_pivot0
    perim = Perimeter(p.track_side, p.pulley_radius)
    lam0 = p.track_side / 2 - (h - zp)  # the edge's λ on the front face at the start
    j3 = ScrewJoint(twist_revolute((-1, 0, 0), (0, 0, h)))
    j4 = PerimeterJoint(perim, lam0=lam0)
    j5 = ScrewJoint(twist_revolute((1, 0, 0), (0, -lz, zp)))
    return Chain((j3, j4, j5), _links(p, 2), np.array([0.0, -(p.arm_length - p.arm_com), 0.0]), 2)


def flip_chain(p: ClimbParams) -> Chain:
    """The flip's chain q = (ζ, θ): rotation about the front-bottom pulley's centre (0, −r, r), then
    the arm. ζ = −30° is the body on its base, ζ = 0 its front face against the riser."""
    r = p.pulley_radius
    jF = ScrewJoint(twist_revolute((-1, 0, 0), (0, -r, r)))
    j5 = ScrewJoint(twist_revolute((1, 0, 0), (0, -p.l_z, p.z_pivot0)))
    return Chain((jF, j5), _links(p, 1), np.array([0.0, -(p.arm_length - p.arm_com), 0.0]), 1)


def top_chain(p: ClimbParams, g_body: np.ndarray, g_arm: np.ndarray, h: float) -> tuple[Chain, np.ndarray]:
    """The on-top chain q = (u, φ̃, θ̃) from the landing pose (link poses ``g_body``, ``g_arm``, the
    front-bottom pulley F's centre above the edge at (0, h + r), its contact normal vertical): a
    prismatic joint along +y (u, the F centre's advance), a revolute about F's centre (φ̃, tipping
    forward like ξ3) and the arm's ξ5 through the landing pivot (θ̃ = θ − θ_L). F rolls on the top
    without slip while the belt runs, so the centre advances by the rolled arc plus the belt travel:
    u = r φ̃ + (s − s_L) — the free direction at fixed belt travel is (r, 1, 0), returned with the
    chain. Both rotations are about x, so the arm axis stays through the pivot."""
    r = p.pulley_radius
    pivot = g_body[:3, 3]  # the body frame sits at the pivot (the body centre)
    ju = ScrewJoint(twist_prismatic((0, 1, 0)))
    jphi = ScrewJoint(twist_revolute((-1, 0, 0), (0, 0, h + r)))
    jth = ScrewJoint(twist_revolute((1, 0, 0), pivot))
    gw0, ga0 = _links(p, 2)
    links = (Link("body", 2, g_body.copy(), gw0.mass, gw0.inertia), Link("arm", 3, g_arm.copy(), ga0.mass, ga0.inertia))
    return Chain((ju, jphi, jth), links, np.array([0.0, -(p.arm_length - p.arm_com), 0.0]), 2), np.array([r, 1.0, 0.0])


def _links(p: ClimbParams, n_body: int) -> tuple[Link, Link]:
    gw0 = np.eye(4)
    gw0[:3, 3] = (0.0, -p.l_z, p.z_pivot0)
    ga0 = np.eye(4)
    ga0[:3, 3] = (0.0, -p.l_z - p.arm_com, p.z_pivot0)
    return (Link("body", n_body, gw0, p.m_body, p.I_body), Link("arm", n_body + 1, ga0, p.m_arm, p.I_arm))


# ---------------------------------------------------------------------------------------------
# plain trigonometry of the closed chain (the second formulation the tests compare against)


def trig_climb_pose(p: ClimbParams, h: float, phi: float, s: float, theta: float) -> dict[str, np.ndarray]:
    """Body centre, arm COM and guide-wheel centre in S (x = 0 plane) by elementary geometry, for
    contact on the straight front face: the centre sits l_z behind the face and (z_p + s − h) along
    it from the edge; the arm points at angle (θ − φ) below the slope-parallel, backwards."""
    e = p.z_pivot0 + s - h  # centre's coordinate along the face, measured from the edge
    lz = p.l_z
    cy = -lz * math.cos(phi) + e * math.sin(phi)
    cz = h + lz * math.sin(phi) + e * math.cos(phi)
    u = np.array([0.0, -math.cos(theta - phi), -math.sin(theta - phi)])
    c = np.array([0.0, cy, cz])
    return {"body": c, "arm": c + p.arm_com * u, "wheel": c + p.arm_length * u}


def trig_closure(p: ClimbParams, h: float, phi: float, s: float, theta: float) -> float:
    """Eq. (12)'s third line with s₁₂ = h − z_p − s (the module doc, "Eq. (12)'s s"), = 0 on the closed chain."""
    s12 = h - p.z_pivot0 - s
    return p.arm_length * math.sin(theta - phi) + p.guide_radius - h - (p.l_z * math.sin(phi) - s12 * math.cos(phi))


__all__ = ["R_world_step", "gravity_S", "PerimeterJoint", "Chain", "climb_chain", "flip_chain", "top_chain",
           "trig_climb_pose", "trig_closure"]
