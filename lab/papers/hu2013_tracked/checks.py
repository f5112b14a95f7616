"""step_climb: engine vs screw model (Hu 2013) for the tracked robot climbing a step.

Independent mode (arm at θ̇, track at v_d = θ̇ r/i2, eq. 12: the paper's climb kinematics), l_a = 0.3 m,
the default belt (μ = 0.8, default cleats, lab.forces.cleats). Compared on the same window — the climb
phase, from the front face against the riser until the COM passes the edge — against the arm angle.
(On a low step, h ≲ 0.075 m, the model's edge contact rolls onto the step top before its COM is over
the edge; its window then goes on with the front pulley rolling on the top, lab.papers.hu2013_tracked.model,
so that both sides end at the same event.)

1. climb-phase peak motor torque, engine/model in [0.95, 1.25] at h = 0.05, 0.10, 0.15 m and
   θ̇ = 0.5, 0.3 rad/s (the engine loses energy at the riser and the ground pulley, so it may only be
   higher; the model is quasi-static, rigid and lossless), and the time from the flip's start to the
   COM over the edge within 15 %;
2. where the motor's work goes (lab.papers.hu2013_tracked.climb_ledger): the engine's ledger split
   W = ΔPE + ΔKE + D over the window must close within 2 %; its ΔPE against the model's (the path: the
   engine pivots on the edge while its pulley drags, a lower path) within the measured band; D, the
   sliding cost the lossless model has not, is reported. The motor's total work is compared two-sided
   only against a no-slip variant of the engine run (``arena.friction`` = NOSLIP_FRICTION: the belt
   holds on the step, the model's assumption), within a measured tolerance, from h = NOSLIP_MIN_H (below
   it the flush start jams the independent loops: reported);
3. the largest height climbed (every lower rung climbed too) ≥ 0.17 m, the paper's experiment; the
   note says which assumption of the paper's 0.195 m limit the engine escapes when it climbs higher;
4. results, not pass/fail: the smooth belt's (``robot.cleats = false``) largest height;
5. the single-motor differential mode (§1.1, Fig 5b) against the stall law
   (lab.papers.hu2013_tracked.model.stall): its belt slides at the closed form's pull at a riser (ground
   and riser friction set apart, ``arena.riser_friction``) within 5 %, and on a frictionless riser it does
   not flip below the threshold μ_g = κ and flips above it (within the measured band); whether a forced
   flip then climbs or jams is reported;
6. the model side: its climb-phase peak equals the closed form (at arm angle 0 the step height drops
   out of eq. 12, every climb starts from the same pose)
   τ_peak = g (m_w + (1 − ρ) m_a)(l_z + r/i2) L₀/(L₀ + l_z)/(i0 i1),  L₀ = √(l_a² − (z_p − r_d)²),
   ρ = d_a/l_a (the arm's COM along it), to 0.2 % (sampling of the path) at every h.
"""

from __future__ import annotations

import math

import numpy as np

from lab.core import scenario as scn
from lab.checks import Figure, check
from lab.core.runner import run_scenario
from lab.core.tolerances import tol
from lab.papers.hu2013_tracked.climb_ledger import from_metrics, model_d_pe
from lab.papers.hu2013_tracked.model import ClimbParams, climb, height_limit, max_height

HEIGHTS = (0.05, 0.10, 0.15)
ARM_SPEEDS = (0.5, 0.3)
LADDER = (0.17, 0.195, 0.21, 0.22)
SMOOTH_LADDER = (0.05, 0.10, 0.15, 0.17)
NOSLIP_FRICTION = 5.0  # arena.friction of the no-slip variant: μ = 4 with the belt's 0.8
NOSLIP_MIN_H = 0.075  # m: below this the no-slip work is reported, not judged. On a 5-cm step the edge meets the
# front pulley's top and, with μ = 4, holds the belt at the flush start against the independent loops' commanded
# track speed: both outputs saturate (peak 34–35 mN·m against the model's 8.8) and the work moves 8–13 % per
# halving of the step (6.90, 7.47, 8.43 mN·m·rad at 2, 1, 0.5 ms, the model 4.95). It did not converge before
# issue 34's step change either (19, 27, 29 % at 1, 0.5, 0.25 ms), and with the gears solved to convergence
# (300 iterations, 0.5 ms) that robot jammed and did not climb; at 0.10 and 0.15 m the work converges (1.8 %
# and 1 % from 2 to 0.5 ms)
DIFF_H = 0.10  # the differential's riser
DIFF_SLIDING = ((0.8, 0.8), (1.6, 0.3), (0.5, 0.0))  # (μ_g, μ_w): the belt slides before the rear lifts
DIFF_BASE = ["controller.mode=differential", "robot.track_friction=1", "sim.duration=20"]
SETTINGS = {"controller.mode": "independent", "controller.arm_speed": 0.5, "robot.arm_length": 0.3,
            "trial.stop_when_decided": True, "sim.duration": 18.0}


