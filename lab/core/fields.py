"""Field ranges declared once, beside the field.

Every spec and params dataclass states its fields' allowed values where it states their defaults::

    @dataclass(frozen=True)
    class AnisotropicCoulomb(Validated):
        mu_t: float = num(0.03, ge=0, le=5, doc="tangential Coulomb coefficient")
        slip_tol: float = num(0.01, ge=1e-5, le=1, unit="m/s", doc="slip speed of the tanh regularisation")

and the base class :class:`Validated` gives it one ``__post_init__`` that checks every declared field,
in declaration order, and raises ``ValueError("<field>: must be <what is allowed>, got <value>")`` — the
shape :func:`lab.core.scenario.build` turns into ``error: <file>:<section>.<field>: …`` (exit 2). A class
that needs more (one field bounded by another, derived defaults) adds its own ``__post_init__``,
calling ``super().__post_init__()`` first; keep it short.

The shapes (messages as the CLI prints them after ``<field>: ``):

=========================================  ==========================================================
``num(d, ge=0, le=5)``                     ``must be in [0, 5], got 7.0`` (``gt``/``lt``: ``(0, 1)``)
``num(d, gt=0, unit="J")``                 ``must be > 0 J, got -1.0`` (one bound: ``>``, ``>=``, ``<``, ``<=``)
``count(d, 2, 100)``                       ``must be an integer from 2 to 100, got 1``
``vector(d, length=3, ge=0, le=1)``        ``must be three numbers in [0, 1], got [2.0]``
``choice(d)`` on a ``Literal[…]`` field    ``must be one of 'weight', 'contact', got 'x'``
=========================================  ==========================================================

A field typed ``float | None`` also accepts None (unset); a float field whose default is NaN is
filled in by the class's own ``__post_init__`` when not given (NaN is then not checked). Integer
fields must hold integers, every number must be finite. Bounds print as typed, with the powers of ten
from 1e4 up and from 1e-4 down as ``1e4``, and ±π, ±2π, π/2 as ``pi``, ``2pi``, ``pi/2``.

The same declarations give ``lab show`` (every field's value, default, unit and range) and the JSON
Schema of the scenario format (:mod:`lab.core.schema`).

Why not pydantic: the specs are frozen dataclasses used through ``dataclasses.replace`` and
``dataclasses.fields`` all over (the scenario's ``to_toml``, sweeps, GUI panel) and would have to
become models or wrappers; the error messages must stay exactly as they are (pydantic words its own);
and a metadata validator over the dataclass fields gives the checks, the JSON Schema and ``lab show``
from the same declarations in one small module, with no new dependency.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

KEY = "lab.core.fields"  # the dataclasses.field metadata key
NUMBERS = ("number", "integer", "count")  # the kinds that hold one number
_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def fmt(x) -> str:
    """A number as the messages print it: ints as typed, floats without a trailing .0, 1e4/1e-5 for
    powers of ten with |exponent| ≥ 4, pi, 2pi, pi/2 for those multiples of π."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return repr(x) if isinstance(x, str) else str(x)
    if isinstance(x, numbers.Integral):
        return str(int(x))
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    sign = "-" if x < 0 else ""
    for k, name in ((1.0, "pi"), (2.0, "2pi"), (0.5, "pi/2")):
        if abs(x) == k * math.pi:
            return sign + name
    if x != 0.0:
        e = round(math.log10(abs(x)))
        if abs(e) >= 4 and abs(x) == float(f"1e{e}"):
            return f"{sign}1e{e}"
    r = repr(x)
    r = r[:-2] if r.endswith(".0") else r
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m[1] == "-" else "") + m[2], r)


def got(v) -> str:
    """The offending value as the messages print it."""
    if isinstance(v, (tuple, list)):
        return str(list(v))
    return repr(v) if isinstance(v, str) else str(v)


