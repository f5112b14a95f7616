"""Several tracked modules climbing together: the limit analysis of Hu 2013's future work (§7, Figs 3–4).

Hu 2013 ends with "facing obstacles higher than 17 cm, multi-robot cooperative climbing should be
considered" and asks for "the best obstacle-negotiation configuration under given conditions". The
paper shows the configurations only as pictures (Fig 3: parallel 并形, serial 串形; Fig 4: ring 环形,
triangle 三角) and says the body carries a connection device (连接装置). No pybullet here.

Planar model (the symmetric section, x forward, z up; moments counter-clockwise positive)
    The step: ground z = 0 for x < 0, riser x = 0, top z = h for x ≥ 0; the corner E = (0, h).
    A module is the single module of :mod:`.params` (Table 1): pulley centres on an equilateral
    triangle of side l, pulley radius r, inradius a = l/(2√3); resting on a face its centre is
    z0 = a + r above the ground. Its pose is (centre C, pitch ψ, nose up positive); ψ = 0 rests on
    its base face, ψ = −30° stands its front face vertical (the single module's climb pose).

The connector (what we chose, and why)
    A rigid bar of length d_c between the centres of adjacent modules (the connection device at the
    body's centre axis, beside the belt), with a **pitch joint at each end, both actuated**, each by a
    motor of the arm's class (Table 1's 18.8 mN·m, 3600 rpm) through the arm's gearing i0 i1 = 720
    (13.5 N·m stall, 0.52 rad/s no load). Two joints, because one is not enough: with the bar rigid
    to one module, a middle module that stands its face against the riser (ψ = −30°) swings the bar to
    its neighbour by 30° and lifts that neighbour off the ground — a chain of three could not span the
    two levels. The paper's figures show the modules side by side or nose to tail; they do not show
    the device's joints.

Cooperative climb (serial N): modules climb one after the other, front first. The climbing module j
    (a) flips about its front pulley at the riser's foot, ψ 0 → −30° (the bar behind it pushes its
        centre up, as the single module's arm does), (b) slides up the riser with its front face on it,
        its centre from r + l/2 to h, (c) rolls over the corner on its front face, its centre on the
        circle of radius z0 about E, until its front face lies on the top. The modules ahead lie flat
        on the top, the modules behind flat on the ground, each bar at its length d_c (the ones next to
        the climber set where its neighbours are). The climber's path is parametrised by u ∈ [0, 3]
        (a, b, c). The tail module keeps its arm on the ground while it can reach (its wheel a frictionless
        support, as in the single climb); the other arms are stowed upright over their pivots (out of
        the bars' way), so their weight acts at the module's centre.

Geometric limit (derivation). The bars are the reach. At (c)'s end the climber's centre is at
    (0, h + z0) while the module behind it still rests flat on the ground with its front pulley at
    the riser, centre (−(l/2 + r), z0): the bar needs d_c² ≥ (l/2 + r)² + h². At (a)'s start the
    module ahead lies flat on the top with its rear pulley no further back than the edge (centre
    x ≥ l/2, z = h + z0, a stated choice: a module on the top rests on its face, not tilted on the
    corner) while the climber's centre is at (−(l/2 + r), z0): d_c² ≥ (l + r)² + h². So
        h_geo = √(d_c² − (l + r)²)        (serial, N ≥ 2; the second bound is the tighter)
    plus the single module's own lower bound (a) needs h ≥ r + l/2 for the face to reach the riser
    with the bottom pulley on the ground (lower steps a module climbs alone). The test compares this
    with a brute-force search over the chain's poses with the envelopes sampled
    (tests/papers/hu2013_tracked/test_multi.py).

Statics along the climb (the screw model's quasi-static limit, extended to the chain): at every pose
    :func:`chain_statics` solves the planar equilibrium of every module, bar and arm as a linear
    programme over the contacts' friction cones (belt contacts: Coulomb cone, μ_g on ground and top,
    μ_w on the riser and the corner; guide wheel: frictionless), minimising the largest motor load
    ratio s = max(|τ_connector|/τ_c, |τ_arm|/τ_arm,max, |belt force|/F_belt,max). s ≤ 1: every motor
    within its rating; infeasible: no contact forces hold the pose (it slides or tips). For a pose in
    which a module hangs free from its bar the joint torque is determinate and equals the POE chain's
    gravity term N(q) (:func:`hanging_torque_poe`, :mod:`lab.analysis.se3`), which the tests check.

Stability (eq. 13 generalised): the combined COM of all modules projected on the horizontal, inside the
    convex hull of every support contact (each belt contact with the ground, the riser, the corner or the
    top a line across the track width ±w/2, the tail's guide wheel a point): :func:`support_margin`.
    The climber's contacts with the riser count, as the paper's edge line AB counts while the front
    face stands against the riser (its normal is horizontal then too). Whether friction can hold such
    a pose is the statics' question, not the margin's: a pose is climbable only if both hold.

Parallel (Fig 3a): modules side by side, rigidly joined. On rigid ground the symmetric section is the
    single module's: every force scales with the number of modules, so h_max, the peak motor torque
    per module and the flip's friction need are the single module's; only the lateral margin grows
    (n·w/2). Its purpose, more ground contact on soft soil, needs a soil model (Bekker pressure–sinkage)
    the lab does not have.

Ring and triangle (Fig 4b, c) are only pictures in the paper; :func:`loop_geometry` states our reading
    (modules as the sides of a closed loop of N bars, tracks outward) and its geometric limit; their
    statics are not analysed here (see the report).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .params import ClimbParams

G = 9.81
CONFIGS = ("serial", "parallel", "ring", "triangle")


@dataclass(frozen=True)
class ChainParams:
    """A chain of identical modules (Table 1) joined by bars with a motor at each end."""

    module: ClimbParams = field(default_factory=ClimbParams)
    n_modules: int = 2
    coupler_length: float = 0.36  # d_c, centre to centre (our choice: reaches 0.264 m, see module doc)
    connector_ratio: float = 720.0  # i0 i1: the arm's gearing (motor of the arm's class)
    mu_ground: float = 0.8  # μ_g: belt on ground, top and corner
    mu_riser: float = 0.8  # μ_w: belt on the riser
    body_width: float = 0.20  # w: the belt's width (the support lines' length)

    def __post_init__(self):
        if not 1 <= self.n_modules <= 6:
            raise ValueError(f"n_modules: must be in [1, 6], got {self.n_modules}")
        lr = self.module.track_side + 2 * self.module.pulley_radius
        if not lr <= self.coupler_length <= 2.0:
            raise ValueError(f"coupler_length: must be in [l + 2r = {lr:.3f}, 2] m, got {self.coupler_length}")
        if not self.connector_ratio > 0:
            raise ValueError(f"connector_ratio: must be > 0, got {self.connector_ratio}")
        for k in ("mu_ground", "mu_riser"):
            if not 0 <= getattr(self, k) <= 5:
                raise ValueError(f"{k}: must be in [0, 5], got {getattr(self, k)}")

    @property
    def connector_torque_max(self) -> float:
        return self.module.motor_torque_max * self.connector_ratio

    @property
    def belt_force_max(self) -> float:
        """i0 i1 i2 τ_max / r: the most a module's drive pulls (203 N with Table 1)."""
        return self.module.pulley_torque_max / self.module.pulley_radius

    @property
    def z0(self) -> float:
        return self.module.inradius + self.module.pulley_radius

    @property
    def module_mass(self) -> float:
        return self.module.m_body + self.module.m_arm


