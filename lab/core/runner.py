"""Assemble a Scenario into a World, controller, force laws and recorder, and run it."""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field

import numpy as np

from lab.controllers import make_controller
from lab.core.errors import Diverged
from lab.forces import as_wrench, total
from lab.analysis.registry import run_analyses
from lab.forces.base import bind
from lab.core.metrics import run_metrics
from lab.core.recorder import Recorder
from lab.robots.base import hooks
from lab.core.scenario import Scenario
from lab.trials.base import CHECK_EVERY
from lab.core.world import World, pace

log = logging.getLogger(__name__)


@dataclass
class RunResult:
    status: str  # "ok" | "diverged" | "stopped"
    metrics: dict
    series: dict
    scenario: Scenario
    error: str = ""
    extras: dict = field(default_factory=dict)
    link_names: tuple[str, ...] = ()  # the engine's links, in the order of the per-link series
    joint_names: tuple[str, ...] = ()  # the movable joints, in the order of series["q"]
    body_links: tuple[str, ...] = ()  # the robot's body (Robot.body_links), tail first
    actuated_joints: tuple[str, ...] = ()  # the joints a controller drives (Robot.actuated_joints)

    def views(self) -> tuple:
        """The plots of this run (:class:`lab.core.views.View`): the generic ones, then the robot's
        (:meth:`lab.robots.base.Robot.views`), then the trial's (:meth:`lab.trials.base.Trial.views`)."""
        from lab.analysis.plots import GENERIC_VIEWS
        from lab.robots.base import hooks

        trial = self.scenario.trial
        out = (*GENERIC_VIEWS, *hooks(self.scenario.robot).views(), *(trial.views() if trial is not None else ()))
        names = [v.name for v in out]
        if len(set(names)) != len(names):
            raise ValueError(f"views: two views share a file name: {names}")
        return out


