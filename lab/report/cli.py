"""``lab report``: build the report from the registered sections."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from lab.core.errors import LabError


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("report", help="run the report sections and write report.md and report.html",
                              description="Reproduce the papers' figures and numbers, section by section, into "
                                          "one report (markdown + self-contained HTML).")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder (default: runs/report-<time>): new, empty, or a previous report with --overwrite")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a previous report in --out (only the files the lab wrote there go)")
    p.add_argument("--only", nargs="+", default=None, metavar="SECTION", help="build only these sections")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="parallel runs on a dask LocalCluster (default: number of CPUs; 1 = in this process)")
    p.add_argument("--quick", action="store_true", help="tiny runs: checks the pipeline, numbers not comparable")
    p.add_argument("--docs", type=Path, default=None, metavar="DIR",
                   help="also write one Markdown page per paper (+ figures, index.md) into DIR, e.g. docs/papers")
    p.add_argument("--list", action="store_true", help="list the sections")
    p.set_defaults(handler=cmd_report)


def cmd_report(args) -> int:
    from lab.report.core import build_report, load_sections
    from lab.report.render import timing_line

    if args.list:
        for s in load_sections().values():
            print(f"{s.key:<18} {s.title}" + (f"  [{s.paper}]" if s.paper else ""))
        return 0
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    if not 1 <= workers <= 256:
        raise LabError("--workers", f"must be in [1, 256], got {workers}")
    from lab.core.outputs import prepare, unique_default
    from lab.core.progress import enabled

    started = time.time()
    sections = load_sections()
    for k in args.only or ():
        if k not in sections:
            raise LabError("--only", f"unknown section {k!r}; allowed: {', '.join(sections)}")
    out = args.out or unique_default(Path("runs") / f"report-{time.strftime('%Y%m%d-%H%M%S')}")
    output = prepare(out, "report", overwrite=args.overwrite)
    docs_output = prepare(args.docs, "docs", overwrite=args.overwrite, label="--docs") if args.docs else None
    outcomes, total = build_report(output, only=args.only, workers=workers, quick=args.quick,
                                   on_section=lambda oc: print(timing_line(oc), flush=True),
                                   command=getattr(args, "command", None), started=started,
                                   progress=enabled())
    print(f"report.md, report.html in {out}/ (total wall time {total:.1f} s)")
    if docs_output is not None:
        from lab.report import docs

        meta = {"quick": args.quick, "workers": workers, "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "notes_dir": str(Path(args.docs).parent / docs.NOTES_DIR), "runs_dir": str(Path(out) / "runs")}
        docs.write(docs_output, outcomes, meta)
        print(f"paper pages in {args.docs}/")
    return 1 if any(oc.error for oc in outcomes) else 0
