"""Eel runs for the seed-003 cross-checks, diagnostics and report: the engine scenario and the two
analytic models under the same controller, reduced to the same signals (lab/papers/zhang2018_eel/analysis.py).

* :func:`engine_run` — the scenario on the engine (headless);
* :func:`model_run` — the exact or the non-inertial model with the scenario's parameters
  (geometry from the robot spec, coefficients from the hydrodynamics law, controller from [controller]);
* :func:`term_overrides` / :func:`term_diagnostics` — each hydrodynamic term alone, engine vs exact model,
  to find which one differs when they disagree.
"""

from __future__ import annotations

import time

import numpy as np

from lab.core import scenario as scn
from lab.papers.zhang2018_eel.analysis import EelSignals, compare, from_engine_series, hydro_law, model_params_from_scenario, run_model

SCENARIO = "eel_forward_turn"

# Term groups for the diagnostics: name → EelParams.only(...) terms, and the scenario fields they own.
TERMS = {
    "linear drag": ("linear",),
    "quadratic drag": ("quadratic",),
    "added mass (u_n, λ1)": ("added_mass", "added_inertia"),
    "fluid torques (λ2, λ3)": ("torque_linear", "torque_quadratic"),
}
_FIELDS = {"linear": ("c_t", "c_n"), "quadratic": ("c_t2", "c_n2"), "added_mass": ("u_n",),
           "added_inertia": ("lambda1",), "torque_linear": ("lambda2",), "torque_quadratic": ("lambda3",)}


def load(overrides=None):
    return scn.load(SCENARIO, overrides)


def engine_run(sc) -> tuple[EelSignals, object]:
    """Run the scenario on the engine; returns (signals, RunResult)."""
    from lab.core.runner import Simulation

    sim = Simulation(sc)
    try:
        t0 = time.perf_counter()
        result = sim.run()
        wall = time.perf_counter() - t0
        masses = sim.world.model.mass
    finally:
        sim.close()
    sig = from_engine_series(result.series, masses, "engine", wall)
    sig.info.update(status=result.status, realtime_factor=result.metrics.get("realtime_factor", 0.0),
                    dt=sc.sim.dt, steps=result.metrics.get("steps", 0))
    return sig, result


def model_run(sc, kind: str, t: np.ndarray, rtol: float = 1e-6, atol: float = 1e-6,
              torque_lag: float = 0.0, hold: float = 0.0) -> EelSignals:
    """The exact ('exact') or non-inertial ('noninertial') model with the scenario's parameters, from the
    zero state (straight and at rest, as the engine starts), sampled at ``t``.

    ``torque_lag``: report the torque at t − lag, as an engine run records it (the torque in the sample
    at t_k was computed from the state at t_k − dt and held over that step). Without it, every step of
    eq. 39's γ falls between the two: the model's sample at t = 10 s already has the new γ, the
    engine's not yet.

    ``hold``: the controller sampled and held every ``hold`` seconds, as the engine applies it (the exact
    model only; :func:`lab.papers.zhang2018_eel.model.exact.simulate_held`). The torque lag is then
    exact rather than first order, and the start-up transient of the error dynamics (eq. 38's fast
    pole, −98 s⁻¹) is held the same way on both sides."""
    t = np.asarray(t, dtype=float)
    if hold > 0:  # the engine's sample-and-hold: its torque at t_k is already the one held over the last step
        return run_model(kind, model_params_from_scenario(sc), sc.controller, float(t[-1]), t, hold=hold)
    if torque_lag <= 0:
        return run_model(kind, model_params_from_scenario(sc), sc.controller, float(t[-1]), t, rtol=rtol, atol=atol)
    t_lag = np.clip(t - torque_lag, 0.0, None)
    grid, inv = np.unique(np.concatenate([t, t_lag]), return_inverse=True)
    sig = run_model(kind, model_params_from_scenario(sc), sc.controller, float(t[-1]), grid, rtol=rtol, atol=atol)
    i_t, i_lag = inv[: len(t)], inv[len(t) :]
    p_all = sig.p + 0.0
    return EelSignals(label=sig.label, t=t, theta0=sig.theta0[i_t], p=p_all[i_t] - p_all[i_t][0], v=sig.v[i_t],
                      u=sig.u[i_lag], phi=sig.phi[i_t], wall_s=sig.wall_s, info=dict(sig.info, torque_lag=torque_lag))


def term_overrides(terms: tuple[str, ...], base_overrides=None) -> list[str]:
    """``--set`` overrides keeping only the given EelParams terms, on the law, the controller and (for
    the folded added mass) the robot alike, so the scenario stays consistent. The quadratic drag
    coefficients are first written out explicitly (they default to the linear ones, eq. 22), so that
    switching the linear term off leaves the quadratic one alone."""
    law = hydro_law(load(base_overrides))
    out = [f"forces.hydro.c_t2={law.ct2!r}", f"controller.c_t2={law.ct2!r}",
           f"forces.hydro.c_n2={law.cn2!r}", f"controller.c_n2={law.cn2!r}"]
    for term, fields in _FIELDS.items():
        if term in terms:
            continue
        for f in fields:
            out += [f"forces.hydro.{f}=0.0", f"controller.{f}=0.0"]
    if "added_mass" not in terms:
        out.append("robot.added_mass=0.0")
    if "added_inertia" not in terms:
        out.append("robot.added_yaw_inertia=0.0")
    return out


def term_diagnostics(duration: float = 20.0, base_overrides=None, only: str | None = None) -> list[dict]:
    """Engine vs exact model with one hydrodynamic term group at a time (and all together). ``only``: that
    group's row alone (the report computes the groups side by side)."""
    rows = []
    groups = dict(TERMS)
    groups["all terms"] = tuple(t for ts in TERMS.values() for t in ts)
    for label, terms in groups.items():
        if only is not None and label != only:
            continue
        sc = load([*(base_overrides or []), *term_overrides(terms, base_overrides), f"sim.duration={duration}"])
        eng, _ = engine_run(sc)
        ex = model_run(sc, "exact", eng.t, torque_lag=sc.sim.dt)
        c = compare(ex, eng, fd_velocity=True, skip_first_torque=True)
        rows.append({"terms": label, **c})
    return rows


__all__ = ["SCENARIO", "TERMS", "engine_run", "load", "model_run", "term_diagnostics", "term_overrides"]
