"""Force laws: pure callables ``law(state, t) -> F_W (N, 3) | Wrench`` applied by the World.

``FRICTION`` holds the ground-friction laws of a scenario's ``[friction]`` table; ``FORCES`` the
laws a scenario adds as ``[forces.<name>]`` tables with ``type = "<key>"``.
"""

from .base import Wrench, as_wrench, power, total
from .friction import FRICTION, AnisotropicCoulomb, NoFriction, ViscousFriction

FORCES: dict[str, type] = {}


def register_force(name: str):
    def deco(cls):
        FORCES[name] = cls
        return cls

    return deco


def _load_optional():
    """Laws contributed by later features register themselves on import."""
    import importlib

    for mod in ("tether", "hydrodynamics", "cleats"):
        try:
            importlib.import_module(f"{__name__}.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{mod}":
                raise


_load_optional()

__all__ = ["FORCES", "FRICTION", "AnisotropicCoulomb", "NoFriction", "ViscousFriction", "Wrench", "as_wrench",
           "power", "register_force", "total"]
