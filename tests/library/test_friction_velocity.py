"""The velocity-level Coulomb law (``[friction] type = "coulomb_velocity"``, Wang 2011 eq. 4 with
stiction, lab.forces.friction.VelocityCoulomb): the force on hand-made states against the hard law's
closed forms; the articulated effective mass against the engine's mass matrix; a block in the engine
against semi-implicit Euler's own discrete solution at 1, 5 and 10 ms, first-order convergence to the
continuous closed form, stiction and sliding on a slope; the energy ledger; determinism."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from conftest import make_state
from lab.core import scenario as scn
from lab.checks.friction_block import block_urdf, discrete_stop_distance, slide
from lab.forces.friction import VelocityCoulomb, articulated_jacobians, articulated_mass_matrix
from lab.core.tolerances import tol
from lab.core.world import World

G = 9.81
LAW = VelocityCoulomb(mu_t=0.03, mu_n=0.3, head_exempt=False)


def lone(v_xy, yaw=0.0, dt=0.01, mass=0.5, law=LAW):
    """The law's force on one link lying at ``yaw`` with COM velocity ``v_xy`` (no tree: A = 1/m, exact
    for a lone body)."""
    s = make_state(v_W=[[v_xy[0], v_xy[1], 0.0]], yaw=[yaw], mass=mass)
    s.model = replace(s.model, dt=dt)
    return law(s, 0.0)[0]


@pytest.mark.parametrize("yaw", [0.0, 0.7, -2.5])
def test_sliding_force_is_the_coulomb_bound_against_the_slip_in_the_link_frame(yaw):
    """Fast slip (|v| > μ g dt): the hard law's force, −μ N along each body axis against its slip
    (forward, backward and across), expressed in the world through the link's yaw."""
    law = VelocityCoulomb(mu_t=0.03, mu_forward=0.05, mu_backward=0.02, mu_n=0.3, head_exempt=False)
    t = np.array([math.cos(yaw), math.sin(yaw)])
    n = np.array([-t[1], t[0]])
    N = 0.5 * G
    for v_B, f_B in (((1.0, 0.0), (-0.05 * N, 0.0)), ((-1.0, 0.0), (0.02 * N, 0.0)),
                     ((0.0, 1.0), (0.0, -0.3 * N)), ((0.0, -1.0), (0.0, 0.3 * N)),
                     ((1.0, -1.0), (-0.05 * N, 0.3 * N))):
        v = v_B[0] * t + v_B[1] * n
        F = lone(v, yaw, law=law)
        assert F[2] == 0.0
        np.testing.assert_allclose(F[:2], f_B[0] * t + f_B[1] * n, rtol=1e-12, atol=1e-12)


def test_slow_slip_is_stopped_in_one_step():
    """Stiction: below the bound, the force is the one that stops the slip in one step, −m v/dt (each
    axis on its own: the slow axis is stopped, the fast one slides at the bound)."""
    dt, m = 0.01, 0.5
    v = np.array([0.001, 0.002])  # μ_t g dt = 2.9e-3, μ_n g dt = 2.9e-2: both stick
    # the sweeps stop when no slip moves by more than the law's tolerance (1e-12 m/s): relative 1e-9 here
    np.testing.assert_allclose(lone(v, dt=dt)[:2], -m * v / dt, rtol=1e-8)
    v = np.array([0.5, 0.002])  # along: slides; across: sticks
    np.testing.assert_allclose(lone(v, dt=dt)[:2], [-0.03 * m * G, -m * 0.002 / dt], rtol=1e-8)
    assert np.all(lone(np.zeros(2)) == 0.0), "no slip, no force on flat ground"


def test_head_exempt_and_zero_load():
    """The head (last link) gets no force when exempt; a link without load none either."""
    s = make_state(v_W=np.full((3, 3), 0.3) * [1, 1, 0], n=3)
    s.model = replace(s.model, dt=0.005)
    F = VelocityCoulomb(head_exempt=True)(s, 0.0)
    assert np.all(F[-1] == 0.0) and np.all(np.abs(F[:-1, :2]) > 0)
    s.fn = np.array([0.0, 1.0, 1.0])
    F = VelocityCoulomb(head_exempt=False, normal_load="contact")(s, 0.0)
    assert np.all(F[0] == 0.0) and np.all(np.abs(F[1:, :2]) > 0)


