"""unified_manipulation, unified_locomotion: Wang 2011's unified dynamics against the engine.

Both compare the torques the engine **applied** (a stiff serpenoid PD loop, scenarios
snake_unified_*.toml) with the model's at the engine's own states: eq. 27 (tail welded) or eq. 22
(free base), evaluated at the snapshot each torque was computed from and the acceleration of the step
it drove (lab.papers.wang2011_unified.study explains why that is exact for Bullet's semi-implicit
step). The model uses the engine module's yaw inertia (2.74e-4 kg·m²) there; Table D1's 0.016 kg·m²
enters the "model.*" figures (the reproduction's own numbers) and the notes.

Per-joint error: Σ_k |τ_model − τ_engine| / Σ_k |τ_engine| over the run (two gait periods), every
``record_every``-th step. Figures marked "info" carry no tolerance (value = tolerance, always pass).
"""

from __future__ import annotations

import numpy as np

from ...checks import Figure, check
from ...tolerances import tol

JOINTS = ("tau4", "tau5", "tau6", "tau7")  # the paper's τ⁴ … τ⁷ = lab joints 0 … 3 (tail → head)


def info(value: float, note: str) -> Figure:
    """A figure the issue asks to see, with nothing to compare it against."""
    return Figure(float(value), float(value), True, "info: " + note)


def _fmt(a) -> str:
    return " / ".join(f"{x:.4g}" for x in np.asarray(a))


def _common(c, sc, case: str, figs: dict) -> None:
    from . import study

    run = c.run
    p_pap = c.p_paper
    model_paper = study.model_mean_two_periods(p_pap, sc, case)
    model_eng = study.model_mean_two_periods(c.p_engine, sc, case)
    for j, name in enumerate(JOINTS):
        figs[f"model.mean_abs_{name}_Nm"] = info(
            model_paper[j], f"the model's own run, Table D1 (I = {p_pap.I:g} kg·m²), mean |τ| over two periods "
                            f"(2001 samples); engine module's I: {model_eng[j]:.4g}; engine applied: "
                            f"{c.mean_engine[j]:.4g} N·m")
    figs["slip_speed_mps"] = info(
        sc.friction.slip_tol, f"v_s of tanh(v/v_s) in engine and model alike; dt = {sc.sim.dt * 1e3:g} ms = "
                              f"v_s/(μ_n g) rounded down, half the explicit friction's bound 2 v_s/(μ_n g)")
    figs["tracking_err_max_rad"] = info(
        float(c.tracking_err_max.max()), f"max |q − q_ref| per joint {_fmt(c.tracking_err_max)} rad (kp = "
                                         f"{sc.controller.kp:g}, kd = {sc.controller.kd:g}); the comparison is at "
                                         "the engine's states, so tracking error does not enter it")
    if run.status != "ok":
        figs["engine_status"] = Figure(1.0, 0.0, False, f"engine run {run.status}: {run.error}")


