"""The travelling body wave of a snake run, window by window (Wang 2011, eqs. 13–15).

The passive-creeping body joints follow each other through the coupling τ_j = G·(q_{j+1} − q_j)
(eq. 15, G = K·∫(E_ref − E)dt), so the wave's phase lag from joint to joint and its amplitude are set
by G. These helpers measure, over a window of whole periods of the head reference ω:

- :func:`wave_fit`   each joint's amplitude and phase at ω (least squares on sin ωt, cos ωt);
- :func:`window_state` the steady-state figures of one window: mean E, COM speed, η1 (eq. 7), mean
  phase lag per joint, tail and mean joint amplitude, the coupling gain G;
- :func:`coupling_gain_series` G(t) = K·∫(E_ref − E)dt rebuilt from the recorded E (trapezoid);
- :func:`levelled_at` and :func:`time_to_reach` for the Fig 7 rows (has E stopped changing, when did
  it come within a band of E_ref).

Pure numpy; reads a run's ``series`` dict (``t``, ``E``, ``xy``, ``q``, ``W_in``, ``W_d``).
"""

from __future__ import annotations

import math

import numpy as np


def whole_periods(t: np.ndarray, t0: float, t1: float, omega: float) -> np.ndarray:
    """Mask of the samples in [t1 − k·P, t1] for the largest k with k·P ≤ t1 − t0 (P = 2π/ω), so a
    fit at ω sees whole periods; the whole [t0, t1] when ω = 0 or the window is shorter than P."""
    t = np.asarray(t, float)
    if omega > 0:
        P = 2 * math.pi / omega
        k = math.floor((t1 - t0) / P + 1e-9)
        if k >= 1:
            t0 = t1 - k * P
    return (t >= t0 - 1e-9) & (t <= t1 + 1e-9)


def wave_fit(t: np.ndarray, q: np.ndarray, omega: float) -> tuple[np.ndarray, np.ndarray]:
    """Amplitude (J,) and phase (J,) of each column of q at ω: q_j ≈ c_j + A_j sin(ωt + φ_j)."""
    t = np.asarray(t, float)
    X = np.column_stack([np.sin(omega * t), np.cos(omega * t), np.ones_like(t)])
    coef, *_ = np.linalg.lstsq(X, np.asarray(q, float), rcond=None)
    s, c = coef[0], coef[1]  # A sin(ωt + φ) = A cos φ sin ωt + A sin φ cos ωt
    return np.hypot(s, c), np.arctan2(c, s)


def phase_lags(phase: np.ndarray) -> np.ndarray:
    """Phase lag of each joint behind its head-side neighbour, φ_{j+1} − φ_j wrapped to (−π, π]
    (joint 0 is the tail's; > 0 when the wave runs head → tail, the forward gait)."""
    d = np.diff(np.asarray(phase, float))
    return (d + math.pi) % (2 * math.pi) - math.pi


def coupling_gain_series(series: dict, E_ref: float, K_body: float, fixed: float | None = None) -> np.ndarray:
    """G(t) = K_body·∫₀ᵗ(E_ref − E)dt from the recorded E (trapezoid on the recorder's samples: within
    a few per cent of the controller's per-step sum at record_every = 10). With ``fixed`` the
    controller held G there (``controller.coupling_gain_fixed``)."""
    t, E = np.asarray(series["t"], float), np.asarray(series["E"], float)
    if fixed is not None:
        return np.full_like(t, float(fixed))
    e = E_ref - E
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (e[1:] + e[:-1]) * np.diff(t))])
    return K_body * integral


def window_state(series: dict, t0: float, t1: float, omega: float, gain: np.ndarray | None = None) -> dict:
    """Steady-state figures over [t0, t1] (trimmed to whole periods of ω):

    ``E_J`` mean kinetic energy; ``speed_mps`` net COM displacement / time (the wiggle cancels over
    whole periods); ``eta1`` = ΔE/W_in over the window (eq. 7; ≈ 0 in steady state, where the motors'
    work all goes to friction); ``power_in_W`` mean motor power; ``lag_rad`` mean phase lag per joint;
    ``tail_amp_rad`` and ``joint_amp_rad`` amplitude at ω of the tail joint and mean over the joints;
    ``gain`` mean of ``gain`` over the window when given.
    """
    t = np.asarray(series["t"], float)
    w = whole_periods(t, t0, t1, omega)
    nan = float("nan")
    out = {"t0": float(t0), "t1": float(t1), "E_J": nan, "speed_mps": nan, "eta1": nan, "power_in_W": nan,
           "lag_rad": nan, "tail_amp_rad": nan, "joint_amp_rad": nan, "gain": nan}
    if w.sum() < 4:
        return out
    tw = t[w]
    dt = tw[-1] - tw[0]
    E = np.asarray(series["E"], float)[w]
    out["E_J"] = float(E.mean())
    com = np.asarray(series["xy"], float)[w].mean(axis=1)
    out["speed_mps"] = float(np.linalg.norm(com[-1] - com[0]) / dt)
    W_in = np.asarray(series["W_in"], float)[w]
    dW = float(W_in[-1] - W_in[0])
    out["eta1"] = float((E[-1] - E[0]) / dW) if abs(dW) > 1e-12 else nan
    out["power_in_W"] = dW / dt
    q = np.asarray(series["q"], float)[w]
    if q.shape[1] >= 2 and omega > 0:
        amp, ph = wave_fit(tw, q, omega)
        out["lag_rad"] = float(phase_lags(ph).mean())
        out["tail_amp_rad"] = float(amp[0])
        out["joint_amp_rad"] = float(amp.mean())
    if gain is not None:
        out["gain"] = float(np.asarray(gain, float)[w].mean())
    return out


def levelled_at(t: np.ndarray, E: np.ndarray, span: float, rel: float, period: float) -> float:
    """Earliest time T at which E, averaged over one gait period, has stayed within ±rel of its value
    at T for the whole of [T − span, T] (E "levelled for ``span`` seconds"); NaN if never."""
    t, E = np.asarray(t, float), np.asarray(E, float)
    if len(t) < 3 or t[-1] - t[0] < span + period:
        return float("nan")
    dt = float(np.median(np.diff(t)))
    n = max(1, int(round(period / dt)))
    Ebar = np.convolve(E, np.ones(n) / n, mode="valid")  # trailing mean over one period
    tb = t[n - 1:]
    m = max(1, int(round(span / dt)))
    for k in range(m, len(Ebar)):
        ref = Ebar[k]
        seg = Ebar[k - m:k + 1]
        if ref > 0 and np.all(np.abs(seg - ref) <= rel * ref):
            return float(tb[k])
    return float("nan")


def time_to_reach(t: np.ndarray, E: np.ndarray, E_ref: float, rel: float, period: float) -> float:
    """First time the period-averaged E comes within ±rel of E_ref (NaN if never): the Fig 7 rows'
    "reached" time."""
    t, E = np.asarray(t, float), np.asarray(E, float)
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    n = max(1, int(round(period / dt)))
    if len(E) < n:
        return float("nan")
    Ebar = np.convolve(E, np.ones(n) / n, mode="valid")
    hit = np.nonzero(np.abs(Ebar - E_ref) <= rel * E_ref)[0]
    return float(t[n - 1 + hit[0]]) if len(hit) else float("nan")


__all__ = ["coupling_gain_series", "levelled_at", "phase_lags", "time_to_reach", "wave_fit", "whole_periods",
           "window_state"]
