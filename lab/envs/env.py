"""A Gymnasium environment over any scenario: the policy's torques replace the scenario's controller.

Everything else is the scenario as ``lab run`` runs it — robot, arena, trial bodies, friction and
every ``[forces.*]`` law — and each engine step is :meth:`lab.runner.Simulation.step`, the runner's
own step (laws on the snapshot, torques and forces applied in one place by the World, engine step,
energy ledger, divergence check). One environment step holds the action's torques for
``control_dt`` (default 10 ms, a whole number of engine steps).

* **Action**: one value in [-1, 1] per actuated joint, scaled by that joint's effort limit (the
  URDF's): the body joints of snakes and eels; the arm and the track drive of the tracked robot (the
  planetary's two outputs, i0·i1·τ_max and i0·i1·i2·τ_max, Hu 2013 §1.1). Other joints (passive
  wheels, the geared belt) get no torque, as in the scenarios.
* **Observation** (float64, names in ``env.obs_names``): joint angles and rates, every link's yaw
  relative to the task heading, the COM velocity in the task frame (forward, left, up), the COM
  height above its start, the base link's angular velocity in the task frame and gravity's
  direction in the base link's frame (its tilt). The task frame is the scenario's
  ``init.heading_deg``: "forward" is where the robot points at the start.
* **Reward** (:class:`Reward`): ``forward·v_fwd + up·v_up − energy·P/(m g)`` per step, v the COM's
  velocity over the step and P the motors' mean absolute power Σ|τ_j q̇_j|. P/(m g) is a speed (the
  rate at which P would lift the robot's weight), so ``energy`` is the cost of transport at which a
  gait breaks even: with the default 0.1 a gait is rewarded while it moves its weight more than
  10× cheaper than lifting it. The tracked robot also earns height (``up = 1``, it climbs).
* **Termination**: a diverged simulation (the runner's checks: NaN, runaway energy, through the
  floor), and for the tracked robot a body turned over (its up axis below −0.5 g: 120° tilt);
  truncation at ``sim.duration``. ``reward=`` and ``terminate=`` take your own callables.
* **Resets**: ``reset(seed=s)`` is deterministic. Each episode runs the scenario with its ``seed``
  drawn from the environment's generator (so ``init.joint_noise`` varies between episodes);
  ``options={"scenario_seed": k}`` pins it (the scenario's own seed reproduces ``lab run``).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..controllers.base import Controller
from ..errors import Diverged

CONTROL_DT = 0.01  # s: default action period, 10 engine steps at the lab's 1 ms


@dataclass(frozen=True)
class Reward:
    """``forward·v_fwd + up·v_up − energy·P/(m g)`` (see the module docstring)."""

    forward: float = 1.0
    up: float = 0.0
    energy: float = 0.1

    def __call__(self, env: "LabEnv", prev, state, power: float) -> float:
        dt = state.t - prev.t
        d = env.task_frame.T @ (state.com_W - prev.com_W) / dt  # (forward, left, up) velocity
        return float(self.forward * d[0] + self.up * d[2] - self.energy * power / env.weight)


def turned_over(env: "LabEnv", state) -> bool:
    """The base link's up axis points below −0.5 (tilted past 120°): a tracked robot on its back."""
    return bool(state.R_WB[0, 2, 2] < -0.5)


# robot type → (default reward, default termination); any other robot gets Reward() and no termination
DEFAULTS: dict[str, tuple[Reward, Callable | None]] = {
    "snake": (Reward(), None),
    "wheeled_snake": (Reward(), None),
    "eel": (Reward(), None),
    "tracked": (Reward(up=1.0), turned_over),
}


