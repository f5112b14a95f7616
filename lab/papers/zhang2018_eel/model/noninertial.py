"""Non-inertial (t–n frame) model of the underwater eel: Zhang et al. 2018, eqs. 7–33.

State ``x = [φ (n−1), θ0, p_x, p_y, φ̇ (n−1), θ̇0, v_t, v_n]`` (the paper's, §3.2): the t axis is the
heading θ0 = mean link angle, (v_t, v_n) the CM velocity in the rotating t–n frame. The equations are
written in the relative angles Φ = θ − e θ0 = B_m φ, so θ0 appears in no coefficient (the paper's point).

The computation follows the paper's route, which is not the exact model's: the CM acceleration is
eliminated with the 2×2 matrix M_p (eq. 31) *before* the torque balance is solved, giving the n×n
control-oriented form (eq. 32)

    M_Φ θ̈ + W_Φ θ̇² + K_Dt f_Dt + K_Dn f_Dn − τ = Dᵀu,  τ = −λ1 θ̈ − λ2 θ̇ − λ3 θ̇|θ̇|   (eqs. 27, 32)

then v̇ from eq. 30 (with its Coriolis term [v_n θ̇0, −v_t θ̇0], eq. 11) and ṗ = R(θ0)[v_t; v_n] (eq. 10).
A different code path on the same physics: the two models must agree to the integrator's tolerance.

Corrections to the printed equations (each derived, see the docstrings below):
* eq. 18/25: the n-row is Ṅ + θ̇0 T (Ω × r = θ̇0(−N, T)), printed "Ṅ − θ̇0 T"; eq. 19 has it right.
* eq. 30: the drag enters as eᵀf_D (the total fluid force), printed "n eᵀ f_D".
* eq. 33: M_Φ = J + m l²(S V S + C V C) + u_n l² K1 Kᵀ S + u_n l² **K2** Kᵀ C (printed K1 twice);
  W_Φ = m l²(S V C **−** C V S) + u_n l² K1 Kᵀ C − u_n l² K2 Kᵀ S (printed "+");
  K_Dt = u_n l A1 e eᵀ m11 − u_n l A2 e eᵀ m21 − l S K and K_Dn = u_n l A1 e eᵀ m12 − u_n l A2 e eᵀ m22
  + l C K: the factor is u_n l, not u_n l² (K_D f_D is a torque), and the A1 term needs its e.
  A1 = S K S² + C K S C and A2 = S K S C + C K C², K1, K2 and M_p = [[m11, m12], [m21, m22]] as printed.
* eq. 36: [R1; R2] = W_cᵀ(W_Φ θ̇² + K_Dt f_Dt + K_Dn f_Dn + λ2 θ̇ + λ3 θ̇|θ̇|) — the W_cᵀ is missing in print.
No current (the paper has none): ``params.current`` must be zero.
"""

from __future__ import annotations

import numpy as np

from lab.papers.zhang2018_eel.model.exact import simulate
from lab.papers.zhang2018_eel.model.params import EelParams


