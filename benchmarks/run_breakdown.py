"""Where the time of one `lab run` goes: set-up, the step loop (split into its parts), metrics, writing.

The phases of `lab run SCENARIO` as the CLI does them, each on process CPU time (what other processes
on a shared machine cannot inflate much): Python and lab imports, scenario load and validation, the
Simulation's set-up (engine, URDF, controller, laws), the step loop, the run's metrics and analyses,
and writing the results (timeseries.csv, metrics.json, scenario.toml, provenance.json, the PNG plots).

The loop is run twice more from fresh set-ups: once plain (its CPU time is the loop's figure, and
Simulation.run's CPU time less it is the metrics'), once with cheap wall-clock timers
(``perf_counter``, ~50 ns) around the step's parts, printed as µs per step with the instrumented
loop's own CPU and wall time beside them. The parts: the bare engine step (``stepSimulation``); the robot's
per-step hook after it (the tracked belt's slab reset); the engine reads (base pose and twist,
getJointStates, the one-link forward-kinematics refresh, contact points); the lab's own snapshot
building around them; the controller; the force laws; ``World.apply`` (the motors' torque–speed
clip, the torque array and one applyExternalForce per link: engine writes and their Python glue);
the energy ledger and recorder; the divergence check; the rest of ``Simulation.step``.
The instrumented loop's extra CPU time over the plain one is the timers' own cost.

Optionally (``--profile FILE``) the plain loop under cProfile, its top functions by own time.

Usage: python benchmarks/run_breakdown.py [SCENARIO] [--set KEY=VALUE ...] [--no-plots] [--profile FILE]
"""

from __future__ import annotations

import time

_clock = time.process_time
T_PROCESS0 = _clock()  # CPU time the interpreter had spent before this line (start-up)

import argparse  # noqa: E402
import functools  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

_c = _clock()
from lab.core import scenario as scn  # noqa: E402
from lab.analysis import plots as _plots  # noqa: E402,F401  (matplotlib: the CLI imports it to write plots)
from lab.results import write_run  # noqa: E402
from lab.core.runner import Simulation  # noqa: E402

T_IMPORT = _clock() - _c

ENGINE_READS = ("_pb_base_pose", "_pb_base_vel", "_pb_joint_states", "_pb_link_state", "_pb_link_states",
                "_pb_contacts", "_rd_contacts", "_rd_base_pose", "_rd_base_vel", "_rd_joint_states", "_rd_fk_refresh")


class Timers:
    """Exclusive wall-clock time per bucket for nested wrapped calls (a child's time leaves its parent's)."""

    def __init__(self):
        self.t: dict[str, float] = {}
        self.stack: list[list] = []

    def wrap(self, name: str, fn):
        t, stack, clock = self.t, self.stack, time.perf_counter
        t.setdefault(name, 0.0)

        def timed(*a, **k):
            frame = [clock(), 0.0]  # start, time spent in wrapped children
            stack.append(frame)
            try:
                return fn(*a, **k)
            finally:
                stack.pop()
                el = clock() - frame[0]
                t[name] += el - frame[1]
                if stack:
                    stack[-1][1] += el
        return timed


def instrument(sim: Simulation, timers: Timers) -> None:
    w = sim.world
    w._pb_step = timers.wrap("engine step (stepSimulation)", w._pb_step)
    if w._after_step is not None:
        w._after_step = timers.wrap("robot's after-step hook (slab reset)", w._after_step)
    for name in ENGINE_READS:
        if hasattr(w, name):  # an older checkout may lack one (A/B runs of this script on a base)
            setattr(w, name, timers.wrap("engine reads", getattr(w, name)))
    w.read_state = timers.wrap("snapshot building (lab, around the reads)", w.read_state)
    w.apply = timers.wrap("apply: motors clip + torque array + per-link forces", w.apply)
    w.check = timers.wrap("divergence check", w.check)
    sim.controller.act = timers.wrap("controller", sim.controller.act)
    sim._laws = [(n, timers.wrap("force laws", law)) for n, law in sim._laws]
    sim.recorder.on_step = timers.wrap("energy ledger + recorder", sim.recorder.on_step)
    sim.step = timers.wrap("Simulation.step (rest)", sim.step)


