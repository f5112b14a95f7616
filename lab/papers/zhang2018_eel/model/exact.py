"""Exact (inertial-frame) model of the planar underwater eel: Kelasidi et al. 2014, as used by Zhang 2018
(eqs. 20–21), in the 2n+4 state form.

State ``y = [φ (n−1), θ0, p_x, p_y, φ̇ (n−1), θ̇0, ṗ_x, ṗ_y]`` — the non-inertial model's coordinates
except that the CM velocity is in the world frame. Conventions of :mod:`lab.papers.zhang2018_eel.model.params`
(tail = link 1, φ_i = θ_i − θ_{i+1}, l = half a link).

Derivation (ours; it reproduces eqs. 20–21 without their typos)
----------------------------------------------------------------
Link COMs X = −l Kᵀcos θ + e p_x, Y = −l Kᵀsin θ + e p_y, so with G_x = l Kᵀ S_θ, G_y = −l Kᵀ C_θ:
Ẍ = G_x θ̈ + e p̈_x + l Kᵀ C_θ θ̇², Ÿ = G_y θ̈ + e p̈_y + l Kᵀ S_θ θ̇².
Per link, m a_i = f_i + (joint forces), with the fluid force
f_i = f_D,i − u_n n_i (n_i·a_i + θ̇_i t_i·V_c)  (Kelasidi 2014's added mass, normal only, u_t = 0;
eq. 24; the current term vanishes for the paper's still water), t_i = (cos θ_i, sin θ_i),
n_i = (−sin θ_i, cos θ_i), and the drag f_D,i of eq. 22 in the link frame (signs: eq. 22 prints "+",
drag opposes motion). Eliminating the joint forces (Liljebäck's route, h = (DDᵀ)⁻¹D(mẌ − f)) gives
the torque balance

    (J + λ1) θ̈ + l S_θ K r_x − l C_θ K r_y + λ2 θ̇ + λ3 θ̇|θ̇| = Dᵀu,   r = M_e,i a_i − f_D,i − f_C,i

with M_e,i = m I + u_n n_i n_iᵀ, and the CM equation Σ r_i = 0 (eq. 20: n m p̈ = Σ f). Since
[l S K; eᵀ] is the transpose of ∂X/∂(θ, p), the assembled system is M(q) q̈ = Q − h with
M = diag(J+λ1, 0, 0) + Jᵀ M_e J symmetric — the Lagrangian mass matrix of T = Σ ½ m|v_i|² +
½ u_n (n_i·v_i)² + ½ (J+λ1) θ̇_i², which ``tests/papers/zhang2018_eel/test_eel_models.py`` checks against a loop-based
forward kinematics differentiated numerically. The velocity terms are Kelasidi's, not Lagrange's: the
Munk moment of the ideal-fluid added mass is absent (DESIGN.md: such added mass is not energy
conserving; it is a channel of its own in any energy balance).

Typos in eqs. 20–21 as printed: "W_θ θ̇0" is W_θ θ̇²; W_θ = m l²(S V C − C V S) (printed "+");
A_2 = S K S C + C K C² (eq. 21 prints S K S C + C K Cᵀ; eq. 33 has it right); K_Dx, K_Dy carry u_n l,
not u_n l² (dimensions). The assembled linear solve above replaces the closed-form m11…m22 elimination,
so none of those coefficients is needed here; the non-inertial model uses them.

Generalised coordinates q = [φ, θ0, p_x, p_y]: θ = W_c [φ; θ0], so M_q = Tᵀ M T with T = diag(W_c, I₂),
and the input enters as [u; 0; 0; 0] because W_cᵀ Dᵀ = [I; 0] (D W_c = [I, 0]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.papers.zhang2018_eel.model.params import EelParams


@dataclass
class ModelRun:
    """A model trajectory sampled at ``t``: the state, and derived signals."""

    t: np.ndarray
    y: np.ndarray  # (len(t), 2n+4)
    theta0: np.ndarray
    p: np.ndarray  # (len(t), 2) CM in the world frame
    v: np.ndarray  # (len(t), 2) CM velocity in the world frame
    u: np.ndarray  # (len(t), n−1) joint inputs (paper convention)
    phi: np.ndarray  # (len(t), n−1)
    nfev: int = 0
    wall_s: float = 0.0


class ExactModel:
    """Kelasidi 2014 / Zhang 2018 eqs. 20–21 as a ``solve_ivp`` system. ``controller`` is any object with
    ``model_torque(t, phi, phid, M, h) -> u`` (e.g. :class:`lab.papers.zhang2018_eel.controllers.EelFeedbackLinearization`),
    or None for u = 0."""

    name = "exact"

    def __init__(self, params: EelParams, controller=None):
        self.p = params
        self.controller = controller
        n = params.n
        mats = params.mats
        self.n = n
        self.KT = np.asarray(mats.KT)
        self.K = np.asarray(mats.K)
        self.D = np.asarray(mats.D)
        self.Wc = np.asarray(mats.W_c)
        self.T = np.zeros((n + 2, n + 2))
        self.T[:n, :n] = self.Wc
        self.T[n:, n:] = np.eye(2)
        self._diag = np.zeros(n + 2)
        self._diag[:n] = params.J + params.lambda1
        # Jacobian blocks of X, Y with respect to [θ, p_x, p_y]: the p columns are constant.
        self._Jx = np.zeros((n, n + 2))
        self._Jy = np.zeros((n, n + 2))
        self._Jx[:, n] = 1.0
        self._Jy[:, n + 1] = 1.0

    # -------------------------------------------------------------- pieces
    def split(self, y: np.ndarray):
        n = self.n
        phi, th0, p = y[: n - 1], y[n - 1], y[n : n + 2]
        phid, thd0, pd = y[n + 2 : 2 * n + 1], y[2 * n + 1], y[2 * n + 2 : 2 * n + 4]
        return phi, th0, p, phid, thd0, pd

    def link_velocities(self, theta, thetad, pd):
        """(Ẋ, Ẏ): link COM velocities in the world frame."""
        l = self.p.l
        return l * (self.KT @ (np.sin(theta) * thetad)) + pd[0], -l * (self.KT @ (np.cos(theta) * thetad)) + pd[1]

    def fluid_forces(self, theta, thetad, Xd, Yd):
        """Known (acceleration-free) fluid forces per link in the world frame: drag (eq. 22, linear and
        element-wise quadratic in the link frame, relative to the current) plus Kelasidi's current term
        of the added mass."""
        P = self.p
        s, c = np.sin(theta), np.cos(theta)
        vx, vy = Xd - P.current[0], Yd - P.current[1]
        vt = c * vx + s * vy
        vn = -s * vx + c * vy
        ft = -P.c_t * vt - P.c_t2 * np.abs(vt) * vt
        fn = -P.c_n * vn - P.c_n2 * np.abs(vn) * vn
        fx = c * ft - s * fn
        fy = s * ft + c * fn
        if P.current[0] or P.current[1]:
            tV = c * P.current[0] + s * P.current[1]
            k = P.u_n * thetad * tV  # −u_n n (θ̇ t·V_c), n = (−s, c)
            fx = fx + k * s
            fy = fy - k * c
        return fx, fy

    def terms(self, y: np.ndarray):
        """(M_q, h_q) with M_q q̈ + h_q = [u; 0; 0; 0] for q = [φ, θ0, p_x, p_y]."""
        P = self.p
        n, l = self.n, P.l
        phi, th0, p, phid, thd0, pd = self.split(y)
        Wc = self.Wc
        theta = Wc[:, :-1] @ phi + Wc[:, -1] * th0
        thetad = Wc[:, :-1] @ phid + Wc[:, -1] * thd0
        s, c = np.sin(theta), np.cos(theta)
        KT = self.KT
        Jx, Jy = self._Jx, self._Jy
        Jx[:, :n] = l * KT * s  # ∂X/∂θ = l Kᵀ S_θ
        Jy[:, :n] = -l * KT * c  # ∂Y/∂θ = −l Kᵀ C_θ
        th2 = thetad * thetad
        bx = l * (KT @ (c * th2))
        by = l * (KT @ (s * th2))
        Xd = Jx[:, :n] @ thetad + pd[0]
        Yd = Jy[:, :n] @ thetad + pd[1]
        fx, fy = self.fluid_forces(theta, thetad, Xd, Yd)
        # effective per-link mass m I + u_n n nᵀ
        mxx = P.m + P.u_n * s * s
        mxy = -P.u_n * s * c
        myy = P.m + P.u_n * c * c
        Rx = mxx[:, None] * Jx + mxy[:, None] * Jy
        Ry = mxy[:, None] * Jx + myy[:, None] * Jy
        M = Jx.T @ Rx + Jy.T @ Ry
        M[np.diag_indices(n + 2)] += self._diag
        rx0 = mxx * bx + mxy * by - fx
        ry0 = mxy * bx + myy * by - fy
        h = Jx.T @ rx0 + Jy.T @ ry0
        h[:n] += P.lambda2 * thetad + P.lambda3 * thetad * np.abs(thetad)
        T = self.T
        return T.T @ M @ T, T.T @ h

    def torque(self, t: float, y: np.ndarray, M=None, h=None) -> np.ndarray:
        if self.controller is None:
            return np.zeros(self.n - 1)
        if M is None:
            M, h = self.terms(y)
        n = self.n
        return self.controller.model_torque(t, y[: n - 1], y[n + 2 : 2 * n + 1], M, h)

    def accelerations(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(q̈, u) at state y."""
        M, h = self.terms(y)
        u = self.torque(t, y, M, h)
        Q = -h
        Q[: self.n - 1] += u
        return np.linalg.solve(M, Q), u

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        qdd, _ = self.accelerations(t, y)
        return np.concatenate((y[self.n + 2 :], qdd))

    # -------------------------------------------------------------- outputs
    def cm_velocity_world(self, y: np.ndarray) -> np.ndarray:
        n = self.n
        return y[2 * n + 2 : 2 * n + 4]

    def link_state(self, y: np.ndarray):
        """(θ, θ̇, X, Y, Ẋ, Ẏ) of every link (world frame)."""
        l = self.p.l
        phi, th0, p, phid, thd0, pd = self.split(y)
        theta = self.Wc @ np.append(phi, th0)
        thetad = self.Wc @ np.append(phid, thd0)
        X = -l * self.KT @ np.cos(theta) + p[0]
        Y = -l * self.KT @ np.sin(theta) + p[1]
        Xd, Yd = self.link_velocities(theta, thetad, pd)
        return theta, thetad, X, Y, Xd, Yd

    def initial_state(self, y0=None) -> np.ndarray:
        return np.zeros(2 * self.n + 4) if y0 is None else np.asarray(y0, dtype=float)

    def simulate(self, t_end: float, t_eval=None, y0=None, rtol: float = 1e-6, atol: float = 1e-6,
                 method: str = "RK45", max_step: float = np.inf) -> ModelRun:
        return simulate(self, t_end, t_eval, self.initial_state(y0), rtol, atol, method, max_step)


