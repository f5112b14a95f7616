"""Sweep throughput: the same 16 short runs on a LocalCluster with 1 worker, then with 2.

    .venv/bin/python benchmarks/sweep_throughput.py [--runs 16] [--duration 3] [--workers 1 2]

Each run is the passive creeping scenario (Wang 2011) for ``--duration`` simulated seconds with its
own E_ref. Times are wall-clock: cluster start-up (process spawn + engine import, paid once per sweep)
is reported apart from the runs themselves, which are what scale with the workers. The goal is a
speed-up ≥ 1.8× from 1 to 2 workers on a 2-core machine; other load on the machine lowers it.
Runs go to a temporary folder (written as in a sweep) that is removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from lab.core import scenario as scn
from lab.sweep.execute import Executor, Task


def make_tasks(n: int, duration: float, out: Path) -> list[Task]:
    tasks = []
    for i in range(n):
        E_ref = 0.5 + 0.5 * i / max(n - 1, 1)
        sc = scn.load("snake_passive_creeping", {"sim.duration": duration, "controller.E_ref": E_ref})
        tasks.append(Task(run_id=f"b{i:03d}", scenario=sc, info={"controller.E_ref": E_ref},
                          run_dir=str(out / "runs" / f"b{i:03d}"), row_file=str(out / "rows" / f"b{i:03d}.json")))
    return tasks


def bench(workers: int, n: int, duration: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as tmp:
        tasks = make_tasks(n, duration, Path(tmp))
        t0 = time.perf_counter()
        with Executor(workers=workers) as ex:
            t1 = time.perf_counter()
            rows = [row for _, row, _ in ex.run(tasks)]
            t2 = time.perf_counter()
        t3 = time.perf_counter()
    bad = [r["run_id"] for r in rows if r["status"] != "ok"]
    if bad:
        raise SystemExit(f"runs not ok: {bad}")
    return {"workers": workers, "startup_s": t1 - t0, "runs_s": t2 - t1, "close_s": t3 - t2, "total_s": t3 - t0,
            "cpu_per_run_s": sum(r["task_wall_s"] for r in rows) / len(rows)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--duration", type=float, default=3.0, help="simulated seconds per run")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    results = [bench(w, a.runs, a.duration) for w in a.workers]
    print(f"{a.runs} runs of snake_passive_creeping, {a.duration:g} s simulated each; {os.cpu_count()} CPUs, "
          f"1-min load average {load0:.2f} before, {os.getloadavg()[0]:.2f} after (other load skews the speed-up)")
    print(f"{'workers':>7} {'start-up [s]':>12} {'runs [s]':>9} {'total [s]':>9} {'per run [s]':>11} {'runs/s':>7}")
    for r in results:
        print(f"{r['workers']:>7} {r['startup_s']:>12.2f} {r['runs_s']:>9.2f} {r['total_s']:>9.2f} "
              f"{r['cpu_per_run_s']:>11.3f} {a.runs / r['runs_s']:>7.2f}")
    print("per run = mean wall time of one run inside its worker: if it grows with the workers, the CPUs are shared")
    base = results[0]
    for r in results[1:]:
        print(f"speed-up {base['workers']} → {r['workers']} workers: runs {base['runs_s'] / r['runs_s']:.2f}×, "
              f"including start-up {base['total_s'] / r['total_s']:.2f}× (goal ≥ 1.8× on the runs)")


if __name__ == "__main__":
    main()