def test_loader_takes_any_step():
    """No explicit-step bound for this law: the flagship loads at the papers' 10 ms and beyond."""
    for dt in ("0.01", "0.02"):
        sc = scn.load("snake_passive_creeping", [f"sim.dt={dt}"])
        assert sc.friction.explicit is False and sc.sim.dt == float(dt)


@pytest.fixture(scope="module")
def snake_world():
    """The flagship's snake at a random pose and velocity (joints, base spin)."""
    from lab.core.runner import Simulation

    sim = Simulation(scn.load("snake_passive_creeping", []))
    w = sim.world
    rng = np.random.default_rng(0)
    w.set_joint_angles(rng.uniform(-0.6, 0.6, w.n_joints))
    c, b = w.client, w.robot
    for jid in w._joint_ids:
        c.resetJointState(b, jid, c.getJointState(b, jid)[0], rng.normal())
    c.resetBaseVelocity(b, rng.normal(size=3).tolist(), rng.normal(size=3).tolist())
    yield sim
    sim.close()


@pytest.mark.slow
def test_articulated_mass_is_the_engines(snake_world):
    """The law's kinematics and mass matrix against the engine: J u is every link's COM velocity, ½ uᵀMu
    the kinetic energy, and the contact-space inverse inertia A = G M⁻¹ Gᵀ (coordinate-free) equals the
    one built from PyBullet's calculateMassMatrix (World.mass_matrix) and calculateJacobian."""
    w = snake_world.world
    s = w.read_state()
    m = s.model
    Jv, Jw = articulated_jacobians(s.p_W, s.R_WB, m.tree, m.frames)
    u = np.concatenate([s.v_W[0], s.w_W[0], s.qd])
    np.testing.assert_allclose(np.einsum("kad,d->ka", Jv, u), s.v_W, atol=1e-12)
    np.testing.assert_allclose(np.einsum("kad,d->ka", Jw, u), s.w_W, atol=1e-12)
    M = articulated_mass_matrix(Jv, Jw, s.R_WB, m.mass, m.I_diag)
    assert 0.5 * u @ M @ u == pytest.approx(s.kinetic_energy, rel=1e-12)
    Me = w.mass_matrix()
    q = list(s.q)
    off = w.link_com_offsets()
    Ge = np.vstack([np.array(w.client.calculateJacobian(w.robot, k - 1, off[k - 1].tolist(), q, [0.0] * len(q),
                                                        [0.0] * len(q))[0])[:2] for k in range(1, w.n_links)])
    Gm = np.vstack([Jv[k, :2] for k in range(1, w.n_links)])
    Ae = Ge @ np.linalg.solve(Me, Ge.T)
    Am = Gm @ np.linalg.solve(M, Gm.T)
    assert np.abs(Ae - Am).max() <= 1e-10 * np.abs(Am).max()


