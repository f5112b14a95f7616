"""The triangle (三角) and ring (环形) configurations of Hu 2013 Fig 4: their climb, statics and limit.
No pybullet here.

What the paper gives: two pictures, "for steps of different heights … when one module cannot climb, the
modules try a multi-module configuration, the ring of Fig 4(b) and the triangle of Fig 4(c)" (§2.1), and
the connection device on the body (§1.2). No dimension, joint or sequence. What we chose (the robot is
lab.robots.tracked_chain with ``layout = "triangle" | "ring"``):

- **The loop.** The serial chain of :mod:`.multi` closed on itself: the modules at the corners of a
  closed loop of bars of length d_c in the climbing plane, pinned at the modules' centres. Module 0 (F,
  front) and module 1 (R, rear) stand on the ground as the serial pair; the triangle's module 2 (T) at
  the apex of an equilateral triangle above them, the ring's modules 2 (TR) and 3 (TF) above R and F
  (a square: a four-bar linkage). In the engine the loop is closed by a point-to-point constraint.
- **Actuation.** Triangle: every pin but the loop's closing one (at the apex): each bottom module has two
  motored joints to the rigid truss, in parallel, the apex module one (its pitch): a rigid truss
  carrying its apex. Ring: every
  pin but the closing one is motored. Its square is a four-bar that the upper modules' weight shears
  (:func:`shape_torque`: 25–32 N·m at the climb's tilt); held at one corner (five motors, bar 0's two,
  the rear corner's ``c1_front`` and the upper modules' pitches) the analysis needs 1.9–2.4× a connector's
  rating for h = 0.20–0.25 m; with all seven the three corners share it (0.63–0.79×).
- **The climb.** The bottom pair climbs exactly as the serial pair of :func:`.multi.serial_pose` (F first:
  flip, riser, corner; then R), the truss rigid on bar 0: the upper modules ride on it, their pitch the
  truss's (their joints held), their arms stowed; the rear module's arm trails on its wheel.

Geometric limit (derivation). The bottom pair's reach is the serial pair's (:func:`.multi.serial_h_geo`):
    h ≤ √(d_c² − (l + r)²). The loop adds one condition: the upper modules, carried on the truss, must
    stay out of the step along the whole climb. The truss's angle is β = atan2(Δz, Δx) of R → F; the
    apex (triangle) sits d_c/√3 above bar 0's middle, the ring's upper side d_c above bar 0, both on the
    side away from the step while β ≤ 90°, so they clear the step whenever the bottom pair does and
    h < d_c (the ring's TF above F must pass over the riser at the start: its lowest point d_c above the
    ground). So h_loop = min(√(d_c² − (l + r)²), d_c − margin) = the serial pair's reach for d_c = 0.36 m.
    :func:`loop_pose` checks every pose's upper envelopes against the step (the test compares with a
    brute-force search over sampled envelopes).

Statics (:func:`frame_statics`): the planar equilibrium of every module, every bar (its mass at its
    middle) and the rear module's arm, as a linear programme over the contacts' friction cones with the
    pins' forces and torques as unknowns (a passive pin carries no torque, an actuated one at most the
    connector's stall torque × s), minimising the largest motor load ratio s, as
    :func:`.multi.chain_statics` does for the open chain with its bars eliminated. The two formulations
    must agree on the serial chain with massless bars (the test). What the loops add: the truss carries
    the upper modules' weight into bar 0's joints, and the ring's square must be held against shearing
    by its rear corner (the four-bar's one freedom): :func:`shape_torque` is that torque by virtual work,
    the second formulation the test holds the LP's corner torque against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .multi import (G, ChainParams, ChainPose, ClimbAnalysis, Contact, climber_pose, depth_in_step, module_contacts,
                    largest_feasible_h, outline, rot, sample_climb, serial_h_geo, serial_pose, tail_arm)

LOOPS = {"triangle": 3, "ring": 4}


@dataclass(frozen=True)
class LoopParams:
    """A closed loop of identical modules (module doc): ``kind`` "triangle" (3) or "ring" (4); the bars'
    length, the friction and the motors as in :class:`.multi.ChainParams` (whose n_modules is ignored)."""

    kind: str = "triangle"
    chain: ChainParams = field(default_factory=ChainParams)
    bar_mass: float = 0.3  # each bar (the robot's bar_mass)

    def __post_init__(self):
        if self.kind not in LOOPS:
            raise ValueError(f"kind: must be one of {', '.join(LOOPS)}, got {self.kind!r}")

    @property
    def n_modules(self) -> int:
        return LOOPS[self.kind]

    @property
    def pair(self) -> ChainParams:
        """The bottom pair as a serial chain of two."""
        from dataclasses import replace

        return replace(self.chain, n_modules=2)

    def bars(self) -> list[tuple[int, int]]:
        """(module k, module k+1 mod N) per bar k, as the robot's bar_k."""
        N = self.n_modules
        return [(k, (k + 1) % N) for k in range(N)]

    one_corner: bool = False  # ring: only the five motors of one held corner (module doc), to show why not

    def actuated(self) -> set[tuple[int, str]]:
        """(bar, "front" | "rear") of every motored pin (module doc; the robot's connector_joints)."""
        if self.kind == "triangle":  # every pin but the closing one (the closing bar's front, at the apex)
            return {(0, "front"), (0, "rear"), (1, "front"), (1, "rear"), (2, "rear")}
        if self.one_corner:
            return {(0, "front"), (0, "rear"), (1, "front"), (1, "rear"), (2, "rear")}
        return {(b, e) for b in range(4) for e in ("front", "rear")} - {(3, "front")}


