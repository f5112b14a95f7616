"""Running many scenarios: one run per dask task, collected as they finish.

:func:`run_task` is what a worker executes: run one scenario, write its folder atomically, write its
row file, and return the row (plus the :class:`~lab.core.runner.RunResult` when asked). The row is written
by the worker, right after the run folder, so a run that has finished is never run again on resume,
even if the client was interrupted before hearing about it.

:class:`Executor` is the same code path for a local cluster (``LocalCluster(n_workers=N,
threads_per_worker=1, processes=True)``: one process per run in flight, since PyBullet and the step
loop are single-threaded and hold the GIL) and for a running scheduler (``Client(address)``).
:func:`run_sweep` is the ``lab sweep`` loop on top: resume, progress bar, tables, Ctrl-C.

**On a cluster** (``--scheduler``) the workers share no file system with the client, as on most
clusters: the task shipped to a worker carries no path of the client's (``ship_files``); the worker
writes the run folder into a private temporary folder, returns its files as bytes with the row, and
the client writes them under ``--out`` exactly as a local worker would (atomically, row file last,
so a resumed sweep skips it). A worker that dies mid-run never returned anything: dask runs the task
again elsewhere, and nothing half-written exists on the client's side.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import threading
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lab.core.errors import LabError
from lab.core.outputs import WriteError
from lab.results import write_json_atomic, write_text_atomic
from lab.core.scenario import Scenario
from lab.sweep import table

log = logging.getLogger(__name__)

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
TABLE_EVERY_S = 2.0  # rebuild the tables at most this often while running (always at the end)


@dataclass(frozen=True)
class Task:
    """One run, as shipped to a worker. Paths are absolute: a worker's cwd is not the client's."""

    run_id: str
    scenario: Scenario
    info: dict  # columns identifying the run in its row: axis values, seed
    run_dir: str | None = None  # write the run folder here (atomically)
    row_file: str | None = None  # write the row here (atomically)
    events: str | None = None  # append "start"/"done" lines here (resume audit)
    session: str = ""
    plots: bool = False
    keep_result: bool = False  # return the RunResult (series and all) to the client
    command: tuple = ()  # the command line that asked for the run, for its provenance.json
    ship_files: bool = False  # worker returns the run folder's files instead of writing run_dir (no shared FS)


def run_shipped(plugins: tuple, blob: bytes):
    """Worker side of :meth:`Executor.run`: import the client's user plugins (lab.core.user_plugins), then
    unpickle the task (its scenario holds instances of the plugins' classes) and run it."""
    import pickle

    from lab.core.user_plugins import load_shipped

    load_shipped(plugins)
    return run_task(pickle.loads(blob))


# The file system's refusals that stop a sweep (every further run would fail to be written as well).
STOP_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EFBIG", "EIO")
                        if hasattr(errno, n))


def write_failure(exc: BaseException) -> bool:
    """True if ``exc`` is the file system refusing to write (no space, read-only, …): the sweep stops."""
    if isinstance(exc, WriteError):
        return exc.errno in STOP_ERRNOS or exc.errno is None
    return isinstance(exc, OSError) and exc.errno in STOP_ERRNOS


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _event(path: str | None, session: str, what: str, run_id: str) -> None:
    """Append one line with O_APPEND: lines from concurrent workers never interleave."""
    if not path:
        return
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {session} {what} {run_id} pid={os.getpid()}\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def make_row(task: Task, status: str, error: str, metrics: dict, wall: float) -> dict:
    row = {"run_id": task.run_id, **task.info, **metrics}
    row.update(status=status, error=error, task_wall_s=float(wall), worker=f"{socket.gethostname()}:{os.getpid()}")
    return row


