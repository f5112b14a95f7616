"""The numpy references of Zhang et al. 2018's non-inertial eel model terms (eqs. 22–36): the oracles
the compiled loop (:func:`lab.papers.zhang2018_eel.model.noninertial.terms_core`) is tested against.

Two numpy routes, each a function of a :class:`~lab.papers.zhang2018_eel.model.noninertial.NonInertialModel`:
:func:`reduced_terms` (the vectorised arrangement the compiled loop follows, with a complex outer
product for cos/sin(Φ_i − Φ_j)) and :func:`reduced_terms_reference` (the full eq. 33 matrices of
:func:`coefficients`, the paper's own route with the corrections listed in the model's docstring).
Imported from the tests as ``from oracles.eel_terms import …``; nothing under ``lab/`` uses them.
"""

from __future__ import annotations

import numpy as np


def drag_tn(ni, Phi, thetad, vt, vn):
    """(f_Dt, f_Dn): drag on every link in the t–n frame (eqs. 22–23, 25). The link velocities in the
    t–n frame are (eq. 16 with eq. 18 corrected, p_t and p_n cancel):
    V_t = l Kᵀ S_Φ θ̇ + e v_t, V_n = −l Kᵀ C_Φ θ̇ + e v_n."""
    P = ni.p
    l = P.l
    s, c = np.sin(Phi), np.cos(Phi)
    Vt = l * (ni.KT @ (s * thetad)) + vt
    Vn = -l * (ni.KT @ (c * thetad)) + vn
    wx = c * Vt + s * Vn  # link frame (eq. 23)
    wy = -s * Vt + c * Vn
    fx = -P.c_t * wx - P.c_t2 * np.abs(wx) * wx
    fy = -P.c_n * wy - P.c_n2 * np.abs(wy) * wy
    return c * fx - s * fy, s * fx + c * fy


def coefficients(ni, Phi):
    """(M_Φ, W_Φ, K_Dt, K_Dn, M_p, A1, A2) of eqs. 31 and 33 (corrected as in the module docstring)."""
    P = ni.p
    m, l, un = P.m, P.l, P.u_n
    n = ni.n
    s, c = np.sin(Phi), np.cos(Phi)
    K, KT, V, e = ni.K, ni.KT, ni.V, np.ones(n)
    S2, SC, C2 = s * s, s * c, c * c
    Mtot = np.array([[n * m + un * S2.sum(), -un * SC.sum()], [-un * SC.sum(), n * m + un * C2.sum()]])
    Mp = np.linalg.inv(Mtot)  # eq. 31
    (m11, m12), (m21, m22) = Mp
    SK = s[:, None] * K
    CK = c[:, None] * K
    A1 = SK * S2 + CK * SC  # S K S² + C K S C
    A2 = SK * SC + CK * C2  # S K S C + C K C²
    A1e = A1.sum(axis=1)
    A2e = A2.sum(axis=1)
    K1 = A1 + un * np.outer(A1e, m12 * SC - m11 * S2) - un * np.outer(A2e, m22 * SC - m21 * S2)
    K2 = A2 - un * np.outer(A1e, m11 * SC - m12 * C2) + un * np.outer(A2e, m21 * SC - m22 * C2)
    KTS = KT * s  # Kᵀ S_Φ
    KTC = KT * c
    sVs = s[:, None] * V * s
    cVc = c[:, None] * V * c
    sVc = s[:, None] * V * c
    cVs = c[:, None] * V * s
    M_Phi = np.diag(np.full(n, P.J)) + m * l * l * (sVs + cVc) + un * l * l * (K1 @ KTS + K2 @ KTC)
    W_Phi = m * l * l * (sVc - cVs) + un * l * l * (K1 @ KTC - K2 @ KTS)
    K_Dt = un * l * (np.outer(A1e, e) * m11 - np.outer(A2e, e) * m21) - l * SK
    K_Dn = un * l * (np.outer(A1e, e) * m12 - np.outer(A2e, e) * m22) + l * CK
    return M_Phi, W_Phi, K_Dt, K_Dn, Mp, A1, A2


