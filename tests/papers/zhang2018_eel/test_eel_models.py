"""The eel's analytic models (Zhang 2018): exact vs non-inertial, an independent Lagrangian
mass matrix, conservation laws without water, the feedback linearisation's error dynamics, the turning
direction of eq. 39, and the paper ↔ lab joint convention."""

import math

import numpy as np
import pytest
from oracles.eel_terms import reduced_terms, reduced_terms_reference

from lab.papers.zhang2018_eel.controllers import EelFeedbackLinearization, EelFLParams, fl_torque, gamma_eq39, reference
from lab.papers.zhang2018_eel.model.exact import ExactModel, kinetic_energy, momentum
from lab.papers.zhang2018_eel.model.noninertial import NonInertialModel, exact_state_to_noninertial
from lab.papers.zhang2018_eel.model.params import (
    PAPER,
    EelParams,
    chain_matrices,
    discrepancy_rows,
    formula_values,
    link_angles,
    link_positions,
    phi_from_q,
    reconstructed_values,
    tau_from_u,
)

N = 9


def random_state(rng, n=N, scale=0.5):
    return rng.normal(size=2 * n + 4) * scale


# ---------------------------------------------------------------- parameters


def test_numbers_are_the_papers_and_the_discrepancies_are_documented():
    p = EelParams()
    for k in ("c_t", "c_n", "u_n", "lambda1", "lambda2", "lambda3"):
        assert getattr(p, k) == PAPER[k]
    assert p.c_t2 == p.c_t and p.c_n2 == p.c_n  # eq. 22: the same numbers for both drag terms
    assert p.m == pytest.approx(1000 * math.pi * 0.0375**2 * 2 * 0.0626)  # neutral buoyancy
    assert p.J == pytest.approx(p.m * 0.0626**2 / 3)  # Table 1
    f, r = formula_values(), reconstructed_values()
    assert f["c_n"] / PAPER["c_n"] == pytest.approx(3.15, abs=0.01)  # the printed c_n is π·... too large
    assert r["c_n"] == pytest.approx(PAPER["c_n"], rel=1e-12)
    assert r["lambda3"] == pytest.approx(PAPER["lambda3"], rel=1e-4)
    assert r["u_n"] == pytest.approx(PAPER["u_n"], rel=1e-3)
    assert r["c_t"] == pytest.approx(PAPER["c_t"], rel=1e-3)
    assert r["lambda1"] == pytest.approx(PAPER["lambda1"], rel=1e-4)
    assert r["lambda2"] == pytest.approx(PAPER["lambda2"], rel=0.02)
    assert len(discrepancy_rows()) == 6


def test_params_reject_bad_values():
    with pytest.raises(ValueError, match="n:"):
        EelParams(n=1)
    with pytest.raises(ValueError, match="u_n:"):
        EelParams(u_n=-1.0)
    with pytest.raises(ValueError, match="term"):
        EelParams().without("viscosity")


def test_chain_matrices_identities():
    M = chain_matrices(N)
    e = np.ones(N)
    np.testing.assert_allclose(M.K @ e, 0, atol=1e-12)  # K e = 0
    np.testing.assert_allclose(M.D @ e, 0, atol=1e-12)
    np.testing.assert_allclose(M.D @ M.A.T, -M.A @ M.D.T, atol=1e-12)
    np.testing.assert_allclose(M.D @ M.W_c, np.hstack([np.eye(N - 1), np.zeros((N - 1, 1))]), atol=1e-12)
    np.testing.assert_allclose(M.K @ M.K.T, M.V, atol=1e-12)


# ---------------------------------------------------------------- conventions


