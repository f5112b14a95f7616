"""Parameters of the unified locomotion/manipulation model of Wang et al. 2011 (Table D1),
and the mapping between the paper's numbering and the lab's snake.

Pure numpy (no engine). :class:`Wang2011Params` is shared by the model
(:mod:`lab.papers.wang2011_unified.model`), its study (:mod:`lab.papers.wang2011_unified.slip_study`) and, later, the
engine comparison.

The paper's numbering (§2.2, Fig 1)
-----------------------------------
Coordinates x = [x¹ … xⁿ]: x¹, x² are two virtual prismatic joints (world X, Y), x³ a virtual
revolute joint (about Z), x⁴ … xⁿ the real revolute joints. Units U1, U2 are virtual (zero length,
no mass); U3 … Un are the real modules, so n′ = n − 2 real modules (Table D1's note) — with n′ = 5,
n = 7 coordinates and 4 real joints x⁴ … x⁷. Joint J_i sits at the rear end of module U_i: the twists
ξ_i = [0, 0, 1, 0, −Σ_{k=3}^{i−1} L_k, 0]ᵀ (ordered (ω; v), v = −ω × p) put J_i on the X axis at
p = Σ_{k=3}^{i−1} L_k, and J3 — the tail end of U3 — at the origin. Module frames sit at the
geometric centres (= COMs, assumption 5 of §5), each with its x axis along the module towards the
head. Hence

* (x¹, x²) is the position of the **tail end point** of the tail module U3 (joint J3), not its COM;
* x³ is the **absolute** yaw of the tail module;
* x^i (i ≥ 4) is the yaw of U_i relative to U_{i−1}, right-handed about +Z.

L is the FULL module length (joint to joint): the twists space the joints by L_k, and Table A1
(the ½ m_k L_k terms in M13, M23, the ¼ m_k L_k² in M33) and Table C1 (½ L_i) put each COM at L/2
from its rear joint. (Guo 2015 quotes a half length l = 0.04 m for the same 0.08 m module.)

The lab's snake (lab.robots.urdf.planar_chain_urdf)
---------------------------------------------------
Link 0 = tail = URDF base, link k = module U_{k+3}; joint j (0-based) joins link j to link j+1 at
the parent's front end, angle = child yaw − parent yaw about +Z; x axes towards the head. So

    q_j = x^{j+4},  q̇_j = ẋ^{j+4},  τ_j(lab) = τ_{j+4}(paper)      (same index order, same sign)
    link-0 COM p_W = (x¹, x²) + (L/2)(cos x³, sin x³),  link-0 yaw = x³

:func:`paper_base_from_lab` and :func:`lab_base_from_paper` convert the base (with velocities and
accelerations, the COM offset rotating with x³), :func:`q_from_x`/:func:`x_from_q` the joints.

The gait's phase: the paper's serpenoid x^i = α sin(ωt + (i−3)β) + γ gives lab joint j the phase
(j+1)β; the lab's :class:`~lab.controllers.serpenoid.Serpenoid` uses jβ. The two agree if the lab
controller's clock runs ahead by β/ω (:meth:`Wang2011Params.lab_controller_time_shift`), i.e. the
paper's gait at time t is the lab reference at t + β/ω.

Table D1 and what it leaves open
--------------------------------
n′ = 5, L = 0.08 m, m = 0.5 kg, I = 0.016 kg·m², α = 0.4 rad, ω = 1 rad/s, β = 0.5π, γ = 0,
μ_t = 0.01, μ_n = 0.5. Not given: g (9.81 m/s²), the initial base state (we start the tail at the
origin, x³ = 0, base at rest; the joints start on the gait with its rates), the sign regularisation of
Coulomb's law (the lab's tanh(v/v_s); ``v_s`` is a parameter), and which modules carry a wheel:
assumption 4 of §5 puts a passive wheel mid-link on every module and eq. 20 sums over all of them,
so unlike Wang 2011's passive creeping the head is not exempt (``head_exempt = False``; the lab's
:class:`~lab.forces.friction.AnisotropicCoulomb` defaults to True — set it False for this paper).

The inertia: Table D1's I = 0.016 kg·m² does not fit the module
----------------------------------------------------------------
A uniform 0.08 m, 0.5 kg module has a yaw inertia about its COM of m L²/12 = 2.67e-4 kg·m² as a thin
rod, 2.74e-4 kg·m² as the lab's solid cylinder of radius 7.5 mm (m(3r² + L²)/12), which is also
the passive-creeping paper's Table 1 value I = 2.7e-4 kg·m² for the same module (0.08 m, 0.5 kg). The paper's 0.016 is
60× that: a 0.08 m, 0.5 kg box would need to be 0.61 m wide, a cylinder 0.36 m in radius. It happens
to equal n′ m L² = 5·0.5·0.08² (and m L α), but nothing in the text supports either reading. The
reproduction uses the paper's value (:attr:`Wang2011Params.I`); :data:`INERTIA_CHECK` holds the
numbers and :meth:`Wang2011Params.with_geometric_inertia` gives the geometric alternative.
It matters little: the joint torques are set by friction, not inertia (the gait's yaw accelerations
are ~αω² = 0.4 rad/s², so I θ̈ ~ 6e-3 N·m against friction torques of 0.05–1.4 N·m). Over two periods
the geometric I changes the model's mean |τ| by < 1 % (manipulation) and up to 26 % on the outer joints
at v_s = 1e-3 m/s, ≤ 1 % at 1e-7 (locomotion); :mod:`lab.papers.wang2011_unified.slip_study` prints both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from lab.core.fields import Validated, count, num

# Table D1, verbatim (n′ = n − 2 real modules).
TABLE_D1 = dict(n_modules=5, L=0.08, m=0.5, I=0.016, alpha=0.4, omega=1.0, beta=0.5 * math.pi, gamma=0.0,
                mu_t=0.01, mu_n=0.5)
G = 9.81
LAB_SNAKE_RADIUS = 0.0075  # lab.robots.snake.SnakeSpec's default radius (chosen there to match Wang 2011's passive creeping)


def _inertia_check() -> dict[str, float]:
    m, L, I = TABLE_D1["m"], TABLE_D1["L"], TABLE_D1["I"]
    r = LAB_SNAKE_RADIUS
    return {
        "paper_I": I,
        "thin_rod_mL2_12": m * L * L / 12.0,
        "lab_cylinder_r7.5mm": m * (3 * r * r + L * L) / 12.0,
        "wang2011_creeping_table1_I": 2.7e-4,
        "ratio_paper_to_rod": I / (m * L * L / 12.0),
        "box_width_needed_m": math.sqrt(12 * I / m - L * L),
        "cylinder_radius_needed_m": math.sqrt((12 * I / m - L * L) / 3.0),
        "n_modules_m_L2": TABLE_D1["n_modules"] * m * L * L,
    }


INERTIA_CHECK = _inertia_check()
"""The yaw inertia of Table D1 against the module's geometry (values in kg·m² and m)."""


