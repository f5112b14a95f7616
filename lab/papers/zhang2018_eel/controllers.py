"""Joint-space feedback linearisation of the eel (Zhang 2018, eqs. 34–39).

The same law drives the analytic models and the engine:

* :func:`fl_torque` is the pure eq. 35: given the dynamics in coordinates q = [φ; q_u] (φ actuated,
  q_u the rest) as M q̈ + h = [u; 0], it returns the u that makes φ̈ = ū,

      u = (M11 − M12 M22⁻¹ M21) ū − M12 M22⁻¹ h2 + h1.

  With the non-inertial model's M = W_cᵀ(M_Φ + λ1 I)W_c and h = [R1; R2] = W_cᵀ(W_Φθ̇² + K_Dt f_Dt +
  K_Dn f_Dn + λ2θ̇ + λ3θ̇|θ̇|) this is eqs. 35–36 (print omits the W_cᵀ on R); with the exact model's
  (n+2)-dimensional M, h in [φ, θ0, p] it is the same u (the CM rows are a Schur complement away).
* :func:`reference` is eq. 34, φ_ref,i = α sin(ωt + (i−1)β) + γ(t) (print: "α sin ωt + (i−1)β + γ", a
  lost parenthesis; and its left side "φ̇_ref" is φ_ref), with the γ schedule of eq. 39.
* ū = φ̈_ref + K_d(φ̇_ref − φ̇) + K_p(φ_ref − φ) (eq. 37); γ is piecewise constant, so its derivative
  is not fed forward (the paper's choice).

Joint convention: everything above is the paper's (φ_i = θ_i − θ_{i+1}, tail joint first). The engine
controller maps the lab's joints with φ = −q and τ = −u (:mod:`lab.papers.zhang2018_eel.model.params`).

Default gait (the paper gives no α, ω, β): α = 30°, ω = 120°/s, β = 40° — lateral undulation of the
kind simulated for underwater snake robots by Kelasidi et al. (2014–2016) and for land snakes by
Liljebäck et al., whose gaits use amplitudes of about 30° and joint phase offsets of about 40° (from
memory of those papers, not checked against them here; the choice rests on the reasons that follow).
β = 40° puts (n−1)β = 320°, about one wavelength, on the 8 joints (an
anguilliform body wave), β > 0 makes the head lead so the wave runs head → tail and the eel swims
towards its head; α = 30° keeps the joints far from their ±90° limits and the links' angles of attack
moderate; ω = 120°/s (3 s period) gives 3⅓ strokes in each 10 s turning window of eq. 39 and joint
rates α ω ≈ 1.1 rad/s. With K_p = 200, K_d = 100 the error dynamics s² + 100 s + 200 have poles at
−2.0 and −98 s⁻¹ (eq. 38): joints lock onto the reference within ~2 s of the zero initial state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.core.fields import choice, info, num
from lab.forces.hydrodynamics import HydroCoefficients
from lab.core.kernels import compiled
from lab.core.state import ModelInfo, RobotState
from lab.controllers.base import Controller, register_controller

DEG = math.pi / 180.0


def gamma_eq39(t: float, gamma_turn: float = 0.01) -> float:
    """Eq. 39: −γ_turn on [10, 20) s, +γ_turn on [30, 40) s, 0 elsewhere (print leaves (20, 30) unset: 0)."""
    if 10.0 <= t < 20.0:
        return -gamma_turn
    if 30.0 <= t < 40.0:
        return gamma_turn
    return 0.0


EQ39_BREAKPOINTS = (10.0, 20.0, 30.0, 40.0)


@dataclass(frozen=True)
class EelFLParams(HydroCoefficients):
    """Gait (eq. 34), γ schedule (eq. 39), PD gains (eq. 37) and — for the engine controller, which has
    no other way to know them — the hydrodynamic coefficients of the law it linearises (§4.2 numbers;
    ``c_t2``/``c_n2`` default to ``c_t``/``c_n`` as in eq. 22), declared once in
    :class:`~lab.forces.hydrodynamics.HydroCoefficients` and so listed first.
    ``added_mass_folded``: the engine links' URDF mass and yaw inertia include u_n and λ1 (see
    lab/forces/hydrodynamics.py); the controller subtracts them to recover the dry m and J."""

    alpha: float = num(30.0 * DEG, ge=0, le=math.pi / 2, unit="rad", doc="amplitude α (eq. 34)")
    omega: float = num(120.0 * DEG, ge=0, le=50, unit="rad/s", doc="frequency ω (eq. 34)")
    beta: float = num(40.0 * DEG, ge=-2 * math.pi, le=2 * math.pi, unit="rad", doc="phase lag β (eq. 34)")
    gamma: float = num(0.0, ge=-0.5, le=0.5, unit="rad", doc="constant offset γ")
    gamma_schedule: Literal["eq39", "constant"] = choice("eq39", doc="'eq39': ∓gamma_turn on [10, 20) and [30, 40) s")
    gamma_turn: float = num(0.01, ge=-0.5, le=0.5, unit="rad", doc="γ of eq. 39's turns")
    kp: float = num(200.0, gt=0, le=1e5, unit="1/s²", doc="K_p (eq. 37)")
    kd: float = num(100.0, ge=0, le=1e4, unit="1/s", doc="K_d (eq. 37)")
    added_mass_folded: bool = info(True, doc="the links' URDF mass and inertia include u_n and λ1")
    saturate: bool = info(True, doc="clip torques at the joints' effort limit")

    def gamma_at(self, t: float) -> float:
        if self.gamma_schedule == "eq39":
            return self.gamma + gamma_eq39(t, self.gamma_turn)
        return self.gamma

    @property
    def breakpoints(self) -> tuple[float, ...]:
        return EQ39_BREAKPOINTS if self.gamma_schedule == "eq39" else ()


def reference(p: EelFLParams, t: float, n_joints: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(φ_ref, φ̇_ref, φ̈_ref) of eq. 34, paper convention (index 0 = tail joint, the paper's i = 1)."""
    ph = p.omega * t + p.beta * np.arange(n_joints)
    s, c = np.sin(ph), np.cos(ph)
    return p.alpha * s + p.gamma_at(t), p.alpha * p.omega * c, -p.alpha * p.omega**2 * s


