"""Numpy oracle of lab/controllers/serpenoid.py's compiled PD loop."""

import numpy as np


def serpenoid(t, q, qd, alpha, omega, beta, gamma, kp, kd, effort):
    """τ_j = k_p(α sin(ωt + jβ) + γ − q_j) + k_d(αω cos(ωt + jβ) − q̇_j), clipped at ±effort."""
    ph = omega * t + np.arange(len(q)) * beta
    tau = kp * (alpha * np.sin(ph) + gamma - q) + kd * (alpha * omega * np.cos(ph) - qd)
    return np.clip(tau, -effort, effort)
