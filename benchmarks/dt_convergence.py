"""Time-step convergence of every shipped scenario: its metrics at a candidate dt against dt/2, and whether
each check and study that reads the scenario still passes at that dt.

Two tables, written as Markdown (stdout, and ``--out FILE`` if given):

* **Candidate steps** (the default): for each shipped scenario (lab list), the run at its candidate dt
  (``--dt NAME=DT``; default the shipped one) and at dt/2, same seed and duration, with ``--set``
  overrides on both. One row per scenario: the candidate, the largest relative difference over its
  headline metrics (and which metric; the headline metrics are those every run reports,
  lab.core.metrics.run_metrics: the COM's mean speed, the head's path, the joints' amplitude and torque
  RMS, the input work, the mean kinetic energy; the flagship adds its turning radius and rhythm period), the energy ledger's residual at dt and dt/2, the run's status,
  every check that reads the scenario (``lab check NAME --set sim.dt=DT`` plus the same ``--set``
  overrides) with its pass/fail, the studies that read it (report sections, with ``--studies``: the
  section built with sim.dt and the overrides applied to this scenario's runs, except that a run which
  sets its own sim.dt keeps it; counts of pass / warn / fail rows), and the verdict: *converged* when every headline metric is within REL of the dt/2 run
  (or within the metric's floor ABS when it is near zero), the ledger's residual at dt stays within
  LEDGER_BAR, and every check (and study run) passes. Then a per-metric table (value at dt, at dt/2,
  relative difference).
* **Factor sweep** (``--factors 0.5 1 2 4``): the older table, each scenario at those multiples of its
  candidate dt against the finest; the largest step within the criterion.

The relative difference of a metric is |x(dt) − x(dt/2)| / max(|x(dt/2)|, ABS/REL): a metric near zero is
judged against its floor, as the criterion does. A run that diverges, ends other than "ok", or is refused
by the scenario's validation (the explicit friction's stability bound) fails its step.

This is a measurement, not a test: no scenario's dt is changed by it. Each run's CPU time is printed as a
real-time factor; the machine's load beside the tables.

Usage:
  python benchmarks/dt_convergence.py [--only NAME ...] [--dt NAME=DT ...] [--set [NAME:]KEY=VALUE ...]
                                      [--no-checks] [--studies] [--out FILE.md]
  python benchmarks/dt_convergence.py --factors 0.5 1 2 4 [--only NAME ...] [--dt NAME=DT ...] [--set ...]

``--set KEY=VALUE`` applies to every scenario, ``--set NAME:KEY=VALUE`` to scenario NAME only (e.g.
``--set snake_serpenoid:controller.servo=implicit``); both go to the runs, the checks and the studies.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from pathlib import Path

from lab.core import scenario as scn
from lab.core.errors import Diverged, LabError
from lab.core.runner import run_scenario

REL = 0.02  # reporting criterion: 2 % of the dt/2 run's value (what a figure or a paper comparison resolves)
ABS = {"energy.input_work_J": 1e-4, "energy.kinetic_mean_J": 1e-5, "com.speed_mean_mps": 1e-4,
       "head.path_length_m": 1e-3, "joints.amplitude_mean_rad": 1e-3, "joints.torque_rms_Nm": 1e-4,
       "turn.radius_fit_m": 1e-3, "rhythm.period_s": 1e-2}  # floors for metrics that are near zero
ENERGY_REL = 0.001  # factor sweep: the ledger closes to 0.1 % (the flagship's goal), or no worse than at the candidate
LEDGER_BAR = 0.01  # candidate table: a run whose ledger leaves 1 % is broken (the energy_balance check holds the flagship's own bar)
HEADLINE = ["com.speed_mean_mps", "head.path_length_m", "joints.amplitude_mean_rad", "joints.torque_rms_Nm",
            "energy.input_work_J", "energy.kinetic_mean_J"]
EXTRA = {"snake_passive_creeping": ["turn.radius_fit_m", "rhythm.period_s"]}  # the flagship's gait analyses
DURATION = {"snake_passive_creeping": None,  # None: the scenario's own (30 s, the gait start-up)
            "snake_unified_locomotion": 1.0, "snake_unified_manipulation": 1.0}
# tracked_stairs takes the default 2 s like tracked_step_climb: a 1-s run ends at its first flip (0.985–0.99 s),
# so the second half's torque RMS weighed 0–3 samples of the arm's flip torque (5 N·m) against the approach's
# ~0.03 N·m and moved 13–41 % per halving of the step at every step tried
DEFAULT_DURATION = 2.0
REFUSALS: dict[tuple[str, float], str] = {}  # (scenario, dt) → the validation's message

# What reads each scenario (from the checks' and report sections' code; `lab check --list`, `lab report
# --list`): the checks run the scenario with the overrides given to them; the studies are report sections
# whose runs use it.
CHECKS = {
    "snake_passive_creeping": ["friction_block", "energy_balance", "turning_law"],
    "tracked_slope": ["belt_speed"],
    "tracked_step_climb": ["step_climb"],
    "snake_unified_manipulation": ["unified_manipulation"],
    "snake_unified_locomotion": ["unified_locomotion"],
    "snake_head_tracking": ["pfl_engine"],
    "eel_forward_turn": ["eel_engine", "hydro_decay", "step_convergence"],
}
STUDIES = {
    "snake_passive_creeping": ["wang2011_creeping"],
    "snake_drag": ["wang2011_creeping"],  # the drag study (passive creeping and the serpenoid on it)
    "snake_serpenoid": ["wang2011_creeping"],  # the surfaces table
    "snake_unified_manipulation": ["wang2011_unified"],
    "snake_unified_locomotion": ["wang2011_unified"],
    "tracked_step_climb": ["hu2013_tracked"],
    "snake_head_tracking": ["guo2015_wheeled"],
    "eel_forward_turn": ["zhang2018_eel"],
}


def overrides_for(name: str, sets: list[str]) -> list[str]:
    """The ``--set`` items that apply to scenario ``name`` (``KEY=VALUE`` or ``name:KEY=VALUE``)."""
    out = []
    for s in sets:
        head, sep, rest = s.partition(":")
        if sep and "=" not in head:
            if head == name:
                out.append(rest)
        else:
            out.append(s)
    return out


def run_at(name: str, dt: float, duration: float | None, sets: list[str]) -> tuple[dict | str | None, float]:
    """(metrics, CPU s); metrics None if the run diverged or ended other than "ok", "refused" if the
    scenario's validation refuses the step (the explicit friction's stability bound)."""
    over = [*sets, f"sim.dt={dt!r}"] + ([] if duration is None else [f"sim.duration={duration!r}"])
    c0 = time.process_time()
    try:
        sc = scn.load(name, over)
    except LabError as exc:
        REFUSALS[(name, dt)] = str(exc).splitlines()[0][:120]
        return "refused", 0.0
    try:
        res = run_scenario(sc)
    except Diverged:
        return None, time.process_time() - c0
    m = res.metrics
    return (None if m.get("status") != "ok" else m), time.process_time() - c0


def rel_diff(metric: str, a: float, ref: float) -> float:
    """|a − ref| over max(|ref|, the metric's floor / REL); nan-equal is 0, one nan is inf."""
    if not (math.isfinite(a) and math.isfinite(ref)):
        return 0.0 if (math.isnan(a) and math.isnan(ref)) else math.inf
    return abs(a - ref) / max(abs(ref), ABS.get(metric, 0.0) / REL, 1e-300)


def within(metric: str, a: float, ref: float) -> bool:
    return rel_diff(metric, a, ref) <= REL


def run_checks(names: list[str], overrides: list[str]) -> dict[str, str]:
    """Each check's verdict with the overrides: "pass", "FAIL (figures)" or "error: …"."""
    from lab.checks import CHECKS as REGISTRY

    out = {}
    for c in names:
        try:
            figs = REGISTRY[c].fn(list(overrides))
        except Exception as exc:  # a refused step, a blow-up: the check does not pass
            out[c] = f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
            continue
        bad = [k for k, f in figs.items() if not f.passed]
        out[c] = "pass" if not bad else "FAIL (" + ", ".join(bad) + ")"
    return out


def run_studies(sections: list[str], scenario: str, overrides: list[str]) -> dict[str, str]:
    """Each report section built with ``overrides`` on the runs of ``scenario``: its rows' marks counted."""
    from lab.report.core import Context, load_sections

    class Overridden(Context):
        def run_many(self, runs):
            def add(ov):
                # a run that pins its own step (sim.dt in its overrides: e.g. wang2011_creeping's GAIN_STEP)
                # keeps it, with its sampling: the study states it needs that step
                own = ov if isinstance(ov, dict) else dict(i.partition("=")[::2] for i in (ov or []))
                pinned = {"sim.dt", "sim.record_every"} if "sim.dt" in {k.strip() for k in own} else set()
                keep = [i for i in overrides if i.partition("=")[0].strip() not in pinned]
                if isinstance(ov, dict):
                    extra = {}
                    for item in keep:
                        key, _, value = item.partition("=")
                        extra[key.strip()] = scn.parse_value(value.strip())
                    return {**ov, **extra}
                return [*(ov or []), *keep]
            return super().run_many([(n, s, add(ov) if s == scenario else ov) for n, s, ov in runs])

    registry = load_sections()
    out = {}
    for key in sections:
        with tempfile.TemporaryDirectory(prefix="lab-dtconv-") as tmp:
            ctx = Overridden(Path(tmp) / "report", workers=1)
            ctx.section = key
            try:
                res = registry[key].func(ctx)
            except Exception as exc:
                out[key] = f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
                continue
            finally:
                ctx.close()
        marks = [r.mark for r in res.table]
        counts = {m: marks.count(m) for m in ("pass", "warn", "fail")}
        out[key] = ("pass" if not counts["fail"] else "FAIL") + \
            f" ({counts['pass']} pass, {counts['warn']} warn, {counts['fail']} fail)"
    return out


def candidate_table(names: list[str], dts: dict[str, float], sets: list[str], checks: bool, studies: bool) -> str:
    lines = [f"Criterion: every headline metric within {REL:.0%} of the dt/2 run (or its floor), the ledger's "
             f"residual ≤ {LEDGER_BAR:.0%} at dt, every check (and study run) passing. "
             f"Overrides: {' '.join(sets) or 'none'}. Load average {os.getloadavg()[0]:.1f} at the start.", "",
             "| scenario | duration s | dt (shipped) | max rel. diff vs dt/2 | energy residual dt / dt/2 | "
             "real-time (CPU) dt | checks at dt | studies at dt | converged |",
             "|---|---|---|---|---|---|---|---|---|"]
    detail = ["| scenario | metric | at dt | at dt/2 | rel. diff |", "|---|---|---|---|---|"]
    for name in names:
        sc = scn.load(name, [])
        own = overrides_for(name, sets)
        dt = dts.get(name, sc.sim.dt)
        duration = DURATION.get(name, DEFAULT_DURATION)
        dur = sc.sim.duration if duration is None else min(duration, sc.sim.duration)
        (m, cpu), (ref, _) = run_at(name, dt, duration, own), run_at(name, dt / 2, duration, own)
        metrics = HEADLINE + EXTRA.get(name, [])
        ok = isinstance(m, dict) and isinstance(ref, dict)
        worst, worst_key = 0.0, ""
        if ok:
            for key in metrics:
                a, r = float(m.get(key, math.nan)), float(ref.get(key, math.nan))
                d = rel_diff(key, a, r)
                if d > worst:
                    worst, worst_key = d, key
                detail.append(f"| {name} | {key} | {a:.4g} | {r:.4g} | {d:.2%}{'' if d <= REL else ' ✗'} |")
            e, e_ref = m["energy.balance_residual_rel"], ref["energy.balance_residual_rel"]
            e_ok = abs(e) <= LEDGER_BAR
            energy = f"{e:.2e} / {e_ref:.2e}" + ("" if e_ok else " ✗")
            diff = f"{worst:.2%} ({worst_key})" + ("" if worst <= REL else " ✗")
            ok = ok and e_ok and worst <= REL
        else:
            def state(x, step):
                if isinstance(x, dict):
                    return "ok"
                return f"refused ({REFUSALS.get((name, step), '')})" if x == "refused" else "diverged / not ok"

            energy = "–"
            diff = f"dt: {state(m, dt)}; dt/2: {state(ref, dt / 2)}"
        over = [*own, f"sim.dt={dt!r}"]
        chk = run_checks(CHECKS.get(name, []), over) if checks else {}
        stu = run_studies(STUDIES.get(name, []), name, over) if studies else {}
        ok = ok and all(v == "pass" for v in chk.values()) and all(v.startswith("pass") for v in stu.values())
        chk_s = "; ".join(f"{k}: {v}" for k, v in chk.items()) or ("–" if checks else "not run")
        stu_s = "; ".join(f"{k}: {v}" for k, v in stu.items()) or \
            ("–" if not STUDIES.get(name) else "not run (--studies): " + ", ".join(STUDIES[name]))
        rt = f"{dur / cpu:.1f}×" if isinstance(m, dict) and cpu > 0 else "–"
        lines.append(f"| {name} | {dur:g} | {dt * 1e3:g} ms ({sc.sim.dt * 1e3:g} ms) | {diff} | {energy} | {rt} | "
                     f"{chk_s} | {stu_s} | {'yes' if ok else '**no**'} |")
        print(lines[-1], flush=True)
    lines += ["", *detail, "", f"Load average {os.getloadavg()[0]:.1f} at the end."]
    return "\n".join(lines)


def factor_table(names: list[str], dts: dict[str, float], sets: list[str], factors: list[float]) -> str:
    lines = [f"Load average at start: {os.getloadavg()[0]:.1f}; criterion: |Δ| ≤ {REL:.0%} of the finest run "
             f"(or the metric's floor), energy residual ≤ max({ENERGY_REL:.1%}, the candidate dt's)", "",
             "| scenario | duration s | metric | " + " | ".join(f"{f:g}·dt" for f in factors) + " |",
             "|---|---|---|" + "---|" * len(factors)]
    for name in names:
        sc = scn.load(name, [])
        own = overrides_for(name, sets)
        dt0 = dts.get(name, sc.sim.dt)
        duration = DURATION.get(name, DEFAULT_DURATION)
        dur = sc.sim.duration if duration is None else min(duration, sc.sim.duration)
        runs = {f: run_at(name, dt0 * f, duration, own) for f in factors}
        refused = {f for f, (m, _) in runs.items() if m == "refused"}
        runs = {f: ((None, cpu) if m == "refused" else (m, cpu)) for f, (m, cpu) in runs.items()}
        ref = runs[min(factors)][0]
        shipped = runs.get(1.0, (None, 0))[0]
        e_bar = max(ENERGY_REL, abs(shipped["energy.balance_residual_rel"]) if shipped else 0.0)
        ok = {f: m is not None and abs(m["energy.balance_residual_rel"]) <= e_bar for f, (m, _) in runs.items()}
        for key in HEADLINE + EXTRA.get(name, []):
            cells = []
            for f in factors:
                m = runs[f][0]
                if m is None:
                    cells.append("refused (bound)" if f in refused else "diverged")
                    continue
                v = float(m.get(key, float("nan")))
                good = ref is not None and within(key, v, float(ref.get(key, float("nan"))))
                ok[f] = ok[f] and good
                cells.append(f"{v:.4g}" + ("" if good else " ✗"))
            lines.append(f"| {name} | {dur:g} | {key} | " + " | ".join(cells) + " |")
        cells = [(("refused (bound)" if f in refused else "diverged") if m is None
                  else f"{m['energy.balance_residual_rel']:.2e}"
                  + ("" if abs(m["energy.balance_residual_rel"]) <= e_bar else " ✗")) for f, (m, _) in runs.items()]
        lines.append(f"| {name} | {dur:g} | energy residual (rel) | " + " | ".join(cells) + " |")
        cells = [(f"{dur / cpu:.1f}×" if cpu > 0 else "–") for _, cpu in runs.values()]
        lines.append(f"| {name} | {dur:g} | real-time factor (CPU) | " + " | ".join(cells) + " |")
        allowed = [f for f in factors if f >= 1.0 and ok[f] and all(ok[g] for g in factors if 1.0 <= g < f)]
        best = max(allowed) * dt0 if allowed else None
        lines.append(f"| {name} | {dur:g} | **largest dt within criterion** | "
                     f"{'none ≥ dt' if best is None else f'{best * 1e3:g} ms (candidate {dt0 * 1e3:g} ms)'} |"
                     + " |" * (len(factors) - 1))
        print("\n".join(lines[-(len(HEADLINE) + len(EXTRA.get(name, [])) + 3):]), flush=True)
    lines.append(f"Load average at end: {os.getloadavg()[0]:.1f}")
    return "\n".join(lines)


def parse_dts(items: list[str]) -> dict[str, float]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            dt = float(value)
        except ValueError:
            dt = math.nan
        if not sep or not dt > 0:
            raise SystemExit(f"error: --dt {item}: expected NAME=DT with DT > 0 in seconds, e.g. snake_serpenoid=0.005")
        out[name.strip()] = dt
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=[], help="scenarios whose name contains one of these words")
    ap.add_argument("--dt", action="append", default=[], metavar="NAME=DT", help="candidate step of one scenario [s]")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="[NAME:]KEY=VALUE",
                    help="scenario override for every scenario (or NAME's only), on every run, check and study")
    ap.add_argument("--factors", nargs="*", type=float, default=None, help="the factor sweep instead (e.g. 0.5 1 2 4)")
    ap.add_argument("--no-checks", action="store_true", help="skip the checks that read each scenario")
    ap.add_argument("--studies", action="store_true", help="also build the report sections that read each scenario")
    ap.add_argument("--out", help="also write the Markdown here")
    args = ap.parse_args()
    names = sorted(p.stem for p in scn.list_scenarios())
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    dts = parse_dts(args.dt)
    unknown = set(dts) - set(names)
    if unknown:
        raise SystemExit(f"error: --dt: no selected scenario named {sorted(unknown)}; allowed: {', '.join(names)}")
    if args.factors:
        text = factor_table(names, dts, args.sets, args.factors)
    else:
        text = candidate_table(names, dts, args.sets, checks=not args.no_checks, studies=args.studies)
    print()
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
