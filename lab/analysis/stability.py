"""Tip-over stability of the tracked robot on a step (Hu 2013 §5, eq. 13; Papadopoulos & Rey 1996).

No pybullet: the functions take points (from the analytic model or from the engine's contact points)
and return margins.

Support-triangle margin (eq. 13)
    During the climb the robot touches the step edge along the line AB (the track's width) and the
    slope at the guide wheel's point C. A', B', C' and the COM's p' are their projections on the
    horizontal plane (along gravity). n₁, n₂ ⟂ A'C', B'C' (ẑ × edge). The robot is stable with
    margin d_mar if  n₁·p + d_mar ≤ n₁·A'  and  n₂·p + d_mar ≤ n₂·C'  with the normals pointing out
    of the triangle: the margin is the smaller signed distance of p' inside the two sides AC and BC.
    AB is left out on purpose, as in the paper: passing over AB is the robot tipping onto the step,
    which is how the climb ends. (Eq. 13 as printed uses A' for side 1 and C' for side 2; any point
    of each side gives the same product, and the normals' orientation — printed without a sign
    convention — is fixed here to point outwards.)

Force-angle measure (Papadopoulos & Rey 1996, "A new measure of tipover stability margin for
mobile manipulators", ICRA, the paper's ref. 11)
    For each tip-over axis a_i (support polygon edge, counter-clockwise seen from above), l_i is the
    perpendicular from the COM to the axis and f_i the component of the net force on the COM
    (gravity, minus m·a if given) perpendicular to the axis. θ_i is the angle between f_i and l_i,
    positive when f_i's moment about a_i is restoring. The measure is β = min_i θ_i · ‖f_r‖
    (stable > 0); it also reacts to the height of the COM, which the projected margin does not.

Stability region (Fig 12)
    For (α, β, h): stable if the eq.-13 margin stays ≥ d_mar over the whole climb phase of the
    screw model (flip excluded: its support is the front pulley, not the edge line), up to the moment
    the robot tips onto the step. Because the closed chain lives in the step frame, the path depends
    on (h, l_a) only; α and β just turn gravity, so the region costs one path per h.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UP = np.array([0.0, 0.0, 1.0])


def _plane_basis(up: np.ndarray) -> np.ndarray:
    """(2, 3) orthonormal basis (e1, e2) of the plane perpendicular to ``up`` with e1 × e2 = up, so
    that counter-clockwise seen from above stays counter-clockwise; (x̂, ŷ) for up = ẑ."""
    u = np.asarray(up, float)
    u = u / np.linalg.norm(u)
    ref = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = ref - (ref @ u) * u
    e1 /= np.linalg.norm(e1)
    return np.array([e1, np.cross(u, e1)])


def project(points, up=UP) -> np.ndarray:
    """(…, 2) coordinates of points in the plane perpendicular to ``up`` (right-handed seen from above)."""
    B = _plane_basis(up)
    return np.asarray(points, float) @ B.T


def signed_distance_inside(p2, a2, b2, inside2) -> np.ndarray:
    """Signed distance of p' from the line a'b', positive on the side of ``inside2`` (arrays (…, 2))."""
    p2, a2, b2, inside2 = (np.asarray(x, float) for x in (p2, a2, b2, inside2))
    d = b2 - a2
    n = np.stack([-d[..., 1], d[..., 0]], axis=-1) / np.linalg.norm(d, axis=-1, keepdims=True)
    side = np.sign(np.einsum("...i,...i->...", inside2 - a2, n))
    side = np.where(side == 0, 1.0, side)
    return np.einsum("...i,...i->...", p2 - a2, n) * side


def support_margins(A, B, C, com, up=UP, com_behind_edge: bool = False) -> np.ndarray:
    """Eq. (13) for arrays of configurations ((k, 3) each): min signed distance (m) of the projected
    COM inside sides A'C' and B'C' (> 0 stable).

    ``com_behind_edge``: the caller knows the COM has not yet passed over the edge line in the
    climbing direction (true before the robot tips onto the step). Then a COM on the far side of
    A'B' from C' means the wheel projects *ahead* of the edge (a slope so steep that the chain is
    inverted) and the COM is outside the triangle although eq. 13's two sides cannot see it; the
    margin is then minus its distance to A'B'."""
    a, b, c, p = (project(np.asarray(x, float), up) for x in (A, B, C, com))
    d = np.minimum(signed_distance_inside(p, a, c, b), signed_distance_inside(p, b, c, a))
    if not com_behind_edge:
        return d
    d_ab = signed_distance_inside(p, a, b, c)  # > 0: the COM on C's side of the edge line
    return np.where(d_ab >= 0, d, np.minimum(d, -np.abs(d_ab)))


