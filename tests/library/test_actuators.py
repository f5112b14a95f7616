"""lab.core.actuators: the torque–speed line, by hand and in the engine against its closed forms."""

import math

import numpy as np
import pytest

from lab.core.actuators import Motors, limit_torque, motor_at_joint, rpm, spin_up_speed, spin_up_speed_discrete
from lab.core.tolerances import TOL
from lab.core.world import World

STALL, NO_LOAD = 0.5, 10.0  # N·m, rad/s at the joint


def test_the_line_in_four_quadrants():
    s, w0 = STALL, NO_LOAD
    tau = np.array([+9.0, -9.0, +9.0, -9.0, +9.0, -9.0, +9.0, -9.0, 0.2, -0.2, 0.0])
    qd = np.array([0.0, 0.0, 5.0, 5.0, -5.0, -5.0, 12.0, -12.0, 9.0, 9.0, 12.0])
    out = limit_torque(tau, qd, s, w0)
    np.testing.assert_allclose(out, [
        +s, -s,              # at rest: ± stall torque (the URDF's effort)
        s * 0.5, -s,         # turning forward at ω0/2: motoring on the line, braking up to stall
        +s, -s * 0.5,        # turning backward: the mirror image
        -0.2 * s, +0.2 * s,  # past the no-load speed the motor brakes whatever it is told: the line extended
        s * 0.1, -0.2,       # a command inside the bounds passes unchanged only where it fits
        -0.2 * s,            # commanding zero past ω0 still brakes (the back-EMF drives the current)
    ], rtol=0, atol=1e-15)
    # braking up to stall, and past 2 ω0 the back-EMF's braking exceeds it
    assert limit_torque([-9.0], [15.0], s, w0)[0] == -s
    assert limit_torque([-9.0], [30.0], s, w0)[0] == pytest.approx(-2 * s)
    # per-joint lines and a joint without a motor (inf) passed through
    out = limit_torque([3.0, 3.0, 3.0], [1.0, 1.0, 1.0], [1.0, 2.0, math.inf], [2.0, 4.0, math.inf])
    np.testing.assert_allclose(out, [0.5, 1.5, 3.0])
    m = Motors([1.0, math.inf], [2.0, math.inf])
    lo, hi = m.bounds(np.array([1.0, 1.0]))
    np.testing.assert_allclose(lo, [-1.0, -np.inf]) and np.testing.assert_allclose(hi, [0.5, np.inf])
    np.testing.assert_allclose(m.limit(np.array([3.0, 3.0]), np.array([1.0, 1.0])), [0.5, 3.0])


def test_the_one_step_cap_lands_on_the_no_load_speed():
    """A stiff line (T = J ω0/τ_s = 0.2 ms < h = 1 ms): the torque is capped at J (ω0 − ω)/h, which
    reaches ω0 in one explicit step, and past ω0 the braking stops on ω0, not beyond."""
    J, h = 1e-5, 1e-3
    m = Motors([STALL], [NO_LOAD], [J], h)
    assert m.stiff()[0]
    for w in (0.0, 4.0, 9.5, 12.0, 30.0):
        tau = m.limit(np.array([1e3]), np.array([w]))[0]
        assert w + h * tau / J == pytest.approx(NO_LOAD)  # one step lands on ω0 from either side
    # full braking would reverse the light joint past −ω0 within the step: it lands on −ω0 instead
    assert 4.0 + h * m.limit(np.array([-1e3]), np.array([4.0]))[0] / J == pytest.approx(-NO_LOAD)
    # a soft line (T = 89 ms): the cap never acts, the line does
    soft = Motors([STALL], [NO_LOAD], [0.0044], h)
    assert not soft.stiff()[0]
    for w in (4.0, 12.0):
        assert soft.limit(np.array([1e3]), np.array([w]))[0] == limit_torque([1e3], [w], STALL, NO_LOAD)[0]
    with pytest.raises(ValueError, match="one torque per joint"):
        soft.limit(np.array([1.0, 1.0]), np.array([0.0, 0.0]))


