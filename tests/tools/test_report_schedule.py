"""The report's scheduling (lab.report.schedule, lab.report.core.Context): one run per resolved scenario
within a build, pure model calls computed once, the stability grid split by height, the build order."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.report import core
from lab.report.core import Context, next_section
from lab.report.schedule import _BUILD, memo, scenario_key

TINY = {"sim.duration": 0.05}


def test_scenario_key_is_the_resolved_scenario_and_its_seed():
    a = scn.load("snake_serpenoid", TINY)
    assert scenario_key(a) == scenario_key(scn.load("snake_serpenoid", dict(TINY)))
    # the same resolved value reached another way (a list override) is the same run
    assert scenario_key(a) == scenario_key(scn.load("snake_serpenoid", ["sim.duration=0.05"]))
    assert scenario_key(a) != scenario_key(scn.load("snake_serpenoid", {**TINY, "seed": 7}))
    assert scenario_key(a) != scenario_key(scn.load("snake_serpenoid", {**TINY, "sim.dt": 0.0005}))
    assert scenario_key(a) != scenario_key(scn.load("snake_serpenoid", {**TINY, "controller.omega": 2.5}))


@pytest.fixture
def counted(monkeypatch):
    """Every run_task call (the runs actually simulated), by run name."""
    from lab.sweep import execute

    seen, real = [], execute.run_task

    def run_task(task):
        seen.append(task.run_id)
        return real(task)

    monkeypatch.setattr(execute, "run_task", run_task)
    return seen


def test_a_scenario_asked_for_under_two_names_runs_once_and_both_share_it(tmp_path, counted):
    ctx = Context(tmp_path, workers=1)
    out = ctx.run_many([("first", "snake_serpenoid", TINY), ("again", "snake_serpenoid", dict(TINY)),
                        ("seed1", "snake_serpenoid", {**TINY, "seed": 7})])
    assert counted == ["first", "seed1"]  # "again" is "first": not simulated a second time
    assert out["again"] is out["first"]
    assert out["seed1"] is not out["first"]
    # a later batch (another section) asking for it again under a third name: still not run
    out2 = ctx.run_many([("third", "snake_serpenoid", TINY)])
    assert counted == ["first", "seed1"] and out2["third"] is out["first"]
    # every name has its run folder: the copies are the first run's files, their provenance says so
    for name in ("again", "third"):
        a, b = tmp_path / "runs" / "first", tmp_path / "runs" / name
        assert (a / "timeseries.csv").read_bytes() == (b / "timeseries.csv").read_bytes()
        prov = json.loads((b / "provenance.json").read_text())
        assert prov["run_id"] == name and prov["same_run_as"] == "first"
    rec = {r.name: r for r in ctx.records.values()}
    assert set(rec) == {"first", "seed1"} and rec["first"].shared_by == ["again", "third"]
    assert rec["first"].steps == round(0.05 / rec["first"].dt) and rec["first"].worker == "parent" and rec["first"].cpu_s > 0


def test_a_name_reused_for_another_scenario_is_refused(tmp_path):
    ctx = Context(tmp_path, workers=1)
    ctx.run_many([("a", "snake_serpenoid", TINY)])
    with pytest.raises(ValueError, match="already used for a different scenario"):
        ctx.run_many([("a", "snake_serpenoid", {**TINY, "seed": 8})])


def test_pure_calls_are_computed_once_per_build_and_shared_with_memo(tmp_path):
    calls = []

    def model(x, y):
        calls.append((x, y))
        return x * 10 + y

    ctx = Context(tmp_path, workers=1)
    assert ctx.compute([(model, (1, 2)), (model, (1, 2)), (model, (2, 1))]) == [12, 12, 21]
    assert calls == [(1, 2), (2, 1)]
    assert memo(model)(1, 2) == 12 and len(calls) == 3  # outside a build memo is the function itself
    _BUILD.append(ctx)
    try:
        assert memo(model)(1, 2) == 12 and memo(model)(2, 1) == 21
        assert len(calls) == 3  # inside the build: ctx.compute's results
        assert memo(model)(3, 0) == 30 and memo(model)(3, 0) == 30 and calls[-1] == (3, 0) and len(calls) == 4
        assert memo(model)(3.0, 0) == 30 and len(calls) == 5  # other arguments (a float): computed, not shared
    finally:
        _BUILD.remove(ctx)
    # the next build starts with an empty memo: nothing is kept between builds
    assert Context(tmp_path, workers=1).memo == {}


@pytest.mark.slow
def test_the_stability_grid_split_by_height_is_the_same_numbers():
    from lab.papers.hu2013_tracked.model import ClimbParams
    from lab.papers.hu2013_tracked.report import stability_by_height
    from lab.papers.hu2013_tracked.stability import stability_region

    p = ClimbParams()
    grid = (np.linspace(p.pulley_radius, 0.20, 2), np.radians([0.0, 45.0]), np.radians([0.0, 20.0, 40.0]))
    whole, split = stability_region(p, *grid), stability_by_height(p, *grid)
    for f in ("alphas", "betas", "heights", "margin"):
        assert np.array_equal(getattr(whole, f), getattr(split, f)), f
    assert whole.d_mar == split.d_mar


class _Fut:
    def __init__(self, done):
        self._done = done

    def done(self):
        return self._done


def test_sections_build_when_their_runs_are_in_and_in_order_otherwise(tmp_path, monkeypatch):
    ctx = Context(tmp_path, workers=2)
    ctx._flight = {"k1": (_Fut(False), None, None), "k2": (_Fut(True), None, None)}
    plans = {"a": ["k1"], "b": ["k2"], "c": []}
    assert next_section(ctx, ["a", "b", "c"], plans) == "b"  # a's run is still in flight
    ctx._flight["k1"] = (_Fut(True), None, None)
    assert next_section(ctx, ["a", "b", "c"], plans) == "a"  # report order once nothing waits
    waited = []

    def wait_any(timeout=5.0):
        waited.append(1)
        ctx._flight["k1"] = (_Fut(True), None, None)

    ctx._flight["k1"] = (_Fut(False), None, None)
    monkeypatch.setattr(ctx, "wait_any", wait_any)
    assert next_section(ctx, ["a"], plans) == "a" and waited == [1]


def test_every_planned_section_plans_the_runs_it_asks_for(tmp_path, monkeypatch):
    """A section's plan is the list its run_many calls ask for: asked-for runs that were not planned would
    start late (one by one in the parent), planned runs never asked for would be wasted."""
    from lab.report.schedule import PLANS

    sections = core.load_sections()
    asked: dict[str, list] = {}

    class Stop(Exception):
        pass

    def run_many(self, runs):
        asked.setdefault(self.section, []).extend(r[0] for r in runs)
        raise Stop

    monkeypatch.setattr(Context, "run_many", run_many)
    for key in ("wang2011_creeping", "zhang2018_eel", "guo2015_wheeled", "wang2011_unified"):
        ctx = Context(tmp_path, quick=True, workers=1)
        ctx.section = key
        assert key in PLANS
        planned = [r[0] for r in PLANS[key](ctx)]
        monkeypatch.setattr(ctx, "compute", lambda calls: [])  # the sections' model calls: not wanted here
        with pytest.raises(Stop):  # the section's first run_many call, recorded, ends it here
            sections[key].func(ctx)
        assert asked.get(key) and set(asked[key]) <= set(planned), key


def test_runs_go_in_flight_smallest_section_first_and_longest_first_within_one(tmp_path, monkeypatch):
    submitted = []

    class FakeExecutor:
        def submit(self, task, fn=None, priority=0):
            submitted.append((task.run_id, priority))
            return _Fut(False)

    ctx = Context(tmp_path, workers=2)
    monkeypatch.setattr(ctx, "_open_executor", lambda: FakeExecutor())
    big = [("b_short", "snake_serpenoid", {"sim.duration": 1.0}), ("b_long", "snake_serpenoid", {"sim.duration": 3.0}),
           ("b_mid", "snake_serpenoid", {"sim.duration": 2.0})]
    small = [("s_one", "snake_serpenoid", {"sim.duration": 0.5}), ("s_two", "snake_serpenoid", {"sim.duration": 0.7}),
             ("s_again", "snake_serpenoid", {"sim.duration": 0.5})]  # the same run as s_one
    assert ctx.submit(big + small, ["big"] * 3 + ["small"] * 3) == 5
    by_priority = [name for name, _ in sorted(submitted, key=lambda x: -x[1])]
    assert by_priority == ["s_two", "s_one", "b_long", "b_mid", "b_short"]
    assert ctx.records[next(iter(ctx._flight))].section == "small"


def test_the_timeline_keeps_the_step_as_it_is():
    from lab.report.schedule import RunRecord

    d = RunRecord("a", "s", "k" * 64, 0.0005, 130.0, 260000, start=1.23456, wall_s=float("nan")).as_dict()
    assert d["dt"] == 0.0005 and d["duration"] == 130.0 and d["start"] == 1.235 and d["wall_s"] is None


def test_a_longer_chain_goes_before_a_shorter_one_of_the_same_steps(tmp_path, monkeypatch):
    submitted = []

    class FakeExecutor:
        def submit(self, task, fn=None, priority=0):
            submitted.append((task.run_id, priority))
            return _Fut(False)

    ctx = Context(tmp_path, workers=2)
    monkeypatch.setattr(ctx, "_open_executor", lambda: FakeExecutor())
    from lab.papers.hu2013_tracked.report_multi import SCENARIO, sweep_runs

    cells = dict(sweep_runs())  # the design map's cells: the same 130 s at the same step
    ctx.submit([(n, SCENARIO, cells[n]) for n in ("chain_n2_h0.25_mu0.40", "chain_n3_h0.25_mu0.40")])
    assert [n for n, _ in sorted(submitted, key=lambda x: -x[1])] == ["chain_n3_h0.25_mu0.40", "chain_n2_h0.25_mu0.40"]
