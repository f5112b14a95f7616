"""The PyBullet window's overlay: follow camera, live controller sliders, force arrows, head and CM trails.

Used by :class:`lab.runner.Simulation` when a run has ``--gui``::

    viewer = open_viewer()                  # the window, opened before the physics client
    world = World(..., gui=False)           # physics in DIRECT mode, as in a headless run
    gui = GuiOverlay(world, controller, viewer=viewer)   # mirrors the world into the window
    ...every step:  if not gui.update(k, state, F_W): stop
    gui.screenshot("shot.png"); gui.close()

(A World created with ``gui=True`` works too: the overlay then draws into the World's own window.)

Every engine call goes through a BulletClient (never the global ``pybullet`` state). The work is
spread over the steps; most steps cost a few integer comparisons:

==================  ==========  ====================================================================
what                every       how
==================  ==========  ====================================================================
camera              1/30 s      target eases towards ``state.com_W``; the user's zoom/yaw/pitch kept
sliders, toggles    1/20 s      ``controller.set_param`` when a slider moved; closed window → False
force arrows        1/20 s      dots from ``p_W[i]`` along ``F_W[i]``: one batched item, replaced
head trail          0.05 s      line segments of ``p_W[-1]`` once it has moved, a ring of ``trail_max``
CM trail            0.05 s      the same for ``state.com_W`` (toggle "show CM trail")
label               0.2 s       ``t`` and the kinetic energy, above the robot
==================  ==========  ====================================================================

**Stopping.** The *quit* button and the Esc key end the run cleanly: the next call raises
``pybullet.error`` (or the button count rises), ``update`` returns False, and the runner writes the
results with status "stopped". The title-bar close button is another matter on Linux: PyBullet's X11
window does not take part in WM_DELETE_WINDOW, so the window manager kills its X connection and
Xlib ends the whole process (exit code 1, nothing written). Use Esc or *quit*.

**Cost.** In a GUI-mode client every engine call is a hand-over between the caller's, the physics
server's and the GUI's threads. With the World itself in GUI mode that is ~17 calls per step; on
this 2-CPU machine under Mesa software GL a step then cost 0.7–32 ms (median of runs ~1.8–12 ms,
depending on how busy the CPUs were). Mirrored, the physics runs in DIRECT mode (0.16–0.23 ms a
step) and the window gets one pose reset per visual shape 30 times a second: 0.6–2.4 ms a step in
all, and bit-for-bit the numbers of a headless run. Debug items (points, lines, text) wait for the
GUI thread's next loop, which by default renders a frame first (~6–25 ms an item here);
``GUI_OPTIONS`` (``--minGraphicsUpdateTimeMs``) lets it serve them between frames. Hence also one
batched points item for all arrows, no trail segment until the head has moved, the preview panes
off, and budgets: drawing, and moving the mirror's bodies, each take at most a quarter of the wall
time (a robot with many links, like the 58-link tracked robot, gets fewer frames, not a slower run).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time

import numpy as np

from .engine import connect, pb, quiet_stdout
from .errors import LabError
from .visual import add_ground_grid, robot_length

log = logging.getLogger(__name__)

ARROW_RGB = (0.85, 0.1, 0.1)
TRAIL_RGB = (0.1, 0.35, 0.9)
COM_TRAIL_RGB = (0.9, 0.5, 0.05)
TEXT_RGB = (0.05, 0.05, 0.05)
#: Connect options for a GUI client: render at most every 33 ms, so that between frames the GUI
#: thread serves debug-item commands at once instead of after the next rendered frame.
GUI_OPTIONS = "--minGraphicsUpdateTimeMs=33000"


def _every(period_s: float, dt: float) -> int:
    return max(1, int(round(period_s / dt)))


def open_viewer(options: str = GUI_OPTIONS):
    """A GUI client for mirroring a DIRECT world. Open it *before* any DIRECT client: PyBullet
    3.2.x answers ``getDebugVisualizerCamera`` with zeros for a GUI opened after one.

    Without an X display PyBullet's window code calls ``exit(1)`` from C, so on Linux a missing
    ``DISPLAY`` is reported first, as bad input."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        raise LabError("--gui", "no X display (DISPLAY is not set); on a headless machine run under "
                                "xvfb-run, or record a video with --video instead")
    if not options:
        return connect(True)
    from pybullet_utils.bullet_client import BulletClient

    with quiet_stdout():
        c = BulletClient(connection_mode=pb.GUI, options=options)
        # The first shadowed frame prints "ven = <GL vendor>" twice from the GUI thread; render one
        # tiny frame here so that it happens while stdout is still muted.
        c.configureDebugVisualizer(pb.COV_ENABLE_SHADOWS, 1)
        c.getCameraImage(8, 8, renderer=pb.ER_BULLET_HARDWARE_OPENGL)
    return c


