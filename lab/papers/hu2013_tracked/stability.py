"""Tip-over stability of the tracked robot over its climb (Hu 2013 §5, eq. 13, Fig 12).

The margins themselves are generic (:mod:`lab.analysis.stability`: the eq.-13 support-triangle margin,
any convex support polygon, the Papadopoulos–Rey force-angle measure); the library's step-climb trial
and climb controller use them on the engine's contact points. What is here serves only this paper:
the support triangle A B C of the screw model's path (:mod:`.model`) and the Fig 12 region.

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

from lab.analysis.stability import force_angle, support_margins
from lab.papers.hu2013_tracked.model import ClimbParams, R_world_step, climb_path, forward_distance, gravity_S


def climb_support_points(path, alpha: float, beta: float, n: int | None = None) -> dict[str, np.ndarray]:
    """World-frame A, B (ends of the edge contact line, ± body_width/2), C (the guide wheel's contact
    with the slope) and the COM for every sample of a :class:`~.model.ClimbPath`."""
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


__all__ = ["climb_support_points", "climb_margins", "climb_force_angles", "climb_end_index", "min_climb_margin",
           "StabilityRegion", "stability_region", "critical_alpha", "critical_slope"]