def fl_torque(M: np.ndarray, h: np.ndarray, ubar: np.ndarray) -> np.ndarray:
    """Eq. 35 for M q̈ + h = [u; 0] with q = [φ (k actuated); q_u]: the u giving φ̈ = ū exactly."""
    k = len(ubar)
    M11, M12, M21, M22 = M[:k, :k], M[:k, k:], M[k:, :k], M[k:, k:]
    if M22.shape == (1, 1):  # the reduced (non-inertial) form: one unactuated coordinate, θ0
        q_u = -(M21[0] @ ubar + h[k]) / M22[0, 0]  # θ̈0
        return M11 @ ubar + M12[:, 0] * q_u + h[:k]
    X = np.linalg.solve(M22, np.column_stack((M21, h[k:])))  # M22⁻¹ [M21, h2]
    return (M11 - M12 @ X[:, :k]) @ ubar - M12 @ X[:, k] + h[:k]


def outer_loop(p: EelFLParams, t: float, phi: np.ndarray, phid: np.ndarray) -> np.ndarray:
    """ū of eq. 37."""
    r, rd, rdd = reference(p, t, len(phi))
    return rdd + p.kd * (rd - phid) + p.kp * (r - phi)


@compiled
def state_vector_loops(R_WB, q, qd, w_W, p_W, v_W, mass, x):
    """The engine controller's glue before the model terms, one pass: x = [φ, θ0, p_x, p_y, φ̇, θ̇0, v_t, v_n]
    of the non-inertial model (Zhang 2018, eqs. 9–11) from the snapshot. θ_1 is link 0's heading,
    θ_{j+1} = θ_j + q_j (lab convention, so φ = −q), θ0 the mean link angle, θ̇0 the mean yaw rate,
    (p, v) the mass-weighted centre of mass and its velocity, (v_t, v_n) = R(θ0)ᵀ v. The numpy form is
    :meth:`EelFeedbackLinearization.state_vector_numpy` (tests compare the two)."""
    n = R_WB.shape[0]
    th = math.atan2(R_WB[0, 1, 0], R_WB[0, 0, 0])
    acc = th
    theta_sum = th
    wz = w_W[0, 2]
    for j in range(n - 1):
        acc += q[j]
        theta_sum += acc
        wz += w_W[j + 1, 2]
        x[j] = -q[j]
        x[n + 2 + j] = -qd[j]
    th0 = theta_sum / n
    msum = 0.0
    px = py = vx = vy = 0.0
    for i in range(n):
        m = mass[i]
        msum += m
        px += m * p_W[i, 0]
        py += m * p_W[i, 1]
        vx += m * v_W[i, 0]
        vy += m * v_W[i, 1]
    px /= msum
    py /= msum
    vx /= msum
    vy /= msum
    c, s = math.cos(th0), math.sin(th0)
    x[n - 1] = th0
    x[n] = px
    x[n + 1] = py
    x[2 * n + 1] = wz / n
    x[2 * n + 2] = vx * c + vy * s
    x[2 * n + 3] = -vx * s + vy * c


