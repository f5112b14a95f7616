"""The kinematic path of the flip and the climb (Hu 2013 Fig 5, eq. 12), sampled in the arm angle θ.

Phases (Fig 5)
    advance (not modelled: rigid rolling takes no torque), flip — the body rotates about its front
    pulley's centre (in contact with the ground and the riser; the contact forces pass through that
    centre, so they do no work) from its base (ζ = −30°) to its front face against the riser (ζ = 0),
    track stalled, driven by the arm alone; the paper does not analyse it ("受力简单") — climb — the
    paper's closed chain (φ, s, θ), from φ = s = 0 until the robot's COM passes over the edge line
    (it then tips onto the step) — on top (low steps, h ≲ 0.075 m with Table 1) — the edge contact
    has rolled round the front-bottom pulley F until its normal is vertical: F stands on the step top
    at the corner while the COM is still behind the edge (3.0 cm at h = 0.05 m), so the climb is not
    over. The chain becomes F rolling on the top (its centre at h + r; no slip: the centre advances by
    r dφ + ds, belt travel s = (r/i2) θ as in eq. 12) with the guide wheel on the slope, until the COM
    passes the edge or the front face lies flat on the top. The paper does not treat it (its Fig 5
    climb ends over the edge); without it the model's climb of a low step ended with the COM behind
    the edge while the engine's ends with it over.

Every sample is a :class:`PathSample`; :func:`climb_path` stacks them field by field into a
:class:`ClimbPath`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from lab.papers.hu2013_tracked.model.chain import Chain, climb_chain, flip_chain, top_chain
from lab.papers.hu2013_tracked.model.geometry import Perimeter
from lab.papers.hu2013_tracked.model.params import ClimbParams


class PathSample(NamedTuple):
    """One sample of the path (arrays in the step frame S; see :class:`ClimbPath`)."""

    phase: int  # 0 flip / 1 climb / 2 on top
    theta: float  # arm angle θ (rad)
    q: np.ndarray  # (3,) the phase's coordinates padded to (ζ or φ, s, θ); on top (u, φ̃, θ̃)
    dq: np.ndarray  # (3,) dq/dθ
    ddq: np.ndarray  # (3,) d²q/dθ²
    com: np.ndarray  # (3,) robot COM
    wheel: np.ndarray  # (3,) guide-wheel centre
    contact_normal: np.ndarray  # (2,) outward body normal at the edge contact (y, z); NaN in the flip


@dataclass
class ClimbPath:
    """The kinematic path of flip + climb for one (h, l_a), parametrised by the arm angle θ.

    Arrays per sample (flip samples first, then climb, then on top): ``phase`` 0 flip / 1 climb /
    2 on top, ``q`` the phase's own coordinates padded to (ζ or φ, s, θ) — on top (u, φ̃, θ̃) of
    :func:`top_chain`, relative to the landing pose —, ``dq``/``ddq`` = dq/dθ, d²q/dθ². Independent of
    α, β (the closure lives in S); gravity enters only the dynamics and the end condition.
    """

    params: ClimbParams
    h: float
    theta: np.ndarray
    phase: np.ndarray
    q: np.ndarray
    dq: np.ndarray
    ddq: np.ndarray
    com: np.ndarray  # (n, 3) robot COM in S
    wheel: np.ndarray  # (n, 3) guide-wheel centre in S
    contact_normal: np.ndarray  # (n, 2) outward body normal at the edge contact (y, z); NaN in the flip
    end: str  # why the geometric path stops: 'landed' | 'reach' | 'riser' | 'ground' | 'range' | 'riser_face'
    closure_residual: float  # max |f(q)| over the samples
    top: "Chain | None" = None  # the on-top chain (phase 2), if the edge contact rolled onto the top
    top_free: np.ndarray | None = None  # its free direction in (u, φ̃, θ̃): rolling at fixed belt travel

    @property
    def climb(self) -> np.ndarray:
        """The climb window's samples: against the edge and, for low steps, on top."""
        return self.phase >= 1


def _solve_closure(chain: Chain, q: np.ndarray, k_free: int, r_d: float, x0: float,
                   lo: float, hi: float) -> float | None:
    """Solve f(q) = 0 for the free coordinate q[k_free] near x0: :func:`_solve_closure_along` with the
    unit direction of that coordinate (the same arithmetic: q0 + x e_k puts exactly x there)."""
    q0 = np.array(q, dtype=float)
    q0[k_free] = 0.0
    d = np.zeros_like(q0)
    d[k_free] = 1.0
    return _solve_closure_along(chain, q0, d, r_d, x0, lo, hi)


