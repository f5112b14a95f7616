"""Runs for the seed-000 checks and report: the engine scenario and the analytic model under the same
PFL law, reduced to the same signals in the paper's coordinates.

* :func:`model_params` — the model with the scenario's robot (m and J of a module, body and wheels,
  from the robot spec), controller (gains, reference) and start (Table 1's q0, rebuilt from the
  scenario's [init] pose and robot.zero_shape; tested to equal Table 1's row);
* :func:`engine_run` — the scenario on the engine, in this process (with the controller's per-step
  slip log); :func:`from_run` — the same signals from a finished run's series (a report run);
* :func:`model_run` — the PFL closed loop on the unified model (or the E–L model, or the E–L model
  with the engine wheels' spin inertia, :mod:`.wheel_inertia`);
* :func:`required_friction` — the lateral wheel force each module needs, over its weight, along a
  model run: the friction coefficient below which the paper's no-slip wheel cannot be realised.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from lab.core import scenario as scn
from lab.papers.guo2015_wheeled.controllers import wrap
from lab.robots.wheeled_snake import Layout
from lab.papers.guo2015_wheeled import model as gw
from lab.papers.guo2015_wheeled.params import Guo2015Params

SCENARIO = "snake_head_tracking"


def load(overrides=None):
    return scn.load(SCENARIO, overrides)


def paper_q0(sc) -> np.ndarray:
    """The paper's q = (x, y, θ, φ) at t = 0 of the scenario: the tail module's centre and heading from
    [init], the joints at robot.zero_shape (the runner starts them at 0 on that built-in shape)."""
    spec = sc.robot
    l = spec.half_length
    yaw = math.radians(sc.init.heading_deg) + np.concatenate(([0.0], np.cumsum(spec.zero_shape)))
    x_hat = np.stack([np.cos(yaw), np.sin(yaw)], axis=1)  # each module's axis, towards the head
    centres = np.asarray(sc.init.position, float) + l * np.concatenate(
        ([[0.0, 0.0]], np.cumsum(x_hat[:-1] + x_hat[1:], axis=0)))
    head = centres[-1] + l * x_hat[-1]
    theta = yaw[::-1] + np.pi  # paper modules from the head, axes pointing tailward
    return np.concatenate((head, [float(wrap(theta[0]))], wrap(np.diff(theta))))


def model_params(sc) -> Guo2015Params:
    """Guo2015Params of the scenario (see the module docstring); the start is at rest, as the engine's."""
    spec, c = sc.robot, sc.controller
    m, J = spec.module_totals()
    q0 = paper_q0(sc)
    return Guo2015Params(n=spec.n_modules, m=m, l=spec.half_length, J=J, k_p=c.k_p, k_d=c.k_d, ref_vx=c.ref_vx,
                         ref_amp=c.ref_amp, ref_period=c.ref_period, xy0=tuple(q0[:2]), theta0=float(q0[2]),
                         phi0=tuple(q0[3:]), source="scenario")


@dataclass
class Signals:
    """One run in the paper's coordinates: head point r, reference r_ref, joint angles φ and torques u
    (head joint first), sampled at t."""

    label: str
    t: np.ndarray
    r: np.ndarray
    r_ref: np.ndarray
    phi: np.ndarray
    u: np.ndarray
    wall_s: float = 0.0
    info: dict = field(default_factory=dict)

    @property
    def head_error(self) -> np.ndarray:
        return np.hypot(*(self.r_ref - self.r).T)

    def head_rms(self, t_from: float = 20.0, t_to: float = math.inf) -> float:
        """RMS of the head's distance to r_ref(t) over t_from ≤ t ≤ t_to."""
        k = (self.t >= t_from) & (self.t <= t_to)
        return float(np.sqrt(np.mean(self.head_error[k] ** 2)))

    def torque_rms(self, t0: float = 36.0, t1: float = 60.0) -> np.ndarray:
        k = (self.t >= t0) & (self.t <= t1) & (self.t > 0)
        return np.sqrt(np.mean(self.u[k] ** 2, axis=0))


def torque_shape_error(sig: Signals, ref: Signals, t0: float = 36.0, t1: float = 60.0) -> np.ndarray:
    """Per joint, the normalised RMS error of ``sig``'s torques against ``ref``'s over [t0, t1]:
    ‖u − u_ref‖_rms / ‖u_ref‖_rms on ``sig``'s samples (``ref`` linearly interpolated onto them), nothing
    aligned or rescaled — a torque with the right RMS but the wrong shape or phase shows here."""
    k = (sig.t >= t0) & (sig.t <= t1) & (sig.t > 0)
    tk = sig.t[k]
    u_ref = np.column_stack([np.interp(tk, ref.t, ref.u[:, j]) for j in range(ref.u.shape[1])])
    return np.sqrt(np.mean((sig.u[k] - u_ref) ** 2, axis=0)) / np.sqrt(np.mean(u_ref ** 2, axis=0))


