"""Motion onset from the centre of mass's path (the clock of the drag-course trial, Wang 2011 §4.3).

A serpentine body wiggles in place long before it goes anywhere, so onset is defined from the net
progress of the COM, not from its instantaneous speed: the *trailing-window speed*

    v̄(t) = |c(t) − c(t − W)| / W

(c the COM's horizontal position, W about one gait period, so the lateral wiggle cancels; before
t₀ + W the robot is taken to have rested at its first position, as every run starts at rest) must reach
``v_on`` and stay there for ``hold`` seconds; onset is the first sample at which it reached it. The
window is trailing (past samples only), so the one rule, :class:`OnsetDetector`, starts a trial's
clock during a run and gives the same answer afterwards from the recorded series
(:func:`motion_onset` feeds it the samples).

For a COM that starts moving at t₀ with speed v (a step), v̄ crosses v_on at t₀ + W·v_on/v; for a
speed ramp v = a(t − t₀) it crosses at t₀ + v_on/a + W/2 (the window's mean lag). A wiggle in place
(no net progress over a window) never crosses.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np


class OnsetDetector:
    """Feed ``update(t, c)`` samples in time order; ``onset`` is NaN until decided, then the time
    the trailing-window speed first reached ``v_on`` in a stretch that lasted ``hold``; ``c_onset``
    is the COM there (where a timed course begins). Keeps only the last W + hold seconds."""

    def __init__(self, v_on: float, window: float, hold: float):
        if not (v_on > 0 and window > 0 and hold >= 0):
            raise ValueError("onset: needs v_on > 0, window > 0, hold >= 0")
        self.v_on, self.window, self.hold = float(v_on), float(window), float(hold)
        self._past: deque = deque()  # (t, c) samples back to t − W
        self._first: tuple | None = None  # (t, c) of the first sample of the current stretch above v_on
        self.onset = float("nan")
        self.c_onset: np.ndarray | None = None

    @property
    def decided(self) -> bool:
        return not math.isnan(self.onset)

    def speed(self, t: float, c: np.ndarray) -> float:
        """v̄ at (t, c) from the stored past (c(t − W) interpolated, the first sample before it)."""
        past = self._past
        if not past:
            return float("nan")
        ts = np.fromiter((s[0] for s in past), float, len(past))
        cs = np.array([s[1] for s in past])
        back = np.array([np.interp(t - self.window, ts, cs[:, d]) for d in range(cs.shape[1])])
        return float(np.linalg.norm(c - back) / self.window)

    def update(self, t: float, c) -> bool:
        """Add one sample; True once onset is decided (later samples are then ignored)."""
        if self.decided:
            return True
        t = float(t)
        c = np.array(c, float).reshape(-1)
        v = self.speed(t, c)
        self._past.append((t, c))
        while len(self._past) > 2 and t - self._past[1][0] >= self.window:
            self._past.popleft()  # keep one sample at or before t − W for the interpolation
        if not math.isnan(v) and v >= self.v_on:
            if self._first is None:
                self._first = (t, c)
            if t - self._first[0] >= self.hold - 1e-9:
                self.onset, self.c_onset = self._first
                return True
        else:
            self._first = None
        return False


def motion_onset(t, c, v_on: float, window: float, hold: float, every: float = 0.0) -> tuple[float, int]:
    """Onset of a recorded COM path c(t) (samples × 2): ``(time, sample index)``, ``(NaN, -1)`` if
    it never happens. ``every`` > 0 feeds only samples at least that far apart (the cadence at which
    a trial's stop condition saw the run), so the answer matches the online one."""
    det = OnsetDetector(v_on, window, hold)
    t = np.asarray(t, float)
    c = np.asarray(c, float).reshape(len(t), -1)
    last = -math.inf
    for k in range(len(t)):
        if every > 0 and t[k] - last < every - 1e-9:
            continue
        last = t[k]
        if det.update(t[k], c[k]):
            return det.onset, int(np.searchsorted(t, det.onset - 1e-12))
    return float("nan"), -1


def trailing_speed(t, c, window: float) -> np.ndarray:
    """v̄ at every sample (the first sample stands for every time before it), for plots."""
    t = np.asarray(t, float)
    c = np.asarray(c, float).reshape(len(t), -1)
    back = np.column_stack([np.interp(t - window, t, c[:, d]) for d in range(c.shape[1])])
    return np.linalg.norm(c - back, axis=1) / window


__all__ = ["OnsetDetector", "motion_onset", "trailing_speed"]
