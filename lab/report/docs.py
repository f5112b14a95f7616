"""``lab report --docs DIR``: one Markdown page per paper for the documentation site.

Each page holds what ``report.md`` holds for that paper's section (the same body, figures and table,
from the same build), headed by the paper's reference and followed by its BibTeX, so the site's
numbers and figures come from the code that computes them. Hand-written notes on full runs (measured
findings, explanations) are kept beside the pages in ``<DIR>/../paper-notes/<section>.md`` and copied
into the page under their own heading when present. The pages say whether they come from a ``--quick``
build (short runs, numbers not comparable) or a full one, and when.

The references are taken from the papers' own first pages: a field that could not be read there (a
volume, a page range, an English title the paper does not print) is left out, never guessed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lab.papers import papers as _papers
from lab.report.render import MARK_SYMBOL, _cell
from lab.report.types import SectionOutcome


NOTES_DIR = "paper-notes"  # beside DIR: hand-written notes on full runs, <section>.md

# Each paper page embeds the replay (lab.replay) of its headline run, taken from the report's runs/:
# the first of the names its manifest lists (Paper.replay_runs) that the report wrote.
REPLAY_LIB = "replay-lib.js"  # the vendored libraries, shared by the pages under replays/ (lab.replay.page)
# A committed replay page keeps at most this many frames and chart samples: ~0.3 MB for the 30 s
# flagship (the self-contained page of `lab replay` keeps all: 1.5 MB); tests/tools/test_replay.py
# holds every page under docs/papers/replays/ to REPLAY_PAGE_BUDGET.
REPLAY_MAX_FRAMES = 400
REPLAY_MAX_LINK_FRAMES = 4000  # frames × links: the 10-link flagship keeps its 400, the 28-link wheeled snake 142
REPLAY_MAX_POINTS = 800
REPLAY_PAGE_BUDGET = 600 * 1024


def replay_block(key: str, run_name: str, sim_s: float | None = None) -> list[str]:
    """The page's lines that embed ``replays/<key>.html`` (an iframe: the page keeps its own scripts)."""
    length = f", {sim_s:g} s simulated" if sim_s is not None else ""
    return ["## Replay", "",
            f"The section's headline run (`{run_name}`{length}), replayed from its recorded poses by "
            "[`lab replay`](../replay.md): drag to orbit, click a chart to seek, toggle the force arrows. "
            f"[Open it on its own page](replays/{key}.html).", "",
            f'<iframe src="../replays/{key}.html" title="replay of {run_name}" loading="lazy" '
            'style="width:100%;height:640px;border:1px solid #ccc"></iframe>', ""]


