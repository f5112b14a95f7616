"""The analyses only Wang et al. 2011's passive-creeping paper uses (pure numpy on a run's ``series``).

- :mod:`.energy`  η2 (eq. 11) and its labelled interpretations, why Table 2's 0.25 is out of reach, the Fig 7 plot
- :mod:`.turning` the circle fit of a head path and the turning metrics (Fig 8)
- :mod:`.wave`    the travelling body wave window by window, E reaching and levelling at E_ref (eqs. 13–15)

The generic ones stay in :mod:`lab.analysis`: motion onset (the drag-course trial's clock), recurrence
plots and rhythm, plotting.
"""