class NonInertialModel:
    """Zhang 2018 eqs. 28–33 as a ``solve_ivp`` system (same controller protocol as ExactModel)."""

    name = "noninertial"

    def __init__(self, params: EelParams, controller=None):
        if params.current[0] or params.current[1]:
            raise ValueError("current: the non-inertial model (Zhang 2018) has no current; use the exact model")
        self.p = params
        self.controller = controller
        n = params.n
        mats = params.mats
        self.n = n
        self.K = np.asarray(mats.K)
        self.KT = np.asarray(mats.KT)
        self.V = np.asarray(mats.V)
        self.D = np.asarray(mats.D)
        self.Wc = np.asarray(mats.W_c)
        self.Bm = np.asarray(mats.B_m)
        self._core_args = None  # terms_core's arguments, built on first use

    def split(self, x):
        n = self.n
        return x[: n - 1], x[n - 1], x[n : n + 2], x[n + 2 : 2 * n + 1], x[2 * n + 1], x[2 * n + 2 : 2 * n + 4]

    def terms(self, x):
        """(M, h) of the control-oriented form in q = [φ, θ0]: M q̈ + h = [u; 0] (eqs. 35–36), from the
        compiled :func:`terms_core` (the engine controller calls it every step: ~6 µs)."""
        M, h, _, _, _ = self.terms_and_drag(x)
        return M, h

    def terms_and_drag(self, x):
        """:meth:`terms` plus what eq. 30 needs: (M, h, f_Dt, f_Dn, M_p)."""
        if self._core_args is None:
            P = self.p
            self._core_args = (self.n, *(np.ascontiguousarray(a, dtype=float) for a in
                                         (self.Bm, self.K, self.KT, self.V, self.Wc)),
                               *(float(v) for v in (P.m, P.l, P.u_n, P.J, P.lambda1, P.lambda2, P.lambda3,
                                                    P.c_t, P.c_n, P.c_t2, P.c_n2)))
        return _terms_kernel()(np.ascontiguousarray(x, dtype=float), *self._core_args)

    def torque(self, t, x, M=None, h=None):
        if self.controller is None:
            return np.zeros(self.n - 1)
        if M is None:
            M, h = self.terms(x)
        n = self.n
        return self.controller.model_torque(t, x[: n - 1], x[n + 2 : 2 * n + 1], M, h)

    def cm_acceleration_tn(self, Phi, thetad, thetadd, fDt, fDn, Mp):
        """R(θ0)ᵀ p̈ from eq. 30 without its Coriolis term: M_p (Σ f_D − Σ u_n n nᵀ a_rel), where
        a_rel = (l Kᵀ(S θ̈ + C θ̇²), l Kᵀ(−C θ̈ + S θ̇²)) is each link's acceleration relative to the CM (eq. 17)."""
        P = self.p
        l, un = P.l, P.u_n
        s, c = np.sin(Phi), np.cos(Phi)
        th2 = thetad * thetad
        at = l * (self.KT @ (s * thetadd + c * th2))
        an = l * (self.KT @ (-c * thetadd + s * th2))
        gt = un * np.sum(s * s * at - s * c * an)
        gn = un * np.sum(-s * c * at + c * c * an)
        return Mp @ np.array([fDt.sum() - gt, fDn.sum() - gn])

    def accelerations(self, t, x):
        """(φ̈, θ̈0, v̇_t, v̇_n), u."""
        n = self.n
        M, h, fDt, fDn, Mp = self.terms_and_drag(x)
        Phi = self.Bm @ x[: n - 1]
        thetad = self.Bm @ x[n + 2 : 2 * n + 1] + x[2 * n + 1]  # θ̇ = Φ̇ + e θ̇0
        u = self.torque(t, x, M, h)
        Q = -h
        Q[: n - 1] += u
        qdd = np.linalg.solve(M, Q)
        thetadd = self.Wc @ qdd
        a_tn = self.cm_acceleration_tn(Phi, thetad, thetadd, fDt, fDn, Mp)
        thd0 = x[2 * n + 1]
        vt, vn = x[2 * n + 2], x[2 * n + 3]
        vdot = a_tn + np.array([vn * thd0, -vt * thd0])  # eq. 11
        return qdd, vdot, u

    def rhs(self, t, x):
        n = self.n
        qdd, vdot, _ = self.accelerations(t, x)
        th0 = x[n - 1]
        vt, vn = x[2 * n + 2], x[2 * n + 3]
        c, s = np.cos(th0), np.sin(th0)
        pdot = (vt * c - vn * s, vt * s + vn * c)  # eq. 10
        return np.concatenate((x[n + 2 : 2 * n + 2], pdot, qdd, vdot))

    def cm_velocity_world(self, x):
        n = self.n
        th0, vt, vn = x[n - 1], x[2 * n + 2], x[2 * n + 3]
        c, s = np.cos(th0), np.sin(th0)
        return np.array([vt * c - vn * s, vt * s + vn * c])

    def simulate(self, t_end, t_eval=None, y0=None, rtol=1e-6, atol=1e-6, method="RK45", max_step=np.inf):
        x0 = np.zeros(2 * self.n + 4) if y0 is None else np.asarray(y0, float)
        return simulate(self, t_end, t_eval, x0, rtol, atol, method, max_step)


