"""Hu et al. 2013, the tracked wheel-manipulator robot climbing a step (screw theory): see README.md.

- :mod:`.model`      the screw model (Table 1, the chains, the climb path, torques, the drive)
- :mod:`.stability`  the support triangle over the model's climb and the Fig 12 stability region
- :mod:`.report`     the report section (torque vs time, arm speed, stability region, heights)
- :mod:`.checks`     the ``step_climb`` check (engine vs screw model; the single motor vs the stall law)
- :mod:`.model.stall`  the single motor at a riser: stall force, flip requirement, their boundaries
- :mod:`.differential`  a differential run's ``diff.*`` metrics (the step-climb trial reports them)
- :mod:`.climb_ledger`  where the motor's work goes over the climb window (``climb.ledger_*``)
- :mod:`.design_map`   the single motor's outcome over i2, μ_g, μ_w (sweep ``hu2013_design_map``)
- :mod:`.model.multi`  beyond the paper (§7, Figs 3–4): the limit analysis of several modules
- :mod:`.chain_climb`, :mod:`.parallel_climb`, :mod:`.chain_trial`  their cooperative climb (controllers, trial)
- :mod:`.chain_checks`  the ``chain_climb`` check; :mod:`.report_multi` its part of the report

Importing this package registers nothing and loads no library module, so the library (the robot's
``climb_params``, the climb controller's drive limits) can import :mod:`.model` without a cycle;
:mod:`lab.core.plugins` lists :mod:`.checks` and :mod:`.report`, which register themselves on the first lookup.
"""

from lab.papers.manifest import Paper

PAPER = Paper(
    key="hu2013_tracked",
    authors=("Hu, Yanan", "Ma, Shugen", "Li, Bin", "Wang, Minghui", "Wang, Yuechao"), year=2013,
    title="基于旋量动力学建模的可重构轮手一体机器人越障性能研究",
    title_en="Obstacle-negotiation performance of a reconfigurable wheel-manipulator robot based on "
             "screw-theory dynamic modelling", translated=True,
    reproduced="the step climb (advance, flip, climb), motor torque against step height and arm length "
               "(Figs 8–10), the largest step, the support-triangle margin (eq. 13)",
    figures=("Fig 8 motor torque vs step height", "Fig 9 arm speed", "Fig 10 arm length",
             "Fig 12 stability region", "eq. 13 support-triangle margin", "h_max"),
    tolerances=".tolerances",
    plugins={"controller": (".controllers", ".chain_climb", ".parallel_climb"),
             "trial": (".trials", ".chain_trial"),
             "check": (".checks", ".chain_checks"),
             "fault": (".faults",),
             "report section": (".report",)},
    # the report's run its docs page replays (lab replay): a full build's name, then a --quick build's
    replay_runs=("hu2013_tracked_h0.15_w0.5_la0.30", "hu2013_tracked_h0.05_w0.5_la0.30"),
)
