"""Serpenoid gait tracked by a joint PD loop with feed-forward rate (Hirose; Wang 2011 §4)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..state import ModelInfo, RobotState
from .base import Controller


@dataclass(frozen=True)
class SerpenoidParams:
    """x_i = α sin(ωt + iβ) + γ, i counted from the tail joint as the papers do (x⁴ tail … xⁿ head),
    so β > 0 makes the head lead and the wave run head → tail: forward locomotion.
    Defaults: α = 0.5 rad and ω = 2 rad/s as the passive-creeping head reference of Table 1;
    β = 2π/9 puts one full wave on the 9 joints of the 10-module snake."""

    alpha: float = 0.5
    omega: float = 2.0
    beta: float = 2 * math.pi / 9
    gamma: float = 0.0
    kp: float = 2.0
    kd: float = 0.1

    def __post_init__(self):
        if not 0.0 <= self.alpha <= math.pi:
            raise ValueError(f"alpha: must be in [0, pi] rad, got {self.alpha}")
        if not 0.0 <= self.omega <= 100.0:
            raise ValueError(f"omega: must be in [0, 100] rad/s, got {self.omega}")
        if not -2 * math.pi <= self.beta <= 2 * math.pi:
            raise ValueError(f"beta: must be in [-2pi, 2pi] rad, got {self.beta}")
        if not -1.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma: must be in [-1, 1] rad, got {self.gamma}")
        if not 0.0 < self.kp <= 1e4:
            raise ValueError(f"kp: must be in (0, 1e4] N·m/rad, got {self.kp}")
        if not 0.0 <= self.kd <= 1e3:
            raise ValueError(f"kd: must be in [0, 1e3] N·m·s/rad, got {self.kd}")


class Serpenoid(Controller):
    """τ = k_p (x_ref − q) + k_d (ẋ_ref − q̇), saturated at the effort limit."""

    def __init__(self, params: SerpenoidParams):
        super().__init__(params)
        self._i = np.zeros(0)

    def reset(self, model: ModelInfo, dt: float) -> None:
        super().reset(model, dt)
        self._i = np.arange(model.n_joints, dtype=float)

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        p = self.params
        ph = p.omega * t + self._i * p.beta
        return p.alpha * np.sin(ph) + p.gamma, p.alpha * p.omega * np.cos(ph)

    def act(self, state: RobotState) -> np.ndarray:
        # the reference, the PD law and the saturation in one fused call (lab.kernels.serpenoid)
        p = self.params
        return kernels.serpenoid(state.t, state.q, state.qd, p.alpha, p.omega, p.beta, p.gamma, p.kp, p.kd,
                                 self.model.effort)

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"alpha": (0.0, 1.5), "omega": (0.0, 6.0), "beta": (-2.0, 2.0), "gamma": (-0.5, 0.5)}
