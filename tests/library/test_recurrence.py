"""Recurrence plot and onset of rhythmic motion (Wang 2011, eq. 16) on synthetic torque series."""

import math

import numpy as np
import pytest

from lab.analysis.recurrence import (EPSILON, analyse, decimate, dominant_period, lag_recurrence,
                                     recurrence_matrix, rhythm_metrics)

DT = 0.01
OMEGA = 2.0
T_PERIOD = 2 * math.pi / OMEGA  # 3.14 s, the head reference's period (Table 1)


def periodic(t, n_joints=9, amp=0.2):
    """A travelling wave with a second harmonic, like the snake's joint torques."""
    j = np.arange(n_joints)
    ph = OMEGA * t[:, None] + j[None, :] * 2 * math.pi / 9
    return amp * (np.sin(ph) + 0.3 * np.sin(2 * ph + 0.5))


def smooth_noise(rng, n, n_joints=9, rms=0.2, width=10):
    """Band-limited noise (moving average over 0.1 s), scaled to the given per-joint RMS."""
    x = rng.standard_normal((n + width, n_joints))
    k = np.ones(width) / width
    y = np.stack([np.convolve(x[:, j], k, mode="valid")[:n] for j in range(n_joints)], axis=1)
    return y * rms / y.std()


def series(t, tau):
    return {"t": t, "tau": tau}


def test_recurrence_matrix_matches_brute_force():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3)) * 0.05
    R = recurrence_matrix(X, 0.08)
    brute = np.array([[np.linalg.norm(X[i] - X[j]) < 0.08 for j in range(60)] for i in range(60)])
    assert np.array_equal(R, brute)
    assert R.diagonal().all() and np.array_equal(R, R.T)


def test_decimation_keeps_at_most_1500_samples():
    t = np.arange(6001) * DT
    td, X, stride = decimate(t, np.zeros((6001, 2)))
    assert len(td) <= 1500 and stride == 5
    a = analyse(t, periodic(t))
    assert len(a["t_ds"]) <= 1500


def test_dominant_period_of_a_travelling_wave():
    t = np.arange(0, 15, DT)
    T = dominant_period(periodic(t), DT)
    assert T == pytest.approx(T_PERIOD, rel=0.01)


def test_lag_recurrence_is_one_on_a_periodic_signal():
    t = np.arange(0, 20, DT)
    X = periodic(t) / 0.2
    K = int(round(T_PERIOD / DT))
    assert lag_recurrence(X, K, 2).all()
    # half a period later the wave is far away: no recurrence there
    assert not lag_recurrence(X, K // 2, 1).any()


def test_pure_periodic_has_onset_at_start():
    t = np.arange(0, 30, DT)
    m = rhythm_metrics(series(t, periodic(t)))
    assert m["rhythm.period_s"] == pytest.approx(T_PERIOD, rel=0.01)
    assert m["time.rhythmic_s"] <= 0.5 * T_PERIOD
    assert m["rhythm.lag_recurrence_end"] == 1.0


def test_pure_noise_has_no_onset():
    rng = np.random.default_rng(1)
    t = np.arange(0, 30, DT)
    m = rhythm_metrics(series(t, smooth_noise(rng, len(t))))
    assert math.isnan(m["time.rhythmic_s"])
    assert m["rhythm.lag_recurrence_end"] < 0.2


@pytest.mark.parametrize("t_on", [5.0, 11.0])
def test_noise_then_periodic_onset_within_one_period(t_on):
    rng = np.random.default_rng(2)
    t = np.arange(0, 30, DT)
    tau = periodic(t)
    early = t < t_on
    tau[early] = smooth_noise(rng, int(early.sum()))
    onset = rhythm_metrics(series(t, tau))["time.rhythmic_s"]
    assert abs(onset - t_on) <= T_PERIOD, onset


def test_periodic_then_noise_has_no_onset():
    """Rhythm that is lost again before the end is not an onset: the definition needs it to last."""
    rng = np.random.default_rng(3)
    t = np.arange(0, 30, DT)
    tau = periodic(t)
    late = t >= 18.0
    tau[late] = smooth_noise(rng, int(late.sum()))
    assert math.isnan(rhythm_metrics(series(t, tau))["time.rhythmic_s"])


def test_onset_is_scale_free():
    """The normalisation by the steady torque RMS makes the onset independent of the torque unit."""
    rng = np.random.default_rng(4)
    t = np.arange(0, 30, DT)
    tau = periodic(t)
    tau[t < 6.0] = smooth_noise(rng, int((t < 6.0).sum()))
    a = rhythm_metrics(series(t, tau))["time.rhythmic_s"]
    b = rhythm_metrics(series(t, 37.0 * tau))["time.rhythmic_s"]
    assert a == b


def test_a_slowly_growing_rhythm_still_recurs():
    """A torque amplitude growing 2 % per period stays within ε = 0.08 of itself one period later."""
    t = np.arange(0, 30, DT)
    tau = periodic(t) * (1.0 + 0.02 * t / T_PERIOD)[:, None]
    assert rhythm_metrics(series(t, tau))["time.rhythmic_s"] <= T_PERIOD


def test_silent_and_short_runs_give_nan():
    t = np.arange(0, 30, DT)
    m = rhythm_metrics(series(t, np.zeros((len(t), 9))))
    assert math.isnan(m["time.rhythmic_s"])
    m = rhythm_metrics(series(t[:5], periodic(t[:5])))
    assert math.isnan(m["time.rhythmic_s"])
    m = rhythm_metrics(series(t, np.zeros((len(t), 0))))
    assert math.isnan(m["time.rhythmic_s"])
    assert EPSILON == 0.08


def test_plot_recurrence_draws_seconds(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lab.analysis.recurrence import plot_recurrence

    t = np.arange(0, 20, DT)
    fig, ax = plt.subplots()
    a = plot_recurrence(ax, series(t, periodic(t)))
    assert ax.get_xlabel().endswith("[s]") and ax.get_ylabel().endswith("[s]")
    assert ax.get_xlim() == pytest.approx((0.0, a["t_ds"][-1])) and a["t_ds"][-1] > 19.9
    fig.savefig(tmp_path / "rp.png")
    plt.close(fig)