def test_joint_convention_paper_vs_lab():
    """φ_i = θ_i − θ_{i+1} (paper, tail first) and q_j = θ_{j+1} − θ_j (lab): φ = −q, τ = −u."""
    rng = np.random.default_rng(0)
    q = rng.uniform(-0.5, 0.5, N - 1)
    theta = link_angles(phi_from_q(q), 0.3, N)
    np.testing.assert_allclose(np.diff(theta), q, atol=1e-12)  # lab: child − parent
    assert theta.mean() == pytest.approx(0.3)
    u = rng.normal(size=N - 1)
    qd = rng.normal(size=N - 1)
    assert np.dot(u, phi_from_q(qd)) == pytest.approx(np.dot(tau_from_u(u), qd))  # same power
    # link i+1 sits l ahead of link i's front end, along the links' x axes: the head is the last link
    X, Y = link_positions(theta, np.zeros(2), 0.0626)
    step = np.stack([np.diff(X), np.diff(Y)], 1)
    expect = 0.0626 * np.stack([np.cos(theta[:-1]) + np.cos(theta[1:]), np.sin(theta[:-1]) + np.sin(theta[1:])], 1)
    np.testing.assert_allclose(step, expect, atol=1e-12)


# ---------------------------------------------------------------- the two models


@pytest.mark.parametrize("terms", [None, ("linear",), ("quadratic",), ("added_mass", "added_inertia"),
                                   ("torque_linear", "torque_quadratic")])
def test_exact_and_noninertial_rhs_agree_on_random_states(terms):
    P = EelParams() if terms is None else EelParams().only(*terms)
    ctrl = EelFeedbackLinearization(EelFLParams())
    rng = np.random.default_rng(1)
    for _ in range(5):
        y = random_state(rng)
        x = exact_state_to_noninertial(y, N)
        for c in (None, ctrl):
            ex, ni = ExactModel(P, c), NonInertialModel(P, c)
            qdd, u = ex.accelerations(0.7, y)
            qdd_n, vdot, u_n = ni.accelerations(0.7, x)
            np.testing.assert_allclose(qdd_n, qdd[:N], rtol=1e-10, atol=1e-10)
            np.testing.assert_allclose(u_n, u, rtol=1e-10, atol=1e-10)
            th0, thd0 = y[N - 1], y[2 * N + 1]
            R = np.array([[math.cos(th0), math.sin(th0)], [-math.sin(th0), math.cos(th0)]])
            vt, vn = x[2 * N + 2], x[2 * N + 3]
            np.testing.assert_allclose(vdot, R @ qdd[N:] + [vn * thd0, -vt * thd0], rtol=1e-10, atol=1e-10)


