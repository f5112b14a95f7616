"""Step-climbing trials of the tracked robot (Hu 2013): ``[trial] type = "step_climb"``.

The trial stops a run once its outcome is decided (``stop_when_decided``: on a single step as soon as
the COM is over the edge line and the body's centre over the top while driving — the success of
:func:`climb_metrics`, which nothing after it undoes; at once if there is no step; else 1 s after the
climb first handed over to drive-on — on the step, or tumbled back in front of it —, once the body has advanced
``advance_limit`` without a stall, or once the arm has sat at its end stop for 2 s with the COM
neither advancing nor over the edge — in the differential mode, once for 2 s neither the arm has
turned 0.05 rad nor the COM advanced 1 cm), and computes the ``climb.*`` metrics of the run from the climb
controller's log.

Definitions (engine side; the screw model's counterparts in lab.papers.hu2013_tracked.model):
    start        the first robot–step contact (the belt touching the step)
    over         the robot's COM passes over the edge line, perpendicular to gravity (it then tips
                 onto the step) — the model's end of the climb
    success      ``over`` happened and at the end of the run the body's centre is above the step
                 top (x beyond the riser, z above h + rest height / 2)
    time_s       over − start (the model's flip + climb time, started at first contact)
    peak_motor_torque_Nm  the largest motor torque at the shaft (eq. 11; in the independent mode the
                 power of both outputs referred to i0 i1 θ̇: (τ_arm + τ_pulley/i2)/(i0 i1)) from start
                 to over, after a 0.1 s moving average (the engine's contact solve makes the joint
                 torques jitter step to step; the model is quasi-static)
    peak_climb_torque_Nm  the same over the climb phase only (front face against the riser)
    climb_work_J the motor's work over the climb phase up to ``over``, referred to the shaft as eq. 11's
                 ∫ τ_m dθ is: (∫ τ_arm dθ + ∫ τ_pulley dψ)/(i0 i1), the outputs' work summed every step
                 by the controller (J/(i0 i1), "N·m·rad"; along the model's path ∫ τ_m dθ is exactly
                 this work). Not ∫ τ_m dθ of the logged τ_m: that credits the belt with τ_pulley dθ/i2,
                 its work only while ψ̇ = θ̇/i2 holds instant by instant, and the engine's belt
                 sticks and slips at the edge (its torque peaks while it is slow)
    flip_to_over_s  from the flip's start (the stall) to ``over``
    stall_belt_force_N, stall_arm_torque_Nm  medians over the flip phase (from the stall at the riser
                 until the front face stands against it, or the end of a failed run) of the belt force
                 (drive torque / r) and the arm torque: what the single-motor flip can get while its belt
                 slips (lab.papers.hu2013_tracked.model.differential_stall: what it needs)
    edge_slip_m  how far the belt slid over the step's edge during the climb window (from the front face
                 against the riser until ``over``): the sum of the changes of the edge contact's belt
                 material coordinate u − r ψ (u: arc length along the belt at the contact, ψ the drive
                 angle) while the track touches the edge; the screw model's no-slip climb has 0
    min_margin_m the smallest eq.-13 margin over the climb phase up to ``over``, from the engine's
                 contact points: A, B the extreme track–step contacts along the edge, C the guide
                 wheel's contact, projected along gravity
    ledger_work_J, ledger_dpe_J, ledger_dke_J, ledger_dissipated_J  the energy ledger's split
                 W = ΔPE + ΔKE + D over the climb window (lab.papers.hu2013_tracked.climb_ledger)
A differential-mode run adds the ``diff.*`` metrics (lab.papers.hu2013_tracked.differential).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from lab.analysis.stability import support_margins
from lab.core.fields import info, num
from lab.core.views import Headline
from lab.trials.base import Trial, register_trial


@register_trial("step_climb")
@dataclass(frozen=True)
class StepClimb(Trial):
    """Needs the ``tracked_climb`` controller (its log and phases are what the trial reads)."""

    headline = (Headline("climb.success", "body over the edge and on top (Hu 2013)"),
                Headline("climb.time_s", "start of the climb to over the edge", missing="the robot did not get over"),
                Headline("climb.max_pitch_deg", "largest body pitch"),
                Headline("climb.min_margin_m", "least support-triangle margin", against="> 0: statically stable"),
                # the single motor's stall and flip (lab.papers.hu2013_tracked.model.stall); differential runs only
                Headline("diff.stall_force_N", "belt pull while stalled at the riser", optional=True),
                Headline("diff.stall_force_model_N", "the stall law's closed form", optional=True),
                Headline("diff.flip_required_N", "belt pull the flip needs (moments about the front pulley)",
                         optional=True),
                Headline("diff.flipped", "the body flipped onto the riser", optional=True),
                Headline("diff.jammed", "flipped, then no COM progress", optional=True))

    stop_when_decided: bool = info(True, doc="end the run once the climb is decided (else run the full duration)")
    advance_limit: float = num(0.32, gt=0, le=100, unit="m",
                               doc="…or once the body has advanced this far without a stall (from 0.16 m before "
                                   "the riser its rear pulley is then on the top)")

    def validate_scenario(self, robot, controller, arena, sim) -> None:
        from lab.papers.hu2013_tracked.controllers import TrackedClimbParams

        if not isinstance(controller, TrackedClimbParams):
            raise ValueError('type: "step_climb" needs the "tracked_climb" controller (it reads its log)')
        check_drive_constants(robot, controller)

    def stop_condition(self, sim, state0):
        if not self.stop_when_decided:
            return None
        ctrl, limit = sim.controller, self.advance_limit
        arena = sim.scenario.arena
        from lab.arenas.step import Step
        from lab.papers.hu2013_tracked.controllers import Phase

        if not isinstance(arena, Step):  # stairs: a climb at every riser, decided by the controller alone
            return lambda s: decided(ctrl, limit)
        h = float(arena.step_height)
        if h <= 0:
            return lambda s: True  # nothing to climb: climb_metrics decides without the run
        # on the step for good: the COM over the edge line (perpendicular to gravity) and the body's
        # centre over the top, as climb_metrics' success, while driving (not in a flip or climb)
        g = arena.gravity(sim.scenario.sim.gravity)
        gh = g / np.linalg.norm(g)
        x_e, z_on = float(arena.step_x), h + 0.5 * sim.scenario.robot.rest_height

        since = [math.inf]  # when the body was first seen on the step for good

        def done(s) -> bool:
            if decided(ctrl, limit):
                return True
            c = s.com_W
            on = (ctrl.phase in (Phase.ADVANCE, Phase.DRIVE_ON) and s.p_W[0, 0] > x_e and s.p_W[0, 2] > z_on
                  and (c[0] - x_e) * (-gh[2]) + (c[2] - h) * gh[0] >= 0)
            since[0] = min(since[0], s.t) if on else math.inf
            # held from one stop check to the next: the controller's log (every few steps) has it too
            return s.t - since[0] >= ON_STEP_HOLD

        return done

    def metrics(self, sim, series: dict) -> dict:
        from lab.papers.hu2013_tracked.climb_ledger import ledger_metrics  # climb.ledger_*: where the work goes
        from lab.papers.hu2013_tracked.differential import differential_metrics  # diff.*: the single motor's

        L, sc = sim.controller.logged(), sim.scenario
        return {**climb_metrics(L, sc), **ledger_metrics(L, series, sc), **differential_metrics(L, sc)}


ON_STEP_HOLD = 0.02  # s the body must stay on the step before a run stops there: it stops at the next stop
# check (lab.trials.base.CHECK_EVERY steps later), by when the controller's log holds it too


def decided(ctrl, advance_limit: float) -> bool:
    """Whether a :class:`~lab.papers.hu2013_tracked.controllers.TrackedClimb` run's outcome is decided."""
    from lab.papers.hu2013_tracked.controllers import GIVE_UP_AT_STOP, Phase

    if ctrl.phase == Phase.ADVANCE and ctrl.advanced > advance_limit:
        return True  # drove over whatever was there without stalling (a step lower than r)
    if ctrl.phase in (Phase.FLIP, Phase.CLIMB) and ctrl.t_at_stop > GIVE_UP_AT_STOP:
        return True  # the arm has no travel left (or is stalled) and the COM is still behind the edge: failed
    return not math.isnan(ctrl.t_first_drive_on) and ctrl.t_now - ctrl.t_first_drive_on > 1.0


