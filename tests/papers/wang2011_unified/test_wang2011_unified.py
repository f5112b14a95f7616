"""Wang 2011 unified locomotion/manipulation model against independent formulations.

The independent side is written here from scratch in plain planar geometry: module yaws
θ_i = x³ + Σ_{k=4}^{i} x^k, COMs by a loop over the joint points, Jacobians by complex-step
differentiation (exact to rounding, no POE and no Lie algebra), the friction by the engine's own law
(lab.forces.friction.AnisotropicCoulomb on a hand-made snapshot), and a recursive Newton–Euler for
the inverse dynamics."""

import math
import xml.etree.ElementTree as ET
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import simpson

from lab.controllers.serpenoid import Serpenoid, SerpenoidParams
from lab.forces.friction import AnisotropicCoulomb
from lab.papers.wang2011_unified import model as W
from lab.papers.wang2011_unified.params import (
    INERTIA_CHECK,
    TABLE_D1,
    Wang2011Params,
    lab_base_from_paper,
    paper_base_from_lab,
    q_from_x,
    x_from_q,
)

P = Wang2011Params()
N = P.n  # 7 coordinates: x¹, x², x³ virtual, x⁴ … x⁷ the real joints
H = 1e-30  # complex step


def random_state(rng, scale=0.6):
    x = rng.normal(size=N) * scale
    x[:2] = rng.normal(size=2)  # base position anywhere
    return x, rng.normal(size=N) * 0.5, rng.normal(size=N) * 2.0


# ---------------------------------------------------------------- an independent planar formulation


def yaws(x):
    return x[2] + np.concatenate([[0.0], np.cumsum(x[3:])])


def coms(p, x):
    """(n_modules, 2) COMs by walking the joint points from the tail end (x¹, x²)."""
    th = yaws(x)
    r = np.array([x[0], x[1]])
    out = []
    for k in range(p.n_modules):
        e = np.array([np.cos(th[k]), np.sin(th[k])])
        out.append(r + 0.5 * p.L * e)
        r = r + p.L * e
    return np.array(out)


def com_jacobians(p, x):
    """(n_modules, 2, n) ∂b_i/∂x by complex step."""
    J = np.empty((p.n_modules, 2, N))
    for j in range(N):
        xc = x.astype(complex)
        xc[j] += 1j * H
        J[:, :, j] = coms(p, xc).imag / H
    return J


def yaw_jacobian(p):
    Jt = np.zeros((p.n_modules, N))
    for k in range(p.n_modules):
        Jt[k, 2 : 3 + k] = 1.0
    return Jt


def lagrangian_metric(p, x):
    J = com_jacobians(p, x)
    Jt = yaw_jacobian(p)
    return p.m * np.einsum("iaj,iak->jk", J, J) + p.I * Jt.T @ Jt


def metric_c(p, x):
    """Same metric, written so that complex x passes through (for ∂M by complex step)."""
    th = yaws(x)
    n_mod = p.n_modules
    # ∂b_i/∂x^j in closed planar form: 1 for x¹/x², and the perpendicular lever from joint j for j ≥ 3
    M = np.zeros((N, N), dtype=complex)
    Jt = yaw_jacobian(p)
    for i in range(n_mod):
        Jb = np.zeros((2, N), dtype=complex)
        Jb[0, 0] = Jb[1, 1] = 1.0
        for j in range(2, 3 + i):
            k0 = j - 2  # module index of joint x^j's child
            lever = sum(p.L * np.array([-np.sin(th[k]), np.cos(th[k])]) for k in range(k0, i))
            Jb[:, j] = lever + 0.5 * p.L * np.array([-np.sin(th[i]), np.cos(th[i])])
        M += p.m * Jb.T @ Jb
    return M + p.I * Jt.T @ Jt


def dM_complex_step(p, x):
    out = np.empty((N, N, N))
    for c in range(N):
        xc = x.astype(complex)
        xc[c] += 1j * H
        out[c] = metric_c(p, xc).imag / H
    return out


