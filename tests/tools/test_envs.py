"""lab.envs: Gymnasium environments over the scenarios: the checker, the runner's physics, seeding,
motors, rewards, action modes, divergence, vector envs and both render modes."""

import dataclasses

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")  # the dev extra installs it (lab[gym])

import lab.envs  # noqa: E402  (registers the ids)
import lab.core.errors  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from lab.api import load_scenario  # noqa: E402
from lab.controllers.base import Controller  # noqa: E402
from lab.envs import LabEnv  # noqa: E402
from lab.core.runner import Simulation  # noqa: E402
from lab.trials.base import Trial  # noqa: E402

# unbounded velocities are unbounded: Gymnasium's checker only remarks on it
pytestmark = pytest.mark.filterwarnings("ignore:.*Box observation space m..imum value is .*infinity")


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(lab.envs.IDS))
def test_registered_and_passes_the_checker(env_id):
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped, skip_render_check=True)  # both render modes: tested below (human under Xvfb)
        obs, info = env.reset(seed=0)
        assert obs in env.observation_space and len(env.unwrapped.obs_names) == obs.size
    finally:
        env.close()
    # also made without importing lab.envs first, by the module:id form
    env = gym.make(f"lab.envs:{env_id}")
    env.close()


def test_old_ids_name_the_new_version():
    with pytest.raises(gym.error.DeprecatedEnv, match="lab/SnakeCreeping-v2"):
        gym.make("lab/SnakeCreeping-" + "v0")


class Playback(Controller):
    """The runner's side of the comparison: replays per-step torques by the step's index."""

    def __init__(self, taus, dt):
        super().__init__(None)
        self.taus, self.step_dt = taus, dt

    def act(self, state):
        return self.taus[int(round(state.t / self.step_dt))]


@pytest.mark.parametrize("name, overrides", [
    ("snake_passive_creeping", {"init.joint_noise": 0.05}),  # Coulomb friction, a seeded initial shape
    ("snake_drag", {}),                                      # + a rope to a payload body (tether law)
    ("eel_forward_turn", {}),                                # hydrodynamics law, in water
    ("tracked_step_climb", {}),                              # engine contacts, cleats law, geared belt
])
@pytest.mark.slow
def test_same_torques_same_states_as_the_runner(name, overrides):
    """The laws act exactly as in `lab run`: one torque sequence through the env and through the
    runner's Simulation.run gives bit-identical states."""
    K = 25
    # the explicit motor lines, as the scenarios run them (the v2 ids' implicit lines: tests/library/test_actuators.py)
    env = LabEnv(name, {**overrides, "sim.duration": 1.0}, motor_lines="explicit")
    sc = env.scenario
    rng = np.random.default_rng(7)
    # a tenth of the stall torque: gentle enough for the runner's replay to stay a fair comparison (full
    # random torques are tested below; without motors, v0's eel at 20 N·m diverged in 20 ms)
    actions = rng.uniform(-0.1, 0.1, (K, env.action_space.shape[0])).astype(np.float32)
    env.reset(seed=3, options={"scenario_seed": sc.seed})
    states = []
    for a in actions:
        env.step(a)
        states.append(env.unwrapped.state)
    taus = np.repeat([env.torques(a) for a in actions], env.frame_skip, axis=0)
    env.close()

    F = env.frame_skip
    run_sc = dataclasses.replace(sc, sim=dataclasses.replace(sc.sim, record_every=1))  # every step: the torques
    if sc.trial is not None and type(sc.trial).setup is Trial.setup:
        # the step-climb trial adds no body; its metrics read the climb controller's log, which a
        # replayed torque sequence has not got
        run_sc = dataclasses.replace(run_sc, trial=None, trial_type="")
    sim = Simulation(run_sc)
    sim.controller = Playback(taus, sc.sim.dt)
    try:
        res = sim.run(duration=K * F * sc.sim.dt)
        motors = sim.world.motors
    finally:
        sim.close()
    assert res.status == "ok"
    s = res.series
    assert len(s["t"]) == K * F + 1
    np.testing.assert_array_equal(s["t"][F::F], [st.t for st in states])
    np.testing.assert_array_equal(s["q"][F::F], [st.q for st in states])
    np.testing.assert_array_equal(s["qd"][F::F], [st.qd for st in states])
    np.testing.assert_array_equal(s["xy"][F::F], [st.p_W[:, :2] for st in states])
    np.testing.assert_array_equal(s["yaw"][F::F], [st.yaw for st in states])
    # the runner records the torques the motors applied: each command through the lines at the speeds
    # the step started from
    applied = [motors.limit(taus[i], s["qd"][i]) for i in range(K * F)]
    np.testing.assert_array_equal(s["tau"][1:], applied)
    assert not np.array_equal(applied, taus) or name == "tracked_step_climb"  # random torques reach the lines


