"""Engine-vs-analytic cross-checks: ``lab check [NAME...]``: the registry and the runner.

The engine's own checks against closed forms live here (:mod:`.friction_block`); each paper's checks
live in its home under :mod:`lab.papers`. Each registers with :func:`check`; the built-ins are listed in
:mod:`lab.core.plugins` and imported on the registry's first lookup, so importing this package imports no paper.

Each check is a function ``(overrides) -> dict[figure, Figure]`` registered with :func:`check`.
Every figure carries its value, its tolerance (from :mod:`lab.core.tolerances`) and pass/fail.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from lab.core.registry import Registry, registry
from lab.core.writes import write_json as write_json_atomic


@dataclass(frozen=True)
class Figure:
    value: float
    tolerance: float
    passed: bool
    note: str = ""

    @staticmethod
    def at_most(value: float, tolerance: float, note: str = "") -> "Figure":
        return Figure(float(value), float(tolerance), bool(value <= tolerance), note)


@dataclass(frozen=True)
class Check:
    name: str
    fn: Callable
    doc: str


CHECKS: Registry[Check] = registry("check")


def check(name: str):
    """Register ``fn(overrides) -> dict[figure, Figure]`` as check ``name``; its docstring's first line
    is the one-line description ``lab check --list`` prints."""
    return CHECKS.register(name, wrap=lambda fn: Check(name, fn, (fn.__doc__ or "").strip().splitlines()[0]))


def run_checks(names: list[str], overrides: list[str], out, command: list[str] | None = None,
               started: float | None = None, progress: bool = False) -> tuple[bool, str]:
    """Run the checks and write ``checks.json`` and ``provenance.json`` into ``out`` (a folder, checked by
    :func:`lab.core.outputs.prepare` before any check runs, or an already prepared Output)."""
    from lab.core.outputs import Output, prepare
    from lab.core.provenance import collect

    output = out if isinstance(out, Output) else prepare(out, "check")
    started = time.time() if started is None else started
    t_all = time.perf_counter()
    results: dict[str, dict] = {}
    walls: dict[str, float] = {}
    rows = []
    all_ok = True
    bar = None
    if progress:  # one bar over the checks, on a terminal (some take minutes)
        from tqdm import tqdm

        bar = tqdm(total=len(names), unit="check", leave=False)
    for name in names:
        if bar is not None:
            bar.set_description(f"check: {name}")
        t0 = time.perf_counter()
        figs = CHECKS[name].fn(overrides)
        dt = walls[name] = time.perf_counter() - t0
        if bar is not None:
            bar.update(1)
        results[name] = {k: asdict(f) for k, f in figs.items()}
        for k, f in figs.items():
            all_ok &= f.passed
            rows.append((name, k, f.value, f.tolerance, "pass" if f.passed else "FAIL", f.note))
        rows.append((name, "(wall time s)", dt, float("nan"), "", ""))
    if bar is not None:
        bar.close()
    prov = collect(command, started, time.perf_counter() - t_all, check_wall_time_s=walls)

    def build(tmp: Path) -> None:
        write_json_atomic(tmp / "checks.json", results)
        write_json_atomic(tmp / "provenance.json", prov)

    output.write_all(build)
    w1 = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    lines = [f"{'check':<{w1}}  {'figure':<{w2}}  {'value':>11}  {'tolerance':>10}  result"]
    for r in rows:
        tol_s = "" if r[3] != r[3] else f"{r[3]:10.3g}"
        lines.append(f"{r[0]:<{w1}}  {r[1]:<{w2}}  {r[2]:11.4g}  {tol_s:>10}  {r[4]}  {r[5]}".rstrip())
    lines.append("all checks passed" if all_ok else "SOME CHECKS FAILED")
    return all_ok, "\n".join(lines)


__all__ = ["CHECKS", "Figure", "check", "run_checks", "json"]
