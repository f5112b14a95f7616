"""Virtual robot lab: procedural snake, eel and tracked robots on PyBullet, driven by published
controllers, pushed by per-step force laws, and checked against the papers' analytic models.

The Python API (imported on first use, so ``import lab`` stays light):

* :func:`lab.run` — run a scenario (a name from ``lab list`` or a .toml path, with ``--set``-style
  overrides) and get a :class:`lab.Result`: ``.metrics`` (dict), ``.timeseries`` (pandas DataFrame),
  ``.save(out)``;
* :class:`lab.Sim` — build a simulation and ``step()`` it (with the scenario's controller or your
  torques), reading the :class:`lab.core.state.RobotState` snapshot;
* :func:`lab.load_scenario`, :func:`lab.scenarios`, :func:`lab.gui`;
* :func:`lab.register_force`, :func:`lab.register_controller`, :func:`lab.register_robot` — add a force
  law, a controller (GUI panel keys, sweeps and regression runs like a built-in) or a robot from your own
  code; ``[robot] type = "urdf"`` loads any URDF file;
* :mod:`lab.envs` — Gymnasium environments (``pip install 'lab[gym]'``).

See the documentation's "Python API" page (docs/python-api.md) and ``examples/``.
"""

__version__ = "0.1.0"

from lab import _compat

_compat.install()  # old module paths (lab.world, lab.controllers.climbing, …) keep working, with a warning

_API = {
    "run": "lab.api", "gui": "lab.api", "Sim": "lab.api", "Result": "lab.api", "load_scenario": "lab.api",
    "scenarios": "lab.api",
    "register_force": "lab.forces.base", "Wrench": "lab.forces.base",
    "register_controller": "lab.controllers.base", "Controller": "lab.controllers.base",
    "register_robot": "lab.robots.base",
    "LabError": "lab.core.errors", "Diverged": "lab.core.errors",
    "RobotState": "lab.core.state",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'lab' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once imported, a plain attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
