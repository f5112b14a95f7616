"""PNG plots of one run (matplotlib, Agg backend: no display needed), chosen by what the run is.

Every run gets the generic plots: ``energy_balance.png`` (every channel of the energy ledger, the
residual on its own axis), ``energy.png`` (kinetic energy) and ``joint_angles.png`` / ``torques.png``
(the robot's actuated joints only, by their own names). Then the robot's views
(:meth:`lab.robots.base.Robot.views`: a chain's ``trajectories.png``, the tracked robot's
``side_view.png`` and ``pitch_arm.png``, the eel's ``heading.png``) and the trial's
(:meth:`lab.trials.base.Trial.views`: head tracking's ``head_tracking.png``), as
:meth:`lab.core.runner.RunResult.views` lists them. The list of file names a
run's built-in views write is :data:`lab.core.views.PLOT_FILES` (lab.core.outputs' rule).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lab.core.views import View  # noqa: E402

CHANNEL_LABELS = {"joints": "joints (τ·q̇)", "gravity": "gravity", "contacts": "engine contacts (normal + friction)"}


def new_figure(nrows: int = 1, ncols: int = 1, figsize=(8, 4), height_ratios=None):
    """A figure for a run plot (``plt.subplots`` with the lab's sizes)."""
    kw = {"gridspec_kw": {"height_ratios": list(height_ratios)}} if height_ratios else {}
    return plt.subplots(nrows, ncols, figsize=figsize, **kw)


# ------------------------------------------------------------------------------------- helpers
def _names(run, series_key: str, kind: str) -> tuple[str, ...]:
    names = run.link_names if kind == "link" else run.joint_names
    n = run.series[series_key].shape[1]
    return tuple(names) if len(names) == n else tuple(f"{kind} {i}" for i in range(n))


def body_indices(run) -> list[int]:
    """Indices (in the per-link series) of the robot's body links, tail first."""
    names = _names(run, "yaw", "link")
    keep = set(run.body_links) if run.body_links else set(names)
    return [i for i, n in enumerate(names) if n in keep]


def actuated_indices(run) -> list[int]:
    """Indices (in series["q"]) of the robot's actuated joints, in the engine's order."""
    names = _names(run, "q", "joint")
    keep = set(run.actuated_joints) if run.joint_names else set(names)
    return [j for j, n in enumerate(names) if n in keep]


def ledger_title(channels) -> str:
    """Which balance the ledger plot shows, in words."""
    rhs = " + ".join(f"W_{c}" for c in channels)
    if set(channels) <= {"joints", "friction"}:
        return f"Kinetic-energy balance (Wang 2011, eq. 6: Ė = q̇ᵀτ − P_d)\nΔE = {rhs}"
    return f"Kinetic-energy balance (work–energy theorem, every channel the ledger books)\nΔE = {rhs}"


# ------------------------------------------------------------------------------------- generic
def energy_balance(run):
    """Every channel's cumulative work, ΔE and their sum; the residual ΔE − Σ W on its own axis."""
    from lab.core.recorder import balance_residual, work_channels

    s = run.series
    t = s["t"]
    work = work_channels(s)
    fig, (ax, ax_r) = new_figure(2, 1, figsize=(8, 6), height_ratios=(3, 1.3))
    dE = s["E"] - s["E"][0]
    for name, w in work.items():
        label = CHANNEL_LABELS.get(name, f"{name} (force law)")
        if not np.any(w):
            label += ": 0 throughout"
        ax.plot(t, w, lw=1.0, label=f"W {label}")
    ax.plot(t, sum(work.values()), "k--", lw=1.0, label="Σ W")
    ax.plot(t, dE, "k-", lw=1.6, alpha=0.5, label="ΔE kinetic")
    ax.set_ylabel("energy [J]")
    ax.set_title(ledger_title(list(work)), fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    resid = balance_residual(s)
    rel = run.metrics.get("energy.balance_residual_rel")
    ax_r.plot(t, resid, "r-", lw=1.0, label="residual ΔE − Σ W" + (f" (end: {rel:.2%} of the turnover)"
                                                                    if isinstance(rel, float) else ""))
    ax_r.axhline(0.0, color="gray", lw=0.5)
    ax_r.set_xlabel("t [s]")
    ax_r.set_ylabel("residual [J]")
    ax_r.legend(fontsize=7)
    return fig


def kinetic_energy(run):
    s, sc = run.series, run.scenario
    t = s["t"]
    fig, ax = new_figure()
    ax.plot(t, s["E"], lw=1.0, label="E (kinetic)")
    ax.plot(t, s["E_T"], lw=0.7, label="E_T (translational)")
    ax.plot(t, s["E_R"], lw=0.7, label="E_R (rotational)")
    E_ref = getattr(sc.controller, "E_ref", None)  # a controller parameter, when the controller has one
    if E_ref is not None:
        ax.axhline(E_ref, color="k", ls="--", lw=1, label=f"E_ref = {E_ref:g} J")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("energy [J]")
    ax.set_title(f"{sc.name}: kinetic energy")
    ax.legend(fontsize=8)
    return fig


def _joint_plot(run, key: str, ylabel: str, what: str):
    s = run.series
    idx = actuated_indices(run)
    names = _names(run, "q", "joint")
    fig, ax = new_figure()
    for j in idx:
        ax.plot(s["t"], s[key][:, j], lw=0.7, label=names[j])
    ax.set_xlabel("t [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{run.scenario.name}: {what} of the actuated joints")
    if idx:
        ax.legend(fontsize=6, ncol=3)
    return fig


def joint_angles(run):
    return _joint_plot(run, "q", "joint angle [rad]", "angles")


def joint_torques(run):
    return _joint_plot(run, "tau", "joint torque [N·m]", "torques")


GENERIC_VIEWS = (
    View("energy_balance", energy_balance, "every ledger channel's cumulative work, ΔE, residual on its own axis"),
    View("energy", kinetic_energy, "kinetic energy E, E_T, E_R (and E_ref where the controller has one)"),
    View("joint_angles", joint_angles, "angles of the actuated joints, by name"),
    View("torques", joint_torques, "torques of the actuated joints, by name"),
)


# ------------------------------------------------------------------------------------- robot views
def trajectories(ax, series, every: int = 1, title: str = "Module trajectories", links=None) -> None:
    """Top view (x–y) of each body link's path, tail to head, and the start and end shapes."""
    xy = series["xy"][::every]
    if links is not None:
        xy = xy[:, links, :]
    n = xy.shape[1]
    cmap = plt.get_cmap("viridis")
    for i in range(n):
        ax.plot(xy[:, i, 0], xy[:, i, 1], lw=0.8, color=cmap(i / max(n - 1, 1)),
                label="head" if i == n - 1 and n > 1 else ("tail" if i == 0 else None))
    ax.plot(xy[0, :, 0], xy[0, :, 1], "k-o", ms=2, lw=1.5, label="start")
    ax.plot(xy[-1, :, 0], xy[-1, :, 1], "r-o", ms=2, lw=1.5, label="end")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="best")


def top_view(run):
    fig, ax = new_figure(figsize=(7, 5))
    trajectories(ax, run.series, title=f"{run.scenario.name}: module paths (top view)", links=body_indices(run))
    return fig


def _link(run, name: str) -> int:
    return _names(run, "yaw", "link").index(name)


def arena_profile(arena, x0: float, x1: float):
    """(x, z) of the arena's ground profile along x between x0 and x1 (step, stairs, ridged slope), or None."""
    from lab.arenas.step import Slope, Stairs, Step

    if isinstance(arena, Step):
        xe, h = arena.step_x, arena.step_height
        x_end = max(x1, xe + 0.05)
        return np.array([x0, xe, xe, min(x_end, xe + arena.step_depth)]), np.array([0.0, 0.0, h, h])
    if isinstance(arena, Stairs):
        xs, zs = [x0], [0.0]
        for k in range(arena.n_steps):
            x = arena.step_x + k * arena.tread
            xs += [x, x]
            zs += [k * arena.rise, (k + 1) * arena.rise]
        xs.append(max(x1, xs[-1] + arena.tread))
        zs.append(zs[-1])
        return np.array(xs), np.array(zs)
    if isinstance(arena, Slope):
        return np.array([x0, x1]), np.array([0.0, 0.0])
    return None


def side_view(run):
    """Side view (x–z) of the body's COM, the arm tip (the guide wheel's centre) and the arena profile."""
    s, sc = run.series, run.scenario
    body, tip = _link(run, "body"), _link(run, "guide")
    x_b, z_b = s["xy"][:, body, 0], s["z"][:, body]
    x_t, z_t = s["xy"][:, tip, 0], s["z"][:, tip]
    fig, ax = new_figure(figsize=(8, 4.5))
    lo = float(min(x_b.min(), x_t.min())) - 0.1
    hi = float(max(x_b.max(), x_t.max())) + 0.1
    prof = arena_profile(sc.arena, lo, hi)
    if prof is not None:
        ax.fill_between(prof[0], prof[1], -0.05, step=None, color="0.8", label="ground / step (x–z)")
        ax.plot(prof[0], prof[1], "k-", lw=1.2)
    ax.plot(x_b, z_b, "b-", lw=1.2, label="body COM")
    ax.plot(x_t, z_t, color="darkorange", lw=1.0, label="arm tip (guide wheel centre)")
    for k, style in ((0, "o"), (-1, "s")):
        ax.plot([x_b[k], x_t[k]], [z_b[k], z_t[k]], "k" + style + "-", ms=4, lw=0.8, alpha=0.6)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m] (climbing direction)")
    ax.set_ylabel("z [m]")
    ax.set_title(f"{sc.name}: side view (start ○, end □)")
    ax.legend(fontsize=8, loc="upper left")
    return fig