def loop(sim: Simulation, n: int):
    state = sim.world.read_state()
    sim.recorder.start(state)
    c0 = _clock()
    for _ in range(n):
        state, _ = sim.step(state)
    return _clock() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default="snake_passive_creeping")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--profile", default=None, help="also profile the plain loop with cProfile, stats to FILE")
    args = ap.parse_args()
    load0 = os.getloadavg()
    c = _clock()
    sc = scn.load(args.scenario, args.overrides)
    t_load = _clock() - c
    n = sc.sim.n_steps

    # the run as the CLI makes it: set-up, loop (Simulation.run), metrics, writing
    c = _clock()
    sim = Simulation(sc)
    t_setup = _clock() - c
    import lab.core.runner as runner

    post = [0.0]

    def timed_post(fn):
        @functools.wraps(fn)
        def f(*a, **k):
            c0 = _clock()
            try:
                return fn(*a, **k)
            finally:
                post[0] += _clock() - c0
        return f

    runner.run_metrics = timed_post(runner.run_metrics)
    if sim.trial is not None:  # a frozen dataclass: its class's method, for this run only
        cls = type(sim.trial)
        cls.metrics = timed_post(cls.metrics)
    c = _clock()
    res = sim.run()
    t_run = _clock() - c
    runner.run_metrics = runner.run_metrics.__wrapped__
    if sim.trial is not None:
        cls.metrics = cls.metrics.__wrapped__
    # the analyses the scenario asks for (looked up in the registry inside Simulation.run): timed again on
    # the run's series, the same work
    from lab.core.registry import registry

    c = _clock()
    for name in sc.analyses:
        registry("analysis")[name](res.series, sc)
    t_post = post[0] + (_clock() - c)
    t_loop = t_run - t_post
    steps = int(res.metrics["steps"])
    with tempfile.TemporaryDirectory(prefix="lab-breakdown-") as tmp:
        c = _clock()
        write_run(Path(tmp) / "out", res, plots=not args.no_plots)
        t_write = _clock() - c
    sim.close()

    # the loop again, plain and instrumented, from fresh set-ups: its CPU time and its parts' shares
    sim = Simulation(sc)
    t_plain = loop(sim, steps)
    sim.close()
    timers = Timers()
    sim = Simulation(sc)
    instrument(sim, timers)
    t_instr = loop(sim, steps)
    sim.close()
    if args.profile:
        import cProfile
        import pstats

        sim = Simulation(sc)
        prof = cProfile.Profile(time.process_time)  # CPU time: the machine is shared
        prof.enable()
        loop(sim, steps)
        prof.disable()
        sim.close()
        prof.dump_stats(args.profile)
        pstats.Stats(args.profile).sort_stats("tottime").print_stats(18)

    total = T_PROCESS0 + T_IMPORT + t_load + t_setup + t_loop + t_post + t_write
    print(f"{sc.name}: {steps} steps at dt {sc.sim.dt * 1e3:g} ms ({steps * sc.sim.dt:g} s simulated); "
          f"load average {load0[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end (2 CPUs shared)")
    print("| phase | CPU s | share |")
    print("|---|---|---|")
    rows = [("interpreter start-up", T_PROCESS0), ("imports (lab, numpy, pybullet, numba kernels, matplotlib)", T_IMPORT),
            ("scenario load + validation", t_load), ("set-up (engine, URDF, controller, laws)", t_setup),
            ("step loop (Simulation.run less its metrics)", t_loop), ("metrics + analyses", t_post),
            ("writing (csv, json, toml" + ("" if args.no_plots else ", PNG plots") + ")", t_write)]
    for name, v in rows:
        print(f"| {name} | {v:.2f} | {v / total:.0%} |")
    print(f"| **total** | {total:.2f} | real-time factor {steps * sc.sim.dt / total:.1f}× (loop alone "
          f"{steps * sc.sim.dt / t_loop:.1f}×; a second plain loop {steps * sc.sim.dt / t_plain:.1f}×) |")
    wall = sum(timers.t.values())
    cpu_step = t_instr / steps * 1e6
    print(f"\nthe step loop's parts: plain {t_plain / steps * 1e6:.1f} µs/step CPU; instrumented {cpu_step:.1f} "
          f"µs/step CPU ({wall / steps * 1e6:.1f} µs/step wall: on a loaded machine wall time includes waiting for "
          f"a CPU, which falls on the parts in proportion to their length, so the shares hold and the µs are the "
          f"shares of the instrumented CPU time; the timers' own cost sits mostly in the parents of timed calls: "
          f"apply, snapshot building, Simulation.step)")
    print("| part | µs/step (CPU, share × instrumented) | share |")
    print("|---|---|---|")
    for name, v in sorted(timers.t.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {v / wall * cpu_step:.1f} | {v / wall:.0%} |")

if __name__ == "__main__":
    main()
