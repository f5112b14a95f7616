"""examples/*.py run as a user runs them (a subprocess, another working folder, short durations)
and make what they promise (issue 17, item 2)."""

import csv
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from lab import Sim as lab_sim, load_scenario as lab_load

from conftest import ROOT

EXAMPLES = ROOT / "examples"


def run_example(name: str, out, cwd, duration: float) -> str:
    proc = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--out", str(out), "--duration",
                           str(duration)], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def looks_like_a_figure(png) -> None:
    img = Image.open(png).convert("L")
    w, h = img.size
    assert w > 300 and h > 200
    lo, hi = img.getextrema()
    assert hi - lo > 100  # something drawn on the white background, not a blank canvas


def test_every_example_is_tested():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == {"run_and_plot", "parameter_loop", "custom_force",
                                                       "user_controller", "user_robot"}


@pytest.mark.slow
def test_run_and_plot(tmp_path):
    out = tmp_path / "plot"
    stdout = run_example("run_and_plot", out, tmp_path, 1.0)
    assert stdout.startswith("ok:")
    looks_like_a_figure(out / "snake_passive_creeping.png")


@pytest.mark.slow
def test_parameter_loop(tmp_path):
    out = tmp_path / "loop"
    run_example("parameter_loop", out, tmp_path, 1.0)
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [float(r["mu_n"]) for r in rows] == [0.2, 0.3, 0.5]
    assert all(r["status"] == "ok" for r in rows)
    # each row is its own run: the lateral friction changed what the snake did
    assert len({r["kinetic_mean_J"] for r in rows}) == 3
    looks_like_a_figure(out / "speed_vs_mu_n.png")


@pytest.mark.slow
def test_custom_force_law_from_user_code(tmp_path):
    out = tmp_path / "wind"
    duration = 1.0
    run_example("custom_force", out, tmp_path, duration)
    rows = {r["run"]: r for r in csv.DictReader((out / "wind.csv").open())}
    calm, windy = float(rows["calm"]["com_dx_m"]), float(rows["windy"]["com_dx_m"])
    # The wind (1 m/s along the snake's axis, c = 0.5 N·s/m per 0.5 kg link) beats the tangential
    # friction: the snake drifts downwind, but no further than it would with no friction at all,
    # x(t) = w (t − τ (1 − e^{−t/τ})), τ = m/c (every link starts at rest and sees the same drag).
    tau = 0.5 / 0.5
    frictionless = 1.0 * (duration - tau * (1.0 - math.exp(-duration / tau)))
    assert calm < windy < frictionless
    assert abs(calm) < 0.1 * windy
    # the wind put energy in: the force laws' net work is negative dissipation, booked by the ledger
    assert float(rows["windy"]["dissipated_J"]) < 0 < float(rows["calm"]["dissipated_J"])
    # the law is recorded in the run's resolved scenario, so the run folder says what pushed it
    assert 'type = "wind"' in (out / "windy" / "scenario.toml").read_text()
    assert json.loads((out / "windy" / "metrics.json").read_text())["status"] == "ok"


@pytest.mark.slow
def test_user_controller_registered_from_user_code(tmp_path):
    out = tmp_path / "gait"
    run_example("user_controller", out, tmp_path, 2.0)
    rows = {r["run"]: r for r in csv.DictReader((out / "gait.csv").open())}
    assert all(r["status"] == "ok" for r in rows.values())
    # the wave running head → tail (β > 0) drives the snake towards its head (+x), the reversed wave
    # the other way: the registered controller, not a default, drove these runs
    assert float(rows["forward"]["com_dx_m"]) > 0.05
    assert float(rows["backward"]["com_dx_m"]) < -0.01
    text = (out / "forward" / "scenario.toml").read_text()
    assert 'type = "growing_wave"' in text and "beta = 0.698" in text


def test_user_controller_gets_validation_panel_keys_and_overrides(tmp_path):
    """What a built-in gets: range checks on its fields, --set overrides (sweeps), GUI panel keys (tunables)."""
    import runpy

    from lab.controllers import CONTROLLERS
    from lab.core.errors import LabError

    ns = runpy.run_path(str(EXAMPLES / "user_controller.py"), run_name="user_controller")
    try:  # registered in this process: removed after, so later tests see only the built-ins
        assert CONTROLLERS["growing_wave"].cls is ns["GrowingWave"]
        with lab_sim(EXAMPLES / "user_gait.toml", {"controller.alpha": 0.3}) as sim:
            assert sim.controller.params.alpha == 0.3
            assert set(sim.controller.tunables()) == {"alpha", "omega", "beta"}
            q0 = sim.state.q.copy()
            state = sim.step(200)
            assert np.abs(state.q - q0).max() > 0.01  # the gait moved the joints
        # the override's value, so the error names the override (not the file)
        with pytest.raises(LabError, match=r"overrides\['controller\.alpha'\]: must be in \[0, pi/2\] rad, got 3\.0"):
            lab_load(EXAMPLES / "user_gait.toml", {"controller.alpha": 3.0})
    finally:
        CONTROLLERS.pop("growing_wave", None)


@pytest.mark.slow
def test_user_robot_from_a_urdf_file(tmp_path):
    out = tmp_path / "robot"
    run_example("user_robot", out, tmp_path, 2.0)
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "ok"
    # the limits are the file's, read back from the loaded body, in the joints' order
    assert s["joint_names"] == ["yaw_0", "yaw_1", "yaw_2"]
    assert s["joint_effort_Nm"] == [0.6, 0.9, 1.2]
    # the controllers clip at the smallest limit: no joint driven past its own, and the clip was reached
    assert s["controller_effort_Nm"] == 0.6
    assert max(s["max_abs_torque_Nm"]) == pytest.approx(0.6, abs=1e-12)
    assert s["total_mass_kg"] == pytest.approx(4 * 0.3)  # the file's masses
    assert s["com_dx_m"] > 0.01  # the serpenoid gait drove it forward, towards its head
    assert 'type = "urdf"' in (out / "run" / "scenario.toml").read_text()
