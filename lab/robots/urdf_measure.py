"""What a user's URDF file says about the robot's size, measured from its collision geometry rather than
guessed: the rest height, the characteristic link length and the head link (``[robot] type = "urdf"``).

Conventions: the robot is measured with every joint at zero and its base (root) link level, as the World
loads it (base frame at ``[x, y, rest_height]``, yaw only). Frames follow the URDF: each joint's
``<origin xyz rpy>`` places the child link's frame in the parent's; a ``<collision>``'s ``<origin>`` places
its geometry in its link's frame.

``rest_height``
    −(lowest point of any collision shape, in the base frame): the base frame's height when the lowest
    point touches the ground. Exact for the primitives (box: its corners; cylinder, its axis along the
    shape's z: the lowest rim point, c_z − (h/2)|a_z| − r·√(1 − a_z²); sphere: c_z − r) and for meshes
    (their vertices, loaded with trimesh, scaled as the file says). Bullet rests a box and a mesh on their
    faces; it pads a cylinder's and a sphere's rolling radius by its ~1 mm collision margin (DESIGN.md,
    engine pitfalls), which this does not add.
``link_length``
    The median distance between consecutive movable joints' origins along the chain (each joint's
    ``<origin xyz>`` length): the joint spacing the force laws and metrics use as the link length. A robot
    without a movable joint: its base link's collision extent along x.
``head_link``
    The tip of the longest chain of joints from the base (ties: the last in the file): the link whose path
    the ``head.*`` metrics follow.

:func:`measure` returns what could be measured and, for what could not, why (a file without collision
geometry has no rest height to measure: the scenario must set it).
"""

from __future__ import annotations

import functools
import logging
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

MOVABLE = ("revolute", "continuous", "prismatic")
MEASURED = ("rest_height", "link_length")  # the spec's fields filled from the geometry when not set


@dataclass(frozen=True)
class Measured:
    """What :func:`measure` found: each value, or None with the reason in ``why``."""

    rest_height: float | None = None
    link_length: float | None = None
    head_link: str | None = None
    why: dict = field(default_factory=dict)  # field -> why it could not be measured


def _floats(text: str | None, n: int, default: float = 0.0) -> np.ndarray:
    if not text:
        return np.full(n, default)
    vals = [float(x) for x in text.split()]
    if len(vals) != n:
        raise ValueError(f"expected {n} numbers, got {text!r}")
    return np.array(vals, dtype=float)


def _rot(rpy: np.ndarray) -> np.ndarray:
    """URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _pose(el) -> np.ndarray:
    """The 4×4 transform of an element's ``<origin>`` (identity if absent)."""
    T = np.eye(4)
    o = el.find("origin") if el is not None else None
    if o is not None:
        T[:3, :3] = _rot(_floats(o.get("rpy"), 3))
        T[:3, 3] = _floats(o.get("xyz"), 3)
    return T


def _lowest(geom, T: np.ndarray, folder: Path) -> tuple[float | None, float | None, str]:
    """(lowest z, x extent) of one ``<geometry>`` placed by ``T`` in the base frame; (None, None, why) if
    it cannot be measured."""
    R, c = T[:3, :3], T[:3, 3]
    shape = next(iter(geom), None) if geom is not None else None
    if shape is None:
        return None, None, "a <collision> without geometry"
    if shape.tag == "box":
        half = 0.5 * _floats(shape.get("size"), 3)
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
        pts = corners @ R.T + c
        return float(pts[:, 2].min()), float(np.ptp(pts[:, 0])), ""
    if shape.tag == "cylinder":
        r, h = float(shape.get("radius", "nan")), float(shape.get("length", "nan"))
        a = R[:, 2]  # the cylinder's axis in the base frame
        low = c[2] - 0.5 * h * abs(a[2]) - r * math.sqrt(max(0.0, 1.0 - a[2] ** 2))
        ext = h * abs(a[0]) + 2 * r * math.sqrt(max(0.0, 1.0 - a[0] ** 2))
        return float(low), float(ext), ""
    if shape.tag == "sphere":
        r = float(shape.get("radius", "nan"))
        return float(c[2] - r), 2 * r, ""
    if shape.tag == "mesh":
        name = shape.get("filename", "")
        if "://" in name:
            return None, None, f"mesh {name!r}: only file paths relative to the URDF can be measured"
        path = (folder / name) if not Path(name).is_absolute() else Path(name)
        try:
            import trimesh

            mesh = trimesh.load(str(path), force="mesh")
            v = np.asarray(mesh.vertices, dtype=float) * _floats(shape.get("scale"), 3, 1.0)
        except Exception as exc:  # noqa: BLE001 - a mesh trimesh cannot read: not measured, said why
            return None, None, f"mesh {name!r} could not be read ({type(exc).__name__})"
        if not len(v):
            return None, None, f"mesh {name!r} has no vertices"
        pts = v @ R.T + c
        return float(pts[:, 2].min()), float(np.ptp(pts[:, 0])), ""
    return None, None, f"unknown geometry <{shape.tag}>"


