"""The report: the wang2011_creeping section from tiny runs (--quick), its files, and the section registry."""

from __future__ import annotations

import re

import pytest

from lab.cli import main
from lab.report import SECTIONS, Row, SectionResult, section
from lab.report.render import md_to_html


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    # wang2011_creeping only: other sections have their own tests (e.g. tests/papers/zhang2018_eel/test_zhang2018_eel_report.py)
    code = main(["report", "--quick", "--only", "wang2011_creeping", "--workers", "1", "--out", str(out)])
    return code, out


@pytest.mark.slow
def test_quick_report_builds_wang2011_creeping(quick_report):
    code, out = quick_report
    assert code == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "## wang2011_creeping" in md and "| quantity | lab | paper | mark | note |" in md
    assert "Quick mode" in md and "Time:" in md and "total wall time" in md
    figs = sorted((out / "figures").glob("wang2011_creeping_*.png"))
    assert [f.name for f in figs] == ["wang2011_creeping_drag_halves.png", "wang2011_creeping_drag_mass.png", "wang2011_creeping_energy.png",
                                      "wang2011_creeping_optimum_serpenoid.png",  # lab optimize's committed table
                                      "wang2011_creeping_recurrence.png", "wang2011_creeping_startup.png", "wang2011_creeping_turning.png"]
    for f in figs:
        assert f.stat().st_size > 1000 and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"figures/{f.name}" in md
    # self-contained: figures embedded, nothing fetched
    assert page.count("data:image/png;base64,") == len(figs) and "<script" not in page and 'src="figures/' not in page
    assert 'class="info"' in page  # a quick report compares nothing (see test_quick_report_compares_nothing)
    # the runs behind the figures are kept
    from lab.papers.wang2011_creeping import studies as more

    n_runs = 3 + len(more.turn_runs(True)) + len(more.surface_runs(True)) + len(more.drag_runs(True))
    assert len([p for p in (out / "runs").iterdir() if (p / "metrics.json").is_file()]) == n_runs


def test_report_table_marks(quick_report):
    _, out = quick_report
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "0.24–0.26" in md and "~7 s" in md and "energy balance residual" in md
    onset = next(line for line in md.splitlines() if line.startswith("| onset of rhythmic motion"))
    assert "n/a" in onset and "info" in onset


def _table_rows(md: str) -> list[list[str]]:
    rows = [line for line in md.splitlines() if line.startswith("| ") and line.count("|") >= 6]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in rows[1:] if not line.startswith("| quantity")]


def test_quick_report_decides_what_short_runs_can_and_says_why_not_elsewhere(quick_report):
    """A quick report compares what its short runs decide (the energy balance, an identity at every
    instant, keeps its mark) and says in words why it cannot compare the rest; a value the short runs
    could not measure reads "—" with the reason, never ``nan ± nan``."""
    from lab.report.core import QUICK_EMPTY, QUICK_MARK_NOTE, quick_row

    _, out = quick_report
    md = (out / "report.md").read_text(encoding="utf-8")
    table = [r for r in _table_rows(md) if len(r) == 5]
    balance = next(r for r in table if r[0].startswith("energy balance residual"))
    assert balance[3] == "**pass**", balance
    for r in table:
        if r[3] == "**info**" and r[4].startswith(QUICK_MARK_NOTE):
            assert len(r[4]) > len(QUICK_MARK_NOTE) + 20, r  # the reason, in words
    assert sum(r[3] == "**info**" for r in table) >= len(table) - 2
    assert not any("nan" in r[1].lower().split() or "nan ±" in r[1] for r in table)
    # the rule itself, on hand-made rows
    r = quick_row(Row("v", "nan ± nan m/s", "0.2", "warn", "−100 % from E_ref", quick_why="E needs 120 s"))
    assert (r.lab, r.mark, r.note) == (QUICK_EMPTY, "info", f"{QUICK_MARK_NOTE}: E needs 120 s")
    assert quick_row(Row("b", "0.02%", "0", "pass", "tolerance 1%", quick_decides=True)).mark == "pass"
    assert quick_row(Row("w", "0.31 ± 0.02", "0.3", "pass")).lab == "0.31 ± 0.02"
    assert quick_row(Row("n", "nanometre", "x", "info", "kept")) == Row("n", "nanometre", "x", "info", "kept")


BROKEN = re.compile(r"\bnan\b|[−-]\s?[−-]\d|\+[−-]\d|[−-]\+\d|(^|[\s|(])\?($|[\s|).,;])", re.IGNORECASE | re.MULTILINE)


def _broken(text: str) -> list[str]:
    return [text[max(0, m.start() - 40):m.end() + 20] for m in BROKEN.finditer(text)]


def test_quick_report_text_has_no_nan_question_marks_or_doubled_signs(quick_report):
    _, out = quick_report
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert not _broken(text), (name, _broken(text))


