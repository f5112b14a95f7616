"""The multi-module climbs' PI speed loops in the ``implicit_p`` form (lab.papers.hu2013_tracked.chain_climb.pi_torques):
the same continuous loop as the explicit one (first-order convergence as h → 0), stable where the explicit
damping is not, and a loaded joint's steady torque kept whole (the integral outside the prediction).
The engine-level convergence of the shipped steps is benchmarks/dt_convergence.py's (docs/benchmarks.md)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from lab.papers.hu2013_tracked.chain_climb import _PI, pi_torques

# a coupled 3-joint inertia (kg·m²): a connector-like, an arm-like and a drive-like joint sharing a body
M3 = np.array([[0.036, 0.010, 0.002],
               [0.010, 0.021, 0.001],
               [0.002, 0.001, 0.0014]])


def _torques(servo, h, errs=(0.3, -0.2, 0.5), integrals=(0.01, -0.02, 0.0)):
    loops = []
    for j, (kp, ki) in enumerate(((30.0, 300.0), (4.0, 20.0), (0.4, 8.0))):
        pi = _PI(kp, ki, 40.0)
        pi.i = integrals[j]
        loops.append((j, pi, errs[j]))
    return np.array(pi_torques(loops, SimpleNamespace(M=M3), h, servo, 3))


def test_implicit_p_converges_to_the_explicit_loop_at_first_order():
    """Same errors and integrals: the forms differ by k_p h q̈ = O(h); a decade of h takes a decade off."""
    d = [np.abs(_torques("implicit_p", h) - _torques("explicit", h)).max() for h in (1e-3, 1e-4, 1e-5, 1e-6)]
    assert d[0] > 1.0  # the forms do differ at the 1-ms step (h k_p/μ = 0.83 on the connector-like joint)
    for a, b in zip(d[1:], d[2:]):  # from 0.1 ms on, h k_p/μ ≤ 0.08: the asymptotic regime
        assert 8.0 < a / b < 12.0, d


def _spin(servo, h, mu, kp, steps=400):
    """A lone joint of inertia μ under a P speed loop towards rest from 1 rad/s, stepped by the engine's
    semi-implicit Euler; returns the speed after ``steps`` steps."""
    w = 1.0
    pi = _PI(kp, 0.0, 1e9)
    for _ in range(steps):
        tau = pi_torques([(0, pi, -w)], SimpleNamespace(M=np.array([[mu]])), h, servo, 1)[0]
        w += h * tau / mu
    return w


def test_implicit_p_is_stable_past_the_explicit_bound_and_exact_below_it():
    """The explicit damping k_p on μ diverges for h > 2μ/k_p (a connector loop, 30 N·m·s/rad on 0.036 kg·m²:
    2.4 ms); the implicit form decays monotonically at every step, as (1 − h k_p/(μ + h k_p))^n."""
    mu, kp = 0.036, 30.0
    h = 1.5 * 2 * mu / kp
    assert abs(_spin("explicit", h, mu, kp, 50)) > 1e3
    w = _spin("implicit_p", h, mu, kp, 50)
    assert 0.0 < w <= (mu / (mu + h * kp)) ** 50 * (1 + 1e-9)
    h = 0.1 * mu / kp  # far below the bound both follow the continuous e^(−k_p t/μ)
    t = 400 * h
    for servo in ("explicit", "implicit_p"):
        assert _spin(servo, h, mu, kp) == pytest.approx(math.exp(-kp * t / mu), rel=0.25)


def test_a_loaded_joint_keeps_its_integral_whole():
    """A joint held still against a load (zero speed error): the integral's torque is applied in full in
    both forms: the prediction sees only the proportional term, so no M/(M + h k_p) cut."""
    for h in (2.5e-4, 5e-4, 1e-3, 4e-3):
        t = _torques("implicit_p", h, errs=(0.0, 0.0, 0.0), integrals=(0.02, -0.05, 0.1))
        np.testing.assert_allclose(t, [300.0 * 0.02, 20.0 * -0.05, 8.0 * 0.1], rtol=1e-12)  # k_i i
