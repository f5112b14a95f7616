"""The drag trial (Wang 2011 §4.3, Figs 12–14): the robot drags an unknown payload along a straight
course split into halves; time and mean joint amplitude per half.

``[trial] type = "drag_course"`` adds the payload (a box on the ground with its own engine
friction, ``payload_distance`` behind the tail's rear end along the initial heading) and ends the run
once the robot's COM has advanced ``length`` along the initial heading from where the clock started.
The rope is a force law (``[forces.tether] type = "tether"``, ``body = "payload"``), so the trial
itself pushes nothing.

The clock: ``clock = "start"`` times the course from t = 0, so a controller that needs
time to start moving (passive creeping builds its coupling gain from zero) has its start-up in the
first part; ``clock = "onset"`` starts it at motion onset (:mod:`lab.analysis.onset`: the COM's
trailing-window speed over ``onset_window`` reaches ``onset_speed`` and stays there ``onset_hold``),
and the course is measured from the COM's position there. ``drag.onset_s`` is reported either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lab.analysis.onset import OnsetDetector, motion_onset
from lab.core.fields import choice, count, num, vector
from lab.robots.urdf import box_urdf
from lab.core.views import Headline
from lab.trials.base import CHECK_EVERY, Trial, register_trial

STOP_MARGIN_M = 0.02  # the run goes this far past the course's end, so the recorded series (sampled on
# another cadence than the stop check) always holds the whole course


@register_trial("drag_course")
@dataclass(frozen=True)
class DragCourse(Trial):
    """Course and payload. Defaults: the paper's 60 cm in two 30 cm halves and a 1 kg box; the box's
    engine friction multiplies the ground's coefficient 1 (Bullet takes the product)."""

    headline = (Headline("drag.completed", "the whole course run with the payload in tow",
                         missing="the course was not finished"),
                Headline("drag.half1_s", "time over the first half of the course (Wang 2011 Figs 12–14)",
                         missing="the first half was not finished in this run"),
                Headline("drag.half2_s", "time over the second half", missing="the second half was not finished"),
                Headline("drag.progress_m", "distance covered along the course"))

    length: float = num(0.6, ge=0.01, le=1000, unit="m", doc="course length along the initial heading")
    halves: int = count(2, 1, 100, doc="the course is timed in this many equal parts")
    payload_mass: float = num(1.0, ge=0.001, le=1000, unit="kg", doc="the dragged box's mass")
    payload_size: tuple[float, float, float] = vector((0.1, 0.08, 0.05), length=3, ge=0.005, le=5, unit="m",
                                                      noun="edge lengths", doc="the box's edges (x, y, z)")
    payload_friction: float = num(0.3, ge=0, le=5, doc="the box's engine friction coefficient on the ground")
    payload_distance: float = num(0.15, ge=0, le=10, unit="m", doc="box COM behind the tail's rear end")
    clock: Literal["start", "onset"] = choice(
        "start", doc="when the timed course begins: at t = 0, or at motion onset (COM trailing-window speed)")
    onset_speed: float = num(0.01, gt=0, le=10, unit="m/s", doc="motion onset: trailing-window COM speed to reach")
    onset_window: float = num(3.14, gt=0, le=100, unit="s",
                              doc="motion onset: window of the COM speed (one gait period cancels the wiggle)")
    onset_hold: float = num(2.0, ge=0, le=100, unit="s", doc="motion onset: the speed must stay up this long")

    bodies = ("payload",)

    # ------------------------------------------------------------------ hooks
    def setup(self, sim) -> None:
        sc, spec = sim.scenario, sim.scenario.robot
        heading = math.radians(sc.init.heading_deg)
        world = sim.world
        pid = world.add_body("payload", box_urdf("payload", self.payload_mass, self.payload_size),
                             self.payload_position(sc, spec), heading)
        # the payload keeps real engine friction on the ground: it is not part of the robot model
        world.set_dynamics(pid, lateralFriction=self.payload_friction, restitution=0.0)

    def detector(self) -> OnsetDetector:
        return OnsetDetector(self.onset_speed, self.onset_window, self.onset_hold)

    def stop_condition(self, sim, state0):
        u, com0 = heading_unit(sim.scenario), state0.com_W[:2].copy()
        end = self.length + (STOP_MARGIN_M if self.clock == "onset" else 0.0)
        if self.clock == "start":
            return lambda s: float((s.com_W[:2] - com0) @ u) >= end
        det = self.detector()
        det.update(state0.t, com0)

        def done(s) -> bool:
            if not det.update(s.t, s.com_W[:2]):
                return False
            return float((s.com_W[:2] - det.c_onset) @ u) >= end

        return done

    def metrics(self, sim, series: dict) -> dict:
        return drag_metrics(series, sim.scenario, self)

    # ------------------------------------------------------------------ geometry
    def payload_position(self, scenario, spec) -> list[float]:
        """Payload COM ``payload_distance`` behind the tail's rear end along the initial heading,
        resting on the ground (so a tether of that length starts just taut)."""
        h = math.radians(scenario.init.heading_deg)
        x0, y0 = scenario.init.position
        back = 0.5 * spec.link_length + self.payload_distance
        return [x0 - back * math.cos(h), y0 - back * math.sin(h), 0.5 * self.payload_size[2]]


