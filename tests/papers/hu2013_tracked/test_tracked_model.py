"""Screw-theory climb model of Hu 2013 against independent formulations: plain trigonometry
of the closed chain, finite differences of the POE, a hand-derived quasi-static force/moment balance,
and the work–energy identity along the path."""

import math

import numpy as np
import pytest

from lab.analysis.se3 import adjoint, exp_twist, lie_bracket
from lab.papers.hu2013_tracked.model import (ClimbParams, Perimeter, climb, climb_chain, climb_path, flip_chain,
                                             gravity_S, height_limit, polygon_moments, rounded_triangle_polygon,
                                             trig_climb_pose, trig_closure)

P = ClimbParams()
H = 0.15


def test_table1_numbers_and_derived_geometry():
    assert height_limit(P) == pytest.approx(0.195)
    assert P.l_z == pytest.approx(0.22 / (2 * math.sqrt(3)) + 0.025)  # 88.5 mm
    assert P.z_pivot0 == pytest.approx(0.135)
    s = P.split(P.motor_torque_max)  # the planetary split at 18.8 mN·m
    assert s["arm_torque_Nm"] == pytest.approx(0.0188 * 144 * 5)
    assert s["pulley_torque_Nm"] == pytest.approx(0.0188 * 144 * 5 * 3 / 8)
    assert s["belt_force_N"] == pytest.approx(0.0188 * 144 * 5 * 3 / 8 / 0.025)
    assert P.arm_speed_max == pytest.approx(3600 * 2 * math.pi / 60 / 720)  # 0.524 rad/s
    # eq. (12): v_d = θ̇ r / i2 at θ̇ = 0.5 rad/s is 33 mm/s, the experiment's ~3 cm/s
    assert 0.5 * P.sigma_per_theta == pytest.approx(0.0333, abs=1e-4)


def test_validation_names_the_field():
    with pytest.raises(ValueError, match="arm_length"):
        ClimbParams(arm_length=0.0)
    with pytest.raises(ValueError, match="pulley_radius"):
        ClimbParams(pulley_radius=0.2)
    with pytest.raises(ValueError, match="^h:"):
        climb_path(P, 0.01)  # below r: the front pulley rolls over, no flip-and-climb


def test_exp_twist_and_adjoint_identities():
    xi = np.array([0.1, -0.2, 0.3, 0.0, 0.6, 0.8])
    g = exp_twist(xi, 0.7)
    assert np.allclose(g[:3, :3] @ g[:3, :3].T, np.eye(3))
    # Ad_g ξ is the twist of g exp(ξ t) g⁻¹: exp(Ad_g ξ t) = g exp(ξ t) g⁻¹
    h = exp_twist(np.array([0.0, 0.0, 0.2, 1.0, 0.0, 0.0]), 0.4)
    lhs = exp_twist(adjoint(h) @ xi, 0.7)
    rhs = h @ g @ np.linalg.inv(h)
    assert np.allclose(lhs, rhs, atol=1e-12)
    assert np.allclose(lie_bracket(xi, xi), 0.0)


def test_perimeter_is_a_closed_unit_speed_curve():
    per = Perimeter(P.track_side, P.pulley_radius)
    lam = np.linspace(0, per.length, 2001)
    pts = np.array([per.eval(x)[0] for x in lam])
    assert np.allclose(pts[0], pts[-1], atol=1e-12)
    step = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    assert step.sum() == pytest.approx(per.length, rel=1e-5)
    for x in (0.05, 0.23, 0.26, 0.4, 0.55, 0.7):
        b, t, k, _ = per.eval(x)
        assert np.linalg.norm(t) == pytest.approx(1.0)
        e = 1e-6
        assert np.allclose((per.eval(x + e)[0] - per.eval(x - e)[0]) / (2 * e), t, atol=1e-7)
        # the outward normal points away from the centre
        assert per.normal(x) @ b > 0


def test_polygon_moments_of_a_square_and_the_body_inertia():
    sq = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]])
    A, Iyy, Izz = polygon_moments(sq)
    assert (A, Iyy, Izz) == pytest.approx((2.0, 1.0 * 2**3 / 12, 2.0 * 1**3 / 12))
    # 120° symmetry: equal second moments; the section lies between the pulley triangle and its offset
    A, Iyy, Izz = polygon_moments(rounded_triangle_polygon(P.track_side, P.pulley_radius, 400))
    assert Iyy == pytest.approx(Izz, rel=1e-6)
    l, r = P.track_side, P.pulley_radius
    assert A == pytest.approx(math.sqrt(3) / 4 * l**2 + 3 * l * r + math.pi * r**2, rel=1e-4)


