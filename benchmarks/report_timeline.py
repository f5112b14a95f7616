"""Where a `lab report` build's time goes, run by run, from the report folder it wrote.

    python benchmarks/report_timeline.py REPORT_DIR [--runs] [--calls]

Per section: the runs it launched, their summed wall (and CPU, where recorded), the span from the first start
to the last end, the section's own wall (``provenance.json``'s ``sections``), and the runs whose resolved
scenario repeats one already run in the same build (same scenario and seed: identical results). A report
built since session 10 records every run in ``provenance.json`` (``runs``: worker, start/end from the build's
start, CPU, the scenario key; ``calls``: the pure model calls computed on the workers). For an older report
the runs are read from ``runs/*/provenance.json`` and ``scenario.toml`` (no worker, no CPU; the key is the
SHA-256 of the resolved scenario table, which for such a report stands in for the build's own key).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tomllib
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

PREFIX = (("wang2011_creeping", "wang2011_creeping"), ("wang2011_unified", "wang2011_unified"),
          ("hu2013", "hu2013_tracked"), ("chain_", "hu2013_tracked"), ("guo2015", "guo2015_wheeled"),
          ("zhang2018", "zhang2018_eel"))


def section_of(name: str) -> str:
    return next((sec for pre, sec in PREFIX if name.startswith(pre)), "?")


def read_runs(folder: Path) -> list[dict]:
    prov = json.loads((folder / "provenance.json").read_text())
    if prov.get("runs"):
        out = []
        for r in prov["runs"]:
            out.append({**r, "also": r.get("shared_by") or []})
        return out
    rows = []
    for d in sorted((folder / "runs").iterdir()):
        p = json.loads((d / "provenance.json").read_text())
        sc = tomllib.loads((d / "scenario.toml").read_text())
        key = hashlib.sha256(json.dumps(sc, sort_keys=True).encode()).hexdigest()[:12]
        rows.append({"name": d.name, "section": section_of(d.name), "key": key, "dt": sc["sim"]["dt"],
                     "duration": sc["sim"]["duration"], "start": datetime.fromisoformat(p["started"]).timestamp(),
                     "wall_s": p["wall_time_s"], "cpu_s": None, "worker": "", "also": []})
    t0 = min(r["start"] for r in rows)
    for r in rows:
        r["start"] -= t0
        r["end"] = r["start"] + r["wall_s"]
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path)
    ap.add_argument("--runs", action="store_true", help="list every run in start order")
    ap.add_argument("--calls", action="store_true", help="list the model calls computed on the workers")
    a = ap.parse_args(argv)
    prov = json.loads((a.report / "provenance.json").read_text())
    rows = read_runs(a.report)
    count = Counter(r["key"] for r in rows)
    by = defaultdict(list)
    for r in rows:
        by[r["section"]].append(r)
    print(f"{a.report}: {prov.get('wall_time_s', float('nan')):.0f} s wall, {len(rows)} runs, workers "
          f"{prov.get('workers')}, commit {prov.get('git', {}).get('commit', '?')[:8]}")
    print("| section | section wall [s] | runs | Σ run wall [s] | Σ run CPU [s] | runs' span [s] | repeated runs "
          "(Σ wall) | shared under other names |")
    print("|---|---|---|---|---|---|---|---|")
    for sec, rs in by.items():
        wall = sum(r["wall_s"] for r in rs)
        cpu = [r["cpu_s"] for r in rs if r.get("cpu_s") is not None]
        span = max(r["end"] for r in rs) - min(r["start"] for r in rs)
        rep = [r for r in rs if count[r["key"]] > 1 and r is not next(x for x in rows if x["key"] == r["key"])]
        shared = sum(len(r["also"]) for r in rs)
        print(f"| {sec} | {prov.get('sections', {}).get(sec, float('nan')):.1f} | {len(rs)} | {wall:.0f} | "
              f"{sum(cpu):.0f} | {span:.0f} | {len(rep)} ({sum(r['wall_s'] for r in rep):.0f} s) | {shared} |"
              if cpu else
              f"| {sec} | {prov.get('sections', {}).get(sec, float('nan')):.1f} | {len(rs)} | {wall:.0f} | — | "
              f"{span:.0f} | {len(rep)} ({sum(r['wall_s'] for r in rep):.0f} s) | {shared} |")
    calls = prov.get("calls") or []
    if calls:
        cs = defaultdict(list)
        for c in calls:
            cs[(c["section"], c["fn"])].append(c)
        for (sec, fn), cc in cs.items():
            print(f"calls {sec} {fn}: {len(cc)}, Σ CPU {sum(c['cpu_s'] for c in cc):.0f} s, span "
                  f"{max(c['end'] for c in cc) - min(c['start'] for c in cc):.0f} s")
    if a.runs:
        for r in sorted(rows, key=lambda r: r["start"]):
            cpu = f"{r['cpu_s']:7.1f}" if r.get("cpu_s") is not None else "      —"
            print(f"{r['start']:7.1f} {r['end']:7.1f} {r['wall_s']:7.1f} {cpu} {r['dt']:7g} {r['duration']:7g} "
                  f"{r.get('worker', ''):>10} {r['key'][:8]}{' REPEAT' if count[r['key']] > 1 else ''} {r['name']}"
                  + (f" (also {', '.join(r['also'])})" if r["also"] else ""))
    if a.calls:
        for c in sorted(calls, key=lambda c: c["start"]):
            print(f"{c['start']:7.1f} {c['end']:7.1f} {c['cpu_s']:7.1f} {c['worker']:>10} {c['section']} {c['fn']}")


if __name__ == "__main__":
    main()
