"""Where the motor's work goes over the climb window (Hu 2013 §3: the climb, front face against the riser
until the COM passes over the edge): the engine's ledger split W = ΔPE + ΔKE + D beside the screw
model's, whose no-slip, lossless climb spends its work ∫τ_m dθ (eq. 11) on ΔPE alone (quasi-static).

Engine side, from the recorder's ledger (every step, sampled every ``sim.record_every`` steps) on the
samples that bracket the window (its ends from the climb controller's log):
    W    the joints' work ∫τ·q̇ dt (arm and drive; the belt's geared joints carry no torque)
    ΔPE  −(gravity's work)
    ΔKE  the kinetic energy's change
    D    the work taken out by the engine's contacts (ground, riser, edge, top; normal and friction, at
         the contact points' velocities) and by the cleats (a force law): −(their work)
    residual_rel  (W − ΔPE − ΔKE − D) / W: how well the ledger closes over the window (what it misses:
         the solver's and the gear constraints' own work, the slabs' reset)
A step-climb run reports them as ``climb.ledger_work_J``, ``…_dpe_J``, ``…_dke_J``, ``…_dissipated_J``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WindowLedger:
    t0: float
    t1: float
    work: float  # J
    d_pe: float
    d_ke: float
    dissipated: float

    @property
    def residual_rel(self) -> float:
        return (self.work - self.d_pe - self.d_ke - self.dissipated) / self.work if self.work else math.nan


def climb_window(L: dict, sc) -> tuple[float, float] | None:
    """(start, end) of the climb window in a climb controller's log: the first climb-phase sample and the
    first later sample with the COM over the edge line (perpendicular to gravity); None if it never got over."""
    phase = L["phase"].astype(int)
    idx = np.nonzero(phase == 2)[0]
    if not idx.size:
        return None
    a = sc.arena
    g = a.gravity(sc.sim.gravity)
    gh = g / np.linalg.norm(g)
    x_e, h = a.edge
    com = L["com"]
    d = (com[:, 0] - x_e) * (-gh[2]) + (com[:, 2] - h) * gh[0]
    over = np.nonzero(d[idx[0]:] >= 0)[0]
    if not over.size:
        return None
    return float(L["t"][idx[0]]), float(L["t"][idx[0] + over[0]])


def engine_ledger(L: dict, series: dict, sc) -> WindowLedger | None:
    """The engine's split over the climb window (module doc)."""
    win = climb_window(L, sc)
    if win is None:
        return None
    t = series["t"]
    i0 = int(np.searchsorted(t, win[0]))
    i1 = min(int(np.searchsorted(t, win[1])), len(t) - 1)
    if i1 <= i0:
        return None
    ta, tb = float(t[i0]), float(t[i1])

    def delta(name):
        return float(series[name][i1] - series[name][i0])

    return WindowLedger(t0=ta, t1=tb, work=delta("W_in"), d_pe=-delta("work.gravity"), d_ke=delta("E"),
                        dissipated=delta("W_d") - delta("work.contacts"))


LEDGER_KEYS = ("ledger_work_J", "ledger_dpe_J", "ledger_dke_J", "ledger_dissipated_J")


def ledger_metrics(L: dict, series: dict, sc) -> dict:
    """``climb.ledger_*``: the engine's split over the climb window (NaN if the COM never got over)."""
    led = engine_ledger(L, series, sc) if hasattr(sc.arena, "edge") and len(L.get("t", ())) > 1 else None
    vals = (led.work, led.d_pe, led.d_ke, led.dissipated) if led is not None else (math.nan,) * 4
    return {f"climb.{k}": float(v) for k, v in zip(LEDGER_KEYS, vals)}


def from_metrics(m: dict) -> WindowLedger | None:
    """The split back from a run's ``climb.ledger_*`` metrics."""
    vals = [m.get(f"climb.{k}") for k in LEDGER_KEYS]
    if any(v is None or not math.isfinite(v) for v in vals):
        return None
    return WindowLedger(math.nan, math.nan, *vals)


def model_d_pe(mod) -> float:
    """The screw model's ΔPE over its climb window (level ground: M g Δz of its COM in the step frame)."""
    p = mod.path.params
    com = mod.path.com[: mod.n][mod.phase >= 1]
    return float((p.m_body + p.m_arm) * p.gravity * (com[-1, 2] - com[0, 2]))


__all__ = ["LEDGER_KEYS", "WindowLedger", "climb_window", "engine_ledger", "from_metrics", "ledger_metrics", "model_d_pe"]
