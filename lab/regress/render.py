"""What ``lab regress check`` shows: the drift table (terminal), JUnit XML (CI systems) and Markdown
(pull-request comments). All three list the same rows, worst first."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from lab.regress.compare import Row


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return f"{v:.6g}"


def _delta(r: Row) -> str:
    return "" if (isinstance(r.delta, float) and math.isnan(r.delta)) else _fmt(r.delta)


def table(rows: list[Row], all_rows: bool = False) -> str:
    """Failing rows (or every row) as an aligned text table, worst first."""
    shown = [r for r in rows if all_rows or r.failed]
    head = ("entry", "metric", "baseline", "now", "Δ", "tolerance", "result")
    body = [(r.entry, r.metric, _fmt(r.baseline), _fmt(r.now), _delta(r), r.tolerance,
             "FAIL: " + r.status if r.failed else r.status) for r in shown]
    if not body:
        return ""
    width = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, width)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, width)).rstrip() for b in body]
    return "\n".join(lines)


def junit(suite_name: str, entries: list[str], rows: list[Row], env_changes: list[str]) -> str:
    """JUnit XML: one test case per entry, failing with the list of what drifted."""
    by_entry: dict[str, list[Row]] = {e: [] for e in entries}
    for r in rows:
        by_entry.setdefault(r.entry, []).append(r)
    failures = sum(1 for rs in by_entry.values() if any(r.failed for r in rs))
    ts = ET.Element("testsuite", name=f"lab regress {suite_name}", tests=str(len(by_entry)),
                    failures=str(failures), errors="0", skipped="0")
    if env_changes:
        props = ET.SubElement(ts, "properties")
        for c in env_changes:
            ET.SubElement(props, "property", name="environment changed", value=c)
    for entry, rs in by_entry.items():
        tc = ET.SubElement(ts, "testcase", classname=f"regress.{suite_name}", name=entry)
        bad = [r for r in rs if r.failed]
        if bad:
            f = ET.SubElement(tc, "failure", message=f"{len(bad)} metric(s) drifted",
                              type="drift" if all(r.status == "drift" for r in bad) else bad[0].status)
            f.text = table(bad)
        ET.SubElement(tc, "system-out").text = f"{sum(r.status == 'ok' for r in rs)} metrics held"
    ET.indent(ts)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(ts, encoding="unicode") + "\n"


def markdown(suite_name: str, rows: list[Row], n_entries: int, env_changes: list[str]) -> str:
    bad = [r for r in rows if r.failed]
    held = sum(r.status == "ok" for r in rows)
    title = f"### lab regress `{suite_name}`: " + ("all metrics held" if not bad else f"{len(bad)} failed")
    out = [title, "", f"{n_entries} entries, {held} metrics held, {len(bad)} failed."]
    if env_changes:
        out += ["", "Environment differs from the baseline's (floating-point results can move):", ""]
        out += [f"- {c}" for c in env_changes]
    if bad:
        out += ["", "| entry | metric | baseline | now | Δ | tolerance | result |", "|---|---|---|---|---|---|---|"]
        out += [f"| {r.entry} | `{r.metric}` | {_fmt(r.baseline)} | {_fmt(r.now)} | {_delta(r)} | {r.tolerance} | "
                f"{r.status} |" for r in bad]
    new = [r for r in rows if r.status == "new"]
    if new:
        out += ["", "New (not in the baseline, not failing): " + ", ".join(f"{r.entry}:{r.metric}" for r in new)]
    return "\n".join(out) + "\n"


__all__ = ["junit", "markdown", "table"]
