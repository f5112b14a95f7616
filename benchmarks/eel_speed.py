"""Wall time of the eel (Zhang 2018) runs: the 50 s exact-model and non-inertial-model simulations, and
the engine run of lab/papers/zhang2018_eel/scenarios/eel_forward_turn.toml; plus the per-call cost of the pieces of one step.

The issue's bar: the engine run ≥ 10× faster than real time on this machine. Timings are the best of
``--repeat`` runs (the machine is shared: the best run is the least disturbed one); the load average
is printed beside them.

Usage: python benchmarks/eel_speed.py [--repeat R] [--duration S]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from lab.papers.zhang2018_eel.analysis import model_params_from_scenario
from lab.papers.zhang2018_eel.controllers import EelFeedbackLinearization
from lab.papers.zhang2018_eel.model.exact import ExactModel
from lab.papers.zhang2018_eel.model.noninertial import NonInertialModel, exact_state_to_noninertial
from lab.core.runner import Simulation
from lab.papers.zhang2018_eel import study as trial


def per_call(fn, *args, n: int = 2000) -> float:
    fn(*args)
    t0 = time.perf_counter()
    for _ in range(n):
        fn(*args)
    return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--duration", type=float, default=50.0)
    args = ap.parse_args()
    sc = trial.load([f"sim.duration={args.duration}"])
    P = model_params_from_scenario(sc)
    t = np.linspace(0.0, args.duration, int(round(args.duration / 0.02)) + 1)
    rows = {}
    for kind, cls in (("exact model (RK45, rtol = atol = 1e-6)", ExactModel),
                      ("non-inertial model (RK45, rtol = atol = 1e-6)", NonInertialModel)):
        best, nfev = np.inf, 0
        for _ in range(args.repeat):
            run = cls(P, EelFeedbackLinearization(sc.controller)).simulate(args.duration, t_eval=t)
            best, nfev = min(best, run.wall_s), run.nfev
        rows[kind] = (best, f"{nfev} RHS calls, {best / nfev * 1e6:.0f} µs each")
    best = np.inf
    for _ in range(args.repeat):
        sim = Simulation(sc)
        try:
            t0 = time.perf_counter()
            sim.run()
            best = min(best, time.perf_counter() - t0)
        finally:
            sim.close()
    steps = sc.sim.n_steps
    rows[f"engine (dt = {sc.sim.dt * 1e3:g} ms)"] = (best, f"{args.duration / best:.1f}× real time, "
                                                           f"{best / steps * 1e6:.0f} µs per step")
    print(f"eel_forward_turn, {args.duration:g} s simulated, best of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for k, (w, note) in rows.items():
        print(f"  {k:<48} {w:8.2f} s   {note}")

    # pieces of one engine step (µs per call) and of one model RHS
    sim = Simulation(sc)
    try:
        sim.run(duration=1.0)
        w = sim.world
        state = w.read_state()
        state = w.read_state()
        law = sim.forces["hydro"]
        ctrl = sim.controller
        x = ctrl.state_vector(state)
        pieces = {
            "world.read_state": per_call(w.read_state),
            "controller.act (FL, eqs. 35–37)": per_call(ctrl.act, state),
            "  of which non-inertial terms (eqs. 32–33)": per_call(ctrl._ni.terms, x),
            "hydrodynamics law": per_call(law, state, state.t),
        }
    finally:
        sim.close()
    y = np.zeros(2 * P.n + 4)
    y[: P.n - 1] = 0.3
    y[P.n + 2 :] = 0.1
    ex = ExactModel(P, EelFeedbackLinearization(sc.controller))
    ni = NonInertialModel(P, EelFeedbackLinearization(sc.controller))
    pieces["exact model rhs"] = per_call(ex.rhs, 1.0, y)
    pieces["non-inertial model rhs"] = per_call(ni.rhs, 1.0, exact_state_to_noninertial(y, P.n))
    print("per call:")
    for k, v in pieces.items():
        print(f"  {k:<48} {v * 1e6:8.1f} µs")


if __name__ == "__main__":
    main()
