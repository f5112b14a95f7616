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
from pathlib import Path
from typing import Callable

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
    ``workers > 1``, in this process otherwise) and writes each run under ``out/runs/<name>``."""

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

    def run_many(self, runs: list[tuple[str, str, dict | list]]) -> dict:
        """``[(name, scenario_name, overrides)]`` → ``{name: RunResult}``. A run that crashes fails the
        section (a diverged run is returned: it is a result)."""
        from lab.core import scenario as scn
        from lab.sweep.execute import Executor, Task, run_local

        tasks, out = [], {}
        for name, scenario_name, overrides in runs:
            if not _NAME_RE.match(name):
                raise ValueError(f"run name must be letters, digits, '_', '.', '-', got {name!r}")
            sc = scn.load(scenario_name, overrides)
            if name in self._done:
                if self._done[name][0] != sc:
                    raise ValueError(f"run name {name!r} already used for a different scenario")
                out[name] = self._done[name][1]
                continue
            run_dir = self.claim(f"runs/{name}")
            tasks.append(Task(run_id=name, scenario=sc, info={}, run_dir=str(run_dir), keep_result=True,
                              command=self.command))
        if len(tasks) > 1 and self.workers > 1:
            if self._executor is None:
                self._executor = Executor(workers=min(self.workers, len(tasks))).__enter__()
            finished = self._executor.run(tasks)
        else:
            finished = run_local(tasks)
        failed = []
        if self.progress and tasks:
            from tqdm import tqdm

            finished = tqdm(finished, total=len(tasks), desc=f"  {self.section} runs", unit="run", leave=False,
                            position=1)
        for task, row, result in finished:
            if row["status"] == "failed" or result is None:
                failed.append(f"{task.run_id}: {row.get('error', 'no result')}")
                continue
            self._done[task.run_id] = (task.scenario, result)
            out[task.run_id] = result
        if failed:
            raise RuntimeError("run failed: " + "; ".join(failed))
        return out

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


def build_report(out, only: list[str] | None = None, workers: int = 1, quick: bool = False,
                 on_section: Callable[[SectionOutcome], None] | None = None, overwrite: bool = False,
                 command: list[str] | None = None, started: float | None = None, progress: bool = False
                 ) -> tuple[list[SectionOutcome], float]:
    """Run the sections, write ``report.md``, ``report.html`` and ``provenance.json``; returns the outcomes
    and total wall time. A section that raises is reported as failed and the others still run.
    ``out``: a folder (checked by :func:`lab.core.outputs.prepare` before anything runs) or a prepared Output."""
    from lab.core.outputs import Output, prepare, writing
    from lab.core.provenance import collect
    from lab.results import write_json_atomic
    from lab.sweep.execute import one_line
    from lab.report import render

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
    ctx = Context(output, quick=quick, workers=workers, command=command, progress=progress)
    outcomes = []
    t_all = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(keys), unit="section", position=0, leave=False)
    try:
        for k in keys:
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
    total = time.perf_counter() - t_all
    meta = {"quick": quick, "workers": workers, "total_s": total, "generated": time.strftime("%Y-%m-%d %H:%M:%S")}
    for rel in ("report.md", "report.html", "provenance.json"):
        output.claim(rel)
    with writing(output.where):
        render.write(ctx.out, outcomes, meta)
        write_json_atomic(ctx.out / "provenance.json", collect(
            command, started, time.perf_counter() - t_all, sections={oc.section.key: round(oc.wall_s, 3)
                                                                      for oc in outcomes},
            failed=[oc.section.key for oc in outcomes if oc.error], quick=quick, workers=workers))
    output.close()
    return outcomes, total
