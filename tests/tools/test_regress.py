"""lab regress: record a baseline, check it, and say exactly what drifted."""

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from lab.cli import main
from lab.regress.compare import Row, compare_entry, compare_value, compared, tolerance_for, worst_first
from lab.regress.suite import Entry, Suite, Tolerance, load_suite

SUITE = """
name = "t"
[[run]]
scenario = "snake_serpenoid"
duration = 0.3
[[run]]
id = "creeping"
scenario = "snake_passive_creeping"
duration = 0.3
set = ["friction.mu_n=0.35"]
[[check]]
name = "friction_block"
"""


def _suite(tmp_path, text=SUITE, name="s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("regress")
    suite = _suite(tmp)
    assert main(["regress", "record", str(suite), "--out", str(tmp / "base")]) == 0
    return suite, tmp / "base"


@pytest.mark.slow
def test_record_then_check_holds(recorded, tmp_path, capsys):
    suite, base = recorded
    doc = json.loads((base / "baseline.json").read_text())
    assert sorted(doc["entries"]) == ["check.friction_block", "creeping", "snake_serpenoid"]
    assert doc["entries"]["creeping"]["metrics"]["status"] == "ok"
    assert "mu_n = 0.35" in doc["entries"]["creeping"]["definition"]  # the resolved scenario
    assert doc["entries"]["check.friction_block"]["metrics"]["check.along.stop_distance_rel_err.passed"] is True
    assert (base / "provenance.json").is_file() and (base / ".lab-regress").is_file()
    capsys.readouterr()
    junit, md = tmp_path / "j.xml", tmp_path / "m.md"
    assert main(["regress", "check", str(suite), "--baseline", str(base), "--junit", str(junit),
                 "--markdown", str(md)]) == 0
    assert "0 failed" in capsys.readouterr().out
    root = ET.parse(junit).getroot()  # a standard parser reads it
    assert root.tag == "testsuite" and root.get("tests") == "3" and root.get("failures") == "0"
    assert [tc.get("name") for tc in root.iter("testcase")] == ["snake_serpenoid", "creeping", "check.friction_block"]
    assert "all metrics held" in md.read_text()


def test_one_perturbed_metric_fails_alone(recorded, tmp_path, capsys):
    """Move one number of a copy of the baseline past its tolerance: that metric, and nothing else."""
    suite, base = recorded
    copy = tmp_path / "base2"
    copy.mkdir()
    doc = json.loads((base / "baseline.json").read_text())
    m = doc["entries"]["creeping"]["metrics"]
    m["com.displacement_m"] += 2e-6  # tolerance: abs 1e-6 m
    (copy / "baseline.json").write_text(json.dumps(doc))
    junit = tmp_path / "j.xml"
    capsys.readouterr()
    assert main(["regress", "check", str(suite), "--baseline", str(copy), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out.splitlines()
    fails = [ln for ln in out if "FAIL" in ln]
    assert len(fails) == 1 and "creeping" in fails[0] and "com.displacement_m" in fails[0]
    root = ET.parse(junit).getroot()
    failed = [tc.get("name") for tc in root.iter("testcase") if tc.find("failure") is not None]
    assert failed == ["creeping"] and root.get("failures") == "1"


def test_an_override_is_a_changed_definition_and_moves_the_physics(recorded, capsys):
    suite, base = recorded
    capsys.readouterr()
    assert main(["regress", "check", str(suite), "--baseline", str(base), "--set", "friction.mu_t=0.05"]) == 1
    out = capsys.readouterr().out.splitlines()
    rows = [ln for ln in out if "FAIL" in ln]
    assert "changed definition" in rows[0] and "changed definition" in rows[1]  # worst first
    assert any("drift" in r and "creeping" in r for r in rows)
    assert not any("check.friction_block" in r for r in rows)  # --set touches runs only


def test_diverged_run_in_baseline_or_now_is_a_status_change(tmp_path, capsys):
    """A run that diverges keeps its data; a status that differs from the baseline's fails exactly."""
    text = '[[run]]\nscenario = "snake_serpenoid"\nduration = 0.3\nset = ["sim.max_kinetic_energy=1e-9"]\n'
    suite = _suite(tmp_path, text)
    assert main(["regress", "record", str(suite), "--out", str(tmp_path / "b")]) == 0
    doc = json.loads((tmp_path / "b" / "baseline.json").read_text())
    m = doc["entries"]["snake_serpenoid"]["metrics"]
    assert m["status"] == "diverged" and m["diverged_at_s"] > 0
    assert main(["regress", "check", str(suite), "--baseline", str(tmp_path / "b")]) == 0  # diverges alike
    m["status"] = "ok"  # as if the baseline had run through
    (tmp_path / "b" / "baseline.json").write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["regress", "check", str(suite), "--baseline", str(tmp_path / "b")]) == 1
    fails = [ln for ln in capsys.readouterr().out.splitlines() if "FAIL" in ln]
    assert len(fails) == 1 and " status " in f" {fails[0]} " and "diverged" in fails[0]


def test_tolerance_kinds():
    abs_tol, rel_tol, exact = Tolerance(abs=1e-6), Tolerance(rel=1e-3), Tolerance(exact=True)
    assert compare_value(1.0, 1.0 + 0.9e-6, abs_tol)[0] and not compare_value(1.0, 1.0 + 1.1e-6, abs_tol)[0]
    assert compare_value(100.0, 100.09, rel_tol)[0] and not compare_value(100.0, 100.11, rel_tol)[0]
    assert compare_value(-100.0, -100.09, rel_tol)[0]  # relative to |baseline|
    assert not compare_value(1.0, 1.0 + 1e-15, exact)[0] and compare_value(2.0, 2.0, exact)[0]
    assert compare_value(math.nan, math.nan, abs_tol)[0] and not compare_value(math.nan, 1.0, abs_tol)[0]
    assert not compare_value(math.inf, 1e308, rel_tol)[0]
    assert compare_value("ok", "ok", exact)[0] and not compare_value("ok", "diverged", abs_tol)[0]
    assert not compare_value(True, False, rel_tol)[0]


def test_tolerance_families_and_overrides():
    e = Entry("e", "run", "x", tolerance=(("com.*", Tolerance(abs=0.5)),))
    s = Suite("s", Path("s.toml"), (e,), tolerance=(("energy.eta1", Tolerance(rel=0.1)),))
    assert tolerance_for("energy.input_work_J", None, None) == Tolerance(abs=1e-9, rel=1e-6)
    assert tolerance_for("head.path_length_m", None, None) == Tolerance(abs=1e-6)
    assert tolerance_for("turn.swept_rad", None, None) == Tolerance(abs=1e-6)
    assert tolerance_for("climb.time_s", None, None) == Tolerance(abs=1e-6)
    assert tolerance_for("com.displacement_m", e, s) == Tolerance(abs=0.5)  # the entry's first
    assert tolerance_for("energy.eta1", e, s) == Tolerance(rel=0.1)  # then the suite's
    assert not compared("wall_time_s", None) and not compared("realtime_factor", None)
    assert compared("com.displacement_m", Entry("e", "run", "x", metrics=("com.*",)))
    assert not compared("energy.eta1", Entry("e", "run", "x", metrics=("com.*",)))


def test_entry_level_events_sort_first():
    e = Entry("e", "run", "x")
    base = {"definition": "a", "metrics": {"status": "ok", "x_m": 1.0, "gone_m": 1.0}}
    now = {"definition": "b", "metrics": {"status": "ok", "x_m": 1.1, "new_m": 2.0}}
    rows = worst_first(compare_entry(e, None, base, now))
    assert [r.status for r in rows][:3] == ["changed definition", "missing", "drift"]
    assert {r.metric: r.status for r in rows}["new_m"] == "new"  # reported, not failing
    assert not [r for r in rows if r.status == "new"][0].failed
    row = compare_entry(e, None, None, now)[0]  # deleted from the baseline (or new in the suite): fails, named
    assert row.status == "not in baseline" and row.failed and row.entry == e.id
    assert compare_entry(e, None, base, None)[0].failed


def test_interrupted_check_and_record_write_nothing(recorded, tmp_path, monkeypatch):
    import lab.regress as regress

    suite, base = recorded

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(regress, "run_entries", interrupted)
    junit, md = tmp_path / "j.xml", tmp_path / "m.md"
    assert main(["regress", "check", str(suite), "--baseline", str(base), "--junit", str(junit),
                 "--markdown", str(md)]) == 130  # Ctrl-C, as every command
    assert main(["regress", "record", str(suite), "--out", str(tmp_path / "newbase")]) == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("text,field", [
    ("[[run]]\nscenario = 'snake_serpenoid'\nspeed = 1\n", "run[0].speed: unknown key"),
    ("[[run]]\nduration = 1\n", "run[0].scenario: missing"),
    ("[[run]]\nscenario = 'snake_serpenoid'\nduration = -1\n", "run[0].duration: must be a number of seconds > 0"),
    ("[[run]]\nscenario = 'snake_serpenoid'\nset = ['robot.n_modules=1']\n", "robot.n_modules: must be"),
    ("[[check]]\nname = 'nope'\n", "check[0].name: unknown check 'nope'"),
    ("[[run]]\nscenario = 'snake_serpenoid'\n[[run]]\nscenario = 'snake_serpenoid'\nid = 'snake_serpenoid'\n",
     "run[1].id: 'snake_serpenoid' is used by another entry"),
    ("[tolerance]\n'x' = {abs = -1}\n[[run]]\nscenario = 'snake_serpenoid'\n", "tolerance.x.abs: must be a number ≥ 0"),
    ("name = 'a b'\n[[run]]\nscenario = 'snake_serpenoid'\n", "name: must be letters"),
    ("", "has no [[run]] or [[check]] entries"),
    ("[[run]\n", "not valid TOML"),
])
def test_bad_suites_are_one_error_line(tmp_path, capsys, text, field):
    suite = _suite(tmp_path, text)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["regress", "record", str(suite), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and field in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_bad_baselines_and_outputs_are_one_error_line(recorded, tmp_path, capsys):
    suite, base = recorded
    (tmp_path / "j.xml").write_text("mine")
    for args, msg in (
        (["--baseline", str(tmp_path / "none")], "no such folder"),
        (["--baseline", str(tmp_path)], "holds no baseline.json"),
        (["--baseline", str(base), "--junit", str(tmp_path / "j.xml")], "exists; pass --overwrite"),
        (["--baseline", str(base), "--workers", "0"], "--workers: must be at least 1"),
    ):
        assert main(["regress", "check", str(suite), *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and msg in err[0], err
    assert (tmp_path / "j.xml").read_text() == "mine"
    assert main(["regress", "record", str(suite), "--out", str(tmp_path)]) == 2  # a folder the lab did not write
    assert "holds files the lab did not write" in capsys.readouterr().err


def test_the_labs_own_suite_loads():
    s = load_suite("regression")
    assert {e.kind for e in s.entries} == {"run", "check"}
    from lab.core import scenario as scn

    shipped = {p.stem for p in scn.list_scenarios()}
    assert shipped <= {e.target for e in s.entries if e.kind == "run"}, "every shipped scenario is in the suite"


def test_row_excess_orders_drifts_by_how_far_past_tolerance():
    a = Row("e", "a", 1.0, 1.1, 0.1, "abs 0.01", "drift", 0.01)  # 10× past
    b = Row("e", "b", 1.0, 2.0, 1.0, "abs 0.5", "drift", 0.5)  # 2× past
    assert [r.metric for r in worst_first([b, a])] == ["a", "b"]
