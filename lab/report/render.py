"""``report.md`` (figures linked) and a self-contained ``report.html`` (figures embedded as base64,
plain HTML + CSS). Section bodies, captions and table cells are Markdown, rendered with markdown-it-py
(CommonMark plus tables; raw HTML off, so text from a section is always escaped). Marks are text
badges styled by CSS, not emoji: a machine without an emoji font shows them too."""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path

from lab.results import write_text_atomic
from lab.report.types import SectionOutcome

MARK_SYMBOL = {"pass": "pass", "warn": "warn", "fail": "FAIL", "info": "info"}

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 980px; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #bbb; padding-bottom: .15em; margin-top: 2em; }
.meta, .timing { color: #666; font-size: .9em; }
table { border-collapse: collapse; margin: 1em 0; font-size: .92em; width: 100%; }
th, td { border: 1px solid #ccc; padding: .3em .55em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.pass { background: #e6f4ea; } td.warn { background: #fff4d6; } td.fail { background: #fde2e1; }
td.info { background: #eef1f6; }
.badge { display: inline-block; padding: 0 .45em; border-radius: 3px; font-size: .85em; font-weight: 600;
         color: #fff; letter-spacing: .02em; }
.badge.pass { background: #2e7d32; } .badge.warn { background: #b26a00; } .badge.fail { background: #c62828; }
.badge.info { background: #52657a; }
figure { margin: 1.2em 0; text-align: center; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: .9em; margin-top: .3em; }
code { background: #f4f4f4; padding: 0 .25em; border-radius: 3px; }
.error { background: #fde2e1; padding: .5em .8em; border-left: 4px solid #c0392b; }
"""


def signed(x: float, digits: int, plus: bool = False) -> str:
    """``x`` to ``digits`` decimals with a true minus sign (U+2212), never ``-0.00`` or ``−-0.00``: a value
    that rounds to zero prints without a sign; ``plus``: a positive value gets ``+``."""
    text = f"{abs(x):.{digits}f}"
    if float(text) == 0.0:
        return text
    return ("−" if x < 0 else "+" if plus else "") + text


def counts(oc: SectionOutcome) -> dict:
    c = {m: 0 for m in MARK_SYMBOL}
    for r in oc.result.table:
        c[r.mark] += 1
    return c


def _counts_text(oc: SectionOutcome) -> str:
    return ", ".join(f"{n} {m}" for m, n in counts(oc).items() if n) or "no table"


def timing_line(oc: SectionOutcome) -> str:
    state = f"FAILED: {oc.error}" if oc.error else _counts_text(oc)
    return f"{oc.section.key}: {oc.wall_s:.1f} s ({state})"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


QUICK_NOTE = "quick mode (short runs: the numbers are not comparable with the papers)"


def to_markdown(out: Path, outcomes: list[SectionOutcome], meta: dict) -> str:
    mode = QUICK_NOTE if meta["quick"] else "full runs"
    lines = ["# Lab report", "",
             f"Generated {meta['generated']} · {mode} · {meta['workers']} worker(s) · "
             f"total wall time {meta['total_s']:.1f} s", "",
             "| section | title | marks | time |", "|---|---|---|---|"]
    for oc in outcomes:
        lines.append(f"| {oc.section.key} | {_cell(oc.section.title)} | "
                     f"{'FAILED' if oc.error else _counts_text(oc)} | {oc.wall_s:.1f} s |")
    for oc in outcomes:
        s = oc.section
        lines += ["", f"## {s.key} — {s.title}", ""]
        if s.paper:
            lines += [f"*Paper: {s.paper}*", ""]
        lines += [f"Time: {oc.wall_s:.1f} s", ""]
        if oc.error:
            lines += [f"**Section failed:** `{oc.error}`", ""]
        if oc.result.body:
            lines += [oc.result.body.strip(), ""]
        for f in oc.result.figures:
            rel = os.path.relpath(f.path, out)
            lines += [f"![{Path(f.path).stem}]({rel})", ""]
            if f.caption:
                lines += [f"*{f.caption}*", ""]
        if oc.result.table:
            lines += ["| quantity | lab | paper | mark | note |", "|---|---|---|---|---|"]
            for r in oc.result.table:
                lines.append(f"| {_cell(r.quantity)} | {_cell(r.lab)} | {_cell(r.paper)} | **{MARK_SYMBOL[r.mark]}** | "
                             f"{_cell(r.note)} |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ------------------------------------------------------------------ Markdown → HTML (markdown-it-py)
_MD = None


def _md():
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        _MD = MarkdownIt("commonmark", {"html": False}).enable("table")
    return _MD


def inline(text: str) -> str:
    """One line of Markdown (a table cell, a caption) as inline HTML."""
    return _md().renderInline(str(text))


def md_to_html(md: str) -> str:
    """A section body as HTML; its headings are demoted by two levels (they sit under the <h2>)."""
    tokens = _md().parse(md)
    for t in tokens:
        if t.type in ("heading_open", "heading_close"):
            t.tag = f"h{min(int(t.tag[1]) + 2, 6)}"
    return _md().renderer.render(tokens, _md().options, {}).strip()


def _img(path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"data:image/png;base64,{data}"


def to_html(outcomes: list[SectionOutcome], meta: dict) -> str:
    e = html.escape
    mode = QUICK_NOTE if meta["quick"] else "full runs"
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', "<title>Lab report</title>",
         f"<style>{CSS}</style></head><body>", "<h1>Lab report</h1>",
         f'<p class="meta">Generated {e(meta["generated"])} · {e(mode)} · {meta["workers"]} worker(s) · '
         f'total wall time {meta["total_s"]:.1f} s</p>',
         "<table><tr><th>section</th><th>title</th><th>marks</th><th>time</th></tr>"]
    for oc in outcomes:
        h.append(f'<tr><td><a href="#{e(oc.section.key)}">{e(oc.section.key)}</a></td><td>{e(oc.section.title)}</td>'
                 f"<td>{'FAILED' if oc.error else e(_counts_text(oc))}</td><td>{oc.wall_s:.1f} s</td></tr>")
    h.append("</table>")
    for oc in outcomes:
        s = oc.section
        h.append(f'<h2 id="{e(s.key)}">{e(s.key)} — {e(s.title)}</h2>')
        if s.paper:
            h.append(f"<p><em>Paper: {e(s.paper)}</em></p>")
        h.append(f'<p class="timing">Time: {oc.wall_s:.1f} s</p>')
        if oc.error:
            h.append(f'<p class="error"><strong>Section failed:</strong> <code>{e(oc.error)}</code></p>')
        if oc.result.body:
            h.append(md_to_html(oc.result.body))
        for f in oc.result.figures:
            h.append(f'<figure><img src="{_img(f.path)}" alt="{e(f.caption or Path(f.path).stem)}">'
                     + (f"<figcaption>{inline(f.caption)}</figcaption>" if f.caption else "") + "</figure>")
        if oc.result.table:
            h.append("<table><tr><th>quantity</th><th>lab</th><th>paper</th><th>mark</th><th>note</th></tr>")
            for r in oc.result.table:
                h.append(f"<tr><td>{inline(r.quantity)}</td><td>{inline(r.lab)}</td><td>{inline(r.paper)}</td>"
                         f'<td class="{r.mark}"><span class="badge {r.mark}">{e(MARK_SYMBOL[r.mark])}</span></td>'
                         f"<td>{inline(r.note)}</td></tr>")
            h.append("</table>")
    h.append("</body></html>")
    return "\n".join(h) + "\n"


def write(out: Path, outcomes: list[SectionOutcome], meta: dict) -> tuple[Path, Path]:
    out = Path(out)
    md, page = out / "report.md", out / "report.html"
    write_text_atomic(md, to_markdown(out, outcomes, meta))
    write_text_atomic(page, to_html(outcomes, meta))
    return md, page
