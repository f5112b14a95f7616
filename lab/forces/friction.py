"""Ground friction force laws applied by the World every step.

Conventions: forces act at each link's centre of mass, in the world frame; the tangent t is the
link's x axis (towards the head) projected on the ground plane, the normal n = ẑ × t (to the left).
Applying at the COM keeps the chain planar, as in the paper's planar model: the tipping moment of a
force at the ground contact (arm = the radius) is dropped, and P = F·v_COM is exactly the power the
force does, which keeps the energy balance exact.

The engine's own friction is switched off on the robot's links (Bullet combines two bodies'
coefficients by product, so zero on the robot means zero tangential engine friction at its ground
contacts while the ground still carries the normal load; see ``engine_friction`` in World.load_robot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.core.kernels import _mass_matrix_into, articulated_jacobians, articulated_mass_matrix, compiled
from lab.core.fields import Validated, choice, info, num
from lab.core.state import RobotState
from lab.forces.base import FRICTION


def _ground_frame(state: RobotState) -> tuple[np.ndarray, np.ndarray]:
    """(t_W, n_W), each (N, 3): the link's x axis projected on the ground plane, and ẑ × t."""
    ax = state.x_axis_W
    c, s = ax[:, 0], ax[:, 1]
    inv = 1.0 / np.maximum(np.sqrt(c * c + s * s), 1e-12)
    t = np.zeros((len(c), 3))
    n = np.zeros((len(c), 3))
    t[:, 0] = n[:, 1] = c * inv
    t[:, 1] = s * inv
    n[:, 0] = -t[:, 1]
    return t, n


@FRICTION.register("coulomb")
@dataclass(frozen=True)
class AnisotropicCoulomb(Validated):
    """Coulomb friction with different coefficients along and across each module.

    Wang 2011, eq. 4: f_i = [−μ_t m_i g sgn(v_t), −μ_n m_i g sgn(v_n)], generalised to a forward
    (v_t > 0, towards the head) and a backward coefficient. The normal load is m_i g as in the paper
    (``normal_load = "weight"``) or the engine's measured contact normal force from the previous
    step's contact solve (``"contact"``). The sign is regularised as sgn(v) ≈ tanh(v / slip_tol):
    below ``slip_tol`` (m/s) the force falls off linearly, which is what lets an explicit force
    callback stay stable (needs dt < 2·slip_tol/(μ g); the scenario checks this;
    :class:`LinearlyImplicitCoulomb` is the same law stable at any dt). The head module is exempt when
    ``head_exempt`` (the paper's head has no passive wheel).
    """

    mu_t: float = num(0.03, ge=0, le=5, doc="tangential Coulomb coefficient (both ways unless set below)")
    mu_n: float = num(0.3, ge=0, le=5, doc="normal (lateral) Coulomb coefficient")
    mu_forward: float | None = num(None, ge=0, le=5, doc="tangential, moving towards the head (default mu_t)")
    mu_backward: float | None = num(None, ge=0, le=5, doc="tangential, moving towards the tail (default mu_t)")
    normal_load: Literal["weight", "contact"] = choice(
        "weight", doc="'weight': m g (the paper); 'contact': the engine's contact normal force")
    slip_tol: float = num(0.01, ge=1e-5, le=1, unit="m/s", doc="slip speed of the tanh regularisation")
    head_exempt: bool = info(True, doc="no friction on the head module (the paper's head has no wheel)")

    explicit = True  # the law needs dt < 2·slip_tol/(μ g) (the scenario checks it)

    @property
    def mu_fwd(self) -> float:
        return self.mu_t if self.mu_forward is None else self.mu_forward

    @property
    def mu_bwd(self) -> float:
        return self.mu_t if self.mu_backward is None else self.mu_backward

    @property
    def mu_max(self) -> float:
        return max(self.mu_fwd, self.mu_bwd, self.mu_n)

    @property
    def needs_contact_forces(self) -> bool:
        return self.normal_load == "contact"

    def __call__(self, state: RobotState, t: float) -> np.ndarray:
        """Per-link forces F_W (N, 3) at the COMs."""
        model = state.model
        load = state.fn if self.normal_load == "contact" and state.fn is not None else model.weight
        # one compiled call (:func:`coulomb`): on a 10-link robot the cost of this law was the number of
        # numpy calls, not the arithmetic
        return coulomb(state.R_WB, state.v_W, load, float(self.mu_fwd), float(self.mu_bwd), float(self.mu_n),
                               float(self.slip_tol), bool(self.head_exempt))


