"""Trials: many runs of one scenario (parameter sweeps on dask.distributed) and the report sections
that the trials own.

- :mod:`lab.trials.sweep`   sweep files, their expansion into runs, and the ``lab sweep`` command
- :mod:`lab.trials.execute` one run as a dask task, and the loop that collects finished runs
- :mod:`lab.trials.table`   row files → ``results.parquet`` / ``results.csv``
- :mod:`lab.trials.seed001_report` the Wang 2011 (seed 001) section of ``lab report``
"""
