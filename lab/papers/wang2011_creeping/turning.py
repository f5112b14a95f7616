"""turning_law: the sign of φ_t sets the turn direction and the turning radius ∝ 1/|φ_t| (Wang 2011, Fig 8).

Passive creeping at Fig 8's E_ref = 0.7 J, μ_n = 0.5, μ_t = 0.01 for φ_t = ±0.05, ±0.1, ±0.2. φ_t enters
eq. 14 inside the head joint's PD bracket, i.e. (with k_p = 1) as a φ_t-rad offset of the head joint's
reference angle. Our joint angle is the child's yaw relative to the parent about +z and joint J−1 is
the head joint, so φ_t > 0 bends the head to the left; the check measures which way the robot turns.

Settings, and why:
- 40 s per run, the circle fitted to the head path over the last whole number of undulation periods
  (T = 2π/ω_xd = π s) inside the second half (20–40 s): the start-up transient is over by ~12 s and
  at |φ_t| = 0.05 the head still sweeps ≈ 1.4 rad of a ≈ 4.4 m circle. Whole periods make the
  serpentine wiggle (±0.14 m RMS) average out of the fit instead of biasing it by where it is cut.
- dt = 2 ms: the explicit friction callback needs dt < 2·slip_tol/(μ_n g) = 4.1 ms at μ_n = 0.5 (the
  scenario loader enforces it); 2 ms changes the radii by < 0.5 % against 1 ms (measured) and keeps
  the six runs at ~15 s of wall time on one core.

Measured (40 s, dt = 2 ms): φ_t = −0.2, −0.1, −0.05 → R = 1.10, 2.20, 4.36 m clockwise (right);
+0.05, +0.1, +0.2 → 4.48, 2.22, 1.10 m counter-clockwise (left); R·|φ_t| = 0.221 m·rad with CV 0.9 %,
log-log slope of R against |φ_t| −1.001. With 60 s at 1 ms (fit over 30–60 s; measured before the
link frames were read current, which moved the 40 s radii by < 0.5 %): ±0.05 → 4.38/4.37 m,
±0.1 → 2.19 m, ±0.2 → 1.09 m, +0.4 → 0.55 m, φ_t = 0 → straight (fitted R = 550 m, 1° swept).
So φ_t > 0 turns left in our convention and the paper's law R ∝ 1/|φ_t| holds in the engine.
"""

from __future__ import annotations

import math

import numpy as np

from lab.core import scenario as scn
from lab.checks import Figure, check
from lab.core.runner import run_scenario
from lab.core.tolerances import tol
from lab.papers.wang2011_creeping.analysis.turning import fit_circle, fit_window, plot_turning

PHI_T = (-0.2, -0.1, -0.05, 0.05, 0.1, 0.2)
SETTINGS = {"controller.E_ref": 0.7, "friction.mu_n": 0.5, "friction.mu_t": 0.01,
            "sim.duration": 40.0, "sim.dt": 0.002, "sim.record_every": 5}


def run_turns(overrides=None, phis=PHI_T, settings=SETTINGS) -> list[dict]:
    """One passive-creeping run per φ_t: (phi, series, fit, status)."""
    out = []
    for phi in phis:
        data = scn.apply_overrides(scn.read_toml(scn.resolve_path("snake_passive_creeping")), dict(settings))
        data = scn.apply_overrides(data, overrides or [])
        data = scn.apply_overrides(data, {"controller.phi_t": float(phi)})
        sc = scn.from_dict(data, where="turning_law")
        out.append(turn_record(phi, sc, run_scenario(sc)))
    return out


def turn_record(phi: float, sc, r) -> dict:
    """The circle fitted to one run's head path over whole undulation periods in the second half."""
    period = 2 * math.pi / sc.controller.xd_omega
    s = r.series
    keep = fit_window(s["t"], period)
    f = fit_circle(s["xy"][keep, -1, :])
    return {"phi": float(phi), "series": s, "fit": f, "status": r.status, "period": period}


def plot_turns(ax, turns: list[dict]) -> None:
    """Fig 8: the head paths of :func:`run_turns` on one axes with their fitted circles."""
    plot_turning(ax, [(tr["phi"], tr["series"]) for tr in turns], period=turns[0]["period"] if turns else None)


def law_figures(turns: list[dict]) -> tuple[int, float, float, str]:
    """(sign mismatches, CV of R·|φ_t|, fitted exponent p of R ∝ |φ_t|^−p, notes)."""
    mism = 0
    prods, phis, radii = [], [], []
    for tr in turns:
        f, phi = tr["fit"], tr["phi"]
        if tr["status"] != "ok" or f.direction != int(np.sign(phi)):
            mism += 1
        if math.isfinite(f.radius):
            prods.append(f.radius * abs(phi))
            phis.append(abs(phi))
            radii.append(f.radius)
    if len(prods) >= 2:
        prods_a = np.asarray(prods)
        cv = float(prods_a.std(ddof=1) / prods_a.mean())
        p = float(-np.polyfit(np.log(phis), np.log(radii), 1)[0]) if len(set(phis)) >= 2 else float("nan")
    else:
        cv, p = float("inf"), float("nan")
    notes = ", ".join(f"φ_t {tr['phi']:+g}: R {tr['fit'].radius:.3g} m dir {tr['fit'].direction:+d}" for tr in turns)
    return mism, cv, p, notes


@check("turning_law")
def turning_law(overrides) -> dict[str, Figure]:
    """φ_t > 0 turns left, φ_t < 0 right, and R·|φ_t| is constant over φ_t = ±0.05…±0.2 (Wang 2011, Fig 8)"""
    turns = run_turns(overrides)
    mism, cv, p, notes = law_figures(turns)
    prods = [tr["fit"].radius * abs(tr["phi"]) for tr in turns]
    return {
        "direction.mismatches": Figure.at_most(
            mism, tol("turning.sign_mismatches"),
            f"runs whose turn (CCW = left = +1) differs from sign(φ_t); φ_t > 0 turns left. {notes}"),
        "radius_x_phi.cv": Figure.at_most(
            cv, tol("turning.radius_phi_cv"),
            f"CV of R·|φ_t| (mean {np.mean(prods):.3g} m·rad); log-log slope of R vs |φ_t|: −{p:.3f}"),
    }
