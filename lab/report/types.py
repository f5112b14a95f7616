"""The report's records: a section, what it returns (text, figures, a comparison table), and its outcome.

Kept apart from the build loop (:mod:`.core`) and the renderer (:mod:`.render`), which both read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

MARKS = ("pass", "warn", "fail", "info")


@dataclass(frozen=True)
class Row:
    """One line of a section's comparison table. ``mark``: pass (agrees within the stated tolerance),
    warn (disagrees: the note says how and why, as far as known), fail, info (nothing to compare).

    In a ``--quick`` report (:func:`lab.report.core.quick_row`): ``quick_decides`` says the row's
    comparison holds for the short runs too (an identity such as the energy balance), so its mark stands;
    otherwise ``quick_why`` says in words why a short run cannot decide it (the row is then ``info``)."""

    quantity: str
    lab: str
    paper: str
    mark: str
    note: str = ""
    quick_decides: bool = False
    quick_why: str = ""

    def __post_init__(self):
        if self.mark not in MARKS:
            raise ValueError(f"mark: must be one of {', '.join(MARKS)}, got {self.mark!r}")


@dataclass(frozen=True)
class Figure:
    path: Path
    caption: str = ""


@dataclass
class SectionResult:
    body: str = ""  # markdown
    figures: list[Figure] = field(default_factory=list)
    table: list[Row] = field(default_factory=list)


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    paper: str
    func: Callable


@dataclass
class SectionOutcome:
    section: Section
    result: SectionResult
    wall_s: float
    error: str = ""


__all__ = ["MARKS", "Figure", "Row", "Section", "SectionOutcome", "SectionResult"]
