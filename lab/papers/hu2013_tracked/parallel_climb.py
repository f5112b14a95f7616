"""The parallel configuration (Hu 2013 Fig 3a: modules side by side, rigidly joined) climbing a step:
controller ``parallel_climb``, for the robot lab.robots.tracked_chain with ``layout = "parallel"``.

On rigid ground the parallel robot's symmetric section is one module's with every force × n, so it
climbs as one module does (Hu 2013 §2.2, Fig 5): every module's arm turns at θ̇ = ``arm_speed`` and
every belt runs at the paper's v_d = θ̇ r / i2 (eq. 12), all in step. Phases (:class:`ChainPhase`):
APPROACH (belts forward at ``advance_speed``, arms trailing) → CLIMB (on the stall: arms at θ̇; belts
held at the approach speed until the body has pitched ``flip_pitch_deg`` nose-down, then at v_d) →
DRIVE_ON (once the body has pitched past 60° and the COM is ``com_margin`` past the edge — the
rearmost of the highest belt contacts —: arms back straight over the new level, belts forward). It
reads only the snapshot; the trial is ``chain_climb`` (its ``chain.*`` metrics).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.controllers.base import Controller, register_controller
from lab.core.contacts import Col
from lab.core.fields import Validated, choice, num

from .chain_climb import ChainPhase, _PI, _wrap, contact_margin, pi_torques


@dataclass(frozen=True)
class ParallelClimbParams(Validated):
    """Every threshold of the parallel climb (module doc); the drive constants are Table 1's."""

    n_modules: int = num(2, ge=2, le=4, unit="modules", doc="as the robot's")
    arm_speed: float = num(0.5, gt=0, le=5, unit="rad/s", doc="θ̇ of every arm during the climb (Hu 2013 §4.1)")
    advance_speed: float = num(0.03, ge=0, le=0.2, unit="m/s", doc="belts before and after the climb")
    pulley_radius: float = num(0.025, gt=0, unit="m", doc="r, as the robot's")
    i2: float = num(3.0 / 8.0, gt=0, doc="planetary ratio (Table 1): v_d = θ̇ r / i2")
    flip_pitch_deg: float = num(29.0, gt=0, le=60, unit="degrees", doc="the flip ends at this body pitch")
    com_margin: float = num(0.03, ge=0, le=0.3, unit="m", doc="the COM this far past the edge ends the climb")
    arm_travel: float = num(3.1, gt=0, le=6.3, unit="rad", doc="the arms stop this far from where the climb began")
    kp_joint: float = num(20.0, ge=0, le=1e5, doc="arm speed loops, proportional")
    ki_joint: float = num(400.0, ge=0, le=1e5, doc="arm speed loops, integral")
    kp_drive: float = num(0.4, ge=0, le=1e5, doc="belt speed loops, proportional")
    ki_drive: float = num(8.0, ge=0, le=1e5, doc="belt speed loops, integral")
    stall_fraction: float = num(0.3, gt=0, lt=1, doc="stalled below this fraction of advance_speed…")
    stall_time: float = num(0.15, gt=0, le=10, unit="s", doc="…for this long")
    torque_limit: float = num(40.0, gt=0, le=1e4, unit="N·m", doc="commands clipped here (the motors' lines clip again)")
    log_every: int = num(20, ge=1, le=1000, unit="steps", doc="log a step every n steps")
    servo: Literal["implicit_p", "explicit"] = choice(
        "implicit_p", doc="how the PI speed loops are stepped (chain_climb.pi_torques): 'implicit_p' the proportional "
                          "terms at the next state of the engine's step (its mass matrix), the integrals at this "
                          "state, as the single module's climb; 'explicit' at this state (the results before "
                          "2026-11-27)")


