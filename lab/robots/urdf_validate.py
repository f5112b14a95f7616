"""A user's URDF file, checked in full before the engine sees it.

PyBullet 3.2.7 trusts its input: a joint name longer than its 1024-byte name buffers corrupts memory
and can segfault (no message), a tree of more than 128 links loads but fails on the first state read,
and many malformed trees (no links, a loop, a duplicate or undefined link, a missing or unreadable
mesh) give a bare ``pybullet.error`` or a ``ValueError``/``SystemError`` from deep inside a later
call. :func:`validate` states the rules the lab's loader holds a file to, in the order a reader
meets them, and refuses the *first* problem with its element and line::

    path: long.urdf:12: <joint name='JJJJ…'>: name is 1100 bytes long; at most 1023 (the engine's
    name buffers hold 1024 bytes, longer names overflow them)

The rules (docs/guarantees.md lists them with the engine limit each protects):

- the file: UTF-8 XML of at most :data:`MAX_FILE_BYTES`, no DOCTYPE (so no entities: no XML bomb,
  no external entity), root element ``<robot>``;
- names: every link and joint named, unique within its kind, at most :data:`MAX_NAME_BYTES` bytes
  of UTF-8 and no control characters (they reach error lines and CSV headers);
- the tree: at least one link, at most :data:`MAX_LINKS`, every joint's ``<parent>`` and ``<child>``
  naming defined links, no link the child of two joints, exactly one root, every link reachable from
  it (so no loop);
- joints: type revolute, continuous, prismatic or fixed; a movable joint states ``<limit effort>`` > 0;
  a non-zero ``<axis>``;
- numbers: plain decimal (no ``nan``, ``inf``, hex or ``1_0``), origins within :data:`MAX_COORD` m,
  angles within :data:`MAX_ANGLE` rad;
- mass properties: every link has an ``<inertial>`` (PyBullet gives a link without one 1 kg and a
  unit inertia, silently) with a mass in (0, :data:`MAX_MASS`] kg and an inertia tensor that is
  positive definite, within :data:`MAX_INERTIA` kg·m², with principal moments obeying the triangle
  inequality (no rigid body has one moment larger than the sum of the other two);
- geometry: box sizes, radii and lengths in (0, :data:`MAX_COORD`] m, mesh scales non-zero and finite;
- files (``<mesh filename>``, ``<texture filename>``): a relative path (no ``package://``, no scheme, not
  absolute) to an existing regular file inside the URDF's own folder (symlinks followed, then
  confined: no ``../``, no ``/etc/passwd``, no ``/dev/zero``), of a format the engine loads
  (:data:`MESH_SUFFIXES`, :data:`TEXTURE_SUFFIXES`), at most :data:`MAX_MESH_BYTES`.
"""

from __future__ import annotations

import math
import os
import re
import stat
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from xml.parsers import expat

import numpy as np

from lab.core.errors import LabError

# --- the engine's limits (PyBullet 3.2.7), measured in a child process: benchmarks/urdf_limits.py ------
# b3JointInfo holds m_linkName[1024] and m_jointName[1024] (SharedMemoryPublic.h): a longer name
# overflows into the neighbouring fields. Measured: a 1100-byte joint name loads (memory already
# overwritten), 1500 bytes segfaults; a 1500-byte link name loads, 3000 segfaults. 1023 bytes + NUL fit.
MAX_NAME_BYTES = 1023
# Measured: a tree of 128 links (127 joints, chain or star, any joint type) loads and steps; 129 loads
# but getBasePositionAndOrientation fails ("GetBasePositionAndOrientation failed"); 10 000 segfaults.
MAX_LINKS = 128
# --- the lab's own bounds (not the engine's): far beyond any robot the lab simulates, small enough
# that the engine's single-precision parts (contacts, AABBs) and the recorder stay meaningful.
MAX_FILE_BYTES = 16 * 1024**2  # a 128-link URDF with every element is well under 1 MB
MAX_COORD = 1000.0  # m: an origin or a size beyond 1 km is a typo (1e308 gave a ValueError in the engine)
MAX_ANGLE = 1000.0  # rad: rpy angles (any angle is fine mathematically; beyond this it is a typo)
MAX_MASS = 1.0e6  # kg
MAX_INERTIA = 1.0e6  # kg·m²
MAX_MESH_BYTES = 256 * 1024**2
MAX_SCALE = 1.0e3
TRIANGLE_RTOL = 1e-6  # principal moments from a file's 6-digit numbers: a+b >= c within this share of c
MESH_SUFFIXES = (".obj", ".stl", ".dae")  # the mesh formats PyBullet 3.2.7's URDF importer reads
TEXTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tga", ".bmp")
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")  # planar and floating: not in the lab's set-up
MOVABLE = ("revolute", "continuous", "prismatic")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class UrdfError(LabError, ValueError):
    """A URDF file the lab refuses: ``path: FILE:LINE: <element name='…'>: what is wrong, what is allowed``.
    A ``ValueError`` too, so a robot spec's ``__post_init__`` may raise it like its other field errors."""

    def __init__(self, what: str, where: str = "path"):
        super().__init__(where, " ".join(what.split()))  # one line whatever a name held


