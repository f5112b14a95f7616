"""Cost of the tracked robot (Hu 2013, seed 004): the roller track per step, one climb trial, the sweep.

1. Per-step cost (stepSimulation only) of the robot resting on flat ground with 0 (a plain body:
   one box of the same mass, no rollers, no gears), 6, 12 and 18 rollers per side (18 = the default,
   spacing ≤ r/2), with and without the gear constraints.
2. Wall time of one climb trial (h = 0.10 m, θ̇ = 0.5 rad/s, l_a = 0.3 m, stopped once decided).
3. The full step-climbing sweep (scenarios/sweeps/tracked_step_climb.toml, 276 runs) on 2 workers,
   estimated from (2) scaled by each point's simulated time — or measured with ``--sweep``.

Usage: python benchmarks/tracked_climb.py [--steps N] [--sweep]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time

import numpy as np

from lab import scenario as scn
from lab.robots.tracked import TrackedSpec
from lab.robots.urdf import box_urdf
from lab.runner import run_scenario
from lab.world import World


def step_cost(spec: TrackedSpec | None, n: int, gears: bool = True) -> float:
    w = World(dt=0.001)
    try:
        if spec is None:
            s = TrackedSpec()
            w.load_robot(box_urdf("plain", 6.2, (s.link_length, s.width, 2 * s.rest_height)),
                         [0, 0, s.rest_height], 0.0, s.link_length, 1.0, engine_friction=0.8)
        elif gears:
            w.load_spec(spec, [0, 0, spec.rest_height + 0.0005], 0.0)
        else:
            w.load_robot(spec.to_urdf(), [0, 0, spec.rest_height + 0.0005], 0.0, spec.link_length, spec.effort,
                         engine_friction=0.8)
        for _ in range(200):
            w.step_engine()
        t0 = time.perf_counter()
        for _ in range(n):
            w.step_engine()
        return (time.perf_counter() - t0) / n
    finally:
        w.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--sweep", action="store_true", help="also run the full sweep on 2 workers (slow)")
    a = ap.parse_args()
    print("per-step cost of stepSimulation, robot resting on flat ground (dt = 1 ms, 50 iterations):")
    base = step_cost(None, a.steps)
    print(f"  plain body (one box, 6.2 kg)           {base * 1e3:7.3f} ms")
    for nps in (6, 12, 18):
        spec = TrackedSpec(rollers_per_side=nps)
        t_g = step_cost(spec, a.steps, True)
        t_n = step_cost(spec, a.steps, False)
        print(f"  {3 * nps:3d} rollers (spacing {spec.roller_spacing * 1e3:4.1f} mm, ripple {spec.ripple * 1e3:4.2f} mm): "
              f"{t_g * 1e3:7.3f} ms with gears, {t_n * 1e3:7.3f} ms without  (× {t_g / base:5.1f} the plain body)")
    sc = scn.load("tracked_step_climb", ["arena.step_height=0.10", "trial.stop_when_decided=true",
                                         "sim.duration=16"])
    t0 = time.perf_counter()
    r = run_scenario(sc)
    wall = time.perf_counter() - t0
    sim_t = r.metrics["sim_time_s"]
    print(f"one climb trial (h = 0.10 m): {wall:.1f} s wall for {sim_t:.1f} s simulated "
          f"({wall / sim_t * 1e3 / 1000:.2f} ms per 1 ms step), success = {r.metrics['climb.success']}")
    # the sweep: 23 heights × 4 arm lengths × 3 arm speeds; a run lasts ≈ approach + flip + climb + 1 s,
    # flip and climb scaling with 1/θ̇ (θ̇ capped at the rated 0.524 rad/s); h < r drives 0.32 m at 3 cm/s
    # (controller.advance_limit).
    per_step = wall / sim_t
    total = 0.0
    for h in np.round(np.arange(0.0, 0.2201, 0.01), 2):
        for w in (0.3, 0.5, 0.7):
            w_eff = min(w, 3600 * 2 * math.pi / 60 / 720)
            t_run = 11.0 if h < 0.025 else min(16.0, 1.0 + (sim_t - 2.0) * 0.5 / w_eff + 1.0)
            total += 4 * t_run * per_step
    print(f"full sweep (276 runs) on 2 workers, estimated: {total / 2 / 60:.1f} min (issue target ≤ 4 min)")
    if a.sweep:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "lab.cli", "sweep", "scenarios/sweeps/tracked_step_climb.toml",
                        "--workers", "2", "--out", "runs/sweep_tracked_step_climb"], check=False)
        print(f"full sweep measured: {(time.perf_counter() - t0) / 60:.1f} min")


if __name__ == "__main__":
    main()
