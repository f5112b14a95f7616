"""Step-climbing controller of the tracked wheel-manipulator robot (Hu 2013 §2.2, Figs 2, 5).

Phases, detected from the snapshot (no engine calls):
    0 advance  — the track drives at ``advance_speed``; the arm trails on its guide wheel.
    1 flip     — the body stalled against the riser (forward speed below ``stall_fraction`` of the
                 command for ``stall_time``): the arm turns at θ̇ and lifts the rear until the front
                 face stands against the riser (body pitch ≥ 30° − ``flip_tolerance_deg``).
    2 climb    — the paper's climb (§3): arm at θ̇ and track at v_d = θ̇ r / i2 (eq. 12).
    3 drive-on — the COM has passed the step's edge (ahead of the rearmost of the highest track
                 contacts, after the body has pitched past 60°), or it fell back flat in front:
                 track forward, the arm stowed straight back over the new level; a new riser (a
                 stall) starts the next flip from the face the body now rests on (stairs).
Pitch is the body's rotation about +y (nose down positive); the engine frame is the step frame, so
it is measured against the step, whatever the slope.

Two drive modes:
    ``independent`` — arm speed and track speed are servoed separately (explicit PI loops), for the
        paper's climb analysis at fixed θ̇. Each output is limited to what the one motor could give
        it alone: |τ_arm| ≤ i0 i1 τ_max, |τ_pulley| ≤ i0 i1 i2 τ_max, θ̇ ≤ ω_max/(i0 i1),
        v ≤ ω_max r/(i0 i1 i2). The logged motor torque is eq. (11) at the shaft from the joint
        torques: (τ_arm + τ_pulley/i2)/(i0 i1) — the power of both outputs per unit θ̇, as the paper
        refers it.
    ``differential`` — the single motor of §1.1: a PI speed servo on the motor speed
        ω_m = i0 i1 (θ̇ + i2 ψ̇) sets τ_m (|τ_m| ≤ τ_max); the planetary puts i0 i1 τ_m on the arm and
        i0 i1 i2 τ_m on the pulley (see lab.papers.hu2013_tracked.model.drive). Which output moves is up to the
        loads; the phases are only observed.

The controller keeps a per-step log (phase, COM, torques, the support points from the contact
snapshot) for the step-climb trial's ``climb.*`` metrics (lab.papers.hu2013_tracked.trials).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal

import numpy as np

from lab.core.contacts import Col
from lab.core.kernels import compiled
from lab.papers.hu2013_tracked.model.params import DriveLimits
from lab.core.state import ModelInfo, RobotState
from lab.core.fields import Validated, choice, info, num
from lab.controllers.base import Controller, register_controller
from lab.controllers.servo import spd_solve

FLIP_PITCH = math.pi / 6  # the front face is vertical when the body has pitched 30° nose-down
TWO_PI_3 = 2 * math.pi / 3
COM_MARGIN = 0.03  # m: the COM must be this far past the edge before the arm lets go (at 1 cm the
# released body still tipped back off a 10 cm step in the engine)
TOP_BAND = 0.005  # m: track contacts this close to the highest one are on the step's edge or top…
STEP_MIN = 0.005  # m: …which must lie this much above the lowest contact (guide wheel or track) to be a
# step: above the contact penetration, below the lowest step that stalls the track (1 cm)
ARM_STOW = 0.0  # rad: the arm's drive-on pose relative to the face the body rests on (straight back)
ARM_STOW_GAIN = 2.0  # 1/s: the stow servo's angle → speed gain
GIVE_UP_AT_STOP = 2.0  # s at the arm's end stop, the COM not advancing, not over: the trial has failed
PROGRESS = 0.01  # m of COM advance that counts as progress there
ARM_PROGRESS = 0.05  # rad of arm travel that counts as progress (differential mode: a stalled arm)


TRACK_STEP_Z = 0.004  # m: belt contacts above this height touch the step (the ground's contacts sit at ~0)
# the phase tests' angles (rad), named once rather than converted on every step
_DEG3, _DEG4, _DEG5, _DEG8, _DEG60 = (math.radians(a) for a in (3.0, 4.0, 5.0, 8.0, 60.0))


_NAN3, _NAN2 = np.full(3, np.nan), np.full(2, np.nan)  # the log's rows for an absent point (_log)
_NAN3.flags.writeable = _NAN2.flags.writeable = False


class Phase(IntEnum):
    """The climb's phases (see the module doc); logged as their numbers."""

    ADVANCE = 0
    FLIP = 1
    CLIMB = 2
    DRIVE_ON = 3


