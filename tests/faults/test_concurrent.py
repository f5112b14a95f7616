"""Two lab processes meeting the same output: two ``--overwrite`` runs into one folder take turns
(both succeed, the folder is whole and usable); a second process on a sweep that is running is
refused at once, naming the first one's pid; a report likewise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from _helpers import LAB, ROOT, S, TINY, env, inproc, ok, one_error, temporaries, the_error, wait_for
from conftest import snapshot

HOLD = """
import sys, time
from lab.core.writes import lock
with lock(sys.argv[1], "test"):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold_lock(folder, seconds=60.0) -> subprocess.Popen:
    """Another process holding ``folder``'s lock (as a running sweep or report does)."""
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(folder), str(seconds)], cwd=ROOT, env=env(),
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


@pytest.mark.slow
def test_two_overwrite_runs_into_one_folder_both_succeed(tmp_path, capsys):
    out = tmp_path / "out"
    ok(inproc(capsys, "run", S, *TINY, "--out", out))
    (out / "mine.txt").write_text("the user's")
    args = [*LAB, "run", S, "--set", "sim.duration=0.1", "--out", str(out), "--overwrite"]
    # one with plots, one without: whichever publishes last, the marker must list exactly its files
    procs = [subprocess.Popen(a, cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for a in (args, [*args, "--no-plots"])]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for code, err in results:
        assert code == 0 and "Traceback" not in err, err
    marker = json.loads((out / ".lab-run").read_text())
    on_disk = sorted(n for n in os.listdir(out) if not n.startswith(".") and n != "mine.txt")
    assert marker["files"] == on_disk  # the marker lists exactly the lab's files: the folder is whole
    assert (out / "mine.txt").read_text() == "the user's"
    assert temporaries(tmp_path) == [] and not (out / ".lab-lock").exists()
    assert json.loads((out / "metrics.json").read_text())["sim_time_s"] == 0.1
    ok(inproc(capsys, "run", S, *TINY, "--out", out, "--overwrite"))  # and the folder still takes a run


def test_a_second_sweep_on_the_same_folder_is_refused_at_once(tmp_path, capsys):
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "two"\nbase = "snake_serpenoid"\n[set]\n"sim.duration" = 0.1\n'
                     '[[axis]]\nkey = "controller.alpha"\nvalues = [0.2, 0.3]\n')
    out = tmp_path / "sw"
    out.mkdir()
    holder = hold_lock(out)
    try:
        before = snapshot(tmp_path)
        t0 = time.monotonic()
        line = the_error(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
        assert f"lab process {holder.pid} is writing this sweep now" in line
        assert time.monotonic() - t0 < 10  # refused before any cluster or run
        assert snapshot(tmp_path) == before
    finally:
        holder.kill()
        holder.wait()


def test_a_second_report_on_the_same_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    holder = hold_lock(out)
    try:
        line = one_error(inproc(capsys, "report", "--only", "nonexistent-section-for-the-lock", "--out", out))
        assert "--only" in line  # input checked first ...
        sections = __import__("lab.report", fromlist=["SECTIONS"]).load_sections()
        first = next(iter(sections))
        line = one_error(inproc(capsys, "report", "--only", first, "--quick", "--out", out))
        assert f"lab process {holder.pid} is writing this report now" in line  # ... then refused
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_a_lock_left_by_a_killed_process_is_no_lock(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    holder = hold_lock(out)
    holder.kill()
    holder.wait()
    assert (out / ".lab-lock").exists()  # the file stays; the kernel released the lock with the process
    ok(inproc(capsys, "run", S, *TINY, "--no-plots", "--out", out))
    assert not (out / ".lab-lock").exists()
