"""Assemble a Scenario into a World, controller, force laws and recorder, and run it.

The run loop is :meth:`Simulation.run`; :meth:`Simulation.step` is one step of it (controller → force
laws → the World applies both → engine step → snapshot → the energy ledger → divergence check).
Everything else that watches a run — the GUI window, the video, the overlays, a progress bar, a trial's
stop condition, a study's probes — is an observer (:mod:`lab.core.observers`) given to the Simulation;
nobody writes a second step loop or swaps the Simulation's parts. The core names no library module:
the controller, the laws, the arena and the analyses are looked up by kind in the registries
(:func:`lab.core.registry.registry`), the robot's and trial's hooks are called on the objects the
scenario holds.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field

import numpy as np

from lab.core.errors import Diverged, Unstable
from lab.core.instability import InstabilityWatch
from lab.core.metrics import run_metrics
from lab.core.observers import DONE, STOPPED, Observer, RunView
from lab.core.recorder import Recorder
from lab.core.registry import registry
from lab.core.scenario import Scenario
from lab.core.world import World
from lab.core.wrench import as_wrench, bind, total

log = logging.getLogger(__name__)

STOP_CHECK_EVERY = 50  # steps between a trial's stop-condition evaluations (50 ms at 1 ms: a trial ends within that)
SETTLE_DT = 1e-3  # init.settle_s's engine step: at 1 ms the first step's fall g·h² is 0.01 mm and the settle is over in 0.2 s (5 ms: 0.25 mm, tilts 4 rad/s)


def applied_of(parts: dict, n_links: int):
    """What a step applied, from each law's output (``parts``): the law's own output when there is one
    law, else the :func:`lab.core.wrench.total` of all (exactly what :meth:`Simulation.step` applied)."""
    if len(parts) == 1:
        return next(iter(parts.values()))
    return total([as_wrench(x) for x in parts.values()], n_links)


@dataclass
class RunResult:
    status: str  # "ok" | "diverged" | "unstable" | "stopped"
    metrics: dict
    series: dict
    scenario: Scenario
    error: str = ""
    extras: dict = field(default_factory=dict)
    link_names: tuple[str, ...] = ()  # the engine's links, in the order of the per-link series
    joint_names: tuple[str, ...] = ()  # the movable joints, in the order of series["q"]
    body_links: tuple[str, ...] = ()  # the robot's body (Robot.body_links), tail first
    actuated_joints: tuple[str, ...] = ()  # the joints a controller drives (Robot.actuated_joints)


class _TrialStop(Observer):
    """The trial's stop condition, evaluated every :data:`STOP_CHECK_EVERY` steps."""

    def __init__(self, done):
        self.done = done

    def on_step(self, k, pre, tau, parts, post):
        if k % STOP_CHECK_EVERY == 0 and self.done(post):
            return DONE
        return None


