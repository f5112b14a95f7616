"""Screw-theory step-climbing model of the tracked wheel-manipulator robot (Hu et al. 2013, seed 004).

No pybullet here: this is the reference the engine is checked against.

Robot (Table 1)
    A triangular track body (pulley centres on an equilateral triangle of side ``l`` = 220 mm, pulley
    radius ``r`` = 25 mm, so the straight belt run of each face is ``l`` and the belt length 3l + 2πr),
    mass m_w = 5 kg with its COM at the geometric centre (the paper's assumption); an arm of mass
    m_a = 1.2 kg pivoting at that centre, length ``l_a`` from pivot to guide-wheel centre, tipped with a
    passive steel guide wheel of radius r_d = 30 mm. One motor (18.8 mN·m max, 3600 rpm) with a 144:1
    gearhead (i0), motor wheel → input wheel 5:1 (i1), sun → pulley 3:8 (i2).

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

Derived, where the paper is implicit or differs
    * l_z (Table 2): the pivot–front-face distance. With the arm pivot at the body centre (the sun
      wheel's axis; Table 2's z = l/2 is mid-face) l_z = l/(2√3) + r = 88.5 mm (the inradius of the
      pulley-centre triangle plus the belt's offset r).
    * z_p (Table 2 has l/2): at the start of the climb the front face is vertical against the riser
      and the bottom pulley touches the ground, so the pivot is at r + l/2 = 135 mm. The paper's l/2
      is a sharp-cornered triangle standing on its vertex; :attr:`ClimbParams.pivot_height` may be set
      to l/2 to reproduce it.
    * Eq. (12)'s s is the *edge's* coordinate along the face relative to the pivot,
      s₁₂ = h − l/2 − ∫v_d dt, while the POE's s (ξ4 along +z from the reference pose) is the
      travel ∫v_d dt: s_POE = h − z_p − s₁₂. With that substitution eq. (12)'s closure,
      l_a sin(θ − φ) + r_d − h = l_z sin φ − s₁₂ cos φ, is exactly the POE's "guide-wheel centre at
      height r_d"; we use s_POE throughout (s = 0 at the start of the climb).
    * Eq. (10) as printed subtracts the gravity work m g δz again although L = E_k − E_p already
      puts gravity into N(q) in eq. (9); counted twice it would double the static torque. We count
      gravity once: i1·τ = (M q̈ + C q̇ + N)·∂q/∂θ.
    * z_w, z_a in eq. (11) are "distances to the slope surface"; gravity's potential (eq. 8) is the
      world height, which is what we differentiate (they coincide only for α = 0).
    * Motor torque: eq. (11) gives τ at the motor wheel (after the 144:1 gearhead): τ·i1·δθ is the
      motor's virtual work. The lab reports it at the motor shaft, τ_m = τ / i0, the quantity the
      18.8 mN·m limit applies to (ideal gears: the paper gives no efficiency).

Drive: single input, two outputs (§1.1, Fig 2) — the planetary split
    The motor sits on the arm; its pinion (after the gearhead) meshes with the input wheel on the
    arm's pivot axis, which turns the sun wheel; sun → idler → output wheel = driving pulley, all on
    the body. Torque balance on the arm+motor+pinion: the mesh puts the same torque T = i1·τ₄
    (τ₄ = i0·τ_m) on the sun and, in reaction, on the arm, both relative to the body, in opposite
    senses about x — and the sense that drives the track forward swings a trailing arm's tip down.
    So, with the arm rate θ̇ and the pulley rate ψ̇_p (forward positive):
        arm torque       τ_arm   = i1 i0 τ_m                    (720 τ_m)
        pulley torque    τ_p     = i2 i1 i0 τ_m                  (270 τ_m)
        belt force       F_belt  = τ_p / r                       (10 800 τ_m N per N·m)
        motor speed      ω_m     = i0 i1 (θ̇ + i2 ψ̇_p) = i0 i1 θ̇ + i0 i1 i2 v_d / r
    At 18.8 mN·m: 13.5 N·m on the arm, 5.08 N·m on the pulley, 203 N of belt pull. At 3600 rpm:
    θ̇ ≤ 0.524 rad/s with the track stalled, v_d ≤ 34.9 mm/s with the arm still. Which output moves
    is set by the loads (a differential): on flat ground the belt needs little force and the arm is
    held by gravity, so the robot drives; at a step the track stalls and the arm turns (flip).
    Eq. (12)'s climb coupling v_d = θ̇ r / i2 is an extra kinematic assumption of the paper, not a
    consequence of the differential (which leaves one DOF to the loads). With it, ω_m = 2 i0 i1 θ̇,
    twice what eq. (10)'s τ i1 δθ assumes; θ̇ = 0.5 rad/s would need 6875 rpm. We keep the paper's
    kinematics and its eq. (11) (the power of both outputs referred to i1 θ̇) so the numbers compare
    with Figs 8–10, and report the arm torque and belt force separately as well.

Phases (Fig 5)
    advance (not modelled: rigid rolling takes no torque), flip — the body rotates about its front
    pulley's centre (in contact with the ground and the riser; the contact forces pass through that
    centre, so they do no work) from its base (ζ = −30°) to its front face against the riser (ζ = 0),
    track stalled, driven by the arm alone; the paper does not analyse it ("受力简单") — climb — the
    paper's closed chain (φ, s, θ), from φ = s = 0 until the robot's COM passes over the edge line
    (it then tips onto the step) — on top (low steps, h ≲ 0.075 m with Table 1) — the edge contact
    has rolled round the front-bottom pulley F until its normal is vertical: F stands on the step top
    at the corner while the COM is still behind the edge (3.0 cm at h = 0.05 m), so the climb is not
    over. The chain becomes F rolling on the top (its centre at h + r; no slip: the centre advances by
    r dφ + ds, belt travel s = (r/i2) θ as in eq. 12) with the guide wheel on the slope, until the COM
    passes the edge or the front face lies flat on the top. The paper does not treat it (its Fig 5
    climb ends over the edge); without it the model's climb of a low step ended with the COM behind
    the edge while the engine's ends with it over.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

TWO_PI = 2.0 * math.pi
STEEL_DENSITY = 7850.0


def _check(cond: bool, name: str, what: str) -> None:
    if not cond:
        raise ValueError(f"{name}: {what}")


# ---------------------------------------------------------------------------------------------
# parameters


class DriveLimits:
    """The single motor's limits seen at its outputs (Hu 2013, Table 1; the planetary stage of §1.1).
    Shared by the screw model's ClimbParams and the climb controller's parameters, which both carry
    the fields motor_speed_rpm, motor_torque_max, i0, i1, i2 and pulley_radius."""

    @property
    def motor_speed_max(self) -> float:
        """rad/s at the motor shaft."""
        return self.motor_speed_rpm * TWO_PI / 60.0

    @property
    def arm_torque_max(self) -> float:
        """i0 i1 τ_max on the arm."""
        return self.i0 * self.i1 * self.motor_torque_max

    @property
    def pulley_torque_max(self) -> float:
        """i0 i1 i2 τ_max on the pulley."""
        return self.i0 * self.i1 * self.i2 * self.motor_torque_max

    @property
    def arm_speed_max(self) -> float:
        """θ̇ at the rated motor speed with the track stalled: ω_m / (i0 i1)."""
        return self.motor_speed_max / (self.i0 * self.i1)

    @property
    def track_speed_max(self) -> float:
        """v_d at the rated motor speed with the arm still: ω_m r / (i0 i1 i2)."""
        return self.motor_speed_max * self.pulley_radius / (self.i0 * self.i1 * self.i2)


@dataclass(frozen=True)
class ClimbParams(DriveLimits):
    """Table 1 (and what the paper leaves open, marked). Lengths in m, masses in kg, torques in N·m."""

    m_body: float = 5.0  # m_w
    m_arm: float = 1.2  # m_a (arm beam + guide wheel)
    track_side: float = 0.22  # l: pulley-centre distance = straight belt run of a face
    pulley_radius: float = 0.025  # r
    guide_radius: float = 0.030  # r_d
    arm_length: float = 0.30  # l_a, pivot to guide-wheel centre
    motor_torque_max: float = 18.8e-3  # τ_max at the motor shaft
    motor_speed_rpm: float = 3600.0  # n
    i0: float = 144.0  # gearhead
    i1: float = 5.0  # motor wheel → input wheel
    i2: float = 3.0 / 8.0  # sun → pulley, ω_sun/ω_pulley
    gravity: float = 9.81
    # not in the paper:
    body_width: float = 0.20  # overall track width (x): the ends A, B of the edge contact line
    guide_width: float = 0.012  # steel guide wheel thickness → its mass ρπr_d²w (0.27 kg of m_a)
    pivot_height: float | None = None  # z_p at the climb start; None → r + l/2 (see module doc)

    def __post_init__(self):
        for name in ("m_body", "m_arm", "gravity", "i0", "i1", "i2", "motor_torque_max", "motor_speed_rpm"):
            _check(getattr(self, name) > 0, name, f"must be > 0, got {getattr(self, name)}")
        _check(0.05 <= self.track_side <= 1.0, "track_side", f"must be in [0.05, 1] m, got {self.track_side}")
        _check(0.0 < self.pulley_radius < self.track_side / 2, "pulley_radius",
               f"must be in (0, track_side/2), got {self.pulley_radius}")
        _check(0.0 < self.guide_radius <= 0.2, "guide_radius", f"must be in (0, 0.2] m, got {self.guide_radius}")
        _check(0.05 <= self.arm_length <= 1.0, "arm_length", f"must be in [0.05, 1] m, got {self.arm_length}")
        _check(0.02 <= self.body_width <= 1.0, "body_width", f"must be in [0.02, 1] m, got {self.body_width}")
        _check(0.0 < self.guide_width <= 0.1, "guide_width", f"must be in (0, 0.1] m, got {self.guide_width}")
        _check(self.m_guide < self.m_arm, "guide_width", "the guide wheel alone would outweigh the arm")

    # --- geometry -------------------------------------------------------------------------
    @property
    def inradius(self) -> float:
        """a = l/(2√3): centre of the pulley triangle to each face's pulley-centre line."""
        return self.track_side / (2.0 * math.sqrt(3.0))

    @property
    def l_z(self) -> float:
        """Table 2's l_z: pivot (body centre) to the front belt face, l/(2√3) + r."""
        return self.inradius + self.pulley_radius

    @property
    def z_pivot0(self) -> float:
        """Pivot height above the slope at the start of the climb (Table 2's z of ξ5)."""
        return self.pulley_radius + self.track_side / 2.0 if self.pivot_height is None else self.pivot_height

    @property
    def pulley_centres_B(self) -> np.ndarray:
        """(3, 2) pulley centres (y, z) in the body frame: front-top T, front-bottom F, rear R."""
        a, l = self.inradius, self.track_side
        return np.array([[a, l / 2], [a, -l / 2], [-2 * a, 0.0]])

    @property
    def perimeter(self) -> float:
        return 3.0 * self.track_side + TWO_PI * self.pulley_radius

    # --- mass properties (closed forms; the URDF derives the same from trimesh meshes) ------------
    @property
    def m_guide(self) -> float:
        return STEEL_DENSITY * math.pi * self.guide_radius**2 * self.guide_width

    @property
    def m_beam(self) -> float:
        return self.m_arm - self.m_guide

    @property
    def arm_com(self) -> float:
        """d_a: pivot → arm COM along the arm (uniform beam pivot→wheel centre + wheel at the tip)."""
        return (self.m_beam * self.arm_length / 2 + self.m_guide * self.arm_length) / self.m_arm

    @property
    def I_arm(self) -> np.ndarray:
        """Arm inertia about its COM in the arm frame (x lateral, y along the arm): slender beam plus
        the guide wheel as a point mass (its spin is free on its bearing; ½·m r_d²·ω² is < 0.1 % of
        the arm's kinetic energy and is left out, as in the paper)."""
        la, d = self.arm_length, self.arm_com
        i_perp = self.m_beam * (la**2 / 12 + (la / 2 - d) ** 2) + self.m_guide * (la - d) ** 2
        w = self.guide_width
        i_long = self.m_beam * w**2 / 6  # a thin square-section beam's axial moment, negligible
        return np.diag([i_perp, i_long, i_perp])

    @property
    def I_body(self) -> np.ndarray:
        """Body inertia about its COM in B: a uniform prism of the rounded-triangle section (the belt
        envelope), width ``body_width``. 120° symmetry makes the section's second moments equal."""
        A, Jyy, Jzz = rounded_triangle_moments(self.track_side, self.pulley_radius)
        m, w = self.m_body, self.body_width
        return np.diag([m * (Jyy + Jzz) / A, m * Jzz / A + m * w**2 / 12, m * Jyy / A + m * w**2 / 12])

    # --- drive: DriveLimits (motor speed, arm and track speed limits) ------------------------
    @property
    def sigma_per_theta(self) -> float:
        """Eq. (12): ds/dθ = v_d/θ̇ = r / i2."""
        return self.pulley_radius / self.i2

    def split(self, tau_motor: float) -> dict[str, float]:
        """The planetary split of a motor-shaft torque (see the module doc)."""
        T = self.i0 * self.i1 * tau_motor
        return {"arm_torque_Nm": T, "pulley_torque_Nm": self.i2 * T,
                "belt_force_N": self.i2 * T / self.pulley_radius}


