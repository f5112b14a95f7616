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
