"""The cleat law (lab.forces.cleats) on hand-made snapshots, and the engine gates T4–T5 (the cleated belt
locked on ridges, and driven up ridges steeper than atan μ)."""

import math

import numpy as np
import pytest

from lab.forces.cleats import BoundCleats, Cleats, belt_coordinate
from lab.robots.tracked import TrackedSpec
from lab.core.state import ModelInfo, RobotState

SPEC = TrackedSpec()
L, R = SPEC.track_side, SPEC.pulley_radius
A = SPEC.inradius
LINKS = ("body", "drive", "arm", "guide", "belt_pulley_F", "belt_pulley_T", "belt_pulley_R", "belt_slab_0",
         "belt_slab_1", "belt_slab_2")
JOINTS = ("drive_joint", "arm_joint", "guide_joint", "belt_joint_pulley_F", "belt_joint_pulley_T",
          "belt_joint_pulley_R", "belt_joint_slab_0", "belt_joint_slab_1", "belt_joint_slab_2")
RIDGE = (((0.0, 0.0), (-math.sqrt(0.5), math.sqrt(0.5)), (math.sqrt(0.5), math.sqrt(0.5))),)
STEP = (((0.0, 0.0), (0.0, 1.0), (-1.0, 0.0)),)


class _Arena:
    """An arena reduced to what the cleat law binds to: its convex edges."""

    def __init__(self, edges):
        self.edges = edges

    def convex_edges(self):
        return self.edges


def _state(psi, v_slab=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0)):
    n = len(LINKS)
    model = ModelInfo(mass=np.ones(n), I_B=np.tile(np.eye(3), (n, 1, 1)), link_length=L + 2 * R, gravity=9.81,
                      effort=1.0, link_names=LINKS, joint_names=JOINTS, dt=0.001)
    p = np.zeros((n, 3))
    p[:, 2] = A + R  # the body resting on its base face, centre above the corner at x = 0
    p[9] = (0.0, 0.0, R / 2)  # the bottom slab's centre
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    v = np.zeros((n, 3))
    v[9] = v_slab
    q = np.zeros(len(JOINTS))
    q[0] = psi
    row = [9, 1, 0.0, 0.0, 0.0, *normal, 20.0, 0.0, 0.0, 0.0]
    return RobotState(t=0.0, p_W=p, quat_W=quat, v_W=v, w_W=np.zeros((n, 3)), q=q, qd=np.zeros(len(JOINTS)),
                      model=model, contacts=np.array([row], float))


def _psi_for(phi):
    """The drive angle that puts the corner (body x = 0 on the bottom face, belt coordinate l/2) at
    offset φ from the nearest cleat: s = l/2 − r ψ ≡ φ (mod p)."""
    return (L / 2 - phi) / R


def test_belt_coordinate_runs_round_the_envelope_in_the_belts_direction():
    s, t = belt_coordinate((0.03, -A - R), L, R)  # bottom face: from F (x = l/2) backwards
    assert s == pytest.approx(L / 2 - 0.03) and np.allclose(t, (-1, 0))
    s, t = belt_coordinate((0.0, 2 * A + R), L, R)  # the top of pulley T: half-way round its arc
    assert s == pytest.approx(2 * L + 2 * math.pi * R / 3 + math.pi * R / 3)
    assert np.allclose(t, (1, 0))  # clockwise: the top moves forward
    # the front face, T → F, moves down and forward
    mid = np.array([L / 4, A / 2]) + R * np.array([math.cos(math.radians(30)), math.sin(math.radians(30))])
    s, t = belt_coordinate(mid, L, R)
    assert s == pytest.approx(2 * L + 4 * math.pi * R / 3 + L / 2)
    assert np.allclose(t, (0.5, -math.sqrt(3) / 2))


def test_engaged_cleat_pushes_the_belt_back_against_its_motion_with_k_times_the_penetration():
    law = Cleats().bind(TrackedSpec(cleat_capacity=1e4), _Arena(RIDGE))
    k = law.params.shear_modulus * law.params.thickness * SPEC.width / SPEC.cleat_height
    assert law.stiffness == pytest.approx(k) and k == pytest.approx(2e5)
    phi = 0.001  # the corner 1 mm past the cleat's middle… on the side it came from: e = t_c/2 − φ
    F = law(_state(_psi_for(phi)), 0.0)
    e = law.params.thickness / 2 - phi
    # on the bottom face the belt moves along −x (û); the cleat behind the corner (φ > 0) is pushed back: −û
    assert F.F_W[9] == pytest.approx([k * e, 0.0, 0.0])
    assert np.allclose(np.delete(F.F_W, 9, axis=0), 0.0)
    # applied at the corner, below the slab's centre: the moment r × F
    assert F.T_W[9] == pytest.approx(np.cross([0.0, 0.0, -R / 2], [k * e, 0.0, 0.0]))
    # the other side of the cleat pushes the other way
    assert law(_state(_psi_for(-phi)), 0.0).F_W[9, 0] == pytest.approx(-k * e)


