"""The environment's step against ``lab run``, the same simulated time, side by side in one process.

run:   ``Simulation.run`` of the scenario as ``lab run`` runs it (its controller, force laws, the
       energy ledger and recorder), ``--seconds`` of simulated time.
env:   ``gymnasium.make(id)`` (with Gymnasium's wrappers) stepped for the same simulated time with zero
       actions, with uniform random actions, and with a travelling wave (the gait lab.envs.cem
       learns on the snake: a_j = 0.44 sin(2π·1.96 t + 1.68 j) + 0.07), torque mode, 10 ms per action.
       The engine's own cost depends on what the robot does (a snake lying still costs the contact
       solver more per step than one crawling, here): the wave is the like-for-like case for a gait.
Each is timed in CPU seconds of this process (``time.process_time``: the engine in DIRECT mode runs in
this thread, and CPU time is what other processes on a shared machine inflate least), best of
``--repeat``; the ratio env/run is the environment's cost per simulated second over ``lab run``'s.
The load (``os.getloadavg``) is printed beside the figures.

Usage: python benchmarks/env_speed.py [--seconds 5] [--repeat 3] [--only SnakeCreeping Eel]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def time_run(scenario: str, overrides: dict, seconds: float) -> float:
    from lab.api import load_scenario
    from lab.core.runner import Simulation

    sim = Simulation(load_scenario(scenario, {**overrides, "sim.duration": seconds}))
    try:
        t0 = time.process_time()
        res = sim.run()
        cpu = time.process_time() - t0
    finally:
        sim.close()
    assert res.status == "ok", res.error
    return cpu


def time_env(env_id: str, seconds: float, how: str) -> tuple[float, int]:
    import gymnasium as gym

    from lab.envs.cem import WavePolicy

    env = gym.make(env_id, overrides={"sim.duration": seconds})
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    zero = np.zeros(env.action_space.shape, dtype=np.float32)
    wave = WavePolicy(0.44, 1.96, 1.68, 0.07)
    dt = env.unwrapped.control_dt
    steps = 0
    t0 = time.process_time()
    while True:
        if how == "random":
            a = rng.uniform(-1, 1, zero.shape).astype(np.float32)
        else:
            a = wave(steps * dt, zero.size) if how == "wave" else zero
        *_, term, trunc, info = env.step(a)
        steps += 1
        if term or trunc:
            break
    cpu = time.process_time() - t0
    env.close()
    assert "diverged" not in info
    return cpu, steps


def main(argv=None) -> int:
    import lab.envs

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="simulated seconds per measurement")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=["SnakeCreeping"])
    ap.add_argument("--out", help="write the results as JSON here")
    a = ap.parse_args(argv)
    rows = []
    for env_id, (scenario, base, *_) in lab.envs.IDS.items():
        if scenario is None or not any(w in env_id for w in a.only):
            continue
        time_run(scenario, base, 0.05), time_env(env_id, 0.05, "zero")  # warm-up: kernels compiled, caches
        run = min(time_run(scenario, base, a.seconds) for _ in range(a.repeat))
        row = {"id": env_id, "scenario": scenario, "sim_seconds": a.seconds, "run_cpu_s": round(run, 3)}
        for how in ("zero", "random", "wave"):
            cpu, steps = min(time_env(env_id, a.seconds, how) for _ in range(a.repeat))
            row.update({f"env_{how}_cpu_s": round(cpu, 3), f"ratio_{how}": round(cpu / run, 3),
                        f"env_steps_per_s_{how}": round(steps / cpu, 1)})
        row["loadavg"] = [round(x, 2) for x in os.getloadavg()]
        rows.append(row)
        print(json.dumps(row), flush=True)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
