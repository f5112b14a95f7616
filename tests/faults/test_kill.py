"""A lab command killed (SIGKILL, no chance to clean up) or interrupted (SIGINT) at several moments:
the output folder stays usable, nothing a user owns changes, nothing half-written appears at a
final path, and the same command succeeds afterwards (the dead process's temporaries are removed)."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
from _helpers import LAB, ROOT, S, TINY, env, inproc, killed_in, lab, ok, one_error, temporaries, wait_for
from conftest import snapshot

# Patches that kill the child at a chosen moment of writing a run folder.
IN_BUILD = """
import lab.results
lab.results.timeseries_csv = lambda series: KILL()   # mid-build: scenario.toml written, the rest not
"""
MID_MOVE = """
import os, lab.core.outputs
_real, _n = os.replace, [0]
def _replace(a, b, *k, **kw):
    if ".lab-partial" in str(a):
        _n[0] += 1
        if _n[0] == 3:   # two files moved in, the rest still in the temporary
            KILL()
    return _real(a, b, *k, **kw)
lab.core.outputs.os.replace = _replace
"""


def run_args(out, *extra):
    return ["run", S, *TINY, "--no-plots", "--out", out, *extra]


@pytest.mark.slow
def test_sigkill_while_building_into_an_existing_empty_folder(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "mine.txt").write_text("the user's")
    res = killed_in(IN_BUILD, *run_args(out))
    assert res.returncode == -signal.SIGKILL
    assert temporaries(out)  # the dead process's private temporary is there ...
    user = {k: v for k, v in snapshot(tmp_path).items() if k == "mine.txt"}
    ok(inproc(capsys, *run_args(out)))  # ... and the folder is not refused: no --overwrite needed, it held no output
    assert temporaries(tmp_path) == []  # ... and is removed by the next run
    assert {k: v for k, v in snapshot(tmp_path).items() if k == "mine.txt"} == user
    ok(inproc(capsys, *run_args(out, "--overwrite")))


@pytest.mark.slow
def test_sigkill_while_building_a_new_folder_leaves_a_temporary_that_the_next_run_removes(tmp_path, capsys):
    out = tmp_path / "out"
    res = killed_in(IN_BUILD, *run_args(out))
    assert res.returncode == -signal.SIGKILL
    assert not out.exists()  # nothing at the final path
    assert temporaries(tmp_path)  # the temporary beside it, named by the dead pid
    ok(inproc(capsys, *run_args(out)))
    assert temporaries(tmp_path) == []
    assert (out / "metrics.json").is_file()


@pytest.mark.slow
def test_sigkill_while_moving_files_into_a_previous_run_keeps_the_folder_usable(tmp_path, capsys):
    out = tmp_path / "out"
    ok(inproc(capsys, *run_args(out)))
    (out / "notes.txt").write_text("the user's own file")
    res = killed_in(MID_MOVE, *run_args(out, "--overwrite"))
    assert res.returncode == -signal.SIGKILL
    ok(inproc(capsys, *run_args(out, "--overwrite")))
    assert (out / "notes.txt").read_text() == "the user's own file"
    assert temporaries(tmp_path) == []
    marker = (out / ".lab-run").read_text()
    assert "notes.txt" not in marker and "metrics.json" in marker


@pytest.mark.slow
def test_sigkill_during_regress_record_then_record_again(tmp_path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text('name = "s"\n[[run]]\nscenario = "snake_serpenoid"\nduration = 0.1\n')
    code = """
import lab.core.outputs
_real = lab.core.outputs._write_marker
def _marker(folder, kind, files, extra=None):
    if kind == "regress":
        KILL()
    return _real(folder, kind, files, extra)
lab.core.outputs._write_marker = _marker
"""
    out = tmp_path / "base"
    res = killed_in(code, "regress", "record", suite, "--out", out)
    assert res.returncode == -signal.SIGKILL and not out.exists()
    ok(inproc(capsys, "regress", "record", suite, "--out", out))
    assert temporaries(tmp_path) == [] and (out / "baseline.json").is_file()


@pytest.mark.slow
def test_sigkill_mid_video_leaves_no_video_and_the_next_recording_works(tmp_path, capsys):
    code = """
import lab.video
_real = lab.video.VideoWriter.capture
def _capture(self, state):
    if self.frames == 3:
        KILL()
    return _real(self, state)
lab.video.VideoWriter.capture = _capture
"""
    video, out = tmp_path / "v.mp4", tmp_path / "out"
    args = ["run", S, "--set", "sim.duration=0.5", "--no-plots", "--out", out, "--video", video]
    res = killed_in(code, *args)
    assert res.returncode == -signal.SIGKILL
    assert not video.exists() and not out.exists() and temporaries(tmp_path)
    ok(inproc(capsys, *args))
    assert video.stat().st_size > 0 and temporaries(tmp_path) == []


@pytest.mark.slow
def test_sigint_during_an_mp4_run_publishes_no_video(tmp_path, capsys):
    video, out = tmp_path / "v.mp4", tmp_path / "out"
    args = ["run", S, "--set", "sim.duration=3", "--no-plots", "--out", out, "--video", video]
    p = subprocess.Popen([*LAB, *map(str, args)], cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: any(n.startswith(".v.mp4.lab-tmp.") for n in os.listdir(tmp_path)))
        assert wait_for(lambda: any(os.path.getsize(tmp_path / n) > 0 for n in os.listdir(tmp_path)
                                    if n.startswith(".v.mp4.lab-tmp.")), timeout=60)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    res = subprocess.CompletedProcess(args, p.returncode, "", err)
    assert one_error(res, 130) == "error: interrupted"
    assert not video.exists() and not out.exists() and temporaries(tmp_path) == []
    ok(inproc(capsys, "run", S, "--set", "sim.duration=0.3", "--no-plots", "--out", out, "--video", video))
    assert video.exists()
