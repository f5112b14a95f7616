"""A Gymnasium environment over any scenario: the policy's commands replace the scenario's controller.

Everything else is the scenario as ``lab run`` runs it — robot, arena, trial bodies, friction and
every ``[forces.*]`` law — and each engine step is :meth:`lab.core.runner.Simulation.step`, the runner's
own step (laws on the snapshot, torques and forces applied in one place by the World — through the
joints' motors, :mod:`lab.core.actuators` — engine step, divergence check). One environment step holds
the action for ``control_dt`` (default 10 ms, a whole number of engine steps).

Action (``action_mode``)
------------------------
One value in [-1, 1] per actuated joint (a joint with a motor, :attr:`lab.core.world.World.motors`): the
body joints of snakes and eels; the arm and the track drive of the tracked robot. Other joints
(passive wheels, pulleys, the geared belt) get no torque, as in the scenarios.

================  =====================================================================================
``"torque"``      τ_j = a_j · τ_s,j (the motor's stall torque at the joint = the URDF effort), then
(default)         clipped by the World to the motor's torque–speed line at the joint's speed: a
                  command beyond what the motor can give at that speed is cut to it.
``"position"``    a PD servo, every engine step: joints with limits take angle targets
                  q*_j = lower + (a_j + 1)(upper − lower)/2; continuous joints (the tracked robot's arm
                  and drive) take rate targets q̇*_j = a_j ω_0,j. τ_j = k_p (q*_j − q_j) + k_d (q̇*_j − q̇_j)
                  (q̇* = 0 for angle targets, k_p = 0 for rate targets), with k_p = τ_s / 0.25 rad
                  (stall torque at a quarter radian of error) and k_d = τ_s / ω_0 (the slope of the
                  motor's own line), then clipped by the motor like any torque. ``servo="implicit_pd"``
                  (default) evaluates the law at the next state of the engine's step with its mass
                  matrix (:mod:`lab.controllers.servo`, after Tan 2011): stable at any step with the
                  full k_d; ``"stable_pd"`` is Tan's form. ``servo="explicit"`` is the law at this state with k_d at most J/h (J the
                  joint's reflected inertia, h the engine step: the explicit step's deadbeat gain,
                  above which it chatters — the tracked drive's 0.44 instead of 3.6 N·m·s/rad).
================  =====================================================================================

Observation (float64, names in ``env.obs_names``; J joints, N links; "task frame": x forward = the
scenario's ``init.heading_deg``, y left, z up)
------------------------------------------------------------------------------------------------
==================  =======  =====  ==========================================================
name                size     unit   what
==================  =======  =====  ==========================================================
``q_j``             J        rad    joint angles (every movable joint, URDF order)
``qd_j``            J        rad/s  joint rates
``yaw_i``           N        rad    each link's yaw relative to the task heading, in (−π, π]
``v_fwd/left/up``   3        m/s    the mass-weighted COM velocity, task frame
``com_dz``          1        m      COM height above its start
``w0_fwd/left/up``  3        rad/s  the base link's angular velocity, task frame
``g0_x/y/z``        3        1      gravity's direction in the base link's frame (its tilt)
==================  =======  =====  ==========================================================

Reward (:class:`Reward`, per step)
----------------------------------
``r = forward·v_fwd + up·v_up − energy·P/(m g)``: v the COM's mean velocity over the step (task
frame), P the motors' mean absolute power Σ_j |τ_j q̇_j| over the step (the torques the motors
applied, q̇ the step's trapezoid), m g the robot's weight. P/(m g) is a speed (the rate at which P
would lift the robot), so ``energy`` is the cost of transport at which a gait breaks even: with the
default 0.1 a gait is rewarded while it moves its weight more than 10× cheaper than lifting it. The
tracked robot also earns height (``up = 1``: it climbs).

Episode end
-----------
* **terminated** — a diverged simulation (the runner's checks: NaN, runaway kinetic energy, a link
  through the floor): the step's reward is ``−divergence_penalty`` (default 100, larger than any
  return a 10 s episode can earn: 1000 steps at 10 cm/s is 100) and ``info["diverged"]`` says why;
  the observation is the last finite one. For the tracked robot also a body turned over (its up
  axis below −0.5 g: 120° tilt). ``reward=`` and ``terminate=`` take your own callables.
* **truncated, unstable** — the run-time chatter check every ``lab run`` has (:mod:`lab.core.instability`:
  a joint's applied torque changing sign on 50 engine steps running, e.g. a servo beyond its step bound)
  trips: the episode ends **truncated** (a numerical artefact, not the task's outcome, so no penalty and
  no terminal value), the step's reward as usual, ``info["unstable"]`` says why; ``reset()`` next. (The
  check's ledger half does not run here: the environment books only the motors' work.)
* **truncated** — at ``sim.duration`` (shorten it with ``overrides={"sim.duration": 10}``): after
  ``max_steps`` = duration / ``dt`` steps, which the registered ids also state as their spec's
  ``max_episode_steps`` (so Gymnasium's ``TimeLimit`` truncates at the same step and monitors see it;
  :func:`lab.envs.make` keeps the two equal under overrides).
* **Resets**: ``reset(seed=s)`` is deterministic. Each episode runs the scenario with its ``seed``
  drawn from the environment's generator (so ``init.joint_noise`` varies between episodes);
  ``options={"scenario_seed": k}`` pins it (the scenario's own seed reproduces ``lab run``). Where
  every episode starts alike (no joint noise, a settled start, no engine constraints or per-step hooks:
  :meth:`LabEnv._rewindable`) a reset rewinds the World to the start the constructor saved instead of
  building and settling a new one: the same episodes, to the bit, for ~0.25 ms instead of ~37.

Rendering
---------
``render_mode="rgb_array"``: the video's follow camera (:class:`lab.video.FollowCamera`, PyBullet's
CPU renderer, headless), the ground grid and the overlays ``--screenshot`` draws (:mod:`lab.overlay`:
force arrows, head and COM trails, the laws' lines, time and energy). ``render_mode="human"``: the
PyBullet window (:mod:`lab.gui`, needs an X display; on a headless machine ``xvfb-run``), mirrored
every engine step and paced to real time.

Time
----
``dt`` (Gymnasium's name, as MuJoCo environments have it) is the control step: the seconds one
``step()`` advances (``control_dt`` rounded to a whole number of engine steps); ``metadata["render_fps"]``
is 1/``dt``, the rate at which rendered frames play back in real time.

Motors (``motor_lines``)
-----------------------
``"implicit"`` (default; the v2 ids): the motors' torque–speed lines taken at the end of each engine step
with the mass matrix (:mod:`lab.core.actuators`, "The line taken implicitly"; a lone joint on the line's
exact exponential): stable at any step,
so the v2 ids run their physics at 5 ms (the snakes, the eel; 2 ms the tracked robot). ``"explicit"`` (the v1 ids, as published):
the explicit clip with the one-step cap, stable only while the coupled joints' line time constant is
not much shorter than the step (the flagship's joints under full random torques reached 6.9 ω_0 at 5 ms).

Version history
---------------
* v2: the motors' lines implicit (``motor_lines="implicit"``) and the physics step coarser: 5 ms for
  ``SnakeCreeping`` and ``SnakeDrag`` (2 engine steps per 10-ms action instead of 10) and ``Eel`` (2 ms in
  v1), 2 ms for ``TrackedClimb`` and ``TrackedStairs`` (1 ms in v1); an episode whose
  chatter check trips ends truncated with ``info["unstable"]`` (v1 too: before, the check did not run).
* v1: the joints' motors (torque–speed lines, :mod:`lab.core.actuators`) enforced by the World; the
  tracked ids with Table 1's line (``robot.motor_speed_line = true``); a divergence ends the episode
  with ``−divergence_penalty`` (v0: reward 0); ``action_mode="position"``; ``render_mode="human"``;
  ``rgb_array`` with the grid and overlays. ``action_mode="position"`` runs its servo implicitly
  (``servo="implicit_pd"``) with the full k_d (``servo="explicit"``: the earlier law, k_d capped at J/h).
* v0: torques up to the effort limit at any speed (random actions reached 100 rad/s and diverged).
"""

