"""Metrics of one run that hold for every robot: one flat dict, keys documented in docs/metrics.md.

Generic on purpose: nothing here assumes a snake. The centre of mass is the mass-weighted one the
recorder takes from each snapshot (``series["com"]``, :attr:`lab.core.state.RobotState.com_W`), so a robot
whose links differ in mass (the tracked robot's 4 kg body among light pulleys and slabs, the wheeled
snake's wheels) gets its real COM. ``head.*`` exists only for a robot whose spec declares a head link
(the runner passes its index). A metric that is undefined for a run (a window of zero length, no
net energy change) is left out rather than given a made-up value.

Analyses that belong to one paper (the passive-creeping gait analyses of Wang 2011: η2
interpretations, turning circle, rhythm onset) are not run here: a scenario asks for them by name
(``analyses = [...]``, :mod:`lab.analysis.registry`). This module imports nothing else of the lab, so the
analyses may use :func:`second_half` without an import cycle.
"""

from __future__ import annotations

import numpy as np


def second_half(t: np.ndarray) -> np.ndarray:
    """Mask of the samples in the second half of the run (the steady regime the metrics average)."""
    return t >= 0.5 * t[-1] if len(t) else np.zeros(0, bool)


def run_metrics(series: dict, balance: dict, head: int | None = None) -> dict:
    """The generic metrics of a recorded run.

    ``series``: the recorder's samples (:meth:`lab.core.recorder.Recorder.series`); ``balance``: its energy
    ledger (:meth:`lab.core.recorder.Recorder.balance`); ``head``: index of the robot's head link in
    ``series["xy"]``, or None for a robot without a head (then no ``head.*`` metric).

    ``com.displacement_m`` and ``com.speed_mean_mps`` are measured in the ground plane (x–y of the
    world frame) on the mass-weighted centre of mass p_com = Σ m_i p_i / Σ m_i.
    """
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
    span = th[-1] - th[0]
    # Wang 2011 eq. 7, over the window: η1 = ΔE / (ΔE + W_d) = ΔE / W_in (undefined when ΔE + W_d = 0).
    if abs(dE + W_d) > 1e-12:
        m["energy.eta1"] = float(dE / (dE + W_d))
    if span > 0:
        m["energy.input_power_mean_W"] = float(W_in / span)
    xy = series["xy"]
    if head is not None:
        p_head = xy[:, head, :]
        m["head.path_length_m"] = float(np.linalg.norm(np.diff(p_head, axis=0), axis=1).sum())
        if "yaw" in series:  # the chain's heading change (Zhang 2018's eel turns; a snake's drift)
            heading = body_heading(series["yaw"])
            m["heading.change_deg"] = float(np.degrees(heading[-1] - heading[0]))
    com = series["com"][:, :2]  # mass-weighted COM, ground plane
    m["com.displacement_m"] = float(np.linalg.norm(com[-1] - com[0]))
    if span > 0:
        c2 = com[h]
        m["com.speed_mean_mps"] = float(np.linalg.norm(c2[-1] - c2[0]) / span)
    if series["q"].shape[1]:
        q2 = series["q"][h]
        m["joints.amplitude_mean_rad"] = float((0.5 * (q2.max(axis=0) - q2.min(axis=0))).mean())
        m["joints.torque_rms_Nm"] = float(np.sqrt((series["tau"][h] ** 2).mean()))
    return m


def body_heading(yaw: np.ndarray) -> np.ndarray:
    """The chain's heading at each sample [rad]: the direction of the mean of its links' x axes
    (the circular mean of the link yaws), unwrapped over time so that turns accumulate (positive = left)."""
    return np.unwrap(np.arctan2(np.sin(yaw).mean(axis=1), np.cos(yaw).mean(axis=1)))


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
