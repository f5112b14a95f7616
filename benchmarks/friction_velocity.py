"""The velocity-level Coulomb law's cost, side by side in one run (the numbers in docs/physics.md).

1. The flagship's step loop (the first 10 s of snake_passive_creeping, CPU time of this process) on the
   regularised law at 1 ms and on the velocity-level law (`coulomb_velocity`) at 1, 5 and 10 ms, each
   repeated twice, alternating; the real-time factor is 10 s over that CPU time.
2. The articulated mass the law needs, per step: built in the compiled kernel from the snapshot and the
   URDF tree (`articulated_jacobians` + `articulated_mass_matrix`), against the engine's own calls
   (`World.mass_matrix()` and one `calculateJacobian` per link), 500 times each, alternating.

This is a measurement, not a test; the machine's load is printed beside it.

Usage: python benchmarks/friction_velocity.py
"""

from __future__ import annotations

import os
import time

from lab.core import scenario as scn
from lab.core.runner import Simulation
from lab.forces.friction import articulated_jacobians, articulated_mass_matrix

SIM_S = 10.0


def step_loop_cpu(overrides: list[str]) -> float:
    """CPU seconds of the step loop for SIM_S simulated seconds of the flagship."""
    sc = scn.load("snake_passive_creeping", [*overrides, f"sim.duration={SIM_S!r}"])
    sim = Simulation(sc)
    try:
        s = sim.world.read_state()
        sim.recorder.start(s)
        n = int(round(SIM_S / sc.sim.dt))
        c0 = time.process_time()
        for _ in range(n):
            s, _ = sim.step(s)
        return time.process_time() - c0
    finally:
        sim.close()


def mass_cost() -> tuple[float, float]:
    """(engine µs, kernel µs) per step for the articulated mass of the flagship's snake."""
    sim = Simulation(scn.load("snake_passive_creeping", []))
    try:
        w = sim.world
        s = w.read_state()
        m = s.model
        off = w.link_com_offsets()
        q = [float(x) for x in s.q]
        z = [0.0] * len(q)

        def engine():
            w.mass_matrix()
            for k in range(1, w.n_links):
                w.client.calculateJacobian(w.robot, k - 1, off[k - 1].tolist(), q, z, z)

        def kernel():
            Jv, Jw = articulated_jacobians(s.p_W, s.R_WB, m.tree, m.frames)
            articulated_mass_matrix(Jv, Jw, s.R_WB, m.mass, m.I_diag)

        out = {}
        for f in (engine, kernel, engine, kernel):
            f()
            t0 = time.process_time()
            for _ in range(500):
                f()
            out.setdefault(f.__name__, []).append((time.process_time() - t0) / 500 * 1e6)
        return min(out["engine"]), min(out["kernel"])
    finally:
        sim.close()


def main() -> None:
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    cases = (("coulomb (regularised), 1 ms", ["friction.type=coulomb"]), ("coulomb_velocity, 1 ms", []),
             ("coulomb_velocity, 5 ms", ["sim.dt=0.005"]), ("coulomb_velocity, 10 ms", ["sim.dt=0.01"]))
    for rep in range(2):
        for label, over in cases:
            c = step_loop_cpu(over)
            print(f"| {label} | run {rep + 1} | {c:.2f} s CPU for {SIM_S:g} s | {SIM_S / c:.1f}× real time |")
    e, k = mass_cost()
    print(f"articulated mass per step: engine calls {e:.0f} µs, kernel {k:.1f} µs ({e / k:.0f}×)")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
