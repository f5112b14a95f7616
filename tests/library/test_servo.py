"""Joint PD servos: Stable PD (Tan, Liu and Turk 2011) stable at any step, the explicit law's step bound,
and Stable PD converging to the explicit law as dt → 0 (the continuous-time controller is unchanged)."""

import math

import numpy as np
import pytest

from lab.controllers.servo import angle_error, predict_qdd, stable_pd
from lab.core.instability import servo_step_bound
from lab.core.tolerances import tol


def _random_spd(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    return A @ A.T * 1e-4 + np.diag(rng.uniform(1e-5, 1e-4, n))


def _step_matrix(M, kp, kd, h, servo):
    """The one-step map of (q, q̇) for M q̈ = τ under semi-implicit Euler (q̇⁺ = q̇ + h q̈, q⁺ = q + h q̇⁺,
    the engine's integrator) with the servo holding q_ref = 0: built column by column from the servos
    themselves, so it is their actual discrete dynamics."""
    n = M.shape[0]
    A = np.zeros((2 * n, 2 * n))
    Minv = np.linalg.inv(M)
    for c in range(2 * n):
        x = np.zeros(2 * n)
        x[c] = 1.0
        q, qd = x[:n], x[n:]
        if servo == "explicit":
            tau = -kp * q - kd * qd
        elif servo == "implicit_p":  # the climb's PI form: damping at the predicted next state, the prediction
            # from the damping alone (lab.papers.hu2013_tracked.controllers), the stiffness at this state
            qdd_p = np.linalg.solve(M + h * np.diag(kd), -kd * qd)
            tau = -kp * q - kd * (qd + h * qdd_p)
        else:
            tau = stable_pd(M, kp, kd, angle_error(servo, 0.0, 0.0, q, qd, h), -qd, h, implicit=servo == "implicit_pd")
        qd1 = qd + h * Minv @ tau
        A[:, c] = np.concatenate([q + h * qd1, qd1])
    return A


def _radius(A):
    return float(np.abs(np.linalg.eigvals(A)).max())


@pytest.mark.parametrize("servo", ["explicit", "implicit_damping", "stable_pd", "implicit_p"])
@pytest.mark.parametrize("kp_ratio", [0.0, 20.0, 2000.0])
def test_servo_step_bound_is_where_the_servo_turns_unstable(servo, kp_ratio):
    """On a 4-joint chain with proportional gains, the servo's step map has spectral radius < 1 just below
    servo_step_bound and > 1 just above it (the implicit-damping forms without stiffness have no bound). For the explicit
    servo the per-joint bound 2·J_jj/k_d (J_jj = 1/(M⁻¹)_jj, each joint with the others free) is too
    optimistic, which is why the bound reads the lightest mode."""
    M = _random_spd(4, 1)
    kd = np.array([0.1, 0.2, 0.1, 0.3])
    kp = kp_ratio * kd
    h = servo_step_bound(M, kp, kd, servo)
    if servo != "explicit" and kp_ratio == 0.0:
        assert h == math.inf
        assert _radius(_step_matrix(M, kp, kd, 1e3, servo)) < 1.0 + 1e-9
        return
    # (with k_p = 0 the angles are a pure integrator: radius 1 exactly, neither growing nor decaying)
    assert _radius(_step_matrix(M, kp, kd, 0.99 * h, servo)) < 1.0 + 1e-9
    assert _radius(_step_matrix(M, kp, kd, 1.01 * h, servo)) > 1.0 + 1e-4
    if servo == "explicit":
        per_joint = 2.0 * (1.0 / np.linalg.inv(M).diagonal() / kd).min()
        assert per_joint > 1.05 * h


@pytest.mark.parametrize("factor", [1.5, 10.0, 1000.0, 1e6])
def test_implicit_servo_is_stable_at_any_step_and_the_others_to_their_bounds(factor):
    """Beyond the explicit bound (1.5 to 10⁶ times it) the explicit servo's step map grows (radius > 1) and
    the fully implicit one's decays (radius < 1); implicit damping and Tan's Stable PD decay up to their
    own bounds (~2 k_d/k_p and ~(2/3) k_d/k_p, here 60 and 20 times the explicit one) and grow past them:
    their stiffness term is still explicit."""
    M = _random_spd(4, 2)
    kd = np.full(4, 0.1)
    kp = np.full(4, 2.0)
    h = factor * servo_step_bound(M, kp, kd)
    assert _radius(_step_matrix(M, kp, kd, h, "explicit")) > 1.0
    assert _radius(_step_matrix(M, kp, kd, h, "implicit_pd")) < 1.0
    for servo in ("implicit_damping", "stable_pd"):
        r = _radius(_step_matrix(M, kp, kd, h, servo))
        assert (r < 1.0) == (h < servo_step_bound(M, kp, kd, servo)), servo


@pytest.mark.parametrize("servo", ["explicit", "implicit_damping", "stable_pd", "implicit_pd"])
def test_slow_mode_damping_in_each_form(servo):
    """The unified scenarios' servo (k_p = 1000, k_d = 0.5) on their slow mode (μ = 0.1 kg·m²: the welded
    chain swinging, ω = 100 rad/s, damping k_d/(2μ) = 2.5 /s): at 0.2 ms the explicit form and the implicit
    damping keep that damping to 1 %; Tan's form and the implicit one add k_p h/(2μ) = 1 /s (+40 %). The
    cost of taking the stiffness implicitly, measured on a mode the light ones do not disturb."""
    M = np.array([[0.1]])
    A = _step_matrix(M, np.array([1000.0]), np.array([0.5]), 2e-4, servo)
    sigma = float(np.log(np.abs(np.linalg.eigvals(A)).max()) / 2e-4)
    if servo in ("explicit", "implicit_damping"):
        assert sigma == pytest.approx(-2.5, rel=0.01)
    else:
        assert sigma == pytest.approx(-2.5 - 1000.0 * 2e-4 / (2 * 0.1), rel=0.01)


def test_stable_pd_with_a_floating_base_is_the_fixed_base_law_on_the_schur_complement():
    """Zero gains on the base rows with their coupling kept in M (a floating base) gives the torques of
    the same law on the joints' inertia with the base eliminated — an independent formulation."""
    rng = np.random.default_rng(5)
    n = 3
    M = _random_spd(6 + n, 4)
    Mbb, Mbq, Mqq = M[:6, :6], M[:6, 6:], M[6:, 6:]
    M_eff = Mqq - Mbq.T @ np.linalg.solve(Mbb, Mbq)
    kp, kd, h = 2.0, np.array([0.1, 0.3, 0.2]), 0.004
    e, ed = rng.normal(size=n), rng.normal(size=n)
    np.testing.assert_allclose(stable_pd(M, kp, kd, e, ed, h), stable_pd(M_eff, kp, kd, e, ed, h), rtol=1e-10)
    # and the prediction itself solves (M_eff + h K_d) q̈ = K_p e + K_d ė
    qdd = predict_qdd(M_eff, kd, kp * e + kd * ed, h)
    np.testing.assert_allclose((M_eff + h * np.diag(kd)) @ qdd, kp * e + kd * ed, rtol=1e-10)


def _torques(servo, dt, duration):
    """The serpenoid's joint torques every 1 ms of a flagship run (its scenario, `servo` at step dt)."""
    from lab.core import scenario as scn
    from lab.core.runner import Simulation

    sc = scn.load("snake_serpenoid", [f"sim.dt={dt}", f"sim.duration={duration}", f"controller.servo={servo}"])
    sim = Simulation(sc)
    try:
        state = sim.world.read_state()
        every = int(round(0.001 / dt))
        out = []
        for k in range(int(round(duration / dt))):
            if k % every == 0:
                out.append(sim.controller.act(state))
            state, _ = sim.step(state)
        return np.array(out)
    finally:
        sim.close()


@pytest.mark.slow
@pytest.mark.parametrize("servo", ["implicit_damping", "stable_pd", "implicit_pd"])
def test_stable_pd_converges_to_the_explicit_servo_at_first_order(servo):
    """The flagship's serpenoid servo, explicit and Stable PD (Tan's and the implicit form), over 0.3 s at
    dt = 1, 0.5, 0.25 ms (all below the explicit bound, 1.44 ms): the RMS difference of the torque
    sequences at the same instants falls by 2 per halving of dt (measured orders in tolerances:
    servo.spd_order). The controller in continuous time is one law; only its discretisation differs."""
    dts = (0.001, 0.0005, 0.00025)
    gaps = []
    for dt in dts:
        a, b = _torques("explicit", dt, 0.3), _torques(servo, dt, 0.3)
        gaps.append(float(np.sqrt(np.mean((a - b) ** 2))))
    orders = [math.log2(gaps[i] / gaps[i + 1]) for i in range(len(gaps) - 1)]
    scale = float(np.sqrt(np.mean(a ** 2)))
    assert gaps[0] < 0.2 * scale  # already close at 1 ms
    for order in orders:
        assert abs(order - 1.0) < tol("servo.spd_order"), (gaps, orders)


@pytest.mark.parametrize("implicit", [False, True])
@pytest.mark.parametrize("n_base", [0, 6])
def test_compiled_stable_pd_is_its_numpy_oracle(implicit, n_base):
    """The compiled Cholesky solve (lab.controllers.servo.spd_torques, and the serpenoid's own kernel with its
    reference) against numpy's dense solve (tests/oracles/servo.py) on random states, to rounding."""
    from oracles.servo import stable_pd as oracle

    from lab.controllers.serpenoid import Serpenoid, SerpenoidParams, serpenoid_spd
    from lab.controllers.servo import FORM
    from lab.core.state import ModelInfo

    rng = np.random.default_rng(7 + n_base)
    n = 9
    M = _random_spd(n_base + n, 11 + n_base)
    for _ in range(5):
        kp, kd = rng.uniform(0, 5, n), rng.uniform(0, 1, n)
        e, ed, h = rng.normal(size=n), rng.normal(size=n), rng.uniform(1e-4, 1e-2)
        np.testing.assert_allclose(stable_pd(M, kp, kd, e, ed, h, implicit), oracle(M, kp, kd, e, ed, h, implicit),
                                   rtol=1e-10, atol=1e-13)
    p = SerpenoidParams(phase_offset=0.7, kp=3.0, kd=0.2)
    ctl = Serpenoid(p)
    ctl.reset(ModelInfo(mass=np.ones(n + 1), I_B=np.zeros((n + 1, 3, 3)), link_length=0.1, gravity=9.81, effort=1e9),
              0.002)
    q, qd, t, h = rng.normal(size=n) * 0.3, rng.normal(size=n), 1.234, 0.002
    x0, _ = ctl.reference(t)
    x, xd = ctl.reference(t + h)
    for servo in ("implicit_damping", "implicit_pd" if implicit else "stable_pd"):
        want = oracle(M, p.kp, p.kd, angle_error(servo, x0, x, q, qd, h), xd - qd, h, servo == "implicit_pd")
        got = serpenoid_spd(t, q, qd, p.alpha, p.omega, p.beta, p.gamma, p.phase_offset, p.kp, p.kd, 1e9, M, h,
                            FORM[servo])
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("servo", ["explicit", "implicit_damping", "stable_pd", "implicit_pd"])
def test_controller_pd_is_the_serpenoids_servo_law(servo):
    """lab.Controller.pd, the servo a user's controller calls, given the serpenoid's reference and gains,
    gives the serpenoid's own torques (its compiled kernels) in every form, on a snapshot with the
    engine's mass matrix part-way through a run (joints moving, references off)."""
    from lab.core import scenario as scn
    from lab.core.runner import Simulation
    from lab.controllers.base import Controller

    # 1 ms: the loader refuses the explicit form at the scenario's 2 ms (bound 1.44 ms)
    sc = scn.load("snake_serpenoid", ["sim.duration=0.2", "sim.dt=0.001", f"controller.servo={servo}"])
    sim = Simulation(sc)
    try:
        sim.world.want_mass_matrix = True
        sim.run(duration=0.05)
        state = sim.world.read_state()
        ctrl = sim.controller
        user = Controller(sc.controller)
        user.reset(sim.world.model, sc.sim.dt)
        p = sc.controller
        tau = user.pd(state, ctrl.reference, p.kp, p.kd)
        assert np.abs(state.qd).max() > 0.1 and np.abs(ctrl.reference(state.t)[0] - state.q).max() > 0.01
        np.testing.assert_allclose(tau, ctrl.act(state), rtol=1e-10, atol=1e-12)
        assert user.needs_mass_matrix == (servo != "explicit")
    finally:
        sim.close()