@compiled
def fl_torque_loops(M, h, x, t, alpha, omega, beta, gamma, kp, kd, effort, saturate, u, tau):
    """The engine controller's glue after the model terms, one pass: ū of eqs. 34 and 37 from x, then
    eq. 35 in the reduced form (one unactuated coordinate θ0, :func:`fl_torque`'s first branch), and the
    joint torques τ = −u (lab convention), clipped at ±effort when ``saturate``. Writes u and τ.
    The numpy form is :func:`outer_loop` + :func:`fl_torque` (tests compare the two)."""
    k = u.shape[0]
    n = k + 1
    ubar = np.empty(k)
    om2 = omega * omega
    for i in range(k):
        ph = omega * t + beta * i
        sn, cs = math.sin(ph), math.cos(ph)
        ubar[i] = -alpha * om2 * sn + kd * (alpha * omega * cs - x[n + 2 + i]) + kp * (alpha * sn + gamma - x[i])
    qu = 0.0
    for j in range(k):
        qu += M[k, j] * ubar[j]
    qu = -(qu + h[k]) / M[k, k]  # θ̈0
    for i in range(k):
        acc = 0.0
        for j in range(k):
            acc += M[i, j] * ubar[j]
        acc = acc + M[i, k] * qu + h[i]
        u[i] = acc
        tq = -acc
        if saturate:
            tq = min(max(tq, -effort), effort)
        tau[i] = tq