def test_the_scan_catches_what_it_guards_against():
    for bad in ("log-log slope −-0.00", "φ_t > 0 turns ? |", "amplitude nan rad", "| ? |", "x +-1.0"):
        assert _broken(bad), bad
    for good in ("slope −1.00", "Why? See below", "nanometre", "a-b", "https://x.org/?q=1", "2 − 1 = 1"):
        assert not _broken(good), good


def test_committed_report_pages_have_no_nan_question_marks_or_doubled_signs():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for page in sorted((root / "docs" / "papers").glob("*.md")):
        assert not _broken(page.read_text(encoding="utf-8")), (page.name, _broken(page.read_text(encoding="utf-8")))


def test_report_html_is_well_formed_and_has_no_raw_markdown(quick_report):
    """Parse report.html: every opened block element is closed in order, and no table cell or paragraph
    shows Markdown syntax (``**``, ``|---``, ``](``) instead of its rendering."""
    from html.parser import HTMLParser

    _, out = quick_report
    page = (out / "report.html").read_text(encoding="utf-8")
    blocks = {"html", "head", "body", "table", "tr", "td", "th", "p", "figure", "figcaption", "h1", "h2", "h3",
              "ul", "ol", "li", "em", "strong", "code", "span", "a", "title", "style"}

    class Check(HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack, self.text, self.errors = [], [], []

        def handle_starttag(self, tag, attrs):
            if tag in blocks:
                self.stack.append(tag)

        def handle_endtag(self, tag):
            if tag in blocks:
                if not self.stack or self.stack[-1] != tag:
                    self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
                else:
                    self.stack.pop()

        def handle_data(self, data):
            if self.stack and self.stack[-1] not in ("style", "code"):
                self.text.append(data)

    c = Check()
    c.feed(page)
    assert not c.errors and not c.stack, (c.errors[:5], c.stack)
    text = " ".join(c.text)
    for raw in ("**", "|---", "]("):
        assert raw not in text, raw


def test_unknown_section_is_exit_2(tmp_path, capsys):
    assert main(["report", "--only", "nope", "--out", str(tmp_path / "r")]) == 2
    assert "error: --only: unknown section 'nope'" in capsys.readouterr().err


def test_a_failing_section_is_reported_and_the_rest_still_built(tmp_path, capsys):
    @section("zz_broken", title="Broken on purpose")
    def broken(ctx):
        raise RuntimeError("boom")

    @section("zz_static", title="No runs", paper="none")
    def static(ctx):
        return SectionResult(body="Some **text** with `code`.\n\n- one\n- two",
                             table=[Row("x", "1", "1", "pass", "a | b")])

    try:
        code = main(["report", "--only", "zz_broken", "zz_static", "--workers", "1", "--out", str(tmp_path)])
    finally:
        SECTIONS.pop("zz_broken", None)
        SECTIONS.pop("zz_static", None)
    assert code == 1
    printed = capsys.readouterr().out
    assert "zz_broken:" in printed and "FAILED: RuntimeError: boom" in printed and "zz_static:" in printed
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Section failed" in page and "<strong>text</strong>" in page and "<li>two</li>" in page
    assert "a \\| b" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_markdown_is_rendered_by_a_markdown_library():
    html = md_to_html("# Title\n\nA *b* and **c** with `x<y`.\n- item 1\n  continued\n- item 2\n\nEnd.\n\n"
                      "| a | b |\n|---|---|\n| 1 | <script> |\n")
    assert "<h3>Title</h3>" in html  # demoted under the section's <h2>
    assert "<p>A <em>b</em> and <strong>c</strong> with <code>x&lt;y</code>.</p>" in html
    assert "<li>item 1\ncontinued</li>" in html and "<li>item 2</li>" in html
    assert "<table>" in html and "<td>&lt;script&gt;</td>" in html  # tables render; raw HTML is escaped
    assert "<p>End.</p>" in html


def test_row_marks_are_checked():
    with pytest.raises(ValueError, match="mark"):
        Row("q", "1", "1", "great")


def test_progress_bars_name_the_section_and_the_check(tmp_path, capsys):
    """On a terminal `lab report` and `lab check` show a bar naming what runs (minutes otherwise silent)."""
    from lab.checks import CHECKS, Check, Figure, run_checks
    from lab.report.core import build_report

    @section("zz_bar", title="Bar")
    def static(ctx):
        return SectionResult(body="x")

    CHECKS["zz_check"] = Check("zz_check", lambda overrides: {"f": Figure.at_most(0.0, 1.0)}, "a check")
    try:
        build_report(tmp_path / "r", only=["zz_bar"], progress=True)
        ok, _ = run_checks(["zz_check"], [], tmp_path / "c", progress=True)
    finally:
        SECTIONS.pop("zz_bar", None)
        CHECKS.pop("zz_check", None)
    err = capsys.readouterr().err
    assert ok and "report: zz_bar" in err and "check: zz_check" in err
