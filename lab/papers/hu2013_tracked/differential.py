"""The single-motor (differential) run at a riser, measured: the ``diff.*`` metrics of a step-climb run in
the controller's ``differential`` mode (Hu 2013 §1.1, Fig 2; §2.2 b, Fig 5b), beside the stall law's
closed forms (:mod:`lab.papers.hu2013_tracked.model.stall`).

    diff.stall_force_N        median belt pull (drive torque / r) while the body is stalled at the riser
                              (the controller past its stall detection, pitch within STALL_PITCH_DEG of
                              the face it stood on) with the belt sliding (belt speed r ψ̇ > SLIDING_SPEED);
                              NaN if that lasted less than MIN_SLIDING_S (the belt held until the flip)
    diff.stall_force_model_N  the closed form's sliding pull k(μ_g, μ_w)(W − λ) at the run's contact μ
                              (Bullet's product of the arena's and the belt's coefficients: ground
                              ``arena.friction``, riser ``arena.riser_friction`` or else ``arena.friction``,
                              each × ``robot.track_friction``); NaN off a level single step with h > r
    diff.flip_required_N      the closed form's belt pull at which the rear lifts, i2 T_f / r
    diff.flipped              the flip reached the climb pose (the controller's climb phase: front face
                              against the riser)
    diff.jammed               flipped, then the COM gained less than JAM_PROGRESS along the climb
                              direction before the run ended, not over the edge
"""

from __future__ import annotations

import math

import numpy as np

STALL_PITCH_DEG = 2.0  # a stalled body still stands on its base face
SLIDING_SPEED = 0.01  # m/s of belt speed: the belt slides on the ground and the riser (the approach drives at 0.03)
JAM_PROGRESS = 0.01  # m of COM advance after the flip that counts as progress (the controller's PROGRESS)
MIN_SLIDING_S = 0.2  # s of such samples, else the belt did not slide (it held until the flip; the impact's
# rocking gives a few sliding samples even then)
TWO_PI_3 = 2 * math.pi / 3  # the triangle rests on a face every 120° of pitch
KEYS = ("stall_force_N", "stall_force_model_N", "flip_required_N", "flipped", "jammed")


def contact_mu(sc) -> tuple[float, float]:
    """(μ_g, μ_w) of the belt's contacts with the ground and the riser in a scenario."""
    a, t = sc.arena, float(sc.robot.track_friction)
    riser = getattr(a, "riser_friction", None)
    return float(a.friction) * t, float(a.friction if riser is None else riser) * t


def model_values(sc) -> tuple[float, float]:
    """(stall force, flip requirement) of the closed forms for a scenario, NaN where they do not apply
    (a slope, a yaw, stairs, no step or one no higher than the pulley radius)."""
    from lab.arenas.step import Step
    from lab.papers.hu2013_tracked.model.params import ClimbParams
    from lab.papers.hu2013_tracked.model.stall import stall_law

    a = sc.arena
    p = ClimbParams.from_spec(sc.robot)
    if (not isinstance(a, Step) or a.slope_deg != 0 or a.yaw_deg != 0 or a.step_height <= p.pulley_radius
            or a.step_height >= p.track_side + p.pulley_radius):
        return math.nan, math.nan
    law = stall_law(p, *contact_mu(sc))
    return law.stall_force, law.flip_force


def differential_metrics(L: dict, sc) -> dict:
    """The ``diff.*`` metrics of a climb controller's log (empty unless the drive is the differential)."""
    ctrl = sc.controller
    if getattr(ctrl, "mode", None) != "differential":
        return {}
    nan = math.nan
    out = {f"diff.{k}": nan for k in KEYS}
    F_model, F_flip = model_values(sc)
    out["diff.stall_force_model_N"], out["diff.flip_required_N"] = F_model, F_flip
    t = L.get("t", np.zeros(0))
    if len(t) < 2:
        out["diff.flipped"] = out["diff.jammed"] = False
        return out
    phase = L["phase"].astype(int)
    pitch = L["pitch"]
    r = float(ctrl.pulley_radius)
    started = np.nonzero(phase >= 1)[0]
    face = TWO_PI_3 * round(pitch[started[0]] / TWO_PI_3) if started.size else 0.0  # the face it stood on
    stalled = (phase == 1) & (np.abs(pitch - face) < math.radians(STALL_PITCH_DEG)) & (r * L["psi_dot"] > SLIDING_SPEED)
    if stalled.sum() * float(np.median(np.diff(t))) >= MIN_SLIDING_S:
        out["diff.stall_force_N"] = float(np.median(L["tau_drive"][stalled])) / r
    climbed = np.nonzero(phase >= 2)[0]
    flipped = bool(climbed.size)
    out["diff.flipped"] = flipped
    jammed = False
    if flipped:
        x = L["com"][:, 0]
        a = sc.arena
        over = False
        if hasattr(a, "gravity") and hasattr(a, "edge"):
            g = a.gravity(sc.sim.gravity)
            gh = g / np.linalg.norm(g)
            x_e, h = a.edge
            d = (x - x_e) * (-gh[2]) + (L["com"][:, 2] - h) * gh[0]
            over = bool((d[climbed[0]:] >= 0).any())
        jammed = bool(not over and x[climbed[0]:].max() - x[climbed[0]] < JAM_PROGRESS)
    out["diff.jammed"] = jammed
    return out


__all__ = ["KEYS", "contact_mu", "differential_metrics", "model_values"]
