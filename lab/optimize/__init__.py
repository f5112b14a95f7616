"""Optimisation studies over a scenario's fields on the sweep's Dask engine (``lab optimize``).

- :mod:`lab.optimize.study`   study files (TOML) and their strict validation
- :mod:`lab.optimize.cli`     the ``lab optimize`` command
- :mod:`lab.optimize.engine`  ask-and-tell with Optuna in the client, trials as Dask tasks, resume exactly once
- :mod:`lab.optimize.results` the table of every trial, best trials as scenario files, the plots

Optimiser: Optuna (MIT, maintained by Preferred Networks and a large community, ask-and-tell API,
journal storage that a killed process leaves readable, TPE / NSGA-II / QMC / random samplers with
constraints, and parameter importances without scikit-learn through PED-ANOVA).
"""
