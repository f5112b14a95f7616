"""What a trial adds to a run, as a hook the runner calls without knowing the trial by name.

A scenario selects at most one trial with a ``[trial]`` table (``type = "drag_course"``, …). The
trial's parameters are a frozen, validated dataclass registered with :func:`register_trial`, and that
dataclass is also the hook (like a force law):

``bodies``
    names of the passive bodies the trial adds (force laws such as a tether may name them).
``setup(run)``
    before the run: add those bodies to ``run.world`` (after the robot is loaded). ``run`` is the run's
    :class:`lab.core.observers.RunView` — its scenario, World, controller and bound force laws — in
    every hook, never the Simulation itself.
``stop_condition(run, state0)``
    at the start of the run: a predicate ``done(state) -> bool`` the runner evaluates every
    :data:`CHECK_EVERY` steps (the course is run, the climb is decided), or None to run the full
    duration.
``metrics(run, series)``
    after the run: the trial's own metrics (``drag.*``, ``climb.*``) from the recorded series and
    whatever the trial's controller logged.
``headline``
    the metrics that say what happened (:class:`lab.core.views.Headline`: key, what it is read against);
    ``lab run`` prints them first.
``views()``
    the trial's own plots (:class:`lab.core.views.View`), written beside the robot's and the generic ones.

Runtime values a trial needs between hooks (the start COM) live in the closure ``stop_condition``
returns, so the parameters stay immutable and the same scenario gives the same run.
"""

from __future__ import annotations

from typing import Callable, ClassVar

from lab.core.fields import Validated
from lab.core.registry import Registry, registry

from lab.core.runner import STOP_CHECK_EVERY as CHECK_EVERY  # noqa: E402 - steps between stop-condition evaluations

TRIALS: Registry[type] = registry("trial")  # the built-ins are listed in lab.core.plugins


def register_trial(name: str):
    """Register a trial's parameter dataclass under ``[trial] type = name``."""
    return TRIALS.register(name)


class Trial(Validated):
    """Default hooks: no bodies, no stop condition, no metrics."""

    bodies: ClassVar[tuple[str, ...]] = ()
    headline: ClassVar[tuple] = ()  # lab.core.views.Headline, printed first by `lab run`

    def setup(self, sim) -> None:
        pass

    def stop_condition(self, sim, state0) -> Callable | None:
        return None

    def metrics(self, sim, series: dict) -> dict:
        return {}

    def views(self) -> tuple:
        """The trial's own plots (:class:`lab.core.views.View`). Default: none."""
        return ()

    def validate_scenario(self, robot, controller, arena, sim) -> None:
        """Cross-section checks (``ValueError("field: …")``), e.g. a controller the trial needs."""


__all__ = ["CHECK_EVERY", "TRIALS", "Trial", "register_trial"]
