"""Flat ground and open water."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import pb


@dataclass(frozen=True)
class FlatGround:
    """An infinite plane at z = 0. ``friction`` is the ground's engine friction coefficient: it only
    acts on bodies that keep their own (Bullet multiplies the two), and the robots' links keep 0."""

    friction: float = 1.0

    def __post_init__(self):
        if not 0.0 <= self.friction <= 5.0:
            raise ValueError(f"friction: must be in [0, 5], got {self.friction}")

    def build(self, world) -> int:
        c = world.client
        shape = c.createCollisionShape(pb.GEOM_PLANE)
        vis = c.createVisualShape(pb.GEOM_BOX, halfExtents=[50, 50, 0.001], rgbaColor=[0.82, 0.82, 0.78, 1],
                                  visualFramePosition=[0, 0, -0.001])
        ground = c.createMultiBody(0, shape, vis)
        c.changeDynamics(ground, -1, restitution=0.0, lateralFriction=self.friction)
        return ground


@dataclass(frozen=True)
class Water:
    """Open water: no floor, gravity kept (the hydrodynamics law supplies buoyancy). ``current`` is
    drawn in the GUI; the flow itself is a parameter of the hydrodynamics law."""

    depth: float = 2.0
    tint: tuple[float, float, float, float] = (0.2, 0.45, 0.75, 0.25)

    def __post_init__(self):
        if not 0.1 <= self.depth <= 100.0:
            raise ValueError(f"depth: must be in [0.1, 100] m, got {self.depth}")
        if len(self.tint) != 4 or not all(0.0 <= x <= 1.0 for x in self.tint):
            raise ValueError(f"tint: must be four numbers in [0, 1] (RGBA), got {list(self.tint)}")

    def build(self, world) -> None:
        if world.gui:
            c = world.client
            vis = c.createVisualShape(pb.GEOM_BOX, halfExtents=[20, 20, self.depth / 2], rgbaColor=list(self.tint))
            c.createMultiBody(0, -1, vis, basePosition=[0, 0, -self.depth / 2 + 0.0])
        return None
