"""Small, pure helpers that write URDF text.

Numbers go through :func:`fmt`: NumPy 2 prints ``np.float64(0.5)`` for ``repr`` and the URDF parser
silently misreads such text, so every number is converted with ``float()`` and formatted explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def fmt(x: float) -> str:
    """Format one number for URDF: plain float, 10 significant digits, no NumPy repr."""
    return format(float(x), ".10g")


def vec(v) -> str:
    return " ".join(fmt(x) for x in v)


@dataclass(frozen=True)
class MassProps:
    """Mass, centre of mass (link frame) and inertia tensor about the COM in the link frame."""

    mass: float
    com: tuple[float, float, float]
    inertia: np.ndarray  # (3, 3)

    def is_physical(self, rtol: float = 1e-9) -> bool:
        """Positive mass, symmetric positive-definite inertia obeying the triangle inequality."""
        I = np.asarray(self.inertia, dtype=float)
        if self.mass <= 0 or not np.allclose(I, I.T):
            return False
        w = np.linalg.eigvalsh(I)
        if w.min() <= 0:
            return False
        a, b, c = w
        s = rtol * w.max()
        return a + b >= c - s and a + c >= b - s and b + c >= a - s


def cylinder_x(mass: float, radius: float, length: float) -> MassProps:
    """Solid cylinder whose axis is the link's x axis (closed form)."""
    i_axis = 0.5 * mass * radius**2
    i_perp = mass * (3.0 * radius**2 + length**2) / 12.0
    return MassProps(float(mass), (0.0, 0.0, 0.0), np.diag([i_axis, i_perp, i_perp]))


def box(mass: float, size: tuple[float, float, float]) -> MassProps:
    """Solid box with edge lengths ``size`` (closed form)."""
    a, b, c = size
    return MassProps(
        float(mass),
        (0.0, 0.0, 0.0),
        np.diag([mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + b * b) / 12]),
    )


def mesh_mass_props(mesh, mass: float) -> MassProps:
    """Mass properties of a closed trimesh scaled to ``mass`` (uniform density)."""
    if not mesh.is_watertight:
        raise ValueError("mesh must be watertight to derive its inertia")
    density = mass / mesh.volume
    mesh = mesh.copy()
    mesh.density = density
    return MassProps(float(mass), tuple(float(x) for x in mesh.center_mass), np.asarray(mesh.moment_inertia))


def inertial_xml(mp: MassProps, indent: str = "    ") -> str:
    I = mp.inertia
    return (
        f"{indent}<inertial>\n"
        f'{indent}  <origin xyz="{vec(mp.com)}" rpy="0 0 0"/>\n'
        f'{indent}  <mass value="{fmt(mp.mass)}"/>\n'
        f'{indent}  <inertia ixx="{fmt(I[0, 0])}" ixy="{fmt(I[0, 1])}" ixz="{fmt(I[0, 2])}" '
        f'iyy="{fmt(I[1, 1])}" iyz="{fmt(I[1, 2])}" izz="{fmt(I[2, 2])}"/>\n'
        f"{indent}</inertial>\n"
    )


def material_xml(name: str, rgba) -> str:
    return f'  <material name="{name}">\n    <color rgba="{vec(rgba)}"/>\n  </material>\n'