def test_fast_reduced_terms_equal_the_eq33_matrices():
    """The two numpy oracles: the vectorised arrangement against the full eq. 33 matrices."""
    ni = NonInertialModel(EelParams())
    rng = np.random.default_rng(2)
    for _ in range(5):
        x = random_state(rng, scale=0.8)
        M, h, _ = reduced_terms(ni, x)
        M2, h2 = reduced_terms_reference(ni, x)
        np.testing.assert_allclose(M, M2, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(h, h2, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(M, M.T, atol=1e-14)  # a Schur complement of a symmetric mass matrix


def test_compiled_terms_core_equals_the_numpy_oracles():
    """The model's (M, h) and drag (lab.papers.zhang2018_eel.model.noninertial.terms_core, numba-compiled)
    against the vectorised numpy oracle and the full eq. 33 matrices (tests/oracles/eel_terms.py), on
    random states away from zero; and the same source run as plain Python."""
    from lab.papers.zhang2018_eel.model.noninertial import terms_core

    ni = NonInertialModel(EelParams())
    rng = np.random.default_rng(5)
    for _ in range(5):
        x = random_state(rng, scale=0.8)
        M, h, fDt, fDn, Mp = ni.terms_and_drag(x)
        M_np, h_np, (_, _, fDt_np, fDn_np, Mp_np) = reduced_terms(ni, x)
        M_ref, h_ref = reduced_terms_reference(ni, x)
        M_py, h_py, _, _, _ = terms_core(x, *ni._core_args)  # plain Python, not compiled
        for a, b in ((M, M_np), (h, h_np), (M, M_ref), (h, h_ref), (M_py, M), (h_py, h),
                     (fDt, fDt_np), (fDn, fDn_np), (Mp, Mp_np)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14 * np.abs(b).max())
        np.testing.assert_array_equal(ni.terms(x)[0], M)


@pytest.mark.slow
def test_models_agree_over_the_paper_schedule_and_the_eel_turns_the_expected_way():
    P = EelParams()
    cp = EelFLParams()
    t = np.linspace(0, 50, 501)
    ex = ExactModel(P, EelFeedbackLinearization(cp)).simulate(50.0, t_eval=t)
    ni = NonInertialModel(P, EelFeedbackLinearization(cp)).simulate(50.0, t_eval=t)
    dist = np.linalg.norm(np.diff(ex.p, axis=0), axis=1).sum()
    assert np.linalg.norm(ex.p - ni.p, axis=1).max() / dist < 1e-4
    assert np.abs(ex.theta0 - ni.theta0).max() / np.ptp(ex.theta0) < 1e-4
    # it swims head first: the CM moves along the heading
    vt = ex.v[:, 0] * np.cos(ex.theta0) + ex.v[:, 1] * np.sin(ex.theta0)
    assert vt[t > 3].mean() > 0.1
    # γ < 0 on [10, 20): the joint offset bends the head to the left (θ_{i+1} > θ_i): the heading rises;
    # γ > 0 on [30, 40): it falls. Compare stroke-averaged headings (one stroke = 2π/ω = 3 s).
    def stroke_mean(t0):
        k = (t >= t0) & (t < t0 + 3.0)
        return ex.theta0[k].mean()

    assert stroke_mean(17.0) - stroke_mean(10.0) > 0.05
    assert stroke_mean(37.0) - stroke_mean(30.0) < -0.05


# ---------------------------------------------------------------- independent formulation


def fk_loop(q, n, l):
    """Link angles and COMs by walking the chain from the tail (no K, no W_c). Works on complex q (for
    complex-step derivatives)."""
    phi, th0, p = q[: n - 1], q[n - 1], q[n : n + 2]
    theta = np.zeros(n, dtype=q.dtype)
    for i in range(n - 1):
        theta[i + 1] = theta[i] - phi[i]
    theta = theta + th0 - theta.mean()
    X, Y = np.zeros(n, dtype=q.dtype), np.zeros(n, dtype=q.dtype)
    for i in range(n - 1):
        X[i + 1] = X[i] + l * (np.cos(theta[i]) + np.cos(theta[i + 1]))
        Y[i + 1] = Y[i] + l * (np.sin(theta[i]) + np.sin(theta[i + 1]))
    return theta, X - X.mean() + p[0], Y - Y.mean() + p[1]


def lagrangian_mass_matrix(q, P, h=1e-30):
    """M(q) of T = Σ ½m|v|² + ½u_n(n·v)² + ½(J+λ1)θ̇², the velocity Jacobians by complex-step
    differentiation of the loop kinematics (exact to rounding)."""
    n = P.n
    cols = []
    for k in range(len(q)):
        dq = np.zeros(len(q), dtype=complex)
        dq[k] = 1j * h
        cols.append([a.imag / h for a in fk_loop(q.astype(complex) + dq, n, P.l)])
    Jth = np.array([c[0] for c in cols]).T
    JX = np.array([c[1] for c in cols]).T
    JY = np.array([c[2] for c in cols]).T
    theta = fk_loop(q, n, P.l)[0]
    Jn = -np.sin(theta)[:, None] * JX + np.cos(theta)[:, None] * JY
    return (P.J + P.lambda1) * Jth.T @ Jth + P.m * (JX.T @ JX + JY.T @ JY) + P.u_n * Jn.T @ Jn


def test_mass_matrix_equals_an_independent_lagrangian_one():
    P = EelParams()
    ex = ExactModel(P)
    rng = np.random.default_rng(3)
    for _ in range(4):
        y = random_state(rng, scale=0.7)
        M, _ = ex.terms(y)
        M_L = lagrangian_mass_matrix(y[: N + 2], P)
        np.testing.assert_allclose(M, M_L, rtol=1e-10, atol=1e-13 * np.abs(M_L).max())


def test_dry_dynamics_equal_lagranges_equations():
    """Without water (u_n = 0, no drag) the exact model is the Lagrangian chain: M q̈ + C(q, q̇)q̇ = [u; 0]
    with C from differentiating M numerically."""
    P = EelParams().only()
    ex = ExactModel(P)
    rng = np.random.default_rng(4)
    y = random_state(rng, scale=0.6)
    q, qd = y[: N + 2], y[N + 2 :]
    h = 1e-4
    dM = []
    for k in range(N + 2):
        dq = np.zeros(N + 2)
        dq[k] = h
        dM.append((lagrangian_mass_matrix(q + dq, P) - lagrangian_mass_matrix(q - dq, P)) / (2 * h))
    dM = np.array(dM)  # ∂M/∂q_k
    Mdot_qd = np.einsum("k,kij,j->i", qd, dM, qd)
    dT_dq = 0.5 * np.einsum("i,kij,j->k", qd, dM, qd)
    bias = Mdot_qd - dT_dq
    _, h_model = ex.terms(y)
    np.testing.assert_allclose(h_model, bias, rtol=1e-6, atol=1e-7 * np.abs(bias).max())


@pytest.mark.slow
def test_without_water_momentum_and_energy_are_conserved():
    P = EelParams().only()
    rng = np.random.default_rng(5)
    y0 = random_state(rng, scale=0.4)
    y0[: N + 2] *= 0.5
    free = ExactModel(P)  # no control: energy conserved too
    run = free.simulate(3.0, t_eval=[0.0, 1.5, 3.0], y0=y0, rtol=1e-10, atol=1e-10)
    E = [kinetic_energy(free, y) for y in run.y]
    assert np.ptp(E) / E[0] < 1e-7
    L = [momentum(free, y) for y in run.y]
    np.testing.assert_allclose([lin for lin, _ in L], [L[0][0]] * 3, atol=1e-9)
    assert np.ptp([a for _, a in L]) < 1e-8
    # joint torques are internal: they change the shape and the energy, not the momenta
    driven = ExactModel(P, EelFeedbackLinearization(EelFLParams()))
    run = driven.simulate(3.0, t_eval=[0.0, 1.5, 3.0], y0=y0, rtol=1e-10, atol=1e-10)
    L = [momentum(driven, y) for y in run.y]
    np.testing.assert_allclose([lin for lin, _ in L], [L[0][0]] * 3, atol=1e-9)
    assert np.ptp([a for _, a in L]) < 1e-8


# ---------------------------------------------------------------- controller


@pytest.mark.slow
def test_feedback_linearisation_gives_the_eq38_error_dynamics():
    cp = EelFLParams()
    ex = ExactModel(EelParams(), EelFeedbackLinearization(cp))
    t = np.array([0.0, 0.25, 0.5, 1.0])
    run = ex.simulate(1.0, t_eval=t, rtol=1e-10, atol=1e-10)
    r0, rd0, _ = reference(cp, 0.0, N - 1)
    e0, ed0 = -r0, -rd0  # zero initial state
    lam = np.roots([1.0, cp.kd, cp.kp])  # e'' + K_d e' + K_p e = 0
    a = np.linalg.solve([[1, 1], lam], np.stack([e0, ed0]))
    for k, tk in enumerate(t):
        e = (a[0] * np.exp(lam[0] * tk) + a[1] * np.exp(lam[1] * tk)).real
        np.testing.assert_allclose(run.phi[k] - reference(cp, tk, N - 1)[0], e, atol=1e-7)


def test_fl_torque_schur_form_matches_a_full_solve():
    rng = np.random.default_rng(6)
    A = rng.normal(size=(6, 6))
    M = A @ A.T + 6 * np.eye(6)
    h = rng.normal(size=6)
    ubar = rng.normal(size=4)
    u = fl_torque(M, h, ubar)
    qdd = np.linalg.solve(M, np.concatenate([u, [0, 0]]) - h)
    np.testing.assert_allclose(qdd[:4], ubar, atol=1e-12)
    M1 = M[:5, :5]
    u1 = fl_torque(M1, h[:5], ubar)  # the scalar (θ0) fast path
    np.testing.assert_allclose(np.linalg.solve(M1, np.append(u1, 0) - h[:5])[:4], ubar, atol=1e-12)


def test_gamma_schedule_eq39():
    assert [gamma_eq39(t) for t in (0, 9.99, 10, 15, 19.99, 20, 25, 30, 39.99, 40, 50)] == \
        [0, 0, -0.01, -0.01, -0.01, 0, 0, 0.01, 0.01, 0, 0]
    p = EelFLParams(gamma_schedule="constant", gamma=0.1)
    assert reference(p, 15.0, 3)[0] == pytest.approx(p.alpha * np.sin(p.omega * 15 + p.beta * np.arange(3)) + 0.1)


def test_controller_params_validation():
    with pytest.raises(ValueError, match="alpha"):
        EelFLParams(alpha=3.0)
    with pytest.raises(ValueError, match="kp"):
        EelFLParams(kp=0.0)


@pytest.mark.slow
def test_solution_does_not_depend_on_the_sampling_grid():
    """simulate() restarts at eq. 39's γ steps; the restart must use the state at the step, not the
    last sample before it (a bug once made the trajectory depend on t_eval)."""
    model = ExactModel(EelParams(), EelFeedbackLinearization(EelFLParams()))
    t = np.linspace(0, 12, 61)
    a = model.simulate(12.0, t_eval=t)
    b = model.simulate(12.0, t_eval=np.union1d(t, [9.995, 10.0005, 11.3]))
    k = np.isin(b.t, t)
    np.testing.assert_array_equal(a.t, b.t[k])
    np.testing.assert_allclose(a.y, b.y[k], rtol=0, atol=1e-12)


# ---------------------------------------------------------------- the controller as the engine applies it


def _held_model(ctrl=None):
    return ExactModel(EelParams(), EelFeedbackLinearization(ctrl or EelFLParams()))


@pytest.mark.slow
def test_held_controller_integration_equals_solve_ivp_on_the_held_segments():
    """simulate_held's one Runge–Kutta step per 5-ms hold against solve_ivp (rtol 1e-10) with the same
    held torques: the open-loop dynamics under a held u have no fast mode, so one step suffices."""
    from scipy.integrate import solve_ivp

    from lab.papers.zhang2018_eel.model.exact import simulate_held

    m, hold = _held_model(), 0.005
    run = simulate_held(m, 0.5, hold)
    y, n = m.initial_state(), m.n
    for k in range(100):
        u = m.torque(k * hold, y)
        np.testing.assert_allclose(run.u[k + 1], u, rtol=1e-5, atol=1e-8)  # the sample at t_{k+1} holds u_k

        def f(t, yy, u=u):
            M, h = m.terms(yy)
            Q = -h
            Q[: n - 1] += u
            return np.concatenate((yy[n + 2 :], np.linalg.solve(M, Q)))

        y = solve_ivp(f, (k * hold, (k + 1) * hold), y, rtol=1e-10, atol=1e-12).y[:, -1]
    assert np.abs(run.y[-1] - y).max() < 1e-7  # measured 1.3e-8; the continuous model runs at rtol = atol = 1e-6
    assert np.abs(run.y[-1][: n - 1]).max() > 0.1  # the joints moved


def test_held_controller_converges_to_the_continuous_one_at_first_order():
    """The sample-and-hold is the engine's, not the paper's: its start-up torque departs from the continuous
    loop's (eq. 38's fast pole −98 s⁻¹ against h = 5 ms), and the departure falls as the hold halves."""
    from lab.papers.zhang2018_eel.model.exact import simulate_held

    m = _held_model()
    t = np.arange(0, 51) * 0.01  # 10-ms samples over 0.5 s, on every hold's grid
    cont = m.simulate(0.5, t_eval=t, rtol=1e-9, atol=1e-9)
    u_cont = np.array([m.torque(tt, yy) for tt, yy in zip(cont.t, cont.y)])
    errs = []
    for hold in (0.005, 0.0025, 0.00125):
        run = simulate_held(m, 0.5, hold, t_eval=t)
        errs.append(np.abs(run.y[:, : m.n - 1] - cont.y[:, : m.n - 1]).max())
    assert errs[0] > 1e-3  # at 5 ms the hold moves the joints by more than a milliradian …
    assert 1.7 < errs[0] / errs[1] < 2.3 and 1.7 < errs[1] / errs[2] < 2.3  # … first order in the hold
    assert np.abs(u_cont).max() > 1.0  # the start-up torque the hold samples is large
