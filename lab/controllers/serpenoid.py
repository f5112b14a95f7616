"""Serpenoid gait tracked by a joint PD loop with feed-forward rate (Hirose; Wang 2011 §4)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.kernels import compiled
from lab.core.state import ModelInfo, RobotState
from lab.core.fields import Validated, num
from lab.controllers.base import Controller, register_controller


@dataclass(frozen=True)
class SerpenoidParams(Validated):
    """x_i = α sin(ωt + iβ + φ₀) + γ, i counted from the tail joint as the papers do (x⁴ tail … xⁿ head),
    so β > 0 makes the head lead and the wave run head → tail: forward locomotion.
    Defaults: α = 0.5 rad and ω = 2 rad/s as the passive-creeping head reference of Table 1;
    β = 2π/9 puts one full wave on the 9 joints of the 10-module snake. ``phase_offset`` φ₀ is the
    tail joint's phase (0: i = 0, 1, …); Wang 2011's unified-dynamics gait counts
    (i − 3)β from 1 at x⁴, i.e. φ₀ = β."""

    alpha: float = num(0.5, ge=0, le=math.pi, unit="rad", doc="amplitude α")
    omega: float = num(2.0, ge=0, le=100, unit="rad/s", doc="temporal frequency ω")
    beta: float = num(2 * math.pi / 9, ge=-2 * math.pi, le=2 * math.pi, unit="rad", doc="phase lag β between joints")
    gamma: float = num(0.0, ge=-1, le=1, unit="rad", doc="offset γ (turning)")
    kp: float = num(2.0, gt=0, le=1e4, unit="N·m/rad", doc="PD angle gain")
    kd: float = num(0.1, ge=0, le=1e3, unit="N·m·s/rad", doc="PD rate gain")
    phase_offset: float = num(0.0, ge=-2 * math.pi, le=2 * math.pi, unit="rad", doc="phase φ₀ of the tail joint")


@register_controller("serpenoid", params=SerpenoidParams)
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
        ph = p.omega * t + self._i * p.beta + p.phase_offset
        return p.alpha * np.sin(ph) + p.gamma, p.alpha * p.omega * np.cos(ph)

    def act(self, state: RobotState) -> np.ndarray:
        # the reference, the PD law and the saturation in one compiled call (:func:`serpenoid`)
        p = self.params
        if p.phase_offset and p.omega == 0.0:  # a standing wave: the offset cannot ride on the clock
            x, xd = self.reference(state.t)
            return np.clip(p.kp * (x - state.q) + p.kd * (xd - state.qd), -self.model.effort, self.model.effort)
        # φ₀ as a clock shift φ₀/ω (the kernel takes no phase); φ₀ = 0 leaves t untouched
        t = state.t + p.phase_offset / p.omega if p.phase_offset else state.t
        return serpenoid(t, state.q, state.qd, p.alpha, p.omega, p.beta, p.gamma, p.kp, p.kd, self.model.effort)

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"alpha": (0.0, 1.5), "omega": (0.0, 6.0), "beta": (-2.0, 2.0), "gamma": (-0.5, 0.5)}


@compiled
def serpenoid(t, q, qd, alpha, omega, beta, gamma, kp, kd, effort):
    """The serpenoid PD law in one compiled loop over the joints (its numpy oracle:
    tests/oracles/serpenoid.py): τ_j = k_p(α sin(ωt + jβ) + γ − q_j) + k_d(αω cos(ωt + jβ) − q̇_j),
    clipped at ±effort."""
    n = q.shape[0]
    tau = np.empty(n)
    for j in range(n):
        ph = omega * t + j * beta
        x = kp * (alpha * math.sin(ph) + gamma - q[j]) + kd * (alpha * omega * math.cos(ph) - qd[j])
        tau[j] = min(max(x, -effort), effort)
    return tau
