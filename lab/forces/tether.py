"""A rope between the robot's tail and a passive body (the drag trial's payload)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.core.fields import Validated, info, num
from lab.core.state import RobotState
from lab.forces.base import Wrench, register_force


@register_force("tether")
@dataclass(frozen=True)
class SpringTether(Validated):
    """Tension-only spring-damper from the tail's rear end to the COM of body ``body``.

    A rope, not a rigid link: it pulls when stretched beyond ``length`` and goes slack when the snake
    moves back towards the load, which a PyBullet point-to-point constraint cannot do (it would also
    push). Tension T = k·(d − L) + c·ḋ for d > L, clipped at 0; the rope's direction is d̂.
    With k = 400 N/m a 1 kg load on μ = 0.3 (2.9 N) stretches it by 7 mm, and the tail–rope
    oscillator (ω = √(k/m_tail) ≈ 28 rad/s) is resolved by a 1 ms step (ω·dt ≈ 0.03).
    The force on the tail acts at its rear end: at the COM plus the moment r × F.

    ``level`` (default): the rope is tied to the payload at the tail anchor's height, so it runs
    level. The snake's axis is 7.5 mm above the ground and the box's centre 25 mm, so a rope to the
    box's centre would pull the tail up and the box down at ~7°, which neither the paper's
    rig nor a rope tied low on the box does. The tie point lies on the box's face (7.5 mm is inside
    its 50 mm height); the force is applied at the box's COM, leaving out the pitching moment
    T·Δz (Δz = 17.5 mm), which only shifts the box's normal load between its edges: tipping a 1 kg box
    of 0.1 m length needs T > m g (0.05 m)/Δz ≈ 28 N, ten times the rope's tension.
    """

    body: str = info("payload", doc="the body the rope pulls: the scenario's [payload]")
    length: float = num(0.15, gt=0, le=10, unit="m", doc="rest length")
    k: float = num(400.0, gt=0, le=1e6, unit="N/m", doc="stiffness")
    c: float = num(5.0, ge=0, le=1e4, unit="N·s/m", doc="damping")
    level: bool = info(True, doc="tie the rope to the payload at the tail's height (a level rope); false: to its COM")

    def __post_init__(self):
        super().__post_init__()
        if not self.body:
            raise ValueError("body: must name a body (the scenario's [payload] is called 'payload')")

    def anchor_W(self, state: RobotState) -> np.ndarray:
        """The tail's rear end (the tail is link 0; its x axis points to the head)."""
        return state.p_W[0] - 0.5 * state.model.link_length * state.x_axis_W[0]

    def tension(self, state: RobotState) -> tuple[float, np.ndarray]:
        body = state.extra[self.body]
        a = self.anchor_W(state)
        d = body.p_W - a
        if self.level:
            d = np.array([d[0], d[1], 0.0])  # the tie point on the box's face at the anchor's height
        dist = float(np.linalg.norm(d))
        if dist <= self.length or dist == 0.0:
            return 0.0, np.zeros(3)
        u = d / dist
        # rate of stretch: payload velocity minus the anchor's (v_tail + ω × r)
        v_a = state.v_W[0] + np.cross(state.w_W[0], a - state.p_W[0])
        rate = float(np.dot(body.v_W - v_a, u))
        return max(0.0, self.k * (dist - self.length) + self.c * rate), u

    def gui_overlay(self, state: RobotState):
        """The rope as a line (grey when slack, red when pulling) and its tension, for the GUI."""
        tension, _ = self.tension(state)
        rgb = (0.8, 0.1, 0.1) if tension > 0 else (0.5, 0.5, 0.5)
        return [(self.anchor_W(state), state.extra[self.body].p_W, rgb)], f"rope {tension:5.2f} N"

    def __call__(self, state: RobotState, t: float) -> Wrench:
        n = state.model.n_links
        F = np.zeros((n, 3))
        T = np.zeros((n, 3))
        tension, u = self.tension(state)
        if tension > 0.0:
            F[0] = tension * u
            T[0] = np.cross(self.anchor_W(state) - state.p_W[0], F[0])
        return Wrench(F, T, {self.body: -tension * u})