def _solve_closure_along(chain: Chain, q0: np.ndarray, d: np.ndarray, r_d: float, x0: float, lo: float,
                         hi: float) -> float | None:
    """Solve f(q0 + x d) = 0 for x near x0 (Newton on ∇f·d, then bisection on [lo, hi])."""
    x = x0
    for _ in range(30):
        q = q0 + x * d
        f = chain.closure(q, r_d)
        if abs(f) < 1e-13:
            return x
        df = float(chain.closure_gradient(q) @ d)
        if abs(df) < 1e-9:
            break
        step = f / df
        x -= step
        if not lo <= x <= hi:
            break
        if abs(step) < 1e-14:
            return x
    from scipy.optimize import brentq

    def fx(v):
        return chain.closure(q0 + v * d, r_d)

    grid = np.linspace(lo, hi, 41)
    vals = [fx(v) for v in grid]
    best = None
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa == 0:
            cand = a
        elif fa * fb < 0:
            cand = brentq(fx, a, b, xtol=1e-14)
        else:
            continue
        if best is None or abs(cand - x0) < abs(best - x0):
            best = cand
    return best


def climb_path(p: ClimbParams, h: float, dtheta: float = 0.01, max_theta_span: float = 2 * math.pi) -> ClimbPath:
    """Sample the flip and climb of a step of height h (r ≤ h ≤ l + r) every ``dtheta`` of arm angle.

    Flip: ζ from −30° to 0 with the track stalled (s = 0), ζ from the closure.
    Climb: s = (r/i2)(θ − θ_c0) (eq. 12), φ from the closure, until the body's outward normal at the
    edge leaves the corner's normal cone ('riser_face': it would tip back into the riser; past
    vertical: the contact has rolled onto the top — then the on-top phase, :func:`top_chain`, from the
    exact landing pose, until the front face lies flat on the top: 'landed'), the closure has no
    solution ('reach': the arm cannot touch the slope), the guide wheel reaches the riser ('riser'),
    or the body would cut the slope ('ground'). dq/dθ and d²q/dθ² are exact (implicit differentiation
    of the closure, with its Hessian from the Jacobians' Lie-bracket derivatives). Cached per (p, h,
    dtheta).
    """
    return _climb_path(p, float(h), float(dtheta), float(max_theta_span))


@functools.lru_cache(maxsize=512)
def _climb_path(p: ClimbParams, h: float, dtheta: float, max_theta_span: float) -> ClimbPath:
    r, l = p.pulley_radius, p.track_side
    if not r <= h <= l + r:
        raise ValueError(f"h: the flip-and-climb needs r ≤ h ≤ l + r = [{r:g}, {l + r:g}] m, got {h}")
    rd = p.guide_radius
    flip = flip_chain(p)
    climb = climb_chain(p, h)
    perim = Perimeter(l, r)

    th_f0 = _solve_closure(flip, np.array([-math.pi / 6, 0.0]), 1, rd, 0.0, -math.pi / 2, math.pi / 2)
    th_c0 = _solve_closure(flip, np.array([0.0, 0.0]), 1, rd, 0.3, -math.pi / 2, math.pi / 2)
    if th_f0 is None or th_c0 is None:
        raise ValueError(f"arm_length: {p.arm_length} m cannot reach the ground from the pivot")
    rows: list[PathSample] = []

    n_f = max(2, int(math.ceil((th_c0 - th_f0) / dtheta)))
    zeta = -math.pi / 6
    dep_f = np.array([0.0, 1.0])
    for th in np.linspace(th_f0, th_c0, n_f + 1)[:-1]:
        zeta = _solve_closure(flip, np.array([zeta, th]), 0, rd, zeta, -math.pi / 2, math.pi / 2)
        qf = np.array([zeta, th])
        t1, t2 = _path_derivatives(flip, qf, 0, dep_f)
        rows.append(PathSample(phase=0, theta=th, q=np.array([zeta, 0.0, th]), dq=np.array([t1[0], 0.0, 1.0]),
                               ddq=np.array([t2[0], 0.0, 0.0]), com=flip.com(qf), wheel=flip.wheel_centre(qf),
                               contact_normal=np.array([np.nan, np.nan])))

    k = p.sigma_per_theta
    dep = np.array([0.0, k, 1.0])
    end = "range"
    phi = 0.0

    def edge_normal(ph: float, s: float) -> np.ndarray:
        n_B = perim.normal(climb.joints[1].lam0 + s)
        c, s_ = math.cos(-ph), math.sin(-ph)  # R_x(−φ) on (y, z)
        return np.array([c * n_B[0] - s_ * n_B[1], s_ * n_B[0] + c * n_B[1]])

    grid = th_c0 + np.arange(0.0, max_theta_span, dtheta)
    landing = None
    for i_th, th in enumerate(grid):
        s = k * (th - th_c0)
        ph = _solve_closure(climb, np.array([phi, s, th]), 0, rd, phi, -0.3, math.pi)
        if ph is None or abs(ph - phi) > 0.2:
            end = "reach"
            break
        qc = np.array([ph, s, th])
        n_S = edge_normal(ph, s)
        # the body touches the corner from outside only while −n_S is in the corner's normal cone
        # (n_y ≥ 0, n_z ≤ 0)
        if n_S[1] > 1e-9:
            end = "riser_face"
            break
        if n_S[0] < -1e-9:  # the contact has rolled over the corner onto the top: find where exactly
            landing = (i_th, phi)
            break
        phi = ph
        wheel = climb.wheel_centre(qc)
        if wheel[1] > -rd:
            end = "riser"
            break
        if _body_min_height(climb, qc, p) < -1e-9:
            end = "ground"
            break
        t1, t2 = _path_derivatives(climb, qc, 0, dep)
        rows.append(PathSample(phase=1, theta=th, q=qc, dq=t1, ddq=t2, com=climb.com(qc), wheel=wheel,
                               contact_normal=n_S))
    top = d_top = None
    if landing is not None:
        from scipy.optimize import brentq

        i_th, phi = landing
        th_prev = grid[i_th - 1] if i_th else th_c0

        def phi_at(th: float) -> float:
            ph = _solve_closure(climb, np.array([phi, k * (th - th_c0), th]), 0, rd, phi, -0.3, math.pi)
            return math.nan if ph is None else ph

        th_L = brentq(lambda th: edge_normal(phi_at(th), k * (th - th_c0))[0], th_prev, grid[i_th], xtol=1e-13)
        q_L = np.array([phi_at(th_L), k * (th_L - th_c0), th_L])
        g_body, g_arm = climb.poses(q_L)
        top, d_top = top_chain(p, g_body, g_arm, h)
        dep_top = np.array([k, 0.0, 1.0])
        x = 0.0
        end = "range"
        for th in grid[i_th:]:
            tt = th - th_L
            q0 = np.array([k * tt, 0.0, tt])
            x_new = _solve_closure_along(top, q0, d_top, rd, x, -0.3, math.pi)
            if x_new is None or abs(x_new - x) > 0.2:
                end = "reach"
                break
            x = x_new
            qt = q0 + x * d_top
            if q_L[0] + x >= math.pi / 2:  # the front face lies flat on the top
                end = "landed"
                break
            wheel = top.wheel_centre(qt)
            if wheel[1] > -rd:
                end = "riser"
                break
            t1, t2 = _path_derivatives_along(top, qt, d_top, dep_top)
            rows.append(PathSample(phase=2, theta=th, q=qt, dq=t1, ddq=t2, com=top.com(qt), wheel=wheel,
                                   contact_normal=np.array([0.0, -1.0])))
    col = {name: np.array([getattr(row, name) for row in rows]) for name in PathSample._fields}
    res = 0.0
    for phs, qq in zip(col["phase"], col["q"]):
        f = (flip.closure(qq[[0, 2]], rd) if phs == 0 else climb.closure(qq, rd) if phs == 1
             else top.closure(qq, rd))
        res = max(res, abs(f))
    return ClimbPath(params=p, h=h, theta=col["theta"], phase=col["phase"].astype(int), q=col["q"], dq=col["dq"],
                     ddq=col["ddq"], com=col["com"], wheel=col["wheel"], contact_normal=col["contact_normal"],
                     end=end, closure_residual=res, top=top, top_free=d_top)


