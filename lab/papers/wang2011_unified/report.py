"""Report section ``wang2011_unified``: Wang et al. 2011, unified locomotion/manipulation dynamics.

Counterparts of the paper's Fig 5 — (a) the tail's track in locomotion, (b) the snake welded at its
tail, (c, d) the joint torques of both cases — with the engine (PyBullet, scenarios
snake_unified_*.toml) and the model (lab.papers.wang2011_unified.model) on the same axes; the per-joint
error table beside the paper's (the unified model vs a separately written Newton–Euler model, as the paper;
engine vs model as separately simulated runs; the at-state identity as a sanity row); and the
friction-regularisation study: mean |τ| per joint against the slip speed v_s of tanh(v/v_s).

All runs go through ``ctx.compute`` (side by side on the report's workers, or in this process with
``--workers 1``; :func:`lab.papers.wang2011_unified.study.run_parallel` does the same outside a report):
the two engine runs start on the gait like the model, which the runner's own start (straight, at
rest) cannot do, so they are not ``ctx.run_many`` runs.
"""

from __future__ import annotations

import math

import numpy as np

from lab.report.schedule import plan
from lab.report import Row, SectionResult, section

SLIP_SPEEDS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)  # the model's study (Table D1), two periods each
# engine, first W seconds (the welded case's insensitivity is the model's to show: its engine torques match the
# model's at any v_s, and a 1e-4 run costs 50 k steps a second)
ENGINE_SLIP = (("locomotion", 3e-4), ("locomotion", 1e-4))
SLIP_WINDOW_S = 1.0
QUICK = dict(duration=0.6, slip_window=0.1, periods=0.1)
REPLAY_RUN = "wang2011_unified_locomotion"  # the report's run of the gait (runs/<name>), replayed on the docs page
PAPER_LOCO_ERR = (6.09, 1.88, 0.98, 1.44)  # %, unified vs Newton–Euler (§5)
PAPER_MANIP_ERR = (8.73e-8, 6.18e-8, 6.48e-8, 5.05e-8)  # %
JOINT_LABELS = ("τ4", "τ5", "τ6", "τ7")
STYLES = {"engine": dict(color="C0", lw=3.0, alpha=0.45, label="engine (applied)"),
          "along": dict(color="k", lw=0.9, label="model at the engine's states (engine I)"),
          "model": dict(color="C2", lw=0.9, ls="--", label="model's own run, engine module's I"),
          "paper": dict(color="C3", lw=0.9, ls=":", label="model's own run, Table D1's I = 0.016")}


def _fmt(a, f="{:.3g}") -> str:
    return " / ".join(f.format(x) for x in np.asarray(a))


# ------------------------------------------------------------------------------------------ figures


def fig_tail_tracks(c):
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.0), gridspec_kw={"width_ratios": [3, 2]})
    t = c.run.t
    ax.plot(*c.track_engine.T, **STYLES["engine"])
    ax.plot(*c.track_model.T, **STYLES["model"])
    ax.plot(*c.track_model_paper.T, **STYLES["paper"])
    for tm in np.arange(0.0, t[-1] + 1e-9, math.pi):
        k = int(np.argmin(np.abs(t - tm)))
        ax.plot(*c.track_engine[k], "o", color="0.3", ms=3)
        ax.annotate(f"{t[k]:.2f} s", c.track_engine[k], fontsize=7, color="0.3", xytext=(2, 4), textcoords="offset points")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("Tail end point (x¹, x²) in locomotion (cf. Fig 5a)")
    ax.legend(fontsize=7)
    bx.plot(t, 1e3 * np.linalg.norm(c.track_engine - c.track_model, axis=1), color="C2", lw=1.0,
            label="engine − model (engine I)")
    bx.plot(t, 1e3 * np.linalg.norm(c.track_engine - c.track_model_paper, axis=1), color="C3", lw=1.0, ls=":",
            label="engine − model (Table D1 I)")
    bx.set_xlabel("t [s]")
    bx.set_ylabel("distance between tracks [mm]")
    bx.set_title("How far apart the tracks are")
    bx.legend(fontsize=7)
    return fig


