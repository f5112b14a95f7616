"""The drag trial: the tether law against its closed form, and the course metrics from a real run."""

import math

import numpy as np
import pytest
from conftest import make_state

from lab.core import scenario as scn
from lab.forces.tether import SpringTether
from lab.core.runner import run_scenario
from lab.core.state import BodyState


def _state_with_payload(p_payload, v_payload=(0, 0, 0), v_tail=(0, 0, 0), yaw=0.0):
    s = make_state(yaw=[yaw, yaw], p_W=[[0, 0, 0.01], [0.08, 0, 0.01]], v_W=[v_tail, v_tail])
    s.extra["payload"] = BodyState(np.array(p_payload, float), np.array([0, 0, 0, 1.0]), np.array(v_payload, float),
                                   np.zeros(3), 1.0)
    return s


def test_tether_tension_direction_and_moment():
    law = SpringTether(length=0.15, k=400.0, c=5.0, level=False)
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


def test_level_rope_pulls_horizontally_from_a_higher_payload_centre():
    """The box's centre sits 17.5 mm above the tail's axis; the level rope (tied at the tail's height)
    pulls along the ground, with the stretch measured horizontally; the old rope tilted by atan(Δz/d)."""
    anchor = np.array([-0.04, 0.0, 0.01])
    p = anchor + np.array([-0.16, 0.0, 0.0175])
    level = SpringTether(length=0.15, k=400.0, c=0.0)(_state_with_payload(p), 0.0)
    assert level.F_W[0][2] == 0.0 and level.extra["payload"][2] == 0.0
    assert level.F_W[0][0] == pytest.approx(-400.0 * 0.01)  # pulls the tail back, 1 cm horizontal stretch
    tilted = SpringTether(length=0.15, k=400.0, c=0.0, level=False)(_state_with_payload(p), 0.0)
    assert math.degrees(math.atan2(-tilted.F_W[0][2], -tilted.F_W[0][0])) == pytest.approx(
        -math.degrees(math.atan2(0.0175, 0.16)), abs=1e-9)  # the old rope pulled the tail down-back at ~6°


@pytest.mark.slow
def test_drag_course_metrics_from_a_short_run():
    sc = scn.load("snake_drag", ["trial.length=0.04", "sim.duration=30", "trial.payload_mass=0.2",
                                 "trial.clock=start"])
    r = run_scenario(sc)
    m = r.metrics
    assert m["drag.completed"] is True
    assert m["drag.progress_m"] >= 0.04
    assert m["drag.half1_s"] > 0 and m["drag.half2_s"] > 0
    assert m["sim_time_s"] == pytest.approx(m["drag.half1_s"] + m["drag.half2_s"], abs=0.06)  # course ends the run
    assert 0 < m["drag.amp_half1_rad"] < math.pi


@pytest.mark.slow
def test_onset_clock_times_the_course_from_when_the_robot_moves():
    """Serpenoid (moves from the first period) with a light payload: the course starts at motion onset,
    the halves add up to the time from onset to the end of the course, and the run goes a little past it."""
    from lab.trials.drag_course import STOP_MARGIN_M

    sc = scn.load("snake_drag", {"controller": {"type": "serpenoid"}, "trial.length": 0.06,
                                 "trial.payload_mass": 0.01, "sim.duration": 20.0})
    assert sc.trial.clock == "onset"
    m = run_scenario(sc).metrics
    assert m["drag.completed"] is True
    assert 0 < m["drag.onset_s"] < 3.0  # a fixed gait moves within its first period (π s)
    t_end_course = m["drag.onset_s"] + m["drag.half1_s"] + m["drag.half2_s"]
    assert t_end_course < m["sim_time_s"]
    assert m["drag.progress_m"] > 0.06  # counted from the start, the course from the onset position
    # the stop needs the onset decided (held sc.trial.onset_hold) and the course + STOP_MARGIN_M run
    speed = 0.03 / m["drag.half2_s"]
    stop = max(m["drag.onset_s"] + sc.trial.onset_hold, t_end_course + STOP_MARGIN_M / speed)
    assert m["sim_time_s"] == pytest.approx(stop, abs=0.1)


@pytest.mark.slow
def test_no_motion_means_no_course():
    """A payload far too heavy for a 3 s run: onset never comes, the course is not run (NaN halves)."""
    sc = scn.load("snake_drag", {"trial.payload_mass": 50.0, "sim.duration": 3.0})
    m = run_scenario(sc).metrics
    assert m["drag.completed"] is False and math.isnan(m["drag.onset_s"])
    assert math.isnan(m["drag.half1_s"]) and math.isnan(m["drag.half2_s"])


def test_payload_without_body_named_is_an_input_error():
    from lab.core.errors import LabError

    with pytest.raises(LabError, match="forces.tether.body"):
        scn.load("snake_drag", ["forces.tether.body=anchor"])
