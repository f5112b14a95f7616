"""Comparing a suite's metrics now with its baseline.

Default tolerances by metric family (the first matching glob wins; a suite's ``[tolerance]`` table and
an entry's ``tolerance`` come before these). Why these values: the same code, scenario and seed on the
same platform give bit-identical results (the determinism test), so a tolerance only has to absorb
floating-point differences between library versions and platforms over a short run, amplified by the
dynamics — parts per million — while any change to the physics moves a metric by far more.

| family | glob | tolerance | why |
|---|---|---|---|
| statuses, flags, text | (by type) | exact | a run that diverges, fails or stops differently is a change |
| energies | ``energy.*``, ``*_J`` | rel 1e-6 + abs 1e-9 J | energies scale with the robot: relative |
| positions, speeds | ``*_m``, ``*_mps`` | abs 1e-6 m (m/s) | absolute, in metres: a micrometre |
| angles | ``*_rad``, ``*_deg`` | abs 1e-6 rad, 1e-4 degrees | absolute |
| times | ``*_s`` | abs 1e-6 s | event times are read off recorded samples: identical or a sample apart |
| check figures | ``check.*`` | rel 1e-6 + abs 1e-12 | a check's value, relative |
| anything else | ``*`` | rel 1e-6 + abs 1e-12 | |

Wall-clock metrics (``wall_time_s``, ``realtime_factor``, a check's wall time) are never compared.
NaN equals NaN (a metric that is undefined in both).
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass

from lab.regress.suite import Entry, Suite, Tolerance

DEFAULTS: tuple[tuple[str, Tolerance], ...] = (
    ("energy.*", Tolerance(abs=1e-9, rel=1e-6)),
    ("*_J", Tolerance(abs=1e-9, rel=1e-6)),
    ("*_m", Tolerance(abs=1e-6)),
    ("*_mps", Tolerance(abs=1e-6)),
    ("*_rad", Tolerance(abs=1e-6)),
    ("*_deg", Tolerance(abs=1e-4)),
    ("*_s", Tolerance(abs=1e-6)),
    ("check.*", Tolerance(abs=1e-12, rel=1e-6)),
    ("*", Tolerance(abs=1e-12, rel=1e-6)),
)
EXACT = Tolerance(exact=True)
UNCOMPARED = ("wall_time_s", "realtime_factor", "task_wall_s", "*wall_time*", "*(wall time s)*")
ENV_KEYS = ("lab_version", "python", "pybullet_version", "numpy_version", "scipy_version", "numba_version",
            "platform", "machine")


@dataclass(frozen=True)
class Row:
    """One compared metric (or an entry-level event with ``metric`` = "(definition)" etc.)."""

    entry: str
    metric: str
    baseline: object
    now: object
    delta: float  # |now − baseline| (nan for non-numbers)
    tolerance: str
    status: str  # "ok" | "drift" | "missing" | "new" | "changed definition" | "entry missing" | "not in baseline"
    #              | "crashed (baseline)" | "crashed (now)": an entry that crashed fails whatever the other side
    allowed: float = math.nan  # abs + rel·|baseline| for numbers

    @property
    def failed(self) -> bool:
        return self.status in ("drift", "missing", "changed definition", "entry missing", "not in baseline",
                               "crashed (baseline)", "crashed (now)")

    @property
    def excess(self) -> float:
        """How far past its tolerance (for sorting: worst first); inf for non-numeric failures."""
        if self.status != "drift":
            return math.inf if self.failed else -1.0
        if not math.isfinite(self.delta) or not self.allowed > 0:
            return math.inf
        return self.delta / self.allowed


def tolerance_for(metric: str, entry: Entry | None, suite: Suite | None) -> Tolerance:
    for table in ((entry.tolerance if entry else ()), (suite.tolerance if suite else ()), DEFAULTS):
        for glob, tol in table:
            if fnmatch.fnmatchcase(metric, glob):
                return tol
    return DEFAULTS[-1][1]  # pragma: no cover - "*" matches everything


def compared(metric: str, entry: Entry | None) -> bool:
    if any(fnmatch.fnmatchcase(metric, g) for g in UNCOMPARED):
        return False
    if entry is not None and entry.metrics:
        return any(fnmatch.fnmatchcase(metric, g) for g in entry.metrics)
    return True


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def compare_value(base, now, tol: Tolerance) -> tuple[bool, float]:
    """(holds, |Δ|). Numbers within abs + rel·|base|; everything else (and ``exact``) by ==."""
    if _is_number(base) and _is_number(now):
        b, n = float(base), float(now)
        if math.isnan(b) or math.isnan(n):
            return (math.isnan(b) and math.isnan(n)), (0.0 if math.isnan(b) and math.isnan(n) else math.inf)
        if math.isinf(b) or math.isinf(n):
            return b == n, (0.0 if b == n else math.inf)
        d = abs(n - b)
        if tol.exact:
            return d == 0.0, d
        return d <= tol.abs + tol.rel * abs(b), d
    return base == now, (0.0 if base == now else math.nan)


def _physics(definition):
    """A definition without its ``description = …`` line: a reworded description changes no run."""
    if not isinstance(definition, str):
        return definition
    return "\n".join(ln for ln in definition.splitlines() if not ln.startswith("description = "))


def compare_entry(entry: Entry, suite: Suite | None, base: dict | None, now: dict | None) -> list[Row]:
    """Rows for one entry; ``base``/``now`` are ``{"definition", "metrics"}`` records (None: absent)."""
    if base is None:  # the baseline must cover the suite: an entry deleted from it (or added to the suite
        # since it was recorded) fails, named, until the baseline is recorded again
        return [Row(entry.id, "(entry)", None, "present", math.nan, "", "not in baseline")]
    if now is None:
        return [Row(entry.id, "(entry)", "present", None, math.nan, "", "entry missing")]
    rows: list[Row] = []
    bs, ns = (rec.get("metrics", {}).get("status") for rec in (base, now))
    for side, status in (("baseline", bs), ("now", ns)):  # a crash is never a result that "holds"
        if status == "failed":
            rows.append(Row(entry.id, "(status)", bs, ns, math.nan, "", f"crashed ({side})"))
    if _physics(base.get("definition")) != _physics(now.get("definition")):
        rows.append(Row(entry.id, "(definition)", "baseline's", "changed", math.nan, "exact", "changed definition"))
    bm, nm = base.get("metrics", {}), now.get("metrics", {})
    for metric in sorted(set(bm) | set(nm)):
        if not compared(metric, entry):
            continue
        if metric not in nm:
            rows.append(Row(entry.id, metric, bm[metric], None, math.nan, "", "missing"))
            continue
        if metric not in bm:
            rows.append(Row(entry.id, metric, None, nm[metric], math.nan, "", "new"))
            continue
        b, n = bm[metric], nm[metric]
        tol = tolerance_for(metric, entry, suite) if _is_number(b) and _is_number(n) else EXACT
        ok, d = compare_value(b, n, tol)
        allowed = tol.abs + tol.rel * abs(float(b)) if _is_number(b) and not tol.exact else 0.0
        rows.append(Row(entry.id, metric, b, n, d, tol.text(), "ok" if ok else "drift", allowed))
    return rows


def environment_changes(base_env: dict, now_env: dict) -> list[str]:
    """Library and platform differences between baseline and now (floating-point results can move)."""
    out = []
    for k in ENV_KEYS:
        if base_env.get(k) != now_env.get(k):
            out.append(f"{k}: {base_env.get(k)} → {now_env.get(k)}")
    return out


def worst_first(rows: list[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (not r.failed, -r.excess if r.failed else 0.0, r.entry, r.metric))


__all__ = ["DEFAULTS", "Row", "compare_entry", "compare_value", "compared", "environment_changes", "tolerance_for",
           "worst_first"]