def pitch_arm(run):
    """The body's pitch about +y (turning forward positive) and the arm angle over time."""
    s = run.series
    t = s["t"]
    body = _link(run, "body")
    arm = list(_names(run, "q", "joint")).index("arm_joint")
    fig, (ax, ax2) = new_figure(2, 1, figsize=(8, 5))
    # the body's rotation about +y in the x–z plane (the climbing plane; + = turning forward over its
    # front, nose down, the sign of climb.max_pitch_deg): past 90° the body has flipped
    elev, yaw = s["pitch"][:, body], s["yaw"][:, body]
    pitch_xz = np.unwrap(np.arctan2(-np.sin(elev), np.cos(elev) * np.cos(yaw)))
    ax.plot(t, np.degrees(pitch_xz), "b-", lw=1.0, label="body pitch about +y (+ = forward, nose down)")
    ax.set_ylabel("pitch [deg]")
    ax.legend(fontsize=8)
    ax.set_title(f"{run.scenario.name}: body pitch and arm angle")
    ax2.plot(t, np.degrees(s["q"][:, arm]), color="darkorange", lw=1.0, label="arm_joint (+ = tip down)")
    ax2.set_xlabel("t [s]")
    ax2.set_ylabel("arm angle [deg]")
    ax2.legend(fontsize=8)
    return fig


