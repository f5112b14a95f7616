"""Per-step cost of the implicit servo (lab/controllers/servo.py) against the explicit one, side by side.

For each case (the flagship's serpenoid on the 10-module snake; the tracked robot's climb loops) the whole
lab step (Simulation.step) is timed with ``controller.servo`` = explicit and = implicit_damping (the
default), alternating in one process (CPU time, after a warm-up that compiles the kernels), plus the parts
the implicit form adds: ``World.mass_matrix`` (PyBullet's calculateMassMatrix and its conversion) and the controller's
``act``; and the bare engine step for scale. Printed with the machine's load beside it.

Usage: python benchmarks/servo_cost.py [--steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from lab.core import scenario as scn
from lab.core.runner import Simulation

CASES = {"serpenoid (n = 10, 1 ms)": "snake_serpenoid", "tracked climb (1 ms)": "tracked_step_climb"}


def per_step(name: str, servo: str, steps: int) -> tuple[float, float, float, float]:
    """(lab step, mass matrix, act, bare engine step) in µs of CPU time."""
    sim = Simulation(scn.load(name, [f"controller.servo={servo}", f"sim.duration={steps * 0.001 + 1}"]))
    try:
        w = sim.world
        st = w.read_state()
        sim.recorder.start(st)
        sim.watch.on_start(st)
        for _ in range(50):  # warm-up: the kernels compiled, the contacts made
            st, _ = sim.step(st)
        c0 = time.process_time()
        for _ in range(steps):
            st, _ = sim.step(st)
        lab = (time.process_time() - c0) / steps * 1e6
        c0 = time.process_time()
        for _ in range(steps):
            w.mass_matrix(st.q)
        mm = (time.process_time() - c0) / steps * 1e6
        c0 = time.process_time()
        for _ in range(steps):
            sim.controller.act(st)
        act = (time.process_time() - c0) / steps * 1e6
        c0 = time.process_time()
        for _ in range(steps):
            w._pb_step()
        bare = (time.process_time() - c0) / steps * 1e6
        return lab, mm, act, bare
    finally:
        sim.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| case | servo | lab step µs | mass matrix µs | act µs | bare engine step µs |")
    print("|---|---|---|---|---|---|")
    for label, name in CASES.items():
        rows = {"explicit": [], "implicit_damping": []}
        for _ in range(args.repeat):
            for servo in rows:
                rows[servo].append(per_step(name, servo, args.steps))
        for servo, rs in rows.items():
            med = [statistics.median(r[i] for r in rs) for i in range(4)]
            print(f"| {label} | {servo} | {med[0]:.1f} | {med[1]:.1f} | {med[2]:.1f} | {med[3]:.1f} |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
