"""eel_models, eel_engine: the three-way cross-check of Zhang 2018 over eq. 39's 50 s schedule.

* ``eel_models`` — the non-inertial model (eqs. 28–33) against the exact model (eqs. 20–21), both under
  the feedback-linearising controller, integrated with solve_ivp at the paper's rtol = atol = 1e-6.
  They are the same physics on two code paths, so the paper's "almost coincide" is made a number.
* ``eel_engine`` — the PyBullet run of scenarios/eel_forward_turn.toml against the exact model with the
  same parameters (geometry from the robot spec, coefficients from the hydrodynamics law).

Signals: heading θ0, CM trajectory, CM velocity (x, y), joint-1 torque (paper convention, tail joint),
sampled every ``sim.dt · record_every``. Definitions in :func:`lab.papers.zhang2018_eel.analysis.compare`.
"""

from __future__ import annotations

from ...tolerances import tol
from ...checks import Figure, check


@check("eel_models")
def eel_models(overrides) -> dict[str, Figure]:
    """non-inertial vs exact eel model over eq. 39's schedule: relative differences ≤ 1e-4 (Zhang 2018 Figs 2–7)"""
    from .analysis import compare
    from . import study as trial

    sc = trial.load(overrides)
    import numpy as np

    h = sc.sim.dt * sc.sim.record_every
    t = np.linspace(0.0, sc.sim.duration, int(round(sc.sim.duration / h)) + 1)
    ex = trial.model_run(sc, "exact", t)
    ni = trial.model_run(sc, "noninertial", t)
    c = compare(ex, ni)
    path_rel, head_rel = c["com_err_rel"], c["heading_max_rel"]
    v_rel = max(c["vx_nrmse"], c["vy_nrmse"])
    tol_m = tol("eel.models_max_rel")
    note = (f"exact {ex.wall_s:.2f} s ({ex.info['nfev']} RHS), non-inertial {ni.wall_s:.2f} s; distance "
            f"{c['distance_m']:.3f} m, θ0 range {np.degrees(np.ptp(ex.theta0)):.1f}°")
    return {
        "eel.models_max_rel": Figure.at_most(max(path_rel, head_rel), tol_m,
                                             "max of the two below; " + note),
        "cm_path_rel": Figure.at_most(path_rel, tol_m, "max |Δp_CM| / distance travelled"),
        "heading_rel": Figure.at_most(head_rel, tol_m, "max |Δθ0| / θ0's range"),
        "velocity_nrmse": Figure.at_most(v_rel, tol_m, "CM velocity x, y: RMS difference / RMS"),
        "torque_max_rel": Figure.at_most(c["torque_max_rel"], tol_m, "joint-1 torque: max |Δu1| / max |u1|"),
    }


@check("eel_engine")
def eel_engine(overrides) -> dict[str, Figure]:
    """engine vs exact eel model over eq. 39's schedule: heading RMS ≤ 2°, CM ≤ 5 % of distance, torque NRMSE ≤ 10 %"""
    from .analysis import compare
    from . import study as trial

    sc = trial.load(overrides)
    eng, result = trial.engine_run(sc)
    if result.status != "ok":
        return {"status": Figure(1.0, 0.0, False, f"engine run {result.status}: {result.error}")}
    ex = trial.model_run(sc, "exact", eng.t, torque_lag=sc.sim.dt)
    c = compare(ex, eng, fd_velocity=True, skip_first_torque=True)
    rt = eng.info["realtime_factor"]
    note = f"dt = {sc.sim.dt} s, engine {eng.wall_s:.1f} s wall ({rt:.1f}× real time), exact model {ex.wall_s:.1f} s"
    return {
        "eel.heading_rms_deg": Figure.at_most(c["heading_rms_deg"], tol("eel.heading_rms_deg"),
                                              f"max {c['heading_max_deg']:.2f}°; {note}"),
        "eel.com_err_rel": Figure.at_most(
            c["com_err_rel"], tol("eel.com_err_rel"),
            f"max |Δp_CM| = {c['com_err_max_m'] * 100:.2f} cm of {c['distance_m']:.2f} m"),
        "eel.torque_nrmse": Figure.at_most(
            c["torque_nrmse"], tol("eel.torque_nrmse"),
            "joint 1 (tail), u = −τ_0, against the model's at t − dt (when the engine computed it); "
            "t = 0 left out (no torque recorded yet)"),
        "velocity_x_nrmse": Figure.at_most(c["vx_nrmse"], tol("eel.velocity_nrmse"),
                                           "CM velocity by central differences"),
        "velocity_y_nrmse": Figure.at_most(c["vy_nrmse"], tol("eel.velocity_nrmse"),
                                           "CM velocity by central differences"),
    }