def engine_scenario(h: float, overrides=None):
    data = scn.apply_overrides(scn.read_toml(scn.resolve_path("tracked_step_climb")), dict(SETTINGS))
    data = scn.apply_overrides(data, overrides or [])
    data = scn.apply_overrides(data, {"arena.step_height": float(h)})
    return scn.from_dict(data, where="step_climb")


def engine_run(h: float, overrides=None):
    sc = engine_scenario(h, overrides)
    return sc, run_scenario(sc)


def model_run(sc):
    return climb(ClimbParams.from_spec(sc.robot), sc.arena.step_height, sc.controller.arm_speed)


def model_window(mod) -> tuple[float, float]:
    """(∫ τ_m dθ over the model's climb window — against the edge and, for a low step, on top — up to the
    COM over the edge; time from its flip start to then)."""
    c = mod.phase >= 1
    th = mod.path.theta[: mod.n][c]
    tm = mod.motor_torque[c]
    work = float(np.sum(0.5 * (tm[1:] + tm[:-1]) * np.diff(th))) if len(th) > 1 else float("nan")
    return work, float(mod.time_flip + mod.time_climb)


def top_time(mod) -> float:
    """Time the model's climb spends on top (its front pulley rolling on the step top, low steps)."""
    th = mod.path.theta[: mod.n]
    top = mod.phase == 2
    return float((th[-1] - th[top][0]) / mod.arm_speed) if top.any() else 0.0


def peak_closed_form(p:  ClimbParams, g: float = 9.81) -> float:
    """The climb-phase peak motor torque in closed form (arm angle 0 of the climb; see the module doc)."""
    rho = p.arm_com / p.arm_length
    L0 = math.sqrt(p.arm_length**2 - (p.z_pivot0 - p.guide_radius) ** 2)
    return g * (p.m_body + (1 - rho) * p.m_arm) * (p.l_z + p.pulley_radius / p.i2) * L0 / (L0 + p.l_z) / (p.i0 * p.i1)


def ladder(heights, overrides, runs: list | None = None) -> tuple[float, list[str]]:
    """The largest height of ``heights`` climbed with every lower one; the outcomes as text (and the
    runs' metrics appended to ``runs``)."""
    best, notes = 0.0, []
    for h in heights:
        _, r = engine_run(h, overrides)
        if runs is not None:
            runs.append(r.metrics)
        ok = bool(r.metrics["climb.success"])
        notes.append(f"{h:g}: {'yes' if ok else 'no'}")
        if not ok:
            break
        best = h
    return best, notes


