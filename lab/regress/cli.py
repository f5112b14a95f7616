"""``lab regress record SUITE --out DIR`` and ``lab regress check SUITE --baseline DIR``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lab.core.errors import LabError

EXIT_OK, EXIT_DRIFT = 0, 1


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("regress", help="regression suites: record a baseline, check what drifted",
                              description="Record a baseline of a suite's metrics, or run the suite again and "
                                          "compare (exit 0 all held, 1 something drifted, 2 bad input).")
    sub = p.add_subparsers(dest="regress_cmd", required=True, parser_class=subparsers._parser_class)

    def common(q) -> None:
        q.add_argument("suite", help="suite file (.toml), or a name from scenarios/suites/ (e.g. regression)")
        q.add_argument("--workers", type=int, default=1, metavar="N", help="parallel runs (dask LocalCluster)")
        q.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                       help="add an override to every run of the suite (its definition then differs)")

    q = sub.add_parser("record", help="run the suite and write its baseline folder")
    common(q)
    q.add_argument("--out", type=Path, required=True, metavar="DIR", help="the baseline folder")
    q.add_argument("--overwrite", action="store_true", help="replace a previous baseline there (its files only)")
    q.set_defaults(handler=cmd_record)

    q = sub.add_parser("check", help="run the suite and compare with a baseline")
    common(q)
    q.add_argument("--baseline", type=Path, required=True, metavar="DIR", help="a folder written by record")
    q.add_argument("--junit", type=Path, default=None, metavar="FILE", help="write JUnit XML here")
    q.add_argument("--markdown", type=Path, default=None, metavar="FILE", help="write a Markdown summary here")
    q.add_argument("--overwrite", action="store_true", help="replace --junit/--markdown files that exist")
    q.add_argument("--all", action="store_true", help="print every compared metric, not only failures")
    q.set_defaults(handler=cmd_check)


def _suite(args):
    from lab.regress.suite import load_suite

    if args.workers < 1:
        raise LabError("--workers", f"must be at least 1, got {args.workers}")
    suite = load_suite(args.suite)
    if args.overrides:
        from dataclasses import replace

        from lab.core import scenario as scn

        entries = []
        for e in suite.entries:
            if e.kind == "run":
                ov = e.overrides + tuple(args.overrides)
                e = replace(e, overrides=ov, scenario=scn.load(_ref(suite, e), list(ov)))
            entries.append(e)
        suite = replace(suite, entries=tuple(entries))
    return suite


def _ref(suite, e) -> str:
    ref = e.target
    if ref.endswith(".toml") and not Path(ref).is_absolute():
        ref = str((suite.path.parent / ref).resolve())
    return ref


def _progress(entry_id: str, status) -> None:
    from lab.core.progress import enabled

    if enabled():
        print(f"  {entry_id}: {status}", file=sys.stderr, flush=True)


def cmd_record(args) -> int:
    from lab.regress import record

    suite = _suite(args)
    t0 = time.perf_counter()
    out = record(suite, args.out, workers=args.workers, overwrite=args.overwrite, command=["lab", *sys.argv[1:]])
    print(f"baseline of {suite.name!r}: {len(suite.entries)} entries in {out} ({time.perf_counter() - t0:.1f} s)")
    return EXIT_OK


def cmd_check(args) -> int:
    from lab.core.outputs import check_file, write_file
    from lab.regress import check, read_baseline
    from lab.regress.render import junit, markdown, table

    suite = _suite(args)
    baseline = read_baseline(args.baseline)
    # every output is checked before anything runs, and written only once the comparison is done
    for path, label in ((args.junit, "--junit"), (args.markdown, "--markdown")):
        if path is not None:
            check_file(path, label, overwrite=args.overwrite)
    t0 = time.perf_counter()
    rows, env, _ = check(suite, baseline, workers=args.workers, command=["lab", *sys.argv[1:]])
    bad = [r for r in rows if r.failed]
    if env:
        print("environment differs from the baseline's (floating-point results can move):")
        for c in env:
            print(f"  {c}")
    text = table(rows, all_rows=args.all)
    if text:
        print(text)
    held = sum(r.status == "ok" for r in rows)
    print(f"{suite.name}: {len(suite.entries)} entries, {held} metrics held, {len(bad)} failed "
          f"({time.perf_counter() - t0:.1f} s)")
    if args.junit is not None:
        write_file(args.junit, junit(suite.name, [e.id for e in suite.entries], rows, env), f"--junit {args.junit}")
    if args.markdown is not None:
        write_file(args.markdown, markdown(suite.name, rows, len(suite.entries), env), f"--markdown {args.markdown}")
    return EXIT_DRIFT if bad else EXIT_OK


__all__ = ["add_cli", "cmd_check", "cmd_record"]
