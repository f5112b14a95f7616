"""Turning radius and direction of a head path (Wang 2011, Fig 8: sign of φ_t = turn direction,
|φ_t| ∝ 1 / turning radius).

Conventions: the ground plane is x–y seen from +z; a counter-clockwise path (turning **left** for a robot
moving along it) has direction +1, a clockwise path (turning right) −1, a straight one 0.

Fit
    1. Algebraic (Kåsa) fit: minimise Σ (x² + y² + D x + E y + F)² — linear least squares — giving the
       centre (−D/2, −E/2) and R² = D²/4 + E²/4 − F. Biased towards small radii on short noisy arcs,
       but a good start.
    2. Geometric refinement: minimise Σ (‖p_i − c‖ − R)² over (c_x, c_y, R) with
       :func:`scipy.optimize.least_squares` (Gauss–Newton / trust region, analytic Jacobian) from the
       Kåsa solution.
Direction
    The signed angle the path sweeps about the fitted centre, Δθ = unwrap(atan2(p − c))[-1] − [0]:
    sign(Δθ) is the direction (positive = counter-clockwise = left).
Straight path
    A straight (or barely curved) path is fitted by a huge circle and sweeps a tiny angle L/R. If
    |Δθ| < ``min_arc_rad`` (default 0.25 rad ≈ 14°: the arc is too short to call a turn), the radius is
    reported as inf and the direction as 0; the raw fitted radius stays available as ``radius_fit``.
    If the Kåsa system is singular (collinear points) the path is straight by construction.

The head path of a serpentine gait wiggles about its mean path with the undulation; the wiggle is
nearly symmetric and averages out of the least-squares fit, so the raw head path is fitted (as the
paper plots it); :func:`turning_metrics` can optionally smooth it over one period first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_ARC_RAD = 0.25


@dataclass(frozen=True)
class CircleFit:
    cx: float
    cy: float
    radius: float  # inf for a straight path
    direction: int  # +1 counter-clockwise (left), −1 clockwise (right), 0 straight
    radius_fit: float  # the fitted radius even when the path is called straight (inf if singular)
    swept_rad: float  # signed angle swept about the centre
    rms_residual: float  # RMS of ‖p − c‖ − R (m)
    kasa_radius: float  # the algebraic fit's radius, before refinement

    @property
    def curvature(self) -> float:
        """Signed curvature 1/R (1/m): positive turning left, 0 for a straight path."""
        return 0.0 if not math.isfinite(self.radius) else self.direction / self.radius


def kasa_fit(xy: np.ndarray) -> tuple[float, float, float] | None:
    """Algebraic circle fit: (cx, cy, R), or None if the points are (numerically) collinear."""
    xy = np.asarray(xy, float)
    m = xy.mean(axis=0)  # centre the data: conditions the linear system
    x, y = (xy - m).T
    A = np.column_stack([x, y, np.ones_like(x)])
    b = -(x * x + y * y)
    sol, _, rank, sv = np.linalg.lstsq(A, b, rcond=None)
    if rank < 3 or sv[-1] < 1e-9 * sv[0]:
        return None
    D, E, F = sol
    r2 = 0.25 * (D * D + E * E) - F
    if not np.isfinite(r2) or r2 <= 0:
        return None
    return float(m[0] - D / 2), float(m[1] - E / 2), float(math.sqrt(r2))


def geometric_fit(xy: np.ndarray, start: tuple[float, float, float]) -> tuple[float, float, float]:
    """Refine (cx, cy, R) by minimising the geometric distances ‖p − c‖ − R."""
    xy = np.asarray(xy, float)

    def res(p):
        return np.hypot(xy[:, 0] - p[0], xy[:, 1] - p[1]) - p[2]

    def jac(p):
        d = np.maximum(np.hypot(xy[:, 0] - p[0], xy[:, 1] - p[1]), 1e-12)
        return np.column_stack([-(xy[:, 0] - p[0]) / d, -(xy[:, 1] - p[1]) / d, -np.ones(len(xy))])

    from scipy.optimize import least_squares  # deferred: importing scipy.optimize costs ~0.3 s
    sol = least_squares(res, np.asarray(start, float), jac=jac, method="lm", xtol=1e-12, ftol=1e-12)
    cx, cy, R = sol.x
    return float(cx), float(cy), float(abs(R))


def fit_circle(xy: np.ndarray, min_arc_rad: float = MIN_ARC_RAD) -> CircleFit:
    """Fit a circle to a planar path (n, 2) and classify its turn (see the module docstring)."""
    xy = np.asarray(xy, float)
    if xy.ndim != 2 or xy.shape[1] != 2 or len(xy) < 3:
        raise ValueError(f"xy: need an (n >= 3, 2) array of points, got shape {xy.shape}")
    k = kasa_fit(xy)
    if k is None:
        return CircleFit(float("nan"), float("nan"), math.inf, 0, math.inf, 0.0, float("nan"), math.inf)
    cx, cy, R = geometric_fit(xy, k)
    ang = np.unwrap(np.arctan2(xy[:, 1] - cy, xy[:, 0] - cx))
    swept = float(ang[-1] - ang[0])
    rms = float(np.sqrt(np.mean((np.hypot(xy[:, 0] - cx, xy[:, 1] - cy) - R) ** 2)))
    if abs(swept) < min_arc_rad:
        return CircleFit(cx, cy, math.inf, 0, R, swept, rms, k[2])
    return CircleFit(cx, cy, R, int(np.sign(swept)), R, swept, rms, k[2])


def moving_average_path(xy: np.ndarray, width: int) -> np.ndarray:
    """Path averaged over a centred window of ``width`` samples (valid part only)."""
    width = max(1, int(width))
    if width == 1 or len(xy) <= width:
        return np.asarray(xy, float)
    ker = np.ones(width) / width
    return np.column_stack([np.convolve(xy[:, i], ker, mode="valid") for i in range(2)])


def fit_window(t: np.ndarray, period: float | None = None, t_from: float | None = None) -> np.ndarray:
    """Mask of the samples to fit: from ``t_from`` (default: half the run) to the end, shortened at its
    start to the last whole number of ``period`` s if a period is given (the undulation then averages
    out of the fit instead of biasing it by where the window cuts the wiggle)."""
    t = np.asarray(t, float)
    t_end = float(t[-1])
    t0 = 0.5 * t_end if t_from is None else float(t_from)
    if period is not None and math.isfinite(period) and period > 0:
        n = math.floor((t_end - t0) / period + 1e-9)
        if n >= 1:
            t0 = t_end - n * period
    return t >= t0 - 1e-9


def head_path(series: dict, t_from: float | None = None, period: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(t, head xy) over :func:`fit_window` (default: the second half of the run)."""
    t = np.asarray(series["t"])
    keep = fit_window(t, period, t_from)
    return t[keep], np.asarray(series["xy"])[keep, -1, :]


