"""``lab optimize STUDY.toml --out DIR [--workers N | --scheduler ADDRESS]``: the command (docs/optimize.md)."""

from __future__ import annotations

import re
from pathlib import Path

from lab.core.errors import LabError
from lab.optimize.study import load_study
from lab.sweep.definition import parse_set


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("optimize", help="search a scenario's fields for the best design (Optuna on dask)",
                              description="Run an optimisation study: Optuna asks for trials, dask runs them, every "
                                          "trial is told once. Re-running with the same --out resumes the study.")
    p.add_argument("study", help="study file (.toml), e.g. scenarios/studies/hu2013_arm.toml")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, metavar="N",
                       help="local worker processes (default: number of CPUs, at most the trial budget)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="use a running dask scheduler, e.g. tcp://10.0.0.5:8786 (workers share no files with --out)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder (default: runs/optimize-<name>-<time>): new, empty, or this study's own "
                        "folder, which is resumed")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario field in every trial, e.g. --set sim.duration=5 (repeatable)")
    p.set_defaults(handler=cmd_optimize)


def cmd_optimize(args) -> int:
    import time

    from lab.core.outputs import prepare, unique_default
    from lab.optimize.engine import run_study

    study = load_study(args.study, parse_set(args.overrides))
    if args.workers is not None and not 1 <= args.workers <= 256:
        raise LabError("--workers", f"must be in [1, 256], got {args.workers}")
    if args.scheduler and not re.match(r"^[a-z]+://", args.scheduler):
        raise LabError("--scheduler", f"must be an address like tcp://host:8786, got {args.scheduler!r}")
    out = args.out or unique_default(Path("runs") / f"optimize-{study.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    output = prepare(out, "optimize", name=study.name)
    return run_study(study, output, workers=args.workers, scheduler=args.scheduler,
                     quiet=bool(getattr(args, "quiet", False)), command=getattr(args, "command", None))
