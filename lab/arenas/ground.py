"""Flat ground and open water."""

from __future__ import annotations

from dataclasses import dataclass

from lab.core.fields import Validated, num, vector
from lab.arenas.base import register_arena


@register_arena("ground")
@dataclass(frozen=True)
class FlatGround(Validated):
    """An infinite plane at z = 0. ``friction`` is the ground's engine friction coefficient: it only
    acts on bodies that keep their own (Bullet multiplies the two), and the robots' links keep 0."""

    friction: float = num(1.0, ge=0, le=5, doc="the ground's engine friction coefficient")

    def build(self, world) -> int:
        return world.add_ground_plane(self.friction)


@register_arena("water")
@dataclass(frozen=True)
class Water(Validated):
    """Open water: no floor, gravity kept (the hydrodynamics law supplies buoyancy). ``current``
    (V_x, V_y in m/s) is drawn in the GUI as arrows on the water; the flow itself is a parameter of the
    hydrodynamics law, and the scenario loader checks that the two agree."""

    depth: float = num(2.0, ge=0.1, le=100, unit="m", doc="drawn depth")
    tint: tuple[float, float, float, float] = vector((0.2, 0.45, 0.75, 0.25), length=4, ge=0, le=1, names="(RGBA)",
                                                     doc="colour of the water")
    current: tuple[float, float] = vector((0.0, 0.0), length=2, names="[V_x, V_y]", unit="m/s",
                                          doc="drawn as arrows; must equal the hydrodynamics law's current")

    def build(self, world) -> None:
        # Visual only (no collision shape, no mass): free for the physics, and present in every
        # client so the GUI mirror and the video renderer show the water. The current's arrows are
        # debug lines, drawn by the GUI into its own window.
        world.add_visual_box([20, 20, self.depth / 2], [0, 0, -self.depth / 2], self.tint)
        if world.gui:
            self.draw_current(world.debug_line)
        return None

    def draw_current(self, line, spacing: float = 2.0, n_half: int = 2, z: float = 0.25) -> list[int]:
        """Arrows of the current on a (2·n_half+1)² grid around the origin, 1 m long per m/s (at least
        0.3 m), each a shaft and two barbs; nothing in still water. ``line(from, to, rgb, width)`` draws
        one debug line and returns its id (the GUI's or the World's)."""
        import math

        vx, vy = self.current
        speed = math.hypot(vx, vy)
        if speed == 0.0:
            return []
        ux, uy = vx / speed, vy / speed
        L = max(0.3, speed)
        ids = []
        rgb = [0.05, 0.25, 0.7]
        for i in range(-n_half, n_half + 1):
            for j in range(-n_half, n_half + 1):
                x0, y0 = i * spacing - 0.5 * L * ux, j * spacing - 0.5 * L * uy
                x1, y1 = x0 + L * ux, y0 + L * uy
                ids.append(line([x0, y0, z], [x1, y1, z], rgb, 3.0))
                for sgn in (1.0, -1.0):  # barbs at ±150° from the shaft
                    bx = x1 + 0.2 * L * (-ux * 0.866 - sgn * uy * 0.5)
                    by = y1 + 0.2 * L * (-uy * 0.866 + sgn * ux * 0.5)
                    ids.append(line([x1, y1, z], [bx, by, z], rgb, 3.0))
        return ids
