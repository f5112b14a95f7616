"""Numpy oracle of lab/controllers/servo.py's compiled Stable PD (Tan, Liu and Turk 2011, eqs. 6–7)."""

import numpy as np


def stable_pd(M, kp, kd, e_next, ed, h, implicit=False):
    """τ = pd − h K q̈ with (M + h K) q̈ = pd on the joint rows (K = K_d, or K_d + h K_p when implicit), the
    base rows (the first len(M) − J) free with no force: numpy's dense solve."""
    n = len(e_next)
    nb = M.shape[0] - n
    kp = np.broadcast_to(np.asarray(kp, float), (n,))
    kd = np.broadcast_to(np.asarray(kd, float), (n,))
    pd = kp * e_next + kd * ed
    g = h * kd + (h * h * kp if implicit else 0.0)
    A = M + np.diag(np.concatenate([np.zeros(nb), g]))
    qdd = np.linalg.solve(A, np.concatenate([np.zeros(nb), pd]))[nb:]
    return pd - g * qdd
