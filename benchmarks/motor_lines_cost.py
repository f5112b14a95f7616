"""What the motors' torque–speed lines cost per step (lab.core.actuators): World.apply's share (the clip, or the
implicit lines with their mass matrix and, loaded, the last step's load) against the bare engine step
(stepSimulation), for the explicit clip, the implicit lines without the load (as before issue 34 item 2) and
the implicit lines with the load (``sim.motor_lines`` set for the run), side by side in one process on the
same scenario and step.

Timers (perf_counter) wrap World.apply (its engine writes included, the same in every mode: the differences
between the rows are the lines') and the engine's stepSimulation; the figures are µs per step, with the share of
steps the screen sent through the implicit solve, the load average beside them. A measurement, not a test.

Usage: PYTHONPATH=. python benchmarks/motor_lines_cost.py [--only NAME ...] [--duration S] [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import os
import time

import lab
from lab.core import actuators
from lab.core.world import World

CHAINS = ["tracked_serial_climb", "tracked_serial3_climb", "tracked_parallel_climb", "tracked_triangle_climb",
          "tracked_ring_climb"]
MODES = ("explicit", "implicit, no load", "implicit, loaded")


def measure(name: str, mode: str, duration: float, sets: dict) -> dict:
    """One run of ``name`` with the lines in ``mode``: µs per step in World.apply and in the engine step."""
    orig_li = actuators.Motors.limit_implicit
    if mode == "implicit, no load":
        actuators.Motors.limit_implicit = lambda self, tau, qd, h, M, qdd_obs=None, tau_prev=None: orig_li(
            self, tau, qd, h, M)
    acc = {"apply": 0.0, "engine": 0.0, "steps": 0, "implicit": 0}
    orig_apply, orig_step = World.apply, World.step_engine
    orig_lines = actuators._implicit_lines

    def apply(self, tau, wrench, state):
        t0 = time.perf_counter()
        out = orig_apply(self, tau, wrench, state)
        acc["apply"] += time.perf_counter() - t0
        return out

    def step_engine(self):
        if not hasattr(self, "_ml_wrapped"):
            self._ml_wrapped = True
            raw = self._pb_step

            def timed():
                t0 = time.perf_counter()
                raw()
                acc["engine"] += time.perf_counter() - t0
                acc["steps"] += 1
            self._pb_step = timed
        orig_step(self)

    def lines(*a):
        acc["implicit"] += 1
        return orig_lines(*a)

    World.apply, World.step_engine, actuators._implicit_lines = apply, step_engine, lines
    try:
        lab.run(name, {**sets, "sim.duration": duration, "sim.motor_lines": "explicit" if mode == "explicit" else "implicit"})
    finally:
        World.apply, World.step_engine, actuators._implicit_lines = orig_apply, orig_step, orig_lines
        actuators.Motors.limit_implicit = orig_li
    n = max(acc["steps"], 1)
    return {"apply_us": 1e6 * acc["apply"] / n, "engine_us": 1e6 * acc["engine"] / n,
            "implicit_share": acc["implicit"] / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=CHAINS)
    ap.add_argument("--duration", type=float, default=0.5)
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    sets = dict(s.split("=", 1) for s in args.sets)
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print("| scenario | lines | engine step µs | World.apply µs | apply / engine | steps through the implicit solve |")
    print("|---|---|---|---|---|---|")
    for name in args.only:
        lab.run(name, {**sets, "sim.duration": 0.01})  # warm-up: compile the kernels, cache the URDFs
        for mode in MODES:
            r = measure(name, mode, args.duration, sets)
            print(f"| {name} | {mode} | {r['engine_us']:.0f} | {r['apply_us']:.1f} | {r['apply_us'] / r['engine_us']:.3f} "
                  f"| {100 * r['implicit_share']:.0f} % |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
