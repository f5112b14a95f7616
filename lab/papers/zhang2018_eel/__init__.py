"""Zhang et al. 2018, eel robot in a non-inertial frame (what is where: README.md beside this file).

- :mod:`.model`    the analytic models (no pybullet): parameters, the exact model, the non-inertial model
- :mod:`.study`    the engine run and the two analytic models under the same controller, term by term
- :mod:`.analysis` the signals both sides are reduced to, and their comparison
- :mod:`.report`   the ``zhang2018_eel`` report section (Figs 2–7, agreement table, per-term diagnostics)
- :mod:`.checks`   the ``eel_models`` and ``eel_engine`` checks

Reusable parts it uses: the eel robot, the hydrodynamics law, the eel feedback-linearisation
controller (lab.papers.zhang2018_eel.controllers, which evaluates :mod:`.model.noninertial`); lab/papers/zhang2018_eel/scenarios/eel_forward_turn.toml.
"""

from lab.papers.manifest import Paper

PAPER = Paper(
    key="zhang2018_eel",
    authors=("Zhang, Anfan", "Li, Bin", "Wang, Minghui", "Chang, Jian"), year=2018,
    title="非惯性系下鳗鱼机器人动力学建模与仿真",
    title_en="Modeling and Simulation of Eel Robots in the non-inertial Frame",
    reproduced="the non-inertial model against the exact (Kelasidi-style) model and the engine: heading, "
               "CM path and velocity, joint torques (Figs 2–7)",
    figures=("Fig 2 heading", "Fig 3 CM path", "Figs 4–5 CM velocity", "Figs 6–7 joint torques"),
    tolerances=".tolerances",
    plugins={"controller": (".controllers",),
             "check": (".checks",),
             "fault": (".faults",),
             "report section": (".report",)},
    # the report's run its docs page replays (lab replay): a full build's name, then a --quick build's
    replay_runs=("zhang2018_eel_eel_forward_turn", "zhang2018_eel_eel_forward_turn_quick"),
)