def clear_viewer(viewer) -> bool:
    """Empty a mirror's viewer for another world (its bodies, sliders and debug items), so one window
    serves episode after episode (lab.envs); False if the window has gone."""
    try:
        viewer.resetSimulation()
        viewer.removeAllUserParameters()
        viewer.removeAllUserDebugItems()
        return True
    except pb.error:
        return False


def close_viewer(viewer) -> None:
    """Disconnect a viewer that no overlay owns (nothing happens if the window has gone)."""
    try:
        with quiet_stdout():
            viewer.disconnect()
    except pb.error:
        pass


class _Mirror:
    """Visual-only copies, in a viewer client, of every body of a DIRECT client; ``sync`` moves
    them to the physics client's poses (one reset per visual shape per frame).

    Visual frames from ``getVisualShapeData`` are relative to each link's URDF frame, so link poses
    come from ``getLinkStates`` (world link frame, items 4–5) and the base pose is the COM pose
    composed with the inverse of the base's local inertial frame.
    """

    def __init__(self, src, viewer):
        self.src, self.viewer = src, viewer
        self.dynamic: list[tuple[int, list[int], list[tuple[int, int]]]] = []  # (body, links, [(link, copy)])
        self._inertial: dict[int, tuple] = {}
        for i in range(src.getNumBodies()):
            b = src.getBodyUniqueId(i)
            n_links = src.getNumJoints(b)
            copies = [(v[1], vid) for v in src.getVisualShapeData(b) if (vid := self._copy(v)) is not None]
            info = src.getDynamicsInfo(b, -1)
            if copies and (n_links > 0 or info[0] > 0):
                self.dynamic.append((b, list(range(n_links)), copies))
                self._inertial[b] = src.invertTransform(info[3], info[4])
            elif copies:  # static: place once
                self._inertial[b] = src.invertTransform(info[3], info[4])
                pos, orn = src.getBasePositionAndOrientation(b)
                for _, vid in copies:
                    viewer.resetBasePositionAndOrientation(vid, *src.multiplyTransforms(pos, orn, *self._inertial[b]))
        self.sync()

    def _copy(self, v) -> int | None:
        geom, dims, fname, pos, orn, rgba = v[2], v[3], v[4], v[5], v[6], v[7]
        c = self.viewer
        kw = {"rgbaColor": list(rgba), "visualFramePosition": list(pos), "visualFrameOrientation": list(orn)}
        fname = fname.decode() if isinstance(fname, bytes) else fname
        if geom == pb.GEOM_BOX:
            shape = c.createVisualShape(pb.GEOM_BOX, halfExtents=[d / 2 for d in dims], **kw)
        elif geom == pb.GEOM_SPHERE:
            shape = c.createVisualShape(pb.GEOM_SPHERE, radius=dims[0], **kw)
        elif geom in (pb.GEOM_CYLINDER, pb.GEOM_CAPSULE):
            shape = c.createVisualShape(geom, length=dims[0], radius=dims[1], **kw)
        elif geom == pb.GEOM_MESH and fname and os.path.exists(fname):
            shape = c.createVisualShape(pb.GEOM_MESH, fileName=fname, meshScale=list(dims), **kw)
        elif geom == pb.GEOM_PLANE:
            shape = c.createVisualShape(pb.GEOM_BOX, halfExtents=[50, 50, 0.0005], **kw)
        else:
            log.warning("gui: cannot mirror visual shape type %s of body %s", geom, v[0])
            return None
        return c.createMultiBody(0.0, -1, shape)

    def sync(self) -> None:
        src, reset = self.src, self.viewer.resetBasePositionAndOrientation
        for b, links, copies in self.dynamic:
            pos, orn = src.getBasePositionAndOrientation(b)
            poses = {-1: src.multiplyTransforms(pos, orn, *self._inertial[b])}
            if links:
                for j, ls in zip(links, src.getLinkStates(b, links, computeForwardKinematics=1)):
                    poses[j] = (ls[4], ls[5])
            for link, vid in copies:
                reset(vid, *poses[link])


