"""Optional analyses a scenario asks for by name: ``analyses = ["creeping_gait"]`` at its top level.

The generic metrics (:mod:`lab.metrics`) hold for every robot. An analysis that only makes sense for
one paper's gait runs only when the scenario names it; its metrics are added to the run's metrics
after the generic ones. Analyses are plugins like every other kind: a function
``(series, scenario) -> dict`` registered with :func:`register_analysis` (the built-ins are listed in
:mod:`lab.plugins`, so naming a paper's analysis loads nothing until a lookup needs it).
"""

from __future__ import annotations

from collections.abc import Callable

from .registry import Registry

ANALYSES: Registry[Callable] = Registry("analysis")
register_analysis = ANALYSES.register


def describe(name: str) -> str:
    """One line saying what the analysis adds (the first line of its docstring)."""
    return ((ANALYSES[name].__doc__ or "").strip().splitlines() or [""])[0]


def run_analyses(names, series: dict, scenario) -> dict:
    """The metrics of every analysis in ``names`` (validated by the scenario loader), in order."""
    out: dict = {}
    for name in names:
        out.update(ANALYSES[name](series, scenario))
    return out


__all__ = ["ANALYSES", "describe", "register_analysis", "run_analyses"]
