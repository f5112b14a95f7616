"""Passive creeping's head servo stepped implicitly (Wang 2011, eq. 14; issue 34): the PD part at the engine's
predicted next state with the mass matrix, the continuous-time law unchanged (first-order convergence to the
explicit form as dt → 0), and the body coupling's own explicit bound (eq. 15, a stiffness)."""

import dataclasses
import math

import numpy as np
import pytest
from conftest import make_state

from lab.controllers import PassiveCreeping, PassiveCreepingParams
from lab.core import scenario as scn
from lab.core.tolerances import tol

J = 4  # joints of the hand-made 5-link state
G = 3.0  # N·m/rad, frozen coupling gain: the head's gain a·I·|K_head·G/K_body + e| is then ~9× its start


def _spd(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    return A @ A.T * 2e-4 + np.diag(rng.uniform(2e-4, 1e-3, n))


def _state(M, t=0.4):
    s = make_state(n=J + 1, v_W=[[0.2, 0, 0]] * (J + 1), q=[0.02, -0.03, 0.01, 0.04], qd=[0.1, -0.2, 0.3, 0.5], t=t)
    return dataclasses.replace(s, M=M)


def _torques(servo, M, h, t=0.4):
    c = PassiveCreeping(PassiveCreepingParams(E_ref=1.0, coupling_gain_fixed=G, servo=servo))
    s = _state(M, t)
    c.reset(s.model, h)
    return c.act(s), c, s


@pytest.mark.parametrize("n_base", [0, 6])
@pytest.mark.parametrize("servo", ["implicit_damping", "stable_pd", "implicit_pd"])
def test_implicit_head_converges_to_eq14_at_first_order(servo, n_base):
    """Same state, dt = 1, 0.5, 0.25, 0.125 ms: each form's torques minus the explicit law's (eq. 14, 15 at this
    state) fall by 2 per halving (first order, as the lab's PD servos: tolerance servo.spd_order), so the
    continuous-time law is eq. 14's; only its discretisation differs."""
    M = _spd(n_base + J, 3)
    gaps = []
    for h in (0.001, 0.0005, 0.00025, 0.000125):
        ref, _, _ = _torques("explicit", M, h)
        tau, _, _ = _torques(servo, M, h)
        assert np.abs(ref).max() < 1.5 and np.abs(tau).max() < 1.5  # below the effort limit: no clipping
        gaps.append(float(np.abs(tau - ref).max()))
    orders = [math.log2(gaps[i] / gaps[i + 1]) for i in range(len(gaps) - 1)]
    assert gaps[0] > 1e-4  # the forms do differ at a finite step (the test can see a difference)
    for order in orders:
        assert abs(order - 1.0) < tol("servo.spd_order"), (gaps, orders)


@pytest.mark.parametrize("servo", ["implicit_damping", "implicit_pd"])
def test_implicit_torques_are_the_law_at_the_predicted_next_state(servo):
    """Fixed base, so the prediction is exact with no other force: q̈ = M⁻¹τ, q̇⁺ = q̇ + h q̈, q⁺ = q + h q̇⁺.
    implicit_damping: the head's torque is eq. 14 with the rate term at q̇⁺ and the reference's rate at t + h.
    implicit_pd: the head's angle term at q⁺ and x_d(t + h) too, and every body torque eq. 15 at q⁺."""
    h = 0.005
    M = _spd(J, 5)
    tau, c, s = _torques(servo, M, h)
    p = c.params
    qd1 = s.qd + h * np.linalg.solve(M, tau)
    q1 = s.q + h * qd1
    e = p.E_ref - s.kinetic_energy
    g = p.a * c.I_head * abs(p.K_head * G / p.K_body + e)
    ph, ph1 = p.xd_omega * s.t + p.xd_phase, p.xd_omega * (s.t + h) + p.xd_phase
    xdd_d = -p.xd_amp * p.xd_omega**2 * math.sin(ph)
    xd_d1 = p.xd_amp * p.xd_omega * math.cos(ph1)
    if servo == "implicit_damping":
        angle = p.xd_amp * math.sin(ph) - s.q[-1]
        body = G * (s.q[1:] - s.q[:-1])
    else:
        angle = p.xd_amp * math.sin(ph1) - q1[-1]
        body = G * (q1[1:] - q1[:-1])
    head = g * (xdd_d + p.phi_t + p.k_p * angle + p.k_d * (xd_d1 - qd1[-1]))
    assert tau[-1] == pytest.approx(head, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(tau[:-1], body, rtol=1e-9, atol=1e-12)
    # and not the explicit law (the check sees the difference it guards)
    ref, _, _ = _torques("explicit", M, h)
    assert abs(ref[-1] - head) > 1e3 * 1e-9 * abs(head)


def test_body_coupling_step_bound_on_the_flagship_snake():
    """Eq. 15 is a stiffness K (τ_j = G(q_{j+1} − q_j)) taken explicitly in every form but implicit_pd. On
    the flagship's 10-module snake with the base free (zero pose) M⁻¹K has real negative eigenvalues −ω²,
    so semi-implicit Euler holds while h·ω_max < 2: h < 2/(ω_max(1)·√G) — 5 ms holds to G ≈ 6.4 N·m/rad
    (the characteristic's top gain is 5), 2.5 ms to G ≈ 26. Checked on the one-step map itself."""
    from lab.core.world import joint_space_inertia

    M, names = joint_space_inertia(scn.load("snake_passive_creeping").robot.to_urdf())
    n = len(names)
    K = np.zeros((n, n))
    for j in range(n - 1):
        K[j, j], K[j, j + 1] = -1.0, 1.0
    lam = np.linalg.eigvals(np.linalg.solve(M, K))
    assert np.abs(lam.imag).max() < 1e-6 * np.abs(lam.real).max() and lam.real.max() < 1e-6
    w1 = math.sqrt(-lam.real.min())  # rad/s at G = 1

    def radius(Gc, h):
        A = np.linalg.solve(M, Gc * K)
        step = np.block([[np.eye(n) + h * h * A, h * np.eye(n)], [h * A, np.eye(n)]])
        return float(np.abs(np.linalg.eigvals(step)).max())

    for Gc in (1.0, 5.0, 20.0):
        h_max = 2.0 / (w1 * math.sqrt(Gc))
        assert radius(Gc, 0.97 * h_max) < 1 + 1e-6 < radius(Gc, 1.03 * h_max)
    assert 2.0 / (w1 * math.sqrt(5.0)) > 0.005  # the characteristic's gains hold at 5 ms


def _run(servo, G_fixed, omega, duration, lines=None, dt=0.005):
    """A frozen-gain run at 5 ms; ``lines`` forces World.implicit_motor_lines (None: as the controller asks)."""
    from lab.core.runner import Simulation

    sc = scn.load("snake_passive_creeping", {"controller.servo": servo, "controller.coupling_gain_fixed": G_fixed,
                                             "controller.xd_omega": omega, "sim.dt": dt, "sim.duration": duration})
    sim = Simulation(sc)
    if lines is not None:
        sim.world.implicit_motor_lines = lines == "implicit"
    return sim.run()


@pytest.mark.slow
def test_gain_driven_runs_need_the_implicit_head_and_the_implicit_motor_lines_at_5ms():
    """Measured at 5 ms (issue 34): at K·∫ = 3 the explicit head chatters within 0.5 s even with the motors'
    lines implicit; at K·∫ = 5, ω = 4 (joints driven to their motors' lines) the implicit head alone chatters
    within 0.5 s on the explicit lines; the implicit head, which asks for the implicit lines, holds."""
    r = _run("explicit", 3.0, 2.0, 1.0, lines="implicit")
    assert r.status == "unstable"
    r = _run("implicit_damping", 5.0, 4.0, 1.0, lines="explicit")
    assert r.status == "unstable"
    r = _run("implicit_damping", 5.0, 4.0, 3.0)
    assert r.status == "ok"
    assert float(np.abs(r.series["tau"]).max()) > 1.0  # the torques do reach the motors' range