@dataclass(frozen=True)
class UrdfSummary:
    """What the lab needs from a checked file: names in document order and the movable joints' limits."""

    robot: str
    links: tuple[str, ...]
    joints: tuple[tuple[str, str, float], ...]  # (name, type, effort) of every movable joint, in order

    @property
    def n_links(self) -> int:
        return len(self.links)


def short(name: str, n: int = 40) -> str:
    """A name for an error line: at most ``n`` characters, control characters escaped."""
    text = name if len(name) <= n else name[:n] + "…"
    return repr(text)


def parse(data: bytes, label: str) -> tuple[ET.Element, dict[int, int]]:
    """The XML tree and each element's line (by ``id``), read by expat with DTDs refused outright."""
    builder = ET.TreeBuilder()
    lines: dict[int, int] = {}
    p = expat.ParserCreate()
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def start(tag, attrs):
        el = builder.start(tag, attrs)
        lines[id(el)] = p.CurrentLineNumber

    def doctype(*_):
        raise UrdfError(f"{label}:{p.CurrentLineNumber}: has a DOCTYPE; a URDF needs none (entities are not allowed)")

    p.StartElementHandler = start
    p.EndElementHandler = builder.end
    p.CharacterDataHandler = builder.data
    p.StartDoctypeDeclHandler = doctype
    p.ordered_attributes = False
    try:
        p.Parse(data, True)
    except expat.ExpatError as exc:
        raise UrdfError(f"{label}:{exc.lineno}: not a URDF file (XML: {expat.ErrorString(exc.code)}, "
                        f"column {exc.offset})") from None
    root = builder.close()
    return root, lines


