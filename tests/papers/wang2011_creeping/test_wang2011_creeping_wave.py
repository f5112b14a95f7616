"""lab.papers.wang2011_creeping.analysis.wave on hand-made series: a travelling wave's lag and amplitude, E reaching or not
reaching E_ref, E levelling, and the reachability sweep file the report runs."""

import math

import numpy as np
import pytest

from lab.papers.wang2011_creeping.analysis.wave import levelled_at, phase_lags, time_to_reach, wave_fit, window_state

OMEGA = 2.0
P = 2 * math.pi / OMEGA


def _wave_series(lag, amps, T=30.0, dt=0.01, speed=0.2):
    """Joint j = A_j sin(ωt − (J−1−j)·lag): the head joint (last) leads, the wave runs to the tail."""
    t = np.arange(0, T + dt / 2, dt)
    J = len(amps)
    q = np.column_stack([amps[j] * np.sin(OMEGA * t - (J - 1 - j) * lag) for j in range(J)])
    x = speed * t
    xy = np.stack([np.column_stack([x + 0.08 * i, 0.02 * np.sin(OMEGA * t + i)]) for i in range(J + 1)], axis=1)
    E = 0.3 + 0.01 * np.sin(2 * OMEGA * t)
    W_in = 0.5 * t  # 0.5 W of motor work, all into friction
    return {"t": t, "q": q, "xy": xy, "E": E, "W_in": W_in}


def test_window_state_recovers_a_travelling_wave():
    amps = np.linspace(0.7, 0.5, 9)  # tail 0.7 … head 0.5
    s = _wave_series(0.35, amps)
    w = window_state(s, 10.0, 30.0, OMEGA)
    assert w["lag_rad"] == pytest.approx(0.35, abs=1e-6)
    assert w["tail_amp_rad"] == pytest.approx(0.7, abs=1e-6)
    assert w["joint_amp_rad"] == pytest.approx(amps.mean(), abs=1e-6)
    assert w["speed_mps"] == pytest.approx(0.2, rel=1e-3)  # the lateral wiggle cancels over whole periods
    assert w["E_J"] == pytest.approx(0.3, abs=1e-3)
    assert w["power_in_W"] == pytest.approx(0.5, rel=1e-9)
    assert abs(w["eta1"]) < 0.01  # steady: the work all goes to friction


def test_standing_wave_has_no_lag_and_backward_wave_negative_lag():
    amp, ph = wave_fit(np.linspace(0, 2 * P, 400, endpoint=False),
                       np.column_stack([0.4 * np.sin(OMEGA * np.linspace(0, 2 * P, 400, endpoint=False))] * 3), OMEGA)
    np.testing.assert_allclose(phase_lags(ph), 0.0, atol=1e-9)
    np.testing.assert_allclose(amp, 0.4, rtol=1e-9)
    assert phase_lags(np.array([0.0, -0.3, -0.6])).tolist() == pytest.approx([-0.3, -0.3])
    # wrapped into (−π, π]: a lag of 2π − 0.1 is a lead of 0.1
    assert phase_lags(np.array([0.0, 2 * math.pi - 0.1]))[0] == pytest.approx(-0.1)


def test_reaching_and_levelling():
    t = np.arange(0, 120, 0.01)
    rising = 0.5 * (1 - np.exp(-t / 10))  # settles at 0.5 J
    assert time_to_reach(t, rising, 0.5, 0.10, P) == pytest.approx(10 * math.log(10) + P / 2, abs=0.1)
    assert math.isnan(time_to_reach(t, rising, 1.0, 0.10, P))  # E_ref above what it ever gets
    T = levelled_at(t, rising, 20.0, 0.05, P)
    assert 20 < T < 60 and math.isfinite(T)
    climbing = 0.004 * t  # never levels
    assert math.isnan(levelled_at(t, climbing, 20.0, 0.05, P))
    # a peak then a slow fall (the wound-up integral): reached nowhere near 1 J, not levelled early
    peak = 0.46 * np.exp(-((t - 45) / 60) ** 2)
    assert math.isnan(time_to_reach(t, peak, 1.0, 0.10, P))


def test_reachability_sweep_is_a_valid_grid_over_E_ref_and_omega():
    from lab.papers.wang2011_creeping import characteristic as ch

    pts, fixed = ch.reach_points()
    assert {"controller.E_ref", "controller.xd_omega"} == set(pts[0])
    assert 2.0 in {p["controller.xd_omega"] for p in pts}  # the paper's ω is on the grid
    assert fixed["sim.duration"] >= 60
    assert ch.reach_runs(True) == [] and len(ch.reach_runs(False)) == len(pts)


def test_trend_tells_rising_from_peaked_from_level():
    from lab.papers.wang2011_creeping.characteristic import trend

    t = np.arange(0, 90, 0.01)
    n = int(round(P / 0.01))

    def bar(E):
        return np.convolve(E, np.ones(n) / n, mode="valid")

    assert trend(t, bar(0.003 * t), n) == "rising"  # the slow approach below E_max
    assert trend(t, bar(0.45 * np.exp(-((t - 40) / 40) ** 2) + 0.1), n) == "peaked"  # wound up past E_max
    assert trend(t, bar(0.4 * (1 - np.exp(-t / 5))), n) == "level"


def test_adaptation_needs_amplitude_growth_and_a_speed_up_beyond_the_control():
    from lab.papers.wang2011_creeping.studies import adaptation_verdict

    control = {"a1": np.array([0.40, 0.41]), "a2": np.array([0.41, 0.42]), "ratio": np.array([0.36, 0.37])}
    paper_like = {"a1": np.array([0.6, 0.65]), "a2": np.array([1.05, 1.1]), "ratio": np.array([0.37, 0.36]) * 0.5}
    assert adaptation_verdict(paper_like, control)[0]
    # the same speed-up as the light control is start-up, not adaptation
    same_speedup = {**paper_like, "ratio": control["ratio"].copy()}
    assert not adaptation_verdict(same_speedup, control)[0]
    # faster second half without the amplitude growth is not the paper's adaptation either
    no_growth = {**paper_like, "a2": paper_like["a1"] + 0.02}
    assert not adaptation_verdict(no_growth, control)[0]
