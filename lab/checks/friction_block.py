"""friction_block: one module sliding under the Coulomb callback stops where v0²/(2μg) says."""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from lab.core import scenario as scn
from lab.core.tolerances import tol
from lab.core.world import World
from lab.checks import Figure, check


def slide(spec, law, dt: float, gravity: float, v0_B: tuple[float, float], t_max: float = 20.0,
          v_stop: float = 1e-4) -> tuple[float, np.ndarray, np.ndarray]:
    """Launch one module with body-frame velocity ``v0_B`` and integrate until |v| < v_stop.

    Returns (distance, t, s(t)) where s is the distance travelled along the launch direction.
    """
    world = World(dt=dt, gravity=gravity)
    try:
        world.load_robot(spec.module_urdf(), [0.0, 0.0, spec.rest_height], 0.0, spec.module_length, spec.effort)
        world.set_base_velocity([v0_B[0], v0_B[1], 0.0])
        state = world.read_state()
        p0 = state.p_W[0].copy()
        d = np.array([v0_B[0], v0_B[1], 0.0]) / np.hypot(*v0_B)
        ts, ss = [0.0], [0.0]
        for _ in range(int(t_max / dt)):
            F = law(state, state.t)
            world.apply(None, F, state)
            world.step_engine()
            state = world.read_state()
            ts.append(state.t)
            ss.append(float(np.dot(state.p_W[0] - p0, d)))
            if np.linalg.norm(state.v_W[0]) < v_stop:
                break
        return float(np.linalg.norm((state.p_W[0] - p0)[:2])), np.array(ts), np.array(ss)
    finally:
        world.close()


def regularised_ode(mu: float, g: float, slip_tol: float, v0: float, t_eval: np.ndarray) -> np.ndarray:
    """s(t) for ṡ = v, v̇ = −μ g tanh(v / slip_tol): the callback's own law, integrated by Radau
    (the tanh makes it stiff near v = 0)."""
    sol = solve_ivp(lambda t, y: [y[1], -mu * g * np.tanh(y[1] / slip_tol)], (0.0, float(t_eval[-1])),
                    [0.0, v0], method="Radau", t_eval=t_eval, rtol=1e-10, atol=1e-12)
    return sol.y[0]


@check("friction_block")
def friction_block(overrides) -> dict[str, Figure]:
    """one module launched along / across its axis stops after v0²/(2μg) (Wang 2011, eq. 4)"""
    sc = scn.load("snake_passive_creeping", overrides)
    from dataclasses import replace

    law = replace(sc.friction, head_exempt=False)  # the lone module is its own head: keep its friction
    g, v0 = sc.sim.gravity, 0.5
    figs = {}
    for label, mu, v0_B in (("along", law.mu_fwd, (v0, 0.0)), ("across", law.mu_n, (0.0, v0))):
        dist, t, s = slide(sc.robot, law, sc.sim.dt, g, v0_B)
        d_closed = v0**2 / (2 * mu * g)
        figs[f"{label}.stop_distance_rel_err"] = Figure.at_most(
            abs(dist - d_closed) / d_closed, tol("friction.stop_distance_rel"),
            f"engine {dist:.5f} m vs v0²/(2μg) = {d_closed:.5f} m (μ = {mu})")
        s_ode = regularised_ode(mu, g, law.slip_tol, v0, t)
        bound = sc.sim.dt * mu * g / v0  # semi-implicit Euler's first-order lag, relative to the distance
        figs[f"{label}.vs_regularised_ode_rel"] = Figure.at_most(
            float(np.max(np.abs(s - s_ode))) / d_closed, tol("friction.vs_ode_factor") * bound,
            f"max |s_engine − s_ode| / stop distance; first-order bound h·μ·g/v0 = {bound:.2g}")
    return figs
