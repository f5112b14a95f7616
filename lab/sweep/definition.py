"""Parameter sweeps: one base scenario, axes of overrides, many runs (``lab sweep``).

A sweep file is TOML::

    name = "creeping_Eref_mun"        # optional; default: the file's stem
    description = "..."               # optional
    base = "snake_passive_creeping"   # a scenario name (`lab list`) or a .toml path relative to this file
    seed = 1                          # optional; default: the base scenario's seed
    repeat = 1                        # runs per point, with seeds seed, seed+1, …, seed+repeat−1
    mode = "grid"                     # "grid": cartesian product of the axes; "zip": axes side by side

    [set]                             # fixed overrides for every run (dotted keys, as with --set)
    "sim.duration" = 20

    [[axis]]
    key = "controller.E_ref"          # any scenario field, dotted
    values = [0.5, 0.7, 1.0]          # … or grid = {start = 0.3, stop = 0.5, num = 3} (inclusive)
                                      # … or random = {low = 0.2, high = 0.6, n = 8} (uniform, seeded)
    also = ["robot.i2"]               # optional: more fields set to the same value (copies that must agree)

    plugins = ["my_gait.py"]          # optional, top level: user plugins (files relative to this file)

Every path in the file (``base``, ``plugins``, a ``robot.path`` in ``[set]`` or an axis) is relative to the
sweep file; ``--set`` paths are relative to the working directory. ``<table>.type`` may be swept (a sweep
over controller types): each value swaps the table for that type's defaults before the other keys apply.

Everything here is pure: :func:`parse_sweep` maps a TOML table onto a :class:`Sweep` (every problem is
a :class:`~lab.core.errors.LabError` naming the field), and :func:`expand` turns a Sweep into a list of
:class:`RunSpec` whose ``run_id`` (index + hash of the overrides) is stable, so a sweep re-run into the
same folder recognises the runs it has already finished.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lab.core import scenario as scn
from lab.core.errors import LabError

TOP_KEYS = ("name", "description", "base", "seed", "repeat", "mode", "set", "axis", "plugins")
AXIS_KINDS = ("values", "grid", "random")
MAX_RUNS = 100_000
_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class Axis:
    """One swept field and its (already resolved) values."""

    key: str
    values: tuple
    kind: str = "values"  # how the values were given: values | grid | random
    spec: dict = field(default_factory=dict, compare=False)  # the grid/random table as written
    also: tuple = ()  # more keys given the same value at every point

    @property
    def keys(self) -> tuple:
        return (self.key, *self.also)


@dataclass(frozen=True)
class Sweep:
    name: str
    base: str  # scenario name or path, as accepted by lab.core.scenario.load
    axes: tuple[Axis, ...] = ()
    fixed: dict = field(default_factory=dict)  # dotted key -> value, applied to every run
    seed: int = 0
    repeat: int = 1
    mode: str = "grid"
    description: str = ""
    plugins: tuple = ()  # user plugins, resolved (absolute paths or module names)
    origins: dict = field(default_factory=dict, compare=False)  # dotted key -> how an error names it

    def to_dict(self) -> dict:
        """The resolved definition (base made explicit, --set folded into [set]); re-loadable."""
        axes = []
        for a in self.axes:
            entry = {"key": a.key}
            entry[a.kind] = dict(a.spec) if a.kind != "values" else list(a.values)
            if a.also:
                entry["also"] = list(a.also)
            axes.append(entry)
        d = {"name": self.name, "description": self.description, "base": self.base, "seed": self.seed,
             "repeat": self.repeat, "mode": self.mode}
        if self.plugins:
            d["plugins"] = list(self.plugins)
        if self.fixed:
            d["set"] = dict(self.fixed)
        if axes:
            d["axis"] = axes
        return d


@dataclass(frozen=True)
class RunSpec:
    index: int
    run_id: str
    point: dict  # axis key -> value (what varies)
    seed: int
    overrides: dict  # everything applied on top of the base scenario: fixed + point + seed


# ------------------------------------------------------------------ parsing


def flatten(table: dict, prefix: str = "") -> dict:
    """``{"sim": {"duration": 20}}`` → ``{"sim.duration": 20}``: TOML reads ``sim.duration = 20``
    in a table as nested tables, while overrides are dotted keys."""
    out = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _int(value, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise LabError(where, f"must be an integer in [{lo}, {hi}], got {value!r}")
    return value


def _num(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LabError(where, f"must be a finite number, got {value!r}")
    return value


def _keys(table, allowed, where: str) -> None:
    if not isinstance(table, dict):
        raise LabError(where, f"must be a table, got {table!r}")
    for k in table:
        if k not in allowed:
            raise LabError(f"{where}.{k}", f"unknown key; allowed: {', '.join(allowed)}")
    for k in allowed:
        if k not in table:
            raise LabError(where, f"missing key {k!r}")


def _tidy(x: float) -> float:
    """Round away linspace's last-bit noise (0.30000000000000004) so tables and hashes read cleanly."""
    return float(f"{x:.12g}")