@FRICTION.register("coulomb_implicit")
@dataclass(frozen=True)
class LinearlyImplicitCoulomb(AnisotropicCoulomb):
    """:class:`AnisotropicCoulomb` (Wang 2011, eq. 4, same fields and frames) with the force taken at the
    slip velocity predicted one step ahead (:func:`coulomb_implicit`): stable at any dt, where the
    explicit law needs dt < 2·slip_tol/(μ g) (tests/library/test_friction_implicit.py: the sliding block at 1, 5
    and 10 ms). A different discretisation of the same law: at 1 ms on the flagship's start-up the two
    differ by 6 % in input work (docs/benchmarks.md), so switching a scenario to it is a physics change."""

    explicit = False

    def __call__(self, state: RobotState, t: float) -> np.ndarray:
        """Per-link forces F_W (N, 3) at the COMs."""
        model = state.model
        load = state.fn if self.normal_load == "contact" and state.fn is not None else model.weight
        return coulomb_implicit(state.R_WB, state.v_W, load, model.mass, float(self.mu_fwd), float(self.mu_bwd),
                                float(self.mu_n), float(self.slip_tol), bool(self.head_exempt), float(model.dt))


@FRICTION.register("viscous")
@dataclass(frozen=True)
class ViscousFriction(Validated):
    """Viscous ground friction f_i = [−c_t v_t, −c_n v_n] per link (N·s/m), same frames as above."""

    c_t: float = num(0.5, ge=0, le=1000, unit="N·s/m", doc="along the link")
    c_n: float = num(3.0, ge=0, le=1000, unit="N·s/m", doc="across the link")
    head_exempt: bool = info(False, doc="no friction on the head module")

    needs_contact_forces = False

    def __call__(self, state: RobotState, t: float) -> np.ndarray:
        t_W, n_W = _ground_frame(state)
        v_t = np.einsum("ij,ij->i", state.v_W, t_W)
        v_n = np.einsum("ij,ij->i", state.v_W, n_W)
        F_W = (-self.c_t * v_t)[:, None] * t_W + (-self.c_n * v_n)[:, None] * n_W
        if self.head_exempt:
            F_W[-1] = 0.0
        return F_W


@FRICTION.register("none")
@dataclass(frozen=True)
class NoFriction:
    """No callback friction (the engine's tangential friction stays off too)."""

    needs_contact_forces = False

    def __call__(self, state: RobotState, t: float) -> np.ndarray:
        return np.zeros((state.model.n_links, 3))


@compiled
def coulomb(R_WB, v_W, load, mu_fwd, mu_bwd, mu_n, slip_tol, head_exempt):
    """:class:`AnisotropicCoulomb`'s forces F_W (N, 3) in one compiled loop over the links (its numpy
    oracle: tests/oracles/friction.py). Per link i, with t the x axis of R_WB[i] projected on the ground
    plane and normalised, n = ẑ × t: f = −μ_t N_i tanh(v_t/v_s) t − μ_n N_i tanh(v_n/v_s) n, μ_t = μ_fwd
    for v_t ≥ 0 (towards the head) else μ_bwd (Wang 2011, eq. 4, sign regularised); the last link (the
    head) gets none when ``head_exempt``. It is :func:`coulomb_implicit` at dt = 0 (no prediction: the
    denominators are exactly 1, so the forces are the explicit law's to the bit); ``load`` stands in
    for the masses it then does not read."""
    return coulomb_implicit(R_WB, v_W, load, load, mu_fwd, mu_bwd, mu_n, slip_tol, head_exempt, 0.0)


