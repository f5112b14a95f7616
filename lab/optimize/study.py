"""Study files: what ``lab optimize`` searches, for what, under which constraints.

A study file is TOML::

    name = "hu2013_arm"                  # optional; default: the file's stem
    description = "..."                  # optional
    scenario = "tracked_step_climb"      # a scenario name (`lab list`) or a .toml path relative to this file
    seed = 0                             # the sampler's seed (the runs keep the scenario's own seed)
    trials = 30                          # the budget: trials finished (complete or failed), 1 … 10 000
    sampler = "tpe"                      # tpe | random | qmc | nsga2

    [set]                                # fixed overrides for every trial (dotted keys, as with --set)
    "sim.duration" = 12

    [[param]]                            # a field to search (float or integer field of the scenario)
    key = "robot.arm_length"
    low = 0.24                           # within the field's declared range (lab.fields); both default to
    high = 0.6                           # the declared bounds where those are closed
    log = false                          # optional; default: the field's declaration (lab.fields num(log=…))
    also = []                            # optional: more fields given the same value (copies that must agree)

    [[objective]]                        # one or several
    metric = "com.speed_mean_mps"        # any metric of the run (metrics.json)
    per = "energy.input_power_mean_W"    # optional: divide by this metric (speed per input power)
    direction = "maximize"               # or "minimize"

    [[constraint]]                       # optional; a trial whose run did not end "ok" is always failed
    metric = "climb.peak_motor_torque_Nm"
    max = 0.0188                         # and/or min = …; or equals = true (a flag metric)

    [baseline]                           # optional: the paper's choice, run as trial 0 (every param key)
    "robot.arm_length" = 0.3

Everything here is pure: :func:`parse_study` maps a TOML table onto a :class:`Study`, every problem a
:class:`~lab.errors.LabError` naming the field (``error: <file>:<field>: …``, exit 2, nothing written).
The search box is checked against the scenario: each param must be a number field of the resolved
scenario with a declared range, and the scenario must load at every corner of the box (so a
cross-field rule such as ``pulley_radius < track_side/2`` fails before any trial runs).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from lab.core import scenario as scn
from lab.core.errors import LabError
from lab.core.fields import declarations, fmt
from lab.sweep.definition import _check_key, _overlap, flatten, resolve_base

TOP_KEYS = ("name", "description", "scenario", "seed", "trials", "sampler", "set", "param", "objective",
            "constraint", "baseline")
PARAM_KEYS = ("key", "low", "high", "log", "also")
OBJECTIVE_KEYS = ("metric", "per", "direction")
CONSTRAINT_KEYS = ("metric", "min", "max", "equals")
SAMPLERS = ("tpe", "random", "qmc", "nsga2")
DIRECTIONS = ("minimize", "maximize")
MAX_TRIALS = 10_000  # bounds the folder: one ~2 kB row per trial, no run folders (see lab.optimize.engine)
MAX_PARAMS = 12  # the corners of the box are loaded once each (2^12 = 4096 scenario loads at most)
MAX_OBJECTIVES = 4
MAX_BEST = 20  # best trials written and re-run at most (a Pareto front can be long)
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_METRIC_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")


@dataclass(frozen=True)
class Param:
    key: str
    low: float
    high: float
    log: bool = False
    integer: bool = False
    also: tuple = ()
    unit: str = ""

    @property
    def keys(self) -> tuple:
        return (self.key, *self.also)

    def to_dict(self) -> dict:
        d = {"key": self.key, "low": self.low, "high": self.high, "log": self.log}
        if self.also:
            d["also"] = list(self.also)
        return d


@dataclass(frozen=True)
class Objective:
    metric: str
    direction: str = "minimize"
    per: str | None = None

    @property
    def name(self) -> str:
        """The column the objective's value has in the table: the metric, or ``metric/per``."""
        return f"{self.metric}/{self.per}" if self.per else self.metric

    def to_dict(self) -> dict:
        d = {"metric": self.metric, "direction": self.direction}
        if self.per:
            d["per"] = self.per
        return d