def height_limit(p: ClimbParams = ClimbParams()) -> float:
    """The paper's theoretical height limit (§4.3): h_max1 = l from the simulations (the triangle's
    side), h_max2 = l − r from the geometric requirement that the flip pivot on the step's corner
    (citing its ref. 9); h_max = min(h_max1, h_max2) = 0.195 m with Table 1. Reproduced as stated —
    the lab's own geometric and torque limits come out of :func:`max_height`."""
    l, r = p.track_side, p.pulley_radius
    return min(l, l - r)


# ---------------------------------------------------------------------------------------------
# planar geometry helpers


def rounded_triangle_polygon(l: float, r: float, n_arc: int = 64) -> np.ndarray:
    """(N, 2) counter-clockwise (y, z) outline of the belt envelope: the pulley-centre triangle
    offset by r."""
    a = l / (2 * math.sqrt(3))
    C = np.array([[a, l / 2], [-2 * a, 0.0], [a, -l / 2]])  # T, R, F counter-clockwise
    pts = []
    # each vertex's arc runs from the previous face's outward normal to the next one's
    for k in range(3):
        for u in np.linspace(2 * math.pi * k / 3, 2 * math.pi * (k + 1) / 3, n_arc):
            pts.append(C[k] + r * np.array([math.cos(u), math.sin(u)]))
    return np.array(pts)


