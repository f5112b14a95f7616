"""Run-time instability watch: no run ends "ok" while it chatters.

The loader refuses the steps it can bound in advance (the explicit friction law, the explicit PD servo:
:func:`servo_step_bound`). What it cannot compute is caught here, as an observer
of the run loop (:class:`lab.core.observers.Observer`, which every :class:`lab.core.runner.Simulation` runs
first):

* **torque chatter** — a joint torque whose sign flips on every step for :data:`FLIP_STEPS` steps in a
  row, each flip a jump of more than :data:`FLIP_JUMP` of the joint's effort. An explicit term beyond its
  stability bound multiplies its error by a factor below −1 per step: the sign alternates and the
  torque runs to its limit, where it stays bounded (a limit cycle) and no divergence check fires
  (measured: the explicit serpenoid servo at 2 ms, torque RMS 1.43 against 0.078 N·m at 1 ms). A healthy
  torque crosses zero once per gait half-period, not on every step.
* **a growing ledger residual** — every :data:`RESIDUAL_EVERY_S` of simulated time, the energy ledger's
  residual ΔE − ΣW (:meth:`lab.core.recorder.Recorder.balance`) against its turnover; the run is unstable
  when that ratio is above :data:`RESIDUAL_REL` and has grown at each of the last
  :data:`RESIDUAL_GROWING` checks (energy made by the integrator, not booked by any channel).
* **a ledger burst** — every :data:`BURST_EVERY_S` of simulated time, the same residual: the run is unstable
  when it is energy *made* (positive), above ``TOL["instability.burst_rel"]`` of the turnover (all the work
  booked: the joints', the force laws', gravity's and the contacts' where metered) at two checks
  running and larger at the second (not on engine contacts the ledger meters, the tracked robots, whose
  depenetration from an overlapping start makes energy too). An explicit term beyond its bound on the chain's lightest mode grows by a factor
  below −1 per step; where it saturates within a few hundredths of a second (the motors' torque–speed
  lines, an explicit damper τ_s/ω_0, under a user's position step at 5 ms: docs/benchmarks.md, "The
  5-ms burst") neither the flips nor the slow residual check sees it, and the energy it makes stays in
  the ledger (measured: +7.7 J unbooked, 6.4× the turnover, at 0.075 s; 2.5 ms: below 1e-3).

Each ends the run with :class:`lab.core.errors.Unstable` (a :class:`~lab.errors.Diverged`: exit 3, data
kept, status ``"unstable"``), naming the cause and the largest step that would hold where one can be
computed (the controller's servo bound at the current pose; for a ledger burst the smaller of it and the
motors' lines' explicit bound, :func:`line_step_bound`).
"""

from __future__ import annotations

import math

import numpy as np

from lab.core.errors import Unstable
from lab.core.kernels import compiled
from lab.core.observers import Observer
from lab.core.tolerances import TOL

FLIP_STEPS = 50  # consecutive sign flips: a healthy servo flips once per zero crossing, never 50 steps running
FLIP_JUMP = 0.01  # a flip counts when |τ_k − τ_{k−1}| exceeds this fraction of the joint's effort (not noise at 0)
RESIDUAL_EVERY_S = 0.5  # s of simulated time between ledger checks
RESIDUAL_REL = 0.10  # |residual| / turnover above this…
RESIDUAL_GROWING = 4  # …and larger at each of this many checks running: energy the integrator makes
BURST_EVERY_S = 0.01  # s of simulated time between burst checks (the measured burst grows within 0.02–0.07 s)


@compiled
def flip_runs(tau, prev, runs, floor):
    """Advance each joint's run of consecutive sign flips by one step (in place); the longest run.
    A flip: τ and the previous τ of opposite signs with a jump above the joint's ``floor``."""
    longest = 0
    for j in range(tau.shape[0]):
        if tau[j] * prev[j] < 0.0 and abs(tau[j] - prev[j]) > floor[j]:
            runs[j] += 1
        else:
            runs[j] = 0
        if runs[j] > longest:
            longest = runs[j]
        prev[j] = tau[j]
    return longest


