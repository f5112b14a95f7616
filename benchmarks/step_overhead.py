"""Per-step cost of the lab's full step against the bare engine step, side by side in one run.

bare:  stepSimulation() only, same robot, same contacts (the floor the engine must solve anyway).
lab:   Simulation.step: passive-creeping controller → Coulomb friction → apply torques and forces →
       stepSimulation() → read the batched snapshot → energy ledger + recorder → divergence check.
engine-io: bare + the engine calls the lab needs (batched reads, torque array, one force per link),
       to separate the engine's own I/O cost from the lab's Python.

Usage: python benchmarks/step_overhead.py [--steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from lab import scenario as scn
from lab.runner import Simulation


def _bare(sim: Simulation, n: int) -> float:
    c = sim.world.client
    t0 = time.perf_counter()
    for _ in range(n):
        c.stepSimulation()
    return (time.perf_counter() - t0) / n


def _engine_io(sim: Simulation, n: int) -> float:
    w = sim.world
    tau = np.zeros(w.n_joints)
    F = np.zeros((w.n_links, 3))
    F[:, 0] = 1e-6
    t0 = time.perf_counter()
    for _ in range(n):
        s = w.read_state()
        w.apply(tau, F, s)
        w.step_engine()
    return (time.perf_counter() - t0) / n


def _lab(sim: Simulation, n: int) -> float:
    state = sim.world.read_state()
    step = sim.step
    t0 = time.perf_counter()
    for _ in range(n):
        state, _ = step(state)
    return (time.perf_counter() - t0) / n


def measure(n_modules: int, steps: int, repeat: int) -> dict[str, float]:
    out = {}
    for name, fn in (("bare", _bare), ("engine_io", _engine_io), ("lab", _lab)):
        times = []
        for _ in range(repeat):
            # a fresh, warmed-up snake in motion for every sample, so contacts are comparable
            sc = scn.load("snake_passive_creeping", [f"robot.n_modules={n_modules}", "sim.duration=60"])
            sim = Simulation(sc)
            sim.run(duration=2.0)  # warm up: the snake in motion, contacts established
            sim.recorder.start(sim.world.read_state())
            times.append(fn(sim, steps))
            sim.close()
        out[name] = statistics.median(times)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"median of {args.repeat} × {args.steps} steps, dt = 1 ms, passive creeping on Coulomb friction")
    print(f"{'modules':>7}  {'bare µs':>8}  {'engine-io µs':>12}  {'lab µs':>8}  {'lab/bare':>8}  {'io/bare':>8}")
    for n in (10, 30):
        m = measure(n, args.steps, args.repeat)
        print(f"{n:>7}  {m['bare'] * 1e6:8.1f}  {m['engine_io'] * 1e6:12.1f}  {m['lab'] * 1e6:8.1f}  "
              f"{m['lab'] / m['bare']:8.2f}  {m['engine_io'] / m['bare']:8.2f}")


if __name__ == "__main__":
    main()
