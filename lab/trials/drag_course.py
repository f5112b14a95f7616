"""The drag trial (Wang 2011 §4.3, Figs 12–14): the robot drags an unknown payload along a straight
course split into halves; time and mean joint amplitude per half.

``[trial] type = "drag_course"`` adds the payload (a box on the ground with its own engine
friction, ``payload_distance`` behind the tail's rear end along the initial heading) and ends the run
once the robot's COM has advanced ``length`` along the initial heading. The rope is a force law
(``[forces.tether] type = "tether"``, ``body = "payload"``), so the trial itself pushes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..fields import count, num, vector
from ..robots.urdf import box_urdf
from .base import Trial, register_trial


@register_trial("drag_course")
@dataclass(frozen=True)
class DragCourse(Trial):
    """Course and payload. Defaults: the paper's 60 cm in two 30 cm halves and a 1 kg box; the box's
    engine friction multiplies the ground's coefficient 1 (Bullet takes the product)."""

    length: float = num(0.6, ge=0.01, le=1000, unit="m", doc="course length along the initial heading")
    halves: int = count(2, 1, 100, doc="the course is timed in this many equal parts")
    payload_mass: float = num(1.0, ge=0.001, le=1000, unit="kg", doc="the dragged box's mass")
    payload_size: tuple[float, float, float] = vector((0.1, 0.08, 0.05), length=3, ge=0.005, le=5, unit="m",
                                                      noun="edge lengths", doc="the box's edges (x, y, z)")
    payload_friction: float = num(0.3, ge=0, le=5, doc="the box's engine friction coefficient on the ground")
    payload_distance: float = num(0.15, ge=0, le=10, unit="m", doc="box COM behind the tail's rear end")

    bodies = ("payload",)

    # ------------------------------------------------------------------ hooks
    def setup(self, sim) -> None:
        sc, spec = sim.scenario, sim.scenario.robot
        heading = math.radians(sc.init.heading_deg)
        world = sim.world
        pid = world.add_body("payload", box_urdf("payload", self.payload_mass, self.payload_size),
                             self.payload_position(sc, spec), heading)
        # the payload keeps real engine friction on the ground: it is not part of the robot model
        world.client.changeDynamics(pid, -1, lateralFriction=self.payload_friction, restitution=0.0)

    def stop_condition(self, sim, state0):
        u, com0 = heading_unit(sim.scenario), state0.com_W[:2].copy()
        length = self.length
        return lambda s: float((s.com_W[:2] - com0) @ u) >= length

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
    """``drag.*`` metrics: completion and, per part of the course, the time taken and the mean joint
    amplitude (half the peak-to-peak joint angle, averaged over the joints) during that part."""
    t = series["t"]
    com = series["xy"].mean(axis=1)  # identical module masses
    s = progress(com, com[0], scenario)
    n = course.halves
    marks = [course.length * (i + 1) / n for i in range(n)]
    m: dict = {"drag.progress_m": float(s[-1]) if len(s) else 0.0}
    t_prev, i_prev = 0.0, 0
    completed = True
    for i, mark in enumerate(marks, start=1):
        hit = np.nonzero(s >= mark)[0]
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
