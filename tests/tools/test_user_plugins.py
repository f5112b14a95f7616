"""A user's own code wherever the lab runs (lab.user_plugins): ``--plugin``, ``plugins = [...]`` in a file,
the ``lab.plugins`` entry point of an installed package; typed tables swapped by an override; errors that
name the plugin, or the override, that is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import lab
from lab import cli
from lab.core import user_plugins
from lab.core.errors import LabError

ROOT = Path(__file__).resolve().parents[2]

# A controller that holds every joint at one angle (PD), so a run shows whether it was the one that acted.
# Its PD is stepped by the lab's servo forms (lab.Controller.pd, "implicit_damping" by default), as a user's
# should be: snake_serpenoid runs at 2 ms, beyond the explicit PD's bound 2μ/k_d = 1.44 ms.
HOLD = """
from dataclasses import dataclass
import lab
from lab.controllers.servo import Servo, servo_field
from lab.core.fields import Validated, num

@dataclass(frozen=True)
class HoldParams(Validated):
    angle: float = num(0.0, ge=-1.5, le=1.5, unit="rad", doc="the angle every joint is held at")
    kp: float = num(2.0, gt=0, le=100, doc="PD angle gain")
    servo: Servo = servo_field()

@lab.register_controller("{name}", params=HoldParams)
class Hold(lab.Controller):
    def act(self, state):
        return self.pd(state, lambda t: (self.params.angle, 0.0), self.params.kp, 0.1)
"""


@pytest.fixture(autouse=True)
def _forget_plugins():
    """Each test's plugins are removed after it: later tests see only the built-ins."""
    from lab.controllers import CONTROLLERS

    before, loaded = set(CONTROLLERS), dict(user_plugins._loaded)
    yield
    for name in set(CONTROLLERS) - before:
        CONTROLLERS.pop(name, None)
    for module in set(user_plugins._loaded) - set(loaded):
        user_plugins._loaded.pop(module, None)
        sys.modules.pop(module, None)


def _plugin(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(HOLD.replace("{name}", name))
    return path


def test_a_type_override_swaps_the_table_and_the_users_controller_drives_the_joints(tmp_path):
    """``controller.type`` from the API replaces the serpenoid's table (alpha, beta … would be unknown keys
    of the user's controller) before ``controller.angle`` applies; the joints end near the held angle, and
    on the opposite side for the opposite angle: the user's controller, with the override's value, acted."""
    user_plugins.load(str(_plugin(tmp_path, "hold_api")))
    ends = {}
    for angle in (0.4, -0.4):
        res = lab.run("snake_serpenoid", {"controller.type": "hold_api", "controller.angle": angle,
                                          "sim.duration": 0.6})
        assert res.status == "ok"
        assert res.scenario.controller_type == "hold_api" and res.scenario.controller.angle == angle
        ends[angle] = res.series["q"][-1]
    assert np.all(ends[0.4] > 0.2) and np.all(ends[-0.4] < -0.2)


def test_a_users_explicit_pd_at_the_shipped_step_ends_unstable_and_the_labs_servo_holds(tmp_path):
    """snake_serpenoid ships at 2 ms. A PD written out by hand (τ = k_p (x − q) − k_d q̇, the explicit form)
    has the bound 2μ/k_d = 1.44 ms on the snake's joints: at 2 ms the run-time watch ends it "unstable" with
    the cause and a step that would hold, never "ok". The same law through lab.Controller.pd (implicit
    damping) bends the joints towards the angle; with servo = "explicit" it is the hand-written law again."""
    user_plugins.load(str(_plugin(tmp_path, "hold_servo")))
    explicit = tmp_path / "hold_explicit.py"
    explicit.write_text(HOLD.replace("{name}", "hold_explicit").replace(
        "return self.pd(state, lambda t: (self.params.angle, 0.0), self.params.kp, 0.1)",
        "return self.saturate(self.params.kp * (self.params.angle - state.q) - 0.1 * state.qd)"))
    user_plugins.load(str(explicit))
    assert lab.load_scenario("snake_serpenoid").sim.dt == 0.002
    cases = {"hold_explicit": {}, "hold_servo": {}, "hold_servo ": {"controller.servo": "explicit"}}
    res = {}
    for label, extra in cases.items():
        res[label] = lab.run("snake_serpenoid", {"controller.type": label.strip(), "controller.angle": 0.3,
                                                 "sim.duration": 1.0, **extra})
    for label in ("hold_explicit", "hold_servo "):
        assert res[label].status == "unstable", (label, res[label].status)
        assert "changed sign" in res[label].error and "dt ≤" in res[label].error, res[label].error
    ok = res["hold_servo"]
    assert ok.status == "ok"
    assert np.all(ok.series["q"][-1] > 0.1) and np.all(ok.series["q"][-1] < 0.32)  # bent towards 0.3 rad against the friction


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["snake_serpenoid", "snake_passive_creeping"])
def test_a_users_position_step_bursting_at_5ms_ends_unstable_not_ok(tmp_path, monkeypatch, scenario):
    """The hold at 0.4 rad started from the straight body (lab.Controller.pd, implicit damping) bursts at 5 ms:
    the chain's lightest mode grows by a factor below −1 per step on the motors' torque–speed lines, which
    the World clips explicitly (a damper τ_s/ω_0 = 0.15 N·m·s/rad, stable only below 2μ/D ≈ 1.2 ms), to
    |q̇| ≈ 60 rad/s in 0.05 s with energy no input booked (docs/benchmarks.md, "The 5-ms burst"). It used to
    end "ok" in another shape; the watch's ledger-burst check ends it "unstable" within 0.1 s with the
    cause and the lines' bound. At 2.5 ms, and at 5 ms with the lines taken at the end of the step
    (EngineOptions.implicit_motor_lines: the cause removed), the same hold is "ok" and bends every joint
    towards 0.4 rad."""
    import dataclasses

    from lab.core.world import World

    user_plugins.load(str(_plugin(tmp_path, "hold_burst")))
    over = {"controller.type": "hold_burst", "controller.angle": 0.4, "sim.duration": 0.6}
    bad = lab.run(scenario, {**over, "sim.dt": 0.005})
    assert bad.status == "unstable", bad.status
    m = bad.metrics
    assert m["unstable_at_s"] < 0.1 and "made by no input" in m["unstable_cause"]
    assert 0.0005 < m["unstable_max_dt_s"] < 0.0025  # the explicit lines' bound at the pose
    good = lab.run(scenario, {**over, "sim.dt": 0.0025})
    assert good.status == "ok" and np.all(good.series["q"][-1] > 0.15)
    monkeypatch.setattr(World, "options", dataclasses.replace(World.options, implicit_motor_lines=True))
    fixed = lab.run(scenario, {**over, "sim.dt": 0.005})
    assert fixed.status == "ok" and np.all(fixed.series["q"][-1] > 0.15)
    assert np.abs(fixed.series["qd"]).max() < 10.0  # no burst (60 rad/s explicit; 4.8 measured)


