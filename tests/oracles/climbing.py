"""Numpy oracle of lab/papers/hu2013_tracked/controllers.py's compiled contact summary."""

import numpy as np

from lab.core.contacts import F_T, P_W, Col
from lab.papers.hu2013_tracked.controllers import (A_POINT, B_POINT, EDGE_POINT, GUIDE_POINT, STEP_MIN, SUMMARY_LEN, TOP_BAND,
                                      TOP_POINT, TRACK_STEP_Z, Summary)


def contact_summary(cs: np.ndarray, belt_mask: np.ndarray, l_guide: int, fx: float, fy: float) -> np.ndarray:
    """The climb controller's contact summary (lab.papers.hu2013_tracked.controllers.Summary) in vectorised numpy."""
    out = np.full(SUMMARY_LEN, np.nan)
    out[Summary.STEP] = 0.0
    out[Summary.EDGE_FN] = out[Summary.EDGE_FT] = 0.0
    if not len(cs):
        return out
    link = cs[:, Col.LINK].astype(int)
    on = belt_mask[np.clip(link, 0, len(belt_mask) - 1)]
    P = cs[on, P_W]
    if len(P):
        z_top = P[:, 2].max()
        if z_top >= cs[:, Col.PZ].min() + STEP_MIN:
            top = P[P[:, 2] >= z_top - TOP_BAND]
            out[Summary.STEP] = 1.0
            out[TOP_POINT] = top[np.argmin(top[:, 0] * fx + top[:, 1] * fy)]
    ts = on & (cs[:, Col.PZ] > TRACK_STEP_Z)
    if ts.any():
        Q = cs[ts, P_W]
        out[A_POINT], out[B_POINT] = Q[np.argmax(Q[:, 1])], Q[np.argmin(Q[:, 1])]
        fn = float(cs[ts, Col.FN].sum())
        out[Summary.EDGE_FN] = fn
        out[Summary.EDGE_FT] = float(np.linalg.norm(cs[ts, F_T].sum(axis=0)))
        if fn > 0:
            out[EDGE_POINT] = cs[ts, Col.FN] @ Q / fn
    g = link == l_guide
    if g.any():
        out[GUIDE_POINT] = cs[g, P_W].mean(axis=0)
    return out
