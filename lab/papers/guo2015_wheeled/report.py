"""Report section ``guo2015_wheeled``: Guo et al. 2015, the passive-wheel snake's unified model and head-tracking PFL.

Counterparts of the paper's Figs 4–6 — the head's path against the reference, the joint angles, the joint
torques — with the engine (lab/papers/guo2015_wheeled/scenarios/snake_head_tracking.toml) and the unified model under the same PFL law
on the same axes; the wheel friction the model's start needs and the engine's lateral slip; the three
formulations' agreement (the ``nonholonomic_models`` figures) and spot values; the slips found in the
paper's printed equations (lab.papers.guo2015_wheeled.model.SLIPS).
"""

from __future__ import annotations

import numpy as np

from lab.report.schedule import plan
from lab.report import Row, SectionResult, section

SCENARIO = "snake_head_tracking"
QUICK_DURATION_S = 6.0
RUBBER_MU = 0.8  # a rubber wheel on a hard floor
RUBBER_RUN_S = 1.0
ENGINE = dict(color="C0", lw=3.0, alpha=0.45)
MODEL = dict(color="k", lw=0.9)


def _phi_colors(n):
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("viridis")
    return [cmap(j / max(n - 1, 1)) for j in range(n)]


def fig_head(eng, mod, p):
    import matplotlib.pyplot as plt

    from lab.papers.guo2015_wheeled import model as gw

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.0), gridspec_kw={"width_ratios": [1.6, 1]})
    t_ref = np.linspace(0.0, mod.t[-1], 600)
    ref = np.array([p.reference(t)[0] for t in t_ref])
    ax.plot(ref[:, 0], ref[:, 1], "--", color="0.35", lw=1.2, label="reference r_ref (§5.3)")
    ax.plot(eng.r[:, 0], eng.r[:, 1], **ENGINE, label="head, engine (PyBullet)")
    ax.plot(mod.r[:, 0], mod.r[:, 1], **MODEL, label="head, unified model")
    ax.plot(*mod.r[0], "o", color="k", ms=4)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("Head path vs reference (cf. Guo 2015 Fig 4)")
    ax.legend(fontsize=8, loc="lower left")
    bx.semilogy(eng.t, np.maximum(eng.head_error, 1e-7), **ENGINE, label="engine")
    bx.semilogy(mod.t, np.maximum(mod.head_error, 1e-7), **MODEL, label="unified model")
    e_lin = np.hypot(*gw.pfl_error_expected(p, mod.t).T)
    bx.semilogy(mod.t, np.maximum(e_lin, 1e-7), ":", color="C3", lw=1.2, label="ë + k_d ė + k_p e = 0 (closed form)")
    bx.set_xlabel("t [s]")
    bx.set_ylabel("|r_ref − r| [m]")
    bx.set_title("Head error")
    bx.legend(fontsize=7)
    return fig


def _two_panels(eng, mod, key: str, ylabel: str, title: str, clip_after: float | None = None):
    import matplotlib.pyplot as plt

    J = getattr(mod, key).shape[1]
    half = (J + 1) // 2
    cols = _phi_colors(J)
    fig, axes = plt.subplots(2, 1, figsize=(11, 5.6), sharex=True)
    for ax, js in zip(axes, (range(half), range(half, J))):
        for j in js:
            ax.plot(eng.t, getattr(eng, key)[:, j], color=cols[j], lw=2.8, alpha=0.35)
            ax.plot(mod.t, getattr(mod, key)[:, j], color=cols[j], lw=0.9, label=f"{key}{j + 1}" if key == "phi"
                    else f"u{j + 1}")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7, ncol=half, loc="upper right")
        if clip_after is not None:
            late = mod.t > clip_after
            if late.any():
                lim = 1.3 * float(np.abs(getattr(mod, key)[late][:, list(js)]).max())
                ax.set_ylim(-lim, lim)
    axes[0].set_title(title)
    axes[-1].set_xlabel("t [s]")
    return fig


def fig_torque_rms(rms: dict, win=(36.0, 60.0)):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.2))
    J = len(next(iter(rms.values())))
    x = np.arange(1, J + 1)
    w = 0.8 / len(rms)
    for k, (label, v) in enumerate(rms.items()):
        ax.bar(x + (k - (len(rms) - 1) / 2) * w, np.asarray(v) * 1e3, w, label=label)
    ax.set_xticks(x)
    ax.set_xticklabels([f"u{j}" for j in x])
    ax.set_ylabel(f"RMS over {win[0]:g}–{win[1]:g} s [mN·m]")
    ax.set_title("Per-joint torque RMS (joints numbered from the head)")
    ax.legend(fontsize=8)
    return fig


