"""The multi-module tracked robot (lab/robots/tracked_chain.py): generated model, motors, joint signs."""

import math

import numpy as np
import pytest

from lab.robots.tracked import TrackedSpec
from lab.robots.tracked_chain import TrackedChainSpec


@pytest.mark.slow
def test_spec_validation_and_motors():
    with pytest.raises(ValueError, match="n_modules"):
        TrackedChainSpec(n_modules=5)
    with pytest.raises(ValueError, match="coupler_length"):
        TrackedChainSpec(coupler_length=0.30, track_side=0.25)  # < l + 2r + 1 cm: flat modules would overlap
    s = TrackedChainSpec(n_modules=3)
    m = s.motors()
    single = TrackedSpec(motor_speed_line=True).motors()
    for k in range(3):
        assert m[f"m{k}_arm_joint"] == single["arm_joint"] and m[f"m{k}_drive_joint"] == single["drive_joint"]
    # a connector is Table 1's motor through the stated gearing: 18.8 mN·m × 720, 3600 rpm / 720
    assert m["c1_rear"][0] == pytest.approx(18.8e-3 * 720)
    assert m["c1_rear"][1] == pytest.approx(3600 * 2 * math.pi / 60 / 720)
    assert set(s.connector_joints()) == {"c0_front", "c0_rear", "c1_front", "c1_rear"}
    assert TrackedChainSpec(layout="parallel").connector_joints() == ()
    # every module's drive link as the single robot's, with the chain's drive_inertia (the single-module
    # scenarios' 1e-3 kg·m² lever on the belt gears' solve, issue 34)
    assert s.module().drive_inertia == TrackedSpec().drive_inertia
    heavy = TrackedChainSpec(n_modules=3, drive_inertia=1e-3)
    assert heavy.module().drive_inertia == 1e-3
    drives = [heavy.to_urdf().split(f'<link name="m{k}_drive">')[1].split("</link>")[0] for k in range(3)]
    assert all('iyy="0.001"' in d for d in drives) and 'iyy="0.001"' not in s.to_urdf()


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["serial", "parallel"])
def test_loads_rests_and_survives_random_torques(layout):
    from lab.core.world import World

    S = TrackedChainSpec(n_modules=2, layout=layout)
    w = World(dt=0.001)
    try:
        w.load_spec(S, [0, 0, S.rest_height + 0.0005], 0.0)
        assert w.n_links == S.n_links
        single = TrackedSpec()
        assert w.model.mass.sum() == pytest.approx(2 * (6.2 + 0.01) + (S.bar_mass if layout == "serial" else 0))
        rng = np.random.default_rng(1)
        act = [w.model.joint_index(n) for n in S.actuated_joints(tuple(w.model.joint_names))]
        for i in range(300):
            st = w.read_state()
            tau = np.zeros(w.n_joints)
            tau[act] = rng.normal(0, 2.0, len(act))
            w.apply(tau, None, st)
            w.step_engine()
        st = w.read_state()
        assert np.isfinite(st.p_W).all() and np.isfinite(st.q).all()
        # the bodies stay on the ground, a module's height above it (no sinking, no launch)
        bodies = [w.model.link_names.index(f"m{k}_body") for k in range(2)]
        assert np.all(np.abs(st.p_W[bodies, 2] - single.rest_height) < 0.03)
    finally:
        w.close()


@pytest.mark.slow
def test_connector_joint_signs():
    """c0_rear > 0 pitches module 1 nose-down relative to the bar; c0_front > 0 raises the bar's rear end
    (the conventions the chain_climb controller's plan is written in)."""
    from lab.core.world import World

    S = TrackedChainSpec(n_modules=2)
    w = World(dt=0.001, gravity=0.0)
    try:
        w.load_spec(S, [0, 0, 1.0], 0.0)
        q = np.zeros(w.n_joints)
        q[w.model.joint_index("c0_front")] = 0.3
        w.set_joint_angles(q)
        st = w.read_state()
        L = w.model.link_names
        c0, c1 = st.p_W[L.index("m0_body")], st.p_W[L.index("m1_body")]
        assert c1[2] - c0[2] == pytest.approx(0.36 * math.sin(0.3), abs=2e-3)  # module 1 raised
        q[:] = 0
        q[w.model.joint_index("c0_rear")] = 0.3
        w.set_joint_angles(q)
        st = w.read_state()
        R = st.R_WB[L.index("m1_body")]
        assert math.atan2(R[2, 0], R[0, 0]) == pytest.approx(-0.3, abs=1e-6)  # nose down by 0.3
    finally:
        w.close()


@pytest.mark.slow
@pytest.mark.parametrize("layout,n", [("triangle", 3), ("ring", 4)])
def test_loop_closes_and_holds_under_its_weight(layout, n):
    """The triangle and ring (Hu 2013 Fig 4, our reading): the URDF is a tree, the engine constraint made
    once at set-up closes the loop; under gravity with the motors off the last bar's far end (it hangs from
    module 0) stays on module N−1's centre (measured ~1e-5 m), the triangle keeps its shape (a truss of pins), and without the
    constraint (the fault this guards against) the loop opens by centimetres."""
    from lab.core.world import World

    S = TrackedChainSpec(n_modules=n, layout=layout)
    assert set(S.connector_joints()) | set(S.passive_joints()) == set(S.bar_joints())
    assert "c%d_front" % (n - 1) not in S.bar_joints() and "c%d_rear" % (n - 1) in S.bar_joints()

    def gap_after(close: bool) -> tuple[float, float]:
        w = World(dt=0.001)
        try:
            if not close:
                w.add_point_joint = lambda *a, **k: -1  # the loop left open
            w.load_spec(S, [0, 0, S.rest_height + 0.0005], 0.0)
            c = w.client
            L = w.model.link_names
            bar = L.index(f"bar_{n - 1}") - 1
            for _ in range(400):
                st = w.read_state()
                w.apply(np.zeros(w.n_joints), None, st)
                w.step_engine()
            ls = c.getLinkState(w.robot, bar, computeForwardKinematics=1)
            R = np.array(c.getMatrixFromQuaternion(ls[5])).reshape(3, 3)
            end = np.array(ls[4]) + R @ np.array([-S.coupler_length, 0, 0])
            far = np.array(c.getLinkState(w.robot, L.index(f"m{n - 1}_body") - 1, computeForwardKinematics=1)[4])
            st = w.read_state()
            top = st.p_W[L.index("m2_body"), 2]
            return float(np.linalg.norm(end - far)), float(top)
        finally:
            w.close()

    g, z_top = gap_after(True)
    assert g < 1e-4
    if layout == "triangle":
        assert z_top > S.coupler_length * math.sqrt(3) / 2 * 0.98  # the apex still up: a rigid truss
    g_open, _ = gap_after(False)
    assert g_open > 0.01
