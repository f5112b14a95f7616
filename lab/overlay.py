"""Overlays drawn onto rendered images: the same drawing for ``--screenshot`` and ``--video`` frames.

An engine camera image holds only the bodies; the GUI's force arrows, trails, support triangle and
label are debug items that no camera renders. :class:`Scene` keeps what they show, in world
coordinates, from the run's snapshots (fed every step by the runner, cheap: a trail point every
``trail_period``); :func:`draw` projects those 3-D points with the camera's own view and projection
matrices (PyBullet's column-major 4×4 lists, OpenGL clip space) and draws them with Pillow:

* force arrows: from each link's COM ``p_W`` along ``arrow_scale · F_W`` (the GUI's scale: a link's
  weight is two link lengths), red;
* head trail (blue) and COM trail (orange), the last ``trail_max`` points;
* lines offered by the controller and the force laws (``gui_overlay(state) -> (lines, text)``: the
  tracked robot's support triangle, the drag trial's rope), with their own colours;
* a label in the top-left corner: ``t``, the kinetic energy, the arrows' scale (:func:`arrow_legend`)
  and the sources' texts.

A point behind the camera (clip w ≤ 0) is not drawn; a segment with one end behind it is dropped.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

ARROW_RGB = (217, 26, 26)
TRAIL_RGB = (26, 89, 230)
COM_TRAIL_RGB = (230, 128, 13)
TEXT_RGB = (13, 13, 13)


def arrow_scale(world) -> float:
    """Metres of arrow per newton: one link's weight is drawn two link lengths long (as in the GUI)."""
    m = world.model
    if m is not None and m.mass.size:
        return 2.0 * m.link_length / max(1e-9, float(m.mass.mean()) * max(m.gravity, 1e-9))
    return 0.05


def arrow_legend(scale: float) -> str:
    """The arrows' scale in words: what one newton is drawn as (the force laws' output on each link)."""
    cm = 100.0 * scale
    return f"red arrows: force laws on each link, 1 N = {cm:.3g} cm" if cm >= 0.1 else \
        f"red arrows: force laws on each link, 1 N = {1000 * scale:.3g} mm"