def measure(path: str | Path) -> Measured:
    """Measure the URDF file at ``path`` (see the module docstring). Never raises for a file the URDF
    validator accepts; what cannot be measured is None with its reason. Cached per file version."""
    path = Path(path).resolve()
    st = path.stat()
    return _measure(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _measure(file: str, mtime_ns: int, size: int) -> Measured:
    path = Path(file)
    root = ET.fromstring(path.read_text(encoding="utf-8"))
    links = [ln for ln in root.findall("link")]
    names = [ln.get("name", "") for ln in links]
    joints = root.findall("joint")
    child_of = {}  # child link -> (parent link, joint)
    for j in joints:
        p, ch = j.find("parent"), j.find("child")
        if p is not None and ch is not None:
            child_of[ch.get("link", "")] = (p.get("link", ""), j)
    roots = [n for n in names if n not in child_of]
    why: dict = {}
    if len(roots) != 1:
        return Measured(why={k: f"the file's links form {len(roots)} trees, not one" for k in
                             ("rest_height", "link_length", "head_link")})
    base = roots[0]

    # forward kinematics at q = 0, and each link's depth (joints from the base)
    pose, depth = {base: np.eye(4)}, {base: 0}

    def place(name: str) -> np.ndarray:
        if name not in pose:
            parent, j = child_of[name]
            pose[name] = place(parent) @ _pose(j)
            depth[name] = depth[parent] + 1
        return pose[name]

    for n in names:
        place(n)

    lows, base_ext, reasons = [], [], []
    for ln in links:
        for col in ln.findall("collision"):
            low, ext, reason = _lowest(col.find("geometry"), pose[ln.get("name", "")] @ _pose(col), path.parent)
            if reason:
                reasons.append(f"link {ln.get('name')!r}: {reason}")
            elif low is not None:
                lows.append(low)
                if ln.get("name") == base:
                    base_ext.append(ext)
    rest = None
    if reasons:
        why["rest_height"] = "; ".join(reasons[:2])
    elif not lows:
        why["rest_height"] = "the file has no <collision> geometry"
    else:
        rest = max(0.0, -min(lows))

    spacing = [float(np.linalg.norm(_floats(j.find("origin").get("xyz") if j.find("origin") is not None else None, 3)))
               for j in joints if j.get("type") in MOVABLE]
    spacing = [s for s in spacing if s > 0]
    length = None
    if spacing:
        length = float(np.median(spacing))
    elif base_ext and max(base_ext) > 0:
        length = float(max(base_ext))
    else:
        why["link_length"] = "no movable joint with an offset and no collision extent on the base link"

    deepest = max(depth.values())
    head = [n for n in names if depth[n] == deepest][-1]
    return Measured(rest_height=rest, link_length=length, head_link=head, why=why)


def contradiction(name: str, set_value: float, measured: float | None) -> str | None:
    """A warning when a value the scenario sets contradicts the geometry by more than the tolerance
    ``robot.urdf_contradicts_rel``, with both numbers; None if they agree or nothing was measured."""
    from lab.core.tolerances import tol

    if measured is None or not math.isfinite(set_value) or measured <= 0:
        return None
    if abs(set_value - measured) <= tol("robot.urdf_contradicts_rel") * measured:
        return None
    return (f"robot.{name} = {set_value:g} m contradicts the URDF's collision geometry, which measures "
            f"{measured:.4g} m ({(set_value - measured) / measured:+.0%}); leave it out to use the measured value")


_warned: set = set()


def fill_measured(spec) -> None:
    """Fill a URDF spec's unset (NaN) :data:`MEASURED` fields from its file's geometry; warn once per
    file and value when a set one contradicts it. Records each field's origin for ``lab show``
    (:func:`origin`). ``ValueError("<field>: …")`` when a field is unset and cannot be measured."""
    m = measure(spec.file)
    origins = {}
    for name in MEASURED:
        value, got = getattr(spec, name), getattr(m, name)
        if isinstance(value, float) and math.isnan(value):
            if got is None:
                raise ValueError(f"{name}: not set, and the URDF cannot measure it ({m.why.get(name, 'unknown')}); "
                                 f"set robot.{name}")
            object.__setattr__(spec, name, got)
            origins[name] = "measured from the URDF's collision geometry"
        else:
            warning = contradiction(name, value, got)
            origins[name] = (f"set by the scenario; the geometry measures {got:.4g} m" if got is not None
                             else "set by the scenario")
            key = (str(spec.file), name, value)
            if warning and key not in _warned:
                _warned.add(key)
                log.warning("%s", warning)
    object.__setattr__(spec, "_measured", m)
    object.__setattr__(spec, "_origins", origins)


def origin(spec, name: str) -> str:
    """Where a URDF spec's field value came from ("measured …", "set by the scenario …"), or ""."""
    return getattr(spec, "_origins", {}).get(name, "")


__all__ = ["MEASURED", "Measured", "contradiction", "fill_measured", "measure", "origin"]