class Summary(IntEnum):
    """Columns of the contact summary (:func:`contact_summary`), what the controller reads from a contact
    snapshot; NaN where absent."""

    STEP = 0  # 1.0 if the belt touches two levels (its highest contact ≥ STEP_MIN above the lowest of all)
    TOP_X = 1  # then the rearmost (along the heading) belt contact within TOP_BAND of its highest (x, y, z)
    TOP_Y = 2
    TOP_Z = 3
    A_X = 4  # A: the belt–step contact (above TRACK_STEP_Z) of largest y (x, y, z)
    A_Y = 5
    A_Z = 6
    B_X = 7  # B: the belt–step contact of smallest y (x, y, z)
    B_Y = 8
    B_Z = 9
    EDGE_FN = 10  # the belt–step contacts' summed normal force (N)
    EDGE_FT = 11  # the magnitude of their summed friction force (N)
    EDGE_X = 12  # their normal-force weighted point (x, y, z)
    EDGE_Y = 13
    EDGE_Z = 14
    GUIDE_X = 15  # the guide wheel's mean contact point (x, y, z)
    GUIDE_Y = 16
    GUIDE_Z = 17


SUMMARY_LEN = len(Summary)
TOP_POINT = slice(Summary.TOP_X, Summary.TOP_Z + 1)
A_POINT = slice(Summary.A_X, Summary.A_Z + 1)
B_POINT = slice(Summary.B_X, Summary.B_Z + 1)
EDGE_POINT = slice(Summary.EDGE_X, Summary.EDGE_Z + 1)
GUIDE_POINT = slice(Summary.GUIDE_X, Summary.GUIDE_Z + 1)


@dataclass(frozen=True)
class TrackedClimbParams(DriveLimits, Validated):
    """Defaults: θ̇ = 0.5 rad/s and 3 cm/s approach (§4.1, §6); drive constants of Table 1 (they must
    match the robot's, which the trial checks)."""

    mode: Literal["independent", "differential"] = choice(
        "independent", doc="'independent': arm and track servoed apart; 'differential': the one motor")
    arm_speed: float = num(0.5, gt=0, le=5, unit="rad/s", doc="θ̇ during flip and climb")
    advance_speed: float = num(0.03, ge=0, le=1, unit="m/s", doc="track speed before the step and after it")
    track_ratio: float = num(1.0, ge=0, le=5, doc="climb track speed = track_ratio · θ̇ r / i2 (1 = eq. 12)")
    motor_speed_rpm: float = num(3600.0, gt=0, unit="rpm", doc="differential mode: the servo's target (and the limit)")
    motor_torque_max: float = num(18.8e-3, gt=0, unit="N·m", doc="motor torque limit (Table 1)")
    i0: float = num(144.0, gt=0, doc="gear ratio (Table 1)")
    i1: float = num(5.0, gt=0, doc="gear ratio (Table 1)")
    i2: float = num(3.0 / 8.0, gt=0, doc="planetary ratio (Table 1)")
    pulley_radius: float = num(0.025, gt=0, unit="m", doc="r, as the robot's")
    stall_fraction: float = num(0.3, gt=0, lt=1, doc="stalled below this fraction of the commanded speed…")
    stall_time: float = num(0.15, gt=0, unit="s", doc="…for this long")
    flip_tolerance_deg: float = num(1.0, ge=0, le=15, unit="degrees", doc="the flip ends at pitch 30° minus this")
    kp_arm: float = num(20.0, ge=0, le=1e5, doc="arm speed loop, proportional")
    ki_arm: float = num(400.0, ge=0, le=1e5, doc="arm speed loop, integral")
    kp_drive: float = num(0.2, ge=0, le=1e5, doc="track speed loop, proportional")
    ki_drive: float = num(5.0, ge=0, le=1e5, doc="track speed loop, integral")
    kp_motor: float = num(3e-6, ge=0, le=1e5, doc="motor speed loop (differential), proportional")
    ki_motor: float = num(2.5e-4, ge=0, le=1e5, doc="motor speed loop (differential), integral")
    log_every: int = num(5, ge=1, le=1000, unit="steps", doc="log a step for the run metrics every n steps")
    servo: ClimbServo = choice(
        "implicit_p", doc="how the PI speed loops are stepped (lab.controllers.servo): 'implicit_p' the proportional "
                          "term at the next state of the engine's step, predicted from it alone, the integral (which "
                          "holds the load) at this state; 'implicit_damping' as the PD servos' form, the integral in "
                          "the prediction too (the results before 2026-11-27: it cuts the loop's whole output by "
                          "M/(M + h k_p) under a load, 0.22 on the arm at 4 ms); 'stable_pd', 'implicit_pd' "
                          "as the PD servos'; 'explicit' at this state")

    def servo_gains(self, joint_names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray] | None:
        """(K_p, K_d) per joint of the speed loops, for the step bound: a PI on a joint's speed error is a
        PD on its angle error with K_d = k_p and K_p = k_i (arm and drive joints; the other joints none).
        None for the differential mode (its loop is on the motor speed, always explicit)."""
        if self.mode != "independent":
            return None
        kp, kd = np.zeros(len(joint_names)), np.zeros(len(joint_names))
        for name, (p, d) in (("arm_joint", (self.ki_arm, self.kp_arm)), ("drive_joint", (self.ki_drive, self.kp_drive))):
            if name in joint_names:
                kp[joint_names.index(name)], kd[joint_names.index(name)] = p, d
        return kp, kd
    arm_stop: float = info(3.1, unit="rad", doc="the arm's travel per climb from the face the flip began on")


