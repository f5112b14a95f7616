"""The tolerances of wang2011_unified's checks and tests, each with its reason (merged into
:data:`lab.core.tolerances.TOL`; declared in the paper's manifest)."""

from __future__ import annotations

from lab.core.tolerances import Tol

TOL = {
    # unified_manipulation / unified_locomotion (Wang 2011 unified), three gait periods (18.85 s), dt = 1 ms (0.2 ms before
    # issue 34).
    # The paper's comparison: the unified model vs a separately written Newton–Euler model at the same states.
    "unified.vs_newton_euler_rel": Tol(
        1e-11, "two exact formulations of the same mechanics: rounding only (measured ≤ 2.1e-12 over the "
               "locomotion run, ≤ 8e-16 welded); the paper prints 5e-10–9e-10 welded"),
    # ... and the Newton–Euler equations integrated as their own plant (locomotion) against the unified run.
    "unified.ne_plant_track_m": Tol(
        1e-7, "both plants by LSODA at rtol 1e-8: the integrators' own error (measured 1.7e-8 m over three periods)"),
    "unified.ne_plant_torque_nrmse": Tol(
        1e-6, "both plants by LSODA at rtol 1e-8 (measured 1.7e-7 over three periods)"),
    # Engine vs model as separately simulated runs: the engine's applied torques vs the model's own run.
    # Manipulation runs at dt = 1 ms since session 9 (issue 34, item 6: the implicit tanh law, implicit_pd kp = 1e4,
    # kd = 44, started on the gait): the three bars re-derived there (at 0.2 ms with the explicit law and servo,
    # kd = 0.5, they were 0.12, 0.5 and 0.003 over 4.4–6.0 %, 13–24 % and ≤ 0.06 %, the heavy mode's ringing).
    "unified.runs_manip_mean_rel": Tol(
        0.03, "measured 1.11 / 1.14 / 1.24 / 1.33 % at 1 ms (kp = 1e4, kd = 44: the heavy mode at ζ 0.7, no "
              "ringing); 2.3× margin"),
    "unified.runs_manip_nrmse": Tol(
        0.25, "measured 5.9 / 6.7 / 8.4 / 10.5 % at 1 ms; 2.4× margin"),
    "unified.runs_manip_fig5_mean_rel": Tol(
        1.5e-4, "the same over the paper's Fig 5 window (13–14 s): measured 7.7e-6 / 2.3e-5 / 2.5e-5 / 8.6e-7 per "
                "joint at 1 ms; 6× margin"),
    # Locomotion runs at dt = 1 ms since issue 34 (implicit tanh law at the velocity level, implicit_pd servo
    # kp = 1e4, kd = 44); manipulation too since session 9 (above).
    "unified.runs_loco_mean_rel": Tol(
        0.04, "measured 2.03 / 2.08 / 2.02 / 1.92 % at 1 ms (1.04 % max at 0.5 ms: the step's first-order error; "
              "1.7–1.9 % at 0.2 ms with the explicit law and servo of before; the paper's unified-vs-Newton–Euler "
              "column: 0.98–6.09 %); 1.9× margin"),
    "unified.runs_loco_nrmse": Tol(
        0.2, "measured 7.2 / 6.7 / 5.6 / 5.5 % at 1 ms (6.8–9.6 % at 0.2 ms before), most of it the start "
             "transient; 2.8× margin"),
    # The sanity rows: the model at the engine's own states and step accelerations vs the applied torques.
    "unified.at_state_identity_manip_rel": Tol(
        1e-6, "an identity, not a comparison: the applied torque is exactly the inverse dynamics at the state it was "
              "computed from and the step's acceleration, so only rounding remains (measured ≤ 1.5e-13 at 0.2 ms, 2.5e-14 at 1 ms)"),
    "unified.weld_drift_m": Tol(0.0, "a fixed base (welded_tail) cannot move: any drift means the weld is soft"),
    "unified.at_state_identity_loco_rel": Tol(
        2e-3, "an identity (with the friction the engine applied), exact along the engine's own trajectory but "
              "for the ground contacts' out-of-plane jitter, which grows with the step: measured ≤ 9.0e-4 at "
              "dt = 1 ms, 3.0e-5 at 0.5 ms, 5.8e-6 at 0.25 ms over three periods (4.0e-6 at 0.2 ms with the "
              "explicit law); 2.2× margin"),
    "unified.friction_law_rel": Tol(
        1e-2, "the engine's implicit tanh law (1 ms) against the law at the step's end velocities: the engine "
              "predicts the end slip without the velocity-product terms, measured max 7.1e-3 of μ_n m g over "
              "three periods (deterministic: same scenario, same seed); 1.4× margin (inertias from the collision "
              "shapes give 1.15e-2)"),
    "unified.tail_distance_rel": Tol(
        5e-4, "tail end point's displacement after three periods, engine vs model runs: measured 1.40e-4 at "
              "1 ms, 6.4e-5 at 0.5 ms, 3.1e-5 at 0.25 ms (the engine step's first-order error; 2.0e-5 at 0.2 ms "
              "with the explicit law); 3.6× margin"),
    "unified.short_tail_distance_rel": Tol(
        2e-3, "tests: the same after 2 s of crawling, where the start transient weighs more: measured 6.9e-4 "
              "against the Newton–Euler plant at 1 ms (1.6e-4 at 0.2 ms with the explicit law: the step's "
              "first-order error); 2.9× margin"),
    "unified.short_torque_rms_rel": Tol(
        0.05, "tests: per-joint torque RMS over 1–2 s, engine vs the Newton–Euler plant: measured ≤ 0.75 % at 1 ms "
              "(1.2 % at 0.2 ms before); 6.7× margin"),
    "unified.short_torque_nrmse": Tol(
        0.15, "tests: per-joint normalised RMS error over 1–2 s, the same runs: measured ≤ 2.7 % at 1 ms (3.7 % at "
              "0.2 ms before); 5.5× margin"),
}
