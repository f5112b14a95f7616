"""Record a run as .mp4 or .gif from the engine's camera (works headless, in DIRECT mode).

``lab run SCENARIO --video FILE.mp4`` creates ``VideoWriter(world, FILE)``; the runner calls
``maybe_capture(k, state)`` after every step and ``close()`` at the end. A frame is grabbed every
``stride`` steps so that the video plays in real time: ``stride = round(1/(fps·dt))`` and the file's
frame rate is ``1/(stride·dt)`` (30.3 fps for fps = 30 at dt = 1 ms). GIF frame delays are whole
centiseconds, so for .gif the frame period is first rounded to 10 ms (30 fps → 30 ms, stride 30).

The camera (PyBullet's CPU ``ER_TINY_RENDERER``, no OpenGL needed) looks at the robot's centre of
mass from above and behind: "behind" is the tail→head direction (for a robot that is not a chain,
the base link's x axis), both target and heading eased
with a 0.5 s time constant so the wiggle of a snake does not shake the picture. A visual-only grid
on the ground (:func:`lab.visual.add_ground_grid`) shows the motion against the floor.

Each frame carries the overlays of :mod:`lab.overlay` (force arrows, trails, the controller's and
force laws' lines, the time/energy label), projected with this camera's matrices; :func:`still` is
the same picture for ``--screenshot`` without a window.

The file is written by the lab's write protocol (:mod:`lab.core.writes`): under a private temporary name
in the same folder, checked when finished (an .mp4's frames counted by ffmpeg, a .gif's by Pillow)
and only then renamed into place by ``close()``, so a file at ``path`` is always complete. A write
that fails during the run (no space left) abandons the video but not the run: ``error`` says why and
the run's results are still written; a run ended by an exception or a signal (Ctrl-C) publishes no
video at all.
"""

from __future__ import annotations

import errno
import logging
import math
import os
import sys
import time

import numpy as np

from lab.core import writes
from lab.core.engine import pb
from lab.visual import add_ground_grid, robot_length

log = logging.getLogger(__name__)

SUFFIXES = (".mp4", ".gif")


class FollowCamera:
    """The video's camera: looks at the COM from above and behind ("behind": tail → head of a chain,
    else the base's x axis turned by ``side_deg``), target and heading eased with ``ease_tau`` (``alpha`` per call; 1 = none)."""

    ease_tau = 0.5  # s, time constant of the camera's easing (target and heading)
    side_deg = 60.0  # a robot that is not a chain is seen from behind and this far to its right

    def __init__(self, client, size: float, width: int, height: int, distance: float | None = None,
                 pitch_deg: float = -35.0, alpha: float = 1.0):
        self.client = client
        self.size = size
        self.width, self.height = int(width), int(height)
        self.distance = float(distance) if distance else max(0.3, 1.5 * size)
        self.pitch = math.radians(pitch_deg)
        self.alpha = alpha
        self.proj = client.computeProjectionMatrixFOV(50.0, self.width / self.height, 0.01, 100.0)
        self._target: np.ndarray | None = None
        self._yaw = 0.0

    def view(self, state) -> list[float]:
        com = np.asarray(state.com_W, dtype=float)
        axis = state.p_W[-1] - state.p_W[0]  # tail → head of a chain
        side = 0.0
        if math.hypot(axis[0], axis[1]) < 0.25 * self.size:  # not a chain (tracked robot): base's x axis,
            axis = state.x_axis_W[0]
            side = self.side_deg  # seen from behind, a climb hides behind the robot; from the side it shows
        yaw = (math.atan2(axis[1], axis[0]) + math.radians(side) if math.hypot(axis[0], axis[1]) > 1e-9
               else self._yaw)
        if self._target is None:
            self._target, self._yaw = com.copy(), yaw
        else:
            self._target += self.alpha * (com - self._target)
            self._yaw += self.alpha * math.remainder(yaw - self._yaw, 2.0 * math.pi)
        d, p = self.distance, self.pitch
        back = np.array([math.cos(self._yaw), math.sin(self._yaw), 0.0]) * d * math.cos(p)
        eye = self._target - back + np.array([0.0, 0.0, -d * math.sin(p)])
        return self.client.computeViewMatrix(eye.tolist(), self._target.tolist(), [0.0, 0.0, 1.0])

    def render(self, view, shadow: bool = False) -> np.ndarray:
        """An RGB frame (height, width, 3) from PyBullet's CPU renderer (no OpenGL, works headless)."""
        img = self.client.getCameraImage(self.width, self.height, view, self.proj,
                                         renderer=pb.ER_TINY_RENDERER, flags=pb.ER_NO_SEGMENTATION_MASK,
                                         shadow=int(shadow), lightDirection=[0.4, -0.6, 1.0])
        return np.asarray(img[2], dtype=np.uint8).reshape(img[1], img[0], 4)[:, :, :3]


