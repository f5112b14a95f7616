"""A finished optimisation study's table (``results.csv`` of ``lab optimize``) read back: the optimum
against a baseline (the paper's choice, run as the study's trial 0), and one figure.

The papers' report sections read the tables committed beside them (``lab/papers/<paper>/optimum/``),
so a report shows a study without running it; ``lab optimize scenarios/studies/<study>.toml`` re-makes
one. The columns read are the ones ``lab optimize`` writes: ``trial``, ``state`` (COMPLETE / FAIL),
``baseline``, ``feasible``, ``best``, one column per searched field and one per objective (the metric's
name, or ``metric/per``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class Optimum:
    """The best feasible trial and the baseline of one study, for one objective."""

    objective: str
    direction: str  # "minimize" | "maximize"
    params: tuple[str, ...]
    best: dict  # the best trial's row
    baseline: dict | None  # the baseline trial's row (None: the study had none)
    trials: int  # finished trials
    failed: int  # of which failed (run not "ok", objective undefined)
    infeasible: int  # complete but outside a constraint

    @property
    def gap(self) -> float | None:
        """How much better the optimum is than the baseline, relative to the baseline's value (0.25: the
        optimum is 25 % higher for a maximised objective, 25 % lower for a minimised one)."""
        if self.baseline is None or not self.baseline.get("feasible") or self.baseline.get("state") != "COMPLETE":
            return None
        b, o = float(self.baseline[self.objective]), float(self.best[self.objective])
        if b == 0:
            return None
        return (o - b) / abs(b) if self.direction == "maximize" else (b - o) / abs(b)


def read(path: Path | str) -> pd.DataFrame:
    df = pd.read_csv(path)
    for c in ("baseline", "feasible", "best"):
        if c in df.columns:
            df[c] = df[c].astype(str).str.lower().isin(("true", "1"))
    return df


def optimum(df: pd.DataFrame, objective: str, direction: str, params: tuple[str, ...] | list[str]) -> Optimum:
    ok = df[(df["state"] == "COMPLETE") & df["feasible"]]
    if not len(ok):
        raise ValueError(f"no feasible complete trial for {objective}")
    i = ok[objective].idxmax() if direction == "maximize" else ok[objective].idxmin()
    base = df[df["baseline"]] if "baseline" in df.columns else df.iloc[:0]
    return Optimum(objective=objective, direction=direction, params=tuple(params), best=ok.loc[i].to_dict(),
                   baseline=base.iloc[0].to_dict() if len(base) else None, trials=len(df),
                   failed=int((df["state"] == "FAIL").sum()),
                   infeasible=int(((df["state"] == "COMPLETE") & ~df["feasible"]).sum()))


def fig_study(df: pd.DataFrame, opt: Optimum, title: str, labels: dict | None = None, axes=None):
    """(a) the objective over the trials with the best so far; then one panel per searched field: the
    objective against that field (a slice through the study). Feasible trials filled, infeasible hollow,
    the baseline a black star, the optimum a red diamond."""
    import matplotlib.pyplot as plt

    labels = labels or {}
    n = 1 + len(opt.params)
    own = axes is None
    if own:
        fig, axes = plt.subplots(1, n, figsize=(3.3 * n, 3.2), squeeze=False)
        axes = axes[0]
    else:
        fig = axes[0].figure
    ok = df[df["state"] == "COMPLETE"]
    feas, inf = ok[ok["feasible"]], ok[~ok["feasible"]]
    y = opt.objective
    ylab = labels.get(y, y)
    ax = axes[0]
    ax.plot(feas["trial"], feas[y], "o", ms=3.5, color="tab:blue", label="feasible")
    if len(inf):
        ax.plot(inf["trial"], inf[y], "o", ms=3.5, mfc="none", color="0.5", label="infeasible")
    v = feas.sort_values("trial")
    run = v[y].cummax() if opt.direction == "maximize" else v[y].cummin()
    ax.step(v["trial"], run, where="post", color="tab:red", lw=1.1, label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel(ylab, fontsize=8)
    for k, p in enumerate(opt.params, start=1):
        a = axes[k]
        a.plot(feas[p], feas[y], "o", ms=3.5, color="tab:blue")
        if len(inf):
            a.plot(inf[p], inf[y], "o", ms=3.5, mfc="none", color="0.5")
        a.set_xlabel(labels.get(p, p), fontsize=8)
    for a, xcol in zip(axes, ("trial", *opt.params)):
        if opt.baseline is not None and opt.baseline.get("state") == "COMPLETE":
            a.plot([opt.baseline[xcol]], [opt.baseline[y]], "*", ms=12, color="k", label="baseline", zorder=5)
        a.plot([opt.best[xcol]], [opt.best[y]], "D", ms=7, color="tab:red", mfc="none", mew=1.6, label="optimum",
               zorder=6)
        a.grid(alpha=0.3)
        a.tick_params(labelsize=7)
    axes[0].legend(fontsize=6, loc="best")
    if own:
        fig.suptitle(title, fontsize=9)
        fig.tight_layout()
    else:  # one row of a larger figure: the title on its first panel
        axes[0].set_title(title, fontsize=8, loc="left")
    return fig


def study_definition(name: str) -> dict:
    """A shipped study file (``scenarios/studies/<name>.toml``) as a table: what a report states about it."""
    import tomllib

    from lab.core.resources import data_dir

    return tomllib.loads((data_dir("scenarios/studies") / f"{name}.toml").read_text(encoding="utf-8"))


def params_text(row: dict, params, labels: dict | None = None, fmt: str = "{:.3g}") -> str:
    labels = labels or {}
    return ", ".join(f"{labels.get(p, p)} = {fmt.format(float(row[p]))}" for p in params)


__all__ = ["Optimum", "fig_study", "optimum", "params_text", "read", "study_definition"]
