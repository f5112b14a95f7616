"""Parameters of the underwater eel robot of Zhang et al. 2018 (§4.2), and the chain matrices.

Everything here is pure numpy (no engine). :class:`EelParams` is the one parameter set shared by the
exact model (:mod:`lab.papers.zhang2018_eel.model.exact`), the non-inertial model (:mod:`lab.papers.zhang2018_eel.model.noninertial`),
the feedback-linearising controller and the engine's hydrodynamics law.

Conventions (the paper's, used inside the models)
-------------------------------------------------
Links are numbered 1 … n from the **tail** (link 1) to the **head** (link n), as in Liljebäck/Kelasidi:
the chain constraint D X + l A cos θ = 0 puts link i+1 ahead of link i along the links' x axes.
``l`` is **half** a link's length (Table 1). Joint angles are φ_i = θ_i − θ_{i+1}, i = 1 … n−1
(so D θ = φ), and the input u_i acts on φ_i (generalised force D^T u on the link angles).

The lab's engine convention (:func:`lab.robots.urdf.planar_chain_urdf`) numbers links 0 … n−1 from the
tail and measures joint j as the child's yaw relative to the parent, q_j = θ_{j+2} − θ_{j+1} in the
paper's 1-based numbering. Hence, index for index,

    q_j = −φ_{j+1},   q̇_j = −φ̇_{j+1},   τ_j (engine joint torque) = −u_{j+1}

(the same power: u·φ̇ = τ·q̇). :func:`phi_from_q` and :func:`tau_from_u` are the only places this
mapping is written; ``tests/papers/zhang2018_eel/test_eel_models.py`` and ``tests/library/test_hydrodynamics.py`` check it (the
latter against the engine's URDF geometry).

Where the paper's formulas and numbers disagree (§3.1 vs §4.2)
--------------------------------------------------------------
The lab uses §4.2's numbers. The printed formulas give, with ρ = 1000 kg/m³, R = 0.0375 m
and l = 0.0626 m (values in :data:`DISCREPANCIES`, reproduced by :func:`formula_values`):

* c_n: printed c_n = 2πρC_D R l = 29.5 N·s/m; the number 9.3750 is exactly ½ρC_D(2R)(2l) with
  l = 0.0625 (Kelasidi et al. 2014's form for a circular section): the printed formula has a stray π.
* c_t: printed πρC_f R l = 0.2212 (l = 0.0626); the number 0.2209 is the same formula with l = 0.0625.
* u_n: printed ½πρC_a R² L = 0.2766 (L = 2l); the number 0.5522 is ρπR²(2l)C_a with l = 0.0625, i.e.
  the displaced mass of a link (the classical 2-D added mass of a circle): the printed ½ does not belong.
* λ1: printed l² C_M m_a / 3 with m_a = ρπR²2l: 7.1905e-4 with l = 0.0625. Consistent; it is also the
  yaw moment of the normal added mass spread along the link, u_n (2l)²/12.
* λ2: printed 2πρC_D R l⁴/3 = 2.41e-3, and dimensionally a quadratic-drag coefficient (kg·m²), not a
  linear one (kg·m²/s). The number 0.0015 agrees to its two digits with c_n l²/24 = 1.53e-3, half the
  linear drag torque coefficient c_n L²/12 of a rod of length L = l (not 2l) turning about its centre;
  we found no expression that gives 0.0015 exactly, nor the reason for the ½.
* λ3: printed ½πρC_D R l⁴ = 1.81e-3; the number 7.1526e-5 is exactly c_n l³/32 with l = 0.0625, the
  quadratic drag torque coefficient c_n L³/32 of a rod of length L = l (not 2l) turning about its centre.
* m, J: not given numerically. m = ρπR²(2l) (neutral buoyancy, §1: "浮力重力平衡"), J = m l²/3
  (Table 1, a thin rod). The engine's links are solid cylinders (R = 0.0375 m is not thin against
  2l = 0.1252 m) whose yaw inertia m(3R² + 4l²)/12 is 27 % larger; :meth:`EelParams.from_spec` takes
  m and J from the robot's geometry so that engine and models share one parameter set.

Typos in the model equations themselves are noted where the models are written (eel_exact.py,
eel_noninertial.py, lab/papers/zhang2018_eel/controllers.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from lab.core.fields import Validated, count, num, vector

# Paper §4.2, verbatim.
PAPER = dict(n=9, l=0.0626, R=0.0375, C_M=1.0, C_f=0.03, C_D=2.0, C_a=1.0, lambda1=7.1905e-4, lambda2=0.0015,
             lambda3=7.1526e-5, c_n=9.3750, c_t=0.2209, u_n=0.5522, u_t=0.0, K_p=200.0, K_d=100.0)
RHO_WATER = 1000.0


def formula_values(l: float = PAPER["l"], R: float = PAPER["R"], rho: float = RHO_WATER) -> dict[str, float]:
    """The §3.1 formulas as printed, evaluated (for the discrepancy table)."""
    C_M, C_f, C_D, C_a = PAPER["C_M"], PAPER["C_f"], PAPER["C_D"], PAPER["C_a"]
    m_a = rho * math.pi * R**2 * 2 * l
    return {
        "c_t": math.pi * rho * C_f * R * l,
        "c_n": 2 * math.pi * rho * C_D * R * l,
        "u_n": 0.5 * math.pi * rho * C_a * R**2 * (2 * l),
        "lambda1": l**2 * C_M * m_a / 3,
        "lambda2": 2 * math.pi * rho * C_D * R * l**4 / 3,
        "lambda3": 0.5 * math.pi * rho * C_D * R * l**4,
    }


def reconstructed_values(l: float = 0.0625, R: float = PAPER["R"], rho: float = RHO_WATER) -> dict[str, float]:
    """Expressions that reproduce the §4.2 numbers (found by us, l = 0.0625 m), see the module docstring."""
    c_n = 0.5 * rho * PAPER["C_D"] * (2 * R) * (2 * l)
    return {
        "c_t": math.pi * rho * PAPER["C_f"] * R * l,
        "c_n": c_n,
        "u_n": rho * math.pi * R**2 * (2 * l) * PAPER["C_a"],
        "lambda1": l**2 * PAPER["C_M"] * rho * math.pi * R**2 * 2 * l / 3,
        "lambda2": c_n * l**2 / 24,
        "lambda3": c_n * l**3 / 32,
    }


DISCREPANCIES = {
    # name: (printed formula, expression that reproduces the §4.2 number)
    "c_t": ("π ρ C_f R l", "π ρ C_f R l with l = 0.0625"),
    "c_n": ("2π ρ C_D R l", "½ ρ C_D (2R)(2l), l = 0.0625 (Kelasidi 2014's form)"),
    "u_n": ("½ π ρ C_a R² L", "ρ π R² (2l) C_a, l = 0.0625 (the displaced mass)"),
    "lambda1": ("l² C_M m_a / 3", "same formula with l = 0.0625"),
    "lambda2": ("2π ρ C_D R l⁴ / 3 (units of a quadratic coefficient)", "≈ c_n l²/24, l = 0.0625 (two digits)"),
    "lambda3": ("½ π ρ C_D R l⁴", "c_n l³/32, l = 0.0625"),
}


def discrepancy_rows() -> list[tuple[str, str, float, float, str, float]]:
    """(name, printed formula, its value at l = 0.0626, the §4.2 number, reconstruction, its value)."""
    f, r = formula_values(), reconstructed_values()
    return [(k, DISCREPANCIES[k][0], f[k], PAPER[k], DISCREPANCIES[k][1], r[k]) for k in DISCREPANCIES]


@dataclass(frozen=True)
class EelParams(Validated):
    """Physical parameters of the n-link eel (Zhang 2018 §4.2; SI units; ``l`` is half a link).

    ``m`` (kg) defaults to neutral buoyancy ρπR²·2l, ``J`` (kg·m²) to Table 1's m l²/3.
    Drag: linear ``c_t``, ``c_n`` (N·s/m) and quadratic ``c_t2``, ``c_n2`` (N·s²/m²) in the link frame,
    element-wise (Kelasidi 2014: f = −c v − c₂ |v| v per axis); eq. 22 uses the same numbers for both,
    so ``c_t2``/``c_n2`` default to ``c_t``/``c_n``. Added mass ``u_n`` (kg) along the link normal
    (u_t = 0). Fluid torques τ = −λ1 θ̈ − λ2 θ̇ − λ3 θ̇|θ̇| (eq. 27, with its θ|θ̇| typo read as θ̇|θ̇|).
    ``current`` is a uniform, constant current (m/s, world frame); the paper has none.
    To switch a term off (diagnostics), ``replace`` its coefficient by 0.
    """

    n: int = count(PAPER["n"], 2, 100, doc="links")
    l: float = num(PAPER["l"], gt=0, unit="m", doc="half a link's length")
    R: float = num(PAPER["R"], gt=0, unit="m", doc="link radius")
    rho: float = num(RHO_WATER, gt=0, unit="kg/m³", doc="density of the water")
    m: float = num(float("nan"), gt=0, unit="kg", doc="link mass (default ρπR²·2l)")
    J: float = num(float("nan"), gt=0, unit="kg·m²", doc="link yaw inertia (default m l²/3)")
    c_t: float = num(PAPER["c_t"], ge=0, unit="N·s/m", doc="linear drag along the link")
    c_n: float = num(PAPER["c_n"], ge=0, unit="N·s/m", doc="linear drag across the link")
    c_t2: float = num(float("nan"), ge=0, unit="N·s²/m²", doc="quadratic drag along (default c_t)")
    c_n2: float = num(float("nan"), ge=0, unit="N·s²/m²", doc="quadratic drag across (default c_n)")
    u_n: float = num(PAPER["u_n"], ge=0, unit="kg", doc="normal added mass")
    lambda1: float = num(PAPER["lambda1"], ge=0, unit="kg·m²", doc="added yaw inertia λ1")
    lambda2: float = num(PAPER["lambda2"], ge=0, unit="N·m·s", doc="linear fluid torque λ2")
    lambda3: float = num(PAPER["lambda3"], ge=0, unit="N·m·s²", doc="quadratic fluid torque λ3")
    current: tuple[float, float] = vector((0.0, 0.0), length=2, names="[V_x, V_y]", unit="m/s", doc="uniform current")
    source: str = field(default="paper", compare=False)

    def __post_init__(self):
        super().__post_init__()
        if math.isnan(self.m):
            object.__setattr__(self, "m", self.rho * math.pi * self.R**2 * 2 * self.l)
        if math.isnan(self.J):
            object.__setattr__(self, "J", self.m * self.l**2 / 3)
        if math.isnan(self.c_t2):
            object.__setattr__(self, "c_t2", self.c_t)
        if math.isnan(self.c_n2):
            object.__setattr__(self, "c_n2", self.c_n)
        object.__setattr__(self, "current", tuple(float(c) for c in self.current))

    @classmethod
    def from_spec(cls, spec, **overrides) -> "EelParams":
        """n, l, R, m and the yaw inertia J from an :class:`~lab.robots.eel.EelSpec`'s geometry (the
        engine's values; the spec's added mass, if folded into its URDF, is *not* counted in m, J)."""
        mp = spec.dry_mass_props() if hasattr(spec, "dry_mass_props") else spec.mass_props()
        kw = dict(n=spec.n_links, l=spec.half_length, R=spec.radius, rho=spec.density, m=float(mp.mass),
                  J=float(mp.inertia[2, 2]), source="spec")
        kw.update(overrides)
        return cls(**kw)

    def without(self, *terms: str) -> "EelParams":
        """A copy with hydrodynamic terms switched off: 'linear', 'quadratic', 'added_mass',
        'added_inertia', 'torque_linear', 'torque_quadratic'."""
        table = {"linear": ("c_t", "c_n"), "quadratic": ("c_t2", "c_n2"), "added_mass": ("u_n",),
                 "added_inertia": ("lambda1",), "torque_linear": ("lambda2",), "torque_quadratic": ("lambda3",)}
        kw = {}
        for t in terms:
            if t not in table:
                raise ValueError(f"term: unknown {t!r}; allowed: {', '.join(table)}")
            kw.update({k: 0.0 for k in table[t]})
        return replace(self, **kw)

    def only(self, *terms: str) -> "EelParams":
        """A copy keeping only the named hydrodynamic terms (see :meth:`without`)."""
        all_terms = ("linear", "quadratic", "added_mass", "added_inertia", "torque_linear", "torque_quadratic")
        return self.without(*[t for t in all_terms if t not in terms])

    @property
    def mats(self) -> "ChainMatrices":
        return chain_matrices(self.n)


class ChainMatrices(NamedTuple):
    """The constant matrices of eq. 1 for an n-link chain (Liljebäck's notation)."""

    A: np.ndarray  # (n−1, n): [I, 0] + [0, I]
    D: np.ndarray  # (n−1, n): [I, 0] − [0, I]
    e: np.ndarray  # (n,) ones
    K: np.ndarray  # (n, n): A^T (D D^T)^{-1} D
    V: np.ndarray  # (n, n): A^T (D D^T)^{-1} A
    W_c: np.ndarray  # (n, n): [D; e^T/n]^{-1}, θ = W_c [φ; θ0]
    B_m: np.ndarray  # (n, n−1): first n−1 columns of W_c, Φ = θ − e θ0 = B_m φ
    KT: np.ndarray  # K^T


@lru_cache(maxsize=32)
def chain_matrices(n: int) -> ChainMatrices:
    I = np.eye(n - 1)
    Z = np.zeros((n - 1, 1))
    A = np.hstack([I, Z]) + np.hstack([Z, I])
    D = np.hstack([I, Z]) - np.hstack([Z, I])
    e = np.ones(n)
    DDt_inv = np.linalg.inv(D @ D.T)
    K = A.T @ DDt_inv @ D
    V = A.T @ DDt_inv @ A
    W_c = np.linalg.inv(np.vstack([D, e[None, :] / n]))
    for arr in (A, D, e, K, V, W_c):
        arr.setflags(write=False)
    KT = np.ascontiguousarray(K.T)
    KT.setflags(write=False)
    B_m = np.ascontiguousarray(W_c[:, : n - 1])
    B_m.setflags(write=False)
    return ChainMatrices(A=A, D=D, e=e, K=K, V=V, W_c=W_c, B_m=B_m, KT=KT)


# ------------------------------------------------------------------ convention mapping (paper ↔ engine)


def phi_from_q(q: np.ndarray) -> np.ndarray:
    """Paper joint angles φ (tail joint first) from the engine's joint angles q: φ = −q."""
    return -np.asarray(q, dtype=float)


def tau_from_u(u: np.ndarray) -> np.ndarray:
    """Engine joint torques τ from the paper's joint inputs u (same power u·φ̇ = τ·q̇): τ = −u."""
    return -np.asarray(u, dtype=float)


def link_angles(phi: np.ndarray, theta0: float, n: int) -> np.ndarray:
    """θ = W_c [φ; θ0] (eq. 1): absolute link angles, tail first."""
    W = chain_matrices(n).W_c
    return W[:, :-1] @ phi + W[:, -1] * theta0


def link_positions(theta: np.ndarray, p: np.ndarray, l: float) -> tuple[np.ndarray, np.ndarray]:
    """Link COMs from the angles and the CM: X = −l K^T cos θ + e p_x, Y = −l K^T sin θ + e p_y."""
    KT = chain_matrices(len(theta)).KT
    return -l * KT @ np.cos(theta) + p[0], -l * KT @ np.sin(theta) + p[1]


__all__ = ["EelParams", "ChainMatrices", "chain_matrices", "PAPER", "DISCREPANCIES", "discrepancy_rows",
           "formula_values",
           "reconstructed_values", "phi_from_q", "tau_from_u", "link_angles", "link_positions"]
