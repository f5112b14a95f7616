"""A step (and a flight of stairs) on a slope, for the tracked robot's climbing trials (Hu 2013, Figs 5–6).

The engine's world frame is the paper's *step frame* S (Fig 6), with axes renamed for the URDF
convention: x_E = the climbing direction (S's y), y_E = −x_S (along the edge, to the robot's left),
z_E = the slope normal (S's z). The ground plane is z = 0 and the riser faces −x at x = ``step_x``.

The slope is modelled by turning gravity, not the ground: g_E is (0, 0, −g) seen from S =
R_z(β)ᵀ R_x(α)ᵀ (eqs. 1–2's virtual joints exp(ξ̂1 α) exp(ξ̂2 β)), so α > 0, β = 0 climbs straight up
a slope of α. Physically identical to a tilted arena, and the robot still starts at rest height on
its base face; the GUI then shows the slope as gravity pointing off the vertical.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.fields import Validated, count, num
from lab.arenas.base import register_arena


def gravity_E(slope_deg: float, yaw_deg: float, g: float) -> np.ndarray:
    """Gravity in the engine (step) frame for a slope α and climbing yaw β (degrees)."""
    a, b = math.radians(slope_deg), math.radians(yaw_deg)
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Rz = np.array([[math.cos(b), -math.sin(b), 0], [math.sin(b), math.cos(b), 0], [0, 0, 1]])
    gS = (Rx @ Rz).T @ np.array([0.0, 0.0, -g])
    return np.array([gS[1], -gS[0], gS[2]])


@dataclass(frozen=True)
class _TiltedArena(Validated):
    """What Step and Stairs share: gravity tilted by the slope and the approach yaw, and the ground."""

    slope_deg: float = num(0.0, ge=-89, le=89, unit="degrees", doc="slope α of the ground (gravity turned)")
    yaw_deg: float = num(0.0, ge=-180, le=180, unit="degrees", doc="approach yaw β against the slope")
    step_x: float = num(0.16, ge=-5, le=50, unit="m", doc="x of the (first) riser")
    width: float = num(1.5, ge=0.05, le=20, unit="m", doc="along the edge")
    friction: float = num(1.0, ge=0, le=5, doc="engine friction coefficient of ground and steps")

    def gravity(self, g: float) -> np.ndarray:
        return gravity_E(self.slope_deg, self.yaw_deg, g)

    def _build_ground(self, world, z: float = 0.0) -> int:
        ground = _plane(world, self.friction, z)
        world.set_gravity(self.gravity(world.gravity))
        world.arena_bodies = {"ground": ground}
        return ground


@register_arena("step")
@dataclass(frozen=True)
class Step(_TiltedArena):
    """One step of height ``step_height`` whose riser is at x = ``step_x``, on a plane of slope
    ``slope_deg`` approached at yaw ``yaw_deg``. ``friction`` is the engine coefficient of ground and
    step (Bullet multiplies it with the robot's). ``step_height`` = 0 leaves the plane alone."""

    step_height: float = num(0.10, ge=0, le=1, unit="m", doc="0 leaves the plane alone")
    step_depth: float = num(0.8, ge=0.05, le=20, unit="m", doc="the step's top, from the riser")
    riser_friction: float | None = num(None, ge=0, le=5, doc="engine friction coefficient of the riser face "
                                       "only (the edge and the top keep friction); unset: friction")

    @property
    def edge(self) -> tuple[float, float]:
        """(x, z) of the edge line (parallel to y)."""
        return self.step_x, self.step_height

    def convex_edges(self) -> tuple:
        """The step's edge as ((x, z), n_top, n_riser): the line parallel to y and the outward
        normals (x, z) of its two faces (lab.forces.cleats)."""
        if self.step_height <= 0:
            return ()
        return (((self.step_x, self.step_height), (0.0, 1.0), (-1.0, 0.0)),)

    def build(self, world) -> int:
        """With ``riser_friction`` set, the step is two boxes flush at the riser (Bullet's friction
        belongs to a body, not to a face): below, the riser's (``arena_bodies["riser"]``), up to
        :data:`EDGE_BAND` under the top; above, a slab of that thickness carrying the edge and the
        top with ``friction`` (``arena_bodies["step"]``)."""
        ground = self._build_ground(world)
        h, x0, d = self.step_height, self.step_x, self.step_depth
        if h <= 0:
            return ground
        if self.riser_friction is None:
            world.arena_bodies["step"] = _box(world, (x0 + d / 2, 0.0, h / 2), (d, self.width, h), self.friction)
            return ground
        band = min(EDGE_BAND, h / 2)
        world.arena_bodies["riser"] = _box(world, (x0 + d / 2, 0.0, (h - band) / 2), (d, self.width, h - band),
                                           self.riser_friction)
        world.arena_bodies["step"] = _box(world, (x0 + d / 2, 0.0, h - band / 2), (d, self.width, band), self.friction)
        return ground


EDGE_BAND = 0.005  # m: the top of the riser face that belongs to the edge (keeps ``friction``) when the riser
# has its own: the edge contacts of a climb lie within 3 mm of the edge line (lab.papers.hu2013_tracked.trials.EDGE_NEAR)


@register_arena("stairs")
@dataclass(frozen=True)
class Stairs(_TiltedArena):
    """``n_steps`` steps of rise ``rise`` and tread ``tread``, the first riser at x = ``step_x``."""

    rise: float = num(0.15, gt=0, le=1, unit="m", doc="height of each step")
    tread: float = num(0.45, ge=0.05, le=10, unit="m", doc="depth of each step")
    n_steps: int = count(3, 1, 50, doc="steps")

    @property
    def step_height(self) -> float:
        return self.rise

    @property
    def edge(self) -> tuple[float, float]:
        return self.step_x, self.rise

    def convex_edges(self) -> tuple:
        """Every step's edge, as :meth:`Step.convex_edges`."""
        return tuple(((self.step_x + k * self.tread, (k + 1) * self.rise), (0.0, 1.0), (-1.0, 0.0))
                     for k in range(self.n_steps))

    def build(self, world) -> int:
        ground = self._build_ground(world)
        for k in range(self.n_steps):
            top = (k + 1) * self.rise
            depth = self.tread * (self.n_steps - k) + 0.5
            x0 = self.step_x + k * self.tread
            world.arena_bodies[f"step_{k}"] = _box(world, (x0 + depth / 2, 0.0, top - self.rise / 2),
                                                   (depth, self.width, self.rise), self.friction)
        return ground


@register_arena("slope")
@dataclass(frozen=True)
class Slope(_TiltedArena):
    """A plain slope of ``slope_deg`` (gravity turned; climbing along +x), optionally with
    ``n_ridges`` sharp ridges across it: 90° ridges (a square bar turned 45° about y, its apex a box
    edge, which Bullet keeps sharp: boxes carry no collision margin) standing ``ridge_height`` proud
    of the slope, ``ridge_spacing`` apart, the first at x = ``ridge_x``. With ridges the slope's plane
    is lowered by ``ridge_height``, so that the apexes are at z = 0, where the robot is placed. The
    ridges' apexes are convex edges."""

    n_ridges: int = count(0, 0, 200, doc="ridges across the slope (0: a plain slope)")
    ridge_height: float = num(0.01, gt=0, le=0.04, unit="m", doc="apex above the slope's plane")
    ridge_spacing: float = num(0.1, gt=0, le=10, unit="m", doc="between apexes")
    ridge_x: float = num(-0.05, ge=-50, le=50, unit="m", doc="x of the first apex")

    def ridge_apexes(self) -> list[tuple[float, float]]:
        return [(self.ridge_x + k * self.ridge_spacing, 0.0) for k in range(self.n_ridges)]

    def convex_edges(self) -> tuple:
        s = math.sqrt(0.5)
        return tuple((apex, (-s, s), (s, s)) for apex in self.ridge_apexes())

    def build(self, world) -> int:
        ground = self._build_ground(world, -self.ridge_height if self.n_ridges else 0.0)
        side = 2 * self.ridge_height  # the bar's side: its diagonal reaches 0.41 h below the slope
        for k, (x, h) in enumerate(self.ridge_apexes()):
            half = [side / 2, self.width / 2, side / 2]
            body = world.add_static_box(half, [x, 0.0, h - side / math.sqrt(2)], self.friction, rpy=(0, math.pi / 4, 0))
            world.arena_bodies[f"ridge_{k}"] = body
        return ground


def _plane(world, friction: float, z: float = 0.0) -> int:
    return world.add_ground_plane(friction, z)


def _box(world, centre, size, friction: float) -> int:
    return world.add_static_box([s / 2 for s in size], centre, friction)


__all__ = ["Slope", "Step", "Stairs", "gravity_E"]
