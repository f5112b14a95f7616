"""Any robot from a URDF file: ``[robot] type = "urdf"``, ``path = "my_robot.urdf"``.

The file is loaded as written (with ``URDF_USE_INERTIA_FROM_FILE``: the inertias it states are the ones
simulated), with the same engine set-up as the procedural robots (zero link damping, velocity motors
off, torque control, engine friction ``engine_friction``). The joints' torque limits come from the file:
every movable joint must state ``<limit effort="…">`` > 0. The lab's controllers clip at one scalar
``effort``; for a file robot that is the *smallest* of its joints' limits, so no joint is driven past its
own; each joint's limit is also in ``ModelInfo.joint_effort`` (read from the loaded body).

``path`` is absolute or relative to the scenario file that sets it (on the command line: to the working
directory), or ``lab:<robot>/<robot>.urdf`` for one of the
lab's committed robot files (``assets/urdf/``); mesh files are resolved relative to the URDF file (the
World loads the file in place). ``rest_height`` (the base link's height when the robot rests on flat
ground), ``link_length`` (the characteristic link length of the force laws and metrics) and the head link
are measured from the file's collision geometry (:mod:`lab.robots.urdf_measure`) unless the scenario sets
them; a set value that contradicts the geometry is warned about with both numbers.

The engine never sees a file the lab has not checked in full (:mod:`lab.robots.urdf_validate`: names
within PyBullet's buffers, at most 128 links, a tree, positive masses, valid inertias, bounded numbers,
mesh files inside the URDF's folder): when the spec is built and again when the World asks for
:attr:`UrdfFileSpec.file` to load it. The first problem is a ``ValueError`` naming ``path``, the file,
its line and the element, which the scenario loader turns into one ``error:`` line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from lab.core.fields import info, num
from lab.core.resources import asset_dir
from lab.robots.base import Robot, register_robot
from lab.robots.urdf import MassProps
from lab.robots.urdf_measure import fill_measured, origin
from lab.robots.urdf_validate import MOVABLE, UrdfError, UrdfSummary, validate, validate_file  # MOVABLE: joints driven


LAB_PREFIX = "lab:"  # lab:<robot>/<robot>.urdf names a file under the lab's assets/urdf/
DEFAULT_PATH = "lab:snake/snake.urdf"  # the lab's own snake, so the defaults load on any machine


def resolve(path: str) -> Path:
    """The file ``path`` names: ``lab:…`` under the lab's assets/urdf/ (and only there: ``lab:../x`` or a
    link out of the assets is refused), else as given (~ expanded)."""
    if path.startswith(LAB_PREFIX):
        base = asset_dir().resolve()
        target = (base / path[len(LAB_PREFIX):]).resolve()
        if target != base and base not in target.parents:
            raise UrdfError(f"{path!r} leads outside the lab's assets/urdf/; lab:<robot>/<robot>.urdf names one "
                            "of the lab's robot files")
        return target
    return Path(path).expanduser()


def read_joints(text: str, where: str = "path") -> list[tuple[str, str, float]]:
    """(name, type, effort N·m or N) of every movable joint in document order, from URDF ``text`` checked
    by :func:`lab.robots.urdf_validate.validate` (text names no mesh files); ``UrdfError("path: …")``
    (a ``ValueError``) on the first problem."""
    try:
        return list(validate(text, None, "<text>").joints)
    except UrdfError as exc:
        raise UrdfError(exc.what, where) from None


@register_robot("urdf")
@dataclass(frozen=True)
class UrdfFileSpec(Robot):
    """A robot read from a URDF file (the defaults load the lab's own snake asset)."""

    default_asset: ClassVar[bool] = False  # nothing to generate under assets/urdf/

    path: str = info(DEFAULT_PATH, doc="the URDF file: absolute, relative to the scenario file (--set: to the "
                                      "working directory), or lab:<robot>/<robot>.urdf for a file of the lab's "
                                      "assets/urdf/")
    rest_height: float = num(math.nan, ge=0, le=100, unit="m",
                             doc="base link height at rest on flat ground (default: measured from the URDF)")
    link_length: float = num(math.nan, gt=0, le=100, unit="m",
                             doc="characteristic link length, force laws and metrics (default: the joint spacing)")
    engine_friction: float = num(0.0, ge=0, le=10, doc="the engine's own lateral friction on every link")

    def __post_init__(self):
        super().__post_init__()
        if not self.path or not isinstance(self.path, str):
            raise ValueError(f"path: must be an existing URDF file, got {self.path!r}")
        self.check()  # the whole file, before the engine ever sees it (lab.robots.urdf_validate)
        fill_measured(self)  # rest_height, link_length from the file's geometry unless set (lab.robots.urdf_measure)

    @property
    def head_link(self) -> str | None:
        """The tip of the longest joint chain from the base (measured; lab.robots.urdf_measure)."""
        return self._measured.head_link

    def field_origin(self, name: str) -> str:
        """Where a field's value came from, for ``lab show``: measured from the URDF or set."""
        return origin(self, name)

    def check(self) -> UrdfSummary:
        """The file checked in full now (raises :class:`UrdfError`, a ``ValueError`` naming ``path``)."""
        return validate_file(resolve(self.path), self.path)

    def text(self) -> str:
        return resolve(self.path).read_text(encoding="utf-8")

    @property
    def file(self) -> Path:
        """The file itself: the World loads it in place, so relative mesh paths resolve. Checked again
        here, as the World asks for it right before loading: a file edited since the scenario was built
        is refused rather than handed to the engine unchecked."""
        self.check()
        return resolve(self.path).resolve()

    @property
    def n_links(self) -> int:
        """The file's number of links (the scenario's record-size bound counts them)."""
        return self.check().n_links

    def joint_limits(self) -> list[tuple[str, str, float]]:
        return list(self.check().joints)

    @property
    def effort(self) -> float:
        """The smallest of the movable joints' effort limits (the scalar the controllers clip at); 0 joints: 0."""
        lims = [e for _, _, e in self.joint_limits()]
        return min(lims) if lims else 0.0

    def to_urdf(self) -> str:
        return self.text()

    def mass_props(self) -> MassProps:  # pragma: no cover - a file robot has no single module
        raise NotImplementedError("a URDF file robot has no procedural module: read ModelInfo.mass")


__all__ = ["UrdfFileSpec", "read_joints", "resolve"]