@dataclass(frozen=True)
class Wang2011Params(Validated):
    """Physical, gait and friction parameters (Wang 2011, Table D1; SI units).

    ``L`` is the full module length (joint to joint), ``I`` the yaw inertia of a module about its
    COM. Gait (§5): x^i(t) = α sin(ωt + (i−3)β) + γ, i = 4 … n. Friction (§5, the lab's law of
    :mod:`lab.forces.friction`): each module's COM feels f = −m g (μ_t tanh(v_t/v_s) t + μ_n tanh(v_n/v_s) n),
    t the module's x axis, n = Ẑ × t. ``v_s`` (m/s) is the slip speed of the regularisation — not
    in the paper, whose law is the bare sign function (v_s → 0). Default 1e-3 m/s, a slip speed the
    engine can run (its AnisotropicCoulomb accepts slip_tol ≥ 1e-5 and needs dt < 2 v_s/(μ_n g),
    0.4 ms here); the locomotion torques reach the Coulomb limit only below ~1e-6 m/s (5–8× the
    1e-3 values; :mod:`lab.papers.wang2011_unified.slip_study`), the manipulation torques are the same at any v_s.
    """

    n_modules: int = count(TABLE_D1["n_modules"], 2, 50, doc="modules")
    L: float = num(TABLE_D1["L"], gt=0, unit="m", doc="module length, joint to joint")
    m: float = num(TABLE_D1["m"], gt=0, unit="kg", doc="module mass")
    I: float = num(TABLE_D1["I"], gt=0, unit="kg·m²", doc="module yaw inertia about its COM")
    alpha: float = num(TABLE_D1["alpha"], ge=0, le=math.pi, unit="rad", doc="gait amplitude α")
    omega: float = num(TABLE_D1["omega"], ge=0, le=100, unit="rad/s", doc="gait frequency ω")
    beta: float = num(TABLE_D1["beta"], ge=-2 * math.pi, le=2 * math.pi, unit="rad", doc="gait phase lag β")
    gamma: float = num(TABLE_D1["gamma"], ge=-1, le=1, unit="rad", doc="gait offset γ")
    mu_t: float = num(TABLE_D1["mu_t"], ge=0, le=5, doc="tangential Coulomb coefficient")
    mu_n: float = num(TABLE_D1["mu_n"], ge=0, le=5, doc="normal Coulomb coefficient")
    g: float = num(G, ge=0, le=100, unit="m/s²", doc="gravity")
    v_s: float = num(1e-3, ge=1e-9, le=1, unit="m/s", doc="slip speed of the sign's regularisation")
    head_exempt: bool = False
    source: str = field(default="paper", compare=False)

    # ------------------------------------------------------------------ sizes
    @property
    def n(self) -> int:
        """The paper's n: number of coordinates (3 virtual + n_modules − 1 real joints)."""
        return self.n_modules + 2

    @property
    def n_joints(self) -> int:
        return self.n_modules - 1

    @property
    def period(self) -> float:
        """Gait period 2π/ω (s)."""
        return 2.0 * math.pi / self.omega

    @property
    def weight(self) -> float:
        """Normal load of one module's wheel, m g (N): the plane is horizontal (§3, §5 assumption 1)."""
        return self.m * self.g

    # ------------------------------------------------------------------ gait
    def gait(self, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, ẋ, ẍ) of the real joints x⁴ … xⁿ at time(s) t, the serpenoid of §5 with its exact
        derivatives. Shapes (n_joints,) for scalar t, (len(t), n_joints) for an array."""
        t = np.asarray(t, dtype=float)
        k = np.arange(1, self.n_joints + 1)  # i − 3 for i = 4 … n
        ph = self.omega * t[..., None] + k * self.beta
        s, c = np.sin(ph), np.cos(ph)
        a, w = self.alpha, self.omega
        return a * s + self.gamma, a * w * c, -a * w * w * s

    def lab_controller_time_shift(self) -> float:
        """β/ω: lab Serpenoid reference at t + β/ω = the paper's gait at t (module docstring)."""
        return self.beta / self.omega

    # ------------------------------------------------------------------ variants
    def with_geometric_inertia(self, radius: float = LAB_SNAKE_RADIUS) -> "Wang2011Params":
        """The same module with the yaw inertia of a solid cylinder of ``radius`` (the lab's snake),
        m(3r² + L²)/12 instead of Table D1's 0.016 kg·m²."""
        return replace(self, I=self.m * (3 * radius * radius + self.L * self.L) / 12.0, source="geometry")

    @classmethod
    def from_spec(cls, spec, **overrides) -> "Wang2011Params":
        """n_modules, L, m and the yaw inertia from a :class:`~lab.robots.snake.SnakeSpec`'s geometry
        (what the engine simulates), everything else from Table D1."""
        mp = spec.mass_props()
        kw = dict(n_modules=int(spec.n_modules), L=float(spec.module_length), m=float(mp.mass),
                  I=float(np.asarray(mp.inertia)[2, 2]), source="spec")
        kw.update(overrides)
        return cls(**kw)


