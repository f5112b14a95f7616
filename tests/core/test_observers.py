"""Observers of the run loop (lab.core.observers): they watch, never change the physics; they end a run
the way they say; no study writes its own step loop."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.core.observers import DONE, STOPPED, Observer, Probe
from lab.core.runner import Simulation, run_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "snake_serpenoid"


class Log(Observer):
    def __init__(self, stop_at=None, verdict=None):
        self.calls, self.stop_at, self.verdict = [], stop_at, verdict

    def on_setup(self, run):
        self.calls.append(("setup", run.world.steps))

    def on_start(self, run, state):
        self.calls.append(("start", state.t))

    def on_step(self, k, pre, tau, parts, post):
        self.calls.append(("step", k))
        assert post.t > pre.t and tau.shape == pre.q.shape and "friction" in parts
        return self.verdict if k == self.stop_at else None

    def on_end(self, run, state, status):
        self.calls.append(("end", status))


def test_observers_see_every_step_in_order_and_change_nothing():
    sc = scn.load(SCENARIO, ["sim.duration=0.05", "sim.dt=0.001"])  # 50 steps, whatever the shipped step
    plain = run_scenario(sc)
    log = Log()
    seen = []
    watched = run_scenario(sc, observers=(log, Probe(lambda k, *a: seen.append(k), every=10, last=49)))
    n = int(round(0.05 / sc.sim.dt))
    assert [c[0] for c in log.calls] == ["setup", "start", *["step"] * n, "end"]
    assert log.calls[1] == ("start", 0.0) and log.calls[-1] == ("end", "ok")
    assert seen == [0, 10, 20, 30, 40, 49]
    for k in plain.series:
        np.testing.assert_array_equal(plain.series[k], watched.series[k], err_msg=k)


@pytest.mark.parametrize("verdict, status", [(DONE, "ok"), (STOPPED, "stopped")])
def test_an_observer_ends_the_run(verdict, status):
    sc = scn.load(SCENARIO, ["sim.duration=0.05"])
    log = Log(stop_at=9, verdict=verdict)
    res = run_scenario(sc, observers=(log,))
    assert res.status == status and res.metrics["steps"] == 10
    assert log.calls[-1] == ("end", status)


def test_an_observer_may_explain_an_exception_and_only_then():
    class Boom(Observer):
        def on_step(self, k, pre, tau, parts, post):
            if k == 3:
                raise ConnectionError("window gone")

    class Explains(Observer):
        def on_error(self, exc):
            return "stopped" if isinstance(exc, ConnectionError) else None

    sc = scn.load(SCENARIO, ["sim.duration=0.05"])
    assert run_scenario(sc, observers=(Boom(), Explains())).status == "stopped"
    with pytest.raises(ConnectionError):
        run_scenario(sc, observers=(Boom(),))


def test_the_setup_hook_may_set_the_initial_state():
    class Bent(Observer):
        def on_setup(self, run):
            run.world.reset_state(q=np.full(run.world.n_joints, 0.3))

    sc = scn.load(SCENARIO, ["sim.duration=0.002"])
    res = run_scenario(sc, observers=(Bent(),))
    np.testing.assert_allclose(res.series["q"][0], 0.3)


def test_injected_controller_and_recorder_are_used_and_fixed():
    """What the environments use: a controller and a ledger given at construction (never swapped later)."""
    from lab.controllers.base import Controller

    class Zero(Controller):
        def act(self, state):
            return np.zeros(len(state.q))

    sc = scn.load(SCENARIO, ["sim.duration=0.01"])
    sim = Simulation(sc, controller=lambda w: Zero(None))
    try:
        assert isinstance(sim.controller, Zero) and sim.view.controller is sim.controller
        state = sim.world.read_state()
        for _ in range(5):
            state, _ = sim.step(state)
        assert np.all(sim.last_tau == 0)
        state, _ = sim.step(state, tau=np.full(len(state.q), 0.01))  # given torques replace the controller's
        assert np.all(sim.last_tau == 0.01)
    finally:
        sim.close()


def _loops(path: Path, root: Path = ROOT) -> list[str]:
    """``x.step(...)`` calls inside a ``for``/``while`` loop and ``recorder.start`` calls: a second run loop."""
    out = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        for node in ast.walk(loop):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("sim", "simulation", "self"):
                out.append(f"{path.relative_to(root)}:{node.lineno}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "start" \
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "recorder":
            out.append(f"{path.relative_to(root)}:{node.lineno} (recorder.start)")
    return out


def test_no_study_writes_its_own_step_loop():
    """The papers, checks, trials and library run through Simulation.run with observers. The two
    places that step a Simulation one step at a time are the interactive API (lab.api.Sim.step) and
    the Gymnasium environment (an env step is a frame_skip of runner steps), besides the runner itself."""
    allowed = {"lab/core/runner.py", "lab/api.py", "lab/envs/env.py"}
    bad = [hit for p in sorted((ROOT / "lab").rglob("*.py")) if p.relative_to(ROOT).as_posix() not in allowed
           for hit in _loops(p)]
    assert not bad, bad


def test_the_loop_detector_finds_a_loop(tmp_path):
    p = tmp_path / "study.py"
    p.write_text("def f(sim, state):\n    sim.recorder.start(state)\n    for _ in range(3):\n"
                 "        state, _ = sim.step(state)\n")
    assert len(_loops(p, tmp_path)) == 2
