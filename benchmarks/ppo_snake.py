"""Stable-Baselines3 PPO on lab/SnakeCreeping-v1: the learning curve, and env steps/s beside MuJoCo's Swimmer.

Needs the optional extra ``pip install 'lab[bench]'`` (stable-baselines3 with torch, gymnasium[mujoco]);
not part of ``make test``.

* Training: PPO (SB3 defaults but ``n_steps`` = 1024, MLP 64×64), observations and rewards normalised
  by ``VecNormalize``, episodes of ``--duration`` s (100 actions a second), ``--steps`` env steps in
  all, seed 0.
* Curve: every ``--eval-every`` steps, the deterministic policy's return over one evaluation episode
  (reset seed 0, the scenario's own seed; observations normalised with the running statistics),
  beside the zero-torque policy's return on the same episode. Written to ``docs/ppo_snake.csv`` and
  ``docs/ppo_snake.png``.
* Throughput, in the same process before training: env steps per second of CPU time of
  ``gymnasium.make("Swimmer-v5")`` and of ``lab/SnakeCreeping-v1``, each under uniform random actions
  for ``--throughput-steps`` steps (Gymnasium's wrappers on both), and the machine's load.

Usage: python benchmarks/ppo_snake.py [--steps 30720] [--duration 4] [--eval-every 3072] [--out docs]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from pathlib import Path

import numpy as np


def throughput(env_id: str, n: int, **kw) -> float:
    import gymnasium as gym

    env = gym.make(env_id, **kw)
    env.reset(seed=0)
    env.action_space.seed(0)
    steps = 0
    t0 = time.process_time()
    while steps < n:
        *_, term, trunc, _ = env.step(env.action_space.sample())
        steps += 1
        if term or trunc:
            env.reset()
    cpu = time.process_time() - t0
    env.close()
    return steps / cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=30720)
    ap.add_argument("--duration", type=float, default=4.0, help="seconds per training episode")
    ap.add_argument("--eval-every", type=int, default=3072)
    ap.add_argument("--throughput-steps", type=int, default=3000)
    ap.add_argument("--out", default="docs")
    a = ap.parse_args(argv)

    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    import lab.envs  # noqa: F401

    torch.set_num_threads(1)
    env_id, kw = "lab/SnakeCreeping-v1", {"overrides": {"sim.duration": a.duration}}
    load0 = os.getloadavg()
    tp = {"Swimmer-v5": throughput("Swimmer-v5", a.throughput_steps),
          env_id: throughput(env_id, a.throughput_steps, **kw)}
    print(json.dumps({"env_steps_per_cpu_s": {k: round(v, 1) for k, v in tp.items()},
                      "loadavg": [round(x, 2) for x in load0]}), flush=True)

    venv = VecNormalize(make_vec_env(env_id, n_envs=1, seed=0, env_kwargs=kw), gamma=0.99)
    eval_env = gym.make(env_id, **kw)

    def evaluate(policy) -> float:
        obs, _ = eval_env.reset(seed=0, options={"scenario_seed": eval_env.unwrapped.scenario.seed})
        total = 0.0
        while True:
            a_ = policy(obs)
            obs, r, term, trunc, _ = eval_env.step(a_)
            total += r
            if term or trunc:
                return float(total)

    zero = evaluate(lambda o: np.zeros(eval_env.action_space.shape, dtype=np.float32))
    model = PPO("MlpPolicy", venv, n_steps=1024, batch_size=64, seed=0, verbose=0, device="cpu")

    def deterministic(o):
        return model.predict(venv.normalize_obs(o[None]), deterministic=True)[0][0]

    rows = [{"steps": 0, "eval_return": evaluate(deterministic), "zero_return": zero, "train_episode_return": ""}]
    print(json.dumps(rows[-1]), flush=True)

    class Curve(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next = a.eval_every
            self.ep_returns: list[float] = []

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                if "episode" in info:
                    self.ep_returns.append(float(info["episode"]["r"]))
            if self.num_timesteps >= self.next:
                self.next += a.eval_every
                recent = self.ep_returns[-5:]
                rows.append({"steps": self.num_timesteps, "eval_return": evaluate(deterministic), "zero_return": zero,
                             "train_episode_return": round(float(np.mean(recent)), 4) if recent else ""})
                print(json.dumps(rows[-1]), flush=True)
            return True

    t0 = time.perf_counter()
    model.learn(total_timesteps=a.steps, callback=Curve())
    wall = time.perf_counter() - t0
    print(json.dumps({"trained_steps": a.steps, "wall_s": round(wall, 1), "loadavg": [round(x, 2) for x in os.getloadavg()]}),
          flush=True)

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "ppo_snake.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=120)
    x = [r["steps"] for r in rows]
    ax.plot(x, [r["eval_return"] for r in rows], "o-", label="PPO, deterministic evaluation episode")
    tr = [(r["steps"], r["train_episode_return"]) for r in rows if r["train_episode_return"] != ""]
    if tr:
        ax.plot(*zip(*tr), "s--", alpha=0.7, label="PPO, last 5 training episodes")
    ax.axhline(zero, color="k", lw=0.8, ls=":", label="zero-torque policy")
    ax.set_xlabel("env steps (10 ms each)")
    ax.set_ylabel(f"return per {a.duration:g} s episode")
    ax.set_title(f"PPO on {env_id} (seed 0; {tp[env_id]:.0f} env steps/s vs Swimmer-v5 {tp['Swimmer-v5']:.0f})",
                 fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "ppo_snake.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
