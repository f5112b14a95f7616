"""Cost of the tracked robot (Hu 2013): the belt per step, old (54 geared rollers) vs new
(3 geared pulleys + 3 conveyor slabs), one climb trial, the full step sweep.

1. Engine step (stepSimulation, with the new belt's slab reset: the World's per-step hook) and full
   lab step (snapshot, controller, cleat law, ledger, engine) side by side, driving at 3 cm/s on flat
   ground (scenario tracked_slope at 0°), for the roller belt of commit ``--old-rev`` (loaded from git)
   and the current belt. Process CPU time per step, median of ``--repeat`` runs.
2. One climb trial (h = 0.10 m, θ̇ = 0.5 rad/s, l_a = 0.3 m, stopped once decided): engine and lab
   step in a climb.
3. ``--sweep``: the full step sweep (scenarios/sweeps/tracked_step_climb.toml, 276 runs) on 2 workers
   with ``lab sweep``, wall time.

Usage: python benchmarks/tracked_climb.py [--steps N] [--repeat K] [--old-rev REV] [--sweep]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import statistics
import subprocess
import sys
import time

from lab.core import scenario as scn
from lab.core.runner import Simulation

OLD_REV = "abfeb63"  # the last commit with the 54-roller belt


def old_spec(rev: str):
    """The roller belt's TrackedSpec from git (its module loaded as a sibling of lab.robots.tracked)."""
    src = subprocess.run(["git", "show", f"{rev}:lab/robots/tracked.py"], capture_output=True, text=True,
                         check=True).stdout
    name = "lab.robots._tracked_rollers"
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "lab.robots"
    sys.modules[name] = mod
    exec(compile(src, f"{rev}:lab/robots/tracked.py", "exec"), mod.__dict__)
    return mod.TrackedSpec()


def timed_run(sc, n: int, robot=None) -> tuple[float, float]:
    """(engine CPU s/step, lab CPU s/step) over n steps after 200 to settle."""
    if robot is not None:
        sc = dataclasses.replace(sc, robot=robot)
    sim = Simulation(sc)
    try:
        w = sim.world
        eng = [0.0]
        inner = w.step_engine

        def step_engine():
            t0 = time.process_time()
            inner()
            eng[0] += time.process_time() - t0

        w.step_engine = step_engine
        s = w.read_state()
        sim.recorder.start(s)
        for _ in range(200):
            s, _ = sim.step(s)
        eng[0] = 0.0
        t0 = time.process_time()
        for _ in range(n):
            s, _ = sim.step(s)
        lab = time.process_time() - t0
        return eng[0] / n, lab / n
    finally:
        sim.close()


def climb_run(h: float = 0.10) -> tuple[float, float, float, bool]:
    """(engine s/step, lab s/step, simulated s, success) of one climb trial run to its decision."""
    from lab.trials.base import CHECK_EVERY

    sc = scn.load("tracked_step_climb", [f"arena.step_height={h}", "trial.stop_when_decided=true", "sim.duration=16"])
    sim = Simulation(sc)
    try:
        w = sim.world
        eng = [0.0]
        inner = w.step_engine

        def step_engine():
            t0 = time.process_time()
            inner()
            eng[0] += time.process_time() - t0

        w.step_engine = step_engine
        s = w.read_state()
        sim.recorder.start(s)
        done = sim.trial.stop_condition(sim, s)
        k = 0
        t0 = time.process_time()
        while k < sc.sim.n_steps:
            s, _ = sim.step(s)
            k += 1
            if k % CHECK_EVERY == 0 and done(s):
                break
        lab = time.process_time() - t0
        return eng[0] / k, lab / k, k * sc.sim.dt, bool(sim.controller.phase == 3)
    finally:
        sim.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--old-rev", default=OLD_REV)
    ap.add_argument("--sweep", action="store_true", help="also run the full sweep on 2 workers (minutes)")
    a = ap.parse_args()
    sc = scn.load("tracked_slope", ["arena.slope_deg=0", "controller.belt_speed=0.03", "sim.duration=60"])
    print(f"per step, driving at 3 cm/s on flat ground (dt = 1 ms, 50 iterations), process CPU, "
          f"median of {a.repeat} × {a.steps} steps:")
    print(f"  {'belt':44s} {'engine step':>12s} {'lab step':>10s}")
    rows = {}
    for label, robot in ((f"54 geared rollers ({a.old_rev})", old_spec(a.old_rev)),
                         ("3 pulleys + 3 conveyor slabs (now)", None)):
        runs = [timed_run(sc, a.steps, robot) for _ in range(a.repeat)]
        e, l = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        rows[label] = (e, l)
        print(f"  {label:44s} {e * 1e3:9.3f} ms {l * 1e3:7.3f} ms")
    (e0, l0), (e1, l1) = rows.values()
    print(f"  ratio old/new: engine {e0 / e1:.1f}×, lab {l0 / l1:.1f}×")
    e, l, t_sim, ok = climb_run()
    print(f"one climb trial (h = 0.10 m, decided after {t_sim:.1f} s simulated, climbed: {ok}): engine step "
          f"{e * 1e3:.3f} ms, lab step {l * 1e3:.3f} ms (issue goal ≤ 0.3 ms)")
    if a.sweep:
        t0 = time.perf_counter()
        out = f"runs/sweep_tracked_step_climb-{time.strftime('%Y%m%d-%H%M%S')}"  # a new folder: no resume
        subprocess.run([sys.executable, "-m", "lab.cli", "sweep", "scenarios/sweeps/tracked_step_climb.toml",
                        "--workers", "2", "--out", out], check=False)
        print(f"full sweep (276 runs, 2 workers) measured: {(time.perf_counter() - t0) / 60:.1f} min wall "
              f"(issue goal ≤ 4 min)")


if __name__ == "__main__":
    main()
