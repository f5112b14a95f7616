"""The tracked robot's faults (Hu 2013).

Faults of the matrix (``lab check --faults``, :mod:`lab.checks.faults`) that only Hu 2013's checks can
catch: each a plausible wrong edit of this paper's model, robot or controller, restored when its block ends."""

from __future__ import annotations

import contextlib
from dataclasses import replace

from lab.checks.faults import Fault, _setattr, fault


def _uncompensated_margin():
    from lab.robots import tracked

    return _setattr(tracked, "COLLISION_MARGIN", 0.0)


@contextlib.contextmanager
def _model_i2(scale: float):
    """The screw model's i2 scaled (the engine's robot and controller keep theirs)."""
    from lab.papers.hu2013_tracked.model.params import ClimbParams

    orig = ClimbParams.__dict__["from_spec"]

    def from_spec(cls, spec):
        p = orig.__func__(cls, spec)
        return replace(p, i2=p.i2 * scale)

    ClimbParams.from_spec = classmethod(from_spec)
    try:
        yield
    finally:
        ClimbParams.from_spec = orig


fault(Fault(
    "belt_margin_uncompensated",
    "the tracked robot's pulleys roll as r + 1 mm (Bullet's convex margin), the belt runs ~4 % fast",
    "the collision radius written as the pulley radius (COLLISION_MARGIN not subtracted)",
    ("belt_speed", "step_climb", "chain_climb"), "only the tracked robots have a belt",
    patch=_uncompensated_margin))


fault(Fault(
    "gear_ratio_i2_10pct",
    "the screw model's planetary ratio i2 10 % above the robot's (the climb coupling v_d = θ̇ r/i2 and the "
    "peak torque's r/i2 term)",
    "a ratio typed wrong in the model's parameters (Hu 2013 Table 1: 3/8)",
    ("step_climb",), "only Hu 2013's model has an i2",
    patch=lambda: _model_i2(1.1)))


fault(Fault(
    "connector_ratio_x0.1",
    "the tracked chain's connector motors geared 72:1 instead of 720:1 (each joint 1.35 N·m instead of 13.5)",
    "a connector gear ratio typed wrong (Table 1's i0 i1 = 144 × 5 = 720 for a motor of the arm's class)",
    ("chain_climb",), "only the multi-module tracked robot has connectors",
    overrides={"*": ("robot.connector_ratio=72",)}))
