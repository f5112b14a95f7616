"""The engine pitfalls the World must handle, each checked against closed forms."""

import math

import numpy as np
import pytest

from lab.robots import SnakeSpec
from lab.core.tolerances import tol
from lab.core.world import World


@pytest.fixture
def world():
    w = World(dt=0.001, gravity=9.81)
    yield w
    w.close()


def test_free_sliding_module_keeps_its_speed_and_spin(world):
    """No callback friction, engine friction zeroed, Bullet's default 0.04 linear and angular damping
    zeroed: linear momentum and spin are conserved (with damping 0.04 they decay by ~8 % in 2 s)."""
    spec = SnakeSpec()
    world.load_robot(spec.module_urdf(), [0, 0, spec.rest_height], 0.0, spec.module_length, spec.effort)
    world.set_base_velocity([0.3, 0.1, 0.0], [0.0, 0.0, 2.0])
    for _ in range(2000):
        world.step_engine()
    s = world.read_state()
    np.testing.assert_allclose(s.v_W[0, :2], [0.3, 0.1], rtol=1e-6)
    np.testing.assert_allclose(s.p_W[0, :2], [0.6, 0.2], rtol=1e-3)
    assert s.w_W[0, 2] == pytest.approx(2.0, rel=tol("world.spin_rel"))


def test_external_force_gives_constant_acceleration_when_reapplied(world):
    """Bullet clears external forces after each step; the World re-applies them: x = F t²/(2m)."""
    spec = SnakeSpec()
    world.load_robot(spec.module_urdf(), [0, 0, spec.rest_height], 0.0, spec.module_length, spec.effort)
    F = np.array([[0.25, 0.0, 0.0]])
    n = 1000
    for _ in range(n):
        s = world.read_state()
        world.apply(None, F, s)
        world.step_engine()
    s = world.read_state()
    t = n * world.dt
    a = 0.25 / spec.mass
    assert s.v_W[0, 0] == pytest.approx(a * t, rel=1e-9)
    # semi-implicit Euler: x_n = a h² n(n+1)/2
    assert s.p_W[0, 0] == pytest.approx(a * world.dt**2 * n * (n + 1) / 2, rel=1e-6)
    # one step without re-applying: the force is gone, velocity stays
    v = s.v_W[0, 0]
    world.step_engine()
    assert world.read_state().v_W[0, 0] == pytest.approx(v, rel=1e-12)


def test_velocity_motors_disabled_and_torque_drives_two_link_chain(world):
    """Two equal modules joined end to end, free on frictionless ground: an internal torque τ turns
    each about its own centre (momentum and angular momentum conservation force ψ̇₁ = −ψ̇₂ and keep
    the centres still), so q̈ = 2τ / I_c. A velocity motor left on would hold q̇ = 0, and a joint
    placed anywhere but at the shared end would give a different rate."""
    spec = SnakeSpec(n_modules=2)
    world.load_robot(spec.to_urdf(), [0, 0, spec.rest_height], 0.0, spec.module_length, spec.effort)
    s = world.read_state()
    tau = np.array([0.001])
    n = 20
    for _ in range(n):
        world.apply(tau, None, s)
        world.step_engine()
        s = world.read_state()
    Ic = spec.mass_props().inertia[2, 2]
    assert s.qd[0] == pytest.approx(2 * 0.001 / Ic * n * world.dt, rel=tol("world.two_link_rate_rel"))
    np.testing.assert_allclose(s.w_W[0, 2], -s.w_W[1, 2], rtol=1e-3)
    L = (s.model.I_B[:, 2, 2] * s.w_W[:, 2]).sum() + (s.model.mass * np.cross(s.p_W - s.com_W, s.v_W)[:, 2]).sum()
    assert abs(L) < 1e-9  # internal torque only


def test_state_snapshot_frames(world):
    spec = SnakeSpec(n_modules=3)
    world.load_robot(spec.to_urdf(), [0.1, 0.2, spec.rest_height], math.pi / 2, spec.module_length, spec.effort)
    s = world.read_state()
    # tail at the base position, the chain along the heading (+y), every x axis pointing to the head
    np.testing.assert_allclose(s.p_W[:, 1] - 0.2, [0, 0.08, 0.16], atol=1e-9)
    np.testing.assert_allclose(s.x_axis_W, np.tile([0, 1, 0], (3, 1)), atol=1e-9)
    np.testing.assert_allclose(s.R_WB[:, :, 0], s.x_axis_W, atol=1e-12)
    np.testing.assert_allclose(s.yaw, math.pi / 2, atol=1e-9)


