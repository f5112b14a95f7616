"""Head-tracking partial feedback linearisation of the passive-wheel snake (Guo 2015,
eqs. 19, 23, 24) for the engine's wheeled snake (lab.robots.wheeled_snake).

Each step the controller reads the paper's state from the snapshot — the configuration
q = (x, y, θ, φ_1 … φ_{n−1}) and the head velocity ṙ = (ẋ, ẏ) — evaluates the drift f and the input
map g of the model (lab.papers.guo2015_wheeled.model) *at that state* and returns

    u = g⁺(√(n m) ũ − f),   ũ = r̈_ref + k_d (ṙ_ref − ṙ) + k_p (r_ref − r)   (eqs. 23, 24),

g⁺ the Moore–Penrose pseudo-inverse: on the model this makes the head's acceleration r̈ = ũ (the
√(n m) is the paper's v = √(n m) ṙ, §5.2; printed without it, eq. 23 linearises the pseudo-velocity
instead, slip 7 in guo2015_wheeled.SLIPS). The torques are clipped at the robot's effort.

Mapping the engine to the paper (tested against the engine in tests/papers/guo2015_wheeled/test_guo2015_engine.py)
-------------------------------------------------------------------------------------------
The lab's chain runs from the tail: module link L = 0 … n−1 (``link_L``), each link's x axis towards
the head, yaw joint j between links j and j+1 with angle = child yaw − parent yaw. The paper numbers
modules from the head (module k = 1 … n is link n − k) and measures θ_k along the module's axis
*tailward*, so
    θ_k = yaw_{n−k} + π,   φ_k = θ_{k+1} − θ_k = yaw_{n−k−1} − yaw_{n−k} = −(relative yaw of joint n−1−k),
and a torque u_k, doing work u_k φ̇_k, is τ_{n−1−k} = −u_k on the lab's joint: **τ = −u reversed**.
φ comes from the link yaws, not from the joint readings (a robot built in a bent ``zero_shape``
reads its joints relative to that shape). (x, y) is the head module's free front end:
r = C_head + l x̂_head and ṙ = v_head + l ω_z ẑ × x̂_head (the head_tip link sits exactly there).

m and l come from the loaded robot (a module's body and wheels; half the joint spacing); J is the
paper's m l² unless ``yaw_inertia`` says otherwise (the ``model = "el"`` law handles any J; the
closed-form ``"unified"`` one needs m l²).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from lab.core.fields import Validated, choice, num
from lab.papers.guo2015_wheeled import model as gw
from lab.papers.guo2015_wheeled.params import PAPER, Guo2015Params
from lab.robots.wheeled_snake import Layout, lateral_slip
from lab.core.state import ModelInfo, RobotState
from lab.controllers.base import Controller, register_controller

ERR_RGB = (0.85, 0.1, 0.1)


@dataclass(frozen=True)
class HeadTrackingPFLParams(Validated):
    """Table 1's gains and §5.3's reference r_ref(t) = (ref_vx t, ref_amp sin(2π t / ref_period))."""

    k_p: float = num(PAPER["k_p"], ge=0, le=1e4, unit="1/s²", doc="position gain (Table 1)")
    k_d: float = num(PAPER["k_d"], ge=0, le=1e4, unit="1/s", doc="rate gain (Table 1)")
    ref_vx: float = num(PAPER["ref_vx"], ge=-10, le=10, unit="m/s", doc="reference speed along x (§5.3)")
    ref_amp: float = num(PAPER["ref_amp"], ge=-10, le=10, unit="m", doc="reference amplitude in y (§5.3)")
    ref_period: float = num(PAPER["ref_period"], gt=0, le=1e4, unit="s", doc="reference period in y (§5.3)")
    model: Literal["unified", "el"] = choice(
        "unified", doc="f and g from the closed-form unified model (needs J = m l²) or the E–L null-space form (any J)")
    yaw_inertia: float | None = num(None, gt=0, le=10, unit="kg·m²",
                                    doc="module J the law assumes (unset: m l², the paper's text)")


def wrap(a):
    """Angle(s) wrapped to (−π, π]."""
    return np.pi - np.mod(np.pi - np.asarray(a, dtype=float), 2.0 * np.pi)


def paper_state(state: RobotState, layout: Layout, l: float) -> tuple[np.ndarray, np.ndarray]:
    """(q, ṙ) in the paper's coordinates from the snapshot (see the module docstring)."""
    yaw = state.yaw[layout.modules]  # tail → head
    theta = yaw[::-1] + np.pi  # paper modules 1 … n (head first), axes pointing tailward
    h = layout.modules[-1]
    c, s = math.cos(yaw[-1]), math.sin(yaw[-1])
    r = state.p_W[h, :2] + l * np.array([c, s])
    wz = float(state.w_W[h, 2])
    r_dot = state.v_W[h, :2] + l * wz * np.array([-s, c])
    q = np.concatenate((r, [float(wrap(theta[0]))], wrap(np.diff(theta))))
    return q, r_dot


