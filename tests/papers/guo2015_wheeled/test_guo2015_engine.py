"""Guo 2015 on the engine: the passive-wheel snake robot (its m and J are the model's, its link
order, its wheels hold it laterally), the mapping between the engine's snapshot and the paper's
q = (x, y, θ, φ) and torques u (against the engine), the head-tracking PFL controller (its law is the
model's), short engine runs against the model, the wheel-inertia model, the trial's metrics, the report
section in quick mode. The 60 s runs are `lab check pfl_tracking pfl_engine` and `lab report`."""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest
from conftest import need_tool

from lab.core import scenario as scn
from lab.papers.guo2015_wheeled.controllers import (HeadTrackingPFL, HeadTrackingPFLParams, UnifiedPFL, lab_torques,
                                               paper_state)
from lab.papers.guo2015_wheeled import model as gw
from lab.papers.guo2015_wheeled.params import Guo2015Params, table1_q0
from lab.papers.guo2015_wheeled import study, wheel_inertia
from lab.robots import WheeledSnakeSpec
from lab.robots.urdf import MassProps
from lab.robots.wheeled_snake import Layout, lateral_slip
from lab.core.runner import Simulation
from lab.core.tolerances import tol
from lab.core.world import World

SCENARIO = "snake_head_tracking"


def load_world(spec: WheeledSnakeSpec, base=(0.0, 0.0), yaw: float = 0.0, dt: float = 0.005) -> World:
    w = World(dt=dt, solver_iterations=1000)
    w.load_spec(spec, [*base, spec.rest_height], yaw)
    return w


# ---------------------------------------------------------------- the robot


def test_a_module_has_the_models_mass_and_yaw_inertia_in_the_engine():
    """m and J = m l² per module, body and wheels together: from the spec and as the engine loaded them
    (each part's inertia plus m d² of its offset from the module centre, read back from the engine)."""
    spec = WheeledSnakeSpec()
    m, J = spec.module_totals()
    assert m == pytest.approx(0.5, rel=1e-12) and J == pytest.approx(0.5 * 0.04**2, rel=1e-12)
    assert spec.body_mass_props().is_physical() and spec.wheel_mass_props().is_physical()
    assert 0.9 * spec.half_length < spec.housing_offset < 1.1 * spec.half_length  # the housings sit at the joints
    w = load_world(spec)
    try:
        s = w.read_state()
        lay = Layout.of(w.model)
        for i, mod in enumerate(lay.modules):
            parts = [mod, *lay.wheels[i]]
            mass = w.model.mass[parts]
            d = s.p_W[parts, :2] - s.p_W[mod, :2]
            Jz = sum(w.model.I_B[k][2, 2] + mk * float(dk @ dk) for k, mk, dk in zip(parts, mass, d))
            assert mass.sum() == pytest.approx(m, rel=tol("robot.inertia_rel"))
            assert Jz == pytest.approx(J, rel=tol("robot.inertia_rel"))
            assert MassProps(w.model.mass[mod], (0, 0, 0), w.model.I_B[mod]).is_physical()
        assert w.model.mass[lay.tip] == 0.0 and w.model.mass.sum() == pytest.approx(9 * m)
    finally:
        w.close()


@pytest.mark.parametrize("n", [2, 9])
def test_engine_order_is_the_documented_one_and_the_last_link_is_the_head_point(n):
    spec = WheeledSnakeSpec(n_modules=n)
    w = load_world(spec)
    try:
        lay, ref = Layout.of(w.model), Layout.default(n)
        for a, b in ((lay.modules, ref.modules), (lay.wheels, ref.wheels), (lay.yaw_joints, ref.yaw_joints)):
            np.testing.assert_array_equal(a, b)
        assert lay.tip == ref.tip == w.n_links - 1 and w.n_joints == 3 * n - 1
        s = w.read_state()
        head = s.p_W[lay.modules[-1]]
        np.testing.assert_allclose(s.p_W[-1], head + [spec.half_length, 0, 0], atol=1e-12)  # straight along +x
    finally:
        w.close()


