"""One registry style (lab.core.registry): lookup, errors, ordering, the public decorators, the URDF file robot."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest
from conftest import ROOT

import lab
from lab.core.registry import Registry, UnknownName


def test_unknown_name_lists_the_known_ones():
    from lab.controllers import CONTROLLERS

    with pytest.raises(UnknownName) as exc:
        CONTROLLERS["serpentine"]
    assert str(exc.value).startswith("unknown controller 'serpentine'; known: passive_creeping, serpenoid,")
    assert isinstance(exc.value, KeyError)  # `name in registry` / dict-style callers keep working


def test_a_name_taken_by_another_module_is_refused_and_the_same_module_replaces():
    reg: Registry[object] = Registry("gizmo")
    reg.add("a", 1, origin="mod_one")
    with pytest.raises(ValueError, match="gizmo 'a' is already registered by mod_one"):
        reg.add("a", 2, origin="mod_two")
    reg.add("a", 3, origin="mod_one")  # a re-run of the same module
    assert reg["a"] == 3 and list(reg) == ["a"]


def test_builtins_come_first_in_plugin_order_then_user_entries():
    from lab.forces import FORCES

    assert list(FORCES)[:3] == ["tether", "hydrodynamics", "cleats"]

    @lab.register_force("zz_test_push")
    @dataclass(frozen=True)
    class Push:
        def __call__(self, state, t):
            return 0.0 * state.v_W

    try:
        assert list(FORCES)[-1] == "zz_test_push" and FORCES["zz_test_push"] is Push
    finally:
        FORCES.pop("zz_test_push")


def test_importing_a_registry_package_imports_no_plugin():
    """Importing lab.checks imports no paper; lab.controllers no controller; the registry does on lookup."""
    code = ("import sys, lab.checks, lab.controllers, lab.report\n"
            "mods = [m for m in sys.modules if m.startswith(('lab.papers.', 'lab.controllers.serpenoid'))]\n"
            "assert not mods, mods\n"
            "from lab.checks import CHECKS\n"
            "'energy_balance' in CHECKS\n"
            "assert 'lab.papers.wang2011_creeping.checks' in sys.modules\n"
            "assert 'lab.papers.wang2011_creeping.report' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_register_controller_and_robot_refuse_what_is_not_one():
    with pytest.raises(TypeError, match="is not a lab.controllers.base.Controller"):
        lab.register_controller("zz_bad", params=object)(object)
    with pytest.raises(TypeError, match="lacks to_urdf, link_length, effort, rest_height"):
        lab.register_robot("zz_bad")(type("Nothing", (), {}))


def test_register_robot_from_user_code_loads_and_runs(tmp_path):
    """A user robot spec (here: the lab's snake with three modules, renamed) joins scenarios by type."""
    from lab.robots import ROBOTS, SnakeSpec

    @lab.register_robot("zz_short_snake")
    @dataclass(frozen=True)
    class ShortSnake(SnakeSpec):
        pass

    try:
        sc = lab.load_scenario("snake_serpenoid", {"robot.type": "zz_short_snake", "robot.n_modules": 3,
                                                   "sim.duration": 0.05})
        assert type(sc.robot) is ShortSnake
        with lab.Sim(sc) as sim:
            assert sim.n_joints == 2
            sim.step(10)
    finally:
        ROBOTS.pop("zz_short_snake")


def test_urdf_robot_reads_the_files_joint_limits(tmp_path):
    from lab.robots.urdf_file import UrdfFileSpec

    spec = UrdfFileSpec(path=str(ROOT / "examples" / "four_link_snake.urdf"))
    assert [(n, e) for n, _, e in spec.joint_limits()] == [("yaw_0", 0.6), ("yaw_1", 0.9), ("yaw_2", 1.2)]
    assert spec.effort == 0.6
    default = UrdfFileSpec()  # the lab's own snake file: its 9 joints at 1.5 N·m
    assert default.effort == 1.5 and len(default.joint_limits()) == 9


def test_urdf_robot_bad_files_are_one_line_errors(tmp_path, capsys):
    from lab.cli import main

    no_limit = tmp_path / "no_limit.urdf"
    inertial = ('<inertial><mass value="1"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/>'
                '</inertial>')
    no_limit.write_text(f'<robot name="r"><link name="a">{inertial}</link><link name="b">{inertial}</link>'
                        '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint></robot>')
    cases = [(str(tmp_path / "missing.urdf"), "robot.path: must be an existing URDF file, got"),
             (str(no_limit), "no_limit.urdf:1: <joint name='j'>: is continuous but has no positive <limit effort=…>")]
    for path, message in cases:
        code = main(["run", str(ROOT / "examples" / "user_robot.toml"), "--set", f"robot.path={path}",
                     "--out", str(tmp_path / "o")])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1, err
        assert message in err[0]