@compiled
def coulomb_implicit(R_WB, v_W, load, mass, mu_fwd, mu_bwd, mu_n, slip_tol, head_exempt, dt):
    """:func:`coulomb`'s law taken linearly implicitly: each component's force at the slip velocity
    predicted one step ahead from the friction alone, to first order (one Newton step, the link's own
    mass; joint and contact forces left out of the prediction),

        f⁺ = f(v) + f′(v)(v⁺ − v),  v⁺ − v = dt f⁺/m   ⇒   f⁺ = f(v) / (1 + dt μ N sech²(v/v_s)/(v_s m)),

    with f(v) = −μ N tanh(v/v_s) (Wang 2011, eq. 4, sign regularised). Alone on a link it makes the slip
    decay as v⁺ = v/(1 + dt μ N/(v_s m)) in the linear zone: stable and without sign chatter at any dt,
    where the explicit law needs dt < 2 v_s/(μ g). Far from the linear zone (|v| ≫ v_s) sech² → 0 and
    it is the explicit law. Same frames and head rule as :func:`coulomb`."""
    n = v_W.shape[0]
    F_W = np.zeros((n, 3))
    last = n - 1 if head_exempt else n
    for i in range(last):
        cx, sx = R_WB[i, 0, 0], R_WB[i, 1, 0]
        inv = 1.0 / max(math.hypot(cx, sx), 1e-12)
        c, s = cx * inv, sx * inv
        v_t = v_W[i, 0] * c + v_W[i, 1] * s
        v_n = v_W[i, 1] * c - v_W[i, 0] * s
        mu_t = mu_fwd if v_t >= 0.0 else mu_bwd
        k = dt * load[i] / (slip_tol * mass[i]) if dt > 0.0 else 0.0  # dt = 0: the explicit law (coulomb)
        th_t = math.tanh(v_t / slip_tol)
        th_n = math.tanh(v_n / slip_tol)
        f_t = -mu_t * load[i] * th_t / (1.0 + k * mu_t * (1.0 - th_t * th_t))
        f_n = -mu_n * load[i] * th_n / (1.0 + k * mu_n * (1.0 - th_n * th_n))
        F_W[i, 0] = f_t * c - f_n * s
        F_W[i, 1] = f_t * s + f_n * c
    return F_W


