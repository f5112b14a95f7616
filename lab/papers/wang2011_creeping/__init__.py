"""Wang et al. 2011, energy-based passive creeping (Acta Automatica Sinica); what is where: README.md
beside this file.

- :mod:`.report`   the ``wang2011_creeping`` report section: start-up (Fig 5), energy tracking (Fig 7), table
- :mod:`.characteristic` why E stops short of E_ref: steady state against a frozen coupling gain,
  the Fig 7 rows run long, the E_ref × ω reachability sweep, the start-up onset
- :mod:`.studies`  the rest of the section: recurrence (Fig 6), turning (Fig 8), surfaces (Table 2), drag (Figs 12–14)
- :mod:`.surfaces` Table 2's trial: η2 on three surfaces for passive creeping and serpenoid
- :mod:`.turning`  the ``turning_law`` check (Fig 8) and its runs
- :mod:`.checks`   the ``energy_balance`` check (eq. 6)
- :mod:`.analysis` the analyses only this paper uses: η2 and the Fig 7 plot, the turning-circle fit, the body wave

Reusable parts it uses: the passive-creeping and serpenoid controllers, the anisotropic Coulomb law,
the drag-course trial (lab.trials.drag_course), the tether, lab.analysis (recurrence, motion onset).
"""

from lab.papers.manifest import Paper

PAPER = Paper(
    key="wang2011_creeping",
    authors=("Wang, Zhifeng", "Ma, Shugen", "Li, Bin", "Wang, Yuechao"), year=2011,
    title="基于能量的蛇形机器人蜿蜒运动控制方法的仿真与实验研究",
    title_en="Simulation and Experimental Study of an Energy-based Control Method for the Serpentine "
             "Locomotion of a Snake-like Robot",
    venue="Acta Automatica Sinica", doi="10.3724/SP.J.1004.2011.00604",
    reproduced="passive creeping: start-up (Fig 5), torque recurrence (Fig 6), energy regulation (Fig 7), "
               "turning (Fig 8), η2 (Table 2), the drag experiment (Figs 12–14)",
    figures=("Fig 5 start-up", "Fig 6 torque recurrence", "Fig 7 energy regulation", "Fig 8 turning",
             "Table 2 η2 on three surfaces", "Figs 12–14 drag experiment"),
    tolerances=".tolerances",
    plugins={"check": (".checks", ".turning"), "analysis": (".gait",), "report section": (".report",)},
    # the report's run its docs page replays (lab replay): a full build's name, then a --quick build's
    replay_runs=("wang2011_creeping_E1_mun0.3_mut0.03",),
)
