"""`lab run`'s summary: the run's headline metrics first (declared by the trial, the analyses and the
robot, with what they are read against), then the generic ones; an undefined headline is "—" with
its reason, never a number."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.cli import headlines, main
from lab.core.views import summary_lines


def keys(scenario_name: str) -> list[str]:
    return [h.key for h in headlines(scn.load(scenario_name))]


def test_each_shipped_scenario_declares_its_headline():
    assert keys("tracked_step_climb")[:2] == ["climb.success", "climb.time_s"]
    assert keys("tracked_slope") == ["belt.body_speed_mps"]
    assert keys("snake_head_tracking")[0] == "pfl.head_rms_error_m"
    assert keys("snake_drag")[:3] == ["drag.completed", "drag.half1_s", "drag.half2_s"]
    assert "time.rhythmic_s" in keys("snake_drag")  # the creeping analysis the scenario asks for, after the trial's
    assert keys("snake_passive_creeping")[0] == "time.rhythmic_s"
    assert keys("eel_forward_turn")[0] == "heading.change_deg"
    assert keys("snake_unified_manipulation") == ["weld.tail_drift_m"]
    assert keys("snake_unified_locomotion") == []  # none declared: the generic metrics only


def test_headline_first_undefined_as_a_dash_with_its_reason():
    sc = scn.load("snake_passive_creeping")
    m = {"time.rhythmic_s": math.nan, "rhythm.period_s": 3.1, "turn.radius_m": math.inf, "turn.direction": 0,
         "turn.radius_fit_m": 4.0e7, "energy.balance_residual_rel": 1e-4, "com.displacement_m": 4.9}
    lines = summary_lines(m, headlines(sc))
    text = "\n".join(lines)
    assert lines[0].strip() == "headline:" and text.index("headline:") < text.index("generic:")
    row = next(ln for ln in lines if "turn.radius_m" in ln)
    assert "—" in row and "straight path" in row and "inf" not in row
    row = next(ln for ln in lines if "time.rhythmic_s" in ln)
    assert "—" in row and "nan" not in row.lower()
    assert "40000000" not in text and "4e+07" not in text  # the straight run's fitted radius is not shown
    assert "com.displacement_m" in text.split("generic:")[1]


def test_head_tracking_headline_states_its_tolerance():
    sc = scn.load("snake_head_tracking")
    lines = summary_lines({"pfl.head_rms_error_m": 5.9e-4}, headlines(sc))
    row = next(ln for ln in lines if "pfl.head_rms_error_m" in ln)
    assert "0.000587" not in row and "0.00059" in row and "≤ 0.001 m" in row


def test_lab_run_prints_the_climb_headline(tmp_path, capsys):
    assert main(["run", "tracked_step_climb", "--duration", "0.3", "--out", str(tmp_path / "r"), "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert out.index("climb.success") < out.index("energy.balance_residual_rel")
    row = next(ln for ln in out.splitlines() if "climb.time_s" in ln)
    assert "—" in row and "did not get over" in row


def test_a_serpenoid_run_prints_no_passive_creepings_commentary():
    """The rhythm onset is passive creeping's question (its rhythm emerges); a serpenoid follows a clock
    from t = 0, so its run headlines the turning circle, never creeping's onset text."""
    assert "time.rhythmic_s" not in keys("snake_serpenoid") and "rhythm.period_s" not in keys("snake_serpenoid")
    assert keys("snake_serpenoid")[:2] == ["turn.radius_m", "turn.direction"]
    m = {"time.rhythmic_s": math.nan, "rhythm.period_s": math.nan, "turn.radius_m": 0.36, "turn.direction": -1,
         "com.speed_mean_mps": 0.17}
    text = "\n".join(summary_lines(m, headlines(scn.load("snake_serpenoid"))))
    assert "passive creeping" not in text and "rhythm" not in text
    # a user's controller on the creeping scenario: the analysis' turning circle, not creeping's rhythm
    sc = scn.load("snake_passive_creeping", ["controller.type=serpenoid"])
    assert "time.rhythmic_s" not in [h.key for h in headlines(sc)]


def test_the_turn_directions_words_match_its_sign():
    sc = scn.load("snake_passive_creeping")
    for value, word, other in ((1, "left", "right"), (-1, "right", "left"), (0, "straight", "left")):
        row = next(ln for ln in summary_lines({"turn.direction": value}, headlines(sc)) if "turn.direction" in ln)
        assert word in row and other not in row, row


def _signed_area(xy) -> float:
    """Twice the signed area of the path closed by its chord (shoelace): > 0 for a counter-clockwise arc."""
    x, y = xy[:, 0] - xy[0, 0], xy[:, 1] - xy[0, 1]
    return float(np.sum(x[:-1] * y[1:] - x[1:] * y[:-1]))


@pytest.mark.slow
def test_the_printed_turn_word_agrees_with_the_paths_geometry():
    """Independent of the circle fit: the COM path's signed area (shoelace, closed by its chord) is
    positive for a path curving counter-clockwise seen from +z, which the summary must call left. A
    serpenoid with a joint offset γ turns: γ = +0.15 rad one way, −0.15 rad the other."""
    import lab

    words = set()
    for gamma in (0.15, -0.15):
        res = lab.run("snake_serpenoid", {"sim.duration": 8.0, "controller.gamma": gamma})
        area = _signed_area(res.series["xy"].mean(axis=1))  # equal link masses: the mean is the COM
        row = next(ln for ln in summary_lines(res.metrics, headlines(res.scenario)) if "turn.direction" in ln)
        assert abs(area) > 0.05, gamma  # a clear turn (a straight 0.86 m path would give ~0)
        word = "left" if area > 0 else "right"
        assert word in row, (gamma, area, row)
        words.add(word)
    assert words == {"left", "right"}


def test_lab_show_calls_a_default_written_to_seven_digits_the_default(capsys):
    """snake_serpenoid writes beta = 0.6981317 for the default 2π/9: not a change; 0.698 is one."""
    assert main(["show", "snake_serpenoid"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.split()[:1] == ["beta"])
    assert row.split()[1] == "0.6981317", row  # no "*" column entry
    assert main(["show", "snake_serpenoid", "--set", "controller.beta=0.698"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.split()[:1] == ["beta"])
    assert row.split()[1] == "*", row
