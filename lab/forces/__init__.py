"""Force laws: pure callables ``law(state, t) -> F_W (N, 3)`` applied at the links' COMs."""

from .friction import FRICTION, AnisotropicCoulomb, NoFriction, ViscousFriction

__all__ = ["FRICTION", "AnisotropicCoulomb", "NoFriction", "ViscousFriction"]
