"""Passive creeping: energy-based serpentine control (Wang 2011, eqs. 14–15)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.kernels import compiled
from lab.core.state import ModelInfo, RobotState
from lab.core.fields import Validated, choice, info, num
from lab.controllers.base import Controller, register_controller
from lab.controllers.servo import Servo, angle_error, spd_solve


@dataclass(frozen=True)
class PassiveCreepingParams(Validated):
    """Table 1 defaults: a = 10, k_d = 1, k_p = 1, x_d = 0.5 sin(2t + π/2), K = [0.10, 0.04, …]."""

    E_ref: float = num(1.0, ge=0, le=100, unit="J", doc="reference kinetic energy")
    phi_t: float = num(0.0, ge=-10, le=10, doc="turning offset added to the head's reference (eq. 14)")
    a: float = num(10.0, ge=0, le=1e4, doc="head gain a (eq. 14)")
    k_d: float = num(1.0, ge=0, le=1e4, doc="head rate gain (eq. 14)")
    k_p: float = num(1.0, ge=0, le=1e4, doc="head angle gain (eq. 14)")
    xd_amp: float = num(0.5, ge=0, le=math.pi, unit="rad", doc="amplitude of the head reference x_d")
    xd_omega: float = num(2.0, ge=0, le=100, unit="rad/s", doc="frequency of x_d")
    xd_phase: float = info(math.pi / 2, unit="rad", doc="phase of x_d")
    K_head: float = num(0.10, ge=0, le=1e4, doc="energy-integral gain of the head (eq. 14)")
    K_body: float = num(0.04, ge=0, le=1e4, doc="coupling gain of the body joints (eq. 15)")
    coupling_gain_fixed: float | None = num(
        None, ge=0, le=100, unit="N·m/rad",
        doc="freeze the energy integral so that K_body·∫(E_ref − E)dt equals this (a study option, not the paper's "
            "law: it measures steady state against the coupling gain); unset: the integral runs (eq. 15)")
    # The head's PD part (eq. 14) is a PD servo whose gains a·I·|K∫ + e|·(k_p, k_d) grow with the energy
    # integral: stepped explicitly its step bound falls as the integral grows (issue 34). "explicit" keeps the
    # earlier results; the implicit forms take the PD part at the engine's predicted next state.
    servo: Servo = choice(
        "explicit", doc="how the head's PD part (eq. 14) is stepped (lab.controllers.servo): 'explicit' at this state "
                        "(the earlier results; its step bound falls as the energy integral grows); 'implicit_damping' "
                        "its damping at the engine's next state (the mass matrix); 'stable_pd' as Tan 2011; "
                        "'implicit_pd' the head's angle term and the body coupling (eq. 15) at the next state too")

    def __post_init__(self):
        super().__post_init__()
        if self.coupling_gain_fixed is not None and self.K_body <= 0:
            raise ValueError("coupling_gain_fixed: needs K_body > 0 (the frozen integral is coupling_gain_fixed/K_body)")


@register_controller("passive_creeping", params=PassiveCreepingParams)
class PassiveCreeping(Controller):
    """Head joint (eq. 14) and body joints (eq. 15) of Wang 2011.

    Head (joint J-1, the paper's xⁿ):
        τ_n = a·I_n·|K_n ∫(E_ref − E)dt + E_ref − E| · (ẍ_d + k_d(ẋ_d − ẋⁿ) + k_p(x_d − xⁿ) + φ_t)
    with I_n = I_n^b + m_n l_n²/4, the head's yaw inertia about the head joint.
    Body (joint j = 0 … J-2, the paper's x^{n−i}):
        τ_j = K_j · ∫(E_ref − E)dt · (q_{j+1} − q_j)
    E is the kinetic energy of the whole robot from the snapshot (eq. 8); the integral is a running
    rectangle sum over the control steps. Torques saturate at the joints' effort limit.

    ``servo`` (:mod:`lab.controllers.servo`) steps the head's PD part. Its gains are g·k_p and g·k_d with
    g = a·I_n·|K_n∫ + E_ref − E|, and the feed-forward g·(ẍ_d + φ_t). ``"explicit"``: the law above at this
    state; the explicit PD needs dt < 2μ/(g·k_d) on the head's lightest mode μ, a bound that falls as the
    integral (and g) grows. ``"implicit_damping"``: the damping term at the engine's next state,
    g·k_d(ẋ_d(t+h) − ẋ⁺), solved with the snapshot's mass matrix M:
        (M + h·g·k_d·e_n e_nᵀ) q̈ = τ_body + e_n·g·(ẍ_d + φ_t + k_p(x_d − xⁿ) + k_d(ẋ_d(t+h) − ẋⁿ)),
    τ_n = that right side's head row − h·g·k_d·q̈_n (the body joints' torques, known this step, are in the
    prediction; gravity, Coriolis and contacts are not, as in Tan, Liu and Turk 2011). ``"stable_pd"``,
    ``"implicit_pd"``: the angle term at x + h ẋ as well (``implicit_pd`` adds h²·g·k_p to the prediction's
    gain: stable at any step). Every form is eq. 14 as h → 0 (tests/papers/wang2011_creeping/test_head_servo.py).
    The body joints' coupling (eq. 15) stays explicit except under ``implicit_pd``: a stiffness G between
    neighbours whose own bound on the flagship snake, h < 2/√λ_max(−M⁻¹K), is 5.7 ms at G = 5 N·m/rad and falls
    as 1/√G (the same test computes it). Accuracy is another matter: the head's time constant μ/(g·k_d) is
    ~5 ms at K·∫ = 5, and no form is converged at a step near it (docs/benchmarks.md, "The creeping study's
    gain-driven runs with an implicit head"): the default stays explicit.

    ``coupling_gain_fixed`` = G (a study option, not in the paper) holds the integral at ∫ = G/K_body
    from the first step: the body coupling gain K_body·∫ is then G and the head's energy factor
    |K_n·G/K_body + E_ref − E|, so the steady state can be measured as a function of the gain the
    running integral would otherwise pass through (lab.papers.wang2011_creeping.characteristic).
    """

    def __init__(self, params: PassiveCreepingParams):
        super().__init__(params)
        self.integral = 0.0
        self.I_head = 0.0

    def reset(self, model: ModelInfo, dt: float) -> None:
        super().reset(model, dt)
        self.integral = self.frozen_integral()
        self.I_head = float(model.I_B[-1][2, 2] + model.mass[-1] * model.link_length**2 / 4.0)

    @property
    def wants_implicit_motor_lines(self) -> bool:
        """An implicit head servo (``servo`` ≠ "explicit") also has the motors' torque–speed lines taken at the end
        of the step (lab.core.actuators, World.implicit_motor_lines; the runner reads this). On a line a motor is
        a damper τ_s/ω_0 whose explicit step bound is the next one the gain-driven runs meet at 5 ms (K·∫ = 5,
        ω = 4 drives the joints onto their lines: tests/papers/wang2011_creeping/test_head_servo.py). Where no
        joint reaches its line the implicit lines change nothing (the flagship's 30 s: identical metrics)."""
        return self.params.servo != "explicit"

    def frozen_integral(self) -> float:
        """∫(E_ref − E)dt held fixed by ``coupling_gain_fixed`` (0 when the integral runs)."""
        G = self.params.coupling_gain_fixed
        return 0.0 if G is None else G / self.params.K_body

    @property
    def coupling_gain(self) -> float:
        """The body joints' current coupling gain K_body·∫(E_ref − E)dt (N·m/rad), eq. 15."""
        return self.params.K_body * self.integral

    def energy_error(self, state: RobotState) -> float:
        return self.params.E_ref - state.kinetic_energy

    def act(self, state: RobotState) -> np.ndarray:
        p = self.params
        e = self.energy_error(state)
        if p.coupling_gain_fixed is None:
            self.integral += e * self.dt
        t = state.t
        ph = p.xd_omega * t + p.xd_phase
        x_d = p.xd_amp * math.sin(ph)
        xd_d = p.xd_amp * p.xd_omega * math.cos(ph)
        xdd_d = -p.xd_amp * p.xd_omega**2 * math.sin(ph)
        q, qd = state.q, state.qd
        g = p.a * self.I_head * abs(p.K_head * self.integral + e)
        if p.servo == "explicit":
            tau_head = g * (xdd_d + p.k_d * (xd_d - float(qd[-1])) + p.k_p * (x_d - float(q[-1])) + p.phi_t)
            # body joints and saturation in one compiled call (:func:`coupling_torques`)
            return coupling_torques(q, p.K_body * self.integral, tau_head, self.model.effort)
        return self.implicit_head(state, g, x_d, ph)

    def implicit_head(self, state: RobotState, g: float, x_d: float, ph: float) -> np.ndarray:
        """The torques with the head's PD part at the predicted next state (the class docstring's forms):
        the body joints as eq. 15, then the head from (M + h G_n) q̈ = pd with the body torques in pd."""
        p = self.params
        if state.M is None:
            raise ValueError(f"servo: {p.servo!r} reads the mass matrix from the snapshot (RobotState.M, filled when "
                             "World.want_mass_matrix is on: the controller's needs_mass_matrix); a hand-made state "
                             "needs servo = 'explicit'")
        h = self.dt
        q, qd = state.q, state.qd
        n = q.shape[0]
        ph1 = ph + p.xd_omega * h
        x_d1 = p.xd_amp * math.sin(ph1)
        xd_d1 = p.xd_amp * p.xd_omega * math.cos(ph1)
        xdd_d = -p.xd_amp * p.xd_omega**2 * math.sin(ph)
        e_q = angle_error(p.servo, x_d, x_d1, float(q[-1]), float(qd[-1]), h)
        pd_head = g * (xdd_d + p.phi_t + p.k_p * e_q + p.k_d * (xd_d1 - float(qd[-1])))
        g_head = g * (h * p.k_d + (h * h * p.k_p if p.servo == "implicit_pd" else 0.0))
        G = p.K_body * self.integral
        if p.servo == "implicit_pd":  # the coupling at q⁺ as well: one (non-symmetric) solve, compiled
            tau = np.empty(n)
            _implicit_all_into(state.M, q, qd, G, pd_head, g_head, h, self.model.effort, tau)
            return tau
        tau = coupling_torques(q, G, 0.0, self.model.effort)
        pd = tau.copy()
        pd[-1] = pd_head
        gain = np.zeros(n)
        gain[-1] = g_head
        qdd = np.empty(n)
        spd_solve(state.M, gain, pd, qdd)
        tau[-1] = min(max(pd_head - g_head * qdd[-1], -self.model.effort), self.model.effort)
        return tau

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"E_ref": (0.0, 3.0), "phi_t": (-1.0, 1.0)}


def coupling_torques(q, gain, tau_head, effort):
    """Passive-creeping joint torques (its numpy oracle: tests/oracles/passive_creeping.py): the body
    joints' τ_j = gain·(q_{j+1} − q_j) (Wang 2011, eq. 15), the head joint's ``tau_head`` given; all
    clipped at ±effort. The array is made here and filled by one compiled loop (:func:`_coupling_into`):
    an array handed back from compiled code costs ~1 µs to box, more than the loop."""
    tau = np.empty(q.shape[0])
    _coupling_into(q, gain, tau_head, effort, tau)
    return tau


@compiled
def _coupling_into(q, gain, tau_head, effort, tau):
    """:func:`coupling_torques` into ``tau``."""
    n = q.shape[0]
    for j in range(n - 1):
        tau[j] = min(max(gain * (q[j + 1] - q[j]), -effort), effort)
    tau[n - 1] = min(max(tau_head, -effort), effort)


@compiled
def _implicit_all_into(M, q, qd, G, pd_head, g_head, h, effort, tau):
    """``servo = "implicit_pd"``: every torque at the predicted next state q⁺ = q + h q̇ + h² q̈ of the engine's
    semi-implicit step. τ = τ0 + B q̈ with, on the body joints (eq. 15), τ0_j = G((q + h q̇)_{j+1} − (q + h q̇)_j)
    and B_j = h² G (e_{j+1} − e_j); on the head (eq. 14), τ0 = ``pd_head`` and B = −``g_head`` e_n. The
    prediction (M − [0; B]) ẍ = [0; τ0] (base rows free, no force: gravity, Coriolis and contacts left out,
    as in Tan 2011) is solved by Gaussian elimination with partial pivoting (B is not symmetric), then τ is
    clipped at ±effort. Into ``tau`` (J,)."""
    N = M.shape[0]
    n = q.shape[0]
    nb = N - n
    A = M.copy()
    b = np.zeros(N)
    for j in range(n - 1):
        A[nb + j, nb + j] += h * h * G
        A[nb + j, nb + j + 1] -= h * h * G
        b[nb + j] = G * ((q[j + 1] + h * qd[j + 1]) - (q[j] + h * qd[j]))
    A[N - 1, N - 1] += g_head
    b[N - 1] = pd_head
    # Gaussian elimination with partial pivoting, in place
    for k in range(N):
        piv = k
        big = abs(A[k, k])
        for i in range(k + 1, N):
            if abs(A[i, k]) > big:
                big = abs(A[i, k])
                piv = i
        if piv != k:
            for c in range(N):
                A[k, c], A[piv, c] = A[piv, c], A[k, c]
            b[k], b[piv] = b[piv], b[k]
        for i in range(k + 1, N):
            f = A[i, k] / A[k, k]
            if f != 0.0:
                for c in range(k, N):
                    A[i, c] -= f * A[k, c]
                b[i] -= f * b[k]
    x = np.empty(N)
    for i in range(N - 1, -1, -1):
        s = b[i]
        for c in range(i + 1, N):
            s -= A[i, c] * x[c]
        x[i] = s / A[i, i]
    for j in range(n - 1):
        t = G * ((q[j + 1] + h * qd[j + 1]) - (q[j] + h * qd[j])) + h * h * G * (x[nb + j + 1] - x[nb + j])
        tau[j] = min(max(t, -effort), effort)
    t = pd_head - g_head * x[N - 1]
    tau[n - 1] = min(max(t, -effort), effort)
