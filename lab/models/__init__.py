"""Analytic models (no pybullet): the references the engine is checked against.

Being emptied: each paper's model now lives in its home under lab/papers/. Only tracked_climb.py (Hu 2013)
is left, moved by its own change; this file goes with it.
"""
