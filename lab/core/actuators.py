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

At ``ω = 0`` both bounds are ``±τ_s`` (where the cap does not act): the effort limit the URDF
states. The energy the joint gives
back while braking is dissipated in the driver (the ledger books ``τ q̇`` as the motors' work, which
is negative while braking, as before).

Tested against closed forms in tests/library/test_actuators.py: a joint of inertia ``J`` spun up from rest at
full command follows ``ω(t) = ω_0 (1 − exp(−t τ_s / (J ω_0)))`` (:func:`spin_up_speed`), and under the
engine's semi-implicit Euler step ``h`` the exact map ``ω_k = ω_0 (1 − (1 − h τ_s/(J ω_0))^k)``
(:func:`spin_up_speed_discrete`); braking from above ``ω_0`` decelerates at exactly ``τ_s / J``.
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
        object.__setattr__(self, "_lines", np.ascontiguousarray(np.stack([s, w, self._inv, jh])))
        object.__setattr__(self, "_n", int(s.shape[0]))

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
