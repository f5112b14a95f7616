"""nonholonomic_models, pfl_tracking, pfl_engine: the cross-checks of Guo 2015.

* ``nonholonomic_models`` — the unified model in its corrected closed form (eqs. 15–17, 22) against the
  same model built numerically (null space, Gram–Schmidt in the metric, eq. 10 from complex-step Lie
  brackets) and the constrained Euler–Lagrange equations (KKT and eq. 18's null-space form): q̈ at random
  admissible states and torques, and the PFL torques from the closed form and from the E–L affine map,
  for n = 4, 9, 15. Spot values: the head acceleration each gives at Table 1's q0, ṙ = (−0.1, 0.05) m/s,
  u_j = 0.01 j N·m.
* ``pfl_tracking`` — the PFL closed loop on the unified model, Table 1, 60 s (the scenario's parameters):
  head RMS error over t ≥ 20 s, φ periodic with the reference's 24 s, per-joint torque RMS over 36–60 s;
  and the same closed loop on the constrained Euler–Lagrange form projected on the head velocity (eq. 18)
  integrated as its own plant over the whole 60 s: the two trajectories (head, φ, torques) compared.
* ``pfl_engine`` — lab/papers/guo2015_wheeled/scenarios/snake_head_tracking.toml on the engine against the same model run: head
  RMS over t ≥ 20 s and over the late window 50–60 s (where the start transient both share has decayed),
  per-joint torque RMS within 20 % and the torque *shape* (normalised RMS error per joint over 36–60 s,
  nothing aligned), the wheels' lateral slip, and the friction the wheels use over the first 0.3 s (the
  largest lateral forces of the run) read from the engine's contacts; and, to say where the difference
  comes from, the model with the engine wheels' spin inertia (:mod:`.wheel_inertia`).
"""

from __future__ import annotations

import math

import numpy as np

from lab.checks import Figure, check
from lab.core.tolerances import tol

NS = (4, 9, 15)
N_STATES = 12  # random admissible states per n


def reported(value: float, note: str) -> Figure:
    """A figure the check reports without a bar (tolerance 0, always passes)."""
    return Figure(float(value), 0.0, True, "reported: " + note)


def _rel(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b)) / max(np.linalg.norm(b), 1e-300))


@check("nonholonomic_models")
def nonholonomic_models(overrides) -> dict[str, Figure]:
    """unified closed form vs numerical construction vs constrained E–L, n = 4, 9, 15: q̈ and PFL torques ≤ 1e-9 relative"""
    from lab.papers.guo2015_wheeled import model as gw
    from lab.papers.guo2015_wheeled.params import Guo2015Params

    rng = np.random.default_rng(2015)
    worst = {"numeric": 0.0, "el_kkt": 0.0, "el_nullspace": 0.0, "torque": 0.0}
    for n in NS:
        p = Guo2015Params(n=n, phi0=())
        for _ in range(N_STATES):
            q = np.concatenate([rng.normal(size=2), rng.uniform(-math.pi, math.pi, 1), rng.uniform(-1, 1, n - 1)])
            v = rng.normal(size=2) * 0.3 * p.sqrt_nm
            u = rng.normal(size=n - 1) * 0.05
            qd = gw.qdot_from_pseudo(p, q, v, "closed")
            ref = gw.unified_accelerations(p, q, v, u)
            worst["numeric"] = max(worst["numeric"], _rel(
                gw.numeric_accelerations(p, q, gw.pseudo_from_qdot(p, q, qd, "numeric"), u), ref))
            for method in ("kkt", "nullspace"):
                worst[f"el_{method}"] = max(worst[f"el_{method}"], _rel(gw.el_accelerations(p, q, qd, u, method), ref))
            t = float(rng.uniform(0, 60))
            worst["torque"] = max(worst["torque"], _rel(gw.pfl_torque(p, q, qd[:2], t, model="el"),
                                                        gw.pfl_torque(p, q, qd[:2], t)))
    bar = tol("guo.models_rel")
    states = f"{N_STATES} random admissible states (|φ| ≤ 1 rad) per n in {NS}"
    figs = {
        "guo.numeric_vs_closed_rel": Figure.at_most(worst["numeric"], bar, f"q̈, numerical construction; {states}"),
        "guo.el_kkt_vs_closed_rel": Figure.at_most(worst["el_kkt"], bar, f"q̈, constrained E–L (multipliers); {states}"),
        "guo.el_nullspace_vs_closed_rel": Figure.at_most(worst["el_nullspace"], bar,
                                                         f"q̈, E–L projected on the head velocity (eq. 18); {states}"),
        "guo.pfl_torque_el_vs_closed_rel": Figure.at_most(worst["torque"], bar,
                                                          "PFL torques from the E–L affine map vs the closed form"),
    }
    spot = gw.spot_values()
    ref = spot["unified_closed"]
    spread = max(_rel(a, ref) for a in spot.values())
    figs["guo.spot_spread_rel"] = Figure.at_most(spread, bar, "Table 1's q0, ṙ = (−0.1, 0.05) m/s, u_j = 0.01 j N·m: "
                                                 "largest difference of the five head accelerations")
    for name, a in spot.items():
        figs[f"spot.{name}.xdd_m_s2"] = reported(a[0], f"ẍ of the head, {name}")
        figs[f"spot.{name}.ydd_m_s2"] = reported(a[1], f"ÿ of the head, {name}")
    return figs