@dataclass(frozen=True)
class Constraint:
    metric: str
    min: float | None = None
    max: float | None = None
    equals: object = None

    def text(self) -> str:
        if self.equals is not None:
            return f"{self.metric} = {self.equals!r}".replace("True", "true").replace("False", "false")
        parts = [f"{fmt(self.min)} <=" if self.min is not None else "", self.metric,
                 f"<= {fmt(self.max)}" if self.max is not None else ""]
        return " ".join(p for p in parts if p)

    def to_dict(self) -> dict:
        d: dict = {"metric": self.metric}
        for k in ("min", "max", "equals"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        return d


@dataclass(frozen=True)
class Study:
    name: str
    scenario: str  # absolute path of the base scenario
    params: tuple[Param, ...]
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...] = ()
    fixed: dict = field(default_factory=dict)
    baseline: dict | None = None  # param key -> value
    trials: int = 20
    seed: int = 0
    sampler: str = "tpe"
    description: str = ""

    @property
    def directions(self) -> list[str]:
        return [o.direction for o in self.objectives]

    def overrides(self, values: dict) -> dict:
        """The overrides of one trial: the fixed ones, then each param (and its copies) at its value."""
        out = dict(self.fixed)
        for p in self.params:
            for k in p.keys:
                out[k] = values[p.key]
        return out

    def to_dict(self) -> dict:
        """The resolved definition (scenario made absolute, --set folded into [set]); re-loadable."""
        d = {"name": self.name, "description": self.description, "scenario": self.scenario, "seed": self.seed,
             "trials": self.trials, "sampler": self.sampler}
        if self.fixed:
            d["set"] = dict(self.fixed)
        d["param"] = [p.to_dict() for p in self.params]
        d["objective"] = [o.to_dict() for o in self.objectives]
        if self.constraints:
            d["constraint"] = [c.to_dict() for c in self.constraints]
        if self.baseline is not None:
            d["baseline"] = dict(self.baseline)
        return d


# ------------------------------------------------------------------ parsing


