"""What a study leaves: the table of every trial, the best trials as scenario files (re-run to confirm
they reproduce), and the plots (history, parameter importance, the Pareto front).

Objective values and constraint violations are computed from a trial's row by :func:`evaluate`, the one
function the loop tells Optuna from and the table is built from, so the two never disagree.

Parameter importance: Optuna's PED-ANOVA (Watanabe et al. 2023), which needs no scikit-learn (fANOVA,
Optuna's default, and the mean-decrease-impurity evaluator both fit random forests from scikit-learn,
a heavy dependency for one plot). It says how much each field's value matters for reaching the top
quantile of the objective (``TARGET_QUANTILE``) within the searched box; complete trials only.
"""

from __future__ import annotations

import json
import logging
import math
import re
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lab.core import writes
from lab.optimize.study import MAX_BEST, Study
from lab.sweep import table as sweep_table

log = logging.getLogger(__name__)

TARGET_QUANTILE = 0.25  # PED-ANOVA's "top" (0.1 by default): a quarter, so a 30-trial study has 7 trials in it
BOOK = ("run_id", "trial", "status", "error", "task_wall_s", "worker")
TIMING = ("wall_time_s", "realtime_factor")  # the machine's speed, not the run's result: not compared on re-run


_BEST_NAME = re.compile(r"t\d{5}\.toml")


def _only_ours(best: Path) -> None:
    """``best/`` holds only the files this command writes there (``t00012.toml``), and is a real folder,
    before it is replaced; else a LabError naming what is in the way."""
    from lab.core.errors import LabError

    if best.is_symlink() or not best.is_dir():
        raise LabError(str(best), "is not the folder lab optimize wrote (a link or a file); move it away")
    other = sorted(e.name for e in best.iterdir() if not (_BEST_NAME.fullmatch(e.name) and e.is_file()
                                                           and not e.is_symlink()))
    if other:
        raise LabError(str(best), f"holds files lab optimize did not write ({', '.join(other[:5])}); move them "
                                  "away, the folder is replaced with the new best trials")


def run_id(number: int) -> str:
    """A trial's row and run id: ``t00012``."""
    return f"t{number:05d}"


@dataclass(frozen=True)
class Evaluation:
    values: list | None  # None: the trial failed (run not "ok", objective missing or not finite)
    constraints: list  # one number per constraint, <= 0 when it holds
    error: str = ""

    @property
    def feasible(self) -> bool:
        return self.values is not None and all(c <= 0 for c in self.constraints)


def _number(v) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)) and math.isfinite(v):
        return float(v)
    return None


def violation(c, v) -> float:
    """How far a metric value is outside a constraint (<= 0: it holds). A missing value violates by 1."""
    if c.equals is not None:
        return 0.0 if v is not None and v == c.equals else 1.0
    x = _number(v)
    if x is None:
        return 1.0
    parts = [c.min - x] if c.min is not None else []
    parts += [x - c.max] if c.max is not None else []
    return float(max(parts))


def evaluate(study: Study, row: dict) -> Evaluation:
    """A trial's objective values and constraint violations from its row (see the module doc)."""
    cons = [violation(c, row.get(c.metric)) for c in study.constraints]
    if row.get("status") != "ok":
        return Evaluation(None, cons, f"run {row.get('status', 'failed')}: {row.get('error', '')}".rstrip(": "))
    values = []
    for o in study.objectives:
        x = _number(row.get(o.metric))
        if x is None:
            return Evaluation(None, cons, f"objective {o.metric} is {row.get(o.metric)!r}")
        if o.per:
            d = _number(row.get(o.per))
            if d is None or d <= 0:
                return Evaluation(None, cons, f"objective {o.name}: {o.per} = {row.get(o.per)!r} is not > 0")
            x = x / d
        values.append(x)
    return Evaluation(values, cons)


# ------------------------------------------------------------------ the table


