"""Parameters of the passive-wheel snake of Guo et al. 2015 (Table 1 and §§4.6, 5.2–5.3).

Pure Python/numpy (no engine). :class:`Guo2015Params` is the one parameter set shared by the analytic
models of :mod:`lab.papers.guo2015_wheeled.model` (constrained Euler–Lagrange, unified model in closed form,
unified model by numerical construction) and the head-tracking PFL controller law.

Conventions (the paper's, established from its text; used everywhere in the models)
----------------------------------------------------------------------------------
* q = (x, y, θ, φ_1 … φ_{n−1}) (§3.1), n modules of length 2l and mass m, numbered 1 … n **from the
  head**: module 1 is the head module.
* (x, y) is the **head point**, the free front end of the head module (§3.1 "头部的位置坐标", §5.2
  "头部坐标为 (x, y)"). The module centres are, §4.6,
      x_i = x + Σ_{k=1}^{i} 2l cos θ_k − l cos θ_i,   y_i = y + Σ_{k=1}^{i} 2l sin θ_k − l sin θ_i,
  so module 1 runs from (x, y) to (x, y) + 2l (cos θ, sin θ) and each later module continues from the
  previous one's far end: the body trails from the head along +(cos θ_i, sin θ_i), and the snake's
  forward direction at the head is −(cos θ, sin θ). Table 1 agrees: θ = 0 puts the body along +x,
  and the reference r_ref = (−0.1 t, …) drives the head towards −x, i.e. forward.
* θ = θ_1 is the world angle of the head module's axis, pointing **from the head tip into the body**
  (tailward), counter-clockwise from the world x axis.
* θ_i = θ + Σ_{k=1}^{i−1} φ_k (§4.6 prints "Σ θ_k", a slip, see ``SLIPS`` in guo2015_wheeled), i.e.
  φ_i = θ_{i+1} − θ_i: the counter-clockwise angle of module i+1 (tailward) relative to module i.
  The joint torque u_i does work u_i φ̇_i (+u_i on module i+1, −u_i on module i).
* Each module has a passive wheel at its centre (= its centre of mass): no lateral slip there, eq. 1.

Engine mapping (for whoever builds the robot): if the engine's base link is the head module and its
joints go tailward, with joint angle = child yaw − parent yaw, then that joint angle *is* φ_i (a
constant offset of π between "axis pointing tailward" and the link's own x axis cancels in the
difference); θ is the head link's yaw if its x axis points tailward, yaw + π if it points forward.
If the engine's base is the tail, the order reverses and the signs flip: engine joint j = −φ_{n−j}.

Table 1 and the text
--------------------
Table 1: m = 0.5 kg, half length l = 0.04 m, k_p = 1, k_d = 10, initial state
[x, y, θ, φ1, φ2, φ3, v1, v2] = [0, 0, 0, 0.1, −0.2, 0.1, 0, 0, 0, 0, 0]. The header names v1, v2 but
the row has 11 numbers = n + 2 = dim q for n = 9: it is q0 with φ = (0.1, −0.2, 0.1, 0, 0, 0, 0, 0);
the pseudo-velocities are not given.

**J is not in Table 1**; it is in the text, twice: §4.6 "考虑到电机安装在关节处, 所以假设每个模块的
转动惯量为 J = ml²" (motors at the joints) and §5.2 "为了计算的方便我们假设平面转动惯量为 J = ml²"
(for convenience of computation). J = m l² = 8.0e-4 kg·m² (a uniform rod would be m l²/3). The
convenience is real: with J = m l² the head-velocity basis of the distribution is orthogonal in the
kinetic-energy metric and every joint point moves at the head's speed, which is what makes the closed
forms of eqs. 15–17 true (proof in guo2015_wheeled). Other J are accepted (the E–L model and the
numerical construction work for any J); the closed forms refuse them.

Initial velocity (our choice): **rest**, v(0) = (0, 0). The header of Table 1 lists v1, v2 among the
initial state and every trailing number of its row is 0; a robot on the ground starts at rest, and so
will the engine run that this model is checked against, so both start alike. It also gives the PFL a
non-trivial transient (the head must accelerate from rest onto ṙ_ref(0) = (−0.1, π/60) m/s); starting
on ṙ_ref(0) instead would make the tracking error identically zero under exact PFL.

The reference (§5.3): r_ref(t) = (−0.1 t, 0.2 sin(π t / 12)) m, period 24 s in y.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lab.core.fields import Validated, count, info, num, vector

# Table 1 (and §5.3 for the reference), verbatim.
PAPER = dict(n=9, m=0.5, l=0.04, k_p=1.0, k_d=10.0, ref_vx=-0.1, ref_amp=0.2, ref_period=24.0,
             q0=(0.0, 0.0, 0.0, 0.1, -0.2, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0))


@dataclass(frozen=True)
class Guo2015Params(Validated):
    """The n-module passive-wheel snake and its head-tracking task (Guo 2015, Table 1; SI units).

    ``l`` is **half** a module's length; ``J`` (kg·m², module yaw inertia about its centre) defaults to
    the text's m l² (§§4.6, 5.2; Table 1 omits it). ``phi0`` is padded with zeros to n − 1 joints;
    ``v0`` is the initial pseudo-velocity (√(n m) × head velocity, §5.2), default rest (see the module
    docstring for why). The reference is r_ref(t) = (ref_vx t, ref_amp sin(2π t / ref_period)).
    ``u_max`` (N·m) optionally saturates every joint torque of the PFL law; None (the paper) = no limit.
    """

    n: int = count(PAPER["n"], 2, 10_000, doc="modules, numbered from the head")
    m: float = num(PAPER["m"], gt=0, unit="kg", doc="module mass")
    l: float = num(PAPER["l"], gt=0, unit="m", doc="half a module's length")
    J: float = num(float("nan"), gt=0, unit="kg·m²", doc="module yaw inertia (default m l²)")
    k_p: float = num(PAPER["k_p"], ge=0, doc="PFL position gain")
    k_d: float = num(PAPER["k_d"], ge=0, doc="PFL rate gain")
    ref_vx: float = info(PAPER["ref_vx"], unit="m/s", doc="reference speed along x")
    ref_amp: float = info(PAPER["ref_amp"], unit="m", doc="reference amplitude in y")
    ref_period: float = num(PAPER["ref_period"], gt=0, unit="s", doc="reference period in y")
    xy0: tuple[float, float] = vector((0.0, 0.0), length=2, unit="m", doc="initial head point")
    theta0: float = info(0.0, unit="rad", doc="initial head-module angle")
    phi0: tuple[float, ...] = (0.1, -0.2, 0.1)
    v0: tuple[float, float] = vector((0.0, 0.0), length=2, doc="initial pseudo-velocity")
    u_max: float | None = num(None, gt=0, unit="N·m", doc="joint torque saturation (None: none, the paper)")
    source: str = field(default="paper", compare=False)

    def __post_init__(self):
        super().__post_init__()
        if math.isnan(self.J):
            object.__setattr__(self, "J", self.m * self.l**2)
        phi = tuple(float(p) for p in self.phi0)
        if len(phi) > self.n - 1:
            raise ValueError(f"phi0: at most n − 1 = {self.n - 1} joint angles, got {len(phi)}")
        object.__setattr__(self, "phi0", phi + (0.0,) * (self.n - 1 - len(phi)))
        for name in ("xy0", "v0"):
            object.__setattr__(self, name, tuple(float(x) for x in getattr(self, name)))

    @property
    def sqrt_nm(self) -> float:
        """√(n m): pseudo-velocity per unit head speed (§5.2: v = √(9m) V_head)."""
        return math.sqrt(self.n * self.m)

    @property
    def closed_form_valid(self) -> bool:
        """The closed forms of eqs. 15–17 hold only for J = m l² (see the module docstring)."""
        return math.isclose(self.J, self.m * self.l**2, rel_tol=1e-12)

    def q0(self) -> np.ndarray:
        """Initial configuration (x, y, θ, φ_1 … φ_{n−1}); Table 1's for the defaults."""
        return np.array([*self.xy0, self.theta0, *self.phi0])

    def y0(self) -> np.ndarray:
        """Initial state of the unified model, (q, v)."""
        return np.concatenate([self.q0(), self.v0])

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(r_ref, ṙ_ref, r̈_ref) at time t (§5.3), world frame, m, m/s, m/s²."""
        w = 2.0 * math.pi / self.ref_period
        s, c = math.sin(w * t), math.cos(w * t)
        return (np.array([self.ref_vx * t, self.ref_amp * s]),
                np.array([self.ref_vx, self.ref_amp * w * c]),
                np.array([0.0, -self.ref_amp * w * w * s]))


def table1_q0() -> np.ndarray:
    """Table 1's initial row as printed (11 numbers: q0 for n = 9)."""
    return np.array(PAPER["q0"], dtype=float)


__all__ = ["Guo2015Params", "PAPER", "table1_q0"]
