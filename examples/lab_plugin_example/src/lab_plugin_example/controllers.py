"""The ``standing_wave`` controller: every joint follows the same sine, in phase,

    x_j(t) = a · sin(ω t),   τ_j = k_p (x_j − q_j) + k_d (ẋ_j − q̇_j), clipped at the effort limit.

The PD law is stepped by the lab's servo forms (``lab.Controller.pd``, :mod:`lab.controllers.servo`): with
``servo = "implicit_damping"`` (the default, as the serpenoid's) the damping is taken at the engine step's
next state, so the law is stable at the shipped scenarios' steps (snake_serpenoid runs at 2 ms). Written
out by hand, τ = k_p (x − q) + k_d (ẋ − q̇) is explicit and needs dt < 2μ/k_d (1.44 ms on the lab's snake at
k_d = 0.1): at 2 ms such a run ends "unstable" with the largest step that would hold.

A standing wave (no phase lag between joints, unlike the serpenoid's travelling wave x_j = α sin(ωt + jβ))
pushes no wave along the body, so on anisotropic friction the snake wriggles in place: its centre of mass
moves far less than under the serpenoid at the same amplitude and frequency. ``examples/lab_plugin_example/
sweep.toml`` sweeps ``controller.type`` over both and shows it.

The module registers the controller with the lab's public decorator, as a built-in does; the package's
``[project.entry-points."lab.plugins"]`` table names this module, so the lab imports it wherever it runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import lab
from lab.controllers.servo import Servo, servo_field
from lab.core.fields import Validated, num


@dataclass(frozen=True)
class StandingWaveParams(Validated):
    """The wave's parameters and ranges (a value outside one is a one-line ``error:``)."""

    amplitude: float = num(0.5, ge=0, le=math.pi / 2, unit="rad", doc="every joint's amplitude a")
    omega: float = num(2.0, ge=0, le=20, unit="rad/s", doc="temporal frequency ω")
    kp: float = num(2.0, gt=0, le=1e3, unit="N·m/rad", doc="PD angle gain")
    kd: float = num(0.1, ge=0, le=1e2, unit="N·m·s/rad", doc="PD rate gain")
    servo: Servo = servo_field()  # how the PD law is stepped: "implicit_damping" unless set

    def servo_gains(self, joint_names: tuple[str, ...]):
        """(K_p, K_d) per joint, so the run-time watch can name the servo's step bound."""
        return np.full(len(joint_names), self.kp), np.full(len(joint_names), self.kd)


@lab.register_controller("standing_wave", params=StandingWaveParams)
class StandingWave(lab.Controller):
    """τ = k_p (a sin ωt − q) + k_d (a ω cos ωt − q̇), the same reference on every joint."""

    def reference(self, t: float) -> tuple[float, float]:
        p = self.params
        return p.amplitude * math.sin(p.omega * t), p.amplitude * p.omega * math.cos(p.omega * t)

    def act(self, state) -> np.ndarray:
        return self.pd(state, self.reference, self.params.kp, self.params.kd)  # saturated at the effort limit

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"amplitude": (0.0, 1.5), "omega": (0.0, 6.0)}