class GuiOverlay:
    """Overlay for one World: drawn into its window (GUI world) or into ``viewer``, a GUI client
    that mirrors a DIRECT world (see the module docstring)."""

    camera_period = 1.0 / 30.0
    param_period = 1.0 / 20.0
    arrow_period = 1.0 / 20.0
    trail_period = 0.05
    text_period = 0.2
    camera_tau = 0.25  # s, time constant of the camera's easing towards the COM
    draw_budget = 0.25  # drawing may use at most this fraction of the wall time (see _within_budget)
    sync_budget = 0.25  # the same for moving the mirror's bodies

    def __init__(self, world, controller, trail_max: int = 600, grid: bool = True, viewer=None):
        self.world = world
        self.controller = controller
        self.overlay_sources: list = []  # force laws etc. offering gui_overlay(state) -> (lines, text)
        self._mirror: _Mirror | None = None
        if world.gui:
            self.client = c = world.client
        else:
            self.client = c = viewer if viewer is not None else open_viewer()
            c.configureDebugVisualizer(pb.COV_ENABLE_GUI, 1)
            c.configureDebugVisualizer(pb.COV_ENABLE_SHADOWS, 1)
            self._mirror = _Mirror(world.client, c)
            draw_current = getattr(world.arena, "draw_current", None)  # debug lines are not mirrored
            if draw_current is not None:
                draw_current(lambda a, b, rgb, width: c.addUserDebugLine(a, b, rgb, width, 0))
        dt = world.dt
        self._cam_every = _every(self.camera_period, dt)
        self._param_every = _every(self.param_period, dt)
        self._arrow_every = _every(self.arrow_period, dt)
        self._trail_every = _every(self.trail_period, dt)
        self._text_every = _every(self.text_period, dt)
        self._cam_alpha = 1.0 - math.exp(-self._cam_every * dt / self.camera_tau)
        m = world.model
        L = robot_length(world)
        link = m.link_length if m is not None else 0.1
        self._cam = [max(0.3, 1.0 * L), 30.0, -35.0]  # distance, yaw, pitch (used if the GUI can't tell us)
        # A robot before a step (lab.arenas.step: the riser faces −x at x = step_x): framed side-on, the
        # camera looking along +y so x runs left to right, aimed between the robot and the riser.
        from .arenas.step import Stairs, Step

        self._riser_W: np.ndarray | None = None
        self._robot_size = L
        if isinstance(world.arena, (Step, Stairs)) and world.arena.step_height > 0:
            x_e, h = world.arena.edge
            self._riser_W = np.array([x_e, 0.0, 0.5 * h])
            com_x = float(world.read_state().com_W[0])
            self._cam = [max(0.6, 1.4 * (abs(x_e - com_x) + L)), 0.0, -12.0]
        self._text_dz = 0.25 * L
        # A force equal to one link's weight is drawn two link lengths long.
        if m is not None and m.mass.size:
            self.arrow_scale = 2.0 * link / max(1e-9, float(m.mass.mean()) * max(m.gravity, 1e-9))
        else:
            self.arrow_scale = 0.05
        self._arrow_dot = link / 50.0
        self.trail_max = int(trail_max)
        self.trail_min_step = 0.1 * link
        self._target: np.ndarray | None = None
        self._arrow_ids: list[int] = []
        self._trail_ids: list[int] = []
        self._trail_next = 0  # ring-buffer slot to overwrite next once full
        self._trail_last: list[float] | None = None
        # the robot's centre of mass gets a trail of its own (the eel's CM path is what Zhang 2018 plots)
        self._com_ids: list[int] = []
        self._com_next = 0
        self._com_last: list[float] | None = None
        self._text_id = -1
        self._legend_id = -1
        self._panel_id = -1
        self._draw_s = 0.0
        self._sync_s = 0.0
        self._wall0: float | None = None
        self.closed = False

        # The synthetic-camera preview panes are re-rendered every frame and show nothing here;
        # hiding them cuts the GUI's frame time (~20 → 12 ms under Mesa software GL).
        for flag in (pb.COV_ENABLE_RGB_BUFFER_PREVIEW, pb.COV_ENABLE_DEPTH_BUFFER_PREVIEW,
                     pb.COV_ENABLE_SEGMENTATION_MARK_PREVIEW):
            c.configureDebugVisualizer(flag, 0)
        if grid and m is not None:
            add_ground_grid(world, c, center=world.read_state().com_W[:2])
        # Sliders for the controller's tunables, starting at the controller's current values.
        self._sliders: dict[str, int] = {}
        for name, (lo, hi) in controller.tunables().items():
            v0 = float(getattr(controller.params, name))
            self._sliders[name] = c.addUserDebugParameter(name, min(float(lo), v0), max(float(hi), v0), v0)
        # Toggles (0..1, > 0.5 = on) and a quit button (rangeMin > rangeMax makes a button).
        self._tog_follow = c.addUserDebugParameter("follow camera", 0, 1, 1)
        self._tog_arrows = c.addUserDebugParameter("show forces", 0, 1, 1)
        self._tog_trail = c.addUserDebugParameter("show head trail", 0, 1, 1)
        self._tog_com = c.addUserDebugParameter("show CM trail", 0, 1, 1)
        self._quit = c.addUserDebugParameter("quit", 1, 0, 0)
        # Read back once: the engine stores float32, so later reads are compared with these.
        self._slider_last = {name: c.readUserDebugParameter(sid) for name, sid in self._sliders.items()}
        self._quit0 = c.readUserDebugParameter(self._quit)
        self.follow = self.show_arrows = self.show_trail = self.show_com_trail = True
        log.info("gui: ready (%s; sliders: %s)", "mirroring a DIRECT world" if self._mirror else "GUI world",
                 ", ".join(self._sliders) or "none")

    # ------------------------------------------------------------------ per step
    def update(self, k: int, state, F_W) -> bool:
        """Refresh what is due at step ``k``; False once the window is closed or quit pressed."""
        if self.closed:
            return False
        try:
            if k % self._param_every == 0 and not self._read_controls():
                self.closed = True
                return False
            if k % self._cam_every == 0:
                if self._mirror is not None and self._within_budget(self._sync_s, self.sync_budget):
                    t0 = time.perf_counter()
                    self._mirror.sync()
                    self._sync_s += time.perf_counter() - t0
                if self.follow:
                    self._follow(state.com_W)
            due = [f for f, n in ((self._draw_arrows, self._arrow_every), (self._extend_trail, self._trail_every),
                                  (self._draw_text, self._text_every), (self._draw_overlay, self._arrow_every))
                   if k % n == 0]
            if due and self._within_budget(self._draw_s, self.draw_budget):
                t0 = time.perf_counter()
                for f in due:
                    f(state, F_W)
                self._draw_s += time.perf_counter() - t0
        except pb.error:  # the window was closed (Esc): every call now fails
            self.closed = True
            return False
        return True

    def _within_budget(self, spent: float, budget: float) -> bool:
        """False while ``spent`` is more than ``budget`` of the wall time since the first update:
        each GUI call waits for the GUI's threads (see the module docstring), so a slow machine or
        a robot with many links gets fewer refreshes instead of a slower simulation."""
        now = time.perf_counter()
        if self._wall0 is None:
            self._wall0 = now
            return True
        return spent <= budget * (now - self._wall0)

    def _read_controls(self) -> bool:
        c = self.client
        if not c.isConnected():
            return False
        r = c.readUserDebugParameter  # raises pybullet.error once the window is closed
        if r(self._quit) > self._quit0:
            log.info("gui: quit pressed")
            return False
        for name, sid in self._sliders.items():
            v = r(sid)
            if v != self._slider_last[name]:
                self._slider_last[name] = v
                try:
                    self.controller.set_param(name, v)
                    log.info("gui: %s = %.4g", name, v)
                except ValueError as exc:
                    log.warning("gui: %s = %.4g rejected: %s", name, v, exc)
        self.follow = r(self._tog_follow) > 0.5
        arrows = r(self._tog_arrows) > 0.5
        trail = r(self._tog_trail) > 0.5
        com_trail = r(self._tog_com) > 0.5
        if self.show_com_trail and not com_trail:
            self._remove(self._com_ids)
            self._com_next, self._com_last = 0, None
        self.show_com_trail = com_trail
        if self.show_arrows and not arrows:
            self._remove(self._arrow_ids)
        if self.show_trail and not trail:
            self._remove(self._trail_ids)
            self._trail_next, self._trail_last = 0, None
        self.show_arrows, self.show_trail = arrows, trail
        return True

    def _remove(self, ids: list[int]) -> None:
        for i in ids:
            self.client.removeUserDebugItem(i)
        ids.clear()

    def _camera(self) -> tuple[float, float, float]:
        """The window's distance, yaw and pitch (as the user left them with the mouse)."""
        cam = self.client.getDebugVisualizerCamera()
        if cam[0] > 0:  # zeros when PyBullet can't tell (a GUI opened after a DIRECT client)
            self._cam = [cam[10], cam[8], cam[9]]
        return tuple(self._cam)

    def _follow(self, com_W: np.ndarray) -> None:
        com = np.asarray(com_W, dtype=float)
        if self._riser_W is not None and abs(com[0] - self._riser_W[0]) < self._robot_size:
            com = 0.5 * (com + self._riser_W)  # near the step: keep the riser in the frame
        if self._target is None:  # first call: our framing, centred on the robot
            self._target = com.copy()
        else:
            self._target += self._cam_alpha * (com - self._target)
            self._camera()
        self.client.resetDebugVisualizerCamera(*self._cam, self._target.tolist())

    def _draw_arrows(self, state, F_W) -> None:
        """All links' force arrows as one points item (dots from each COM along F, brighter towards
        the tip): one GUI command per refresh instead of one line per link."""
        if not self.show_arrows or F_W is None:
            return
        vec = self.arrow_scale * np.asarray(F_W, dtype=float)
        n_dots = np.minimum(np.floor(np.linalg.norm(vec, axis=1) / self._arrow_dot), 80).astype(int)
        if not n_dots.any():
            self._remove(self._arrow_ids)
            return
        link = np.repeat(np.arange(len(vec)), n_dots)
        s = np.concatenate([np.arange(1, n + 1) / n for n in n_dots if n])  # (0, 1] along each arrow
        pts = state.p_W[link] + s[:, None] * vec[link]
        rgb = np.outer(0.35 + 0.65 * s, ARROW_RGB)
        kw = {"replaceItemUniqueId": self._arrow_ids[0]} if self._arrow_ids else {}
        self._arrow_ids[:] = [self.client.addUserDebugPoints(pts.tolist(), rgb.tolist(), 4.0, 0, **kw)]

    def _extend_trail(self, state, F_W=None) -> None:
        if self.show_com_trail:
            self._extend_com_trail(state)
        if not self.show_trail:
            return
        head = state.p_W[-1].tolist()
        last = self._trail_last
        if last is not None and math.dist(last, head) < self.trail_min_step:
            return  # no new segment until the head has visibly moved
        self._trail_last = head
        if last is None:
            return
        c, ids = self.client, self._trail_ids
        if len(ids) < self.trail_max:
            ids.append(c.addUserDebugLine(last, head, TRAIL_RGB, 2.0, 0))
        else:  # full: overwrite the oldest segment
            c.addUserDebugLine(last, head, TRAIL_RGB, 2.0, 0, replaceItemUniqueId=ids[self._trail_next])
            self._trail_next = (self._trail_next + 1) % self.trail_max

    def _extend_com_trail(self, state) -> None:
        com = np.asarray(state.com_W, dtype=float).tolist()
        last = self._com_last
        if last is not None and math.dist(last, com) < self.trail_min_step:
            return
        self._com_last = com
        if last is None:
            return
        c = self.client
        ids = self._com_ids
        if len(ids) < self.trail_max:
            ids.append(c.addUserDebugLine(last, com, COM_TRAIL_RGB, 2.5, 0))
        else:
            c.addUserDebugLine(last, com, COM_TRAIL_RGB, 2.5, 0, replaceItemUniqueId=ids[self._com_next])
            self._com_next = (self._com_next + 1) % self.trail_max

    def _draw_text(self, state, F_W=None) -> None:
        pos = (np.asarray(state.com_W) + [0.0, 0.0, self._text_dz]).tolist()
        text = f"t = {state.t:6.2f} s   E = {state.kinetic_energy * 1e3:8.3f} mJ"
        kw = {"replaceItemUniqueId": self._text_id} if self._text_id >= 0 else {}
        self._text_id = self.client.addUserDebugText(text, pos, TEXT_RGB, 1.3, 0, **kw)
        # the arrows' scale, on a line of its own above the label (empty while the arrows are hidden)
        from .overlay import arrow_legend

        legend = arrow_legend(self.arrow_scale) if self.show_arrows else ""
        pos[2] += 0.3 * self._text_dz
        kw = {"replaceItemUniqueId": self._legend_id} if self._legend_id >= 0 else {}
        self._legend_id = self.client.addUserDebugText(legend, pos, ARROW_RGB, 1.1, 0, **kw)
        # our own panel: the controller sliders' names and values, in the order of the window's Params
        # panel, whose widget text Mesa's software renderer (Xvfb) draws only in some frames
        panel = "sliders: " + "  ".join(f"{n} = {v:.3g}" for n, v in self._slider_last.items()) \
            if self._slider_last else ""
        pos[2] += 0.3 * self._text_dz  # stacked above the label and the legend, clear of the robot
        kw = {"replaceItemUniqueId": self._panel_id} if self._panel_id >= 0 else {}
        self._panel_id = self.client.addUserDebugText(panel, pos, TEXT_RGB, 1.0, 0, **kw)

    def _draw_overlay(self, state, F_W=None) -> None:
        """Lines and a label the controller and ``overlay_sources`` offer, ``gui_overlay(state) ->
        (lines, text)`` with lines as (p0, p1, rgb) — the tracked robot's support triangle and its
        margin, the drag trial's rope and tension. Items are replaced in place; unused ones are parked
        as zero-length lines."""
        lines, texts = [], []
        for source in [self.controller, *self.overlay_sources]:
            hook = getattr(source, "gui_overlay", None)
            if hook is not None:
                more, txt = hook(state)
                lines += list(more)
                if txt:
                    texts.append(txt)
        if not lines and not texts and not self.__dict__.get("_overlay_ids"):
            return
        text = "   ".join(texts)
        ids = self.__dict__.setdefault("_overlay_ids", [])
        c = self.client
        for i, (p0, p1, rgb) in enumerate(lines):
            kw = {"replaceItemUniqueId": ids[i]} if i < len(ids) else {}
            uid = c.addUserDebugLine(list(map(float, p0)), list(map(float, p1)), list(rgb), 3.0, 0, **kw)
            if i >= len(ids):
                ids.append(uid)
        for i in range(len(lines), len(ids)):
            c.addUserDebugLine([0, 0, -1], [0, 0, -1], [0, 0, 0], 0.1, 0, replaceItemUniqueId=ids[i])
        if text:
            tid = self.__dict__.get("_overlay_text", -1)
            pos = (np.asarray(state.com_W) + [0.0, 0.0, 1.5 * self._text_dz]).tolist()
            kw = {"replaceItemUniqueId": tid} if tid >= 0 else {}
            self._overlay_text = c.addUserDebugText(text, pos, [0.1, 0.45, 0.1], 1.2, 0, **kw)

    def close(self) -> None:
        """Close a mirror's viewer window; a GUI world's window is the World's to close."""
        self.closed = True
        if self._mirror is not None:
            try:
                if self.client.isConnected():
                    with quiet_stdout():
                        self.client.disconnect()
            except pb.error:
                pass

    # ------------------------------------------------------------------ screenshot
    def screenshot(self, path, width: int | None = None, scene=None) -> str:
        """Save the current view as a PNG: the OpenGL renderer with the window's own view and
        projection matrices. ``width`` rescales (same aspect). Debug items (arrows, trail, text) are
        not part of an engine camera image: ``scene``'s overlays (lab.overlay) are drawn onto it with
        the same matrices. Written to a temporary name, then renamed."""
        c = self.client
        w, h, view, proj = c.getDebugVisualizerCamera()[:4]
        if w <= 0:  # camera unknown (see open_viewer): rebuild the view from our own camera state
            w, h = 1024, 768
            target = self._target.tolist() if self._target is not None else [0, 0, 0]
            view = c.computeViewMatrixFromYawPitchRoll(target, self._cam[0], self._cam[1], self._cam[2], 0, 2)
            proj = c.computeProjectionMatrixFOV(60, w / h, 0.01, 100)
        if width:
            h, w = max(1, int(round(h * width / w))), int(width)
        img = c.getCameraImage(w, h, view, proj, renderer=pb.ER_BULLET_HARDWARE_OPENGL,
                               flags=pb.ER_NO_SEGMENTATION_MASK)
        rgb = np.asarray(img[2], dtype=np.uint8).reshape(img[1], img[0], 4)[:, :, :3]
        if scene is not None:
            from .overlay import draw

            rgb = draw(rgb, scene, view, proj)
        return write_image_atomic(path, rgb)


def write_image_atomic(path, rgb: np.ndarray) -> str:
    """Write an image (format from the suffix) by the write protocol (:func:`lab.writes.write_with`)."""
    import imageio.v2 as imageio

    from .writes import write_with

    path = os.fspath(path)
    suffix = os.path.splitext(path)[1] or ".png"
    write_with(path, lambda tmp: imageio.imwrite(tmp, rgb), suffix=suffix)
    return path


__all__ = ["GuiOverlay", "GUI_OPTIONS", "open_viewer", "write_image_atomic"]