@dataclass(frozen=True)
class Decl:
    """One field's declaration: its kind and bounds (from the helpers) plus its type (from the class)."""

    kind: str  # "number" | "integer" | "count" | "vector" | "choice" | "bool" | "string"
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    unit: str = ""
    doc: str = ""
    length: int | None = None
    names: str = ""
    noun: str = "numbers"
    log: bool = False  # searched on a log scale (lab optimize): the field spans decades (a slip speed, a gain)
    # filled in from the class by declarations()
    name: str = ""
    default: Any = None
    optional: bool = False
    choices: tuple = ()
    integer: bool = False
    derived: bool = False

    # ---- what is allowed, in words ------------------------------------------------------------
    def bounds(self) -> str:
        """``[0, 5]``, ``(0, 1e5]``, ``> 0`` or "" (no bound)."""
        lo = ("[", self.ge) if self.ge is not None else ("(", self.gt) if self.gt is not None else None
        hi = (self.le, "]") if self.le is not None else (self.lt, ")") if self.lt is not None else None
        if lo and hi:
            return f"{lo[0]}{fmt(lo[1])}, {fmt(hi[0])}{hi[1]}"
        if lo:
            return f"{'>=' if lo[0] == '[' else '>'} {fmt(lo[1])}"
        if hi:
            return f"{'<=' if hi[1] == ']' else '<'} {fmt(hi[0])}"
        return ""

    def allowed(self) -> str:
        """What follows "must be " in a message: ``in [0, 5] m``, ``> 0 J``, ``an integer from 2 to 100``…"""
        unit = f" {self.unit}" if self.unit else ""
        b = self.bounds()
        rng = (f"in {b}" if b[:1] in "[(" else b) if b else ""
        if self.kind == "count":
            return f"an integer from {fmt(self.ge)} to {fmt(self.le)}{unit}"
        if self.kind == "vector":
            many = "a list of" if self.length is None else _WORDS.get(self.length, self.length)
            words = f"{many} {self.noun}" + (f" {self.names}" if self.names else "")
            return words + (f" {rng}{unit}" if rng else f" in {self.unit}" if self.unit else "")
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return f"{rng}{unit}" if rng else ""

    def expected(self, finite: bool = False) -> str:
        """The type and range a value must have (for type errors): ``a number in [0, 5]`` …"""
        if self.kind == "count":
            return self.allowed()
        what = "an integer" if self.integer else "a finite number" if finite else "a number"
        return f"{what} {self.allowed()}".rstrip()

    # ---- the check ----------------------------------------------------------------------------
    def _in_range(self, x) -> bool:
        return ((self.ge is None or x >= self.ge) and (self.gt is None or x > self.gt)
                and (self.le is None or x <= self.le) and (self.lt is None or x < self.lt))

    def problem(self, v) -> str | None:
        """The message (after "<field>: ") if ``v`` is not allowed, else None."""
        if v is None and self.optional:
            return None
        if self.kind == "choice":
            return None if v in self.choices else f"must be {self.allowed()}, got {got(v)}"
        if self.kind == "vector":
            ok = (not isinstance(v, str) and hasattr(v, "__len__") and (self.length is None or len(v) == self.length)
                  and all(isinstance(x, numbers.Real) and math.isfinite(x) and self._in_range(x) for x in v))
            return None if ok else f"must be {self.allowed()}, got {got(v)}"
        if self.kind not in NUMBERS:
            return None
        if self.derived and isinstance(v, float) and math.isnan(v):
            return None
        if self.integer and (isinstance(v, bool) or not isinstance(v, numbers.Integral)):
            return f"must be {self.expected()}, got {got(v)}"
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            return f"must be {self.expected()}, got {got(v)}"
        if not math.isfinite(v):
            return f"must be {self.expected(finite=True)}, got {got(v)}"
        return None if self._in_range(v) else f"must be {self.allowed()}, got {got(v)}"

    def schema(self) -> dict:
        """This field as a JSON Schema (draft 2020-12) property."""
        s: dict = {}
        desc = " ".join(p for p in (self.doc, f"[{self.unit}]" if self.unit else "") if p)
        if desc:
            s["description"] = desc
        bounds = {k: v for k, v in (("minimum", self.ge), ("exclusiveMinimum", self.gt), ("maximum", self.le),
                                    ("exclusiveMaximum", self.lt)) if v is not None}
        if self.kind == "vector":
            s.update(type="array", items={"type": "number", **bounds})
            if self.length is not None:
                s.update(minItems=self.length, maxItems=self.length)
        elif self.kind == "choice":
            s.update(type="string", enum=list(self.choices))
        elif self.kind in NUMBERS:
            s.update(type="integer" if self.integer else "number", **bounds)
        elif self.kind == "bool":
            s["type"] = "boolean"
        else:
            s["type"] = "string"
        d = self.default
        if d is not None and not (isinstance(d, float) and math.isnan(d)):
            s["default"] = list(d) if isinstance(d, tuple) else d
        return s


