"""Belt drive of the tracked robot for the slope tests: hold a commanded belt speed (0 = locked).

The drive joint's rate ψ̇ is servoed to v/r by a PI loop whose integral is not clamped: at v = 0 the
integral is the drive angle's drift, so the loop is a stiff angle lock (the belt locked), and at v ≠ 0
it holds the mean speed exactly. The arm is held at ``arm_angle`` by a PD servo (0: straight back,
where the robot starts, its guide wheel 3 cm off the ground even with the servo's 3° sag), so that the
belt carries the whole weight and the slope's closed forms — hold below atan μ, slide above — apply to
the belt alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import math

from lab.core.fields import Validated, num
from lab.core.state import ModelInfo, RobotState
from lab.controllers.base import Controller, register_controller


@dataclass(frozen=True)
class BeltDriveParams(Validated):
    belt_speed: float = num(0.03, ge=-1, le=1, unit="m/s", doc="commanded belt surface speed (0: belt locked)")
    pulley_radius: float = num(0.025, gt=0, unit="m", doc="r, as the robot's")
    arm_angle: float = num(0.0, ge=-math.pi, le=math.pi, unit="rad",
                           doc="arm held here (0: straight back, the guide wheel off the ground)")
    kp: float = num(0.5, ge=0, le=1e4, unit="N·m·s/rad", doc="belt speed loop, proportional")
    ki: float = num(500.0, ge=0, le=1e5, unit="N·m/rad", doc="belt speed loop, integral (= angle stiffness at v = 0)")
    kp_arm: float = num(50.0, ge=0, le=1e5, unit="N·m/rad", doc="arm angle servo")
    kd_arm: float = num(5.0, ge=0, le=1e4, unit="N·m·s/rad", doc="arm angle servo, damping")


@register_controller("belt_drive", params=BeltDriveParams)
class BeltDrive(Controller):
    def reset(self, model: ModelInfo, dt: float) -> None:
        super().reset(model, dt)
        self.j_drive = model.joint_index("drive_joint")
        self.j_arm = model.joint_index("arm_joint")
        self.integral = 0.0

    def act(self, state: RobotState) -> np.ndarray:
        p = self.params
        tau = np.zeros(self.model.n_joints)
        err = p.belt_speed / p.pulley_radius - float(state.qd[self.j_drive])
        self.integral += err * self.dt
        tau[self.j_drive] = p.kp * err + p.ki * self.integral
        tau[self.j_arm] = p.kp_arm * (p.arm_angle - float(state.q[self.j_arm])) - p.kd_arm * float(state.qd[self.j_arm])
        return tau


__all__ = ["BeltDrive", "BeltDriveParams"]
