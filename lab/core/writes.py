"""The write protocol: how every output the lab makes reaches its path.

One protocol for run folders, videos, screenshots, reports (and their ``figures/``), regression
baselines and sweep tables:

1. **Private temporary beside the target.** Every file or folder is first written under a name of
   this process's own, in the target's own folder (so the final rename never crosses a file
   system): ``.<target name>.lab-tmp.<pid>.<nonce>[<suffix>]`` (:func:`temp_path`). Nothing else
   writes there, and no reader takes it for the output.
2. **Publish by rename, only on success.** :func:`publish` is ``os.replace``: the target is either
   the previous complete file or the new complete one, never half of one. A failure (no space, a
   signal, an exception) removes the temporary and leaves the target as it was.
3. **Clean only one's own.** A process removes only the temporaries it made, by name. A temporary
   of another process is left alone while that process lives; once its pid is gone (SIGKILL, a
   power cut) it is recognised as stale and removed by the next lab command that writes beside it
   (:func:`clean_stale`).
4. **A lock where two processes can meet.** :func:`lock` takes an ``fcntl`` lock on a lock file that
   holds the pid of its holder (``.lab-lock``); a second process either waits its turn (short
   publications) or is refused at once with the holder's pid (a sweep, a report).
5. **No symlink out.** :func:`inside` refuses a path whose folder part leads outside the output
   through a symlink (a ``figures/`` replaced by a link to a user's folder), so the lab never writes
   into a folder it did not make.

The protocol imports nothing else of the lab but :mod:`lab.core.errors`, so every writer can use it (no
import cycle).
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import re
import secrets
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from lab.core.errors import LabError

log = logging.getLogger(__name__)

TMP_TAG = ".lab-tmp."
# .<base>.lab-tmp.<pid>.<nonce>[.suffix]; the nonce is 8 hex digits
TMP_RE = re.compile(r"^\.(?P<base>.*)\.lab-tmp\.(?P<pid>\d+)\.(?P<nonce>[0-9a-f]{8})(?P<suffix>\.[A-Za-z0-9]+)?$")
LOCK_NAME = ".lab-lock"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def temp_path(target: Path | str, suffix: str = "") -> Path:
    """A fresh private name beside ``target`` (same folder): ``.<name>.lab-tmp.<pid>.<nonce><suffix>``.
    ``suffix`` keeps the format of writers that choose it from the name (``.mp4``, ``.png``)."""
    target = Path(target)
    return target.with_name(f".{target.name}{TMP_TAG}{os.getpid()}.{secrets.token_hex(4)}{suffix}")


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
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
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


def scratch(name: str) -> bool:
    """Names the protocol itself leaves in a folder while it works (temporaries, the lock file)."""
    return name == LOCK_NAME or TMP_RE.match(name) is not None


def lab_scratch_of_dead(folder: Path | str) -> bool:
    """True if every scratch entry of the protocol in ``folder`` is a dead process's (or there is none)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return True
    return all(not TMP_RE.match(n) or is_stale(n) for n in names)


__all__ = ["Busy", "LOCK_NAME", "TMP_RE", "clean_stale", "inside", "is_stale", "lock", "owner_pid", "pid_alive",
           "publish", "remove", "scratch", "temp_path", "temporary", "write_bytes", "write_json", "write_text",
           "write_with"]