@check("step_climb")
def step_climb(overrides) -> dict[str, Figure]:
    """engine vs screw model: climb-window torque, time and ledger; largest height ≥ 0.17 m; the single motor's stall law"""
    figs: dict[str, Figure] = {}
    ov = list(overrides or [])
    lo, hi = tol("climb.peak_ratio_lo"), tol("climb.peak_ratio_hi")
    pe_lo, pe_hi = tol("climb.pe_ratio_lo"), tol("climb.pe_ratio_hi")
    for w in ARM_SPEEDS:
        for h in HEIGHTS:
            sc, r = engine_run(h, [*ov, f"controller.arm_speed={w}"])
            mod = model_run(sc)
            m = r.metrics
            ok = bool(m["climb.success"])
            ratio = m["climb.peak_climb_torque_Nm"] / mod.peak_climb_torque
            key = f"w{w:.1f}.h{h:.2f}"
            figs[f"{key}.peak_torque_ratio"] = Figure(
                float(ratio), hi, bool(ok and lo <= ratio <= hi),
                f"engine {m['climb.peak_climb_torque_Nm'] * 1e3:.2f} vs model {mod.peak_climb_torque * 1e3:.2f} mN·m "
                f"(must lie in [{lo}, {hi}]); engine climbed: {ok}")
            W_mod, T_mod = model_window(mod)
            rel_t = abs(m["climb.flip_to_over_s"] - T_mod) / T_mod
            figs[f"{key}.time_rel"] = Figure.at_most(
                rel_t if np.isfinite(rel_t) else math.inf, tol("climb.time_rel"),
                f"flip start → COM over the edge: engine {m['climb.flip_to_over_s']:.2f} vs model {T_mod:.2f} s"
                + (" (the model's front pulley lands on the step top first and rolls on it, "
                   f"{top_time(mod):.2f} s)" if (mod.phase == 2).any() else ""))
            led = from_metrics(m)
            if led is None:
                figs[f"{key}.ledger_rel"] = Figure(math.inf, tol("climb.ledger_rel"), False, "no climb window")
                continue
            figs[f"{key}.ledger_rel"] = Figure.at_most(
                abs(led.residual_rel), tol("climb.ledger_rel"),
                f"W = ΔPE + ΔKE + D over the window: {led.work:.2f} J = {led.d_pe:.2f} + {led.d_ke:.2f} + "
                f"{led.dissipated:.2f} J, residual {led.residual_rel:+.2%}")
            pe_mod = model_d_pe(mod)
            pe_ratio = led.d_pe / pe_mod
            figs[f"{key}.pe_ratio"] = Figure(
                float(pe_ratio), pe_hi, bool(pe_lo <= pe_ratio <= pe_hi),
                f"the path: ΔPE engine {led.d_pe:.2f} vs model {pe_mod:.2f} J (must lie in [{pe_lo}, {pe_hi}]); "
                "the engine pivots on the edge while its bottom pulley drags, below the model's no-slip path")
            W_mod_J = W_mod * sc.controller.i0 * sc.controller.i1
            figs[f"{key}.sliding_cost_J"] = Figure(
                float(led.dissipated), 0.0, True,
                f"result, not a criterion: D = {led.dissipated:.2f} J of W = {led.work:.2f} J "
                f"({led.dissipated / led.work:.0%}) dissipated by the contacts and cleats; the belt slid "
                f"{m['climb.edge_slip_m'] * 100:.1f} cm over the edge. Total work engine/model "
                f"{led.work / W_mod_J:.2f} (the lossless model has no D; compared two-sided only without slip)")
    # the motor's work, two-sided, where the model's no-slip assumption holds: friction high on the step
    for h in HEIGHTS:
        sc, r = engine_run(h, [*ov, "controller.arm_speed=0.5", f"arena.friction={NOSLIP_FRICTION}"])
        mod = model_run(sc)
        W_mod = model_window(mod)[0]
        m = r.metrics
        rel_w = abs(m["climb.climb_work_J"] - W_mod) / abs(W_mod)
        led = from_metrics(m)
        note = (f"μ = {NOSLIP_FRICTION * sc.robot.track_friction:g} on the step: the motor's work over the climb "
                f"window, (∫τ_arm dθ + ∫τ_p dψ)/(i0 i1), engine {m['climb.climb_work_J'] * 1e3:.2f} vs model "
                f"{W_mod * 1e3:.2f} mN·m·rad; belt slip over the edge {m['climb.edge_slip_m'] * 100:.1f} cm"
                + (f", D = {led.dissipated:.2f} J of W = {led.work:.2f} J" if led is not None else ""))
        if h < NOSLIP_MIN_H:  # the flush start's fight: a result, not a criterion (NOSLIP_MIN_H says why)
            figs[f"noslip.h{h:.2f}.work_rel"] = Figure(
                float(rel_w), 0.0, True, f"result, not a criterion (not converged in the step: see NOSLIP_MIN_H): {note}; "
                f"peak motor torque {m['climb.peak_climb_torque_Nm'] * 1e3:.1f} mN·m")
            continue
        figs[f"noslip.h{h:.2f}.work_rel"] = Figure.at_most(
            rel_w if np.isfinite(rel_w) else math.inf, tol("climb.noslip_work_rel"), note)
    # the largest height, default cleats
    h_max, notes = ladder(LADDER, ov)
    h_geo = height_limit( ClimbParams())
    note = (f"ladder {', '.join(notes)} (μ = 0.8, default cleats); paper: 0.17 m climbed, limit min(l, l − r) = "
            f"{h_geo:.3f} m")
    if h_max > h_geo:
        note += (f". The engine climbs above l − r: that limit assumes the flip pivots on the step's corner "
                 f"with the edge on the straight front face; in the engine (and in the lab's screw model, "
                 f"whose curved-prismatic belt joint follows the contact round the top pulley: its own "
                 f"geometric limit is {max_height( ClimbParams(), 0.5):.3f} m) the edge contact passes onto "
                 f"the top pulley's arc, so the body still rolls over the corner")
    figs["max_height_m"] = Figure(float(h_max), tol("climb.max_height_lo"), bool(h_max >= tol("climb.max_height_lo")),
                                  note)
    # results, not pass/fail: the smooth belt
    h_smooth, notes = ladder(SMOOTH_LADDER, [*ov, "robot.cleats=false"])
    figs["smooth_belt_max_height_m"] = Figure(float(h_smooth), 0.0, True,
                                              f"result, not a criterion: ladder {', '.join(notes)}")
    figs.update(differential_figures(ov))
    # the model's closed form
    worst = 0.0
    for la in (0.25, 0.30, 0.35, 0.40):
        p = ClimbParams(arm_length=la)
        cf = peak_closed_form(p)
        for h in HEIGHTS:
            worst = max(worst, abs(climb(p, h, 0.5).peak_climb_torque / cf - 1))
    figs["model.peak_closed_form_rel"] = Figure.at_most(
        worst, tol("climb.closed_form_rel"),
        "largest |model/closed form − 1| over l_a 0.25–0.40 m, h 0.05–0.15 m (flat in h: arm angle 0 is the same "
        "pose for every h; from h ≈ 0.19 m with l_a ≥ 0.3 m the late climb overtakes the start, +0.5–1.2 %)")
    return figs


