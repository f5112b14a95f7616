"""The single motor at a riser: when the belt stalls, when it slides, and what the flip needs
(Hu et al. 2013, §1.1 and Fig 2: one input, two outputs; §2.2 (b) and Fig 5b: "the track stalls, the
motor torque rises, the arm turns and the body rotates about the pulley touching the step").

No pybullet here. Level ground (slope α = 0, yaw β = 0), quasi-static, rigid bodies, Coulomb friction.

Setting (the symmetric section, x forward, z up; moments about +y, positive = nose down)
    The body rests on its base face, its front-bottom pulley F (radius r, centre C_F) touching the
    ground below and a flat riser in front (r < h < l + r: the riser is met by F's front point, at the
    height of C_F). The arm trails on its passive guide wheel (radius r_d, free on its bearing: its
    contact force is vertical, λ). Lever arms, horizontal, backwards from C_F: d_b to the body's COM (the
    pivot, the pulley triangle's centre: l/2), d_a to the arm's COM, d_λ to the guide wheel's contact;
    and from the pivot: b_a to the arm's COM, b_w to the wheel (b_w = √(l_a² − (a + r − r_d)²),
    a = l/(2√3)).

The differential (the drive notes of lab.papers.hu2013_tracked.model.params; ideal gears, as the paper)
    T = i0 i1 τ_m on the arm (tip down) and i2 T on the belt's pulley, both reacting on the body, so
    the belt pull — the sum of the contacts' tangential forces on the belt — is F = i2 T / r.

Contacts (per unit of the belt's pull; friction opposes the belt's slip, which is one and the same
motion of the belt at every contact, so every friction force here is ≥ 0)
    ground under the belt: normal N_g, friction f_g forward (the driven belt pushes the ground back);
    riser at F's front: normal N_w (pushing back), friction f_w upward (the belt runs down the riser);
    guide wheel: λ up.
    horizontal:  f_g = N_w                         (nothing else pushes forward)
    vertical:    N_g + f_w + λ = W                 (W = (m_w + m_a) g)
    belt:        f_g + f_w = F                     (virtual work of the belt's one DOF)
    arm:         λ b_w = T + m_a g b_a             (moments about the pivot)

Stall force (both contacts sliding: f_g = μ_g N_g, f_w = μ_w N_w)
    F = k (W − λ),   k(μ_g, μ_w) = μ_g (1 + μ_w) / (1 + μ_g μ_w)
    With λ(T) and F = i2 T / r this is linear in T:
    T_s = k (W − m_a g b_a / b_w) / (i2 / r + k / b_w),   F_s = i2 T_s / r.
    The most any sticking split can hold is μ_g max(1, (1 + μ_w)/(1 + μ_g μ_w)) (W − λ) ≤ max(1, μ_g)(W − λ)
    (:func:`hold_coefficient`); the belt is one body, so once it slips it slides at both contacts and
    the force it carries is the sliding one, k (W − λ). k = μ(1 + μ)/(1 + μ²) only when μ_g = μ_w; with a
    frictionless riser k = μ_g.

Flip requirement (the rear about to lift: all ground contact at F)
    Moments of the whole robot about C_F: N_g and N_w pass through C_F; f_g and f_w act at F's rim with
    lever r whether they stick or slide, together −r F; the gears are internal. So
        λ d_λ = g (m_w d_b + m_a d_a) + r F = g M_d + i2 T,
    and with the arm's balance
        T_f = g (M_d − m_a b_a d_λ / b_w) / (d_λ / b_w − i2),   F_f = i2 T_f / r,   independent of μ and h.
    The belt's reaction costs i2 T of moment: the flip needs d_λ/b_w > i2 at all.

The single motor flips iff the belt holds F_f: T_s ≥ T_f, i.e. k (W − λ_f) ≥ F_f. With κ = F_f/(W − λ_f):
    frictionless riser: μ_g ≥ κ;   riser μ_w: μ_g ≥ κ / (1 + μ_w (1 − κ)), impossible for μ_w ≥ 1/(κ − 1);
    gear ratio: λ* = (g M_d + r k W)/(d_λ + r k), T* = λ* b_w − m_a g b_a (both free of i2), and the
    flip needs i2 ≤ i2* = r k (W − λ*) / T*.
Between the sliding and the sticking bounds (μ_g > 1 with μ_w > 0) the rigid law does not decide: a
stalled belt's pull is shared between ground and riser by the contacts' tangential compliance, and the
belt holds more than k (W − λ) — up to μ_g (W − λ) — if the riser takes little of it before the ground
saturates (the engine flips there at μ_g = 3.5, μ_w = 0.3; the sliding bound says μ_g ≥ 5.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lab.papers.hu2013_tracked.model.params import ClimbParams


@dataclass(frozen=True)
class StallPose:
    """The flip's start pose of :func:`stall_pose` as lever arms (m, horizontal) and loads (N, kg).
    ``d_*`` backwards from the front pulley's centre C_F; ``b_*`` backwards from the arm's pivot."""

    d_body: float  # d_b: C_F → body COM (the pivot)
    d_arm: float  # d_a: C_F → arm COM
    d_wheel: float  # d_λ: C_F → guide-wheel contact
    b_arm: float  # b_a: pivot → arm COM
    b_wheel: float  # b_w: pivot → guide-wheel contact
    m_body: float
    m_arm: float
    gravity: float
    pulley_radius: float
    i2: float
    arm_torque_max: float  # i0 i1 τ_max

    @property
    def weight(self) -> float:
        """W = (m_w + m_a) g."""
        return (self.m_body + self.m_arm) * self.gravity

    @property
    def gravity_moment(self) -> float:
        """g M_d = g (m_w d_b + m_a d_a): the weights' moment about C_F."""
        return self.gravity * (self.m_body * self.d_body + self.m_arm * self.d_arm)

    def wheel_load(self, arm_torque: float) -> float:
        """λ(T) = (T + m_a g b_a) / b_w: the arm's moments about its pivot."""
        return (arm_torque + self.m_arm * self.gravity * self.b_arm) / self.b_wheel

    def belt_force(self, arm_torque: float) -> float:
        """F = i2 T / r."""
        return self.i2 * arm_torque / self.pulley_radius


