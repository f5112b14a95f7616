"""The flagship's real-time factor at its old step and at its shipped step, side by side in one process.

``snake_passive_creeping`` (30 s) timed at each step in ``--dt`` (default: 1 ms, the step it shipped at
until issue 34, item 6, and the scenario's own), alternating A B A B … ``--repeat`` times so that the
machine's load falls on both alike; ``record_every`` is scaled to keep the 10-ms sample period, as the
scenario does. Two figures per step, on process CPU time: the step loop alone (``Simulation.step`` from a
fresh set-up, as benchmarks/goals.py times the flagship) and the whole ``Simulation.run`` with its
metrics. The median of the repeats is printed, with the load average before and after (os.getloadavg):
ratios between the rows of one run are what to read, not the absolute figures.

Usage: python benchmarks/flagship_steps.py [--dt 0.001 0.005] [--repeat 3] [--duration 30] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def time_flagship(overrides: list[str]) -> tuple[float, float, int, str]:
    """(step-loop CPU s, whole-run CPU s, steps, status) of ``snake_passive_creeping`` with ``overrides``:
    the step loop alone (``Simulation.step`` from a fresh set-up) and ``Simulation.run`` with its metrics,
    each on process CPU time. benchmarks/goals.py times the flagship goal with it."""
    from lab.core import scenario as scn
    from lab.core.runner import Simulation

    sc = scn.load("snake_passive_creeping", overrides)
    n = sc.sim.n_steps
    sim = Simulation(sc)
    try:
        state = sim.world.read_state()
        sim.recorder.start(state)
        step = sim.step
        c0 = time.process_time()
        for _ in range(n):
            state, _ = step(state)
        loop = time.process_time() - c0
    finally:
        sim.close()
    sim = Simulation(sc)
    try:
        c0 = time.process_time()
        res = sim.run()
        whole = time.process_time() - c0
    finally:
        sim.close()
    return loop, whole, n, res.status


def _time_one(dt: float, duration: float) -> tuple[float, float, str]:
    loop, whole, _, status = time_flagship([f"sim.dt={dt}", f"sim.duration={duration}",
                                            f"sim.record_every={max(1, round(0.01 / dt))}"])
    return duration / loop, duration / whole, status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dt", nargs="+", type=float, default=None, help="steps to compare [s] (default: 1 ms and the shipped one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--out", help="also write the table here")
    args = ap.parse_args()
    from lab.core import scenario as scn

    shipped = scn.load("snake_passive_creeping").sim.dt
    dts = args.dt or sorted({0.001, shipped})
    load0 = os.getloadavg()[0]
    loops: dict[float, list] = {dt: [] for dt in dts}
    wholes: dict[float, list] = {dt: [] for dt in dts}
    status: dict[float, str] = {}
    for _ in range(args.repeat):
        for dt in dts:
            a, b, st = _time_one(dt, args.duration)
            loops[dt].append(a)
            wholes[dt].append(b)
            status[dt] = st
    load1 = os.getloadavg()[0]
    base = statistics.median(loops[dts[0]])
    lines = [f"| step | real-time factor, step loop (CPU) | whole run with metrics | ratio to {dts[0] * 1e3:g} ms (loop) | status |",
             "|---|---|---|---|---|"]
    for dt in dts:
        lo, wh = statistics.median(loops[dt]), statistics.median(wholes[dt])
        tag = " (shipped)" if dt == shipped else ""
        lines.append(f"| {dt * 1e3:g} ms{tag} | {lo:.1f}× | {wh:.1f}× | {lo / base:.2f} | {status[dt]} |")
    lines.append("")
    lines.append(f"snake_passive_creeping, {args.duration:g} s, median of {args.repeat} alternating repeats; "
                 f"load average {load0:.1f} before, {load1:.1f} after.")
    text = "\n".join(lines)
    print(text)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