def lab_friction(p, x, xd):
    """Per-module COM forces (n_modules, 2) by the engine's law, fed the COM velocities and module axes.

    AnisotropicCoulomb accepts slip_tol ≥ 1e-5 m/s; since its force depends on v/slip_tol only, a
    smaller v_s is reached by scaling both the velocities and slip_tol by the same factor."""
    th = yaws(x)
    k = 1e-3 / p.v_s
    v = np.einsum("iaj,j->ia", com_jacobians(p, x), xd)
    v_W = np.zeros((p.n_modules, 3))
    v_W[:, :2] = v * k
    R = np.zeros((p.n_modules, 3, 3))
    R[:, 0, 0], R[:, 1, 0] = np.cos(th), np.sin(th)
    R[:, 0, 1], R[:, 1, 1] = -np.sin(th), np.cos(th)
    R[:, 2, 2] = 1.0
    mass = np.full(p.n_modules, p.m)
    model = SimpleNamespace(mass=mass, gravity=p.g, weight=mass * p.g, n_links=p.n_modules)
    state = SimpleNamespace(model=model, R_WB=R, v_W=v_W, fn=None)
    law = AnisotropicCoulomb(mu_t=p.mu_t, mu_n=p.mu_n, slip_tol=1e-3, head_exempt=p.head_exempt)
    return law(state, 0.0)[:, :2]


def newton_euler(p, x, xd, xdd, friction=True):
    """Recursive Newton–Euler on the planar chain: returns [F_x, F_y, τ₃, τ₄ … τₙ], the force and torque
    the tail's virtual joints must supply (zero for the free snake, the weld reaction when fixed) and
    the joint torques. τ_i acts +τ on module i, −τ on module i−1; F_i is module i−1's force on i at J_i."""
    n_mod, L, m, I = p.n_modules, p.L, p.m, p.I
    th = yaws(x)
    thd = xd[2] + np.concatenate([[0.0], np.cumsum(xd[3:])])
    thdd = xdd[2] + np.concatenate([[0.0], np.cumsum(xdd[3:])])
    e = np.stack([np.cos(th), np.sin(th)], 1)
    ep = np.stack([-np.sin(th), np.cos(th)], 1)
    # forward: joint points r_i and COM accelerations
    r = np.empty((n_mod + 1, 2))
    a_r = np.array([xdd[0], xdd[1]])
    r[0] = x[:2]
    a_c = np.empty((n_mod, 2))
    for k in range(n_mod):
        a_c[k] = a_r + 0.5 * L * (thdd[k] * ep[k] - thd[k] ** 2 * e[k])
        a_r = a_r + L * (thdd[k] * ep[k] - thd[k] ** 2 * e[k])
        r[k + 1] = r[k] + L * e[k]
    b = r[:-1] + 0.5 * L * e
    f = lab_friction(p, x, xd) if friction else np.zeros((n_mod, 2))

    def cross(u, v):
        return u[0] * v[1] - u[1] * v[0]

    F_next, tau_next = np.zeros(2), 0.0
    tau = np.empty(n_mod)
    for k in range(n_mod - 1, -1, -1):
        F = m * a_c[k] - f[k] + F_next
        tau[k] = I * thdd[k] + tau_next - cross(r[k] - b[k], F) + cross(r[k + 1] - b[k], F_next)
        F_next, tau_next = F, tau[k]
    return np.concatenate([F_next, tau])


# ---------------------------------------------------------------- parameters and conventions


def test_table_d1_and_the_inertia_discrepancy():
    assert P.n_modules == 5 and P.n == 7 and P.n_joints == 4
    for k, v in TABLE_D1.items():
        assert getattr(P, k) == v
    assert INERTIA_CHECK["thin_rod_mL2_12"] == pytest.approx(0.5 * 0.08**2 / 12)
    assert INERTIA_CHECK["lab_cylinder_r7.5mm"] == pytest.approx(2.737e-4, rel=1e-3)
    assert INERTIA_CHECK["ratio_paper_to_rod"] == pytest.approx(60.0)
    assert P.with_geometric_inertia().I == pytest.approx(INERTIA_CHECK["lab_cylinder_r7.5mm"])
    with pytest.raises(ValueError, match="v_s"):
        Wang2011Params(v_s=0.0)
    with pytest.raises(ValueError, match="n_modules"):
        Wang2011Params(n_modules=1)


def test_from_lab_snake_spec():
    from lab.robots.snake import SnakeSpec

    p = Wang2011Params.from_spec(SnakeSpec(n_modules=5))
    assert (p.n_modules, p.L, p.m) == (5, 0.08, 0.5)
    assert p.I == pytest.approx(INERTIA_CHECK["lab_cylinder_r7.5mm"])


