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
snapshot's rows (``World._read_contacts``; their columns are named in :mod:`lab.core.contacts`), the
kinetic energies of the snapshot (:meth:`lab.core.state.RobotState.energies`) and the energy ledger's
powers (:mod:`lab.core.recorder`). Conventions as in :mod:`lab.core.state`: arrays per link (0 = tail), world frame W,
R_WB body → world.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from lab.core.contacts import N_COLS, Col, Raw

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
    """Σ F·(v + v₊): twice a force set's trapezoidal power over one step (lab.core.recorder)."""
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
def ledger_powers(tau, qd_pre, qd_post, F, v_pre, v_post):
    """(½ τ·(q̇ + q̇₊), ½ F·(v + v₊)): the joints' and one force array's trapezoidal powers over one step,
    :func:`joint_power2` and :func:`power2` in one dispatch (the recorder's per-step call when one
    law pushes the robot: lab.recorder.Recorder.on_step)."""
    p_in = 0.5 * joint_power2(tau, qd_pre, qd_post) if tau.shape[0] else 0.0
    return p_in, 0.5 * power2(F, v_pre, v_post)


@compiled
def abs_power2(tau, qd_pre, qd_post):
    """Σ_j |τ_j (q̇_j + q̇₊_j)|: twice the motors' absolute trapezoidal power over one step (the environments'
    ledger, lab.envs.env.Ledger), summed as numpy's ``np.abs(tau * (qd_pre + qd_post)).sum()`` sums it (its
    pairwise sum: one accumulator below 8 terms, eight interleaved then combined pairwise up to 128), so the
    same value to the bit, without four numpy calls."""
    n = tau.shape[0]
    if n < 8:
        s = 0.0
        for j in range(n):
            s += abs(tau[j] * (qd_pre[j] + qd_post[j]))
        return s
    if n > 128:  # numpy recurses on halves beyond its block: not needed by any robot here
        h = (n // 2) - (n // 2) % 8
        return abs_power2(tau[:h], qd_pre[:h], qd_post[:h]) + abs_power2(tau[h:], qd_pre[h:], qd_post[h:])
    r = np.empty(8)
    for a in range(8):
        r[a] = abs(tau[a] * (qd_pre[a] + qd_post[a]))
    m = n - n % 8
    for j in range(8, m, 8):
        for a in range(8):
            r[a] += abs(tau[j + a] * (qd_pre[j + a] + qd_post[j + a]))
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for j in range(m, n):
        s += abs(tau[j] * (qd_pre[j] + qd_post[j]))
    return s


PAIRWISE_BLOCK = 128  # numpy sums a contiguous float64 run of up to this many terms in one pairwise block


@compiled
def _pairwise_block(x, n):
    """Σ x[:n], n ≤ :data:`PAIRWISE_BLOCK`, summed as numpy sums a contiguous float64 run (its pairwise sum:
    one accumulator below 8 terms, else eight interleaved then combined pairwise), so the same value to the
    bit. (Longer runs numpy splits in halves recursively; a recursive kernel does not load from numba's
    cache, so those stay with numpy: :meth:`lab.core.recorder.Recorder.on_step`.)"""
    if n < 8:
        s = 0.0
        for j in range(n):
            s += x[j]
        return s
    r0, r1, r2, r3, r4, r5, r6, r7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    m = n - n % 8
    for j in range(8, m, 8):
        r0 += x[j]
        r1 += x[j + 1]
        r2 += x[j + 2]
        r3 += x[j + 3]
        r4 += x[j + 4]
        r5 += x[j + 5]
        r6 += x[j + 6]
        r7 += x[j + 7]
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for j in range(m, n):
        s += x[j]
    return s


@compiled
def metered_powers(tau, qd_pre, qd_post, mg_W, p_pre, v_pre, w_pre, v_post, w_post, contacts):
    """(½ τ·(q̇ + q̇₊), ½ Σ m g·(v + v₊), ½ Σ F_c·(v_c + v_c₊)): the joints', gravity's and the engine contacts'
    trapezoidal powers over one step, in one dispatch (the metered ledger's step: lab.core.recorder.Recorder.on_step
    on engine contacts). The same values to the bit as :func:`joint_power2`, ``np.sum(mg_W * (v_pre + v_post))``
    (numpy's pairwise order, :func:`_pairwise_block`: a robot of at most 42 links) and :func:`contact_power2`,
    each halved."""
    p_in = 0.5 * joint_power2(tau, qd_pre, qd_post) if tau.shape[0] else 0.0
    n = mg_W.shape[0]
    e = np.empty(3 * n)
    for i in range(n):
        for a in range(3):
            e[3 * i + a] = mg_W[i, a] * (v_pre[i, a] + v_post[i, a])
    p_g = 0.5 * _pairwise_block(e, 3 * n)
    p_c = 0.5 * contact_power2(contacts, p_pre, v_pre, w_pre, v_post, w_post) if contacts.shape[0] else 0.0
    return p_in, p_g, p_c


def contact_rows(raw):
    """The World's contact snapshot rows (:class:`lab.core.contacts.Col`, k × 12) from PyBullet's points
    packed as :class:`lab.core.contacts.Raw` (k × 17): the link counted from 0 = base, the friction summed
    into one force on the robot, f1 dir1 + f2 dir2 signed by dir1 against btPlaneSpace1 of the reported
    normal (lab.core.world.plane_space_dot, the scalar rule; why: World._read_contacts). The array is made
    here and filled by one compiled loop (:func:`_contact_rows_into`): an array handed back from compiled
    code is boxed through an unpickled dtype, which costs more than the loop."""
    out = np.empty((raw.shape[0], N_COLS))
    _contact_rows_into(raw, out)
    return out


@compiled
def _contact_rows_into(raw, out):
    """:func:`contact_rows` into ``out`` (k × 12)."""
    k = raw.shape[0]
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


@compiled
def contact_power2(contacts, p_pre, v_pre, w_pre, v_post, w_post):
    """Σ F·(v + v₊) over contact rows (:class:`lab.core.contacts.Col`): twice the trapezoidal power of the
    contact forces on the robot, v at each contact point from its link's COM velocity and spin, the
    lever arm from the pre-step COM (lab.core.recorder.contact_power)."""
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


REVOLUTE, PRISMATIC, FIXED = 0, 1, 4  # PyBullet's joint type numbers (JOINT_REVOLUTE, _PRISMATIC, _FIXED)


@compiled
def forward_kinematics(flat, R, tree, frames, qj):
    """The snapshot's link rows from the base row and the joint states: one pass down the URDF tree.

    ``flat`` (N, 13) rows [p_W, quat_W (xyzw), v_W, w_W] of each link's COM frame: row 0 (the base, as
    the engine reports it) is read, rows 1… written; ``R`` (N, 3, 3) R_WB of each COM frame, all rows
    written (row 0 from the base quaternion). ``qj`` (J, 2) the movable joints' [angle (or travel), rate]
    as getJointStates gives them. Per link k ≥ 1 (engine link k − 1), ``tree[k]`` = [parent row, joint
    type (REVOLUTE, PRISMATIC or FIXED), row of ``qj`` (−1: fixed)] and ``frames[k]`` = [axis_L (3): the
    joint axis in the link frame, e_P (3): the pivot from the parent's COM in the parent's COM frame,
    d_L (3): the COM from the pivot in the link frame, R_PJ (9, row-major): the joint frame's rotation in
    the parent's COM frame] (packed so that a call passes five arrays: the dispatch costs per argument).
    The link COM frame is the link frame (the World uses this pass only when every inertial frame is
    unrotated). Rigid-body kinematics:

        R_k = R_p R_PJ Rot(a, q),  p_k = p_p + R_p e_P + R_k d_L (+ a_W q, prismatic),
        ω_k = ω_p + a_W q̇ (revolute),  v_k = v_p + ω_p × (p_k − p_p) + a_W q̇ × (p_k − pivot) (revolute)
        or + a_W q̇ (prismatic),

    what Bullet's btMultiBody::forwardKinematics and getLinkStates(computeForwardKinematics=1,
    computeLinkVelocity=1) compute (tests/core/test_world.py compares them to 1e-12 on every robot); each
    quaternion is taken from its matrix as btMatrix3x3::getRotation does, so its sign is Bullet's.
    """
    x, y, z, w = flat[0, 3], flat[0, 4], flat[0, 5], flat[0, 6]
    _quat_to_matrix(x, y, z, w, R, 0)
    RJ = np.empty((3, 3))
    Q = np.empty((3, 3))
    piv = np.empty(3)
    aw = np.empty(3)
    for k in range(1, flat.shape[0]):
        p = tree[k, 0]
        t = tree[k, 1]
        jr = tree[k, 2]
        qk = qj[jr, 0] if jr >= 0 else 0.0
        qdk = qj[jr, 1] if jr >= 0 else 0.0
        # joint frame in world: R_W J = R_p R_PJ; the pivot
        for i in range(3):
            for j in range(3):
                RJ[i, j] = R[p, i, 0] * frames[k, 9 + j] + R[p, i, 1] * frames[k, 12 + j] + R[p, i, 2] * frames[k, 15 + j]
        for i in range(3):
            piv[i] = flat[p, i] + R[p, i, 0] * frames[k, 3] + R[p, i, 1] * frames[k, 4] + R[p, i, 2] * frames[k, 5]
        ax, ay, az = frames[k, 0], frames[k, 1], frames[k, 2]
        if t == REVOLUTE:  # Rodrigues: Rot(a, q) = cos q 1 + sin q [a]× + (1 − cos q) a aᵀ
            c, s = math.cos(qk), math.sin(qk)
            u = 1.0 - c
            Q[0, 0] = c + u * ax * ax
            Q[0, 1] = u * ax * ay - s * az
            Q[0, 2] = u * ax * az + s * ay
            Q[1, 0] = u * ay * ax + s * az
            Q[1, 1] = c + u * ay * ay
            Q[1, 2] = u * ay * az - s * ax
            Q[2, 0] = u * az * ax - s * ay
            Q[2, 1] = u * az * ay + s * ax
            Q[2, 2] = c + u * az * az
            for i in range(3):
                for j in range(3):
                    R[k, i, j] = RJ[i, 0] * Q[0, j] + RJ[i, 1] * Q[1, j] + RJ[i, 2] * Q[2, j]
        else:
            for i in range(3):
                for j in range(3):
                    R[k, i, j] = RJ[i, j]
        for i in range(3):
            aw[i] = R[k, i, 0] * ax + R[k, i, 1] * ay + R[k, i, 2] * az
        for i in range(3):
            flat[k, i] = piv[i] + R[k, i, 0] * frames[k, 6] + R[k, i, 1] * frames[k, 7] + R[k, i, 2] * frames[k, 8]
            if t == PRISMATIC:
                flat[k, i] += aw[i] * qk
        rx, ry, rz = flat[k, 0] - flat[p, 0], flat[k, 1] - flat[p, 1], flat[k, 2] - flat[p, 2]
        wx, wy, wz = flat[p, 10], flat[p, 11], flat[p, 12]
        vx = flat[p, 7] + wy * rz - wz * ry
        vy = flat[p, 8] + wz * rx - wx * rz
        vz = flat[p, 9] + wx * ry - wy * rx
        if t == REVOLUTE:
            gx, gy, gz = aw[0] * qdk, aw[1] * qdk, aw[2] * qdk
            sx, sy, sz = flat[k, 0] - piv[0], flat[k, 1] - piv[1], flat[k, 2] - piv[2]
            vx += gy * sz - gz * sy
            vy += gz * sx - gx * sz
            vz += gx * sy - gy * sx
            wx += gx
            wy += gy
            wz += gz
        elif t == PRISMATIC:
            vx += aw[0] * qdk
            vy += aw[1] * qdk
            vz += aw[2] * qdk
        flat[k, 7], flat[k, 8], flat[k, 9] = vx, vy, vz
        flat[k, 10], flat[k, 11], flat[k, 12] = wx, wy, wz
        _matrix_to_quat(R, k, flat)


@compiled
def articulated_jacobians(p_W, R_WB, tree, frames):
    """(Jv (N, 3, n), Jw (N, 3, n)): each link COM's linear and angular velocity Jacobians in the
    generalised velocities u = [v_base_W (3), ω_base_W (3), q̇ (J)], n = 6 + J, from the snapshot's
    poses and the URDF tree (``tree``/``frames`` as :func:`lab.kernels.forward_kinematics` reads them).
    Rigid-body kinematics: v_k = v_0 + ω_0 × (p_k − p_0) + Σ_{revolute j ≤ k} a_j × (p_k − pivot_j) q̇_j
    (+ a_j q̇_j, prismatic), ω_k = ω_0 + Σ_{revolute j ≤ k} a_j q̇_j, a_j = R_j axis_L, pivot_j = p_j − R_j d_L."""
    n_links = p_W.shape[0]
    n_j = 0
    for k in range(1, tree.shape[0]):  # row 0 is the base (no joint)
        if tree[k, 2] + 1 > n_j:
            n_j = tree[k, 2] + 1
    nd = 6 + n_j
    Jv = np.zeros((n_links, 3, nd))
    Jw = np.zeros((n_links, 3, nd))
    for k in range(n_links):
        rx, ry, rz = p_W[k, 0] - p_W[0, 0], p_W[k, 1] - p_W[0, 1], p_W[k, 2] - p_W[0, 2]
        for a in range(3):
            Jv[k, a, a] = 1.0
            Jw[k, a, 3 + a] = 1.0
        # e_a × r
        Jv[k, 1, 3] = -rz
        Jv[k, 2, 3] = ry
        Jv[k, 0, 4] = rz
        Jv[k, 2, 4] = -rx
        Jv[k, 0, 5] = -ry
        Jv[k, 1, 5] = rx
        m = k
        while m > 0:
            typ = tree[m, 1]
            col = 6 + tree[m, 2]
            if tree[m, 2] >= 0 and (typ == REVOLUTE or typ == PRISMATIC):
                ax = R_WB[m, 0, 0] * frames[m, 0] + R_WB[m, 0, 1] * frames[m, 1] + R_WB[m, 0, 2] * frames[m, 2]
                ay = R_WB[m, 1, 0] * frames[m, 0] + R_WB[m, 1, 1] * frames[m, 1] + R_WB[m, 1, 2] * frames[m, 2]
                az = R_WB[m, 2, 0] * frames[m, 0] + R_WB[m, 2, 1] * frames[m, 1] + R_WB[m, 2, 2] * frames[m, 2]
                if typ == REVOLUTE:
                    sx = p_W[k, 0] - (p_W[m, 0] - (R_WB[m, 0, 0] * frames[m, 6] + R_WB[m, 0, 1] * frames[m, 7]
                                                   + R_WB[m, 0, 2] * frames[m, 8]))
                    sy = p_W[k, 1] - (p_W[m, 1] - (R_WB[m, 1, 0] * frames[m, 6] + R_WB[m, 1, 1] * frames[m, 7]
                                                   + R_WB[m, 1, 2] * frames[m, 8]))
                    sz = p_W[k, 2] - (p_W[m, 2] - (R_WB[m, 2, 0] * frames[m, 6] + R_WB[m, 2, 1] * frames[m, 7]
                                                   + R_WB[m, 2, 2] * frames[m, 8]))
                    Jv[k, 0, col] = ay * sz - az * sy
                    Jv[k, 1, col] = az * sx - ax * sz
                    Jv[k, 2, col] = ax * sy - ay * sx
                    Jw[k, 0, col] = ax
                    Jw[k, 1, col] = ay
                    Jw[k, 2, col] = az
                else:
                    Jv[k, 0, col] = ax
                    Jv[k, 1, col] = ay
                    Jv[k, 2, col] = az
            m = tree[m, 0]
    return Jv, Jw


@compiled
def articulated_mass_matrix(Jv, Jw, R_WB, mass, I_diag):
    """M (n, n) = Σ_k m_k Jv_kᵀ Jv_k + Jw_kᵀ (R_k diag(I_k) R_kᵀ) Jw_k: the floating-base mass matrix in
    :func:`articulated_jacobians`'s coordinates (the kinetic energy ½ uᵀ M u of Wang 2011, eqs. 8–10)."""
    nd = Jv.shape[2]
    M = np.zeros((nd, nd))
    _mass_matrix_into(Jv, Jw, R_WB, mass, I_diag, M)
    return M


@compiled
def _mass_matrix_into(Jv, Jw, R_WB, mass, I_diag, M):
    """:func:`articulated_mass_matrix` added into ``M`` (zeros). Per link only the columns its Jacobians
    fill (the base's six and the joints between the link and the base: on a 10-link chain 11 of 15 on
    average) enter the sum, and the rotated inertia times each column (IW Jw_j) is formed once per link,
    not once per pair: the same products summed in the same order as the full double loop (a column of
    zeros adds ±0 to an entry, which leaves it as it was), so M is the same to the bit, at half the work."""
    n_links, _, nd = Jv.shape
    IW = np.empty((3, 3))
    P = np.empty((3, nd))  # IW Jw_j, the bracket of the rotational term for column j
    cols = np.empty(nd, np.int64)
    for k in range(n_links):
        for a in range(3):
            for b in range(3):
                IW[a, b] = (R_WB[k, a, 0] * I_diag[k, 0] * R_WB[k, b, 0] + R_WB[k, a, 1] * I_diag[k, 1] * R_WB[k, b, 1]
                            + R_WB[k, a, 2] * I_diag[k, 2] * R_WB[k, b, 2])
        c = 0
        for i in range(nd):
            if (Jv[k, 0, i] != 0.0 or Jv[k, 1, i] != 0.0 or Jv[k, 2, i] != 0.0 or Jw[k, 0, i] != 0.0
                    or Jw[k, 1, i] != 0.0 or Jw[k, 2, i] != 0.0):
                cols[c] = i
                c += 1
        for b in range(c):
            j = cols[b]
            for a in range(3):
                P[a, j] = IW[a, 0] * Jw[k, 0, j] + IW[a, 1] * Jw[k, 1, j] + IW[a, 2] * Jw[k, 2, j]
        mk = mass[k]
        for ia in range(c):
            i = cols[ia]
            w0, w1, w2 = Jw[k, 0, i], Jw[k, 1, i], Jw[k, 2, i]
            for ib in range(ia, c):
                j = cols[ib]
                s = mk * (Jv[k, 0, i] * Jv[k, 0, j] + Jv[k, 1, i] * Jv[k, 1, j] + Jv[k, 2, i] * Jv[k, 2, j])
                if w0 != 0.0:
                    s += w0 * P[0, j]
                if w1 != 0.0:
                    s += w1 * P[1, j]
                if w2 != 0.0:
                    s += w2 * P[2, j]
                M[i, j] += s
    for i in range(nd):
        for j in range(i):
            M[i, j] = M[j, i]


@compiled
def articulated_mass(p_W, R_WB, tree, body):
    """The floating-base mass matrix of :func:`articulated_mass_matrix` from the snapshot's poses in one call,
    ``body`` (N, ≥ 22) = [the tree's frames (18), mass, I_diag (3)] (as :func:`snapshot` reads it): what the
    motors' implicit lines predict with (lab.core.world.World, lab.core.actuators)."""
    Jv, Jw = articulated_jacobians(p_W, R_WB, tree, body)
    nd = Jv.shape[2]
    M = np.zeros((nd, nd))
    _mass_matrix_into(Jv, Jw, R_WB, body[:, 18], body[:, 19:22], M)
    return M


@compiled
def snapshot(raw, flat, R, tree, body):
    """The World's whole snapshot in one call (World.read_state): ``raw`` (7 + J, 2) is the engine's
    answer packed flat, the base row [p_W, quat_W, v_W, w_W] in its first 13 values (the 14th unused) and
    each movable joint's [angle, rate] in the rows 7…; ``flat`` (N, 13) and ``R`` (N, 3, 3) are filled by
    :func:`forward_kinematics` from ``tree`` and the first 18 columns of ``body`` (N, 22), its ``frames``;
    ``body``'s column 18 is each link's mass, 19–21 its principal moments (ModelInfo.I_diag). Returns
    (E_T, E_R, finite): :func:`energies` of the filled rows (the same loop, so the same bits as the lazy
    attribute computes) and whether every value of ``flat`` is finite (their running sum is, as
    RobotState.is_finite tested it with one reduction). One dispatch instead of three, and no per-step
    numpy glue: on a 10-link snake the glue cost more than the arithmetic."""
    for a in range(13):
        flat[0, a] = raw[a // 2, a % 2]
    forward_kinematics(flat, R, tree, body, raw[7:])
    e_t, e_r = energies(flat[:, 7:10], flat[:, 10:13], R, body[:, 18], body[:, 19:22])
    s = 0.0
    for i in range(flat.shape[0]):
        for a in range(13):
            s += flat[i, a]
    return e_t, e_r, math.isfinite(s)


@compiled
def _quat_to_matrix(x, y, z, w, R, k):
    """R[k] from the unit quaternion (x, y, z, w), as btMatrix3x3::setRotation."""
    d = x * x + y * y + z * z + w * w
    s = 2.0 / d
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz = w * xs, w * ys, w * zs
    xx, xy, xz = x * xs, x * ys, x * zs
    yy, yz, zz = y * ys, y * zs, z * zs
    R[k, 0, 0] = 1.0 - (yy + zz)
    R[k, 0, 1] = xy - wz
    R[k, 0, 2] = xz + wy
    R[k, 1, 0] = xy + wz
    R[k, 1, 1] = 1.0 - (xx + zz)
    R[k, 1, 2] = yz - wx
    R[k, 2, 0] = xz - wy
    R[k, 2, 1] = yz + wx
    R[k, 2, 2] = 1.0 - (xx + yy)


@compiled
def _matrix_to_quat(R, k, flat):
    """flat[k, 3:7] = the quaternion (x, y, z, w) of R[k], as btMatrix3x3::getRotation (its sign too)."""
    m = R[k]
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0.0:
        s = math.sqrt(trace + 1.0)
        flat[k, 6] = 0.5 * s
        s = 0.5 / s
        flat[k, 3] = (m[2, 1] - m[1, 2]) * s
        flat[k, 4] = (m[0, 2] - m[2, 0]) * s
        flat[k, 5] = (m[1, 0] - m[0, 1]) * s
    else:
        if m[0, 0] < m[1, 1]:
            i = 2 if m[1, 1] < m[2, 2] else 1
        else:
            i = 2 if m[0, 0] < m[2, 2] else 0
        j = (i + 1) % 3
        kk = (i + 2) % 3
        s = math.sqrt(m[i, i] - m[j, j] - m[kk, kk] + 1.0)
        flat[k, 3 + i] = 0.5 * s
        s = 0.5 / s
        flat[k, 6] = (m[kk, j] - m[j, kk]) * s
        flat[k, 3 + j] = (m[j, i] + m[i, j]) * s
        flat[k, 3 + kk] = (m[kk, i] + m[i, kk]) * s


__all__ = ["BACKEND", "COMPILED", "compiled", "contact_power2", "contact_rows", "energies", "forward_kinematics", "joint_power2", "ledger_powers", "power2", "snapshot"]