def test_world_frame_torque_and_accelerations(world):
    """A torque T about z on a module on frictionless ground: ω = T t / I_zz; the snapshot's
    finite-difference angular acceleration equals T / I_zz."""
    from lab.forces import Wrench

    spec = SnakeSpec()
    world.load_robot(spec.module_urdf(), [0, 0, spec.rest_height], 0.0, spec.module_length, spec.effort)
    Izz = spec.mass_props().inertia[2, 2]
    T = np.array([[0.0, 0.0, 1e-3]])
    s = world.read_state()
    for _ in range(100):
        world.apply(None, Wrench(np.zeros((1, 3)), T), s)
        world.step_engine()
        s = world.read_state()
    assert s.w_W[0, 2] == pytest.approx(1e-3 / Izz * 0.1, rel=tol("world.spin_rel"))
    assert s.dw_W[0, 2] == pytest.approx(1e-3 / Izz, rel=tol("world.spin_rel"))


def test_extra_body_is_read_and_pushed(world):
    box = """<?xml version="1.0"?><robot name="box"><link name="b"><inertial><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link></robot>"""
    from lab.forces import Wrench

    spec = SnakeSpec(n_modules=2)
    world.load_robot(spec.to_urdf(), [0, 0, spec.rest_height], 0.0, spec.module_length, spec.effort)
    world.add_body("payload", box, [-0.5, 0, 0.2])
    world.client.changeDynamics(world.bodies["payload"][0], -1, lateralFriction=0.0)
    s = world.read_state()
    assert s.extra["payload"].mass == pytest.approx(2.0)
    for _ in range(500):
        world.apply(None, Wrench(np.zeros((2, 3)), extra={"payload": np.array([1.0, 0, 0])}), s)
        world.step_engine()
        s = world.read_state()
    assert s.extra["payload"].v_W[0] == pytest.approx(0.5 * 0.5, rel=1e-3)  # a = F/m = 0.5 m/s², t = 0.5 s


@pytest.mark.parametrize("on_step", [False, True], ids=["plane made first", "step box made first"])
def test_contact_snapshot_friction_is_the_force_on_the_robot(on_step):
    """A box sliding along +x at 1 m/s on the ground plane, or on top of a step (a static box the arena
    made before the robot, so the contact manifold has the other body order): the recorded friction
    on the robot is −μ m g x̂ either way (PyBullet reports f·dir for the manifold's body order)."""
    from lab.arenas.step import Step
    from lab.robots.urdf import box_urdf

    h = 0.1
    w = World(dt=0.001, arena=Step(step_height=h if on_step else 0.0, step_x=-0.4))
    try:
        z0 = (h if on_step else 0.0) + 0.05
        w.load_robot(box_urdf("b", 1.0, (0.1, 0.1, 0.1)), [0, 0, z0], 0.0, 0.1, 1.0, engine_friction=0.5)
        w.record_contacts = True
        for _ in range(100):
            w.step_engine()
        w.client.resetBaseVelocity(w.robot, [1.0, 0, 0])
        w.step_engine()
        cs = w.read_state().contacts
    finally:
        w.close()
    F_fric = cs[:, 9:12].sum(axis=0)
    F_n = (cs[:, 5:8] * cs[:, 8:9]).sum(axis=0)
    mu = 0.5 * 1.0  # Bullet multiplies the two bodies' coefficients (robot 0.5, arena 1.0)
    assert F_n == pytest.approx([0, 0, 9.81], abs=0.1)
    assert F_fric == pytest.approx([-mu * 9.81, 0, 0], abs=0.05)


def _qmul(a, b):
    """Hamilton product of x y z w quaternions (numpy: pybullet's multiplyTransforms is single precision)."""
    av, aw, bv, bw = np.asarray(a[:3]), a[3], np.asarray(b[:3]), b[3]
    return np.array([*(aw * bv + bw * av + np.cross(av, bv)), aw * bw - av @ bv])


def _qrot(q, v):
    return _qmul(_qmul(q, [*v, 0.0]), [-q[0], -q[1], -q[2], q[3]])[:3]