def test_check_urdf_accepts_the_wheeled_snake(tmp_path):
    exe = need_tool("check_urdf")
    f = tmp_path / "w.urdf"
    f.write_text(WheeledSnakeSpec(zero_shape=(0.1, -0.2)).to_urdf())
    res = subprocess.run([exe, str(f)], capture_output=True, text=True)
    assert res.returncode == 0 and "Successfully Parsed XML" in res.stdout, res.stdout + res.stderr


def test_it_rests_on_its_wheels_and_random_torques_stay_finite():
    """At rest: the wheels carry the whole weight and nothing moves; then 1 s of pseudo-random torques."""
    spec = WheeledSnakeSpec(wheel_friction=10.0)
    w = load_world(spec)
    try:
        s = w.read_state()
        for _ in range(100):
            w.apply(np.zeros(w.n_joints), None, s)
            w.step_engine()
            s = w.read_state()
        wheel_links = set(Layout.of(w.model).wheels.ravel() + 0)
        assert set(s.contacts[:, 0].astype(int)) <= wheel_links  # only wheels touch the ground
        assert s.contacts[:, 8].sum() == pytest.approx(9 * spec.mass * 9.81, rel=1e-3)
        assert np.abs(s.v_W).max() < 1e-6
        rng = np.random.default_rng(0)
        lay = Layout.of(w.model)
        for _ in range(200):
            tau = np.zeros(w.n_joints)
            tau[lay.yaw_joints] = rng.uniform(-0.05, 0.05, len(lay.yaw_joints))
            w.apply(tau, None, s)
            w.step_engine()
            s = w.read_state()
            assert s.is_finite()
        assert abs(s.p_W[lay.modules, 2] - spec.rest_height).max() < 1e-3
    finally:
        w.close()