def heading_unit(scenario) -> np.ndarray:
    h = math.radians(scenario.init.heading_deg)
    return np.array([math.cos(h), math.sin(h)])


def progress(com_xy: np.ndarray, com0_xy: np.ndarray, scenario) -> np.ndarray:
    """Forward travel of the COM along the initial heading (m)."""
    return (np.asarray(com_xy) - com0_xy) @ heading_unit(scenario)


def drag_metrics(series: dict, scenario, course: DragCourse) -> dict:
    """``drag.*`` metrics: motion onset ``drag.onset_s`` (NaN if the robot never got going), completion
    and, per part of the course (timed from the clock's start: t = 0 or the onset), the time taken and
    the mean joint amplitude (half the peak-to-peak joint angle, averaged over the joints) during that
    part. The onset is recomputed from the recorded COM at the stop check's cadence, the rule the
    run's stop condition applied."""
    t = series["t"]
    com = series["xy"].mean(axis=1)  # identical module masses
    s = progress(com, com[0], scenario)
    n = course.halves
    every = CHECK_EVERY * scenario.sim.dt
    t_on, k_on = motion_onset(t, com, course.onset_speed, course.onset_window, course.onset_hold, every=every)
    m: dict = {"drag.progress_m": float(s[-1]) if len(s) else 0.0, "drag.onset_s": t_on}
    if course.clock == "onset":
        if k_on < 0:  # never got going: no course was run
            m["drag.completed"] = False
            for i in range(1, n + 1):
                m[f"drag.half{i}_s"] = m[f"drag.amp_half{i}_rad"] = float("nan")
            return m
        s = s - s[k_on]
        t_prev, i_prev = float(t[k_on]), k_on
    else:
        t_prev, i_prev = 0.0, 0
    marks = [course.length * (i + 1) / n for i in range(n)]
    completed = True
    for i, mark in enumerate(marks, start=1):
        hit = np.nonzero(s[i_prev:] >= mark)[0] + i_prev  # from where the previous part ended
        if not len(hit):
            completed = False
            m[f"drag.half{i}_s"] = float("nan")
            m[f"drag.amp_half{i}_rad"] = float("nan")
            continue
        j = int(hit[0])
        q = series["q"][i_prev:j + 1]
        m[f"drag.half{i}_s"] = float(t[j] - t_prev)
        m[f"drag.amp_half{i}_rad"] = float((0.5 * (q.max(axis=0) - q.min(axis=0))).mean()) if len(q) else float("nan")
        t_prev, i_prev = float(t[j]), j
    m["drag.completed"] = bool(completed)
    return m


__all__ = ["DragCourse", "drag_metrics", "heading_unit", "progress"]