def planar_chain_urdf(
    name: str,
    n_links: int,
    link_length: float,
    radius: float,
    mp: MassProps,
    collision: str,
    joint_limit: float,
    effort: float,
    velocity: float,
    body_rgba=(0.85, 0.55, 0.15, 1.0),
    head_rgba=(0.75, 0.15, 0.10, 1.0),
) -> str:
    """A chain of identical cylinders along x joined by yaw (z-axis) revolute joints.

    Conventions (shared by every planar chain in the lab): link 0 is the **tail** and the URDF base;
    link ``n_links - 1`` is the **head**. Each link's x axis points towards the head, so "forward" is
    +x_B. Joint j joins link j (parent) to link j+1 (child) at the parent's front end; its angle is
    the child's yaw relative to the parent (right-handed about +z). This is the papers' ordering:
    Wang 2011 numbers joints x⁴ (tail) … xⁿ (head).

    Frames: the tail's link frame is its centre; each child's link frame is at its joint, with the
    body (and COM) l/2 ahead, so the joint axis passes through the links' shared end point.
    ``collision`` is ``"skid"`` (a box of the cylinder's footprint, so a link rests flat and cannot
    roll: a lone cylinder on a frictionless floor has neutrally stable roll) or ``"cylinder"``.
    """
    half = link_length / 2.0
    if collision == "skid":
        col = f'<box size="{vec((0.9 * link_length, 2 * radius, 2 * radius))}"/>'
        col_rpy = "0 0 0"
    elif collision == "cylinder":
        col = f'<cylinder radius="{fmt(radius)}" length="{fmt(0.98 * link_length)}"/>'
        col_rpy = "0 1.5707963268 0"
    else:
        raise ValueError(f"collision must be 'skid' or 'cylinder', got {collision!r}")
    out = [f'<?xml version="1.0"?>\n<robot name="{name}">\n']
    out.append(material_xml("body", body_rgba))
    out.append(material_xml("head", head_rgba))
    for i in range(n_links):
        mat = "head" if i == n_links - 1 else "body"
        # The base (tail) frame is its centre; every child's frame sits at its joint (rear end) and
        # its body is offset +l/2 along x. The engine's link state reports the inertial frame, so
        # the snapshot's positions and velocities are still the COM's.
        c = "0 0 0" if i == 0 else f"{fmt(half)} 0 0"
        out.append(
            f'  <link name="link_{i}">\n'
            + inertial_xml(MassProps(mp.mass, (0.0 if i == 0 else half, 0.0, 0.0), mp.inertia))
            + "    <visual>\n"
            + f'      <origin xyz="{c}" rpy="0 1.5707963268 0"/>\n'
            + f'      <geometry><cylinder radius="{fmt(radius)}" length="{fmt(0.96 * link_length)}"/></geometry>\n'
            + f'      <material name="{mat}"/>\n'
            + "    </visual>\n"
            + "    <collision>\n"
            + f'      <origin xyz="{c}" rpy="{col_rpy}"/>\n'
            + f"      <geometry>{col}</geometry>\n"
            + "    </collision>\n"
            + "  </link>\n"
        )
    for j in range(n_links - 1):
        # joint j sits at the front end of link j: l/2 ahead of the tail's centre, l ahead of a child's joint
        x = half if j == 0 else 2 * half
        out.append(
            f'  <joint name="joint_{j}" type="revolute">\n'
            f'    <parent link="link_{j}"/>\n'
            f'    <child link="link_{j + 1}"/>\n'
            f'    <origin xyz="{fmt(x)} 0 0" rpy="0 0 0"/>\n'
            '    <axis xyz="0 0 1"/>\n'
            f'    <limit lower="{fmt(-joint_limit)}" upper="{fmt(joint_limit)}" effort="{fmt(effort)}" '
            f'velocity="{fmt(velocity)}"/>\n'
            '    <dynamics damping="0" friction="0"/>\n'
            "  </joint>\n"
        )
    out.append("</robot>\n")
    return "".join(out)


def box_urdf(name: str, mass: float, size, rgba=(0.35, 0.35, 0.40, 1.0)) -> str:
    """A single solid box (a payload), inertia from the closed form."""
    mp = box(mass, tuple(size))
    return (f'<?xml version="1.0"?>\n<robot name="{name}">\n' + material_xml("load", rgba)
            + f'  <link name="{name}">\n' + inertial_xml(mp)
            + f'    <visual><geometry><box size="{vec(size)}"/></geometry><material name="load"/></visual>\n'
            + f'    <collision><geometry><box size="{vec(size)}"/></geometry></collision>\n'
            + "  </link>\n</robot>\n")
