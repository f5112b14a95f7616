"""Why E stops short of E_ref: the steady state of passive creeping against its coupling
gain, the Fig 7 rows run long, the E_ref × ω reachability map and the start-up onset.

Eq. 15 makes the body joints follow each other with the gain G = K·∫(E_ref − E)dt. With G held
(``controller.coupling_gain_fixed``) the snake settles within ~12 s into a gait whose kinetic energy
E(G) has a maximum E_max: a stiffer coupling shortens the phase lag per joint and the travelling wave
flattens towards a standing wiggle. The running integral only ever raises G while E < E_ref, so an
E_ref above E_max is never reached and G winds up without bound (E then *falls*); below E_max the
integral stops where E(G) = E_ref on the rising branch, a stable point.

Runs are returned as ``(name, scenario, overrides)`` for ``ctx.run_many``; the figure panels draw on
axes they are given (the section puts them in its ``energy`` figure).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from lab.analysis.onset import motion_onset
from lab.core.tolerances import tol
from lab.papers.wang2011_creeping.analysis.wave import coupling_gain_series, levelled_at, time_to_reach, window_state

SCENARIO = "snake_passive_creeping"
GAINS = (0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0, 5.0)  # N·m/rad, frozen K·∫
CHAR_DURATION_S = 30.0  # settled within ~12 s at every gain (measured; the window is the last 12 s)
CHAR_WINDOW_S = 12.0
LONG_DURATION_S = 120.0  # Fig 7 rows: ≥ 120 s
# The head servo's gain grows with the coupling integral (eq. 14: a·I_head·|K_head·∫ + e|), so its explicit
# PD has a step bound that falls as K·∫ grows. At the flagship's 5 ms the frozen-gain runs from K·∫ = 2
# (ω = 4) or 3 N·m/rad (ω = 2) and the 120-s runs whose E_ref is out of reach (the integral keeps growing)
# end "unstable" (lab.core.instability: the head joint's torque flips sign every step); at 2 ms K·∫ = 5 with
# ω = 4 still does, and 2.5 ms moves the ω = 4 characteristic's E by 6 % from 2 ms. So these runs keep the
# 1-ms step they were validated at, sampled every 10 ms as the scenario is (issue 34; docs/benchmarks.md,
# "Time steps by convergence"); the reachability sweep file sets the same. The implicit head
# (controller.servo = "implicit_pd", with the motors' lines implicit) removes the instability but not the step
# error: over all 57 frozen-gain runs E moves up to 14 % from 5 to 2.5 ms (three runs at ω = 3–4 end
# "unstable" on the ledger) and up to 7.9 % from 2.5 to 1.25 ms (ω = 1, K·∫ = 1–1.5 gets going at 2.5 ms, not
# at 1.25): first order with a large constant, so these runs stay at 1 ms with the explicit head (docs/
# benchmarks.md, "The creeping study's gain-driven runs with an implicit head").
GAIN_STEP = {"sim.dt": 0.001, "sim.record_every": 10}
LEVEL_SPAN_S = 20.0
ONSET = dict(v_on=0.01, window=math.pi, hold=2.0)  # motion onset: as the drag trial's clock (snake_drag.toml)
REACH_SWEEP = "wang2011_creeping_reachability.toml"
# E_max(ω): the frozen-gain characteristic at the reachability map's other head frequencies (Fig 7's
# start-up ground and E_ref; ω = 2 is the first triple's characteristic)
OMEGA_GAINS = (0.3, 0.6, 1.0, 1.5, 2.0, 3.0, 5.0)
OMEGA_EXTRA = (1.0, 3.0, 4.0)


def char_name(triple, G: float) -> str:
    E, mn, mt = triple
    return f"wang2011_creeping_char_E{E:g}_mun{mn:g}_mut{mt:g}_G{G:g}"


def char_runs(triples, quick: bool) -> list[tuple]:
    """Frozen-gain runs: every gain for each Fig 7 triple (its E_ref enters the head's factor, eq. 14).
    None in quick mode (the quick report exercises the section's other runs; tests cover these)."""
    if quick:
        return []
    runs = []
    for tr in triples:
        E, mn, mt = tr
        for G in GAINS:
            runs.append((char_name(tr, G), SCENARIO, {"controller.E_ref": E, "friction.mu_n": mn, "friction.mu_t": mt,
                                                      "controller.coupling_gain_fixed": G,
                                                      "sim.duration": CHAR_DURATION_S, **GAIN_STEP}))
    return runs


def omega_name(omega: float, G: float) -> str:
    return f"wang2011_creeping_char_w{omega:g}_G{G:g}"


def omega_runs(triple, quick: bool) -> list[tuple]:
    """Frozen-gain runs at the other head frequencies, on ``triple``'s ground and E_ref (none in quick mode)."""
    if quick:
        return []
    E, mn, mt = triple
    return [(omega_name(w, G), SCENARIO, {"controller.E_ref": E, "friction.mu_n": mn, "friction.mu_t": mt,
                                           "controller.xd_omega": w, "controller.coupling_gain_fixed": G,
                                           "sim.duration": CHAR_DURATION_S, **GAIN_STEP})
            for w in OMEGA_EXTRA for G in OMEGA_GAINS]


def e_max_by_omega(results: dict, char: dict, triple) -> dict:
    """{ω: (E_max, gain at the max, at the grid's edge?)} from the frozen-gain runs; ω = 2 from ``char``."""
    out = {}
    if triple in char:
        d = char[triple]
        out[2.0] = (d["E_max"], d["G_at_max"], d["edge"])
    for w in OMEGA_EXTRA:
        rows = [(G, steady(results[omega_name(w, G)], fixed=G)["E_J"]) for G in OMEGA_GAINS
                if omega_name(w, G) in results and results[omega_name(w, G)].status == "ok"]
        if rows:
            k = int(np.nanargmax([e for _, e in rows]))
            out[w] = (float(rows[k][1]), rows[k][0], k == len(rows) - 1)
    return dict(sorted(out.items()))


def diverged_runs(results: dict) -> list[str]:
    """Frozen-gain runs the engine could not finish (runaway kinetic energy): left out of E_max."""
    names = [n for n, r in results.items() if n.startswith("wang2011_creeping_char_") and r.status != "ok"]
    return sorted(names)


def omega_of(result) -> float:
    return float(result.scenario.controller.xd_omega)


def steady(result, fixed: float | None = None) -> dict:
    """The last CHAR_WINDOW_S of a run (whole periods): :func:`lab.papers.wang2011_creeping.analysis.wave.window_state`, plus
    the motion onset and whether a joint touched its limit."""
    s, sc = result.series, result.scenario
    c = sc.controller
    t = s["t"]
    if len(t) < 3:
        return {"E_J": float("nan"), "onset_s": float("nan"), "limit": False}
    gain = coupling_gain_series(s, c.E_ref, c.K_body, fixed)
    w = window_state(s, max(0.0, t[-1] - CHAR_WINDOW_S), t[-1], omega_of(result), gain)
    w["onset_s"] = motion_onset(t, s["xy"].mean(axis=1), **ONSET)[0]
    x = result.metrics.get("time.rhythmic_s")
    w["rhythmic_s"] = float(x) if x is not None else float("nan")
    w["limit"] = hits_limit(result)
    return w


def hits_limit(result) -> bool:
    q = result.series["q"]
    return bool(len(q) and np.abs(q).max() >= result.scenario.robot.joint_limit - tol("creeping.joint_limit_margin_rad"))


def characteristic(results: dict, triples) -> dict:
    """{triple: {"rows": [steady dict per gain], "E_max", "G_at_max"}} for the triples that were run."""
    out = {}
    for tr in triples:
        rows = []
        for G in GAINS:
            r = results.get(char_name(tr, G))
            if r is not None and r.status == "ok":  # a diverged run is named by diverged_runs()
                d = steady(r, fixed=G)
                d["G"] = G
                rows.append(d)
        if not rows:
            continue
        E = np.array([d["E_J"] for d in rows])
        k = int(np.nanargmax(E))
        out[tr] = {"rows": rows, "E_max": float(E[k]), "G_at_max": rows[k]["G"], "edge": k == len(rows) - 1}
    return out


def long_record(result, E_max: float | None) -> dict:
    """A Fig 7 row run long: reached or not (period mean within reach_rel of E_ref), the time to
    reach, when E levelled (LEVEL_SPAN_S within level_rel), the peak of the period-mean E, and the
    gain K·∫ at the end."""
    s, c = result.series, result.scenario.controller
    t, E = s["t"], s["E"]
    P = 2 * math.pi / c.xd_omega if c.xd_omega > 0 else 1.0
    rel = tol("creeping.reach_rel")
    n = max(1, int(round(P / float(np.median(np.diff(t)))))) if len(t) > 1 else 1
    Ebar = np.convolve(E, np.ones(n) / n, mode="valid") if len(E) >= n else np.asarray(E)
    gain = coupling_gain_series(s, c.E_ref, c.K_body)
    last = window_state(s, max(0.0, t[-1] - CHAR_WINDOW_S), t[-1], c.xd_omega, gain) if len(t) > 3 else {}
    t_reach = time_to_reach(t, E, c.E_ref, rel, P) if len(t) > 3 else float("nan")
    return {"E_ref": c.E_ref, "t_reach": t_reach, "reached": math.isfinite(t_reach), "trend": trend(t, Ebar, n),
            "t_level": levelled_at(t, E, LEVEL_SPAN_S, tol("creeping.level_rel"), P) if len(t) > 3 else float("nan"),
            "E_peak": float(np.max(Ebar)) if len(Ebar) else float("nan"),
            "t_peak": float(t[n - 1 + int(np.argmax(Ebar))]) if len(Ebar) and len(E) >= n else float("nan"),
            "E_end": last.get("E_J", float("nan")), "G_end": float(gain[-1]) if len(gain) else float("nan"),
            "E_max": E_max, "limit": hits_limit(result) if len(t) else False, "T": float(t[-1]) if len(t) else 0.0}


def trend(t, Ebar, n: int) -> str:
    """What the period-mean E did over the last LEVEL_SPAN_S: "rising" (up by more than level_rel),
    "peaked" (its maximum came earlier and it has fallen by more than level_rel since) or "level"."""
    t = np.asarray(t, float)
    if len(Ebar) < 3 or len(t) < n + 2:
        return "level"
    tb = t[n - 1:]
    k = int(np.searchsorted(tb, tb[-1] - LEVEL_SPAN_S))
    rel = tol("creeping.level_rel")
    end, before, peak = float(Ebar[-1]), float(Ebar[min(k, len(Ebar) - 1)]), float(np.max(Ebar))
    if end > before * (1 + rel):
        return "rising"
    if peak > end * (1 + rel) and tb[int(np.argmax(Ebar))] < tb[-1] - LEVEL_SPAN_S / 2:
        return "peaked"
    return "level"


TREND_WORDS = {"rising": "still rising", "peaked": "passed its peak, falling", "level": "levelled below",
               "still": "never moves (no motion onset)"}


# ------------------------------------------------------------------ reachability (E_ref × ω)
def reach_points() -> tuple[list[dict], dict]:
    """The sweep file's grid points and its fixed overrides (scenarios/sweeps/wang2011_creeping_reachability.toml)."""
    from lab.core import scenario as scn
    from lab.sweep.definition import load_sweep, points

    sw = load_sweep(Path(scn.SCENARIO_DIR) / "sweeps" / REACH_SWEEP)
    return points(sw), dict(sw.fixed)


def reach_name(point: dict) -> str:
    return f"wang2011_creeping_reach_E{point['controller.E_ref']:g}_w{point['controller.xd_omega']:g}"


def reach_runs(quick: bool) -> list[tuple]:
    if quick:
        return []
    pts, fixed = reach_points()
    return [(reach_name(p), SCENARIO, {**fixed, **p}) for p in pts]


def reach_records(results: dict) -> list[dict]:
    pts, _ = reach_points()
    out = []
    for p in pts:
        r = results.get(reach_name(p))
        if r is None:
            continue
        rec = long_record(r, None)
        if not rec["reached"] and len(r.series["t"]) > 3 and not math.isfinite(
                motion_onset(r.series["t"], r.series["xy"].mean(axis=1), **ONSET)[0]):
            rec["trend"] = "still"  # the COM never got going (the drag trial's onset rule)
        rec["omega"] = p["controller.xd_omega"]
        rec["q_max"] = float(np.abs(r.series["q"]).max()) if len(r.series["q"]) else float("nan")
        out.append(rec)
    return out


# ------------------------------------------------------------------ figure panels and tables
def plot_characteristic(ax, bx, char: dict, long_runs: dict) -> None:
    """ax: steady E against the frozen gain per triple, with the running integral's path (E against
    K·∫ of the long run, period-averaged) on top and E_ref dotted; bx: phase lag per joint and COM
    speed against the gain."""
    colors = ("C0", "C1", "C2", "C3")
    for (tr, d), col in zip(char.items(), colors):
        E_ref, mn, mt = tr
        G = [r["G"] for r in d["rows"]]
        ax.plot(G, [r["E_J"] for r in d["rows"]], "o-", color=col, label=f"frozen gain, μn={mn:g} μt={mt:g} (E_ref {E_ref:g})")
        ax.axhline(E_ref, color=col, ls=":", lw=1)
        r = long_runs.get(tr)
        if r is not None and len(r.series["t"]) > 3:
            s, c = r.series, r.scenario.controller
            gain = coupling_gain_series(s, c.E_ref, c.K_body)
            n = max(1, int(round(2 * math.pi / c.xd_omega / float(np.median(np.diff(s["t"]))))))
            if len(s["E"]) > n:
                Eb = np.convolve(s["E"], np.ones(n) / n, mode="valid")
                gb = np.convolve(gain, np.ones(n) / n, mode="valid")
                ax.plot(gb, Eb, "-", color=col, lw=0.8, alpha=0.6)
        bx.plot(G, [r["lag_rad"] for r in d["rows"]], "o-", color=col, label=f"phase lag/joint, μn={mn:g} μt={mt:g}")
        bx.plot(G, [r["speed_mps"] for r in d["rows"]], "s--", color=col, ms=4, label=f"COM speed [m/s], μn={mn:g}")
    ax.set_xscale("log")
    ax.set_xlabel("coupling gain K·∫(E_ref − E)dt [N·m/rad]")
    ax.set_ylabel("steady kinetic energy E [J]")
    ax.set_title("E against a frozen coupling gain (dots); thin: the running integral's path over 120 s;\n"
                 "dotted: E_ref", fontsize=9)
    if char:
        ax.legend(fontsize=7)
        bx.legend(fontsize=7)
    bx.set_xscale("log")
    bx.set_xlabel("coupling gain [N·m/rad]")
    bx.set_ylabel("phase lag per joint [rad] / speed [m/s]")
    bx.set_title("Stiffer coupling, shorter lag: the wave flattens", fontsize=9)


def plot_reach(ax, recs: list[dict], emax: dict | None = None) -> None:
    """E_ref × ω: filled = reached (time in s beside it), open = not reached (E at the end), red edge =
    a joint on its limit; black bars: E_max(ω) of the frozen-gain characteristic."""
    top = 1.12 * max((r["E_ref"] for r in recs), default=1.0)
    for w, (E, G, edge) in (emax or {}).items():
        y = min(E, top)  # an E_max above the map: a bar at its top edge, the value written
        ax.plot([w - 0.3, w + 0.3], [y, y], "k-" if E <= top else "k--", lw=2)
        ax.annotate(f"E_max{'≥' if edge else '='}{E:.2f} J", (w - 0.3, y), xytext=(0, -10),
                    textcoords="offset points", fontsize=7)
    if emax:
        ax.set_ylim(0.0, top + 0.05)
    for r in recs:
        lim = r["limit"]
        if r["reached"]:
            ax.plot(r["omega"], r["E_ref"], "o", color="C2", ms=11, mec="red" if lim else "C2", mew=2)
            ax.annotate(f"{r['t_reach']:.0f} s", (r["omega"], r["E_ref"]), xytext=(7, 4), textcoords="offset points",
                        fontsize=7)
        else:
            marker = {"rising": "^", "peaked": "v", "level": "s", "still": "x"}[r["trend"]]
            ax.plot(r["omega"], r["E_ref"], marker, mfc="none", color="C3", ms=10, mec="red" if lim else "C3", mew=1.5)
            ax.annotate(f"E {r['E_end']:.2f}", (r["omega"], r["E_ref"]), xytext=(7, 4), textcoords="offset points",
                        fontsize=7)
    ax.set_xlabel("head reference frequency ω [rad/s] (paper: 2)")
    ax.set_ylabel("E_ref [J]")
    T = max((r["T"] for r in recs), default=0.0)
    ax.set_title(f"Reachability (μn 0.3, μt 0.03, {T:.0f} s): filled = E within 10 % of E_ref (time); open = not\n"
                 "(E at the end; ▲ still rising, ▼ passed its peak, ■ level, × never moves); red edge = joint limit",
                 fontsize=9)
    if recs:
        ws = sorted({r["omega"] for r in recs})
        ax.set_xlim(ws[0] - 0.6, ws[-1] + 0.9)


def char_table(char: dict) -> str:
    lines = ["| μn | μt | E_ref (head) | K·∫ [N·m/rad] | E [J] | COM speed [m/s] | η1 | P_in [W] | lag/joint [rad] | "
             "tail amp [rad] | joint amp [rad] | onset [s] |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (E_ref, mn, mt), d in char.items():
        for r in d["rows"]:
            mark = " **max**" if r["G"] == d["G_at_max"] else ""
            lines.append(f"| {mn:g} | {mt:g} | {E_ref:g} | {r['G']:g} | {r['E_J']:.3f}{mark} | {r['speed_mps']:.3f} | "
                         f"{r['eta1']:+.3f} | {r['power_in_W']:.2f} | {r['lag_rad']:.3f} | {r['tail_amp_rad']:.3f} | "
                         f"{r['joint_amp_rad']:.3f} | {fmt_s(r['onset_s'])} |")
    return "\n".join(lines)


def reach_table(recs: list[dict], emax: dict | None = None) -> str:
    ws = sorted({r["omega"] for r in recs})
    Es = sorted({r["E_ref"] for r in recs})
    by = {(r["E_ref"], r["omega"]): r for r in recs}
    lines = ["| E_ref [J] | " + " | ".join(f"ω = {w:g}" for w in ws) + " |", "|---|" + "---|" * len(ws)]
    if emax:
        cells = []
        for w in ws:
            e = emax.get(w)
            cells.append("–" if e is None else f"{'≥ ' if e[2] else ''}{e[0]:.2f} J at K·∫ = {e[1]:g}")
        lines.append("| *E_max (frozen gain)* | " + " | ".join(cells) + " |")
    for E in Es:
        cells = []
        for w in ws:
            r = by.get((E, w))
            if r is None:
                cells.append("–")
                continue
            c = (f"✓ {r['t_reach']:.0f} s" if r["reached"] else
                 f"✗ {TREND_WORDS[r['trend']]}: E {r['E_end']:.2f}, peak {r['E_peak']:.2f}")
            c += f" (\\|q\\| {r['q_max']:.2f}{', **limit**' if r['limit'] else ''})"
            cells.append(c)
        lines.append(f"| {E:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def fmt_s(x: float) -> str:
    return f"{x:.1f}" if x is not None and math.isfinite(x) else "–"


__all__ = ["GAINS", "char_runs", "char_table", "characteristic", "long_record", "plot_characteristic", "plot_reach",
           "reach_records", "reach_runs", "reach_table", "steady"]