@pytest.mark.slow
def test_solution_is_coulomb_with_stiction_on_the_articulated_chain(snake_world):
    """On the moving snake: every contact component either sticks (post-step slip w = 0, force inside its
    bound) or slides against its bound (w ≠ 0, the force at −sgn(w) μ N): the box problem's optimality,
    checked with A and v_free rebuilt here from the law's kinematics."""
    w = snake_world.world
    c, b = w.client, w.robot
    rng = np.random.default_rng(1)
    snap = c.saveState()
    for jid in w._joint_ids:  # slow enough that some contacts stick at 10 ms
        c.resetJointState(b, jid, c.getJointState(b, jid)[0], 0.3 * rng.normal())
    c.resetBaseVelocity(b, (0.02 * rng.normal(size=3)).tolist(), (0.1 * rng.normal(size=3)).tolist())
    s = w.read_state()
    c.restoreState(snap)
    s.model = replace(s.model, dt=0.01)
    law = VelocityCoulomb(mu_t=0.03, mu_n=0.3, head_exempt=True)
    F = law(s, 0.0)
    m = s.model
    Jv, Jw = articulated_jacobians(s.p_W, s.R_WB, m.tree, m.frames)
    M = articulated_mass_matrix(Jv, Jw, s.R_WB, m.mass, m.I_diag)
    rows, lam, bounds = [], [], []
    for i in range(w.n_links - 1):
        c, si = s.R_WB[i, 0, 0], s.R_WB[i, 1, 0]
        t = np.array([c, si, 0.0]) / math.hypot(c, si)
        n = np.array([-t[1], t[0], 0.0])
        N = m.mass[i] * G * 0.01
        for d, mu in ((t, 0.03), (n, 0.3)):
            rows.append(d @ Jv[i])
            lam.append(F[i] @ d * 0.01)
            bounds.append(mu * N)
    Gm, lam, bounds = np.array(rows), np.array(lam), np.array(bounds)
    w_post = Gm @ (np.concatenate([s.v_W[0], s.w_W[0], s.qd]) + np.linalg.solve(M, Gm.T @ lam))
    assert np.all(np.abs(lam) <= bounds * (1 + 1e-12))
    sliding = np.abs(np.abs(lam) - bounds) <= 1e-9 * bounds
    assert sliding.any() and (~sliding).any(), "this state has both sticking and sliding contacts"
    assert np.abs(w_post[~sliding]).max() <= 1e-9, "sticking contacts end the step without slip"
    assert np.all(lam[sliding] * w_post[sliding] <= 1e-15), "sliding contacts are pushed against their slip"


DTS = (0.001, 0.005, 0.01)


@pytest.mark.slow
@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("axis", ["along", "across"])
def test_block_follows_semi_implicit_euler_exactly(dt, axis):
    """A 0.5-kg slab launched at 0.5 m/s stops at semi-implicit Euler's own h·Σ(v0 − k h μg), monotonically,
    and stays put once stopped after exactly the discrete solution's number of steps (no creep, no chatter)."""
    mu, v0_B = (LAW.mu_fwd, (0.5, 0.0)) if axis == "along" else (LAW.mu_n, (0.0, 0.5))
    dist, t, s = slide(None, LAW, dt, G, v0_B, urdf=block_urdf(0.5))
    d_disc = discrete_stop_distance(0.5, mu * G, dt)
    assert abs(dist - d_disc) / d_disc <= tol("friction.discrete_rel")
    assert np.all(np.diff(s) >= -1e-12)
    n_steps = int(math.floor(0.5 / (dt * mu * G)))  # steps at the bound; the next one stops it dead
    assert np.all(np.diff(s[:n_steps + 1]) > 0), "slides for exactly the discrete solution's steps"
    assert np.ptp(s[n_steps:]) <= 1e-12, "then stays put"


@pytest.mark.slow
def test_error_against_the_continuous_closed_form_is_first_order():
    """|d − v0²/(2μg)| halves as dt halves (semi-implicit Euler's order), from 8 ms down to 1 ms."""
    errs = []
    for dt in (0.008, 0.004, 0.002, 0.001):
        dist, _, _ = slide(None, LAW, dt, G, (0.0, 0.5), urdf=block_urdf(0.5))
        errs.append(abs(dist - 0.25 / (2 * 0.3 * G)))
    ratios = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all(np.abs(ratios - 2.0) <= 0.1), ratios


def _slope_run(theta, dt, law, steps):
    """A slab on flat ground under gravity turned by θ about y (a sloped arena's way): x(t) along the slope."""
    world = World(dt=dt, gravity=G)
    try:
        world.load_robot(block_urdf(0.5), [0.0, 0.0, 0.01], 0.0, 0.1, 0.0)
        world.set_gravity([G * math.sin(theta), 0.0, -G * math.cos(theta)])
        s = world.read_state()
        x0 = s.p_W[0, 0]
        xs = []
        for _ in range(steps):
            world.apply(None, law(s, s.t), s)
            world.step_engine()
            s = world.read_state()
            xs.append(s.p_W[0, 0] - x0)
        return np.array(xs)
    finally:
        world.close()