def moving_average(x: np.ndarray, n: int) -> np.ndarray:
    if n <= 1 or len(x) < n:
        return x.copy()
    c = np.cumsum(np.insert(x, 0, 0.0))
    out = (c[n:] - c[:-n]) / n
    pad = n // 2
    return np.concatenate([np.full(pad, out[0]), out, np.full(len(x) - len(out) - pad, out[-1])])


def climb_metrics(L: dict, sc) -> dict:
    """``climb.*`` metrics from a :class:`~lab.papers.hu2013_tracked.controllers.TrackedClimb` log."""
    from lab.papers.hu2013_tracked.controllers import Phase

    arena = sc.arena
    m: dict = {}
    h = float(getattr(arena, "step_height", 0.0))
    x_edge = float(getattr(arena, "step_x", math.nan))
    t = L["t"]
    nan = float("nan")
    h_ok = hasattr(arena, "gravity")
    keys = ("success", "time_s", "peak_motor_torque_Nm", "peak_climb_torque_Nm", "min_margin_m", "over_s",
            "start_s", "flip_s", "climb_s", "max_pitch_deg", "peak_arm_torque_Nm", "peak_belt_force_N",
            "climb_work_J", "flip_to_over_s", "edge_slip_m", "stall_belt_force_N", "stall_arm_torque_Nm")
    if h_ok and h <= 0:  # nothing to climb (the run may have stopped at once)
        out = {f"climb.{k}": nan for k in keys}
        out.update({"climb.success": True, "climb.time_s": 0.0})
        return out
    if len(t) < 2 or not h_ok:
        return {f"climb.{k}": (False if k == "success" else nan) for k in keys}
    g = arena.gravity(sc.sim.gravity)
    gh = g / np.linalg.norm(g)
    com, body, phase = L["com"], L["body"], L["phase"].astype(int)
    A, B, C = L["A"], L["B"], L["C"]
    touching = np.isfinite(A[:, 0])
    i0 = int(np.argmax(touching)) if touching.any() else None
    # forward distance of the COM beyond the edge line, perpendicular to gravity (x is the climbing axis)
    d = (com[:, 0] - x_edge) * (-gh[2]) + (com[:, 2] - h) * gh[0]
    over_idx = np.nonzero((d >= 0) & (np.arange(len(t)) >= (i0 or 0)))[0]
    i_over = int(over_idx[0]) if (i0 is not None and over_idx.size) else None
    on_top = bool(body[-1, 0] > x_edge and body[-1, 2] > h + 0.5 * sc.robot.rest_height)
    m["climb.success"] = bool(i_over is not None and on_top)
    m["climb.start_s"] = float(t[i0]) if i0 is not None else nan
    m["climb.over_s"] = float(t[i_over]) if i_over is not None else nan
    m["climb.time_s"] = float(t[i_over] - t[i0]) if i_over is not None else nan
    for k, name in ((Phase.FLIP, "flip_s"), (Phase.CLIMB, "climb_s")):
        idx = np.nonzero(phase == k)[0]
        m[f"climb.{name}"] = float(t[idx[-1]] - t[idx[0]]) if idx.size else nan
    dt_log = float(np.median(np.diff(t)))
    n_avg = max(1, int(round(0.1 / dt_log)))
    tau_m = moving_average(L["tau_motor"], n_avg)
    tau_a = moving_average(L["tau_arm"], n_avg)
    F_b = moving_average(L["tau_drive"], n_avg) / sc.controller.pulley_radius
    end = i_over if i_over is not None else len(t)
    win = np.zeros(len(t), bool)
    if i0 is not None:
        win[i0:end] = True
    active = win & (phase >= Phase.FLIP)
    m["climb.peak_motor_torque_Nm"] = float(tau_m[active].max()) if active.any() else nan
    cl = win & (phase == Phase.CLIMB)
    m["climb.peak_climb_torque_Nm"] = float(tau_m[cl].max()) if cl.any() else nan
    m["climb.peak_arm_torque_Nm"] = float(tau_a[active].max()) if active.any() else nan
    m["climb.peak_belt_force_N"] = float(F_b[active].max()) if active.any() else nan
    # the climb window (front face against the riser until the COM passes the edge): the outputs' work
    # referred to the motor shaft (see the module doc)
    if cl.any() and "work_out" in L and i_over is not None:  # (a climb that never got over has no window end)
        idx = np.nonzero(cl)[0]
        i_end = min(idx[-1] + 1, len(t) - 1)  # ``over``
        c = sc.controller
        m["climb.climb_work_J"] = float((L["work_out"][i_end] - L["work_out"][idx[0]]) / (c.i0 * c.i1))
    else:
        m["climb.climb_work_J"] = nan
    m["climb.edge_slip_m"] = edge_slip(L, cl, x_edge, h, sc.robot) if cl.any() and "edge_W" in L else nan
    flips = np.nonzero(phase == Phase.FLIP)[0]
    m["climb.stall_belt_force_N"] = (float(np.median(L["tau_drive"][flips])) / sc.controller.pulley_radius
                                     if flips.size else nan)
    m["climb.stall_arm_torque_Nm"] = float(np.median(L["tau_arm"][flips])) if flips.size else nan
    m["climb.flip_to_over_s"] = (float(t[i_over] - t[flips[0]]) if (i_over is not None and flips.size) else nan)
    # a support line needs contacts across the track's width (one-sided contact: no line AB)
    wide = np.abs(A[:, 1] - B[:, 1]) > 0.25 * getattr(sc.robot, "width", 0.0)
    ok = cl & np.isfinite(A[:, 0]) & np.isfinite(C[:, 0]) & wide
    if ok.any():
        mar = support_margins(A[ok], B[ok], C[ok], com[ok], up=-gh, com_behind_edge=True)
        m["climb.min_margin_m"] = float(mar.min())
    else:
        m["climb.min_margin_m"] = nan
    m["climb.max_pitch_deg"] = float(np.degrees(L["pitch"].max()))
    return m