@FRICTION.register("coulomb_velocity")
@dataclass(frozen=True)
class VelocityCoulomb(Validated):
    """Coulomb friction with stiction, solved at the velocity level as a contact solver does it: stable
    at any dt, without a regularisation.

    Wang 2011, eq. 4 (the hard law f_i = [−μ_t N_i sgn(v_t), −μ_n N_i sgn(v_n)], forward / backward
    tangential coefficients as :class:`AnisotropicCoulomb`, same frames and head rule): per step, the
    friction impulses λ_i = f_i dt of every contacting link are the ones that stop the slip over the
    step, each component clamped to its Coulomb bound, with the links coupled through the articulated
    effective mass A = G M⁻¹ Gᵀ (M the floating-base mass matrix, G the links' ground-plane COM
    Jacobians): the box-constrained problem

        w = v_free + A λ,  −μ_fwd N dt ≤ λ_t ≤ μ_bwd N dt,  |λ_n| ≤ μ_n N dt,
        λ strictly inside ⇒ w = 0 (stiction),  λ at a bound ⇒ w slips against it (Coulomb),

    solved by projected Gauss–Seidel, over-relaxed (:func:`coulomb_velocity`). v_free is the slip velocity the step
    would end with without friction: the snapshot's, plus gravity's ground-plane component, plus the
    joint torques the controller applies this step (``state.tau``, when the runner gives it). A block
    then follows semi-implicit Euler's own discrete solution of the hard law: it stops after
    h·Σ_k (v0 − k h μ g), holds on a slope below atan μ, slides at g(sin θ − μ cos θ) above it.

    The force is not a function of the velocity alone: it is the step's impulse over dt, so the ledger's
    trapezoidal work F·(v + v₊) dt/2 is the work it did over the step (for a lone body exactly the
    kinetic energy it removed).

    ``slip_tol`` = v_s > 0 takes :class:`AnisotropicCoulomb`'s regularised law instead, implicitly: each
    component λ = −μ N dt tanh(w/v_s) at the step's end slip w = v_free + A λ (backward Euler on the
    friction, with the same articulated coupling), solved by nonlinear Gauss–Seidel (each component's
    monotone scalar equation by safeguarded Newton; exact coordinate descent on the strictly convex
    ½λᵀAλ + bᵀλ + Σ v_s ∫ atanh(λ/c)). Stable at any dt; as dt → 0 it is the explicit law's. Wang 2011's
    unified scenarios use it: their model integrates the same tanh law. Where the model has no tree (a joint outside the World's compiled
    kinematics) each link's own mass stands in for A (a diagonal, weaker coupling: exact for a lone body)."""

    mu_t: float = num(0.03, ge=0, le=5, doc="tangential Coulomb coefficient (both ways unless set below)")
    mu_n: float = num(0.3, ge=0, le=5, doc="normal (lateral) Coulomb coefficient")
    mu_forward: float | None = num(None, ge=0, le=5, doc="tangential, moving towards the head (default mu_t)")
    mu_backward: float | None = num(None, ge=0, le=5, doc="tangential, moving towards the tail (default mu_t)")
    normal_load: Literal["weight", "contact"] = choice(
        "weight", doc="'weight': the weight's component normal to the ground, m g on flat ground (the paper); "
                      "'contact': the engine's contact normal force")
    head_exempt: bool = info(True, doc="no friction on the head module (the paper's head has no wheel)")
    slip_tol: float = num(0.0, ge=0, le=1, unit="m/s",
                          doc="0: the hard law (sgn, with stiction). > 0: the regularised law tanh(v/v_s) of "
                              "'coulomb', taken implicitly at the step's end slip (backward Euler with the "
                              "articulated mass): stable at any dt, for a model comparison that needs the tanh")
    iterations: int = num(2000, ge=1, le=100000, doc="projected Gauss–Seidel sweeps at most per step")
    tolerance: float = num(1e-12, gt=0, le=1e-3, unit="m/s",
                           doc="stop the sweeps when no slip velocity moves by more than this in a sweep")

    explicit = False  # stable at any dt: the loader's explicit-step bound does not apply

    mu_fwd = AnisotropicCoulomb.mu_fwd
    mu_bwd = AnisotropicCoulomb.mu_bwd
    mu_max = AnisotropicCoulomb.mu_max
    needs_contact_forces = AnisotropicCoulomb.needs_contact_forces

    def __call__(self, state: RobotState, t: float) -> np.ndarray:
        """Per-link forces F_W (N, 3) at the COMs: the step's friction impulses over dt."""
        model = state.model
        bound = self.__dict__.get("_bound")  # one read: another thread's model cannot slip in between
        if bound is None or bound[0] is not model:
            bound = self._bind(model)
        _, tree, body, params, weight, contact, m_shape = bound
        load = state.fn if contact and state.fn is not None else weight
        tau = state.tau
        if tau is None:
            tau = _NO_TAU
        elif type(tau) is not np.ndarray or tau.dtype != np.float64:
            tau = np.asarray(tau, float)
        F_W = np.zeros((state.p_W.shape[0], 3))  # made here: an array handed back from compiled code costs ~1 µs
        M = np.zeros(m_shape)  # the articulated mass matrix the kernel builds, kept on the snapshot
        _coulomb_velocity_into(state.p_W, state.R_WB, state.v_W, load, tree, body, tau, params, F_W, M)
        if M.shape[0]:
            state.M_u = M  # (lab.core.state.RobotState.M_u: the World's implicit motor lines read it)
        return F_W

    def _bind(self, model) -> tuple:
        """The law's arguments that do not change from step to step, for this model (bound once per
        World, not once per step: four properties, nine conversions and three stacked arrays): (model, tree,
        body (N, 22) = [frames (18), mass, I_diag (3)], params, the weight's load, 'contact' or not, the
        shape of the mass matrix kept on the snapshot ((0, 0): none, e.g. for a static base))."""
        g_W = model.gravity_W if model.gravity_W is not None else np.array([0.0, 0.0, -model.gravity])
        tree, frames = model.tree, model.frames
        if tree is None:
            tree, frames = _NO_TREE[0], np.zeros((model.mass.shape[0], 18))
        body = np.ascontiguousarray(np.hstack([frames, model.mass[:, None], model.I_diag]), dtype=float)
        fixed = bool(getattr(model, "fixed_base", False))
        params = np.array([g_W[0], g_W[1], g_W[2], self.mu_fwd, self.mu_bwd, self.mu_n, float(bool(self.head_exempt)),
                           model.dt, self.iterations, self.tolerance, float(fixed), self.slip_tol], float)
        # 'weight': the weight's component along the ground normal ẑ (m g on flat ground, m g cos θ where a
        # sloped arena turns gravity); 'contact': the engine's normal force, read per step (the weight where
        # the snapshot has none)
        weight = model.mass * max(-float(g_W[2]), 0.0)
        # the floating-base mass matrix's size, as lab.core.kernels.articulated_jacobians counts the joints
        nd = 6 + max(0, int(tree[1:, 2].max()) + 1) if tree.shape[0] == model.mass.shape[0] > 1 and not fixed else 0
        bound = (model, np.ascontiguousarray(tree, dtype=np.int64), body, params, weight,
                 self.normal_load == "contact", (nd, nd))
        self.__dict__["_bound"] = bound  # a cache, not a field (a frozen dataclass: equality and repr ignore it)
        return bound