ClimbServo = Literal["implicit_p", "explicit", "implicit_damping", "stable_pd", "implicit_pd"]


class _PI:
    """Explicit PI speed loop with the integral clamped so its share never exceeds the limit."""

    def __init__(self, kp: float, ki: float, limit: float):
        self.kp, self.ki, self.limit = kp, ki, limit
        self.i = 0.0

    def __call__(self, err: float, dt: float, h_qdd: float = 0.0, implicit: bool = False) -> float:
        """One step of the loop on the speed error ``err``; ``h_qdd`` = h q̈ predicted (Stable PD: the
        proportional term on the next step's speed error, err − h q̈; 0: the explicit loop; ``implicit``:
        the integral term on the next step's angle error too, i⁺ − h² q̈)."""
        if self.ki > 0:
            self.i = self._next_i(err, dt)
        u = self.kp * (err - h_qdd) + self.ki * (self.i - dt * h_qdd if implicit else self.i)
        return min(max(u, -self.limit), self.limit)

    def _next_i(self, err: float, dt: float) -> float:
        return min(max(self.i + err * dt, -self.limit / self.ki), self.limit / self.ki)

    def unsaturated(self, err: float, dt: float) -> float:
        """k_p err + k_i i⁺: the loop's output before the clamp, without advancing the integral (the
        right-hand side of the Stable PD prediction)."""
        return self.kp * err + (self.ki * self._next_i(err, dt) if self.ki > 0 else 0.0)

    def reset(self) -> None:
        self.i = 0.0


def body_pitch(state: RobotState) -> float:
    """Rotation of the body (link 0) about +y, nose down positive (rad), in (−π, π]."""
    x = state.R_WB[0][:, 0]
    return math.atan2(-x[2], x[0])


def flat_pitch(pitch: float) -> float:
    """The nearest pitch at which the triangle rests on a face (a multiple of 120°)."""
    return TWO_PI_3 * round(pitch / TWO_PI_3)


def forward_axis(state: RobotState) -> np.ndarray:
    """The heading in the step frame's x–y plane: pitch axis × up (the body's own x axis turns over
    with every 120° of pitch)."""
    y = state.R_WB[0][:, 1]
    x = np.array([y[1], -y[0], 0.0])  # y × ẑ (np.cross costs ~20 µs on 3-vectors)
    return x / max(math.hypot(y[0], y[1]), 1e-9)


