"""Per-step cost of the lab's full step against the bare engine step, side by side in one run.

bare:  stepSimulation() only, same robot, same contacts (the floor the engine must solve anyway).
lab:   Simulation.step: controller → force laws → apply torques and forces → stepSimulation() →
       read the batched snapshot → energy ledger + recorder → divergence check.
Cases: the snake under passive creeping on Coulomb friction (n = 10, 30), the eel (feedback
linearisation, hydrodynamics), the tracked robot (contact snapshot, climb controller, contact ledger).
engine-io: bare + the engine calls a torque + per-link-force step cannot avoid (the floor of its I/O):
       the base pose and twist, one getJointStates, the one-link forward-kinematics refresh that keeps
       applyExternalForce's lever arms current, the contact points where the robot records them, the
       torque array and one applyExternalForce per pushed link (no batched API exists), replaying the
       lab's own taped writes (the motor-clipped torques, the pushed links' forces and points, built as
       lists beforehand) from the same saved engine state (the same trajectory and contacts), with none
       of the lab's Python. lab/io is the lab's own per-step work over that floor; lab/bare the whole
       step over the engine's.
io+apply: the floor as measured until 2026-11-26, the same reads with the writes through World.apply
       (its motor clip and list building counted in the floor); lab/(io+apply) is the ratio against it,
       printed for continuity with the earlier tables.
Each case runs at its scenario's own dt (printed in the header line).
Output shape (kept for scripts and docs/benchmarks.md): one row per case — label, bare µs, engine-io µs,
lab µs, lab/io, lab/bare, io+apply µs, lab/(io+apply) — and a last line with the flagship's real-time
factor on CPU time (``--no-flagship``: without it).

The loops' backend is printed: numba, or plain Python under NUMBA_DISABLE_JIT=1 (for debugging only).

Usage: python benchmarks/step_overhead.py [--steps N] [--repeat R] [--only snake eel tracked] [--no-flagship]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from dataclasses import dataclass, field

# CPU time of this process, not wall time: the engine (DIRECT mode) and the lab's Python run in this
# one thread, and CPU time is what other processes on a shared 2-core machine cannot inflate.
_clock = time.process_time


from lab.core import scenario as scn
from lab.core.engine import pb
from lab.core.runner import Simulation
from lab.core.wrench import Wrench


def _bare(sim: Simulation, n: int, tape) -> float:
    c = sim.world.client
    t0 = _clock()
    for _ in range(n):
        c.stepSimulation()
    return (_clock() - t0) / n


def _engine_io(sim: Simulation, n: int, tape) -> float:
    """Replays the lab's own torques and forces (taped from the same start) through the engine calls
    alone, their arguments built beforehand and passed the way the World passes them (bound to the body
    and client, positional where PyBullet takes it): the same trajectory and contacts as the lab column,
    without any of the lab's Python."""
    w = sim.world
    b, ids, cid = w.robot, w._joint_ids, w._cid
    reads = [w._rd_base_pose, w._rd_base_vel]
    if ids:
        reads.append(w._rd_joint_states)
    if w._fk_tree is not None and w.n_links > 1:
        reads.append(w._rd_fk_refresh)
    for bid, _ in w.bodies.values():
        reads += [functools.partial(pb.getBasePositionAndOrientation, bid, cid),
                  functools.partial(pb.getBaseVelocity, bid, cid)]
    record = w.record_contacts or w.measure_contacts
    contacts = w._pb_contacts
    motor, force, torque = w._pb_motor_array, pb.applyExternalForce, pb.applyExternalTorque
    step = w.step_engine
    TC, WF = pb.TORQUE_CONTROL, pb.WORLD_FRAME
    t0 = _clock()
    for tau, forces, torques in tape.writes:
        for read in reads:
            read()
        if record:
            contacts(bodyA=b)
        if tau is not None:
            motor(b, ids, TC, forces=tau)
        for body, link, f, p in forces:
            force(body, link, f, p, WF, cid)
        for link, tq in torques:
            torque(b, link, tq, WF, cid)
        step()
    return (_clock() - t0) / n


def _engine_io_apply(sim: Simulation, n: int, tape) -> float:
    """The floor as measured until 2026-11-26: the same engine reads, the writes through World.apply
    (its motor clip and list building counted in the floor), replaying the same taped inputs."""
    w = sim.world
    b, ids = w.robot, w._joint_ids
    base_pose, base_vel, joint_states = w._rd_base_pose, w._rd_base_vel, w._rd_joint_states
    link_state, contacts = w._rd_fk_refresh, w._pb_contacts
    fk_refresh = w._fk_tree is not None and w.n_links > 1
    record = w.record_contacts or w.measure_contacts
    apply, step = w.apply, w.step_engine
    t0 = _clock()
    for tau, applied, state in tape.inputs:
        base_pose()
        base_vel()
        if ids:
            joint_states()
        if fk_refresh:
            link_state()
        if record:
            contacts(bodyA=b)
        apply(tau, applied, state)
        step()
    return (_clock() - t0) / n


def _lab(sim: Simulation, n: int, tape) -> float:
    state = sim.world.read_state()
    step = sim.step
    t0 = _clock()
    for _ in range(n):
        state, _ = step(state)
    return (_clock() - t0) / n


