"""The Python API (lab.run, lab.Sim, lab.load_scenario, Result): the same runs as the CLI, with
results as DataFrames (issue 17, item 2)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import lab
from lab.core.errors import LabError


def test_import_lab_stays_light():
    code = ("import sys, lab; heavy = [m for m in ('pybullet', 'pandas', 'lab.api', 'lab.core.runner', 'numpy') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert {"run", "Sim", "Result", "load_scenario", "register_force"} <= set(dir(lab))
    with pytest.raises(AttributeError):
        lab.no_such_thing


@pytest.mark.slow
def test_run_writes_what_the_cli_writes(tmp_path, lab_cmd):
    # the same scenario and seed from Python and from `lab run` give byte-identical results
    res = lab.run("snake_serpenoid", {"sim.duration": 0.5}, out=tmp_path / "py")
    subprocess.run([*lab_cmd, "run", "snake_serpenoid", "--set", "sim.duration=0.5", "--out", str(tmp_path / "cli")],
                   check=True, capture_output=True, cwd=tmp_path)
    for name in ("metrics.json", "timeseries.csv", "scenario.toml"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert res.status == "ok" and res.metrics["steps"] == round(0.5 / res.scenario.sim.dt)
    # the DataFrame is timeseries.csv (which prints 9 significant digits)
    df = res.timeseries
    csv = pd.read_csv(tmp_path / "cli" / "timeseries.csv")
    assert list(df.columns) == list(csv.columns)
    np.testing.assert_allclose(df.to_numpy(), csv.to_numpy(), rtol=1e-8, atol=1e-12)


def test_overrides_as_dict_or_strings_and_on_a_loaded_scenario():
    a = lab.load_scenario("snake_passive_creeping", {"friction.mu_n": 0.5, "robot.n_modules": 8})
    b = lab.load_scenario("snake_passive_creeping", ["friction.mu_n=0.5", "robot.n_modules=8"])
    c = lab.load_scenario(lab.load_scenario("snake_passive_creeping"), {"friction.mu_n": 0.5, "robot.n_modules": 8})
    assert a == b == c
    assert a.friction.mu_n == 0.5 and a.robot.n_modules == 8
    with pytest.raises(LabError, match="friction.mu_n"):
        lab.load_scenario("snake_passive_creeping", {"friction.mu_n": -1})
    # on a loaded scenario too, the bad value is the override's, not the scenario's
    with pytest.raises(LabError) as bad:
        lab.load_scenario(a, {"friction.mu_n": -1})
    assert str(bad.value).startswith("overrides['friction.mu_n']: ")
    assert "snake_passive_creeping" in lab.scenarios()


def test_stepping_is_the_run():
    # Sim.step with the scenario's controller follows the very states lab.run records
    n = 200
    over = {"sim.duration": n * 0.001, "sim.record_every": 1, "sim.dt": 0.001}  # n steps of 1 ms
    res = lab.run("snake_serpenoid", over)
    with lab.Sim("snake_serpenoid", over) as sim:
        for _ in range(n // 2):
            sim.step()
        state = sim.step(n // 2)
        df = sim.timeseries()
    assert state.t == pytest.approx(n * 0.001)
    np.testing.assert_array_equal(state.q, res.series["q"][-1])
    np.testing.assert_array_equal(state.p_W[:, :2], res.series["xy"][-1])
    pd.testing.assert_frame_equal(df, res.timeseries)


def test_step_with_given_torques():
    # at 1 ms: five 5-ms steps spin the joint up to where its motor's speed line cuts the torque
    with lab.Sim("snake_passive_creeping", {"sim.record_every": 1, "sim.dt": 0.001}) as sim:
        J = sim.n_joints
        tau = np.zeros(J)
        tau[J // 2] = 0.2
        s0 = sim.state
        s1 = sim.step(5, torques=tau)
        np.testing.assert_array_equal(sim.timeseries()[[f"tau_{j}" for j in range(J)]].to_numpy()[1:],
                                      np.tile(tau, (5, 1)))
        # from rest, q̈ = M⁻¹τ and (M⁻¹)_jj > 0: a torque on one joint alone opens that joint its way
        assert s1.q[J // 2] - s0.q[J // 2] > 0
        with pytest.raises(ValueError, match="torques"):
            sim.step(torques=[0.0])
        with pytest.raises(RuntimeError):
            sim.run()


@pytest.mark.slow
def test_api_errors_speak_python(tmp_path):
    """The Python API names its arguments (out=, overwrite=True, overrides[...]), never the CLI's flags."""
    import lab
    from lab.core.errors import LabError

    res = lab.run("snake_serpenoid", duration=0.05)
    res.save(tmp_path / "r")
    with pytest.raises(LabError) as e:
        res.save(tmp_path / "r")
    assert "overwrite=True" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(LabError) as e:
        lab.load_scenario("snake_serpenoid", ["robot.n_modules"])
    assert "overrides['robot.n_modules']" in str(e.value) and "--set" not in str(e.value)
    with pytest.raises(LabError) as e:
        lab.load_scenario("snake_serpenoid", {"robot..x": 1})
    assert "overrides['robot..x']" in str(e.value)
