"""World.mass_matrix against the engine's own step, and the M the snapshot carries to a Stable PD servo."""

import numpy as np
import pytest

from lab.core.world import World, joint_space_inertia, schur_joint_block
from lab.robots import SnakeSpec


def _free_snake(gravity=0.0, fixed=False):
    w = World(dt=0.001, gravity=gravity)
    spec = SnakeSpec(n_modules=5)
    w.load_spec(spec, [0.0, 0.0, 1.0], 0.3)  # a metre above the ground: no contact in one step
    if fixed:
        w.fix_base()
    return w, spec


@pytest.mark.parametrize("fixed", [False, True])
def test_mass_matrix_predicts_the_engines_joint_acceleration(fixed):
    """From rest in zero gravity, one step under joint torques τ changes the joint rates by h·M_eff⁻¹τ with
    M_eff the joint block of World.mass_matrix with the base free (its Schur complement; the joint block
    itself for a welded base). Taking the first J rows (the base's), or M_qq without the base's coupling,
    misses by 10–100 % (checked below), so the ordering and the elimination are both tested."""
    w, _ = _free_snake(fixed=fixed)
    try:
        rng = np.random.default_rng(3)
        q = rng.uniform(-0.6, 0.6, w.n_joints)
        w.set_joint_angles(q)
        M = w.mass_matrix()
        assert M.shape == ((w.n_joints,) * 2 if fixed else (6 + w.n_joints,) * 2)
        np.testing.assert_allclose(M, M.T, atol=1e-12)
        assert np.linalg.eigvalsh(M).min() > 0
        tau = rng.uniform(-0.05, 0.05, w.n_joints)
        s = w.read_state()
        w.apply(tau, None, s)
        w.step_engine()
        qd = w.read_state().qd
        M_eff = schur_joint_block(M, w.n_joints)
        predicted = w.dt * np.linalg.solve(M_eff, tau)
        np.testing.assert_allclose(qd, predicted, rtol=1e-6, atol=1e-12)
        if not fixed:  # the wrong blocks are far off: the test can tell them apart
            wrong = w.dt * np.linalg.solve(M[6:, 6:], tau)
            assert np.abs(wrong - qd).max() > 0.1 * np.abs(qd).max()
    finally:
        w.close()


def test_mass_matrix_default_is_the_current_configuration():
    w, _ = _free_snake()
    try:
        q = np.linspace(-0.4, 0.4, w.n_joints)
        w.set_joint_angles(q)
        np.testing.assert_array_equal(w.mass_matrix(), w.mass_matrix(q))
        assert np.abs(w.mass_matrix() - w.mass_matrix(np.zeros(w.n_joints))).max() > 1e-4
    finally:
        w.close()


def test_joint_space_inertia_is_the_live_worlds_at_the_zero_pose():
    """The loader's throwaway-client inertia equals the World's own at q = 0."""
    w, spec = _free_snake()
    try:
        M_eff, names = joint_space_inertia(spec.to_urdf())
        assert names == w.model.joint_names
        np.testing.assert_allclose(M_eff, schur_joint_block(w.mass_matrix(np.zeros(w.n_joints)), w.n_joints),
                                   rtol=1e-10)
    finally:
        w.close()


def test_snapshot_carries_M_only_on_request_and_adds_the_gears_inertia():
    """RobotState.M is None unless want_mass_matrix; for the tracked robot the drive joint's diagonal
    carries the belt's inertia its spec states (the gears are constraints, outside the engine's M)."""
    from lab.robots.tracked import TrackedSpec

    w = World(dt=0.001)
    try:
        spec = TrackedSpec()
        w.load_spec(spec, [0.0, 0.0, spec.rest_height], 0.0)
        assert w.read_state().M is None
        w.want_mass_matrix = True
        s = w.read_state()
        engine = w.mass_matrix(s.q)
        nb = engine.shape[0] - w.n_joints
        j = w.model.joint_index("drive_joint")
        belt = spec.motors()["drive_joint"][2]
        own = 1.0 / np.linalg.inv(schur_joint_block(engine, w.n_joints)).diagonal()[j]
        assert belt > 5 * own  # the belt dominates the drive's inertia: leaving it out matters
        diff = s.M - engine
        assert diff[nb + j, nb + j] == pytest.approx(belt - own, rel=1e-9)
        diff[nb + j, nb + j] = 0.0
        assert not diff.any()
    finally:
        w.close()