def from_run(result, label: str = "engine", wall_s: float = 0.0) -> Signals:
    """Signals from a RunResult of the scenario: the head point is the head_tip link, φ from the module
    links' yaws, u = −τ reversed (the recorded torque at t was computed at t − dt and held over the step)."""
    sc, s = result.scenario, result.series
    lay = Layout.default(sc.robot.n_modules)
    yaw = s["yaw"][:, lay.modules]
    theta = yaw[:, ::-1] + np.pi
    p = model_params(sc)
    t = s["t"]
    return Signals(label, t, s["xy"][:, lay.tip, :].copy(), np.array([p.reference(tk)[0] for tk in t]),
                   wrap(np.diff(theta, axis=1)), -s["tau"][:, lay.yaw_joints][:, ::-1], wall_s,
                   {"status": result.status, **{k: v for k, v in result.metrics.items()
                                                 if k.startswith(("pfl.", "wheels.", "energy."))}})


def engine_run(sc) -> tuple[Signals, object, dict]:
    """The scenario on the engine, headless, in this process: (signals, RunResult, the controller's logs)."""
    from lab.core.runner import Simulation

    sim = Simulation(sc)
    try:
        t0 = time.perf_counter()
        c0 = time.process_time()
        result = sim.run()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        logs = sim.controller.logged()
    finally:
        sim.close()
    sig = from_run(result, "engine", wall)
    sig.info.update(cpu_s=cpu, realtime_factor=result.metrics.get("realtime_factor", 0.0), dt=sc.sim.dt)
    return sig, result, logs


@dataclass
class FrictionUse:
    """How much of the engine's friction the wheels use, per step over the start of a run (the largest
    lateral forces of the run): ``t`` (K,), ``lateral_over_weight`` (K, n) |Σ lateral force| / (m g) per
    module, ``lateral_over_normal`` (K, n) |Σ lateral force| / Σ normal force per module (both wheels),
    ``contact_use`` (K,) the largest |friction| / (μ N) of any single wheel contact, μ the engine's
    combined coefficient (wheel × ground), ``p_W`` (K, links, 3) the link positions; ``status``."""

    mu: float
    t: np.ndarray
    lateral_over_weight: np.ndarray
    lateral_over_normal: np.ndarray
    contact_use: np.ndarray
    p_W: np.ndarray
    status: str = "ok"


def friction_use(sc, t_end: float = 0.3) -> FrictionUse:
    """Run scenario ``sc`` on the engine for ``t_end`` and read, after every step, the wheels' contact
    forces from the World's contact snapshot (lab.core.contacts: normal force and the friction force on the
    robot, world frame); the lateral direction of module i is its y axis (the axle)."""
    from lab.core.contacts import F_T, Col
    from lab.core.observers import Probe
    from lab.core.runner import Simulation

    rows_t, lw, ln, use, pos = [], [], [], [], []
    ctx = {}

    def sample(k, pre, tau, parts, state):
        lay, mod_of, weight, mu = ctx["lay"], ctx["mod_of"], ctx["weight"], ctx["mu"]
        n = len(lay.modules)
        lat, fn, u = np.zeros(n), np.zeros(n), 0.0
        y_W = state.R_WB[lay.modules][:, :, 1]
        for r in state.contacts:
            i = mod_of.get(int(r[Col.LINK]))
            if i is None:
                continue
            f = r[F_T]
            lat[i] += f @ y_W[i]
            fn[i] += r[Col.FN]
            if r[Col.FN] > 0:
                u = max(u, float(np.linalg.norm(f)) / (mu * r[Col.FN]))
        rows_t.append(state.t)
        lw.append(np.abs(lat) / weight)
        ln.append(np.abs(lat) / np.maximum(fn, 1e-300))
        use.append(u)
        pos.append(state.p_W.copy())

    sim = Simulation(sc, observers=(Probe(sample),))  # after every step: the contact snapshot of the new state
    try:
        w = sim.world
        lay = Layout.of(w.model)
        mass = w.model.mass
        ctx.update(lay=lay, mod_of={int(link): i for i, pair in enumerate(lay.wheels) for link in pair},
                   weight=(mass[lay.modules] + mass[lay.wheels].sum(axis=1)) * sc.sim.gravity,
                   mu=float(sc.robot.wheel_friction) * float(getattr(sc.arena, "friction", 1.0)))
        result = sim.run(duration=t_end)
    finally:
        sim.close()
    mu = ctx["mu"]
    status = "ok" if result.status == "ok" else f"{result.status}: {result.error}"
    return FrictionUse(mu, np.array(rows_t), np.array(lw), np.array(ln), np.array(use), np.array(pos), status)


