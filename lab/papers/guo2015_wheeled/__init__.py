"""Guo et al. 2015 (seed 000), the passive-wheel snake: dynamics–control unified model and head-tracking
partial feedback linearisation, reproduced on the engine.

- :mod:`.study`         the engine run and the model runs under the same PFL law, in the paper's coordinates;
                        the paper's q0 from the scenario; the wheel friction the model's start needs
- :mod:`.wheel_inertia` the model plus the engine wheels' spin inertia (a diagnostic for the comparison)
- :mod:`.report`        the ``seed000`` report section (Figs 4–6 counterparts, the slips, the engine's findings)
- :mod:`.checks`        the ``nonholonomic_models``, ``pfl_tracking`` and ``pfl_engine`` checks

Reusable parts it uses: the wheeled snake robot (lab.robots.wheeled_snake), the head-tracking PFL
controller (lab.controllers.head_tracking_pfl), the head-tracking trial (lab.trials.head_tracking), the
analytic models lab.models.guo2015_wheeled / guo2015_params; scenarios/snake_head_tracking.toml.
"""
