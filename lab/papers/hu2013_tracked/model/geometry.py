"""Planar geometry of the tracked robot's body (Hu 2013, Fig 3 and Table 1): the belt envelope, a
rounded triangle (the triangle of pulley centres, side ``l``, offset by the pulley radius ``r``), its
area moments (for the body's inertia) and its perimeter as an arc-length curve (the curved prismatic
joint of :mod:`.chain` runs along it).

Coordinates are (y, z) in the body frame B (see :mod:`.chain`): y along the outward normal of the front
face, z along that face; the pulley centres are T (front-top), F (front-bottom) and R (rear).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TWO_PI = 2.0 * math.pi


def rounded_triangle_polygon(l: float, r: float, n_arc: int = 64) -> np.ndarray:
    """(N, 2) counter-clockwise (y, z) outline of the belt envelope: the pulley-centre triangle
    offset by r."""
    a = l / (2 * math.sqrt(3))
    C = np.array([[a, l / 2], [-2 * a, 0.0], [a, -l / 2]])  # T, R, F counter-clockwise
    pts = []
    # each vertex's arc runs from the previous face's outward normal to the next one's
    for k in range(3):
        for u in np.linspace(2 * math.pi * k / 3, 2 * math.pi * (k + 1) / 3, n_arc):
            pts.append(C[k] + r * np.array([math.cos(u), math.sin(u)]))
    return np.array(pts)


def polygon_moments(P: np.ndarray) -> tuple[float, float, float]:
    """Area and second moments ∫y² dA, ∫z² dA about the centroid of a simple polygon (y, z)."""
    y, z = P[:, 0], P[:, 1]
    y1, z1 = np.roll(y, -1), np.roll(z, -1)
    c = y * z1 - y1 * z
    A = 0.5 * c.sum()
    cy = ((y + y1) * c).sum() / (6 * A)
    cz = ((z + z1) * c).sum() / (6 * A)
    Iyy = ((y * y + y * y1 + y1 * y1) * c).sum() / 12  # ∫y² about the origin
    Izz = ((z * z + z * z1 + z1 * z1) * c).sum() / 12
    return abs(A), abs(Iyy) - abs(A) * cy**2, abs(Izz) - abs(A) * cz**2


def rounded_triangle_moments(l: float, r: float) -> tuple[float, float, float]:
    return polygon_moments(rounded_triangle_polygon(l, r, n_arc=400))


@dataclass(frozen=True)
class Perimeter:
    """The belt envelope as a curve b(λ) in the body frame (y, z), run clockwise (seen from +x)
    from the top of the front face: front face T→F (λ ∈ [0, l]), arc round F, base face F→R, arc
    round R, rear face R→T, arc round T. As the track drives the body up the edge, the contact moves
    to larger λ."""

    l: float
    r: float

    def _segments(self):
        a, l, r = self.l / (2 * math.sqrt(3)), self.l, self.r
        T, F, R = np.array([a, l / 2]), np.array([a, -l / 2]), np.array([-2 * a, 0.0])
        # (kind, start λ, length, data): lines carry (start point, unit direction, normal angle);
        # arcs carry (centre, start angle); angles decrease (clockwise).
        segs = []
        lam = 0.0
        for P0, P1, C_next, ang0 in ((T, F, F, 0.0), (F, R, R, -2 * math.pi / 3), (R, T, T, -4 * math.pi / 3)):
            n = np.array([math.cos(ang0), math.sin(ang0)])
            u = (P1 - P0) / l
            segs.append(("line", lam, l, (P0 + r * n, u)))
            lam += l
            segs.append(("arc", lam, 2 * math.pi * r / 3, (C_next, ang0)))
            lam += 2 * math.pi * r / 3
        return segs

    @property
    def length(self) -> float:
        return 3 * self.l + TWO_PI * self.r

    def eval(self, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
        """(b, b', b'', segment kind) at arc length λ (taken modulo the perimeter)."""
        lam = lam % self.length
        for kind, s0, L, data in self._segments():
            if lam <= s0 + L + 1e-15:
                u = lam - s0
                if kind == "line":
                    P, d = data
                    return P + u * d, d.copy(), np.zeros(2), kind
                C, ang0 = data
                ang = ang0 - u / self.r
                e = np.array([math.cos(ang), math.sin(ang)])
                t = np.array([math.sin(ang), -math.cos(ang)])  # d/dλ of C + r e(ang0 − λ/r)
                return C + self.r * e, t, -e / self.r, kind
        raise AssertionError("unreachable")  # pragma: no cover

    def normal(self, lam: float) -> np.ndarray:
        """Outward unit normal (y, z) at λ: on a clockwise run, the tangent turned by +90°."""
        _, t, _, _ = self.eval(lam)
        return np.array([-t[1], t[0]])


__all__ = ["TWO_PI", "rounded_triangle_polygon", "polygon_moments", "rounded_triangle_moments", "Perimeter"]
