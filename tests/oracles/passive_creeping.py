"""Numpy oracle of lab/controllers/passive_creeping.py's compiled torque loop."""

import numpy as np


def coupling_torques(q, gain, tau_head, effort):
    """Body joints τ_j = gain·(q_{j+1} − q_j) (Wang 2011, eq. 15), the head joint's torque given; all
    clipped at ±effort."""
    tau = np.empty_like(q)
    tau[-1] = tau_head
    tau[:-1] = gain * (q[1:] - q[:-1])
    return np.clip(tau, -effort, effort)
