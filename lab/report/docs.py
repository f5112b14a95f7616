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


def page_name(key: str) -> str:
    return f"{key}.md"


def _page(key: str, oc: SectionOutcome, meta: dict, notes_dir: Path | None) -> str:
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
                write_text_atomic(out.claim(page_name(key)), _page(key, oc, meta, notes_dir))
            for key in sections:  # --only: keep the other sections' pages (the lab's own, in the marker)
                if key in rebuilt or not any(rel == page_name(key) for rel in previous):
                    continue
                out.claim(page_name(key))
                for rel in previous:
                    if rel.startswith(f"figures/{key}_"):
                        out.claim(rel)
            keys = [k for k in sections if (out.path / page_name(k)).is_file() and page_name(k) in out.written]
            write_text_atomic(out.claim("index.md"), index(keys, {k: sections[k].title for k in sections}, meta))
    finally:
        out.close()
    return out.path


__all__ = ["write", "index", "NOTES_DIR"]