def run_task(task: Task):
    """Worker side. Returns ``(row, result_or_None, files_or_None)``; never raises for a failing run:
    the failure is the row's ``status = "failed"`` with a one-line ``error``, and the sweep carries on.
    ``files`` (``ship_files`` tasks only): the run folder as ``{relative path: bytes}``."""
    import tempfile

    from lab.results import write_run
    from lab.core.runner import run_scenario

    started, t0 = time.time(), time.perf_counter()
    _event(task.events, task.session, "start", task.run_id)
    result = files = None
    try:
        from lab.replay.capture import capture_for

        result = run_scenario(task.scenario, observers=capture_for(task.scenario))  # + replay.npz (lab replay)
        if task.run_dir or task.ship_files:
            from lab.core.provenance import collect

            prov = collect(task.command or None, started, time.perf_counter() - t0, run_id=task.run_id)
            if task.ship_files:
                with tempfile.TemporaryDirectory(prefix="lab-run-") as tmp:
                    folder = write_run(Path(tmp) / "run", result, plots=task.plots, provenance=prov)
                    files = folder_files(folder, "run")
            else:
                # The run folder lives inside the sweep's (or report's) own folder: a folder left there by
                # an earlier attempt is the lab's and is replaced; anything else there is refused.
                write_run(Path(task.run_dir), result, plots=task.plots, overwrite=True, provenance=prov)
        status, error, metrics = result.status, result.error, dict(result.metrics)
    except Exception as exc:  # a crash in one run is data, not the end of the sweep
        if write_failure(exc):  # ... but a full disk is the end: every run after it would fail the same way
            raise
        log.debug("run %s failed", task.run_id, exc_info=True)
        status, error, metrics, files = "failed", one_line(exc), {}, None
    row = make_row(task, status, error, metrics, time.perf_counter() - t0)
    if task.row_file:
        write_json_atomic(Path(task.row_file), row)
    _event(task.events, task.session, "done", task.run_id)
    return row, (result if task.keep_result else None), files


def folder_files(folder: Path, kind: str) -> dict[str, bytes]:
    """Every file under ``folder`` as ``{relative posix path: bytes}``, without the lab's marker (the
    client's own :class:`lab.core.outputs.Output` writes that)."""
    from lab.core.outputs import marker_path

    marker = marker_path(folder, kind)
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p != marker}


def land(task: Task, row: dict, files: dict[str, bytes] | None) -> None:
    """Client side of a ``ship_files`` task: write the returned run folder to ``task.run_dir`` (one
    atomic replace, as :func:`lab.results.write_run` does on a worker), then the row file (last: a
    row on disk means the run is complete), then the event line."""
    from lab.core.outputs import prepare

    if files is not None and task.run_dir:
        def build(tmp: Path) -> None:
            for rel, data in files.items():
                path = tmp / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)

        prepare(Path(task.run_dir), "run", overwrite=True).write_all(build)
    if task.row_file:
        write_json_atomic(Path(task.row_file), row)
    _event(task.events, task.session, "done", task.run_id)


def _warm_up() -> None:
    """Import the engine once per worker before the first task (so run times are comparable) and
    keep the runs' own warnings (a diverged run) out of the terminal: the rows carry them."""
    import warnings

    from lab.core import runner  # noqa: F401

    warnings.filterwarnings("ignore")
    logging.getLogger("lab").setLevel(logging.ERROR)


def _local_worker_setup() -> None:
    """Worker processes of *our* LocalCluster ignore SIGINT: a terminal's Ctrl-C reaches the whole
    process group, and the client, not each worker, should handle it (cancel, close, keep rows).
    Otherwise every worker prints a KeyboardInterrupt traceback on its way down."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _warm_up()


WORKER_WARNINGS = "ignore::DeprecationWarning,ignore::FutureWarning,ignore::UserWarning"


@contextmanager
def worker_environment():
    """Worker processes inherit the environment when they are spawned: start them with library
    warnings off (they would interleave with the progress bar), then restore ours."""
    old = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = WORKER_WARNINGS if old is None else f"{old},{WORKER_WARNINGS}"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = old


def quiet_dask() -> None:
    """Readable output: nothing from distributed's loggers in this process (its shutdown after Ctrl-C
    logs comm errors that are expected); the workers are silenced by ``silence_logs``. Importing
    distributed configures its loggers, so import it first, then turn them down."""
    import distributed  # noqa: F401

    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker",
                 "distributed.core", "distributed.comm", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


@contextmanager
def sigint_deferred():
    """Hold Ctrl-C (and SIGTERM) while the block runs and deliver it as KeyboardInterrupt right after:
    distributed's LocalCluster start-up and shutdown leave threads and sockets half-made when
    interrupted midway (a traceback from its event loop). Only the main thread can hold signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []

    def hold(signum, frame):
        caught.append(signum)

    old = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if caught:
        raise KeyboardInterrupt


