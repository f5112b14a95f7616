"""The write protocol: how every output the lab makes reaches its path.

One protocol for run folders, videos, screenshots, reports (and their ``figures/``), regression
baselines and sweep tables:

1. **Private temporary beside the target.** Every file or folder is first written under a name of
   this process's own, in the target's own folder (so the final rename never crosses a file
   system): ``.<target name>.lab-tmp.<pid>.<nonce><check>[<suffix>]`` (:func:`temp_path`). Nothing
   else writes there, and no reader takes it for the output. ``<check>`` is a digest of the other
   parts: a user's file that merely looks like a temporary (``.data.lab-tmp.4000000.deadbeef``) fails
   it (odds 2^-32) and is never taken for the lab's, so never removed.
2. **Publish by rename, only on success.** :func:`publish` is ``os.replace``: the target is either
   the previous complete file or the new complete one, never half of one. A failure (no space, a
   signal, an exception) removes the temporary and leaves the target as it was.
3. **Clean only one's own.** A process removes only the temporaries it made, by name. A temporary
   of another process is left alone while that process lives; once its pid is gone (SIGKILL, a
   power cut) it is recognised as stale and removed by the next lab command that writes beside it
   (:func:`clean_stale`).
4. **A lock where two processes can meet.** :func:`lock` takes an ``fcntl`` lock on a lock file that
   holds the pid of its holder (``.lab-lock``); a second process either waits its turn (short
   publications) or is refused at once with the holder's pid (a sweep, a report). A ``.lab-lock``
   that holds anything but a pid is a user's file: refused, never truncated or removed.
5. **No symlink out.** :func:`inside` refuses a path whose folder part leads outside the output
   through a symlink (a ``figures/`` replaced by a link to a user's folder), so the lab never writes
   into a folder it did not make.

The protocol imports nothing else of the lab but :mod:`lab.core.errors`, so every writer can use it (no
import cycle).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from lab.core.errors import LabError

log = logging.getLogger(__name__)

TMP_TAG = ".lab-tmp."
# .<base>.lab-tmp.<pid>.<nonce><check>[.suffix]; nonce and check are 8 hex digits each
_TMP_SHAPE = re.compile(r"^\.(?P<base>.*)\.lab-tmp\.(?P<pid>\d+)\.(?P<nonce>[0-9a-f]{8})(?P<check>[0-9a-f]{8})"
                        r"(?P<suffix>\.[A-Za-z0-9]+)?$")
LOCK_NAME = ".lab-lock"
_LOCK_TEXT = re.compile(rb"\d{0,10}\n?")  # what the lab writes in its lock file: its pid (empty for an instant)


def _check(base: str, pid: str, nonce: str) -> str:
    return hashlib.blake2b(f"{base}\0{pid}\0{nonce}".encode("utf-8", "surrogateescape"), digest_size=4,
                           person=b"lab-tmp").hexdigest()


class _TmpRe:
    """``TMP_RE.match(name)``: a match only for a name the protocol made (its check digest holds)."""

    pattern = _TMP_SHAPE.pattern

    @staticmethod
    def match(name: str):
        m = _TMP_SHAPE.match(name)
        if m is None or m.group("check") != _check(m.group("base"), m.group("pid"), m.group("nonce")):
            return None
        return m

    @staticmethod
    def search(name: str):
        return _TmpRe.match(name)


TMP_RE = _TmpRe()


def lock_is_ours(folder: Path | str) -> bool:
    """True if ``folder/.lab-lock`` is absent or a regular file holding only a pid (the lab's lock file)."""
    path = Path(folder) / LOCK_NAME
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size > 12:
        return False
    try:
        with open(path, "rb") as fh:
            return _LOCK_TEXT.fullmatch(fh.read(16)) is not None
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def temp_path(target: Path | str, suffix: str = "") -> Path:
    """A fresh private name beside ``target`` (same folder): ``.<name>.lab-tmp.<pid>.<nonce><suffix>``.
    ``suffix`` keeps the format of writers that choose it from the name (``.mp4``, ``.png``)."""
    target = Path(target)
    pid, nonce = str(os.getpid()), secrets.token_hex(4)
    return target.with_name(f".{target.name}{TMP_TAG}{pid}.{nonce}{_check(target.name, pid, nonce)}{suffix}")


def pid_alive(pid: int) -> bool:
    """True if a process with this pid exists (ours included); a pid we may not signal still lives."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return True
    return True


def owner_pid(name: str) -> int | None:
    """The pid in a temporary's name, or None if ``name`` is not one of the protocol's temporaries."""
    m = TMP_RE.match(name)
    return int(m.group("pid")) if m else None


def is_stale(name: str) -> bool:
    """A temporary of the protocol whose process no longer exists."""
    pid = owner_pid(name)
    return pid is not None and pid != os.getpid() and not pid_alive(pid)


def remove(path: Path | str) -> None:
    """Remove a file, a link or a folder tree; nothing if it is gone already."""
    p = Path(path)
    try:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("cannot remove %s: %s", p, exc)


def clean_stale(folder: Path | str, base: str | None = None) -> list[str]:
    """Remove the temporaries in ``folder`` left by processes that are gone (``base``: only those of
    that target name). Temporaries of live processes, and every other entry, stay. Returns the names
    removed."""
    folder = Path(folder)
    gone = []
    try:
        names = os.listdir(folder)
    except OSError:
        return gone
    for name in names:
        m = TMP_RE.match(name)
        if m is None or (base is not None and m.group("base") != base):
            continue
        if is_stale(name):
            remove(folder / name)
            gone.append(name)
    if gone:
        log.info("removed %d stale temporar%s of dead lab processes in %s", len(gone),
                 "y" if len(gone) == 1 else "ies", folder)
    return gone


def publish(tmp: Path | str, target: Path | str) -> None:
    """Move a finished temporary onto its target in one rename (files: replaces an existing file)."""
    os.replace(tmp, target)


@contextmanager
def temporary(target: Path | str, suffix: str = "", folder: bool = False):
    """Yield a private temporary path beside ``target`` (a folder made for it if ``folder``); on any
    exception or signal it is removed. The caller publishes it (:func:`publish`) when it is complete;
    if it did not, the temporary is removed on the way out as well."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(target.parent, target.name)
    tmp = temp_path(target, suffix)
    try:
        if folder:
            os.mkdir(tmp, 0o777)
        yield tmp
    finally:
        if os.path.lexists(tmp):
            remove(tmp)


def write_with(target: Path | str, write: Callable[[Path], None], suffix: str | None = None,
               mode: int | None = None) -> Path:
    """``write(tmp)`` writes the whole file at ``tmp``; it is then published at ``target``. ``mode``:
    the file's permissions (default: 0o666 less the umask, as any new file)."""
    target = Path(target)
    with temporary(target, target.suffix if suffix is None else suffix) as tmp:
        write(tmp)
        with open(tmp, "rb+") as fh:  # on disk before the rename: a power cut leaves the old file, not an empty one
            os.fsync(fh.fileno())
        os.chmod(tmp, (0o666 & ~_umask()) if mode is None else mode)
        publish(tmp, target)
    return target


def write_bytes(target: Path | str, data: bytes) -> Path:
    return write_with(target, lambda p: p.write_bytes(data))


def write_text(target: Path | str, text: str) -> Path:
    return write_with(target, lambda p: p.write_text(text, encoding="utf-8"))


def numpy_json(o):
    """``json.dumps(default=…)`` for NumPy scalars and arrays (as plain numbers and lists)."""
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


def write_json(target: Path | str, obj, default=numpy_json) -> Path:
    return write_text(target, json.dumps(obj, indent=2, sort_keys=True, default=default) + "\n")


def inside(root: Path | str, path: Path | str, where: str | None = None) -> Path:
    """``path`` if its folder lies inside ``root`` once symlinks are resolved; else a LabError: the
    lab never writes through a link that leads out of its output."""
    root, path = Path(root), Path(path)
    real_root = os.path.realpath(root)
    real_parent = os.path.realpath(path.parent)
    if real_parent != real_root and not real_parent.startswith(real_root + os.sep):
        link = path.parent
        while link != root and not link.is_symlink() and link != link.parent:
            link = link.parent
        raise LabError(where or str(link), f"{link} leads outside {root} (a symlink); the lab writes only inside "
                                           "its own output: remove the link or choose another folder")
    return path


# ------------------------------------------------------------------ locks


class Busy(LabError):
    """Another live process holds the lock."""


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


@contextmanager
def lock(folder: Path | str, where: str, wait: float = 0.0, what: str = "writing this output"):
    """Hold ``folder/.lab-lock`` (fcntl, exclusive) for the block. The file holds our pid; it is removed
    when the block ends. ``wait``: seconds to wait for another holder (0: refuse at once with a
    :class:`Busy` error naming the holder's pid). A lock left by a killed process is no lock: the
    kernel released it with the process, so the next one takes it at once."""
    path = Path(folder) / LOCK_NAME
    deadline = time.monotonic() + wait
    while True:
        if not lock_is_ours(folder):
            raise LabError(f"{where}/{LOCK_NAME}", "is not the lab's lock file (it holds other data); the lab "
                                                   "keeps this name for its lock: move the file away")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            if time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            holder = _read_pid(path)
            who = f"lab process {holder}" if holder else "another lab process"
            raise Busy(where, f"{who} is {what} now; wait for it to finish or choose another folder") from None
        try:  # the file we locked must still be the one at the path (a holder removes it on release)
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same and _LOCK_TEXT.fullmatch(os.pread(fd, 16, 0)) is None:  # a user's file appeared meanwhile
            os.close(fd)
            continue  # refused at the top of the loop
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a job scheduler's time limit) raised in the main thread, so it unwinds as
    Ctrl-C does: every temporary is removed on the way out, nothing half-written is published, and the
    CLI says so in one line (exit 143 = 128 + SIGTERM)."""


@contextmanager
def sigterm_raises():
    """While the block runs, SIGTERM raises :class:`Terminated` (main thread only; elsewhere a no-op)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def scratch(name: str, folder: Path | str | None = None) -> bool:
    """Entries the protocol itself leaves in a folder while it works: its temporaries (their check digest
    holds) and its lock file (only if it holds a pid, when ``folder`` is given to look)."""
    if name == LOCK_NAME:
        return folder is None or lock_is_ours(folder)
    return TMP_RE.match(name) is not None


def lab_scratch_of_dead(folder: Path | str) -> bool:
    """True if every scratch entry of the protocol in ``folder`` is a dead process's (or there is none)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return True
    return all(not TMP_RE.match(n) or is_stale(n) for n in names)


__all__ = ["Busy", "LOCK_NAME", "Terminated", "sigterm_raises", "TMP_RE", "clean_stale", "inside", "is_stale", "lock", "owner_pid", "pid_alive",
           "publish", "remove", "scratch", "temp_path", "temporary", "write_bytes", "write_json", "write_text",
           "write_with"]
