"""step_climb: engine vs screw model (Hu 2013, seed 004) for the tracked robot climbing a step.

1. Peak motor torque at the shaft in the quasi-static climb phase (front face against the riser,
   eq. 11 from the engine's joint torques, 0.1 s moving average) against the screw model's peak
   over its climb phase, for h = 0.05, 0.10, 0.15 m at θ̇ = 0.5 rad/s, l_a = 0.3 m: within 10 %, and
   the engine must have climbed (a failed climb is another motion).
2. The engine's largest climbable height (the largest tested h below which every tested h
   succeeded) within [0.17, 0.195] m: the paper's experiment and its theoretical limit.

Both runs use the independent-actuation mode (arm at θ̇, track at v_d = θ̇ r/i2, eq. 12): the paper's
climb kinematics. The model's own no-slip requirement is reported next to each figure: the friction
ratio the edge must supply, |F_t|/F_n, which no Coulomb contact exceeds — at the start of the model's
climb the edge carries the belt's pull with next to no normal force (the guide wheel rolls freely,
so nothing presses the body against the edge). Where the engine falls short of 0.17 m the check also
climbs 0.17 m at higher track friction and names the smallest μ (of 1.0, 1.2, 1.6) that gets there.
"""

from __future__ import annotations

import numpy as np

from ... import scenario as scn
from ...models.tracked_climb import climb
from ...runner import run_scenario
from ...tolerances import tol
from ...checks import Figure, check

HEIGHTS = (0.05, 0.10, 0.15)
HEIGHT_LADDER = (0.05, 0.10, 0.15, 0.17, 0.195)
SETTINGS = {"controller.mode": "independent", "controller.arm_speed": 0.5, "robot.arm_length": 0.3,
            "trial.stop_when_decided": True, "sim.duration": 14.0}


def engine_run(h: float, overrides=None):
    data = scn.apply_overrides(scn.read_toml(scn.resolve_path("tracked_step_climb")), dict(SETTINGS))
    data = scn.apply_overrides(data, overrides or [])
    data = scn.apply_overrides(data, {"arena.step_height": float(h)})
    sc = scn.from_dict(data, where="step_climb")
    return sc, run_scenario(sc)


def model_run(sc):
    p = sc.robot.climb_params()
    return climb(p, sc.arena.step_height, sc.controller.arm_speed)


MU_LADDER = (1.0, 1.2, 1.6)


@check("step_climb")
def step_climb(overrides) -> dict[str, Figure]:
    """engine vs screw model: climb-phase peak motor torque within 10 %; engine max height in [0.17, 0.195] m"""
    figs: dict[str, Figure] = {}
    results = {}
    for h in HEIGHT_LADDER:
        if h not in HEIGHTS and not all(r.metrics["climb.success"] for _, r in results.values()):
            break  # the height ladder is already broken below h
        sc, r = engine_run(h, overrides)
        results[h] = (sc, r)
        if h in HEIGHTS:
            mod = model_run(sc)
            m = r.metrics
            eng = m["climb.peak_climb_torque_Nm"]
            ref = mod.peak_climb_torque
            c = mod.phase == 1
            need = mod.mu_required[c]
            i0 = int(np.argmax(c))
            climbed = bool(m["climb.success"])
            rel = abs(eng - ref) / ref if np.isfinite(eng) else float("inf")
            figs[f"h{h:.2f}.peak_torque_rel"] = Figure(
                float(rel), tol("climb.peak_torque_rel"), bool(climbed and rel <= tol("climb.peak_torque_rel")),
                f"engine {eng * 1e3:.2f} vs model {ref * 1e3:.2f} mN·m; engine climbed: {climbed}; the model's "
                f"no-slip climb starts with F_t = {mod.edge_tangent[i0]:.1f} N at F_n = {mod.edge_normal[i0]:.1f} N "
                f"on the edge and needs |F_t|/F_n of median {np.nanmedian(need):.2f} over it "
                f"(engine μ = {sc.robot.track_friction})")
    h_max = 0.0
    for h in results:
        if results[h][1].metrics["climb.success"]:
            h_max = h
        else:
            break
    lo, hi = tol("climb.max_height_lo"), tol("climb.max_height_hi")
    note = (f"tested {', '.join(f'{h:g}' for h in results)} m (the ladder stops at its first failure above "
            f"{HEIGHTS[-1]} m); must lie in [{lo}, {hi}]")
    mu0 = results[HEIGHT_LADDER[0]][0].robot.track_friction
    if h_max < lo:
        mu_ok = None
        for mu in (x for x in MU_LADDER if x > mu0):
            _, r = engine_run(lo, [*(overrides or []), f"robot.track_friction={mu}"])
            if r.metrics["climb.success"]:
                mu_ok = mu
                break
        note += (f"; with the track's μ = {mu0} the rigid belt slips at the edge — it climbs {lo} m at μ = {mu_ok}"
                 if mu_ok is not None else f"; {lo} m not climbed at μ up to {MU_LADDER[-1]} either")
    figs["max_height_m"] = Figure(float(h_max), hi, bool(lo <= h_max <= hi), note)
    return figs
