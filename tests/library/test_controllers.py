"""Controllers on hand-made snapshots against the papers' formulas."""

import math

import numpy as np
import pytest
from conftest import make_state

from lab.controllers import PassiveCreeping, PassiveCreepingParams, Serpenoid, SerpenoidParams


def test_passive_creeping_eq14_eq15_by_hand():
    p = PassiveCreepingParams(E_ref=1.0, phi_t=0.2)
    c = PassiveCreeping(p)
    s = make_state(n=4, v_W=[[0.3, 0, 0]] * 4, q=[0.1, -0.2, 0.05], qd=[0.0, 0.0, 0.4], t=0.25)
    c.reset(s.model, 0.01)
    c.integral = 2.0  # pretend 2 J·s of accumulated energy error
    E = 0.5 * 4 * 0.5 * 0.09
    e = 1.0 - E
    integral = 2.0 + e * 0.01
    tau = c.act(s)
    # eq. 15 for body joints 0, 1: K_body ∫e (q_{j+1} − q_j)
    assert tau[0] == pytest.approx(0.04 * integral * (-0.2 - 0.1))
    assert tau[1] == pytest.approx(0.04 * integral * (0.05 + 0.2))
    # eq. 14 for the head joint
    I_n = s.model.I_B[-1][2, 2] + 0.5 * 0.08**2 / 4
    ph = 2 * 0.25 + math.pi / 2
    xd, xdd, xddd = 0.5 * math.sin(ph), 1.0 * math.cos(ph), -2.0 * math.sin(ph)
    expected = 10 * I_n * abs(0.1 * integral + e) * (xddd + 1.0 * (xdd - 0.4) + 1.0 * (xd - 0.05) + 0.2)
    assert tau[2] == pytest.approx(expected)


def test_passive_creeping_saturates_at_effort():
    c = PassiveCreeping(PassiveCreepingParams())
    s = make_state(n=3, q=[1.0, -1.0])
    c.reset(s.model, 0.01)
    c.integral = 1e6
    assert np.all(np.abs(c.act(s)) <= s.model.effort)


def test_serpenoid_reference_and_wave_direction():
    c = Serpenoid(SerpenoidParams(alpha=0.4, omega=1.0, beta=0.5, gamma=0.1, kp=2.0, kd=0.1, servo="explicit"))
    s = make_state(n=5, t=0.3)
    c.reset(s.model, 0.001)
    q_ref, qd_ref = c.reference(0.3)
    np.testing.assert_allclose(q_ref, 0.4 * np.sin(0.3 + 0.5 * np.arange(4)) + 0.1)
    np.testing.assert_allclose(c.act(s), np.clip(2.0 * q_ref + 0.1 * qd_ref, -1.5, 1.5))
    # β > 0: joint i+1 (nearer the head) leads joint i by β, so the wave runs head → tail
    t_peak = [(math.pi / 2 - 0.5 * i) % (2 * math.pi) for i in range(4)]
    assert t_peak[3] < t_peak[0]


def test_set_param_replaces_frozen_params():
    c = PassiveCreeping(PassiveCreepingParams())
    c.set_param("E_ref", 0.7)
    assert c.params.E_ref == 0.7 and "phi_t" in c.tunables()
