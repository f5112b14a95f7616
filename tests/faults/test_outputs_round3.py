"""Round three of hostile and clumsy use (issue 35), outside the URDF loader: a video or screenshot never
costs a run, two runs started in the same second never meet, a sweep never writes through a symlink
on resume, a user's lab-like file is never deleted, a crashed run never becomes a baseline, paths are
checked before simulating, the Gymnasium env and ``Sim`` refuse bad arguments with LabErrors, and
SIGTERM and a newline in a key still give one ``error:`` line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from _helpers import LAB, ROOT, S, TINY, env, inproc, ok, one_error, temporaries, the_error, wait_for
from conftest import snapshot

from lab.core.errors import LabError

SWEEP = ('name = "links"\nbase = "snake_serpenoid"\n[set]\n"sim.duration" = 0.05\n'
         '[[axis]]\nkey = "controller.alpha"\nvalues = [0.2]\n')


def test_a_dashboard_url_for_the_scheduler_is_one_error_line(tmp_path, capsys):
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP)
    for address, said in (("http://127.0.0.1:8786", "is a dashboard (web) address; give the scheduler's own, "
                                                    "tcp://HOST:8786"),
                          ("https://dask.example.org/status", "dashboard"),
                          ("udp://127.0.0.1:8786", "schemes: tcp, tls, ws, wss, ucx, inproc")):
        line = the_error(inproc(capsys, "sweep", sweep, "--out", tmp_path / "sw", "--scheduler", address))
        assert line.startswith("error: --scheduler: ") and said in line
    assert sorted(os.listdir(tmp_path)) == ["s.toml"]


@pytest.mark.parametrize("flag, name", [("--video", "v.mp4"), ("--screenshot", "shot.png")])
def test_a_video_or_screenshot_inside_a_new_out_is_refused_before_the_run(tmp_path, capsys, flag, name):
    out = tmp_path / "vn"
    line = one_error(inproc(capsys, "run", S, *TINY, "--out", out, flag, out / name))
    assert f"{flag} {out / name}: lies inside --out {out}" in line and "write it beside the folder" in line
    assert os.listdir(tmp_path) == []  # nothing simulated, nothing published, the folder still free
    ok(inproc(capsys, "run", S, *TINY, "--no-plots", "--out", out))


def test_screenshot_names_are_checked_against_the_run_and_the_video(tmp_path, capsys):
    out = tmp_path / "o"
    for extra, said in (([ "--video", tmp_path / "same.mp4", "--screenshot", tmp_path / "same.mp4"],
                         "--screenshot: must end in .png"),
                        (["--screenshot", out / "metrics.json"], "--screenshot: must end in .png"),
                        (["--screenshot", tmp_path / "x" / ".." / "o" / "s.png"], "lies inside --out")):
        assert said in one_error(inproc(capsys, "run", S, *TINY, "--out", out, *extra))
    assert os.listdir(tmp_path) == []
    from lab.core.outputs import check_side_files, prepare

    output = prepare(out, "run")
    with pytest.raises(LabError, match="is the same file as --video"):  # the same file, under two names
        check_side_files(output, {"--video": str(tmp_path / "a.png"), "--screenshot": str(tmp_path / "." / "a.png")})


@pytest.mark.slow
def test_two_runs_in_the_same_second_without_out_get_their_own_folders(tmp_path):
    """Both processes see the same clock second (patched): the first to ``mkdir`` the default folder has
    it, the other takes ``-2``; both exit 0 with complete runs."""
    code = ("import sys, time\n"
            "time.strftime = lambda fmt, *a: '20260101-000000'\n"
            "from lab.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    args = ["run", S, "--set", "sim.duration=0.1", "--no-plots"]
    procs = [subprocess.Popen([sys.executable, "-c", code, *args], cwd=tmp_path, env=env(), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    runs = tmp_path / "runs"
    assert sorted(os.listdir(runs)) == [f"{S}-20260101-000000", f"{S}-20260101-000000-2"]
    for d in runs.iterdir():
        assert json.loads((d / "metrics.json").read_text())["status"] == "ok"
        assert set(json.loads((d / ".lab-run").read_text())["files"]) == set(os.listdir(d)) - {".lab-run"}


def test_a_default_folder_is_claimed_atomically_and_released_if_unused(tmp_path):
    from lab.core.outputs import _release_claims, unique_default

    a, b = unique_default(tmp_path / "runs" / "x"), unique_default(tmp_path / "runs" / "x")
    assert (a.name, b.name) == ("x", "x-2") and a.is_dir() and b.is_dir()
    (b / "result.txt").write_text("written")  # as a command that wrote its output
    _release_claims()
    assert not a.exists() and (b / "result.txt").exists()  # only the empty, unused claim goes


@pytest.mark.slow
@pytest.mark.parametrize("link", ["rows", "runs/run-0000", "runs", "events.log"])
def test_a_sweep_resume_never_writes_through_a_symlink_out(tmp_path, capsys, link):
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP)
    out = tmp_path / "sw"
    ok(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
    run_id = next(p.name for p in (out / "runs").iterdir() if p.is_dir())
    link = link.replace("run-0000", run_id)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("the user's")
    target = out / link
    if target.is_dir():
        for p in sorted(target.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        target.rmdir()
    else:
        target.unlink()
    target.symlink_to(elsewhere if link != "events.log" else elsewhere / "mine.txt")
    (out / "rows" / f"{run_id}.json").unlink(missing_ok=True) if link != "rows" else None  # resume runs it again
    before = snapshot(tmp_path)
    line = the_error(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
    assert f"{out}/{link}: is a symlink leading outside the sweep's folder" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name, data", [(".lab-lock", b"my notes\n"), (".data.lab-tmp.4000000.deadbeef", b"mine"),
                                        (".data.lab-tmp.4000000.deadbeefdeadbeef", b"mine"),
                                        (".lab-partial-abcdefgh", b"a file, not a lab folder")])
def test_a_users_file_with_a_lab_like_name_is_never_deleted(tmp_path, capsys, name, data):
    out = tmp_path / "o"
    out.mkdir()
    (out / name).write_bytes(data)
    before = snapshot(tmp_path)
    line = one_error(inproc(capsys, "run", S, *TINY, "--out", out))
    assert "holds files the lab did not write" in line or ".lab-lock: is not the lab's lock file" in line
    assert snapshot(tmp_path) == before


def test_the_labs_own_stale_temporary_and_lock_are_still_cleaned(tmp_path, capsys):
    """The control: a temporary named by a lab process that died, and a lock file holding a dead pid,
    are the lab's and go (so the checks above refuse only what is not provably the lab's)."""
    out = tmp_path / "o"
    out.mkdir()
    made = subprocess.run([sys.executable, "-c", "import sys; from lab.core.writes import temp_path; "
                           "print(temp_path(sys.argv[1]).name)", str(out / "data")],
                          capture_output=True, text=True, env=env(), cwd=ROOT, check=True).stdout.strip()
    (out / made).write_bytes(b"half")
    (out / ".lab-lock").write_text("4000000\n")
    ok(inproc(capsys, "run", S, *TINY, "--no-plots", "--out", out))
    assert temporaries(tmp_path) == [] and not (out / ".lab-lock").exists()


@pytest.fixture
def crashing(monkeypatch):
    """Every run of snake_passive_creeping raises inside the simulation (as a bug in a force law would)."""
    import lab.core.runner

    real = lab.core.runner.Simulation.step

    def step(self, state):
        if self.scenario.name == "snake_passive_creeping":
            raise RuntimeError("a force law blew up")
        return real(self, state)

    monkeypatch.setattr(lab.core.runner.Simulation, "step", step)


SUITE = ('name = "tiny"\n[[run]]\nscenario = "snake_serpenoid"\nduration = 0.05\n'
         '[[run]]\nscenario = "snake_passive_creeping"\nduration = 0.05\n')


def test_regress_record_refuses_a_crashed_run(tmp_path, capsys, crashing):
    (tmp_path / "tiny.toml").write_text(SUITE)
    line = one_error(inproc(capsys, "regress", "record", tmp_path / "tiny.toml", "--out", tmp_path / "base"))
    assert "not recorded: entry 'snake_passive_creeping' crashed" in line and "a force law blew up" in line
    assert sorted(os.listdir(tmp_path)) == ["tiny.toml"]


def test_regress_check_fails_an_entry_that_crashes_on_either_side(tmp_path, capsys, monkeypatch):
    (tmp_path / "tiny.toml").write_text(SUITE)
    ok(inproc(capsys, "regress", "record", tmp_path / "tiny.toml", "--out", tmp_path / "base"))
    base = tmp_path / "base" / "baseline.json"
    doc = json.loads(base.read_text())
    doc["entries"]["snake_passive_creeping"]["metrics"] = {"status": "failed", "error": "RuntimeError: old"}
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "baseline.json").write_text(json.dumps(doc))  # a baseline an older lab recorded
    res = inproc(capsys, "regress", "check", tmp_path / "tiny.toml", "--baseline", tmp_path / "old")
    assert res.returncode == 1 and "crashed (baseline)" in res.stdout
    import lab.core.runner

    real = lab.core.runner.Simulation.step
    monkeypatch.setattr(lab.core.runner.Simulation, "step", lambda self, state: (_ for _ in ()).throw(
        RuntimeError("boom")) if self.scenario.name == "snake_passive_creeping" else real(self, state))
    res = inproc(capsys, "regress", "check", tmp_path / "tiny.toml", "--baseline", tmp_path / "old")
    assert res.returncode == 1 and "crashed (baseline)" in res.stdout and "crashed (now)" in res.stdout


def test_paths_too_long_are_refused_before_simulating(tmp_path, capsys):
    x = tmp_path / "x"
    line = one_error(inproc(capsys, "run", S, *TINY, "--out", x / ("a" * 300) / "y"))
    assert "is 300 bytes; at most 255" in line
    # 240 bytes fit a name, not the write protocol's temporary beside it (".<name>.lab-tmp.<pid>.<nonce>")
    line = one_error(inproc(capsys, "run", S, *TINY, "--out", tmp_path / ("b" * 240)))
    assert "is 240 bytes; at most 221" in line
    line = one_error(inproc(capsys, "run", S, *TINY, "--set", "name=" + "n" * 300, "--out", tmp_path / "o"))
    assert "name: is 300 characters long; at most 128" in line
    assert os.listdir(tmp_path) == []  # x/ not left behind


def test_a_new_out_s_parent_folders_go_when_the_write_fails(tmp_path, monkeypatch):
    from lab.core.outputs import prepare

    out = prepare(tmp_path / "p" / "q" / "run", "run")

    def build(tmp):
        raise OSError(28, "No space left on device")

    with pytest.raises(LabError, match="No space left"):
        out.write_all(build)
    assert os.listdir(tmp_path) == []


def test_env_and_sim_arguments_are_lab_errors(tmp_path):
    import gymnasium as gym

    import lab
    import lab.envs  # noqa: F401
    from lab.api import LabTypeError, LabValueError

    kw = dict(scenario="snake_serpenoid", overrides={"sim.duration": 0.5})
    for bad, kind in ((-1, LabValueError), (float("nan"), LabValueError), (100, LabValueError),
                      (1e9, LabValueError), (1e-5, LabValueError), ("0.01", LabTypeError), (True, LabTypeError)):
        with pytest.raises(kind) as info:
            gym.make("lab/Scenario-v1", control_dt=bad, **kw)
        assert info.value.where == "control_dt" and isinstance(info.value, LabError)
    env = gym.make("lab/Scenario-v1", control_dt=0.02, **kw)
    env.reset(seed=0)
    n = env.action_space.shape[0]
    for action, kind, said in (([0.1] * (n + 1), LabValueError, f"must have shape ({n},)"),
                               (np.zeros((1, n)), LabValueError, "must have shape"),
                               (["a"] * n, LabTypeError, "real numbers"),
                               (np.full(n, np.nan), LabValueError, "must be finite"),
                               ([0.1] * (n - 1) + [np.inf], LabValueError, "must be finite")):
        with pytest.raises(kind, match=said.replace("(", r"\(").replace(")", r"\)")):
            env.step(action)
    env.step(np.zeros(n, dtype=np.float32))
    env.close()
    with pytest.raises(LabValueError, match="closed"):
        env.unwrapped.step(np.zeros(n))
    with lab.Sim("snake_serpenoid", {"sim.duration": 0.01, "sim.dt": 0.001}) as sim:  # 10 steps of 1 ms
        with pytest.raises(LabValueError, match="past sim.duration") as info:
            sim.step(10**12)
        assert info.value.where == "n"
        sim.step(10)
        with pytest.raises(LabValueError, match="0 step"):
            sim.step(1)


@pytest.mark.slow
def test_sigterm_during_a_video_is_one_line_and_leaves_nothing(tmp_path, capsys):
    video, out = tmp_path / "v.mp4", tmp_path / "out"
    args = ["run", S, "--set", "sim.duration=3", "--no-plots", "--out", out, "--video", video]
    p = subprocess.Popen([*LAB, *map(str, args)], cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: any(n.startswith(".v.mp4.lab-tmp.") for n in os.listdir(tmp_path)))
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    res = subprocess.CompletedProcess(args, p.returncode, "", err)
    assert one_error(res, 143) == "error: terminated (SIGTERM); nothing half-written was kept"
    assert not video.exists() and not out.exists() and temporaries(tmp_path) == []


def test_a_newline_in_a_set_key_stays_one_line(tmp_path, capsys):
    line = one_error(inproc(capsys, "run", S, "--set", "robot.n_mod\nules=3", "--out", tmp_path / "o"))
    assert "robot.n_mod\\nules" in line