EDGE_NEAR = 0.003  # m: a track–step contact this close to the edge line is on the edge (lab.forces.cleats')


def edge_slip(L: dict, window: np.ndarray, x_edge: float, h: float, robot) -> float:
    """Sum of |Δ(u − r ψ)| over consecutive logged samples of ``window`` at which the track touches the
    edge (see :func:`climb_metrics`): the belt's slip over the edge, 0 if the edge holds the belt."""
    from lab.forces.cleats import belt_coordinate

    pW, pB, psi = L["edge_W"], L["edge_B"], L["psi"]
    with np.errstate(invalid="ignore"):
        on_edge = window & (np.abs(pW[:, 0] - x_edge) < EDGE_NEAR) & (np.abs(pW[:, 2] - h) < EDGE_NEAR)
    idx = np.nonzero(on_edge)[0]
    if len(idx) < 2:
        return float("nan")
    l, r = robot.track_side, robot.pulley_radius
    per = 3 * l + 2 * math.pi * r
    u = np.array([belt_coordinate(pB[i], l, r)[0] - r * psi[i] for i in idx])
    du = (np.diff(u) + per / 2) % per - per / 2
    consecutive = np.diff(idx) == 1
    return float(np.abs(du[consecutive]).sum())


def check_drive_constants(spec, ctrl) -> None:
    """The controller's copy of the drive constants must be the robot's (Table 1)."""
    for name in ("i0", "i1", "i2", "motor_torque_max", "motor_speed_rpm", "pulley_radius"):
        a, b = getattr(spec, name), getattr(ctrl, name)
        if abs(a - b) > 1e-12 * max(1.0, abs(a)):
            raise ValueError(f"{name}: controller has {b}, robot has {a}; they must agree")


