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
(lab.papers.guo2015_wheeled.trials); lab/papers/guo2015_wheeled/scenarios/snake_head_tracking.toml.
"""

from lab.papers.manifest import Paper

PAPER = Paper(
    key="guo2015_wheeled",
    authors=("Guo, Xian", "Ma, Shugen", "Li, Bin", "Wang, Minghui", "Wang, Yuechao"), year=2015,
    title="基于微分几何的蛇形机器人动力学与控制统一模型",
    title_en="A unified dynamics and control model of snake robots based on differential geometry",
    translated=True, venue="Scientia Sinica Informationis (中国科学: 信息科学), 45: 1080–1094",
    doi="10.1360/N112014-00024",
    reproduced="the nonholonomic unified model (eq. 14) against the constrained Euler–Lagrange form "
               "(eq. 18), PFL head tracking (eqs. 23–24, Figs 4–6), the engine under the same law",
    figures=("eq. 14 unified model vs eq. 18", "Fig 4 head path", "Fig 5 tracking error", "Fig 6 joint torques"),
    tolerances=".tolerances",
    plugins={"controller": (".controllers",),
             "trial": (".trials",),
             "check": (".checks",),
             "fault": (".faults",),
             "report section": (".report",)},
    # the report's run its docs page replays (lab replay): a full build's name, then a --quick build's
    replay_runs=("guo2015_wheeled_snake_head_tracking", "guo2015_wheeled_snake_head_tracking_quick"),
)
