"""Analytic models (no pybullet): the references the engine is checked against."""
