"""Headless regression suites for users: ``lab regress record`` and ``lab regress check``.

A suite (:mod:`lab.regress.suite`) names scenarios (short runs, with overrides) and checks. ``record``
runs them (in parallel on the sweep engine with ``--workers``) and writes a baseline folder: each
entry's metrics and definition (the resolved scenario), the environment (versions, platform, commit).
``check`` runs the suite again and compares (:mod:`lab.regress.compare`): a table of what drifted,
worst first, JUnit XML and Markdown on request; exit 0 when everything held, 1 when something
drifted or a definition changed, 2 on bad input. Nothing is written until the comparison is done, so
an interrupted check leaves no half-written file.

Baseline folder: ``baseline.json`` (``{"suite", "entries": {id: {"kind", "definition", "metrics"}},
"environment"}``), ``provenance.json`` and the lab's marker ``.lab-regress`` (the ``--out`` rule).
"""

from __future__ import annotations

import json
import logging
import math
import time
from pathlib import Path

from lab.core.errors import LabError
from lab.regress.compare import Row, compare_entry, environment_changes, worst_first
from lab.regress.suite import Entry, Suite, load_suite

log = logging.getLogger(__name__)

BASELINE = "baseline.json"
DROP = ("run_id", "worker", "task_wall_s", "error")  # row keys that are not metrics


def _json_safe(v):
    if isinstance(v, bool) or v is None or isinstance(v, (str, int)):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def run_entries(suite: Suite, workers: int = 1, command: tuple = (), progress=None) -> dict[str, dict]:
    """Run every entry; ``{id: {"kind", "definition", "metrics"}}``. A run that crashes is recorded
    with ``status = "failed"`` (data, compared like any status), never raised."""
    from lab.checks import CHECKS
    from lab.sweep.execute import Executor, Task, run_local

    out: dict[str, dict] = {}
    runs = [e for e in suite.entries if e.kind == "run"]
    tasks = [Task(run_id=e.id, scenario=e.scenario, info={}, command=command) for e in runs]
    by_id = {e.id: e for e in suite.entries}
    if len(tasks) > 1 and workers > 1:
        with Executor(workers=min(workers, len(tasks))) as ex:
            finished = list(ex.run(tasks))
    else:
        finished = list(run_local(tasks))
    for task, row, _ in finished:
        metrics = {k: _json_safe(v) for k, v in row.items() if k not in DROP}
        if row.get("status") == "failed":  # what crashed, for the refusal (record) or the table (check)
            metrics["error"] = (str(row.get("error") or "").splitlines() or ["no message"])[0]
        out[task.run_id] = {"kind": "run", "definition": by_id[task.run_id].definition, "metrics": metrics}
        if progress:
            progress(task.run_id, row.get("status"))
    for e in suite.entries:
        if e.kind != "check":
            continue
        try:
            figs = CHECKS[e.target].fn(list(e.overrides))
            metrics = {"status": "ok"}
            for name, f in figs.items():
                metrics[f"check.{name}"] = _json_safe(f.value)
                metrics[f"check.{name}.passed"] = bool(f.passed)
        except Exception as exc:  # a check that crashes is a result here, as a failed run is
            log.debug("check %s failed", e.target, exc_info=True)
            metrics = {"status": "failed", "error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
        out[e.id] = {"kind": "check", "definition": e.definition, "metrics": metrics}
        if progress:
            progress(e.id, metrics["status"])
    return {e.id: out[e.id] for e in suite.entries}  # suite order


def record(suite: Suite, out, workers: int = 1, overwrite: bool = False, command: list[str] | None = None) -> Path:
    """Run the suite and write the baseline folder under the --out rule (checked before any run)."""
    from lab.core.outputs import prepare
    from lab.core.provenance import collect, environment
    from lab.results import write_json_atomic

    output = prepare(out, "regress", overwrite=overwrite)
    started, t0 = time.time(), time.perf_counter()
    entries = run_entries(suite, workers, tuple(command or ()))
    crashed = [(eid, e["metrics"]) for eid, e in entries.items() if e["metrics"].get("status") == "failed"]
    if crashed:  # a baseline of a crash would compare a crash with a crash and "hold" forever
        eid, m = crashed[0]
        more = f" (and {len(crashed) - 1} more)" if len(crashed) > 1 else ""
        raise LabError(f"{output.where}", f"not recorded: entry {eid!r} crashed{more} ({m.get('error', 'no message')}); "
                                          "a baseline records working runs: fix the entry or drop it from the suite")
    doc = {"suite": suite.name, "entries": entries, "environment": environment()}
    prov = collect(command, started, time.perf_counter() - t0)

    def build(tmp: Path) -> None:
        write_json_atomic(tmp / BASELINE, doc)
        write_json_atomic(tmp / "provenance.json", prov)

    return output.write_all(build)


def read_baseline(folder) -> dict:
    folder = Path(folder)
    where = f"--baseline {folder}"
    if not folder.is_dir():
        raise LabError(where, "no such folder (record one with `lab regress record SUITE --out DIR`)")
    path = folder / BASELINE
    if not path.is_file():
        raise LabError(where, f"holds no {BASELINE}: not a lab regress baseline")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabError(f"{where}/{BASELINE}", f"cannot be read: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), dict):
        raise LabError(f"{where}/{BASELINE}", "is not a lab regress baseline (no entries)")
    again = f"re-record it with `lab regress record SUITE --out {folder} --overwrite`"
    if not isinstance(doc.get("environment", {}), dict):
        raise LabError(f"{where}/{BASELINE}", f"is damaged: 'environment' is {_kind(doc['environment'])}, not a "
                                              f"table; {again}")
    for eid, entry in doc["entries"].items():
        problem = None
        if not isinstance(entry, dict):
            problem = f"is {_kind(entry)}, not a table"
        elif not isinstance(entry.get("metrics"), dict):
            problem = f"has 'metrics' {_kind(entry.get('metrics'))}, not a table of metrics"
        elif not isinstance(entry.get("kind", "run"), str):
            problem = f"has 'kind' {_kind(entry.get('kind'))}, not a string"
        if problem:
            raise LabError(f"{where}/{BASELINE}", f"is damaged: entry {eid!r} {problem}; {again}")
    return doc


def _kind(v) -> str:
    return {type(None): "null", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", dict: "a table"}.get(type(v), type(v).__name__)


def check(suite: Suite, baseline: dict, workers: int = 1, command: list[str] | None = None
          ) -> tuple[list[Row], list[str], dict]:
    """Run the suite and compare with ``baseline``; (rows worst first, environment changes, now)."""
    from lab.core.provenance import environment

    now = run_entries(suite, workers, tuple(command or ()))
    rows: list[Row] = []
    base_entries = baseline["entries"]
    for e in suite.entries:
        rows += compare_entry(e, suite, base_entries.get(e.id), now.get(e.id))
    for eid in base_entries:
        if eid not in now:  # dropped from the suite: the baseline still holds it
            rows.append(Row(eid, "(entry)", "present", None, math.nan, "", "entry missing"))
    return worst_first(rows), environment_changes(baseline.get("environment", {}), environment()), now


__all__ = ["BASELINE", "Entry", "Row", "Suite", "check", "load_suite", "read_baseline", "record", "run_entries"]
