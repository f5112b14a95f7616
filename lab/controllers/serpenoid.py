"""Serpenoid gait tracked by a joint PD loop with feed-forward rate (Hirose; Wang 2011 §4)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.kernels import compiled
from lab.core.state import ModelInfo, RobotState
from lab.core.fields import Validated, num
from lab.controllers.base import Controller, register_controller
from lab.controllers.servo import FORM, Servo, servo_field, spd_torques


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
    servo: Servo = servo_field()

    def servo_gains(self, joint_names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray] | None:
        """(K_p, K_d) per joint of the servo, for its step bound (lab.core.instability.servo_step_bound)."""
        return np.full(len(joint_names), self.kp), np.full(len(joint_names), self.kd)


@register_controller("serpenoid", params=SerpenoidParams)
class Serpenoid(Controller):
    """τ = k_p (x_ref − q) + k_d (ẋ_ref − q̇), saturated at the effort limit; ``servo`` other than
    ``"explicit"`` takes its terms at the predicted next state (Tan 2011, :mod:`lab.controllers.servo`)."""

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

    @property
    def needs_mass_matrix(self) -> bool:
        return self.params.servo != "explicit"

    def act(self, state: RobotState) -> np.ndarray:
        p = self.params
        if p.servo != "explicit":  # the law at the next state, one compiled call (:func:`serpenoid_spd`)
            if state.M is None:
                raise ValueError(f"servo: {p.servo!r} reads the mass matrix from the snapshot (RobotState.M, filled "
                                 "when World.want_mass_matrix is on); a hand-made state needs servo = 'explicit'")
            return serpenoid_spd(state.t, state.q, state.qd, p.alpha, p.omega, p.beta, p.gamma, p.phase_offset,
                                 p.kp, p.kd, self.model.effort, state.M, self.dt, FORM[p.servo])
        # the reference, the PD law and the saturation in one compiled call (:func:`serpenoid`)
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


@compiled
def serpenoid_spd(t, q, qd, alpha, omega, beta, gamma, phi0, kp, kd, effort, M, h, form):
    """The serpenoid PD law in a form of :mod:`lab.controllers.servo` (``form``: its FORM code, 0
    implicit_damping, 1 stable_pd, 2 implicit_pd) in one compiled call, the reference with its phase φ₀:
    e_j = x_j(t) − q_j (form 0) or x_j(t + h) − q_j − h q̇_j, ė_j = ẋ_j(t + h) − q̇_j, then
    :func:`lab.controllers.servo.spd_torques`, clipped at ±effort (its oracle: tests/oracles/serpenoid.py)."""
    n = q.shape[0]
    e = np.empty(n)
    ed = np.empty(n)
    kpv = np.full(n, kp)
    kdv = np.full(n, kd)
    t1 = t + h
    for j in range(n):
        ph1 = omega * t1 + j * beta + phi0
        ed[j] = alpha * omega * math.cos(ph1) - qd[j]
        if form == 0:
            e[j] = alpha * math.sin(omega * t + j * beta + phi0) + gamma - q[j]
        else:
            e[j] = alpha * math.sin(ph1) + gamma - q[j] - h * qd[j]
    tau = spd_torques(M, kpv, kdv, e, ed, h, form == 2)
    for j in range(n):
        tau[j] = min(max(tau[j], -effort), effort)
    return tau
