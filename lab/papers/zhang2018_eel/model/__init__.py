"""Zhang et al. 2018's eel models (no pybullet): the references the engine is checked against.

- :mod:`.params`      the paper's §4.2 parameters, its conventions and their mapping to the lab's eel
- :mod:`.exact`       the exact (inertial-frame) model, eqs. 1–9
- :mod:`.noninertial` the model in the non-inertial frame of the head, eqs. 10–20 (compiled terms loop)
"""
