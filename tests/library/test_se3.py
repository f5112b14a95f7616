"""The generic POE chain (lab.analysis.se3) against the textbook closed forms of two planar arms:
the two-link revolute arm and the cart with a pendulum (Murray, Li & Sastry 1994, §4.3 examples)."""

import math

import numpy as np
import pytest

from lab.analysis.se3 import Link, PoeChain, ScrewJoint, twist_prismatic, twist_revolute

M1, M2, L1, LC1, LC2, I1, I2, G = 1.3, 0.7, 0.5, 0.2, 0.3, 0.04, 0.02, 9.81
G_S = np.array([0.0, -G, 0.0])  # gravity along −y: the arms move in the x–y plane about z


def _pose(p) -> np.ndarray:
    g = np.eye(4)
    g[:3, 3] = p
    return g


def two_link() -> PoeChain:
    j1 = ScrewJoint(twist_revolute((0, 0, 1), (0, 0, 0)))
    j2 = ScrewJoint(twist_revolute((0, 0, 1), (L1, 0, 0)))
    # the x and y moments must not enter a planar motion about z: give them odd values
    l1 = Link("l1", 1, _pose((LC1, 0, 0)), M1, np.diag([0.3, 0.1, I1]))
    l2 = Link("l2", 2, _pose((L1 + LC2, 0, 0)), M2, np.diag([0.2, 0.5, I2]))
    return PoeChain((j1, j2), (l1, l2))


@pytest.mark.parametrize("q, qd", [((0.3, -0.8), (1.1, -0.4)), ((-2.0, 2.5), (-0.7, 1.9)), ((0.0, 0.0), (0.0, 0.0))])
def test_two_link_arm_matches_its_closed_form(q, qd):
    ch = two_link()
    q, qd = np.array(q), np.array(qd)
    c1, c2, c12, s2 = math.cos(q[0]), math.cos(q[1]), math.cos(q[0] + q[1]), math.sin(q[1])
    M_ref = np.array([[M1 * LC1**2 + I1 + M2 * (L1**2 + LC2**2 + 2 * L1 * LC2 * c2) + I2, M2 * (LC2**2 + L1 * LC2 * c2) + I2],
                      [M2 * (LC2**2 + L1 * LC2 * c2) + I2, M2 * LC2**2 + I2]])
    h = M2 * L1 * LC2 * s2
    Cqd_ref = np.array([-h * (2 * qd[0] * qd[1] + qd[1] ** 2), h * qd[0] ** 2])
    N_ref = np.array([(M1 * LC1 + M2 * L1) * G * math.cos(q[0]) + M2 * LC2 * G * c12, M2 * LC2 * G * c12])
    M, Cqd, N = ch.dynamics(q, qd, G_S)
    np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ch.mass_matrix(q), M_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(Cqd, Cqd_ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(N, N_ref, rtol=0, atol=1e-13)
    # forward kinematics: the second link's COM by elementary geometry, and the chain's COM
    p2 = np.array([L1 * math.cos(q[0]) + LC2 * c12, L1 * math.sin(q[0]) + LC2 * math.sin(q[0] + q[1]), 0.0])
    np.testing.assert_allclose(ch.poses(q)[1][:3, 3], p2, atol=1e-15)
    p1 = LC1 * np.array([math.cos(q[0]), math.sin(q[0]), 0.0])
    np.testing.assert_allclose(ch.com(q), (M1 * p1 + M2 * p2) / (M1 + M2), atol=1e-15)


def test_cart_pendulum_prismatic_joint_matches_its_closed_form():
    """A cart on x (prismatic) carrying a pendulum about z: M = [[m_c + m_p, m_p l c], [m_p l c, m_p l² + I]],
    C q̇ = (−m_p l s θ̇², 0), N = (0, m_p g l s) with θ measured from hanging straight down."""
    mc, mp, l, I = 2.0, 0.4, 0.35, 0.01
    jx = ScrewJoint(twist_prismatic((1, 0, 0)))
    jt = ScrewJoint(twist_revolute((0, 0, 1), (0, 0, 0)))
    cart = Link("cart", 1, np.eye(4), mc, np.diag([0.1, 0.1, 0.1]))
    pend = Link("pend", 2, _pose((0, -l, 0)), mp, np.diag([0.0, 0.0, I]))
    ch = PoeChain((jx, jt), (cart, pend))
    q, qd = np.array([0.4, 0.9]), np.array([-0.3, 1.7])
    c, s = math.cos(q[1]), math.sin(q[1])
    M, Cqd, N = ch.dynamics(q, qd, G_S)
    np.testing.assert_allclose(M, [[mc + mp, mp * l * c], [mp * l * c, mp * l**2 + I]], atol=1e-14)
    np.testing.assert_allclose(Cqd, [-mp * l * s * qd[1] ** 2, 0.0], atol=1e-14)
    np.testing.assert_allclose(N, [0.0, mp * G * l * s], atol=1e-14)
