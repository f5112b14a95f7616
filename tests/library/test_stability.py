"""Support-triangle margin (Hu 2013 eq. 13) and the Papadopoulos–Rey force-angle measure on hand-made
geometry, and the analytic stability region's basic shape."""

import math

import numpy as np
import pytest

from lab.analysis.stability import force_angle, is_stable, margin_from_contacts, polygon_margin, support_margin

# a right triangle seen from above: A = (1, 0), B = (−1, 0) on the "edge", C = (0, −2) the wheel
A, B, C = np.array([1.0, 0, 0]), np.array([-1.0, 0, 0]), np.array([0.0, -2, 0])
SIDE = math.hypot(1, 2)  # |AC|


def test_margin_of_points_inside_and_outside():
    # on the axis of symmetry at y = −1: distance to AC is |2·0 − (−1)·... | → (1·(1) ) / √5 by hand:
    # line AC: 2x − y − 2 = 0 → distance of (0, −1): |0 + 1 − 2| / √5 = 1/√5
    assert support_margin(A, B, C, [0.0, -1.0, 0.3]) == pytest.approx(1 / SIDE)
    # COM height does not matter for the projected margin
    assert support_margin(A, B, C, [0.0, -1.0, 5.0]) == pytest.approx(1 / SIDE)
    # outside BC: (−1, −1): line BC: 2x + y + 2 = 0 → (−2 − 1 + 2)/√5 = −1/√5
    assert support_margin(A, B, C, [-1.0, -1.0, 0.0]) == pytest.approx(-1 / SIDE)
    # beyond AB (towards the step) is not a tip-over in eq. 13: only AC, BC count
    assert support_margin(A, B, C, [0.0, 0.5, 0.0]) > 0
    # vertex order does not matter
    assert support_margin(B, A, C, [0.2, -0.5, 0.0]) == pytest.approx(support_margin(A, B, C, [0.2, -0.5, 0.0]))


def test_eq13_inequalities_agree_with_the_margin():
    rng = np.random.default_rng(1)
    for _ in range(200):
        p = np.append(rng.uniform(-1.5, 1.5, 1), [rng.uniform(-2.5, 0.0), 0.0])
        d_mar = rng.uniform(0, 0.3)
        m = support_margin(A, B, C, p)
        if abs(m - d_mar) > 1e-9:
            assert is_stable(A, B, C, p, d_mar) == (m >= d_mar)


def test_margin_projects_along_gravity_on_a_tilted_plane():
    """Tilting the whole triangle and COM rigidly changes nothing if 'up' tilts with it."""
    a = 0.4
    R = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    p = np.array([0.1, -0.8, 0.5])
    up = R @ [0, 0, 1.0]
    assert support_margin(R @ A, R @ B, R @ C, R @ p, up) == pytest.approx(support_margin(A, B, C, p))


def test_wheel_beyond_the_edge_line_is_unstable():
    """If the wheel projects ahead of the edge line while the COM hangs behind it, eq. 13's two sides
    cannot see it; the margin is minus the distance to A'B'."""
    Cf = np.array([0.0, 0.5, 0.0])
    m = support_margin(A, B, Cf, [0.0, -0.3, 0.0], com_behind_edge=True)
    assert m == pytest.approx(-0.3)
    assert support_margin(A, B, Cf, [0.0, -0.3, 0.0]) > 0  # what eq. 13 alone says


def test_polygon_margin_of_a_square():
    sq = np.array([[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0.0]])
    d, _ = polygon_margin(sq, [0.5, 1.0, 1.0])
    assert d == pytest.approx(0.5)
    d, _ = polygon_margin(sq[::-1], [2.5, 1.0, 1.0])
    assert d == pytest.approx(-0.5)


def test_force_angle_box_on_flat_ground_and_on_a_slope():
    """Square support of half-width w, COM at height H over its centre, gravity only: every angle is
    atan(w/H); tilting gravity by γ towards one edge makes that edge's angle atan(w/H) − γ."""
    w, Hh, m, g = 0.5, 1.0, 2.0, 9.81
    sq = np.array([[-w, -w, 0], [w, -w, 0], [w, w, 0], [-w, w, 0.0]])
    com = np.array([0, 0, Hh])
    fa = force_angle(sq, com, [0, 0, -m * g])
    assert np.allclose(fa.angles, math.atan(w / Hh))
    assert fa.beta == pytest.approx(math.atan(w / Hh) * m * g)
    gam = 0.2
    f = m * g * np.array([0.0, math.sin(gam), -math.cos(gam)])  # gravity leaning towards +y
    fa = force_angle(sq, com, f)
    assert fa.angles.min() == pytest.approx(math.atan(w / Hh) - gam)
    # beyond tipping: negative
    fa = force_angle(sq, com, m * g * np.array([0.0, math.sin(1.0), -math.cos(1.0)]))
    assert fa.beta < 0


def test_margin_from_contact_points():
    track = [[0.1, 0.0, 0.15], [-0.1, 0.0, 0.15], [0.02, 0.0, 0.15]]
    wheel = [[0.0, -0.37, 0.0]]
    m = margin_from_contacts(track, wheel, [0.0, -0.1, 0.12])
    assert m == pytest.approx(support_margin([0.1, 0, 0.15], [-0.1, 0, 0.15], wheel[0], [0, -0.1, 0.12]))
    assert math.isnan(margin_from_contacts([], wheel, [0, 0, 0]))


@pytest.mark.slow
def test_region_shrinks_with_height_and_is_largest_facing_the_slope():
    from lab.papers.hu2013_tracked.model import ClimbParams, climb_path
    from lab.papers.hu2013_tracked.stability import critical_alpha

    p = ClimbParams()
    lo, hi = (climb_path(p, h) for h in (0.05, 0.15))
    a_lo = critical_alpha(lo, 0.0, step=math.radians(2))
    a_hi = critical_alpha(hi, 0.0, step=math.radians(2))
    assert 0 < a_hi < a_lo < math.radians(80)
    assert critical_alpha(lo, math.radians(60), step=math.radians(2)) < a_lo
