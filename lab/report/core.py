"""The report's registry and build loop.

A section is a function registered with :func:`section`; it receives a :class:`Context` (output
folder, ``run_many`` to run scenarios, ``save_figure``) and returns a :class:`SectionResult`: markdown
text, figures and a table comparing lab values with the paper's. Sections live in the modules of the
papers they report on (``lab/papers/<paper>/report.py``), listed in :mod:`lab.core.plugins`; the registry
imports them on its first lookup, which happens only when a report is built or listed.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path

from lab.core.errors import LabError
from lab.core.registry import Registry, registry
from lab.report.types import MARKS, Figure, Row, Section, SectionOutcome, SectionResult  # noqa: F401  (the public names)

log = logging.getLogger(__name__)

_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")

SECTIONS: Registry[Section] = registry("report section")  # the built-ins are listed in lab.core.plugins


def section(key: str, title: str, paper: str = ""):
    """Register ``func(ctx) -> SectionResult`` as report section ``key`` (order of registration)."""
    if not _NAME_RE.match(key):
        raise ValueError(f"section key must be letters, digits, '_', '.', '-', got {key!r}")

    return SECTIONS.register(key, wrap=lambda func: Section(key, title, paper, func))


def load_sections() -> Registry[Section]:
    """Every registered section: the built-ins of :mod:`lab.core.plugins` (the papers' report modules) and any
    registered by user code."""
    SECTIONS.load()
    return SECTIONS


QUICK_MARK_NOTE = "not compared in a quick run"
QUICK_EMPTY = "— (too short in a quick run)"
QUICK_WHY = "the paper's figure needs the full runs; a quick build's runs last a fraction of a second to a few seconds"
_NAN_RE = re.compile(r"\bnan\b|\binf\b", re.IGNORECASE)


def quick_row(row: Row) -> Row:
    """A table row as a ``--quick`` report shows it. A row whose comparison the short runs decide
    (``quick_decides``: an identity such as the energy balance) keeps its mark and note. Any other row
    is ``info`` with ``quick_why`` — in words, why a short run cannot decide it — in place of the full
    build's note (which would read as a verdict on runs too short to give one); a value the short runs
    could not measure (``nan``) reads "—" with the reason instead of ``nan ± nan``."""
    lab = QUICK_EMPTY if _NAN_RE.search(str(row.lab)) else row.lab
    if row.quick_decides:
        return Row(row.quantity, lab, row.paper, row.mark, row.note, True)
    if row.mark == "info" and not row.quick_why:
        return Row(row.quantity, lab, row.paper, "info", row.note)
    return Row(row.quantity, lab, row.paper, "info", f"{QUICK_MARK_NOTE}: {row.quick_why or QUICK_WHY}")


class Context:
    """What a section may use. ``run_many`` runs scenarios (in parallel on a dask LocalCluster when
    ``workers > 1``, in this process otherwise) and writes each run under ``out/runs/<name>``.

    Within one build every resolved scenario runs once (:func:`lab.report.schedule.scenario_key`): a second
    name asking for the same scenario and seed shares the first one's result (its run folder is a copy, its
    provenance naming the run it repeats). ``submit`` puts runs in flight without waiting (the build starts
    every section's planned runs first: the smallest section's first, longest first within one); ``records`` is the timeline of every run."""

    def __init__(self, out, quick: bool = False, workers: int = 1, command: list[str] | None = None,
                 progress: bool = False):
        from lab.core.outputs import Output

        self.output = out if isinstance(out, Output) else None  # the --out rule: files are claimed first
        self.out = Path(out.path if self.output else out).resolve()
        self.command = tuple(command or ())
        self.quick = quick
        self.workers = max(1, int(workers))
        self.section = ""
        self.progress = progress  # a bar over each batch of runs (on a terminal)
        self._executor = None
        self._done: dict[str, tuple] = {}  # name -> (scenario, result): runs shared between sections
        self._by_key: dict[str, tuple] = {}  # scenario key -> (scenario, result, first name): the build's memo
        self._flight: dict[str, tuple] = {}  # scenario key -> (future, task, record): submitted, not collected
        self.records: dict[str, object] = {}  # scenario key -> RunRecord (lab.report.schedule)
        self.memo: dict[str, object] = {}  # call key -> result of a pure call (lab.report.schedule.memo, map)
        self.calls: list[dict] = []  # the timeline of ctx.map's calls
        self.t0 = time.time()

    # -- scheduling
    def _resolve(self, runs):
        from lab.core import scenario as scn
        from lab.report.schedule import scenario_key

        out = []
        for name, scenario_name, overrides in runs:
            if not _NAME_RE.match(name):
                raise ValueError(f"run name must be letters, digits, '_', '.', '-', got {name!r}")
            sc = scn.load(scenario_name, overrides)
            if name in self._done and self._done[name][0] != sc:
                raise ValueError(f"run name {name!r} already used for a different scenario")
            out.append((name, sc, scenario_key(sc)))
        return out

    def _task(self, name, sc, key, section=None):
        from lab.report.schedule import RunRecord, planned_steps
        from lab.sweep.execute import Task

        run_dir = self.claim(f"runs/{name}")
        self.records[key] = RunRecord(name, section or self.section, key, float(sc.sim.dt), float(sc.sim.duration),
                                      planned_steps(sc), submitted=time.time() - self.t0)
        return Task(run_id=name, scenario=sc, info={}, run_dir=str(run_dir), keep_result=True, command=self.command)

    def _open_executor(self):
        if self._executor is None:
            from lab.sweep.execute import Executor

            self._executor = Executor(workers=self.workers).__enter__()
        return self._executor

    def map(self, fn, calls: list[tuple]) -> list:
        """``[fn(*args) for args in calls]`` for a pure, deterministic ``fn`` (a paper's model): see
        :meth:`compute`."""
        return self.compute([(fn, tuple(a)) for a in calls])

    def compute(self, calls: list[tuple]) -> list:
        """``[fn(*args) for fn, args in calls]`` for pure, deterministic functions (the papers' models), on the
        workers when there are any (ahead of the queued runs, all at once, started in the order given), each
        distinct call once per build
        (shared with :func:`lab.report.schedule.memo`). The same arguments give the same numbers wherever
        they run."""
        from lab.report.schedule import CALL_PRIORITY, call_key, run_call

        keys = [call_key(fn, tuple(a)) for fn, a in calls]
        todo = {}
        for k, (fn, a) in zip(keys, calls):
            if k is not None and k not in self.memo and k not in todo:
                todo[k] = (fn, tuple(a))
        if len(todo) > 1 and self.workers > 1:
            ex = self._open_executor()
            futs = {k: ex.submit_call(run_call, (fn, a), priority=CALL_PRIORITY + len(todo) - i)
                    for i, (k, (fn, a)) in enumerate(todo.items())}  # in the order given
            for k, fut in futs.items():
                self.memo[k], timing = fut.result()
                fut.release()
                fn, a = todo[k]
                self.calls.append({"section": self.section, "fn": fn.__qualname__, "args": repr(a)[:80],
                                   "start": round(timing["start"] - self.t0, 3),
                                   "end": round(timing["end"] - self.t0, 3),
                                   "cpu_s": round(timing["cpu_s"], 3), "worker": timing["worker"]})
        out = []
        for k, (fn, a) in zip(keys, calls):
            if k is None:
                out.append(fn(*a))
            else:
                if k not in self.memo:
                    self.memo[k] = fn(*a)
                out.append(self.memo[k])
        return out

    def submit(self, runs: list[tuple[str, str, dict | list]], sections: list[str] | None = None,
               urgent: bool = False) -> int:
        """Put ``[(name, scenario_name, overrides)]`` in flight on the workers without waiting: the section
        with the least work in all first, within a section the longest run first (``planned_cost``: steps ×
        modules); a scenario
        already done or in flight is not submitted again. Returns how many
        were submitted. Only with ``workers > 1`` (otherwise the runs wait for ``run_many``)."""
        if self.workers <= 1:
            return 0
        from lab.report.schedule import CALL_PRIORITY, planned_cost, timed_run

        new = {}
        for i, (name, sc, key) in enumerate(self._resolve(runs)):
            if key not in self._by_key and key not in self._flight and key not in new:
                new[key] = (name, sc, sections[i] if sections else self.section)
        if not new:
            return 0
        ex = self._open_executor()
        # the section with the least simulation first (its work in this process then overlaps the others'
        # runs), and within a section the longest run first (no long run left to the end)
        total: dict[str, int] = {}
        for _, sc, sec in new.values():
            total[sec] = total.get(sec, 0) + planned_cost(sc)
        rank = {sec: i for i, sec in enumerate(sorted(total, key=lambda k: total[k]))}
        order = sorted(new.items(), key=lambda kv: (rank[kv[1][2]], -planned_cost(kv[1][1])))
        for i, (key, (name, sc, sec)) in enumerate(order):
            task = self._task(name, sc, key, sec)
            # urgent: a section is waiting for them (asked for, not planned): ahead of the queued planned runs
            fut = ex.submit(task, fn=timed_run, priority=len(order) - i + (CALL_PRIORITY // 2 if urgent else 0))
            self._flight[key] = (fut, task, self.records[key])
        return len(order)

    def pending(self, keys) -> bool:
        """True while any run of ``keys`` (scenario keys) is still in flight (a section that would wait)."""
        return any(key in self._flight and not self._flight[key][0].done() for key in keys)

    def wait_any(self, timeout: float = 5.0) -> None:
        """Block until some run in flight finishes (or ``timeout``)."""
        futs = [f for f, _, _ in self._flight.values() if not f.done()]
        if futs:
            from dask.distributed import TimeoutError as DaskTimeout
            from distributed import wait

            try:
                wait(futs, timeout=timeout, return_when="FIRST_COMPLETED")
            except (DaskTimeout, TimeoutError):  # nothing finished yet: the caller looks again
                log.debug("report: no run finished within %g s", timeout)

    def _land(self, key, got, failed):
        row, result, _files, timing = got
        rec = self.records[key]
        rec.start, rec.end = timing["start"] - self.t0, timing["end"] - self.t0
        rec.wall_s, rec.cpu_s, rec.worker = timing["end"] - timing["start"], timing["cpu_s"], timing["worker"]
        rec.status = row.get("status", "failed")
        if row["status"] == "failed" or result is None:
            failed.append(f"{rec.name}: {row.get('error', 'no result')}")
            return
        self._by_key[key] = (result.scenario, result, rec.name)

    def _collect(self, keys: list[str], failed: list) -> None:
        """Wait for the runs of ``keys`` in flight and land them (with a progress bar on a terminal)."""
        from lab.sweep.execute import make_row, one_line, write_failure

        keys = [k for k in dict.fromkeys(keys) if k in self._flight]
        if not keys:
            return
        from distributed import as_completed

        futs = {self._flight[k][0].key: k for k in keys}
        it = as_completed([self._flight[k][0] for k in keys])
        if self.progress:
            from tqdm import tqdm

            it = tqdm(it, total=len(keys), desc=f"  {self.section} runs", unit="run", leave=False, position=1)
        for fut in it:
            key = futs[fut.key]
            _, task, _rec = self._flight.pop(key)
            try:
                got = fut.result()
            except Exception as exc:
                if write_failure(exc):
                    raise
                got = (make_row(task, "failed", one_line(exc), {}, 0.0), None, None,
                       {"start": time.time(), "end": time.time(), "cpu_s": float("nan"), "worker": "?"})
            fut.release()
            self._land(key, got, failed)

    def run_many(self, runs: list[tuple[str, str, dict | list]]) -> dict:
        """``[(name, scenario_name, overrides)]`` → ``{name: RunResult}``. A run that crashes fails the
        section (a diverged run is returned: it is a result). A scenario this build has already run, or
        has in flight, under any name is not run again."""
        from lab.report.schedule import timed_local

        resolved = self._resolve(runs)
        fresh = {}
        for name, sc, key in resolved:
            if key not in self._by_key and key not in self._flight and key not in fresh:
                fresh[key] = (name, sc)
        failed: list[str] = []
        if len(fresh) > 1 and self.workers > 1 or (fresh and self._executor is not None):
            self.submit([(n, sc_name, ov) for (n, sc_name, ov), (_, _, k) in zip(runs, resolved) if k in fresh],
                        urgent=True)
        else:
            for key, (name, sc) in fresh.items():  # a lone run (or --workers 1): in this process
                task = self._task(name, sc, key)
                self._land(key, timed_local(task), failed)
        self._collect([k for _, _, k in resolved], failed)
        if failed:
            raise RuntimeError("run failed: " + "; ".join(failed))
        out = {}
        for name, sc, key in resolved:
            _, result, first = self._by_key[key]
            if first != name and name not in self._done:
                self._copy_run(first, name)
                rec = self.records.get(key)
                if rec is not None and name not in rec.shared_by:
                    rec.shared_by.append(name)
            self._done[name] = (sc, result)
            out[name] = result
        return out

    def _copy_run(self, first: str, name: str) -> None:
        """``runs/<name>`` as a copy of ``runs/<first>`` (the same scenario and seed, so the same run); its
        provenance says so (``same_run_as``)."""
        import json

        from lab.core.outputs import prepare, writing
        from lab.sweep.execute import folder_files

        src = self.out / "runs" / first
        dst = self.claim(f"runs/{name}")
        files = folder_files(src, "run")
        if "provenance.json" in files:
            prov = json.loads(files["provenance.json"])
            prov.update(run_id=name, same_run_as=first)
            files["provenance.json"] = (json.dumps(prov, indent=2) + "\n").encode()

        def build(tmp: Path) -> None:
            for rel, data in files.items():
                path = tmp / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)

        with writing(self.output.where if self.output else str(self.out)):
            prepare(dst, "run", overwrite=True).write_all(build)

    def save_figure(self, fig, name: str, caption: str = "") -> Figure:
        """Save a matplotlib figure as ``figures/<section>_<name>.png`` and close it."""
        import matplotlib.pyplot as plt

        from lab.core.outputs import writing
        from lab.core.writes import inside, write_with

        rel = f"figures/{self.section}_{name}.png"
        path = self.claim(rel)
        where = self.output.where if self.output else str(self.out)
        try:
            with writing(where):
                path.parent.mkdir(parents=True, exist_ok=True)
                inside(self.out, path, f"{where}/{rel}")  # figures/ may not be a link out of the report
                fig.tight_layout()
                write_with(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
        finally:
            plt.close(fig)
        return Figure(path, caption)

    def claim(self, rel: str) -> Path:
        """The path of ``rel`` in the report folder, listed in its marker (refused if a file the lab did
        not write is there)."""
        return (self.output.claim(rel) if self.output else self.out / rel).resolve()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None


def start_planned(ctx: Context, keys: list[str], sections) -> dict[str, list]:
    """Every planned run of the sections ``keys`` (lab.report.schedule.plan) put in flight at once (the
    section with the fewest steps first, longest first within a section), so the workers stay busy while the sections work in this process. Returns the plans."""
    from lab.report.schedule import PLANS

    plans = {}
    for k in keys:
        if k in PLANS:
            ctx.section = k
            plans[k] = list(PLANS[k](ctx))
    every = [r for k in keys for r in plans.get(k, [])]
    if len(every) > 1:
        n = ctx.submit(every, [k for k in keys for _ in plans.get(k, [])])
        log.info("report: %d planned runs in flight on %d workers", n, ctx.workers)
    return {k: [key for _, _, key in ctx._resolve(runs)] for k, runs in plans.items()}


def next_section(ctx: Context, todo: list[str], plans: dict[str, list]) -> str:
    """The next section to build: the first (in report order) whose planned runs have all finished; while
    none has, wait for a run. A section without a plan, or a build without workers, goes in order."""
    while True:
        for k in todo:
            if not ctx.pending(plans.get(k, [])):
                return k
        ctx.wait_any()


def build_report(out, only: list[str] | None = None, workers: int = 1, quick: bool = False,
                 on_section: Callable[[SectionOutcome], None] | None = None, overwrite: bool = False,
                 command: list[str] | None = None, started: float | None = None, progress: bool = False
                 ) -> tuple[list[SectionOutcome], float]:
    """Run the sections, write ``report.md``, ``report.html`` and ``provenance.json``; returns the outcomes
    and total wall time. A section that raises is reported as failed and the others still run.
    ``out``: a folder (checked by :func:`lab.core.outputs.prepare` before anything runs) or a prepared Output."""
    from lab.core.outputs import Output, prepare, writing
    from lab.core.provenance import collect
    from lab.report import render
    from lab.results import write_json_atomic
    from lab.sweep.execute import one_line

    started = time.time() if started is None else started
    sections = load_sections()
    keys = list(only) if only else list(sections)
    for k in keys:
        if k not in sections:
            raise LabError("--only", f"unknown section {k!r}; allowed: {', '.join(sections)}")
    output = out if isinstance(out, Output) else prepare(out, "report", overwrite=overwrite)
    output.open()
    from lab.core.writes import inside

    try:
        for sub in ("figures", "runs"):  # a link in place of the report's own folders: refused before any section
            inside(output.path, output.path / sub / "x", f"{output.where}/{sub}")
    except LabError:
        output.release()
        raise
    from lab.report.schedule import _BUILD

    ctx = Context(output, quick=quick, workers=workers, command=command, progress=progress)
    _BUILD.append(ctx)
    outcomes = []
    t_all = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(keys), unit="section", position=0, leave=False)
    try:
        plans = start_planned(ctx, keys, sections)
        todo = list(keys)
        while todo:
            k = next_section(ctx, todo, plans)
            todo.remove(k)
            if bar is not None:
                bar.set_description(f"report: {k}")
            sec = sections[k]
            ctx.section = k
            t0 = time.perf_counter()
            try:
                res, err = sec.func(ctx), ""
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # one broken section must not cost the whole report
                log.info("section %s failed", k, exc_info=True)  # the traceback with `lab -v report`
                res, err = SectionResult(), one_line(exc)
            if quick:
                res = SectionResult(res.body, res.figures, [quick_row(r) for r in res.table])
            oc = SectionOutcome(sec, res, time.perf_counter() - t0, err)
            outcomes.append(oc)
            if bar is not None:
                bar.update(1)
                bar.clear()
            if on_section:
                on_section(oc)
            if bar is not None:
                bar.refresh()
    finally:
        if bar is not None:
            bar.close()
        ctx.close()
        _BUILD.remove(ctx)
    outcomes.sort(key=lambda oc: keys.index(oc.section.key))  # built in the order their runs finished, shown in order
    total = time.perf_counter() - t_all
    meta = {"quick": quick, "workers": workers, "total_s": total, "generated": time.strftime("%Y-%m-%d %H:%M:%S")}
    for rel in ("report.md", "report.html", "provenance.json"):
        output.claim(rel)
    with writing(output.where):
        render.write(ctx.out, outcomes, meta)
        write_json_atomic(ctx.out / "provenance.json", collect(
            command, started, time.perf_counter() - t_all, sections={oc.section.key: round(oc.wall_s, 3)
                                                                      for oc in outcomes},
            failed=[oc.section.key for oc in outcomes if oc.error], quick=quick, workers=workers,
            runs=[r.as_dict() for r in sorted(ctx.records.values(), key=lambda r: r.submitted)], calls=ctx.calls))
    output.close()
    return outcomes, total