def table(study: Study, ostudy, out: Path) -> pd.DataFrame:
    """Every finished trial: trial, state, the params, the objectives, feasibility, then every metric."""
    import optuna

    fin = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
    trials = ostudy.get_trials(deepcopy=False, states=fin)
    rows = sweep_table.read_rows(out, [run_id(t.number) for t in trials])
    keys = [p.key for p in study.params]
    recs = []
    for t in trials:
        row = rows.get(run_id(t.number), {"status": t.user_attrs.get("status", "failed")})
        ev = evaluate(study, row)
        rec = {"trial": t.number, "run_id": run_id(t.number), "state": t.state.name,
               "status": row.get("status", "failed"), "baseline": bool(t.user_attrs.get("baseline", False))}
        rec.update({k: t.params.get(k) for k in keys})
        for i, o in enumerate(study.objectives):
            rec[o.name] = ev.values[i] if ev.values is not None else float("nan")
        rec["feasible"] = ev.feasible
        rec["violation"] = float(max(ev.constraints)) if ev.constraints else 0.0
        metrics = {k: v for k, v in row.items() if k not in BOOK and k not in keys and k not in rec}
        rec.update(dict(sorted(metrics.items())))
        rec["error"] = ev.error or row.get("error", "")
        rec["task_wall_s"] = row.get("task_wall_s")
        rec["worker"] = row.get("worker")
        recs.append(rec)
    df = pd.DataFrame(recs)
    if len(df):
        df["best"] = df["trial"].isin(best_trials(study, df))
    return df


def write_tables(out: Path, df: pd.DataFrame) -> None:
    """results.csv and results.parquet, by the write protocol (a reader never sees half a table)."""
    out = Path(out)
    writes.write_with(out / "results.csv", lambda p: df.to_csv(p, index=False))
    fixed = df.copy()
    for c in fixed.columns:  # one type per parquet column: a metric that is sometimes None, sometimes a flag
        if fixed[c].dtype == object:
            fixed[c] = fixed[c].map(lambda v: v if v is None or isinstance(v, str) else json.dumps(v))
    writes.write_with(out / "results.parquet", lambda p: fixed.to_parquet(p, index=False))


def _signed(study: Study, df: pd.DataFrame) -> np.ndarray:
    """Objective values turned to "lower is better" (maximised ones negated), shape (trials, objectives)."""
    cols = [o.name for o in study.objectives]
    sign = np.array([1.0 if o.direction == "minimize" else -1.0 for o in study.objectives])
    return df[cols].to_numpy(dtype=float) * sign


def best_trials(study: Study, df: pd.DataFrame) -> list[int]:
    """The best feasible complete trial (one objective; ties: the earliest), or the Pareto front (several:
    no other feasible trial is at least as good in every objective and better in one), at most MAX_BEST."""
    ok = df[(df["state"] == "COMPLETE") & df["feasible"].astype(bool)]
    if not len(ok):
        return []
    f = _signed(study, ok)
    nums = ok["trial"].to_numpy()
    if f.shape[1] == 1:
        return [int(nums[int(np.argmin(f[:, 0]))])]
    front = []
    for i in range(len(f)):
        dominated = np.any(np.all(f <= f[i], axis=1) & np.any(f < f[i], axis=1))
        if not dominated:
            front.append(i)
    front.sort(key=lambda i: (f[i, 0], nums[i]))
    if len(front) > MAX_BEST:  # spread along the first objective
        pick = np.unique(np.linspace(0, len(front) - 1, MAX_BEST).round().astype(int))
        front = [front[i] for i in pick]
    return [int(nums[i]) for i in front]


# ------------------------------------------------------------------ best trials