class Simulation:
    """One scenario in one World, run by :meth:`run` or stepped by :meth:`step`.

    ``observers`` watch the run (:mod:`lab.core.observers`), called in the order given. ``controller``
    and ``recorder`` replace the scenario's controller and the default recorder (each an object, or a
    function of the World that makes one): what the Gymnasium environments use for their policy and
    their work-only ledger. They are fixed at construction; nothing swaps them later."""

    def __init__(self, scenario: Scenario, observers=(), controller=None, recorder=None):
        self.scenario = sc = scenario
        self.observers: tuple[Observer, ...] = tuple(observers)
        self.world = World(dt=sc.sim.dt, gravity=sc.sim.gravity, solver_iterations=sc.sim.solver_iterations,
                           gui=False, arena=sc.arena)
        spec = sc.robot
        rng = np.random.default_rng(sc.seed)
        heading = math.radians(sc.init.heading_deg)
        self.world.load_spec(spec, [*sc.init.position, spec.rest_height], heading)
        self.trial = sc.trial  # what a trial adds (bodies, a stop condition, metrics): lab.trials.base
        J = self.world.n_joints
        q0 = rng.uniform(-sc.init.joint_noise, sc.init.joint_noise, J) if sc.init.joint_noise > 0 else np.zeros(J)
        if controller is None:
            controller = registry("controller")[sc.controller_type].cls(sc.controller)
        elif callable(controller) and not hasattr(controller, "act"):
            controller = controller(self.world)
        self.controller = controller
        # a controller whose servo reads the mass matrix (lab.controllers.servo) gets it in every snapshot
        self.world.want_mass_matrix = bool(getattr(controller, "needs_mass_matrix", False))
        # a controller stepped implicitly may ask for the motors' lines taken implicitly too (lab.core.actuators), and a
        # scenario may set them (sim.motor_lines)
        if getattr(controller, "wants_implicit_motor_lines", False) or sc.sim.motor_lines == "implicit":
            self.world.implicit_motor_lines = True
        # the one place laws are bound to the robot and the arena (lab.core.wrench.bind)
        self.forces = {name: bind(law, spec, sc.arena)
                       for name, law in (("friction", sc.friction), *((n, law) for n, _, law in sc.forces))}
        self.view = RunView(scenario=sc, world=self.world, controller=self.controller, forces=self.forces,
                            head=self.head_index(), last_command=lambda: self.last_tau)
        if self.trial is not None:
            self.trial.setup(self.view)
        qd0 = None
        # on the controller's reference at t = 0 (InitConfig.shape); a controller without one starts straight
        if sc.init.shape != "straight" and callable(getattr(self.controller, "reference", None)):
            self.controller.reset(self.world.model, sc.sim.dt)
            x0, xd0 = self.controller.reference(0.0)
            q0 = q0 + np.asarray(x0, float)
            qd0 = np.asarray(xd0, float) if sc.init.shape == "gait_moving" else None
        self.world.set_joint_angles(q0)
        if sc.init.settle_s > 0:  # at rest on the ground at a fixed fine step, the same start at every sim.dt
            self.world.settle(sc.init.settle_s, min(sc.sim.dt, SETTLE_DT))
        if qd0 is not None:  # the reference's rates, the base at rest
            self.world.reset_state(q=q0, qd=qd0, v_W=(0.0, 0.0, 0.0), w_W=(0.0, 0.0, 0.0))
        self.controller.reset(self.world.model, sc.sim.dt)
        self.last_tau = np.zeros(J)  # the joint torques the last step applied
        self._laws = list(self.forces.items())
        self._max_ke = float(sc.sim.max_kinetic_energy)
        self.world.measure_contacts = any(getattr(f, "needs_contact_forces", False) for f in self.forces.values())
        on_contacts = self.world.record_contacts  # the ledger then meters gravity and the engine contacts
        if recorder is None:
            recorder = Recorder(sc.sim.n_steps, sc.sim.record_every, self.world.n_links, J, sc.sim.dt,
                                list(self.forces), gravity_W=self.world.gravity_W if on_contacts else None,
                                mass=self.world.model.mass if on_contacts else None)
        elif callable(recorder) and not hasattr(recorder, "on_step"):
            recorder = recorder(self.world)
        self.recorder = recorder
        # the run-time chatter and ledger check (lab.core.instability), an observer every run has: a run
        # that chatters ends "unstable"
        motors = self.world.motors
        self.watch = InstabilityWatch(sc.sim.dt, motors.stall_torque if motors is not None else np.full(J, np.inf),
                                      step_bound=self.servo_step_bound, ledger=self.recorder,
                                      line_bound=self.line_step_bound)
        for ob in self.observers:
            ob.on_setup(self.view)

    def step(self, state, tau=None):
        """One step of the lab: controller (or the given joint torques ``tau``) and force laws on the
        snapshot → apply in one place → engine step → the next snapshot → the energy ledger → divergence
        check. The ledger books the step before the check, so a diverging step is in the data kept.
        Returns (next state, what was applied: an (N, 3) force array or a Wrench)."""
        w = self.world
        t = state.t
        if tau is None:
            tau = self.controller.act(state)
        self.last_tau = tau  # kept: what this step commanded (studies sample it)
        state.tau = tau  # the laws that predict the step's slip read it (lab.forces.friction.VelocityCoulomb)
        laws = self._laws
        if len(laws) == 1:  # the common case (friction only): no summing, no Wrench to build
            name, law = laws[0]
            applied = law(state, t)
            parts = {name: applied}
        else:
            parts = {name: law(state, t) for name, law in laws}
            applied = total(parts.values(), w.n_links)  # force arrays and Wrenches, summed in the laws' order
        tau = w.apply(tau, applied, state)  # the torques the motors' lines let through
        w.step_engine()
        new = w.read_state()
        self.recorder.on_step(state, tau, parts, new)
        self._parts, self._tau = parts, tau
        w.check(new, self._max_ke)
        return new, applied

    def run(self, duration: float | None = None) -> RunResult:
        """From the first snapshot to ``sim.duration`` (or ``duration`` s), an observer's stop, or a
        divergence; then the metrics, the analyses the scenario asks for and the trial's metrics."""
        sc = self.scenario
        w = self.world
        n_steps = sc.sim.n_steps if duration is None else int(round(duration / sc.sim.dt))
        view = self.view
        state = w.read_state()
        self.recorder.start(state)
        observers = [self.watch, *self.observers]
        done = self.trial.stop_condition(view, state) if self.trial is not None else None
        if done is not None:
            observers.insert(0, _TrialStop(done))
        for ob in observers:
            ob.on_start(view, state)
        status, error = "ok", ""
        unstable = None
        t0 = time.perf_counter()
        try:
            for k in range(n_steps):
                pre = state
                state, _ = self.step(state)
                stop = None
                for ob in observers:
                    r = ob.on_step(k, pre, self._tau, self._parts, state)
                    if r is not None and stop is None:
                        stop = r
                if stop is not None:
                    if stop == STOPPED:
                        status = "stopped"
                    break
        except Diverged as exc:  # Unstable too (lab.core.instability): exit 3, the data so far kept
            status, error = ("unstable" if isinstance(exc, Unstable) else "diverged"), str(exc)
            unstable = exc if isinstance(exc, Unstable) else None
            log.warning("%s", exc)
        except Exception as exc:  # an observer may explain it (the GUI's window was closed); else a real error
            explained = [r for r in (ob.on_error(exc) for ob in observers) if r is not None]
            if not explained:
                raise
            status = explained[0]
        finally:
            wall = time.perf_counter() - t0
            for ob in observers:
                ob.on_end(view, state, status)
        recorder = self.recorder
        recorder.flush(state)
        series = recorder.series()
        metrics = {"status": status, "sim_time_s": float(recorder.steps * sc.sim.dt), "wall_time_s": float(wall),
                   "steps": int(recorder.steps)}
        if status == "diverged":
            metrics["diverged_at_s"] = float(recorder.steps * sc.sim.dt)
        if unstable is not None:
            metrics["unstable_at_s"] = float(recorder.steps * sc.sim.dt)
            metrics["unstable_cause"] = unstable.reason
            if unstable.max_dt is not None:
                metrics["unstable_max_dt_s"] = float(unstable.max_dt)
        metrics.update(run_metrics(series, recorder.balance(state.kinetic_energy), head=self.head_index()))
        analyses = registry("analysis")
        for name in sc.analyses:  # only those the scenario asks for, in its order
            metrics.update(analyses[name](series, sc))
        if self.trial is not None:
            metrics.update(self.trial.metrics(view, series))
        metrics["realtime_factor"] = float(metrics["sim_time_s"] / wall) if wall > 0 else 0.0
        extras = {}
        for ob in observers:
            extras.update(getattr(ob, "extras", None) or {})
        model = self.world.model
        robot = sc.robot
        links, joints = tuple(model.link_names), tuple(model.joint_names)
        body = robot.body_links(links) if hasattr(robot, "body_links") else links
        actuated = robot.actuated_joints(joints) if hasattr(robot, "actuated_joints") else joints
        return RunResult(status=status, metrics=metrics, series=series, scenario=sc, error=error, extras=extras,
                         link_names=links, joint_names=joints, body_links=tuple(body), actuated_joints=tuple(actuated))

    def servo_step_bound(self) -> float | None:
        """The largest step at which the controller's PD servo is stable at the current pose
        (:func:`lab.core.instability.servo_step_bound` on the engine's mass matrix), or None when the
        controller has no PD servo."""
        gains = self.controller.servo_gains() if hasattr(self.controller, "servo_gains") else None
        if gains is None:
            return None
        from lab.core.instability import servo_step_bound
        from lab.core.world import schur_joint_block, with_reflected_inertia

        w = self.world
        M = schur_joint_block(w.mass_matrix(), w.n_joints)
        return servo_step_bound(with_reflected_inertia(M, None if w.motors is None else w.motors.inertia), *gains,
                                getattr(self.controller.params, "servo", "explicit"))

    def line_step_bound(self) -> float | None:
        """With the motors' lines clipped explicitly, their bound at the current pose
        (:func:`lab.core.instability.line_step_bound`); None when the lines are taken implicitly or absent."""
        from lab.core.instability import line_step_bound
        from lab.core.world import schur_joint_block, with_reflected_inertia

        w = self.world
        if w.motors is None or w.implicit_motor_lines or not w.n_joints:
            return None
        M = with_reflected_inertia(schur_joint_block(w.mass_matrix(), w.n_joints), w.motors.inertia)
        return line_step_bound(M, w.motors.stall_torque, w.motors.no_load_speed)

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
        # in place: the trial's stop condition and the observers hold this controller
        self.controller.__dict__.update(copy.deepcopy(ctrl).__dict__)

    def close(self) -> None:
        for ob in self.observers:
            close = getattr(ob, "close", None)
            if close is not None:
                close()
        self.world.close()


def run_scenario(scenario: Scenario, duration: float | None = None, observers=()) -> RunResult:
    """Build, run and close one Simulation with the given observers. What ``lab run`` shows (window,
    video, screenshot, progress) is :func:`lab.present.run_scenario`'s."""
    sim = Simulation(scenario, observers=observers)
    try:
        return sim.run(duration=duration)
    finally:
        sim.close()


__all__ = ["RunResult", "STOP_CHECK_EVERY", "Simulation", "applied_of", "run_scenario"]