def test_spec_refuses_impossible_parts():
    with pytest.raises(ValueError, match="body_radius"):
        WheeledSnakeSpec(body_radius=0.03)
    with pytest.raises(ValueError, match="zero_shape"):
        WheeledSnakeSpec(n_modules=3, zero_shape=(0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match="yaw_inertia"):
        WheeledSnakeSpec(yaw_inertia=1e-5)  # the housings would have to sit inside the tube's own inertia
    with pytest.raises(ValueError, match="tube_mass"):
        WheeledSnakeSpec(tube_mass=0.49)


# ---------------------------------------------------------------- the engine ↔ paper mapping


def set_engine_pose(w: World, spec: WheeledSnakeSpec, p: Guo2015Params, q: np.ndarray, qd: np.ndarray) -> None:
    """Put the engine robot at the paper's (q, q̇): tail module pose and velocity, then the yaw joints
    (angle beyond zero_shape, rate), wheels not spinning."""
    c = w.client
    th = gw.module_angles(q)  # head first, tailward axes
    C = gw.module_centres(p, q)
    yaw = th[::-1] + math.pi  # lab order, x towards the head
    thd = gw._chain(p.n, p.l).T @ qd[2:]
    Cd = np.stack([gw._jacobians(p, q)[1] @ qd, gw._jacobians(p, q)[2] @ qd], axis=1)
    tail = p.n - 1
    c.resetBasePositionAndOrientation(w.robot, [*C[tail], spec.rest_height], c.getQuaternionFromEuler([0, 0, yaw[0]]))
    c.resetBaseVelocity(w.robot, [*Cd[tail], 0.0], [0.0, 0.0, float(thd[tail])])
    lay = Layout.of(w.model)
    rel = np.diff(yaw)
    rel_rate = -qd[3:][::-1]
    for j, jid in enumerate(lay.yaw_joints):
        c.resetJointState(w.robot, int(jid), float(rel[j] - spec.zero_shape[j]), float(rel_rate[j]))


def test_paper_state_read_from_the_engine_is_the_state_it_was_given():
    """A bent, moving snake put into the engine at a known admissible (q, q̇): paper_state gives back q and
    the head velocity, the head_tip link sits at (x, y), and every module's lateral velocity is 0 (eq. 1)."""
    rng = np.random.default_rng(7)
    p = Guo2015Params()
    spec = WheeledSnakeSpec(zero_shape=(0.05, -0.1))
    q = np.concatenate([[0.3, -0.2, 2.5], rng.uniform(-0.6, 0.6, p.n - 1)])
    r_dot = np.array([-0.08, 0.05])
    qd = gw.qdot_from_head_velocity(p, q, r_dot)
    w = load_world(spec)
    try:
        set_engine_pose(w, spec, p, q, qd)
        s = w.read_state()
        lay = Layout.of(w.model)
        q_e, rd_e = paper_state(s, lay, spec.half_length)
        np.testing.assert_allclose(q_e[:2], q[:2], atol=1e-9)
        assert abs(float(np.angle(np.exp(1j * (q_e[2] - q[2]))))) < 1e-9
        np.testing.assert_allclose(q_e[3:], q[3:], atol=1e-9)
        np.testing.assert_allclose(rd_e, r_dot, atol=1e-9)
        np.testing.assert_allclose(s.p_W[lay.tip, :2], q[:2], atol=1e-9)
        np.testing.assert_allclose(s.v_W[lay.tip, :2], r_dot, atol=1e-9)
        assert np.abs(lateral_slip(s, lay)).max() < 1e-9
        # and the joint readings are φ beyond the built-in shape: q_lab = −φ reversed − zero_shape
        np.testing.assert_allclose(s.q[lay.yaw_joints], -q[3:][::-1] - np.array(spec.zero_shape), atol=1e-9)
    finally:
        w.close()


def test_a_torque_u_moves_the_engine_joints_as_the_model_says():
    """From a bent pose at rest on its wheels: the paper's u applied through τ = −u reversed changes the
    joint rates as the constrained E–L model's q̈ predicts (to the wheels' spin inertia and the step)."""
    p = Guo2015Params()
    phi = np.array([0.3, -0.4, 0.35, -0.2, 0.3, -0.35, 0.25, -0.3])
    spec = WheeledSnakeSpec(wheel_friction=10.0, zero_shape=tuple(-phi[::-1]))
    w = load_world(spec, dt=0.001)
    try:
        lay = Layout.of(w.model)
        s = w.read_state()
        for _ in range(20):  # settle onto the wheels
            w.apply(np.zeros(w.n_joints), None, s)
            w.step_engine()
            s = w.read_state()
        q0, rd0 = paper_state(s, lay, spec.half_length)
        u = 0.002 * np.array([1.0, -2.0, 1.5, 0.5, -1.0, 2.0, -1.5, 1.0])
        tau = np.zeros(w.n_joints)
        tau[lay.yaw_joints] = lab_torques(u)
        steps = 20
        for _ in range(steps):
            w.apply(tau, None, s)
            w.step_engine()
            s = w.read_state()
        q1, rd1 = paper_state(s, lay, spec.half_length)
        qdd = gw.el_accelerations(p, q0, gw.qdot_from_head_velocity(p, q0, rd0), u)
        T = steps * w.dt
        phi_dot_engine = (q1[3:] - q0[3:]) * 2 / T**2  # from rest: Δφ = ½ φ̈ T²
        assert np.sign(phi_dot_engine) @ np.sign(qdd[3:]) == len(u)
        np.testing.assert_allclose(phi_dot_engine, qdd[3:], rtol=0.1, atol=0.03 * np.abs(qdd[3:]).max())
    finally:
        w.close()


def test_the_scenario_starts_at_table1_q0():
    sc = scn.load(SCENARIO)
    np.testing.assert_allclose(study.paper_q0(sc), table1_q0(), atol=1e-9)
    sim = Simulation(sc)
    try:
        s = sim.world.read_state()
        q, r_dot = paper_state(s, sim.controller.layout, sc.robot.half_length)
        np.testing.assert_allclose(q, table1_q0(), atol=1e-9)
        assert np.abs(r_dot).max() == 0.0
        p = study.model_params(sc)
        assert (p.n, p.m, p.l, p.k_p, p.k_d) == (9, pytest.approx(0.5), 0.04, 1.0, 10.0)
        assert p.J == pytest.approx(p.m * p.l**2, rel=1e-12)
    finally:
        sim.close()


# ---------------------------------------------------------------- the controller


@pytest.mark.parametrize("n", [4, 9, 15])
def test_fused_pfl_is_the_models_law(n):
    rng = np.random.default_rng(n)
    p = Guo2015Params(n=n, phi0=())
    f = UnifiedPFL(p)
    for _ in range(10):
        q = np.concatenate([rng.normal(size=2), rng.uniform(-3, 3, 1), rng.uniform(-1, 1, n - 1)])
        rd, t = rng.normal(size=2) * 0.1, float(rng.uniform(0, 60))
        ref = gw.pfl_torque(p, q, rd, t)
        np.testing.assert_allclose(f(q, rd, t), ref, rtol=1e-11, atol=1e-14 * np.abs(ref).max())


def test_controller_gives_the_models_torques_clipped_at_the_effort():
    sc = scn.load(SCENARIO)
    sim = Simulation(sc)
    try:
        ctrl, s = sim.controller, sim.world.read_state()
        u = gw.pfl_torque(study.model_params(sc), table1_q0(), np.zeros(2), 0.0)
        tau = ctrl.act(s)
        np.testing.assert_allclose(tau[ctrl.layout.yaw_joints], -u[::-1], rtol=1e-12)
        assert np.count_nonzero(tau) == len(u)  # the wheels are free
        el = HeadTrackingPFL(HeadTrackingPFLParams(model="el"))
        el.reset(sim.world.model, sc.sim.dt)
        np.testing.assert_allclose(el.act(s), tau, rtol=1e-9)
        ctrl.model = type(ctrl.model)(**{**ctrl.model.__dict__, "effort": 0.01})  # a weaker servo
        assert np.abs(ctrl.act(s)).max() == pytest.approx(0.01)
    finally:
        sim.close()


# ---------------------------------------------------------------- engine vs model, short runs


@pytest.fixture(scope="module")
def short_run():
    sc = study.load(["sim.duration=3"])
    eng, result, logs = study.engine_run(sc)
    mod = study.model_run(sc, t_end=3.0, dt_out=0.01, rtol=1e-9, atol=1e-11)
    return sc, eng, result, logs, mod


@pytest.mark.slow
def test_engine_follows_the_model_through_the_start(short_run):
    """3 s from Table 1's start: the head, the shape and the torques of the engine are the model's (the
    start needs wheel forces of 6 × the weight, which the scenario's wheels carry)."""
    sc, eng, result, logs, mod = short_run
    assert result.status == "ok"
    k = np.searchsorted(mod.t, eng.t)
    np.testing.assert_allclose(mod.t[k], eng.t, atol=1e-9)
    assert np.abs(eng.r - mod.r[k]).max() < tol("guo.engine_start_head_m")
    assert np.abs(eng.phi - mod.phi[k]).max() < tol("guo.engine_start_phi_rad")
    late = eng.t >= 1.0
    rms_e = np.sqrt(np.mean(eng.u[late] ** 2, axis=0))
    rms_m = np.sqrt(np.mean(mod.u[k][late] ** 2, axis=0))
    np.testing.assert_allclose(rms_e, rms_m, rtol=tol("guo.engine_torque_rel"))
    assert result.metrics["wheels.lateral_slip_rms_mps"] < 1e-3  # the head moves at 0.1 m/s
    assert abs(result.metrics["energy.balance_residual_rel"]) < 0.01


def test_the_engine_signals_from_a_run_match_the_controllers_own_log(short_run):
    sc, eng, result, logs, _ = short_run
    r_log = np.array([np.interp(logs["t"], eng.t, eng.r[:, j]) for j in range(2)]).T
    # the log's instants fall between the 10 ms samples: linear interpolation is off by ≤ a h²/8, a ≤ 1.1 m/s²
    np.testing.assert_allclose(r_log, logs["r"], atol=1.1 * 0.01**2 / 8)
    assert logs["slip_ms"].shape == (len(logs["slip_t"]), sc.robot.n_modules)
    assert result.metrics["wheels.lateral_slip_rms_mps"] == pytest.approx(np.sqrt(logs["slip_ms"].mean()))


@pytest.fixture(scope="module")
def short_el_run(short_run):
    """The constrained E–L equations with multipliers (KKT, y = (q, q̇)) as the plant: a formulation
    written apart from the unified closed form the controller evaluates."""
    sc = short_run[0]
    return study.model_run(sc, t_end=3.0, dt_out=0.01, plant="el", rtol=1e-9, atol=1e-11)


def test_engine_torque_shape_and_head_error_against_the_el_plant(short_run, short_el_run):
    """Trajectory level, engine vs the E–L plant over 1–3 s (the largest accelerations of the run): the
    torque shape (normalised RMS error per joint, nothing aligned) and the head's RMS tracking error."""
    sc, eng, result, _, _ = short_run
    el = short_el_run
    shape = study.torque_shape_error(eng, el, 1.0, 3.0)
    assert shape.max() < tol("guo.engine_start_torque_shape_nrmse")
    assert np.all(np.sqrt(np.mean(el.u[el.t >= 1.0] ** 2, axis=0)) > 1e-5)  # torques to compare
    assert abs(eng.head_rms(1.0, 3.0) - el.head_rms(1.0, 3.0)) < tol("guo.engine_start_head_m")
    assert el.head_rms(1.0, 3.0) > 5e-3  # the start error both share (1 cm at t = 0) is still there


def test_what_bounds_the_wheels_lateral_force_is_mu_times_the_pairs_normal_force():
    """The model needs 6.1 m g of lateral force on one module in the first step. Read from the engine's
    contacts: the pair's normal force under that module is 1.33 m g (the joints carry load between
    modules), and no pair needs more than |Σ f_lat| / Σ N = 4.87. At μ = 5 the most loaded single contact saturates (|f| = μN) and its wheel
    partner takes the rest (both push along the axle: the split moves nothing), so the run is the μ = 10
    run to rounding; at μ = 3 < 4.87 the pair must slip: its contacts sit on their friction limit and the
    path leaves the no-slip one (measured 13 mm in 0.1 s). Before the joints' motors (lab.core.actuators) the PFL,
    which assumes no slip, then diverged at 0.05 s; the motors' torque–speed lines now cut its commands and
    the run stays finite. Bullet clamps each of a contact's two friction directions at μN separately (a
    friction pyramid), so a single contact's |f| reaches √2 μN at most (measured exactly √2 at μ = 3)."""
    runs = {mu: study.friction_use(study.load([f"robot.wheel_friction={mu}"]), 0.1) for mu in (10.0, 5.0, 3.0)}
    hi, mid, lo = runs[10.0], runs[5.0], runs[3.0]
    assert hi.status == mid.status == "ok"
    assert 1.0 - 1e-6 <= lo.contact_use.max() <= np.sqrt(2) + 1e-6  # μ = 3: on the pyramid's limit
    assert lo.status.startswith("diverged") or np.abs(lo.p_W - hi.p_W).max() > 1e-3  # it slips
    assert hi.lateral_over_weight[0].max() == pytest.approx(6.1, abs=0.05)  # the model's 6.09
    need = hi.lateral_over_normal.max()
    assert 3.0 < need < 5.0
    assert hi.contact_use.max() < 1.0  # μ = 10: no contact on its friction limit
    assert mid.contact_use.max() >= 1.0 - 1e-6  # μ = 5: one contact is
    np.testing.assert_allclose(mid.p_W, hi.p_W, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mid.lateral_over_normal, hi.lateral_over_normal, rtol=1e-9)


def test_rubber_wheels_cannot_carry_the_start():
    """The model's no-slip start needs |λ|/(m g) = 6.1 at t = 0; rubber (μ = 0.8) slips from the first step."""
    sc = study.load(["sim.duration=0.1", "robot.wheel_friction=0.8"])
    t, mu = study.model_friction_run(sc, 0.5, 0.01)
    assert mu[0] == pytest.approx(6.09, abs=0.01) and mu[0] > 0.8 > mu[-1]
    sim = Simulation(sc)
    try:
        res = sim.run()
        slip = sim.controller.logged()["slip_max"]
    finally:
        sim.close()
    assert res.status == "diverged" or slip.max() > 0.1


# ---------------------------------------------------------------- the wheel-inertia model, the trial


def test_wheel_inertia_model_is_the_paper_without_wheels_and_conserves_its_energy():
    rng = np.random.default_rng(3)
    p = Guo2015Params()
    q = np.concatenate([rng.normal(size=2), [0.4], rng.uniform(-0.8, 0.8, p.n - 1)])
    qd = gw.qdot_from_head_velocity(p, q, np.array([0.1, -0.04]))
    u = rng.normal(size=p.n - 1) * 0.01
    np.testing.assert_allclose(wheel_inertia.accelerations(p, q, qd, u, 0.0, 0.0), gw.el_accelerations(p, q, qd, u),
                               rtol=1e-12, atol=1e-15)
    m_a, J_a = wheel_inertia.wheel_terms(WheeledSnakeSpec())
    assert (m_a, J_a) == (pytest.approx(0.01), pytest.approx(0.01 * 0.03**2))
    from scipy.integrate import solve_ivp

    def rhs(t, y):
        return np.concatenate((y[p.n + 2:], wheel_inertia.accelerations(p, y[: p.n + 2], y[p.n + 2:],
                                                                        np.zeros(p.n - 1), 5 * m_a, 5 * J_a)))

    sol = solve_ivp(rhs, (0, 2.0), np.concatenate((q, qd)), rtol=1e-10, atol=1e-12, method="DOP853")
    E = [0.5 * y[p.n + 2:] @ wheel_inertia.mass_matrix(p, y[: p.n + 2], 5 * m_a, 5 * J_a) @ y[p.n + 2:]
         for y in sol.y.T]
    assert np.ptp(E) < 1e-8 * E[0]


def test_trial_metrics_on_a_hand_made_series():
    from lab.papers.guo2015_wheeled.trials import head_tracking_metrics

    t = np.linspace(0, 40, 401)
    ref = lambda tk: (np.array([0.1 * tk, 0.0]),)  # noqa: E731
    xy = np.zeros((len(t), 3, 2))
    xy[:, -1, 0] = 0.1 * t
    xy[:, -1, 1] = 0.003  # 3 mm off the reference
    tau = np.zeros((len(t), 4))
    tau[:, [1, 3]] = 0.02
    log = {"slip_t": np.array([10.0, 30.0]), "slip_ms": np.array([[1e-8, 1e-8], [4e-8, 4e-8]]),
           "slip_max": np.array([2e-4, 3e-4])}
    m = head_tracking_metrics({"t": t, "xy": xy, "tau": tau}, log, ref, np.array([1, 3]), 20.0, (36.0, 60.0))
    assert m["pfl.head_rms_error_m"] == pytest.approx(0.003) and m["pfl.head_max_error_m"] == pytest.approx(0.003)
    assert m["pfl.torque_rms_Nm"] == pytest.approx(0.02)
    assert m["wheels.lateral_slip_rms_mps"] == pytest.approx(np.sqrt(2.5e-8))
    assert m["wheels.lateral_slip_rms_late_mps"] == pytest.approx(2e-4)
    assert m["wheels.lateral_slip_max_mps"] == 3e-4


def test_the_trial_needs_the_wheeled_snake_and_the_pfl():
    from lab.core.errors import LabError

    data = scn.read_toml(scn.resolve_path(SCENARIO))
    for section, table in (("robot", {"type": "snake"}), ("controller", {"type": "serpenoid"})):
        with pytest.raises(LabError, match="trial.type") as err:
            scn.from_dict({**data, section: table})
        assert table["type"] != "snake" or "wheeled_snake" in str(err.value)


# ---------------------------------------------------------------- the report section


@pytest.mark.slow
def test_quick_report_section_guo2015_wheeled(tmp_path):
    from lab.cli import main

    out = tmp_path / "report"
    assert main(["report", "--quick", "--only", "guo2015_wheeled", "--workers", "1", "--out", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## guo2015_wheeled" in md and "Quick mode" in md
    for eq in ("eq. 21", "eq. 17", "eqs. 19, 23"):
        assert eq in md  # the slip table
    figs = sorted(p.name for p in (out / "figures").glob("guo2015_wheeled_*.png"))
    assert figs == ["guo2015_wheeled_fig4_head.png", "guo2015_wheeled_fig5_joint_angles.png", "guo2015_wheeled_fig6_joint_torques.png",
                    "guo2015_wheeled_fig6b_torque_rms.png", "guo2015_wheeled_wheels_friction_slip.png"]
    # the rubber-wheel run: its wheels slip and the PFL drives the joints away; without motors it diverged
    # at 0.05 s (joints at 100 rad/s), with the joints' motors (10 rad/s no-load) it stays finite
    assert "the same start on rubber wheels" in md


# ---------------------------------------------------------------- the GUI


def test_gui_overlay_draws_the_head_error_and_the_trial_paints_the_reference():
    sc = scn.load(SCENARIO)  # 60 s: the painted path covers the run
    sim = Simulation(sc)
    try:
        s = sim.world.read_state()
        lines, text = sim.controller.gui_overlay(s)
        (p0, p1, rgb), = lines
        np.testing.assert_allclose(p0[:2], table1_q0()[:2], atol=1e-9)  # from the head point…
        np.testing.assert_allclose(p1[:2], [0.0, 0.0], atol=1e-12)  # …to r_ref(0)
        assert text.startswith("head error")
        c = sim.world.client
        path = [b for b in (c.getBodyUniqueId(i) for i in range(c.getNumBodies()))
                if b != sim.world.robot and b != sim.world.ground and c.getVisualShapeData(b)]
        boxes = [v for b in path for v in c.getVisualShapeData(b)]
        assert len(boxes) == 120 and all(len(c.getVisualShapeData(b)) <= 16 for b in path)  # 0.5 s each over 60 s
        assert all(c.getDynamicsInfo(b, -1)[0] == 0.0 for b in path) and not any(c.getCollisionShapeData(b, -1)
                                                                                 for b in path)
        # the painted path lies on r_ref: each box's centre is the midpoint of its 0.5 s of the reference
        ref = HeadTrackingPFL.reference_of(sc.controller)
        mid = 0.5 * (ref(0.0)[0] + ref(0.5)[0])
        np.testing.assert_allclose(boxes[0][5][:2], mid, atol=1e-12)
    finally:
        sim.close()


@pytest.mark.slow
@pytest.mark.gui
def test_gui_run_of_the_scenario(tmp_path, lab_cmd):
    """A real --gui run under Xvfb: exit 0, a screenshot with the snake (orange modules) in it."""
    import imageio.v2 as imageio

    xvfb = need_tool("xvfb-run")
    shot, out = tmp_path / "shot.png", tmp_path / "out"
    r = subprocess.run([xvfb, "-a", "-s", "-screen 0 1024x768x24", *lab_cmd, "run", SCENARIO, "--gui", "--set",
                        "sim.duration=0.05", "--screenshot", str(shot), "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    rgb = imageio.imread(shot)[..., :3].astype(float)
    orange = int(((rgb[..., 0] - rgb[..., 2] > 80) & (rgb[..., 0] > 120)).sum())
    assert orange > 200, f"snake not visible in the screenshot ({orange} orange pixels)"