def heading(run):
    """The chain's heading (circular mean of its links' yaws) over time and its centre-of-mass path."""
    from lab.core.metrics import body_heading

    s = run.series
    fig, (ax, ax2) = new_figure(1, 2, figsize=(10, 4.2))
    ax.plot(s["t"], np.degrees(body_heading(s["yaw"][:, body_indices(run)])), "b-", lw=1.0, label="heading")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("heading [deg] (+ = left)")
    ax.set_title("body heading")
    ax.legend(fontsize=8)
    com = s["com"]
    ax2.plot(com[:, 0], com[:, 1], "k-", lw=1.0, label="centre of mass")
    ax2.plot(com[0, 0], com[0, 1], "go", ms=5, label="start")
    ax2.plot(com[-1, 0], com[-1, 1], "rs", ms=5, label="end")
    ax2.set_aspect("equal", adjustable="datalim")
    ax2.set_xlabel("x [m]")
    ax2.set_ylabel("y [m]")
    ax2.set_title("centre-of-mass path (top view)")
    ax2.legend(fontsize=8)
    fig.suptitle(run.scenario.name)
    return fig


TOP_VIEW = View("trajectories", top_view, "top view (x–y) of every body link's path, start and end shapes")
SIDE_VIEW = View("side_view", side_view, "side view (x–z): body COM, arm tip and the arena's profile")
PITCH_ARM_VIEW = View("pitch_arm", pitch_arm, "body pitch and arm angle over time")
HEADING_VIEW = View("heading", heading, "body heading over time and the centre-of-mass path")

def run_views(result) -> tuple:
    """The plots of a run (:class:`lab.core.views.View`): the generic ones, then the robot's
    (:meth:`lab.robots.base.Robot.views`), then the trial's (:meth:`lab.trials.base.Trial.views`)."""
    trial, robot = result.scenario.trial, result.scenario.robot
    robot_views = robot.views() if hasattr(robot, "views") else (TOP_VIEW,)  # lab.robots.base.Robot's default
    out = (*GENERIC_VIEWS, *robot_views, *(trial.views() if trial is not None else ()))
    names = [v.name for v in out]
    if len(set(names)) != len(names):
        raise ValueError(f"views: two views share a file name: {names}")
    return out


def run_plots(result, out: Path) -> list[Path]:
    """Draw every view of the run into ``out`` (``<view>.png``); returns the paths written."""
    paths = []
    for view in run_views(result):
        fig = view.draw(result)
        paths.append(_save(fig, Path(out) / f"{view.name}.png"))
    return paths


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