def grid_values(spec: dict, where: str) -> tuple:
    """``{start, stop, num}``: ``num`` evenly spaced values, both ends included (numpy.linspace).
    Integer ends with integral steps stay integers, so integer fields (robot.n_modules) can be swept."""
    _keys(spec, ("start", "stop", "num"), where)
    start, stop = _num(spec["start"], f"{where}.start"), _num(spec["stop"], f"{where}.stop")
    num = _int(spec["num"], f"{where}.num", 1, MAX_RUNS)
    vals = [_tidy(v) for v in np.linspace(start, stop, num)]
    if isinstance(spec["start"], int) and isinstance(spec["stop"], int) and all(v.is_integer() for v in vals):
        return tuple(int(v) for v in vals)
    return tuple(vals)


def random_values(spec: dict, seed: int, axis_index: int, where: str) -> tuple:
    """``{low, high, n}``: n uniform samples in [low, high), from a generator seeded by
    (sweep seed, axis index), so the same file gives the same values and two axes differ."""
    _keys(spec, ("low", "high", "n"), where)
    low, high = _num(spec["low"], f"{where}.low"), _num(spec["high"], f"{where}.high")
    if not low < high:
        raise LabError(f"{where}.high", f"must be greater than low = {low}, got {high}")
    n = _int(spec["n"], f"{where}.n", 1, MAX_RUNS)
    rng = np.random.default_rng(np.random.SeedSequence([seed, axis_index]))
    return tuple(_tidy(v) for v in rng.uniform(low, high, n))


def list_values(values, where: str) -> tuple:
    if not isinstance(values, list) or not values:
        raise LabError(where, f"must be a non-empty list, got {values!r}")
    seen = set()
    for i, v in enumerate(values):
        if isinstance(v, dict):
            raise LabError(f"{where}[{i}]", "must be a value, not a table")
        token = json.dumps(v, sort_keys=True, default=str)
        if token in seen:
            raise LabError(f"{where}[{i}]", f"duplicate value {v!r}")
        seen.add(token)
    return tuple(values)


def _check_key(key, where: str) -> str:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise LabError(where, f"must be a dotted scenario field like 'controller.E_ref', got {key!r}")
    return key


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def parse_axis(entry, i: int, seed: int, where: str) -> Axis:
    w = f"{where}:axis[{i}]"
    if not isinstance(entry, dict):
        raise LabError(w, f"must be a table with 'key' and one of {', '.join(AXIS_KINDS)}")
    for k in entry:
        if k not in ("key", "also", *AXIS_KINDS):
            raise LabError(f"{w}.{k}", f"unknown key; allowed: key, also, {', '.join(AXIS_KINDS)}")
    if "key" not in entry:
        raise LabError(w, "missing key 'key' (the scenario field to sweep, e.g. 'controller.E_ref')")
    key = _check_key(entry["key"], f"{w}.key")
    kinds = [k for k in AXIS_KINDS if k in entry]
    if len(kinds) != 1:
        raise LabError(w, f"needs exactly one of {', '.join(AXIS_KINDS)}, got {kinds or 'none'}")
    kind = kinds[0]
    also = entry.get("also", [])
    if not isinstance(also, list):
        raise LabError(f"{w}.also", f"must be a list of scenario fields, got {also!r}")
    also = tuple(_check_key(k, f"{w}.also") for k in also)
    if kind == "values":
        return Axis(key, list_values(entry["values"], f"{w}.values"), "values", also=also)
    if kind == "grid":
        return Axis(key, grid_values(entry["grid"], f"{w}.grid"), "grid", dict(entry["grid"]), also=also)
    return Axis(key, random_values(entry["random"], seed, i, f"{w}.random"), "random", dict(entry["random"]),
                also=also)


