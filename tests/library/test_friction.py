"""Force laws against closed forms on hand-made states (direction, sign, magnitude, frame)."""

import math

import numpy as np
import pytest
from conftest import make_state

from lab.forces import AnisotropicCoulomb, ViscousFriction

G = 9.81


def test_coulomb_along_and_across_axis_closed_form():
    law = AnisotropicCoulomb(mu_t=0.03, mu_n=0.3, slip_tol=1e-4, head_exempt=False)
    # link 0 heading +x moving forward; link 1 heading +y moving to its left (−x in world); link 2 at rest
    s = make_state(yaw=[0.0, math.pi / 2, 0.3], v_W=[[0.2, 0, 0], [-0.1, 0, 0], [0, 0, 0]])
    F = law(s, 0.0)
    m = 0.5
    np.testing.assert_allclose(F[0], [-0.03 * m * G, 0, 0], atol=1e-9)
    # link 1: tangent = +y, normal = ẑ × t = −x; it moves along +n, so friction is −μ_n m g n = +x
    np.testing.assert_allclose(F[1], [0.3 * m * G, 0, 0], atol=1e-9)
    np.testing.assert_allclose(F[2], 0.0, atol=1e-12)


def test_coulomb_is_anisotropic_and_opposes_velocity():
    law = AnisotropicCoulomb(mu_t=0.05, mu_n=0.5, slip_tol=1e-5, head_exempt=False)
    rng = np.random.default_rng(0)
    yaw = rng.uniform(-math.pi, math.pi, 20)
    v = np.c_[rng.normal(size=(20, 2)), np.zeros(20)]
    s = make_state(yaw=yaw, v_W=v)
    F = law(s, 0.0)
    P = np.einsum("ij,ij->i", F, v)
    assert (P < 0).all()  # dissipative for every link
    t = np.c_[np.cos(yaw), np.sin(yaw), np.zeros(20)]
    n = np.c_[-np.sin(yaw), np.cos(yaw), np.zeros(20)]
    f_t, f_n = np.einsum("ij,ij->i", F, t), np.einsum("ij,ij->i", F, n)
    v_t, v_n = np.einsum("ij,ij->i", v, t), np.einsum("ij,ij->i", v, n)
    np.testing.assert_allclose(f_t, -0.05 * 0.5 * G * np.sign(v_t), rtol=1e-6)
    np.testing.assert_allclose(f_n, -0.5 * 0.5 * G * np.sign(v_n), rtol=1e-6)
    assert np.allclose(F[:, 2], 0.0)  # horizontal: the ground frame ignores pitch/roll


def test_forward_backward_coefficients_and_head_exemption():
    law = AnisotropicCoulomb(mu_t=0.1, mu_n=0.3, mu_forward=0.02, mu_backward=0.2, slip_tol=1e-5, head_exempt=True)
    s = make_state(yaw=[0, 0, 0], v_W=[[0.1, 0, 0], [-0.1, 0, 0], [0.1, 0.1, 0]])
    F = law(s, 0.0)
    assert F[0, 0] == pytest.approx(-0.02 * 0.5 * G)
    assert F[1, 0] == pytest.approx(0.2 * 0.5 * G)
    assert np.all(F[2] == 0.0)  # the head (last link) has no wheel


def test_regularised_sign_is_tanh_with_slip_tolerance():
    law = AnisotropicCoulomb(mu_t=0.1, mu_n=0.3, slip_tol=0.01, head_exempt=False)
    v = 0.004
    s = make_state(yaw=[0.0, 0.0], v_W=[[v, 0, 0], [0, 0, 0]])
    assert law(s, 0.0)[0, 0] == pytest.approx(-0.1 * 0.5 * G * math.tanh(v / 0.01))


def test_contact_normal_load_uses_measured_force():
    law = AnisotropicCoulomb(mu_t=0.1, mu_n=0.3, slip_tol=1e-5, normal_load="contact", head_exempt=False)
    s = make_state(yaw=[0.0, 0.0], v_W=[[0.1, 0, 0], [0.1, 0, 0]], fn=np.array([2.0, 0.0]))
    F = law(s, 0.0)
    assert F[0, 0] == pytest.approx(-0.2)
    assert F[1, 0] == 0.0  # a lifted link has no friction


def test_viscous_closed_form():
    law = ViscousFriction(c_t=0.5, c_n=3.0)
    s = make_state(yaw=[math.pi / 4], v_W=[[1.0, 0.0, 0.0]])
    t = np.array([1, 1, 0]) / math.sqrt(2)
    n = np.array([-1, 1, 0]) / math.sqrt(2)
    expected = -0.5 * (1 / math.sqrt(2)) * t - 3.0 * (-1 / math.sqrt(2)) * n
    np.testing.assert_allclose(law(s, 0.0)[0], expected, atol=1e-12)
