"""lab.envs: Gymnasium environments over the scenarios (issue 17, item 3)."""

import dataclasses

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")  # the dev extra installs it (lab[gym])

import lab.envs  # noqa: E402  (registers the ids)
from gymnasium.utils.env_checker import check_env  # noqa: E402
from lab.api import load_scenario  # noqa: E402
from lab.controllers.base import Controller  # noqa: E402
from lab.envs import LabEnv  # noqa: E402
from lab.runner import Simulation  # noqa: E402
from lab.trials.base import Trial  # noqa: E402

# unbounded velocities are unbounded: Gymnasium's checker only remarks on it
pytestmark = pytest.mark.filterwarnings("ignore:.*Box observation space m..imum value is .*infinity")


@pytest.mark.parametrize("env_id", sorted(lab.envs.IDS))
def test_registered_and_passes_the_checker(env_id):
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped)
        obs, info = env.reset(seed=0)
        assert obs in env.observation_space and len(env.unwrapped.obs_names) == obs.size
    finally:
        env.close()
    # also made without importing lab.envs first, by the module:id form
    env = gym.make(f"lab.envs:{env_id}")
    env.close()


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
def test_same_torques_same_states_as_the_runner(name, overrides):
    """The laws act exactly as in `lab run`: one torque sequence through the env and through the
    runner's Simulation.run gives bit-identical states."""
    K = 25
    env = LabEnv(name, {**overrides, "sim.duration": 1.0})
    sc = env.scenario
    rng = np.random.default_rng(7)
    # a tenth of the effort: random full-effort torques drive these light links into their joint limits
    # within a few steps (the eel at 20 N·m diverges in 20 ms; see the README)
    actions = rng.uniform(-0.1, 0.1, (K, env.action_space.shape[0])).astype(np.float32)
    env.reset(seed=3, options={"scenario_seed": sc.seed})
    states = []
    for a in actions:
        env.step(a)
        states.append(env.unwrapped.state)
    taus = np.repeat([env.torques(a) for a in actions], env.frame_skip, axis=0)
    env.close()

    run_sc = dataclasses.replace(sc, sim=dataclasses.replace(sc.sim, record_every=env.frame_skip))
    if sc.trial is not None and type(sc.trial).setup is Trial.setup:
        # the step-climb trial adds no body; its metrics read the climb controller's log, which a
        # replayed torque sequence has not got
        run_sc = dataclasses.replace(run_sc, trial=None, trial_type="")
    sim = Simulation(run_sc)
    sim.controller = Playback(taus, sc.sim.dt)
    try:
        res = sim.run(duration=K * env.frame_skip * sc.sim.dt)
    finally:
        sim.close()
    assert res.status == "ok"
    s = res.series
    assert len(s["t"]) == K + 1
    np.testing.assert_array_equal(s["t"][1:], [st.t for st in states])
    np.testing.assert_array_equal(s["q"][1:], [st.q for st in states])
    np.testing.assert_array_equal(s["qd"][1:], [st.qd for st in states])
    np.testing.assert_array_equal(s["xy"][1:], [st.p_W[:, :2] for st in states])
    np.testing.assert_array_equal(s["yaw"][1:], [st.yaw for st in states])
    np.testing.assert_array_equal(s["tau"][1:], taus[env.frame_skip - 1::env.frame_skip])


def test_seeded_resets_are_deterministic():
    env = gym.make("lab/SnakeDrag-v0", overrides={"sim.duration": 0.2})  # joint_noise = 0.05: seeds matter
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


def test_actions_scale_to_the_effort_limits():
    env = LabEnv("tracked_step_climb", {"sim.duration": 0.5})
    spec = env.scenario.robot
    names = env.joint_names
    assert [names[i] for i in env.act_index] == ["arm_joint", "drive_joint"]
    # the planetary's outputs at the motor's limit (Hu 2013 §1.1): i0 i1 τ_max and i0 i1 i2 τ_max
    np.testing.assert_allclose(env.act_limit, [spec.i0 * spec.i1 * spec.motor_torque_max,
                                               spec.i0 * spec.i1 * spec.i2 * spec.motor_torque_max])
    tau = env.torques([2.0, -0.5])  # clipped to [-1, 1]
    assert tau[names.index("arm_joint")] == env.act_limit[0]
    assert tau[names.index("drive_joint")] == -0.5 * env.act_limit[1]
    assert np.count_nonzero(tau) == 2  # guide wheel, pulleys and belt slabs are not driven
    snake = LabEnv("snake_passive_creeping", {"sim.duration": 0.5})
    np.testing.assert_array_equal(snake.act_limit, np.full(9, snake.scenario.robot.effort))
    env.close(), snake.close()


def test_driving_the_track_forward_is_rewarded():
    # positive drive torque moves the belt's ground run backwards, so the robot drives forward
    # (lab.robots.tracked); the default reward (forward + up − energy) sees it. The step is moved
    # out of the way: this is about the sign conventions on flat ground.
    env = gym.make("lab/TrackedClimb-v0", overrides={"sim.duration": 0.5, "arena.step_x": 3.0})
    fwd = env.unwrapped.obs_names.index("v_fwd")
    for drive in (1.0, -1.0):
        env.reset(seed=0)
        total, v = 0.0, []
        for _ in range(50):
            obs, r, term, trunc, info = env.step(np.array([0.0, drive], dtype=np.float32))
            total += r
            v.append(obs[fwd])
            assert info["power"] > 0
        assert not term and trunc
        assert np.sign(np.mean(v)) == np.sign(total) == drive
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
    env = gym.make("lab/SnakeCreeping-v0", render_mode="rgb_array", overrides={"sim.duration": 0.1})
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (360, 480, 3) and img.dtype == np.uint8
    assert img.std() > 5  # the robot and the floor, not a blank frame
    env.close()
