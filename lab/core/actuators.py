"""Motors with a torque–speed line: what an actuated joint can really push, at the speed it turns.

Each actuated joint has a DC motor, seen at the joint (through its gear ratio ``N``, efficiency 1:
no paper gives one), described by two numbers:

* stall torque ``τ_s = N·τ_m`` [N·m]: the torque at zero speed (the motor's maximum current);
* no-load speed ``ω_0 = ω_m / N`` [rad/s]: the speed at which the motor's back-EMF equals its supply
  voltage, so it can no longer drive the joint faster.

The permanent-magnet DC motor's steady torque–speed characteristic is the straight line between the
two, ``τ = τ_s (1 − ω/ω_0)`` (torque ∝ current, current ∝ supply voltage − back-EMF ∝ V − k ω).

Convention — the DC motor's two limits: its supply voltage and its driver's current
-------------------------------------------------------------------------------------
A commanded joint torque ``τ`` at joint speed ``ω`` (``q̇``, same sign convention as the torque) is
clipped to ``[τ_lo(ω), τ_hi(ω)]`` with ::

    τ_hi(ω) =  τ_s · min(1, 1 − ω/ω_0)
    τ_lo(ω) = −τ_s · min(1, 1 + ω/ω_0)

(and ``τ_hi`` wins where ``τ_hi < τ_lo``, past 2 ω_0). The two limits of a voltage-driven motor with a
current-limited driver: the torque is ∝ current, the current is (V − k_e ω)/R with |V| at most the
supply, and the driver holds |current| at most the stall current (the motor's rating, which the lab
takes as the driver's limit).

* **Motoring** (``τ ω > 0``, ``|ω| < ω_0``): bounded by the line, ``τ_s (1 − |ω|/ω_0)``: the torque runs
  out at the no-load speed.
* **Braking** (``τ ω ≤ 0``): bounded by the stall torque at every speed (the driver's current limit;
  the back-EMF helps the supply push current, so only the driver's limit binds).
* **Past the no-load speed** (``|ω| > ω_0``, turned there by other joints or the ground): the back-EMF
  exceeds the supply, current flows back through the driver whatever it is told, and the motor
  brakes with at least ``τ_s (|ω|/ω_0 − 1)``: the line extended. Commanding zero, or more drive, still
  brakes. So the joint speed limit is real: a motor cannot be driven past ω_0, and a joint pushed past
  it is pulled back on the same time constant the line spins it up with.

The one-step cap (stiff lines). The engine steps semi-implicit Euler with step ``h``: a joint of
inertia ``J`` driven on its line moves as ``ω' = ω + (h/T)(ω_0 − ω)``, ``T = J ω_0/τ_s`` the line's
time constant. Where ``T < h`` (a light joint behind a big reduction: the tracked robot's drive,
T ≈ 0.1 ms with the belt's reflected inertia unmodelled) one step would overshoot ω_0 — by 9× for
the drive from rest. So where the World knows the joint's inertia the motoring torque is also capped at
``J (ω_0 − |ω|)/h``: the torque that reaches ω_0 exactly in one step, and past ω_0 the braking is
capped the same way (it stops on ω_0, not beyond: explicit braking at the line's slope would
oscillate). Where ``T ≥ h`` the line is the tighter bound and the cap never acts. ``J`` is the joint's reflected inertia with every other joint
free, ``1/(M⁻¹)_jj`` of the mass matrix at the loaded pose (lab.core.world.World.load_robot); gears and
contacts, which the mass matrix does not hold, only add inertia, so the cap errs towards a slower
spin-up, never an overshoot.

The line taken implicitly (``EngineOptions.implicit_motor_lines``, per World ``World.implicit_motor_lines``,
per scenario ``sim.motor_lines = "implicit"``; on in the v2 environments and in the multi-module climbs but
the serial pair, issue 34). On a line the motor is a
damper: ``τ = τ_s − D ω`` with ``D = τ_s/ω_0`` (and ``−τ_s − D ω`` on the reverse line), and an explicit
damper is stable only while ``h < 2 μ/D`` for every mode μ of the joints' coupled inertia. The cap above
bounds each joint alone (its own ``J``); with every joint driven at once the chain's modes couple them
(the flagship's joints under full random torques reached 6.9 ω_0 at h = 5 ms, T = 1.5 ms). So
:meth:`Motors.limit_implicit` evaluates the line at the end of the step, as the servos' implicit damping
does (:mod:`lab.controllers.servo`): for the joints the explicit clip puts on a line (set S),

    (M_eff + h D_e,S) q̈ = τ_clip + f_load,    τ_j = τ_clip,j − h D_e,j q̈_j   (j in S; the others keep their torque)

with ``M_eff`` the joints' inertia with the base free (the Schur complement of the mass matrix's base block:
its inverse is the joint block of M⁻¹) and the other joints' torques in the prediction. A joint's torque then
stays within the stall current and its command. The damping in the prediction is not ``D`` itself
(backward Euler, which lags: a joint with T < h closes only h/(T + h) of its gap to ω_0 a step) but
``D_e = (J/h)(x/(1 − e^−x) − 1)``, x = h/T, J the joint's reflected inertia: with it one joint alone
lands each step on the line's exact exponential, ``ω_k = ω_0 (1 − e^(−k h/T))`` (:func:`spin_up_speed`)
at any step. D_e lies between D/2 (h ≪ T) and D − J/h (h ≫ T, where the step is the one-step cap's
deadbeat); being ≥ D/2 it keeps every coupled mode stable (h D/(μ + h D_e) < 2 for any inertia μ),
and as h → 0 the torques tend to the explicit line's (first order). Where no joint is on a line, or the
line is never reached, the torques are the explicit clip's, bit for bit.

The load in the prediction (issue 34). ``f_load`` is the generalized force on the joints of everything but
the motors over the step: gravity and the Coriolis terms, the lab's own force laws (friction, hydrodynamics,
a trial's pushes), and the engine's contacts, joint constraints and gears. Left out (f_load = 0, as before),
a joint that lifts a load sits on its line where τ_line · J/(J + h D_e) = τ_load, not τ_line = τ_load: the
loaded speed is wrong by τ_load h D_e/(J τ_s/ω_0) — the cut that made the multi-module climbs' 1-ms runs
worse with the implicit lines than without (26 % on the parallel climb's COM speed). The estimate taken is
the whole residual of the last step, ``f_load,k = M_eff q̈_obs,k−1 − τ_k−1``, with ``q̈_obs,k−1 =
(q̇_k − q̇_k−1)/h`` the joints' observed acceleration over it and ``τ_k−1`` the torques the motors applied on it
(World.apply keeps both; the first step after a load, a reset or a rewind has no last step and predicts
without the load). Why this one, against the alternatives:

* it is the only one that holds the contacts and the gears' constraint forces, which the engine solves
  inside its step and reports after it (the climbs' belts, riser and ground: most of their load), and the
  gears' and the contacts' added inertia: a contact that makes a joint heavier than M says enters as a load
  proportional to q̈, and the lagged residual's fixed point is then the line with the true inertia
  (τ = τ_line J_true/(J_true + h D_e)), the feedback's factor h D_e/(J + h D_e) · c/J_true < 1, stable;
* the bias forces C(q, q̇) + g from the engine's inverse dynamics at q̈ = 0 and the lab's own forces
  through the Jacobians are known at the step itself but miss the contacts, and cost engine calls (one
  inverse dynamics and one Jacobian per pushed link, ~10–50 µs) where the residual costs none: q̇ and τ
  are in hand, M_eff is already built for the solve;
* its error is the load's change over one step, O(h) like the lines' own prediction error, and a
  constant load (a joint lifting a weight, a constant push) is taken exactly from the second step on:
  tests/library/test_actuators.py lands a rotor lifting 0.4 τ_s on ω_L = ω_0 (1 − τ_load/τ_s) along the
  exact exponential at 1, 5, 10 ms and 0.2 s (2.2 T), where the unloaded lines settle 0.23 % of ω_0 off at
  1 ms, 2.3 % at 10 ms and stall at 0.2 s.

Measured on the multi-module climbs at 1 ms (docs/benchmarks.md, "The motors' lines with the load"): the
estimate's error is 13–17 % of the load's RMS (the contacts' step-to-step noise; averaging the last residuals
gains little and lags, extrapolating doubles it), against 100 % for the load left out.
An impulsive load (a contact's impact) enters one step late and only through the joints on a line, whose
torques stay bounded by their command and the stall current. The screen that decides whether a step needs
the solve bounds the loaded prediction's speed change, h |q̈_obs,j| + h |(M⁻¹(τ − τ_prev))_j|, so the
explicit clip is still kept, bit for bit, exactly where the solve would put no joint on a line. Cost
(benchmarks/motor_lines_cost.py, the multi-module climbs): 25–40 µs a step over the explicit clip, against an
engine step of 450–650 µs.

At ``ω = 0`` both bounds are ``±τ_s`` (where the cap does not act): the effort limit the URDF
states. The energy the joint gives
back while braking is dissipated in the driver (the ledger books ``τ q̇`` as the motors' work, which
is negative while braking, as before).

Tested against closed forms in tests/library/test_actuators.py: a joint of inertia ``J`` spun up from rest at
full command follows ``ω(t) = ω_0 (1 − exp(−t τ_s / (J ω_0)))`` (:func:`spin_up_speed`), and under the
engine's semi-implicit Euler step ``h`` the exact map ``ω_k = ω_0 (1 − (1 − h τ_s/(J ω_0))^k)``
(:func:`spin_up_speed_discrete`; the implicit line lands on :func:`spin_up_speed` itself); braking from above
``ω_0`` decelerates at exactly ``τ_s / J``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.kernels import compiled


def motor_at_joint(stall_torque_motor: float, no_load_speed_motor: float, gear_ratio: float = 1.0) -> tuple[float, float]:
    """(τ_s, ω_0) at the joint of a motor (``τ_m`` [N·m], ``ω_m`` [rad/s]) behind a reduction
    ``N = gear_ratio`` (motor turns per joint turn), efficiency 1: ``(N τ_m, ω_m / N)``."""
    if not gear_ratio > 0:
        raise ValueError(f"gear_ratio: must be > 0, got {gear_ratio}")
    return float(stall_torque_motor) * gear_ratio, float(no_load_speed_motor) / gear_ratio


def rpm(speed_rpm: float) -> float:
    """Revolutions per minute → rad/s."""
    return float(speed_rpm) * 2.0 * math.pi / 60.0


def _limit_loop(tau, qd, stall, no_load, inv_no_load, j_over_h, out):
    """The clip of the module docstring, one joint at a time: ``inv_no_load`` = 1/ω_0 (0 for a joint
    without a speed line), ``stall`` = inf for a joint without a motor (passed through), ``j_over_h``
    = J/h for the one-step cap (inf: none)."""
    for j in range(tau.shape[0]):
        s = stall[j]
        t = tau[j]
        if s == math.inf:
            out[j] = t
            continue
        x = qd[j] * inv_no_load[j]
        hi = s * min(1.0, 1.0 - x)  # the line through (0, τ_s) and (ω_0, 0), extended: braking past ω_0
        lo = -s * min(1.0, 1.0 + x)
        k = j_over_h[j]
        if k < math.inf and inv_no_load[j] > 0.0:  # the one-step cap: the step ends on ω_0, not past it
            w0 = no_load[j]
            c = k * (w0 - qd[j])
            hi = min(hi, c) if x < 1.0 else max(hi, c)
            c = -k * (w0 + qd[j])
            lo = max(lo, c) if x > -1.0 else min(lo, c)
        out[j] = min(max(t, lo), hi)  # hi < lo past 2 ω_0: the back-EMF's braking wins
    return out


_limit = compiled(_limit_loop)  # the one implementation (NUMBA_DISABLE_JIT=1 runs it as Python)


def _limit_packed_loop(tau, qd, lines, out):
    """:func:`_limit_loop` into ``out`` with the four per-joint arrays packed as the rows of ``lines``
    (4, J): the per-step call (Motors.limit) passes four arrays instead of seven (the dispatch costs per
    argument) and returns nothing (handing an array back to Python costs more than the clip: ~1 µs)."""
    _limit(tau, qd, lines[0], lines[1], lines[2], lines[3], out)


_limit_packed = compiled(_limit_packed_loop)


@compiled
def _limit_screened(tau, qd, lines, out, reach, h, qdd_obs, tau_prev, loaded):
    """:func:`_limit_loop` into ``out`` (the explicit clip with the one-step cap), and whether the step may put
    a joint on its sloped line (:meth:`Motors.limit_implicit` then takes the lines implicitly): a joint
    already on it (past ω_0, or commanded beyond it: the line or the one-step cap clipped it), or one whose
    predicted speed could reach it within the step, |ω| + Δω_j ≥ ω_0 (1 − |τ_j|/τ_s) in the direction it pushes
    (τ the clip without the cap, what :func:`_implicit_lines` predicts with). The prediction's speed change with
    the load (``loaded``: the load taken from the last step, :func:`_implicit_lines`) is
    h q̈_obs,j + h (M⁻¹(τ − τ_prev))_j, without it h (M⁻¹τ)_j; ``reach`` bounds h |(M⁻¹x)_j| / Σ|x| (h times
    twice the largest 1/J of the joints' reflected inertias), so Δω_j = h |q̈_obs,j| + reach Σ|τ − τ_prev|
    (loaded) or reach Σ|τ| bounds it."""
    _limit(tau, qd, lines[0], lines[1], lines[2], lines[3], out)
    stall, no_load, inv = lines[0], lines[1], lines[2]
    n = out.shape[0]
    tc = np.empty(n)
    total = 0.0
    for j in range(n):
        s = stall[j]
        if s == math.inf:
            continue
        x = qd[j] * inv[j]
        hi = s * min(1.0, 1.0 - x)
        lo = -s * min(1.0, 1.0 + x)
        tc[j] = min(max(tau[j], lo), hi)  # the clip without the cap
        if inv[j] > 0.0 and (x >= 1.0 or x <= -1.0 or (x > 0.0 and tau[j] >= hi) or (x < 0.0 and tau[j] <= lo)
                             or out[j] != tc[j]):
            return True  # on its line already
        total += abs(tc[j] - tau_prev[j]) if loaded else abs(tc[j])
    dw = reach * total
    for j in range(n):
        s = stall[j]
        if s == math.inf or inv[j] == 0.0:
            continue
        t = tc[j]
        w = qd[j] if t >= 0.0 else -qd[j]  # the speed in the direction the torque pushes
        dwj = dw + h * abs(qdd_obs[j]) if loaded else dw
        if w + dwj >= no_load[j] * (1.0 - abs(t) / s):
            return True
    return False


@compiled
def _cholesky_lower(A):
    """A's Cholesky factor L (A = L Lᵀ, A symmetric positive definite) into A's lower triangle, in place; the
    upper triangle is left as it was. Shared by :func:`_spd_solve` and the implicit lines' Schur complement."""
    n = A.shape[0]
    for j in range(n):
        d = A[j, j]
        for k in range(j):
            d -= A[j, k] * A[j, k]
        d = math.sqrt(d)
        A[j, j] = d
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= A[i, k] * A[j, k]
            A[i, j] = t / d


@compiled
def _spd_solve(A, b, x):
    """x = A⁻¹ b for a symmetric positive definite A (a mass matrix plus a positive diagonal), by its
    Cholesky factor, overwriting A's lower triangle with it (no LAPACK call: ~1 µs on 15 × 15)."""
    n = A.shape[0]
    _cholesky_lower(A)
    for i in range(n):  # L y = b
        t = b[i]
        for k in range(i):
            t -= A[i, k] * x[k]
        x[i] = t / A[i, i]
    for i in range(n - 1, -1, -1):  # Lᵀ x = y
        t = x[i]
        for k in range(i + 1, n):
            t -= A[k, i] * x[k]
        x[i] = t / A[i, i]


@compiled
def _implicit_lines(M, tau, qd, lines, h, out, qdd_obs, tau_prev, loaded):
    """The lines at the end of the step (:meth:`Motors.limit_implicit`) into ``out``. The joints' inertia with the
    base free, M_eff = M_qq − M_qb M_bb⁻¹ M_bq (the joint rows are M's last J, the base's first; the joint
    block of M⁻¹ is M_eff⁻¹). Active set S (the joints on a sloped line), from the explicit clip at ω without
    the cap: solve (M_eff + h D_e,S) q̈ = τ₀ + f_load, τ₀ the clip, or on S the line's value at ω, τ_s − D ω (or
    −τ_s − D ω); τ_j = τ₀_j − h D_e,j q̈_j on S (D_e: the module docstring). ``loaded``: the load from the last
    step, f_load = M_eff q̈_obs − τ_prev (``qdd_obs`` the joints' observed acceleration over it, ``tau_prev``
    the torques it applied); else f_load = 0. A joint whose torque then lies beyond its line at the predicted
    speed ω + h q̈ joins S and the solve is repeated (at most J + 1 times). Finally each torque on S is
    bounded by the stall current and its command (past 2 ω_0 the line brakes whatever the command)."""
    J = out.shape[0]
    n = M.shape[0]
    nb = n - J
    stall, inv, inertia = lines[0], lines[2], lines[4]
    Me = np.empty((J, J))
    for a in range(J):
        for b in range(J):
            Me[a, b] = M[nb + a, nb + b]
    if nb > 0:  # the Schur complement: M_bb's Cholesky factor L, Y = L⁻¹ M_bq, M_eff = M_qq − Yᵀ Y
        L = np.empty((nb, nb))
        for a in range(nb):
            for b in range(nb):
                L[a, b] = M[a, b]
        _cholesky_lower(L)
        Y = np.empty((nb, J))
        for c in range(J):
            for i in range(nb):
                t = M[i, nb + c]
                for k in range(i):
                    t -= L[i, k] * Y[k, c]
                Y[i, c] = t / L[i, i]
        for a in range(J):
            for b in range(J):
                t = 0.0
                for k in range(nb):
                    t += Y[k, a] * Y[k, b]
                Me[a, b] -= t
    load = np.zeros(J)
    if loaded:
        for a in range(J):
            t = -tau_prev[a]
            for b in range(J):
                t += Me[a, b] * qdd_obs[b]
            load[a] = t
    # each joint's implicit damping: D = τ_s/ω_0, or, where its own inertia is known, the D_e with which a
    # lone joint's step lands on the line's exact exponential, J/(J + h D_e) = (1 − e^−x)/x, x = h D/J
    De = np.empty(J)
    for j in range(J):
        D = stall[j] * inv[j]
        if inertia[j] > 0.0 and D > 0.0 and D < math.inf:
            x = h * D / inertia[j]
            De[j] = inertia[j] / h * (x / -math.expm1(-x) - 1.0)
        else:
            De[j] = D
    side = np.zeros(J, np.int64)
    base = np.empty(J)
    for j in range(J):
        s = stall[j]
        t = tau[j]
        if s == math.inf:
            base[j] = t
            continue
        x = qd[j] * inv[j]
        hi = s * min(1.0, 1.0 - x)
        lo = -s * min(1.0, 1.0 + x)
        base[j] = min(max(t, lo), hi)
        if hi < lo:  # past 2 ω_0: the back-EMF's braking on the line, whatever the command
            side[j] = 2 if x > 0.0 else -2
        elif x > 0.0 and t >= hi:
            side[j] = 1
        elif x < 0.0 and t <= lo:
            side[j] = -1
    A = np.empty((J, J))
    rhs = np.empty(J)
    qdd = np.empty(J)
    for _ in range(J + 1):
        for a in range(J):
            for b in range(J):
                A[a, b] = Me[a, b]
        for j in range(J):
            rhs[j] = base[j] + load[j]
            if side[j] != 0:
                A[j, j] += h * De[j]
        _spd_solve(A, rhs, qdd)
        grew = False
        for j in range(J):
            if side[j] != 0:
                out[j] = base[j] - h * De[j] * qdd[j]
                continue
            out[j] = base[j]
            s = stall[j]
            if s == math.inf or inv[j] == 0.0:
                continue
            xp = (qd[j] + h * qdd[j]) * inv[j]  # the predicted speed over ω_0
            if xp > 0.0 and base[j] > s * (1.0 - xp):
                side[j] = 1
                base[j] = s * (1.0 - qd[j] * inv[j])
                grew = True
            elif xp < 0.0 and base[j] < -s * (1.0 + xp):
                side[j] = -1
                base[j] = -s * (1.0 + qd[j] * inv[j])
                grew = True
        if not grew:
            break
    for j in range(J):
        s = stall[j]
        if side[j] == 1:
            out[j] = min(out[j], tau[j], s)
        elif side[j] == -1:
            out[j] = max(out[j], tau[j], -s)


def limit_torque(tau, qd, stall_torque, no_load_speed, inertia=None, dt: float | None = None) -> np.ndarray:
    """Joint torques ``tau`` (J,) clipped to each joint's torque–speed line at speeds ``qd`` (J,)
    (module docstring). ``stall_torque``, ``no_load_speed`` and ``inertia`` are scalars or (J,)
    arrays; an infinite stall torque passes a joint through, an infinite no-load speed makes its
    bounds ±τ_s; with ``inertia`` and the step ``dt`` the one-step cap applies."""
    n = np.asarray(tau).shape[0]
    m = Motors(np.broadcast_to(np.asarray(stall_torque, float), (n,)), np.broadcast_to(np.asarray(no_load_speed, float), (n,)),
               None if inertia is None else np.broadcast_to(np.asarray(inertia, float), (n,)), dt)
    return m.limit(np.asarray(tau, dtype=float), np.asarray(qd, dtype=float))


@dataclass(frozen=True)
class Motors:
    """The motors of one robot's joints, at the joints: ``stall_torque`` τ_s and ``no_load_speed`` ω_0
    per joint, (J,) arrays in the order of :attr:`lab.core.state.RobotState.q`. A joint without a motor
    (a passive wheel, the geared belt) has τ_s = inf and is passed through (it gets no torque anyway).
    ``inertia`` (J,) [kg·m²] and ``dt`` [s], when given, add the one-step cap of the module docstring."""

    stall_torque: np.ndarray
    no_load_speed: np.ndarray
    inertia: np.ndarray | None = None
    dt: float | None = None

    def __post_init__(self):
        s = np.asarray(self.stall_torque, dtype=float).reshape(-1).copy()
        w = np.asarray(self.no_load_speed, dtype=float).reshape(-1).copy()
        if s.shape != w.shape:
            raise ValueError(f"no_load_speed: must have one value per joint ({s.size}), got {w.size}")
        if (s <= 0).any() or np.isnan(s).any():
            raise ValueError(f"stall_torque: must be > 0 N·m (inf: no motor), got {s.tolist()}")
        if (w <= 0).any() or np.isnan(w).any():
            raise ValueError(f"no_load_speed: must be > 0 rad/s (inf: no speed line), got {w.tolist()}")
        object.__setattr__(self, "stall_torque", s)
        object.__setattr__(self, "no_load_speed", w)
        object.__setattr__(self, "_inv", np.where(np.isinf(w), 0.0, 1.0 / w))
        jh = np.full(s.shape, math.inf)
        if self.inertia is not None:
            J = np.asarray(self.inertia, dtype=float).reshape(-1).copy()
            if J.shape != s.shape or not (J > 0).all():
                raise ValueError(f"inertia: must be one value > 0 kg·m² per joint ({s.size}), got {J.tolist()}")
            if not (self.dt is not None and self.dt > 0):
                raise ValueError(f"dt: the one-step cap needs the step > 0 s, got {self.dt}")
            object.__setattr__(self, "inertia", J)
            jh = J / float(self.dt)
        object.__setattr__(self, "_j_over_h", jh)
        # rows: τ_s, ω_0, 1/ω_0, J/h (the explicit clip's), and J (0: unknown; the implicit lines' exact decay)
        object.__setattr__(self, "_lines", np.ascontiguousarray(np.stack(
            [s, w, self._inv, jh, np.zeros(s.shape) if self.inertia is None else self.inertia])))
        object.__setattr__(self, "_n", int(s.shape[0]))
        object.__setattr__(self, "_zeros", np.zeros(s.shape))  # limit_implicit without the load
        # limit_implicit's screen: |(M⁻¹τ)_j| ≤ max_k (M⁻¹)_kk Σ|τ_k| (M⁻¹ positive definite), with (M⁻¹)_kk =
        # 1/J_k at the loaded pose and a factor 2 for the poses where a joint's reflected inertia is lower
        # (no inertia known: every step that has a line takes it implicitly)
        object.__setattr__(self, "_reach", 2.0 / float(np.min(self.inertia)) if self.inertia is not None and s.size
                           else math.inf)

    @classmethod
    def unlimited(cls, n_joints: int) -> "Motors":
        return cls(np.full(n_joints, math.inf), np.full(n_joints, math.inf))

    @property
    def n_joints(self) -> int:
        return int(self.stall_torque.shape[0])

    def stiff(self) -> np.ndarray:
        """(J,) bool: the joints whose line's time constant J ω_0/τ_s is shorter than the step, where the
        one-step cap (not the line) bounds the motoring torque."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.isfinite(self._j_over_h) & np.isfinite(self.no_load_speed) & (
                self._j_over_h * self.no_load_speed < self.stall_torque)

    def limit(self, tau: np.ndarray, qd: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``tau`` clipped to the lines at joint speeds ``qd`` (a new array unless ``out`` is given)."""
        n = self._n
        if tau.shape[0] != n or qd.shape[0] != n:
            raise ValueError(f"tau: one torque per joint ({n}) and a speed for each, "
                             f"got {tau.shape[0]} and {qd.shape[0]}")
        out = np.empty(n) if out is None else out
        _limit_packed(tau, qd, self._lines, out)
        return out

    def limit_implicit(self, tau: np.ndarray, qd: np.ndarray, h: float, mass_matrix, qdd_obs: np.ndarray | None = None,
                       tau_prev: np.ndarray | None = None) -> np.ndarray:
        """``tau`` clipped to the lines taken at the end of the step (the module docstring, "The line taken
        implicitly"), a new array. Where no joint can reach its sloped line within the step (a bound with
        the joints' reflected inertias and the load, :func:`_limit_screened`) this is :meth:`limit`, bit for bit,
        and the mass matrix is not asked for; else the coupled implicit lines with ``mass_matrix()`` (the
        engine's M, base rows first, the gears' inertia on their joints) and the step ``h``. ``qdd_obs`` (J,),
        the joints' acceleration observed over the last step, and ``tau_prev`` (J,), the torques applied on it
        (both or neither): the load in the prediction, f_load = M_eff q̈_obs − τ_prev (module docstring); without
        them the load is left out."""
        n = self._n
        if tau.shape[0] != n or qd.shape[0] != n:
            raise ValueError(f"tau: one torque per joint ({n}) and a speed for each, "
                             f"got {tau.shape[0]} and {qd.shape[0]}")
        loaded = qdd_obs is not None
        if loaded != (tau_prev is not None):
            raise ValueError("qdd_obs, tau_prev: the load needs both (the last step's acceleration and torques) or neither")
        if loaded and (qdd_obs.shape[0] != n or tau_prev.shape[0] != n):
            raise ValueError(f"qdd_obs, tau_prev: one value per joint ({n}), got {qdd_obs.shape[0]} and {tau_prev.shape[0]}")
        if not loaded:
            qdd_obs = tau_prev = self._zeros
        out = np.empty(n)
        h = float(h)
        if _limit_screened(tau, qd, self._lines, out, self._reach * h, h, qdd_obs, tau_prev, loaded):
            _implicit_lines(np.ascontiguousarray(mass_matrix(), dtype=float), tau, qd, self._lines, h, out,
                            qdd_obs, tau_prev, loaded)
        return out

    def bounds(self, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(τ_lo, τ_hi) at joint speeds ``qd``: what :meth:`limit` clips to (the module docstring)."""
        n = self.n_joints
        qd = np.asarray(qd, dtype=float)
        return self.limit(np.full(n, -np.inf), qd), self.limit(np.full(n, np.inf), qd)


def spin_up_speed(t, stall_torque: float, no_load_speed: float, inertia: float):
    """ω(t) of a joint of inertia J started from rest at full command on its line, no other load:
    J ω̇ = τ_s (1 − ω/ω_0) ⇒ ω = ω_0 (1 − exp(−t τ_s / (J ω_0))). The time constant is J ω_0 / τ_s."""
    return no_load_speed * (1.0 - np.exp(-np.asarray(t, dtype=float) * stall_torque / (inertia * no_load_speed)))


def spin_up_speed_discrete(k, h: float, stall_torque: float, no_load_speed: float, inertia: float):
    """The same spin-up under semi-implicit (symplectic) Euler with step ``h`` (the engine's
    integrator, torque held over the step from the speed at its start):
    ω_{k+1} = ω_k + h τ_s (1 − ω_k/ω_0)/J ⇒ ω_k = ω_0 (1 − (1 − h τ_s/(J ω_0))^k)."""
    return no_load_speed * (1.0 - (1.0 - h * stall_torque / (inertia * no_load_speed)) ** np.asarray(k, dtype=float))


__all__ = ["Motors", "limit_torque", "motor_at_joint", "rpm", "spin_up_speed", "spin_up_speed_discrete"]
