"""Optional analyses a scenario asks for by name: ``analyses = ["creeping_gait"]`` at its top level.

The generic metrics (:mod:`lab.core.metrics`) hold for every robot. An analysis that only makes sense for
one paper's gait runs only when the scenario names it; its metrics are added to the run's metrics
after the generic ones. Analyses are plugins like every other kind: a function
``(series, scenario) -> dict`` registered with :func:`register_analysis` (the built-ins are listed in
:mod:`lab.core.plugins`, so naming a paper's analysis loads nothing until a lookup needs it).
"""

from __future__ import annotations

from collections.abc import Callable

from lab.core.registry import Registry, registry
from lab.core.views import Headline

ANALYSES: Registry[Callable] = registry("analysis")
register_analysis = ANALYSES.register


def _straight(m: dict) -> str | None:
    return "straight path: no turning circle" if m.get("turn.direction") == 0 else None


# Each analysis's headline metrics (lab.core.views.Headline), printed first by `lab run` after the trial's.
HEADLINES: dict[str, tuple[Headline, ...]] = {
    "creeping_gait": (
        Headline("time.rhythmic_s", "rhythm onset (Wang 2011 eq. 16)",
                 missing="no onset by eq. 16's recurrence criterion (passive creeping settles after ~10 s)"),
        Headline("rhythm.period_s", missing="no rhythm yet (see time.rhythmic_s)"),
        Headline("turn.radius_m", "turning circle of the head path (Wang 2011 Fig 8)", undefined=_straight),
        Headline("turn.direction", "+1 left, −1 right, 0 straight"),
    ),
}


def headlines(names) -> tuple[Headline, ...]:
    """The headline metrics of the analyses in ``names``, in order."""
    return tuple(h for name in names for h in HEADLINES.get(name, ()))


def describe(name: str) -> str:
    """One line saying what the analysis adds (the first line of its docstring)."""
    return ((ANALYSES[name].__doc__ or "").strip().splitlines() or [""])[0]


def run_analyses(names, series: dict, scenario) -> dict:
    """The metrics of every analysis in ``names`` (validated by the scenario loader), in order."""
    out: dict = {}
    for name in names:
        out.update(ANALYSES[name](series, scenario))
    return out


__all__ = ["ANALYSES", "HEADLINES", "describe", "headlines", "register_analysis", "run_analyses"]
