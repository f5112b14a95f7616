"""Hydrodynamic forces on a chain of submerged cylinders (Zhang 2018, eqs. 22–27; after
Kelasidi et al. 2014), applied by the World every step.

Per link i, with t_i its x axis (towards the head), n_i its y axis and b_i its z axis (world frame),
v_r = v_i − V_c the COM velocity relative to a uniform current V_c, and ω_z its yaw rate:

* drag (eq. 22, link frame, element-wise): f = −(c_t v_t + c_t2 |v_t| v_t) t − (c_n v_n + c_n2 |v_n| v_n) n;
  the circular section sees the normal coefficients along b too (zero in planar motion);
* added mass (eq. 24, Kelasidi's form, u_t = 0): f_A = −u_n n (n·a + ω_z t·V_c), where a is the COM
  acceleration; the current term is Kelasidi's (it vanishes in still water);
* fluid torque (eq. 27): τ_z = −λ1 ω̇_z − λ2 ω_z − λ3 ω_z|ω_z|, about the world z axis;
* buoyancy: +m g ẑ at each COM, m the engine's link mass (neutral buoyancy; gravity is kept).

Added mass, and why it is folded
--------------------------------
The added-mass force depends on the acceleration the engine is about to compute. A force law sees
only the previous step's (``state.a_W``, a backward difference), so applying −u_n n(n·a) with a lagged
a turns one step's update into a_k = (F − u_n n nᵀ a_{k−1}) / m: the lagged term feeds back with gain
−u_n/m. For the eel u_n = 0.5522 kg against m = 0.5531 kg — a gain of −0.998, a Nyquist-frequency
oscillation that barely decays; with 2u_n it grows (``tests/library/test_hydrodynamics.py`` shows both).

``added_mass = "folded"`` (the default) instead puts u_n into each link's URDF mass, isotropically
(EelSpec.added_mass), and λ1 into its yaw inertia (EelSpec.added_yaw_inertia; λ1 = u_n(2l)²/12 is the
rotational share of the same normal added mass). The engine then solves the normal and rotational
added mass implicitly, inside its own constrained dynamics, exactly. What is left is to remove the
tangential part the isotropic folding wrongly added: a correction +u_n t (t·a), with the lagged a.
Its feedback gain is +u_n/(m + u_n) — in the chain, the eigenvalues of (M + N)⁻¹N with N = Σ Jᵀu_n t tᵀJ
positive semi-definite, all in [0, 1) for any u_n — so the lag is stable and only costs a first-order
error O(h·ȧ). The rotational added mass needs no correction: yaw is the only rotation of a planar
chain. Mode ``"lagged"`` applies the textbook explicit forms (−u_n n(n·a), −λ1 ω̇) for comparison;
``"none"`` drops both.

Measured: one link launched obliquely decays within 0.05 % (along) and 0.19 % (across) of the closed
form of (m or m + u_n) v̇ = −c v − c₂|v|v at 1 ms, twice that at 2 ms, and the same with 2u_n; in the
eel scenario (2 ms) the added mass alone is the term whose engine run differs most from the exact
model (CM 4 % of the distance over 20 s, against 0.3 % for either drag term alone).

The law is pure: it reads only the snapshot (``state.model`` for masses and gravity, ``state.a_W``,
``state.dw_W``) and returns a :class:`~lab.forces.base.Wrench` in the world frame.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.core.fields import Validated, choice, info, num, vector
from lab.core.kernels import compiled
from lab.core.state import RobotState
from lab.forces.base import Wrench, register_force


@dataclass(frozen=True)
class HydroCoefficients(Validated):
    """The law's coefficients, Zhang 2018 §4.2's numbers as defaults: declared once for the law and for
    the eel controller that linearises it (:class:`~lab.papers.zhang2018_eel.controllers.EelFLParams`)."""

    c_t: float = num(0.2209, ge=0, le=1e4, unit="N·s/m", doc="linear drag along the link")
    c_n: float = num(9.3750, ge=0, le=1e4, unit="N·s/m", doc="linear drag across the link")
    c_t2: float | None = num(None, ge=0, le=1e4, unit="N·s²/m²", doc="quadratic drag along (default c_t)")
    c_n2: float | None = num(None, ge=0, le=1e4, unit="N·s²/m²", doc="quadratic drag across (default c_n)")
    u_n: float = num(0.5522, ge=0, le=1e4, unit="kg", doc="normal added mass")
    lambda1: float = num(7.1905e-4, ge=0, le=1e4, unit="kg·m²", doc="added yaw inertia λ1")
    lambda2: float = num(0.0015, ge=0, le=1e4, unit="N·m·s", doc="linear fluid torque λ2")
    lambda3: float = num(7.1526e-5, ge=0, le=1e4, unit="N·m·s²", doc="quadratic fluid torque λ3")

    @property
    def ct2(self) -> float:
        return self.c_t if self.c_t2 is None else self.c_t2

    @property
    def cn2(self) -> float:
        return self.c_n if self.c_n2 is None else self.c_n2


@register_force("hydrodynamics")
@dataclass(frozen=True)
class Hydrodynamics(HydroCoefficients):
    """Morison-type hydrodynamics of Zhang 2018 §3.1 with the §4.2 numbers as defaults (see
    lab/papers/zhang2018_eel/model/params.py for where the paper's formulas disagree with its numbers).

    ``c_t2``/``c_n2`` (quadratic drag) default to ``c_t``/``c_n`` as in eq. 22. ``current`` is (V_x, V_y)
    in m/s, world frame. ``buoyancy``: balance each link's weight. ``added_mass``: "folded" (the robot
    spec carries u_n and λ1; see the module docstring), "lagged" or "none".
    """

    current: tuple[float, float] = vector((0.0, 0.0), length=2, ge=-10, le=10, unit="m/s", names="[V_x, V_y]",
                                          doc="uniform current, world frame")
    added_mass: Literal["folded", "lagged", "none"] = choice(
        "folded", doc="'folded': the robot's links carry u_n and λ1; 'lagged': explicit forces; 'none'")
    buoyancy: bool = info(True, doc="balance each link's weight")
    scheme: Literal["explicit", "implicit"] = choice(
        "explicit", doc="'explicit': drag and fluid torque at the step's velocity; 'implicit': linearised "
                        "one step ahead with each link's own effective mass (hydro_implicit)")

    needs_contact_forces = False

    def validate_scenario(self, robot=None, controller=None, arena=None, **_) -> None:
        """Cross-field check (called by the scenario loader): the robot must carry the added mass the
        law assumes it carries, an eel controller must linearise the same coefficients, and a water
        arena must draw the current the law applies."""
        if arena is not None and hasattr(arena, "current"):
            if tuple(map(float, arena.current)) != tuple(map(float, self.current)):
                raise ValueError(f"current: the law applies {list(self.current)} m/s but the arena shows "
                                 f"{list(arena.current)}; set arena.current to the same flow")
        if robot is not None and not hasattr(robot, "added_mass") and self.added_mass == "folded" and \
                (self.u_n or self.lambda1):
            raise ValueError(f"added_mass: 'folded' needs a robot that carries the added mass in its links "
                             f"(an eel: robot.added_mass, robot.added_yaw_inertia); {type(robot).__name__} "
                             "does not; use 'lagged' or 'none'")
        if robot is not None and hasattr(robot, "added_mass"):
            want_m = self.u_n if self.added_mass == "folded" else 0.0
            want_I = self.lambda1 if self.added_mass == "folded" else 0.0
            if not np.isclose(robot.added_mass, want_m, rtol=1e-9, atol=1e-12):
                raise ValueError(f"added_mass: '{self.added_mass}' needs robot.added_mass = {want_m} kg "
                                 f"(the law's u_n or 0), got {robot.added_mass}")
            if not np.isclose(robot.added_yaw_inertia, want_I, rtol=1e-9, atol=1e-15):
                raise ValueError(f"added_mass: '{self.added_mass}' needs robot.added_yaw_inertia = {want_I} kg·m² "
                                 f"(the law's lambda1 or 0), got {robot.added_yaw_inertia}")
        if controller is not None and hasattr(controller, "added_mass_folded"):
            ctrl = dict((k, getattr(controller, k)) for k in ("c_t", "c_n", "u_n", "lambda1", "lambda2", "lambda3"))
            ctrl["c_t2"] = controller.c_t if getattr(controller, "c_t2", None) is None else controller.c_t2
            ctrl["c_n2"] = controller.c_n if getattr(controller, "c_n2", None) is None else controller.c_n2
            mine = {k: getattr(self, k) for k in ("c_t", "c_n", "u_n", "lambda1", "lambda2", "lambda3")}
            mine.update(c_t2=self.ct2, c_n2=self.cn2)
            for name, value in mine.items():
                if not np.isclose(ctrl[name], value, rtol=1e-12, atol=0.0):
                    raise ValueError(f"{name}: the controller linearises {name} = {ctrl[name]}, "
                                     f"the law applies {value}; set both")
            if controller.added_mass_folded != (self.added_mass == "folded"):
                raise ValueError(f"added_mass: the controller's added_mass_folded = {controller.added_mass_folded} "
                                 f"does not match the law's '{self.added_mass}'")

    @functools.cached_property
    def _loop_args(self) -> tuple:
        """The law's constants as :func:`hydro_loops` takes them, built once (the law is frozen)."""
        mode = _MODES[self.added_mass] if self.u_n or self.added_mass == "lagged" else 0
        return (float(self.c_t), float(self.c_n), float(self.ct2), float(self.cn2), float(self.u_n), mode,
                float(self.current[0]), float(self.current[1]), bool(self.buoyancy), float(self.lambda1),
                float(self.lambda2), float(self.lambda3))

    def __call__(self, state: RobotState, t: float) -> Wrench:
        """The wrench of every term above, summed, in one compiled call (:func:`hydro_loops`)."""
        args = self._loop_args
        mode = args[5]
        a_W = state.a_W if mode else _ZERO3
        dw_W = state.dw_W if mode == 2 else _ZERO3
        model = state.model
        weight = model.mass * model.gravity
        if self.scheme == "explicit":
            F, T = hydro_loops(state.R_WB, state.v_W, state.w_W, a_W, dw_W, weight, *args)
        else:
            m_t, m_n, J_z = self._effective(model)
            F, T = hydro_implicit(state.R_WB, state.v_W, state.w_W, a_W, dw_W, weight, *args, float(model.dt),
                                  m_t, m_n, J_z)
        return Wrench(F, T)

    def _effective(self, model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each link's own effective mass along (m_t) and across (m_n) and yaw inertia (J_z) as the water
        sees it: the engine's link mass and yaw inertia, which carry u_n and λ1 when they are folded (the
        lagged tangential correction then takes u_n off along the link); with the textbook 'lagged' forms
        the engine's are dry and u_n, λ1 are added."""
        m, J = model.mass, model.I_diag[:, 2]
        if self.added_mass == "folded":
            return m - self.u_n, m, J
        if self.added_mass == "lagged":
            return m, m + self.u_n, J + self.lambda1
        return m, m, J


