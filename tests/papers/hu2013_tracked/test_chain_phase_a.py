"""The serial pair's tail climbs from the riser's foot, as the plan's phase (a) has it (Hu 2013 §7's future work;
lab/papers/hu2013_tracked/chain_climb.py), and chain_climb's support margin (eq. 13 on the engine's contacts)
catches the tail that hangs on the bar and the riser instead.

Measured before the fix (two modules at 0.25 m, 0.5 ms, contact by contact): 0.2 s after the tail met the riser
the top module's pull through the free bar lifted it 6 mm off the ground, and at its climb's start the plan's
arm torque (the robust LP's zero-load vertex for the frictionless guide wheel) lifted its wheel: for 1.2 s the
only contacts were the top module's belt on the top and the tail's front pulley on the riser, the COM 1.75 cm
behind the riser's face. The engine test runs both behaviours to the tail's u = 0.2 (about 55 s of wall time
each at load 1): the old one must show the hang and the negative margin, the new one the tail standing on its
front pulley and its wheel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lab.papers.hu2013_tracked.model.multi import ChainParams, chain_statics, serial_pose, tail_arm

G = 9.81


def _passive_wheel_load(cp: ChainParams, pose) -> float:
    """The guide wheel's load with the arm's motor off: the arm's weight moment about its pivot over the wheel's
    lever (the arm trailing on its wheel, no torque)."""
    wheel, acom = tail_arm(cp, pose.centres[-1], pose.pitches[-1])
    piv = pose.centres[-1]
    return cp.module.m_arm * G * (piv[0] - acom[0]) / (piv[0] - wheel[0])


@pytest.mark.slow
def test_the_plans_arm_torque_never_lifts_the_tails_wheel():
    """Every pose of the serial pair's plan where the tail's arm reaches the ground: the statics fed forward
    keep the arm's torque ≥ 0 (tip down) and so the wheel's load at least the passive arm's; the robust LP
    without that bound leaves the frictionless wheel unloaded at the tail's flip start (τ_arm = −m_a g x_a,
    measured −2.116 N·m), which is what lifted the wheel in the engine."""
    cp = ChainParams(n_modules=2, coupler_length=0.36)
    h = 0.25
    lifted = 0
    for j in range(2):
        for u in np.linspace(0.0, 3.0, 13):
            pose = serial_pose(cp, h, j, float(u))
            if tail_arm(cp, pose.centres[-1], pose.pitches[-1]) is None:
                continue
            st = chain_statics(cp, pose, h, robust=True, arm_presses=True)
            if not st.feasible:
                continue
            assert st.arm_torque >= -1e-9, (j, u, st.arm_torque)
            assert st.wheel_load >= _passive_wheel_load(cp, pose) * (1 - 1e-6) - 1e-9, (j, u)
            old = chain_statics(cp, pose, h, robust=True)
            lifted += old.wheel_load < 1e-6
    assert lifted > 0  # the unbounded programme does leave the wheel unloaded somewhere: the fault is real
    # at the tail's flip start exactly the wheel-off vertex: the arm's weight moment held by its motor
    pose = serial_pose(cp, h, 1, 0.1)
    old = chain_statics(cp, pose, h, robust=True)
    wheel, acom = tail_arm(cp, pose.centres[-1], pose.pitches[-1])
    assert old.wheel_load < 1e-6
    assert old.arm_torque == pytest.approx(-cp.module.m_arm * G * (pose.centres[-1][0] - acom[0]), rel=1e-6)
    # and the controller's plan feeds the bounded statics forward
    from lab.papers.hu2013_tracked.chain_climb import plan

    assert all(np.all(pl.tau_arm >= -1e-9) for pl in plan(cp, h, 13))


def test_the_plans_arm_bound_leaves_the_limit_analysis_alone():
    """``arm_presses`` is the controller's choice of force distribution, not a new limit: the least motor load
    ratio of the statics (what the limit analysis and the chain map read) is the same with it at the tail's
    flip start."""
    cp = ChainParams(n_modules=2, coupler_length=0.36)
    pose = serial_pose(cp, 0.25, 1, 0.1)
    a = chain_statics(cp, pose, 0.25)
    b = chain_statics(cp, pose, 0.25, arm_presses=True)
    assert a.feasible and b.feasible
    assert b.ratio == pytest.approx(a.ratio, rel=1e-6)


def _old_behaviour(monkeypatch):
    """The controller before the fix: the top modules' belts pull in TRANSFER and the plan's arm torque is the
    unbounded LP's."""
    import lab.papers.hu2013_tracked.chain_climb as cc

    monkeypatch.setattr(cc.ChainClimb, "_coasting", lambda self: np.zeros(self.params.n_modules, bool))
    statics = cc.chain_statics
    monkeypatch.setattr(cc, "chain_statics", lambda *a, arm_presses=False, **k: statics(*a, **k))


