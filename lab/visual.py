"""Visual-only helpers shared by the GUI overlay and the video recorder.

The ground is one uniform colour, so a camera that follows the robot shows no motion at all. A grid
of thin dark lines on the ground gives the eye a fixed reference. It is one static body with a
*visual* shape only (no collision shape), so it never touches the physics: a run gives identical
numbers with or without it (checked in tests/tools/test_video.py).
"""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np

from lab.core.engine import pb

_NICE = (0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0)


def robot_length(world) -> float:
    """Rough size of the loaded robot for camera distances and grids: the largest extent of its
    link COMs plus one link length (0.8 m for the 10-module snake, 0.68 m for the tracked robot)."""
    m = world.model
    if m is None:
        return 1.0
    p = world.read_state().p_W
    return max(0.05, float(np.ptp(p, axis=0).max()) + m.link_length)


def nice_spacing(x: float) -> float:
    return min(_NICE, key=lambda s: abs(math.log(s / x)))


def _grid_obj(cx: float, cy: float, spacing: float, n_half: int, width: float, z: float, dots: bool) -> str:
    """OBJ text, facing +z, centred on (cx, cy): 2(2·n_half+1) thin lines, or with ``dots`` a small
    square at every crossing."""
    half = n_half * spacing
    w = width / 2.0
    verts, faces = [], []

    def quad(x0, y0, x1, y1):
        i = len(verts) + 1
        verts.extend([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        faces.append((i, i + 1, i + 2))  # counter-clockwise seen from above
        faces.append((i, i + 2, i + 3))

    for j in range(-n_half, n_half + 1):
        c = j * spacing
        if dots:
            for i in range(-n_half, n_half + 1):
                x, y = cx + i * spacing, cy + c
                quad(x - w, y - w, x + w, y + w)
        else:
            quad(cx + c - w, cy - half, cx + c + w, cy + half)  # line along y
            quad(cx - half, cy + c - w, cx + half, cy + c + w)  # line along x
    lines = ["# lab ground grid (visual only)", "vn 0 0 1", "vt 0 0"]
    lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y in verts]
    lines += [f"f {a}/1/1 {b}/1/1 {c}/1/1" for a, b, c in faces]
    return "\n".join(lines) + "\n"


def add_ground_grid(world, client=None, center=(0.0, 0.0), spacing: float | None = None, n_half: int = 25,
                    rgba=(0.45, 0.45, 0.42, 1.0), dots: bool = False) -> int | None:
    """Add a visual-only grid of lines on the ground to ``client`` (default ``world.client``), once
    per client; return its body id. The grid lies on the floor (z = 0), or on the surface of a water
    arena (z = 0 too): PyBullet's CPU renderer draws the tinted water box opaque, so a grid on its
    bottom was hidden in every video frame and ``rgb_array`` render. ``spacing`` defaults to a round
    number near a quarter of the robot's length (0.2 m for the 0.8 m snake) and the grid spans
    ``n_half`` lines either side of ``center``.

    ``dots=True`` draws a small square at each crossing instead of lines: PyBullet's CPU renderer
    (``ER_TINY_RENDERER``, used for videos) pays per covered pixel of each triangle's bounding box,
    and long lines quadruple its frame time (65 → 250 ms at 640×480) where dots add ~nothing.
    """
    c = client if client is not None else world.client
    existing = getattr(c, "_lab_ground_grid", None)
    if existing is not None:
        return existing
    if getattr(world, "ground", 0) is None and getattr(getattr(world, "arena", None), "depth", None) is None:
        return None  # no floor and no water: nothing to lie on
    z = 0.0  # the floor, or the water's surface (see the docstring)
    L = robot_length(world)
    spacing = float(spacing or nice_spacing(L / 4.0))
    width = spacing / 12.0 if dots else spacing / 60.0
    text = _grid_obj(float(center[0]), float(center[1]), spacing, int(n_half), width, z + 0.0004, dots)
    fd, path = tempfile.mkstemp(suffix=".obj", prefix="lab_grid_")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        vis = c.createVisualShape(pb.GEOM_MESH, fileName=path, rgbaColor=list(rgba), meshScale=[1, 1, 1])
        body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=-1, baseVisualShapeIndex=vis)
    finally:
        os.unlink(path)
    c._lab_ground_grid = body
    return body


__all__ = ["add_ground_grid", "robot_length", "nice_spacing"]
