"""Cooperative step climbing of a serial chain of tracked modules (Hu 2013 §7's future work; the robot is
lab.robots.tracked_chain, the plan lab.papers.hu2013_tracked.model.multi): controller ``chain_climb``
and its trial ``chain_climb`` (:mod:`.chain_trial`).

Controller — phases (:class:`ChainPhase`), from the snapshot only
    APPROACH  every belt forward at ``advance_speed``, the bars straight, the tail's arm trailing on its
              wheel (no torque), the other arms stowed upright (an angle servo on the world pitch).
    CLIMB j   module j climbs along the model's quasi-static plan (:func:`.model.multi.serial_pose`):
              (a) its front pulley at the riser's foot, the bars behind it push its centre up while it
              turns 30° nose-down (its belt turning back with the body so the pulley rolls on nothing),
              (b) its front face on the riser, the belts behind push and its own belt drives it up,
              (c) it rolls over the corner onto the top. The modules ahead (on the top) pull, those
              behind (on the ground) push: every belt runs at the speed the plan moves its module; every
              connector joint follows the plan's angle (a PI speed loop on the plan's rate plus
              ``angle_gain`` × the angle error); the plan's statics (the robust force distribution of
              :func:`.model.multi.chain_statics`: connector, belt and tail-arm torques) are fed forward,
              so the loops only correct (without it the module on the top held the climber behind by its
              connector alone, saturated it and tipped back). The plan's progress u runs at ``progress_rate`` and waits
              while any joint lags its plan by more than ``pause_error``.
              Starts when module j stalls at the riser (forward speed below ``stall_fraction`` ×
              ``advance_speed`` for ``stall_time``). The tail's arm torque fed forward never lifts its wheel
              (the plan's statics with ``arm_presses``): the wheel stays on the ground, a support of eq. 13's
              polygon as the arm's point C is in Hu 2013's. The belts' integrals run on from the stall into
              the climb (emptying them made the first climb's start a step-sensitive transient: the 2-s
              convergence run's torque RMS 5.5 % from dt/2's, 1.1 % without; the tail then starts with its
              belt ~1 N·m forward, its front pulley on the ground but lightly loaded, 0–16 N in (a) against
              the plan's 27 N, the riser's friction carrying the rest).
    TRANSFER  module j on the top, the next one still on the ground: the belts on the ground forward, those
              on the top coasting (no torque: a pull through the free bar would lift the next module off the
              ground, :meth:`ChainClimb._coasting`), the bar between the two levels free (its two joints
              unpowered), until the next module stalls at the riser.
    DRIVE_ON  all on the top: belts forward, the joints held at the plan's end pose.
Triangle and ring (``layout``; Hu 2013 Fig 4, :mod:`.model.loops`): the bottom pair (modules 0 and 1)
climbs as the serial pair, the truss carrying the upper modules; the plan is :func:`loop_plan` (every bar
joint's angle, the loop's statics fed forward), the rear module 1's arm trails, the upper modules' arms
stand stowed, the passive pins get no torque, and in TRANSFER the joints hold the last pose (freeing a
bar of a loop would drop the truss). The loops' redundant joints (ring: ``c2_front``, ``c3_rear``,
seven motors for five freedoms; triangle: ``c1_front``, ``c2_rear``, five for three) get no speed loop
of their own: one on a joint the loop's closure locks chattered at its torque limit from the first 50 ms
(measured), and an integrator would wind up against the others on the loop's millimetre closure error.
The ring's get the feedforward alone; the triangle's share their corner's torque equally with the joint
beside them (each bottom module turns the rigid truss through two joints in parallel: with one, the rear
joint saturated at 13.5 N·m on the riser, measured).
The plan needs the step's height: ``step_height`` is a declared field (the trial checks it against
the arena's) — sensing it from the contacts is left for later.

Trial — ``chain.*`` metrics: success (every module's centre above the top at the end), the climb time
(first stall to the tail on the top), each motor class's peak |τ| over its stall torque and the time
spent at it (the World clips every torque to its motor's line, so the ratio never exceeds 1: the time at
the limit is what says a motor was short), and the smallest support margin over the climb (eq. 13
generalised: the COM against the hull of every contact point of the robot, projected along gravity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal

import numpy as np

from lab.controllers.base import Controller, register_controller
from lab.core.contacts import Col
from lab.core.fields import Validated, choice, info, num

from .model.multi import ChainParams, chain_statics, serial_pose
from .model.params import ClimbParams


class ChainPhase(IntEnum):
    APPROACH = 0
    CLIMB = 1
    TRANSFER = 2
    DRIVE_ON = 3


@dataclass(frozen=True)
class ChainClimbParams(Validated):
    """Every threshold of the cooperative climb (module doc); geometry must match the robot's."""

    n_modules: int = num(2, ge=2, le=4, unit="modules", doc="as the robot's")
    layout: Literal["serial", "triangle", "ring"] = choice("serial", doc="as the robot's (a loop: the bottom pair climbs, the "
                                                          "truss carries the rest)")
    coupler_length: float = num(0.36, ge=0.28, le=1.0, unit="m", doc="as the robot's")
    step_height: float = num(0.25, gt=0, le=1.0, unit="m", doc="the step the plan climbs (as the arena's)")
    advance_speed: float = num(0.03, ge=0, le=0.2, unit="m/s", doc="belts before, between and after the climbs")
    progress_rate: float = num(0.12, gt=0, le=2, unit="1/s", doc="the plan's u per second (3 per module)")
    joint_speed_limit: float = num(0.25, gt=0, le=5, unit="rad/s", doc="the plan's joint rates are kept below this")
    centre_speed_limit: float = num(0.04, gt=0, le=1, unit="m/s", doc="…and its centres' speeds below this")
    pause_error: float = num(0.12, gt=0, le=1, unit="rad", doc="the plan waits while a joint lags it by more")
    angle_gain: float = num(3.0, ge=0, le=100, unit="1/s", doc="joint angle error → speed command")
    kp_joint: float = num(30.0, ge=0, le=1e5, doc="connector and arm speed loops, proportional (N·m·s/rad)")
    ki_joint: float = num(300.0, ge=0, le=1e5, doc="connector and arm speed loops, integral")
    kp_drive: float = num(0.4, ge=0, le=1e5, doc="belt speed loops, proportional")
    ki_drive: float = num(8.0, ge=0, le=1e5, doc="belt speed loops, integral")
    stall_fraction: float = num(0.3, gt=0, lt=1, doc="stalled below this fraction of advance_speed…")
    stall_time: float = num(0.3, gt=0, le=10, unit="s", doc="…for this long")
    torque_limit: float = num(40.0, gt=0, le=1e4, unit="N·m", doc="commands clipped here (the motors' lines clip again)")
    log_every: int = num(20, ge=1, le=1000, unit="steps", doc="log a step every n steps")
    plan_samples: int = num(121, ge=11, le=2001, doc="samples of u per module's plan")
    arms_stowed: bool = info(True, doc="the arms of every module but the tail stand upright over their pivots")
    kp_arm: float = num(4.0, ge=0, le=1e5, doc="stowed arms' speed loops, proportional (N·m·s/rad)")
    ki_arm: float = num(20.0, ge=0, le=1e5, doc="stowed arms' speed loops, integral")
    pitch_filter: float = num(0.3, gt=0, le=10, unit="s", doc="time constant of the pitch the stowed arms hold "
                                                             "upright against (a faster one let the arm and the "
                                                             "body's pitch chatter through the contacts)")
    feedforward: bool = info(True, doc="feed the plan's statics forward (connector, belt and tail-arm torques)")
    servo: Literal["implicit_p", "explicit"] = choice(
        "implicit_p", doc="how the PI speed loops are stepped (chain_climb.pi_torques): 'implicit_p' the proportional "
                          "terms at the next state of the engine's step (its mass matrix), the integrals and the "
                          "feedforward at this state, as the single module's climb; 'explicit' at this state (the "
                          "results before 2026-11-27)")