def simulate(model, t_end: float, t_eval, y0: np.ndarray, rtol: float, atol: float, method: str,
             max_step: float) -> ModelRun:
    """Integrate ``model.rhs`` with solve_ivp, restarting at the controller's breakpoints (the γ steps of
    eq. 39) so that no step straddles a discontinuity of the input."""
    import time

    n = model.n
    bps = [b for b in getattr(model.controller, "breakpoints", ()) if 0.0 < b < t_end]
    edges = [0.0, *bps, float(t_end)]
    t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float)
    ts, ys, nfev = [], [], 0
    y = np.asarray(y0, dtype=float)
    t0 = time.perf_counter()
    for k, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        last = k == len(edges) - 2
        te = None
        if t_eval is not None:
            # this segment's samples, plus its end point b (the next segment's initial state)
            te = np.append(t_eval[(t_eval >= a) & (t_eval < b)], b)
        from scipy.integrate import solve_ivp  # deferred: importing scipy.integrate costs ~0.3 s
        sol = solve_ivp(model.rhs, (a, b), y, method=method, t_eval=te, rtol=rtol, atol=atol, max_step=max_step)
        if not sol.success:
            raise RuntimeError(f"{model.name} model: solve_ivp failed on [{a}, {b}] s: {sol.message}")
        nfev += int(sol.nfev)
        keep_end = last and (t_eval is None or np.any(t_eval == b))
        ts.append(sol.t if keep_end else sol.t[:-1])
        ys.append(sol.y.T if keep_end else sol.y.T[:-1])
        y = sol.y[:, -1]
    wall = time.perf_counter() - t0
    T = np.concatenate(ts)
    Y = np.concatenate(ys)
    u = np.array([model.torque(t, yy) for t, yy in zip(T, Y)]) if len(T) else np.zeros((0, n - 1))
    v = np.array([model.cm_velocity_world(yy) for yy in Y])
    return ModelRun(t=T, y=Y, theta0=Y[:, n - 1], p=Y[:, n : n + 2], v=v, u=u, phi=Y[:, : n - 1], nfev=nfev,
                    wall_s=wall)


