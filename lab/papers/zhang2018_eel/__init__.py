"""Zhang et al. 2018 (seed 003), eel robot in a non-inertial frame.

- :mod:`.study`    the engine run and the two analytic models under the same controller, term by term
- :mod:`.analysis` the signals both sides are reduced to, and their comparison
- :mod:`.report`   the ``seed003`` report section (Figs 2–7, agreement table, per-term diagnostics)
- :mod:`.checks`   the ``eel_models`` and ``eel_engine`` checks

Reusable parts it uses: the eel robot, the hydrodynamics law, the eel feedback-linearisation
controller, lab.models.eel_exact / eel_noninertial / eel_params.
"""
