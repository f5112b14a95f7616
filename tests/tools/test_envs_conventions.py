"""Gymnasium's conventions on the lab's environments: ``unwrapped.dt``, ``max_episode_steps`` on the
registered spec (TimeLimit truncates; wrappers read it), ``render_fps``, and the checker in full under
Xvfb (issue 36)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import lab.envs  # noqa: E402
from conftest import need_tool  # noqa: E402
from lab.core.scenario import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_each_ids_spec_holds_the_episode_length_of_its_scenario():
    """max_episode_steps · dt is the scenario's sim.duration for every fixed id (10 ms control step);
    lab/Scenario-v1, whose scenario is chosen at make(), gets its length from lab.envs.make."""
    for env_id, (scenario, base, *_) in lab.envs.IDS.items():
        spec = gym.spec(env_id)
        if scenario is None:
            assert spec.max_episode_steps is None
            continue
        sc = load(scenario, base)
        assert spec.max_episode_steps * lab.envs.CONTROL_DT == pytest.approx(sc.sim.duration), env_id
    sc = load("eel_forward_turn")
    env = lab.envs.make("lab/Scenario-v1", scenario="eel_forward_turn")
    try:
        assert env.spec.max_episode_steps * env.unwrapped.dt == pytest.approx(sc.sim.duration)
    finally:
        env.close()


@pytest.mark.slow
def test_dt_is_the_time_one_step_advances_and_timelimit_truncates_at_the_spec():
    env = lab.envs.make("lab/SnakeCreeping-v1", overrides={"sim.duration": 0.06}, control_dt=0.02)
    try:
        u = env.unwrapped
        assert u.dt == pytest.approx(0.02) and u.metadata["render_fps"] * u.dt == pytest.approx(1.0)
        assert env.spec.max_episode_steps == 3  # what a monitor reads through the wrappers
        _, info = env.reset(seed=0)
        times, truncated, n = [info["t"]], False, 0
        while not truncated:
            _, _, terminated, truncated, info = env.step(np.zeros(env.action_space.shape))
            times.append(info["t"])
            n += 1
            assert not terminated
        assert n == 3 and np.allclose(np.diff(times), u.dt)
    finally:
        env.close()
    # TimeLimit itself truncates (not only the env's own count): a limit shorter than the episode
    env = gym.make("lab/SnakeCreeping-v1", overrides={"sim.duration": 0.06}, control_dt=0.02, max_episode_steps=2)
    try:
        env.reset(seed=0)
        assert env.step(np.zeros(env.action_space.shape))[3] is False
        assert env.step(np.zeros(env.action_space.shape))[3] is True
    finally:
        env.close()


@pytest.mark.gui
@pytest.mark.slow
def test_check_env_passes_in_full_under_xvfb(tmp_path):
    """Gymnasium's checker with its render checks (it makes a new env per render mode, "human" opening a
    PyBullet window): needs an X display, so it runs under xvfb-run."""
    xvfb = need_tool("xvfb-run")
    code = ("import warnings; warnings.simplefilter('ignore');"
            "import gymnasium as gym, lab.envs;"
            "from gymnasium.utils.env_checker import check_env;"
            "env = lab.envs.make('lab/SnakeCreeping-v1', overrides={'sim.duration': 0.1});"
            "check_env(env.unwrapped); env.close(); print('checked')")
    r = subprocess.run([xvfb, "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c", code], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env={**__import__("os").environ,
                                                                         "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and "checked" in r.stdout, r.stderr[-2000:]
