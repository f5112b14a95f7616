"""Writing a run's outputs: everything goes to a temporary folder first, then into place under the
--out rule of :mod:`lab.core.outputs` (a new folder appears in one rename, so a folder that exists is
complete; an existing folder of the lab's keeps every file the lab did not write)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lab.core import writes
from lab.core.outputs import KINDS, Output, prepare
from lab.core.recorder import balance_residual, work_channels


def write_text_atomic(path: Path, text: str) -> None:
    """A text file by the write protocol (:func:`lab.core.writes.write_text`)."""
    writes.write_text(path, text)


def write_json_atomic(path: Path, obj) -> None:
    """JSON (NumPy scalars and arrays as plain numbers) by the write protocol."""
    writes.write_json(path, obj, default=_json_default)


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


def timeseries_csv(series: dict) -> str:
    """Flat CSV: one row per recorded sample; per-link and per-joint columns are numbered from the tail."""
    cols = timeseries_columns(series)
    header = ",".join(cols)
    data = np.column_stack(list(cols.values())) if len(series["t"]) else np.zeros((0, len(cols)))
    lines = [header] + [",".join(format(float(x), ".9g") for x in row) for row in data]
    return "\n".join(lines) + "\n"


def timeseries_columns(series: dict) -> dict[str, np.ndarray]:
    """The columns of timeseries.csv (and of :meth:`lab.api.Result.timeseries`), by name, in order.

    ``W_<channel>``: the cumulative work [J] of every channel the energy ledger books (``W_joints``,
    one per force law by its scenario name, and ``W_gravity``, ``W_contacts`` on engine contacts);
    ``balance_residual_J`` = (E − E(0)) − Σ W_<channel>, the ledger's residual at each sample (its last
    value is metrics.json's ``energy.balance_residual_J``). Per-link columns (``x_i y_i z_i yaw_i
    pitch_i``, the link's COM and the heading and elevation of its x axis) and per-joint ones (``q_j qd_j
    tau_j``) are numbered in the engine's order (link 0 = the base; joint j = RobotState.q[j])."""
    cols = {"t": series["t"]}
    for name in ("E", "E_T", "E_R", "P_in", "P_d", "W_in", "W_d"):
        cols[name] = series[name]
    work = work_channels(series)
    for name, w in work.items():
        cols[f"W_{name}"] = w
    if work:
        cols["balance_residual_J"] = balance_residual(series)
    n_links = series["xy"].shape[1]
    for i in range(n_links):
        cols[f"x_{i}"] = series["xy"][:, i, 0]
        cols[f"y_{i}"] = series["xy"][:, i, 1]
    if "z" in series:
        for i in range(n_links):
            cols[f"z_{i}"] = series["z"][:, i]
    for i in range(n_links):
        cols[f"yaw_{i}"] = series["yaw"][:, i]
    if "pitch" in series:
        for i in range(n_links):
            cols[f"pitch_{i}"] = series["pitch"][:, i]
    for j in range(series["q"].shape[1]):
        cols[f"q_{j}"] = series["q"][:, j]
    for j in range(series["q"].shape[1]):
        cols[f"qd_{j}"] = series["qd"][:, j]
    for j in range(series["q"].shape[1]):
        cols[f"tau_{j}"] = series["tau"][:, j]
    return cols


WALL_CLOCK_KEYS = ("wall_time_s", "realtime_factor")  # in provenance.json, not metrics.json


def write_run(out, result, plots: bool = True, overwrite: bool = False, provenance: dict | None = None,
              label: str = "--out", flag: str = "--overwrite") -> Path:
    """timeseries.csv, metrics.json, the resolved scenario.toml, provenance.json and PNG plots.

    ``out``: a folder (checked here by :func:`lab.core.outputs.prepare`) or an already prepared
    :class:`lab.core.outputs.Output`. metrics.json and timeseries.csv hold only what the scenario and seed
    determine (byte-identical on a rerun); the wall-clock figures go to provenance.json."""
    output = out if isinstance(out, Output) else prepare(out, "run", overwrite=overwrite, label=label, flag=flag)
    if provenance is None:
        import time

        from lab.core.provenance import collect

        provenance = collect(None, time.time() - float(result.metrics.get("wall_time_s", 0.0)), None)
    prov = dict(provenance)
    prov["run"] = {k: result.metrics[k] for k in WALL_CLOCK_KEYS if k in result.metrics}

    def build(tmp: Path) -> None:
        from lab.core.metrics import json_safe

        (tmp / "scenario.toml").write_text(result.scenario.to_toml(), encoding="utf-8")
        (tmp / "timeseries.csv").write_text(timeseries_csv(result.series), encoding="utf-8")
        metrics = {k: v for k, v in json_safe(result.metrics).items() if k not in WALL_CLOCK_KEYS}
        if result.error:
            metrics["error"] = result.error
        (tmp / "metrics.json").write_text(
            json.dumps(metrics, indent=2, sort_keys=True, default=_json_default, allow_nan=False) + "\n")
        (tmp / "provenance.json").write_text(json.dumps(prov, indent=2, default=_json_default) + "\n")
        files = result.extras.get("files", {}) if isinstance(result.extras, dict) else {}
        for name, data in files.items():  # the observers' files (lab.replay.capture: replay.npz)
            if name not in KINDS["run"]:
                raise ValueError(f"an observer's file {name!r} is not one a run folder may hold ({KINDS['run']})")
            (tmp / name).write_bytes(data)
        if plots and len(result.series["t"]) > 1:
            from lab.analysis.plots import run_plots

            run_plots(result, tmp)

    return output.write_all(build)
