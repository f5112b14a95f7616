import os
import shutil
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = bool(os.environ.get("CI"))


def need_tool(name: str) -> str:
    """Path of an external tool; skipped locally if missing, a failure in CI (which installs it)."""
    path = shutil.which(name)
    if path is None:
        if IN_CI:
            pytest.fail(f"{name} is required in CI (installed by .ci/run)")
        pytest.skip(f"{name} not installed")
    return path


@pytest.fixture
def lab_cmd():
    return [sys.executable, "-m", "lab.cli"]


def make_state(p_W=None, v_W=None, yaw=None, n=3, mass=0.5, g=9.81, q=None, qd=None, t=0.0, fn=None,
               w_W=None, length=0.08):
    """A hand-made RobotState: links lying flat with the given yaw angles."""
    from lab.robots.urdf import cylinder_x
    from lab.core.state import ModelInfo, RobotState

    yaw = np.zeros(n) if yaw is None else np.asarray(yaw, float)
    n = len(yaw)
    quat = np.stack([np.zeros(n), np.zeros(n), np.sin(yaw / 2), np.cos(yaw / 2)], axis=1)
    I = cylinder_x(mass, 0.0075, length).inertia
    model = ModelInfo(mass=np.full(n, mass), I_B=np.repeat(I[None], n, axis=0), link_length=length, gravity=g,
                      effort=1.5)
    return RobotState(t=t, p_W=np.zeros((n, 3)) if p_W is None else np.asarray(p_W, float), quat_W=quat,
                      v_W=np.zeros((n, 3)) if v_W is None else np.asarray(v_W, float),
                      w_W=np.zeros((n, 3)) if w_W is None else np.asarray(w_W, float),
                      q=np.zeros(n - 1) if q is None else np.asarray(q, float),
                      qd=np.zeros(n - 1) if qd is None else np.asarray(qd, float), model=model, fn=fn)


def snapshot(root: Path) -> dict:
    """Every entry under ``root``: its kind, mode and, for regular files, the bytes. Two equal snapshots
    mean nothing was created, changed or removed (FIFOs and devices are never opened)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = os.lstat(p)
            rel = str(p.relative_to(root))
            if stat.S_ISREG(st.st_mode):
                snap[rel] = ("file", st.st_mode, p.read_bytes())
            elif stat.S_ISLNK(st.st_mode):
                snap[rel] = ("link", os.readlink(p))
            else:
                snap[rel] = ("other", st.st_mode)
    return snap
