"""``lab replay RUN_DIR --html FILE`` (and a sweep's folder: ``--html DIR``, an index and a page per run)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_cli(sub) -> None:
    p = sub.add_parser("replay", help="write a run's interactive replay page (self-contained HTML)")
    p.add_argument("folder", type=Path, help="a run folder (lab run --out) or a sweep folder (lab sweep --out)")
    p.add_argument("--html", type=Path, default=None, metavar="FILE",
                   help="the page to write (a run: FILE, default <folder>.html beside it; a sweep: a folder "
                        "with index.html and runs/<id>.html)")
    p.add_argument("--runs", default=None, metavar="ID,...",
                   help="a sweep: the runs to write pages for (default: all, at most 50)")
    p.add_argument("--overwrite", action="store_true", help="replace the --html file (or the lab's own folder)")
    p.set_defaults(handler=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from lab.core.errors import LabError
    from lab.replay.page import is_sweep, write_page, write_sweep

    folder = Path(args.folder)
    if is_sweep(folder):
        out = args.html or folder.with_name(folder.name + "-replay")
        select = [s.strip() for s in args.runs.split(",") if s.strip()] if args.runs else None
        written = write_sweep(folder, out, select, overwrite=args.overwrite)
        print(f"wrote {written}/index.html")
        return 0
    if args.runs:
        raise LabError("--runs", f"only for a sweep folder; {folder} is not one")
    target = args.html or folder.with_name(folder.name.rstrip("/") + ".html")
    written = write_page(folder, target, overwrite=args.overwrite)
    print(f"wrote {written}")
    return 0
