"""Rows of a sweep: one JSON file per finished run, gathered into ``results.parquet`` and ``results.csv``.

The row files are the record of truth (each written by the write protocol, :mod:`lab.core.writes`, when
its run ends); the two tables are rebuilt from them the same way (private temporary + rename), so a
reader never sees half a table. A row file that is not a row (damaged: random bytes, ``null``, a
list, another run's row) counts as missing: its run is run again and the file rewritten.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from lab.core import writes

log = logging.getLogger(__name__)

LEAD_COLUMNS = ("run_id", "status", "seed")
TAIL_COLUMNS = ("error", "task_wall_s", "worker")


def row_path(out: Path, run_id: str) -> Path:
    return Path(out) / "rows" / f"{run_id}.json"


def read_rows(out: Path, run_ids: list[str]) -> dict[str, dict]:
    """Rows already on disk for these runs (a row file that cannot be read counts as missing)."""
    rows = {}
    for rid in run_ids:
        p = row_path(out, rid)
        if p.is_file():
            try:
                row = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:  # random bytes, truncated JSON: rerun it
                log.warning("row %s is damaged (%s); its run is run again", p, exc)
                continue
            if not isinstance(row, dict) or row.get("run_id") != rid or not isinstance(row.get("status"), str):
                log.warning("row %s is not this run's row; its run is run again", p)
                continue
            rows[rid] = row
    return rows


def frame(rows: list[dict], axis_keys: list[str]) -> pd.DataFrame:
    """Rows → DataFrame with a stable column order: ids, axes, metrics (sorted), bookkeeping last."""
    df = pd.DataFrame(rows)
    lead = [c for c in (*LEAD_COLUMNS, *axis_keys) if c in df.columns]
    tail = [c for c in TAIL_COLUMNS if c in df.columns]
    middle = sorted(c for c in df.columns if c not in lead and c not in tail)
    return df[lead + middle + tail] if len(df.columns) else df


def _replace(path: Path, write) -> None:
    writes.write_with(path, write)


def write_tables(out: Path, rows: list[dict], axis_keys: list[str]) -> pd.DataFrame:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df = frame(rows, axis_keys)
    _replace(out / "results.csv", lambda p: df.to_csv(p, index=False))
    try:
        _replace(out / "results.parquet", lambda p: df.to_parquet(p, index=False))
    except (TypeError, ValueError, ImportError) as exc:
        # Parquet columns need one type; an axis mixing e.g. numbers and strings is written as text.
        log.info("parquet: %s; writing mixed columns as text", exc)
        fixed = df.copy()
        for c in fixed.columns:
            if fixed[c].dtype == object:
                fixed[c] = fixed[c].map(lambda v: v if v is None else str(v))
        _replace(out / "results.parquet", lambda p: fixed.to_parquet(p, index=False))
    return df