# ---- the helpers used beside the fields -----------------------------------------------------------
def _field(default, decl: Decl, **kw):
    return dataclasses.field(default=default, metadata={KEY: decl}, **kw)


def num(default, *, ge=None, gt=None, le=None, lt=None, unit: str = "", doc: str = "", log: bool = False, **kw):
    """A number (int or float, as the field is typed) in a closed, open, half-open or one-sided range;
    ``log=True``: ``lab optimize`` searches it on a log scale unless the study says otherwise."""
    return _field(default, Decl("number", ge=ge, gt=gt, le=le, lt=lt, unit=unit, doc=doc, log=log), **kw)


def count(default: int, lo: int, hi: int, *, doc: str = "", **kw):
    """A number of things: an integer from ``lo`` to ``hi``."""
    return _field(default, Decl("count", ge=lo, le=hi, doc=doc), **kw)


def vector(default: tuple, *, length: int, ge=None, gt=None, le=None, lt=None, unit: str = "", names: str = "",
        noun: str = "numbers", doc: str = "", **kw):
    """A fixed-length list of numbers, each in the range (a TOML array, a tuple in the dataclass)."""
    return _field(default, Decl("vector", ge=ge, gt=gt, le=le, lt=lt, unit=unit, doc=doc, length=length,
                                names=names, noun=noun), **kw)


def choice(default: str, *, doc: str = "", **kw):
    """One of the values of the field's ``Literal[...]`` type."""
    return _field(default, Decl("choice", doc=doc), **kw)


def info(default, *, unit: str = "", doc: str = "", **kw):
    """No range, only a unit and a description (flags, names, free numbers)."""
    return _field(default, Decl("", unit=unit, doc=doc), **kw)


# ---- reading the declarations ---------------------------------------------------------------------
def _unwrap(tp) -> tuple[Any, bool]:
    """(type without None, whether None is allowed)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return (args[0] if len(args) == 1 else typing.Union[tuple(args)]), len(args) < len(typing.get_args(tp))
    return tp, False


def declarations(cls) -> dict[str, Decl]:
    """Every field of dataclass ``cls`` (declared or not) with its declaration, in field order."""
    cached = cls.__dict__.get("_lab_decls")
    if cached is not None:
        return cached
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        tp, optional = _unwrap(hints[f.name])
        decl = f.metadata.get(KEY) or Decl("")
        default = f.default if f.default is not dataclasses.MISSING else None
        kind = decl.kind
        choices = typing.get_args(tp) if typing.get_origin(tp) is Literal else ()
        if choices:
            kind = "choice"
        elif typing.get_origin(tp) is tuple and kind == "":
            kind = "vector"
        elif kind == "":
            kind = {bool: "bool", int: "integer", float: "number", str: "string"}.get(tp, "")
            decl = dataclasses.replace(decl, kind=kind)
        if kind == "choice" and not choices:
            raise TypeError(f"{cls.__name__}.{f.name}: choice() needs a Literal[...] type")
        integer = tp is int
        out[f.name] = dataclasses.replace(
            decl, kind="integer" if kind == "number" and integer else kind, name=f.name, default=default,
            optional=optional, choices=choices, integer=integer,
            derived=isinstance(default, float) and math.isnan(default))
    setattr(cls, "_lab_decls", out)
    return out


def check(obj) -> None:
    """Raise ValueError("<field>: must be …, got …") for the first declared field out of range."""
    for name, decl in declarations(type(obj)).items():
        msg = decl.problem(getattr(obj, name))
        if msg is not None:
            raise ValueError(f"{name}: {msg}")


class Validated:
    """Base of the spec and params dataclasses: ``__post_init__`` checks every declared field. A class
    with cross-field checks or derived defaults adds its own ``__post_init__`` that calls
    ``super().__post_init__()`` first."""

    __slots__ = ()

    def __post_init__(self):
        check(self)


__all__ = ["NUMBERS", "Decl", "Validated", "check", "choice", "count", "declarations", "fmt", "got", "info", "num", "vector"]
