"""Metrics of one run: one flat dict, keys documented in the README."""

from __future__ import annotations

import numpy as np


def second_half(t: np.ndarray) -> np.ndarray:
    return t >= 0.5 * t[-1] if len(t) else np.zeros(0, bool)


def run_metrics(series: dict, balance: dict) -> dict:
    t = series["t"]
    m: dict = {}
    m["energy.balance_residual_rel"] = float(balance["residual_rel"])
    m["energy.balance_residual_J"] = float(balance["residual_J"])
    m["energy.input_work_J"] = float(balance["work_in_J"])
    m["energy.dissipated_J"] = float(balance["dissipated_J"])
    for k in ("gravity_work_J", "contact_work_J"):  # robots on engine contacts (World.record_contacts)
        if k in balance:
            m[f"energy.{k}"] = float(balance[k])
    if len(t) < 2:
        return m
    h = second_half(t)
    E, E_T, E_R = series["E"][h], series["E_T"][h], series["E_R"][h]
    m["energy.kinetic_mean_J"] = float(E.mean())
    m["energy.kinetic_std_J"] = float(E.std())
    tot = E_T + E_R
    eta2 = np.divide(E_T, tot, out=np.zeros_like(tot), where=tot > 1e-12)
    m["energy.eta2_mean"] = float(eta2.mean())  # Wang 2011 eq. 11, averaged over the second half
    th = t[h]
    dE = series["E"][h][-1] - series["E"][h][0]
    W_in = series["W_in"][h][-1] - series["W_in"][h][0]
    W_d = series["W_d"][h][-1] - series["W_d"][h][0]
    # Wang 2011 eq. 7, over the window: η1 = ΔE / (ΔE + W_d) = ΔE / W_in.
    m["energy.eta1"] = float(dE / (dE + W_d)) if abs(dE + W_d) > 1e-12 else 0.0
    m["energy.input_power_mean_W"] = float(W_in / (th[-1] - th[0])) if th[-1] > th[0] else 0.0
    xy = series["xy"]
    head = xy[:, -1, :]
    m["head.path_length_m"] = float(np.linalg.norm(np.diff(head, axis=0), axis=1).sum())
    com = xy.mean(axis=1)  # identical link masses: the COM is the mean of link COMs
    m["com.displacement_m"] = float(np.linalg.norm(com[-1] - com[0]))
    c2 = com[h]
    m["com.speed_mean_mps"] = float(np.linalg.norm(c2[-1] - c2[0]) / (th[-1] - th[0])) if th[-1] > th[0] else 0.0
    if series["q"].shape[1]:
        q2 = series["q"][h]
        m["joints.amplitude_mean_rad"] = float((0.5 * (q2.max(axis=0) - q2.min(axis=0))).mean())
        m["joints.torque_rms_Nm"] = float(np.sqrt((series["tau"][h] ** 2).mean()))
    return m


def gait_metrics(series: dict, scenario) -> dict:
    """Seed-001 analyses of a snake gait: rhythm onset (eq. 16), turning circle (Fig 8), and the
    η2 interpretations (Table 2). Skipped for robots without a joint chain."""
    if series["q"].shape[1] < 2 or len(series["t"]) < 3:
        return {}
    from .papers.wang2011_creeping.analysis.energy import eta2_interpretations
    from .analysis.recurrence import rhythm_metrics
    from .papers.wang2011_creeping.analysis.turning import turning_metrics

    m = {}
    m.update(rhythm_metrics(series))
    m.update(eta2_interpretations(series))
    omega = getattr(scenario.controller, "xd_omega", None) or getattr(scenario.controller, "omega", None)
    m.update(turning_metrics(series, period=2 * np.pi / omega if omega else None))
    return m


def json_safe(metrics: dict) -> dict:
    """Strict JSON has no NaN or Infinity: a metric that is undefined (no rhythm yet) or unbounded
    (a straight path's turning radius) is written as null."""
    out = {}
    for k, v in metrics.items():
        if isinstance(v, (float, np.floating)) and not np.isfinite(v):
            v = None
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out