@pytest.mark.slow
@pytest.mark.parametrize("dt", DTS)
def test_stiction_holds_below_atan_mu_and_slides_above(dt):
    """Below atan μ the slab does not move at all (stiction from the first step: the weight's normal
    component m g cos θ bounds the friction); above it slides as semi-implicit Euler integrates
    a = g (sin θ − μ cos θ): x_k = h² a k(k+1)/2."""
    law = VelocityCoulomb(mu_t=0.3, mu_n=0.3, head_exempt=False)
    hold = _slope_run(math.atan(0.3) - 0.02, dt, law, int(0.5 / dt))
    assert np.abs(hold).max() <= 1e-9, np.abs(hold).max()
    th = math.atan(0.3) + 0.1
    a = G * (math.sin(th) - 0.3 * math.cos(th))
    n = int(0.5 / dt)
    xs = _slope_run(th, dt, law, n)
    k = np.arange(1, n + 1)
    np.testing.assert_allclose(xs, dt * dt * a * k * (k + 1) / 2, rtol=1e-6, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("dt", DTS)
def test_ledger_books_the_work_the_force_did(dt):
    """The recorder's friction channel on the block: Σ F·(v + v₊)/2 dt over the slide is −½ m v0², the
    kinetic energy the friction removed (the force is the step's impulse over dt)."""
    from lab.core.kernels import power2

    world = World(dt=dt, gravity=G)
    try:
        world.load_robot(block_urdf(0.5), [0.0, 0.0, 0.01], 0.3, 0.1, 0.0)
        world.set_base_velocity([0.3, 0.4, 0.0])
        s = world.read_state()
        e0, work = s.kinetic_energy, 0.0
        for _ in range(int(2.5 / dt)):  # along: 0.5·cos … /(μ_t g) < 2 s
            F = LAW(s, s.t)
            world.apply(None, F, s)
            world.step_engine()
            s1 = world.read_state()
            work += 0.5 * dt * power2(F, s.v_W, s1.v_W)
            s = s1
        assert np.abs(s.v_W[0, :2]).max() <= 1e-12  # stopped in the plane (the contact leaves |v_z| ~ 1e-6 m/s)
        assert work == pytest.approx(-e0, rel=1e-6)
    finally:
        world.close()


@pytest.mark.slow
def test_flagship_at_ten_ms_is_deterministic():
    """Two runs of 3 s of the flagship at 10 ms give identical series."""
    from lab.core.runner import run_scenario

    sc = scn.load("snake_passive_creeping", ["sim.dt=0.01", "sim.duration=3"])
    a, b = run_scenario(sc), run_scenario(sc)
    assert a.status == b.status == "ok"
    for k in a.series:
        np.testing.assert_array_equal(a.series[k], b.series[k])


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="measured −2.6 % at 10 ms over 3 s from the settled start (−0.07 % from the "
                   "unsettled one, by luck): the skid boxes' engine contacts pop at 10 ms (a link's edge caught, a "
                   "single step of ±2.6 mJ gravity and contact work, then a decaying tilt), work the snake's plain "
                   "ledger does not meter; at 5 ms the same events cost −1.5 to −2.7 % over the first 2 s, −8.9e-4 "
                   "over the 30 s (docs/benchmarks.md, 'The flagship at 5 ms')")
def test_flagship_ledger_closes_at_ten_ms_over_the_start():
    """The ledger's residual over the first 3 s at 10 ms within the first-order bar energy_balance uses."""
    from lab.core.runner import run_scenario

    m = run_scenario(scn.load("snake_passive_creeping", ["sim.dt=0.01", "sim.duration=3"])).metrics
    assert abs(m["energy.balance_residual_rel"]) <= tol("energy.balance_rel_per_s") * 0.01