def upper_corners(lp: LoopParams, C_F, C_R) -> np.ndarray:
    """The upper modules' centres on the truss whose bar 0 runs R → F (module doc)."""
    C_F, C_R = np.asarray(C_F, float), np.asarray(C_R, float)
    d = lp.chain.coupler_length
    u = (C_F - C_R) / d
    n = np.array([-u[1], u[0]])
    if lp.kind == "triangle":
        return np.array([C_R + d * (u / 2 + math.sqrt(3) / 2 * n)])
    return np.array([C_R + d * n, C_F + d * n])


def loop_pose(lp: LoopParams, h: float, j: int, u: float) -> ChainPose:
    """The loop while bottom module j (0: F, 1: R) climbs at u: the serial pair's pose with the upper
    modules on the truss, their pitch the truss's, checked against the step."""
    pair = serial_pose(lp.pair, h, j, u)
    C = np.vstack([pair.centres, upper_corners(lp, pair.centres[0], pair.centres[1])])
    beta = math.atan2(C[0, 1] - C[1, 1], C[0, 0] - C[1, 0])
    psi = np.r_[pair.pitches, np.full(lp.n_modules - 2, beta)]
    ok, why = pair.ok, pair.why
    if ok:
        for k in range(2, lp.n_modules):
            depth = depth_in_step(outline(lp.chain.module, C[k], psi[k], n_arc=12), h).max()
            if depth > 1e-9:
                ok, why = False, f"upper module {k} would enter the step ({1000 * depth:.0f} mm)"
                break
    return ChainPose(C, psi, [*pair.level, *(["air"] * (lp.n_modules - 2))], j, u, ok, why)


def loop_h_geo(lp: LoopParams) -> float:
    """The loop's geometric limit (module doc): the bottom pair's reach, and below d_c."""
    return min(serial_h_geo(lp.pair), lp.chain.coupler_length)


# ------------------------------------------------------------------------------------------------
# statics of a planar frame of modules, bars and the rear arm


@dataclass
class FrameStatics:
    feasible: bool
    ratio: float
    pin_torque: dict  # (bar, "front" | "rear") -> torque the bar puts on that end's module (N·m, CCW)
    arm_torque: float
    belt_force: np.ndarray
    contacts: list


