"""The Hu 2013 report's multi-module part (the paper's future work, §7 and Figs 3–4): the limit analysis of
each configuration (lab.papers.hu2013_tracked.model.multi), the engine's design map (sweep
``hu2013_chain_map``: chain length × step height × friction) and the headline climb as an image sequence.
Called by :func:`lab.papers.hu2013_tracked.report.hu2013_section`."""

from __future__ import annotations

import math

import numpy as np

from lab.report import Row

SWEEP = "hu2013_chain_map"
SCENARIO = "tracked_serial_climb"
MUS_MODEL = (0.15, 0.2, 0.25, 0.3, 0.4, 0.6, 0.8)
H_MODEL = (0.15, 0.17, 0.19, 0.21, 0.23, 0.25, 0.27)


def sweep_runs() -> list[tuple[str, dict]]:
    """(run name, overrides) of every cell of the sweep, in sweep order."""
    from lab.sweep.definition import expand, load_sweep

    out = []
    for r in expand(load_sweep(SWEEP)):
        ov = {k: v for k, v in r.overrides.items() if k != "seed"}
        out.append((f"chain_n{ov['robot.n_modules']}_h{ov['arena.step_height']:.2f}_mu{ov['arena.friction']:.2f}", ov))
    return out


def model_table(mus=MUS_MODEL, heights=H_MODEL) -> dict:
    """The limit analysis on a (chain length, μ, h) grid (μ_g = μ_w): feasible or not, the peak load ratio
    and the reason; the highest feasible h per (n, μ) (feasibility is not monotone in h at low μ: a lower
    step puts the bar to the module on the top nearer the horizontal, and the tail's climb needs more)."""
    from lab.papers.hu2013_tracked.model.multi import ChainParams, analyse_serial, serial_h_geo

    out = {"h_geo": serial_h_geo(ChainParams()), "cell": {}, "h_max": {}, "ratio_025": {}, "mus": tuple(mus),
           "heights": tuple(heights)}
    for n in (2, 3):
        for mu in mus:
            cp = ChainParams(n_modules=n, mu_ground=mu, mu_riser=mu)
            for h in heights:
                a = analyse_serial(cp, h, n_u=13)
                out["cell"][(n, mu, h)] = (a.feasible, a.peak_ratio, a.reason)
            ok = [h for h in heights if out["cell"][(n, mu, h)][0]]
            out["h_max"][(n, mu)] = max(ok) if ok else math.nan
            a25 = analyse_serial(cp, 0.25, n_u=13)
            out["ratio_025"][(n, mu)] = a25.peak_ratio
            out.setdefault("margin_025", {})[(n, mu)] = a25.min_margin
    out["loops"] = loop_table(mus, heights)
    return out


def loop_table(mus=MUS_MODEL, heights=H_MODEL) -> dict:
    """The triangle's and ring's limit analysis (lab.papers.hu2013_tracked.model.loops) on the same (μ, h)
    grid: (kind, μ, h) -> (feasible, peak load ratio, reason)."""
    from lab.papers.hu2013_tracked.model.loops import LoopParams, analyse_loop
    from lab.papers.hu2013_tracked.model.multi import ChainParams

    out = {}
    for kind in ("triangle", "ring"):
        for mu in mus:
            lp = LoopParams(kind, ChainParams(n_modules=2, mu_ground=mu, mu_riser=mu))
            for h in heights:
                a = analyse_loop(lp, h, n_u=13)
                out[(kind, mu, h)] = (a.feasible, a.peak_ratio, a.reason)
    return out


def cells(runs: dict, names) -> list[tuple[int, float, float, dict]]:
    out = []
    for name, ov in names:
        r = runs.get(name)
        if r is not None:
            out.append((int(ov["robot.n_modules"]), float(ov["arena.step_height"]), float(ov["arena.friction"]),
                        r.metrics))
    return out