@register_controller("tracked_climb", params=TrackedClimbParams)
class TrackedClimb(Controller):
    """Advance, flip, climb, drive on (see the module doc)."""

    def __init__(self, params: TrackedClimbParams):
        super().__init__(params)
        self.phase = Phase.ADVANCE
        self.log: dict[str, list] = {}

    def reset(self, model: ModelInfo, dt: float) -> None:
        super().reset(model, dt)
        p = self.params
        names = model.joint_names
        self.j_arm = names.index("arm_joint")
        self.j_drive = names.index("drive_joint")
        self.arm_limit = p.arm_stop
        self.l_arm = model.link_names.index("arm")
        self.l_guide = model.link_names.index("guide")
        self.belt_links = np.array([i for i, n in enumerate(model.link_names) if n.startswith("belt_")])
        self.belt_mask = np.zeros(model.n_links, bool)
        self.belt_mask[self.belt_links] = True
        self._summ_of, self._summ = None, None
        self._fwd_of, self._fwd_xy = None, (1.0, 0.0)
        self._commands()
        # the speed loops' prediction buffers (predict_qdd's gain h k, right-hand side and q̈), reused each step
        n = self._n_joints = model.n_joints
        self._gain, self._rhs, self._qdd = np.zeros(n), np.zeros(n), np.empty(n)
        self.arm_pi = _PI(p.kp_arm, p.ki_arm, p.arm_torque_max)
        self.drive_pi = _PI(p.kp_drive, p.ki_drive, p.pulley_torque_max)
        self.motor_pi = _PI(p.kp_motor, p.ki_motor, p.motor_torque_max)
        self.phase = Phase.ADVANCE
        self.k = 0
        # the outputs' work ∫(τ_arm dθ + τ_pulley dψ), trapezoidal per step: each step's torques with the
        # joint rates before and after it (the next act sees the latter)
        self.work_out = 0.0
        self._prev_out = (0.0, 0.0, 0.0, 0.0)  # τ_arm, τ_drive, θ̇, ψ̇ of the last act
        self.t_slow = 0.0
        self.t_phase = [math.nan] * len(Phase)
        self.t_phase[Phase.ADVANCE] = 0.0
        self.max_pitch = 0.0
        self.t_now = 0.0
        self.t_first_drive_on = math.nan
        self.t_at_stop = 0.0  # time at the arm's end stop without progress, in this flip/climb (or, in
        # the differential mode, time with neither the arm nor the COM getting anywhere)
        self.arm_best = -math.inf
        self.arm_at_stop = False
        self.x_best, self.t_best = -math.inf, 0.0
        self.advanced = 0.0
        self.x0 = np.zeros(3)
        self.edge: np.ndarray | None = None  # the step's edge (a track contact point), once seen
        self.pitch0 = 0.0  # the flat pitch the current flip began on (a multiple of 120°)
        self.max_rel = 0.0  # the largest pitch since then
        self.log = {k: [] for k in ("t", "phase", "com", "body", "pitch", "theta", "theta_dot", "psi_dot", "tau_arm",
                                    "tau_drive", "tau_motor", "A", "B", "C", "edge_fn", "edge_ft", "edge_W", "edge_B",
                                    "psi", "work_out")}

    # -------------------------------------------------------------------- commands
    def _commands(self) -> None:
        """The speed commands, constants of the parameters: worked out when they are set (reset, and the
        GUI's :meth:`set_param`), not on every step."""
        p = self.params
        self._w_arm = min(p.arm_speed, p.arm_speed_max)
        self._v_climb = min(p.track_ratio * self._w_arm * p.pulley_radius / p.i2, p.track_speed_max)
        self._v_advance = min(p.advance_speed, p.track_speed_max)
        self._flip_done = FLIP_PITCH - math.radians(p.flip_tolerance_deg)  # the flip's end: pitch 30° less the tolerance

    def set_param(self, name: str, value: float) -> None:
        super().set_param(name, value)
        self._commands()

    def arm_speed_cmd(self) -> float:
        """θ̇ during flip and climb: ``arm_speed``, at most the motor's (set by :meth:`reset`)."""
        return self._w_arm

    def climb_track_speed(self) -> float:
        """The climb's track speed, eq. 12's v_d = track_ratio · θ̇ r / i2, at most the motor's."""
        return self._v_climb

    def _transition(self, phase: Phase, t: float) -> None:
        if phase == Phase.DRIVE_ON and math.isnan(self.t_first_drive_on):
            self.t_first_drive_on = t
        self.phase = phase
        self.t_phase[phase] = t if math.isnan(self.t_phase[phase]) else self.t_phase[phase]
        self.arm_pi.reset()

    def _stalled(self, state: RobotState) -> bool:
        """Forward speed below ``stall_fraction`` of the approach command for ``stall_time``."""
        p = self.params
        fx, fy = self._fwd(state)
        v_fwd = float(state.v_W[0, 0] * fx + state.v_W[0, 1] * fy)
        self.t_slow = self.t_slow + self.dt if v_fwd < p.stall_fraction * max(p.advance_speed, 1e-3) else 0.0
        return self.t_slow >= p.stall_time

    def _start_flip(self, pitch: float, t: float) -> None:
        self.pitch0 = flat_pitch(pitch)  # the face the body stood on: this climb's 0
        self.max_rel = 0.0
        self.edge = None
        self.t_at_stop = 0.0
        self.arm_at_stop = False
        self.x_best, self.t_best = -math.inf, t
        self.arm_best = -math.inf
        self.t_phase[Phase.FLIP:] = [math.nan] * (len(Phase) - Phase.FLIP)
        self._transition(Phase.FLIP, t)

    def _update_phase(self, state: RobotState, pitch: float) -> None:
        t = state.t
        rel = pitch - self.pitch0  # pitch since the flip began, on whichever face it began
        if self.phase == Phase.ADVANCE:
            if (t > 0.3 and self._stalled(state)) or rel > _DEG3:
                self._start_flip(pitch, t)
        elif self.phase == Phase.FLIP:
            self._over_the_top(state)  # start tracking the edge
            if rel >= self._flip_done:
                self._transition(Phase.CLIMB, t)
        elif self.phase == Phase.CLIMB:
            flat = abs(pitch - flat_pitch(pitch)) < _DEG4
            # still (the body's pitch rate small) is asked only of a body lying flat and not pitched on: the same
            # test, its dot product formed only where it decides
            fell_back = flat and rel < _DEG5 and abs(float(state.w_W[0] @ state.R_WB[0][:, 1])) < 0.2
            # over: the COM has passed the step's edge (it tips onto the top, or lies there); the arm
            # is released only then
            over = self.max_rel > _DEG60 and self._over_the_top(state)
            if fell_back or over:
                self._transition(Phase.DRIVE_ON, t)
        elif self.phase == Phase.DRIVE_ON:
            flat = abs(pitch - flat_pitch(pitch)) < _DEG8
            # a new riser: stall again → flip again (stairs)
            if flat and t - self.t_phase[Phase.DRIVE_ON] > 1.0:
                if self._stalled(state):
                    self._start_flip(pitch, t)
            else:
                self.t_slow = 0.0

    def _summary(self, state: RobotState) -> np.ndarray | None:
        """:func:`contact_summary` of this state's snapshot (once per state)."""
        if self._summ_of is not state:
            cs = state.contacts
            fx, fy = self._fwd(state)
            self._summ = None if cs is None else contact_summary(cs, self.belt_mask, self.l_guide, fx, fy)
            self._summ_of = state
        return self._summ

    def _fwd(self, state: RobotState) -> tuple[float, float]:
        """:func:`forward_axis` (x, y) of this state, as floats (once per state)."""
        if self._fwd_of is not state:
            y = state.R_WB[0][:, 1]
            y0, y1 = float(y[0]), float(y[1])
            n = max(math.hypot(y0, y1), 1e-9)
            self._fwd_xy, self._fwd_of = (y1 / n, -y0 / n), state
        return self._fwd_xy

    def _ahead(self, state: RobotState, p) -> float:
        """How far ``p`` lies along the heading (the step frame's x–y plane)."""
        fx, fy = self._fwd(state)
        return float(p[0] * fx + p[1] * fy)

    def _over_the_top(self, state: RobotState) -> bool:
        """The COM has passed the step's edge: it lies ahead (along the heading, in the step frame's
        x–y plane) of the rearmost track contact seen on the upper level during this climb. Released
        now, the body tips onto the step; a body lying on the top with its COM still behind the edge
        hangs on the arm, and one propped on its front pulley by the arm must be let down."""
        sm = self._summary(state)
        fx, fy = self._fwd(state)
        edge = self.edge
        # the projections as _ahead forms them (the same products and sum), each once a step
        a_edge = None if edge is None else float(edge[0] * fx + edge[1] * fy)
        if sm is not None and sm[Summary.STEP] > 0:  # contacts on two levels: a step
            a_cand = float(sm[Summary.TOP_X] * fx + sm[Summary.TOP_Y] * fy)
            if edge is None or a_cand < a_edge:
                edge = self.edge = sm[TOP_POINT].copy()
                a_edge = a_cand
        if edge is None:
            return False
        com = state.com_W
        return float(com[0] * fx + com[1] * fy) >= a_edge + COM_MARGIN

    # -------------------------------------------------------------------- act
    def act(self, state: RobotState) -> np.ndarray:
        p = self.params
        dt = self.dt
        tau = np.zeros(self._n_joints)
        pitch = body_pitch(state)
        # unwrap relative to the last value so 120° poses stay continuous
        if self.k:
            prev = self._pitch_prev
            pitch = prev + ((pitch - prev + math.pi) % (2 * math.pi) - math.pi)
        self._pitch_prev = pitch
        self.max_pitch = max(self.max_pitch, pitch)
        self.max_rel = max(self.max_rel, pitch - self.pitch0)
        self.t_now = state.t
        if self.k == 0:
            self.x0 = state.p_W[0].copy()
        self.advanced = math.hypot(state.p_W[0, 0] - self.x0[0], state.p_W[0, 1] - self.x0[1])
        self._update_phase(state, pitch)
        th_dot = float(state.qd[self.j_arm])
        # the belt's rate: the drive joint's (the slabs and pulleys are geared to it; the slabs' gears
        # hold their mean speed at r ψ̇ through their position targets, lab.robots.tracked)
        psi_dot = float(state.qd[self.j_drive])
        r = p.pulley_radius
        if p.mode == "differential":
            w_m = p.i0 * p.i1 * (th_dot + p.i2 * psi_dot)
            tau_m = self.motor_pi(p.motor_speed_max - w_m, dt)
            tau_arm, tau_drive = p.i0 * p.i1 * tau_m, p.i0 * p.i1 * p.i2 * tau_m
            if self.phase in (Phase.FLIP, Phase.CLIMB):
                # stalled at the riser with the belt slipping, the arm may never turn: the time since the
                # arm or the COM last made progress (the trial gives up after GIVE_UP_AT_STOP)
                x_com = self._ahead(state, state.com_W)
                q_arm = float(state.q[self.j_arm])
                if x_com > self.x_best + PROGRESS or q_arm > self.arm_best + ARM_PROGRESS:
                    self.x_best, self.arm_best, self.t_best = x_com, q_arm, state.t
                self.t_at_stop = state.t - self.t_best
        else:
            if self.phase in (Phase.FLIP, Phase.CLIMB):
                # at the arm's end stop, hold it there (the motor would only stall against the stop)
                # (latched: the hold sits on the threshold)
                self.arm_at_stop |= float(state.q[self.j_arm]) - self.pitch0 > self.arm_limit - 0.15
                at_stop = self.arm_at_stop
                # …and not getting anywhere (the track may still be dragging the body onto the top): the
                # time since the COM last gained PROGRESS along the heading while at the stop
                x_com = self._ahead(state, state.com_W)
                if not at_stop or x_com > self.x_best + PROGRESS:
                    self.x_best, self.t_best = x_com, state.t
                self.t_at_stop = state.t - self.t_best
                w_arm = 0.0 if at_stop else self._w_arm
                arm_err = w_arm - th_dot
                v = self._v_climb if self.phase == Phase.CLIMB else self._v_advance
            elif self.phase == Phase.DRIVE_ON:
                # drive on with the arm stowed straight back over the new level (its wheel would catch
                # on the edge it came from): an angle servo on the speed loop
                q_stow = flat_pitch(pitch) + ARM_STOW
                w_arm = min(max(ARM_STOW_GAIN * (q_stow - float(state.q[self.j_arm])), -self._w_arm), self._w_arm)
                arm_err = w_arm - th_dot
                v = self._v_advance
            else:
                arm_err = None  # approach: gravity holds the arm, its wheel trailing on the ground
                v = self._v_advance
            tau_arm, tau_drive = self._speed_loops(state, arm_err, v / r - psi_dot)
            tau_m = (tau_arm + tau_drive / p.i2) / (p.i0 * p.i1)
        tau[self.j_arm] = tau_arm
        tau[self.j_drive] = tau_drive
        ta0, td0, w0, p0 = self._prev_out
        self.work_out += 0.5 * dt * (ta0 * (w0 + th_dot) + td0 * (p0 + psi_dot))
        self._prev_out = (tau_arm, tau_drive, th_dot, psi_dot)
        if self.k % p.log_every == 0:
            self._log(state, pitch, th_dot, psi_dot, tau_arm, tau_drive, tau_m)
        self.k += 1
        return tau

    @property
    def needs_mass_matrix(self) -> bool:
        return self.params.servo != "explicit" and self.params.mode == "independent"

    def _speed_loops(self, state: RobotState, arm_err: float | None, drive_err: float) -> tuple[float, float]:
        """The arm's (None: off) and the drive's PI speed loops, stepped as ``servo`` says
        (:mod:`lab.controllers.servo`): the proportional terms act on the speed error one step on, err − h q̈,
        q̈ from (M + h K_d) q̈ = the loops' proportional terms k_p err (``implicit_p``) or their unclamped
        outputs k_p err + k_i i⁺ (``implicit_damping``, ``stable_pd``; K_d = each loop's k_p on its joint).
        The prediction leaves out gravity and the contacts (Tan 2011); under a steady load the integral is
        what balances them, so keeping it in the prediction (``implicit_damping``) predicts an acceleration
        that does not happen and scales the loop's whole output, integral included, by M/(M + h k_p)
        (the arm, M ≈ 0.023 kg·m²: 0.53 at 1 ms, 0.36 at 2 ms, 0.22 at 4 ms, where its clamped integral
        then caps the arm at 4.9 N·m, below the 5.3 N·m the flip needs: the robot stalls at the riser).
        ``implicit_p`` keeps the integral at full strength, so a loaded joint's steady state is the
        continuous loop's at any step; its stiffness (k_i) is then explicit, stable to ~√(2M/k_i) (11 ms
        for the arm; lab.core.instability.servo_step_bound). The integral keeps its explicit convention
        i⁺ = i + h·err (the PI's angle error already includes h·err, Tan's q + h q̇); ``implicit_pd`` also
        takes it at the next state, i⁺ − h² q̈, with (M + h K_d + h² K_i) q̈."""
        dt = self.dt
        servo = self.params.servo
        if servo == "explicit":
            tau_arm = 0.0 if arm_err is None else self.arm_pi(arm_err, dt)
            return tau_arm, self.drive_pi(drive_err, dt)
        implicit = servo == "implicit_pd"
        p_only = servo == "implicit_p"
        ja, jd = self.j_arm, self.j_drive
        # predict_qdd's solve on buffers kept from step to step (its broadcasts and copies cost more than the
        # 15 × 15 Cholesky): gain = h k, the same products it forms; the other joints' entries stay 0
        gain, u, qdd = self._gain, self._rhs, self._qdd
        gain[ja] = u[ja] = 0.0
        loops = ((jd, self.drive_pi, drive_err),) if arm_err is None else ((jd, self.drive_pi, drive_err),
                                                                           (ja, self.arm_pi, arm_err))
        for j, pi, err in loops:
            gain[j] = dt * (pi.kp + (dt * pi.ki if implicit else 0.0))
            # implicit_p: the integral balances the load (the arm lifting the body, the belt pushing on the
            # riser) that the prediction leaves out, so it is left out too: the prediction is the
            # proportional term's alone, and a loaded joint gets its whole output at any step
            u[j] = pi.kp * err if p_only else pi.unsaturated(err, dt)
        spd_solve(state.M, gain, u, qdd)  # predict_qdd(state.M, k, u, dt), without its allocations
        tau_arm = 0.0 if arm_err is None else self.arm_pi(arm_err, dt, dt * float(qdd[ja]), implicit)
        return tau_arm, self.drive_pi(drive_err, dt, dt * float(qdd[jd]), implicit)

    def _log(self, state, pitch, th_dot, psi_dot, tau_arm, tau_drive, tau_m) -> None:
        L = self.log
        L["t"].append(state.t)
        L["phase"].append(int(self.phase))
        L["com"].append(state.com_W.copy())
        L["body"].append(state.p_W[0].copy())
        L["pitch"].append(pitch)
        L["theta"].append(float(state.q[self.j_arm]) - FLIP_PITCH)  # the screw model's θ
        L["theta_dot"].append(th_dot)
        L["psi_dot"].append(psi_dot)
        L["tau_arm"].append(tau_arm)
        L["tau_drive"].append(tau_drive)
        L["tau_motor"].append(tau_m)
        A = B = C = _NAN3  # shared read-only rows where a point is absent (logged() copies the rows)
        fn = ft = 0.0
        pc = _NAN3  # the track–step contact point (normal-force weighted)…
        pB = _NAN2  # …and in the body's x–z plane
        sm = self._summary(state)  # track–step contacts: the belt touching anything above the ground plane
        if sm is not None:
            A, B, C = sm[A_POINT], sm[B_POINT], sm[GUIDE_POINT]
            fn, ft, pc = float(sm[Summary.EDGE_FN]), float(sm[Summary.EDGE_FT]), sm[EDGE_POINT]
            if fn > 0:
                d = state.R_WB[0].T @ (pc - state.p_W[0])
                pB = np.array([d[0], d[2]])
        L["A"].append(A)
        L["B"].append(B)
        L["C"].append(C)
        L["edge_fn"].append(fn)
        L["edge_ft"].append(ft)
        L["edge_W"].append(pc)
        L["edge_B"].append(pB)
        L["psi"].append(float(state.q[self.j_drive]))
        L["work_out"].append(self.work_out)  # up to this state (the step now starting is not in it)

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"arm_speed": (0.05, 1.0), "advance_speed": (0.0, 0.06)}

    def gui_overlay(self, state: RobotState):
        """The support triangle A B C (track–step contact line and guide-wheel contact, from the
        contact snapshot) in green, the COM's vertical to the ground in orange, and the eq.-13 margin
        (projected along z: the GUI scenarios are on level ground)."""
        from lab.analysis.stability import support_margin

        L = self.log
        if not L.get("A"):
            return [], ""
        A, B, C = L["A"][-1], L["B"][-1], L["C"][-1]
        com = state.com_W
        lines = [(com, (com[0], com[1], 0.0), (0.95, 0.55, 0.05))]
        text = Phase(self.phase).name.lower()
        if np.isfinite(A).all() and np.isfinite(C).all() and abs(A[1] - B[1]) > 1e-3:
            g = (0.1, 0.75, 0.2)
            lines += [(A, B, g), (B, C, g), (C, A, g)]
            text += f"   support margin d = {100 * support_margin(A, B, C, com):+.1f} cm"
        return lines, text

    # -------------------------------------------------------------------- metrics
    def logged(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, float) for k, v in self.log.items()}


