"""Guo et al. 2015, the passive-wheel snake: dynamics–control unified model and head-tracking
partial feedback linearisation, reproduced on the engine (what is where: README.md beside this file).

- :mod:`.params`        Table 1 and §§4.6, 5.2–5.3, the paper's conventions (no pybullet)
- :mod:`.model`         the constrained Euler–Lagrange model, the unified model (eqs. 14–17, corrected), PFL
- :mod:`.study`         the engine run and the model runs under the same PFL law, in the paper's coordinates;
                        the paper's q0 from the scenario; the wheel friction the model's start needs
- :mod:`.wheel_inertia` the model plus the engine wheels' spin inertia (a diagnostic for the comparison)
- :mod:`.report`        the ``guo2015_wheeled`` report section (Figs 4–6 counterparts, the slips, the engine's findings)
- :mod:`.checks`        the ``nonholonomic_models``, ``pfl_tracking`` and ``pfl_engine`` checks

Reusable parts it uses: the wheeled snake robot (lab.robots.wheeled_snake), the head-tracking PFL
controller (lab.papers.guo2015_wheeled.controllers, which evaluates :mod:`.model`), the head-tracking trial
(lab.papers.guo2015_wheeled.trials); scenarios/snake_head_tracking.toml.
"""