class _Checker:
    def __init__(self, label: str, folder: Path | None, lines: dict[int, int], root: ET.Element):
        self.label = label
        self.folder = folder
        self.lines = lines
        self.parents = {id(c): p for p in root.iter() for c in p}

    def fail(self, el: ET.Element, what: str):
        """Raise for ``el``, named by its own name or its nearest named ancestor's (``<joint name='j'>
        <limit>``: an effort of "abc" names its joint)."""
        tags, node = [], el
        while node is not None:
            name = node.get("name")
            tags.append(f"<{node.tag}>" if name is None else f"<{node.tag} name={short(name)}>")
            if name is not None or node.tag == "robot":
                break
            node = self.parents.get(id(node))
        where = " ".join(reversed(tags)) if node is not None else tags[0]
        raise UrdfError(f"{self.label}:{self.lines.get(id(el), '?')}: {where}: {what}")

    # numbers --------------------------------------------------------------------------------------
    def numbers(self, el, attr: str, n: int, default=None, *, bound: float | None = None, what: str = "") -> list[float]:
        raw = el.get(attr)
        if raw is None:
            if default is None:
                self.fail(el, f"needs {attr}=\"…\" ({n} number{'s' if n > 1 else ''})")
            return list(default)
        parts = raw.split()
        if len(parts) != n or not all(_NUMBER.match(s) for s in parts):
            self.fail(el, f"{attr}={short(raw)} must be {n} plain decimal number{'s' if n > 1 else ''}"
                          " (no nan, inf or hex)")
        vals = [float(s) for s in parts]
        if not all(math.isfinite(v) for v in vals):
            self.fail(el, f"{attr}={short(raw)} overflows a float")
        if bound is not None and any(abs(v) > bound for v in vals):
            self.fail(el, f"{attr}={short(raw)} is out of range: {what or 'each'} within ±{bound:g}")
        return vals

    def number(self, el, attr: str, default=None, **kw) -> float:
        return self.numbers(el, attr, 1, None if default is None else (default,), **kw)[0]

    def origin(self, parent):
        o = parent.find("origin")
        if o is not None:
            self.numbers(o, "xyz", 3, (0, 0, 0), bound=MAX_COORD, what="m")
            self.numbers(o, "rpy", 3, (0, 0, 0), bound=MAX_ANGLE, what="rad")

    # names ----------------------------------------------------------------------------------------
    def name(self, el) -> str:
        name = el.get("name")
        if name is None or not name.strip():
            self.fail(el, "needs a non-empty name=\"…\"")
        size = len(name.encode("utf-8"))
        if size > MAX_NAME_BYTES:
            self.fail(el, f"name is {size} bytes long; at most {MAX_NAME_BYTES} (the engine's name buffers "
                          "hold 1024 bytes, a longer name overflows them)")
        if _CONTROL.search(name):
            self.fail(el, "name holds a control character (a newline, a tab…); use printable characters")
        return name

    # files ----------------------------------------------------------------------------------------
    def file(self, el, suffixes: tuple[str, ...], kind: str) -> None:
        raw = el.get("filename")
        if raw is None or not raw.strip():
            self.fail(el, "needs filename=\"…\"")
        allowed = f"a {kind} file ({', '.join(suffixes)}) inside the URDF's folder, given relative to it"
        if "://" in raw or raw.startswith(("package:", "file:")):
            self.fail(el, f"filename={short(raw)}: a URL or package:// path; must be {allowed}")
        if "\x00" in raw or _CONTROL.search(raw):
            self.fail(el, f"filename={short(raw)} holds a control character")
        if len(raw.encode("utf-8")) > MAX_NAME_BYTES:
            self.fail(el, f"filename is {len(raw.encode())} bytes long; at most {MAX_NAME_BYTES}")
        if os.path.isabs(raw) or raw.startswith("~"):
            self.fail(el, f"filename={short(raw)} is absolute; must be {allowed}")
        if self.folder is None:
            self.fail(el, f"filename={short(raw)}: a file robot given as text cannot name files")
        base = os.path.realpath(self.folder)
        target = os.path.realpath(os.path.join(base, raw))
        if os.path.commonpath([base, target]) != base:
            self.fail(el, f"filename={short(raw)} leads outside the URDF's folder; must be {allowed}")
        if len(target.encode("utf-8")) > MAX_NAME_BYTES:
            self.fail(el, f"filename={short(raw)}: its full path is longer than {MAX_NAME_BYTES} bytes "
                          "(the engine's path buffer)")
        try:
            st = os.stat(target)
        except OSError as exc:
            self.fail(el, f"filename={short(raw)}: {exc.strerror or 'cannot be read'}; must be {allowed}")
        if not stat.S_ISREG(st.st_mode):
            self.fail(el, f"filename={short(raw)} is not a regular file; must be {allowed}")
        if not os.access(target, os.R_OK):
            self.fail(el, f"filename={short(raw)} cannot be read (permission denied)")
        if not target.lower().endswith(suffixes):
            self.fail(el, f"filename={short(raw)} is not a format the engine reads; must be {allowed}")
        if st.st_size == 0:
            self.fail(el, f"filename={short(raw)} is empty")
        if st.st_size > MAX_MESH_BYTES:
            self.fail(el, f"filename={short(raw)} is {st.st_size / 1024**2:.0f} MiB; at most "
                          f"{MAX_MESH_BYTES // 1024**2} MiB")

    def geometry(self, parent) -> None:
        g = parent.find("geometry")
        if g is None:
            self.fail(parent, "needs a <geometry>")
        shapes = [c for c in g if c.tag in ("box", "sphere", "cylinder", "capsule", "mesh")]
        if len(shapes) != 1:
            self.fail(g, "needs exactly one of <box>, <sphere>, <cylinder>, <capsule>, <mesh>")
        s = shapes[0]
        positive = dict(bound=MAX_COORD, what="m")
        if s.tag == "box":
            vals = self.numbers(s, "size", 3, **positive)
        elif s.tag == "sphere":
            vals = [self.number(s, "radius", **positive)]
        elif s.tag in ("cylinder", "capsule"):
            vals = [self.number(s, "radius", **positive), self.number(s, "length", **positive)]
        else:
            scale = self.numbers(s, "scale", 3, (1, 1, 1), bound=MAX_SCALE, what="times")
            if any(v == 0 for v in scale):
                self.fail(s, "scale has a zero factor; each must be non-zero")
            self.file(s, MESH_SUFFIXES, "mesh")
            vals = [1.0]
        if any(v <= 0 for v in vals):
            self.fail(s, f"sizes must be positive (m), got {vals}")

    # the elements ---------------------------------------------------------------------------------
    def link(self, el) -> str:
        name = self.name(el)
        inertial = el.find("inertial")
        if inertial is None:
            self.fail(el, "has no <inertial>; every link needs its <mass> and <inertia> (the engine would "
                          "give it 1 kg and a unit inertia)")
        self.origin(inertial)
        m_el = inertial.find("mass")
        if m_el is None:
            self.fail(inertial, "needs <mass value=\"…\"/>")
        m = self.number(m_el, "value")
        if not 0.0 < m <= MAX_MASS:
            self.fail(m_el, f"mass {m:g} kg; must be in (0, {MAX_MASS:g}] kg")
        i_el = inertial.find("inertia")
        if i_el is None:
            self.fail(inertial, "needs <inertia ixx=… ixy=… ixz=… iyy=… iyz=… izz=…/>")
        v = {k: self.number(i_el, k, 0.0 if k in ("ixy", "ixz", "iyz") else None, bound=MAX_INERTIA, what="kg·m²")
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        tensor = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                           [v["ixz"], v["iyz"], v["izz"]]])
        scale = float(np.abs(tensor).max())
        moments = np.linalg.eigvalsh(tensor) if scale > 0 else np.zeros(3)
        if not moments.min() > 1e-12 * scale or scale == 0:
            self.fail(i_el, "inertia is not positive definite (every principal moment must be > 0 kg·m²)")
        a, b, c = sorted(moments)
        if a + b < c * (1 - TRIANGLE_RTOL):
            self.fail(i_el, f"principal moments {a:.4g}, {b:.4g}, {c:.4g} kg·m² break the triangle inequality "
                            "(no rigid body has one moment larger than the other two together)")
        for tag in ("visual", "collision"):
            for part in el.findall(tag):
                self.origin(part)
                self.geometry(part)
                mat = part.find("material")
                if mat is not None:
                    color = mat.find("color")
                    if color is not None:
                        rgba = self.numbers(color, "rgba", 4)
                        if any(not 0 <= x <= 1 for x in rgba):
                            self.fail(color, "rgba must be four numbers in [0, 1]")
                    tex = mat.find("texture")
                    if tex is not None:
                        self.file(tex, TEXTURE_SUFFIXES, "texture")
        return name

    def joint(self, el, links: set[str]) -> tuple[str, str, str, str, float]:
        name = self.name(el)
        kind = el.get("type")
        if kind not in JOINT_TYPES:
            self.fail(el, f"type={short(kind or '')}; allowed: {', '.join(JOINT_TYPES)}")
        ends = {}
        for role in ("parent", "child"):
            found = el.findall(role)
            if len(found) != 1:
                self.fail(el, f"needs exactly one <{role} link=\"…\"/>, has {len(found)}")
            link = found[0].get("link")
            if link is None:
                self.fail(found[0], "needs link=\"…\"")
            if link not in links:
                self.fail(found[0], f"names link {short(link)}, which the file does not define")
            ends[role] = link
        if ends["parent"] == ends["child"]:
            self.fail(el, f"joins link {short(ends['parent'])} to itself")
        self.origin(el)
        axis = el.find("axis")
        if axis is not None:
            xyz = self.numbers(axis, "xyz", 3, (1, 0, 0), bound=MAX_COORD)
            if not math.hypot(*xyz) > 1e-9:
                self.fail(axis, "axis is zero; give a direction such as xyz=\"0 0 1\"")
        effort = 0.0
        lim = el.find("limit")
        if lim is not None:
            effort = self.number(lim, "effort", 0.0, bound=1e9, what="N·m or N")
            self.number(lim, "velocity", 0.0, bound=1e9, what="rad/s or m/s")
            self.number(lim, "lower", 0.0, bound=1e9)
            self.number(lim, "upper", 0.0, bound=1e9)
        if kind in MOVABLE and not effort > 0.0:
            self.fail(el, f"is {kind} but has no positive <limit effort=…>; every movable joint needs its torque limit")
        for tag in ("dynamics",):
            d = el.find(tag)
            if d is not None:
                for attr in ("damping", "friction"):
                    if self.number(d, attr, 0.0, bound=1e9) < 0:
                        self.fail(d, f"{attr} must be >= 0")
        return name, kind, ends["parent"], ends["child"], effort


