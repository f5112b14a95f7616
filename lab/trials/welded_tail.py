"""The welded tail (Wang 2011 unified dynamics, §4.2): the snake as a manipulator, its tail module fixed to
the world where the robot was loaded (the paper's eq. 26: x¹, x², x³ held).

``[trial] type = "welded_tail"`` makes the robot's URDF base (link 0, the tail) a fixed base. Bullet
does that when a multibody's base mass is set to 0 (PhysicsServerCommandProcessor, changeDynamics:
"handle switch from static/fixedBase to dynamic and vice versa"); the chain's dynamics are then
Featherstone's with a fixed base, exactly, and the tail does not move by a single bit. A
``JOINT_FIXED`` constraint to the world, the other way to weld, is solved by the iterative contact
solver: measured, the tail drifted 7e-8 m in 0.3 s and the joint torques moved by 5e-6 relative —
five orders of magnitude above what the engine-vs-model comparison resolves.

The lab's own record of the robot (``world.model``: masses, inertias, the friction laws' normal
load m g) is read before the trial runs and keeps the tail's 0.5 kg; only the engine's base becomes
static. The tail's own friction force then acts on a body that cannot move and does no work.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from lab.core.fields import choice
from lab.core.views import Headline
from lab.trials.base import Trial, register_trial


@register_trial("welded_tail")
@dataclass(frozen=True)
class WeldedTail(Trial):
    """The tail stays at the scenario's ``[init]`` pose. ``method = "fixed_base"`` (default, exact) or
    ``"constraint"`` (a JOINT_FIXED constraint to the world: soft, kept to show by how much)."""

    headline = (Headline("weld.tail_drift_m", "how far the welded tail moved", against="0 for method = fixed_base"),)

    method: Literal["fixed_base", "constraint"] = choice(
        "fixed_base", doc="'fixed_base': the engine's base made static (exact); 'constraint': a fixed constraint")

    def setup(self, sim) -> None:
        if self.method == "fixed_base":
            sim.world.fix_base()
            # the lab's record says so too: the laws that build the articulated mass matrix
            # (lab.forces.friction.VelocityCoulomb) must not give the static base a mobility
            sim.world.model = replace(sim.world.model, fixed_base=True)
        else:
            sim.world.weld_base_constraint()

    def metrics(self, sim, series: dict) -> dict:
        """``weld.tail_drift_m``: how far the tail's COM moved (0 when the weld holds)."""
        xy = series["xy"][:, 0, :]
        return {"weld.tail_drift_m": float(abs(xy - xy[0]).max()) if len(xy) else 0.0}


__all__ = ["WeldedTail"]
