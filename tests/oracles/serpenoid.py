"""Numpy oracle of lab/controllers/serpenoid.py's compiled PD loop."""

import numpy as np


def serpenoid(t, q, qd, alpha, omega, beta, gamma, kp, kd, effort):
    """τ_j = k_p(α sin(ωt + jβ) + γ − q_j) + k_d(αω cos(ωt + jβ) − q̇_j), clipped at ±effort."""
    ph = omega * t + np.arange(len(q)) * beta
    tau = kp * (alpha * np.sin(ph) + gamma - q) + kd * (alpha * omega * np.cos(ph) - qd)
    return np.clip(tau, -effort, effort)


def serpenoid_spd(t, q, qd, alpha, omega, beta, gamma, phi0, kp, kd, effort, M, h, form):
    """The serpenoid law in a form of lab/controllers/servo.py (form 0 implicit_damping, 1 stable_pd, 2
    implicit_pd): e = x(t) − q (form 0) or x(t + h) − q − h q̇, ė = ẋ(t + h) − q̇, Stable PD by numpy's
    dense solve, clipped at ±effort; the reference with its phase φ₀."""
    from oracles.servo import stable_pd

    j = np.arange(len(q))
    ph0, ph1 = omega * t + j * beta + phi0, omega * (t + h) + j * beta + phi0
    e = alpha * np.sin(ph0) + gamma - q if form == 0 else alpha * np.sin(ph1) + gamma - q - h * qd
    ed = alpha * omega * np.cos(ph1) - qd
    return np.clip(stable_pd(M, kp, kd, e, ed, h, form == 2), -effort, effort)
