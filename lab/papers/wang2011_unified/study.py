"""Engine runs of Wang 2011's unified dynamics and their comparison with the model.

* :func:`engine_run` — a scenario on the engine, started **on the gait** like the model (joint angles
  and rates of the serpenoid at t = 0, the base at rest), every step's applied torque kept with the
  state it was computed from and the next state's velocities (for the step's acceleration);
* :func:`model_params` — :class:`~lab.papers.wang2011_unified.params.Wang2011Params` from a scenario: the
  engine robot's geometry (``inertia="engine"``) or Table D1's I = 0.016 kg·m² (``"paper"``), the
  scenario's gait, friction law and slip speed;
* :func:`torques_along` — the model's joint torques evaluated at the engine's own states;
* :func:`model_locomotion` / :func:`model_manipulation` — the model's own runs on the scenario's gait.

Why the engine's applied torque is compared at the state it was computed from
-----------------------------------------------------------------------------
Bullet's step is semi-implicit Euler: with the snapshot s_k at t_k (lab.core.state), the controller's
τ_k and the friction F_k(s_k) are held over [t_k, t_k + dt], and the generalised velocities become
u_{k+1} = u_k + dt·M(x_k)⁻¹(τ_k + J(x_k)ᵀF_k − C(x_k, u_k)). So τ_k is *exactly* the inverse dynamics
M(x_k) a_k + C(x_k, u_k) − J(x_k)ᵀF_k with a_k = (u_{k+1} − u_k)/dt, the forward difference. The model's
eq. 22 (eq. 27 welded) evaluated at (x_k, u_k, a_k) must therefore return τ_k to rounding, if the engine
computes the same physics. The base velocities are mapped to the paper's coordinates at s_k
(:func:`~lab.papers.wang2011_unified.params.paper_base_from_lab`), the map being linear in the acceleration.
The alternative — the engine's ``calculateInverseDynamics`` on a fixed-base copy plus the friction
mapped by the link Jacobians — gives the same numbers for the welded case (tests), but it is a second
code path to the torque the engine actually applied, and it has no free-base counterpart.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np

from lab.core import scenario as scn
from lab.core.observers import Observer
from lab.papers.wang2011_unified.params import Wang2011Params, paper_base_from_lab
from lab.papers.wang2011_unified.model import (Locomotion, joint_torques_along, joint_torques_along_lab, kinematics,
                    manipulation_torques, mean_abs_torque)

SCENARIOS = {"locomotion": "snake_unified_locomotion", "manipulation": "snake_unified_manipulation"}


def load(case: str, overrides=None):
    return scn.load(SCENARIOS[case], overrides)


# ---------------------------------------------------------------------------------------- the gait


def gait_of(cp):
    """The serpenoid the scenario's controller tracks, x_j = α sin(ωt + jβ + φ₀) + γ (lab joint j),
    as ``gait(t) -> (x, ẋ, ẍ)`` for the model (exact derivatives), for ``n_joints`` joints."""

    def make(n_joints: int):
        j = np.arange(n_joints)

        def gait(t):
            t = np.asarray(t, dtype=float)
            ph = cp.omega * t[..., None] + j * cp.beta + cp.phase_offset
            s, c = np.sin(ph), np.cos(ph)
            a, w = cp.alpha, cp.omega
            return a * s + cp.gamma, a * w * c, -a * w * w * s

        return gait

    return make


def model_params(sc, inertia: str = "engine", **overrides) -> Wang2011Params:
    """The model's parameters for scenario ``sc``: n_modules, L, m from the robot; the yaw inertia of
    the engine's module (``"engine"``: the solid cylinder, 2.74e-4 kg·m²) or Table D1's (``"paper"``);
    μ_t, μ_n, v_s = slip_tol and head_exempt from [friction]; α, ω, β, γ from [controller]; g."""
    f, cp = sc.friction, sc.controller
    if f.mu_fwd != f.mu_bwd:
        raise ValueError("friction: the model has one tangential coefficient (mu_forward = mu_backward)")
    kw = dict(mu_t=float(f.mu_fwd), mu_n=float(f.mu_n), v_s=float(f.slip_tol), head_exempt=bool(f.head_exempt),
              alpha=float(cp.alpha), omega=float(cp.omega), beta=float(cp.beta), gamma=float(cp.gamma),
              g=float(sc.sim.gravity))
    kw.update(overrides)
    p = Wang2011Params.from_spec(sc.robot, **kw)
    if inertia == "paper":
        p = replace(p, I=0.016, source="paper")
    elif inertia != "engine":
        raise ValueError(f"inertia: 'engine' or 'paper', got {inertia!r}")
    return p


def paper_gait_matches(sc) -> bool:
    """True when the scenario's gait is the paper's x^i = α sin(ωt + (i − 3)β) + γ (φ₀ = β)."""
    return math.isclose(sc.controller.phase_offset, sc.controller.beta, abs_tol=1e-12)


# ---------------------------------------------------------------------------------------- the engine


@dataclass
class EngineRun:
    """Samples of an engine run. Row k holds the snapshot s_k at t[k], the torque ``tau[k]`` the
    controller computed from it (applied over [t_k, t_k + dt]) and the step's accelerations
    (s_{k+1} − s_k)/dt of link 0's COM (``a0_W``), link 0's yaw (``yawdd0``) and the joints (``qdd``).
    ``xy``: every link's COM; ``tail_end_W``: the paper's (x¹, x²); ``F_xy``: the friction force applied
    over the step at each link's COM (the law's output)."""

    case: str
    t: np.ndarray
    xy: np.ndarray  # (K, N, 2)
    yaw: np.ndarray  # (K, N)
    v0_W: np.ndarray  # (K, 3)
    yawd0: np.ndarray  # (K,)
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    a0_W: np.ndarray
    yawdd0: np.ndarray
    qdd: np.ndarray
    dt: float
    L: float
    F_xy: np.ndarray | None = None  # (K, N, 2): the friction force the step applied at each link's COM
    wall_s: float = 0.0
    status: str = "ok"
    error: str = ""
    info: dict = field(default_factory=dict)

    @property
    def tail_end_W(self) -> np.ndarray:
        th = self.yaw[:, 0]
        return self.xy[:, 0, :] - 0.5 * self.L * np.stack([np.cos(th), np.sin(th)], -1)

    @property
    def head_tip_W(self) -> np.ndarray:
        th = self.yaw[:, -1]
        return self.xy[:, -1, :] + 0.5 * self.L * np.stack([np.cos(th), np.sin(th)], -1)


def start_on_gait(run, sc) -> None:
    """Put the joints on the scenario's gait at t = 0 (angles and rates) with the base at rest: the
    model's initial state (the paper's base point and yaw at rest). The runner starts every run
    straight and at rest; this is the model's start, set through :meth:`lab.core.world.World.reset_state`
    (``run``: anything with the ``world``, e.g. the run's :class:`lab.core.observers.RunView`)."""
    w = run.world
    q0, qd0, _ = gait_of(sc.controller)(w.n_joints)(0.0)
    w.reset_state(q=q0, qd=qd0, v_W=(0.0, 0.0, 0.0), w_W=(0.0, 0.0, 0.0))


class _Sampler(Observer):
    """The engine run's probe: every ``every``-th step and the last one, the snapshot the step started
    from, the torque the controller commanded on it and the accelerations over it."""

    def __init__(self, sc, every: int, n_steps: int, on_gait: bool):
        self.sc, self.every, self.last, self.on_gait = sc, every, n_steps - 1, on_gait
        self.K = -(-n_steps // every) + 1  # every ``every``-th step and the last one (t_end − dt: two periods, to a step)
        self.r, self.state = 0, None

    def on_setup(self, run) -> None:
        self.run = run
        if self.on_gait:
            start_on_gait(run, self.sc)
        w = run.world
        N, J, K = w.n_links, w.n_joints, self.K
        self.buf = {k: np.zeros(s) for k, s in dict(t=(K,), xy=(K, N, 2), yaw=(K, N), v0_W=(K, 3), yawd0=(K,),
                                                      q=(K, J), qd=(K, J), tau=(K, J), a0_W=(K, 3), yawdd0=(K,),
                                                      qdd=(K, J), F_xy=(K, N, 2)).items()}

    def on_step(self, k, pre, tau, parts, new):
        self.state = new
        if (k % self.every == 0 or k == self.last) and self.r < self.K:
            buf, r, dt = self.buf, self.r, self.sc.sim.dt
            buf["t"][r] = pre.t
            buf["xy"][r] = pre.p_W[:, :2]
            buf["yaw"][r] = pre.yaw
            buf["v0_W"][r] = pre.v_W[0]
            buf["yawd0"][r] = pre.w_W[0, 2]
            buf["q"][r] = pre.q
            buf["qd"][r] = pre.qd
            buf["tau"][r] = self.run.last_command()
            buf["a0_W"][r] = (new.v_W[0] - pre.v_W[0]) / dt
            buf["yawdd0"][r] = (new.w_W[0, 2] - pre.w_W[0, 2]) / dt
            buf["qdd"][r] = (new.qd - pre.qd) / dt
            F = parts.get("friction") if parts else None  # the ground force the step applied, (N, 3) at the COMs
            if F is not None and np.ndim(F) == 2:
                buf["F_xy"][r] = np.asarray(F)[:, :2]
            self.r += 1
        return None


def engine_run(sc, case: str, every: int | None = None, on_gait: bool = True) -> EngineRun:
    """Run scenario ``sc`` on the engine (the runner's own loop, :meth:`lab.core.runner.Simulation.run`:
    controller → friction → apply → step → read → ledger), sampling every ``every`` steps (default:
    ``sim.record_every``) and the last step, whose snapshot is at t_end − dt, with an observer. The
    sampled torque is the one the controller commanded on that step (called once per step)."""
    from lab.core.runner import Simulation

    every = int(every or sc.sim.record_every)
    n_steps = sc.sim.n_steps
    probe = _Sampler(sc, every, n_steps, on_gait)
    sim = Simulation(sc, observers=(probe,))
    try:
        result = sim.run()
        state = probe.state if probe.state is not None else sim.world.read_state()
        bal = sim.recorder.balance(state.kinetic_energy)
    finally:
        sim.close()
    dt, r, wall = sc.sim.dt, probe.r, float(result.metrics["wall_time_s"])
    run = EngineRun(case=case, dt=dt, L=float(sc.robot.module_length), wall_s=wall, status=result.status,
                    error=result.error,
                    info=dict(steps=n_steps, every=every, realtime_factor=n_steps * dt / wall if wall > 0 else 0.0,
                              energy_residual_rel=bal["residual_rel"], work_in_J=bal["work_in_J"]),
                    **{k: v[:r] for k, v in probe.buf.items()})
    return run


# ---------------------------------------------------------------------------------------- the model


def friction_implicit(sc) -> bool:
    """True when the scenario's engine takes the tanh law implicitly, at the step's end slip
    (``coulomb_velocity`` with slip_tol > 0): its force is then not the law at the snapshot."""
    return sc.friction.explicit is False and float(getattr(sc.friction, "slip_tol", 0.0)) > 0.0


def torques_along(p: Wang2011Params, run: EngineRun, welded: bool,
                  applied_friction: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The model's joint torques at the engine's own states and step accelerations: eq. 27 with the
    tail welded where the engine's is (``welded``), eq. 22 otherwise. Returns (τ (K, J), the residual of
    eq. 23 (K, 3): zero if the engine's base obeys the model's external dynamics; zeros when welded).
    ``applied_friction`` (free base): the ground forces the engine applied (``run.F_xy``) are pulled back
    in place of the model's law at the snapshot — for an engine law taken at the step's end slip
    (:func:`friction_implicit`), whose force no function of the snapshot gives."""
    if welded:
        xb, _, _ = paper_base_from_lab(p.L, run.xy[0, 0], run.yaw[0, 0])
        if applied_friction:  # eq. 22's joint rows with the base at rest at the weld (= eq. 27), the applied forces
            K = len(run.t)
            z = np.zeros((K, 3))
            tau, _ = joint_torques_along(p, np.hstack([np.tile(xb, (K, 1)), run.q]), np.hstack([z, run.qd]),
                                         np.hstack([z, run.qdd]), run.F_xy)
            return tau, z
        return manipulation_torques(p, run.q, run.qd, run.qdd, weld=tuple(xb)), np.zeros((len(run.t), 3))
    return joint_torques_along_lab(p, run.xy[:, 0], run.yaw[:, 0], run.v0_W, run.yawd0, run.a0_W, run.yawdd0,
                                   run.q, run.qd, run.qdd, F_xy=run.F_xy if applied_friction else None)


def friction_law_residual(p: Wang2011Params, run: EngineRun) -> float:
    """For an engine law taken at the step's end slip (:func:`friction_implicit`): max over the samples,
    links and components of |F_applied − F_law| / (μ_n m g), F_law the model's tanh law (eq. 4, regularised)
    at the step's end velocities u + dt·a and the step's start pose — what backward Euler on the friction
    applies. Not zero: the engine predicts the end slip without the velocity-product (Coriolis) terms."""
    from lab.papers.wang2011_unified.model import friction_forces_W

    dt = run.dt
    xb, xdb1, _ = paper_base_from_lab(p.L, run.xy[:, 0], run.yaw[:, 0], run.v0_W + dt * run.a0_W,
                                      run.yawd0 + dt * run.yawdd0)
    x = np.concatenate([xb, run.q], 1)
    xd1 = np.concatenate([xdb1, run.qd + dt * run.qdd], 1)
    worst = 0.0
    for k in range(len(run.t)):
        F = friction_forces_W(p, kinematics(p, x[k]), xd1[k])[2:, :2]
        worst = max(worst, float(np.abs(F - run.F_xy[k]).max()))
    return worst / (p.mu_n * p.m * p.g)


def mean_rel_error(tau_model: np.ndarray, tau_engine: np.ndarray) -> np.ndarray:
    """Per joint Σ_k |τ_model − τ_engine| / Σ_k |τ_engine|: the mean error relative to the mean torque
    (a pointwise ratio would blow up where the torque crosses zero)."""
    return np.abs(tau_model - tau_engine).sum(0) / np.abs(tau_engine).sum(0)


def model_locomotion(p: Wang2011Params, sc, t_eval: np.ndarray):
    """The model's free snake on the scenario's gait from its on-gait start, base at rest with the
    tail end at the scenario's tail end (LSODA, the model's defaults)."""
    gait = gait_of(sc.controller)(p.n_joints)
    x0, y0 = sc.init.position
    h = math.radians(sc.init.heading_deg)
    y_init = np.array([x0 - 0.5 * p.L * math.cos(h), y0 - 0.5 * p.L * math.sin(h), h, 0.0, 0.0, 0.0])
    return Locomotion(p, gait=gait).simulate(float(t_eval[-1]), t_eval=t_eval, y0=y_init)


def model_manipulation(p: Wang2011Params, sc, t: np.ndarray):
    """The model's welded snake on the scenario's gait: (q, q̇, q̈, τ (eq. 27), head tip track)."""
    gait = gait_of(sc.controller)(p.n_joints)
    x0, y0 = sc.init.position
    h = math.radians(sc.init.heading_deg)
    weld = (x0 - 0.5 * p.L * math.cos(h), y0 - 0.5 * p.L * math.sin(h), h)
    q, qd, qdd = gait(t)
    tau = manipulation_torques(p, q, qd, qdd, weld)
    tip = np.empty((len(t), 2))
    for r in range(len(t)):
        g = kinematics(p, np.concatenate([weld, q[r]])).g_S[-1]
        tip[r] = (g[:3, 3] + 0.5 * p.L * g[:3, 0])[:2]
    return q, qd, qdd, tau, tip


def track_distance(xy: np.ndarray) -> tuple[float, float]:
    """(straight-line displacement, path length) of a track (K, 2)."""
    return float(np.linalg.norm(xy[-1] - xy[0])), float(np.linalg.norm(np.diff(xy, axis=0), axis=1).sum())


# ---------------------------------------------------------------------------------------- comparisons


def _window(p: Wang2011Params, t: np.ndarray) -> tuple[float, float]:
    """[0, min(2 periods, the last sample)]: the averaging window of every mean |τ| here."""
    return 0.0, float(min(2.0 * p.period, t[-1]))


def model_mean_two_periods(p: Wang2011Params, sc, case: str, n_samples: int = 2001) -> np.ndarray:
    """The model's own mean |τ| per joint over [0, 2T] on the scenario's gait (its own time grid)."""
    t = np.linspace(0.0, 2.0 * p.period, n_samples)
    if case == "manipulation":
        tau = model_manipulation(p, sc, t)[3]
    else:
        tau = model_locomotion(p, sc, t).tau
    return mean_abs_torque(t, tau, 0.0, float(t[-1]))


@dataclass
class Comparison:
    """Engine vs model for one case, everything the check and the report print (SI units, lab joint
    order = the paper's τ⁴ … τ⁷)."""

    case: str
    run: EngineRun
    p_engine: Wang2011Params  # the engine's module (geometric I)
    p_paper: Wang2011Params  # Table D1's I
    tau_along: np.ndarray  # the model (engine I) at the engine's states, (K, J)
    rel_err: np.ndarray  # mean relative error per joint, model along vs engine applied
    residual: np.ndarray  # eq. 23's residual along the engine trajectory (K, 3); zeros when welded
    tau_model: np.ndarray  # the model's own run on the ideal gait at run.t (engine I), (K, J)
    tau_model_paper: np.ndarray  # the same with Table D1's I
    mean_engine: np.ndarray  # mean |τ| per joint over the window, engine
    mean_model: np.ndarray  # the model's own run, engine I, same samples
    mean_model_paper: np.ndarray  # the model's own run, Table D1's I, same samples
    tracking_err_max: np.ndarray  # max |q − q_ref| per joint (rad)
    track_engine: np.ndarray  # locomotion: tail end (x¹, x²); manipulation: head tip, (K, 2)
    track_model: np.ndarray
    track_model_paper: np.ndarray
    window: tuple[float, float] = (0.0, 0.0)
    model_wall_s: float = 0.0
    extra: dict = field(default_factory=dict)
    # the paper's own comparison: the unified model vs a separately written Newton–Euler model
    # (lab.papers.wang2011_unified.newton_euler) on the model's own run, per joint Σ|τ_u − τ_NE| / Σ|τ_NE|
    ne_rel: np.ndarray | None = None  # engine module's I
    ne_rel_paper: np.ndarray | None = None  # Table D1's I
    ne_plant_track_max_m: float = float("nan")  # locomotion: max |tail(t)| distance, unified vs NE plant
    ne_plant_torque_nrmse: np.ndarray | None = None  # locomotion: NE plant's torques vs the unified run's
    friction_law_rel: float = float("nan")  # implicit engine law: applied friction vs the law at the end slip

    def runs_error(self, t0: float = 0.0, t1: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
        """Engine vs model as two *separately simulated runs* (the engine's applied torques against the
        model's own run on the ideal gait, engine module's I, same samples) over t0 ≤ t ≤ t1, per joint:
        (paper-style mean error Σ|τ_e − τ_m| / Σ|τ_m|, normalised RMS error ‖τ_e − τ_m‖_rms / ‖τ_m‖_rms)."""
        return runs_error(self.run.t, self.run.tau, self.tau_model, t0, t1)

    @property
    def distance(self) -> dict[str, tuple[float, float]]:
        """(displacement, path length) of the tracks: engine, model (engine I), model (paper I)."""
        return {"engine": track_distance(self.track_engine), "model": track_distance(self.track_model),
                "model_paper": track_distance(self.track_model_paper)}


def runs_error(t, tau, tau_ref, t0: float = 0.0, t1: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
    """Per joint over t0 ≤ t ≤ t1: (Σ|τ − τ_ref| / Σ|τ_ref|, ‖τ − τ_ref‖_rms / ‖τ_ref‖_rms)."""
    k = (t >= t0) & (t <= t1)
    d = tau[k] - tau_ref[k]
    return (np.abs(d).sum(0) / np.abs(tau_ref[k]).sum(0),
            np.sqrt(np.mean(d ** 2, axis=0)) / np.sqrt(np.mean(tau_ref[k] ** 2, axis=0)))


def newton_euler_comparison(p: Wang2011Params, sc, case: str, t: np.ndarray, tau_unified: np.ndarray,
                            own=None) -> np.ndarray:
    """The paper's comparison: the unified model's torques (``tau_unified``, its own run on the gait at
    ``t``) against the Newton–Euler model's at the same states; Σ|τ_u − τ_NE| / Σ|τ_NE| per joint.
    ``own``: the locomotion run (its x, ẋ, ẍ); manipulation: the gait with the tail at its weld."""
    from lab.papers.wang2011_unified import newton_euler as ne

    if case == "manipulation":
        q, qd, qdd = gait_of(sc.controller)(p.n_joints)(t)
        weld = ne.tail_start(sc)[:3]
        z = np.zeros((len(t), 3))
        tau_ne = ne.torques_along(p, np.hstack([np.tile(weld, (len(t), 1)), q]), np.hstack([z, qd]),
                                  np.hstack([z, qdd]))
    else:
        tau_ne = ne.torques_along(p, own.x, own.xd, own.xdd)
    return np.abs(tau_unified - tau_ne).sum(0) / np.abs(tau_ne).sum(0)


def compare(sc, run: EngineRun, ne_plant: bool = True) -> Comparison:
    """The model against an engine run of scenario ``sc`` (case from the run)."""
    w0 = time.perf_counter()
    welded = run.case == "manipulation"
    pe, pp = model_params(sc, "engine"), model_params(sc, "paper")
    tau_along, resid = torques_along(pe, run, welded, friction_implicit(sc))
    t = run.t
    a, b = _window(pe, t)
    if welded:
        _, _, _, tau_m, track_m = model_manipulation(pe, sc, t)
        _, _, _, tau_mp, track_mp = model_manipulation(pp, sc, t)
        track_e = run.head_tip_W
    else:
        lm = model_locomotion(pe, sc, t)
        lp = model_locomotion(pp, sc, t)
        tau_m, track_m, tau_mp, track_mp = lm.tau, lm.tail_W, lp.tau, lp.tail_W
        track_e = run.tail_end_W
    q_ref = gait_of(sc.controller)(run.q.shape[1])(t)[0]
    extra = {}
    if friction_implicit(sc):
        extra["friction_law_rel"] = friction_law_residual(pe, run)
    if welded:
        extra["ne_rel"] = newton_euler_comparison(pe, sc, "manipulation", t, tau_m)
        extra["ne_rel_paper"] = newton_euler_comparison(pp, sc, "manipulation", t, tau_mp)
    else:
        extra["ne_rel"] = newton_euler_comparison(pe, sc, "locomotion", t, tau_m, lm)
        extra["ne_rel_paper"] = newton_euler_comparison(pp, sc, "locomotion", t, tau_mp, lp)
        if ne_plant and len(t) > 1:  # the Newton–Euler equations integrated as their own plant
            from lab.papers.wang2011_unified import newton_euler as ne

            nr = ne.simulate(pe, gait_of(sc.controller)(pe.n_joints), t, ne.tail_start(sc))
            extra["ne_plant_track_max_m"] = float(np.linalg.norm(nr.tail_W - track_m, axis=1).max())
            extra["ne_plant_torque_nrmse"] = runs_error(t, nr.tau, tau_m)[1]
    return Comparison(
        case=run.case, run=run, p_engine=pe, p_paper=pp, tau_along=tau_along,
        rel_err=mean_rel_error(tau_along, run.tau), residual=resid, tau_model=tau_m, tau_model_paper=tau_mp,
        mean_engine=mean_abs_torque(t, run.tau, a, b), mean_model=mean_abs_torque(t, tau_m, a, b),
        mean_model_paper=mean_abs_torque(t, tau_mp, a, b), tracking_err_max=np.abs(run.q - q_ref).max(0),
        track_engine=track_e, track_model=track_m, track_model_paper=track_mp, window=(a, b),
        model_wall_s=time.perf_counter() - w0, **extra)


def inverse_dynamics_counterpart(sc, run: EngineRun, rows) -> np.ndarray:
    """The welded case's other engine counterpart: Bullet's own inverse dynamics
    (``calculateInverseDynamics``, a recursive Newton–Euler on the multibody tree) of a fixed-base copy
    at (q, q̇, q̈) of the given rows, minus the friction forces of the scenario's law at that state mapped
    through the link COM Jacobians (``calculateJacobian``): τ = ID(q, q̇, q̈) − Σ_i J_iᵀ F_i. Returns
    (len(rows), J)."""
    from lab.core.world import World

    w = World(dt=sc.sim.dt, gravity=sc.sim.gravity)
    try:
        spec = sc.robot
        h = math.radians(sc.init.heading_deg)
        w.load_spec(spec, [*sc.init.position, spec.rest_height], h)
        w.fix_base()  # as the welded_tail trial
        J = w.n_joints
        # calculateJacobian's point is in the URDF link frame (the joint), not the COM frame: measured,
        # [0, 0, 0] put each force L/2 behind its COM. The COM offset is the inertial frame's position.
        com = w.link_com_offsets()
        out = np.empty((len(rows), J))
        for i, r in enumerate(rows):
            q, qd, qdd = run.q[r], run.qd[r], run.qdd[r]
            w.reset_state(q=q, qd=qd)
            state = w.read_state()
            if friction_implicit(sc):  # a law taken at the step's end slip: the force the run applied
                F_W = np.zeros((w.n_links, 3))
                F_W[:, :2] = run.F_xy[r]
            else:
                F_W = np.asarray(sc.friction(state, state.t))
            tau = w.inverse_dynamics(q, qd, qdd)
            for link in range(1, w.n_links):  # the fixed tail's force does no work on the joints
                lin, _ = w.link_jacobian(link - 1, com[link - 1], q)
                tau -= lin.T @ F_W[link]
            out[i] = tau
        return out
    finally:
        w.close()


# ---------------------------------------------------------------------------------------- the slip speed


def slip_dt(v_s: float, mu_n: float, g: float = 9.81) -> float:
    """The step for slip speed v_s: v_s/(μ_n g) rounded down to one significant digit — half the
    explicit friction's bound 2 v_s/(μ g), where one module's linear zone is deadbeat."""
    x = v_s / (mu_n * g)
    e = math.floor(math.log10(x))
    return float(f"{math.floor(x / 10**e)}e{e}")


def slip_overrides(v_s: float, duration: float, mu_n: float = 0.5, g: float = 9.81) -> dict:
    """Overrides that run a scenario at slip speed v_s (with its dt) for ``duration``."""
    dt = slip_dt(v_s, mu_n, g)
    every = max(1, int(round(0.01 / dt)))  # 10 ms samples, as the scenarios
    return {"friction.slip_tol": v_s, "sim.dt": dt, "sim.duration": duration, "sim.record_every": every}


@dataclass
class SlipPoint:
    """One engine run at slip speed v_s over [0, duration]: mean |τ| per joint of the engine, of the
    model along the engine's states, and of the model's own run (engine I) on the same samples."""

    case: str
    v_s: float
    dt: float
    duration: float
    mean_engine: np.ndarray
    mean_model: np.ndarray
    rel_err: np.ndarray
    wall_s: float


def slip_point_of(c: "Comparison", duration: float) -> SlipPoint:
    """The :class:`SlipPoint` of a comparison's run, over its first ``duration`` seconds."""
    run = c.run
    k = run.t <= duration + 1e-9
    t = run.t[k]
    return SlipPoint(case=c.case, v_s=c.p_engine.v_s, dt=run.dt, duration=duration,
                     mean_engine=mean_abs_torque(t, run.tau[k], 0.0, t[-1]),
                     mean_model=mean_abs_torque(t, c.tau_model[k], 0.0, t[-1]),
                     rel_err=mean_rel_error(c.tau_along[k], run.tau[k]), wall_s=run.wall_s * float(k.mean()))


def slip_point(case: str, v_s: float, duration: float, overrides=None) -> SlipPoint:
    sc = load(case, overrides)
    sc = load(case, [*(overrides or []), *(f"{k}={v!r}" for k, v in
                                           slip_overrides(v_s, duration, sc.friction.mu_n, sc.sim.gravity).items())])
    run = engine_run(sc, case)
    p = model_params(sc, "engine")
    tau_along, _ = torques_along(p, run, case == "manipulation", friction_implicit(sc))
    t = run.t
    tau_m = model_manipulation(p, sc, t)[3] if case == "manipulation" else model_locomotion(p, sc, t).tau
    return SlipPoint(case=case, v_s=v_s, dt=sc.sim.dt, duration=duration,
                     mean_engine=mean_abs_torque(t, run.tau, 0.0, t[-1]), mean_model=mean_abs_torque(t, tau_m, 0.0, t[-1]),
                     rel_err=mean_rel_error(tau_along, run.tau), wall_s=run.wall_s)


# ---------------------------------------------------------------------------------------- running in parallel


def case_comparison(case: str, overrides=None) -> Comparison:
    """Load, run on the engine, compare (one task of :func:`run_parallel`)."""
    sc = load(case, overrides)
    return compare(sc, engine_run(sc, case))


def model_slip_case(v_s: float, periods: float, inertia: str = "paper", n_samples: int = 2001):
    """The model study's :func:`~lab.papers.wang2011_unified.slip_study.run_case` at v_s (Table D1, or the engine's I)."""
    from lab.papers.wang2011_unified.slip_study import run_case

    p = Wang2011Params(v_s=float(v_s))
    if inertia == "engine":
        p = p.with_geometric_inertia()
    return run_case(p, periods=periods, n_samples=n_samples)


def run_parallel(tasks: list[tuple], workers: int = 1) -> list:
    """``[(function, *args)]`` → results in order; in ``workers`` spawned processes when > 1 (each
    engine run opens its own DIRECT client; spawned, not forked, so no client or numba state is
    inherited)."""
    if workers <= 1 or len(tasks) <= 1:
        return [f(*a) for f, *a in tasks]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=mp.get_context("spawn")) as ex:
        futs = [ex.submit(f, *a) for f, *a in tasks]
        return [f.result() for f in futs]


__all__ = ["SCENARIOS", "Comparison", "EngineRun", "SlipPoint", "case_comparison", "compare", "engine_run", "gait_of",
           "friction_implicit", "friction_law_residual", "newton_euler_comparison", "runs_error",
           "inverse_dynamics_counterpart", "load", "mean_abs_torque", "mean_rel_error", "model_locomotion",
           "model_manipulation", "model_mean_two_periods", "model_params", "model_slip_case", "paper_gait_matches",
           "run_parallel", "slip_dt", "slip_overrides", "slip_point", "slip_point_of", "start_on_gait", "torques_along",
           "track_distance"]