def test_seeded_resets_are_deterministic():
    env = gym.make("lab/SnakeDrag-v1", overrides={"sim.duration": 0.2})  # joint_noise = 0.05: seeds matter
    a = np.full(env.action_space.shape, 0.5, dtype=np.float32)
    o1, i1 = env.reset(seed=11)
    r1 = env.step(a)
    o2, i2 = env.reset(seed=11)
    r2 = env.step(a)
    np.testing.assert_array_equal(o1, o2)
    np.testing.assert_array_equal(r1[0], r2[0])
    assert r1[1] == r2[1] and i1["scenario_seed"] == i2["scenario_seed"]
    o3, _ = env.reset(seed=12)
    assert not np.array_equal(o1, o3)  # another episode seed: another initial shape
    # the scenario's own seed gives lab run's initial shape
    o4, _ = env.reset(options={"scenario_seed": env.unwrapped.scenario.seed})
    sim = Simulation(env.unwrapped.scenario)
    try:
        np.testing.assert_array_equal(o4[: sim.world.n_joints], sim.world.read_state().q)
    finally:
        sim.close()
    # an episode ends at sim.duration: 0.2 s = 20 actions of 10 ms
    env.reset(seed=0)
    flags = [env.step(a)[3] for _ in range(20)]
    assert flags == [False] * 19 + [True]
    env.close()


def _episodes(env_id, rewind, n_episodes=3, steps=30, **kw):
    """Observations and rewards of ``n_episodes`` seeded episodes of random actions, the settled start
    rewound (``rewind`` True: LabEnv's cache) or rebuilt every reset (False), and whether it was rewound."""
    env = gym.make(env_id, **kw)
    u = env.unwrapped
    if rewind is False:
        u._rewindable = lambda: False
        u._start = None  # the start the constructor kept
    elif rewind == "forced":
        u._rewindable = lambda: True
    rng = np.random.default_rng(5)
    out = []
    for e in range(n_episodes):
        out.append(env.reset(seed=e)[0])
        for _ in range(steps):
            obs, r, term, trunc, _ = env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
            out += [obs, [r]]
    rewound = u._start is not None
    env.close()
    return np.concatenate(out), rewound


@pytest.mark.slow
@pytest.mark.parametrize("env_id, overrides", [("lab/SnakeCreeping-v2", {}),
                                               ("lab/SnakeDrag-v2", {"init.joint_noise": 0.0, "init.settle_s": 0.2})])  # + payload, rope
def test_a_rewound_reset_equals_a_rebuilt_one_to_the_bit(env_id, overrides):
    """The settled start is cached (LabEnv._rewindable: restoreState instead of a new World and 0.2 s of
    settle): three seeded episodes of random torques give the same observations and rewards, to the bit,
    as with a new Simulation at every reset."""
    kw = {"overrides": {"sim.duration": 1.0, **overrides}}
    cached, rewound = _episodes(env_id, True, **kw)
    rebuilt, _ = _episodes(env_id, False, **kw)
    assert rewound
    np.testing.assert_array_equal(cached, rebuilt)


