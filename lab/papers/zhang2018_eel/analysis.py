"""Zhang 2018 eel signals and comparisons: engine runs and analytic-model runs reduced to the same
signals — heading θ0, CM trajectory, CM velocity, joint-1 torque (paper convention) — on one time grid.

Engine signals come from a run's recorded series (lab convention: link 0 = tail, q = child − parent
yaw); they are mapped to the paper's (φ = −q, u = −τ; :mod:`lab.papers.zhang2018_eel.model.params`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lab.papers.zhang2018_eel.model.params import EelParams


@dataclass
class EelSignals:
    """Everything compared, on sample times ``t`` (s). CM positions are relative to the start."""

    label: str
    t: np.ndarray
    theta0: np.ndarray  # rad, mean link angle (unwrapped)
    p: np.ndarray  # (T, 2) m, CM minus its initial position
    v: np.ndarray  # (T, 2) m/s, CM velocity
    u: np.ndarray  # (T, n−1) N·m, joint inputs, paper convention (u_1 = tail joint)
    phi: np.ndarray  # (T, n−1) rad
    wall_s: float = 0.0
    info: dict = field(default_factory=dict)

    @property
    def distance(self) -> float:
        """Distance travelled by the CM (path length)."""
        return float(np.linalg.norm(np.diff(self.p, axis=0), axis=1).sum())


def from_model_run(run, label: str) -> EelSignals:
    return EelSignals(label=label, t=run.t, theta0=run.theta0, p=run.p - run.p[0], v=run.v, u=run.u, phi=run.phi,
                      wall_s=run.wall_s, info={"nfev": run.nfev})


def from_engine_series(series: dict, masses: np.ndarray, label: str = "engine", wall_s: float = 0.0) -> EelSignals:
    """Signals from a Simulation's recorded series (needs t, xy, yaw, q, tau)."""
    t = series["t"]
    q = series["q"]
    tail = np.unwrap(series["yaw"][:, 0])
    theta = np.concatenate([tail[:, None], tail[:, None] + np.cumsum(q, axis=1)], axis=1)
    m = np.asarray(masses, float)
    com = np.einsum("tnk,n->tk", series["xy"], m) / m.sum()
    v = np.gradient(com, t, axis=0) if len(t) > 2 else np.zeros_like(com)
    return EelSignals(label=label, t=t, theta0=theta.mean(axis=1), p=com - com[0], v=v, u=-series["tau"], phi=-q,
                      wall_s=wall_s)


def cm_velocity_fd(s: EelSignals) -> np.ndarray:
    """The CM velocity the way the engine's is taken (central differences of the sampled positions), so
    that a comparison is not biased by the differencing."""
    return np.gradient(s.p, s.t, axis=0)


def compare(ref: EelSignals, other: EelSignals, fd_velocity: bool = False,
            skip_first_torque: bool = False) -> dict[str, float]:
    """Agreement figures of ``other`` against ``ref`` (same sample times required).

    heading: RMS and max of θ0 differences; CM: the largest distance between the two CM positions,
    also relative to the distance ``ref``'s CM travelled; velocity and joint-1 torque: NRMSE, the RMS
    difference over the RMS of ``ref``'s signal. ``fd_velocity``: take both velocities by central
    differences of the sampled positions (as the engine's are). ``skip_first_torque``: leave out the
    sample at t = 0, where an engine run records no torque yet (the recorder stores the torque applied
    over the step that ended at each sample)."""
    if len(ref.t) != len(other.t) or not np.allclose(ref.t, other.t, atol=1e-9):
        raise ValueError("compare: the two signals are not sampled at the same times")
    d_th = other.theta0 - ref.theta0
    d_p = np.linalg.norm(other.p - ref.p, axis=1)
    dist = ref.distance
    v_ref = cm_velocity_fd(ref) if fd_velocity else ref.v
    v_oth = cm_velocity_fd(other) if fd_velocity else other.v
    out = {
        "heading_rms_deg": float(np.degrees(np.sqrt(np.mean(d_th**2)))),
        "heading_max_deg": float(np.degrees(np.abs(d_th).max())),
        "heading_max_rel": float(np.abs(d_th).max() / max(np.ptp(ref.theta0), 1e-12)),
        "com_err_max_m": float(d_p.max()),
        "com_err_rel": float(d_p.max() / max(dist, 1e-12)),
        "com_final_err_m": float(d_p[-1]),
        "distance_m": dist,
    }
    for k, axis in enumerate("xy"):
        dv = v_oth[:, k] - v_ref[:, k]
        out[f"v{axis}_nrmse"] = float(np.sqrt(np.mean(dv**2)) / max(np.sqrt(np.mean(v_ref[:, k] ** 2)), 1e-12))
    k0 = 1 if skip_first_torque else 0
    u_ref = ref.u[k0:, 0]
    du = other.u[k0:, 0] - u_ref
    out["torque_nrmse"] = float(np.sqrt(np.mean(du**2)) / max(np.sqrt(np.mean(u_ref**2)), 1e-12))
    out["torque_max_rel"] = float(np.abs(du).max() / max(np.abs(u_ref).max(), 1e-12))
    return out


def model_params_from_scenario(sc) -> EelParams:
    """The analytic models' parameters for a scenario: geometry (n, l, R, m, J) from the robot spec, the
    hydrodynamic coefficients and the current from its hydrodynamics law."""
    law = hydro_law(sc)
    return EelParams.from_spec(sc.robot, c_t=law.c_t, c_n=law.c_n, c_t2=law.ct2, c_n2=law.cn2, u_n=law.u_n,
                               lambda1=law.lambda1, lambda2=law.lambda2, lambda3=law.lambda3,
                               current=tuple(law.current))


def hydro_law(sc):
    for _, kind, law in sc.forces:
        if kind == "hydrodynamics":
            return law
    raise ValueError(f"{sc.name}: the scenario has no [forces.<name>] table of type 'hydrodynamics'")


def run_model(kind: str, params: EelParams, ctrl_params, t_end: float, t_eval: np.ndarray, rtol: float = 1e-6,
              atol: float = 1e-6, hold: float = 0.0) -> EelSignals:
    """Simulate the 'exact' or 'noninertial' model under the eel controller from the zero state.
    ``hold`` > 0 (exact model only): the controller sampled every ``hold`` seconds and held, as the engine
    applies it (:func:`lab.papers.zhang2018_eel.model.exact.simulate_held`)."""
    from lab.papers.zhang2018_eel.controllers import EelFeedbackLinearization
    from lab.papers.zhang2018_eel.model.exact import ExactModel, simulate_held
    from lab.papers.zhang2018_eel.model.noninertial import NonInertialModel

    cls = {"exact": ExactModel, "noninertial": NonInertialModel}[kind]
    model = cls(params, EelFeedbackLinearization(ctrl_params))
    if hold > 0:
        if kind != "exact":
            raise ValueError("run_model: a held controller is implemented for the exact model only")
        return from_model_run(simulate_held(model, t_end, hold, t_eval), f"{kind} (held {hold:g} s)")
    run = model.simulate(t_end, t_eval=t_eval, rtol=rtol, atol=atol)
    return from_model_run(run, kind)


__all__ = ["EelSignals", "compare", "from_engine_series", "from_model_run", "hydro_law", "model_params_from_scenario",
           "run_model", "cm_velocity_fd"]
