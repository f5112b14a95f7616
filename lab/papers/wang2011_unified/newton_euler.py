"""A Newton–Euler model of Wang 2011's snake, written apart from :mod:`.model` (no POE, no metric, no
Christoffel symbols): the paper's comparison partner for the unified dynamics (§5, the error table
under Fig 5, "unified vs Newton–Euler").

Plain planar geometry: module i's yaw θ_i = x³ + Σ_{k=4}^{i} x^k, the joint points walked from the tail
end (x¹, x²) in steps of L, each centre of mass L/2 ahead of its rear joint. The forward pass gives every
COM's acceleration; the backward pass (head to tail) gives each joint's force and torque from Newton's
and Euler's laws on one module at a time. The friction is the paper's anisotropic Coulomb law (eqs.
18–19, §5 assumption 2) with the sign regularised as tanh(v/v_s), written here again from the module's
axis and its COM velocity (the same law as the engine's, lab.forces.friction.AnisotropicCoulomb).

* :func:`inverse_dynamics` — (F_x, F_y, τ³, τ⁴ … τⁿ) at (x, ẋ, ẍ): the virtual joints' force and torque
  (zero on a free snake's trajectory; the weld reaction when the tail is fixed) and the joint torques;
* :func:`base_acceleration` — the free snake's base acceleration for given joint accelerations: the
  inverse dynamics is affine in (ẍ¹, ẍ², ẍ³), so four evaluations give the 3 × 3 system;
* :func:`simulate` — the free snake on a prescribed gait integrated with these equations (its own plant).

Coordinates and numbering are the paper's (params.py): x = (x¹, x², x³, x⁴ … xⁿ), n = n_modules + 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.papers.wang2011_unified.params import Wang2011Params


def _cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def friction_at_coms(p: Wang2011Params, th: np.ndarray, v_c: np.ndarray) -> np.ndarray:
    """(n_modules, 2) friction on every module at its COM: −μ m g tanh(v/v_s) along the module's axis
    (μ_t) and across it (μ_n); the head module carries none when ``p.head_exempt``."""
    e = np.stack([np.cos(th), np.sin(th)], 1)
    en = np.stack([-np.sin(th), np.cos(th)], 1)
    vt = np.einsum("ia,ia->i", v_c, e)
    vn = np.einsum("ia,ia->i", v_c, en)
    w = p.m * p.g * np.ones(len(th))
    if p.head_exempt:
        w[-1] = 0.0
    return -(p.mu_t * w * np.tanh(vt / p.v_s))[:, None] * e - (p.mu_n * w * np.tanh(vn / p.v_s))[:, None] * en


def inverse_dynamics(p: Wang2011Params, x, xd, xdd, friction: bool = True) -> np.ndarray:
    """(n,): [F_x, F_y, τ³, τ⁴ … τⁿ] by a recursive Newton–Euler pass. τ^k acts +τ on module k−3 and −τ
    on its parent; F is the force the tail end's virtual joint applies to the tail module."""
    x, xd, xdd = (np.asarray(a, dtype=float) for a in (x, xd, xdd))
    nm, L, m, I = p.n_modules, p.L, p.m, p.I
    th = x[2] + np.concatenate([[0.0], np.cumsum(x[3:])])
    w = xd[2] + np.concatenate([[0.0], np.cumsum(xd[3:])])
    al = xdd[2] + np.concatenate([[0.0], np.cumsum(xdd[3:])])
    e = np.stack([np.cos(th), np.sin(th)], 1)
    en = np.stack([-np.sin(th), np.cos(th)], 1)
    # forward: joint points r_k, their velocities and accelerations; COMs half a module ahead
    r = np.empty((nm + 1, 2))
    v_r = np.empty((nm + 1, 2))
    a_r = np.empty((nm + 1, 2))
    r[0], v_r[0], a_r[0] = x[:2], xd[:2], xdd[:2]
    for k in range(nm):
        r[k + 1] = r[k] + L * e[k]
        v_r[k + 1] = v_r[k] + L * w[k] * en[k]
        a_r[k + 1] = a_r[k] + L * (al[k] * en[k] - w[k] ** 2 * e[k])
    b = r[:-1] + 0.5 * L * e
    v_c = v_r[:-1] + 0.5 * L * w[:, None] * en
    a_c = a_r[:-1] + 0.5 * L * (al[:, None] * en - (w ** 2)[:, None] * e)
    f = friction_at_coms(p, th, v_c) if friction else np.zeros((nm, 2))
    # backward: F_k is module k−1's force on module k at joint point r_k, T_k the torque
    F_next, T_next = np.zeros(2), 0.0
    T = np.empty(nm)
    for k in range(nm - 1, -1, -1):
        F = m * a_c[k] - f[k] + F_next
        T[k] = I * al[k] + T_next - _cross(r[k] - b[k], F) + _cross(r[k + 1] - b[k], F_next)
        F_next, T_next = F, T[k]
    return np.concatenate([F_next, T])