def frame_statics(cp: ChainParams, centres, pitches, levels, h: float, u: float, bars: list[tuple[int, int]],
                  actuated: set, bar_mass: float = 0.0, tail: int | None = None, robust: bool = False,
                  robust_slack: float = 1.5, robust_floor: float = 0.5, maximise: tuple | None = None) -> FrameStatics:
    """The least peak motor load ratio over every force distribution that holds the pose (module doc).

    Bodies: the modules (mass m_body + m_arm, at the centre; the ``tail``'s arm as its own body on its
    wheel, as :func:`.multi.chain_statics`), each bar (mass ``bar_mass`` at its middle). Unknowns: s, each
    contact's (n, f), each pin's force and torque on its module (the bar gets the opposite), the tail arm's
    pin force, torque and wheel load. A pin not in ``actuated`` carries no torque."""
    from scipy.optimize import linprog

    p = cp.module
    C = np.asarray(centres, float)
    N, B = len(C), len(bars)
    contacts: list[Contact] = []
    for k in range(N):
        contacts += module_contacts(cp, k, C[k], pitches[k], levels[k], h, u)
    arm = tail_arm(cp, C[tail], pitches[tail]) if tail is not None else None
    nc = len(contacts)
    pins = [(b, end, bars[b][0] if end == "front" else bars[b][1]) for b in range(B) for end in ("front", "rear")]
    i_c, i_p = 1, 1 + 2 * nc
    i_a = i_p + 3 * len(pins)
    nv = i_a + (4 if arm is not None else 0)
    nb = N + B + (1 if arm is not None else 0)
    com = [C[k] for k in range(N)] + [0.5 * (C[a] + C[b]) for a, b in bars]
    A = np.zeros((3 * nb, nv))
    b_eq = np.zeros(3 * nb)
    for k in range(N):
        b_eq[3 * k + 1] = (p.m_body if (arm is not None and k == tail) else cp.module_mass) * G
    for k in range(B):
        b_eq[3 * (N + k) + 1] = bar_mass * G
    for i, c in enumerate(contacts):
        n = np.array(c.normal)
        t = np.array([n[1], -n[0]])
        r_ = np.array(c.point) - com[c.body]
        for col, v in ((i_c + 2 * i, n), (i_c + 2 * i + 1, t)):
            A[3 * c.body, col] += v[0]
            A[3 * c.body + 1, col] += v[1]
            A[3 * c.body + 2, col] += r_[0] * v[1] - r_[1] * v[0]
    for q, (b, end, m) in enumerate(pins):
        c0 = i_p + 3 * q
        # on module m at its centre: +F, +tau; on bar b at that point: −F, −tau
        A[3 * m, c0] += 1
        A[3 * m + 1, c0 + 1] += 1
        A[3 * m + 2, c0 + 2] += 1
        rb = C[m] - com[N + b]
        A[3 * (N + b), c0] -= 1
        A[3 * (N + b) + 1, c0 + 1] -= 1
        A[3 * (N + b) + 2, c0] -= -rb[1]
        A[3 * (N + b) + 2, c0 + 1] -= rb[0]
        A[3 * (N + b) + 2, c0 + 2] -= 1
    if arm is not None:
        wheel, acom = arm
        r0 = 3 * (N + B)
        piv = C[tail]
        A[r0, i_a] = 1
        A[r0 + 1, i_a + 1] = 1
        A[r0 + 1, i_a + 3] = 1
        b_eq[r0 + 1] = p.m_arm * G
        A[r0 + 2, i_a + 2] = 1
        A[r0 + 2, i_a + 3] = wheel[0] - piv[0]
        b_eq[r0 + 2] = (acom[0] - piv[0]) * p.m_arm * G
        A[3 * tail, i_a] -= 1
        A[3 * tail + 1, i_a + 1] -= 1
        A[3 * tail + 2, i_a + 2] -= 1
    rows, rhs = [], []

    def le(coefs: dict):
        a = np.zeros(nv)
        for kk, v in coefs.items():
            a[kk] += v
        rows.append(a)
        rhs.append(0.0)

    for i, c in enumerate(contacts):
        le({i_c + 2 * i + 1: 1, i_c + 2 * i: -c.mu})
        le({i_c + 2 * i + 1: -1, i_c + 2 * i: -c.mu})
    tc = cp.connector_torque_max
    bounds = [(0, None)] + [(0, None), (None, None)] * nc
    for q, (b, end, m) in enumerate(pins):
        c0 = i_p + 3 * q
        bounds += [(None, None), (None, None), (None, None) if (b, end) in actuated else (0.0, 0.0)]
        if (b, end) in actuated:
            le({c0 + 2: 1, 0: -tc})
            le({c0 + 2: -1, 0: -tc})
    if arm is not None:
        bounds += [(None, None)] * 3 + [(0, None)]
        le({i_a + 2: 1, 0: -p.arm_torque_max})
        le({i_a + 2: -1, 0: -p.arm_torque_max})
    Fb = cp.belt_force_max
    for k in range(N):
        cols = [i_c + 2 * i + 1 for i, c in enumerate(contacts) if c.body == k and c.belt]
        if cols:
            le({**{cc: 1 for cc in cols}, 0: -Fb})
            le({**{cc: -1 for cc in cols}, 0: -Fb})
    cost = np.zeros(nv)
    cost[0] = 1.0
    A_ub, b_ub = (np.array(rows), np.array(rhs)) if rows else (None, None)
    if maximise is not None:
        (bk, ek), sgn = maximise
        q = [i for i, (b, e, m) in enumerate(pins) if (b, e) == (bk, ek)][0]
        cost = np.zeros(nv)
        cost[i_p + 3 * q + 2] = -float(sgn)
        res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A, b_eq=b_eq, bounds=[(0, 1.0)] + bounds[1:], method="highs")
        if res.status != 0:
            return FrameStatics(False, math.nan, {}, math.nan, np.full(N, np.nan), contacts)
        return FrameStatics(True, float(sgn) * float(res.x[i_p + 3 * q + 2]), {}, math.nan, np.full(N, np.nan), contacts)
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        return FrameStatics(False, math.inf, {}, math.nan, np.full(N, np.nan), contacts)
    x, s_min = res.x, float(res.x[0])
    if robust and nc:  # as chain_statics: the most friction reserve within the slack of the least load
        cap = max(robust_slack * s_min, robust_floor)
        A2 = np.c_[np.array(rows), np.zeros(len(rows))]
        extra = []
        for i, c in enumerate(contacts):
            for sgn in (1, -1):
                a = np.zeros(nv + 1)
                a[i_c + 2 * i + 1], a[i_c + 2 * i], a[nv] = sgn, -c.mu, 1.0
                extra.append(a)
        A2 = np.vstack([A2, *extra])
        cost2 = np.zeros(nv + 1)
        cost2[nv] = -1.0
        bounds2 = [(0, cap)] + bounds[1:] + [(None, None)]
        res2 = linprog(cost2, A_ub=A2, b_ub=np.zeros(len(A2)), A_eq=np.c_[A, np.zeros(len(A))], b_eq=b_eq,
                       bounds=bounds2, method="highs")
        if res2.status == 0:
            x = res2.x[:nv]
    torque = {(b, end): float(x[i_p + 3 * q + 2]) for q, (b, end, m) in enumerate(pins)}
    belt = np.zeros(N)
    for i, c in enumerate(contacts):
        belt[c.body] += x[i_c + 2 * i + 1]
    return FrameStatics(True, s_min, torque, float(x[i_a + 2]) if arm is not None else 0.0, belt, contacts)