def turning_metrics(series: dict, t_from: float | None = None, period: float | None = None, smooth_s: float = 0.0,
                    min_arc_rad: float = MIN_ARC_RAD) -> dict:
    """``turn.radius_m`` (inf if straight), ``turn.direction`` (+1 left, −1 right, 0 straight),
    ``turn.radius_fit_m``, ``turn.swept_rad``, ``turn.fit_rms_m`` of the head path over
    :func:`fit_window` (default: the second half; pass the undulation ``period``, e.g. 2π/ω of the head
    reference, to fit whole periods), optionally smoothed over ``smooth_s`` seconds first."""
    t, xy = head_path(series, t_from, period)
    if len(t) < 3:
        nan = float("nan")
        return {"turn.radius_m": nan, "turn.direction": 0, "turn.radius_fit_m": nan, "turn.swept_rad": nan,
                "turn.fit_rms_m": nan}
    if smooth_s > 0:
        dt = float(np.median(np.diff(t)))
        xy = moving_average_path(xy, int(round(smooth_s / dt)))
    f = fit_circle(xy, min_arc_rad)
    return {"turn.radius_m": f.radius, "turn.direction": f.direction, "turn.radius_fit_m": f.radius_fit,
            "turn.swept_rad": f.swept_rad, "turn.fit_rms_m": f.rms_residual}


def plot_turning(ax, runs: list[tuple[float, dict]], t_from: float | None = None, period: float | None = None,
                 fit: bool = True,
                 title: str = "Head paths for several turning parameters φ_t (Wang 2011, Fig 8)") -> list[CircleFit]:
    """Head paths of several runs on one axes, each with its fitted circle (dashed) over the fitted
    window (:func:`fit_window`). ``runs``: (φ_t, series) pairs. Returns the fits."""
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("coolwarm")
    phis = [p for p, _ in runs]
    span = max((abs(p) for p in phis), default=1.0) or 1.0
    fits = []
    for phi, s in runs:
        color = cmap(0.5 + 0.5 * phi / span)
        head = np.asarray(s["xy"])[:, -1, :]
        ax.plot(head[:, 0], head[:, 1], lw=0.7, color=color, label=f"φ_t = {phi:+g}")
        _, xy = head_path(s, t_from, period)
        f = fit_circle(xy)
        fits.append(f)
        if fit and math.isfinite(f.radius):
            a = np.linspace(0, 2 * math.pi, 361)
            ax.plot(f.cx + f.radius * np.cos(a), f.cy + f.radius * np.sin(a), ls="--", lw=0.8, color=color,
                    alpha=0.8)
            ax.plot([f.cx], [f.cy], "+", color=color, ms=6)
    ax.plot([0.0], [0.0], "ko", ms=3)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="best")
    return fits
