"""The paper's model plus the one mass property of the engine robot it has no place for: the wheels'
spin inertia (a diagnostic for the engine-vs-model comparison; pybullet-free).

Each module carries two wheels of spin inertia I_s and radius r at ±w across its centre. Rolling
without slip, they turn at (s_i ± w θ̇_i)/r, s_i = t_i · Ċ_i the centre's speed along the module's axis,
so they add T_w = (I_s/r²) Σ_i (s_i² + w² θ̇_i²). The rolling conditions are nonholonomic, so T_w may
not simply be added to the Lagrangian and differentiated; with the wheel angles ψ as coordinates and
the rolling conditions as constraints, the wheels' equations I_s ψ̈ = (constraint force)·r eliminate
to the generalised force −m_a Σ_i a_iᵀ ṡ_i − J_a Σ_i Θ_iᵀ θ̈_i, with a_i = t_iᵀ ∂C_i/∂q, Θ_i = ∂θ_i/∂q,
m_a = 2 I_s/r² and J_a = m_a w². With ṡ_i = a_i q̈ + t_i · (J̇_i q̇) (the term θ̇_i n_i · Ċ_i vanishes on the
lateral constraint), the constrained E–L equations of lab.papers.guo2015_wheeled.model become

    (M + m_a Σ a_iᵀ a_i + J_a ΘᵀΘ) q̈ + h + m_a Σ a_iᵀ (t_i · J̇_i q̇) = B u + Aᵀ λ,   A q̈ + Ȧ q̇ = 0.

So the wheels make a module heavier by m_a along its own axis only, and add J_a to its yaw inertia.
With m_a = J_a = 0 this is the paper's model (tested), and with u = 0 it conserves ½ q̇ᵀ M' q̇, the
bodies' and the wheels' kinetic energy together (tested).
"""

from __future__ import annotations

import time

import numpy as np

from lab.papers.guo2015_wheeled import model as gw
from lab.papers.guo2015_wheeled.params import Guo2015Params


def wheel_terms(spec) -> tuple[float, float]:
    """(m_a, J_a) of a :class:`~lab.robots.wheeled_snake.WheeledSnakeSpec`: 2 I_s / r² and m_a (track/2)²."""
    I_s = spec.wheel_mass_props().inertia[1, 1]
    m_a = 2.0 * I_s / spec.wheel_radius**2
    return m_a, m_a * (0.5 * spec.wheel_track) ** 2


def mass_matrix(p: Guo2015Params, q: np.ndarray, m_a: float, J_a: float) -> np.ndarray:
    """M' = M + m_a Σ a_iᵀ a_i + J_a ΘᵀΘ: T (bodies and wheels) = ½ q̇ᵀ M' q̇."""
    th, Jx, Jy = gw._jacobians(p, q)
    a = np.cos(th)[:, None] * Jx + np.sin(th)[:, None] * Jy
    T = gw._chain(p.n, p.l).T
    M = gw.mass_matrix(p, q) + m_a * a.T @ a
    M[2:, 2:] += J_a * (T.T @ T)
    return M


def accelerations(p: Guo2015Params, q: np.ndarray, qd: np.ndarray, u: np.ndarray, m_a: float,
                  J_a: float) -> np.ndarray:
    """q̈ of the model with the wheels' spin inertia (KKT), for an admissible (q, q̇)."""
    n = p.n
    M, h, A, Adq = gw.el_terms(p, q, qd)
    ch = gw._chain(n, p.l)
    th, Jx, Jy = gw._jacobians(p, q)
    s, c = np.sin(th), np.cos(th)
    a = c[:, None] * Jx + s[:, None] * Jy  # rows a_i = t_i · ∂C_i/∂q
    thd = ch.T @ qd[2:]
    ax = -ch.Cw @ (thd * thd * c)  # velocity-product part of C̈_i (as in gw.el_terms)
    ay = -ch.Cw @ (thd * thd * s)
    M = M + m_a * a.T @ a
    M[2:, 2:] += J_a * (ch.T.T @ ch.T)
    h = h + m_a * a.T @ (c * ax + s * ay)
    K = np.zeros((2 * n + 2, 2 * n + 2))
    K[: n + 2, : n + 2] = M
    K[: n + 2, n + 2 :] = A.T
    K[n + 2 :, : n + 2] = A
    Q = -h
    Q[3:] += u
    return np.linalg.solve(K, np.concatenate((Q, -Adq)))[: n + 2]


def simulate_pfl(p: Guo2015Params, t_end: float, m_a: float, J_a: float, *, dt_out: float = 0.05,
                 rtol: float = 1e-8, atol: float = 1e-10) -> gw.PFLRun:
    """The PFL closed loop (the paper's law, which knows nothing of the wheels) on this plant, from
    ``p``'s q0 at rest: what the engine would do if its wheels differed from the paper's only in
    their spin inertia."""
    n = p.n

    def torque(t, q, r_dot):
        return gw.pfl_torque(p, q, r_dot, t)

    def rhs(t, y):
        q, qd = y[: n + 2], y[n + 2 :]
        return np.concatenate((qd, accelerations(p, q, qd, torque(t, q, qd[:2]), m_a, J_a)))

    q0 = p.q0()
    y0 = np.concatenate((q0, gw.qdot_from_head_velocity(p, q0, np.asarray(p.v0) / p.sqrt_nm)))
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    t0 = time.perf_counter()
    from scipy.integrate import solve_ivp  # deferred: importing scipy.integrate costs ~0.3 s
    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", t_eval=t_eval, rtol=rtol, atol=atol)
    wall = time.perf_counter() - t0
    if not sol.success:
        raise RuntimeError(f"wheel-inertia plant: solve_ivp failed: {sol.message}")
    q, qd = sol.y[: n + 2].T, sol.y[n + 2 :].T
    u = np.array([torque(t, qq, v[:2]) for t, qq, v in zip(sol.t, q, qd)])
    r_ref = np.array([p.reference(t)[0] for t in sol.t])
    return gw.PFLRun(t=sol.t, q=q, r=q[:, :2].copy(), r_dot=qd[:, :2].copy(), r_ref=r_ref, u=u,
                     plant="el+wheel inertia", nfev=int(sol.nfev), wall_s=wall)


__all__ = ["accelerations", "mass_matrix", "simulate_pfl", "wheel_terms"]