def loop_statics(lp: LoopParams, pose: ChainPose, h: float, robust: bool = False) -> FrameStatics:
    """:func:`frame_statics` of the loop at a pose of :func:`loop_pose` (the rear module R's arm trails)."""
    return frame_statics(lp.chain, pose.centres, pose.pitches, pose.level, h, pose.u, lp.bars(), lp.actuated(),
                         lp.bar_mass, tail=1, robust=robust)


def shape_torque(lp: LoopParams, beta: float) -> float:
    """The ring's four-bar: the torque that holds the square against shearing, by virtual work (the
    second formulation of the LP's rear-corner torque ``pin_torque[(1, "front")]``). The bottom bar fixed
    at angle β, the side bars at φ = β + 90° (only bar 1's pin on R is motored; bar 3's pins are passive):
    E_p = (2 m_module + 2 m_bar) g d sin φ + const (the upper modules, the top bar, the two side bars' halves;
    the upper modules turn with their bars, held), so the torque the side bar puts on R is
    τ = −∂E_p/∂φ·(−1) = (2 m_module + 2 m_bar) g d sin β (counter-clockwise on R). Triangle: rigid, 0."""
    if lp.kind != "ring":
        return 0.0
    m = 2 * lp.chain.module_mass + lp.bar_mass + lp.bar_mass  # top modules, top bar, two half side bars
    return m * G * lp.chain.coupler_length * math.sin(beta)


