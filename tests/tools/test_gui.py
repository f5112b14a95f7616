"""The GUI.

Under Xvfb (skipped locally without ``xvfb-run``, a failure in CI): a real ``lab run --gui`` opens
the window, draws the overlay, saves a screenshot that shows the snake and writes its results, paced
to real time, with nothing of the engine's on stdout; keys pressed in the window (X events) step a
parameter of the running controller and quit; Esc stops a long run cleanly with its results kept.

Without a display: the overlay's logic (PyBullet's own GUI hidden, keys change the running controller,
pause, q and a closed window stop the run, the panel pinned to its pixels, drawn items stay bounded,
the camera framing, the mirror follows the engine, a DIRECT run unchanged) against a recording fake
GUI client, with a DIRECT world mirrored into it. The key handling itself: tests/tools/test_gui_keys.py.
"""

from __future__ import annotations

import ctypes.util
import json
import math
import subprocess
import sys
import textwrap
import time
from dataclasses import replace

import numpy as np
import pytest

from conftest import IN_CI, ROOT, need_tool

from lab.core import scenario as scn

SCREEN = "-screen 0 1024x768x24"
SCENARIO = "snake_passive_creeping"


def _xvfb() -> list[str]:
    return [need_tool("xvfb-run"), "-a", "-s", SCREEN]


