"""Field ranges declared beside the fields (lab.core.fields), ``lab show`` and the JSON Schema (lab.core.schema).

* Each range shape accepts its bounds and refuses just past them, with the exact message.
* A table generated from the declarations: for every registered spec/params class and every declared
  number, a value just past each bound is refused with ``<field>: must be <allowed>, got <value>`` (so
  the table cannot drift from the declarations).
* The CLI's messages for a sample of fields are the ones the hand-written checks printed (recorded
  with ``lab run … --set …`` before the declarations replaced them).
* The committed docs/scenario.schema.json is what the declarations generate, and every shipped
  scenario (as written, and as resolved) validates against it.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass
from typing import Literal

import pytest
from conftest import ROOT

from lab.core import scenario as scn
from lab.arenas import ARENAS
from lab.cli import main
from lab.controllers import CONTROLLERS
from lab.core.fields import NUMBERS, Validated, choice, count, declarations, fmt, got, info, num, vector
from lab.forces import FORCES, FRICTION
from lab.papers.zhang2018_eel.model.params import EelParams
from lab.papers.guo2015_wheeled.params import Guo2015Params
from lab.papers.wang2011_unified.params import Wang2011Params
from lab.robots import ROBOTS
from lab.trials import TRIALS
from lab.core.schema import scenario_schema, schema_text, show_text

UP, DOWN = math.inf, -math.inf


def past(x: float, direction: float) -> float:
    return math.nextafter(float(x), direction)


def refuse(cls, msg: str, **kw) -> None:
    with pytest.raises(ValueError) as exc:
        cls(**kw)
    assert str(exc.value) == msg


# ---------------------------------------------------------------- the shapes


@dataclass(frozen=True)
class Shapes(Validated):
    closed: float = num(1.0, ge=0, le=5)
    open_: float = num(0.5, gt=0, lt=1)
    left_open: float = num(30.0, gt=0, le=1e5, unit="s")
    right_open: float = num(0.01, ge=0.005, lt=0.5, unit="m")
    positive: float = num(1.0, gt=0, unit="J")
    non_negative: float = num(0.0, ge=0)
    below: float = num(0.0, lt=3)
    at_most: float = num(0.0, le=3)
    angle: float = num(0.0, ge=-2 * math.pi, le=2 * math.pi, unit="rad")
    steps: int = num(10, ge=1, le=10000, unit="steps")
    n: int = count(10, 2, 100)
    size: tuple[float, float, float] = vector((0.1, 0.1, 0.1), length=3, ge=0.005, le=5, unit="m", noun="edge lengths")
    position: tuple[float, float] = vector((0.0, 0.0), length=2, names="[x, y]", unit="m")
    optional: float | None = num(None, ge=0, le=5)
    mode: Literal["a", "b"] = choice("a")
    flag: bool = info(True, doc="a flag")
    derived: float = num(float("nan"), gt=0)


@pytest.mark.parametrize("name, lo, hi, lo_ok, hi_ok, allowed", [
    ("closed", 0.0, 5.0, True, True, "in [0, 5]"),
    ("open_", 0.0, 1.0, False, False, "in (0, 1)"),
    ("left_open", 0.0, 1e5, False, True, "in (0, 1e5] s"),
    ("right_open", 0.005, 0.5, True, False, "in [0.005, 0.5) m"),
    ("positive", 0.0, None, False, None, "> 0 J"),
    ("non_negative", 0.0, None, True, None, ">= 0"),
    ("below", None, 3.0, None, False, "< 3"),
    ("at_most", None, 3.0, None, True, "<= 3"),
    ("angle", -2 * math.pi, 2 * math.pi, True, True, "in [-2pi, 2pi] rad"),
])
def test_number_ranges_accept_their_bounds_and_refuse_just_past(name, lo, hi, lo_ok, hi_ok, allowed):
    for bound, ok, outward, inward in ((lo, lo_ok, DOWN, UP), (hi, hi_ok, UP, DOWN)):
        if bound is None:
            continue
        Shapes(**{name: past(bound, inward)})
        if ok:
            Shapes(**{name: bound})
            bad = past(bound, outward)
        else:
            bad = bound
        refuse(Shapes, f"{name}: must be {allowed}, got {bad}", **{name: bad})
    assert declarations(Shapes)[name].allowed() == allowed


def test_integers_counts_vectors_choices_optionals():
    Shapes(steps=1), Shapes(steps=10000), Shapes(n=2), Shapes(n=100)
    refuse(Shapes, "steps: must be in [1, 10000] steps, got 0", steps=0)
    refuse(Shapes, "steps: must be in [1, 10000] steps, got 10001", steps=10001)
    refuse(Shapes, "steps: must be an integer in [1, 10000] steps, got 2.5", steps=2.5)
    refuse(Shapes, "n: must be an integer from 2 to 100, got 1", n=1)
    refuse(Shapes, "n: must be an integer from 2 to 100, got 101", n=101)
    refuse(Shapes, "n: must be an integer from 2 to 100, got 2.5", n=2.5)
    refuse(Shapes, "n: must be an integer from 2 to 100, got True", n=True)
    Shapes(size=(0.005, 5.0, 1.0))
    refuse(Shapes, "size: must be three edge lengths in [0.005, 5] m, got [0.1, 0.1]", size=(0.1, 0.1))
    refuse(Shapes, f"size: must be three edge lengths in [0.005, 5] m, got [0.1, 0.1, {past(5, UP)}]",
           size=(0.1, 0.1, past(5, UP)))
    refuse(Shapes, "position: must be two numbers [x, y] in m, got [1.0]", position=(1.0,))
    Shapes(optional=None), Shapes(optional=5.0)
    refuse(Shapes, f"optional: must be in [0, 5], got {past(5, UP)}", optional=past(5, UP))
    refuse(Shapes, "mode: must be one of 'a', 'b', got 'c'", mode="c")
    refuse(Shapes, "closed: must be a finite number in [0, 5], got nan", closed=math.nan)
    refuse(Shapes, "positive: must be a finite number > 0 J, got inf", positive=math.inf)
    refuse(Shapes, "closed: must be a number in [0, 5], got 'x'", closed="x")
    assert math.isnan(Shapes().derived)  # a NaN default: filled in by the class, not checked
    refuse(Shapes, "derived: must be > 0, got -1.0", derived=-1.0)


def test_numbers_print_as_typed():
    assert [fmt(x) for x in (1e4, 10000, 20000.0, 1e5, 1e-5, 1e-4, 0.001, 1000.0, 0.5, 5.0, -360.0)] == \
        ["1e4", "10000", "20000", "1e5", "1e-5", "1e-4", "0.001", "1000", "0.5", "5", "-360"]
    assert [fmt(x) for x in (math.pi, -math.pi, 2 * math.pi, -2 * math.pi, math.pi / 2)] == \
        ["pi", "-pi", "2pi", "-2pi", "pi/2"]
    assert (got(7.0), got(1), got("x"), got((1.0, 2.0))) == ("7.0", "1", "'x'", "[1.0, 2.0]")


# ---------------------------------------------------------------- every declared field of every class


def registered() -> dict[str, type]:
    out = {f"robot.{k}": v for k, v in ROBOTS.items()}
    out.update({f"controller.{k}": v[0] for k, v in CONTROLLERS.items()})
    out.update({f"friction.{k}": v for k, v in FRICTION.items()})
    out.update({f"forces.{k}": v for k, v in FORCES.items()})
    out.update({f"arena.{k}": v for k, v in ARENAS.items()})
    out.update({f"trial.{k}": v for k, v in TRIALS.items()})
    out.update({"sim": scn.SimConfig, "init": scn.InitConfig, "Guo2015Params": Guo2015Params, "Wang2011Params": Wang2011Params,
                "EelParams": EelParams})
    return out


def past_bound_cases():
    """(class key, field, bad value, expected message) for every bound of every declared number."""
    cases = []
    for key, cls in registered().items():
        for name, d in declarations(cls).items():
            if d.kind in NUMBERS:
                step = (lambda b, s: b + s) if d.integer else past
                for bad in [step(b, -1 if d.integer else DOWN) for b in (d.ge,) if b is not None] + \
                           [b for b in (d.gt, d.lt) if b is not None] + \
                           [step(b, 1 if d.integer else UP) for b in (d.le,) if b is not None]:
                    bad = int(bad) if d.integer else float(bad)
                    cases.append((key, name, bad, f"{name}: must be {d.allowed()}, got {got(bad)}"))
            elif d.kind == "vector":
                ok = list(d.default)
                if d.length is not None:
                    cases.append((key, name, tuple(ok + [0.0]), f"{name}: must be {d.allowed()}, got {got(ok + [0.0])}"))
                for b, direction in ((d.ge, DOWN), (d.le, UP)):
                    if b is not None:
                        bad = tuple([past(b, direction)] + ok[1:])
                        cases.append((key, name, bad, f"{name}: must be {d.allowed()}, got {got(bad)}"))
            elif d.kind == "choice":
                cases.append((key, name, "bogus", f"{name}: must be {d.allowed()}, got 'bogus'"))
    return cases


CASES = past_bound_cases()


@pytest.mark.parametrize("key, name, bad, message", CASES, ids=[f"{c[0]}.{c[1]}={c[2]!r}" for c in CASES])
def test_every_declared_bound_refuses_just_past_it(key, name, bad, message):
    refuse(registered()[key], message, **{name: bad})


def test_the_table_covers_every_registered_class_and_its_defaults_pass():
    keys = {c[0] for c in CASES}
    assert keys == set(registered()) - {"friction.none"}  # NoFriction has no fields
    assert len(CASES) > 250
    for cls in registered().values():
        cls()  # the defaults satisfy the declarations and the cross-field checks
    for key, cls in registered().items():
        if key[0].islower():  # the scenario's sections: every field is typed and declared
            for name, d in declarations(cls).items():
                assert d.kind, f"{key}.{name} has no declaration"


def test_cross_field_checks_stay_explicit():
    from lab.robots import EelSpec, SnakeSpec, TrackedSpec

    refuse(SnakeSpec, "radius: must be in [0.001 m, module_length], got 0.5", radius=0.5)
    refuse(EelSpec, "radius: must be in [0.001 m, 2·half_length], got 0.2", radius=0.2)
    refuse(TrackedSpec, "pulley_radius: must be in [0.005 m, track_side/2), got 0.2", pulley_radius=0.2)
    refuse(Guo2015Params, "phi0: at most n − 1 = 2 joint angles, got 3", n=3, phi0=(0.1, 0.2, 0.3))
    assert EelParams().c_t2 == EelParams().c_t and Guo2015Params().J == pytest.approx(0.5 * 0.04**2)


# ---------------------------------------------------------------- the CLI's words, unchanged

S = "snake_passive_creeping"
# (scenario, --set, the message after "error: <scenario file>:") as the hand-written checks printed them
RECORDED = [
    (S, "friction.mu_t=7", "friction.mu_t: must be in [0, 5], got 7.0"),
    (S, "friction.mu_n=-0.1", "friction.mu_n: must be in [0, 5], got -0.1"),
    ("snake_serpenoid", "friction.slip_tol=0", "friction.slip_tol: must be in [1e-5, 1] m/s, got 0.0"),
    (S, "friction.mu_forward=6", "friction.mu_forward: must be in [0, 5], got 6.0"),
    (S, "sim.dt=0", "sim.dt: must be in [1e-5, 0.02] s, got 0.0"),
    (S, "sim.duration=0", "sim.duration: must be in (0, 1e5] s, got 0.0"),
    (S, "sim.gravity=101", "sim.gravity: must be in [0, 100] m/s², got 101.0"),
    (S, "sim.max_kinetic_energy=-1", "sim.max_kinetic_energy: must be > 0 J, got -1.0"),
    (S, "sim.record_every=0", "sim.record_every: must be in [1, 10000] steps, got 0"),
    (S, "init.joint_noise=2", "init.joint_noise: must be in [0, 1] rad, got 2.0"),
    (S, "init.position=[1.0]", "init.position: must be two numbers [x, y] in m, got [1.0]"),
    (S, "robot.n_modules=1", "robot.n_modules: must be an integer from 2 to 100, got 1"),
    (S, "robot.mass=0", "robot.mass: must be in [0.001, 100] kg, got 0.0"),
    (S, "robot.joint_limit=0", "robot.joint_limit: must be in (0, pi] rad, got 0.0"),
    (S, "robot.effort=1001", "robot.effort: must be in (0, 1000] N·m, got 1001.0"),
    (S, "robot.radius=0.5", "robot.radius: must be in [0.001 m, module_length], got 0.5"),
    (S, "controller.E_ref=1000", "controller.E_ref: must be in [0, 100] J, got 1000.0"),
    (S, "controller.k_d=-1", "controller.k_d: must be in [0, 1e4], got -1.0"),
    ("snake_serpenoid", "controller.beta=7", "controller.beta: must be in [-2pi, 2pi] rad, got 7.0"),
    ("snake_serpenoid", "controller.kp=0", "controller.kp: must be in (0, 1e4] N·m/rad, got 0.0"),
    ("eel_forward_turn", "robot.density=-5", "robot.density: must be in [100, 20000] kg/m³, got -5.0"),
    ("eel_forward_turn", "controller.kp=0", "controller.kp: must be in (0, 1e5] 1/s², got 0.0"),
    ("eel_forward_turn", "arena.depth=0", "arena.depth: must be in [0.1, 100] m, got 0.0"),
    ("tracked_step_climb", "robot.arm_section=[0.001,0.01]",
     "robot.arm_section: must be two sizes in [0.002, 0.2] m, got [0.001, 0.01]"),
    ("tracked_step_climb", "robot.i2=0", "robot.i2: must be > 0, got 0.0"),
    ("tracked_step_climb", "controller.stall_fraction=1", "controller.stall_fraction: must be in (0, 1), got 1.0"),
    ("tracked_step_climb", "controller.kp_arm=1e6", "controller.kp_arm: must be in [0, 1e5], got 1000000.0"),
    ("tracked_step_climb", "arena.slope_deg=90", "arena.slope_deg: must be in [-89, 89] degrees, got 90.0"),
    ("tracked_stairs", "arena.rise=0", "arena.rise: must be in (0, 1] m, got 0.0"),
    ("snake_drag", "trial.payload_size=[0.001,0.1,0.1]",
     "trial.payload_size: must be three edge lengths in [0.005, 5] m, got [0.001, 0.1, 0.1]"),
    ("snake_drag", "trial.length=-1", "trial.length: must be in [0.01, 1000] m, got -1.0"),
    ("snake_drag", "forces.tether.k=0", "forces:tether.k: must be in (0, 1e6] N/m, got 0.0"),
]


@pytest.mark.parametrize("scenario, override, message", RECORDED, ids=[r[1] for r in RECORDED])
def test_cli_messages_are_the_hand_written_ones(scenario, override, message, tmp_path, capsys):
    code = main(["run", scenario, "--set", override, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    # the words after the location are the hand-written ones; the location is the override that set the
    # value (issue 36: a --set typo or bad value is blamed on --set, not on the shipped file)
    assert err == f"error: --set {override.partition('=')[0]}: {message.partition(': ')[2]}\n"
    assert not (tmp_path / "out").exists()


def test_type_errors_say_the_range_too(capsys):
    assert main(["urdf", "snake", "--set", "n_modules=2.5"]) == 2
    assert capsys.readouterr().err == "error: snake.n_modules: must be an integer from 2 to 100, got 2.5\n"
    assert main(["urdf", "snake", "--set", "mass=abc"]) == 2
    assert capsys.readouterr().err == "error: snake.mass: must be a number in [0.001, 100] kg, got 'abc'\n"


# ---------------------------------------------------------------- lab show and the JSON Schema


def test_show_prints_every_field_with_value_default_unit_and_range(capsys):
    assert main(["show", "snake_drag", "--set", "controller.E_ref=0.9"]) == 0
    out = capsys.readouterr().out
    sc = scn.load("snake_drag", ["controller.E_ref=0.9"])
    assert out == show_text(sc)
    lines = out.splitlines()
    for section in ("[sim]", "[init]", '[robot] type = "snake"', '[friction] type = "coulomb"',
                    '[controller] type = "passive_creeping"', '[forces.tether] type = "tether"',
                    '[trial] type = "drag_course"'):
        assert section in lines
    row = next(ln for ln in lines if ln.split()[:1] == ["E_ref"]).split()
    assert row[:6] == ["E_ref", "*", "0.9", "1", "J", "[0,"]
    row = next(ln for ln in lines if ln.split()[:1] == ["slip_tol"]).split()
    assert row[:5] == ["slip_tol", "0.01", "0.01", "m/s", "[1e-5,"]
    for obj in (sc.sim, sc.init, sc.robot, sc.friction, sc.controller, sc.trial):
        for f in dataclasses.fields(obj):
            assert any(ln.split()[:1] == [f.name] for ln in lines), f.name


def test_show_refuses_bad_input_in_one_line(capsys):
    for argv, words in ((["show"], "lab show: give a SCENARIO"),
                        (["show", S, "--schema"], "lab show: --schema takes no scenario"),
                        (["show", S, "--set", "friction.mu_t=7"], "friction.mu_t: must be in [0, 5], got 7.0")):
        assert main(argv) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and cap.err.count("\n") == 1 and words in cap.err


def test_committed_schema_is_what_the_declarations_generate(capsys):
    committed = (ROOT / "docs" / "scenario.schema.json").read_bytes()
    assert committed == schema_text().encode("utf-8"), "regenerate: lab show --schema > docs/scenario.schema.json"
    assert main(["show", "--schema"]) == 0
    assert capsys.readouterr().out == schema_text()


def test_schema_mirrors_the_declarations():
    s = scenario_schema()
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert list(s["properties"]) == list(scn.TOP_KEYS) and s["additionalProperties"] is False
    mu_t = s["$defs"]["friction.coulomb"]["properties"]["mu_t"]
    assert (mu_t["type"], mu_t["minimum"], mu_t["maximum"], mu_t["default"]) == ("number", 0, 5, 0.03)
    dur = s["$defs"]["sim"]["properties"]["duration"]
    assert (dur["exclusiveMinimum"], dur["maximum"]) == (0, 1e5) and dur["description"].endswith("[s]")
    assert s["$defs"]["robot.snake"]["properties"]["n_modules"]["type"] == "integer"
    assert s["$defs"]["forces.hydrodynamics"]["properties"]["added_mass"]["enum"] == ["folded", "lagged", "none"]
    assert s["properties"]["friction"]["properties"]["type"]["enum"] == list(FRICTION)
    assert all(d["additionalProperties"] is False for d in s["$defs"].values())


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")  # the dev extra installs it
    schema = scenario_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


SHIPPED = scn.list_scenarios()


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_scenario_validates_against_the_schema(path, validator):
    assert [e.message for e in validator.iter_errors(tomllib.loads(path.read_text(encoding="utf-8")))] == []
    resolved = tomllib.loads(scn.load(str(path)).to_toml())  # defaults filled in, as written next to results
    assert [e.message for e in validator.iter_errors(resolved)] == []


def test_schema_refuses_what_the_loader_refuses(validator):
    base = tomllib.loads(scn.resolve_path("snake_drag").read_text(encoding="utf-8"))
    for section, patch in (("friction", {"mu_t": 7}), ("friction", {"type": "viscous", "mu_t": 0.1}),
                           ("robot", {"type": "tracked", "n_modules": 3}), ("controller", {"type": "nope"}),
                           ("sim", {"dtt": 0.001}), ("init", {"position": [1.0]}), ("trial", {"payload_mass": 0}),
                           ("trial", {"type": "step_climb"})):
        data = {**base, section: {**base[section], **patch}}
        assert not validator.is_valid(data), (section, patch)
        with pytest.raises(Exception):
            scn.from_dict(data)
    assert validator.is_valid({**base, "friction": {"mu_t": 0.1}})  # no type: the default law, coulomb
    assert not validator.is_valid({k: v for k, v in base.items() if k != "robot"})
    assert not validator.is_valid({**base, "forces": {"friction": {"type": "tether"}}})
