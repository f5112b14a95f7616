"""The tolerances of hu2013_tracked's checks and tests, each with its reason (merged into
:data:`lab.core.tolerances.TOL`; declared in the paper's manifest)."""

from __future__ import annotations

from lab.core.tolerances import Tol

TOL = {
    # chain_climb (beyond Hu 2013): two modules over 0.25 m, the engine against the limit analysis's plan.
    "chain.time_rel": Tol(0.035, "climb time, engine vs plan: measured 0.008 % (two modules, 0.5 ms, the tail standing at "
                                 "the riser's foot; 0.02 % at 0.25 ms; 0.11 % before) and 0.69 % (three, 1 ms: the stall "
                                 "detections and the transfers) × 5"),
    "chain.peak_ratio_lo": Tol(0.5, "connector peak (0.5 s average), engine / the plan's fed-forward statics: measured "
                                    "1.18 at 0.5 ms and 1.22 at 0.25 ms (1.45 / 1.46 before the tail's phase (a) was "
                                    "fixed, 1.86 at the unconverged 1 ms); half the plan's is less than its statics need "
                                    "(a connector geared 10× too low reads 0.2)"),
    "chain.peak_ratio_hi": Tol(1.35, "…measured 1.18 (7.98 N·m against the plan's 6.77) at 0.5 ms, 1.22 (8.29) at 0.25 ms: "
                                     "the engine's contacts share the load otherwise than the LP's most-reserve "
                                     "distribution; 1 + 1.5 × the larger measured excess, 1.34, rounded up (was 1.7 from "
                                     "1.45 while the top module pulled the tail off the ground, 2.5 from 1.86 at 1 ms); "
                                     "the fault belt_margin_uncompensated reads 1.87 (its only catch; 1.80 against 1.7 before)"),
    "chain.pe_rel": Tol(0.088, "ΔPE over the climb window, engine vs every link lifted h: measured 1.76 % at 1 ms (the "
                               "tail's arm trails lower at the end, the bars' and arms' poses) × 5; 1.97 % at the "
                               "converged 0.5 ms (2.03 % at 0.25 ms; 1.99 / 2.06 % before the tail's phase (a) was "
                               "fixed), within it (× 4.5), so kept"),
    # step_climb (Hu 2013): the engine loses energy at the riser and at the ground pulley, so its climb-phase
    # peak may only be higher than the lossless quasi-static model's.
    "climb.peak_ratio_lo": Tol(0.95, "engine/model peak ≥ 0.95 (the engine may only be higher; 5 % for the "
                                     "0.1 s average of the servoed joint torques)"),
    "climb.peak_ratio_hi": Tol(1.25, "engine/model peak ≤ 1.25 (losses at the riser and the ground pulley): measured "
                                     "1.00–1.18 over h 0.05–0.15 m, θ̇ 0.3/0.5 rad/s, growing with h"),
    "climb.time_rel": Tol(0.15, "flip start → COM over the edge, engine vs model: measured 7.6–11.5 % (the engine "
                                "always slower: its belt slips 4–6 cm over the edge) × 1.3"),
    # step_climb, where the motor's work goes over the climb window (lab.papers.hu2013_tracked.climb_ledger)
    "climb.ledger_rel": Tol(0.02, "the bar: W = ΔPE + ΔKE + D closes within 2 % (measured |residual| ≤ 1.1 % "
                                  "at h 0.05–0.15 m, θ̇ 0.3/0.5 rad/s: the gear constraints' and slab resets' own work)"),
    "climb.pe_ratio_lo": Tol(0.65, "the path, engine ΔPE / model ΔPE: measured 0.725–0.88 (the engine pivots on the "
                                    "edge while its bottom pulley drags, below the no-slip path); 1 − (1 − min) × 1.25"),
    "climb.pe_ratio_hi": Tol(1.05, "no path climbs above the no-slip one (the belt wrapped on the edge); 5 % for the "
                                   "window's ends, sampled every 20 ms"),
    "climb.noslip_work_rel": Tol(0.29, "the motor's work over the climb window, engine with μ = 4 on the step vs the "
                                       "lossless model: measured 17.7, 17.6 % at h = 0.10, 0.15 m at 2 ms (15.7, 18.8 % "
                                       "at 1 ms; 0.05 m is reported: checks.NOSLIP_MIN_H) × 1.5; "
                                       "loose because μ = 4 does not stop the slip at the flush start (3–7 cm over the "
                                       "edge: no friction holds a belt pulled up an edge it lies flush against)"),
    # step_climb, the single motor against the stall law (lab.papers.hu2013_tracked.model.stall)
    "diff.stall_rel": Tol(0.05, "measured ≤ 2.5 % over the sliding grid (μ_g 0.5–2.2, μ_w 0–0.8, h 0.05–0.15 m, body on "
                                "its base) × 2: the drive's torque over the contacts' tangential sum (belt and pulleys "
                                "in the stick-slip chatter) and the guide wheel's mean drag, 0 in the free wheel's law"),
    "diff.flip_band": Tol(0.05, "frictionless riser: the engine's threshold lies in (2.68, 2.70] at 2 ms, (2.6, 2.7] "
                                "at 1 ms, against κ = 2.64 (−1.5 … +2.3 %) × 2. With the drive link's old 2e-5 kg·m² (before "
                                "issue 34) it lay in (2.4, 2.6]: the impact's torque overshoot lifted the rear early"),
    "climb.closed_form_rel": Tol(0.002, "the model's climb-phase peak vs its closed form: the path is sampled "
                                        "(measured ≤ 0.12 %)"),
    # step_climb: the engine's largest climbable height must reach the paper's experiment.
    "climb.max_height_lo": Tol(0.17, "Hu 2013 §6: 17 cm climbed in the experiment (0.3 m arm, 0.3 rad/s)"),
    # tracked robot: energy ledger with gravity and the engine's contact forces metered (lab.core.recorder).
    "tracked.energy_residual_rel": Tol(
        0.03, "the contact solver's iterative impulses (the belt's gears, the slabs' contacts) do work the ledger "
              "meters only through the reported contact forces; measured 0.07 % of the energy turnover driving on "
              "flat ground, median 0.4 % and at most 1.7 % over the sweep's climbs"),
    # belt_speed: the tracked robot's body speed vs the commanded belt speed (3 cm/s, 3 s at 1 ms).
    "tracked.belt_speed_rel": Tol(5e-4, "5× the measured 9.2e-5 up 20° (4e-6 on flat ground): the slabs' contact "
                                        "solver; an uncompensated pulley margin makes +3.8 %"),
}