def model_run(sc, t_end: float | None = None, dt_out: float = 0.05, plant: str = "unified", rtol: float = 1e-10,
              atol: float = 1e-12) -> Signals:
    """The PFL closed loop on a model plant with the scenario's parameters: "unified" (closed form),
    "el" (constrained E–L, KKT), "el_nullspace" (eq. 18, the E–L equations projected on the head velocity)
    or "wheels" (E–L with the robot's wheel spin inertia)."""
    p = model_params(sc)
    t_end = sc.sim.duration if t_end is None else t_end
    if plant == "wheels":
        from lab.papers.guo2015_wheeled.wheel_inertia import simulate_pfl, wheel_terms

        run = simulate_pfl(p, t_end, *wheel_terms(sc.robot), dt_out=dt_out, rtol=max(rtol, 1e-9),
                           atol=max(atol, 1e-11))
    else:
        run = gw.simulate_pfl(p, t_end, plant=plant, dt_out=dt_out, rtol=rtol, atol=atol)
    label = {"unified": "unified model", "el": "E–L model", "el_nullspace": "E–L model (eq. 18)",
             "wheels": "E–L model + wheel spin inertia"}[plant]
    return Signals(label, run.t, run.r, run.r_ref, run.phi, run.u, run.wall_s, {"nfev": run.nfev, "plant": plant})


def required_friction(p: Guo2015Params, t: np.ndarray, q: np.ndarray, r_dot: np.ndarray, u: np.ndarray,
                      g: float = 9.81) -> np.ndarray:
    """max_i |λ_i| / (m g) at each sample: the constraint (wheel) force across module i over the module's
    weight, from the constrained E–L equations (KKT) at the run's states — the least wheel friction
    coefficient with which the run is possible without slip."""
    n = p.n
    out = np.empty(len(t))
    for k in range(len(t)):
        qd = gw.qdot_from_head_velocity(p, q[k], r_dot[k])
        M, h, A, Adq = gw.el_terms(p, q[k], qd)
        K = np.zeros((2 * n + 2, 2 * n + 2))
        K[: n + 2, : n + 2] = M
        K[: n + 2, n + 2 :] = A.T
        K[n + 2 :, : n + 2] = A
        Q = -h
        Q[3:] += u[k]
        lam = np.linalg.solve(K, np.concatenate((Q, -Adq)))[n + 2 :]
        out[k] = np.abs(lam).max() / (p.m * g)
    return out


def model_friction_run(sc, t_end: float = 3.0, dt_out: float = 0.005) -> tuple[np.ndarray, np.ndarray]:
    """(t, μ_required) over the start of the model's PFL run (unified plant)."""
    p = model_params(sc)
    run = gw.simulate_pfl(p, t_end, dt_out=dt_out, rtol=1e-10, atol=1e-12)
    return run.t, required_friction(p, run.t, run.q, run.r_dot, run.u, sc.sim.gravity)


def periodicity(sig: Signals, period: float, t0: float = 30.0, t1: float = 36.0) -> dict:
    """How far φ(t + T) is from φ(t) (T = the reference's period) and φ(t + T/2) from −φ(t), over
    [t0, t1], relative to φ's amplitude after t0."""
    k = (sig.t >= t0) & (sig.t <= t1)
    tk = sig.t[k]
    amp = float(np.abs(sig.phi[sig.t >= t0]).max())

    def at(ts):
        return np.array([np.interp(ts, sig.t, sig.phi[:, j]) for j in range(sig.phi.shape[1])]).T

    full = float(np.abs(at(tk + period) - sig.phi[k]).max()) / amp
    half_flip = float(np.abs(at(tk + period / 2) + sig.phi[k]).max()) / amp
    half_same = float(np.abs(at(tk + period / 2) - sig.phi[k]).max()) / amp
    return {"amplitude_rad": amp, "full_period_rel": full, "half_period_mirror_rel": half_flip,
            "half_period_same_rel": half_same}


__all__ = ["SCENARIO", "FrictionUse", "Signals", "friction_use", "engine_run", "torque_shape_error", "from_run", "load", "model_friction_run", "model_params",
           "model_run", "paper_q0", "periodicity", "required_friction"]
