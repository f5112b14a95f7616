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
(lab.trials.welded_tail). Scenarios: lab/papers/wang2011_unified/scenarios/snake_unified_locomotion.toml,
lab/papers/wang2011_unified/scenarios/snake_unified_manipulation.toml.
"""

from lab.papers.manifest import Paper

PAPER = Paper(
    key="wang2011_unified",
    authors=("Wang, Zhifeng", "others"), year=2011,  # the co-authors are not on the pages the lab has
    title="基于微分几何的蛇形机器人移动与操作统一动力学模型研究",
    title_en="Unified dynamic model of snake robot locomotion and manipulation based on differential geometry",
    translated=True, venue="Scientia Sinica Informationis (中国科学: 信息科学)",
    reproduced="the unified locomotion/manipulation model (eqs. 22–27) against the engine, Fig 5, "
               "the friction's slip speed",
    figures=("eqs. 22–27 unified model", "Fig 5 locomotion and manipulation torques", "Table D1 parameters"),
    tolerances=".tolerances",
    plugins={"check": (".checks",), "fault": (".faults",), "report section": (".report",)},
    # the report's run its docs page replays (lab replay): a full build's name, then a --quick build's
    replay_runs=("wang2011_unified_locomotion", "wang2011_unified_locomotion_quick"),
)