def fig_map(model: dict, data):
    """One panel per chain length: the limit analysis's cells over (μ, h) — climbs within every rating
    (green), a motor short (orange: its peak load ratio printed), no force distribution holds a pose
    (grey), beyond the bars' reach (white) — and the engine's runs on top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mus, hs = model["mus"], model["heights"]
    panels = [(n, f"serial, {n} modules") for n in (2, 3)]
    if model.get("loops"):
        panels += [("triangle", "triangle (3, Fig 4c)"), ("ring", "ring (4, Fig 4b)")]
    fig, axs = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), sharey=True)
    for ax, (n, title) in zip(axs, panels):
        for i, mu in enumerate(mus):
            for k, h in enumerate(hs):
                ok, ratio, why = (model["cell"][(n, mu, h)] if isinstance(n, int) else model["loops"][(n, mu, h)])
                c = ("tab:green" if ok else "white" if why.startswith("geometry") else "0.75" if why.startswith("statics")
                     else "tab:orange")
                ax.add_patch(plt.Rectangle((i - 0.5, k - 0.5), 1, 1, color=c, alpha=0.45))
                if math.isfinite(ratio) and not why.startswith("geometry"):
                    ax.text(i, k, f"{ratio:.2f}", ha="center", va="center", fontsize=6.5)
        for nn, h, mu, m in data:
            if nn != n or mu not in mus:
                continue
            y = float(np.interp(h, hs, np.arange(len(hs))))
            ok = bool(m.get("chain.success"))
            ax.plot(mus.index(mu) + 0.3, y, "^" if ok else "x", color="k", ms=9, mfc="k" if ok else "none")
        yg = float(np.interp(model["h_geo"], hs, np.arange(len(hs))))
        ax.axhline(yg, color="k", ls=":", lw=1)
        ax.set_xticks(range(len(mus)), [f"{m:g}" for m in mus])
        ax.set_yticks(range(len(hs)), [f"{h:.2f}" for h in hs])
        ax.set_xlim(-0.5, len(mus) - 0.5)
        ax.set_ylim(-0.5, len(hs) - 0.5)
        ax.set_xlabel("μ (belt on ground, riser and top)")
        ax.set_title(title)
    axs[0].set_ylabel("step height h (m)")
    fig.suptitle(f"Limit analysis (green: within every rating, number = peak load ratio; orange: a motor short; grey: "
                 f"no force distribution;\nabove the dotted line {model['h_geo']:.3f} m the bars do not reach) and the "
                 "engine (▲ climbs, × does not; its 0.28 m cells in the top row)", fontsize=8.5)
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    return fig


def fig_sequence(result, robot_links: list[str], n_frames: int = 8, h: float = 0.25, x_e: float = 0.16):
    """Side view of the climb as an image sequence: each module's belt envelope from its three pulley
    centres (recorded link COMs), the step, at evenly spaced instants of the climb."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon

    s = result.series
    t, xy, z = s["t"], s["xy"], s["z"]
    mods = sorted({n.split("_")[0] for n in robot_links if n.startswith("m") and n.endswith("_body")})
    idx = {m: [robot_links.index(f"{m}_belt_pulley_{c}") for c in "FTR"] for m in mods}
    bar = [i for i, n in enumerate(robot_links) if n.startswith("bar_")]
    K = len(t)
    frames = np.linspace(0, K - 1, n_frames).astype(int)
    fig, axs = plt.subplots(2, (n_frames + 1) // 2, figsize=(13, 5.6), squeeze=False)
    for ax, k in zip(axs.ravel(), frames):
        ax.fill([-1, x_e, x_e, 2, 2, -1], [0, 0, h, h, -0.05, -0.05], color="0.85")
        for m in mods:
            P = np.array([[xy[k, i, 0], z[k, i]] for i in idx[m]])
            ax.add_patch(Polygon(P, closed=True, fc="0.25", ec="k", lw=3.5, joinstyle="round"))
            c = P.mean(axis=0)
            ax.plot(*c, "o", color="tab:orange", ms=3)
        cen = [np.array([xy[k, idx[m], 0].mean(), z[k, idx[m]].mean()]) for m in mods]
        for a, b in zip(cen[:-1], cen[1:]):
            ax.plot([a[0], b[0]], [a[1], b[1]], "-", color="tab:blue", lw=2)
        ax.set_xlim(x_e - 0.75, x_e + 0.55)
        ax.set_ylim(-0.02, h + 0.3)
        ax.set_aspect("equal")
        ax.set_title(f"t = {t[k]:.0f} s", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in axs.ravel()[len(frames):]:
        ax.axis("off")
    fig.suptitle(f"Two modules over a {h:.2f} m step (engine; bars in blue)")
    return fig


def multi_runs(quick: bool) -> list:
    """The part's engine runs: the headline climb and the sweep's cells (``[(name, scenario, overrides)]``)."""
    head_ov = {"trial.stop_when_decided": True, **({"sim.duration": 1.0} if quick else {})}
    return [("chain_headline", SCENARIO, head_ov), *[(n, SCENARIO, ov) for n, ov in ([] if quick else sweep_runs())]]


def multi_part(ctx) -> tuple[list[str], list, list]:
    """(body lines, figures, table rows) of the multi-module part."""
    from lab.papers.hu2013_tracked.model.multi import ChainParams, serial_h_geo

    quick = ctx.quick
    names = [] if quick else sweep_runs()
    head_name = "chain_headline"
    runs = ctx.run_many(multi_runs(quick))
    head = runs[head_name].metrics
    model = model_table((0.4, 0.8), (0.19, 0.25)) if quick else model_table()
    data = cells(runs, names)
    figs = [ctx.save_figure(fig_map(model, data), "chain_map",
                            caption="Serial chains of 2 and 3 modules, the triangle and the ring over (μ, h): the limit "
                                    "analysis's verdict and peak motor load per cell, and the engine's cells of the "
                                    "serial chains (`lab sweep hu2013_chain_map`).")]
    from lab.core import scenario as scn

    sc = scn.load(SCENARIO)
    links = _link_names(sc.robot)
    if not quick:
        figs.append(ctx.save_figure(fig_sequence(runs[head_name], list(runs[head_name].link_names) or links), "chain_sequence",
                                    caption="The headline climb as an image sequence (`lab run tracked_serial_climb`)."))
    cp = ChainParams()

    def best(h: float) -> str:
        if h <= 0.195:
            return "one module (or parallel): 0.195 m by the paper's criterion"
        hs = [x for x in model["heights"] if x >= h - 1e-9]
        if not hs:
            return "none (above the grid)"
        hh = hs[0]
        if hh > model["h_geo"]:
            return f"none: above the bars' reach {model['h_geo']:.3f} m (longer bars)"
        parts = []
        for n in (2, 3):
            ok = [mu for mu in model["mus"] if model["cell"][(n, mu, hh)][0]]
            parts.append(f"serial {n} from μ = {min(ok):g}" if ok else f"serial {n}: no μ of the grid")
        for kind in ("triangle", "ring"):
            ok = [mu for mu in model["mus"] if model["loops"].get((kind, mu, hh), (False,))[0]]
            parts.append(f"{kind} from μ = {min(ok):g}" if ok else f"{kind}: no μ of the grid")
        return "; ".join(parts) + " (the two-module serial chain where it does: fewest modules, least to carry)"

    table_lines = ["", "| step h | best configuration (limit analysis, μ_g = μ_w) | engine (μ 0.4 / 0.8; serial 2, serial 3) |",
                   "|---|---|---|"]
    for h in (0.15, 0.21, 0.25, 0.28):
        eng = []
        for n in (2, 3):
            cell = [("✓" if m.get("chain.success") else "✗") for nn, hh, mu, m in sorted(data) if nn == n and abs(hh - h) < 1e-9]
            eng.append("".join(cell) or "—")
        table_lines.append(f"| {h:.2f} m | {best(h)} | {' / '.join(eng)} |")
    rows = [
        Row("multi-module: highest step of a serial chain, the bars' reach √(d_c² − (l + r)²)", f"{serial_h_geo(cp):.3f} m",
            "> 0.195 m (one module; §7 asks for more)", "info", "d_c = 0.36 m; the paper has no multi-module number"),
        Row("multi-module: engine climb of two modules at 0.25 m (chain.success)", str(bool(head.get("chain.success"))),
            "(future work)", "pass" if head.get("chain.success") and head.get("chain.min_margin_m", -1) > 0 else "warn",
            f"time {head.get('chain.time_s', math.nan):.1f} s, least margin "
            f"{100 * head.get('chain.min_margin_m', math.nan):+.1f} cm"),
    ]
    r2 = model["ratio_025"]
    body = [
        "",
        "### Beyond the paper: several modules (§7, Figs 3–4)",
        "",
        "The paper's future work: modules joined by the body's connection device into the configurations of "
        "Figs 3–4, for steps one module cannot climb, and \"the best configuration under given conditions\". The "
        "figures are pictures; what the lab had to choose is said here and in `model/multi.py` and "
        "`lab/robots/tracked_chain.py`.",
        "",
        "- **Connector.** A bar between the modules' centres with a pitch joint at *each* end, both motored "
        "(Table 1's motor through the arm's gearing i0 i1 = 720: 13.5 N·m, 0.52 rad/s). One joint is not enough: "
        "a bar rigid to one module swings with it, and a middle module standing its face against the riser "
        "(−30°) would lift its neighbour off the ground.",
        f"- **Serial (Fig 3b), the climb.** Modules climb in turn: the bars behind push the climber's centre up "
        "while it turns 30° onto the riser, its belt drives it up the riser while the modules behind push (the "
        "push presses it on the riser: friction carries it), it rolls over the edge on its face, the modules on "
        "the top pull the next one. The geometric limit is the bars' reach: at the start of a module's climb the "
        "module ahead must lie on the top, at its end the module behind still at the riser's foot, so "
        f"h ≤ √(d_c² − (l + r)²) = {serial_h_geo(cp):.3f} m for d_c = 0.36 m (tested against a brute-force pose "
        "search). The statics along the path, an LP over the friction cones of every contact, say what each motor "
        f"needs: at h = 0.25 m and μ = 0.8 the largest load is {r2[(2, 0.8)]:.2f} (two modules) and "
        f"{r2[(3, 0.8)]:.2f} (three) of a motor's rating; at μ = 0.4, {r2[(2, 0.4)]:.2f} and {r2[(3, 0.4)]:.2f}. "
        "A third module pushes and counterweighs, so it needs less at low friction; it does not reach higher (the "
        "same bars). The eq.-13 margin over the combined support polygon (every belt contact a line across the "
        "track, the tail's wheel a point; the climber's contacts on the riser count, as the paper's edge line AB "
        f"counts with the face against the riser) stays ≥ {100 * min(model['margin_025'].values()):.1f} cm over the "
        "climbs of 0.25 m.",
        "- **Parallel (Fig 3a).** Side by side and rigid, the symmetric section is the single module's, every force "
        "× n: on rigid ground it climbs what one module climbs (the robot `tracked_chain` with `layout = "
        "\"parallel\"` builds it) and only the lateral margin grows. Its purpose, more ground contact on soft "
        "ground, needs a soil model (Bekker pressure–sinkage) the lab does not have.",
        "- **Triangle and ring (Fig 4c, b)** are pictures only. Our reading (`model/loops.py`): the serial chain "
        "closed on itself, the modules at the corners of a loop of bars in the climbing plane, closed in the engine "
        "by a point-to-point constraint (`lab run tracked_triangle_climb`, `tracked_ring_climb`). Two modules stand "
        "on the ground and climb as the serial pair; the triangle's apex module (a rigid truss: four motored "
        "joints, two in parallel at each bottom corner) or the ring's upper pair (a four-bar square: seven motored joints) ride on "
        "the truss. A big-triangle reading (the loop rolling over the step like one large module) needs the "
        "whole loop lifted over its front corner: about 33 N·m about the front module's centre, 53 N·m about its "
        "pivot pulley (the loop's 182 N at 0.18–0.29 m; an estimate) against 13.5 N·m per connector and per arm, so "
        "we did not take it. The bottom pair's reach bounds both loops as it bounds the "
        f"serial chain ({serial_h_geo(cp):.3f} m); the upper modules never touch the step below it (brute-force "
        "envelope search). Statics: the triangle climbs within every rating (its apex's weight raises the "
        "pair's load: " + _loop_ratio(model, "triangle") + "); the ring's square is sheared by its upper "
        "modules' weight, (2 m + 2 m_bar) g d_c sin β = 25–32 N·m at the climb's tilt: held at one corner it "
        "needs 1.9–2.4× a connector's rating, shared by three motored corners " + _loop_ratio(model, "ring") + ". "
        "Neither climbs higher than the serial pair, and both carry more: for a given h the serial chain of two "
        "stays the best configuration. In the engine the loops run, closed to ~1e-5 m. At their converged steps "
        "(the triangle at 1 ms, the ring at 0.5 ms, on the motors' lines taken implicitly with the load; "
        "docs/benchmarks.md, \"The motors' lines with the load\", 2026-11-27) the triangle (`lab run "
        "tracked_triangle_climb`) completes the 0.25 m climb: 55.2 s, ΔPE 42.6 J, least margin +6.2 cm (+5.4 at "
        "0.5 ms: the extremes still move with the step, the time and ΔPE within 0.05 %). At 1 ms with the lines "
        "explicit it had tipped back over its rear module during the roll over the edge, the rear corner's "
        "two joints at their 13.5 N·m: that was step error. The ring stalls with its front module on the riser "
        "at every step tried (measured at 1 ms before the steps by convergence: the riser presses it with 45 N "
        "against its 61 N, the rear belts push 22 N where the LP has 88 N, the rear joint at 13.5 N·m). The "
        "engine does not find the LP's force distribution: in the serial pair's own engine climb the rear joint "
        "carries the module on the riser (~13 N·m, 15 N of riser friction), and a loop's upper weight adds to it. "
        "The loops are not in the engine sweep (the ring's cells would read ✗ for this reason; the triangle's "
        "cells over μ and h have not been run in the engine); the map's triangle and ring panels are the limit "
        "analysis's.",
        "",
        f"**Headline, in the engine.** Two modules climb the 0.25 m step (`lab run tracked_serial_climb`): "
        f"success {bool(head.get('chain.success'))}, {head.get('chain.time_s', math.nan):.1f} s from the first "
        f"stall to the tail on the top, least support margin {100 * head.get('chain.min_margin_m', math.nan):+.1f} cm "
        f"(engine contacts), peak applied load {head.get('chain.peak_connector_ratio', math.nan):.2f} of a "
        f"connector's stall torque, {head.get('chain.peak_drive_ratio', math.nan):.2f} of a drive's, "
        f"{head.get('chain.peak_arm_ratio', math.nan):.2f} of an arm's; a motor sat at its torque–speed line for "
        f"{100 * head.get('chain.limit_fraction', math.nan):.1f} % of the climb (the World clips every command to "
        "its line: that share, not the ratio, says whether a motor was short). The controller tracks the "
        "model's plan and feeds its statics forward (the LP's force distribution with the most friction reserve); "
        "without the feedforward the module on the top held the climber by its connector alone, saturated it and "
        "tipped back. The tail climbs from the riser's foot as the plan's phase (a) has it, pivoting on its front "
        "pulley with its arm's wheel on the ground (the support margin there +9.6 cm, the plan's +9.8): the "
        "module on the top coasts while the tail is brought to the riser, since its pull through the free bar "
        "lifted the tail off the ground and left it hanging on the bar and the riser, the COM 1.75 cm behind "
        "every support (the margin the check failed on until 2026-11-27, read contact by contact). 0.5 ms step "
        "(by convergence: time, ΔPE and the least margin within 0.5 % of a 0.25-ms run, the connector peak 3.8 %, "
        "where the bar's two motored joints split an indeterminate load; at 1 ms the motors' torque–speed lines, "
        "time constants 0.39–0.81 ms, were stepped past; docs/benchmarks.md).",
        "",
        "**Best configuration for a given h** (the paper's question; limit analysis, and the engine's cells):",
        *table_lines,
        "",
        engine_sentence(model, data),
    ]
    if quick:
        body += ["", "(quick mode: the engine cells are not run)"]
    return body, figs, rows


def _loop_ratio(model: dict, kind: str) -> str:
    cells = {(mu, h): v for (k, mu, h), v in model.get("loops", {}).items() if k == kind}
    at = [(mu, h, v) for (mu, h), v in sorted(cells.items()) if abs(h - 0.25) < 1e-9 or abs(h - 0.19) < 1e-9]
    return ", ".join(f"peak load {v[1]:.2f} at μ = {mu:g}, h = {h:.2f} m" for mu, h, v in at if math.isfinite(v[1])) or "—"


def engine_sentence(model: dict, data) -> str:
    """Where the engine's cells agree with the limit analysis and where not, with the numbers."""
    if not data:
        return "(no engine cells)"
    parts = []
    for n, h, mu, m in sorted(data, key=lambda c: (c[0], c[1], c[2])):
        ok = bool(m.get("chain.success"))
        if not m.get("chain.plan_ok", True):
            parts.append(f"serial {n}, h = {h:.2f} m, μ = {mu:g}: no plan (beyond the bars' reach), as the analysis says")
            continue
        cell = model["cell"].get((n, mu, h))
        said = "climbs" if cell and cell[0] else "does not" if cell else "not on the analysis grid"
        parts.append(f"serial {n}, h = {h:.2f} m, μ = {mu:g}: engine {'climbs' if ok else 'does not'} "
                     f"(model: {said}{f', peak load {cell[1]:.2f}' if cell else ''}; motors at their line "
                     f"{100 * m.get('chain.limit_fraction', math.nan):.0f} % of the climb, least margin "
                     f"{100 * m.get('chain.min_margin_m', math.nan):+.1f} cm)")
    return ("**The engine's cells** (`lab sweep hu2013_chain_map`; the belt's own μ 1, the arena's the contacts'): "
            + "; ".join(parts) + ". Where the model says a chain climbs and the engine's does not, the controller "
            "does not find the model's force distribution: the LP picks the contact forces freely inside the cones, "
            "the engine's contacts share the load as the solver and the servos make them, and the motors saturate.")


def _link_names(robot) -> list[str]:
    """The engine's link order of a tracked_chain: the base, then the URDF's joints' children in order."""
    import re

    return ["m0_body"] + re.findall(r'<child link="([^"]+)"', robot.to_urdf())


__all__ = ["SWEEP", "sweep_runs", "model_table", "fig_map", "fig_sequence", "multi_part"]