def support_margin(A, B, C, com, up=UP, com_behind_edge: bool = False) -> float:
    """Eq. (13) for one configuration (see :func:`support_margins`)."""
    return float(support_margins(np.atleast_2d(A), np.atleast_2d(B), np.atleast_2d(C), np.atleast_2d(com), up,
                                 com_behind_edge)[0])


def is_stable(A, B, C, com, d_mar: float, up=UP) -> bool:
    """Eq. (13) literally: n₁·p + d_mar ≤ n₁·A' and n₂·p + d_mar ≤ n₂·C' (outward normals)."""
    a, b, c, p = (project(np.asarray(x, float), up) for x in (A, B, C, com))
    ok = True
    for s0, s1, other, pt in ((a, c, b, a), (b, c, a, c)):
        d = s1 - s0
        n = np.array([-d[1], d[0]]) / np.linalg.norm(d)
        if np.dot(other - s0, n) > 0:  # make n point out of the triangle
            n = -n
        ok &= bool(n @ p + d_mar <= n @ pt + 1e-15)
    return ok


def polygon_margin(vertices, com, up=UP) -> tuple[float, int]:
    """Smallest signed distance of the projected COM inside a convex support polygon, and which edge
    (edge i joins vertex i to i+1 of the counter-clockwise hull). Negative: outside."""
    P = _hull_ccw(project(np.asarray(vertices, float), up))
    p = project(np.asarray(com, float), up)
    d = []
    for i in range(len(P)):
        a, b = P[i], P[(i + 1) % len(P)]
        e = b - a
        n_in = np.array([-e[1], e[0]]) / np.linalg.norm(e)  # left of a counter-clockwise edge = inside
        d.append(float((p - a) @ n_in))
    k = int(np.argmin(d))
    return d[k], k


def _hull_ccw(P: np.ndarray) -> np.ndarray:
    """Convex hull (counter-clockwise, monotone chain) of 2-D points."""
    pts = sorted(map(tuple, np.round(P, 15)))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for q in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    for q in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return np.array(lower[:-1] + upper[:-1])


@dataclass(frozen=True)
class ForceAngle:
    beta: float  # min_i θ_i · ‖f_r‖ (N·rad); > 0 stable
    angles: np.ndarray  # θ_i per tip-over axis (rad)
    axis: int  # the critical axis


def force_angle(vertices, com, f_r, up=UP) -> ForceAngle:
    """Papadopoulos–Rey force-angle measure of a support polygon (3-D contact points ``vertices``),
    COM ``com`` and net force ``f_r`` on the COM (e.g. m g − m a). The polygon's order is taken from the
    convex hull of the points projected along ``up``; the axes join the original 3-D points."""
    V = np.asarray(vertices, float)
    pc = np.asarray(com, float)
    f = np.asarray(f_r, float)
    P2 = project(V, up)
    hull = _hull_ccw(P2)
    # map hull vertices back to the 3-D points
    idx = [int(np.argmin(np.linalg.norm(P2 - h, axis=1))) for h in hull]
    n = len(idx)
    angles = np.empty(n)
    fn = np.linalg.norm(f)
    for i in range(n):
        p1, p2 = V[idx[i]], V[idx[(i + 1) % n]]
        a = (p2 - p1) / np.linalg.norm(p2 - p1)
        Pm = np.eye(3) - np.outer(a, a)
        l_i = Pm @ (p2 - pc)  # COM → axis, perpendicular to it
        f_i = Pm @ f
        nl, nf = np.linalg.norm(l_i), np.linalg.norm(f_i)
        if nl < 1e-15 or nf < 1e-15:
            angles[i] = 0.0
            continue
        ang = math.acos(float(np.clip(l_i @ f_i / (nl * nf), -1.0, 1.0)))
        # restoring if the moment of f about the (counter-clockwise) axis through the COM-side is
        # negative: the COM left of a ccw edge is inside, and gravity there gives a moment −â
        m = float(a @ np.cross(pc - p1, f))
        angles[i] = ang if m < 0 else -ang
    k = int(np.argmin(angles))
    return ForceAngle(beta=float(angles[k] * fn), angles=angles, axis=k)


