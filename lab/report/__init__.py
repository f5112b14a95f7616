"""``lab report``: a registry of sections, each reproducing one paper's figures and numbers.

Register a section from the paper's home (``lab/papers/<paper>/report.py``)::

    from lab.report import Row, SectionResult, section

    @section("wang2011_creeping", title="…", paper="Wang et al. 2011")
    def report_section(ctx):
        runs = ctx.run_many([("startup", "snake_passive_creeping", {"sim.duration": 30})])
        fig = ctx.save_figure(make_figure(runs["startup"]), "startup", caption="…")
        return SectionResult(body="…", figures=[fig], table=[Row("E mean", "0.9 J", "1.0 J", "pass")])

and list that module in :mod:`lab.core.plugins` (``"report section"``): the registry imports it on its first
lookup, when a report is built or listed. This package holds only the registry and the renderer.
"""

from lab.report.cli import add_cli
from lab.report.core import SECTIONS, Context, Figure, Row, SectionResult, build_report, load_sections, section

__all__ = ["add_cli", "SECTIONS", "Context", "Figure", "Row", "SectionResult", "build_report", "load_sections",
           "section"]
