"""Time-step convergence of every shipped scenario: its headline metrics at dt, dt/2, 2dt and 4dt.

For each scenario in scenarios/*.toml the run is repeated at the four steps (same seed, same duration)
and each headline metric is compared with the dt/2 run, the finest here: the largest step whose
metrics all stay within REL of it (or within ABS of a metric that is near zero) is the step the
evidence allows. A run that diverges, or whose energy ledger leaves ENERGY_REL, fails its step.

Headline metrics: those every run reports (lab.core.metrics.run_metrics) that describe the motion and the
energy: the COM's mean speed, the head's path, the joints' amplitude and torque RMS, the input work,
the mean kinetic energy; the flagship's gait analyses add its turning radius and rhythm period.
Durations are short (the regression suite's) except the flagship's, whose gait metrics need the full
30 s start-up.

This is a measurement, not a test: no scenario's dt is changed by it. Printed as a Markdown table
(the one in docs/benchmarks.md) with the machine's load beside it.

Usage: python benchmarks/dt_convergence.py [--only NAME ...] [--factors 0.5 1 2 4]
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

from lab.core import scenario as scn
from lab.core.errors import Diverged, LabError
from lab.core.runner import run_scenario

REL = 0.02  # reporting criterion: 2 % of the dt/2 run's value (what a figure or a paper comparison resolves)
ABS = {"energy.input_work_J": 1e-4, "energy.kinetic_mean_J": 1e-5, "com.speed_mean_mps": 1e-4,
       "head.path_length_m": 1e-3, "joints.amplitude_mean_rad": 1e-3, "joints.torque_rms_Nm": 1e-4,
       "turn.radius_fit_m": 1e-3, "rhythm.period_s": 1e-2}  # floors for metrics that are near zero
ENERGY_REL = 0.001  # the ledger closes to 0.1 % (the flagship goal), or no worse than at the shipped dt
HEADLINE = ["com.speed_mean_mps", "head.path_length_m", "joints.amplitude_mean_rad", "joints.torque_rms_Nm",
            "energy.input_work_J", "energy.kinetic_mean_J"]
FLAGSHIP_EXTRA = ["turn.radius_fit_m", "rhythm.period_s"]
DURATION = {"snake_passive_creeping": None,  # None: the scenario's own (30 s, the gait start-up)
            "snake_unified_locomotion": 1.0, "snake_unified_manipulation": 1.0, "tracked_stairs": 1.0}
DEFAULT_DURATION = 2.0
ROOT = Path(__file__).resolve().parents[1]


def run_at(name: str, dt: float, duration: float | None) -> tuple[dict | str | None, float]:
    """(metrics, CPU s); metrics None if the run diverged, "refused" if the scenario's validation refuses
    the step (the explicit friction's stability bound dt < 2·slip_tol/(μ g))."""
    over = [f"sim.dt={dt!r}"] + ([] if duration is None else [f"sim.duration={duration!r}"])
    c0 = time.process_time()
    try:
        sc = scn.load(name, over)
    except LabError:
        return "refused", 0.0
    try:
        res = run_scenario(sc)
    except Diverged:
        return None, time.process_time() - c0
    m = res.metrics
    return (None if m.get("status") != "ok" else m), time.process_time() - c0


def within(metric: str, a: float, ref: float) -> bool:
    if not (math.isfinite(a) and math.isfinite(ref)):
        return math.isnan(a) and math.isnan(ref)
    return abs(a - ref) <= max(REL * abs(ref), ABS.get(metric, 0.0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--factors", nargs="*", type=float, default=[0.5, 1.0, 2.0, 4.0])
    args = ap.parse_args()
    names = sorted(p.stem for p in scn.list_scenarios())
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    print(f"load average at start: {os.getloadavg()[0]:.1f}; criterion: |Δ| ≤ {REL:.0%} of the dt/2 run "
          f"(or the metric's floor), energy residual ≤ max({ENERGY_REL:.1%}, the shipped dt's)")
    print("| scenario | duration s | metric | " + " | ".join(f"{f:g}·dt" for f in args.factors) + " |")
    print("|---|---|---|" + "---|" * len(args.factors))
    for name in names:
        sc = scn.load(name, [])
        dt0 = sc.sim.dt
        duration = DURATION.get(name, DEFAULT_DURATION)
        dur = sc.sim.duration if duration is None else min(duration, sc.sim.duration)
        runs = {f: run_at(name, dt0 * f, duration) for f in args.factors}
        refused = {f for f, (m, _) in runs.items() if m == "refused"}
        runs = {f: ((None, cpu) if m == "refused" else (m, cpu)) for f, (m, cpu) in runs.items()}
        ref = runs[min(args.factors)][0]
        metrics = HEADLINE + (FLAGSHIP_EXTRA if name == "snake_passive_creeping" else [])
        shipped = runs.get(1.0, (None, 0))[0]
        e_bar = max(ENERGY_REL, abs(shipped["energy.balance_residual_rel"]) if shipped else 0.0)
        ok = {f: m is not None and abs(m["energy.balance_residual_rel"]) <= e_bar for f, (m, _) in runs.items()}
        for key in metrics:
            cells = []
            for f in args.factors:
                m = runs[f][0]
                if m is None:
                    cells.append("refused (bound)" if f in refused else "diverged")
                    continue
                v = float(m.get(key, float("nan")))
                good = ref is not None and within(key, v, float(ref.get(key, float("nan"))))
                ok[f] = ok[f] and good
                cells.append(f"{v:.4g}" + ("" if good else " ✗"))
            print(f"| {name} | {dur:g} | {key} | " + " | ".join(cells) + " |", flush=True)
        cells = [(("refused (bound)" if f in refused else "diverged") if m is None
                  else f"{m['energy.balance_residual_rel']:.2e}"
                  + ("" if abs(m["energy.balance_residual_rel"]) <= e_bar else " ✗")) for f, (m, _) in runs.items()]
        print(f"| {name} | {dur:g} | energy residual (rel) | " + " | ".join(cells) + " |")
        cells = [(f"{dur / cpu:.1f}×" if cpu > 0 else "–") for _, cpu in runs.values()]
        print(f"| {name} | {dur:g} | real-time factor (CPU) | " + " | ".join(cells) + " |")
        allowed = [f for f in args.factors if f >= 1.0 and ok[f] and all(ok[g] for g in args.factors if 1.0 <= g < f)]
        best = max(allowed) * dt0 if allowed else None
        print(f"| {name} | {dur:g} | **largest dt within criterion** | "
              f"{'none ≥ dt' if best is None else f'{best * 1e3:g} ms (shipped {dt0 * 1e3:g} ms)'} |"
              + " |" * (len(args.factors) - 1), flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
