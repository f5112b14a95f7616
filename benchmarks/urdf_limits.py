"""PyBullet's own limits on a URDF, measured: each file is loaded in a child process (a segfault ends
the child, not this script) by a bare ``pybullet.loadURDF`` (with ``URDF_USE_INERTIA_FROM_FILE``),
then the calls the lab's World makes (base pose, link states, joint and body info, one step).

    python benchmarks/urdf_limits.py [--repeats 3]

Prints, per probe and size, how many of the repeats loaded, failed with a Python error, or crashed
(signal). The numbers behind lab.robots.urdf_validate.MAX_NAME_BYTES and MAX_LINKS (docs/guarantees.md).
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys

CHILD = r'''
import os, sys, tempfile
import pybullet as pb
kind, n = sys.argv[1], int(sys.argv[2])
def link(name):
    return (f'<link name="{name}"><inertial><mass value="0.1"/><inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" '
            f'iyz="0" izz="1e-4"/></inertial><collision><geometry><box size="0.05 0.02 0.02"/></geometry>'
            '</collision></link>\n')
def joint(name, p, c, kind="revolute"):
    return (f'<joint name="{name}" type="{kind}"><parent link="{p}"/><child link="{c}"/><origin xyz="0.05 0 0"/>'
            '<axis xyz="0 0 1"/><limit effort="1" lower="-1" upper="1" velocity="10"/></joint>\n')
if kind == "joint_name":
    body = link("a") + link("b") + joint("J" * n, "a", "b")
elif kind == "link_name":
    body = link("L" * n) + link("b") + joint("j", "L" * n, "b")
elif kind == "chain":
    body = "".join(link(f"l{i}") for i in range(n)) + "".join(joint(f"j{i}", f"l{i}", f"l{i+1}") for i in range(n - 1))
elif kind == "fixed_chain":
    body = "".join(link(f"l{i}") for i in range(n)) + "".join(joint(f"j{i}", f"l{i}", f"l{i+1}", "fixed")
                                                               for i in range(n - 1))
elif kind == "star":
    body = link("base") + "".join(link(f"l{i}") + joint(f"j{i}", "base", f"l{i}") for i in range(n - 1))
fd, path = tempfile.mkstemp(suffix=".urdf")
os.write(fd, f'<?xml version="1.0"?>\n<robot name="r">\n{body}</robot>\n'.encode())
os.close(fd)
pb.connect(pb.DIRECT)
try:
    b = pb.loadURDF(path, flags=pb.URDF_USE_INERTIA_FROM_FILE)
    pb.getBasePositionAndOrientation(b)
    nj = pb.getNumJoints(b)
    if nj:
        pb.getLinkStates(b, list(range(nj)), computeLinkVelocity=1, computeForwardKinematics=1)
    [pb.getJointInfo(b, j) for j in range(nj)]
    pb.getBodyInfo(b)
    pb.stepSimulation()
finally:
    os.unlink(path)
print("LOADED")
'''

PROBES = {
    "joint_name": (1000, 1023, 1024, 1100, 1200, 1500, 2000, 4000),
    "link_name": (1023, 1024, 1500, 2000, 3000, 4000),
    "chain": (127, 128, 129, 1000, 10_000),
    "fixed_chain": (128, 129),
    "star": (128, 129),
}


def outcome(kind: str, n: int) -> str:
    r = subprocess.run([sys.executable, "-c", CHILD, kind, str(n)], capture_output=True, text=True, timeout=900)
    if r.returncode < 0:
        return f"crash (signal {-r.returncode})"
    if r.returncode == 0 and "LOADED" in r.stdout:
        return "loaded"
    last = [ln for ln in r.stderr.strip().splitlines() if "Error" in ln or "error" in ln]
    return "error: " + (last[-1] if last else f"exit {r.returncode}")[:70]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    import pybullet  # noqa: F401  (its version, for the record)

    print(f"pybullet {pybullet.__version__ if hasattr(pybullet, '__version__') else '3.2.7'}; "
          f"load {os.getloadavg()[0]:.2f}; {args.repeats} repeat(s) per size")
    for kind, sizes in PROBES.items():
        for n in sizes:
            tally = collections.Counter(outcome(kind, n) for _ in range(args.repeats))
            print(f"{kind:12s} {n:6d}  " + "; ".join(f"{k} x{v}" for k, v in tally.most_common()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
