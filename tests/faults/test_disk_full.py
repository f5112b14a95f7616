"""A full disk (a real one: a small tmpfs, where this machine lets us mount it): one ``error:`` line,
exit 2, no traceback, nothing half-written at a final path, the user's files untouched, and the same
command succeeds once there is space again."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from _helpers import S, fill, inproc, ok, one_error, temporaries, the_error, tmpfs  # noqa: F401 - tmpfs is a fixture
from conftest import snapshot


@pytest.mark.slow
def test_run_on_a_full_disk_then_again_with_space(tmpfs, capsys):
    disk = tmpfs("1m")
    ballast = fill(disk, 8 * 1024)
    before = snapshot(disk)
    args = ["run", S, "--set", "sim.duration=0.3", "--out", disk / "out"]
    line = one_error(inproc(capsys, *args))
    assert "No space left on device" in line and "--out" in line
    assert snapshot(disk) == before  # the ballast (the user's) whole, nothing half-written, no temporary
    ballast.unlink()
    ok(inproc(capsys, *args))
    assert (disk / "out" / "metrics.json").is_file() and temporaries(disk) == []


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_video_on_a_full_disk_keeps_the_run_and_publishes_nothing(tmpfs, tmp_path, capsys, suffix):
    disk = tmpfs("4m")
    ballast = fill(disk, 12 * 1024)  # room for a frame or two, not for the video
    video, out = disk / f"v{suffix}", tmp_path / "out"
    args = ["run", S, "--set", "sim.duration=0.25", "--no-plots", "--out", out, "--video", video]
    line = one_error(inproc(capsys, *args))
    assert line.startswith(f"error: --video {video}: not written: No space left on device")
    assert (out / "metrics.json").is_file()  # the run's results are written
    assert json.loads((out / "metrics.json").read_text())["status"] == "ok"
    assert sorted(os.listdir(disk)) == ["ballast.bin"]  # no broken video, no temporary
    ballast.unlink()
    ok(inproc(capsys, *args[:-4], "--out", tmp_path / "out2", "--video", video))
    assert video.stat().st_size > 0


@pytest.mark.slow
def test_sweep_on_a_full_disk_stops_with_one_line_and_resumes(tmpfs, capsys):
    """The sweep stops at the first refused write (not after simulating every remaining run), its
    tables agree with its row files, and the resume finishes it."""
    disk = tmpfs("2m")
    sweep = disk.parent / "s.toml"
    sweep.write_text('name = "full"\nbase = "snake_serpenoid"\n[set]\n"sim.duration" = 0.1\n'
                     '[[axis]]\nkey = "controller.alpha"\nvalues = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]\n')
    out = disk / "sw"
    ballast = fill(disk, 100 * 1024)
    res = inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1")
    line = the_error(res)
    assert "No space left on device" in line and "the sweep stopped" in line and "resume" in line
    rows = sorted(p.stem for p in (out / "rows").glob("*.json")) if (out / "rows").is_dir() else []
    for name in ("results.csv", "results.parquet"):  # a table, if any, is the rows on disk, no more, no less
        if (out / name).exists():
            df = pd.read_csv(out / name) if name.endswith(".csv") else pd.read_parquet(out / name)
            assert sorted(df["run_id"]) == rows
    assert len(rows) < 6
    print(f"sweep on a full disk: {len(rows)} of 6 runs finished before the refusal")
    assert ballast.is_file() and ballast.stat().st_size > 0
    ballast.unlink()
    res = ok(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
    df = pd.read_csv(out / "results.csv")
    assert len(df) == 6 and set(df["status"]) == {"ok"}
    assert temporaries(disk) == []
