"""A paper's manifest: everything the lab needs to know about one reproduced paper, declared once in
``lab/papers/<authorYYYY_topic>/__init__.py`` as ``PAPER = Paper(...)``.

The manifest is data, not code: importing a paper's package imports this module only, never the
library or the paper's own modules. What it names is loaded when it is needed:

* ``plugins`` — registry kind → the paper's modules that register entries of that kind (relative to the
  paper's package: ``".checks"``). The lab's registries (:class:`lab.core.registry.Registry`) import them on
  their first lookup, after the library's built-ins, papers in (year, key) order; so ``lab list``, the
  JSON Schema, ``lab check`` and the report's order follow from the manifests.
* the reference (authors, year, titles, venue, DOI) — the report's paper pages and BibTeX;
* ``figures`` — what the lab reproduces, one entry per figure or table of the paper;
* ``scenarios`` — the folder of the paper's scenario files inside its package (found by name like the
  shipped ones);
* ``tolerances`` — the paper's tolerance table (a module with ``TOL``), merged into
  :data:`lab.core.tolerances.TOL`;
* ``replay_runs`` — the report's headline run(s) whose replay the paper's docs page embeds
  (:mod:`lab.report.docs`, :mod:`lab.replay`).

Adding a sixth paper is one new folder with such an ``__init__.py`` (``tests/core/test_papers.py``
registers a toy paper from a temporary folder to prove it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

KINDS = ("robot", "controller", "friction law", "force law", "arena", "trial", "check", "analysis", "fault",
         "report section")


@dataclass(frozen=True)
class Paper:
    """The manifest of one reproduced paper. ``title_en``: the paper's own English title, or a
    translation marked as such; ``title``: the title as printed."""

    key: str  # the paper's folder, authorYYYY_topic; also its report section's id
    authors: tuple[str, ...]  # "Family, Given" as the paper prints them (romanised)
    year: int
    title: str
    title_en: str
    venue: str = ""
    doi: str = ""
    translated: bool = False  # title_en is the lab's translation, not printed in the paper
    reproduced: str = ""  # one line: what the lab reproduces
    figures: tuple[str, ...] = ()  # the paper's figures and tables the lab reproduces
    plugins: MappingProxyType | dict = field(default_factory=dict)  # kind -> modules (relative: ".checks")
    scenarios: str = "scenarios"  # folder inside the package holding the paper's scenario files
    tolerances: str = ""  # module (relative) whose TOL dict holds the paper's tolerances
    # the report's run names whose replay (lab replay) the paper's docs page embeds: the first one the
    # report's runs/ holds (a full build's name, then a --quick build's); none: no replay on the page
    replay_runs: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.key.isidentifier() or not any(c.isdigit() for c in self.key):
            raise ValueError(f"paper key {self.key!r}: must be authorYYYY_topic, a Python identifier")
        bad = set(self.plugins) - set(KINDS)
        if bad:
            raise ValueError(f"paper {self.key}: unknown plugin kinds {sorted(bad)}; allowed: {', '.join(KINDS)}")
        object.__setattr__(self, "plugins", MappingProxyType({k: tuple(v) for k, v in self.plugins.items()}))

    @property
    def package(self) -> str:
        return f"lab.papers.{self.key}"

    def modules(self, kind: str) -> tuple[str, ...]:
        """The absolute module names that register this paper's entries of ``kind``."""
        return tuple(self.package + m if m.startswith(".") else m for m in self.plugins.get(kind, ()))

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

    def bibtex(self, key: str | None = None) -> str:
        key = key or self.key
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


__all__ = ["KINDS", "Paper"]
