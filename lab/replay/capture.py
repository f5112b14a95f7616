"""What ``lab replay`` needs, captured while a run steps: every link's pose (and each force law's
per-link force) at a stated rate, plus the scene's visual shapes once at the start.

:class:`ReplayCapture` is an observer of the run loop (``on_start / on_step / on_end``, the shape of
the recorder and the overlay: DESIGN.md, "Layout"); it only reads the snapshots the loop already
has, so a run's metrics and time series are the same with or without it. Its arrays go to the run
folder as ``replay.npz`` (:func:`npz_bytes`, written by :func:`lab.results.write_run`).
"""

from __future__ import annotations

import io
import json
import logging
import zipfile

import numpy as np

from lab.core.contacts import F_T, N_W, Col
from lab.core.errors import LabError
from lab.core.observers import Observer
from lab.core.wrench import Wrench

log = logging.getLogger(__name__)

FORMAT = 1  # replay.npz's layout version (lab.replay.page refuses another)
# on engine contacts (World.record_contacts: the tracked robot) the engine's own contact forces, summed
# per link, as two more arrow channels beside the force laws'
CONTACT_CHANNELS = ("contact_friction", "contact_normal")
# A replay is refused before the run starts when its arrays would pass this bound (as the recorder's
# MAX_RECORDED_BYTES bounds timeseries.csv): 256 MiB of float32 is ~100× the 30 s flagship at 25 Hz.
MAX_REPLAY_BYTES = 256 * 1024**2
MAX_MESH_FACES = 20000  # per mesh shape; a heavier mesh is drawn as its bounding box (and says so)


def every_n_steps(rate_hz: float, dt: float) -> int:
    """Steps between two captured frames: the stated rate rounded to whole steps (at least 1)."""
    return max(1, int(round(1.0 / (rate_hz * dt))))


def capture_for(scenario, duration: float | None = None) -> list:
    """The replay's observer for a run of ``scenario`` (``duration``: the run's own, when it overrides
    sim.duration), or none when its ``[replay] rate_hz`` is 0. Every run that writes a folder gets it
    (lab.present.observers: ``lab run`` and the API; lab.sweep.execute: sweeps and the report)."""
    rc = scenario.replay_config
    if rc.rate_hz <= 0:
        return []
    sim = scenario.sim
    n_steps = sim.n_steps if duration is None else int(round(duration / sim.dt))
    return [ReplayCapture(rc.rate_hz, sim.dt, n_steps, rc.forces)]


