"""Tip-over stability margins from support points: the support-triangle margin of a robot on a step
edge (Hu 2013 §5, eq. 13), the margin inside any convex support polygon, and the force-angle measure
(Papadopoulos & Rey 1996).

No pybullet: the functions take points (from an analytic model or from the engine's contact points)
and return margins. Users: the step-climb trial (lab.papers.hu2013_tracked.trials), the climb controller's GUI
text (lab.papers.hu2013_tracked.controllers) and Hu 2013's analyses (lab.papers.hu2013_tracked.stability).

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

The support triangle of the screw model's climb and the stability region over slope, yaw and step
height (Hu 2013 Fig 12) serve only that paper: lab.papers.hu2013_tracked.stability.
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


__all__ = ["project", "signed_distance_inside", "support_margins", "support_margin", "is_stable", "polygon_margin",
           "ForceAngle", "force_angle", "margin_from_contacts"]