def fig_manipulation(c):
    import matplotlib.pyplot as plt

    from lab.papers.wang2011_unified.model import kinematics

    fig, ax = plt.subplots(figsize=(8, 5))
    run = c.run
    p = c.p_engine
    t = run.t
    xb = np.array([run.xy[0, 0, 0] - 0.5 * p.L * math.cos(run.yaw[0, 0]),
                   run.xy[0, 0, 1] - 0.5 * p.L * math.sin(run.yaw[0, 0]), run.yaw[0, 0]])
    gait = gait_of_run(c)
    cmap = plt.get_cmap("viridis")
    instants = np.linspace(0.0, min(t[-1], 2 * math.pi / p.omega), 9)[:-1]
    for i, tm in enumerate(instants):
        k = int(np.argmin(np.abs(t - tm)))
        col = cmap(i / max(len(instants) - 1, 1))
        # engine: the joints' end points from the link COMs and yaws
        e = np.stack([np.cos(run.yaw[k]), np.sin(run.yaw[k])], -1)
        pts = np.vstack([run.xy[k] - 0.5 * p.L * e, run.xy[k][-1] + 0.5 * p.L * e[-1]])
        ax.plot(pts[:, 0], pts[:, 1], "-", color=col, lw=4, alpha=0.35)
        g = kinematics(p, np.concatenate([xb, gait(t[k])[0]])).g_S[2:]
        mp = np.array([gg[:2, 3] - 0.5 * p.L * gg[:2, 0] for gg in g] + [g[-1][:2, 3] + 0.5 * p.L * g[-1][:2, 0]])
        ax.plot(mp[:, 0], mp[:, 1], "-", color=col, lw=0.9, label=f"t = {t[k]:.2f} s")
    ax.plot(*c.track_engine.T, color="C0", lw=2.5, alpha=0.4, label="head tip, engine")
    ax.plot(*c.track_model.T, color="k", lw=0.8, ls="--", label="head tip, model on the gait")
    ax.plot([xb[0]], [xb[1]], "ks", ms=6, label="weld (tail end)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("Manipulation, tail welded: body every T/8 (thick: engine, thin: model) (cf. Fig 5b)")
    ax.legend(fontsize=6, ncol=2, loc="best")
    return fig


def gait_of_run(c):
    from lab.papers.wang2011_unified.study import gait_of

    cp = c.extra["controller"]
    return gait_of(cp)(c.run.q.shape[1])


def fig_torques(c, title: str):
    import matplotlib.pyplot as plt

    run = c.run
    t = run.t
    fig, axes = plt.subplots(4, 1, figsize=(11, 8.5), sharex=True)
    for j, ax in enumerate(axes):
        ax.plot(t, run.tau[:, j], **STYLES["engine"])
        ax.plot(t, c.tau_along[:, j], **STYLES["along"])
        ax.plot(t, c.tau_model[:, j], **STYLES["model"])
        ax.plot(t, c.tau_model_paper[:, j], **STYLES["paper"])
        ax.set_ylabel(f"{JOINT_LABELS[j]} [N·m]")
        lim = 1.15 * float(np.percentile(np.abs(np.concatenate([c.tau_model[:, j], c.tau_model_paper[:, j]])), 99.5))
        if lim > 0:
            ax.set_ylim(-lim, lim)
    axes[0].set_title(title)
    axes[0].legend(fontsize=7, ncol=2, loc="upper right")
    axes[-1].set_xlabel("t [s]")
    return fig


def fig_slip(study_cases, points, comps):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    vs = np.array([c.v_s for c in study_cases])
    cmap = plt.get_cmap("viridis")
    for ax, key, title in ((axes[0], "locomotion_mean_abs_tau", "locomotion"),
                           (axes[1], "manipulation_mean_abs_tau", "manipulation (tail welded)")):
        vals = np.array([getattr(c, key) for c in study_cases])
        for j in range(vals.shape[1]):
            ax.plot(vs, vals[:, j], "o-", color=cmap(j / 3), ms=4, label=f"{JOINT_LABELS[j]}, Table D1 model")
        case = "locomotion" if title == "locomotion" else "manipulation"
        c = comps[case]
        v0 = c.p_engine.v_s
        for j in range(len(c.mean_engine)):
            ax.plot([v0], [c.mean_engine[j]], "x", color=cmap(j / 3), ms=8, mew=2)
        ax.plot([], [], "kx", ms=8, mew=2, label="engine (its module's I), two periods")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.invert_xaxis()
        ax.set_xlabel("slip speed v_s of tanh(v/v_s) [m/s]")
        ax.set_ylabel("mean |τ| over two periods [N·m]")
        ax.set_title(f"{title}: mean |τ| against v_s")
        ax.legend(fontsize=6)
    ax = axes[2]
    for case, mk in (("locomotion", "o"), ("manipulation", "s")):
        pts = sorted((p for p in points if p.case == case), key=lambda p: -p.v_s)
        if not pts:
            continue
        v = np.array([p.v_s for p in pts])
        eng = np.array([p.mean_engine for p in pts])
        mod = np.array([p.mean_model for p in pts])
        for j in range(eng.shape[1]):
            ax.plot(v, mod[:, j], "-", color=cmap(j / 3), lw=0.8)
            ax.plot(v, eng[:, j], mk, color=cmap(j / 3), ms=6, mfc="none")
    ax.plot([], [], "ko", mfc="none", label="engine, locomotion")
    ax.plot([], [], "ks", mfc="none", label="engine, manipulation")
    ax.plot([], [], "k-", lw=0.8, label="model's own run (engine I)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("v_s [m/s] (the engine's dt = v_s/(μ_n g))")
    ax.set_ylabel(f"mean |τ| over the first {points[0].duration if points else 0:g} s [N·m]")
    ax.set_title(f"engine vs model, first {points[0].duration if points else 0:g} s")
    ax.legend(fontsize=6)
    return fig


# ------------------------------------------------------------------------------------------ rows


def error_rows(loco, manip, quick: bool) -> list[Row]:
    from lab.core.tolerances import tol

    def mark(v, name):
        if quick:
            return "info"
        return "pass" if v <= (1.0 if name == "unit" else tol(name)) else "warn"

    def ne_row(c, case, paper, fmt):
        return Row(f"{case}, the paper's comparison: unified model vs a separately written Newton–Euler model, mean "
                   "error τ4 / τ5 / τ6 / τ7 (paper.unified_vs_newton_euler_rel)",
                   _fmt(100 * c.ne_rel, "{:.1e}") + " %", " / ".join(fmt.format(x) for x in paper) + " %",
                   mark(float(max(c.ne_rel.max(), c.ne_rel_paper.max())), "unified.vs_newton_euler_rel"),
                   "Σ|τ_u − τ_NE| / Σ|τ_NE| per joint at the states of the model's own run (engine module's I; "
                   f"Table D1's I: {_fmt(100 * c.ne_rel_paper, '{:.1e}')} %); lab.papers.wang2011_unified.newton_euler. "
                   "Two exact forms of the same mechanics agree to rounding"
                   + ("; so the paper's 6.09 / 1.88 / 0.98 / 1.44 % cannot be a formulation difference: it is what "
                      "separately integrated runs give (the engine-vs-model row below: the same order)"
                      if case == "locomotion" else ""))

    def runs_row(c, case):
        from lab.papers.wang2011_unified.checks import RUNS_TOL

        k_mean, k_nrmse = RUNS_TOL[case]
        mean, nrmse = c.runs_error()
        return Row(f"{case}, engine vs model as separately simulated runs: mean error / normalised RMS error "
                   "τ4 / τ5 / τ6 / τ7 (runs.*)",
                   _fmt(100 * mean, "{:.2f}") + " % / " + _fmt(100 * nrmse, "{:.1f}") + " %", "—",
                   mark(max(float(mean.max()) / tol(k_mean), float(nrmse.max()) / tol(k_nrmse)), "unit"),
                   f"the torques the engine applied (the scenario's PD servo on the gait) vs the model's own run on the "
                   f"ideal gait, same samples over 0–{c.run.t[-1]:.2f} s; tolerances "
                   f"{tol(k_mean):.0%} / {tol(k_nrmse):.0%}")

    def window_row(c, case):
        if c.run.t[-1] < 14.0:
            return Row(f"{case}, engine vs model runs over the paper's Fig 5 window t = 13–14 s", "— (run too short)",
                       "Fig 5 zooms", "info", "")
        wm, wn = c.runs_error(13.0, 14.0)
        return Row(f"{case}, engine vs model runs over the paper's Fig 5 window t = 13–14 s: mean error / NRMSE",
                   _fmt(100 * wm, "{:.2f}") + " % / " + _fmt(100 * wn, "{:.2f}") + " %", "Fig 5 zooms", "info",
                   "the same figures on the window the paper plots")

    rows = [
        ne_row(loco, "locomotion", PAPER_LOCO_ERR, "{:g}"),
        ne_row(manip, "manipulation", PAPER_MANIP_ERR, "{:.2e}"),
        runs_row(loco, "locomotion"),
        runs_row(manip, "manipulation"),
        window_row(loco, "locomotion"),
        window_row(manip, "manipulation"),
        Row("locomotion: the Newton–Euler equations integrated as their own plant vs the unified run: max tail track "
            "distance / largest torque NRMSE",
            f"{loco.ne_plant_track_max_m:.1e} m / {np.max(loco.ne_plant_torque_nrmse):.1e}"
            if loco.ne_plant_torque_nrmse is not None else "—", "—", "info",
            "base acceleration from the free tail's zero force and torque; LSODA rtol 1e-8 on both plants"),
        Row("sanity row, not a comparison: the model at the engine's own states and step accelerations vs the applied "
            "torques, τ4..τ7, locomotion / manipulation (sanity.at_state_inverse_dynamics_rel)",
            _fmt(loco.rel_err, "{:.1e}") + " / " + _fmt(manip.rel_err, "{:.1e}"), "—",
            mark(float(max(loco.rel_err.max() / tol("unified.at_state_identity_loco_rel"),
                           manip.rel_err.max() / tol("unified.at_state_identity_manip_rel"))), "unit"),
            "an inverse-dynamics identity of one trajectory (Bullet's step applies exactly the inverse dynamics of its "
            "own state and step acceleration): it shows the engine and the model compute the same mechanics, and says "
            "nothing about two runs"),
    ]
    d = loco.distance
    de, dm, dp = d["engine"][0], d["model"][0], d["model_paper"][0]
    rel = abs(de - dm) / dm
    dev = float(np.linalg.norm(loco.track_engine - loco.track_model, axis=1).max())
    rows += [
        Row(f"locomotion: tail end displacement after {loco.run.t[-1]:.2f} s, engine vs model as separately "
            "simulated runs (unified.tail_distance_rel)",
            f"{de:.4f} vs {dm:.4f} m ({rel:.1e})", "tracks \"完全一致\" (identical, Fig 5a)",
            mark(rel, "unified.tail_distance_rel"),
            f"tolerance {tol('unified.tail_distance_rel'):.0e} (relative); max distance between the tracks {dev * 1e3:.3f} mm; "
            f"with Table D1's I the model's tail goes {dp:.4f} m; the paper's Fig 5a zooms on x ∈ [0.60, 0.65] m "
            "and its torque panels reach 14 s: three periods here"),
        Row("locomotion: eq. 23 residual along the engine trajectory (max |rows 1–3|)",
            f"{np.abs(loco.residual).max():.1e}", "0 on a trajectory of the model", "info",
            "N, N, N·m about the tail end: the engine's free base obeys the model's external dynamics up to the "
            "ground contacts' out-of-plane jitter"),
        Row("manipulation: tail drift with the weld (fixed base)",
            f"{np.abs(manip.run.xy[:, 0] - manip.run.xy[0, 0]).max():.1e} m", "0 (eq. 26)", "info",
            "a JOINT_FIXED constraint instead drifts ~1e-8–1e-7 m and moves the torques by ~5e-6 (measured)"),
    ]
    if quick:
        rows = [Row(r.quantity, r.lab, r.paper, "info", "quick mode (short run): " + r.note) for r in rows]
    return rows


def regularisation_rows(cases, v0: float, id_err: float) -> list[Row]:
    lo = {c.v_s: c for c in cases}
    small, big = lo[min(lo)], lo.get(v0, cases[0])
    r_lo = small.locomotion_mean_abs_tau / big.locomotion_mean_abs_tau
    r_ma = np.abs(small.manipulation_mean_abs_tau / big.manipulation_mean_abs_tau - 1)
    return [
        Row(f"locomotion torques at v_s = {small.v_s:.0e} vs {big.v_s:g} m/s (model, Table D1, mean |τ4..τ7|)",
            _fmt(r_lo, "{:.1f}") + "×", "hard sign (v_s → 0)", "info",
            "the comparison's v_s is the engine's: it compares the regularised law on both sides, not the paper's hard "
            "sign; the hard-sign torques are the model's small-v_s values"),
        Row(f"manipulation torques at v_s = {small.v_s:.0e} vs {big.v_s:g} m/s (model, Table D1)",
            _fmt(100 * r_ma, "{:.2f}") + " %", "— (insensitive)", "info",
            "the welded modules slide at cm/s: tanh(v/v_s) is a sign almost everywhere"),
        Row("engine's other counterpart: calculateInverseDynamics (fixed-base copy) − Σ Jᵀ F vs the applied torque",
            f"{id_err:.0e}", "—", "info", "mean relative error, max over the joints, welded case"),
    ]


def means_table(loco, manip) -> str:
    """Mean |τ| per joint over the comparison window: the model with either inertia and the engine."""
    lines = ["| mean \\|τ\\| [N·m] over the run | τ4 | τ5 | τ6 | τ7 |", "|---|---|---|---|---|"]
    for c, name in ((loco, "locomotion"), (manip, "manipulation")):
        for label, v in (("model, Table D1's I = 0.016", c.mean_model_paper),
                         ("model, engine module's I", c.mean_model), ("engine (applied)", c.mean_engine),
                         ("Table D1's I vs the module's", 100 * (c.mean_model_paper / c.mean_model - 1))):
            unit = " %" if label.startswith("Table") else ""
            f = "{:+.1f}" if unit else "{:.4g}"
            lines.append(f"| {name}: {label} | " + " | ".join(f.format(x) + unit for x in v) + " |")
    return "\n".join(lines)


def slip_table(study_cases) -> str:
    """The model's (Table D1) mean |τ| per joint over two periods against v_s, both cases."""
    ref = study_cases[-1]
    lines = ["| v_s [m/s] | locomotion τ4 | τ5 | τ6 | τ7 | ÷ (v_s → 0) | manipulation τ4 | τ5 | τ6 | τ7 "
             "| tail displacement [m] |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in study_cases:
        lo, ma = c.locomotion_mean_abs_tau, c.manipulation_mean_abs_tau
        lines.append(f"| {c.v_s:.0e} | " + " | ".join(f"{x:.4f}" for x in lo)
                     + f" | {_fmt(lo / ref.locomotion_mean_abs_tau, '{:.2f}')} | "
                     + " | ".join(f"{x:.4f}" for x in ma)
                     + f" | {c.tail_displacement:.4f} |")
    return "\n".join(lines)


def engine_slip_table(points) -> str:
    lines = ["| case | v_s [m/s] | dt [µs] | engine mean \\|τ4..τ7\\| [N·m] | model's own run [N·m] "
             "| model at the engine's states vs applied |", "|---|---|---|---|---|---|"]
    for p in sorted(points, key=lambda p: (p.case, -p.v_s)):
        lines.append(f"| {p.case} | {p.v_s:.0e} | {p.dt * 1e6:g} | {_fmt(p.mean_engine, '{:.4f}')} | "
                     f"{_fmt(p.mean_model, '{:.4f}')} | {_fmt(p.rel_err, '{:.1e}')} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ section


@plan("wang2011_unified")
def section_runs(ctx) -> list:
    """The section's one ``run_many`` run (the gait replayed on the docs page); its model/engine comparisons
    run beside it through ``ctx.compute``."""
    from lab.papers.wang2011_unified import study

    ov = [f"sim.duration={QUICK['duration']}"] if ctx.quick else []
    return [(REPLAY_RUN + ("_quick" if ctx.quick else ""), study.SCENARIOS["locomotion"], ov)]


@section("wang2011_unified", title="Unified locomotion/manipulation dynamics: model vs engine, and the friction's slip speed",
         paper="Wang et al. 2011, unified locomotion/manipulation dynamics of a snake robot (Sci Sin Inf)")
def report_section(ctx) -> SectionResult:
    import time

    from lab.papers.wang2011_unified.params import INERTIA_CHECK
    from lab.papers.wang2011_unified import study

    quick = ctx.quick
    ov = [f"sim.duration={QUICK['duration']}"] if quick else []
    window = QUICK["slip_window"] if quick else SLIP_WINDOW_S
    periods = QUICK["periods"] if quick else 2.0
    slip = SLIP_SPEEDS[::2] if quick else SLIP_SPEEDS
    n_samples = 201 if quick else 1001  # the cost is the integration; the means move ~0.3 % from 4001
    # longest first: the workers take them in order
    tasks = [(study.model_slip_case, v, periods, "paper", n_samples) for v in sorted(slip)[:2]]
    tasks += [(study.case_comparison, "locomotion", ov), (study.case_comparison, "manipulation", ov)]
    tasks += [(study.slip_point, case, v, window) for case, v in ENGINE_SLIP]
    tasks += [(study.model_slip_case, v, periods, "paper", n_samples) for v in sorted(slip)[2:]]
    w0 = time.perf_counter()
    out = ctx.compute([(f, tuple(a)) for f, *a in tasks])  # on the build's workers, beside the other sections' runs
    wall = time.perf_counter() - w0
    # the locomotion gait as its scenario runs it (from rest, the runner's own start): the run the docs
    # page replays (lab replay, Paper.replay_runs); nothing below reads it
    ctx.run_many(section_runs(ctx))
    cases = sorted([o for o in out if type(o).__name__ == "CaseNumbers"], key=lambda c: -c.v_s)
    comps = {o.case: o for o in out if type(o).__name__ == "Comparison"}
    loco, manip = comps["locomotion"], comps["manipulation"]
    points = [o for o in out if type(o).__name__ == "SlipPoint"] + [study.slip_point_of(c, window)
                                                                     for c in (loco, manip)]
    sc = study.load("locomotion", ov)
    for c in comps.values():
        c.extra["controller"] = sc.controller

    figs = [
        ctx.save_figure(fig_tail_tracks(loco), "fig5a_tail_tracks",
                        caption="Tail end point (x¹, x²) of the crawling snake: engine, the model with the engine "
                                "module's inertia, and with Table D1's; dots every π s. Right: distance between tracks."),
        ctx.save_figure(fig_manipulation(manip), "fig5b_manipulation",
                        caption="The welded snake every eighth of a period (thick: engine, thin: model on the gait) and "
                                "the head tip's track."),
        ctx.save_figure(fig_torques(loco, "Locomotion joint torques (cf. Fig 5c)"), "fig5c_torques_locomotion",
                        caption="Locomotion: the torques the engine applied (thick), the model's eq. 22 at the engine's "
                                "own states (thin black: on top of the engine's), and the model's own runs on the gait "
                                "with either inertia (dashed, dotted)."),
        ctx.save_figure(fig_torques(manip, "Manipulation joint torques, tail welded (cf. Fig 5d)"),
                        "fig5d_torques_manipulation",
                        caption="Manipulation: as above with eq. 27. The engine's torques ring at ~19 Hz after the "
                                "start and every friction reversal: the PD loop is barely damped on the heavy tail "
                                "joint (ζ ≈ 0.01; k_d = 1 still rings, k_d = 2 is unstable at this step with the "
                                "friction's linear zone), and the model at the engine's states rings with it. The "
                                "model's own run on the ideal gait differs from the engine by that loop only "
                                "(tracking error ≤ 2.5e-3 rad), not by the dynamics."),
        ctx.save_figure(fig_slip(cases, points, comps), "slip_speed",
                        caption="Mean |τ| per joint against the slip speed of the sign's regularisation: the model "
                                "(Table D1) over two periods for locomotion and manipulation (crosses: the engine at the "
                                "comparison's v_s), and the engine against the model's own run at the slip speeds the "
                                "engine can afford, over the first seconds."),
    ]
    p = loco.p_paper
    lo = {c.v_s: c for c in cases}
    v0 = loco.p_engine.v_s
    ratio = (lo[min(lo)].locomotion_mean_abs_tau / lo[v0].locomotion_mean_abs_tau) if v0 in lo else None
    manip_spread = max(float(np.max(np.abs(c.manipulation_mean_abs_tau / cases[-1].manipulation_mean_abs_tau - 1)))
                       for c in cases)
    short = (1 - lo[1e-5].locomotion_mean_abs_tau / lo[min(lo)].locomotion_mean_abs_tau) if 1e-5 in lo else None
    step_s = loco.run.wall_s / max(loco.run.info["steps"], 1)
    n_floor = 2.0 * p.period / study.slip_dt(1e-5, p.mu_n, p.g)
    rows_id = np.arange(0, len(manip.run.t), 50)
    sc_m = study.load("manipulation", ov)
    loco_kp, loco_kd = sc_m.controller.kp, sc_m.controller.kd
    sc_l = study.load("locomotion", ov)
    loco_implicit = study.friction_implicit(sc_l)
    servo_l = (f" The locomotion scenario runs at dt = {sc_l.sim.dt * 1e3:g} ms with its servo taken implicitly "
               f"(`{sc_l.controller.servo}`: the PD at the predicted next state with the engine's mass matrix, stable "
               f"at any step; k_p = {sc_l.controller.kp:g}, k_d = {sc_l.controller.kd:g}: ζ 0.7 on the heavy mode) and "
               "the same tanh law taken implicitly at the step's end slip (`coulomb_velocity` with slip_tol = v_s); "
               "its sanity row then pulls back the friction the engine applied (that law is no function of the "
               "snapshot), and a further row holds that force against the model's law at the step's end velocities."
               if sc_l.controller.servo != "explicit" else "")
    id_err = float(study.mean_rel_error(study.inverse_dynamics_counterpart(sc_m, manip.run, rows_id),
                                        manip.run.tau[rows_id]).max())
    body = [
        f"Table D1's snake: {p.n_modules} modules, L = {p.L} m joint to joint, m = {p.m} kg, on horizontal ground with "
        f"a passive wheel at the middle of every module (§5 assumptions 1, 4: Coulomb friction on all modules, "
        f"μ_t = {p.mu_t}, μ_n = {p.mu_n}, normal load m g), joints on the serpenoid x^i = α sin(ωt + (i − 3)β) + γ "
        f"(α = {p.alpha}, ω = {p.omega} rad/s, β = π/2, γ = 0). **Locomotion**: free base, the model integrates "
        "eq. 25 for "
        "(x¹, x², x³) and returns the torques of eq. 24. **Manipulation**: the tail module welded (eq. 26; the "
        "`welded_tail` trial makes the engine's base fixed), torques from eq. 27.",
        "",
        "**Conventions.** Lab link k is the paper's U_{k+3}, lab joint j its x^{j+4} (same order tail → head, same "
        "sign). (x¹, x²) is the tail module's *rear end* J3, not its COM; x³ the tail's absolute yaw. The paper's "
        "phase (i − 3)β starts at β on x⁴, so the serpenoid controller runs with `phase_offset = β`. Both start on "
        "the gait (angles and rates at t = 0) with the base at rest — in the engine set by "
        "`study.start_on_gait`, since the runner starts every run straight and at rest.",
        "",
        "**Which torques are compared — three comparisons, each labelled.** (1) *The paper's comparison*: the "
        "unified model against a separately written Newton–Euler model of the same snake "
        "(lab.papers.wang2011_unified.newton_euler: planar geometry, a backward force/torque recursion, the friction "
        "law written again) at the states of the model's own run. Both are exact, so they agree to rounding (table); "
        "the paper's 6.09 / 1.88 / 0.98 / 1.44 % for locomotion cannot come from the formulations and must come from "
        "how its two runs were integrated. Integrated as its own plant, the Newton–Euler model also runs the unified "
        "model's track. (2) *Engine vs model as separately simulated runs*: the torques the engine's PD servo "
        f"(k_p = {loco_kp:g} N·m/rad, k_d = {loco_kd:g} N·m·s/rad) applied against the model's own run on the ideal "
        "gait, same samples: paper-style mean error Σ|Δτ| / Σ|τ| and the normalised RMS error per joint, over the "
        "three periods and over the paper's Fig 5 window (t = 13–14 s). The servo's gains come from the joint-space "
        "inertia (scenario file): the explicit PD is stable only while k_p dt²/μ + 2 k_d dt/μ < 4 on the lightest mode "
        "(μ = 9.3e-5 kg·m² free), so k_d ≤ 0.83; k_d = 0.5 damps the light modes (ζ ≈ 0.8) but the heavy one — the "
        "welded chain swinging on its tail joint, μ = 0.100 kg·m², ω = 100 rad/s — only at ζ = 0.025: it rings for "
        "about a second after the start and after each friction reversal, which is most of the manipulation runs' "
        "error (their Fig 5 window, between reversals, agrees to 0.05 %)." + servo_l + " (3) *A sanity row*: eq. 22 / 27 evaluated "
        "at the snapshot each applied torque was computed from, with the acceleration of the step it drove. Bullet's "
        "semi-implicit step makes that torque exactly the inverse dynamics of that state and acceleration, so this is "
        "an identity of one trajectory — it shows the engine and the model compute the same mechanics, not that two "
        "runs agree. The other counterpart — Bullet's `calculateInverseDynamics` on a fixed-base copy plus the friction "
        f"mapped through `calculateJacobian` — equals the applied torque to {id_err:.0e} (mean relative, every 50th "
        "sample). (`calculateJacobian`'s point is in the URDF link frame, i.e. the joint, not the COM as its "
        "documentation says: measured, a zero offset put every friction force L/2 behind its COM.)",
        "",
        f"**The inertia.** Table D1's I = 0.016 kg·m² is {INERTIA_CHECK['ratio_paper_to_rod']:.0f}× a 0.08 m, 0.5 kg "
        f"module's own (m L²/12 = {INERTIA_CHECK['thin_rod_mL2_12']:.2e}; the lab's cylinder "
        f"{INERTIA_CHECK['lab_cylinder_r7.5mm']:.2e} kg·m²): a box of that mass and length would be "
        f"{INERTIA_CHECK['box_width_needed_m']:.2f} m wide. The engine simulates its module's geometry, so every "
        "engine-vs-model figure uses the model with the engine's I; the reproduction's own numbers (the v_s study, "
        "the `model.*` figures of the checks) use Table D1's, and the table says what the plausible value changes.",
        "",
        "**The friction's slip speed.** The paper's Coulomb law has a hard sign; the lab's (engine and model alike) "
        f"is tanh(v/v_s). Crawling, the external dynamics settle the base where the modules' lateral slip is of the "
        f"order of v_s itself, so the locomotion torques grow as v_s shrinks"
        + (f" — at v_s = {min(lo):.0e} m/s they are {_fmt(ratio, '{:.1f}')}× those at {v0:g} m/s —"
           if ratio is not None else "")
        + f" while the welded snake's modules slide at centimetres per second and its torques move by at most "
        f"{manip_spread:.1%} over the whole range. "
        + (f"The engine comparison uses v_s = {v0:g} m/s; locomotion takes the law implicitly (stable at any step) "
           f"at dt = {loco.run.dt * 1e3:g} ms, {loco.run.info['steps']} steps for the run, where the explicit law "
           f"would need dt < 2 v_s/(μ_n g) = {2e3 * v0 / (p.mu_n * p.g):.2g} ms and so ten times the steps per "
           "factor of ten in v_s. The explicit law's scale: the engine's floor, 1e-5 m/s (dt = "
           if loco_implicit else
           f"The engine comparison uses v_s = {v0:g} m/s because the explicit friction force is stable only for "
           f"dt < 2 v_s/(μ_n g): the engine runs at dt = v_s/(μ_n g) rounded down = {loco.run.dt * 1e3:g} ms (half "
           f"the bound, where one module's linear zone is deadbeat), {loco.run.info['steps']} steps for the run; "
           "each factor of ten in v_s costs ten times the steps, and the engine's floor, 1e-5 m/s (dt = ") +
        f"{study.slip_dt(1e-5, p.mu_n, p.g) * 1e6:g} µs), would take {n_floor / 1e6:.1f} M steps (≈ "
        f"{n_floor * step_s / 60:.0f} min at this run's {step_s * 1e6:.0f} µs a step)"
        + (f" and still falls {_fmt(100 * short, '{:.0f}')} % short of the hard-sign torques"
           if short is not None else "")
        + ". Because both sides use the same law, the comparison is as exact at any v_s (the engine points at "
        "3e-4 and 1e-4 m/s); the paper's own torques are the model's v_s → 0 rows.",
        "",
        f"**The model's mean |τ| against v_s** (Table D1, I = 0.016, from the on-gait start over {periods:g} periods, "
        "lab.papers.wang2011_unified.slip_study; ÷ (v_s → 0): locomotion relative to the smallest v_s):",
        "",
        slip_table(cases),
        "",
        f"**The engine at the slip speeds it can afford** (its module's I; the first {window:g} s, dt = v_s/(μ_n g) "
        "rounded down, the comparison runs at their own step; the model's own run from the same start on the same "
        "samples):",
        "",
        engine_slip_table(points),
        "",
        "At every slip speed the engine's torques are the model's at the engine's states (last column). Its own-run "
        "means differ by the first ~0.2 s: the PD loop starts on the gait with no error, hence no torque, and its "
        "start transient (tracking error ≤ 2e-4 rad) moves the base by ~0.1 mm, which the stiffer linear zone of a "
        "smaller v_s turns into larger torque differences.",
        "",
        "**Mean |τ| of the comparison runs** (and what Table D1's inertia changes, at the comparison's v_s):",
        "",
        means_table(loco, manip),
    ]
    if quick:
        body += ["", f"**Quick mode:** {QUICK['duration']:g} s engine runs, slip points over {window:g} s, the model "
                     f"study over {periods:g} periods at {len(slip)} slip speeds."]
    table = error_rows(loco, manip, quick) + regularisation_rows(cases, v0, id_err) + [
        Row("wall time: all of this section's runs (engine and model, in parallel)",
            f"{wall:.1f} s on {ctx.workers} worker(s)", "—", "info",
            f"engine locomotion {loco.run.wall_s:.1f} s, manipulation {manip.run.wall_s:.1f} s "
            f"({loco.run.info['steps']} and {manip.run.info['steps']} steps); "
            f"model comparisons {loco.model_wall_s:.1f} s / "
            f"{manip.model_wall_s:.1f} s"),
    ]
    return SectionResult(body="\n".join(body), figures=figs, table=table)


__all__ = ["report_section"]