def stall_pose(p: ClimbParams = ClimbParams()) -> StallPose:
    """Lever arms of the body on its base at the riser, arm trailing with its wheel on the ground."""
    a, l, r = p.inradius, p.track_side, p.pulley_radius
    dz = a + r - p.guide_radius  # pivot above the wheel's centre
    if dz >= p.arm_length:
        raise ValueError(f"arm_length: must exceed the pivot's height above the wheel centre, {dz:.4f} m")
    b_w = math.sqrt(p.arm_length**2 - dz**2)
    b_a = p.arm_com * b_w / p.arm_length
    return StallPose(d_body=l / 2, d_arm=l / 2 + b_a, d_wheel=l / 2 + b_w, b_arm=b_a, b_wheel=b_w,
                     m_body=p.m_body, m_arm=p.m_arm, gravity=p.gravity, pulley_radius=r, i2=p.i2,
                     arm_torque_max=p.arm_torque_max)


def slide_coefficient(mu_g: float, mu_w: float) -> float:
    """k = μ_g (1 + μ_w)/(1 + μ_g μ_w): the sliding belt's pull per unit of W − λ."""
    _mu(mu_g, "mu_g")
    _mu(mu_w, "mu_w")
    return mu_g * (1.0 + mu_w) / (1.0 + mu_g * mu_w)


def hold_coefficient(mu_g: float, mu_w: float) -> float:
    """The most any sticking split of the belt's pull can hold, per unit of W − λ:
    μ_g max(1, (1 + μ_w)/(1 + μ_g μ_w)) — the better vertex of the friction-cone polygon (ground
    saturated with the riser's friction 0, or both saturated)."""
    return max(_mu(mu_g, "mu_g"), slide_coefficient(mu_g, mu_w))


