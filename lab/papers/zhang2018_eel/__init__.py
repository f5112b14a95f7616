"""Zhang et al. 2018, eel robot in a non-inertial frame (what is where: README.md beside this file).

- :mod:`.model`    the analytic models (no pybullet): parameters, the exact model, the non-inertial model
- :mod:`.study`    the engine run and the two analytic models under the same controller, term by term
- :mod:`.analysis` the signals both sides are reduced to, and their comparison
- :mod:`.report`   the ``zhang2018_eel`` report section (Figs 2–7, agreement table, per-term diagnostics)
- :mod:`.checks`   the ``eel_models`` and ``eel_engine`` checks

Reusable parts it uses: the eel robot, the hydrodynamics law, the eel feedback-linearisation
controller (lab.papers.zhang2018_eel.controllers, which evaluates :mod:`.model.noninertial`); scenarios/eel_forward_turn.toml.
"""
