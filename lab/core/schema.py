"""``lab show`` and the scenario format's JSON Schema, both read from the field declarations.

``lab show SCENARIO [--set K=V]...`` prints every field of the resolved scenario, section by section:
its value (``*`` where it differs from the default), default, unit, allowed range and description.
``lab show --schema`` prints a JSON Schema (draft 2020-12) of the scenario TOML: one subschema per
dataclass (``$defs``), the typed sections (``[robot]``, ``[friction]``, ``[controller]``, ``[arena]``,
``[forces.<name>]``) picking theirs by ``type``, unknown keys rejected, ranges as
``minimum``/``maximum``/``exclusiveMinimum``/``exclusiveMaximum``, choices as ``enum``, units in the
descriptions. ``docs/scenario.schema.json`` is its output (a test regenerates it). The cross-field
checks of :func:`lab.core.scenario.from_dict` (dt against friction, radius against module length, the
hydrodynamics law against robot and controller, …) are not expressed in the schema: a file the
schema accepts may still be refused by ``lab run``, with the same one-line error.
"""

from __future__ import annotations

import argparse
import json
import math

from lab.core.errors import LabError
from lab.core.fields import Decl, declarations, fmt

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def typed_sections() -> dict[str, tuple[dict[str, type], str | None]]:
    """Each ``type``-discriminated section: (type name → dataclass, the default type or None)."""
    from lab.core.scenario import ARENAS, CONTROLLERS, FORCES, FRICTION, ROBOTS, TRIALS

    return {"arena": (dict(ARENAS), "ground"), "robot": (dict(ROBOTS), None), "friction": (dict(FRICTION), "coulomb"),
            "controller": ({k: v[0] for k, v in CONTROLLERS.items()}, None), "forces": (dict(FORCES), None),
            "trial": (dict(TRIALS), None)}


def _plain_sections():
    from lab.core.scenario import InitConfig, ReplayConfig, SimConfig

    return {"sim": SimConfig, "init": InitConfig, "replay": ReplayConfig}


def _summary(cls) -> str:
    """The first paragraph of a class's docstring, on one line."""
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(doc.split())


# ---------------------------------------------------------------- JSON Schema


def class_schema(cls, kind: str | None = None) -> dict:
    props: dict = {"type": {"const": kind}} if kind is not None else {}
    props.update({name: d.schema() for name, d in declarations(cls).items()})
    out = {"type": "object", "additionalProperties": False, "properties": props}
    if _summary(cls):
        out = {"description": _summary(cls), **out}
    return out


def _typed(section: str, registry: dict, default: str | None, defs: dict) -> dict:
    branches = []
    for kind, cls in registry.items():
        defs[f"{section}.{kind}"] = class_schema(cls, kind)
        cond = {"properties": {"type": {"const": kind}}}
        if kind != default:  # an absent type is the default's
            cond["required"] = ["type"]
        branches.append({"if": cond, "then": {"$ref": f"#/$defs/{section}.{kind}"}})
    type_prop = {"enum": list(registry)}
    if default is not None:
        type_prop["default"] = default
    out = {"type": "object", "properties": {"type": type_prop}, "allOf": branches}
    if default is None:
        out["required"] = ["type"]
    return out


