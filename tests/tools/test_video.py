"""``lab run --video``: real-time frame count, readable files, atomic writes, physics untouched."""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest

from conftest import ROOT

from lab.core import scenario as scn

SCENARIO = "snake_passive_creeping"
DT = scn.load(SCENARIO).sim.dt  # the scenario's step (5 ms): the frame stride is counted in steps


def _expected_frames(suffix: str, n_steps: int, fps: float = 30.0) -> int:
    """One frame every ``stride`` steps from step 0, the stride making the video play in real time
    (GIF frame delays are whole centiseconds, so its frame period is rounded to 10 ms first)."""
    if suffix == ".gif":
        stride = round(round(1.0 / fps, 2) / DT)  # 30 ms → 6 steps of 5 ms
    else:
        stride = round(1.0 / (fps * DT))  # 6.67 → 7 steps of 5 ms → 28.6 fps
    return math.ceil(n_steps / stride)


def _count_frames(path) -> tuple[int, tuple, float]:
    import imageio.v2 as imageio

    reader = imageio.get_reader(path)
    try:
        frames = [np.asarray(f) for f in reader]
    finally:
        reader.close()
    return len(frames), frames[0].shape, float(np.mean([f[..., :3].std() for f in frames]))


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_video_has_one_frame_per_stride(tmp_path, lab_cmd, suffix):
    video = tmp_path / f"run{suffix}"
    r = subprocess.run([*lab_cmd, "run", SCENARIO, "--set", "sim.duration=0.5", "--video", str(video),
                        "--out", str(tmp_path / "out"), "--no-plots"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert video.stat().st_size > 1000
    n, shape, spread = _count_frames(video)
    # 0.5 s: the GIF's 30-ms frames give 17; the MP4's 35-ms frames (7 steps) 15
    assert n == _expected_frames(suffix, round(0.5 / DT)) == (17 if suffix == ".gif" else 15)
    assert shape[:2] == (480, 640)
    assert spread > 5.0, "frames are blank"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_video_frame_rate_is_real_time(tmp_path):
    import imageio.v2 as imageio

    from lab.core import scenario as scn
    from lab.present import run_scenario

    video = tmp_path / "a.mp4"
    run_scenario(scn.load(SCENARIO, ["sim.duration=0.2"]), video=str(video))
    reader = imageio.get_reader(video)
    try:
        assert reader.get_meta_data()["fps"] == pytest.approx(1.0 / (round(1.0 / (30.0 * DT)) * DT), abs=0.05)
    finally:
        reader.close()


def test_recording_does_not_change_the_physics(tmp_path):
    """The camera and the ground grid are visual only: the same run with and without a video gives
    identical arrays."""
    from lab.core import scenario as scn
    from lab.present import run_scenario

    sc = scn.load(SCENARIO, ["sim.duration=0.3"])
    plain = run_scenario(sc)
    filmed = run_scenario(sc, video=str(tmp_path / "a.gif"))
    for key in ("xy", "E", "q", "tau", "W_in"):
        assert np.array_equal(plain.series[key], filmed.series[key]), key


def test_video_writer_rejects_other_formats_and_writes_nothing_without_frames(tmp_path):
    from lab.core import scenario as scn
    from lab.core.runner import Simulation
    from lab.video import VideoWriter

    sim = Simulation(scn.load(SCENARIO, ["sim.duration=0.01"]))
    try:
        with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
            VideoWriter(sim.world, tmp_path / "a.avi")
        with VideoWriter(sim.world, tmp_path / "empty.mp4") as v:
            pass
        assert v.frames == 0
        assert list(tmp_path.iterdir()) == []
    finally:
        sim.close()