_NO_TAU = np.zeros(0)
# Over-relaxation of the sweeps: when the contacts outnumber the chain's degrees of freedom (a 10-module
# snake: 18 contact components, 15 DOF) A is singular and plain Gauss–Seidel (1.0) creeps towards the
# stuck solution (post-step slips up to 3e-7 m/s left after 2000 sweeps on the flagship at 10 ms);
# 1.3 reaches 6e-11 there, at the same mean cost.
SOR = 1.3
_NO_TREE = (np.zeros((0, 3), np.int64), np.zeros((0, 18)))


@compiled
def coulomb_velocity(p_W, R_WB, v_W, load, mass, I_diag, tree, frames, g_W, tau, mu_fwd, mu_bwd, mu_n, head_exempt,
                     dt, iterations, tolerance, fixed_base=False, slip_tol=0.0):
    """:class:`VelocityCoulomb`'s forces F_W (N, 3). Per contacting link i (load > 0; the head out when
    ``head_exempt``), t_i the link's x axis projected on the ground plane, n_i = ẑ × t_i, as
    :func:`coulomb`. Builds G (2c, n): rows t_iᵀ Jv_i, n_iᵀ Jv_i; A = G M⁻¹ Gᵀ by a Cholesky factor of M
    (each link's 1/m_i where ``tree`` is empty); v_free = G u-space prediction: the slip of v_W + dt g_W
    plus dt G M⁻¹ [0; τ]; then projected Gauss–Seidel on the box problem of :class:`VelocityCoulomb`
    until no slip velocity w = v_free + A λ moves by more than ``tolerance`` in a sweep (or
    ``iterations`` sweeps). Returns F_W = (λ_t t_i + λ_n n_i)/dt. ``fixed_base``: the engine's base is
    static (:class:`lab.trials.welded_tail.WeldedTail`), so u = q̇ alone and M is the joint block
    M[6:, 6:] (the base's own contact then has no mobility and gets no impulse). ``slip_tol`` > 0: each
    component's update solves λ = −c tanh(w/v_s) instead of the clamp (:func:`_tanh_component`)."""
    n = v_W.shape[0]
    body = np.zeros((n, 22))
    if tree.shape[0] == n:
        body[:, 0:18] = frames
    body[:, 18] = mass
    body[:, 19:22] = I_diag
    params = np.array([g_W[0], g_W[1], g_W[2], mu_fwd, mu_bwd, mu_n, 1.0 if head_exempt else 0.0, dt,
                       float(iterations), tolerance, 1.0 if fixed_base else 0.0, slip_tol])
    F_W = np.zeros((n, 3))
    _coulomb_velocity_into(p_W, R_WB, v_W, load, tree, body, tau, params, F_W, np.zeros((0, 0)))
    return F_W