def readable_frame(world, state, scene=None, width: int = 640, height: int = 480, camera=None,
                   shadow: bool = True) -> np.ndarray:
    """One RGB frame (height, width, 3) of ``state`` that a person can read, rendered headless: the
    video's follow camera (``camera``, a :class:`FollowCamera` to reuse between frames so it eases;
    default a fresh one), the ground grid (visual only, added once per client) and, with a ``scene``
    (:class:`lab.overlay.Scene`), the overlays of ``--screenshot``: force arrows with their scale,
    trails, the controller's and force laws' lines, the label. For an environment's ``rgb_array``."""
    if not np.isfinite(state.com_W).all():
        raise ValueError("the robot's pose is not finite (the run diverged)")
    cam = camera if camera is not None else FollowCamera(world.client, robot_length(world), width, height)
    if world.model is not None:
        add_ground_grid(world, world.client, center=state.com_W[:2], dots=True)
    view = cam.view(state)
    rgb = cam.render(view, shadow=shadow)
    if scene is not None:
        from lab.overlay import draw

        rgb = draw(rgb, scene, view, cam.proj)
    return rgb


def still(world, state, path, scene=None, width: int = 1024, height: int = 768) -> str:
    """A headless screenshot of ``state`` (the run's last instant) with the overlays, written
    atomically: :func:`readable_frame` with the video's camera, not eased."""
    from lab.gui import write_image_atomic

    return write_image_atomic(path, readable_frame(world, state, scene, width, height))


def follow_camera(world, width: int, height: int, alpha: float = 1.0) -> FollowCamera:
    """The video's camera for rendering ``world`` frame by frame (the environments' ``rgb_array``), with
    the ground grid added (visual only: no physics)."""
    cam = FollowCamera(world.client, robot_length(world), width, height, alpha=alpha)
    if world.model is not None:
        add_ground_grid(world, world.client, center=world.read_state().com_W[:2], dots=True)
    return cam


