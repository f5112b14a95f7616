"""Base against branch, side by side: each goal measured in fresh processes that alternate between two
checkouts (A B A B …), so the machine's load falls on both alike; the median of each side, their ratio and
the load average before and after.

Goals (the same functions benchmarks/goals.py reports):

* ``env``      — ``lab/SnakeCreeping-v2`` env steps per CPU second (4-s episodes, random actions, resets
                 included: benchmarks/ppo_snake.py's ``throughput``), and ``Swimmer-v5`` in the same
                 process when MuJoCo is installed;
* ``reset``    — the mean CPU time of ``reset()`` on ``lab/SnakeCreeping-v2`` (20 resets, one step each);
* ``flagship`` — the flagship's step loop (benchmarks/flagship_steps.py's ``time_flagship``), µs per step;
* ``io``       — benchmarks/step_overhead.py's ``measure`` at n = 10: lab / engine-I/O floor;
* ``tracked``  — the tracked step sweep's loop: ``Simulation.run`` of four of its points (h = 0.08, 0.15,
                 0.19, 0.21 m; arm 0.25–0.4 m, 0.3–0.7 rad/s; ``trial.stop_when_decided``), µs of CPU per
                 2-ms step with the run's observers and metrics (after one warm-up run: numba's cache).

Usage: python benchmarks/pace_ab.py --base /work/main --branch . [--goal env reset flagship io tracked] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
goal = {goal!r}
out = {{}}
if goal == "env":
    import lab.envs  # noqa: F401
    from ppo_snake import throughput
    out["lab/SnakeCreeping-v2"] = throughput("lab/SnakeCreeping-v2", 3000, overrides={{"sim.duration": 4.0}})
    try:
        import mujoco  # noqa: F401
        out["Swimmer-v5"] = throughput("Swimmer-v5", 3000)
    except Exception:
        pass
elif goal == "reset":
    import numpy as np, gymnasium as gym, lab.envs  # noqa: F401
    env = gym.make("lab/SnakeCreeping-v2")
    env.reset(seed=0)
    a = np.zeros(env.action_space.shape, np.float32)
    t = 0.0
    for k in range(20):
        env.step(a)
        c0 = time.process_time()
        env.reset(seed=k)
        t += time.process_time() - c0
    env.close()
    out["reset_ms"] = t / 20 * 1e3
elif goal == "flagship":
    from flagship_steps import time_flagship
    loop, whole, n, status = time_flagship([])
    out["us_per_step"] = loop / n * 1e6
    out["rtf"] = 30.0 / loop
elif goal == "io":
    import step_overhead
    m = step_overhead.measure("snake_passive_creeping", ["robot.n_modules=10"], 3000, 3)
    out["lab_io"] = m["lab"] / m["engine_io"]
    out["lab_us"] = m["lab"] * 1e6
    out["floor_us"] = m["engine_io"] * 1e6
elif goal == "tracked":
    from lab.core import scenario as scn
    from lab.core.runner import Simulation
    points = [(0.08, 0.25, 0.3), (0.15, 0.3, 0.5), (0.19, 0.35, 0.5), (0.21, 0.4, 0.7)]
    scs = [scn.load("tracked_step_climb", ["trial.stop_when_decided=true", "sim.duration=16",
                                           f"arena.step_height={{h}}", f"robot.arm_length={{a}}",
                                           f"controller.arm_speed={{w}}"]) for h, a, w in points]
    sim = Simulation(scs[0]); sim.run(); sim.close()  # warm-up
    cpu = steps = 0
    for sc in scs:
        sim = Simulation(sc)
        c0 = time.process_time(); r = sim.run(); cpu += time.process_time() - c0
        steps += r.metrics["steps"]
        sim.close()
    out["us_per_step"] = cpu / steps * 1e6
print("RESULT " + json.dumps(out))
"""


def run(root: str, goal: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(root).resolve())}
    code = CHILD.format(bench=str(HERE), goal=goal)
    p = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    line = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
    if not line:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(line[-1][7:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--branch", default=".")
    ap.add_argument("--goal", nargs="*", default=["env", "reset", "flagship", "io"])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    for goal in a.goal:
        l0 = os.getloadavg()[0]
        res = {"base": [], "branch": []}
        for _ in range(a.repeat):
            for side, root in (("base", a.base), ("branch", a.branch)):
                res[side].append(run(root, goal))
        l1 = os.getloadavg()[0]
        for key in res["base"][0]:
            b = statistics.median(r[key] for r in res["base"])
            n = statistics.median(r[key] for r in res["branch"])
            print(f"{goal:9s} {key:22s} base {b:10.2f}  branch {n:10.2f}  branch/base {n / b:6.3f}   "
                  f"(median of {a.repeat}; load {l0:.1f} -> {l1:.1f})", flush=True)


if __name__ == "__main__":
    main()