@register_trial("belt_slope")
@dataclass(frozen=True)
class BeltSlope(Trial):
    """The tracked robot on a slope with its belt driven at a commanded speed (or locked): the
    ``belt.body_speed_mps`` metric, the COM's mean speed along the slope (uphill positive) over the
    last ``window`` seconds of the run (the belt's closed forms: hold below atan μ, slide above;
    climb at the belt speed)."""

    headline = (Headline("belt.body_speed_mps", "COM speed along the slope, uphill positive"),)

    window: float = num(1.0, gt=0, le=100, unit="s", doc="averaging window at the end of the run")

    def metrics(self, sim, series: dict) -> dict:
        g = np.asarray(sim.world.gravity_W, float)
        up = -g[:2]  # the slope turns gravity: its in-plane part points downhill
        n = float(np.linalg.norm(up))
        up = up / n if n > 1e-12 else np.array([1.0, 0.0])
        t, xy = series["t"], series["xy"]
        if len(t) < 2:
            return {"belt.body_speed_mps": float("nan")}
        m = sim.world.model.mass
        s = (np.einsum("l,kli->ki", m, xy) / m.sum()) @ up  # the COM along the slope
        i = min(int(np.searchsorted(t, t[-1] - self.window)), len(t) - 2)
        return {"belt.body_speed_mps": float((s[-1] - s[i]) / (t[-1] - t[i]))}


__all__ = ["BeltSlope", "StepClimb", "climb_metrics", "check_drive_constants", "decided", "edge_slip", "moving_average"]