def lateral_velocity_fd(series: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(t, RMS over modules) of each module centre's lateral velocity by central differences of the
    recorded positions (the controller meters it exactly every step; a report run keeps only its series)."""
    from lab.robots.wheeled_snake import Layout

    lay = Layout.default(n)
    t, xy, yaw = series["t"], series["xy"][:, lay.modules, :], series["yaw"][:, lay.modules]
    if len(t) < 3:
        return t[:0], t[:0]
    v = (xy[2:] - xy[:-2]) / (t[2:] - t[:-2])[:, None, None]
    y_axis = np.stack([-np.sin(yaw[1:-1]), np.cos(yaw[1:-1])], axis=-1)
    lat = np.einsum("tnk,tnk->tn", v, y_axis)
    return t[1:-1], np.sqrt(np.mean(lat**2, axis=1))


def fig_wheels(mu_t, mu_req, mu_engine, slip_t, slip, rubber_t, rubber_slip):
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 3.8))
    ax.semilogy(mu_t, mu_req, color="k", lw=1.2, label="model: max_i |λ_i| / (m g)")
    ax.axhline(RUBBER_MU, color="C3", ls="--", lw=1, label=f"rubber μ = {RUBBER_MU:g}")
    ax.axhline(mu_engine, color="C0", ls="--", lw=1, label=f"scenario's μ = {mu_engine:g}")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("friction coefficient")
    ax.set_title("Wheel friction the no-slip start needs (model)")
    ax.legend(fontsize=8)
    if len(slip_t):
        bx.loglog(slip_t, np.maximum(slip, 1e-8), **ENGINE, label=f"engine, μ = {mu_engine:g}")
    if len(rubber_t):
        bx.loglog(rubber_t, np.maximum(rubber_slip, 1e-8), color="C3", lw=1.2, marker=".",
                  label=f"engine, μ = {RUBBER_MU:g}")
    bx.set_xlabel("t [s] (log)")
    bx.set_ylabel("lateral velocity RMS over modules [m/s]")
    bx.set_title("Engine: the wheels' lateral slip (central differences, 10 ms)")
    bx.legend(fontsize=8)
    return fig


def slip_table() -> str:
    from lab.papers.guo2015_wheeled.model import slip_rows

    lines = ["| equation | printed | corrected | evidence |", "|---|---|---|---|"]
    for eq, printed, corrected, evidence in slip_rows():
        lines.append(f"| {eq} | {printed} | {corrected} | {evidence} |".replace("\n", " "))
    return "\n".join(lines)


def torque_periodicity(sig, period: float, t0: float = 30.0, t1: float = 36.0) -> float:
    """max |u(t + T) − u(t)| over [t0, t1] / max |u| after t0."""
    k = (sig.t >= t0) & (sig.t <= t1)
    if not k.any() or sig.t[-1] < t1 + period:
        return float("nan")
    later = np.array([np.interp(sig.t[k] + period, sig.t, sig.u[:, j]) for j in range(sig.u.shape[1])]).T
    return float(np.abs(later - sig.u[k]).max() / np.abs(sig.u[sig.t >= t0]).max())


@plan("guo2015_wheeled")
def section_runs(ctx) -> list:
    """The section's engine runs: the head-tracking run (quick: QUICK_DURATION_S) and the rubber wheels."""
    name = "guo2015_wheeled_snake_head_tracking" + ("_quick" if ctx.quick else "")
    return [(name, SCENARIO, {"sim.duration": QUICK_DURATION_S} if ctx.quick else {}),
            ("guo2015_wheeled_rubber_wheels", SCENARIO, {"sim.duration": RUBBER_RUN_S,
                                                         "robot.wheel_friction": RUBBER_MU})]


@section("guo2015_wheeled", title="Passive-wheel snake: unified model, PFL head tracking, engine",
         paper="Guo, Wang, Li et al. 2015, dynamics–control unified model of a passive-wheel snake robot")
def report_section(ctx) -> SectionResult:
    from lab.core.tolerances import tol
    from lab.papers.guo2015_wheeled import study
    from lab.papers.guo2015_wheeled.checks import nonholonomic_models

    from concurrent.futures import ThreadPoolExecutor

    quick = ctx.quick
    name = "guo2015_wheeled_snake_head_tracking" + ("_quick" if quick else "")
    overrides = {"sim.duration": QUICK_DURATION_S} if quick else {}
    sc = study.load(overrides)
    p = study.model_params(sc)
    # the model runs use this process while the engine runs in the workers (with --workers > 1)
    with ThreadPoolExecutor(max_workers=1) as pool:
        models_f = pool.submit(lambda: (study.model_run(sc, dt_out=0.05, rtol=1e-9, atol=1e-11),
                                        None if quick else study.model_run(sc, dt_out=0.05, plant="wheels"),
                                        study.model_friction_run(sc, min(3.0, sc.sim.duration)),
                                        nonholonomic_models(None),
                                        None if quick else study.model_run(sc, dt_out=0.05, plant="el_nullspace"),
                                        study.friction_use(sc, min(0.3, sc.sim.duration))))
        runs = ctx.run_many(section_runs(ctx))
        mod, whl, (mu_t, mu_req), models, e18, fuse = models_f.result()
    res, rubber = runs[name], runs["guo2015_wheeled_rubber_wheels"]
    eng = study.from_run(res, wall_s=res.metrics.get("wall_time_s", 0.0))
    slip_t, slip = lateral_velocity_fd(res.series, sc.robot.n_modules)
    rub_t, rub_slip = lateral_velocity_fd(rubber.series, sc.robot.n_modules)
    T = p.ref_period
    full = sc.sim.duration >= 36.0 + T - 1e-9 or sc.sim.duration >= 60.0 - 1e-9

    win = (36.0, 60.0) if full else (0.5 * sc.sim.duration, sc.sim.duration)
    rms = {"unified model": mod.torque_rms(*win)}
    if whl is not None:
        rms["model + wheel spin inertia"] = whl.torque_rms(*win)
    rms["engine"] = eng.torque_rms(*win)
    figs = [
        ctx.save_figure(fig_head(eng, mod, p), "fig4_head",
                        caption="Left: the head point's path and the reference r_ref = (−0.1 t, 0.2 sin(πt/12)) (the "
                                "paper's Fig 4; axes not to scale). Right: the head error; the model follows the "
                                "closed-form error of the linearised loop until the integrator's floor."),
        ctx.save_figure(_two_panels(eng, mod, "phi", "φ [rad]", "Joint angles φ_i = θ_{i+1} − θ_i, head joint first "
                                    "(cf. Fig 5): model (thin), engine (thick)"), "fig5_joint_angles",
                        caption="Joint angles from the near-straight start φ = (0.1, −0.2, 0.1, 0, …): irregular at "
                                f"first, then periodic with the reference's {T:g} s."),
        ctx.save_figure(_two_panels(eng, mod, "u", "u [N·m]", "Joint torques, head joint first (cf. Fig 6): model "
                                    "(thin), engine (thick)", clip_after=2.0), "fig6_joint_torques",
                        caption="Joint torques (the paper's u, doing work u_i φ̇_i; the lab's τ = −u reversed). The "
                                "start transient (up to 0.23 N·m in the first second) is clipped."),
        ctx.save_figure(fig_torque_rms(rms, win), "fig6b_torque_rms",
                        caption=f"Per-joint torque RMS over {win[0]:g}–{win[1]:g} s"
                                + (" (the pfl_engine check's figure)." if full else " (quick mode).")),
        ctx.save_figure(fig_wheels(mu_t, mu_req, sc.robot.wheel_friction, slip_t, slip, rub_t, rub_slip),
                        "wheels_friction_slip",
                        caption="Left: the friction coefficient the model's no-slip start needs. Right: the "
                                "engine's lateral slip with the scenario's wheels and with rubber ones (that run "
                                f"{rubber.status}{' at t = %.2f s' % rubber.metrics['diverged_at_s'] if rubber.status == 'diverged' else ''}), "
                                "from the recorded 10 ms samples: these average out the step-to-step part that the "
                                "per-step metric wheels.lateral_slip_rms_mps includes (table)."),
    ]

    def mark(ok: bool) -> str:
        return "info" if quick else ("pass" if ok else "warn")

    worst_models = max(f.value for k, f in models.items() if k.startswith("guo.") and k.endswith("_rel"))
    spot = {k.split(".")[1]: None for k in models if k.startswith("spot.")}
    spot_txt = ", ".join(f"{k}: ({models[f'spot.{k}.xdd_m_s2'].value:+.6f}, {models[f'spot.{k}.ydd_m_s2'].value:+.6f})"
                         for k in spot)
    per_m = study.periodicity(mod, T) if full else None
    per_e = study.periodicity(eng, T) if full else None
    rel = eng.torque_rms() / mod.torque_rms() - 1.0 if full else None
    m = res.metrics
    rows = [
        Row("three formulations: max relative difference of q̈ and PFL torques (n = 4, 9, 15)",
            f"{worst_models:.1e}", "unified model ≡ E–L model (§4)", "pass" if worst_models <= tol("guo.models_rel")
            else "warn", "closed form (corrected) vs numerical construction vs constrained E–L (KKT, eq. 18); "
                         f"tolerance {tol('guo.models_rel'):g}"),
        Row("spot value: head (ẍ, ÿ) [m/s²] at Table 1's q0, ṙ = (−0.1, 0.05) m/s, u_j = 0.01 j N·m",
            f"({models['spot.unified_closed.xdd_m_s2'].value:+.6f}, {models['spot.unified_closed.ydd_m_s2'].value:+.6f})",
            "— (not in the paper)", "info", spot_txt),
        Row("head RMS error over t ≥ 20 s: model / engine (pfl.head_rms_error_m)",
            f"{mod.head_rms(20.0) * 1e3:.2f} / {eng.head_rms(20.0) * 1e3:.2f} mm" if sc.sim.duration > 20 else "—",
            "tracks the reference stably (Fig 4)",
            mark(mod.head_rms(20.0) <= tol("guo.pfl_head_rms_m") and eng.head_rms(20.0) <= tol("guo.engine_head_rms_m"))
            if sc.sim.duration > 20 else "info",
            f"tolerances {tol('guo.pfl_head_rms_m') * 1e3:g} mm (model), {tol('guo.engine_head_rms_m') * 1e3:g} mm "
            "(engine); the model's error is the linear loop's from the rest start"),
    ]
    if full:
        rows += [
            Row(f"joint angles periodic with T = {T:g} s: max |φ(t+T) − φ(t)| / amplitude, t ∈ [30, 36] s, model / engine",
                f"{per_m['full_period_rel']:.1e} / {per_e['full_period_rel']:.1e}", "periodic after an adjustment (Fig 5)",
                mark(max(per_m["full_period_rel"], per_e["full_period_rel"]) <= tol("guo.phi_period_rel")),
                f"φ(t + T/2) = −φ(t) to {per_m['half_period_mirror_rel']:.1e} (model): the shape mirrors every half period"),
            Row("joint torques periodic: max |u(t+T) − u(t)| / max |u|, t ∈ [30, 36] s, model / engine",
                f"{torque_periodicity(mod, T):.1e} / {torque_periodicity(eng, T):.1e}", "periodic (Fig 6)", "info",
                "the engine's torques carry its contact solver's residual"),
            Row("per-joint torque RMS over 36–60 s: engine vs model, largest |difference|", f"{np.abs(rel).max():.1%}",
                "—", mark(np.abs(rel).max() <= tol("guo.engine_torque_rel")),
                "per joint " + ", ".join(f"{x:+.1%}" for x in rel)
                + ("; vs the model with the wheels' spin inertia " + ", ".join(
                    f"{x:+.1%}" for x in eng.torque_rms() / whl.torque_rms() - 1.0) if whl is not None else "")),
        ]
    if full:
        shape = study.torque_shape_error(eng, mod, 36.0, 60.0)
        late_e, late_m = eng.head_rms(50.0, 60.0), mod.head_rms(50.0, 60.0)
        rows += [
            Row("per-joint torque shape over 36–60 s: engine vs model, normalised RMS error (nothing aligned)",
                f"{shape.max():.1%}", "—", mark(shape.max() <= tol("guo.engine_torque_shape_nrmse")),
                "per joint " + ", ".join(f"{x:.1%}" for x in shape)
                + f"; tolerance {tol('guo.engine_torque_shape_nrmse'):.0%} (measured error × margin, lab/core/tolerances.py)"),
            Row("head RMS error over 50–60 s (after the start transient): model / engine (pfl.late_head_rms_error_m)",
                f"{late_m * 1e3:.3f} / {late_e * 1e3:.3f} mm", "—", mark(late_e <= tol("guo.engine_late_head_rms_m")),
                f"the engine's floor is its step's: first order in dt (lab/core/tolerances.py, two step sizes); tolerance "
                f"{tol('guo.engine_late_head_rms_m') * 1e3:g} mm"),
            Row("eq. 18 (E–L projected on the head velocity) as its own plant vs the unified plant, 60 s: max head "
                "distance / max |Δφ| / largest per-joint torque NRMSE (36–60 s)",
                f"{np.hypot(*(mod.r - e18.r).T).max():.1e} m / {np.abs(mod.phi - e18.phi).max():.1e} rad / "
                f"{study.torque_shape_error(e18, mod, 36.0, 60.0).max():.1e}", "unified model ≡ E–L model (§4)",
                "info", "two formulations with different states ((q, v) and (q, q̇)), each integrated on its own "
                        "(DOP853, rtol 1e-9 and 1e-10): they run the same trajectory"),
        ]
    rows += [
        Row("engine: what bounds a wheel pair's lateral force (first 0.3 s, from the contacts each step)",
            f"|Σ f_lat| / Σ N ≤ {fuse.lateral_over_normal.max():.2f}; |Σ f_lat| / m g ≤ "
            f"{fuse.lateral_over_weight.max():.2f}; one contact's |f| / μN ≤ {fuse.contact_use.max():.2f}",
            "— (ideal wheels)", "info" if quick else mark(fuse.lateral_over_normal.max() <= fuse.mu),
            f"μ = {fuse.mu:g}. The pair's normal force is not the module's weight (the joints carry load between "
            "modules): the module that needs 6.1 m g stands on 1.33 m g (ratio 4.6), and no pair needs more than 4.87 × "
            "its normal force — below μ = 5, where one contact saturates and its partner on the same axle takes the rest (both push along the axle), so μ = 5 and 10 "
            "run identically; above μ = 3, where the pair slips (its contacts on their friction limit; the path leaves the "
            "no-slip one by 13 mm in 0.1 s)"),
        Row("wheel friction the model's start needs (max over modules of |λ_i| / m g)",
            f"{mu_req.max():.2f} at t = {mu_t[np.argmax(mu_req)]:.2f} s", "— (ideal wheels)", "info",
            f"below {RUBBER_MU:g} after t = {mu_t[np.nonzero(mu_req > RUBBER_MU)[0][-1]]:.2f} s; the scenario's wheels "
            f"have μ = {sc.robot.wheel_friction:g}"),
        Row(f"the same start on rubber wheels (μ = {RUBBER_MU:g})", rubber.status
            + (f" at t = {rubber.metrics['diverged_at_s']:.2f} s" if rubber.status == "diverged" else ""), "—", "info",
            "the wheels slip from the first step and the PFL, which assumes they cannot, drives the joints away"),
        Row("engine: lateral slip RMS, every module and step (wheels.lateral_slip_rms_mps)",
            f"{m['wheels.lateral_slip_rms_mps']:.2e} m/s", "0 (eq. 1)", "info",
            f"over t ≥ 20 s {m['wheels.lateral_slip_rms_late_mps']:.2e} m/s; largest {m['wheels.lateral_slip_max_mps']:.1e} m/s"
            if sc.sim.duration > 20 else f"largest {m['wheels.lateral_slip_max_mps']:.1e} m/s"),
        Row("engine: work of the wheel contacts / joints' input work", f"{m['energy.contact_work_J'] * 1e3:+.2f} / "
            f"{m['energy.input_work_J'] * 1e3:.2f} mJ", "0 (ideal wheels do no work)", "info",
            f"the ledger (gravity and contacts metered) closes to {m['energy.balance_residual_rel']:.2%}"),
        Row("wall time: engine run / unified model / model + wheels",
            f"{eng.wall_s:.1f} s / {mod.wall_s:.1f} s / {whl.wall_s:.1f} s" if whl is not None
            else f"{eng.wall_s:.1f} s / {mod.wall_s:.1f} s", "—", "info",
            f"{sc.sim.duration:g} s simulated at dt = {sc.sim.dt * 1e3:g} ms, {sc.sim.solver_iterations} solver iterations; "
            f"engine {m.get('realtime_factor', 0.0):.2f}× real time"),
    ]

    spec, c = sc.robot, sc.controller
    mw, Jw = spec.module_totals()
    body = [
        f"A {spec.n_modules}-module passive-wheel snake (Table 1: m = {spec.mass:g} kg per module, half length "
        f"l = {spec.half_length:g} m; J = m l² = {Jw:.1e} kg·m², the text's value — §§4.6, 5.2 — which Table 1 omits) "
        f"tracks r_ref(t) = ({c.ref_vx:g} t, {c.ref_amp:g} sin(2πt/{c.ref_period:g})) with its head under partial "
        f"feedback linearisation (eqs. 19, 23, 24; k_p = {c.k_p:g}, k_d = {c.k_d:g}) from the near-straight start "
        "φ = (0.1, −0.2, 0.1, 0, …), at rest (the paper gives no initial velocity; a robot on the ground starts still).",
        "",
        "**The engine robot** (lab/robots/wheeled_snake.py) has a real axle with two free wheels at each module's "
        f"centre ({spec.wheel_mass * 1e3:g} g, r = {spec.wheel_radius * 1e3:g} mm, spheres for contact: one point "
        "under the axle) and the model's m and J exactly (body and wheels together; two joint housings whose "
        "distance from the centre is solved from J). The controller reads (x, y, θ, φ) and the head velocity from "
        "the snapshot and evaluates f and g of the model there; τ = −u reversed (lab order tail → head).",
        "",
        "**What is linearised.** Printed, eq. 23 (u = g⁺(ũ − f)) sets the pseudo-velocity's derivative v̇ = ũ; "
        "since v = √(nm) ṙ (§5.2), the head's acceleration is then ũ/√(nm). The lab uses u = g⁺(√(nm) ũ − f), "
        "so r̈ = ũ (slip 7 below; the printed law leaves a persistent 5.6 mm error).",
        "",
        "**Findings on the engine.** (1) *Slip at the start*: from rest the PFL asks the near-straight body for a "
        "head acceleration k_d ṙ_ref(0) ≈ 1.1 m/s² along its own axis, which the wheels' lateral forces can "
        "give only at a steep ratio: the model needs up to 6.1 × a module's weight across its wheels in the first "
        "0.1 s. Rubber wheels slip and the PFL — which assumes they cannot — drives the joints away (before the joints' "
        "motors it diverged at 0.05 s; the motors now cut its commands and the run stays finite); the scenario's wheels have "
        "μ = 10. What bounds the engine's lateral force is μ times the *pair's* normal force, read from the contacts "
        "each step (table): the module that needs 6.1 m g stands on 1.33 m g, and no pair needs more than 4.87 × its "
        "normal force; at "
        "μ = 5 one contact sits on its limit and the other wheel of the axle takes the rest (the same run to 5e-16 m), "
        "at μ = 3 the pair slips (the path leaves the no-slip one by 13 mm in 0.1 s). "
        "(2) *The contact solver*: a near-straight chain's wheel forces are an ill-conditioned problem. Bullet's "
        "default solver stops once no impulse changes by more than √1e-7 N·s per iteration — about this robot's "
        "whole wheel impulse per step — and the engine's torques then differed from the model's by up to 28 % "
        "(head 8 mm off); with the MLCP projected Gauss–Seidel solver, 1000 iterations and a 1e-14 residual "
        "(the scenario's settings) they agree to a few per cent (measured convergence in the README). "
        "(3) *What remains*: the wheels' spin inertia (2 % more mass along each module; the model with it, "
        "lab/papers/guo2015_wheeled/wheel_inertia.py, gives the engine's +2 %) and the 5 ms step.",
        "",
        "**Slips in the paper's printed equations** (found while deriving the models; each shown by a test, "
        "lab.papers.guo2015_wheeled.model.SLIPS):",
        "",
        slip_table(),
    ]
    if quick:
        body += ["", f"**Quick mode:** {QUICK_DURATION_S:g} s engine run; no periodicity or 36–60 s figures."]
    return SectionResult(body="\n".join(body), figures=figs, table=rows)


__all__ = ["report_section"]