@pytest.mark.parametrize("phi,s,theta", [(0.0, 0.0, 0.36), (0.3, 0.02, 0.9), (0.8, 0.05, 1.5), (-0.1, 0.01, 0.2)])
def test_poe_kinematics_match_plain_trigonometry(phi, s, theta):
    """Eqs. (1–2) with Table 2's twists (the perimeter joint on the straight face = ξ4) vs the closed
    chain drawn with sines and cosines; eq. (12)'s closure vs the POE's guide-wheel height."""
    ch = climb_chain(P, H)
    q = np.array([phi, s, theta])
    gw, ga = ch.poses(q)
    ref = trig_climb_pose(P, H, phi, s, theta)
    assert np.allclose(gw[:3, 3], ref["body"], atol=1e-14)
    assert np.allclose(ga[:3, 3], ref["arm"], atol=1e-14)
    assert np.allclose(ch.wheel_centre(q), ref["wheel"], atol=1e-14)
    # body rotation: R_x(−φ); arm: R_x(θ − φ)
    c, sn = math.cos(theta - phi), math.sin(theta - phi)
    assert np.allclose(ga[:3, :3], [[1, 0, 0], [0, c, -sn], [0, sn, c]], atol=1e-14)
    assert ch.closure(q, P.guide_radius) == pytest.approx(-trig_closure(P, H, phi, s, theta), abs=1e-14)


@pytest.mark.parametrize("s", [0.02, 0.13])  # straight face, and past the bottom pulley (curved joint)
def test_jacobians_and_their_derivatives_against_finite_differences(s):
    ch = climb_chain(P, H)
    q = np.array([0.4, s, 1.1])
    e = 1e-6
    for k, link in enumerate(ch.links):
        J = ch.body_jacobian(q, link)
        dJ = ch.body_jacobian_derivatives(q, link, J)
        Jp, Hp = ch.point_derivatives(q, k, np.array([0.01, -0.03, 0.02]))
        for j in range(3):
            dq = np.zeros(3)
            dq[j] = e
            Jf = (ch.body_jacobian(q + dq, link) - ch.body_jacobian(q - dq, link)) / (2 * e)
            assert np.allclose(dJ[j], Jf, atol=1e-7), (link.name, j)
            Jpf = (ch.point_derivatives(q + dq, k, np.array([0.01, -0.03, 0.02]))[0]
                   - ch.point_derivatives(q - dq, k, np.array([0.01, -0.03, 0.02]))[0]) / (2 * e)
            assert np.allclose(Hp[:, :, j], Jpf, atol=1e-7)
        assert np.allclose(Hp, Hp.transpose(0, 2, 1), atol=1e-12)
        # the body Jacobian is the POE's body velocity: g⁻¹ ∂g/∂q_j
        g = ch.poses(q)[k]
        for j in range(3):
            dq = np.zeros(3)
            dq[j] = e
            dg = (ch.poses(q + dq)[k] - ch.poses(q - dq)[k]) / (2 * e)
            V = np.linalg.inv(g) @ dg
            assert np.allclose([V[0, 3], V[1, 3], V[2, 3], V[2, 1], V[0, 2], V[1, 0]], J[:, j], atol=1e-8)