# ------------------------------------------------------------------------------------------------
# planar geometry


def rot(psi: float) -> np.ndarray:
    c, s = math.cos(psi), math.sin(psi)
    return np.array([[c, -s], [s, c]])


def pulleys_body(p: ClimbParams) -> np.ndarray:
    """(3, 2) pulley centres F, T, R in the module frame (x forward, z up), resting on the base face."""
    a, l = p.inradius, p.track_side
    return np.array([[l / 2, -a], [0.0, 2 * a], [-l / 2, -a]])


def pulleys(p: ClimbParams, C, psi: float) -> np.ndarray:
    return np.asarray(C, float) + pulleys_body(p) @ rot(psi).T


def outline(p: ClimbParams, C, psi: float, n_arc: int = 40) -> np.ndarray:
    """(3 n_arc, 2) points on the belt envelope (the pulley triangle offset by r)."""
    P = pulleys(p, C, psi)
    out = []
    for k, c in enumerate(P):  # F, T, R: outward normals from the previous face's to the next one's
        a0 = psi + math.radians((-30.0, 90.0, 210.0)[k]) - math.radians(60)
        for u in np.linspace(a0, a0 + math.radians(120), n_arc):
            out.append(c + p.pulley_radius * np.array([math.cos(u), math.sin(u)]))
    return np.array(out)