@compiled
def _coulomb_velocity_into(p_W, R_WB, v_W, load, tree, body, tau, params, F_W, M):
    """:func:`coulomb_velocity` into ``F_W`` (zeros, (N, 3)), with the arguments that are constant over a run
    packed (the dispatch costs per argument): ``body`` (N, 22) = [the tree's frames (18), mass, I_diag (3)],
    ``params`` = [g_W (3), mu_fwd, mu_bwd, mu_n, head_exempt (0/1), dt, iterations, tolerance, fixed_base (0/1),
    slip_tol]; ``M`` (n, n) zeros receives the floating-base articulated mass matrix (any other shape: not
    kept)."""
    n = v_W.shape[0]
    g_W = params[0:3]
    mu_fwd, mu_bwd, mu_n = params[3], params[4], params[5]
    head_exempt = params[6] != 0.0
    dt = params[7]
    iterations = int(params[8])
    tolerance = params[9]
    fixed_base = params[10] != 0.0
    slip_tol = params[11]
    mass = body[:, 18]
    last = n - 1 if head_exempt else n
    idx = np.empty(n, np.int64)
    c = 0
    for i in range(last):
        if load[i] > 0.0:
            idx[c] = i
            c += 1
    if c == 0 or dt <= 0.0:
        return
    r = 2 * c
    T = np.zeros((c, 2))  # (cos, sin) of each contact's t
    for k in range(c):
        i = idx[k]
        cx, sx = R_WB[i, 0, 0], R_WB[i, 1, 0]
        inv = 1.0 / max(math.hypot(cx, sx), 1e-12)
        T[k, 0] = cx * inv
        T[k, 1] = sx * inv
    A = np.zeros((r, r))
    b = np.empty(r)
    for k in range(c):
        i = idx[k]
        co, si = T[k, 0], T[k, 1]
        vx = v_W[i, 0] + dt * g_W[0]
        vy = v_W[i, 1] + dt * g_W[1]
        b[2 * k] = vx * co + vy * si
        b[2 * k + 1] = vy * co - vx * si
    if tree.shape[0] == n and n > 0:
        Jv, Jw = articulated_jacobians(p_W, R_WB, tree, body)  # reads the frames, body's first 18 columns
        if M.shape[0] != Jv.shape[2]:  # the caller's buffer (zeros) keeps it for the World's motor lines; else local
            M = np.zeros((Jv.shape[2], Jv.shape[2]))
        _mass_matrix_into(Jv, Jw, R_WB, mass, body[:, 19:22], M)
        off = 6 if fixed_base else 0  # a static base: the joint coordinates alone
        if fixed_base:
            M = M[6:, 6:].copy()
        nd = M.shape[0]
        L = np.linalg.cholesky(M)
        G = np.zeros((nd, r))  # Gᵀ
        for k in range(c):
            i = idx[k]
            co, si = T[k, 0], T[k, 1]
            for d in range(nd):
                G[d, 2 * k] = co * Jv[i, 0, off + d] + si * Jv[i, 1, off + d]
                G[d, 2 * k + 1] = co * Jv[i, 1, off + d] - si * Jv[i, 0, off + d]
        Y = _forward_solve(L, G)  # L⁻¹ Gᵀ: A = Yᵀ Y
        for p in range(r):
            for q in range(p, r):
                s = 0.0
                for d in range(nd):
                    s += Y[d, p] * Y[d, q]
                A[p, q] = s
                A[q, p] = s
        if tau.shape[0] > 0:  # the joint torques' share of the free slip: dt G M⁻¹ [0; τ]
            Q = np.zeros((nd, 1))
            for j in range(tau.shape[0]):
                Q[6 - off + j, 0] = tau[j]
            z = _forward_solve(L, Q)
            for p in range(r):
                s = 0.0
                for d in range(nd):
                    s += Y[d, p] * z[d, 0]
                b[p] += dt * s
    else:
        for k in range(c):
            A[2 * k, 2 * k] = A[2 * k + 1, 2 * k + 1] = 1.0 / mass[idx[k]]
    lo = np.empty(r)
    hi = np.empty(r)
    for k in range(c):
        N = load[idx[k]] * dt
        lo[2 * k] = -mu_fwd * N
        hi[2 * k] = mu_bwd * N
        lo[2 * k + 1] = -mu_n * N
        hi[2 * k + 1] = mu_n * N
    lam = np.zeros(r)
    w = b.copy()  # w = b + A λ, kept current
    for _ in range(iterations):
        moved = 0.0
        for p in range(r):
            if A[p, p] <= 0.0:
                continue
            if slip_tol > 0.0:  # the regularised law, implicit: an exact coordinate minimisation
                new = _tanh_component(lam[p], w[p] - A[p, p] * lam[p], A[p, p], lo[p], hi[p], slip_tol)
            else:
                new = lam[p] - SOR * w[p] / A[p, p]
                new = min(max(new, lo[p]), hi[p])
            d = new - lam[p]
            if d != 0.0:
                lam[p] = new
                for q in range(r):  # A[p, q] = A[q, p] (A is filled symmetric): the row, read contiguously
                    w[q] += A[p, q] * d
                dv = abs(d) * A[p, p]
                if dv > moved:
                    moved = dv
        if moved <= tolerance:
            break
    for k in range(c):
        i = idx[k]
        co, si = T[k, 0], T[k, 1]
        ft, fn = lam[2 * k] / dt, lam[2 * k + 1] / dt
        F_W[i, 0] = ft * co - fn * si
        F_W[i, 1] = ft * si + fn * co


