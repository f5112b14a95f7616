"""One rule for paths in sweep files (every path relative to the file, the command line's to the cwd) and
errors that say where a value came from: the sweep's [set], an axis, --set, or the base scenario."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lab.core.errors import LabError
from lab.sweep.definition import expand, load_sweep, parse_set, validate_runs

ROOT = Path(__file__).resolve().parents[2]


def _project(tmp_path: Path) -> Path:
    """project/ with a base scenario beside a robot file in bot/, and a sweep in sweeps/."""
    (tmp_path / "project" / "bot").mkdir(parents=True)
    (tmp_path / "project" / "sweeps").mkdir()
    (tmp_path / "project" / "bot" / "four.urdf").write_text((ROOT / "examples" / "four_link_snake.urdf").read_text())
    (tmp_path / "project" / "base.toml").write_text(textwrap.dedent("""
        [robot]
        type = "urdf"
        path = "bot/four.urdf"
        [controller]
        type = "serpenoid"
        """))
    return tmp_path / "project"


def test_paths_in_a_sweep_file_are_relative_to_it(tmp_path, monkeypatch):
    project = _project(tmp_path)
    (project / "sweeps" / "s.toml").write_text(textwrap.dedent("""
        base = "../base.toml"
        [set]
        "robot.path" = "../bot/four.urdf"
        [[axis]]
        key = "controller.alpha"
        values = [0.3, 0.5]
        """))
    monkeypatch.chdir(tmp_path)  # neither the sweep's nor the base's folder
    sweep = load_sweep("project/sweeps/s.toml")
    scenarios = validate_runs(sweep, expand(sweep), "s.toml")
    want = (project / "bot" / "four.urdf").resolve()
    assert all(Path(sc.robot.path) == want for sc in scenarios)
    assert Path(sweep.fixed["robot.path"]) == want  # the resolved sweep.toml re-loads from anywhere
    # on the command line, relative to the cwd
    assert Path(parse_set(["robot.path=project/bot/four.urdf"])["robot.path"]) == want


def test_a_sweep_error_names_where_the_bad_value_came_from(tmp_path):
    project = _project(tmp_path)
    sweep_file = project / "sweeps" / "s.toml"
    sweep_file.write_text('base = "../base.toml"\n[set]\n"controller.kp" = -1\n'
                          '[[axis]]\nkey = "controller.alpah"\nvalues = [0.3]\n')
    sweep = load_sweep(sweep_file)
    with pytest.raises(LabError) as e:
        validate_runs(sweep, expand(sweep), str(sweep_file))
    assert e.value.what.startswith(f"{sweep_file}:axis[0] controller.alpah: unknown key"), e.value.what
    sweep_file.write_text('base = "../base.toml"\n[set]\n"controller.kp" = -1\n')
    sweep = load_sweep(sweep_file)
    with pytest.raises(LabError) as e:
        validate_runs(sweep, expand(sweep), str(sweep_file))
    assert e.value.what.startswith(f"{sweep_file}:set.controller.kp: must be in"), e.value.what
    sweep_file.write_text('base = "../base.toml"\n')
    sweep = load_sweep(sweep_file, parse_set(["controller.kd=-2"]))
    with pytest.raises(LabError) as e:
        validate_runs(sweep, expand(sweep), str(sweep_file))
    assert e.value.what.startswith("--set controller.kd: must be in"), e.value.what
    # a value the base file got wrong is the base file's
    (project / "base.toml").write_text((project / "base.toml").read_text() + "omega = 1000\n")
    sweep_file.write_text('base = "../base.toml"\n')
    sweep = load_sweep(sweep_file)
    with pytest.raises(LabError) as e:
        validate_runs(sweep, expand(sweep), str(sweep_file))
    assert e.value.what.startswith(f"{(project / 'base.toml').resolve()}:controller.omega: must be in"), e.value.what
