"""`lab optimize --scheduler` on a real `dask scheduler` + `dask worker` pair started here, each worker in
its own working directory: the trials run on the workers, which see no path of the client's (the client
writes every row from what the worker returns), and every trial is told once."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

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
    home = tmp_path / "w1"
    home.mkdir()
    procs["w1"] = _start([DASK, "worker", addr, "--nthreads", "1", "--no-nanny", "--name", "w1", "--no-dashboard",
                          "--local-directory", str(home)], home, tmp_path / "w1.log")
    try:
        from distributed import Client

        with Client(addr, timeout="30s") as c:
            c.wait_for_workers(1, timeout=60)
        yield addr
    finally:
        for p in procs.values():
            _stop(p)


@pytest.mark.slow
def test_tiny_study_on_a_real_scheduler_and_worker(tmp_path, cluster, lab_cmd):
    study = tmp_path / "s.toml"
    study.write_text("""
name = "on_cluster"
scenario = "snake_serpenoid"
trials = 4
sampler = "tpe"
[set]
"sim.duration" = 0.3
analyses = []
[[param]]
key = "controller.alpha"
low = 0.2
high = 0.8
[[objective]]
metric = "com.displacement_m"
direction = "maximize"
""", encoding="utf-8")
    out = tmp_path / "out"
    client_cwd = tmp_path / "client"
    client_cwd.mkdir()
    res = subprocess.run([*lab_cmd, "optimize", str(study), "--scheduler", cluster, "--out", str(out)],
                         check=False, cwd=client_cwd, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    df = pd.read_parquet(out / "results.parquet")
    assert sorted(df["trial"]) == [0, 1, 2, 3] and (df["state"] == "COMPLETE").all()
    assert df["worker"].nunique() == 1  # the one worker process ran them all, not the client
    client = json.loads(next((out / "rows").iterdir()).read_text())
    assert client["worker"] == df["worker"].iloc[0]
    best = json.loads((out / "best.json").read_text())["best"]
    assert best and best[0]["reproduced"]
    assert not list((tmp_path / "w1").rglob("*.json"))  # the worker wrote nothing of the study's