def project(points_W, view, proj, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates (u right, v down) of world points and whether each lies in front of the
    camera. ``view`` and ``proj`` are PyBullet's column-major 16-element matrices."""
    P = np.asarray(points_W, dtype=float).reshape(-1, 3)
    V = np.asarray(view, dtype=float).reshape(4, 4).T  # column-major → row-major
    Pr = np.asarray(proj, dtype=float).reshape(4, 4).T
    clip = (Pr @ V @ np.c_[P, np.ones(len(P))].T).T
    w = clip[:, 3]
    front = (w > 1e-9) & np.isfinite(clip).all(axis=1)
    ndc = clip[:, :3] / np.where(front, w, 1.0)[:, None]
    u = (ndc[:, 0] + 1.0) * 0.5 * width
    v = (1.0 - ndc[:, 1]) * 0.5 * height
    return np.c_[u, v], front


def unproject(uv, depth_point_W, view, proj, width: int, height: int) -> np.ndarray:
    """World points that :func:`project` maps to the pixels ``uv`` (u right, v down), at the depth of
    ``depth_point_W`` (the same normalised depth): the inverse of the camera's projection, used to pin
    debug text to fixed places on the screen. ``depth_point_W`` must lie in front of the camera."""
    V = np.asarray(view, dtype=float).reshape(4, 4).T
    Pr = np.asarray(proj, dtype=float).reshape(4, 4).T
    M = Pr @ V
    clip = M @ np.r_[np.asarray(depth_point_W, dtype=float), 1.0]
    if not clip[3] > 1e-9:
        raise ValueError("unproject: the depth point is behind the camera")
    z = clip[2] / clip[3]
    uv = np.asarray(uv, dtype=float).reshape(-1, 2)
    ndc = np.c_[2.0 * uv[:, 0] / width - 1.0, 1.0 - 2.0 * uv[:, 1] / height, np.full(len(uv), z), np.ones(len(uv))]
    h = np.linalg.solve(M, ndc.T).T
    return h[:, :3] / h[:, 3:4]


class Scene:
    """What the overlays show, gathered from the run (world frame). ``update`` after every step."""

    trail_period = 0.05  # s between trail points (the GUI's)

    def __init__(self, world, sources=(), trail_max: int = 600, head: int | None = -1):
        # ``head``: the link whose trail is drawn blue (the spec's head_link); None for a robot without a
        # head (the tracked robot's last link is a belt slab: its trail would circle the belt)
        self.head_link = head
        self.sources = [s for s in sources if hasattr(s, "gui_overlay")]
        self.scale = arrow_scale(world)
        self.trail_every = max(1, int(round(self.trail_period / world.dt)))
        self.head = deque(maxlen=trail_max)
        self.com = deque(maxlen=trail_max)
        self.state = None
        self.applied = None

    def update(self, k: int, state, applied=None) -> None:
        """``applied``: what the step applied (an (N, 3) force array or a Wrench); read at draw time."""
        self.state, self.applied = state, applied
        if k % self.trail_every == 0 and np.isfinite(state.com_W).all():
            if self.head_link is not None:
                self.head.append(np.array(state.p_W[self.head_link], dtype=float))
            self.com.append(np.array(state.com_W, dtype=float))

    def items(self) -> tuple[list, list]:
        """``(segments, texts)``: segments as (p0_W, p1_W, rgb 0-255, width px, arrow head?)."""
        s = self.state
        if s is None:
            return [], []
        segs = []
        for trail, rgb in ((self.head, TRAIL_RGB), (self.com, COM_TRAIL_RGB)):
            pts = list(trail)
            segs += [(a, b, rgb, 2, False) for a, b in zip(pts[:-1], pts[1:])]
        if self.applied is not None:
            from lab.forces.base import as_wrench

            F = np.asarray(as_wrench(self.applied).F_W, dtype=float)
            for p, f in zip(np.asarray(s.p_W, dtype=float), F):
                if np.linalg.norm(f) * self.scale > 1e-4:
                    segs.append((p, p + self.scale * f, ARROW_RGB, 2, True))
        texts = [f"t = {s.t:6.2f} s   E = {s.kinetic_energy * 1e3:8.3f} mJ"]
        if self.applied is not None:
            texts.append(arrow_legend(self.scale))
        for src in self.sources:
            lines, txt = src.gui_overlay(s)
            for p0, p1, rgb in lines:
                segs.append((np.asarray(p0, float), np.asarray(p1, float),
                             tuple(int(round(255 * c)) for c in rgb), 3, False))
            if txt:
                texts.append(str(txt))
        return segs, texts


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType: a scalable font
    except TypeError:  # older Pillow: the fixed bitmap font
        return ImageFont.load_default()


def draw(rgb: np.ndarray, scene: Scene, view, proj, more_texts=()) -> np.ndarray:
    """``rgb`` (H, W, 3) with the scene's overlays drawn on, seen through ``view``/``proj``; ``more_texts``
    are further lines under the scene's label (the window's control panel, :mod:`lab.gui`)."""
    from PIL import Image, ImageDraw

    segs, texts = scene.items()
    texts = [t for t in (*texts, *more_texts) if t]
    h, w = rgb.shape[:2]
    img = Image.fromarray(np.ascontiguousarray(rgb[:, :, :3], dtype=np.uint8))
    d = ImageDraw.Draw(img)
    if segs:
        ends = np.array([np.r_[a, b] for a, b, *_ in segs], dtype=float).reshape(-1, 3)
        uv, front = project(ends, view, proj, w, h)
        uv, front = uv.reshape(-1, 2, 2), front.reshape(-1, 2)
        lim = 4.0 * max(w, h)  # Pillow draws far-off coordinates fine, but not inf
        for (_, _, col, width, head), (p, q), ok in zip(segs, uv, front):
            if not ok.all() or np.abs(np.r_[p, q]).max() > lim:
                continue
            d.line([tuple(p), tuple(q)], fill=col, width=width)
            if head:
                _arrow_head(d, p, q, col)
    font = _font(max(12, h // 36))
    y = 6
    for text in texts:
        box = d.textbbox((8, y), text, font=font)
        d.rectangle((box[0] - 4, box[1] - 2, box[2] + 4, box[3] + 2), fill=(255, 255, 255))
        d.text((8, y), text, fill=TEXT_RGB, font=font)
        y = box[3] + 6
    return np.asarray(img)


def _arrow_head(d, p, q, col) -> None:
    v = np.asarray(q, float) - np.asarray(p, float)
    n = math.hypot(*v)
    if n < 3.0:
        return
    e = v / n
    size = min(8.0, 0.4 * n)
    back = np.asarray(q, float) - size * e
    side = np.array([-e[1], e[0]]) * 0.5 * size
    d.polygon([tuple(q), tuple(back + side), tuple(back - side)], fill=col)


__all__ = ["Scene", "arrow_legend", "arrow_scale", "draw", "project", "unproject"]
