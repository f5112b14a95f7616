"""step_climb: engine vs screw model (Hu 2013, seed 004) for the tracked robot climbing a step.

1. Peak motor torque at the shaft in the quasi-static climb phase (front face against the riser,
   eq. 11 from the engine's joint torques, 0.1 s moving average) against the screw model's peak
   over its climb phase, for h = 0.05, 0.10, 0.15 m at θ̇ = 0.5 rad/s, l_a = 0.3 m: within 10 %.
2. The engine's largest climbable height (the largest tested h below which every tested h
   succeeded) within [0.17, 0.195] m: the paper's experiment and its theoretical limit.

Both runs use the independent-actuation mode (arm at θ̇, track at v_d = θ̇ r/i2, eq. 12): the paper's
climb kinematics. The model's own no-slip requirement is reported next to each figure: the friction
coefficient the edge must supply, max |F_t|/F_n over the climb, which the rigid engine track (Coulomb
μ = ``robot.track_friction``) cannot exceed — the paper's no-slip, rigid-track assumption.
"""

from __future__ import annotations

import numpy as np

from .. import scenario as scn
from ..models.tracked_climb import climb
from ..runner import run_scenario
from ..tolerances import tol
from . import Figure, check

HEIGHTS = (0.05, 0.10, 0.15)
HEIGHT_LADDER = (0.05, 0.10, 0.15, 0.17, 0.195)
SETTINGS = {"controller.mode": "independent", "controller.arm_speed": 0.5, "robot.arm_length": 0.3,
            "controller.stop_after_climb": True, "sim.duration": 14.0}


def engine_run(h: float, overrides=None):
    data = scn.apply_overrides(scn.read_toml(scn.resolve_path("tracked_step_climb")), dict(SETTINGS))
    data = scn.apply_overrides(data, overrides or [])
    data = scn.apply_overrides(data, {"arena.step_height": float(h)})
    sc = scn.from_dict(data, where="step_climb")
    return sc, run_scenario(sc)


def model_run(sc):
    p = sc.robot.climb_params()
    return climb(p, sc.arena.step_height, sc.controller.arm_speed)


@check("step_climb")
def step_climb(overrides) -> dict[str, Figure]:
    """engine vs screw model: climb-phase peak motor torque within 10 %; engine max height in [0.17, 0.195] m"""
    figs: dict[str, Figure] = {}
    results = {}
    for h in HEIGHT_LADDER:
        sc, r = engine_run(h, overrides)
        results[h] = (sc, r)
        if h in HEIGHTS:
            mod = model_run(sc)
            m = r.metrics
            eng = m["climb.peak_climb_torque_Nm"]
            ref = mod.peak_climb_torque
            c = mod.phase == 1
            mu = sc.robot.track_friction
            need = mod.mu_required[c]
            frac = float(np.mean(~(need <= mu))) if c.any() else float("nan")  # F_n ≤ 0 counts as "more"
            rel = abs(eng - ref) / ref if np.isfinite(eng) else float("inf")
            figs[f"h{h:.2f}.peak_torque_rel"] = Figure.at_most(
                rel, tol("climb.peak_torque_rel"),
                f"engine {eng * 1e3:.2f} vs model {ref * 1e3:.2f} mN·m; engine climbed: {m['climb.success']}; "
                f"the model's no-slip climb needs more edge friction than μ = {mu} over {100 * frac:.0f} % of it")
    h_max = 0.0
    for h in HEIGHT_LADDER:
        if results[h][1].metrics["climb.success"]:
            h_max = h
        else:
            break
    lo, hi = tol("climb.max_height_lo"), tol("climb.max_height_hi")
    figs["max_height_m"] = Figure(float(h_max), hi, bool(lo <= h_max <= hi),
                                  f"tested {', '.join(f'{h:g}' for h in HEIGHT_LADDER)} m; must lie in [{lo}, {hi}]")
    return figs
