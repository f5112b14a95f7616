"""Where the lab may write: one rule for every command that writes (run, check, sweep, report, urdf -o).

**Folders** (``--out DIR``). The lab writes only into a folder that does not exist, that is empty, or
that the lab itself made for the same kind of output. It recognises its own folders by the marker
file it writes there, ``.lab-<kind>`` (``.lab-run``, ``.lab-check``, ``.lab-sweep``, ``.lab-report``):
JSON naming the kind and listing every file the lab wrote. Anything else is refused by
:func:`prepare`, before any work starts. Replacing a previous output of the same kind needs
``--overwrite``, and even then only the files listed in the marker go: any other file in the folder
stays. A sweep resumes into its own folder without ``--overwrite`` (that is what resuming is).

**Single files** (``urdf -o FILE``, ``--video``, ``--screenshot``): a file that exists is replaced only
with ``--overwrite``; a folder, a device or a path through a file is refused (:func:`check_file`).

**How files get there** is the write protocol of :mod:`lab.core.writes`: private temporaries named by
pid and nonce, published by rename, a dead process's temporaries removed by the next command, a lock
(``.lab-lock``) where two commands meet one folder, and no write through a symlink out of the
output. The protocol's scratch entries never make a folder "hold files the lab did not write".
A damaged marker is named in the error (a sweep's is rebuilt from its own file names).

**File-system errors** (no permission, read-only, a file where a folder should be, no space left)
become a :class:`~lab.core.errors.LabError` naming the path, so the CLI prints one ``error:`` line and
exits 2. Writability is probed before any work: a temporary folder is made and removed in the
nearest existing folder, which leaves the file system as it was.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from lab.core import writes
from lab.core.views import PLOT_FILES
from lab.core.errors import LabError

log = logging.getLogger(__name__)

# What each kind of output may write at its top level: a file here that the marker does not list is
# never replaced (the run's names are lab.analysis.plots.run_plots' and lab.results.write_run's).
KINDS: dict[str, tuple[str, ...]] = {
    "run": ("scenario.toml", "timeseries.csv", "metrics.json", "provenance.json", "replay.npz", *PLOT_FILES),
    "check": ("checks.json", "provenance.json"),
    "sweep": ("sweep.toml", "runs.json", "events.log", "results.csv", "results.parquet", "rows", "runs",
              "provenance.json"),
    "report": ("report.md", "report.html", "figures", "runs", "provenance.json"),
    "regress": ("baseline.json", "provenance.json"),
    "docs": ("index.md", "figures", "replays"),  # lab report --docs: plus one <section>.md per paper
    "replay": ("index.html", "runs"),  # lab replay SWEEP --html DIR: the index and one page per run
    # lab optimize (lab.optimize.engine): Optuna's journal, one row per trial, the best trials' scenarios
    "optimize": ("study.toml", "journal.log", "events.log", "rows", "results.csv", "results.parquet", "best",
                 "best.json", "history.png", "importance.png", "front.png", "provenance.json"),
}
RESUMABLE = ("sweep", "optimize")  # kinds resumed in their own folder (no --overwrite: that is what resuming is)
FOREIGN = "exists and holds files the lab did not write; choose another folder or remove it"
PARTIAL_PREFIX = ".lab-partial-"  # before the write protocol (lab.core.writes): such folders had no pid in their name
LEGACY_PARTIAL = re.compile(r"^\.lab-partial-[A-Za-z0-9_]{8}$")
PUBLISH_WAIT_S = 120.0  # a second writer of the same run folder waits this long for the first to publish
SWEEP_HEADER = "# resolved sweep definition, written by `lab sweep`"
MARKER_NOTE = ("written by the lab, which only ever replaces or removes the files listed here and leaves any "
               "other file in this folder alone")


def marker_path(folder: Path, kind: str) -> Path:
    return Path(folder) / f".lab-{kind}"


def reason(exc: OSError) -> str:
    """The operating system's words for an OSError ('Permission denied', 'No space left on device')."""
    return exc.strerror or str(exc) or type(exc).__name__


class WriteError(LabError):
    """The file system refused a write (no space, read-only, no permission): ``errno`` says which. A
    sweep stops on it rather than recording every remaining run as failed."""

    def __init__(self, where: str, what: str, errno_: int | None = None):
        super().__init__(where, what)
        self.errno = errno_

    def __reduce__(self):  # crosses process boundaries (a sweep's workers)
        return (type(self), (self.where, self.what, self.errno))


