"""Controllers by scenario ``type``: :data:`CONTROLLERS` maps a name to its (params dataclass, class).

The built-ins are listed in :mod:`lab.core.plugins` and imported on the registry's first lookup; user code
adds its own with ``@lab.register_controller(name, params=…)``. The classes are importable from their
modules (``lab.controllers.serpenoid.Serpenoid``) or, lazily, from this package.
"""

from __future__ import annotations

from lab.controllers.base import CONTROLLERS, Controller, ControllerEntry, make_controller, register_controller

_LAZY = {
    "BeltDrive": "belt_drive", "BeltDriveParams": "belt_drive",
    "PassiveCreeping": "passive_creeping", "PassiveCreepingParams": "passive_creeping",
    "Serpenoid": "serpenoid", "SerpenoidParams": "serpenoid",
}


def __getattr__(name: str):
    mod = _LAZY.get(name)
    if mod is None:
        from lab._compat import moved_attr  # a paper's controller that used to live here

        return moved_attr(__name__, name)
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)


__all__ = ["CONTROLLERS", "Controller", "ControllerEntry", "make_controller", "register_controller", *_LAZY]