def test_a_typed_table_swap_keeps_the_same_types_values_and_applies_in_any_order():
    from lab.core.scenario import apply_overrides

    data = {"controller": {"type": "serpenoid", "alpha": 0.7}, "friction": {"mu_n": 0.4}}
    # the other key first, the type second: the swap still comes first
    out = apply_overrides(data, {"controller.kp": 3.0, "controller.type": "passive_creeping"})
    assert out["controller"] == {"type": "passive_creeping", "kp": 3.0}
    assert apply_overrides(data, ["controller.type=serpenoid"])["controller"]["alpha"] == 0.7  # same type: kept
    assert apply_overrides(data, ["friction.type=coulomb"])["friction"]["mu_n"] == 0.4  # coulomb is the default type
    assert apply_overrides({"forces": {"t": {"type": "tether", "k": 1}}}, {"forces.t.type": "x"})["forces"]["t"] == {
        "type": "x"}


def test_a_set_typo_is_blamed_on_set_not_on_the_shipped_file(capsys):
    assert cli.main(["run", "snake_serpenoid", "--set", "controller.alhpa=0.6", "--duration", "0.01"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --set controller.alhpa: unknown key; allowed: alpha"), err
    with pytest.raises(LabError) as e:
        lab.load_scenario("snake_serpenoid", {"sim.dt": -1})
    assert e.value.where == "overrides['sim.dt']"
    # a value the file got wrong is still the file's
    bad = Path(lab.core.scenario.SCENARIO_DIR / "snake_serpenoid.toml")
    with pytest.raises(LabError) as e:
        lab.load_scenario(bad, {"controller.type": "nope"})
    assert e.value.where == "overrides['controller.type']" and "unknown type 'nope'" in e.value.what


def test_plugin_flag_on_the_cli_is_relative_to_the_cwd(tmp_path, monkeypatch, capsys):
    _plugin(tmp_path / "work", "hold_cli")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "snake_serpenoid", "--plugin", "work/hold_cli.py", "--set", "controller.type=hold_cli",
                     "--set", "controller.angle=0.3", "--duration", "0.3", "--no-plots", "--out", "r", "-q"]) == 0
    saved = (tmp_path / "r" / "scenario.toml").read_text()
    assert 'type = "hold_cli"' in saved and "alpha" not in saved
    # before the subcommand too, and an error names the flag and the file it looked for
    assert cli.main(["--plugin", "work/missing.py", "list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --plugin work/missing.py: no such file: ") and str(tmp_path / "work") in err


def test_plugins_in_a_scenario_file_are_relative_to_that_file(tmp_path, monkeypatch):
    """``plugins`` and ``robot.path`` in a file resolve from the file's folder, whatever the cwd."""
    folder = tmp_path / "project"
    _plugin(folder / "ctl", "hold_file")
    (folder / "bot").mkdir()
    (folder / "bot" / "two.urdf").write_text((ROOT / "examples" / "four_link_snake.urdf").read_text())
    (folder / "mine.toml").write_text(textwrap.dedent("""
        plugins = ["ctl/hold_file.py"]
        [robot]
        type = "urdf"
        path = "bot/two.urdf"
        [controller]
        type = "hold_file"
        angle = 0.2
        """))
    monkeypatch.chdir(tmp_path)  # the parent folder: the file's relative paths must not resolve from here
    sc = lab.load_scenario("project/mine.toml")
    assert sc.controller_type == "hold_file"
    assert sc.plugins == (str((folder / "ctl" / "hold_file.py").resolve()),)
    assert Path(sc.robot.path) == (folder / "bot" / "two.urdf").resolve()
    # on the command line, a path is relative to the cwd
    sc2 = lab.load_scenario("project/mine.toml", ["robot.path=project/bot/two.urdf"])
    assert Path(sc2.robot.path) == (folder / "bot" / "two.urdf").resolve()


def test_plugin_errors_name_the_plugin_and_what_failed(tmp_path, capsys):
    bad = tmp_path / "broken.py"
    bad.write_text("import math\n\nx = undefined_name + 1\n")
    assert cli.main(["--plugin", str(bad), "list"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: --plugin {bad}: cannot import: NameError: name 'undefined_name' is not defined "
                   "(at broken.py:3)"), err
    assert cli.main(["list", "--plugin", "no_such_module_xyz"]) == 2
    assert "error: --plugin no_such_module_xyz: no module named 'no_such_module_xyz'" in capsys.readouterr().err
    (tmp_path / "s.toml").write_text('plugins = ["gone.py"]\n[robot]\ntype = "snake"\n[controller]\ntype = "serpenoid"\n')
    with pytest.raises(LabError) as e:
        lab.load_scenario(tmp_path / "s.toml")
    assert e.value.where == f"{tmp_path / 's.toml'}:plugins[0] gone.py" and str(tmp_path / "gone.py") in e.value.what


def test_a_shipped_file_plugin_loads_from_its_source_when_the_worker_cannot_see_the_file(tmp_path):
    """What a Dask worker with no shared file system does before it unpickles a task."""
    path = _plugin(tmp_path, "hold_shipped")
    name = user_plugins.file_module_name(path)
    source = path.read_text()
    path.unlink()
    user_plugins.load_shipped([(name, str(path), source)])
    assert sys.modules[name].Hold.__module__ == name
    assert "hold_shipped" in lab.controllers.CONTROLLERS


@pytest.mark.slow
def test_an_installed_packages_entry_point_joins_the_cli_and_a_sweep(tmp_path):
    """The example package (examples/lab_plugin_example) installed offline into a target folder: with
    that folder on the path, `lab list` shows its controller and `lab sweep` over controller types runs it
    on local Dask workers (separate processes that find the entry point themselves). The standing wave,
    having no phase lag, moves the body less than the serpenoid's travelling wave at the same a and ω."""
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(ROOT / "examples" / "lab_plugin_example")], check=True)
    env = dict(os.environ, PYTHONPATH=f"{target}{os.pathsep}{ROOT}", PYTHONWARNINGS="ignore")
    lab_cmd = [sys.executable, "-m", "lab.cli"]
    listing = subprocess.run([*lab_cmd, "list"], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert "standing_wave" in listing.stdout, listing.stderr
    out = tmp_path / "sweep"
    run = subprocess.run([*lab_cmd, "sweep", str(ROOT / "examples" / "lab_plugin_example" / "sweep.toml"),
                          "--set", "sim.duration=2", "--workers", "2", "--out", str(out)],
                         env=env, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = {json.loads(p.read_text())["controller.type"]: json.loads(p.read_text()) for p in (out / "rows").iterdir()}
    assert rows["standing_wave"]["status"] == "ok" and rows["serpenoid"]["status"] == "ok"
    assert rows["standing_wave"]["com.displacement_m"] < 0.7 * rows["serpenoid"]["com.displacement_m"]


def test_a_suite_files_plugins_are_relative_to_it_and_its_set_errors_are_its_own(tmp_path, monkeypatch):
    from lab.regress.suite import load_suite

    _plugin(tmp_path / "suite" / "ctl", "hold_suite")
    suite = tmp_path / "suite" / "mine.toml"
    suite.write_text('plugins = ["ctl/hold_suite.py"]\n[[run]]\nscenario = "snake_serpenoid"\n'
                     'set = ["controller.type=hold_suite", "controller.angle=0.1"]\n')
    monkeypatch.chdir(tmp_path)
    s = load_suite("suite/mine.toml")
    assert s.entries[0].scenario.controller_type == "hold_suite"
    suite.write_text(suite.read_text().replace("controller.angle=0.1", "controller.angel=0.1"))
    with pytest.raises(LabError) as e:
        load_suite(suite)
    assert e.value.where == f"{suite}:run[0].set controller.angel" and e.value.what.startswith("unknown key")