def depth_in_step(P: np.ndarray, h: float) -> np.ndarray:
    """How deep each point lies inside the step's solid (ground z < 0, block x > 0, z < h); ≤ 0 outside."""
    x, z = P[:, 0], P[:, 1]
    d_ground = -z
    d_block = np.where(x > 0, np.minimum(x, h - z), -np.inf)
    return np.maximum(d_ground, d_block)


# ------------------------------------------------------------------------------------------------
# the serial chain's poses


def serial_h_geo(cp: ChainParams) -> float:
    """The serial chain's geometric limit (module doc): √(d_c² − (l + r)²)."""
    p = cp.module
    return math.sqrt(max(cp.coupler_length**2 - (p.track_side + p.pulley_radius) ** 2, 0.0))


def climber_pose(cp: ChainParams, h: float, u: float) -> tuple[np.ndarray, float]:
    """Centre and pitch of the climbing module at path parameter u ∈ [0, 3] (module doc: a, b, c)."""
    p = cp.module
    r, l, z0 = p.pulley_radius, p.track_side, cp.z0
    if u <= 1.0:  # (a) flip about F's centre at (−r, r), from resting with F at the riser
        zeta = -math.radians(30.0) * u
        Fc = np.array([-r, r])
        C_rest = Fc - pulleys_body(p)[0]
        return Fc + rot(zeta) @ (C_rest - Fc), zeta
    if u <= 2.0:  # (b) front face on the riser, centre from r + l/2 up to h
        z_start = r + l / 2
        return np.array([-z0, z_start + (u - 1.0) * max(h - z_start, 0.0)]), -math.radians(30.0)
    phi = (u - 2.0) * math.pi / 2  # (c) roll over the corner on the front face
    return np.array([-z0 * math.cos(phi), h + z0 * math.sin(phi)]), -math.radians(30.0) - phi


@dataclass
class ChainPose:
    centres: np.ndarray  # (N, 2)
    pitches: np.ndarray  # (N,)
    level: list  # per module: "ground" | "top" | "climb"
    climber: int
    u: float
    ok: bool
    why: str = ""


def serial_pose(cp: ChainParams, h: float, j: int, u: float) -> ChainPose:
    """The chain while module j climbs at u: modules ahead flat on the top, behind flat on the ground,
    each placed by its bar's length from the one next to it (the forward / backward solution)."""
    N, d, z0 = cp.n_modules, cp.coupler_length, cp.z0
    p = cp.module
    C = np.zeros((N, 2))
    psi = np.zeros(N)
    level = ["top"] * j + ["climb"] + ["ground"] * (N - j - 1)
    C[j], psi[j] = climber_pose(cp, h, u)
    ok, why = True, ""
    for k in range(j - 1, -1, -1):  # ahead, on the top
        dz = h + z0 - C[k + 1, 1]
        if abs(dz) > d:
            return ChainPose(C, psi, level, j, u, False, f"bar {k}-{k + 1} too short to reach the top")
        C[k] = (C[k + 1, 0] + math.sqrt(d * d - dz * dz), h + z0)
        if C[k, 0] - p.track_side / 2 < -1e-12:
            ok, why = False, f"module {k} would rest behind the edge (rear pulley at x = {C[k, 0] - p.track_side / 2:+.3f} m)"
    for k in range(j + 1, N):  # behind, on the ground
        dz = C[k - 1, 1] - z0
        if abs(dz) > d:
            return ChainPose(C, psi, level, j, u, False, f"bar {k - 1}-{k} too short to reach the ground")
        C[k] = (C[k - 1, 0] - math.sqrt(d * d - dz * dz), z0)
        if C[k, 0] + p.track_side / 2 + p.pulley_radius > 1e-12:
            ok, why = False, f"module {k} would stand in the riser (front at x = {C[k, 0] + p.track_side / 2 + p.pulley_radius:+.3f} m)"
    return ChainPose(C, psi, level, j, u, ok, why)