@check("unified_manipulation")
def unified_manipulation(overrides) -> dict[str, Figure]:
    """welded tail: the model's eq. 27 torques at the engine's states vs the engine's applied torques, mean relative error ≤ 1e-6 per joint"""
    from . import study

    sc = study.load("manipulation", overrides)
    run = study.engine_run(sc, "manipulation")
    c = study.compare(sc, run)
    tol_m = tol("unified.manip_torque_rel")
    figs = {"unified.manip_torque_rel": Figure.at_most(
        float(c.rel_err.max()), tol_m, f"max over τ4..τ7 of {_fmt(c.rel_err)} (paper: 8.73e-10 / 6.18e-10 / "
                                       f"6.48e-10 / 5.05e-10 against Newton–Euler); {len(run.t)} samples, engine "
                                       f"{run.wall_s:.1f} s wall")}
    for j, name in enumerate(JOINTS):
        figs[f"{name}.rel_err"] = Figure.at_most(float(c.rel_err[j]), tol_m, "model at the engine's states vs applied")
    rows = np.arange(0, len(run.t), 50)
    tid = study.inverse_dynamics_counterpart(sc, run, rows)
    figs["engine_id_vs_applied_rel"] = Figure.at_most(
        float(study.mean_rel_error(tid, run.tau[rows]).max()), tol_m,
        f"Bullet's calculateInverseDynamics on a fixed-base copy minus the friction mapped by calculateJacobian, vs "
        f"the applied torque, every 50th sample ({len(rows)}): the other engine counterpart agrees")
    drift = float(np.abs(run.xy[:, 0] - run.xy[0, 0]).max())
    figs["unified.weld_drift_m"] = Figure.at_most(drift, tol("unified.weld_drift_m"),
                                                  "max |Δ| of the tail module's COM (welded_tail: fixed base)")
    peak_model = float(np.abs(c.tau_model_paper).max())
    figs["model.peak_abs_tau4_Nm"] = info(
        peak_model, f"Table D1 model on the ideal gait; engine applied {np.abs(run.tau).max():.3f} N·m; effort limit "
                    f"{sc.robot.effort:g} N·m (the lab's default 1.5 is below the peak)")
    # the slip speed: the welded case is insensitive (the modules slide at cm/s, far above any v_s here)
    from dataclasses import replace

    m0 = study.model_mean_two_periods(c.p_paper, sc, "manipulation")
    m7 = study.model_mean_two_periods(replace(c.p_paper, v_s=1e-7), sc, "manipulation")
    figs["model.vs_sensitivity_rel"] = info(
        float(np.max(np.abs(m7 - m0) / m0)), f"max relative change of the model's mean |τ| per joint from v_s = "
                                             f"{c.p_paper.v_s:g} to 1e-7 m/s ({_fmt(m0)} → {_fmt(m7)} N·m)")
    _common(c, sc, "manipulation", figs)
    return figs


@check("unified_locomotion")
def unified_locomotion(overrides) -> dict[str, Figure]:
    """free base: the model's eq. 22 torques along the engine trajectory vs applied ≤ 1 % per joint; tail end point's displacement after two periods within 2 %"""
    from . import study

    sc = study.load("locomotion", overrides)
    run = study.engine_run(sc, "locomotion")
    c = study.compare(sc, run)
    tol_t = tol("unified.loco_torque_rel")
    figs = {"unified.loco_torque_rel": Figure.at_most(
        float(c.rel_err.max()), tol_t, f"max over τ4..τ7 of {_fmt(c.rel_err)} (paper: 6.09 / 1.88 / 0.98 / 1.44 % "
                                       f"against Newton–Euler); {len(run.t)} samples, engine {run.wall_s:.1f} s wall")}
    for j, name in enumerate(JOINTS):
        figs[f"{name}.rel_err"] = Figure.at_most(float(c.rel_err[j]), tol_t, "model along the engine trajectory vs applied")
    d = c.distance
    de, dm, dp = d["engine"][0], d["model"][0], d["model_paper"][0]
    dev = float(np.linalg.norm(c.track_engine - c.track_model, axis=1).max())
    figs["unified.tail_distance_rel"] = Figure.at_most(
        abs(de - dm) / dm, tol("unified.tail_distance_rel"),
        f"tail end point (x¹, x²) after {run.t[-1]:.3f} s: engine {de:.5f} m, model {dm:.5f} m (engine module's I; "
        f"Table D1's I: {dp:.5f} m); paths {d['engine'][1]:.5f} / {d['model'][1]:.5f} m; max track distance "
        f"{dev * 1e3:.3f} mm")
    figs["eq23_residual_max"] = info(
        float(np.abs(c.residual).max()), f"max |rows 1–3 of eq. 22| along the engine trajectory (N, N, N·m about the "
                                         f"tail end): {_fmt(np.abs(c.residual).max(0))} — the engine's base obeys the "
                                         "model's external dynamics to the contacts' out-of-plane jitter")
    _common(c, sc, "locomotion", figs)
    return figs


__all__ = ["unified_locomotion", "unified_manipulation"]
