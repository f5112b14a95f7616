"""energy_balance: motor work = kinetic energy gained + friction dissipation (Wang 2011, eq. 6)."""

from __future__ import annotations

from lab.core import scenario as scn
from lab.core.runner import run_scenario
from lab.core.tolerances import tol
from lab.checks import Figure, check


@check("energy_balance")
def energy_balance(overrides) -> dict[str, Figure]:
    """passive-creeping run: |ΔE − ∫(P_in − P_d)dt| / ∫|P_in|dt within the measured first-order bar (Wang 2011, eq. 6)"""
    sc = scn.load("snake_passive_creeping", overrides)
    r = run_scenario(sc)
    m = r.metrics
    return {
        "residual_rel": Figure.at_most(
            abs(m["energy.balance_residual_rel"]), tol("energy.balance_rel_per_s") * sc.sim.dt,
            f"ΔE − ∫(P_in − P_d)dt = {m['energy.balance_residual_J']:.4g} J of ∫P_in = {m['energy.input_work_J']:.4g} J "
            f"over {m['sim_time_s']:g} s at dt = {sc.sim.dt} s"),
    }