@register_controller("eel_feedback_linearization", params=EelFLParams)
class EelFeedbackLinearization(Controller):
    """Eqs. 35–37 on the engine (reads the snapshot) and on the analytic models (:meth:`model_torque`).

    On the engine the dynamics terms are the non-inertial model's (eqs. 32–33, M_Φ, W_Φ, K_Dt, K_Dn) with
    the state taken from the snapshot: Φ from the joint angles, θ̇ from the links' yaw rates, (v_t, v_n)
    from the CM velocity rotated by θ0. It linearises the model, not the engine: what the engine does
    differently (the solver, the lagged tangential added-mass correction) shows as tracking error.
    """

    def __init__(self, params: EelFLParams):
        super().__init__(params)
        self._ni = None
        self._n = 0
        self.last_u = np.zeros(0)

    # ---------------------------------------------------------------- models
    def model_torque(self, t: float, phi: np.ndarray, phid: np.ndarray, M: np.ndarray, h: np.ndarray) -> np.ndarray:
        """u (paper convention) for a model whose dynamics in [φ; …] are M q̈ + h = [u; 0]."""
        return fl_torque(M, h, outer_loop(self.params, t, phi, phid))

    @property
    def breakpoints(self) -> tuple[float, ...]:
        return self.params.breakpoints

    # ---------------------------------------------------------------- engine
    def eel_params(self, model: ModelInfo):
        from lab.papers.zhang2018_eel.model.params import EelParams

        p = self.params
        m = float(model.mass[0]) - (p.u_n if p.added_mass_folded else 0.0)
        J = float(model.I_B[0][2, 2]) - (p.lambda1 if p.added_mass_folded else 0.0)
        if m <= 0 or J <= 0:
            raise ValueError(f"added_mass_folded: the engine link (mass {model.mass[0]:.4g} kg, Izz "
                             f"{model.I_B[0][2, 2]:.4g}) cannot contain u_n = {p.u_n} and λ1 = {p.lambda1}")
        return EelParams(n=model.n_links, l=model.link_length / 2.0, m=m, J=J, c_t=p.c_t, c_n=p.c_n,
                         c_t2=p.c_t if p.c_t2 is None else p.c_t2, c_n2=p.c_n if p.c_n2 is None else p.c_n2,
                         u_n=p.u_n, lambda1=p.lambda1, lambda2=p.lambda2, lambda3=p.lambda3, source="engine")

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(φ_ref, φ̇_ref) of eq. 34 at t (lab joint order = the paper's, tail first): what ``init.shape``
        starts the joints on (lab.core.scenario.InitConfig). From the straight body a large-amplitude gait's
        first error (up to α) drives the outer loop so hard that at 5 ms the run diverges within 0.1 s
        (docs/benchmarks.md); started on the reference it swims at 5 and 10 ms."""
        r, rd, _ = reference(self.params, t, self.model.n_joints)
        return r, rd

    def reset(self, model: ModelInfo, dt: float) -> None:
        from lab.papers.zhang2018_eel.model.noninertial import NonInertialModel

        super().reset(model, dt)
        self._ni = NonInertialModel(self.eel_params(model))
        self._n = model.n_links
        self.last_u = np.zeros(model.n_joints)

    def state_vector(self, state: RobotState) -> np.ndarray:
        """The non-inertial model's state [φ, θ0, p_x, p_y, φ̇, θ̇0, v_t, v_n] from the snapshot (one
        compiled pass, :func:`state_vector_loops`)."""
        x = np.empty(2 * self._n + 4)
        state_vector_loops(state.R_WB, state.q, state.qd, state.w_W, state.p_W, state.v_W, state.model.mass, x)
        return x

    def state_vector_numpy(self, state: RobotState) -> np.ndarray:
        """:meth:`state_vector` in numpy (the reference the compiled pass is tested against)."""
        n = self._n
        theta = np.empty(n)
        theta[0] = state.yaw[0]
        np.cumsum(state.q, out=theta[1:])
        theta[1:] += theta[0]  # θ_{j+1} = θ_j + q_j (lab convention), so φ = −q
        th0 = theta.mean()
        v = state.com_v_W[:2]
        p = state.com_W[:2]
        c, s = math.cos(th0), math.sin(th0)
        x = np.empty(2 * n + 4)
        x[: n - 1] = -state.q
        x[n - 1] = th0
        x[n : n + 2] = p
        x[n + 2 : 2 * n + 1] = -state.qd
        x[2 * n + 1] = state.w_W[:, 2].mean()
        x[2 * n + 2] = v[0] * c + v[1] * s
        x[2 * n + 3] = -v[0] * s + v[1] * c
        return x

    def act(self, state: RobotState) -> np.ndarray:
        """τ = −u of eqs. 34–37 on the snapshot: three compiled calls (the state vector, the model terms of
        eqs. 32–33, the outer loop with eq. 35); the numpy form is :meth:`act_numpy`."""
        x = self.state_vector(state)
        M, h = self._ni.terms(x)
        p = self.params
        k = self._n - 1
        u = np.empty(k)
        tau = np.empty(k)
        fl_torque_loops(M, h, x, state.t, p.alpha, p.omega, p.beta, p.gamma_at(state.t), p.kp, p.kd,
                        float(self.model.effort), bool(p.saturate), u, tau)
        self.last_u = u
        return tau

    def act_numpy(self, state: RobotState) -> np.ndarray:
        """:meth:`act` in numpy (the reference the compiled passes are tested against)."""
        x = self.state_vector_numpy(state)
        M, h = self._ni.terms(x)
        n = self._n
        u = self.model_torque(state.t, x[: n - 1], x[n + 2 : 2 * n + 1], M, h)
        tau = -u
        return self.saturate(tau) if self.params.saturate else tau

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"alpha": (0.0, 1.2), "omega": (0.0, 6.0), "beta": (-2.0, 2.0), "gamma": (-0.3, 0.3)}


__all__ = ["EelFLParams", "EelFeedbackLinearization", "fl_torque", "reference", "outer_loop", "gamma_eq39",
           "EQ39_BREAKPOINTS", "fl_torque_loops", "state_vector_loops"]
