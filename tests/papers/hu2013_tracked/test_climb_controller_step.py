"""The climb controller's per-step path (lab/papers/hu2013_tracked/controllers.py) against the laws it
steps: the implicit speed loops' prediction is the Stable PD solve (Tan 2011, eq. 7) with the base free,
solved here independently with numpy; the speed commands follow the parameters the GUI changes."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.core.world import World
from lab.papers.hu2013_tracked.controllers import TrackedClimb


@pytest.fixture(scope="module")
def model():
    sc = scn.load("tracked_step_climb")
    w = World(dt=0.002, arena=sc.arena)
    try:
        w.load_spec(sc.robot, [0, 0, sc.robot.rest_height], 0.0)
        return sc, w.model
    finally:
        w.close()


def _reference_loops(ctl, M, arm_err, drive_err, dt, servo, i_arm, i_drive):
    """The loops' torques from the continuous law at the predicted state, the prediction solved with
    numpy: (M + h K) q̈ = u on the joint rows, the base's six rows free and unforced; K = k_p
    (+ h k_i for implicit_pd); u = k_p err (implicit_p) or k_p err + k_i i⁺ (the others)."""
    N, n = M.shape[0], ctl.model.n_joints
    nb = N - n
    A, b = M.copy(), np.zeros(N)
    loops = [(ctl.j_drive, ctl.drive_pi, drive_err, i_drive)]
    if arm_err is not None:
        loops.append((ctl.j_arm, ctl.arm_pi, arm_err, i_arm))
    for j, pi, err, i in loops:
        i_next = min(max(i + err * dt, -pi.limit / pi.ki), pi.limit / pi.ki)
        A[nb + j, nb + j] += dt * (pi.kp + (dt * pi.ki if servo == "implicit_pd" else 0.0))
        b[nb + j] = pi.kp * err if servo == "implicit_p" else pi.kp * err + pi.ki * i_next
    qdd = np.linalg.solve(A, b)[nb:]
    out = {}
    for j, pi, err, i in loops:
        i_next = min(max(i + err * dt, -pi.limit / pi.ki), pi.limit / pi.ki)
        h_qdd = dt * qdd[j]
        u = pi.kp * (err - h_qdd) + pi.ki * (i_next - dt * h_qdd if servo == "implicit_pd" else i_next)
        out[j] = min(max(u, -pi.limit), pi.limit)
    return out.get(ctl.j_arm, 0.0), out[ctl.j_drive]


@pytest.mark.parametrize("servo", ["implicit_p", "implicit_pd", "implicit_damping", "stable_pd"])
def test_speed_loops_are_the_stable_pd_solve_with_the_arm_on_and_off(model, servo):
    """Over a sequence that switches the arm's loop on and off (advance → flip → drive-on), every step's
    torques are the law's at the numpy-solved prediction: nothing of an earlier step (the arm's gain or
    right-hand side kept in the solver's buffers) leaks into a step on which the arm's loop is off."""
    from dataclasses import replace

    sc, m = model
    ctl = TrackedClimb(replace(sc.controller, servo=servo))
    dt = 0.002
    ctl.reset(m, dt)
    rng = np.random.default_rng(3)
    N = 6 + m.n_joints
    for arm_on in (False, True, True, False, True, False, False):
        X = rng.normal(size=(N, N))
        M = X @ X.T * 0.05 + np.eye(N) * 0.02  # symmetric positive definite, coupled base and joints
        arm_err = float(rng.uniform(-0.3, 0.3)) if arm_on else None
        drive_err = float(rng.uniform(-2, 2))
        i_arm, i_drive = ctl.arm_pi.i, ctl.drive_pi.i
        want = _reference_loops(ctl, M, arm_err, drive_err, dt, servo, i_arm, i_drive)
        got = ctl._speed_loops(SimpleNamespace(M=M), arm_err, drive_err)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_speed_commands_follow_the_parameters_the_gui_sets(model):
    """The arm's command and the climb's track speed (eq. 12: v_d = θ̇ r / i2) are worked out when the
    parameters are set; the GUI's set_param changes them mid-run, and the next step must use the new ones."""
    sc, m = model
    ctl = TrackedClimb(sc.controller)
    ctl.reset(m, 0.002)
    p = ctl.params
    assert ctl.arm_speed_cmd() == pytest.approx(0.5)
    ctl.set_param("arm_speed", 0.3)
    assert ctl.arm_speed_cmd() == pytest.approx(0.3)
    assert ctl.climb_track_speed() == pytest.approx(0.3 * p.pulley_radius / p.i2)
    ctl.set_param("advance_speed", 0.02)  # below the motor's track speed (0.035 m/s)
    assert ctl._v_advance == pytest.approx(0.02)
    assert math.isclose(ctl.climb_track_speed(), 0.3 * p.pulley_radius / p.i2)