def base_acceleration(p: Wang2011Params, x, xd, qdd) -> np.ndarray:
    """(ẍ¹, ẍ², ẍ³) of the free snake (no force or torque at the tail end's virtual joints) for joint
    accelerations ``qdd``: solves the affine map a ↦ rows 1–3 of :func:`inverse_dynamics`."""
    def rows(a):
        return inverse_dynamics(p, x, xd, np.concatenate([a, qdd]))[:3]

    r0 = rows(np.zeros(3))
    A = np.column_stack([rows(np.eye(3)[i]) - r0 for i in range(3)])
    return np.linalg.solve(A, -r0)


@dataclass
class NERun:
    """A free-snake run of the Newton–Euler plant sampled at t: x, ẋ, ẍ (len(t), n), joint torques
    (len(t), n − 3)."""

    t: np.ndarray
    x: np.ndarray
    xd: np.ndarray
    xdd: np.ndarray
    tau: np.ndarray
    nfev: int = 0

    @property
    def tail_W(self) -> np.ndarray:
        return self.x[:, :2]


def simulate(p: Wang2011Params, gait, t_eval: np.ndarray, y0, rtol: float = 1e-8, atol: float = 1e-10,
             method: str = "LSODA") -> NERun:
    """The free snake with its joints on ``gait(t) -> (q, q̇, q̈)`` integrated with the Newton–Euler
    equations: state y = (x¹, x², x³, ẋ¹, ẋ², ẋ³), the base acceleration from :func:`base_acceleration`.
    ``y0``: the base's start (6,)."""

    def full(t, y):
        q, qd, qdd = gait(t)
        x = np.concatenate([y[:3], q])
        xd = np.concatenate([y[3:], qd])
        return x, xd, qdd

    def rhs(t, y):
        x, xd, qdd = full(t, y)
        return np.concatenate([y[3:], base_acceleration(p, x, xd, qdd)])

    t_eval = np.asarray(t_eval, dtype=float)
    from scipy.integrate import solve_ivp  # deferred: importing scipy.integrate costs ~0.3 s
    sol = solve_ivp(rhs, (float(t_eval[0]), float(t_eval[-1])), np.asarray(y0, dtype=float), method=method,
                    t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"newton_euler.simulate: solve_ivp failed: {sol.message}")
    X, XD, XDD, TAU = [], [], [], []
    for t, y in zip(sol.t, sol.y.T):
        x, xd, qdd = full(t, y)
        xdd = np.concatenate([base_acceleration(p, x, xd, qdd), qdd])
        X.append(x)
        XD.append(xd)
        XDD.append(xdd)
        TAU.append(inverse_dynamics(p, x, xd, xdd)[3:])
    return NERun(sol.t, np.array(X), np.array(XD), np.array(XDD), np.array(TAU), int(sol.nfev))


def torques_along(p: Wang2011Params, x, xd, xdd) -> np.ndarray:
    """(K, n − 3): the Newton–Euler joint torques at every sample of a trajectory (K, n)."""
    return np.array([inverse_dynamics(p, a, b, c)[3:] for a, b, c in zip(x, xd, xdd)])


def tail_start(sc) -> np.ndarray:
    """The base's start (x¹, x², x³, 0, 0, 0) of a scenario: the tail end behind the tail module's centre."""
    x0, y0 = sc.init.position
    h = math.radians(sc.init.heading_deg)
    return np.array([x0 - 0.5 * sc.robot.module_length * math.cos(h), y0 - 0.5 * sc.robot.module_length * math.sin(h),
                     h, 0.0, 0.0, 0.0])


__all__ = ["NERun", "base_acceleration", "friction_at_coms", "inverse_dynamics", "simulate", "tail_start",
           "torques_along"]
