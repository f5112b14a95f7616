"""Table 2 of Wang 2011: mean energy ratio η2 for passive creeping and serpenoid control on three surfaces.

The paper gives no friction numbers for its surfaces, only their order by friction with the passive
wheel (largest first): textile carpet > rough rubber > medium rubber > smooth rubber > smooth wood
(§4.2). Table 2 uses carpet, smooth rubber and smooth wood. Our pairs (μ_n lateral sliding, μ_t
tangential ≈ rolling resistance plus axle friction, as the paper's §3 defines them) put the three
surfaces on a line through the ranges of the paper's own simulation pairs, (0.3, 0.03) and
(0.5, 0.01), both coefficients falling in the paper's order:

    textile carpet  μ_n = 0.5, μ_t = 0.03   most lateral grip; carpet pile under a small wheel gives the
                                            highest rolling resistance (soft ground: 0.02–0.08 in the usual
                                            rolling-resistance tables, e.g. the Engineering ToolBox's)
    smooth rubber   μ_n = 0.4, μ_t = 0.02   the midpoint
    smooth wood     μ_n = 0.3, μ_t = 0.01   least grip; a hard wheel on a hard floor rolls easily
                                            (~0.001–0.01 in the same tables; 0.01 keeps the paper's
                                            "rolling friction 1–2 orders below sliding")

These are assumptions, not measurements; the ratio μ_n/μ_t goes 17, 20, 30. The paper's Table 2 values
are experimental (real robot, Optotrak); see :data:`lab.papers.wang2011_creeping.analysis.energy.ETA2_NOTE` for why the engine's
η2 (eq. 11) is ≈ 0.99 instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.core import scenario as scn
from lab.core.runner import run_scenario
from lab.papers.wang2011_creeping.analysis.energy import eta2_interpretations


@dataclass(frozen=True)
class Surface:
    name: str
    mu_n: float
    mu_t: float
    # Table 2 (mean ± sd over 5 runs): passive creeping, serpenoid
    paper_passive: tuple[float, float]
    paper_serpenoid: tuple[float, float]


SURFACES = (
    Surface("textile carpet", 0.5, 0.03, (0.245, 0.010), (0.255, 0.009)),
    Surface("smooth rubber", 0.4, 0.02, (0.249, 0.007), (0.241, 0.025)),
    Surface("smooth wood", 0.3, 0.01, (0.262, 0.013), (0.240, 0.005)),
)

CONTROLLERS = (("passive creeping", "snake_passive_creeping"), ("serpenoid", "snake_serpenoid"))

COLUMNS = ("surface", "mu_n", "mu_t", "controller", "eta2_lab", "eta2_com_lab", "omega_per_v_rad_m",
           "com_speed_mps", "paper_eta2", "paper_eta2_sd", "status")


def run_surfaces(duration: float | None = None, overrides: list[str] | None = None,
                 surfaces=SURFACES) -> list[dict]:
    """One run per (surface, controller); rows with the lab's η2 (eq. 11, mean over the second half)
    next to Table 2's. ``overrides`` are applied to both scenarios (before the surface's μ)."""
    rows = []
    for surf in surfaces:
        for label, scen in CONTROLLERS:
            data = scn.apply_overrides(scn.read_toml(scn.resolve_path(scen)), overrides or [])
            data = scn.apply_overrides(data, {"friction.mu_n": surf.mu_n, "friction.mu_t": surf.mu_t})
            if duration is not None:
                data = scn.apply_overrides(data, {"sim.duration": float(duration)})
            sc = scn.from_dict(data, where=scen)
            r = run_scenario(sc)
            extra = eta2_interpretations(r.series)
            paper = surf.paper_passive if label == "passive creeping" else surf.paper_serpenoid
            rows.append({
                "surface": surf.name, "mu_n": surf.mu_n, "mu_t": surf.mu_t, "controller": label,
                "eta2_lab": r.metrics.get("energy.eta2_mean", float("nan")),
                "eta2_com_lab": extra["energy.eta2_com"],
                "omega_per_v_rad_m": extra["energy.omega_per_v_rad_m"],
                "com_speed_mps": r.metrics.get("com.speed_mean_mps", float("nan")),
                "paper_eta2": paper[0], "paper_eta2_sd": paper[1], "status": r.status,
            })
    return rows


def table_markdown(rows: list[dict]) -> str:
    """The rows as a markdown table (η2 = eq. 11; η2_COM = the labelled interpretation)."""
    head = ("| surface | μ_n | μ_t | controller | η2 lab (eq. 11) | η2_COM lab (interp.) | ω/v [rad/m] "
            "| paper η2 (exp.) |\n|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        lines.append(f"| {r['surface']} | {r['mu_n']:g} | {r['mu_t']:g} | {r['controller']} | {r['eta2_lab']:.3f} "
                     f"| {r['eta2_com_lab']:.3f} | {r['omega_per_v_rad_m']:.2f} "
                     f"| {r['paper_eta2']:.3f} ± {r['paper_eta2_sd']:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - manual use: python -m lab.papers.wang2011_creeping.surfaces [duration]
    import logging
    import sys

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    dur = float(sys.argv[1]) if len(sys.argv) > 1 else None
    logging.getLogger(__name__).info("%s", table_markdown(run_surfaces(dur)))
