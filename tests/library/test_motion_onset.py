"""Motion onset (lab.analysis.onset) against hand-made COM paths: a step, a ramp, noise, a wiggle in
place, and the online detector agreeing with the offline one."""

import math

import numpy as np
import pytest

from lab.analysis.onset import OnsetDetector, motion_onset, trailing_speed

DT = 0.01
W, HOLD, V_ON = 3.0, 2.0, 0.01


def _path(speed_of_t, t):
    """COM along x with the given speed profile (integrated), y = 0."""
    x = np.concatenate([[0.0], np.cumsum(0.5 * (speed_of_t[1:] + speed_of_t[:-1]) * np.diff(t))])
    return np.column_stack([x, np.zeros_like(x)])


def test_step_in_speed_starts_when_the_window_has_seen_enough_progress():
    t = np.arange(0, 30, DT)
    t0, v = 8.0, 0.2
    c = _path(np.where(t >= t0, v, 0.0), t)
    t_on, k = motion_onset(t, c, V_ON, W, HOLD)
    # v̄ = v (t − t0)/W inside the first window after t0: crosses v_on at t0 + W·v_on/v
    assert t_on == pytest.approx(t0 + W * V_ON / v, abs=2 * DT)
    assert t[k] == t_on


def test_ramp_in_speed():
    t = np.arange(0, 40, DT)
    t0, a = 5.0, 0.002  # m/s²: v_on is reached 5 s after t0
    c = _path(np.clip(a * (t - t0), 0, None), t)
    t_on, _ = motion_onset(t, c, V_ON, W, HOLD)
    # the trailing mean of a ramp lags it by W/2
    assert t_on == pytest.approx(t0 + V_ON / a + W / 2, abs=2 * DT)


def test_noise_and_wiggle_in_place_are_not_motion():
    rng = np.random.default_rng(3)
    t = np.arange(0, 40, DT)
    # a serpentine wiggle of 3 cm at the gait period (π s) plus 1 mm position noise, no net progress
    c = np.column_stack([0.005 * np.sin(2 * t), 0.03 * np.sin(2 * t)]) + rng.normal(0, 0.001, (len(t), 2))
    t_on, k = motion_onset(t, c, V_ON, W, HOLD)
    assert math.isnan(t_on) and k == -1


def test_noisy_step_still_found_and_short_bursts_are_ignored():
    rng = np.random.default_rng(4)
    t = np.arange(0, 40, DT)
    burst = (t >= 5) & (t < 6)  # a 10 cm lurch in 1 s, then still: v̄ ≥ v_on from 5.3 s to 8.7 s only
    v = np.where(burst, 0.1, 0.0) + np.where(t >= 20, 0.05, 0.0)
    c = _path(v, t) + rng.normal(0, 0.001, (len(t), 2))
    t_on, _ = motion_onset(t, c, V_ON, W, 4.0)  # a hold longer than the lurch's 3.4 s
    assert t_on == pytest.approx(20 + W * V_ON / 0.05, abs=0.1)
    # with a shorter hold the lurch counts
    t_burst, _ = motion_onset(t, c, V_ON, W, HOLD)
    assert t_burst == pytest.approx(5.3, abs=0.05)


def test_online_detector_agrees_with_offline_at_the_same_cadence():
    t = np.arange(0, 30, DT)
    c = _path(np.where(t >= 8.0, 0.05, 0.0), t)
    det = OnsetDetector(V_ON, W, HOLD)
    decided_at = None
    for k in range(0, len(t), 5):
        if det.update(t[k], c[k]):
            decided_at = t[k]
            break
    t_off, k_off = motion_onset(t, c, V_ON, W, HOLD, every=5 * DT)
    assert det.onset == pytest.approx(t_off)
    np.testing.assert_allclose(det.c_onset, c[k_off])
    assert decided_at == pytest.approx(det.onset + HOLD, abs=5 * DT + 1e-9)  # decided `hold` later


def test_trailing_speed_of_uniform_motion_is_the_speed():
    t = np.arange(0, 10, DT)
    c = np.column_stack([0.3 * t, 0.4 * t])
    v = trailing_speed(t, c, W)
    np.testing.assert_allclose(v[t >= W], 0.5, rtol=1e-9)
    # before a full window the robot counts as resting at its start: motion from t = 0 is found early
    np.testing.assert_allclose(v[t < W], 0.5 * t[t < W] / W, rtol=1e-9)
    t_on, _ = motion_onset(t, c, V_ON, W, HOLD)
    assert t_on == pytest.approx(W * V_ON / 0.5, abs=DT)
