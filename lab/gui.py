"""The PyBullet window's overlay: follow camera, keyboard controls, force arrows, head and CM trails.

Used by the ``--gui`` observer (:class:`lab.present.Window`)::

    viewer = open_viewer()                  # the window, opened before the physics client
    world = World(..., gui=False)           # physics in DIRECT mode, as in a headless run
    gui = GuiOverlay(world, controller, viewer=viewer)   # mirrors the world into the window
    ...every step:  if not gui.update(k, state, F_W): stop
    gui.screenshot("shot.png"); gui.close()

(A World created with ``gui=True`` works too: the overlay then draws into the World's own window.)

**PyBullet's own GUI is hidden.** Its window is Bullet's example browser: an "Explorer" panel on the
left (a quarter of the window, empty under PyBullet), the Params panel of sliders on the right and a
log pane below, all one Gwen canvas. Bullet has one switch for that canvas (``COV_ENABLE_GUI``, the
``--nogui`` connect option and the ``g`` shortcut all set the same ``renderGui`` flag in
``OpenGLExampleBrowser.cpp``, together with its floor grid); the explorer panel is created
unconditionally in ``GwenUserInterface::init``. So the whole canvas is off and the lab draws its own
panel in its place: debug text pinned to the window's top-left corner (:func:`lab.overlay.unproject`
puts each line at a fixed pixel), read from the keyboard with ``getKeyboardEvents``. The keys
(:data:`KEYS`) are handled by :func:`on_keys`, a pure function of PyBullet's event dict, so the whole
key handling is tested without a display; a changed parameter reaches the running controller through
``controller.set_param``, as the sliders' did. Bullet's own keyboard shortcuts are switched off
(``COV_ENABLE_KEYBOARD_SHORTCUTS``: its ``p`` would start writing a timings file, ``w``/``s``/``g``
change the rendering); Esc still closes the window.

Every engine call goes through a BulletClient (never the global ``pybullet`` state). The work is
spread over the steps; most steps cost a few integer comparisons:

==================  ==========  ====================================================================
what                every       how
==================  ==========  ====================================================================
camera              1/30 s      target eases towards ``state.com_W``; the user's zoom/yaw/pitch kept;
                                the panel's rig moved along (one call, once the move shows)
keys                0.1 s       ``getKeyboardEvents`` → :func:`on_keys`; closed window → False
force arrows        1/20 s      dots from ``p_W[i]`` along ``F_W[i]``: one batched item, replaced
head trail          0.05 s      line segments of ``p_W[-1]`` once it has moved, a ring of ``trail_max``
CM trail            0.05 s      the same for ``state.com_W``
panel               0.2 s       ``t``, kinetic energy, the arrows' scale, the controller's parameters,
                                the toggles and the key legend; a line is re-sent only when its text
                                changed; a following camera moves them all with one call
==================  ==========  ====================================================================

**Pausing and stopping.** Space pauses: ``update`` then holds the run (polling the keys every 30 ms,
parameters can still be stepped) and keeps real time with the pause left out, so a run does not
race to catch up afterwards. ``q`` and Esc end the run cleanly: ``update`` returns False (after Esc
the next engine call raises ``pybullet.error``), and the runner writes the results with status
"stopped". The title-bar close button is another matter on Linux: PyBullet's X11 window does not take
part in WM_DELETE_WINDOW, so the window manager kills its X connection and Xlib ends the whole process
(exit code 1, nothing written). Use Esc or ``q``.

**Quiet.** While a viewer is open, C's ``stdout`` stream is muted (:func:`lab.core.engine.mute_engine_stdout`):
the GUI threads print "ven = Mesa/X.org", "numActiveThreads = 0 …" when the window closes, and more at
disconnect; Python's own output is untouched.

**Cost.** The physics runs in a DIRECT client and the window mirrors it (one pose reset per visual
shape 30 times a second), so a GUI run computes the numbers of a headless run bit for bit. Debug
items are batched and budgeted (drawing and moving the mirror's bodies each take at most a quarter of
the wall time): a robot with many links gets fewer frames, not a slower run. The measured costs are
in docs/gui.md ("What the window costs").
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from lab.core.engine import connect, mute_engine_stdout, pb, quiet_stdout, restore_engine_stdout
from lab.core.errors import LabError
from lab.visual import add_ground_grid, robot_length

log = logging.getLogger(__name__)

ARROW_RGB = (0.85, 0.1, 0.1)
TRAIL_RGB = (0.1, 0.35, 0.9)
COM_TRAIL_RGB = (0.9, 0.5, 0.05)
TEXT_RGB = (0.05, 0.05, 0.05)
NOTE_RGB = (0.1, 0.45, 0.1)  # the controller's and force laws' own text (support margin, rope tension)
SELECTED_RGB = (0.05, 0.2, 0.75)
#: Connect options for a GUI client: render at most every 33 ms, so that between frames the GUI
#: thread serves debug-item commands at once instead of after the next rendered frame.
GUI_OPTIONS = "--minGraphicsUpdateTimeMs=33000"

#: The panel's text: PyBullet draws camera-facing debug text in screen pixels with its bitmap font,
#: ``size`` × the font's height, from the anchor's projection upwards (``SimpleOpenGL3App::drawText3D``).
PANEL_TEXT_SIZE = 1.0
PANEL_LINE_PX = 16  # measured under Xvfb: glyphs of size 1.0 are up to 13 px high
PANEL_LEFT_PX = 10
PANEL_TOP_PX = 6
#: A line is re-sent when the camera has moved its anchor this far: each debug item waits for the GUI
#: thread (module docstring), and a following camera moves the anchors a little all the time.
PANEL_DRIFT_PX = 3.0

#: A parameter steps by about this fraction of its range per key press (rounded to 1, 2, 2.5 or 5 × 10^k).
STEP_FRACTION = 1.0 / 20.0

_UP, _DOWN, _LEFT, _RIGHT = pb.B3G_UP_ARROW, pb.B3G_DOWN_ARROW, pb.B3G_LEFT_ARROW, pb.B3G_RIGHT_ARROW

#: The keys, in the panel's words: (key, what it does). Letters work in either case.
KEYS = (
    ("Up/Down", "select a parameter"),
    ("Left/Right", "step it down/up (also - and +)"),
    ("c", "follow camera on/off"),
    ("f", "force arrows on/off"),
    ("h", "head trail on/off"),
    ("m", "CM trail on/off"),
    ("space", "pause/resume"),
    ("q or Esc", "quit (results are written, status 'stopped')"),
)


def _every(period_s: float, dt: float) -> int:
    return max(1, int(round(period_s / dt)))


def nice_step(lo: float, hi: float) -> float:
    """A round step near ``STEP_FRACTION`` of the range [lo, hi]: 1, 2, 2.5 or 5 × 10^k."""
    x = max(abs(hi - lo), 1e-12) * STEP_FRACTION
    k = math.floor(math.log10(x))
    cands = [m * 10.0 ** e for e in (k - 1, k, k + 1) for m in (1.0, 2.0, 2.5, 5.0)]
    return min(cands, key=lambda s: abs(math.log(s / x)))


@dataclass(frozen=True)
class Tunable:
    """A controller parameter the keys may change: its name, range and step."""

    name: str
    lo: float
    hi: float
    step: float

    def stepped(self, value: float, direction: int) -> float:
        """``value`` moved to the next multiple of the step in ``direction`` (±1: up/down), kept in
        [lo, hi] (so a start value between multiples moves less than a step, then on the grid)."""
        x = value / self.step
        n = math.floor(x + 1e-9) + 1 if direction > 0 else math.ceil(x - 1e-9) - 1
        return float(round(min(max(n * self.step, self.lo), self.hi), 12))


@dataclass(frozen=True)
class Controls:
    """What the keyboard sets (:func:`on_keys`): the controller's parameters and the view's toggles."""

    tunables: tuple[Tunable, ...] = ()
    values: tuple[float, ...] = ()
    selected: int = 0
    follow: bool = True
    forces: bool = True
    head_trail: bool = True
    com_trail: bool = True
    paused: bool = False
    quit: bool = False
    held: frozenset = frozenset()  # keys seen pressed and not yet seen released (see on_keys)

    @classmethod
    def for_controller(cls, controller) -> "Controls":
        """The controller's tunables (:meth:`lab.controllers.base.Controller.tunables`) at their current
        values; a range is widened to hold a start value outside it (as the sliders' was)."""
        tun, vals = [], []
        for name, (lo, hi) in controller.tunables().items():
            v0 = float(getattr(controller.params, name))
            lo, hi = min(float(lo), v0), max(float(hi), v0)
            tun.append(Tunable(name, lo, hi, nice_step(lo, hi)))
            vals.append(v0)
        return cls(tuple(tun), tuple(vals))

    def value(self, name: str) -> float:
        return self.values[[t.name for t in self.tunables].index(name)]


def on_keys(controls: Controls, events: Mapping[int, int]) -> Controls:
    """The controls after the keys in ``events``, PyBullet's ``getKeyboardEvents()`` dict (key code →
    bits ``KEY_IS_DOWN | KEY_WAS_TRIGGERED | KEY_WAS_RELEASED``), in the dict's order. A key acts once
    per press: when it is reported newly pressed (``KEY_WAS_TRIGGERED``), or reported released without
    its press having been seen (``controls.held``): the physics server keeps one state per key, so a
    release that reaches it before it has passed the press on overwrites the press (a quick tap; X
    events sent by a program). Held keys do not repeat. Pure: no engine call, so tested without a
    display. See :data:`KEYS`."""
    c = controls
    for key, state in events.items():
        key, state = int(key), int(state)
        if state & pb.KEY_WAS_TRIGGERED:
            if state & pb.KEY_IS_DOWN:
                c = replace(c, held=c.held | {key})
        elif state & pb.KEY_WAS_RELEASED:
            if key in c.held:
                c = replace(c, held=c.held - {key})
                continue
        else:
            continue
        ch = chr(key).lower() if 0 < key < 128 else ""
        n = len(c.tunables)
        if key in (_UP, _DOWN):
            if n:
                c = replace(c, selected=(c.selected + (1 if key == _DOWN else -1)) % n)
        elif key in (_LEFT, _RIGHT) or ch in ("-", "+", "="):
            if n:
                d = 1 if key == _RIGHT or ch in ("+", "=") else -1
                i = c.selected
                v = c.tunables[i].stepped(c.values[i], d)
                c = replace(c, values=(*c.values[:i], v, *c.values[i + 1:]))
        elif ch == "c":
            c = replace(c, follow=not c.follow)
        elif ch == "f":
            c = replace(c, forces=not c.forces)
        elif ch == "h":
            c = replace(c, head_trail=not c.head_trail)
        elif ch == "m":
            c = replace(c, com_trail=not c.com_trail)
        elif ch == " ":
            c = replace(c, paused=not c.paused)
        elif ch == "q":
            c = replace(c, quit=True)
    return c


def _onoff(flag: bool) -> str:
    return "on" if flag else "off"


def control_lines(controls: Controls) -> list[tuple[str, tuple]]:
    """The panel's control part, as (text, rgb) lines: every parameter with its value, range and step
    (the selected one marked ``>``), the toggles' states with their keys, and the other keys."""
    c = controls
    out = []
    if c.tunables:
        out.append(("parameters   [Up/Down] select   [Left/Right] step", TEXT_RGB))
        for i, (t, v) in enumerate(zip(c.tunables, c.values)):
            mark = ">" if i == c.selected else "  "
            out.append((f"{mark} {t.name} = {v:.4g}    in [{t.lo:g}, {t.hi:g}], step {t.step:g}",
                        SELECTED_RGB if i == c.selected else TEXT_RGB))
    else:
        out.append(("parameters: none (the controller offers none to change)", TEXT_RGB))
    out.append((f"[c] follow camera: {_onoff(c.follow)}   [f] forces: {_onoff(c.forces)}   "
                f"[h] head trail: {_onoff(c.head_trail)}   [m] CM trail: {_onoff(c.com_trail)}", TEXT_RGB))
    out.append((("[space] resume" if c.paused else "[space] pause") + "   [q] or [Esc] quit", TEXT_RGB))
    return out


def status_lines(controls: Controls, t: float, kinetic_J: float, legend: str = "", notes=()) -> list[tuple[str, tuple]]:
    """The panel's status part: time and kinetic energy (PAUSED while paused), the force arrows' scale
    (``legend``, :func:`lab.overlay.arrow_legend`) and the controller's and force laws' ``notes``."""
    head = f"t = {t:6.2f} s   E = {kinetic_J * 1e3:8.3f} mJ"
    out = [(head + ("   PAUSED" if controls.paused else ""), TEXT_RGB)]
    if legend:
        out.append((legend, ARROW_RGB))
    out += [(str(n), NOTE_RGB) for n in notes if n]
    return out


def open_viewer(options: str = GUI_OPTIONS):
    """A GUI client for mirroring a DIRECT world, with PyBullet's own GUI (example browser, Params
    panel) and keyboard shortcuts off. Open it *before* any DIRECT client: PyBullet 3.2.x answers
    ``getDebugVisualizerCamera`` with zeros for a GUI opened after one. C's stdout stays muted until
    :func:`close_viewer` (or the overlay's ``close``) disconnects it.

    Without an X display PyBullet's window code calls ``exit(1)`` from C, so on Linux a missing
    ``DISPLAY`` is reported first, as bad input."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        raise LabError("--gui", "no X display (DISPLAY is not set); on a headless machine run under "
                                "xvfb-run, or record a video with --video instead")
    mute_engine_stdout()
    try:
        with quiet_stdout():
            if options:
                from pybullet_utils.bullet_client import BulletClient

                c = BulletClient(connection_mode=pb.GUI, options=options)
            else:
                c = connect(True)
            _hide_bullet_gui(c)
    except BaseException:
        restore_engine_stdout()
        raise
    c._lab_muted = True
    return c


def _hide_bullet_gui(c) -> None:
    c.configureDebugVisualizer(pb.COV_ENABLE_GUI, 0)
    c.configureDebugVisualizer(pb.COV_ENABLE_KEYBOARD_SHORTCUTS, 0)
    c.configureDebugVisualizer(pb.COV_ENABLE_SHADOWS, 1)


def _release(viewer) -> None:
    """Undo open_viewer's mute of C's stdout, once per viewer."""
    if getattr(viewer, "_lab_muted", False):
        viewer._lab_muted = False
        restore_engine_stdout()


def clear_viewer(viewer) -> bool:
    """Empty a mirror's viewer for another world (its bodies and debug items), so one window
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
    _release(viewer)


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
    key_period = 0.1  # a key pressed between two reads is kept (KEY_WAS_TRIGGERED) until the next
    arrow_period = 1.0 / 20.0
    trail_period = 0.05
    text_period = 0.2
    pause_poll_s = 0.03  # while paused, the keys are read this often
    window_recheck_s = 2.0  # the window's size and projection are asked again this often (a resize)
    camera_tau = 0.25  # s, time constant of the camera's easing towards the COM
    draw_budget = 0.25  # drawing may use at most this fraction of the wall time (see _within_budget)
    sync_budget = 0.25  # the same for moving the mirror's bodies

    def __init__(self, world, controller, trail_max: int = 600, grid: bool = True, viewer=None,
                 real_time: bool = True):
        self.world = world
        self.controller = controller
        self.real_time = bool(real_time)  # update() keeps simulated time behind wall time, pauses left out
        self.overlay_sources: list = []  # force laws etc. offering gui_overlay(state) -> (lines, text)
        self._mirror: _Mirror | None = None
        if world.gui:
            self.client = c = world.client
            _hide_bullet_gui(c)
            mute_engine_stdout()  # the World owns and closes this window: muted for the process's life
        else:
            self.client = c = viewer if viewer is not None else open_viewer()
            _hide_bullet_gui(c)
            self._mirror = _Mirror(world.client, c)
            draw_current = getattr(world.arena, "draw_current", None)  # debug lines are not mirrored
            if draw_current is not None:
                draw_current(lambda a, b, rgb, width: c.addUserDebugLine(a, b, rgb, width, 0))
        dt = world.dt
        self._cam_every = _every(self.camera_period, dt)
        self._key_every = _every(self.key_period, dt)
        self._arrow_every = _every(self.arrow_period, dt)
        self._trail_every = _every(self.trail_period, dt)
        self._text_every = _every(self.text_period, dt)
        self._cam_alpha = 1.0 - math.exp(-self._cam_every * dt / self.camera_tau)
        m = world.model
        L = robot_length(world)
        link = m.link_length if m is not None else 0.1
        self._cam = [max(0.3, 1.0 * L), 30.0, -35.0]  # distance, yaw, pitch (used if the GUI can't tell us)
        # A robot before a step (lab.arenas.step: the riser faces −x at x = step_x): framed side-on, the
        # camera looking along +y so x runs left to right, aimed between the robot and the riser, and
        # no farther out than 0.45 of the step's width: from outside its ends (y = ±width/2) the step's
        # end face fills the near field and the robot looks small behind it (seen under Xvfb).
        from lab.arenas.step import Stairs, Step

        self._riser_W: np.ndarray | None = None
        self._robot_size = L
        if isinstance(world.arena, (Step, Stairs)) and world.arena.step_height > 0:
            x_e, h = world.arena.edge
            self._riser_W = np.array([x_e, 0.0, 0.5 * h])
            com_x = float(world.read_state().com_W[0])
            width = float(getattr(world.arena, "width", math.inf))
            self._cam = [max(0.5, min(1.4 * (abs(x_e - com_x) + L), 0.45 * width)), 0.0, -12.0]
        # A force equal to one link's weight is drawn two link lengths long (lab.overlay.arrow_scale).
        from lab.overlay import arrow_scale

        self.arrow_scale = arrow_scale(world)
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
        self._overlay_ids: list[int] = []
        self._notes: list[str] = []  # the sources' texts, shown in the panel
        self._panel: list[list] = []  # per line: [item id, text, rgb, anchor's offset from the rig, world axes]
        self._rig: int | None = None  # the invisible body the panel's texts hang on (see _draw_panel)
        self._rig_pos = np.zeros(3)
        self._panel_dirty = True
        self._window: tuple | None = None  # the window's (width, height, projection, when asked)
        self._draw_s = 0.0
        self._sync_s = 0.0
        self._wall0: float | None = time.perf_counter()  # the budgets' clock: from the overlay's start
        self._clock0: float | None = None  # wall time at which simulated time 0 would have been (pauses out)
        self.closed = False

        # The synthetic-camera preview panes are re-rendered every frame and show nothing here;
        # hiding them cuts the GUI's frame time (~20 → 12 ms under Mesa software GL).
        for flag in (pb.COV_ENABLE_RGB_BUFFER_PREVIEW, pb.COV_ENABLE_DEPTH_BUFFER_PREVIEW,
                     pb.COV_ENABLE_SEGMENTATION_MARK_PREVIEW):
            c.configureDebugVisualizer(flag, 0)
        if grid and m is not None:
            add_ground_grid(world, c, center=world.read_state().com_W[:2])
        self.controls = Controls.for_controller(controller)
        log.info("gui: ready (%s; parameters: %s; keys: %s)",
                 "mirroring a DIRECT world" if self._mirror else "GUI world",
                 ", ".join(t.name for t in self.controls.tunables) or "none",
                 ", ".join(f"{k} {what}" for k, what in KEYS))

    # the toggles, by their old names
    follow = property(lambda self: self.controls.follow)
    show_arrows = property(lambda self: self.controls.forces)
    show_trail = property(lambda self: self.controls.head_trail)
    show_com_trail = property(lambda self: self.controls.com_trail)

    # ------------------------------------------------------------------ per step
    def update(self, k: int, state, F_W) -> bool:
        """Refresh what is due at step ``k`` (holding the run while paused, then keeping real time);
        False once the window is closed or quit pressed."""
        if self.closed:
            return False
        try:
            if k % self._key_every == 0:
                if not self._read_keys():
                    return self._stop()
                if self.controls.paused and not self._hold(state):
                    return self._stop()
            if k % self._cam_every == 0:
                if self._mirror is not None and self._within_budget(self._sync_s, self.sync_budget):
                    t0 = time.perf_counter()
                    self._mirror.sync()
                    self._sync_s += time.perf_counter() - t0
                if self.controls.follow:
                    self._follow(state.com_W)
            due = [f for f, n in ((self._draw_arrows, self._arrow_every), (self._extend_trail, self._trail_every),
                                  (self._draw_overlay, self._arrow_every), (self._draw_panel, self._text_every))
                   if k % n == 0 or (f == self._draw_panel and self._panel_dirty)]
            if due and self._within_budget(self._draw_s, self.draw_budget):
                t0 = time.perf_counter()
                for f in due:
                    f(state, F_W)
                self._draw_s += time.perf_counter() - t0
            elif k % self._text_every == 0:  # a refresh the budget held back stays pending: else the
                self._panel_dirty = True  # 4x more frequent arrows took every recovered budget first
        except pb.error:  # the window was closed (Esc): every call now fails
            return self._stop()
        if self.real_time:
            self._keep_real_time(state.t)
        return True

    def _stop(self) -> bool:
        self.closed = True
        return False

    def _keep_real_time(self, t: float) -> None:
        """Sleep so that simulated time does not run ahead of wall time, the pauses not counted (the
        callers' own ``lab.core.world.pace`` then finds nothing left to wait for)."""
        now = time.perf_counter()
        if self._clock0 is None:
            self._clock0 = now - t
            return
        ahead = t - (now - self._clock0)
        if ahead > 0.002:
            time.sleep(ahead)

    def _within_budget(self, spent: float, budget: float) -> bool:
        """False while ``spent`` is more than ``budget`` of the wall time since the overlay was made:
        each GUI call waits for the GUI's threads (see the module docstring), so a slow machine or
        a robot with many links gets fewer refreshes instead of a slower simulation."""
        now = time.perf_counter()
        if self._wall0 is None:
            self._wall0 = now
            return True
        return spent <= budget * (now - self._wall0)

    def _read_keys(self) -> bool:
        """Apply the keys pressed since the last read; False if the window has gone or ``q`` was pressed."""
        c = self.client
        if not c.isConnected():
            return False
        events = c.getKeyboardEvents()  # raises pybullet.error once the window is closed
        if events:
            new = on_keys(self.controls, events)
            if new != self.controls:
                self._apply(new)
        if self.controls.quit:
            log.info("gui: quit pressed")
            return False
        return True

    def _apply(self, new: Controls) -> None:
        """Make ``new`` the controls: changed parameters go to the running controller
        (``controller.set_param``; a value it rejects is taken back), hidden items are removed."""
        old = self.controls
        values = list(new.values)
        for i, t in enumerate(new.tunables):
            if values[i] != old.values[i]:
                try:
                    self.controller.set_param(t.name, values[i])
                    log.info("gui: %s = %.4g", t.name, values[i])
                except ValueError as exc:
                    log.warning("gui: %s = %.4g rejected: %s", t.name, values[i], exc)
                    values[i] = old.values[i]
        new = replace(new, values=tuple(values))
        if old.forces and not new.forces:
            self._remove(self._arrow_ids)
        if old.head_trail and not new.head_trail:
            self._remove(self._trail_ids)
            self._trail_next, self._trail_last = 0, None
        if old.com_trail and not new.com_trail:
            self._remove(self._com_ids)
            self._com_next, self._com_last = 0, None
        if new.paused != old.paused:
            log.info("gui: %s", "paused" if new.paused else "resumed")
        self.controls = new
        self._panel_dirty = True

    def _hold(self, state) -> bool:
        """While paused: read the keys every ``pause_poll_s`` and redraw the panel when they changed
        something; the pause is then left out of the real-time clock and the drawing budget."""
        t0 = time.perf_counter()
        self._draw_panel(state)
        while self.controls.paused:
            time.sleep(self.pause_poll_s)
            if not self._read_keys():
                return False
            if self._panel_dirty:
                self._draw_panel(state)
        held = time.perf_counter() - t0
        if self._clock0 is not None:
            self._clock0 += held
        if self._wall0 is not None:
            self._wall0 += held
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

    def _view(self):
        """``(width, height, view, proj, target_W)`` of the window's camera. The window answers
        ``resetDebugVisualizerCamera`` asynchronously (a query right after one still returns the
        previous camera), so while the overlay steers the camera the view is built from what it last
        sent (``computeViewMatrixFromYawPitchRoll`` matches the window's own to 1e-7); size and
        projection are the window's. Rebuilt from our own camera state when PyBullet cannot tell
        (see :func:`open_viewer`)."""
        c = self.client
        fresh = self._window is not None and time.perf_counter() - self._window[3] < self.window_recheck_s
        if self.controls.follow and self._target is not None and fresh:
            w, h, proj, _ = self._window  # no round trip to the GUI thread (module docstring: Cost)
            target = self._target.tolist()
            return w, h, c.computeViewMatrixFromYawPitchRoll(target, *self._cam, 0, 2), proj, np.asarray(target)
        cam = c.getDebugVisualizerCamera()
        w, h, view, proj = cam[:4]
        if w > 0 and any(view) and any(proj):
            self._window = (w, h, proj, time.perf_counter())
            if self.controls.follow and self._target is not None:
                return self._view()
            return w, h, view, proj, np.asarray(cam[11], dtype=float)
        w, h = 1024, 768
        target = self._target.tolist() if self._target is not None else [0.0, 0.0, 0.0]
        view = c.computeViewMatrixFromYawPitchRoll(target, self._cam[0], self._cam[1], self._cam[2], 0, 2)
        proj = c.computeProjectionMatrixFOV(60, w / h, 0.01, 100)
        return w, h, view, proj, np.asarray(target, dtype=float)

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
        if self._rig is not None and self._window is not None:
            # the panel rides along (see _draw_panel): the rig follows the target once the move shows
            px_per_m = 0.5 * self._window[1] * float(self._window[2][5]) / max(self._cam[0], 1e-6)
            if np.linalg.norm(self._target - self._rig_pos) * px_per_m > 0.5 * PANEL_DRIFT_PX:
                self.client.resetBasePositionAndOrientation(self._rig, self._target.tolist(), [0.0, 0.0, 0.0, 1.0])
                self._rig_pos = self._target.copy()

    def _draw_arrows(self, state, F_W) -> None:
        """All links' force arrows as one points item (dots from each COM along F, brighter towards
        the tip): one GUI command per refresh instead of one line per link."""
        if not self.controls.forces or F_W is None:
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
        if self.controls.com_trail:
            self._extend_com_trail(state)
        if not self.controls.head_trail:
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

    def panel_lines(self, state) -> list[tuple[str, tuple]]:
        """What the panel shows now, as (text, rgb) lines (:func:`status_lines` + :func:`control_lines`)."""
        from lab.overlay import arrow_legend

        legend = arrow_legend(self.arrow_scale) if self.controls.forces else ""
        return (status_lines(self.controls, state.t, state.kinetic_energy, legend, self._notes)
                + control_lines(self.controls))

    def _draw_panel(self, state, F_W=None) -> None:
        """The panel, one debug text per line pinned to the window's top-left corner: each line's
        anchor is the world point that projects to its pixel at the camera target's depth
        (:func:`lab.overlay.unproject`), held as an offset from an invisible "rig" body that the
        texts are parented to. A following camera only translates, and a translated view moves every
        anchor by the same vector: then one move of the rig (to the new target) puts all lines back.
        A line is sent again only when its text changed or, after that, the camera (turned with the
        mouse) left it more than ``PANEL_DRIFT_PX`` off its pixel; unused lines are emptied."""
        from lab.overlay import project, unproject

        lines = self.panel_lines(state)
        self._panel_dirty = False
        w, h, view, proj, target = self._view()
        n = max(len(lines), len(self._panel))
        px = np.array([[PANEL_LEFT_PX, PANEL_TOP_PX + (i + 1) * PANEL_LINE_PX] for i in range(n)], dtype=float)
        try:
            anchors = unproject(px, target, view, proj, w, h)
        except (ValueError, np.linalg.LinAlgError):  # no usable camera yet: next time
            self._panel_dirty = True
            return
        c = self.client
        if self._rig is None:
            shape = c.createVisualShape(pb.GEOM_SPHERE, radius=1e-4, rgbaColor=[0, 0, 0, 0])
            self._rig = c.createMultiBody(0.0, -1, shape, basePosition=target.tolist())
            self._rig_pos = target.copy()

        def drift(rig_pos):
            if not self._panel:
                return np.zeros(0, bool)
            old = rig_pos + np.array([p[3] for p in self._panel], dtype=float)
            uv, front = project(old, view, proj, w, h)
            return ~front | (np.linalg.norm(uv - px[:len(old)], axis=1) > PANEL_DRIFT_PX)

        moved = drift(self._rig_pos)
        if moved.any() and not drift(target).any():  # the camera translated: move the rig, not the lines
            c.resetBasePositionAndOrientation(self._rig, target.tolist(), [0.0, 0.0, 0.0, 1.0])
            self._rig_pos = target.copy()
            moved = np.zeros_like(moved)
        offsets = anchors - self._rig_pos
        kw = {"parentObjectUniqueId": self._rig, "parentLinkIndex": -1}
        for i in range(n):
            text, rgb = lines[i] if i < len(lines) else ("", TEXT_RGB)
            if i < len(self._panel):
                uid, old_text, old_rgb, _ = self._panel[i]
                if old_text == text and old_rgb == rgb and not moved[i]:
                    continue
                c.addUserDebugText(text, offsets[i].tolist(), rgb, PANEL_TEXT_SIZE, 0, replaceItemUniqueId=uid, **kw)
                self._panel[i] = [uid, text, rgb, offsets[i]]
            else:
                uid = c.addUserDebugText(text, offsets[i].tolist(), rgb, PANEL_TEXT_SIZE, 0, **kw)
                self._panel.append([uid, text, rgb, offsets[i]])

    def _draw_overlay(self, state, F_W=None) -> None:
        """Lines and a text the controller and ``overlay_sources`` offer, ``gui_overlay(state) ->
        (lines, text)`` with lines as (p0, p1, rgb) — the tracked robot's support triangle and its
        margin, the drag trial's rope and tension. Lines are replaced in place (unused ones parked as
        zero-length lines); the texts go to the panel."""
        lines, texts = [], []
        for source in [self.controller, *self.overlay_sources]:
            hook = getattr(source, "gui_overlay", None)
            if hook is not None:
                more, txt = hook(state)
                lines += list(more)
                if txt:
                    texts.append(str(txt))
        if texts != self._notes:
            self._notes = texts
            self._panel_dirty = True
        ids = self._overlay_ids
        if not lines and not ids:
            return
        c = self.client
        for i, (p0, p1, rgb) in enumerate(lines):
            kw = {"replaceItemUniqueId": ids[i]} if i < len(ids) else {}
            uid = c.addUserDebugLine(list(map(float, p0)), list(map(float, p1)), list(rgb), 3.0, 0, **kw)
            if i >= len(ids):
                ids.append(uid)
        for i in range(len(lines), len(ids)):
            c.addUserDebugLine([0, 0, -1], [0, 0, -1], [0, 0, 0], 0.1, 0, replaceItemUniqueId=ids[i])

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
            _release(self.client)

    # ------------------------------------------------------------------ screenshot
    def screenshot(self, path, width: int | None = None, scene=None) -> str:
        """Save the current view as a PNG: the OpenGL renderer with the window's own view and
        projection matrices. ``width`` rescales (same aspect). Debug items (arrows, trail, panel) are
        not part of an engine camera image: ``scene``'s overlays (lab.overlay) are drawn onto it with
        the same matrices, and the panel's control lines under its label. Written to a temporary
        name, then renamed."""
        c = self.client
        w, h, view, proj, _ = self._view()
        if width:
            h, w = max(1, int(round(h * width / w))), int(width)
        img = c.getCameraImage(w, h, view, proj, renderer=pb.ER_BULLET_HARDWARE_OPENGL,
                               flags=pb.ER_NO_SEGMENTATION_MASK)
        rgb = np.asarray(img[2], dtype=np.uint8).reshape(img[1], img[0], 4)[:, :, :3]
        if scene is not None:
            from lab.overlay import draw

            rgb = draw(rgb, scene, view, proj, more_texts=[text for text, _ in control_lines(self.controls)])
        return write_image_atomic(path, rgb)


def write_image_atomic(path, rgb: np.ndarray) -> str:
    """Write an image (format from the suffix) by the write protocol (:func:`lab.core.writes.write_with`)."""
    import imageio.v2 as imageio

    from lab.core.writes import write_with

    path = os.fspath(path)
    suffix = os.path.splitext(path)[1] or ".png"
    write_with(path, lambda tmp: imageio.imwrite(tmp, rgb), suffix=suffix)
    return path


__all__ = ["Controls", "GuiOverlay", "GUI_OPTIONS", "KEYS", "Tunable", "control_lines", "on_keys", "open_viewer",
           "status_lines", "write_image_atomic"]