def _tail_flip_start(duration: float):
    """Run tracked_serial_climb (0.5 ms, as shipped) for ``duration`` s and sample every 20 ms, while the tail
    climbs with u < 0.2: its front pulley's and guide wheel's ground load (N) and chain_climb's margin (m)."""
    from lab.core import scenario as scn
    from lab.core.observers import Observer
    from lab.core.runner import Simulation
    from lab.papers.hu2013_tracked.chain_climb import ChainPhase, contact_margin

    data = scn.read_toml(scn.resolve_path("tracked_serial_climb"))
    sc = scn.from_dict(scn.apply_overrides(data, [f"sim.duration={duration}"]), where="test")
    every = int(round(0.02 / sc.sim.dt))

    class Tail(Observer):
        rows: list = []

        def on_setup(self, run):
            self.ctrl = run.controller
            L = run.world.model.link_names
            self.front = L.index("m1_belt_pulley_F") + 0  # the snapshot's link index (0 = base)
            self.wheel = L.index("m1_guide")
            self.tail = {L.index(n) for n in L if n.startswith("m1_belt")}

        def on_step(self, k, pre, tau, parts, post):
            c = self.ctrl
            if k % every or c.phase != ChainPhase.CLIMB or c.j != 1 or c.u >= 0.2:
                return None
            cs = post.contacts
            ground = cs[(cs[:, 7] > 0.9) & (np.abs(cs[:, 4]) < 1e-3)]  # normal up, on the ground's plane
            on = lambda links: float(ground[np.isin(ground[:, 0].astype(int), list(links)), 8].sum())
            self.rows.append((post.t, on(self.tail), on({self.wheel}), contact_margin(post)[0]))
            return None

    ob = Tail()
    ob.rows = []
    sim = Simulation(sc, observers=[ob])
    try:
        sim.run()
    finally:
        sim.close()
    return np.array(ob.rows)


@pytest.mark.slow
@pytest.mark.parametrize("behaviour", ["fixed", "old"])
def test_the_tail_stands_at_the_risers_foot_and_the_margin_catches_it_hanging(behaviour, monkeypatch):
    if behaviour == "old":
        _old_behaviour(monkeypatch)
    rows = _tail_flip_start(33.0)  # the tail's climb starts at ~30.5 s; u = 0.2 about 2 s later
    assert len(rows) > 50, "the tail's climb did not start by 33 s"
    t, belt_N, wheel_N, margin = rows.T
    weight_tail = 6.2 * G
    if behaviour == "fixed":
        # the plan's phase (a): the tail pivots on its front pulley at the riser's foot (27 N on the ground in
        # the plan's statics; measured 0–16 N rising with u, the belt's stall integral driving its face down the
        # riser at first: chain_climb's module doc) and trails its wheel (7.6 N; measured 7.1–7.8 N)
        assert np.mean(belt_N > 0) > 0.9 and np.all(belt_N[-10:] > 0.1 * weight_tail), belt_N
        assert np.all(wheel_N > 0.5 * _passive_wheel_load_at_rest()), wheel_N.min()
        assert np.nanmin(margin) > 0.05  # measured +9.6 cm (the plan's +9.8)
    else:
        # what chain_climb failed on: the tail off the ground (its belt and wheel unloaded) and the COM behind
        # the hull, which then ends at the riser's face (measured −1.75 cm)
        # (for its first 0.1 s the lifted wheel's contact is still reported, unloaded, and counts: eq. 13 is
        # geometric)
        hang = (belt_N < 1e-6) & (wheel_N < 1e-6)
        assert np.sum(hang & (margin < 0)) > 20
        assert np.nanmin(margin) < -0.01


def _passive_wheel_load_at_rest() -> float:
    cp = ChainParams(n_modules=2, coupler_length=0.36)
    return _passive_wheel_load(cp, serial_pose(cp, 0.25, 1, 0.0))