def _num(v, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise LabError(where, f"must be a finite number, got {v!r}")
    return v


def _table(v, allowed: tuple, where: str) -> dict:
    if not isinstance(v, dict):
        raise LabError(where, f"must be a table with keys {', '.join(allowed)}")
    for k in v:
        if k not in allowed:
            raise LabError(f"{where}.{k}", f"unknown key; allowed: {', '.join(allowed)}")
    return v


def _metric(v, where: str) -> str:
    if not isinstance(v, str) or not _METRIC_RE.match(v):
        raise LabError(where, f"must be a metric name as in metrics.json, e.g. 'com.speed_mean_mps', got {v!r}")
    return v


def _array(data: dict, key: str, where: str, required: bool) -> list:
    v = data.get(key, [])
    if not isinstance(v, list):
        raise LabError(f"{where}:{key}", f"must be an array of tables: [[{key}]]")
    if required and not v:
        raise LabError(f"{where}:{key}", f"missing: at least one [[{key}]] table")
    return v


def section_of(sc, key: str):
    """The dataclass object holding the dotted field ``key`` of a resolved scenario, and the field's name."""
    head, _, rest = key.partition(".")
    if head == "forces":
        fname, _, rest = rest.partition(".")
        obj = next((params for name, _, params in sc.forces if name == fname), None)
    else:
        obj = getattr(sc, head, None) if head in ("sim", "init", "arena", "robot", "friction", "controller",
                                                  "trial") else None
    return obj, rest


def field_decl(sc, key: str, where: str):
    """The declaration (:mod:`lab.fields`) of a number field of the scenario, or a LabError saying why not."""
    obj, name = section_of(sc, key)
    if obj is None or "." in name or not name:
        raise LabError(where, f"{key!r} is not a field of the scenario (see `lab show {sc.name}`)")
    decls = declarations(type(obj))
    if name not in decls:
        raise LabError(where, f"{key!r} is not a field of the scenario (see `lab show {sc.name}`)")
    d = decls[name]
    if d.kind not in ("number", "integer", "count"):
        raise LabError(where, f"{key!r} is not a number field ({d.kind or 'free'}); only numbers can be searched")
    return d


def _bound(d, side: str):
    """The declared closed bound on one side (``ge``/``le``), else None (open or absent)."""
    return d.ge if side == "low" else d.le


def parse_param(entry, i: int, sc, where: str) -> Param:
    w = f"{where}:param[{i}]"
    _table(entry, PARAM_KEYS, w)
    if "key" not in entry:
        raise LabError(w, "missing key 'key' (the scenario field to search, e.g. 'robot.arm_length')")
    key = _check_key(entry["key"], f"{w}.key")
    also = entry.get("also", [])
    if not isinstance(also, list):
        raise LabError(f"{w}.also", f"must be a list of scenario fields, got {also!r}")
    also = tuple(_check_key(k, f"{w}.also") for k in also)
    d = field_decl(sc, key, f"{w}.key")
    integer = d.integer or d.kind == "count"
    ends = {}
    for side in ("low", "high"):
        if side in entry:
            v = _num(entry[side], f"{w}.{side}")
            if integer and not float(v).is_integer():
                raise LabError(f"{w}.{side}", f"{key} is an integer field: must be an integer, got {v!r}")
            problem = d.problem(int(v) if integer else float(v))
            if problem is not None:
                raise LabError(f"{w}.{side}", f"outside the declared range of {key}: {problem}")
            ends[side] = v
        else:
            b = _bound(d, side)
            if b is None:
                raise LabError(w, f"missing key {side!r}: {key}'s declared range ({d.allowed() or 'none'}) has no "
                                  f"closed {'lower' if side == 'low' else 'upper'} end to default to")
            ends[side] = b
    low, high = ends["low"], ends["high"]
    if not low < high:
        raise LabError(f"{w}.high", f"must be greater than low = {fmt(low)}, got {fmt(high)}")
    log = entry.get("log", bool(getattr(d, "log", False)))
    if not isinstance(log, bool):
        raise LabError(f"{w}.log", f"must be true or false, got {log!r}")
    if log and low <= 0:
        raise LabError(f"{w}.log", f"a log-scale search needs low > 0, got low = {fmt(low)}")
    if integer:
        low, high = int(low), int(high)
    else:
        low, high = float(low), float(high)
    return Param(key=key, low=low, high=high, log=log, integer=integer, also=also, unit=d.unit)


def parse_objective(entry, i: int, where: str) -> Objective:
    w = f"{where}:objective[{i}]"
    _table(entry, OBJECTIVE_KEYS, w)
    if "metric" not in entry:
        raise LabError(w, "missing key 'metric' (a metric of the run, e.g. 'com.speed_mean_mps')")
    metric = _metric(entry["metric"], f"{w}.metric")
    per = entry.get("per")
    if per is not None:
        per = _metric(per, f"{w}.per")
    direction = entry.get("direction", "minimize")
    if direction not in DIRECTIONS:
        raise LabError(f"{w}.direction", f"must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    return Objective(metric=metric, direction=direction, per=per)


def parse_constraint(entry, i: int, where: str) -> Constraint:
    w = f"{where}:constraint[{i}]"
    _table(entry, CONSTRAINT_KEYS, w)
    if "metric" not in entry:
        raise LabError(w, "missing key 'metric' (the bounded metric, e.g. 'climb.peak_motor_torque_Nm')")
    metric = _metric(entry["metric"], f"{w}.metric")
    lo = _num(entry["min"], f"{w}.min") if "min" in entry else None
    hi = _num(entry["max"], f"{w}.max") if "max" in entry else None
    eq = entry.get("equals")
    if eq is not None:
        if lo is not None or hi is not None:
            raise LabError(f"{w}.equals", "takes neither min nor max beside it")
        if not isinstance(eq, (bool, int, float, str)) or (isinstance(eq, float) and not math.isfinite(eq)):
            raise LabError(f"{w}.equals", f"must be a value (true, a number, a string), got {eq!r}")
    elif lo is None and hi is None:
        raise LabError(w, "needs min, max (or both), or equals")
    if lo is not None and hi is not None and not lo <= hi:
        raise LabError(f"{w}.max", f"must be at least min = {fmt(lo)}, got {fmt(hi)}")
    return Constraint(metric=metric, min=lo, max=hi, equals=eq)


def parse_study(data: dict, where: str = "study", default_name: str = "study", base_dir: Path | None = None,
                extra_set: dict | None = None) -> Study:
    """Validate a study table strictly against its scenario; see the module docstring for the format."""
    if not isinstance(data, dict):
        raise LabError(where, "must be a TOML table")
    for k in data:
        if k not in TOP_KEYS:
            raise LabError(f"{where}:{k}", f"unknown key; allowed: {', '.join(TOP_KEYS)}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise LabError(f"{where}:name", f"must be letters, digits, '_' or '-', got {name!r}")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise LabError(f"{where}:description", "must be a string")
    base = data.get("scenario")
    if not isinstance(base, str) or not base:
        raise LabError(f"{where}:scenario", f"missing or not a scenario name or path, got {base!r}")
    base_path = resolve_base(base, base_dir or Path("."))
    if not base_path.is_file():
        raise LabError(f"{where}:scenario", f"no scenario {base!r} (not in `lab list`, no file {base_path})")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise LabError(f"{where}:seed", f"must be an integer in [0, 2^32), got {seed!r}")
    trials = data.get("trials")
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise LabError(f"{where}:trials", f"must be an integer in [1, {MAX_TRIALS}] (the trial budget), got {trials!r}")
    sampler = data.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise LabError(f"{where}:sampler", f"must be one of {', '.join(SAMPLERS)}, got {sampler!r}")

    fixed_raw = data.get("set", {})
    if not isinstance(fixed_raw, dict):
        raise LabError(f"{where}:set", "must be a table of dotted keys, e.g. \"sim.duration\" = 20")
    fixed = flatten(fixed_raw)
    for k in fixed:
        _check_key(k, f"{where}:set.{k}")
    for k, v in (extra_set or {}).items():
        _check_key(k, f"--set {k}")
        fixed[k] = v
    try:
        sc = scn.load(str(base_path), fixed)
    except LabError as exc:
        raise LabError(f"{where}:set", f"{exc.where}: {exc.what}") from None

    entries = _array(data, "param", where, required=True)
    if len(entries) > MAX_PARAMS:
        raise LabError(f"{where}:param", f"searches {len(entries)} fields; at most {MAX_PARAMS}")
    params = tuple(parse_param(e, i, sc, where) for i, e in enumerate(entries))
    for i, p in enumerate(params):
        for j, ka in enumerate(p.keys):
            for kb in [*p.keys[:j], *(k for q in params[:i] for k in q.keys)]:
                if _overlap(ka, kb):
                    raise LabError(f"{where}:param[{i}].{'key' if j == 0 else 'also'}", f"{ka!r} is already searched")
            for k in fixed:
                if _overlap(ka, k):
                    src = f"--set {k}" if k in (extra_set or {}) else f"{where}:set.{k}"
                    raise LabError(src, f"overlaps the searched key {ka!r}: a field is either fixed or searched")
    objs = _array(data, "objective", where, required=True)
    if len(objs) > MAX_OBJECTIVES:
        raise LabError(f"{where}:objective", f"has {len(objs)} objectives; at most {MAX_OBJECTIVES}")
    objectives = tuple(parse_objective(e, i, where) for i, e in enumerate(objs))
    if len({o.name for o in objectives}) < len(objectives):
        raise LabError(f"{where}:objective", "names the same objective twice")
    constraints = tuple(parse_constraint(e, i, where) for i, e in enumerate(_array(data, "constraint", where, False)))
    if sampler == "qmc" and constraints:
        raise LabError(f"{where}:sampler", "'qmc' ignores constraints; use 'tpe' or 'nsga2' with [[constraint]]")

    baseline = data.get("baseline")
    if baseline is not None:
        if not isinstance(baseline, dict):
            raise LabError(f"{where}:baseline", "must be a table: param key = value")
        baseline = flatten(baseline)
        keys = [p.key for p in params]
        for k in baseline:
            if k not in keys:
                raise LabError(f"{where}:baseline.{k}", f"is not a searched key; allowed: {', '.join(keys)}")
        for p in params:
            if p.key not in baseline:
                raise LabError(f"{where}:baseline", f"missing {p.key!r}: the baseline gives every searched key")
            v = _num(baseline[p.key], f"{where}:baseline.{p.key}")
            if not p.low <= v <= p.high:
                raise LabError(f"{where}:baseline.{p.key}", f"must lie in the searched range [{fmt(p.low)}, "
                                                            f"{fmt(p.high)}], got {fmt(v)}")
            if p.integer and not float(v).is_integer():
                raise LabError(f"{where}:baseline.{p.key}", f"must be an integer, got {v!r}")
            baseline[p.key] = int(v) if p.integer else float(v)
    study = Study(name=name, scenario=str(base_path), params=params, objectives=objectives, constraints=constraints,
                  fixed=fixed, baseline=baseline, trials=trials, seed=seed, sampler=sampler, description=desc)
    check_box(study, where)
    return study


def check_box(study: Study, where: str) -> None:
    """Load the scenario at every corner of the search box (and at the baseline): a value that is in
    its own field's range but breaks a cross-field rule fails here, before any trial runs."""
    points = [dict(zip([p.key for p in study.params], c))
              for c in itertools.product(*((p.low, p.high) for p in study.params))]
    if study.baseline is not None:
        points.append(dict(study.baseline))
    for pt in points:
        try:
            scn.load(study.scenario, study.overrides(pt))
        except LabError as exc:
            shown = ", ".join(f"{k}={fmt(v)}" for k, v in pt.items())
            raise LabError(f"{where}:param", f"the scenario does not load at ({shown}): {exc.where}: {exc.what}; "
                                             "narrow the range") from None


# ------------------------------------------------------------------ files


def load_study(path: str | Path, extra_set: dict | None = None) -> Study:
    """Read and validate a study file; a bare name is looked up in the shipped ``scenarios/studies``."""
    path = Path(path)
    if not path.exists() and path.parent == Path(".") and path.suffix in ("", ".toml"):
        from lab.core.resources import data_dir

        shipped = data_dir("scenarios/studies") / f"{path.stem}.toml"
        if shipped.is_file():
            path = shipped
    if path.is_dir():
        raise LabError(str(path), "is a folder, not a study file (.toml)")
    if not path.is_file():
        raise LabError(str(path), "no such study file (a path, or the name of a shipped study in scenarios/studies)")
    data = scn.read_toml(path)
    return parse_study(data, where=str(path), default_name=path.stem, base_dir=path.parent, extra_set=extra_set)
