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
from dataclasses import dataclass
from pathlib import Path

from lab.report.render import MARK_SYMBOL, _cell
from lab.report.types import SectionOutcome


@dataclass(frozen=True)
class Paper:
    """The reference of one reproduced paper. ``title_en``: the paper's own English title, or a
    translation marked as such; ``title``: the title as printed."""

    authors: tuple[str, ...]  # "Family, Given" as the paper prints them (romanised)
    year: int
    title: str
    title_en: str
    venue: str = ""
    doi: str = ""
    translated: bool = False  # title_en is the lab's translation, not printed in the paper
    reproduced: str = ""  # one line: what the lab reproduces

    @property
    def short(self) -> str:
        return f"{self.authors[0].split(',')[0]} et al. {self.year}"

    def reference(self) -> str:
        names = "; ".join(a if a != "others" else "et al." for a in self.authors)
        en = f"*{self.title_en}*" + (" (translated title)" if self.translated else "")
        parts = [f"{names} ({self.year}). {self.title} — {en}."]
        if self.venue:
            parts.append(f"{self.venue}.")
        if self.doi:
            parts.append(f"doi:[{self.doi}](https://doi.org/{self.doi})")
        return " ".join(parts)

    def bibtex(self, key: str) -> str:
        fields = [("author", " and ".join(self.authors)), ("title", "{" + self.title_en + "}"),
                  ("year", str(self.year))]
        if self.venue:
            fields.append(("journal", self.venue))
        if self.doi:
            fields.append(("doi", self.doi))
        if self.translated:
            fields.append(("note", f"In Chinese: {self.title}; English title translated"))
        else:
            fields.append(("note", f"In Chinese: {self.title}"))
        body = ",\n".join(f"  {k:<7} = {{{v}}}" for k, v in fields)
        return f"@article{{{key},\n{body}\n}}"


PAPERS: dict[str, Paper] = {
    "wang2011_creeping": Paper(
        authors=("Wang, Zhifeng", "Ma, Shugen", "Li, Bin", "Wang, Yuechao"), year=2011,
        title="基于能量的蛇形机器人蜿蜒运动控制方法的仿真与实验研究",
        title_en="Simulation and Experimental Study of an Energy-based Control Method for the Serpentine "
                 "Locomotion of a Snake-like Robot",
        venue="Acta Automatica Sinica", doi="10.3724/SP.J.1004.2011.00604",
        reproduced="passive creeping: start-up (Fig 5), torque recurrence (Fig 6), energy regulation (Fig 7), "
                   "turning (Fig 8), η2 (Table 2), the drag experiment (Figs 12–14)"),
    "wang2011_unified": Paper(
        authors=("Wang, Zhifeng", "others"), year=2011,  # the co-authors are not on the pages the lab has
        title="基于微分几何的蛇形机器人移动与操作统一动力学模型研究",
        title_en="Unified dynamic model of snake robot locomotion and manipulation based on differential geometry",
        translated=True, venue="Scientia Sinica Informationis (中国科学: 信息科学)",
        reproduced="the unified locomotion/manipulation model (eqs. 22–27) against the engine, Fig 5, "
                   "the friction's slip speed"),
    "hu2013_tracked": Paper(
        authors=("Hu, Yanan", "Ma, Shugen", "Li, Bin", "Wang, Minghui", "Wang, Yuechao"), year=2013,
        title="基于旋量动力学建模的可重构轮手一体机器人越障性能研究",
        title_en="Obstacle-negotiation performance of a reconfigurable wheel-manipulator robot based on "
                 "screw-theory dynamic modelling", translated=True,
        reproduced="the step climb (advance, flip, climb), motor torque against step height and arm length "
                   "(Figs 8–10), the largest step, the support-triangle margin (eq. 13)"),
    "guo2015_wheeled": Paper(
        authors=("Guo, Xian", "Ma, Shugen", "Li, Bin", "Wang, Minghui", "Wang, Yuechao"), year=2015,
        title="基于微分几何的蛇形机器人动力学与控制统一模型",
        title_en="A unified dynamics and control model of snake robots based on differential geometry",
        translated=True, venue="Scientia Sinica Informationis (中国科学: 信息科学), 45: 1080–1094",
        doi="10.1360/N112014-00024",
        reproduced="the nonholonomic unified model (eq. 14) against the constrained Euler–Lagrange form "
                   "(eq. 18), PFL head tracking (eqs. 23–24, Figs 4–6), the engine under the same law"),
    "zhang2018_eel": Paper(
        authors=("Zhang, Anfan", "Li, Bin", "Wang, Minghui", "Chang, Jian"), year=2018,
        title="非惯性系下鳗鱼机器人动力学建模与仿真",
        title_en="Modeling and Simulation of Eel Robots in the non-inertial Frame",
        reproduced="the non-inertial model against the exact (Kelasidi-style) model and the engine: heading, "
                   "CM path and velocity, joint torques (Figs 2–7)"),
}
"""The five reproduced papers by report section (the paper homes' names), in the report's order."""

NOTES_DIR = "paper-notes"  # beside DIR: hand-written notes on full runs, <section>.md


def page_name(key: str) -> str:
    return f"{key}.md"


def _page(key: str, oc: SectionOutcome, meta: dict, notes_dir: Path | None) -> str:
    paper = PAPERS.get(key)
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
        p = PAPERS.get(key)
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
    from lab.core.results import write_text_atomic
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


__all__ = ["PAPERS", "Paper", "write", "index", "NOTES_DIR"]
