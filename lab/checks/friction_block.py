"""friction_block: one module sliding under the scenario's Coulomb law stops where the law says.

What it compares depends on the law (lab.forces.friction), so that the bar measures the law and not
the integrator's known first-order lag:

* the velocity-level hard law (``coulomb_velocity``): the engine's stop distance against semi-implicit
  Euler's own discrete solution of a block under constant deceleration a = μ g,
  h·Σ_k max(v0 − k h a, 0) = v0²/(2a)·(1 − h a/v0) when v0/(h a) is whole (:func:`discrete_stop_distance`),
  to rounding; and separately the distance against the continuous v0²/(2a) within the integrator's
  first-order bound h a/v0 (tests/library/test_friction_velocity.py shows that gap halving with h);
* the regularised law (``coulomb``, ``coulomb_implicit``): the continuous closed form within 1 % and
  the path against the same tanh law integrated by Radau within the first-order bound (unchanged).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

from lab.core import scenario as scn
from lab.core.tolerances import tol
from lab.core.world import World
from lab.checks import Figure, check


def slide(spec, law, dt: float, gravity: float, v0_B: tuple[float, float], t_max: float = 20.0,
          v_stop: float = 1e-4, urdf: str | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """Launch one module of ``spec`` (or the slab ``urdf`` of :func:`block_urdf`) with body-frame velocity
    ``v0_B`` under the friction ``law`` and integrate until |v| < v_stop.

    Returns (distance, t, s(t)) where s is the distance travelled along the launch direction.
    """
    world = World(dt=dt, gravity=gravity)
    try:
        if urdf is None:
            world.load_robot(spec.module_urdf(), [0.0, 0.0, spec.rest_height], 0.0, spec.module_length, spec.effort)
        else:
            world.load_robot(urdf, [0.0, 0.0, BLOCK_HALF_HEIGHT], 0.0, 2 * BLOCK_HALF_SIDE, 0.0)
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


BLOCK_HALF_SIDE, BLOCK_HALF_HEIGHT = 0.05, 0.01  # m


def block_urdf(mass: float) -> str:
    """A square slab 10 × 10 × 2 cm of ``mass`` kg: the block of the tests at 5 and 10 ms, where the lone
    snake module (a 7.2 × 1.5 × 1.5 cm box, roll inertia 1.4e-5 kg·m²) rocks on Bullet's box contact
    and leaves the ground even without friction (measured: |ω| 5 rad/s at rest at 10 ms)."""
    a, c = 2 * BLOCK_HALF_SIDE, 2 * BLOCK_HALF_HEIGHT
    ixx = mass * (a * a + c * c) / 12.0
    izz = mass * (a * a + a * a) / 12.0
    return f"""<?xml version="1.0"?>
<robot name="block"><link name="block">
<inertial><origin xyz="0 0 0"/><mass value="{mass}"/>
<inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{ixx}" iyz="0" izz="{izz}"/></inertial>
<collision><origin xyz="0 0 0"/><geometry><box size="{a} {a} {c}"/></geometry></collision>
</link></robot>
"""


def discrete_stop_distance(v0: float, a: float, h: float) -> float:
    """Semi-implicit Euler's own stop distance of a block launched at v0 under constant deceleration a
    (the hard Coulomb law: v_{k+1} = max(v_k − h a, 0), x_{k+1} = x_k + h v_{k+1}):
    h·Σ_{k≥1} max(v0 − k h a, 0), which is v0²/(2a)·(1 − h a/v0) when v0/(h a) is whole. It tends to
    v0²/(2a) at first order in h."""
    n = int(math.floor(v0 / (h * a)))
    k = np.arange(1, n + 1, dtype=float)
    return float(h * np.sum(v0 - k * h * a))


def regularised_ode(mu: float, g: float, slip_tol: float, v0: float, t_eval: np.ndarray) -> np.ndarray:
    """s(t) for ṡ = v, v̇ = −μ g tanh(v / slip_tol): the callback's own law, integrated by Radau
    (the tanh makes it stiff near v = 0)."""
    sol = solve_ivp(lambda t, y: [y[1], -mu * g * np.tanh(y[1] / slip_tol)], (0.0, float(t_eval[-1])),
                    [0.0, v0], method="Radau", t_eval=t_eval, rtol=1e-10, atol=1e-12)
    return sol.y[0]


@check("friction_block")
def friction_block(overrides) -> dict[str, Figure]:
    """one module's mass launched along / across its axis stops where the Coulomb law says (Wang 2011, eq. 4): the hard law at semi-implicit Euler's own discrete solution, the regularised one within 1 % of v0²/(2μg)"""
    sc = scn.load("snake_passive_creeping", overrides)
    from dataclasses import replace

    law = replace(sc.friction, head_exempt=False)  # the lone module is its own head: keep its friction
    g, v0, h = sc.sim.gravity, 0.5, sc.sim.dt
    # the velocity-level hard law (no regularisation; coulomb_velocity with slip_tol > 0 takes the tanh)
    hard = float(getattr(law, "slip_tol", 0.0)) <= 0.0
    figs = {}
    # the hard law slides a slab of one module's mass (block_urdf: the lone module's own box rocks on the
    # engine's contact from 5 ms on, with or without friction); the regularised law the module itself
    urdf = block_urdf(float(sc.robot.mass)) if hard else None
    for label, mu, v0_B in (("along", law.mu_fwd, (v0, 0.0)), ("across", law.mu_n, (0.0, v0))):
        dist, t, s = slide(sc.robot, law, h, g, v0_B, urdf=urdf)
        a = mu * g
        d_closed = v0**2 / (2 * a)
        lag = h * a / v0  # semi-implicit Euler's first-order lag, relative to the distance
        if hard:
            d_disc = discrete_stop_distance(v0, a, h)
            figs[f"{label}.stop_distance_rel_err"] = Figure.at_most(
                abs(dist - d_disc) / d_disc, tol("friction.discrete_rel"),
                f"engine {dist:.7f} m vs semi-implicit Euler's own h·Σ(v0 − k h μg) = {d_disc:.7f} m (μ = {mu})")
            figs[f"{label}.vs_closed_form_rel"] = Figure.at_most(
                abs(dist - d_closed) / d_closed, tol("friction.closed_form_lag_factor") * lag,
                f"engine {dist:.5f} m vs v0²/(2μg) = {d_closed:.5f} m; first-order bound h·μ·g/v0 = {lag:.2g}")
            continue
        figs[f"{label}.stop_distance_rel_err"] = Figure.at_most(
            abs(dist - d_closed) / d_closed, tol("friction.stop_distance_rel"),
            f"engine {dist:.5f} m vs v0²/(2μg) = {d_closed:.5f} m (μ = {mu})")
        s_ode = regularised_ode(mu, g, law.slip_tol, v0, t)
        figs[f"{label}.vs_regularised_ode_rel"] = Figure.at_most(
            float(np.max(np.abs(s - s_ode))) / d_closed, tol("friction.vs_ode_factor") * lag,
            f"max |s_engine − s_ode| / stop distance; first-order bound h·μ·g/v0 = {lag:.2g}")
    return figs