def contact_summary(cs, belt_mask, l_guide, fx, fy):
    """The contact summary (:class:`Summary`) of a contact snapshot (:class:`lab.core.contacts.Col` rows), in
    one compiled pass (its numpy oracle: tests/oracles/climbing.py). ``belt_mask`` marks the belt's links,
    ``l_guide`` is the guide wheel's link, (fx, fy) the heading. The array is made here, filled by
    :func:`_contact_summary_into` (an array handed back from compiled code costs more to box than the pass)."""
    out = np.empty(SUMMARY_LEN)
    _contact_summary_into(cs, belt_mask, l_guide, fx, fy, out)
    return out


@compiled
def _contact_summary_into(cs, belt_mask, l_guide, fx, fy, out):
    """:func:`contact_summary` into ``out`` (SUMMARY_LEN,)."""
    out[:] = np.nan
    out[Summary.STEP] = 0.0
    out[Summary.EDGE_FN] = 0.0
    out[Summary.EDGE_FT] = 0.0
    k = cs.shape[0]
    if k == 0:
        return
    nb = belt_mask.shape[0]
    z_min = math.inf
    z_top = -math.inf
    for i in range(k):
        z_min = min(z_min, cs[i, Col.PZ])
        L = min(max(int(cs[i, Col.LINK]), 0), nb - 1)
        if belt_mask[L]:
            z_top = max(z_top, cs[i, Col.PZ])
    if z_top > -math.inf and z_top >= z_min + STEP_MIN:
        best = math.inf
        for i in range(k):
            L = min(max(int(cs[i, Col.LINK]), 0), nb - 1)
            if belt_mask[L] and cs[i, Col.PZ] >= z_top - TOP_BAND:
                a = cs[i, Col.PX] * fx + cs[i, Col.PY] * fy
                if a < best:
                    best = a
                    out[Summary.STEP] = 1.0
                    out[Summary.TOP_X] = cs[i, Col.PX]
                    out[Summary.TOP_Y] = cs[i, Col.PY]
                    out[Summary.TOP_Z] = cs[i, Col.PZ]
    y_hi, y_lo = -math.inf, math.inf
    fn = 0.0
    ftx = fty = ftz = 0.0
    px = py = pz = 0.0
    any_ts = False
    gx = gy = gz = 0.0
    n_g = 0
    for i in range(k):
        L = min(max(int(cs[i, Col.LINK]), 0), nb - 1)
        if belt_mask[L] and cs[i, Col.PZ] > TRACK_STEP_Z:
            any_ts = True
            if cs[i, Col.PY] > y_hi:
                y_hi = cs[i, Col.PY]
                out[Summary.A_X], out[Summary.A_Y], out[Summary.A_Z] = cs[i, Col.PX], cs[i, Col.PY], cs[i, Col.PZ]
            if cs[i, Col.PY] < y_lo:
                y_lo = cs[i, Col.PY]
                out[Summary.B_X], out[Summary.B_Y], out[Summary.B_Z] = cs[i, Col.PX], cs[i, Col.PY], cs[i, Col.PZ]
            f = cs[i, Col.FN]
            fn += f
            ftx += cs[i, Col.FX]
            fty += cs[i, Col.FY]
            ftz += cs[i, Col.FZ]
            px += f * cs[i, Col.PX]
            py += f * cs[i, Col.PY]
            pz += f * cs[i, Col.PZ]
        if int(cs[i, Col.LINK]) == l_guide:
            gx += cs[i, Col.PX]
            gy += cs[i, Col.PY]
            gz += cs[i, Col.PZ]
            n_g += 1
    if any_ts:
        out[Summary.EDGE_FN] = fn
        out[Summary.EDGE_FT] = math.sqrt(ftx * ftx + fty * fty + ftz * ftz)
        if fn > 0:
            out[Summary.EDGE_X], out[Summary.EDGE_Y], out[Summary.EDGE_Z] = px / fn, py / fn, pz / fn
    if n_g:
        out[Summary.GUIDE_X], out[Summary.GUIDE_Y], out[Summary.GUIDE_Z] = gx / n_g, gy / n_g, gz / n_g


__all__ = ["Phase", "Summary", "TrackedClimbParams", "TrackedClimb", "body_pitch", "contact_summary"]
