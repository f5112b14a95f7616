"""Writing a run's outputs atomically: everything goes to a temporary sibling folder that is renamed
into place at the end, so a folder that exists is complete (sweeps rely on this to resume)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np


def write_text_atomic(path: Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; results are meant to be shared
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path: Path, obj) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


@contextmanager
def atomic_dir(final: Path):
    """Yield a temporary folder; on success it replaces ``final`` in one rename."""
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.", suffix=".partial"))
    os.chmod(tmp, 0o755)  # mkdtemp makes 0700
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, final)


def timeseries_csv(series: dict) -> str:
    """Flat CSV: one row per recorded sample; per-link and per-joint columns are numbered from the tail."""
    cols = {"t": series["t"]}
    for name in ("E", "E_T", "E_R", "P_in", "P_d", "W_in", "W_d"):
        cols[name] = series[name]
    n_links = series["xy"].shape[1]
    for i in range(n_links):
        cols[f"x_{i}"] = series["xy"][:, i, 0]
        cols[f"y_{i}"] = series["xy"][:, i, 1]
    for i in range(n_links):
        cols[f"yaw_{i}"] = series["yaw"][:, i]
    for j in range(series["q"].shape[1]):
        cols[f"q_{j}"] = series["q"][:, j]
    for j in range(series["q"].shape[1]):
        cols[f"qd_{j}"] = series["qd"][:, j]
    for j in range(series["q"].shape[1]):
        cols[f"tau_{j}"] = series["tau"][:, j]
    header = ",".join(cols)
    data = np.column_stack(list(cols.values())) if len(series["t"]) else np.zeros((0, len(cols)))
    lines = [header] + [",".join(format(float(x), ".9g") for x in row) for row in data]
    return "\n".join(lines) + "\n"


def write_run(out: Path, result, plots: bool = True) -> Path:
    """timeseries.csv, metrics.json, the resolved scenario.toml and PNG plots, atomically."""
    with atomic_dir(out) as tmp:
        (tmp / "scenario.toml").write_text(result.scenario.to_toml(), encoding="utf-8")
        (tmp / "timeseries.csv").write_text(timeseries_csv(result.series), encoding="utf-8")
        from .metrics import json_safe

        metrics = json_safe(result.metrics)
        if result.error:
            metrics["error"] = result.error
        (tmp / "metrics.json").write_text(
            json.dumps(metrics, indent=2, sort_keys=True, default=_json_default, allow_nan=False) + "\n")
        if plots and len(result.series["t"]) > 1:
            from .analysis.plots import run_plots

            run_plots(result, tmp)
    return out
