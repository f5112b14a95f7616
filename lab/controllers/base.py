"""Controller protocol: ``reset(model, dt)`` then ``act(state) -> joint torques (J,)``.

A controller holds its parameters as a frozen dataclass (``params``) and any internal state
(integrators) as plain attributes. It reads only the :class:`~lab.core.state.RobotState` snapshot.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from lab.core.registry import Registry, registry
from lab.core.state import ModelInfo, RobotState


class Controller:
    params: object
    # the metrics that say what this controller's run did (lab.core.views.Headline), printed by `lab run`
    # after the trial's and the analyses'; a user's controller may declare its own
    headline: tuple = ()

    def __init__(self, params):
        self.params = params
        self.model: ModelInfo | None = None
        self.dt = 0.0

    def reset(self, model: ModelInfo, dt: float) -> None:
        self.model = model
        self.dt = dt

    # True when act() reads the engine's mass matrix from the snapshot (RobotState.M, an implicit servo):
    # whoever installs the controller sets World.want_mass_matrix from it. By default: when the parameters
    # declare a ``servo`` (lab.controllers.servo.servo_field) other than "explicit", as :meth:`pd` needs.
    # A subclass may override the property or set the attribute (the environments' policy does).
    @property
    def needs_mass_matrix(self) -> bool:
        fixed = self.__dict__.get("_needs_mass_matrix")
        return fixed if fixed is not None else getattr(self.params, "servo", "explicit") != "explicit"

    @needs_mass_matrix.setter
    def needs_mass_matrix(self, value: bool) -> None:
        self.__dict__["_needs_mass_matrix"] = bool(value)

    def pd(self, state: RobotState, reference, kp, kd, servo: str | None = None) -> np.ndarray:
        """The joint PD law τ = K_p (q_ref − q) + K_d (q̇_ref − q̇), saturated at the effort limit, stepped in
        one of the lab's servo forms (:mod:`lab.controllers.servo`): ``servo`` (default: ``params.servo``,
        else "explicit"). ``reference(t) -> (q_ref, q̇_ref)`` is called at t and, for the implicit forms, at
        t + dt. The explicit form needs dt < 2μ/K_d on a joint of inertia μ (1.44 ms on the lab's snake at
        K_d = 0.1): a user's PD written out by hand has that bound; this one, with ``servo =
        servo_field()`` in the parameters, is stable to ~2 K_d/K_p ("implicit_damping") or at any step
        ("implicit_pd"), and converges to the explicit law as dt → 0 (tests/library/test_servo.py).
        ``kp``, ``kd``: scalars or per joint."""
        from lab.controllers.servo import angle_error, spd_torques

        form = servo if servo is not None else getattr(self.params, "servo", "explicit")
        x, xd = reference(state.t)
        n = state.q.shape[0]
        if form == "explicit":
            tau = np.asarray(kp, float) * (x - state.q) + np.asarray(kd, float) * (xd - state.qd)
            return self.saturate(tau)
        if state.M is None:
            raise ValueError(f"servo: {form!r} reads the mass matrix from the snapshot (RobotState.M, filled when "
                             "World.want_mass_matrix is on: the controller's needs_mass_matrix); a hand-made state "
                             "needs servo = 'explicit'")
        h = self.dt
        x1, xd1 = reference(state.t + h)
        e = angle_error(form, np.broadcast_to(x, (n,)), np.broadcast_to(x1, (n,)), state.q, state.qd, h)
        tau = spd_torques(state.M, np.broadcast_to(np.asarray(kp, float), (n,)).copy(),
                          np.broadcast_to(np.asarray(kd, float), (n,)).copy(), np.asarray(e, float),
                          np.asarray(xd1 - state.qd, float), float(h), form == "implicit_pd")
        return self.saturate(tau)

    def act(self, state: RobotState) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def servo_gains(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(K_p, K_d) per joint when the controller runs a PD servo (the run-time watch names its step bound,
        lab.core.instability), else None; the parameters declare it (``params.servo_gains(joint_names)``)."""
        g = getattr(self.params, "servo_gains", None)
        return None if g is None or self.model is None else g(tuple(self.model.joint_names))

    def tunables(self) -> dict[str, tuple[float, float]]:
        """Parameters the GUI panel's keys may change while running, with their ranges."""
        return {}

    def set_param(self, name: str, value: float) -> None:
        self.params = replace(self.params, **{name: float(value)})

    def saturate(self, tau: np.ndarray) -> np.ndarray:
        e = self.model.effort
        return np.clip(tau, -e, e)


class ControllerEntry(NamedTuple):
    """A registered controller: its parameter dataclass (the scenario's ``[controller]`` table) and class."""

    params: type
    cls: type


CONTROLLERS: Registry[ControllerEntry] = registry("controller")


def register_controller(name: str, params: type):
    """Register a :class:`Controller` subclass as ``[controller] type = name`` with its parameter dataclass
    (frozen, validated: :class:`lab.core.fields.Validated`). A registered controller gets what a built-in gets:
    scenario validation, the JSON Schema, the GUI panel's keys (its :meth:`Controller.tunables`), sweeps and
    regression runs::

        @lab.register_controller("my_gait", params=MyGaitParams)
        class MyGait(Controller): ...
    """

    def deco(cls):
        if not (isinstance(cls, type) and issubclass(cls, Controller)):
            raise TypeError(f"register_controller({name!r}): {cls!r} is not a lab.controllers.base.Controller")
        CONTROLLERS.add(name, ControllerEntry(params, cls), origin=cls.__module__)
        return cls

    return deco


def make_controller(kind: str, params) -> Controller:
    return CONTROLLERS[kind].cls(params)