class UnifiedPFL:
    """:func:`lab.papers.guo2015_wheeled.model.pfl_torque` (``model="unified"``) fused for the step loop: the same
    closed forms (eqs. 15–17, 22 corrected) with one cumulative sum, one sin and one cos, and the 2×2
    g gᵀ inverted in closed form (equal to the reference function to rounding, tested)."""

    def __init__(self, p: Guo2015Params):
        if not p.closed_form_valid:
            raise ValueError(f"yaw_inertia: model 'unified' needs J = m l² = {p.m * p.l**2:.6g} kg·m², got {p.J:.6g}; "
                             "use model = 'el'")
        self.p = p
        n = p.n
        self.sgn = np.where(np.arange(1, n) % 2 == 0, 1.0, -1.0)
        self.k = 1.0 / (p.sqrt_nm * p.l)
        self.w_ab = (2.0 * n - 1.0 - 2.0 * np.arange(n)) / (n * p.sqrt_nm * p.l)
        self._x = np.empty(n)

    def __call__(self, q: np.ndarray, r_dot: np.ndarray, t: float) -> np.ndarray:
        p = self.p
        x = self._x
        x[0] = q[2]
        np.multiply(self.sgn, q[3:], out=x[1:])
        S = np.add.accumulate(x)
        sS, cS = np.sin(S), np.cos(S)
        ks = self.k * self.sgn
        g1 = ks * (sS[:-1] + sS[1:])  # Y row 1 (eq. 17 × 1/(√(nm) l))
        g2 = -ks * (cS[:-1] + cS[1:])  # Y row 2
        r_ref, rd_ref, rdd_ref = p.reference(t)
        ut = rdd_ref + p.k_d * (rd_ref - r_dot) + p.k_p * (r_ref - q[:2])
        v1, v2 = p.sqrt_nm * float(r_dot[0]), p.sqrt_nm * float(r_dot[1])
        turn = float(self.w_ab @ sS) * v1 - float(self.w_ab @ cS) * v2  # a v₁ − b v₂
        b1 = p.sqrt_nm * ut[0] + turn * v2  # √(nm) ũ − f, f = (−turn v₂, turn v₁)
        b2 = p.sqrt_nm * ut[1] - turn * v1
        a11, a12, a22 = float(g1 @ g1), float(g1 @ g2), float(g2 @ g2)
        det = a11 * a22 - a12 * a12
        l1 = (a22 * b1 - a12 * b2) / det
        l2 = (a11 * b2 - a12 * b1) / det
        return g1 * l1 + g2 * l2


def lab_torques(u: np.ndarray) -> np.ndarray:
    """The lab's yaw-joint torques (tail first) from the paper's u (head first): τ = −u reversed."""
    return -np.asarray(u, dtype=float)[::-1]