def scenario_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a scenario file, from the declarations."""
    from lab.core.scenario import ANALYSES
    from lab.core.scenario import TOP_KEYS

    defs: dict = {}
    for key, cls in _plain_sections().items():
        defs[key] = class_schema(cls)
    typed = {key: _typed(key, reg, default, defs) for key, (reg, default) in typed_sections().items()}
    props = {
        "name": {"description": "letters, digits, '_' or '-'", "type": "string", "pattern": "^[A-Za-z0-9_-]+$",
                 "default": "scenario"},
        "description": {"type": "string", "default": ""},
        "seed": {"description": "seeds every random draw of the run", "type": "integer", "minimum": 0,
                 "exclusiveMaximum": 2**32, "default": 0},
        "sim": {"$ref": "#/$defs/sim"},
        "init": {"$ref": "#/$defs/init"},
        "arena": typed["arena"],
        "robot": typed["robot"],
        "friction": typed["friction"],
        "controller": typed["controller"],
        "forces": {"description": "extra force laws, one [forces.<name>] table each, by type",
                   "type": "object", "propertyNames": {"not": {"const": "friction"}},
                   "additionalProperties": typed["forces"]},
        "trial": typed["trial"],
        "analyses": {"description": "optional analyses the run adds to its metrics (lab.analysis.registry)", "type": "array",
                     "items": {"enum": list(ANALYSES)}, "uniqueItems": True, "default": []},
        "plugins": {"description": "user plugins to load first: .py files relative to this file, or module names "
                                   "(lab.core.user_plugins)", "type": "array", "items": {"type": "string"},
                    "default": []},
        "replay": {"$ref": "#/$defs/replay"},
    }
    assert tuple(sorted(props)) == tuple(sorted(TOP_KEYS)), "the schema's sections must be the loader's"
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "lab scenario",
        "description": "A scenario TOML of the virtual robot lab. Generated by `lab show --schema` from the field "
                       "declarations (lab/core/fields.py); cross-field checks (e.g. dt against friction.slip_tol, "
                       "robot.radius against robot.module_length) are made by the loader only.",
        "type": "object",
        "additionalProperties": False,
        "required": ["robot", "controller"],
        "properties": {k: props[k] for k in TOP_KEYS},
        "$defs": defs,
    }


def schema_text() -> str:
    """The schema as committed in docs/scenario.schema.json (UTF-8, two-space indent, final newline)."""
    return json.dumps(scenario_schema(), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- lab show


def _value(v) -> str:
    if v is None:
        return "unset"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, float) and math.isnan(v):
        return "derived"
    return fmt(v)


def allowed_text(d: Decl) -> str:
    """The range column: ``[0, 5]``, ``> 0``, ``integer [2, 100]``, ``3 × [0.005, 5]``, ``weight | contact``…"""
    b = d.bounds()
    if d.kind == "choice":
        text = " | ".join(d.choices)
    elif d.kind == "vector":
        n = "n" if d.length is None else d.length
        text = f"{n} × {b}" if b else f"{n} numbers"
    elif d.kind in ("integer", "count"):
        text = f"integer {b}" if b else "integer"
    elif d.kind == "number":
        text = b or "any number"
    elif d.kind == "bool":
        text = "true | false"
    else:
        text = "text"
    return text + (", or unset" if d.optional else "")


# `lab show` calls a number its default when it agrees to 1 part in 10⁶: the shipped files write an
# irrational default to 7 significant digits (beta = 0.6981317 for 2π/9, off by 1e-9 relative), while a
# rounded choice such as 0.698 (3e-4 off) is a change the run feels.
SAME_REL = 1e-6


def same_as_default(v, default) -> bool:
    """True if ``v`` is the default at the precision the files write it with (:data:`SAME_REL`)."""
    if (isinstance(v, float) and isinstance(default, float) and not isinstance(default, bool)
            and math.isfinite(v) and math.isfinite(default)):
        return math.isclose(v, default, rel_tol=SAME_REL, abs_tol=0.0)
    return _value(v) == _value(default)


def _rows(obj) -> list[tuple[str, ...]]:
    rows = []
    for name, d in declarations(type(obj)).items():
        v = getattr(obj, name)
        changed = "" if same_as_default(v, d.default) else "*"
        said = getattr(obj, "field_origin", None)  # a URDF robot: measured from the file, or set
        said = said(name) if callable(said) else ""
        if said.startswith("measured"):  # the default is "derived": a measured value is that default
            changed = ""
        rows.append((name, changed, _value(v), _value(d.default), d.unit, allowed_text(d),
                     f"{d.doc} [{said}]" if said else d.doc))
    return rows


def show_text(sc) -> str:
    """Every field of a resolved :class:`~lab.core.scenario.Scenario` as a plain aligned table."""
    sections: list[tuple[str, str | None, list]] = [("scenario", None, [
        ("name", "" if sc.name == "scenario" else "*", _value(sc.name), '"scenario"', "", "letters, digits, _ -", ""),
        ("seed", "*" if sc.seed else "", str(sc.seed), "0", "", "integer [0, 2^32)", "seeds every random draw"),
        ("analyses", "*" if sc.analyses else "", _value(list(sc.analyses)), "[]", "", "names in lab.analysis.registry",
         "optional analyses added to the metrics"),
    ])]
    sections += [("sim", None, _rows(sc.sim)), ("init", None, _rows(sc.init)), ("replay", None, _rows(sc.replay_config)),
                 ("arena", sc.arena_type, _rows(sc.arena) if sc.arena is not None else []),
                 ("robot", sc.robot_type, _rows(sc.robot)), ("friction", sc.friction_type, _rows(sc.friction)),
                 ("controller", sc.controller_type, _rows(sc.controller))]
    sections += [(f"forces.{name}", kind, _rows(params)) for name, kind, params in sc.forces]
    if sc.trial is not None:
        sections.append(("trial", sc.trial_type, _rows(sc.trial)))
    head = ("field", "", "value", "default", "unit", "allowed", "")
    every = [head] + [r for _, _, rows in sections for r in rows]
    width = [max(len(r[i]) for r in every) for i in range(len(head) - 1)]

    def line(r) -> str:
        return ("  " + "  ".join(c.ljust(w) for c, w in zip(r[:-1], width)) + "  " + r[-1]).rstrip()

    out = [f"{sc.name}: every field of the resolved scenario (* = not the default)"]
    if sc.description:
        out.append(f"  {sc.description}")
    out.append(line(head))
    for title, kind, rows in sections:
        out.append(f"[{title}]" + (f' type = "{kind}"' if kind else ""))
        out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


def add_cli(subparsers) -> None:
    p = subparsers.add_parser(
        "show", help="every field of a resolved scenario (value, default, unit, range); --schema: the JSON Schema",
        description="Print every field of the resolved scenario, section by section, with its value, default, unit "
                    "and allowed range; or, with --schema, the JSON Schema (draft 2020-12) of the scenario format.")
    p.add_argument("scenario", nargs="?", help="scenario name (see `lab list`) or path to a .toml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override any scenario field, e.g. --set friction.mu_n=0.5 (repeatable)")
    p.add_argument("--schema", action="store_true",
                   help="print the scenario format's JSON Schema instead (docs/scenario.schema.json)")
    p.set_defaults(handler=cmd_show)


def cmd_show(args: argparse.Namespace) -> int:
    from lab.core import scenario as scn

    if args.schema:
        if args.scenario or args.overrides:
            raise LabError("lab show", "--schema takes no scenario and no --set (it describes the format)")
        print(schema_text(), end="")
        return 0
    if not args.scenario:
        raise LabError("lab show", "give a SCENARIO (a name from `lab list` or a .toml path), or --schema")
    print(show_text(scn.load(args.scenario, args.overrides)), end="")
    return 0


__all__ = ["add_cli", "allowed_text", "class_schema", "scenario_schema", "schema_text", "show_text", "typed_sections"]
