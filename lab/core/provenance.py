"""``provenance.json``: what produced a set of results, written beside them by every run, check,
sweep and report.

Lab, Python, pybullet, numpy and scipy versions, the platform, the git commit and whether the
checkout had uncommitted changes (when the lab runs from a checkout), the command line, the start
time and the wall time. Everything here changes from one invocation to the next, so none of it goes
into ``metrics.json`` or ``timeseries.csv``: the same scenario and seed give byte-identical results.
"""

from __future__ import annotations

import functools
import os
import platform
import shlex
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

PACKAGES = ("pybullet", "numpy", "scipy")
from lab.core.resources import checkout_root

# The repository root when lab runs from a checkout (None when installed from a wheel: a venv that sits
# inside some other git repository must not record that repository's commit).
CHECKOUT = checkout_root()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str | None:
    try:
        res = subprocess.run(["git", "-C", str(CHECKOUT), *args], capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout if res.returncode == 0 else None


def git_state() -> dict | None:
    """``{"commit", "dirty"}`` of the checkout the lab is imported from, or None (installed, no git).
    Dirty means uncommitted changes to tracked files; untracked files (e.g. ``runs/``) do not count."""
    if CHECKOUT is None or not (CHECKOUT / ".git").exists():
        return None
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit.strip(), "dirty": None if status is None else bool(status.strip())}


@functools.lru_cache(maxsize=1)
def environment() -> dict:
    """The parts that do not change within one process (cached: a sweep's worker asks once)."""
    from lab import __version__

    return {
        "lab_version": __version__,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        **{f"{name}_version": _version(name) for name in PACKAGES},
        "platform": platform.platform(),
        "machine": platform.machine(),
        "git": git_state(),
    }


def iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(epoch)) + time.strftime("%z", time.localtime(epoch))


def collect(command: list[str] | tuple | None, started: float, wall_s: float | None, **extra) -> dict:
    """One provenance record. ``command``: the argv as typed (``["lab", "run", …]``); ``started``: the
    start as ``time.time()``; ``wall_s``: seconds from the start to the results being written."""
    argv = list(command) if command else ["lab", *sys.argv[1:]]
    rec = {**environment(), "command": shlex.join(argv), "argv": argv, "cwd": os.getcwd(),
           "started": iso(started), "wall_time_s": None if wall_s is None else round(float(wall_s), 3)}
    rec.update(extra)
    return rec
