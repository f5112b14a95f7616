"""The triangle and ring of Hu 2013 Fig 4 (lab/papers/hu2013_tracked/model/loops.py) against independent
formulations: the pin-jointed frame LP (bars as bodies) against the serial chain's LP with the bars
eliminated (lab/papers/hu2013_tracked/model/multi.py); the ring's corner torque against virtual work on
its four-bar; the loops' geometric limit against a brute-force search with finely sampled envelopes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lab.papers.hu2013_tracked.model.loops import (LoopParams, analyse_loop, frame_statics, loop_h_geo, loop_pose,
                                                   loop_statics, shape_torque)
from lab.papers.hu2013_tracked.model.multi import (ChainParams, chain_statics, depth_in_step, outline, serial_h_geo,
                                                   serial_pose)


@pytest.mark.parametrize("n,h,j,u", [(2, 0.22, 0, 0.5), (2, 0.25, 0, 1.5), (2, 0.25, 1, 2.5), (3, 0.22, 1, 1.2),
                                     (3, 0.25, 2, 0.3), (2, 0.22, 1, 3.0)])
def test_frame_lp_equals_the_chain_lp_on_the_serial_chain(n, h, j, u):
    """Two formulations of the same statics: chain_statics eliminates the massless bars, frame_statics keeps
    every bar as a body with its pins' forces and torques as unknowns. Same least load ratio."""
    cp = ChainParams(n_modules=n, mu_ground=0.6, mu_riser=0.6)
    pose = serial_pose(cp, h, j, u)
    a = chain_statics(cp, pose, h)
    bars = [(k, k + 1) for k in range(n - 1)]
    act = {(k, e) for k in range(n - 1) for e in ("front", "rear")}
    b = frame_statics(cp, pose.centres, pose.pitches, pose.level, h, u, bars, act, bar_mass=0.0, tail=n - 1)
    assert a.feasible == b.feasible
    assert b.ratio == pytest.approx(a.ratio, rel=1e-6, abs=1e-9)


def test_frame_lp_refuses_what_friction_cannot_hold():
    cp = ChainParams(n_modules=2, mu_ground=0.0, mu_riser=0.0)
    pose = serial_pose(cp, 0.22, 0, 1.5)
    st = frame_statics(cp, pose.centres, pose.pitches, pose.level, 0.22, 1.5, [(0, 1)], {(0, "front"), (0, "rear")},
                       tail=1)
    assert not st.feasible


@pytest.mark.parametrize("j,u", [(0, 0.0), (0, 1.6), (0, 3.0), (1, 1.0), (1, 2.4)])
def test_ring_corner_torque_is_the_four_bar_virtual_work(j, u):
    """Held at one corner, the ring's shear is determinate: the rear corner's pin torque must equal the
    virtual-work torque (2 m + 2 m_bar) g d sin β of the four-bar, whatever the contacts do."""
    lp = LoopParams("ring", one_corner=True)
    h = 0.22
    pose = loop_pose(lp, h, j, u)
    assert pose.ok
    st = loop_statics(lp, pose, h)
    C = pose.centres
    beta = math.atan2(C[0, 1] - C[1, 1], C[0, 0] - C[1, 0])
    assert st.feasible
    assert st.pin_torque[(1, "front")] == pytest.approx(shape_torque(lp, beta), rel=1e-6, abs=1e-6)


def test_triangle_truss_carries_its_apex():
    """The triangle's passive pin carries no torque, and the apex module's weight on the truss makes the
    bottom pair's motors work harder than the serial pair's at the same pose."""
    lp = LoopParams("triangle")
    pose = loop_pose(lp, 0.22, 0, 0.0)
    st = loop_statics(lp, pose, 0.22)
    assert st.feasible
    assert st.pin_torque[(2, "front")] == 0.0
    # the apex's weight loads the same motors: the serial pair without it needs less
    pair = ChainParams(n_modules=2)
    a = chain_statics(pair, serial_pose(pair, 0.22, 0, 0.0), 0.22)
    assert a.ratio < st.ratio


def _bf_upper_clear(lp: LoopParams, h: float, n_u: int = 61) -> bool:
    """Brute force: along both bottom climbs, every upper module's finely sampled envelope (60 points per
    pulley arc) stays out of the step."""
    for j in range(2):
        for u in np.linspace(0, 3, n_u):
            pose = loop_pose(lp, h, j, float(u))
            if not pose.ok and not pose.why.startswith("upper"):
                return False
            for k in range(2, lp.n_modules):
                if depth_in_step(outline(lp.chain.module, pose.centres[k], pose.pitches[k], n_arc=60), h).max() > 1e-9:
                    return False
    return True


def _bf_pair_reach(cp: ChainParams, h: float, dx: float = 5e-4) -> bool:
    """Brute force on the bottom pair (as the serial chain's test): the module behind anywhere flat on the
    ground clear of the step, the one ahead on the top with its envelope over it."""
    p = cp.module
    z0 = cp.z0
    xs = np.arange(-1.0, 1.0, dx)
    O = outline(p, (0.0, 0.0), 0.0, n_arc=60)
    ground_ok = [x for x in xs if x < 0 and depth_in_step(O + (x, z0), h).max() <= 1e-9]
    x_foot = max(ground_ok)
    reach_i = min(math.hypot(x, z0 - (h + z0)) for x in ground_ok)

    def on_top(x):
        P = O + (x, h + z0)
        low = P[:, 1] < h + 1e-6
        return depth_in_step(P, h).max() <= 1e-9 and bool(np.all(P[low, 0] >= 0))

    reach_ii = min(math.hypot(x - x_foot, h) for x in xs if x > 0 and on_top(x))
    return max(reach_i, reach_ii) <= cp.coupler_length


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["triangle", "ring"])
def test_loop_geometric_limit_matches_brute_force(kind):
    lp = LoopParams(kind)
    hg = loop_h_geo(lp)
    assert hg == pytest.approx(serial_h_geo(lp.pair))
    below, above = hg - 2e-3, hg + 2e-3
    assert _bf_pair_reach(lp.pair, below) and _bf_upper_clear(lp, below)
    assert not _bf_pair_reach(lp.pair, above)
    assert analyse_loop(lp, above, n_u=7).reason.startswith("geometry")


@pytest.mark.slow
def test_ring_needs_its_three_corners_and_the_triangle_climbs_within_ratings():
    """The limit analysis's verdicts at 0.22 m, μ = 0.8: the triangle within every rating with a positive
    margin; the ring held at one corner needs more than a connector's stall torque, by the four-bar's own
    virtual work; held at its three motored corners it is within the ratings."""
    tri = analyse_loop(LoopParams("triangle"), 0.22, n_u=13)
    assert tri.feasible and tri.peak_ratio < 1 and tri.min_margin > 0
    one = analyse_loop(LoopParams("ring", one_corner=True), 0.22, n_u=13)
    assert not one.feasible and one.reason.startswith("torque")
    lp = LoopParams("ring")
    beta_max = max(math.atan2(*(loop_pose(lp, 0.22, 0, 3.0).centres[0] - loop_pose(lp, 0.22, 0, 3.0).centres[1])[::-1]),
                   0.0)
    assert shape_torque(lp, beta_max) > lp.chain.connector_torque_max
    three = analyse_loop(lp, 0.22, n_u=13)
    assert three.feasible and three.peak_ratio < 1