def test_full_length_and_the_lab_urdf_geometry():
    """L is joint to joint: the POE puts J_{i+1} at L from J_i and each COM at L/2; the lab's URDF
    (link 0's frame at its centre, joint 0 at +L/2, the next joints L apart, axes +z) agrees."""
    from lab.robots.snake import SnakeSpec

    kin = W.kinematics(P, np.zeros(N))
    np.testing.assert_allclose(kin.b_S[2:, 0], P.L * (np.arange(5) + 0.5))
    root = ET.fromstring(SnakeSpec(n_modules=5).to_urdf())
    joints = root.findall("joint")
    assert len(joints) == P.n_joints
    xs = [float(j.find("origin").get("xyz").split()[0]) for j in joints]
    np.testing.assert_allclose(xs, [P.L / 2] + [P.L] * 3)
    assert all(j.find("axis").get("xyz") == "0 0 1" for j in joints)


def test_joint_and_base_conventions_paper_vs_lab():
    rng = np.random.default_rng(3)
    x, xd, xdd = random_state(rng)
    kin = W.kinematics(P, x)
    np.testing.assert_allclose(np.diff(kin.yaw[2:]), x[3:], atol=1e-12)  # lab: child yaw − parent yaw
    assert q_from_x(x[3:]) == pytest.approx(x[3:]) and x_from_q(x[3:]) == pytest.approx(x[3:])
    # link 0's COM and yaw from the paper's tail end point, with derivatives (checked by complex step in t)
    p0, yaw, v0, w0, a0, al0 = lab_base_from_paper(P.L, x[:3], xd[:3], xdd[:3])
    np.testing.assert_allclose(p0, kin.b_S[2, :2], atol=1e-14)
    assert yaw == pytest.approx(kin.yaw[2])

    def base_path(t):  # a quadratic path through (x, ẋ, ẍ) at t = 0
        return x[:3] + xd[:3] * t + 0.5 * xdd[:3] * t * t

    def lab_p(t):
        xb = base_path(t)
        return xb[:2] + 0.5 * P.L * np.array([np.cos(xb[2]), np.sin(xb[2])])

    np.testing.assert_allclose(v0, lab_p(1j * H).imag / H, rtol=1e-12, atol=1e-14)
    h = 1e-4
    np.testing.assert_allclose(a0, (lab_p(h) - 2 * lab_p(0.0) + lab_p(-h)).real / h**2, rtol=1e-6, atol=1e-8)
    xb, xdb, xddb = paper_base_from_lab(P.L, p0, yaw, v0, w0, a0, al0)
    np.testing.assert_allclose(np.concatenate([xb, xdb, xddb]), np.concatenate([x[:3], xd[:3], xdd[:3]]), atol=1e-13)


def test_gait_matches_the_lab_serpenoid_shifted_by_beta_over_omega():
    t = np.linspace(0.0, 7.0, 15)
    q, qd, qdd = P.gait(t)
    ctrl = Serpenoid(SerpenoidParams(alpha=P.alpha, omega=P.omega, beta=P.beta, gamma=P.gamma))
    ctrl.reset(SimpleNamespace(n_joints=P.n_joints, effort=1.5), 0.001)
    shift = P.lab_controller_time_shift()
    for k, tk in enumerate(t):
        ref, ref_d = ctrl.reference(tk + shift)
        np.testing.assert_allclose(ref, q[k], atol=1e-12)
        np.testing.assert_allclose(ref_d, qd[k], atol=1e-12)
    # the paper's phases: x^i = α sin(ωt + (i − 3)β)
    np.testing.assert_allclose(q[:, 0], P.alpha * np.sin(P.omega * t + P.beta))
    hh = 1e-5
    np.testing.assert_allclose(qd, (P.gait(t + hh)[0] - P.gait(t - hh)[0]) / (2 * hh), atol=1e-8)
    np.testing.assert_allclose(qdd, (P.gait(t + hh)[1] - P.gait(t - hh)[1]) / (2 * hh), atol=1e-8)


# ---------------------------------------------------------------- metric and connection


