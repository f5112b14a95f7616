"""The sweep engine: many runs of one scenario on dask.distributed, resumable (``lab sweep``).

- :mod:`lab.sweep.definition` sweep files, their expansion into runs, and the ``lab sweep`` command
- :mod:`lab.sweep.execute`    one run as a dask task, and the loop that collects finished runs
- :mod:`lab.sweep.table`      row files → ``results.parquet`` / ``results.csv``

The report's ``run_many`` uses the same executor.
"""
