"""Shared by the fault-injection tests: run the lab in a child process, kill it at a chosen moment,
mount a small tmpfs, and check the one-line error contract."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB = [sys.executable, "-m", "lab.cli"]
S = "snake_serpenoid"
TINY = ["--set", "sim.duration=0.2"]
TMP_RE = re.compile(r"\.lab-tmp\.\d+\.[0-9a-f]{8}")


def env() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("CI", None)
    return e


def lab(*args, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([*LAB, *map(str, args)], capture_output=True, text=True, cwd=cwd or ROOT, env=env(),
                          timeout=timeout)


def one_error(res: subprocess.CompletedProcess, code: int = 2) -> str:
    """The contract: exit ``code``, exactly one line on stderr, ``error: …``, no traceback."""
    assert res.returncode == code, (res.returncode, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


def ok(res: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    return res


def temporaries(root: Path) -> list[str]:
    """Every temporary of the write protocol (and older unfinished folders) under ``root``."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            if TMP_RE.search(n) or n.startswith(".lab-partial-") or n.endswith(".partial"):
                found.append(os.path.join(dirpath, n))
    return found


def killed_in(code: str, *argv, sig=signal.SIGKILL) -> subprocess.CompletedProcess:
    """Run ``lab`` in a child whose ``code`` (Python, run first) patches one function to kill the child
    with ``sig`` at an exact moment (``KILL()`` in ``code`` sends it)."""
    script = ("import os, signal, sys\n"
              f"def KILL():\n    os.kill(os.getpid(), {int(sig)})\n"
              + textwrap.dedent(code) +
              "\nfrom lab.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", script, *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT, env=env(), timeout=300)


def wait_for(pred, timeout: float = 120.0, every: float = 0.02) -> bool:
    t_end = time.monotonic() + timeout
    while time.monotonic() < t_end:
        if pred():
            return True
        time.sleep(every)
    return False


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs (a real full disk); skipped where mounting is not allowed."""
    mounted = []

    def mount(size: str) -> Path:
        d = tmp_path / f"mnt{len(mounted)}"
        d.mkdir()
        res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)], capture_output=True)
        if res.returncode != 0:
            pytest.skip("cannot mount a tmpfs here")
        mounted.append(d)
        return d

    yield mount
    for d in mounted:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def fill(folder: Path, leave: int) -> Path:
    """A user's ballast file that leaves about ``leave`` bytes free on ``folder``'s file system."""
    st = os.statvfs(folder)
    free = st.f_bavail * st.f_frsize
    ballast = folder / "ballast.bin"
    ballast.write_bytes(b"\1" * max(0, free - leave))
    return ballast


def inproc(capsys, *args) -> subprocess.CompletedProcess:
    """``lab ARGS`` in this process (imports already paid for): the same contract, checked the same way."""
    from lab.cli import main

    capsys.readouterr()
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, cap.out, cap.err)


def the_error(res: subprocess.CompletedProcess, code: int = 2) -> str:
    """For commands that also report progress on stderr (lab sweep): exit ``code``, exactly one
    ``error:`` line, last, and no traceback."""
    assert res.returncode == code, (res.returncode, res.stderr)
    lines = res.stderr.strip().splitlines()
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], res.stderr
    assert "Traceback" not in res.stderr
    return errors[0]