def _fk_from_joints(c, body, q):
    """Every link's COM pose composed from the base COM pose and the joint angles, independently of
    getLinkStates: parent COM frame ∘ joint frame (getJointInfo) ∘ R(axis, q) ∘ child inertial frame."""
    pos, orn = c.getBasePositionAndOrientation(body)
    poses = [(np.array(pos), np.array(orn))]
    jj = 0
    for j in range(c.getNumJoints(body)):
        info = c.getJointInfo(body, j)
        p_pos, p_orn = poses[info[16] + 1]
        jp, jo = p_pos + _qrot(p_orn, info[14]), _qmul(p_orn, info[15])
        if info[2] == c.JOINT_REVOLUTE:
            axis = np.asarray(info[13], float)
            jo = _qmul(jo, [*(axis * math.sin(q[jj] / 2)), math.cos(q[jj] / 2)])
            jj += 1
        d = c.getDynamicsInfo(body, j)
        poses.append((jp + _qrot(jo, d[3]), _qmul(jo, d[4])))
    return np.array([p for p, _ in poses]), np.array([o for _, o in poses])


def test_snapshot_link_frames_are_current_after_a_step(world):
    """After stepSimulation, getLinkStates without computeForwardKinematics returns the link frames of
    the previous step (yaws off by q̇·dt). The snapshot must describe one instant: every link pose
    equals the pose composed from the current base pose and joint angles, to rounding."""
    spec = SnakeSpec(n_modules=6)
    world.load_robot(spec.to_urdf(), [0, 0, spec.rest_height], 0.3, spec.module_length, spec.effort)
    rates = [2.0, -1.5, 1.0, -2.5, 3.0]
    for j, qd in enumerate(rates):
        world.client.resetJointState(world.robot, j, 0.1 * j, qd)
    s = world.read_state()
    for _ in range(5):
        world.apply(np.array([0.05, -0.05, 0.05, -0.05, 0.05]), None, s)
        world.step_engine()
        s = world.read_state()
    assert np.abs(s.qd).min() > 0.5  # the joints are really moving: a stale frame would be off by ~1e-3
    p_fk, quat_fk = _fk_from_joints(world.client, world.robot, s.q)
    np.testing.assert_allclose(s.p_W, p_fk, atol=1e-12)
    # quaternions up to sign
    dots = np.abs(np.einsum("ij,ij->i", s.quat_W, quat_fk))
    np.testing.assert_allclose(dots, 1.0, atol=1e-12)
    # link velocities: the COM velocity of each link equals the finite difference of the FK positions
    # over a further step only to O(dt); check instead the rigid-body relation across each joint:
    # v_child − v_parent = ω_parent × (joint − p_parent) + ω_child × (p_child − joint) (joint at the
    # shared end, which is on the x axis of both links).
    L = spec.module_length
    for i in range(1, s.p_W.shape[0]):
        joint = s.p_W[i - 1] + 0.5 * L * s.x_axis_W[i - 1]
        np.testing.assert_allclose(joint, s.p_W[i] - 0.5 * L * s.x_axis_W[i], atol=1e-9)
        rel = np.cross(s.w_W[i - 1], joint - s.p_W[i - 1]) + np.cross(s.w_W[i], s.p_W[i] - joint)
        np.testing.assert_allclose(s.v_W[i] - s.v_W[i - 1], rel, atol=1e-9)


def test_contact_points_belong_to_the_pre_step_instant():
    """getContactPoints after a step reports the points found by that step's collision pass, which
    runs on the poses at the start of the step: a frictionless box sliding at 1 m/s has its contact
    points dt·v behind its post-step position (documented in lab.core.state)."""
    from lab.robots.urdf import box_urdf

    w = World(dt=0.001)
    try:
        w.load_robot(box_urdf("b", 1.0, (0.1, 0.1, 0.1)), [0, 0, 0.05], 0.0, 0.1, 1.0, engine_friction=0.0)
        w.record_contacts = True
        for _ in range(100):
            w.step_engine()
        w.client.resetBaseVelocity(w.robot, [1.0, 0, 0])
        pre = w.read_state()
        w.step_engine()
        post = w.read_state()
    finally:
        w.close()
    cx = post.contacts[:, 2].mean()  # four corners: their mean is under the COM
    assert cx == pytest.approx(pre.p_W[0, 0], abs=1e-6)
    assert post.p_W[0, 0] - pre.p_W[0, 0] == pytest.approx(1e-3, rel=1e-6)