def validate(data: bytes | str, folder: Path | None, label: str) -> UrdfSummary:
    """Check a URDF (``data``, the file ``label`` in ``folder``; ``folder`` None for generated text, which
    then may name no files) against every rule of this module; raise :class:`UrdfError` on the first
    problem, in document order (the file, then each link, then each joint, then the tree)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        raise UrdfError(f"{label}: is {len(data) / 1024**2:.1f} MiB; a URDF of at most "
                        f"{MAX_FILE_BYTES // 1024**2} MiB is read")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UrdfError(f"{label}: not a UTF-8 text file (byte {exc.start})") from None
    root, lines = parse(data, label)
    ck = _Checker(label, folder, lines, root)
    if root.tag != "robot":
        ck.fail(root, f"not a URDF file (root element <{root.tag}>, expected <robot>)")
    robot = root.get("name", "")
    if len(robot.encode("utf-8")) > MAX_NAME_BYTES or _CONTROL.search(robot):
        ck.fail(root, f"the robot's name must be at most {MAX_NAME_BYTES} bytes of printable characters")
    link_els = root.findall("link")
    if not link_els:
        ck.fail(root, "has no <link>; a robot needs at least one")
    if len(link_els) > MAX_LINKS:
        ck.fail(link_els[MAX_LINKS], f"is link {MAX_LINKS + 1}: at most {MAX_LINKS} links (the engine fails to "
                                     f"read the state of a larger tree, and a 10 000-link chain segfaults)")
    names: list[str] = []
    seen: set[str] = set()
    for el in link_els:
        name = ck.link(el)
        if name in seen:
            ck.fail(el, "a second link of this name; link names must be unique")
        seen.add(name)
        names.append(name)
    parent_of: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    joint_names: set[str] = set()
    movable = []
    for el in root.findall("joint"):
        name, kind, parent, child, effort = ck.joint(el, seen)
        if name in joint_names:
            ck.fail(el, "a second joint of this name; joint names must be unique")
        joint_names.add(name)
        if child in parent_of:
            ck.fail(el, f"link {short(child)} is already the child of joint {short(parent_of[child])}; "
                        "a link has at most one parent (a URDF is a tree)")
        parent_of[child] = name
        children.setdefault(parent, []).append(child)
        if kind in MOVABLE:
            movable.append((name, kind, effort))
    roots = [n for n in names if n not in parent_of]
    if len(roots) != 1:
        # no root: every link has a parent, so the joints close a loop; several: a forest
        if not roots:
            ck.fail(root, "the joints form a loop (every link is some joint's child); a URDF is a tree")
        ck.fail(root, f"has {len(roots)} root links ({', '.join(short(r, 20) for r in roots[:4])}"
                      f"{'…' if len(roots) > 4 else ''}); every link but one must be a joint's child")
    reached, stack = {roots[0]}, [roots[0]]
    while stack:
        for c in children.get(stack.pop(), ()):
            if c not in reached:
                reached.add(c)
                stack.append(c)
    if len(reached) != len(names):
        lost = next(n for n in names if n not in reached)
        ck.fail(root, f"link {short(lost)} is not connected to the root {short(roots[0])}: its joints form a "
                      "loop; a URDF is a tree")
    return UrdfSummary(robot=robot, links=tuple(names), joints=tuple(movable))


def validate_file(path: Path, label: str) -> UrdfSummary:
    """Read and check the file at ``path`` (``label``: how the user wrote it, for the error line)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise UrdfError(f"must be an existing URDF file, got {label!r} ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise UrdfError(f"must be an existing URDF file, got {label!r} (not a regular file)")
    if st.st_size > MAX_FILE_BYTES:
        raise UrdfError(f"{label}: is {st.st_size / 1024**2:.1f} MiB; a URDF of at most "
                        f"{MAX_FILE_BYTES // 1024**2} MiB is read")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UrdfError(f"{label}: cannot read: {exc.strerror or exc}") from None
    return validate(data, Path(path).resolve().parent, label)


__all__ = ["MAX_LINKS", "MAX_NAME_BYTES", "UrdfError", "UrdfSummary", "validate", "validate_file"]