@pytest.mark.slow
def test_constrained_robots_and_unsettled_starts_are_rebuilt_not_rewound():
    """The tracked robot's gears and belt hook: Bullet's saveState does not keep the constraints' solver
    state, and a rewound episode moves from a rebuilt one (shown with the cache forced on), so its resets
    rebuild."""
    kw = {"overrides": {"sim.duration": 1.0}, "n_episodes": 2, "steps": 5}
    rebuilt, _ = _episodes("lab/TrackedClimb-v2", False, **kw)
    default, rewound = _episodes("lab/TrackedClimb-v2", True, **kw)
    forced, _ = _episodes("lab/TrackedClimb-v2", "forced", **kw)
    assert not rewound
    np.testing.assert_array_equal(default, rebuilt)
    assert not np.array_equal(forced, rebuilt)
    # an unsettled start (the v1 ids) is rebuilt too: restoreState keeps only the contacts it saved (rewound,
    # Gymnasium's checker found two seeded episodes unequal: test_registered_and_passes_the_checker)
    _, rewound = _episodes("lab/SnakeCreeping-v1", True, **kw)
    assert not rewound


@pytest.mark.slow
def test_a_rewound_reset_after_a_real_divergence_replays_the_episode():
    """NaN in the engine (a diverged episode) does not survive the rewind: the next episode repeats the
    one before the divergence, to the bit."""
    env = gym.make("lab/SnakeCreeping-v2", overrides={"sim.duration": 1.0})
    u = env.unwrapped
    a = np.full(9, 0.4, dtype=np.float32)
    o0, _ = env.reset(seed=0)
    before = [env.step(a)[0] for _ in range(10)]
    env.reset(seed=0)
    w = u.sim.world
    w.client.resetBaseVelocity(w.robot, [float("nan"), 0.0, 0.0], [0.0, 0.0, 0.0])
    _, _, term, _, info = env.step(a)
    assert term and "non-finite" in info["diverged"]
    o1, _ = env.reset(seed=0)
    after = [env.step(a)[0] for _ in range(10)]
    assert u._start is not None
    np.testing.assert_array_equal(o1, o0)
    np.testing.assert_array_equal(after, before)
    env.close()


@pytest.mark.slow
def test_a_body_added_since_the_start_makes_the_reset_rebuild():
    """restoreState refuses a world with more bodies than it saved ("expected 3 multibodies, got 2": the
    rgb_array render's ground grid was one): a reset after a body was added rebuilds instead of failing, and
    a rendering environment never rewinds."""
    env = gym.make("lab/SnakeCreeping-v2", overrides={"sim.duration": 0.2})
    u = env.unwrapped
    env.reset(seed=0)
    assert u._start is not None
    sim = u.sim
    sim.world.add_static_box([0.05, 0.05, 0.05], [2.0, 2.0, 0.05], 0.5)
    obs, _ = env.reset(seed=1)
    assert u.sim is not sim and np.isfinite(obs).all()
    env.close()
    env = gym.make("lab/SnakeCreeping-v2", overrides={"sim.duration": 0.2}, render_mode="rgb_array",
                   render_size=(32, 24))
    for seed in (0, 1):
        env.reset(seed=seed)
        assert env.render().shape == (24, 32, 3)
    assert env.unwrapped._start is None
    env.close()