def _metrics(row: dict, keys) -> dict:
    return {k: v for k, v in row.items() if k not in BOOK and k not in TIMING and k not in keys}


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def write_best(study: Study, df: pd.DataFrame, out: Path, pool, session: str, quiet: bool = False) -> bool:
    """best/<run id>.toml for every best trial (a runnable scenario: ``lab run best/t00012.toml``), each
    re-run from that file on ``pool`` (None: not re-run) and compared metric by metric with the trial's
    row; best.json records the comparison. Returns False if a best trial did not reproduce."""
    from lab.core import scenario as scn
    from lab.sweep.execute import Task
    out = Path(out)
    best = [int(t) for t in df.loc[df["best"], "trial"]] if len(df) else []
    keys = [p.key for p in study.params]
    rows = sweep_table.read_rows(out, [run_id(n) for n in best])
    entries = []
    with writes.temporary(out / "best", folder=True) as tmp:
        for n in best:
            rid = run_id(n)
            rec = df.loc[df["trial"] == n].iloc[0]
            params = {k: (int(rec[k]) if p.integer else float(rec[k])) for k, p in zip(keys, study.params)}
            sc = scn.load(study.scenario, study.overrides(params))
            text = (f"# trial {n} of the study {study.name!r} (lab optimize): "
                    + ", ".join(f"{k} = {v!r}" for k, v in params.items()) + "\n"
                    + "".join(f"# {o.name} ({o.direction}) = {rec[o.name]!r}\n" for o in study.objectives)
                    + sc.to_toml())
            (tmp / f"{rid}.toml").write_text(text, encoding="utf-8")
            entries.append({"trial": n, "run_id": rid, "params": params, "scenario": f"best/{rid}.toml",
                            "values": {o.name: float(rec[o.name]) for o in study.objectives}})
        old = out / "best"
        if os.path.lexists(old):
            _only_ours(old)  # a user's file dropped into best/ is refused, never removed with the folder
            aside = writes.temp_path(old)
            os.rename(old, aside)
            writes.publish(tmp, old)
            writes.remove(aside)
        else:
            writes.publish(tmp, old)
    all_ok = True
    if pool is not None and entries:
        tasks = {}
        for e in entries:
            sc = scn.load(str(out / e["scenario"]))  # from the file, as a user would run it
            t = Task(run_id=f"best-{e['run_id']}", scenario=sc, info={"trial": e["trial"]}, session=session)
            tasks[t.run_id] = e
            pool.submit(t)
        while len(pool):
            task, row, _ = pool.next_done()
            e = tasks[task.run_id]
            before = _metrics(rows.get(e["run_id"], {}), keys)
            again = _metrics(row, keys + ["trial"])
            differ = sorted(k for k in set(before) | set(again) if not _same(before.get(k), again.get(k)))
            e["reproduced"] = not differ
            e["differing"] = differ
            all_ok &= not differ
    base = df[df["baseline"]] if len(df) else df
    summary = {"study": study.name, "objectives": [o.to_dict() | {"name": o.name} for o in study.objectives],
               "constraints": [c.text() for c in study.constraints], "best": entries,
               "baseline": None}
    if len(base):
        b = base.iloc[0]
        summary["baseline"] = {"trial": int(b["trial"]), "state": b["state"], "feasible": bool(b["feasible"]),
                               "params": {k: b[k] for k in keys},
                               "values": {o.name: float(b[o.name]) for o in study.objectives}}
    writes.write_json(out / "best.json", summary, default=_json_default)
    if not all_ok and not quiet:
        for e in entries:
            if not e.get("reproduced", True):
                print(f"  best trial {e['trial']} did not reproduce from {e['scenario']}: {', '.join(e['differing'])} "
                      "differ", file=sys.stderr)
    return all_ok


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    raise TypeError(type(o).__name__)


def summary(study: Study, df: pd.DataFrame, out: Path, wall: float) -> None:
    n = len(df)
    failed = int((df["state"] == "FAIL").sum()) if n else 0
    print(f"{n}/{study.trials} trials finished ({n - failed} complete, {failed} failed) in {wall:.1f} s; "
          f"results.parquet, results.csv, best.json, best/, history.png, importance.png in {out}/")
    if not n:
        return
    for _, r in df[df["best"]].iterrows():
        vals = ", ".join(f"{o.name} = {r[o.name]:.4g}" for o in study.objectives)
        pars = ", ".join(f"{p.key} = {r[p.key]:.4g}" for p in study.params)
        print(f"  best trial {int(r['trial'])}: {vals}  ({pars})")
    for _, r in df[df["baseline"]].iterrows():
        vals = ", ".join(f"{o.name} = {r[o.name]:.4g}" for o in study.objectives)
        print(f"  baseline (trial {int(r['trial'])}): {vals}" + ("" if r["feasible"] else "  [infeasible]"))


# ------------------------------------------------------------------ plots