class _PI:
    """A PI speed loop with the integral clamped so its share never exceeds the limit."""

    def __init__(self, kp, ki, limit):
        self.kp, self.ki, self.limit, self.i = kp, ki, limit, 0.0

    def __call__(self, err, dt, h_qdd: float = 0.0):
        """One step on the speed error ``err``; ``h_qdd`` = h q̈ predicted (0: the explicit loop; else the
        proportional term on the next step's speed error err − h q̈, the ``implicit_p`` form of
        :func:`pi_torques`). The integral keeps the explicit convention i⁺ = i + h·err."""
        if self.ki > 0:
            self.i = min(max(self.i + err * dt, -self.limit / self.ki), self.limit / self.ki)
        return min(max(self.kp * (err - h_qdd) + self.ki * self.i, -self.limit), self.limit)


def pi_torques(loops, state, dt: float, servo: str, n_joints: int) -> list[float]:
    """The torques of every PI speed loop of one step, ``loops`` = [(joint, :class:`_PI`, speed error)].

    ``explicit``: k_p err + k_i i at this state. ``implicit_p`` (the single module's form,
    :meth:`.controllers.TrackedClimb._speed_loops`; Tan, Liu and Turk 2011's Stable PD with the loop's
    k_p as the damping): the proportional terms on the speed error one step on, err − h q̈, with q̈ from
    (M + h K_p) q̈ = K_p err on the joint rows (M the engine's mass matrix with the gears' inertia, the
    base free: :func:`lab.controllers.servo.predict_qdd`), all loops in one prediction since the chain's
    joints share the bodies between them. The integrals and the plan's feedforward balance the loads
    (gravity, contacts) the prediction leaves out, so they stay out of it, at full strength. The
    continuous loop is unchanged: h q̈ = O(h), so the form tends to the explicit one as h → 0
    (tests/papers/hu2013_tracked/test_chain_servo.py). Why: the explicit damping k_p on a joint of
    inertia μ is stable only for h < 2μ/k_p — 2 ms for a connector (30 N·m·s/rad on ~0.03 kg·m²), and
    the belt's hub (0.4 on its reflected ~2e-3 kg·m²) about as close — and it rings near that bound."""
    if servo == "explicit" or not loops:
        return [pi(err, dt) for _, pi, err in loops]
    from lab.controllers.servo import predict_qdd

    if state.M is None:
        raise ValueError("servo: 'implicit_p' reads the mass matrix from the snapshot (RobotState.M: the "
                         "controller's needs_mass_matrix); a hand-made state needs servo = 'explicit'")
    k, u = np.zeros(n_joints), np.zeros(n_joints)
    for j, pi, err in loops:
        k[j] += pi.kp
        u[j] += pi.kp * err
    h_qdd = dt * predict_qdd(state.M, k, u, dt)
    return [pi(err, dt, float(h_qdd[j])) for j, pi, err in loops]