def parse_sweep(data: dict, where: str = "sweep", default_name: str = "sweep", default_seed: int = 0,
                extra_set: dict | None = None) -> Sweep:
    """Validate a sweep table strictly and resolve its axes. ``extra_set`` (from ``--set``) joins
    the fixed overrides; it may not touch a swept key (that would silently collapse an axis)."""
    if not isinstance(data, dict):
        raise LabError(where, "must be a TOML table")
    for k in data:
        if k not in TOP_KEYS:
            raise LabError(f"{where}:{k}", f"unknown key; allowed: {', '.join(TOP_KEYS)}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise LabError(f"{where}:name", f"must be letters, digits, '_' or '-', got {name!r}")
    if len(name) > 128:  # it names the default folder runs/sweep-<name>-<time>/ (a 255-byte file name)
        raise LabError(f"{where}:name", f"is {len(name)} characters long; at most 128")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise LabError(f"{where}:description", "must be a string")
    if "base" not in data:
        raise LabError(f"{where}:base", "missing: the scenario to sweep, e.g. base = \"snake_passive_creeping\"")
    base = data["base"]
    if not isinstance(base, str) or not base:
        raise LabError(f"{where}:base", f"must be a scenario name or path, got {base!r}")
    seed = _int(data.get("seed", default_seed), f"{where}:seed", 0, 2**32 - 1)
    repeat = _int(data.get("repeat", 1), f"{where}:repeat", 1, MAX_RUNS)
    mode = data.get("mode", "grid")
    if mode not in ("grid", "zip"):
        raise LabError(f"{where}:mode", f"must be 'grid' or 'zip', got {mode!r}")

    fixed_raw = data.get("set", {})
    if not isinstance(fixed_raw, dict):
        raise LabError(f"{where}:set", "must be a table of dotted keys, e.g. \"sim.duration\" = 20")
    fixed = flatten(fixed_raw)
    for k in fixed:
        _check_key(k, f"{where}:set.{k}")
    if "seed" in fixed:
        raise LabError(f"{where}:set.seed", "use the sweep's top-level seed (and repeat) instead")
    for k, v in (extra_set or {}).items():
        _check_key(k, f"--set {k}")
        if k == "seed":
            raise LabError("--set seed", "the seed is the sweep's: set it in the sweep file")
        fixed[k] = v

    entries = data.get("axis", [])
    if not isinstance(entries, list):
        raise LabError(f"{where}:axis", "must be an array of tables: [[axis]]")
    axes = tuple(parse_axis(e, i, seed, where) for i, e in enumerate(entries))
    for i, a in enumerate(axes):
        for j, ka in enumerate(a.keys):
            for kb in [*a.keys[:j], *(k for b in axes[:i] for k in b.keys)]:
                if _overlap(ka, kb):
                    raise LabError(f"{where}:axis[{i}].{'key' if j == 0 else 'also'}",
                                   f"{ka!r} is already swept ({kb!r})")
            for k in fixed:
                if _overlap(ka, k):
                    src = "--set" if k in (extra_set or {}) else f"{where}:set"
                    raise LabError(f"{src} {k}" if src == "--set" else f"{src}.{k}",
                                   f"overlaps the swept key {ka!r}: a field is either fixed or swept")
        if a.key == "seed" and repeat > 1:
            raise LabError(f"{where}:axis[{i}].key", "sweeping 'seed' and repeat > 1 together is ambiguous")
    if mode == "zip" and axes:
        lengths = {a.key: len(a.values) for a in axes}
        if len(set(lengths.values())) > 1:
            raise LabError(f"{where}:mode", f"'zip' needs axes of equal length, got {lengths}")
    n_points = (len(axes[0].values) if axes else 1) if mode == "zip" else math.prod(len(a.values) for a in axes)
    if n_points * repeat > MAX_RUNS:
        raise LabError(where, f"expands to {n_points * repeat} runs; the limit is {MAX_RUNS}")
    plugins = data.get("plugins", [])
    if not isinstance(plugins, list) or not all(isinstance(x, str) for x in plugins):
        raise LabError(f"{where}:plugins", f"must be a list of module names or .py files, got {plugins!r}")
    origins = {k: (f"--set {k}" if k in (extra_set or {}) else f"{where}:set.{k}") for k in fixed}
    for i, a in enumerate(axes):
        origins.update({k: f"{where}:axis[{i}] {k}" for k in a.keys})
    return Sweep(name=name, base=base, axes=axes, fixed=fixed, seed=seed, repeat=repeat, mode=mode, description=desc,
                 plugins=tuple(plugins), origins=origins)


# ------------------------------------------------------------------ expansion


def run_hash(overrides: dict) -> str:
    token = json.dumps(overrides, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha1(token.encode()).hexdigest()[:8]


def points(sweep: Sweep) -> list[dict]:
    """The axis points in order: grid = itertools.product (first axis slowest), zip = side by side."""
    axes = sweep.axes
    if not axes:
        return [{}]
    combos = zip(*(a.values for a in axes)) if sweep.mode == "zip" else itertools.product(*(a.values for a in axes))
    return [{k: v for a, v in zip(axes, c) for k in a.keys} for c in combos]


def expand(sweep: Sweep) -> list[RunSpec]:
    """Every run of the sweep: each point repeated ``repeat`` times with seeds seed + r (innermost).

    ``run_id = r<index>-<hash>``: the index keeps folders in sweep order, the hash of the overrides
    makes an id name one definite run, so a changed sweep never mistakes an old result for a new one.
    """
    pts = points(sweep)
    n = len(pts) * sweep.repeat
    width = max(4, len(str(n - 1)))
    specs = []
    for p in pts:
        for r in range(sweep.repeat):
            seed = p["seed"] if "seed" in p else sweep.seed + r
            overrides = {**sweep.fixed, **p, "seed": seed}
            i = len(specs)
            specs.append(RunSpec(index=i, run_id=f"r{i:0{width}d}-{run_hash(overrides)}", point=dict(p), seed=seed,
                                 overrides=overrides))
    return specs


# ------------------------------------------------------------------ files


def resolve_base(base: str, sweep_dir: Path) -> Path:
    """A name from scenarios/, else a path relative to the sweep file, else relative to the cwd."""
    p = Path(base)
    if p.suffix == ".toml" or "/" in base:
        near = p if p.is_absolute() else sweep_dir / p
        if near.is_file():
            return near.resolve()
    return scn.resolve_path(base).resolve()


def load_sweep(path: str | Path, extra_set: dict | None = None) -> Sweep:
    """Read and validate a sweep file; the base is resolved to an absolute path and the seed
    defaults to the base scenario's."""
    path = Path(path)
    if not path.exists() and path.parent == Path(".") and path.suffix in ("", ".toml"):
        # a shipped sweep by name (`lab sweep tracked_step_climb`): an installed wheel has no
        # scenarios/sweeps/ folder to point at (lab.core.resources finds its copy)
        from lab.core.resources import data_dir

        shipped = data_dir("scenarios/sweeps") / f"{path.stem}.toml"
        if shipped.is_file():
            path = shipped
    if path.is_dir():
        raise LabError(str(path), "is a folder, not a sweep file (.toml)")
    if not path.is_file():
        raise LabError(str(path), "no such sweep file (a path, or the name of a shipped sweep: see `lab list`)")
    data = scn.read_toml(path)
    where = str(path)
    if "plugins" in data:  # loaded before the runs are validated: the base may name the plugins' types
        from lab.core.user_plugins import load_all

        here = path.parent.resolve()
        data = {**data, "plugins": [p.path or p.module for p in load_all(data["plugins"], here, f"{where}:plugins")]}
    data = _absolute_paths(data, path.parent.resolve())
    base = data.get("base")
    default_seed = 0
    if isinstance(base, str) and base:
        base_path = resolve_base(base, path.parent)
        if not base_path.is_file():
            raise LabError(f"{where}:base", f"no scenario {base!r} (not in `lab list`, no file {base_path})")
        data = {**data, "base": str(base_path)}
        default_seed = scn.read_toml(base_path).get("seed", 0)
    return parse_sweep(data, where=where, default_name=path.stem, default_seed=default_seed, extra_set=extra_set)


def _absolute_paths(data: dict, here: Path) -> dict:
    """Path values in ``[set]`` and the axes (``robot.path``) made absolute against the sweep file's folder."""
    def is_path(key) -> bool:
        return isinstance(key, str) and key.split(".")[-1] in scn.PATH_KEYS

    data = dict(data)
    if isinstance(data.get("set"), dict):
        data["set"] = {k: (scn.absolute_path(v, here) if is_path(k) else v) for k, v in flatten(data["set"]).items()}
    if isinstance(data.get("axis"), list):
        axes = []
        for entry in data["axis"]:
            if isinstance(entry, dict) and is_path(entry.get("key")) and isinstance(entry.get("values"), list):
                entry = {**entry, "values": [scn.absolute_path(v, here) for v in entry["values"]]}
            axes.append(entry)
        data["axis"] = axes
    return data


def parse_set(items: list[str]) -> dict:
    """``--set KEY=VALUE`` strings → a dotted-key dict with TOML-typed values (paths relative to the cwd)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise LabError(f"--set {item}", "expected KEY=VALUE, e.g. --set sim.duration=5")
        key = key.strip()
        value = scn.parse_value(value.strip())
        out[key] = scn.absolute_path(value, None) if key.split(".")[-1] in scn.PATH_KEYS else value
    return out


def validate_runs(sweep: Sweep, specs: list[RunSpec], where: str) -> list:
    """Load every run's scenario before anything starts, so a bad key fails fast and writes nothing."""
    scenarios = []
    for spec in specs:
        try:
            scenarios.append(scn.load(sweep.base, spec.overrides,
                                      name=lambda k: sweep.origins.get(k, f"{where}: run {spec.run_id} {k}")))
        except LabError as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in spec.point.items()) or f"seed={spec.seed}"
            raise LabError(f"{where}: run {spec.run_id} ({shown})", f"{exc.where}: {exc.what}") from None
    return scenarios


# ------------------------------------------------------------------ CLI


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("sweep", help="run a parameter sweep of one scenario on dask.distributed",
                              description="Expand a sweep file into runs and execute them in parallel. "
                                          "Re-running with the same --out resumes: finished runs are skipped.")
    p.add_argument("sweep", help="sweep file (.toml), e.g. scenarios/sweeps/creeping_Eref_mun.toml")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="local worker processes (default: number of CPUs, at most the number of runs)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use a running dask scheduler, e.g. tcp://10.0.0.5:8786 (workers need a shared --out)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder (default: runs/sweep-<name>-<time>): new, empty, or this sweep's own "
                        "folder, which is resumed")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario field in every run, e.g. --set sim.duration=5 (repeatable)")
    p.add_argument("--retry-failed", action="store_true", help="re-run runs recorded as failed or diverged")
    p.add_argument("--dry-run", action="store_true", help="validate and list the runs, run nothing")
    p.set_defaults(handler=cmd_sweep)