# ------------------------------------------------------------------------------------------------
# the climb (analytic model)


def climb_support_points(path, alpha: float, beta: float, n: int | None = None) -> dict[str, np.ndarray]:
    """World-frame A, B (ends of the edge contact line, ± body_width/2), C (the guide wheel's contact
    with the slope) and the COM for every sample of a :class:`~lab.models.tracked_climb.ClimbPath`."""
    from ..models.tracked_climb import R_world_step

    p = path.params
    R = R_world_step(alpha, beta)
    k = len(path.theta) if n is None else n
    w2 = p.body_width / 2
    A = np.tile([w2, 0.0, path.h], (k, 1))
    B = np.tile([-w2, 0.0, path.h], (k, 1))
    C = path.wheel[:k].copy()
    C[:, 2] = 0.0  # the wheel touches the slope below its centre (z_S is the slope normal)
    return {"A": A @ R.T, "B": B @ R.T, "C": C @ R.T, "com": path.com[:k] @ R.T}


def climb_margins(path, alpha: float, beta: float, n: int | None = None) -> np.ndarray:
    """Eq.-13 margin at every sample (NaN during the flip, where AB is not the support). Meant for the
    samples before the COM passes over the edge (``n`` ≤ :func:`climb_end_index`)."""
    pts = climb_support_points(path, alpha, beta, n)
    m = support_margins(pts["A"], pts["B"], pts["C"], pts["com"], com_behind_edge=True)
    return np.where(path.phase[: len(m)] == 1, m, np.nan)


def climb_force_angles(path, alpha: float, beta: float, n: int | None = None) -> np.ndarray:
    """Force-angle β (gravity only, quasi-static) at every climb sample over the triangle A B C."""
    pts = climb_support_points(path, alpha, beta, n)
    p = path.params
    f = np.array([0.0, 0.0, -(p.m_body + p.m_arm) * p.gravity])
    out = np.full(len(pts["A"]), np.nan)
    for i in range(len(out)):
        if path.phase[i] == 1:
            out[i] = force_angle([pts["A"][i], pts["B"][i], pts["C"][i]], pts["com"][i], f).beta
    return out


def climb_end_index(path, alpha: float, beta: float) -> int:
    """Number of samples before the COM passes over the edge line (the end of the climb), else all."""
    from ..models.tracked_climb import forward_distance, gravity_S

    d = forward_distance(path.com, path.h, gravity_S(alpha, beta))
    over = np.nonzero((d >= 0) & (path.phase >= 1))[0]  # on a low step: on top (phase 2)
    return int(over[0]) if over.size else len(path.theta)


def min_climb_margin(path, alpha: float, beta: float, pose: str = "climb") -> float:
    """The smallest eq.-13 margin over the climb phase up to tipping onto the step (``pose="climb"``),
    or at the climb's first pose only, the front face against the riser (``pose="start"``)."""
    n = climb_end_index(path, alpha, beta)
    m = climb_margins(path, alpha, beta, n)
    ok = np.isfinite(m)
    if not ok.any():
        return float("nan")
    return float(m[ok][0]) if pose == "start" else float(np.min(m[ok]))


@dataclass(frozen=True)
class StabilityRegion:
    alphas: np.ndarray  # rad
    betas: np.ndarray  # rad
    heights: np.ndarray  # m
    margin: np.ndarray  # (n_h, n_beta, n_alpha) min margin over the climb (m)
    d_mar: float

    @property
    def stable(self) -> np.ndarray:
        return self.margin >= self.d_mar

    def critical_alpha(self) -> np.ndarray:
        """(n_h, n_beta) largest α of the grid that is stable (the boundary surface of Fig 12), with
        every smaller α stable too; NaN if even α = alphas[0] is unstable."""
        st = self.stable
        out = np.full(st.shape[:2], np.nan)
        for i in range(st.shape[0]):
            for j in range(st.shape[1]):
                row = st[i, j]
                if not row[0]:
                    continue
                k = np.argmin(row) if not row.all() else len(row)
                out[i, j] = self.alphas[k - 1]
        return out

    @property
    def critical_slope(self) -> float:
        """The slope beyond which no (β, h) of the grid is stable (rad)."""
        return float(np.nanmax(self.critical_alpha()))