class ReplayCapture(Observer):
    """Link poses (COM position p_W, orientation quat_W x y z w) of the robot and the extra bodies at
    every ``every``-th step, with ``forces``: each law's per-link force F_W (N) applied over the step
    that ended at the frame. Frame 0 is the initial state; a run ending between two frames adds its
    last state (as :meth:`lab.core.recorder.Recorder.flush`)."""

    def __init__(self, rate_hz: float, dt: float, n_steps: int, forces: bool = True):
        self.rate_hz = float(rate_hz)
        self.dt = float(dt)
        self.every = every_n_steps(rate_hz, dt)
        self.n_alloc = n_steps // self.every + 2
        self.with_forces = bool(forces)
        self.k = 0
        self.scene: dict = {}
        self.meshes: dict[str, np.ndarray] = {}

    # -- the observer's hooks -------------------------------------------------------------------
    def on_start(self, run, state) -> None:
        world = run.world
        n, law_names = world.n_links, list(run.forces) if self.with_forces else []
        self._contacts = self.with_forces and bool(world.record_contacts)
        if self._contacts:
            law_names += list(CONTACT_CHANNELS)
        extras = list(world.bodies)
        per_frame = 4 * (1 + 7 * (n + len(extras)) + 3 * n * len(law_names))
        size = per_frame * self.n_alloc
        if size > MAX_REPLAY_BYTES:
            raise LabError("scenario:replay.rate_hz",
                           f"{self.rate_hz:g} Hz over {self.n_alloc - 2} frames of {n} links is "
                           f"{size / 1024**2:.0f} MiB of poses, at most {MAX_REPLAY_BYTES // 1024**2} MiB; "
                           "lower replay.rate_hz (0: no replay) or shorten sim.duration")
        a = self.n_alloc
        self.t = np.zeros(a)
        self.p_W = np.zeros((a, n, 3), np.float32)
        self.quat_W = np.zeros((a, n, 4), np.float32)
        self.extra_p = np.zeros((a, len(extras), 3), np.float32)
        self.extra_q = np.zeros((a, len(extras), 4), np.float32)
        self.F_W = {name: np.zeros((a, n, 3), np.float32) for name in law_names}
        ctrl = run.controller
        self._phase = ctrl if _numeric(getattr(ctrl, "phase", None)) else None
        self.phase = np.zeros(a, np.float32)
        bodies = world.visual_scene()
        for b in bodies:
            for s in b["shapes"]:
                if s["geom"] == "mesh":
                    self._mesh(s)
        self.scene = {
            "format": FORMAT, "rate_hz": self.rate_hz, "dt": self.dt, "every": self.every,
            "link_names": list(world.model.link_names), "joint_names": list(world.model.joint_names),
            "head": run.head, "laws": law_names, "extras": extras, "bodies": bodies,
            "gravity_W": [float(g) for g in world.gravity_W],
            "channels": ["controller.phase"] if self._phase is not None else [],
        }
        self._extras = extras
        self._sample(state, None)

    def on_step(self, k, pre, tau, parts, post):
        if (k + 1) % self.every == 0:  # step k ends at (k + 1)·dt
            self._sample(post, parts)
        return None

    def on_end(self, run, state, status) -> None:
        if self.scene and self.k and self.t[self.k - 1] < state.t:
            self._sample(state, None)

    @property
    def extras(self) -> dict:
        """What the run's result carries (RunResult.extras): the arrays, and replay.npz for the run folder
        (written by lab.results.write_run)."""
        if not self.scene:
            return {}
        arrays = self.arrays()
        return {"replay": arrays, "files": {"replay.npz": npz_bytes(arrays)}}

    # -- helpers ---------------------------------------------------------------------------------
    def _sample(self, s, parts) -> None:
        k = self.k
        if k >= self.n_alloc:
            return
        self.t[k] = s.t
        self.p_W[k] = s.p_W
        self.quat_W[k] = s.quat_W
        for i, name in enumerate(self._extras):
            b = s.extra.get(name)
            if b is not None:
                self.extra_p[k, i] = b.p_W
                self.extra_q[k, i] = b.quat_W
        if parts is not None:  # a step's frame: what each law applied over it (frame 0: nothing yet)
            for name, F in self.F_W.items():
                out = parts.get(name)
                if out is not None:
                    F[k] = out.F_W if isinstance(out, Wrench) else out
            if self._contacts and s.contacts is not None and len(s.contacts):
                rows = s.contacts
                link = rows[:, Col.LINK].astype(int)
                np.add.at(self.F_W["contact_friction"][k], link, rows[:, F_T])
                np.add.at(self.F_W["contact_normal"][k], link, rows[:, Col.FN, None] * rows[:, N_W])
        elif k and self.F_W:  # the last frame of a run cut short between frames: hold the last forces
            for F in self.F_W.values():
                F[k] = F[k - 1]
        if self._phase is not None:
            self.phase[k] = float(self._phase.phase)
        self.k = k + 1

    def _mesh(self, shape: dict) -> None:
        """A mesh shape's triangles (in its own frame, scaled) go into the npz as ``mesh<i>_V/_F``."""
        key = f"mesh{len(self.meshes) // 2}"
        try:
            import trimesh

            m = trimesh.load(shape["file"], force="mesh")
            V = np.asarray(m.vertices, np.float32) * np.asarray(shape["dims"][:3], np.float32)
            F = np.asarray(m.faces, np.int32)
        except Exception as exc:  # a mesh the file system no longer has: its shape is skipped, and said
            log.warning("replay: mesh %s not readable (%s); not drawn", shape["file"], exc)
            shape["mesh"] = None
            return
        if len(F) > MAX_MESH_FACES:
            log.warning("replay: mesh %s has %d faces (> %d); drawn as its bounding box", shape["file"], len(F),
                        MAX_MESH_FACES)
            lo, hi = V.min(0), V.max(0)
            shape.update(geom="box", dims=[float(x) for x in hi - lo], mesh_centre=[float(x) for x in (lo + hi) / 2])
            return
        self.meshes[f"{key}_V"], self.meshes[f"{key}_F"] = V, F
        shape["mesh"] = key

    def arrays(self) -> dict[str, np.ndarray]:
        """What replay.npz holds: ``scene`` (UTF-8 JSON as uint8), ``t``, ``p_W``, ``quat_W``,
        ``extra_p_W``, ``extra_quat_W``, ``F_W.<law>`` and the meshes, trimmed to the frames written."""
        k = self.k
        out = {"scene": np.frombuffer(json.dumps(self.scene, sort_keys=True).encode(), np.uint8),
               "t": self.t[:k], "p_W": self.p_W[:k], "quat_W": self.quat_W[:k],
               "extra_p_W": self.extra_p[:k], "extra_quat_W": self.extra_q[:k]}
        for name, F in self.F_W.items():
            out[f"F_W.{name}"] = F[:k]
        if self._phase is not None:
            out["channel.controller.phase"] = self.phase[:k]
        out.update(self.meshes)
        return out


def _numeric(x) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz (np.load reads it) with a fixed timestamp on every member, so the same run gives the
    same bytes (numpy's savez stamps the current time)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, a in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(a), allow_pickle=False)
            zf.writestr(info, member.getvalue())
    return buf.getvalue()
