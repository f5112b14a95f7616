"""Passive creeping: energy-based serpentine control (Wang 2011, eqs. 14–15)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.kernels import compiled
from lab.core.state import ModelInfo, RobotState
from lab.core.fields import Validated, info, num
from lab.controllers.base import Controller, register_controller


@dataclass(frozen=True)
class PassiveCreepingParams(Validated):
    """Table 1 defaults: a = 10, k_d = 1, k_p = 1, x_d = 0.5 sin(2t + π/2), K = [0.10, 0.04, …]."""

    E_ref: float = num(1.0, ge=0, le=100, unit="J", doc="reference kinetic energy")
    phi_t: float = num(0.0, ge=-10, le=10, doc="turning offset added to the head's reference (eq. 14)")
    a: float = num(10.0, ge=0, le=1e4, doc="head gain a (eq. 14)")
    k_d: float = num(1.0, ge=0, le=1e4, doc="head rate gain (eq. 14)")
    k_p: float = num(1.0, ge=0, le=1e4, doc="head angle gain (eq. 14)")
    xd_amp: float = num(0.5, ge=0, le=math.pi, unit="rad", doc="amplitude of the head reference x_d")
    xd_omega: float = num(2.0, ge=0, le=100, unit="rad/s", doc="frequency of x_d")
    xd_phase: float = info(math.pi / 2, unit="rad", doc="phase of x_d")
    K_head: float = num(0.10, ge=0, le=1e4, doc="energy-integral gain of the head (eq. 14)")
    K_body: float = num(0.04, ge=0, le=1e4, doc="coupling gain of the body joints (eq. 15)")
    coupling_gain_fixed: float | None = num(
        None, ge=0, le=100, unit="N·m/rad",
        doc="freeze the energy integral so that K_body·∫(E_ref − E)dt equals this (a study option, not the paper's "
            "law: it measures steady state against the coupling gain); unset: the integral runs (eq. 15)")

    def __post_init__(self):
        super().__post_init__()
        if self.coupling_gain_fixed is not None and self.K_body <= 0:
            raise ValueError("coupling_gain_fixed: needs K_body > 0 (the frozen integral is coupling_gain_fixed/K_body)")


@register_controller("passive_creeping", params=PassiveCreepingParams)
class PassiveCreeping(Controller):
    """Head joint (eq. 14) and body joints (eq. 15) of Wang 2011.

    Head (joint J-1, the paper's xⁿ):
        τ_n = a·I_n·|K_n ∫(E_ref − E)dt + E_ref − E| · (ẍ_d + k_d(ẋ_d − ẋⁿ) + k_p(x_d − xⁿ) + φ_t)
    with I_n = I_n^b + m_n l_n²/4, the head's yaw inertia about the head joint.
    Body (joint j = 0 … J-2, the paper's x^{n−i}):
        τ_j = K_j · ∫(E_ref − E)dt · (q_{j+1} − q_j)
    E is the kinetic energy of the whole robot from the snapshot (eq. 8); the integral is a running
    rectangle sum over the control steps. Torques saturate at the joints' effort limit.

    ``coupling_gain_fixed`` = G (a study option, not in the paper) holds the integral at ∫ = G/K_body
    from the first step: the body coupling gain K_body·∫ is then G and the head's energy factor
    |K_n·G/K_body + E_ref − E|, so the steady state can be measured as a function of the gain the
    running integral would otherwise pass through (lab.papers.wang2011_creeping.characteristic).
    """

    def __init__(self, params: PassiveCreepingParams):
        super().__init__(params)
        self.integral = 0.0
        self.I_head = 0.0

    def reset(self, model: ModelInfo, dt: float) -> None:
        super().reset(model, dt)
        self.integral = self.frozen_integral()
        self.I_head = float(model.I_B[-1][2, 2] + model.mass[-1] * model.link_length**2 / 4.0)

    def frozen_integral(self) -> float:
        """∫(E_ref − E)dt held fixed by ``coupling_gain_fixed`` (0 when the integral runs)."""
        G = self.params.coupling_gain_fixed
        return 0.0 if G is None else G / self.params.K_body

    @property
    def coupling_gain(self) -> float:
        """The body joints' current coupling gain K_body·∫(E_ref − E)dt (N·m/rad), eq. 15."""
        return self.params.K_body * self.integral

    def energy_error(self, state: RobotState) -> float:
        return self.params.E_ref - state.kinetic_energy

    def act(self, state: RobotState) -> np.ndarray:
        p = self.params
        e = self.energy_error(state)
        if p.coupling_gain_fixed is None:
            self.integral += e * self.dt
        t = state.t
        ph = p.xd_omega * t + p.xd_phase
        x_d = p.xd_amp * math.sin(ph)
        xd_d = p.xd_amp * p.xd_omega * math.cos(ph)
        xdd_d = -p.xd_amp * p.xd_omega**2 * math.sin(ph)
        q, qd = state.q, state.qd
        tau_head = (p.a * self.I_head * abs(p.K_head * self.integral + e)
                    * (xdd_d + p.k_d * (xd_d - float(qd[-1])) + p.k_p * (x_d - float(q[-1])) + p.phi_t))
        # body joints and saturation in one compiled call (:func:`coupling_torques`)
        return coupling_torques(q, p.K_body * self.integral, tau_head, self.model.effort)

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"E_ref": (0.0, 3.0), "phi_t": (-1.0, 1.0)}


def coupling_torques(q, gain, tau_head, effort):
    """Passive-creeping joint torques (its numpy oracle: tests/oracles/passive_creeping.py): the body
    joints' τ_j = gain·(q_{j+1} − q_j) (Wang 2011, eq. 15), the head joint's ``tau_head`` given; all
    clipped at ±effort. The array is made here and filled by one compiled loop (:func:`_coupling_into`):
    an array handed back from compiled code costs ~1 µs to box, more than the loop."""
    tau = np.empty(q.shape[0])
    _coupling_into(q, gain, tau_head, effort, tau)
    return tau


@compiled
def _coupling_into(q, gain, tau_head, effort, tau):
    """:func:`coupling_torques` into ``tau``."""
    n = q.shape[0]
    for j in range(n - 1):
        tau[j] = min(max(gain * (q[j + 1] - q[j]), -effort), effort)
    tau[n - 1] = min(max(tau_head, -effort), effort)