def _pitch_up(R) -> float:
    """Nose-up pitch of a body from its rotation matrix (rotation about −y)."""
    return math.atan2(R[2, 0], R[0, 0])


@dataclass
class Plan:
    """One climber's plan over u: joint targets, their rates, belt speeds per unit u, centres' rates, and
    the statics' feedforward (the robust distribution of :func:`.model.multi.chain_statics`) in the
    URDF's joint signs: connector torques (N−1, 2), belt torques (N,), the tail's arm torque."""

    U: np.ndarray
    Q: np.ndarray
    V: np.ndarray
    dQ: np.ndarray
    dC: np.ndarray
    tau_conn: np.ndarray
    tau_belt: np.ndarray
    tau_arm: np.ndarray


def plan(cp: ChainParams, h: float, n: int, feedforward: bool = True) -> list[Plan] | str:
    """Per climber j its :class:`Plan`; or, if the chain cannot take this step, why (a string)."""
    N, r = cp.n_modules, cp.module.pulley_radius
    out = []
    for j in range(N):
        U = np.linspace(0.0, 3.0, n)
        Q = np.zeros((n, N - 1, 2))
        C = np.zeros((n, N, 2))
        P = np.zeros((n, N))
        Tc, Tb, Ta = np.zeros((n, N - 1, 2)), np.zeros((n, N)), np.zeros(n)
        for i, u in enumerate(U):
            pose = serial_pose(cp, h, j, float(u))
            if not pose.ok:
                return f"the chain cannot climb {h} m: {pose.why}"
            if feedforward:
                # the tail's arm trails on its wheel through the climb (module doc; eq. 13's support point C)
                st = chain_statics(cp, pose, h, robust=True, arm_presses=True)
                if st.feasible:
                    Tc[i, :, 0] = st.connector_torque[:, 0]  # on module k, counter-clockwise = +y on the bar
                    Tc[i, :, 1] = -st.connector_torque[:, 1]  # on module k+1 counter-clockwise = −(+y joint)
                    Tb[i] = r * st.belt_force
                    Ta[i] = st.arm_torque  # counter-clockwise on the arm = tip down = the arm joint's +
            C[i], P[i] = pose.centres, pose.pitches
            P[i, :j] = -2 * math.pi / 3  # the modules that have climbed rolled over onto their front face
            for k in range(N - 1):
                b = C[i, k + 1] - C[i, k]
                pb = math.atan2(-b[1], -b[0])
                Q[i, k] = (P[i, k] - pb, pb - P[i, k + 1])
        dC = np.gradient(C, U, axis=0)
        dP = np.gradient(P, U, axis=0)
        V = dC[:, :, 0].copy()  # modules flat on a level: the centre's advance
        a = U <= 1.0
        V[a, j] = r * dP[a, j]  # (a): the belt turns back with the body (its front pulley rolls on nothing)
        b = (U > 1.0) & (U <= 2.0)
        V[b, j] = dC[b, j, 1]  # (b): up the riser
        V[U > 2.0, j] = 0.0  # (c): a rotation about the corner, which stays at the face's middle
        dQ = np.gradient(Q, U, axis=0)
        out.append(Plan(U, Q, V, dQ, dC, Tc, Tb, Ta))
    return out


