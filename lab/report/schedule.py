"""The report's runs, scheduled: one key per resolved scenario, the runs every section will ask for put in
flight before the first section starts (the section with the fewest steps first, so its work in the report's
process overlaps the others' runs; longest first within a section), and a timeline of each run.

Why (docs/benchmarks.md, "session 10: where the report's time goes"): a section's runs used to start only when
the section asked for them, so the second worker sat idle while a section worked in the parent (the Hu 2013
section's model tables, the eel's model integrations), and a run a section shares with another section under
another name (a Fig 7 triple that is also a cell of the reachability map) ran twice.

**The memo is per build.** :func:`scenario_key` hashes the resolved scenario (every field, the seed among them);
two runs with the same key give identical results (the lab's determinism: same scenario + seed → identical
results), so within one ``lab report`` each key runs once and every name asking for it shares the result.
Nothing is kept between builds: a changed scenario, step or code gives new runs the next time.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# section key -> func(ctx) -> [(name, scenario_name, overrides)]: the runs the section will ask ctx.run_many
# for. Filled when the sections' modules are imported (lab.report.core.load_sections).
PLANS: dict[str, Callable] = {}


def plan(key: str):
    """Register ``func(ctx) -> [(name, scenario_name, overrides)]``: the runs section ``key`` will ask for, so
    the build can start them before the section runs. The section still asks for them with ``ctx.run_many``;
    a planned run it never asks for is only wasted time, a run it asks for without a plan just starts later."""
    def deco(func):
        PLANS[key] = func
        return func

    return deco


CALL_PRIORITY = 10**9  # a section's model calls go ahead of the queued runs (priority = their count − rank): the section waits for them

_BUILD = []  # the Context of the build in progress (memo() looks its memo up there)


def call_key(fn, args: tuple) -> str | None:
    """Key of a pure call ``fn(*args)`` (module, name and the pickled arguments); None if the arguments
    cannot be pickled (then the call is not shared)."""
    import pickle

    try:
        blob = pickle.dumps((fn.__module__, fn.__qualname__, args), protocol=4)
    except Exception:  # noqa: BLE001 - an argument pickle cannot hold: compute it, do not share it
        return None
    return hashlib.sha256(blob).hexdigest()


def memo(fn):
    """``fn`` as the build in progress sees it: a call made before with the same arguments (in this build,
    here or on a worker through ``ctx.map``) returns that result; outside a build, ``fn`` itself. For pure,
    deterministic functions (the papers' models) only: the same arguments give the same numbers, so computing
    once is the same as computing twice."""
    def call(*args):
        if not _BUILD:
            return fn(*args)
        memo_ = _BUILD[-1].memo
        key = call_key(fn, args)
        if key is None:
            return fn(*args)
        if key not in memo_:
            memo_[key] = fn(*args)
        return memo_[key]

    call.__wrapped__ = fn
    return call


def run_call(fn, args: tuple):
    """Worker side of ``ctx.map``: one pure call, with its timing."""
    t0, c0 = time.time(), time.process_time()
    out = fn(*args)
    return out, {"start": t0, "end": time.time(), "cpu_s": time.process_time() - c0, "worker": f"pid {os.getpid()}"}


def scenario_key(sc) -> str:
    """SHA-256 of the resolved scenario's canonical JSON (sorted keys; a value JSON cannot hold by its repr,
    which at worst makes two equal scenarios look different: they then run twice, never share wrongly)."""
    text = json.dumps(sc.to_dict(), sort_keys=True, default=repr, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def planned_steps(sc) -> int:
    """The run's step count (a trial that stops when decided may end earlier)."""
    return int(sc.sim.n_steps)


def planned_cost(sc) -> float:
    """The build's estimate of a run's cost, to start the longest first: its steps times its robot's modules
    (a step of a three-module chain costs about twice a two-module one's: 400 against 175 s for the same
    260 000 steps in session 10's Hu 2013 build, where the steps alone tied them and left a 300-s chain
    to the end)."""
    return planned_steps(sc) * max(1, int(getattr(sc.robot, "n_modules", 1) or 1))


@dataclass
class RunRecord:
    """One run of the build: which section asked first, its key, step and length, where and when it ran."""

    name: str
    section: str
    key: str
    dt: float
    duration: float
    steps: int
    worker: str = ""
    submitted: float = 0.0  # seconds since the build started
    start: float = float("nan")
    end: float = float("nan")
    wall_s: float = float("nan")
    cpu_s: float = float("nan")
    status: str = ""
    shared_by: list = field(default_factory=list)  # other names that asked for the same key

    def as_dict(self) -> dict:
        def r(k, x):  # times to the millisecond; dt and duration as they are (0.0005 s is not 0.001)
            if isinstance(x, float):
                return None if not math.isfinite(x) else (x if k in ("dt", "duration") else round(x, 3))
            return x

        return {k: r(k, v) for k, v in self.__dict__.items()} | {"key": self.key[:12]}


def timed_run(plugins: tuple, blob: bytes):
    """Worker side: :func:`lab.sweep.execute.run_shipped` with the run's start and end (epoch seconds), its
    CPU time and the worker's pid beside its row."""
    from lab.sweep.execute import run_shipped

    t0, c0 = time.time(), time.process_time()
    row, result, files = run_shipped(plugins, blob)
    return row, result, files, {"start": t0, "end": time.time(), "cpu_s": time.process_time() - c0,
                                "worker": f"pid {os.getpid()}"}


def timed_local(task):
    """The same in this process (``--workers 1`` or a lone run)."""
    from lab.sweep.execute import run_task

    t0, c0 = time.time(), time.process_time()
    row, result, files = run_task(task)
    return row, result, files, {"start": t0, "end": time.time(), "cpu_s": time.process_time() - c0,
                                "worker": "parent"}


def timeline_table(records: list[RunRecord], width: int = 60) -> str:
    """The runs in start order, one line each (for the log and docs/benchmarks.md)."""
    lines = [f"{'start':>7} {'end':>7} {'wall':>6} {'cpu':>6} {'dt':>7} {'T':>6}  {'worker':<10} {'key':<8} name"]
    for r in sorted(records, key=lambda r: (r.start if r.start == r.start else 1e18)):
        lines.append(f"{r.start:7.1f} {r.end:7.1f} {r.wall_s:6.1f} {r.cpu_s:6.1f} {r.dt:7g} {r.duration:6g}  "
                     f"{r.worker:<10} {r.key[:8]} {r.name[:width]}"
                     + (f"  (also {', '.join(r.shared_by)})" if r.shared_by else ""))
    return "\n".join(lines)


__all__ = [
    "CALL_PRIORITY",
    "PLANS",
    "RunRecord",
    "call_key",
    "memo",
    "plan",
    "planned_cost",
    "planned_steps",
    "run_call",
    "scenario_key",
    "timed_local",
    "timed_run",
    "timeline_table",
]
