"""eel_models, eel_engine: the three-way cross-check of Zhang 2018 over eq. 39's 50 s schedule.

* ``eel_models`` — the non-inertial model (eqs. 28–33) against the exact model (eqs. 20–21), both under
  the feedback-linearising controller, integrated with solve_ivp at the paper's rtol = atol = 1e-6.
  They are the same physics on two code paths, so the paper's "almost coincide" is made a number.
* ``hydro_decay`` — one link of that eel, alone in still water, pushed across its axis, along it, and
  spun about z: its speed and spin decay as the closed forms of the law's equations say (eqs. 22, 24,
  27: M v̇ = −c v − c₂|v|v, (J + λ1) ω̇ = −λ2 ω − λ3|ω|ω), with the dry geometry's m and J and the
  law's own coefficients. The one check that isolates the fluid's torque and the added mass.
* ``eel_engine`` — the PyBullet run of lab/papers/zhang2018_eel/scenarios/eel_forward_turn.toml against the exact model with the
  same parameters (geometry from the robot spec, coefficients from the hydrodynamics law) under the
  controller as the engine applies it: sampled every step and held (the discrete solution of the
  control loop), so the figures measure the engine's physics, not the sampling of eqs. 35–37.

Signals: heading θ0, CM trajectory, CM velocity (x, y), joint-1 torque (paper convention, tail joint),
sampled every ``sim.dt · record_every``. Definitions in :func:`lab.papers.zhang2018_eel.analysis.compare`.
"""

from __future__ import annotations

from lab.core.tolerances import tol
from lab.checks import Figure, check


@check("eel_models")
def eel_models(overrides) -> dict[str, Figure]:
    """non-inertial vs exact eel model over eq. 39's schedule: relative differences ≤ 1e-4 (Zhang 2018 Figs 2–7)"""
    from lab.papers.zhang2018_eel.analysis import compare
    from lab.papers.zhang2018_eel import study as trial

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


def decay_closed_form(v0: float, M: float, c: float, c2: float, t):
    """v(t) of M v̇ = −c v − c₂|v|v from v0 > 0: v = c v0 e^{−ct/M} / (c + c₂ v0 (1 − e^{−ct/M}))."""
    import numpy as np

    E = np.exp(-c * np.asarray(t) / M)
    return c * v0 * E / (c + c2 * v0 * (1.0 - E))


def link_decay(sc, v0_B, w0: float, duration: float = 1.0):
    """One link of the scenario's eel in still water (the scenario's law, arena and dt) launched with
    body-frame velocity ``v0_B`` (along, across) and spin ``w0``; returns t, v_along, v_across, ω_z."""
    import numpy as np

    from lab.forces.base import bind
    from lab.core.world import World
    from lab.papers.zhang2018_eel.analysis import hydro_law

    law = bind(hydro_law(sc), sc.robot, sc.arena)
    world = World(dt=sc.sim.dt, gravity=sc.sim.gravity, arena=sc.arena)
    try:
        world.load_robot(sc.robot.module_urdf(), [0.0, 0.0, 0.5], 0.0, sc.robot.link_length, sc.robot.effort)
        world.set_base_velocity([v0_B[0], v0_B[1], 0.0], [0.0, 0.0, w0])
        state = world.read_state()
        out = []
        for _ in range(int(round(duration / sc.sim.dt))):
            world.apply(None, law(state, state.t), state)
            world.step_engine()
            state = world.read_state()
            R = state.R_WB[0]
            out.append((state.t, *(R.T @ state.v_W[0])[:2], state.w_W[0, 2]))
        return np.array(out).T
    finally:
        world.close()


@check("hydro_decay")
def hydro_decay(overrides) -> dict[str, Figure]:
    """one eel link in still water: its speed across and along and its spin decay as the closed forms of the law say (Zhang 2018, eqs. 22, 24, 27)"""
    import numpy as np

    from lab.papers.zhang2018_eel import study as trial
    from lab.papers.zhang2018_eel.analysis import hydro_law

    sc = trial.load(overrides)
    law = hydro_law(sc)
    dry = sc.robot.dry_mass_props()  # the cylinder alone; the water's share comes from the law
    m, J = dry.mass, float(dry.inertia[2, 2])
    figs = {}
    push, spin = tol("hydro.push_decay_rel"), tol("hydro.spin_decay_rel")
    cases = (("across", (0.0, 0.2), 0.0, 2, m + law.u_n, law.c_n, law.cn2, 0.2, push),
             ("along", (0.3, 0.0), 0.0, 1, m, law.c_t, law.ct2, 0.3, push),  # the lagged correction removes u_n
             ("spin", (0.0, 0.0), 2.0, 3, J + law.lambda1, law.lambda2, law.lambda3, 2.0, spin))
    for label, v0_B, w0, col, M, c, c2, x0, bar in cases:
        run = link_decay(sc, v0_B, w0)
        t, x = run[0], run[col]
        closed = decay_closed_form(x0, M, c, c2, t)
        err = float(np.abs(x - closed).max()) / x0
        figs[f"{label}.decay_rel"] = Figure.at_most(
            err, bar,
            f"max |x − closed form| / x0 over 1 s at dt = {sc.sim.dt} s; M = {M:.4g}, c = {c:.4g}, c₂ = {c2:.4g}; "
            f"engine {x[-1]:.4g}, closed form {closed[-1]:.4g} at 1 s")
    return figs


@check("eel_engine")
def eel_engine(overrides) -> dict[str, Figure]:
    """engine vs exact eel model over eq. 39's schedule: heading RMS, CM path, velocities and joint-torque NRMSE within measured bars"""
    from lab.papers.zhang2018_eel.analysis import compare
    from lab.papers.zhang2018_eel import study as trial

    sc = trial.load(overrides)
    eng, result = trial.engine_run(sc)
    if result.status != "ok":
        return {"status": Figure(1.0, 0.0, False, f"engine run {result.status}: {result.error}")}
    # the exact model under the engine's own sample-and-hold of the controller (not the continuous loop):
    # at 5 ms the hold does not resolve eq. 38's fast pole (−98 s⁻¹) over the start-up from the straight
    # body, which on a 4-s run made the torque NRMSE 0.25 against the continuous model and 0.027 against this
    ex = trial.model_run(sc, "exact", eng.t, hold=sc.sim.dt)
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
            "joint 1 (tail), u = −τ_0, against the model's under the same sample-and-hold (computed at t − dt, "
            "held over the step); t = 0 left out (no torque recorded yet)"),
        "velocity_x_nrmse": Figure.at_most(c["vx_nrmse"], tol("eel.velocity_nrmse"),
                                           "CM velocity by central differences"),
        "velocity_y_nrmse": Figure.at_most(c["vy_nrmse"], tol("eel.velocity_nrmse"),
                                           "CM velocity by central differences"),
    }
