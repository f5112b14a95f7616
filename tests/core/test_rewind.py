"""Rewinding a tracked world (lab.core.world.World.save_state / restore_state, lab.core.runner.Simulation's): the
engine's saveState does not hold the lab's own per-step state — the conveyor slabs' gear targets
(lab.robots.tracked) and the controller's integrators — so a rewind must restore both (the tracked case
of benchmarks/step_overhead.py diverged after a bare restoreState: "runaway kinetic energy")."""

from __future__ import annotations

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.core.errors import Diverged
from lab.core.runner import Simulation


def _pass(sim: Simulation, n: int) -> np.ndarray:
    state = sim.world.read_state()
    rows = []
    for _ in range(n):
        state, _ = sim.step(state)
        rows.append(np.concatenate([state.p_W.ravel(), state.v_W.ravel(), state.q, state.qd]))
    return np.array(rows)


def _climbing_sim() -> Simulation:
    sim = Simulation(scn.load("tracked_step_climb", ["arena.step_height=0.10", "sim.duration=30"]))
    sim.run(duration=1.6)  # against the riser, the flip under way: contacts, slabs and servo integrators busy
    return sim


@pytest.mark.slow
def test_save_step_restore_step_repeats_the_first_pass_exactly():
    sim = _climbing_sim()
    try:
        snap = sim.save_state()
        first = _pass(sim, 800)
        sim.restore_state(snap)
        second = _pass(sim, 800)
    finally:
        sim.close()
    assert np.isfinite(first).all()
    assert np.array_equal(first, second)


def test_an_engine_only_restore_does_not_rewind_the_belt():
    """The control: Bullet's restoreState alone (the lab's hooks left where the first pass put them)
    does not repeat the first pass."""
    sim = _climbing_sim()
    try:
        snap = sim.save_state()
        first = _pass(sim, 800)
        sim.world.client.restoreState(snap[0].engine_id)
        sim.world.t, sim.world.steps, sim.world._prev = snap[0].t, snap[0].steps, snap[0].prev
        sim.controller.__dict__.update(__import__("copy").deepcopy(snap[1]).__dict__)
        try:
            second = _pass(sim, 800)
        except Diverged:  # the runaway the benchmark met
            return
    finally:
        sim.close()
    assert not np.allclose(first, second, atol=1e-6)