def test_mass_matrix_and_coriolis_terms():
    """M symmetric positive definite; q̇ᵀ C q̇ = ½ q̇ᵀ Ṁ q̇ (the passivity identity), Ṁ by differences."""
    ch = climb_chain(P, H)
    q = np.array([0.5, 0.04, 1.2])
    qd = np.array([0.3, -0.05, 0.7])
    M, Cqd, N = ch.dynamics(q, qd, gravity_S(0.2, 0.3))
    assert np.allclose(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    e = 1e-6
    Mdot = (ch.mass_matrix(q + e * qd) - ch.mass_matrix(q - e * qd)) / (2 * e)
    assert qd @ Cqd == pytest.approx(0.5 * qd @ Mdot @ qd, rel=1e-7)
    # N = ∂V/∂q with V = −Σ m g·p
    g = gravity_S(0.2, 0.3)
    def V(qq):
        return -sum(link.mass * g @ pose[:3, 3] for link, pose in zip(ch.links, ch.poses(qq)))

    Nf = [(V(q + e * np.eye(3)[j]) - V(q - e * np.eye(3)[j])) / (2 * e) for j in range(3)]
    assert np.allclose(N, Nf, atol=1e-7)


def _hand_statics(p, h, phi, s, theta, g_yz):
    """Quasi-static forces from a free-body diagram drawn by hand (no POE): unknowns λ (slope on the
    guide wheel, along +z_S), N and T (edge on the body, normal and along the face), τ (body on the
    arm about +x). Moments about the edge for the whole robot give λ; force balance gives N, T;
    the arm's moment about the pivot gives τ."""
    pose = trig_climb_pose(p, h, phi, s, theta)
    mw, ma = p.m_body, p.m_arm
    gy, gz = g_yz
    E = np.array([0.0, h])
    C, A, W = pose["body"][1:], pose["arm"][1:], pose["wheel"][1:]

    def mx(r, F):  # x component of r × F in the (y, z) plane
        return r[0] * F[1] - r[1] * F[0]

    Gw, Ga = np.array([mw * gy, mw * gz]), np.array([ma * gy, ma * gz])
    lam = -(mx(C - E, Gw) + mx(A - E, Ga)) / mx(W - E, np.array([0.0, 1.0]))
    n = np.array([math.cos(phi), -math.sin(phi)])  # outward face normal
    t = np.array([math.sin(phi), math.cos(phi)])  # along the face, up
    rest = -(Gw + Ga + np.array([0.0, lam]))  # = −N n + T t
    N, T = -rest @ n, rest @ t
    tau = -(mx(W - C, np.array([0.0, lam])) + mx(A - C, Ga))
    return lam, N, T, tau


@pytest.mark.parametrize("alpha,beta", [(0.0, 0.0), (0.35, 0.5)])
def test_quasi_static_climb_forces_match_a_hand_moment_balance(alpha, beta):
    path = climb_path(P, H)
    r = climb(P, H, arm_speed=1e-6, alpha=alpha, beta=beta, path=path)
    g = gravity_S(alpha, beta)
    for i in np.nonzero(r.phase == 1)[0][[0, 20, 60]]:
        phi, s, theta = path.q[i]
        lam, N, T, tau = _hand_statics(P, H, phi, s, theta, g[1:])
        assert r.wheel_force[i] == pytest.approx(lam, rel=1e-9)
        assert r.belt_force[i] == pytest.approx(T, rel=1e-9)
        assert r.edge_normal[i] == pytest.approx(N, abs=1e-8)
        assert r.arm_torque[i] == pytest.approx(tau, rel=1e-9)
        # eq. (11): the motor (at its shaft) supplies the arm's and the belt's power, referred to i1 θ̇
        expect = (tau + T * P.sigma_per_theta) / (P.i1 * P.i0)
        assert r.motor_torque[i] == pytest.approx(expect, rel=1e-9)


def test_climb_start_torque_closed_form():
    """At the climb's first pose (front face vertical, φ = s = 0) the edge carries F = m g − λ, and
    the arm needs τ = l_z F: τ_m = F (l_z + r/i2) / (i0 i1) = 8.79 mN·m (eq. 11, shaft)."""
    r = climb(P, H, arm_speed=1e-6)
    i = np.nonzero(r.phase == 1)[0][0]
    th0 = math.asin((P.z_pivot0 - P.guide_radius) / P.arm_length)
    g = P.gravity
    yw = P.l_z + P.arm_length * math.cos(th0)
    ya = P.l_z + P.arm_com * math.cos(th0)
    lam = (P.m_body * g * P.l_z + P.m_arm * g * ya) / yw
    F = (P.m_body + P.m_arm) * g - lam
    assert r.arm_torque[i] == pytest.approx(P.l_z * F, rel=1e-9)
    assert r.motor_torque[i] == pytest.approx(F * (P.l_z + P.sigma_per_theta) / 720, rel=1e-9)
    assert r.motor_torque[i] == pytest.approx(8.79e-3, abs=0.01e-3)


def test_flip_start_static_torque_by_hand():
    """Body on its base (ζ = −30°), arm trailing on the ground: moments about the front pulley's
    centre give the wheel force, the arm's balance about the pivot the arm torque."""
    path = climb_path(P, H)
    r = climb(P, H, arm_speed=1e-6, path=path)
    ch = flip_chain(P)
    q = np.array([path.q[0, 0], path.q[0, 2]])
    assert q[0] == pytest.approx(-math.pi / 6, abs=1e-9)
    gw, ga = ch.poses(q)
    W = ch.wheel_centre(q)
    F = np.array([0.0, -P.pulley_radius, P.pulley_radius])
    g = P.gravity
    # Σ M_F = 0 (forces at the front pulley pass through its centre; gravity and λ are vertical)
    lam = (P.m_body * g * (F[1] - gw[1, 3]) + P.m_arm * g * (F[1] - ga[1, 3])) / (F[1] - W[1])
    tau = -((W[1] - gw[1, 3]) * lam + (ga[1, 3] - gw[1, 3]) * (-P.m_arm * g))
    assert r.wheel_force[0] == pytest.approx(lam, rel=1e-9)
    assert r.arm_torque[0] == pytest.approx(tau, rel=1e-9)
    assert r.belt_force[0] == 0.0


@pytest.mark.slow
def test_work_along_the_path_equals_energy_gained():
    """∫ Q_path dθ = ΔV + ΔT over each phase (the eq.-11 torque is the path's virtual work)."""
    wd = 0.5
    path = climb_path(P, H, dtheta=0.002)
    r = climb(P, H, arm_speed=wd, path=path)
    g = gravity_S(0.0, 0.0)
    m = np.array([P.m_body, P.m_arm])
    for ph, ch, idx in ((0, flip_chain(P), [0, 2]), (1, climb_chain(P, H), [0, 1, 2])):
        k = np.nonzero(r.phase == ph)[0]
        th = path.theta[k]
        Q = r.motor_torque[k] * P.i1 * P.i0
        work = np.trapezoid(Q, th)
        E = []
        for i in (k[0], k[-1]):
            q, qd = path.q[i][idx], path.dq[i][idx] * wd
            M = ch.mass_matrix(q)
            pos = np.array([pp[:3, 3] for pp in ch.poses(q)])
            E.append(0.5 * qd @ M @ qd - m @ pos @ g)
        assert work == pytest.approx(E[1] - E[0], rel=2e-4)


@pytest.mark.slow
def test_path_closure_and_paper_trends():
    path = climb_path(P, H)
    assert path.closure_residual < 1e-10
    r3, r5, r7 = (climb(P, H, w, path=path) for w in (0.3, 0.5, 0.7))
    # Fig 9: the arm speed sets the climb time, not the peak torque (quasi-static climb)
    assert r3.peak_motor_torque == pytest.approx(r7.peak_motor_torque, rel=0.01)
    assert r3.time == pytest.approx(r7.time * 7 / 3, rel=1e-6)
    # Fig 8's claim: the torque stays under the motor's 18.8 mN·m
    assert r5.success and r5.peak_motor_torque < P.motor_torque_max
    # the momentum balance's tangential edge force is the Lagrangian belt force
    c = r5.phase == 1
    assert np.allclose(r5.edge_tangent[c], r5.belt_force[c], atol=1e-9)


@pytest.mark.slow
def test_climb_phase_peak_torque_has_a_closed_form_flat_in_the_step_height():
    """At arm angle 0 the step height drops out of eq. 12: every climb starts from the same pose, and the
    climb-phase peak is τ = g (m_w + (1 − ρ) m_a)(l_z + r/i2) L₀/(L₀ + l_z)/(i0 i1), L₀ = √(l_a² − (z_p − r_d)²),
    ρ = d_a/l_a; it rises with the arm length (against the paper's Fig 10)."""
    from lab.papers.hu2013_tracked.checks import peak_closed_form
    from lab.core.tolerances import tol

    peaks = []
    for la in (0.25, 0.30, 0.35, 0.40):
        p = ClimbParams(arm_length=la)
        cf = peak_closed_form(p)
        for h in (0.05, 0.10, 0.15):
            assert climb(p, h, 0.5).peak_climb_torque == pytest.approx(cf, rel=tol("climb.closed_form_rel"))
        peaks.append(cf)
    assert np.all(np.diff(peaks) > 0)


@pytest.mark.slow
def test_low_step_climb_goes_on_top_until_the_com_passes_the_edge():
    """h = 0.05 m: the edge contact rolls round the front-bottom pulley F onto the step top with the COM
    still behind the edge (so the climb is not over there); on top F's centre stays at h + r and the
    guide wheel on the slope — checked against plain trigonometry of the rolling pulley — and the path's
    work is the energy gained (the on-top chain's dynamics are consistent with its kinematics)."""
    h, wd = 0.05, 0.5
    path = climb_path(P, h, dtheta=0.002)
    r = climb(P, h, arm_speed=wd, path=path)
    top = np.nonzero(r.phase == 2)[0]
    assert top.size > 10 and r.success and r.reason == "com_over_edge"
    g = gravity_S(0.0, 0.0)
    from lab.papers.hu2013_tracked.model import forward_distance

    d = forward_distance(path.com, h, g)
    assert d[top[0]] < -0.02  # landed on the top with the COM > 2 cm behind the edge
    assert d[r.n - 1] >= 0 > d[r.n - 2]  # the climb ends with the COM over the edge
    # plain trigonometry: the body pose from F's centre (on the line z = h + r) and the pitch
    ch = path.top
    gb0 = ch.links[0].g0
    R0 = gb0[:3, :3]
    phi_L = math.atan2(R0[1, 2], R0[2, 2])  # ω = −x: R = R_x(−φ), so R[1,2] = sin φ
    F_B = np.array([0.0, P.inradius, -P.track_side / 2])  # F's centre in the body frame (y, z) = (a, −l/2)
    F_L = gb0[:3, :3] @ F_B + gb0[:3, 3]
    assert F_L[1] == pytest.approx(0.0, abs=1e-9) and F_L[2] == pytest.approx(h + P.pulley_radius, abs=1e-9)
    for i in top[[0, len(top) // 2, -1]]:
        u, phit, tht = path.q[i]
        assert u == pytest.approx(P.pulley_radius * phit + P.sigma_per_theta * tht, abs=1e-12)  # rolls, no slip
        phi = phi_L + phit
        c, s_ = math.cos(phi), math.sin(phi)
        Rb = np.array([[1, 0, 0], [0, c, s_], [0, -s_, c]])  # R_x(−φ)
        Fc = np.array([0.0, u, h + P.pulley_radius])
        centre = Fc - Rb @ F_B
        theta = path.theta[i]  # the model's arm angle from the front face's perpendicular
        arm = np.array([0.0, -math.cos(theta - phi), -math.sin(theta - phi)])
        wheel = centre + P.arm_length * arm
        assert wheel[2] == pytest.approx(P.guide_radius, abs=1e-9)
        assert path.wheel[i] == pytest.approx(wheel, abs=1e-9)
        com = (P.m_body * centre + P.m_arm * (centre + P.arm_com * arm)) / (P.m_body + P.m_arm)
        assert path.com[i] == pytest.approx(com, abs=1e-9)
    # continuity at landing: the last climb sample and the first on-top one are one arm step apart
    assert np.linalg.norm(path.com[top[0]] - path.com[top[0] - 1]) < 0.002
    # work–energy over the on-top samples
    m = np.array([P.m_body, P.m_arm])
    th = path.theta[top]
    work = np.trapezoid(r.motor_torque[top] * P.i1 * P.i0, th)
    E = []
    for i in (top[0], top[-1]):
        q, qd = path.q[i], path.dq[i] * wd
        pos = np.array([pp[:3, 3] for pp in ch.poses(q)])
        E.append(0.5 * qd @ ch.mass_matrix(q) @ qd - m @ pos @ g)
    assert work == pytest.approx(E[1] - E[0], rel=2e-3)
    # on top the step carries the body through F (no edge force along the belt beyond the belt's own)
    assert np.all(r.edge_normal[top] > 0)


def test_differential_stall_needs_more_belt_force_than_friction_at_a_flat_riser_can_hold():
    """The single-motor flip against a flat riser: its virtual-work arm torque (the belt held, running
    back round F) against a moment balance about F's centre (the belt's drive torque reacts there), and
    the Coulomb bound μ(1 + μ)/(1 + μ²)(W − λ) below the belt force the stall needs, at any μ."""
    from lab.papers.hu2013_tracked.model import differential_stall

    st = differential_stall(P, mu=0.8)
    path = climb_path(P, 0.10)
    ch = flip_chain(P)
    q = path.q[0][[0, 2]]
    gb, ga = ch.poses(q)
    F_y = -P.pulley_radius  # F's centre (y) in S; the contact forces at F pass through it, friction aside
    wheel_y = ch.wheel_centre(q)[1]
    g = P.gravity
    tau_p = P.i2 * st["arm_torque_Nm"]
    # Σ M_F = 0: λ (F − wheel) = m_w g (F − body) + m_a g (F − arm) + τ_p (the friction moment r(f_g + f_w))
    lam = (P.m_body * g * (F_y - gb[1, 3]) + P.m_arm * g * (F_y - ga[1, 3]) + tau_p) / (F_y - wheel_y)
    assert st["wheel_force_N"] == pytest.approx(lam, rel=1e-9)
    assert st["arm_torque_Nm"] / st["free_arm_torque_Nm"] > 1.3  # the belt's reaction makes the flip dearer
    assert st["motor_torque_Nm"] < P.motor_torque_max  # the motor could give it…
    assert st["capacity_max_N"] < 0.5 * st["belt_force_N"]  # …but no Coulomb μ holds the belt for it
    assert st["capacity_N"] < st["capacity_max_N"]