# distributed's comm backends (distributed.comm.registry.backends in 2026.8): the schemes Client accepts
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def check_scheduler(address: str) -> None:
    """A dask scheduler address, refused in one line unless its scheme is one dask connects with. An
    ``http(s)://`` address is the scheduler's *dashboard* (port 8787 by default), not the scheduler
    (tcp, port 8786): it is refused rather than mapped, since the dashboard's port is not the one to
    connect to and guessing would connect elsewhere or hang until the timeout."""
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", address)
    scheme = m.group(1).lower() if m else None
    if scheme not in ("http", "https") and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s/]+/?$", address):
        scheme = None  # a path or spaces after the host: not an address dask connects to
    if scheme in ("http", "https"):
        raise LabError("--scheduler", f"{address!r} is a dashboard (web) address; give the scheduler's own, "
                                      "tcp://HOST:8786 (the dashboard is usually on port 8787)")
    if scheme not in SCHEDULER_SCHEMES:
        raise LabError("--scheduler", f"must be a dask scheduler address like tcp://host:8786 (schemes: "
                                      f"{', '.join(SCHEDULER_SCHEMES)}), got {address!r}")


def cmd_sweep(args) -> int:
    from lab.sweep.execute import run_sweep

    sweep = load_sweep(args.sweep, parse_set(args.overrides))
    specs = expand(sweep)
    scenarios = validate_runs(sweep, specs, str(args.sweep))
    if args.workers is not None and not 1 <= args.workers <= 256:
        raise LabError("--workers", f"must be in [1, 256], got {args.workers}")
    if args.scheduler:
        check_scheduler(args.scheduler)
    if args.dry_run:
        for s in specs:
            print(f"{s.run_id}  seed={s.seed}  " + "  ".join(f"{k}={v!r}" for k, v in s.point.items()))
        print(f"{len(specs)} runs of {Path(sweep.base).stem}")
        return 0
    import time

    from lab.core.outputs import prepare, unique_default

    out = args.out or unique_default(Path("runs") / f"sweep-{sweep.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    output = prepare(out, "sweep", name=sweep.name)  # new, empty, or this sweep's own folder (resumed)
    return run_sweep(sweep, specs, scenarios, output, workers=args.workers, scheduler=args.scheduler,
                     retry_failed=args.retry_failed, command=getattr(args, "command", None))
