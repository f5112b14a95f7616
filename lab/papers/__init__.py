"""One home per paper: how each paper is reproduced.

Each package holds that paper's study — its report section, its checks, the trials and analyses only
it uses; its checks and report section are listed in :mod:`lab.core.plugins`. Reusable parts stay where
they are (robots, arenas, forces, controllers, models, analysis used by several papers, trials).

| package              | paper                                                             | report section        | checks |
|----------------------|-------------------------------------------------------------------|-----------------------|--------|
| ``wang2011_creeping``| Wang et al. 2011, energy-based passive creeping                   | ``wang2011_creeping`` | ``energy_balance``, ``turning_law`` |
| ``wang2011_unified`` | Wang et al. 2011, unified locomotion/manipulation dynamics        | ``wang2011_unified``  | ``unified_manipulation``, ``unified_locomotion`` |
| ``hu2013_tracked``   | Hu et al. 2013, tracked wheel-manipulator robot on a step         | ``hu2013_tracked``    | ``step_climb`` |
| ``guo2015_wheeled``  | Guo et al. 2015, passive-wheel snake, unified model and PFL       | ``guo2015_wheeled``   | ``nonholonomic_models``, ``pfl_tracking``, ``pfl_engine`` |
| ``zhang2018_eel``    | Zhang et al. 2018, eel robot in a non-inertial frame              | ``zhang2018_eel``     | ``eel_models``, ``hydro_decay``, ``eel_engine`` |

To change how paper X is reproduced, open its package here; to add a paper, add a package, list it in
:data:`PAPERS` and its checks and report modules in :mod:`lab.core.plugins`.
"""

from __future__ import annotations

PAPERS = ("wang2011_creeping", "wang2011_unified", "hu2013_tracked", "guo2015_wheeled", "zhang2018_eel")  # by year, then name

__all__ = ["PAPERS"]
