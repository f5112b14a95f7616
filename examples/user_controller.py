"""A controller of your own, registered from user code: it then gets what a built-in gets.

    python examples/user_controller.py --out runs/example_user_gait [--duration 5]

``@lab.register_controller(name, params=…)`` puts a :class:`lab.Controller` subclass and its parameter
dataclass in the lab's controller registry. From then on a scenario selects it with
``[controller] type = "growing_wave"`` (``examples/user_gait.toml``), its fields are validated, shown by
``lab show`` and overridable with ``--set controller.alpha=…`` (so sweeps vary them), the GUI gives
panel keys to whatever :meth:`tunables` names, and the recorder, metrics and run folder are the usual ones.

The gait: a travelling wave whose amplitude grows linearly from the tail joint to the head joint,

    x_j(t) = α (j + 1)/J · sin(ω t + j β),   j = 0 … J−1 counted from the tail,

tracked by a joint PD loop with feed-forward rate, τ = k_p (x − q) + k_d (ẋ − q̇), clipped at the
robot's torque limit and stepped by the lab's servo forms (``lab.Controller.pd``: the damping at the
engine step's next state by default, stable at any of the shipped snake steps; written out by hand the
law is explicit and needs dt < 2μ/k_d, 1.44 ms on the lab's snake). β > 0 runs the wave head → tail, which on anisotropic friction drives the snake
forward (towards its head); β < 0 runs it backwards. The script runs both and writes ``gait.csv``.
"""

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import lab
from lab.controllers.servo import Servo, servo_field
from lab.core.fields import Validated, num

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class GrowingWaveParams(Validated):
    """The gait's parameters, with their ranges (a value outside one is a one-line error)."""

    alpha: float = num(0.6, ge=0, le=math.pi / 2, unit="rad", doc="the head joint's amplitude α")
    omega: float = num(2.0, ge=0, le=20, unit="rad/s", doc="temporal frequency ω")
    beta: float = num(2 * math.pi / 9, ge=-2 * math.pi, le=2 * math.pi, unit="rad", doc="phase lag β between joints")
    kp: float = num(2.0, gt=0, le=1e3, unit="N·m/rad", doc="PD angle gain")
    kd: float = num(0.1, ge=0, le=1e2, unit="N·m·s/rad", doc="PD rate gain")
    servo: Servo = servo_field()  # how the PD law is stepped (lab.controllers.servo)

    def servo_gains(self, joint_names: tuple[str, ...]):
        """(K_p, K_d) per joint, so the run-time watch can name the servo's step bound."""
        return np.full(len(joint_names), self.kp), np.full(len(joint_names), self.kd)


@lab.register_controller("growing_wave", params=GrowingWaveParams)
class GrowingWave(lab.Controller):
    """τ = k_p (x_ref − q) + k_d (ẋ_ref − q̇) on the growing-amplitude wave, saturated at the effort limit."""

    def reset(self, model, dt: float) -> None:
        super().reset(model, dt)
        J = model.n_joints
        self._j = np.arange(J, dtype=float)
        self._envelope = (self._j + 1.0) / J

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        p = self.params
        ph = p.omega * t + self._j * p.beta
        a = p.alpha * self._envelope
        return a * np.sin(ph), a * p.omega * np.cos(ph)

    def act(self, state) -> np.ndarray:
        return self.pd(state, self.reference, self.params.kp, self.params.kd)  # saturated at the effort limit

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"alpha": (0.0, 1.5), "omega": (0.0, 6.0), "beta": (-2.0, 2.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for the two run folders and gait.csv")
    ap.add_argument("--duration", type=float, default=5.0, help="simulated seconds")
    args = ap.parse_args()

    lines = ["run,beta_rad,com_dx_m,com_dy_m,status"]
    for name, beta in (("forward", 2 * math.pi / 9), ("backward", -2 * math.pi / 9)):
        res = lab.run(HERE / "user_gait.toml", {"sim.duration": args.duration, "controller.beta": beta},
                      out=args.out / name)
        xy = res.series["xy"]  # (samples, links, 2); the lab's snake has equal link masses
        d = xy[-1].mean(axis=0) - xy[0].mean(axis=0)
        lines.append(f"{name},{beta:.6g},{d[0]:.6g},{d[1]:.6g},{res.status}")
        print(f"{name:8s}: β = {beta:+.3f} rad, COM moved ({d[0]:+.3f}, {d[1]:+.3f}) m")
    (args.out / "gait.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