def loop_margin(lp: LoopParams, pose: ChainPose, st: FrameStatics) -> float:
    """Eq. 13 generalised: the loop's COM (modules, bars, the rear arm) inside the hull of every support
    contact (belt contacts as lines ±w/2, the arm's wheel a point), projected on the ground."""
    from ....analysis.stability import polygon_margin

    cp = lp.chain
    w2 = cp.body_width / 2
    pts = []
    for c in st.contacts:
        if c.support:
            pts += [(c.point[0], w2, c.point[1]), (c.point[0], -w2, c.point[1])]
    C = pose.centres
    m = np.full(len(C), cp.module_mass)
    x_m = list(C[:, 0])
    arm = tail_arm(cp, C[1], pose.pitches[1])
    if arm is not None:
        pts.append((arm[0][0], 0.0, 0.0))
        m[1] = cp.module.m_body
        x_m.append(arm[1][0])
        m = np.r_[m, cp.module.m_arm]
    for a, b in lp.bars():
        x_m.append(0.5 * (C[a, 0] + C[b, 0]))
        m = np.r_[m, lp.bar_mass]
    com_x = float(np.dot(m, x_m) / m.sum())
    if len({round(q[0], 12) for q in pts}) < 2:
        return -math.inf
    return polygon_margin(np.array(pts), np.array([com_x, 0.0, 0.0]))[0]


def analyse_loop(lp: LoopParams, h: float, n_u: int = 31) -> ClimbAnalysis:
    """Both bottom modules' climbs sampled at n_u values of u: geometry, statics, margin (as
    :func:`.multi.analyse_serial`)."""
    return sample_climb(lp.kind, lp.n_modules, h, loop_h_geo(lp),
                        lp.chain.module.pulley_radius + lp.chain.module.track_side / 2, 2, n_u,
                        lambda j, u: loop_pose(lp, h, j, u), lambda pose: loop_statics(lp, pose, h),
                        lambda pose, st: loop_margin(lp, pose, st),
                        lambda st: max(abs(v) for v in st.pin_torque.values()))


def max_height_loop(lp: LoopParams, tol: float = 2e-3, n_u: int = 31) -> float:
    """The largest h (bisection) the loop climbs within ratings with a positive margin; NaN if not even
    r + l/2."""
    return largest_feasible_h(lambda h: analyse_loop(lp, h, n_u).feasible,
                              lp.chain.module.pulley_radius + lp.chain.module.track_side / 2, loop_h_geo(lp), tol)


__all__ = ["LOOPS", "LoopParams", "upper_corners", "loop_pose", "loop_h_geo", "FrameStatics", "frame_statics",
           "loop_statics", "shape_torque", "loop_margin", "analyse_loop", "max_height_loop", "climber_pose", "rot"]
