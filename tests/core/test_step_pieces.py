"""The per-step fast paths (World.read_state's one compiled call, the packed motor clip, the recorder's
one-law step) give the same bits as the general code they stand in for: results must not change when
the lab's own overhead is cut (docs/benchmarks.md)."""

import math

import numpy as np
import pytest

from lab.actuators import Motors, _limit
from lab.core import kernels
from lab.core.recorder import Recorder
from lab.core.world import World
from lab.forces.base import Wrench
from lab.robots import SnakeSpec, TrackedSpec


@pytest.mark.slow
@pytest.mark.parametrize("spec", [SnakeSpec(), TrackedSpec()], ids=["snake", "tracked"])
def test_compiled_read_is_the_reference_pass_to_the_bit(spec):
    """read_state's snapshot (lab.core.kernels.snapshot, its lazy attributes prefilled) equals the
    reference pass (World._fk_pass: joint states as an array, lab.core.kernels.forward_kinematics) and the
    lazy formulas (kernels.energies, the NaN reduction) exactly, in a random moving state."""
    rng = np.random.default_rng(3)
    w = World(dt=0.001)
    try:
        w.load_spec(spec, [0.1, -0.2, 0.3], 0.4)
        J = w.n_joints
        w.reset_state(q=rng.uniform(-0.5, 0.5, J), qd=rng.uniform(-2, 2, J), v_W=[0.2, -0.1, 0.05], w_W=[0.3, 0.1, 1.2])
        s = w.read_state()
        for _ in range(5):
            w.apply(rng.uniform(-0.05, 0.05, J), rng.uniform(-0.2, 0.2, (w.n_links, 3)), s)
            w.step_engine()
            s = w.read_state()
        flat, R, q, qd = w._fk_pass(w._fk_tree)
        np.testing.assert_array_equal(s.flat, flat)
        np.testing.assert_array_equal(s.R_WB, R)
        np.testing.assert_array_equal(s.q, q)
        np.testing.assert_array_equal(s.qd, qd)
        m = s.model
        e_t, e_r = kernels.energies(s.v_W, s.w_W, R, m.mass, m.I_diag)
        assert s.energy_translational == e_t and s.energy_rotational == e_r  # bits, not approx
        assert s.kinetic_energy == e_t + e_r
        assert s.is_finite() is True
        assert s.M is None  # no servo asked for the mass matrix
        w.want_mass_matrix = True  # a Stable PD servo's snapshot carries it, on the compiled read too
        s = w.read_state()
        M = w.mass_matrix(s.q)
        if w._gear_inertia is not None:
            k = np.arange(M.shape[0] - J, M.shape[0])
            M[k, k] += w._gear_inertia
        np.testing.assert_array_equal(s.M, M)
    finally:
        w.close()


def test_snapshot_kernel_flags_a_non_finite_value():
    """The kernel's finite flag is what the divergence check reads every step: a NaN or an inf in the
    engine's answer (here the base row and a joint rate) must turn it False."""
    w = World(dt=0.001)
    try:
        spec = SnakeSpec(n_modules=4)
        w.load_spec(spec, [0, 0, spec.rest_height], 0.0)
        tree, body = w._snap_tables
        n, J = w.n_links, w.n_joints
        raw = np.zeros((7 + J, 2))
        raw[1, 1] = 1.0  # quaternion w (value 3 of the base row)
        out = kernels.snapshot(raw, np.empty((n, 13)), np.empty((n, 3, 3)), tree, body)
        assert out[2] is True
        for where, bad in (((4, 0), math.nan), ((7 + J - 1, 1), math.inf)):
            r = raw.copy()
            r[where] = bad
            assert kernels.snapshot(r, np.empty((n, 13)), np.empty((n, 3, 3)), tree, body)[2] is False
    finally:
        w.close()


