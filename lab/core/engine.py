"""Import PyBullet and open clients without its C-level chatter on stdout.

PyBullet prints "pybullet build time …" on import and "argv[0]=" on connect with C ``printf``; that
would corrupt output written to stdout and turn the one-line error messages into several lines. We point file descriptor 1 at
/dev/null around those calls and flush C's stdio buffer before restoring it.

A GUI client's threads print at moments no ``with`` block can cover: "ven = Mesa/X.org" with the first
shadowed frame, "numActiveThreads = 0 … finished" when the window is closed with Esc, more at disconnect.
While a GUI client is open, :func:`mute_engine_stdout` therefore points C stdio's ``stdout`` stream (the
``FILE *`` that ``printf`` writes to) at /dev/null; file descriptor 1 stays as it was, so Python's own
output (the CLI's summary, ``print``) is untouched. :func:`restore_engine_stdout` undoes it once every
mute has been released.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from contextlib import contextmanager

_libc = ctypes.CDLL(None)
_libc.fflush.argtypes = [ctypes.c_void_p]
_libc.fopen.restype = ctypes.c_void_p
_libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


@contextmanager
def quiet_stdout():
    """Silence file descriptors 1 and 2 (C-level stdout and stderr) for the duration."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
    except (OSError, ValueError):  # no real descriptors (some embedders): nothing to protect
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        _libc.fflush(None)
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


class _EngineStdout:
    """C stdio's ``stdout`` pointer, swapped for a /dev/null stream while ``count`` > 0."""

    lock = threading.Lock()
    count = 0
    saved: int | None = None  # the original FILE *
    null: int | None = None  # our /dev/null FILE * (kept open: a GUI thread may still hold it)

    @classmethod
    def pointer(cls):
        try:
            return ctypes.c_void_p.in_dll(_libc, "stdout")
        except ValueError:  # a C library without a ``stdout`` symbol: nothing to swap
            return None


def mute_engine_stdout() -> None:
    """Send what C code ``printf``s to /dev/null until as many :func:`restore_engine_stdout` calls;
    Python's ``sys.stdout`` (file descriptor 1) keeps working."""
    s = _EngineStdout
    with s.lock:
        s.count += 1
        ptr = s.pointer()
        if s.count > 1 or ptr is None:
            return
        if s.null is None:
            s.null = _libc.fopen(os.devnull.encode(), b"w")
        if s.null:
            _libc.fflush(None)
            s.saved, ptr.value = ptr.value, s.null


def restore_engine_stdout() -> None:
    """Release one :func:`mute_engine_stdout`; the last one points C's ``stdout`` back."""
    s = _EngineStdout
    with s.lock:
        if s.count == 0:
            return
        s.count -= 1
        ptr = s.pointer()
        if s.count == 0 and ptr is not None and s.saved is not None:
            _libc.fflush(None)
            ptr.value, s.saved = s.saved, None


def engine_stdout_muted() -> bool:
    return _EngineStdout.count > 0


with quiet_stdout():
    import pybullet as pb  # noqa: E402
    from pybullet_utils.bullet_client import BulletClient as _BulletClient  # noqa: E402


def connect(gui: bool) -> _BulletClient:
    with quiet_stdout():
        return _BulletClient(connection_mode=pb.GUI if gui else pb.DIRECT)


__all__ = ["pb", "connect", "quiet_stdout", "mute_engine_stdout", "restore_engine_stdout",
           "engine_stdout_muted"]
