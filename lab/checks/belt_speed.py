"""belt_speed: the tracked robot's belt, driven at v on flat ground and up a 20° slope, moves the body
at v (no slip below atan μ: the belt's closed form, Hu 2013 §3's track)."""

from __future__ import annotations

from lab.core import scenario as scn
from lab.core.runner import run_scenario
from lab.core.tolerances import tol
from lab.checks import Figure, check

SPEED = 0.03  # m/s, the belt speed commanded (the paper's track speeds are cm/s)
SLOPES = (0.0, 20.0)  # degrees; both well below atan μ = 38.7° (μ = 0.8)


@check("belt_speed")
def belt_speed(overrides) -> dict[str, Figure]:
    """tracked robot, belt driven at 3 cm/s: the body moves at the belt speed on flat ground and up 20° (r ψ̇, no slip)"""
    figs = {}
    for alpha in SLOPES:
        sc = scn.load("tracked_slope", [f"arena.slope_deg={alpha}", f"controller.belt_speed={SPEED}",
                                        "sim.duration=3.0", "trial.window=1.0", *overrides])
        r = run_scenario(sc)
        v = r.metrics.get("belt.body_speed_mps", float("nan"))
        if r.status != "ok":
            figs[f"slope{alpha:g}.status"] = Figure(1.0, 0.0, False, f"engine run {r.status}: {r.error}")
            continue
        figs[f"slope{alpha:g}.speed_rel_err"] = Figure.at_most(
            abs(v / SPEED - 1.0), tol("tracked.belt_speed_rel"),
            f"COM speed along the slope over the last 1 s of 3 s: {v * 100:.5f} cm/s for {SPEED * 100:g} cm/s "
            f"at dt = {sc.sim.dt} s")
    return figs