def reduced_terms(ni, x):
    """The control-oriented form in q = [φ, θ0]: M q̈ + h = [u; 0] (eqs. 35–36), plus what eq. 30 needs.

    Same algebra as :func:`coefficients`, arranged for speed (the vectorised twin of the compiled
    ``terms_core``). With Q = S K S + C K C = K ∘ cos(Φ_i − Φ_j) and Z = C K S − S K C = −K ∘ sin(Φ_i − Φ_j):
    A1 Kᵀ S + A2 Kᵀ C = Q Qᵀ, A1 Kᵀ C − A2 Kᵀ S = Q Zᵀ, A1 e = Q s, A2 e = Q c, so with E = [s, −c]
    and P = Q E (n×2) the added-mass parts of eq. 33 are

        u_n l²(K1 Kᵀ S + K2 Kᵀ C) = u_n l² (Q Qᵀ − u_n P M_p Pᵀ),
        u_n l²(K1 Kᵀ C − K2 Kᵀ S) θ̇² = u_n l² (Q − u_n P M_p Eᵀ) Zᵀ θ̇²,
        K_Dt f_Dt + K_Dn f_Dn = u_n l P M_p [Σf_Dt; Σf_Dn] − l S K f_Dt + l C K f_Dn,

    and S V S + C V C = V ∘ cos(Φ_i − Φ_j), S V C − C V S = V ∘ sin(Φ_i − Φ_j).
    ``tests/papers/zhang2018_eel/test_eel_models.py`` checks this against :func:`reduced_terms_reference` and the compiled loop."""
    P_ = ni.p
    n = ni.n
    m, l, un = P_.m, P_.l, P_.u_n
    phi, th0, p, phid, thd0, v = ni.split(x)
    Phi = ni.Bm @ phi
    thetad = ni.Bm @ phid + thd0  # θ̇ = Φ̇ + e θ̇0
    fDt, fDn = drag_tn(ni, Phi, thetad, v[0], v[1])
    z = np.exp(1j * Phi)
    zz = z[:, None] * z.conj()  # e^{i(Φ_i − Φ_j)}
    cosd, sind = zz.real, zz.imag
    s, c = z.imag, z.real
    nm = n * m
    a11, a12, a22 = nm + un * (s @ s), -un * (s @ c), nm + un * (c @ c)
    det = a11 * a22 - a12 * a12
    Mp = np.array([[a22, -a12], [-a12, a11]]) / det  # eq. 31
    K, V = ni.K, ni.V
    Q = K * cosd
    E = np.column_stack((s, -c))
    PE = Q @ E
    PM = PE @ Mp
    th2 = thetad * thetad
    Zt_th2 = -(K * sind).T @ th2
    ml2, ul2 = m * l * l, un * l * l
    M_Phi = ml2 * (V * cosd) + ul2 * (Q @ Q.T - un * (PM @ PE.T))
    M_Phi[np.diag_indices(n)] += P_.J + P_.lambda1
    R = ml2 * ((V * sind) @ th2) + ul2 * (Q @ Zt_th2 - un * (PM @ (E.T @ Zt_th2))) \
        + un * l * (PM @ np.array([fDt.sum(), fDn.sum()])) - l * s * (K @ fDt) + l * c * (K @ fDn) \
        + P_.lambda2 * thetad + P_.lambda3 * thetad * np.abs(thetad)
    Wc = ni.Wc
    return Wc.T @ M_Phi @ Wc, Wc.T @ R, (Phi, thetad, fDt, fDn, Mp)


def reduced_terms_reference(ni, x):
    """:func:`reduced_terms` written with the full eq. 33 matrices (tests compare the two)."""
    P = ni.p
    n = ni.n
    phi, th0, p, phid, thd0, v = ni.split(x)
    Phi = ni.Bm @ phi
    thetad = ni.Bm @ phid + thd0
    fDt, fDn = drag_tn(ni, Phi, thetad, v[0], v[1])
    M_Phi, W_Phi, K_Dt, K_Dn, Mp, A1, A2 = coefficients(ni, Phi)
    R = W_Phi @ (thetad * thetad) + K_Dt @ fDt + K_Dn @ fDn + P.lambda2 * thetad \
        + P.lambda3 * thetad * np.abs(thetad)
    Wc = ni.Wc
    return Wc.T @ (M_Phi + P.lambda1 * np.eye(n)) @ Wc, Wc.T @ R


__all__ = ["coefficients", "drag_tn", "reduced_terms", "reduced_terms_reference"]