def terms_core(x, n, Bm, K, KT, V, Wc, m, l, un, J, lam1, lam2, lam3, ct, cn, ct2, cn2):
    """(M, h, f_Dt, f_Dn, M_p) of the control-oriented form in q = [φ, θ0]: M q̈ + h = [u; 0] (Zhang 2018
    eqs. 35–36), the drag on every link in the t–n frame (eqs. 22–23, 25) and M_p (eq. 31).

    The link velocities in the t–n frame are (eq. 16 with eq. 18 corrected, p_t and p_n cancel)
    V_t = l Kᵀ S_Φ θ̇ + e v_t, V_n = −l Kᵀ C_Φ θ̇ + e v_n. The eq. 33 matrices are arranged for speed:
    with Q = S K S + C K C = K ∘ cos(Φ_i − Φ_j) and Z = C K S − S K C = −K ∘ sin(Φ_i − Φ_j):
    A1 Kᵀ S + A2 Kᵀ C = Q Qᵀ, A1 Kᵀ C − A2 Kᵀ S = Q Zᵀ, A1 e = Q s, A2 e = Q c, so with E = [s, −c]
    and P = Q E (n×2) the added-mass parts of eq. 33 are

        u_n l²(K1 Kᵀ S + K2 Kᵀ C) = u_n l² (Q Qᵀ − u_n P M_p Pᵀ),
        u_n l²(K1 Kᵀ C − K2 Kᵀ S) θ̇² = u_n l² (Q − u_n P M_p Eᵀ) Zᵀ θ̇²,
        K_Dt f_Dt + K_Dn f_Dn = u_n l P M_p [Σf_Dt; Σf_Dn] − l S K f_Dt + l C K f_Dn,

    and S V S + C V C = V ∘ cos(Φ_i − Φ_j), S V C − C V S = V ∘ sin(Φ_i − Φ_j); cos and sin of
    Φ_i − Φ_j come from the angle-difference identities, M_p is inverted in closed form. Written in the
    array operations numba compiles (:func:`_terms_kernel`); ``tests/papers/zhang2018_eel/test_eel_models.py`` compares it
    with the vectorised form and the full eq. 33 matrices of ``tests/oracles/eel_terms.py`` on random
    states. Debug it uncompiled with ``NUMBA_DISABLE_JIT=1``."""
    phi = x[: n - 1]
    phid = x[n + 2: 2 * n + 1]
    thd0 = x[2 * n + 1]
    vt = x[2 * n + 2]
    vn = x[2 * n + 3]
    Phi = Bm @ phi
    thetad = Bm @ phid + thd0
    s = np.sin(Phi)
    c = np.cos(Phi)
    # drag on every link in the t-n frame (eqs. 22-23, 25)
    Vt = l * (KT @ (s * thetad)) + vt
    Vn = -l * (KT @ (c * thetad)) + vn
    wx = c * Vt + s * Vn
    wy = -s * Vt + c * Vn
    fx = -ct * wx - ct2 * np.abs(wx) * wx
    fy = -cn * wy - cn2 * np.abs(wy) * wy
    fDt = c * fx - s * fy
    fDn = s * fx + c * fy
    cosd = np.outer(c, c) + np.outer(s, s)  # cos(Φ_i − Φ_j)
    sind = np.outer(s, c) - np.outer(c, s)  # sin(Φ_i − Φ_j)
    nm = n * m
    a11 = nm + un * (s @ s)
    a12 = -un * (s @ c)
    a22 = nm + un * (c @ c)
    det = a11 * a22 - a12 * a12
    Mp = np.empty((2, 2))  # eq. 31
    Mp[0, 0] = a22 / det
    Mp[0, 1] = -a12 / det
    Mp[1, 0] = -a12 / det
    Mp[1, 1] = a11 / det
    Q = K * cosd
    E = np.empty((n, 2))
    E[:, 0] = s
    E[:, 1] = -c
    PE = Q @ E
    PM = PE @ Mp
    th2 = thetad * thetad
    Zt_th2 = -((K * sind).T @ th2)
    ml2 = m * l * l
    ul2 = un * l * l
    M_Phi = ml2 * (V * cosd) + ul2 * (Q @ Q.T - un * (PM @ PE.T))
    for i in range(n):
        M_Phi[i, i] += J + lam1
    fs = np.empty(2)
    fs[0] = fDt.sum()
    fs[1] = fDn.sum()
    R = ml2 * ((V * sind) @ th2) + ul2 * (Q @ Zt_th2 - un * (PM @ (E.T @ Zt_th2))) \
        + un * l * (PM @ fs) - l * s * (K @ fDt) + l * c * (K @ fDn) + lam2 * thetad + lam3 * thetad * np.abs(thetad)
    return Wc.T @ M_Phi @ Wc, Wc.T @ R, fDt, fDn, Mp


def _terms_kernel():
    """The compiled :func:`terms_core` (the lab's numba settings, :func:`lab.core.kernels.compiled`); the same
    loop uncompiled where lab.core.kernels compiles nothing."""
    from lab.core import kernels

    return kernels.compiled(terms_core) or terms_core


def exact_state_to_noninertial(y: np.ndarray, n: int) -> np.ndarray:
    """Map an exact-model state (world CM velocity) to the non-inertial one (v_t, v_n, eq. 9)."""
    x = np.array(y, dtype=float)
    th0 = y[n - 1]
    px, py = y[2 * n + 2], y[2 * n + 3]
    c, s = np.cos(th0), np.sin(th0)
    x[2 * n + 2] = px * c + py * s
    x[2 * n + 3] = -px * s + py * c
    return x


__all__ = ["NonInertialModel", "exact_state_to_noninertial", "terms_core"]
