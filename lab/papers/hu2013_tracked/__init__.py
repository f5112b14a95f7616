"""Hu et al. 2013 (seed 004), the tracked wheel-manipulator robot climbing a step (screw theory).

- :mod:`.report`  the ``seed004`` report section (torque vs time, arm speed, stability region, heights)
- :mod:`.checks`  the ``step_climb`` check (engine vs screw model)

Reusable parts it uses: the tracked robot, the step and stairs arenas, the climb controller, the
step-climb trial (lab.trials.step_climb), lab.models.tracked_climb, lab.analysis.stability.
"""
