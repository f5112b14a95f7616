"""The head-tracking task of Guo 2015 (§5.3): the passive-wheel snake's head follows
r_ref(t) under the PFL controller; the trial adds the task's metrics.

``[trial] type = "head_tracking"`` needs ``[robot] type = "wheeled_snake"`` and ``[controller] type =
"head_tracking_pfl"``, and adds

* ``pfl.head_rms_error_m``, ``pfl.head_max_error_m`` — |r_ref − r| over t ≥ ``rms_from`` (the issue's
  20 s), r the head point (the robot's head_tip link in the recorded series), r_ref the controller's;
* ``pfl.torque_rms_Nm`` — RMS over the yaw joints and over ``torque_window`` (the issue's 36–60 s;
  per joint in lab.papers.guo2015_wheeled);
* the reference path painted on the floor (a visual-only body: the GUI, screenshots and videos show it);
* ``wheels.lateral_slip_rms_mps`` — RMS over all modules and all steps of each module's lateral
  velocity at its wheels (eq. 1's n_i · Ċ_i, which the paper's wheel holds at 0), metered every step
  by the controller; ``wheels.lateral_slip_rms_late_mps`` the same over t ≥ ``rms_from``;
  ``wheels.lateral_slip_max_mps`` the largest |value| of any module at any step.

Registered like every built-in trial: listed in lab.core.plugins, imported on the trial registry's first lookup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.fields import num, vector
from lab.core.tolerances import TOL
from lab.core.views import Headline, View
from lab.trials.base import Trial, register_trial


@register_trial("head_tracking")
@dataclass(frozen=True)
class HeadTracking(Trial):
    """Windows of the issue's figures: head RMS over t ≥ 20 s, joint torques over 36–60 s."""

    rms_from: float = num(20.0, ge=0, le=1e5, unit="s", doc="head error and late slip taken over t ≥ this")
    torque_window: tuple[float, float] = vector((36.0, 60.0), length=2, ge=0, le=1e5, unit="s",
                                                names="[t0, t1]", doc="joint torque RMS over this window")

    path_rgba: tuple[float, float, float, float] = vector((0.1, 0.65, 0.2, 1.0), length=4, ge=0, le=1,
                                                          names="(RGBA)", doc="colour of the reference path on the floor")

    def setup(self, sim) -> None:
        """Paint the reference path r_ref(t), 0 ≤ t ≤ duration, on the floor: a visual-only static body of
        thin boxes (no collision, no mass, not in the snapshot), so the GUI's mirror, a screenshot and a
        video show it at no cost per step."""
        sc = sim.scenario
        from lab.papers.guo2015_wheeled.controllers import HeadTrackingPFL

        reference = HeadTrackingPFL.reference_of(sc.controller)
        reference_path_body(sim.world, reference, sc.sim.duration, rgba=self.path_rgba)

    def validate_scenario(self, robot, controller, arena, sim) -> None:
        from lab.papers.guo2015_wheeled.controllers import HeadTrackingPFLParams
        from lab.robots.wheeled_snake import WheeledSnakeSpec

        if not isinstance(robot, WheeledSnakeSpec):
            raise ValueError('type: the head-tracking trial needs [robot] type = "wheeled_snake"')
        if not isinstance(controller, HeadTrackingPFLParams):
            raise ValueError('type: the head-tracking trial needs [controller] type = "head_tracking_pfl"')

    headline = (Headline("pfl.head_rms_error_m",
                         "head error RMS over t ≥ rms_from",
                         against=f"≤ {TOL['guo.pfl_head_rms_m'].value:g} m: Guo 2015's PFL on its own model",
                         missing="the RMS window (t ≥ rms_from) starts after this run's end"),
                Headline("pfl.head_max_error_m", missing="the window (t ≥ rms_from) starts after this run's end"),
                Headline("pfl.torque_rms_Nm", missing="the torque window starts after this run's end"),
                Headline("wheels.lateral_slip_rms_mps", "wheels' lateral slip, RMS",
                         against="0 for Guo 2015's ideal passive wheels, eq. 1"))

    def views(self) -> tuple:
        """The head's path over the reference r_ref(t) (Guo 2015 §5.3), and the tracking error."""
        return (View("head_tracking", draw_head_tracking, "head path and r_ref(t) (top view); |r_ref − r| over t"),)

    def metrics(self, sim, series: dict) -> dict:
        return head_tracking_metrics(series, sim.controller.logged(), sim.controller.p.reference,
                                     sim.controller.layout.yaw_joints, self.rms_from, self.torque_window)


