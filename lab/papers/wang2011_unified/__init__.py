"""Wang et al. 2011, unified locomotion/manipulation dynamics of a snake robot (Sci Sin Inf); what is
where: README.md beside this file.

- :mod:`.params`     Table D1, the paper's numbering and its mapping to the lab's snake (no pybullet)
- :mod:`.model`      the unified dynamics: POE kinematics, metric, Christoffel symbols, friction (eqs. 1–33)
- :mod:`.slip_study` the model's own mean torques against the friction's slip speed
                     (``python -m lab.papers.wang2011_unified.slip_study``)
- :mod:`.study`      the engine runs (started on the gait, every applied torque kept with its state), the
                     model at the engine's own states, the slip-speed points, the parallel task runner
- :mod:`.checks`     the ``unified_manipulation`` and ``unified_locomotion`` checks
- :mod:`.report`     the ``wang2011_unified`` report section: Fig 5 counterparts, the error table, the slip-speed study

Reusable parts it uses: the snake robot, the anisotropic Coulomb law (head_exempt = false), the
serpenoid controller (``phase_offset`` = β for the paper's (i − 3)β), the ``welded_tail`` trial
(lab.trials.welded_tail). Scenarios: scenarios/snake_unified_locomotion.toml,
scenarios/snake_unified_manipulation.toml.
"""
