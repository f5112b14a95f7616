"""PNG plots of one run (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def trajectories(ax, series, every: int = 1, title: str = "Module trajectories") -> None:
    xy = series["xy"][::every]
    n = xy.shape[1]
    cmap = plt.get_cmap("viridis")
    for i in range(n):
        ax.plot(xy[:, i, 0], xy[:, i, 1], lw=0.8, color=cmap(i / max(n - 1, 1)),
                label="head" if i == n - 1 else ("tail" if i == 0 else None))
    ax.plot(xy[0, :, 0], xy[0, :, 1], "k-o", ms=2, lw=1.5, label="start")
    ax.plot(xy[-1, :, 0], xy[-1, :, 1], "r-o", ms=2, lw=1.5, label="end")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="best")


def run_plots(result, out: Path) -> list[Path]:
    s = result.series
    sc = result.scenario
    t = s["t"]
    paths = []

    fig, ax = plt.subplots(figsize=(7, 5))
    trajectories(ax, s, title=f"{sc.name}: module trajectories")
    paths.append(_save(fig, out / "trajectories.png"))

    for key, ylabel, title, name in (("q", "joint angle [rad]", "Joint angles (0 = tail joint)", "joint_angles"),
                                      ("tau", "joint torque [N·m]", "Joint torques (0 = tail joint)", "torques")):
        fig, ax = plt.subplots(figsize=(8, 4))
        for j in range(s[key].shape[1]):
            ax.plot(t, s[key][:, j], lw=0.7, label=f"joint {j}")
        ax.set_xlabel("t [s]")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=6, ncol=3)
        paths.append(_save(fig, out / f"{name}.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, s["E"], lw=1.0, label="E (kinetic)")
    ax.plot(t, s["E_T"], lw=0.7, label="E_T (translational)")
    ax.plot(t, s["E_R"], lw=0.7, label="E_R (rotational)")
    E_ref = getattr(sc.controller, "E_ref", None)
    if E_ref is not None:
        ax.axhline(E_ref, color="k", ls="--", lw=1, label=f"E_ref = {E_ref:g} J")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("energy [J]")
    ax.set_title("Kinetic energy")
    ax.legend(fontsize=8)
    paths.append(_save(fig, out / "energy.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    resid = (s["E"] - s["E"][0]) - (s["W_in"] - s["W_d"])
    ax.plot(t, s["W_in"], label="∫P_in dt (motors)")
    ax.plot(t, s["W_d"], label="∫P_d dt (friction)")
    ax.plot(t, s["E"] - s["E"][0], label="ΔE")
    ax.plot(t, resid, label="residual ΔE − ∫(P_in − P_d)dt")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("energy [J]")
    ax.set_title("Energy balance (Wang 2011, eq. 6)")
    ax.legend(fontsize=8)
    paths.append(_save(fig, out / "energy_balance.png"))
    return paths


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