_MODES = {"none": 0, "folded": 1, "lagged": 2}
_ZERO3 = np.zeros((1, 3))  # a_W / dw_W when the mode does not read them (the loops never index it then)


@compiled
def hydro_loops(R_WB, v_W, w_W, a_W, dw_W, weight, c_t, c_n, ct2, cn2, u_n, mode, cx, cy, buoyancy,
                lam1, lam2, lam3):
    """The law of :class:`Hydrodynamics` (Zhang 2018, eqs. 22, 24, 27 and buoyancy, as in the module doc)
    in one compiled loop over the links (its numpy oracle, term by term: tests/oracles/hydrodynamics.py).
    ``mode``: 0 no added mass, 1 folded (the tangential correction +u_n t(t·a)), 2 lagged (−u_n n(n·a)
    and −λ1 ω̇_z). Returns (F_W, T_W). It is :func:`hydro_implicit` at dt = 0 (the drag and the fluid
    torque explicit: every denominator exactly 1); ``weight`` stands in for the masses it does not read."""
    return hydro_implicit(R_WB, v_W, w_W, a_W, dw_W, weight, c_t, c_n, ct2, cn2, u_n, mode, cx, cy, buoyancy,
                          lam1, lam2, lam3, 0.0, weight, weight, weight)


@compiled
def hydro_implicit(R_WB, v_W, w_W, a_W, dw_W, weight, c_t, c_n, ct2, cn2, u_n, mode, cx, cy, buoyancy,
                   lam1, lam2, lam3, dt, m_t, m_n, J_z):
    """:func:`hydro_loops`'s law with the drag (eq. 22) and the fluid torque (eq. 27) taken linearly
    implicitly: each component at the velocity predicted one step ahead from that term alone, to first
    order (one Newton step about the current velocity, each link's own effective mass m_t along,
    m_n across and about z J_z; joint forces left out of the prediction, as the friction's
    ``coulomb_implicit``):

        f⁺ = f(v) + f′(v)(v⁺ − v),  v⁺ − v = dt f⁺/m   ⇒   f⁺ = f(v) / (1 + dt (c + 2 c₂|v|)/m),

    with f(v) = −(c + c₂|v|) v. For linear drag alone this is backward Euler (v⁺ = v/(1 + dt c/m):
    stable and monotone at any dt, where the explicit term needs dt < 2m/c); the added mass, buoyancy and
    current terms are unchanged."""
    N = v_W.shape[0]
    F = np.zeros((N, 3))
    T = np.zeros((N, 3))
    for i in range(N):
        vx = v_W[i, 0] - cx
        vy = v_W[i, 1] - cy
        vz = v_W[i, 2]
        vt = vx * R_WB[i, 0, 0] + vy * R_WB[i, 1, 0] + vz * R_WB[i, 2, 0]
        vn = vx * R_WB[i, 0, 1] + vy * R_WB[i, 1, 1] + vz * R_WB[i, 2, 1]
        vb = vx * R_WB[i, 0, 2] + vy * R_WB[i, 1, 2] + vz * R_WB[i, 2, 2]
        ft = -(c_t + ct2 * abs(vt)) * vt
        fn = -(c_n + cn2 * abs(vn)) * vn
        fb = -(c_n + cn2 * abs(vb)) * vb
        wz = w_W[i, 2]
        tz = -(lam2 + lam3 * abs(wz)) * wz
        if dt > 0.0:  # dt = 0: the explicit law (hydro_loops), bit for bit
            ft /= 1.0 + dt * (c_t + 2.0 * ct2 * abs(vt)) / m_t[i]
            fn /= 1.0 + dt * (c_n + 2.0 * cn2 * abs(vn)) / m_n[i]
            fb /= 1.0 + dt * (c_n + 2.0 * cn2 * abs(vb)) / m_n[i]
            tz /= 1.0 + dt * (lam2 + 2.0 * lam3 * abs(wz)) / J_z[i]
        if mode == 1:
            ft += u_n * (a_W[i, 0] * R_WB[i, 0, 0] + a_W[i, 1] * R_WB[i, 1, 0] + a_W[i, 2] * R_WB[i, 2, 0])
        elif mode == 2:
            fn -= u_n * (a_W[i, 0] * R_WB[i, 0, 1] + a_W[i, 1] * R_WB[i, 1, 1] + a_W[i, 2] * R_WB[i, 2, 1])
        if mode != 0 and (cx != 0.0 or cy != 0.0):
            fn -= u_n * wz * (R_WB[i, 0, 0] * cx + R_WB[i, 1, 0] * cy)
        for a in range(3):
            F[i, a] = ft * R_WB[i, a, 0] + fn * R_WB[i, a, 1] + fb * R_WB[i, a, 2]
        if buoyancy:
            F[i, 2] += weight[i]
        T[i, 2] = tz
        if mode == 2:
            T[i, 2] -= lam1 * dw_W[i, 2]
    return F, T


__all__ = ["HydroCoefficients", "Hydrodynamics", "hydro_implicit", "hydro_loops"]
