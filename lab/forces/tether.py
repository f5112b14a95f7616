"""A rope between the robot's tail and a passive body (the drag trial's payload)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..state import RobotState
from . import register_force
from .base import Wrench


@register_force("tether")
@dataclass(frozen=True)
class SpringTether:
    """Tension-only spring-damper from the tail's rear end to the COM of body ``body``.

    A rope, not a rigid link: it pulls when stretched beyond ``length`` and goes slack when the snake
    moves back towards the load, which a PyBullet point-to-point constraint cannot do (it would also
    push). Tension T = k·(d − L) + c·ḋ for d > L, clipped at 0; the rope's direction is d̂.
    With k = 400 N/m a 1 kg load on μ = 0.3 (2.9 N) stretches it by 7 mm, and the tail–rope
    oscillator (ω = √(k/m_tail) ≈ 28 rad/s) is resolved by a 1 ms step (ω·dt ≈ 0.03).
    The force on the tail acts at its rear end: at the COM plus the moment r × F.
    """

    body: str = "payload"
    length: float = 0.15
    k: float = 400.0
    c: float = 5.0

    def __post_init__(self):
        if not self.body:
            raise ValueError("body: must name a body (the scenario's [payload] is called 'payload')")
        if not 0.0 < self.length <= 10.0:
            raise ValueError(f"length: must be in (0, 10] m, got {self.length}")
        if not 0.0 < self.k <= 1e6:
            raise ValueError(f"k: must be in (0, 1e6] N/m, got {self.k}")
        if not 0.0 <= self.c <= 1e4:
            raise ValueError(f"c: must be in [0, 1e4] N·s/m, got {self.c}")

    def anchor_W(self, state: RobotState) -> np.ndarray:
        """The tail's rear end (the tail is link 0; its x axis points to the head)."""
        return state.p_W[0] - 0.5 * state.model.link_length * state.x_axis_W[0]

    def tension(self, state: RobotState) -> tuple[float, np.ndarray]:
        body = state.extra[self.body]
        a = self.anchor_W(state)
        d = body.p_W - a
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
