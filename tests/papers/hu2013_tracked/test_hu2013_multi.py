"""The multi-module limit analysis (lab/papers/hu2013_tracked/model/multi.py) against independent
formulations: the serial chain's geometric limit (closed form) against a brute-force search over the
chain's poses with the belt envelopes sampled; the linear programme's joint torques against the POE
chain's gravity term for a module hanging from its bar; and what the statics must do physically."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lab.papers.hu2013_tracked.model.multi import (ChainParams, ChainPose, analyse_serial, chain_statics,
                                                   depth_in_step, hanging_torque_poe, outline, serial_h_geo,
                                                   serial_pose)

G = 9.81


def _bf_reach(cp: ChainParams, h: float, dx: float = 5e-4) -> bool:
    """Brute force: both critical bars reachable. (i) The climber rolled over onto the top (centre above
    the corner at (0, h + z0)) and a module behind it flat on the ground anywhere its sampled envelope
    stays out of the step; (ii) the climber flat at the riser's foot (front pulley against it, found by
    scanning x too) and a module ahead flat on the top with every envelope point near the top's level
    over the top (x ≥ 0)."""
    p = cp.module
    z0 = cp.z0
    xs = np.arange(-1.0, 1.0, dx)
    O = outline(p, (0.0, 0.0), 0.0, n_arc=60)

    def clear(x, z):
        return depth_in_step(O + (x, z), h).max() <= 1e-9

    ground_ok = [x for x in xs if x < 0 and clear(x, z0)]
    x_foot = max(ground_ok)  # the climber (or a module behind) as far forward as the riser allows
    top = np.array([0.0, h + z0])
    reach_i = min(math.hypot(x - top[0], z0 - top[1]) for x in ground_ok)

    def on_top(x):
        P = O + (x, h + z0)
        low = P[:, 1] < h + 1e-6
        return depth_in_step(P, h).max() <= 1e-9 and bool(np.all(P[low, 0] >= 0))

    top_ok = [x for x in xs if x > 0 and on_top(x)]
    reach_ii = min(math.hypot(x - x_foot, h) for x in top_ok)
    return max(reach_i, reach_ii) <= cp.coupler_length


@pytest.mark.parametrize("d_c", [0.32, 0.36, 0.42])
def test_serial_geometric_limit_matches_brute_force(d_c):
    cp = ChainParams(coupler_length=d_c)
    h_cf = serial_h_geo(cp)
    assert _bf_reach(cp, h_cf - 2e-3)
    assert not _bf_reach(cp, h_cf + 2e-3)


@pytest.mark.slow
def test_serial_geometry_refuses_beyond_the_limit_and_says_why():
    cp = ChainParams(n_modules=2)
    h = serial_h_geo(cp) + 0.01
    a = analyse_serial(cp, h, n_u=7)
    assert not a.feasible and a.reason.startswith("geometry")
    assert analyse_serial(cp, serial_h_geo(cp) - 0.005, n_u=7).feasible


@pytest.mark.parametrize("beta_deg", [-20.0, 0.0, 35.0, 70.0])
def test_hanging_module_torques_match_the_poe_gravity_term(beta_deg):
    """A module in the air on its bar, the module behind on the ground: the statics are determinate, and
    the LP's joint torques must be the POE chain's N(q) (Murray §4.3) — the rear joint carries
    m g d_c cos β, the front one nothing (the module's COM is its centre)."""
    cp = ChainParams(n_modules=2, coupler_length=0.36)
    b = math.radians(beta_deg)
    C1 = np.array([-1.0, cp.z0])
    C0 = C1 + 0.36 * np.array([math.cos(b), math.sin(b)])
    pose = ChainPose(np.array([C0, C1]), np.array([0.3, 0.0]), ["air", "ground"], 0, 0.0, True)
    st = chain_statics(cp, pose, h=0.2, use_arm=False, fixed=(1,))  # module 1 anchored
    assert st.feasible
    n_rear, n_front = hanging_torque_poe(cp, C1, b, 0.3)
    assert st.connector_torque[0, 1] == pytest.approx(-n_rear, abs=1e-9)  # torque the bar puts on module 1
    assert abs(n_rear) == pytest.approx(cp.module_mass * G * 0.36 * math.cos(b), rel=1e-9)
    assert st.connector_torque[0, 0] == pytest.approx(0.0, abs=1e-9) and n_front == pytest.approx(0.0, abs=1e-9)


@pytest.mark.slow
def test_statics_needs_more_motor_at_lower_friction_and_a_third_module_helps():
    """The climbing module is held on the riser by its belt's friction under the bar's push: less
    friction, more motor; a third module pushes too, so it needs less (or equal) at the same friction."""
    r2 = [analyse_serial(ChainParams(n_modules=2, mu_ground=m, mu_riser=m), 0.22, n_u=7).peak_ratio for m in (0.8, 0.5, 0.3)]
    r3 = [analyse_serial(ChainParams(n_modules=3, mu_ground=m, mu_riser=m), 0.22, n_u=7).peak_ratio for m in (0.8, 0.5, 0.3)]
    assert r2[0] < r2[1] < r2[2]
    assert all(b <= a + 1e-9 for a, b in zip(r2, r3))


def test_frictionless_chain_cannot_hold_a_module_on_the_riser():
    cp = ChainParams(n_modules=2, mu_ground=0.0, mu_riser=0.0)
    pose = serial_pose(cp, 0.22, 0, 1.5)
    assert pose.ok and not chain_statics(cp, pose, 0.22).feasible


def test_controller_plan_is_continuous_and_refuses_what_the_bars_cannot_reach():
    """The chain_climb controller's plan (lab/papers/hu2013_tracked/chain_climb.py): straight on the ground at
    the first climb's start; each climb starts where the last one left the bars that do not span the two
    levels; the climber's belt turns back with its body in the flip (its front pulley rolls on nothing);
    and beyond the bars' reach there is no plan, only the reason."""
    from lab.papers.hu2013_tracked.chain_climb import plan

    cp = ChainParams(n_modules=3)
    P = plan(cp, 0.25, 31, feedforward=False)
    assert np.allclose(P[0].Q[0], 0.0, atol=1e-9)
    # bar 1 (modules 1 and 2, both on the ground) after module 0's climb = at module 1's start
    assert np.allclose(P[0].Q[-1][1], P[1].Q[0][1], atol=1e-9)
    # bar 0 after module 1's climb (both on the top) = at module 2's start
    assert np.allclose(P[1].Q[-1][0], P[2].Q[0][0], atol=1e-9)
    r = cp.module.pulley_radius
    flip = P[0].U < 1.0
    assert np.all(P[0].V[flip, 0] < 0)  # the flip turns the body nose-down, the belt turns back with it
    assert isinstance(plan(cp, serial_h_geo(cp) + 0.01, 11, feedforward=False), str)
