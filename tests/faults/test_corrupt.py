"""The lab's own state, corrupted (a disk error, a crash of an older version, a hand edit): every
file the lab wrote is either rebuilt (a sweep's row files, its marker) or refused in one line that
names it and says what to do (a regression baseline, a run folder's marker); a scenario built to
exhaust the parser or the memory is refused before the run."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from _helpers import S, inproc, ok, one_error, the_error
from conftest import snapshot

SUITE = ('name = "tiny"\n[[run]]\nscenario = "snake_serpenoid"\nduration = 0.1\n'
         '[[run]]\nscenario = "snake_passive_creeping"\nduration = 0.1\n')


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    from lab.cli import main

    d = tmp_path_factory.mktemp("regress")
    (d / "tiny.toml").write_text(SUITE)
    assert main(["regress", "record", str(d / "tiny.toml"), "--out", str(d / "base")]) == 0
    return d


def corrupt_baseline(src, dst, edit):
    dst.mkdir()
    doc = json.loads((src / "baseline.json").read_text())
    edit(doc)
    (dst / "baseline.json").write_text(json.dumps(doc))
    return dst


def first(doc):
    return next(iter(doc["entries"]))


@pytest.mark.parametrize("edit, said", [
    (lambda d: d["entries"].__setitem__(first(d), "oops"), "is a string, not a table"),
    (lambda d: d["entries"][first(d)].__setitem__("metrics", None), "has 'metrics' null"),
    (lambda d: d["entries"][first(d)].__setitem__("metrics", [1, 2]), "has 'metrics' a list"),
    (lambda d: d.__setitem__("environment", None), "'environment' is null"),
    (lambda d: d.__setitem__("environment", [1]), "'environment' is a list"),
])
def test_a_damaged_baseline_is_refused_in_one_line(baseline, tmp_path, capsys, edit, said):
    bad = corrupt_baseline(baseline / "base", tmp_path / "bad", edit)
    before = snapshot(tmp_path)
    line = one_error(inproc(capsys, "regress", "check", baseline / "tiny.toml", "--baseline", bad))
    assert "baseline.json: is damaged" in line and said in line and "lab regress record" in line
    assert snapshot(tmp_path) == before


def test_a_baseline_with_an_entry_deleted_fails_check_naming_it(baseline, tmp_path, capsys):
    gone = {}

    def drop(doc):
        gone["id"] = first(doc)
        del doc["entries"][gone["id"]]

    bad = corrupt_baseline(baseline / "base", tmp_path / "bad", drop)
    res = inproc(capsys, "regress", "check", baseline / "tiny.toml", "--baseline", bad)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert gone["id"] in res.stdout and "not in baseline" in res.stdout
    ok(inproc(capsys, "regress", "check", baseline / "tiny.toml", "--baseline", baseline / "base"))


def test_a_damaged_run_marker_is_named(tmp_path, capsys):
    out = tmp_path / "out"
    ok(inproc(capsys, "run", S, "--set", "sim.duration=0.1", "--no-plots", "--out", out))
    (out / ".lab-run").write_bytes(b"\x00\xff{trunc")
    before = snapshot(tmp_path)
    line = one_error(inproc(capsys, "run", S, "--set", "sim.duration=0.1", "--out", out, "--overwrite"))
    assert f"{out}/.lab-run: is damaged" in line and "choose another folder" in line
    assert snapshot(tmp_path) == before


def test_deeply_nested_tables_are_refused_in_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.toml"
    deep.write_text("[" + ".".join(["a"] * 990) + "]\n")  # 2 KB
    assert "tables nest more than 16 levels" in one_error(inproc(capsys, "run", deep, "--out", tmp_path / "o"))
    many = tmp_path / "many.toml"
    many.write_text("\n".join("[" + ".".join(["a"] * i) + "]" for i in range(1, 45)))
    assert "tables nest more than 16 levels" in one_error(inproc(capsys, "run", many, "--out", tmp_path / "o"))
    line = one_error(inproc(capsys, "run", S, "--set", ".".join(["a"] * 990) + "=1", "--out", tmp_path / "o"))
    assert "at most 16" in line
    assert sorted(os.listdir(tmp_path)) == ["deep.toml", "many.toml"]


def test_a_record_too_large_for_memory_is_refused_before_the_run(tmp_path, capsys):
    line = one_error(inproc(capsys, "run", S, "--set", "sim.duration=1e5", "--set", "sim.dt=1e-5",
                            "--set", "sim.record_every=1", "--out", tmp_path / "o"))
    for name in ("sim.duration", "sim.dt", "sim.record_every", "GiB", "at most 2.0 GiB"):
        assert name in line
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_a_sweep_rebuilds_its_damaged_rows_and_marker_and_refuses_a_changed_definition(tmp_path, capsys):
    sweep = tmp_path / "s.toml"
    text = ('name = "dmg"\nbase = "snake_serpenoid"\n[set]\n"sim.duration" = 0.1\n'
            '[[axis]]\nkey = "controller.alpha"\nvalues = [0.2, 0.3, 0.4, 0.5]\n')
    sweep.write_text(text)
    out = tmp_path / "sw"
    ok(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
    rows = sorted((out / "rows").glob("*.json"))
    rows[0].write_bytes(os.urandom(200))
    rows[1].write_text("null")
    rows[2].write_text("[1, 2]")
    marker = out / ".lab-sweep"
    marker.write_text(marker.read_text()[:25])  # truncated
    res = ok(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
    assert "1 already done, 3 to run" in res.stderr  # the three damaged rows are run again, the good one kept
    df = pd.read_csv(out / "results.csv")
    assert len(df) == 4 and set(df["status"]) == {"ok"}
    assert all(isinstance(json.loads(p.read_text()), dict) for p in rows)
    assert json.loads(marker.read_text())["kind"] == "sweep"  # the marker rebuilt

    sweep.write_text(text.replace("0.5]", "0.6]"))  # the same name, another definition
    before = snapshot(tmp_path)
    line = the_error(inproc(capsys, "sweep", sweep, "--out", out, "--workers", "1"))
    assert "sweep.toml: holds a different definition of the sweep 'dmg'" in line and "another folder" in line
    assert snapshot(tmp_path) == before
