"""Controller protocol: ``reset(model, dt)`` then ``act(state) -> joint torques (J,)``.

A controller holds its parameters as a frozen dataclass (``params``) and any internal state
(integrators) as plain attributes. It reads only the :class:`~lab.state.RobotState` snapshot.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..state import ModelInfo, RobotState


class Controller:
    params: object

    def __init__(self, params):
        self.params = params
        self.model: ModelInfo | None = None
        self.dt = 0.0

    def reset(self, model: ModelInfo, dt: float) -> None:
        self.model = model
        self.dt = dt

    def act(self, state: RobotState) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def tunables(self) -> dict[str, tuple[float, float]]:
        """Parameters a GUI slider may change while running, with their ranges."""
        return {}

    def set_param(self, name: str, value: float) -> None:
        self.params = replace(self.params, **{name: float(value)})

    def saturate(self, tau: np.ndarray) -> np.ndarray:
        e = self.model.effort
        return np.clip(tau, -e, e)
