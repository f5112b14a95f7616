"""Sweeps: expansion against hand-written expectations, strict validation, a real LocalCluster sweep,
a diverging run inside a sweep, and Ctrl-C + resume without running anything twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from lab.cli import main
from lab.core.errors import LabError
from lab.sweep.execute import Task, run_task
from lab.sweep.definition import expand, load_sweep, parse_sweep

ROOT = Path(__file__).resolve().parents[2]
TINY = 0.3  # simulated seconds per run in these tests


def sweep(**data):
    data.setdefault("base", "snake_passive_creeping")
    return parse_sweep(data, where="t.toml", default_seed=7)


# ------------------------------------------------------------------ expansion


def test_grid_of_list_and_linspace_in_product_order():
    sw = sweep(set={"sim": {"duration": TINY}}, axis=[
        {"key": "controller.E_ref", "values": [0.5, 1.0]},
        {"key": "friction.mu_n", "grid": {"start": 0.3, "stop": 0.5, "num": 3}},
    ])
    specs = expand(sw)
    assert [s.point for s in specs] == [
        {"controller.E_ref": 0.5, "friction.mu_n": 0.3}, {"controller.E_ref": 0.5, "friction.mu_n": 0.4},
        {"controller.E_ref": 0.5, "friction.mu_n": 0.5}, {"controller.E_ref": 1.0, "friction.mu_n": 0.3},
        {"controller.E_ref": 1.0, "friction.mu_n": 0.4}, {"controller.E_ref": 1.0, "friction.mu_n": 0.5},
    ]
    assert all(s.seed == 7 for s in specs)  # default seed: the base scenario's (here given as 7)
    assert specs[4].overrides == {"sim.duration": TINY, "controller.E_ref": 1.0, "friction.mu_n": 0.4, "seed": 7}
    assert [s.run_id[:5] for s in specs] == ["r0000", "r0001", "r0002", "r0003", "r0004", "r0005"]
    assert len({s.run_id for s in specs}) == 6


def test_grid_with_integer_ends_stays_integer():
    sw = sweep(axis=[{"key": "robot.n_modules", "grid": {"start": 4, "stop": 8, "num": 3}}])
    assert [s.point["robot.n_modules"] for s in expand(sw)] == [4, 6, 8]
    assert all(isinstance(s.point["robot.n_modules"], int) for s in expand(sw))


def test_zip_pairs_axes_side_by_side():
    sw = sweep(mode="zip", axis=[{"key": "controller.E_ref", "values": [0.5, 0.7, 1.0]},
                                 {"key": "friction.mu_n", "values": [0.3, 0.5, 0.4]}])
    assert [(s.point["controller.E_ref"], s.point["friction.mu_n"]) for s in expand(sw)] == [
        (0.5, 0.3), (0.7, 0.5), (1.0, 0.4)]
    with pytest.raises(LabError, match="equal length"):
        sweep(mode="zip", axis=[{"key": "controller.E_ref", "values": [0.5, 0.7]},
                                {"key": "friction.mu_n", "values": [0.3]}])


def test_random_axis_is_seeded_and_reproducible():
    ax = [{"key": "controller.E_ref", "random": {"low": 0.2, "high": 0.6, "n": 5}},
          {"key": "friction.mu_n", "random": {"low": 0.2, "high": 0.6, "n": 5}}]
    a = expand(sweep(seed=3, mode="zip", axis=ax))
    b = expand(sweep(seed=3, mode="zip", axis=ax))
    c = expand(sweep(seed=4, mode="zip", axis=ax))
    vals = [s.point["controller.E_ref"] for s in a]
    assert len(vals) == 5 and all(0.2 <= v < 0.6 for v in vals)
    assert [s.run_id for s in a] == [s.run_id for s in b] and [s.point for s in a] == [s.point for s in b]
    assert vals != [s.point["controller.E_ref"] for s in c]
    assert vals != [s.point["friction.mu_n"] for s in a]  # each axis has its own stream


def test_repeat_gives_distinct_consecutive_seeds():
    specs = expand(sweep(seed=10, repeat=3, axis=[{"key": "controller.E_ref", "values": [0.5, 1.0]}]))
    assert [(s.point["controller.E_ref"], s.seed) for s in specs] == [
        (0.5, 10), (0.5, 11), (0.5, 12), (1.0, 10), (1.0, 11), (1.0, 12)]
    assert [s.overrides["seed"] for s in specs] == [10, 11, 12, 10, 11, 12]
    assert len({s.run_id for s in specs}) == 6


def test_run_id_is_stable_and_names_the_overrides():
    ax = [{"key": "controller.E_ref", "values": [0.5, 1.0]}]
    a = expand(sweep(axis=ax))
    assert [s.run_id for s in a] == [s.run_id for s in expand(sweep(axis=ax))]
    changed = expand(sweep(axis=ax, set={"sim.duration": 2.0}))
    assert not {s.run_id for s in a} & {s.run_id for s in changed}


def test_cli_set_joins_the_fixed_overrides():
    sw = parse_sweep({"base": "x", "axis": [{"key": "controller.E_ref", "values": [1.0]}]}, where="t.toml",
                     extra_set={"sim.duration": 0.5})
    assert expand(sw)[0].overrides["sim.duration"] == 0.5
    with pytest.raises(LabError, match="either fixed or swept"):
        parse_sweep({"base": "x", "axis": [{"key": "controller.E_ref", "values": [1.0]}]}, where="t.toml",
                    extra_set={"controller.E_ref": 0.5})


@pytest.mark.parametrize("data, where", [
    ({"base": "b", "bogus": 1}, "t.toml:bogus"),
    ({}, "t.toml:base"),
    ({"base": "b", "repeat": 0}, "t.toml:repeat"),
    ({"base": "b", "mode": "star"}, "t.toml:mode"),
    ({"base": "b", "axis": [{"key": "controller.E_ref"}]}, "t.toml:axis[0]"),
    ({"base": "b", "axis": [{"key": "a.b", "values": [1], "grid": {"start": 0, "stop": 1, "num": 2}}]},
     "t.toml:axis[0]"),
    ({"base": "b", "axis": [{"key": "a.b", "values": []}]}, "t.toml:axis[0].values"),
    ({"base": "b", "axis": [{"key": "a.b", "values": [1, 1]}]}, "t.toml:axis[0].values[1]"),
    ({"base": "b", "axis": [{"key": "a.b", "grid": {"start": 0, "stop": 1}}]}, "t.toml:axis[0].grid"),
    ({"base": "b", "axis": [{"key": "a.b", "random": {"low": 1, "high": 0, "n": 2}}]}, "t.toml:axis[0].random.high"),
    ({"base": "b", "axis": [{"key": "a..b", "values": [1]}]}, "t.toml:axis[0].key"),
    ({"base": "b", "axis": [{"key": "a.b", "values": [1]}, {"key": "a.b", "values": [2]}]}, "t.toml:axis[1].key"),
    ({"base": "b", "set": {"a.b": 1}, "axis": [{"key": "a.b", "values": [2]}]}, "t.toml:set.a.b"),
    ({"base": "b", "set": {"seed": 1}}, "t.toml:set.seed"),
])
def test_invalid_sweep_tables_name_the_field(data, where):
    with pytest.raises(LabError) as err:
        parse_sweep(data, where="t.toml")
    assert err.value.where == where


# ------------------------------------------------------------------ files and CLI


def write_sweep(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


def test_shipped_sweep_loads_and_validates():
    sw = load_sweep(ROOT / "scenarios" / "sweeps" / "creeping_Eref_mun.toml")
    specs = expand(sw)
    assert len(specs) == 6 and sw.fixed["sim.duration"] == 20.0
    assert Path(sw.base).name == "snake_passive_creeping.toml"


@pytest.mark.parametrize("body, expect", [
    ('base = "snake_passive_creeping"\nbogus = 1\n', "bogus: unknown key"),
    ('base = "no_such_scenario"\n', "base: no scenario"),
    ('base = "snake_passive_creeping"\n[[axis]]\nkey = "controller.E_reff"\nvalues = [1.0]\n', "E_reff: unknown key"),
    ('base = "snake_passive_creeping"\n[[axis]]\nkey = "controller.E_ref"\nvalues = [1.0, -5.0]\n',
     "controller.E_ref: must be in"),
    ('base = "snake_passive_creeping"\nrepeat = [\n', "not valid TOML"),
])
def test_invalid_sweep_file_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, body, expect):
    f = write_sweep(tmp_path / "bad.toml", body)
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and expect in err
    assert not out.exists()


def test_bad_cli_override_exits_2(tmp_path, capsys):
    f = write_sweep(tmp_path / "s.toml", 'base = "snake_passive_creeping"\n')
    assert main(["sweep", str(f), "--out", str(tmp_path / "o"), "--set", "sim.duration=-1"]) == 2
    assert "sim.duration" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_failing_run_is_a_row_not_a_crash(tmp_path):
    """A run that raises (here: no scenario at all) comes back as status 'failed' with a one-line error."""
    row, result, _ = run_task(Task(run_id="x", scenario=None, info={"seed": 1}, row_file=str(tmp_path / "x.json")))
    assert row["status"] == "failed" and result is None
    assert row["error"].startswith("AttributeError") and "\n" not in row["error"]
    assert json.loads((tmp_path / "x.json").read_text())["status"] == "failed"


@pytest.mark.slow
def test_local_cluster_sweep_with_a_diverging_run(tmp_path, capsys):
    """4 tiny runs on 2 worker processes; one axis value makes its runs diverge (max kinetic energy
    1e-6 J): the sweep carries on and records them."""
    f = write_sweep(tmp_path / "s.toml", f"""
