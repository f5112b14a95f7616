"""Circle fit of head paths (Wang 2011, Fig 8) on synthetic arcs, and the turning_law pieces."""

import math

import numpy as np
import pytest

from lab.papers.wang2011_creeping.analysis.turning import fit_circle, kasa_fit, turning_metrics


def arc(R, direction, cx=1.0, cy=-2.0, a0=0.3, sweep=2.0, n=400, noise=0.0, wiggle=0.0, waves=6.0, seed=0):
    """Points on a circle traversed CCW (direction +1) or CW (−1), optionally with noise and a
    serpentine-like radial wiggle of a whole number of waves."""
    rng = np.random.default_rng(seed)
    s = np.linspace(0.0, 1.0, n)
    a = a0 + direction * sweep * s
    r = R + wiggle * np.sin(2 * math.pi * waves * s)
    xy = np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])
    return xy + noise * rng.standard_normal(xy.shape)


@pytest.mark.parametrize("R,direction", [(0.5, 1), (2.2, -1), (4.4, 1), (4.4, -1)])
def test_noisy_arc_radius_centre_and_direction(R, direction):
    xy = arc(R, direction, sweep=1.4, noise=0.01)
    f = fit_circle(xy)
    assert f.radius == pytest.approx(R, rel=0.01)
    assert (f.cx, f.cy) == pytest.approx((1.0, -2.0), abs=0.02 * R)
    assert f.direction == direction
    assert f.swept_rad == pytest.approx(direction * 1.4, abs=0.05)  # endpoint noise 0.01 m / R
    assert f.curvature == pytest.approx(direction / f.radius)


def test_geometric_refinement_beats_kasa_on_a_short_noisy_arc():
    """Kåsa is biased on short noisy arcs; the geometric fit must be at least as close to the truth."""
    errs_k, errs_g = [], []
    for seed in range(20):
        xy = arc(3.0, 1, sweep=0.6, noise=0.05, seed=seed)
        errs_k.append(abs(kasa_fit(xy)[2] - 3.0))
        errs_g.append(abs(fit_circle(xy, min_arc_rad=0.1).radius - 3.0))
    assert np.mean(errs_g) < np.mean(errs_k)


def test_wiggling_path_whole_waves_are_unbiased():
    xy = arc(2.0, -1, sweep=3.0, wiggle=0.15, waves=7.0)
    f = fit_circle(xy)
    assert f.radius == pytest.approx(2.0, rel=0.01)
    assert f.direction == -1


def test_straight_line_gives_infinite_radius_and_no_direction():
    x = np.linspace(0, 8, 500)
    rng = np.random.default_rng(5)
    xy = np.column_stack([x, 0.3 + 0.02 * rng.standard_normal(len(x))])
    f = fit_circle(xy)
    assert math.isinf(f.radius) and f.direction == 0 and f.curvature == 0.0
    # exactly collinear: the algebraic system is singular
    f = fit_circle(np.column_stack([x, 2 * x + 1]))
    assert math.isinf(f.radius) and f.direction == 0


def test_serpentine_straight_path_is_straight():
    x = np.linspace(0, 8, 800)
    xy = np.column_stack([x, 0.14 * np.sin(2 * math.pi * x / 0.9)])
    assert fit_circle(xy).direction == 0


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="xy"):
        fit_circle(np.zeros((2, 2)))


def test_turning_metrics_uses_the_head_and_the_second_half():
    n, links = 600, 4
    t = np.linspace(0, 30, n)
    xy = np.zeros((n, links, 2))
    a = 0.2 * t
    # head on a clockwise circle of radius 1.5 after 15 s, elsewhere on a straight line; tail elsewhere
    xy[:, -1, 0] = np.where(t >= 15, 1.5 * np.cos(-a), t)
    xy[:, -1, 1] = np.where(t >= 15, 1.5 * np.sin(-a), 0.0)
    m = turning_metrics({"t": t, "xy": xy})
    assert m["turn.radius_m"] == pytest.approx(1.5, rel=1e-6)
    assert m["turn.direction"] == -1


def test_law_figures_count_mismatches_and_cv():
    from lab.papers.wang2011_creeping.analysis.turning import CircleFit
    from lab.papers.wang2011_creeping.analysis.turning import fit_window
    from lab.papers.wang2011_creeping.turning import law_figures

    def fit(R, d):
        return CircleFit(0.0, 0.0, R, d, R, d * 1.0, 0.0, R)

    turns = [{"phi": p, "fit": fit(0.22 / abs(p), int(np.sign(p))), "status": "ok"} for p in (-0.2, -0.1, 0.1, 0.2)]
    mism, cv, p, _ = law_figures(turns)
    assert mism == 0 and cv == pytest.approx(0.0, abs=1e-12) and p == pytest.approx(1.0)
    turns[0]["fit"] = fit(1.1, +1)  # wrong direction
    turns[2]["fit"] = fit(4.0, +1)  # R·φ = 0.4 instead of 0.22
    mism, cv, p, _ = law_figures(turns)
    assert mism == 1 and cv > 0.3
    t = np.arange(0, 40.0001, 0.01)
    keep = fit_window(t, math.pi)
    assert t[keep][0] == pytest.approx(40 - 6 * math.pi, abs=0.01)


@pytest.mark.slow
def test_turning_law_short_engine_run():
    """20 s engine runs (≈ 4 s of wall time): φ_t > 0 turns left, φ_t < 0 right, R·|φ_t| about equal."""
    from lab.papers.wang2011_creeping.turning import SETTINGS, law_figures, run_turns

    turns = run_turns(phis=(-0.2, 0.1, 0.2), settings={**SETTINGS, "sim.duration": 20.0})
    mism, cv, p, notes = law_figures(turns)
    assert mism == 0, notes
    assert cv < 0.1, notes
    assert [tr["fit"].direction for tr in turns] == [-1, 1, 1]
