"""The one place a kernel is compiled with the lab's numba settings, and the step ledger's arithmetic.

Why compiled loops: on a 10-link robot the lab's own per-step cost was the *count* of small-array
numpy calls (~0.5–1 µs each, ~80 of them a step), not arithmetic. So each hot law is written once, as
a plain loop over the links that :func:`compiled` turns into one machine-code call, and that loop sits
in the law's own module (the Coulomb law in :mod:`lab.forces.friction`, the cleats in
:mod:`lab.forces.cleats`, the hydrodynamics in :mod:`lab.forces.hydrodynamics`, the gaits and the climb's
contact summary in their controllers). The vectorised numpy formulas the loops are checked against live
in ``tests/oracles/`` (the tests compare the two on random states).

Compiled with ``cache=True`` and without ``fastmath`` (IEEE semantics, so a loop differs from its
numpy oracle only by the rounding of a different evaluation order). First use compiles each loop
(~3 s for all of them on this machine); later processes load them from numba's cache.
Debugging without the compiler: ``NUMBA_DISABLE_JIT=1`` runs every loop as the plain Python it is
written in (same results, slower; breakpoints and prints work inside).

What stays here is the step's own arithmetic, shared by every run whatever its laws: the contact
snapshot's rows (``World._read_contacts``; their columns are named in :mod:`lab.contacts`), the
kinetic energies of the snapshot (:meth:`lab.state.RobotState.energies`) and the energy ledger's
powers (:mod:`lab.recorder`). Conventions as in :mod:`lab.state`: arrays per link (0 = tail), world frame W,
R_WB body → world.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .contacts import N_COLS, Col, Raw

COMPILED: bool = not numba.config.DISABLE_JIT
"""Whether the loops run as machine code in this process (False under ``NUMBA_DISABLE_JIT=1``)."""
BACKEND = "numba" if COMPILED else "plain Python (NUMBA_DISABLE_JIT=1)"

_LOOPS: dict = {}


def compiled(loops):
    """``loops`` (a law's plain-loop kernel, in the law's own module) compiled with the lab's numba
    settings: ``cache=True``, no fastmath, ``nogil``. Compiled lazily on first call, once per process
    (the same function gives the same dispatcher); under ``NUMBA_DISABLE_JIT=1`` the function itself."""
    if loops not in _LOOPS:
        _LOOPS[loops] = numba.njit(cache=True, fastmath=False, nogil=True)(loops)
    return _LOOPS[loops]


@compiled
def energies(v_W, w_W, R_WB, mass, I_diag):
    """(E_T, E_R): ½ Σ m|v|² and ½ Σ ω_Bᵀ I_B ω_B with ω_B = R_WBᵀ ω_W (Wang 2011, eqs. 8–10)."""
    e_t = 0.0
    e_r = 0.0
    for i in range(v_W.shape[0]):
        e_t += mass[i] * (v_W[i, 0] * v_W[i, 0] + v_W[i, 1] * v_W[i, 1] + v_W[i, 2] * v_W[i, 2])
        for a in range(3):
            wb = R_WB[i, 0, a] * w_W[i, 0] + R_WB[i, 1, a] * w_W[i, 1] + R_WB[i, 2, a] * w_W[i, 2]
            e_r += I_diag[i, a] * wb * wb
    return 0.5 * e_t, 0.5 * e_r


@compiled
def power2(F, v_pre, v_post):
    """Σ F·(v + v₊): twice a force set's trapezoidal power over one step (lab.recorder)."""
    p = 0.0
    for i in range(F.shape[0]):
        for a in range(3):
            p += F[i, a] * (v_pre[i, a] + v_post[i, a])
    return p


@compiled
def joint_power2(tau, qd_pre, qd_post):
    """τ·(q̇ + q̇₊): twice the joints' trapezoidal power over one step."""
    p = 0.0
    for j in range(tau.shape[0]):
        p += tau[j] * (qd_pre[j] + qd_post[j])
    return p


@compiled
def contact_rows(raw):
    """The World's contact snapshot rows (:class:`lab.contacts.Col`, k × 12) from PyBullet's points
    packed as :class:`lab.contacts.Raw` (k × 17): the link counted from 0 = base, the friction summed
    into one force on the robot, f1 dir1 + f2 dir2 signed by dir1 against btPlaneSpace1 of the reported
    normal (lab.world.plane_space_dot, the scalar rule; why: World._read_contacts)."""
    k = raw.shape[0]
    out = np.empty((k, N_COLS))
    for i in range(k):
        nx, ny, nz = raw[i, Raw.NX], raw[i, Raw.NY], raw[i, Raw.NZ]
        if abs(nz) > 0.7071067811865476:
            dot = (-nz * raw[i, Raw.D1Y] + ny * raw[i, Raw.D1Z]) / math.sqrt(ny * ny + nz * nz)
        else:
            dot = (-ny * raw[i, Raw.D1X] + nx * raw[i, Raw.D1Y]) / math.sqrt(nx * nx + ny * ny)
        sgn = 1.0 if dot >= 0.0 else -1.0
        out[i, Col.LINK] = raw[i, Raw.LINK] + 1.0
        for a in range(Col.BODY, Col.FN + 1):  # body, point, normal, normal force: as PyBullet's
            out[i, a] = raw[i, a]
        for a in range(3):
            out[i, Col.FX + a] = sgn * (raw[i, Raw.F1] * raw[i, Raw.D1X + a] + raw[i, Raw.F2] * raw[i, Raw.D2X + a])
    return out


@compiled
def contact_power2(contacts, p_pre, v_pre, w_pre, v_post, w_post):
    """Σ F·(v + v₊) over contact rows (:class:`lab.contacts.Col`): twice the trapezoidal power of the
    contact forces on the robot, v at each contact point from its link's COM velocity and spin, the
    lever arm from the pre-step COM (lab.recorder.contact_power)."""
    p = 0.0
    for i in range(contacts.shape[0]):
        L = int(contacts[i, Col.LINK])
        rx = contacts[i, Col.PX] - p_pre[L, 0]
        ry = contacts[i, Col.PY] - p_pre[L, 1]
        rz = contacts[i, Col.PZ] - p_pre[L, 2]
        wx = w_pre[L, 0] + w_post[L, 0]
        wy = w_pre[L, 1] + w_post[L, 1]
        wz = w_pre[L, 2] + w_post[L, 2]
        vx = v_pre[L, 0] + v_post[L, 0] + wy * rz - wz * ry
        vy = v_pre[L, 1] + v_post[L, 1] + wz * rx - wx * rz
        vz = v_pre[L, 2] + v_post[L, 2] + wx * ry - wy * rx
        fn = contacts[i, Col.FN]
        p += ((contacts[i, Col.NX] * fn + contacts[i, Col.FX]) * vx
              + (contacts[i, Col.NY] * fn + contacts[i, Col.FY]) * vy
              + (contacts[i, Col.NZ] * fn + contacts[i, Col.FZ]) * vz)
    return p


__all__ = ["BACKEND", "COMPILED", "compiled", "contact_power2", "contact_rows", "energies", "joint_power2", "power2"]