def loop_plan(kind: str, cp: ChainParams, h: float, n: int, feedforward: bool = True,
              bar_mass: float = 0.3) -> list[Plan] | str:
    """The triangle's or ring's plan (:mod:`.model.loops`): per bottom climber j ∈ {0, 1} a :class:`Plan`
    whose Q, dQ and tau_conn hold every bar's (front, rear) joint in the URDF's joint angles (the bars'
    origin pitches of :meth:`TrackedChainSpec.bar_pitch` removed). The closing bar hangs from module 0 on
    its rear joint (a joint of the front kind: the module its parent); its front end is the engine's
    closing pin (NaN: no joint)."""
    from lab.robots.tracked_chain import TrackedChainSpec

    from .model.loops import LoopParams, loop_pose, loop_statics

    lp = LoopParams(kind, cp, bar_mass)
    N, r = lp.n_modules, cp.module.pulley_radius
    spec = TrackedChainSpec(n_modules=N, layout=kind, coupler_length=cp.coupler_length)
    th = [spec.bar_pitch(k) for k in range(N)]
    out = []
    for j in range(2):
        U = np.linspace(0.0, 3.0, n)
        Q = np.zeros((n, N, 2))
        C = np.zeros((n, N, 2))
        P = np.zeros((n, N))
        Tc, Tb, Ta = np.zeros((n, N, 2)), np.zeros((n, N)), np.zeros(n)
        for i, u in enumerate(U):
            pose = loop_pose(lp, h, j, float(u))
            if not pose.ok:
                return f"the {kind} cannot climb {h} m: {pose.why}"
            st = None
            if feedforward:
                st = loop_statics(lp, pose, h, robust=True)
                if st.feasible:
                    for k in range(N):
                        Tc[i, k, 0] = st.pin_torque[(k, "front")]
                        Tc[i, k, 1] = -st.pin_torque[(k, "rear")]
                    Tb[i] = r * st.belt_force
                    Ta[i] = st.arm_torque
            C[i], P[i] = pose.centres, pose.pitches
            P[i, :j] = -2 * math.pi / 3
            for k, (a, b) in enumerate(lp.bars()):
                if k == N - 1:  # hangs from module 0 (= b) towards module N − 1 (= a)
                    e = C[i, a] - C[i, b]
                    pb = math.atan2(-e[1], -e[0])
                    Q[i, k] = (0.0, P[i, b] - pb - th[k])
                    continue
                e = C[i, b] - C[i, a]
                pb = math.atan2(-e[1], -e[0])
                Q[i, k] = (P[i, a] - pb - th[k], pb - P[i, b] + th[k])
            if st is not None and st.feasible:
                Tc[i, N - 1] = (0.0, st.pin_torque[(N - 1, "rear")])  # the torque on its parent, module 0
        Q = np.unwrap(np.unwrap(Q, axis=0), axis=0)
        Q[:, N - 1, 0] = np.nan
        Tc[:, N - 1, 0] = 0.0
        dC = np.gradient(C, U, axis=0)
        dP = np.gradient(P, U, axis=0)
        V = dC[:, :, 0].copy()
        V[:, 2:] = 0.0  # the upper modules' belts touch nothing
        a = U <= 1.0
        V[a, j] = r * dP[a, j]
        b = (U > 1.0) & (U <= 2.0)
        V[b, j] = dC[b, j, 1]
        V[U > 2.0, j] = 0.0
        dQ = np.nan_to_num(np.gradient(Q, U, axis=0))
        out.append(Plan(U, Q, V, dQ, dC, Tc, Tb, Ta))
    return out