def polygon_moments(P: np.ndarray) -> tuple[float, float, float]:
    """Area and second moments ∫y² dA, ∫z² dA about the centroid of a simple polygon (y, z)."""
    y, z = P[:, 0], P[:, 1]
    y1, z1 = np.roll(y, -1), np.roll(z, -1)
    c = y * z1 - y1 * z
    A = 0.5 * c.sum()
    cy = ((y + y1) * c).sum() / (6 * A)
    cz = ((z + z1) * c).sum() / (6 * A)
    Iyy = ((y * y + y * y1 + y1 * y1) * c).sum() / 12  # ∫y² about the origin
    Izz = ((z * z + z * z1 + z1 * z1) * c).sum() / 12
    return abs(A), abs(Iyy) - abs(A) * cy**2, abs(Izz) - abs(A) * cz**2


def rounded_triangle_moments(l: float, r: float) -> tuple[float, float, float]:
    return polygon_moments(rounded_triangle_polygon(l, r, n_arc=400))


@dataclass(frozen=True)
class Perimeter:
    """The belt envelope as a curve b(λ) in the body frame (y, z), run clockwise (seen from +x)
    from the top of the front face: front face T→F (λ ∈ [0, l]), arc round F, base face F→R, arc
    round R, rear face R→T, arc round T. As the track drives the body up the edge, the contact moves
    to larger λ."""

    l: float
    r: float

    def _segments(self):
        a, l, r = self.l / (2 * math.sqrt(3)), self.l, self.r
        T, F, R = np.array([a, l / 2]), np.array([a, -l / 2]), np.array([-2 * a, 0.0])
        # (kind, start λ, length, data): lines carry (start point, unit direction, normal angle);
        # arcs carry (centre, start angle); angles decrease (clockwise).
        segs = []
        lam = 0.0
        for P0, P1, C_next, ang0 in ((T, F, F, 0.0), (F, R, R, -2 * math.pi / 3), (R, T, T, -4 * math.pi / 3)):
            n = np.array([math.cos(ang0), math.sin(ang0)])
            u = (P1 - P0) / l
            segs.append(("line", lam, l, (P0 + r * n, u)))
            lam += l
            segs.append(("arc", lam, 2 * math.pi * r / 3, (C_next, ang0)))
            lam += 2 * math.pi * r / 3
        return segs

    @property
    def length(self) -> float:
        return 3 * self.l + TWO_PI * self.r

    def eval(self, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
        """(b, b', b'', segment kind) at arc length λ (taken modulo the perimeter)."""
        lam = lam % self.length
        for kind, s0, L, data in self._segments():
            if lam <= s0 + L + 1e-15:
                u = lam - s0
                if kind == "line":
                    P, d = data
                    return P + u * d, d.copy(), np.zeros(2), kind
                C, ang0 = data
                ang = ang0 - u / self.r
                e = np.array([math.cos(ang), math.sin(ang)])
                t = np.array([math.sin(ang), -math.cos(ang)])  # d/dλ of C + r e(ang0 − λ/r)
                return C + self.r * e, t, -e / self.r, kind
        raise AssertionError("unreachable")  # pragma: no cover

    def normal(self, lam: float) -> np.ndarray:
        """Outward unit normal (y, z) at λ: on a clockwise run, the tangent turned by +90°."""
        _, t, _, _ = self.eval(lam)
        return np.array([-t[1], t[0]])


# ---------------------------------------------------------------------------------------------
# screw algebra (Murray, Li & Sastry 1994, ch. 2)


def hat3(w) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def twist_revolute(omega, point) -> np.ndarray:
    """ξ = (v; ω) with v = −ω × q = q × ω (Table 2's v_i = r_i × ω_i)."""
    w = np.asarray(omega, float)
    q = np.asarray(point, float)
    return np.concatenate([np.cross(q, w), w])


def twist_prismatic(direction) -> np.ndarray:
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
    """Ad_g for twists ordered (v; ω): [[R, p̂R], [0, R]]."""
    R, p = g[:3, :3], g[:3, 3]
    A = np.zeros((6, 6))
    A[:3, :3] = R
    A[:3, 3:] = hat3(p) @ R
    A[3:, 3:] = R
    return A


def inv_se3(g: np.ndarray) -> np.ndarray:
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
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0], [0, 0, 1.0]])