# ---------------------------------------------------------------------------------------------- Xvfb
@pytest.mark.slow
@pytest.mark.gui
def test_gui_run_screenshot_and_results(tmp_path, lab_cmd):
    """100 steps at 1 ms in the window: exit 0, a screenshot with the snake in it, metrics.json."""
    import imageio.v2 as imageio

    shot, out = tmp_path / "shot.png", tmp_path / "out"
    t0 = time.perf_counter()
    r = subprocess.run([*_xvfb(), *lab_cmd, "run", SCENARIO, "--gui", "--set", "sim.duration=0.1",
                        "--screenshot", str(shot), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("snake_passive_creeping: ok") and "ven = " not in r.stdout, r.stdout[:1500]

    img = imageio.imread(shot)
    assert img.ndim == 3 and img.shape[0] >= 100 and img.shape[1] >= 100
    rgb = img[..., :3].astype(float)
    assert rgb.std() > 5.0, "screenshot is blank"
    assert len(np.unique(img[..., :3].reshape(-1, 3), axis=0)) > 50, "screenshot is (nearly) one colour"
    # The snake is orange and red; ground and sky are grey and blue-grey (R ≈ B or R < B).
    snake_px = int(((rgb[..., 0] - rgb[..., 2] > 80) & (rgb[..., 0] > 120)).sum())
    assert snake_px > 200, f"snake not visible in the screenshot ({snake_px} orange pixels)"

    m = json.loads((out / "metrics.json").read_text())
    assert m["status"] == "ok"
    assert m["steps"] == round(0.1 / scn.load(SCENARIO).sim.dt)  # 0.1 s at the scenario's step
    assert m["sim_time_s"] == pytest.approx(0.1)
    # GUI runs are paced to the wall clock: never faster than real time, and not absurdly slower
    # (the bound is loose: software OpenGL on a loaded 2-core CI box measured up to ~20x).
    wall = json.loads((out / "provenance.json").read_text())["run"]["wall_time_s"]  # wall clock: not a metric
    assert wall >= 0.095
    assert wall < 30.0, f"0.1 s of simulation took {wall:.1f} s in the GUI"
    assert elapsed < 240


@pytest.mark.slow
@pytest.mark.gui
def test_gui_run_computes_what_a_headless_run_computes(tmp_path, lab_cmd):
    """--gui mirrors a DIRECT world into the window, so the physics is the headless run's, bit for bit."""
    runs = {}
    for name, extra in (("gui", [*_xvfb()]), ("headless", [])):
        out = tmp_path / name
        gui = ["--gui"] if name == "gui" else []
        r = subprocess.run([*extra, *lab_cmd, "run", SCENARIO, *gui, "--set", "sim.duration=0.3", "--out", str(out),
                            "--no-plots"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        m = json.loads((out / "metrics.json").read_text())
        runs[name] = {k: v for k, v in m.items() if not k.startswith(("wall_time", "realtime"))}
    assert runs["gui"] == runs["headless"]


DRIVER = textwrap.dedent(r'''
    """Start a long GUI run, wait until its overlay is up, press the keys (argv[2], X keysym names, 3 s
    apart) in the window, report; the run's stdout goes to the file argv[3]."""
    import ctypes, ctypes.util, json, subprocess, sys, threading, time

    cmd = json.loads(sys.argv[1])
    keys = json.loads(sys.argv[2])
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=open(sys.argv[3], "w"), text=True)
    ready, lines = threading.Event(), []

    def drain():
        for line in p.stderr:
            lines.append(line)
            if "gui: ready" in line:
                ready.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    ok = ready.wait(180)
    time.sleep(1.0)  # a little running time before the key press

    x = ctypes.CDLL(ctypes.util.find_library("X11"))
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x.XDefaultRootWindow.restype = ctypes.c_ulong
    x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    U = ctypes.c_ulong
    x.XQueryTree.argtypes = [ctypes.c_void_p, U, ctypes.POINTER(U), ctypes.POINTER(U),
                             ctypes.POINTER(ctypes.POINTER(U)), ctypes.POINTER(ctypes.c_uint)]
    x.XFetchName.argtypes = [ctypes.c_void_p, U, ctypes.POINTER(ctypes.c_char_p)]
    x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, U]
    x.XStringToKeysym.restype = U
    x.XStringToKeysym.argtypes = [ctypes.c_char_p]

    class XKeyEvent(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("serial", U), ("send_event", ctypes.c_int),
                    ("display", ctypes.c_void_p), ("window", U), ("root", U), ("subwindow", U),
                    ("time", U), ("x", ctypes.c_int), ("y", ctypes.c_int), ("x_root", ctypes.c_int),
                    ("y_root", ctypes.c_int), ("state", ctypes.c_uint), ("keycode", ctypes.c_uint),
                    ("same_screen", ctypes.c_int)]

    class XEvent(ctypes.Union):
        _fields_ = [("xkey", XKeyEvent), ("pad", ctypes.c_long * 24)]

    x.XSendEvent.argtypes = [ctypes.c_void_p, U, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
    x.XFlush.argtypes = [ctypes.c_void_p]
    d = x.XOpenDisplay(None)
    root = x.XDefaultRootWindow(d)
    r_, parent, children, n = U(), U(), ctypes.POINTER(U)(), ctypes.c_uint()
    x.XQueryTree(d, root, ctypes.byref(r_), ctypes.byref(parent), ctypes.byref(children), ctypes.byref(n))
    windows = []
    for i in range(n.value):
        name = ctypes.c_char_p()
        if x.XFetchName(d, children[i], ctypes.byref(name)) and name.value and b"Bullet" in name.value:
            windows.append(children[i])
    for i, name in enumerate(keys):
        if i:
            time.sleep(3.0)  # the overlay reads the keys every 0.1 s of simulated time
        keycode = x.XKeysymToKeycode(d, x.XStringToKeysym(name.encode()))
        for win in windows:
            for kind, mask in ((2, 1), (3, 2)):  # KeyPress/KeyPressMask, KeyRelease/KeyReleaseMask
                ev = XEvent()
                k = ev.xkey
                k.type, k.display, k.window, k.root, k.keycode, k.same_screen = kind, d, win, root, keycode, 1
                x.XSendEvent(d, win, 1, mask, ctypes.byref(ev))
        x.XFlush(d)
    x.XFlush(d)
    t0 = time.time()
    try:
        rc = p.wait(120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "timeout"
    reader.join(10)  # the run's last log lines
    print(json.dumps({"ready": ok, "windows": len(windows), "rc": rc, "exit_s": time.time() - t0,
                      "stderr": "".join(lines)[-3000:]}))
''')


ENGINE_NOISE = ("ven = ", "numActiveThreads", "Thread", "semaphore", "argv[0]", "finished")


def _drive(tmp_path, lab_cmd, keys: list[str]) -> tuple[dict, str, dict]:
    """A 30 s GUI run under Xvfb, the keys pressed in its window once it is up: (the driver's report,
    the run's stdout, metrics.json)."""
    xvfb = _xvfb()
    if ctypes.util.find_library("X11") is None:
        if IN_CI:
            pytest.fail("libX11 is required in CI (installed with xvfb)")
        pytest.skip("libX11 not found")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    out, stdout = tmp_path / "out", tmp_path / "stdout.txt"
    cmd = [*lab_cmd, "-v", "run", SCENARIO, "--gui", "--set", "sim.duration=30", "--out", str(out), "--no-plots"]
    r = subprocess.run([*xvfb, sys.executable, str(driver), json.dumps(cmd), json.dumps(keys), str(stdout)],
                       cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert r.returncode == 0, r.stderr[-3000:]
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    assert rep["ready"], rep["stderr"]
    assert rep["windows"] == 1
    return rep, stdout.read_text(), json.loads((out / "metrics.json").read_text())


@pytest.mark.slow
@pytest.mark.gui
def test_escape_in_window_stops_run_and_keeps_results(tmp_path, lab_cmd):
    """Esc closes PyBullet's window; the run stops with status "stopped" and its results written; the
    GUI threads' shutdown chatter ("numActiveThreads = 0", "Thread TERMINATED", …) stays off stdout."""
    rep, stdout, m = _drive(tmp_path, lab_cmd, ["Escape"])
    assert rep["rc"] == 0, rep["stderr"]
    assert m["status"] == "stopped"
    assert 0 < m["steps"] < 30_000
    assert stdout.startswith("snake_passive_creeping: stopped"), stdout[:500]
    assert not [w for w in ENGINE_NOISE if w in stdout], stdout[:1500]


@pytest.mark.slow
@pytest.mark.gui
def test_keys_in_window_step_a_parameter_and_quit(tmp_path, lab_cmd):
    """Real X key events reach the overlay through getKeyboardEvents: Right steps E_ref (1 → 1.2) in
    the running controller, q ends the run with its results."""
    rep, stdout, m = _drive(tmp_path, lab_cmd, ["Right", "q"])
    assert rep["rc"] == 0, rep["stderr"]
    assert "gui: E_ref = 1.2" in rep["stderr"]
    assert "gui: quit pressed" in rep["stderr"]
    assert m["status"] == "stopped"
    assert not [w for w in ENGINE_NOISE if w in stdout], stdout[:1500]


# ------------------------------------------------------------------------------------- no display
class FakeViewer:
    """Stands in for a GUI BulletClient: records what the overlay draws and hands out scripted
    keyboard events (``keys``: a list of event dicts, one per ``getKeyboardEvents`` call, then none);
    ``closed = True`` makes every call raise like a closed window does. Its camera answers with real
    view and projection matrices (the window's: 90° vertical field of view)."""

    def __init__(self):
        self.next_id = 0
        self.items: dict[int, tuple] = {}  # live debug items
        self.poses: dict[int, tuple] = {}
        self.camera = None
        self.closed = False
        self.connected = True
        self.keys: list[dict] = []
        self.key_reads = 0
        self.flags: dict[int, int] = {}
        self.sent_texts: list[str] = []  # every text ever sent, in order

    def _new(self) -> int:
        self.next_id += 1
        return self.next_id

    def configureDebugVisualizer(self, flag, value, *a, **k):
        self.flags[flag] = value

    def createVisualShape(self, *a, **k):
        return self._new()

    def createMultiBody(self, *a, basePosition=(0.0, 0.0, 0.0), **k):
        i = self._new()
        self.poses[i] = (tuple(basePosition), (0.0, 0.0, 0.0, 1.0))
        return i

    def resetBasePositionAndOrientation(self, body, pos, orn):
        self.poses[body] = (tuple(pos), tuple(orn))

    def getKeyboardEvents(self):
        from lab.core.engine import pb

        if self.closed:
            raise pb.error("Not connected to physics server.")
        self.key_reads += 1
        return self.keys.pop(0) if self.keys else {}

    def isConnected(self):
        return self.connected

    def getDebugVisualizerCamera(self):
        from lab.core.engine import pb

        d, yaw, pitch, target = self.camera or (1.0, 30.0, -35.0, (0, 0, 0))
        view = pb.computeViewMatrixFromYawPitchRoll(list(target), d, yaw, pitch, 0, 2)
        proj = (0.75, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, -1.0, -1.0, 0, 0, -0.02, 0)  # as PyBullet's window reports
        return (1024, 768, view, proj, (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), yaw, pitch, d, tuple(target))

    def resetDebugVisualizerCamera(self, d, yaw, pitch, target):
        self.camera = (d, yaw, pitch, tuple(target))

    def computeViewMatrixFromYawPitchRoll(self, *a):
        from lab.core.engine import pb

        return pb.computeViewMatrixFromYawPitchRoll(*a)

    def _item(self, kind, args, replace):
        i = replace if replace is not None and replace >= 0 else self._new()
        self.items[i] = (kind, args)
        return i

    def addUserDebugPoints(self, pts, rgb, size, life, replaceItemUniqueId=None):
        return self._item("points", (pts,), replaceItemUniqueId)

    def addUserDebugLine(self, a, b, rgb, width, life, replaceItemUniqueId=None):
        return self._item("line", (a, b, rgb), replaceItemUniqueId)

    def addUserDebugText(self, text, pos, rgb, size, life, replaceItemUniqueId=None, parentObjectUniqueId=-1,
                         parentLinkIndex=-1):
        self.sent_texts.append(text)
        if parentObjectUniqueId >= 0:  # the text hangs on a body: its position is an offset from it
            pos = np.add(self.poses[parentObjectUniqueId][0], pos)
        return self._item("text", (text, tuple(pos), tuple(rgb), parentObjectUniqueId), replaceItemUniqueId)

    def removeUserDebugItem(self, i):
        self.items.pop(i, None)

    def disconnect(self):
        self.connected = False

    def texts(self) -> list[str]:
        return [args[0] for kind, args in self.items.values() if kind == "text" and args[0]]


def _sim(duration: float, scenario: str = SCENARIO, **overlay_kw):
    from lab.core import scenario as scn
    from lab.core.runner import Simulation
    from lab.present import Window

    fake = FakeViewer()
    window = Window(viewer=fake, **overlay_kw)
    sim = Simulation(scn.load(scenario, [f"sim.duration={duration}"]), observers=(window,))
    sim.gui = window.gui  # the window's overlay, for the test to read (the run calls it through the observer)
    return sim, fake


def _press(*keys) -> dict:
    """One getKeyboardEvents answer: each key newly pressed (the state PyBullet reports for a press)."""
    from lab.core.engine import pb

    return {(ord(k) if isinstance(k, str) else k): pb.KEY_IS_DOWN | pb.KEY_WAS_TRIGGERED for k in keys}


def test_bullet_gui_is_hidden_and_its_shortcuts_off():
    """The example browser and Params panel are one canvas (COV_ENABLE_GUI): off; Bullet's own key
    shortcuts (its p writes a timings file) off, so the lab's keys are the only ones."""
    from lab.core.engine import pb

    sim, fake = _sim(0.01)
    try:
        assert fake.flags[pb.COV_ENABLE_GUI] == 0
        assert fake.flags[pb.COV_ENABLE_KEYBOARD_SHORTCUTS] == 0
    finally:
        sim.close()


def test_keys_change_the_running_controller():
    """Right ×5 on E_ref (step 0.2) → 2.0; Down, Left ×2 → phi_t −0.2: through controller.set_param, while
    the run goes on, and the controller's torques follow (E_ref is the head's energy reference)."""
    from lab.core.engine import pb

    sim, fake = _sim(0.2)
    n = sim.scenario.sim.n_steps  # 0.2 s at the scenario's step (40 at 5 ms)
    sim.gui._key_every = n // 10  # keys read 10 times over the run (0.1 s apart by default) to keep the test short
    try:
        assert sim.controller.params.E_ref == 1.0
        fake.keys = [_press(pb.B3G_RIGHT_ARROW)] * 5 + [_press(pb.B3G_DOWN_ARROW), _press(pb.B3G_LEFT_ARROW),
                                                        _press("-")]
        res = sim.run()
    finally:
        sim.close()
    assert res.status == "ok"
    assert sim.controller.params.E_ref == 2.0
    assert sim.controller.params.phi_t == -0.2
    assert sim.gui.controls.value("E_ref") == 2.0 and sim.gui.controls.selected == 1
    assert fake.key_reads == 10  # every n/10 steps of n


def test_a_value_the_controller_rejects_is_taken_back(monkeypatch):
    from lab.core.engine import pb

    sim, fake = _sim(0.3)
    set_param = sim.controller.set_param

    def picky(name, value):
        if value > 1.1:
            raise ValueError(f"{name}: must be <= 1.1")
        set_param(name, value)

    monkeypatch.setattr(sim.controller, "set_param", picky)
    try:
        fake.keys = [_press(pb.B3G_RIGHT_ARROW)]
        res = sim.run()
    finally:
        sim.close()
    assert res.status == "ok"
    assert sim.controller.params.E_ref == 1.0 and sim.gui.controls.value("E_ref") == 1.0


@pytest.mark.parametrize("how", ["q key", "window closed", "disconnected"])
def test_quit_or_closed_window_stops_the_run(how):
    sim, fake = _sim(1.0)
    try:
        if how == "q key":
            fake.keys = [_press("q")]
        elif how == "window closed":
            fake.closed = True
        else:
            fake.connected = False
        res = sim.run()
    finally:
        sim.close()
    assert res.status == "stopped"
    assert res.metrics["steps"] == 1  # the keys are read at step 0
    assert res.metrics["status"] == "stopped"


def test_space_pauses_the_run_and_the_keys_still_act():
    """Space holds the run inside update(): no step is taken while the keys are polled; a parameter
    stepped meanwhile reaches the controller; space again resumes; the pause is not counted as run time
    (no catch-up at full speed afterwards)."""
    from lab.core.engine import pb

    sim, fake = _sim(0.2)
    g = sim.gui
    g.pause_poll_s = 0.05
    try:
        state = sim.world.read_state()
        fake.keys = [_press(" "), {}, _press(pb.B3G_RIGHT_ARROW), {}, {}, _press(" ")]
        t0 = time.perf_counter()
        assert g.update(0, state, None)
        held = time.perf_counter() - t0
        assert fake.key_reads == 6 and not g.controls.paused
        assert held >= 4 * g.pause_poll_s
        assert sim.controller.params.E_ref == pytest.approx(1.2)
        assert any("PAUSED" in t for t in fake.sent_texts)  # the panel said so while it lasted
        assert not any("PAUSED" in t for t in fake.texts())  # and no longer
        res = sim.run()
        assert res.status == "ok" and res.metrics["steps"] == sim.scenario.sim.n_steps == round(0.2 / sim.scenario.sim.dt)
    finally:
        sim.close()


def test_panel_shows_parameters_selection_toggles_and_keys_at_fixed_pixels():
    """The panel: t and E, the arrows' scale, each parameter with its value, range and step (the
    selected one marked), the toggles with their states and every key of the legend; each line's
    anchor projects (with the window's camera) to its pixel in the top-left corner."""
    from lab.core.engine import pb
    from lab.gui import KEYS, PANEL_LEFT_PX, PANEL_LINE_PX, PANEL_TOP_PX
    from lab.overlay import project

    sim, fake = _sim(0.2)
    g = sim.gui
    try:
        fake.keys = [_press(pb.B3G_DOWN_ARROW), _press("h")]
        sim.run()
        texts = fake.texts()
        assert any(t.startswith("t = ") and "mJ" in t for t in texts)
        assert any(t.startswith("red arrows: force laws on each link, 1 N = ") for t in texts)
        assert "   E_ref = 1    in [0, 3], step 0.2" in texts
        assert "> phi_t = 0    in [-1, 1], step 0.1" in texts  # selected by Down
        assert any("[h] head trail: off" in t and "[c] follow camera: on" in t for t in texts)
        legend = " ".join(texts)
        for key in ("Up/Down", "Left/Right", "[c]", "[f]", "[h]", "[m]", "[space]", "[q]", "[Esc]"):
            assert key in legend
        assert len(KEYS) == 8
        w, h, view, proj, _ = g._view()
        anchors = np.asarray(fake.poses[g._rig][0]) + np.array([p[3] for p in g._panel])
        uv, front = project(anchors, view, proj, w, h)
        want = [[PANEL_LEFT_PX, PANEL_TOP_PX + (i + 1) * PANEL_LINE_PX] for i in range(len(anchors))]
        assert front.all() and np.abs(uv - want).max() < 3.5  # re-sent beyond PANEL_DRIFT_PX = 3
    finally:
        sim.close()


def test_a_following_camera_moves_the_panel_with_one_call():
    """The camera translates (it follows the robot): the rig the texts hang on moves with it (in
    _follow, or at the next panel refresh), no text is sent again, and every line is back on its
    pixel. The camera turns (the mouse): the lines are re-sent."""
    from lab.gui import PANEL_DRIFT_PX, PANEL_LEFT_PX, PANEL_LINE_PX, PANEL_TOP_PX
    from lab.overlay import project

    sim, fake = _sim(0.05)
    g = sim.gui
    try:
        sim.run()
        state = sim.world.read_state()
        g._draw_panel(state)

        def on_pixels(tol=0.01):
            w, h, view, proj, _ = g._view()
            anchors = np.asarray(fake.poses[g._rig][0]) + np.array([p[3] for p in g._panel])
            uv, front = project(anchors, view, proj, w, h)
            want = [[PANEL_LEFT_PX, PANEL_TOP_PX + (i + 1) * PANEL_LINE_PX] for i in range(len(anchors))]
            return front.all() and np.abs(uv - want).max() < tol

        sent, rig0 = len(fake.sent_texts), fake.poses[g._rig][0]
        g._target = g._target + [0.4, -0.3, 0.0]
        g._draw_panel(state)
        assert len(fake.sent_texts) == sent  # nothing re-sent
        assert np.allclose(np.subtract(fake.poses[g._rig][0], rig0), [0.4, -0.3, 0.0], atol=1e-5)  # float32 views
        assert on_pixels()
        for _ in range(100):  # the camera following a robot 0.5 m away drags the rig along
            g._follow(state.com_W + [0.5, 0.0, 0.0])
        assert np.linalg.norm(np.subtract(fake.poses[g._rig][0], g._target)) < 0.01
        assert len(fake.sent_texts) == sent
        g._draw_panel(state)
        assert len(fake.sent_texts) == sent and on_pixels(tol=PANEL_DRIFT_PX)
        g._cam[1] += 40.0  # yaw: the view turns
        g._draw_panel(state)
        assert len(fake.sent_texts) == sent + len(g._panel)
        assert on_pixels()
    finally:
        sim.close()


def test_a_panel_refresh_held_back_by_the_budget_is_made_at_the_next_chance():
    """Drawing is limited to a share of the wall time; a panel refresh that falls on a step without
    budget stays pending, so the far more frequent arrows cannot starve the panel's clock."""
    sim, fake = _sim(0.05)
    g = sim.gui
    try:
        state = sim.world.read_state()
        assert g.update(0, state, None)  # the first refresh: the panel is up
        g._draw_s, g.draw_budget = 1e9, 0.25  # the budget is spent
        later = replace(state, t=1.0)
        assert g.update(g._text_every, later, None)
        assert g._panel_dirty and not any(t.startswith("t =   1.00 s") for t in fake.texts())
        g._draw_s = 0.0  # budget again, at a step where only the arrows would be due
        assert g.update(g._text_every + g._arrow_every, later, None)
        assert any(t.startswith("t =   1.00 s") for t in fake.texts()) and not g._panel_dirty
    finally:
        sim.close()


def test_drawn_items_stay_bounded_and_toggle_keys_remove_them():
    sim, fake = _sim(0.5, trail_max=5)
    g = sim.gui
    g.trail_min_step = 1e-6  # a segment at every trail update (every 0.05 s)
    try:
        res = sim.run()
        assert res.status == "ok"
        assert len(g._trail_ids) == 5  # ~10 segments drawn into a ring of 5
        assert len(g._arrow_ids) == 1  # all arrows are one points item
        kinds = [kind for kind, _ in fake.items.values()]
        assert kinds.count("points") == 1 and kinds.count("text") == len(g._panel)
        # the dots lie along the links' force arrows, close to the robot
        pts = np.array(fake.items[g._arrow_ids[0]][1][0])
        com = sim.world.read_state().com_W
        assert len(pts) > 0 and np.linalg.norm(pts - com, axis=1).max() < 0.6
        # toggles off: the next key read removes the items
        fake.keys = [_press("f", "h", "M")]
        trail, com_trail = list(g._trail_ids), list(g._com_ids)
        assert trail and com_trail
        assert g.update(0, sim.world.read_state(), None)
        assert g._arrow_ids == [] and g._trail_ids == [] and g._com_ids == []
        assert not any(kind == "points" for kind, _ in fake.items.values())
        assert not any(i in fake.items for i in trail + com_trail)
        assert not any(t.startswith("red arrows") for t in fake.texts())  # no scale for hidden arrows
    finally:
        sim.close()


def test_camera_follows_the_com_and_keeps_the_users_zoom():
    sim, fake = _sim(0.2)
    try:
        state = sim.world.read_state()
        g = sim.gui
        g._follow(state.com_W)
        fake.camera = (2.5, 10.0, -60.0, fake.camera[3])  # the user zooms and turns the view
        for _ in range(200):
            g._follow(state.com_W + [1.0, 0.0, 0.0])
        d, yaw, pitch, target = fake.camera
        assert (d, yaw, pitch) == (2.5, 10.0, -60.0)
        assert np.allclose(target, state.com_W + [1.0, 0.0, 0.0], atol=1e-3)
    finally:
        sim.close()


def test_step_climb_is_framed_side_on_with_the_riser_in_view():
    """The tracked robot before its step: the camera looks along +y (x left to right), low, from within
    the step's width (else its end face fills the view), and aims between the robot and the riser;
    both, and the riser's foot and top, project inside the window."""
    from lab.overlay import project

    sim, fake = _sim(0.05, "tracked_step_climb")
    try:
        g = sim.gui
        state = sim.world.read_state()
        g._follow(state.com_W)
        d, yaw, pitch, target = fake.camera
        assert yaw == 0.0 and -20.0 < pitch < 0.0
        assert d * math.cos(math.radians(pitch)) < sim.world.arena.width / 2  # inside the step's ends
        x_e, h = sim.world.arena.edge
        w, hh, view, proj, _ = g._view()
        uv, front = project(np.array([state.com_W, [x_e, 0.0, 0.0], [x_e, 0.0, h]]), view, proj, w, hh)
        assert front.all()
        assert ((uv[:, 0] > 0) & (uv[:, 0] < w) & (uv[:, 1] > 0) & (uv[:, 1] < hh)).all(), uv
        assert uv[0, 0] < uv[1, 0]  # the robot left of the riser: x runs left to right
    finally:
        sim.close()


def test_mirror_puts_each_link_copy_at_the_engines_link_frame():
    sim, fake = _sim(0.2)
    try:
        sim.run()
        w = sim.world
        mirror = sim.gui._mirror
        body, links, copies = next(d for d in mirror.dynamic if d[0] == w.robot)
        assert len(copies) == w.n_links
        mirror.sync()
        c = w.client
        for link, vid in copies:
            if link >= 0:
                want = c.getLinkState(w.robot, link)[4]
            else:
                pos, orn = c.getBasePositionAndOrientation(w.robot)
                info = c.getDynamicsInfo(w.robot, -1)
                want = c.multiplyTransforms(pos, orn, *c.invertTransform(info[3], info[4]))[0]
            assert np.allclose(fake.poses[vid][0], want, atol=1e-12)
    finally:
        sim.close()


def test_a_run_without_the_window_is_unchanged_by_the_overlay():
    """A DIRECT run (no --gui) has no overlay, and one with the overlay drawing (keys idle) computes
    the same numbers bit for bit: the overlay reads the world, never changes it."""
    from lab.core import scenario as scn
    from lab.core.runner import Simulation

    plain = Simulation(scn.load(SCENARIO, ["sim.duration=0.3"]))
    try:
        assert plain.observers == ()
        a = plain.run()
    finally:
        plain.close()
    sim, fake = _sim(0.3)
    try:
        b = sim.run()
    finally:
        sim.close()
    assert a.status == b.status == "ok"
    assert set(a.series) == set(b.series)
    for k in a.series:
        np.testing.assert_array_equal(a.series[k], b.series[k], err_msg=k)
    keep = [k for k in a.metrics if not k.startswith(("wall_time", "realtime"))]
    assert keep == [k for k in b.metrics if not k.startswith(("wall_time", "realtime"))]
    for k in keep:  # NaN (undefined metrics) compares equal to NaN here
        assert json.dumps(a.metrics[k]) == json.dumps(b.metrics[k]), k


def test_gui_without_a_display_is_reported_as_bad_input(tmp_path, lab_cmd, monkeypatch):
    """PyBullet would exit(1) from C without an X display; the lab says why, exit code 2."""
    if not sys.platform.startswith("linux"):
        pytest.skip("X display check is Linux-only")
    monkeypatch.delenv("DISPLAY", raising=False)
    r = subprocess.run([*lab_cmd, "run", SCENARIO, "--gui", "--set", "sim.duration=0.01", "--out", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "error: --gui: no X display" in r.stderr