MAX_SHAPES = 16  # boxes to a body (World.add_visual_boxes: PyBullet's createVisualShapeArray limit)


def reference_path_body(world, reference, t_end: float, rgba=(0.1, 0.65, 0.2, 1.0), step_s: float = 0.5,
                        width: float = 0.006, z: float = 0.0006) -> list[int]:
    """Static visual-only bodies tracing r_ref(t), 0 ≤ t ≤ t_end, on the floor: one thin box per ``step_s``
    of the reference (at most 480), 16 to a body; returns the body ids."""
    n = int(min(30 * MAX_SHAPES, max(1, math.ceil(t_end / step_s))))
    P = np.array([reference(t)[0] for t in np.linspace(0.0, t_end, n + 1)])
    d = np.diff(P, axis=0)
    length = np.hypot(d[:, 0], d[:, 1])
    mid = 0.5 * (P[:-1] + P[1:])
    yaw = np.arctan2(d[:, 1], d[:, 0])
    half = [[0.5 * float(length[i]) + 0.5 * width, 0.5 * width, 0.0005] for i in range(n)]
    pos = [[float(mid[i, 0]), float(mid[i, 1]), z] for i in range(n)]
    return world.add_visual_boxes(half, pos, yaw, rgba)


def head_tracking_metrics(series: dict, log: dict, reference, yaw_joints, rms_from: float,
                          torque_window=(36.0, 60.0)) -> dict:
    """The trial's metrics from a run's series and the controller's log (see the module docstring)."""
    nan = float("nan")
    t = series["t"]
    out = {k: nan for k in ("pfl.head_rms_error_m", "pfl.head_max_error_m", "pfl.torque_rms_Nm",
                            "wheels.lateral_slip_rms_mps", "wheels.lateral_slip_rms_late_mps",
                            "wheels.lateral_slip_max_mps")}
    if len(t):
        r = series["xy"][:, -1, :]  # the head_tip link: the head point
        err = np.hypot(*(np.array([reference(tk)[0] for tk in t]) - r).T)
        k = t >= rms_from
        if k.any():
            out["pfl.head_rms_error_m"] = float(np.sqrt(np.mean(err[k] ** 2)))
            out["pfl.head_max_error_m"] = float(err[k].max())
        a, b = torque_window
        k = (t >= a) & (t <= b) & (t > 0)  # the t = 0 sample holds no torque yet
        if k.any():
            out["pfl.torque_rms_Nm"] = float(np.sqrt(np.mean(series["tau"][k][:, yaw_joints] ** 2)))
    ms = log.get("slip_ms")
    if ms is not None and len(ms):
        out["wheels.lateral_slip_rms_mps"] = float(np.sqrt(ms.mean()))
        late = log["slip_t"] > rms_from  # blocks ending after rms_from
        if late.any():
            out["wheels.lateral_slip_rms_late_mps"] = float(np.sqrt(ms[late].mean()))
        out["wheels.lateral_slip_max_mps"] = float(log["slip_max"].max())
    return out


def draw_head_tracking(run):
    """Top view of the head point's path and the reference r_ref(t) it tracks; below, |r_ref − r| over t
    with the RMS window (t ≥ rms_from) marked."""
    from lab.analysis.plots import new_figure
    from lab.papers.guo2015_wheeled.controllers import HeadTrackingPFL

    sc = run.scenario
    reference = HeadTrackingPFL.reference_of(sc.controller)
    t = run.series["t"]
    r = run.series["xy"][:, -1, :]  # the head_tip link: the head point
    ref = np.array([reference(tk)[0] for tk in t])
    fig, (ax, ax_e) = new_figure(2, 1, figsize=(8, 7), height_ratios=(2, 1))
    ax.plot(ref[:, 0], ref[:, 1], "g--", lw=1.5, label="reference r_ref(t)")
    ax.plot(r[:, 0], r[:, 1], "b-", lw=1.0, label="head (head_tip)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(f"{sc.name}: head tracking (Guo 2015 §5.3)")
    ax.legend(fontsize=8)
    ax_e.plot(t, np.hypot(*(ref - r).T) * 1e3, "k-", lw=0.8, label="|r_ref − r|")
    ax_e.axvline(sc.trial.rms_from, color="gray", ls=":", lw=1, label=f"RMS from t = {sc.trial.rms_from:g} s")
    ax_e.set_xlabel("t [s]")
    ax_e.set_ylabel("head error [mm]")
    ax_e.legend(fontsize=8)
    return fig


__all__ = ["HeadTracking", "draw_head_tracking", "head_tracking_metrics"]
