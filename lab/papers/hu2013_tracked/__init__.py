"""Hu et al. 2013, the tracked wheel-manipulator robot climbing a step (screw theory): see README.md.

- :mod:`.model`      the screw model (Table 1, the chains, the climb path, torques, the drive)
- :mod:`.stability`  the support triangle over the model's climb and the Fig 12 stability region
- :mod:`.report`     the report section (torque vs time, arm speed, stability region, heights)
- :mod:`.checks`     the ``step_climb`` check (engine vs screw model; the single motor vs the stall law)
- :mod:`.model.stall`  the single motor at a riser: stall force, flip requirement, their boundaries
- :mod:`.differential`  a differential run's ``diff.*`` metrics (the step-climb trial reports them)
- :mod:`.climb_ledger`  where the motor's work goes over the climb window (``climb.ledger_*``)
- :mod:`.design_map`   the single motor's outcome over i2, μ_g, μ_w (sweep ``hu2013_design_map``)

Importing this package registers nothing and loads no library module, so the library (the robot's
``climb_params``, the climb controller's drive limits) can import :mod:`.model` without a cycle;
:mod:`lab.core.plugins` lists :mod:`.checks` and :mod:`.report`, which register themselves on the first lookup.
"""