# ------------------------------------------------------------------------------------------------
# contacts and statics


@dataclass(frozen=True)
class Contact:
    body: int  # module index (arms are bodies N, N+1, …)
    point: tuple  # (x, z)
    normal: tuple  # unit, from the environment into the body
    mu: float
    belt: bool  # a belt contact (its tangential force counts against the drive's capacity)
    support: bool  # in eq. 13's support polygon (every belt contact with the step or the ground, as the paper's AB)


def module_contacts(cp: ChainParams, k: int, C, psi: float, level: str, h: float, u: float) -> list[Contact]:
    p = cp.module
    r, l = p.pulley_radius, p.track_side
    P = pulleys(p, C, psi)
    mg, mw = cp.mu_ground, cp.mu_riser
    if level == "ground":
        return [Contact(k, (P[i, 0], 0.0), (0.0, 1.0), mg, True, True) for i in (0, 2)]
    if level == "air":
        return []
    if level == "top":
        return [Contact(k, (P[i, 0], h), (0.0, 1.0), mg, True, True) for i in (0, 2)]
    # climbing
    if u < 1.0 - 1e-12:
        F = P[0]
        return [Contact(k, (F[0], 0.0), (0.0, 1.0), mg, True, True), Contact(k, (0.0, F[1]), (-1.0, 0.0), mw, True, True)]
    if u <= 2.0 + 1e-12:
        lo, hi = P[0, 1], min(P[1, 1], h)  # the face's run on the riser, below the corner
        out = [Contact(k, (0.0, lo), (-1.0, 0.0), mw, True, True)]
        if hi > lo + 1e-9:
            out.append(Contact(k, (0.0, hi), (-1.0, 0.0), mw, True, True))
        if lo - r < 1e-9:
            out.append(Contact(k, (P[0, 0], 0.0), (0.0, 1.0), mg, True, True))
        return out
    n = np.asarray(C, float) - np.array([0.0, h])
    n /= np.linalg.norm(n)
    out = [Contact(k, (0.0, h), tuple(n), mg, True, True)]
    if u >= 3.0 - 1e-9:  # lies on the top: its front face (now its base) on both pulleys
        out = [Contact(k, (P[i, 0], h), (0.0, 1.0), mg, True, True) for i in range(3) if abs(P[i, 1] - r - h) < 1e-6]
    return out


@dataclass
class Statics:
    feasible: bool
    ratio: float  # s: the largest motor load ratio (inf if infeasible)
    connector_torque: np.ndarray  # (N−1, 2): the front and rear joints of each bar (N·m)
    arm_torque: float
    belt_force: np.ndarray  # (N,) each module's summed belt tangential force (N)
    wheel_load: float
    contacts: list


def _cross(a, f) -> float:
    return float(a[0] * f[1] - a[1] * f[0])


def tail_arm(cp: ChainParams, C, psi: float) -> tuple[np.ndarray, np.ndarray] | None:
    """(guide-wheel contact point, arm COM) of the tail's arm trailing down to the ground, or None if it
    cannot reach (the pivot higher than l_a + r_d above the ground, or the wheel would be at the riser)."""
    p = cp.module
    dz = C[1] - p.guide_radius
    if dz >= p.arm_length or dz <= 0:
        return None
    bx = math.sqrt(p.arm_length**2 - dz**2)
    wheel = np.array([C[0] - bx, 0.0])
    if wheel[0] > -p.guide_radius:
        return None
    com = np.asarray(C, float) + (p.arm_com / p.arm_length) * (np.array([wheel[0], p.guide_radius]) - C)
    return wheel, com