def test_packed_motor_clip_is_the_seven_array_clip():
    """Motors.limit (the lines packed in one array) against the plain clip with the four per-joint arrays,
    on random torques and speeds across every branch (motoring, braking, past ω0, one-step cap, no motor)."""
    rng = np.random.default_rng(5)
    m = Motors([1.0, 2.0, math.inf, 0.5, 3.0], [4.0, math.inf, 1.0, 2.0, 0.5], [0.01, 0.02, 0.03, 1e-5, 0.2], 0.001)
    for _ in range(200):
        tau = rng.uniform(-5, 5, 5)
        qd = rng.uniform(-10, 10, 5)
        ref = _limit(tau, qd, m.stall_torque, m.no_load_speed, m._inv, m._j_over_h, np.empty(5))
        np.testing.assert_array_equal(m.limit(tau, qd), ref)
    with pytest.raises(ValueError, match="tau: one torque per joint"):
        m.limit(np.zeros(4), np.zeros(4))


def test_recorder_one_law_step_books_what_the_general_path_books():
    """One force law's array (the fast path) against the same forces given as a Wrench (the general
    path): the ledger's totals and every sample equal to the bit over a random run."""
    rng = np.random.default_rng(11)
    N, J, steps = 6, 5, 40

    class S:  # the fields the recorder reads
        def __init__(self, t):
            self.t = t
            self.p_W = rng.normal(size=(N, 3))
            self.v_W = rng.normal(size=(N, 3))
            self.w_W = rng.normal(size=(N, 3))
            self.q = rng.normal(size=J)
            self.qd = rng.normal(size=J)
            self.kinetic_energy = self.energy_translational = float(rng.uniform())
            self.energy_rotational = 0.0
            self.x_axis_W = rng.normal(size=(N, 3)) * 0.5
            self.yaw = np.arctan2(self.x_axis_W[:, 1], self.x_axis_W[:, 0])
            self.com_W = self.p_W.mean(0)
            self.fn = None
            self.contacts = None

    states = [S(k * 0.001) for k in range(steps + 1)]
    forces = [rng.normal(size=(N, 3)) for _ in range(steps)]
    taus = [rng.normal(size=J) for _ in range(steps)]
    recs = [Recorder(steps, 4, N, J, 0.001, ["friction"]) for _ in range(2)]
    for rec, wrap in zip(recs, (lambda F: F, lambda F: Wrench(F_W=F))):
        rec.start(states[0])
        for k in range(steps):
            rec.on_step(states[k], taus[k], {"friction": wrap(forces[k])}, states[k + 1])
    fast, general = recs
    assert fast.work_in == general.work_in and fast.work_in_abs == general.work_in_abs
    assert fast.work_ext == general.work_ext and fast.work_ext["friction"] != 0.0
    a, b = fast.series(), general.series()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_velocity_coulomb_bound_once_is_the_spelled_out_kernel():
    """VelocityCoulomb's per-step call (its constant arguments bound once per model, packed; the force
    array made in Python) gives the bits of ``coulomb_velocity`` with every argument spelled out, on a moving
    snake with joint torques in the prediction, and rebinds when the model changes (a new World)."""
    from lab.forces.friction import VelocityCoulomb, coulomb_velocity

    law = VelocityCoulomb(mu_t=0.03, mu_n=0.3)
    rng = np.random.default_rng(5)
    for _ in range(2):  # two Worlds: two models, the second call must not reuse the first's binding
        w = World(dt=0.005)
        try:
            w.load_spec(SnakeSpec(n_modules=6), [0.0, 0.0, SnakeSpec(n_modules=6).rest_height], 0.3)
            J = w.n_joints
            w.reset_state(q=rng.uniform(-0.4, 0.4, J), qd=rng.uniform(-2, 2, J), v_W=[0.2, -0.1, 0.0])
            s = w.read_state()
            s.tau = rng.uniform(-0.2, 0.2, J)
            F = law(s, s.t)
            m = s.model
            ref = coulomb_velocity(s.p_W, s.R_WB, s.v_W, m.mass * 9.81, m.mass, m.I_diag, m.tree, m.frames, m.gravity_W,
                                   s.tau, 0.03, 0.03, 0.3, True, 0.005, 2000, 1e-12)
            np.testing.assert_array_equal(F, ref)
            assert law._bound[0] is m and np.abs(F).max() > 0
            # the articulated mass matrix it built, kept for the World's implicit motor lines: the World's own
            np.testing.assert_array_equal(s.M_u, kernels.articulated_mass(s.p_W, s.R_WB, *w._snap_tables))
        finally:
            w.close()


