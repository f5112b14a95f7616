"""Scenarios: TOML mapped onto frozen dataclasses, with ``--set key=value`` overrides.

Unknown keys, wrong types and out-of-range values raise :class:`~lab.core.errors.LabError` naming the
field (``robot.n_modules``) and what is allowed. Polymorphic sections (``robot``, ``friction``,
``controller``) pick their dataclass by their ``type`` key.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import math
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tomli_w

from lab.core.errors import LabError
from lab.core.fields import NUMBERS, Decl, Validated, choice, declarations, info, num, vector
from lab.core.resources import scenario_dir
from lab.core.registry import registry

# The plugin kinds a scenario's tables select from, looked up by kind (the core names no library module;
# the library and the papers register into these, lab.core.plugins says which modules)
ANALYSES = registry("analysis")
CONTROLLERS = registry("controller")
ARENAS = registry("arena")
FORCES = registry("force law")
FRICTION = registry("friction law")
ROBOTS = registry("robot")
TRIALS = registry("trial")

log = logging.getLogger(__name__)

SCENARIO_DIR = scenario_dir()  # the checkout's scenarios/, or the wheel's copy (lab.core.resources)


@dataclass(frozen=True)
class SimConfig(Validated):
    """Engine settings. dt = 1 ms by default: the explicit friction callback needs
    dt < 2·slip_tol/(μ g) and the energy balance closes to ~0.1 % there (see docs/scenarios.md, Time step)."""

    dt: float = num(0.001, ge=1e-5, le=0.02, unit="s", doc="time step (friction needs dt < 2·slip_tol/(mu·g))")
    duration: float = num(30.0, gt=0, le=1e5, unit="s", doc="simulated time (at least one step)")
    gravity: float = num(9.81, ge=0, le=100, unit="m/s²", doc="magnitude of gravity")
    solver_iterations: int = num(50, ge=1, le=1000, doc="Bullet's constraint-solver iterations per step")
    record_every: int = num(10, ge=1, le=10000, unit="steps", doc="record every n-th step")
    max_kinetic_energy: float = num(1000.0, gt=0, unit="J", doc="above this the run stops as diverged")
    motor_lines: Literal["explicit", "implicit"] = choice(
        "explicit", doc="the motors' torque–speed lines (lab.core.actuators): 'explicit', clipped at the snapshot's speed "
                        "(with the one-step cap); 'implicit', taken at the end of the step with the mass matrix and "
                        "the load from the last step (World.implicit_motor_lines): stable at any step, a loaded joint "
                        "on its line's exact exponential. A controller may ask for 'implicit' itself "
                        "(wants_implicit_motor_lines)")

    @property
    def n_steps(self) -> int:
        return int(round(self.duration / self.dt))


@dataclass(frozen=True)
class ReplayConfig(Validated):
    """What the run stores for ``lab replay`` (replay.npz, lab.replay.capture). Presentation only: the
    physics and every metric are the same at any setting. A scenario without a ``[replay]`` table
    gets these defaults (and its resolved scenario.toml stays as it was)."""

    rate_hz: float = num(25.0, ge=0, le=1000, unit="Hz",
                         doc="link poses stored per simulated second (0: none, and no replay page)")
    forces: bool = info(True, doc="also store each force law's per-link force at those frames (the arrows)")


@dataclass(frozen=True)
class InitConfig(Validated):
    """Initial pose: tail at ``position``, body along ``heading_deg``, joints straight (or, by ``shape``, on
    the controller's reference at t = 0) plus seeded uniform noise of ±``joint_noise`` rad (the drag trial's
    'perturbed initial shape')."""

    position: tuple[float, float] = vector((0.0, 0.0), length=2, names="[x, y]", unit="m", doc="the tail's position")
    heading_deg: float = num(0.0, ge=-360, le=360, unit="degrees", doc="the body's direction, tail to head, from x")
    joint_noise: float = num(0.0, ge=0, le=1, unit="rad", doc="seeded uniform noise on the initial joint angles")
    settle_s: float = num(0.0, ge=0, le=5, unit="s",
                          doc="engine-only settle on the ground before t = 0 at min(dt, 1 ms), joints then back at "
                              "their start angles, all at rest (lab.core.world.World.settle); 0: none")
    shape: Literal["straight", "gait", "gait_moving"] = choice(
        "straight", doc="the joints at t = 0: 'straight' (0, plus joint_noise); 'gait' at the controller's reference "
                        "x(0) (its reference(t); the serpenoid's α sin(iβ + φ₀) + γ), at rest; 'gait_moving' there and "
                        "at its rates ẋ(0), the base at rest (the unified model's start); a controller without a "
                        "reference (a user's, swapped in by controller.type) starts straight. A physics choice: the "
                        "servo then starts on its reference instead of closing a step of up to α, which saturates "
                        "it and is not converged at the step (docs/benchmarks.md). Settling (settle_s) is in this shape")


@dataclass(frozen=True)
class Scenario:
    name: str
    robot_type: str
    robot: Any
    friction_type: str
    friction: Any
    controller_type: str
    controller: Any
    sim: SimConfig = field(default_factory=SimConfig)
    init: InitConfig = field(default_factory=InitConfig)
    seed: int = 0
    description: str = ""
    arena_type: str = "ground"
    arena: Any = None
    forces: tuple = ()  # ((name, type, params), …) from [forces.<name>] tables
    trial_type: str = ""  # "" = no trial; else a key of lab.trials.TRIALS
    trial: Any = None  # the trial's parameters (and hooks), from the [trial] table
    analyses: tuple[str, ...] = ()  # optional analyses the run adds to its metrics (lab.analysis.registry)
    plugins: tuple[str, ...] = ()  # user plugins the file loads (absolute paths or module names; lab.core.user_plugins)
    replay: ReplayConfig | None = None  # the [replay] table; None: ReplayConfig()'s defaults

    @property
    def replay_config(self) -> ReplayConfig:
        return self.replay if self.replay is not None else ReplayConfig()

    def to_dict(self) -> dict:
        def plain(obj):
            d = {}
            for f in dataclasses.fields(obj):
                v = getattr(obj, f.name)
                if v is None:
                    continue
                if isinstance(v, tuple):
                    v = list(v)
                d[f.name] = v
            return d

        d = {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            # sim.motor_lines only when set: the default (explicit) leaves every resolved scenario as it was
            "sim": {k: v for k, v in plain(self.sim).items() if k != "motor_lines" or v != "explicit"},
            # init.shape only when set: the default start (straight) leaves every resolved scenario as it was
            "init": {k: v for k, v in plain(self.init).items() if k != "shape" or v != "straight"},
            "arena": {"type": self.arena_type, **(plain(self.arena) if self.arena is not None else {})},
            "robot": {"type": self.robot_type, **plain(self.robot)},
            "friction": {"type": self.friction_type, **plain(self.friction)},
            "controller": {"type": self.controller_type, **plain(self.controller)},
        }
        if self.trial is not None:
            d["trial"] = {"type": self.trial_type, **plain(self.trial)}
        if self.analyses:
            d["analyses"] = list(self.analyses)
        if self.plugins:
            d["plugins"] = list(self.plugins)
        if self.forces:
            d["forces"] = {name: {"type": kind, **plain(params)} for name, kind, params in self.forces}
        if self.replay is not None:
            d["replay"] = plain(self.replay)
        return d

    def to_toml(self) -> str:
        return tomli_w.dumps(self.to_dict())


# ---------------------------------------------------------------- typed mapping


def _type_name(tp) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin is tuple:
        return "a list of numbers"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp) if a is not type(None))
    return {float: "a number", int: "an integer", bool: "true or false", str: "a string"}.get(tp, str(tp))


def _coerce(value, tp, where: str, decl: Decl | None = None):
    """``value`` as type ``tp``; a number's type error says its declared range too ("must be a number in
    [0, 5], got 'abc'")."""

    def want(plain: str, finite: bool = False) -> str:
        return decl.expected(finite) if decl is not None and decl.kind in NUMBERS else plain

    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        for a in args:
            try:
                return _coerce(value, a, where, decl)
            except LabError:
                pass
        raise LabError(where, f"must be {want(_type_name(tp))}, got {value!r}")
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise LabError(where, f"must be {_type_name(tp)}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in value
        ):
            raise LabError(where, f"must be a list of numbers, got {value!r}")
        return tuple(float(x) for x in value)
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise LabError(where, f"must be {want('a number')}, got {value!r}")
        if not math.isfinite(value):
            raise LabError(where, f"must be {want('a finite number', finite=True)}, got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise LabError(where, f"must be {want('an integer')}, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise LabError(where, f"must be true or false, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise LabError(where, f"must be a string, got {value!r}")
        return value
    raise LabError(where, f"unsupported type {tp}")  # pragma: no cover


def build(cls, data, where: str):
    """Build dataclass ``cls`` from a TOML table, naming the offending field on any error. Type errors
    say the range too (from the field's declaration, :mod:`lab.core.fields`); range errors are the
    declarations' own ValueErrors, "field: what", re-raised as ``LabError(where.field, what)``."""
    if not isinstance(data, dict):
        raise LabError(where, f"must be a table, got {data!r}")
    hints = typing.get_type_hints(cls)
    decls = declarations(cls)
    for key in data:
        if key not in decls:
            raise LabError(f"{where}.{key}", f"unknown key; allowed: {', '.join(decls)}")
    kwargs = {k: _coerce(v, hints[k], f"{where}.{k}", decls[k]) for k, v in data.items()}
    try:
        return cls(**kwargs)
    except ValueError as exc:
        field_name, _, what = str(exc).partition(": ")
        if field_name in decls:
            raise LabError(f"{where}.{field_name}", what) from None
        raise LabError(where, str(exc)) from None


def _typed_section(data: dict, key: str, registry: dict, default_type: str | None, where: str):
    table = data.get(key, {} if default_type else None)
    if table is None:
        raise LabError(f"{where}:{key}", f"missing section [{key}]")
    if not isinstance(table, dict):
        raise LabError(f"{where}:{key}", "must be a table")
    table = dict(table)
    kind = table.pop("type", default_type)
    if kind not in registry:
        raise LabError(f"{where}:{key}.type", f"unknown type {kind!r}; allowed: {', '.join(registry)}")
    entry = registry[kind]
    cls = entry[0] if isinstance(entry, tuple) else entry
    return kind, build(cls, table, f"{where}:{key}")


TOP_KEYS = ("name", "description", "seed", "sim", "init", "arena", "robot", "friction", "controller", "forces",
            "trial", "analyses", "plugins", "replay")
# Keys that moved: an old scenario file gets one error saying what to write instead.
MOVED = {
    "payload": '[payload] moved into [trial] (type = "drag_course"): write payload_mass, payload_size, '
               "payload_friction, payload_distance there",
    "course": '[course] moved into [trial] (type = "drag_course"): write length and halves there',
    "controller.stop_after_climb": 'moved to [trial] (type = "step_climb"): write stop_when_decided there',
    "controller.advance_limit": 'moved to [trial] (type = "step_climb"): write advance_limit there',
}


def from_dict(data: dict, where: str = "scenario", base: str | Path | None = None) -> Scenario:
    """The validated Scenario of a TOML table. ``base``: the folder the table's relative plugin files are
    relative to (the scenario file's; None: the working directory)."""
    for key in data:
        if key in MOVED:
            raise LabError(f"{where}:{key}", MOVED[key])
        if key not in TOP_KEYS:
            raise LabError(f"{where}:{key}", f"unknown key; allowed: {', '.join(TOP_KEYS)}")
    for key in ("stop_after_climb", "advance_limit"):
        if isinstance(data.get("controller"), dict) and key in data["controller"]:
            raise LabError(f"{where}:controller.{key}", MOVED[f"controller.{key}"])
    # A user's plugins first: the controller, robot or force types below may be theirs.
    from lab.core.user_plugins import load_all

    plugins = tuple(p.path or p.module for p in load_all(data.get("plugins"), base, f"{where}:plugins"))
    name = data.get("name", "scenario")
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise LabError(f"{where}:name", f"must be a string of letters, digits, '_' or '-', got {name!r}")
    if len(name) > MAX_NAME:  # it names the default run folder: checked here, not by the file system at the end
        raise LabError(f"{where}:name", f"is {len(name)} characters long; at most {MAX_NAME}")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise LabError(f"{where}:description", "must be a string")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise LabError(f"{where}:seed", f"must be an integer in [0, 2^32), got {seed!r}")
    analyses = data.get("analyses", [])
    if not isinstance(analyses, list) or not all(isinstance(a, str) for a in analyses):
        raise LabError(f"{where}:analyses", f"must be a list of names; allowed: {', '.join(ANALYSES)}")
    for a in analyses:
        if a not in ANALYSES:
            raise LabError(f"{where}:analyses", f"unknown analysis {a!r}; allowed: {', '.join(ANALYSES)}")
    if len(set(analyses)) != len(analyses):
        raise LabError(f"{where}:analyses", f"names an analysis twice: {analyses}")
    sim = build(SimConfig, data.get("sim", {}), f"{where}:sim")
    replay = build(ReplayConfig, data["replay"], f"{where}:replay") if "replay" in data else None
    init = build(InitConfig, data.get("init", {}), f"{where}:init")
    robot_type, robot = _typed_section(data, "robot", {k: (v,) for k, v in ROBOTS.items()}, None, where)
    friction_type, friction = _typed_section(data, "friction", FRICTION, "coulomb", where)
    controller_type, controller = _typed_section(data, "controller", CONTROLLERS, None, where)
    arena_type, arena = _typed_section(data, "arena", ARENAS, "ground", where)
    forces_table = data.get("forces", {})
    if not isinstance(forces_table, dict):
        raise LabError(f"{where}:forces", "must be a table of [forces.<name>] tables")
    forces = []
    for fname, table in forces_table.items():
        if fname in ("friction",):
            raise LabError(f"{where}:forces.{fname}", "name is reserved for the [friction] table")
        kind, params = _typed_section(forces_table, fname, FORCES, None, f"{where}:forces")
        forces.append((fname, kind, params))
    # Cross-field checks a force law asks for (hydrodynamics: the robot must carry the added mass the
    # law folds into it, and an eel controller must linearise the law's coefficients).
    for fname, _, params in forces:
        validate = getattr(params, "validate_scenario", None)
        if validate is not None:
            try:
                validate(robot=robot, controller=controller, arena=arena, sim=sim)
            except ValueError as exc:
                field_name, _, what = str(exc).partition(": ")
                raise LabError(f"{where}:forces.{fname}.{field_name}", what) from None
    # Cross-field check: an explicit friction force is stable only if its linear zone is resolved.
    mu = getattr(friction, "mu_max", None)
    if mu is not None and getattr(friction, "explicit", True) and sim.gravity > 0 and mu > 0:
        dt_max = 2.0 * friction.slip_tol / (mu * sim.gravity)
        if sim.dt >= dt_max:
            raise LabError(f"{where}:sim.dt", f"{sim.dt} s is too large for friction.slip_tol = {friction.slip_tol} m/s "
                           f"at mu = {mu}: the explicit friction force needs dt < 2·slip_tol/(mu·g) = {dt_max:.4g} s")
    check_servo_step(robot, controller, sim, where)
    if sim.duration < sim.dt:
        raise LabError(f"{where}:sim.duration", f"must be at least one step (dt = {sim.dt} s), got {sim.duration}")
    check_recorded_size(sim, getattr(robot, "n_links", None), where)
    trial_type, trial = "", None
    if "trial" in data:
        trial_type, trial = _typed_section(data, "trial", TRIALS, None, where)
        try:
            trial.validate_scenario(robot=robot, controller=controller, arena=arena, sim=sim)
        except ValueError as exc:
            field_name, _, what = str(exc).partition(": ")
            raise LabError(f"{where}:trial.{field_name}", what) from None
    bodies = trial.bodies if trial is not None else ()
    for fname, kind, params in forces:
        body = getattr(params, "body", None)
        if body is not None and body not in bodies:
            raise LabError(f"{where}:forces.{fname}.body",
                           f"names body {body!r}, but the scenario has no such body (a [trial] adds them: "
                           f"type = \"drag_course\" adds 'payload')")
    return Scenario(name=name, description=desc, seed=seed, sim=sim, init=init, robot_type=robot_type, robot=robot,
                    friction_type=friction_type, friction=friction, controller_type=controller_type,
                    controller=controller, arena_type=arena_type, arena=arena, forces=tuple(forces),
                    trial_type=trial_type, trial=trial, analyses=tuple(analyses), plugins=plugins,
                    replay=replay)


# The recorder holds every sample in memory before timeseries.csv is written (lab.core.recorder.Recorder):
# the scenario is refused before the run starts when that would pass this bound, not after a
# MemoryError hours in. 2 GiB: ~200 times the largest shipped scenario's record (9.8 MB), well under the
# memory of the machines the lab runs on.
MAX_RECORDED_BYTES = 2 * 1024**3
MAX_NAME = 128  # a scenario's name: runs/<name>-<time>-<n>/ and its temporary fit a 255-byte file name
MAX_TABLE_DEPTH = 16  # scenario and sweep tables nest at most 4 deep; deeper is not a lab file


def recorded_bytes(sim: SimConfig, n_links: int) -> tuple[int, int, int]:
    """(samples, values per sample, bytes) the recorder will hold: ``n_steps // record_every + 2``
    samples of 8 scalars, per link x, y, yaw, normal force and per joint q, q̇, τ (joints ≤ links)."""
    samples = sim.n_steps // sim.record_every + 2
    values = 8 + 4 * n_links + 3 * n_links
    return samples, values, 8 * samples * values


def check_recorded_size(sim: SimConfig, n_links: int | None, where: str) -> None:
    """Refuse a scenario whose record would pass :data:`MAX_RECORDED_BYTES` (naming the fields and the size)."""
    n = n_links if isinstance(n_links, int) and n_links > 0 else 1
    samples, values, size = recorded_bytes(sim, n)
    if size > MAX_RECORDED_BYTES:
        raise LabError(f"{where}:sim", f"sim.duration = {sim.duration:g} s at sim.dt = {sim.dt:g} s, recording every "
                                       f"{sim.record_every} step(s), is {samples:.3g} samples of {values} values: "
                                       f"{_gib(size)} to hold, at most {_gib(MAX_RECORDED_BYTES)}; raise "
                                       "sim.record_every or shorten sim.duration")


def check_servo_step(robot, controller, sim: SimConfig, where: str) -> None:
    """Refuse a step beyond the PD servo's stability bound (a controller with ``servo = "explicit"``,
    ``"implicit_damping"`` or ``"stable_pd"`` and ``servo_gains``: :func:`lab.core.instability.servo_step_bound`), computed on the
    robot's joint-space inertia with the base free at the URDF's zero pose
    (:func:`lab.core.world.joint_space_inertia`, a throwaway engine client, once per URDF), each joint
    raised to the inertia its spec's motors say the gears add. The implicit servo has no bound. The
    bound holds at the zero pose; other poses and what M leaves out (contacts) are the run-time
    watch's (lab.core.instability)."""
    gains_of = getattr(controller, "servo_gains", None)
    servo = getattr(controller, "servo", None)
    if gains_of is None or servo not in ("explicit", "implicit_damping", "stable_pd"):
        return
    from lab.core.instability import servo_step_bound
    from lab.core.world import joint_space_inertia

    path = getattr(robot, "file", None)
    try:
        M, names = joint_space_inertia(None if path is not None else robot.to_urdf(), None if path is None else str(path))
    except Exception as exc:  # a robot the engine cannot load is the World's to report, with its own message
        log.debug("servo step bound not computed: %s", exc)
        return
    own = getattr(robot, "motors", None)  # {joint: (stall, no-load[, reflected inertia the gears add])}
    if own is not None:
        from lab.core.world import with_reflected_inertia

        lines = own()
        M = with_reflected_inertia(M, [float(lines[n][2]) if len(lines.get(n, ())) > 2 else math.nan for n in names])
    gains = gains_of(names)
    if gains is None:
        return
    dt_max = servo_step_bound(M, *gains, servo)
    if sim.dt >= dt_max:
        other = servo_step_bound(M, *gains, "implicit_damping")
        alt = (f"controller.servo = \"implicit_damping\" (stable to {other:.4g} s) or \"implicit_pd\" (any step)"
               if servo != "implicit_damping" and sim.dt < other else "controller.servo = \"implicit_pd\" (any step)")
        raise LabError(f"{where}:sim.dt", f"{sim.dt} s is too large for the PD servo (controller.servo = \"{servo}\"): "
                                          f"it is stable only for dt < {dt_max:.4g} s on this robot's lightest joint "
                                          f"mode; use a smaller step or {alt}")


def _gib(n: int) -> str:
    return f"{n / 1024**3:.1f} GiB"


def table_depth(data) -> int:
    """How deep tables (and lists) nest in parsed TOML, counted without recursion."""
    deepest, todo = 0, [(data, 0)]
    while todo:
        node, d = todo.pop()
        if isinstance(node, dict):
            deepest = max(deepest, d + 1)
            todo.extend((v, d + 1) for v in node.values())
        elif isinstance(node, list):
            todo.extend((v, d + 1) for v in node)
        if deepest > MAX_TABLE_DEPTH:
            break
    return deepest


def parse_value(text: str):
    """A ``--set`` value: TOML syntax (numbers, true/false, [lists], "strings"), else a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text


SET = "--set {}"  # how an override is named in an error: the CLI's flag (the Python API: "overrides[{!r}]")

# The typed tables: setting ``<table>.type`` to another type replaces the table with that type's defaults
# before the other overrides apply (the old type's keys would be unknown keys of the new one). The value
# is the type a table without a ``type`` key has.
TYPED_TABLES = {"robot": None, "friction": "coulomb", "controller": None, "arena": "ground", "trial": None}
PATH_KEYS = ("path",)  # a table key holding a file path: relative to the file that sets it (the CLI: the cwd)


def _is_typed_table(prefix: list[str]) -> bool:
    return (len(prefix) == 1 and prefix[0] in TYPED_TABLES) or (len(prefix) == 2 and prefix[0] == "forces")


def absolute_path(value, base: str | Path | None):
    """A path value made absolute against ``base`` (None: the working directory); ``lab:…`` asset names,
    absolute paths and non-strings are returned as they are."""
    if not isinstance(value, str) or not value or value.startswith("lab:"):
        return value
    p = Path(value).expanduser()
    if p.is_absolute():
        return str(p)
    return str(((Path(base) if base is not None else Path.cwd()) / p).resolve())


def absolute_paths(data: dict, base: str | Path | None) -> dict:
    """The file's path fields (``robot.path``, ``forces.<name>.path``, …) made absolute against the file's
    folder ``base``: every path in a file is relative to that file."""
    def fix(table):
        if isinstance(table, dict):
            for k in PATH_KEYS:
                if k in table:
                    table[k] = absolute_path(table[k], base)

    for key, table in data.items():
        if key == "forces" and isinstance(table, dict):
            for sub in table.values():
                fix(sub)
        elif key in TYPED_TABLES:
            fix(table)
    return data


def _label(name, key: str) -> str:
    return name(key) if callable(name) else name.format(key)


def override_items(overrides: list[str] | dict | None, name=SET) -> list[tuple[str, object]]:
    """The overrides as (dotted key, value) pairs, ``--set`` strings parsed as TOML values."""
    if not overrides:
        return []
    if isinstance(overrides, dict):
        return list(overrides.items())
    return [(k, parse_value(v)) for k, v in (_split(o, name) for o in overrides)]


def apply_overrides(data: dict, overrides: list[str] | dict | None, name=SET, base: str | Path | None = None) -> dict:
    """``data`` with the overrides applied (dotted keys). ``name`` formats the override an error names (a
    format string, or a function of the key). A ``<table>.type`` that names another type swaps the table
    for that type's defaults first; path values are relative to ``base`` (None: the working directory)."""
    data = copy.deepcopy(data)
    if not overrides:
        return data
    items = override_items(overrides, name)
    # The type swaps first, whatever the order they were given in: the other keys then land on the new table.
    swaps = [(k, v) for k, v in items if isinstance(k, str) and k.split(".")[-1] == "type"
             and _is_typed_table(k.split(".")[:-1])]
    for key, value in swaps:
        parts = key.split(".")
        parent = data if len(parts) == 2 else data.get("forces")
        table = parent.get(parts[-2]) if isinstance(parent, dict) else None
        if isinstance(table, dict) and table.get("type", TYPED_TABLES.get(parts[0])) != value:
            parent[parts[-2]] = {}  # the old type's keys go; the new type's defaults apply
    for key, value in items:
        if isinstance(key, str) and key.split(".")[-1] in PATH_KEYS:
            value = absolute_path(value, base)
        if table_depth(value) > MAX_TABLE_DEPTH:
            raise LabError(_label(name, str(key)[:60]), f"value nests more than {MAX_TABLE_DEPTH} levels deep")
        parts = key.split(".")
        if len(parts) > MAX_TABLE_DEPTH:
            raise LabError(_label(name, key[:60] + "…"), f"key nests {len(parts)} tables deep; at most {MAX_TABLE_DEPTH}")
        if not all(parts):
            raise LabError(_label(name, key), "key must be dotted field names like robot.n_modules")
        node = data
        for i, part in enumerate(parts[:-1]):
            nxt = node.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise LabError(_label(name, key), f"{'.'.join(parts[: i + 1])} is not a table")
            node = nxt
        node[parts[-1]] = value
    return data


def _split(item: str, name=SET) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise LabError(_label(name, item), "expected KEY=VALUE, e.g. " + _label(name, "friction.mu_n=0.5"))
    return key.strip(), value.strip()


def scenario_dirs() -> list[Path]:
    """Where scenarios are found by name: the shipped folder (:data:`SCENARIO_DIR`), then the folders the
    extension hooks add (each paper's ``scenarios/``, from its manifest), in that order."""
    from lab.core.plugins import scenario_dirs as extra

    return [SCENARIO_DIR, *extra()]


def resolve_path(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        return p
    for d in scenario_dirs():
        if (d / f"{name_or_path}.toml").is_file():
            return d / f"{name_or_path}.toml"
    return SCENARIO_DIR / f"{name_or_path}.toml"


def read_toml(path: Path) -> dict:
    if path.is_dir():
        raise LabError(str(path), "is a folder, not a scenario file (give a .toml file or a name from `lab list`)")
    if not path.is_file():
        raise LabError(str(path), "no such scenario file (see `lab list` for the shipped scenarios)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise LabError(str(path), f"tables nest too deep (at most {MAX_TABLE_DEPTH} levels)") from None
    except tomllib.TOMLDecodeError as exc:
        raise LabError(str(path), f"not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise LabError(str(path), "not a UTF-8 text file") from None
    except OSError as exc:
        raise LabError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if (depth := table_depth(data)) > MAX_TABLE_DEPTH:
        raise LabError(str(path), f"tables nest more than {MAX_TABLE_DEPTH} levels deep ({depth}+); a scenario "
                                  "nests at most 4")
    return data


def blame(exc: LabError, where: str, keys, name=SET) -> LabError:
    """An error about a field an override set is the override's, not the file's: ``--set controller.alhpa``
    (a typo) is reported as ``--set controller.alhpa: unknown key``, not as the shipped file's key."""
    prefix = f"{where}:"
    if not exc.where.startswith(prefix):
        return exc
    field_name = exc.where[len(prefix):].replace(":", ".")  # forces:tether.k is the key forces.tether.k
    for key in reversed(list(keys)):
        if field_name == key or field_name.startswith(key + ".") or key.startswith(field_name + "."):
            return LabError(_label(name, key), exc.what)
    return exc


def load(name_or_path: str, overrides: list[str] | dict | None = None, name=SET,
         base: str | Path | None = None) -> Scenario:
    """The scenario file ``name_or_path`` with ``overrides`` on top. Paths in the file are relative to the
    file's folder; paths in the overrides to ``base`` (None: the working directory). An error names where
    the offending value came from: the override (``--set key``) or the file."""
    path = resolve_path(name_or_path)
    items = override_items(overrides, name)
    data = apply_overrides(absolute_paths(read_toml(path), path.parent.resolve()), dict(items), name, base)
    try:
        return from_dict(data, where=str(path), base=path.parent.resolve())
    except LabError as exc:
        raise blame(exc, str(path), (k for k, _ in items), name) from None


def list_scenarios() -> list[Path]:
    """Every scenario found by name, sorted by name; a name in two folders is an error (which would run?)."""
    found: dict[str, Path] = {}
    for d in scenario_dirs():
        for p in d.glob("*.toml"):
            if p.stem in found:
                raise LabError(str(p), f"scenario name {p.stem!r} is also {found[p.stem]}; names must be unique")
            found[p.stem] = p
    return [found[k] for k in sorted(found)]
