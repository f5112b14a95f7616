"""The tolerances of zhang2018_eel's checks and tests, each with its reason (merged into
:data:`lab.core.tolerances.TOL`; declared in the paper's manifest)."""

from __future__ import annotations

from lab.core.tolerances import Tol

TOL = {
    # eel_models (Zhang 2018): non-inertial vs exact model, same physics on two code paths at rtol = atol = 1e-6.
    "eel.models_max_rel": Tol(
        1e-4, "issue bar; the two RHS agree to 1e-13 on random states, so what remains is the integrator's "
              "tolerance (measured ~1e-10 on the CM path, the 1e-6 solution is within 1e-9 of a 1e-10 one)"),
    # eel_engine: PyBullet run vs the exact model with the same parameters.
    # Against the exact model under the same sample-and-hold of the controller (since 2026-11-27); bars set at
    # 2 ms (5× the errors there) and kept at the scenario's 5 ms, re-measured there over the 50-s schedule.
    "eel.heading_rms_deg": Tol(0.25, "1.6× the measured 0.16° at the scenario's 5 ms; the engine's semi-implicit "
                                     "Euler and the lagged tangential added-mass correction are first order in dt: "
                                     "0.062°, 0.16°, 0.26° at 2, 5, 10 ms (so ×4 the step fails)"),
    "eel.com_err_rel": Tol(0.0175, "2× the measured 0.88 % of the distance travelled at 5 ms; first order in dt: "
                                   "0.35 %, 0.88 %, 1.73 % at 2, 5, 10 ms"),
    "eel.torque_nrmse": Tol(0.10, "issue bar; joint 1 is the tail joint, the smallest torque of the chain; "
                                  "measured 0.84 %, 2.1 %, 6.2 % at 2, 5, 10 ms over 50 s (0.94 %, 2.7 %, 16 % over "
                                  "the first 4 s). Against the continuous model the start-up of eq. 38's fast pole "
                                  "under the engine's hold adds 0.09 (50 s) and 0.25 (4 s) at 5 ms"),
    "eel.velocity_nrmse": Tol(0.02, "1.9× the measured 0.97 % (x) / 1.08 % (y) at 5 ms over 50 s (0.39 / 0.43 % at "
                                    "2 ms, 1.9 / 2.1 % at 10 ms); CM velocities by central differences of 20 ms "
                                    "samples. The first 4 s give 1.02 / 1.88 %: the error is a steady ~0.7 mm/s but "
                                    "v_y is small before the first turn"),
    "eel.tracking_rad": Tol(3e-3, "1.5× the measured 2.03e-3 rad at 5 ms: the engine's joint angles' departure from "
                                  "eq. 38's error dynamics at t > 3 s, first order in dt (0.40, 0.81, 2.03, "
                                  "4.04e-3 at 1, 2, 5, 10 ms); eq. 38's own remainder there is 1.11e-3"),
    # hydrodynamics: one link pushed in still water vs the closed form of m v̇ = −c v − c₂|v|v.
    "hydro.decay_rel": Tol(
        0.01, "semi-implicit Euler's first-order error h·c/m ≈ 0.2 % (normal) at 1 ms, plus the lagged "
              "tangential correction's O(h) lag; 1 % of the initial speed"),
    # hydro_decay (Zhang 2018): one eel link in still water vs the closed forms of its decay, at the scenario's
    # step (bars set at 2 ms, 5× the errors there; kept at 5 ms, re-measured there).
    "hydro.push_decay_rel": Tol(0.019, "2× the measured 0.96 % (across, M = m + u_n; along 0.25 %) of the launch speed "
                                       "at 5 ms (0.38 % at 2 ms, 1.96 % at 10 ms): semi-implicit Euler's first-order "
                                       "error h·c/M plus the lagged tangential correction"),
    "hydro.spin_decay_rel": Tol(0.0019, "2× the measured 0.093 % of the launch spin (J + λ1, λ2, λ3) at 5 ms (0.037 % "
                                        "at 2 ms): the integrator's first-order error h·λ2/(J + λ1)"),
}
