"""Bad input never gives a traceback: one line `error: <where>: <what>`, exit 2, nothing written."""

import subprocess

import pytest
from conftest import ROOT

from lab.cli import main

BAD_RUNS = [
    (["run", "no_such_scenario"], "no such scenario"),
    (["run", "snake_passive_creeping", "--set", "robot.tail_fin=1"], "robot.tail_fin: unknown key"),
    (["run", "snake_passive_creeping", "--set", "robot.n_modules=1"], "robot.n_modules: must be an integer from 2"),
    (["run", "snake_passive_creeping", "--set", "robot.n_modules=2.5"], "robot.n_modules: must be an integer"),
    (["run", "snake_passive_creeping", "--set", "friction.mu_n=-0.1"], "friction.mu_n: must be in [0, 5]"),
    (["run", "snake_passive_creeping", "--set", "friction.mu_n=abc"], "friction.mu_n: must be a number"),
    (["run", "snake_passive_creeping", "--set", "friction.mu_n=true"], "friction.mu_n: must be a number"),
    (["run", "snake_passive_creeping", "--set", "sim.dt=0.01"], "sim.dt: 0.01 s is too large"),
    (["run", "snake_passive_creeping", "--set", "sim.dt=0"], "sim.dt: must be in"),
    (["run", "snake_passive_creeping", "--set", "controller.type=pid"], "controller.type: unknown type 'pid'"),
    (["run", "snake_passive_creeping", "--set", "friction.type=sticky"], "friction.type: unknown type"),
    (["run", "snake_passive_creeping", "--set", "friction.mu_n"], "expected KEY=VALUE"),
    (["run", "snake_passive_creeping", "--set", "seed=-3"], "seed: must be an integer"),
    (["run", "snake_passive_creeping", "--set", "controller.E_ref=1000"], "controller.E_ref: must be in [0, 100]"),
    (["run", "snake_passive_creeping", "--set", "sim.dt.x=1"], "sim.dt is not a table"),
    (["run", "snake_passive_creeping", "--set", "init.position=[1.0]"], "init.position: must be two numbers"),
    (["run", "snake_passive_creeping", "--set", "init.position=[1, \"a\"]"], "init.position: must be a list of numbers"),
    (["run", "snake_passive_creeping", "--duration", "-1"], "sim.duration: must be in (0, 1e5]"),
    (["run", "snake_passive_creeping", "--duration", "abc"], "invalid float value"),
    (["run", "snake_passive_creeping", "--video", "movie.avi"], "--video: must end in .mp4 or .gif"),
    (["run", "snake_passive_creeping", "--set", "friction.normal_load=magic"], "friction.normal_load: must be one of"),
    (["run", "snake_passive_creeping", "--set", "controller.phi_t=nan"], "controller.phi_t: must be a finite number"),
    (["check", "no_such_check"], "unknown check 'no_such_check'"),
    (["urdf", "octopus"], "unknown robot 'octopus'"),
    (["urdf", "snake", "--set", "n_modules=0"], "n_modules: must be an integer from 2"),
    (["frobnicate"], "invalid choice"),
]


@pytest.mark.parametrize("argv,expected", BAD_RUNS, ids=[" ".join(a[0][1:])[:50] for a in BAD_RUNS])
def test_bad_input_one_line_exit_2_nothing_written(argv, expected, tmp_path, capsys):
    out = tmp_path / "out"
    code = main([*argv, "--out", str(out)] if argv[0] in ("run", "check") else argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1, err
    assert err[0].startswith("error: ") and expected in err[0], err[0]
    assert not out.exists()


def test_bad_scenario_files(tmp_path, capsys):
    cases = {
        "broken.toml": ("name = 'x'\n[robot\n", "not valid TOML"),
        "unknown_top.toml": ("name = 'x'\nwings = 2\n[robot]\ntype='snake'\n[controller]\ntype='serpenoid'\n",
                             "wings: unknown key"),
        "no_robot.toml": ("name = 'x'\n[controller]\ntype='serpenoid'\n", "missing section [robot]"),
        "bad_name.toml": ("name = 'a b'\n[robot]\ntype='snake'\n[controller]\ntype='serpenoid'\n", "name: must be"),
    }
    for fname, (text, expected) in cases.items():
        p = tmp_path / fname
        p.write_text(text)
        code = main(["run", str(p), "--out", str(tmp_path / "o")])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and expected in err[0], (fname, err)
        assert str(p) in err[0]  # the message names the file
    assert not (tmp_path / "o").exists()


def test_subprocess_has_no_traceback_and_clean_stderr(lab_cmd, tmp_path):
    res = subprocess.run([*lab_cmd, "run", "snake_passive_creeping", "--set", "robot.n_modules=0",
                          "--out", str(tmp_path / "o")], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stdout == ""