@dataclass(frozen=True)
class StallLaw:
    """The differential at a riser (see the module doc). Forces in N, torques in N·m (the arm's T;
    the motor shaft's τ_m = T/(i0 i1))."""

    mu_g: float
    mu_w: float
    stall_arm_torque: float  # T_s
    stall_force: float  # F_s, the sliding belt's pull
    stall_wheel_load: float  # λ(T_s)
    flip_arm_torque: float  # T_f (inf if the belt's reaction outgrows the arm's lever)
    flip_force: float  # F_f
    flip_wheel_load: float  # λ(T_f)
    kappa: float  # F_f / (W − λ_f): the slide coefficient the flip needs
    i2_max: float  # the largest i2 that flips at these μ with the belt sliding (same geometry)
    i2_max_hold: float  # the largest i2 at which any sticking split could still hold the flip
    motor_limited: bool  # T_f beyond the motor's i0 i1 τ_max

    @property
    def flips(self) -> bool:
        """The belt holds until the rear lifts (and the motor can give T_f)."""
        return self.stall_arm_torque >= self.flip_arm_torque and not self.motor_limited


def stall_law(p: ClimbParams = ClimbParams(), mu_g: float = 0.8, mu_w: float = 0.8) -> StallLaw:
    """The stall force, the flip requirement and the boundary between them (module doc)."""
    s = stall_pose(p)
    k = slide_coefficient(mu_g, mu_w)
    W, g, r, i2 = s.weight, s.gravity, s.pulley_radius, s.i2
    m_gb = s.m_arm * g * s.b_arm
    T_s = k * (W - m_gb / s.b_wheel) / (i2 / r + k / s.b_wheel)
    lever = s.d_wheel / s.b_wheel - i2
    T_f = (s.gravity_moment - m_gb * s.d_wheel / s.b_wheel) / lever if lever > 0 else math.inf
    lam_f = s.wheel_load(T_f) if math.isfinite(T_f) else math.inf
    F_f = s.belt_force(T_f)
    kappa = F_f / (W - lam_f) if math.isfinite(T_f) and W > lam_f else math.inf
    return StallLaw(mu_g=mu_g, mu_w=mu_w, stall_arm_torque=T_s, stall_force=s.belt_force(T_s),
                    stall_wheel_load=s.wheel_load(T_s), flip_arm_torque=T_f, flip_force=F_f, flip_wheel_load=lam_f,
                    kappa=kappa, i2_max=flip_i2(s, k), i2_max_hold=flip_i2(s, hold_coefficient(mu_g, mu_w)),
                    motor_limited=bool(T_f > s.arm_torque_max))


def flip_i2(s: StallPose, k: float) -> float:
    """The largest i2 whose flip a belt holding k (W − λ) allows: at the boundary the slide and the
    flip meet at λ* = (g M_d + r k W)/(d_λ + r k), T* = λ* b_w − m_a g b_a (both free of i2), so
    i2* = r k (W − λ*) / T*."""
    W, r = s.weight, s.pulley_radius
    lam_b = (s.gravity_moment + r * k * W) / (s.d_wheel + r * k)
    T_b = lam_b * s.b_wheel - s.m_arm * s.gravity * s.b_arm
    return r * k * (W - lam_b) / T_b if T_b > 0 else math.inf


def flip_mu_g(p: ClimbParams = ClimbParams(), mu_w: float = 0.0) -> float:
    """The least ground μ_g at which the belt holds the flip against a riser of μ_w:
    κ / (1 + μ_w (1 − κ)); inf from μ_w ≥ 1/(κ − 1)."""
    kappa = stall_law(p, 1.0, 0.0).kappa
    den = 1.0 + _mu(mu_w, "mu_w") * (1.0 - kappa)
    return kappa / den if den > 0 else math.inf


def flip_mu_w_max(p: ClimbParams = ClimbParams()) -> float:
    """The riser μ_w from which no ground friction lets the belt hold the flip: 1/(κ − 1)."""
    kappa = stall_law(p, 1.0, 0.0).kappa
    return 1.0 / (kappa - 1.0) if kappa > 1 else math.inf


def _mu(mu: float, name: str) -> float:
    if not (mu >= 0 and math.isfinite(mu)):
        raise ValueError(f"{name}: must be a finite friction coefficient ≥ 0, got {mu}")
    return float(mu)


__all__ = ["StallLaw", "StallPose", "flip_i2", "flip_mu_g", "flip_mu_w_max", "hold_coefficient", "slide_coefficient",
           "stall_law", "stall_pose"]
