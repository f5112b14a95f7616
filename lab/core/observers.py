"""Observers of the run loop: what watches a run without being part of its physics.

In the spirit of dm_control's composer hooks, a :class:`lab.core.runner.Simulation` calls each of its
observers at four moments, in the order they were given:

``on_setup(run)``
    once, after the robot, the trial's bodies, the controller and the force laws are built and before
    the first snapshot is read: the one place an observer may set the initial state through
    ``run.world`` (a study that starts the snake on its gait).
``on_start(run, state)``
    once, with the first snapshot.
``on_step(k, pre, tau, parts, post)``
    after every step ``k``: the snapshot the step started from (``pre``), the joint torques the
    motors let through (``tau``), each force law's output by name (``parts``) and the new snapshot
    (``post``). Return :data:`DONE` to end the run early with its status unchanged (a trial that is
    decided), :data:`STOPPED` to end it with status "stopped" (the window was closed), None to go on.
``on_end(run, state, status)``
    once, with the last snapshot and the run's status, whatever ended it.

and ``on_error(exc)`` when the loop raises: an observer that can explain the exception returns the run's
status (the GUI: the engine's client went away because its window was closed → "stopped"); None
otherwise. An unexplained exception propagates.

The recorder, the GUI window, the video writer, the overlays, a progress bar, a trial's stop
condition and a study's probes are observers. None of them touches the physics: the same scenario
and seed give the same numbers with any observers (``tests/core/test_observers.py``). ``run`` is a
:class:`RunView`: what an observer or a trial may see of the Simulation — never its step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DONE = "done"  # on_step: the run is over, status unchanged (a trial decided)
STOPPED = "stopped"  # on_step: the run was stopped from outside (status "stopped")


@dataclass(frozen=True)
class RunView:
    """What trials and observers see of a run: the scenario, the World (to add bodies, set the initial
    state, render), the controller and the bound force laws (to read what they report), and the head
    link's index. Not the Simulation: nothing here steps the run or swaps its parts."""

    scenario: Any
    world: Any
    controller: Any
    forces: dict
    head: int | None
    last_command: Any = None  # () -> the joint torques the controller commanded on the last step (before the motors)

    @property
    def dt(self) -> float:
        return float(self.scenario.sim.dt)


class Observer:
    """Base of the observers: every hook does nothing. Override the ones you need."""

    def on_setup(self, run: RunView) -> None:
        pass

    def on_start(self, run: RunView, state) -> None:
        pass

    def on_step(self, k: int, pre, tau, parts: dict, post) -> str | None:
        return None

    def on_end(self, run: RunView, state, status: str) -> None:
        pass

    def on_error(self, exc: BaseException) -> str | None:
        return None


class Probe(Observer):
    """A study's sampler: ``sample(k, pre, tau, parts, post)`` every ``every`` steps and at the last step
    ``last`` (the samples a study keeps), nothing else."""

    def __init__(self, sample, every: int = 1, last: int | None = None):
        self.sample, self.every, self.last = sample, max(1, int(every)), last

    def on_step(self, k, pre, tau, parts, post):
        if k % self.every == 0 or k == self.last:
            self.sample(k, pre, tau, parts, post)
        return None


__all__ = ["DONE", "STOPPED", "Observer", "Probe", "RunView"]
