"""Optional analyses a scenario asks for by name: ``analyses = ["creeping_gait"]`` at its top level.

The generic metrics (:mod:`lab.metrics`) hold for every robot. An analysis that only makes sense for
one paper's gait runs only when the scenario names it; its metrics are added to the run's metrics
after the generic ones. Each entry is ``name → (module, function, what it adds)``; the module is
imported on first use, so naming a paper's analysis here loads nothing until a run asks for it.
The function takes ``(series, scenario)`` and returns a dict of metrics.
"""

from __future__ import annotations

import importlib

ANALYSES: dict[str, tuple[str, str, str]] = {
    "creeping_gait": ("lab.papers.wang2011_creeping.gait", "gait_metrics",
                      "Wang 2011 passive creeping: rhythm onset (eq. 16), turning circle (Fig 8), "
                      "η2 interpretations (Table 2)"),
}


def describe(name: str) -> str:
    """One line saying what the analysis adds."""
    return ANALYSES[name][2]


def run_analyses(names, series: dict, scenario) -> dict:
    """The metrics of every analysis in ``names`` (validated by the scenario loader), in order."""
    out: dict = {}
    for name in names:
        module, func, _ = ANALYSES[name]
        out.update(getattr(importlib.import_module(module), func)(series, scenario))
    return out


__all__ = ["ANALYSES", "describe", "run_analyses"]