def _path_derivatives(chain: Chain, q: np.ndarray, k_free: int, dep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q' and q'' along the closed chain: the driven coordinates move as ``dep`` per unit θ (θ'' = 0,
    s'' = 0); the free one from f(q(θ)) = 0 → ∇f·q' = 0 and ∇f·q'' + q'ᵀ H_f q' = 0."""
    Jp, H = chain.point_derivatives(q, len(chain.links) - 1, chain.wheel_B)
    grad, Hf = Jp[2], H[2]
    t1 = dep.copy()
    t1[k_free] = 0.0
    t1[k_free] = -(grad @ t1) / grad[k_free]
    t2 = np.zeros_like(t1)
    t2[k_free] = -(t1 @ Hf @ t1) / grad[k_free]
    return t1, t2


def _path_derivatives_along(chain: Chain, q: np.ndarray, d: np.ndarray,
                            dep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q' and q'' when the free motion is along a fixed direction ``d`` of q (the on-top rolling):
    q' = dep + a d with ∇f·q' = 0, q'' = b d with ∇f·q'' + q'ᵀ H_f q' = 0 (dep's rates are constant)."""
    Jp, H = chain.point_derivatives(q, len(chain.links) - 1, chain.wheel_B)
    grad, Hf = Jp[2], H[2]
    gd = float(grad @ d)
    t1 = dep - (grad @ dep) / gd * d
    t2 = -(t1 @ Hf @ t1) / gd * d
    return t1, t2


def _body_min_height(chain: Chain, q: np.ndarray, p: ClimbParams) -> float:
    """Lowest point of the belt envelope above the slope: pulley centres' z minus r."""
    g = chain.poses(q)[0]
    P = p.pulley_centres_B
    z = g[2, 3] + g[2, 1] * P[:, 0] + g[2, 2] * P[:, 1]
    return float(z.min() - p.pulley_radius)


__all__ = ["PathSample", "ClimbPath", "climb_path"]