def plots(study: Study, ostudy, df: pd.DataFrame, out: Path) -> None:
    """history.png, importance.png and (several objectives) front.png, by the write protocol."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name, fig in (("history", fig_history(study, df)), ("importance", fig_importance(study, ostudy)),
                      ("front", fig_front(study, df) if len(study.objectives) > 1 else None)):
        if fig is None:
            continue
        writes.write_with(out / f"{name}.png", lambda p, f=fig: f.savefig(p, dpi=110, format="png"))
        plt.close(fig)


def fig_history(study: Study, df: pd.DataFrame, axes=None):
    """Each objective over the trials: feasible (filled), infeasible (hollow), the best so far (line),
    the baseline (star)."""
    import matplotlib.pyplot as plt

    k = len(study.objectives)
    if axes is None:
        fig, axes = plt.subplots(k, 1, figsize=(7, 2.8 * k), squeeze=False)
        axes = axes[:, 0]
    else:
        fig = axes[0].figure
    for ax, o in zip(axes, study.objectives):
        if len(df):
            ok = df[df["state"] == "COMPLETE"]
            feas = ok[ok["feasible"].astype(bool)]
            inf = ok[~ok["feasible"].astype(bool)]
            ax.plot(feas["trial"], feas[o.name], "o", ms=4, color="tab:blue", label="feasible")
            if len(inf):
                ax.plot(inf["trial"], inf[o.name], "o", ms=4, mfc="none", color="0.5", label="infeasible")
            if len(feas):
                v = feas.sort_values("trial")
                run = v[o.name].cummin() if o.direction == "minimize" else v[o.name].cummax()
                ax.step(v["trial"], run, where="post", color="tab:red", lw=1.2, label="best so far")
            b = df[df["baseline"] & (df["state"] == "COMPLETE")]
            if len(b):
                ax.plot(b["trial"], b[o.name], "*", ms=13, color="k", label="baseline")
            nfail = int((df["state"] == "FAIL").sum())
            if nfail:
                ax.text(0.99, 0.02, f"{nfail} failed trial(s) not shown", transform=ax.transAxes, ha="right",
                        va="bottom", fontsize=8, color="0.4")
        ax.set_ylabel(_label(o), fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[-1].set_xlabel("trial")
    fig.suptitle(f"{study.name}: optimisation history", fontsize=10)
    fig.tight_layout()
    return fig


def _label(o) -> str:
    return o.metric + (f"\n/ {o.per}" if o.per else "") + f"\n({o.direction})"


def importances(study: Study, ostudy) -> list[dict | None]:
    """PED-ANOVA importances per objective (None where there are too few complete trials)."""
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances

    first = study.objectives[0].direction
    out = []
    complete = ostudy.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    for i, o in enumerate(study.objectives):
        sign = 1.0 if o.direction == first else -1.0  # PED-ANOVA ranks by the first direction
        if len(complete) < 8 or len(study.params) < 1:
            out.append(None)
            continue
        try:
            with _warnings_off():
                imp = get_param_importances(ostudy, evaluator=PedAnovaImportanceEvaluator(
                    target_quantile=TARGET_QUANTILE), target=lambda t, i=i, s=sign: s * t.values[i], normalize=True)
            out.append(dict(imp))
        except Exception as exc:  # noqa: BLE001 - too few distinct values: no bar, a note
            log.info("importance of %s: %s", o.name, exc)
            out.append(None)
    return out


class _warnings_off:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)


def fig_importance(study: Study, ostudy, imps=None):
    import matplotlib.pyplot as plt

    imps = importances(study, ostudy) if imps is None else imps
    k = len(study.objectives)
    fig, axes = plt.subplots(1, k, figsize=(3.2 + 2.6 * k, 0.6 + 0.45 * len(study.params) + 1), squeeze=False)
    for ax, o, imp in zip(axes[0], study.objectives, imps):
        names = [p.key for p in study.params]
        if imp is None:
            ax.text(0.5, 0.5, "too few complete trials\nfor an importance", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8)
            ax.set_yticks([])
        else:
            vals = [imp.get(n, 0.0) for n in names]
            ax.barh(range(len(names)), vals, color="tab:green")
            ax.set_yticks(range(len(names)), names, fontsize=8)
            ax.set_xlim(0, 1)
        ax.set_title(o.name, fontsize=8)
        ax.set_xlabel("importance (PED-ANOVA)", fontsize=8)
    fig.suptitle(f"{study.name}: which field matters for the top {TARGET_QUANTILE:.0%}", fontsize=10)
    fig.tight_layout()
    return fig


def fig_front(study: Study, df: pd.DataFrame, ax=None):
    """The first two objectives of every complete trial, the Pareto front joined, the baseline starred."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4.5))
    else:
        fig = ax.figure
    a, b = study.objectives[0], study.objectives[1]
    if len(df):
        ok = df[df["state"] == "COMPLETE"]
        feas = ok[ok["feasible"].astype(bool)]
        ax.plot(feas[a.name], feas[b.name], "o", ms=4, color="tab:blue", alpha=0.6, label="feasible")
        inf = ok[~ok["feasible"].astype(bool)]
        if len(inf):
            ax.plot(inf[a.name], inf[b.name], "o", ms=4, mfc="none", color="0.5", label="infeasible")
        front = df[df["best"]].sort_values(a.name)
        ax.plot(front[a.name], front[b.name], "-o", color="tab:red", ms=5, label="Pareto front")
        base = df[df["baseline"] & (df["state"] == "COMPLETE")]
        if len(base):
            ax.plot(base[a.name], base[b.name], "*", ms=14, color="k", label="baseline")
    ax.set_xlabel(_label(a).replace("\n", " "), fontsize=8)
    ax.set_ylabel(_label(b), fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.suptitle(f"{study.name}: trade-off", fontsize=10)
    fig.tight_layout()
    return fig
