"""`lab sweep --scheduler` against a real dask cluster with no file system shared with `--out`.

A `dask scheduler` and two `dask worker` processes run on 127.0.0.1, each worker in its own temporary
working directory; the tasks they receive carry no path of the client's (the client writes every run
folder from the bytes the worker returns). One worker is killed (SIGKILL) mid-sweep: dask re-runs its
task on the other worker and every run lands exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from lab.sweep.execute import Task

DASK = str(Path(sys.executable).with_name("dask"))
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], cwd: Path, log: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    return subprocess.Popen(args, cwd=cwd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=30)


@pytest.fixture
def cluster(tmp_path):
    if not Path(DASK).exists():
        pytest.skip("the dask command line is not installed")
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    procs = {"scheduler": _start([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 tmp_path, tmp_path / "scheduler.log")}
    for name in ("w1", "w2"):
        home = tmp_path / name
        home.mkdir()
        procs[name] = _start([DASK, "worker", addr, "--nthreads", "1", "--no-nanny", "--name", name,
                              "--no-dashboard", "--local-directory", str(home)], home, tmp_path / f"{name}.log")
    try:
        from distributed import Client

        with Client(addr, timeout="30s") as c:
            c.wait_for_workers(2, timeout=60)
        yield addr, procs
    finally:
        for p in procs.values():
            _stop(p)


def _wait_for(cond, timeout: float, what: str) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def test_shipped_task_carries_no_client_path(monkeypatch):
    """The Executor strips run_dir/row_file/events before submitting to a scheduler."""
    from lab.sweep import execute

    sent = []

    class FakeClient:
        def submit(self, fn, plugins, blob, key, pure):
            import pickle

            sent.append(pickle.loads(blob))
            raise RuntimeError("stop here")

    ex = execute.Executor(scheduler="tcp://nowhere:1")
    ex.client = FakeClient()
    t = Task(run_id="r", scenario=None, info={}, run_dir="/client/out/runs/r", row_file="/client/out/rows/r.json",
             events="/client/out/events.log")
    with pytest.raises(RuntimeError):
        list(ex.run([t]))
    assert sent and sent[0].run_dir is None and sent[0].row_file is None and sent[0].events is None
    assert sent[0].ship_files


@pytest.mark.slow
def test_sweep_on_a_cluster_without_shared_files_survives_a_killed_worker(tmp_path, cluster, lab_cmd):
    addr, procs = cluster
    n = 6
    sweep = tmp_path / "s.toml"
    sweep.write_text(f"""
base = "snake_passive_creeping"
[set]
"sim.duration" = 1.5
[[axis]]
key = "controller.E_ref"
values = {[0.4 + 0.1 * i for i in range(n)]}
""")
    out = tmp_path / "out"
    client_cwd = tmp_path / "client"
    client_cwd.mkdir()
    run = subprocess.Popen([*lab_cmd, "sweep", str(sweep), "--scheduler", addr, "--out", str(out)],
                           cwd=client_cwd, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Kill one worker as soon as the first run has landed: both workers are busy then (6 runs queued).
        _wait_for(lambda: (out / "rows").is_dir() and any((out / "rows").iterdir()) or run.poll() is not None,
                  240, "the first finished run")
        assert run.poll() is None, run.communicate()
        landed = len(list((out / "rows").iterdir()))
        _stop(procs["w1"])
        stdout, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, stderr
    assert landed < n  # the worker died mid-sweep
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == n and (df["status"] == "ok").all(), df[["run_id", "status", "error"]]
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(df["run_id"])
    for rid in df["run_id"]:
        run_dir = out / "runs" / rid
        assert {"metrics.json", "timeseries.csv", "scenario.toml", "provenance.json", ".lab-run"} <= {
            p.name for p in run_dir.iterdir()}
        metrics = json.loads((run_dir / "metrics.json").read_text())
        assert metrics["energy.kinetic_mean_J"] == pytest.approx(
            float(df.loc[df.run_id == rid, "energy.kinetic_mean_J"].iloc[0]), rel=1e-12)
    # Each run landed exactly once (the killed worker's run was re-run, not duplicated).
    done = [ln.split()[3] for ln in (out / "events.log").read_text().splitlines() if ln.split()[2] == "done"]
    assert sorted(done) == sorted(df["run_id"])
    # The workers wrote nothing under the client's paths: their own folders hold no run output.
    for name in ("w1", "w2"):
        assert not list((tmp_path / name).rglob("metrics.json"))


@pytest.mark.slow
def test_a_users_controller_runs_on_two_dask_workers(tmp_path, cluster, lab_cmd):
    """A sweep file's ``plugins = [...]`` (a .py beside it) and an axis over controller types, on a real
    scheduler with two `dask worker` processes that were started before the plugin existed and never
    import it themselves: each task carries the client's plugin list (the file's source too), and the
    worker imports it before it unpickles the task. The user's controller holds every joint at the
    swept angle, so the rows show it acted, with its own parameters, on the workers."""
    addr, _ = cluster
    project = tmp_path / "project"
    project.mkdir()
    (project / "hold.py").write_text('''
from dataclasses import dataclass
import lab
from lab.core.fields import Validated, num

@dataclass(frozen=True)
class HoldParams(Validated):
    angle: float = num(0.0, ge=-1.5, le=1.5, unit="rad", doc="the angle every joint is held at")

@lab.register_controller("cluster_hold", params=HoldParams)
class Hold(lab.Controller):
    def act(self, state):
        return self.saturate(2.0 * (self.params.angle - state.q) - 0.1 * state.qd)
''')
    (project / "s.toml").write_text('''
base = "snake_serpenoid"
plugins = ["hold.py"]
[set]
"sim.duration" = 0.5
[[axis]]
key = "controller.type"
values = ["serpenoid", "cluster_hold"]
[[axis]]
key = "sim.dt"
values = [0.001, 0.0009]
''')
    out = tmp_path / "out"
    client_cwd = tmp_path / "client"
    client_cwd.mkdir()
    run = subprocess.run([*lab_cmd, "sweep", str(project / "s.toml"), "--scheduler", addr, "--out", str(out)],
                         cwd=client_cwd, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    df = pd.read_parquet(out / "results.parquet")
    assert (df["status"] == "ok").all(), df[["run_id", "status", "error"]]
    assert sorted(df["controller.type"]) == ["cluster_hold"] * 2 + ["serpenoid"] * 2
    for rid, kind in zip(df["run_id"], df["controller.type"]):
        saved = (out / "runs" / rid / "scenario.toml").read_text()
        assert f'type = "{kind}"' in saved
        if kind == "cluster_hold":  # the table was swapped: the serpenoid's keys went, the user's default came
            assert "alpha" not in saved and "angle = 0.0" in saved
    # the joints held still (angle 0) under the user's controller, and swung under the serpenoid
    moved = df.groupby("controller.type")["com.displacement_m"]
    assert moved.min()["serpenoid"] > 5 * moved.max()["cluster_hold"]