@compiled
def _tanh_component(x0, r, a, lo, hi, v_s):
    """The root λ ∈ [lo, hi] of g(λ) = λ + C tanh(w/v_s), w = r + a λ, C = −lo (w ≥ 0, the bound the
    slip pushes against) or hi (w < 0): one component of the implicit regularised law
    (:class:`VelocityCoulomb` with ``slip_tol`` > 0). g increases with λ, g(lo) ≤ 0 ≤ g(hi): Newton from
    ``x0``, kept inside the shrinking bracket by bisection."""
    if hi - lo <= 0.0:
        return 0.0
    a_, b_ = lo, hi
    x = min(max(x0, lo), hi)
    scale = hi - lo
    for _ in range(200):
        w = r + a * x
        C = -lo if w >= 0.0 else hi
        th = math.tanh(w / v_s)
        g = x + C * th
        if g == 0.0:
            return x
        if g > 0.0:
            b_ = x
        else:
            a_ = x
        xn = x - g / (1.0 + C * a * (1.0 - th * th) / v_s)
        if not (a_ < xn < b_):
            xn = 0.5 * (a_ + b_)
        if abs(xn - x) <= 1e-15 * scale or b_ - a_ <= 1e-15 * scale:
            return xn
        x = xn
    return x


@compiled
def _forward_solve(L, B):
    """L⁻¹ B for a lower-triangular L (forward substitution, column by column)."""
    nd, m = B.shape
    X = np.empty((nd, m))
    for col in range(m):
        for i in range(nd):
            s = B[i, col]
            for k in range(i):
                s -= L[i, k] * X[k, col]
            X[i, col] = s / L[i, i]
    return X