base = "snake_passive_creeping"
[set]
"sim.duration" = {TINY}
[[axis]]
key = "controller.E_ref"
values = [0.5, 1.0]
[[axis]]
key = "sim.max_kinetic_energy"
values = [1000.0, 1e-6]
""")
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--workers", "2", "--out", str(out)]) == 0
    df = pd.read_parquet(out / "results.parquet")
    csv = pd.read_csv(out / "results.csv")
    assert len(df) == 4 and len(csv) == 4
    assert list(df["controller.E_ref"]) == [0.5, 0.5, 1.0, 1.0]
    assert list(df["status"]) == ["ok", "diverged", "ok", "diverged"]
    div = df[df.status == "diverged"]
    assert div["error"].str.contains("diverged").all() and not div["error"].str.contains("\n").any()
    assert (df.loc[df.status == "ok", "error"].fillna("") == "").all()
    for col in ("run_id", "seed", "sim.max_kinetic_energy", "energy.kinetic_mean_J", "task_wall_s"):
        assert col in df.columns
    assert len(set(df["worker"])) >= 1
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert runs == sorted(df["run_id"])  # diverged runs keep their data too
    assert (out / "sweep.toml").is_file() and len(json.loads((out / "runs.json").read_text())) == 4
    # Re-running the same command finds everything done and runs nothing.
    before = (out / "events.log").read_text()
    assert main(["sweep", str(f), "--workers", "2", "--out", str(out)]) == 0
    assert (out / "events.log").read_text() == before


def _events(out: Path):
    lines = (out / "events.log").read_text().split()
    # "<time> <session> <start|done> <run_id> pid=<pid>" per line
    return [tuple(lines[i + 1:i + 4]) for i in range(0, len(lines), 5)]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _group_ps(pgid: int) -> str:
    """The processes still in the sweep's process group, for a failure message."""
    res = subprocess.run(["ps", "-eo", "pid,pgid,stat,etime,args"], capture_output=True, text=True)
    return "\n".join(line for line in res.stdout.splitlines() if line.split()[1:2] == [str(pgid)])