def test_compiled_mass_matrix_has_the_engines_joint_block():
    """The motors' implicit lines predict with the compiled mass matrix (World._lines_mass): its coordinates
    for the free base differ from the engine's, but the joint block of M⁻¹ (all the lines read) is the
    engine's, to rounding, on a bent moving snake and on the tracked robot."""
    rng = np.random.default_rng(7)
    for spec in (SnakeSpec(), TrackedSpec()):
        w = World(dt=0.001)
        try:
            w.load_spec(spec, [0.1, -0.2, 0.3], 0.4)
            J = w.n_joints
            w.reset_state(q=rng.uniform(-0.5, 0.5, J), w_W=[0.3, 0.1, 1.2])
            s = w.read_state()
            w._lines_state = s
            Mc = w._lines_mass()
            assert w._lines_compiled
            Me = w.mass_matrix(s.q)
            if w._gear_inertia is not None:
                k = np.arange(Me.shape[0] - J, Me.shape[0])
                Me[k, k] += w._gear_inertia
            A, B = np.linalg.inv(Me)[-J:, -J:], np.linalg.inv(Mc)[-J:, -J:]
            assert np.abs(A - B).max() <= 1e-9 * np.abs(A).max()
        finally:
            w.close()


def test_env_ledger_power_is_numpys_sum_to_the_bit():
    """lab.envs' ledger books Σ|τ (q̇ + q̇₊)| through kernels.abs_power2: numpy's pairwise sum, bit for bit,
    for every length from 1 to 300 (below 8 terms, the eight accumulators, the halves beyond 128)."""
    rng = np.random.default_rng(0)
    for n in range(1, 301):
        a, b, c = rng.standard_normal((3, n)) * rng.uniform(0.1, 10, 3)[:, None]
        assert kernels.abs_power2(a, b, c) == np.abs(a * (b + c)).sum()


def test_metered_ledger_step_is_numpys_sums_to_the_bit():
    """kernels.metered_powers (the ledger's step on engine contacts: the tracked robot) gives the joints',
    gravity's and the contacts' powers exactly as the three calls it stands in for: joint_power2,
    np.sum(m g · (v + v₊)) in numpy's pairwise order, contact_power2; for every robot size of one pairwise
    block (1–42 links) and with no contacts. A plain running sum of the gravity terms is not that order:
    it differs on some of these sets, so the comparison can tell."""
    rng = np.random.default_rng(5)
    naive_differs = 0
    for n in range(1, 43):
        J = max(n - 1, 0)
        mg = np.outer(rng.uniform(0.01, 5, n), [0.3, -0.2, -9.81])
        flat0, flat1 = rng.normal(size=(2, n, 13))
        p0, v0, w0, v1, w1 = flat0[:, 0:3], flat0[:, 7:10], flat0[:, 10:13], flat1[:, 7:10], flat1[:, 10:13]
        tau, qd0, qd1 = rng.normal(size=(3, J))
        k = int(rng.integers(0, 9))
        cs = np.zeros((k, 12))
        cs[:, 0] = rng.integers(0, n, k)
        cs[:, 2:] = rng.normal(size=(k, 10))
        p_in, p_g, p_c = kernels.metered_powers(tau, qd0, qd1, mg, p0, v0, w0, v1, w1, cs)
        assert p_in == (0.5 * kernels.joint_power2(tau, qd0, qd1) if J else 0.0)
        assert p_g == 0.5 * float(np.sum(mg * (v0 + v1)))
        assert p_c == (0.5 * kernels.contact_power2(cs, p0, v0, w0, v1, w1) if k else 0.0)
        naive = 0.0
        for x in (mg * (v0 + v1)).ravel():
            naive += x
        naive_differs += 0.5 * naive != p_g
    assert naive_differs > 0


