"""Wang et al. 2011 (seed 002), unified locomotion/manipulation dynamics of a snake robot (Sci Sin Inf).

- :mod:`.study`   the engine runs (started on the gait, every applied torque kept with its state), the
                  model at the engine's own states, the slip-speed points, the parallel task runner
- :mod:`.checks`  the ``unified_manipulation`` and ``unified_locomotion`` checks
- :mod:`.report`  the ``seed002`` report section: Fig 5 counterparts, the error table, the slip-speed study

Reusable parts it uses: the snake robot, the anisotropic Coulomb law (head_exempt = false), the
serpenoid controller (``phase_offset`` = β for the paper's (i − 3)β), the ``welded_tail`` trial
(lab.trials.welded_tail), and the model: lab.models.wang2011_params / wang2011_unified / wang2011_study.
Scenarios: scenarios/snake_unified_locomotion.toml, scenarios/snake_unified_manipulation.toml.
"""
