"""Writes never follow a symlink out of the output (a report's figures/), the Python API's inputs are
checked as the CLI's are, and Ctrl-C while dask's LocalCluster starts or stops gives no traceback."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
from _helpers import LAB, ROOT, env, inproc, ok, one_error, wait_for
from conftest import snapshot

import lab
from lab.core.errors import LabError


@pytest.fixture
def figure_section():
    from lab.report import SECTIONS, SectionResult, section

    @section("zz_fig", title="One figure")
    def fig_section(ctx):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        return SectionResult(body="a line", figures=[ctx.save_figure(fig, "line")])

    yield "zz_fig"
    SECTIONS.pop("zz_fig", None)


def test_a_report_never_writes_through_a_symlinked_figures_folder(tmp_path, capsys, figure_section):
    out = tmp_path / "rep"
    ok(inproc(capsys, "report", "--only", figure_section, "--workers", "1", "--out", out))
    assert (out / "figures" / "zz_fig_line.png").is_file()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "zz_fig_line.png").write_bytes(b"the user's picture")
    for p in (out / "figures").iterdir():
        p.unlink()
    (out / "figures").rmdir()
    (out / "figures").symlink_to(mine)
    before = snapshot(tmp_path)
    line = one_error(inproc(capsys, "report", "--only", figure_section, "--workers", "1", "--out", out,
                            "--overwrite"))
    assert "figures" in line and "symlink" in line
    assert snapshot(tmp_path) == before  # the user's picture untouched
    assert (mine / "zz_fig_line.png").read_bytes() == b"the user's picture"
    (out / "figures").unlink()
    ok(inproc(capsys, "report", "--only", figure_section, "--workers", "1", "--out", out, "--overwrite"))


@pytest.mark.slow
def test_api_duration_is_checked_and_written_into_the_scenario(tmp_path):
    res = lab.run("snake_serpenoid", {"sim.duration": 0.2}, duration=0.3)
    assert res.scenario.sim.duration == 0.3 and res.metrics["sim_time_s"] == pytest.approx(0.3)
    assert res.timeseries["t"].iloc[-1] == pytest.approx(0.3)
    out = res.save(tmp_path / "o")
    assert "duration = 0.3" in (out / "scenario.toml").read_text()
    for bad, kind in ((True, TypeError), ("1", TypeError), (-1, ValueError), (0, ValueError), (1e9, ValueError),
                      (float("nan"), ValueError)):
        with pytest.raises(LabError) as info:
            lab.run("snake_serpenoid", duration=bad)
        assert isinstance(info.value, kind) and info.value.where == "duration"
        assert "--" not in str(info.value)  # Python's words: the argument, not a CLI flag


def test_api_wrong_types_and_a_closed_sim_raise_lab_errors():
    for call in (lambda: lab.run(5), lambda: lab.run("snake_serpenoid", 5),
                 lambda: lab.run("snake_serpenoid", {1: 2})):
        with pytest.raises(LabError) as info:
            call()
        assert isinstance(info.value, TypeError)
    sim = lab.Sim("snake_serpenoid")
    with pytest.raises(LabError) as info:
        sim.step(n="3")
    assert isinstance(info.value, TypeError) and info.value.where == "n"
    with pytest.raises(LabError) as info:
        sim.step(torques=["x"] * sim.n_joints)
    assert isinstance(info.value, TypeError) and info.value.where == "torques"
    sim.step(2)
    sim.close()
    sim.close()  # twice is fine
    with pytest.raises(LabError) as info:
        sim.step()
    assert isinstance(info.value, ValueError) and "closed" in str(info.value)


def test_ctrl_c_is_held_while_the_cluster_stops_and_delivered_after(monkeypatch):
    """Executor.close runs its whole shutdown even when Ctrl-C lands in the middle of it, then raises
    KeyboardInterrupt (which `lab sweep` turns into exit 130)."""
    from lab.sweep.execute import Executor, sigint_deferred

    with pytest.raises(KeyboardInterrupt):
        with sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            done = True  # not interrupted inside the block
    assert done
    closed = []

    class Part:
        def __init__(self, name):
            self.name = name

        def close(self, timeout=None):
            if self.name == "client":
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C half-way through the shutdown
            closed.append(self.name)

    ex = Executor(workers=1)
    ex.client, ex.cluster = Part("client"), Part("cluster")
    with pytest.raises(KeyboardInterrupt):
        ex.close()
    assert closed == ["client", "cluster"] and ex.client is None and ex.cluster is None
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["starting"])
def test_ctrl_c_while_the_local_cluster_starts_or_stops(tmp_path, capsys, moment):
    """SIGINT is held while distributed's LocalCluster starts and stops (lab.sweep.execute.sigint_deferred)
    and delivered after: exit 130 and no traceback, whichever moment it lands."""
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "int"\nbase = "snake_serpenoid"\n[set]\n"sim.duration" = 0.05\n'
                     '[[axis]]\nkey = "controller.alpha"\nvalues = [0.2]\n')
    out = tmp_path / "sw"
    p = subprocess.Popen([*LAB, "sweep", str(sweep), "--out", str(out), "--workers", "1"], cwd=ROOT, env=env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = ""
        if moment == "starting":  # the sweep prints its plan, then starts the cluster (seconds)
            first = p.stderr.readline()
            assert first.startswith("sweep int:"), first
            wait_for(lambda: False, timeout=0.3)
            assert not out.exists()  # still starting: the folder is made once the cluster is up
        else:  # the run's row is written, then the cluster is closed
            assert wait_for(lambda: any((out / "rows").glob("*.json")) if (out / "rows").is_dir() else False,
                            timeout=120, every=0.005)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        err = first + err
    finally:
        if p.poll() is None:
            p.kill()
    assert "Traceback" not in err, err
    assert p.returncode in ((130,) if moment == "starting" else (0, 130)), err
    if p.returncode == 130:
        assert "interrupted" in err.strip().splitlines()[-1]
    ok(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