def fs_error(where: str, exc: OSError, doing: str = "cannot write") -> LabError:
    return WriteError(where, f"{doing}: {reason(exc)}", exc.errno)


def scratch(name: str, folder: Path | str | None = None) -> bool:
    """Entries the lab's write protocol leaves while it works (temporaries, its lock file, and the
    unfinished folders of older versions): never a user's file. With ``folder``, a lock file counts only
    if it holds a pid and an old unfinished entry only if it is a folder (a user's file of such a name
    is the user's)."""
    if LEGACY_PARTIAL.match(name) is not None:
        return folder is None or (Path(folder) / name).is_dir() and not (Path(folder) / name).is_symlink()
    return writes.scratch(name, folder)


def clean_stale(folder: Path) -> None:
    """Remove the temporaries of dead lab processes in ``folder`` (and the older versions' unfinished
    folders, which carry no pid: no lab process of this version writes them)."""
    writes.clean_stale(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if LEGACY_PARTIAL.match(name) and scratch(name, folder):
            writes.remove(Path(folder) / name)


@contextmanager
def writing(where: str):
    """File-system errors inside become one LabError naming ``where`` (the output being written)."""
    try:
        yield
    except OSError as exc:
        raise fs_error(where, exc) from None


def read_marker(folder: Path, kind_hint: str | None = None) -> dict | None:
    """The marker of a lab output in ``folder`` (``{"kind", "files", ...}``), or None.

    A sweep folder written before markers existed (only the sweep's own names, and a ``sweep.toml``
    with the lab's header) counts as the lab's, so those sweeps still resume."""
    folder = Path(folder)
    for kind in KINDS:
        p = marker_path(folder, kind)
        if p.is_file():
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:  # damaged: still the lab's folder, but it names no file
                log.warning("unreadable marker %s: %s", p, exc)
                data = None
            files = data.get("files") if isinstance(data, dict) else None
            out = dict(data) if isinstance(data, dict) else {}
            out.update(kind=kind, files=[f for f in files if isinstance(f, str)] if isinstance(files, list) else [])
            if not isinstance(files, list):
                out["damaged"] = True
                if kind == "sweep":  # a sweep's files are known by name: rebuild the list from the folder
                    legacy = _legacy_sweep(folder)
                    if legacy is not None:
                        log.warning("%s is damaged; rebuilt from the sweep's own files", p)
                        return legacy
            return out
    if kind_hint == "sweep":
        return _legacy_sweep(folder)
    return None


def _legacy_sweep(folder: Path) -> dict | None:
    names = {n for n in os.listdir(folder) if not (n.startswith(".") and n.endswith(".tmp")) and not scratch(n, folder)
             and not n.startswith(".lab-")}
    if not names or not names <= set(KINDS["sweep"]) or "sweep.toml" not in names:
        return None
    try:
        with open(folder / "sweep.toml", encoding="utf-8") as fh:
            first = fh.readline()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith(SWEEP_HEADER):
        return None
    name = None
    try:
        import tomllib

        name = tomllib.loads((folder / "sweep.toml").read_text(encoding="utf-8")).get("name")
    except Exception:  # noqa: BLE001 - a legacy folder without a readable name still resumes
        pass
    return {"kind": "sweep", "files": sorted(names), "name": name}


def _nearest_existing(path: Path) -> Path:
    p = Path(os.path.abspath(path))
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def _probe(folder: Path, where: str) -> None:
    """Make and remove a temporary folder in ``folder``: proves we may create entries there."""
    try:
        d = writes.temp_path(Path(folder) / "lab-probe")
        os.mkdir(d)
        os.rmdir(d)
    except OSError as exc:
        raise LabError(where, f"cannot write in {folder}: {reason(exc)}") from None


def _through_file(path: Path, where: str) -> Path:
    """The nearest existing ancestor of a path that does not exist; refused if it is not a folder."""
    anc = _nearest_existing(path)
    if not anc.is_dir():
        raise LabError(where, f"{anc} is a file, not a folder")
    return anc


# What the write protocol adds to a name: ".<name>.lab-tmp.<pid>.<nonce><check>" (lab.writes.temp_path),
# with a pid of at most 7 digits (Linux's pid_max is at most 2^22 = 4194304).
TMP_OVERHEAD = len(".") + len(writes.TMP_TAG) + 7 + 1 + 16
LONGEST_INSIDE = 64  # room for the longest path the lab writes inside an output (a report's figures/…)


def check_lengths(path: Path | str, where: str, suffix: str = "") -> None:
    """Refuse, before any work, a path the file system would refuse at the end: a component longer than
    the file system's NAME_MAX (255 bytes on Linux), counting the write protocol's temporary name for
    the last one (``suffix``: a file's own, kept on its temporary), or a path longer than PATH_MAX."""
    full = os.path.abspath(path)
    where = where if len(where) <= 160 else where[:160] + "…"
    anc = _nearest_existing(Path(full))
    try:
        name_max = os.pathconf(anc if anc.is_dir() else anc.parent, "PC_NAME_MAX")
        path_max = os.pathconf(anc if anc.is_dir() else anc.parent, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    parts = Path(full).parts[1:]
    for i, part in enumerate(parts):
        size = len(part.encode("utf-8", "surrogateescape"))
        extra = TMP_OVERHEAD + len(suffix) if i == len(parts) - 1 else 0
        if size + extra > name_max:
            shown = part if len(part) <= 40 else part[:40] + "…"
            allowed = name_max - extra
            raise LabError(where, f"the name {shown!r} is {size} bytes; at most {allowed} here (the file system allows "
                           f"{name_max}{', less the lab temporary name' if extra else ''})")
    if len(full.encode("utf-8", "surrogateescape")) + LONGEST_INSIDE > path_max:
        raise LabError(where, f"the path is {len(full)} bytes; at most {path_max - LONGEST_INSIDE}")


def _listdir(path: Path, where: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError as exc:
        raise LabError(where, f"cannot read the folder: {reason(exc)}") from None


def _write_marker(folder: Path, kind: str, files, extra: dict | None = None) -> None:
    from lab import __version__

    files = [f for f in files if not scratch(f) and not f.startswith(".lab-")]
    data = {"kind": kind, "lab_version": __version__, "note": MARKER_NOTE, "files": sorted(set(files))}
    data.update(extra or {})
    writes.write_json(marker_path(folder, kind), data)


def _remove_own(folder: Path) -> None:
    """Delete what the lab's marker in ``folder`` lists (recursing into listed lab outputs), the marker,
    the lab's unfinished temporary folders, and then the folder itself only if nothing else is left."""
    m = read_marker(folder)
    if m is None:
        return
    for rel in m["files"]:
        _remove_entry(folder, rel)
    clean_stale(folder)
    marker_path(folder, m["kind"]).unlink(missing_ok=True)
    try:
        folder.rmdir()  # only succeeds when empty: a user's file keeps the folder
    except OSError:
        pass


def _remove_entry(folder: Path, rel: str) -> None:
    p = folder / rel
    if Path(rel).is_absolute() or ".." in Path(rel).parts:  # a marker only ever names paths inside
        return
    # A listed path whose folder part now runs through a symlink (figures/ replaced by a link to the
    # user's own folder) would reach outside: only what really lies inside the output goes.
    real_folder = os.path.realpath(folder)
    real_parent = os.path.realpath(p.parent)
    if real_parent != real_folder and not real_parent.startswith(real_folder + os.sep):
        log.warning("not removing %s: its folder leads outside %s", p, folder)
        return
    if p.is_symlink() or p.is_file():
        p.unlink()
    elif p.is_dir():
        if read_marker(p) is not None:
            _remove_own(p)
        else:
            try:
                p.rmdir()
            except OSError:
                pass
    parent = p.parent  # folders the lab made for its files (figures/) go once they are empty
    while parent != folder and folder in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


@dataclass
class Output:
    """A folder that passed :func:`prepare`. ``previous`` is the marker of the lab output found there."""

    path: Path
    kind: str
    label: str = "--out"
    overwrite: bool = False
    flag: str = "--overwrite"  # how the error messages name the overwrite switch (the API: overwrite=True)
    previous: dict | None = None
    name: str | None = None  # a sweep's name, kept in its marker
    written: set = field(default_factory=set)  # entries written by this command (incremental kinds)

    @property
    def where(self) -> str:
        return f"{self.label} {self.path}"

    @property
    def own(self) -> set:
        return set(self.previous["files"]) if self.previous else set()

    def _extra(self) -> dict:
        return {"name": self.name} if self.name else {}

    def _collides(self, rel: str) -> bool:
        return os.path.lexists(self.path / rel) and rel not in self.own and rel not in self.written

    # -------------------------------------------------------- one-shot outputs (run, check)
    def write_all(self, build: Callable[[Path], None]) -> Path:
        """``build(tmp)`` writes the output's files into an empty private temporary folder (the write
        protocol, :mod:`lab.core.writes`); they then replace the output. A new folder appears in one rename
        (so a folder that exists is complete); into an existing folder each file is moved in under the
        folder's lock, the marker listing them, and the previous output's files that were not rewritten
        are removed: the folder's other files are never touched. Two commands writing the same folder
        take turns (the second waits up to ``PUBLISH_WAIT_S``); the last one's files stay."""
        try:
            if not os.path.lexists(self.path):
                done = self._write_fresh(build)
                if done is not None:
                    return done
            return self._write_into(build)
        except OSError as exc:
            raise fs_error(self.where, exc) from None

    def _write_fresh(self, build) -> Path | None:
        parent = self.path.parent
        made = []  # the folders above the output that this command makes: removed again if it fails
        p = Path(os.path.abspath(parent))
        while not os.path.lexists(p) and p != p.parent:
            made.append(p)
            p = p.parent
        parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._build_fresh(build)
        except BaseException:
            for d in made:  # innermost first; rmdir only succeeds on an empty folder
                try:
                    os.rmdir(d)
                except OSError:
                    break
            raise

    def _build_fresh(self, build) -> Path | None:
        with writes.temporary(self.path, folder=True) as tmp:
            os.chmod(tmp, 0o777 & ~writes._umask())
            build(tmp)
            _write_marker(tmp, self.kind, os.listdir(tmp), self._extra())
            try:
                os.rename(tmp, self.path)  # fails if a non-empty folder appeared meanwhile: nothing lost
                return self.path
            except OSError as exc:
                if not os.path.lexists(self.path):
                    raise exc
                m = read_marker(self.path) if self.path.is_dir() else None
                if not (self.overwrite and m is not None and m["kind"] == self.kind):
                    raise LabError(self.where, "appeared while the lab was running; nothing was replaced, "
                                               "choose another folder") from None
                # Another lab command of the same kind published first: replace its output as --overwrite says.
                (tmp / marker_path(tmp, self.kind).name).unlink(missing_ok=True)
                built = tmp

                def move(dest: Path) -> None:
                    for n in os.listdir(built):
                        shutil.move(str(built / n), str(dest / n))

                self._write_into(move)
                return self.path

    def _write_into(self, build) -> Path:
        if not self.path.is_dir():
            raise LabError(self.where, "exists and is not a folder; choose another folder or remove it")
        with writes.lock(self.path, self.where, wait=PUBLISH_WAIT_S, what=f"writing a {self.kind} here"):
            clean_stale(self.path)
            # What is there now (another command may have published since prepare looked).
            current = read_marker(self.path, self.kind)
            others = [n for n in os.listdir(self.path) if not scratch(n, self.path)]
            if current is None and others:
                raise LabError(self.where, FOREIGN)
            if current is not None:
                if current["kind"] != self.kind or current.get("damaged"):
                    raise LabError(self.where, f"holds a lab {current['kind']} output whose marker is damaged or "
                                               f"of another kind; choose another folder")
                if self.previous is None and not self.overwrite:
                    raise LabError(self.where, f"a lab {self.kind} appeared here while the lab was running; nothing "
                                               f"was replaced: pass {self.flag} or choose another folder")
                self.previous = current
            with writes.temporary(self.path / "lab-partial", folder=True) as tmp:
                build(tmp)
                new = set(os.listdir(tmp))
                clash = sorted(n for n in new if self._collides(n))
                if clash:  # checked by prepare for the names known in advance; this catches the rest
                    raise LabError(f"{self.where}/{clash[0]}", "was not written by the lab; nothing was replaced, "
                                                               "move it away or choose another folder")
                old = self.own
                _write_marker(self.path, self.kind, old | new, self._extra())  # both, while files move
                for n in sorted(new):
                    os.replace(tmp / n, self.path / n)
                for rel in sorted(old - new):
                    _remove_entry(self.path, rel)
                _write_marker(self.path, self.kind, new, self._extra())
        return self.path

    # -------------------------------------------------------- incremental outputs (sweep, report)
    _held = None  # the lock context of an incremental output, held from acquire() to close()

    def acquire(self) -> Output:
        """Hold the folder's lock (if the folder exists yet) until :meth:`close`: a second command on the
        same sweep or report is refused at once, naming the first one's pid."""
        if self._held is None and self.path.is_dir():
            cm = writes.lock(self.path, self.where, wait=0.0, what=f"writing this {self.kind}")
            cm.__enter__()
            self._held = cm
            clean_stale(self.path)
        return self

    def release(self) -> None:
        if self._held is not None:
            cm, self._held = self._held, None
            cm.__exit__(None, None, None)

    def open(self, claim: tuple[str, ...] = ()) -> Output:
        """Create the folder and its marker before the first file, so an interrupted output is still
        recognised as the lab's. ``claim``: entries this output may write, listed right away."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self.acquire()
            self.written |= set(claim)
            _write_marker(self.path, self.kind, self.own | self.written, self._extra())
        except OSError as exc:
            raise fs_error(self.where, exc) from None
        return self

    def claim(self, rel: str) -> Path:
        """The path for ``rel`` inside the output, once listed in the marker; refused if something the
        lab did not write is already there, or if its folder leads outside the output (a symlink)."""
        writes.inside(self.path, self.path / rel, f"{self.where}/{rel}")
        if self._collides(rel):
            raise LabError(f"{self.where}/{rel}", "was not written by the lab; move it away or choose another folder")
        if rel not in self.written:
            self.written.add(rel)
            try:
                _write_marker(self.path, self.kind, self.own | self.written, self._extra())
            except OSError as exc:
                raise fs_error(self.where, exc) from None
        return self.path / rel

    def close(self) -> None:
        """The marker lists what this command wrote; with ``--overwrite`` the previous output's files
        that were not rewritten go. A resumed sweep keeps everything (its earlier runs are its own).
        Releases the folder's lock."""
        try:
            keep = self.written if self.overwrite else self.own | self.written
            if self.overwrite:
                for rel in sorted(self.own - self.written):
                    _remove_entry(self.path, rel)
            _write_marker(self.path, self.kind, keep, self._extra())
        except OSError as exc:
            raise fs_error(self.where, exc) from None
        finally:
            self.release()


def prepare(path: Path | str, kind: str, overwrite: bool = False, label: str = "--out",
            name: str | None = None, flag: str = "--overwrite") -> Output:
    """Apply the folder rule to ``path`` for an output of ``kind``, before any work starts; raises a
    LabError (exit 2) naming the folder when the lab may not write there. Changes nothing on disk."""
    if kind not in KINDS:
        raise ValueError(f"kind: one of {', '.join(KINDS)}, got {kind!r}")
    if str(path) == "":
        raise LabError(label, "must name a folder, got an empty string")
    path = Path(path)
    where = f"{label} {path}"
    check_lengths(path, where)
    previous = None
    if os.path.lexists(path):
        if not path.is_dir():
            raise LabError(where, "exists and is not a folder; choose another folder or remove it")
        # The write protocol's own scratch (temporaries, a lock file) is never a user's file.
        entries = [n for n in _listdir(path, where) if not scratch(n, path)]
        if entries:
            previous = read_marker(path, kind)
            if previous is None:
                raise LabError(where, FOREIGN)
            if previous.get("damaged"):
                raise LabError(f"{where}/.lab-{previous['kind']}",
                               "is damaged (not the list of files the lab wrote), so the lab cannot tell its files "
                               "from yours; move the files you want to keep and remove the folder, or choose "
                               "another folder")
            if previous["kind"] != kind:
                raise LabError(where, f"holds a lab {previous['kind']} output, not a {kind}; choose another folder")
            if kind in RESUMABLE:
                if name and previous.get("name") and previous["name"] != name:
                    raise LabError(where, f"holds the {kind} {previous['name']!r}, not {name!r}; "
                                          "choose another folder")
            elif not overwrite:
                raise LabError(where, f"holds a previous lab {kind}; pass {flag} to replace it "
                                      "(only the lab's own files go) or choose another folder")
            own = {rel.split("/")[0] for rel in previous["files"]}  # figures/x.png: figures/ is the lab's
            for entry in KINDS[kind]:
                if entry not in own and os.path.lexists(path / entry):
                    raise LabError(f"{where}/{entry}", "was not written by the lab; move it away or choose "
                                                       "another folder")
        probe_in = path
    else:
        probe_in = _through_file(path, where)
    _probe(probe_in, where)
    return Output(path=path, kind=kind, label=label, overwrite=overwrite, previous=previous, name=name, flag=flag)


def check_file(path: Path | str, label: str, overwrite: bool = False, flag: str = "--overwrite") -> Path:
    """A single output file (``urdf -o``, ``--video``, ``--screenshot``): refused if it is a folder or
    not a regular file, if its path runs through a file, if it exists and ``overwrite`` is not set, or
    if its folder is not writable. Changes nothing on disk."""
    if str(path) == "":
        raise LabError(label, "must name a file, got an empty string")
    path = Path(path)
    where = f"{label} {path}"
    check_lengths(path, where, path.suffix)
    if os.path.lexists(path):
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise LabError(where, f"cannot read: {reason(exc)}") from None
        if stat.S_ISDIR(mode):
            raise LabError(where, "is a folder; give a file name")
        if not stat.S_ISREG(mode):
            raise LabError(where, "exists and is not a regular file; choose another name")
        if not overwrite:
            raise LabError(where, f"exists; pass {flag} to replace it or choose another name")
        probe_in = Path(os.path.abspath(path)).parent
    else:
        probe_in = _through_file(path, where)
    _probe(probe_in, where)
    return path


def _real(path: Path) -> str:
    """``path`` with symlinks resolved as far as it exists (the rest appended): where it would land."""
    return os.path.realpath(os.path.abspath(path))


def check_side_files(output: Output, files: dict[str, str | None], overwrite: bool = False,
                     suffixes: dict[str, tuple[str, ...]] | None = None) -> None:
    """The single files a command writes beside its output folder (``--video``, ``--screenshot``), checked
    with :func:`check_file` and against each other and the folder, before any work: each must have its
    format's suffix, no two may be the same file, and none may lie inside the output folder (the folder
    holds only the lab's listed files, so a video published into a new ``--out`` first would make the
    lab refuse its own folder after the run)."""
    seen: dict[str, str] = {}
    inside_out = _real(output.path)
    for flag, path in files.items():
        if not path:
            continue
        allowed = (suffixes or {}).get(flag)
        if allowed and Path(path).suffix.lower() not in allowed:
            raise LabError(flag, f"must end in {' or '.join(allowed)}, got {path}")
        real = _real(Path(path))
        if real == inside_out or real.startswith(inside_out + os.sep):
            raise LabError(f"{flag} {path}", f"lies inside {output.label} {output.path}, which holds only the "
                                             f"lab's own files; write it beside the folder (e.g. "
                                             f"{Path(output.path).name}{Path(path).suffix})")
        if real in seen:
            raise LabError(f"{flag} {path}", f"is the same file as {seen[real]}; give each its own name")
        seen[real] = f"{flag} {path}"
        check_file(path, flag, overwrite=overwrite)


def write_file(path: Path, text: str, where: str) -> None:
    """Write a checked single file by the write protocol (:mod:`lab.core.writes`); OSError → LabError."""
    try:
        writes.write_text(path, text)
    except OSError as exc:
        raise fs_error(where, exc) from None


_claimed: list[Path] = []


def _release_claims() -> None:
    """At exit: default folders claimed by this process and never written (the command failed) go; a
    folder that holds anything stays (rmdir removes only an empty one)."""
    for p in _claimed:
        try:
            os.rmdir(p)
        except OSError:
            pass
    _claimed.clear()


def unique_default(path: Path, claim: bool = True) -> Path:
    """A default output folder that no other command has (``name``, ``name-2``, ``name-3``, …), so two
    commands started in the same second never meet in one folder. With ``claim`` the folder is made
    here, by ``mkdir`` (atomic: of two processes racing for one name, one gets ``-2``); it is empty
    until the command writes into it, and removed at exit if the command never did."""
    import atexit

    path = Path(path)
    check_lengths(path.with_name(path.name + "-99"), f"--out {path}")
    candidate, i = path, 1
    if claim:
        path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        if claim:
            try:
                os.mkdir(candidate)
                if not _claimed:
                    atexit.register(_release_claims)
                _claimed.append(candidate)
                return candidate
            except FileExistsError:
                pass
        elif not os.path.lexists(candidate):
            return candidate
        i += 1
        candidate = path.with_name(f"{path.name}-{i}")