def R_world_step(alpha: float, beta: float) -> np.ndarray:
    """Rotation step frame → world: exp(ξ̂1 α) exp(ξ̂2 β) of eqs. (1–2) (both through the origin)."""
    return rot_x(alpha) @ rot_z(beta)


def gravity_S(alpha: float, beta: float, g: float = 9.81) -> np.ndarray:
    return R_world_step(alpha, beta).T @ np.array([0.0, 0.0, -g])


# ---------------------------------------------------------------------------------------------
# joints and chains


@dataclass(frozen=True)
class Joint:
    """One POE factor. ``kind`` 'rev' (constant twist ξ) or 'perimeter' (translation d(s) that follows
    the belt envelope from the start contact λ0: d(s) = b(λ0) − b(λ0 + s), twist (d'(s); 0))."""

    kind: str
    xi: np.ndarray | None = None
    perim: Perimeter | None = None
    lam0: float = 0.0

    def exp(self, q: float) -> np.ndarray:
        if self.kind == "rev":
            return exp_twist(self.xi, q)
        b0, *_ = self.perim.eval(self.lam0)
        b1, *_ = self.perim.eval(self.lam0 + q)
        g = np.eye(4)
        g[1:3, 3] = b0 - b1
        return g

    def twist(self, q: float) -> np.ndarray:
        if self.kind == "rev":
            return self.xi
        _, t, _, _ = self.perim.eval(self.lam0 + q)
        return np.array([0.0, -t[0], -t[1], 0, 0, 0])

    def dtwist(self, q: float) -> np.ndarray:
        if self.kind == "rev":
            return np.zeros(6)
        _, _, k, _ = self.perim.eval(self.lam0 + q)
        return np.array([0.0, -k[0], -k[1], 0, 0, 0])