def differential_run(mu_g: float, mu_w: float, overrides=()) -> dict:
    """The metrics of one single-motor run at the DIFF_H riser, ground μ_g, riser μ_w (belt μ 1)."""
    _, r = engine_run(DIFF_H, [*overrides, *DIFF_BASE, f"arena.friction={mu_g}", f"arena.riser_friction={mu_w}"])
    return r.metrics


def differential_figures(ov) -> dict[str, Figure]:
    """Item 5 of the module doc: the stall law's sliding pull and flip threshold, engine against closed form."""
    from lab.papers.hu2013_tracked.model.stall import stall_law

    figs: dict[str, Figure] = {}
    p = ClimbParams.from_spec(engine_scenario(DIFF_H, ov).robot)
    for mg, mw in DIFF_SLIDING:
        m = differential_run(mg, mw, ov)
        F, F_mod = m["diff.stall_force_N"], m["diff.stall_force_model_N"]
        rel = abs(F / F_mod - 1) if np.isfinite(F) else math.inf
        figs[f"diff.g{mg:g}.w{mw:g}.stall_force_rel"] = Figure.at_most(
            rel, tol("diff.stall_rel"),
            f"μ_g = {mg:g}, μ_w = {mw:g}: the belt slides at {F:.1f} N, the stall law's μ_g(1 + μ_w)/(1 + μ_g μ_w)"
            f"(W − λ) = {F_mod:.1f} N; the flip needs {m['diff.flip_required_N']:.1f} N: flipped {m['diff.flipped']}")
    kappa = stall_law(p, 1.0, 0.0).kappa
    band = tol("diff.flip_band")
    below, above = differential_run(round(kappa * (1 - band), 3), 0.0, ov), differential_run(
        round(kappa * (1 + band), 3), 0.0, ov)
    ok = (not below["diff.flipped"]) and bool(above["diff.flipped"])
    figs["diff.flip_threshold_kappa"] = Figure(
        float(kappa), band, ok,
        f"frictionless riser: the rear lifts once μ_g (W − λ_f) ≥ F_f = {stall_law(p).flip_force:.1f} N, from "
        f"μ_g = κ = {kappa:.2f}; engine at μ_g = κ(1 ∓ {band:g}): flipped {below['diff.flipped']} / "
        f"{above['diff.flipped']} (must be False / True); above it the flip then "
        + ("jams at the flush pose (no COM progress: nothing presses the front face against the edge once the "
           "front pulley leaves the ground)" if above["diff.jammed"] else
           ("climbs" if above["climb.success"] else "neither jams nor climbs")))
    return figs