def stability_region(params=None, heights=None, betas=None, alphas=None, d_mar: float = 0.0,
                     pose: str = "climb") -> StabilityRegion:
    """Min eq.-13 margin over the climb on an (h, β, α) grid (Fig 12). Defaults: h from r to 0.20 m,
    β 0…90° by 15° (the region is symmetric in ±β), α 0…89° by 1°."""
    from ..models.tracked_climb import ClimbParams, climb_path

    p = ClimbParams() if params is None else params
    H = np.linspace(p.pulley_radius, 0.20, 8) if heights is None else np.asarray(heights, float)
    Bt = np.radians(np.arange(0, 91, 15)) if betas is None else np.asarray(betas, float)
    Al = np.radians(np.arange(0, 90, 1.0)) if alphas is None else np.asarray(alphas, float)
    M = np.empty((len(H), len(Bt), len(Al)))
    for i, h in enumerate(H):
        path = climb_path(p, float(h))
        for j, b in enumerate(Bt):
            for k, a in enumerate(Al):
                M[i, j, k] = min_climb_margin(path, float(a), float(b), pose)
    return StabilityRegion(alphas=Al, betas=Bt, heights=H, margin=M, d_mar=d_mar)


def critical_alpha(path, beta: float, d_mar: float = 0.0, pose: str = "climb", step: float = math.radians(0.5),
                   tol: float = 1e-4) -> float:
    """The first slope α at which the min margin drops below d_mar (scan by ``step``, then bisection);
    NaN if unstable already on flat ground, π/2 if never."""
    f = lambda a: min_climb_margin(path, a, beta, pose) - d_mar  # noqa: E731
    if not f(0.0) >= 0:
        return float("nan")
    lo = 0.0
    for hi in np.arange(step, math.pi / 2, step):
        if not f(float(hi)) >= 0:
            break
        lo = float(hi)
    else:
        return math.pi / 2
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) >= 0 else (lo, mid)
    return lo


def critical_slope(params=None, heights=None, betas=None, d_mar: float = 0.0, pose: str = "climb") -> tuple[float, float, float]:
    """(α*, β*, h*): the largest slope at which some (β, h) configuration of the grid is still stable."""
    from ..models.tracked_climb import ClimbParams, climb_path

    p = ClimbParams() if params is None else params
    H = np.linspace(p.pulley_radius, 0.20, 8) if heights is None else np.asarray(heights, float)
    Bt = np.radians(np.arange(0, 91, 15)) if betas is None else np.asarray(betas, float)
    best = (float("nan"), float("nan"), float("nan"))
    for h in H:
        path = climb_path(p, float(h))
        for b in Bt:
            a_star = critical_alpha(path, float(b), d_mar, pose)
            if not a_star <= best[0]:  # also replaces the initial NaN
                best = (a_star, float(b), float(h))
    return best


# ------------------------------------------------------------------------------------------------
# from engine contact points


def margin_from_contacts(track_step_points, wheel_points, com, up=UP, edge_dir=None) -> float:
    """Eq.-13 margin from the engine's contact points: A, B the two track–step contacts farthest apart
    (along ``edge_dir`` if given), C the mean guide-wheel contact. NaN if either set is empty."""
    T = np.asarray(track_step_points, float).reshape(-1, 3)
    W = np.asarray(wheel_points, float).reshape(-1, 3)
    if len(T) == 0 or len(W) == 0:
        return float("nan")
    if edge_dir is None:
        if len(T) == 1:
            return float("nan")
        d = T[:, None, :] - T[None, :, :]
        i, j = np.unravel_index(np.argmax(np.einsum("ijk,ijk->ij", d, d)), d.shape[:2])
        A, B = T[i], T[j]
    else:
        s = T @ np.asarray(edge_dir, float)
        A, B = T[np.argmax(s)], T[np.argmin(s)]
        if np.allclose(A, B):
            return float("nan")
    return support_margin(A, B, W.mean(axis=0), com, up)


__all__ = ["support_margin", "is_stable", "polygon_margin", "force_angle", "ForceAngle", "climb_support_points",
           "climb_margins", "climb_force_angles", "min_climb_margin", "climb_end_index", "stability_region",
           "StabilityRegion", "critical_alpha", "critical_slope", "margin_from_contacts", "project", "support_margins"]