@check("pfl_tracking")
def pfl_tracking(overrides) -> dict[str, Figure]:
    """PFL on the unified model, Table 1, 60 s: head RMS over t ≥ 20 s ≤ 1 mm; φ periodic with the reference's period; the eq. 18 plant's trajectory equal to it"""
    from lab.papers.guo2015_wheeled import model as gw
    from lab.papers.guo2015_wheeled import study

    sc = study.load(overrides)
    p = study.model_params(sc)
    mod = study.model_run(sc, dt_out=0.05)
    per = study.periodicity(mod, p.ref_period)
    e_lin = gw.pfl_error_expected(p, mod.t)
    lin_dev = float(np.abs((mod.r_ref - mod.r) - e_lin).max())
    rms = mod.torque_rms()
    figs = {
        "pfl.head_rms_error_m": Figure.at_most(
            mod.head_rms(20.0), tol("guo.pfl_head_rms_m"),
            f"over t ≥ 20 s; from rest the exact PFL leaves ë + k_d ė + k_p e = 0 (roots −0.101, −9.9 /s); "
            f"solve_ivp DOP853 rtol 1e-10, {mod.wall_s:.1f} s"),
        "pfl.error_vs_linear_m": Figure.at_most(lin_dev, tol("guo.pfl_linear_m"),
                                                "max |(r_ref − r) − e(t)|, e the closed-form linear error (eq. 24)"),
        "pfl.phi_period_rel": Figure.at_most(
            per["full_period_rel"], tol("guo.phi_period_rel"),
            f"max |φ(t + {p.ref_period:g} s) − φ(t)| over t ∈ [30, 36] s / φ's amplitude {per['amplitude_rad']:.3f} rad"),
        "pfl.phi_half_period_mirror_rel": Figure.at_most(
            per["half_period_mirror_rel"], tol("guo.phi_period_rel"),
            f"max |φ(t + {p.ref_period / 2:g} s) + φ(t)| / amplitude: half a period mirrors the shape"),
        "pfl.phi_half_period_same_rel": reported(
            per["half_period_same_rel"], "max |φ(t + T/2) − φ(t)| / amplitude: large, so the period is T, not T/2"),
    }
    for j, v in enumerate(rms, start=1):
        figs[f"pfl.torque_rms_u{j}_Nm"] = reported(v, f"joint {j} (from the head), RMS over 36–60 s")
    # eq. 18 as its own plant: the constrained E–L equations projected on the head velocity, integrated
    # over the whole run under the same law (a second formulation and a second state, y = (q, q̇))
    e18 = study.model_run(sc, dt_out=0.05, plant="el_nullspace")
    figs["eq18_plant.head_max_m"] = Figure.at_most(
        float(np.hypot(*(mod.r - e18.r).T).max()), tol("guo.eq18_plant_head_m"),
        f"max |r_unified(t) − r_eq18(t)| over 0–{p_end(sc):g} s, each plant integrated by solve_ivp DOP853 "
        f"rtol 1e-10 (eq. 18 plant: {e18.info['nfev']} evaluations, {e18.wall_s:.1f} s)")
    figs["eq18_plant.phi_max_rad"] = Figure.at_most(float(np.abs(mod.phi - e18.phi).max()), tol("guo.eq18_plant_phi_rad"),
                                                   "max |φ_unified(t) − φ_eq18(t)|, every joint, the whole run")
    shape18 = study.torque_shape_error(e18, mod, 36.0, 60.0)
    figs["eq18_plant.torque_nrmse_max"] = Figure.at_most(
        float(shape18.max()), tol("guo.eq18_plant_torque_nrmse"),
        "largest per-joint ‖u_eq18 − u_unified‖_rms / ‖u_unified‖_rms over 36–60 s")
    figs["eq18_plant.late_head_rms_m"] = reported(e18.head_rms(50.0, 60.0),
                                                  f"eq. 18 plant's head error over 50–60 s (unified: "
                                                  f"{mod.head_rms(50.0, 60.0) * 1e3:.4f} mm)")
    return figs


def p_end(sc) -> float:
    return float(sc.sim.duration)