def test_actions_scale_to_the_motors_stall_torques():
    env = LabEnv("tracked_step_climb", {"sim.duration": 0.5})
    spec = env.scenario.robot
    names = env.joint_names
    assert [names[i] for i in env.act_index] == ["drive_joint", "arm_joint"]  # URDF order
    # the planetary's outputs at the motor's limit (Hu 2013 §1.1): i0 i1 i2 τ_max and i0 i1 τ_max
    np.testing.assert_allclose(env.act_limit, [spec.i0 * spec.i1 * spec.i2 * spec.motor_torque_max,
                                               spec.i0 * spec.i1 * spec.motor_torque_max])
    assert np.isinf(env.no_load).all()  # the scenario's robot: no speed line
    tau = env.torques([-0.5, 2.0])  # clipped to [-1, 1]
    assert tau[names.index("arm_joint")] == env.act_limit[1]
    assert tau[names.index("drive_joint")] == -0.5 * env.act_limit[0]
    assert np.count_nonzero(tau) == 2  # guide wheel, pulleys and belt slabs are not driven
    snake = LabEnv("snake_passive_creeping", {"sim.duration": 0.5})
    np.testing.assert_array_equal(snake.act_limit, np.full(9, snake.scenario.robot.effort))  # stall = effort
    np.testing.assert_array_equal(snake.no_load, np.full(9, snake.scenario.robot.max_joint_speed))
    env.close(), snake.close()


@pytest.mark.slow
def test_driving_the_track_forward_is_rewarded():
    # positive drive torque moves the belt's ground run backwards, so the robot drives forward
    # (lab.robots.tracked); the default reward (forward + up − energy) sees it. The step is moved
    # out of the way: this is about the sign conventions on flat ground.
    env = gym.make("lab/TrackedClimb-v1", overrides={"sim.duration": 0.5, "arena.step_x": 3.0})
    fwd = env.unwrapped.obs_names.index("v_fwd")
    for drive in (1.0, -1.0):
        env.reset(seed=0)
        total, v, p = 0.0, [], []
        for _ in range(50):
            obs, r, term, trunc, info = env.step(np.array([drive, 0.0], dtype=np.float32))
            total += r
            v.append(obs[fwd])
            p.append(info["power"])
        assert not term and trunc
        assert np.sign(np.mean(v)) == np.sign(total) == drive
        # the motor works while it drives (at its no-load speed it gives no torque: a step may cost 0)
        assert min(p) >= 0 and np.mean(p) > 0
        # Table 1's line (the id turns it on): the belt at most at its no-load speed, 3.5 cm/s
        assert abs(np.mean(v[10:])) <= 0.0349 * 1.05
    # standing still costs nothing
    env.reset(seed=0)
    *_, info0 = env.step(np.zeros(2, dtype=np.float32))
    assert info0["power"] == 0.0
    env.close()


def test_custom_reward_and_termination():
    calls = []

    def reward(env, prev, state, power):
        calls.append((prev.t, state.t))
        return -1.0

    env = LabEnv("snake_passive_creeping", {"sim.duration": 0.1}, control_dt=0.02, reward=reward,
                 terminate=lambda env, state: state.t >= 0.06 - 1e-12)
    env.reset(seed=0)
    out = [env.step(np.zeros(9, dtype=np.float32)) for _ in range(3)]
    assert [o[1] for o in out] == [-1.0] * 3 and [o[2] for o in out] == [False, False, True]
    assert calls[0] == pytest.approx((0.0, 0.02))
    env.close()


def test_render_rgb_array():
    """A picture a person can read: the follow camera, the ground grid and the overlays ``--screenshot``
    draws (lab.overlay): the label's white box top left, the head trail in blue, force arrows in red."""
    env = gym.make("lab/SnakeCreeping-v1", render_mode="rgb_array", overrides={"sim.duration": 0.5})
    env.reset(seed=0)
    for k in range(40):  # a travelling wave of torques: the snake moves, friction pushes back
        env.step(np.sin(2 * np.pi * 0.01 * k + 0.7 * np.arange(9)).astype(np.float32))
    img = env.render()
    assert img.shape == (480, 640, 3) and img.dtype == np.uint8
    px = img.astype(int)
    label = px[8:20, 8:120]
    assert (label > 240).all(axis=2).mean() > 0.5  # the label's white box behind the text
    # the grid: dark grey dots on the light grey floor (the robot is orange and red, the arrows red)
    body = px[40:]
    grey = (np.abs(body[..., 0] - body[..., 1]) < 8) & (np.abs(body[..., 1] - body[..., 2]) < 16)
    floor = np.median(body.sum(axis=2)[grey])
    assert (grey & (body.sum(axis=2) < 0.7 * floor)).sum() > 50
    near = lambda rgb: (np.abs(px - rgb).sum(axis=2) < 60).sum()  # noqa: E731
    assert near([26, 89, 230]) > 50  # head trail (lab.overlay.TRAIL_RGB)
    assert near([217, 26, 26]) > 50  # force arrows (lab.overlay.ARROW_RGB)
    env.close()


