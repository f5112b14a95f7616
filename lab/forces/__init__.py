"""Force laws: pure callables ``law(state, t) -> F_W (N, 3) | Wrench`` applied by the World.

``FRICTION`` holds the ground-friction laws of a scenario's ``[friction]`` table; ``FORCES`` the
laws a scenario adds as ``[forces.<name>]`` tables with ``type = "<key>"``. Both are registries
(:mod:`lab.core.registry`): the built-ins are listed in :mod:`lab.core.plugins`, user laws join with
``@lab.register_force(name)``.
"""

from lab.forces.base import FORCES, FRICTION, Wrench, as_wrench, power, register_force, total
from lab.forces.friction import AnisotropicCoulomb, NoFriction, ViscousFriction

__all__ = ["FORCES", "FRICTION", "AnisotropicCoulomb", "NoFriction", "ViscousFriction", "Wrench", "as_wrench",
           "power", "register_force", "total"]