def chain_statics(cp: ChainParams, pose: ChainPose, h: float, use_arm: bool = True, fixed: tuple = (),
                  robust: bool = False, robust_slack: float = 1.5, robust_floor: float = 0.5,
                  arm_presses: bool = False) -> Statics:
    """Least peak motor load ratio over every force distribution that holds the pose (module doc).
    Modules in ``fixed`` are held by the world (their balance is not imposed: a test's anchor). With
    ``robust`` the forces returned are the ones with the most friction reserve among those whose load
    ratio is within max(robust_slack × the least, robust_floor) (``ratio`` stays the least): what a
    controller feeds forward. With ``arm_presses`` the tail's arm torque is kept ≥ 0 (tip down): its motor
    never holds the arm up off its guide wheel, so the wheel bears at least the arm's own weight share
    and stays a support, eq. 13's point C (the wheel is frictionless, so the robust programme is otherwise
    free to leave it unloaded: at the tail's climb start it picked τ_arm = −m_a g x_a, the wheel at
    zero load, which fed forward lifted it off the ground; lab.papers.hu2013_tracked.chain_climb.plan)."""
    from scipy.optimize import linprog

    p = cp.module
    N = cp.n_modules
    C, psi = pose.centres, pose.pitches
    contacts: list[Contact] = []
    for k in range(N):
        contacts += module_contacts(cp, k, C[k], psi[k], pose.level[k], h, pose.u)
    arm = tail_arm(cp, C[N - 1], psi[N - 1]) if use_arm else None
    masses = [cp.module_mass] * N
    if arm is not None:
        masses[N - 1] = p.m_body
    # variables: s, (n, f) per contact, per bar (Fx, Fz, tau_rear), arm (Px, Pz, tau_arm, lam)
    nc = len(contacts)
    i_c = 1
    i_b = i_c + 2 * nc
    i_a = i_b + 3 * (N - 1)
    nv = i_a + (4 if arm is not None else 0)
    n_bodies = N + (1 if arm is not None else 0)
    A_eq = np.zeros((3 * n_bodies, nv))
    b_eq = np.zeros(3 * n_bodies)
    com = [np.asarray(C[k], float) for k in range(N)]
    for k in range(N):  # gravity
        b_eq[3 * k + 1] = masses[k] * G
    for i, c in enumerate(contacts):
        n = np.array(c.normal)
        t = np.array([n[1], -n[0]])  # belt direction, the same sense round every body
        pt = np.array(c.point) - com[c.body]
        for col, v in ((i_c + 2 * i, n), (i_c + 2 * i + 1, t)):
            A_eq[3 * c.body, col] += v[0]
            A_eq[3 * c.body + 1, col] += v[1]
            A_eq[3 * c.body + 2, col] += _cross(pt, v)
    for k in range(N - 1):  # bar k joins module k (front, at C_k) and k+1 (rear, at C_{k+1})
        c0 = i_b + 3 * k
        # on module k+1 at its centre: +F, +tau_rear; on module k at its centre: −F and tau_front, where the
        # massless bar's balance gives tau_front = (C_k − C_{k+1}) × F − tau_rear
        A_eq[3 * (k + 1), c0] += 1
        A_eq[3 * (k + 1) + 1, c0 + 1] += 1
        A_eq[3 * (k + 1) + 2, c0 + 2] += 1
        A_eq[3 * k, c0] -= 1
        A_eq[3 * k + 1, c0 + 1] -= 1
        dC = com[k] - com[k + 1]
        A_eq[3 * k + 2, c0] += -dC[1]
        A_eq[3 * k + 2, c0 + 1] += dC[0]
        A_eq[3 * k + 2, c0 + 2] -= 1
    if arm is not None:
        wheel, acom = arm
        b = 3 * N
        piv = com[N - 1]
        # on the arm: pin force P at the pivot, torque tau_arm, wheel λ up at the wheel, its weight
        A_eq[b, i_a] = 1
        A_eq[b + 1, i_a + 1] = 1
        A_eq[b + 1, i_a + 3] = 1
        b_eq[b + 1] = p.m_arm * G
        A_eq[b + 2, i_a + 2] = 1
        A_eq[b + 2, i_a + 3] = _cross(wheel - piv, (0.0, 1.0))
        b_eq[b + 2] = -_cross(acom - piv, (0.0, -p.m_arm * G))
        # on the tail module: −P, −tau_arm
        k = N - 1
        A_eq[3 * k, i_a] -= 1
        A_eq[3 * k + 1, i_a + 1] -= 1
        A_eq[3 * k + 2, i_a + 2] -= 1
    rows, rhs = [], []

    def le(coefs: dict, b=0.0):
        a = np.zeros(nv)
        for kk, v in coefs.items():
            a[kk] += v
        rows.append(a)
        rhs.append(b)

    for i, c in enumerate(contacts):
        n_i, f_i = i_c + 2 * i, i_c + 2 * i + 1
        le({f_i: 1, n_i: -c.mu})
        le({f_i: -1, n_i: -c.mu})
    tc = cp.connector_torque_max
    for k in range(N - 1):
        c0 = i_b + 3 * k
        dC = com[k] - com[k + 1]
        le({c0 + 2: 1, 0: -tc})
        le({c0 + 2: -1, 0: -tc})
        tf = {c0: -dC[1], c0 + 1: dC[0], c0 + 2: -1}
        le({**tf, 0: -tc})
        le({**{kk: -v for kk, v in tf.items()}, 0: -tc})
    if arm is not None:
        le({i_a + 2: 1, 0: -p.arm_torque_max})
        le({i_a + 2: -1, 0: -p.arm_torque_max})
    Fb = cp.belt_force_max
    for k in range(N):
        cols = [i_c + 2 * i + 1 for i, c in enumerate(contacts) if c.body == k and c.belt]
        if cols:
            le({**{cc: 1 for cc in cols}, 0: -Fb})
            le({**{cc: -1 for cc in cols}, 0: -Fb})
    bounds = [(0, None)] + [(0, None), (None, None)] * nc + [(None, None)] * (3 * (N - 1))
    if arm is not None:
        bounds += [(None, None)] * 2 + [(0, None) if arm_presses else (None, None)] + [(0, None)]
    cost = np.zeros(nv)
    cost[0] = 1.0
    keep = [i for i in range(A_eq.shape[0]) if i // 3 not in fixed]
    res = linprog(cost, A_ub=np.array(rows), b_ub=np.array(rhs), A_eq=A_eq[keep], b_eq=b_eq[keep], bounds=bounds,
                  method="highs")
    if res.status != 0:
        return Statics(False, math.inf, np.full((N - 1, 2), np.nan), math.nan, np.full(N, np.nan), math.nan, contacts)
    x = res.x
    s_min = float(x[0])
    if robust and nc:
        # among the distributions within robust_slack × the least load ratio (at least robust_floor), the one
        # farthest from sliding: maximise the least friction reserve μ N − |f| over the contacts (a vertex of
        # the first programme sits on some cone's edge, where an engine's contact slips)
        cap = max(robust_slack * s_min, robust_floor)
        A2 = np.c_[np.array(rows), np.zeros(len(rows))]
        b2 = list(rhs)
        for i, c in enumerate(contacts):
            for sgn in (1, -1):
                a = np.zeros(nv + 1)
                a[i_c + 2 * i + 1] = sgn
                a[i_c + 2 * i] = -c.mu
                a[nv] = 1.0  # sgn f − μ n + m ≤ 0
                A2 = np.vstack([A2, a])
                b2.append(0.0)
        cost2 = np.zeros(nv + 1)
        cost2[nv] = -1.0
        A_eq2 = np.c_[A_eq[keep], np.zeros(len(keep))]
        bounds2 = [(0, cap)] + bounds[1:] + [(None, None)]
        res2 = linprog(cost2, A_ub=A2, b_ub=np.array(b2), A_eq=A_eq2, b_eq=b_eq[keep], bounds=bounds2, method="highs")
        if res2.status == 0:
            x = res2.x[:nv]
    ct = np.zeros((N - 1, 2))
    for k in range(N - 1):
        c0 = i_b + 3 * k
        dC = com[k] - com[k + 1]
        ct[k, 1] = x[c0 + 2]
        ct[k, 0] = -dC[1] * x[c0] + dC[0] * x[c0 + 1] - x[c0 + 2]
    belt = np.zeros(N)
    for i, c in enumerate(contacts):
        belt[c.body] += x[i_c + 2 * i + 1]
    return Statics(True, s_min, ct, float(x[i_a + 2]) if arm is not None else 0.0, belt,
                   float(x[i_a + 3]) if arm is not None else 0.0, contacts)


def support_margin(cp: ChainParams, pose: ChainPose, statics: Statics) -> float:
    """Eq. 13 generalised: the combined COM's signed distance inside the hull of every support contact
    (belt contacts as lines ±w/2 across, the tail's guide wheel as a point), projected on the ground."""
    from ....analysis.stability import polygon_margin

    w2 = cp.body_width / 2
    pts = []
    for c in statics.contacts:
        if c.support:
            pts += [(c.point[0], w2, c.point[1]), (c.point[0], -w2, c.point[1])]
    masses = np.full(cp.n_modules, cp.module_mass)
    com_x = float(masses @ pose.centres[:, 0] / masses.sum())
    arm = tail_arm(cp, pose.centres[-1], pose.pitches[-1])
    if arm is not None:
        wheel, acom = arm
        pts.append((wheel[0], 0.0, 0.0))
        m = masses.copy()
        m[-1] = cp.module.m_body
        com_x = float((m @ pose.centres[:, 0] + cp.module.m_arm * acom[0]) / (m.sum() + cp.module.m_arm))
    xs = sorted({round(q[0], 12) for q in pts})
    if len(xs) < 2:  # a single support line: no area, the margin is the distance to it with a sign of 0
        return -abs(com_x - xs[0]) if xs else -math.inf
    return polygon_margin(np.array(pts), np.array([com_x, 0.0, 0.0]))[0]


# ------------------------------------------------------------------------------------------------
# the climb of a configuration


@dataclass
class ClimbAnalysis:
    config: str
    n_modules: int
    h: float
    feasible: bool
    reason: str
    h_geo: float
    peak_ratio: float
    peak_connector_torque: float  # N·m
    peak_arm_torque: float
    peak_belt_force: float
    min_margin: float  # m
    samples: list = field(default_factory=list)  # (module, u, ratio, margin)


def sample_climb(kind: str, n_modules: int, h: float, h_geo: float, z_min: float, climbers: int, n_u: int,
                 pose_of, statics_of, margin_of, connector_peak_of) -> ClimbAnalysis:
    """The climb of modules 0 … climbers−1 sampled at n_u values of u (0 … 3: a, b, c): each pose's
    geometry, statics and support margin, the peaks and the verdict. ``pose_of(j, u)``, ``statics_of(pose)``,
    ``margin_of(pose, statics)`` and ``connector_peak_of(statics)`` are the configuration's own (the serial
    chain's here, the loops' in :mod:`.loops`)."""
    out = ClimbAnalysis(kind, n_modules, h, True, "climbs", h_geo, 0.0, 0.0, 0.0, 0.0, math.inf)
    if h < z_min:
        out.feasible, out.reason = False, f"h below r + l/2 = {z_min:.3f} m: a module climbs it alone"
        return out
    for j in range(climbers):
        for u in np.linspace(0.0, 3.0, n_u):
            pose = pose_of(j, float(u))
            if not pose.ok:
                out.feasible, out.reason = False, f"geometry: {pose.why} (module {j} at u = {u:.2f})"
                return out
            st = statics_of(pose)
            m = margin_of(pose, st) if st.feasible else math.nan
            out.samples.append((j, float(u), st.ratio, m))
            if not st.feasible:
                out.feasible, out.reason = False, f"statics: no contact forces hold module {j} at u = {u:.2f}"
                return out
            out.peak_ratio = max(out.peak_ratio, st.ratio)
            out.peak_connector_torque = max(out.peak_connector_torque, connector_peak_of(st))
            out.peak_arm_torque = max(out.peak_arm_torque, abs(st.arm_torque))
            out.peak_belt_force = max(out.peak_belt_force, float(np.max(np.abs(st.belt_force))))
            out.min_margin = min(out.min_margin, m)
    if out.peak_ratio > 1.0:
        out.feasible, out.reason = False, f"torque: a motor needs {out.peak_ratio:.2f}× its rating"
    elif out.min_margin <= 0:
        out.feasible, out.reason = False, f"tips: the support margin reaches {100 * out.min_margin:+.1f} cm"
    return out


def analyse_serial(cp: ChainParams, h: float, n_u: int = 31) -> ClimbAnalysis:
    """Every module's climb (a, b, c) sampled at n_u values of u; the pose's statics and margin."""
    return sample_climb("serial", cp.n_modules, h, serial_h_geo(cp), cp.module.pulley_radius + cp.module.track_side / 2,
                        cp.n_modules, n_u, lambda j, u: serial_pose(cp, h, j, u),
                        lambda pose: chain_statics(cp, pose, h), lambda pose, st: support_margin(cp, pose, st),
                        lambda st: float(np.nanmax(np.abs(st.connector_torque), initial=0)))


def max_height_serial(cp: ChainParams, tol: float = 2e-3, n_u: int = 31) -> float:
    """The largest h (bisection, assuming monotone) the serial chain climbs within ratings and with
    a positive margin; NaN if not even r + l/2."""
    return largest_feasible_h(lambda h: analyse_serial(cp, h, n_u).feasible,
                              cp.module.pulley_radius + cp.module.track_side / 2, serial_h_geo(cp), tol)


def largest_feasible_h(feasible, lo: float, hi: float, tol: float) -> float:
    """The largest h in [lo, hi] with ``feasible(h)``, by bisection to ``tol`` (assuming feasibility is
    monotone in h): ``hi`` if it is feasible, NaN if not even ``lo`` is. The serial chain's and the loops'
    limits (:func:`max_height_serial`, ``loops.max_height_loop``)."""
    if not feasible(lo):
        return math.nan
    if feasible(hi):
        return hi
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if feasible(mid):
            lo = mid
        else:
            hi = mid
    return lo


# ------------------------------------------------------------------------------------------------
# hanging module: the POE chain's gravity term (the screw model extended)


def hanging_torque_poe(cp: ChainParams, C_rear, bar_angle: float, psi_front: float) -> tuple[float, float]:
    """(rear joint, front joint) torques holding module k hanging from its bar, the rear module fixed:
    the POE chain (rear joint about the rear centre, front joint about the front centre, one link: the
    module) and its gravity term N(q) = ∂E_p/∂q (Murray §4.3; :class:`lab.analysis.se3.PoeChain`).
    Frame: S = (x_S lateral, y_S = our x, z_S = our z): rotations about +x_S turn y_S towards z_S, counter-
    clockwise in our (x, z), as our angles."""
    from ....analysis.se3 import Link, PoeChain, ScrewJoint, twist_revolute

    d = cp.coupler_length
    Cr = np.array([0.0, C_rear[0], C_rear[1]])
    Cf = Cr + np.array([0.0, d, 0.0])
    j1 = ScrewJoint(twist_revolute((1, 0, 0), Cr))
    j2 = ScrewJoint(twist_revolute((1, 0, 0), Cf))
    g0 = np.eye(4)
    g0[:3, 3] = Cf
    link = Link("module", 2, g0, cp.module_mass, np.eye(3) * 0.01)
    chain = PoeChain((j1, j2), (link,))
    q = np.array([bar_angle, psi_front - bar_angle])
    _, _, N = chain.dynamics(q, np.zeros(2), np.array([0.0, 0.0, -G]))
    return float(N[0]), float(N[1])


# ------------------------------------------------------------------------------------------------
# parallel, ring, triangle


def parallel_limit(p: ClimbParams = ClimbParams(), n_modules: int = 2) -> dict:
    """Side by side on rigid ground: the single module's section, every force × n (module doc)."""
    from .params import height_limit

    return {"h_max_paper": height_limit(p), "lateral_half_width": n_modules * 0.20 / 2,
            "note": "rigid ground: the single module's limits; its purpose (ground pressure / n) needs a soil model"}


def loop_geometry(cp: ChainParams, n_sides: int) -> dict:
    """Our reading of Fig 4's ring (n_sides = 4) and triangle (3): the modules are the sides of a
    closed loop, joined by the bars' joints at the corners, tracks outward. With the bars as long as
    in the chain, a side of the loop is d_c; the loop climbs like one big module of side d_c: by the
    paper's own criterion (§4.3, h_max = min(l, l − r)) with l → d_c. The loop's shape is fixed for
    the triangle (3 bars: rigid); the ring has one DOF (a four-bar) that its joints hold."""
    L = cp.coupler_length
    r = cp.module.pulley_radius
    R_c = L / (2 * math.sin(math.pi / n_sides))
    return {"side": L, "circumradius": R_c, "h_max_paper_criterion": min(L, L - r),
            "centre_height": L / (2 * math.tan(math.pi / n_sides)) + cp.z0}


__all__ = ["CONFIGS", "ChainParams", "ChainPose", "Contact", "Statics", "ClimbAnalysis", "serial_h_geo", "climber_pose",
           "serial_pose", "chain_statics", "support_margin", "analyse_serial", "max_height_serial",
           "hanging_torque_poe", "parallel_limit", "loop_geometry", "outline", "depth_in_step", "pulleys", "rot"]
