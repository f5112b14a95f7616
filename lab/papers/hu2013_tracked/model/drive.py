"""The single motor's drive (Hu 2013 §1.1, Fig 2, Fig 5b): one input, two outputs, and what the
stalled flip of the differential needs.

Drive: single input, two outputs — the planetary split
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
    with Figs 8–10 (:mod:`.dynamics`), and report the arm torque and belt force separately as well.

The limits and the split themselves are properties of the parameters
(:class:`~.params.DriveLimits`, :meth:`~.params.ClimbParams.split`); here are the stall studies.
"""

from __future__ import annotations

import math

from lab.papers.hu2013_tracked.model.chain import flip_chain
from lab.papers.hu2013_tracked.model.climb_path import climb_path
from lab.papers.hu2013_tracked.model.dynamics import climb
from lab.papers.hu2013_tracked.model.params import ClimbParams, DriveLimits


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


__all__ = ["DriveLimits", "differential_stall", "riser_belt_capacity"]
