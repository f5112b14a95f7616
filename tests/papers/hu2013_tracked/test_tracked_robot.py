"""The tracked robot of Hu 2013 in the engine: generated model, roller track, step arena, climb controller."""

import math

import numpy as np
import pytest

from lab.arenas import ARENAS
from lab.arenas.step import Step, gravity_E
from lab.forces.base import Wrench
from lab.papers.hu2013_tracked.model import ClimbParams, gravity_S
from lab.robots.tracked import TrackedSpec
from lab.robots.urdf import MassProps
from lab.core.tolerances import tol
from lab.core.world import World

SPEC = TrackedSpec()


def _world(arena=None, dt=0.001):
    w = World(dt=dt, arena=arena)
    w.load_spec(SPEC, [0, 0, SPEC.rest_height + 0.0005], 0.0)
    q = np.zeros(w.n_joints)
    q[w.model.joint_index("arm_joint")] = math.radians(11.2)  # trailing, wheel on the ground
    w.set_joint_angles(q)
    return w


def test_spec_geometry_and_masses():
    m, I = SPEC.body_mass_props_total()
    assert m == pytest.approx(5.0)  # frame + pulleys + belt
    assert MassProps(m, (0, 0, 0), I).is_physical()
    for mp in (SPEC.base_mass_props(), SPEC.arm_mass_props(), SPEC.guide_mass_props(), SPEC.pulley_mass_props(),
               SPEC.slab_mass_props()):
        assert mp.is_physical()
    assert SPEC.arm_mass_props().mass + SPEC.guide_mass_props().mass == pytest.approx(1.2)
    assert 3 * SPEC.slab_mass + 3 * (SPEC.pulley_link_mass - SPEC.pulley_mass) == pytest.approx(SPEC.belt_mass)
    # the screw model's body is a uniform prism of the same section; the belt and pulleys (0.95 kg) sit
    # on its perimeter, which raises the pitch inertia by 17 % (the quasi-static torques do not see it)
    assert I[1, 1] == pytest.approx(1.167 *  ClimbParams().I_body[0, 0], rel=0.01)
    # mesh of the body: the rounded-triangle prism, volume = section area × width
    l, r = SPEC.track_side, SPEC.pulley_radius
    area = math.sqrt(3) / 4 * l**2 + 3 * l * r + math.pi * r**2
    assert SPEC.body_mesh().volume == pytest.approx(area * SPEC.width, rel=2e-3)
    # each slab's outer face lies on the belt's envelope: r from its face's centre line
    for _, (x, z), _, _ in SPEC._belt_links()[3:]:
        assert math.hypot(x, z) + SPEC.slab_thickness / 2 == pytest.approx(SPEC.inradius + r)
    with pytest.raises(ValueError, match="belt_mass"):
        TrackedSpec(belt_mass=4.0)


def test_loads_with_its_inertia_and_survives_random_torques():
    w = _world()
    try:
        assert w.n_links == SPEC.n_links
        assert w.model.mass.sum() == pytest.approx(6.2 + 0.01)  # + the drive marker disc
        base = SPEC.base_mass_props()
        assert np.allclose(np.sort(np.diag(w.model.I_B[0])), np.sort(np.linalg.eigvalsh(base.inertia)), rtol=1e-6)
        rng = np.random.default_rng(3)
        slabs = [w.model.joint_index(f"belt_joint_slab_{i}") for i in range(3)]
        s = w.read_state()
        for _ in range(500):
            tau = np.zeros(w.n_joints)
            tau[w.model.joint_index("arm_joint")] = rng.uniform(-5, 5)
            tau[w.model.joint_index("drive_joint")] = rng.uniform(-1, 1)
            w.apply(tau, None, s)
            w.step_engine()
            s = w.read_state()
            assert s.is_finite()
            assert np.all(s.q[slabs] == 0.0)  # reset after every step (World → spec.after_step)
    finally:
        w.close()


def test_collision_radius_rolls_as_the_pulley_radius():
    """Bullet pads a URDF cylinder (a convex hull) by its margin: the pulleys are shrunk by it, so
    the body rests at a + r (boxes carry no margin: the slabs are exact)."""
    w = _world()
    try:
        s = w.read_state()
        for _ in range(300):
            w.apply(np.zeros(w.n_joints), None, s)
            w.step_engine()
            s = w.read_state()
        assert s.p_W[0, 2] == pytest.approx(SPEC.rest_height, abs=5e-5)
    finally:
        w.close()