def _space_left(path: str) -> int:
    """Bytes free to us on the file system holding ``path`` (large if it cannot be told)."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return 1 << 62
    return st.f_bavail * st.f_frsize


class VideoWriter:
    """Frames from the engine camera, every ``stride`` steps, into an .mp4 (H.264) or a .gif, with the
    overlays of ``scene`` (a :class:`lab.overlay.Scene`) drawn on each frame."""

    def __init__(self, world, path, fps: float = 30, width: int = 640, height: int = 480,
                 distance: float | None = None, pitch_deg: float = -35.0, shadow: bool = False,
                 grid: bool = True, scene=None):
        import imageio.v2 as imageio

        self.path = os.fspath(path)
        suffix = os.path.splitext(self.path)[1].lower()
        if suffix not in SUFFIXES:
            raise ValueError(f"video path: must end in .mp4 or .gif, got {self.path!r}")
        if not 1 <= fps <= 240:
            raise ValueError(f"fps: must be in [1, 240], got {fps}")
        self.world = world
        self.client = world.client
        self.width, self.height = int(width), int(height)
        dt = world.dt
        if suffix == ".gif":
            frame_s = max(0.02, round(1.0 / fps, 2))  # GIF delays are centiseconds; < 20 ms gets slowed
            self.stride = max(1, int(round(frame_s / dt)))
        else:
            self.stride = max(1, int(round(1.0 / (fps * dt))))
        self.fps = 1.0 / (self.stride * dt)  # plays in real time
        self.camera = FollowCamera(self.client, robot_length(world), self.width, self.height, distance, pitch_deg,
                                   alpha=1.0 - math.exp(-self.stride * dt / FollowCamera.ease_tau))
        self.shadow = bool(shadow)
        self.scene = scene
        self.frames = 0
        self.render_s = 0.0  # wall time in getCameraImage
        self.encode_s = 0.0  # wall time handing frames to the encoder
        if grid and world.model is not None:
            add_ground_grid(world, self.client, center=world.read_state().com_W[:2], dots=True)

        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        writes.clean_stale(folder, os.path.basename(self.path))  # a killed earlier recording's temporary
        self._tmp = os.fspath(writes.temp_path(os.path.abspath(self.path), suffix))
        self.suffix = suffix
        self.error: str | None = None  # why the video was abandoned (the file system's words), if it was
        if suffix == ".gif":
            self._writer = imageio.get_writer(self._tmp, mode="I", duration=1000.0 * self.stride * dt, loop=0)
        else:
            self._writer = imageio.get_writer(self._tmp, format="FFMPEG", mode="I", fps=self.fps, codec="libx264",
                                              quality=7, pixelformat="yuv420p", macro_block_size=16,
                                              ffmpeg_log_level="quiet")  # its failures are ours to report, in one line
        self._closed = False

    # ------------------------------------------------------------------ capture
    def maybe_capture(self, k: int, state) -> None:
        """Grab a frame if step ``k`` is a multiple of ``stride`` (k = 0 is the first frame)."""
        if k % self.stride == 0 and not self._closed:
            try:
                self.capture(state)
            except Exception as exc:  # no space, the encoder gone: the video is lost, the run is not
                self._fail(exc)

    def capture(self, state) -> np.ndarray:
        """Render one frame now and append it; returns the RGB array (height, width, 3)."""
        t0 = time.perf_counter()
        view = self.camera.view(state)
        rgb = self.camera.render(view, self.shadow)
        if self.scene is not None:
            from lab.overlay import draw

            rgb = draw(rgb, self.scene, view, self.camera.proj)
        t1 = time.perf_counter()
        self._writer.append_data(rgb)
        self.encode_s += time.perf_counter() - t1
        self.render_s += t1 - t0
        self.frames += 1
        return rgb

    # ------------------------------------------------------------------ finish
    def _discard(self) -> None:
        self._closed = True
        try:
            self._writer.close()
        except BaseException as exc:  # noqa: BLE001 - the file is being thrown away anyway
            log.debug("video: closing the abandoned writer: %s", exc)
            # A GIF writer keeps its frames until it closes and retries on garbage collection (a second
            # traceback "ignored in __del__"): drop the frames so the retry has nothing left to write.
            pending = getattr(getattr(self._writer, "instance", None), "images_to_write", None)
            if isinstance(pending, list):
                pending.clear()
            try:
                self._writer.close()
            except BaseException:  # noqa: BLE001
                pass
        writes.remove(self._tmp)

    def _fail(self, exc: BaseException) -> None:
        if isinstance(exc, OSError) and exc.strerror:
            self.error = exc.strerror
        elif _space_left(self._tmp) < 1 << 16:  # ffmpeg says only "call failed": the disk is why
            self.error = os.strerror(errno.ENOSPC)
        else:
            text = str(exc).strip()
            self.error = text.splitlines()[0] if text else type(exc).__name__
        log.info("video: %s not written: %s", self.path, self.error)  # the caller reports it (lab run: one error line)
        self._discard()

    def abort(self) -> None:
        """Throw the unfinished file away (the run was interrupted or failed): nothing is published."""
        if not self._closed:
            self._discard()

    def _frames_on_disk(self) -> int:
        """Frames in the finished temporary, read back (a full disk can leave an .mp4 without its index)."""
        if self.suffix == ".gif":
            from PIL import Image

            with Image.open(self._tmp) as im:
                return int(getattr(im, "n_frames", 1))
        import imageio_ffmpeg

        return int(imageio_ffmpeg.count_frames_and_secs(self._tmp)[0])

    def close(self) -> str | None:
        """Finish the file, check it and rename it into place; None (nothing written) with no frames, if
        the video failed (``error``), or if an exception or signal is on its way out (Ctrl-C)."""
        if self._closed:
            return self.path if self.frames and self.error is None and os.path.exists(self.path) else None
        if sys.exc_info()[0] is not None:  # called from a ``finally`` while the run is being abandoned
            self.abort()
            return None
        self._closed = True
        try:
            t0 = time.perf_counter()
            self._writer.close()
            self.encode_s += time.perf_counter() - t0
            if self.frames:
                on_disk = self._frames_on_disk()
                if on_disk != self.frames:
                    raise OSError(f"the file holds {on_disk} of {self.frames} frames")
        except KeyboardInterrupt:
            writes.remove(self._tmp)
            raise
        except Exception as exc:
            self._fail(exc)
            return None
        if not self.frames:
            writes.remove(self._tmp)
            log.warning("video: no frames captured, %s not written", self.path)
            return None
        os.chmod(self._tmp, 0o666 & ~writes._umask())
        writes.publish(self._tmp, self.path)
        n = self.frames
        log.info("video: %s, %d frames at %.1f fps; %.1f ms/frame rendering, %.1f ms/frame encoding",
                 self.path, n, self.fps, 1e3 * self.render_s / n, 1e3 * self.encode_s / n)
        return self.path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


__all__ = ["VideoWriter", "FollowCamera", "readable_frame", "still", "SUFFIXES"]