# ------------------------------------------------------------------------------- motors and action modes
@pytest.mark.slow  # 17–33 s per id on this loaded 2-core machine
@pytest.mark.parametrize("env_id", sorted(i for i, (sc, *_) in lab.envs.IDS.items() if sc is not None))
def test_random_actions_do_not_diverge(env_id):
    """A smaller run of benchmarks/env_random_actions.py: 20 episodes of 0.3 s (v0's blow-ups came at
    0.16–0.71 s, its eel's in every episode) at full random torques: none diverges, and no actuated joint
    runs away from the speed its motor drives it to (the motors cannot push past ω0 and brake a joint
    flung past it; v0's snake reached 10× its 10 rad/s within 10 steps)."""
    env = gym.make(env_id, overrides={"sim.duration": 0.3})
    u = env.unwrapped
    J = len(u.joint_names)
    rng = np.random.default_rng(1)
    worst = 0.0
    try:
        for ep in range(20):
            env.reset(seed=ep)
            done = False
            while not done:
                obs, r, term, trunc, info = env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
                assert "diverged" not in info, (ep, info)
                assert np.isfinite(obs).all() and np.isfinite(r)
                worst = max(worst, float(np.max(np.abs(obs[J:2 * J][u.act_index]) / u.no_load)))
                done = term or trunc
    finally:
        env.close()
    assert worst < 5.0  # measured over 1000 episodes: 1.9 (snakes), 3.1 (eel), see docs/environments.md


def _worst_joint_speed(env, episodes: int) -> float:
    """The largest |q̇_j|/ω0 over ``episodes`` episodes of full random torques (as the test above)."""
    u = env.unwrapped
    J = len(u.joint_names)
    rng = np.random.default_rng(1)
    worst = 0.0
    for ep in range(episodes):
        env.reset(seed=ep)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
            worst = max(worst, float(np.max(np.abs(obs[J:2 * J][u.act_index]) / u.no_load)))
            done = term or trunc
    return worst


@pytest.mark.slow  # ~3 s
def test_explicit_lines_let_coupled_joints_run_away():
    """The fault the v2 ids' implicit motor lines remove: at their 5 ms step, with the explicit lines and the
    one-step cap (v1's motors), the flagship's coupled joints run past 5 ω0 under full random torques (6.9
    measured); each joint's cap holds it alone, not the chain's modes together. The same episodes with the
    implicit lines (the id as registered) stay within 1.6 ω0 (the test above)."""
    env = gym.make("lab/SnakeCreeping-v2", overrides={"sim.duration": 0.3}, motor_lines="explicit")
    try:
        assert _worst_joint_speed(env, 20) > 5.0
    finally:
        env.close()


def test_v1_ids_keep_their_published_step_and_motors():
    """Gymnasium's convention: a behaviour change is a new version. v1 runs its published step with the
    explicit lines; v2 the coarser step with the implicit ones."""
    for name, dt1, dt2 in (("SnakeCreeping", 0.001, 0.005), ("Eel", 0.002, 0.005), ("TrackedClimb", 0.001, 0.002)):
        for version, dt, lines in (("v1", dt1, "explicit"), ("v2", dt2, "implicit")):
            env = gym.make(f"lab/{name}-{version}")
            try:
                u = env.unwrapped
                assert (u.scenario.sim.dt, u.motor_lines, u.sim.world.implicit_motor_lines) == (
                    dt, lines, lines == "implicit")
                assert u.dt == pytest.approx(0.01)  # the same 10-ms action either way
            finally:
                env.close()


