"""Old import paths that moved when the lab's folders became its layers (core / library / papers /
tools), kept working with a :class:`DeprecationWarning`.

``import lab.world`` (or ``from lab.controllers.climbing import TrackedClimb``) still works: a
meta-path finder maps the old module name onto the new module, and the two names are the same
module object (so a monkeypatch through either name is seen by both). Attributes that moved out of
a library package into a paper's home (``lab.controllers.TrackedClimb``) resolve through
:func:`moved_attr`. Nothing inside the lab imports an old path; ``tests/core/test_layers.py`` checks it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

_CORE = ("world state engine kernels contacts registry plugins writes errors fields recorder runner scenario "
         "schema resources provenance metrics tolerances outputs views").split()

#: old module name -> new module name
MOVED: dict[str, str] = {f"lab.{m}": f"lab.core.{m}" for m in _CORE}
MOVED["lab.core.results"] = "lab.results"  # briefly in the core; a tool (it draws the plots)
MOVED.update({
    "lab.analyses": "lab.analysis.registry",
    "lab.actuators": "lab.core.actuators",
    "lab.controllers.climbing": "lab.papers.hu2013_tracked.controllers",
    "lab.trials.step_climb": "lab.papers.hu2013_tracked.trials",
    "lab.controllers.eel_fl": "lab.papers.zhang2018_eel.controllers",
    "lab.controllers.head_tracking_pfl": "lab.papers.guo2015_wheeled.controllers",
    "lab.trials.head_tracking": "lab.papers.guo2015_wheeled.trials",
})

#: (old package, attribute) -> the module that now defines it
MOVED_ATTRS: dict[tuple[str, str], str] = {
    ("lab.controllers", "TrackedClimb"): "lab.papers.hu2013_tracked.controllers",
    ("lab.controllers", "TrackedClimbParams"): "lab.papers.hu2013_tracked.controllers",
    ("lab.controllers", "EelFeedbackLinearization"): "lab.papers.zhang2018_eel.controllers",
    ("lab.controllers", "EelFLParams"): "lab.papers.zhang2018_eel.controllers",
    ("lab.controllers", "HeadTrackingPFL"): "lab.papers.guo2015_wheeled.controllers",
    ("lab.controllers", "HeadTrackingPFLParams"): "lab.papers.guo2015_wheeled.controllers",
}


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new}; the old name will go in a later release", DeprecationWarning,
                  stacklevel=3)


def moved_attr(package: str, name: str):
    """An attribute of a library package that moved into a paper's home, with a DeprecationWarning;
    AttributeError as usual for anything else."""
    new = MOVED_ATTRS.get((package, name))
    if new is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    _warn(f"{package}.{name}", f"{new}.{name}")
    return getattr(importlib.import_module(new), name)


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        return importlib.import_module(self.new)

    def exec_module(self, module) -> None:  # already executed under its new name
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        _warn(fullname, new)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