def test_the_law_acts_only_once_bound_and_binding_leaves_it_unchanged():
    """Cleats are parameters until bound to a robot and an arena (lab.forces.base.bind, called where
    the runner builds the laws); binding returns a new immutable law and mutates nothing; laws that
    need no geometry bind to themselves."""
    import dataclasses

    from lab.core import scenario as scn
    from lab.forces import AnisotropicCoulomb
    from lab.forces.base import ForceLaw, bind
    from lab.robots.eel import EelSpec
    from lab.core.runner import Simulation

    law = Cleats()
    assert not isinstance(law, ForceLaw)
    with pytest.raises(TypeError):
        law(_state(0.0), 0.0)
    before = dict(law.__dict__)
    bound = bind(law, SPEC, _Arena(RIDGE))
    assert isinstance(bound, BoundCleats) and isinstance(bound, ForceLaw) and bound.params is law
    assert law.__dict__ == before and law == Cleats()
    assert bound.geom.edges == RIDGE and bound.geom.pitch == SPEC.cleat_pitch
    with pytest.raises(dataclasses.FrozenInstanceError):
        bound.stiffness = 1.0
    with pytest.raises(ValueError, match="tracked robot"):
        bind(law, EelSpec(), _Arena(RIDGE))
    friction = AnisotropicCoulomb()
    assert bind(friction, SPEC, None) is friction
    sim = Simulation(scn.load("tracked_step_climb", ["sim.duration=0.01"]))
    cleats = sim.forces["cleats"]
    assert isinstance(cleats, BoundCleats) and cleats.geom.edges == sim.scenario.arena.convex_edges()
    assert sim.forces["friction"] is sim.scenario.friction
    assert dict(sim.scenario.forces[0][2].__dict__) == dict(Cleats().__dict__)


def test_damping_capacity_gap_lean_and_the_smooth_belt():
    law = Cleats().bind(SPEC, _Arena(RIDGE))
    phi = 0.001
    # damping along û on the belt surface's velocity at the corner
    F0 = law(_state(_psi_for(phi)), 0.0).F_W[9, 0]
    F1 = law(_state(_psi_for(phi), v_slab=(-0.01, 0.0, 0.0)), 0.0).F_W[9, 0]
    assert F0 == pytest.approx(min(law.stiffness * (law.params.thickness / 2 - phi), SPEC.cleat_capacity))
    assert F1 - F0 == pytest.approx(-law.damping * 0.01) or F0 == SPEC.cleat_capacity
    # capped at the capacity (a deep penetration: k e = 500 N > 300 N)
    assert law(_state(_psi_for(0.0005)), 0.0).F_W[9, 0] == pytest.approx(SPEC.cleat_capacity)
    # in the gap between two cleats: nothing (Coulomb friction is the engine's)
    assert np.allclose(law(_state(_psi_for(0.01)), 0.0).F_W, 0.0)
    # a belt lying flat on a step's top face does not engage (lean 0 from the top face)
    assert np.allclose(Cleats().bind(SPEC, _Arena(STEP))(_state(_psi_for(phi)), 0.0).F_W, 0.0)
    # …nor does it below atan(2 h_c/p) = 21.8° from either face: a normal 20° off the top face's
    tilt = math.radians(20.0)
    st = _state(_psi_for(phi), normal=(-math.sin(tilt), 0.0, math.cos(tilt)))
    assert np.allclose(Cleats().bind(SPEC, _Arena(STEP))(st, 0.0).F_W, 0.0)
    tilt = math.radians(25.0)
    st = _state(_psi_for(phi), normal=(-math.sin(tilt), 0.0, math.cos(tilt)))
    assert not np.allclose(Cleats().bind(SPEC, _Arena(STEP))(st, 0.0).F_W, 0.0)
    assert SPEC.cleat_angle == pytest.approx(math.atan(2 * 0.006 / 0.03))
    # the smooth belt
    assert np.allclose(Cleats().bind(TrackedSpec(cleats=False), _Arena(RIDGE))(_state(_psi_for(phi)), 0.0).F_W, 0.0)
    # a contact away from every edge
    elsewhere = _Arena((((0.5, 0.0), *RIDGE[0][1:]),))
    assert np.allclose(Cleats().bind(SPEC, elsewhere)(_state(_psi_for(phi)), 0.0).F_W, 0.0)


def _ridges_run(alpha, v, overrides=(), T=3.0, window=1.0, ridges=("arena.n_ridges=2", "arena.ridge_spacing=0.18",
                                                                    "arena.ridge_x=-0.0835")):
    """The robot on sharp 90° ridges across a slope, turned round (heading 180°: its arm, held straight
    back, points uphill and keeps the COM from tipping it over the lower ridge); the belt locked (v = 0)
    or driven uphill (v > 0: the belt runs backwards). Returns the COM's speed up the slope."""
    from lab.core import scenario as scn
    from lab.core.runner import run_scenario

    sc = scn.load("tracked_slope", [f"arena.slope_deg={alpha}", f"controller.belt_speed={-v}", *ridges,
                                    "arena.ridge_height=0.01", "init.heading_deg=180", f"sim.duration={T}",
                                    f"trial.window={window}", *overrides])
    return run_scenario(sc).metrics["belt.body_speed_mps"]


