"""Random actions in every registered environment: how many episodes diverge.

For each id of ``lab.envs.IDS`` (``lab/Scenario-v1`` is ``lab/SnakeCreeping-v1``'s scenario by
default and is skipped): ``--episodes`` episodes of ``--duration`` seconds, each from
``reset(seed=k)``, every action drawn uniformly from the action space (full torque, either sign, a new
draw every 10 ms), in ``--mode`` torque or position. Counts the episodes that ended in a divergence
(``info["diverged"]``, the runner's checks: NaN, runaway kinetic energy, a link through the floor) and
reports the fastest actuated joint relative to its motor's no-load speed, the env steps per second of
CPU time, and the load (``uptime``) the run shared the machine with.

v0 (no motors), measured on main 07317ad: the snake's joints at 66 rad/s after 5 steps
and 100 rad/s after 10, the COM at 4–11 m/s within 0.16–0.71 s; ``lab/Eel-v0`` diverged in 466 of 466
episodes within 1000 steps.

Usage: python benchmarks/env_random_actions.py [--episodes 1000] [--duration 0.3] [--only Eel ...]
       [--mode torque|position] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def run_id(env_id: str, episodes: int, duration: float, mode: str, seed: int = 0) -> dict:
    import gymnasium as gym

    import lab.envs  # noqa: F401

    env = gym.make(env_id, overrides={"sim.duration": duration}, action_mode=mode)
    u = env.unwrapped
    J = len(u.joint_names)
    rng = np.random.default_rng(seed)
    diverged, reasons, steps, worst = 0, [], 0, 0.0
    t0 = time.process_time()
    for ep in range(episodes):
        env.reset(seed=ep)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
            steps += 1
            worst = max(worst, float(np.max(np.abs(obs[J:2 * J][u.act_index]) / u.no_load)))
            if "diverged" in info:
                diverged += 1
                reasons.append(info["diverged"])
            done = term or trunc
    cpu = time.process_time() - t0
    env.close()
    return {"id": env_id, "mode": mode, "episodes": episodes, "duration_s": duration, "steps": steps,
            "diverged": diverged, "reasons": reasons[:5], "max_qd_over_no_load": round(worst, 3),
            "steps_per_cpu_s": round(steps / cpu, 1)}


def main(argv=None) -> int:
    import lab.envs

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=1000)
    ap.add_argument("--duration", type=float, default=0.3, help="seconds per episode (100 actions a second)")
    ap.add_argument("--mode", choices=("torque", "position"), default="torque")
    ap.add_argument("--only", nargs="*", help="ids containing one of these words")
    ap.add_argument("--out", help="write the results as JSON here")
    a = ap.parse_args(argv)
    ids = [i for i, (sc, *_) in lab.envs.IDS.items() if sc is not None]
    if a.only:
        ids = [i for i in ids if any(w in i for w in a.only)]
    print(f"load before: {os.getloadavg()}", flush=True)
    rows = []
    for env_id in ids:
        row = run_id(env_id, a.episodes, a.duration, a.mode)
        row["loadavg_1min"] = round(os.getloadavg()[0], 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 1 if any(r["diverged"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