def _slope_run(alpha_deg, v, T=3.0, window=1.0, overrides=()):
    from lab.core import scenario as scn
    from lab.core.runner import run_scenario

    sc = scn.load("tracked_slope", [f"arena.slope_deg={alpha_deg}", f"controller.belt_speed={v}",
                                    f"sim.duration={T}", f"trial.window={window}", *overrides])
    return run_scenario(sc).metrics["belt.body_speed_mps"]


def test_T1_flat_ground_body_speed_is_r_psi_dot():
    """T1: driven on flat ground, no slip: body speed = r ψ̇ within 1 % (measured 0.1 %; the old
    roller belt ran 3.9 % fast, its rollers padded by the collision margin)."""
    assert _slope_run(0.0, 0.03) == pytest.approx(0.03, rel=0.01)


@pytest.mark.slow
def test_T2_locked_belt_holds_below_atan_mu_and_slides_above():
    """T2: belt locked, slope α: holds (creep ≤ 0.5 mm/s) at atan μ − 1°, slides at atan μ + 1°
    (μ = 0.8 × the slope's 1.0: atan μ = 38.66°; measured creep 0.3 mm/s at 37.66°; the old belt slid
    at 24 cm/s on 20°)."""
    phi = math.degrees(math.atan(SPEC.track_friction))
    assert abs(_slope_run(phi - 1.0, 0.0)) <= 0.5e-3
    assert _slope_run(phi + 1.0, 0.0) < -0.05


@pytest.mark.slow
def test_T3_driven_belt_climbs_at_its_speed_up_to_atan_mu_minus_3deg():
    """T3: belt driven at v up a slope: the COM climbs at v within 3 % up to atan μ − 3° (measured
    0.1 % at 20°, 1.2 % at 35.7°)."""
    phi = math.degrees(math.atan(SPEC.track_friction))
    for alpha in (20.0, phi - 3.0):
        assert _slope_run(alpha, 0.03) == pytest.approx(0.03, rel=0.03)


def test_step_arena_builds_a_step_and_turns_gravity_for_the_slope():
    assert "step" in ARENAS and "stairs" in ARENAS
    a = Step(step_height=0.12, slope_deg=20.0, yaw_deg=30.0)
    g = a.gravity(9.81)
    gS = gravity_S(math.radians(20), math.radians(30))
    assert np.allclose(g, [gS[1], -gS[0], gS[2]])
    assert np.linalg.norm(g) == pytest.approx(9.81)
    assert np.allclose(gravity_E(0, 0, 9.81), [0, 0, -9.81])
    w = World(arena=a)
    try:
        step = w.arena_bodies["step"]
        lo, hi = w.client.getAABB(step)
        assert hi[2] == pytest.approx(0.12, abs=1e-3)
        assert lo[0] == pytest.approx(a.step_x, abs=1e-3)
        assert np.allclose(w.client.getPhysicsEngineParameters()["gravityAccelerationX"], g[0])
    finally:
        w.close()
    with pytest.raises(ValueError, match="slope_deg"):
        Step(slope_deg=95.0)


@pytest.mark.slow
def test_controller_stalls_at_the_step_and_flips():
    from lab.core import scenario as scn
    from lab.core.runner import Simulation

    sc = scn.load("tracked_step_climb", ["arena.step_height=0.10", "sim.duration=2.6"])
    sim = Simulation(sc)
    try:
        sim.run()
        L = sim.controller.logged()
    finally:
        sim.close()
    assert 1 in L["phase"] and 2 in L["phase"]  # stalled against the riser, flipped to the vertical face
    i = int(np.argmax(L["phase"] == 2))
    assert math.degrees(L["pitch"][i]) == pytest.approx(30.0, abs=2.0)
    # flip torque (the arm lifting the rear) against the screw model's, within the contact jitter
    from lab.papers.hu2013_tracked.model import climb

    mod = climb(ClimbParams.from_spec(sc.robot), 0.10, 0.5)
    f = L["phase"] == 1
    assert np.median(L["tau_arm"][f]) == pytest.approx(np.median(mod.arm_torque[mod.phase == 0]), rel=0.25)


