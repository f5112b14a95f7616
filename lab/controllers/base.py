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
    # whoever installs the controller sets World.want_mass_matrix from it
    needs_mass_matrix: bool = False

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
