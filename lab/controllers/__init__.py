"""Controllers by scenario ``type``: name -> (params dataclass, controller class)."""

from .passive_creeping import PassiveCreeping, PassiveCreepingParams
from .serpenoid import Serpenoid, SerpenoidParams

CONTROLLERS = {
    "passive_creeping": (PassiveCreepingParams, PassiveCreeping),
    "serpenoid": (SerpenoidParams, Serpenoid),
}


def make_controller(kind: str, params):
    return CONTROLLERS[kind][1](params)


__all__ = ["CONTROLLERS", "make_controller", "PassiveCreeping", "PassiveCreepingParams", "Serpenoid", "SerpenoidParams"]
