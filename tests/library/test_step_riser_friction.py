"""``arena.riser_friction``: the step's riser face gets its own Coulomb μ, the ground, the edge and the
top keep ``arena.friction`` (lab.arenas.step.Step) — measured in the engine from the contact forces on
a block of friction 1 (Bullet multiplies the two bodies' coefficients)."""

from __future__ import annotations

import numpy as np
import pytest

from lab.arenas.step import EDGE_BAND, Step
from lab.robots.urdf import box_urdf
from lab.core.world import World

H, SIDE, M = 0.10, 0.04, 1.0


def _measure(arena: Step, p0, push_W, v0=None, steps: int = 60):
    """A 1 kg block of friction 1 placed at ``p0``, pushed by ``push_W`` every step (or, with ``v0``, left
    to settle for 100 steps, then given the velocity ``v0``); after ``steps`` steps: {arena body name:
    (summed normal force, summed friction force on the block)}."""
    w = World(dt=0.001, arena=arena)
    try:
        w.load_robot(box_urdf("b", M, (SIDE,) * 3), list(p0), 0.0, SIDE, 1.0, engine_friction=1.0)
        w.record_contacts = True
        if v0 is not None:
            for _ in range(100):
                w.step_engine()
            w.set_base_velocity(v0)
        s = w.read_state()
        F = np.array([push_W], float)
        for _ in range(steps):
            w.apply(None, F, s)
            w.step_engine()
            s = w.read_state()
        names = {b: n for n, b in w.arena_bodies.items()}
        out = {}
        for row in s.contacts:
            name = names[int(row[1])]
            fn, ff = out.get(name, (0.0, np.zeros(3)))
            out[name] = (fn + row[8], ff + row[9:12])
        return out, s
    finally:
        w.close()


@pytest.mark.parametrize("mu_w", [0.0, 0.3, 0.8])
def test_a_block_sliding_down_the_riser_sees_riser_friction(mu_w):
    """Pushed into the riser with 10 N, clear of the ground, the block slides down (μ_w·10 N < m g) with
    friction μ_w N upwards; the top's μ (2.0 here) plays no part."""
    arena = Step(step_height=H, step_x=0.0, friction=2.0, riser_friction=mu_w)
    out, s = _measure(arena, (-SIDE / 2, 0.0, 0.06), (10.0, 0.0, 0.0))
    assert set(out) == {"riser"}
    fn, ff = out["riser"]
    assert fn == pytest.approx(10.0, rel=1e-3)
    assert ff == pytest.approx([0.0, 0.0, mu_w * fn], abs=1e-3 + 1e-3 * fn)
    assert s.v_W[0, 2] < -0.01  # sliding down


@pytest.mark.parametrize("mu", [0.3, 1.5])
def test_ground_and_top_keep_arena_friction(mu):
    """Sliding at 1 m/s on the ground and on the step's top (its edge band): friction μ N against the
    motion (the contact's ratio), μ = ``arena.friction``, whatever the riser's μ."""
    arena = Step(step_height=H, step_x=0.0, friction=mu, riser_friction=0.05)
    for name, p0, v0 in (("ground", (-0.3, 0.0, SIDE / 2), (-1.0, 0.0, 0.0)),
                         ("step", (0.3, 0.0, H + SIDE / 2), (1.0, 0.0, 0.0))):
        out, _ = _measure(arena, p0, (0.0, 0.0, 0.0), v0=v0, steps=5)
        assert set(out) == {name}
        fn, ff = out[name]
        assert fn > 0.3 * M * 9.81  # (a sliding cube rocks: its normal force swings about m g, the ratio holds)
        assert np.linalg.norm(ff) == pytest.approx(mu * fn, rel=1e-2)
        assert ff[0] * v0[0] < 0 and ff[2] == 0.0


def test_the_edge_belongs_to_the_top():
    """A block lying across the edge line (overhanging the riser by 15 mm), sliding along the edge: its
    contacts are the top's body, at the top's μ — the riser's box stops EDGE_BAND below the edge."""
    arena = Step(step_height=H, step_x=0.0, friction=0.6, riser_friction=0.0)
    out, s = _measure(arena, (SIDE / 2 - 0.015, 0.0, H + SIDE / 2), (0.0, 0.0, 0.0), v0=(0.0, 1.0, 0.0), steps=5)
    assert set(out) == {"step"}
    fn, ff = out["step"]
    assert np.linalg.norm(ff) == pytest.approx(0.6 * fn, rel=1e-2)
    assert 0 < EDGE_BAND <= 0.005


def test_unset_riser_friction_builds_one_box():
    """Without ``riser_friction`` the step is the one box it always was (regression runs unchanged)."""
    w = World(dt=0.001, arena=Step(step_height=H))
    try:
        assert set(w.arena_bodies) == {"ground", "step"}
    finally:
        w.close()
    with pytest.raises(ValueError, match="riser_friction"):
        Step(riser_friction=-0.1)
