"""CLI flags that behave the same everywhere: the run form of robot keys in `lab urdf`, -q/-v/--log-level."""

import logging

from lab.cli import main


def test_urdf_takes_the_run_form_of_robot_keys(capsys):
    assert main(["urdf", "snake", "--set", "robot.n_modules=3"]) == 0
    run_form = capsys.readouterr().out
    assert main(["urdf", "snake", "--set", "n_modules=3"]) == 0
    assert capsys.readouterr().out == run_form and run_form.count("<link ") == 3


def test_log_levels(capsys):
    for argv, level in ((["-q"], logging.ERROR), (["-v"], logging.INFO), (["--log-level", "debug"], logging.DEBUG),
                        ([], logging.WARNING)):
        assert main([*argv, "list"]) == 0
        assert logging.getLogger().level == level
    capsys.readouterr()
    assert main(["-q", "-v", "list"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not allowed with" in err[0]


def test_a_closed_pipe_is_quiet(lab_cmd):
    """`lab urdf … | head -1`: the reader leaves early; no traceback, no error line, exit 141 (SIGPIPE).
    The 100-module URDF (~84 kB) is larger than a pipe's buffer (64 kB), so the writer always meets the
    closed pipe, whatever the timing."""
    import subprocess

    p = subprocess.Popen([*lab_cmd, "urdf", "snake", "--set", "robot.n_modules=100"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()  # like `head -1`
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 141 and err == ""