def test_an_unstable_step_ends_the_episode_truncated():
    """The run-time chatter check (lab.core.instability) runs in an episode: when it trips, the episode ends
    truncated (a numerical artefact, no penalty) with info["unstable"]; reset() is next. Shown by a policy
    whose torque flips sign every engine step (control_dt = dt), which the check must catch after 50."""
    env = LabEnv("snake_passive_creeping", {"sim.duration": 1.0, "sim.dt": 0.005}, control_dt=0.005)
    env.reset(seed=0)
    a = np.full(9, 0.5, dtype=np.float32)
    for k in range(100):
        obs, r, term, trunc, info = env.step(a if k % 2 else -a)
        if trunc:
            break
    assert trunc and not term and "changed sign" in info["unstable"] and np.isfinite(r)
    assert 49 <= k <= 52
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(a)
    env.reset(seed=1)  # a new episode starts the check afresh
    obs, r, term, trunc, info = env.step(a)
    assert not trunc and "unstable" not in info
    env.close()


def test_a_divergence_ends_the_episode_with_the_penalty():
    class Blow(Exception):
        pass

    env = LabEnv("snake_passive_creeping", {"sim.duration": 0.2}, divergence_penalty=7.0)
    env.reset(seed=0)
    env.step(np.zeros(9, dtype=np.float32))
    last = env._last_obs.copy()
    env.sim.world.check = lambda state, ke: (_ for _ in ()).throw(lab.core.errors.Diverged(state.t, "test"))
    obs, r, term, trunc, info = env.step(np.zeros(9, dtype=np.float32))
    assert (r, term, trunc) == (-7.0, True, False) and "test" in info["diverged"]
    np.testing.assert_array_equal(obs, last)  # the last finite observation
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(9, dtype=np.float32))
    env.close()
    with pytest.raises(ValueError, match="divergence_penalty"):
        LabEnv("snake_passive_creeping", divergence_penalty=-1.0)
    with pytest.raises(ValueError, match="action_mode"):
        LabEnv("snake_passive_creeping", action_mode="velocity")


def test_position_mode_servos_the_joint_angles():
    """Targets a = 0.2 on every joint: q* = 0.2 · joint_limit; the PD servo (k_p = τ_s/0.25 rad = 6
    N·m/rad, k_d = τ_s/ω0) holds the joints there, off by the friction load over k_p: coiling the
    middle joints drags half the snake (~5 links × μ_n m g = 0.3 × 4.9 N at ~0.3 m: ~0.4 N·m) → ~0.07
    rad (measured 0.086 rad at the middle joint, 0.001–0.006 rad at the ends)."""
    env = gym.make("lab/SnakeCreeping-v1", overrides={"sim.duration": 1.0}, action_mode="position")
    u = env.unwrapped
    env.reset(seed=0)
    for _ in range(60):
        obs, *_ = env.step(np.full(9, 0.2, dtype=np.float32))
    q = obs[:9]
    target = 0.2 * u.scenario.robot.joint_limit
    assert np.abs(q - target).max() < 0.1, q
    assert np.abs(q[[0, -1]] - target).max() < 0.02  # the end joints carry almost no load
    assert np.abs(obs[9:18]).max() < 0.05 * u.no_load[0]  # settling (the regularised friction lets it creep)
    np.testing.assert_allclose(u.policy.kp, u.act_limit / 0.25)
    np.testing.assert_allclose(u.policy.kd, u.act_limit / u.no_load)  # below J/h here
    env.close()


