"""Wang et al. 2011 (seed 001), energy-based passive creeping (Acta Automatica Sinica).

- :mod:`.report`   the ``seed001`` report section: start-up (Fig 5), energy tracking (Fig 7), table
- :mod:`.characteristic` why E stops short of E_ref (issue #16): steady state against a frozen coupling gain,
  the Fig 7 rows run long, the E_ref × ω reachability sweep, the start-up onset
- :mod:`.studies`  the rest of the section: recurrence (Fig 6), turning (Fig 8), surfaces (Table 2), drag (Figs 12–14)
- :mod:`.surfaces` Table 2's trial: η2 on three surfaces for passive creeping and serpenoid
- :mod:`.turning`  the ``turning_law`` check (Fig 8) and its runs
- :mod:`.checks`   the ``energy_balance`` check (eq. 6)

Reusable parts it uses: the passive-creeping and serpenoid controllers, the anisotropic Coulomb law,
the drag-course trial (lab.trials.drag_course), the tether, lab.analysis (energy, recurrence, turning,
wave, onset).
"""
