"""Motor torque over the flip and the climb (Hu 2013 §3, eqs. 9–12) and the largest height climbed.

Where the lab departs from the printed equations
    * Eq. (10) as printed subtracts the gravity work m g δz again although L = E_k − E_p already
      puts gravity into N(q) in eq. (9); counted twice it would double the static torque. We count
      gravity once: i1·τ = (M q̈ + C q̇ + N)·∂q/∂θ.
    * z_w, z_a in eq. (11) are "distances to the slope surface"; gravity's potential (eq. 8) is the
      world height, which is what we differentiate (they coincide only for α = 0).
    * Motor torque: eq. (11) gives τ at the motor wheel (after the 144:1 gearhead): τ·i1·δθ is the
      motor's virtual work. The lab reports it at the motor shaft, τ_m = τ / i0, the quantity the
      18.8 mN·m limit applies to (ideal gears: the paper gives no efficiency).
    * The paper's climb kinematics (eq. 12's v_d = θ̇ r / i2) are kept so the numbers compare with
      Figs 8–10; what that coupling means for the single motor is in :mod:`.drive`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.papers.hu2013_tracked.model.chain import climb_chain, flip_chain, gravity_S
from lab.papers.hu2013_tracked.model.climb_path import ClimbPath, climb_path
from lab.papers.hu2013_tracked.model.params import ClimbParams


@dataclass
class ClimbResult:
    """Torques and margins over the climb of one (h, θ̇, l_a, α, β).

    ``motor_torque`` is eq. (11) at the motor shaft (N·m): (M q̈ + C q̇ + N)·∂q/∂θ / (i1 i0);
    ``arm_torque`` and ``belt_force`` split the climb's generalised force between the arm joint and
    the track at fixed s and fixed θ respectively (the flip's belt force is 0: track stalled);
    ``wheel_force`` the guide wheel's normal force, ``edge_normal``/``edge_tangent`` the edge's force
    on the body (climb only) and ``mu_required`` = |tangent|/normal, what no-slip at the edge needs.
    """

    path: ClimbPath
    alpha: float
    beta: float
    arm_speed: float
    n: int  # samples used (up to the end of the climb)
    t: np.ndarray
    motor_torque: np.ndarray
    arm_torque: np.ndarray
    belt_force: np.ndarray
    wheel_force: np.ndarray
    edge_normal: np.ndarray
    edge_tangent: np.ndarray
    mu_required: np.ndarray
    success: bool
    reason: str
    time_flip: float
    time_climb: float

    @property
    def phase(self) -> np.ndarray:
        return self.path.phase[: self.n]

    @property
    def peak_motor_torque(self) -> float:
        return float(np.max(self.motor_torque)) if self.n else float("nan")

    @property
    def peak_climb_torque(self) -> float:
        """Peak over the climb phase only (the quasi-static phase the engine check compares; for low
        steps it includes the on-top samples up to the COM over the edge)."""
        m = self.phase >= 1
        return float(np.max(self.motor_torque[m])) if m.any() else float("nan")

    @property
    def time(self) -> float:
        return self.time_flip + self.time_climb


def forward_distance(com: np.ndarray, h: float, g_S: np.ndarray) -> np.ndarray:
    """Signed distance, perpendicular to gravity, by which the COM lies beyond the edge line (y = 0,
    z = h) in the climbing direction: (p − E)_y (−ĝ_z) + (p − E)_z ĝ_y. ≥ 0: it tips onto the step."""
    gh = g_S / np.linalg.norm(g_S)
    return com[:, 1] * (-gh[2]) + (com[:, 2] - h) * gh[1]


def climb(p: ClimbParams, h: float, arm_speed: float = 0.5, alpha: float = 0.0, beta: float = 0.0,
          path: ClimbPath | None = None) -> ClimbResult:
    """Motor torque over flip + climb (eqs. 9–12) at constant arm speed θ̇ = ``arm_speed``.

    Success: the COM passes over the edge line (perpendicular to gravity) or the front face lands
    on the step top before the path fails geometrically, with the torque within the motor's maximum.
    """
    if path is None:
        path = climb_path(p, h)
    if arm_speed <= 0:
        raise ValueError(f"arm_speed: must be > 0 rad/s, got {arm_speed}")
    g_S = gravity_S(alpha, beta, p.gravity)
    flip = flip_chain(p)
    chain = climb_chain(p, h)
    d_fwd = forward_distance(path.com, h, g_S)
    n_all = len(path.theta)
    over = np.nonzero((d_fwd >= 0) & (path.phase >= 1))[0]
    if over.size:
        n, success, reason = int(over[0]) + 1, True, "com_over_edge"
    elif path.end == "landed":
        n, success, reason = n_all, True, "landed"
    else:
        n, success, reason = n_all, False, path.end
    th = path.theta[:n]
    wd = arm_speed
    tau_m = np.zeros(n)
    tau_arm = np.zeros(n)
    F_belt = np.zeros(n)
    lam_w = np.zeros(n)
    e_n = np.full(n, np.nan)
    e_t = np.full(n, np.nan)
    m_tot = p.m_body + p.m_arm
    for i in range(n):
        q3, dq3, ddq3 = path.q[i], path.dq[i], path.ddq[i]
        ph = path.phase[i]
        climbing = ph >= 1
        idx, ch = ([0, 2], flip) if ph == 0 else ([0, 1, 2], chain if ph == 1 else path.top)
        q, qd, qdd = q3[idx], dq3[idx] * wd, ddq3[idx] * wd**2
        M, Cqd, N = ch.dynamics(q, qd, g_S)
        Q = M @ qdd + Cqd + N  # eq. (9): the generalised forces the motion needs
        tau_m[i] = float(Q @ dq3[idx]) / (p.i1 * p.i0)  # eq. (11), gravity counted once, at the shaft
        grad = ch.closure_gradient(q)
        # the unactuated direction (the edge or pulley rotation; on top, rolling at fixed belt travel)
        # carries only the wheel's normal force
        d_free = path.top_free if ph == 2 else np.eye(len(idx))[0]
        lam_w[i] = float(Q @ d_free) / float(grad @ d_free)
        tau_arm[i] = Q[-1] - lam_w[i] * grad[-1]
        if not climbing:
            continue
        k_belt = 0 if ph == 2 else 1  # on top the belt travel moves u one for one (at fixed φ̃, θ̃)
        F_belt[i] = Q[k_belt] - lam_w[i] * grad[k_belt]
        # edge force from the robot's momentum balance: F_edge = Σ m p̈ − Σ m g − λ_w ẑ, p̈ exact
        mpdd = np.zeros(3)
        for k, link in enumerate(ch.links):
            Jp, H = ch.point_derivatives(q, k, np.zeros(3))
            mpdd += link.mass * (Jp @ qdd + np.einsum("aij,i,j->a", H, qd, qd))
        F = mpdd - m_tot * g_S - lam_w[i] * np.array([0.0, 0.0, 1.0])
        nS = path.contact_normal[i]
        n3 = np.array([0.0, nS[0], nS[1]])
        t3 = np.array([0.0, -nS[1], nS[0]])  # the normal turned +90°: the body's travel direction
        e_n[i] = -F @ n3  # pressing into the body (the normal points out of it)
        e_t[i] = F @ t3
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.abs(e_t) / e_n
    if success and np.max(tau_m) > p.motor_torque_max:
        success, reason = False, "torque"
    phase = path.phase[:n]
    t = (th - th[0]) / wd
    th_c0 = th[phase == 1][0] if (phase == 1).any() else th[-1]
    t_flip = float((th_c0 - th[0]) / wd)
    t_climb = float((th[-1] - th_c0) / wd)
    return ClimbResult(path=path, alpha=alpha, beta=beta, arm_speed=wd, n=n, t=t, motor_torque=tau_m,
                       arm_torque=tau_arm, belt_force=F_belt, wheel_force=lam_w, edge_normal=e_n,
                       edge_tangent=e_t, mu_required=mu, success=success, reason=reason, time_flip=t_flip,
                       time_climb=t_climb)


def max_height(p: ClimbParams = ClimbParams(), arm_speed: float = 0.5, alpha: float = 0.0, beta: float = 0.0,
               h_lo: float | None = None, h_hi: float | None = None, tol: float = 5e-4) -> float:
    """Largest h the model climbs (bisection on success; assumes success is monotone in h)."""
    lo = p.pulley_radius if h_lo is None else h_lo
    hi = p.track_side + p.pulley_radius if h_hi is None else h_hi
    if not climb(p, lo, arm_speed, alpha, beta).success:
        return float("nan")
    if climb(p, hi, arm_speed, alpha, beta).success:
        return hi
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if climb(p, mid, arm_speed, alpha, beta).success:
            lo = mid
        else:
            hi = mid
    return lo


__all__ = ["ClimbResult", "forward_distance", "climb", "max_height"]