# ---------------------------------------------------------------------- paper ↔ lab conventions


def q_from_x(x_joints) -> np.ndarray:
    """Lab joint angles q_j from the paper's x^{j+4}: identical (same order tail → head, same sign)."""
    return np.array(x_joints, dtype=float)


def x_from_q(q) -> np.ndarray:
    """Paper joint coordinates x⁴ … xⁿ from lab joint angles (identity, see the module docstring)."""
    return np.array(q, dtype=float)


def tau_lab_from_paper(tau_paper) -> np.ndarray:
    """Lab joint torques from the paper's τ⁴ … τⁿ: identical (same coordinates, same power)."""
    return np.array(tau_paper, dtype=float)


def paper_base_from_lab(L: float, p_W, yaw, v_W=None, yawd=None, a_W=None, yawdd=None):
    """(x¹, x², x³) and, when given, their first and second derivatives from the lab's tail link.

    ``p_W`` (…, 2 or 3) is link 0's COM in the world (only x, y are used), ``yaw`` its yaw; ``v_W``,
    ``a_W`` the COM's velocity and acceleration, ``yawd``, ``yawdd`` the yaw rate and acceleration.
    The paper's base point is the tail end: b = p − (L/2) e(x³), e = (cos, sin), so
    ḃ = v − (L/2) ẋ³ e⊥ and b̈ = a − (L/2)(ẍ³ e⊥ − (ẋ³)² e), e⊥ = (−sin, cos).
    Returns (x_base, xd_base, xdd_base), each (…, 3) or None when its inputs are missing.
    """
    p = np.asarray(p_W, dtype=float)[..., :2]
    th = np.asarray(yaw, dtype=float)
    e = np.stack([np.cos(th), np.sin(th)], -1)
    ep = np.stack([-np.sin(th), np.cos(th)], -1)
    h = 0.5 * L
    xb = np.concatenate([p - h * e, th[..., None]], -1)
    xdb = xddb = None
    if v_W is not None and yawd is not None:
        w = np.asarray(yawd, dtype=float)
        v = np.asarray(v_W, dtype=float)[..., :2]
        xdb = np.concatenate([v - h * w[..., None] * ep, w[..., None]], -1)
        if a_W is not None and yawdd is not None:
            al = np.asarray(yawdd, dtype=float)
            a = np.asarray(a_W, dtype=float)[..., :2]
            xddb = np.concatenate([a - h * (al[..., None] * ep - (w * w)[..., None] * e), al[..., None]], -1)
    return xb, xdb, xddb


