"""The single motor's design map (Hu 2013 §1.1: one input, two outputs): what the engine's differential
does at a riser over the sun→pulley ratio i2 and the ground's and the riser's friction, with the stall
law's flip boundaries (:mod:`lab.papers.hu2013_tracked.model.stall`) drawn on top.

The runs are the sweep ``scenarios/sweeps/hu2013_design_map.toml``; each run's outcome comes from its
``diff.*`` and ``climb.*`` metrics (:func:`outcome`).
"""

from __future__ import annotations

import numpy as np

SWEEP = "hu2013_design_map"
OUTCOMES = ("no flip", "flip, then jam", "flip, no climb", "climbs")
STYLE = {"no flip": ("o", "0.55"), "flip, then jam": ("X", "tab:red"), "flip, no climb": ("s", "tab:orange"),
         "climbs": ("^", "tab:green")}


def outcome(metrics: dict) -> str:
    """One run's outcome: climbs (over the edge and on the top), else flip then jam (no COM progress after
    the flip), flip without climbing (e.g. tumbling on), or no flip."""
    if metrics.get("climb.success"):
        return "climbs"
    if metrics.get("diff.flipped"):
        return "flip, then jam" if metrics.get("diff.jammed") else "flip, no climb"
    return "no flip"


def sweep_runs() -> list[tuple[str, dict]]:
    """(run name, overrides) of every point of the design-map sweep, in sweep order."""
    from lab.sweep.definition import expand, load_sweep

    sw = load_sweep(SWEEP)
    out = []
    for r in expand(sw):
        ov = {k: v for k, v in r.overrides.items() if k != "seed"}
        name = "hu2013_map_i{:.3f}_g{:.2f}_w{:.2f}".format(ov["robot.i2"], ov["arena.friction"],
                                                            ov["arena.riser_friction"])
        out.append((name, ov))
    return out


def cells(runs: dict, names: list[tuple[str, dict]]) -> list[tuple[float, float, float, str]]:
    """(i2, μ_g, μ_w, outcome) per run (the belt's own coefficient is 1 in the sweep: the arena's μ are the
    contacts')."""
    out = []
    for name, ov in names:
        r = runs.get(name)
        if r is None:
            continue
        t = float(ov.get("robot.track_friction", 1.0))
        out.append((float(ov["robot.i2"]), float(ov["arena.friction"]) * t, float(ov["arena.riser_friction"]) * t,
                    outcome(r.metrics)))
    return out


def fig_design_map(data: list[tuple[float, float, float, str]], params):
    """One panel per riser μ_w: the engine's outcome per (μ_g, i2) cell, and the stall law's boundaries —
    below the solid line the sliding belt holds the flip (it flips for sure), above the dashed line no
    split of a stalled belt's pull can hold it (it never flips); in between the rigid law does not decide."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lab.papers.hu2013_tracked.model.stall import stall_law

    mws = sorted({c[2] for c in data}) or [0.0]
    n = len(mws)
    fig, axs = plt.subplots(1, n + 1, figsize=(4.2 * n + 2.8, 3.8), squeeze=False,
                            gridspec_kw={"width_ratios": [1.0] * n + [0.65]})
    axes, lax = [axs[0][:n]], axs[0][n]  # the last cell holds the legend (the report's tight_layout keeps it clear)
    mg_all = [c[1] for c in data] or [3.0]
    g = np.linspace(0.05, max(mg_all) * 1.15, 200)
    i2_top = max([c[0] for c in data] or [0.5]) * 1.15
    seen = set()
    for ax, mw in zip(axes[0], mws):
        slide = np.array([stall_law(params, x, mw).i2_max for x in g])
        hold = np.array([stall_law(params, x, mw).i2_max_hold for x in g])
        ax.fill_between(g, 0, np.minimum(slide, i2_top), color="tab:red", alpha=0.10, lw=0)
        ax.fill_between(g, np.minimum(slide, i2_top), np.minimum(hold, i2_top), color="tab:orange", alpha=0.10, lw=0)
        ax.plot(g, slide, "k-", lw=1.2, label="flips: sliding belt holds F_f (below)")
        ax.plot(g, hold, "k--", lw=1.0, label="no split of a stalled belt holds F_f (above)")
        ax.axhline(params.i2, color="0.3", ls=":", lw=1, label=f"Table 1: i2 = {params.i2:g}")
        for i2, mg, w, oc in data:
            if w != mw:
                continue
            mk, col = STYLE[oc]
            ax.plot(mg, i2, mk, color=col, ms=8, mec="k", mew=0.5, label=None if oc in seen else oc)
            seen.add(oc)
        ax.set_xlabel("ground μ_g")
        ax.set_title(f"riser μ_w = {mw:g}")
        ax.set_ylim(0, i2_top)
        ax.set_xlim(0, g[-1])
    axes[0][0].set_ylabel("sun → pulley ratio i2")
    handles, labels = [], []
    for ax in axes[0]:
        for h_, l_ in zip(*ax.get_legend_handles_labels()):
            if l_ not in labels:
                handles.append(h_)
                labels.append(l_)
    lax.axis("off")
    lax.legend(handles, labels, loc="center left", fontsize=8, frameon=False)
    for ax in axes[0][1:]:
        ax.set_yticklabels([])
    fig.suptitle("The single motor at a 10 cm riser: engine outcome and the stall law's flip boundaries")
    fig.tight_layout()
    return fig


def summary(data: list[tuple[float, float, float, str]], params) -> dict:
    """Counts per outcome, and how the engine's flips sit against the closed form's boundaries:
    flips below the sliding line, no flips above the sticking line, and the cells in between."""
    from lab.papers.hu2013_tracked.model.stall import stall_law

    n = {o: 0 for o in OUTCOMES}
    agree = disagree = between = 0
    for i2, mg, mw, oc in data:
        n[oc] += 1
        law = stall_law(params, mg, mw)
        flipped = oc != "no flip"
        if i2 <= law.i2_max:
            agree, disagree = (agree + 1, disagree) if flipped else (agree, disagree + 1)
        elif i2 > law.i2_max_hold:
            agree, disagree = (agree, disagree + 1) if flipped else (agree + 1, disagree)
        else:
            between += 1
    return {"counts": n, "agree": agree, "disagree": disagree, "between": between, "cells": len(data)}


__all__ = ["OUTCOMES", "cells", "fig_design_map", "outcome", "summary", "sweep_runs"]