def run_seconds(run: Path) -> float | None:
    import json

    try:
        return float(json.loads((run / "metrics.json").read_text(encoding="utf-8"))["sim_time_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def headline_run(key: str, runs_dir: Path | None) -> Path | None:
    """The report's run folder of section ``key``'s headline run, if it holds a replay."""
    paper = _papers().get(key)
    if runs_dir is None or paper is None:
        return None
    for name in paper.replay_runs:
        if (runs_dir / name / "replay.npz").is_file():
            return runs_dir / name
    return None


def page_name(key: str) -> str:
    return f"{key}.md"


def _page(key: str, oc: SectionOutcome, meta: dict, notes_dir: Path | None, replay: Path | None = None) -> str:
    paper = _papers().get(key)
    title = f"{paper.short}: {oc.section.title}" if paper else oc.section.title
    notes = notes_dir / f"{key}.md" if notes_dir else None
    has_notes = notes is not None and notes.is_file()
    built = f"`lab report{' --quick' if meta['quick'] else ''} --docs docs/papers`"
    if meta["quick"]:
        mode = ("a **quick** build: tiny runs that exercise every step of the section; its numbers are **not** "
                "comparable with the paper's." + (" The measured figures of full runs are under *Findings from full "
                                                  "runs* below." if has_notes else ""))
    else:
        mode = "a **full** build: the numbers below are the comparison with the paper."
    workers = f"{meta['workers']} worker" + ("s" if meta["workers"] != 1 else "")
    lines = [f"# {title}", "",
             "!!! note \"Written by `lab report`\"",
             f"    Generated {meta['generated']} by {built} ({workers}, this section {oc.wall_s:.1f} s): {mode} "
             f"The same section is in the report's `report.md` and `report.html`. Rebuild this page with "
             f"`lab report --docs docs/papers --only {key} --overwrite` (add `--quick` for the pipeline only).", ""]
    if paper:
        lines += ["**Paper.** " + paper.reference(), "",
                  f"**Reproduced here:** {paper.reproduced}. Code: `lab/papers/{key}/`.", ""]
    if oc.error:
        lines += [f"**Section failed:** `{oc.error}`", ""]
    if oc.result.body:
        lines += ["## What the section shows", "", _demote(oc.result.body.strip()), ""]
    if replay is not None:
        lines += replay_block(key, replay.name, run_seconds(replay))
    if oc.result.figures:
        lines += ["## Figures", ""]
    for f in oc.result.figures:
        name = Path(f.path).name
        lines += [f"![{_alt(f.caption or Path(name).stem)}](figures/{name})", ""]
        if f.caption:
            lines += [f"*{f.caption}*", ""]
    if oc.result.table:
        lines += ["## The lab's numbers beside the paper's", "",
                  "| quantity | lab | paper | mark | note |", "|---|---|---|---|---|"]
        for r in oc.result.table:
            lines.append(f"| {_cell(r.quantity)} | {_cell(r.lab)} | {_cell(r.paper)} | **{MARK_SYMBOL[r.mark]}** | "
                         f"{_cell(r.note)} |")
        lines.append("")
    if has_notes:
        lines += ["## Findings from full runs", "",
                  f"*Hand-written (`docs/{NOTES_DIR}/{key}.md`), measured on full runs; copied here by "
                  "`lab report --docs`.*", "", _demote(notes.read_text(encoding="utf-8").strip()), ""]
    if paper:
        lines += ["## Cite", "", "```bibtex", paper.bibtex(key), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def _alt(text: str) -> str:
    return text.replace("[", "(").replace("]", ")").replace("\n", " ")


def _demote(md: str) -> str:
    """Headings inside a section body sit under the page's ``##`` headings: one level down, at least ``###``."""
    out, fence = [], False
    for line in md.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and line.startswith("#"):
            hashes = len(line) - len(line.lstrip("#"))
            line = "#" * max(3, min(hashes + 2, 6)) + line[hashes:]
        out.append(line)
    return "\n".join(out)


def index(keys: list[str], titles: dict[str, str], meta: dict) -> str:
    """The papers' index page: the table of the papers with links to their pages."""
    lines = ["# Papers", "",
             "The five papers the lab reproduces, one page each. The pages are written by "
             "`lab report --docs docs/papers`: the same text, figures and tables as the report's sections, with "
             "each paper's reference and BibTeX. Each page says whether it comes from a quick or a full build, "
             "and when.", "",
             "| paper | title | venue | reproduced | page |", "|---|---|---|---|---|"]
    for key in keys:
        p = _papers().get(key)
        if p is None:
            lines.append(f"| — | {_cell(titles.get(key, key))} | | | [{key}]({page_name(key)}) |")
            continue
        lines.append(f"| {p.short} | {_cell(p.title_en)} | {_cell(p.venue) or '—'} | {_cell(p.reproduced)} | "
                     f"[{key}]({page_name(key)}) |")
    return "\n".join(lines) + "\n"


def write(docs_output, outcomes: list[SectionOutcome], meta: dict) -> Path:
    """Write ``<section>.md`` per outcome, its figures under ``figures/`` and ``index.md`` into the folder
    of ``docs_output`` (prepared by :func:`lab.core.outputs.prepare`, kind ``docs``: only the lab's own files
    there are replaced). With ``--only``, the other sections' pages and figures stay as they were."""
    from lab.core.outputs import writing
    from lab.results import write_text_atomic
    from lab.core.writes import write_with
    from lab.report.core import load_sections

    sections = load_sections()
    rebuilt = {oc.section.key for oc in outcomes}
    previous = set(docs_output.own)
    notes_dir = Path(meta["notes_dir"]) if meta.get("notes_dir") else None
    runs_dir = Path(meta["runs_dir"]) if meta.get("runs_dir") else None
    out = docs_output.open()
    try:
        with writing(out.where):
            for oc in outcomes:
                key = oc.section.key
                figs = []
                for f in oc.result.figures:
                    dest = out.claim(f"figures/{Path(f.path).name}")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    write_with(dest, lambda tmp, src=f.path: shutil.copyfile(src, tmp))
                    figs.append(dest)
                run = headline_run(key, runs_dir)
                if run is not None:
                    from lab.replay.page import page_html

                    dest = out.claim(f"replays/{key}.html")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    write_text_atomic(dest, page_html(run, shared_lib=REPLAY_LIB, max_frames=REPLAY_MAX_FRAMES,
                                                      max_points=REPLAY_MAX_POINTS,
                                                      max_link_frames=REPLAY_MAX_LINK_FRAMES))
                write_text_atomic(out.claim(page_name(key)),
                                  _page(key, oc, meta, notes_dir, replay=run))
            for key in sections:  # --only: keep the other sections' pages (the lab's own, in the marker)
                if key in rebuilt or not any(rel == page_name(key) for rel in previous):
                    continue
                out.claim(page_name(key))
                for rel in previous:
                    if rel.startswith(f"figures/{key}_") or rel == f"replays/{key}.html":
                        out.claim(rel)
            if any(rel.startswith("replays/") and rel != f"replays/{REPLAY_LIB}" for rel in out.written):
                from lab.replay.page import vendor_lib_js

                write_text_atomic(out.claim(f"replays/{REPLAY_LIB}"), vendor_lib_js())
            keys = [k for k in sections if (out.path / page_name(k)).is_file() and page_name(k) in out.written]
            write_text_atomic(out.claim("index.md"), index(keys, {k: sections[k].title for k in sections}, meta))
    finally:
        out.close()
    return out.path


__all__ = ["write", "index", "NOTES_DIR"]