@pytest.mark.parametrize("servo", ["implicit_pd", "explicit"])
def test_position_mode_servos_the_tracked_drive_rate(servo):
    """The tracked robot's continuous joints take rate targets a·ω0: the drive servoed at half its no-load
    speed. The implicit servo (default) keeps the motor line's k_d = τ_s/ω0; the explicit one caps it at
    the deadbeat J/h (0.44 instead of 3.6 N·m·s/rad), above which it would chatter."""
    env = gym.make("lab/TrackedClimb-v1", overrides={"sim.duration": 1.0, "arena.step_x": 3.0}, action_mode="position",
                   servo=servo)
    u = env.unwrapped
    env.reset(seed=0)
    i_drive = u.joint_names.index("drive_joint")
    for _ in range(60):
        obs, *_ = env.step(np.array([0.5, 0.0], dtype=np.float32))
    # a pure rate servo under the belt's load holds a little below its target
    assert 0.8 * 0.5 * u.no_load[0] < obs[len(u.joint_names) + i_drive] <= 0.5 * u.no_load[0]
    deadbeat = u.sim.world.motors.inertia[i_drive] / u.sim.world.dt
    if servo == "explicit":
        assert u.policy.kd[0] == pytest.approx(deadbeat)  # J/h
    else:
        assert u.policy.kd[0] == pytest.approx(u.act_limit[0] / u.no_load[0]) and u.policy.kd[0] > 5 * deadbeat
    env.close()


# ------------------------------------------------------------------------------- vector envs
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec(mode):
    """gymnasium.make_vec in both modes: two copies step in lockstep; the same seeds give the same
    first observations as two single envs."""
    envs = gym.make_vec("lab/SnakeCreeping-v1", num_envs=2, vectorization_mode=mode,
                        overrides={"sim.duration": 0.1})
    try:
        obs, info = envs.reset(seed=[3, 4])
        assert obs.shape == (2, envs.single_observation_space.shape[0])
        single = gym.make("lab/SnakeCreeping-v1", overrides={"sim.duration": 0.1})
        for k, s in enumerate((3, 4)):
            np.testing.assert_array_equal(single.reset(seed=s)[0], obs[k])
        single.close()
        a = np.zeros((2, 9), dtype=np.float32)
        a[1] = 0.5
        for _ in range(10):
            obs, rew, term, trunc, info = envs.step(a)
        assert rew.shape == (2,) and trunc.all()  # 0.1 s = 10 actions: both truncated together
        assert not np.array_equal(obs[0], obs[1])
    finally:
        envs.close()


def test_sync_and_async_vector_env_classes():
    fns = [lambda: gym.make("lab/Eel-v1", overrides={"sim.duration": 0.05}) for _ in range(2)]
    for cls in (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv):
        envs = cls(fns)
        try:
            envs.reset(seed=0)
            out = [envs.step(envs.action_space.sample()) for _ in range(5)]
            assert out[-1][3].all() and np.isfinite(out[-1][0]).all()
        finally:
            envs.close()


# ------------------------------------------------------------------------------- the window
@pytest.mark.gui
def test_render_human_under_xvfb(tmp_path):
    """render_mode="human": the PyBullet window mirrors the episode (two episodes in one window)."""
    import subprocess
    import sys
    import textwrap

    from conftest import ROOT, need_tool

    code = textwrap.dedent("""
        import numpy as np, gymnasium as gym, lab.envs
        env = gym.make("lab/SnakeCreeping-v1", render_mode="human", overrides={"sim.duration": 0.1})
        for ep in range(2):
            env.reset(seed=ep)
            done = False
            while not done:
                *_, term, trunc, _ = env.step(env.action_space.sample())
                done = term or trunc
            gui = env.unwrapped._gui
            assert gui is not None and not gui.closed and gui.client.isConnected()
        env.close()
        print("ok")
    """)
    r = subprocess.run([need_tool("xvfb-run"), "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c", code],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
