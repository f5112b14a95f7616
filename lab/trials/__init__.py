"""Trials: what a trial adds to a run (bodies, a stop condition, metrics), by type.

- :mod:`lab.trials.base`        the hook protocol and the registry (``[trial] type = "…"``)
- :mod:`lab.trials.drag_course` the drag trial: a payload on a rope, a timed course (Wang 2011 §4.3)
- :mod:`lab.papers.hu2013_tracked.trials`  the tracked robot's climb: stop once decided, the ``climb.*`` metrics
- :mod:`lab.trials.welded_tail` the snake as a manipulator: its tail welded to the world (Wang 2011)
- :mod:`lab.papers.guo2015_wheeled.trials` the wheeled snake's head-tracking run: the tracking metrics (Guo 2015)

The runner knows no trial by name: it calls the hooks of whatever the scenario selected. The built-ins
are listed in :mod:`lab.core.plugins` and imported on the registry's first lookup.
"""

from lab.trials.base import CHECK_EVERY, TRIALS, Trial, register_trial

__all__ = ["CHECK_EVERY", "TRIALS", "Trial", "register_trial"]
