"""`lab optimize`: study validation, objectives and constraints from rows, the Pareto front, log-scale
fields, best trials that reproduce from their files, and resume exactly once (asked-not-told trials told
from their row or run again; a journal cut by SIGKILL mid-append; SIGKILL and Ctrl-C of the real command)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lab.cli import main
from lab.core.fields import Validated, num
from lab.optimize import engine, results
from lab.optimize.study import load_study, parse_param, parse_study

ROOT = Path(__file__).resolve().parents[2]
TINY = 0.3  # simulated seconds per trial


def tiny_study(tmp_path: Path, trials: int = 4, extra: str = "", name: str = "tiny", duration: float = TINY) -> Path:
    f = tmp_path / f"{name}.toml"
    f.write_text(f"""
name = "{name}"
scenario = "snake_serpenoid"
trials = {trials}
seed = 5
sampler = "random"
[set]
"sim.duration" = {duration}
analyses = []
[[param]]
key = "controller.alpha"
low = 0.2
high = 0.8
[[param]]
key = "controller.omega"
low = 1.0
high = 3.0
[[objective]]
metric = "com.displacement_m"
direction = "maximize"
[baseline]
"controller.alpha" = 0.5
"controller.omega" = 2.0
{extra}
""", encoding="utf-8")
    return f


def _journal_finals(out: Path) -> dict[int, int]:
    """How many times the journal sets each trial to a final state (COMPLETE = 1, FAIL = 3): the tells."""
    counts: dict[int, int] = {}
    for line in (out / engine.JOURNAL).read_text().splitlines():
        op = json.loads(line)
        if op.get("op_code") == 6 and op.get("state") in (1, 3):
            counts[op["trial_id"]] = counts.get(op["trial_id"], 0) + 1
    return counts


def _events(out: Path) -> list[tuple[str, str, str]]:
    """(session, start|done, run id) per events.log line."""
    return [tuple(ln.split()[1:4]) for ln in (out / "events.log").read_text().splitlines()]


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize("body, where, what", [
    ('scenario = "snake_serpenoid"\ntrials = 3\nbogus = 1\n[[param]]\nkey = "controller.alpha"\n'
     '[[objective]]\nmetric = "a"', ":bogus", "unknown key"),
    ('scenario = "snake_serpenoid"\ntrials = 3\n[[param]]\nkey = "controller.alpha"\nlow = 0.1\nhigh = 4.0\n'
     '[[objective]]\nmetric = "a"', ":param[0].high", "outside the declared range of controller.alpha: must be in [0, pi]"),
    ('scenario = "snake_serpenoid"\ntrials = 3\n[[param]]\nkey = "friction.type"\n[[objective]]\nmetric = "a"',
     ":param[0].key", "not a field"),
    ('scenario = "snake_serpenoid"\ntrials = 3\n[[param]]\nkey = "controller.alpha"\n', ":objective",
     "at least one [[objective]]"),
    ('scenario = "snake_serpenoid"\ntrials = 0\n[[param]]\nkey = "controller.alpha"\n[[objective]]\nmetric = "a"',
     ":trials", "must be an integer in [1, 10000]"),
    ('scenario = "snake_serpenoid"\ntrials = 3\nsampler = "qmc"\n[[param]]\nkey = "controller.alpha"\n'
     '[[objective]]\nmetric = "a"\n[[constraint]]\nmetric = "b"\nmax = 1', ":sampler", "ignores constraints"),
    ('scenario = "snake_serpenoid"\ntrials = 3\n[[param]]\nkey = "controller.alpha"\nlow = 0.2\nhigh = 0.6\n'
     '[[objective]]\nmetric = "a"\n[baseline]\n"controller.alpha" = 0.7', ":baseline.controller.alpha",
     "must lie in the searched range [0.2, 0.6]"),
    ('scenario = "snake_serpenoid"\ntrials = 3\n[set]\n"controller.alpha" = 0.3\n[[param]]\nkey = "controller.alpha"\n'
     '[[objective]]\nmetric = "a"', ":set.controller.alpha", "either fixed or searched"),
    ('scenario = "snake_serpenoid"\ntrials = 3\n[[param]]\nkey = "controller.alpha"\nlog = true\n'
     '[[objective]]\nmetric = "a"', ":param[0].log", "needs low > 0"),
    # in its own field's range, but the tracked robot needs pulley_radius < track_side / 2: a corner fails
    ('scenario = "tracked_step_climb"\ntrials = 3\n[[param]]\nkey = "robot.pulley_radius"\nlow = 0.02\nhigh = 0.2\n'
     'also = ["controller.pulley_radius"]\n[[objective]]\nmetric = "a"', ":param", "does not load at (robot.pulley_radius=0.2): "),
])
def test_a_bad_study_is_one_error_line_exit_2_and_writes_nothing(tmp_path, capsys, body, where, what):
    f = tmp_path / "bad.toml"
    f.write_text(body, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["optimize", str(f), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {f}{where}: ") and what in err[0], err
    assert not out.exists()


def test_params_default_to_the_declared_closed_range():
    st = parse_study({"scenario": "snake_serpenoid", "trials": 2, "param": [{"key": "controller.alpha"}],
                      "objective": [{"metric": "x"}]}, base_dir=ROOT)
    assert (st.params[0].low, st.params[0].high) == (0.0, math.pi)  # the serpenoid declares alpha in [0, pi]


@dataclass(frozen=True)
class _Gains(Validated):
    k: float = num(0.01, gt=0, le=10, log=True, doc="a gain spanning decades")
    c: float = num(0.5, ge=0, le=1, doc="a plain number")


def test_a_field_declared_log_is_searched_log_uniformly():
    """num(..., log=True) → a log-uniform search unless the study says otherwise: with the random sampler
    the median of 400 draws over [1e-4, 1] is ~1e-2 (log-uniform), not ~0.5 (uniform)."""
    import optuna

    sc = SimpleNamespace(name="fake", controller=_Gains())
    p_log = parse_param({"key": "controller.k", "low": 1e-4, "high": 1.0}, 0, sc, "s")
    p_lin = parse_param({"key": "controller.k", "low": 1e-4, "high": 1.0, "log": False}, 0, sc, "s")
    p_plain = parse_param({"key": "controller.c"}, 0, sc, "s")
    assert p_log.log and not p_lin.log and not p_plain.log
    engine.quiet_optuna()
    for p, lo, hi in ((p_log, 3e-3, 3e-2), (p_lin, 0.4, 0.6)):
        st = SimpleNamespace(params=(p,))
        s = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
        vals = [s.ask(engine.distributions(st)).params[p.key] for _ in range(400)]
        assert lo < float(np.median(vals)) < hi


# ------------------------------------------------------------------ objectives, constraints, front


def _study(**kw):
    data = {"scenario": "snake_serpenoid", "trials": 2, "param": [{"key": "controller.alpha"}],
            "objective": [{"metric": "v", "per": "p", "direction": "maximize"}], **kw}
    return parse_study(data, base_dir=ROOT)


def test_objective_is_the_ratio_and_failures_say_why():
    st = _study(constraint=[{"metric": "tau", "max": 2.0}, {"metric": "ok_flag", "equals": True}])
    ev = results.evaluate(st, {"status": "ok", "v": 0.3, "p": 1.5, "tau": 2.5, "ok_flag": True})
    assert ev.values == [pytest.approx(0.2)] and ev.constraints == [pytest.approx(0.5), 0.0] and not ev.feasible
    ev = results.evaluate(st, {"status": "ok", "v": 0.3, "p": 1.5, "tau": 1.0, "ok_flag": True})
    assert ev.feasible and ev.constraints == [-1.0, 0.0]
    assert results.evaluate(st, {"status": "ok", "v": 0.3, "p": 1.5, "tau": 1.0, "ok_flag": False}).constraints[1] == 1.0
    ev = results.evaluate(st, {"status": "ok", "v": 0.3, "p": -0.1, "tau": 1.0, "ok_flag": True})
    assert ev.values is None and "p = -0.1 is not > 0" in ev.error
    ev = results.evaluate(st, {"status": "diverged", "error": "diverged at t = 1", "v": 0.3, "p": 1.0})
    assert ev.values is None and ev.error.startswith("run diverged")
    assert results.evaluate(st, {"status": "ok", "v": None, "p": 1.0}).values is None


def test_pareto_front_against_brute_force():
    st = parse_study({"scenario": "snake_serpenoid", "trials": 2, "param": [{"key": "controller.alpha"}],
                      "objective": [{"metric": "a", "direction": "minimize"},
                                    {"metric": "b", "direction": "maximize"}]}, base_dir=ROOT)
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0, 1, 60), rng.uniform(0, 1, 60)
    df = pd.DataFrame({"trial": range(60), "state": "COMPLETE", "feasible": True, "a": a, "b": b})
    df.loc[7, "feasible"] = False
    df.loc[7, ["a", "b"]] = [-1.0, 2.0]  # would dominate everything, but is infeasible
    front = set(results.best_trials(st, df))
    brute = {i for i in range(60) if i != 7 and not any(
        j != 7 and a[j] <= a[i] and b[j] >= b[i] and (a[j] < a[i] or b[j] > b[i]) for j in range(60))}
    assert front == brute and 7 not in front and len(front) >= 2
    one = parse_study({"scenario": "snake_serpenoid", "trials": 2, "param": [{"key": "controller.alpha"}],
                       "objective": [{"metric": "b", "direction": "maximize"}]}, base_dir=ROOT)
    assert results.best_trials(one, df) == [int(np.argmax(np.where(df["trial"] == 7, -np.inf, b)))]


# ------------------------------------------------------------------ a study, end to end


@pytest.mark.slow
def test_inline_study_baseline_table_best_files_that_reproduce(tmp_path):
    from lab.core import scenario as scn

    st = load_study(tiny_study(tmp_path, trials=4))
    out = tmp_path / "out"
    assert engine.run_study(st, out, inline=True, quiet=True) == 0
    df = pd.read_parquet(out / "results.parquet")
    assert sorted(df["trial"]) == [0, 1, 2, 3] and (df["state"] == "COMPLETE").all()
    base = df[df["baseline"]]
    assert list(base["trial"]) == [0] and base.iloc[0]["controller.alpha"] == 0.5
    best = json.loads((out / "best.json").read_text())
    (entry,) = best["best"]
    assert entry["reproduced"] and entry["differing"] == []
    assert entry["trial"] == int(df.loc[df["com.displacement_m"].idxmax(), "trial"])
    sc = scn.load(str(out / entry["scenario"]))  # a runnable scenario with the best trial's values
    assert sc.controller.alpha == entry["params"]["controller.alpha"]
    assert sc.controller.omega == entry["params"]["controller.omega"] and sc.sim.duration == TINY
    for f in ("history.png", "importance.png", "results.csv", "study.toml", "journal.log", "provenance.json"):
        assert (out / f).is_file(), f
    assert _journal_finals(out) == {i: 1 for i in range(4)}


@pytest.mark.slow
def test_a_best_trial_that_does_not_reproduce_is_reported(tmp_path, monkeypatch):
    """The reproduction check can fail: a row whose metric was tampered with is caught on re-run."""
    st = load_study(tiny_study(tmp_path, trials=2))
    out = tmp_path / "out"
    real = engine.run_task

    def tampered(task):
        row, result, files = real(task)
        if not task.run_id.startswith("best-"):
            row = {**row, "energy.input_work_J": row["energy.input_work_J"] + 1e-9}
            if task.row_file:
                Path(task.row_file).write_text(json.dumps(row))
        return row, result, files

    monkeypatch.setattr(engine, "run_task", tampered)
    assert engine.run_study(st, out, inline=True, quiet=True) == 1
    (entry,) = json.loads((out / "best.json").read_text())["best"]
    assert not entry["reproduced"] and entry["differing"] == ["energy.input_work_J"]


@pytest.mark.slow
def test_resume_tells_a_finished_trial_from_its_row_and_reruns_an_unfinished_one(tmp_path):
    """The states a kill leaves, made on purpose: trial 2 asked and run (row written) but never told,
    trial 3 asked and never run, trial 4 recorded by `ask` but killed before its parameters were. The
    resumed study tells 2 from its row without running it, runs 3 again with the parameters it was asked
    with, completes 4's parameters and runs it, asks 5 (trial 2 counted once towards the budget), and
    each trial is told exactly once."""
    import optuna

    from lab.sweep.execute import run_task

    st = load_study(tiny_study(tmp_path, trials=2))
    out = tmp_path / "out"
    assert engine.run_study(st, out, inline=True, quiet=True, verify=False) == 0
    storage = engine.open_storage(out)
    s = optuna.load_study(study_name=st.name, storage=storage)
    t2, t3 = s.ask(engine.distributions(st)), s.ask(engine.distributions(st))
    loop = engine.Loop(st, s, storage, engine.InlinePool(), out, "killed00", None, "--out")
    row2, _, _ = run_task(loop.task(2, dict(t2.params)))  # the worker finished: row on disk, never told
    asked3 = dict(t3.params)
    storage.create_new_trial(s._study_id)  # trial 4: the first of ask's operations, and no more
    del s, storage

    st6 = load_study(tiny_study(tmp_path, trials=6))  # same study, larger budget: resumed, one trial more asked
    assert engine.run_study(st6, out, inline=True, quiet=True, verify=False) == 0
    ev = _events(out)
    sessions = list(dict.fromkeys(s for s, _, _ in ev))
    resumed = sessions[-1]
    assert [(w, r) for s_, w, r in ev if s_ == resumed] == [("start", "t00003"), ("done", "t00003"),
                                                            ("start", "t00004"), ("done", "t00004"),
                                                            ("start", "t00005"), ("done", "t00005")]
    df = pd.read_parquet(out / "results.parquet").set_index("trial")
    assert sorted(df.index) == [0, 1, 2, 3, 4, 5] and (df["state"] == "COMPLETE").all()
    assert df.loc[2, "com.displacement_m"] == row2["com.displacement_m"]
    assert {k: df.loc[3, k] for k in asked3} == asked3
    assert 0.2 <= df.loc[4, "controller.alpha"] <= 0.8 and 1.0 <= df.loc[4, "controller.omega"] <= 3.0
    assert _journal_finals(out) == {i: 1 for i in range(6)}


def test_journal_cut_mid_append_is_repaired(tmp_path):
    """A SIGKILL during Optuna's append leaves a line without its newline. Unrepaired, the next append
    glues onto it and Optuna refuses the journal; repaired, the unacknowledged operation is gone and the
    study goes on."""
    import optuna

    engine.quiet_optuna()

    def make(path):
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        return JournalStorage(JournalFileBackend(str(path), lock_obj=engine._journal_lock_class()()))

    for repair in (False, True):
        d = tmp_path / f"r{repair}"
        d.mkdir()
        s = optuna.create_study(storage=make(d / engine.JOURNAL), study_name="j")
        s.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
        with open(d / engine.JOURNAL, "ab") as fh:
            fh.write(b'{"op_code":4,"worker_id":"dead","study_id":0,"datetime_st')  # killed mid-append
        storage = engine.open_storage(d) if repair else make(d / engine.JOURNAL)
        s2 = optuna.load_study(study_name="j", storage=storage)
        if not repair:
            with pytest.raises((ValueError, AttributeError)):  # Optuna 5: its replay loses the glued operation
                s2.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
                optuna.load_study(study_name="j", storage=make(d / engine.JOURNAL)).get_trials()
        else:
            s2.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
            again = optuna.load_study(study_name="j", storage=make(d / engine.JOURNAL))
            assert [t.state.name for t in again.get_trials()] == ["COMPLETE"] * 4


def test_a_changed_study_is_refused_and_a_second_writer_is_busy(tmp_path, capsys):
    from lab.core import writes

    f = tiny_study(tmp_path, trials=1)
    out = tmp_path / "out"
    out.mkdir()
    with writes.lock(out, "--out", wait=0.0, what="another lab optimize"):
        assert main(["optimize", str(f), "--out", str(out), "--workers", "1"]) == 2
    assert f"lab process {os.getpid()} is writing" in capsys.readouterr().err
    (out / ".lab-optimize").write_text(json.dumps({"kind": "optimize", "files": ["study.toml"], "name": "tiny"}))
    (out / "study.toml").write_text(engine.HEADER + 'name = "tiny"\nscenario = "x"\n')
    assert main(["optimize", str(f), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: --out {out}/study.toml: holds a different definition") and "scenario" in err


def test_a_study_folder_from_another_checkout_is_refused_naming_the_paths(tmp_path):
    """The same study file resolved from another checkout differs only in its paths: the refusal says so,
    with both values, instead of a bare 'scenario differ'."""
    from lab.core.errors import LabError
    from lab.optimize.study import load_study

    study = load_study(tiny_study(tmp_path))
    out = tmp_path / "out"
    out.mkdir()
    engine.write_definition(out, study)
    engine.same_definition(out, study, "--out")  # the same definition resumes
    text = (out / "study.toml").read_text()
    scen = study.to_dict()["scenario"]
    elsewhere = str(Path("/another/checkout") / Path(scen).name)
    (out / "study.toml").write_text(text.replace(repr(scen)[1:-1], elsewhere))
    with pytest.raises(LabError) as e:
        engine.same_definition(out, study, "--out")
    msg = str(e.value)
    assert "/another/checkout" in msg and "only the paths differ" in msg
    # a real change of the definition is not blamed on the paths
    (out / "study.toml").write_text(text.replace("seed = 5", "seed = 6"))
    with pytest.raises(LabError) as e:
        engine.same_definition(out, study, "--out")
    assert "(seed differ; seed: 6 in the folder, 5 now)" in str(e.value) and "paths" not in str(e.value)


# ------------------------------------------------------------------ the real command: SIGKILL, Ctrl-C


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _start(cmd: list[str], err: Path) -> subprocess.Popen:
    # Python's own SIGINT handler: a child of a backgrounded test run would inherit SIGINT ignored
    fg = [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
          "from lab.cli import main; sys.exit(main())"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    with open(err, "w") as fh:
        return subprocess.Popen([*fg, *cmd], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=fh,
                                start_new_session=True)


def _wait_done(out: Path, n: int, proc: subprocess.Popen, err: Path, timeout: float = 240) -> None:
    """Until events.log holds ``n`` "done" lines. Not the rows: a run's row is written before its "done"
    line, so a kill between the two (it happened at load 9) leaves a row the audit below does not count."""
    t0 = time.monotonic()
    log = out / "events.log"
    while sum(1 for e in (_events(out) if log.is_file() else []) if e[1:2] == ("done",)) < n:
        assert proc.poll() is None, err.read_text()
        assert time.monotonic() - t0 < timeout, "no finished runs in time"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_or_interrupted_study_resumes_with_every_trial_told_once(tmp_path, sig):
    f = tiny_study(tmp_path, trials=6, duration=1.0)
    out = tmp_path / "out"
    cmd = ["optimize", str(f), "--out", str(out), "--workers", "1"]
    err = tmp_path / "first.err"
    proc = _start(cmd, err)
    try:
        _wait_done(out, 2, proc, err)
        os.killpg(proc.pid, sig)
        proc.wait(timeout=120)
        t0 = time.monotonic()
        while _group_alive(proc.pid):  # no worker goes on computing after the study has gone
            assert time.monotonic() - t0 < 60, "processes outlived lab optimize"
            time.sleep(0.1)
    finally:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err.read_text()
        assert "Traceback" not in err.read_text()
    first = {r for _, w, r in _events(out) if w == "done"}
    assert 2 <= len(first) < 6
    done = subprocess.run([sys.executable, "-m", "lab.cli", *cmd], check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    df = pd.read_parquet(out / "results.parquet")
    assert sorted(df["trial"]) == list(range(6)) and (df["state"] == "COMPLETE").all()
    assert _journal_finals(out) == {i: 1 for i in range(6)}  # every trial told exactly once
    ev = _events(out)
    for rid in df["run_id"]:  # a finished run never runs again
        assert sum(1 for _, w, r in ev if w == "done" and r == rid) == 1, rid
    resumed = ev[-1][0]
    assert not {r for s, w, r in ev if s == resumed and w == "start"} & first
    assert json.loads((out / "best.json").read_text())["best"][0]["reproduced"]


def test_best_folder_with_a_users_file_is_refused_not_removed(tmp_path):
    """best/ is replaced as a whole when the best trials change; a file the lab did not write there stops
    that with one error, and stays."""
    from lab.core.errors import LabError
    from lab.optimize.results import _only_ours

    best = tmp_path / "best"
    best.mkdir()
    (best / "t00003.toml").write_text("# ours\n")
    _only_ours(best)  # only the lab's own files: fine
    (best / "notes.txt").write_text("mine")
    with pytest.raises(LabError, match="notes.txt"):
        _only_ours(best)
    assert (best / "notes.txt").read_text() == "mine"
    link = tmp_path / "best_link"
    link.symlink_to(best, target_is_directory=True)
    with pytest.raises(LabError, match="not the folder"):
        _only_ours(link)
