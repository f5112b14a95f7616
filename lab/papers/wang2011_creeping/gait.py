"""The passive-creeping gait analyses of Wang 2011, run on a scenario that asks for them
(``analyses = ["creeping_gait"]``, see :mod:`lab.analysis.registry`): the creeping paper's scenarios
(snake_passive_creeping, snake_serpenoid, snake_drag) do.

- rhythm onset and period from the joint torques' recurrence (eq. 16): ``time.rhythmic_s``,
  ``rhythm.*`` (:func:`lab.analysis.recurrence.rhythm_metrics`);
- the turning circle of the head path (Fig 8): ``turn.*`` (:func:`lab.papers.wang2011_creeping.analysis.turning.turning_metrics`).
  On a straight path (``turn.direction`` = 0) the circle is undefined: ``turn.radius_m`` is inf
  (written as null) and the raw fitted radius ``turn.radius_fit_m`` — a meaningless 10⁷ m on a
  straight run — is left out;
- the η2 interpretations of Table 2: ``energy.eta2_com``, ``energy.omega_per_v_rad_m``
  (:func:`lab.papers.wang2011_creeping.analysis.energy.eta2_interpretations`).

They assume the plain snake of the paper: a chain of identical modules, link 0 the tail and the
last link the head.
"""

from __future__ import annotations

import numpy as np

from lab.analysis.registry import register_analysis
from lab.analysis.recurrence import rhythm_metrics
from lab.papers.wang2011_creeping.analysis.energy import eta2_interpretations
from lab.papers.wang2011_creeping.analysis.turning import turning_metrics


@register_analysis("creeping_gait")
def gait_metrics(series: dict, scenario) -> dict:
    """Wang 2011 passive creeping: rhythm onset (eq. 16), turning circle (Fig 8), η2 interpretations (Table 2).

    Empty for a run too short to analyse or a robot with fewer than two joints."""
    if series["q"].shape[1] < 2 or len(series["t"]) < 3:
        return {}
    m = {}
    m.update(rhythm_metrics(series))
    m.update(eta2_interpretations(series))
    c = scenario.controller
    omega = getattr(c, "xd_omega", None) or getattr(c, "omega", None)
    turn = turning_metrics(series, period=2 * np.pi / omega if omega else None)
    if turn["turn.direction"] == 0:
        turn.pop("turn.radius_fit_m")  # no circle on a straight path: its fitted radius means nothing
    m.update(turn)
    return m