def test_scenario_contract_keys_exist():
    from lab.core import scenario as scn

    sc = scn.load("tracked_step_climb", ["arena.step_height=0.12", "arena.slope_deg=10", "arena.yaw_deg=20",
                                         "robot.arm_length=0.35", "controller.arm_speed=0.3"])
    assert (sc.arena.step_height, sc.arena.slope_deg, sc.arena.yaw_deg, sc.robot.arm_length,
            sc.controller.arm_speed) == (0.12, 10.0, 20.0, 0.35, 0.3)
    # the controller's copy of the drive constants is the robot's
    from lab.papers.hu2013_tracked.trials import check_drive_constants

    check_drive_constants(sc.robot, sc.controller)
    with pytest.raises(ValueError, match="i2"):
        check_drive_constants(TrackedSpec(i2=0.5), sc.controller)


def test_climb_metrics_on_a_hand_made_log():
    """COM passing the edge line at t = 2 s, body on the step at the end: success, time from contact."""
    from lab.core import scenario as scn
    from lab.papers.hu2013_tracked.trials import climb_metrics

    sc = scn.load("tracked_step_climb", ["arena.step_height=0.1"])
    t = np.arange(0, 4, 0.01)
    n = len(t)
    x = np.interp(t, [0, 4], [0.0, 0.4])
    com = np.c_[x, np.zeros(n), np.full(n, 0.15)]
    A = np.full((n, 3), np.nan)
    A[t >= 0.5] = [0.16, 0.1, 0.1]
    B = A.copy()
    B[:, 1] *= -1
    C = np.c_[x - 0.3, np.zeros(n), np.zeros(n)]
    phase = np.where(t < 0.5, 0, np.where(t < 1.0, 1, 2))
    L = {"t": t, "phase": phase, "com": com, "body": com + [0, 0, 0.05], "pitch": np.zeros(n), "A": A, "B": B,
         "C": C, "tau_motor": np.full(n, 0.005), "tau_arm": np.full(n, 3.0), "tau_drive": np.full(n, 0.5)}
    m = climb_metrics(L, sc)
    assert m["climb.success"]
    assert m["climb.time_s"] == pytest.approx(1.6 - 0.5, abs=0.011)  # COM at x = 0.16 at t = 1.6 s
    assert m["climb.peak_motor_torque_Nm"] == pytest.approx(0.005)
    assert m["climb.min_margin_m"] > 0


