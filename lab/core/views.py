"""What a run shows: the plots and the headline metrics its robot, trial and analyses declare.

Two small declarations, no engine and no matplotlib here (so robot and trial modules may import them):

:class:`View`
    one PNG of a run folder: its file stem and a ``draw(run) -> Figure`` function (``run`` is the
    :class:`lab.core.runner.RunResult`). The robot declares its views with
    :meth:`lab.robots.base.Robot.views` (a chain: the top view of every module's path; the tracked
    robot: the side view on the step and its pitch and arm angle), the trial with
    :meth:`lab.trials.base.Trial.views` (head tracking: the head's path over its reference). The generic
    plots every run gets (energy balance, kinetic energy, actuated joints) are
    :func:`lab.analysis.plots.run_plots`' own.

:class:`Headline`
    a metric that says what happened in this run (``climb.success``, ``pfl.head_rms_error_m``), with
    the tolerance or the paper's value it is read against where one exists. Declared by the trial
    (:attr:`lab.trials.base.Trial.headline`), the analyses a scenario asks for (:data:`lab.analysis.registry.HEADLINES`)
    and the robot (:meth:`lab.robots.base.Robot.headline`); ``lab run`` prints them first
    (:func:`summary_lines`), then the generic metrics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class View:
    """One plot of a run: written as ``<name>.png`` by :func:`lab.analysis.plots.run_plots`."""

    name: str
    draw: Callable  # (RunResult) -> matplotlib Figure
    doc: str = ""


@dataclass(frozen=True)
class Headline:
    """A headline metric. ``against``: what it is read against, in words (a tolerance with its source,
    a paper's value); ``undefined``: ``metrics -> reason or None``, for a metric whose number means
    nothing in this run (the fitted turning radius of a straight path): printed as "—" with the reason;
    ``missing``: the reason printed when the metric is absent or NaN (the event did not happen);
    ``controllers``: the controller types whose runs the metric means something for (empty: every run),
    so a run never prints another controller's commentary; ``words``: ``value -> text``, the value said in
    words (a turn direction's sign as "left" or "right"), printed in place of the label."""

    key: str
    label: str = ""
    against: str = ""
    undefined: Callable[[dict], str | None] | None = None
    missing: str = "undefined in this run"  # why the metric can be absent or NaN (printed after "—")
    optional: bool = False  # absent → not printed at all (a metric only some runs of the trial have)
    controllers: tuple[str, ...] = ()  # only for runs of these controller types (empty: every run)
    words: Callable[[object], str] | None = None  # the value in words (replaces the label)

    def applies(self, controller_type: str) -> bool:
        """True if this headline means something for a run of ``controller_type``."""
        return not self.controllers or controller_type in self.controllers


# Every file name the built-in views write (lab.core.outputs.KINDS["run"] lists them with the run's other files).
PLOT_FILES = ("trajectories.png", "joint_angles.png", "torques.png", "energy.png", "energy_balance.png",
              "side_view.png", "pitch_arm.png", "heading.png", "head_tracking.png")

GENERIC = ("energy.balance_residual_rel", "energy.input_work_J", "com.displacement_m", "com.speed_mean_mps",
           "head.path_length_m", "energy.kinetic_mean_J")


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "—" if not math.isfinite(v) else f"{v:.4g}"
    return str(v)


def summary_lines(metrics: dict, headlines, generic=GENERIC) -> list[str]:
    """The summary ``lab run`` prints: the headline metrics first (label, value, what they are read
    against), then the generic ones. A headline that is absent or NaN prints "—" with the reason."""
    rows: list[tuple[str, str, str]] = []
    seen = set()
    for h in headlines:
        seen.add(h.key)
        v = metrics.get(h.key)
        if v is None and h.optional:
            continue
        why = h.undefined(metrics) if h.undefined is not None and v is not None else None
        if why:
            rows.append((h.key, "—", why))
        elif v is None or (isinstance(v, float) and not math.isfinite(v)):
            rows.append((h.key, "—", h.missing))
        else:
            note = (h.words(v) if h.words is not None else h.label) + (f" [{h.against}]" if h.against else "")
            rows.append((h.key, _fmt(v), note.strip()))
    lines = []
    width = max([len(k) for k, _, _ in rows] + [len(k) for k in generic] + [1])
    if rows:
        lines.append("  headline:")
        for k, v, note in rows:
            lines.append(f"    {k:<{width}}  {v:<10}" + (f"  {note}" if note else ""))
        lines.append("  generic:")
    for k in generic:
        if k in metrics and k not in seen:
            lines.append(f"    {k:<{width}}  {_fmt(metrics[k])}")
    return lines


__all__ = ["GENERIC", "PLOT_FILES", "Headline", "View", "summary_lines"]
