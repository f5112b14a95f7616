"""The drag trial: the tether law against its closed form, and the course metrics from a real run."""

import math

import numpy as np
import pytest
from conftest import make_state

from lab import scenario as scn
from lab.forces.tether import SpringTether
from lab.runner import run_scenario
from lab.state import BodyState


def _state_with_payload(p_payload, v_payload=(0, 0, 0), v_tail=(0, 0, 0), yaw=0.0):
    s = make_state(yaw=[yaw, yaw], p_W=[[0, 0, 0.01], [0.08, 0, 0.01]], v_W=[v_tail, v_tail])
    s.extra["payload"] = BodyState(np.array(p_payload, float), np.array([0, 0, 0, 1.0]), np.array(v_payload, float),
                                   np.zeros(3), 1.0)
    return s


def test_tether_tension_direction_and_moment():
    law = SpringTether(length=0.15, k=400.0, c=5.0)
    anchor = np.array([-0.04, 0.0, 0.01])
    # payload 0.2 m behind the anchor and 0.05 m to the side: stretched by |d| − L
    d = np.array([-0.2, 0.05, 0.0])
    s = _state_with_payload(anchor + d, v_payload=(-0.1, 0, 0))
    w = law(s, 0.0)
    dist = np.linalg.norm(d)
    u = d / dist
    T = 400 * (dist - 0.15) + 5.0 * np.dot([-0.1, 0, 0], u)
    np.testing.assert_allclose(w.F_W[0], T * u, rtol=1e-12)
    np.testing.assert_allclose(w.extra["payload"], -T * u, rtol=1e-12)
    np.testing.assert_allclose(w.T_W[0], np.cross(anchor - s.p_W[0], T * u), rtol=1e-12, atol=1e-15)
    assert np.all(w.F_W[1:] == 0)


def test_tether_is_slack_when_short_and_never_pushes():
    law = SpringTether(length=0.15, k=400.0, c=5.0)
    s = _state_with_payload([-0.15, 0, 0.01])  # 0.11 m from the anchor: slack
    assert np.all(law(s, 0.0).F_W == 0)
    # stretched but closing fast: damping would push, the rope cannot
    s = _state_with_payload([-0.2, 0, 0.01], v_payload=(5.0, 0, 0))
    assert np.all(law(s, 0.0).F_W == 0)


def test_drag_course_metrics_from_a_short_run():
    sc = scn.load("snake_drag", ["trial.length=0.04", "sim.duration=30", "trial.payload_mass=0.2"])
    r = run_scenario(sc)
    m = r.metrics
    assert m["drag.completed"] is True
    assert m["drag.progress_m"] >= 0.04
    assert m["drag.half1_s"] > 0 and m["drag.half2_s"] > 0
    assert m["sim_time_s"] == pytest.approx(m["drag.half1_s"] + m["drag.half2_s"], abs=0.06)  # course ends the run
    assert 0 < m["drag.amp_half1_rad"] < math.pi


def test_payload_without_body_named_is_an_input_error():
    from lab.errors import LabError

    with pytest.raises(LabError, match="forces.tether.body"):
        scn.load("snake_drag", ["forces.tether.body=anchor"])