def actuators(spec, joint_names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(joint indices, effort limits [N·m]) of the joints a policy drives. A robot spec may say with
    an ``actuators()`` method returning {joint name: limit}; else the body joints (``joint_*``) with
    their URDF effort limit, and for the tracked robot the arm and drive outputs."""
    own = getattr(spec, "actuators", None)
    if own is not None:
        limits = dict(own())
    elif {"arm_joint", "drive_joint"} <= set(joint_names):
        limits = {"arm_joint": spec.effort, "drive_joint": spec.effort * spec.i2}  # i0 i1 τ_max, i0 i1 i2 τ_max
    else:
        urdf = ET.fromstring(spec.to_urdf())
        limits = {}
        for j in urdf.iter("joint"):
            lim = j.find("limit")
            if j.get("name", "").startswith("joint_") and lim is not None:
                limits[j.get("name")] = float(lim.get("effort"))
    idx = [joint_names.index(name) for name in limits]
    return np.array(idx, dtype=int), np.array([limits[joint_names[i]] for i in idx], dtype=float)


class HeldTorque(Controller):
    """Stands in for the scenario's controller: returns the torques the policy last set."""

    def __init__(self, n_joints: int):
        super().__init__(None)
        self.tau = np.zeros(n_joints)

    def act(self, state) -> np.ndarray:
        return self.tau


class LabEnv(gym.Env):
    """A scenario as a Gymnasium environment (see the module docstring).

    ``scenario``: a name from ``lab list``, a .toml path or a loaded Scenario; ``overrides``: the
    ``--set`` keys (``{"sim.duration": 10}``); ``control_dt``: seconds per action; ``reward(env,
    prev_state, state, power) -> float`` and ``terminate(env, state) -> bool`` replace the robot's
    defaults; ``render_mode="rgb_array"`` renders the engine camera (headless, CPU)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": round(1.0 / CONTROL_DT)}

    def __init__(self, scenario: Any = "snake_passive_creeping", overrides=None, control_dt: float | None = None,
                 reward: Callable | None = None, terminate: Callable | None = None, render_mode: str | None = None,
                 render_size: tuple[int, int] = (480, 360)):
        from ..api import load_scenario

        self.scenario = sc = load_scenario(scenario, overrides)
        dt = sc.sim.dt
        self.frame_skip = max(1, int(round((control_dt or CONTROL_DT) / dt)))
        self.control_dt = self.frame_skip * dt
        self.max_steps = max(1, sc.sim.n_steps // self.frame_skip)
        default_reward, default_terminate = DEFAULTS.get(sc.robot_type, (Reward(), None))
        self.reward_fn = reward if reward is not None else default_reward
        self.terminate_fn = terminate if terminate is not None else default_terminate
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.render_size = (int(render_size[0]), int(render_size[1]))
        self.metadata = {**self.metadata, "render_fps": round(1.0 / self.control_dt)}

        h = math.radians(sc.init.heading_deg)
        # columns: forward, left, up in the world frame (the task frame's axes)
        self.task_frame = np.array([[math.cos(h), -math.sin(h), 0.0], [math.sin(h), math.cos(h), 0.0],
                                    [0.0, 0.0, 1.0]])
        self.sim = None
        self.state = None
        self._episode_seed = sc.seed
        self._build(sc.seed)  # the spaces need the loaded robot's joints and links
        model = self.sim.world.model
        self.joint_names = model.joint_names
        self.act_index, self.act_limit = actuators(sc.robot, model.joint_names)
        self.weight = float(model.mass.sum() * max(model.gravity, 1e-9))
        self.action_space = spaces.Box(-1.0, 1.0, shape=(len(self.act_index),), dtype=np.float32)
        J, N = len(model.joint_names), model.n_links
        self.obs_names = ([f"q_{j}" for j in range(J)] + [f"qd_{j}" for j in range(J)]
                          + [f"yaw_{i}" for i in range(N)] + ["v_fwd", "v_left", "v_up", "com_dz"]
                          + ["w0_fwd", "w0_left", "w0_up", "g0_x", "g0_y", "g0_z"])
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(len(self.obs_names),), dtype=np.float64)

    # ------------------------------------------------------------------ episode
    def _build(self, scenario_seed: int) -> None:
        import dataclasses

        from ..runner import Simulation

        if self.sim is not None:
            self.sim.close()
        sc = dataclasses.replace(self.scenario, seed=int(scenario_seed))
        self.sim = Simulation(sc)  # exactly lab run's set-up: World, robot, arena, trial bodies, force laws
        self.held = HeldTorque(self.sim.world.n_joints)
        self.held.reset(self.sim.world.model, sc.sim.dt)
        self.sim.controller = self.held
        self.state = self.sim.world.read_state()
        self.sim.recorder.start(self.state)
        self.com0_W = self.state.com_W.copy()
        self.steps = 0
        self._dead = False
        self._camera = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        if "scenario_seed" in options:
            episode_seed = int(options["scenario_seed"])
        else:
            episode_seed = int(self.np_random.integers(2**31 - 1))
        self._episode_seed = episode_seed
        self._build(episode_seed)
        self._last_obs = self._observe(self.state)
        return self._last_obs.copy(), {"t": self.state.t, "scenario_seed": episode_seed}

    def torques(self, action) -> np.ndarray:
        """(J,) joint torques [N·m] for an action in [-1, 1]^n (clipped): zero on unactuated joints."""
        a = np.clip(np.asarray(action, dtype=float).reshape(-1), -1.0, 1.0)
        if a.shape != self.act_limit.shape:
            raise ValueError(f"action: expected {self.act_limit.size} values, got {a.size}")
        tau = np.zeros(self.sim.world.n_joints)
        tau[self.act_index] = a * self.act_limit
        return tau

    def step(self, action):
        if self._dead:
            raise RuntimeError("the episode has ended (diverged): call reset()")
        tau = self.torques(action)
        self.held.tau = tau
        sim, prev = self.sim, self.state
        state, energy, info = prev, 0.0, {}
        terminated = False
        try:
            for _ in range(self.frame_skip):
                new, _ = sim.step(state)  # the runner's step: laws, World.apply, engine, ledger, checks
                # motors' absolute power with the step's mean rate (the ledger's trapezoid, per joint)
                energy += float(np.abs(tau * 0.5 * (state.qd + new.qd)).sum()) * sim.world.dt
                state = new
        except Diverged as exc:
            self._dead = True
            info["diverged"] = str(exc)
            return self._last_obs.copy(), 0.0, True, False, info
        self.state = state
        self.steps += 1
        power = energy / (state.t - prev.t)
        reward = float(self.reward_fn(self, prev, state, power))
        if self.terminate_fn is not None:
            terminated = bool(self.terminate_fn(self, state))
        truncated = self.steps >= self.max_steps and not terminated
        self._last_obs = self._observe(state)
        info.update(t=state.t, power=power)
        return self._last_obs.copy(), reward, terminated, truncated, info

    # ------------------------------------------------------------------ observation
    def _observe(self, s) -> np.ndarray:
        T = self.task_frame
        h = math.atan2(T[1, 0], T[0, 0])
        yaw = np.remainder(s.yaw - h + np.pi, 2 * np.pi) - np.pi
        v = T.T @ s.com_v_W
        w0 = T.T @ s.w_W[0]
        g0 = -s.R_WB[0][2, :]  # gravity's direction (−z_W) in the base link's frame: Rᵀ(0, 0, −1)
        dz = s.com_W[2] - self.com0_W[2]
        return np.concatenate([s.q, s.qd, yaw, v, [dz], w0, g0]).astype(np.float64)

    # ------------------------------------------------------------------ render
    def render(self):
        if self.render_mode != "rgb_array":
            return None
        w, h = self.render_size
        com = self.state.com_W
        back = self.task_frame[:, 0]
        size = max(0.3, 1.5 * float(np.ptp(self.state.p_W[:, :2], axis=0).max() + self.scenario.robot.link_length))
        eye = com - back * size * 0.8 + np.array([0.0, 0.0, 0.6 * size])
        return self.sim.world.camera_image(w, h, eye, com, fov_deg=50.0, near=0.01, far=100.0)

    def close(self):
        if self.sim is not None:
            self.sim.close()
            self.sim = None