def servo_step_bound(M_eff: np.ndarray, kp, kd, servo: str = "explicit") -> float:
    """The largest step at which a PD servo τ = −K_p q − K_d q̇ on joints of inertia M_eff (J², the base
    free: :func:`lab.core.world.joint_space_inertia`) is stable under the engine's semi-implicit Euler
    (q̇⁺ = q̇ + h q̈, q⁺ = q + h q̇⁺), for each discretisation of :mod:`lab.controllers.servo`.

    One mode of inertia μ and gains (k_p, k_d), in x = h q̇: x⁺ = (1 − b) x − a q, q⁺ = q + x⁺, whose
    characteristic polynomial z² − (2 − a − b) z + (1 − b) has both roots in the unit circle iff
    0 < b < 2 and a + 2b < 4 (Jury). ``"explicit"``: a = k_p h²/μ, b = k_d h/μ, so
    h < (√(k_d² + 4 k_p μ) − k_d)/k_p (→ 2μ/k_d as k_p → 0). ``"stable_pd"`` (Tan 2011 as published, the
    stiffness at q + h q̇): a = k_p h²/D, b = a + k_d h/D with D = μ + h k_d — the inertia bound is gone
    but 3a + 2k_d h/D < 4 remains, h ≲ (2/3) k_d/k_p once μ ≪ h k_d (a servo with k_d/k_p = 0.5 ms, the
    unified scenarios', is stable only to ~0.54 ms). ``"implicit_damping"`` (the stiffness at this state):
    a = k_p h²/D, b = k_d h/D, so a + 2b < 4 gives h < (√(k_d² + 4 k_p μ) + k_d)/k_p — the explicit bound
    plus 2 k_d/k_p (1.26 ms for the unified servo, 101 ms for the flagship's).
    ``"implicit_pd"`` (the stiffness at the next state too, D = μ + h k_d + h² k_p): a + b < 1 at every
    h, no bound (inf). ``"implicit_p"`` (a PI speed loop, lab.papers.hu2013_tracked.controllers: the
    damping k_d = the loop's k_p at the next state, predicted from it alone; the stiffness k_p = the
    loop's k_i, its integral, at this state and left out of the prediction): a = k_p h²/μ, b = k_d h/D
    with D = μ + h k_d, so b < 1 and a + 2b < 4 holds to between √(2μ/k_p) and 2√(μ/k_p).
    With gains proportional across joints the modes decouple in the generalised eigenproblem
    K_d v = λ M_eff v and the lightest mode μ = 1/λ_max bounds the step (a and b grow as μ falls);
    non-proportional gains take k_p at its largest ratio to k_d (a conservative estimate).
    Returns inf when no joint has damping or stiffness."""
    if servo == "implicit_pd":
        return math.inf
    n = M_eff.shape[0]
    kp_v = np.broadcast_to(np.asarray(kp, float), (n,)).copy()
    kd_v = np.broadcast_to(np.asarray(kd, float), (n,)).copy()
    on = (kd_v > 0) | (kp_v > 0)
    if n == 0 or not on.any():
        return math.inf
    # the driven joints' block with the undriven ones free (zero gains: they only lend their inertia)
    Minv = np.linalg.inv(M_eff)[np.ix_(on, on)]
    kp_v, kd_v = kp_v[on], kd_v[on]
    if not (kd_v > 0).all():  # some joints without damping: each mode by its stiffness alone (a < 4)
        s = np.sqrt(kp_v)
        lam = float(np.linalg.eigvalsh(s[:, None] * Minv * s[None, :]).max())
        return (math.sqrt(4.0 / 3.0) if servo == "stable_pd" else 2.0) / math.sqrt(lam)  # a < 4 (Tan: 3a < 4)
    kp_m = float((kp_v / kd_v).max())  # the mode in units where its k_d is 1 and its k_p is this ratio
    s = np.sqrt(kd_v)
    mu = 1.0 / float(np.linalg.eigvalsh(s[:, None] * Minv * s[None, :]).max())  # 1/λ_max(K_d^½ M⁻¹ K_d^½)
    if servo == "explicit":
        return 2.0 * mu if kp_m <= 0 else (math.sqrt(1.0 + 4.0 * kp_m * mu) - 1.0) / kp_m
    if servo not in ("stable_pd", "implicit_damping", "implicit_p"):
        raise ValueError("servo: must be one of explicit, implicit_damping, stable_pd, implicit_pd, implicit_p; "
                         f"got {servo!r}")
    if kp_m <= 0:
        return math.inf
    if servo == "implicit_damping":  # k_p h² + 2 k_d h < 4(μ + k_d h): the explicit bound plus 2 k_d/k_p
        return (math.sqrt(1.0 + 4.0 * kp_m * mu) + 1.0) / kp_m

    def stable(h: float) -> bool:
        D = mu + h
        if servo == "implicit_p":  # the stiffness explicit on μ, the damping at the next state
            a = kp_m * h * h / mu
            b = h / D
        else:  # Tan's form: a = k_p h²/D, b = a + k_d h/D
            a = kp_m * h * h / D
            b = a + h / D
        return a + 2.0 * b < 4.0 and b < 2.0

    lo, hi = 0.0, 1.0 / kp_m  # a bracket: doubled until unstable (a grows without bound with h)
    while stable(hi):
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
        if hi - lo <= 1e-12 * hi:
            break
    return lo


