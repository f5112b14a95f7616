"""Every shipped scenario's plots, rendered from a short run, show what the run is (issue: every run
speaks for its robot): the ledger's every channel and its residual on its own axis, the actuated
joints by their own names, the robot's own views (a chain's top view, the tracked robot's side view on
the step, the eel's heading) and the trial's (head tracking's reference)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.analysis.plots import run_plots
from lab.core.recorder import balance_residual, work_channels
from lab.results import timeseries_columns
from lab.core.runner import run_scenario

SCENARIOS = sorted(p.stem for p in scn.list_scenarios())
DURATION = 0.3  # s: long enough for every view to have a path, short enough for ten scenarios


@pytest.fixture(scope="module")
def runs():
    return {name: run_scenario(scn.load(name, [f"sim.duration={DURATION}"])) for name in SCENARIOS}


def labels(ax) -> list[str]:
    return [ln.get_label() for ln in ax.get_lines()]


def test_fifteen_scenarios_are_shipped():
    assert len(SCENARIOS) == 15  # with the triangle and ring of Hu 2013 Fig 4


@pytest.mark.slow
@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_plots_what_it_is(name, runs, tmp_path):
    import matplotlib.pyplot as plt

    res = runs[name]
    from lab.analysis.plots import run_views

    views = {v.name: v for v in run_views(res)}
    written = sorted(p.name for p in run_plots(res, tmp_path))
    assert written == sorted(f"{v}.png" for v in views)
    for png in written:
        assert (tmp_path / png).stat().st_size > 5000

    # the energy balance: one line per ledger channel, Σ W and ΔE; the residual on its own axis
    fig = views["energy_balance"].draw(res)
    ax, ax_r = fig.axes
    channels = list(work_channels(res.series))
    assert len(ax.get_lines()) == len(channels) + 2
    for c in channels:
        assert any(c in lab for lab in labels(ax)), (c, labels(ax))
    assert "balance" in ax.get_title() and all(f"W_{c}" in ax.get_title() for c in channels)
    assert ax_r.get_ylabel() == "residual [J]"
    np.testing.assert_allclose(ax_r.get_lines()[0].get_ydata(), balance_residual(res.series))
    plt.close(fig)

    # joint plots: the actuated joints only, each by its own name
    for view in ("joint_angles", "torques"):
        fig = views[view].draw(res)
        assert labels(fig.axes[0]) == list(res.actuated_joints)
        plt.close(fig)

    robot = res.scenario.robot
    if robot.head_link is not None:  # a chain: the top view of every body link's path
        fig = views["trajectories"].draw(res)
        ax = fig.axes[0]
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("x [m]", "y [m]")
        assert len(ax.get_lines()) == len(res.body_links) + 2  # each link's path, the start and end shapes
        assert not any(n.startswith("wheel") for n in res.body_links)
        plt.close(fig)
    elif type(robot).__name__ == "TrackedChainSpec":  # several tracked modules: each body's path on the arena
        assert "trajectories" not in views
        fig = views["chain_side_view"].draw(res)
        ax = fig.axes[0]
        assert ax.get_ylabel() == "z [m]" and ax.get_xlabel().startswith("x [m]")
        assert {f"module {k} body COM" for k in range(robot.n_modules)} <= set(labels(ax))
        plt.close(fig)
    else:  # the tracked robot: the side view on the arena and its pitch and arm angle
        assert "trajectories" not in views
        fig = views["side_view"].draw(res)
        ax = fig.axes[0]
        assert ax.get_ylabel() == "z [m]" and ax.get_xlabel().startswith("x [m]")
        assert {"body COM", "arm tip (guide wheel centre)"} <= set(labels(ax))
        if res.scenario.arena.__class__.__name__ in ("Step", "Stairs"):  # the riser drawn at step_x
            xs = np.concatenate([ln.get_xdata() for ln in ax.get_lines()])
            assert np.any(np.isclose(xs, res.scenario.arena.step_x))
        plt.close(fig)
        fig = views["pitch_arm"].draw(res)
        assert [a.get_ylabel() for a in fig.axes] == ["pitch [deg]", "arm angle [deg]"]
        plt.close(fig)
    if res.scenario.trial is not None and type(res.scenario.trial).__name__ == "HeadTracking":
        fig = views["head_tracking"].draw(res)
        assert "reference r_ref(t)" in labels(fig.axes[0])
        plt.close(fig)
    if type(robot).__name__ == "EelSpec":
        fig = views["heading"].draw(res)
        assert fig.axes[0].get_ylabel().startswith("heading [deg]")
        assert "centre of mass" in labels(fig.axes[1])
        plt.close(fig)


def test_joint_plots_name_the_robots_joints(runs):
    assert runs["tracked_step_climb"].actuated_joints == ("drive_joint", "arm_joint")
    assert runs["snake_head_tracking"].actuated_joints == tuple(f"joint_{i}" for i in range(8))
    assert runs["snake_serpenoid"].actuated_joints == runs["snake_serpenoid"].joint_names


@pytest.mark.parametrize("name", ["tracked_step_climb", "eel_forward_turn", "snake_drag"])
def test_timeseries_rebuilds_the_balance_metrics_claim(name, runs):
    """The W_<channel> columns add up to what the ledger claims: their residual's last value is
    metrics.json's energy.balance_residual_J, and gravity and contacts are columns where they are booked."""
    res = runs[name]
    cols = timeseries_columns(res.series)
    W = sum(v for k, v in cols.items() if k.startswith("W_") and k not in ("W_in", "W_d"))
    resid = (cols["E"] - cols["E"][0]) - W
    np.testing.assert_allclose(resid, cols["balance_residual_J"], rtol=0, atol=1e-12)
    assert resid[-1] == pytest.approx(res.metrics["energy.balance_residual_J"], rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(cols["W_joints"], cols["W_in"], rtol=0, atol=0)
    if "energy.gravity_work_J" in res.metrics:
        assert cols["W_gravity"][-1] == pytest.approx(res.metrics["energy.gravity_work_J"], rel=1e-12)
        assert cols["W_contacts"][-1] == pytest.approx(res.metrics["energy.contact_work_J"], rel=1e-12)
    else:
        assert "W_gravity" not in cols