@register_controller("head_tracking_pfl", params=HeadTrackingPFLParams)
class HeadTrackingPFL(Controller):
    """u = g⁺(√(nm) ũ − f) at the engine's state, clipped at the robot's effort (module docstring).

    It also meters what the paper assumes away, from the same snapshot: each module's lateral velocity
    (eq. 1's n_i · Ċ_i, lab.robots.wheeled_snake.lateral_slip) every step, kept as its mean square per
    ``SLIP_BLOCK_S`` block (``slip_log``), and the head point and reference every block (``log``) for
    the head-tracking trial's metrics and the GUI."""

    SLIP_BLOCK_S = 0.05

    def __init__(self, params: HeadTrackingPFLParams):
        super().__init__(params)
        self.layout: Layout | None = None
        self.p: Guo2015Params | None = None
        self.log: dict[str, list] = {}
        self.slip_log: dict[str, list] = {}

    def reset(self, model: ModelInfo, dt: float) -> None:
        super().reset(model, dt)
        self.layout = lay = Layout.of(model)
        masses = model.mass[lay.modules] + model.mass[lay.wheels].sum(axis=1)
        self.m = float(masses.mean())
        if np.ptp(masses) > 1e-9 * self.m:
            raise ValueError(f"model: the modules' masses differ ({masses.min():.6g}–{masses.max():.6g} kg)")
        self.n = len(lay.modules)
        self.l = 0.5 * model.link_length
        self._set_model()
        self.log = {"t": [], "r": [], "r_ref": []}
        self.slip_log = {"t": [], "ms": [], "max": []}  # block end, per-module mean square, block max |v|
        self._block = max(1, int(round(self.SLIP_BLOCK_S / dt))) if dt > 0 else 1
        self._k = 0
        self._ss = np.zeros(self.n)
        self._smax = 0.0

    @staticmethod
    def reference_of(params: HeadTrackingPFLParams):
        """r_ref(t) → (r, ṙ, r̈) of these parameters (the model's reference, §5.3)."""
        return Guo2015Params(n=2, phi0=(), ref_vx=params.ref_vx, ref_amp=params.ref_amp,
                             ref_period=params.ref_period).reference

    def _set_model(self) -> None:
        pr = self.params
        J = self.m * self.l**2 if pr.yaw_inertia is None else pr.yaw_inertia
        self.p = Guo2015Params(n=self.n, m=self.m, l=self.l, J=J, k_p=pr.k_p, k_d=pr.k_d,
                               ref_vx=pr.ref_vx, ref_amp=pr.ref_amp, ref_period=pr.ref_period, phi0=(),
                               source="engine")
        self._fast = UnifiedPFL(self.p) if pr.model == "unified" else None

    def set_param(self, name: str, value: float) -> None:
        self.params = replace(self.params, **{name: float(value)})
        if self.p is not None:
            self._set_model()

    def paper_u(self, q: np.ndarray, r_dot: np.ndarray, t: float) -> np.ndarray:
        """The paper's joint torques u (n−1,), head joint first, at (q, ṙ, t), unclipped."""
        if self._fast is not None:
            return self._fast(q, r_dot, t)
        return gw.pfl_torque(self.p, q, r_dot, t, model="el")

    def act(self, state: RobotState) -> np.ndarray:
        q, r_dot = paper_state(state, self.layout, self.l)
        u = self.paper_u(q, r_dot, state.t)
        tau = np.zeros(self.model.n_joints)
        tau[self.layout.yaw_joints] = self.saturate(lab_torques(u))
        v = lateral_slip(state, self.layout)
        self._ss += v * v
        self._smax = max(self._smax, float(np.abs(v).max()))
        self._k += 1
        if self._k % self._block == 0:
            self.slip_log["t"].append(state.t)
            self.slip_log["ms"].append(self._ss / self._block)
            self.slip_log["max"].append(self._smax)
            self._ss = np.zeros(self.n)
            self._smax = 0.0
            self.log["t"].append(state.t)
            self.log["r"].append(q[:2].copy())
            self.log["r_ref"].append(self.p.reference(state.t)[0])
        return tau

    def logged(self) -> dict[str, np.ndarray]:
        """The logs as arrays: ``t``, ``r``, ``r_ref`` and ``slip_t``, ``slip_ms`` (blocks × n), ``slip_max``."""
        out = {k: np.asarray(v, float) for k, v in self.log.items()}
        out.update({"slip_t": np.asarray(self.slip_log["t"], float),
                    "slip_ms": np.asarray(self.slip_log["ms"], float).reshape(-1, self.n),
                    "slip_max": np.asarray(self.slip_log["max"], float)})
        return out

    def tunables(self) -> dict[str, tuple[float, float]]:
        return {"k_p": (0.0, 5.0), "k_d": (0.0, 30.0)}

    def gui_overlay(self, state: RobotState):
        """A red line from the head to r_ref(t) and the head error. (The head-tracking trial paints the
        whole reference path on the floor; the GUI's own head trail, on the head_tip link, draws the
        head's path.)"""
        if self.p is None:
            return [], ""
        z = float(state.p_W[self.layout.tip, 2])
        q, _ = paper_state(state, self.layout, self.l)
        ref = self.p.reference(state.t)[0]
        err = float(np.hypot(*(ref - q[:2])))
        return [((*q[:2], z), (*ref, z), ERR_RGB)], f"head error {err * 1e3:.1f} mm"


__all__ = ["HeadTrackingPFL", "HeadTrackingPFLParams", "UnifiedPFL", "lab_torques", "paper_state", "wrap"]
