"""Import PyBullet and open clients without its C-level chatter on stdout.

PyBullet prints "pybullet build time …" on import and "argv[0]=" on connect with C ``printf``; that
would corrupt output written to stdout and turn the one-line error messages into several lines. We point file descriptor 1 at
/dev/null around those calls and flush C's stdio buffer before restoring it.
"""

from __future__ import annotations

import ctypes
import os
import sys
from contextlib import contextmanager

_libc = ctypes.CDLL(None)


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


with quiet_stdout():
    import pybullet as pb  # noqa: E402
    from pybullet_utils.bullet_client import BulletClient as _BulletClient  # noqa: E402


def connect(gui: bool) -> _BulletClient:
    with quiet_stdout():
        return _BulletClient(connection_mode=pb.GUI if gui else pb.DIRECT)


__all__ = ["pb", "connect", "quiet_stdout"]