def test_motor_validation():
    with pytest.raises(ValueError, match="stall_torque: must be > 0"):
        Motors([0.0], [1.0])
    with pytest.raises(ValueError, match="no_load_speed: must have one value per joint"):
        Motors([1.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="gear_ratio: must be > 0"):
        motor_at_joint(1.0, 1.0, 0.0)


def test_hu2013_table1_through_the_gears():
    """Hu 2013, Table 1: motor 18.8 mN·m, 3600 rpm; gearhead 144:1, motor → input wheel 5:1 (the
    arm's output), sun → pulley 3:8 on top for the track. At the pulley of radius 25 mm the no-load
    belt speed is 3.5 cm/s, beside the paper's 3 cm/s experiment; the arm's 0.52 rad/s beside its 0.3."""
    arm = motor_at_joint(18.8e-3, rpm(3600), 144 * 5)
    drive = motor_at_joint(18.8e-3, rpm(3600), 144 * 5 * 3 / 8)
    assert arm == pytest.approx((13.536, 0.5235987756))
    assert drive == pytest.approx((5.076, 1.3962634016))
    assert 0.025 * drive[1] == pytest.approx(0.0349, abs=1e-4)
    # the line's power peak τ_s ω0 / 4 is the motor's own: gears move power, they do not make it
    assert arm[0] * arm[1] == pytest.approx(drive[0] * drive[1]) == pytest.approx(18.8e-3 * rpm(3600))


# ---------------------------------------------------------------------------------------------- engine
def rotor_urdf(m_base=2.0, r_base=0.2, m_rotor=1.0, r_rotor=0.1) -> tuple[str, float]:
    """A disc (base) and a disc (rotor) on one continuous joint along their shared z axis, both COMs on
    the axis; returns the URDF and the reduced inertia J_b J_r / (J_b + J_r) the joint sees with the
    base free (no gravity: the base counter-rotates, q̈ = τ (1/J_r + 1/J_b), no gyroscopic term)."""
    Jb, Jr = 0.5 * m_base * r_base**2, 0.5 * m_rotor * r_rotor**2
    Jx_b, Jx_r = m_base * (3 * r_base**2 + 0.02**2) / 12, m_rotor * (3 * r_rotor**2 + 0.02**2) / 12

    def link(name, m, r, jx, jz, z):
        return (f'<link name="{name}"><inertial><origin xyz="0 0 0"/><mass value="{m}"/>'
                f'<inertia ixx="{jx}" ixy="0" ixz="0" iyy="{jx}" iyz="0" izz="{jz}"/></inertial>'
                f'<visual><origin xyz="0 0 {z}"/><geometry><cylinder radius="{r}" length="0.02"/></geometry></visual>'
                '</link>')

    urdf = ('<?xml version="1.0"?><robot name="rotor">' + link("base", m_base, r_base, Jx_b, Jb, 0.0)
            + link("rotor", m_rotor, r_rotor, Jx_r, Jr, 0.0)
            + '<joint name="joint_0" type="continuous"><parent link="base"/><child link="rotor"/>'
              '<origin xyz="0 0 0"/><axis xyz="0 0 1"/><limit effort="0.5" velocity="10"/>'
              '<dynamics damping="0" friction="0"/></joint></robot>')
    return urdf, Jb * Jr / (Jb + Jr)


def spin(world_motors, command: float, qd0: float, duration: float, dt: float = 0.001):
    """Run the rotor with a constant command through the motor line; returns (t, q̇) samples.
    ``world_motors``: a Motors whose explicit clip is applied before the World's (which then takes its
    own line explicitly too, as by default), or None: the World's own motors with the implicit line."""
    urdf, J = rotor_urdf()
    w = World(dt=dt, gravity=0.0)
    try:
        w.load_robot(urdf, [0.0, 0.0, 1.0], 0.0, 0.1, STALL)  # in the air: no contact, no gravity
        # the World's own motor (from the URDF limit) and its reflected inertia: the closed form's J
        assert w.motors.inertia[0] == pytest.approx(J, rel=1e-9)
        assert (w.motors.stall_torque[0], w.motors.no_load_speed[0]) == (STALL, NO_LOAD)
        w.implicit_motor_lines = world_motors is None  # None: the implicit line under test
        if world_motors is not None:
            if dt <= 0.002:
                assert not w.motors.stiff()[0]  # T = 89 ms ≫ h: the line, not the one-step cap, bounds it
        if qd0:
            w.client.resetJointState(w.robot, 0, 0.0, qd0)
        s = w.read_state()
        ts, qds = [0.0], [float(s.qd[0])]
        for _ in range(int(round(duration / dt))):
            tau = np.array([command]) if world_motors is None else world_motors.limit(np.array([command]), s.qd)
            w.apply(tau, None, s)
            w.step_engine()
            s = w.read_state()
            ts.append(s.t)
            qds.append(float(s.qd[0]))
        return np.array(ts), np.array(qds), J
    finally:
        w.close()


def test_spin_up_follows_the_exponential():
    """Full command from rest: ω(t) = ω0 (1 − exp(−t τ_s/(J ω0))). The engine steps semi-implicit
    Euler, whose map ω_k = ω0 (1 − (1 − h τ_s/(J ω0))^k) it must follow to rounding; its distance
    from the exponential is the integrator's O(h) error, bounded by the tolerance measured at 1 ms."""
    motors = Motors([STALL], [NO_LOAD])
    t, qd, J = spin(motors, command=+100.0, qd0=0.0, duration=0.6)
    T = J * NO_LOAD / STALL  # 91 ms time constant: 6.6 of them
    assert t[-1] > 6 * T
    k = np.arange(len(t))
    np.testing.assert_allclose(qd, spin_up_speed_discrete(k, 0.001, STALL, NO_LOAD, J), rtol=0, atol=1e-9 * NO_LOAD)
    err = np.abs(qd - spin_up_speed(t, STALL, NO_LOAD, J)).max() / NO_LOAD
    assert err < TOL["actuator.spin_up_rel"].value
    assert qd[-1] == pytest.approx(NO_LOAD, rel=2e-3)  # it reaches the no-load speed …
    assert qd.max() <= NO_LOAD  # … and never passes it
    # the half-speed instant: t½ = T ln 2
    t_half = np.interp(NO_LOAD / 2, qd, t)
    assert t_half == pytest.approx(T * math.log(2), abs=0.002)


def test_spin_up_error_is_first_order_in_the_step():
    """The tolerance's reason: halving h halves the distance from the exponential."""
    motors = Motors([STALL], [NO_LOAD])
    errs = []
    for dt in (0.002, 0.001):
        t, qd, J = spin(motors, command=+1.0e3, qd0=0.0, duration=0.3, dt=dt)
        errs.append(np.abs(qd - spin_up_speed(t, STALL, NO_LOAD, J)).max() / NO_LOAD)
    assert errs[0] / errs[1] == pytest.approx(2.0, rel=0.05)


def test_from_above_the_no_load_speed():
    """Started at 2 ω0: whatever the motoring command, the motor brakes on its extended line back down
    to ω0, ω(t) = ω0 (1 + exp(−t/T)) (the spin-up's exponential from above; the Euler map
    ω_k = ω0 (1 + (1 − h/T)^k) to rounding); a braking command gets the full stall torque (a straight
    ramp of slope τ_s/J while ω > 0)."""
    motors = Motors([STALL], [NO_LOAD])
    t, qd, J = spin(motors, command=+5.0, qd0=2 * NO_LOAD, duration=0.3)
    T = J * NO_LOAD / STALL
    k = np.arange(len(t))
    np.testing.assert_allclose(qd, NO_LOAD * (1 + (1 - 0.001 / T) ** k), rtol=0, atol=1e-9 * NO_LOAD)
    assert np.abs(qd - NO_LOAD * (1 + np.exp(-t / T))).max() / NO_LOAD < TOL["actuator.spin_up_rel"].value
    t, qd, J = spin(motors, command=-5.0, qd0=2 * NO_LOAD, duration=0.2)
    t_stop = 2 * NO_LOAD * J / STALL  # 0.18 s
    ramp = t < t_stop - 0.002
    np.testing.assert_allclose(qd[ramp], 2 * NO_LOAD - STALL / J * t[ramp], rtol=0, atol=1e-9 * NO_LOAD)


@pytest.mark.parametrize("dt", [0.001, 0.02, 0.2])
def test_implicit_line_spin_up_is_the_exponential_at_any_step(dt):
    """The line taken at the end of the step with the mass matrix and the exact-decay damping D_e: a lone
    joint under full command from rest lands each step on the closed form ω(t) = ω0 (1 − exp(−t/T)),
    T = J ω0/τ_s (to 1e-9 of ω0), at 1 ms, at 20 ms and at 0.2 s = 2.2 T — where the explicit line's map
    is off by the integrator's O(h) (1 ms: its tolerance) or, past h = T, would overshoot ω0. Never past ω0."""
    t, qd, J = spin(None, command=+100.0, qd0=0.0, duration=max(0.6, 40 * dt), dt=dt)
    np.testing.assert_allclose(qd, spin_up_speed(t, STALL, NO_LOAD, J), rtol=0, atol=1e-9 * NO_LOAD)
    assert qd.max() <= NO_LOAD * (1 + 1e-12)
    assert qd[-1] == pytest.approx(NO_LOAD, rel=2e-3)
    # (for one joint alone the explicit line's one-step cap also stops on ω0; for coupled joints it does not:
    # tests/tools/test_envs.py::test_explicit_lines_let_coupled_joints_run_away)


def test_implicit_line_converges_to_the_explicit_one():
    """The continuous-time line is one: halving the step halves the distance between the implicit run (on
    the exponential) and the explicit one (first order off it)."""
    gaps = []
    for dt in (0.004, 0.002, 0.001):
        _, qi, _ = spin(None, command=+100.0, qd0=0.0, duration=0.3, dt=dt)
        _, qx, _ = spin(Motors([STALL], [NO_LOAD]), command=+100.0, qd0=0.0, duration=0.3, dt=dt)
        gaps.append(np.abs(qi - qx).max() / NO_LOAD)
    assert gaps[0] / gaps[1] == pytest.approx(2.0, rel=0.05) and gaps[1] / gaps[2] == pytest.approx(2.0, rel=0.05)


def test_implicit_line_leaves_a_joint_off_its_line_untouched():
    """Where no joint can reach its sloped line within the step, limit_implicit is the explicit clip bit for
    bit and never asks for the mass matrix; a joint on its line (ω > 0, full command) gets the end-of-step
    line: below the explicit line's torque while it speeds up."""
    m = Motors([STALL, STALL], [NO_LOAD, NO_LOAD], [1e-3, 1e-3], 1e-3)

    def no_M():
        raise AssertionError("the mass matrix was asked for")

    tau, qd = np.array([0.01, -0.02]), np.array([0.1, -0.2])
    np.testing.assert_array_equal(m.limit_implicit(tau, qd, 1e-3, no_M), m.limit(tau, qd))
    M = np.diag([1e-3, 1e-3])
    out = m.limit_implicit(np.array([1.0, 0.0]), np.array([5.0, 0.0]), 1e-3, lambda: M)
    line = STALL * (1 - 5.0 / NO_LOAD)
    x = 1e-3 * (STALL / NO_LOAD) / 1e-3  # h D / J
    assert out[0] == pytest.approx(line * -math.expm1(-x) / x)  # (1 − e^−x)/x of the explicit line: the exact decay
    assert out[1] == 0.0


# ------------------------------------------------------------------------------------ the load in the lines
LOAD = 0.2  # N·m, the constant torque the rotor lifts (0.4 τ_s): loaded speed ω_L = ω0 (1 − LOAD/τ_s) = 6 rad/s


def spin_loaded(dt: float, duration: float, lines: str, load: float = LOAD):
    """The rotor at full command against a constant load torque ``load`` between rotor and base (an external
    torque pair through World.apply's wrench, the lab's own forces: the joint sees J q̈ = τ − load). ``lines``:
    "implicit" (the load in the prediction, from the last step), "unloaded" (the implicit lines without the
    load: the World's history dropped before each step) or "explicit". Returns (t, q̇, J)."""
    from lab.core.wrench import Wrench

    urdf, J = rotor_urdf()
    w = World(dt=dt, gravity=0.0)
    try:
        w.load_robot(urdf, [0.0, 0.0, 1.0], 0.0, 0.1, STALL)
        w.implicit_motor_lines = lines != "explicit"
        T_W = np.array([[0.0, 0.0, +load], [0.0, 0.0, -load]])  # on the base, on the rotor (about the joint axis z)
        s = w.read_state()
        ts, qds = [0.0], [float(s.qd[0])]
        for _ in range(round(duration / dt)):
            if lines == "unloaded":
                w._lines_last = None
            w.apply(np.array([100.0]), Wrench(np.zeros((2, 3)), T_W.copy()), s)
            w.step_engine()
            s = w.read_state()
            ts.append(s.t)
            qds.append(float(s.qd[0]))
        return np.array(ts), np.array(qds), J
    finally:
        w.close()


@pytest.mark.parametrize("dt", [0.001, 0.005, 0.01, 0.2])
def test_loaded_implicit_line_lands_on_the_loaded_exponential_at_any_step(dt):
    """A joint lifting a constant load on its line: J ω̇ = τ_s (1 − ω/ω0) − τ_L, so ω − ω_L decays as
    exp(−t/T) to the loaded speed ω_L = ω0 (1 − τ_L/τ_s), T = J ω0/τ_s. With the load in the prediction (taken
    from the last step: exact here, the load being constant) every step from the first on lands on that
    exponential to 1e-9 of ω0, at 1, 5, 10 ms and at 0.2 s = 2.2 T. The first step has no last step to read
    the load from (it predicts without it), so the exponential is the one through ω_1. The implicit lines
    without the load settle elsewhere, on their own fixed point: the line's torque times J/(J + h D_e) equals
    the load, ω = ω0 (1 − τ_L (1 + h D_e/J)/τ_s) (D_e: the exact-decay damping), off ω_L by 0.23 % of ω0 at
    1 ms, 2.3 % at 10 ms, and at 0.2 s it stalls (−0.06 rad/s against ω_L = 6 rad/s)."""
    duration = max(0.8, 40 * dt)
    t, qd, J = spin_loaded(dt, duration, "implicit")
    T = J * NO_LOAD / STALL
    w_L = NO_LOAD * (1 - LOAD / STALL)
    ref = w_L + (qd[1] - w_L) * np.exp(-(t[1:] - t[1]) / T)
    np.testing.assert_allclose(qd[1:], ref, rtol=0, atol=1e-9 * NO_LOAD)
    assert qd[-1] == pytest.approx(w_L, rel=1e-3)
    # the implicit lines as they were, the load left out: the wrong loaded speed, by the closed form's gap
    t, qd_old, _ = spin_loaded(dt, duration, "unloaded")
    x = dt * (STALL / NO_LOAD) / J
    De = J / dt * (x / -math.expm1(-x) - 1.0)
    w_old = NO_LOAD * (1 - LOAD * (1 + dt * De / J) / STALL)
    assert qd_old[-1] == pytest.approx(w_old, rel=1e-3)
    assert abs(qd_old[-1] - w_L) > 1e-3 * NO_LOAD  # 10⁶ times the 1e-9 the loaded line meets


def test_loaded_implicit_line_converges_to_the_explicit_one():
    """h → 0: halving the step halves the gap between the loaded implicit line and the explicit clip on the
    loaded spin-up (first order), and at 4 ms the explicit one is off the exponential by its O(h) while the
    implicit one is on it: the same continuous-time line under load."""
    gaps = []
    for dt in (0.004, 0.002, 0.001):
        _, qi, _ = spin_loaded(dt, 0.3, "implicit")
        _, qx, _ = spin_loaded(dt, 0.3, "explicit")
        gaps.append(np.abs(qi - qx).max() / NO_LOAD)
    assert gaps[0] / gaps[1] == pytest.approx(2.0, rel=0.05) and gaps[1] / gaps[2] == pytest.approx(2.0, rel=0.05)


def test_the_screen_includes_the_load():
    """limit_implicit with the load (the last step's acceleration q̈_obs and torques): where no joint can reach
    its line even with the load's speed change h q̈_obs it is the explicit clip bit for bit and the mass matrix
    is not asked for; a joint inside its line (ω = 9.5 rad/s, τ = 0.02 N·m against the line's 0.025) that a
    helping load carries onto it within the step is caught by the screen (without the load's term it would
    pass as the explicit clip) and gets the line's exact mean torque over the step: the closed form
    J ω̇ = τ_s (1 − ω/ω0) + f, ω → ω_f = ω0 (1 + f/τ_s) on T = J ω0/τ_s, so τ̄ = J (ω_f − ω)(1 − e^(−h/T))/h − f."""
    J, h = 1e-3, 1e-3
    m = Motors([STALL, STALL], [NO_LOAD, NO_LOAD], [J, J], h)
    M = np.diag([J, J])

    def no_M():
        raise AssertionError("the mass matrix was asked for")

    tau, qd = np.array([0.02, -0.02]), np.array([9.5, -0.2])
    # a small load (q̈_obs = 50 rad/s², 0.05 rad/s over the step): nowhere near a line
    np.testing.assert_array_equal(m.limit_implicit(tau, qd, h, no_M, np.array([50.0, 0.0]), tau.copy()),
                                  m.limit(tau, qd))
    # without the load the screen lets this one pass as explicit …
    np.testing.assert_array_equal(m.limit_implicit(tau, qd, h, no_M), m.limit(tau, qd))
    # … with a helping load of 400 rad/s² (0.4 rad/s over the step: to 0.99 ω0) it is caught
    asked = []
    out = m.limit_implicit(tau, qd, h, lambda: asked.append(1) or M, np.array([400.0, 0.0]), tau.copy())
    assert asked
    f = J * 400.0 - 0.02  # f_load = M q̈_obs − τ_prev
    T = J * NO_LOAD / STALL
    w_f = NO_LOAD * (1 + f / STALL)
    assert out[0] == pytest.approx(J * (w_f - 9.5) * -math.expm1(-h / T) / h - f, rel=1e-12)
    assert out[0] < tau[0] and out[1] == tau[1]
    with pytest.raises(ValueError, match="needs both"):
        m.limit_implicit(tau, qd, h, lambda: M, np.zeros(2))


def test_a_scenario_sets_the_implicit_lines():
    """sim.motor_lines = "implicit" turns World.implicit_motor_lines on for the run (the default leaves the explicit
    clip, and the resolved scenario without the key, as before); a bad value is refused by name."""
    from lab.core import scenario as scn
    from lab.core.runner import Simulation

    sc = scn.load("tracked_step_climb")
    assert sc.sim.motor_lines == "explicit" and "motor_lines" not in sc.to_dict()["sim"]
    sim = Simulation(sc)
    try:
        assert not sim.world.implicit_motor_lines
    finally:
        sim.world.close()
    sc = scn.load("tracked_step_climb", ["sim.motor_lines=implicit"])
    assert sc.to_dict()["sim"]["motor_lines"] == "implicit"
    sim = Simulation(sc)
    try:
        assert sim.world.implicit_motor_lines
    finally:
        sim.world.close()
    with pytest.raises(Exception, match="motor_lines"):
        scn.load("tracked_step_climb", ["sim.motor_lines=bogus"])


def test_the_load_is_dropped_after_a_rewind():
    """The load comes from the step just before (World.apply keeps its q̇ and torques): after restore_state the
    next step has no such step (the snapshot's history is the rewind's), so it predicts without the load —
    the unloaded line's torque τ_line J/(J + h D_e), not a stale load from before the rewind — and the step
    after it has its load again (τ_line − h D_e (τ_line − τ_L)/(J + h D_e), the loaded formula)."""
    from lab.core.wrench import Wrench

    urdf, J = rotor_urdf()
    dt = 0.01
    w = World(dt=dt, gravity=0.0)
    try:
        w.load_robot(urdf, [0.0, 0.0, 1.0], 0.0, 0.1, STALL)
        w.implicit_motor_lines = True
        T_W = np.array([[0.0, 0.0, +LOAD], [0.0, 0.0, -LOAD]])
        x = dt * (STALL / NO_LOAD) / J
        De = J / dt * (x / -math.expm1(-x) - 1.0)

        def step():
            s = w.read_state()
            tau = w.apply(np.array([100.0]), Wrench(np.zeros((2, 3)), T_W.copy()), s)[0]
            w.step_engine()
            return float(s.qd[0]), tau

        for _ in range(5):
            step()
        snap = w.save_state()
        for _ in range(5):
            step()
        w.restore_state(snap)
        qd, tau = step()
        line = STALL * (1 - qd / NO_LOAD)
        assert tau == pytest.approx(line * J / (J + dt * De), rel=1e-9)  # no load: the history was dropped
        qd, tau = step()
        line = STALL * (1 - qd / NO_LOAD)
        assert tau == pytest.approx(line - dt * De * (line - LOAD) / (J + dt * De), rel=1e-9)
    finally:
        w.close()