@register_controller("parallel_climb", params=ParallelClimbParams)
class ParallelClimb(Controller):
    """All modules climb in step, as one module (module doc)."""

    no_plan = ""

    def reset(self, model, dt):
        super().reset(model, dt)
        p = self.params
        N = p.n_modules
        J, L = model.joint_names, model.link_names
        self.j_drive = [J.index(f"m{k}_drive_joint") for k in range(N)]
        self.j_arm = [J.index(f"m{k}_arm_joint") for k in range(N)]
        self.l_body = [L.index(f"m{k}_body") for k in range(N)]
        self.belt = np.array([n.startswith("m") and "_belt_" in n for n in L])
        lim = p.torque_limit
        self.pi_drive = [_PI(p.kp_drive, p.ki_drive, lim) for _ in range(N)]
        self.pi_arm = [_PI(p.kp_joint, p.ki_joint, lim) for _ in range(N)]
        self.phase, self.j, self.u, self.waited = ChainPhase.APPROACH, 0, 0.0, 0.0
        self.t_slow = 0.0
        self.t_phase = [(0.0, int(ChainPhase.APPROACH), 0)]
        self.pitch0 = 0.0
        self.max_rel = 0.0
        self.arm0 = np.zeros(N)
        self.edge_x = math.inf
        self.k = 0
        self.log = {k: [] for k in ("t", "phase", "j", "u", "com", "centres", "margin", "n_support")}

    def _pitch(self, state) -> float:
        """m0_body's pitch, nose down positive (rad)."""
        R = state.R_WB[self.l_body[0]]
        return math.atan2(-R[2, 0], R[0, 0])

    def _goto(self, phase, t):
        self.phase = phase
        self.t_phase.append((t, int(phase), 0))

    def act(self, state):
        p = self.params
        N, dt, t = p.n_modules, self.dt, state.t
        tau = np.zeros(self.model.n_joints)
        q, qd = state.q, state.qd
        pitch = self._pitch(state)
        v = p.advance_speed
        w_arm = None  # None: the arms trail (no torque)
        if self.phase == ChainPhase.APPROACH:
            R = state.R_WB[self.l_body[0]]
            v_fwd = float(state.v_W[self.l_body[0], 0] * R[0, 0] + state.v_W[self.l_body[0], 1] * R[1, 0])
            self.t_slow = self.t_slow + dt if v_fwd < p.stall_fraction * max(p.advance_speed, 1e-3) else 0.0
            if t > 0.3 and self.t_slow >= p.stall_time:
                self._goto(ChainPhase.CLIMB, t)
                self.pitch0, self.max_rel = pitch, 0.0
                self.arm0 = np.array([q[j] for j in self.j_arm])
        if self.phase == ChainPhase.CLIMB:
            rel = pitch - self.pitch0
            self.max_rel = max(self.max_rel, rel)
            at_stop = any(q[j] - a0 > p.arm_travel for j, a0 in zip(self.j_arm, self.arm0))
            w_arm = 0.0 if at_stop else p.arm_speed
            if rel >= math.radians(p.flip_pitch_deg):
                v = p.arm_speed * p.pulley_radius / p.i2  # eq. (12)
            self._edge(state)
            if self.max_rel > math.radians(60) and state.com_W[0] > self.edge_x + p.com_margin:
                self._goto(ChainPhase.DRIVE_ON, t)
        loops = []  # every PI speed loop of this step: (joint, loop, speed error)
        for k in range(N):
            loops.append((self.j_drive[k], self.pi_drive[k], v / p.pulley_radius - qd[self.j_drive[k]]))
            if self.phase == ChainPhase.DRIVE_ON:
                # straight back over the level the body now rests on (a multiple of 120° of pitch)
                target = 2 * math.pi / 3 * round(pitch / (2 * math.pi / 3))
                err = _wrap(target - q[self.j_arm[k]])
                w = max(min(2.0 * err, p.arm_speed), -p.arm_speed)
                loops.append((self.j_arm[k], self.pi_arm[k], w - qd[self.j_arm[k]]))
            elif w_arm is not None:
                loops.append((self.j_arm[k], self.pi_arm[k], w_arm - qd[self.j_arm[k]]))
        for (j, _, _), t_pi in zip(loops, pi_torques(loops, state, dt, p.servo, self.model.n_joints)):
            tau[j] = t_pi
        if self.k % p.log_every == 0:
            L = self.log
            L["t"].append(t)
            L["phase"].append(int(self.phase))
            L["j"].append(0)
            L["u"].append(0.0)
            L["com"].append(state.com_W.copy())
            L["centres"].append(state.p_W[self.l_body].copy())
            m, n = contact_margin(state)
            L["margin"].append(m)
            L["n_support"].append(n)
        self.k += 1
        return tau

    def _edge(self, state):
        """The rearmost of the highest belt contacts (above the ground), once seen: the step's edge."""
        cs = state.contacts
        if cs is None or not len(cs):
            return
        links = cs[:, Col.LINK].astype(int).clip(0, len(self.belt) - 1)
        z = cs[:, Col.PZ]
        on = self.belt[links] & (z > 0.004)
        if on.any():
            top = on & (z >= z[on].max() - 0.005)
            self.edge_x = min(self.edge_x, float(cs[top, Col.PX].min()))

    def gui_overlay(self, state):
        return [], f"{ChainPhase(self.phase).name.lower()}"

    def logged(self):
        return {k: np.asarray(v, float) for k, v in self.log.items()}


__all__ = ["ParallelClimbParams", "ParallelClimb"]