from __future__ import annotations

import math
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from lab.controllers.base import Controller
from lab.controllers.servo import SERVOS, angle_error, stable_pd
from lab.core.errors import Diverged, Unstable
from lab.core.kernels import abs_power2

CONTROL_DT = 0.01  # s: default action period, 10 engine steps at the lab's 1 ms
DIVERGENCE_PENALTY = 100.0  # the reward of a step whose simulation diverged is −this (see the docstring)
SERVO_ANGLE = 0.25  # rad: the position servo's angle error that commands the stall torque (k_p = τ_s/this)
ACTION_MODES = ("torque", "position")
MOTOR_LINES = ("implicit", "explicit")


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


def actuators(world) -> tuple[np.ndarray, np.ndarray]:
    """(joint indices, stall torques [N·m]) of the joints a policy drives: those with a motor."""
    idx = np.flatnonzero(np.isfinite(world.motors.stall_torque))
    return idx, world.motors.stall_torque[idx].copy()


def joint_ranges(urdf_text: str, joint_names) -> dict[str, tuple[float, float] | None]:
    """Each named joint's (lower, upper) limit from the URDF text, None for a continuous joint."""
    out = {}
    for j in ET.fromstring(urdf_text).iter("joint"):
        name = j.get("name", "")
        if name not in joint_names:
            continue
        lim = j.find("limit")
        lo, hi = (float(lim.get("lower", 0)), float(lim.get("upper", 0))) if lim is not None else (0.0, 0.0)
        out[name] = (lo, hi) if j.get("type") != "continuous" and hi > lo else None
    return out


