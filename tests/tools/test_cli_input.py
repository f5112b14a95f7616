"""Bad input, in every command, never gives a traceback and never changes the file system.

One table of bad inputs across all six commands (run, check, urdf, list, sweep, report). Each case
runs in a fresh folder holding the things users have lying around (their own folders and files,
earlier lab outputs of every kind, broken scenario and sweep files) and asserts: exit code 2, exactly
one ``error:`` line naming the field or path, nothing on stdout, no traceback, and the folder's listing
and contents byte for byte as before. The work itself (simulation, checks, sweep, report) is replaced
by a trap, so every refusal is proven to come before any work starts, and the table stays fast.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, snapshot

from lab.cli import main

FOREIGN = "exists and holds files the lab did not write; choose another folder or remove it"
S = "snake_passive_creeping"


def marker(folder: Path, kind: str, files: list[str], **extra) -> None:
    (folder / f".lab-{kind}").write_text(json.dumps({"kind": kind, "files": files, **extra}))


def populate(tmp: Path) -> None:
    """What a user's working folder might hold."""
    (tmp / "user").mkdir()
    (tmp / "user" / "notes.txt").write_text("my notes\n")
    (tmp / "user" / "data").mkdir()
    (tmp / "user" / "data" / "trial.csv").write_text("t,x\n0,1\n")
    (tmp / "hidden").mkdir()
    (tmp / "hidden" / ".config").write_text("secret = 1\n")
    (tmp / "empty").mkdir()
    (tmp / "afile").write_text("a file, not a folder\n")
    (tmp / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    (tmp / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp / "robot.urdf").write_text("<robot name='mine'/>\n")
    os.mkfifo(tmp / "fifo")
    (tmp / "movie.mp4").mkdir()  # a folder with a video's name
    # earlier lab outputs of each kind
    for kind, files in (("run", ["metrics.json", "scenario.toml"]), ("check", ["checks.json"]),
                        ("report", ["report.md"])):
        d = tmp / f"lab{kind}"
        d.mkdir()
        for f in files:
            (d / f).write_text("{}\n")
        marker(d, kind, files)
    d = tmp / "labsweep"
    d.mkdir()
    (d / "sweep.toml").write_text("name = 'other'\n")
    marker(d, "sweep", ["sweep.toml"], name="other")
    d = tmp / "labrun_usermetrics"  # a lab run folder where the user put a metrics.json of their own
    d.mkdir()
    (d / "metrics.json").write_text('{"mine": 1}\n')
    marker(d, "run", [])
    d = tmp / "labcheck_userjson"
    d.mkdir()
    (d / "checks.json").write_text('{"mine": 1}\n')
    marker(d, "check", [])
    d = tmp / "labreport_userfigs"  # the user made a figures/ folder in a lab report folder
    (d / "figures").mkdir(parents=True)
    (d / "figures" / "mine.png").write_bytes(b"\x89PNG")
    marker(d, "report", ["report.md"])
    (d / "report.md").write_text("# r\n")
    # scenario files
    (tmp / "scen_dir").mkdir()
    (tmp / "scen_dir" / "x.toml").write_text("name = 'x'\n")
    ok = "[robot]\ntype='snake'\n[controller]\ntype='serpenoid'\n"
    (tmp / "broken.toml").write_text("name = 'x'\n[robot\n")
    (tmp / "unknown_top.toml").write_text("name = 'x'\nwings = 2\n" + ok)
    (tmp / "no_robot.toml").write_text("name = 'x'\n[controller]\ntype='serpenoid'\n")
    (tmp / "bad_name.toml").write_text("name = 'a b'\n" + ok)
    (tmp / "binary.toml").write_bytes(b"\xff\xfe\x00name")
    (tmp / "empty.toml").write_text("")
    (tmp / "bad_friction.toml").write_text("name = 'x'\n" + ok + "[friction]\ntype='coulomb'\nmu_n = -1\n")
    # sweep files
    sweeps = {
        "ok": '[set]\n"sim.duration" = 0.1\n[[axis]]\nkey = "controller.E_ref"\nvalues = [0.5, 1.0]\n',
        "bogus": "bogus = 1\n",
        "badbase": None,
        "repeat0": "repeat = 0\n",
        "mode": 'mode = "star"\n',
        "nokind": '[[axis]]\nkey = "controller.E_ref"\n',
        "twokinds": '[[axis]]\nkey = "controller.E_ref"\nvalues = [1.0]\ngrid = {start = 0, stop = 1, num = 2}\n',
        "emptyvalues": '[[axis]]\nkey = "controller.E_ref"\nvalues = []\n',
        "dupvalues": '[[axis]]\nkey = "controller.E_ref"\nvalues = [1.0, 1.0]\n',
        "gridnonum": '[[axis]]\nkey = "controller.E_ref"\ngrid = {start = 0.1, stop = 1}\n',
        "randomhigh": '[[axis]]\nkey = "controller.E_ref"\nrandom = {low = 1, high = 0, n = 2}\n',
        "badkey": '[[axis]]\nkey = "controller..E_ref"\nvalues = [1.0]\n',
        "dupaxis": '[[axis]]\nkey = "controller.E_ref"\nvalues = [1.0]\n[[axis]]\nkey = "controller.E_ref"\n'
                   'values = [2.0]\n',
        "setaxis": '[set]\n"controller.E_ref" = 1.0\n[[axis]]\nkey = "controller.E_ref"\nvalues = [2.0]\n',
        "setseed": '[set]\nseed = 3\n',
        "unknownfield": '[[axis]]\nkey = "controller.E_reff"\nvalues = [1.0]\n',
        "outofrange": '[[axis]]\nkey = "controller.E_ref"\nvalues = [1.0, -5.0]\n',
        "zip": 'mode = "zip"\n[[axis]]\nkey = "controller.E_ref"\nvalues = [1.0, 2.0]\n[[axis]]\n'
               'key = "friction.mu_n"\nvalues = [0.3]\n',
        "badname": 'name = "a b"\n',
        "toml": "repeat = [\n",
        "seedneg": "seed = -1\n",
    }
    for name, body in sweeps.items():
        text = 'base = "no_such_scenario"\n' if body is None else f'base = "{S}"\n{body}'
        (tmp / f"sw_{name}.toml").write_text(text)
    (tmp / "sw_nobase.toml").write_text("repeat = 2\n")


def R(*extra, scenario=S, out="out"):
    return ["run", scenario, *extra, *(["--out", out] if out else [])]


def C(*extra):
    return ["check", "friction_block", *extra]


def SW(name="ok", *extra):
    return ["sweep", f"sw_{name}.toml", "--workers", "1", *extra]


# (argv, what the one error line must contain: the field or path, and what is wrong)
CASES = [
    # ---------------------------------------------------------------- run: scenario and overrides
    (["run", "no_such_scenario", "--out", "out"], "no_such_scenario.toml: no such scenario file"),
    (["run", "missing.toml", "--out", "out"], "missing.toml: no such scenario file"),
    (["run", "scen_dir", "--out", "out"], "scen_dir: is a folder, not a scenario file"),
    (["run", "broken.toml", "--out", "out"], "broken.toml: not valid TOML"),
    (["run", "unknown_top.toml", "--out", "out"], "unknown_top.toml:wings: unknown key"),
    (["run", "no_robot.toml", "--out", "out"], "no_robot.toml:robot: missing section [robot]"),
    (["run", "bad_name.toml", "--out", "out"], "bad_name.toml:name: must be"),
    (["run", "binary.toml", "--out", "out"], "binary.toml: not a UTF-8 text file"),
    (["run", "empty.toml", "--out", "out"], "empty.toml:robot: missing section [robot]"),
    (["run", "bad_friction.toml", "--out", "out"], "bad_friction.toml:friction.mu_n: must be in [0, 5]"),
    (R("--set", "robot.tail_fin=1"), "robot.tail_fin: unknown key"),
    (R("--set", "robot.n_modules=1"), "robot.n_modules: must be an integer from 2"),
    (R("--set", "robot.n_modules=2.5"), "robot.n_modules: must be an integer"),
    (R("--set", "robot.radius=-1"), "robot.radius: must be in"),
    (R("--set", "robot.mass=0"), "robot.mass: must be in [0.001, 100] kg"),
    (R("--set", "robot.module_length=0"), "robot.module_length: must be in"),
    (R("--set", "robot.type=octopus"), "robot.type: unknown type 'octopus'"),
    (R("--set", "friction.mu_n=-0.1"), "friction.mu_n: must be in [0, 5]"),
    (R("--set", "friction.mu_n=abc"), "friction.mu_n: must be a number"),
    (R("--set", "friction.mu_n=true"), "friction.mu_n: must be a number"),
    (R("--set", "friction.mu_n=[1,2]"), "friction.mu_n: must be a number"),
    (R("--set", "friction.mu_t=6"), "friction.mu_t: must be in [0, 5]"),
    (R("--set", "friction.type=coulomb", "--set", "friction.slip_tol=0"), "friction.slip_tol: must be in"),
    (R("--set", "friction.head_exempt=maybe"), "friction.head_exempt: must be true or false"),
    (R("--set", "friction.type=sticky"), "friction.type: unknown type"),
    (R("--set", "friction.normal_load=magic"), "friction.normal_load: must be one of"),
    (R("--set", "friction.mu_n"), "--set friction.mu_n: expected KEY=VALUE"),
    (R("--set", "friction.type=coulomb", "--set", "sim.dt=0.01"), "sim.dt: 0.01 s is too large"),  # the regularised law
    (R("--set", "sim.dt=0"), "sim.dt: must be in"),
    (R("--set", "sim.dt.x=1"), "sim.dt is not a table"),
    (R("--set", "sim.duration=0"), "sim.duration: must be in (0, 1e5]"),
    (R("--set", "sim.record_every=0"), "sim.record_every: must be in [1, 10000]"),
    (R("--set", "sim.gravity=abc"), "sim.gravity: must be a number"),
    (R("--set", "sim.solver_iterations=0"), "sim.solver_iterations: must be in [1, 1000]"),
    (R("--set", "sim.max_kinetic_energy=-1"), "sim.max_kinetic_energy: must be > 0 J"),
    (R("--set", "init.heading_deg=nan"), "init.heading_deg: must be a finite number"),
    (R("--set", "init.joint_noise=-1"), "init.joint_noise: must be in [0, 1] rad"),
    (R("--set", "init.position=[1.0]"), "init.position: must be two numbers"),
    (R("--set", 'init.position=[1, "a"]'), "init.position: must be a list of numbers"),
    (R("--set", "init.position=nope"), "init.position: must be a list of numbers"),
    (R("--set", "seed=-3"), "seed: must be an integer"),
    (R("--set", "seed=1.5"), "seed: must be an integer"),
    (R("--set", "seed=true"), "seed: must be an integer"),
    (R("--set", "name=a b"), "name: must be a string of letters"),
    (R("--set", "wings=2"), "wings: unknown key"),
    (R("--set", "description=5"), "description: must be a string"),
    (R("--set", "controller.type=pid"), "controller.type: unknown type 'pid'"),
    (R("--set", "controller.E_ref=1000"), "controller.E_ref: must be in [0, 100]"),
    (R("--set", "controller.E_ref=-1"), "controller.E_ref: must be in [0, 100]"),
    (R("--set", "controller.k_d=-1"), "controller.k_d: must be in [0, 1e4]"),
    (R("--set", "controller.phi_t=nan"), "controller.phi_t: must be a finite number"),
    (R("--set", "controller.omega=abc", scenario="snake_serpenoid"), "controller.omega: must be a number"),
    (R("--set", "controller.alpha=100", scenario="snake_serpenoid"), "controller.alpha: must be in [0, pi]"),
    (R("--set", "robot.n_links=1", scenario="eel_forward_turn"), "robot.n_links: must be an integer from 2"),
    (R("--set", "robot.density=-5", scenario="eel_forward_turn"), "robot.density: must be in [100, 20000]"),
    (R("--set", "robot.arm_length=-1", scenario="tracked_step_climb"), "robot.arm_length: must be in [0.05, 1]"),
    (R("--set", "arena.height=-1", scenario="tracked_step_climb"), "arena.height: unknown key"),
    (R("--set", "arena.type=lava"), "arena.type: unknown type 'lava'"),
    (R("--set", "forces.x.type=magic"), "x.type: unknown type 'magic'"),
    (R("--set", "forces.friction.type=tether"), "forces.friction.type: name is reserved"),
    (R("--set", "trial.payload_mass=-1", scenario="snake_drag"), "trial.payload_mass: must be in [0.001, 1000] kg"),
    (R("--set", "trial.length=-1", scenario="snake_drag"), "trial.length: must be in [0.01, 1000] m"),
    (R("--set", "payload.mass=-1"), "payload.mass: [payload] moved into [trial]"),
    (R("--set", "course.length=1"), "course.length: [course] moved into [trial]"),
    (R("--set", "controller.stop_after_climb=true", scenario="tracked_step_climb"),
     "controller.stop_after_climb: moved to [trial]"),
    (R("--set", "trial.type=drag_course", "--set", "trial.stop_when_decided=true", scenario="tracked_step_climb"),
     "trial.stop_when_decided: unknown key"),  # the swap drops the old type's keys; a stale one is unknown
    (R("--set", "trial.type=step_climb"), 'trial.type: "step_climb" needs the "tracked_climb" controller'),
    (R("--set", "trial.type=maze", scenario="snake_drag"), "trial.type: unknown type 'maze'"),
    (R("--set", "=5"), "--set =5: expected KEY=VALUE"),
    (R("--set", ".a=1"), "--set .a: key must be dotted field names"),
    (R("--set", "sim..dt=1"), "--set sim..dt: key must be dotted field names"),
    (R("--set"), "argument --set: expected one argument"),
    (R("--duration", "-1"), "sim.duration: must be in (0, 1e5]"),
    (R("--duration", "0"), "sim.duration: must be in (0, 1e5]"),
    (R("--duration", "nan"), "sim.duration: must be a finite number"),
    (R("--duration", "inf"), "sim.duration: must be a finite number"),
    (R("--duration", "abc"), "argument --duration: invalid float value"),
    (R("--video", "movie.avi"), "--video: must end in .mp4 or .gif"),
    (R("--bogus"), "unrecognized arguments: --bogus"),
    (["run"], "lab run: the following arguments are required: scenario"),
    # ---------------------------------------------------------------- run: where it writes
    (R(out="user"), f"--out user: {FOREIGN}"),
    (R(out="hidden"), f"--out hidden: {FOREIGN}"),
    (R("--overwrite", out="user"), f"--out user: {FOREIGN}"),
    (R(out="afile"), "--out afile: exists and is not a folder"),
    (R("--overwrite", out="afile"), "--out afile: exists and is not a folder"),
    (R(out="afile/sub"), "--out afile/sub: " + "{tmp}/afile is a file, not a folder"),
    (R(out="afile/sub/deeper"), "--out afile/sub/deeper: {tmp}/afile is a file, not a folder"),
    (R(out="fifo"), "--out fifo: exists and is not a folder"),
    (R(out="/proc/x"), "--out /proc/x: cannot write in /proc"),
    (R(out="/proc/x/y"), "--out /proc/x/y: cannot write in /proc"),
    (R(out="/sys/x"), "--out /sys/x: cannot write in /sys: Operation not permitted"),
    (R(out="labrun"), "--out labrun: holds a previous lab run; pass --overwrite"),
    (R(out="labcheck"), "--out labcheck: holds a lab check output, not a run"),
    (R("--overwrite", out="labcheck"), "--out labcheck: holds a lab check output, not a run"),
    (R(out="labsweep"), "--out labsweep: holds a lab sweep output, not a run"),
    (R(out="labreport"), "--out labreport: holds a lab report output, not a run"),
    (R("--overwrite", out="labrun_usermetrics"), "--out labrun_usermetrics/metrics.json: was not written by the lab"),
    (R("--video", "clip.mp4"), "--video clip.mp4: exists; pass --overwrite"),
    (R("--video", "movie.mp4"), "--video movie.mp4: is a folder"),
    (R("--video", "afile/v.mp4"), "--video afile/v.mp4: {tmp}/afile is a file, not a folder"),
    (R("--video", "/proc/v.mp4"), "--video /proc/v.mp4: cannot write in /proc"),
    (R("--screenshot", "shot.png"), "--screenshot shot.png: exists; pass --overwrite"),
    (R("--screenshot", "/sys/s.png"), "--screenshot /sys/s.png: cannot write in /sys"),
    (R("--screenshot", "fifo", "--overwrite"), "--screenshot: must end in .png, got fifo"),
    # ---------------------------------------------------------------- check
    (["check", "no_such_check", "--out", "out"], "lab check: unknown check 'no_such_check'"),
    (["check", "friction_block", "nope", "--out", "out"], "unknown check 'nope'"),
    (C("--out", "user"), f"--out user: {FOREIGN}"),
    (C("--out", "afile"), "--out afile: exists and is not a folder"),
    (C("--out", "afile/sub"), "--out afile/sub: {tmp}/afile is a file, not a folder"),
    (C("--out", "/proc/x"), "--out /proc/x: cannot write in /proc"),
    (C("--out", "/sys/x"), "--out /sys/x: cannot write in /sys"),
    (C("--out", "labrun"), "--out labrun: holds a lab run output, not a check"),
    (C("--out", "labcheck"), "--out labcheck: holds a previous lab check; pass --overwrite"),
    (C("--out", "labcheck_userjson", "--overwrite"), "--out labcheck_userjson/checks.json: was not written"),
    (C("--bogus"), "unrecognized arguments: --bogus"),
    (C("--set"), "argument --set: expected one argument"),
    # ---------------------------------------------------------------- urdf
    (["urdf", "octopus"], "lab urdf: unknown robot 'octopus'"),
    (["urdf", "snake", "--set", "n_modules=0"], "n_modules: must be an integer from 2"),
    (["urdf", "snake", "--set", "n_modules=abc"], "snake.n_modules: must be an integer"),
    (["urdf", "snake", "--set", "radius=-1"], "snake.radius: must be in"),
    (["urdf", "snake", "--set", "tail=1"], "snake.tail: unknown key"),
    (["urdf", "snake", "--set", "n_modules"], "--set n_modules: expected KEY=VALUE"),
    (["urdf", "eel", "--set", "n_links=0"], "eel.n_links: must be an integer from 2"),
    (["urdf", "eel", "--set", "density=-1"], "eel.density: must be in [100, 20000]"),
    (["urdf", "tracked", "--set", "wings=1"], "tracked.wings: unknown key"),
    (["urdf", "tracked", "--set", "arm_length=-1"], "tracked.arm_length: must be in [0.05, 1]"),
    (["urdf"], "lab urdf: the following arguments are required: robot"),
    (["urdf", "snake", "--bogus"], "unrecognized arguments: --bogus"),
    (["urdf", "snake", "-o", "robot.urdf"], "-o robot.urdf: exists; pass --overwrite"),
    (["urdf", "snake", "-o", "user"], "-o user: is a folder; give a file name"),
    (["urdf", "snake", "-o", "empty", "--overwrite"], "-o empty: is a folder; give a file name"),
    (["urdf", "snake", "-o", ""], "-o .: is a folder"),
    (["urdf", "snake", "-o", "afile/s.urdf"], "-o afile/s.urdf: {tmp}/afile is a file, not a folder"),
    (["urdf", "snake", "-o", "/proc/s.urdf"], "-o /proc/s.urdf: cannot write in /proc"),
    (["urdf", "snake", "-o", "/sys/s.urdf"], "-o /sys/s.urdf: cannot write in /sys"),
    (["urdf", "snake", "-o", "fifo", "--overwrite"], "-o fifo: exists and is not a regular file"),
    # ---------------------------------------------------------------- list and the command itself
    (["list", "extra"], "unrecognized arguments: extra"),
    (["list", "--bogus"], "unrecognized arguments: --bogus"),
    (["list", "--out", "x"], "unrecognized arguments: --out x"),
    (["list", "--set", "a=1"], "unrecognized arguments: --set a=1"),
    ([], "lab: the following arguments are required: cmd"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["-v", "frobnicate"], "invalid choice: 'frobnicate'"),
    (["--bogus"], "lab: the following arguments are required: cmd"),
    # ---------------------------------------------------------------- sweep
    (["sweep"], "lab sweep: the following arguments are required: sweep"),
    (["sweep", "missing.toml"], "missing.toml: no such sweep file"),
    (["sweep", "scen_dir"], "scen_dir: is a folder, not a sweep file"),
    (SW("toml"), "sw_toml.toml: not valid TOML"),
    (SW("bogus"), "sw_bogus.toml:bogus: unknown key"),
    (SW("badbase"), "sw_badbase.toml:base: no scenario 'no_such_scenario'"),
    (SW("nobase"), "sw_nobase.toml:base: missing"),
    (SW("repeat0"), "sw_repeat0.toml:repeat: must be an integer"),
    (SW("seedneg"), "sw_seedneg.toml:seed: must be an integer"),
    (SW("mode"), "sw_mode.toml:mode: must be 'grid' or 'zip'"),
    (SW("badname"), "sw_badname.toml:name: must be letters"),
    (SW("nokind"), "sw_nokind.toml:axis[0]: needs exactly one of"),
    (SW("twokinds"), "sw_twokinds.toml:axis[0]: needs exactly one of"),
    (SW("emptyvalues"), "sw_emptyvalues.toml:axis[0].values: must be a non-empty list"),
    (SW("dupvalues"), "sw_dupvalues.toml:axis[0].values[1]: duplicate value"),
    (SW("gridnonum"), "sw_gridnonum.toml:axis[0].grid: missing key 'num'"),
    (SW("randomhigh"), "sw_randomhigh.toml:axis[0].random.high: must be greater than low"),
    (SW("badkey"), "sw_badkey.toml:axis[0].key: must be a dotted scenario field"),
    (SW("dupaxis"), "sw_dupaxis.toml:axis[1].key: 'controller.E_ref' is already swept"),
    (SW("setaxis"), "sw_setaxis.toml:set.controller.E_ref: overlaps the swept key"),
    (SW("setseed"), "sw_setseed.toml:set.seed: use the sweep's top-level seed"),
    (SW("unknownfield"), "controller.E_reff: unknown key"),
    (SW("outofrange"), "controller.E_ref: must be in [0, 100]"),
    (SW("zip"), "sw_zip.toml:mode: 'zip' needs axes of equal length"),
    (SW("ok", "--set", "sim.duration=-1"), "sim.duration: must be in (0, 1e5]"),
    (SW("ok", "--set", "seed=1"), "--set seed: the seed is the sweep's"),
    (SW("ok", "--set", "controller.E_ref=1"), "--set controller.E_ref: overlaps the swept key"),
    (SW("ok", "--set", "novalue"), "--set novalue: expected KEY=VALUE"),
    (["sweep", "sw_ok.toml", "--workers", "0"], "--workers: must be in [1, 256], got 0"),
    (["sweep", "sw_ok.toml", "--workers", "1000"], "--workers: must be in [1, 256], got 1000"),
    (["sweep", "sw_ok.toml", "--workers", "abc"], "argument --workers: invalid int value"),
    (SW("ok", "--scheduler", "nonsense"), "--scheduler: must be a dask scheduler address like tcp://host:8786"),
    (SW("ok", "--out", "user"), f"--out user: {FOREIGN}"),
    (SW("ok", "--out", "hidden"), f"--out hidden: {FOREIGN}"),
    (SW("ok", "--out", "afile"), "--out afile: exists and is not a folder"),
    (SW("ok", "--out", "afile/sub"), "--out afile/sub: {tmp}/afile is a file, not a folder"),
    (SW("ok", "--out", "/proc/x"), "--out /proc/x: cannot write in /proc"),
    (SW("ok", "--out", "/sys/x"), "--out /sys/x: cannot write in /sys"),
    (SW("ok", "--out", "labrun"), "--out labrun: holds a lab run output, not a sweep"),
    (SW("ok", "--out", "labsweep"), "--out labsweep: holds the sweep 'other', not 'sw_ok'"),
    (SW("ok", "--overwrite"), "unrecognized arguments: --overwrite"),
    # ---------------------------------------------------------------- report
    (["report", "--only", "nope", "--out", "out"], "--only: unknown section 'nope'"),
    (["report", "--only"], "argument --only: expected at least one argument"),
    (["report", "--workers", "0"], "--workers: must be in [1, 256], got 0"),
    (["report", "--workers", "300"], "--workers: must be in [1, 256], got 300"),
    (["report", "--workers", "abc"], "argument --workers: invalid int value"),
    (["report", "--bogus"], "unrecognized arguments: --bogus"),
    (["report", "--out", "user"], f"--out user: {FOREIGN}"),
    (["report", "--out", "afile"], "--out afile: exists and is not a folder"),
    (["report", "--out", "afile/sub"], "--out afile/sub: {tmp}/afile is a file, not a folder"),
    (["report", "--out", "/proc/x"], "--out /proc/x: cannot write in /proc"),
    (["report", "--out", "/sys/x"], "--out /sys/x: cannot write in /sys"),
    (["report", "--out", "labrun"], "--out labrun: holds a lab run output, not a report"),
    (["report", "--out", "labreport"], "--out labreport: holds a previous lab report; pass --overwrite"),
    (["report", "--out", "labreport_userfigs", "--overwrite"], "--out labreport_userfigs/figures: was not written"),
]


class WorkStarted(AssertionError):
    pass


@pytest.fixture
def no_work(monkeypatch):
    """Replace the work of every command with a trap: a refusal must come before any of it."""
    import lab.checks
    import lab.report.core
    import lab.core.runner
    import lab.sweep.execute

    def trap(*a, **k):
        raise WorkStarted("work started before the input was refused")

    for mod, name in ((lab.core.runner, "run_scenario"), (lab.checks, "run_checks"), (lab.sweep.execute, "run_sweep"),
                      (lab.report.core, "build_report")):
        monkeypatch.setattr(mod, name, trap)


def _id(case):
    return " ".join(case[0])[:60] or "(no arguments)"


def test_the_table_is_large_and_covers_every_command():
    assert len(CASES) >= 100
    commands = {argv[0] for argv, _ in CASES if argv and not argv[0].startswith("-")} | {"list"}
    assert {"run", "check", "urdf", "list", "sweep", "report"} <= commands
    assert len({tuple(argv) for argv, _ in CASES}) == len(CASES)  # no case twice


@pytest.mark.slow
@pytest.mark.parametrize("argv,expected", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_one_line_exit_2_file_system_unchanged(argv, expected, tmp_path, monkeypatch, capsys, no_work):
    populate(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    code = main(list(argv))
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert code == 2, (code, captured.err)
    assert len(err) == 1, err
    assert err[0].startswith("error: "), err[0]
    assert expected.format(tmp=tmp_path) in err[0], err[0]
    assert "Traceback" not in captured.err
    assert captured.out == ""
    assert snapshot(tmp_path) == before  # nothing created, changed or removed


# ------------------------------------------------------------------ the same, as a user runs them

SUBPROCESS_CASES = [
    (["-v", "run", S, "--out", "/proc/x"], "--out /proc/x: cannot write in /proc"),
    (["-v", "run", S, "--out", "afile/sub"], "afile is a file, not a folder"),
    (["-v", "run", S, "--out", "user"], f"--out user: {FOREIGN}"),
    (["-v", "check", "--out", "/proc/x"], "--out /proc/x: cannot write in /proc"),
    (["-v", "urdf", "snake", "-o", "user"], "-o user: is a folder"),
    (["-v", "urdf", "snake", "-o", "/proc/x"], "-o /proc/x: cannot write in /proc"),
    (["-v", "sweep", "sw_ok.toml", "--out", "afile"], "--out afile: exists and is not a folder"),
    (["-v", "report", "--out", "afile"], "--out afile: exists and is not a folder"),
    (["-v", "run", S, "--set", "robot.n_modules=0", "--out", "o"], "robot.n_modules: must be an integer from 2"),
]


@pytest.mark.slow
@pytest.mark.parametrize("argv,expected", SUBPROCESS_CASES, ids=[" ".join(c[0])[:50] for c in SUBPROCESS_CASES])
def test_subprocess_verbose_has_no_traceback_and_one_line(argv, expected, lab_cmd, tmp_path):
    populate(tmp_path)
    before = snapshot(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([*lab_cmd, *argv], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ") and expected in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert res.stdout == ""
    assert snapshot(tmp_path) == before


def test_version(capsys):
    from lab import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"lab {__version__}"


def test_a_command_that_cannot_be_imported_says_why(monkeypatch, capsys):
    """A broken import of the sweep module once showed as "invalid choice: 'sweep'"."""
    import importlib

    real = importlib.import_module

    def broken(name, *a, **k):
        if name == "lab.sweep.definition":
            raise ImportError("cannot import name 'x' from 'lab.somewhere'")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", broken)
    assert main(["sweep", "s.toml", "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert err == "error: lab sweep: cannot be loaded: ImportError: cannot import name 'x' from 'lab.somewhere'\n"
