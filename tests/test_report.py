"""The report: the seed001 section from tiny runs (--quick), its files, and the section registry."""

from __future__ import annotations

import pytest

from lab.cli import main
from lab.report import SECTIONS, Row, SectionResult, section
from lab.report.render import md_to_html


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    # seed001 only: other sections have their own tests (e.g. tests/test_seed003_report.py)
    code = main(["report", "--quick", "--only", "seed001", "--workers", "1", "--out", str(out)])
    return code, out


def test_quick_report_builds_seed001(quick_report):
    code, out = quick_report
    assert code == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "## seed001" in md and "| quantity | lab | paper | mark | note |" in md
    assert "Quick mode" in md and "Time:" in md and "total wall time" in md
    figs = sorted((out / "figures").glob("seed001_*.png"))
    assert [f.name for f in figs] == ["seed001_drag_halves.png", "seed001_drag_mass.png", "seed001_energy.png",
                                      "seed001_recurrence.png", "seed001_startup.png", "seed001_turning.png"]
    for f in figs:
        assert f.stat().st_size > 1000 and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"figures/{f.name}" in md
    # self-contained: figures embedded, nothing fetched
    assert page.count("data:image/png;base64,") == len(figs) and "<script" not in page and 'src="figures/' not in page
    for word in ("pass", "warn", "info"):
        assert f'class="{word}"' in page
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
