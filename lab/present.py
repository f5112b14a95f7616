"""What a run shows, as observers of its loop (:mod:`lab.core.observers`): the GUI window, the video,
the overlays drawn on rendered frames, the screenshot and the progress bar.

Assembled once here, for ``lab run`` and the Python API alike (:func:`observers`); the run loop in
:mod:`lab.core.runner` knows none of them. None of them touches the physics: a run gives the same
numbers with or without them (``tests/tools/test_video.py``, ``tests/core/test_observers.py``).
"""

from __future__ import annotations

import logging
import time

from lab.core.observers import STOPPED, Observer
from lab.core.runner import Simulation, applied_of, run_scenario as _run_core
from lab.core.wrench import as_wrench

log = logging.getLogger(__name__)


class Overlays(Observer):
    """The scene drawn over rendered images (arrows, trails, the controller's and laws' lines:
    :class:`lab.overlay.Scene`), kept up to date every step for the video and the screenshot."""

    def __init__(self):
        self.scene = None

    def on_setup(self, run) -> None:
        from lab.overlay import Scene

        self.scene = Scene(run.world, [run.controller, *run.forces.values()], head=run.head)
        self._n = run.world.n_links

    def on_step(self, k, pre, tau, parts, post):
        self.scene.update(k, post, applied_of(parts, self._n))


class Progress(Observer):
    """A tqdm bar on stderr that appears once the run has taken 2 s of wall time (not with a window; whether
    to draw one at all is :func:`lab.core.progress.enabled`'s rule, decided by the caller)."""

    def __init__(self, n_steps: int, desc: str):
        from lab.core.progress import DELAY_S, bar

        self.bar = bar(n_steps, show=True, unit="step", unit_scale=True, desc=desc, leave=False, delay=DELAY_S)

    def on_step(self, k, pre, tau, parts, post):
        if k % 500 == 0:
            self.bar.update(min(500, self.bar.total - self.bar.n))

    def on_end(self, run, state, status) -> None:
        self.bar.close()


class VideoCapture(Observer):
    """``--video``: frames at real time from the video camera, with the overlays (:mod:`lab.video`)."""

    def __init__(self, path: str, overlays: Overlays):
        self.path, self.overlays, self.writer = path, overlays, None
        self.extras: dict = {}

    def on_setup(self, run) -> None:
        from lab.video import VideoWriter

        self.writer = VideoWriter(run.world, self.path, scene=self.overlays.scene)

    def on_step(self, k, pre, tau, parts, post):
        self.writer.maybe_capture(k, post)

    def on_end(self, run, state, status) -> None:
        self.writer.close()
        if self.writer.error:
            self.extras = {"video_error": self.writer.error}


class Window(Observer):
    """``--gui``: the PyBullet viewer mirroring the run (:mod:`lab.gui`), paced to real time. The viewer
    is opened when this object is made, before any DIRECT client (what :func:`lab.gui.open_viewer` needs)."""

    def __init__(self, viewer=None, **overlay_kw):
        if viewer is None:
            from lab.gui import open_viewer

            viewer = open_viewer()
        self.viewer, self.overlay_kw = viewer, overlay_kw
        self.gui = None

    def on_setup(self, run) -> None:
        from lab.gui import GuiOverlay

        self.gui = GuiOverlay(run.world, run.controller, viewer=self.viewer, **self.overlay_kw)
        self.gui.overlay_sources = [law for law in run.forces.values() if hasattr(law, "gui_overlay")]
        self._n = run.world.n_links

    def on_start(self, run, state) -> None:
        self.t0 = time.perf_counter()

    def on_step(self, k, pre, tau, parts, post):
        from lab.core.world import pace

        if not self.gui.update(k, post, as_wrench(applied_of(parts, self._n)).F_W):
            return STOPPED
        pace(post.t, self.t0)
        return None

    def on_error(self, exc):
        from lab.core.world import World

        return "stopped" if isinstance(exc, World.EngineError) and self.gui is not None and self.gui.closed else None

    @property
    def closed(self) -> bool:
        return self.gui is None or self.gui.closed

    def close(self) -> None:
        if self.gui is not None:
            self.gui.close()


class Screenshot(Observer):
    """``--screenshot``: a PNG of the last instant with the overlays, however the run ended: the window's
    view when it is still open, else the video camera's, rendered headless."""

    def __init__(self, path: str, overlays: Overlays, window: Window | None):
        self.path, self.overlays, self.window = path, overlays, window

    def on_setup(self, run) -> None:
        self.world = run.world

    def on_end(self, run, state, status) -> None:
        scene = self.overlays.scene
        if self.window is not None and not self.window.closed:
            try:
                self.window.gui.screenshot(self.path, scene=scene)
                return
            except Exception as exc:  # the window went away meanwhile: fall back to the headless camera
                log.info("screenshot from the window failed (%s); rendering headless", exc)
        from lab.video import still

        try:
            still(self.world, state, self.path, scene)
        except Exception as exc:
            log.warning("--screenshot %s not written: %s", self.path, exc)


def observers(scenario, gui: bool = False, video: str | None = None, screenshot: str | None = None,
              progress: bool = False, duration: float | None = None) -> list[Observer]:
    """The observers that show a run as ``lab run`` does, in the order they see each step: the overlays,
    the progress bar, the video, the window, the screenshot at the end."""
    from lab.replay.capture import capture_for

    out: list[Observer] = [*capture_for(scenario, duration)]  # the poses lab replay draws (replay.npz)
    overlays = Overlays() if (video or screenshot) else None
    if overlays is not None:
        out.append(overlays)
    n_steps = scenario.sim.n_steps if duration is None else int(round(duration / scenario.sim.dt))
    if progress and not gui:  # lab.core.progress: after 2 s of wall time, a long run or a video alike
        out.append(Progress(n_steps, scenario.name + (" (video)" if video else "")))
    if video:
        out.append(VideoCapture(video, overlays))
    window = Window() if gui else None
    if window is not None:
        out.append(window)
    if screenshot:
        out.append(Screenshot(screenshot, overlays, window))
    return out


def simulation(scenario, gui: bool = False, video: str | None = None, screenshot: str | None = None,
               progress: bool = False, duration: float | None = None, observers_=()) -> Simulation:
    """A :class:`lab.core.runner.Simulation` with the presentation observers (and ``observers_`` first)."""
    return Simulation(scenario, observers=(*observers_, *observers(scenario, gui, video, screenshot, progress,
                                                                    duration)))


def run_scenario(scenario, gui: bool = False, duration: float | None = None, progress: bool = False,
                 video: str | None = None, screenshot: str | None = None, observers_=()):
    """:func:`lab.core.runner.run_scenario` with what ``lab run`` shows."""
    return _run_core(scenario, duration=duration,
                     observers=(*observers_, *observers(scenario, gui, video, screenshot, progress, duration)))


__all__ = ["Overlays", "Progress", "Screenshot", "VideoCapture", "Window", "observers", "run_scenario", "simulation"]