class Ledger:
    """Stands in for the run's recorder: the env needs no time series, only the motors' absolute work
    Σ_j |τ_j (q̇_j + q̇'_j)/2| dt over an action (what :class:`Reward` turns into P)."""

    def __init__(self, dt: float):
        self.dt = dt
        self.work = 0.0

    def start(self, state) -> None:
        self.work = 0.0

    def on_step(self, state, tau, parts, new) -> None:
        if tau is not None:  # np.abs(tau * (q̇ + q̇₊)).sum(), to the bit, in one compiled call
            self.work += abs_power2(tau, state.qd, new.qd) * 0.5 * self.dt


class Policy(Controller):
    """Stands in for the scenario's controller: the torques of the last action (``"torque"``), or the
    PD servo of the module docstring towards its targets (``"position"``)."""

    def __init__(self, n_joints: int, index: np.ndarray, stall: np.ndarray, mode: str = "torque",
                 no_load=None, ranges=None, inertia=None, dt: float = 0.0, servo: str = "implicit_pd"):
        super().__init__(None)
        if servo not in SERVOS:
            raise ValueError(f"servo: must be one of {SERVOS}, got {servo!r}")
        self.mode = mode
        self.servo = servo
        self.needs_mass_matrix = mode == "position" and servo != "explicit"
        self.index = index
        self.tau = np.zeros(n_joints)
        self.stall = stall
        if mode == "position":
            lo = np.array([r[0] if r is not None else 0.0 for r in ranges])
            hi = np.array([r[1] if r is not None else 0.0 for r in ranges])
            self.angle = np.array([r is not None for r in ranges])
            self.lo, self.hi = lo, hi
            self.no_load = np.asarray(no_load, dtype=float)
            self.kp = np.where(self.angle, stall / SERVO_ANGLE, 0.0)
            self.kd = stall / self.no_load
            if inertia is not None and servo == "explicit":  # at most the explicit step's deadbeat gain J/h
                self.kd = np.minimum(self.kd, np.asarray(inertia, dtype=float) / dt)
            self.q_target = np.zeros(len(index))
            self.qd_target = np.zeros(len(index))

    def set_action(self, a: np.ndarray) -> None:
        if self.mode == "torque":
            self.tau[self.index] = a * self.stall
        else:
            self.q_target = np.where(self.angle, self.lo + (a + 1.0) * 0.5 * (self.hi - self.lo), 0.0)
            self.qd_target = np.where(self.angle, 0.0, a * self.no_load)

    def act(self, state) -> np.ndarray:
        if self.mode == "torque":
            return self.tau
        i = self.index
        if self.servo != "explicit":  # the targets are held over the action: q*(t + h) = q*
            n = state.q.shape[0]
            kp, kd, e, ed = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
            kp[i], kd[i] = self.kp, self.kd
            e[i] = angle_error(self.servo, self.q_target, self.q_target, state.q[i], state.qd[i], self.dt)
            ed[i] = self.qd_target - state.qd[i]
            self.tau[i] = stable_pd(state.M, kp, kd, e, ed, self.dt, implicit=self.servo == "implicit_pd")[i]
            return self.tau
        self.tau[i] = self.kp * (self.q_target - state.q[i]) + self.kd * (self.qd_target - state.qd[i])
        return self.tau


