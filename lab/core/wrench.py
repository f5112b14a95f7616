"""What a force law returns and how the World sums several laws: the per-link wrench, world frame.

A force law (the library's :mod:`lab.forces`) is a pure callable ``law(state, t)`` (:class:`ForceLaw`)
returning either an ``(N, 3)`` array of forces at the link COMs in the world frame, or a :class:`Wrench`
when it also applies torques or pushes other bodies (a payload at the end of a tether). A law that
needs the robot's or the arena's geometry is a :class:`NeedsBinding`: :func:`bind`, called in one place
(the runner), returns the bound, immutable law. The World applies the :func:`total` of every law.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class ForceLaw(Protocol):
    """``law(state, t)`` → (N, 3) forces at the link COMs or a :class:`Wrench`, world frame; pure."""

    def __call__(self, state, t: float): ...


@runtime_checkable
class NeedsBinding(Protocol):
    """A law's parameters that act only once bound to a robot spec and an arena."""

    def bind(self, robot, arena) -> ForceLaw: ...


def bind(law, robot, arena) -> ForceLaw:
    """``law`` bound to ``robot`` (its spec) and ``arena``: ``law.bind(robot, arena)`` for a
    :class:`NeedsBinding` law, the law itself for every other. Raises ValueError (``field: what``) when
    the law cannot act on this robot or arena."""
    return law.bind(robot, arena) if isinstance(law, NeedsBinding) else law


@dataclass
class Wrench:
    """Per-link forces ``F_W`` (N, 3) at the COMs and torques ``T_W`` (N, 3), world frame; ``extra``
    maps another body's name to the force (3,) on its COM."""

    F_W: np.ndarray
    T_W: np.ndarray | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)


def as_wrench(out) -> Wrench:
    return out if isinstance(out, Wrench) else Wrench(F_W=out)


def total(wrenches, n_links: int) -> Wrench:
    """The sum the World applies in one place, of laws' outputs: Wrenches or (N, 3) force arrays (an array is
    taken as it is, not wrapped in a Wrench first: the runner's per-step call)."""
    F = np.zeros((n_links, 3))
    T = None
    extra: dict[str, np.ndarray] = {}
    for w in wrenches:
        if not isinstance(w, Wrench):  # a force array
            F += w
            continue
        F += w.F_W
        if w.T_W is not None:
            T = w.T_W.copy() if T is None else T + w.T_W
        for name, f in w.extra.items():
            extra[name] = extra[name] + f if name in extra else np.asarray(f, float).copy()
    return Wrench(F, T, extra)


def power(w: Wrench, v_W: np.ndarray, w_W: np.ndarray) -> float:
    """Σ F·v + Σ T·ω on the robot's links (the extra bodies' share is not the robot's work)."""
    p = float(np.einsum("ij,ij->", w.F_W, v_W))
    if w.T_W is not None:
        p += float(np.einsum("ij,ij->", w.T_W, w_W))
    return p


__all__ = ["ForceLaw", "NeedsBinding", "Wrench", "as_wrench", "bind", "power", "total"]