class Executor:
    """A dask client on a fresh LocalCluster (``workers`` processes) or on ``scheduler``'s cluster."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None):
        self.workers = workers
        self.scheduler = scheduler
        self.cluster = None
        self.client = None

    @property
    def dask(self):
        """The dask ``Client`` (None before start): what other tools (lab.optimize) submit through."""
        return self.client

    def __enter__(self) -> Executor:
        try:
            with sigint_deferred():
                self._open()
        except BaseException:  # Ctrl-C or a failure half-way through start-up: leave no processes behind
            self.close()
            raise
        return self

    def _open(self) -> None:
        quiet_dask()
        from distributed import Client, LocalCluster

        if self.scheduler:
            from lab.core.errors import LabError

            try:
                self.client = Client(self.scheduler, timeout="10s")
            except OSError as exc:
                raise LabError("--scheduler", f"cannot reach {self.scheduler}: {exc}") from None
        else:
            # The scheduler always serves HTTP; dashboard_address=None still means port 8787, and when that is
            # taken (a notebook's cluster, another sweep) distributed warns on our stderr. A free port on
            # localhost instead: nothing to warn about, nothing exposed.
            with worker_environment():
                self.cluster = LocalCluster(n_workers=self.workers or 1, threads_per_worker=1, processes=True,
                                            dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL)
            self.client = Client(self.cluster)
        # On a scheduler we do not own, leave the workers' signal handling alone.
        self.client.run(_warm_up if self.scheduler else _local_worker_setup)

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with sigint_deferred():
            self._close()

    def _close(self) -> None:
        # Runs still queued were cancelled by run(); the client goes first, then the cluster we started.
        for obj in (self.client, self.cluster):
            if obj is not None:
                try:
                    obj.close(timeout=20)
                except Exception as exc:  # closing after Ctrl-C may find comms already gone
                    log.debug("close %s: %s", type(obj).__name__, exc)
        self.client = self.cluster = None

    def describe(self) -> str:
        n = len(self.client.scheduler_info(n_workers=-1).get("workers", {})) if self.client else 0
        where = self.scheduler or "LocalCluster"
        return f"{where} with {n} worker{'s' * (n != 1)}"

    def submit(self, task: Task, fn=None, priority: int = 0):
        """One task in flight without waiting: the dask future of ``fn(plugins, blob)`` (default
        :func:`run_shipped`, whose result is ``(row, result, files)``), as :meth:`run` ships it. For a caller
        that keeps its own futures (``lab report`` starts every section's runs first); higher ``priority``
        starts first. Local clusters only (the run folder is written by the worker)."""
        try:
            import cloudpickle as pickle
        except ImportError:  # pragma: no cover - distributed depends on it
            import pickle

        from lab.core.user_plugins import shipped as shipped_plugins

        if self.scheduler:
            raise ValueError("Executor.submit: local clusters only (use run() on a scheduler)")
        return self.client.submit(fn or run_shipped, shipped_plugins(), pickle.dumps(task),
                                  key=f"lab-run-{task.run_id}-{task.session}-{uuid.uuid4().hex[:6]}", pure=False,
                                  priority=priority)

    def submit_call(self, fn, args: tuple, priority: int = 0):
        """``fn(*args)`` in flight on a worker without waiting: its dask future (``lab report``'s model calls,
        pure deterministic functions: ``lab.report.core``). Higher ``priority`` starts first. The report reaches
        the workers through this method, not the dask client itself (tests/core/test_engine_access.py reads
        any ``.client`` outside a class's own as an engine access)."""
        return self.client.submit(fn, *args, pure=False, priority=priority)

    def run(self, tasks: list[Task]) -> Iterator[tuple[Task, dict, object]]:
        """Submit every task; yield ``(task, row, result)`` in the order they finish. A task whose
        worker died (KilledWorker after dask's retries) comes back as a failed row."""
        from dataclasses import replace

        from distributed import as_completed

        try:  # dask's own serialiser (by value where plain pickle cannot: a trial's local hook)
            import cloudpickle as pickle
        except ImportError:  # pragma: no cover - distributed depends on it
            import pickle

        from lab.core.user_plugins import shipped as shipped_plugins

        plugins = shipped_plugins()
        futures = {}
        try:
            for t in tasks:
                # A cluster's workers cannot see our paths: ship none, get the files back (see module doc).
                shipped = (replace(t, run_dir=None, row_file=None, events=None, ship_files=bool(t.run_dir))
                           if self.scheduler else t)
                # The task goes pickled beside the client's plugin list: a worker imports the plugins first.
                fut = self.client.submit(run_shipped, plugins, pickle.dumps(shipped),
                                         key=f"lab-run-{t.run_id}-{t.session}", pure=False)
                futures[fut.key] = (fut, t)
            for fut in as_completed([f for f, _ in futures.values()]):
                task = futures[fut.key][1]
                try:
                    row, result, files = fut.result()
                    if self.scheduler:
                        land(task, row, files)
                except Exception as exc:
                    if write_failure(exc):
                        raise
                    row, result = make_row(task, "failed", one_line(exc), {}, 0.0), None
                    if task.row_file:
                        write_json_atomic(Path(task.row_file), row)
                fut.release()
                yield task, row, result
        finally:
            pending = [f for f, _ in futures.values() if not f.done()]
            if pending and self.client is not None:
                try:
                    self.client.cancel(pending)
                except Exception as exc:
                    log.debug("cancel: %s", exc)


def run_local(tasks: list[Task]) -> Iterator[tuple[Task, dict, object]]:
    """The same tasks in this process, one after the other (no cluster start-up for small jobs)."""
    for t in tasks:
        row, result, _ = run_task(t)
        yield t, row, result


# ------------------------------------------------------------------ lab sweep


def _status_counts(rows: dict) -> dict:
    counts = {"ok": 0, "diverged": 0, "unstable": 0, "failed": 0}
    for r in rows.values():
        counts[r.get("status", "failed")] = counts.get(r.get("status", "failed"), 0) + 1
    return counts


def no_links_out(out: Path, rels: list[str], where: str) -> None:
    """Refuse, before anything is written, a resumed sweep folder in which an entry the sweep writes
    through (``rows/``, ``runs/``, a run's folder, ``events.log``, which is appended to) is a symlink
    leading outside the folder: the lab writes only inside its own output."""
    real_out = os.path.realpath(out)
    for rel in dict.fromkeys(rels):
        p = Path(out) / rel
        if not os.path.islink(p) and not os.path.islink(p.parent):
            continue
        target = os.path.realpath(p)
        if target != real_out and not target.startswith(real_out + os.sep):
            raise LabError(f"{where}/{rel}", f"is a symlink leading outside the sweep's folder (to {target}); the lab "
                                             "writes only inside its own output: remove the link, then resume")


def _remove_partials(runs: Path) -> None:
    """A worker killed while writing leaves its private temporary run folder (the write protocol,
    :mod:`lab.core.writes`); its pid is gone, so it is debris. Older versions' ``.<run>.*.partial`` too
    (no other process writes here: the sweep's folder is locked)."""
    import shutil

    from lab.core.writes import clean_stale

    if runs.is_dir():
        clean_stale(runs)
        for p in runs.glob(".*.partial"):
            shutil.rmtree(p, ignore_errors=True)


def write_definition(out: Path, sweep, specs) -> None:
    import tomli_w

    write_text_atomic(out / "sweep.toml", "# resolved sweep definition, written by `lab sweep`; "
                      "`lab sweep sweep.toml --out <this folder>` resumes it\n" + tomli_w.dumps(sweep.to_dict()))
    write_json_atomic(out / "runs.json", [{"run_id": s.run_id, "index": s.index, "seed": s.seed, "point": s.point,
                                           "overrides": s.overrides} for s in specs])


def _previous_provenance(out: Path) -> list:
    """A resumed sweep keeps the provenance of the sessions before this one (newest last)."""
    import json

    p = out / "provenance.json"
    try:
        old = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(old, dict):
        return []
    earlier = old.pop("previous", [])
    return [*(earlier if isinstance(earlier, list) else []), old]


def run_sweep(sweep, specs, scenarios, out, workers: int | None = None, scheduler: str | None = None,
              retry_failed: bool = False, progress: bool | None = None, command: list[str] | None = None) -> int:
    """Run the runs not yet finished in ``out``; returns the exit code (0, 1 if a run failed, 130).

    ``out``: a folder, checked by :func:`lab.core.outputs.prepare` (new, empty, or this sweep's own folder,
    which is resumed), or an already prepared Output. Writes provenance.json beside the tables.
    Holds the folder's lock (:mod:`lab.core.writes`) throughout: a second process is refused at once."""
    from lab.core.outputs import Output, prepare

    started = time.time()
    output = out if isinstance(out, Output) else prepare(out, "sweep", name=sweep.name)
    output.acquire()  # a second `lab sweep` on this folder is refused now, before it runs anything
    try:
        return _run_sweep(sweep, specs, scenarios, output, started, workers, scheduler, retry_failed, progress,
                          command)
    finally:
        output.release()


def same_definition(out: Path, sweep, where: str) -> None:
    """A sweep folder is resumed only by the same definition: a sweep of the same name whose axes,
    base or settings changed would mix its runs with the earlier ones. Refused, naming sweep.toml."""
    import tomllib

    import tomli_w

    p = out / "sweep.toml"
    if not p.is_file():
        return
    try:
        old = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LabError(f"{where}/sweep.toml", f"is damaged ({one_line(exc)}), so the lab cannot tell which sweep "
                                              "this folder holds; choose another folder") from None
    new = tomllib.loads(tomli_w.dumps(sweep.to_dict()))
    old.pop("description", None)
    new.pop("description", None)
    if old != new:
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise LabError(f"{where}/sweep.toml", f"holds a different definition of the sweep {sweep.name!r} ({', '.join(diff)} "
                                              f"differ); resume it with `lab sweep {p} --out {out}`, or run the "
                                              "new definition into another folder")


def _run_sweep(sweep, specs, scenarios, output, started, workers, scheduler, retry_failed, progress, command) -> int:
    from lab.core.outputs import KINDS, writing
    from lab.core.provenance import collect

    out = Path(output.path).resolve()
    same_definition(out, sweep, output.where)
    ids = [s.run_id for s in specs]
    no_links_out(out, ["rows", "runs", "events.log", *KINDS["sweep"], *(f"runs/{i}" for i in ids)], output.where)
    rows = table.read_rows(out, ids)
    if retry_failed:
        rows = {k: r for k, r in rows.items() if r.get("status") == "ok"}
    todo = [(s, sc) for s, sc in zip(specs, scenarios) if s.run_id not in rows]
    print(f"sweep {sweep.name}: {len(specs)} runs, {len(specs) - len(todo)} already done, {len(todo)} to run → {out}",
          file=sys.stderr)
    t0 = time.perf_counter()
    previous = _previous_provenance(out)
    session = uuid.uuid4().hex[:8]

    def provenance(wall: float | None) -> None:
        write_json_atomic(out / "provenance.json", collect(command, started, wall, session=session,
                                                           runs=len(specs), ran=len(todo), previous=previous))

    stopped = None  # the file system's refusal that stopped the sweep
    # Connect (or start the cluster) before writing anything: an unreachable scheduler leaves no folder.
    ex = Executor(workers or max(1, min(os.cpu_count() or 1, len(todo))), scheduler).__enter__() if todo else None
    try:
        output.open(claim=KINDS["sweep"])
        with writing(output.where):
            write_definition(out, sweep, specs)
            (out / "rows").mkdir(exist_ok=True)
            _remove_partials(out / "runs")
            provenance(None)
        tasks = [Task(run_id=s.run_id, scenario=sc, info={"seed": s.seed, **s.point},
                      run_dir=str(out / "runs" / s.run_id), row_file=str(table.row_path(out, s.run_id)),
                      events=str(out / "events.log"), session=session, command=tuple(command or ()))
                 for s, sc in todo]
        try:
            interrupted = _collect(ex, tasks, rows, sweep, specs, out, progress, output.where) if ex else False
        except Exception as exc:
            if not write_failure(exc):
                raise
            stopped = exc
    finally:
        if ex is not None:
            ex.close()
    # Last: after the close, so rows that workers finished while we were stopping are in the tables too.
    rows.update(table.read_rows(out, [i for i in ids if i not in rows]))
    if stopped is not None:
        _stop_on_write_failure(out, rows, ids, sweep, specs, output, stopped)
    with writing(output.where):
        table.write_tables(out, [rows[i] for i in ids if i in rows], [a.key for a in sweep.axes])
        provenance(time.perf_counter() - t0)
    output.close()
    c = _status_counts(rows)
    print(f"{len(rows)}/{len(specs)} runs finished ({c['ok']} ok, {c['diverged']} diverged, {c['unstable']} unstable, {c['failed']} failed) "
          f"in {time.perf_counter() - t0:.1f} s; results.parquet, results.csv in {out}/")
    if interrupted:
        print(f"interrupted: resume with  lab sweep {out / 'sweep.toml'} --out {out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    for r in rows.values():
        if r.get("status") == "failed":
            print(f"  failed {r['run_id']}: {r.get('error', '')}", file=sys.stderr)
    return EXIT_FAILED if c["failed"] else EXIT_OK


def _stop_on_write_failure(out: Path, rows: dict, ids: list, sweep, specs, output, exc: BaseException) -> None:
    """The file system refused a write (no space): the sweep stops with one error line. The tables are
    rebuilt from the rows on disk if they still can be; if not, they are removed, so no table stays
    that disagrees with the rows (a resume rebuilds them). Every finished run's row is kept."""
    from lab.core.outputs import reason

    done = [rows[i] for i in ids if i in rows]
    try:
        table.write_tables(out, done, [a.key for a in sweep.axes])
        tables = "results.csv and results.parquet hold them"
    except Exception as exc2:  # noqa: BLE001 - no space for the tables either
        log.debug("tables: %s", exc2)
        for name in ("results.csv", "results.parquet"):
            try:
                (out / name).unlink(missing_ok=True)
            except OSError:
                pass
        tables = "the tables were removed and are rebuilt on resume"
    try:
        output.close()
    except Exception:  # noqa: BLE001 - the marker lists the sweep's names from the start already
        output.release()
    why = exc.what.rpartition(": ")[2] if isinstance(exc, LabError) else reason(exc)
    raise LabError(output.where, f"cannot write: {why}; the sweep stopped with {len(done)} of {len(specs)} runs "
                                 f"finished ({tables}); free space and resume with "
                                 f"`lab sweep {out / 'sweep.toml'} --out {out}`")


def _collect(ex: Executor, tasks: list[Task], rows: dict, sweep, specs, out: Path, progress: bool | None,
             where: str = "--out") -> bool:
    """Gather finished runs into ``rows`` with a progress bar, rebuilding the tables every few
    seconds; returns True if interrupted (Ctrl-C): finished rows are kept."""
    from tqdm import tqdm

    ids = [s.run_id for s in specs]
    axis_keys = [a.key for a in sweep.axes]

    def save() -> None:
        from lab.core.outputs import writing

        with writing(where):
            table.write_tables(out, [rows[i] for i in ids if i in rows], axis_keys)

    print(f"  on {ex.describe()}", file=sys.stderr)
    from lab.core.progress import enabled

    # done / failed / diverged / left, with tqdm's ETA from the runs finished in this session
    bar = tqdm(total=len(specs), initial=len(specs) - len(tasks), unit="run", desc=sweep.name, file=sys.stderr,
               disable=not (enabled() if progress is None else progress))
    interrupted = False
    last = time.monotonic()
    import signal

    def _terminate(signum, frame):  # `kill` (SIGTERM) stops a sweep as cleanly as Ctrl-C
        raise KeyboardInterrupt

    old_term = signal.signal(signal.SIGTERM, _terminate)
    try:
        for task, row, _ in ex.run(tasks):
            rows[task.run_id] = row
            c = _status_counts(rows)
            bar.set_postfix(failed=c["failed"], diverged=c["diverged"], left=len(specs) - len(rows), refresh=False)
            bar.update(1)
            if time.monotonic() - last > TABLE_EVERY_S:
                save()
                last = time.monotonic()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, old_term)
        bar.close()
    return interrupted