@pytest.mark.slow
def test_T4_ridges_hold_iff_the_weight_is_within_friction_plus_the_cleats_capacity():
    """T4: belt locked on two ridges 6 pitches apart (both corners 0.5 mm from a cleat face at the
    start, so the test sees statics, not the impact of a cleat arriving at speed): holds iff
    W sin α ≤ μ W cos α + 2 C. With C = 6 N, α* = 47.5°: held at α* − 2° (measured creep < 0.1 mm/s),
    slides at α* + 2°. The smooth belt slides at 45°, above atan μ; the default cleats (300 N each)
    hold there."""
    from scipy.optimize import brentq

    W = (SPEC.body_mass + SPEC.arm_mass + 0.01) * 9.81
    mu = SPEC.track_friction
    cap = 6.0
    a_star = math.degrees(brentq(lambda a: W * (math.sin(a) - mu * math.cos(a)) - 2 * cap, 0.3, 1.3))
    assert a_star == pytest.approx(47.5, abs=0.1)
    assert abs(_ridges_run(a_star - 2.0, 0.0, [f"robot.cleat_capacity={cap}"])) < 0.5e-3
    assert _ridges_run(a_star + 2.0, 0.0, [f"robot.cleat_capacity={cap}"]) < -0.05
    assert abs(_ridges_run(45.0, 0.0)) < 0.5e-3
    assert _ridges_run(45.0, 0.0, ["robot.cleats=false"], T=1.0, window=0.5) < -0.05


@pytest.mark.slow
def test_T5_driven_over_ridges_steeper_than_atan_mu_cleats_climb_at_the_belt_speed_smooth_slides():
    """T5: a ridge every cleat pitch (3 cm) on a 45° slope (atan μ = 38.7°), belt driven uphill at
    3 cm/s: with cleats the COM climbs at the belt speed (measured 0.0300 m/s); the smooth belt slides
    back. (Ridges 9 cm apart tip the robot over its lower ridge at 45° once the lowest one leaves the
    belt: the COM's vertical then falls outside the support — statics, not the cleats.)"""
    ridges = ("arena.n_ridges=21", "arena.ridge_spacing=0.03", "arena.ridge_x=-0.2035")
    assert _ridges_run(45.0, 0.03, ridges=ridges, T=3.0, window=1.5) == pytest.approx(0.03, rel=0.03)
    assert _ridges_run(45.0, 0.03, ["robot.cleats=false"], ridges=ridges, T=1.0, window=0.5) < -0.05


@pytest.mark.parametrize("edges", [STEP, RIDGE, STEP + (((0.3, 0.1), (0.0, 1.0), (-1.0, 0.0)),)])
@pytest.mark.parametrize("seed", range(6))
def test_compiled_law_matches_the_oracle(edges, seed):
    """The compiled law (lab.forces.cleats.cleat_wrench) against its numpy oracle (cleat by cleat,
    tests/oracles/cleats.py) on random snapshots: pitched bodies, several belt and other links on and off the
    edges, normals from lying on a face to deep in the corner, belt angles across the cleats."""
    from oracles.cleats import wrench

    rng = np.random.default_rng(seed)
    law = Cleats().bind(SPEC, _Arena(edges))
    n = len(LINKS)
    hits = 0
    for _ in range(150):
        st = _state(rng.uniform(-10, 10))
        pitch = rng.uniform(-math.pi, math.pi)
        c, s_ = math.cos(pitch), math.sin(pitch)
        quat = np.tile([0.0, math.sin(pitch / 2), 0.0, math.cos(pitch / 2)], (n, 1))
        p = rng.normal(scale=0.1, size=(n, 3))
        rows = []
        for _k in range(rng.integers(1, 9)):
            (xe, ze), n1, n2 = edges[rng.integers(len(edges))]
            a = rng.uniform(0, math.pi / 2)
            nb = np.array([n1[0], n1[1]]) * math.cos(a) + np.array([n2[0], n2[1]]) * math.sin(a)
            nb /= np.linalg.norm(nb)
            off = rng.normal(scale=0.002, size=3)
            rows.append([rng.choice([2, 3, 4, 5, 6, 7, 8, 9]), 1, xe + off[0], off[1], ze + off[2], nb[0], 0.0, nb[1],
                         rng.choice([0.0, rng.uniform(0, 40)]), *rng.normal(size=3)])
        st = RobotState(t=0.0, p_W=p, quat_W=quat, v_W=rng.normal(scale=0.05, size=(n, 3)),
                        w_W=rng.normal(scale=0.5, size=(n, 3)), q=st.q, qd=st.qd, model=st.model,
                        contacts=np.array(rows, float))
        assert st.R_WB[0] == pytest.approx(np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]]))
        ref = wrench(law, st)
        got = law(st, 0.0)
        np.testing.assert_allclose(got.F_W, ref.F_W, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(got.T_W, ref.T_W, rtol=1e-12, atol=1e-9)
        hits += bool(np.any(ref.F_W))
    assert hits >= 3  # engaged in some (a corner within a cleat's 6 mm of every 30 mm, leaning past 21.8°)