@check("pfl_engine")
def pfl_engine(overrides) -> dict[str, Figure]:
    """engine vs unified model under the same PFL, Table 1, 60 s: head RMS (t ≥ 20 s, and 50–60 s), per-joint torque RMS and torque shape (36–60 s), the wheels' friction use"""
    from lab.papers.guo2015_wheeled import study

    sc = study.load(overrides)
    eng, result, logs = study.engine_run(sc)
    if result.status != "ok":
        return {"status": Figure(1.0, 0.0, False, f"engine run {result.status}: {result.error}")}
    mod = study.model_run(sc, dt_out=0.01)
    whl = study.model_run(sc, dt_out=0.05, plant="wheels")
    rms_e, rms_m, rms_w = eng.torque_rms(), mod.torque_rms(), whl.torque_rms()
    rel = rms_e / rms_m - 1.0
    rel_w = rms_e / rms_w - 1.0
    bar = tol("guo.engine_torque_rel")
    m = result.metrics
    note = (f"dt = {sc.sim.dt * 1e3:g} ms, {sc.sim.solver_iterations} solver iterations ({sc.robot.contact_solver}), "
            f"wheel μ = {sc.robot.wheel_friction:g}; engine {eng.wall_s:.1f} s wall ({m['realtime_factor']:.2f}× real time)")
    figs = {
        "pfl.head_rms_error_m": Figure.at_most(eng.head_rms(20.0), tol("guo.engine_head_rms_m"),
                                               f"engine, over t ≥ 20 s (model {mod.head_rms(20.0) * 1e3:.2f} mm); {note}"),
        "torque_rms_rel_max": Figure.at_most(float(np.abs(rel).max()), bar,
                                             "largest |engine/model − 1| of the per-joint RMS over 36–60 s"),
    }
    for j in range(len(rel)):
        figs[f"torque_rms_rel_u{j + 1}"] = Figure.at_most(
            abs(float(rel[j])), bar, f"joint {j + 1} (from the head): engine {rms_e[j] * 1e3:.3f}, model "
            f"{rms_m[j] * 1e3:.3f} mN·m ({rel[j]:+.1%}); model with wheel spin inertia {rms_w[j] * 1e3:.3f} ({rel_w[j]:+.1%})")
    # the torque shape: same samples, nothing aligned (an RMS within 20 % can hide an 84 % shape error)
    shape = study.torque_shape_error(eng, mod, 36.0, 60.0)
    bar_s = tol("guo.engine_torque_shape_nrmse")
    figs["torque_shape_nrmse_max"] = Figure.at_most(
        float(shape.max()), bar_s, "largest per-joint ‖u_engine − u_model‖_rms / ‖u_model‖_rms over 36–60 s, "
                                   "on the engine's samples, nothing aligned or rescaled")
    for j, v in enumerate(shape, start=1):
        figs[f"torque_shape_nrmse_u{j}"] = Figure.at_most(float(v), bar_s, f"joint {j} (from the head), 36–60 s")
    late_e, late_m = eng.head_rms(50.0, 60.0), mod.head_rms(50.0, 60.0)
    figs["pfl.late_head_rms_error_m"] = Figure.at_most(
        late_e, tol("guo.engine_late_head_rms_m"),
        f"engine, over 50–60 s, after the shared start transient (e^(−0.101 t)) has decayed: the step's own "
        f"floor (first order in dt, lab/core/tolerances.py); the model's {late_m * 1e3:.4f} mm")
    # the friction the wheels use where the model needs the most lateral force (the first steps)
    fu = study.friction_use(sc, 0.3)
    figs["wheels.lateral_over_normal_max"] = Figure.at_most(
        float(fu.lateral_over_normal.max()) if len(fu.t) else float("inf"), fu.mu,
        f"largest |Σ lateral force| / Σ normal force of one module's wheel pair over the first 0.3 s, read from the "
        f"engine's contacts each step; the bar is the engine's μ = {fu.mu:g}: above it the pair must slip "
        f"({fu.status})")
    figs["wheels.lateral_over_weight_max"] = reported(
        float(fu.lateral_over_weight.max()) if len(fu.t) else float("nan"),
        "largest |Σ lateral force| / (m g) of one module, first 0.3 s (the model needs 6.1 m g in the first step): "
        "the normal force under a module is not its weight, the joints carry load between modules")
    figs["wheels.contact_friction_use_max"] = reported(
        float(fu.contact_use.max()) if len(fu.t) else float("nan"),
        "largest |friction| / (μ N) of one wheel contact, first 0.3 s (Bullet clamps each of a contact's two "
        "friction directions at μN, so up to √2 is possible)")
    figs["torque_rms_rel_vs_wheel_model_max"] = reported(
        float(np.abs(rel_w).max()), "largest |engine / (model + the wheels' spin inertia) − 1|: what the wheels' "
        "inertia does not explain")
    figs["wheels.lateral_slip_rms_mps"] = reported(
        m["wheels.lateral_slip_rms_mps"], f"every module, every step (over t ≥ 20 s: "
        f"{m['wheels.lateral_slip_rms_late_mps']:.2e} m/s); the paper's wheel: 0")
    figs["wheels.lateral_slip_max_mps"] = reported(m["wheels.lateral_slip_max_mps"], "largest |value|, any module, any step")
    figs["energy.contact_work_J"] = reported(
        m.get("energy.contact_work_J", float("nan")),
        f"work of the wheels' contact forces (the paper's wheels do none) against the joints' "
        f"{m['energy.input_work_J'] * 1e3:.2f} mJ; ledger residual {m['energy.balance_residual_rel']:.2%}")
    return figs


__all__ = ["nonholonomic_models", "pfl_engine", "pfl_tracking"]
