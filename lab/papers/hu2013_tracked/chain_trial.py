"""The ``chain_climb`` trial: the cooperative climb's ``chain.*`` metrics (lab.papers.hu2013_tracked.chain_climb
and .parallel_climb are its controllers).

Metrics: success (every module's centre above the top at the end), the climb time (first stall at the
riser to the tail on the top), each motor class's peak |τ| over its stall torque and the share of the
climb it sat there (the World clips every torque to its motor's line, so the ratio never exceeds 1: the
time at the limit says a motor was short), the connectors' peak after a 0.5 s moving average, the
smallest support margin over the climb (eq. 13 generalised on the engine's contacts) and the ledger
over the climb window W = ΔPE + ΔKE + D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.fields import info, num
from lab.core.views import Headline
from lab.trials.base import Trial, register_trial

from .chain_climb import ChainClimbParams, ChainPhase
from .parallel_climb import ParallelClimbParams


# ---------------------------------------------------------------------------------------------- trial


@register_trial("chain_climb")
@dataclass(frozen=True)
class ChainClimbTrial(Trial):
    """Needs the ``chain_climb`` controller and a ``step`` arena (module doc)."""

    headline = (Headline("chain.success", "every module's centre on the top at the end"),
                Headline("chain.time_s", "first stall at the riser to the tail on the top", missing="did not get up"),
                Headline("chain.min_margin_m", "least support margin over the climb (engine contacts)",
                         against="> 0: statically stable"),
                Headline("chain.peak_connector_ratio", "largest connector |τ| / its stall torque"),
                Headline("chain.peak_drive_ratio", "largest drive |τ| / its stall torque"),
                Headline("chain.limit_fraction", "share of the climb any motor sat at its line"))

    stop_when_decided: bool = info(True, doc="end the run 1 s after every module is on the top, at once if the "
                                             "model has no plan for the step, or once the plan has waited give_up_s")
    give_up_s: float = num(12.0, gt=0, le=1000, unit="s", doc="a climb whose plan has not advanced for this long has failed")

    def validate_scenario(self, robot, controller, arena, sim) -> None:
        if not isinstance(controller, (ChainClimbParams, ParallelClimbParams)):
            raise ValueError('type: "chain_climb" needs the "chain_climb" or "parallel_climb" controller (it reads its log)')
        if getattr(robot, "n_modules", None) != controller.n_modules:
            raise ValueError("controller.n_modules: must equal robot.n_modules")
        want = "parallel" if isinstance(controller, ParallelClimbParams) else controller.layout
        if getattr(robot, "layout", None) != want:
            raise ValueError(f'robot.layout: the controller needs "{want}"')
        if want == "parallel":
            return
        if abs(getattr(robot, "coupler_length", 0.0) - controller.coupler_length) > 1e-12:
            raise ValueError("controller.coupler_length: must equal robot.coupler_length")
        h = getattr(arena, "step_height", None)
        if h is not None and abs(h - controller.step_height) > 1e-12:
            raise ValueError("controller.step_height: must equal arena.step_height")

    def stop_condition(self, sim, state0):
        if not self.stop_when_decided:
            return None
        ctrl = sim.controller
        since = [math.inf]

        def done(s):
            if ctrl.no_plan or ctrl.waited >= self.give_up_s:
                return True
            if ctrl.phase in (ChainPhase.APPROACH, ChainPhase.TRANSFER) and s.t - ctrl.t_phase[-1][0] > 4 * self.give_up_s:
                return True  # never stalled at the riser
            if ctrl.phase == ChainPhase.DRIVE_ON:
                since[0] = min(since[0], s.t)
            return s.t - since[0] >= 1.0

        return done

    def metrics(self, sim, series: dict) -> dict:
        return chain_metrics(sim.controller, sim.scenario, series)


def chain_metrics(ctrl, sc, series) -> dict:
    L = ctrl.logged()
    arena, robot = sc.arena, sc.robot
    h, x_e = float(arena.step_height), float(arena.step_x)
    out = {}
    cen = L["centres"]
    # a loop's upper modules ride above the top from the start: its bottom pair must be past the edge
    ahead = cen[-1, :2, 0] > x_e if getattr(robot, "is_loop", False) else cen[-1, :, 0] > x_e if len(cen) else 0
    on_top = np.all(ahead) & (cen[-1, :, 2] > h + 0.5 * robot.rest_height) if len(cen) else np.zeros(1, bool)
    out["chain.success"] = bool(np.all(on_top))
    starts = [t for t, ph, j in ctrl.t_phase if ph == ChainPhase.CLIMB]
    ends = [t for t, ph, j in ctrl.t_phase if ph == ChainPhase.DRIVE_ON]
    out["chain.time_s"] = float(ends[0] - starts[0]) if starts and ends and out["chain.success"] else math.nan
    window = (L["t"] >= (starts[0] if starts else math.inf)) & (L["t"] <= (ends[0] if ends else math.inf))
    m = L["margin"][window]
    out["chain.min_margin_m"] = float(np.nanmin(m)) if np.isfinite(m).any() else math.nan
    # motor loads from the applied (clipped) torques the recorder kept
    tau, t = np.asarray(series["tau"]), np.asarray(series["t"])
    lines = robot.motors()
    names = list(sim_joint_names(ctrl))
    w = (t >= (starts[0] if starts else math.inf)) & (t <= (ends[0] if ends else t[-1] if len(t) else 0))
    at_limit = np.zeros(int(w.sum()), bool)
    for cls in ("connector", "drive", "arm"):
        peak = 0.0
        at_cls = np.zeros(int(w.sum()), bool)
        for name, line in lines.items():
            if _class(name) != cls or name not in names:
                continue
            j = names.index(name)
            ratio = np.abs(tau[w, j]) / line[0]
            if ratio.size:
                peak = max(peak, float(ratio.max()))
                at_cls |= ratio > 0.98
        at_limit |= at_cls
        out[f"chain.peak_{cls}_ratio"] = peak
        out[f"chain.limit_fraction_{cls}"] = float(at_cls.mean()) if at_cls.size else math.nan
    out["chain.limit_fraction"] = float(at_limit.mean()) if at_limit.size else math.nan
    # the connectors' peak after a 0.5 s moving average (the contact solve makes joint torques jitter; the
    # plan is quasi-static)
    conn = [names.index(n) for n in lines if _class(n) == "connector" and n in names]
    n_avg = max(1, int(round(0.5 / max(float(np.median(np.diff(t))) if len(t) > 1 else 1.0, 1e-9))))
    if conn and w.sum() > n_avg:
        out["chain.peak_connector_avg_Nm"] = float(np.max(np.abs(_moving_average(tau[w][:, conn], n_avg))))
    else:
        out["chain.peak_connector_avg_Nm"] = math.nan
    # the ledger over the climb window: W = ΔPE + ΔKE + D
    M = float(ctrl.model.mass.sum())
    out["chain.mass_kg"] = M
    if w.sum() > 1:
        i0, i1 = np.nonzero(w)[0][[0, -1]]
        com, W_in = np.asarray(series["com"]), np.asarray(series["W_in"])
        KE = np.asarray(series["E"])
        d_pe = M * 9.81 * float(com[i1, 2] - com[i0, 2])
        d_ke = float(KE[i1] - KE[i0])
        work = float(W_in[i1] - W_in[i0])
        out.update({"chain.ledger_work_J": work, "chain.ledger_dpe_J": d_pe, "chain.ledger_dke_J": d_ke,
                    "chain.ledger_dissipated_J": work - d_pe - d_ke})
    out["chain.climbs_started"] = len(starts)
    out["chain.plan_ok"] = not ctrl.no_plan  # False: the model says the chain cannot take this step (geometry)
    return out


def _moving_average(x: np.ndarray, n: int) -> np.ndarray:
    k = np.ones(n) / n
    return np.apply_along_axis(lambda c: np.convolve(c, k, mode="valid"), 0, x)


def sim_joint_names(ctrl):
    return ctrl.model.joint_names


def _class(name: str) -> str:
    if name.startswith("c"):
        return "connector"
    return "drive" if name.endswith("drive_joint") else "arm"


__all__ = ["ChainClimbTrial", "chain_metrics"]
