import pytest
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


@pytest.mark.slow
def test_a_closed_pipe_is_quiet(lab_cmd):
    """`lab list | head -1` when the reader has left: no traceback, no error line, exit 141 (SIGPIPE).
    The pipe's read end is closed before the lab starts, so every write meets it, whatever the timing."""
    import os
    import subprocess

    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([*lab_cmd, "list"], stdout=w, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(w)
    assert p.returncode == 141 and p.stderr.decode() == ""


def test_log_flags_after_the_subcommand(capsys):
    """`lab list -q` as `lab -q list`; a second, conflicting flag after the subcommand is one error line."""
    for argv, level in ((["list", "-q"], logging.ERROR), (["list", "-v"], logging.INFO),
                        (["list", "--log-level", "debug"], logging.DEBUG), (["list"], logging.WARNING)):
        assert main(argv) == 0
        assert logging.getLogger().level == level, argv
    capsys.readouterr()
    assert main(["-q", "list", "-v"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not allowed with" in err[0]
