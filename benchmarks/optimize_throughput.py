"""`lab optimize` throughput: the same study (TPE, a serpenoid gait search) with 1 worker, then with 2.

    /work/venv/bin/python benchmarks/optimize_throughput.py [--trials 16] [--duration 3] [--workers 1 2]

Each trial is the serpenoid scenario (Wang 2011) for ``--duration`` simulated seconds with the sampled
(α, ω). Throughput is trials told per second of the ask-and-tell loop (``loop_s`` in the study's
provenance.json: from the first trial asked to the last told), apart from the cluster's start-up and the
best trial's re-run, which do not scale with the workers. The goal is ≥ 1.8× from 1 to 2 workers on a
2-core machine; other load on the machine lowers it. "workers busy" is the trials' own wall time over
workers × loop time: what the ask-and-tell loop leaves idle (the engine's share of any shortfall); a
trial that takes longer with two in flight than with one (per trial [s]) is the machine's share. Studies go to temporary folders, removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from lab.optimize.engine import run_study
from lab.optimize.study import parse_study


def study(trials: int, duration: float):
    return parse_study({
        "name": "bench", "scenario": "snake_serpenoid", "trials": trials, "seed": 1, "sampler": "tpe",
        "set": {"sim.duration": duration, "analyses": []},
        "param": [{"key": "controller.alpha", "low": 0.2, "high": 0.8},
                  {"key": "controller.omega", "low": 1.0, "high": 3.0}],
        "objective": [{"metric": "com.displacement_m", "direction": "maximize"}]}, where="bench")


def bench(workers: int, trials: int, duration: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as tmp:
        out = Path(tmp) / "out"
        t0 = time.perf_counter()
        code = run_study(study(trials, duration), out, workers=workers, quiet=True, verify=False)
        total = time.perf_counter() - t0
        if code != 0:
            raise SystemExit(f"study exited {code}")
        prov = json.loads((out / "provenance.json").read_text())
        rows = [json.loads(p.read_text()) for p in (out / "rows").glob("*.json")]
    busy = sum(r["task_wall_s"] for r in rows)
    return {"workers": workers, "loop_s": prov["loop_s"], "total_s": total, "trials": len(rows),
            "cpu_per_trial_s": busy / len(rows), "busy": busy / (workers * prov["loop_s"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--duration", type=float, default=3.0, help="simulated seconds per trial")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args()
    load0 = os.getloadavg()
    results = [bench(w, a.trials, a.duration) for w in a.workers]
    load1 = os.getloadavg()
    print(f"{a.trials} trials of snake_serpenoid, {a.duration:g} s simulated each; {os.cpu_count()} CPUs; load "
          f"average (1/5/15 min) {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f} before, "
          f"{load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f} after (other load skews the speed-up)")
    print(f"{'workers':>7} {'loop [s]':>9} {'total [s]':>9} {'per trial [s]':>13} {'workers busy':>12} "
          f"{'trials/s':>8}")
    for r in results:
        print(f"{r['workers']:>7} {r['loop_s']:>9.1f} {r['total_s']:>9.1f} {r['cpu_per_trial_s']:>13.2f} "
              f"{r['busy']:>12.0%} {r['trials'] / r['loop_s']:>8.3f}")
    if len(results) >= 2:
        a0, a1 = results[0], results[-1]
        print(f"speed-up {a1['workers']} vs {a0['workers']} workers (loop): {a0['loop_s'] / a1['loop_s']:.2f}×; "
              f"(total, with start-up and close): {a0['total_s'] / a1['total_s']:.2f}×")


if __name__ == "__main__":
    main()