def _every_robot_spec():
    from lab.robots import EelSpec, TrackedSpec, WheeledSnakeSpec

    return [SnakeSpec(), SnakeSpec(n_modules=30), EelSpec(), TrackedSpec(), WheeledSnakeSpec()]


@pytest.mark.parametrize("spec", _every_robot_spec(), ids=lambda s: f"{type(s).__name__}-{s.n_links}")
def test_compiled_forward_kinematics_is_the_engines_link_state(spec):
    """The snapshot's link rows come from the compiled forward-kinematics pass (lab.core.kernels): they must be
    what getLinkStates(computeForwardKinematics=1, computeLinkVelocity=1) returns, to 1e-12, on every
    robot the lab ships (revolute, prismatic and fixed joints, offset inertial origins, tilted joint
    frames), in a random pose and twist after engine steps under random torques."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(7)
    w = World(dt=0.001)
    try:
        w.load_spec(spec, [0.1, -0.2, 0.4], 0.3)
        assert w._fk_tree is not None, "the compiled pass must cover every shipped robot"
        J = w.n_joints
        w.reset_state(q=rng.uniform(-0.6, 0.6, J), qd=rng.uniform(-3, 3, J),
                      quat_W=Rotation.from_euler("xyz", [0.4, -0.3, 1.1]).as_quat(), v_W=[0.3, -0.2, 0.1],
                      w_W=[0.7, -0.5, 0.9])
        s = w.read_state()
        for _ in range(3):
            w.apply(rng.uniform(-0.05, 0.05, J), None, s)
            w.step_engine()
            s = w.read_state()
        c, b = w.client, w.robot
        ls = c.getLinkStates(b, list(range(w.n_links - 1)), computeLinkVelocity=1, computeForwardKinematics=1)
        js = c.getJointStates(b, w._joint_ids)
        np.testing.assert_array_equal(s.q, [x[0] for x in js])
        np.testing.assert_array_equal(s.qd, [x[1] for x in js])
        for k, row in enumerate(ls, start=1):
            np.testing.assert_allclose(s.p_W[k], row[0], rtol=0, atol=1e-12)
            np.testing.assert_allclose(s.quat_W[k], row[1], rtol=0, atol=1e-12)  # Bullet's sign too
            np.testing.assert_allclose(s.v_W[k], row[6], rtol=0, atol=1e-12)
            np.testing.assert_allclose(s.w_W[k], row[7], rtol=0, atol=1e-12)
            R = np.array(c.getMatrixFromQuaternion(row[1])).reshape(3, 3)
            np.testing.assert_allclose(s.R_WB[k], R, rtol=0, atol=1e-12)
        np.testing.assert_allclose(s.R_WB[0], np.array(c.getMatrixFromQuaternion(s.quat_W[0])).reshape(3, 3),
                                   rtol=0, atol=1e-15)
    finally:
        w.close()


def test_compiled_snapshot_keeps_the_engines_force_lever_arms():
    """applyExternalForce takes a link force's lever arm from the link's cached world frame, which
    stepSimulation leaves one step stale; the full getLinkStates read refreshed it as a side effect.
    The compiled read must too: forces applied at the snapshot's COMs of a spinning chain (no
    gravity) give the same trajectory as with every link read from the engine (without the refresh the
    spurious torque (p − p_stale) × F moved the velocities by 4e-4 m/s in two steps)."""
    spec = SnakeSpec(n_modules=4)
    runs = []
    for use_fk in (True, False):
        w = World(dt=0.001, gravity=0.0)
        try:
            w.load_robot(spec.to_urdf(), [0, 0, 1.0], 0.0, spec.module_length, spec.effort)
            if not use_fk:
                w._fk_tree = None
            w.reset_state(q=[0.3, -0.2, 0.4], qd=[2.0, -3.0, 1.0], v_W=[0.2, 0.0, 0.0], w_W=[0.0, 0.0, 3.0])
            s = w.read_state()
            for k in range(50):
                F_W = np.tile([0.0, 0.5, 0.0], (w.n_links, 1)) * np.cos(0.1 * k)
                w.apply(None, F_W, s)
                w.step_engine()
                s = w.read_state()
            runs.append(s)
        finally:
            w.close()
    a, b = runs
    assert np.abs(a.w_W).max() > 1.0  # really spinning: a stale frame is ~3 mm off per step
    np.testing.assert_allclose(a.v_W, b.v_W, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.w_W, b.w_W, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.p_W, b.p_W, rtol=0, atol=1e-12)
