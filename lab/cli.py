"""The ``lab`` command line: run, check, urdf, list (and sweep, report).

Bad input never gives a traceback: one line ``error: <where>: <what>``, exit 2; so does a
file-system error (no permission, read-only, no space: the path and the system's words), with the
traceback only in the log at debug level. Where the lab may write is :mod:`lab.core.outputs`' rule,
applied before any work starts. A diverged or unstable simulation (lab.core.instability) exits 3 with its data kept.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from lab import __version__
from lab.core.errors import LabError
from lab.core.writes import Terminated, sigterm_raises

log = logging.getLogger("lab.cli")

EXIT_OK, EXIT_INPUT, EXIT_DIVERGED = 0, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own usage errors: one line, exit 2
        raise LabError(self.prog, message)


def _common(p: argparse.ArgumentParser, gui: bool = True) -> None:
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override any scenario field, e.g. --set friction.mu_n=0.5 (repeatable)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder: new, empty, or the lab's own output of the same kind (with --overwrite)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a previous lab output of this kind in --out: only the files the lab wrote there "
                        "go (run: also an existing --video or --screenshot file)")
    if gui:
        p.add_argument("--gui", action="store_true", help="open the PyBullet window (real-time)")


def _loudness(p: argparse.ArgumentParser, top: bool) -> None:
    """-v, -q, --log-level: on the top-level parser (with their defaults) and again on every
    subcommand (``lab run X -q`` as ``lab -q run X``), where an absent flag leaves the top-level value."""
    kw = {} if top else {"default": argparse.SUPPRESS}
    loud = p.add_mutually_exclusive_group()
    loud.add_argument("-v", "--verbose", action="store_true", help="log progress (level INFO)", **kw)
    loud.add_argument("-q", "--quiet", action="store_true", help="log errors only (level ERROR)", **kw)
    loud.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                      help="log level (default: warning)", **({"default": None} if top else kw))


def _plugin_flag(p: argparse.ArgumentParser, top: bool) -> None:
    """--plugin on the top-level parser and on every subcommand (both lists are loaded)."""
    p.add_argument("--plugin", dest="plugins" if top else "plugins_sub", action="append", default=[],
                   metavar="MODULE_OR_FILE",
                   help="load a user plugin first: a module name or a .py file relative to the working "
                        "directory, which registers controllers, force laws, robots … (repeatable; installed "
                        "packages join through the 'lab.plugins' entry point by themselves)")


def _subcommands(p: argparse.ArgumentParser):
    """Every subcommand parser below ``p`` (``run``, ``regress check`` …)."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                yield child
                yield from _subcommands(child)


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="lab", description="Virtual robot lab on PyBullet.")
    _loudness(ap, top=True)
    _plugin_flag(ap, top=True)
    ap.add_argument("--version", action="version", version=f"lab {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    p = sub.add_parser("run", help="run one scenario and write results and plots")
    p.add_argument("scenario", help="scenario name (see `lab list`) or path to a .toml")
    _common(p)
    p.add_argument("--duration", type=float, default=None, metavar="S", help="simulated seconds (overrides sim.duration)")
    p.add_argument("--video", default=None, metavar="FILE", help="record an .mp4 or .gif from the engine camera")
    p.add_argument("--screenshot", default=None, metavar="PNG",
                   help="save a PNG of the last instant with the overlays (the window's view with --gui, else the video camera)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--html", default=None, metavar="FILE", help="also write the run's replay page (as `lab replay`)")

    p = sub.add_parser("check", help="engine vs analytic cross-checks")
    p.add_argument("names", nargs="*", help="checks to run (default: all)")
    p.add_argument("--list", action="store_true", help="list the checks (with --faults: the faults)")
    p.add_argument("--faults", nargs="*", default=None, metavar="FAULT",
                   help="run the checks under each named fault (none named: all) and write the matrix "
                        "faults.json: which check catches which fault")
    _common(p, gui=False)

    p = sub.add_parser("urdf", help="write a robot's URDF")
    p.add_argument("robot", help="robot type (see `lab list`)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="a robot field, as in scenarios (robot.n_modules=12) or bare (n_modules=12)")
    p.add_argument("-o", "--output", type=Path, default=None, help="file to write (default: stdout)")
    p.add_argument("--overwrite", action="store_true", help="replace the -o file if it exists")
    p.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)

    p = sub.add_parser("list", help="list scenarios, robots, controllers, force laws and checks")

    for extra in _extra_commands():
        extra(sub)
    for child in _subcommands(ap):
        if not any("--quiet" in a.option_strings for a in child._actions):
            _loudness(child, top=False)
        if not any("--plugin" in a.option_strings for a in child._actions):
            _plugin_flag(child, top=False)
    return ap


EXTRA_COMMANDS = (("sweep", "lab.sweep.definition"), ("report", "lab.report"), ("show", "lab.core.schema"),
                  ("regress", "lab.regress.cli"), ("replay", "lab.replay.cli"),
                  ("optimize", "lab.optimize.cli"))


def _extra_commands():
    """Commands contributed by other modules (sweep, report) register here. One that cannot be imported
    still appears, and says why when used (rather than argparse's 'invalid choice')."""
    import importlib

    out = []
    for name, module in EXTRA_COMMANDS:
        try:
            out.append(importlib.import_module(module).add_cli)
        except ImportError as exc:
            log.debug("cannot import %s", module, exc_info=True)
            out.append(_unavailable(name, exc))
    return out


def _unavailable(name: str, exc: ImportError):
    def add(sub) -> None:
        p = sub.add_parser(name, help=f"(unavailable: {exc})")
        p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

        def handler(args):
            raise LabError(f"lab {name}", f"cannot be loaded: {type(exc).__name__}: {exc}")

        p.set_defaults(handler=handler)

    return add


def cmd_run(args) -> int:
    from lab.core import scenario as scn
    from lab.core.outputs import check_file, check_side_files, prepare, unique_default
    from lab.core.provenance import collect
    from lab.results import write_run
    from lab.present import run_scenario

    started, t0 = time.time(), time.perf_counter()
    overrides = list(args.overrides)
    if args.duration is not None:
        overrides.append(f"sim.duration={args.duration!r}")
    sc = scn.load(args.scenario, overrides)
    if args.video and Path(args.video).suffix.lower() not in (".mp4", ".gif"):
        raise LabError("--video", f"must end in .mp4 or .gif, got {args.video}")
    # Every place the run will write is checked before the simulation starts (lab.core.outputs).
    if args.html and sc.replay_config.rate_hz <= 0:
        raise LabError("--html", "needs replay.rate_hz > 0 (with 0 the run stores no link poses to replay)")
    out = args.out or unique_default(Path("runs") / f"{sc.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    output = prepare(out, "run", overwrite=args.overwrite)
    check_side_files(output, {"--video": args.video, "--screenshot": args.screenshot}, overwrite=args.overwrite,
                     suffixes={"--video": (".mp4", ".gif"), "--screenshot": (".png",)})
    if args.html:
        check_file(args.html, "--html", overwrite=args.overwrite)
    from lab.core.progress import enabled

    result = run_scenario(sc, gui=args.gui, progress=enabled(), video=args.video,
                          screenshot=args.screenshot)
    write_run(output, result, plots=not args.no_plots,
              provenance=collect(args.command, started, time.perf_counter() - t0))
    print(summary(result, out))
    if args.html:
        from lab.replay.page import write_page

        print(f"  replay page: {write_page(out, args.html, overwrite=args.overwrite)}")
    video_error = result.extras.get("video_error") if isinstance(result.extras, dict) else None
    if video_error:  # the run's results are written; the video alone was lost (and nothing half-written published)
        raise LabError(f"--video {args.video}", f"not written: {video_error}; the run's results are in {out}/")
    return EXIT_DIVERGED if result.status in ("diverged", "unstable") else EXIT_OK


def headlines(scenario) -> tuple:
    """The run's headline metrics: the trial's, the analyses' the scenario asks for, the controller's, the
    robot's; each only where it means something for this run's controller (Headline.controllers)."""
    from lab.analysis.registry import headlines as analysis_headlines
    from lab.controllers import CONTROLLERS
    from lab.robots.base import hooks

    trial = scenario.trial
    kind = scenario.controller_type
    entry = CONTROLLERS[kind] if kind in CONTROLLERS else None
    own = tuple(getattr(entry.cls, "headline", ())) if entry is not None else ()
    every = ((*trial.headline,) if trial is not None else ()) + analysis_headlines(scenario.analyses, kind) \
        + own + tuple(hooks(scenario.robot).headline())
    return tuple(h for h in every if h.applies(kind))


def summary(result, out: Path) -> str:
    """What ``lab run`` prints: status and times, the headline metrics, then the generic ones."""
    from lab.core.views import summary_lines

    m = result.metrics
    lines = [f"{result.scenario.name}: {m['status']}" + (f" ({result.error})" if result.error else "")]
    sim, wall, rtf = m.get("sim_time_s"), m.get("wall_time_s"), m.get("realtime_factor")
    if sim is not None and wall is not None:
        lines.append(f"  {sim:.4g} s simulated in {wall:.3g} s wall" + (f" ({rtf:.3g}× real time)" if rtf else ""))
    lines += summary_lines(m, headlines(result.scenario))
    lines.append(f"  results in {out}/ (metrics.json, timeseries.csv, scenario.toml, provenance.json, *.png)")
    return "\n".join(lines)


def cmd_check(args) -> int:
    from lab.checks import CHECKS, run_checks
    from lab.core.outputs import prepare, unique_default

    if args.list and args.faults is not None:
        from lab.checks.faults import FAULTS

        for name, f in FAULTS.items():
            print(f"{name:<26} {f.degrades}")
        return EXIT_OK
    if args.list:
        for name, chk in CHECKS.items():
            print(f"{name:<18} {chk.doc}")
        return EXIT_OK
    started = time.time()
    names = args.names or list(CHECKS)
    for n in names:
        if n not in CHECKS:
            raise LabError("lab check", f"unknown check {n!r}; allowed: {', '.join(CHECKS)}")
    if args.faults is not None:
        return _check_faults(args, names, started)
    out = args.out or unique_default(Path("runs") / f"checks-{time.strftime('%Y%m%d-%H%M%S')}")
    output = prepare(out, "check", overwrite=args.overwrite)
    from lab.core.progress import enabled

    ok, table = run_checks(names, args.overrides, output, command=args.command, started=started,
                           progress=enabled())
    print(table)
    print(f"checks.json in {out}/")
    return EXIT_OK if ok else 1


def _check_faults(args, names: list[str], started: float) -> int:
    """``lab check [CHECK...] --faults [FAULT...]``: the fault matrix (lab.checks.faults)."""
    from lab.checks.faults import FAULTS, run_faults
    from lab.core.outputs import prepare, unique_default

    faults = args.faults or list(FAULTS)
    for n in faults:
        if n not in FAULTS:
            raise LabError("--faults", f"unknown fault {n!r}; allowed: {', '.join(FAULTS)}")
    out = args.out or unique_default(Path("runs") / f"faults-{time.strftime('%Y%m%d-%H%M%S')}")
    output = prepare(out, "check", overwrite=args.overwrite)
    from lab.core.progress import enabled

    ok, table = run_faults(faults, names, args.overrides, output, command=args.command, started=started,
                           progress=enabled())
    print(table)
    print(f"faults.json in {out}/")
    return EXIT_OK if ok else 1


def cmd_urdf(args) -> int:
    from lab.core.outputs import check_file, write_file
    from lab.robots import ROBOTS
    from lab.core.scenario import apply_overrides, build

    if args.robot not in ROBOTS:
        raise LabError("lab urdf", f"unknown robot {args.robot!r}; allowed: {', '.join(ROBOTS)}")
    # the run form (robot.n_modules=12) as everywhere else; the bare form (n_modules=12) still works
    overrides = [o[len("robot."):] if o.startswith("robot.") else o for o in args.overrides]
    data = apply_overrides({}, overrides)
    spec = build(ROBOTS[args.robot], data, args.robot)
    if args.output is not None:
        target = check_file(args.output, "-o", overwrite=args.overwrite)
        text = spec.to_urdf()
        write_file(target, text, f"-o {target}")
        print(f"wrote {target}")
    else:
        sys.stdout.write(spec.to_urdf())
    return EXIT_OK


def cmd_list(args) -> int:
    from lab.arenas import ARENAS
    from lab.checks import CHECKS
    from lab.controllers import CONTROLLERS
    from lab.forces import FORCES, FRICTION
    from lab.papers import PAPERS
    from lab.robots import ROBOTS
    from lab.core.scenario import SCENARIO_DIR, list_scenarios, read_toml
    from lab.trials import TRIALS

    print("scenarios:")
    for p in list_scenarios():
        desc = read_toml(p).get("description", "")
        print(f"  {p.stem:<28} {desc}")
    sweeps = sorted((SCENARIO_DIR / "sweeps").glob("*.toml"))
    if sweeps:
        print("sweeps (lab sweep NAME, or a path to your own .toml):")
        for p in sweeps:
            print(f"  {p.stem:<28} {read_toml(p).get('description', '')}")
    studies = sorted((SCENARIO_DIR / "studies").glob("*.toml"))
    if studies:
        print("studies (lab optimize NAME, or a path to your own .toml):")
        for p in studies:
            print(f"  {p.stem:<28} {read_toml(p).get('description', '')}")
    suites = sorted((SCENARIO_DIR / "suites").glob("*.toml"))
    if suites:
        print("suites (lab regress check NAME --baseline DIR):")
        for p in suites:
            print(f"  {p.stem:<28} {read_toml(p).get('description', '')}")
    print("robots:       " + ", ".join(ROBOTS))
    print("controllers:  " + ", ".join(CONTROLLERS))
    print("friction:     " + ", ".join(FRICTION))
    print("force laws:   " + ", ".join(FORCES))
    print("arenas:       " + ", ".join(ARENAS))
    print("trials:       " + ", ".join(TRIALS))
    print("checks:       " + ", ".join(CHECKS))
    print("papers:       " + ", ".join(PAPERS) + "   (lab/papers/<name>: report section, checks, studies)")
    from lab.core.user_plugins import loaded

    if loaded():  # entry points of installed packages, --plugin and a file's plugins (docs/plugins.md)
        print("plugins:      " + ", ".join(loaded()))
    return EXIT_OK


COMMANDS = {"run": cmd_run, "check": cmd_check, "urdf": cmd_urdf, "list": cmd_list}


def _one_line(text) -> str:
    """Control characters written as escapes (\\n, \\t, \\x1b): an error stays one line, and a terminal
    escape in a user's key or path is shown, not obeyed."""
    import re

    return re.sub(r"[\x00-\x1f\x7f]", lambda m: repr(m.group())[1:-1], str(text))


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help and --version print and stop
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        given = [flag for flag, on in (("-v/--verbose", args.verbose), ("-q/--quiet", args.quiet),
                                       ("--log-level", args.log_level is not None)) if on]
        if len(given) > 1:  # one before the subcommand, one after
            raise LabError("lab", f"argument {given[1]}: not allowed with argument {given[0]}")
        level = (args.log_level.upper() if args.log_level else
                 "INFO" if args.verbose else "ERROR" if args.quiet else "WARNING")
        logging.getLogger().setLevel(level)
        args.command = ["lab", *argv]  # as typed, for provenance.json
        from lab.core.user_plugins import load as load_plugin

        for spec in [*args.plugins, *getattr(args, "plugins_sub", [])]:  # relative to the working directory
            load_plugin(spec)
        handler = COMMANDS.get(args.cmd) or getattr(args, "handler", None)
        with sigterm_raises():  # `kill PID` unwinds like Ctrl-C: temporaries removed, one line, exit 143
            code = handler(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe must meet the handler below
        return code
    except LabError as exc:  # one line whatever the input held (a newline in a --set key, in a file name)
        print(f"error: {_one_line(exc.where)}: {_one_line(exc.what)}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # `lab list | head`: the reader left; say nothing, as Unix tools do
        import os

        # Python's documented recipe: point stdout at devnull so the interpreter's final flush is quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE
    except OSError as exc:  # the file system refused (checked paths are LabErrors already): one line
        from lab.core.outputs import reason

        log.debug("file-system error", exc_info=True)
        where = exc.filename if exc.filename is not None else "file system"
        print(f"error: {where}: {reason(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except Terminated:
        print("error: terminated (SIGTERM); nothing half-written was kept", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