def line_step_bound(M_eff: np.ndarray, stall_torque, no_load_speed) -> float:
    """The largest step at which the motors' torque–speed lines, clipped explicitly (lab.core.actuators: on its
    sloped part a line is the damper τ = τ_s − D q̇ with D = τ_s/ω_0), are stable on the joints' coupled
    inertia M_eff (J², the base free): :func:`servo_step_bound` with k_p = 0 and k_d = D, i.e. 2μ/D on the
    lightest mode (h < 2μ/D, semi-implicit Euler). Sufficient, not necessary: the line only damps the joints
    that sit on it. inf when no joint has a finite line (the lines taken implicitly have no bound)."""
    s = np.asarray(stall_torque, float)
    w0 = np.asarray(no_load_speed, float)
    on = np.isfinite(s) & np.isfinite(w0) & (w0 > 0)
    D = np.divide(s, w0, out=np.zeros(np.broadcast(s, w0).shape), where=on)
    return servo_step_bound(M_eff, 0.0, D, "explicit")


class InstabilityWatch(Observer):
    """The run-time check of the module docstring, an observer of the run loop (every Simulation runs one
    first). ``step_bound()`` (optional) returns the largest step at which the servo would hold, or None when it
    cannot be computed; ``line_bound()`` (optional) likewise for the motors' lines clipped explicitly
    (:func:`line_step_bound`): a ledger burst reports the smaller of the two, since either can make it (the
    measured one was the lines); ``ledger``: the run's energy ledger (anything with ``balance(E)``), or None."""

    def __init__(self, dt: float, effort: np.ndarray, step_bound=None, ledger=None, line_bound=None):
        self.dt = float(dt)
        e = np.asarray(effort, float)
        self.floor = FLIP_JUMP * np.where(np.isfinite(e) & (e > 0), e, np.inf)
        self.step_bound = step_bound
        self.line_bound = line_bound
        self.ledger = ledger
        self.prev = np.zeros(len(e))
        self.runs = np.zeros(len(e), np.int64)
        self.every = max(1, int(round(RESIDUAL_EVERY_S / self.dt)))
        self.rel_history: list[float] = []
        self.burst_every = max(1, int(round(BURST_EVERY_S / self.dt)))
        self.burst_rel = TOL["instability.burst_rel"].value
        self.burst_floor = TOL["instability.burst_floor_J"].value
        self.burst_prev = 0.0  # the residual at the previous burst check [J]
        self.burst_prev_rel = 0.0  # …and its ratio to the turnover
        self.burst_peak = 0.0  # the largest sustained made-energy ratio seen (benchmarks/ledger_burst.py reads it)

    def on_start(self, run, state) -> None:
        self.prev[:] = 0.0
        self.runs[:] = 0
        self.rel_history = []
        self.burst_prev = self.burst_prev_rel = 0.0
        self.burst_peak = 0.0

    def on_step(self, k, pre, tau, parts, post):
        """After step ``k``, which applied the joint torques ``tau`` (J,) and led from ``pre`` to ``post``."""
        if tau is not None and tau.size and flip_runs(tau, self.prev, self.runs, self.floor) >= FLIP_STEPS:
            j = int(np.argmax(self.runs))
            self.fail(post.t, f"joint {j}'s torque changed sign on each of the last {FLIP_STEPS} steps "
                              f"(|τ| = {abs(float(tau[j])):.3g} N·m): an explicit term beyond its stability bound")
        burst, slow = (k + 1) % self.burst_every == 0, (k + 1) % self.every == 0
        if not (burst or slow):
            return None
        bal = getattr(self.ledger, "balance", None)
        if bal is None:
            return None
        b = bal(post.kinetic_energy)
        made, rel_made = float(b["residual_J"]), float(b["residual_rel"])
        if burst and "contact_work_J" not in b:
            # (not where the ledger meters the engine's contacts, the tracked robots: there the engine's
            # depenetration makes energy no channel books, a body started against the riser 39.7 J in 0.03 s,
            # which is the start's geometry, not a term beyond its step; tests/tools/test_sweep.py)
            # against everything the ledger booked: the joints' work, the force laws' (a law that drives the
            # robot, a user's wind, turns over more than the joints: examples/custom_force.py), gravity's and
            # the contacts' where metered
            turnover = (abs(float(b.get("work_in_abs_J", 0.0))) + abs(float(b.get("dissipated_J", 0.0)))
                        + abs(float(b.get("gravity_work_J", 0.0))) + abs(float(b.get("contact_work_J", 0.0))))
            rel_made = made / turnover if turnover > 0 else (float(b["residual_rel"]) if "work_in_abs_J" not in b
                                                              else 0.0)
            # sustained: above the bar at two checks running, the made energy larger at the second (a one-step
            # spike the engine takes back at the next step, as a contact event on the flagship at 0.34 s, is not)
            # (and above an absolute floor: a robot held at rest books ~1e-8 J, whose rounding is then ~99 % of
            # its turnover; tests/tools/test_sweep_cluster.py's hold)
            sustained = (min(rel_made, self.burst_prev_rel)
                         if made > self.burst_prev > 0.0 and made > self.burst_floor else 0.0)
            self.burst_prev, self.burst_prev_rel = made, rel_made
            if sustained > self.burst_peak:
                self.burst_peak = sustained
            if sustained > self.burst_rel:
                self.fail(post.t, f"the energy ledger's residual grew to {made:.3g} J made by no input "
                                  f"({rel_made:.1%} of the work booked; above {self.burst_rel:.0%} at two checks "
                                  f"{BURST_EVERY_S:g} s apart): an explicit term beyond its stability bound (the "
                                  "motors' torque–speed lines clipped explicitly, the servo)", lines=True)
        if slow:
            rel = abs(float(b["residual_rel"]))
            h = self.rel_history
            h.append(rel)
            if rel > RESIDUAL_REL and len(h) > RESIDUAL_GROWING and all(
                    h[-i] > h[-i - 1] for i in range(1, RESIDUAL_GROWING + 1)):
                self.fail(post.t, f"the energy ledger's residual is {rel:.1%} of the work booked and has grown at "
                                  f"each of the last {RESIDUAL_GROWING} checks ({RESIDUAL_EVERY_S:g} s apart)")
        return None

    def fail(self, t: float, cause: str, lines: bool = False):
        bounds = []
        for f in (self.step_bound, self.line_bound if lines else None):
            if f is None:
                continue
            try:
                b = f()
            except Exception:  # the message must not hide the instability behind a second error
                b = None
            if b is not None and math.isfinite(b):
                bounds.append(b)
        bound = min(bounds) if bounds else None
        raise Unstable(t, cause, self.dt, bound if bound is not None and math.isfinite(bound) else None)


__all__ = ["InstabilityWatch", "BURST_EVERY_S", "FLIP_STEPS", "FLIP_JUMP", "RESIDUAL_REL", "line_step_bound",
           "servo_step_bound"]