@pytest.mark.slow
def test_interrupt_then_resume_runs_each_run_once(tmp_path, lab_cmd):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) mid-sweep: exit 130 with the
    finished rows kept; the same command again completes the rest and re-runs none of them.

    Deterministic by construction, not by timing: the first run diverges at once (max kinetic energy
    1e-6 J) and the others would take minutes (the base scenario's sim.duration is 300 s at 1 ms), so exactly one
    row exists when the signal arrives, whatever the machine's load. Runs are keyed by their overrides
    only, so before resuming the base file is shortened to 0.3 s and the rest finish quickly."""
    from lab.core import scenario as scn

    base = tmp_path / "base.toml"
    # 300 s at 1 ms (~30 s of wall unloaded; at the flagship's shipped 5 ms the second run finished in ~8 s,
    # before the signal)
    base.write_text(scn.load("snake_passive_creeping", ["sim.duration=300", "sim.dt=0.001", "sim.record_every=10"])
                    .to_toml(), encoding="utf-8")
    f = write_sweep(tmp_path / "s.toml", """
base = "base.toml"
[[axis]]
key = "sim.max_kinetic_energy"
values = [1e-6, 1000.0, 1001.0, 1002.0, 1003.0, 1004.0]
""")
    out = tmp_path / "out"
    cmd = [*lab_cmd, "sweep", str(f), "--workers", "1", "--out", str(out)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # `lab sweep` as a terminal's foreground job: Ctrl-C handled. A process started with SIGINT ignored
    # keeps ignoring it (POSIX; Python too), and that is inherited: when the test suite itself runs as
    # a background job (`make test &`, nohup, some CI runners), a plain `python -m lab.cli` child never
    # sees the SIGINT and the sweep runs on. So the child sets Python's own handler first.
    foreground = [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                  "from lab.cli import main; sys.exit(main())"]
    # stderr to a file, not a pipe: a pipe would also wait for any process that inherited it
    err_file = tmp_path / "sweep.err"
    with open(err_file, "w") as err_fh:
        proc = subprocess.Popen([*foreground, *cmd[len(lab_cmd):]], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=err_fh, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not any((out / "rows").glob("*.json")):
            assert proc.poll() is None, err_file.read_text()
            assert time.monotonic() < deadline, "the first run did not finish within 120 s"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(f"lab sweep did not exit within 120 s of SIGINT\n{_group_ps(proc.pid)}\n{err_file.read_text()}")
        deadline = time.monotonic() + 60  # and no worker goes on computing once the sweep has exited
        while _group_alive(proc.pid):
            assert time.monotonic() < deadline, f"processes outlived lab sweep by 60 s\n{_group_ps(proc.pid)}"
            time.sleep(0.1)
    finally:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.wait()
    err = err_file.read_text()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "distributed" not in err  # workers ignore SIGINT; dask stays quiet
    ids = [r["run_id"] for r in json.loads((out / "runs.json").read_text())]
    first = {p.stem for p in (out / "rows").glob("*.json")}
    assert first == {ids[0]}  # the quick run, and only it
    assert len(pd.read_csv(out / "results.csv")) == 1

    base.write_text(scn.load("snake_passive_creeping", ["sim.duration=0.3"]).to_toml(), encoding="utf-8")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [r["run_id"] for r in json.loads((out / "runs.json").read_text())] == ids  # same runs, same ids
    assert {p.stem for p in (out / "rows").glob("*.json")} == set(ids)
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(ids)  # no partial folders left
    ev = _events(out)
    sessions = list(dict.fromkeys(s for s, _, _ in ev))
    assert len(sessions) == 2
    second_starts = {rid for s, what, rid in ev if s == sessions[1] and what == "start"}
    assert not second_starts & first  # nothing finished before the interrupt ran again
    assert second_starts | first == set(ids)
    for rid in ids:  # and nothing finished twice
        assert sum(1 for _, what, r in ev if what == "done" and r == rid) <= 1
    df = pd.read_parquet(out / "results.parquet")
    assert sorted(df["run_id"]) == sorted(ids)
    assert dict(zip(df["run_id"], df["status"])) == {rid: "diverged" if rid == ids[0] else "ok" for rid in ids}
    prov = json.loads((out / "provenance.json").read_text())  # the resumed session, and the one before it
    assert prov["ran"] == 5 and len(prov["previous"]) == 1 and prov["previous"][0]["ran"] == 6


@pytest.mark.slow
def test_local_cluster_says_nothing_when_the_dashboard_port_is_taken():
    """distributed's scheduler serves HTTP on 8787 by default and warns on stderr when that port is taken
    (seen in a sweep's output while another cluster ran); ours asks for a free port on localhost."""
    import socket
    import warnings

    from lab.sweep.execute import Executor

    blocker = socket.socket()
    try:
        try:
            blocker.bind(("0.0.0.0", 8787))
            blocker.listen()
        except OSError:
            pass  # taken already: the case to test all the same
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with Executor(1) as ex:
                link = ex.client.dashboard_link
    finally:
        blocker.close()
    assert not [w for w in caught if "8787" in str(w.message)], [str(w.message) for w in caught]
    assert "127.0.0.1" in link and ":8787" not in link


def test_a_shipped_sweep_is_found_by_name_from_any_folder(tmp_path, monkeypatch):
    """`lab sweep tracked_step_climb` works outside the checkout (an installed wheel has no
    scenarios/sweeps/ to point at); a name that is no shipped sweep is one error line."""
    monkeypatch.chdir(tmp_path)
    by_name = load_sweep("tracked_step_climb")
    by_path = load_sweep(ROOT / "scenarios" / "sweeps" / "tracked_step_climb.toml")
    assert by_name.to_dict() == by_path.to_dict()
    with pytest.raises(LabError, match="no such sweep file"):
        load_sweep("no_such_sweep")


# ------------------------------------------------------------------ a worker's repeated runs


RUN_ONE = """
import json, sys
from lab.sweep.definition import expand, load_sweep
from lab.sweep.execute import Task, run_task
sw = load_sweep(sys.argv[1], json.loads(sys.argv[2]))
s = [s for s in expand(sw) if s.run_id == sys.argv[3]][0]
from lab.sweep.definition import validate_runs
sc = validate_runs(sw, [s], "t")[0]
row, _, _ = run_task(Task(run_id=s.run_id, scenario=sc, info={"seed": s.seed, **s.point}))
print(json.dumps(row))
"""


@pytest.mark.slow
def test_a_workers_repeated_runs_equal_a_fresh_process():
    """A sweep worker runs many scenarios one after the other in one process: nothing of one run (the
    engine, a controller's buffers, a cache keyed on the robot) may reach the next. Two tracked climbs
    (arm 0.3 and 0.4 m, the riser 3 cm ahead, so each advances, stalls and flips in its 2 s) in the order
    A, B, A give A's row twice, and both equal A's row from a fresh process."""
    from lab.sweep.definition import validate_runs

    path = ROOT / "scenarios" / "sweeps" / "tracked_step_climb.toml"
    extra = {"sim.duration": 2.0, "arena.step_x": 0.03}
    sw = load_sweep(path, extra)
    specs = expand(sw)
    a, b = (next(s for s in specs if s.point == {"arena.step_height": 0.15, "robot.arm_length": arm,
                                                   "controller.arm_speed": 0.5}) for arm in (0.3, 0.4))
    sc_a, sc_b = validate_runs(sw, [a, b], "t")

    def run(spec, sc):
        row, _, _ = run_task(Task(run_id=spec.run_id, scenario=sc, info={"seed": spec.seed, **spec.point}))
        return row

    def same(row):  # the run's own columns (no timing, no worker name) as JSON text: NaN equals NaN there, to the bit
        return json.dumps({k: v for k, v in row.items()
                           if k not in ("task_wall_s", "wall_time_s", "realtime_factor", "worker")}, sort_keys=True)

    first, other, again = run(a, sc_a), run(b, sc_b), run(a, sc_a)
    assert first["status"] == "ok" and first["climb.flip_s"] > 0  # it reached the riser and flipped
    assert same(first) != same(other)
    assert same(again) == same(first)
    out = subprocess.run([sys.executable, "-c", RUN_ONE, str(path), json.dumps(extra), a.run_id], cwd=ROOT,
                         capture_output=True, text=True, check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert same(json.loads(out.stdout.strip().splitlines()[-1])) == same(first)
    assert json.loads(same(first))["climb.flip_s"] > 0
