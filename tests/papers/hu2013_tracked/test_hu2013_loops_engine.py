"""The triangle of Hu 2013 Fig 4 (our reading) climbing in the engine: lab run tracked_triangle_climb."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.slow
def test_triangle_climbs_the_step_within_every_rating():
    """Three modules as a rigid triangle of bars (the loop closed by the engine constraint) climb 0.22 m,
    above the single module's 0.195 m: every module's centre above the top at the end, the bottom pair past
    the edge, a positive support margin over the climb, every motor's applied torque on its torque–speed
    line (the World clips to it: every recorded torque within its line's bounds at the recorded speed; a
    back-driven connector may exceed its stall torque, as a motor braking does), and the potential
    energy gained is the whole robot's weight lifted h (ΔPE within 5 %: the apex ends where it began
    relative to the bottom pair)."""
    from lab.core import scenario as scn
    from lab.core.runner import run_scenario

    name = "tracked_triangle_climb"
    data = scn.apply_overrides(scn.read_toml(scn.resolve_path(name)), {"trial.stop_when_decided": True})
    sc = scn.from_dict(data, where=name)
    r = run_scenario(sc)
    m = r.metrics
    assert m["chain.success"] and m["chain.plan_ok"]
    assert m["chain.min_margin_m"] > 0
    from lab.core.actuators import Motors

    tau, qd = np.asarray(r.series["tau"]), np.asarray(r.series["qd"])
    names = list(r.joint_names)
    for joint, line in sc.robot.motors().items():
        stall, w0 = line[0], line[1]
        j = names.index(joint)
        lo, hi = Motors(np.array([stall]), np.array([w0])).bounds(qd[:, j])
        assert np.all(tau[:, j] <= hi + 1e-9) and np.all(tau[:, j] >= lo - 1e-9), joint
    dpe = m["chain.mass_kg"] * 9.81 * sc.arena.step_height
    assert abs(m["chain.ledger_dpe_J"] - dpe) < 0.05 * dpe
