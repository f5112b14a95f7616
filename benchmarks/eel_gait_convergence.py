"""Step convergence of the Zhang 2018 eel gait study's trials (scenarios/studies/zhang2018_eel_gait.toml):
its objective (COM speed per input power, m/J) and the headline metrics of a gait at several steps, with
the study's own overrides (12 s, straight: γ = 0; samples every 20 ms at every step), plus what saturates.

For each gait (α, ω, β) and each step h: status, objective, headline metrics, and per joint-step

* ``sat_fl`` — the fraction of joint-steps whose feedback-linearising torque (eq. 35) was at its ±effort
  clip (``controller.saturate``);
* ``sat_line`` — the fraction whose torque the motors' torque–speed lines (lab.core.actuators) cut
  further (applied ≠ commanded by more than 1e-9 N·m);
* with ``--per-joint``: each joint's fractions of the steps, and the last time any joint was at either.

``--perturb EPS`` adds, per step, a run whose initial joint angles differ by at most EPS rad
(``init.joint_noise`` = EPS) and a plain re-run, and prints the joints' and the COM's separation from the
first run over time with its fitted growth rate (a Lyapunov-like test: negative for a stable limit cycle),
and the re-run's largest difference (0: deterministic).

Usage:
  python benchmarks/eel_gait_convergence.py --trials lab/papers/zhang2018_eel/optimum/zhang2018_eel_gait.csv --dt 0.002 0.001
  python benchmarks/eel_gait_convergence.py --gait 0.4619,2.0219,0.9904 --dt 0.002 0.001 0.0005
         [--set KEY=VALUE ...] [--duration S] [--shape gait] [--implicit-lines] [--per-joint] [--perturb 1e-9]

A measurement, not a test; prints the machine's load beside the table.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from lab.core import scenario as scn
from lab.core.observers import Observer
from lab.core.runner import Simulation

STUDY_SET = ["controller.gamma_schedule=constant"]  # the study's [set] (its sim.dt and duration given here)
SAMPLE_S = 0.02  # the study's samples: every 20 ms
METRICS = ["com.speed_mean_mps", "energy.input_power_mean_W", "head.path_length_m", "joints.amplitude_mean_rad",
           "joints.torque_rms_Nm", "energy.input_work_J", "energy.kinetic_mean_J", "heading.change_deg",
           "energy.balance_residual_rel"]
SHORT = {"com.speed_mean_mps": "speed", "energy.input_power_mean_W": "power", "head.path_length_m": "head_path",
         "joints.amplitude_mean_rad": "amp", "joints.torque_rms_Nm": "tau_rms", "energy.input_work_J": "work",
         "energy.kinetic_mean_J": "ke_mean", "heading.change_deg": "heading", "energy.balance_residual_rel": "ledger"}


class Saturation(Observer):
    """Per joint-step: the commanded torque at the controller's clip, and the motors' lines cutting it."""

    def __init__(self, effort: float):
        self.effort = effort
        self.n = self.fl = self.line = 0
        self.fl_j = self.line_j = 0  # per joint (tail first), counts of joint-steps
        self.steps = 0
        self.t_last = 0.0  # the last time any joint was at the clip or on a line

    def on_setup(self, run):
        self.run = run

    def on_step(self, k, pre, tau, parts, post):
        cmd = np.asarray(self.run.last_command(), float)
        at_clip = np.abs(cmd) >= self.effort - 1e-12
        cut = np.abs(np.asarray(tau, float) - cmd) > 1e-9
        self.n += cmd.size
        self.steps += 1
        self.fl += int(np.count_nonzero(at_clip))
        self.line += int(np.count_nonzero(cut))
        self.fl_j = self.fl_j + at_clip
        self.line_j = self.line_j + cut
        if at_clip.any() or cut.any():
            self.t_last = float(pre.t)


def scenario(gait, dt, duration, extra=(), shape=None):
    a, w, b = gait
    sets = [*STUDY_SET, f"controller.alpha={a}", f"controller.omega={w}", f"controller.beta={b}",
            f"sim.dt={dt}", f"sim.duration={duration}", f"sim.record_every={max(1, round(SAMPLE_S / dt))}", *extra]
    if shape:
        sets.append(f"init.shape={shape}")
    return scn.load("eel_forward_turn", sets)


IMPLICIT_LINES = False  # --implicit-lines: the motors' lines taken implicitly (World.implicit_motor_lines)


def run(sc, observers=()):
    sim = Simulation(sc, observers=observers)
    sim.world.implicit_motor_lines = IMPLICIT_LINES or sim.world.implicit_motor_lines
    try:
        t0 = time.process_time()
        res = sim.run()
        cpu = time.process_time() - t0
    finally:
        sim.close()
    return res, cpu


def row(gait, dt, duration, extra, shape=None):
    sc = scenario(gait, dt, duration, extra, shape)
    sat = Saturation(float(sc.robot.effort))
    res, cpu = run(sc, [sat])
    m = res.metrics
    obj = m["com.speed_mean_mps"] / m["energy.input_power_mean_W"] if m.get("energy.input_power_mean_W") else float("nan")
    return {"dt": dt, "status": res.status, "obj": obj, **{SHORT[k]: m.get(k, float("nan")) for k in METRICS},
            "sat_fl": sat.fl / max(sat.n, 1), "sat_line": sat.line / max(sat.n, 1), "cpu": cpu,
            "sat_fl_j": np.asarray(sat.fl_j, float) / max(sat.steps, 1),
            "sat_line_j": np.asarray(sat.line_j, float) / max(sat.steps, 1), "sat_last_s": sat.t_last}, res


def fmt(r):
    keys = ["obj", "speed", "power", "head_path", "amp", "tau_rms", "work", "ke_mean", "heading", "ledger", "sat_fl", "sat_line"]
    return (f"| {r['dt'] * 1e3:g} | {r['status']} | " + " | ".join(f"{r[k]:.5g}" for k in keys) + f" | {r['cpu']:.1f} |")


def trials_table(path, dts, duration, extra, shape):
    """One row per trial of the study's table: its objective at each step, and the largest relative change
    of the objective and of the headline metrics against the finest step."""
    import csv

    with open(path, newline="") as fh:
        trials = list(csv.DictReader(fh))
    print(f"\n### every trial of {path}, {duration:g} s, steps {[d * 1e3 for d in dts]} ms")
    print("| trial | α | ω | β | feasible | " + " | ".join(f"m/J {d * 1e3:g} ms" for d in dts)
          + " | obj Δ (coarsest vs finest) | worst headline Δ | sat FL | status |")
    print("|" + "---|" * (9 + len(dts)))
    for t in trials:
        gait = tuple(float(t[k]) for k in ("controller.alpha", "controller.omega", "controller.beta"))
        rows = [row(gait, dt, duration, extra, shape)[0] for dt in dts]
        ref = rows[-1]
        d_obj = (rows[0]["obj"] - ref["obj"]) / ref["obj"]
        worst, wk = 0.0, ""
        for k in ("speed", "head_path", "amp", "tau_rms", "work", "ke_mean"):
            d = abs(rows[0][k] - ref[k]) / max(abs(ref[k]), 1e-9)
            if d > worst:
                worst, wk = d, k
        print(f"| {t['trial']} | {gait[0]:.3f} | {gait[1]:.3f} | {gait[2]:.3f} | {t['feasible']} | "
              + " | ".join(f"{r['obj']:.4f}" for r in rows)
              + f" | {d_obj:+.2%} | {worst:.2%} ({wk}) | {rows[0]['sat_fl']:.3f} | {','.join(r['status'] for r in rows)} |",
              flush=True)


def perturbation(gait, dt, duration, extra, shape, eps):
    """The separation of a run from one started ≤ ``eps`` rad away per joint, and from a plain re-run."""
    runs = [run(scenario(gait, dt, duration, [*extra, *noise], shape))[0]
            for noise in ([], [f"init.joint_noise={eps}"], [])]
    a, b, c = (r.series for r in runs)
    t = a["t"]
    dq = np.abs(a["q"] - b["q"]).max(axis=1)
    dcom = np.linalg.norm(a["com"][:, :2] - b["com"][:, :2], axis=1)
    rerun = max(float(np.abs(a["q"] - c["q"]).max()), float(np.abs(a["com"] - c["com"]).max()))
    at = []
    for tt in (0.02, 0.1, 0.3, 1, 2, 4, 8, 12, 24, 48):
        if tt <= t[-1] + 1e-9:
            i = min(int(np.searchsorted(t, tt)), len(t) - 1)
            at.append(f"t = {tt:g} s: {dq[i]:.1e} rad, {dcom[i]:.1e} m")
    fit = (dq > 1e-14) & (dq < 1e-3) & (t > 0.5)
    rate = np.polyfit(t[fit], np.log(dq[fit]), 1)[0] if fit.sum() > 5 else float("nan")
    print(f"|   perturbed by ≤ {eps:g} rad at {dt * 1e3:g} ms: joints' / COM's separation {'; '.join(at)}; growth rate "
          f"of the joints' (t > 0.5 s) {rate:+.3f} 1/s; re-run's largest difference {rerun:.1e} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gait", action="append", default=[], help="alpha,omega,beta (rad, rad/s, rad)")
    ap.add_argument("--trials", default=None, help="a study's results.csv: every trial's gait, one summary row each")
    ap.add_argument("--dt", type=float, nargs="+", default=[0.002, 0.001, 0.0005])
    ap.add_argument("--duration", type=float, default=12.0)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--shape", default=None, help="init.shape (default: the scenario's straight start)")
    ap.add_argument("--perturb", type=float, default=0.0, help="also runs started this far away (rad) and a re-run")
    ap.add_argument("--per-joint", action="store_true", help="each joint's fractions of steps at the clip and on a line")
    ap.add_argument("--implicit-lines", action="store_true",
                    help="the motors' torque–speed lines taken implicitly (lab.core.actuators; as the v2 environments)")
    args = ap.parse_args(argv)
    global IMPLICIT_LINES
    IMPLICIT_LINES = args.implicit_lines
    print(f"load before: {os.getloadavg()[0]:.2f}")
    if args.trials:
        trials_table(args.trials, args.dt, args.duration, args.sets, args.shape)
    for g in args.gait:
        gait = tuple(float(x) for x in g.split(","))
        print(f"\n### gait α, ω, β = {gait}, {args.duration:g} s, set {args.sets or '-'}, shape {args.shape or 'straight'}, "
              f"motor lines {'implicit' if IMPLICIT_LINES else 'explicit'}")
        print("| dt ms | status | m/J | speed | power W | head path | amp | τ RMS | work J | KE mean | heading ° | ledger | sat FL | sat line | CPU s |")
        print("|" + "---|" * 16)
        rows = []
        for dt in args.dt:
            r, _ = row(gait, dt, args.duration, args.sets, args.shape)
            rows.append(r)
            print(fmt(r), flush=True)
            if args.per_joint:
                pj = lambda a: " ".join(f"{x:.4f}" for x in np.atleast_1d(a))
                print(f"|   per joint (tail first): at the clip {pj(r['sat_fl_j'])}; cut by a line {pj(r['sat_line_j'])}; "
                      f"last at t = {r['sat_last_s']:.3f} s |", flush=True)
            if args.perturb > 0:
                perturbation(gait, dt, args.duration, args.sets, args.shape, args.perturb)
        if len(rows) > 1:
            ref = rows[-1]
            print("relative to the finest:", ", ".join(
                f"{r['dt'] * 1e3:g} ms: obj {(r['obj'] - ref['obj']) / ref['obj']:+.2%} speed "
                f"{(r['speed'] - ref['speed']) / ref['speed']:+.2%} work {(r['work'] - ref['work']) / ref['work']:+.2%}"
                for r in rows[:-1]))
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
