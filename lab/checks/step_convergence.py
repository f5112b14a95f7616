"""step_convergence: a scenario's headline metrics at its step stay within 2 % of the run at half the step.

Where the lab's own terms are stable at any step (the velocity-level friction, lab.forces.friction), a
coarser step is no longer refused nor unstable: what it can still break is accuracy. This check states
the criterion the shipped steps are chosen by (docs/benchmarks.md, "Time steps by convergence") for the
eel, whose step its first-order terms limit (the lagged tangential added mass, the servo). The eel is
converged at 5 ms and ships there (within 0.72 % of 2.5 ms; its scenario file says why); at 10 ms the metrics still hold (1.33 %) but eel_engine and hydro_decay
do not (docs/benchmarks.md). The flagship is not here: on the velocity-level friction it
stays within 1.3 % of its dt/2 run up to 10 ms (docs/physics.md), so no step the lab takes breaks it.
"""

from __future__ import annotations

import math

from lab.checks import Figure, check
from lab.core import scenario as scn
from lab.core.runner import run_scenario
from lab.core.tolerances import tol

SCENARIO = "eel_forward_turn"
DURATION_S = 2.0  # the regression suite's duration; the gait's first period
METRICS = ("com.speed_mean_mps", "head.path_length_m", "joints.amplitude_mean_rad", "joints.torque_rms_Nm",
           "energy.input_work_J", "energy.kinetic_mean_J")


@check("step_convergence")
def step_convergence(overrides) -> dict[str, Figure]:
    """the eel's headline metrics at its step within 2 % of the run at half its step (the criterion the shipped steps are chosen by)"""
    sc = scn.load(SCENARIO, [*overrides, f"sim.duration={DURATION_S!r}"])
    half = scn.load(SCENARIO, [*overrides, f"sim.duration={DURATION_S!r}", f"sim.dt={sc.sim.dt / 2!r}"])
    a, b = run_scenario(sc).metrics, run_scenario(half).metrics
    figs = {}
    bar = tol("step.convergence_rel")
    for k in METRICS:
        x, ref = float(a[k]), float(b[k])
        rel = abs(x - ref) / abs(ref) if ref != 0 and math.isfinite(x) else math.inf
        figs[f"{k}_rel"] = Figure.at_most(rel, bar, f"{k} = {x:.5g} at dt = {sc.sim.dt} s vs {ref:.5g} at dt/2")
    return figs