@dataclass
class Tape:
    """The lab's own inputs over the taped steps: ``inputs`` what it handed World.apply (the controller's
    torques, the laws' forces, the snapshot they were made from), ``writes`` what World.apply then sent
    the engine (the clipped torques as a list; per pushed link (body, link, force, point); per link
    torque (link, torque))."""

    inputs: list = field(default_factory=list)
    writes: list = field(default_factory=list)


def _tape(sim: Simulation, n: int) -> Tape:
    w = sim.world
    tape = Tape()
    apply = w.apply

    def taped(tau, wrench, state):
        out = apply(tau, wrench, state)
        tape.inputs.append((tau, wrench, state))
        forces, torques = [], []
        if wrench is not None:
            F_W = wrench.F_W if isinstance(wrench, Wrench) else wrench
            forces = [(w.robot, i, f, p) for i, f, p in zip(w._engine_links, F_W.tolist(), state.p_W.tolist())
                      if f[0] or f[1] or f[2]]
            if isinstance(wrench, Wrench):
                if wrench.T_W is not None:
                    torques = [(i, tq) for i, tq in zip(w._engine_links, wrench.T_W.tolist()) if tq[0] or tq[1] or tq[2]]
                forces += [(w.bodies[name][0], -1, list(map(float, f)), state.extra[name].p_W.tolist())
                           for name, f in wrench.extra.items()]
        tape.writes.append((None if out is None else out.tolist(), forces, torques))
        return out

    w.apply = taped  # the instance's own attribute, for the taped steps only
    try:
        state = w.read_state()
        for _ in range(n):
            state, _ = sim.step(state)
    finally:
        del w.apply
    return tape


def measure(scenario: str, overrides: list[str], steps: int, repeat: int, warmup: float = 2.0) -> dict[str, float]:
    """Median per-step time of each variant, all from the same engine state (saveState after a
    warm-up); the variants take turns so that load from elsewhere on the machine hits them alike."""
    times: dict[str, list[float]] = {"bare": [], "engine_io": [], "engine_io_apply": [], "lab": []}
    for _ in range(repeat):
        sim = Simulation(scn.load(scenario, [*overrides, "sim.duration=600"]))
        try:
            sim.run(duration=warmup)  # warm up: in motion, contacts established
            # the engine's state with the lab's own (the belt's gear targets, the controller's integrators):
            # a bare restoreState left the tracked belt's gears pulling by the whole taped travel
            start = sim.save_state()
            sim.recorder.start(sim.world.read_state())
            tape = _tape(sim, steps)  # the lab's own inputs, for the engine-io column
            for name, fn in (("bare", _bare), ("engine_io", _engine_io), ("engine_io_apply", _engine_io_apply),
                             ("lab", _lab)):
                sim.restore_state(start)
                sim.recorder.start(sim.world.read_state())
                times[name].append(fn(sim, steps, tape))
        finally:
            sim.close()
    return {k: statistics.median(v) for k, v in times.items()}


CASES = [  # (label, scenario, overrides, warm-up s)
    ("snake n=10", "snake_passive_creeping", ["robot.n_modules=10"], 2.0),
    ("snake n=30", "snake_passive_creeping", ["robot.n_modules=30"], 2.0),
    ("eel", "eel_forward_turn", [], 2.0),  # feedback linearisation, hydrodynamics
    ("tracked", "tracked_step_climb", [], 2.0),  # contact snapshot, climb controller, belt slabs
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", nargs="*", default=[], help="cases whose label contains one of these words")
    ap.add_argument("--no-flagship", action="store_true", help="skip the flagship's real-time factor line")
    args = ap.parse_args()
    from lab.core import kernels

    cases = [c for c in CASES if not args.only or any(o in c[0] for o in args.only)]
    dts = ", ".join(f"{label} {scn.load(sc_, ov).sim.dt * 1e3:g} ms" for label, sc_, ov, _ in cases)
    print(f"median of {args.repeat} × {args.steps} steps (process CPU time), kernels: {kernels.BACKEND}; dt: {dts}")
    print(f"load average {os.getloadavg()[0]:.2f} at start (2 CPUs shared)")
    print(f"{'case':<12}  {'bare µs':>8}  {'engine-io µs':>12}  {'lab µs':>8}  {'lab/io':>7}  {'lab/bare':>8}  "
          f"{'io+apply µs':>11}  {'lab/(io+apply)':>14}")
    for label, scenario, overrides, warmup in cases:
        m = measure(scenario, overrides, args.steps, args.repeat, warmup)
        print(f"{label:<12}  {m['bare'] * 1e6:8.1f}  {m['engine_io'] * 1e6:12.1f}  {m['lab'] * 1e6:8.1f}  "
              f"{m['lab'] / m['engine_io']:7.2f}  {m['lab'] / m['bare']:8.2f}  {m['engine_io_apply'] * 1e6:11.1f}  "
              f"{m['lab'] / m['engine_io_apply']:14.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    if args.no_flagship:
        return
    sc = scn.load("snake_passive_creeping", [])
    sim = Simulation(sc)
    c0 = _clock()
    res = sim.run()
    cpu = _clock() - c0
    sim.close()
    print(f"flagship snake_passive_creeping ({sc.sim.duration:g} s at dt {sc.sim.dt * 1e3:g} ms): "
          f"real-time factor {sc.sim.duration / cpu:.1f}× "
          f"on CPU time ({cpu:.2f} s; wall {res.metrics['wall_time_s']:.2f} s)")


if __name__ == "__main__":
    main()
