"""Hu 2013's single motor at a riser: the stall law's closed forms (lab/papers/hu2013_tracked/model/stall.py)
against a second formulation — the planar statics of the arm and of the body-with-belt written out
contact by contact from the engine robot's own geometry and trimesh mass properties (lab.robots.tracked),
solved as a linear system (every contact sliding) or as a linear programme over the friction cones
(sticking) — and against the screw model's virtual-work flip (lab.papers.hu2013_tracked.model.differential_stall)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

from lab.papers.hu2013_tracked.model import ClimbParams, differential_stall
from lab.papers.hu2013_tracked.model.stall import (flip_mu_g, flip_mu_w_max, hold_coefficient, slide_coefficient,
                                                   stall_law, stall_pose)
from lab.robots.tracked import TrackedSpec

G = 9.81
# unknowns of the statics
NAMES = ("T", "lam", "f_lam", "Rx", "Rz", "Ng", "fg", "Nr", "fr", "Nw", "fw")
IX = {n: i for i, n in enumerate(NAMES)}


def _moment(p, F) -> float:
    """M_y of a force F = (F_x, F_z) at p = (x, z) about the origin (positive: nose down, z → x)."""
    return p[1] * F[0] - p[0] * F[1]


def statics(spec: TrackedSpec):
    """Equilibrium rows A u = b of the stalled robot on its base at a riser, built from the URDF side:
    the pivot (body centre) at the origin, x forward, z up; every force on its own body.
    Arm: pin reaction R from the body, its weight at the trimesh COM of beam + guide wheel, the guide
    wheel's contact (λ up, f_λ along) under the wheel centre, the motor's −T about y (tip down).
    Guide wheel: free bearing (the contact's moment about its centre vanishes).
    Body + belt: −R, its weight at the total COM, ground contacts under F and R (N, f forward), the
    riser at F's front (−N_w along x, f_w up), +T. Belt: r Σ f = i2 T (virtual work of its DOF)."""
    P = spec.pulley_centres()  # F, T, R (x, z) from the centre
    r, rd, la = spec.pulley_radius, spec.guide_radius, spec.arm_length
    z_ground = P[0, 1] - r
    zc = rd + z_ground  # the wheel's centre height
    xw = -math.sqrt(la**2 - zc**2)
    u = np.array([xw, zc]) / la  # along the arm, pivot → wheel centre
    beam, guide = spec.arm_mass_props(), spec.guide_mass_props()
    m_a = beam.mass + guide.mass
    c_beam = -beam.com[0] * u  # the beam's COM at its frame's −x distance along the arm
    com_a = (beam.mass * c_beam + guide.mass * la * u) / m_a
    m_b, _ = spec.body_mass_props_total()
    com_b = np.zeros(2)  # every body part is symmetric about the centre (checked below)
    pg, pr, pw = P[0] + [0.0, -r], P[2] + [0.0, -r], P[0] + [r, 0.0]
    pl = np.array([xw, z_ground])
    rows, rhs = [], []

    def eq(coef: dict, b: float = 0.0):
        a = np.zeros(len(NAMES))
        for k, v in coef.items():
            a[IX[k]] += v
        rows.append(a)
        rhs.append(b)

    # arm: forces, moments about the pivot
    eq({"Rx": 1, "f_lam": 1})
    eq({"Rz": 1, "lam": 1}, m_a * G)
    eq({"T": -1, "lam": _moment(pl, (0, 1)), "f_lam": _moment(pl, (1, 0))}, -_moment(com_a, (0, -m_a * G)))
    # guide wheel on its bearing: the contact's moment about the wheel's centre
    eq({"f_lam": _moment(pl - [xw, zc], (1, 0))})
    # body with belt
    eq({"Rx": -1, "fg": 1, "fr": 1, "Nw": -1})
    eq({"Rz": -1, "Ng": 1, "Nr": 1, "fw": 1}, m_b * G)
    eq({"T": 1, "Ng": _moment(pg, (0, 1)), "fg": _moment(pg, (1, 0)), "Nr": _moment(pr, (0, 1)),
        "fr": _moment(pr, (1, 0)), "Nw": _moment(pw, (-1, 0)), "fw": _moment(pw, (0, 1))},
       -_moment(com_b, (0, -m_b * G)))
    # the belt's DOF
    eq({"fg": r, "fr": r, "fw": r, "T": -spec.i2})
    return np.array(rows), np.array(rhs)


def sliding_solution(spec, mu_g, mu_w) -> dict:
    """Every belt contact sliding (f = μ N): the square system."""
    A, b = statics(spec)
    extra = []
    for f, n, mu in (("fg", "Ng", mu_g), ("fr", "Nr", mu_g), ("fw", "Nw", mu_w)):
        a = np.zeros(len(NAMES))
        a[IX[f]], a[IX[n]] = 1.0, -mu
        extra.append(a)
    A = np.vstack([A, extra])
    b = np.concatenate([b, np.zeros(3)])
    u = np.linalg.solve(A, b)
    return dict(zip(NAMES, u))


def cone_lp(spec, mu_g, mu_w, rear_lifted=False, sense=-1.0):
    """Extreme T (sense −1: largest) over every equilibrium with the contacts in their friction cones
    (friction opposing the belt's slip: 0 ≤ f ≤ μ N) and, if ``rear_lifted``, no rear contact."""
    A, b = statics(spec)
    bounds = [(None, None)] * len(NAMES)
    for n in ("Ng", "Nr", "Nw", "lam", "fg", "fr", "fw", "T"):
        bounds[IX[n]] = (0, None)
    if rear_lifted:
        bounds[IX["Nr"]] = bounds[IX["fr"]] = (0, 0)
    A_ub = []
    for f, n, mu in (("fg", "Ng", mu_g), ("fr", "Nr", mu_g), ("fw", "Nw", mu_w)):
        a = np.zeros(len(NAMES))
        a[IX[f]], a[IX[n]] = 1.0, -mu
        A_ub.append(a)
    c = np.zeros(len(NAMES))
    c[IX["T"]] = sense
    res = linprog(c, A_ub=np.array(A_ub), b_ub=np.zeros(3), A_eq=A, b_eq=b, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return dict(zip(NAMES, res.x))


SPEC = TrackedSpec()
PARAMS = ClimbParams.from_spec(SPEC)
MU_G = (0.0, 0.3, 0.8, 1.5, 3.0)
MU_W = (0.0, 0.3, 0.8, 2.0)


def test_the_statics_see_the_robot_the_model_sees():
    """The URDF side's masses and the model's agree (else the comparison below would test that)."""
    m_b, _ = SPEC.body_mass_props_total()
    assert m_b == pytest.approx(PARAMS.m_body, rel=1e-9)
    assert SPEC.arm_mass_props().mass + SPEC.guide_mass_props().mass == pytest.approx(PARAMS.m_arm, rel=1e-9)
    assert np.asarray(SPEC.base_mass_props().com) == pytest.approx(np.zeros(3), abs=1e-6)  # the frame's COM


@pytest.mark.parametrize("mu_w", MU_W)
@pytest.mark.parametrize("mu_g", MU_G)
def test_sliding_belt_force_is_the_closed_form(mu_g, mu_w):
    """Both contacts sliding: the linear system's T and belt pull equal the closed form's T_s, F_s to 1e-6
    (trimesh's mass properties against the closed-form arm COM); its rear contact carries load exactly
    when the closed form says the belt slips before the flip."""
    u = sliding_solution(SPEC, mu_g, mu_w)
    law = stall_law(PARAMS, mu_g, mu_w)
    assert u["T"] == pytest.approx(law.stall_arm_torque, rel=1e-6, abs=1e-9)
    F = (u["fg"] + u["fr"] + u["fw"])
    assert F == pytest.approx(law.stall_force, rel=1e-6, abs=1e-9)
    assert u["lam"] == pytest.approx(law.stall_wheel_load, rel=1e-6)
    W = (PARAMS.m_body + PARAMS.m_arm) * G
    assert F == pytest.approx(slide_coefficient(mu_g, mu_w) * (W - u["lam"]), rel=1e-6, abs=1e-9)
    if abs(u["T"] - law.flip_arm_torque) > 1e-3:
        assert (u["Nr"] > 0) == (law.stall_arm_torque < law.flip_arm_torque)


@pytest.mark.parametrize("mu_w", MU_W)
@pytest.mark.parametrize("mu_g", MU_G)
def test_sticking_capacity_is_the_closed_form(mu_g, mu_w):
    """The largest arm torque any equilibrium on the base holds with the contacts inside their cones is
    the smaller of the sticking capacity (:func:`hold_coefficient`) and the flip's T_f."""
    lp = cone_lp(SPEC, mu_g, mu_w)
    s = stall_pose(PARAMS)
    k = hold_coefficient(mu_g, mu_w)
    W = s.weight
    T_hold = k * (W - s.m_arm * G * s.b_arm / s.b_wheel) / (s.i2 / s.pulley_radius + k / s.b_wheel)
    law = stall_law(PARAMS, mu_g, mu_w)
    assert lp["T"] == pytest.approx(min(T_hold, law.flip_arm_torque), rel=1e-6, abs=1e-9)
    assert (lp["fg"] + lp["fr"] + lp["fw"]) <= max(1.0, mu_g) * (W - lp["lam"]) * (1 + 1e-9) + 1e-9


def test_flip_requirement_three_ways():
    """T_f from the closed form = the cone LP with the rear lifted (its least and largest T: the split
    is free, the flip torque is not) = the screw model's virtual work on its flip path; ≈ 89 N of belt
    pull, 1.46 W, whatever the friction."""
    law = stall_law(PARAMS, 0.8, 0.8)
    lo = cone_lp(SPEC, 50.0, 50.0, rear_lifted=True, sense=1.0)
    hi = cone_lp(SPEC, 50.0, 50.0, rear_lifted=True, sense=-1.0)
    assert lo["T"] == pytest.approx(law.flip_arm_torque, rel=1e-6)
    assert hi["T"] == pytest.approx(law.flip_arm_torque, rel=1e-6)
    assert differential_stall(PARAMS)["arm_torque_Nm"] == pytest.approx(law.flip_arm_torque, rel=1e-6)
    W = (PARAMS.m_body + PARAMS.m_arm) * G
    assert 85 < law.flip_force < 93 and law.flip_force / W == pytest.approx(1.46, abs=0.01)
    assert stall_law(PARAMS, 3.0, 0.0).flip_force == law.flip_force


def test_the_flip_boundaries_are_where_the_outcome_changes():
    """κ: frictionless riser flips from μ_g = κ (≈ 2.6); μ_g(μ_w) = κ/(1 + μ_w(1 − κ)), none from
    μ_w = 1/(κ − 1) (≈ 0.6); at μ = 0.8 both the gear ratio must drop to i2* ≈ 0.17 (Table 1: 3/8)."""
    from dataclasses import replace

    kappa = stall_law(PARAMS).kappa
    assert 2.4 < kappa < 2.9
    eps = 1e-6
    for mu_w in (0.0, 0.2, 0.5):
        mg = flip_mu_g(PARAMS, mu_w)
        assert not stall_law(PARAMS, mg * (1 - eps), mu_w).flips
        assert stall_law(PARAMS, mg * (1 + eps), mu_w).flips
    assert flip_mu_w_max(PARAMS) == pytest.approx(1 / (kappa - 1))
    assert 0.55 < flip_mu_w_max(PARAMS) < 0.65
    assert not stall_law(PARAMS, 1e6, flip_mu_w_max(PARAMS) * (1 + 1e-3)).flips
    i2s = stall_law(PARAMS, 0.8, 0.8).i2_max
    assert 0.15 < i2s < 0.18
    assert stall_law(replace(PARAMS, i2=i2s * (1 - eps)), 0.8, 0.8).flips
    assert not stall_law(replace(PARAMS, i2=i2s * (1 + eps)), 0.8, 0.8).flips
    assert not stall_law(PARAMS, 0.8, 0.8).flips


def test_slide_coefficient_limits():
    """k(μ, μ) is the old μ(1 + μ)/(1 + μ²); a frictionless riser gives μ_g; k ≤ max(1, μ_g)."""
    for mu in (0.3, 0.8, 2.0):
        assert slide_coefficient(mu, mu) == pytest.approx(mu * (1 + mu) / (1 + mu * mu))
        assert slide_coefficient(mu, 0.0) == mu
        for mw in (0.0, 0.5, 5.0):
            assert slide_coefficient(mu, mw) <= max(1.0, mu) + 1e-12
    with pytest.raises(ValueError, match="mu_w"):
        slide_coefficient(0.5, -0.1)


def _differential_run(mu_g: float, mu_w: float, h: float = 0.10) -> dict:
    from lab.core import scenario as scn
    from lab.core.runner import run_scenario

    data = scn.read_toml(scn.resolve_path("tracked_step_climb"))
    data = scn.apply_overrides(data, {"controller.mode": "differential", "trial.stop_when_decided": True,
                                      "sim.duration": 20.0, "robot.track_friction": 1.0, "arena.friction": mu_g,
                                      "arena.riser_friction": mu_w, "arena.step_height": h})
    return run_scenario(scn.from_dict(data, where="test")).metrics


@pytest.mark.slow
def test_a_differential_run_slides_at_the_stall_law():
    """The engine's single motor at a riser (μ_g = μ_w = 0.8, the belt's default μ): the belt slides at the
    closed form's pull (measured +0.9 %; the sliding grid in the Hu 2013 README: within 2.5 % wherever the
    body stays on its base) and the body never flips (F_s ≈ 0.44 F_f)."""
    m = _differential_run(0.8, 0.8)
    law = stall_law(PARAMS, 0.8, 0.8)
    assert m["diff.stall_force_model_N"] == pytest.approx(law.stall_force)
    assert m["diff.flip_required_N"] == pytest.approx(law.flip_force)
    assert m["diff.stall_force_N"] == pytest.approx(law.stall_force, rel=0.05)
    assert m["diff.flipped"] is False and m["diff.jammed"] is False and m["climb.success"] is False


@pytest.mark.slow
def test_a_forced_flip_jams_at_the_flush_pose():
    """A frictionless riser and μ_g = 3 > κ: the belt holds (no sliding window), the body flips onto its
    front face, and then nothing presses that face against the edge: no COM progress."""
    m = _differential_run(3.0, 0.0)
    assert m["diff.flipped"] is True and m["diff.jammed"] is True
    assert math.isnan(m["diff.stall_force_N"])
    assert m["climb.success"] is False


def test_the_sticking_i2_bound_lies_above_the_sliding_one():
    """i2_max_hold (any sticking split) ≥ i2_max (sliding), equal where the two capacities are (μ_w = 0
    or μ_g ≤ 1); each is where the flip force meets that capacity."""
    from dataclasses import replace

    for mg, mw in ((0.8, 0.0), (0.8, 0.8), (3.0, 0.3), (3.0, 0.0)):
        law = stall_law(PARAMS, mg, mw)
        assert law.i2_max_hold >= law.i2_max - 1e-12
        if mw == 0 or mg <= 1:
            assert law.i2_max_hold == pytest.approx(law.i2_max)
        q = replace(PARAMS, i2=law.i2_max_hold)
        s = stall_pose(q)
        W = s.weight
        flip = stall_law(q, mg, mw)
        assert flip.flip_force == pytest.approx(hold_coefficient(mg, mw) * (W - flip.flip_wheel_load), rel=1e-9)


def test_design_map_outcomes_and_their_agreement_with_the_boundaries():
    """A run's outcome from its metrics, and the count of cells whose flip (or none) the stall law's
    bounds decide: below the sliding boundary it must flip, above the sticking one it must not."""
    from lab.papers.hu2013_tracked.design_map import outcome, summary

    assert outcome({"climb.success": True, "diff.flipped": True}) == "climbs"
    assert outcome({"climb.success": False, "diff.flipped": True, "diff.jammed": True}) == "flip, then jam"
    assert outcome({"climb.success": False, "diff.flipped": True, "diff.jammed": False}) == "flip, no climb"
    assert outcome({"climb.success": False, "diff.flipped": False}) == "no flip"
    i2_s = stall_law(PARAMS, 1.6, 0.8).i2_max
    i2_h = stall_law(PARAMS, 1.6, 0.8).i2_max_hold
    cells = [(0.5 * i2_s, 1.6, 0.8, "flip, then jam"), (2 * i2_h, 1.6, 0.8, "no flip"),  # agree
             (0.5 * i2_s, 1.6, 0.8, "no flip"), (2 * i2_h, 1.6, 0.8, "climbs"),  # disagree
             (0.5 * (i2_s + i2_h), 1.6, 0.8, "no flip")]  # between
    s = summary(cells, PARAMS)
    assert (s["agree"], s["disagree"], s["between"], s["cells"]) == (2, 2, 1, 5)


def test_design_map_runs_are_the_sweeps():
    """The report's design-map runs are the shipped sweep's points: robot and controller share i2."""
    from lab.papers.hu2013_tracked.design_map import sweep_runs

    runs = sweep_runs()
    assert len(runs) == len({name for name, _ in runs}) >= 12
    for _, ov in runs:
        assert ov["robot.i2"] == ov["controller.i2"] and ov["controller.mode"] == "differential"
        assert "seed" not in ov
