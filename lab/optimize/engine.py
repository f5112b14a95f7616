"""``lab optimize``'s loop: Optuna asks in the client, dask runs each trial as a task, the client tells.

**Storage.** Optuna's :class:`~optuna.storages.JournalStorage` on a journal file in the out folder
(``journal.log``): one JSON line per storage operation, appended and fsync'ed before Optuna goes on.
Only the client writes it (the workers run scenarios and return rows; they never see Optuna), and the
folder's lab lock (``.lab-lock``, an ``fcntl`` lock the kernel drops when its holder dies, even by
SIGKILL) keeps a second ``lab optimize`` out, so Optuna's own journal lock (a lock *file* a SIGKILL
leaves behind, then waited out for 30 s) is replaced by :class:`FolderLocked`. A SIGKILL in the middle
of an append leaves a last line without its newline; Optuna would read past it but fail on the next
append (the half line and the next one become one broken line), so :func:`repair_journal` cuts an
unterminated tail before the storage is opened: that operation was never acknowledged, so it did not
happen. Why not SQLite: it is as safe, but a journal is one text file a researcher can read and Optuna
replays it without a database.

**Exactly once.** A trial is told once, by number, from its row: ``rows/t<N>.json`` is written by the
worker (or by the client from the returned row, on a cluster without shared files) *before* the client
tells Optuna. On resume every trial the journal still holds as RUNNING (asked, never told) is either
told from its row (the run finished, the client died before telling) or run again with the same
parameters under the same number (the run never finished); a WAITING trial (the enqueued baseline) is
asked as usual. So the journal ends with the budget's trials, each in one final state, none duplicated,
and ``events.log`` shows which runs ran in which session. The budget counts finished trials (complete
or failed), so a study whose runs keep failing still ends.

**Size.** Each trial keeps one row (its metrics, ~2 kB), not its run folder: 10 000 trials (the limit)
are ~20 MB of rows and a journal of the same order. The best trials are written as scenario files and
re-run from those files at the end, to confirm they reproduce (same scenario, same seed → identical
metrics).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
import uuid
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

from lab.core.errors import LabError
from lab.results import write_json_atomic, write_text_atomic
from lab.optimize import results
from lab.optimize.results import run_id
from lab.optimize.study import Study
from lab.sweep import table
from lab.sweep.execute import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Executor,
    Task,
    land,
    make_row,
    one_line,
    run_shipped,
    run_task,
    write_failure,
)

log = logging.getLogger(__name__)

JOURNAL = "journal.log"
TABLE_EVERY_S = 2.0
HEADER = "# resolved study definition, written by `lab optimize`; `lab optimize study.toml --out <this folder>` resumes it\n"


# ------------------------------------------------------------------ storage


def repair_journal(path: Path) -> int:
    """Cut an unterminated last line (a SIGKILL mid-append) from Optuna's journal; returns the bytes cut."""
    path = Path(path)
    if not path.is_file():
        return 0
    size = path.stat().st_size
    if size == 0:
        return 0
    with open(path, "rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        # find the last newline (read backwards in blocks: a journal can be megabytes)
        pos, keep = size, 0
        while pos > 0:
            step = min(65536, pos)
            pos -= step
            fh.seek(pos)
            block = fh.read(step)
            i = block.rfind(b"\n")
            if i >= 0:
                keep = pos + i + 1
                break
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
    log.warning("%s: cut %d bytes of an operation that was being written when the study was killed", path, size - keep)
    return size - keep


def _journal_lock_class():
    from optuna.storages.journal._file import (
        BaseJournalFileLock,  # the documented lock_obj protocol
    )

    class FolderLocked(BaseJournalFileLock):
        """No lock file: this process holds the study folder's lab lock (:mod:`lab.writes`) throughout,
        so it is the journal's only writer."""

        def acquire(self) -> bool:
            return True

        def release(self) -> None:
            return None

    return FolderLocked


def open_storage(out: Path):
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    path = Path(out) / JOURNAL
    repair_journal(path)
    return JournalStorage(JournalFileBackend(str(path), lock_obj=_journal_lock_class()()))


def quiet_optuna() -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


CONSTRAINTS_KEY = "constraints"  # Optuna's system attribute for a trial's constraint values (a list: read by 4.x and 5.x)


def _constraints(frozen) -> list[float]:
    return list(frozen.system_attrs.get(CONSTRAINTS_KEY) or [])


def _sampler_reads_constraints() -> bool:
    """Optuna 5 samplers read a trial's constraints from the trial itself (``constraints_func`` is
    deprecated); Optuna 4 samplers only look at them when given a ``constraints_func``."""
    import optuna

    return hasattr(optuna.trial.Trial, "set_constraint")


def make_sampler(study: Study):
    import optuna

    cf = _constraints if study.constraints and not _sampler_reads_constraints() else None
    if study.sampler == "tpe":
        # constant_liar: trials in flight count as (pessimistic) results, so parallel workers are not all sent
        # to the same point; multivariate: the fields' interaction (α with ω) is modelled, not each alone.
        return optuna.samplers.TPESampler(seed=study.seed, constant_liar=True, multivariate=True,
                                          n_startup_trials=max(4, min(10, study.trials // 4)), constraints_func=cf)
    if study.sampler == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=study.seed, population_size=max(4, min(50, study.trials // 4)),
                                             constraints_func=cf)
    if study.sampler == "qmc":
        return optuna.samplers.QMCSampler(seed=study.seed, scramble=True)
    return optuna.samplers.RandomSampler(seed=study.seed)


def distributions(study: Study) -> dict:
    from optuna.distributions import FloatDistribution, IntDistribution

    return {p.key: (IntDistribution(p.low, p.high, log=p.log) if p.integer else
                    FloatDistribution(p.low, p.high, log=p.log)) for p in study.params}


# ------------------------------------------------------------------ pools: where trials run


class InlinePool:
    """Trials in this process, one at a time (the API and the tests: no cluster start-up)."""

    slots = 1
    scheduler = None

    def __init__(self):
        self.queue: list[Task] = []

    def submit(self, task: Task) -> None:
        self.queue.append(task)

    def next_done(self) -> tuple[Task, dict, object]:
        task = self.queue.pop(0)
        row, result, _ = run_task(task)
        return task, row, result

    def __len__(self) -> int:
        return len(self.queue)

    def cancel(self) -> None:
        self.queue.clear()

    def describe(self) -> str:
        return "this process"


class DaskPool:
    """Trials as tasks on an :class:`~lab.sweep.execute.Executor` (a LocalCluster or a scheduler), added as
    Optuna asks for them and collected as they finish (``distributed.as_completed``)."""

    def __init__(self, ex: Executor):
        from distributed import as_completed

        from lab.core.user_plugins import shipped as shipped_plugins

        self.plugins = shipped_plugins()  # a worker imports the client's user plugins before a task (as sweeps)
        self.ex = ex
        self.scheduler = ex.scheduler
        self.done = as_completed([], with_results=False)
        self.tasks: dict = {}
        info = ex.dask.scheduler_info(n_workers=-1)
        threads = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
        # One trial queued beyond the workers: a worker that finishes starts the next at once instead of
        # waiting for the client to tell, ask and submit (measured: 8 % of a 1-s trial idle without it).
        self.slots = threads + 1

    def submit(self, task: Task) -> None:
        # A cluster's workers see none of our paths: ship none; the client writes the row it gets back.
        shipped = replace(task, run_dir=None, row_file=None, events=None) if self.scheduler else task
        try:  # dask's own serialiser, as sweeps ship their tasks (a scenario may hold a plugin's classes)
            import cloudpickle as pickle
        except ImportError:  # pragma: no cover - distributed depends on it
            import pickle
        fut = self.ex.dask.submit(run_shipped, self.plugins, pickle.dumps(shipped),
                                    key=f"lab-trial-{task.run_id}-{task.session}", pure=False)
        self.tasks[fut.key] = (fut, task)
        self.done.add(fut)

    def next_done(self) -> tuple[Task, dict, object]:
        fut = next(self.done)
        _, task = self.tasks.pop(fut.key)
        try:
            row, result, _ = fut.result()
            if self.scheduler:
                land(task, row, None)
        except Exception as exc:  # the worker died (KilledWorker after dask's retries): a failed trial
            if write_failure(exc):
                raise
            row, result = make_row(task, "failed", one_line(exc), {}, 0.0), None
            if task.row_file:
                write_json_atomic(Path(task.row_file), row)
        fut.release()
        return task, row, result

    def __len__(self) -> int:
        return len(self.tasks)

    def cancel(self) -> None:
        pending = [f for f, _ in self.tasks.values() if not f.done()]
        if pending:
            try:
                self.ex.dask.cancel(pending)
            except Exception as exc:  # noqa: BLE001 - comms may be gone after Ctrl-C
                log.debug("cancel: %s", exc)
        self.tasks.clear()

    def describe(self) -> str:
        return self.ex.describe()


# ------------------------------------------------------------------ the study folder


def same_definition(out: Path, study: Study, where: str) -> None:
    """A study folder is resumed only by the same definition (the budget and the description may change:
    a larger budget continues the same study). Anything else is refused, naming study.toml."""
    import tomllib

    import tomli_w

    p = out / "study.toml"
    if not p.is_file():
        return
    try:
        old = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LabError(f"{where}/study.toml", f"is damaged ({one_line(exc)}), so the lab cannot tell which study "
                                              "this folder holds; choose another folder") from None
    new = tomllib.loads(tomli_w.dumps(study.to_dict()))
    for d in (old, new):
        d.pop("description", None)
        d.pop("trials", None)
    if old != new:
        diff = _differences(old, new)
        keys = ", ".join(dict.fromkeys(k.split(".")[0] for k, _, _ in diff))
        values = [(k, a, b) for k, a, b in diff if a is not None and b is not None and not isinstance(a, (dict, list))]
        shown = "".join(f"; {k}: {_short(a)} in the folder, {_short(b)} now" for k, a, b in values[:2])
        paths = ""
        if all(isinstance(a, str) and isinstance(b, str) and a != b and Path(a).name == Path(b).name
               for _, a, b in diff):
            # the common case: the same study file made from another checkout or folder, whose resolved
            # paths differ; say so, since the values alone look alike at a glance
            paths = " (only the paths differ: the folder was made from another checkout or location)"
        raise LabError(f"{where}/study.toml", f"holds a different definition of the study {study.name!r} "
                                              f"({keys} differ{shown}){paths}; resume it with `lab optimize {p} --out "
                                              f"{out}`, or run the new definition into another folder")


def _differences(old, new, prefix: str = "") -> list[tuple[str, object, object]]:
    """The dotted keys at which two definitions differ, with both values (missing: None), in key order."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            out += _differences(old.get(k), new.get(k), f"{prefix}.{k}" if prefix else str(k))
        return out
    return [] if old == new else [(prefix or "definition", old, new)]


def _short(v: object, n: int = 60) -> str:
    s = "missing" if v is None else repr(v)
    # cut the middle: a path differs at its start (the checkout) and is recognised by its end (the file)
    return s if len(s) <= n else s[:n // 2] + "…" + s[-(n // 2 - 1):]


def write_definition(out: Path, study: Study) -> None:
    import tomli_w

    write_text_atomic(out / "study.toml", HEADER + tomli_w.dumps(study.to_dict()))


def _previous_provenance(out: Path) -> list:
    from lab.sweep.execute import _previous_provenance as prev

    return prev(out)


@dataclass
class Tally:
    done: int = 0
    failed: int = 0


def run_study(study: Study, output, workers: int | None = None, scheduler: str | None = None, quiet: bool = False,
              progress: bool | None = None, command: list[str] | None = None, inline: bool = False,
              verify: bool = True) -> int:
    """Run the study's trials not yet finished in ``output`` (a prepared :class:`lab.outputs.Output`, or a
    folder); returns the exit code: 0, 1 if every trial failed or a best trial did not reproduce, 130 when
    interrupted. ``inline``: run the trials in this process (no cluster). ``verify``: re-run the best
    trials from their scenario files."""
    from lab.core.outputs import Output, prepare

    started = time.time()
    output = output if isinstance(output, Output) else prepare(output, "optimize", name=study.name)
    output.acquire()  # a second `lab optimize` on this folder is refused now
    try:
        return _run(study, output, started, workers, scheduler, quiet, progress, command, inline, verify)
    finally:
        output.release()


def _finished_before(out: Path) -> int:
    """Trials already finished in the folder's journal (0 for a new folder), read without writing."""
    if not (out / JOURNAL).is_file():
        return 0
    import optuna

    storage = open_storage(out)
    try:
        s = optuna.load_study(study_name=None, storage=storage) if len(storage.get_all_studies()) == 1 else None
    except Exception:  # noqa: BLE001 - a journal of another study: same_definition refused it already
        return 0
    if s is None:
        return 0
    fin = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
    return len(s.get_trials(deepcopy=False, states=fin))


def _run(study, output, started, workers, scheduler, quiet, progress, command, inline, verify) -> int:
    import optuna

    from lab.core.outputs import KINDS, writing
    from lab.core.provenance import collect

    quiet_optuna()
    out = Path(output.path).resolve()
    same_definition(out, study, output.where)
    before = _finished_before(out)
    left = max(0, study.trials - before)
    session = uuid.uuid4().hex[:8]
    previous = _previous_provenance(out)
    t0 = time.perf_counter()
    if not quiet:
        print(f"study {study.name}: {study.trials} trials, {before} already finished, {left} to run → {out}",
              file=sys.stderr)

    def provenance(wall: float | None, ran: int, loop_s: float | None = None) -> None:
        # loop_s: from the first trial asked to the last told (without the cluster's start-up and the
        # best trials' re-runs): ran / loop_s is the study's throughput
        write_json_atomic(out / "provenance.json", collect(command, started, wall, session=session,
                                                           trials=study.trials, ran=ran, loop_s=loop_s,
                                                           previous=previous))

    # Connect (or start the cluster) before writing anything: an unreachable scheduler leaves no folder.
    ex = None
    if not inline and (left or verify):
        ex = Executor(workers or max(1, min(os.cpu_count() or 1, max(left, 1))), scheduler).__enter__()
    interrupted, ran = False, 0
    try:
        output.open(claim=KINDS["optimize"])
        with writing(output.where):
            write_definition(out, study)
            (out / "rows").mkdir(exist_ok=True)
            provenance(None, 0)
            storage = open_storage(out)
        ostudy = optuna.create_study(storage=storage, study_name=study.name, directions=study.directions,
                                     sampler=make_sampler(study), load_if_exists=True)
        if study.baseline is not None and not ostudy.get_trials(deepcopy=False):
            ostudy.enqueue_trial(dict(study.baseline), user_attrs={"baseline": True})
        pool = InlinePool() if ex is None else DaskPool(ex)
        loop = Loop(study, ostudy, storage, pool, out, session, command, output.where)
        t_loop = time.perf_counter()
        try:
            interrupted = loop.run(progress=_progress_on(progress, quiet))
        finally:
            ran, loop_s = loop.ran, time.perf_counter() - t_loop
        with writing(output.where):
            df = results.table(study, ostudy, out)
            results.write_tables(out, df)
            results.plots(study, ostudy, df, out)
            best_ok = True
            if not interrupted:
                best_ok = results.write_best(study, df, out, pool if verify else None, session, quiet=quiet)
            provenance(time.perf_counter() - t0, ran, loop_s)
    finally:
        if ex is not None:
            ex.close()
    output.close()
    if not quiet:
        results.summary(study, df, out, time.perf_counter() - t0)
    if interrupted:
        print(f"interrupted: resume with  lab optimize {out / 'study.toml'} --out {out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    complete = int((df["state"] == "COMPLETE").sum()) if len(df) else 0
    return EXIT_OK if complete and best_ok else EXIT_FAILED


def _progress_on(progress: bool | None, quiet: bool) -> bool:
    if progress is not None:
        return progress
    return not quiet and sys.stdout.isatty() and sys.stderr.isatty()


class Loop:
    """Keep the pool busy with asked trials until the budget's trials are told; see the module doc."""

    def __init__(self, study: Study, ostudy, storage, pool, out: Path, session: str, command, where: str):
        self.study, self.ostudy, self.storage, self.pool = study, ostudy, storage, pool
        self.out, self.session, self.command, self.where = out, session, tuple(command or ()), where
        self.tally = Tally()
        self.ran = 0
        self.dists = distributions(study)

    # ---- tasks
    def task(self, number: int, params: dict) -> Task:
        from lab.core import scenario as scn

        rid = run_id(number)
        sc = scn.load(self.study.scenario, self.study.overrides(params))
        return Task(run_id=rid, scenario=sc, info={"trial": number, **params},
                    row_file=str(table.row_path(self.out, rid)), events=str(self.out / "events.log"),
                    session=self.session, command=self.command)

    def submit(self, number: int, params: dict) -> None:
        self.pool.submit(self.task(number, params))
        self.ran += 1

    # ---- telling
    def tell(self, number: int, row: dict) -> None:
        import optuna

        frozen = self.ostudy.get_trials(deepcopy=False)[number]
        assert frozen.number == number
        if frozen.state != optuna.trial.TrialState.RUNNING:  # told already (cannot happen: checked, not assumed)
            log.warning("trial %d is %s already; not told again", number, frozen.state.name)
            return
        ev = results.evaluate(self.study, row)
        self.check_metrics(row)
        tid = frozen._trial_id
        self.storage.set_trial_user_attr(tid, "status", row.get("status", "failed"))
        if ev.error:
            self.storage.set_trial_user_attr(tid, "error", ev.error)
        if ev.values is None:
            self.ostudy.tell(number, state=optuna.trial.TrialState.FAIL)
            self.tally.failed += 1
        else:
            if ev.constraints:
                self.storage.set_trial_system_attr(tid, CONSTRAINTS_KEY, [float(c) for c in ev.constraints])
            self.ostudy.tell(number, ev.values)
        self.tally.done += 1

    def check_metrics(self, row: dict) -> None:
        """A metric the study names that the scenario's runs do not have is the study's mistake: say so
        once the first run has ended "ok" (before that, the lab cannot know the run's metrics)."""
        if row.get("status") != "ok":
            return
        names = [(f"objective[{i}].metric", o.metric) for i, o in enumerate(self.study.objectives)]
        names += [(f"objective[{i}].per", o.per) for i, o in enumerate(self.study.objectives) if o.per]
        names += [(f"constraint[{i}].metric", c.metric) for i, c in enumerate(self.study.constraints)]
        skip = {"run_id", "trial", "status", "error", "task_wall_s", "worker", *self.dists}
        have = sorted(k for k in row if k not in skip)
        for field, m in names:
            if m not in row:
                raise LabError(f"{self.where}/study.toml:{field}",
                               f"the scenario's runs have no metric {m!r}; they have: {', '.join(have)} (run the "
                               "corrected study into another folder)")

    # ---- the loop
    def resume(self) -> None:
        """Trials asked and never told by an earlier session: told from their row, or run again."""
        import optuna

        running = self.ostudy.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
        rows = table.read_rows(self.out, [run_id(t.number) for t in running])
        for t in running:
            row = rows.get(run_id(t.number))
            if row is not None:
                log.info("trial %d finished before the interruption: told from its row", t.number)
                self.tell(t.number, row)
            else:
                log.info("trial %d was interrupted: run again with the same parameters", t.number)
                self.submit(t.number, self.complete(t))

    def complete(self, frozen) -> dict:
        """The trial's parameters, completing any the journal lacks: ``ask`` records a trial and then each
        parameter as its own operation, so a kill in between leaves a trial with some or none of them.
        Such a trial never ran (it is submitted only once asked in full); suggesting the missing ones on
        the same trial asks the sampler for them as ``ask`` would have, and the ones recorded stay."""
        import optuna

        if set(frozen.params) == set(self.dists):
            return dict(frozen.params)
        trial = optuna.trial.Trial(self.ostudy, frozen._trial_id)
        out = {}
        for p in self.study.params:
            if p.integer:
                out[p.key] = trial.suggest_int(p.key, p.low, p.high, log=p.log)
            else:
                out[p.key] = trial.suggest_float(p.key, p.low, p.high, log=p.log)
        log.info("trial %d was asked only in part before the interruption: parameters completed", frozen.number)
        return out

    def finished(self) -> int:
        import optuna

        fin = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
        return len(self.ostudy.get_trials(deepcopy=False, states=fin))

    def run(self, progress: bool) -> bool:
        from tqdm import tqdm

        budget = self.study.trials
        start = self.finished()  # before resume(): the trials it tells from their rows count in self.tally
        self.resume()
        bar = tqdm(total=budget, initial=min(start + self.tally.done, budget), unit="trial", desc=self.study.name, file=sys.stderr,
                   disable=not progress, dynamic_ncols=True)
        old_term = signal.signal(signal.SIGTERM, _terminate) if _main_thread() else None
        interrupted = False
        last = time.monotonic()
        try:
            while True:
                done = start + self.tally.done
                while len(self.pool) < self.pool.slots and done + len(self.pool) < budget:
                    trial = self.ostudy.ask(self.dists)
                    self.submit(trial.number, dict(trial.params))
                if not len(self.pool):
                    break
                task, row, _ = self.pool.next_done()
                self.tell(int(task.info["trial"]), row)
                bar.update(1)
                bar.set_postfix(done=start + self.tally.done, failed=self.tally.failed,
                                left=max(0, budget - start - self.tally.done), refresh=False)
                if time.monotonic() - last > TABLE_EVERY_S:
                    results.write_tables(self.out, results.table(self.study, self.ostudy, self.out))
                    last = time.monotonic()
        except KeyboardInterrupt:
            interrupted = True
            self.pool.cancel()
        finally:
            if old_term is not None:
                signal.signal(signal.SIGTERM, old_term)
            bar.close()
        return interrupted


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _terminate(signum, frame):  # `kill` (SIGTERM) stops a study as cleanly as Ctrl-C
    raise KeyboardInterrupt


__all__ = ["JOURNAL", "DaskPool", "InlinePool", "Loop", "open_storage", "repair_journal", "run_id", "run_study",
           "same_definition"]
