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

from lab.core.kernels import compiled
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