def check_control_dt(control_dt, dt: float, duration: float) -> float | None:
    """``control_dt`` as given (None: the default), refused as a LabError unless it is a real number in
    [dt, sim.duration]: one action lasts at least one engine step, and at most the episode (1e9 s would
    step for ever before returning)."""
    from lab.api import LabTypeError, LabValueError

    if control_dt is None:
        return None
    if isinstance(control_dt, bool) or not isinstance(control_dt, (int, float, np.integer, np.floating)):
        raise LabTypeError("control_dt", f"must be a number of seconds, got {control_dt!r}")
    if not (math.isfinite(control_dt) and dt <= control_dt * (1 + 1e-9) and control_dt <= duration):
        raise LabValueError("control_dt", f"must be in [sim.dt, sim.duration] = [{dt:g}, {duration:g}] s, "
                                          f"got {control_dt!r}")
    return float(control_dt)


class LabEnv(gym.Env):
    """A scenario as a Gymnasium environment (the module docstring is its spec).

    ``scenario``: a name from ``lab list``, a .toml path or a loaded Scenario; ``overrides``: the
    ``--set`` keys (``{"sim.duration": 10}``), applied over the id's own (``base_overrides``);
    ``control_dt``: seconds per action; ``action_mode``: ``"torque"`` or ``"position"``;
    ``reward(env, prev_state, state, power) -> float`` and ``terminate(env, state) -> bool`` replace
    the robot's defaults; ``divergence_penalty``: see the docstring; ``render_mode``: ``"rgb_array"``
    or ``"human"``; ``servo``: the position mode's servo, ``"implicit_pd"``, ``"stable_pd"`` or ``"explicit"``
    (see the docstring)."""

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": round(1.0 / CONTROL_DT)}

    def __init__(self, scenario: Any = "snake_passive_creeping", overrides=None, control_dt: float | None = None,
                 reward: Callable | None = None, terminate: Callable | None = None, render_mode: str | None = None,
                 render_size: tuple[int, int] = (640, 480), action_mode: str = "torque",
                 divergence_penalty: float = DIVERGENCE_PENALTY, base_overrides=None, servo: str = "implicit_pd",
                 motor_lines: str = "implicit"):
        from lab.api import load_scenario

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if action_mode not in ACTION_MODES:
            raise ValueError(f"action_mode: must be one of {ACTION_MODES}, got {action_mode!r}")
        if not (isinstance(divergence_penalty, (int, float)) and math.isfinite(divergence_penalty)
                and divergence_penalty >= 0):
            raise ValueError(f"divergence_penalty: must be a finite number >= 0, got {divergence_penalty!r}")
        self.scenario = sc = load_scenario(scenario, {**(base_overrides or {}), **(overrides or {})})
        dt = sc.sim.dt
        control_dt = check_control_dt(control_dt, dt, sc.sim.duration)
        self.frame_skip = max(1, int(round((control_dt or CONTROL_DT) / dt)))
        self.control_dt = self.frame_skip * dt
        self.max_steps = max(1, sc.sim.n_steps // self.frame_skip)
        default_reward, default_terminate = DEFAULTS.get(sc.robot_type, (Reward(), None))
        self.reward_fn = reward if reward is not None else default_reward
        self.terminate_fn = terminate if terminate is not None else default_terminate
        self.divergence_penalty = float(divergence_penalty)
        self.action_mode = action_mode
        if servo not in SERVOS:
            raise ValueError(f"servo: must be one of {SERVOS}, got {servo!r}")
        self.servo = servo
        if motor_lines not in MOTOR_LINES:
            raise ValueError(f"motor_lines: must be one of {MOTOR_LINES}, got {motor_lines!r}")
        self.motor_lines = motor_lines
        self.render_mode = render_mode
        self.render_size = (int(render_size[0]), int(render_size[1]))
        self.metadata = {**self.metadata, "render_fps": round(1.0 / self.control_dt)}

        h = math.radians(sc.init.heading_deg)
        # columns: forward, left, up in the world frame (the task frame's axes)
        self.task_frame = np.array([[math.cos(h), -math.sin(h), 0.0], [math.sin(h), math.cos(h), 0.0],
                                    [0.0, 0.0, 1.0]])
        self._heading = math.atan2(self.task_frame[1, 0], self.task_frame[0, 0])
        self.sim = None
        self._start = None  # the Simulation's save_state() right after its set-up (and settle), when _rewindable
        self.state = None
        self._gui = None
        self._viewer = None
        if render_mode == "human":
            from lab.gui import open_viewer

            self._viewer = open_viewer()  # before any DIRECT client (lab.gui.open_viewer)
        self._episode_seed = sc.seed
        self.act_index = None  # the actuated joints and their motors: _actuation, from the first World
        # built with the policy from the start (one set-up and settle, not two): the spaces need the loaded
        # robot's joints, links and motors, and the first reset rewinds to this start where it can
        world = self._new_sim(sc.seed)
        model = world.model
        if self._rewindable():
            self._save_start()
        self._start_episode()
        self.weight = float(model.mass.sum() * max(model.gravity, 1e-9))
        self.action_space = spaces.Box(-1.0, 1.0, shape=(len(self.act_index),), dtype=np.float32)
        J, N = len(model.joint_names), model.n_links
        self.obs_names = ([f"q_{j}" for j in range(J)] + [f"qd_{j}" for j in range(J)]
                          + [f"yaw_{i}" for i in range(N)] + ["v_fwd", "v_left", "v_up", "com_dz"]
                          + ["w0_fwd", "w0_left", "w0_up", "g0_x", "g0_y", "g0_z"])
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(len(self.obs_names),), dtype=np.float64)

    @property
    def dt(self) -> float:
        """Seconds per :meth:`step` (the control step; Gymnasium's ``unwrapped.dt``)."""
        return self.control_dt

    # ------------------------------------------------------------------ episode
    def _new_sim(self, scenario_seed: int):
        import dataclasses

        from lab.core.runner import Simulation

        if self.sim is not None:
            self.sim.close()
        self._start = None
        sc = dataclasses.replace(self.scenario, seed=int(scenario_seed))

        def make_policy(w):
            if self.act_index is None:
                self._actuation(w)
            J = None if w.motors.inertia is None else w.motors.inertia[self.act_index]
            return Policy(w.n_joints, self.act_index, self.act_limit, self.action_mode, self.no_load, self._ranges,
                          J, w.dt, self.servo)

        # exactly lab run's set-up (World, robot, arena, trial bodies, force laws), with the policy as the
        # controller and a ledger that books the motors' work only (no time series)
        self.sim = Simulation(sc, controller=make_policy, recorder=lambda w: Ledger(w.dt))
        self.sim.world.implicit_motor_lines = self.motor_lines == "implicit"
        return self.sim.world

    def _actuation(self, world) -> None:
        """The joints a policy drives, their stall torques, no-load speeds and (position mode) ranges, from
        the loaded robot; a ValueError for a position-mode rate target without a no-load speed."""
        model = world.model
        self.joint_names = model.joint_names
        self.act_index, self.act_limit = actuators(world)
        self.no_load = world.motors.no_load_speed[self.act_index].copy()
        self._ranges = None
        if self.action_mode == "position":
            names = [model.joint_names[i] for i in self.act_index]
            rng = joint_ranges(self.scenario.robot.to_urdf(), names)
            self._ranges = [rng.get(n) for n in names]
            bad = [n for n, r, w in zip(names, self._ranges, self.no_load) if r is None and not math.isfinite(w)]
            if bad:
                raise ValueError(f"action_mode: 'position' gives continuous joints rate targets a·ω_0, but {bad} "
                                 "have no no-load speed (set the robot's motor speed line)")

    def _save_start(self) -> None:
        """Keep the fresh Simulation's start for the next resets (and how many bodies the engine then held:
        a body added since, by user code, makes the next reset rebuild instead)."""
        self._start = self.sim.save_state()
        self._start_bodies = self.sim.world.engine_counts()[0]

    def _rewindable(self) -> bool:
        """Whether every episode starts from the same engine state, so that one Simulation can be rewound
        to it (``restoreState``: bodies, velocities and Bullet's contact manifolds) instead of being built
        and settled again: the scenario's seed draws only the initial joint noise (lab.core.runner), so
        with ``init.joint_noise`` = 0 every episode seed gives the same start. Only a settled start
        (``init.settle_s`` > 0): restoreState overwrites the contact manifolds it saved and empties the
        others, so the saved start must hold every contact the episode begins with; from an unsettled
        start (no manifolds yet: the v1 ids) two rewound episodes differed from each other by 8e-3 rad/s
        in a joint rate after one step. Not with a render mode
        (the ``human`` window re-opens its overlay on each new World; ``rgb_array``'s first frame adds the
        ground grid's body, which restoreState refuses: "expected 3 multibodies, got 2"), and not for a robot with engine
        constraints or per-step hooks (the tracked robot's gears and belt): there the rewound episode's first
        step moved 0.7 % from a rebuilt one's (Bullet's saveState keeps the bodies and contacts, not the
        constraints' solver state). Where it applies a rewound episode equals a rebuilt one to the bit
        (tests/tools/test_envs.py); the flagship's reset falls from ~42 ms (set-up and 0.2 s of settle)
        to a restore (docs/benchmarks.md)."""
        w = self.sim.world if self.sim is not None else None
        init = self.scenario.init
        return (init.joint_noise == 0 and init.settle_s > 0 and self.render_mode is None and w is not None
                and not w.rewindables and w._after_step is None and w.engine_counts()[1] == 0)

    def _start_episode(self) -> None:
        sim = self.sim
        w = sim.world
        self.policy = sim.controller
        self.ledger = sim.recorder
        self.state = w.read_state()
        sim.watch.on_start(sim.view, self.state)
        self.com0_W = self.state.com_W.copy()
        self.steps = 0
        self._dead = False
        self._camera = None
        self._scene = None
        if self.render_mode == "rgb_array":
            from lab.overlay import Scene

            self._scene = Scene(w, [self.policy, *sim.forces.values()])
            self._scene.update(0, self.state)
        elif self.render_mode == "human":
            self._open_gui()

    def _open_gui(self) -> None:
        from lab.gui import GuiOverlay, clear_viewer

        v = self._viewer
        if v is None:  # the window was closed: no more rendering
            return
        if self._gui is not None and not clear_viewer(v):  # a new episode in the same window
            self._viewer = self._gui = None  # the window was closed meanwhile
            return
        self._gui = GuiOverlay(self.sim.world, self.policy, viewer=v)
        self._wall0 = time.perf_counter()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        if "scenario_seed" in options:
            episode_seed = int(options["scenario_seed"])
        else:
            episode_seed = int(self.np_random.integers(2**31 - 1))
        self._episode_seed = episode_seed
        if (self._start is not None and self.sim is not None  # the cached settled start (see _rewindable)
                and self.sim.world.engine_counts()[0] == self._start_bodies):  # no body added since
            self.sim.restore_state(self._start)
            self.sim.last_tau = np.zeros(self.sim.world.n_joints)
        else:
            self._new_sim(episode_seed)
            if self._rewindable():
                self._save_start()
        self._start_episode()
        self._last_obs = self._observe(self.state)
        return self._last_obs.copy(), {"t": self.state.t, "scenario_seed": episode_seed}

    def torques(self, action) -> np.ndarray:
        """(J,) joint torques [N·m] an action in [-1, 1]^n (clipped) commands in torque mode, before
        the motors' lines: a_j τ_s,j on the actuated joints, zero on the others."""
        a = self._action(action)
        tau = np.zeros(self.sim.world.n_joints)
        tau[self.act_index] = a * self.act_limit
        return tau

    def _action(self, action) -> np.ndarray:
        """The action as (n,) floats clipped to [-1, 1]; a LabError (a TypeError or ValueError too) for one
        that is not n finite real numbers in one dimension."""
        from lab.api import LabTypeError, LabValueError

        n = self.act_limit.size
        if type(action) is np.ndarray and action.shape == (n,) and action.dtype.kind == "f":  # the usual: checks in 3 calls
            a = action.astype(float)
            if math.isfinite(a.sum()):  # else (a NaN, an inf, or a sum that overflows) the full checks below
                return np.minimum(np.maximum(a, -1.0, out=a), 1.0, out=a)
        try:
            raw = np.asarray(action)
            if raw.dtype.kind not in "biuf":  # strings, objects, complex: not a torque
                raise TypeError
            a = raw.astype(float)
        except (TypeError, ValueError):
            raise LabTypeError("action", f"must be {n} real numbers (an array of shape ({n},)), got "
                                         f"{str(action)[:80]!r}") from None
        if a.shape != (n,):
            raise LabValueError("action", f"must have shape ({n},), got {a.shape}")
        if not np.isfinite(a).all():
            raise LabValueError("action", f"must be finite (in [-1, 1]), got {a.tolist()}")
        return np.clip(a, -1.0, 1.0)

    def step(self, action):
        if self.sim is None:
            from lab.api import LabValueError

            raise LabValueError("env.step", "the environment is closed; make a new one (gymnasium.make)")
        if self._dead:
            raise RuntimeError("the episode has ended (diverged or unstable): call reset()")
        self.policy.set_action(self._action(action))
        sim, prev = self.sim, self.state
        state, info = prev, {}
        self.ledger.work = 0.0
        scene, gui = self._scene, self._gui
        watch, w = sim.watch, sim.world
        unstable = None
        try:
            for _ in range(self.frame_skip):
                pre = state
                state, applied = sim.step(state)  # the runner's step: laws, World.apply (motors), engine, checks
                if scene is not None:
                    scene.update(w.steps, state, applied)
                if gui is not None:
                    self._gui_step(state, applied)
                try:  # the run-time chatter check every lab run has (lab.core.instability)
                    watch.on_step(w.steps - 1, pre, sim._tau, sim._parts, state)
                except Unstable as exc:  # a numerical artefact, not the task's end: truncated, with the cause
                    unstable = exc
                    break
        except Diverged as exc:
            self._dead = True
            info["diverged"] = str(exc)
            return self._last_obs.copy(), -self.divergence_penalty, True, False, info
        self.state = state
        self.steps += 1
        power = self.ledger.work / (state.t - prev.t)
        reward = float(self.reward_fn(self, prev, state, power))
        terminated = bool(self.terminate_fn(self, state)) if self.terminate_fn is not None else False
        truncated = (self.steps >= self.max_steps or unstable is not None) and not terminated
        if unstable is not None:
            self._dead = True
            info["unstable"] = str(unstable)
        self._last_obs = self._observe(state)
        info.update(t=state.t, power=power)
        return self._last_obs.copy(), reward, terminated, truncated, info

    def _gui_step(self, state, applied) -> None:
        from lab.forces import as_wrench
        from lab.core.world import pace

        gui = self._gui
        if gui.closed:
            return
        if gui.update(self.sim.world.steps, state, as_wrench(applied).F_W):
            pace(state.t, self._wall0)

    # ------------------------------------------------------------------ observation
    def _observe(self, s) -> np.ndarray:
        # written into one preallocated row by slices (the same operations, to the bit, as concatenating
        # the pieces; 1-2 µs of ~10 saved a step, measured on a loaded machine)
        TT = self.task_frame.T
        h = self._heading
        J, N = s.q.shape[0], s.p_W.shape[0]
        out = np.empty(2 * J + N + 10)
        out[:J] = s.q
        out[J:2 * J] = s.qd
        y = out[2 * J:2 * J + N]
        np.subtract(s.yaw, h, out=y)
        y += np.pi
        np.remainder(y, 2 * np.pi, out=y)
        y -= np.pi
        k = 2 * J + N
        out[k:k + 3] = TT @ s.com_v_W
        out[k + 3] = s.com_W[2] - self.com0_W[2]
        out[k + 4:k + 7] = TT @ s.w_W[0]
        np.negative(s.R_WB[0][2, :], out=out[k + 7:k + 10])  # gravity's direction (−z_W) in the base's frame
        return out

    # ------------------------------------------------------------------ render
    def render(self):
        """``rgb_array``: an (H, W, 3) uint8 frame of the last state (follow camera, ground grid,
        overlays); ``human``: the window is refreshed every engine step by :meth:`step` (returns None)."""
        if self.render_mode != "rgb_array":
            return None
        from lab.overlay import draw
        from lab.video import FollowCamera, follow_camera

        if self._camera is None:
            width, height = self.render_size
            # eased like the video's camera (0.5 s), one easing step per rendered action; the grid added
            self._camera = follow_camera(self.sim.world, width, height,
                                         alpha=min(1.0, self.control_dt / FollowCamera.ease_tau))
        view = self._camera.view(self.state)
        rgb = self._camera.render(view, shadow=True)
        return draw(rgb, self._scene, view, self._camera.proj)

    def close(self):
        if self._gui is not None:
            self._gui.close()  # disconnects the viewer
            self._gui = self._viewer = None
        elif self._viewer is not None:
            from lab.gui import close_viewer

            close_viewer(self._viewer)
            self._viewer = None
        if self.sim is not None:
            self.sim.close()
            self.sim = None
            self._start = None
