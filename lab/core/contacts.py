"""The contact snapshot's layout: what each column of a contact row holds, named once.

``RobotState.contacts`` (filled when ``World.record_contacts`` is on) is a float array (k, 12), one
row per contact point of the robot after the last step, built by :func:`lab.core.kernels.contact_rows`
from PyBullet's points (``World._read_contacts``). Every reader (the cleat law, the climb controller's
contact summary, the energy ledger's contact power) indexes it by these names, never by number.
:class:`Raw` is the (k, 17) packing of PyBullet's points that the kernel reads.

An :class:`~enum.IntEnum` indexes numpy arrays and, as a compile-time constant, numba's loops.
This module imports nothing from the lab (the kernels and the laws all read it).
"""

from __future__ import annotations

from enum import IntEnum


class Col(IntEnum):
    """Columns of a contact row, world frame W."""

    LINK = 0  # the robot's link (0 = base, as the snapshot's arrays; PyBullet's link index + 1)
    BODY = 1  # the other body's PyBullet id
    PX = 2  # contact point p_W on the other body (m)…
    PY = 3
    PZ = 4
    NX = 5  # contact normal n_W, from the other body towards the robot (unit)…
    NY = 6
    NZ = 7
    FN = 8  # normal force (N, ≥ 0) along n_W
    FX = 9  # friction force on the robot (N), world frame…
    FY = 10
    FZ = 11


N_COLS = 12
P_W = slice(Col.PX, Col.PZ + 1)  # contact point (3)
N_W = slice(Col.NX, Col.NZ + 1)  # contact normal (3)
F_T = slice(Col.FX, Col.FZ + 1)  # friction force (3)


class Raw(IntEnum):
    """Columns of PyBullet's contact points as ``World._read_contacts`` packs them for the kernel:
    [linkA, bodyB, positionOnB (3), contactNormalOnB (3), normalForce, lateralFriction1,
    lateralFrictionDir1 (3), lateralFriction2, lateralFrictionDir2 (3)]."""

    LINK = 0
    BODY = 1
    PX = 2
    PY = 3
    PZ = 4
    NX = 5
    NY = 6
    NZ = 7
    FN = 8
    F1 = 9  # friction along dir 1 (N; its sign: see World._read_contacts)
    D1X = 10
    D1Y = 11
    D1Z = 12
    F2 = 13  # friction along dir 2 (N)
    D2X = 14
    D2Y = 15
    D2Z = 16


__all__ = ["Col", "F_T", "N_COLS", "N_W", "P_W", "Raw"]
