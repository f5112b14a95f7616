"""Joint PD servos: explicit, with implicit damping, Stable PD (Tan, Liu and Turk 2011) and fully implicit.
Their step bounds are :func:`lab.core.instability.servo_step_bound` (the loader and the run-time watch
read it).

The continuous-time law is one: τ = K_p (q_ref − q) + K_d (q̇_ref − q̇). The forms evaluate its two terms
at states of the engine's semi-implicit Euler step (q̇⁺ = q̇ + h q̈, q⁺ = q + h q̇⁺):

    explicit          τ = K_p (q_ref(t) − q) + K_d (q̇_ref(t) − q̇)
    implicit_damping  τ = K_p (q_ref(t) − q) + K_d (q̇_ref(t+h) − q̇⁺)          (the damping at the next state)
                      (M + h K_d) q̈ = −C + K_p (q_ref(t) − q) + K_d (q̇_ref(t+h) − q̇)
    stable_pd         τ = K_p (q_ref(t+h) − q − h q̇) + K_d (q̇_ref(t+h) − q̇ − h q̈)       (Tan 2011, eq. 6)
                      (M + h K_d) q̈ = −C + K_p (q_ref(t+h) − q − h q̇) + K_d (q̇_ref(t+h) − q̇) (eq. 7)
    implicit_pd       τ = K_p (q_ref(t+h) − q⁺) + K_d (q̇_ref(t+h) − q̇⁺)
                      (M + h K_d + h² K_p) q̈ = −C + K_p (q_ref(t+h) − q − h q̇) + K_d (q̇_ref(t+h) − q̇)

with M the engine's mass matrix (:meth:`lab.core.world.World.mass_matrix`, in the snapshot as
``RobotState.M``). For a floating base the gains act on the joint rows only; the base rows have zero
gain but their coupling stays in M, so the prediction is the joints' with the base free. The bias C
(Coriolis, gravity) and the external forces are left out of the prediction: they change q̈ by a
bounded amount, i.e. τ by O(h), so the limit h → 0 is the explicit law in every form
(tests/library/test_servo.py measures first order).

Stability and accuracy on one mode of inertia μ (servo_step_bound has the algebra). The explicit form
needs h < 2μ/k_d. Taking the damping at the next state removes that inertia bound and leaves
h ≲ 2 k_d/k_p (the stiffness still explicit: 100 ms for the flagship's serpenoid, ~1.2 ms for the
unified scenarios' k_d/k_p = 0.5 ms); it keeps the explicit form's damping of the slow modes (the same
scheme as MuJoCo's Euler integrator with implicit joint damping). Tan's q + h q̇ adds an artificial
damping k_p h and keeps h ≲ (2/3) k_d/k_p; the fully implicit form is stable at every step but adds
the same k_p h (on the unified scenarios' welded swing mode, ζ = 0.025, that is +20 % damping at
0.1 ms: its input work then moves 5 % per halving of the step). A prediction with an inertia below the
true one stays stable (the damping factor 1 − h k_d M/((M + h k_d) J) stays positive), which covers
the gear constraints M leaves out — but it weakens the servo, which is why the snapshot's M carries
the inertia a spec's gears add (World.load_spec).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from lab.core.fields import choice
from lab.core.kernels import compiled

SERVOS = ("explicit", "implicit_damping", "stable_pd", "implicit_pd")
Servo = Literal["explicit", "implicit_damping", "stable_pd", "implicit_pd"]
FORM = {"implicit_damping": 0, "stable_pd": 1, "implicit_pd": 2}  # the compiled kernels' codes


def angle_error(servo: str, q_ref_now, q_ref_next, q, qd, h: float):
    """The angle error the stiffness term sees in each form: q_ref(t) − q (``implicit_damping``: this state)
    or q_ref(t+h) − q − h q̇ (``stable_pd``, ``implicit_pd``: Tan's predicted position; the implicit form
    then adds h² K_p to the prediction's matrix, which puts it at q⁺)."""
    return q_ref_now - q if servo == "implicit_damping" else q_ref_next - q - h * qd


def servo_field(default: str = "implicit_damping"):
    """The ``servo`` field every PD-servoed controller declares (one wording for the docs and the schema)."""
    return choice(default, doc="how the PD law is stepped (lab.controllers.servo): 'implicit_damping' the damping at "
                               "the next state of the engine's step (its mass matrix), stable to ~2 k_d/k_p; "
                               "'implicit_pd' both terms there, stable at any step (adds damping k_p·h); 'stable_pd' "
                               "as Tan 2011; 'explicit' at this state (the earlier results). The loader refuses a "
                               "step beyond the form's bound")


def stable_pd(M: np.ndarray, kp, kd, e_next: np.ndarray, ed: np.ndarray, h: float,
              implicit: bool = False) -> np.ndarray:
    """Stable PD torques (J,) on the joints (Tan, Liu and Turk 2011, eqs. 6–7; ``implicit``: h² K_p in the
    prediction too, the stiffness at the next state; C and external forces left out of the prediction: see
    the module docstring).

    ``M``: the engine's mass matrix ((6 + J)² floating base, base rows first, or J²); ``kp``, ``kd``:
    gains (scalars or (J,), zero on a joint the servo does not drive); ``e_next``: the angle error the
    stiffness sees (:func:`angle_error`: q_ref(t+h) − q − h q̇, or q_ref(t) − q for ``implicit_damping``)
    and ``ed`` = q̇_ref(t+h) − q̇ (J,); ``h`` the engine step. One compiled call (:func:`spd_torques`;
    its numpy oracle: tests/oracles/servo.py)."""
    n = e_next.shape[0]
    return spd_torques(M, np.broadcast_to(np.asarray(kp, float), (n,)), np.broadcast_to(np.asarray(kd, float), (n,)),
                       np.asarray(e_next, float), np.asarray(ed, float), float(h), bool(implicit))


def predict_qdd(M: np.ndarray, k, pd: np.ndarray, h: float) -> np.ndarray:
    """q̈ (J,) from (M + h K) q̈ = pd on the joint rows, the base rows (if any) free with no force:
    Stable PD's prediction (Tan 2011, eq. 7) with ``pd`` the PD law's output at the predicted state and
    K = K_d (``stable_pd``) or K_d + h K_p (``implicit_pd``). One compiled call (:func:`spd_solve`)."""
    n = pd.shape[0]
    qdd = np.empty(n)
    spd_solve(M, h * np.broadcast_to(np.asarray(k, float), (n,)), np.asarray(pd, float), qdd)
    return qdd


@compiled
def spd_solve(M, gain, pd, qdd):
    """qdd (J,) ← the joint rows of x with (M + diag(0…0, gain)) x = (0…0, pd): M's base rows (the first
    len(M) − J) get no gain and no force. Cholesky in a scratch copy (M + gain is symmetric positive
    definite): ~1 µs for the 10-link snake's 15 × 15, against ~10 µs for numpy's solve and its copies."""
    N = M.shape[0]
    n = pd.shape[0]
    nb = N - n
    L = M.copy()
    for j in range(n):
        L[nb + j, nb + j] += gain[j]
    for i in range(N):
        for k in range(i + 1):
            s = L[i, k]
            for p in range(k):
                s -= L[i, p] * L[k, p]
            if i == k:
                L[i, i] = math.sqrt(s)
            else:
                L[i, k] = s / L[k, k]
    y = np.zeros(N)
    for i in range(N):
        s = pd[i - nb] if i >= nb else 0.0
        for p in range(i):
            s -= L[i, p] * y[p]
        y[i] = s / L[i, i]
    for i in range(N - 1, -1, -1):
        s = y[i]
        for p in range(i + 1, N):
            s -= L[p, i] * y[p]
        y[i] = s / L[i, i]
    for j in range(n):
        qdd[j] = y[nb + j]


@compiled
def spd_torques(M, kp, kd, e_next, ed, h, implicit):
    """τ = pd − g q̈ with pd = K_p e_next + K_d ė, g = h K_d (+ h² K_p if ``implicit``) and (M + g) q̈ = pd
    (:func:`spd_solve`): the law of :func:`stable_pd` in one compiled call."""
    n = e_next.shape[0]
    pd = np.empty(n)
    g = np.empty(n)
    for j in range(n):
        pd[j] = kp[j] * e_next[j] + kd[j] * ed[j]
        g[j] = h * kd[j] + (h * h * kp[j] if implicit else 0.0)
    qdd = np.empty(n)
    spd_solve(M, g, pd, qdd)
    tau = np.empty(n)
    for j in range(n):
        tau[j] = pd[j] - g[j] * qdd[j]
    return tau


__all__ = ["FORM", "SERVOS", "Servo", "angle_error", "predict_qdd", "servo_field", "spd_solve", "spd_torques", "stable_pd"]