@register_controller("chain_climb", params=ChainClimbParams)
class ChainClimb(Controller):
    """Cooperative climb of a serial chain (module doc)."""

    def reset(self, model, dt):
        super().reset(model, dt)
        p = self.params
        N = p.n_modules
        J = model.joint_names
        L = model.link_names
        self.j_drive = [J.index(f"m{k}_drive_joint") for k in range(N)]
        self.j_arm = [J.index(f"m{k}_arm_joint") for k in range(N)]
        self.loop = p.layout != "serial"
        nb = N if self.loop else N - 1
        self.j_conn = [tuple(J.index(f"c{k}_{e}") if f"c{k}_{e}" in J else None for e in ("front", "rear"))
                       for k in range(nb)]
        passive = ()
        # the triangle's bottom corners: two joints each turn the rigid truss against the module, in parallel;
        # the first one's loop computes the torque, the two share it. Sign: +1 where the module is the joint's
        # parent (the joint's torque is the truss's torque on it), −1 where it is the child
        self.share = ([((J.index("c0_rear"), -1), (J.index("c1_front"), 1)),
                       ((J.index("c0_front"), 1), (J.index("c2_rear"), 1))] if p.layout == "triangle" else [])
        self.passive = np.array([[jj is None or J[jj] in passive for jj in pair] for pair in self.j_conn], bool).reshape(nb, 2)
        self.tail = 1 if self.loop else N - 1
        self.l_body = [L.index(f"m{k}_body") for k in range(N)]
        self.cp = ChainParams(module=ClimbParams(), n_modules=2 if self.loop else N, coupler_length=p.coupler_length)
        self.r = self.cp.module.pulley_radius
        self.transfer_m = 0.0
        if self.loop:
            from .model.loops import LoopParams, loop_pose

            plans = loop_plan(p.layout, self.cp, p.step_height, p.plan_samples, p.feedforward)
            lp = LoopParams(p.layout, self.cp)
            if isinstance(plans, list):  # the rear module's way from the end of the front's climb to the riser
                self.transfer_m = float(loop_pose(lp, p.step_height, 1, 0.0).centres[1, 0]
                                        - loop_pose(lp, p.step_height, 0, 3.0).centres[1, 0])
        else:
            plans = plan(self.cp, p.step_height, p.plan_samples, p.feedforward)
        self.plans, self.no_plan = (plans, "") if isinstance(plans, list) else ([], plans)
        lim = p.torque_limit
        self.pi_drive = [_PI(p.kp_drive, p.ki_drive, lim) for _ in range(N)]
        self.pi_arm = [_PI(p.kp_arm, p.ki_arm, lim) for _ in range(N)]
        self.psi_f = [None] * N  # low-passed pitch of each module
        redundant = {"ring": ("c2_front", "c3_rear"), "triangle": ("c1_front", "c2_rear")}.get(p.layout, ())
        self.pi_conn = [[_PI(0.0, 0.0, lim) if (jj is not None and J[jj] in redundant) else _PI(p.kp_joint, p.ki_joint, lim)
                         for jj in pair] for pair in self.j_conn]
        self.phase, self.j, self.u = ChainPhase.APPROACH, 0, 0.0
        self.started = False
        self.moving, self.x_start = False, None
        self.t_slow = 0.0
        self.waited = 0.0  # s the plan has been waiting for a lagging joint
        self.offset = np.zeros((nb, 2))
        self.hold = np.zeros((nb, 2))
        self.t_phase: list[tuple[float, int, int]] = [(0.0, int(ChainPhase.APPROACH), 0)]
        self.k = 0
        self.log = {k: [] for k in ("t", "phase", "j", "u", "com", "centres", "margin", "n_support")}

    # ------------------------------------------------------------------ phases
    def _goto(self, phase: ChainPhase, t: float, j: int | None = None) -> None:
        self.phase = phase
        if j is not None:
            self.j = j
        self.t_phase.append((t, int(phase), self.j))
        self.t_slow = 0.0
        self.moving, self.x_start = False, None

    def _stalled(self, state, k: int) -> bool:
        p = self.params
        R = state.R_WB[self.l_body[k]]
        fwd = np.array([R[0, 0], R[1, 0]])
        fwd /= max(np.linalg.norm(fwd), 1e-9)
        v = float(state.v_W[self.l_body[k], :2] @ fwd)
        if self.loop and self.phase == ChainPhase.TRANSFER and not self.moving:
            # a loop's rear module arrives from its push still moving: its stall at the riser counts once it
            # has covered most of the plan's way there (the truss is rigid: it cannot be nearer before)
            x = state.p_W[self.l_body[k], :2]
            if self.x_start is None:
                self.x_start = x.copy()
            self.moving = float(np.linalg.norm(x - self.x_start)) > 0.8 * self.transfer_m
            return False
        self.t_slow = self.t_slow + self.dt if v < p.stall_fraction * max(p.advance_speed, 1e-3) else 0.0
        return self.t_slow >= p.stall_time

    def _targets(self):
        """(joint targets (N−1, 2), their rates per u, belt speeds per u, the feedforward (connectors,
        belts, tail arm)) at the current u of climber j."""
        pl = self.plans[self.j]
        U = pl.U
        i = min(int(np.searchsorted(U, self.u)), len(U) - 1)
        i0 = max(i - 1, 0)
        w = 0.0 if i == i0 else (self.u - U[i0]) / (U[i] - U[i0])

        def at(A):
            return (1 - w) * A[i0] + w * A[i]

        blend = max(0.0, 1.0 - self.u / 0.3)
        return at(pl.Q) + blend * self.offset, pl.dQ[i], pl.V[i], (at(pl.tau_conn), at(pl.tau_belt), at(pl.tau_arm))

    def _u_rate(self) -> float:
        p = self.params
        pl = self.plans[self.j]
        U, dQ, dC = pl.U, pl.dQ, pl.dC
        i = min(int(np.searchsorted(U, self.u)), len(U) - 1)
        rate = p.progress_rate
        qmax = float(np.max(np.abs(dQ[i])))
        if qmax > 0:
            rate = min(rate, p.joint_speed_limit / qmax)
        cmax = float(np.max(np.linalg.norm(dC[i], axis=1)))
        if cmax > 0:
            rate = min(rate, p.centre_speed_limit / cmax)
        return rate

    # ------------------------------------------------------------------ act
    def act(self, state):
        p = self.params
        N, dt, t = p.n_modules, self.dt, state.t
        tau = np.zeros(self.model.n_joints)
        q, qd = state.q, state.qd
        nb = len(self.j_conn)
        qc = np.array([[q[a] if a is not None else np.nan for a in pair] for pair in self.j_conn]).reshape(nb, 2)
        qdc = np.array([[qd[a] if a is not None else 0.0 for a in pair] for pair in self.j_conn]).reshape(nb, 2)
        v_belt = np.full(N, p.advance_speed)
        if self.loop:
            v_belt[2:] = 0.0
        q_ref, w_ref = np.zeros((nb, 2)), np.zeros((nb, 2))
        free = np.zeros(nb, bool)
        ff_c, ff_b, ff_a = np.zeros((nb, 2)), np.zeros(N), 0.0
        if self.phase == ChainPhase.APPROACH:
            if self.loop and not self.started:  # hold the loop's rest shape until the first climb's plan
                q_ref = self.plans[0].Q[0] if self.plans else q_ref
                ff_c = self.plans[0].tau_conn[0] if self.plans else ff_c
            if t > 0.3 and self.plans and self._stalled(state, 0):
                self._start_climb(qc, t, 0)
        coast = np.zeros(N, bool)  # belts that get no torque this step (their loops' integrals emptied)
        if self.phase == ChainPhase.TRANSFER:
            free[self.j - 1] = not self.loop
            if self._stalled(state, self.j):
                self._start_climb(qc, t, self.j)
            else:
                coast = self._coasting()
        if self.phase == ChainPhase.CLIMB:
            qt, dq, V, (ff_c, ff_b, ff_a) = self._targets()
            rate = self._u_rate()
            if np.nanmax(np.abs(qc - qt)[~self.passive]) > p.pause_error:
                rate = 0.0
                self.waited += dt
            else:
                self.waited = 0.0
            q_ref, w_ref, v_belt = qt, dq * rate, V * rate
            self.u += rate * dt
            if self.u >= 3.0:
                self.u = 3.0
                if self.j < len(self.plans) - 1:  # a loop: its two bottom modules climb
                    self._goto(ChainPhase.TRANSFER, t, self.j + 1)
                else:
                    self._goto(ChainPhase.DRIVE_ON, t)
        elif self.phase in (ChainPhase.DRIVE_ON, ChainPhase.TRANSFER):
            q_ref = self.hold  # the last plan's end pose (every module on a face, the bars as they lie)
            if self.loop:  # the truss's weight on its joints, as the last plan held it
                last = self.plans[self.j if self.phase == ChainPhase.DRIVE_ON else self.j - 1]
                ff_c = last.tau_conn[-1]
        loops, ff = [], []  # every PI speed loop of this step (joint, loop, speed error) and its feedforward
        for k in range(nb):
            for e in range(2):
                if self.j_conn[k][e] is None:
                    continue
                if free[k] or self.passive[k, e]:
                    tau[self.j_conn[k][e]] = 0.0
                    self.pi_conn[k][e].i = 0.0
                    continue
                err = _wrap(q_ref[k, e] - qc[k, e])
                w_cmd = w_ref[k, e] + p.angle_gain * err
                loops.append((self.j_conn[k][e], self.pi_conn[k][e], w_cmd - qdc[k, e]))
                ff.append(ff_c[k, e])
        for k in range(N):
            if coast[k]:
                tau[self.j_drive[k]] = 0.0
                self.pi_drive[k].i = 0.0
            else:
                loops.append((self.j_drive[k], self.pi_drive[k], v_belt[k] / self.r - qd[self.j_drive[k]]))
                ff.append(ff_b[k])
            if k == self.tail or not p.arms_stowed:
                tau[self.j_arm[k]] = ff_a if k == self.tail else 0.0  # trailing on its wheel (the plan's push)
            else:
                psi = _pitch_up(state.R_WB[self.l_body[k]])
                if self.psi_f[k] is None:
                    self.psi_f[k] = psi
                self.psi_f[k] += _wrap(psi - self.psi_f[k]) * min(dt / p.pitch_filter, 1.0)
                target = -math.pi / 2 - self.psi_f[k]
                err = _wrap(target - q[self.j_arm[k]])
                loops.append((self.j_arm[k], self.pi_arm[k], p.angle_gain * err - qd[self.j_arm[k]]))
                ff.append(0.0)
        for (jj, _, _), f, t_pi in zip(loops, ff, pi_torques(loops, state, dt, p.servo, self.model.n_joints)):
            tau[jj] = f + t_pi
        for group in self.share:  # the truss's torque on the module, counter-clockwise, shared equally
            on_module = sum(sg * tau[jj] for jj, sg in group)
            for jj, sg in group:
                tau[jj] = sg * on_module / len(group)
        if self.k % p.log_every == 0:
            self._log(state)
        self.k += 1
        return tau

    def _start_climb(self, qc, t, j):
        self._goto(ChainPhase.CLIMB, t, j)
        self.started = True
        self.u = 0.0
        Q = self.plans[j].Q
        self.offset = np.nan_to_num(np.array([[_wrap(a) for a in row] for row in (qc - Q[0])]))
        self.offset[self.passive] = 0.0
        self.hold = Q[-1].copy()

    def _coasting(self) -> np.ndarray:
        """In TRANSFER, which belts coast (no torque): the serial chain's modules on the top. Its free bar is a
        two-force member inclined at β = asin(h/d_c) (44° at 0.25 m): a pull T from the modules on the top lifts
        the next module by T sin β and presses it on the riser by T cos β, where the riser's friction lifts it
        further, and at its stall the top module's speed loop winds that pull up. Measured (two modules at 0.25 m,
        0.5 ms): 0.2 s after the tail met the riser its pulleys were 6 mm off the ground, where the plan's phase
        (a) has it stand on its front pulley at the riser's foot; its climb then started hanging on the bar and
        the riser. So the modules on the ground push the chain (the bar in compression presses the next module
        down) and those on the top roll on. A loop's joints hold the truss in TRANSFER: its belts all drive."""
        coast = np.zeros(self.params.n_modules, bool)
        if not self.loop:
            coast[:self.j] = True
        return coast

    def _log(self, state):
        L = self.log
        L["t"].append(state.t)
        L["phase"].append(int(self.phase))
        L["j"].append(self.j)
        L["u"].append(self.u)
        L["com"].append(state.com_W.copy())
        L["centres"].append(state.p_W[self.l_body].copy())
        m, n = contact_margin(state)
        L["margin"].append(m)
        L["n_support"].append(n)

    def tunables(self):
        return {"progress_rate": (0.02, 0.5), "advance_speed": (0.0, 0.08)}

    def gui_overlay(self, state):
        text = f"{ChainPhase(self.phase).name.lower()} module {self.j} u = {self.u:.2f}"
        L = self.log
        if L["margin"] and np.isfinite(L["margin"][-1]):
            text += f"   support margin d = {100 * L['margin'][-1]:+.1f} cm"
        com = state.com_W
        return [(com, (com[0], com[1], 0.0), (0.95, 0.55, 0.05))], text

    def logged(self):
        return {k: np.asarray(v, float) for k, v in self.log.items()}


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def contact_margin(state) -> tuple[float, int]:
    """Eq. 13 generalised on the engine's contacts: the COM against the hull of every contact point of
    the robot projected along z (riser contacts included, as the paper's edge line AB); NaN with fewer
    than three distinct points."""
    from lab.analysis.stability import polygon_margin

    cs = state.contacts
    if cs is None or len(cs) < 3:
        return math.nan, 0 if cs is None else len(cs)
    P = np.asarray(cs[:, Col.PX:Col.PZ + 1], float)
    if np.ptp(P[:, 0]) < 1e-4 or np.ptp(P[:, 1]) < 1e-4:
        return math.nan, len(P)
    return float(polygon_margin(P, state.com_W)[0]), len(P)


__all__ = ["ChainPhase", "ChainClimbParams", "ChainClimb", "Plan", "contact_margin", "pi_torques", "plan"]
