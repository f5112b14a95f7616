"""Numpy oracle of lab/forces/friction.py's compiled Coulomb loop."""

import numpy as np


def coulomb(R_WB, v_W, load, mu_fwd, mu_bwd, mu_n, slip_tol, head_exempt):
    """Anisotropic regularised Coulomb friction in the ground plane (Wang 2011, eq. 4)."""
    ax = R_WB[:, :2, 0]
    inv = 1.0 / np.maximum(np.hypot(ax[:, 0], ax[:, 1]), 1e-12)
    c, s = ax[:, 0] * inv, ax[:, 1] * inv
    vx, vy = v_W[:, 0], v_W[:, 1]
    v_t = vx * c + vy * s
    v_n = vy * c - vx * s
    mu_tan = mu_fwd if mu_fwd == mu_bwd else np.where(v_t >= 0.0, mu_fwd, mu_bwd)
    f_t = -mu_tan * load * np.tanh(v_t / slip_tol)
    f_n = -mu_n * load * np.tanh(v_n / slip_tol)
    F_W = np.zeros((len(c), 3))
    F_W[:, 0] = f_t * c - f_n * s
    F_W[:, 1] = f_t * s + f_n * c
    if head_exempt:
        F_W[-1] = 0.0
    return F_W