def lab_base_from_paper(L: float, x_base, xd_base=None, xdd_base=None):
    """Inverse of :func:`paper_base_from_lab`: (p_W (…, 2), yaw, v_W, yawd, a_W, yawdd) of link 0's
    COM from the paper's (x¹, x², x³) and derivatives (None where not given)."""
    xb = np.asarray(x_base, dtype=float)
    th = xb[..., 2]
    e = np.stack([np.cos(th), np.sin(th)], -1)
    ep = np.stack([-np.sin(th), np.cos(th)], -1)
    h = 0.5 * L
    p = xb[..., :2] + h * e
    v = w = a = al = None
    if xd_base is not None:
        xd = np.asarray(xd_base, dtype=float)
        w = xd[..., 2]
        v = xd[..., :2] + h * w[..., None] * ep
        if xdd_base is not None:
            xdd = np.asarray(xdd_base, dtype=float)
            al = xdd[..., 2]
            a = xdd[..., :2] + h * (al[..., None] * ep - (w * w)[..., None] * e)
    return p, th, v, w, a, al


__all__ = ["Wang2011Params", "TABLE_D1", "INERTIA_CHECK", "G", "q_from_x", "x_from_q", "tau_lab_from_paper",
           "paper_base_from_lab", "lab_base_from_paper"]