def test_edge_slip_is_the_belt_sliding_over_the_edge():
    """The edge's belt material coordinate u − r ψ: constant when the belt carries the body along the
    edge (no slip), growing by r Δψ when the belt runs past a fixed contact; samples off the edge and
    outside the window do not count."""
    from lab.papers.hu2013_tracked.trials import edge_slip

    r, x_e, h = SPEC.pulley_radius, 0.16, 0.1
    n = 101
    psi = np.linspace(0.0, 2.0, n)  # the belt runs r·2 = 5 cm
    P = SPEC.pulley_centres()
    F, T = P[0], P[1]
    t_front = (F - T) / np.linalg.norm(F - T)  # the belt's direction of motion on the front face (T → F)
    n_front = np.array([-t_front[1], t_front[0]])
    mid = 0.5 * (F + T) + r * n_front
    edge_W = np.tile([x_e, 0.0, h], (n, 1))
    window = np.ones(n, bool)
    fixed = np.tile(mid, (n, 1))  # the contact stays put on the body: the belt slides over it
    L = {"edge_W": edge_W, "edge_B": fixed, "psi": psi}
    assert edge_slip(L, window, x_e, h, SPEC) == pytest.approx(r * 2.0, rel=1e-9)
    carried = mid[None, :] + (r * psi)[:, None] * t_front  # the contact moves along with the belt
    L["edge_B"] = carried
    assert edge_slip(L, window, x_e, h, SPEC) == pytest.approx(0.0, abs=1e-12)
    L["edge_B"] = fixed
    off = edge_W.copy()
    off[n // 2:, 0] += 0.01  # the second half of the contacts are 1 cm off the edge
    L["edge_W"] = off
    assert edge_slip(L, window, x_e, h, SPEC) == pytest.approx(r * psi[n // 2 - 1], rel=1e-9)


def test_arm_lets_go_only_once_the_com_has_passed_the_edge():
    """The climb hands over to drive-on when the COM is past the step's edge — the rearmost track
    contact seen on the upper level — not when the body merely lies on the top (COM behind the edge,
    hanging on the arm) or stands on its front pulley on the lower ground (one level only)."""
    from types import SimpleNamespace

    from lab.core import scenario as scn
    from lab.papers.hu2013_tracked.controllers import COM_MARGIN, TrackedClimb

    sc = scn.load("tracked_step_climb")
    w = World(dt=0.001, arena=sc.arena)
    try:
        w.load_spec(SPEC, [0, 0, SPEC.rest_height], 0.0)
        model = w.model
    finally:
        w.close()
    ctl = TrackedClimb(sc.controller)
    ctl.reset(model, 0.001)
    roller = model.link_names.index("belt_slab_0")
    guide = model.link_names.index("guide")

    def state(com_x, points):
        rows = [[link, 0, x, 0.0, z, 0, 0, 1, 10.0, 0, 0, 0] for link, x, z in points]
        return SimpleNamespace(R_WB=[np.eye(3)], com_W=np.array([com_x, 0.0, 0.15]), contacts=np.array(rows, float))

    # standing on the front pulley on the lower ground, COM ahead of it: one level, not over
    assert not ctl._over_the_top(state(0.12, [(roller, 0.10, 0.0), (guide, -0.2, 0.0)]))
    assert ctl.edge is None
    # leaning on the edge (x = 0.16, h = 0.1), guide wheel on the ground
    assert not ctl._over_the_top(state(0.10, [(roller, 0.16, 0.1), (guide, -0.2, 0.0)]))
    # propped on its front pulley on the top by the arm: the edge is remembered, the COM is behind it
    assert not ctl._over_the_top(state(0.16 + 0.5 * COM_MARGIN, [(roller, 0.30, 0.1), (guide, -0.1, 0.0)]))
    assert ctl._over_the_top(state(0.16 + 1.5 * COM_MARGIN, [(roller, 0.30, 0.1), (guide, -0.1, 0.0)]))


def test_energy_ledger_meters_gravity_and_the_engine_contacts():
    """Dropped onto its arm and driving 2 s on flat ground (the step far away): kinetic energy change =
    joint work + gravity's work + the work of every engine contact force, to the gear couplings'
    iterative error. Without gravity and contacts the ledger would miss ~all the energy turnover."""
    from lab.core import scenario as scn
    from lab.core.runner import run_scenario

    r = run_scenario(scn.load("tracked_step_climb", ["arena.step_x=3.0", "sim.duration=2.0"]))
    m = r.metrics
    assert m["energy.gravity_work_J"] > 0.2  # the arm swings down onto its guide wheel
    assert m["energy.contact_work_J"] < -0.2  # …and the ground stops it
    assert abs(m["energy.balance_residual_rel"]) < tol("tracked.energy_residual_rel")


@pytest.mark.slow
def test_climbs_two_stairs_flipping_at_each_riser():
    """Stairs of two 7 cm steps: the controller flips at each riser from the face the body then rests
    on (the arm winds on by 120° a step, stowed straight back in between), ending on the top tread."""
    from lab.core import scenario as scn
    from lab.core.runner import Simulation

    sc = scn.load("tracked_stairs", ["arena.n_steps=2", "sim.duration=25"])
    sim = Simulation(sc)
    try:
        r = sim.run()
        L = sim.controller.logged()
    finally:
        sim.close()
    assert r.status == "ok"
    phase = L["phase"].astype(int)
    assert np.count_nonzero((phase[1:] == 1) & (phase[:-1] != 1)) == 2  # two flips
    top = 2 * sc.arena.rise + SPEC.rest_height
    assert L["body"][-1][2] == pytest.approx(top, abs=0.01)  # resting on a face on the top tread
    assert math.degrees(L["pitch"][-1]) == pytest.approx(240.0, abs=3.0)  # two 120° roll-overs
    assert L["body"][-1][0] > sc.arena.step_x + sc.arena.tread  # beyond the second riser


@pytest.mark.slow
def test_independent_mode_climbs_the_papers_017_m_with_the_default_cleats():
    """The paper's experiment: 0.17 m with the 0.3 m arm; the default belt (μ = 0.8, default cleats) climbs
    it, and its climb-phase peak motor torque is within [0.95, 1.25] of the screw model's (measured 1.17)."""
    from lab.core import scenario as scn
    from lab.papers.hu2013_tracked.model import climb
    from lab.core.runner import run_scenario

    sc = scn.load("tracked_step_climb", ["arena.step_height=0.17", "trial.stop_when_decided=true", "sim.duration=16"])
    m = run_scenario(sc).metrics
    assert m["climb.success"]
    ratio = m["climb.peak_climb_torque_Nm"] / climb(ClimbParams.from_spec(sc.robot), 0.17, 0.5).peak_climb_torque
    assert tol("climb.peak_ratio_lo") <= ratio <= tol("climb.peak_ratio_hi")


@pytest.mark.slow
def test_differential_mode_belt_slips_at_the_coulomb_bound_and_the_arm_stalls():
    """The single motor at a 0.10 m step (front pulley against the flat riser): the belt slips at what
    Coulomb friction at the pulley can hold, μ(1 + μ)/(1 + μ²)(W − λ) with λ the guide wheel's load from
    the arm torque it gets (i0 i1 τ_m), less than the stalled flip needs; the arm never turns and the
    trial gives up 2 s after the stall."""
    from lab.core import scenario as scn
    from lab.papers.hu2013_tracked.model import differential_stall, riser_belt_capacity
    from lab.core.runner import run_scenario

    sc = scn.load("tracked_step_climb", ["controller.mode=differential", "arena.step_height=0.10",
                                         "trial.stop_when_decided=true", "sim.duration=20"])
    m = run_scenario(sc).metrics
    p = ClimbParams.from_spec(sc.robot)
    mu = sc.robot.track_friction
    cap, _ = riser_belt_capacity(p, m["climb.stall_arm_torque_Nm"], mu)
    assert not m["climb.success"]
    assert m["climb.stall_belt_force_N"] == pytest.approx(cap, rel=0.05)
    assert m["climb.stall_arm_torque_Nm"] < 0.6 * differential_stall(p, mu)["arm_torque_Nm"]
    assert m["climb.max_pitch_deg"] < 1.0  # the arm never lifted the body
    assert m["sim_time_s"] < m["climb.start_s"] + 5.0  # decided soon after the stall, not at 20 s


@pytest.mark.parametrize("seed", range(6))
def test_contact_summary_compiled_matches_the_oracle(seed):
    """The climb controller's one-pass reading of the contact snapshot: the compiled loop against its
    numpy oracle on random snapshots (belt, guide and other links; ground, edge and top levels)."""
    from oracles.climbing import contact_summary as oracle

    from lab.core.contacts import F_T, N_COLS, N_W, P_W, Col
    from lab.papers.hu2013_tracked.controllers import contact_summary

    rng = np.random.default_rng(seed)
    mask = np.zeros(10, bool)
    mask[4:] = True
    for k in (0, 1, 3, 12):
        cs = np.zeros((k, N_COLS))
        cs[:, Col.LINK] = rng.integers(0, 10, k)
        cs[:, P_W] = rng.normal(scale=0.1, size=(k, 3))
        cs[:, Col.PZ] = rng.choice([0.0, 0.0005, 0.1, 0.1003, 0.15], k)
        cs[:, N_W] = rng.normal(size=(k, 3))
        cs[:, Col.FN] = rng.choice([0.0, 1.0], k) * rng.uniform(0, 30, k)
        cs[:, F_T] = rng.normal(size=(k, 3))
        x = rng.normal(size=2)
        x /= np.linalg.norm(x)
        ref = oracle(cs, mask, 3, x[0], x[1])
        got = contact_summary(cs, mask, 3, x[0], x[1])
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15, equal_nan=True)


@pytest.mark.slow
def test_decided_run_stops_once_on_the_step_with_the_full_runs_metrics():
    """stop_when_decided ends a climb as soon as the COM is over the edge and the body on the top (the
    success nothing after undoes), with the same climb.* figures as the run watched to the end; with
    no step it stops at once, a success."""
    from lab.core import scenario as scn
    from lab.core.runner import run_scenario

    base = ["arena.step_height=0.10", "sim.duration=8"]
    m = run_scenario(scn.load("tracked_step_climb", [*base, "trial.stop_when_decided=true"])).metrics
    full = run_scenario(scn.load("tracked_step_climb", [*base, "trial.stop_when_decided=false"])).metrics
    assert m["climb.success"] and full["climb.success"]
    assert m["sim_time_s"] < m["climb.over_s"] + 0.6 < full["sim_time_s"]
    for k in ("climb.time_s", "climb.peak_climb_torque_Nm", "climb.climb_work_J", "climb.flip_to_over_s",
              "climb.min_margin_m"):
        assert m[k] == pytest.approx(full[k], rel=1e-12), k
    flat = run_scenario(scn.load("tracked_step_climb", ["arena.step_height=0", "trial.stop_when_decided=true"])).metrics
    assert flat["climb.success"] and flat["sim_time_s"] < 0.1
