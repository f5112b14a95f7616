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


def _direction(v) -> str:
    """turn.direction in words (lab.papers.wang2011_creeping.analysis.turning: seen from +z,
    counter-clockwise = +1 = left)."""
    return {1: "turns left (counter-clockwise seen from above)", -1: "turns right (clockwise seen from above)",
            0: "straight (arc too short to call a turn)"}.get(v, f"direction {v}")


# Each analysis's headline metrics (lab.core.views.Headline), printed first by `lab run` after the trial's.
# The rhythm's onset is passive creeping's question (Wang 2011 §3: the rhythm emerges from the
# feedback); a serpenoid's joints follow a clock from t = 0, so its runs print the turning circle only.
HEADLINES: dict[str, tuple[Headline, ...]] = {
    "creeping_gait": (
        Headline("time.rhythmic_s", "rhythm onset (Wang 2011 eq. 16)", controllers=("passive_creeping",),
                 missing="no onset by eq. 16's recurrence criterion (passive creeping settles after ~10 s)"),
        Headline("rhythm.period_s", missing="no rhythm yet (see time.rhythmic_s)", controllers=("passive_creeping",)),
        Headline("turn.radius_m", "turning circle of the head path (Wang 2011 Fig 8)", undefined=_straight),
        Headline("turn.direction", words=_direction),
    ),
}


def headlines(names, controller_type: str | None = None) -> tuple[Headline, ...]:
    """The headline metrics of the analyses in ``names``, in order; with ``controller_type``, only those
    that mean something for a run of that controller (:meth:`lab.core.views.Headline.applies`)."""
    return tuple(h for name in names for h in HEADLINES.get(name, ())
                 if controller_type is None or h.applies(controller_type))


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