def simulate_held(model: ExactModel, t_end: float, hold: float, t_eval=None, substeps: int = 1) -> ModelRun:
    """The model under its controller sampled and held, as the engine applies it: u_k computed from the
    state at t_k = k·hold, held over [t_k, t_k + hold). This is the discrete solution of the engine's
    control loop (Zhang 2018's eqs. 35–37 are continuous; the engine's zero-order hold is not), so an
    engine run compared with it shows the engine's physics and not the controller's sampling: with
    K_p = 200, K_d = 100 the error dynamics (eq. 38) have a pole at −98 s⁻¹, which a 5-ms hold
    (h·98 = 0.49) does not resolve over the start-up transient from the straight body.

    With u held the dynamics have no fast mode (the drag's time constant M/c ≈ 0.12 s, across), so each
    hold is integrated by classical Runge–Kutta in ``substeps`` equal steps (h·c/M ≤ 0.09 at 10 ms): over
    4 s one step per hold is within 1e-8 (5 ms) and 2e-7 (10 ms) of solve_ivp at rtol 1e-10 on the same
    held segments, below the continuous model's own rtol = atol = 1e-6 (tests compare the two). Samples:
    ``t_eval`` must lie on the hold grid; ``u`` at sample t_k is the torque applied over the step that
    ended at t_k (u_{k−1}), as the engine's recorder stores it, and 0 at t = 0."""
    import time

    n = model.n
    N = int(round(t_end / hold))
    if abs(N * hold - t_end) > 1e-9 * max(1.0, t_end):
        raise ValueError(f"simulate_held: t_end = {t_end} is not a whole number of holds of {hold} s")
    grid = np.arange(N + 1) * hold
    if t_eval is None:
        idx = np.arange(N + 1)
    else:
        idx = np.rint(np.asarray(t_eval, float) / hold).astype(int)
        if np.any(np.abs(idx * hold - np.asarray(t_eval, float)) > 1e-9) or idx.min() < 0 or idx.max() > N:
            raise ValueError("simulate_held: t_eval must lie on the hold grid within [0, t_end]")
    y = model.initial_state()
    Y = np.empty((N + 1, len(y)))
    U = np.zeros((N + 1, n - 1))
    Y[0] = y
    hs = hold / substeps
    nfev = 0
    t0 = time.perf_counter()

    def f(yy, u):
        M, h = model.terms(yy)
        Q = -h
        Q[: n - 1] += u
        return np.concatenate((yy[n + 2 :], np.linalg.solve(M, Q)))

    for k in range(N):
        u = model.torque(grid[k], y)
        for _ in range(substeps):
            k1 = f(y, u)
            k2 = f(y + 0.5 * hs * k1, u)
            k3 = f(y + 0.5 * hs * k2, u)
            k4 = f(y + hs * k3, u)
            y = y + hs / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        nfev += 1 + 4 * substeps
        Y[k + 1] = y
        U[k + 1] = u
    wall = time.perf_counter() - t0
    Y, U, T = Y[idx], U[idx], grid[idx]
    v = Y[:, 2 * n + 2 : 2 * n + 4]
    return ModelRun(t=T, y=Y, theta0=Y[:, n - 1], p=Y[:, n : n + 2], v=v, u=U, phi=Y[:, : n - 1], nfev=nfev,
                    wall_s=wall)


def momentum(model: ExactModel, y: np.ndarray) -> tuple[np.ndarray, float]:
    """(linear momentum (2,), angular momentum about the origin) of the dry chain (m, J; no added mass)."""
    P = model.p
    theta, thetad, X, Y, Xd, Yd = model.link_state(y)
    lin = P.m * np.array([Xd.sum(), Yd.sum()])
    ang = float(P.J * thetad.sum() + P.m * np.sum(X * Yd - Y * Xd))
    return lin, ang


def kinetic_energy(model: ExactModel, y: np.ndarray) -> float:
    """T = Σ ½ m|v_i|² + ½ J θ̇_i² + ½ u_n (n_i·v_i)² + ½ λ1 θ̇_i² (the added mass counted)."""
    P = model.p
    theta, thetad, X, Y, Xd, Yd = model.link_state(y)
    vn = -np.sin(theta) * Xd + np.cos(theta) * Yd
    return float(0.5 * P.m * np.sum(Xd**2 + Yd**2) + 0.5 * (P.J + P.lambda1) * np.sum(thetad**2)
                 + 0.5 * P.u_n * np.sum(vn**2))


__all__ = ["ExactModel", "ModelRun", "momentum", "kinetic_energy", "simulate", "simulate_held"]