def test_metric_symmetric_positive_definite_and_equal_to_the_lagrangian_one():
    rng = np.random.default_rng(0)
    for _ in range(5):
        x, _, _ = random_state(rng)
        M = W.metric(P, x)
        np.testing.assert_allclose(M, M.T, atol=1e-15)
        assert np.linalg.eigvalsh(M).min() > 0
        np.testing.assert_allclose(M, lagrangian_metric(P, x), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(M, metric_c(P, x).real, rtol=1e-12, atol=1e-15)


def test_christoffel_eq14_eqs15_17_and_complex_step_agree():
    rng = np.random.default_rng(1)
    for _ in range(3):
        x, _, _ = random_state(rng)
        G = W.christoffel(P, x)
        dM = dM_complex_step(P, x)
        np.testing.assert_allclose(W.metric_derivative(P, x), dM, atol=1e-14)
        G_fd = 0.5 * (np.einsum("ikj->ijk", dM) + np.einsum("jki->ijk", dM) - np.einsum("kij->ijk", dM))
        np.testing.assert_allclose(G, G_fd, atol=1e-14)
        np.testing.assert_allclose(W.christoffel_park(P, x), G, atol=1e-14)
        np.testing.assert_allclose(G, G.transpose(1, 0, 2), atol=1e-16)  # Γ_ijk = Γ_jik


def test_coriolis_skew_symmetry():
    rng = np.random.default_rng(2)
    for _ in range(5):
        x, xd, _ = random_state(rng)
        Mdot = metric_c(P, x + 1j * H * xd).imag / H  # dM/dt along ẋ, independent of the model
        Nm = Mdot - 2 * W.coriolis_matrix(P, x, xd)
        np.testing.assert_allclose(Nm + Nm.T, 0.0, atol=1e-14)
        assert xd @ Nm @ xd == pytest.approx(0.0, abs=1e-14)


def test_appendix_tables_a1_b1_c1_as_printed():
    rng = np.random.default_rng(4)
    x, _, _ = random_state(rng)
    A = W.appendix_closed_forms(P, x)
    kin = W.kinematics(P, x)
    M = W.metric(P, x, kin)
    dM = W.metric_derivative(P, x, kin)
    G = W.christoffel(P, x, kin)
    assert A["M11"] == pytest.approx(M[0, 0]) and M[0, 1] == pytest.approx(0.0, abs=1e-15)
    for key, val in (("M13", M[0, 2]), ("M23", M[1, 2]), ("M33", M[2, 2]), ("G331", G[2, 2, 0]),
                     ("G332", G[2, 2, 1])):
        assert A[key] == pytest.approx(val, rel=1e-12, abs=1e-15), key
    np.testing.assert_allclose(A["M1j"][2:], M[0, 2:], atol=1e-15)
    np.testing.assert_allclose(A["M2j"][2:], M[1, 2:], atol=1e-15)
    np.testing.assert_allclose(A["dMk1_dxj"][2:, 2:], dM[2:, 2:, 0].T, atol=1e-15)  # [k, j] = ∂M_k1/∂x^j
    np.testing.assert_allclose(A["dMk2_dxj"][2:, 2:], dM[2:, 2:, 1].T, atol=1e-15)
    np.testing.assert_allclose(A["dbdx"], kin.dbdx, atol=1e-15)


def test_paper_conclusions_on_what_depends_on_the_base():
    """Conclusions 3.1.2, 3.2.1, 3.2.3 — the ground of the degeneration (eqs. 26–30)."""
    rng = np.random.default_rng(5)
    x, _, _ = random_state(rng)
    x2 = x.copy()
    x2[:3] = rng.normal(size=3)
    M, M2 = W.metric(P, x), W.metric(P, x2)
    G, G2 = W.christoffel(P, x), W.christoffel(P, x2)
    np.testing.assert_allclose(M2[3:, 3:], M[3:, 3:], atol=1e-15)
    np.testing.assert_allclose(G2[:, :, 3:], G[:, :, 3:], atol=1e-15)  # k ≥ 4: free of x¹, x², x³
    assert np.abs(G[:2]).max() < 1e-15 and np.abs(G[:, :2]).max() < 1e-15  # i or j ∈ {1, 2}
    assert G[2, 2, 2] == pytest.approx(0.0, abs=1e-15)
    x3 = x.copy()
    x3[:2] += 1.0
    np.testing.assert_allclose(W.metric(P, x3), M, atol=1e-15)  # nothing depends on x¹, x²


# ---------------------------------------------------------------- forces


def test_friction_pullback_equals_sum_of_jacobian_transposes_times_forces():
    rng = np.random.default_rng(6)
    for p in (P, replace(P, v_s=1e-5), replace(P, head_exempt=True)):
        for _ in range(3):
            x, xd, _ = random_state(rng)
            xd *= 0.02  # slip speeds of the order of v_s, where tanh is not yet a sign
            J = com_jacobians(p, x)
            F = lab_friction(p, x, xd)
            fY = np.einsum("iaj,ia->j", J, F)
            np.testing.assert_allclose(W.generalized_friction(p, x, xd), fY, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(W.friction_forces_W(p, W.kinematics(p, x), xd)[2:, :2], F, atol=1e-15)


def test_gravity_terms_vanish_in_the_horizontal_plane():
    rng = np.random.default_rng(7)
    x, _, _ = random_state(rng)
    assert np.abs(W.gravity_forces(P, x)).max() < 1e-15
    tilted = W.gravity_forces(P, x, g_W=(0.0, -P.g, 0.0))  # a vertical plane: eq. 33 is Σ G·∂b/∂x
    J = com_jacobians(P, x)
    np.testing.assert_allclose(tilted, np.einsum("iaj,a->j", J, P.m * np.array([0.0, -P.g])), atol=1e-14)


# ---------------------------------------------------------------- inverse dynamics


def test_eq22_equals_newton_euler_at_random_states():
    rng = np.random.default_rng(8)
    for p in (P, replace(P, v_s=1e-6)):
        for _ in range(5):
            x, xd, xdd = random_state(rng)
            xd *= 0.1
            Q = W.generalized_forces(p, x, xd, xdd)
            Q_ne = newton_euler(p, x, xd, xdd)
            np.testing.assert_allclose(Q, Q_ne, rtol=1e-11, atol=1e-12 * np.abs(Q_ne).max())


def test_manipulation_torques_equal_newton_euler_with_the_tail_fixed():
    t = np.linspace(0.0, 2 * P.period, 41)
    q, qd, qdd = P.gait(t)
    rng = np.random.default_rng(9)
    for p in (P, replace(P, v_s=1e-7)):
        for weld in ((0.0, 0.0, 0.0), tuple(rng.normal(size=3))):  # eq. 27 holds at any weld pose
            tau = W.manipulation_torques(p, q, qd, qdd, weld)
            for k in range(len(t)):
                x = np.concatenate([weld, q[k]])
                xd = np.concatenate([np.zeros(3), qd[k]])
                xdd = np.concatenate([np.zeros(3), qdd[k]])
                ne = newton_euler(p, x, xd, xdd)[3:]
                assert np.abs(tau[k] - ne).max() <= 1e-9 * np.abs(ne).max()
                # the degenerate model is eq. 22's rows 4–n with the base at rest (not a second model)
                np.testing.assert_allclose(tau[k], W.generalized_forces(p, x, xd, xdd)[3:], rtol=1e-12, atol=1e-15)


def test_manipulation_is_insensitive_to_the_slip_speed():
    t = np.linspace(0.0, 2 * P.period, 801)
    means = [W.mean_abs_torque(t, W.manipulation(replace(P, v_s=v), t).tau, 0.0, t[-1]) for v in (1e-3, 1e-7)]
    np.testing.assert_allclose(means[0], means[1], rtol=5e-3)


# ---------------------------------------------------------------- locomotion


def test_locomotion_without_friction_conserves_momentum_and_the_joints_do_the_work():
    p = replace(P, mu_t=0.0, mu_n=0.0)
    T = 3.0
    t = np.linspace(0.0, T, 1501)
    run = W.Locomotion(p).simulate(T, t_eval=t, rtol=1e-11, atol=1e-12, method="DOP853")
    mom = [W.momentum_W(p, x, xd) for x, xd in zip(run.x, run.xd)]
    lin = np.array([m[0] for m in mom])
    ang = np.array([m[1] for m in mom])
    scale = p.m * np.abs(run.xd[:, :2]).max()
    assert np.abs(lin - lin[0]).max() < 1e-8 * scale
    assert np.abs(ang - ang[0]).max() < 1e-8 * (scale * 0.4 + p.I)
    E = np.array([W.kinetic_energy(p, x, xd) for x, xd in zip(run.x, run.xd)])
    power = np.einsum("tj,tj->t", run.tau, run.xd[:, 3:])
    work = np.array([simpson(power[: k + 1], x=t[: k + 1]) if k > 1 else 0.0 for k in (500, 1000, 1500)])
    np.testing.assert_allclose(E[[500, 1000, 1500]] - E[0], work, atol=1e-7 * np.abs(E).max())
    assert np.abs(run.fY).max() == 0.0


def test_locomotion_trajectory_is_consistent_with_the_inverse_dynamics_and_the_lab_wrapper():
    p = replace(P, v_s=1e-3)
    t = np.linspace(0.0, 3.0, 31)
    run = W.Locomotion(p).simulate(3.0, t_eval=t)
    tau, resid = W.joint_torques_along(p, run.x, run.xd, run.xdd)
    np.testing.assert_allclose(tau, run.tau, rtol=1e-10, atol=1e-13)
    assert np.abs(resid).max() < 1e-12  # the external dynamics (eq. 23) is satisfied
    p0, yaw, v0, w0, a0, al0 = run.lab_base()
    tau_lab, resid_lab = W.joint_torques_along_lab(p, p0, yaw, v0, w0, a0, al0, run.x[:, 3:], run.xd[:, 3:],
                                                   run.xdd[:, 3:])
    np.testing.assert_allclose(tau_lab, run.tau, rtol=1e-10, atol=1e-13)
    assert np.abs(resid_lab).max() < 1e-12
    for k in (5, 20, 30):
        np.testing.assert_allclose(run.tau[k], newton_euler(p, run.x[k], run.xd[k], run.xdd[k])[3:], rtol=1e-10,
                                   atol=1e-13)
    # it crawls forward, head first: the tail end advances along +X
    assert run.x[-1, 0] > 0.05
    assert math.isfinite(run.tail_distance()[1])


def test_study_runs_and_reports_both_cases():
    from lab.papers.wang2011_unified.slip_study import run_case, slip_speed_study

    p = replace(P, v_s=1e-3)
    c = run_case(p, periods=0.25, n_samples=101)
    assert c.locomotion_mean_abs_tau.shape == (4,) and c.manipulation_mean_abs_tau.shape == (4,)
    assert np.all(c.manipulation_mean_abs_tau > c.locomotion_mean_abs_tau)  # welded, the whole body slides
    assert c.tail_path_length >= c.tail_displacement > 0
    res = slip_speed_study(p, slip_speeds=(1e-3,), periods=0.25, n_samples=101)
    assert "1e-03" in res.table() and res.case(1e-3).v_s == 1e-3


# ---------------------------------------------------------------- trajectory level, independent plants


def test_the_papers_newton_euler_module_is_this_files_recursion():
    """lab.papers.wang2011_unified.newton_euler (the report's comparison partner) and the recursion above
    (friction by the engine's own law) give the same generalised forces at random states."""
    from lab.papers.wang2011_unified import newton_euler as NE

    rng = np.random.default_rng(11)
    for p in (P, replace(P, v_s=1e-5), replace(P, head_exempt=True)):
        for _ in range(4):
            x, xd, xdd = random_state(rng)
            xd *= 0.05
            want = newton_euler(p, x, xd, xdd)
            np.testing.assert_allclose(NE.inverse_dynamics(p, x, xd, xdd), want, rtol=1e-12,
                                       atol=1e-13 * np.abs(want).max())


@pytest.mark.slow
def test_newton_euler_and_unified_plants_crawl_the_same_track_with_the_same_torques():
    """Two plants, each integrated on its own over one gait period from the same start: the unified model
    (eq. 25, metric and Christoffel symbols) and the Newton–Euler equations (base acceleration solved from
    the free tail's zero force and torque). Tail displacement, the tracks and the per-joint torque RMS."""
    from lab.papers.wang2011_unified import newton_euler as NE
    from lab.papers.wang2011_unified import study
    from lab.core.tolerances import tol

    sc = study.load("locomotion")
    p = study.model_params(sc, "engine")
    t = np.linspace(0.0, p.period, 629)
    uni = study.model_locomotion(p, sc, t)
    ne = NE.simulate(p, study.gait_of(sc.controller)(p.n_joints), t, NE.tail_start(sc))
    d_u = np.linalg.norm(uni.tail_W[-1] - uni.tail_W[0])
    d_n = np.linalg.norm(ne.tail_W[-1] - ne.tail_W[0])
    assert d_u > 0.02  # it crawls
    assert abs(d_n - d_u) < tol("unified.ne_plant_track_m")
    assert np.linalg.norm(uni.tail_W - ne.tail_W, axis=1).max() < tol("unified.ne_plant_track_m")
    rms_u = np.sqrt(np.mean(uni.tau ** 2, axis=0))
    rms_n = np.sqrt(np.mean(ne.tau ** 2, axis=0))
    np.testing.assert_allclose(rms_n, rms_u, rtol=tol("unified.ne_plant_torque_nrmse"))
    assert study.runs_error(t, ne.tau, uni.tau)[1].max() < tol("unified.ne_plant_torque_nrmse")