@dataclass(frozen=True)
class Link:
    """A rigid body moved by the first ``n_joints`` joints of the chain, with reference pose ``g0``
    (its COM frame at q = 0) and spatial inertia G = diag(m E, I) (eq. 6)."""

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
class Chain:
    """The equivalent fixed-base manipulator of Fig 7(b) (after α, β): joints in order, and the links
    (body, arm). The last link carries the guide wheel at ``wheel_B`` (its COM frame)."""

    joints: tuple[Joint, ...]
    links: tuple[Link, ...]
    wheel_B: np.ndarray  # guide-wheel centre in the arm's COM frame
    arm_joint: int  # index of θ in q

    @property
    def n(self) -> int:
        return len(self.joints)

    def poses(self, q) -> list[np.ndarray]:
        """g_sl(q) for every link (eqs. 1–2 without α, β): products of exponentials times g0."""
        out = []
        for link in self.links:
            g = np.eye(4)
            for j in range(link.n_joints):
                g = g @ self.joints[j].exp(q[j])
            out.append(g @ link.g0)
        return out

    def body_jacobian(self, q, link: Link) -> np.ndarray:
        """J^b (6 × n), eqs. (4–5): column i = Ad⁻¹_{X_{i+1}…X_k g0} ξ_i, zero for joints past the link."""
        J = np.zeros((6, self.n))
        tail = link.g0.copy()
        for i in range(link.n_joints - 1, -1, -1):
            J[:, i] = adjoint(inv_se3(tail)) @ self.joints[i].twist(q[i])
            tail = self.joints[i].exp(q[i]) @ tail
        return J

    def body_jacobian_derivatives(self, q, link: Link, J: np.ndarray) -> np.ndarray:
        """dJ[k] = ∂J^b/∂q_k (n × 6 × n): ∂col_i/∂q_k = [col_i, col_k] for k > i (exact, Lie bracket),
        plus the perimeter joint's own curvature term ∂col_i/∂q_i = Ad⁻¹(dξ_i/dq_i)."""
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
        """Eq. (7): M = Σ J^bᵀ G J^b."""
        M = np.zeros((self.n, self.n))
        for link in self.links:
            J = self.body_jacobian(q, link)
            M += J.T @ link.G @ J
        return M

    def dynamics(self, q, qd, g_S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(M, C q̇, N) of eq. (9): M from eq. (7), C from the Christoffel symbols of M with ∂M/∂q from
        the Lie-bracket derivatives of the Jacobians, N = ∂E_p/∂q with E_p = −Σ m g_S·p (eq. 8)."""
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
        m = np.array([lk.mass for lk in self.links])
        P = np.array([g[:3, 3] for g in self.poses(q)])
        return m @ P / m.sum()

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
    j3 = Joint("rev", twist_revolute((-1, 0, 0), (0, 0, h)))
    j4 = Joint("perimeter", perim=perim, lam0=lam0)
    j5 = Joint("rev", twist_revolute((1, 0, 0), (0, -lz, zp)))
    return Chain((j3, j4, j5), _links(p, 2), np.array([0.0, -(p.arm_length - p.arm_com), 0.0]), 2)


def flip_chain(p: ClimbParams) -> Chain:
    """The flip's chain q = (ζ, θ): rotation about the front-bottom pulley's centre (0, −r, r), then
    the arm. ζ = −30° is the body on its base, ζ = 0 its front face against the riser."""
    r = p.pulley_radius
    jF = Joint("rev", twist_revolute((-1, 0, 0), (0, -r, r)))
    j5 = Joint("rev", twist_revolute((1, 0, 0), (0, -p.l_z, p.z_pivot0)))
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
    ju = Joint("rev", twist_prismatic((0, 1, 0)))  # 'rev': any constant twist (exp_twist handles ω = 0)
    jphi = Joint("rev", twist_revolute((-1, 0, 0), (0, 0, h + r)))
    jth = Joint("rev", twist_revolute((1, 0, 0), pivot))
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
    """Eq. (12)'s third line with s₁₂ = h − z_p − s (see the module doc), = 0 on the closed chain."""
    s12 = h - p.z_pivot0 - s
    return p.arm_length * math.sin(theta - phi) + p.guide_radius - h - (p.l_z * math.sin(phi) - s12 * math.cos(phi))


# ---------------------------------------------------------------------------------------------
# the climb


@dataclass
class ClimbPath:
    """The kinematic path of flip + climb for one (h, l_a), parametrised by the arm angle θ.

    Arrays per sample (flip samples first, then climb, then on top): ``phase`` 0 flip / 1 climb /
    2 on top, ``q`` the phase's own coordinates padded to (ζ or φ, s, θ) — on top (u, φ̃, θ̃) of
    :func:`top_chain`, relative to the landing pose —, ``dq``/``ddq`` = dq/dθ, d²q/dθ². Independent of
    α, β (the closure lives in S); gravity enters only the dynamics and the end condition.
    """

    params: ClimbParams
    h: float
    theta: np.ndarray
    phase: np.ndarray
    q: np.ndarray
    dq: np.ndarray
    ddq: np.ndarray
    com: np.ndarray  # (n, 3) robot COM in S
    wheel: np.ndarray  # (n, 3) guide-wheel centre in S
    contact_normal: np.ndarray  # (n, 2) outward body normal at the edge contact (y, z); NaN in the flip
    end: str  # why the geometric path stops: 'landed' | 'reach' | 'riser' | 'ground' | 'range' | 'riser_face'
    closure_residual: float  # max |f(q)| over the samples
    top: "Chain | None" = None  # the on-top chain (phase 2), if the edge contact rolled onto the top
    top_free: np.ndarray | None = None  # its free direction in (u, φ̃, θ̃): rolling at fixed belt travel

    @property
    def climb(self) -> np.ndarray:
        """The climb window's samples: against the edge and, for low steps, on top."""
        return self.phase >= 1


def _solve_closure(chain: Chain, q: np.ndarray, k_free: int, r_d: float, x0: float,
                   lo: float, hi: float) -> float | None:
    """Solve f(q) = 0 for the free coordinate q[k_free] near x0: :func:`_solve_closure_along` with the
    unit direction of that coordinate (the same arithmetic: q0 + x e_k puts exactly x there)."""
    q0 = np.array(q, dtype=float)
    q0[k_free] = 0.0
    d = np.zeros_like(q0)
    d[k_free] = 1.0
    return _solve_closure_along(chain, q0, d, r_d, x0, lo, hi)


def _solve_closure_along(chain: Chain, q0: np.ndarray, d: np.ndarray, r_d: float, x0: float, lo: float,
                         hi: float) -> float | None:
    """Solve f(q0 + x d) = 0 for x near x0 (Newton on ∇f·d, then bisection on [lo, hi])."""
    x = x0
    for _ in range(30):
        q = q0 + x * d
        f = chain.closure(q, r_d)
        if abs(f) < 1e-13:
            return x
        df = float(chain.closure_gradient(q) @ d)
        if abs(df) < 1e-9:
            break
        step = f / df
        x -= step
        if not lo <= x <= hi:
            break
        if abs(step) < 1e-14:
            return x
    from scipy.optimize import brentq

    def fx(v):
        return chain.closure(q0 + v * d, r_d)

    grid = np.linspace(lo, hi, 41)
    vals = [fx(v) for v in grid]
    best = None
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa == 0:
            cand = a
        elif fa * fb < 0:
            cand = brentq(fx, a, b, xtol=1e-14)
        else:
            continue
        if best is None or abs(cand - x0) < abs(best - x0):
            best = cand
    return best


def climb_path(p: ClimbParams, h: float, dtheta: float = 0.01, max_theta_span: float = 2 * math.pi) -> ClimbPath:
    """Sample the flip and climb of a step of height h (r ≤ h ≤ l + r) every ``dtheta`` of arm angle.

    Flip: ζ from −30° to 0 with the track stalled (s = 0), ζ from the closure.
    Climb: s = (r/i2)(θ − θ_c0) (eq. 12), φ from the closure, until the body's outward normal at the
    edge leaves the corner's normal cone ('riser_face': it would tip back into the riser; past
    vertical: the contact has rolled onto the top — then the on-top phase, :func:`top_chain`, from the
    exact landing pose, until the front face lies flat on the top: 'landed'), the closure has no
    solution ('reach': the arm cannot touch the slope), the guide wheel reaches the riser ('riser'),
    or the body would cut the slope ('ground'). dq/dθ and d²q/dθ² are exact (implicit differentiation
    of the closure, with its Hessian from the Jacobians' Lie-bracket derivatives). Cached per (p, h,
    dtheta).
    """
    return _climb_path(p, float(h), float(dtheta), float(max_theta_span))


@functools.lru_cache(maxsize=512)
def _climb_path(p: ClimbParams, h: float, dtheta: float, max_theta_span: float) -> ClimbPath:
    r, l = p.pulley_radius, p.track_side
    if not r <= h <= l + r:
        raise ValueError(f"h: the flip-and-climb needs r ≤ h ≤ l + r = [{r:g}, {l + r:g}] m, got {h}")
    rd = p.guide_radius
    flip = flip_chain(p)
    climb = climb_chain(p, h)
    perim = Perimeter(l, r)

    th_f0 = _solve_closure(flip, np.array([-math.pi / 6, 0.0]), 1, rd, 0.0, -math.pi / 2, math.pi / 2)
    th_c0 = _solve_closure(flip, np.array([0.0, 0.0]), 1, rd, 0.3, -math.pi / 2, math.pi / 2)
    if th_f0 is None or th_c0 is None:
        raise ValueError(f"arm_length: {p.arm_length} m cannot reach the ground from the pivot")
    rows = []  # (phase, θ, q3, dq3, ddq3, com, wheel, normal)

    n_f = max(2, int(math.ceil((th_c0 - th_f0) / dtheta)))
    zeta = -math.pi / 6
    dep_f = np.array([0.0, 1.0])
    for th in np.linspace(th_f0, th_c0, n_f + 1)[:-1]:
        zeta = _solve_closure(flip, np.array([zeta, th]), 0, rd, zeta, -math.pi / 2, math.pi / 2)
        qf = np.array([zeta, th])
        t1, t2 = _path_derivatives(flip, qf, 0, dep_f)
        rows.append((0, th, np.array([zeta, 0.0, th]), np.array([t1[0], 0.0, 1.0]), np.array([t2[0], 0.0, 0.0]),
                     flip.com(qf), flip.wheel_centre(qf), np.array([np.nan, np.nan])))

    k = p.sigma_per_theta
    dep = np.array([0.0, k, 1.0])
    end = "range"
    phi = 0.0

    def edge_normal(ph: float, s: float) -> np.ndarray:
        n_B = perim.normal(climb.joints[1].lam0 + s)
        c, s_ = math.cos(-ph), math.sin(-ph)  # R_x(−φ) on (y, z)
        return np.array([c * n_B[0] - s_ * n_B[1], s_ * n_B[0] + c * n_B[1]])

    grid = th_c0 + np.arange(0.0, max_theta_span, dtheta)
    landing = None
    for i_th, th in enumerate(grid):
        s = k * (th - th_c0)
        ph = _solve_closure(climb, np.array([phi, s, th]), 0, rd, phi, -0.3, math.pi)
        if ph is None or abs(ph - phi) > 0.2:
            end = "reach"
            break
        qc = np.array([ph, s, th])
        n_S = edge_normal(ph, s)
        # the body touches the corner from outside only while −n_S is in the corner's normal cone
        # (n_y ≥ 0, n_z ≤ 0)
        if n_S[1] > 1e-9:
            end = "riser_face"
            break
        if n_S[0] < -1e-9:  # the contact has rolled over the corner onto the top: find where exactly
            landing = (i_th, phi)
            break
        phi = ph
        wheel = climb.wheel_centre(qc)
        if wheel[1] > -rd:
            end = "riser"
            break
        if _body_min_height(climb, qc, p) < -1e-9:
            end = "ground"
            break
        t1, t2 = _path_derivatives(climb, qc, 0, dep)
        rows.append((1, th, qc, t1, t2, climb.com(qc), wheel, n_S))
    top = d_top = None
    if landing is not None:
        from scipy.optimize import brentq

        i_th, phi = landing
        th_prev = grid[i_th - 1] if i_th else th_c0

        def phi_at(th: float) -> float:
            ph = _solve_closure(climb, np.array([phi, k * (th - th_c0), th]), 0, rd, phi, -0.3, math.pi)
            return math.nan if ph is None else ph

        th_L = brentq(lambda th: edge_normal(phi_at(th), k * (th - th_c0))[0], th_prev, grid[i_th], xtol=1e-13)
        q_L = np.array([phi_at(th_L), k * (th_L - th_c0), th_L])
        g_body, g_arm = climb.poses(q_L)
        top, d_top = top_chain(p, g_body, g_arm, h)
        dep_top = np.array([k, 0.0, 1.0])
        x = 0.0
        end = "range"
        for th in grid[i_th:]:
            tt = th - th_L
            q0 = np.array([k * tt, 0.0, tt])
            x_new = _solve_closure_along(top, q0, d_top, rd, x, -0.3, math.pi)
            if x_new is None or abs(x_new - x) > 0.2:
                end = "reach"
                break
            x = x_new
            qt = q0 + x * d_top
            if q_L[0] + x >= math.pi / 2:  # the front face lies flat on the top
                end = "landed"
                break
            wheel = top.wheel_centre(qt)
            if wheel[1] > -rd:
                end = "riser"
                break
            t1, t2 = _path_derivatives_along(top, qt, d_top, dep_top)
            rows.append((2, th, qt, t1, t2, top.com(qt), wheel, np.array([0.0, -1.0])))
    ph_, th_, q_, dq_, ddq_, com_, wh_, n_ = (np.array([r_[i] for r_ in rows]) for i in range(8))
    res = 0.0
    for phs, qq in zip(ph_, q_):
        f = (flip.closure(qq[[0, 2]], rd) if phs == 0 else climb.closure(qq, rd) if phs == 1
             else top.closure(qq, rd))
        res = max(res, abs(f))
    return ClimbPath(params=p, h=h, theta=th_, phase=ph_.astype(int), q=q_, dq=dq_, ddq=ddq_, com=com_,
                     wheel=wh_, contact_normal=n_, end=end, closure_residual=res, top=top, top_free=d_top)


def _path_derivatives(chain: Chain, q: np.ndarray, k_free: int, dep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q' and q'' along the closed chain: the driven coordinates move as ``dep`` per unit θ (θ'' = 0,
    s'' = 0); the free one from f(q(θ)) = 0 → ∇f·q' = 0 and ∇f·q'' + q'ᵀ H_f q' = 0."""
    Jp, H = chain.point_derivatives(q, len(chain.links) - 1, chain.wheel_B)
    grad, Hf = Jp[2], H[2]
    t1 = dep.copy()
    t1[k_free] = 0.0
    t1[k_free] = -(grad @ t1) / grad[k_free]
    t2 = np.zeros_like(t1)
    t2[k_free] = -(t1 @ Hf @ t1) / grad[k_free]
    return t1, t2


def _path_derivatives_along(chain: Chain, q: np.ndarray, d: np.ndarray,
                            dep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q' and q'' when the free motion is along a fixed direction ``d`` of q (the on-top rolling):
    q' = dep + a d with ∇f·q' = 0, q'' = b d with ∇f·q'' + q'ᵀ H_f q' = 0 (dep's rates are constant)."""
    Jp, H = chain.point_derivatives(q, len(chain.links) - 1, chain.wheel_B)
    grad, Hf = Jp[2], H[2]
    gd = float(grad @ d)
    t1 = dep - (grad @ dep) / gd * d
    t2 = -(t1 @ Hf @ t1) / gd * d
    return t1, t2


def _body_min_height(chain: Chain, q: np.ndarray, p: ClimbParams) -> float:
    """Lowest point of the belt envelope above the slope: pulley centres' z minus r."""
    g = chain.poses(q)[0]
    P = p.pulley_centres_B
    z = g[2, 3] + g[2, 1] * P[:, 0] + g[2, 2] * P[:, 1]
    return float(z.min() - p.pulley_radius)


@dataclass
class ClimbResult:
    """Torques and margins over the climb of one (h, θ̇, l_a, α, β).

    ``motor_torque`` is eq. (11) at the motor shaft (N·m): (M q̈ + C q̇ + N)·∂q/∂θ / (i1 i0);
    ``arm_torque`` and ``belt_force`` split the climb's generalised force between the arm joint and
    the track at fixed s and fixed θ respectively (the flip's belt force is 0: track stalled);
    ``wheel_force`` the guide wheel's normal force, ``edge_normal``/``edge_tangent`` the edge's force
    on the body (climb only) and ``mu_required`` = |tangent|/normal, what no-slip at the edge needs.
    """

    path: ClimbPath
    alpha: float
    beta: float
    arm_speed: float
    n: int  # samples used (up to the end of the climb)
    t: np.ndarray
    motor_torque: np.ndarray
    arm_torque: np.ndarray
    belt_force: np.ndarray
    wheel_force: np.ndarray
    edge_normal: np.ndarray
    edge_tangent: np.ndarray
    mu_required: np.ndarray
    success: bool
    reason: str
    time_flip: float
    time_climb: float

    @property
    def phase(self) -> np.ndarray:
        return self.path.phase[: self.n]

    @property
    def peak_motor_torque(self) -> float:
        return float(np.max(self.motor_torque)) if self.n else float("nan")

    @property
    def peak_climb_torque(self) -> float:
        """Peak over the climb phase only (the quasi-static phase the engine check compares; for low
        steps it includes the on-top samples up to the COM over the edge)."""
        m = self.phase >= 1
        return float(np.max(self.motor_torque[m])) if m.any() else float("nan")

    @property
    def time(self) -> float:
        return self.time_flip + self.time_climb


def forward_distance(com: np.ndarray, h: float, g_S: np.ndarray) -> np.ndarray:
    """Signed distance, perpendicular to gravity, by which the COM lies beyond the edge line (y = 0,
    z = h) in the climbing direction: (p − E)_y (−ĝ_z) + (p − E)_z ĝ_y. ≥ 0: it tips onto the step."""
    gh = g_S / np.linalg.norm(g_S)
    return com[:, 1] * (-gh[2]) + (com[:, 2] - h) * gh[1]


def climb(p: ClimbParams, h: float, arm_speed: float = 0.5, alpha: float = 0.0, beta: float = 0.0,
          path: ClimbPath | None = None) -> ClimbResult:
    """Motor torque over flip + climb (eqs. 9–12) at constant arm speed θ̇ = ``arm_speed``.

    Success: the COM passes over the edge line (perpendicular to gravity) or the front face lands
    on the step top before the path fails geometrically, with the torque within the motor's maximum.
    """
    if path is None:
        path = climb_path(p, h)
    if arm_speed <= 0:
        raise ValueError(f"arm_speed: must be > 0 rad/s, got {arm_speed}")
    g_S = gravity_S(alpha, beta, p.gravity)
    flip = flip_chain(p)
    chain = climb_chain(p, h)
    d_fwd = forward_distance(path.com, h, g_S)
    n_all = len(path.theta)
    over = np.nonzero((d_fwd >= 0) & (path.phase >= 1))[0]
    if over.size:
        n, success, reason = int(over[0]) + 1, True, "com_over_edge"
    elif path.end == "landed":
        n, success, reason = n_all, True, "landed"
    else:
        n, success, reason = n_all, False, path.end
    th = path.theta[:n]
    wd = arm_speed
    tau_m = np.zeros(n)
    tau_arm = np.zeros(n)
    F_belt = np.zeros(n)
    lam_w = np.zeros(n)
    e_n = np.full(n, np.nan)
    e_t = np.full(n, np.nan)
    m_tot = p.m_body + p.m_arm
    for i in range(n):
        q3, dq3, ddq3 = path.q[i], path.dq[i], path.ddq[i]
        ph = path.phase[i]
        climbing = ph >= 1
        idx, ch = ([0, 2], flip) if ph == 0 else ([0, 1, 2], chain if ph == 1 else path.top)
        q, qd, qdd = q3[idx], dq3[idx] * wd, ddq3[idx] * wd**2
        M, Cqd, N = ch.dynamics(q, qd, g_S)
        Q = M @ qdd + Cqd + N  # eq. (9): the generalised forces the motion needs
        tau_m[i] = float(Q @ dq3[idx]) / (p.i1 * p.i0)  # eq. (11), gravity counted once, at the shaft
        grad = ch.closure_gradient(q)
        # the unactuated direction (the edge or pulley rotation; on top, rolling at fixed belt travel)
        # carries only the wheel's normal force
        d_free = path.top_free if ph == 2 else np.eye(len(idx))[0]
        lam_w[i] = float(Q @ d_free) / float(grad @ d_free)
        tau_arm[i] = Q[-1] - lam_w[i] * grad[-1]
        if not climbing:
            continue
        k_belt = 0 if ph == 2 else 1  # on top the belt travel moves u one for one (at fixed φ̃, θ̃)
        F_belt[i] = Q[k_belt] - lam_w[i] * grad[k_belt]
        # edge force from the robot's momentum balance: F_edge = Σ m p̈ − Σ m g − λ_w ẑ, p̈ exact
        mpdd = np.zeros(3)
        for k, link in enumerate(ch.links):
            Jp, H = ch.point_derivatives(q, k, np.zeros(3))
            mpdd += link.mass * (Jp @ qdd + np.einsum("aij,i,j->a", H, qd, qd))
        F = mpdd - m_tot * g_S - lam_w[i] * np.array([0.0, 0.0, 1.0])
        nS = path.contact_normal[i]
        n3 = np.array([0.0, nS[0], nS[1]])
        t3 = np.array([0.0, -nS[1], nS[0]])  # the normal turned +90°: the body's travel direction
        e_n[i] = -F @ n3  # pressing into the body (the normal points out of it)
        e_t[i] = F @ t3
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.abs(e_t) / e_n
    if success and np.max(tau_m) > p.motor_torque_max:
        success, reason = False, "torque"
    phase = path.phase[:n]
    t = (th - th[0]) / wd
    th_c0 = th[phase == 1][0] if (phase == 1).any() else th[-1]
    t_flip = float((th_c0 - th[0]) / wd)
    t_climb = float((th[-1] - th_c0) / wd)
    return ClimbResult(path=path, alpha=alpha, beta=beta, arm_speed=wd, n=n, t=t, motor_torque=tau_m,
                       arm_torque=tau_arm, belt_force=F_belt, wheel_force=lam_w, edge_normal=e_n,
                       edge_tangent=e_t, mu_required=mu, success=success, reason=reason, time_flip=t_flip,
                       time_climb=t_climb)


def differential_stall(p: ClimbParams = ClimbParams(), mu: float = 0.8) -> dict[str, float]:
    """What the single-motor flip (§1.1, Fig 5b: "the track stalls, the arm turns") needs at its start,
    the body on its base, its front pulley F against the ground and a flat riser (h > r; level ground),
    quasi-static — and what Coulomb friction at F can give.

    With the belt held at F's two contacts (stalled), the body turns about F's centre and the belt
    runs back round F: ψ̇ = −ζ̇. The differential loads the pulley with i2 τ_arm (τ_p = i0 i1 i2 τ_m,
    τ_arm = i0 i1 τ_m), so by virtual work τ_arm (1 − i2 dζ/dθ) = dV/dθ = τ_free (the arm torque of the
    model's flip with a free belt): the belt's reaction makes the flip dearer, and the belt must hold
    F_belt = i2 τ_arm / r. At F, the ground's friction f_g (forward) is the only thing pressing the
    pulley into the riser (the guide wheel rolls freely: no horizontal force), so N_w = f_g; with
    N_g + f_w = W − λ (λ the guide wheel's load), f_g ≤ μ N_g and f_w ≤ μ N_w the belt force it can hold
    is at most μ(1 + μ)/(1 + μ²)·(W − λ) — largest at μ = 1 + √2, where the factor is 1.207.

    Returns arm_torque_Nm, belt_force_N, motor_torque_Nm (shaft) and wheel_force_N (λ, from the arm's
    moment balance about the pivot) of the stalled flip, free_arm_torque_Nm, capacity_N at ``mu``
    and capacity_max_N at any μ.
    """
    path = climb_path(p, p.pulley_radius + 0.05)  # the flip does not depend on h (> r)
    r0 = climb(p, path.h, arm_speed=1e-6, path=path)
    tau_free = float(r0.arm_torque[0])
    dzeta = float(path.dq[0][0])
    tau_arm = tau_free / (1.0 - p.i2 * dzeta)
    cap, lam = riser_belt_capacity(p, tau_arm, mu)
    return {"arm_torque_Nm": tau_arm, "belt_force_N": p.i2 * tau_arm / p.pulley_radius,
            "motor_torque_Nm": tau_arm / (p.i0 * p.i1), "wheel_force_N": lam, "free_arm_torque_Nm": tau_free,
            "capacity_N": cap, "capacity_max_N": riser_belt_capacity(p, tau_arm, 1 + math.sqrt(2))[0]}


def riser_belt_capacity(p: ClimbParams, arm_torque: float, mu: float) -> tuple[float, float]:
    """(the largest belt force Coulomb friction at the front pulley holds against the ground and a flat
    riser, μ(1 + μ)/(1 + μ²)(W − λ); the guide wheel's load λ) with the body on its base at the flip's
    start and the arm pressing its wheel down with ``arm_torque`` (see :func:`differential_stall`)."""
    ch = flip_chain(p)
    path = climb_path(p, p.pulley_radius + 0.05)
    q = path.q[0][[0, 2]]
    g_body, g_arm = ch.poses(q)
    pivot_y, arm_y, wheel_y = g_body[1, 3], g_arm[1, 3], ch.wheel_centre(q)[1]
    # the arm about the pivot: τ_arm = λ (pivot − wheel) − m_a g (pivot − arm COM), horizontal arms
    lam = float((arm_torque + p.m_arm * p.gravity * (pivot_y - arm_y)) / (pivot_y - wheel_y))
    W = (p.m_body + p.m_arm) * p.gravity
    return mu * (1 + mu) / (1 + mu * mu) * (W - lam), lam


def max_height(p: ClimbParams = ClimbParams(), arm_speed: float = 0.5, alpha: float = 0.0, beta: float = 0.0,
               h_lo: float | None = None, h_hi: float | None = None, tol: float = 5e-4) -> float:
    """Largest h the model climbs (bisection on success; assumes success is monotone in h)."""
    lo = p.pulley_radius if h_lo is None else h_lo
    hi = p.track_side + p.pulley_radius if h_hi is None else h_hi
    if not climb(p, lo, arm_speed, alpha, beta).success:
        return float("nan")
    if climb(p, hi, arm_speed, alpha, beta).success:
        return hi
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if climb(p, mid, arm_speed, alpha, beta).success:
            lo = mid
        else:
            hi = mid
    return lo


__all__ = ["ClimbParams", "ClimbPath", "ClimbResult", "Chain", "Joint", "Link", "Perimeter", "climb",
           "differential_stall", "riser_belt_capacity", "climb_chain", "climb_path", "flip_chain", "forward_distance",
           "gravity_S", "height_limit",
           "max_height", "trig_climb_pose", "trig_closure", "exp_twist", "adjoint", "lie_bracket",
           "twist_revolute", "twist_prismatic", "R_world_step"]