def test_recorder_pitch_and_yaw_are_each_samples_formula_to_the_bit():
    """The recorder keeps each sample's x axes and works out the pitch (arcsin of the axis's height clipped
    to [−1, 1]) and the yaw (RobotState.yaw: arctan2 of its plane components) for all samples in series():
    the same bits as the formula on each sample's own row, clipped heights included."""
    rng = np.random.default_rng(12)
    N, J, steps, every = 7, 6, 60, 3

    class S:
        def __init__(self, t):
            self.t = t
            self.p_W = rng.normal(size=(N, 3))
            self.v_W = rng.normal(size=(N, 3))
            self.w_W = rng.normal(size=(N, 3))
            self.q = rng.normal(size=J)
            self.qd = rng.normal(size=J)
            self.kinetic_energy = self.energy_translational = float(rng.uniform())
            self.energy_rotational = 0.0
            self.x_axis_W = rng.normal(size=(N, 3)) * 0.8  # some heights beyond ±1: the clip acts
            self.com_W = self.p_W.mean(0)
            self.fn = None
            self.contacts = None

    states = [S(k * 0.001) for k in range(steps + 1)]
    rec = Recorder(steps, every, N, J, 0.001, ["friction"])
    rec.start(states[0])
    for k in range(steps):
        rec.on_step(states[k], rng.normal(size=J), {"friction": rng.normal(size=(N, 3))}, states[k + 1])
    out = rec.series()
    sampled = [states[0]] + [states[k] for k in range(every, steps + 1, every)]
    assert len(out["pitch"]) == len(sampled)
    clipped = 0
    for row_p, row_y, s in zip(out["pitch"], out["yaw"], sampled):
        h = s.x_axis_W[:, 2]
        clipped += int((np.abs(h) > 1).sum())
        np.testing.assert_array_equal(row_p, np.arcsin(np.clip(h, -1.0, 1.0)))
        np.testing.assert_array_equal(row_y, np.arctan2(s.x_axis_W[:, 1], s.x_axis_W[:, 0]))
    assert clipped > 0


def test_recorder_centre_of_mass_is_each_snapshots_own_to_the_bit():
    """The recorder works out the centre of mass of the samples the step did not ask for in series(), with
    RobotState.com_W's formula on each snapshot's own arrays: the same bits as com_W on that snapshot. The
    same formula on a contiguous copy of p_W (another BLAS path) differs on some samples, so the comparison
    can tell a copy from the snapshot's own arrays."""
    rng = np.random.default_rng(4)
    w = World(dt=0.005)
    try:
        w.load_spec(SnakeSpec(), [0.0, 0.0, 0.02], 0.3)
        J, N = w.n_joints, w.n_links
        rec = Recorder(40, 2, N, J, 0.005, ["push"])
        s = w.read_state()
        rec.start(s)
        states = [s]
        for _ in range(40):
            F = rng.uniform(-0.5, 0.5, (N, 3))
            tau = w.apply(rng.uniform(-0.05, 0.05, J), F, s)
            w.step_engine()
            new = w.read_state()
            rec.on_step(s, tau, {"push": F}, new)
            s = new
            states.append(s)
        assert rec._due  # the snapshots' rows (their centres of mass among them) were left to series()
        com = rec.series()["com"]
        sampled = states[::2]
        assert len(com) == len(sampled)
        copy_differs = 0
        for row, st in zip(com, sampled):
            np.testing.assert_array_equal(row, st.com_W)
            m = st.model
            copy_differs += not np.array_equal(row, (m.mass @ np.ascontiguousarray(st.p_W)) / m.total_mass)
        assert copy_differs > 0
    finally:
        w.close()
