"""The performance goals of issue 34, measured side by side in one run and printed as one Markdown table.

| goal | target | how it is measured here |
|---|---|---|
| flagship real-time factor | ≥ 40× | ``snake_passive_creeping`` as shipped (30 s), its step loop alone (``Simulation.step`` from a fresh set-up, as benchmarks/run_breakdown.py times it), on process CPU time; the whole ``Simulation.run`` (with its metrics) beside it |
| ``lab report --workers 2`` | ≤ 6 min | the CLI in a subprocess into a temporary folder, wall time (and the children's CPU time) |
| tracked step sweep | ≤ 2 min | ``lab sweep scenarios/sweeps/tracked_step_climb.toml --workers 2`` in a subprocess, wall time |
| ``lab/SnakeCreeping-v2`` | ≥ 3000 env steps/s, beside Swimmer-v5 | env steps per CPU second under uniform random actions, Gymnasium's wrappers on both (benchmarks/ppo_snake.py's ``throughput``); v1 (1 ms) and MuJoCo's ``Swimmer-v5`` in the same process, or the reason Swimmer could not be made |
| lab/io, snake n = 10 | ≤ 1.15 | benchmarks/step_overhead.py's ``measure`` (the lab's step against the engine-I/O floor, median of ``--repeat``) |

Goals are measurements, never asserted in tests. Each figure is printed with the load average
(``os.getloadavg``) before and after it: the machine is shared, and wall times in particular move with
the load. The report and the sweep take long (33 min and 4.4 min on 2026-11-26); ``--only`` picks goals.

Usage: python benchmarks/goals.py [--only flagship io env report sweep] [--repeat 5] [--env-steps 3000]
                                  [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))  # the sibling benchmarks: step_overhead, ppo_snake

GOALS = ("flagship", "io", "env", "report", "sweep")


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def flagship() -> tuple[str, str, bool]:
    from flagship_steps import time_flagship
    from lab.core import scenario as scn

    sc = scn.load("snake_passive_creeping", [])
    loop, whole, n, status = time_flagship([])
    rtf = sc.sim.duration / loop
    return (f"{rtf:.1f}× (step loop, {loop / n * 1e6:.0f} µs per {sc.sim.dt * 1e3:g} ms step); "
            f"{sc.sim.duration / whole:.1f}× with its metrics (Simulation.run, status {status})",
            f"{rtf:.1f}", rtf >= 40.0)


def lab_io(repeat: int) -> tuple[str, str, bool]:
    import step_overhead

    m = step_overhead.measure("snake_passive_creeping", ["robot.n_modules=10"], 3000, repeat)
    r = m["lab"] / m["engine_io"]
    return (f"{r:.2f} (lab {m['lab'] * 1e6:.1f} µs, engine-io floor {m['engine_io'] * 1e6:.1f} µs, bare "
            f"{m['bare'] * 1e6:.1f} µs; against the floor through World.apply "
            f"{m['lab'] / m['engine_io_apply']:.2f})", f"{r:.2f}", r <= 1.15)


def env(steps: int) -> tuple[str, str, bool]:
    import lab.envs  # noqa: F401  (registers the environments)
    from ppo_snake import throughput

    lab_sps = throughput("lab/SnakeCreeping-v2", steps, overrides={"sim.duration": 4.0})
    v1 = throughput("lab/SnakeCreeping-v1", steps, overrides={"sim.duration": 4.0})
    try:
        import mujoco  # noqa: F401

        swim = throughput("Swimmer-v5", steps)
        beside = f"Swimmer-v5 {swim:.0f} in the same process ({swim / lab_sps:.1f}× per step)"
    except Exception as exc:  # the optional [bench] extra is missing or MuJoCo cannot start
        beside = f"Swimmer-v5 not measured: {type(exc).__name__}: {exc}"
    return (f"{lab_sps:.0f} env steps per CPU second (v2: 5 ms, 2 engine steps per action; v1 at 1 ms "
            f"{v1:.0f}); {beside}", f"{lab_sps:.0f}", lab_sps >= 3000)


def _cli(args: list[str]) -> tuple[float, float, int]:
    """(wall s, children's CPU s, exit code) of ``python -m lab.cli ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    rc = subprocess.run([sys.executable, "-m", "lab.cli", *args], cwd=ROOT, stdout=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), rc


def report() -> tuple[str, str, bool]:
    with tempfile.TemporaryDirectory(prefix="lab-goals-") as tmp:
        wall, cpu, rc = _cli(["report", "--workers", "2", "--out", str(Path(tmp) / "report"), "-q"])
    return (f"{wall / 60:.1f} min wall ({wall:.0f} s; {cpu:.0f} s CPU in the report and its workers; exit {rc})",
            f"{wall / 60:.1f} min", wall <= 360 and rc == 0)


def sweep() -> tuple[str, str, bool]:
    with tempfile.TemporaryDirectory(prefix="lab-goals-") as tmp:
        wall, cpu, rc = _cli(["sweep", "scenarios/sweeps/tracked_step_climb.toml", "--workers", "2",
                              "--out", str(Path(tmp) / "sweep"), "-q"])
    return (f"{wall / 60:.1f} min wall ({wall:.0f} s; {cpu:.0f} s CPU; exit {rc})", f"{wall / 60:.1f} min",
            wall <= 120 and rc == 0)


TARGETS = {"flagship": ("flagship real-time factor (CPU)", "≥ 40×"),
           "report": ("`lab report --workers 2`", "≤ 6 min"),
           "sweep": ("tracked step sweep (`--workers 2`)", "≤ 2 min"),
           "env": ("`lab/SnakeCreeping-v2`", "≥ 3000 env steps/s, beside Swimmer-v5"),
           "io": ("lab/io, snake n = 10", "≤ 1.15")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=list(GOALS), choices=GOALS)
    ap.add_argument("--repeat", type=int, default=5, help="lab/io: median of this many repeats")
    ap.add_argument("--env-steps", type=int, default=3000, help="env steps per environment")
    ap.add_argument("--out", help="also write the table here")
    a = ap.parse_args()
    rows = ["| goal | target | measured | met? | load before → after |", "|---|---|---|---|---|"]
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; load average {load()} at the start", flush=True)
    for g in (g for g in GOALS if g in a.only):
        l0 = load()
        text, _, met = {"flagship": flagship, "io": lambda: lab_io(a.repeat), "env": lambda: env(a.env_steps),
                        "report": report, "sweep": sweep}[g]()
        name, target = TARGETS[g]
        rows.append(f"| {name} | {target} | {text} | {'yes' if met else '**no**'} | {l0} → {load()} |")
        print(rows[-1], flush=True)
    print()
    print("\n".join(rows))
    if a.out:
        Path(a.out).write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