class Simulation:
    """One scenario in one World. ``gui=True`` opens the PyBullet window (paced to real time)."""

    def __init__(self, scenario: Scenario, gui: bool = False, video: str | None = None):
        self.scenario = sc = scenario
        # --gui: physics stays in a DIRECT client and lab.gui mirrors it into a viewer window, opened
        # first (PyBullet's GUI-mode engine calls cost ~5-25 ms/step here, the mirror ~0.4 ms/step).
        viewer = None
        if gui:
            from lab.gui import open_viewer

            viewer = open_viewer()
        self.world = World(dt=sc.sim.dt, gravity=sc.sim.gravity, solver_iterations=sc.sim.solver_iterations,
                           gui=False, arena=sc.arena)
        spec = sc.robot
        rng = np.random.default_rng(sc.seed)
        heading = math.radians(sc.init.heading_deg)
        self.world.load_spec(spec, [*sc.init.position, spec.rest_height], heading)
        self.trial = sc.trial  # what a trial adds (bodies, a stop condition, metrics): lab.trials.base
        if self.trial is not None:
            self.trial.setup(self)
        J = self.world.n_joints
        q0 = rng.uniform(-sc.init.joint_noise, sc.init.joint_noise, J) if sc.init.joint_noise > 0 else np.zeros(J)
        self.world.set_joint_angles(q0)
        self.controller = make_controller(sc.controller_type, sc.controller)
        self.controller.reset(self.world.model, sc.sim.dt)
        self.last_tau = np.zeros(J)  # the joint torques the last step applied
        # the one place laws are bound to the robot and the arena (lab.forces.base.bind)
        self.forces = {name: bind(law, spec, sc.arena)
                       for name, law in (("friction", sc.friction), *((n, law) for n, _, law in sc.forces))}
        self._laws = list(self.forces.items())
        self._max_ke = float(sc.sim.max_kinetic_energy)
        self.world.measure_contacts = any(getattr(f, "needs_contact_forces", False) for f in self.forces.values())
        on_contacts = self.world.record_contacts  # the ledger then meters gravity and the engine contacts
        self.recorder = Recorder(sc.sim.n_steps, sc.sim.record_every, self.world.n_links, J, sc.sim.dt,
                                 list(self.forces), gravity_W=self.world.gravity_W if on_contacts else None,
                                 mass=self.world.model.mass if on_contacts else None)
        self.gui = None
        if gui:
            from lab.gui import GuiOverlay

            self.gui = GuiOverlay(self.world, self.controller, viewer=viewer)
            self.gui.overlay_sources = [law for law in self.forces.values() if hasattr(law, "gui_overlay")]
        self.scene = None  # what --video frames and --screenshot draw over the rendered image (lab.overlay)
        self.video = None
        if video:
            from lab.video import VideoWriter

            self.video = VideoWriter(self.world, video, scene=self.overlay_scene())

    def overlay_scene(self):
        if self.scene is None:
            from lab.overlay import Scene

            self.scene = Scene(self.world, [self.controller, *self.forces.values()], head=self.head_index())
        return self.scene

    def screenshot(self, path: str, state) -> str | None:
        """A PNG of the last instant with the overlays, however the run ended: the window's view when
        it is still open, else the video camera's, rendered headless. None (and a warning) if neither
        can be made."""
        scene = self.overlay_scene()
        if self.gui is not None and not self.gui.closed:
            try:
                return self.gui.screenshot(path, scene=scene)
            except Exception as exc:  # the window went away meanwhile: fall back to the headless camera
                log.info("screenshot from the window failed (%s); rendering headless", exc)
        from lab.video import still

        try:
            return still(self.world, state, path, scene)
        except Exception as exc:
            log.warning("--screenshot %s not written: %s", path, exc)
            return None

    def step(self, state):
        """One step of the lab: controller and force laws on the snapshot → apply in one place →
        engine step → the next snapshot → energy ledger and recorder → divergence check.
        Returns (next state, what was applied: an (N, 3) force array or a Wrench)."""
        w = self.world
        t = state.t
        tau = self.last_tau = self.controller.act(state)  # kept: what this step applied (studies sample it)
        laws = self._laws
        if len(laws) == 1:  # the common case (friction only): no summing, no Wrench to build
            name, law = laws[0]
            applied = law(state, t)
            parts = {name: applied}
        else:
            parts = {name: law(state, t) for name, law in laws}
            applied = total([as_wrench(x) for x in parts.values()], w.n_links)
        tau = w.apply(tau, applied, state)  # the torques the motors' lines let through
        w.step_engine()
        new = w.read_state()
        self.recorder.on_step(state, tau, parts, new)
        w.check(new, self._max_ke)
        return new, applied

    def run(self, duration: float | None = None, progress: bool = False, screenshot: str | None = None) -> RunResult:
        sc = self.scenario
        w = self.world
        n_steps = sc.sim.n_steps if duration is None else int(round(duration / sc.sim.dt))
        state = w.read_state()
        self.recorder.start(state)
        status, error = "ok", ""
        t0 = time.perf_counter()
        bar = None
        if progress and n_steps * sc.sim.dt > 2.0 and not self.gui:
            from tqdm import tqdm

            bar = tqdm(total=n_steps, unit="step", unit_scale=True, desc=sc.name, leave=False)
        recorder = self.recorder
        done = self.trial.stop_condition(self, state) if self.trial is not None else None
        scene = self.overlay_scene() if screenshot else self.scene
        try:
            for k in range(n_steps):
                state, wrench = self.step(state)
                if scene is not None:
                    scene.update(k, state, wrench)
                if done is not None and k % CHECK_EVERY == 0 and done(state):
                    break
                if bar is not None and k % 500 == 0:
                    bar.update(min(500, n_steps - bar.n))
                if self.video is not None:
                    self.video.maybe_capture(k, state)
                if self.gui is not None:
                    if not self.gui.update(k, state, as_wrench(wrench).F_W):
                        status = "stopped"
                        break
                    pace(state.t, t0)
        except Diverged as exc:
            status, error = "diverged", str(exc)
            log.warning("%s", exc)
        except Exception as exc:  # the GUI window closed under us; anything else is a real error
            if isinstance(exc, World.EngineError) and self.gui is not None and self.gui.closed:
                status = "stopped"
            else:
                raise
        finally:
            if bar is not None:
                bar.close()
            if self.video is not None:
                self.video.close()
        wall = time.perf_counter() - t0
        if screenshot:
            self.screenshot(screenshot, state)
        recorder.flush(state)
        series = recorder.series()
        metrics = {"status": status, "sim_time_s": float(recorder.steps * sc.sim.dt), "wall_time_s": float(wall),
                   "steps": int(recorder.steps)}
        if status == "diverged":
            metrics["diverged_at_s"] = float(recorder.steps * sc.sim.dt)
        metrics.update(run_metrics(series, recorder.balance(state.kinetic_energy), head=self.head_index()))
        metrics.update(run_analyses(sc.analyses, series, sc))  # only those the scenario asks for
        if self.trial is not None:
            metrics.update(self.trial.metrics(self, series))
        metrics["realtime_factor"] = float(metrics["sim_time_s"] / wall) if wall > 0 else 0.0
        extras = {"video_error": self.video.error} if self.video is not None and self.video.error else {}
        model = self.world.model
        robot = hooks(sc.robot)
        return RunResult(status=status, metrics=metrics, series=series, scenario=sc, error=error, extras=extras,
                         link_names=tuple(model.link_names), joint_names=tuple(model.joint_names),
                         body_links=tuple(robot.body_links(tuple(model.link_names))),
                         actuated_joints=tuple(robot.actuated_joints(tuple(model.joint_names))))

    def head_index(self) -> int | None:
        """Index of the robot's head link (the spec's ``head_link``), or None for a robot without one."""
        name = getattr(self.scenario.robot, "head_link", None)
        return None if name is None else self.world.model.link_index(name)

    def save_state(self) -> tuple:
        """A rewind point: the World's (engine and per-step hooks) and the controller's own state (its
        integrators, phase and log), for :meth:`restore_state`."""
        import copy

        return self.world.save_state(), copy.deepcopy(self.controller)

    def restore_state(self, snap: tuple) -> None:
        """Back to :meth:`save_state`'s point; the recorder is not rewound (start it again to record)."""
        import copy

        world, ctrl = snap
        self.world.restore_state(world)
        # in place: the trial's stop condition and the GUI's overlays hold this controller
        self.controller.__dict__.update(copy.deepcopy(ctrl).__dict__)

    def close(self) -> None:
        if self.gui is not None:
            self.gui.close()
        self.world.close()


def run_scenario(scenario: Scenario, gui: bool = False, duration: float | None = None, progress: bool = False,
                 video: str | None = None, screenshot: str | None = None) -> RunResult:
    sim = Simulation(scenario, gui=gui, video=video)
    try:
        return sim.run(duration=duration, progress=progress, screenshot=screenshot)
    finally:
        sim.close()
