"""Regression suite files: which scenarios and checks to run, and how closely their metrics must hold.

A suite is TOML::

    name = "my-gaits"                      # optional; default: the file's stem
    plugins = ["my_gait.py"]               # optional: user plugins (files relative to this file)
    [tolerance]                            # optional: overrides of the default families (lab.regress.compare)
    "energy.*" = {rel = 1e-4}

    [[run]]
    scenario = "snake_serpenoid"           # a name from `lab list` or a .toml path relative to this file
    duration = 2.0                         # optional: sim.duration
    set = ["friction.mu_n=0.45"]           # optional: overrides, as with --set
    id = "serpenoid_mu045"                 # optional; default: the scenario's stem (made unique)
    metrics = ["com.*", "energy.*"]        # optional globs; default: every metric but wall-clock ones
    tolerance = {"com.displacement_m" = {abs = 1e-5}}   # optional, per metric glob

    [[check]]
    name = "friction_block"                # a `lab check` name; its figures' values and pass flags
    set = []

Every problem is a :class:`~lab.core.errors.LabError` naming the file and field (``error: …``, exit 2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lab.core.errors import LabError

_ID_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
RUN_KEYS = ("scenario", "duration", "set", "id", "metrics", "tolerance")
CHECK_KEYS = ("name", "set", "id", "metrics", "tolerance")
TOP_KEYS = ("name", "description", "tolerance", "run", "check", "plugins")


@dataclass(frozen=True)
class Tolerance:
    """|now − baseline| ≤ abs + rel·|baseline|; ``exact`` compares with ==."""

    abs: float = 0.0
    rel: float = 0.0
    exact: bool = False

    def text(self) -> str:
        if self.exact:
            return "exact"
        parts = ([f"abs {self.abs:g}"] if self.abs else []) + ([f"rel {self.rel:g}"] if self.rel else [])
        return " + ".join(parts) or "0"


@dataclass(frozen=True)
class Entry:
    """One run or check of a suite. ``definition`` is what makes it reproducible (the resolved
    scenario TOML for a run, the check name and overrides for a check): a baseline whose definition
    differs reports a changed definition, not drift."""

    id: str
    kind: str  # "run" | "check"
    target: str  # scenario name/path, or check name
    overrides: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()  # globs; empty: all
    tolerance: tuple[tuple[str, Tolerance], ...] = ()  # (glob, tolerance), first match wins
    scenario: object = None  # the resolved Scenario (runs)

    @property
    def definition(self) -> str:
        if self.kind == "run":
            return self.scenario.to_toml()
        return f"check {self.target}\n" + "".join(f"--set {o}\n" for o in self.overrides)


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    entries: tuple[Entry, ...]
    tolerance: tuple[tuple[str, Tolerance], ...] = field(default=())


def _tolerance_table(table, where: str) -> tuple[tuple[str, Tolerance], ...]:
    if not isinstance(table, dict):
        raise LabError(where, "must be a table of metric glob → {abs = …, rel = …} or \"exact\"")
    out = []
    for glob, spec in table.items():
        w = f"{where}.{glob}"
        if spec == "exact":
            out.append((glob, Tolerance(exact=True)))
            continue
        if not isinstance(spec, dict) or not spec or set(spec) - {"abs", "rel"}:
            raise LabError(w, "must be {abs = number, rel = number} (either or both) or \"exact\"")
        vals = {}
        for k, v in spec.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < float("inf"):
                raise LabError(f"{w}.{k}", f"must be a number ≥ 0, got {v!r}")
            vals[k] = float(v)
        out.append((glob, Tolerance(**vals)))
    return tuple(out)


def _strings(value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise LabError(where, f"must be a list of strings, got {value!r}")
    return tuple(value)


def _unique(base: str, taken: set) -> str:
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def parse_suite(data: dict, path: Path) -> Suite:
    from lab.core import scenario as scn
    from lab.checks import CHECKS

    where = str(path)
    for key in data:
        if key not in TOP_KEYS:
            raise LabError(f"{where}:{key}", f"unknown key; allowed: {', '.join(TOP_KEYS)}")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not _ID_RE.match(name):
        raise LabError(f"{where}:name", f"must be letters, digits, '_', '.', '-', got {name!r}")
    if "plugins" in data:  # before the runs load: a run's scenario may name a plugin's types
        from lab.core.user_plugins import load_all

        load_all(data["plugins"], path.parent.resolve(), f"{where}:plugins")
    tolerance = _tolerance_table(data.get("tolerance", {}), f"{where}:tolerance")
    entries: list[Entry] = []
    taken: set = set()
    for kind, keys in (("run", RUN_KEYS), ("check", CHECK_KEYS)):
        items = data.get(kind, [])
        if not isinstance(items, list):
            raise LabError(f"{where}:{kind}", f"must be an array of tables ([[{kind}]])")
        for i, item in enumerate(items):
            w = f"{where}:{kind}[{i}]"
            if not isinstance(item, dict):
                raise LabError(w, "must be a table")
            for key in item:
                if key not in keys:
                    raise LabError(f"{w}.{key}", f"unknown key; allowed: {', '.join(keys)}")
            target_key = "scenario" if kind == "run" else "name"
            target = item.get(target_key)
            if not isinstance(target, str) or not target:
                raise LabError(f"{w}.{target_key}", "missing: name the " + ("scenario" if kind == "run" else "check"))
            overrides = _strings(item.get("set", []), f"{w}.set")
            metrics = _strings(item.get("metrics", []), f"{w}.metrics")
            tol = _tolerance_table(item.get("tolerance", {}), f"{w}.tolerance")
            scenario = None
            if kind == "run":
                if "duration" in item:
                    d = item["duration"]
                    if isinstance(d, bool) or not isinstance(d, (int, float)) or not d > 0:
                        raise LabError(f"{w}.duration", f"must be a number of seconds > 0, got {d!r}")
                    overrides = overrides + (f"sim.duration={float(d)!r}",)
                ref = target
                if ref.endswith(".toml") and not Path(ref).is_absolute():
                    ref = str((path.parent / ref).resolve())
                # LabError names the scenario and field, or this file's override; paths relative to this file
                scenario = scn.load(ref, list(overrides), name=f"{w}.set {{}}", base=path.parent.resolve())
                default_id = Path(target).stem
            else:
                if target not in CHECKS:
                    raise LabError(f"{w}.name", f"unknown check {target!r}; allowed: {', '.join(CHECKS)}")
                default_id = f"check.{target}"
            eid = item.get("id", _unique(default_id, taken))
            if not isinstance(eid, str) or not _ID_RE.match(eid):
                raise LabError(f"{w}.id", f"must be letters, digits, '_', '.', '-', got {eid!r}")
            if eid in taken:
                raise LabError(f"{w}.id", f"{eid!r} is used by another entry")
            taken.add(eid)
            entries.append(Entry(eid, kind, target, overrides, metrics, tol, scenario))
    if not entries:
        raise LabError(where, "has no [[run]] or [[check]] entries")
    return Suite(name=name, path=path, entries=tuple(entries), tolerance=tolerance)


def load_suite(path: str | Path) -> Suite:
    """A suite file by path, or by name from ``scenarios/suites/`` (``regression`` →
    scenarios/suites/regression.toml; suites sit beside the sweep files, not among the scenarios)."""
    import tomllib

    from lab.core.scenario import SCENARIO_DIR

    p = Path(path)
    if p.suffix != ".toml" and not p.exists():
        p = SCENARIO_DIR / "suites" / f"{path}.toml"
    if p.is_dir():
        raise LabError(str(p), "is a folder, not a suite file (give a .toml file)")
    if not p.is_file():
        raise LabError(str(p), "no such suite file")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LabError(str(p), f"not valid TOML: {exc}") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise LabError(str(p), f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_suite(data, p)


__all__ = ["Entry", "Suite", "Tolerance", "load_suite", "parse_suite"]
