"""The drag trial (Wang 2011 §4.3, Figs 12–14): the snake drags an unknown payload along a 60 cm
course split into two 30 cm halves; time and mean joint amplitude per half."""

from __future__ import annotations

import math

import numpy as np

from ..robots.urdf import box_urdf


def payload_urdf(cfg) -> str:
    return box_urdf("payload", cfg.mass, cfg.size)


def payload_position(scenario, spec) -> list[float]:
    """Payload COM ``payload.distance`` behind the tail's rear end along the initial heading,
    resting on the ground (so a tether of that length starts just taut)."""
    h = math.radians(scenario.init.heading_deg)
    x0, y0 = scenario.init.position
    back = 0.5 * spec.link_length + scenario.payload.distance
    return [x0 - back * math.cos(h), y0 - back * math.sin(h), 0.5 * scenario.payload.size[2]]


def heading_unit(scenario) -> np.ndarray:
    h = math.radians(scenario.init.heading_deg)
    return np.array([math.cos(h), math.sin(h)])


def progress(com_xy: np.ndarray, com0_xy: np.ndarray, scenario) -> np.ndarray:
    """Forward travel of the COM along the initial heading (m)."""
    return (np.asarray(com_xy) - com0_xy) @ heading_unit(scenario)


def drag_metrics(series: dict, scenario) -> dict:
    """``drag.*`` metrics: completion and, per half of the course, the time taken and the mean joint
    amplitude (half the peak-to-peak joint angle, averaged over the joints) during that half."""
    course = scenario.course
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


__all__ = ["drag_metrics", "payload_position", "payload_urdf", "progress"]
